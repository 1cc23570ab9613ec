/*
 * test_verdicts.c - the one node rule and the compatibility answer: what a
 * package needs, device JSON, targets, this node through stand-ins (the fake
 * libcuda, a stand-in KFD topology, no driver at all), and the overall.
 *
 * The fake driver reads its environment once per process; Check forks each
 * test (CK_FORK), so each test describes its own node.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_compat.h"
#include "pt2_target.h"
#include "pt2_desc.h"
#include "pt2_verdicts.h"
#include "testutil.h"

#define MI250 "tests/fixtures/sysfs/mi250x2"
#define H100 "NVIDIA H100 80GB HBM3,9.0,132,85899345920"
#define NO_DRIVER "/nonexistent/pt2scope/libcuda.so.1"
/* The advice for sm_90a-only kernels on 8.0. */
#define A80                                                                                        \
    "Rebuild with TORCH_CUDA_ARCH_LIST=\"8.0;9.0a\" (or \"8.0+PTX;9.0a\", adding PTX for "         \
    "forward compatibility) and aot_inductor.emit_multi_arch_kernel=True, so the package carries " \
    "code for 8.0."

static pt2_package *open_fixture(const char *name)
{
    struct pt2_error err = {0};
    pt2_package *pkg = NULL;
    char p[256];

    ck_assert_int_eq(pt2_package_open_path(&pkg, tu_fixture(name, p, sizeof(p)), NULL, &err),
                     PT2_OK);
    return pkg;
}

/* This node as a test describes it: fake NVIDIA devices ("" = none, NULL = no driver) and
 * a sysfs root (NULL = none). */
static pt2_node *stand_in_node(const char *nvidia, const char *sysfs)
{
    struct pt2_node_options o = {NULL, sysfs != NULL ? sysfs : "/nonexistent/pt2scope", "n1"};
    struct pt2_error err = {0};
    char lib[512];
    pt2_node *node = NULL;

    if (nvidia != NULL) {
        snprintf(lib, sizeof(lib), "%s/fakecuda/libcuda.so.1", tu_build_dir());
        setenv("PT2SCOPE_FAKECUDA_DEVICES", nvidia, 1);
        setenv("PT2SCOPE_FAKECUDA_DRIVER", "13000", 1);
        o.libcuda = lib;
    } else {
        o.libcuda = NO_DRIVER;
    }
    ck_assert_int_eq(pt2_node_probe(&node, &o, &err), PT2_OK);
    return node;
}

/* The answer for `pkg` on `node` (device may be NULL) as JSON; the caller deletes it. */
static cJSON *answer(const pt2_package *pkg, const pt2_node *node, const char *device)
{
    struct pt2_error err = {0};
    pt2_verdicts *v = NULL;
    cJSON *doc = NULL;

    ck_assert_int_eq(pt2_verdicts_new(&v, &err), PT2_OK);
    ck_assert_int_eq(pt2_verdicts_add_node(v, pkg, node, device, 0, &err), PT2_OK);
    ck_assert_int_eq(pt2_verdicts_to_json(v, &doc, &err), PT2_OK);
    pt2_verdicts_free(v);
    return doc;
}

static const char *overall(const cJSON *doc, const char *what)
{
    return pt2_json_str(cJSON_GetObjectItemCaseSensitive(doc, "overall"), what);
}

static const char *entry(const cJSON *doc, int i, const char *what)
{
    return pt2_json_str(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "compatibility"), i), what);
}

static int entries(const cJSON *doc)
{
    return cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "compatibility"));
}

START_TEST(test_need)
{
    static const struct {
        const char *fixture;
        unsigned need;
        const char *what;
    } cases[] = {
        {"cuda_sm90a_v8.pt2", PT2_NEED_NVIDIA, "an NVIDIA GPU (sm_90a)"},
        {"rocm_gfx90a.pt2", PT2_NEED_AMD, "an AMD GPU (gfx90a)"},
        {"xpu_spv.pt2", PT2_NEED_OTHER, "an xpu device"},
        {"cpu_x86_64.pt2", 0, ""},
        {"export_program.pt2", 0, ""},
    };
    char what[256];
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        pt2_package *pkg = open_fixture(cases[i].fixture);
        ck_assert_uint_eq(pt2_verdicts_need(pkg, what, sizeof(what)), cases[i].need);
        ck_assert_str_eq(what, cases[i].what);
        pt2_package_free(pkg);
    }
}
END_TEST

