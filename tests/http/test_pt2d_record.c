/*
 * test_pt2d_record.c - the response recorder: the file format, limits,
 * failures, and a live server writing one file per response.
 */
#include "http_harness.h"

#include "pt2d_record.h"

static char dir[256];

static void setup(void)
{
    snprintf(dir, sizeof(dir), "/tmp/pt2d-record-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
    th_rm_tree(dir);
}

/* The only record in `dir`, parsed (asserts there is exactly one). */
static cJSON *only_record(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char p[512] = "";
    uint8_t *text;
    size_t len = 0;
    cJSON *doc;
    int n = 0;

    ck_assert_ptr_nonnull(d);
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
        n++;
    }
    closedir(d);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(strcmp(p + strlen(p) - 5, ".json"), 0);
    text = tu_read_file(p, &len);
    ck_assert_ptr_nonnull(text);
    ck_assert_int_eq(text[len - 1], '\n');
    doc = cJSON_ParseWithLength((const char *)text, len);
    free(text);
    ck_assert_ptr_nonnull(doc);
    unlink(p);
    return doc;
}

static const cJSON *get(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

    ck_assert_msg(v != NULL, "no member %s", k);
    return v;
}

/* Compact JSON text of member k (static buffer, one use per statement). */
static const char *text_of(const cJSON *o, const char *k)
{
    static char buf[4096];
    char *s = cJSON_PrintUnformatted(get(o, k));

    ck_assert_ptr_nonnull(s);
    snprintf(buf, sizeof(buf), "%s", s);
    cJSON_free(s);
    return buf;
}

static int set_dir(struct pt2d_recorder *r)
{
    struct pt2_error err = {0};

    return pt2d_recorder_set_dir(r, dir, &err);
}

START_TEST(test_off_writes_nothing)
{
    struct pt2d_recorder r;
    struct pt2_error err = {0};
    struct pt2d_record rec = {.method = "GET", .path = "/livez", .status = 200};

    ck_assert_int_eq(pt2d_recorder_set_dir(&r, "", &err), PT2_OK);
    ck_assert(!pt2d_recorder_enabled(&r));
    ck_assert_int_eq(pt2d_recorder_set_dir(&r, NULL, &err), PT2_OK);
    ck_assert(!pt2d_recorder_enabled(&r));
    ck_assert_int_eq(pt2d_record_write(&r, &rec, &err), PT2_OK);
    ck_assert_int_eq(th_dir_count(dir), 0);
    ck_assert(!pt2d_recorder_enabled(NULL));
}
END_TEST

