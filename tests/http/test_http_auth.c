/*
 * test_http_auth.c - access control over HTTP (pt2d_auth.h): with
 * --token-file every /v1 path, unknown paths and /metrics (unless
 * --metrics-public) answer 401 problem+json with WWW-Authenticate until the
 * right bearer token comes; probes, the page, the API reference and
 * preflights stay open; SIGHUP re-reads the file (a bad file keeps the old
 * tokens); a loopback listener answers 403 host-not-allowed to a Host that
 * is neither a loopback name nor an --allowed-host; the refusals are
 * counted; and no token ever reaches the log.
 *
 * In-process servers on 127.0.0.1 for the rules, the production pt2scoped
 * as a child process for SIGHUP and the start-up check of the file.
 */
#include "http_harness.h"

#include <signal.h>
#include <sys/wait.h>

#include "pt2scope.h"

#define TOKEN_A "tok-A-7f3e9b2c41d8"
#define TOKEN_B "tok-B-0c55aa19e6f2"
#define REALM "Bearer realm=\"pt2scope\""
#define REALM_INVALID "Bearer realm=\"pt2scope\", error=\"invalid_token\""

static char token_path[64];

static void write_file(const char *path, const char *text)
{
    char tmp[96];
    FILE *f;

    /* Write then rename: the daemon never reads half a file. */
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    f = fopen(tmp, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fputs(text, f) >= 0, 1);
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_int_eq(rename(tmp, path), 0);
}

