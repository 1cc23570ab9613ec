/*
 * pt2_rd.c - bounded reader (see pt2_rd.h for the design note).
 */
#include <string.h>

#include "pt2_rd.h"

void pt2_rd_init_mem(struct pt2_rd *rd, const void *data, size_t size, const char *name)
{
    memset(rd, 0, sizeof(*rd));
    rd->mem = data;
    rd->size = size;
    rd->budget = UINT64_MAX;
    rd->name = name != NULL ? name : "buffer";
}

void pt2_rd_init_fn(struct pt2_rd *rd, pt2_rd_fn fn, void *ctx, uint64_t size, const char *name)
{
    memset(rd, 0, sizeof(*rd));
    rd->fn = fn;
    rd->ctx = ctx;
    rd->size = size;
    rd->budget = UINT64_MAX;
    rd->name = name != NULL ? name : "entry";
}

void pt2_rd_set_budget(struct pt2_rd *rd, uint64_t budget)
{
    rd->budget = budget;
}

int pt2_rd_read_some(struct pt2_rd *rd, uint64_t off, void *buf, size_t len, size_t *got,
                     struct pt2_error *err)
{
    size_t want, have = 0;
    int rc;

    *got = 0;
    if (off >= rd->size || len == 0)
        return PT2_OK;
    want = len;
    if ((uint64_t)want > rd->size - off)
        want = (size_t)(rd->size - off);
    if ((uint64_t)want > rd->budget)
        return pt2_error_set(err, PT2_ERR_TOO_LARGE,
                             "%s: read budget exhausted (bounded inspection)", rd->name);
    if (rd->fn == NULL) {
        memcpy(buf, rd->mem + off, want);
        have = want;
    } else {
        while (have < want) {
            size_t n = 0;
            rd->calls++;
            rc = rd->fn(rd->ctx, off + have, (uint8_t *)buf + have, want - have, &n, err);
            if (rc != PT2_OK)
                return rc;
            if (n == 0)
                break;
            have += n;
        }
    }
    rd->budget -= have;
    rd->bytes_read += have;
    *got = have;
    return PT2_OK;
}

int pt2_rd_read(struct pt2_rd *rd, uint64_t off, void *buf, size_t len, struct pt2_error *err)
{
    size_t got = 0;
    int rc;

    if (off > rd->size || (uint64_t)len > rd->size - off)
        return pt2_error_set(err, PT2_ERR_FORMAT,
                             "%s: truncated (needs %zu bytes at offset %llu, size %llu)", rd->name,
                             len, (unsigned long long)off, (unsigned long long)rd->size);
    rc = pt2_rd_read_some(rd, off, buf, len, &got, err);
    if (rc != PT2_OK)
        return rc;
    if (got != len)
        return pt2_error_set(err, PT2_ERR_ENTRY, "%s: short read at offset %llu", rd->name,
                             (unsigned long long)off);
    return PT2_OK;
}

uint16_t pt2_le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

uint32_t pt2_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

uint64_t pt2_le64(const uint8_t *p)
{
    return (uint64_t)pt2_le32(p) | ((uint64_t)pt2_le32(p + 4) << 32);
}

uint16_t pt2_be16(const uint8_t *p)
{
    return (uint16_t)((p[0] << 8) | p[1]);
}

uint32_t pt2_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

uint64_t pt2_be64(const uint8_t *p)
{
    return ((uint64_t)pt2_be32(p) << 32) | (uint64_t)pt2_be32(p + 4);
}
