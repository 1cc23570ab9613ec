/*
 * pt2d_reqid.c - request ids (see pt2d_reqid.h).
 *
 * getrandom() never blocks once the pool is initialised, which it is long
 * before a daemon accepts connections; should it fail anyway, two clocks
 * and a stack address still give distinct ids (ids are for correlation, not
 * security).
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

void pt2d_reqid_generate(char *out)
{
    static const char hex[] = "0123456789abcdef";
    uint8_t r[16];
    size_t i;

    if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
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
    /* By hand: 16 snprintf calls were a visible share of answering /livez. */
    for (i = 0; i < sizeof(r); i++) {
        out[2 * i] = hex[r[i] >> 4];
        out[2 * i + 1] = hex[r[i] & 15];
    }
    out[2 * sizeof(r)] = '\0';
}
