/*
 * test_pt2d_problem.c - the status -> problem table and the document.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "pt2d_problem.h"
#include "testutil.h"

START_TEST(test_table)
{
    static const struct {
        int code;
        unsigned status;
        const char *slug;
    } want[] = {
        {PT2_ERR_NOT_ZIP, 422, "not-a-zip"},
        {PT2_ERR_TRUNCATED, 422, "truncated"},
        {PT2_ERR_ENTRY, 422, "truncated"},
        {PT2_ERR_FORMAT, 422, "truncated"},
        {PT2_ERR_NOT_PT2, 422, "not-a-pt2"},
        {PT2_ERR_METADATA, 422, "metadata-invalid"},
        {PT2_ERR_TOO_LARGE, 413, "too-large"},
        {PT2_ERR_INVALID, 400, "bad-request"},
        {PT2_ERR_NOT_FOUND, 404, "not-found"},
        {PT2_ERR_NO_ROUTE, 404, "not-found"},
        {PT2_ERR_OUTSIDE_ROOT, 403, "outside-root"},
        {PT2_ERR_FORBIDDEN, 403, "forbidden"},
        {PT2_ERR_UNAUTHORIZED, 401, "unauthorized"},
        {PT2_ERR_HOST_NOT_ALLOWED, 403, "host-not-allowed"},
        {PT2_ERR_REMOTE_REFUSED, 403, "remote-refused"},
        {PT2_ERR_REMOTE_UNREACHABLE, 502, "remote-unreachable"},
        {PT2_ERR_REMOTE_NO_RANGE, 502, "remote-no-range"},
        {PT2_ERR_REMOTE_CHANGED, 409, "remote-changed"},
        {PT2_ERR_REMOTE_TIMEOUT, 504, "remote-timeout"},
        {PT2_ERR_OVERLOADED, 503, "overloaded"},
        {PT2_ERR_METHOD, 405, "method-not-allowed"},
        {PT2_ERR_MEDIA_TYPE, 415, "unsupported-media-type"},
        {PT2_ERR_DOCS_NOT_BUILT, 404, "docs-not-built"},
        {PT2_ERR_UNSUPPORTED, 422, "unsupported"},
        {PT2_ERR_IO, 500, "unreadable"},
        {PT2_ERR_NOMEM, 500, "internal"},
        {PT2_ERR_INTERNAL, 500, "internal"},
        {12345, 500, "internal"},
    };
    size_t i;
    int code;

    for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        const struct pt2d_problem_type *t = pt2d_problem_lookup(want[i].code);
        ck_assert_uint_eq(t->status, want[i].status);
        ck_assert_str_eq(t->slug, want[i].slug);
        ck_assert_ptr_nonnull(t->title);
    }
    /* Every status of the library has its row: the slug is the library's, and a
     * client's mistake is never a 5xx (only our failures, "busy, retry" and a remote
     * server's failures, as a gateway says them, are). */
    for (code = PT2_ERR_LAST; code < PT2_OK; code++) {
        const struct pt2d_problem_type *t = pt2d_problem_lookup(code);
        ck_assert_int_eq(t->code, code);
        ck_assert_str_eq(t->slug, pt2_status_slug(code));
        if (code == PT2_ERR_OVERLOADED)
            ck_assert_uint_eq(t->status, 503);
        else if (code == PT2_ERR_REMOTE_UNREACHABLE || code == PT2_ERR_REMOTE_NO_RANGE)
            ck_assert_uint_eq(t->status, 502);
        else if (code == PT2_ERR_REMOTE_TIMEOUT)
            ck_assert_uint_eq(t->status, 504);
        else if (code != PT2_ERR_NOMEM && code != PT2_ERR_INTERNAL && code != PT2_ERR_IO)
            ck_assert_uint_lt(t->status, 500);
        else
            ck_assert_uint_eq(t->status, 500);
    }
    ck_assert_str_eq(pt2_status_slug(PT2_OK), "ok");
    ck_assert_str_eq(pt2_status_slug(PT2_ERR_LAST - 1), "internal");
    /* One title per type, whichever code maps to it. */
    ck_assert_str_eq(pt2d_problem_lookup(PT2_ERR_ENTRY)->title,
                     pt2d_problem_lookup(PT2_ERR_TRUNCATED)->title);
}
END_TEST

START_TEST(test_document)
{
    size_t len;
    char *s = pt2d_problem_json(PT2_ERR_OUTSIDE_ROOT, "path 'x' \"quoted\"", "abc", &len);

    ck_assert_str_eq(s,
                     "{\"type\":\"https://pt2scope.dev/problems/outside-root\","
                     "\"title\":\"The path is outside every model root\",\"status\":403,"
                     "\"detail\":\"path 'x' \\\"quoted\\\"\",\"instance\":\"urn:request:abc\"}\n");
    ck_assert_uint_eq(len, strlen(s));
    free(s);
    s = pt2d_problem_json(PT2_ERR_NOMEM, NULL, NULL, &len);
    ck_assert_str_eq(s, "{\"type\":\"https://pt2scope.dev/problems/internal\","
                        "\"title\":\"Internal server error\",\"status\":500}\n");
    free(s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pt2d_problem");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_table);
    tcase_add_test(tc, test_document);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
