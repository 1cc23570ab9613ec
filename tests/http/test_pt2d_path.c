/*
 * test_pt2d_path.c - model-root confinement: lexical refusals, symlinks in
 * and out, several roots, non-regular files, and the opened descriptor.
 */
#include <check.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pt2d_path.h"
#include "pt2d_problem.h"
#include "testutil.h"

static char base[256], r1[300], r2[300], outside[300];
static const char *roots[2];

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static void setup(void)
{
    char tmpl[] = "/tmp/pt2d-path-XXXXXX", p[400], real[PATH_MAX];

    ck_assert_ptr_nonnull(mkdtemp(tmpl));
    ck_assert_ptr_nonnull(realpath(tmpl, real));
    ck_assert_uint_lt(strlen(real), sizeof(base));
    memcpy(base, real, strlen(real) + 1);
    snprintf(r1, sizeof(r1), "%s/r1", base);
    snprintf(r2, sizeof(r2), "%s/r2", base);
    snprintf(outside, sizeof(outside), "%s/secret.pt2", base);
    mkdir(r1, 0700);
    mkdir(r2, 0700);
    put(outside, "secret");
    snprintf(p, sizeof(p), "%s/a.pt2", r1);
    put(p, "one");
    snprintf(p, sizeof(p), "%s/a.pt2", r2);
    put(p, "two");
    snprintf(p, sizeof(p), "%s/b.pt2", r2);
    put(p, "bee");
    snprintf(p, sizeof(p), "%s/d", r1);
    mkdir(p, 0700);
    snprintf(p, sizeof(p), "%s/d/c.pt2", r1);
    put(p, "see");
    snprintf(p, sizeof(p), "%s/in.pt2", r1);
    ck_assert_int_eq(symlink("d/c.pt2", p), 0);
    snprintf(p, sizeof(p), "%s/out.pt2", r1);
    ck_assert_int_eq(symlink(outside, p), 0);
    snprintf(p, sizeof(p), "%s/rel-out.pt2", r1);
    ck_assert_int_eq(symlink("../secret.pt2", p), 0);
    snprintf(p, sizeof(p), "%s/to-r2", r1);
    ck_assert_int_eq(symlink(r2, p), 0);
    snprintf(p, sizeof(p), "%s/loop", r1);
    ck_assert_int_eq(symlink("loop", p), 0);
    roots[0] = r1;
    roots[1] = r2;
}

static void teardown(void)
{
    char cmd[300];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
    ck_assert_int_eq(system(cmd), 0);
}

/* On success `content` becomes "<first bytes>|<name>". */
static int try_open(const char *rel, size_t nroots, struct pt2_error *err, char *content)
{
    struct pt2d_path_file pf;
    char head[16];
    int rc;

    pt2_error_clear(err);
    rc = pt2d_path_open(roots, nroots, rel, &pf, err);
    if (rc == PT2_OK) {
        ssize_t n = pread(pf.fd, head, sizeof(head) - 1, 0);
        ck_assert_int_ge(n, 0);
        head[n] = '\0';
        ck_assert(S_ISREG(pf.st.st_mode));
        ck_assert_int_eq(fcntl(pf.fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
        close(pf.fd);
        snprintf(content, 64, "%s|%.32s", head, pf.name);
    } else {
        ck_assert_int_eq(pf.fd, -1);
    }
    return rc;
}

START_TEST(test_open_inside)
{
    struct pt2_error err;
    char c[64];

    ck_assert_int_eq(try_open("a.pt2", 2, &err, c), PT2_OK);
    ck_assert_str_eq(c, "one|a.pt2"); /* first root wins */
    ck_assert_int_eq(try_open("b.pt2", 2, &err, c), PT2_OK);
    ck_assert_str_eq(c, "bee|b.pt2");
    ck_assert_int_eq(try_open("d/c.pt2", 2, &err, c), PT2_OK);
    ck_assert_str_eq(c, "see|c.pt2");
    ck_assert_int_eq(try_open("./d//c.pt2", 2, &err, c), PT2_OK);
    ck_assert_int_eq(try_open("in.pt2", 2, &err, c), PT2_OK);
    ck_assert_str_eq(c, "see|in.pt2");
}
END_TEST

START_TEST(test_refusals)
{
    struct pt2_error err;
    char c[64];

    ck_assert_int_eq(try_open("../secret.pt2", 2, &err, c), PT2D_ERR_OUTSIDE_ROOT);
    ck_assert_str_eq(err.message,
                     "path '../secret.pt2' contains '..'; it must stay inside a model root");
    ck_assert_int_eq(try_open("d/..", 2, &err, c), PT2D_ERR_OUTSIDE_ROOT);
    ck_assert_int_eq(try_open("/etc/hostname", 2, &err, c), PT2D_ERR_OUTSIDE_ROOT);
    ck_assert_str_eq(err.message,
                     "path '/etc/hostname' is absolute; name a file relative to a model root");
    ck_assert_int_eq(try_open("out.pt2", 2, &err, c), PT2D_ERR_OUTSIDE_ROOT);
    ck_assert_str_eq(err.message, "path 'out.pt2' resolves outside its model root");
    ck_assert_int_eq(try_open("rel-out.pt2", 2, &err, c), PT2D_ERR_OUTSIDE_ROOT);
    /* Into another root is still out of this one. */
    ck_assert_int_eq(try_open("to-r2/b.pt2", 2, &err, c), PT2D_ERR_OUTSIDE_ROOT);
    ck_assert_int_eq(try_open("", 2, &err, c), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "path is empty");
    ck_assert_int_eq(try_open("loop", 2, &err, c), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "path 'loop': too many symlinks");
    ck_assert_int_eq(try_open("a.pt2", 0, &err, c), PT2D_ERR_OUTSIDE_ROOT);
    ck_assert_str_eq(err.message, "path references are disabled: no --model-root is configured");
}
END_TEST

START_TEST(test_missing_and_not_regular)
{
    struct pt2_error err;
    char c[64], p[400];

    ck_assert_int_eq(try_open("nope.pt2", 2, &err, c), PT2_ERR_NOT_FOUND);
    ck_assert_str_eq(err.message, "no package 'nope.pt2' under any model root");
    ck_assert_int_eq(try_open("a.pt2/x", 2, &err, c), PT2_ERR_NOT_FOUND);
    ck_assert_int_eq(try_open("d", 2, &err, c), PT2_ERR_NOT_FOUND);
    ck_assert_str_eq(err.message, "'d' is not a regular file");
    snprintf(p, sizeof(p), "%s/fifo.pt2", r1);
    ck_assert_int_eq(mkfifo(p, 0600), 0);
    ck_assert_int_eq(try_open("fifo.pt2", 2, &err, c), PT2_ERR_NOT_FOUND);
    ck_assert_str_eq(err.message, "'fifo.pt2' is not a regular file");
}
END_TEST

START_TEST(test_too_long)
{
    struct pt2_error err;
    char *p = malloc(PT2D_PATH_MAX + 1), c[64];

    memset(p, 'a', PT2D_PATH_MAX);
    p[PT2D_PATH_MAX] = '\0';
    ck_assert_int_eq(try_open(p, 2, &err, c), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "path is longer than 4095 bytes");
    free(p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pt2d_path");
    TCase *tc = tcase_create("core");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_open_inside);
    tcase_add_test(tc, test_refusals);
    tcase_add_test(tc, test_missing_and_not_regular);
    tcase_add_test(tc, test_too_long);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
