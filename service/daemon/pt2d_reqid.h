/*
 * pt2d_reqid.h - X-Request-Id: accept a client's if sane, else make one.
 *
 * A client-supplied id ends up in logs and in problem `instance` URNs, so
 * only a short, conservative alphabet is accepted.
 */
#ifndef PT2D_REQID_H
#define PT2D_REQID_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define PT2D_REQID_MAX 129 /* 128 characters + NUL */

/* 1 when `s` is 1..128 characters of [A-Za-z0-9._:-]. */
int pt2d_reqid_is_sane(const char *s);

/* Write a fresh random id (32 lower-case hex digits) into out[PT2D_REQID_MAX]. */
void pt2d_reqid_generate(char *out);

/*
 * A server's id source: two random 64-bit keys drawn once, and a counter.
 * Id n is mix(k0 + n*G) || mix(k1 + n*H) with a bijective 64-bit mixer,
 * so ids never repeat within a process (2^64 of them) and look as random
 * as pt2d_reqid_generate()'s across processes - without a getrandom(2)
 * per request (~2 % of a cached answer). Thread-safe (one atomic add).
 * Ownership: caller-owned, no resources.
 */
struct pt2d_reqid_gen {
    uint64_t k0, k1;
    atomic_uint_least64_t n;
};

void pt2d_reqid_gen_init(struct pt2d_reqid_gen *g);
/* The next id (32 lower-case hex digits) into out[PT2D_REQID_MAX]. */
void pt2d_reqid_next(struct pt2d_reqid_gen *g, char *out);

#endif
