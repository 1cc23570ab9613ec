/*
 * pt2_zebin.h - Intel GPU kernels (zebin: an ELF with e_machine EM_INTELGT).
 *
 * Design: the GPU a zebin was compiled for is recorded by Intel's compiler
 * in the `.note.intelgt.compat` section, owner "IntelGT": note type 1 holds
 * the product family (IGC's PRODUCT_FAMILY: 1270 DG2, 1271 PVC, ...), type
 * 2 the graphics core family, each a 4-byte word. Only those two notes are
 * read (a bounded read of one section); a zebin without them is still a
 * kernel, with its target unknown.
 *
 * Ownership: fills the caller's struct pt2_kernel; holds nothing.
 */
#ifndef PT2_ZEBIN_H
#define PT2_ZEBIN_H

#include "pt2_elf.h"
#include "pt2_model.h"

/* Fill k (kind PT2_KERNEL_ZEBIN, intel_product, intel_gfxcore) from elf. */
int pt2_zebin_from_elf(struct pt2_elf *elf, struct pt2_kernel *k, struct pt2_error *err);

/*
 * The product family's short name ("pvc", "dg2") and description ("Intel
 * Data Center GPU Max (Ponte Vecchio)"); NULL for a family this table does
 * not know (the caller shows the number).
 */
const char *pt2_zebin_product_short(unsigned product);
const char *pt2_zebin_product_text(unsigned product);

#endif
