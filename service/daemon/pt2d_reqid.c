/*
 * pt2d_reqid.c - request ids (see pt2d_reqid.h).
 *
 * getrandom() never blocks once the pool is initialised, which it is long
 * before a daemon accepts connections; should it fail anyway, two clocks
 * and a stack address still give distinct ids (ids are for correlation, not
 * security). Servers use pt2d_reqid_next(): getrandom() once, then a
 * keyed counter (see pt2d_reqid.h).
 */
#include <stdint.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "pt2d_reqid.h"

int pt2d_reqid_is_sane(const char *s)
{
    size_t i;

    for (i = 0; s[i] != '\0'; i++) {
        char c = s[i];
        if (i >= PT2D_REQID_MAX - 1)
            return 0;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == ':' || c == '-'))
            return 0;
    }
    return i > 0;
}

/* 16 random bytes; clocks and a stack address if getrandom() fails. */
static void reqid_random(uint8_t r[16])
{
    if (getrandom(r, 16, GRND_NONBLOCK) != 16) {
        struct timespec ts, mono;
        uint64_t a, b;

        clock_gettime(CLOCK_REALTIME, &ts);
        clock_gettime(CLOCK_MONOTONIC, &mono);
        a = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
        b = ((uint64_t)mono.tv_sec * 1000000000u + (uint64_t)mono.tv_nsec) ^
            (uint64_t)(uintptr_t)&ts;
        memcpy(r, &a, 8);
        memcpy(r + 8, &b, 8);
    }
}

/* By hand: 16 snprintf calls were a visible share of answering /livez. */
static void reqid_hex(const uint8_t r[16], char *out)
{
    static const char hex[] = "0123456789abcdef";
    size_t i;

    for (i = 0; i < 16; i++) {
        out[2 * i] = hex[r[i] >> 4];
        out[2 * i + 1] = hex[r[i] & 15];
    }
    out[32] = '\0';
}

void pt2d_reqid_generate(char *out)
{
    uint8_t r[16];

    reqid_random(r);
    reqid_hex(r, out);
}

/* splitmix64's finaliser: a bijection on 64-bit values. */
static uint64_t reqid_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void pt2d_reqid_gen_init(struct pt2d_reqid_gen *g)
{
    uint8_t r[16];

    reqid_random(r);
    memcpy(&g->k0, r, 8);
    memcpy(&g->k1, r + 8, 8);
    atomic_init(&g->n, 0);
}

void pt2d_reqid_next(struct pt2d_reqid_gen *g, char *out)
{
    uint64_t n = atomic_fetch_add_explicit(&g->n, 1, memory_order_relaxed);
    uint64_t hi = reqid_mix(g->k0 + n * 0x9e3779b97f4a7c15ull);
    uint64_t lo = reqid_mix(g->k1 + n * 0xd1b54a32d192ed03ull);
    uint8_t r[16];
    int i;

    for (i = 0; i < 8; i++) {
        r[i] = (uint8_t)(hi >> (56 - 8 * i));
        r[8 + i] = (uint8_t)(lo >> (56 - 8 * i));
    }
    reqid_hex(r, out);
}
