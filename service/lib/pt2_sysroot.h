/*
 * pt2_sysroot.h - `ldd -r` that executes nothing: will this library load
 * inside that root filesystem?
 *
 * Design: a sysroot is a mounted root of the serving image. Each DT_NEEDED
 * is resolved as the dynamic loader would inside it - libraries torch has
 * already loaded (every `* /site-packages/torch/lib`), the run paths
 * (DT_RPATH unless DT_RUNPATH, then DT_RUNPATH; $ORIGIN is the provider's
 * own folder), the root's ld.so.conf folders, the default folders - then
 * every version need of every loaded object is checked against its
 * provider's version definitions, and every non-weak undefined symbol of
 * the model library against the exports of the libraries in its load scope
 * (through their hash tables, pt2_dynamic). What the libraries it loads
 * need in turn is checked for libraries and versions, not symbol by symbol:
 * an image whose own libraries do not load is broken for every package.
 *
 * Bounds: every path is resolved component by component inside the root
 * (absolute symlinks are re-rooted, ".." stops at the root, at most 40
 * links), so nothing outside it is opened; at most PT2_SYSROOT_LIBS_MAX
 * libraries and PT2_NEEDS_READ_MAX bytes of each are read.
 *
 * Ownership and threads: a sysroot caches the libraries it has read; calls
 * on one sysroot are serialised by its own lock, so a daemon shares one.
 * A libtorch set (pt2_sysroot_libtorch) is a sysroot whose scope is the
 * libraries of one torch build, for exact shim checks.
 */
#ifndef PT2_SYSROOT_H
#define PT2_SYSROOT_H

#include <stddef.h>

#include "pt2_needs.h"

#define PT2_SYSROOT_LIBS_MAX 256u
#define PT2_SYSROOT_MISSING_MAX 16u /* each kind listed at most; the counts are exact */

struct pt2_sysroot;

/* PT2_ERR_NOT_FOUND when `dir` is missing, PT2_ERR_INVALID when it is not a root filesystem. */
int pt2_sysroot_open(const char *dir, struct pt2_sysroot **out, struct pt2_error *err);
/*
 * The libraries of one torch build: `path` is a libtorch_cpu.so (any
 * version suffix) or the folder holding it. Its scope is that file plus,
 * in a folder, libtorch.so, libc10.so and the device libraries beside it.
 */
int pt2_sysroot_libtorch(const char *path, struct pt2_sysroot **out, struct pt2_error *err);
void pt2_sysroot_free(struct pt2_sysroot *sr);
const char *pt2_sysroot_dir(const struct pt2_sysroot *sr);

struct pt2_load_missing_version {
    char file[128], version[64], required_by[128];
    unsigned nsyms;
};

struct pt2_load_missing_symbol {
    char name[256], version[64];
};

struct pt2_load_result {
    size_t nloaded; /* libraries in the load scope */
    size_t nmissing_libs, nmissing_versions, nmissing_symbols;
    char missing_libs[PT2_SYSROOT_MISSING_MAX][176]; /* "libtorch.so (needed by x.so)" */
    char missing_lib_names[PT2_SYSROOT_MISSING_MAX][128];
    struct pt2_load_missing_version missing_versions[PT2_SYSROOT_MISSING_MAX];
    struct pt2_load_missing_symbol missing_symbols[PT2_SYSROOT_MISSING_MAX];
    char glibc[24];   /* newest GLIBC_ version the root's libc.so.6 defines (loaded or not),
                       * "" unknown */
    char glibcxx[24]; /* newest GLIBCXX_ of the libstdc++.so.6 it loads, "" unknown */
    /* The first library of the load scope that asks for an executable stack (glibc 2.41 and
     * newer refuse to dlopen it), "" none; its PT2_STACK_* kind. */
    char execstack_lib[128];
    int execstack_kind;
    /* What could not be checked, "" when all was: a library of the load scope read in part
     * (its own needs may be hidden), a version or a versioned symbol not found in a provider
     * whose version definitions were read in part, or a symbol not found where some
     * provider's symbols could not be read (none of these is counted missing). The library's own
     * partial reading is its needs' `partial`, not repeated here. */
    char note[PT2_ERROR_MSG_MAX];
};

/*
 * Check library `lib` (its needs; `name` for messages, its machine for the
 * providers it may take) inside the sysroot. Fails only for out of memory
 * or a failing read; everything the library lacks is in *res.
 */
int pt2_sysroot_check(struct pt2_sysroot *sr, const struct pt2_needs *lib, const char *name,
                      const char *machine, struct pt2_load_result *res, struct pt2_error *err);

/*
 * For a libtorch set: which of `lib`'s non-weak shim and libtorch C++
 * imports its libraries do not export (*res: missing_symbols).
 */
/* The newest "<prefix>x.y" version library `name` defines, as the loader finds it in the
 * root's default and ld.so.conf folders (read, never loaded). PT2_ERR_NOT_FOUND when absent. */
int pt2_sysroot_newest(struct pt2_sysroot *sr, const char *name, const char *prefix, char *out,
                       size_t len);

int pt2_sysroot_check_exports(struct pt2_sysroot *sr, const struct pt2_needs *lib,
                              struct pt2_load_result *res, struct pt2_error *err);

#endif
