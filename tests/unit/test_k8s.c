/*
 * test_k8s.c - Kubernetes node documents (GFD labels) and per-node verdicts.
 *
 * Node documents are written inline, in the shape `kubectl get nodes -o
 * json` prints; the packages are the committed fixtures.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_k8s.h"
#include "testutil.h"

/* GFD's labels on a real node: driver 570.124.06, which reports CUDA 12.8. */
#define NODE_H100                                                                                  \
    "{\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"gpu-h100-0\", "       \
    "\"labels\": {\"kubernetes.io/arch\": \"amd64\", \"kubernetes.io/os\": \"linux\", "            \
    "\"nvidia.com/gpu.product\": \"NVIDIA-H100-80GB-HBM3\", \"nvidia.com/gpu.count\": \"8\", "     \
    "\"nvidia.com/gpu.compute.major\": \"9\", \"nvidia.com/gpu.compute.minor\": \"0\", "           \
    "\"nvidia.com/cuda.driver.major\": \"570\", \"nvidia.com/cuda.driver.minor\": \"124\", "       \
    "\"nvidia.com/cuda.driver.rev\": \"06\", \"nvidia.com/cuda.runtime.major\": \"12\", "          \
    "\"nvidia.com/cuda.runtime.minor\": \"8\"}}}"
#define NODE_A100                                                                                  \
    "{\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"gpu-a100-0\", "       \
    "\"labels\": {\"kubernetes.io/arch\": \"amd64\", \"kubernetes.io/os\": \"linux\", "            \
    "\"nvidia.com/gpu.product\": \"A100-SXM4-40GB\", \"nvidia.com/gpu.count\": \"4\", "            \
    "\"nvidia.com/gpu.compute.major\": \"8\", \"nvidia.com/gpu.compute.minor\": \"0\", "           \
    "\"nvidia.com/cuda.driver-version.full\": \"550.54.15\", "                                     \
    "\"nvidia.com/cuda.runtime-version.full\": \"12.4\"}}}"
#define NODE_ARM                                                                                   \
    "{\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"cpu-arm-0\", "        \
    "\"labels\": {\"kubernetes.io/arch\": \"arm64\", \"kubernetes.io/os\": \"linux\"}}}"
#define NODE_LIST                                                                                  \
    "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [" NODE_H100 ", " NODE_A100           \
    ", " NODE_ARM "]}"

#define CPU_AVX512_UNKNOWN                                                                         \
    "package is a Linux x86_64 shared object; this node is Linux x86_64; it needs AVX-512 "        \
    "(avx512f, avx512dq, avx512vl, avx512bw, fma), this node's CPU features are unknown; built "   \
    "with -march=native, so it may also use other instructions of the build host's CPU"

static void parse_ok(const char *text, struct pt2_k8s_nodes *nodes)
{
    struct pt2_error err = {0};

    ck_assert_int_eq(pt2_k8s_parse_text(text, strlen(text), nodes, &err), PT2_OK);
    ck_assert_int_eq(err.code, PT2_OK);
}

static void parse_fails(const char *text, int code, const char *message)
{
    struct pt2_k8s_nodes nodes;
    struct pt2_error err = {0};

    ck_assert_int_eq(pt2_k8s_parse_text(text, strlen(text), &nodes, &err), code);
    ck_assert_str_eq(err.message, message);
    ck_assert_ptr_null(nodes.v);
    ck_assert_uint_eq(nodes.n, 0);
}

/* One node with the given labels object text. */
static void parse_labels(const char *labels, struct pt2_k8s_node *out)
{
    struct pt2_k8s_nodes nodes;
    char text[4096];

    snprintf(text, sizeof(text), "{\"metadata\": {\"name\": \"n\", \"labels\": %s}}", labels);
    parse_ok(text, &nodes);
    ck_assert_uint_eq(nodes.n, 1);
    *out = nodes.v[0];
    pt2_k8s_nodes_clear(&nodes);
}

static pt2_package *open_fixture(const char *name)
{
    struct pt2_error err = {0};
    pt2_package *pkg = NULL;
    char path[512];

    ck_assert_int_eq(pt2_package_open_path(&pkg, tu_fixture(name, path, sizeof(path)), NULL, &err),
                     PT2_OK);
    return pkg;
}

/* ---- parsing ------------------------------------------------------------- */

START_TEST(test_node_list_fields)
{
    struct pt2_k8s_nodes nodes;
    const struct pt2_k8s_node *h, *a, *c;

    parse_ok(NODE_LIST, &nodes);
    ck_assert_uint_eq(nodes.n, 3);
    h = &nodes.v[0];
    a = &nodes.v[1];
    c = &nodes.v[2];

    ck_assert_str_eq(h->name, "gpu-h100-0");
    ck_assert_int_eq(h->has_gpu, 1);
    ck_assert_int_eq(h->dev.cc_major, 9);
    ck_assert_int_eq(h->dev.cc_minor, 0);
    ck_assert_int_eq(h->dev.driver_cuda_version, 12080);
    ck_assert_str_eq(h->dev.name, "NVIDIA-H100-80GB-HBM3");
    ck_assert_str_eq(h->dev.gfx, "");
    ck_assert_int_eq(h->count, 8);
    ck_assert_str_eq(h->product, "NVIDIA-H100-80GB-HBM3");
    ck_assert_str_eq(h->driver_version, "570.124.06");
    ck_assert_str_eq(h->arch, "amd64");
    ck_assert_str_eq(h->machine, "x86_64");
    ck_assert_str_eq(h->os, "linux");
    ck_assert_str_eq(h->note, "");

    ck_assert_str_eq(a->name, "gpu-a100-0");
    ck_assert_int_eq(a->has_gpu, 1);
    ck_assert_int_eq(a->dev.cc_major, 8);
    ck_assert_int_eq(a->dev.cc_minor, 0);
    ck_assert_int_eq(a->dev.driver_cuda_version, 12040);
    ck_assert_str_eq(a->dev.name, "A100-SXM4-40GB");
    ck_assert_int_eq(a->count, 4);
    ck_assert_str_eq(a->driver_version, "550.54.15");
    ck_assert_str_eq(a->note, "");

    ck_assert_str_eq(c->name, "cpu-arm-0");
    ck_assert_int_eq(c->has_gpu, 0);
    ck_assert_int_eq(c->dev.cc_major, 0);
    ck_assert_int_eq(c->dev.driver_cuda_version, 0);
    ck_assert_str_eq(c->dev.name, "");
    ck_assert_int_eq(c->count, -1);
    ck_assert_str_eq(c->product, "");
    ck_assert_str_eq(c->arch, "arm64");
    ck_assert_str_eq(c->machine, "aarch64");
    ck_assert_str_eq(c->note, "");
    pt2_k8s_nodes_clear(&nodes);
}
END_TEST

