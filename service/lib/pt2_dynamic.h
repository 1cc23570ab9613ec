/*
 * pt2_dynamic.h - the dynamic part of an ELF shared object: what it needs
 * and what it provides.
 *
 * Design: only the sections the dynamic loader itself uses are read:
 * `.dynamic` (DT_NEEDED, DT_SONAME, DT_RPATH, DT_RUNPATH, DT_FLAGS,
 * DT_FLAGS_1), its string table, `.gnu.version_r` (version needs),
 * `.gnu.version_d` (version definitions), `.dynsym` + `.gnu.version`
 * (undefined symbols and the version each requires) and, to look a symbol
 * up in a provider, `.gnu.hash` or `.hash` - the loader's own algorithm, so
 * a 300 MB libtorch_cpu.so costs its hash table and a few reads per name,
 * never its symbol table. The string table is held whole up to 8 MiB; a
 * larger one is never read whole: the names .dynamic and the version
 * sections point at are read one by one (each up to 4 KiB). Counts and
 * offsets come from the file and are checked: chains that loop or run past
 * their section end the walk with a `partial` note (pt2_needs.h), never a
 * crash and never a silent floor.
 *
 * Ownership: everything reads through the caller's struct pt2_elf (its
 * reader bounds the bytes); results go to caller-owned structs.
 */
#ifndef PT2_DYNAMIC_H
#define PT2_DYNAMIC_H

#include <stdint.h>

#include "pt2_elf.h"
#include "pt2_needs.h"

#define PT2_DYN_SHT_DYNAMIC 6u
#define PT2_DYN_SHT_HASH 5u
#define PT2_DYN_SHT_GNU_HASH 0x6ffffff6u
#define PT2_DYN_SHT_VERDEF 0x6ffffffdu
#define PT2_DYN_SHT_VERNEED 0x6ffffffeu
#define PT2_DYN_SHT_VERSYM 0x6fffffffu

enum pt2_dyn_what {
    PT2_DYN_IMPORTS = 1, /* undefined symbols of .dynsym with their versions */
    PT2_DYN_DEFS = 2     /* version definitions (for providers) */
};

/*
 * Fill `out` (from pt2_needs_new(PT2_HOST_ELF)) from the ELF's dynamic
 * sections: always the libraries, run paths, flags and version needs;
 * `what` adds imports and/or definitions. Sections must be loadable
 * (pt2_elf_load_sections). A malformed or clipped section is a `partial`
 * note, not a failure; only out of memory and a failing reader fail.
 */
int pt2_dyn_read(struct pt2_elf *elf, unsigned what, struct pt2_needs *out, struct pt2_error *err);

/*
 * Symbol lookup in a provider, as the loader does it. Holds the provider's
 * hash table (capped) and its version definitions; *sym tables are read on
 * demand through the ELF's reader.
 */
struct pt2_dyn_symtab {
    struct pt2_elf *elf; /* borrowed */
    const struct pt2_elf_section *dynsym, *dynstr, *versym;
    uint8_t *hash; /* .gnu.hash or .hash contents, owned */
    size_t hash_len;
    int gnu;                      /* 1 .gnu.hash, 0 .hash */
    const struct pt2_needs *defs; /* the provider's version definitions, borrowed */
};

/* PT2_ERR_FORMAT when the provider has no usable symbol hash table. */
int pt2_dyn_symtab_open(struct pt2_dyn_symtab *t, struct pt2_elf *elf, const struct pt2_needs *defs,
                        struct pt2_error *err);
void pt2_dyn_symtab_close(struct pt2_dyn_symtab *t);

/*
 * Does the provider define `name` (with `version`, or NULL for an
 * unversioned reference) as the loader would bind it? *found = 1/0.
 */
int pt2_dyn_symtab_find(struct pt2_dyn_symtab *t, const char *name, const char *version, int *found,
                        struct pt2_error *err);

#endif
