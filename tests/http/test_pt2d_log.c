/*
 * test_pt2d_log.c - JSON-lines access and event records, escaping and caps.
 */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "pt2d_log.h"
#include "testutil.h"

static char *capture(void (*fn)(FILE *))
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);

    fn(f);
    fclose(f);
    return text;
}

static void write_access(FILE *f)
{
    struct pt2d_access_record r = {
        "id-1", "POST", "/v1/inspect", "/v1/inspect\"\n\x01", 500,
        250,    1.5,    "127.0.0.1",   "client-abort",        "spool: cannot read /s/u-1"};

    pt2d_log_access(f, &r);
}

START_TEST(test_access_line)
{
    char *t = capture(write_access);
    cJSON *doc;
    char *nl = strchr(t, '\n');

    ck_assert_ptr_nonnull(nl);
    ck_assert_str_eq(nl, "\n"); /* exactly one line */
    ck_assert(strstr(t, ",\"id\":\"id-1\",\"method\":\"POST\",\"route\":\"/v1/inspect\","
                        "\"path\":\"/v1/inspect\\\"\\u000a\\u0001\",\"status\":500,"
                        "\"bytes\":250,\"duration_ms\":1.500,\"remote\":\"127.0.0.1\","
                        "\"error\":\"client-abort\",\"detail\":\"spool: cannot read /s/u-1\"}\n") !=
              NULL);
    doc = cJSON_Parse(t);
    ck_assert_ptr_nonnull(doc);
    ck_assert_uint_eq(strlen(cJSON_GetObjectItem(doc, "ts")->valuestring), 24);
    cJSON_Delete(doc);
    free(t);
}
END_TEST

static void write_event(FILE *f)
{
    pt2d_log_event(f, "info", "listening on %s", "http://127.0.0.1:1");
}

START_TEST(test_event_line)
{
    char *t = capture(write_event);

    ck_assert(strncmp(t, "{\"ts\":\"", 7) == 0);
    ck_assert(strstr(t, "\",\"level\":\"info\",\"msg\":\"listening on http://127.0.0.1:1\"}\n") !=
              NULL);
    free(t);
}
END_TEST

START_TEST(test_string_truncation)
{
    struct pt2d_buf b;

    pt2d_buf_init(&b, 64);
    ck_assert_int_eq(pt2d_log_json_string(&b, "abcdef", 3), PT2_OK);
    ck_assert_str_eq(pt2d_buf_str(&b), "\"abc\"");
    pt2d_buf_reset(&b);
    ck_assert_int_eq(pt2d_log_json_string(&b, NULL, 3), PT2_OK);
    ck_assert_str_eq(pt2d_buf_str(&b), "\"\"");
    pt2d_buf_free(&b);
}
END_TEST

/* Bytes that are not UTF-8 become \\xFF text; well-formed characters pass; a cut keeps whole ones.
 */
START_TEST(test_invalid_utf8_escaped)
{
    static const struct {
        const char *in;
        size_t max;
        const char *want;
    } cases[] = {
        {"/v1/x\xff\xfe\xc0\xaf", 64, "\"/v1/x\\\\xFF\\\\xFE\\\\xC0\\\\xAF\""},
        {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 64,
         "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\""},
        {"\xed\xa0\x80", 64, "\"\\\\xED\\\\xA0\\\\x80\""},            /* a surrogate */
        {"\xe0\x80\xaf", 64, "\"\\\\xE0\\\\x80\\\\xAF\""},            /* overlong '/' */
        {"\xf4\x90\x80\x80", 64, "\"\\\\xF4\\\\x90\\\\x80\\\\x80\""}, /* past U+10FFFF */
        {"a\xc3\xa9", 2, "\"a\\\\xC3\""},       /* the cut falls inside the character */
        {"\xe2\x82", 64, "\"\\\\xE2\\\\x82\""}, /* truncated by the end */
    };
    struct pt2d_access_record r = {"i", "GET", "other", NULL, 404, 0, 1.0, "-", NULL, NULL};
    struct pt2d_buf b;
    size_t i;

    pt2d_buf_init(&b, 256);
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        pt2d_buf_reset(&b);
        ck_assert_int_eq(pt2d_log_json_string(&b, cases[i].in, cases[i].max), PT2_OK);
        ck_assert_str_eq(pt2d_buf_str(&b), cases[i].want);
    }
    pt2d_buf_free(&b);
    /* The access line's own writer gives the same text. */
    {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);

        r.path = "/v1/x\xff\xfe\xc0\xaf";
        pt2d_log_access(f, &r);
        fclose(f);
        ck_assert_ptr_nonnull(strstr(text, ",\"path\":\"/v1/x\\\\xFF\\\\xFE\\\\xC0\\\\xAF\","));
        free(text);
    }
}
END_TEST

START_TEST(test_utc_formatting)
{
    static const struct {
        long long sec;
        long nsec;
        const char *want;
    } cases[] = {
        {0, 0, "\"1970-01-01T00:00:00.000Z\""},
        {-1, 0, "\"1969-12-31T23:59:59.000Z\""},
        {951782400, 5000000, "\"2000-02-29T00:00:00.005Z\""},
        {1709251199, 999999999, "\"2024-02-29T23:59:59.999Z\""},
        {4102444800, 0, "\"2100-01-01T00:00:00.000Z\""},
        {4107542400, 0, "\"2100-03-01T00:00:00.000Z\""},
    };
    struct pt2d_buf b;
    size_t i;

    pt2d_buf_init(&b, 64);
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct timespec ts = {(time_t)cases[i].sec, cases[i].nsec};
        pt2d_buf_reset(&b);
        ck_assert_int_eq(pt2d_log_format_time(&b, &ts), PT2_OK);
        ck_assert_str_eq(pt2d_buf_str(&b), cases[i].want);
    }
    pt2d_buf_free(&b);
}
END_TEST

