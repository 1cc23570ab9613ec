/*
 * pt2_shims.h - what a model library's imports say about the torch it needs.
 *
 * Design: the table of torch C-shim names and the first (and last) torch
 * release declaring each is data with sources (service/lib/data/
 * shim-versions.tsv and its README), turned into C at build time by
 * service/tools/gen_shims.sh; nothing here is typed by hand. Releases are
 * major*100+minor (2.14 = 214). A range "2.7-2.9" is kept as one (lo, hi):
 * a library importing the name needs at least lo and is sure to load from
 * hi on. Nightly-only names ("2.3?") mean a 2.3-era build that loads on no
 * later release. A name the table does not know is never dated: the floor
 * becomes a lower bound and the name is reported.
 *
 * Classification of an undefined symbol (enum pt2_import_kind): torch C
 * shims (aoti_torch_*, torch_* the table knows), shims under a symbol
 * prefix (<p>aoti_torch_*, AOTI_SHIM_SYMBOL_PREFIX builds: not torch's),
 * custom shims (aoti_torch_* no release declares), mangled libtorch / c10 /
 * ATen C++ symbols (Itanium `_ZN5torch...` or, in a Windows library, MSVC
 * `?empty@at@@...`: tie the library to one exact libtorch build), CUDA and
 * HIP runtime, the rest.
 *
 * Ownership: the table is static; results borrow from it or from the needs.
 */
#ifndef PT2_SHIMS_H
#define PT2_SHIMS_H

#include <stddef.h>
#include <stdint.h>

#include "pt2_needs.h"

struct pt2_shim {
    const char *name;
    uint16_t first_lo, first_hi; /* first release declaring it (lo == hi when exact) */
    uint16_t last_lo, last_hi;   /* last release declaring it; 0 = still declared */
    uint8_t nightly;             /* seen only in 2.3 nightly headers */
};

size_t pt2_shims_count(void);
const struct pt2_shim *pt2_shims_at(size_t i);
/* The table's entry for `name`, or NULL. */
const struct pt2_shim *pt2_shims_find(const char *name);

/* enum pt2_import_kind of `name` (Mach-O names without their leading '_'); *shim is the
 * table entry of a shim or prefixed shim (NULL otherwise), *prefix_len the prefix length. */
int pt2_shims_classify(const char *name, const struct pt2_shim **shim, size_t *prefix_len);

/* Classify every import of `n` in place (kind, shim). */
void pt2_shims_classify_needs(struct pt2_needs *n);

/* "2.7" for 207 into buf; "" for 0. */
const char *pt2_shims_release_text(unsigned r, char *buf, size_t len);
/* "2.8", "2.8.1", "2.8.0+cu128" -> 208. PT2_OK or PT2_ERR_INVALID. */
int pt2_shims_release_parse(const char *s, unsigned *out);

/* What the torch shims of one library (or several, merged) require. */
struct pt2_torch_floor {
    unsigned min;       /* lowest release that can serve every known shim; 0 = no shim */
    unsigned sure_from; /* from this release every known shim is declared (>= min) */
    unsigned max_lo;    /* a removed name: declared up to at least this release */
    unsigned max_hi;    /* ... and at most this one; 0 = nothing removed */
    int nightly;        /* a 2.3-nightly-only name: built by a 2.3-era torch */
    char because[128];  /* the name that sets min */
    char because_sure[128];
    char because_max[128];
    size_t shims, prefixed, custom, cxx; /* non-weak imports of each kind */
    char prefix[64];                     /* the first symbol prefix seen, "" = none */
    char unknown[4][128];                /* the first custom shims */
    char cxx_first[4][256];              /* the first libtorch C++ imports */
};

/* Start empty, then merge each library's non-weak imports into the floor. */
void pt2_shims_floor_init(struct pt2_torch_floor *f);
void pt2_shims_floor_add(struct pt2_torch_floor *f, const struct pt2_needs *n);

#endif
