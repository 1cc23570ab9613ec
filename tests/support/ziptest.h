/*
 * ziptest.h - helpers shared by the zip suites (test_zip, test_zip_eocd,
 * test_zip_layout).
 *
 * Archives that need odd contents are made on the fly in a temporary folder
 * ($TMPDIR or /tmp), with libzip for ordinary zips; each suite writes its
 * broken end records and headers by hand itself. Every helper fails the
 * calling test (ck_assert) instead of returning an error.
 */
#ifndef PT2_ZIPTEST_H
#define PT2_ZIPTEST_H

#include <stddef.h>
#include <stdint.h>

#include "pt2_zip.h"

/* One entry of a zip to write: name and NUL-terminated contents. */
struct zt_ent {
    const char *name;
    const char *data;
};

/* Open tests/fixtures/<name>; the test fails if it does not open. */
pt2_zip *zt_open_fixture(const char *name);
/* Open `path` with a cleared *err and *z = NULL first; returns the status. */
int zt_open_tmp(const char *path, pt2_zip **z, struct pt2_error *err);

/* Index of the first entry whose relname ends with `suffix` (the test fails if none). */
size_t zt_find_suffix(const pt2_zip *z, const char *suffix);
/* Index of the entry whose relname is `rel` (the test fails if none). */
size_t zt_find_rel(const pt2_zip *z, const char *rel);

uint64_t zt_stat_size(const char *path);
/* The whole file, malloc'd (the caller frees it). */
uint8_t *zt_load(const char *path, size_t *len);
void zt_write_file(const char *path, const void *data, size_t len);

/* A fresh temporary folder into buf; zt_rm_dir() removes it and the files in it. */
void zt_tmp_dir(char *buf, size_t len);
void zt_rm_dir(const char *dir);

/* A zip written by libzip, entries in order, all with compression `method`. */
void zt_make_zip(const char *path, const struct zt_ent *e, size_t n, int method);

#endif
