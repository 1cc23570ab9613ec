/*
 * test_http_node.c - this node's GPUs over HTTP: GET /v1/node and the
 * per-GPU / CPU entries of /v1/inspect's compatibility.
 *
 * The daemon's real probing code runs against the stand-in driver
 * (tests/support/fakecuda.c, built as $(BUILD)/fakecuda/libcuda.so.1) named
 * by PT2SCOPE_LIBCUDA. Like a real driver, the stand-in reads its
 * environment once per process and stays loaded, so each test relies on
 * Check's fork mode for a fresh process, sets the environment before the
 * server starts, and the refresh test loads a second copy of the library
 * from another path (a different file is a different library to dlopen).
 */
#include "http_harness.h"

#include <pthread.h>
#include <sys/utsname.h>

#include "pt2_cpu.h"
#include "pt2_cuda.h"
#include "pt2scope.h"

#define H100 "NVIDIA H100 80GB HBM3,9.0,132,85899345920"
#define A100 "NVIDIA A100-SXM4-40GB,8.0,108,42949672960"
#define UUID0 "GPU-a0102030-4050-6070-8090-a0b0c0d0e0f0"
#define UUID1 "GPU-a1112131-4151-6171-8191-a1b1c1d1e1f1"

static struct th_server T;
static char fake_path[512];

static void env_reset(void)
{
    unsetenv("CUDA_VISIBLE_DEVICES");
    unsetenv("PT2SCOPE_FAKECUDA_DEVICES");
    unsetenv("PT2SCOPE_FAKECUDA_DRIVER");
    unsetenv("PT2SCOPE_FAKECUDA_INIT_ERROR");
    unsetenv(PT2_CUDA_LIB_ENV);
}

/* Runs in the forked test process: nothing of the driver is loaded yet. */
static void setup(void)
{
    snprintf(fake_path, sizeof(fake_path), "%s/fakecuda/libcuda.so.1", tu_build_dir());
    if (!tu_exists(fake_path))
        ck_abort_msg("stand-in driver missing: run make %s", fake_path);
    env_reset();
    setenv(PT2_CUDA_LIB_ENV, fake_path, 1);
    setenv("PT2SCOPE_FAKECUDA_DEVICES", H100 ";" A100, 1);
    th_config(&T);
    T.cfg.libcuda[0] = '\0'; /* the driver named by PT2SCOPE_LIBCUDA, read at each probe */
    snprintf(T.cfg.node_name, sizeof(T.cfg.node_name), "gpu-node-7");
}

static void teardown(void)
{
    if (T.srv != NULL)
        th_stop(&T);
}

/* GET `path`, expect 200 JSON, return the document. */
static cJSON *get_json(const char *path)
{
    struct th_resp r;
    cJSON *doc;

    th_get(T.base, path, &r);
    ck_assert_msg(r.status == 200, "%s: HTTP %ld: %s", path, r.status, r.body);
    doc = th_json(&r);
    th_resp_free(&r);
    return doc;
}

static int is_null(const cJSON *o, const char *key)
{
    return cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, key));
}

static void assert_gpu(const cJSON *g, int index, const char *name, const char *uuid,
                       const char *bus, const char *cc, int sms, double mem)
{
    ck_assert(th_num(g, "index") == index);
    ck_assert_str_eq(th_str(g, "name"), name);
    ck_assert_str_eq(th_str(g, "uuid"), uuid);
    ck_assert_str_eq(th_str(g, "pci_bus_id"), bus);
    ck_assert_str_eq(th_str(g, "compute_capability"), cc);
    ck_assert(th_num(g, "sm_count") == sms);
    ck_assert(th_num(g, "total_memory") == mem);
}

static void assert_h100(const cJSON *g, int index)
{
    assert_gpu(g, index, "NVIDIA H100 80GB HBM3", UUID0, "0000:1b:00.0", "9.0", 132, 85899345920.0);
}

static void assert_a100(const cJSON *g, int index)
{
    assert_gpu(g, index, "NVIDIA A100-SXM4-40GB", UUID1, "0000:2b:00.0", "8.0", 108, 42949672960.0);
}

