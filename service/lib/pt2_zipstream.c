/*
 * pt2_zipstream.c - a push parser of a zip as it streams (see pt2_zipstream.h).
 *
 * Why a carry: a slice may end inside a signature or a data descriptor, so a
 * state that must look ahead (4 bytes for a signature, 28 for a descriptor
 * and the signature after it) consumes nothing until it has them; the
 * unconsumed tail (< 64 bytes) is carried into the next slice. Headers are
 * copied into their own buffer as they arrive instead. Why every kept byte
 * leaves at once: the sink sees offsets only grow and the parser holds no
 * data, only headers. Record layouts: FORMATS.md §1.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "pt2_crc32.h"
#include "pt2_rd.h"
#include "pt2_zipstream.h"

#define SIG_LOCAL 0x04034b50u
#define SIG_CDIR 0x02014b50u
#define SIG_DD 0x08074b50u
#define SIG_EOCD 0x06054b50u
#define SIG_EOCD64 0x06064b50u
#define SIG_LOCATOR 0x07064b50u
#define SIG_DIGSIG 0x05054b50u

#define LOCAL_LEN 30u
#define CDIR_LEN 46u
#define EOCD_LEN 22u
#define EOCD64_LEN 56u
#define LOCATOR_LEN 20u
#define DIGSIG_LEN 6u
#define NAME_LEN_MAX 1024u /* as PT2_ZIP_NAME_LEN_MAX */
#define EOCD64_MAX 65536u  /* a zip64 end record with its extensible data */
#define HDR_MAX (CDIR_LEN + NAME_LEN_MAX + 65535u + 65535u)
#define CARRY_MAX 64u
#define DD_LOOK 28u /* the longest descriptor (24) and the signature after it */
/*
 * The first bytes of an entry to drop are held back: an entry that ends
 * within them is kept after all. Dropping a small entry saves nothing, and
 * an upload with nothing dropped can always be inspected whole.
 */
#define PEND_MAX (64u * 1024u)
/* Bytes inflated only to find ends and check CRCs, per upload: a bomb costs no more. */
#define INFLATE_MAX (8ull << 30)

enum zs_state {
    ST_SIG,        /* a signature is next */
    ST_LOCAL,      /* a local header is arriving */
    ST_DATA,       /* data of known size */
    ST_STORED_DD,  /* stored data that ends at its descriptor */
    ST_DEFLATE_DD, /* deflated data that ends where its deflate stream ends */
    ST_DESC,       /* the descriptor after deflated data */
    ST_CDIR,       /* a central directory record */
    ST_EOCD64,     /* the zip64 end record */
    ST_LOCATOR,    /* the zip64 locator */
    ST_DIGSIG,     /* the directory's digital signature record */
    ST_EOCD,       /* the end record and its comment */
    ST_END,        /* after the end record */
    ST_KEEP        /* not followed: everything is kept */
};

struct zs_entry {
    uint64_t hoff, csize, usize, hash;
    uint32_t crc;
    uint16_t method, name_len;
};

struct pt2_zipstream {
    struct pt2_zipstream_sink sink;
    enum zs_state st;
    uint64_t pos; /* archive offset of the next byte taken */
    uint8_t carry[CARRY_MAX];
    size_t ncarry;
    uint8_t *hdr; /* the header arriving */
    size_t hdr_len, hdr_need;
    /* the entry whose data is arriving */
    struct zs_entry cur;
    int keep, zip64;
    int dropping;  /* the entry's data is past PEND_MAX: being dropped */
    uint8_t *pend; /* its first bytes, held back (PEND_MAX) */
    size_t pend_len;
    uint64_t data_start, remaining;
    uint32_t crc;
    z_stream inf;
    int inf_live;
    uint64_t inflated;
    /* what streamed past */
    struct zs_entry *ents;
    size_t nents, cap;
    uint64_t dropped, ents_dropped;
    /* the directory */
    int cd_seen, cd_ended;
    uint64_t cd_start, cd_end, cd_records;
    int have64;
    uint64_t end_entries, end_cd_size, end_cd_off;    /* from the zip64 record */
    uint64_t eocd_entries, eocd_cd_size, eocd_cd_off; /* from the classic record */
    int have_eocd;
    /* findings */
    int lost;
    char reason[PT2_ERROR_MSG_MAX];
    int corrupt;
    char corrupt_msg[PT2_ERROR_MSG_MAX];
    int finished, result;
};

static uint64_t name_hash(const uint8_t *p, size_t n)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */

    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* The first reason the stream is not followed (later ones add nothing). */