START_TEST(test_array_and_single_node)
{
    struct pt2_k8s_nodes nodes;

    parse_ok("[" NODE_ARM ", " NODE_H100 "]", &nodes);
    ck_assert_uint_eq(nodes.n, 2);
    ck_assert_str_eq(nodes.v[0].name, "cpu-arm-0");
    ck_assert_str_eq(nodes.v[1].name, "gpu-h100-0");
    pt2_k8s_nodes_clear(&nodes);

    parse_ok(NODE_A100, &nodes);
    ck_assert_uint_eq(nodes.n, 1);
    ck_assert_str_eq(nodes.v[0].name, "gpu-a100-0");
    pt2_k8s_nodes_clear(&nodes);
}
END_TEST

START_TEST(test_empty_lists)
{
    struct pt2_k8s_nodes nodes;

    parse_ok("{\"kind\": \"NodeList\", \"items\": []}", &nodes);
    ck_assert_uint_eq(nodes.n, 0);
    ck_assert_ptr_null(nodes.v);
    parse_ok("[]", &nodes);
    ck_assert_uint_eq(nodes.n, 0);
    pt2_k8s_nodes_clear(&nodes);
    pt2_k8s_nodes_free(NULL);
}
END_TEST

START_TEST(test_product_gives_cc_without_compute_labels)
{
    struct pt2_k8s_node n;

    parse_labels("{\"nvidia.com/gpu.product\": \"NVIDIA-A10G\", \"nvidia.com/gpu.count\": \"1\"}",
                 &n);
    ck_assert_int_eq(n.has_gpu, 1);
    ck_assert_int_eq(n.dev.cc_major, 8);
    ck_assert_int_eq(n.dev.cc_minor, 6);
    ck_assert_str_eq(n.dev.name, "NVIDIA-A10G");
    ck_assert_int_eq(n.dev.driver_cuda_version, 0);
    ck_assert_str_eq(n.arch, "");
    ck_assert_str_eq(n.machine, "");
    ck_assert_str_eq(n.note, "");
}
END_TEST

START_TEST(test_compute_labels_win_over_product)
{
    struct pt2_k8s_node n;

    /* MIG single strategy overrides the product; the CC labels stay exact. */
    parse_labels(
        "{\"nvidia.com/gpu.product\": \"A100-SXM4-40GB-MIG-1g.5gb\", "
        "\"nvidia.com/gpu.compute.major\": \"8\", \"nvidia.com/gpu.compute.minor\": \"0\"}",
        &n);
    ck_assert_int_eq(n.has_gpu, 1);
    ck_assert_int_eq(n.dev.cc_major, 8);
    ck_assert_int_eq(n.dev.cc_minor, 0);
    ck_assert_str_eq(n.dev.name, "A100-SXM4-40GB-MIG-1g.5gb");
}
END_TEST

START_TEST(test_unknown_product_is_gpu_without_cc)
{
    struct pt2_k8s_node n;

    parse_labels("{\"nvidia.com/gpu.product\": \"Mystery-GPU\"}", &n);
    ck_assert_int_eq(n.has_gpu, 1);
    ck_assert_int_eq(n.dev.cc_major, 0);
    ck_assert_str_eq(n.dev.name, "Mystery-GPU");
    ck_assert_int_eq(n.count, -1);
}
END_TEST

START_TEST(test_count_zero_means_no_gpu)
{
    struct pt2_k8s_node n;

    parse_labels(
        "{\"nvidia.com/gpu.product\": \"Tesla-T4\", \"nvidia.com/gpu.count\": \"0\", "
        "\"nvidia.com/gpu.compute.major\": \"7\", \"nvidia.com/gpu.compute.minor\": \"5\"}",
        &n);
    ck_assert_int_eq(n.has_gpu, 0);
    ck_assert_int_eq(n.dev.cc_major, 0);
    ck_assert_int_eq(n.count, 0);
    ck_assert_str_eq(n.note, "nvidia.com/gpu.count is 0: treated as a node without GPUs");
}
END_TEST

START_TEST(test_malformed_labels_are_noted)
{
    struct pt2_k8s_node n;

    parse_labels("{\"nvidia.com/gpu.compute.major\": \"nine\", \"nvidia.com/gpu.compute.minor\": "
                 "\"0\", \"nvidia.com/gpu.product\": \"H100-SXM5-80GB\", \"nvidia.com/gpu.count\": "
                 "\"-1\", \"kubernetes.io/arch\": \"AMD 64\"}",
                 &n);
    ck_assert_int_eq(n.has_gpu, 1);
    ck_assert_int_eq(n.dev.cc_major, 9); /* from the product */
    ck_assert_int_eq(n.dev.cc_minor, 0);
    ck_assert_int_eq(n.count, -1);
    ck_assert_str_eq(n.arch, "");
    ck_assert_str_eq(n.note,
                     "nvidia.com/gpu.count '-1' is not a number in 0-1000000, ignored; "
                     "nvidia.com/gpu.compute.major 'nine' is not a number in 0-99, ignored; "
                     "kubernetes.io/arch 'AMD 64' is not a valid value, ignored");
}
END_TEST

START_TEST(test_half_a_pair_is_noted)
{
    struct pt2_k8s_node n;

    parse_labels("{\"nvidia.com/gpu.compute.major\": \"9\"}", &n);
    ck_assert_int_eq(n.has_gpu, 1);
    ck_assert_int_eq(n.dev.cc_major, 0);
    ck_assert_str_eq(n.note,
                     "nvidia.com/gpu.compute.major without nvidia.com/gpu.compute.minor, ignored");
}
END_TEST

START_TEST(test_non_string_label_and_labels)
{
    struct pt2_k8s_nodes nodes;
    struct pt2_k8s_node n;

    parse_labels("{\"nvidia.com/gpu.count\": 8, \"kubernetes.io/arch\": \"arm64\"}", &n);
    ck_assert_int_eq(n.has_gpu, 0);
    ck_assert_int_eq(n.count, -1);
    ck_assert_str_eq(n.machine, "aarch64");
    ck_assert_str_eq(n.note, "nvidia.com/gpu.count is not a string, ignored");

    parse_ok("{\"metadata\": {\"name\": \"x\", \"labels\": [1]}}", &nodes);
    ck_assert_str_eq(nodes.v[0].note, "metadata.labels is not an object, ignored");
    pt2_k8s_nodes_clear(&nodes);
}
END_TEST

START_TEST(test_long_bad_value_is_cut_in_note)
{
    struct pt2_k8s_node n;

    parse_labels("{\"nvidia.com/gpu.count\": \"123456789012345678901234567890123456789012345\"}",
                 &n);
    ck_assert_str_eq(n.note, "nvidia.com/gpu.count '1234567890123456789012345678901234567890...' "
                             "is not a number in 0-1000000, ignored");
}
END_TEST

