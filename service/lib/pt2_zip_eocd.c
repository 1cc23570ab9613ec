/*
 * pt2_zip_eocd.c - the zip end records, read before libzip (see pt2_zip_eocd.h).
 *
 * Why the tail window is libzip's own: its first read is then served from
 * this copy (pt2_zip's source looks here first), so those bytes are read
 * once. Why the directory is buffered with one read: libzip reads a
 * directory record in two calls, and 20,000 entries would otherwise cost
 * 40,000 syscalls. Why only candidates libzip would accept count: a fake
 * record in an archive comment must neither trip a cap nor be taken for the
 * directory (libzip keeps the first acceptable record unless a later one is
 * more consistent; with several, pt2_zip leaves the choice to ZIP_CHECKCONS).
 * Record layouts: FORMATS.md §1.
 */
#include <stdlib.h>
#include <string.h>

#include "pt2_utf8.h"
#include "pt2_zip_eocd.h"

#define EOCD_LEN 22u
#define LOCATOR_LEN 20u
#define EOCD64_LEN 56u
#define CDIR_RECORD_MIN 46u /* fixed part of a central directory record */
#define LOCAL_HEADER_LEN 30u

#define SIG_EOCD 0x06054b50u
#define SIG_LOCATOR 0x07064b50u
#define SIG_EOCD64 0x06064b50u
#define SIG_CDIR 0x02014b50u
#define SIG_LOCAL 0x04034b50u

/* One end-record candidate, as libzip would read it. */
struct eocd_cand {
    uint64_t entries, cd_size, cd_offset;
    int zip64;
    int plain; /* one disk, the records agree, the directory ends where they start */
};

const uint8_t *pt2_zip_eocd_bytes(const struct pt2_zip_eocd *e, uint64_t off, size_t len)
{
    if (e->buf == NULL || off < e->buf_off || off - e->buf_off > e->buf_len ||
        len > e->buf_len - (size_t)(off - e->buf_off))
        return NULL;
    return e->buf + (off - e->buf_off);
}

int pt2_zip_eocd_cd_buffered(const struct pt2_zip_eocd *e)
{
    return e->cd_known && pt2_zip_eocd_bytes(e, e->cd_offset, (size_t)e->cd_size) != NULL;
}

/* Read exactly len bytes at off; a short read means the file shrank under us. */
static int eocd_read_exact(const struct pt2_zip_eocd *e, uint64_t off, void *buf, size_t len,
                           struct pt2_error *err)
{
    size_t got = 0;
    int rc = e->read(e->ctx, off, buf, len, &got, err);

    if (rc != PT2_OK)
        return rc;
    if (got != len)
        return pt2_error_set(err, PT2_ERR_TRUNCATED,
                             "the file shrank while being read (it is being rewritten?)");
    return PT2_OK;
}

/*
 * Grow the buffer down to the start of the central directory, so that
 * libzip's many small directory reads are served from memory. Only when the
 * directory runs on into the tail (the normal layout); anything else is left
 * to libzip's own reads.
 */
