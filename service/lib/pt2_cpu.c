/*
 * pt2_cpu.c - host CPU probe: cpuid/XGETBV on x86, HWCAPs on aarch64,
 * /proc/cpuinfo elsewhere and as a fallback (see pt2_cpu.h).
 *
 * The feature vocabulary is a fixed table per architecture so that what
 * the probe finds and what the parser reads from the same machine's
 * /proc/cpuinfo come out as the same list in the same order. Linux itself
 * hides AVX/AVX-512/AMX in cpuinfo when the OS state is not enabled, so the
 * XGETBV checks below make the cpuid path agree with it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#if defined(__aarch64__)
#include <sys/auxv.h>
#endif

#include "pt2_cpu.h"

#define CPUINFO_READ_MAX (64u * 1024u) /* the first CPU block is all we use */

/* ---- feature vocabulary --------------------------------------------------- */

enum x86_reg { L1_ECX, L1_EDX, L7_EBX, L7_ECX, L7_EDX, L7S1_EAX, LX1_ECX, X86_NREGS };
enum x86_os { OS_NONE, OS_AVX, OS_AVX512, OS_AMX, X86_NOS };

/*
 * cpuid bits (Intel SDM vol. 2A "CPUID"; AMD APM vol. 3 for leaf 0x80000001):
 * leaf 1, leaf 7 subleaf 0, leaf 7 subleaf 1, leaf 0x80000001. The list
 * covers every feature pt2_isa derives from -m/-march flags, so a node is
 * never judged to lack a feature only because it was not probed.
 */
static const struct {
    const char *name;
    unsigned char reg, bit, os;
} x86_features[] = {
    {"mmx", L1_EDX, 23, OS_NONE},
    {"sse", L1_EDX, 25, OS_NONE},
    {"sse2", L1_EDX, 26, OS_NONE},
    {"pni", L1_ECX, 0, OS_NONE}, /* SSE3 */
    {"ssse3", L1_ECX, 9, OS_NONE},
    {"sse4_1", L1_ECX, 19, OS_NONE},
    {"sse4_2", L1_ECX, 20, OS_NONE},
    {"sse4a", LX1_ECX, 6, OS_NONE},
    {"popcnt", L1_ECX, 23, OS_NONE},
    {"abm", LX1_ECX, 5, OS_NONE}, /* LZCNT */
    {"cx16", L1_ECX, 13, OS_NONE},
    {"movbe", L1_ECX, 22, OS_NONE},
    {"aes", L1_ECX, 25, OS_NONE},
    {"pclmulqdq", L1_ECX, 1, OS_NONE},
    {"sha_ni", L7_EBX, 29, OS_NONE},
    {"rdrand", L1_ECX, 30, OS_NONE},
    {"rdseed", L7_EBX, 18, OS_NONE},
    {"adx", L7_EBX, 19, OS_NONE},
    {"xsave", L1_ECX, 26, OS_NONE},
    {"avx", L1_ECX, 28, OS_AVX},
    {"avx2", L7_EBX, 5, OS_AVX},
    {"fma", L1_ECX, 12, OS_AVX},
    {"fma4", LX1_ECX, 16, OS_AVX},
    {"f16c", L1_ECX, 29, OS_AVX},
    {"bmi1", L7_EBX, 3, OS_NONE},
    {"bmi2", L7_EBX, 8, OS_NONE},
    {"gfni", L7_ECX, 8, OS_NONE},
    {"vaes", L7_ECX, 9, OS_AVX},
    {"vpclmulqdq", L7_ECX, 10, OS_AVX},
    {"avx_vnni", L7S1_EAX, 4, OS_AVX},
    {"avx512f", L7_EBX, 16, OS_AVX512},
    {"avx512dq", L7_EBX, 17, OS_AVX512},
    {"avx512cd", L7_EBX, 28, OS_AVX512},
    {"avx512bw", L7_EBX, 30, OS_AVX512},
    {"avx512vl", L7_EBX, 31, OS_AVX512},
    {"avx512ifma", L7_EBX, 21, OS_AVX512},
    {"avx512vbmi", L7_ECX, 1, OS_AVX512},
    {"avx512_vbmi2", L7_ECX, 6, OS_AVX512},
    {"avx512_vnni", L7_ECX, 11, OS_AVX512},
    {"avx512_bitalg", L7_ECX, 12, OS_AVX512},
    {"avx512_vpopcntdq", L7_ECX, 14, OS_AVX512},
    {"avx512_vp2intersect", L7_EDX, 8, OS_AVX512},
    {"avx512_bf16", L7S1_EAX, 5, OS_AVX512},
    {"avx512_fp16", L7_EDX, 23, OS_AVX512},
    {"amx_tile", L7_EDX, 24, OS_AMX},
    {"amx_bf16", L7_EDX, 22, OS_AMX},
    {"amx_int8", L7_EDX, 25, OS_AMX},
    {"amx_fp16", L7S1_EAX, 21, OS_AMX},
};

