/*
 * test_cuda.c - pt2_cuda's real probing code against the stand-in driver.
 *
 * The fake (tests/support/fakecuda.c) is built by the Makefile as
 * $(BUILD)/fakecuda/libcuda.so.1 and, without the v2 entry points, as
 * $(BUILD)/fakecuda/old/libcuda.so.1. Like a real driver it reads its
 * environment once per process and stays loaded, so every test relies on
 * Check's fork mode for a fresh process with its own environment.
 */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_cuda.h"
#include "testutil.h"

#define H100 "NVIDIA H100 80GB HBM3,9.0,132,85899345920"
#define A100 "NVIDIA A100-SXM4-40GB,8.0,108,42949672960"
#define UUID0 "GPU-a0102030-4050-6070-8090-a0b0c0d0e0f0"
#define UUID1 "GPU-a1112131-4151-6171-8191-a1b1c1d1e1f1"

static char fake_path[512];
static char fake_old_path[512];

/* Fresh environment for one probe: only what the test sets. */
static void env_reset(void)
{
    unsetenv("CUDA_VISIBLE_DEVICES");
    unsetenv("PT2SCOPE_FAKECUDA_DEVICES");
    unsetenv("PT2SCOPE_FAKECUDA_DRIVER");
    unsetenv("PT2SCOPE_FAKECUDA_INIT_ERROR");
    unsetenv(PT2_CUDA_LIB_ENV);
}

static void setup(void)
{
    snprintf(fake_path, sizeof(fake_path), "%s/fakecuda/libcuda.so.1", tu_build_dir());
    snprintf(fake_old_path, sizeof(fake_old_path), "%s/fakecuda/old/libcuda.so.1", tu_build_dir());
    if (!tu_exists(fake_path) || !tu_exists(fake_old_path))
        ck_abort_msg("stand-in driver missing: run make %s %s", fake_path, fake_old_path);
    env_reset();
}

/* Probe `lib` with the two-device node and an optional CUDA_VISIBLE_DEVICES. */
static void probe_two(const char *lib, const char *cvd, struct pt2_node_gpus *g)
{
    struct pt2_error err = {0};

    setenv("PT2SCOPE_FAKECUDA_DEVICES", H100 ";" A100, 1);
    if (cvd != NULL)
        setenv("CUDA_VISIBLE_DEVICES", cvd, 1);
    ck_assert_int_eq(pt2_cuda_probe(lib, g, &err), PT2_OK);
    ck_assert_int_eq(err.code, PT2_OK);
}

static void assert_h100(const struct pt2_gpu *gpu, int index)
{
    ck_assert_int_eq(gpu->index, index);
    ck_assert_str_eq(gpu->name, "NVIDIA H100 80GB HBM3");
    ck_assert_str_eq(gpu->uuid, UUID0);
    ck_assert_str_eq(gpu->pci_bus_id, "0000:1b:00.0");
    ck_assert_int_eq(gpu->cc_major, 9);
    ck_assert_int_eq(gpu->cc_minor, 0);
    ck_assert_int_eq(gpu->sm_count, 132);
    ck_assert_uint_eq(gpu->total_memory, 85899345920ull);
}

static void assert_a100(const struct pt2_gpu *gpu, int index)
{
    ck_assert_int_eq(gpu->index, index);
    ck_assert_str_eq(gpu->name, "NVIDIA A100-SXM4-40GB");
    ck_assert_str_eq(gpu->uuid, UUID1);
    ck_assert_str_eq(gpu->pci_bus_id, "0000:2b:00.0");
    ck_assert_int_eq(gpu->cc_major, 8);
    ck_assert_int_eq(gpu->cc_minor, 0);
    ck_assert_int_eq(gpu->sm_count, 108);
    ck_assert_uint_eq(gpu->total_memory, 42949672960ull);
}

/* Probe with cuInit failing with `code`; returns the reason in *g. */
static void probe_init_error(const char *lib, const char *code, struct pt2_node_gpus *g)
{
    struct pt2_error err = {0};

    setenv("PT2SCOPE_FAKECUDA_DEVICES", H100, 1);
    setenv("PT2SCOPE_FAKECUDA_INIT_ERROR", code, 1);
    ck_assert_int_eq(pt2_cuda_probe(lib, g, &err), PT2_OK);
    ck_assert_uint_eq(g->n, 0);
}

