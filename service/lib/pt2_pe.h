/*
 * pt2_pe.h - Windows PE/COFF host binaries (the `.pyd` model library torch's
 * Windows builds write), by their headers.
 *
 * Design: only the DOS header (`MZ`, e_lfanew), the `PE\0\0` signature, the
 * COFF file header (Machine, Characteristics) and the optional header's magic
 * are read, enough to name the machine and the file type; a PE library never
 * loads on Linux or macOS, which is what the verdicts need. Every offset is
 * checked against the file size.
 *
 * Ownership: fills the caller's struct pt2_host; holds nothing.
 */
#ifndef PT2_PE_H
#define PT2_PE_H

#include <stddef.h>
#include <stdint.h>

#include "pt2_model.h"
#include "pt2_rd.h"

#define PT2_PE_MACHINE_I386 0x14cu
#define PT2_PE_MACHINE_AMD64 0x8664u
#define PT2_PE_MACHINE_ARM64 0xaa64u

/* 1 when the first bytes start a DOS/PE image ("MZ"). */
int pt2_pe_probe(const uint8_t *p, size_t len);

/*
 * Describe the PE image in rd into h (format PT2_HOST_PE, bits, machine
 * "x86_64" / "arm64" / "i686" / "pe_<hex>", description, size).
 * *recognized is 0 (PT2_OK) when it is not PE; PT2_ERR_FORMAT for an "MZ"
 * file whose PE headers are missing or out of bounds.
 */
int pt2_pe_scan(struct pt2_rd *rd, struct pt2_host *h, int *recognized, struct pt2_error *err);

#endif
