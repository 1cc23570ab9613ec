/*
 * bigzip.c - see bigzip.h. A minimal PyTorchStreamWriter look-alike: only
 * stored records, written once, in order, through a 1 MiB write buffer;
 * weights may be holes (lseek), so a multi-GiB package costs no disk. The
 * tests' 5 GiB package and the benchmark's generated packages both use it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bigzip.h"

#define BZ_POLY 0xedb88320u
#define BZ_U32_MAX 0xffffffffu
#define BZ_U16_MAX 0xffffu
#define BZ_ALIGN 64u
#define BZ_NAME_MAX 160u
#define BZ_INPUT_MAX (64u * 1024u * 1024u)
#define BZ_BUF_LEN (1u << 20)

struct bz_ent {
    char name[BZ_NAME_MAX];
    uint32_t crc;
    uint64_t size;
    uint64_t offset;
};

struct bigzip_writer {
    int fd;
    uint64_t pos; /* logical file position, buffered bytes included */
    uint8_t *buf; /* write buffer; flushed before every hole */
    size_t buf_len;
    char prefix[128];
    struct bz_ent *ents;
    size_t n, cap;
    uint64_t zero_size; /* memo: the last hole size (UINT64_MAX: none yet) and its CRC */
    uint32_t zero_crc;
};

