/*
 * pt2_nfd.c - the Node Feature Discovery CPUID label table (see pt2_nfd.h).
 *
 * Sources: NFD's docs/usage/features.md (the label format, the x86 and arm64
 * flag lists, the default blacklist) and source/cpu (cpuid_amd64.go takes
 * klauspost/cpuid's FeatureSet() names; cpuid_linux_arm64.go and
 * cpuid_linux_s390x.go name the hwcap bits). Only flags a package can need
 * (what pt2_isa_required_features() reports) and the arm64 flags NFD
 * documents are listed.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "pt2_nfd.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static const struct pt2_nfd_flag table[] = {
    /* x86-64: klauspost/cpuid names, labelled by default. */
    {"x86_64", "avx", "AVX", 1},
    {"x86_64", "avx2", "AVX2", 1},
    {"x86_64", "fma", "FMA3", 1},
    {"x86_64", "fma4", "FMA4", 1},
    {"x86_64", "avx512f", "AVX512F", 1},
    {"x86_64", "avx512cd", "AVX512CD", 1},
    {"x86_64", "avx512dq", "AVX512DQ", 1},
    {"x86_64", "avx512bw", "AVX512BW", 1},
    {"x86_64", "avx512vl", "AVX512VL", 1},
    {"x86_64", "avx512ifma", "AVX512IFMA", 1},
    {"x86_64", "avx512vbmi", "AVX512VBMI", 1},
    {"x86_64", "avx512_vbmi2", "AVX512VBMI2", 1},
    {"x86_64", "avx512_vnni", "AVX512VNNI", 1},
    {"x86_64", "avx512_bitalg", "AVX512BITALG", 1},
    {"x86_64", "avx512_vpopcntdq", "AVX512VPOPCNTDQ", 1},
    {"x86_64", "avx512_bf16", "AVX512BF16", 1},
    {"x86_64", "avx512_fp16", "AVX512FP16", 1},
    {"x86_64", "avx512_vp2intersect", "AVX512VP2INTERSECT", 1},
    {"x86_64", "avx_vnni", "AVXVNNI", 1},
    {"x86_64", "amx_tile", "AMXTILE", 1},
    {"x86_64", "amx_bf16", "AMXBF16", 1},
    {"x86_64", "amx_int8", "AMXINT8", 1},
    {"x86_64", "amx_fp16", "AMXFP16", 1},
    {"x86_64", "aes", "AESNI", 1},
    {"x86_64", "sha_ni", "SHA", 1},
    {"x86_64", "gfni", "GFNI", 1},
    {"x86_64", "vaes", "VAES", 1},
    {"x86_64", "vpclmulqdq", "VPCLMULQDQ", 1},
    {"x86_64", "movbe", "MOVBE", 1},
    {"x86_64", "adx", "ADX", 1},
    {"x86_64", "sse4a", "SSE4A", 1},
    {"x86_64", "xsave", "XSAVE", 1},
    /* x86-64: in NFD's default attributeBlacklist, so absent unless configured. */
    {"x86_64", "f16c", "F16C", 0},
    {"x86_64", "sse", "SSE", 0},
    {"x86_64", "sse2", "SSE2", 0},
    {"x86_64", "pni", "SSE3", 0},
    {"x86_64", "ssse3", "SSSE3", 0},
    {"x86_64", "sse4_1", "SSE4", 0},
    {"x86_64", "sse4_2", "SSE42", 0},
    {"x86_64", "popcnt", "POPCNT", 0},
    {"x86_64", "abm", "LZCNT", 0},
    {"x86_64", "bmi1", "BMI1", 0},
    {"x86_64", "bmi2", "BMI2", 0},
    {"x86_64", "pclmulqdq", "CLMUL", 0},
    {"x86_64", "rdrand", "RDRAND", 0},
    {"x86_64", "rdseed", "RDSEED", 0},
    {"x86_64", "cx16", "CX16", 0},
    {"x86_64", "mmx", "MMX", 0},
    /* arm64: AT_HWCAP / AT_HWCAP2 names. */
    {"aarch64", "fp", "FP", 1},
    {"aarch64", "asimd", "ASIMD", 1},
    {"aarch64", "evtstrm", "EVTSTRM", 1},
    {"aarch64", "aes", "AES", 1},
    {"aarch64", "pmull", "PMULL", 1},
    {"aarch64", "sha1", "SHA1", 1},
    {"aarch64", "sha2", "SHA2", 1},
    {"aarch64", "crc32", "CRC32", 1},
    {"aarch64", "atomics", "ATOMICS", 1},
    {"aarch64", "fphp", "FPHP", 1},
    {"aarch64", "asimdhp", "ASIMDHP", 1},
    {"aarch64", "asimdrdm", "ASIMDRDM", 1},
    {"aarch64", "jscvt", "JSCVT", 1},
    {"aarch64", "dcpop", "DCPOP", 1},
    {"aarch64", "asimddp", "ASIMDDP", 1},
    {"aarch64", "sve", "SVE", 1},
    {"aarch64", "sve2", "SVE2", 1},
    {"aarch64", "i8mm", "I8MM", 1},
    {"aarch64", "bf16", "BF16", 1},
    /* s390x: AT_HWCAP names. */
    {"s390x", "vx", "VX", 1},
    {"s390x", "vxe", "VXE", 1},
    {"s390x", "vxe2", "VXE2", 1},
};

_Static_assert(NELEM(table) <= PT2_NFD_FLAGS_MAX, "PT2_NFD_FLAGS_MAX is below the table");

const struct pt2_nfd_flag *pt2_nfd_at(size_t i)
{
    return i < NELEM(table) ? &table[i] : NULL;
}

const struct pt2_nfd_flag *pt2_nfd_by_feature(const char *machine, const char *feature)
{
    size_t i;

    if (machine == NULL || feature == NULL)
        return NULL;
    for (i = 0; i < NELEM(table); i++)
        if (strcmp(table[i].machine, machine) == 0 && strcasecmp(table[i].feature, feature) == 0)
            return &table[i];
    return NULL;
}

int pt2_nfd_decides(const char *machine, const char *feature)
{
    const struct pt2_nfd_flag *f = pt2_nfd_by_feature(machine, feature);

    return f != NULL && f->by_default;
}

const char *pt2_nfd_label(const struct pt2_nfd_flag *f, char *buf, size_t len)
{
    if (len > 0)
        snprintf(buf, len, "%s%s", PT2_NFD_CPUID_PREFIX, f != NULL ? f->flag : "");
    return buf;
}
