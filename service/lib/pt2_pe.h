/*
 * pt2_pe.h - Windows PE/COFF host binaries (the `.pyd` model library torch's
 * Windows builds write): headers and the import directory.
 *
 * Design: read what the Windows loader reads to bind a DLL, nothing else:
 * the DOS header (`MZ`, e_lfanew), the `PE\0\0` signature, the COFF file
 * header (Machine, Characteristics), the optional header (PE32 or PE32+:
 * Subsystem, DllCharacteristics, the data directories), the section table
 * (to turn RVAs into file offsets) and the import directory: each
 * IMAGE_IMPORT_DESCRIPTOR's DLL name, in order, and its lookup table
 * (OriginalFirstThunk, else FirstThunk) of functions imported by name (the
 * hint/name table) or by ordinal; then the delay-load directory the same way
 * (its DLLs marked in libs_delay: bound at their first call, not at load).
 * The facts go to the host's struct
 * pt2_needs (pt2_needs.h): DLL names as libraries, functions as imports
 * (the bare name; an ordinal import as "#<ordinal>", e.g. "#7"), so the
 * torch floor of the C shims (pt2_shims) is the same as for an ELF library.
 *
 * Bounds: every offset and size is checked against the file size before it
 * is read; reads go through the byte source in windows of PT2_PE_WINDOW
 * bytes; at most PT2_PE_SECTIONS_MAX sections, PT2_NEEDS_LIBS_MAX DLLs,
 * PT2_NEEDS_IMPORTS_MAX functions (lookup-table entries, kept or not) and
 * the needs' name budget. A malformed optional header, section table or
 * import table, a cap or the reader's budget never fails the scan: the
 * library is still described and `partial` says what was left out.
 *
 * Ownership: fills the caller's struct pt2_host (and its needs, when
 * h->needs is set); holds nothing.
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

/* COFF Characteristics: the image is a DLL. */
#define PT2_PE_FILE_DLL 0x2000u

/* The Windows loader's own limit on sections (PE format, "COFF File Header"). */
#define PT2_PE_SECTIONS_MAX 96u
/* Longest DLL name (MAX_PATH) and imported function name kept. */
#define PT2_PE_DLLNAME_MAX 260u
#define PT2_PE_FUNCNAME_MAX 1024u
/* Bytes of one read window over the import tables. */
#define PT2_PE_WINDOW 4096u

/* 1 when the first bytes start a DOS/PE image ("MZ"). */
int pt2_pe_probe(const uint8_t *p, size_t len);

/*
 * Describe the PE image in rd into h (format PT2_HOST_PE, bits, machine
 * "x86_64" / "arm64" / "i686" / "pe_<hex>", description such as
 * "PE32+ DLL, x86_64, windows-gui", size) and, when h->needs is not NULL,
 * fill it (pe_* fields, DLLs, imports, partial). *recognized is 0 (PT2_OK)
 * when it is not PE (no "MZ", or no PE signature where e_lfanew points).
 * Fails only when the reader does (I/O, out of memory).
 */
int pt2_pe_scan(struct pt2_rd *rd, struct pt2_host *h, int *recognized, struct pt2_error *err);

/* The PE spec's subsystem as a name ("windows-gui", "windows-cui", "native",
 * "efi-application", ...); "" for 0 (unknown), "subsystem-<n>" for a code the spec
 * does not define. Returns buf. */
const char *pt2_pe_subsystem_name(unsigned subsystem, char *buf, size_t len);

/* The name of DllCharacteristics bit `bit` (a single bit: 0x40 -> "dynamic-base",
 * 0x100 -> "nx-compat", 0x20 -> "high-entropy-va", 0x4000 -> "guard-cf", ...), or NULL
 * for a reserved bit. */
const char *pt2_pe_dll_characteristic_name(unsigned bit);

#endif