START_TEST(test_dir_too_long)
{
    struct pt2d_recorder r;
    struct pt2_error err = {0};
    char longdir[PT2D_RECORD_DIR_MAX + 8];

    memset(longdir, 'd', sizeof(longdir) - 1);
    longdir[sizeof(longdir) - 1] = '\0';
    ck_assert_int_eq(pt2d_recorder_set_dir(&r, longdir, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "PT2SCOPE_RECORD_DIR is longer than 1023 bytes");
    ck_assert(!pt2d_recorder_enabled(&r));
}
END_TEST

START_TEST(test_init_reads_environment)
{
    struct pt2d_recorder r;
    struct pt2_error err = {0};
    const char *old = getenv(PT2D_RECORD_ENV);
    char saved[PT2D_RECORD_DIR_MAX] = "";

    if (old != NULL)
        snprintf(saved, sizeof(saved), "%s", old);
    setenv(PT2D_RECORD_ENV, "/srv/records", 1);
    ck_assert_int_eq(pt2d_recorder_init(&r, &err), PT2_OK);
    ck_assert_str_eq(r.dir, "/srv/records");
    unsetenv(PT2D_RECORD_ENV);
    ck_assert_int_eq(pt2d_recorder_init(&r, &err), PT2_OK);
    ck_assert(!pt2d_recorder_enabled(&r));
    if (old != NULL)
        setenv(PT2D_RECORD_ENV, saved, 1);
}
END_TEST

START_TEST(test_json_record)
{
    struct pt2d_recorder r;
    struct pt2_error err = {0};
    static const char body[] =
        "{\"type\":\"https://pt2scope.dev/problems/not-found\",\"status\":404}\n";
    static const char req[] = "{\"path\": \"x.pt2\", \"view\": \"oip\"} \n";
    const struct pt2d_record_header hdrs[] = {
        {"X-Request-Id", "r1"}, {"Vary", "Origin"}, {"Vary", "Accept"}};
    cJSON *q = cJSON_Parse("{\"target\":[\"H100\",\"8.0\"]}");
    struct pt2d_record rec = {.method = "POST",
                              .path = "/v1/inspect",
                              .query = q,
                              .status = 404,
                              .content_type = "application/problem+json",
                              .headers = hdrs,
                              .n_headers = 3,
                              .request_json = req,
                              .request_json_len = sizeof(req) - 1,
                              .body = body,
                              .body_len = sizeof(body) - 1};
    cJSON *doc;

    ck_assert_int_eq(set_dir(&r), PT2_OK);
    ck_assert_int_eq(pt2d_record_write(&r, &rec, &err), PT2_OK);
    doc = only_record();
    ck_assert_str_eq(get(doc, "method")->valuestring, "POST");
    ck_assert_str_eq(get(doc, "path")->valuestring, "/v1/inspect");
    ck_assert_str_eq(text_of(doc, "query"), "{\"target\":[\"H100\",\"8.0\"]}");
    ck_assert_int_eq(get(doc, "status")->valueint, 404);
    ck_assert_str_eq(get(doc, "content_type")->valuestring, "application/problem+json");
    /* A repeated header keeps its last value. */
    ck_assert_str_eq(text_of(doc, "headers"), "{\"X-Request-Id\":\"r1\",\"Vary\":\"Accept\"}");
    ck_assert_str_eq(text_of(doc, "request_json"), "{\"path\":\"x.pt2\",\"view\":\"oip\"}");
    ck_assert_str_eq(get(doc, "body_kind")->valuestring, "json");
    ck_assert_str_eq(text_of(doc, "body"),
                     "{\"type\":\"https://pt2scope.dev/problems/not-found\",\"status\":404}");
    ck_assert(cJSON_IsFalse(get(doc, "body_truncated")));
    cJSON_Delete(doc);
    cJSON_Delete(q);
}
END_TEST

START_TEST(test_text_and_broken_json)
{
    struct pt2d_recorder r;
    struct pt2_error err = {0};
    struct pt2d_record rec = {.method = "GET", .path = "/livez", .status = 200};
    cJSON *doc;

    ck_assert_int_eq(set_dir(&r), PT2_OK);
    rec.content_type = "text/plain; charset=utf-8";
    rec.body = "ok\n";
    rec.body_len = 3;
    ck_assert_int_eq(pt2d_record_write(&r, &rec, &err), PT2_OK);
    doc = only_record();
    ck_assert_str_eq(get(doc, "body_kind")->valuestring, "text");
    ck_assert_str_eq(get(doc, "body")->valuestring, "ok\n");
    ck_assert_str_eq(text_of(doc, "query"), "{}");
    ck_assert_str_eq(text_of(doc, "headers"), "{}");
    ck_assert(cJSON_IsNull(get(doc, "request_json")));
    cJSON_Delete(doc);

    /* JSON media type, but not one JSON value: kept as text for the validator to flag. */
    rec.content_type = "application/json";
    rec.body = "{\"a\":1} trailing";
    rec.body_len = strlen(rec.body);
    rec.request_json = "{oops";
    rec.request_json_len = 5;
    ck_assert_int_eq(pt2d_record_write(&r, &rec, &err), PT2_OK);
    doc = only_record();
    ck_assert_str_eq(get(doc, "body_kind")->valuestring, "text");
    ck_assert_str_eq(get(doc, "body")->valuestring, "{\"a\":1} trailing");
    ck_assert_str_eq(get(doc, "request_json")->valuestring, "{oops");
    cJSON_Delete(doc);

    /* Only the bytes given count: the body need not be NUL-terminated. */
    rec.content_type = "text/plain";
    rec.body = "abcdef";
    rec.body_len = 3;
    rec.request_json = NULL;
    ck_assert_int_eq(pt2d_record_write(&r, &rec, &err), PT2_OK);
    doc = only_record();
    ck_assert_str_eq(get(doc, "body")->valuestring, "abc");
    cJSON_Delete(doc);
}
END_TEST

START_TEST(test_no_body_and_truncation)
{
    struct pt2d_recorder r;
    struct pt2_error err = {0};
    struct pt2d_record rec = {.method = "GET", .path = "/v1/inspect", .status = 304};
    size_t big = PT2D_RECORD_BODY_MAX + 10;
    char *body = malloc(big);
    cJSON *doc;

    ck_assert_ptr_nonnull(body);
    ck_assert_int_eq(set_dir(&r), PT2_OK);
    ck_assert_int_eq(pt2d_record_write(&r, &rec, &err), PT2_OK);
    doc = only_record();
    ck_assert(cJSON_IsNull(get(doc, "content_type")));
    ck_assert_str_eq(get(doc, "body_kind")->valuestring, "none");
    ck_assert(cJSON_IsNull(get(doc, "body")));
    cJSON_Delete(doc);

    memset(body, '{', big);
    rec.status = 200;
    rec.content_type = "application/json";
    rec.body = body;
    rec.body_len = big;
    ck_assert_int_eq(pt2d_record_write(&r, &rec, &err), PT2_OK);
    doc = only_record();
    ck_assert_str_eq(get(doc, "body_kind")->valuestring, "text");
    ck_assert(cJSON_IsTrue(get(doc, "body_truncated")));
    ck_assert_uint_eq(strlen(get(doc, "body")->valuestring), PT2D_RECORD_BODY_MAX);
    cJSON_Delete(doc);
    free(body);
}
END_TEST

START_TEST(test_unwritable_dir)
{
    struct pt2d_recorder r;
    struct pt2_error err = {0};
    struct pt2d_record rec = {.method = "GET", .path = "/livez", .status = 200};

    ck_assert_int_eq(pt2d_recorder_set_dir(&r, "/nonexistent/pt2d-records", &err), PT2_OK);
    ck_assert_int_eq(pt2d_record_write(&r, &rec, &err), PT2_ERR_IO);
    ck_assert_str_eq(err.message, "record: cannot create a file in '/nonexistent/pt2d-records': "
                                  "No such file or directory");
}
END_TEST

/* The record of METHOD PATH in `dir`, parsed (asserts it exists). */
static cJSON *record_for(const char *method, const char *path)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    cJSON *found = NULL;

    ck_assert_ptr_nonnull(d);
    while (found == NULL && (e = readdir(d)) != NULL) {
        char p[512];
        size_t len = 0;
        uint8_t *text;
        cJSON *doc;

        if (e->d_name[0] == '.')
            continue;
        snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
        text = tu_read_file(p, &len);
        ck_assert_ptr_nonnull(text);
        doc = cJSON_ParseWithLength((const char *)text, len);
        free(text);
        ck_assert_ptr_nonnull(doc);
        if (strcmp(get(doc, "method")->valuestring, method) == 0 &&
            strcmp(get(doc, "path")->valuestring, path) == 0)
            found = doc;
        else
            cJSON_Delete(doc);
    }
    closedir(d);
    ck_assert_msg(found != NULL, "no record of %s %s", method, path);
    return found;
}

