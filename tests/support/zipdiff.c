/*
 * zipdiff.c - the direct zip reader against libzip alone (see zipdiff.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_zip.h"
#include "zipdiff.h"

struct zd {
    char *why;
    size_t len;
};

/* Record the first difference; 1, for `return zd_fail(...)`. */
static int zd_fail(struct zd *d, const char *what, size_t i, const char *detail)
{
    snprintf(d->why, d->len, "%s %zu: %s", what, i, detail);
    return 1;
}

/* The same status and message from both readers, or out of memory on one side. */
static int zd_status(struct zd *d, int ra, const struct pt2_error *ea, int rb,
                     const struct pt2_error *eb, const char *what, size_t i)
{
    char detail[2 * PT2_ERROR_MSG_MAX + 64];

    if (ra == PT2_ERR_NOMEM || rb == PT2_ERR_NOMEM)
        return 0;
    if (ra == rb && strcmp(ea->message, eb->message) == 0)
        return 0;
    snprintf(detail, sizeof(detail), "direct %d '%s', libzip %d '%s'", ra, ea->message, rb,
             eb->message);
    return zd_fail(d, what, i, detail);
}

static int zd_listing(struct zd *d, pt2_zip *a, pt2_zip *b, size_t i)
{
    uint64_t da = 1, db = 1;

    if (strcmp(pt2_zip_name(a, i), pt2_zip_name(b, i)) != 0 ||
        strcmp(pt2_zip_relname(a, i), pt2_zip_relname(b, i)) != 0)
        return zd_fail(d, "name", i, pt2_zip_name(a, i));
    if (pt2_zip_entry_size(a, i) != pt2_zip_entry_size(b, i) ||
        pt2_zip_entry_csize(a, i) != pt2_zip_entry_csize(b, i) ||
        pt2_zip_entry_stored(a, i) != pt2_zip_entry_stored(b, i))
        return zd_fail(d, "sizes or method", i, pt2_zip_name(a, i));
    if (pt2_zip_data_offset(a, i, &da) != pt2_zip_data_offset(b, i, &db) || da != db)
        return zd_fail(d, "data offset", i, pt2_zip_name(a, i));
    return 0;
}

/* A whole read (tail = 0) or a tail read of entry i. */
static int zd_read(struct zd *d, pt2_zip *a, pt2_zip *b, size_t i, size_t cap, int tail)
{
    struct pt2_error ea = {0}, eb = {0};
    char *oa = NULL, *ob = NULL;
    size_t na = 0, nb = 0;
    const char *what = tail ? "read_tail" : "read_small";
    int ra = tail ? pt2_zip_read_tail(a, i, cap, &oa, &na, &ea)
                  : pt2_zip_read_small(a, i, cap, &oa, &na, &ea);
    int rb = tail ? pt2_zip_read_tail(b, i, cap, &ob, &nb, &eb)
                  : pt2_zip_read_small(b, i, cap, &ob, &nb, &eb);
    int rc = zd_status(d, ra, &ea, rb, &eb, what, i);

    if (rc == 0 && ra == PT2_OK && rb == PT2_OK && (na != nb || memcmp(oa, ob, na) != 0))
        rc = zd_fail(d, what, i, "different bytes");
    free(oa);
    free(ob);
    return rc;
}

/* Random reads from the start, the middle and across the end of entry i. */
static int zd_random(struct zd *d, pt2_zip *a, pt2_zip *b, size_t i)
{
    struct pt2_error ea = {0}, eb = {0};
    pt2_zip_entry *xa = NULL, *xb = NULL;
    uint64_t size = pt2_zip_entry_size(a, i);
    uint64_t at[3] = {0, size / 2, size > 50 ? size - 50 : 0};
    char ba[300], bb[300];
    int ra = pt2_zip_entry_open(a, i, &xa, &ea), rb = pt2_zip_entry_open(b, i, &xb, &eb);
    int rc = zd_status(d, ra, &ea, rb, &eb, "entry_open", i);

    for (int k = 0; rc == 0 && ra == PT2_OK && rb == PT2_OK && k < 3; k++) {
        size_t n = size - at[k] < sizeof(ba) ? (size_t)(size - at[k]) : sizeof(ba);

        pt2_error_clear(&ea);
        pt2_error_clear(&eb);
        ra = pt2_rd_read(pt2_zip_entry_rd(xa), at[k], ba, n, &ea);
        rb = pt2_rd_read(pt2_zip_entry_rd(xb), at[k], bb, n, &eb);
        rc = zd_status(d, ra, &ea, rb, &eb, "rd_read", i);
        if (rc == 0 && ra == PT2_OK && rb == PT2_OK && memcmp(ba, bb, n) != 0)
            rc = zd_fail(d, "rd_read", i, "different bytes");
    }
    pt2_zip_entry_free(xa);
    pt2_zip_entry_free(xb);
    return rc;
}

static int zd_compare(struct zd *d, pt2_zip *a, pt2_zip *b, const struct zipdiff_opts *o)
{
    size_t n = pt2_zip_count(a);
    int rc = 0;

    if (pt2_zip_direct(b))
        return zd_fail(d, "open", 0, "the libzip reader read directly");
    if (n != pt2_zip_count(b) || strcmp(pt2_zip_prefix(a), pt2_zip_prefix(b)) != 0 ||
        pt2_zip_zip64(a) != pt2_zip_zip64(b))
        return zd_fail(d, "open", 0, "different counts, prefixes or zip64");
    if (o->max_entries > 0 && n > o->max_entries)
        n = o->max_entries;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        rc = zd_listing(d, a, b, i);
        if (rc == 0)
            rc = zd_read(d, a, b, i, o->small_cap, 0);
        if (rc == 0)
            rc = zd_read(d, a, b, i, 100, 1);
        if (rc == 0)
            rc = zd_random(d, a, b, i);
    }
    return rc;
}

int zipdiff_fd(int fd, const struct zipdiff_opts *o, int *direct, char *why, size_t len)
{
    struct pt2_error ea = {0}, eb = {0};
    pt2_source *sa = NULL, *sb = NULL;
    pt2_zip *a = NULL, *b = NULL;
    struct zd d = {why, len};
    int rc = 1, ra, rb;

    *direct = -1;
    snprintf(why, len, "cannot make the byte sources");
    if (pt2_source_new_fd(&sa, fd, NULL, &ea) != PT2_OK ||
        pt2_source_new_fd(&sb, fd, NULL, &eb) != PT2_OK)
        goto cleanup;
    why[0] = '\0';
    ra = pt2_zip_open_source_opts(&a, sa, 0, &ea);
    rb = pt2_zip_open_source_opts(&b, sb, PT2_ZIP_OPEN_LIBZIP, &eb);
    rc = zd_status(&d, ra, &ea, rb, &eb, "open", 0);
    if (rc == 0 && ra == PT2_OK && rb == PT2_OK) {
        *direct = pt2_zip_direct(a);
        rc = zd_compare(&d, a, b, o);
    }
cleanup:
    pt2_zip_free(a);
    pt2_zip_free(b);
    pt2_source_free(sa);
    pt2_source_free(sb);
    return rc;
}