static void token_file(const char *text)
{
    int fd;

    snprintf(token_path, sizeof(token_path), "/tmp/pt2d-tokens-XXXXXX");
    fd = mkstemp(token_path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    write_file(token_path, text);
}

/* One request with up to two extra headers (NULL = none); returns the response. */
static void ask(const char *base, const char *method, const char *path, const char *h1,
                const char *h2, struct th_resp *r)
{
    const char *hs[3] = {h1, h1 != NULL ? h2 : NULL, NULL};
    struct th_req rq = {.method = method, .path = path, .headers = hs};

    th_do(base, &rq, r);
}

static void assert_status(const char *base, const char *path, const char *h1, long want)
{
    struct th_resp r;

    ask(base, NULL, path, h1, NULL, &r);
    ck_assert_msg(r.status == want, "%s (%s): %ld, want %ld", path, h1 ? h1 : "-", r.status, want);
    th_resp_free(&r);
}

static void assert_401(const char *base, const char *method, const char *path, const char *authz,
                       const char *detail, const char *challenge)
{
    struct th_resp r;
    char v[256];

    ask(base, method, path, authz, NULL, &r);
    th_assert_problem(&r, 401, "unauthorized", detail);
    ck_assert(th_header(&r, "WWW-Authenticate", v, sizeof(v)));
    ck_assert_str_eq(v, challenge);
    th_resp_free(&r);
}

/* The value of one exposition line `series` on /metrics (asked with `authz`). */
static long long metric(const char *base, const char *authz, const char *series)
{
    struct th_resp r;
    const char *p;
    long long v = -1;
    size_t n = strlen(series);

    ask(base, NULL, "/metrics", authz, NULL, &r);
    ck_assert_int_eq(r.status, 200);
    for (p = r.body; (p = strstr(p, series)) != NULL; p += n)
        if ((p == r.body || p[-1] == '\n') && p[n] == ' ') {
            v = strtoll(p + n + 1, NULL, 10);
            break;
        }
    th_resp_free(&r);
    return v;
}

START_TEST(test_token_required)
{
    struct th_server t;
    struct th_resp r;
    char *log;
    char v[256];
    const char *good = "Authorization: Bearer " TOKEN_A;

    token_file("# test tokens\n" TOKEN_A "\r\n\n" TOKEN_B "\n");
    th_config(&t);
    snprintf(t.cfg.token_file, sizeof(t.cfg.token_file), "%s", token_path);
    snprintf(t.cfg.origins[0], PT2D_ORIGIN_MAX, "https://ui.example");
    t.cfg.n_origins = 1;
    th_start(&t);

    /* No token, another scheme, an empty one: the plain challenge. */
    assert_401(t.base, NULL, "/v1/version", NULL, "send Authorization: Bearer <token>", REALM);
    assert_401(t.base, NULL, "/v1/arch?path=cpu_x86_64.pt2", "Authorization: Basic dTpw",
               "send Authorization: Bearer <token>", REALM);
    assert_401(t.base, NULL, "/v1/node", "Authorization: Bearer ",
               "send Authorization: Bearer <token>", REALM);
    /* A wrong token: error="invalid_token". A prefix or a longer token is wrong too. */
    assert_401(t.base, NULL, "/v1/version", "Authorization: Bearer nope",
               "the bearer token is not valid", REALM_INVALID);
    assert_401(t.base, NULL, "/v1/version", "Authorization: Bearer tok-A-7f3e9b2c41d",
               "the bearer token is not valid", REALM_INVALID);
    assert_401(t.base, NULL, "/v1/version", "Authorization: Bearer " TOKEN_A "x",
               "the bearer token is not valid", REALM_INVALID);
    /* Unknown paths and /metrics need it too; so does an upload, refused before its body. */
    assert_401(t.base, NULL, "/no/such/thing", NULL, "send Authorization: Bearer <token>", REALM);
    assert_401(t.base, NULL, "/metrics", NULL, "send Authorization: Bearer <token>", REALM);
    {
        struct th_req rq = {.path = "/v1/arch",
                            .body = "PK\x03\x04",
                            .body_len = 4,
                            .ctype = "application/octet-stream"};
        th_do(t.base, &rq, &r);
        th_assert_problem(&r, 401, "unauthorized", "send Authorization: Bearer <token>");
        th_resp_free(&r);
    }

    /* The right tokens, the scheme in any case and with extra spaces. */
    assert_status(t.base, "/v1/version", good, 200);
    assert_status(t.base, "/v1/version", "Authorization: bearer   " TOKEN_B "  ", 200);
    assert_status(t.base, "/v1/arch?path=cpu_x86_64.pt2", good, 200);
    assert_status(t.base, "/no/such/thing", good, 404);

    /* Open without a token: probes, the page, the API reference. */
    assert_status(t.base, "/livez", NULL, 200);
    assert_status(t.base, "/readyz", NULL, 200);
    assert_status(t.base, "/", NULL, 200);
    assert_status(t.base, "/page/app.js", NULL, 200);
    assert_status(t.base, "/openapi.yaml", NULL, 200);

    /* A preflight is answered without credentials and allows the Authorization header. */
    ask(t.base, "OPTIONS", "/v1/inspect", "Origin: https://ui.example",
        "Access-Control-Request-Method: POST", &r);
    ck_assert_int_eq(r.status, 204);
    ck_assert(th_header(&r, "Access-Control-Allow-Headers", v, sizeof(v)));
    ck_assert_str_eq(v, "Authorization, Content-Type, If-None-Match, X-Request-Id, Cache-Control");
    th_resp_free(&r);
    /* A 401 to an allowed origin carries CORS headers, so the page can read it. */
    ask(t.base, NULL, "/v1/version", "Origin: https://ui.example", NULL, &r);
    ck_assert_int_eq(r.status, 401);
    ck_assert(th_header(&r, "Access-Control-Allow-Origin", v, sizeof(v)));
    ck_assert_str_eq(v, "https://ui.example");
    th_resp_free(&r);

    /* 10 refusals so far (8 asserted 401s, the upload, the CORS one); none for the Host. */
    ck_assert_int_eq(metric(t.base, good, "pt2scope_auth_refused_total{reason=\"unauthorized\"}"),
                     10);
    ck_assert_int_eq(
        metric(t.base, good, "pt2scope_auth_refused_total{reason=\"host-not-allowed\"}"), 0);

    /* The access log has the requests, never a token. */
    log = th_log_text(&t);
    ck_assert_ptr_nonnull(strstr(log, "\"route\":\"/v1/version\""));
    ck_assert_ptr_null(strstr(log, "tok-A"));
    ck_assert_ptr_null(strstr(log, "tok-B"));
    ck_assert_ptr_null(strstr(log, "Bearer"));
    free(log);
    th_stop(&t);
    unlink(token_path);
}
END_TEST

/* Peers of one deployment share the token file: the caller's token is passed on to them. */
START_TEST(test_cluster_passes_the_token_to_peers)
{
    struct th_server peer, front;
    const char *good = "Authorization: Bearer " TOKEN_A;
    const cJSON *p;
    struct th_resp r;
    cJSON *doc;
    char *log;

    token_file(TOKEN_A "\n");
    th_config(&peer);
    snprintf(peer.cfg.token_file, sizeof(peer.cfg.token_file), "%s", token_path);
    th_start(&peer);
    th_config(&front);
    snprintf(front.cfg.token_file, sizeof(front.cfg.token_file), "%s", token_path);
    snprintf(front.cfg.peers[0], sizeof(front.cfg.peers[0]), "%s", peer.base);
    front.cfg.n_peers = 1;
    th_start(&front);

    ask(front.base, NULL, "/v1/cluster/compatibility?path=cpu_x86_64.pt2", good, NULL, &r);
    ck_assert_int_eq(r.status, 200);
    doc = th_json(&r);
    p = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "peers"), 0);
    ck_assert_str_eq(th_str(p, "peer"), peer.base);
    ck_assert_str_eq(th_str(p, "status"), "ok");
    ck_assert_int_eq((int)cJSON_GetObjectItem(p, "http_status")->valuedouble, 200);
    cJSON_Delete(doc);
    th_resp_free(&r);
    /* The token never reaches either daemon's log. */
    log = th_log_text(&front);
    ck_assert_ptr_null(strstr(log, TOKEN_A));
    free(log);
    log = th_log_text(&peer);
    ck_assert_ptr_null(strstr(log, TOKEN_A));
    free(log);
    th_stop(&front);
    th_stop(&peer);
    unlink(token_path);
}
END_TEST

