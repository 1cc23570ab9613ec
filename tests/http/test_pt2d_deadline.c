/*
 * test_pt2d_deadline.c - header and body deadlines: a registered socket is
 * shut down once its deadline passes, one whose request is running is not,
 * finishing the request gives it a new deadline, and a body's deadline
 * moves with the bytes received.
 */
#include <check.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pt2d_deadline.h"
#include "testutil.h"

/* 1 once the peer of `fd` sees the end of the stream (bounded by the case timeout). */
static int peer_sees_end(int peer)
{
    char c;

    return recv(peer, &c, 1, 0) == 0;
}

START_TEST(test_cut_at_the_deadline_not_while_in_request)
{
    struct pt2d_deadlines *d = NULL;
    struct pt2_error err = {0};
    struct pt2d_deadline *idle, *busy;
    int a[2], b[2];
    char c;

    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, a), 0);
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, b), 0);
    ck_assert_int_eq(pt2d_deadlines_start(&d, 1, 0, &err), PT2_OK);
    idle = pt2d_deadlines_add(d, a[0]);
    busy = pt2d_deadlines_add(d, b[0]);
    ck_assert_ptr_nonnull(idle);
    ck_assert_ptr_nonnull(busy);
    pt2d_deadlines_in_request(d, busy, 1);

    /* Same deadline, one watchdog pass: the idle one is cut, the busy one is not. */
    ck_assert(peer_sees_end(a[1]));
    ck_assert_uint_eq(pt2d_deadlines_cut(d), 1);
    ck_assert_int_eq(send(b[1], "x", 1, MSG_NOSIGNAL), 1);
    ck_assert_int_eq(recv(b[0], &c, 1, 0), 1); /* still open both ways */

    /* Its request done, it has a deadline again. */
    pt2d_deadlines_in_request(d, busy, 0);
    ck_assert(peer_sees_end(b[1]));
    ck_assert_uint_eq(pt2d_deadlines_cut(d), 2);

    pt2d_deadlines_remove(d, idle);
    pt2d_deadlines_remove(d, busy);
    pt2d_deadlines_remove(d, NULL);
    pt2d_deadlines_stop(d);
    close(a[0]);
    close(a[1]);
    close(b[0]);
    close(b[1]);
}
END_TEST

/* A body's deadline moves with what arrived: a usable pace is never cut, a trickle is. */
START_TEST(test_body_deadline_follows_the_bytes)
{
    struct pt2d_deadlines *d = NULL;
    struct pt2_error err = {0};
    struct pt2d_deadline *slow, *fast;
    int a[2], b[2];
    char c;

    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, a), 0);
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, b), 0);
    ck_assert_int_eq(pt2d_deadlines_start(&d, 1, 0, &err), PT2_OK);
    slow = pt2d_deadlines_add(d, a[0]);
    fast = pt2d_deadlines_add(d, b[0]);
    pt2d_deadlines_body(d, slow, 10);                          /* 1 s + 0 s */
    pt2d_deadlines_body(d, fast, 600ull * PT2D_BODY_MIN_RATE); /* 1 s + 600 s */
    ck_assert(peer_sees_end(a[1]));
    ck_assert_uint_eq(pt2d_deadlines_cut(d), 1);
    ck_assert_int_eq(send(b[1], "x", 1, MSG_NOSIGNAL), 1);
    ck_assert_int_eq(recv(b[0], &c, 1, 0), 1);
    pt2d_deadlines_remove(d, slow);
    pt2d_deadlines_remove(d, fast);
    pt2d_deadlines_stop(d);
    close(a[0]);
    close(a[1]);
    close(b[0]);
    close(b[1]);
}
END_TEST

START_TEST(test_zero_seconds_is_no_deadline)
{
    struct pt2d_deadlines *d = (struct pt2d_deadlines *)1;
    struct pt2_error err = {0};

    ck_assert_int_eq(pt2d_deadlines_start(&d, 0, 0, &err), PT2_OK);
    ck_assert_ptr_null(d);
    ck_assert_ptr_null(pt2d_deadlines_add(d, 0));
    pt2d_deadlines_in_request(d, NULL, 1);
    ck_assert_uint_eq(pt2d_deadlines_cut(d), 0);
    pt2d_deadlines_stop(NULL);
}
END_TEST

/* A full header-phase budget cuts its oldest member for a newcomer, never a running request. */
START_TEST(test_budget_cuts_the_oldest_in_headers)
{
    struct pt2d_deadlines *d = NULL;
    struct pt2_error err = {0};
    struct pt2d_deadline *e[4];
    int p[4][2], i;
    char c;

    for (i = 0; i < 4; i++)
        ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, p[i]), 0);
    /* No deadline (no watchdog): the budget alone. */
    ck_assert_int_eq(pt2d_deadlines_start(&d, 0, 2, &err), PT2_OK);
    ck_assert_ptr_nonnull(d);
    e[0] = pt2d_deadlines_add(d, p[0][0]); /* oldest, but its headers come in: running */
    e[1] = pt2d_deadlines_add(d, p[1][0]);
    pt2d_deadlines_in_request(d, e[0], 1);
    e[2] = pt2d_deadlines_add(d, p[2][0]); /* 1 and 2 in headers: full */
    ck_assert_uint_eq(pt2d_deadlines_budget_cut(d), 0);
    e[3] = pt2d_deadlines_add(d, p[3][0]); /* cuts 1, the oldest in its headers */
    ck_assert_uint_eq(pt2d_deadlines_budget_cut(d), 1);
    ck_assert(peer_sees_end(p[1][1]));
    ck_assert_int_eq(send(p[0][1], "x", 1, MSG_DONTWAIT), 1); /* the running one is untouched */
    ck_assert_int_eq(recv(p[0][0], &c, 1, MSG_DONTWAIT), 1);
    ck_assert_int_eq(recv(p[2][1], &c, 1, MSG_DONTWAIT), -1); /* 2 is open: nothing, no EOF */
    /* The first request is done: it waits for its next headers, and is now the oldest. */
    pt2d_deadlines_remove(d, e[1]);
    pt2d_deadlines_in_request(d, e[0], 0);
    pt2d_deadlines_remove(d, e[3]);
    e[3] = pt2d_deadlines_add(d, p[3][0]);
    ck_assert_uint_eq(pt2d_deadlines_budget_cut(d), 2);
    ck_assert(peer_sees_end(p[0][1]));
    ck_assert_uint_eq(pt2d_deadlines_cut(d), 0); /* no deadline ever passed */
    pt2d_deadlines_remove(d, e[0]);
    pt2d_deadlines_remove(d, e[2]);
    pt2d_deadlines_remove(d, e[3]);
    pt2d_deadlines_stop(d);
    for (i = 0; i < 4; i++) {
        close(p[i][0]);
        close(p[i][1]);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pt2d_deadline");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_cut_at_the_deadline_not_while_in_request);
    tcase_add_test(tc, test_body_deadline_follows_the_bytes);
    tcase_add_test(tc, test_zero_seconds_is_no_deadline);
    tcase_add_test(tc, test_budget_cuts_the_oldest_in_headers);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