uint32_t bigzip_crc32(uint32_t crc, const void *data, uint64_t len)
{
    const uint8_t *p = data;
    int k;

    crc = ~crc;
    while (len-- > 0) {
        crc ^= *p++;
        for (k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (BZ_POLY & (0u - (crc & 1u)));
    }
    return ~crc;
}

/* a * b modulo the CRC polynomial (reflected bit order), as zlib's multmodp. */
static uint32_t bz_multmodp(uint32_t a, uint32_t b)
{
    uint32_t m = 1u << 31, p = 0;

    for (;;) {
        if (a & m) {
            p ^= b;
            if ((a & (m - 1)) == 0)
                break;
        }
        m >>= 1;
        b = b & 1 ? (b >> 1) ^ BZ_POLY : b >> 1;
    }
    return p;
}

uint32_t bigzip_crc32_zeros(uint64_t n)
{
    uint32_t x2n = 1u << 30; /* x^1; squared each step: x^2, x^4, ... */
    uint32_t p = 1u << 31;   /* x^0 */
    int k;

    /* n zero bytes multiply the CRC register by x^(8n); 8 = 2^3, so skip 3 squarings. */
    for (k = 0; k < 3; k++)
        x2n = bz_multmodp(x2n, x2n);
    while (n > 0) {
        if (n & 1)
            p = bz_multmodp(x2n, p);
        x2n = bz_multmodp(x2n, x2n);
        n >>= 1;
    }
    return ~bz_multmodp(p, BZ_U32_MAX);
}

static void bz_put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void bz_put32(uint8_t *p, uint32_t v)
{
    bz_put16(p, v & 0xffffu);
    bz_put16(p + 2, v >> 16);
}

static void bz_put64(uint8_t *p, uint64_t v)
{
    bz_put32(p, (uint32_t)v);
    bz_put32(p + 4, (uint32_t)(v >> 32));
}

static int bz_flush(struct bigzip_writer *w)
{
    size_t done = 0;

    while (done < w->buf_len) {
        ssize_t n = write(w->fd, w->buf + done, w->buf_len - done);

        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        done += (size_t)n;
    }
    w->buf_len = 0;
    return 0;
}

static int bz_write(struct bigzip_writer *w, const void *data, size_t len)
{
    const uint8_t *p = data;

    while (len > 0) {
        size_t room = BZ_BUF_LEN - w->buf_len, k = len < room ? len : room;

        memcpy(w->buf + w->buf_len, p, k);
        w->buf_len += k;
        w->pos += k;
        p += k;
        len -= k;
        if (w->buf_len == BZ_BUF_LEN && bz_flush(w) < 0)
            return -1;
    }
    return 0;
}

/* `size` zero bytes as a hole: the file system stores nothing for them. */
static int bz_hole(struct bigzip_writer *w, uint64_t size)
{
    if (bz_flush(w) < 0)
        return -1;
    if (lseek(w->fd, (off_t)size, SEEK_CUR) < 0)
        return -1;
    w->pos += size;
    return 0;
}

/* Zip64 extra field for the values that do not fit 32 bits; returns its length (0 = none). */
static size_t bz_zip64_extra(uint8_t *out, uint64_t size, uint64_t offset)
{
    size_t len = 4;

    if (size >= BZ_U32_MAX) {
        bz_put64(out + len, size);
        bz_put64(out + len + 8, size);
        len += 16;
    }
    if (offset >= BZ_U32_MAX) {
        bz_put64(out + len, offset);
        len += 8;
    }
    if (len == 4)
        return 0;
    bz_put16(out, 0x0001);
    bz_put16(out + 2, (uint32_t)(len - 4));
    return len;
}

static struct bz_ent *bz_next(struct bigzip_writer *w, const char *rel)
{
    struct bz_ent *e;

    if (w->n == w->cap) {
        errno = ENOSPC;
        return NULL;
    }
    e = &w->ents[w->n];
    if (snprintf(e->name, sizeof(e->name), "%s/%s", w->prefix, rel) >= (int)sizeof(e->name)) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    return e;
}

/* One stored record; data == NULL writes a hole of `size` zero bytes. */
int bigzip_add(struct bigzip_writer *w, const char *rel, const void *data, uint64_t size)
{
    uint8_t hdr[30 + BZ_NAME_MAX + 28 + 4 + BZ_ALIGN], dd[24];
    struct bz_ent *e = bz_next(w, rel);
    size_t nlen, xlen, h, pad;

    if (e == NULL)
        return -1;
    e->size = size;
    e->offset = w->pos;
    if (data != NULL) {
        e->crc = bigzip_crc32(0, data, size);
    } else {
        if (w->zero_size != size) {
            w->zero_crc = bigzip_crc32_zeros(size);
            w->zero_size = size;
        }
        e->crc = w->zero_crc;
    }
    nlen = strlen(e->name);
    memset(hdr, 0, sizeof(hdr));
    bz_put32(hdr, 0x04034b50u);
    bz_put16(hdr + 4, size >= BZ_U32_MAX || e->offset >= BZ_U32_MAX ? 45 : 0);
    bz_put16(hdr + 6, 0x0808); /* data descriptor + UTF-8; local CRC and sizes stay 0 */
    memcpy(hdr + 30, e->name, nlen);
    xlen = bz_zip64_extra(hdr + 30 + nlen, size, e->offset);
    h = 30 + nlen + xlen + 4;
    pad = (BZ_ALIGN - (size_t)((w->pos + h) % BZ_ALIGN)) % BZ_ALIGN;
    bz_put16(hdr + 30 + nlen + xlen, 0x4246); /* "FB" padding field */
    bz_put16(hdr + 30 + nlen + xlen + 2, (uint32_t)pad);
    memset(hdr + h, 'Z', pad);
    bz_put16(hdr + 26, (uint32_t)nlen);
    bz_put16(hdr + 28, (uint32_t)(xlen + 4 + pad));
    if (bz_write(w, hdr, h + pad) < 0)
        return -1;
    if (data == NULL ? bz_hole(w, size) < 0 : bz_write(w, data, (size_t)size) < 0)
        return -1;
    bz_put32(dd, 0x08074b50u);
    bz_put32(dd + 4, e->crc);
    if (size >= BZ_U32_MAX) {
        bz_put64(dd + 8, size);
        bz_put64(dd + 16, size);
    } else {
        bz_put32(dd + 8, (uint32_t)size);
        bz_put32(dd + 12, (uint32_t)size);
    }
    if (bz_write(w, dd, size >= BZ_U32_MAX ? 24 : 16) < 0)
        return -1;
    w->n++;
    return 0;
}

static int bz_finish(struct bigzip_writer *w)
{
    uint8_t rec[46 + BZ_NAME_MAX + 28], end[56 + 20 + 22];
    uint64_t cd_start = w->pos, cd_size;
    size_t i;

    for (i = 0; i < w->n; i++) {
        const struct bz_ent *e = &w->ents[i];
        size_t nlen = strlen(e->name), xlen;
        int big_size = e->size >= BZ_U32_MAX, big_off = e->offset >= BZ_U32_MAX;

        memset(rec, 0, sizeof(rec));
        bz_put32(rec, 0x02014b50u);
        bz_put16(rec + 6, big_size || big_off ? 45 : 0);
        bz_put16(rec + 8, 0x0808);
        bz_put32(rec + 16, e->crc);
        bz_put32(rec + 20, big_size ? BZ_U32_MAX : (uint32_t)e->size);
        bz_put32(rec + 24, big_size ? BZ_U32_MAX : (uint32_t)e->size);
        bz_put16(rec + 28, (uint32_t)nlen);
        memcpy(rec + 46, e->name, nlen);
        xlen = bz_zip64_extra(rec + 46 + nlen, e->size, e->offset);
        bz_put16(rec + 30, (uint32_t)xlen);
        bz_put32(rec + 42, big_off ? BZ_U32_MAX : (uint32_t)e->offset);
        if (bz_write(w, rec, 46 + nlen + xlen) < 0)
            return -1;
    }
    cd_size = w->pos - cd_start;
    memset(end, 0, sizeof(end));
    bz_put32(end, 0x06064b50u); /* zip64 end of central directory record */
    bz_put64(end + 4, 44);
    bz_put16(end + 12, 0x031e);
    bz_put16(end + 14, 45);
    bz_put64(end + 24, w->n);
    bz_put64(end + 32, w->n);
    bz_put64(end + 40, cd_size);
    bz_put64(end + 48, cd_start);
    bz_put32(end + 56, 0x07064b50u); /* zip64 locator */
    bz_put64(end + 56 + 8, w->pos);
    bz_put32(end + 56 + 16, 1);
    bz_put32(end + 76, 0x06054b50u); /* classic end record, saturated where zip64 holds the value */
    bz_put16(end + 76 + 8, w->n >= BZ_U16_MAX ? BZ_U16_MAX : (uint32_t)w->n);
    bz_put16(end + 76 + 10, w->n >= BZ_U16_MAX ? BZ_U16_MAX : (uint32_t)w->n);
    bz_put32(end + 76 + 12, cd_size >= BZ_U32_MAX ? BZ_U32_MAX : (uint32_t)cd_size);
    bz_put32(end + 76 + 16, cd_start >= BZ_U32_MAX ? BZ_U32_MAX : (uint32_t)cd_start);
    if (bz_write(w, end, sizeof(end)) < 0)
        return -1;
    return bz_flush(w);
}

uint8_t *bigzip_slurp(const char *path, size_t *len)
{
    struct stat st;
    uint8_t *buf = NULL;
    size_t have = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) != 0 || st.st_size < 0 || (uint64_t)st.st_size > BZ_INPUT_MAX) {
        errno = EFBIG;
        goto cleanup;
    }
    buf = malloc((size_t)st.st_size + 1);
    if (buf == NULL)
        goto cleanup;
    while (have < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + have, (size_t)st.st_size - have);

        if (n <= 0) {
            if (n < 0 && errno == EINTR)
                continue;
            free(buf);
            buf = NULL;
            errno = n == 0 ? EIO : errno;
            goto cleanup;
        }
        have += (size_t)n;
    }
    *len = have;