START_TEST(test_metrics_public_and_no_token_file)
{
    struct th_server t;

    token_file(TOKEN_A "\n");
    th_config(&t);
    snprintf(t.cfg.token_file, sizeof(t.cfg.token_file), "%s", token_path);
    t.cfg.metrics_public = 1;
    th_start(&t);
    assert_status(t.base, "/metrics", NULL, 200);
    assert_status(t.base, "/v1/version", NULL, 401);
    th_stop(&t);
    unlink(token_path);

    /* Without --token-file nothing changes: no header needed anywhere. */
    th_config(&t);
    th_start(&t);
    assert_status(t.base, "/v1/version", NULL, 200);
    assert_status(t.base, "/metrics", NULL, 200);
    assert_status(t.base, "/v1/version", "Authorization: Bearer whatever", 200);
    th_stop(&t);
}
END_TEST

START_TEST(test_host_check_on_loopback)
{
    struct th_server t;
    struct th_resp r;
    char h[128];
    const char *port;

    th_config(&t);
    th_start(&t);
    port = strrchr(t.base, ':') + 1;

    ask(t.base, NULL, "/v1/version", "Host: evil.example", NULL, &r);
    th_assert_problem(&r, 403, "host-not-allowed",
                      "this server does not answer for that Host (see --allowed-host)");
    th_resp_free(&r);
    snprintf(h, sizeof(h), "Host: evil.example:%s", port);
    assert_status(t.base, "/", h, 403);
    assert_status(t.base, "/openapi.yaml", h, 403);
    assert_status(t.base, "/metrics", h, 403);
    assert_status(t.base, "/v1/version", "Host: 127.0.0.1.evil.example", 403);
    /* Probes answer whatever the Host. */
    assert_status(t.base, "/livez", h, 200);
    assert_status(t.base, "/readyz", h, 200);

    snprintf(h, sizeof(h), "Host: localhost:%s", port);
    assert_status(t.base, "/v1/version", h, 200);
    snprintf(h, sizeof(h), "Host: LOCALHOST:%s", port);
    assert_status(t.base, "/v1/version", h, 200);
    snprintf(h, sizeof(h), "Host: 127.0.0.1:%s", port);
    assert_status(t.base, "/v1/version", h, 200);
    snprintf(h, sizeof(h), "Host: [::1]:%s", port);
    assert_status(t.base, "/v1/version", h, 200);
    assert_status(t.base, "/v1/version", "Host: 127.9.8.7", 200);

    ck_assert_int_eq(
        metric(t.base, NULL, "pt2scope_auth_refused_total{reason=\"host-not-allowed\"}"), 5);
    ck_assert_int_eq(metric(t.base, NULL, "pt2scope_auth_refused_total{reason=\"unauthorized\"}"),
                     0);
    th_stop(&t);

    /* --allowed-host: that name too, nothing else. */
    th_config(&t);
    snprintf(t.cfg.allowed_hosts[0], PT2D_HOST_MAX, "evil.example");
    t.cfg.n_allowed_hosts = 1;
    th_start(&t);
    assert_status(t.base, "/v1/version", "Host: evil.example", 200);
    assert_status(t.base, "/v1/version", "Host: Evil.Example:80", 200);
    assert_status(t.base, "/v1/version", "Host: other.example", 403);
    th_stop(&t);
}
END_TEST

/* ---- the program: start-up check and SIGHUP ----------------------------- */

static char daemon_path[512];

static void child_spawn(struct th_child *c, const char *const *args)
{
    char *const envp[] = {NULL};

    th_child_spawn(c, daemon_path, args, envp);
}

