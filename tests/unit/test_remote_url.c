/*
 * test_remote_url.c - the remote layer's rules without a network
 * (service/remote/pt2_remote_url.h): which URLs are accepted, the allow list
 * in restricted and unrestricted mode, display URLs and names, s3:// mapping
 * with and without AWS_ENDPOINT_URL(_S3), redirect targets, address classes
 * and Content-Range; then a few transfers (pt2_remote.c) against a scripted
 * HTTP/1.1 server on loopback run by this test: a suffix answered from
 * offset 0, a server without Range, an empty object, redirects, a changed
 * object, a server that sends too much, the byte budget and the deadline.
 * The servers the product meets (nginx, s3rver) are tests/remote's.
 */
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <curl/curl.h>

#include "pt2_remote.h"
#include "pt2_remote_url.h"
#include "pt2scope.h"
#include "testutil.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ---- URLs ------------------------------------------------------------------ */

START_TEST(test_is_url)
{
    ck_assert_int_eq(pt2_remote_is_url("http://h/x.pt2"), 1);
    ck_assert_int_eq(pt2_remote_is_url("HTTPS://h/x.pt2"), 1);
    ck_assert_int_eq(pt2_remote_is_url("s3://bucket/key"), 1);
    ck_assert_int_eq(pt2_remote_is_url("S3://bucket/key"), 1);
    ck_assert_int_eq(pt2_remote_is_url("ftp://h/x.pt2"), 0);
    ck_assert_int_eq(pt2_remote_is_url("http:/h/x.pt2"), 0);
    ck_assert_int_eq(pt2_remote_is_url("/tmp/x.pt2"), 0);
    ck_assert_int_eq(pt2_remote_is_url("model.pt2"), 0);
    ck_assert_int_eq(pt2_remote_is_url(""), 0);
    ck_assert_int_eq(pt2_remote_is_url(NULL), 0);
    ck_assert_int_eq(pt2_remote_url_scheme("Http://h/"), PT2_REMOTE_SCHEME_HTTP);
    ck_assert_int_eq(pt2_remote_url_scheme("https://h/"), PT2_REMOTE_SCHEME_HTTPS);
    ck_assert_int_eq(pt2_remote_url_scheme("s3://b/k"), PT2_REMOTE_SCHEME_S3);
}
END_TEST

static int check(const char *url, const struct pt2_remote_opts *o, struct pt2_error *err)
{
    pt2_error_clear(err);
    return pt2_remote_check_url(url, o, err);
}

