/*
 * test_pt2d_auth.c - pt2d_auth's pure parts: the token file (comments,
 * blanks, CRLF, caps, an empty file), constant-time matching, the
 * Authorization and Host parsers, loopback names, the Host policy and which
 * routes need a token.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pt2d_auth.h"
#include "testutil.h"

static struct pt2d_auth_tokens *parse_ok(const char *text, unsigned want_n)
{
    struct pt2d_auth_tokens *t = NULL;
    struct pt2_error err = {0};

    ck_assert_int_eq(pt2d_auth_tokens_parse(text, strlen(text), &t, &err), PT2_OK);
    ck_assert_ptr_nonnull(t);
    ck_assert_uint_eq(t->n, want_n);
    return t;
}

static void parse_bad(const char *text, size_t len, int code, const char *msg)
{
    struct pt2d_auth_tokens *t = NULL;
    struct pt2_error err = {0};

    ck_assert_int_eq(pt2d_auth_tokens_parse(text, len, &t, &err), code);
    ck_assert_ptr_null(t);
    ck_assert_str_eq(err.message, msg);
}

static int match(const struct pt2d_auth_tokens *t, const char *tok)
{
    return pt2d_auth_tokens_match(t, tok, strlen(tok));
}

START_TEST(test_parse_comments_blanks_crlf)
{
    struct pt2d_auth_tokens *t =
        parse_ok("# ops team\n\n  alpha-1  \r\nbeta_2\r\n\t# not a token\n   \ngamma.3", 3);

    ck_assert_int_eq(match(t, "alpha-1"), 1);
    ck_assert_int_eq(match(t, "beta_2"), 1);
    ck_assert_int_eq(match(t, "gamma.3"), 1); /* the last line needs no newline */
    ck_assert_int_eq(match(t, "# not a token"), 0);
    ck_assert_int_eq(match(t, "# ops team"), 0);
    ck_assert_int_eq(match(t, "alpha-1  "), 0); /* trimmed in the file, not in the header */
    ck_assert_int_eq(match(t, ""), 0);
    pt2d_auth_tokens_free(t);
}
END_TEST

START_TEST(test_parse_caps)
{
    char line[PT2D_AUTH_TOKEN_MAX + 8];
    char *big;
    size_t i, n;
    struct pt2d_auth_tokens *t;

    /* Exactly 256 bytes is a token; 257 is refused, with the line number and no token. */
    memset(line, 'k', PT2D_AUTH_TOKEN_MAX);
    line[PT2D_AUTH_TOKEN_MAX] = '\0';
    t = parse_ok(line, 1);
    ck_assert_int_eq(match(t, line), 1);
    pt2d_auth_tokens_free(t);
    big = malloc(PT2D_AUTH_FILE_MAX + 2);
    ck_assert_ptr_nonnull(big);
    n = (size_t)snprintf(big, PT2D_AUTH_FILE_MAX, "# c\nok\n");
    memset(big + n, 'k', PT2D_AUTH_TOKEN_MAX + 1);
    big[n + PT2D_AUTH_TOKEN_MAX + 1] = '\0';
    parse_bad(big, strlen(big), PT2_ERR_INVALID, "token file line 3: longer than 256 bytes");
    ck_assert_ptr_null(strstr("token file line 3: longer than 256 bytes", "kkk"));

    /* 1024 tokens pass; the 1025th is refused. */
    n = 0;
    for (i = 0; i < PT2D_AUTH_TOKENS_MAX; i++)
        n += (size_t)snprintf(big + n, PT2D_AUTH_FILE_MAX + 2 - n, "t%zu\n", i);
    t = parse_ok(big, PT2D_AUTH_TOKENS_MAX);
    ck_assert_int_eq(match(t, "t0"), 1);
    ck_assert_int_eq(match(t, "t1023"), 1);
    ck_assert_int_eq(match(t, "t1024"), 0);
    pt2d_auth_tokens_free(t);
    n += (size_t)snprintf(big + n, PT2D_AUTH_FILE_MAX + 2 - n, "t1024\n");
    parse_bad(big, n, PT2_ERR_INVALID, "token file: more than 1024 tokens");

    /* The file cap: 64 KiB of comment passes (no token is the error), one byte more does not. */
    memset(big, '#', PT2D_AUTH_FILE_MAX + 1);
    parse_bad(big, PT2D_AUTH_FILE_MAX, PT2_ERR_INVALID, "token file has no tokens");
    parse_bad(big, PT2D_AUTH_FILE_MAX + 1, PT2_ERR_TOO_LARGE,
              "token file is larger than 65536 bytes");
    free(big);
}
END_TEST

