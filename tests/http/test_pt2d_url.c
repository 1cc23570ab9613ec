/*
 * test_pt2d_url.c - peer and origin URLs through libcurl's URL API.
 */
#include <check.h>
#include <string.h>

#include "pt2d_url.h"
#include "testutil.h"

START_TEST(test_peers)
{
    static const char *const good[] = {"http://10.0.0.7:8080", "https://peer.example",
                                       "http://[::1]:8080", "http://node-1.svc/prefix"};
    static const char *const bad[] = {"ftp://x",           "http://",       "10.0.0.7:8080",
                                      "http://u:p@x",      "http://x/?q=1", "http://x/#f",
                                      "http://x y",        "http://x\\x7f", "",
                                      "file:///etc/passwd"};
    size_t i;

    for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        ck_assert_msg(pt2d_url_ok(good[i], PT2D_URL_PEER), "%s refused", good[i]);
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ck_assert_msg(!pt2d_url_ok(bad[i], PT2D_URL_PEER), "%s accepted", bad[i]);
    ck_assert(!pt2d_url_ok(NULL, PT2D_URL_PEER));
}
END_TEST

START_TEST(test_origins)
{
    char longurl[300];

    ck_assert(pt2d_url_ok("https://ui.example", PT2D_URL_ORIGIN));
    ck_assert(pt2d_url_ok("http://localhost:3000", PT2D_URL_ORIGIN));
    /* What browsers send in Origin has no path, not even "/". */
    ck_assert(!pt2d_url_ok("https://ui.example/", PT2D_URL_ORIGIN));
    ck_assert(!pt2d_url_ok("https://ui.example/app", PT2D_URL_ORIGIN));
    ck_assert(!pt2d_url_ok("ui.example", PT2D_URL_ORIGIN));
    memset(longurl, 'a', sizeof(longurl) - 1);
    memcpy(longurl, "http://", 7);
    longurl[sizeof(longurl) - 1] = '\0';
    ck_assert(!pt2d_url_ok(longurl, PT2D_URL_ORIGIN));
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("pt2d_url");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_peers);
    tcase_add_test(tc, test_origins);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run_suite(suite());
}
