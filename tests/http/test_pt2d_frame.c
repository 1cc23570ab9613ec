/*
 * test_pt2d_frame.c - header lines RFC 9112 refuses, as libmicrohttpd lays
 * them out: names and values in place in one buffer, a folded name copied
 * elsewhere in the same pool (what 0.9.75 does; the daemon-level check
 * against the real library is tests/shell/hostile2.sh).
 */
#include <check.h>
#include <string.h>

#include "pt2d_frame.h"
#include "testutil.h"

/* One arena, like MHD's connection pool: the read buffer first, copies after. */
static char pool[1024];

/* "name:<ws>value" laid out in place at `at`: returns the value, *key the name. */
static const char *in_place(size_t at, const char *name, const char *ws, const char *value,
                            const char **key)
{
    size_t n = strlen(name), w = strlen(ws);

    memcpy(pool + at, name, n);
    pool[at + n] = '\0'; /* the colon's place */
    memcpy(pool + at + n + 1, ws, w);
    memcpy(pool + at + n + 1 + w, value, strlen(value) + 1);
    *key = pool + at;
    return pool + at + n + 1 + w;
}

START_TEST(test_sound_lines_pass)
{
    const char *key, *value;

    value = in_place(0, "Content-Length", " ", "28", &key);
    ck_assert_ptr_null(pt2d_frame_header_problem(key, value));
    value = in_place(40, "Transfer-Encoding", "", "chunked", &key);
    ck_assert_ptr_null(pt2d_frame_header_problem(key, value));
    value = in_place(80, "X-Empty", " \t ", "", &key);
    ck_assert_ptr_null(pt2d_frame_header_problem(key, value));
    value = in_place(120, "x!#$%&'*+-.^_`|~9", " ", "v", &key);
    ck_assert_ptr_null(pt2d_frame_header_problem(key, value));
}
END_TEST

START_TEST(test_space_before_colon)
{
    const char *key, *value;
    const char *want =
        "whitespace between a header field name and its colon (RFC 9112 section 5.1)";

    value = in_place(0, "Transfer-Encoding ", " ", "chunked", &key);
    ck_assert_str_eq(pt2d_frame_header_problem(key, value), want);
    value = in_place(60, "Content-Length\t", " ", "5", &key);
    ck_assert_str_eq(pt2d_frame_header_problem(key, value), want);
    value = in_place(100, " Host", " ", "x", &key);
    ck_assert_str_eq(pt2d_frame_header_problem(key, value), want);
}
END_TEST

START_TEST(test_obs_fold)
{
    const char *key, *value;
    const char *want = "an obs-folded header line (RFC 9112 section 5.2)";
    char *copy = pool + 600;

    /* "Transfer-Encoding:\r\n chunked": the value is empty in place, the name grew in a copy. */
    value = in_place(0, "Transfer-Encoding", "", "", &key);
    strcpy(copy, "Transfer-Encodingchunked");
    ck_assert_str_eq(pt2d_frame_header_problem(copy, value), want);
    /* "X-A: 1\r\n\tfold" */
    value = in_place(40, "X-A", " ", "1", &key);
    strcpy(copy, "X-Afold");
    ck_assert_str_eq(pt2d_frame_header_problem(copy, value), want);
    /* A copy that happens to sit before its value, with other bytes between. */
    value = in_place(300, "Content-Length", "", "", &key);
    strcpy(pool + 200, "Content-Length5");
    ck_assert_str_eq(pt2d_frame_header_problem(pool + 200, value), want);
}
END_TEST

START_TEST(test_other_names)
{
    const char *key, *value;

    value = in_place(0, "X(y)", " ", "1", &key);
    ck_assert_str_eq(pt2d_frame_header_problem(key, value),
                     "a header field name with a character outside the RFC 9110 token set");
    value = in_place(20, "", " ", "1", &key);
    ck_assert_str_eq(pt2d_frame_header_problem(key, value), "a header line without a field name");
}
END_TEST

static Suite *frame_suite(void)
{
    Suite *s = suite_create("pt2d_frame");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_sound_lines_pass);
    tcase_add_test(tc, test_space_before_colon);
    tcase_add_test(tc, test_obs_fold);
    tcase_add_test(tc, test_other_names);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run_suite(frame_suite());
}
