/*
 * test_pt2d_cache.c - LRU order, capacity, replacement, statistics, shared
 * references outliving eviction (run under ASan to catch double frees).
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "pt2d_cache.h"
#include "testutil.h"

START_TEST(test_lru_eviction)
{
    struct pt2d_cache *c;
    struct pt2d_cache_stats st;
    struct pt2d_pkgref *a = pt2d_pkgref_new(NULL), *b = pt2d_pkgref_new(NULL),
                       *d = pt2d_pkgref_new(NULL), *got;

    ck_assert_int_eq(pt2d_cache_create(&c, 2, 0, NULL), PT2_OK);
    pt2d_cache_put(c, "a", a);
    pt2d_cache_put(c, "b", b);
    got = pt2d_cache_get(c, "a"); /* a is now the most recent */
    ck_assert_ptr_eq(got, a);
    pt2d_pkgref_release(got);
    pt2d_cache_put(c, "d", d); /* evicts b */
    ck_assert_ptr_null(pt2d_cache_get(c, "b"));
    got = pt2d_cache_get(c, "a");
    ck_assert_ptr_eq(got, a);
    pt2d_pkgref_release(got);
    got = pt2d_cache_get(c, "d");
    ck_assert_ptr_eq(got, d);
    pt2d_pkgref_release(got);
    pt2d_cache_stats(c, &st);
    ck_assert_uint_eq(st.hits, 3);
    ck_assert_uint_eq(st.misses, 1);
    ck_assert_uint_eq(st.entries, 2);
    ck_assert_uint_eq(st.capacity, 2);
    pt2d_pkgref_release(a);
    pt2d_pkgref_release(b);
    pt2d_pkgref_release(d);
    pt2d_cache_free(c);
}
END_TEST

START_TEST(test_replace_and_long_keys)
{
    struct pt2d_cache *c;
    struct pt2d_cache_stats st;
    struct pt2d_pkgref *a = pt2d_pkgref_new(NULL), *b = pt2d_pkgref_new(NULL), *got;
    char longkey[PT2D_CACHE_KEY_MAX + 10];

    ck_assert_int_eq(pt2d_cache_create(&c, 4, 0, NULL), PT2_OK);
    pt2d_cache_put(c, "k", a);
    pt2d_cache_put(c, "k", b);
    got = pt2d_cache_get(c, "k");
    ck_assert_ptr_eq(got, b);
    pt2d_pkgref_release(got);
    memset(longkey, 'x', sizeof(longkey) - 1);
    longkey[sizeof(longkey) - 1] = '\0';
    pt2d_cache_put(c, longkey, a);
    ck_assert_ptr_null(pt2d_cache_get(c, longkey));
    pt2d_cache_stats(c, &st);
    ck_assert_uint_eq(st.entries, 1);
    pt2d_pkgref_release(a);
    pt2d_pkgref_release(b);
    pt2d_cache_free(c);
}
END_TEST

START_TEST(test_zero_capacity_and_limits)
{
    struct pt2d_cache *c;
    struct pt2_error err = {0};
    struct pt2d_pkgref *a = pt2d_pkgref_new(NULL);

    ck_assert_int_eq(pt2d_cache_create(&c, 0, 0, NULL), PT2_OK);
    pt2d_cache_put(c, "a", a);
    ck_assert_ptr_null(pt2d_cache_get(c, "a"));
    pt2d_cache_free(c);
    pt2d_pkgref_release(a);
    ck_assert_int_eq(pt2d_cache_create(&c, PT2D_CACHE_MAX_ENTRIES + 1, 0, &err), PT2_ERR_INVALID);
    ck_assert_ptr_null(c);
    ck_assert_str_eq(err.message, "cache: 1000001 entries exceeds the limit 1000000");
    pt2d_cache_free(NULL);
    pt2d_pkgref_release(NULL);
}
END_TEST

/* Many keys through a small cache: chains and the recency list stay consistent. */
START_TEST(test_churn)
{
    struct pt2d_cache *c;
    struct pt2d_cache_stats st;
    char key[32];
    int i;

    ck_assert_int_eq(pt2d_cache_create(&c, 7, 0, NULL), PT2_OK);
    for (i = 0; i < 1000; i++) {
        struct pt2d_pkgref *r = pt2d_pkgref_new(NULL), *got;
        snprintf(key, sizeof(key), "key-%d", i % 23);
        got = pt2d_cache_get(c, key);
        if (got == NULL)
            pt2d_cache_put(c, key, r);
        pt2d_pkgref_release(got);
        pt2d_pkgref_release(r);
    }
    pt2d_cache_stats(c, &st);
    ck_assert_uint_eq(st.entries, 7);
    ck_assert_uint_eq(st.hits + st.misses, 1000);
    pt2d_cache_free(c);
}
END_TEST