START_TEST(test_device_json)
{
    struct pt2_device d = {9, 0, 12040, "NVIDIA H100", "", "linux/arm64"};
    struct pt2_device amd = {0, 0, 0, "MI250", "gfx90a", ""};
    char *s;
    cJSON *j;

    j = pt2_target_json(&d);
    s = cJSON_PrintUnformatted(j);
    ck_assert_str_eq(s, "{\"name\":\"NVIDIA H100\",\"compute_capability\":\"9.0\",\"gfx\":null,"
                        "\"driver_cuda_version\":12040,\"platform\":\"linux/arm64\"}");
    free(s);
    cJSON_Delete(j);
    j = pt2_target_device_json(&amd);
    s = cJSON_PrintUnformatted(j);
    ck_assert_str_eq(s, "{\"name\":\"MI250\",\"compute_capability\":null,\"gfx\":\"gfx90a\","
                        "\"driver_cuda_version\":null}");
    free(s);
    cJSON_Delete(j);
}
END_TEST

/* The rule on its own: best needed GPU, missing kind named, worse of GPU and CPU wins. */
START_TEST(test_node_rule)
{
    pt2_package *cuda = open_fixture("cuda_sm90a_v8.pt2"),
                *cpu_only = open_fixture("cpu_x86_64.pt2");
    struct pt2_verdict_result ok = {PT2_COMPATIBLE, "fits", "", "compatible", 0, "", 0},
                              bad = {PT2_INCOMPATIBLE, "no AVX", "Use AVX2.", "cpu-isa", 0, "", 0};
    struct pt2_gpu_check g[3] = {
        {PT2_VENDOR_NVIDIA,
         "cuda:0",
         {PT2_INCOMPATIBLE, "is 8.0", "Rebuild for 8.0.", "arch-mismatch", 0, "", 0}},
        {PT2_VENDOR_NVIDIA, "cuda:1", {PT2_COMPATIBLE, "runs", "", "compatible", 0, "", 0}},
        {PT2_VENDOR_AMD,
         "rocm:0",
         {PT2_INCOMPATIBLE, "is gfx90a", "Rebuild for gfx90a.", "arch-mismatch", 0, "", 0}},
    };
    struct pt2_verdict_result part, out;

    pt2_verdicts_node_rule(cuda, g, 3, "no driver", &ok, &part, &out);
    ck_assert_int_eq(out.verdict, PT2_COMPATIBLE);
    ck_assert_str_eq(part.reason, "cuda:1: runs");
    ck_assert_str_eq(out.reason, "cuda:1: runs; cpu: fits");
    ck_assert_str_eq(out.advice, "");
    pt2_verdicts_node_rule(cuda, g, 3, "no driver", &bad, &part, &out);
    ck_assert_int_eq(out.verdict, PT2_INCOMPATIBLE);
    ck_assert_str_eq(out.reason, "cpu: no AVX");
    ck_assert_str_eq(out.advice, "Use AVX2.");
    pt2_verdicts_node_rule(cuda, g, 1, "no driver", &ok, &part, &out);
    ck_assert_int_eq(out.verdict, PT2_INCOMPATIBLE);
    ck_assert_str_eq(out.reason, "cuda:0: is 8.0");
    ck_assert_str_eq(out.advice, "Rebuild for 8.0.");
    /* Both sides refuse: both fixes are needed, GPU first. */
    pt2_verdicts_node_rule(cuda, g, 1, "no driver", &bad, &part, &out);
    ck_assert_str_eq(out.reason, "cuda:0: is 8.0; cpu: no AVX");
    ck_assert_str_eq(out.advice, "Rebuild for 8.0. Use AVX2.");
    /* Only GPUs of another kind, or none at all. */
    pt2_verdicts_node_rule(cuda, g + 2, 1, "no driver", &ok, &part, &out);
    ck_assert_int_eq(out.verdict, PT2_INCOMPATIBLE);
    ck_assert_str_eq(out.reason, "the package needs an NVIDIA GPU (sm_90a); this node has none "
                                 "(its GPU: AMD rocm:0)");
    ck_assert_str_eq(out.advice, "Run it on a node with an NVIDIA GPU (sm_90a); `pt2scope "
                                 "affinity FILE` prints a Kubernetes nodeAffinity that selects "
                                 "such nodes.");
    ck_assert_str_eq(part.advice, out.advice);
    pt2_verdicts_node_rule(cuda, NULL, 0, "no driver", &ok, &part, &out);
    ck_assert_str_eq(out.reason,
                     "the package needs an NVIDIA GPU (sm_90a); this node has none: no driver");
    /* A CPU-only package: the CPU decides, whatever the GPUs say. */
    pt2_verdicts_node_rule(cpu_only, g, 1, NULL, &ok, &part, &out);
    ck_assert_int_eq(out.verdict, PT2_COMPATIBLE);
    ck_assert_str_eq(out.reason, "cpu: fits");
    ck_assert_str_eq(out.advice, "");
    ck_assert_str_eq(part.reason, "the package needs no GPU");
    pt2_verdicts_node_rule(cpu_only, g, 1, NULL, &bad, &part, &out);
    ck_assert_str_eq(out.advice, "Use AVX2.");
    pt2_package_free(cuda);
    pt2_package_free(cpu_only);
}
END_TEST

