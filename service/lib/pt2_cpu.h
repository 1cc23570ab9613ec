/*
 * pt2_cpu.h - this node's CPU: machine, vendor, model and SIMD features.
 *
 * Design: a package's host code is compiled for one CPU ISA (AOTI_CPU_ISA,
 * -march/-m flags); to say whether it runs here we need the features the
 * CPU has *and the kernel enables*. On x86 that is cpuid checked against
 * XGETBV (AVX needs XCR0 bits 1-2, AVX-512 bits 5-7, AMX bits 17-18), on
 * aarch64 the kernel's HWCAP/HWCAP2 bits; elsewhere, and as a fallback,
 * the "flags"/"Features" line of /proc/cpuinfo. Remote nodes and tests use
 * pt2_cpu_parse_cpuinfo() on a cpuinfo text.
 *
 * Feature names are the Linux /proc/cpuinfo spellings, listed in a fixed
 * order so the probe and the parser give the same list for the same CPU:
 *
 *   x86:     mmx sse sse2 pni ssse3 sse4_1 sse4_2 sse4a popcnt abm cx16 movbe
 *            aes pclmulqdq sha_ni rdrand rdseed adx xsave avx avx2 fma fma4
 *            f16c bmi1 bmi2 gfni vaes vpclmulqdq avx_vnni avx512f avx512dq
 *            avx512cd avx512bw avx512vl avx512ifma avx512vbmi avx512_vbmi2
 *            avx512_vnni avx512_bitalg avx512_vpopcntdq avx512_vp2intersect
 *            avx512_bf16 avx512_fp16 amx_tile amx_bf16 amx_int8 amx_fp16
 *            (every feature pt2_isa derives from compile flags)
 *   aarch64: fp asimd crc32 atomics fphp asimdhp asimddp asimdfhm sve sve2
 *            i8mm bf16 svei8mm svebf16 sme
 *   others:  every token of the first flags/Features line, in text order
 *            (at most PT2_CPU_FEATURES_MAX; tokens of 24+ bytes skipped).
 *
 * Ownership: struct pt2_cpu_info is a plain caller-owned value; no function
 * here allocates except *_to_json (caller frees the cJSON).
 */
#ifndef PT2_CPU_H
#define PT2_CPU_H

#include <stddef.h>

#include "pt2_error.h"

#define PT2_CPU_FEATURES_MAX 128
#define PT2_CPU_FEATURE_LEN 24
#define PT2_CPUINFO_MAX (4u * 1024u * 1024u) /* cap on a cpuinfo text */

struct pt2_cpu_info {
    char machine[32]; /* uname: x86_64, aarch64; "" when a cpuinfo text does not say */
    char vendor[64];  /* "GenuineIntel", "AuthenticAMD", "ARM", "NVIDIA"... */
    char model[128];  /* "Intel(R) Xeon(R) Platinum 8480+", "Neoverse-V2" */
    size_t nfeatures;
    char features[PT2_CPU_FEATURES_MAX][PT2_CPU_FEATURE_LEN]; /* see the list above */
};

/* Probe this machine. Fails only for a NULL `out` or if uname() fails. */
int pt2_cpu_probe(struct pt2_cpu_info *out, struct pt2_error *err);

/*
 * {"machine": "x86_64", "vendor": "GenuineIntel" | null, "model": "..." | null,
 *  "features": ["sse2", ...], "vec_isa": "AVX512" | "AVX2" | "NEON" | ... | null}
 */
int pt2_cpu_to_json(const struct pt2_cpu_info *c, cJSON **out, struct pt2_error *err);

/*
 * For tests and remote nodes: parse a /proc/cpuinfo text (`len` bytes, no
 * NUL needed). The first value of each field wins (cpuinfo repeats a block
 * per CPU). PT2_ERR_FORMAT when no known field is present, PT2_ERR_TOO_LARGE
 * past PT2_CPUINFO_MAX, PT2_ERR_INVALID for NULL arguments.
 */
int pt2_cpu_parse_cpuinfo(const char *text, size_t len, struct pt2_cpu_info *out,
                          struct pt2_error *err);

/* 1 when `feature` (a cpuinfo spelling) is in c's list. */
int pt2_cpu_has(const struct pt2_cpu_info *c, const char *feature);

/*
 * The best torch VecISA the CPU can run, in AOTI_CPU_ISA spelling:
 * "AVX512" (avx512f+dq+vl+bw and fma), "AVX2" (avx2+fma), "SVE256"
 * is not decided here (it needs the vector length), "NEON" (asimd),
 * "VSX" (ppc64le vsx), "ZVECTOR" (s390x vx), or "" when none applies.
 */
const char *pt2_cpu_vec_isa(const struct pt2_cpu_info *c);

#endif