START_TEST(test_check_unrestricted)
{
    static const char *good[] = {"https://models.example.com/a.pt2",
                                 "http://127.0.0.1:8080/x.pt2",
                                 "http://169.254.169.254/latest/meta-data",
                                 "https://u:p@h.example.com/a.pt2?sig=1#f",
                                 "s3://bucket/key.pt2",
                                 "s3://my.bucket/dir/a b+c.pt2",
                                 "s3://b/k?x#y"};
    static const char *bad[] = {"",
                                "ftp://h/x.pt2",
                                "file:///etc/passwd",
                                "/tmp/x.pt2",
                                "http://",
                                "http:///x",
                                "http://h/a b.pt2",
                                "http://h/\x01",
                                "s3://bucket",
                                "s3://bucket/",
                                "s3:///key",
                                "s3://bu@cket/key",
                                "s3://-bucket/key",
                                "s3://bucket/a/../b.pt2",
                                "s3://bucket/./b.pt2",
                                "s3://bucket/a\x01"};
    struct pt2_remote_opts o = {0};
    struct pt2_error err;
    char *longurl;
    size_t i;

    for (i = 0; i < N(good); i++)
        ck_assert_msg(check(good[i], &o, &err) == PT2_OK, "%s: %s", good[i], err.message);
    ck_assert_int_eq(check("https://h/x", NULL, &err), PT2_OK);
    for (i = 0; i < N(bad); i++)
        ck_assert_msg(check(bad[i], &o, &err) == PT2_ERR_INVALID, "%s accepted", bad[i]);
    ck_assert_int_eq(check(NULL, &o, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "no URL given");
    ck_assert_int_eq(check("ftp://h/x", &o, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "not an http://, https:// or s3:// URL");

    longurl = malloc(PT2_REMOTE_URL_MAX + 2);
    ck_assert_ptr_nonnull(longurl);
    memset(longurl, 'a', PT2_REMOTE_URL_MAX + 1);
    memcpy(longurl, "https://h/", 10);
    longurl[PT2_REMOTE_URL_MAX + 1] = '\0';
    ck_assert_int_eq(check(longurl, &o, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "the URL is longer than 4096 bytes");
    longurl[PT2_REMOTE_URL_MAX] = '\0'; /* exactly the limit */
    ck_assert_int_eq(check(longurl, &o, &err), PT2_OK);
    free(longurl);
}
END_TEST

static const char *const allow_list[] = {"https://models.example.com/team/", "s3://bucket/models/",
                                         "http://127.0.0.1:8080/", "https://a.example.com",
                                         "s3://whole"};

START_TEST(test_check_restricted)
{
    static const char *ok[] = {"https://models.example.com/team/a.pt2",
                               "https://MODELS.Example.COM/team/a.pt2",
                               "https://models.example.com:443/team/a.pt2",
                               "https://u:p@models.example.com/team/sub/a.pt2?x=1#f",
                               "https://models.example.com/team/",
                               "https://a.example.com/anything/x.pt2",
                               "https://a.example.com",
                               "http://127.0.0.1:8080/x.pt2",
                               "s3://bucket/models/m.pt2",
                               "s3://bucket/models/deep/er/m.pt2",
                               "s3://whole/any/key.pt2"};
    static const char *refused[] = {"https://models.example.com/other/a.pt2",
                                    "https://models.example.com/team",
                                    "https://models.example.com/teamx/a.pt2",
                                    "https://models.example.com.evil.com/team/a.pt2",
                                    "https://evil.com/https://models.example.com/team/a.pt2",
                                    "https://models.example.com:8443/team/a.pt2",
                                    "http://models.example.com/team/a.pt2",
                                    "https://models.example.com/team/../secret.pt2",
                                    "https://models.example.com/team/%2e%2e/secret.pt2",
                                    "https://models.example.com/team/%2E%2E/secret.pt2",
                                    "https://models.example.com/team/..%5csecret.pt2",
                                    "https://b.example.com/x.pt2",
                                    "http://127.0.0.1:8081/x.pt2",
                                    "http://127.0.0.1/x.pt2",
                                    "http://localhost:8080/x.pt2",
                                    "s3://bucket/other/m.pt2",
                                    "s3://bucket/modelsx/m.pt2",
                                    "s3://bucket2/models/m.pt2",
                                    "s3://bucke/models/m.pt2",
                                    "s3://wholex/any/key.pt2"};
    struct pt2_remote_opts o = {.restricted = 1, .allow = allow_list, .n_allow = N(allow_list)};
    struct pt2_error err;
    size_t i;

    for (i = 0; i < N(ok); i++)
        ck_assert_msg(check(ok[i], &o, &err) == PT2_OK, "%s: %s", ok[i], err.message);
    for (i = 0; i < N(refused); i++)
        ck_assert_msg(check(refused[i], &o, &err) == PT2_ERR_REMOTE_REFUSED, "%s: %d %s",
                      refused[i], err.code, err.message);
    /* the message names the display URL only: no credentials, no signature */
    ck_assert_int_eq(
        check("https://u:secret@models.example.com/other/a.pt2?X-Amz-Signature=s#f", &o, &err),
        PT2_ERR_REMOTE_REFUSED);
    ck_assert_str_eq(err.message,
                     "https://models.example.com/other/a.pt2 is not under any allowed URL prefix");
    ck_assert_int_eq(check("s3://bucket/other/m.pt2", &o, &err), PT2_ERR_REMOTE_REFUSED);
    ck_assert_str_eq(err.message, "s3://bucket/other/m.pt2 is not under any allowed URL prefix");
    /* syntax first: an invalid URL is invalid whatever the list */
    ck_assert_int_eq(check("s3://bucket/", &o, &err), PT2_ERR_INVALID);
    ck_assert_int_eq(check("s3://bucket/models/", &o, &err), PT2_OK); /* a key, if an odd one */
    /* an empty list allows nothing */
    o.n_allow = 0;
    ck_assert_int_eq(check("https://models.example.com/team/a.pt2", &o, &err),
                     PT2_ERR_REMOTE_REFUSED);
    /* unrestricted ignores the list */
    o.restricted = 0;
    o.n_allow = N(allow_list);
    ck_assert_int_eq(check("https://models.example.com.evil.com/team/a.pt2", &o, &err), PT2_OK);
}
END_TEST

START_TEST(test_allow_match)
{
    ck_assert_int_eq(
        pt2_remote_url_allow_match("https://h.example.com/p/", "https://h.example.com/p/x"), 1);
    ck_assert_int_eq(
        pt2_remote_url_allow_match("https://h.example.com/p/", "https://h.example.com/P/x"), 0);
    /* a prefix ends at a segment boundary */
    ck_assert_int_eq(
        pt2_remote_url_allow_match("https://h.example.com/p", "https://h.example.com/px"), 0);
    ck_assert_int_eq(
        pt2_remote_url_allow_match("https://h.example.com/a%20b/", "https://h.example.com/a b/x"),
        0); /* a blank is no URL */
    ck_assert_int_eq(
        pt2_remote_url_allow_match("https://h.example.com/a%20b/", "https://h.example.com/a%20b/x"),
        1);
    ck_assert_int_eq(
        pt2_remote_url_allow_match("https://h.example.com/a b/", "https://h.example.com/a%20b/x"),
        0);
    ck_assert_int_eq(pt2_remote_url_allow_match("https://h.example.com/models/",
                                                "https://h.example.com/%6dodels/x"),
                     1);
    ck_assert_int_eq(
        pt2_remote_url_allow_match("http://h.example.com/", "http://h.example.com:80/x"), 1);
    ck_assert_int_eq(
        pt2_remote_url_allow_match("http://h.example.com:80/", "http://h.example.com/x"), 1);
    ck_assert_int_eq(
        pt2_remote_url_allow_match("https://h.example.com:443/", "https://h.example.com/x"), 1);
    ck_assert_int_eq(
        pt2_remote_url_allow_match("https://h.example.com/", "http://h.example.com:443/x"), 0);
    ck_assert_int_eq(pt2_remote_url_allow_match("http://[::1]:9000/", "http://[::1]:9000/x"), 1);
    ck_assert_int_eq(pt2_remote_url_allow_match("http://[::1]:9000/", "http://[::2]:9000/x"), 0);
    ck_assert_int_eq(
        pt2_remote_url_allow_match("http://h.example.com/", "http://h.example.com/%00"), 0);
    ck_assert_int_eq(pt2_remote_url_allow_match("s3://b/", "s3://b/k"), 1);
    ck_assert_int_eq(pt2_remote_url_allow_match("s3://b", "s3://b/k"), 1);
    ck_assert_int_eq(pt2_remote_url_allow_match("s3://b/p/", "s3://b/p"), 0);
    ck_assert_int_eq(pt2_remote_url_allow_match("s3://b/p/", "s3://b/p/../q"), 0);
    ck_assert_int_eq(pt2_remote_url_allow_match("s3://b/", "https://b/k"), 0);
    ck_assert_int_eq(pt2_remote_url_allow_match("garbage", "https://b/k"), 0);
    /* a scheme alone: any host of that scheme (the address rules then decide) */
    ck_assert_int_eq(pt2_remote_url_allow_match("https://", "https://b/k"), 1);
}
END_TEST

START_TEST(test_check_allow)
{
    static const char *good[] = {"https://h.example.com",
                                 "https://h.example.com/p/",
                                 "http://127.0.0.1:8080/",
                                 "http://[::1]:9000/",
                                 "s3://bucket",
                                 "s3://bucket/",
                                 "s3://bucket/prefix/",
                                 "https://",
                                 "HTTP://"};
    static const char *bad[] = {"",
                                "ftp://h/",
                                "h.example.com/",
                                "https:/",
                                "https://u:p@h/",
                                "https://h/?q=1",
                                "https://h/#f",
                                "s3://",
                                "s3://b@d/",
                                "s3://b/../x"};
    struct pt2_error err;
    size_t i;

    for (i = 0; i < N(good); i++) {
        pt2_error_clear(&err);
        ck_assert_msg(pt2_remote_check_allow(good[i], &err) == PT2_OK, "%s: %s", good[i],
                      err.message);
    }
    for (i = 0; i < N(bad); i++) {
        pt2_error_clear(&err);
        ck_assert_msg(pt2_remote_check_allow(bad[i], &err) == PT2_ERR_INVALID, "%s accepted",
                      bad[i]);
    }
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_remote_check_allow(NULL, &err), PT2_ERR_INVALID);
}
END_TEST

START_TEST(test_host_named)
{
    static const char *const allow[] = {"http://127.0.0.1:8080/m/", "http://[::1]:9000/",
                                        "https://Name.Example.com/", "s3://bucket/", "https://"};
    struct pt2_remote_opts o = {.restricted = 1, .allow = allow, .n_allow = N(allow)};

    ck_assert_int_eq(pt2_remote_url_host_named("http://127.0.0.1:8080/m/x.pt2", &o), 1);
    ck_assert_int_eq(pt2_remote_url_host_named("http://[::1]:9000/x.pt2", &o), 1);
    /* the same host elsewhere (port, path, scheme) is not what the operator named, even
     * though "https://" lets such a URL through: its addresses decide */
    ck_assert_int_eq(pt2_remote_url_host_named("http://127.0.0.1:8081/m/x.pt2", &o), 0);
    ck_assert_int_eq(pt2_remote_url_host_named("http://127.0.0.1:8080/other/x.pt2", &o), 0);
    ck_assert_int_eq(pt2_remote_url_host_named("https://127.0.0.1:8080/m/x.pt2", &o), 0);
    ck_assert_int_eq(pt2_remote_url_host_named("https://127.0.0.1:6443/api", &o), 0);
    /* a name the operator wrote down is theirs, whatever it resolves to */
    ck_assert_int_eq(pt2_remote_url_host_named("https://name.example.com/x.pt2", &o), 1);
    ck_assert_int_eq(pt2_remote_url_host_named("https://other.example.com/x.pt2", &o), 0);
    /* a scheme-only entry and an s3 entry name no host */
    ck_assert_int_eq(pt2_remote_url_host_named("https://localhost/x.pt2", &o), 0);
    ck_assert_int_eq(pt2_remote_url_host_named("s3://bucket/x.pt2", &o), 0);
    ck_assert_int_eq(pt2_remote_url_host_named(NULL, &o), 0);
    o.n_allow = 0;
    ck_assert_int_eq(pt2_remote_url_host_named("http://127.0.0.1:8080/m/x.pt2", &o), 0);
    /* a scheme-only entry matches any URL of its scheme, and only that */
    ck_assert_int_eq(pt2_remote_url_allow_match("https://", "https://a.example.com/x.pt2"), 1);
    ck_assert_int_eq(pt2_remote_url_allow_match("https://", "http://a.example.com/x.pt2"), 0);
    ck_assert_int_eq(pt2_remote_url_allow_match("http://", "s3://b/k"), 0);
    /* prefixes end at a segment boundary */
    ck_assert_int_eq(pt2_remote_url_allow_match("https://h/models", "https://h/models/x"), 1);
    ck_assert_int_eq(pt2_remote_url_allow_match("https://h/models", "https://h/models"), 1);
    ck_assert_int_eq(pt2_remote_url_allow_match("https://h/models", "https://h/models-x/y"), 0);
    ck_assert_int_eq(pt2_remote_url_allow_match("s3://b/team-a", "s3://b/team-a/k"), 1);
    ck_assert_int_eq(pt2_remote_url_allow_match("s3://b/team-a", "s3://b/team-a-secrets/k"), 0);
    ck_assert_int_eq(pt2_remote_url_allow_match("s3://b/team-a/", "s3://b/team-a/k"), 1);
}
END_TEST

START_TEST(test_display)
{
    static const struct {
        const char *url, *display, *name;
    } cases[] = {
        {"https://user:pass@h.example.com/a/b.pt2?X-Amz-Signature=abc&X-Amz-Credential=k#frag",
         "https://h.example.com/a/b.pt2", "b.pt2"},
        {"https://user@h.example.com:8443/m.pt2", "https://h.example.com:8443/m.pt2", "m.pt2"},
        {"HTTP://h.example.com/dir/my%20model.pt2", "http://h.example.com/dir/my%20model.pt2",
         "my model.pt2"},
        {"http://h.example.com", "http://h.example.com/", "package.pt2"},
        {"http://h.example.com/dir/?x=1", "http://h.example.com/dir/", "package.pt2"},
        {"http://h.example.com/a%2Fb", "http://h.example.com/a%2Fb", "a%2Fb"},
        {"http://h.example.com/a%00b", "http://h.example.com/a%00b", "a%00b"},
        {"http://[::1]:9000/x.pt2", "http://[::1]:9000/x.pt2", "x.pt2"},
        {"s3://bucket/dir/a b%20c.pt2", "s3://bucket/dir/a b%20c.pt2", "a b%20c.pt2"},
        {"s3://bucket/k?x#y", "s3://bucket/k?x#y", "k?x#y"},
        {"S3://bucket/k", "s3://bucket/k", "k"},
    };
    char out[PT2_REMOTE_URL_MAX + 1], name[PT2_REMOTE_NAME_MAX], tiny[8];
    size_t i;

    for (i = 0; i < N(cases); i++) {
        ck_assert_int_eq(pt2_remote_url_display(cases[i].url, out, sizeof(out)), PT2_OK);
        ck_assert_str_eq(out, cases[i].display);
        pt2_remote_url_name(out, name, sizeof(name));
        ck_assert_str_eq(name, cases[i].name);
    }
    ck_assert_int_eq(pt2_remote_url_display("ftp://h/x", out, sizeof(out)), PT2_ERR_INVALID);
    ck_assert_int_eq(pt2_remote_url_display("http://h/x.pt2", tiny, sizeof(tiny)), PT2_ERR_INVALID);
    pt2_remote_url_name("http://h.example.com/abcdefghij", tiny, sizeof(tiny));
    ck_assert_str_eq(tiny, "abcdefg");
}
END_TEST

START_TEST(test_resolve)
{
    static const struct {
        const char *loc, *want;
    } cases[] = {
        {"../d.pt2", "http://h.example.com/a/d.pt2"},
        {"e.pt2", "http://h.example.com/a/b/e.pt2"},
        {"/x.pt2", "http://h.example.com/x.pt2"},
        {"?q=1", "http://h.example.com/a/b/c.pt2?q=1"},
        {"https://o.example.com/y.pt2#frag", "https://o.example.com/y.pt2"},
        {"//p.example.com/z.pt2", "http://p.example.com/z.pt2"},
        {"HTTP://P.example.com:80/z", "http://P.example.com:80/z"},
        {"ftp://f.example.com/x", "ftp://f.example.com/x"}, /* the hop check refuses it */
        /* credentials in a Location are dropped, never sent to the host it names */
        {"http://user:pass@o.example.com/c.pt2", "http://o.example.com/c.pt2"},
        {"http://user@o.example.com/c.pt2", "http://o.example.com/c.pt2"},
        {"https://:secret@o.example.com:8443/c.pt2", "https://o.example.com:8443/c.pt2"},
    };
    const char *base = "http://h.example.com/a/b/c.pt2";
    char out[PT2_REMOTE_URL_MAX + 1];
    size_t i;

    for (i = 0; i < N(cases); i++) {
        ck_assert_msg(pt2_remote_url_resolve(base, cases[i].loc, out, sizeof(out)) == PT2_OK, "%s",
                      cases[i].loc);
        ck_assert_str_eq(out, cases[i].want);
    }
    ck_assert_int_eq(pt2_remote_url_resolve(base, "", out, sizeof(out)), PT2_ERR_INVALID);
    ck_assert_int_eq(pt2_remote_url_resolve(base, "/a b", out, sizeof(out)), PT2_ERR_INVALID);
    ck_assert_int_eq(pt2_remote_url_resolve(base, "/a\r\nX: y", out, sizeof(out)), PT2_ERR_INVALID);
    ck_assert_int_eq(pt2_remote_url_resolve(base, NULL, out, sizeof(out)), PT2_ERR_INVALID);
}
END_TEST

START_TEST(test_host)
{
    char host[PT2_REMOTE_HOST_MAX];
    long port = 0;

    ck_assert_int_eq(pt2_remote_url_host("https://H.example.com/x", host, sizeof(host), &port),
                     PT2_OK);
    ck_assert_str_eq(host, "H.example.com");
    ck_assert_int_eq(port, 443);
    ck_assert_int_eq(pt2_remote_url_host("http://h:8080", host, sizeof(host), &port), PT2_OK);
    ck_assert_int_eq(port, 8080);
    ck_assert_int_eq(pt2_remote_url_host("http://[::1]/", host, sizeof(host), &port), PT2_OK);
    ck_assert_str_eq(host, "[::1]");
    ck_assert_int_eq(port, 80);
    ck_assert_int_eq(pt2_remote_url_host("s3://b/k", host, sizeof(host), &port), PT2_ERR_INVALID);
}
END_TEST

/* ---- S3 ---------------------------------------------------------------------- */

START_TEST(test_s3_map)
{
    static const struct {
        const char *endpoint, *region, *url, *want, *host;
        long port;
        int endpoint_set;
    } cases[] = {
        {NULL, NULL, "s3://bucket/dir/m.pt2", "https://bucket.s3.us-east-1.amazonaws.com/dir/m.pt2",
         "bucket.s3.us-east-1.amazonaws.com", 443, 0},
        {"", "", "s3://bucket/m.pt2", "https://bucket.s3.us-east-1.amazonaws.com/m.pt2",
         "bucket.s3.us-east-1.amazonaws.com", 443, 0},
        {NULL, "eu-west-3", "s3://bucket/m.pt2", "https://bucket.s3.eu-west-3.amazonaws.com/m.pt2",
         "bucket.s3.eu-west-3.amazonaws.com", 443, 0},
        {NULL, NULL, "s3://my.bucket/dir/m.pt2",
         "https://s3.us-east-1.amazonaws.com/my.bucket/dir/m.pt2", "s3.us-east-1.amazonaws.com",
         443, 0},
        {NULL, "ap-south-1", "s3://Legacy_Bucket/m.pt2",
         "https://s3.ap-south-1.amazonaws.com/Legacy_Bucket/m.pt2", "s3.ap-south-1.amazonaws.com",
         443, 0},
        {NULL, NULL, "s3://bucket/a b+c~d/\xc3\xa9%?#=&.pt2",
         "https://bucket.s3.us-east-1.amazonaws.com/a%20b%2Bc~d/%C3%A9%25%3F%23%3D%26.pt2",
         "bucket.s3.us-east-1.amazonaws.com", 443, 0},
        {"http://127.0.0.1:9000", NULL, "s3://bucket/dir/m.pt2",
         "http://127.0.0.1:9000/bucket/dir/m.pt2", "127.0.0.1", 9000, 1},
        {"http://127.0.0.1:9000/", "eu-west-1", "s3://my.bucket/m.pt2",
         "http://127.0.0.1:9000/my.bucket/m.pt2", "127.0.0.1", 9000, 1},
        {"https://minio.example.com/s3//", NULL, "s3://bucket/k",
         "https://minio.example.com/s3/bucket/k", "minio.example.com", 443, 1},
    };
    struct pt2_remote_s3 m;
    struct pt2_remote_s3_env env;
    struct pt2_error err;
    size_t i;

    for (i = 0; i < N(cases); i++) {
        env.endpoint = cases[i].endpoint;
        env.region = cases[i].region;
        pt2_error_clear(&err);
        ck_assert_msg(pt2_remote_s3_map(cases[i].url, &env, &m, &err) == PT2_OK, "%s: %s",
                      cases[i].url, err.message);
        ck_assert_str_eq(m.url, cases[i].want);
        ck_assert_str_eq(m.host, cases[i].host);
        ck_assert_int_eq(m.port, cases[i].port);
        ck_assert_int_eq(m.endpoint, cases[i].endpoint_set);
        ck_assert_str_eq(m.region, cases[i].region != NULL && cases[i].region[0] != '\0'
                                       ? cases[i].region
                                       : "us-east-1");
    }
    env.endpoint = NULL;
    env.region = "US EAST";
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_remote_s3_map("s3://bucket/k", &env, &m, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "AWS_REGION 'US EAST' is not a region name");
    env.region = NULL;
    env.endpoint = "ftp://x/";
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_remote_s3_map("s3://bucket/k", &env, &m, &err), PT2_ERR_INVALID);
    env.endpoint = "http://h/?q=1";
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_remote_s3_map("s3://bucket/k", &env, &m, &err), PT2_ERR_INVALID);
    env.endpoint = NULL;
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_remote_s3_map("s3://bucket/", &env, &m, &err), PT2_ERR_INVALID);
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_remote_s3_map("https://bucket/k", &env, &m, &err), PT2_ERR_INVALID);
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_remote_s3_map("s3://bucket/a/../k", &env, &m, &err), PT2_ERR_INVALID);
    /* S3's own key limit, then the URL limit once encoded */
    {
        char url[1100], ep[1200];

        memcpy(url, "s3://b/", 7);
        memset(url + 7, ' ', 1024);
        url[7 + 1024] = '\0';
        pt2_error_clear(&err);
        ck_assert_int_eq(pt2_remote_s3_map(url, &env, &m, &err), PT2_OK);
        ck_assert_uint_eq(strlen(m.url),
                          strlen("https://s3.us-east-1.amazonaws.com/b/") + 3 * 1024);
        url[7] = '\x7f';
        pt2_error_clear(&err);
        ck_assert_int_eq(pt2_remote_s3_map(url, &env, &m, &err), PT2_ERR_INVALID);
        url[7] = ' ';
        url[7 + 1024] = 'x';
        url[7 + 1025] = '\0';
        pt2_error_clear(&err);
        ck_assert_int_eq(pt2_remote_s3_map(url, &env, &m, &err), PT2_ERR_INVALID);
        url[7 + 1024] = '\0';
        memcpy(ep, "http://h/", 9);
        memset(ep + 9, 'p', 1100);
        ep[9 + 1100] = '\0';
        env.endpoint = ep;
        pt2_error_clear(&err);
        ck_assert_int_eq(pt2_remote_s3_map(url, &env, &m, &err), PT2_ERR_INVALID);
        ck_assert_str_eq(err.message, "the S3 URL is longer than 4096 bytes");
    }
}
END_TEST

