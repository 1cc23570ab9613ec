/*
 * test_crc32.c - pt2_crc32 (carry-less folding) and its fallback
 * pt2_crc32_portable against zlib's crc32 as the oracle: the check value,
 * every length 0..1024 at every start alignment 0..63 (both SIMD strides and
 * the way into zlib for the tail), random lengths up to 4 MiB, slices that
 * end at the end of their allocation (ASan sees any read past it),
 * continuation at many split points, and first calls from many threads.
 */
#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "pt2_crc32.h"
#include "testutil.h"

#define SWEEP_MAX 1024u
#define BIG_MAX (4u * 1024u * 1024u)

typedef uint32_t (*crc_fn)(uint32_t, const void *, size_t);

static uint64_t rng = 0x9E3779B97F4A7C15u;

static uint64_t next_rand(void) /* splitmix64: fixed seed, the same bytes every run */
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15u);

    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* cap bytes (a multiple of 64) of random data, 64-byte aligned. */
static unsigned char *random_buf(size_t cap)
{
    unsigned char *b = aligned_alloc(64, cap);
    size_t i;

    ck_assert_ptr_nonnull(b);
    for (i = 0; i < cap; i += 8) {
        uint64_t v = next_rand();
        memcpy(b + i, &v, 8);
    }
    return b;
}

static uint32_t zlib_crc(uint32_t crc, const unsigned char *p, size_t len)
{
    return (uint32_t)crc32_z(crc, p, len);
}

static void expect(const char *fn, uint32_t got, uint32_t want, uint32_t start, size_t len,
                   size_t align)
{
    if (got != want)
        ck_abort_msg("%s(0x%08x, len %zu, align %zu) = 0x%08x, zlib 0x%08x", fn, (unsigned)start,
                     len, align, (unsigned)got, (unsigned)want);
}

/* Every length 0..SWEEP_MAX at every alignment 0..63 from a 64-aligned base, and
 * every length again as a slice ending at the allocation's last byte. */
static void sweep(crc_fn fn, const char *name)
{
    size_t cap = SWEEP_MAX + 128u;
    unsigned char *b = random_buf(cap);
    size_t align, len;

    for (align = 0; align < 64; align++)
        for (len = 0; len <= SWEEP_MAX; len++) {
            uint32_t start = (uint32_t)(len * 0x01000193u + align);
            const unsigned char *p = b + align;

            expect(name, fn(0, p, len), zlib_crc(0, p, len), 0, len, align);
            expect(name, fn(start, p, len), zlib_crc(start, p, len), start, len, align);
        }
    for (len = 0; len <= SWEEP_MAX; len++) {
        const unsigned char *p = b + cap - len;

        expect(name, fn(0, p, len), zlib_crc(0, p, len), 0, len, (size_t)(cap - len) % 64u);
    }
    free(b);
}

/* Three random lengths up to 4 MiB at every alignment 0..63 (one in a stride's last
 * bytes, one anywhere, one as a slice within 63 bytes of the buffer's end). */
static void random_lengths(crc_fn fn, const char *name)
{
    size_t cap = BIG_MAX + 128u;
    unsigned char *b = random_buf(cap);
    size_t align;
    int i;

    for (align = 0; align < 64; align++)
        for (i = 0; i < 3; i++) {
            size_t len = (size_t)(next_rand() % (BIG_MAX + 1u));
            uint32_t start = (uint32_t)next_rand();
            const unsigned char *p = b + align;

            if (i == 0)
                len = BIG_MAX - (size_t)(next_rand() % 300u);
            if (i == 2)
                p = b + cap - len - ((cap - len - align) % 64u);
            expect(name, fn(start, p, len), zlib_crc(start, p, len), start, len, align);
        }
    free(b);
}

START_TEST(test_check_value)
{
    static const char nine[] = "123456789";
    char many[9 * 40];
    size_t i;

    ck_assert_uint_eq(pt2_crc32(0, nine, 9), 0xCBF43926u);
    ck_assert_uint_eq(pt2_crc32_portable(0, nine, 9), 0xCBF43926u);
    ck_assert_uint_eq(zlib_crc(0, (const unsigned char *)nine, 9), 0xCBF43926u);
    /* 360 bytes: past both strides' minimums (64 and 256), so folded, not zlib alone */
    for (i = 0; i < 40; i++)
        memcpy(many + 9 * i, nine, 9);
    ck_assert_uint_eq(pt2_crc32(0, many, sizeof(many)),
                      zlib_crc(0, (const unsigned char *)many, sizeof(many)));
    ck_assert_uint_eq(pt2_crc32(0, many, 72), zlib_crc(0, (const unsigned char *)many, 72));
}
END_TEST

START_TEST(test_empty)
{
    ck_assert_uint_eq(pt2_crc32(0, "", 0), 0);
    ck_assert_uint_eq(pt2_crc32(0, NULL, 0), 0);
    ck_assert_uint_eq(pt2_crc32(0xCBF43926u, "", 0), 0xCBF43926u);
    ck_assert_uint_eq(pt2_crc32(0xCBF43926u, NULL, 0), 0xCBF43926u); /* zlib's crc32 says 0 */
    ck_assert_uint_eq(pt2_crc32_portable(0, NULL, 0), 0);
    ck_assert_uint_eq(pt2_crc32_portable(0xDEADBEEFu, NULL, 0), 0xDEADBEEFu);
    ck_assert_uint_eq(pt2_crc32_portable(0xDEADBEEFu, "x", 0), 0xDEADBEEFu);
    ck_assert_uint_eq(zlib_crc(0, (const unsigned char *)"", 0), 0);
}
END_TEST