START_TEST(test_driver_labels)
{
    struct pt2_k8s_node n;

    /* Current GFD names. */
    parse_labels("{\"nvidia.com/gpu.compute.major\": \"9\", \"nvidia.com/gpu.compute.minor\": "
                 "\"0\", \"nvidia.com/cuda.runtime-version.major\": \"13\", "
                 "\"nvidia.com/cuda.runtime-version.minor\": \"0\", "
                 "\"nvidia.com/cuda.driver-version.major\": \"580\", "
                 "\"nvidia.com/cuda.driver-version.minor\": \"65\", "
                 "\"nvidia.com/cuda.driver-version.revision\": \"06\"}",
                 &n);
    ck_assert_int_eq(n.dev.driver_cuda_version, 13000);
    ck_assert_str_eq(n.driver_version, "580.65.06");
    ck_assert_str_eq(n.note, "");

    /* Only the driver branch: the CUDA version it shipped with. */
    parse_labels("{\"nvidia.com/gpu.compute.major\": \"9\", \"nvidia.com/gpu.compute.minor\": "
                 "\"0\", \"nvidia.com/cuda.driver.major\": \"535\", "
                 "\"nvidia.com/cuda.driver.minor\": \"129\"}",
                 &n);
    ck_assert_int_eq(n.dev.driver_cuda_version, 12020);
    ck_assert_str_eq(n.driver_version, "535.129");

    /* Hand-written labels that put the CUDA version in the driver labels. */
    parse_labels("{\"nvidia.com/gpu.compute.major\": \"9\", \"nvidia.com/gpu.compute.minor\": "
                 "\"0\", \"nvidia.com/cuda.driver.major\": \"12\", "
                 "\"nvidia.com/cuda.driver.minor\": \"8\"}",
                 &n);
    ck_assert_int_eq(n.dev.driver_cuda_version, 12080);
    ck_assert_str_eq(n.driver_version, "");

    /* A bad full version falls back to the pair. */
    parse_labels("{\"nvidia.com/gpu.compute.major\": \"9\", \"nvidia.com/gpu.compute.minor\": "
                 "\"0\", \"nvidia.com/cuda.runtime-version.full\": \"twelve\", "
                 "\"nvidia.com/cuda.runtime.major\": \"12\", \"nvidia.com/cuda.runtime.minor\": "
                 "\"4\"}",
                 &n);
    ck_assert_int_eq(n.dev.driver_cuda_version, 12040);
    ck_assert_str_eq(
        n.note, "nvidia.com/cuda.runtime-version.full 'twelve' is not a CUDA version, ignored");
}
END_TEST

START_TEST(test_driver_branch_table)
{
    ck_assert_int_eq(pt2_k8s_driver_branch_cuda(0), 0);
    ck_assert_int_eq(pt2_k8s_driver_branch_cuda(449), 0);
    ck_assert_int_eq(pt2_k8s_driver_branch_cuda(450), 11000);
    ck_assert_int_eq(pt2_k8s_driver_branch_cuda(535), 12020);
    ck_assert_int_eq(pt2_k8s_driver_branch_cuda(569), 12070);
    ck_assert_int_eq(pt2_k8s_driver_branch_cuda(570), 12080);
    ck_assert_int_eq(pt2_k8s_driver_branch_cuda(575), 12090);
    ck_assert_int_eq(pt2_k8s_driver_branch_cuda(580), 13000);
    ck_assert_int_eq(pt2_k8s_driver_branch_cuda(9999), 13000);
}
END_TEST

START_TEST(test_arch_sources_and_map)
{
    struct pt2_k8s_nodes nodes;

    parse_ok("[{\"metadata\": {\"name\": \"a\", \"labels\": {\"beta.kubernetes.io/arch\": "
             "\"ppc64le\", \"beta.kubernetes.io/os\": \"linux\"}}}, "
             "{\"metadata\": {\"name\": \"b\"}, \"status\": {\"nodeInfo\": {\"architecture\": "
             "\"arm64\", \"operatingSystem\": \"windows\"}}}, "
             "{\"metadata\": {\"name\": \"c\", \"labels\": {\"kubernetes.io/arch\": "
             "\"mips64le\"}}}]",
             &nodes);
    ck_assert_uint_eq(nodes.n, 3);
    ck_assert_str_eq(nodes.v[0].arch, "ppc64le");
    ck_assert_str_eq(nodes.v[0].machine, "ppc64le");
    ck_assert_str_eq(nodes.v[0].os, "linux");
    ck_assert_str_eq(nodes.v[1].arch, "arm64");
    ck_assert_str_eq(nodes.v[1].machine, "aarch64");
    ck_assert_str_eq(nodes.v[1].os, "windows");
    ck_assert_str_eq(nodes.v[2].arch, "mips64le");
    ck_assert_str_eq(nodes.v[2].machine, "mips64le");
    pt2_k8s_nodes_clear(&nodes);

    ck_assert_str_eq(pt2_k8s_arch_machine("amd64"), "x86_64");
    ck_assert_str_eq(pt2_k8s_arch_machine("386"), "i686");
    ck_assert_str_eq(pt2_k8s_arch_machine("s390x"), "s390x");
    ck_assert_ptr_null(pt2_k8s_arch_machine("x86_64"));
    ck_assert_ptr_null(pt2_k8s_arch_machine(NULL));
}
END_TEST

/* ---- malformed documents --------------------------------------------------- */

START_TEST(test_bad_documents)
{
    parse_fails("{\"kind\": \"Pod\"}", PT2_ERR_INVALID,
                "nodes: expected a NodeList ({\"items\": [...]}), an array of Node objects or one "
                "Node object");
    parse_fails("42", PT2_ERR_INVALID,
                "nodes: expected a NodeList ({\"items\": [...]}), an array of Node objects or one "
                "Node object");
    parse_fails("{\"items\": {}}", PT2_ERR_INVALID, "nodes: \"items\" is not an array");
    parse_fails("[" NODE_ARM ", 7]", PT2_ERR_INVALID, "nodes[1]: not a Node object");
    parse_fails("[{\"metadata\": {}}]", PT2_ERR_INVALID, "nodes[0]: metadata.name missing");
    parse_fails("[{\"metadata\": {\"name\": \"\"}}]", PT2_ERR_INVALID,
                "nodes[0]: metadata.name missing");
    parse_fails("[{\"metadata\": {\"name\": 5}}]", PT2_ERR_INVALID,
                "nodes[0]: metadata.name missing");
    parse_fails("[{\"metadata\": \"x\"}]", PT2_ERR_INVALID, "nodes[0]: metadata.name missing");
    parse_fails("[{\"metadata\": {\"name\": \"a\\u0001b\"}}]", PT2_ERR_INVALID,
                "nodes[0]: metadata.name has a character outside printable ASCII");
    parse_fails("[{\"metadata\": {\"name\": \"a\"}}, {\"metadata\"", PT2_ERR_INVALID,
                "nodes: invalid JSON near byte 40");
    parse_fails("", PT2_ERR_INVALID, "nodes: empty document");
    /* Limits are checked before a tree is built. */
    parse_fails("{\"items\": [{\"metadata\": {\"name\": \"a\\u0000b\"}}]}", PT2_ERR_INVALID,
                "nodes: \\u0000 (a NUL character) in a string at byte 35");
}
END_TEST

