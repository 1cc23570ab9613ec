/*
 * test_pt2d_listen.c - the listening socket: ephemeral port, address text,
 * the flags MHD needs, and a port already in use.
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pt2d_listen.h"
#include "testutil.h"

START_TEST(test_ephemeral_ipv4)
{
    struct pt2d_listener l;
    char want[64];

    ck_assert_int_eq(pt2d_listen_open("127.0.0.1", 0, &l, NULL), PT2_OK);
    ck_assert_int_eq(l.family, AF_INET);
    ck_assert_uint_gt(l.port, 0);
    snprintf(want, sizeof(want), "127.0.0.1:%u", (unsigned)l.port);
    ck_assert_str_eq(l.address, want);
    ck_assert(fcntl(l.fd, F_GETFL) & O_NONBLOCK);
    ck_assert(fcntl(l.fd, F_GETFD) & FD_CLOEXEC);
    close(l.fd);
}
END_TEST

START_TEST(test_port_in_use)
{
    struct pt2_error err = {0};
    struct pt2d_listener a, b;
    char want[128];

    ck_assert_int_eq(pt2d_listen_open("127.0.0.1", 0, &a, NULL), PT2_OK);
    ck_assert_int_eq(pt2d_listen_open("127.0.0.1", a.port, &b, &err), PT2_ERR_IO);
    ck_assert_int_eq(b.fd, -1);
    snprintf(want, sizeof(want), "listen: cannot listen on 127.0.0.1:%u: Address already in use",
             (unsigned)a.port);
    ck_assert_str_eq(err.message, want);
    close(a.fd);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pt2d_listen");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_ephemeral_ipv4);
    tcase_add_test(tc, test_port_in_use);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