START_TEST(test_s3_env)
{
    struct pt2_remote_s3_env env;

    unsetenv("AWS_ENDPOINT_URL_S3");
    unsetenv("AWS_ENDPOINT_URL");
    unsetenv("AWS_REGION");
    pt2_remote_s3_env_get(&env);
    ck_assert_ptr_null(env.endpoint);
    ck_assert_ptr_null(env.region);
    setenv("AWS_ENDPOINT_URL", "http://generic:9000", 1);
    setenv("AWS_REGION", "eu-central-1", 1);
    pt2_remote_s3_env_get(&env);
    ck_assert_str_eq(env.endpoint, "http://generic:9000");
    ck_assert_str_eq(env.region, "eu-central-1");
    setenv("AWS_ENDPOINT_URL_S3", "http://s3only:9000", 1);
    pt2_remote_s3_env_get(&env);
    ck_assert_str_eq(env.endpoint, "http://s3only:9000");
    setenv("AWS_ENDPOINT_URL_S3", "", 1); /* empty is unset */
    pt2_remote_s3_env_get(&env);
    ck_assert_str_eq(env.endpoint, "http://generic:9000");
    unsetenv("AWS_ENDPOINT_URL_S3");
    unsetenv("AWS_ENDPOINT_URL");
    unsetenv("AWS_REGION");
}
END_TEST

