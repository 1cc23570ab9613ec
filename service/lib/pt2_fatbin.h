/*
 * pt2_fatbin.h - NVIDIA fatbin containers (magic 0xBA55ED50).
 *
 * Design: a fatbin is a 16-byte header followed by entries, each an entry
 * header (its own size field) plus a payload (FORMATS.md §7).
 * Only headers are read; payloads are skipped by offset, except that an
 * uncompressed ELF payload is decoded as a cubin in place (pt2_cubin reads
 * its header and small sections through the same reader) to learn its
 * virtual SM, toolkit and whether it holds code. Several fatbins may follow
 * each other in one region (nvcc 13 puts two in `.nv_fatbin`), each starting
 * at an 8-byte-aligned offset.
 *
 * Ownership: records are appended to a caller-owned pt2_kernel_list.
 */
#ifndef PT2_FATBIN_H
#define PT2_FATBIN_H

#include <stddef.h>
#include <stdint.h>

#include "pt2_model.h"
#include "pt2_rd.h"

#define PT2_FATBIN_MAGIC 0xBA55ED50u
#define PT2_FATBIN_HEADER_SIZE 16u
#define PT2_FATBIN_ENTRY_MIN 64u       /* fixed part of an entry header */
#define PT2_FATBIN_ENTRY_HDR_MAX 4096u /* cap on an entry header's size field */
#define PT2_FATBIN_ENTRIES_MAX 4096u   /* cap on entries in one fatbin */
/*
 * The arch field of a PTX or ELF entry is a compute capability times ten
 * (sm_90 -> 90, sm_121 -> 121). Every SM nvcc has ever targeted (sm_10 on)
 * lies in [10, 999]; anything else is corrupt, and taking it as an SM would
 * put a nonsense "sm_4294967295" into reports and compatibility checks.
 */
#define PT2_FATBIN_ARCH_MIN 10u
#define PT2_FATBIN_ARCH_MAX 999u

/* Entry kinds and flags (u64 at entry +0x28). */
#define PT2_FATBIN_KIND_PTX 1u
#define PT2_FATBIN_KIND_ELF 2u
#define PT2_FATBIN_FLAG_DEBUG 0x2u
#define PT2_FATBIN_FLAG_LZ4 0x2000u
#define PT2_FATBIN_FLAG_ZSTD 0x8000u
#define PT2_FATBIN_FLAG_ARCH_A 0x100000u
#define PT2_FATBIN_FLAG_ARCH_F 0x200000u

/* 1 when the 4 bytes at p are the fatbin magic (little-endian). */
int pt2_fatbin_probe(const uint8_t *p, size_t len);

/*
 * Walk the fatbins in [off, off+size) of rd and append one record per PTX or
 * ELF entry to `out`. Each record starts as a copy of `tmpl` (container,
 * source, symbol), so the caller says where the fatbins were found.
 *
 * A fatbin must start at `off`, or within `gap_max` bytes of 8-aligned
 * offsets after it (bytes between fatbins, e.g. section padding, are skipped
 * the same way); the walk ends at the region end or after `gap_max` bytes
 * without a fatbin. *nfatbins (may be NULL) receives the number found.
 * PT2_ERR_FORMAT for a fatbin whose header or entries overflow it, or whose
 * PTX or ELF entry has an arch outside [PT2_FATBIN_ARCH_MIN,
 * PT2_FATBIN_ARCH_MAX] (the whole scan fails: one corrupt header means the
 * rest of that fatbin cannot be trusted either).
 */
int pt2_fatbin_scan(struct pt2_rd *rd, uint64_t off, uint64_t size, uint64_t gap_max,
                    const struct pt2_kernel *tmpl, struct pt2_kernel_list *out, size_t *nfatbins,
                    struct pt2_error *err);

#endif