cleanup:
    close(fd);
    return buf;
}

struct bigzip_writer *bigzip_open(const char *path, size_t max_entries)
{
    struct bigzip_writer *w = calloc(1, sizeof(*w));
    const char *base, *dot;
    size_t plen;

    if (w == NULL)
        return NULL;
    w->fd = -1;
    w->zero_size = UINT64_MAX;
    base = strrchr(path, '/');
    base = base != NULL ? base + 1 : path;
    dot = strrchr(base, '.');
    plen = dot != NULL && dot != base ? (size_t)(dot - base) : strlen(base);
    if (plen == 0 || plen >= sizeof(w->prefix) || max_entries == 0) {
        errno = EINVAL;
        goto fail;
    }
    memcpy(w->prefix, base, plen);
    w->cap = max_entries;
    w->ents = calloc(max_entries, sizeof(*w->ents));
    w->buf = malloc(BZ_BUF_LEN);
    if (w->ents == NULL || w->buf == NULL)
        goto fail;
    w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (w->fd < 0)
        goto fail;
    return w;
fail:
    free(w->ents);
    free(w->buf);
    free(w);
    return NULL;
}

static void bz_free(struct bigzip_writer *w)
{
    free(w->ents);
    free(w->buf);
    free(w);
}

int bigzip_close(struct bigzip_writer *w)
{
    int rc, saved;

    if (w == NULL)
        return -1;
    rc = bz_finish(w);
    saved = errno;
    if (close(w->fd) != 0 && rc == 0) {
        saved = errno;
        rc = -1;
    }
    bz_free(w);
    errno = saved;
    return rc;
}