/* ---- addresses ------------------------------------------------------------------ */

static int class_of(const char *text)
{
    struct sockaddr_in in;
    struct sockaddr_in6 in6;

    memset(&in, 0, sizeof(in));
    memset(&in6, 0, sizeof(in6));
    if (inet_pton(AF_INET, text, &in.sin_addr) == 1) {
        in.sin_family = AF_INET;
        return pt2_remote_addr_class((struct sockaddr *)&in, sizeof(in));
    }
    ck_assert_msg(inet_pton(AF_INET6, text, &in6.sin6_addr) == 1, "%s", text);
    in6.sin6_family = AF_INET6;
    return pt2_remote_addr_class((struct sockaddr *)&in6, sizeof(in6));
}

START_TEST(test_addr_class)
{
    static const struct {
        const char *addr;
        int cls;
    } cases[] = {
        {"127.0.0.1", PT2_REMOTE_ADDR_LOOPBACK},
        {"127.255.1.2", PT2_REMOTE_ADDR_LOOPBACK},
        {"10.0.0.1", PT2_REMOTE_ADDR_PRIVATE},
        {"10.255.255.255", PT2_REMOTE_ADDR_PRIVATE},
        {"172.16.0.1", PT2_REMOTE_ADDR_PRIVATE},
        {"172.31.255.255", PT2_REMOTE_ADDR_PRIVATE},
        {"172.15.255.255", PT2_REMOTE_ADDR_PUBLIC},
        {"172.32.0.1", PT2_REMOTE_ADDR_PUBLIC},
        {"192.168.1.1", PT2_REMOTE_ADDR_PRIVATE},
        {"192.169.0.1", PT2_REMOTE_ADDR_PUBLIC},
        {"100.64.0.1", PT2_REMOTE_ADDR_CGNAT},
        {"100.100.100.200", PT2_REMOTE_ADDR_CGNAT}, /* Alibaba metadata */
        {"100.127.255.255", PT2_REMOTE_ADDR_CGNAT},
        {"100.128.0.1", PT2_REMOTE_ADDR_PUBLIC},
        {"100.63.255.255", PT2_REMOTE_ADDR_PUBLIC},
        {"169.254.169.254", PT2_REMOTE_ADDR_LINK_LOCAL}, /* AWS, GCP, Azure metadata */
        {"169.254.0.1", PT2_REMOTE_ADDR_LINK_LOCAL},
        {"0.0.0.0", PT2_REMOTE_ADDR_UNSPECIFIED},
        {"0.1.2.3", PT2_REMOTE_ADDR_UNSPECIFIED},
        {"224.0.0.1", PT2_REMOTE_ADDR_MULTICAST},
        {"239.255.255.250", PT2_REMOTE_ADDR_MULTICAST},
        {"255.255.255.255", PT2_REMOTE_ADDR_BROADCAST},
        {"240.0.0.1", PT2_REMOTE_ADDR_RESERVED},
        {"255.255.255.254", PT2_REMOTE_ADDR_RESERVED},
        {"192.0.0.170", PT2_REMOTE_ADDR_RESERVED},
        {"198.18.0.1", PT2_REMOTE_ADDR_RESERVED},
        {"198.19.255.255", PT2_REMOTE_ADDR_RESERVED},
        {"198.20.0.1", PT2_REMOTE_ADDR_PUBLIC},
        {"8.8.8.8", PT2_REMOTE_ADDR_PUBLIC},
        {"1.1.1.1", PT2_REMOTE_ADDR_PUBLIC},
        {"223.255.255.255", PT2_REMOTE_ADDR_PUBLIC},
        {"::1", PT2_REMOTE_ADDR_LOOPBACK},
        {"::", PT2_REMOTE_ADDR_UNSPECIFIED},
        {"fe80::1", PT2_REMOTE_ADDR_LINK_LOCAL},
        {"febf:ffff::1", PT2_REMOTE_ADDR_LINK_LOCAL},
        {"fec0::1", PT2_REMOTE_ADDR_PRIVATE},
        {"fc00::1", PT2_REMOTE_ADDR_UNIQUE_LOCAL},
        {"fd00:ec2::254", PT2_REMOTE_ADDR_UNIQUE_LOCAL}, /* AWS metadata over IPv6 */
        {"ff02::1", PT2_REMOTE_ADDR_MULTICAST},
        {"::ffff:127.0.0.1", PT2_REMOTE_ADDR_LOOPBACK},
        {"::ffff:169.254.169.254", PT2_REMOTE_ADDR_LINK_LOCAL},
        {"::ffff:10.1.2.3", PT2_REMOTE_ADDR_PRIVATE},
        {"::ffff:8.8.8.8", PT2_REMOTE_ADDR_PUBLIC},
        {"64:ff9b::169.254.169.254", PT2_REMOTE_ADDR_LINK_LOCAL},
        {"64:ff9b::7f00:1", PT2_REMOTE_ADDR_LOOPBACK},
        {"64:ff9b::8.8.8.8", PT2_REMOTE_ADDR_PUBLIC},
        {"2002:7f00:1::", PT2_REMOTE_ADDR_LOOPBACK},
        {"2002:a9fe:a9fe::1", PT2_REMOTE_ADDR_LINK_LOCAL},
        {"::127.0.0.1", PT2_REMOTE_ADDR_RESERVED},
        {"64:ff9b:1::a9fe:a9fe", PT2_REMOTE_ADDR_RESERVED}, /* local-use NAT64 */
        {"2001:0:4136:e378::1", PT2_REMOTE_ADDR_RESERVED},  /* Teredo */
        {"2001:4860::8888", PT2_REMOTE_ADDR_PUBLIC},
        {"2001:4860:4860::8888", PT2_REMOTE_ADDR_PUBLIC},
        {"2606:4700:4700::1111", PT2_REMOTE_ADDR_PUBLIC},
    };
    struct sockaddr_in in;
    struct sockaddr sa;
    size_t i;

    for (i = 0; i < N(cases); i++)
        ck_assert_msg(class_of(cases[i].addr) == cases[i].cls, "%s: %d, not %d", cases[i].addr,
                      class_of(cases[i].addr), cases[i].cls);
    /* what is not a whole IPv4 or IPv6 address is not public */
    memset(&in, 0, sizeof(in));
    in.sin_family = AF_INET;
    in.sin_addr.s_addr = htonl(0x08080808);
    ck_assert_int_eq(pt2_remote_addr_class((struct sockaddr *)&in, sizeof(in)),
                     PT2_REMOTE_ADDR_PUBLIC);
    ck_assert_int_eq(pt2_remote_addr_class((struct sockaddr *)&in, 4), PT2_REMOTE_ADDR_RESERVED);
    memset(&sa, 0, sizeof(sa));
    sa.sa_family = AF_UNIX;
    ck_assert_int_eq(pt2_remote_addr_class(&sa, sizeof(sa)), PT2_REMOTE_ADDR_RESERVED);
    ck_assert_int_eq(pt2_remote_addr_class(NULL, 0), PT2_REMOTE_ADDR_RESERVED);
    ck_assert_str_eq(pt2_remote_addr_class_name(PT2_REMOTE_ADDR_PUBLIC), "public");
    ck_assert_str_eq(pt2_remote_addr_class_name(PT2_REMOTE_ADDR_LOOPBACK), "loopback");
    ck_assert_str_eq(pt2_remote_addr_class_name(PT2_REMOTE_ADDR_LINK_LOCAL),
                     "link-local (cloud metadata)");
    ck_assert_str_eq(pt2_remote_addr_class_name(999), "reserved");
}
END_TEST