START_TEST(test_server_records_each_response)
{
    static const char json[] = "{\"path\":\"cuda_sm90a_v8.pt2\",\"view\":\"oip\"}";
    struct th_req post = {.path = "/v1/metadata",
                          .body = json,
                          .body_len = sizeof(json) - 1,
                          .ctype = "application/json"};
    struct th_req head = {.method = "HEAD", .path = "/v1/version"};
    const char *old = getenv(PT2D_RECORD_ENV);
    char saved[PT2D_RECORD_DIR_MAX] = "", rid[160];
    struct th_server t;
    struct th_resp res;
    cJSON *doc;

    if (old != NULL)
        snprintf(saved, sizeof(saved), "%s", old);
    setenv(PT2D_RECORD_ENV, dir, 1);
    th_config(&t);
    th_start(&t);
    th_get(t.base, "/livez?a=1&a=2&b", &res);
    ck_assert_int_eq(res.status, 200);
    ck_assert(th_header(&res, "X-Request-Id", rid, sizeof(rid)));
    th_resp_free(&res);
    th_do(t.base, &head, &res);
    ck_assert_int_eq(res.status, 200);
    th_resp_free(&res);
    th_do(t.base, &post, &res);
    ck_assert_int_eq(res.status, 200);
    th_resp_free(&res);
    th_stop(&t);
    if (old != NULL)
        setenv(PT2D_RECORD_ENV, saved, 1);
    else
        unsetenv(PT2D_RECORD_ENV);

    ck_assert_int_eq(th_dir_count(dir), 3);
    doc = record_for("GET", "/livez");
    ck_assert_str_eq(text_of(doc, "query"), "{\"a\":[\"1\",\"2\"],\"b\":[null]}");
    ck_assert_int_eq(get(doc, "status")->valueint, 200);
    ck_assert_str_eq(get(doc, "content_type")->valuestring, "text/plain; charset=utf-8");
    ck_assert_str_eq(get(get(doc, "headers"), "X-Request-Id")->valuestring, rid);
    ck_assert_str_eq(get(doc, "body")->valuestring, "ok\n");
    cJSON_Delete(doc);
    /* HEAD: the client gets no body, so none is recorded. */
    doc = record_for("HEAD", "/v1/version");
    ck_assert_str_eq(get(doc, "content_type")->valuestring, "application/json");
    ck_assert_str_eq(get(doc, "body_kind")->valuestring, "none");
    cJSON_Delete(doc);
    doc = record_for("POST", "/v1/metadata");
    ck_assert_str_eq(text_of(doc, "request_json"), json);
    ck_assert_str_eq(get(doc, "body_kind")->valuestring, "json");
    ck_assert_str_eq(
        get(cJSON_GetArrayItem(get(get(doc, "body"), "inputs"), 0), "datatype")->valuestring,
        "FP32");
    ck_assert_ptr_nonnull(cJSON_GetObjectItemCaseSensitive(get(doc, "headers"), "ETag"));
    cJSON_Delete(doc);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pt2d_record");
    TCase *tc = tcase_create("core");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_off_writes_nothing);
    tcase_add_test(tc, test_dir_too_long);
    tcase_add_test(tc, test_init_reads_environment);
    tcase_add_test(tc, test_json_record);
    tcase_add_test(tc, test_text_and_broken_json);
    tcase_add_test(tc, test_no_body_and_truncation);
    tcase_add_test(tc, test_unwritable_dir);
    tcase_add_test(tc, test_server_records_each_response);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
