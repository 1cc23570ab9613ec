/*
 * test_remote_list.c - a bucket as a registry (service/remote/pt2_remote_list.h):
 * the shard hash against FNV-1a 64's published test vectors, which URLs are
 * prefixes and how a prefix maps to its bucket's URL, then ListObjectsV2
 * pages from a scripted HTTP server on loopback (this test's): the query
 * sent, entities decoded, only *.pt2 keys under the prefix kept, the
 * continuation token, and the answers a hostile or broken store can give
 * (a truncated page without a token, an answer over the cap, S3 errors).
 * The real store (s3rver behind a SigV4 proxy) is tests/shell/bucket.sh's.
 */
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <curl/curl.h>

#include "pt2_remote.h"
#include "pt2_remote_list.h"
#include "pt2_remote_url.h"
#include "pt2scope.h"
#include "testutil.h"

/* ---- shards, prefixes, mapping ------------------------------------------------------ */

/* FNV-1a 64 of "" is the offset basis; "a" and "foobar" are the published vectors. */
START_TEST(test_shard)
{
    ck_assert_uint_eq(pt2_remote_shard("", 1000003), 14695981039346656037ull % 1000003);
    ck_assert_uint_eq(pt2_remote_shard("a", 1000003), 0xaf63dc4c8601ec8cull % 1000003);
    ck_assert_uint_eq(pt2_remote_shard("foobar", 1000003), 0x85944171f73967e8ull % 1000003);
    ck_assert_uint_eq(pt2_remote_shard("foobar", 1), 0);
    ck_assert_uint_eq(pt2_remote_shard("foobar", 0), 0);
    /* a partition: every key in exactly one of N */
    for (unsigned n = 1; n <= 7; n++) {
        unsigned seen[7] = {0};

        for (int i = 0; i < 200; i++) {
            char key[32];

            snprintf(key, sizeof(key), "models/p%04d.pt2", i);
            ck_assert_uint_lt(pt2_remote_shard(key, n), n);
            seen[pt2_remote_shard(key, n)]++;
        }
        for (unsigned i = 0; i < n; i++)
            ck_assert_uint_gt(seen[i], 0);
    }
}
END_TEST

START_TEST(test_is_prefix)
{
    ck_assert_int_eq(pt2_remote_is_prefix("s3://bucket/"), 1);
    ck_assert_int_eq(pt2_remote_is_prefix("s3://bucket"), 1);
    ck_assert_int_eq(pt2_remote_is_prefix("s3://bucket/models/"), 1);
    ck_assert_int_eq(pt2_remote_is_prefix("S3://bucket/a/b/"), 1);
    ck_assert_int_eq(pt2_remote_is_prefix("s3://bucket/models/x.pt2"), 0);
    ck_assert_int_eq(pt2_remote_is_prefix("s3://bucket/models"), 0);
    ck_assert_int_eq(pt2_remote_is_prefix("s3://bucket/../"), 0);
    ck_assert_int_eq(pt2_remote_is_prefix("https://h/models/"), 0);
    ck_assert_int_eq(pt2_remote_is_prefix("s3:///x/"), 0);
    ck_assert_int_eq(pt2_remote_is_prefix(NULL), 0);
}
END_TEST

