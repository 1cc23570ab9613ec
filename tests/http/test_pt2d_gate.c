/*
 * test_pt2d_gate.c - the job gate of test builds: a job waits while the
 * gate is closed and goes on once it opens (in-process or by a file), the
 * waiting count the tests synchronise on, and the file name checks.
 */
#include <check.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pt2d_gate.h"
#include "testutil.h"

struct waiter {
    struct pt2d_gate *gate;
    int opened; /* pt2d_gate_wait's answer */
    pthread_t tid;
};

static void *waiter_run(void *arg)
{
    struct waiter *w = arg;

    w->opened = pt2d_gate_wait(w->gate);
    return NULL;
}

START_TEST(test_in_process_gate_holds_until_opened)
{
    struct pt2d_gate g;
    struct waiter w[2] = {{&g, -1, 0}, {&g, -1, 0}};
    int i;

    pt2d_gate_init(&g);
    ck_assert_uint_eq(pt2d_gate_waiting(&g), 0);
    ck_assert_int_eq(pt2d_gate_await_waiting(&g, 1, 10), 0); /* nobody there: times out */
    for (i = 0; i < 2; i++)
        ck_assert_int_eq(pthread_create(&w[i].tid, NULL, waiter_run, &w[i]), 0);
    ck_assert_int_eq(pt2d_gate_await_waiting(&g, 2, 10000), 1);
    ck_assert_uint_eq(pt2d_gate_waiting(&g), 2);
    pt2d_gate_open(&g);
    for (i = 0; i < 2; i++) {
        pthread_join(w[i].tid, NULL);
        ck_assert_int_eq(w[i].opened, 1);
    }
    ck_assert_uint_eq(pt2d_gate_waiting(&g), 0);
    /* Open stays open: a later job does not stop. */
    ck_assert_int_eq(pt2d_gate_wait(&g), 1);
    ck_assert_uint_eq(pt2d_gate_waiting(&g), 0);
    pt2d_gate_destroy(&g);
}
END_TEST

START_TEST(test_file_gate_opens_when_the_file_exists)
{
    struct pt2_error err = {0};
    struct pt2d_gate g;
    struct waiter w = {&g, -1, 0};
    char dir[64], file[96];
    int fd;

    snprintf(dir, sizeof(dir), "/tmp/pt2d-gate-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(file, sizeof(file), "%s/open", dir);
    ck_assert_int_eq(pt2d_gate_init_file(&g, file, &err), PT2_OK);
    ck_assert_str_eq(g.file, file);
    ck_assert_int_eq(pthread_create(&w.tid, NULL, waiter_run, &w), 0);
    ck_assert_int_eq(pt2d_gate_await_waiting(&g, 1, 10000), 1);
    ck_assert_int_eq(w.opened, -1); /* still held: the file is not there */
    fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    ck_assert_int_ge(fd, 0);
    close(fd);
    pthread_join(w.tid, NULL);
    ck_assert_int_eq(w.opened, 1);
    ck_assert_uint_eq(pt2d_gate_waiting(&g), 0);
    /* Once seen, the gate stays open even when the file goes. */
    unlink(file);
    ck_assert_int_eq(pt2d_gate_wait(&g), 1);
    pt2d_gate_destroy(&g);
    rmdir(dir);
}
END_TEST

START_TEST(test_file_name_checks)
{
    struct pt2_error err = {0};
    struct pt2d_gate g;
    char longname[PT2D_PATH_MAX + 8];

    ck_assert_int_eq(pt2d_gate_init_file(&g, "", &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "test gate: the file name is empty or longer than 4095 bytes");
    memset(longname, 'a', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    ck_assert_int_eq(pt2d_gate_init_file(&g, longname, &err), PT2_ERR_INVALID);
    ck_assert_int_eq(pt2d_gate_init_file(&g, NULL, &err), PT2_ERR_INVALID);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pt2d_gate");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_in_process_gate_holds_until_opened);
    tcase_add_test(tc, test_file_gate_opens_when_the_file_exists);
    tcase_add_test(tc, test_file_name_checks);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