/* Linux arch/arm64/include/uapi/asm/hwcap.h: AT_HWCAP (1) and AT_HWCAP2 (2) bits. */
static const struct {
    const char *name;
    unsigned char hwcap, bit;
} arm64_features[] = {
    {"fp", 1, 0},       {"asimd", 1, 1},    {"crc32", 1, 7},     {"atomics", 1, 8},  {"fphp", 1, 9},
    {"asimdhp", 1, 10}, {"asimddp", 1, 20}, {"asimdfhm", 1, 23}, {"sve", 1, 22},     {"sve2", 2, 1},
    {"i8mm", 2, 13},    {"bf16", 2, 14},    {"svei8mm", 2, 9},   {"svebf16", 2, 12}, {"sme", 2, 23},
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* A (pointer, length) view into the cpuinfo text. */
struct span {
    const char *p;
    size_t n;
};

static int span_eq(struct span s, const char *lit)
{
    size_t n = strlen(lit);
    return s.n == n && memcmp(s.p, lit, n) == 0;
}

static int is_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '\v' || ch == '\f';
}

static struct span span_trim(struct span s)
{
    while (s.n > 0 && is_space(s.p[0])) {
        s.p++;
        s.n--;
    }
    while (s.n > 0 && is_space(s.p[s.n - 1]))
        s.n--;
    return s;
}

/* Copy a span into a fixed buffer, truncating, printable ASCII only. */
static void span_copy(struct span s, char *buf, size_t len)
{
    size_t i, n = s.n < len - 1 ? s.n : len - 1;

    for (i = 0; i < n; i++)
        buf[i] = (s.p[i] >= 0x20 && s.p[i] < 0x7f) ? s.p[i] : '?';
    buf[n] = '\0';
}

/* Next whitespace-separated token of *rest, or a zero-length span at the end. */
static struct span next_token(struct span *rest)
{
    struct span t;

    *rest = span_trim(*rest);
    t.p = rest->p;
    t.n = 0;
    while (t.n < rest->n && !is_space(rest->p[t.n]))
        t.n++;
    rest->p += t.n;
    rest->n -= t.n;
    return t;
}

static int span_has_token(struct span line, const char *tok)
{
    struct span rest = line, t;

    while ((t = next_token(&rest)).n > 0)
        if (span_eq(t, tok))
            return 1;
    return 0;
}

int pt2_cpu_has(const struct pt2_cpu_info *c, const char *feature)
{
    size_t i;

    if (c == NULL || feature == NULL)
        return 0;
    for (i = 0; i < c->nfeatures && i < PT2_CPU_FEATURES_MAX; i++)
        if (strcmp(c->features[i], feature) == 0)
            return 1;
    return 0;
}

/* Append one feature unless full, too long or already present. */
static void add_feature(struct pt2_cpu_info *c, struct span name)
{
    if (c->nfeatures >= PT2_CPU_FEATURES_MAX || name.n == 0 || name.n >= PT2_CPU_FEATURE_LEN)
        return;
    memcpy(c->features[c->nfeatures], name.p, name.n);
    c->features[c->nfeatures][name.n] = '\0';
    if (pt2_cpu_has(c, c->features[c->nfeatures]))
        return;
    c->nfeatures++;
}

static void add_feature_str(struct pt2_cpu_info *c, const char *name)
{
    struct span s = {name, strlen(name)};
    add_feature(c, s);
}

