/*
 * test_oom.c - allocation-failure injection: one inspection (open, the
 * document in both views, validation, verdicts on targets and on a node,
 * Kubernetes verdicts) is repeated with the n-th allocation failing, for
 * every n until it needs no more, so each out-of-memory path of the library
 * runs at least once. Each run must end in PT2_OK or a clean error (never a
 * crash; under ASan no leak, no use of freed memory).
 *
 * The library's own malloc/calloc/realloc/strdup are redirected here by the
 * linker (-Wl,--wrap=..., set for this suite only in the Makefile) and
 * cJSON's through cJSON_InitHooks; libzip's allocations inside its shared
 * library are not counted (its failures reach us as its errors).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pt2scope.h"
#include "testutil.h"

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>
/* Leaks are checked after every run, so a report names the allocation that failed. */
#define LEAKED() __lsan_do_recoverable_leak_check()
#else
#define LEAKED() 0
#endif

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);

static long fail_at; /* 1-based allocation to fail; 0 = none */
static long counted; /* allocations so far in this run */
static int armed;    /* count only inside the code under test */

static int fails(void)
{
    if (!armed)
        return 0;
    return ++counted == fail_at;
}

void *__wrap_malloc(size_t n)
{
    return fails() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
    return fails() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
    return fails() ? NULL : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
    return fails() ? NULL : __real_strdup(s);
}

static void *hook_malloc(size_t n)
{
    return __wrap_malloc(n);
}

/* One inspection as the daemon does it; returns the first failing status (or PT2_OK). */
static int inspect_once(const char *fixture)
{
    static const char nodes[] = "[{\"metadata\": {\"name\": \"a\", \"labels\": "
                                "{\"nvidia.com/gpu.compute.major\": \"9\", "
                                "\"nvidia.com/gpu.compute.minor\": \"0\"}}}]";
    struct pt2_node_options no = {"/nonexistent/pt2scope/libcuda.so.1",
                                  "tests/fixtures/sysfs/mi250x2", "n"};
    struct pt2_error err = {0};
    struct pt2_device dev;
    pt2_package *pkg = NULL;
    pt2_verdicts *v = NULL;
    pt2_node *node = NULL;
    pt2_k8s_nodes *kn = NULL;
    cJSON *doc = NULL, *in = NULL;
    char path[256];
    int rc;

    in = cJSON_Parse("{\"image\": [8, 3, 512, 511], \"x\": [1]}"); /* the caller's, not counted */
    ck_assert_ptr_nonnull(in);
    armed = 1;
    /* a fixture name, or a path (a package the build makes) */
    rc = pt2_package_open_path(
        &pkg, strchr(fixture, '/') != NULL ? fixture : tu_fixture(fixture, path, sizeof(path)),
        NULL, &err);
    if (rc == PT2_OK)
        rc = pt2_package_to_json(pkg, PT2_JSON_DEFAULT, &doc, &err);
    cJSON_Delete(doc);
    doc = NULL;
    if (rc == PT2_OK)
        rc = pt2_package_to_json(pkg, PT2_JSON_OIP, &doc, &err);
    cJSON_Delete(doc);
    doc = NULL;
    if (rc == PT2_OK) { /* the daemon's printed document, the tree never built */
        char *text = NULL;
        size_t tlen = 0;

        rc = pt2_package_print_json(pkg, PT2_JSON_AFFINITY, NULL, 1, &text, &tlen, &err);
        free(text);
    }
    if (rc == PT2_OK) {
        rc = pt2_package_validate(pkg, in, &doc, &err);
        cJSON_Delete(doc);
        doc = NULL;
    }
    if (rc == PT2_OK)
        rc = pt2_verdicts_new(&v, &err);
    if (rc == PT2_OK && (rc = pt2_target_parse("H100", &dev, &err)) == PT2_OK)
        rc = pt2_verdicts_add_target(v, pkg, "H100", &dev, &err);
    if (rc == PT2_OK)
        rc = pt2_node_probe(&node, &no, &err);
    if (rc == PT2_OK)
        rc = pt2_verdicts_add_node(v, pkg, node, NULL, 0, &err);
    if (rc == PT2_OK)
        rc = pt2_verdicts_to_json(v, &doc, &err);
    cJSON_Delete(doc);
    doc = NULL;
    if (rc == PT2_OK)
        rc = pt2_k8s_nodes_parse_text(&kn, nodes, sizeof(nodes) - 1, &err);
    if (rc == PT2_OK)
        rc = pt2_k8s_compat_json(pkg, kn, &doc, &err);
    cJSON_Delete(doc);
    armed = 0;
    /* A failure is clean: a status and a message, nothing half done. */
    if (rc != PT2_OK)
        ck_assert_msg(err.code == rc && err.message[0] != '\0',
                      "allocation %ld: status %d with error %d '%s'", fail_at, rc, err.code,
                      err.message);
    cJSON_Delete(in);
    pt2_k8s_nodes_free(kn);
    pt2_node_free(node);
    pt2_verdicts_free(v);
    pt2_package_free(pkg);
    return rc;
}

static void every_allocation(const char *fixture)
{
    cJSON_Hooks hooks = {hook_malloc, free};
    long total, n, nomem = 0;

    cJSON_InitHooks(&hooks);
    fail_at = 0;
    counted = 0;
    ck_assert_int_eq(inspect_once(fixture), PT2_OK);
    total = counted;
    ck_assert_int_gt(total, 10);
    for (n = 1; n <= total; n++) {
        int rc;

        fail_at = n;
        counted = 0;
        rc = inspect_once(fixture);
        ck_assert_msg(!LEAKED(), "%s: a leak after allocation %ld failed (status %d)", fixture, n,
                      rc);
        nomem += rc == PT2_ERR_NOMEM;
    }
    /* Most failures surface as out of memory (some are absorbed: a warning, a fallback). */
    ck_assert_int_gt(nomem, total / 2);
    cJSON_InitHooks(NULL);
}