START_TEST(test_long_name)
{
    char text[512], name[300];

    memset(name, 'a', 254);
    name[254] = '\0';
    snprintf(text, sizeof(text), "[{\"metadata\": {\"name\": \"%s\"}}]", name);
    parse_fails(text, PT2_ERR_INVALID, "nodes[0]: metadata.name is longer than 253 characters");

    name[253] = '\0'; /* exactly 253 is a valid name */
    snprintf(text, sizeof(text), "[{\"metadata\": {\"name\": \"%s\"}}]", name);
    {
        struct pt2_k8s_nodes nodes;
        parse_ok(text, &nodes);
        ck_assert_uint_eq(strlen(nodes.v[0].name), 253);
        pt2_k8s_nodes_clear(&nodes);
    }
}
END_TEST

/* A list of `n` copies of a small node, as JSON text (caller frees). */
static char *many_nodes(size_t n)
{
    static const char node[] = "{\"metadata\": {\"name\": \"node\", \"labels\": "
                               "{\"nvidia.com/gpu.compute.major\": \"9\", "
                               "\"nvidia.com/gpu.compute.minor\": \"0\", "
                               "\"kubernetes.io/arch\": \"amd64\"}}}";
    size_t cap = n * (sizeof(node) + 2) + 16, off = 0, i;
    char *t = malloc(cap);

    ck_assert_ptr_nonnull(t);
    t[off++] = '[';
    for (i = 0; i < n; i++) {
        if (i > 0)
            t[off++] = ',';
        memcpy(t + off, node, sizeof(node) - 1);
        off += sizeof(node) - 1;
    }
    t[off++] = ']';
    t[off] = '\0';
    return t;
}

START_TEST(test_node_cap)
{
    struct pt2_k8s_nodes nodes;
    struct pt2_error err = {0};
    char *t = many_nodes(PT2_K8S_NODES_MAX + 1);

    ck_assert_int_eq(pt2_k8s_parse_text(t, strlen(t), &nodes, &err), PT2_ERR_TOO_LARGE);
    ck_assert_str_eq(err.message, "nodes: more than 10000 nodes");
    ck_assert_ptr_null(nodes.v);
    free(t);
}
END_TEST

START_TEST(test_text_cap_and_null_arguments)
{
    static const char small[] = "[]";
    struct pt2_k8s_nodes nodes;
    struct pt2_error err = {0};

    /* The length is refused before a byte is read. */
    ck_assert_int_eq(pt2_k8s_parse_text(small, PT2_K8S_TEXT_MAX + 1u, &nodes, &err),
                     PT2_ERR_TOO_LARGE);
    ck_assert_str_eq(err.message, "nodes: document is 16777217 bytes, at most 16777216");
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_k8s_parse_text(NULL, 0, &nodes, &err), PT2_ERR_INVALID);
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_k8s_parse(NULL, &nodes, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "nodes: expected a NodeList ({\"items\": [...]}), an array of "
                                  "Node objects or one Node object");
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_k8s_parse(NULL, NULL, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "pt2_k8s_parse: no output");
}
END_TEST

/* ---- verdicts ----------------------------------------------------------------- */

/* The verdict of fixture `pkg_name` on the node(s) in `text`, node `idx`. */
static void check_node(const char *pkg_name, const char *text, size_t idx,
                       struct pt2_k8s_verdict *v)
{
    struct pt2_k8s_nodes nodes;
    struct pt2_error err = {0};
    pt2_package *pkg = open_fixture(pkg_name);

    parse_ok(text, &nodes);
    ck_assert_uint_gt(nodes.n, idx);
    ck_assert_int_eq(pt2_k8s_check(pkg, &nodes.v[idx], v, &err), PT2_OK);
    pt2_k8s_nodes_clear(&nodes);
    pt2_package_free(pkg);
}

START_TEST(test_cuda_package_on_three_nodes)
{
    struct pt2_k8s_verdict v;

    /* v8 cubins need a CUDA 13 driver even on the right GPU. */
    check_node("cuda_sm90a_v8.pt2", NODE_LIST, 0, &v);
    ck_assert_int_eq(v.verdict, PT2_INCOMPATIBLE);
    ck_assert_str_eq(v.reason, "sm_90a cubins are built with CUDA 13 (ELF ABI v8) and need a CUDA "
                               "13.0+ driver; this driver supports CUDA 12.8");
    ck_assert_int_eq(v.gpu.verdict, PT2_INCOMPATIBLE);
    ck_assert_int_eq(v.cpu.verdict, PT2_COMPATIBLE);
    ck_assert_str_eq(v.cpu.reason, CPU_AVX512_UNKNOWN);

    check_node("cuda_sm90a_v8.pt2", NODE_LIST, 1, &v);
    ck_assert_int_eq(v.verdict, PT2_INCOMPATIBLE);
    ck_assert_str_eq(v.reason, "kernels are sm_90a only; A100-SXM4-40GB is 8.0");

    check_node("cuda_sm90a_v8.pt2", NODE_LIST, 2, &v);
    ck_assert_int_eq(v.verdict, PT2_INCOMPATIBLE);
    ck_assert_str_eq(v.reason, "the package needs an NVIDIA GPU (sm_90a); this node has none: no "
                               "nvidia.com/gpu.* labels; cpu: package is a Linux x86_64 shared "
                               "object; this node is Linux aarch64");
    ck_assert_str_eq(v.gpu.reason, "the package needs an NVIDIA GPU (sm_90a); this node has none: "
                                   "no nvidia.com/gpu.* labels");
    ck_assert_str_eq(v.cpu.reason,
                     "package is a Linux x86_64 shared object; this node is Linux aarch64");
}
END_TEST

START_TEST(test_cuda_package_on_h100_with_cuda13)
{
    struct pt2_k8s_verdict v;

    check_node("cuda_sm90a_v8.pt2",
               "{\"metadata\": {\"name\": \"h\", \"labels\": {\"kubernetes.io/arch\": \"amd64\", "
               "\"nvidia.com/gpu.product\": \"NVIDIA-H100-80GB-HBM3\", "
               "\"nvidia.com/gpu.compute.major\": \"9\", \"nvidia.com/gpu.compute.minor\": \"0\", "
               "\"nvidia.com/cuda.runtime-version.full\": \"13.0\"}}}",
               0, &v);
    ck_assert_int_eq(v.verdict, PT2_COMPATIBLE);
    ck_assert_int_eq(v.gpu.verdict, PT2_COMPATIBLE);
    ck_assert_str_eq(v.gpu.reason, "sm_90a cubin runs on NVIDIA-H100-80GB-HBM3");
    ck_assert_str_eq(v.reason,
                     "sm_90a cubin runs on NVIDIA-H100-80GB-HBM3; cpu: " CPU_AVX512_UNKNOWN);
}
END_TEST

