/*
 * pt2_zip.c - entries of a zip, read directly or through libzip (see pt2_zip.h).
 *
 * Opening: fstat, then pt2_zip_eocd_scan() reads the file tail (and, when
 * the end records are unambiguous, the central directory) through the same
 * counting pread as libzip's source, so libzip's first reads are served from
 * that copy and every byte is read once.
 *
 * Direct reads: when that directory is buffered, its end records are plain
 * and every record is one libzip would open and list byte for byte
 * (pt2_zip_eocd_plain_record) and stored, which is how torch writes every
 * package, the entries come from our own walk and libzip is never opened:
 * it would parse the same directory a second time (a sixth of a typical
 * inspection) and read stored data through three layered sources. A stored
 * entry is then read with pt2_source_read() at its data offset, once its
 * local header has the signature and the directory's name and its data ends
 * before the directory; a whole read checks the CRC itself (pt2_crc32). An
 * entry whose local header is anything else, and any archive that is not
 * plain or has a compressed entry, is left to libzip (opened then, for that
 * entry only, or at open), so every error and edge case stays libzip's:
 * test_zip compares both readers on every fixture, seed and corrupted copy.
 *
 * Through libzip: the entry count libzip ends up with is checked again after
 * opening. No ZIP_CHECKCONS: it rereads every local header (one scattered
 * read per entry, which made a 20,000-entry package cost 4 MB and 80,000
 * calls). Its directory-level half, the only way libzip 1.7.3 notices entry
 * offsets that point past the directory at open time, is
 * pt2_zip_eocd_check_extents() on the buffered directory (both paths); a
 * local header that disagrees with its directory record is still caught, by
 * libzip, when the entry is opened. A directory that could not be buffered,
 * or several end records libzip could choose between, keep ZIP_CHECKCONS.
 *
 * Entries: names come from libzip (borrowed until zip_discard) or our copy;
 * sizes and methods are copied at open so the accessors never fail. Stored
 * entries are read with zip_fseek + zip_fread (libzip seeks its window
 * source, so only the requested bytes are read); compressed ones can only
 * be inflated forward. Sizes libzip would trust blindly are checked at open
 * (pz_check_sizes).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zip.h>

#include "pt2_budget.h"
#include "pt2_crc32.h"
#include "pt2_zip.h"
#include "pt2_zip_eocd.h"
#include "pt2_zip_layout.h"

#define PZ_PREAD_CHUNK (1u << 30)
#define PZ_SCRATCH_LEN 16384u
/* A .json entry read under an inspection's JSON budget is checked every this many bytes. */
#define PZ_JSON_STEP (1024u * 1024u)
#define PZ_LOCAL_LEN 30u /* a local header before its name and extra field */
#define PZ_SIG_LOCAL 0x04034b50u

struct pt2_zip_ent {
    const char *name; /* owned by libzip, or by z->names when read directly */
    uint64_t size;    /* uncompressed */
    uint64_t csize;   /* compressed */
    uint64_t offset;  /* of the local header; UINT64_MAX when the directory was not buffered */
    uint64_t data;    /* direct reads: where the data starts, once its local header checked out */
    uint32_t crc;     /* direct reads: from the directory */
    uint16_t method;  /* ZIP_CM_* */
};

struct pt2_zip {
    pt2_source *src;
    int owns_src;
    int fd; /* opened by path: ours to close; else -1 */
    uint64_t size;

    /* libzip source state */
    uint64_t pos;
    zip_error_t src_error;
    struct pt2_error io_err; /* the source's last failure in the current operation */
    uint64_t dropped;        /* bytes inflated only to seek, all entries together */

    /* the end records; eocd.buf (file end from the central directory on) only while opening */
    struct pt2_zip_eocd eocd;

