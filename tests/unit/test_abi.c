/*
 * test_abi.c - the bindings' entry points (pt2scope.h, "Bindings") in C,
 * so AddressSanitizer and LeakSanitizer see every path the Python package
 * takes: opens from a path, a buffer and a URL that is refused, the three
 * questions with their answers and problems, and "current" devices through
 * the stand-in driver's per-thread contexts.
 */
#include <check.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2scope.h"
#include "testutil.h"

#define NODE_GPUS                                                                                  \
    "NVIDIA H100 80GB HBM3,9.0,132,85899345920;NVIDIA A100-SXM4-40GB,8.0,108,42949672960"

static pt2_package *open_fixture(const char *name)
{
    char path[256];
    pt2_package *pkg = NULL;
    char *problem = NULL;

    ck_assert_int_eq(pt2scope_open_path(tu_fixture(name, path, sizeof(path)), &pkg, &problem),
                     PT2_OK);
    ck_assert_ptr_null(problem);
    ck_assert_ptr_nonnull(pkg);
    return pkg;
}

/* The answer (or problem) text as a document; frees the text. */
static cJSON *take(char *text)
{
    cJSON *doc;

    ck_assert_ptr_nonnull(text);
    doc = cJSON_Parse(text);
    pt2scope_free(text);
    ck_assert_ptr_nonnull(doc);
    return doc;
}

static void assert_problem(char *text, const char *slug, const char *detail)
{
    cJSON *doc = take(text);
    char type[128];

    snprintf(type, sizeof(type), "%s%s", PT2_PROBLEM_BASE, slug);
    ck_assert_str_eq(pt2_json_str(doc, "type"), type);
    if (detail != NULL)
        ck_assert_str_eq(pt2_json_str(doc, "detail"), detail);
    cJSON_Delete(doc);
}

static void use_fake_driver(void)
{
    static char lib[512];

    snprintf(lib, sizeof(lib), "%s/fakecuda/libcuda.so.1", tu_build_dir());
    setenv("PT2SCOPE_LIBCUDA", lib, 1);
    setenv("PT2SCOPE_FAKECUDA_DEVICES", NODE_GPUS, 1);
    setenv("PT2SCOPE_FAKECUDA_DRIVER", "13000", 1);
}

START_TEST(test_version)
{
    ck_assert_int_eq(pt2scope_abi_version(), PT2SCOPE_ABI_VERSION);
    ck_assert_str_eq(pt2scope_version(), PT2SCOPE_VERSION);
}
END_TEST

START_TEST(test_inspect_check_validate)
{
    pt2_package *pkg = open_fixture("cuda_sm90a_v8.pt2");
    cJSON *doc, *arr;
    char *out = NULL;

    ck_assert_int_eq(pt2scope_inspect(pkg,
                                      "{\"targets\": [\"H100\", \"8.0\"], \"driver\": \"13.0\", "
                                      "\"node\": false}",
                                      &out),
                     PT2_OK);
    doc = take(out);
    ck_assert_str_eq(pt2_json_str(cJSON_GetObjectItem(doc, "arch"), "cuda_compute_capability"),
                     "9.0");
    ck_assert_str_eq(pt2_json_str(cJSON_GetObjectItem(doc, "package"), "name"),
                     "cuda_sm90a_v8.pt2");
    arr = cJSON_GetObjectItem(doc, "compatibility");
    ck_assert_int_eq(cJSON_GetArraySize(arr), 2);
    ck_assert_str_eq(pt2_json_str(cJSON_GetArrayItem(arr, 0), "verdict"), "compatible");
    ck_assert_str_eq(pt2_json_str(cJSON_GetArrayItem(arr, 1), "verdict"), "incompatible");
    ck_assert_str_eq(pt2_json_str(cJSON_GetObjectItem(doc, "overall"), "verdict"), "incompatible");
    cJSON_Delete(doc);

    /* Neither targets nor the node: the document alone, as the CLI's inspect. */
    ck_assert_int_eq(pt2scope_inspect(pkg, "{\"node\": false, \"view\": \"oip\"}", &out), PT2_OK);
    doc = take(out);
    ck_assert_ptr_null(cJSON_GetObjectItem(doc, "compatibility"));
    ck_assert_str_eq(pt2_json_str(cJSON_GetObjectItem(doc, "metadata"), "platform"),
                     "pytorch_aoti");
    cJSON_Delete(doc);

    ck_assert_int_eq(pt2scope_check(pkg, "{\"targets\": [\"B200\"]}", &out), PT2_OK);
    doc = take(out);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "compatibility")), 1);
    ck_assert_str_eq(pt2_json_str(cJSON_GetObjectItem(doc, "overall"), "verdict"), "incompatible");
    cJSON_Delete(doc);

    ck_assert_int_eq(pt2scope_validate(pkg, "{\"image\": [8, 3, 512, 512], \"scale\": [8]}", &out),
                     PT2_OK);
    doc = take(out);
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(doc, "valid")));
    cJSON_Delete(doc);
    ck_assert_int_eq(pt2scope_validate(pkg, "{\"image\": [8, 3, 256, 512], \"scale\": [8]}", &out),
                     PT2_OK);
    doc = take(out);
    ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(doc, "valid")));
    ck_assert_str_eq(
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "errors"), 0), "message")
            ->valuestring,
        "input 'image' axis 2: expected 512, got 256");
    cJSON_Delete(doc);
    pt2scope_close(pkg);
}
END_TEST

