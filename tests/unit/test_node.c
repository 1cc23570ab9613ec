/*
 * test_node.c - this node's probe through stand-ins: the node document
 * (NVIDIA from the fake libcuda, AMD from a stand-in KFD topology), the log
 * summary, and torch's device spellings resolved on a node.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2scope.h"
#include "testutil.h"

#define MI250 "tests/fixtures/sysfs/mi250x2"

static pt2_node *probe(const char *nvidia, const char *sysfs)
{
    struct pt2_node_options o = {"/nonexistent/pt2scope/libcuda.so.1",
                                 sysfs != NULL ? sysfs : "/nonexistent/pt2scope", "node-a"};
    static char lib[512];
    struct pt2_error err = {0};
    pt2_node *node = NULL;

    if (nvidia != NULL) {
        snprintf(lib, sizeof(lib), "%s/fakecuda/libcuda.so.1", tu_build_dir());
        setenv("PT2SCOPE_FAKECUDA_DEVICES", nvidia, 1);
        o.libcuda = lib;
    }
    ck_assert_int_eq(pt2_node_probe(&node, &o, &err), PT2_OK);
    return node;
}

START_TEST(test_amd_document)
{
    pt2_node *node = probe(NULL, MI250);
    struct pt2_error err = {0};
    cJSON *doc = NULL, *amd, *g;
    char line[512], *s;

    ck_assert_uint_eq(pt2_node_gpu_count(node), 2);
    ck_assert_str_eq(pt2_node_name(node), "node-a");
    ck_assert_uint_eq(strlen(pt2_node_probed_at(node)), 20);
    ck_assert_int_eq(pt2_node_to_json(node, &doc, &err), PT2_OK);
    ck_assert_str_eq(pt2_json_str(doc, "node"), "node-a");
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "gpus")), 0);
    ck_assert_ptr_null(pt2_json_str(doc, "amd_reason"));
    ck_assert(cJSON_IsObject(cJSON_GetObjectItem(doc, "cpu")));
    amd = cJSON_GetObjectItem(doc, "amd_gpus");
    ck_assert_int_eq(cJSON_GetArraySize(amd), 2);
    g = cJSON_GetArrayItem(amd, 1);
    s = cJSON_PrintUnformatted(g);
    ck_assert_str_eq(s, "{\"index\":1,\"target\":\"rocm:1\",\"name\":\"AMD Instinct "
                        "MI210/MI250/MI250X (CDNA2)\",\"gfx\":\"gfx90a\",\"gfx_target_version\":"
                        "90010,\"kfd_node\":2,\"vendor_id\":4098,\"device_id\":29704,"
                        "\"pci_bus_id\":\"0000:c6:00.0\",\"compute_units\":110,\"unique_id\":"
                        "1234567892}");
    free(s);
    pt2_node_summary(node, line, sizeof(line));
    ck_assert_str_eq(line, "no NVIDIA GPU: no NVIDIA driver installed "
                           "(/nonexistent/pt2scope/libcuda.so.1 not found); 2 AMD GPUs (gfx90a)");
    cJSON_Delete(doc);
    pt2_node_free(node);
}
END_TEST

START_TEST(test_nvidia_and_devices)
{
    pt2_node *node = probe("NVIDIA H100 80GB HBM3,9.0,132,85899345920", MI250);
    struct pt2_error err = {0};
    struct pt2_device dev;
    char label[32], line[512];

    ck_assert_uint_eq(pt2_node_gpu_count(node), 3);
    {
        char want[600];
        snprintf(want, sizeof(want),
                 "1 NVIDIA GPU (CUDA 12.4 driver, %s/fakecuda/libcuda.so.1); 2 "
                 "AMD GPUs (gfx90a)",
                 tu_build_dir());
        ck_assert_str_eq(pt2_node_summary(node, line, sizeof(line)), want);
    }
    /* With NVIDIA GPUs present, cuda:N is NVIDIA's numbering; rocm:N names AMD GPUs. */
    ck_assert_int_eq(pt2_node_device(node, "cuda", &dev, label, sizeof(label), &err), PT2_OK);
    ck_assert_str_eq(label, "cuda:0");
    ck_assert_str_eq(dev.name, "NVIDIA H100 80GB HBM3 (cuda:0)");
    ck_assert_int_eq(dev.cc_major, 9);
    ck_assert_int_eq(dev.driver_cuda_version, 12040);
    ck_assert_int_eq(pt2_node_device(node, "rocm:1", &dev, label, sizeof(label), &err), PT2_OK);
    ck_assert_str_eq(label, "rocm:1");
    ck_assert_str_eq(dev.gfx, "gfx90a");
    ck_assert_int_eq(dev.cc_major, 0);
    ck_assert_int_eq(pt2_node_device(node, "1", &dev, label, sizeof(label), &err),
                     PT2_ERR_NOT_FOUND);
    ck_assert_str_eq(err.message, "device cuda:1 not found: 1 CUDA device visible");
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_node_device(node, "cpu", &dev, label, sizeof(label), &err),
                     PT2_ERR_INVALID);
    pt2_node_free(node);
}
END_TEST

START_TEST(test_nothing_here)
{
    pt2_node *node = probe(NULL, NULL);
    struct pt2_error err = {0};
    struct pt2_device dev;
    char label[32];

    ck_assert_uint_eq(pt2_node_gpu_count(node), 0);
    ck_assert_int_eq(pt2_node_device(node, NULL, &dev, label, sizeof(label), &err),
                     PT2_ERR_NOT_FOUND);
    ck_assert_str_eq(err.message, "device cuda:0 not found: no NVIDIA driver installed "
                                  "(/nonexistent/pt2scope/libcuda.so.1 not found)");
    pt2_node_free(node);
    /* Invalid options fail; NULL is fine. */
    {
        char longname[300];
        struct pt2_node_options o = {NULL, NULL, longname};
        memset(longname, 'n', sizeof(longname) - 1);
        longname[sizeof(longname) - 1] = '\0';
        ck_assert_int_eq(pt2_node_probe(&node, &o, NULL), PT2_ERR_INVALID);
        ck_assert_ptr_null(node);
    }
    pt2_node_free(NULL);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("node");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_amd_document);
    tcase_add_test(tc, test_nvidia_and_devices);
    tcase_add_test(tc, test_nothing_here);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run_suite(suite());
}
