/*
 * pt2_cubin.h - NVIDIA cubin (ELF e_machine 190) decoding.
 *
 * Design: a cubin says which SM it was built for in two different ways
 * depending on its ELF ABI version (FORMATS.md §6):
 *   ABI 7 (CUDA <= 12.x): everything is in e_flags (SM, 'a', virtual SM) and
 *                         the toolkit version is in e_version;
 *   ABI 8 (CUDA 13):      SM in e_flags[15:8], 'a' in `.nv.compat` attribute
 *                         0x09, virtual SM and toolkit in `.note.nv.cuinfo`,
 *                         and 'f' only in the `.note.nv.tkinfo` options text.
 * This module reads the header, the section table, and those three small
 * sections; it never reads code. It reports what the binary itself says.
 *
 * Ownership: fills a caller-owned struct pt2_kernel; allocates nothing that
 * outlives a call.
 */
#ifndef PT2_CUBIN_H
#define PT2_CUBIN_H

#include <stdint.h>

#include "pt2_elf.h"
#include "pt2_model.h"
#include "pt2_rd.h"

#define PT2_CUBIN_NOTE_MAX 4096u   /* cap on a cuinfo/tkinfo descriptor read */
#define PT2_CUBIN_COMPAT_MAX 1024u /* cap on the .nv.compat section read */

/*
 * Decode the cubin whose header `elf` holds (e_machine must be 190).
 * Loads the section table if needed. Sets kind (SASS), sm, variant,
 * virtual_sm, abi_version, elf_type, toolkit, debug and has_code; leaves
 * container, source, symbol and compression untouched.
 */
int pt2_cubin_from_elf(struct pt2_elf *elf, struct pt2_kernel *k, struct pt2_error *err);

/* Open the ELF image at [off, off+size) of rd and decode it as a cubin. */
int pt2_cubin_scan(struct pt2_rd *rd, uint64_t off, uint64_t size, struct pt2_kernel *k,
                   struct pt2_error *err);

/* 1 when `sm` is an SM number NVIDIA has shipped (20 ... 121). */
int pt2_cubin_known_sm(unsigned sm);

/*
 * Find the target in a ptxas options string ("-arch sm_100f -m 64"):
 * returns 1 and sets *sm and *variant (0, 'a' or 'f'), or 0 when absent.
 */
int pt2_cubin_parse_arch_option(const char *opts, unsigned *sm, char *variant);

/*
 * Value of attribute `attr` in a `.nv.compat` / `.nv.info` style TLV block.
 * Returns 1 and sets *value when present with a scalar value, else 0.
 */
int pt2_cubin_compat_attr(const uint8_t *p, size_t len, unsigned attr, unsigned *value);

#endif