START_TEST(test_parse_empty_and_bad_bytes)
{
    parse_bad("", 0, PT2_ERR_INVALID, "token file has no tokens");
    parse_bad("\n\r\n  \n# only comments\n", 22, PT2_ERR_INVALID, "token file has no tokens");
    parse_bad("good\nwith space\n", 16, PT2_ERR_INVALID,
              "token file line 2: a token is visible ASCII without spaces");
    parse_bad("a\0b\n", 4, PT2_ERR_INVALID,
              "token file line 1: a token is visible ASCII without spaces");
    parse_bad("caf\xc3\xa9\n", 6, PT2_ERR_INVALID,
              "token file line 1: a token is visible ASCII without spaces");
}
END_TEST

START_TEST(test_load_file)
{
    char path[] = "/tmp/pt2d-tokens-XXXXXX";
    struct pt2d_auth_tokens *t = NULL;
    struct pt2_error err = {0};
    int fd = mkstemp(path);

    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, "s3cret\n", 7), 7);
    close(fd);
    ck_assert_int_eq(pt2d_auth_tokens_load(path, &t, &err), PT2_OK);
    ck_assert_int_eq(match(t, "s3cret"), 1);
    pt2d_auth_tokens_free(t);
    unlink(path);
    t = NULL;
    ck_assert_int_eq(pt2d_auth_tokens_load(path, &t, &err), PT2_ERR_IO);
    ck_assert_ptr_null(t);
    ck_assert_ptr_nonnull(strstr(err.message, "No such file or directory"));
    /* A FIFO in its place (no writer: a blocking open would wait for ever) and a directory. */
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2d_auth_tokens_load(path, &t, &err), PT2_ERR_IO);
    ck_assert_ptr_null(t);
    {
        char want[128];
        snprintf(want, sizeof(want), "token file '%s' is not a regular file", path);
        ck_assert_str_eq(err.message, want);
        unlink(path);
        ck_assert_int_eq(mkdir(path, 0700), 0);
        pt2_error_clear(&err);
        ck_assert_int_eq(pt2d_auth_tokens_load(path, &t, &err), PT2_ERR_IO);
        ck_assert_str_eq(err.message, want);
        rmdir(path);
    }
}
END_TEST

START_TEST(test_match)
{
    struct pt2d_auth_tokens *t = parse_ok("abc\nxyz123\n", 2);

    ck_assert_int_eq(match(t, "abc"), 1);
    ck_assert_int_eq(match(t, "xyz123"), 1);
    ck_assert_int_eq(match(t, "abd"), 0);
    ck_assert_int_eq(match(t, "ab"), 0);                         /* a prefix */
    ck_assert_int_eq(match(t, "abcd"), 0);                       /* longer */
    ck_assert_int_eq(match(t, "ABC"), 0);                        /* tokens are case-sensitive */
    ck_assert_int_eq(pt2d_auth_tokens_match(t, "abcdef", 3), 1); /* length, not NUL, counts */
    ck_assert_int_eq(pt2d_auth_tokens_match(NULL, "abc", 3), 0);
    pt2d_auth_tokens_free(t);
}
END_TEST

static void bearer_is(const char *header, const char *want)
{
    const char *tok = (const char *)1;
    size_t len = 99;
    int rc = pt2d_auth_bearer(header, &tok, &len);

    if (want == NULL) {
        ck_assert_int_eq(rc, PT2_ERR_NOT_FOUND);
        ck_assert_ptr_null(tok);
        ck_assert_uint_eq(len, 0);
        return;
    }
    ck_assert_int_eq(rc, PT2_OK);
    ck_assert_uint_eq(len, strlen(want));
    ck_assert_int_eq(memcmp(tok, want, len), 0);
}

START_TEST(test_bearer)
{
    bearer_is("Bearer abc", "abc");
    bearer_is("bearer abc", "abc");
    bearer_is("BEARER abc", "abc");
    bearer_is("Bearer    abc   ", "abc");
    bearer_is("  Bearer\tabc", "abc");
    bearer_is("Bearer a b", "a b"); /* kept whole: it matches no token */
    bearer_is(NULL, NULL);
    bearer_is("", NULL);
    bearer_is("Bearer", NULL);
    bearer_is("Bearer    ", NULL);
    bearer_is("Bearerabc", NULL);
    bearer_is("Basic YWJjOmRlZg==", NULL);
    bearer_is("Token abc", NULL);
}
END_TEST