/* ---- Content-Range ---------------------------------------------------------------- */

START_TEST(test_content_range)
{
    static const struct {
        const char *v;
        uint64_t first, last, total;
        int unsatisfied;
    } good[] = {
        {"bytes 0-99/100", 0, 99, 100, 0},
        {"bytes 737856-999999/1000000", 737856, 999999, 1000000, 0},
        {"bytes 5-5/6", 5, 5, 6, 0},
        {"BYTES 0-0/1", 0, 0, 1, 0},
        {"bytes 0-18446744073709551614/18446744073709551615", 0, UINT64_MAX - 1, UINT64_MAX, 0},
        {"bytes */100", 0, 0, 100, 1},
        {"bytes */0", 0, 0, 0, 1},
    };
    static const char *bad[] = {"",
                                "bytes",
                                "bytes ",
                                "bytes 0-99",
                                "bytes 0-99/",
                                "bytes 0-99/*",
                                "bytes */*",
                                "bytes 99-0/100",
                                "bytes 0-100/100",
                                "bytes 0-0/0",
                                "bytes  0-99/100",
                                "bytes 0 -99/100",
                                "bytes 0- 99/100",
                                "bytes 0-99 /100",
                                "bytes 0-99/ 100",
                                "bytes 0-99/100 ",
                                "bytes -1-99/100",
                                "bytes +0-99/100",
                                "bytes 0-+99/100",
                                "bytes 0x0-99/100",
                                "bytes=0-99/100",
                                "items 0-99/100",
                                "bytes 0-99/100/100",
                                "bytes -99/100",
                                "bytes 0-/100",
                                "bytes ** /100",
                                "bytes 0-99/18446744073709551616",
                                "bytes 18446744073709551616-18446744073709551617/2",
                                "bytes 0-99999999999999999999/100",
                                "garbage"};
    struct pt2_remote_crange c, keep = {7, 8, 9, 0};
    size_t i;

    for (i = 0; i < N(good); i++) {
        memset(&c, 0xff, sizeof(c));
        ck_assert_msg(pt2_remote_content_range(good[i].v, strlen(good[i].v), &c) == PT2_OK, "%s",
                      good[i].v);
        ck_assert(c.first == good[i].first);
        ck_assert(c.last == good[i].last);
        ck_assert(c.total == good[i].total);
        ck_assert_int_eq(c.unsatisfied, good[i].unsatisfied);
    }
    for (i = 0; i < N(bad); i++) {
        c = keep;
        ck_assert_msg(pt2_remote_content_range(bad[i], strlen(bad[i]), &c) == PT2_ERR_INVALID,
                      "%s accepted", bad[i]);
        ck_assert(c.first == 7 && c.last == 8 && c.total == 9); /* untouched */
    }
    /* the length bounds the parse: no reading past it */
    ck_assert_int_eq(pt2_remote_content_range("bytes 0-99/1000", 14, &c), PT2_OK);
    ck_assert(c.total == 100);
    ck_assert_int_eq(pt2_remote_content_range(NULL, 0, &c), PT2_ERR_INVALID);
}
END_TEST

/* ---- transfers against a scripted loopback server ------------------------------------ */

enum srv_mode {
    M_NORMAL,   /* Range honoured, strong ETag, If-Match checked */
    M_ZERO,     /* a suffix answered from offset 0 (as s3rver does) */
    M_WHOLE,    /* a suffix answered with the whole object, as a 206 */
    M_FULL,     /* Range ignored: 200 and the whole object */
    M_EMPTY,    /* an empty object: 416 */
    M_REDIRECT, /* /rN/x.pt2 redirects to ../rN-1/x.pt2; /r0/ serves */
    M_CHANGE,   /* the ETag changes after the first request */
    M_EXTRA,    /* a Range answer one byte longer than asked */
    M_TOTAL,    /* a Range answer with another total */
    M_XML,      /* 403 with S3's NoSuchKey */
    M_WEAK,     /* a weak ETag and a Last-Modified */
    M_STALL     /* never answers */
};

#define OBJ_ETAG "\"e1\""
#define LAST_MOD "Tue, 01 Dec 2026 10:00:00 GMT"

struct srv {
    int lfd, port, mode;
    uint64_t size;
    volatile int stop;
    pthread_t th;
    pthread_mutex_t mu;
    int served;
    char if_match[128], if_unmod[128], range[64];
    char auth[128]; /* the last request's Authorization header, "" without one */
};

static uint8_t obj_byte(uint64_t i)
{
    return (uint8_t)(i * 7 + (i >> 9) + 3);
}

static void send_all(int fd, const void *p, size_t n)
{
    const char *c = p;

    while (n > 0) {
        ssize_t w = send(fd, c, n, MSG_NOSIGNAL);

        if (w <= 0)
            return;
        c += w;
        n -= (size_t)w;
    }
}

static void send_body(int fd, uint64_t first, uint64_t n)
{
    uint8_t buf[8192];

    while (n > 0) {
        size_t k = n < sizeof(buf) ? (size_t)n : sizeof(buf);

        for (size_t i = 0; i < k; i++)
            buf[i] = obj_byte(first + i);
        send_all(fd, buf, k);
        first += k;
        n -= k;
    }
}

/* A header's value from a request (case-insensitive name), or "". */
static void req_header(const char *req, const char *name, char *out, size_t len)
{
    const char *p = req;
    size_t n = strlen(name);

    out[0] = '\0';
    while ((p = strstr(p, "\r\n")) != NULL) {
        p += 2;
        if (strncasecmp(p, name, n) == 0 && p[n] == ':') {
            const char *v = p + n + 1, *e = strstr(v, "\r\n");

            while (*v == ' ')
                v++;
            snprintf(out, len, "%.*s", (int)(e != NULL ? e - v : 0), v);
            return;
        }
    }
}

