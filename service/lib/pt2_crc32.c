/*
 * pt2_crc32.c - CRC-32 (zip/gzip: reflected polynomial 0xEDB88320, zlib's
 * crc32()) by carry-less multiplication folding.
 *
 * Design: a CRC is the remainder of a polynomial over GF(2). Message M of n
 * bytes, first bit the highest power: zlib's CRC from register r (r = ~crc)
 * is (r x^8n + M x^32) mod P, and r x^8n is just r xored into the first four
 * bytes, so from then on only M' x^32 mod P of the xored message M' counts.
 * Any polynomial congruent to M' modulo P will do, and folding keeps one:
 * a 16-byte lane A followed by D more bits of message is worth A x^D, and
 * A x^D = H x^(D+64) + L x^D with H the lane's first 8 bytes and L its last 8,
 * each 64 bits times a 32-bit constant x^k mod P, a product of at most 95
 * bits: two PCLMULQDQs give a 128-bit lane congruent to A x^D, which is
 * xored into the lane D bits further on. Four lanes fold 64 bytes a step
 * (D = 512) independently, so the multiplier's latency is hidden; with
 * AVX-512 VPCLMULQDQ four 64-byte registers fold 256 bytes a step (D =
 * 2048). At the end the lanes fold into one (D = 128 each, or 384/256/128
 * for a register's four lanes), the remaining 16-byte blocks are folded in
 * one by one, and what is left is a 128-bit R and a tail T of under 16
 * bytes with M' = R x^8|T| + T (mod P): the raw CRC (register 0) of R's 16
 * bytes continued over T is then exactly zlib's CRC, computed by zlib
 * itself (no Barrett reduction to get wrong; at most 31 bytes a call).
 *
 * Bit order: bytes are reflected, bit 0 of the first byte the highest power,
 * so a little-endian 128-bit load holds bit i as x^(127-i) and its low 64 bits
 * are H. PCLMULQDQ of two such 64-bit halves (bit i as x^(63-i)) puts x^(126-m)
 * at bit m, which a 128-bit lane reads as x^(127-m): the product times x. So
 * the constant for H is x^(D+63) mod P and for L x^(D-1) mod P, in zlib's
 * 32-bit reflected form (bit 31-d is x^d) moved to the upper half of the
 * 64-bit operand (bit 63-d is x^d). They are computed here at the first call
 * (xpow_mod: multiply x^0 by x, n times), not copied from anywhere; every
 * test of tests/unit/test_crc32.c against zlib checks them.
 *
 * Choice: at the first call of 64 bytes or more, once (pthread_once): the
 * 256-byte AVX-512 stride from WIDE_MIN bytes if the CPU has avx512f and
 * vpclmulqdq, else the 64-byte PCLMULQDQ stride if it has pclmul (and
 * sse4.1); without pclmul, or off x86, zlib's crc32 for everything. The
 * functions with the instructions are compiled for them alone
 * (__attribute__((target))), so the rest of the build keeps its flags.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>

#include "pt2_crc32.h"

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define PT2_CRC32_CLMUL 1
#include <immintrin.h>
#endif

uint32_t pt2_crc32_portable(uint32_t crc, const void *buf, size_t len)
{
    if (len == 0)
        return crc;
    return (uint32_t)crc32_z(crc, buf, len);
}

#ifdef PT2_CRC32_CLMUL

#define CRC32_POLY 0xEDB88320u /* reflected; x^32 implied */
#define FOLD_MIN 64u           /* under this, zlib: no stride of four lanes fits */
#define WIDE_MIN 256u          /* one wide stride; measured faster than 4 lanes from here on */

enum crc_impl { IMPL_ZLIB, IMPL_PCLMUL, IMPL_VPCLMUL };

/* Each pair folds a 16-byte lane over D bits: [0] multiplies its first 8 bytes, [1] its last 8. */
static struct {
    enum crc_impl impl;
    uint64_t d128[2], d512[2], d2048[2];
    uint64_t lane[3][2]; /* a 64-byte register's lanes 0, 1, 2 onto lane 3: D = 384, 256, 128 */
} crc_st;
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

/* x^n mod P in zlib's reflected form (bit 31-d is the coefficient of x^d). */
static uint32_t xpow_mod(unsigned n)
{
    uint32_t r = 0x80000000u; /* x^0 */

    while (n-- > 0)
        r = (r & 1u) ? (r >> 1) ^ CRC32_POLY : r >> 1; /* times x; x^32 = P - x^32 */
    return r;
}

static void fold_pair(uint64_t k[2], unsigned d)
{
    k[0] = (uint64_t)xpow_mod(d + 63u) << 32;
    k[1] = (uint64_t)xpow_mod(d - 1u) << 32;
}

static void crc_init(void)
{
    fold_pair(crc_st.d128, 128);
    fold_pair(crc_st.d512, 512);
    fold_pair(crc_st.d2048, 2048);
    fold_pair(crc_st.lane[0], 384);
    fold_pair(crc_st.lane[1], 256);
    fold_pair(crc_st.lane[2], 128);
    __builtin_cpu_init();
    crc_st.impl = IMPL_ZLIB;
    if (__builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1")) {
        crc_st.impl = IMPL_PCLMUL;
        if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("vpclmulqdq"))
            crc_st.impl = IMPL_VPCLMUL;
    }
}

#define CRC_SSE __attribute__((target("pclmul,sse4.1")))
#define CRC_WIDE __attribute__((target("avx512f,vpclmulqdq,pclmul,sse4.1")))

