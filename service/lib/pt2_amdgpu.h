/*
 * pt2_amdgpu.h - AMD GPU code objects (ELF e_machine 224, `.hsaco`).
 *
 * Design: the target of a code object is fully described by its ELF header
 * (FORMATS.md §8): EF_AMDGPU_MACH (e_flags[7:0]) names the gfx
 * processor, EI_ABIVERSION gives the code object version, and the xnack /
 * sramecc settings sit in e_flags with a layout that changed between code
 * object v3 (one "on" bit each) and v4+ (two-bit any/off/on fields). Nothing
 * beyond the header is read.
 *
 * Ownership: fills a caller-owned struct pt2_kernel; no allocation, no state.
 */
#ifndef PT2_AMDGPU_H
#define PT2_AMDGPU_H

#include <stdint.h>

#include "pt2_elf.h"
#include "pt2_model.h"

#define PT2_AMDGPU_OSABI_HSA 64u

/* Processor name for an EF_AMDGPU_MACH value ("gfx90a"), or NULL if unknown. */
const char *pt2_amdgpu_mach_name(unsigned mach);

/*
 * Decode `e_flags` of a code object with EI_OSABI `osabi` and EI_ABIVERSION
 * `abiversion` into k: kind (HSACO), gfx, xnack, sramecc, code_object_version
 * and target_id ("gfx90a:sramecc+:xnack-"; features set to any/unsupported
 * are omitted). An unknown MACH gives gfx "gfx_mach_0x<hex>".
 */
void pt2_amdgpu_decode(unsigned osabi, unsigned abiversion, uint32_t e_flags, struct pt2_kernel *k);

/* Decode the code object whose header `elf` holds (e_machine must be 224). */
int pt2_amdgpu_from_elf(const struct pt2_elf *elf, struct pt2_kernel *k, struct pt2_error *err);

#endif