START_TEST(test_map_bucket)
{
    struct pt2_remote_s3_env env = {NULL, "eu-west-1"};
    char bucket[PT2_REMOTE_BUCKET_MAX + 1];
    struct pt2_remote_s3 m;
    struct pt2_error err = {0};
    const char *prefix;

    ck_assert_int_eq(pt2_remote_s3_map_bucket("s3://reg/models/", &env, &m, bucket, &prefix, &err),
                     PT2_OK);
    ck_assert_str_eq(m.url, "https://reg.s3.eu-west-1.amazonaws.com/");
    ck_assert_str_eq(bucket, "reg");
    ck_assert_str_eq(prefix, "models/");
    ck_assert_int_eq(pt2_remote_s3_map_bucket("s3://my.reg/", &env, &m, bucket, &prefix, &err),
                     PT2_OK);
    ck_assert_str_eq(m.url, "https://s3.eu-west-1.amazonaws.com/my.reg/");
    ck_assert_str_eq(prefix, "");
    env.endpoint = "http://127.0.0.1:9000/";
    ck_assert_int_eq(pt2_remote_s3_map_bucket("s3://reg/a/", &env, &m, bucket, &prefix, &err),
                     PT2_OK);
    ck_assert_str_eq(m.url, "http://127.0.0.1:9000/reg/");
    ck_assert_int_eq(m.endpoint, 1);
    ck_assert_int_eq(pt2_remote_s3_map_bucket("s3://reg/a.pt2", &env, &m, bucket, &prefix, &err),
                     PT2_ERR_INVALID);
}
END_TEST

/* ---- pages from a scripted server ---------------------------------------------------- */

struct srv {
    int lfd, port;
    volatile int stop;
    pthread_t th;
    const char *status; /* "200 OK" */
    const char *body;
    size_t repeat; /* the body sent this many times (an answer over the cap) */
    char request[2048];
};

static void send_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

static void *srv_main(void *arg)
{
    struct srv *s = arg;

    while (!s->stop) {
        struct pollfd pfd = {.fd = s->lfd, .events = POLLIN};
        char req[4096], hdr[256];
        size_t have = 0, len = strlen(s->body) * s->repeat;
        int fd;

        if (poll(&pfd, 1, 50) <= 0 || (fd = accept(s->lfd, NULL, NULL)) < 0)
            continue;
        while (have < sizeof(req) - 1) {
            ssize_t r = recv(fd, req + have, sizeof(req) - 1 - have, 0);

            if (r <= 0)
                break;
            have += (size_t)r;
            req[have] = '\0';
            if (strstr(req, "\r\n\r\n") != NULL)
                break;
        }
        req[have] = '\0';
        snprintf(s->request, sizeof(s->request), "%.*s", (int)strcspn(req, "\r"), req);
        snprintf(hdr, sizeof(hdr),
                 "HTTP/1.1 %s\r\nContent-Type: application/xml\r\nContent-Length: %zu\r\n"
                 "Connection: close\r\n\r\n",
                 s->status, len);
        send_all(fd, hdr, strlen(hdr));
        for (size_t i = 0; i < s->repeat; i++)
            send_all(fd, s->body, strlen(s->body));
        close(fd);
    }
    return NULL;
}

static void srv_start(struct srv *s, const char *status, const char *body, size_t repeat)
{
    struct sockaddr_in a;
    socklen_t len = sizeof(a);
    char ep[64];

    memset(s, 0, sizeof(*s));
    s->status = status;
    s->body = body;
    s->repeat = repeat;
    s->lfd = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_ge(s->lfd, 0);
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(bind(s->lfd, (struct sockaddr *)&a, sizeof(a)), 0);
    ck_assert_int_eq(listen(s->lfd, 16), 0);
    getsockname(s->lfd, (struct sockaddr *)&a, &len);
    s->port = ntohs(a.sin_port);
    snprintf(ep, sizeof(ep), "http://127.0.0.1:%d", s->port);
    setenv("AWS_ENDPOINT_URL", ep, 1);
    unsetenv("AWS_ENDPOINT_URL_S3");
    unsetenv("AWS_ACCESS_KEY_ID");
    unsetenv("AWS_SECRET_ACCESS_KEY");
    pthread_create(&s->th, NULL, srv_main, s);
}

static void srv_stop(struct srv *s)
{
    s->stop = 1;
    pthread_join(s->th, NULL);
    close(s->lfd);
}

#define XML_HEAD "<?xml version=\"1.0\" encoding=\"UTF-8\"?><ListBucketResult>"
#define OBJ(key, etag, size)                                                                       \
    "<Contents><Key>" key "</Key><ETag>" etag "</ETag><Size>" size "</Size></Contents>"