CRC_SSE static inline __m128i pair128(const uint64_t k[2])
{
    return _mm_set_epi64x((long long)k[1], (long long)k[0]);
}

CRC_SSE static inline __m128i load128(const unsigned char *p)
{
    return _mm_loadu_si128((const __m128i *)(const void *)p);
}

/* Lane x moved D bits on (k: that D's pair), xored onto d. */
CRC_SSE static inline __m128i fold128(__m128i x, __m128i k, __m128i d)
{
    return _mm_xor_si128(
        _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11)), d);
}

/* The same for the four lanes of a 64-byte register at once. */
CRC_WIDE static inline __m512i fold512(__m512i x, __m512i k, __m512i d)
{
    return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x, k, 0x00),
                                     _mm512_clmulepi64_epi128(x, k, 0x11), d, 0x96); /* a^b^c */
}

/* len >= 256: folds all but the last (len mod 64) bytes into one 128-bit lane;
 * *pp and *plen are left on what remains. */
CRC_WIDE static __m128i fold_wide(uint32_t crc, const unsigned char **pp, size_t *plen)
{
    const unsigned char *p = *pp;
    size_t len = *plen;
    __m512i x0, x1, x2, x3, k, t;
    __m128i r;

    x0 = _mm512_xor_si512(_mm512_loadu_si512(p),
                          _mm512_set_epi64(0, 0, 0, 0, 0, 0, 0, (long long)(uint32_t)~crc));
    x1 = _mm512_loadu_si512(p + 64);
    x2 = _mm512_loadu_si512(p + 128);
    x3 = _mm512_loadu_si512(p + 192);
    p += 256;
    len -= 256;
    k = _mm512_broadcast_i32x4(pair128(crc_st.d2048));
    while (len >= 256) {
        x0 = fold512(x0, k, _mm512_loadu_si512(p));
        x1 = fold512(x1, k, _mm512_loadu_si512(p + 64));
        x2 = fold512(x2, k, _mm512_loadu_si512(p + 128));
        x3 = fold512(x3, k, _mm512_loadu_si512(p + 192));
        p += 256;
        len -= 256;
    }
    k = _mm512_broadcast_i32x4(pair128(crc_st.d512));
    x1 = fold512(x0, k, x1);
    x2 = fold512(x1, k, x2);
    x3 = fold512(x2, k, x3);
    while (len >= 64) {
        x3 = fold512(x3, k, _mm512_loadu_si512(p));
        p += 64;
        len -= 64;
    }
    /* Lanes 0, 1, 2 moved 384, 256, 128 bits on (lane 3's constant 0), then all four xored. */
    k = _mm512_set_epi64(0, 0, (long long)crc_st.lane[2][1], (long long)crc_st.lane[2][0],
                         (long long)crc_st.lane[1][1], (long long)crc_st.lane[1][0],
                         (long long)crc_st.lane[0][1], (long long)crc_st.lane[0][0]);
    t = _mm512_xor_si512(_mm512_clmulepi64_epi128(x3, k, 0x00),
                         _mm512_clmulepi64_epi128(x3, k, 0x11));
    r = _mm_xor_si128(
        _mm_xor_si128(_mm512_extracti32x4_epi32(t, 0), _mm512_extracti32x4_epi32(t, 1)),
        _mm_xor_si128(_mm512_extracti32x4_epi32(t, 2), _mm512_extracti32x4_epi32(x3, 3)));
    *pp = p;
    *plen = len;
    return r;
}

/* len >= FOLD_MIN. */
CRC_SSE static uint32_t crc_fold(uint32_t crc, const unsigned char *p, size_t len, int wide)
{
    unsigned char last[16];
    __m128i x, k;

    if (wide && len >= WIDE_MIN) {
        x = fold_wide(crc, &p, &len);
    } else {
        __m128i x0, x1, x2, x3;

        x0 = _mm_xor_si128(load128(p), _mm_cvtsi32_si128((int)~crc));
        x1 = load128(p + 16);
        x2 = load128(p + 32);
        x3 = load128(p + 48);
        p += 64;
        len -= 64;
        k = pair128(crc_st.d512);
        while (len >= 64) {
            x0 = fold128(x0, k, load128(p));
            x1 = fold128(x1, k, load128(p + 16));
            x2 = fold128(x2, k, load128(p + 32));
            x3 = fold128(x3, k, load128(p + 48));
            p += 64;
            len -= 64;
        }
        k = pair128(crc_st.d128);
        x = fold128(fold128(fold128(x0, k, x1), k, x2), k, x3);
    }
    k = pair128(crc_st.d128);
    while (len >= 16) {
        x = fold128(x, k, load128(p));
        p += 16;
        len -= 16;
    }
    /* The raw CRC (register 0: zlib's crc argument ~0) of the folded lane, then the tail. */
    _mm_storeu_si128((__m128i *)(void *)last, x);
    crc = (uint32_t)crc32(0xFFFFFFFFul, last, sizeof(last));
    return pt2_crc32_portable(crc, p, len);
}

#endif /* PT2_CRC32_CLMUL */

uint32_t pt2_crc32(uint32_t crc, const void *buf, size_t len)
{
#ifdef PT2_CRC32_CLMUL
    if (len >= FOLD_MIN) {
        pthread_once(&crc_once, crc_init);
        if (crc_st.impl != IMPL_ZLIB)
            return crc_fold(crc, buf, len, crc_st.impl == IMPL_VPCLMUL);
    }
#endif
    return pt2_crc32_portable(crc, buf, len);
}