/* A reference handed out survives eviction and cache destruction. */
START_TEST(test_reference_outlives_cache)
{
    struct pt2_error err = {0};
    struct pt2d_cache *c;
    struct pt2d_pkgref *r, *got;
    pt2_package *pkg = NULL;
    char p[256];

    if (!tu_exists(tu_fixture("cpu_x86_64.pt2", p, sizeof(p)))) {
        tu_skip("pt2d_cache", "fixture cpu_x86_64.pt2 missing");
        return;
    }
    ck_assert_int_eq(pt2_package_open_path(&pkg, p, NULL, &err), PT2_OK);
    r = pt2d_pkgref_new(pkg);
    ck_assert_int_eq(pt2d_cache_create(&c, 1, 0, NULL), PT2_OK);
    pt2d_cache_put(c, "f", r);
    pt2d_pkgref_release(r);
    got = pt2d_cache_get(c, "f");
    ck_assert_ptr_nonnull(got);
    pt2d_cache_free(c);
    ck_assert_uint_gt(pt2_package_bytes_read(pt2d_pkgref_pkg(got)), 0);
    pt2d_pkgref_release(got);
}
END_TEST

/* Memo hits share one buffer, which outlives replacement and its pkgref. */
START_TEST(test_memo_shared)
{
    struct pt2d_pkgref *r = pt2d_pkgref_new(NULL);
    char *a, *b, *c, long_etag[PT2D_MEMO_ETAG_MAX + 1];
    size_t la = 0, lb = 0, lc = 0;

    ck_assert_ptr_nonnull(r);
    ck_assert_ptr_null(pt2d_pkgref_body_get(r, "\"e1\"", &la));
    pt2d_pkgref_body_put(r, "\"e1\"", "{\"a\":1}\n", 8);
    a = pt2d_pkgref_body_get(r, "\"e1\"", &la);
    b = pt2d_pkgref_body_get(r, "\"e1\"", &lb);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_eq(a, b); /* the same bytes, not a copy */
    ck_assert_uint_eq(la, 8);
    ck_assert_uint_eq(lb, 8);
    ck_assert_str_eq(a, "{\"a\":1}\n");
    ck_assert_ptr_null(pt2d_pkgref_body_get(r, "\"e2\"", &lc));
    ck_assert_ptr_null(pt2d_pkgref_body_get(r, "", &lc));
    /* Replaced while `a` is out: `a` stays valid, new hits get the new body. */
    pt2d_pkgref_body_put(r, "\"e2\"", "{\"b\":2}\n", 8);
    ck_assert_ptr_null(pt2d_pkgref_body_get(r, "\"e1\"", &lc));
    c = pt2d_pkgref_body_get(r, "\"e2\"", &lc);
    ck_assert_str_eq(c, "{\"b\":2}\n");
    ck_assert_str_eq(a, "{\"a\":1}\n");
    /* Too long an ETag is not memoised. */
    memset(long_etag, 'x', sizeof(long_etag) - 1);
    long_etag[sizeof(long_etag) - 1] = '\0';
    pt2d_pkgref_body_put(r, long_etag, "z", 1);
    ck_assert_ptr_null(pt2d_pkgref_body_get(r, long_etag, &lc));
    pt2d_pkgref_release(r); /* the bodies handed out live on (ASan checks) */
    pt2d_pkgref_body_release(b);
    ck_assert_str_eq(a, "{\"a\":1}\n");
    ck_assert_str_eq(c, "{\"b\":2}\n");
    pt2d_pkgref_body_release(a);
    pt2d_pkgref_body_release(c);
    pt2d_pkgref_body_release(NULL);
}
END_TEST

