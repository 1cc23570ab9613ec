/*
 * ziptest.c - see ziptest.h.
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zip.h>

#include "testutil.h"
#include "ziptest.h"

pt2_zip *zt_open_fixture(const char *name)
{
    char path[256];
    struct pt2_error err = {0};
    pt2_zip *z = NULL;
    int rc = pt2_zip_open_path(&z, tu_fixture(name, path, sizeof(path)), &err);

    ck_assert_msg(rc == PT2_OK, "%s: %d %s", name, rc, err.message);
    ck_assert_ptr_nonnull(z);
    return z;
}

int zt_open_tmp(const char *path, pt2_zip **z, struct pt2_error *err)
{
    pt2_error_clear(err);
    *z = NULL;
    return pt2_zip_open_path(z, path, err);
}

size_t zt_find_suffix(const pt2_zip *z, const char *suffix)
{
    size_t i, n = strlen(suffix);

    for (i = 0; i < pt2_zip_count(z); i++) {
        const char *rel = pt2_zip_relname(z, i);
        size_t len = strlen(rel);

        if (len >= n && strcmp(rel + len - n, suffix) == 0)
            return i;
    }
    ck_abort_msg("no entry ending in %s", suffix);
    return 0;
}

size_t zt_find_rel(const pt2_zip *z, const char *rel)
{
    size_t idx = 0;

    ck_assert_msg(pt2_zip_find(z, rel, &idx) == PT2_OK, "no entry %s", rel);
    return idx;
}

uint64_t zt_stat_size(const char *path)
{
    struct stat st;

    ck_assert_int_eq(stat(path, &st), 0);
    return (uint64_t)st.st_size;
}

uint8_t *zt_load(const char *path, size_t *len)
{
    uint8_t *b = tu_read_file(path, len);

    ck_assert_msg(b != NULL, "cannot read %s", path);
    return b;
}

void zt_write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");

    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

void zt_tmp_dir(char *buf, size_t len)
{
    const char *t = getenv("TMPDIR");

    snprintf(buf, len, "%s/pt2zipXXXXXX", t != NULL && t[0] != '\0' ? t : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(buf));
}

void zt_rm_dir(const char *dir)
{
    char path[512];
    struct dirent *de;
    DIR *d = opendir(dir);

    if (d == NULL)
        return;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

void zt_make_zip(const char *path, const struct zt_ent *e, size_t n, int method)
{
    int zerr = 0;
    size_t i;
    zip_t *za = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &zerr);

    ck_assert_ptr_nonnull(za);
    for (i = 0; i < n; i++) {
        zip_source_t *s = zip_source_buffer(za, e[i].data, strlen(e[i].data), 0);
        zip_int64_t idx;

        ck_assert_ptr_nonnull(s);
        idx = zip_file_add(za, e[i].name, s, ZIP_FL_ENC_UTF_8);
        ck_assert_int_ge(idx, 0);
        if (method != ZIP_CM_STORE)
            ck_assert_int_eq(zip_set_file_compression(za, (zip_uint64_t)idx, method, 1), 0);
    }
    ck_assert_int_eq(zip_close(za), 0);
}
