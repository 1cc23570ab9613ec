/*
 * bench_genpkg.c - write a torch >= 2.8 style .pt2 of any weights size and
 * entry count, for the inspection benchmark.
 *
 * Why not tests/support/bigzip.c: that writer has a fixed nine-entry table
 * its tests rely on; the benchmark needs 10 to 20,000 entries. The record
 * format is the same PyTorchStreamWriter look-alike (stored records, FB
 * padding to 64 bytes, data descriptors, zip64 extras past 4 GiB, zip64 end
 * records always) and the CRC helpers are bigzip's.
 *
 * Layout: `entries - 8` weight records data/weights/weight_<i> sharing
 * `weights` bytes (holes made with lseek, so 8 GiB costs no disk), then the
 * AOTI model (wrapper .so, its metadata, one .cubin), then the five
 * trailer records. Weights come first so the model's headers sit past the
 * weights, at zip64 offsets for the big packages.
 *
 * usage: bench_genpkg OUT.pt2 WEIGHTS ENTRIES SO CUBIN
 *        WEIGHTS takes K/M/G suffixes (powers of 1024); 9 <= ENTRIES <= 1,000,000.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bigzip.h"

#define GP_U32_MAX 0xffffffffu
#define GP_U16_MAX 0xffffu
#define GP_ALIGN 64u
#define GP_NAME_MAX 160u
#define GP_FIXED 8u /* .so, metadata, cubin and the five trailer records */
#define GP_ENTRIES_MAX 1000000u
#define GP_INPUT_MAX (64u * 1024u * 1024u)
#define GP_WEIGHTS_MAX (1ull << 44) /* 16 TiB of holes is plenty */
#define GP_BUF_LEN (1u << 20)

struct gp_ent {
    char name[GP_NAME_MAX];
    uint32_t crc;
    uint64_t size;
    uint64_t offset;
};

struct gp_writer {
    int fd;
    uint64_t pos; /* logical file position, buffered bytes included */
    uint8_t *buf; /* write buffer; flushed before every hole */
    size_t buf_len;
    char prefix[128];
    struct gp_ent *ents;
    size_t n, cap;
    uint64_t zero_size; /* memo: the last hole size (UINT64_MAX: none yet) and its CRC */
    uint32_t zero_crc;
};

static void gp_put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void gp_put32(uint8_t *p, uint32_t v)
{
    gp_put16(p, v & 0xffffu);
    gp_put16(p + 2, v >> 16);
}

static void gp_put64(uint8_t *p, uint64_t v)
{
    gp_put32(p, (uint32_t)v);
    gp_put32(p + 4, (uint32_t)(v >> 32));
}

static int gp_flush(struct gp_writer *w)
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

static int gp_write(struct gp_writer *w, const void *data, size_t len)
{
    const uint8_t *p = data;

    while (len > 0) {
        size_t room = GP_BUF_LEN - w->buf_len, k = len < room ? len : room;

        memcpy(w->buf + w->buf_len, p, k);
        w->buf_len += k;
        w->pos += k;
        p += k;
        len -= k;
        if (w->buf_len == GP_BUF_LEN && gp_flush(w) < 0)
            return -1;
    }
    return 0;
}

/* `size` zero bytes as a hole: the file system stores nothing for them. */
static int gp_hole(struct gp_writer *w, uint64_t size)
{
    if (gp_flush(w) < 0)
        return -1;
    if (lseek(w->fd, (off_t)size, SEEK_CUR) < 0)
        return -1;
    w->pos += size;
    return 0;
}

/* Zip64 extra field for the values that do not fit 32 bits; returns its length (0 = none). */
static size_t gp_zip64_extra(uint8_t *out, uint64_t size, uint64_t offset)
{
    size_t len = 4;

    if (size >= GP_U32_MAX) {
        gp_put64(out + len, size);
        gp_put64(out + len + 8, size);
        len += 16;
    }
    if (offset >= GP_U32_MAX) {
        gp_put64(out + len, offset);
        len += 8;
    }
    if (len == 4)
        return 0;
    gp_put16(out, 0x0001);
    gp_put16(out + 2, (uint32_t)(len - 4));
    return len;
}