static void answer(struct srv *s, int fd, const char *req)
{
    char hdr[512], range[64], im[128], path[128];
    const char *etag = OBJ_ETAG, *sp = strchr(req, ' ');
    uint64_t first = 0, last = 0, total = s->size, n = 0;
    int suffix = 0, served, have_range = 0;
    const char *dash;

    snprintf(path, sizeof(path), "%.*s", sp != NULL ? (int)strcspn(sp + 1, " ") : 0,
             sp != NULL ? sp + 1 : "");
    req_header(req, "Range", range, sizeof(range));
    req_header(req, "If-Match", im, sizeof(im));
    pthread_mutex_lock(&s->mu);
    served = ++s->served;
    snprintf(s->range, sizeof(s->range), "%s", range);
    snprintf(s->if_match, sizeof(s->if_match), "%s", im);
    req_header(req, "If-Unmodified-Since", s->if_unmod, sizeof(s->if_unmod));
    req_header(req, "Authorization", s->auth, sizeof(s->auth));
    pthread_mutex_unlock(&s->mu);

    if (s->mode == M_STALL) {
        while (!s->stop)
            usleep(10000);
        return;
    }
    if (s->mode == M_REDIRECT && strcmp(path, "/cred/x.pt2") == 0) {
        snprintf(hdr, sizeof(hdr),
                 "HTTP/1.1 302 Found\r\nLocation: http://user:pass@127.0.0.1:%d/r0/x.pt2\r\n"
                 "Content-Length: 5\r\nConnection: close\r\n\r\nmoved",
                 s->port);
        send_all(fd, hdr, strlen(hdr));
        return;
    }
    if (s->mode == M_REDIRECT && strncmp(path, "/r", 2) == 0 && path[2] > '0' && path[2] <= '9') {
        snprintf(hdr, sizeof(hdr),
                 "HTTP/1.1 302 Found\r\nLocation: ../r%c/x.pt2\r\nContent-Length: 5\r\n"
                 "Connection: close\r\n\r\nmoved",
                 path[2] - 1);
        send_all(fd, hdr, strlen(hdr));
        return;
    }
    if (s->mode == M_XML) {
        static const char body[] = "<?xml version=\"1.0\"?><Error><Code>NoSuchKey</Code>"
                                   "<Message>none</Message></Error>";

        snprintf(hdr, sizeof(hdr),
                 "HTTP/1.1 403 Forbidden\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
                 strlen(body), body);
        send_all(fd, hdr, strlen(hdr));
        return;
    }
    if (s->mode == M_CHANGE && served > 1)
        etag = "\"e2\"";
    if (s->mode == M_WEAK)
        etag = "W/\"w1\"";
    if (im[0] != '\0' && strcmp(im, etag) != 0) {
        snprintf(hdr, sizeof(hdr),
                 "HTTP/1.1 412 Precondition Failed\r\nContent-Length: 0\r\nETag: %s\r\n"
                 "Connection: close\r\n\r\n",
                 etag);
        send_all(fd, hdr, strlen(hdr));
        return;
    }
    if (strncmp(range, "bytes=", 6) == 0 && (dash = strchr(range, '-')) != NULL) {
        have_range = 1;
        if (dash == range + 6) {
            suffix = 1;
            ck_assert_int_eq(pt2_num_u64(dash + 1, 10, &n), PT2_OK);
            first = n >= s->size ? 0 : s->size - n;
            last = s->size - 1;
            if (s->mode == M_ZERO) {
                first = 0;
                last = n < s->size ? n : s->size - 1;
            }
            if (s->mode == M_WHOLE)
                first = 0;
        } else {
            ck_assert_int_eq(pt2_num_u64n(range + 6, (size_t)(dash - range - 6), 10, &first),
                             PT2_OK);
            ck_assert_int_eq(pt2_num_u64(dash + 1, 10, &last), PT2_OK);
        }
    }
    if (s->mode == M_FULL || !have_range) {
        snprintf(hdr, sizeof(hdr),
                 "HTTP/1.1 200 OK\r\nContent-Length: %llu\r\nETag: %s\r\nConnection: close\r\n\r\n",
                 (unsigned long long)s->size, etag);
        send_all(fd, hdr, strlen(hdr));
        send_body(fd, 0, s->size);
        return;
    }
    if (s->mode == M_EMPTY || s->size == 0) {
        snprintf(hdr, sizeof(hdr),
                 "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */0\r\n"
                 "Content-Length: 0\r\nConnection: close\r\n\r\n");
        send_all(fd, hdr, strlen(hdr));
        return;
    }
    n = last - first + 1;
    if (!suffix && s->mode == M_EXTRA)
        n++;
    if (!suffix && s->mode == M_TOTAL)
        total++;
    snprintf(hdr, sizeof(hdr),
             "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes %llu-%llu/%llu\r\n"
             "Content-Length: %llu\r\nETag: %s\r\n%sConnection: close\r\n\r\n",
             (unsigned long long)first, (unsigned long long)last, (unsigned long long)total,
             (unsigned long long)n, etag,
             s->mode == M_WEAK ? "Last-Modified: " LAST_MOD "\r\n" : "");
    send_all(fd, hdr, strlen(hdr));
    send_body(fd, first, n);
}

static void *srv_main(void *arg)
{
    struct srv *s = arg;

    while (!s->stop) {
        struct pollfd pfd = {.fd = s->lfd, .events = POLLIN};
        char req[8192];
        size_t have = 0;
        int fd;

        if (poll(&pfd, 1, 50) <= 0)
            continue;
        fd = accept(s->lfd, NULL, NULL);
        if (fd < 0)
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
        if (have > 0)
            answer(s, fd, req);
        close(fd);
    }
    return NULL;
}

static void srv_start(struct srv *s, int mode, uint64_t size)
{
    struct sockaddr_in a;
    socklen_t len = sizeof(a);
    int one = 1;

    memset(s, 0, sizeof(*s));
    s->mode = mode;
    s->size = size;
    pthread_mutex_init(&s->mu, NULL);
    s->lfd = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_ge(s->lfd, 0);
    setsockopt(s->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(bind(s->lfd, (struct sockaddr *)&a, sizeof(a)), 0);
    ck_assert_int_eq(listen(s->lfd, 64), 0);
    ck_assert_int_eq(getsockname(s->lfd, (struct sockaddr *)&a, &len), 0);
    s->port = ntohs(a.sin_port);
    ck_assert_int_eq(pthread_create(&s->th, NULL, srv_main, s), 0);
}

static void srv_stop(struct srv *s)
{
    s->stop = 1;
    pthread_join(s->th, NULL);
    close(s->lfd);
    pthread_mutex_destroy(&s->mu);
}

static int open_at(pt2_remote **r, const struct srv *s, const char *path,
                   const struct pt2_remote_opts *o, struct pt2_error *err)
{
    char url[256];

    snprintf(url, sizeof(url), "http://127.0.0.1:%d%s", s->port, path);
    pt2_error_clear(err);
    return pt2_remote_open(r, url, o, err);
}

/* Read [off, off+len) through the source and compare with the object. */
static int read_check(pt2_remote *r, uint64_t off, size_t len, struct pt2_error *err)
{
    uint8_t *buf = malloc(len);
    size_t got = 0, i;
    int rc;

    ck_assert_ptr_nonnull(buf);
    pt2_error_clear(err);
    rc = pt2_source_read(pt2_remote_source(r), off, buf, len, &got, err);
    if (rc == PT2_OK) {
        ck_assert_uint_eq(got, len);
        for (i = 0; i < len; i++)
            ck_assert_msg(buf[i] == obj_byte(off + i), "byte %llu", (unsigned long long)(off + i));
    }
    free(buf);
    return rc;
}

START_TEST(test_xfer_ranges)
{
    struct pt2_remote_opts o = {0};
    struct pt2_range plan[] = {{1000, 100}, {300000, 5000}, {600000, 70000}, {900000, 10}};
    struct pt2_error err;
    pt2_remote *r = NULL;
    struct srv s;
    cJSON *j;
    char *text, want[256];
    uint64_t req;

    srv_start(&s, M_NORMAL, 1000000);
    ck_assert_int_eq(open_at(&r, &s, "/dir/x.pt2?token=secret", &o, &err), PT2_OK);
    ck_assert_uint_eq(pt2_remote_size(r), 1000000);
    ck_assert_str_eq(pt2_remote_validator(r), OBJ_ETAG);
    ck_assert_uint_eq(pt2_remote_requests(r), 1);
    ck_assert_uint_eq(pt2_remote_bytes(r), PT2_REMOTE_SUFFIX_BYTES);
    ck_assert_int_eq(pt2_remote_downloaded(r), 0);
    ck_assert_str_eq(pt2_remote_name(r), "x.pt2");
    snprintf(want, sizeof(want), "http://127.0.0.1:%d/dir/x.pt2", s.port);
    ck_assert_str_eq(pt2_remote_display_url(r), want);
    ck_assert_str_eq(s.range, "bytes=-262144");
    ck_assert_str_eq(s.if_match, "");
    /* the seeded tail costs nothing */
    ck_assert_int_eq(read_check(r, 1000000 - 1000, 1000, &err), PT2_OK);
    ck_assert_uint_eq(pt2_remote_requests(r), 1);
    /* a batch: parallel ranges, each If-Match'd */
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_source_prefetch(pt2_remote_source(r), plan, N(plan), &err), PT2_OK);
    req = pt2_remote_requests(r);
    ck_assert_uint_gt(req, 2);
    ck_assert_str_eq(s.if_match, OBJ_ETAG);
    ck_assert_int_eq(read_check(r, 1000, 100, &err), PT2_OK);
    ck_assert_int_eq(read_check(r, 600000, 70000, &err), PT2_OK);
    ck_assert_uint_eq(pt2_remote_requests(r), req);
    ck_assert_int_eq(read_check(r, 200000, 10, &err), PT2_OK);
    ck_assert_uint_eq(pt2_remote_requests(r), req + 1);
    /* a read past the end is short */
    {
        uint8_t b[16];
        size_t got = 99;

        pt2_error_clear(&err);
        ck_assert_int_eq(pt2_source_read(pt2_remote_source(r), 999995, b, sizeof(b), &got, &err),
                         PT2_OK);
        ck_assert_uint_eq(got, 5);
    }
    j = pt2_remote_source_json(r);
    ck_assert_ptr_nonnull(j);
    text = cJSON_PrintUnformatted(j);
    /* 3 round trips: the first request, the batch, the read at 200000 */
    snprintf(want, sizeof(want),
             "{\"url\":\"http://127.0.0.1:%d/dir/x.pt2\",\"validator\":\"\\\"e1\\\"\","
             "\"requests\":%llu,\"round_trips\":3,\"bytes_transferred\":%llu,"
             "\"range_requests\":true}",
             s.port, (unsigned long long)pt2_remote_requests(r),
             (unsigned long long)pt2_remote_bytes(r));
    ck_assert_str_eq(text, want);
    free(text);
    cJSON_Delete(j);
    pt2_remote_free(r);
    srv_stop(&s);
}
END_TEST

