/*
 * test_pt2d_spool.c - anonymous spool files: nothing visible in the
 * directory, the cap, bytes kept exactly as written in any pieces, and
 * failure on a bad directory. (No digest: an upload is keyed by what its
 * inspection read, see test_pt2d_job.c.)
 */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pt2d_spool.h"
#include "testutil.h"

static char dir[64];

static int entries(void)
{
    char cmd[128];

    snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A '%s')\"", dir);
    return system(cmd) == 0 ? 0 : 1;
}

static void setup(void)
{
    snprintf(dir, sizeof(dir), "/tmp/pt2d-spool-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
    rmdir(dir);
}

/* Spool `len` bytes in writes of `step` bytes, then read them back whole: the same bytes. */
static void spool_pieces(const char *data, size_t len, size_t step)
{
    struct pt2d_spool *s;
    char *back = malloc(len + 1);
    size_t off = 0;

    ck_assert_ptr_nonnull(back);
    ck_assert_int_eq(pt2d_spool_open(&s, dir, len, NULL), PT2_OK);
    while (off < len) {
        size_t n = len - off < step ? len - off : step;
        ck_assert_int_eq(pt2d_spool_write(s, data + off, n, NULL), PT2_OK);
        off += n;
    }
    ck_assert_uint_eq(pt2d_spool_size(s), len);
    pt2d_spool_finish(s);
    ck_assert_int_eq(pread(pt2d_spool_fd(s), back, len + 1, 0), (ssize_t)len);
    ck_assert_int_eq(memcmp(back, data, len), 0);
    pt2d_spool_free(s);
    free(back);
}

START_TEST(test_write_and_read_back)
{
    struct pt2d_spool *s;
    char back[4];

    ck_assert_int_eq(pt2d_spool_open(&s, dir, 100, NULL), PT2_OK);
    ck_assert_int_eq(entries(), 0);
    ck_assert_int_eq(pt2d_spool_write(s, "a", 1, NULL), PT2_OK);
    ck_assert_int_eq(pt2d_spool_write(s, "bc", 2, NULL), PT2_OK);
    ck_assert_uint_eq(pt2d_spool_size(s), 3);
    pt2d_spool_finish(s);
    ck_assert_int_eq(pread(pt2d_spool_fd(s), back, 3, 0), 3);
    ck_assert_int_eq(memcmp(back, "abc", 3), 0);
    ck_assert_int_eq(pt2d_spool_write(s, "d", 1, NULL), PT2_ERR_INTERNAL);
    ck_assert_int_eq(entries(), 0);
    pt2d_spool_free(s);
    pt2d_spool_free(NULL);
}
END_TEST

/* Uploads arrive in whatever pieces libmicrohttpd hands over. */
START_TEST(test_pieces)
{
    size_t million = 1000000;
    char *a = malloc(million);

    ck_assert_ptr_nonnull(a);
    for (size_t i = 0; i < million; i++)
        a[i] = (char)(i * 7 + i / 251);
    spool_pieces("", 0, 1);
    spool_pieces(a, 55, 3);
    spool_pieces(a, million, 997);
    spool_pieces(a, 4096 * 3 + 1, 4096);
    free(a);
}
END_TEST

START_TEST(test_cap)
{
    struct pt2_error err = {0};
    struct pt2d_spool *s;

    ck_assert_int_eq(pt2d_spool_open(&s, dir, 4, NULL), PT2_OK);
    ck_assert_int_eq(pt2d_spool_write(s, "abcd", 4, &err), PT2_OK);
    ck_assert_int_eq(pt2d_spool_write(s, "e", 1, &err), PT2_ERR_TOO_LARGE);
    ck_assert_str_eq(err.message, "upload exceeds the 4-byte limit");
    ck_assert_uint_eq(pt2d_spool_size(s), 4);
    pt2d_spool_free(s);
}
END_TEST

START_TEST(test_bad_dir)
{
    struct pt2_error err = {0};
    struct pt2d_spool *s;

    ck_assert_int_eq(pt2d_spool_open(&s, "/nonexistent-spool-dir", 4, &err), PT2_ERR_IO);
    ck_assert_ptr_null(s);
    ck_assert_str_eq(err.message, "spool: cannot create a file in /nonexistent-spool-dir: No "
                                  "such file or directory");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pt2d_spool");
    TCase *tc = tcase_create("core");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_write_and_read_back);
    tcase_add_test(tc, test_pieces);
    tcase_add_test(tc, test_cap);
    tcase_add_test(tc, test_bad_dir);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
