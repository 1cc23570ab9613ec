/*
 * pt2_needs.h - what one host library needs from the process that loads it.
 *
 * Design: torch opens a model library with dlopen(RTLD_NOW), so every
 * library it names, every symbol version it requires and every non-weak
 * undefined symbol must resolve at load (../shared/docs/runtime-needs.md).
 * The readers (pt2_dynamic for ELF, pt2_macho for Mach-O, pt2_pe for PE)
 * fill one plain struct pt2_needs per library with the raw facts: DT_NEEDED /
 * LC_LOAD_DYLIB / imported DLL names, run paths, bind-now, version needs and the undefined symbols
 * with their versions. The floors (glibc, GLIBCXX, CXXABI, GCC, GOMP, macOS) and the torch floor
 * (pt2_shims) are derived from those facts on demand, so the rules live once, beside the data they
 * read.
 *
 * Bounds: at most PT2_NEEDS_LIBS_MAX libraries, PT2_NEEDS_VERSIONS_MAX
 * version needs, PT2_NEEDS_IMPORTS_MAX undefined symbols and
 * PT2_NEEDS_NAMES_MAX bytes of names are kept; past a cap the rest is
 * counted (imports_total) and `partial` says what was left out. A reader
 * that meets a malformed section also sets `partial`: an incomplete reading
 * never becomes a floor that is lower than the truth without saying so.
 *
 * Ownership: a struct pt2_needs owns its arrays; pt2_needs_free() releases
 * them and the struct itself (NULL-safe). A host record (pt2_host.needs)
 * owns its needs.
 */
#ifndef PT2_NEEDS_H
#define PT2_NEEDS_H

#include <stddef.h>
#include <stdint.h>

#include "pt2_error.h"

#define PT2_NEEDS_LIBS_MAX 256u
#define PT2_NEEDS_VERSIONS_MAX 512u
#define PT2_NEEDS_DEFS_MAX 4096u
#define PT2_NEEDS_IMPORTS_MAX 65536u
#define PT2_NEEDS_NAMES_MAX (4u * 1024u * 1024u)
/* Bytes of dynamic sections one library may cost (its .dynstr and .dynsym dominate). */
#define PT2_NEEDS_READ_MAX (16u * 1024u * 1024u)

/* What an undefined symbol binds the library to (pt2_shims classifies). */
enum pt2_import_kind {
    PT2_IMP_OTHER = 0,
    PT2_IMP_SHIM = 1,          /* a torch C shim the table knows */
    PT2_IMP_PREFIXED_SHIM = 2, /* <prefix>aoti_torch_*: not torch's (ExecuTorch's SlimTensor) */
    PT2_IMP_CUSTOM_SHIM = 3,   /* aoti_torch_* no torch release declares */
    PT2_IMP_LIBTORCH_CXX = 4,  /* mangled torch::, c10::, at:: C++ symbols */
    PT2_IMP_CUDA = 5,          /* CUDA runtime / driver API */
    PT2_IMP_HIP = 6,           /* HIP runtime */
    PT2_IMP_KINDS = 7
};

struct pt2_vneed {
    uint32_t file;    /* offset into names: "libc.so.6" */
    uint32_t version; /* offset into names: "GLIBC_2.38" */
    uint16_t index;   /* vna_other: what .gnu.version entries refer to */
    uint8_t weak;     /* VER_FLG_WEAK */
    uint32_t nsyms;   /* undefined symbols that require it */
};

struct pt2_import {
    uint32_t name; /* offset into names */
    int32_t vneed; /* index into vers, -1 = unversioned */
    uint8_t weak;  /* STB_WEAK: may stay unresolved */
    uint8_t kind;  /* enum pt2_import_kind */
    uint16_t shim; /* pt2_shims table index + 1 for PT2_IMP_SHIM and prefixed ones, else 0 */
};

enum { PT2_STACK_EXEC = 1, PT2_STACK_IMPLIED = 2 };

