/*
 * pt2_nfd.h - the CPU feature labels Node Feature Discovery puts on
 * Kubernetes nodes, and the /proc/cpuinfo features they stand for.
 *
 * Design: one table, the only place pt2scope spells an NFD label. NFD's cpu
 * source writes `feature.node.kubernetes.io/cpu-cpuid.<FLAG>=true` for every
 * CPUID flag it detects (kubernetes-sigs/node-feature-discovery,
 * docs/usage/features.md): on x86 the flag names of github.com/klauspost/cpuid
 * (AVX512F, FMA3, AESNI, SSE42...), on arm64 and s390x the kernel's hwcap
 * names upper-cased (ASIMD, SVE, SVE2, ASIMDDP, I8MM, BF16; VX, VXE). Each
 * entry maps one such flag to the /proc/cpuinfo spelling that
 * pt2_isa_required_features() reports (fma <-> FMA3, sse4_2 <-> SSE42,
 * aes <-> AESNI on x86 and AES on arm64), per architecture (uname spelling).
 *
 * NFD's default configuration does not label some x86 flags
 * (sources.cpu.cpuid.attributeBlacklist: BMI1, BMI2, CLMUL, CMOV, CX16,
 * ERMS, F16C, HTT, LZCNT, MMX, MMXEXT, NX, POPCNT, RDRAND, RDSEED, RDTSCP,
 * SGX, SGXLC, SSE, SSE2, SSE3, SSE4, SSE42, SSSE3): for those the label's
 * absence says nothing, so `by_default` is 0 and such a feature is never
 * refused for a missing label. Every other flag of the table is decided by
 * its label on a node NFD describes.
 *
 * Everything is static: no allocation, strings returned are the table's.
 */
#ifndef PT2_NFD_H
#define PT2_NFD_H

#include <stddef.h>

/* Every NFD CPUID label starts with this. */
#define PT2_NFD_CPUID_PREFIX "feature.node.kubernetes.io/cpu-cpuid."
/* A label key built by pt2_nfd_label() fits in this. */
#define PT2_NFD_LABEL_MAX 96
/* Entries of the table, at most (a static assertion in pt2_nfd.c keeps it so):
 * a node's flags fit a bitmap of PT2_NFD_FLAGS_MAX / 64 words. */
#define PT2_NFD_FLAGS_MAX 128

struct pt2_nfd_flag {
    const char *machine; /* "x86_64", "aarch64", "s390x" */
    const char *feature; /* /proc/cpuinfo spelling: "avx512f", "fma", "asimd" */
    const char *flag;    /* NFD's: "AVX512F", "FMA3", "ASIMD" */
    int by_default;      /* 1 when NFD's default configuration writes the label */
};

/* The i-th entry; NULL past the end. */
const struct pt2_nfd_flag *pt2_nfd_at(size_t i);

/* The entry of `feature` (/proc/cpuinfo spelling, any case) on `machine`; NULL if none. */
const struct pt2_nfd_flag *pt2_nfd_by_feature(const char *machine, const char *feature);

/* 1 when NFD's default labels decide whether a `machine` CPU has `feature`:
 * the table has it and NFD writes its label by default. */
int pt2_nfd_decides(const char *machine, const char *feature);

/* "feature.node.kubernetes.io/cpu-cpuid.<flag>" into buf; buf. */
const char *pt2_nfd_label(const struct pt2_nfd_flag *f, char *buf, size_t len);

#endif