static void PT2_PRINTF(2, 3) disagree(pt2_zipstream *zs, const char *fmt, ...)
{
    va_list ap;

    if (zs->lost)
        return;
    va_start(ap, fmt);
    vsnprintf(zs->reason, sizeof(zs->reason), fmt, ap);
    va_end(ap);
    zs->lost = 1;
}

/* Not followed from here on: every later byte is kept. */
#define lose(zs, ...)                                                                              \
    do {                                                                                           \
        disagree((zs), __VA_ARGS__);                                                               \
        (zs)->st = ST_KEEP;                                                                        \
    } while (0)

/* An entry name for a message: at most 120 bytes of it. */
#define NAME_ARG(p, n) (int)((n) > 120 ? 120 : (n)), (const char *)(p)
#define OFF_ARG(o) (unsigned long long)(o)

static int flush_pending(pt2_zipstream *zs, struct pt2_error *err);

static int emit(pt2_zipstream *zs, const uint8_t *p, size_t n, int keep, struct pt2_error *err)
{
    int rc = PT2_OK;

    if (n == 0)
        return PT2_OK;
    /* Held-back data lies before these bytes: it goes first, so offsets only grow (a
     * stored entry's descriptor is kept while its held data is still pending). */
    if (keep && !zs->dropping && zs->pend_len > 0 && (rc = flush_pending(zs, err)) != PT2_OK)
        return rc;
    if (keep)
        rc = zs->sink.keep(zs->sink.ctx, zs->pos, p, n, err);
    else
        zs->dropped += n;
    zs->pos += n;
    return rc;
}

/* Copy header bytes until hdr_need are there (kept as they come); the count taken. */
static int take_hdr(pt2_zipstream *zs, const uint8_t *p, size_t n, size_t *used,
                    struct pt2_error *err)
{
    size_t k = zs->hdr_need - zs->hdr_len;

    if (k > n)
        k = n;
    /* every header's length is bounded before it is asked for (HDR_MAX is the largest) */
    if (zs->hdr_need > HDR_MAX)
        return pt2_error_set(err, PT2_ERR_INTERNAL, "zip stream: a header of %zu bytes asked for",
                             zs->hdr_need);
    memcpy(zs->hdr + zs->hdr_len, p, k);
    zs->hdr_len += k;
    *used = k;
    return emit(zs, p, k, 1, err);
}

static void start_hdr(pt2_zipstream *zs, enum zs_state st, size_t need)
{
    zs->st = st;
    zs->hdr_len = 0;
    zs->hdr_need = need;
}

/* An entry to drop that ended within PEND_MAX (or stopped being followed): keep what was held. */
static int flush_pending(pt2_zipstream *zs, struct pt2_error *err)
{
    size_t n = zs->pend_len;

    zs->pend_len = 0;
    return n > 0 ? zs->sink.keep(zs->sink.ctx, zs->data_start, zs->pend, n, err) : PT2_OK;
}

static int push_entry(pt2_zipstream *zs, struct pt2_error *err)
{
    if (!zs->dropping && flush_pending(zs, err) != PT2_OK)
        return err->code;
    if (zs->nents == zs->cap) {
        size_t ncap = zs->cap ? zs->cap * 2 : 64;
        struct zs_entry *v = realloc(zs->ents, ncap * sizeof(*v));

        if (v == NULL)
            return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
        zs->ents = v;
        zs->cap = ncap;
    }
    zs->ents[zs->nents++] = zs->cur;
    if (zs->dropping)
        zs->ents_dropped++;
    zs->st = ST_SIG;
    return PT2_OK;
}

static void corrupt(pt2_zipstream *zs, const char *what)
{
    if (zs->corrupt)
        return;
    zs->corrupt = 1;
    snprintf(zs->corrupt_msg, sizeof(zs->corrupt_msg),
             "entry at offset %llu (data at %llu): %s; the upload is corrupt",
             (unsigned long long)zs->cur.hoff, (unsigned long long)zs->data_start, what);
}

static int inflate_begin(pt2_zipstream *zs, struct pt2_error *err)
{
    memset(&zs->inf, 0, sizeof(zs->inf));
    if (inflateInit2(&zs->inf, -15) != Z_OK)
        return pt2_error_set(err, PT2_ERR_NOMEM, "cannot start inflate");
    zs->inf_live = 1;
    return PT2_OK;
}

static void inflate_end_(pt2_zipstream *zs)
{
    if (zs->inf_live)
        inflateEnd(&zs->inf);
    zs->inf_live = 0;
}

