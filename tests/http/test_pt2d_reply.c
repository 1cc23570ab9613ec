/*
 * test_pt2d_reply.c - reply bodies: JSON, problems (with Retry-After for
 * overload), text, adoption.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_utf8.h"
#include "pt2d_problem.h"
#include "pt2d_reply.h"
#include "testutil.h"

START_TEST(test_json_and_text)
{
    struct pt2d_reply r;
    cJSON *doc = cJSON_CreateObject();

    pt2d_reply_init(&r);
    cJSON_AddBoolToObject(doc, "valid", 1);
    ck_assert_int_eq(pt2d_reply_json(&r, 200, doc), PT2_OK);
    ck_assert_uint_eq(r.status, 200);
    ck_assert_str_eq(r.content_type, "application/json");
    ck_assert_str_eq(r.body, "{\"valid\":true}\n");
    ck_assert_uint_eq(r.len, 15);
    ck_assert_int_eq(pt2d_reply_text(&r, 503, "text/plain", "draining\n"), PT2_OK);
    ck_assert_str_eq(r.body, "draining\n");
    ck_assert_uint_eq(r.len, 9);
    pt2d_reply_take(&r, 304, NULL, NULL, 0);
    ck_assert_ptr_null(r.body);
    pt2d_reply_free(&r);
    pt2d_reply_free(NULL);
    cJSON_Delete(doc);
}
END_TEST

/* A document of n strings of `len` bytes each (and one byte not UTF-8 in the first). */
static cJSON *doc_of_size(int n, size_t len)
{
    cJSON *doc = cJSON_CreateArray();
    char *s = malloc(len + 1);

    ck_assert_ptr_nonnull(s);
    memset(s, 'a', len);
    s[len] = '\0';
    for (int i = 0; i < n; i++) {
        if (i == 0 && len > 0)
            s[0] = (char)0xff;
        cJSON_AddItemToArray(doc, cJSON_CreateString(s));
        s[0] = 'a';
    }
    free(s);
    return doc;
}

/* Printed in place, growing and shrinking with the documents: always the bytes cJSON's own
 * printer gives (scrubbed) and a newline. */
START_TEST(test_json_sizes_in_place)
{
    static const struct {
        int n;
        size_t len;
    } sizes[] = {{1, 1000}, {100, 1000}, {2000, 1000}, {1, 3}, {0, 0}, {300, 100}, {3, 60000}};

    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        struct pt2d_reply r;
        cJSON *doc = doc_of_size(sizes[i].n, sizes[i].len);
        char *want = cJSON_PrintUnformatted(doc);
        size_t n = strlen(want);

        pt2_utf8_scrub(want, n);
        pt2d_reply_init(&r);
        ck_assert_int_eq(pt2d_reply_json(&r, 200, doc), PT2_OK);
        ck_assert_uint_eq(r.len, n + 1);
        ck_assert(memcmp(r.body, want, n) == 0);
        ck_assert_int_eq(r.body[n], '\n');
        ck_assert_int_eq(r.body[n + 1], '\0');
        if (sizes[i].len > 0 && sizes[i].n > 0)
            ck_assert_int_eq(r.body[2], '?'); /* the 0xff byte, scrubbed */
        pt2d_reply_free(&r);
        cJSON_free(want);
        cJSON_Delete(doc);
    }
}
END_TEST

START_TEST(test_problem_reply)
{
    struct pt2d_reply r;

    pt2d_reply_init(&r);
    snprintf(r.etag, sizeof(r.etag), "\"x\"");
    ck_assert_int_eq(pt2d_reply_problem(&r, PT2_ERR_OVERLOADED, "busy", "id9"), PT2_OK);
    ck_assert_uint_eq(r.status, 503);
    ck_assert_uint_eq(r.retry_after, 1);
    ck_assert_str_eq(r.etag, "");
    ck_assert_str_eq(r.content_type, "application/problem+json");
    ck_assert_str_eq(r.body, "{\"type\":\"https://pt2scope.dev/problems/overloaded\",\"title\":"
                             "\"The server is overloaded; retry later\",\"status\":503,"
                             "\"detail\":\"busy\",\"instance\":\"urn:request:id9\"}\n");
    ck_assert_str_eq(r.withheld, "");
    pt2d_reply_free(&r);
}
END_TEST

/* A server-side failure's detail (a spool path, errno text) stays in the log. */
START_TEST(test_problem_5xx_withholds_detail)
{
    struct pt2d_reply r;

    pt2d_reply_init(&r);
    ck_assert_int_eq(pt2d_reply_problem(&r, PT2_ERR_IO,
                                        "spool: cannot unlink /var/spool/pt2scope/u-1: EIO", "id1"),
                     PT2_OK);
    ck_assert_uint_eq(r.status, 500);
    ck_assert_str_eq(r.body, "{\"type\":\"https://pt2scope.dev/problems/unreadable\",\"title\":"
                             "\"The package could not be read\",\"status\":500,"
                             "\"detail\":\"the server failed; its log has the details under this "
                             "request's id\",\"instance\":\"urn:request:id1\"}\n");
    ck_assert_ptr_null(strstr(r.body, "/var/spool"));
    ck_assert_str_eq(r.withheld, "spool: cannot unlink /var/spool/pt2scope/u-1: EIO");
    /* A client's mistake keeps its detail; the next reply forgets the withheld one. */
    ck_assert_int_eq(pt2d_reply_problem(&r, PT2_ERR_NOT_FOUND, "no package 'a.pt2'", "id2"),
                     PT2_OK);
    ck_assert_ptr_nonnull(strstr(r.body, "\"detail\":\"no package 'a.pt2'\""));
    ck_assert_str_eq(r.withheld, "");
    pt2d_reply_free(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pt2d_reply");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_json_and_text);
    tcase_add_test(tc, test_json_sizes_in_place);
    tcase_add_test(tc, test_problem_5xx_withholds_detail);
    tcase_add_test(tc, test_problem_reply);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