static void host_is(const char *value, const char *want)
{
    char out[PT2D_HOST_MAX];

    if (want == NULL) {
        ck_assert_int_eq(pt2d_auth_host_name(value, out, sizeof(out)), PT2_ERR_INVALID);
        return;
    }
    ck_assert_int_eq(pt2d_auth_host_name(value, out, sizeof(out)), PT2_OK);
    ck_assert_str_eq(out, want);
}

START_TEST(test_host_name)
{
    char small[8];

    host_is("localhost", "localhost");
    host_is("localhost:8080", "localhost");
    host_is("LocalHost:80", "localhost");
    host_is("localhost.", "localhost");
    host_is("127.0.0.1:9", "127.0.0.1");
    host_is("[::1]:8080", "::1");
    host_is("[::1]", "::1");
    host_is("[FE80::1]:1", "fe80::1");
    host_is("Evil.Example:443", "evil.example");
    host_is("host:", "host"); /* RFC 3986: an empty port */
    host_is("::1", NULL);     /* IPv6 needs brackets */
    host_is("[::1", NULL);
    host_is("[::1]x", NULL);
    host_is("a:b", NULL);
    host_is("a:123456", NULL);
    host_is("", NULL);
    host_is(":80", NULL);
    host_is("a b", NULL);
    host_is("a/b", NULL);
    host_is("a@b", NULL);
    ck_assert_int_eq(pt2d_auth_host_name("abcdefgh", small, sizeof(small)), PT2_ERR_INVALID);
    ck_assert_int_eq(pt2d_auth_host_name("abcdefg", small, sizeof(small)), PT2_OK);
}
END_TEST

START_TEST(test_loopback)
{
    ck_assert_int_eq(pt2d_auth_is_loopback("localhost"), 1);
    ck_assert_int_eq(pt2d_auth_is_loopback("127.0.0.1"), 1);
    ck_assert_int_eq(pt2d_auth_is_loopback("127.255.3.4"), 1);
    ck_assert_int_eq(pt2d_auth_is_loopback("::1"), 1);
    ck_assert_int_eq(pt2d_auth_is_loopback("0:0:0:0:0:0:0:1"), 1);
    ck_assert_int_eq(pt2d_auth_is_loopback("128.0.0.1"), 0);
    ck_assert_int_eq(pt2d_auth_is_loopback("0.0.0.0"), 0);
    ck_assert_int_eq(pt2d_auth_is_loopback("::"), 0);
    ck_assert_int_eq(pt2d_auth_is_loopback("127.1"), 0); /* not a dotted quad */
    ck_assert_int_eq(pt2d_auth_is_loopback("127.0.0.1.evil.example"), 0);
    ck_assert_int_eq(pt2d_auth_is_loopback("localhost.evil.example"), 0);
    ck_assert_int_eq(pt2d_auth_is_loopback("10.0.0.7"), 0);
}
END_TEST

START_TEST(test_host_policy)
{
    char allowed[2][PT2D_HOST_MAX] = {"evil.example", "::2"};

    /* Loopback listener, no --allowed-host: loopback names only. */
    ck_assert_int_eq(pt2d_auth_host_allowed("127.0.0.1", NULL, 0, "localhost:8080"), 1);
    ck_assert_int_eq(pt2d_auth_host_allowed("127.0.0.1", NULL, 0, "127.0.0.1:8080"), 1);
    ck_assert_int_eq(pt2d_auth_host_allowed("127.0.0.1", NULL, 0, "[::1]:8080"), 1);
    ck_assert_int_eq(pt2d_auth_host_allowed("127.0.0.1", NULL, 0, "evil.example:8080"), 0);
    ck_assert_int_eq(pt2d_auth_host_allowed("localhost", NULL, 0, "evil.example"), 0);
    ck_assert_int_eq(pt2d_auth_host_allowed("::1", NULL, 0, "evil.example"), 0);
    ck_assert_int_eq(pt2d_auth_host_allowed("127.0.0.1", NULL, 0, "bad host"), 0);
    ck_assert_int_eq(pt2d_auth_host_allowed("127.0.0.1", NULL, 0, NULL), 1); /* HTTP/1.0 */
    /* With --allowed-host. */
    ck_assert_int_eq(pt2d_auth_host_allowed("127.0.0.1", (const char(*)[PT2D_HOST_MAX])allowed, 2,
                                            "EVIL.example:1"),
                     1);
    ck_assert_int_eq(
        pt2d_auth_host_allowed("127.0.0.1", (const char(*)[PT2D_HOST_MAX])allowed, 2, "[::2]"), 1);
    ck_assert_int_eq(pt2d_auth_host_allowed("127.0.0.1", (const char(*)[PT2D_HOST_MAX])allowed, 2,
                                            "other.example"),
                     0);
    /* A routable listener: nothing enforced without --allowed-host ... */
    ck_assert_int_eq(pt2d_auth_host_allowed("0.0.0.0", NULL, 0, "anything.example"), 1);
    ck_assert_int_eq(pt2d_auth_host_allowed("10.0.0.7", NULL, 0, "anything.example"), 1);
    /* ... and with it: those names, the listen address and loopback names. */
    ck_assert_int_eq(pt2d_auth_host_allowed("10.0.0.7", (const char(*)[PT2D_HOST_MAX])allowed, 2,
                                            "anything.example"),
                     0);
    ck_assert_int_eq(pt2d_auth_host_allowed("10.0.0.7", (const char(*)[PT2D_HOST_MAX])allowed, 2,
                                            "10.0.0.7:8080"),
                     1);
    ck_assert_int_eq(pt2d_auth_host_allowed("10.0.0.7", (const char(*)[PT2D_HOST_MAX])allowed, 2,
                                            "evil.example"),
                     1);
    ck_assert_int_eq(pt2d_auth_host_allowed("10.0.0.7", (const char(*)[PT2D_HOST_MAX])allowed, 2,
                                            "localhost:8080"),
                     1);
}
END_TEST