static struct gp_ent *gp_next(struct gp_writer *w, const char *rel)
{
    struct gp_ent *e;

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
static int gp_add(struct gp_writer *w, const char *rel, const void *data, uint64_t size)
{
    uint8_t hdr[30 + GP_NAME_MAX + 28 + 4 + GP_ALIGN], dd[24];
    struct gp_ent *e = gp_next(w, rel);
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
    gp_put32(hdr, 0x04034b50u);
    gp_put16(hdr + 4, size >= GP_U32_MAX || e->offset >= GP_U32_MAX ? 45 : 0);
    gp_put16(hdr + 6, 0x0808); /* data descriptor + UTF-8; local CRC and sizes stay 0 */
    memcpy(hdr + 30, e->name, nlen);
    xlen = gp_zip64_extra(hdr + 30 + nlen, size, e->offset);
    h = 30 + nlen + xlen + 4;
    pad = (GP_ALIGN - (size_t)((w->pos + h) % GP_ALIGN)) % GP_ALIGN;
    gp_put16(hdr + 30 + nlen + xlen, 0x4246); /* "FB" padding field */
    gp_put16(hdr + 30 + nlen + xlen + 2, (uint32_t)pad);
    memset(hdr + h, 'Z', pad);
    gp_put16(hdr + 26, (uint32_t)nlen);
    gp_put16(hdr + 28, (uint32_t)(xlen + 4 + pad));
    if (gp_write(w, hdr, h + pad) < 0)
        return -1;
    if (data == NULL ? gp_hole(w, size) < 0 : gp_write(w, data, (size_t)size) < 0)
        return -1;
    gp_put32(dd, 0x08074b50u);
    gp_put32(dd + 4, e->crc);
    if (size >= GP_U32_MAX) {
        gp_put64(dd + 8, size);
        gp_put64(dd + 16, size);
    } else {
        gp_put32(dd + 8, (uint32_t)size);
        gp_put32(dd + 12, (uint32_t)size);
    }
    if (gp_write(w, dd, size >= GP_U32_MAX ? 24 : 16) < 0)
        return -1;
    w->n++;
    return 0;
}

static int gp_finish(struct gp_writer *w)
{
    uint8_t rec[46 + GP_NAME_MAX + 28], end[56 + 20 + 22];
    uint64_t cd_start = w->pos, cd_size;
    size_t i;

    for (i = 0; i < w->n; i++) {
        const struct gp_ent *e = &w->ents[i];
        size_t nlen = strlen(e->name), xlen;
        int big_size = e->size >= GP_U32_MAX, big_off = e->offset >= GP_U32_MAX;

        memset(rec, 0, sizeof(rec));
        gp_put32(rec, 0x02014b50u);
        gp_put16(rec + 6, big_size || big_off ? 45 : 0);
        gp_put16(rec + 8, 0x0808);
        gp_put32(rec + 16, e->crc);
        gp_put32(rec + 20, big_size ? GP_U32_MAX : (uint32_t)e->size);
        gp_put32(rec + 24, big_size ? GP_U32_MAX : (uint32_t)e->size);
        gp_put16(rec + 28, (uint32_t)nlen);
        memcpy(rec + 46, e->name, nlen);
        xlen = gp_zip64_extra(rec + 46 + nlen, e->size, e->offset);
        gp_put16(rec + 30, (uint32_t)xlen);
        gp_put32(rec + 42, big_off ? GP_U32_MAX : (uint32_t)e->offset);
        if (gp_write(w, rec, 46 + nlen + xlen) < 0)
            return -1;
    }
    cd_size = w->pos - cd_start;
    memset(end, 0, sizeof(end));
    gp_put32(end, 0x06064b50u); /* zip64 end of central directory record */
    gp_put64(end + 4, 44);
    gp_put16(end + 12, 0x031e);
    gp_put16(end + 14, 45);
    gp_put64(end + 24, w->n);
    gp_put64(end + 32, w->n);
    gp_put64(end + 40, cd_size);
    gp_put64(end + 48, cd_start);
    gp_put32(end + 56, 0x07064b50u); /* zip64 locator */
    gp_put64(end + 56 + 8, w->pos);
    gp_put32(end + 56 + 16, 1);
    gp_put32(end + 76, 0x06054b50u); /* classic end record, saturated where zip64 holds the value */
    gp_put16(end + 76 + 8, w->n >= GP_U16_MAX ? GP_U16_MAX : (uint32_t)w->n);
    gp_put16(end + 76 + 10, w->n >= GP_U16_MAX ? GP_U16_MAX : (uint32_t)w->n);
    gp_put32(end + 76 + 12, cd_size >= GP_U32_MAX ? GP_U32_MAX : (uint32_t)cd_size);
    gp_put32(end + 76 + 16, cd_start >= GP_U32_MAX ? GP_U32_MAX : (uint32_t)cd_start);
    if (gp_write(w, end, sizeof(end)) < 0)
        return -1;
    return gp_flush(w);
}

static uint8_t *gp_slurp(const char *path, size_t *len)
{
    struct stat st;
    uint8_t *buf = NULL;
    size_t have = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) != 0 || st.st_size < 0 || (uint64_t)st.st_size > GP_INPUT_MAX) {
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

/* "8G", "1M", "123" -> bytes; -1 on anything else. */
static int gp_parse_size(const char *s, uint64_t *out)
{
    unsigned long long v;
    char *end = NULL;
    unsigned shift = 0;

    if (s[0] < '0' || s[0] > '9')
        return -1;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno == ERANGE || end == s)
        return -1;
    switch (*end) {
    case '\0':
        break;
    case 'K':
        shift = 10;
        break;
    case 'M':
        shift = 20;
        break;
    case 'G':
        shift = 30;
        break;
    default:
        return -1;
    }
    if (*end != '\0' && end[1] != '\0')
        return -1;
    if (v > (GP_WEIGHTS_MAX >> shift))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

static int gp_write_package(struct gp_writer *w, uint64_t weights, size_t entries,
                            const uint8_t *so, size_t so_len, const uint8_t *cubin,
                            size_t cubin_len)
{
    static const char meta[] = "{\"AOTI_DEVICE_KEY\": \"cuda\", \"AOTI_PLATFORM\": \"linux\", "
                               "\"AOTI_MACHINE\": \"x86_64\", \"AOTI_CPU_ISA\": \"AVX512\", "
                               "\"AOTI_COMPUTE_CAPABILITY\": \"90\"}";
    static const char model[] = "data/aotinductor/model/";
    static const char hw[] = "cbenchwrapper0000000000000000000000000000000000000000";
    size_t nweights = entries - GP_FIXED, i;
    uint64_t each = weights / nweights;
    char rel[GP_NAME_MAX];

    for (i = 0; i < nweights; i++) {
        /* The last weight takes the remainder so the total is exact. */
        uint64_t size = i + 1 == nweights ? weights - each * (nweights - 1) : each;

        snprintf(rel, sizeof(rel), "data/weights/weight_%zu", i);
        if (gp_add(w, rel, NULL, size) < 0)
            return -1;
    }
    snprintf(rel, sizeof(rel), "%s%s.wrapper.so", model, hw);
    if (gp_add(w, rel, so, so_len) < 0)
        return -1;
    snprintf(rel, sizeof(rel), "%s%s.wrapper_metadata.json", model, hw);
    if (gp_add(w, rel, meta, sizeof(meta) - 1) < 0)
        return -1;
    snprintf(rel, sizeof(rel), "%scbenchkernel0.cubin", model);
    if (gp_add(w, rel, cubin, cubin_len) < 0)
        return -1;
    if (gp_add(w, "archive_format", "pt2", 3) < 0 || gp_add(w, "archive_version", "0", 1) < 0 ||
        gp_add(w, ".data/version", "6\n", 2) < 0 || gp_add(w, "byteorder", "little", 6) < 0 ||
        gp_add(w, ".data/serialization_id", "0000000000000000000000000000000000000000", 40) < 0)
        return -1;
    return gp_finish(w);
}

int main(int argc, char **argv)
{
    struct gp_writer w;
    uint8_t *so = NULL, *cubin = NULL;
    size_t so_len = 0, cubin_len = 0, plen;
    uint64_t weights = 0, entries = 0;
    const char *out, *base, *dot;
    int rc = 1;

    memset(&w, 0, sizeof(w));
    w.fd = -1;
    w.zero_size = UINT64_MAX;
    if (argc != 6) {
        fprintf(stderr, "usage: %s OUT.pt2 WEIGHTS ENTRIES SO CUBIN\n", argv[0]);
        return 2;
    }
    out = argv[1];
    if (gp_parse_size(argv[2], &weights) < 0) {
        fprintf(stderr, "bench_genpkg: bad weights size '%s' (e.g. 1M, 8G)\n", argv[2]);
        return 2;
    }
    if (gp_parse_size(argv[3], &entries) < 0 || entries <= GP_FIXED || entries > GP_ENTRIES_MAX) {
        fprintf(stderr, "bench_genpkg: entries '%s' must be %u..%u\n", argv[3], GP_FIXED + 1,
                GP_ENTRIES_MAX);
        return 2;
    }
    base = strrchr(out, '/');
    base = base != NULL ? base + 1 : out;
    dot = strrchr(base, '.');
    plen = dot != NULL && dot != base ? (size_t)(dot - base) : strlen(base);
    if (plen == 0 || plen >= sizeof(w.prefix)) {
        fprintf(stderr, "bench_genpkg: output name '%s' gives no usable prefix\n", out);
        return 2;
    }
    memcpy(w.prefix, base, plen);
    so = gp_slurp(argv[4], &so_len);
    if (so == NULL) {
        fprintf(stderr, "bench_genpkg: cannot read %s: %s\n", argv[4], strerror(errno));
        goto cleanup;
    }
    cubin = gp_slurp(argv[5], &cubin_len);
    if (cubin == NULL) {
        fprintf(stderr, "bench_genpkg: cannot read %s: %s\n", argv[5], strerror(errno));
        goto cleanup;
    }
    w.cap = (size_t)entries;
    w.ents = calloc(w.cap, sizeof(*w.ents));
    w.buf = malloc(GP_BUF_LEN);
    if (w.ents == NULL || w.buf == NULL) {
        fprintf(stderr, "bench_genpkg: out of memory\n");
        goto cleanup;
    }
    w.fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (w.fd < 0) {
        fprintf(stderr, "bench_genpkg: cannot create %s: %s\n", out, strerror(errno));
        goto cleanup;
    }
    if (gp_write_package(&w, weights, (size_t)entries, so, so_len, cubin, cubin_len) < 0) {
        fprintf(stderr, "bench_genpkg: writing %s: %s\n", out, strerror(errno));
        goto cleanup;
    }
    if (close(w.fd) != 0) {
        w.fd = -1;
        fprintf(stderr, "bench_genpkg: closing %s: %s\n", out, strerror(errno));
        goto cleanup;
    }
    w.fd = -1;
    rc = 0;
cleanup:
    if (w.fd >= 0)
        close(w.fd);
    if (rc != 0)
        unlink(out);
    free(w.ents);
    free(w.buf);
    free(so);
    free(cubin);
    return rc;
}