START_TEST(test_no_gpu_node)
{
    pt2_package *pkg = open_fixture("cuda_sm90a_v8.pt2");
    pt2_node *node = stand_in_node(NULL, NULL);
    cJSON *doc = answer(pkg, node, NULL);

    /* The reported bug: one "cpu: compatible" entry and nothing else said. */
    ck_assert_int_eq(entries(doc), 1);
    ck_assert_str_eq(entry(doc, 0, "kind"), "cpu");
    ck_assert_str_eq(overall(doc, "verdict"), "incompatible");
    ck_assert_str_eq(overall(doc, "reason"),
                     "the package needs an NVIDIA GPU (sm_90a); this node has none: no NVIDIA "
                     "driver installed (" NO_DRIVER " not found)");
    ck_assert_str_eq(overall(doc, "advice"),
                     "Run it on a node with an NVIDIA GPU (sm_90a); `pt2scope affinity FILE` "
                     "prints a Kubernetes nodeAffinity that selects such nodes.");
    cJSON_Delete(doc);
    pt2_node_free(node);
    pt2_package_free(pkg);
}
END_TEST

START_TEST(test_nvidia_node)
{
    pt2_package *pkg = open_fixture("cuda_sm90a_v8.pt2");
    pt2_node *node = stand_in_node(H100 ";NVIDIA A100-SXM4-80GB,8.0,108,85899345920", NULL);
    cJSON *doc = answer(pkg, node, NULL);
    const cJSON *dev;

    ck_assert_int_eq(entries(doc), 3);
    ck_assert_str_eq(entry(doc, 0, "target"), "cuda:0");
    ck_assert_str_eq(entry(doc, 0, "verdict"), "compatible");
    ck_assert_str_eq(entry(doc, 1, "target"), "cuda:1");
    ck_assert_str_eq(entry(doc, 1, "verdict"), "incompatible");
    ck_assert_str_eq(entry(doc, 2, "target"), "cpu");
    dev = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "compatibility"), 0), "device");
    ck_assert_str_eq(pt2_json_str(dev, "name"), "NVIDIA H100 80GB HBM3");
    ck_assert_str_eq(pt2_json_str(dev, "uuid"), "GPU-a0102030-4050-6070-8090-a0b0c0d0e0f0");
    /* The best GPU speaks for the node. */
    ck_assert_str_eq(overall(doc, "verdict"), entry(doc, 2, "verdict"));
    ck_assert(strncmp(overall(doc, "reason"), "cuda:0: sm_90a cubin runs on NVIDIA H100", 40) == 0);
    cJSON_Delete(doc);
    /* device=cuda:1 keeps that GPU alone, as torch's own check would. */
    doc = answer(pkg, node, "cuda:1");
    ck_assert_int_eq(entries(doc), 2);
    ck_assert_str_eq(entry(doc, 0, "target"), "cuda:1");
    ck_assert_str_eq(overall(doc, "verdict"), "incompatible");
    ck_assert_str_eq(overall(doc, "reason"), "cuda:1: kernels are sm_90a only; NVIDIA "
                                             "A100-SXM4-80GB (cuda:1) is 8.0");
    ck_assert_str_eq(overall(doc, "advice"), A80);
    ck_assert_str_eq(entry(doc, 0, "advice"), A80);
    cJSON_Delete(doc);
    pt2_node_free(node);
    pt2_package_free(pkg);
}
END_TEST