START_TEST(test_every_allocation_cuda)
{
    every_allocation("cuda_sm90a_v8.pt2");
}
END_TEST

START_TEST(test_every_allocation_wrapper)
{
    every_allocation("cpu_inline_checks_v8.pt2");
}
END_TEST

/* A real torch 2.14.1 package holding an exported program and its AOTI build of the same
 * name, its library left out (tests/fuzz/seeds/torch/: the wrapper and the program are what
 * the narrowing reads; the 1.5 MB library would take minutes under the sanitizers). */
START_TEST(test_every_allocation_torch)
{
    every_allocation("tests/fuzz/seeds/torch/program_and_aoti_no_so.pt2");
}
END_TEST

/* A Windows package: the PE reader and the library entry's pe object (the DLLs the build
 * makes, $PT2SCOPE_BUILD/fixtures/win/: win_model.pt2 by mingw-w64, win_delay.pt2 by lld-link
 * with a delay-load directory; each skipped without its tools). */
static void every_allocation_windows(const char *file, const char *why)
{
    char path[512];

    snprintf(path, sizeof(path), "%s/fixtures/win/%s", tu_build_dir(), file);
    if (!tu_exists(path)) {
        tu_skip("oom windows", why);
        return;
    }
    every_allocation(path);
}

START_TEST(test_every_allocation_windows)
{
    every_allocation_windows("win_model.pt2",
                             "no mingw-w64 DLL was built (x86_64-w64-mingw32-gcc absent)");
    every_allocation_windows("win_delay.pt2",
                             "no delay-load DLL was built (lld-link or llvm-dlltool absent)");
}
END_TEST

/* pt2_upload's spill file: an anonymous file of its own. */
static int oom_spill(void *ctx, int *fd, struct pt2_error *err)
{
    int *f = ctx;

    if (*f < 0)
        *f = memfd_create("oom-spill", 0);
    *fd = *f;
    return *f >= 0 ? PT2_OK : pt2_error_set(err, PT2_ERR_IO, "no memfd");
}

/* An upload streamed in 1000-byte slices (4 KiB in memory, the rest spilled), then inspected. */
static int upload_once(const uint8_t *data, size_t len)
{
    struct pt2_error err = {0};
    int spill_fd = -1, rc;
    struct pt2_upload_options o = {4096, oom_spill, &spill_fd, 0, NULL};
    pt2_upload *u = NULL;
    pt2_source *src = NULL;
    pt2_package *pkg = NULL;
    cJSON *doc = NULL, *j = NULL;

    armed = 1;
    rc = pt2_upload_new(&u, &o, &err);
    for (size_t off = 0; rc == PT2_OK && off < len; off += 1000)
        rc = pt2_upload_feed(u, data + off, len - off < 1000 ? len - off : 1000, &err);
    if (rc == PT2_OK)
        rc = pt2_upload_finish(u, &err);
    if (rc == PT2_OK)
        rc = pt2_upload_source(u, &src, &err);
    if (rc == PT2_OK)
        rc = pt2_package_open_source(&pkg, src, NULL, &err);
    if (rc == PT2_OK)
        rc = pt2_package_to_json(pkg, PT2_JSON_DEFAULT, &doc, &err);
    if (rc == PT2_OK && (j = pt2_upload_source_json(u)) == NULL)
        rc = pt2_error_set(&err, PT2_ERR_NOMEM, "out of memory");
    armed = 0;
    if (rc != PT2_OK)
        ck_assert_msg(err.code == rc && err.message[0] != '\0',
                      "allocation %ld: status %d with error %d '%s'", fail_at, rc, err.code,
                      err.message);
    cJSON_Delete(j);
    cJSON_Delete(doc);
    pt2_package_free(pkg);
    pt2_upload_free(u);
    if (spill_fd >= 0)
        close(spill_fd);
    return rc;
}

/* A torch-like upload with a weight to drop (the fuzzer's seed, less its slice byte). */
START_TEST(test_every_allocation_upload)
{
    cJSON_Hooks hooks = {hook_malloc, free};
    size_t len = 0;
    uint8_t *buf = tu_read_file("tests/fuzz/seeds/upload/torch_70k", &len);
    long total;

    ck_assert_ptr_nonnull(buf);
    cJSON_InitHooks(&hooks);
    fail_at = 0;
    counted = 0;
    upload_once(buf + 1, len - 1);
    total = counted;
    ck_assert_int_gt(total, 10);
    for (long n = 1; n <= total; n++) {
        int rc;

        fail_at = n;
        counted = 0;
        rc = upload_once(buf + 1, len - 1);
        ck_assert_msg(!LEAKED(), "upload: a leak after allocation %ld failed (status %d)", n, rc);
    }
    cJSON_InitHooks(NULL);
    free(buf);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("oom");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_every_allocation_cuda);
    tcase_add_test(tc, test_every_allocation_wrapper);
    tcase_add_test(tc, test_every_allocation_torch);
    tcase_add_test(tc, test_every_allocation_upload);
    tcase_add_test(tc, test_every_allocation_windows);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run_suite(suite());
}