/* Keep the vocabulary entries present in a flags line, in vocabulary order. */
static void features_x86(struct pt2_cpu_info *c, struct span line)
{
    size_t i;

    for (i = 0; i < NELEM(x86_features); i++)
        if (span_has_token(line, x86_features[i].name))
            add_feature_str(c, x86_features[i].name);
}

static void features_arm64(struct pt2_cpu_info *c, struct span line)
{
    size_t i;

    for (i = 0; i < NELEM(arm64_features); i++)
        if (span_has_token(line, arm64_features[i].name))
            add_feature_str(c, arm64_features[i].name);
}

static void features_all(struct pt2_cpu_info *c, struct span line)
{
    struct span rest = line, t;

    while ((t = next_token(&rest)).n > 0)
        add_feature(c, t);
}

/* ---- aarch64 identification ------------------------------------------------ */

static const struct {
    unsigned id;
    const char *name;
} arm_implementers[] = {
    {0x41, "ARM"},       {0x42, "Broadcom"},  {0x43, "Cavium"}, {0x46, "Fujitsu"},
    {0x48, "HiSilicon"}, {0x4e, "NVIDIA"},    {0x50, "APM"},    {0x51, "Qualcomm"},
    {0x61, "Apple"},     {0x6d, "Microsoft"}, {0xc0, "Ampere"},
};

static const struct {
    unsigned implementer, part;
    const char *name;
} arm_parts[] = {
    {0x41, 0xd03, "Cortex-A53"},  {0x41, 0xd07, "Cortex-A57"},  {0x41, 0xd08, "Cortex-A72"},
    {0x41, 0xd0b, "Cortex-A76"},  {0x41, 0xd0c, "Neoverse-N1"}, {0x41, 0xd40, "Neoverse-V1"},
    {0x41, 0xd49, "Neoverse-N2"}, {0x41, 0xd4f, "Neoverse-V2"}, {0x41, 0xd84, "Neoverse-V3"},
    {0x41, 0xd8e, "Neoverse-N3"}, {0x4e, 0x004, "Carmel"},      {0xc0, 0xac3, "AmpereOne"},
};

/* "0x41" (or "41") into *out; -1 if not a hex number up to 0xffff. */
static int span_hex(struct span s, unsigned *out)
{
    uint64_t v;

    if (s.n >= 16)
        return -1;
    if (s.n > 2 && s.p[0] == '0' && (s.p[1] == 'x' || s.p[1] == 'X')) {
        s.p += 2;
        s.n -= 2;
    }
    if (pt2_num_u64n(s.p, s.n, 16, &v) != PT2_OK || v > 0xffff)
        return -1;
    *out = (unsigned)v;
    return 0;
}

static void arm_identify(struct pt2_cpu_info *c, struct span impl, struct span part)
{
    unsigned i_id, p_id;
    size_t i;

    if (span_hex(impl, &i_id) != 0)
        return;
    snprintf(c->vendor, sizeof(c->vendor), "implementer 0x%02x", i_id);
    for (i = 0; i < NELEM(arm_implementers); i++)
        if (arm_implementers[i].id == i_id)
            snprintf(c->vendor, sizeof(c->vendor), "%s", arm_implementers[i].name);
    if (span_hex(part, &p_id) != 0)
        return;
    snprintf(c->model, sizeof(c->model), "part 0x%03x", p_id);
    for (i = 0; i < NELEM(arm_parts); i++)
        if (arm_parts[i].implementer == i_id && arm_parts[i].part == p_id)
            snprintf(c->model, sizeof(c->model), "%s", arm_parts[i].name);
}

/* ---- /proc/cpuinfo text ------------------------------------------------------ */

/* The first value of each field we use; zero spans when absent. */
struct cpuinfo_fields {
    struct span vendor_id, model_name, flags, features_arm, features_s390;
    struct span implementer, part, cpu, uarch, isa, processor;
};

static void keep_first(struct span *slot, struct span val)
{
    if (slot->p == NULL)
        *slot = val;
}

