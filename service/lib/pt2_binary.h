/*
 * pt2_binary.h - identify one archive entry by its bytes and scan it.
 *
 * Design: the package inspector hands every candidate entry to
 * pt2_binary_scan(), which looks at the first bytes (never the file name)
 * and dispatches: cubin, AMD code object, Intel zebin (ELF e_machine 190 /
 * 224 / 205), other ELF = host binary (plus the GPU code embedded in it),
 * Mach-O, fatbin, SPIR-V, PTX text. All reads go through the caller's
 * struct pt2_rd, so the caller's budget bounds the whole scan.
 *
 * Kernels embedded in a host ELF are found two ways:
 *  - fatbins in `.nv_fatbin` / `__nv_relfatbin` (PT2_CONT_SO_FATBIN);
 *  - AOTInductor `embed_kernel_binary` blobs: `__<kernel>_start` in a
 *    `.rodata*` / `.lrodata*` section with a matching `__<kernel>_end` (same
 *    section) or `__<kernel>_size` (absolute), each blob a cubin, a fatbin or
 *    an AMD code object (PT2_CONT_SO_SYMBOL, symbol = kernel name).
 *
 * Ownership: records are appended to caller-owned lists. On error, records
 * appended before the failure stay in the lists.
 */
#ifndef PT2_BINARY_H
#define PT2_BINARY_H

#include <stdint.h>

#include "pt2_model.h"
#include "pt2_rd.h"

#define PT2_BINARY_SPIRV_MAGIC 0x07230203u

/* Bytes of padding between fatbins in a `.nv_fatbin` section that are skipped. */
#define PT2_BINARY_SECTION_GAP_MAX (64u * 1024u)
/* Host ELF without section headers: scan the whole file for fatbins only up to this size. */
#define PT2_BINARY_RAW_SCAN_MAX (256u * 1024u)
/* Bytes of one symbol table walked when looking for embedded kernels. */
#define PT2_BINARY_SYMTAB_BYTES_MAX (256u * 1024u)
/* Candidate `__*_start/_end/_size` symbols kept per table. */
#define PT2_BINARY_EMBED_SYMS_MAX 4096u

/*
 * Identify and scan one archive entry (read through rd; rd->name is used in
 * messages). `source` is the entry path (prefix stripped) copied into every
 * record. Appends kernel records to `kernels` and at most one host record to
 * `hosts`. Unknown formats are not an error: *recognized = 0.
 */
int pt2_binary_scan(struct pt2_rd *rd, const char *source, struct pt2_kernel_list *kernels,
                    struct pt2_host_list *hosts, int *recognized, struct pt2_error *err);

/* Ranges one pt2_binary_plan() call returns at most. */
#define PT2_BINARY_PLAN_MAX 12u
/* Bytes planned of a `.nv_fatbin` section or a string table: their headers come first. */
#define PT2_BINARY_PLAN_SECTION (64u * 1024u)
/* Bytes planned of `.dynstr`: the runtime needs read it whole (imports' names). */
#define PT2_BINARY_PLAN_STRTAB (1024u * 1024u)

/*
 * The reads pt2_binary_scan() will make in a host ELF beyond its ELF header
 * and section table: the start of each fatbin section, the global part of
 * `.dynsym` and `.symtab`, `.dynstr`, and the start of `.dynamic`,
 * `.gnu.version_r` and `.gnu.version` (the runtime needs), as ranges of rd (at most
 * PT2_BINARY_PLAN_MAX, *n of them). Read through rd, so a caller whose
 * reader is cached pays nothing for the headers it already holds. Other
 * formats, and any failure, give *n = 0: a plan only speeds reads up.
 */
void pt2_binary_plan(struct pt2_rd *rd, struct pt2_range *out, size_t *n);

#endif