START_TEST(test_cpu_package_on_three_nodes)
{
    struct pt2_k8s_verdict v;

    check_node("cpu_x86_64.pt2", NODE_LIST, 0, &v);
    ck_assert_int_eq(v.verdict, PT2_COMPATIBLE);
    ck_assert_str_eq(v.gpu.reason, "the package needs no GPU");
    ck_assert_str_eq(v.reason, "cpu: " CPU_AVX512_UNKNOWN);

    check_node("cpu_x86_64.pt2", NODE_LIST, 1, &v);
    ck_assert_int_eq(v.verdict, PT2_COMPATIBLE);

    check_node("cpu_x86_64.pt2", NODE_LIST, 2, &v);
    ck_assert_int_eq(v.verdict, PT2_INCOMPATIBLE);
    ck_assert_int_eq(v.gpu.verdict, PT2_COMPATIBLE);
    ck_assert_str_eq(v.reason,
                     "cpu: package is a Linux x86_64 shared object; this node is Linux aarch64");
}
END_TEST

START_TEST(test_unknown_gpu_verdicts)
{
    static const char node[] = "{\"metadata\": {\"name\": \"m\", \"labels\": "
                               "{\"nvidia.com/gpu.product\": \"Mystery-GPU\", "
                               "\"kubernetes.io/arch\": \"amd64\"}}}";
    struct pt2_k8s_verdict v;

    check_node("cuda_sm90a_v8.pt2", node, 0, &v);
    ck_assert_int_eq(v.verdict, PT2_INCOMPATIBLE);
    ck_assert_str_eq(v.gpu.reason,
                     "cannot tell: the node has no valid nvidia.com/gpu.compute.major/.minor "
                     "labels and its nvidia.com/gpu.product 'Mystery-GPU' is not a known GPU");
    ck_assert_str_eq(v.advice, "Label the node with nvidia.com/gpu.compute.major and "
                               "nvidia.com/gpu.compute.minor (GPU Feature Discovery does), or "
                               "name a known GPU in nvidia.com/gpu.product.");
    /* A CPU package does not care which GPU it is. */
    check_node("cpu_x86_64.pt2", node, 0, &v);
    ck_assert_int_eq(v.verdict, PT2_COMPATIBLE);
    ck_assert_str_eq(v.gpu.reason, "the package needs no GPU");
}
END_TEST

START_TEST(test_windows_and_unknown_arch)
{
    struct pt2_k8s_verdict v;

    check_node("cpu_x86_64.pt2",
               "{\"metadata\": {\"name\": \"w\", \"labels\": {\"kubernetes.io/os\": \"windows\", "
               "\"kubernetes.io/arch\": \"amd64\"}}}",
               0, &v);
    ck_assert_int_eq(v.verdict, PT2_INCOMPATIBLE);
    ck_assert_str_eq(
        v.reason, "cpu: node runs windows; AOTInductor host code is checked for Linux nodes only");
    ck_assert_str_eq(v.advice, "Schedule it on Linux nodes (kubernetes.io/os=linux).");
    ck_assert_str_eq(v.code, "host-platform");
    ck_assert_str_eq(v.cpu.code, "host-platform");

    check_node("cpu_aarch64.pt2", "{\"metadata\": {\"name\": \"u\"}}", 0, &v);
    ck_assert_int_eq(v.verdict, PT2_COMPATIBLE);
    ck_assert_str_eq(v.cpu.reason, "package is a Linux aarch64 shared object; this node's "
                                   "architecture is unknown; it needs NEON (asimd), this node's "
                                   "CPU features are unknown");
}
END_TEST

/* Node Feature Discovery's labels as nfd-worker writes them on an AMD EPYC 7002 (AVX2, no
 * AVX-512; F16C, SSE4.2, POPCNT... are in NFD's default blacklist, so not labelled). */
#define NFD(flag) ", \"feature.node.kubernetes.io/cpu-cpuid." flag "\": \"true\""
#define NFD_AVX2 NFD("ADX") NFD("AESNI") NFD("AVX") NFD("AVX2") NFD("FMA3") NFD("MOVBE") NFD("SHA")
#define NFD_AVX512                                                                                 \
    NFD_AVX2 NFD("AVX512F") NFD("AVX512BW") NFD("AVX512CD") NFD("AVX512DQ") NFD("AVX512VL")
#define NFD_NODE(name, arch, labels)                                                               \
    "{\"metadata\": {\"name\": \"" name "\", \"labels\": {\"kubernetes.io/arch\": \"" arch         \
    "\", \"kubernetes.io/os\": \"linux\"" labels "}}}"

START_TEST(test_nfd_labels)
{
    struct pt2_k8s_node n;
    const struct pt2_nfd_flag *f;
    size_t i, set = 0;

    parse_labels("{\"kubernetes.io/arch\": \"amd64\"" NFD_AVX2
                 ", \"feature.node.kubernetes.io/cpu-cpuid.HYPERVISOR\": \"true\"}",
                 &n);
    ck_assert_int_eq(n.cpu_known, 1);
    for (i = 0; (f = pt2_nfd_at(i)) != NULL; i++) {
        int has = (n.cpu_flags[i / 64] >> (i % 64)) & 1u;
        char needle[64];

        snprintf(needle, sizeof(needle), "cpu-cpuid.%s\"", f->flag);
        set += (size_t)has;
        ck_assert_msg(has ==
                          (strcmp(f->machine, "x86_64") == 0 && strstr(NFD_AVX2, needle) != NULL),
                      "%s", f->flag);
    }
    ck_assert_uint_eq(set, 7); /* HYPERVISOR is no ISA feature: not in the table */
    ck_assert_str_eq(n.note, "");

    /* Only labels NFD's defaults leave out, or only another architecture's: unknown. */
    parse_labels("{\"kubernetes.io/arch\": \"amd64\"" NFD("SSE42") NFD("POPCNT") "}", &n);
    ck_assert_int_eq(n.cpu_known, 0);
    ck_assert_uint_ne(n.cpu_flags[0] | n.cpu_flags[1], 0);
    parse_labels("{\"kubernetes.io/arch\": \"arm64\"" NFD("AVX2") "}", &n);
    ck_assert_int_eq(n.cpu_known, 0);
    ck_assert_uint_eq(n.cpu_flags[0] | n.cpu_flags[1], 0);
    parse_labels("{\"kubernetes.io/arch\": \"arm64\"" NFD("ASIMD") NFD("SVE") "}", &n);
    ck_assert_int_eq(n.cpu_known, 1);

    /* NFD writes "true" only: another value is no feature, and noted; the label is there. */
    parse_labels("{\"kubernetes.io/arch\": \"amd64\", "
                 "\"feature.node.kubernetes.io/cpu-cpuid.AVX512F\": \"yes\"}",
                 &n);
    ck_assert_int_eq(n.cpu_known, 1);
    ck_assert_uint_eq(n.cpu_flags[0] | n.cpu_flags[1], 0);
    ck_assert_str_eq(n.note,
                     "feature.node.kubernetes.io/cpu-cpuid.AVX512F 'yes' is not \"true\", ignored");
}
END_TEST

