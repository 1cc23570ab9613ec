/*
 * k8ssel.c - a nodeSelectorTerms evaluator and a synthetic GFD cluster (see
 * k8ssel.h). Test code: the evaluator follows the Kubernetes API text, not
 * the library, so the two can disagree and the tests notice.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "k8ssel.h"

/* ---- the evaluator ---------------------------------------------------------------- */

static int fail(char *why, size_t len, const char *fmt, ...)
{
    va_list ap;

    if (why != NULL && len > 0) {
        va_start(ap, fmt);
        vsnprintf(why, len, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Go's strconv.ParseInt(s, 10, 64), for the values Kubernetes compares. */
static int parse_i64(const char *s, int64_t *out)
{
    int neg = 0;
    uint64_t v = 0;
    size_t i = 0;

    if (s[0] == '+' || s[0] == '-') {
        neg = s[0] == '-';
        i = 1;
    }
    if (s[i] == '\0')
        return 0;
    for (; s[i] != '\0'; i++) {
        if (s[i] < '0' || s[i] > '9' || v > (UINT64_MAX - 9) / 10)
            return 0;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v > (uint64_t)INT64_MAX + (uint64_t)neg)
        return 0;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 1;
}

static const char *label(const cJSON *labels, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(labels, key);

    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* One requirement: 1 / 0, or -1 when malformed. */
static int requirement(const cJSON *r, const cJSON *labels, char *why, size_t len)
{
    const cJSON *key = cJSON_GetObjectItemCaseSensitive(r, "key");
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(r, "operator");
    const cJSON *vals = cJSON_GetObjectItemCaseSensitive(r, "values"), *v;
    const char *have;
    int nvals = 0;
    int64_t a, b;

    if (!cJSON_IsString(key) || key->valuestring[0] == '\0' || !cJSON_IsString(op))
        return fail(why, len, "a requirement without a key or operator");
    if (vals != NULL && !cJSON_IsArray(vals))
        return fail(why, len, "%s: values is not an array", key->valuestring);
    cJSON_ArrayForEach(v, vals)
    {
        if (!cJSON_IsString(v))
            return fail(why, len, "%s: a value is not a string", key->valuestring);
        nvals++;
    }
    have = label(labels, key->valuestring);
    if (strcmp(op->valuestring, "In") == 0 || strcmp(op->valuestring, "NotIn") == 0) {
        int found = 0;

        if (nvals == 0)
            return fail(why, len, "%s %s without values", key->valuestring, op->valuestring);
        cJSON_ArrayForEach(v, vals) found |= have != NULL && strcmp(v->valuestring, have) == 0;
        return op->valuestring[0] == 'I' ? found : !found;
    }
    if (strcmp(op->valuestring, "Exists") == 0 || strcmp(op->valuestring, "DoesNotExist") == 0) {
        if (nvals != 0)
            return fail(why, len, "%s %s with values", key->valuestring, op->valuestring);
        return op->valuestring[0] == 'E' ? have != NULL : have == NULL;
    }
    if (strcmp(op->valuestring, "Gt") == 0 || strcmp(op->valuestring, "Lt") == 0) {
        if (nvals != 1 || !parse_i64(vals->child->valuestring, &b))
            return fail(why, len, "%s %s needs one integer value", key->valuestring,
                        op->valuestring);
        if (have == NULL || !parse_i64(have, &a))
            return 0;
        return op->valuestring[0] == 'G' ? a > b : a < b;
    }
    return fail(why, len, "%s: unknown operator '%s'", key->valuestring, op->valuestring);
}

int ks_selects(const cJSON *affinity, const cJSON *labels, char *why, size_t len)
{
    const cJSON *req = cJSON_GetObjectItemCaseSensitive(
        affinity, "requiredDuringSchedulingIgnoredDuringExecution");
    const cJSON *terms = cJSON_GetObjectItemCaseSensitive(req, "nodeSelectorTerms"), *t, *r;
    int any = 0, n = 0;

    if (!cJSON_IsArray(terms) || terms->child == NULL)
        return fail(why, len, "no nodeSelectorTerms");
    cJSON_ArrayForEach(t, terms)
    {
        const cJSON *exprs = cJSON_GetObjectItemCaseSensitive(t, "matchExpressions");
        int all = 1, nexpr = 0, m;

        n++;
        if (!cJSON_IsObject(t) || (exprs != NULL && !cJSON_IsArray(exprs)))
            return fail(why, len, "term %d is malformed", n);
        cJSON_ArrayForEach(r, exprs)
        {
            nexpr++;
            if ((m = requirement(r, labels, why, len)) < 0)
                return -1;
            all = all && m;
        }
        /* A term without requirements matches no node. */
        any = any || (nexpr > 0 && all);
    }
    return any;
}

/* ---- the synthetic cluster ------------------------------------------------------------ */

struct text {
    char *s;
    size_t len, cap;
    int failed;
};

static void add(struct text *t, const char *fmt, ...)
{
    va_list ap;
    int n;

    for (;;) {
        va_start(ap, fmt);
        n = vsnprintf(t->s != NULL ? t->s + t->len : NULL, t->s != NULL ? t->cap - t->len : 0, fmt,
                      ap);
        va_end(ap);
        if (n < 0) {
            t->failed = 1;
            return;
        }
        if (t->s != NULL && t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        {
            size_t cap = t->cap ? t->cap * 2 : 65536;
            char *p;

            while (cap <= t->len + (size_t)n)
                cap *= 2;
            p = realloc(t->s, cap);
            if (p == NULL) {
                t->failed = 1;
                return;
            }
            t->s = p;
            t->cap = cap;
        }
    }
}

static const struct {
    int major, minor;
} ccs[] = {{3, 5},  {5, 0},  {5, 2},  {5, 3},  {6, 0},  {6, 1},  {6, 2}, {7, 0},
           {7, 2},  {7, 5},  {8, 0},  {8, 6},  {8, 7},  {8, 8},  {8, 9}, {9, 0},
           {10, 0}, {10, 1}, {10, 3}, {11, 0}, {12, 0}, {12, 1}, {13, 0}};

/* Driver branch, its version and the CUDA version it reports (as GFD labels them). */
static const struct {
    int branch, minor, rev, cuda_major, cuda_minor;
} drivers[] = {
    {470, 256, 2, 11, 4}, {525, 147, 5, 12, 0}, {535, 230, 2, 12, 2}, {550, 54, 15, 12, 4},
    {555, 42, 6, 12, 5},  {560, 35, 3, 12, 6},  {565, 57, 1, 12, 7},  {570, 124, 6, 12, 8},
    {575, 57, 8, 12, 9},  {580, 65, 6, 13, 0},  {590, 10, 1, 13, 1},
};

static void node_open(struct text *t, size_t *count, const char *name)
{
    add(t,
        "%s{\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"%s\", "
        "\"labels\": {",
        *count > 0 ? ",\n" : "", name);
    (*count)++;
}

/* The first label of a node has no comma before it: every node starts with os or arch. */
static void node_close(struct text *t)
{
    add(t, "}}}");
}

static void gfd_gpu(struct text *t, int major, int minor, const char *count)
{
    add(t,
        ", \"nvidia.com/gpu.product\": \"NVIDIA-Test-GPU-%d%d\", \"nvidia.com/gpu.count\": "
        "\"%s\", \"nvidia.com/gpu.compute.major\": \"%d\", \"nvidia.com/gpu.compute.minor\": "
        "\"%d\", \"nvidia.com/gpu.family\": \"test\"",
        major, minor, count, major, minor);
}

static void gfd_driver_full(struct text *t, size_t d)
{
    add(t,
        ", \"nvidia.com/cuda.driver-version.full\": \"%d.%d.%02d\", "
        "\"nvidia.com/cuda.driver-version.major\": \"%d\", "
        "\"nvidia.com/cuda.driver-version.minor\": \"%d\", "
        "\"nvidia.com/cuda.driver-version.revision\": \"%02d\", "
        "\"nvidia.com/cuda.runtime-version.full\": \"%d.%d\", "
        "\"nvidia.com/cuda.runtime-version.major\": \"%d\", "
        "\"nvidia.com/cuda.runtime-version.minor\": \"%d\", "
        "\"nvidia.com/cuda.driver.major\": \"%d\", \"nvidia.com/cuda.driver.minor\": \"%d\", "
        "\"nvidia.com/cuda.driver.rev\": \"%02d\", \"nvidia.com/cuda.runtime.major\": \"%d\", "
        "\"nvidia.com/cuda.runtime.minor\": \"%d\"",
        drivers[d].branch, drivers[d].minor, drivers[d].rev, drivers[d].branch, drivers[d].minor,
        drivers[d].rev, drivers[d].cuda_major, drivers[d].cuda_minor, drivers[d].cuda_major,
        drivers[d].cuda_minor, drivers[d].branch, drivers[d].minor, drivers[d].rev,
        drivers[d].cuda_major, drivers[d].cuda_minor);
}

/* Node Feature Discovery's CPU labels as nfd-worker writes them (default configuration:
 * no F16C, SSE4.2, POPCNT... labels) for a few real CPUs. */
static const struct {
    const char *name, *arch, *flags;
} nfd_cpus[] = {
    /* AMD EPYC 7002 (Zen 2): AVX2, no AVX-512. */
    {"avx2", "amd64", "ADX AESNI AVX AVX2 FMA3 MOVBE SHA SSE4A XSAVE HYPERVISOR"},
    /* Intel Xeon (Sapphire Rapids): AVX-512 and AMX. */
    {"avx512", "amd64",
     "ADX AESNI AMXBF16 AMXINT8 AMXTILE AVX AVX2 AVX512BF16 AVX512BITALG AVX512BW AVX512CD "
     "AVX512DQ AVX512F AVX512FP16 AVX512IFMA AVX512VBMI AVX512VBMI2 AVX512VL AVX512VNNI "
     "AVX512VPOPCNTDQ AVXVNNI FMA3 GFNI MOVBE SHA VAES VPCLMULQDQ XSAVE"},
    /* AVX-512 foundation without the byte/word instructions (Xeon Phi). */
    {"avx512f-only", "amd64", "AVX AVX2 AVX512CD AVX512ER AVX512F AVX512PF FMA3 MOVBE XSAVE"},
    /* No label pt2scope reads: CPU features unknown, as without NFD. */
    {"hypervisor-only", "amd64", "HYPERVISOR"},
    /* Neoverse N1 (NEON, no SVE) and Neoverse V2 (SVE2). */
    {"asimd", "arm64",
     "FP ASIMD EVTSTRM AES PMULL SHA1 SHA2 CRC32 ATOMICS FPHP ASIMDHP CPUID ASIMDRDM LRCPC "
     "DCPOP ASIMDDP SSBS"},
    {"sve2", "arm64",
     "FP ASIMD EVTSTRM AES PMULL SHA1 SHA2 CRC32 ATOMICS FPHP ASIMDHP CPUID ASIMDRDM JSCVT FCMA "
     "LRCPC DCPOP SHA3 SM3 SM4 ASIMDDP SHA512 SVE ASIMDFHM SVE2 SVEI8MM SVEBF16 I8MM BF16"},
};

static void nfd_labels(struct text *t, const char *flags)
{
    const char *p = flags, *e;

    add(t, ", \"feature.node.kubernetes.io/cpu-hardware_multithreading\": \"true\"");
    while (*p != '\0') {
        e = strchr(p, ' ');
        if (e == NULL)
            e = p + strlen(p);
        add(t, ", \"feature.node.kubernetes.io/cpu-cpuid.%.*s\": \"true\"", (int)(e - p), p);
        p = *e == ' ' ? e + 1 : e;
    }
}

static void nfd_cluster(struct text *t, size_t *n)
{
    char name[96];
    size_t c;

    for (c = 0; c < sizeof(nfd_cpus) / sizeof(nfd_cpus[0]); c++) {
        snprintf(name, sizeof(name), "cpu-%s-nfd-%s", nfd_cpus[c].arch, nfd_cpus[c].name);
        node_open(t, n, name);
        add(t, "\"kubernetes.io/os\": \"linux\", \"kubernetes.io/arch\": \"%s\"", nfd_cpus[c].arch);
        nfd_labels(t, nfd_cpus[c].flags);
        node_close(t);
        /* An H100 node with the same CPU, GFD and NFD labels both. */
        snprintf(name, sizeof(name), "gpu-%s-cc90-r580-nfd-%s", nfd_cpus[c].arch, nfd_cpus[c].name);
        node_open(t, n, name);
        add(t, "\"kubernetes.io/os\": \"linux\", \"kubernetes.io/arch\": \"%s\"", nfd_cpus[c].arch);
        gfd_gpu(t, 9, 0, "8");
        gfd_driver_full(t, 9);
        nfd_labels(t, nfd_cpus[c].flags);
        node_close(t);
    }
}

static void gfd_cluster(struct text *t, size_t *n)
{
    static const char *const archs[] = {"amd64", "arm64"};
    static const char *const cpu_archs[] = {"amd64",   "arm64", "ppc64le", "s390x",
                                            "riscv64", "386",   "arm"};
    char name[96];
    size_t c, d, a;

    for (a = 0; a < sizeof(archs) / sizeof(archs[0]); a++) {
        for (c = 0; c < sizeof(ccs) / sizeof(ccs[0]); c++) {
            for (d = 0; d < sizeof(drivers) / sizeof(drivers[0]); d++) {
                /* Every label GFD writes. */
                snprintf(name, sizeof(name), "gpu-%s-cc%d%d-r%d", archs[a], ccs[c].major,
                         ccs[c].minor, drivers[d].branch);
                node_open(t, n, name);
                add(t, "\"kubernetes.io/os\": \"linux\", \"kubernetes.io/arch\": \"%s\"", archs[a]);
                gfd_gpu(t, ccs[c].major, ccs[c].minor, "8");
                gfd_driver_full(t, d);
                node_close(t);
                /* The CUDA version alone, as hand-written label sets have it. */
                snprintf(name, sizeof(name), "gpu-%s-cc%d%d-cuda%d%d", archs[a], ccs[c].major,
                         ccs[c].minor, drivers[d].cuda_major, drivers[d].cuda_minor);
                node_open(t, n, name);
                add(t,
                    "\"kubernetes.io/os\": \"linux\", \"kubernetes.io/arch\": \"%s\", "
                    "\"nvidia.com/cuda.runtime-version.major\": \"%d\", "
                    "\"nvidia.com/cuda.runtime-version.minor\": \"%d\"",
                    archs[a], drivers[d].cuda_major, drivers[d].cuda_minor);
                gfd_gpu(t, ccs[c].major, ccs[c].minor, "1");
                node_close(t);
            }
            /* No CUDA label at all: the driver is unknown. */
            snprintf(name, sizeof(name), "gpu-%s-cc%d%d-nodriver", archs[a], ccs[c].major,
                     ccs[c].minor);
            node_open(t, n, name);
            add(t, "\"kubernetes.io/os\": \"linux\", \"kubernetes.io/arch\": \"%s\"", archs[a]);
            gfd_gpu(t, ccs[c].major, ccs[c].minor, "2");
            node_close(t);
        }
        /* GFD on a node whose GPUs are all taken away: gpu.count "0". */
        snprintf(name, sizeof(name), "gpu0-%s", archs[a]);
        node_open(t, n, name);
        add(t, "\"kubernetes.io/os\": \"linux\", \"kubernetes.io/arch\": \"%s\"", archs[a]);
        gfd_gpu(t, 9, 0, "0");
        gfd_driver_full(t, 9);
        node_close(t);
    }
    for (a = 0; a < sizeof(cpu_archs) / sizeof(cpu_archs[0]); a++) {
        snprintf(name, sizeof(name), "cpu-%s", cpu_archs[a]);
        node_open(t, n, name);
        add(t, "\"kubernetes.io/os\": \"linux\", \"kubernetes.io/arch\": \"%s\"", cpu_archs[a]);
        node_close(t);
    }
    node_open(t, n, "gpu-windows-cc90");
    add(t, "\"kubernetes.io/os\": \"windows\", \"kubernetes.io/arch\": \"amd64\"");
    gfd_gpu(t, 9, 0, "1");
    gfd_driver_full(t, 9);
    node_close(t);
    nfd_cluster(t, n);
}

static void odd_cluster(struct text *t, size_t *n)
{
    static const char *const products[] = {"Tesla-T4", "NVIDIA-H100-80GB-HBM3", "A100-SXM4-40GB",
                                           "Mystery-Accelerator-X"};
    char name[96];
    size_t p, d;

    for (p = 0; p < sizeof(products) / sizeof(products[0]); p++) {
        for (d = 8; d < sizeof(drivers) / sizeof(drivers[0]); d++) {
            /* gpu.product alone: pt2_k8s looks the GPU up; the selector cannot. */
            snprintf(name, sizeof(name), "product-%zu-r%d", p, drivers[d].branch);
            node_open(t, n, name);
            add(t,
                "\"kubernetes.io/os\": \"linux\", \"kubernetes.io/arch\": \"amd64\", "
                "\"nvidia.com/gpu.product\": \"%s\", \"nvidia.com/gpu.count\": \"1\"",
                products[p]);
            gfd_driver_full(t, d);
            node_close(t);
        }
    }
    for (d = 0; d < sizeof(drivers) / sizeof(drivers[0]); d++) {
        /* Hand-written CUDA labels: only .full, or only the deprecated names. */
        snprintf(name, sizeof(name), "full-only-cuda%d%d", drivers[d].cuda_major,
                 drivers[d].cuda_minor);
        node_open(t, n, name);
        add(t, "\"kubernetes.io/os\": \"linux\", \"kubernetes.io/arch\": \"amd64\"");
        gfd_gpu(t, 9, 0, "1");
        add(t, ", \"nvidia.com/cuda.runtime-version.full\": \"%d.%d\"", drivers[d].cuda_major,
            drivers[d].cuda_minor);
        node_close(t);
        snprintf(name, sizeof(name), "deprecated-only-r%d", drivers[d].branch);
        node_open(t, n, name);
        add(t,
            "\"kubernetes.io/os\": \"linux\", \"kubernetes.io/arch\": \"amd64\", "
            "\"nvidia.com/cuda.driver.major\": \"%d\", \"nvidia.com/cuda.driver.minor\": \"%d\", "
            "\"nvidia.com/cuda.runtime.major\": \"%d\", \"nvidia.com/cuda.runtime.minor\": \"%d\"",
            drivers[d].branch, drivers[d].minor, drivers[d].cuda_major, drivers[d].cuda_minor);
        gfd_gpu(t, 9, 0, "1");
        node_close(t);
        snprintf(name, sizeof(name), "no-os-r%d", drivers[d].branch);
        node_open(t, n, name);
        add(t, "\"kubernetes.io/arch\": \"amd64\"");
        gfd_gpu(t, 9, 0, "1");
        gfd_driver_full(t, d);
        node_close(t);
        snprintf(name, sizeof(name), "no-arch-r%d", drivers[d].branch);
        node_open(t, n, name);
        add(t, "\"kubernetes.io/os\": \"linux\"");
        gfd_gpu(t, 9, 0, "1");
        gfd_driver_full(t, d);
        node_close(t);
    }
    /* A malformed compute label: pt2_k8s ignores it and falls back to gpu.product. */
    node_open(t, n, "bad-major");
    add(t, "\"kubernetes.io/os\": \"linux\", \"kubernetes.io/arch\": \"amd64\", "
           "\"nvidia.com/gpu.product\": \"NVIDIA-H100-80GB-HBM3\", "
           "\"nvidia.com/gpu.compute.major\": \"9x\", \"nvidia.com/gpu.compute.minor\": \"0\"");
    gfd_driver_full(t, 10);
    node_close(t);
    node_open(t, n, "major-only");
    add(t, "\"kubernetes.io/os\": \"linux\", \"kubernetes.io/arch\": \"amd64\", "
           "\"nvidia.com/gpu.compute.major\": \"9\"");
    gfd_driver_full(t, 10);
    node_close(t);
    /* NFD labels NFD does not write: a value other than "true", and an x86 flag on arm64. */
    node_open(t, n, "nfd-avx512f-false");
    add(t, "\"kubernetes.io/os\": \"linux\", \"kubernetes.io/arch\": \"amd64\", "
           "\"feature.node.kubernetes.io/cpu-cpuid.AVX2\": \"true\", "
           "\"feature.node.kubernetes.io/cpu-cpuid.AVX512F\": \"false\"");
    node_close(t);
    node_open(t, n, "nfd-arm64-with-avx2");
    add(t, "\"kubernetes.io/os\": \"linux\", \"kubernetes.io/arch\": \"arm64\", "
           "\"feature.node.kubernetes.io/cpu-cpuid.AVX2\": \"true\"");
    node_close(t);
}

char *ks_gfd_nodes(int odd, size_t *count)
{
    struct text t = {0};
    size_t n = 0;

    add(&t, "{\"apiVersion\": \"v1\", \"kind\": \"NodeList\", \"items\": [\n");
    if (odd)
        odd_cluster(&t, &n);
    else
        gfd_cluster(&t, &n);
    add(&t, "\n]}\n");
    if (t.failed) {
        free(t.s);
        return NULL;
    }
    *count = n;
    return t.s;
}