static void scan_cpuinfo(const char *text, size_t len, struct cpuinfo_fields *f)
{
    const char *p = text, *end, *eol, *colon;
    struct span key, val;

    memset(f, 0, sizeof(*f));
    if (len == 0)
        return;
    end = text + len;
    while (p < end) {
        eol = memchr(p, '\n', (size_t)(end - p));
        if (eol == NULL)
            eol = end;
        colon = memchr(p, ':', (size_t)(eol - p));
        if (colon != NULL) {
            key.p = p;
            key.n = (size_t)(colon - p);
            key = span_trim(key);
            val.p = colon + 1;
            val.n = (size_t)(eol - colon - 1);
            val = span_trim(val);
            if (span_eq(key, "vendor_id"))
                keep_first(&f->vendor_id, val);
            else if (span_eq(key, "model name"))
                keep_first(&f->model_name, val);
            else if (span_eq(key, "flags"))
                keep_first(&f->flags, val);
            else if (span_eq(key, "Features"))
                keep_first(&f->features_arm, val);
            else if (span_eq(key, "features"))
                keep_first(&f->features_s390, val);
            else if (span_eq(key, "CPU implementer"))
                keep_first(&f->implementer, val);
            else if (span_eq(key, "CPU part"))
                keep_first(&f->part, val);
            else if (span_eq(key, "cpu"))
                keep_first(&f->cpu, val);
            else if (span_eq(key, "uarch"))
                keep_first(&f->uarch, val);
            else if (span_eq(key, "isa"))
                keep_first(&f->isa, val);
            else if (span_eq(key, "Processor"))
                keep_first(&f->processor, val);
        }
        if (eol == end)
            break; /* last line without '\n': eol + 1 would point past the end */
        p = eol + 1;
    }
}

/* Fill `c` from scanned fields. Returns 0, or -1 when nothing was recognised. */
static int apply_cpuinfo(const struct cpuinfo_fields *f, struct pt2_cpu_info *c)
{
    if (f->flags.p != NULL) {
        /* x86: only the x86 vocabulary; "lm" (long mode) tells 64-bit CPUs apart. */
        snprintf(c->machine, sizeof(c->machine), "%s",
                 span_has_token(f->flags, "lm") ? "x86_64" : "i686");
        features_x86(c, f->flags);
    } else if (f->features_arm.p != NULL && span_has_token(f->features_arm, "asimd")) {
        /* "asimd" is the AArch64 spelling; 32-bit ARM kernels say "neon". */
        snprintf(c->machine, sizeof(c->machine), "aarch64");
        features_arm64(c, f->features_arm);
    } else if (f->features_arm.p != NULL) {
        snprintf(c->machine, sizeof(c->machine), "arm");
        features_all(c, f->features_arm);
    } else if (f->features_s390.p != NULL) {
        snprintf(c->machine, sizeof(c->machine), "s390x");
        features_all(c, f->features_s390);
    } else if (f->isa.p != NULL && f->isa.n >= 4 && memcmp(f->isa.p, "rv64", 4) == 0) {
        snprintf(c->machine, sizeof(c->machine), "riscv64");
    }
    if (f->vendor_id.p != NULL)
        span_copy(f->vendor_id, c->vendor, sizeof(c->vendor));
    if (f->implementer.p != NULL)
        arm_identify(c, f->implementer, f->part);
    if (f->model_name.p != NULL)
        span_copy(f->model_name, c->model, sizeof(c->model));
    else if (c->model[0] == '\0' && f->cpu.p != NULL)
        span_copy(f->cpu, c->model, sizeof(c->model)); /* ppc64: "POWER9 (raw), ..." */
    else if (c->model[0] == '\0' && f->uarch.p != NULL)
        span_copy(f->uarch, c->model, sizeof(c->model)); /* riscv */
    else if (c->model[0] == '\0' && f->processor.p != NULL)
        span_copy(f->processor, c->model, sizeof(c->model)); /* old 32-bit ARM */
    if (c->machine[0] == '\0' && c->vendor[0] == '\0' && c->model[0] == '\0')
        return -1;
    return 0;
}

int pt2_cpu_parse_cpuinfo(const char *text, size_t len, struct pt2_cpu_info *out,
                          struct pt2_error *err)
{
    struct cpuinfo_fields f;