START_TEST(test_xfer_small_and_zero)
{
    struct pt2_remote_opts o = {0};
    struct pt2_error err;
    pt2_remote *r = NULL;
    struct srv s;

    /* the whole object in the first answer */
    srv_start(&s, M_NORMAL, 5000);
    ck_assert_int_eq(open_at(&r, &s, "/x.pt2", &o, &err), PT2_OK);
    ck_assert_uint_eq(pt2_remote_size(r), 5000);
    ck_assert_int_eq(read_check(r, 0, 5000, &err), PT2_OK);
    ck_assert_uint_eq(pt2_remote_requests(r), 1);
    pt2_remote_free(r);
    srv_stop(&s);

    /* a suffix answered from offset 0: Content-Range is what counts */
    srv_start(&s, M_ZERO, 1000000);
    ck_assert_int_eq(open_at(&r, &s, "/x.pt2", &o, &err), PT2_OK);
    ck_assert_uint_eq(pt2_remote_size(r), 1000000);
    ck_assert_uint_eq(pt2_remote_bytes(r), PT2_REMOTE_SUFFIX_BYTES + 1);
    ck_assert_int_eq(read_check(r, 0, 4096, &err), PT2_OK);
    ck_assert_uint_eq(pt2_remote_requests(r), 1);
    ck_assert_int_eq(read_check(r, 999000, 1000, &err), PT2_OK);
    ck_assert_uint_eq(pt2_remote_requests(r), 2);
    pt2_remote_free(r);
    srv_stop(&s);

    /* a first answer far longer than asked: the start is kept, the rest left */
    srv_start(&s, M_WHOLE, 3000000);
    ck_assert_int_eq(open_at(&r, &s, "/x.pt2", &o, &err), PT2_OK);
    ck_assert_uint_eq(pt2_remote_size(r), 3000000);
    ck_assert_uint_ge(pt2_remote_bytes(r), 2 * PT2_REMOTE_SUFFIX_BYTES);
    ck_assert_uint_lt(pt2_remote_bytes(r), 3000000);
    ck_assert_int_eq(read_check(r, 2 * PT2_REMOTE_SUFFIX_BYTES - 100, 100, &err), PT2_OK);
    ck_assert_uint_eq(pt2_remote_requests(r), 1);
    ck_assert_int_eq(read_check(r, 2 * PT2_REMOTE_SUFFIX_BYTES, 100, &err), PT2_OK);
    ck_assert_uint_eq(pt2_remote_requests(r), 2);
    ck_assert_int_eq(read_check(r, 2999900, 100, &err), PT2_OK);
    pt2_remote_free(r);
    srv_stop(&s);

    /* an empty object */
    srv_start(&s, M_EMPTY, 0);
    ck_assert_int_eq(open_at(&r, &s, "/x.pt2", &o, &err), PT2_OK);
    ck_assert_uint_eq(pt2_remote_size(r), 0);
    ck_assert_str_eq(pt2_remote_validator(r), "");
    pt2_remote_free(r);
    srv_stop(&s);
}
END_TEST

START_TEST(test_xfer_download)
{
    struct pt2_remote_opts o = {0};
    struct pt2_error err;
    pt2_remote *r = NULL;
    struct srv s;
    cJSON *j;
    char want[300];

    srv_start(&s, M_FULL, 300000);
    ck_assert_int_eq(open_at(&r, &s, "/x.pt2", &o, &err), PT2_OK);
    ck_assert_int_eq(pt2_remote_downloaded(r), 1);
    ck_assert_uint_eq(pt2_remote_size(r), 300000);
    ck_assert_uint_eq(pt2_remote_bytes(r), 300000);
    ck_assert_int_eq(read_check(r, 123456, 1000, &err), PT2_OK);
    ck_assert_uint_eq(pt2_remote_requests(r), 1);
    j = pt2_remote_source_json(r);
    ck_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(j, "range_requests")));
    cJSON_Delete(j);
    pt2_remote_free(r);

    o.max_download = 299999;
    ck_assert_int_eq(open_at(&r, &s, "/x.pt2", &o, &err), PT2_ERR_REMOTE_NO_RANGE);
    ck_assert_ptr_null(r);
    snprintf(want, sizeof(want),
             "http://127.0.0.1:%d/x.pt2: the server does not support Range requests and the "
             "object is larger than 299999 bytes (--remote-max-download)",
             s.port);
    ck_assert_str_eq(err.message, want);
    o.max_download = 300000;
    ck_assert_int_eq(open_at(&r, &s, "/x.pt2", &o, &err), PT2_OK);
    pt2_remote_free(r);
    srv_stop(&s);
}
END_TEST

START_TEST(test_xfer_redirects)
{
    const char *allow[1];
    char entry[128], want[300];
    struct pt2_remote_opts o = {0};
    struct pt2_error err;
    pt2_remote *r = NULL;
    struct srv s;

    srv_start(&s, M_REDIRECT, 400000);
    ck_assert_int_eq(open_at(&r, &s, "/r3/x.pt2", &o, &err), PT2_OK);
    ck_assert_uint_eq(pt2_remote_requests(r), 4);
    ck_assert_uint_eq(pt2_remote_bytes(r), 3 * 5 + PT2_REMOTE_SUFFIX_BYTES);
    snprintf(want, sizeof(want), "http://127.0.0.1:%d/r3/x.pt2", s.port);
    ck_assert_str_eq(pt2_remote_display_url(r), want);
    /* later requests go to where the redirects ended, directly */
    ck_assert_int_eq(read_check(r, 0, 100, &err), PT2_OK);
    ck_assert_uint_eq(pt2_remote_requests(r), 5);
    pt2_remote_free(r);

    ck_assert_int_eq(open_at(&r, &s, "/r5/x.pt2", &o, &err), PT2_OK);
    pt2_remote_free(r);

    /* credentials in a Location are never sent: the hop after it has no Authorization... */
    ck_assert_int_eq(open_at(&r, &s, "/cred/x.pt2", &o, &err), PT2_OK);
    ck_assert_uint_eq(pt2_remote_requests(r), 2);
    ck_assert_str_eq(s.auth, "");
    pt2_remote_free(r);
    /* ... while the user's own in the URL given are (the server does see the header) */
    snprintf(want, sizeof(want), "http://user:pass@127.0.0.1:%d/r0/x.pt2", s.port);
    ck_assert_int_eq(pt2_remote_open(&r, want, &o, &err), PT2_OK);
    ck_assert_str_eq(s.auth, "Basic dXNlcjpwYXNz");
    pt2_remote_free(r);
    ck_assert_int_eq(open_at(&r, &s, "/r6/x.pt2", &o, &err), PT2_ERR_REMOTE_UNREACHABLE);
    snprintf(want, sizeof(want), "http://127.0.0.1:%d/r6/x.pt2: more than 5 redirects", s.port);
    ck_assert_str_eq(err.message, want);

    /* restricted: every hop is checked against the list */
    snprintf(entry, sizeof(entry), "http://127.0.0.1:%d/r2/", s.port);
    allow[0] = entry;
    o.restricted = 1;
    o.allow = allow;
    o.n_allow = 1;
    ck_assert_int_eq(open_at(&r, &s, "/r2/x.pt2", &o, &err), PT2_ERR_REMOTE_REFUSED);
    snprintf(want, sizeof(want),
             "http://127.0.0.1:%d/r2/x.pt2: redirected to 127.0.0.1, which is not under any "
             "allowed URL prefix",
             s.port);
    ck_assert_str_eq(err.message, want);
    snprintf(entry, sizeof(entry), "http://127.0.0.1:%d/", s.port);
    ck_assert_int_eq(open_at(&r, &s, "/r2/x.pt2", &o, &err), PT2_OK);
    ck_assert_int_eq(read_check(r, 1000, 100, &err), PT2_OK);
    pt2_remote_free(r);
    srv_stop(&s);
}
END_TEST