START_TEST(test_every_length)
{
    sweep(pt2_crc32, "pt2_crc32");
}
END_TEST

START_TEST(test_random_lengths)
{
    random_lengths(pt2_crc32, "pt2_crc32");
}
END_TEST

/* Data of all zeros and all ones: the folded lanes then carry only the start value. */
START_TEST(test_uniform)
{
    static const size_t lens[] = {64, 65, 255, 256, 257, 4096, 65536 + 17, 1000003};
    unsigned char *b = malloc(1000003);
    size_t i;
    int fill;

    ck_assert_ptr_nonnull(b);
    for (fill = 0; fill < 2; fill++) {
        memset(b, fill ? 0xFF : 0x00, 1000003);
        for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
            expect("pt2_crc32", pt2_crc32(0, b, lens[i]), zlib_crc(0, b, lens[i]), 0, lens[i], 0);
            expect("pt2_crc32", pt2_crc32(0xFFFFFFFFu, b, lens[i]),
                   zlib_crc(0xFFFFFFFFu, b, lens[i]), 0xFFFFFFFFu, lens[i], 0);
        }
    }
    free(b);
}
END_TEST

/* crc(a || b) == pt2_crc32(pt2_crc32(0, a), b): every split of 3000 bytes, and
 * random two- and three-way splits of 1 MiB + 13. */
START_TEST(test_continue)
{
    size_t small = 3000, big = (1u << 20) + 13u;
    unsigned char *b = random_buf(big + 51u);
    uint32_t whole;
    size_t s;
    int i;

    whole = zlib_crc(0, b, small);
    for (s = 0; s <= small; s++) {
        uint32_t c = pt2_crc32(pt2_crc32(0, b, s), b + s, small - s);
        expect("pt2_crc32 split", c, whole, 0, s, 0);
    }
    whole = zlib_crc(0, b, big);
    ck_assert_uint_eq(pt2_crc32(0, b, big), whole);
    for (i = 0; i < 200; i++) {
        size_t s1 = (size_t)(next_rand() % (big + 1u)), s2 = (size_t)(next_rand() % (big + 1u));
        uint32_t c;

        if (s1 > s2) {
            size_t t = s1;
            s1 = s2;
            s2 = t;
        }
        c = pt2_crc32(pt2_crc32(0, b, s2), b + s2, big - s2);
        expect("pt2_crc32 split", c, whole, 0, s2, 0);
        c = pt2_crc32(pt2_crc32(pt2_crc32(0, b, s1), b + s1, s2 - s1), b + s2, big - s2);
        expect("pt2_crc32 3-way split", c, whole, 0, s1, s2 - s1);
        /* mixing with the fallback continues the same CRC */
        c = pt2_crc32_portable(pt2_crc32(0, b, s1), b + s1, big - s1);
        expect("pt2_crc32 then portable", c, whole, 0, s1, 0);
    }
    free(b);
}
END_TEST

/* The fallback, forced: the same comparisons against zlib. */
START_TEST(test_portable)
{
    sweep(pt2_crc32_portable, "pt2_crc32_portable");
    random_lengths(pt2_crc32_portable, "pt2_crc32_portable");
}
END_TEST

struct crc_job {
    pthread_barrier_t *go;
    const unsigned char *p;
    size_t len;
    uint32_t got;
};

static void *crc_thread(void *arg)
{
    struct crc_job *j = arg;

    pthread_barrier_wait(j->go);
    j->got = pt2_crc32(0, j->p, j->len);
    return NULL;
}

/* Eight threads whose first calls race for the one-time choice (each test is a fresh
 * process under CK_FORK, so nothing was chosen before). */
START_TEST(test_threads)
{
    enum { NT = 8 };
    size_t len = 256u * 1024u;
    unsigned char *b = random_buf(len + 64u * NT);
    pthread_barrier_t go;
    pthread_t th[NT];
    struct crc_job job[NT];
    int i;

    ck_assert_int_eq(pthread_barrier_init(&go, NULL, NT), 0);
    for (i = 0; i < NT; i++) {
        job[i].go = &go;
        job[i].p = b + 3 * i;
        job[i].len = len + 7u * (size_t)i;
        ck_assert_int_eq(pthread_create(&th[i], NULL, crc_thread, &job[i]), 0);
    }
    for (i = 0; i < NT; i++) {
        ck_assert_int_eq(pthread_join(th[i], NULL), 0);
        expect("pt2_crc32 thread", job[i].got, zlib_crc(0, job[i].p, job[i].len), 0, job[i].len,
               (size_t)(3 * i));
    }
    pthread_barrier_destroy(&go);
    free(b);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("crc32");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_check_value);
    tcase_add_test(tc, test_empty);
    tcase_add_test(tc, test_every_length);
    tcase_add_test(tc, test_random_lengths);
    tcase_add_test(tc, test_uniform);
    tcase_add_test(tc, test_continue);
    tcase_add_test(tc, test_portable);
    tcase_add_test(tc, test_threads);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run_suite(suite());
}