    if (out == NULL || (text == NULL && len > 0))
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_cpu_parse_cpuinfo: missing argument");
    memset(out, 0, sizeof(*out));
    if (len > PT2_CPUINFO_MAX)
        return pt2_error_set(err, PT2_ERR_TOO_LARGE, "cpuinfo text is %zu bytes, more than %u", len,
                             PT2_CPUINFO_MAX);
    scan_cpuinfo(text, len, &f);
    if (apply_cpuinfo(&f, out) != 0)
        return pt2_error_set(err, PT2_ERR_FORMAT,
                             "cpuinfo: no vendor_id, model name, flags or Features line");
    return PT2_OK;
}

/* Read the head of /proc/cpuinfo (bounded); NULL if unreadable. Caller frees. */
static char *read_cpuinfo(size_t *len_out)
{
    char *buf = malloc(CPUINFO_READ_MAX);
    size_t len = 0;
    ssize_t got;
    int fd;

    *len_out = 0;
    if (buf == NULL)
        return NULL;
    fd = open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        free(buf);
        return NULL;
    }
    while (len < CPUINFO_READ_MAX) {
        got = read(fd, buf + len, CPUINFO_READ_MAX - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        len += (size_t)got;
    }
    close(fd);
    /* A cut last line could look like a short flags line: drop it. */
    if (len == CPUINFO_READ_MAX) {
        while (len > 0 && buf[len - 1] != '\n')
            len--;
    }
    *len_out = len;
    return buf;
}

/* ---- native probes -------------------------------------------------------- */