START_TEST(test_two_devices)
{
    struct pt2_node_gpus g;

    probe_two(fake_path, NULL, &g);
    ck_assert_uint_eq(g.n, 2);
    ck_assert_int_eq(g.driver_cuda_version, 12040);
    ck_assert_int_eq(g.cu_error, 0);
    ck_assert_str_eq(g.reason, "");
    ck_assert_str_eq(g.library, fake_path);
    assert_h100(&g.gpus[0], 0);
    assert_a100(&g.gpus[1], 1);
}
END_TEST

START_TEST(test_driver_version_from_driver)
{
    struct pt2_node_gpus g;

    setenv("PT2SCOPE_FAKECUDA_DRIVER", "13000", 1);
    probe_two(fake_path, NULL, &g);
    ck_assert_int_eq(g.driver_cuda_version, 13000);
}
END_TEST

START_TEST(test_library_from_environment)
{
    struct pt2_node_gpus g;

    setenv(PT2_CUDA_LIB_ENV, fake_path, 1);
    probe_two(NULL, NULL, &g);
    ck_assert_str_eq(g.library, fake_path);
    ck_assert_uint_eq(g.n, 2);
}
END_TEST

START_TEST(test_visible_index_renumbered)
{
    struct pt2_node_gpus g;

    probe_two(fake_path, "1", &g);
    ck_assert_uint_eq(g.n, 1);
    assert_a100(&g.gpus[0], 0);
}
END_TEST

START_TEST(test_visible_order_is_list_order)
{
    struct pt2_node_gpus g;

    probe_two(fake_path, "1,0", &g);
    ck_assert_uint_eq(g.n, 2);
    assert_a100(&g.gpus[0], 0);
    assert_h100(&g.gpus[1], 1);
}
END_TEST

START_TEST(test_visible_uuid_prefix)
{
    struct pt2_node_gpus g;

    probe_two(fake_path, "GPU-a1112131", &g);
    ck_assert_uint_eq(g.n, 1);
    assert_a100(&g.gpus[0], 0);
}
END_TEST

START_TEST(test_visible_stops_at_invalid_entry)
{
    struct pt2_node_gpus g;

    probe_two(fake_path, "0,7,1", &g);
    ck_assert_uint_eq(g.n, 1);
    assert_h100(&g.gpus[0], 0);
}
END_TEST

START_TEST(test_visible_ambiguous_uuid_prefix_hides_all)
{
    struct pt2_node_gpus g;

    probe_two(fake_path, "GPU-a", &g);
    ck_assert_uint_eq(g.n, 0);
    ck_assert_int_eq(g.cu_error, 100);
    ck_assert_str_eq(
        g.reason, "no CUDA devices visible (CUDA_ERROR_NO_DEVICE); CUDA_VISIBLE_DEVICES='GPU-a'");
}
END_TEST

START_TEST(test_visible_empty_means_none)
{
    struct pt2_node_gpus g;

    probe_two(fake_path, "", &g);
    ck_assert_uint_eq(g.n, 0);
    ck_assert_int_eq(g.cu_error, 100);
    ck_assert_int_eq(g.driver_cuda_version, 12040);
    ck_assert_str_eq(g.reason,
                     "no CUDA devices visible (CUDA_ERROR_NO_DEVICE); CUDA_VISIBLE_DEVICES=''");
}
END_TEST

START_TEST(test_visible_value_is_sanitised_in_reason)
{
    struct pt2_node_gpus g;

    probe_two(fake_path, "9,'\n", &g);
    ck_assert_uint_eq(g.n, 0);
    ck_assert_str_eq(
        g.reason, "no CUDA devices visible (CUDA_ERROR_NO_DEVICE); CUDA_VISIBLE_DEVICES='9,?\?'");
}
END_TEST

START_TEST(test_visible_long_value_is_cut_in_reason)
{
    struct pt2_node_gpus g;
    char cvd[101], want[256];

    memset(cvd, '9', sizeof(cvd) - 1);
    cvd[sizeof(cvd) - 1] = '\0';
    probe_two(fake_path, cvd, &g);
    ck_assert_uint_eq(g.n, 0);
    cvd[68] = '\0';
    snprintf(want, sizeof(want),
             "no CUDA devices visible (CUDA_ERROR_NO_DEVICE); CUDA_VISIBLE_DEVICES='%s...'", cvd);
    ck_assert_str_eq(g.reason, want);
}
END_TEST