START_TEST(test_page)
{
    static const char body[] = XML_HEAD
        "<IsTruncated>true</IsTruncated>"
        "<NextContinuationToken>tok+/=1</NextContinuationToken>" OBJ(
            "m/a.pt2", "&quot;e1&quot;", "100") OBJ("m/notes.txt", "&quot;e2&quot;", "5")
            OBJ("m/b &amp; c.pt2", "&#34;e3&#34;", "7") OBJ("m/sub/d.pt2", "&quot;e4&quot;", "x")
                OBJ("m/sub/e.pt2", "&quot;e5&quot;", "9") "</ListBucketResult>";
    struct pt2_remote_page pg;
    struct pt2_error err = {0};
    struct srv s;

    srv_start(&s, "200 OK", body, 1);
    ck_assert_int_eq(pt2_remote_list_page("s3://reg/m/", "prev/tok=", 500, NULL, &pg, &err),
                     PT2_OK);
    /* the query sorted and encoded as SigV4 canonicalises it */
    ck_assert_str_eq(s.request, "GET /reg/?continuation-token=prev%2Ftok%3D&list-type=2&"
                                "max-keys=500&prefix=m%2F HTTP/1.1");
    ck_assert_uint_eq(pg.listed, 5);
    ck_assert_uint_eq(pg.n, 3); /* notes.txt is no package; d.pt2's size is not a number */
    ck_assert_str_eq(pg.v[0].url, "s3://reg/m/a.pt2");
    ck_assert_str_eq(pg.v[0].key, "m/a.pt2");
    ck_assert_str_eq(pg.v[0].etag, "\"e1\"");
    ck_assert_uint_eq(pg.v[0].size, 100);
    ck_assert_str_eq(pg.v[1].key, "m/b & c.pt2");
    ck_assert_str_eq(pg.v[1].etag, "\"e3\"");
    ck_assert_str_eq(pg.v[2].url, "s3://reg/m/sub/e.pt2");
    ck_assert_str_eq(pg.next, "tok+/=1");
    pt2_remote_page_free(&pg);
    /* more keys than asked for are not believed */
    ck_assert_int_eq(pt2_remote_list_page("s3://reg/m/", NULL, 2, NULL, &pg, &err), PT2_OK);
    ck_assert_uint_eq(pg.listed, 2);
    ck_assert_uint_eq(pg.n, 1);
    pt2_remote_page_free(&pg);
    srv_stop(&s);
}
END_TEST

START_TEST(test_page_last_and_foreign_keys)
{
    /* the last page; a key outside the prefix (a store's bug) is not taken */
    static const char body[] =
        XML_HEAD "<IsTruncated>false</IsTruncated>" OBJ("other/x.pt2", "&quot;e&quot;", "1")
            OBJ("m/y.pt2", "", "2") "</ListBucketResult>";
    struct pt2_remote_page pg;
    struct pt2_error err = {0};
    struct srv s;

    srv_start(&s, "200 OK", body, 1);
    ck_assert_int_eq(pt2_remote_list_page("s3://reg/m/", NULL, 0, NULL, &pg, &err), PT2_OK);
    ck_assert_str_eq(s.request, "GET /reg/?list-type=2&max-keys=1000&prefix=m%2F HTTP/1.1");
    ck_assert_uint_eq(pg.n, 1);
    ck_assert_str_eq(pg.v[0].key, "m/y.pt2");
    ck_assert_str_eq(pg.v[0].etag, "");
    ck_assert_str_eq(pg.next, "");
    pt2_remote_page_free(&pg);
    srv_stop(&s);
}
END_TEST