START_TEST(test_nfd_verdicts)
{
    static const char list[] = "[" NFD_NODE("avx2", "amd64", NFD_AVX2) ", " NFD_NODE(
        "avx512", "amd64",
        NFD_AVX512) ", " NFD_NODE("nothing", "amd64",
                                  NFD("HYPERVISOR")) ", " NFD_NODE("false", "amd64",
                                                                   NFD("AVX2") ", "
                                                                               "\"feature.node."
                                                                               "kubernetes.io/"
                                                                               "cpu-cpuid."
                                                                               "AVX512F\": "
                                                                               "\"false\"") "]";
    struct pt2_k8s_verdict v;

    /* The AVX-512 -march=native package: SIGILL on the AVX2 node, so incompatible. */
    check_node("cpu_x86_64.pt2", list, 0, &v);
    ck_assert_int_eq(v.verdict, PT2_INCOMPATIBLE);
    ck_assert_str_eq(v.cpu.reason, "package needs AVX-512 (avx512f, avx512dq, avx512vl, avx512bw "
                                   "missing); this CPU has avx2");
    ck_assert_str_eq(v.cpu.advice, "Rebuild without -march=native, or with CPU_CAPABILITY=AVX2 so "
                                   "the code uses only what this CPU has, or run it on a CPU with "
                                   "avx512f, avx512dq, avx512vl, avx512bw.");
    check_node("cpu_x86_64.pt2", list, 1, &v);
    ck_assert_int_eq(v.verdict, PT2_COMPATIBLE);
    ck_assert_str_eq(v.cpu.reason,
                     "package is a Linux x86_64 shared object; this node is Linux x86_64; it needs "
                     "AVX-512 (avx512f, avx512dq, avx512vl, avx512bw, fma), all present; built "
                     "with -march=native, so it may also use other instructions of the build "
                     "host's CPU");
    /* No flag pt2scope reads: unknown, as without NFD. */
    check_node("cpu_x86_64.pt2", list, 2, &v);
    ck_assert_int_eq(v.verdict, PT2_COMPATIBLE);
    ck_assert_str_eq(v.cpu.reason, CPU_AVX512_UNKNOWN);
    /* Labelled, but AVX512F "false" and FMA3 absent. */
    check_node("cpu_x86_64.pt2", list, 3, &v);
    ck_assert_int_eq(v.verdict, PT2_INCOMPATIBLE);
    ck_assert_str_eq(v.cpu.reason, "package needs AVX-512 (avx512f, avx512dq, avx512vl, avx512bw, "
                                   "fma missing); this CPU has avx2");

    /* Labelled, with no flag "true": known, and nothing is there. */
    check_node("cpu_x86_64.pt2",
               NFD_NODE("none", "amd64", ", \"feature.node.kubernetes.io/cpu-cpuid.AVX\": \"0\""),
               0, &v);
    ck_assert_int_eq(v.verdict, PT2_INCOMPATIBLE);
    ck_assert_str_eq(v.cpu.reason, "package needs AVX-512 (avx512f, avx512dq, avx512vl, avx512bw, "
                                   "fma missing); this CPU has no vector extensions");

    /* AVX2 code (-march=haswell-like flags): what NFD labels is checked, the rest named. */
    check_node("cpu_avx2_cmd.pt2", list, 0, &v);
    ck_assert_int_eq(v.verdict, PT2_COMPATIBLE);
    ck_assert_str_eq(v.cpu.reason,
                     "package is a Linux x86_64 shared object; this node is Linux x86_64; it needs "
                     "AVX2 (avx2, fma, f16c, pni, ssse3, sse4_1, sse4_2, popcnt, cx16, avx, bmi1, "
                     "bmi2, movbe, abm), all present; f16c, pni, ssse3, sse4_1, sse4_2, popcnt, "
                     "cx16, bmi1, bmi2, abm not checked: Node Feature Discovery does not label "
                     "them by default");
    /* The H100 package with AVX-512 host code: the worse of GPU and CPU decides. */
    check_node("cuda_sm90a_v8.pt2",
               "{\"metadata\": {\"name\": \"g\", \"labels\": {\"kubernetes.io/arch\": "
               "\"amd64\", \"kubernetes.io/os\": \"linux\", \"nvidia.com/gpu.compute.major\": "
               "\"9\", \"nvidia.com/gpu.compute.minor\": \"0\"" NFD_AVX2 "}}}",
               0, &v);
    ck_assert_int_eq(v.gpu.verdict, PT2_COMPATIBLE);
    ck_assert_int_eq(v.verdict, PT2_INCOMPATIBLE);
    ck_assert_str_eq(v.reason, "cpu: package needs AVX-512 (avx512f, avx512dq, avx512vl, "
                               "avx512bw missing); this CPU has avx2");
}
END_TEST

START_TEST(test_nfd_compat_json)
{
    static const char list[] = "[" NFD_NODE("a", "amd64", NFD_AVX2) ", " NFD_NODE(
        "b", "amd64", "") ", " NFD_NODE("c", "amd64", NFD_AVX2) "]";
    struct pt2_error err = {0};
    pt2_package *pkg = open_fixture("cpu_x86_64.pt2");
    pt2_k8s_nodes *nodes = NULL;
    cJSON *doc = NULL, *a;
    char *feats;

    ck_assert_int_eq(pt2_k8s_nodes_parse_text(&nodes, list, strlen(list), &err), PT2_OK);
    ck_assert_int_eq(pt2_k8s_compat_json(pkg, nodes, &doc, &err), PT2_OK);
    a = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "nodes"), 0);
    feats = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(a, "cpu_features"));
    ck_assert_str_eq(feats, "[\"avx\",\"avx2\",\"fma\",\"aes\",\"sha_ni\",\"movbe\",\"adx\"]");
    cJSON_free(feats);
    ck_assert_str_eq(pt2_json_str(a, "verdict"), "incompatible");
    a = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "nodes"), 1);
    ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(a, "cpu_features")));
    ck_assert_str_eq(pt2_json_str(a, "verdict"), "compatible");
    /* Nodes alike but for their CPU labels are judged apart. */
    ck_assert_str_eq(
        pt2_json_str(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "nodes"), 2),
                     "verdict"),
        "incompatible");
    ck_assert_int_eq((int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(
                         cJSON_GetObjectItemCaseSensitive(doc, "summary"), "incompatible")),
                     2);
    cJSON_Delete(doc);
    pt2_k8s_nodes_free(nodes);
    pt2_package_free(pkg);
}
END_TEST