/* One ETag per pkgref, found only by the very question it answers. */
START_TEST(test_etag_memo)
{
    struct pt2d_pkgref *r = pt2d_pkgref_new(NULL);
    char q[PT2D_MEMO_QUESTION_MAX + 1], e[PT2D_MEMO_ETAG_MAX + 1], out[PT2D_MEMO_ETAG_MAX];

    ck_assert_ptr_nonnull(r);
    strcpy(out, "untouched");
    ck_assert_int_eq(pt2d_pkgref_etag_get(r, "inspect\n3:k:1\nview=a", out, sizeof(out)), 0);
    ck_assert_str_eq(out, "untouched");
    pt2d_pkgref_etag_put(r, "inspect\n3:k:1\nview=a", "\"e1\"");
    ck_assert_int_eq(pt2d_pkgref_etag_get(r, "inspect\n3:k:1\nview=a", out, sizeof(out)), 1);
    ck_assert_str_eq(out, "\"e1\"");
    /* another question, a prefix of it, the empty one: no hit */
    ck_assert_int_eq(pt2d_pkgref_etag_get(r, "inspect\n3:k:1\nview=b", out, sizeof(out)), 0);
    ck_assert_int_eq(pt2d_pkgref_etag_get(r, "inspect\n3:k:1\nview=", out, sizeof(out)), 0);
    ck_assert_int_eq(pt2d_pkgref_etag_get(r, "", out, sizeof(out)), 0);
    /* a buffer too small for it is a miss, not a truncated ETag */
    ck_assert_int_eq(pt2d_pkgref_etag_get(r, "inspect\n3:k:1\nview=a", out, 4), 0);
    /* the next question replaces it */
    pt2d_pkgref_etag_put(r, "arch\n3:k:1\n", "\"e2\"");
    ck_assert_int_eq(pt2d_pkgref_etag_get(r, "inspect\n3:k:1\nview=a", out, sizeof(out)), 0);
    ck_assert_int_eq(pt2d_pkgref_etag_get(r, "arch\n3:k:1\n", out, sizeof(out)), 1);
    ck_assert_str_eq(out, "\"e2\"");
    /* too long a question or ETag is not kept, and leaves the memo as it was */
    memset(q, 'q', sizeof(q) - 1);
    q[sizeof(q) - 1] = '\0';
    pt2d_pkgref_etag_put(r, q, "\"e3\"");
    ck_assert_int_eq(pt2d_pkgref_etag_get(r, q, out, sizeof(out)), 0);
    memset(e, 'e', sizeof(e) - 1);
    e[sizeof(e) - 1] = '\0';
    pt2d_pkgref_etag_put(r, "inspect\n1:x\n", e);
    ck_assert_int_eq(pt2d_pkgref_etag_get(r, "inspect\n1:x\n", out, sizeof(out)), 0);
    ck_assert_int_eq(pt2d_pkgref_etag_get(r, "arch\n3:k:1\n", out, sizeof(out)), 1);
    ck_assert_str_eq(out, "\"e2\"");
    pt2d_pkgref_release(r);
}
END_TEST

static struct pt2d_pkgref *open_ref(const char *fixture)
{
    struct pt2_error err = {0};
    pt2_package *pkg = NULL;
    char p[256];

    ck_assert_int_eq(pt2_package_open_path(&pkg, tu_fixture(fixture, p, sizeof(p)), NULL, &err),
                     PT2_OK);
    return pt2d_pkgref_new(pkg);
}

/*
 * Bytes bound the cache as entries do: an entry costs its package's memory
 * plus the largest memo; the oldest go until the total fits, and a package
 * bigger than the whole bound is not kept at all.
 */
