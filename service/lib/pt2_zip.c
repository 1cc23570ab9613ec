/*
 * pt2_zip.c - read-only archive access over libzip (see pt2_zip.h).
 *
 * Opening: fstat, then read the file tail ourselves (exactly the window
 * libzip 1.7.3 asks for first, so its own first read is served from that
 * copy and the bytes are read once). From every end record in it that
 * libzip could use we take the entry count and central directory size and
 * offset, to apply our caps before libzip reads that directory, and whether
 * a zip64 locator is present; the entry count libzip ends up with is
 * checked again after opening. When the central directory starts before
 * that window, the missing part is read in the same way, with one pread:
 * libzip reads a directory record in two calls, so 20,000 entries would
 * otherwise cost 40,000 syscalls. libzip then opens the file through a
 * pread() source that counts every byte and call.
 *
 * No ZIP_CHECKCONS: it rereads every local header (one scattered read per
 * entry, which made a 20,000-entry package cost 4 MB and 80,000 calls). Its
 * directory-level half, the only way libzip 1.7.3 notices entry offsets
 * that point past the directory at open time, is done here on the buffered
 * directory (pz_check_offsets); a local header that disagrees with its
 * directory record is still caught, by libzip, when the entry is opened.
 * A directory that could not be buffered, or several end records libzip
 * could choose between, keep ZIP_CHECKCONS.
 *
 * Entries: names come from libzip (borrowed until zip_discard); sizes and
 * methods are copied at open so the accessors never fail. Stored entries are
 * read with zip_fseek + zip_fread (libzip seeks its window source, so only the
 * requested bytes are read); compressed ones can only be inflated forward.
 * Sizes libzip would trust blindly are checked at open (pz_check_sizes).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zip.h>

#include "pt2_zip.h"

/* What libzip 1.7.3 reads first: MAXCOMLEN + EOCDLEN + EOCD64LOCLEN from the end. */
#define PZ_TAIL_LEN (65536u + 22u + 20u)
#define PZ_EOCD_LEN 22u
#define PZ_LOCATOR_LEN 20u
#define PZ_EOCD64_LEN 56u
#define PZ_PREAD_CHUNK (1u << 30)
#define PZ_SCRATCH_LEN 16384u

struct pt2_zip_ent {
    const char *name; /* owned by libzip */
    uint64_t size;    /* uncompressed */
    uint16_t method;  /* ZIP_CM_* */
};

struct pt2_zip {
    int fd;
    int owns_fd;
    uint64_t size;

    /* libzip source state */
    uint64_t pos;
    zip_error_t src_error;
    int io_errno; /* errno of the last failed pread in the current operation */
    uint64_t bytes_read, read_calls;
    uint64_t dropped; /* bytes inflated only to seek, all entries together */
    uint8_t *tail;    /* file end (from the central directory on) read before libzip opens */
    uint64_t tail_off;
    size_t tail_len;

    /* facts from the end records */
    int have_eocd; /* an end-record signature is in the tail */
    int cd_known;  /* exactly one end record libzip can use: cd_offset, cd_size are it */
    int zip64;
    uint64_t cd_offset, cd_size;

    zip_t *za;
    size_t n;
    struct pt2_zip_ent *ents;
    char prefix[PT2_NAME_MAX];
    size_t prefix_len;
    char (*models)[PT2_NAME_MAX];
    size_t nmodels, models_cap;
};

struct pt2_zip_entry {
    pt2_zip *z;
    size_t idx;
    zip_file_t *zf;
    int stored;
    uint64_t pos;     /* compressed entries: uncompressed offset zf is at */
    uint64_t dropped; /* compressed entries: bytes inflated only to skip */
    struct pt2_rd rd;
};

/* ---- file access ------------------------------------------------------- */

static const char *pz_strerror(int e, char *buf, size_t len)
{
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
    /* The GNU variant may return a static string instead of filling buf. */
    return strerror_r(e, buf, len);
#else
    if (strerror_r(e, buf, len) != 0)
        snprintf(buf, len, "error %d", e);
    return buf;
#endif
}

/* pread exactly what is there: *got < len only at end of file. -1 sets io_errno. */
static int pz_pread(pt2_zip *z, uint64_t off, void *buf, size_t len, size_t *got)
{
    size_t have = 0;

    while (have < len) {
        size_t chunk = len - have;
        ssize_t n;

        if (chunk > PZ_PREAD_CHUNK)
            chunk = PZ_PREAD_CHUNK;
        z->read_calls++;
        n = pread(z->fd, (uint8_t *)buf + have, chunk, (off_t)(off + have));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            z->io_errno = errno;
            *got = have;
            return -1;
        }
        if (n == 0)
            break;
        have += (size_t)n;
        z->bytes_read += (uint64_t)n;
    }
    *got = have;
    return 0;
}