START_TEST(test_bad_token_file_exits_2)
{
    struct th_child c;
    char *err;
    const char *args[] = {"--token-file", token_path, NULL};
    const char *missing[] = {"--token-file", "/nonexistent/pt2scope/tokens", NULL};

    token_file("# nothing but a comment\n\n");
    child_spawn(&c, args);
    ck_assert_int_eq(th_child_wait(&c), 2);
    err = th_child_stderr(&c);
    ck_assert_str_eq(err, "pt2scoped: --token-file: token file has no tokens\n");
    free(err);
    th_child_cleanup(&c);
    unlink(token_path);

    child_spawn(&c, missing);
    ck_assert_int_eq(th_child_wait(&c), 2);
    err = th_child_stderr(&c);
    ck_assert_str_eq(err, "pt2scoped: --token-file: token file '/nonexistent/pt2scope/tokens': No "
                          "such file or directory\n");
    free(err);
    th_child_cleanup(&c);
}
END_TEST

START_TEST(test_sighup_rereads_tokens)
{
    struct th_child c;
    char pf[64], *txt = NULL, *err;
    const char *a = "Authorization: Bearer " TOKEN_A, *b = "Authorization: Bearer " TOKEN_B;
    const char *args[] = {"--listen", "127.0.0.1:0",  "--port-file",    pf,  "--token-file",
                          token_path, "--model-root", "tests/fixtures", NULL};
    int tries;

    token_file(TOKEN_A "\n");
    snprintf(pf, sizeof(pf), "/tmp/pt2d-auth-port-%ld", (long)getpid());
    child_spawn(&c, args);
    for (tries = 0; tries < 2000 && txt == NULL; tries++) {
        txt = (char *)tu_read_file(pf, NULL);
        if (txt == NULL)
            th_sleep_ms(5);
    }
    ck_assert_ptr_nonnull(txt);
    snprintf(c.base, sizeof(c.base), "http://127.0.0.1:%ld", strtol(txt, NULL, 10));
    free(txt);

    assert_status(c.base, "/v1/version", a, 200);
    assert_status(c.base, "/v1/version", b, 401);
    /* A new file, then SIGHUP: the old token is refused, the new one accepted. */
    write_file(token_path, "# rotated\n" TOKEN_B "\n");
    kill(c.pid, SIGHUP);
    ck_assert(th_child_logged(&c, "SIGHUP: token file re-read, 1 token\"", 1));
    assert_status(c.base, "/v1/version", a, 401);
    assert_status(c.base, "/v1/version", b, 200);
    /* A file that cannot be used keeps the tokens loaded before; the daemon goes on. */
    write_file(token_path, "\n# emptied by mistake\n");
    kill(c.pid, SIGHUP);
    ck_assert(th_child_logged(&c,
                              "SIGHUP: token file has no tokens; keeping the 1 token loaded "
                              "before",
                              1));
    assert_status(c.base, "/v1/version", b, 200);
    assert_status(c.base, "/v1/version", a, 401);
    assert_status(c.base, "/livez", NULL, 200);

    kill(c.pid, SIGTERM);
    ck_assert_int_eq(th_child_wait(&c), 0);
    err = th_child_stderr(&c);
    ck_assert_ptr_nonnull(strstr(err, "\"status\":401"));
    ck_assert_ptr_null(strstr(err, "tok-A"));
    ck_assert_ptr_null(strstr(err, "tok-B"));
    ck_assert_ptr_null(strstr(err, "Bearer"));
    free(err);
    th_child_cleanup(&c);
    unlink(token_path);
}
END_TEST

static Suite *auth_suite(void)
{
    Suite *s = suite_create("http_auth");
    TCase *tc = tcase_create("rules");
    TCase *tp = tcase_create("program");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_token_required);
    tcase_add_test(tc, test_cluster_passes_the_token_to_peers);
    tcase_add_test(tc, test_metrics_public_and_no_token_file);
    tcase_add_test(tc, test_host_check_on_loopback);
    suite_add_tcase(s, tc);
    tcase_set_timeout(tp, 60);
    if (tu_exists(th_daemon_bin(daemon_path, sizeof(daemon_path), 0))) {
        tcase_add_test(tp, test_bad_token_file_exits_2);
        tcase_add_test(tp, test_sighup_rereads_tokens);
    } else {
        tu_skip("http_auth program", "pt2scoped not built");
    }
    suite_add_tcase(s, tp);
    return s;
}

int main(void)
{
    return th_main("http_auth", "cpu_x86_64.pt2", auth_suite);
}
