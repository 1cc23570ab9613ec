/*
 * test_http_docs.c - /openapi.yaml, /openapi.json and /docs over loopback:
 * what is served, with which headers, and how other methods and near-miss
 * paths are refused. (Its responses are recorded and validated against the
 * spec by `make test-contract` like every HTTP suite's.)
 */
#include "http_harness.h"

static struct th_server T;

static void setup(void)
{
    th_config(&T);
    th_start(&T);
}

static void teardown(void)
{
    th_stop(&T);
}

static void assert_ctype(const struct th_resp *r, const char *want)
{
    char ct[128];

    ck_assert(th_header(r, "Content-Type", ct, sizeof(ct)));
    ck_assert_str_eq(ct, want);
}

START_TEST(test_yaml_is_the_source_file)
{
    struct th_resp r;
    size_t len = 0;
    uint8_t *want = tu_read_file("openapi/openapi.yaml", &len);

    ck_assert_ptr_nonnull(want);
    th_get(T.base, "/openapi.yaml", &r);
    ck_assert_int_eq(r.status, 200);
    assert_ctype(&r, "application/yaml");
    ck_assert_uint_eq(r.len, len);
    ck_assert_int_eq(memcmp(r.body, want, len), 0);
    th_resp_free(&r);
    free(want);
}
END_TEST

START_TEST(test_json)
{
    struct th_resp r;
    cJSON *doc;

    th_get(T.base, "/openapi.json", &r);
    ck_assert_int_eq(r.status, 200);
    assert_ctype(&r, "application/json");
    doc = th_json(&r);
    ck_assert_str_eq(th_str(doc, "openapi"), "3.1.1");
    ck_assert_ptr_nonnull(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItem(doc, "paths"), "/v1/inspect"));
    cJSON_Delete(doc);
    th_resp_free(&r);
}
END_TEST

START_TEST(test_docs_page_and_assets)
{
    struct th_req head = {.method = "HEAD", .path = "/docs/swagger-ui-bundle.js"};
    struct th_resp r;
    char cl[32];

    th_get(T.base, "/docs", &r);
    ck_assert_int_eq(r.status, 200);
    assert_ctype(&r, "text/html; charset=utf-8");
    ck_assert_ptr_nonnull(strstr(r.body, "SwaggerUIBundle("));
    th_resp_free(&r);

    th_get(T.base, "/docs/swagger-ui.css", &r);
    ck_assert_int_eq(r.status, 200);
    assert_ctype(&r, "text/css; charset=utf-8");
    ck_assert_uint_gt(r.len, 10000);
    th_resp_free(&r);

    th_do(T.base, &head, &r);
    ck_assert_int_eq(r.status, 200);
    assert_ctype(&r, "text/javascript; charset=utf-8");
    ck_assert(th_header(&r, "Content-Length", cl, sizeof(cl)));
    ck_assert_uint_gt(strtoul(cl, NULL, 10), 100000);
    ck_assert_uint_eq(r.len, 0);
    th_resp_free(&r);
}
END_TEST

START_TEST(test_refusals)
{
    static const char body[] = "{}";
    struct th_req post = {
        .path = "/openapi.json", .body = body, .body_len = 2, .ctype = "application/json"};
    struct th_req options = {.method = "OPTIONS", .path = "/docs"};
    struct th_resp r;
    char allow[64];

    th_do(T.base, &post, &r);
    th_assert_problem(&r, 405, "method-not-allowed", "see the Allow header");
    ck_assert(th_header(&r, "Allow", allow, sizeof(allow)));
    ck_assert_str_eq(allow, "GET, HEAD, OPTIONS");
    th_resp_free(&r);

    th_do(T.base, &options, &r);
    ck_assert_int_eq(r.status, 204);
    ck_assert(th_header(&r, "Allow", allow, sizeof(allow)));
    ck_assert_str_eq(allow, "GET, HEAD, OPTIONS");
    th_resp_free(&r);

    /* The address with a slash, as people type it: sent on to /docs (relative, for proxies). */
    th_get(T.base, "/docs/", &r);
    ck_assert_int_eq(r.status, 301);
    ck_assert(th_header(&r, "Location", allow, sizeof(allow)));
    ck_assert_str_eq(allow, "../docs");
    th_resp_free(&r);
    th_get(T.base, "/docs/index.html", &r);
    th_assert_problem(&r, 404, "not-found", "no such endpoint");
    th_resp_free(&r);
    th_get(T.base, "/docs", &r);
    ck_assert(strstr(r.body, "<link rel=\"icon\" href=\"data:,\">") != NULL); /* no /favicon.ico */
    th_resp_free(&r);
    th_get(T.base, "/docs/swagger-ui.js.map", &r);
    th_assert_problem(&r, 404, "not-found", "no such endpoint");
    th_resp_free(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("http_docs");
    TCase *tc = tcase_create("docs");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_yaml_is_the_source_file);
    tcase_add_test(tc, test_json);
    tcase_add_test(tc, test_docs_page_and_assets);
    tcase_add_test(tc, test_refusals);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
