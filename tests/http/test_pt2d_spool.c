/*
 * test_pt2d_spool.c - anonymous spool files: nothing visible in the
 * directory, bytes kept as written at their offsets, closed when freed, and
 * failure on a bad directory. (What an upload keeps there: test_upload.c.)
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

/* The file pt2_upload writes past its memory: nameless, written and read at offsets. */
START_TEST(test_write_and_read_back)
{
    struct pt2d_spool *s;
    char back[4];
    int fd;

    ck_assert_int_eq(pt2d_spool_open(&s, dir, NULL), PT2_OK);
    ck_assert_int_eq(entries(), 0);
    fd = pt2d_spool_fd(s);
    ck_assert_int_eq(pwrite(fd, "bc", 2, 1), 2);
    ck_assert_int_eq(pwrite(fd, "a", 1, 0), 1);
    ck_assert_int_eq(pread(fd, back, 4, 0), 3);
    ck_assert_int_eq(memcmp(back, "abc", 3), 0);
    ck_assert_int_eq(entries(), 0);
    pt2d_spool_free(s);
    pt2d_spool_free(NULL);
}
END_TEST

/* Freeing closes the descriptor: nothing is left open or on disk. */
START_TEST(test_free_closes)
{
    struct pt2d_spool *s;
    int fd;

    ck_assert_int_eq(pt2d_spool_open(&s, dir, NULL), PT2_OK);
    fd = pt2d_spool_fd(s);
    ck_assert_int_ge(fd, 0);
    pt2d_spool_free(s);
    ck_assert_int_eq(pwrite(fd, "x", 1, 0), -1);
    ck_assert_int_eq(entries(), 0);
    ck_assert_int_eq(pt2d_spool_check(dir, NULL), PT2_OK);
    ck_assert_int_eq(entries(), 0);
}
END_TEST

START_TEST(test_bad_dir)
{
    struct pt2_error err = {0};
    struct pt2d_spool *s;

    ck_assert_int_eq(pt2d_spool_open(&s, "/nonexistent-spool-dir", &err), PT2_ERR_IO);
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
    tcase_add_test(tc, test_free_closes);
    tcase_add_test(tc, test_bad_dir);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