/*
 * Inflate p[0..n) to nowhere, with the CRC of what comes out: Z_OK (all
 * taken), Z_STREAM_END (*used = bytes up to the stream's end), or an error.
 */
static int inflate_some(pt2_zipstream *zs, const uint8_t *p, size_t n, size_t *used)
{
    uint8_t out[32768];
    int zr = Z_OK;

    zs->inf.next_in = (Bytef *)(uintptr_t)p;
    zs->inf.avail_in = (uInt)n;
    while (zs->inf.avail_in > 0 && zr == Z_OK) {
        zs->inf.next_out = out;
        zs->inf.avail_out = sizeof(out);
        zr = inflate(&zs->inf, Z_NO_FLUSH);
        zs->crc = pt2_crc32(zs->crc, out, sizeof(out) - zs->inf.avail_out);
        zs->inflated += sizeof(out) - zs->inf.avail_out;
        if (zr == Z_BUF_ERROR && zs->inf.avail_out > 0)
            zr = Z_DATA_ERROR; /* no progress with input left: not deflate */
        else if (zr == Z_BUF_ERROR)
            zr = Z_OK;
        if (zs->inflated > INFLATE_MAX)
            zr = Z_MEM_ERROR;
    }
    *used = n - zs->inf.avail_in;
    return zr;
}

/* The zip64 extra field (0x0001) of a local header: sizes that were 0xFFFFFFFF. */
static void local_zip64(pt2_zipstream *zs, const uint8_t *x, size_t m)
{
    size_t i = 0;

    while (i + 4 <= m) {
        uint16_t id = pt2_le16(x + i), len = pt2_le16(x + i + 2);
        const uint8_t *d = x + i + 4;

        if (i + 4 + len > m)
            break;
        if (id == 1) {
            size_t k = 0;

            zs->zip64 = 1;
            if (zs->cur.usize == 0xFFFFFFFFu && k + 8 <= len) {
                zs->cur.usize = pt2_le64(d + k);
                k += 8;
            }
            if (zs->cur.csize == 0xFFFFFFFFu && k + 8 <= len)
                zs->cur.csize = pt2_le64(d + k);
        }
        i += 4 + len;
    }
}

static int begin_data(pt2_zipstream *zs, uint16_t flags, struct pt2_error *err)
{
    const char *name = (const char *)zs->hdr + LOCAL_LEN;
    size_t n = zs->cur.name_len;
    int bit3 = (flags & 8) != 0;

    zs->crc = 0;
    zs->data_start = zs->pos;
    zs->dropping = 0;
    zs->pend_len = 0;
    if (flags & 1) {
        lose(zs, "entry '%.*s' at offset %llu is encrypted", NAME_ARG(name, n),
             OFF_ARG(zs->cur.hoff));
        return PT2_OK;
    }
    if (zs->nents >= PT2_ZIPSTREAM_ENTRIES_MAX) {
        lose(zs, "more than %u entries ('%.*s' at offset %llu)", PT2_ZIPSTREAM_ENTRIES_MAX,
             NAME_ARG(name, n), OFF_ARG(zs->cur.hoff));
        return PT2_OK;
    }
    zs->keep = zs->sink.want(zs->sink.ctx, name, n);
    if (!bit3) {
        if (zs->cur.method == 0 && zs->cur.csize != zs->cur.usize) {
            lose(zs, "stored entry '%.*s' at offset %llu has two different sizes",
                 NAME_ARG(name, n), OFF_ARG(zs->cur.hoff));
            return PT2_OK;
        }
        if (zs->cur.method != 0 && zs->cur.method != 8)
            zs->keep = 1; /* its CRC cannot be checked: nothing unchecked is dropped */
        zs->remaining = zs->cur.csize;
        zs->st = ST_DATA;
        return !zs->keep && zs->cur.method == 8 ? inflate_begin(zs, err) : PT2_OK;
    }
    if (zs->cur.method == 0) {
        zs->st = ST_STORED_DD;
        return PT2_OK;
    }
    if (zs->cur.method == 8) {
        zs->st = ST_DEFLATE_DD;
        return inflate_begin(zs, err);
    }
    lose(zs, "entry '%.*s' at offset %llu has no sizes and a method (%u) that cannot be followed",
         NAME_ARG(name, n), OFF_ARG(zs->cur.hoff), (unsigned)zs->cur.method);
    return PT2_OK;
}