/* The libzip source: pread at a tracked position, the tail served from memory. */
static zip_int64_t pz_src_cb(void *ud, void *data, zip_uint64_t len, zip_source_cmd_t cmd)
{
    pt2_zip *z = ud;

    switch (cmd) {
    case ZIP_SOURCE_OPEN:
        z->pos = 0;
        return 0;
    case ZIP_SOURCE_READ: {
        size_t want, got = 0;

        if (z->pos >= z->size || len == 0)
            return 0;
        want = len > z->size - z->pos ? (size_t)(z->size - z->pos) : (size_t)len;
        if (z->tail != NULL && z->pos >= z->tail_off &&
            z->pos + want <= z->tail_off + z->tail_len) {
            memcpy(data, z->tail + (z->pos - z->tail_off), want);
            got = want;
        } else if (pz_pread(z, z->pos, data, want, &got) < 0) {
            zip_error_set(&z->src_error, ZIP_ER_READ, z->io_errno);
            return -1;
        }
        z->pos += got;
        return (zip_int64_t)got;
    }
    case ZIP_SOURCE_CLOSE:
        return 0;
    case ZIP_SOURCE_STAT: {
        zip_stat_t *st = ZIP_SOURCE_GET_ARGS(zip_stat_t, data, len, &z->src_error);

        if (st == NULL)
            return -1;
        zip_stat_init(st);
        st->size = z->size;
        st->valid |= ZIP_STAT_SIZE;
        return (zip_int64_t)sizeof(*st);
    }
    case ZIP_SOURCE_ERROR:
        return zip_error_to_data(&z->src_error, data, len);
    case ZIP_SOURCE_SEEK: {
        zip_int64_t np = zip_source_seek_compute_offset(z->pos, z->size, data, len, &z->src_error);
        if (np < 0)
            return -1;
        z->pos = (uint64_t)np;
        return 0;
    }
    case ZIP_SOURCE_TELL:
        return (zip_int64_t)z->pos;
    case ZIP_SOURCE_FREE:
        /* The state is the pt2_zip itself, freed by pt2_zip_free(). */
        return 0;
    case ZIP_SOURCE_SUPPORTS:
        return zip_source_make_command_bitmap(
            ZIP_SOURCE_OPEN, ZIP_SOURCE_READ, ZIP_SOURCE_CLOSE, ZIP_SOURCE_STAT, ZIP_SOURCE_ERROR,
            ZIP_SOURCE_FREE, ZIP_SOURCE_SEEK, ZIP_SOURCE_TELL, ZIP_SOURCE_SUPPORTS, -1);
    default:
        zip_error_set(&z->src_error, ZIP_ER_OPNOTSUPP, 0);
        return -1;
    }
}

/* ---- end records ------------------------------------------------------- */

/* Bytes [off, off+len) from the cached tail, or NULL if they are not all in it. */
static const uint8_t *pz_tail_at(const pt2_zip *z, uint64_t off, size_t len)
{
    if (off < z->tail_off || off - z->tail_off > z->tail_len ||
        len > z->tail_len - (size_t)(off - z->tail_off))
        return NULL;
    return z->tail + (off - z->tail_off);
}

/*
 * Grow the tail buffer down to the start of the central directory, so that
 * libzip's many small directory reads are served from memory. Only when the
 * directory runs on into the tail (the normal layout); anything else is left
 * to libzip's own reads.
 */
