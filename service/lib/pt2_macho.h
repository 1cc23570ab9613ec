/*
 * pt2_macho.h - Mach-O host binaries (macOS AOTInductor `.so`/dylibs).
 *
 * Design: only the mach header (thin files) or the fat header and each
 * slice's mach header (universal files) are read; load commands are not
 * needed to say what CPU a binary is for. 0xCAFEBABE is also the magic of
 * Java class files, whose next word (the class version, 45 and up) would read
 * as an architecture count, so a universal header is only accepted with a
 * small count (1..PT2_MACHO_FAT32_MAX, the limit file(1) uses).
 *
 * Ownership: fills a caller-owned struct pt2_host; no allocation, no state.
 */
#ifndef PT2_MACHO_H
#define PT2_MACHO_H

#include <stddef.h>
#include <stdint.h>

#include "pt2_model.h"
#include "pt2_rd.h"

#define PT2_MACHO_FAT32_MAX 19u /* 0xCAFEBABE: more is a Java class file */
#define PT2_MACHO_FAT64_MAX 64u /* 0xCAFEBABF: hard cap on slices */

enum pt2_macho_kind { PT2_MACHO_NONE = 0, PT2_MACHO_THIN = 1, PT2_MACHO_FAT = 2 };

/* Classify the first bytes of a file (8 needed for universal files). */
int pt2_macho_probe(const uint8_t *p, size_t len);

/*
 * Describe the Mach-O file in rd into h (format, bits, big_endian,
 * e_machine = cputype of the first slice, machine, description, size).
 * *recognized is 0 (and PT2_OK returned) when rd is not Mach-O.
 * PT2_ERR_FORMAT when a universal header or a slice is inconsistent.
 */
/* With h->needs set (pt2_needs_new), also its runtime needs: LC_LOAD_DYLIB and
 * LC_LOAD_WEAK_DYLIB names, the minimum macOS (LC_BUILD_VERSION, LC_VERSION_MIN_MACOSX)
 * and the undefined externals of LC_SYMTAB (the first slice of a universal file). */
int pt2_macho_scan(struct pt2_rd *rd, struct pt2_host *h, int *recognized, struct pt2_error *err);

/* "arm64", "arm64e", "x86_64", "i386", ... or "cpu_0x<hex>" into buf. Returns buf. */
const char *pt2_macho_cpu_name(uint32_t cputype, uint32_t cpusubtype, char *buf, size_t len);

#endif