static int on_local(pt2_zipstream *zs, const uint8_t *p, size_t n, size_t *used,
                    struct pt2_error *err)
{
    const uint8_t *h = zs->hdr;
    int rc = take_hdr(zs, p, n, used, err);

    if (rc != PT2_OK || zs->hdr_len < zs->hdr_need)
        return rc;
    if (zs->hdr_need == LOCAL_LEN) {
        size_t nl = pt2_le16(h + 26), xl = pt2_le16(h + 28);

        if (nl > NAME_LEN_MAX) {
            lose(zs, "an entry name of more than %u bytes at offset %llu", NAME_LEN_MAX,
                 OFF_ARG(zs->pos - zs->hdr_len));
            return PT2_OK;
        }
        zs->hdr_need = LOCAL_LEN + nl + xl;
        if (zs->hdr_len < zs->hdr_need)
            return PT2_OK;
    }
    memset(&zs->cur, 0, sizeof(zs->cur));
    zs->zip64 = 0;
    zs->cur.hoff = zs->pos - zs->hdr_need;
    zs->cur.method = pt2_le16(h + 8);
    zs->cur.crc = pt2_le32(h + 14);
    zs->cur.csize = pt2_le32(h + 18);
    zs->cur.usize = pt2_le32(h + 22);
    zs->cur.name_len = pt2_le16(h + 26);
    zs->cur.hash = name_hash(h + LOCAL_LEN, zs->cur.name_len);
    local_zip64(zs, h + LOCAL_LEN + zs->cur.name_len, pt2_le16(h + 28));
    return begin_data(zs, pt2_le16(h + 6), err);
}

/* Data bytes of the current entry: kept, or CRC'd (inflated first) and dropped. */
static int pass_data(pt2_zipstream *zs, const uint8_t *p, size_t n, struct pt2_error *err)
{
    if (zs->cur.method == 0 && (zs->st == ST_STORED_DD || !zs->keep))
        zs->crc = pt2_crc32(zs->crc, p, n);
    if (zs->keep || zs->dropping)
        return emit(zs, p, n, zs->keep, err);
    if (zs->pend_len + n <= PEND_MAX) {
        memcpy(zs->pend + zs->pend_len, p, n);
        zs->pend_len += n;
        zs->pos += n;
        return PT2_OK;
    }
    zs->dropping = 1;
    zs->dropped += zs->pend_len;
    zs->pend_len = 0;
    return emit(zs, p, n, 0, err);
}

static int end_known(pt2_zipstream *zs, struct pt2_error *err)
{
    if (zs->dropping) { /* what was kept can be checked by whoever reads it */
        if (zs->cur.method == 8 && (!zs->inf_live || zs->inf.total_out != zs->cur.usize))
            corrupt(zs, "its deflate data does not inflate to its size");
        else if (zs->crc != zs->cur.crc)
            corrupt(zs, "its CRC-32 does not match its data");
    }
    inflate_end_(zs);
    return push_entry(zs, err);
}

static int on_data(pt2_zipstream *zs, const uint8_t *p, size_t n, size_t *used,
                   struct pt2_error *err)
{
    size_t k = n < zs->remaining ? n : (size_t)zs->remaining;
    int rc;

    if (!zs->keep && zs->cur.method == 8 && zs->inf_live) {
        size_t took = 0;
        int zr = inflate_some(zs, p, k, &took);

        if (zr == Z_STREAM_END && took == k && zs->remaining == k) {
            /* ends with the entry, as it must */
        } else if (zr != Z_OK) {
            if (zs->dropping || zs->pend_len + k > PEND_MAX)
                corrupt(zs, "its deflate data cannot be inflated");
            inflate_end_(zs);
        }
    }
    rc = pass_data(zs, p, k, err);
    zs->remaining -= k;
    *used = k;
    if (rc == PT2_OK && zs->remaining == 0)
        rc = end_known(zs, err);
    return rc;
}

static int next_is_header(const uint8_t *p)
{
    uint32_t s = pt2_le32(p);

    return s == SIG_LOCAL || s == SIG_CDIR;
}

/* Is there a descriptor for `len` data bytes at q (q + DD_LOOK bytes readable)? Its length. */
static size_t stored_descriptor(const pt2_zipstream *zs, const uint8_t *q, uint64_t len)
{
    if (pt2_le32(q) != SIG_DD || pt2_le32(q + 4) != zs->crc)
        return 0;
    if (!zs->zip64 && len <= 0xFFFFFFFFu && pt2_le32(q + 8) == len && pt2_le32(q + 12) == len &&
        next_is_header(q + 16))
        return 16;
    if (pt2_le64(q + 8) == len && pt2_le64(q + 16) == len && next_is_header(q + 24))
        return 24;
    return 0;
}