START_TEST(test_page_errors)
{
    static const char truncated[] =
        XML_HEAD "<IsTruncated>true</IsTruncated>" OBJ("m/a.pt2", "e", "1") "</ListBucketResult>";
    static const char denied[] = "<?xml version=\"1.0\"?><Error><Code>SignatureDoesNotMatch</Code>"
                                 "<Message>no</Message></Error>";
    static const char nobucket[] = "<Error><Code>NoSuchBucket</Code></Error>";
    struct pt2_remote_page pg;
    struct pt2_error err = {0};
    char want[256];
    struct srv s;

    srv_start(&s, "200 OK", truncated, 1);
    ck_assert_int_eq(pt2_remote_list_page("s3://reg/m/", NULL, 0, NULL, &pg, &err),
                     PT2_ERR_REMOTE_UNREACHABLE);
    ck_assert_str_eq(err.message,
                     "s3://reg/m/: a truncated listing without a usable continuation token");
    pt2_remote_page_free(&pg);
    srv_stop(&s);

    pt2_error_clear(&err);
    srv_start(&s, "403 Forbidden", denied, 1);
    ck_assert_int_eq(pt2_remote_list_page("s3://reg/m/", NULL, 0, NULL, &pg, &err),
                     PT2_ERR_REMOTE_UNREACHABLE);
    ck_assert_str_eq(err.message,
                     "s3://reg/m/: the server answered HTTP 403, SignatureDoesNotMatch");
    pt2_remote_page_free(&pg);
    srv_stop(&s);

    pt2_error_clear(&err);
    srv_start(&s, "404 Not Found", nobucket, 1);
    ck_assert_int_eq(pt2_remote_list_page("s3://reg/m/", NULL, 0, NULL, &pg, &err),
                     PT2_ERR_NOT_FOUND);
    ck_assert_str_eq(err.message, "s3://reg/m/: not found (HTTP 404, NoSuchBucket)");
    pt2_remote_page_free(&pg);
    srv_stop(&s);

    /* an answer over the cap is cut, not kept */
    pt2_error_clear(&err);
    srv_start(&s, "200 OK", OBJ("m/a.pt2", "e", "1"), PT2_REMOTE_LIST_BODY_MAX / 60 + 1000);
    ck_assert_int_eq(pt2_remote_list_page("s3://reg/m/", NULL, 0, NULL, &pg, &err),
                     PT2_ERR_TOO_LARGE);
    snprintf(want, sizeof(want), "s3://reg/m/: the listing page is larger than %u bytes",
             PT2_REMOTE_LIST_BODY_MAX);
    ck_assert_str_eq(err.message, want);
    pt2_remote_page_free(&pg);
    srv_stop(&s);

    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_remote_list_page("s3://reg/m/a.pt2", NULL, 0, NULL, &pg, &err),
                     PT2_ERR_INVALID);
}
END_TEST

/* <Contents> with a LastModified, as S3 writes it or not. */
#define OBJT(key, when)                                                                            \
    "<Contents><Key>" key "</Key><LastModified>" when "</LastModified><ETag>&quot;e&quot;</ETag>"  \
    "<Size>3</Size></Contents>"