START_TEST(test_init_stub_library)
{
    struct pt2_node_gpus g;

    probe_init_error(fake_path, "34", &g);
    ck_assert_int_eq(g.cu_error, 34);
    ck_assert_int_eq(g.driver_cuda_version, 0); /* the stub answers nothing */
    ck_assert_str_eq(g.reason,
                     "CUDA stub library loaded instead of the driver (CUDA_ERROR_STUB_LIBRARY)");
}
END_TEST

START_TEST(test_init_driver_mismatch)
{
    struct pt2_node_gpus g;

    probe_init_error(fake_path, "803", &g);
    ck_assert_int_eq(g.cu_error, 803);
    ck_assert_int_eq(g.driver_cuda_version, 12040);
    ck_assert_str_eq(g.reason,
                     "driver/kernel module version mismatch (CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)");
}
END_TEST

START_TEST(test_init_no_device)
{
    struct pt2_node_gpus g;

    probe_init_error(fake_path, "100", &g);
    ck_assert_int_eq(g.cu_error, 100);
    ck_assert_str_eq(g.reason, "no CUDA devices visible (CUDA_ERROR_NO_DEVICE)");
}
END_TEST

START_TEST(test_init_compat_not_supported)
{
    struct pt2_node_gpus g;

    probe_init_error(fake_path, "804", &g);
    ck_assert_int_eq(g.cu_error, 804);
    ck_assert_str_eq(g.reason, "forward-compatibility driver not supported on this GPU "
                               "(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE)");
}
END_TEST

START_TEST(test_init_unknown_error)
{
    struct pt2_node_gpus g;

    probe_init_error(fake_path, "999", &g);
    ck_assert_int_eq(g.cu_error, 999);
    ck_assert_str_eq(g.reason, "unknown driver error in cuInit (CUDA_ERROR_UNKNOWN)");
}
END_TEST

START_TEST(test_init_other_code_named_by_table)
{
    struct pt2_node_gpus g;

    probe_init_error(fake_path, "800", &g);
    ck_assert_str_eq(g.reason, "cuInit failed: CUDA_ERROR_NOT_PERMITTED (800)");
}
END_TEST

START_TEST(test_init_other_code_named_by_driver)
{
    struct pt2_node_gpus g;

    /* Not in pt2_cuda's table; the fake's cuGetErrorName knows it. */
    probe_init_error(fake_path, "719", &g);
    ck_assert_int_eq(g.cu_error, 719);
    ck_assert_str_eq(g.reason, "cuInit failed: CUDA_ERROR_LAUNCH_FAILED (719)");
}
END_TEST

START_TEST(test_init_other_code_unnamed)
{
    struct pt2_node_gpus g;

    /* The old driver has no cuGetErrorName: the number alone. */
    probe_init_error(fake_old_path, "719", &g);
    ck_assert_str_eq(g.reason, "cuInit failed: CUresult 719");
}
END_TEST

START_TEST(test_no_devices_configured)
{
    struct pt2_node_gpus g;
    struct pt2_error err = {0};

    ck_assert_int_eq(pt2_cuda_probe(fake_path, &g, &err), PT2_OK);
    ck_assert_uint_eq(g.n, 0);
    ck_assert_int_eq(g.cu_error, 100);
    ck_assert_str_eq(g.reason, "no CUDA devices visible (CUDA_ERROR_NO_DEVICE)");
}
END_TEST

START_TEST(test_missing_library)
{
    struct pt2_node_gpus g;
    struct pt2_error err = {0};

    ck_assert_int_eq(pt2_cuda_probe("/nonexistent/libcuda.so.1", &g, &err), PT2_OK);
    ck_assert_int_eq(err.code, PT2_OK);
    ck_assert_uint_eq(g.n, 0);
    ck_assert_int_eq(g.cu_error, 0);
    ck_assert_int_eq(g.driver_cuda_version, 0);
    ck_assert_str_eq(g.library, "/nonexistent/libcuda.so.1");
    ck_assert_str_eq(g.reason, "no NVIDIA driver installed (/nonexistent/libcuda.so.1 not found)");
}
END_TEST