static int eocd_extend(struct pt2_zip_eocd *e, struct pt2_error *err)
{
    uint8_t *nb = NULL;
    size_t head;
    int rc;

    if (e->cd_offset >= e->buf_off || e->cd_size > e->size - e->cd_offset ||
        e->cd_offset + e->cd_size < e->buf_off)
        return PT2_OK;
    head = (size_t)(e->buf_off - e->cd_offset); /* <= cd_size <= PT2_ZIP_EOCD_CDIR_MAX */
    nb = malloc(head + e->buf_len);
    if (nb == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory reading the central directory");
    rc = eocd_read_exact(e, e->cd_offset, nb, head, err);
    if (rc != PT2_OK)
        goto cleanup;
    memcpy(nb + head, e->buf, e->buf_len);
    free(e->buf);
    e->buf = nb;
    nb = NULL;
    e->buf_off = e->cd_offset;
    e->buf_len += head;
cleanup:
    free(nb);
    return rc;
}

/*
 * A zip64 record that says what the classic one does: one disk, and each
 * classic field either saturated or equal to its 64-bit twin.
 */
static int eocd64_plain(const uint8_t *r, const uint8_t *z64)
{
    uint64_t entries = pt2_le64(z64 + 32), size = pt2_le64(z64 + 40), off = pt2_le64(z64 + 48);

    return pt2_le32(z64 + 16) == 0 && pt2_le32(z64 + 20) == 0 && pt2_le64(z64 + 24) == entries &&
           (pt2_le16(r + 10) == 0xffffu || pt2_le16(r + 10) == entries) &&
           (pt2_le32(r + 12) == 0xffffffffu || pt2_le32(r + 12) == size) &&
           (pt2_le32(r + 16) == 0xffffffffu || pt2_le32(r + 16) == off);
}

/*
 * Decode the end record at buffer offset p into *out; *usable is 1 when
 * libzip 1.7.3 could open the directory it describes, 0 when libzip rejects
 * it before reading a single directory record. Only rejections libzip
 * certainly makes are applied, so every directory libzip can open is among
 * the usable candidates: a zip64 record whose magic, locator or sizes are
 * wrong; a directory that does not end before the record; more entries than
 * its bytes can hold (46 bytes at least each). A status only for a failed read.
 */
static int eocd_decode(const struct pt2_zip_eocd *e, size_t p, struct eocd_cand *out, int *usable,
                       struct pt2_error *err)
{
    const uint8_t *r = e->buf + p;
    uint64_t end_at = e->buf_off + p; /* where the directory must end by */

    memset(out, 0, sizeof(*out));
    *usable = 0;
    out->entries = pt2_le16(r + 10);
    out->cd_size = pt2_le32(r + 12);
    out->cd_offset = pt2_le32(r + 16);
    /* and the comment ends the file, as the record says */
    out->plain = pt2_le16(r + 4) == 0 && pt2_le16(r + 6) == 0 && pt2_le16(r + 8) == out->entries &&
                 end_at + EOCD_LEN + pt2_le16(r + 20) == e->size;
    if (p >= LOCATOR_LEN && pt2_le32(r - LOCATOR_LEN) == SIG_LOCATOR) {
        uint64_t off64 = pt2_le64(r - LOCATOR_LEN + 8);
        uint8_t rec[EOCD64_LEN];
        const uint8_t *z64;
        size_t got = 0;
        int rc;

        out->zip64 = 1;
        /* The zip64 record must lie before its locator. */
        if (off64 > end_at - LOCATOR_LEN || EOCD64_LEN > end_at - LOCATOR_LEN - off64)
            return PT2_OK;
        z64 = pt2_zip_eocd_bytes(e, off64, sizeof(rec));
        if (z64 == NULL) {
            rc = e->read(e->ctx, off64, rec, sizeof(rec), &got, err);
            if (rc != PT2_OK)
                return rc;
            if (got != sizeof(rec))
                return PT2_OK;
            z64 = rec;
        }
        if (pt2_le32(z64) != SIG_EOCD64)
            return PT2_OK;
        /* the locator: the zip64 record on disk 0 of 1 */
        out->plain = out->plain && eocd64_plain(r, z64) && pt2_le32(r - LOCATOR_LEN + 4) == 0 &&
                     pt2_le32(r - LOCATOR_LEN + 16) == 1;
        out->entries = pt2_le64(z64 + 32);
        out->cd_size = pt2_le64(z64 + 40);
        out->cd_offset = pt2_le64(z64 + 48);
        /* the zip64 record is right before its locator */
        out->plain = out->plain && pt2_le64(z64 + 4) == EOCD64_LEN - 12u &&
                     off64 + EOCD64_LEN == end_at - LOCATOR_LEN;
        end_at = off64;
    }
    out->plain = out->plain && out->cd_offset + out->cd_size == end_at;
    if (out->cd_offset > end_at || out->cd_size > end_at - out->cd_offset)
        return PT2_OK;
    *usable = out->entries <= out->cd_size / CDIR_RECORD_MIN;
    return PT2_OK;
}

int pt2_zip_eocd_scan(struct pt2_zip_eocd *e, pt2_rd_fn read, void *ctx, uint64_t size,
                      struct pt2_error *err)
{
    struct eocd_cand cand, first;
    size_t p, from, nusable = 0;
    int rc, usable;

    memset(e, 0, sizeof(*e));
    e->read = read;
    e->ctx = ctx;
    e->size = size;
    e->buf_len = size < PT2_ZIP_EOCD_TAIL_LEN ? (size_t)size : PT2_ZIP_EOCD_TAIL_LEN;
    e->buf_off = size - e->buf_len;
    e->buf = malloc(e->buf_len > 0 ? e->buf_len : 1);
    if (e->buf == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory reading the archive tail");
    rc = eocd_read_exact(e, e->buf_off, e->buf, e->buf_len, err);
    if (rc != PT2_OK)
        return rc;

    /* libzip leaves room for a zip64 locator when its window is full. */
    from = e->buf_len == PT2_ZIP_EOCD_TAIL_LEN ? LOCATOR_LEN : 0;
    memset(&first, 0, sizeof(first));
    for (p = from; e->buf_len >= EOCD_LEN && p <= e->buf_len - EOCD_LEN; p++) {
        /* memchr to the next 'P': testing all 64 KiB byte by byte was a quarter of
         * an uncached inspection (tests/bench). Same candidates, same order. */
        const uint8_t *q = memchr(e->buf + p, 'P', e->buf_len - EOCD_LEN + 1 - p);

        if (q == NULL)
            break;
        p = (size_t)(q - e->buf);
        if (pt2_le32(q) != SIG_EOCD)
            continue;
        e->have_eocd = 1;
        rc = eocd_decode(e, p, &cand, &usable, err);
        if (rc != PT2_OK)
            return rc;
        if (!usable)
            continue;
        if (cand.entries > PT2_ZIP_EOCD_ENTRIES_MAX)
            return pt2_error_set(err, PT2_ERR_TOO_LARGE, "archive lists %llu entries (cap %u)",
                                 (unsigned long long)cand.entries, PT2_ZIP_EOCD_ENTRIES_MAX);
        if (cand.cd_size > PT2_ZIP_EOCD_CDIR_MAX)
            return pt2_error_set(err, PT2_ERR_TOO_LARGE,
                                 "central directory is %llu bytes (cap %u MiB)",
                                 (unsigned long long)cand.cd_size, PT2_ZIP_EOCD_CDIR_MAX >> 20);
        if (nusable++ == 0)
            first = cand;
    }
    /* libzip keeps the first candidate unless a later one is more consistent. */
    e->zip64 = first.zip64;
    if (nusable != 1)
        return PT2_OK;
    e->cd_known = 1;
    e->cd_offset = first.cd_offset;
    e->cd_size = first.cd_size;
    e->entries = first.entries;
    e->plain = first.plain;
    return eocd_extend(e, err);
}

/*
 * The body of a zip64 extra field (len bytes at f) applied to a record's size,
 * compressed size and offset (v[0..2]): present in this order, and only for
 * the fields saturated in the record. 1 when every saturated one was there.
 */
static int eocd_zip64_apply(const uint8_t *f, size_t len, uint64_t *const v[3])
{
    size_t k = 0;

    for (int i = 0; i < 3; i++) {
        if (*v[i] != 0xffffffffu)
            continue;
        if (k + 8 > len)
            return 0;
        *v[i] = pt2_le64(f + k);
        k += 8;
    }
    return 1;
}

/* Apply a central directory record's zip64 extra field, if it has one, to v[0..2]. */
static void eocd_zip64_values(const uint8_t *x, size_t xlen, uint64_t *const v[3])
{
    while (xlen >= 4) {
        size_t id = pt2_le16(x), len = pt2_le16(x + 2);

        if (len > xlen - 4)
            return;
        if (id == 0x0001) {
            eocd_zip64_apply(x + 4, len, v);
            return;
        }
        x += 4 + len;
        xlen -= 4 + len;
    }
}

/* libzip has already parsed the records, so a record we cannot walk ends the walk. */
/*
 * The next record of the buffered directory `cd` at *pos (its local header
 * offset and compressed size with the zip64 extra applied, its name length),
 * *pos moved past it: 1, or 0 at the end or at a record that does not fit.
 */
static int eocd_record(const struct pt2_zip_eocd *e, const uint8_t *cd, uint64_t *pos,
                       uint64_t *off, uint64_t *csize, size_t *nlen)
{
    const uint8_t *r = cd + *pos;
    uint64_t usize;
    size_t xlen, clen;

    if (e->cd_size - *pos < CDIR_RECORD_MIN || pt2_le32(r) != SIG_CDIR)
        return 0;
    *csize = pt2_le32(r + 20);
    usize = pt2_le32(r + 24);
    *off = pt2_le32(r + 42);
    *nlen = pt2_le16(r + 28);
    xlen = pt2_le16(r + 30);
    clen = pt2_le16(r + 32);
    if (CDIR_RECORD_MIN + *nlen + xlen + clen > e->cd_size - *pos)
        return 0;
    {
        uint64_t *const v[3] = {&usize, csize, off};

        eocd_zip64_values(r + CDIR_RECORD_MIN + *nlen, xlen, v);
    }
    *pos += CDIR_RECORD_MIN + *nlen + xlen + clen;
    return 1;
}

/* One entry's bytes as the directory describes them: [start, end). */
struct extent {
    uint64_t start, end;
};

static int extent_cmp(const void *a, const void *b)
{
    const struct extent *x = a, *y = b;

    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

/* Every entry ends before the directory starts (the first half of check_extents). */
static int eocd_before_directory(const struct pt2_zip_eocd *e, uint64_t off, uint64_t csize,
                                 size_t nlen, struct pt2_error *err)
{
    if (off > e->cd_offset || csize > e->cd_offset - off ||
        LOCAL_HEADER_LEN + nlen > e->cd_offset - off - csize)
        return pt2_error_set(err, PT2_ERR_TRUNCATED,
                             "truncated or corrupt zip: central directory records do not "
                             "match the file (bad offsets or counts)");
    return PT2_OK;
}

/*
 * One walk of the records for both checks (a walk each was a tenth of an
 * inspection at 20,000 entries), in the order they had: every record's
 * offsets first, then the overlaps. The least an entry occupies is its local
 * header, its name (the local copy must equal the directory's) and its
 * compressed data; a longer local extra field or a data descriptor only adds
 * to it, so an overlap found this way is always real. Overlapping entries are
 * how a zip bomb makes a few KB inflate many times over.
 */
int pt2_zip_eocd_check_extents(const struct pt2_zip_eocd *e, struct pt2_error *err)
{
    const uint8_t *cd = pt2_zip_eocd_bytes(e, e->cd_offset, (size_t)e->cd_size);
    uint64_t pos = 0, off, csize;
    struct extent *x;
    size_t n = 0, nlen;
    int rc = PT2_OK, overlaps;

    if (!e->cd_known || cd == NULL)
        return PT2_OK;
    /* no more records fit than 46-byte ones (the buffered directory is capped), and one
     * cannot overlap another: room only for two or more. Without room the offsets are
     * still checked first, as they were before any overlap. */
    overlaps = e->cd_size >= 2 * CDIR_RECORD_MIN;
    x = overlaps ? malloc((size_t)(e->cd_size / CDIR_RECORD_MIN) * sizeof(*x)) : NULL;
    while (rc == PT2_OK && eocd_record(e, cd, &pos, &off, &csize, &nlen)) {
        rc = eocd_before_directory(e, off, csize, nlen, err);
        if (x != NULL)
            x[n++] = (struct extent){off, off + LOCAL_HEADER_LEN + nlen + csize};
    }
    if (rc == PT2_OK && overlaps && x == NULL)
        rc = pt2_error_set(err, PT2_ERR_NOMEM, "out of memory checking the zip entries");
    if (rc != PT2_OK) {
        free(x);
        return rc;
    }
    /* more than the cap is refused by the entry count check, with its own message */
    if (n > PT2_ZIP_EOCD_ENTRIES_MAX)
        n = 0;
    /* writers list entries in file order: sort only when they are not */
    for (size_t i = 1; i < n; i++) {
        if (extent_cmp(&x[i - 1], &x[i]) > 0) {
            qsort(x, n, sizeof(*x), extent_cmp);
            break;
        }
    }
    for (size_t i = 1; i < n && rc == PT2_OK; i++)
        if (x[i].start < x[i - 1].end)
            rc = pt2_error_set(err, PT2_ERR_TRUNCATED,
                               "truncated or corrupt zip: overlapping entries: the entry at byte "
                               "%llu (to byte %llu) overlaps the entry at byte %llu",
                               (unsigned long long)x[i - 1].start, (unsigned long long)x[i - 1].end,
                               (unsigned long long)x[i].start);
    free(x);
    return rc;
}

size_t pt2_zip_eocd_local_offsets(const struct pt2_zip_eocd *e, uint64_t *out, size_t n)
{
    const uint8_t *cd = pt2_zip_eocd_bytes(e, e->cd_offset, (size_t)e->cd_size);
    uint64_t pos = 0, off, csize;
    size_t i = 0, nlen;

    if (!e->cd_known || cd == NULL)
        return 0;
    while (i < n && eocd_record(e, cd, &pos, &off, &csize, &nlen))
        out[i++] = off;
    return i;
}

/* A name libzip returns as it is: no NUL, no control byte but tab, CR, LF (libzip would take
 * those for CP437 and convert), any other byte part of valid UTF-8. */
static int eocd_plain_name(const uint8_t *p, size_t n)
{
    size_t i = 0, k;

    if (n == 0)
        return 0;
    while (i < n) {
        uint64_t v;

        /* eight printable ASCII bytes at a time (no high bit; +0x60 carries each into it) */
        if (n - i >= 8) {
            memcpy(&v, p + i, 8);
            if ((v & 0x8080808080808080u) == 0 &&
                ((v + 0x6060606060606060u) & 0x8080808080808080u) == 0x8080808080808080u) {
                i += 8;
                continue;
            }
        }
        if (p[i] < 0x80) {
            if (p[i] < 32 && p[i] != '\t' && p[i] != '\r' && p[i] != '\n')
                return 0;
            i++;
            continue;
        }
        if ((k = pt2_utf8_seq(p + i, n - i)) == 0)
            return 0;
        i += k;
    }
    return 1;
}

/* Walk the extra fields exactly, applying the one zip64 field: 1 when the walk ends on the
 * last byte and every saturated value found its 64-bit twin. */
static int eocd_plain_extra(const uint8_t *x, size_t xlen, uint64_t *const v[3])
{
    int seen64 = 0;

    while (xlen > 0) {
        size_t id, len;

        if (xlen < 4 || (len = pt2_le16(x + 2)) > xlen - 4)
            return 0;
        id = pt2_le16(x);
        if (id == 0x7075 || id == 0x6375 || (id == 0x0001 && seen64++))
            return 0;
        if (id == 0x0001 && !eocd_zip64_apply(x + 4, len, v))
            return 0;
        x += 4 + len;
        xlen -= 4 + len;
    }
    /* a saturated value nothing replaced: libzip would call the record inconsistent */
    return seen64 || (*v[0] != 0xffffffffu && *v[1] != 0xffffffffu && *v[2] != 0xffffffffu);
}

int pt2_zip_eocd_plain_record(const struct pt2_zip_eocd *e, uint64_t *pos,
                              struct pt2_zip_eocd_rec *rec)
{
    const uint8_t *cd = pt2_zip_eocd_bytes(e, e->cd_offset, (size_t)e->cd_size), *r;
    uint64_t *const v[3] = {&rec->size, &rec->csize, &rec->offset};
    size_t nlen, xlen;
    uint16_t flags;

    if (!e->cd_known || cd == NULL || *pos > e->cd_size || e->cd_size - *pos < CDIR_RECORD_MIN)
        return 0;
    r = cd + *pos;
    nlen = pt2_le16(r + 28);
    xlen = pt2_le16(r + 30);
    flags = pt2_le16(r + 8);
    /* bit 0: encrypted, bit 6: strong encryption, bit 13: masked local headers */
    if (pt2_le32(r) != SIG_CDIR || CDIR_RECORD_MIN + nlen + xlen > e->cd_size - *pos ||
        pt2_le16(r + 32) != 0 || pt2_le16(r + 34) != 0 || (flags & 0x2041u) != 0 ||
        !eocd_plain_name(r + CDIR_RECORD_MIN, nlen))
        return 0;
    rec->method = pt2_le16(r + 10);
    rec->crc = pt2_le32(r + 16);
    rec->csize = pt2_le32(r + 20);
    rec->size = pt2_le32(r + 24);
    rec->offset = pt2_le32(r + 42);
    if (!eocd_plain_extra(r + CDIR_RECORD_MIN + nlen, xlen, v))
        return 0;
    rec->name = r + CDIR_RECORD_MIN;
    rec->name_len = nlen;
    *pos += CDIR_RECORD_MIN + nlen + xlen;
    return 1;
}

int pt2_zip_eocd_starts_with_local_header(const struct pt2_zip_eocd *e)
{
    struct pt2_error ignored = {0};
    uint8_t b[4];
    const uint8_t *p = pt2_zip_eocd_bytes(e, 0, sizeof(b));
    size_t got = 0;

    if (p == NULL) {
        if (e->read(e->ctx, 0, b, sizeof(b), &got, &ignored) != PT2_OK || got != sizeof(b))
            return 0;
        p = b;
    }
    return pt2_le32(p) == SIG_LOCAL;
}

void pt2_zip_eocd_release(struct pt2_zip_eocd *e)
{
    if (e == NULL)
        return;
    free(e->buf);
    e->buf = NULL;
    e->buf_len = 0;
}