START_TEST(test_page_last_modified)
{
    /* the wanted times checked against Python's calendar.timegm */
    static const struct {
        const char *when;
        int has;
        long long t;
    } want[] = {
        {"2026-12-04T18:55:00.000Z", 1, 1796410500}, /* S3's own form */
        {"2026-12-04T18:55:00.999Z", 1, 1796410500}, /* the fraction dropped, not rounded */
        {"2026-12-04T18:55:00Z", 1, 1796410500},
        {"2024-02-29T00:00:00.5Z", 1, 1709164800}, /* a leap day */
        {"1970-01-01T00:00:00Z", 1, 0},
        {"2000-03-01T12:34:56.123456789Z", 1, 951914096},
        {"2100-02-28T23:59:59Z", 1, 4107542399},
        {"9999-12-31T23:59:59Z", 1, 253402300799},
        {"2025-02-29T00:00:00Z", 0, 0}, /* no such day */
        {"2100-02-29T00:00:00Z", 0, 0},
        {"2026-04-31T00:00:00Z", 0, 0},
        {"2026-13-01T00:00:00Z", 0, 0},
        {"2026-00-10T00:00:00Z", 0, 0},
        {"2026-12-04T24:00:00Z", 0, 0},
        {"2026-12-04T18:60:00Z", 0, 0},
        {"2026-12-04T18:55:60Z", 0, 0},
        {"1969-12-31T23:59:59Z", 0, 0},
        {"2026-12-04T18:55:00.Z", 0, 0},
        {"2026-12-04T18:55:00", 0, 0},
        {"2026-12-04T18:55:00+00:00", 0, 0},
        {"2026-12-04 18:55:00Z", 0, 0},
        {"2026-12-04T18:55:00.000ZZ", 0, 0},
        {"2026-1a-04T18:55:00Z", 0, 0},
        {"+026-12-04T18:55:00Z", 0, 0},
        {"", 0, 0},
    };
    char body[8192];
    size_t n = 0, i;
    struct pt2_remote_page pg;
    struct pt2_error err = {0};
    struct srv s;

    n += (size_t)snprintf(body + n, sizeof(body) - n, "%s", XML_HEAD);
    for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        n += (size_t)snprintf(body + n, sizeof(body) - n, OBJT("m/%02zu.pt2", "%s"), i,
                              want[i].when);
    /* no LastModified at all */
    n += (size_t)snprintf(body + n, sizeof(body) - n, "%s</ListBucketResult>",
                          OBJ("m/zz.pt2", "&quot;e&quot;", "4"));
    ck_assert_uint_lt(n, sizeof(body));
    srv_start(&s, "200 OK", body, 1);
    ck_assert_int_eq(pt2_remote_list_page("s3://reg/m/", NULL, 0, NULL, &pg, &err), PT2_OK);
    ck_assert_uint_eq(pg.n, i + 1);
    for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        ck_assert_msg(pg.v[i].has_mtime == want[i].has, "%s", want[i].when);
        ck_assert_msg(pg.v[i].mtime == (int64_t)want[i].t, "%s: %lld", want[i].when,
                      (long long)pg.v[i].mtime);
        ck_assert_uint_eq(pg.v[i].size, 3);
    }
    ck_assert_int_eq(pg.v[i].has_mtime, 0);
    ck_assert_uint_eq(pg.v[i].size, 4);
    pt2_remote_page_free(&pg);
    srv_stop(&s);
}
END_TEST

START_TEST(test_page_restricted)
{
    const char *allow[1] = {"s3://reg/m/deep/"};
    struct pt2_remote_opts o = {.restricted = 1, .allow = allow, .n_allow = 1};
    struct pt2_remote_page pg;
    struct pt2_error err = {0};

    /* refused before anything is sent: no server runs */
    ck_assert_int_eq(pt2_remote_list_page("s3://reg/m/", NULL, 0, &o, &pg, &err),
                     PT2_ERR_REMOTE_REFUSED);
    ck_assert_str_eq(err.message, "s3://reg/m/ is not under any allowed URL prefix");
    pt2_remote_page_free(&pg);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("remote_list");
    TCase *tc = tcase_create("rules"), *tp = tcase_create("pages");

    tcase_add_test(tc, test_shard);
    tcase_add_test(tc, test_is_prefix);
    tcase_add_test(tc, test_map_bucket);
    suite_add_tcase(s, tc);
    tcase_add_test(tp, test_page);
    tcase_add_test(tp, test_page_last_and_foreign_keys);
    tcase_add_test(tp, test_page_errors);
    tcase_add_test(tp, test_page_restricted);
    tcase_add_test(tp, test_page_last_modified);
    tcase_set_timeout(tp, 30);
    suite_add_tcase(s, tp);
    return s;
}

int main(void)
{
    int rc;

    curl_global_init(CURL_GLOBAL_DEFAULT);
    rc = tu_run_suite(suite());
    curl_global_cleanup();
    return rc;
}