    zip_t *za;     /* NULL while reads are direct and nothing needed libzip yet */
    int direct;    /* entries from our own walk of the directory (pz_walk_direct) */
    char *names;   /* direct: all entry names, NUL-separated */
    unsigned opts; /* PT2_ZIP_OPEN_* */
    size_t n;
    struct pt2_zip_ent *ents;
    char prefix[PT2_NAME_MAX];
    size_t prefix_len;
};

struct pt2_zip_entry {
    pt2_zip *z;
    size_t idx;
    zip_file_t *zf; /* NULL for a direct entry */
    int direct;     /* stored data read with pt2_source_read at z->ents[idx].data */
    int stored;
    uint64_t pos;     /* compressed entries: uncompressed offset zf is at */
    uint64_t dropped; /* compressed entries: bytes inflated only to skip */
    struct pt2_rd rd;
};

/* ---- file access ------------------------------------------------------- */

/* Read through the byte source: *got < len only at the end. -1 keeps the reason in io_err. */
static int pz_pread(pt2_zip *z, uint64_t off, void *buf, size_t len, size_t *got)
{
    if (pt2_source_read(z->src, off, buf, len, got, &z->io_err) != PT2_OK)
        return -1;
    return 0;
}

/* The libzip source: pread at a tracked position; what pt2_zip_eocd buffered comes from memory. */
static zip_int64_t pz_src_cb(void *ud, void *data, zip_uint64_t len, zip_source_cmd_t cmd)
{
    pt2_zip *z = ud;

    switch (cmd) {
    case ZIP_SOURCE_OPEN:
        z->pos = 0;
        return 0;
    case ZIP_SOURCE_READ: {
        const uint8_t *mem;
        size_t want, got = 0;

        if (z->pos >= z->size || len == 0)
            return 0;
        want = len > z->size - z->pos ? (size_t)(z->size - z->pos) : (size_t)len;
        if ((mem = pt2_zip_eocd_bytes(&z->eocd, z->pos, want)) != NULL) {
            memcpy(data, mem, want);
            got = want;
        } else if (pz_pread(z, z->pos, data, want, &got) < 0) {
            zip_error_set(&z->src_error, ZIP_ER_READ, EIO);
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

/* ---- opening ----------------------------------------------------------- */

/* pz_pread as a pt2_rd_fn, for pt2_zip_eocd_scan(). */
static int pz_file_read(void *ctx, uint64_t off, void *buf, size_t len, size_t *got,
                        struct pt2_error *err)
{
    pt2_zip *z = ctx;

    if (pz_pread(z, off, buf, len, got) < 0)
        return pt2_error_copy(err, &z->io_err);
    return PT2_OK;
}

static int pz_open_error(pt2_zip *z, zip_error_t *ze, struct pt2_error *err)
{
    int code = zip_error_code_zip(ze);

    /* The source's own reason (a read error, a remote object that changed) comes first. */
    if (z->io_err.code != PT2_OK)
        return pt2_error_copy(err, &z->io_err);
    switch (code) {
    case ZIP_ER_MEMORY:
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory opening the archive");
    case ZIP_ER_NOZIP:
        /* An end record is there, so libzip rejected the directory it describes: entry
         * offsets or counts that do not fit. */
        if (z->eocd.have_eocd)
            return pt2_error_set(err, PT2_ERR_TRUNCATED,
                                 "truncated or corrupt zip: central directory records do not "
                                 "match the file (bad offsets or counts)");
        if (pt2_zip_eocd_starts_with_local_header(&z->eocd))
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

/*
 * Sizes libzip 1.7.3 trusts without checking: a stored entry whose directory
 * record says 0 compressed bytes but a non-zero size makes zip_fseek crash
 * (it reads through an empty buffer source), and a stored entry is its data,
 * so the two sizes must agree. Data cannot inflate out of nothing either.
 * Encrypted entries are exempt (their stored size includes the 12-byte
 * header); they fail with "entry is encrypted" when opened.
 */
static int pz_check_sizes(const struct pt2_zip_ent *e, struct pt2_error *err)
{
    if (e->method == ZIP_CM_STORE && e->csize != e->size)
        return pt2_error_set(err, PT2_ERR_TRUNCATED,
                             "truncated or corrupt zip: %s: stored entry has %llu compressed "
                             "bytes for %llu bytes of data",
                             e->name, (unsigned long long)e->csize, (unsigned long long)e->size);
    if (e->method != ZIP_CM_STORE && e->csize == 0 && e->size > 0)
        return pt2_error_set(err, PT2_ERR_TRUNCATED,
                             "truncated or corrupt zip: %s: compressed entry has no data for "
                             "%llu bytes",
                             e->name, (unsigned long long)e->size);
    return PT2_OK;
}

static int pz_check_name(size_t i, size_t len, struct pt2_error *err)
{
    if (len > PT2_ZIP_NAME_LEN_MAX)
        return pt2_error_set(err, PT2_ERR_TOO_LARGE, "entry %zu: name is %zu bytes (cap %u)", i,
                             len, PT2_ZIP_NAME_LEN_MAX);
    return PT2_OK;
}

/* The .pt2 rules once the entries are known: the prefix every relname drops, model caps. */
static int pz_apply_layout(pt2_zip *z, struct pt2_error *err)
{
    if (z->n == 0)
        return PT2_OK;
    z->prefix_len = pt2_zip_layout_prefix_len(z);
    memcpy(z->prefix, z->ents[0].name, z->prefix_len);
    z->prefix[z->prefix_len] = '\0';
    return pt2_zip_layout_check_models(z, err);
}

static int pz_load_entries(pt2_zip *z, struct pt2_error *err)
{
    zip_int64_t n = zip_get_num_entries(z->za, 0);
    uint64_t *offs;
    size_t i;
    int rc;

    if (n < 0)
        return pt2_error_set(err, PT2_ERR_INTERNAL, "cannot count archive entries");
    if ((uint64_t)n > PT2_ZIP_EOCD_ENTRIES_MAX)
        return pt2_error_set(err, PT2_ERR_TOO_LARGE, "archive lists %lld entries (cap %u)",
                             (long long)n, PT2_ZIP_EOCD_ENTRIES_MAX);
    z->n = (size_t)n;
    if (z->n == 0)
        return PT2_OK;
    z->ents = calloc(z->n, sizeof(*z->ents));
    if (z->ents == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory listing %zu entries", z->n);
    for (i = 0; i < z->n; i++) {
        zip_stat_t st;

        zip_stat_init(&st);
        if (zip_stat_index(z->za, i, 0, &st) < 0 || !(st.valid & ZIP_STAT_NAME) ||
            !(st.valid & ZIP_STAT_SIZE) || !(st.valid & ZIP_STAT_COMP_SIZE) ||
            !(st.valid & ZIP_STAT_COMP_METHOD))
            return pt2_error_set(err, PT2_ERR_TRUNCATED, "truncated or corrupt zip: entry %zu: %s",
                                 i, zip_error_strerror(zip_get_error(z->za)));
        rc = pz_check_name(i, strlen(st.name), err);
        if (rc != PT2_OK)
            return rc;
        z->ents[i].name = st.name;
        z->ents[i].size = st.size;
        z->ents[i].csize = st.comp_size;
        z->ents[i].method = st.comp_method;
        z->ents[i].offset = UINT64_MAX;
        /* Encrypted entries are exempt: they fail with "entry is encrypted" when opened. */
        if (!(st.valid & ZIP_STAT_ENCRYPTION_METHOD) || st.encryption_method == ZIP_EM_NONE) {
            rc = pz_check_sizes(&z->ents[i], err);
            if (rc != PT2_OK)
                return rc;
        }
    }
    /* Where each entry lies, for planning reads (pt2_zip_prefetch); unknown is fine. */
    offs = malloc(z->n * sizeof(*offs));
    if (offs != NULL) {
        size_t got = pt2_zip_eocd_local_offsets(&z->eocd, offs, z->n);

        for (i = 0; i < got; i++)
            z->ents[i].offset = offs[i];
        free(offs);
    }
    return pz_apply_layout(z, err);
}

/*
 * The entries from our own walk of the buffered directory, without libzip:
 * only when every record is plain (pt2_zip_eocd_plain_record) and stored, so
 * that libzip would have opened the archive and listed the same entries. 1
 * when loaded; 0 when libzip must open it (nothing kept); -1 out of memory.
 */
static int pz_walk_direct(pt2_zip *z, struct pt2_error *err)
{
    const struct pt2_zip_eocd *e = &z->eocd;
    struct pt2_zip_eocd_rec rec;
    uint64_t pos = 0;
    size_t i, at = 0;

    if (!e->plain || !pt2_zip_eocd_cd_buffered(e) || e->entries > PT2_ZIP_EOCD_ENTRIES_MAX)
        return 0;
    z->n = (size_t)e->entries;
    /* names and their NULs fit in the directory's own bytes (46 per record at least) */
    z->names = malloc((size_t)e->cd_size + 1);
    z->ents = calloc(z->n > 0 ? z->n : 1, sizeof(*z->ents));
    if (z->names == NULL || z->ents == NULL) {
        pt2_error_set(err, PT2_ERR_NOMEM, "out of memory listing %zu entries", z->n);
        return -1;
    }
    for (i = 0; i < z->n; i++) {
        if (!pt2_zip_eocd_plain_record(e, &pos, &rec) || rec.method != ZIP_CM_STORE)
            break;
        memcpy(z->names + at, rec.name, rec.name_len);
        z->names[at + rec.name_len] = '\0';
        z->ents[i] = (struct pt2_zip_ent){z->names + at, rec.size,    rec.csize, rec.offset, 0,
                                          rec.crc,       ZIP_CM_STORE};
        at += rec.name_len + 1;
    }
    if (i == z->n && pos == e->cd_size)
        return 1;
    free(z->names);
    free(z->ents);
    z->names = NULL;
    z->ents = NULL;
    z->n = 0;
    return 0;
}

/* What pz_load_entries checks of libzip's listing, on the direct one. */
static int pz_check_direct(pt2_zip *z, struct pt2_error *err)
{
    int rc = PT2_OK;

    for (size_t i = 0; i < z->n && rc == PT2_OK; i++) {
        rc = pz_check_name(i, strlen(z->ents[i].name), err);
        if (rc == PT2_OK)
            rc = pz_check_sizes(&z->ents[i], err);
    }
    return rc == PT2_OK ? pz_apply_layout(z, err) : rc;
}

/* libzip over our source; `flags` as zip_open_from_source takes them. */
static int pz_open_libzip(pt2_zip *z, int flags, struct pt2_error *err)
{
    zip_error_t ze;
    zip_source_t *src;
    int rc = PT2_OK;

    zip_error_init(&ze);
    src = zip_source_function_create(pz_src_cb, z, &ze);
    if (src == NULL) {
        zip_error_fini(&ze);
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory creating the zip source");
    }
    pt2_error_clear(&z->io_err);
    z->za = zip_open_from_source(src, flags, &ze);
    if (z->za == NULL) {
        /* On failure the source is still ours. */
        rc = pz_open_error(z, &ze, err);
        zip_source_free(src);
    }
    zip_error_fini(&ze);
    return rc;
}

/*
 * libzip for a direct archive, opened the first time an entry needs it (a
 * local header our reads do not take on). It lists what our walk did.
 */
static int pz_need_libzip(pt2_zip *z, struct pt2_error *err)
{
    if (z->za != NULL)
        return PT2_OK;
    return pz_open_libzip(z, ZIP_RDONLY, err);
}

/* ---- open / free ------------------------------------------------------- */

static int pz_open_common(pt2_zip *z, struct pt2_error *err)
{
    int rc, flags;

    z->size = pt2_source_size(z->src);
    /* libzip would open an empty file as an empty archive. */
    if (z->size == 0)
        return pt2_error_set(err, PT2_ERR_NOT_ZIP,
                             "not a zip archive (no end-of-central-directory record)");
    rc = pt2_zip_eocd_scan(&z->eocd, pz_file_read, z, z->size, err);
    if (rc != PT2_OK)
        return rc;

    if (!(z->opts & PT2_ZIP_OPEN_LIBZIP)) {
        z->direct = pz_walk_direct(z, err);
        if (z->direct < 0)
            return err->code;
    }
    if (!z->direct) {
        /* A directory we could not buffer is left to libzip's full check, reads and all. */
        flags = ZIP_RDONLY;
        if (!pt2_zip_eocd_cd_buffered(&z->eocd))
            flags |= ZIP_CHECKCONS;
        rc = pz_open_libzip(z, flags, err);
        if (rc != PT2_OK)
            return rc;
    }
    rc = pt2_zip_eocd_check_extents(&z->eocd, err);
    if (rc == PT2_OK)
        rc = z->direct ? pz_check_direct(z, err) : pz_load_entries(z, err);
    pt2_zip_eocd_release(&z->eocd);
    return rc;
}

static pt2_zip *pz_alloc(void)
{
    pt2_zip *z = calloc(1, sizeof(*z));

    if (z == NULL)
        return NULL;
    z->fd = -1;
    zip_error_init(&z->src_error);
    return z;
}

int pt2_zip_open_source(pt2_zip **out, pt2_source *src, struct pt2_error *err)
{
    return pt2_zip_open_source_opts(out, src, 0, err);
}

int pt2_zip_open_source_opts(pt2_zip **out, pt2_source *src, unsigned opts, struct pt2_error *err)
{
    pt2_zip *z;
    int rc;

    *out = NULL;
    z = pz_alloc();
    if (z == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory opening the archive");
    z->src = src;
    z->opts = opts;
    rc = pz_open_common(z, err);
    if (rc != PT2_OK) {
        pt2_zip_free(z);
        return rc;
    }
    *out = z;
    return PT2_OK;
}

int pt2_zip_open_fd(pt2_zip **out, int fd, struct pt2_error *err)
{
    pt2_source *src = NULL;
    int rc;

    *out = NULL;
    rc = pt2_source_new_fd(&src, fd, NULL, err);
    if (rc == PT2_OK)
        rc = pt2_zip_open_source(out, src, err);
    if (rc != PT2_OK) {
        pt2_source_free(src);
        return rc;
    }
    (*out)->owns_src = 1;
    return PT2_OK;
}

int pt2_zip_open_path(pt2_zip **out, const char *path, struct pt2_error *err)
{
    int fd, rc;

    *out = NULL;
    if (path == NULL || path[0] == '\0')
        return pt2_error_set(err, PT2_ERR_INVALID, "empty archive path");
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        char ebuf[128];
        int e = errno;
        /* the same problem the daemon answers for the same file: not-found, forbidden */
        int code = (e == ENOENT || e == ENOTDIR) ? PT2_ERR_NOT_FOUND
                   : (e == EACCES || e == EPERM) ? PT2_ERR_FORBIDDEN
                                                 : PT2_ERR_IO;

        return pt2_error_set(err, code, "cannot open %s: %s", path,
                             pt2_strerror(e, ebuf, sizeof(ebuf)));
    }
    rc = pt2_zip_open_fd(out, fd, err);
    if (rc != PT2_OK) {
        close(fd);
        return rc;
    }
    (*out)->fd = fd;
    return PT2_OK;
}

void pt2_zip_free(pt2_zip *z)
{
    if (z == NULL)
        return;
    if (z->za != NULL)
        zip_discard(z->za);
    if (z->owns_src)
        pt2_source_free(z->src);
    if (z->fd >= 0)
        close(z->fd);
    zip_error_fini(&z->src_error);
    pt2_zip_eocd_release(&z->eocd);
    free(z->ents);
    free(z->names);
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

uint64_t pt2_zip_entry_csize(const pt2_zip *z, size_t i)
{
    return i < z->n ? z->ents[i].csize : 0;
}

int pt2_zip_find(const pt2_zip *z, const char *relname, size_t *idx)
{
    size_t i;

    /* the first byte inline: a layout looks up a few names among tens of thousands */
    for (i = 0; i < z->n; i++) {
        const char *name = z->ents[i].name + z->prefix_len;

        if (name[0] == relname[0] && strcmp(name, relname) == 0) {
            *idx = i;
            return PT2_OK;
        }
    }
    return PT2_ERR_NOT_FOUND;
}

uint64_t pt2_zip_bytes_read(const pt2_zip *z)
{
    return pt2_source_bytes(z->src);
}

uint64_t pt2_zip_read_calls(const pt2_zip *z)
{
    return pt2_source_requests(z->src);
}

pt2_source *pt2_zip_source(pt2_zip *z)
{
    return z->src;
}

uint64_t pt2_zip_file_size(const pt2_zip *z)
{
    return z->size;
}

int pt2_zip_direct(const pt2_zip *z)
{
    return z->direct;
}

int pt2_zip_zip64(const pt2_zip *z)
{
    return z->eocd.zip64;
}

/* ---- local headers ----------------------------------------------------- */

/*
 * Whether entry i of a direct archive is read without libzip: its local
 * header has the signature and the directory's name, and its data ends before
 * the directory, so libzip would read exactly the bytes we do (it reads only
 * the two lengths). Then ents[i].data is set and 1 returned; otherwise 0, and
 * libzip reads the entry, with its own errors for whatever is wrong there.
 */
static int pz_direct_entry(pt2_zip *z, size_t i)
{
    struct pt2_zip_ent *e = &z->ents[i];
    uint8_t h[PZ_LOCAL_LEN + PT2_ZIP_NAME_LEN_MAX];
    struct pt2_error ignored = {0};
    size_t nlen, got = 0;
    uint64_t data;

    if (!z->direct)
        return 0;
    if (e->data != 0)
        return 1;
    nlen = strlen(e->name);
    if (nlen > PT2_ZIP_NAME_LEN_MAX ||
        pt2_source_read(z->src, e->offset, h, PZ_LOCAL_LEN + nlen, &got, &ignored) != PT2_OK ||
        got != PZ_LOCAL_LEN + nlen || pt2_le32(h) != PZ_SIG_LOCAL || pt2_le16(h + 26) != nlen ||
        memcmp(h + PZ_LOCAL_LEN, e->name, nlen) != 0)
        return 0;
    data = e->offset + PZ_LOCAL_LEN + nlen + pt2_le16(h + 28);
    if (data > z->eocd.cd_offset || e->csize > z->eocd.cd_offset - data)
        return 0;
    e->data = data;
    return 1;
}

/* ---- planning ---------------------------------------------------------- */

/*
 * A local header is 30 bytes, the name, and an extra field the directory
 * does not describe (the PyTorch writer pads it to align the data to 64
 * bytes; zip64 adds 20): assume this much for it.
 */
#define PZ_LOCAL_EXTRA_GUESS 128u

int pt2_zip_data_offset(pt2_zip *z, size_t i, uint64_t *off)
{
    struct pt2_error ignored = {0};
    uint8_t h[PZ_LOCAL_LEN];
    size_t got = 0;

    if (i < z->n && pz_direct_entry(z, i)) {
        *off = z->ents[i].data;
        return PT2_OK;
    }
    if (i >= z->n || z->ents[i].offset == UINT64_MAX || z->ents[i].method != ZIP_CM_STORE ||
        pt2_source_read(z->src, z->ents[i].offset, h, sizeof(h), &got, &ignored) != PT2_OK ||
        got != sizeof(h) || pt2_le32(h) != PZ_SIG_LOCAL)
        return PT2_ERR_NOT_FOUND;
    *off = z->ents[i].offset + sizeof(h) + pt2_le16(h + 26) + pt2_le16(h + 28);
    return PT2_OK;
}

size_t pt2_zip_file_ranges(pt2_zip *z, size_t i, const struct pt2_range *r, size_t n,
                           struct pt2_range *out)
{
    uint64_t data;
    size_t k = 0;

    if (pt2_zip_data_offset(z, i, &data) != PT2_OK)
        return 0;
    for (size_t j = 0; j < n; j++)
        if (r[j].off < z->ents[i].size && r[j].len <= z->ents[i].size - r[j].off)
            out[k++] = (struct pt2_range){data + r[j].off, r[j].len};
    return k;
}

int pt2_zip_prefetch(pt2_zip *z, const struct pt2_zip_want *w, size_t n, struct pt2_error *err)
{
    struct pt2_range *r;
    size_t k = 0;
    int rc;

    if (n == 0)
        return PT2_OK;
    r = calloc(2 * n, sizeof(*r));
    if (r == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory planning reads");
    for (size_t i = 0; i < n; i++) {
        const struct pt2_zip_ent *e;
        uint64_t data, head, tail;

        if (w[i].index >= z->n || z->ents[w[i].index].offset == UINT64_MAX)
            continue;
        e = &z->ents[w[i].index];
        data = e->offset + PZ_LOCAL_LEN + strlen(e->name);
        head = w[i].head < e->csize ? w[i].head : e->csize;
        r[k++] = (struct pt2_range){e->offset, data - e->offset + PZ_LOCAL_EXTRA_GUESS + head};
        /* A tail is only where it lies for stored data; deflate gets there by inflating. */
        tail = w[i].tail < e->csize ? w[i].tail : e->csize;
        if (tail > 0 && e->method == ZIP_CM_STORE && tail < e->csize)
            r[k++] = (struct pt2_range){data + e->csize - tail, tail + PZ_LOCAL_EXTRA_GUESS};
    }
    rc = pt2_source_prefetch(z->src, r, k, err);
    free(r);
    return rc;
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

    if (z->io_err.code != PT2_OK)
        return pt2_error_set(err, z->io_err.code, "%s: %s", rel, z->io_err.message);
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

    *rc = pz_need_libzip(z, err);
    if (*rc != PT2_OK)
        return NULL;
    pt2_error_clear(&z->io_err);
    zf = zip_fopen_index(z->za, i, 0);
    if (zf == NULL) {
        *rc = pz_entry_error(z, i, zip_get_error(z->za), "open", err);
        zip_error_clear(z->za);
    }
    return zf;
}

/* ---- direct reads ------------------------------------------------------ */

/* Up to len bytes of entry i's data from entry offset `at` (*got short only at the end). */
static int pz_direct_read(pt2_zip *z, size_t i, uint64_t at, void *buf, size_t len, size_t *got,
                          struct pt2_error *err)
{
    const struct pt2_zip_ent *e = &z->ents[i];

    *got = 0;
    if (at > e->size)
        return pt2_error_set(err, PT2_ERR_ENTRY, "%s: cannot seek in entry: Invalid argument",
                             e->name + z->prefix_len);
    if (len > e->size - at)
        len = (size_t)(e->size - at);
    pt2_error_clear(&z->io_err);
    if (pt2_source_read(z->src, e->data + at, buf, len, got, &z->io_err) != PT2_OK)
        return pt2_error_set(err, z->io_err.code, "%s: %s", e->name + z->prefix_len,
                             z->io_err.message);
    return PT2_OK;
}

/*
 * One step of a whole read: up to len bytes at entry offset `at`, from zf or,
 * when zf is NULL, directly; *got 0 at the end.
 */
static int pz_read_step(pt2_zip *z, size_t i, zip_file_t *zf, uint64_t at, char *buf, size_t len,
                        size_t *got, struct pt2_error *err)
{
    zip_int64_t n;

    if (zf == NULL)
        return pz_direct_read(z, i, at, buf, len, got, err);
    n = zip_fread(zf, buf, len);
    if (n < 0)
        return pz_entry_error(z, i, zip_file_get_error(zf), "read", err);
    *got = (size_t)n;
    return PT2_OK;
}

/*
 * The end of a whole read: libzip checks the CRC when read on past the end; we
 * compute it. Not for an empty entry: libzip reads no data for it and checks
 * nothing, so neither do we (the directory's CRC of no bytes is not looked at).
 */
static int pz_read_end(pt2_zip *z, size_t i, zip_file_t *zf, const char *buf, size_t size,
                       struct pt2_error *err)
{
    const char *rel = z->ents[i].name + z->prefix_len;
    zip_int64_t n;
    char extra;

    if (zf == NULL)
        return size == 0 || pt2_crc32(0, buf, size) == z->ents[i].crc
                   ? PT2_OK
                   : pt2_error_set(err, PT2_ERR_ENTRY, "%s: CRC mismatch", rel);
    n = zip_fread(zf, &extra, 1);
    if (n < 0)
        return pz_entry_error(z, i, zip_file_get_error(zf), "read", err);
    if (n > 0)
        return pt2_error_set(err, PT2_ERR_ENTRY,
                             "%s: entry is longer than its central directory size", rel);
    return PT2_OK;
}

static int pz_has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);

    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

int pt2_zip_read_small(pt2_zip *z, size_t i, size_t cap, char **out, size_t *len,
                       struct pt2_error *err)
{
    zip_file_t *zf = NULL;
    char *buf = NULL;
    uint64_t size, have = 0;
    size_t n;
    int rc = PT2_OK, json;
    struct pt2_json_scan js;

    *out = NULL;
    if (len != NULL)
        *len = 0;
    if (i >= z->n)
        return pz_index_error(z, i, err);
    size = z->ents[i].size;
    json = pt2_budget_current() != NULL && pz_has_suffix(z->ents[i].name, ".json");
    memset(&js, 0, sizeof(js));
    if (size > cap || size >= SIZE_MAX)
        return pt2_error_set(err, PT2_ERR_TOO_LARGE, "%s: entry is %llu bytes (cap %zu)",
                             z->ents[i].name + z->prefix_len, (unsigned long long)size, cap);
    buf = malloc((size_t)size + 1);
    if (buf == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "%s: out of memory",
                             z->ents[i].name + z->prefix_len);
    if (!pz_direct_entry(z, i) && (zf = pz_fopen_entry(z, i, err, &rc)) == NULL)
        goto cleanup;
    while (have < size) {
        uint64_t step = size - have;

        /* a JSON document is checked against the inspection's budget as it arrives */
        if (json && step > PZ_JSON_STEP)
            step = PZ_JSON_STEP;
        rc = pz_read_step(z, i, zf, have, buf + have, (size_t)step, &n, err);
        if (rc != PT2_OK)
            goto cleanup;
        if (n == 0) {
            rc = pt2_error_set(err, PT2_ERR_ENTRY, "%s: entry ends after %llu of %llu bytes",
                               z->ents[i].name + z->prefix_len, (unsigned long long)have,
                               (unsigned long long)size);
            goto cleanup;
        }
        have += (uint64_t)n;
        if (json && have < size) {
            rc = pt2_budget_check_prefix(&js, buf, (size_t)have, z->ents[i].name + z->prefix_len,
                                         err);
            if (rc != PT2_OK)
                goto cleanup;
        }
    }
    rc = pz_read_end(z, i, zf, buf, (size_t)size, err);
    if (rc != PT2_OK)
        goto cleanup;
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
    if (e->direct)
        return pz_direct_read(z, e->idx, off, buf, len, got, err);
    pt2_error_clear(&z->io_err);
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
    e->direct = pz_direct_entry(z, i);
    if (!e->direct && (e->zf = pz_fopen_entry(z, i, err, &rc)) == NULL) {
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
