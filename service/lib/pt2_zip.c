/*
 * pt2_zip.c - entries of a zip over libzip (see pt2_zip.h).
 *
 * Opening: fstat, then pt2_zip_eocd_scan() reads the file tail (and, when
 * the end records are unambiguous, the central directory) through the same
 * counting pread as libzip's source, so libzip's first reads are served from
 * that copy and every byte is read once. The entry count libzip ends up with
 * is checked again after opening. No ZIP_CHECKCONS: it rereads every local
 * header (one scattered read per entry, which made a 20,000-entry package
 * cost 4 MB and 80,000 calls). Its directory-level half, the only way libzip
 * 1.7.3 notices entry offsets that point past the directory at open time, is
 * pt2_zip_eocd_check_offsets() on the buffered directory; a local header that
 * disagrees with its directory record is still caught, by libzip, when the
 * entry is opened. A directory that could not be buffered, or several end
 * records libzip could choose between, keep ZIP_CHECKCONS.
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
#include "pt2_zip_eocd.h"
#include "pt2_zip_layout.h"

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

    /* the end records; eocd.buf (file end from the central directory on) only while opening */
    struct pt2_zip_eocd eocd;

    zip_t *za;
    size_t n;
    struct pt2_zip_ent *ents;
    char prefix[PT2_NAME_MAX];
    size_t prefix_len;
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

/* ---- opening ----------------------------------------------------------- */

/* pz_pread as a pt2_rd_fn, for pt2_zip_eocd_scan(). */
static int pz_file_read(void *ctx, uint64_t off, void *buf, size_t len, size_t *got,
                        struct pt2_error *err)
{
    pt2_zip *z = ctx;
    char ebuf[128];

    if (pz_pread(z, off, buf, len, got) < 0)
        return pt2_error_set(err, PT2_ERR_IO, "read error: %s",
                             pz_strerror(z->io_errno, ebuf, sizeof(ebuf)));
    return PT2_OK;
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
    /* The .pt2 rules: the prefix folder every relname drops, the model-folder caps. */
    z->prefix_len = pt2_zip_layout_prefix_len(z);
    memcpy(z->prefix, z->ents[0].name, z->prefix_len);
    z->prefix[z->prefix_len] = '\0';
    return pt2_zip_layout_check_models(z, err);
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
    rc = pt2_zip_eocd_scan(&z->eocd, pz_file_read, z, z->size, err);
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
    if (!pt2_zip_eocd_cd_buffered(&z->eocd))
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
    rc = pt2_zip_eocd_check_offsets(&z->eocd, err);
    pt2_zip_eocd_release(&z->eocd);
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
    pt2_zip_eocd_release(&z->eocd);
    free(z->ents);
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

int pt2_zip_zip64(const pt2_zip *z)
{
    return z->eocd.zip64;
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