START_TEST(test_unloadable_library)
{
    struct pt2_node_gpus g;
    struct pt2_error err = {0};

    /* A file that exists but is no shared object: this very source. */
    ck_assert_int_eq(pt2_cuda_probe("tests/unit/test_cuda.c", &g, &err), PT2_OK);
    ck_assert_uint_eq(g.n, 0);
    ck_assert_str_eq(g.reason, "tests/unit/test_cuda.c could not be loaded "
                               "(dlopen: tests/unit/test_cuda.c: invalid ELF header)");
}
END_TEST

START_TEST(test_not_a_driver)
{
    struct pt2_node_gpus g;
    struct pt2_error err = {0};

    ck_assert_int_eq(pt2_cuda_probe("libm.so.6", &g, &err), PT2_OK);
    ck_assert_uint_eq(g.n, 0);
    ck_assert_str_eq(g.reason, "libm.so.6 is not a CUDA driver: cuInit missing");
}
END_TEST

START_TEST(test_old_api_fallbacks)
{
    struct pt2_node_gpus g;
    struct pt2_error err = {0};

    setenv("PT2SCOPE_FAKECUDA_DEVICES", H100 ";Tesla K10,3.0,8,3221225472", 1);
    setenv("PT2SCOPE_FAKECUDA_DRIVER", "6000", 1);
    ck_assert_int_eq(pt2_cuda_probe(fake_old_path, &g, &err), PT2_OK);
    ck_assert_str_eq(g.reason, "");
    ck_assert_uint_eq(g.n, 2);
    ck_assert_int_eq(g.driver_cuda_version, 6000);
    ck_assert_str_eq(g.gpus[0].uuid, UUID0);
    /* The 32-bit cuDeviceTotalMem saturates; the small device is exact. */
    ck_assert_uint_eq(g.gpus[0].total_memory, 4294967295ull);
    ck_assert_str_eq(g.gpus[1].name, "Tesla K10");
    ck_assert_str_eq(g.gpus[1].uuid, UUID1);
    ck_assert_str_eq(g.gpus[1].pci_bus_id, "0000:2b:00.0");
    ck_assert_int_eq(g.gpus[1].cc_major, 3);
    ck_assert_int_eq(g.gpus[1].sm_count, 8);
    ck_assert_uint_eq(g.gpus[1].total_memory, 3221225472ull);
}
END_TEST

START_TEST(test_bad_fake_configuration)
{
    struct pt2_node_gpus g;
    struct pt2_error err = {0};

    setenv("PT2SCOPE_FAKECUDA_DEVICES", "NVIDIA H100,9,132,1", 1);
    ck_assert_int_eq(pt2_cuda_probe(fake_path, &g, &err), PT2_OK);
    ck_assert_uint_eq(g.n, 0);
    ck_assert_int_eq(g.cu_error, 999);
}
END_TEST

START_TEST(test_invalid_arguments)
{
    struct pt2_node_gpus g;
    struct pt2_error err = {0};
    char longpath[300];

    ck_assert_int_eq(pt2_cuda_probe(fake_path, NULL, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "pt2_cuda_probe: no output");

    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_cuda_probe("", &g, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "CUDA driver library path is empty");
    ck_assert_uint_eq(g.n, 0);

    memset(longpath, 'x', sizeof(longpath) - 1);
    longpath[sizeof(longpath) - 1] = '\0';
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_cuda_probe(longpath, &g, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "CUDA driver library path is longer than 255 bytes");

    /* An over-long configuration is a reason, not a caller error. */
    setenv(PT2_CUDA_LIB_ENV, longpath, 1);
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_cuda_probe(NULL, &g, &err), PT2_OK);
    ck_assert_str_eq(g.reason, "PT2SCOPE_LIBCUDA is longer than 255 bytes");
}
END_TEST

static void two_gpus(struct pt2_node_gpus *g)
{
    memset(g, 0, sizeof(*g));
    g->n = 2;
    g->driver_cuda_version = 12040;
    g->gpus[0].index = 0;
    snprintf(g->gpus[0].name, sizeof(g->gpus[0].name), "NVIDIA H100 80GB HBM3");
    g->gpus[0].cc_major = 9;
    g->gpus[1].index = 1;
    snprintf(g->gpus[1].name, sizeof(g->gpus[1].name), "NVIDIA A100-SXM4-40GB");
    g->gpus[1].cc_major = 8;
}