/* "2025-06-01T12:00:00Z" */
static void assert_rfc3339(const char *s)
{
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(strlen(s), 20);
    ck_assert_int_eq(s[4], '-');
    ck_assert_int_eq(s[10], 'T');
    ck_assert_int_eq(s[13], ':');
    ck_assert_int_eq(s[19], 'Z');
}

/* /v1/node of a node without GPUs: count 0, empty list, the reason. */
static cJSON *node_without_gpus(const char *reason, int cu_error)
{
    cJSON *doc;

    th_start(&T);
    doc = get_json("/v1/node");
    ck_assert(th_num(doc, "count") == 0);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "gpus")), 0);
    ck_assert_str_eq(th_str(doc, "reason"), reason);
    ck_assert(th_num(doc, "cu_error") == cu_error);
    ck_assert(cJSON_IsObject(cJSON_GetObjectItem(doc, "cpu")));
    return doc;
}

/* ---- GET /v1/node ------------------------------------------------------ */

START_TEST(test_node_two_devices)
{
    struct utsname u;
    cJSON *doc, *gpus, *cpu;

    th_start(&T);
    doc = get_json("/v1/node");
    ck_assert_str_eq(th_str(doc, "node"), "gpu-node-7");
    assert_rfc3339(th_str(doc, "probed_at"));
    ck_assert(th_num(doc, "driver_cuda_version") == 12040);
    ck_assert_str_eq(th_str(doc, "driver_cuda"), "12.4");
    ck_assert_str_eq(th_str(doc, "library"), fake_path);
    ck_assert(th_num(doc, "count") == 2);
    ck_assert(th_num(doc, "cu_error") == 0);
    ck_assert_str_eq(th_str(doc, "cu_error_name"), "CUDA_SUCCESS");
    ck_assert(is_null(doc, "reason"));
    gpus = cJSON_GetObjectItem(doc, "gpus");
    ck_assert_int_eq(cJSON_GetArraySize(gpus), 2);
    assert_h100(cJSON_GetArrayItem(gpus, 0), 0);
    assert_a100(cJSON_GetArrayItem(gpus, 1), 1);
    cpu = cJSON_GetObjectItem(doc, "cpu");
    ck_assert_int_eq(uname(&u), 0);
    ck_assert_str_eq(th_str(cpu, "machine"), u.machine);
    ck_assert(cJSON_IsArray(cJSON_GetObjectItem(cpu, "features")));
    cJSON_Delete(doc);
}
END_TEST

START_TEST(test_node_visible_devices_one)
{
    cJSON *doc, *gpus;

    setenv("CUDA_VISIBLE_DEVICES", "1", 1);
    th_start(&T);
    doc = get_json("/v1/node");
    ck_assert(th_num(doc, "count") == 1);
    gpus = cJSON_GetObjectItem(doc, "gpus");
    ck_assert_int_eq(cJSON_GetArraySize(gpus), 1);
    assert_a100(cJSON_GetArrayItem(gpus, 0), 0); /* renumbered, as the driver does */
    cJSON_Delete(doc);
}
END_TEST

START_TEST(test_node_visible_devices_empty)
{
    cJSON *doc;

    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    doc = node_without_gpus(
        "no CUDA devices visible (CUDA_ERROR_NO_DEVICE); CUDA_VISIBLE_DEVICES=''", 100);
    ck_assert(th_num(doc, "driver_cuda_version") == 12040);
    ck_assert_str_eq(th_str(doc, "cu_error_name"), "CUDA_ERROR_NO_DEVICE");
    cJSON_Delete(doc);
}
END_TEST

START_TEST(test_node_stub_library)
{
    cJSON *doc;

    setenv("PT2SCOPE_FAKECUDA_INIT_ERROR", "34", 1);
    doc = node_without_gpus(
        "CUDA stub library loaded instead of the driver (CUDA_ERROR_STUB_LIBRARY)", 34);
    ck_assert(is_null(doc, "driver_cuda_version"));
    ck_assert(is_null(doc, "driver_cuda"));
    cJSON_Delete(doc);
}
END_TEST

START_TEST(test_node_driver_mismatch)
{
    cJSON *doc;

    setenv("PT2SCOPE_FAKECUDA_INIT_ERROR", "803", 1);
    doc = node_without_gpus(
        "driver/kernel module version mismatch (CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)", 803);
    ck_assert(th_num(doc, "driver_cuda_version") == 12040);
    cJSON_Delete(doc);
}
END_TEST