START_TEST(test_amd_node)
{
    pt2_package *rocm = open_fixture("rocm_gfx90a.pt2"), *cuda = open_fixture("cuda_sm90a_v8.pt2");
    pt2_node *node = stand_in_node(NULL, MI250);
    struct pt2_error err = {0};
    pt2_verdicts *v = NULL;
    cJSON *doc = answer(rocm, node, NULL);

    ck_assert_int_eq(entries(doc), 3);
    ck_assert_str_eq(entry(doc, 0, "target"), "rocm:0");
    ck_assert_str_eq(entry(doc, 0, "verdict"), "compatible");
    ck_assert_str_eq(entry(doc, 0, "reason"), "gfx90a:xnack- code object runs on AMD Instinct "
                                              "MI210/MI250/MI250X (CDNA2) (rocm:0)");
    ck_assert_str_eq(entry(doc, 1, "target"), "rocm:1");
    ck_assert_str_eq(overall(doc, "verdict"), entry(doc, 2, "verdict"));
    cJSON_Delete(doc);
    /* cuda:1 on a node with AMD GPUs only is AMD GPU 1, as torch on ROCm numbers it. */
    doc = answer(rocm, node, "cuda:1");
    ck_assert_int_eq(entries(doc), 2);
    ck_assert_str_eq(entry(doc, 0, "target"), "rocm:1");
    cJSON_Delete(doc);
    doc = answer(cuda, node, NULL);
    ck_assert_str_eq(overall(doc, "verdict"), "incompatible");
    ck_assert_str_eq(overall(doc, "reason"), "the package needs an NVIDIA GPU (sm_90a); this node "
                                             "has none (its GPUs: AMD rocm:0, rocm:1)");
    cJSON_Delete(doc);
    /* A GPU the node does not have is not found; a bad spelling is a bad request. */
    ck_assert_int_eq(pt2_verdicts_new(&v, &err), PT2_OK);
    ck_assert_int_eq(pt2_verdicts_add_node(v, rocm, node, "rocm:2", 0, &err), PT2_ERR_NOT_FOUND);
    ck_assert_str_eq(err.message, "device rocm:2 not found: 2 AMD devices visible");
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_verdicts_add_node(v, rocm, node, "gpu0", 0, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "invalid device 'gpu0': expected cuda, cuda:N, N or rocm:N");
    ck_assert_int_eq(pt2_device_check("rocm:3", NULL), PT2_OK);
    ck_assert_int_eq(pt2_device_check("cuda:-1", NULL), PT2_ERR_INVALID);
    pt2_verdicts_free(v);
    pt2_node_free(node);
    pt2_package_free(rocm);
    pt2_package_free(cuda);
}
END_TEST

/* With targets, the overall is the worst target's; the node is not asked (and a device
 * with targets is a contradiction). */
