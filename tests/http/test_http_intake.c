/*
 * test_http_intake.c - request bodies over HTTP (the pt2d_intake module
 * needs a live MHD connection): multipart edge cases, chunked uploads,
 * 100-continue, empty bodies, bodies where none is expected.
 */
#include "http_harness.h"

#include "pt2scope.h"

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

static void post_raw(const char *path, const char *ctype, const char *body, struct th_resp *r)
{
    struct th_req rq = {.path = path, .body = body, .body_len = strlen(body), .ctype = ctype};

    th_do(T.base, &rq, r);
}

START_TEST(test_multipart_without_file_field)
{
    const char *b = "--XyZ\r\nContent-Disposition: form-data; name=\"other\"\r\n\r\nhello\r\n"
                    "--XyZ--\r\n";
    struct th_resp r;

    post_raw("/v1/inspect", "multipart/form-data; boundary=XyZ", b, &r);
    th_assert_problem(&r, 400, "bad-request", "multipart/form-data body has no 'file' field");
    th_resp_free(&r);
}
END_TEST

START_TEST(test_multipart_two_files)
{
    const char *b = "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.pt2\"\r\n"
                    "Content-Type: application/octet-stream\r\n\r\nAAAA\r\n"
                    "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"b.pt2\"\r\n"
                    "Content-Type: application/octet-stream\r\n\r\nBBBB\r\n--XyZ--\r\n";
    struct th_resp r;

    post_raw("/v1/inspect", "multipart/form-data; boundary=XyZ", b, &r);
    th_assert_problem(&r, 400, "bad-request", "multipart body has more than one 'file' field");
    th_resp_free(&r);
}
END_TEST

START_TEST(test_multipart_without_boundary)
{
    struct th_resp r;

    post_raw("/v1/inspect", "multipart/form-data", "--x--\r\n", &r);
    th_assert_problem(&r, 400, "bad-request",
                      "multipart/form-data body without a boundary parameter");
    th_resp_free(&r);
}
END_TEST

/* The part's file name is reduced to a printable basename for the report. */
START_TEST(test_multipart_file_name_reported)
{
    char p[256], url[256];
    struct th_resp r;
    CURL *c = curl_easy_init();
    curl_mime *mime = curl_mime_init(c);
    curl_mimepart *part = curl_mime_addpart(mime);
    cJSON *doc;

    curl_mime_name(part, "file");
    curl_mime_filedata(part, tu_fixture("cpu_x86_64.pt2", p, sizeof(p)));
    curl_mime_filename(part, "../../evil/m\tdel.pt2");
    memset(&r, 0, sizeof(r));
    snprintf(url, sizeof(url), "%s/v1/inspect", T.base);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_MIMEPOST, mime);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, th_on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &r);
    ck_assert_int_eq(curl_easy_perform(c), CURLE_OK);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
    curl_mime_free(mime);
    curl_easy_cleanup(c);
    ck_assert_int_eq(r.status, 200);
    doc = th_json(&r);
    ck_assert_str_eq(th_str(cJSON_GetObjectItem(doc, "package"), "name"), "mdel.pt2");
    cJSON_Delete(doc);
    th_resp_free(&r);
}
END_TEST

START_TEST(test_empty_upload)
{
    struct th_req rq = {
        .path = "/v1/inspect", .body = "", .body_len = 0, .ctype = "application/octet-stream"};
    struct th_resp r;

    th_do(T.base, &rq, &r);
    ck_assert_int_eq(r.status, 422);
    ck_assert(strstr(r.body, "/problems/not-a-zip") != NULL);
    th_resp_free(&r);
}
END_TEST

START_TEST(test_post_without_body_uses_query_path)
{
    struct th_req rq = {.method = "POST", .path = "/v1/arch?path=cpu_x86_64.pt2"};
    struct th_resp r;

    th_do(T.base, &rq, &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert(strstr(r.body, "\"device_key\":\"cpu\"") != NULL);
    th_resp_free(&r);
}
END_TEST

START_TEST(test_get_with_body_is_refused)
{
    const char *hs[] = {"Content-Type: application/octet-stream", NULL};
    struct th_req rq = {.method = "GET", .path = "/v1/arch?path=cpu_x86_64.pt2", .headers = hs};
    struct curl_slist *hl;
    struct th_resp r;
    CURL *c = th_easy(T.base, &rq, &r, &hl);

    curl_easy_setopt(c, CURLOPT_POSTFIELDS, "stray");
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, "GET");
    ck_assert_int_eq(th_perform(c, &r, hl), CURLE_OK);
    th_assert_problem(&r, 400, "bad-request", "this request takes no body");
    th_resp_free(&r);
}
END_TEST

struct src {
    const uint8_t *p;
    size_t left;
};

static size_t read_src(char *buf, size_t sz, size_t n, void *ud)
{
    struct src *s = ud;
    size_t k = sz * n < 777 ? sz * n : 777; /* odd-sized chunks */

    if (k > s->left)
        k = s->left;
    memcpy(buf, s->p, k);
    s->p += k;
    s->left -= k;
    return k;
}

static void upload_streamed(const char *extra_header, long expect_timeout_ms)
{
    const char *hs[] = {"Content-Type: application/octet-stream", extra_header, NULL};
    struct th_req rq = {.method = "POST", .path = "/v1/arch", .headers = hs};
    struct curl_slist *hl;
    struct th_resp r;
    char p[256];
    size_t len;
    uint8_t *data = tu_read_file(tu_fixture("cpu_x86_64.pt2", p, sizeof(p)), &len);
    struct src s = {data, len};
    CURL *c = th_easy(T.base, &rq, &r, &hl);

    ck_assert_ptr_nonnull(data);
    curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, "POST");
    curl_easy_setopt(c, CURLOPT_READFUNCTION, read_src);
    curl_easy_setopt(c, CURLOPT_READDATA, &s);
    if (expect_timeout_ms > 0) {
        curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, (curl_off_t)len);
        curl_easy_setopt(c, CURLOPT_EXPECT_100_TIMEOUT_MS, expect_timeout_ms);
    }
    ck_assert_int_eq(th_perform(c, &r, hl), CURLE_OK);
    ck_assert_int_eq(r.status, 200);
    ck_assert(strstr(r.body, "\"device_key\":\"cpu\"") != NULL);
    th_resp_free(&r);
    free(data);
}

START_TEST(test_chunked_upload)
{
    upload_streamed("Transfer-Encoding: chunked", 0);
}
END_TEST

/* With a 10 s expect timeout the upload only finishes fast if MHD sent 100 Continue. */
START_TEST(test_expect_100_continue)
{
    struct timespec a, b;

    clock_gettime(CLOCK_MONOTONIC, &a);
    upload_streamed("Expect: 100-continue", 10000);
    clock_gettime(CLOCK_MONOTONIC, &b);
    ck_assert_int_lt(b.tv_sec - a.tv_sec, 5);
}
END_TEST

static Suite *intake_suite(void)
{
    Suite *s = suite_create("http_intake");
    TCase *tc = tcase_create("bodies");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_multipart_without_file_field);
    tcase_add_test(tc, test_multipart_two_files);
    tcase_add_test(tc, test_multipart_without_boundary);
    tcase_add_test(tc, test_multipart_file_name_reported);
    tcase_add_test(tc, test_empty_upload);
    tcase_add_test(tc, test_post_without_body_uses_query_path);
    tcase_add_test(tc, test_get_with_body_is_refused);
    tcase_add_test(tc, test_chunked_upload);
    tcase_add_test(tc, test_expect_100_continue);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return th_main("http_intake", "cpu_x86_64.pt2", intake_suite);
}