START_TEST(test_check_null_arguments)
{
    struct pt2_k8s_verdict v;
    struct pt2_k8s_node n;
    struct pt2_error err = {0};
    pt2_package *pkg = open_fixture("cpu_x86_64.pt2");
    cJSON *doc = (cJSON *)1;

    memset(&n, 0, sizeof(n));
    ck_assert_int_eq(pt2_k8s_check(NULL, &n, &v, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "pt2_k8s_check: missing argument");
    ck_assert_int_eq(pt2_k8s_check(pkg, NULL, &v, NULL), PT2_ERR_INVALID);
    ck_assert_int_eq(pt2_k8s_compat_json(pkg, NULL, &doc, NULL), PT2_ERR_INVALID);
    ck_assert_ptr_null(doc);
    pt2_package_free(pkg);
}
END_TEST

/* ---- the cluster document ---------------------------------------------------- */

static const char *str_at(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    ck_assert_msg(cJSON_IsString(v), "%s is not a string", key);
    return v->valuestring;
}

static double num_at(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    ck_assert_msg(cJSON_IsNumber(v), "%s is not a number", key);
    return v->valuedouble;
}

START_TEST(test_compat_json_document)
{
    struct pt2_k8s_nodes nodes;
    struct pt2_error err = {0};
    pt2_package *pkg = open_fixture("cuda_sm90a_v8.pt2");
    const cJSON *arr, *h, *gpu, *c, *sum;
    cJSON *doc = NULL;

    parse_ok(NODE_LIST, &nodes);
    ck_assert_int_eq(pt2_k8s_compat_json(pkg, &nodes, &doc, &err), PT2_OK);
    arr = cJSON_GetObjectItemCaseSensitive(doc, "nodes");
    ck_assert_int_eq(cJSON_GetArraySize(arr), 3);

    h = cJSON_GetArrayItem(arr, 0);
    ck_assert_str_eq(str_at(h, "name"), "gpu-h100-0");
    gpu = cJSON_GetObjectItemCaseSensitive(h, "gpu");
    ck_assert_str_eq(str_at(gpu, "product"), "NVIDIA-H100-80GB-HBM3");
    ck_assert(num_at(gpu, "count") == 8);
    ck_assert_str_eq(str_at(gpu, "compute_capability"), "9.0");
    ck_assert(num_at(gpu, "driver_cuda_version") == 12080);
    ck_assert_str_eq(str_at(gpu, "driver_version"), "570.124.06");
    ck_assert_str_eq(str_at(h, "arch"), "amd64");
    ck_assert_str_eq(str_at(h, "machine"), "x86_64");
    ck_assert_str_eq(str_at(h, "os"), "linux");
    ck_assert_str_eq(str_at(h, "verdict"), "incompatible");
    ck_assert_str_eq(str_at(h, "advice"),
                     "Upgrade the NVIDIA driver to branch 580 or newer (CUDA 13.0) to load these "
                     "CUDA 13 cubins, or rebuild the package with a CUDA 12.x toolkit (a torch "
                     "built for CUDA 12).");
    c = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(h, "checks"), "gpu");
    ck_assert_str_eq(str_at(c, "advice"), str_at(h, "advice"));
    c = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(h, "checks"), "cpu");
    ck_assert_str_eq(str_at(c, "verdict"), "compatible");
    ck_assert_str_eq(str_at(c, "reason"), CPU_AVX512_UNKNOWN);
    ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(c, "advice")));
    ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(h, "note")));

    c = cJSON_GetArrayItem(arr, 2);
    ck_assert_str_eq(str_at(c, "name"), "cpu-arm-0");
    ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(c, "gpu")));
    ck_assert_str_eq(str_at(c, "arch"), "arm64");
    ck_assert_str_eq(str_at(c, "verdict"), "incompatible");
    /* No GPU and the wrong architecture: both fixes. */
    ck_assert_str_eq(str_at(c, "advice"),
                     "Run it on a node with an NVIDIA GPU (sm_90a); `pt2scope affinity FILE` "
                     "prints a Kubernetes nodeAffinity that selects such nodes. Re-export the "
                     "model with AOTInductor on (or cross-compile it for) a Linux aarch64 host, "
                     "or run it on a Linux x86_64 node.");

    sum = cJSON_GetObjectItemCaseSensitive(doc, "summary");
    ck_assert(num_at(sum, "total") == 3);
    ck_assert(num_at(sum, "compatible") == 0);
    ck_assert(num_at(sum, "compatible-ptx-jit") == 0);
    ck_assert(num_at(sum, "incompatible") == 3);
    cJSON_Delete(doc);
    pt2_k8s_nodes_clear(&nodes);
    pt2_package_free(pkg);
}
END_TEST