START_TEST(test_targets_overall)
{
    pt2_package *pkg = open_fixture("cuda_sm90a_v8.pt2");
    pt2_node *node = stand_in_node(NULL, NULL);
    struct pt2_error err = {0};
    struct pt2_device h100, a100;
    struct pt2_verdict_result r;
    pt2_verdicts *v = NULL;
    cJSON *doc = NULL;

    ck_assert_int_eq(pt2_verdicts_new(&v, &err), PT2_OK);
    ck_assert_int_eq(pt2_verdicts_overall(v, &r, &err), PT2_ERR_INVALID);
    ck_assert_int_eq(pt2_verdicts_to_json(v, &doc, NULL), PT2_ERR_INVALID);
    ck_assert_int_eq(pt2_target_parse("H100", &h100, &err), PT2_OK);
    ck_assert_int_eq(pt2_target_parse("8.0", &a100, &err), PT2_OK);
    ck_assert_int_eq(pt2_verdicts_add_target(v, pkg, "H100", &h100, &err), PT2_OK);
    ck_assert_int_eq(pt2_verdicts_overall(v, &r, &err), PT2_OK);
    ck_assert_int_eq(r.verdict, PT2_COMPATIBLE);
    ck_assert_int_eq(pt2_verdicts_add_target(v, pkg, "8.0", &a100, &err), PT2_OK);
    ck_assert_int_eq(pt2_verdicts_add_target(v, pkg, "8.0 again", &a100, &err), PT2_OK);
    ck_assert_int_eq(pt2_verdicts_add_node(v, pkg, node, NULL, 0, &err), PT2_OK);
    memset(&err, 0, sizeof(err));
    ck_assert_int_eq(pt2_verdicts_add_node(v, pkg, node, "cuda:0", 0, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "a device picks one of this node's GPUs and a target names "
                                  "other GPUs: give one or the other");
    ck_assert_int_eq(pt2_verdicts_overall(v, &r, &err), PT2_OK);
    ck_assert_int_eq(r.verdict, PT2_INCOMPATIBLE);
    ck_assert_str_eq(r.reason,
                     "8.0: kernels are sm_90a only; the target is compute capability 8.0");
    ck_assert_str_eq(r.advice, A80);
    ck_assert_int_eq(pt2_verdicts_to_json(v, &doc, &err), PT2_OK);
    ck_assert_int_eq(entries(doc), 3);
    ck_assert_str_eq(entry(doc, 0, "kind"), "target");
    ck_assert_str_eq(entry(doc, 2, "kind"), "target");
    ck_assert_str_eq(overall(doc, "reason"), r.reason);
    /* Advice: null where the verdict is compatible, the same text everywhere else. */
    ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "compatibility"), 0), "advice")));
    ck_assert_str_eq(entry(doc, 1, "advice"), A80);
    ck_assert_str_eq(entry(doc, 2, "advice"), A80);
    ck_assert_str_eq(overall(doc, "advice"), A80);
    cJSON_Delete(doc);
    pt2_verdicts_free(v);
    pt2_node_free(node);
    pt2_package_free(pkg);
}
END_TEST

/* A GPU target is a Linux amd64/arm64 node: the host library must load there too. */
static void target_verdict(const char *fixture, const char *verdict, const char *reason)
{
    struct pt2_error err = {0};
    pt2_package *pkg = open_fixture(fixture);
    struct pt2_device dev;
    pt2_verdicts *v = NULL;
    cJSON *doc = NULL, *e;

    ck_assert_int_eq(pt2_target_parse("H100", &dev, &err), PT2_OK);
    ck_assert_int_eq(pt2_verdicts_new(&v, &err), PT2_OK);
    ck_assert_int_eq(pt2_verdicts_add_target(v, pkg, "H100", &dev, &err), PT2_OK);
    ck_assert_int_eq(pt2_verdicts_to_json(v, &doc, &err), PT2_OK);
    e = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "compatibility"), 0);
    ck_assert_str_eq(pt2_json_str(e, "verdict"), verdict);
    ck_assert_str_eq(pt2_json_str(e, "reason"), reason);
    ck_assert_int_eq(cJSON_IsNull(cJSON_GetObjectItem(e, "advice")),
                     strcmp(verdict, "compatible") == 0);
    cJSON_Delete(doc);
    pt2_verdicts_free(v);
    pt2_package_free(pkg);
}

