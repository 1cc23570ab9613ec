/*
 * testutil.h - helpers shared by the Check suites.
 *
 * Paths: suites run from the repository root. Fixtures live in
 * tests/fixtures/; the shared reference corpus is at $PT2SCOPE_SHARED
 * (default ../shared) and may be absent, in which case corpus tests skip
 * with a message rather than fail.
 */
#ifndef PT2_TESTUTIL_H
#define PT2_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

/* Read a whole (small) file; returns malloc'd bytes or NULL. */
uint8_t *tu_read_file(const char *path, size_t *len_out);

/* "tests/fixtures/<name>" into a static-per-call buffer the caller copies. */
const char *tu_fixture(const char *name, char *buf, size_t len);

/* Path under the shared folder (e.g. "corpus/bins/cubin_cuda13/sm_90a.cubin"),
 * or NULL when it is absent. With PT2SCOPE_REQUIRE_CORPUS=1 (CI) an absent
 * path fails the calling test instead: CI can never pass by skipping. */
const char *tu_shared(const char *rel, char *buf, size_t len);

/* 1 when the named file exists. */
int tu_exists(const char *path);

/* Print "SKIP <suite>: <why>" once to stderr. */
void tu_skip(const char *what, const char *why);

/* fn(path, name, ctx) for each regular file of `dir` whose name ends in `suffix` ("" for
 * all; dot files skipped), in readdir order: the sum of what fn returned (0: no such dir). */
int tu_each_file(const char *dir, const char *suffix,
                 int (*fn)(const char *path, const char *name, void *ctx), void *ctx);

/* `v` as 4 little-endian bytes at p (hand-made headers). */
void tu_put_le32(uint8_t *p, uint32_t v);

/* One platform load command of a hand-made Mach-O: LC_BUILD_VERSION (0x32: `platform`,
 * minos `version`) or an LC_VERSION_MIN_* (0x24, 0x25, 0x2f, 0x30: `version`). */
struct tu_macho_cmd {
    uint32_t cmd, platform, version;
};

/* A 64-bit little-endian arm64 MH_DYLIB with those load commands and nothing else, into
 * `out` (TU_MACHO_MAX bytes); its length. */
#define TU_MACHO_MAX 512u
size_t tu_macho_dylib(uint8_t *out, const struct tu_macho_cmd *c, size_t n);

/* Directory of build outputs ($PT2SCOPE_BUILD, default "build"). */
const char *tu_build_dir(void);

/* Run Check suite `s` (CK_NORMAL) and return the process exit status. */
struct Suite;
int tu_run_suite(struct Suite *s);

#endif