START_TEST(test_device_from_gpu)
{
    struct pt2_node_gpus g;
    struct pt2_device dev;

    two_gpus(&g);
    pt2_cuda_device(&g, &g.gpus[1], &dev);
    ck_assert_str_eq(dev.name, "NVIDIA A100-SXM4-40GB (cuda:1)");
    ck_assert_int_eq(dev.cc_major, 8);
    ck_assert_int_eq(dev.cc_minor, 0);
    ck_assert_int_eq(dev.driver_cuda_version, 12040);
    ck_assert_str_eq(dev.gfx, "");

    /* A long name is cut so the ordinal still shows. */
    memset(g.gpus[0].name, 'N', sizeof(g.gpus[0].name) - 1);
    g.gpus[0].name[sizeof(g.gpus[0].name) - 1] = '\0';
    pt2_cuda_device(&g, &g.gpus[0], &dev);
    ck_assert_uint_eq(strlen(dev.name), 100 + strlen(" (cuda:0)"));
    ck_assert_str_eq(dev.name + 100, " (cuda:0)");

    pt2_cuda_device(&g, NULL, &dev);
    ck_assert_int_eq(dev.cc_major, 0);
    ck_assert_int_eq(dev.driver_cuda_version, 0);
    ck_assert_str_eq(dev.name, "");
}
END_TEST

START_TEST(test_json_with_gpus)
{
    struct pt2_node_gpus g;
    struct pt2_error err = {0};
    cJSON *doc = NULL;
    char *text, want[2048];

    probe_two(fake_path, NULL, &g);
    ck_assert_int_eq(pt2_cuda_to_json(&g, &doc, &err), PT2_OK);
    text = cJSON_PrintUnformatted(doc);
    snprintf(want, sizeof(want),
             "{\"driver_cuda_version\":12040,\"driver_cuda\":\"12.4\",\"library\":\"%s\","
             "\"count\":2,\"cu_error\":0,\"cu_error_name\":\"CUDA_SUCCESS\",\"reason\":null,"
             "\"gpus\":[{\"index\":0,\"name\":\"NVIDIA H100 80GB HBM3\",\"uuid\":\"" UUID0 "\","
             "\"pci_bus_id\":\"0000:1b:00.0\",\"compute_capability\":\"9.0\",\"cc_major\":9,"
             "\"cc_minor\":0,\"sm\":\"sm_90\",\"sm_count\":132,\"total_memory\":85899345920,"
             "\"total_memory_mib\":81920},"
             "{\"index\":1,\"name\":\"NVIDIA A100-SXM4-40GB\",\"uuid\":\"" UUID1 "\","
             "\"pci_bus_id\":\"0000:2b:00.0\",\"compute_capability\":\"8.0\",\"cc_major\":8,"
             "\"cc_minor\":0,\"sm\":\"sm_80\",\"sm_count\":108,\"total_memory\":42949672960,"
             "\"total_memory_mib\":40960}]}",
             fake_path);
    ck_assert_str_eq(text, want);
    free(text);
    cJSON_Delete(doc);
}
END_TEST

START_TEST(test_json_without_gpus)
{
    struct pt2_node_gpus g;
    struct pt2_error err = {0};
    cJSON *doc = NULL;
    char *text;

    ck_assert_int_eq(pt2_cuda_probe("/nonexistent/libcuda.so.1", &g, &err), PT2_OK);
    ck_assert_int_eq(pt2_cuda_to_json(&g, &doc, &err), PT2_OK);
    text = cJSON_PrintUnformatted(doc);
    ck_assert_str_eq(text, "{\"driver_cuda_version\":null,\"driver_cuda\":null,"
                           "\"library\":\"/nonexistent/libcuda.so.1\",\"count\":0,"
                           "\"cu_error\":0,\"cu_error_name\":null,"
                           "\"reason\":\"no NVIDIA driver installed (/nonexistent/libcuda.so.1 "
                           "not found)\",\"gpus\":[]}");
    free(text);
    cJSON_Delete(doc);

    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_cuda_to_json(NULL, &doc, &err), PT2_ERR_INVALID);
    ck_assert_ptr_null(doc);
}
END_TEST