START_TEST(test_target_needs_a_loadable_library)
{
    target_verdict("cpu_s390x.pt2", "incompatible",
                   "the model library "
                   "data/aotinductor/model/cqhpbbtkcjs2gag5a2ir37crt7cjs5vsxsg7n6u7sw2f4ghgnsbs"
                   ".wrapper.so is a Linux s390x library; a node with NVIDIA H100 runs Linux on "
                   "amd64 or arm64");
    target_verdict("cpu_aarch64.pt2", "compatible",
                   "CPU-only package (AOTI_DEVICE_KEY cpu): runs on the host CPU, needs no GPU; "
                   "compatible if the node's CPU has asimd (a target names no CPU)");
    target_verdict("cpu_x86_64.pt2", "compatible",
                   "CPU-only package (AOTI_DEVICE_KEY cpu): runs on the host CPU, needs no GPU; "
                   "compatible if the node's CPU has avx512f, avx512dq, avx512vl, avx512bw, fma "
                   "(a target names no CPU)");
}
END_TEST

START_TEST(test_target_macos_library)
{
    char path[512];
    struct pt2_error err = {0};
    pt2_package *pkg = NULL;
    struct pt2_device dev;
    pt2_verdicts *v = NULL;
    struct pt2_verdict_result r;

    if (tu_shared("corpus/pt2/executorch__preprocess_2025-05-23.pt2", path, sizeof(path)) == NULL) {
        tu_skip("verdicts macOS library", "shared corpus absent");
        return;
    }
    ck_assert_int_eq(pt2_package_open_path(&pkg, path, NULL, &err), PT2_OK);
    ck_assert_int_eq(pt2_target_parse("H100", &dev, &err), PT2_OK);
    ck_assert_int_eq(pt2_verdicts_new(&v, &err), PT2_OK);
    ck_assert_int_eq(pt2_verdicts_add_target(v, pkg, "H100", &dev, &err), PT2_OK);
    ck_assert_int_eq(pt2_verdicts_overall(v, &r, &err), PT2_OK);
    ck_assert_int_eq(r.verdict, PT2_INCOMPATIBLE);
    ck_assert_str_eq(r.reason,
                     "H100: the model library "
                     "data/aotinductor/model/cw6i5kuukokhhl6upvnmncq5t6nnmtdfhtfxo46vzc7t46zchepo."
                     "wrapper.so is a macOS arm64 dylib; a node with NVIDIA H100 runs Linux on "
                     "amd64 or arm64");
    ck_assert_str_eq(r.advice, "Re-export the package on Linux (amd64 or arm64) with the torch you "
                               "serve with: AOTInductor compiles for the platform it runs on.");
    pt2_verdicts_free(v);
    pt2_package_free(pkg);
}
END_TEST

/* --platform: the node's OS and architecture decide which host library loads. */
static void platform_verdict(const char *platform, const char *code, const char *reason)
{
    struct pt2_error err = {0};
    pt2_package *pkg = open_fixture("cuda_sm90a_v8.pt2");
    struct pt2_device dev;
    pt2_verdicts *v = NULL;
    struct pt2_verdict_result r;

    ck_assert_int_eq(pt2_target_parse("H100", &dev, &err), PT2_OK);
    dev.driver_cuda_version = 13000;
    ck_assert_int_eq(pt2_platform_parse(platform, &dev, &err), PT2_OK);
    ck_assert_str_eq(dev.platform, platform);
    ck_assert_int_eq(pt2_verdicts_new(&v, &err), PT2_OK);
    ck_assert_int_eq(pt2_verdicts_add_target(v, pkg, "H100", &dev, &err), PT2_OK);
    ck_assert_int_eq(pt2_verdicts_overall(v, &r, &err), PT2_OK);
    ck_assert_str_eq(r.code, code);
    ck_assert_str_eq(r.reason, reason);
    pt2_verdicts_free(v);
    pt2_package_free(pkg);
}