void bigzip_abort(struct bigzip_writer *w)
{
    if (w == NULL)
        return;
    close(w->fd);
    bz_free(w);
}

int bigzip_write(const char *path, uint64_t weight_size, const char *so_path,
                 const char *cubin_path)
{
    static const char meta[] = "{\"AOTI_DEVICE_KEY\": \"cuda\", \"AOTI_PLATFORM\": \"linux\", "
                               "\"AOTI_MACHINE\": \"x86_64\", \"AOTI_CPU_ISA\": \"AVX512\", "
                               "\"AOTI_COMPUTE_CAPABILITY\": \"90\"}";
    struct bigzip_writer *w = NULL;
    uint8_t *so = NULL, *cubin = NULL;
    size_t so_len = 0, cubin_len = 0;
    int rc = -1, saved;

    so = bigzip_slurp(so_path, &so_len);
    cubin = so != NULL ? bigzip_slurp(cubin_path, &cubin_len) : NULL;
    if (so == NULL || cubin == NULL || (w = bigzip_open(path, BIGZIP_ENTRIES)) == NULL)
        goto cleanup;
    if (bigzip_add(w, "data/weights/weight_0", NULL, weight_size) < 0 ||
        bigzip_add(w, BIGZIP_SO_NAME, so, so_len) < 0 ||
        bigzip_add(w, BIGZIP_META_NAME, meta, sizeof(meta) - 1) < 0 ||
        bigzip_add(w, BIGZIP_CUBIN_NAME, cubin, cubin_len) < 0 || bigzip_add_trailer(w) < 0) {
        saved = errno;
        bigzip_abort(w);
        errno = saved;
        goto cleanup;
    }
    rc = bigzip_close(w);
cleanup:
    saved = errno;
    free(so);
    free(cubin);
    errno = saved;
    return rc;
}

int bigzip_add_trailer(struct bigzip_writer *w)
{
    if (bigzip_add(w, "archive_format", "pt2", 3) < 0 ||
        bigzip_add(w, "archive_version", "0", 1) < 0 ||
        bigzip_add(w, ".data/version", "6\n", 2) < 0 || bigzip_add(w, "byteorder", "little", 6) < 0)
        return -1;
    return bigzip_add(w, ".data/serialization_id", "0000000000000000000000000000000000000000", 40);
}