START_TEST(test_error_names)
{
    ck_assert_str_eq(pt2_cuda_error_name(0), "CUDA_SUCCESS");
    ck_assert_str_eq(pt2_cuda_error_name(209), "CUDA_ERROR_NO_BINARY_FOR_GPU");
    ck_assert_str_eq(pt2_cuda_error_name(222), "CUDA_ERROR_UNSUPPORTED_PTX_VERSION");
    ck_assert_ptr_null(pt2_cuda_error_name(35)); /* runtime-only code */
    ck_assert_ptr_null(pt2_cuda_error_name(-1));
}
END_TEST

#define THREADS 8
#define ROUNDS 25

static void *probe_many(void *arg)
{
    size_t *bad = arg;
    struct pt2_node_gpus *g = malloc(sizeof(*g));
    struct pt2_error err = {0};
    int i;

    if (g == NULL) {
        (*bad)++;
        return NULL;
    }
    for (i = 0; i < ROUNDS; i++) {
        if (pt2_cuda_probe(fake_path, g, &err) != PT2_OK || g->n != 2 ||
            strcmp(g->gpus[1].uuid, UUID1) != 0 || g->gpus[0].sm_count != 132)
            (*bad)++;
    }
    free(g);
    return NULL;
}

START_TEST(test_concurrent_probes)
{
    pthread_t t[THREADS];
    size_t bad[THREADS] = {0};
    int i;

    setenv("PT2SCOPE_FAKECUDA_DEVICES", H100 ";" A100, 1);
    for (i = 0; i < THREADS; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, probe_many, &bad[i]), 0);
    for (i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        ck_assert_uint_eq(bad[i], 0);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cuda");
    TCase *probe = tcase_create("probe");
    TCase *visible = tcase_create("visible");
    TCase *failures = tcase_create("failures");
    TCase *device = tcase_create("device");
    TCase *json = tcase_create("json");
    const char *fork = getenv("CK_FORK");

    /* The stand-in driver, like a real one, initialises once per process. */
    if (fork != NULL && strcmp(fork, "no") == 0) {
        tu_skip("test_cuda", "needs Check's fork mode (unset CK_FORK)");
        return EXIT_SUCCESS;
    }
    tcase_add_checked_fixture(probe, setup, NULL);
    tcase_add_checked_fixture(visible, setup, NULL);
    tcase_add_checked_fixture(failures, setup, NULL);
    tcase_add_checked_fixture(json, setup, NULL);

    tcase_add_test(probe, test_two_devices);
    tcase_add_test(probe, test_driver_version_from_driver);
    tcase_add_test(probe, test_library_from_environment);
    tcase_add_test(probe, test_old_api_fallbacks);
    tcase_add_test(probe, test_concurrent_probes);
    tcase_add_test(visible, test_visible_index_renumbered);
    tcase_add_test(visible, test_visible_order_is_list_order);
    tcase_add_test(visible, test_visible_uuid_prefix);
    tcase_add_test(visible, test_visible_stops_at_invalid_entry);
    tcase_add_test(visible, test_visible_ambiguous_uuid_prefix_hides_all);
    tcase_add_test(visible, test_visible_empty_means_none);
    tcase_add_test(visible, test_visible_value_is_sanitised_in_reason);
    tcase_add_test(visible, test_visible_long_value_is_cut_in_reason);
    tcase_add_test(failures, test_init_stub_library);
    tcase_add_test(failures, test_init_driver_mismatch);
    tcase_add_test(failures, test_init_no_device);
    tcase_add_test(failures, test_init_compat_not_supported);
    tcase_add_test(failures, test_init_unknown_error);
    tcase_add_test(failures, test_init_other_code_named_by_table);
    tcase_add_test(failures, test_init_other_code_named_by_driver);
    tcase_add_test(failures, test_init_other_code_unnamed);
    tcase_add_test(failures, test_no_devices_configured);
    tcase_add_test(failures, test_missing_library);
    tcase_add_test(failures, test_unloadable_library);
    tcase_add_test(failures, test_not_a_driver);
    tcase_add_test(failures, test_bad_fake_configuration);
    tcase_add_test(failures, test_invalid_arguments);
    tcase_add_test(device, test_device_from_gpu);
    tcase_add_test(json, test_json_with_gpus);
    tcase_add_test(json, test_json_without_gpus);
    tcase_add_test(json, test_error_names);

    suite_add_tcase(s, probe);
    suite_add_tcase(s, visible);
    suite_add_tcase(s, failures);
    suite_add_tcase(s, device);
    suite_add_tcase(s, json);
    return tu_run_suite(s);
}