START_TEST(test_node_missing_library)
{
    cJSON *doc;

    setenv(PT2_CUDA_LIB_ENV, "/nonexistent/pt2scope/libcuda.so.1", 1);
    doc = node_without_gpus(
        "no NVIDIA driver installed (/nonexistent/pt2scope/libcuda.so.1 not found)", 0);
    ck_assert_str_eq(th_str(doc, "library"), "/nonexistent/pt2scope/libcuda.so.1");
    ck_assert(is_null(doc, "driver_cuda_version"));
    cJSON_Delete(doc);
}
END_TEST

START_TEST(test_node_libcuda_flag_wins)
{
    struct pt2_error err = {0};
    char *const argv[] = {"pt2scoped", "--libcuda", fake_path, NULL};
    cJSON *doc;

    setenv(PT2_CUDA_LIB_ENV, "/nonexistent/pt2scope/libcuda.so.1", 1);
    ck_assert_int_eq(pt2d_config_load(&T.cfg, 3, argv, NULL, &err), PT2_OK);
    th_start(&T);
    doc = get_json("/v1/node");
    ck_assert_str_eq(th_str(doc, "library"), fake_path);
    ck_assert(th_num(doc, "count") == 2);
    cJSON_Delete(doc);
}
END_TEST

START_TEST(test_node_head_and_methods)
{
    struct th_req rq = {.method = "HEAD", .path = "/v1/node"};
    struct th_resp r;
    char allow[64];

    th_start(&T);
    th_do(T.base, &rq, &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_int_eq(r.len, 0);
    th_resp_free(&r);
    rq.method = "POST";
    rq.body = "{}";
    rq.body_len = 2;
    rq.ctype = "application/json";
    th_do(T.base, &rq, &r);
    th_assert_problem(&r, 405, "method-not-allowed", "see the Allow header");
    ck_assert(th_header(&r, "Allow", allow, sizeof(allow)));
    ck_assert_str_eq(allow, "GET, HEAD, OPTIONS");
    th_resp_free(&r);
}
END_TEST

/* Copy the stand-in driver to `dst`. */
START_TEST(test_node_refresh_swaps_probe)
{
    char dir[] = "/tmp/pt2d-fakecuda-XXXXXX", lib2[256];
    cJSON *doc, *gpus;
    char first[32];

    /* The second library is a separate copy: the stand-in caches its
     * environment per loaded copy, as a real driver does per process. */
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(lib2, sizeof(lib2), "%s/libcuda.so.1", dir);
    th_copy_file(fake_path, lib2);
    th_start(&T);
    doc = get_json("/v1/node");
    ck_assert(th_num(doc, "count") == 2);
    snprintf(first, sizeof(first), "%s", th_str(doc, "probed_at"));
    cJSON_Delete(doc);

    setenv(PT2_CUDA_LIB_ENV, lib2, 1);
    setenv("PT2SCOPE_FAKECUDA_DEVICES", A100, 1);
    setenv("PT2SCOPE_FAKECUDA_DRIVER", "13000", 1);
    /* Not probed per request: the old result stays until a refresh. */
    doc = get_json("/v1/node");
    ck_assert(th_num(doc, "count") == 2);
    ck_assert_str_eq(th_str(doc, "library"), fake_path);
    cJSON_Delete(doc);

    doc = get_json("/v1/node?refresh=1");
    ck_assert(th_num(doc, "count") == 1);
    ck_assert_str_eq(th_str(doc, "library"), lib2);
    ck_assert(th_num(doc, "driver_cuda_version") == 13000);
    gpus = cJSON_GetObjectItem(doc, "gpus");
    assert_gpu(cJSON_GetArrayItem(gpus, 0), 0, "NVIDIA A100-SXM4-40GB", UUID0, "0000:1b:00.0",
               "8.0", 108, 42949672960.0);
    cJSON_Delete(doc);

    /* The new probe is what later requests see. */
    doc = get_json("/v1/node");
    ck_assert(th_num(doc, "count") == 1);
    cJSON_Delete(doc);
    unlink(lib2);
    rmdir(dir);
    (void)first;
}
END_TEST

/* ---- /v1/inspect compatibility with the node's devices --------------------- */

/* The library's CPU verdict for `name` on this machine, as the daemon computes it. */
static void lib_cpu_verdict(const char *name, struct pt2_verdict_result *v)
{
    const char *feats[PT2_CPU_FEATURES_MAX];
    struct pt2_cpu_info cpu;
    struct pt2_error err = {0};
    pt2_package *pkg = NULL;
    char p[256];
    size_t i;

    ck_assert_int_eq(pt2_cpu_probe(&cpu, &err), PT2_OK);
    for (i = 0; i < cpu.nfeatures; i++)
        feats[i] = cpu.features[i];
    ck_assert_int_eq(pt2_package_open_path(&pkg, tu_fixture(name, p, sizeof(p)), NULL, &err),
                     PT2_OK);
    ck_assert_int_eq(pt2_package_check_cpu(pkg, cpu.machine, feats, cpu.nfeatures, v, &err),
                     PT2_OK);
    pt2_package_free(pkg);
}

static void assert_cpu_entry(const cJSON *e, const char *pkg)
{
    struct pt2_verdict_result v;
    struct utsname u;
    const cJSON *dev = cJSON_GetObjectItem(e, "device");

    lib_cpu_verdict(pkg, &v);
    ck_assert_int_eq(uname(&u), 0);
    ck_assert_str_eq(th_str(e, "target"), "cpu");
    ck_assert_str_eq(th_str(e, "kind"), "cpu");
    ck_assert_str_eq(th_str(dev, "machine"), u.machine);
    ck_assert_str_eq(th_str(e, "verdict"), pt2_verdict_name(v.verdict));
    ck_assert_str_eq(th_str(e, "reason"), v.reason);
}

START_TEST(test_inspect_gpu_and_cpu_entries)
{
    cJSON *doc, *compat, *e, *dev;

    setenv("PT2SCOPE_FAKECUDA_DRIVER", "13000", 1);
    th_start(&T);
    /* A target names where the package goes: this node is not asked then. */
    doc = get_json("/v1/inspect?path=cuda_sm90a_v8.pt2&target=8.0");
    compat = cJSON_GetObjectItem(doc, "compatibility");
    ck_assert_int_eq(cJSON_GetArraySize(compat), 1);
    e = cJSON_GetArrayItem(compat, 0);
    ck_assert_str_eq(th_str(e, "target"), "8.0");
    ck_assert_str_eq(th_str(e, "kind"), "target");
    cJSON_Delete(doc);

    doc = get_json("/v1/inspect?path=cuda_sm90a_v8.pt2");
    compat = cJSON_GetObjectItem(doc, "compatibility");
    ck_assert_int_eq(cJSON_GetArraySize(compat), 3);
    e = cJSON_GetArrayItem(compat, 0);
    ck_assert_str_eq(th_str(e, "target"), "cuda:0");
    ck_assert_str_eq(th_str(e, "kind"), "gpu");
    ck_assert_str_eq(th_str(e, "verdict"), "compatible");
    ck_assert_str_eq(th_str(e, "reason"), "sm_90a cubin runs on NVIDIA H100 80GB HBM3 (cuda:0)");
    dev = cJSON_GetObjectItem(e, "device");
    ck_assert_str_eq(th_str(dev, "name"), "NVIDIA H100 80GB HBM3");
    ck_assert_str_eq(th_str(dev, "compute_capability"), "9.0");
    ck_assert_str_eq(th_str(dev, "uuid"), UUID0);
    ck_assert_str_eq(th_str(dev, "pci_bus_id"), "0000:1b:00.0");
    ck_assert(th_num(dev, "index") == 0);
    ck_assert(th_num(dev, "driver_cuda_version") == 13000);

    e = cJSON_GetArrayItem(compat, 1);
    ck_assert_str_eq(th_str(e, "target"), "cuda:1");
    ck_assert_str_eq(th_str(e, "kind"), "gpu");
    ck_assert_str_eq(th_str(e, "verdict"), "incompatible");
    ck_assert_str_eq(th_str(e, "reason"),
                     "kernels are sm_90a only; NVIDIA A100-SXM4-40GB (cuda:1) is 8.0");
    ck_assert_str_eq(th_str(cJSON_GetObjectItem(e, "device"), "uuid"), UUID1);

    assert_cpu_entry(cJSON_GetArrayItem(compat, 2), "cuda_sm90a_v8.pt2");
    cJSON_Delete(doc);
}
END_TEST

/* Only the selected GPU's entry, then the CPU entry. */
static void assert_device_selects(const char *device, const char *target)
{
    char path[128];
    cJSON *doc, *compat;

    snprintf(path, sizeof(path), "/v1/inspect?path=cuda_sm90a_v8.pt2&device=%s", device);
    doc = get_json(path);
    compat = cJSON_GetObjectItem(doc, "compatibility");
    ck_assert_int_eq(cJSON_GetArraySize(compat), 2);
    ck_assert_str_eq(th_str(cJSON_GetArrayItem(compat, 0), "target"), target);
    ck_assert_str_eq(th_str(cJSON_GetArrayItem(compat, 1), "kind"), "cpu");
    cJSON_Delete(doc);
}

START_TEST(test_inspect_device_selection)
{
    struct th_resp r;

    setenv("PT2SCOPE_FAKECUDA_DRIVER", "13000", 1);
    th_start(&T);
    assert_device_selects("cuda:1", "cuda:1");
    assert_device_selects("1", "cuda:1");
    assert_device_selects("cuda", "cuda:0");
    assert_device_selects("", "cuda:0");
    assert_device_selects("cuda:0", "cuda:0");

    th_get(T.base, "/v1/inspect?path=cuda_sm90a_v8.pt2&device=cuda:2", &r);
    th_assert_problem(&r, 400, "bad-request", "device cuda:2 not found: 2 CUDA devices visible");
    th_resp_free(&r);
    th_get(T.base, "/v1/inspect?path=cuda_sm90a_v8.pt2&device=gpu0", &r);
    th_assert_problem(&r, 400, "bad-request",
                      "invalid device 'gpu0': expected cuda, cuda:N, N or rocm:N");
    th_resp_free(&r);
    th_get(T.base, "/v1/inspect?path=cuda_sm90a_v8.pt2&device=cuda:1&device=cuda:0", &r);
    th_assert_problem(&r, 400, "bad-request", "device given more than once");
    th_resp_free(&r);
}
END_TEST

START_TEST(test_inspect_no_gpus_keeps_cpu_entry)
{
    struct th_resp r;
    cJSON *doc, *compat;

    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    th_start(&T);
    doc = get_json("/v1/inspect?path=cpu_x86_64.pt2");
    compat = cJSON_GetObjectItem(doc, "compatibility");
    ck_assert_int_eq(cJSON_GetArraySize(compat), 1);
    assert_cpu_entry(cJSON_GetArrayItem(compat, 0), "cpu_x86_64.pt2");
    cJSON_Delete(doc);

    th_get(T.base, "/v1/inspect?path=cpu_x86_64.pt2&device=cuda", &r);
    th_assert_problem(&r, 400, "bad-request",
                      "device cuda:0 not found: no CUDA devices visible (CUDA_ERROR_NO_DEVICE); "
                      "CUDA_VISIBLE_DEVICES=''");
    th_resp_free(&r);
}
END_TEST

START_TEST(test_inspect_etag_follows_device_and_refresh)
{
    char e1[80], e2[80], e3[80], e4[80], e5[80];
    char dir[] = "/tmp/pt2d-fakecuda-XXXXXX", lib2[256];
    struct th_resp r;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(lib2, sizeof(lib2), "%s/libcuda.so.1", dir);
    th_copy_file(fake_path, lib2);
    th_start(&T);
    th_get(T.base, "/v1/inspect?path=cuda_sm90a_v8.pt2", &r);
    ck_assert(th_header(&r, "ETag", e1, sizeof(e1)));
    th_resp_free(&r);
    th_get(T.base, "/v1/inspect?path=cuda_sm90a_v8.pt2&device=cuda:1", &r);
    ck_assert(th_header(&r, "ETag", e2, sizeof(e2)));
    th_resp_free(&r);
    th_get(T.base, "/v1/inspect?path=cuda_sm90a_v8.pt2", &r);
    ck_assert(th_header(&r, "ETag", e3, sizeof(e3)));
    th_resp_free(&r);
    ck_assert_str_ne(e1, e2);
    ck_assert_str_eq(e1, e3);
    /* A new probe that finds the same GPUs keeps every ETag (it changed them all). */
    th_get(T.base, "/v1/node?refresh=1", &r);
    ck_assert_int_eq(r.status, 200);
    th_resp_free(&r);
    th_get(T.base, "/v1/inspect?path=cuda_sm90a_v8.pt2", &r);
    ck_assert(th_header(&r, "ETag", e4, sizeof(e4)));
    th_resp_free(&r);
    ck_assert_str_eq(e1, e4);
    /* One that finds other GPUs (a second copy of the stand-in with one A100) changes it. */
    setenv(PT2_CUDA_LIB_ENV, lib2, 1);
    setenv("PT2SCOPE_FAKECUDA_DEVICES", A100, 1);
    th_get(T.base, "/v1/node?refresh=1", &r);
    ck_assert_int_eq(r.status, 200);
    th_resp_free(&r);
    th_get(T.base, "/v1/inspect?path=cuda_sm90a_v8.pt2", &r);
    ck_assert(th_header(&r, "ETag", e5, sizeof(e5)));
    th_resp_free(&r);
    ck_assert_str_ne(e1, e5);
    unlink(lib2);
    rmdir(dir);
}
END_TEST

/* ---- a refresh while requests run ---------------------------------------------- */

struct hammer {
    const char *path;
    int rounds;
    int failures; /* responses other than 200 with a JSON object */
};

static void *hammer_main(void *arg)
{
    struct hammer *h = arg;
    struct th_req rq = {.path = h->path};
    int i;

    for (i = 0; i < h->rounds; i++) {
        struct curl_slist *hl;
        struct th_resp r;
        CURL *c = th_easy(T.base, &rq, &r, &hl);
        cJSON *doc;

        if (th_perform(c, &r, hl) != CURLE_OK || r.status != 200) {
            h->failures++;
        } else {
            doc = cJSON_ParseWithLength(r.body, r.len);
            h->failures += !cJSON_IsObject(doc);
            cJSON_Delete(doc);
        }
        th_resp_free(&r);
    }
    return NULL;
}

START_TEST(test_refresh_while_requests_run)
{
    struct hammer h[4] = {{"/v1/inspect?path=cuda_sm90a_v8.pt2&device=cuda:1", 25, 0},
                          {"/v1/node", 25, 0},
                          {"/v1/node?refresh=1", 25, 0},
                          {"/v1/inspect?path=cpu_x86_64.pt2", 25, 0}};
    pthread_t th[4];
    int i;

    T.cfg.workers = 4;
    th_start(&T);
    for (i = 0; i < 4; i++)
        ck_assert_int_eq(pthread_create(&th[i], NULL, hammer_main, &h[i]), 0);
    for (i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    for (i = 0; i < 4; i++)
        ck_assert_msg(h[i].failures == 0, "%s: %d failures", h[i].path, h[i].failures);
}
END_TEST

static Suite *node_suite(void)
{
    Suite *s = suite_create("http_node");
    TCase *node = tcase_create("node");
    TCase *inspect = tcase_create("inspect");

    tcase_add_checked_fixture(node, setup, teardown);
    tcase_set_timeout(node, 30);
    tcase_add_test(node, test_node_two_devices);
    tcase_add_test(node, test_node_visible_devices_one);
    tcase_add_test(node, test_node_visible_devices_empty);
    tcase_add_test(node, test_node_stub_library);
    tcase_add_test(node, test_node_driver_mismatch);
    tcase_add_test(node, test_node_missing_library);
    tcase_add_test(node, test_node_libcuda_flag_wins);
    tcase_add_test(node, test_node_head_and_methods);
    tcase_add_test(node, test_node_refresh_swaps_probe);
    suite_add_tcase(s, node);

    tcase_add_checked_fixture(inspect, setup, teardown);
    tcase_set_timeout(inspect, 30);
    tcase_add_test(inspect, test_inspect_gpu_and_cpu_entries);
    tcase_add_test(inspect, test_inspect_device_selection);
    tcase_add_test(inspect, test_inspect_no_gpus_keeps_cpu_entry);
    tcase_add_test(inspect, test_inspect_etag_follows_device_and_refresh);
    tcase_add_test(inspect, test_refresh_while_requests_run);
    suite_add_tcase(s, inspect);
    return s;
}

int main(void)
{
    return th_main("http_node", "cuda_sm90a_v8.pt2", node_suite);
}