#if defined(__x86_64__) || defined(__i386__)
static uint64_t xgetbv0(void)
{
    uint32_t lo, hi;

    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

static void probe_x86(struct pt2_cpu_info *c)
{
    unsigned r[X86_NREGS] = {0};
    unsigned a, b, cx, d, max, maxext, i;
    unsigned brand[12];
    uint64_t xcr0 = 0;
    int os[X86_NOS];
    size_t k;

    max = __get_cpuid_max(0, NULL);
    if (max == 0)
        return;
    __cpuid(0, a, b, cx, d);
    memcpy(c->vendor, &b, 4);
    memcpy(c->vendor + 4, &d, 4);
    memcpy(c->vendor + 8, &cx, 4);
    c->vendor[12] = '\0';
    __cpuid(1, a, b, r[L1_ECX], r[L1_EDX]);
    if (max >= 7) {
        __cpuid_count(7, 0, a, r[L7_EBX], r[L7_ECX], r[L7_EDX]);
        if (a >= 1)
            __cpuid_count(7, 1, r[L7S1_EAX], b, cx, d);
    }
    maxext = __get_cpuid_max(0x80000000u, NULL);
    if (maxext >= 0x80000001u)
        __cpuid(0x80000001u, a, b, r[LX1_ECX], d);
    /* OSXSAVE: the OS uses XSAVE, so XCR0 says which register state it saves. */
    if (r[L1_ECX] & (1u << 27))
        xcr0 = xgetbv0();
    os[OS_NONE] = 1;
    os[OS_AVX] = (xcr0 & 0x6) == 0x6;                    /* XMM | YMM */
    os[OS_AVX512] = os[OS_AVX] && (xcr0 & 0xe0) == 0xe0; /* opmask | ZMM_Hi256 | Hi16_ZMM */
    os[OS_AMX] = (xcr0 & 0x60000) == 0x60000;            /* XTILECFG | XTILEDATA */
    for (k = 0; k < NELEM(x86_features); k++)
        if (os[x86_features[k].os] && (r[x86_features[k].reg] & (1u << x86_features[k].bit)))
            add_feature_str(c, x86_features[k].name);

    if (maxext >= 0x80000004u) {
        struct span s;

        for (i = 0; i < 3; i++)
            __cpuid(0x80000002u + i, brand[i * 4], brand[i * 4 + 1], brand[i * 4 + 2],
                    brand[i * 4 + 3]);
        s.p = (const char *)brand;
        s.n = strnlen(s.p, sizeof(brand));
        span_copy(span_trim(s), c->model, sizeof(c->model));
    }
}
#endif

#if defined(__aarch64__)
static void probe_arm64(struct pt2_cpu_info *c)
{
    unsigned long hw[3] = {0, getauxval(AT_HWCAP), getauxval(AT_HWCAP2)};
    size_t k;

    for (k = 0; k < NELEM(arm64_features); k++)
        if (hw[arm64_features[k].hwcap] & (1ul << arm64_features[k].bit))
            add_feature_str(c, arm64_features[k].name);
}
#endif

int pt2_cpu_probe(struct pt2_cpu_info *out, struct pt2_error *err)
{
    char ebuf[128];
    struct pt2_cpu_info fromtext;
    struct cpuinfo_fields f;
    struct utsname u;
    size_t len = 0, i;
    char *text;

    if (out == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_cpu_probe: no output");
    memset(out, 0, sizeof(*out));
    if (uname(&u) != 0)
        return pt2_error_set(err, PT2_ERR_IO, "uname failed: %s",
                             pt2_strerror(errno, ebuf, sizeof(ebuf)));
    snprintf(out->machine, sizeof(out->machine), "%.31s", u.machine);

#if defined(__x86_64__) || defined(__i386__)
    probe_x86(out);
#elif defined(__aarch64__)
    probe_arm64(out);
#endif

    /* cpuinfo names the vendor/model off x86 and supplies features where no native probe did. */
    text = read_cpuinfo(&len);
    if (text != NULL) {
        scan_cpuinfo(text, len, &f);
        memset(&fromtext, 0, sizeof(fromtext));
        if (apply_cpuinfo(&f, &fromtext) == 0) {
            if (out->vendor[0] == '\0')
                memcpy(out->vendor, fromtext.vendor, sizeof(out->vendor));
            if (out->model[0] == '\0')
                memcpy(out->model, fromtext.model, sizeof(out->model));
            if (out->nfeatures == 0) {
                for (i = 0; i < fromtext.nfeatures; i++)
                    add_feature_str(out, fromtext.features[i]);
            }
        }
        free(text);
    }
    return PT2_OK;
}

/* ---- summaries ---------------------------------------------------------- */

const char *pt2_cpu_vec_isa(const struct pt2_cpu_info *c)
{
    if (c == NULL)
        return "";
    /* torch's VecAVX512 / VecAVX2 compile flags (-mavx512f -mavx512dq -mavx512vl -mavx512bw
     * -mfma; -mavx2 -mfma). */
    if (pt2_cpu_has(c, "avx512f") && pt2_cpu_has(c, "avx512dq") && pt2_cpu_has(c, "avx512vl") &&
        pt2_cpu_has(c, "avx512bw") && pt2_cpu_has(c, "fma"))
        return "AVX512";
    if (pt2_cpu_has(c, "avx2") && pt2_cpu_has(c, "fma"))
        return "AVX2";
    if (pt2_cpu_has(c, "asimd"))
        return "NEON";
    if (strcmp(c->machine, "s390x") == 0 && pt2_cpu_has(c, "vx"))
        return "ZVECTOR";
    /* The ppc64le ABI baseline is POWER8, which always has VSX. */
    if (strcmp(c->machine, "ppc64le") == 0)
        return "VSX";
    return "";
}

int pt2_cpu_to_json(const struct pt2_cpu_info *c, cJSON **out, struct pt2_error *err)
{
    cJSON *o = NULL, *arr, *s;
    size_t i, n;

    if (out != NULL)
        *out = NULL;
    if (c == NULL || out == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_cpu_to_json: missing argument");
    n = c->nfeatures > PT2_CPU_FEATURES_MAX ? PT2_CPU_FEATURES_MAX : c->nfeatures;
    o = cJSON_CreateObject();
    if (o == NULL || !pt2_json_add_str_or_null(o, "machine", c->machine) ||
        !pt2_json_add_str_or_null(o, "vendor", c->vendor) ||
        !pt2_json_add_str_or_null(o, "model", c->model))
        goto nomem;
    arr = cJSON_AddArrayToObject(o, "features");
    if (arr == NULL)
        goto nomem;
    for (i = 0; i < n; i++) {
        s = cJSON_CreateString(c->features[i]);
        if (s == NULL)
            goto nomem;
        cJSON_AddItemToArray(arr, s);
    }
    if (!pt2_json_add_str_or_null(o, "vec_isa", pt2_cpu_vec_isa(c)))
        goto nomem;
    *out = o;
    return PT2_OK;

nomem:
    cJSON_Delete(o);
    return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory building the CPU document");
}