static int on_stored_dd(pt2_zipstream *zs, const uint8_t *p, size_t n, size_t *used,
                        struct pt2_error *err)
{
    static const uint8_t sig[4] = {'P', 'K', 7, 8};
    const uint8_t *q = memmem(p, n, sig, sizeof(sig));
    size_t before, dlen;
    int rc;

    *used = 0;
    if (q == NULL) { /* all but a possible signature's start is data */
        before = n > 3 ? n - 3 : 0;
        *used = before;
        return pass_data(zs, p, before, err);
    }
    before = (size_t)(q - p);
    if (n - before < DD_LOOK) {
        *used = before;
        return pass_data(zs, p, before, err);
    }
    rc = pass_data(zs, p, before, err);
    if (rc != PT2_OK)
        return rc;
    dlen = stored_descriptor(zs, q, zs->pos - zs->data_start);
    if (dlen == 0) { /* the signature is data */
        *used = before + 1;
        return pass_data(zs, q, 1, err);
    }
    zs->cur.crc = zs->crc;
    zs->cur.csize = zs->cur.usize = zs->pos - zs->data_start;
    *used = before + dlen;
    rc = emit(zs, q, dlen, 1, err);
    return rc == PT2_OK ? push_entry(zs, err) : rc;
}

static int on_deflate_dd(pt2_zipstream *zs, const uint8_t *p, size_t n, size_t *used,
                         struct pt2_error *err)
{
    int zr = inflate_some(zs, p, n, used);
    int rc = pass_data(zs, p, *used, err);

    if (rc != PT2_OK)
        return rc;
    if (zr == Z_STREAM_END) {
        zs->st = ST_DESC;
    } else if (zr != Z_OK) {
        inflate_end_(zs);
        lose(zs, "the deflate data of the entry at offset %llu cannot be followed",
             OFF_ARG(zs->cur.hoff));
    }
    return PT2_OK;
}

/* The descriptor after deflated data, whose end is known: signature optional, 4 or 8 byte sizes. */
static int on_desc(pt2_zipstream *zs, const uint8_t *p, size_t n, size_t *used,
                   struct pt2_error *err)
{
    uint64_t c = zs->pos - zs->data_start, u = zs->inf.total_out;
    size_t s = n >= 4 && pt2_le32(p) == SIG_DD ? 4 : 0, len = 0;
    int rc;

    *used = 0;
    if (n < DD_LOOK)
        return PT2_OK;
    if (pt2_le32(p + s) == zs->crc && !zs->zip64 && pt2_le32(p + s + 4) == c &&
        pt2_le32(p + s + 8) == u && next_is_header(p + s + 12))
        len = s + 12;
    else if (pt2_le32(p + s) == zs->crc && pt2_le64(p + s + 4) == c && pt2_le64(p + s + 12) == u &&
             s + 20 + 4 <= n && next_is_header(p + s + 20))
        len = s + 20;
    inflate_end_(zs);
    if (len == 0) {
        lose(zs, "the data descriptor of '%.*s' at offset %llu does not match its data",
             NAME_ARG(zs->hdr + LOCAL_LEN, zs->cur.name_len), OFF_ARG(zs->cur.hoff));
        return PT2_OK;
    }
    zs->cur.crc = zs->crc;
    zs->cur.csize = c;
    zs->cur.usize = u;
    *used = len;
    rc = emit(zs, p, len, 1, err);
    return rc == PT2_OK ? push_entry(zs, err) : rc;
}

static const struct zs_entry *find_entry(const pt2_zipstream *zs, uint64_t hoff)
{
    size_t lo = 0, hi = zs->nents;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (zs->ents[mid].hoff < hoff)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < zs->nents && zs->ents[lo].hoff == hoff ? &zs->ents[lo] : NULL;
}

