/*
 * pt2_rd.h - bounded random-access reader over one byte range.
 *
 * Design: every binary parser (ELF, fatbin, Mach-O, AMD code objects) reads
 * through a struct pt2_rd instead of a buffer, because the thing it parses
 * may be a multi-gigabyte `.so` inside a zip. The reader enforces a total
 * byte budget, counts bytes and calls, and turns short reads into errors, so
 * a parser can never read more than it was granted nor walk off the end.
 *
 * Backends: memory (tests, small entries) and a callback (zip entries, files).
 * The struct is transparent because it lives on the caller's stack; treat the
 * fields as private outside pt2_rd.c.
 */
#ifndef PT2_RD_H
#define PT2_RD_H

#include <stddef.h>
#include <stdint.h>

#include "pt2_error.h"

/* Read up to `len` bytes at `off`; store the count in *got. 0 or a pt2_status. */
typedef int (*pt2_rd_fn)(void *ctx, uint64_t off, void *buf, size_t len, size_t *got,
                         struct pt2_error *err);

struct pt2_rd {
    pt2_rd_fn fn;        /* NULL for the memory backend */
    void *ctx;           /* backend state, borrowed */
    const uint8_t *mem;  /* memory backend data, borrowed */
    uint64_t size;       /* size of the range */
    uint64_t budget;     /* bytes this reader may still read (UINT64_MAX = none) */
    uint64_t bytes_read; /* bytes delivered so far */
    uint64_t calls;      /* backend calls so far */
    const char *name;    /* for messages, borrowed (e.g. the entry path) */
};

/* Default budget of one binary scan: section tables, symbols, fatbin headers. */
#define PT2_RD_DEFAULT_BUDGET (512u * 1024u)

void pt2_rd_init_mem(struct pt2_rd *rd, const void *data, size_t size, const char *name);
void pt2_rd_init_fn(struct pt2_rd *rd, pt2_rd_fn fn, void *ctx, uint64_t size, const char *name);
void pt2_rd_set_budget(struct pt2_rd *rd, uint64_t budget);

/*
 * Read exactly `len` bytes at `off`. Fails with PT2_ERR_FORMAT ("... truncated")
 * if the range ends first, PT2_ERR_TOO_LARGE if the budget would be exceeded.
 */
int pt2_rd_read(struct pt2_rd *rd, uint64_t off, void *buf, size_t len,
                struct pt2_error *err) PT2_WARN_UNUSED;

/* Read up to `len` bytes (clamped to the range end); *got receives the count. */
int pt2_rd_read_some(struct pt2_rd *rd, uint64_t off, void *buf, size_t len, size_t *got,
                     struct pt2_error *err) PT2_WARN_UNUSED;

/* Little/big-endian loads from a buffer. */
uint16_t pt2_le16(const uint8_t *p);
uint32_t pt2_le32(const uint8_t *p);
uint64_t pt2_le64(const uint8_t *p);
uint16_t pt2_be16(const uint8_t *p);
uint32_t pt2_be32(const uint8_t *p);
uint64_t pt2_be64(const uint8_t *p);

#endif