/* Failures are remembered by key, replaced oldest first, and never kept without capacity. */
START_TEST(test_failures_by_key)
{
    struct pt2d_cache *c = NULL;
    struct pt2_error e = {0}, got = {0};
    char key[64];
    int i;

    ck_assert_int_eq(pt2d_cache_create(&c, 4, 0, NULL), PT2_OK);
    ck_assert_int_eq(pt2d_cache_get_failure(c, "f:1:2:3:4:5|bad.pt2", &got), 0);
    pt2_error_set(&e, PT2_ERR_TRUNCATED, "truncated or corrupt zip");
    pt2d_cache_put_failure(c, "f:1:2:3:4:5|bad.pt2", &e);
    ck_assert_int_eq(pt2d_cache_get_failure(c, "f:1:2:3:4:5|bad.pt2", &got), 1);
    ck_assert_int_eq(got.code, PT2_ERR_TRUNCATED);
    ck_assert_str_eq(got.message, "truncated or corrupt zip");
    /* Another identity of the same name (the file changed) is not that failure. */
    ck_assert_int_eq(pt2d_cache_get_failure(c, "f:1:2:3:9:5|bad.pt2", &got), 0);
    /* PT2D_CACHE_FAILURES newer ones push the first out. */
    for (i = 0; i < PT2D_CACHE_FAILURES; i++) {
        snprintf(key, sizeof(key), "f:%d|x.pt2", i);
        pt2d_cache_put_failure(c, key, &e);
    }
    ck_assert_int_eq(pt2d_cache_get_failure(c, "f:1:2:3:4:5|bad.pt2", &got), 0);
    ck_assert_int_eq(pt2d_cache_get_failure(c, "f:0|x.pt2", &got), 1);
    pt2d_cache_free(c);
    ck_assert_int_eq(pt2d_cache_create(&c, 0, 0, NULL), PT2_OK);
    pt2d_cache_put_failure(c, "f:1|a.pt2", &e);
    ck_assert_int_eq(pt2d_cache_get_failure(c, "f:1|a.pt2", &got), 0);
    pt2d_cache_free(c);
}
END_TEST

START_TEST(test_byte_bound)
{
    struct pt2d_pkgref *small = open_ref("cpu_x86_64.pt2"),
                       *big = open_ref("cuda_fatbin_v7_lz4.pt2"),
                       *small2 = open_ref("cpu_x86_64.pt2"), *got;
    uint64_t cs = pt2d_cache_cost(small), cb = pt2d_cache_cost(big);
    struct pt2d_cache_stats st;
    struct pt2d_cache *c;

    /* The cost is the package's memory plus the memo's room: more kernels, more bytes. */
    ck_assert_uint_gt(cs, PT2D_MEMO_BODY_MAX + pt2_package_memory(NULL));
    ck_assert_uint_eq(cb - cs, pt2_package_memory(pt2d_pkgref_pkg(big)) -
                                   pt2_package_memory(pt2d_pkgref_pkg(small)));
    ck_assert_uint_gt(cb, cs);

    /* Room for the two small ones, not for a third entry. */
    ck_assert_int_eq(pt2d_cache_create(&c, 100, 2 * cs + cs / 2, NULL), PT2_OK);
    pt2d_cache_put(c, "s1", small);
    pt2d_cache_put(c, "s2", small2);
    pt2d_cache_stats(c, &st);
    ck_assert_uint_eq(st.entries, 2);
    ck_assert_uint_eq(st.bytes, 2 * cs);
    ck_assert_uint_eq(st.max_bytes, 2 * cs + cs / 2);
    pt2d_cache_put(c, "b", big); /* at least as costly: both small ones go */
    pt2d_cache_stats(c, &st);
    ck_assert_uint_eq(st.entries, cb + cs <= 2 * cs + cs / 2 ? 2 : 1);
    ck_assert_ptr_null(pt2d_cache_peek(c, "s1"));
    got = pt2d_cache_peek(c, "b");
    ck_assert_ptr_eq(got, big);
    pt2d_pkgref_release(got);
    pt2d_cache_free(c);

    /* A package costlier than the whole bound is not kept, and evicts nothing. */
    ck_assert_int_eq(pt2d_cache_create(&c, 100, cs, NULL), PT2_OK);
    pt2d_cache_put(c, "s1", small);
    pt2d_cache_put(c, "b", big);
    pt2d_cache_stats(c, &st);
    ck_assert_uint_eq(st.entries, 1);
    ck_assert_uint_eq(st.bytes, cs);
    ck_assert_ptr_null(pt2d_cache_peek(c, "b"));
    pt2d_cache_free(c);

    pt2d_pkgref_release(small);
    pt2d_pkgref_release(small2);
    pt2d_pkgref_release(big);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pt2d_cache");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_lru_eviction);
    tcase_add_test(tc, test_failures_by_key);
    tcase_add_test(tc, test_replace_and_long_keys);
    tcase_add_test(tc, test_zero_capacity_and_limits);
    tcase_add_test(tc, test_churn);
    tcase_add_test(tc, test_reference_outlives_cache);
    tcase_add_test(tc, test_memo_shared);
    tcase_add_test(tc, test_etag_memo);
    tcase_add_test(tc, test_byte_bound);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