/* One directory record against the entry that streamed past at its offset. */
static void check_cdir(pt2_zipstream *zs)
{
    const uint8_t *h = zs->hdr;
    size_t nl = pt2_le16(h + 28), xl = pt2_le16(h + 30);
    struct zs_entry e = {0};
    const struct zs_entry *s;
    const uint8_t *x = h + CDIR_LEN + nl;

    e.method = pt2_le16(h + 10);
    e.crc = pt2_le32(h + 16);
    e.csize = pt2_le32(h + 20);
    e.usize = pt2_le32(h + 24);
    e.hoff = pt2_le32(h + 42);
    for (size_t i = 0; i + 4 <= xl;) {
        uint16_t id = pt2_le16(x + i), len = pt2_le16(x + i + 2);
        size_t k = 0;

        if (i + 4 + len > xl)
            break;
        if (id == 1) { /* zip64: the fields that were 0xFFFFFFFF, in this order */
            const uint8_t *d = x + i + 4;

            if (e.usize == 0xFFFFFFFFu && k + 8 <= len) {
                e.usize = pt2_le64(d + k);
                k += 8;
            }
            if (e.csize == 0xFFFFFFFFu && k + 8 <= len) {
                e.csize = pt2_le64(d + k);
                k += 8;
            }
            if (e.hoff == 0xFFFFFFFFu && k + 8 <= len)
                e.hoff = pt2_le64(d + k);
        }
        i += 4 + len;
    }
    zs->cd_records++;
    s = find_entry(zs, e.hoff);
    if (s == NULL || s->name_len != nl || s->hash != name_hash(h + CDIR_LEN, nl) ||
        s->method != e.method || s->crc != e.crc || s->csize != e.csize || s->usize != e.usize)
        disagree(zs,
                 "the central directory's entry '%.*s' (local header at %llu) is not what "
                 "streamed past",
                 NAME_ARG(h + CDIR_LEN, nl), OFF_ARG(e.hoff));
}

static int on_cdir(pt2_zipstream *zs, const uint8_t *p, size_t n, size_t *used,
                   struct pt2_error *err)
{
    int rc = take_hdr(zs, p, n, used, err);

    if (rc != PT2_OK || zs->hdr_len < zs->hdr_need)
        return rc;
    if (zs->hdr_need == CDIR_LEN) {
        size_t nl = pt2_le16(zs->hdr + 28);

        /* No entry that streamed past has such a name (its local header was not followed
         * either), and the record would not fit the header buffer: not followed from here. */
        if (nl > NAME_LEN_MAX) {
            lose(zs, "a central directory name of more than %u bytes at offset %llu", NAME_LEN_MAX,
                 OFF_ARG(zs->pos - zs->hdr_len));
            return PT2_OK;
        }
        zs->hdr_need = CDIR_LEN + nl + pt2_le16(zs->hdr + 30) + pt2_le16(zs->hdr + 32);
        if (zs->hdr_len < zs->hdr_need)
            return PT2_OK;
    }
    check_cdir(zs);
    zs->st = ST_SIG;
    return PT2_OK;
}

static int on_record(pt2_zipstream *zs, const uint8_t *p, size_t n, size_t *used,
                     struct pt2_error *err)
{
    const uint8_t *h = zs->hdr;
    int rc = take_hdr(zs, p, n, used, err);

    if (rc != PT2_OK || zs->hdr_len < zs->hdr_need)
        return rc;
    if (zs->st == ST_EOCD64 && zs->hdr_need == EOCD64_LEN) {
        uint64_t rest = pt2_le64(h + 4);

        zs->have64 = 1;
        zs->end_entries = pt2_le64(h + 32);
        zs->end_cd_size = pt2_le64(h + 40);
        zs->end_cd_off = pt2_le64(h + 48);
        if (rest < EOCD64_LEN - 12 || rest > EOCD64_MAX - 12) {
            lose(zs, "a zip64 end record of impossible size at offset %llu",
                 OFF_ARG(zs->pos - zs->hdr_len));
            return PT2_OK;
        }
        zs->hdr_need = (size_t)(12 + rest);
        if (zs->hdr_len < zs->hdr_need)
            return PT2_OK;
    } else if (zs->st == ST_DIGSIG && zs->hdr_need == DIGSIG_LEN) {
        zs->hdr_need = DIGSIG_LEN + pt2_le16(h + 4);
        if (zs->hdr_len < zs->hdr_need)
            return PT2_OK;
    } else if (zs->st == ST_EOCD && zs->hdr_need == EOCD_LEN) {
        zs->have_eocd = 1;
        zs->eocd_entries = pt2_le16(h + 10);
        zs->eocd_cd_size = pt2_le32(h + 12);
        zs->eocd_cd_off = pt2_le32(h + 16);
        zs->hdr_need = EOCD_LEN + pt2_le16(h + 20);
        if (zs->hdr_len < zs->hdr_need)
            return PT2_OK;
    }
    zs->st = zs->st == ST_EOCD ? ST_END : ST_SIG;
    return PT2_OK;
}

