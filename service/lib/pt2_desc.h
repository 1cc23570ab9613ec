/*
 * pt2_desc.h - human descriptions of GPU and CPU targets.
 *
 * Design: static, read-only tables (no global mutable state, so every call
 * is thread-safe) that turn the facts the parsers find into words:
 *   - NVIDIA compute capability -> architecture, chip, representative GPUs
 *     (FORMATS.md §12), used as `cuda_gpu_description`;
 *   - a GPU product name ("A100-SXM4-80GB", "NVIDIA GeForce RTX 4090",
 *     "MI300X") -> compute capability or AMD gfx target, used to parse
 *     `?target=` values and GPU Feature Discovery `gpu.product` labels;
 *   - AMD gfx target -> product text;
 *   - host binaries + CPU ISA -> one CPU description line.
 *
 * Ownership: every `const char *` handed out points into static tables and
 * lives forever; text is written into caller-provided buffers, always
 * NUL-terminated and truncated to fit.
 */
#ifndef PT2_DESC_H
#define PT2_DESC_H

#include <stddef.h>

#include "pt2_model.h"

/* One row of the compute capability table. Empty strings, never NULL. */
struct pt2_cc_desc {
    int major, minor;
    const char *arch;        /* "Hopper" */
    const char *chip;        /* "GH100" */
    const char *datacenter;  /* "H100, H200, H800, H20, GH200" */
    const char *workstation; /* "RTX 6000 Ada, RTX 4000/4500/5000 Ada" */
    const char *consumer;    /* "RTX 4060-4090" */
    const char *embedded;    /* "Jetson AGX Orin, Orin NX, Orin Nano" */
    const char *note;        /* caveat appended to the text ("" if none) */
};

/* Look up CC major.minor (5.0 ... 12.1). PT2_ERR_NOT_FOUND if not in the table. */
int pt2_desc_cc(int major, int minor, struct pt2_cc_desc *out);

/*
 * "<arch> (<chip>): <GPUs: data center, workstation, consumer, embedded>"
 * plus "; <note>" when the row has one, e.g.
 * "Hopper (GH100): H100, H200, H800, H20, GH200". Unknown CCs give
 * "unknown compute capability 9.9". Returns buf.
 */
const char *pt2_desc_cc_text(int major, int minor, char *buf, size_t len);

enum pt2_gpu_vendor { PT2_VENDOR_NVIDIA = 1, PT2_VENDOR_AMD = 2 };

/* A GPU product recognised by name. Strings are static. */
struct pt2_gpu_match {
    int vendor;             /* enum pt2_gpu_vendor */
    const char *product;    /* canonical name without vendor: "A100", "RTX 4090", "MI300X" */
    int cc_major, cc_minor; /* NVIDIA; 0.0 for AMD */
    const char *gfx;        /* AMD gfx target ("gfx942"); "" for NVIDIA */
};

/*
 * Recognise a GPU product name. Case-insensitive; spaces, dashes and
 * underscores are ignored; vendor and brand words ("NVIDIA", "GeForce",
 * "Tesla", "Jetson", "AMD", "Instinct", ...) are skipped; trailing model
 * details ("-SXM4-80GB", " 80GB HBM3", "-MIG-1g.5gb") are tolerated. The
 * longest table name that matches wins ("A10G" is not "A10", "H200" is not
 * "H20"), and a name must not run on into more digits ("A100" is not "A10").
 * PT2_ERR_NOT_FOUND when nothing matches, PT2_ERR_INVALID for NULL or text
 * with more than 127 letters and digits.
 */
int pt2_desc_gpu_lookup(const char *text, struct pt2_gpu_match *out);

/*
 * AMD product text for a gfx target ("gfx90a" or "gfx90a:sramecc+:xnack-";
 * features are ignored): "AMD Instinct MI210/MI250/MI250X (CDNA2)". Unknown
 * targets give "unknown AMD GPU target gfx1234". Returns buf.
 */
const char *pt2_desc_gfx_text(const char *gfx, char *buf, size_t len);

/*
 * One-line CPU description of a package, written to buf (returns buf):
 *
 *   <hosts>[, <ISA> (<features>)][, -march=<value>]
 *
 * <hosts> describes each distinct host binary kind, joined with " + ":
 *   ELF:      "<machine> Linux <shared object|relocatable object|executable>"
 *             with machine "x86-64", "AArch64", "ppc64le", "s390x", "RISC-V 64",
 *             "x86 (32-bit)", "ARM (32-bit)" or the raw name, followed by
 *             " (big-endian)" for big-endian binaries;
 *   Mach-O:   "macOS arm64 (Apple silicon) dylib", "macOS x86-64 (Intel) dylib";
 *   fat:      "macOS universal dylib (<machines>)";
 *   PE:       "Windows <machine> DLL";
 *   none:     "no host binary".
 * <ISA> is "AVX-512", "AVX2", "NEON", "SVE", "VSX", "z/Architecture vector"
 * or the raw ISA text ("CPU features" when only flags are known) and
 * <features> the /proc/cpuinfo names from pt2_isa_required_features(). The
 * -march part is shown only for "native" (the package then needs whatever
 * the build host had). Examples:
 *   "x86-64 Linux shared object, AVX-512 (avx512f, avx512dq, avx512vl, avx512bw, fma),
 *    -march=native"
 *   "AArch64 Linux shared object, NEON (asimd)"
 *   "macOS arm64 (Apple silicon) dylib, NEON (asimd)"
 *   "s390x (big-endian) Linux shared object"
 * `hosts` and `isa` may be NULL.
 */
const char *pt2_desc_cpu_text(const struct pt2_host_list *hosts, const struct pt2_cpu_isa *isa,
                              char *buf, size_t len);

/* What an ELF host binary is, in words: "shared object", "position-independent executable"
 * (ET_DYN with DF_1_PIE, when its needs were read), "executable", "relocatable object" or
 * "ELF file". A static string. */
const char *pt2_desc_elf_kind(const struct pt2_host *h);

#endif