START_TEST(test_problems)
{
    pt2_package *pkg = NULL;
    char path[256], *out = NULL;

    ck_assert_int_eq(pt2scope_open_path("/nonexistent/x.pt2", &pkg, &out), PT2_ERR_NOT_FOUND);
    ck_assert_ptr_null(pkg);
    assert_problem(out, "not-found", NULL);
    ck_assert_int_eq(
        pt2scope_open_path(tu_fixture("broken_not_zip.pt2", path, sizeof(path)), &pkg, &out),
        PT2_ERR_NOT_ZIP);
    assert_problem(out, "not-a-zip", "not a zip archive (no end-of-central-directory record)");
    ck_assert_int_eq(
        pt2scope_open_path(tu_fixture("torch_save_checkpoint.pt2", path, sizeof(path)), &pkg, NULL),
        PT2_ERR_TORCH_SAVE);
    ck_assert_int_eq(pt2scope_open_path(NULL, &pkg, &out), PT2_ERR_INVALID);
    assert_problem(out, "bad-request", "no package path given");
    ck_assert_int_eq(pt2scope_open_path("x", NULL, NULL), PT2_ERR_INVALID);
    ck_assert_int_eq(pt2scope_open_url("ftp://example.com/x.pt2", &pkg, &out), PT2_ERR_INVALID);
    ck_assert_ptr_null(pkg);
    assert_problem(out, "bad-request", NULL);
    ck_assert_int_eq(pt2scope_open_buffer("garbage", 7, NULL, &pkg, &out), PT2_ERR_NOT_ZIP);
    assert_problem(out, "not-a-zip", NULL);
    ck_assert_int_eq(pt2scope_open_buffer(NULL, 5, NULL, &pkg, &out), PT2_ERR_INVALID);
    assert_problem(out, "bad-request", "no package bytes given");

    ck_assert_int_eq(pt2scope_inspect(NULL, NULL, &out), PT2_ERR_INVALID);
    assert_problem(out, "bad-request", "no package handle given");
    ck_assert_int_eq(pt2scope_inspect(NULL, NULL, NULL), PT2_ERR_INVALID);
    pkg = open_fixture("cpu_x86_64.pt2");
    ck_assert_int_eq(pt2scope_inspect(pkg, "{\"targets\": [1]}", &out), PT2_ERR_INVALID);
    assert_problem(out, "bad-request", "\"targets\" must be an array of strings");
    ck_assert_int_eq(pt2scope_inspect(pkg, "{\"targets\": [\"no-such-gpu\"]}", &out),
                     PT2_ERR_INVALID);
    assert_problem(out, "bad-request", NULL);
    ck_assert_int_eq(pt2scope_check(pkg, "{\"driver\": \"x\"}", &out), PT2_ERR_INVALID);
    assert_problem(out, "bad-request", NULL);
    ck_assert_int_eq(pt2scope_check(pkg, "{\"node\": false", &out), PT2_ERR_INVALID);
    assert_problem(out, "bad-request", NULL);
    ck_assert_int_eq(pt2scope_validate(pkg, NULL, &out), PT2_ERR_INVALID);
    assert_problem(out, "bad-request", "inputs are required, e.g. {\"x\": [8, 3, 512, 512]}");
    ck_assert_int_eq(pt2scope_validate(pkg, "[1, 2]", &out), PT2_ERR_INVALID);
    assert_problem(out, "bad-request", NULL);
    pt2scope_close(pkg);
    pt2scope_close(NULL);
    pt2scope_free(NULL);
}
END_TEST

START_TEST(test_buffer)
{
    char path[256], *out = NULL;
    size_t len = 0;
    uint8_t *data = tu_read_file(tu_fixture("cpu_x86_64.pt2", path, sizeof(path)), &len);
    pt2_package *pkg = NULL;
    cJSON *doc;

    ck_assert_ptr_nonnull(data);
    ck_assert_int_eq(pt2scope_open_buffer(data, len, "upload.pt2", &pkg, &out), PT2_OK);
    free(data); /* read during the open only */
    ck_assert_int_eq(pt2scope_inspect(pkg, "{\"node\": false}", &out), PT2_OK);
    doc = take(out);
    ck_assert_str_eq(pt2_json_str(cJSON_GetObjectItem(doc, "package"), "name"), "upload.pt2");
    ck_assert_int_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "package"), "size")->valueint,
                     (int)len);
    cJSON_Delete(doc);
    pt2scope_close(pkg);
    /* A truncated copy is a problem, not a read past the buffer. */
    data = tu_read_file(tu_fixture("cpu_x86_64.pt2", path, sizeof(path)), &len);
    ck_assert_int_lt(pt2scope_open_buffer(data, len / 2, NULL, &pkg, &out), 0);
    ck_assert_ptr_null(pkg);
    assert_problem(out, "truncated", NULL);
    free(data);
}
END_TEST