START_TEST(test_compat_json_nulls_and_ptx_summary)
{
    struct pt2_k8s_nodes nodes;
    struct pt2_error err = {0};
    pt2_package *pkg = open_fixture("cuda_fatbin_multi.pt2");
    const cJSON *arr, *n0, *n1, *gpu, *sum;
    cJSON *doc = NULL;

    /* A GPU node with only a product label (every unknown is null), and a
     * Thor node that only the compute_90 PTX can serve. */
    parse_ok("[{\"metadata\": {\"name\": \"p\", \"labels\": {\"nvidia.com/gpu.product\": "
             "\"NVIDIA-H100-80GB-HBM3\"}}}, {\"metadata\": {\"name\": \"thor\", \"labels\": "
             "{\"nvidia.com/gpu.compute.major\": \"11\", \"nvidia.com/gpu.compute.minor\": "
             "\"0\", \"nvidia.com/cuda.runtime-version.full\": \"13.0\", "
             "\"kubernetes.io/arch\": \"arm64\"}}}]",
             &nodes);
    ck_assert_int_eq(pt2_k8s_compat_json(pkg, &nodes, &doc, &err), PT2_OK);
    arr = cJSON_GetObjectItemCaseSensitive(doc, "nodes");
    n0 = cJSON_GetArrayItem(arr, 0);
    gpu = cJSON_GetObjectItemCaseSensitive(n0, "gpu");
    ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(gpu, "count")));
    ck_assert_str_eq(str_at(gpu, "compute_capability"), "9.0");
    ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(gpu, "driver_cuda_version")));
    ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(gpu, "driver_version")));
    ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(n0, "arch")));
    ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(n0, "machine")));
    ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(n0, "os")));
    ck_assert_str_eq(str_at(n0, "verdict"), "compatible");
    ck_assert_str_eq(str_at(cJSON_GetObjectItemCaseSensitive(
                                cJSON_GetObjectItemCaseSensitive(n0, "checks"), "gpu"),
                            "reason"),
                     "sm_90a cubin runs on NVIDIA-H100-80GB-HBM3; compatible if the driver "
                     "supports CUDA 13.0 (branch 580 or newer): the cubin is CUDA 13 (ELF ABI v8) "
                     "and the driver version is unknown");

    /* The PTX verdict is worse than the CPU's, and the CPU one fails: x86 code on arm64. */
    n1 = cJSON_GetArrayItem(arr, 1);
    ck_assert_str_eq(str_at(n1, "verdict"), "incompatible");
    ck_assert_str_eq(str_at(cJSON_GetObjectItemCaseSensitive(
                                cJSON_GetObjectItemCaseSensitive(n1, "checks"), "gpu"),
                            "verdict"),
                     "compatible-ptx-jit");
    ck_assert_str_eq(str_at(cJSON_GetObjectItemCaseSensitive(
                                cJSON_GetObjectItemCaseSensitive(n1, "checks"), "gpu"),
                            "reason"),
                     "no cubin for 11.0; compute_90 PTX can be JIT-compiled for compute "
                     "capability 11.0");
    ck_assert_str_eq(str_at(n1, "reason"),
                     "cpu: package is a Linux x86_64 shared object; this node is Linux aarch64");
    sum = cJSON_GetObjectItemCaseSensitive(doc, "summary");
    ck_assert(num_at(sum, "total") == 2);
    ck_assert(num_at(sum, "compatible") == 1);
    ck_assert(num_at(sum, "compatible-ptx-jit") == 0);
    ck_assert(num_at(sum, "incompatible") == 1);
    cJSON_Delete(doc);
    pt2_k8s_nodes_clear(&nodes);

    /* The same Thor node on amd64 is a PTX-JIT node. */
    parse_ok("[{\"metadata\": {\"name\": \"thor\", \"labels\": "
             "{\"nvidia.com/gpu.compute.major\": \"11\", \"nvidia.com/gpu.compute.minor\": "
             "\"0\", \"nvidia.com/cuda.runtime-version.full\": \"13.0\", "
             "\"kubernetes.io/arch\": \"amd64\"}}}]",
             &nodes);
    ck_assert_int_eq(pt2_k8s_compat_json(pkg, &nodes, &doc, &err), PT2_OK);
    n0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "nodes"), 0);
    ck_assert_str_eq(str_at(n0, "verdict"), "compatible-ptx-jit");
    ck_assert_str_eq(str_at(n0, "reason"), "no cubin for 11.0; compute_90 PTX can be JIT-compiled "
                                           "for compute capability 11.0");
    ck_assert(num_at(cJSON_GetObjectItemCaseSensitive(doc, "summary"), "compatible-ptx-jit") == 1);
    cJSON_Delete(doc);
    pt2_k8s_nodes_clear(&nodes);

    /* No nodes at all. */
    parse_ok("[]", &nodes);
    ck_assert_int_eq(pt2_k8s_compat_json(pkg, &nodes, &doc, &err), PT2_OK);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "nodes")), 0);
    ck_assert(num_at(cJSON_GetObjectItemCaseSensitive(doc, "summary"), "total") == 0);
    cJSON_Delete(doc);
    pt2_package_free(pkg);
}
END_TEST

START_TEST(test_compat_json_at_the_cap)
{
    struct pt2_k8s_nodes nodes;
    struct pt2_error err = {0};
    pt2_package *pkg = open_fixture("cuda_sm90a_v8.pt2");
    char *t = many_nodes(PT2_K8S_NODES_MAX);
    const cJSON *sum;
    cJSON *doc = NULL;

    parse_ok(t, &nodes);
    ck_assert_uint_eq(nodes.n, PT2_K8S_NODES_MAX);
    ck_assert_int_eq(pt2_k8s_compat_json(pkg, &nodes, &doc, &err), PT2_OK);
    sum = cJSON_GetObjectItemCaseSensitive(doc, "summary");
    ck_assert(num_at(sum, "total") == PT2_K8S_NODES_MAX);
    /* No driver labels: the driver is assumed new enough. */
    ck_assert(num_at(sum, "compatible") == PT2_K8S_NODES_MAX);
    cJSON_Delete(doc);
    pt2_k8s_nodes_clear(&nodes);
    pt2_package_free(pkg);
    free(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("k8s");
    TCase *parse = tcase_create("parse");
    TCase *bad = tcase_create("malformed");
    TCase *verdict = tcase_create("verdict");

    tcase_add_test(parse, test_node_list_fields);
    tcase_add_test(parse, test_array_and_single_node);
    tcase_add_test(parse, test_empty_lists);
    tcase_add_test(parse, test_product_gives_cc_without_compute_labels);
    tcase_add_test(parse, test_compute_labels_win_over_product);
    tcase_add_test(parse, test_unknown_product_is_gpu_without_cc);
    tcase_add_test(parse, test_count_zero_means_no_gpu);
    tcase_add_test(parse, test_malformed_labels_are_noted);
    tcase_add_test(parse, test_half_a_pair_is_noted);
    tcase_add_test(parse, test_non_string_label_and_labels);
    tcase_add_test(parse, test_long_bad_value_is_cut_in_note);
    tcase_add_test(parse, test_driver_labels);
    tcase_add_test(parse, test_driver_branch_table);
    tcase_add_test(parse, test_arch_sources_and_map);
    tcase_add_test(parse, test_nfd_labels);
    suite_add_tcase(s, parse);

    tcase_add_test(bad, test_bad_documents);
    tcase_add_test(bad, test_long_name);
    tcase_add_test(bad, test_node_cap);
    tcase_add_test(bad, test_text_cap_and_null_arguments);
    tcase_set_timeout(bad, 30);
    suite_add_tcase(s, bad);

    tcase_add_test(verdict, test_cuda_package_on_three_nodes);
    tcase_add_test(verdict, test_cuda_package_on_h100_with_cuda13);
    tcase_add_test(verdict, test_cpu_package_on_three_nodes);
    tcase_add_test(verdict, test_unknown_gpu_verdicts);
    tcase_add_test(verdict, test_windows_and_unknown_arch);
    tcase_add_test(verdict, test_nfd_verdicts);
    tcase_add_test(verdict, test_nfd_compat_json);
    tcase_add_test(verdict, test_check_null_arguments);
    tcase_add_test(verdict, test_compat_json_document);
    tcase_add_test(verdict, test_compat_json_nulls_and_ptx_summary);
    tcase_add_test(verdict, test_compat_json_at_the_cap);
    tcase_set_timeout(verdict, 30);
    suite_add_tcase(s, verdict);
    return tu_run_suite(s);
}