struct pt2_needs {
    int format;      /* enum pt2_host_format */
    uint32_t soname; /* offset into names, 0 = none ("" at offset 0) */
    uint32_t runpath, rpath;
    int bind_now;     /* DF_BIND_NOW / DF_1_NOW */
    int defs_partial; /* ELF: the version definitions were read in part (a version may hide) */
    int pie; /* ELF: DF_1_PIE, a position-independent executable (glibc 2.30+ refuses dlopen) */
    /* Mach-O: mach_header's filetype (6 MH_DYLIB, 8 MH_BUNDLE, 2 MH_EXECUTE: dyld does not
     * dlopen it), of the first slice of a universal file; 0 elsewhere. */
    uint32_t macho_filetype;
    /* ELF: the stack it asks for, which glibc 2.41 and newer refuse to make executable in
     * dlopen: PT2_STACK_EXEC (PT_GNU_STACK with PF_X), PT2_STACK_IMPLIED (no PT_GNU_STACK on
     * x86, whose default stack is executable), else 0. */
    int exec_stack;
    size_t nlibs;
    uint32_t libs[PT2_NEEDS_LIBS_MAX];     /* DT_NEEDED / LC_LOAD_DYLIB, in order */
    uint8_t libs_weak[PT2_NEEDS_LIBS_MAX]; /* LC_LOAD_WEAK_DYLIB */
    /* PE delay-load directory: loaded by the first call of one of its functions, not at
     * load time (its functions are imports like the others: running needs them). A PE's
     * DLLs are listed once each (names compared without ASCII case); 1 only where no
     * import descriptor names it. */
    uint8_t libs_delay[PT2_NEEDS_LIBS_MAX];
    struct pt2_vneed *vers;
    size_t nvers;
    uint32_t *defs; /* version names a provider defines (.gnu.version_d), by vd_ndx */
    uint16_t *defs_ndx;
    size_t ndefs;
    struct pt2_import *imports;
    size_t nimports, imports_cap;
    uint64_t imports_total; /* undefined symbols seen, kept or not */
    uint32_t macos_min;     /* Mach-O minimum macOS as xxxx.yy.zz nibbles (0x000e0000 = 14.0) */
    /* Mach-O: bit p for each platform p it is built for (LC_BUILD_VERSION's platform, or the
     * LC_VERSION_MIN_* command standing for one: 1 macOS, 2 iOS, 3 tvOS, 4 watchOS,
     * 6 Mac Catalyst, ...; bit 0: a platform number outside 1..31); 0 = none named. */
    uint32_t macho_platforms;
    /* PE only (pt2_pe.h), 0 elsewhere: the optional header's Subsystem (2 windows-gui,
     * 3 windows-cui, ...) and DllCharacteristics (0x40 dynamic-base, 0x100 nx-compat, ...),
     * the COFF header's Characteristics (PT2_PE_FILE_DLL 0x2000: a DLL). Imports are the
     * bare function names, "#<n>" for one imported by ordinal n. */
    uint16_t pe_subsystem, pe_dll_characteristics, pe_characteristics;
    char *names; /* NUL-separated; offset 0 is "" */
    size_t names_len, names_cap;
    char partial[PT2_ERROR_MSG_MAX]; /* "" or why the facts are incomplete */
};

/* A new, empty needs record for a library of `format`; NULL when out of memory. */
struct pt2_needs *pt2_needs_new(int format);
void pt2_needs_free(struct pt2_needs *n);
/* Heap bytes it holds (for pt2_package_memory). */
uint64_t pt2_needs_memory(const struct pt2_needs *n);

/* The string at `off` ("" for 0 or out of range). */
const char *pt2_needs_str(const struct pt2_needs *n, uint32_t off);

/* Keep a copy of `s[0..len)`; *off is its offset. PT2_ERR_TOO_LARGE past the name budget. */
int pt2_needs_intern(struct pt2_needs *n, const char *s, size_t len, uint32_t *off,
                     struct pt2_error *err);

/* Add a library, a version need, a version definition, an import (each capped; past a
 * cap the item is dropped and `partial` says so; only out of memory fails). */
int pt2_needs_add_lib(struct pt2_needs *n, const char *name, int weak, struct pt2_error *err);
int pt2_needs_add_vneed(struct pt2_needs *n, const char *file, const char *version, uint16_t index,
                        int weak, struct pt2_error *err);
int pt2_needs_add_def(struct pt2_needs *n, const char *version, uint16_t ndx,
                      struct pt2_error *err);
int pt2_needs_add_import(struct pt2_needs *n, const char *name, int32_t vneed, int weak,
                         struct pt2_error *err);

/* Record why the facts are incomplete (the first reason wins). */
void pt2_needs_set_partial(struct pt2_needs *n, const char *fmt, ...) PT2_PRINTF(2, 3);

/* The version need with vna_other == index, or -1. */
int32_t pt2_needs_vneed_by_index(const struct pt2_needs *n, uint16_t index);

/* Whether the provider defines version `version` (its .gnu.version_d). */
int pt2_needs_defines(const struct pt2_needs *n, const char *version);

#endif