START_TEST(test_xfer_restricted_names)
{
    const char *allow[1];
    char entry[128], url[128];
    struct pt2_remote_opts o = {.restricted = 1, .allow = allow, .n_allow = 1};
    struct pt2_error err;
    pt2_remote *r = NULL;
    struct srv s;

    srv_start(&s, M_NORMAL, 1000);
    /* a name that resolves inward is refused unless the list names it: here any http URL */
    snprintf(entry, sizeof(entry), "http://");
    snprintf(url, sizeof(url), "http://localhost:%d/x.pt2", s.port);
    allow[0] = entry;
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_remote_open(&r, url, &o, &err), PT2_ERR_REMOTE_REFUSED);
    /* the class is said, never the address (an answer must not map internal DNS) */
    ck_assert_ptr_nonnull(
        strstr(err.message, ": localhost resolves to a loopback address (refused)"));
    ck_assert_ptr_null(strstr(err.message, "127.0.0.1 ("));
    ck_assert_int_eq(s.served, 0);
    /* an entry naming localhost itself: the operator's choice, read */
    snprintf(entry, sizeof(entry), "http://localhost:%d/", s.port);
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_remote_open(&r, url, &o, &err), PT2_OK);
    pt2_remote_free(r);
    r = NULL;
    /* unrestricted, the same URL is read */
    o.restricted = 0;
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_remote_open(&r, url, &o, &err), PT2_OK);
    pt2_remote_free(r);
    srv_stop(&s);
}
END_TEST

START_TEST(test_xfer_changed)
{
    struct pt2_remote_opts o = {0};
    struct pt2_error err;
    pt2_remote *r = NULL;
    struct srv s;
    char want[300];

    srv_start(&s, M_CHANGE, 1000000);
    ck_assert_int_eq(open_at(&r, &s, "/x.pt2", &o, &err), PT2_OK);
    ck_assert_int_eq(read_check(r, 0, 100, &err), PT2_ERR_REMOTE_CHANGED);
    snprintf(want, sizeof(want),
             "the object at http://127.0.0.1:%d/x.pt2 changed while it was read", s.port);
    ck_assert_str_eq(err.message, want);
    ck_assert_str_eq(s.if_match, OBJ_ETAG);
    pt2_remote_free(r);
    srv_stop(&s);

    srv_start(&s, M_TOTAL, 1000000);
    ck_assert_int_eq(open_at(&r, &s, "/x.pt2", &o, &err), PT2_OK);
    ck_assert_int_eq(read_check(r, 0, 100, &err), PT2_ERR_REMOTE_CHANGED);
    pt2_remote_free(r);
    srv_stop(&s);

    /* a weak ETag is no If-Match: If-Unmodified-Since instead */
    srv_start(&s, M_WEAK, 1000000);
    ck_assert_int_eq(open_at(&r, &s, "/x.pt2", &o, &err), PT2_OK);
    ck_assert_str_eq(pt2_remote_validator(r), "W/\"w1\"");
    ck_assert_int_eq(read_check(r, 0, 100, &err), PT2_OK);
    ck_assert_str_eq(s.if_match, "");
    ck_assert_str_eq(s.if_unmod, LAST_MOD);
    pt2_remote_free(r);
    srv_stop(&s);
}
END_TEST

START_TEST(test_xfer_errors)
{
    struct pt2_remote_opts o = {0};
    struct pt2_error err;
    pt2_remote *r = NULL;
    struct srv s;
    char want[300];

    /* more than asked: an error, never an overflow */
    srv_start(&s, M_EXTRA, 1000000);
    ck_assert_int_eq(open_at(&r, &s, "/x.pt2", &o, &err), PT2_OK);
    ck_assert_int_eq(read_check(r, 0, 100, &err), PT2_ERR_REMOTE_UNREACHABLE);
    pt2_remote_free(r);
    srv_stop(&s);

    srv_start(&s, M_XML, 1000);
    ck_assert_int_eq(open_at(&r, &s, "/x.pt2", &o, &err), PT2_ERR_NOT_FOUND);
    snprintf(want, sizeof(want), "http://127.0.0.1:%d/x.pt2: not found (HTTP 403, NoSuchKey)",
             s.port);
    ck_assert_str_eq(err.message, want);
    srv_stop(&s);

    /* the byte budget counts every body */
    srv_start(&s, M_NORMAL, 1000000);
    o.max_bytes = 300000;
    ck_assert_int_eq(open_at(&r, &s, "/x.pt2", &o, &err), PT2_OK);
    ck_assert_int_eq(read_check(r, 0, 100, &err), PT2_ERR_TOO_LARGE);
    pt2_remote_free(r);
    o.max_bytes = 1000;
    ck_assert_int_eq(open_at(&r, &s, "/x.pt2", &o, &err), PT2_ERR_TOO_LARGE);
    srv_stop(&s);

    /* the deadline covers every request */
    srv_start(&s, M_STALL, 1000);
    o.max_bytes = 0;
    o.timeout_ms = 300;
    ck_assert_int_eq(open_at(&r, &s, "/x.pt2", &o, &err), PT2_ERR_REMOTE_TIMEOUT);
    snprintf(want, sizeof(want),
             "http://127.0.0.1:%d/x.pt2: no complete answer within 300 ms (the remote timeout)",
             s.port);
    ck_assert_str_eq(err.message, want);
    srv_stop(&s);

    /* nothing listening */
    o.timeout_ms = 0;
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_remote_open(&r, "http://127.0.0.1:1/x.pt2", &o, &err),
                     PT2_ERR_REMOTE_UNREACHABLE);
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_remote_open(NULL, "http://127.0.0.1:1/x.pt2", &o, &err), PT2_ERR_INVALID);
    pt2_remote_free(NULL);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("remote_url");
    TCase *tc = tcase_create("rules");
    TCase *tx = tcase_create("transfers");

    tcase_add_test(tc, test_is_url);
    tcase_add_test(tc, test_check_unrestricted);
    tcase_add_test(tc, test_check_restricted);
    tcase_add_test(tc, test_allow_match);
    tcase_add_test(tc, test_check_allow);
    tcase_add_test(tc, test_host_named);
    tcase_add_test(tc, test_display);
    tcase_add_test(tc, test_resolve);
    tcase_add_test(tc, test_host);
    tcase_add_test(tc, test_s3_map);
    tcase_add_test(tc, test_s3_env);
    tcase_add_test(tc, test_addr_class);
    tcase_add_test(tc, test_content_range);
    suite_add_tcase(s, tc);
    tcase_add_test(tx, test_xfer_ranges);
    tcase_add_test(tx, test_xfer_small_and_zero);
    tcase_add_test(tx, test_xfer_download);
    tcase_add_test(tx, test_xfer_redirects);
    tcase_add_test(tx, test_xfer_restricted_names);
    tcase_add_test(tx, test_xfer_changed);
    tcase_add_test(tx, test_xfer_errors);
    tcase_set_timeout(tx, 30);
    suite_add_tcase(s, tx);
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