static void on_sig(pt2_zipstream *zs, const uint8_t *p)
{
    uint32_t s = pt2_le32(p);

    if (s != SIG_LOCAL && !zs->cd_seen) {
        zs->cd_seen = 1;
        zs->cd_start = zs->pos; /* the directory, or the end of an archive without entries */
    }
    if (s != SIG_LOCAL && s != SIG_CDIR && !zs->cd_ended) {
        zs->cd_ended = 1;
        zs->cd_end = zs->pos;
    }
    if (s == SIG_LOCAL && !zs->cd_seen)
        start_hdr(zs, ST_LOCAL, LOCAL_LEN);
    else if (s == SIG_CDIR && !zs->cd_ended)
        start_hdr(zs, ST_CDIR, CDIR_LEN);
    else if (s == SIG_EOCD64)
        start_hdr(zs, ST_EOCD64, EOCD64_LEN);
    else if (s == SIG_LOCATOR)
        start_hdr(zs, ST_LOCATOR, LOCATOR_LEN);
    else if (s == SIG_DIGSIG)
        start_hdr(zs, ST_DIGSIG, DIGSIG_LEN);
    else if (s == SIG_EOCD)
        start_hdr(zs, ST_EOCD, EOCD_LEN);
    else
        lose(zs, "unexpected bytes at offset %llu", OFF_ARG(zs->pos));
}

/* One step: consumes *used bytes of p[0..n) or changes state; needs more when neither. */
static int step(pt2_zipstream *zs, const uint8_t *p, size_t n, size_t *used, struct pt2_error *err)
{
    *used = 0;
    switch (zs->st) {
    case ST_SIG:
        if (n >= 4)
            on_sig(zs, p);
        return PT2_OK;
    case ST_LOCAL:
        return on_local(zs, p, n, used, err);
    case ST_DATA:
        return on_data(zs, p, n, used, err);
    case ST_STORED_DD:
        return on_stored_dd(zs, p, n, used, err);
    case ST_DEFLATE_DD:
        return on_deflate_dd(zs, p, n, used, err);
    case ST_DESC:
        return on_desc(zs, p, n, used, err);
    case ST_CDIR:
        return on_cdir(zs, p, n, used, err);
    case ST_EOCD64:
    case ST_LOCATOR:
    case ST_DIGSIG:
    case ST_EOCD:
        return on_record(zs, p, n, used, err);
    case ST_END:
        if (n == 0)
            return PT2_OK;
        disagree(zs, "bytes after the end record, at offset %llu", OFF_ARG(zs->pos));
        zs->st = ST_KEEP;
        return PT2_OK;
    case ST_KEEP:
        *used = n;
        if (zs->pend_len > 0 && flush_pending(zs, err) != PT2_OK)
            return err->code;
        return emit(zs, p, n, 1, err);
    }
    return PT2_OK;
}

/* Steps over p[0..n) until one makes no progress; *used is what they took. */
static int run(pt2_zipstream *zs, const uint8_t *p, size_t n, size_t *used, struct pt2_error *err)
{
    size_t done = 0;
    int rc = PT2_OK;

    while (rc == PT2_OK && done < n) {
        enum zs_state before = zs->st;
        size_t k = 0;

        rc = step(zs, p + done, n - done, &k, err);
        done += k;
        if (k == 0 && zs->st == before)
            break;
    }
    *used = done;
    return rc;
}

int pt2_zipstream_feed(pt2_zipstream *zs, const void *data, size_t len, struct pt2_error *err)
{
    const uint8_t *p = data;
    size_t used;
    int rc = PT2_OK;

    while (len > 0 && rc == PT2_OK) {
        if (zs->ncarry > 0) {
            size_t old = zs->ncarry, take = len < CARRY_MAX - old ? len : CARRY_MAX - old;

            memcpy(zs->carry + old, p, take);
            zs->ncarry += take;
            rc = run(zs, zs->carry, zs->ncarry, &used, err);
            if (used >= old) { /* the carried bytes are done: the rest is the slice's own */
                p += used - old;
                len -= used - old;
                zs->ncarry = 0;
                continue;
            }
            memmove(zs->carry, zs->carry + used, zs->ncarry - used);
            zs->ncarry -= used;
            p += take;
            len -= take;
            if (rc == PT2_OK && zs->ncarry == CARRY_MAX)
                return pt2_error_set(err, PT2_ERR_INTERNAL, "zip stream parser made no progress");
            continue;
        }
        rc = run(zs, p, len, &used, err);
        p += used;
        len -= used;
        if (rc == PT2_OK && len >= CARRY_MAX)
            return pt2_error_set(err, PT2_ERR_INTERNAL, "zip stream parser made no progress");
        if (rc == PT2_OK && len > 0) {
            memcpy(zs->carry, p, len);
            zs->ncarry = len;
            len = 0;
        }
    }
    return rc;
}