START_TEST(test_routes_needing_a_token)
{
    const enum pt2d_route open_routes[] = {
        PT2D_ROUTE_LIVEZ,        PT2D_ROUTE_READYZ,       PT2D_ROUTE_PAGE,    PT2D_ROUTE_PAGE_JS,
        PT2D_ROUTE_PAGE_CSS,     PT2D_ROUTE_DOCS,         PT2D_ROUTE_DOCS_JS, PT2D_ROUTE_DOCS_CSS,
        PT2D_ROUTE_OPENAPI_YAML, PT2D_ROUTE_OPENAPI_JSON,
    };
    const enum pt2d_route closed_routes[] = {
        PT2D_ROUTE_INSPECT,  PT2D_ROUTE_ARCH,  PT2D_ROUTE_METADATA,      PT2D_ROUTE_VALIDATE,
        PT2D_ROUTE_VERSION,  PT2D_ROUTE_NODE,  PT2D_ROUTE_COMPATIBILITY, PT2D_ROUTE_CLUSTER,
        PT2D_ROUTE_PACKAGES, PT2D_ROUTE_OTHER,
    };
    size_t i;

    for (i = 0; i < sizeof(open_routes) / sizeof(open_routes[0]); i++) {
        ck_assert_int_eq(pt2d_auth_route_needs_token(open_routes[i], PT2D_METHOD_GET, 0), 0);
        ck_assert_int_eq(pt2d_auth_route_needs_token(open_routes[i], PT2D_METHOD_POST, 0), 0);
    }
    for (i = 0; i < sizeof(closed_routes) / sizeof(closed_routes[0]); i++) {
        ck_assert_int_eq(pt2d_auth_route_needs_token(closed_routes[i], PT2D_METHOD_GET, 1), 1);
        ck_assert_int_eq(pt2d_auth_route_needs_token(closed_routes[i], PT2D_METHOD_OTHER, 1), 1);
        /* Preflights carry no credentials. */
        ck_assert_int_eq(pt2d_auth_route_needs_token(closed_routes[i], PT2D_METHOD_OPTIONS, 0), 0);
    }
    ck_assert_int_eq(pt2d_auth_route_needs_token(PT2D_ROUTE_METRICS, PT2D_METHOD_GET, 0), 1);
    ck_assert_int_eq(pt2d_auth_route_needs_token(PT2D_ROUTE_METRICS, PT2D_METHOD_GET, 1), 0);
}
END_TEST

static Suite *auth_suite(void)
{
    Suite *s = suite_create("pt2d_auth");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_parse_comments_blanks_crlf);
    tcase_add_test(tc, test_parse_caps);
    tcase_add_test(tc, test_parse_empty_and_bad_bytes);
    tcase_add_test(tc, test_load_file);
    tcase_add_test(tc, test_match);
    tcase_add_test(tc, test_bearer);
    tcase_add_test(tc, test_host_name);
    tcase_add_test(tc, test_loopback);
    tcase_add_test(tc, test_host_policy);
    tcase_add_test(tc, test_routes_needing_a_token);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run_suite(auth_suite());
}