static int pz_extend_tail(pt2_zip *z, struct pt2_error *err)
{
    char ebuf[128];
    uint8_t *buf;
    size_t head, got = 0;

    if (z->cd_offset >= z->tail_off || z->cd_size > z->size - z->cd_offset ||
        z->cd_offset + z->cd_size < z->tail_off)
        return PT2_OK;
    head = (size_t)(z->tail_off - z->cd_offset); /* <= cd_size <= PT2_ZIP_CDIR_MAX */
    buf = malloc(head + z->tail_len);
    if (buf == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory reading the central directory");
    if (pz_pread(z, z->cd_offset, buf, head, &got) < 0) {
        free(buf);
        return pt2_error_set(err, PT2_ERR_IO, "read error: %s",
                             pz_strerror(z->io_errno, ebuf, sizeof(ebuf)));
    }
    if (got != head) {
        free(buf);
        return pt2_error_set(err, PT2_ERR_IO, "read error: the file shrank while being read");
    }
    memcpy(buf + head, z->tail, z->tail_len);
    free(z->tail);
    z->tail = buf;
    z->tail_off = z->cd_offset;
    z->tail_len += head;
    return PT2_OK;
}

/* One end-record candidate, as libzip would read it. */
struct pz_end {
    uint64_t entries, cd_size, cd_offset;
    int zip64;
};

/*
 * Decode the end record at tail offset p. Returns 1 when libzip 1.7.3 could
 * open the directory it describes, 0 when libzip rejects it before reading
 * a single directory record, or a negative status (err set) on a read error.
 * Only rejections libzip certainly makes are applied, so every directory
 * libzip can open is among the accepted candidates: a zip64 record whose
 * magic, locator or sizes are wrong; a directory that does not end before
 * the record; more entries than its bytes can hold (46 bytes at least each).
 */
static int pz_decode_end(pt2_zip *z, size_t p, struct pz_end *out, struct pt2_error *err)
{
    char ebuf[128];
    const uint8_t *e = z->tail + p;
    uint64_t end_at = z->tail_off + p; /* where the directory must end by */

    memset(out, 0, sizeof(*out));
    out->entries = pt2_le16(e + 10);
    out->cd_size = pt2_le32(e + 12);
    out->cd_offset = pt2_le32(e + 16);
    if (p >= PZ_LOCATOR_LEN && pt2_le32(e - PZ_LOCATOR_LEN) == 0x07064b50u) {
        uint64_t off64 = pt2_le64(e - PZ_LOCATOR_LEN + 8);
        uint8_t rec[PZ_EOCD64_LEN];
        const uint8_t *r;
        size_t got = 0;

        out->zip64 = 1;
        /* The zip64 record must lie before its locator. */
        if (off64 > end_at - PZ_LOCATOR_LEN || PZ_EOCD64_LEN > end_at - PZ_LOCATOR_LEN - off64)
            return 0;
        r = pz_tail_at(z, off64, sizeof(rec));
        if (r == NULL) {
            if (pz_pread(z, off64, rec, sizeof(rec), &got) < 0)
                return pt2_error_set(err, PT2_ERR_IO, "read error: %s",
                                     pz_strerror(z->io_errno, ebuf, sizeof(ebuf)));
            if (got != sizeof(rec))
                return 0;
            r = rec;
        }
        if (pt2_le32(r) != 0x06064b50u)
            return 0;
        out->entries = pt2_le64(r + 32);
        out->cd_size = pt2_le64(r + 40);
        out->cd_offset = pt2_le64(r + 48);
        end_at = off64;
    }
    if (out->cd_offset > end_at || out->cd_size > end_at - out->cd_offset)
        return 0;
    return out->entries <= out->cd_size / 46;
}

/*
 * Read the tail and look at every end-record signature libzip will try.
 * libzip parses each candidate it can open and keeps the most consistent,
 * so the caps apply to every accepted candidate (a fake, rejected record in
 * an archive comment costs nothing and is ignored). With exactly one
 * accepted candidate we know the directory libzip will read, and buffer and
 * check it; with several, libzip's full check (ZIP_CHECKCONS) decides. No
 * end record is not an error here; libzip decides and we map.
 */
static int pz_scan_tail(pt2_zip *z, struct pt2_error *err)
{
    char ebuf[128];
    struct pz_end cand, first;
    size_t got = 0, p, from, naccepted = 0;
    int rc;

    z->tail_len = z->size < PZ_TAIL_LEN ? (size_t)z->size : PZ_TAIL_LEN;
    z->tail_off = z->size - z->tail_len;
    z->tail = malloc(z->tail_len);
    if (z->tail == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory reading the archive tail");
    if (pz_pread(z, z->tail_off, z->tail, z->tail_len, &got) < 0)
        return pt2_error_set(err, PT2_ERR_IO, "read error: %s",
                             pz_strerror(z->io_errno, ebuf, sizeof(ebuf)));
    if (got != z->tail_len)
        return pt2_error_set(err, PT2_ERR_IO, "read error: the file shrank while being read");

    /* libzip leaves room for a zip64 locator when its window is full. */
    from = z->tail_len == PZ_TAIL_LEN ? PZ_LOCATOR_LEN : 0;
    memset(&first, 0, sizeof(first));
    for (p = from; z->tail_len >= PZ_EOCD_LEN && p <= z->tail_len - PZ_EOCD_LEN; p++) {
        /* memchr to the next 'P': testing all 64 KiB byte by byte was a quarter of
         * an uncached inspection (tests/bench). Same candidates, same order. */
        const uint8_t *q = memchr(z->tail + p, 'P', z->tail_len - PZ_EOCD_LEN + 1 - p);

        if (q == NULL)
            break;
        p = (size_t)(q - z->tail);
        if (memcmp(q, "PK\5\6", 4) != 0)
            continue;
        z->have_eocd = 1;
        rc = pz_decode_end(z, p, &cand, err);
        if (rc < 0)
            return rc;
        if (rc == 0)
            continue;
        if (cand.entries > PT2_ZIP_ENTRIES_MAX)
            return pt2_error_set(err, PT2_ERR_TOO_LARGE, "archive lists %llu entries (cap %u)",
                                 (unsigned long long)cand.entries, PT2_ZIP_ENTRIES_MAX);
        if (cand.cd_size > PT2_ZIP_CDIR_MAX)
            return pt2_error_set(err, PT2_ERR_TOO_LARGE,
                                 "central directory is %llu bytes (cap %u MiB)",
                                 (unsigned long long)cand.cd_size, PT2_ZIP_CDIR_MAX >> 20);
        if (naccepted++ == 0)
            first = cand;
    }
    /* libzip keeps the first candidate unless a later one is more consistent. */
    z->zip64 = first.zip64;
    if (naccepted != 1)
        return PT2_OK;
    z->cd_known = 1;
    z->cd_offset = first.cd_offset;
    z->cd_size = first.cd_size;
    return pz_extend_tail(z, err);
}

/* Apply a central directory record's zip64 extra field to the values it overrides. */
static void pz_zip64_values(const uint8_t *x, size_t xlen, uint64_t *usize, uint64_t *csize,
                            uint64_t *offset)
{
    while (xlen >= 4) {
        size_t id = pt2_le16(x), len = pt2_le16(x + 2), k = 4;

        if (len > xlen - 4)
            return;
        if (id == 0x0001) {
            /* Present in this order, and only for the fields saturated in the record. */
            if (*usize == 0xffffffffu && k + 8 <= 4 + len) {
                *usize = pt2_le64(x + k);
                k += 8;
            }
            if (*csize == 0xffffffffu && k + 8 <= 4 + len) {
                *csize = pt2_le64(x + k);
                k += 8;
            }
            if (*offset == 0xffffffffu && k + 8 <= 4 + len)
                *offset = pt2_le64(x + k);
            return;
        }
        x += 4 + len;
        xlen -= 4 + len;
    }
}

/*
 * The directory-level half of libzip's ZIP_CHECKCONS, on the buffered
 * directory: every entry's local header, name and data must end before the
 * central directory starts. libzip has already parsed the records, so a
 * record we cannot walk ends the walk rather than failing.
 */
static int pz_check_offsets(const pt2_zip *z, struct pt2_error *err)
{
    const uint8_t *cd = pz_tail_at(z, z->cd_offset, (size_t)z->cd_size);
    uint64_t pos = 0;

    if (!z->cd_known || cd == NULL)
        return PT2_OK;
    while (z->cd_size - pos >= 46 && pt2_le32(cd + pos) == 0x02014b50u) {
        const uint8_t *r = cd + pos;
        uint64_t csize = pt2_le32(r + 20), usize = pt2_le32(r + 24), off = pt2_le32(r + 42);
        size_t nlen = pt2_le16(r + 28), xlen = pt2_le16(r + 30), clen = pt2_le16(r + 32);

        if (46 + nlen + xlen + clen > z->cd_size - pos)
            break;
        pz_zip64_values(r + 46 + nlen, xlen, &usize, &csize, &off);
        if (off > z->cd_offset || csize > z->cd_offset - off ||
            30 + nlen > z->cd_offset - off - csize)
            return pt2_error_set(err, PT2_ERR_TRUNCATED,
                                 "truncated or corrupt zip: central directory records do not "
                                 "match the file (bad offsets or counts)");
        pos += 46 + nlen + xlen + clen;
    }
    return PT2_OK;
}

/* 1 if the file starts with a local file header. */
static int pz_starts_with_local_header(pt2_zip *z)
{
    uint8_t b[4];
    const uint8_t *p = pz_tail_at(z, 0, sizeof(b));
    size_t got = 0;

    if (p == NULL) {
        if (pz_pread(z, 0, b, sizeof(b), &got) < 0 || got != sizeof(b))
            return 0;
        p = b;
    }
    return pt2_le32(p) == 0x04034b50u;
}

static int pz_open_error(pt2_zip *z, zip_error_t *ze, struct pt2_error *err)
{
    char ebuf[128];
    int code = zip_error_code_zip(ze);

    if (z->io_errno != 0)
        return pt2_error_set(err, PT2_ERR_IO, "read error: %s",
                             pz_strerror(z->io_errno, ebuf, sizeof(ebuf)));
    switch (code) {
    case ZIP_ER_MEMORY:
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory opening the archive");
    case ZIP_ER_NOZIP:
        /* An end record is there, so libzip rejected the directory it describes: entry
         * offsets or counts that do not fit. */
        if (z->have_eocd)
            return pt2_error_set(err, PT2_ERR_TRUNCATED,
                                 "truncated or corrupt zip: central directory records do not "
                                 "match the file (bad offsets or counts)");
        if (pz_starts_with_local_header(z))
            return pt2_error_set(err, PT2_ERR_TRUNCATED,
                                 "truncated or corrupt zip: the file starts with a local header "
                                 "but has no end-of-central-directory record");
        return pt2_error_set(err, PT2_ERR_NOT_ZIP,
                             "not a zip archive (no end-of-central-directory record)");
    case ZIP_ER_MULTIDISK:
        /* A split archive or a damaged end record: either way this file is not whole. */
        return pt2_error_set(err, PT2_ERR_TRUNCATED,
                             "truncated or corrupt zip: the end record says the archive spans "
                             "several disks");
    case ZIP_ER_INCONS:
        return pt2_error_set(err, PT2_ERR_TRUNCATED,
                             "truncated or corrupt zip: the central directory is inconsistent "
                             "with the file");
    case ZIP_ER_EOF:
    case ZIP_ER_SEEK:
    case ZIP_ER_READ:
        return pt2_error_set(err, PT2_ERR_TRUNCATED,
                             "truncated or corrupt zip: the central directory lies past the end "
                             "of the file");
    default:
        return pt2_error_set(err, PT2_ERR_INTERNAL, "cannot open the archive: %s",
                             zip_error_strerror(ze));
    }
}

/* ---- names, prefix, models --------------------------------------------- */

/* Does `rel` (relative to a candidate prefix) look like something at a package root? */
static int pz_is_root_marker(const char *rel)
{
    static const char *const files[] = {"archive_format", "archive_version", "version",
                                        ".data/version", "byteorder"};
    static const char *const dirs[] = {"data/", "models/", "extra/"};
    size_t k;

    for (k = 0; k < sizeof(files) / sizeof(files[0]); k++)
        if (strcmp(rel, files[k]) == 0)
            return 1;
    for (k = 0; k < sizeof(dirs) / sizeof(dirs[0]); k++)
        if (strncmp(rel, dirs[k], strlen(dirs[k])) == 0)
            return 1;
    return 0;
}

/* Prefix = the first path component common to ALL names, iff a package root lies below it. */
static void pz_detect_prefix(pt2_zip *z)
{
    const char *first, *slash;
    size_t i, plen;

    if (z->n == 0)
        return;
    first = z->ents[0].name;
    slash = strchr(first, '/');
    if (slash == NULL || slash == first)
        return;
    plen = (size_t)(slash - first) + 1;
    if (plen >= sizeof(z->prefix))
        return;
    for (i = 0; i < z->n; i++)
        if (strncmp(z->ents[i].name, first, plen) != 0)
            return;
    for (i = 0; i < z->n; i++) {
        if (pz_is_root_marker(z->ents[i].name + plen)) {
            memcpy(z->prefix, first, plen);
            z->prefix[plen] = '\0';
            z->prefix_len = plen;
            return;
        }
    }
}

static int pz_collect_models(pt2_zip *z, struct pt2_error *err)
{
    static const char dir[] = "data/aotinductor/";
    size_t i, k, len;

    for (i = 0; i < z->n; i++) {
        const char *rel = z->ents[i].name + z->prefix_len, *m, *slash;

        if (strncmp(rel, dir, sizeof(dir) - 1) != 0)
            continue;
        m = rel + sizeof(dir) - 1;
        slash = strchr(m, '/');
        if (slash == NULL || slash == m)
            continue; /* a file directly in data/aotinductor/ is not a model folder */
        len = (size_t)(slash - m);
        if (len >= PT2_NAME_MAX)
            return pt2_error_set(err, PT2_ERR_TOO_LARGE,
                                 "%s: model folder name is %zu bytes (cap %d)", rel, len,
                                 PT2_NAME_MAX - 1);
        for (k = 0; k < z->nmodels; k++)
            if (strncmp(z->models[k], m, len) == 0 && z->models[k][len] == '\0')
                break;
        if (k < z->nmodels)
            continue;
        if (z->nmodels == PT2_ZIP_MODELS_MAX)
            return pt2_error_set(err, PT2_ERR_TOO_LARGE,
                                 "more than %u model folders under data/aotinductor/",
                                 PT2_ZIP_MODELS_MAX);
        if (z->nmodels == z->models_cap) {
            size_t cap = z->models_cap ? z->models_cap * 2 : 4;
            char(*nm)[PT2_NAME_MAX] = realloc(z->models, cap * sizeof(*nm));

            if (nm == NULL)
                return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory listing models");
            z->models = nm;
            z->models_cap = cap;
        }
        memcpy(z->models[z->nmodels], m, len);
        z->models[z->nmodels][len] = '\0';
        z->nmodels++;
    }
    return PT2_OK;
}

/*
 * Sizes libzip 1.7.3 trusts without checking: a stored entry whose directory
 * record says 0 compressed bytes but a non-zero size makes zip_fseek crash
 * (it reads through an empty buffer source), and a stored entry is its data,
 * so the two sizes must agree. Data cannot inflate out of nothing either.
 * Encrypted entries are exempt (their stored size includes the 12-byte
 * header); they fail with "entry is encrypted" when opened.
 */
static int pz_check_sizes(const zip_stat_t *st, struct pt2_error *err)
{
    if ((st->valid & ZIP_STAT_ENCRYPTION_METHOD) && st->encryption_method != ZIP_EM_NONE)
        return PT2_OK;
    if (st->comp_method == ZIP_CM_STORE && st->comp_size != st->size)
        return pt2_error_set(err, PT2_ERR_TRUNCATED,
                             "truncated or corrupt zip: %s: stored entry has %llu compressed "
                             "bytes for %llu bytes of data",
                             st->name, (unsigned long long)st->comp_size,
                             (unsigned long long)st->size);
    if (st->comp_method != ZIP_CM_STORE && st->comp_size == 0 && st->size > 0)
        return pt2_error_set(err, PT2_ERR_TRUNCATED,
                             "truncated or corrupt zip: %s: compressed entry has no data for "
                             "%llu bytes",
                             st->name, (unsigned long long)st->size);
    return PT2_OK;
}

static int pz_load_entries(pt2_zip *z, struct pt2_error *err)
{
    zip_int64_t n = zip_get_num_entries(z->za, 0);
    size_t i;
    int rc;

    if (n < 0)
        return pt2_error_set(err, PT2_ERR_INTERNAL, "cannot count archive entries");
    if ((uint64_t)n > PT2_ZIP_ENTRIES_MAX)
        return pt2_error_set(err, PT2_ERR_TOO_LARGE, "archive lists %lld entries (cap %u)",
                             (long long)n, PT2_ZIP_ENTRIES_MAX);
    z->n = (size_t)n;
    if (z->n == 0)
        return PT2_OK;
    z->ents = calloc(z->n, sizeof(*z->ents));
    if (z->ents == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory listing %zu entries", z->n);
    for (i = 0; i < z->n; i++) {
        zip_stat_t st;
        size_t len;

        zip_stat_init(&st);
        if (zip_stat_index(z->za, i, 0, &st) < 0 || !(st.valid & ZIP_STAT_NAME) ||
            !(st.valid & ZIP_STAT_SIZE) || !(st.valid & ZIP_STAT_COMP_SIZE) ||
            !(st.valid & ZIP_STAT_COMP_METHOD))
            return pt2_error_set(err, PT2_ERR_TRUNCATED, "truncated or corrupt zip: entry %zu: %s",
                                 i, zip_error_strerror(zip_get_error(z->za)));
        len = strlen(st.name);
        if (len > PT2_ZIP_NAME_LEN_MAX)
            return pt2_error_set(err, PT2_ERR_TOO_LARGE, "entry %zu: name is %zu bytes (cap %u)", i,
                                 len, PT2_ZIP_NAME_LEN_MAX);
        rc = pz_check_sizes(&st, err);
        if (rc != PT2_OK)
            return rc;
        z->ents[i].name = st.name;
        z->ents[i].size = st.size;
        z->ents[i].method = st.comp_method;
    }
    pz_detect_prefix(z);
    return pz_collect_models(z, err);
}

/* ---- open / free ------------------------------------------------------- */

static int pz_open_common(pt2_zip *z, struct pt2_error *err)
{
    char ebuf[128];
    struct stat st;
    zip_error_t ze;
    zip_source_t *src;
    int rc, flags;

    if (fstat(z->fd, &st) != 0)
        return pt2_error_set(err, PT2_ERR_IO, "cannot stat the archive: %s",
                             pz_strerror(errno, ebuf, sizeof(ebuf)));
    if (!S_ISREG(st.st_mode))
        return pt2_error_set(err, PT2_ERR_IO, "not a regular file");
    z->size = (uint64_t)st.st_size;
    /* libzip would open an empty file as an empty archive. */
    if (z->size == 0)
        return pt2_error_set(err, PT2_ERR_NOT_ZIP,
                             "not a zip archive (no end-of-central-directory record)");
    rc = pz_scan_tail(z, err);
    if (rc != PT2_OK)
        return rc;

    zip_error_init(&ze);
    src = zip_source_function_create(pz_src_cb, z, &ze);
    if (src == NULL) {
        zip_error_fini(&ze);
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory creating the zip source");
    }
    z->io_errno = 0;
    /* A directory we could not buffer is left to libzip's full check, reads and all. */
    flags = ZIP_RDONLY;
    if (!z->cd_known || pz_tail_at(z, z->cd_offset, (size_t)z->cd_size) == NULL)
        flags |= ZIP_CHECKCONS;
    z->za = zip_open_from_source(src, flags, &ze);
    if (z->za == NULL) {
        /* On failure the source is still ours. */
        rc = pz_open_error(z, &ze, err);
        zip_source_free(src);
        zip_error_fini(&ze);
        return rc;
    }
    zip_error_fini(&ze);
    rc = pz_check_offsets(z, err);
    free(z->tail);
    z->tail = NULL;
    z->tail_len = 0;
    if (rc != PT2_OK)
        return rc;
    return pz_load_entries(z, err);
}

static pt2_zip *pz_alloc(int fd, int owns_fd)
{
    pt2_zip *z = calloc(1, sizeof(*z));

    if (z == NULL)
        return NULL;
    z->fd = fd;
    z->owns_fd = owns_fd;
    zip_error_init(&z->src_error);
    return z;
}

int pt2_zip_open_fd(pt2_zip **out, int fd, struct pt2_error *err)
{
    pt2_zip *z;
    int rc;

    *out = NULL;
    if (fd < 0)
        return pt2_error_set(err, PT2_ERR_INVALID, "invalid file descriptor %d", fd);
    z = pz_alloc(fd, 0);
    if (z == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory opening the archive");
    rc = pz_open_common(z, err);
    if (rc != PT2_OK) {
        pt2_zip_free(z);
        return rc;
    }
    *out = z;
    return PT2_OK;
}

int pt2_zip_open_path(pt2_zip **out, const char *path, struct pt2_error *err)
{
    char ebuf[128];
    pt2_zip *z = NULL;
    int fd, rc;

    *out = NULL;
    if (path == NULL || path[0] == '\0')
        return pt2_error_set(err, PT2_ERR_INVALID, "empty archive path");
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return pt2_error_set(err, PT2_ERR_IO, "cannot open %s: %s", path,
                             pz_strerror(errno, ebuf, sizeof(ebuf)));
    z = pz_alloc(fd, 1);
    if (z == NULL) {
        close(fd);
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory opening %s", path);
    }
    rc = pz_open_common(z, err);
    if (rc != PT2_OK) {
        pt2_zip_free(z);
        return rc;
    }
    *out = z;
    return PT2_OK;
}

void pt2_zip_free(pt2_zip *z)
{
    if (z == NULL)
        return;
    if (z->za != NULL)
        zip_discard(z->za);
    if (z->owns_fd && z->fd >= 0)
        close(z->fd);
    zip_error_fini(&z->src_error);
    free(z->tail);
    free(z->ents);
    free(z->models);
    free(z);
}

/* ---- accessors --------------------------------------------------------- */

size_t pt2_zip_count(const pt2_zip *z)
{
    return z->n;
}

const char *pt2_zip_name(const pt2_zip *z, size_t i)
{
    return i < z->n ? z->ents[i].name : NULL;
}

const char *pt2_zip_relname(const pt2_zip *z, size_t i)
{
    return i < z->n ? z->ents[i].name + z->prefix_len : NULL;
}

const char *pt2_zip_prefix(const pt2_zip *z)
{
    return z->prefix;
}

uint64_t pt2_zip_entry_size(const pt2_zip *z, size_t i)
{
    return i < z->n ? z->ents[i].size : 0;
}

int pt2_zip_entry_stored(const pt2_zip *z, size_t i)
{
    return i < z->n && z->ents[i].method == ZIP_CM_STORE;
}

unsigned pt2_zip_entry_method(const pt2_zip *z, size_t i)
{
    return i < z->n ? z->ents[i].method : 0;
}

int pt2_zip_find(const pt2_zip *z, const char *relname, size_t *idx)
{
    size_t i;

    for (i = 0; i < z->n; i++) {
        if (strcmp(z->ents[i].name + z->prefix_len, relname) == 0) {
            *idx = i;
            return PT2_OK;
        }
    }
    return PT2_ERR_NOT_FOUND;
}

size_t pt2_zip_model_count(const pt2_zip *z)
{
    return z->nmodels;
}

const char *pt2_zip_model(const pt2_zip *z, size_t i)
{
    return i < z->nmodels ? z->models[i] : NULL;
}

uint64_t pt2_zip_bytes_read(const pt2_zip *z)
{
    return z->bytes_read;
}

uint64_t pt2_zip_read_calls(const pt2_zip *z)
{
    return z->read_calls;
}

uint64_t pt2_zip_file_size(const pt2_zip *z)
{
    return z->size;
}

/* ---- entry reads ------------------------------------------------------- */

static int pz_index_error(const pt2_zip *z, size_t i, struct pt2_error *err)
{
    return pt2_error_set(err, PT2_ERR_INVALID, "entry index %zu out of range (%zu entries)", i,
                         z->n);
}

/* Map a libzip failure on entry i (`what` = "open", "read", "seek in"). */
static int pz_entry_error(pt2_zip *z, size_t i, zip_error_t *ze, const char *what,
                          struct pt2_error *err)
{
    const char *rel = z->ents[i].name + z->prefix_len;
    char ebuf[128];

    if (z->io_errno != 0)
        return pt2_error_set(err, PT2_ERR_IO, "%s: read error: %s", rel,
                             pz_strerror(z->io_errno, ebuf, sizeof(ebuf)));
    switch (zip_error_code_zip(ze)) {
    case ZIP_ER_MEMORY:
        return pt2_error_set(err, PT2_ERR_NOMEM, "%s: out of memory", rel);
    case ZIP_ER_CRC:
        return pt2_error_set(err, PT2_ERR_ENTRY, "%s: CRC mismatch", rel);
    case ZIP_ER_ZLIB:
    case ZIP_ER_COMPRESSED_DATA:
        return pt2_error_set(err, PT2_ERR_ENTRY, "%s: corrupt compressed data (%s)", rel,
                             zip_error_strerror(ze));
    case ZIP_ER_NOPASSWD:
    case ZIP_ER_WRONGPASSWD:
    case ZIP_ER_ENCRNOTSUPP:
        return pt2_error_set(err, PT2_ERR_ENTRY, "%s: entry is encrypted", rel);
    case ZIP_ER_COMPNOTSUPP:
        return pt2_error_set(err, PT2_ERR_ENTRY, "%s: compression method %u is not supported", rel,
                             (unsigned)z->ents[i].method);
    default:
        return pt2_error_set(err, PT2_ERR_ENTRY, "%s: cannot %s entry: %s", rel, what,
                             zip_error_strerror(ze));
    }
}

static zip_file_t *pz_fopen_entry(pt2_zip *z, size_t i, struct pt2_error *err, int *rc)
{
    zip_file_t *zf;

    z->io_errno = 0;
    zf = zip_fopen_index(z->za, i, 0);
    if (zf == NULL) {
        *rc = pz_entry_error(z, i, zip_get_error(z->za), "open", err);
        zip_error_clear(z->za);
    }
    return zf;
}

int pt2_zip_read_small(pt2_zip *z, size_t i, size_t cap, char **out, size_t *len,
                       struct pt2_error *err)
{
    zip_file_t *zf = NULL;
    char *buf = NULL, extra;
    uint64_t size, have = 0;
    zip_int64_t n;
    int rc = PT2_OK;

    *out = NULL;
    if (len != NULL)
        *len = 0;
    if (i >= z->n)
        return pz_index_error(z, i, err);
    size = z->ents[i].size;
    if (size > cap || size >= SIZE_MAX)
        return pt2_error_set(err, PT2_ERR_TOO_LARGE, "%s: entry is %llu bytes (cap %zu)",
                             z->ents[i].name + z->prefix_len, (unsigned long long)size, cap);
    buf = malloc((size_t)size + 1);
    if (buf == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "%s: out of memory",
                             z->ents[i].name + z->prefix_len);
    zf = pz_fopen_entry(z, i, err, &rc);
    if (zf == NULL)
        goto cleanup;
    while (have < size) {
        n = zip_fread(zf, buf + have, size - have);
        if (n < 0) {
            rc = pz_entry_error(z, i, zip_file_get_error(zf), "read", err);
            goto cleanup;
        }
        if (n == 0) {
            rc = pt2_error_set(err, PT2_ERR_ENTRY, "%s: entry ends after %llu of %llu bytes",
                               z->ents[i].name + z->prefix_len, (unsigned long long)have,
                               (unsigned long long)size);
            goto cleanup;
        }
        have += (uint64_t)n;
    }
    /* Reading on to the end makes libzip check the CRC. */
    n = zip_fread(zf, &extra, 1);
    if (n < 0) {
        rc = pz_entry_error(z, i, zip_file_get_error(zf), "read", err);
        goto cleanup;
    }
    if (n > 0) {
        rc =
            pt2_error_set(err, PT2_ERR_ENTRY, "%s: entry is longer than its central directory size",
                          z->ents[i].name + z->prefix_len);
        goto cleanup;
    }
    buf[size] = '\0';
    *out = buf;
    buf = NULL;
    if (len != NULL)
        *len = (size_t)size;
cleanup:
    if (zf != NULL)
        zip_fclose(zf);
    free(buf);
    return rc;
}

/* Reopen a compressed entry at offset 0 (inflate cannot go backwards). */
static int pz_entry_rewind(pt2_zip_entry *e, struct pt2_error *err)
{
    int rc = PT2_OK;

    zip_fclose(e->zf);
    e->zf = pz_fopen_entry(e->z, e->idx, err, &rc);
    e->pos = 0;
    return rc;
}

static int pz_entry_rd_fn(void *ctx, uint64_t off, void *buf, size_t len, size_t *got,
                          struct pt2_error *err)
{
    pt2_zip_entry *e = ctx;
    pt2_zip *z = e->z;
    uint8_t scratch[PZ_SCRATCH_LEN];
    zip_int64_t n;
    int rc;

    *got = 0;
    z->io_errno = 0;
    if (e->zf == NULL)
        return pt2_error_set(err, PT2_ERR_ENTRY, "%s: entry reader failed earlier", e->rd.name);
    if (e->stored) {
        if (zip_fseek(e->zf, (zip_int64_t)off, SEEK_SET) < 0)
            return pz_entry_error(z, e->idx, zip_file_get_error(e->zf), "seek in", err);
    } else {
        if (off < e->pos) {
            rc = pz_entry_rewind(e, err);
            if (rc != PT2_OK)
                return rc;
        }
        if (off - e->pos > PT2_ZIP_SKIP_MAX)
            return pt2_error_set(err, PT2_ERR_TOO_LARGE,
                                 "%s: skipping %llu bytes of a compressed entry (cap %u MiB)",
                                 e->rd.name, (unsigned long long)(off - e->pos),
                                 PT2_ZIP_SKIP_MAX >> 20);
        if (e->dropped + (off - e->pos) > PT2_ZIP_INFLATE_MAX)
            return pt2_error_set(err, PT2_ERR_TOO_LARGE,
                                 "%s: more than %u MiB inflated only to seek in a compressed "
                                 "entry",
                                 e->rd.name, PT2_ZIP_INFLATE_MAX >> 20);
        /* Many entries each under the cap above still add up (100 x 60 MiB = 15 s). */
        if (z->dropped + (off - e->pos) > PT2_ZIP_INFLATE_TOTAL_MAX)
            return pt2_error_set(err, PT2_ERR_TOO_LARGE,
                                 "%s: more than %u MiB inflated only to seek in the compressed "
                                 "entries of this archive",
                                 e->rd.name, PT2_ZIP_INFLATE_TOTAL_MAX >> 20);
        while (e->pos < off) {
            uint64_t want = off - e->pos;

            n = zip_fread(e->zf, scratch, want < sizeof(scratch) ? want : sizeof(scratch));
            if (n < 0)
                return pz_entry_error(z, e->idx, zip_file_get_error(e->zf), "read", err);
            if (n == 0)
                return pt2_error_set(err, PT2_ERR_ENTRY, "%s: entry ends at %llu", e->rd.name,
                                     (unsigned long long)e->pos);
            e->pos += (uint64_t)n;
            e->dropped += (uint64_t)n;
            z->dropped += (uint64_t)n;
        }
    }
    n = zip_fread(e->zf, buf, len);
    if (n < 0)
        return pz_entry_error(z, e->idx, zip_file_get_error(e->zf), "read", err);
    if (!e->stored)
        e->pos += (uint64_t)n;
    *got = (size_t)n;
    return PT2_OK;
}

int pt2_zip_entry_open(pt2_zip *z, size_t i, pt2_zip_entry **out, struct pt2_error *err)
{
    pt2_zip_entry *e;
    int rc = PT2_OK;

    *out = NULL;
    if (i >= z->n)
        return pz_index_error(z, i, err);
    e = calloc(1, sizeof(*e));
    if (e == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "%s: out of memory",
                             z->ents[i].name + z->prefix_len);
    e->z = z;
    e->idx = i;
    e->stored = z->ents[i].method == ZIP_CM_STORE;
    e->zf = pz_fopen_entry(z, i, err, &rc);
    if (e->zf == NULL) {
        free(e);
        return rc;
    }
    pt2_rd_init_fn(&e->rd, pz_entry_rd_fn, e, z->ents[i].size, z->ents[i].name + z->prefix_len);
    *out = e;
    return PT2_OK;
}

struct pt2_rd *pt2_zip_entry_rd(pt2_zip_entry *e)
{
    return &e->rd;
}

void pt2_zip_entry_free(pt2_zip_entry *e)
{
    if (e == NULL)
        return;
    if (e->zf != NULL)
        zip_fclose(e->zf);
    free(e);
}

int pt2_zip_read_tail(pt2_zip *z, size_t i, size_t max, char **out, size_t *len,
                      struct pt2_error *err)
{
    pt2_zip_entry *e = NULL;
    char *buf = NULL;
    uint64_t size;
    size_t n;
    int rc;

    *out = NULL;
    if (len != NULL)
        *len = 0;
    if (i >= z->n)
        return pz_index_error(z, i, err);
    size = z->ents[i].size;
    n = size < max ? (size_t)size : max;
    if (n == SIZE_MAX)
        return pt2_error_set(err, PT2_ERR_TOO_LARGE, "%s: tail too large",
                             z->ents[i].name + z->prefix_len);
    buf = malloc(n + 1);
    if (buf == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "%s: out of memory",
                             z->ents[i].name + z->prefix_len);
    rc = pt2_zip_entry_open(z, i, &e, err);
    if (rc != PT2_OK)
        goto cleanup;
    rc = pt2_rd_read(&e->rd, size - n, buf, n, err);
    if (rc != PT2_OK)
        goto cleanup;
    buf[n] = '\0';
    *out = buf;
    buf = NULL;
    if (len != NULL)
        *len = n;
cleanup:
    pt2_zip_entry_free(e);
    free(buf);
    return rc;
}

/* ---- layout ------------------------------------------------------------ */

/* Copy the trimmed, printable content of small entry `rel` into dst; "" when absent. */
static int pz_layout_field(pt2_zip *z, const char *rel, char *dst, size_t dstlen, int *found,
                           struct pt2_error *err)
{
    char *buf = NULL;
    size_t idx, len = 0, b, e, k;
    int rc;

    dst[0] = '\0';
    if (found != NULL)
        *found = 0;
    if (pt2_zip_find(z, rel, &idx) != PT2_OK)
        return PT2_OK;
    if (found != NULL)
        *found = 1;
    rc = pt2_zip_read_small(z, idx, PT2_ZIP_LAYOUT_FIELD_CAP, &buf, &len, err);
    if (rc != PT2_OK)
        return rc;
    for (b = 0; b < len && strchr(" \t\r\n", buf[b]) != NULL && buf[b] != '\0'; b++)
        ;
    for (e = len; e > b && buf[e - 1] != '\0' && strchr(" \t\r\n", buf[e - 1]) != NULL; e--)
        ;
    /* These strings end up in messages and JSON: keep them printable ASCII. */
    for (k = b; k < e; k++)
        if ((unsigned char)buf[k] < 0x20 || (unsigned char)buf[k] >= 0x7f)
            buf[k] = '?';
    snprintf(dst, dstlen, "%.*s", (int)(e - b), buf + b);
    free(buf);
    return PT2_OK;
}

static int pz_has_pt2_content(const pt2_zip *z)
{
    size_t i, len;

    for (i = 0; i < z->n; i++) {
        const char *rel = z->ents[i].name + z->prefix_len;

        len = strlen(rel);
        if (strncmp(rel, "data/aotinductor/", 17) == 0 ||
            strcmp(rel, "serialized_exported_program.json") == 0 ||
            (strncmp(rel, "models/", 7) == 0 && len > 12 && strcmp(rel + len - 5, ".json") == 0))
            return 1;
    }
    return 0;
}

int pt2_zip_layout(pt2_zip *z, struct pt2_zip_layout *out, struct pt2_error *err)
{
    int rc, has_format = 0;

    memset(out, 0, sizeof(*out));
    snprintf(out->prefix, sizeof(out->prefix), "%s", z->prefix);
    out->zip64 = z->zip64;
    out->generation = z->prefix_len > 0 ? 2 : 1;
    out->entries = z->n;
    out->file_size = z->size;

    rc = pz_layout_field(z, "archive_format", out->archive_format, sizeof(out->archive_format),
                         &has_format, err);
    if (rc == PT2_OK)
        rc = pz_layout_field(z, "archive_version", out->archive_version,
                             sizeof(out->archive_version), NULL, err);
    if (rc == PT2_OK)
        rc = pz_layout_field(z, ".data/version", out->data_version, sizeof(out->data_version), NULL,
                             err);
    if (rc == PT2_OK)
        rc = pz_layout_field(z, "version", out->legacy_version, sizeof(out->legacy_version), NULL,
                             err);
    if (rc == PT2_OK)
        rc = pz_layout_field(z, "byteorder", out->byteorder, sizeof(out->byteorder), NULL, err);
    if (rc != PT2_OK)
        return rc;

    if (has_format) {
        if (strcmp(out->archive_format, "pt2") != 0)
            return pt2_error_set(err, PT2_ERR_NOT_PT2, "archive_format is '%s', expected 'pt2'",
                                 out->archive_format);
        return PT2_OK;
    }
    if (!pz_has_pt2_content(z))
        return pt2_error_set(err, PT2_ERR_NOT_PT2,
                             "no archive_format entry and no data/aotinductor/ or models/ "
                             "folder");
    return PT2_OK;
}