/* Agrees with gmtime_r over four centuries of days. */
START_TEST(test_utc_matches_gmtime)
{
    struct pt2d_buf b;
    long long t;

    pt2d_buf_init(&b, 64);
    for (t = -2208988800LL; t < 10413792000LL; t += 86400LL * 7 + 3601) {
        struct timespec ts = {(time_t)t, 0};
        struct tm tm;
        char want[64];

        gmtime_r(&ts.tv_sec, &tm);
        snprintf(want, sizeof(want), "\"%04d-%02d-%02dT%02d:%02d:%02d.000Z\"", tm.tm_year + 1900,
                 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
        pt2d_buf_reset(&b);
        pt2d_log_format_time(&b, &ts);
        ck_assert_str_eq(pt2d_buf_str(&b), want);
    }
    pt2d_buf_free(&b);
}
END_TEST

static void write_huge(FILE *f)
{
    char *big = malloc(20000);
    struct pt2d_access_record r = {0};

    memset(big, 'p', 19999);
    big[19999] = '\0';
    r.id = big; /* ids are capped at 128 characters in the line */
    r.path = big;
    pt2d_log_access(f, &r);
    free(big);
}

START_TEST(test_caps_keep_lines_bounded)
{
    char *t = capture(write_huge);

    ck_assert_uint_lt(strlen(t), 1400);
    ck_assert_int_eq(t[strlen(t) - 1], '\n');
    free(t);
}
END_TEST

/* Access lines from 4 threads at once into a pipe (the unlocked write(2) path): every
 * line arrives whole, 4 x 300 of them, each thread's in its own order. */
#define LT_THREADS 4
#define LT_LINES 300

static void *lt_writer(void *arg)
{
    FILE *f = ((void **)arg)[0];
    const char *id = ((void **)arg)[1];
    char path[64];

    for (int i = 0; i < LT_LINES; i++) {
        struct pt2d_access_record r = {id,          "GET", "/v1/inspect", path, 200,
                                       (uint64_t)i, 0.5,   "127.0.0.1",   NULL, NULL};

        snprintf(path, sizeof(path), "/v1/inspect?path=%s-%04d.pt2", id, i);
        pt2d_log_access(f, &r);
    }
    return NULL;
}

START_TEST(test_concurrent_lines_whole)
{
    static const char *const ids[LT_THREADS] = {"a", "b", "c", "d"};
    void *args[LT_THREADS][2];
    pthread_t th[LT_THREADS];
    int p[2], next[LT_THREADS] = {0}, lines = 0;
    FILE *w, *rd;
    char line[2048];

    ck_assert_int_eq(pipe(p), 0);
    w = fdopen(p[1], "w");
    rd = fdopen(p[0], "r");
    ck_assert_ptr_nonnull(w);
    ck_assert_ptr_nonnull(rd);
    setvbuf(w, NULL, _IONBF, 0); /* as stderr */
    for (int t = 0; t < LT_THREADS; t++) {
        args[t][0] = w;
        args[t][1] = (void *)ids[t];
        ck_assert_int_eq(pthread_create(&th[t], NULL, lt_writer, args[t]), 0);
    }
    while (lines < LT_THREADS * LT_LINES && fgets(line, sizeof(line), rd) != NULL) {
        cJSON *doc = cJSON_Parse(line);
        const char *id;
        int t;

        ck_assert_msg(doc != NULL && strchr(line, '\n') != NULL, "torn line: %s", line);
        id = cJSON_GetObjectItem(doc, "id")->valuestring;
        t = id[0] - 'a';
        ck_assert(t >= 0 && t < LT_THREADS);
        ck_assert_int_eq((int)cJSON_GetObjectItem(doc, "bytes")->valuedouble, next[t]++);
        cJSON_Delete(doc);
        lines++;
    }
    for (int t = 0; t < LT_THREADS; t++)
        pthread_join(th[t], NULL);
    ck_assert_int_eq(lines, LT_THREADS * LT_LINES);
    fclose(w);
    fclose(rd);
}
END_TEST

/* A buffered stream with bytes pending keeps its order: the line goes after them. */
START_TEST(test_pending_stream_keeps_order)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = tmpfile();
    struct pt2d_access_record r = {"id-9", "GET", "/livez", "/livez", 200,
                                   3,      0.1,   "::1",    NULL,     NULL};

    ck_assert_ptr_nonnull(f);
    fputs("pending\n", f); /* fully buffered: still in the stream */
    pt2d_log_access(f, &r);
    ck_assert_int_eq(fflush(f), 0);
    rewind(f);
    text = calloc(1, 4096);
    len = fread(text, 1, 4095, f);
    ck_assert_uint_gt(len, 8);
    ck_assert_msg(strncmp(text, "pending\n{\"ts\":", 14) == 0, "%s", text);
    free(text);
    fclose(f);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pt2d_log");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_access_line);
    tcase_add_test(tc, test_event_line);
    tcase_add_test(tc, test_string_truncation);
    tcase_add_test(tc, test_invalid_utf8_escaped);
    tcase_add_test(tc, test_utc_formatting);
    tcase_add_test(tc, test_utc_matches_gmtime);
    tcase_add_test(tc, test_caps_keep_lines_bounded);
    tcase_add_test(tc, test_concurrent_lines_whole);
    tcase_add_test(tc, test_pending_stream_keeps_order);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