static const char *state_name(enum zs_state st)
{
    switch (st) {
    case ST_SIG:
        return "between records";
    case ST_LOCAL:
        return "a local header";
    case ST_DATA:
    case ST_STORED_DD:
    case ST_DEFLATE_DD:
    case ST_DESC:
        return "an entry's data";
    case ST_CDIR:
        return "the central directory";
    default:
        return "the end records";
    }
}

/* The end records against where the directory was seen. */
static void check_end(pt2_zipstream *zs)
{
    uint64_t size = zs->cd_end - zs->cd_start;
    int ok = zs->have_eocd;

    if (zs->have64)
        ok = ok && zs->end_entries == zs->cd_records && zs->end_cd_size == size &&
             zs->end_cd_off == zs->cd_start;
    ok = ok && (zs->eocd_entries == 0xFFFFu || zs->eocd_entries == (zs->cd_records & 0xFFFFu) ||
                (zs->have64 && zs->cd_records > 0xFFFFu));
    ok = ok && (zs->eocd_cd_size == 0xFFFFFFFFu || zs->eocd_cd_size == size);
    ok = ok && (zs->eocd_cd_off == 0xFFFFFFFFu || zs->eocd_cd_off == zs->cd_start);
    if (!ok)
        disagree(zs, "the end record does not describe the central directory at offset %llu",
                 OFF_ARG(zs->cd_start));
}

int pt2_zipstream_finish(pt2_zipstream *zs, struct pt2_error *err)
{
    size_t used = 0;
    int rc = PT2_OK;

    if (zs->finished)
        return PT2_OK;
    zs->finished = 1;
    if (zs->ncarry > 0) {
        rc = run(zs, zs->carry, zs->ncarry, &used, err);
        if (rc == PT2_OK && used < zs->ncarry) {
            lose(zs, "the upload ended inside %s, at offset %llu", state_name(zs->st),
                 OFF_ARG(zs->pos));
            rc = emit(zs, zs->carry + used, zs->ncarry - used, 1, err);
        }
        zs->ncarry = 0;
    }
    if (rc == PT2_OK)
        rc = flush_pending(zs, err);
    if (rc != PT2_OK)
        return rc;
    if (zs->st != ST_END && zs->st != ST_KEEP)
        lose(zs, "the upload ended inside %s, at offset %llu", state_name(zs->st),
             OFF_ARG(zs->pos));
    if (!zs->lost)
        check_end(zs);
    inflate_end_(zs);
    zs->result = !zs->lost          ? PT2_ZIPSTREAM_FOLLOWED
                 : zs->dropped == 0 ? PT2_ZIPSTREAM_COMPLETE
                                    : PT2_ZIPSTREAM_LOST;
    return PT2_OK;
}

int pt2_zipstream_new(pt2_zipstream **out, const struct pt2_zipstream_sink *sink,
                      struct pt2_error *err)
{
    pt2_zipstream *zs = calloc(1, sizeof(*zs));

    *out = NULL;
    if (zs == NULL || (zs->hdr = malloc(HDR_MAX)) == NULL ||
        (zs->pend = malloc(PEND_MAX)) == NULL) {
        if (zs != NULL)
            free(zs->hdr);
        free(zs);
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    }
    zs->sink = *sink;
    zs->st = ST_SIG;
    *out = zs;
    return PT2_OK;
}

int pt2_zipstream_result(const pt2_zipstream *zs, const char **reason)
{
    if (reason != NULL)
        *reason = zs->lost ? zs->reason : "";
    return zs->result;
}

uint64_t pt2_zipstream_dropped(const pt2_zipstream *zs)
{
    return zs->dropped;
}

uint64_t pt2_zipstream_entries_dropped(const pt2_zipstream *zs)
{
    return zs->ents_dropped;
}

int pt2_zipstream_corrupt(const pt2_zipstream *zs, const char **message)
{
    if (message != NULL)
        *message = zs->corrupt ? zs->corrupt_msg : "";
    return zs->corrupt;
}

void pt2_zipstream_free(pt2_zipstream *zs)
{
    if (zs == NULL)
        return;
    inflate_end_(zs);
    free(zs->ents);
    free(zs->hdr);
    free(zs->pend);
    free(zs);
}