#define SM90A_LIB                                                                                  \
    "the model library "                                                                           \
    "data/aotinductor/model/czqbiwbc5ruvbr4zkawxjx7advwcp5f3dw36ortm6fg3dzsvbmy3.wrapper.so"

START_TEST(test_target_platform)
{
    struct pt2_device dev;
    struct pt2_error err = {0};

    platform_verdict("linux/amd64", "compatible",
                     "H100: sm_90a cubin runs on NVIDIA H100; compatible if the node's CPU has "
                     "avx512f, avx512dq, avx512vl, avx512bw, fma (a target names no CPU)");
    platform_verdict("linux/arm64", "host-platform",
                     "H100: " SM90A_LIB " is a Linux x86_64 library; a node with NVIDIA H100 "
                     "runs Linux on arm64");
    platform_verdict("windows/amd64", "host-platform",
                     "H100: " SM90A_LIB " is a Linux x86_64 library; a node with NVIDIA H100 "
                     "runs Windows on amd64");
    memset(&dev, 0, sizeof(dev));
    ck_assert_int_eq(pt2_platform_parse("darwin/arm64", &dev, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "unknown platform 'darwin/arm64': use linux/amd64, "
                                  "linux/arm64 or windows/amd64");
    ck_assert_str_eq(dev.platform, "");
    ck_assert_int_eq(pt2_platform_parse("Linux/AMD64", &dev, &err), PT2_ERR_INVALID);
}
END_TEST

/* A target's requires carries what its library needs of the node's runtime too (the
 * corpus' real Linux library: its glibc, libstdc++, C++ ABI and torch shim floors). */
START_TEST(test_target_runtime_floors)
{
    char path[512];
    struct pt2_error err = {0};
    pt2_package *pkg = NULL;
    struct pt2_device dev;
    pt2_verdicts *v = NULL;
    cJSON *doc = NULL;
    char *s;

    if (tu_shared("corpus/pt2/mlcolvar__descriptor_based_inputs_model.pt2", path, sizeof(path)) ==
        NULL) {
        tu_skip("verdicts runtime floors", "shared corpus absent");
        return;
    }
    ck_assert_int_eq(pt2_package_open_path(&pkg, path, NULL, &err), PT2_OK);
    ck_assert_int_eq(pt2_target_parse("H100", &dev, &err), PT2_OK);
    ck_assert_int_eq(pt2_verdicts_new(&v, &err), PT2_OK);
    ck_assert_int_eq(pt2_verdicts_add_target(v, pkg, "H100", &dev, &err), PT2_OK);
    ck_assert_int_eq(pt2_verdicts_to_json(v, &doc, &err), PT2_OK);
    s = cJSON_PrintUnformatted(cJSON_GetObjectItem(
        cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "compatibility"), 0), "requires"));
    ck_assert_str_eq(s, "{\"cpu_features\":[\"avx512f\",\"avx512dq\",\"avx512vl\",\"avx512bw\","
                        "\"fma\"],\"glibc\":\"2.27\",\"glibcxx\":\"3.4.30\",\"cxxabi\":\"1.3.9\","
                        "\"torch\":\"2.7\"}");
    free(s);
    cJSON_Delete(doc);
    pt2_verdicts_free(v);
    pt2_package_free(pkg);
}
END_TEST

/* Every entry carries a code from the fixed set, what it requires as data, and what the
 * target does not settle; --strict turns each unsettled requirement into incompatible. */