typedef int (*cu_init_fn)(unsigned);
typedef int (*cu_retain_fn)(void **, int);
typedef int (*cu_set_fn)(void *);

START_TEST(test_current_device)
{
    pt2_package *pkg;
    struct pt2_error err = {0};
    char *out = NULL, lib[512];
    void *h, *ctx = NULL;
    cJSON *doc, *first;
    int ordinal = 7;

    use_fake_driver();
    ck_assert_int_eq(pt2_cuda_current_device(NULL, &ordinal, &err), PT2_OK);
    ck_assert_int_eq(ordinal, -1); /* never initialised: no context */
    ck_assert_int_eq(pt2_cuda_current_device("/nonexistent/libcuda.so.1", &ordinal, &err), PT2_OK);
    ck_assert_int_eq(ordinal, -1);
    ck_assert_int_eq(pt2_cuda_current_device(NULL, NULL, &err), PT2_ERR_INVALID);

    pkg = open_fixture("cuda_sm90a_v8.pt2");
    /* No context: the first visible GPU. */
    ck_assert_int_eq(pt2scope_check(pkg, "{\"device\": \"current\"}", &out), PT2_OK);
    doc = take(out);
    first = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "compatibility"), 0);
    ck_assert_str_eq(pt2_json_str(first, "target"), "cuda:0");
    ck_assert_str_eq(pt2_json_str(cJSON_GetObjectItem(doc, "overall"), "verdict"), "compatible");
    cJSON_Delete(doc);

    snprintf(lib, sizeof(lib), "%s/fakecuda/libcuda.so.1", tu_build_dir());
    h = dlopen(lib, RTLD_NOW);
    ck_assert_ptr_nonnull(h);
    ck_assert_int_eq(((cu_init_fn)dlsym(h, "cuInit"))(0), 0);
    ck_assert_int_eq(((cu_retain_fn)dlsym(h, "cuDevicePrimaryCtxRetain"))(&ctx, 1), 0);
    ck_assert_int_eq(((cu_set_fn)dlsym(h, "cuCtxSetCurrent"))(ctx), 0);
    ck_assert_int_eq(pt2_cuda_current_device(NULL, &ordinal, &err), PT2_OK);
    ck_assert_int_eq(ordinal, 1);
    ck_assert_int_eq(pt2scope_check(pkg, "{\"device\": \"current\"}", &out), PT2_OK);
    doc = take(out);
    first = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "compatibility"), 0);
    ck_assert_str_eq(pt2_json_str(first, "target"), "cuda:1");
    ck_assert_str_eq(pt2_json_str(cJSON_GetObjectItem(doc, "overall"), "verdict"), "incompatible");
    cJSON_Delete(doc);
    ck_assert_int_eq(pt2scope_check(pkg, "{\"device\": \"cuda:9\"}", &out), PT2_ERR_INVALID);
    assert_problem(out, "bad-request", NULL);
    pt2scope_close(pkg);
    dlclose(h);
}
END_TEST

START_TEST(test_current_device_without_gpus)
{
    pt2_package *pkg;
    char *out = NULL;
    cJSON *doc, *arr;

    use_fake_driver();
    setenv("PT2SCOPE_FAKECUDA_DEVICES", "", 1);
    pkg = open_fixture("cuda_sm90a_v8.pt2");
    /* No GPU at all: the whole node, which says what the package lacks (its CPU, then this
     * machine's runtime, as `pt2scope check`). */
    ck_assert_int_eq(pt2scope_check(pkg, "{\"device\": \"current\"}", &out), PT2_OK);
    doc = take(out);
    arr = cJSON_GetObjectItem(doc, "compatibility");
    ck_assert_int_eq(cJSON_GetArraySize(arr), 2);
    ck_assert_str_eq(pt2_json_str(cJSON_GetArrayItem(arr, 0), "kind"), "cpu");
    ck_assert_str_eq(pt2_json_str(cJSON_GetArrayItem(arr, 1), "kind"), "runtime");
    ck_assert_str_eq(pt2_json_str(cJSON_GetArrayItem(arr, 1), "target"), "local");
    ck_assert_str_eq(pt2_json_str(cJSON_GetObjectItem(doc, "overall"), "verdict"), "incompatible");
    cJSON_Delete(doc);
    pt2scope_close(pkg);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("abi");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_version);
    tcase_add_test(tc, test_inspect_check_validate);
    tcase_add_test(tc, test_problems);
    tcase_add_test(tc, test_buffer);
    tcase_add_test(tc, test_current_device);
    tcase_add_test(tc, test_current_device_without_gpus);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run_suite(suite());
}