static cJSON *one_target(const char *fixture, const char *target, int driver, int strict)
{
    struct pt2_error err = {0};
    pt2_package *pkg = open_fixture(fixture);
    struct pt2_device dev;
    pt2_verdicts *v = NULL;
    cJSON *doc = NULL;

    ck_assert_int_eq(pt2_target_parse(target, &dev, &err), PT2_OK);
    dev.driver_cuda_version = driver;
    ck_assert_int_eq(pt2_verdicts_new(&v, &err), PT2_OK);
    pt2_verdicts_set_strict(v, strict);
    ck_assert_int_eq(pt2_verdicts_add_target(v, pkg, target, &dev, &err), PT2_OK);
    ck_assert_int_eq(pt2_verdicts_to_json(v, &doc, &err), PT2_OK);
    pt2_verdicts_free(v);
    pt2_package_free(pkg);
    return doc;
}

static void assert_entry(cJSON *doc, const char *verdict, const char *code, const char *driver,
                         const char *branch, int n_unverified)
{
    cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "compatibility"), 0);
    cJSON *req = cJSON_GetObjectItem(e, "requires");

    ck_assert_str_eq(pt2_json_str(e, "verdict"), verdict);
    ck_assert_str_eq(pt2_json_str(e, "code"), code);
    ck_assert_str_eq(pt2_json_str(cJSON_GetObjectItem(doc, "overall"), "code"), code);
    if (driver != NULL) {
        ck_assert_str_eq(pt2_json_str(req, "cuda_driver"), driver);
        ck_assert_str_eq(pt2_json_str(req, "driver_branch"), branch);
    } else {
        ck_assert_ptr_null(cJSON_GetObjectItem(req, "cuda_driver"));
    }
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(e, "unverified")), n_unverified);
    cJSON_Delete(doc);
}

START_TEST(test_codes_requires_strict)
{
    /* a CUDA 13 cubin on its GPU: compatible if the driver is 13.0+ and the node's CPU has
     * AVX-512, neither of which the target says (unverified: cuda_driver, cpu_features) */
    assert_entry(one_target("cuda_sm90a_v8.pt2", "H100", 0, 0), "compatible", "compatible", "13.0",
                 "580", 2);
    assert_entry(one_target("cuda_sm90a_v8.pt2", "H100", 0, 1), "incompatible", "driver-unknown",
                 "13.0", "580", 2);
    /* the driver given, the CPU still unknown: strict says so */
    assert_entry(one_target("cuda_sm90a_v8.pt2", "H100", 13000, 1), "incompatible", "cpu-unknown",
                 "13.0", "580", 1);
    assert_entry(one_target("cuda_sm90a_v8.pt2", "H100", 13000, 0), "compatible", "compatible",
                 "13.0", "580", 1);
    assert_entry(one_target("cuda_sm90a_v8.pt2", "H100", 12040, 0), "incompatible",
                 "driver-too-old", "13.0", "580", 1);
    assert_entry(one_target("cuda_sm90a_v8.pt2", "A100", 0, 0), "incompatible", "arch-mismatch",
                 NULL, NULL, 1);
    /* the library cannot load there: no CPU requirement is stated */
    assert_entry(one_target("cpu_s390x.pt2", "H100", 0, 0), "incompatible", "host-platform", NULL,
                 NULL, 0);
    assert_entry(one_target("rocm_gfx90a.pt2", "H100", 0, 0), "incompatible", "arch-mismatch", NULL,
                 NULL, 1);
    assert_entry(one_target("rocm_gfx90a.pt2", "gfx90a", 0, 0), "compatible", "compatible", NULL,
                 NULL, 1);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("verdicts");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_need);
    tcase_add_test(tc, test_device_json);
    tcase_add_test(tc, test_node_rule);
    tcase_add_test(tc, test_no_gpu_node);
    tcase_add_test(tc, test_nvidia_node);
    tcase_add_test(tc, test_amd_node);
    tcase_add_test(tc, test_targets_overall);
    tcase_add_test(tc, test_target_needs_a_loadable_library);
    tcase_add_test(tc, test_target_macos_library);
    tcase_add_test(tc, test_target_platform);
    tcase_add_test(tc, test_target_runtime_floors);
    tcase_add_test(tc, test_codes_requires_strict);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run_suite(suite());
}
