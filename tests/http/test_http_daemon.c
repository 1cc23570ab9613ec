/*
 * test_http_daemon.c - the pt2scoped program itself, run as a child
 * process: flag and environment validation (exit 2, one line on stderr),
 * --port-file and the first log line, flags winning over variables, and
 * SIGTERM/SIGINT draining an in-flight request before exiting 0;
 * --drain-delay (still serving with /readyz 503 after SIGTERM, a second
 * signal cutting it short), --max-uploads (503 past the cap, the slot freed
 * when the request ends) and --healthcheck (exit 0 with one line on stdout
 * against a live daemon, 1 with one line on stderr otherwise).
 *
 * The production binary ($PT2SCOPE_BUILD/pt2scoped) is tested, except where
 * a request must stay in flight: there the test build (pt2scoped-test)
 * holds its job at a file gate (--test-gate) that the test creates once it
 * has seen the drain begin, so no sleep decides the order.
 *
 * Skips when the daemon binaries are not built.
 */
#include "http_harness.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "pt2scope.h"

static char production_bin[512], test_bin[512];
static const char *daemon_bin = production_bin; /* what child_spawn starts */

/* Start daemon_bin with argv (NULL-terminated, without argv[0]) and envp. */
static void child_spawn(struct th_child *c, const char *const *args, char *const envp[])
{
    th_child_spawn(c, daemon_bin, args, envp);
}

/* Start a daemon on an ephemeral port and wait for its port file. */
static void child_serve(struct th_child *c, const char *const *extra, char *const envp[])
{
    const char *args[32];
    char pf[64];
    size_t n = 0, i;
    int tries;
    char *txt;

    snprintf(pf, sizeof(pf), "/tmp/pt2d-port-%ld-%ld", (long)getpid(), (long)time(NULL));
    args[n++] = "--listen";
    args[n++] = "127.0.0.1:0";
    args[n++] = "--port-file";
    args[n++] = pf;
    for (i = 0; extra != NULL && extra[i] != NULL && n + 1 < 32; i++)
        args[n++] = extra[i];
    args[n] = NULL;
    child_spawn(c, args, envp);
    snprintf(c->port_file, sizeof(c->port_file), "%s", pf);
    for (tries = 0; tries < 1000; tries++) {
        txt = (char *)tu_read_file(pf, NULL);
        if (txt != NULL) {
            snprintf(c->base, sizeof(c->base), "http://127.0.0.1:%ld", strtol(txt, NULL, 10));
            free(txt);
            return;
        }
        th_sleep_ms(5);
    }
    ck_abort_msg("daemon did not write its port file");
}

static unsigned long long scrape(const char *base, const char *series)
{
    struct th_resp r;
    const char *p;
    unsigned long long v = (unsigned long long)-1;
    size_t n = strlen(series);

    th_get(base, "/metrics", &r);
    for (p = r.body; (p = strstr(p, series)) != NULL; p += n)
        if ((p == r.body || p[-1] == '\n') && p[n] == ' ') {
            v = strtoull(p + n + 1, NULL, 10);
            break;
        }
    th_resp_free(&r);
    return v;
}

/* ---- validation -------------------------------------------------------- */

static void assert_rejected(const char *const *args, char *const envp[], const char *line)
{
    struct th_child c;
    char *err;

    child_spawn(&c, args, envp);
    ck_assert_int_eq(th_child_wait(&c), 2);
    err = th_child_stderr(&c);
    ck_assert_str_eq(err, line);
    free(err);
    th_child_cleanup(&c);
}

START_TEST(test_bad_flags_exit_2)
{
    char *const noenv[] = {NULL};
    char *const badenv[] = {"PT2SCOPE_QUEUE=0", NULL};
    const char *a1[] = {"--workers", "abc", NULL};
    const char *a2[] = {"--bogus", NULL};
    const char *a3[] = {"--max-upload", "12Q", NULL};
    const char *a4[] = {"--listen", "localhost", NULL};
    const char *a5[] = {"--model-root", "/nonexistent/pt2scope", NULL};
    const char *a6[] = {"--cors-origin", "ftp://x", NULL};
    const char *a7[] = {"--request-timeout", NULL};
    const char *none[] = {NULL};

    assert_rejected(a1, noenv, "pt2scoped: --workers: 'abc' is not an integer in 1..1024\n");
    assert_rejected(a2, noenv, "pt2scoped: unknown option '--bogus' (see --help)\n");
    assert_rejected(a3, noenv,
                    "pt2scoped: --max-upload: '12Q' is not a size (a positive number, "
                    "optionally with K, M, G or T)\n");
    assert_rejected(a4, noenv,
                    "pt2scoped: --listen: 'localhost' is not HOST:PORT (e.g. 127.0.0.1:8080 or "
                    "[::1]:8080)\n");
    assert_rejected(a5, noenv,
                    "pt2scoped: --model-root: '/nonexistent/pt2scope': No such file or "
                    "directory\n");
    assert_rejected(a6, noenv,
                    "pt2scoped: --cors-origin: 'ftp://x' is not an origin (* or "
                    "http[s]://host[:port])\n");
    assert_rejected(a7, noenv, "pt2scoped: --request-timeout needs a value\n");
    assert_rejected(none, badenv, "pt2scoped: PT2SCOPE_QUEUE: '0' is not an integer in 1..65536\n");
}
END_TEST

START_TEST(test_version_and_help)
{
    char *const noenv[] = {NULL};
    const char *v[] = {"--version", NULL};
    const char *h[] = {"--help", NULL};
    struct th_child c;
    char *out;

    child_spawn(&c, v, noenv);
    ck_assert_int_eq(th_child_wait(&c), 0);
    out = (char *)tu_read_file(c.out_path, NULL);
    ck_assert_str_eq(out, "pt2scoped " PT2SCOPE_VERSION " (schema 2)\n");
    free(out);
    th_child_cleanup(&c);

    child_spawn(&c, h, noenv);
    ck_assert_int_eq(th_child_wait(&c), 0);
    out = (char *)tu_read_file(c.out_path, NULL);
    ck_assert(strncmp(out, "usage: pt2scoped [OPTION...]\n", 29) == 0);
    ck_assert(strstr(out, "  --max-upload SIZE\n") != NULL);
    ck_assert(strstr(out, "[PT2SCOPE_MODEL_ROOT]") != NULL);
    free(out);
    th_child_cleanup(&c);
}
END_TEST

/* ---- running ----------------------------------------------------------- */

START_TEST(test_port_file_first_log_line_and_env)
{
    char *const env[] = {"PT2SCOPE_WORKERS=3", "PT2SCOPE_QUEUE=5",
                         "PT2SCOPE_MODEL_ROOT=/nonexistent-ignored-because-flag-wins", NULL};
    const char *extra[] = {"--workers", "1", "--model-root", "tests/fixtures", NULL};
    struct th_child c;
    struct th_resp r;
    char *err, want[128], *nl;

    child_serve(&c, extra, env);
    ck_assert_uint_eq(scrape(c.base, "pt2scope_workers"), 1);
    ck_assert_uint_eq(scrape(c.base, "pt2scope_queue_capacity"), 5);
    th_get(c.base, "/v1/arch?path=cpu_x86_64.pt2", &r);
    ck_assert_int_eq(r.status, 200);
    th_resp_free(&r);
    kill(c.pid, SIGINT);
    ck_assert_int_eq(th_child_wait(&c), 0);
    ck_assert(!tu_exists(c.port_file));

    err = th_child_stderr(&c);
    nl = strchr(err, '\n');
    ck_assert_ptr_nonnull(nl);
    *nl = '\0';
    snprintf(want, sizeof(want), "\"msg\":\"listening on %s (workers 1, queue 5, roots 1)\"",
             c.base);
    ck_assert_msg(strstr(err, want) != NULL, "first line: %s", err);
    ck_assert(strncmp(err, "{\"ts\":\"", 7) == 0);
    free(err);
    th_child_cleanup(&c);
}
END_TEST

struct bg {
    const char *base;
    long status;
    char *body;
    pthread_t tid;
};

static void *bg_run(void *arg)
{
    struct bg *b = arg;
    struct th_req rq = {.path = "/v1/arch?path=cpu_x86_64.pt2"};
    struct curl_slist *hl;
    struct th_resp r;
    CURL *c = th_easy(b->base, &rq, &r, &hl);

    if (th_perform(c, &r, hl) == CURLE_OK)
        b->status = r.status;
    b->body = r.body;
    return NULL;
}

START_TEST(test_sigterm_drains_inflight_then_exits_0)
{
    char *const env[] = {NULL};
    char gate[64];
    const char *extra[] = {"--test-gate",    gate, "--workers", "1", "--model-root",
                           "tests/fixtures", NULL};
    struct th_child c;
    struct bg b = {0};
    char *err;
    int i, fd;

    snprintf(gate, sizeof(gate), "/tmp/pt2d-gate-%ld", (long)getpid());
    unlink(gate);
    daemon_bin = test_bin;
    child_serve(&c, extra, env);
    daemon_bin = production_bin;
    b.base = c.base;
    ck_assert_int_eq(pthread_create(&b.tid, NULL, bg_run, &b), 0);
    /* The job is held at the gate, so the worker stays busy until the file exists. */
    for (i = 0; i < 2000 && scrape(c.base, "pt2scope_workers_busy") != 1; i++)
        th_sleep_ms(5);
    ck_assert_int_lt(i, 2000);
    kill(c.pid, SIGTERM);
    ck_assert(th_child_logged(&c,
                              "\"msg\":\"draining: no new connections, finishing requests in "
                              "flight\"",
                              1));
    /* Draining, and still running: it waits for the request in flight. */
    ck_assert_int_eq(waitpid(c.pid, NULL, WNOHANG), 0);
    fd = open(gate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    ck_assert_int_ge(fd, 0);
    close(fd);
    pthread_join(b.tid, NULL);
    unlink(gate);
    ck_assert_int_eq(b.status, 200);
    ck_assert(b.body != NULL && strstr(b.body, "\"device_key\":\"cpu\"") != NULL);
    free(b.body);
    ck_assert_int_eq(th_child_wait(&c), 0);
    err = th_child_stderr(&c);
    ck_assert(strstr(err, "\"msg\":\"draining: no new connections, finishing requests in "
                          "flight\"") != NULL);
    ck_assert(strstr(err, "\"route\":\"/v1/arch\",\"path\":\"/v1/arch\",\"status\":200") != NULL);
    ck_assert(strstr(err, "\"msg\":\"stopped\"") != NULL);
    ck_assert(strstr(err, "still in flight") == NULL);
    free(err);
    th_child_cleanup(&c);
}
END_TEST

static double mono_s(void);

/* Start the test daemon with a gate that is never opened: every job holds its worker. */
static void serve_gated(struct th_child *c, const char *const *more)
{
    char *const env[] = {NULL};
    static char gate[64];
    const char *extra[16] = {"--test-gate", gate, "--workers",    "1",
                             "--queue",     "4",  "--model-root", "tests/fixtures"};
    size_t n = 8, i;

    snprintf(gate, sizeof(gate), "/tmp/pt2d-nogate-%ld", (long)getpid());
    unlink(gate);
    for (i = 0; more != NULL && more[i] != NULL && n + 1 < 16; i++)
        extra[n++] = more[i];
    extra[n] = NULL;
    daemon_bin = test_bin;
    child_serve(c, extra, env);
    daemon_bin = production_bin;
}

/*
 * SIGTERM with slow jobs queued (an attack run waited 50.7 s for them, 41 s more after a
 * second signal): jobs that have not started are answered 503 at once, the running one is
 * waited for, and a second signal exits at once.
 */
START_TEST(test_sigterm_queued_503_second_signal_exits)
{
    struct th_child c;
    struct bg b[4];
    double t0;
    char *err;
    int i;

    memset(b, 0, sizeof(b));
    serve_gated(&c, NULL);
    for (i = 0; i < 4; i++) {
        b[i].base = c.base;
        ck_assert_int_eq(pthread_create(&b[i].tid, NULL, bg_run, &b[i]), 0);
        /* In order: the first holds the worker, the others queue behind it. */
        while (scrape(c.base, "pt2scope_workers_busy") + scrape(c.base, "pt2scope_queue_depth") <
               (unsigned long long)i + 1)
            th_sleep_ms(5);
    }
    t0 = mono_s();
    kill(c.pid, SIGTERM);
    for (i = 1; i < 4; i++) {
        pthread_join(b[i].tid, NULL);
        ck_assert_int_eq(b[i].status, 503);
        ck_assert(b[i].body != NULL && strstr(b[i].body, "the server is shutting down") != NULL);
        free(b[i].body);
    }
    ck_assert(mono_s() - t0 < 3);                       /* at once, not after the running job */
    ck_assert_int_eq(waitpid(c.pid, NULL, WNOHANG), 0); /* the running job is waited for */
    t0 = mono_s();
    kill(c.pid, SIGTERM);
    ck_assert_int_eq(th_child_wait(&c), 1);
    ck_assert(mono_s() - t0 < 3);
    pthread_join(b[0].tid, NULL); /* its connection ends with the process */
    ck_assert_int_ne(b[0].status, 200);
    free(b[0].body);
    err = th_child_stderr(&c);
    ck_assert(strstr(err, "\"msg\":\"stopping now with 1 request still in flight (second "
                          "signal)\"") != NULL);
    free(err);
    th_child_cleanup(&c);
}
END_TEST

/* --drain-timeout: a job that outlives it does not hold the exit. */
START_TEST(test_drain_timeout_bounds_the_exit)
{
    const char *more[] = {"--drain-timeout", "1", NULL};
    struct th_child c;
    struct bg b = {0};
    double t0;
    char *err;

    serve_gated(&c, more);
    b.base = c.base;
    ck_assert_int_eq(pthread_create(&b.tid, NULL, bg_run, &b), 0);
    while (scrape(c.base, "pt2scope_workers_busy") != 1)
        th_sleep_ms(5);
    t0 = mono_s();
    kill(c.pid, SIGTERM);
    ck_assert_int_eq(th_child_wait(&c), 1);
    ck_assert(mono_s() - t0 >= 0.9 && mono_s() - t0 < 5);
    pthread_join(b.tid, NULL);
    free(b.body);
    err = th_child_stderr(&c);
    ck_assert(strstr(err, "\"msg\":\"stopping now with 1 request still in flight "
                          "(--drain-timeout reached)\"") != NULL);
    free(err);
    th_child_cleanup(&c);
}
END_TEST

/* ---- --drain-delay, --max-uploads, --healthcheck ------------------------ */

static double mono_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

START_TEST(test_new_flags_validated)
{
    char *const noenv[] = {NULL};
    char *const badenv[] = {"PT2SCOPE_MAX_UPLOADS=-1", NULL};
    const char *a1[] = {"--drain-delay", "301", NULL};
    const char *a2[] = {"--max-uploads", "many", NULL};
    const char *none[] = {NULL};

    assert_rejected(a1, noenv, "pt2scoped: --drain-delay: '301' is not an integer in 0..300\n");
    assert_rejected(a2, noenv, "pt2scoped: --max-uploads: 'many' is not an integer in 0..65536\n");
    assert_rejected(none, badenv,
                    "pt2scoped: PT2SCOPE_MAX_UPLOADS: '-1' is not an integer in 0..65536\n");
}
END_TEST

/* After SIGTERM with --drain-delay: /readyz 503, work still answered (Connection: close). */
START_TEST(test_drain_delay_keeps_serving_until_a_second_signal)
{
    char *const env[] = {NULL};
    const char *extra[] = {"--drain-delay", "60", "--model-root", "tests/fixtures", NULL};
    struct th_child c;
    struct th_resp r;
    char conn[32], *err;
    double t0;

    child_serve(&c, extra, env);
    th_get(c.base, "/readyz", &r);
    ck_assert_int_eq(r.status, 200);
    th_resp_free(&r);
    kill(c.pid, SIGTERM);
    ck_assert(th_child_logged(&c,
                              "\"msg\":\"unready: /readyz answers 503, still serving for 60 s "
                              "(--drain-delay)\"",
                              1));
    th_get(c.base, "/readyz", &r);
    ck_assert_int_eq(r.status, 503);
    ck_assert_str_eq(r.body, "draining\n");
    th_resp_free(&r);
    th_get(c.base, "/v1/arch?path=cpu_x86_64.pt2", &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert(strstr(r.body, "\"device_key\":\"cpu\"") != NULL);
    ck_assert(th_header(&r, "Connection", conn, sizeof(conn)));
    ck_assert_str_eq(conn, "close");
    th_resp_free(&r);
    ck_assert_uint_eq(scrape(c.base, "pt2scope_ready"), 0);
    /* Still within the delay: the listener is open and the process runs. */
    ck_assert_int_eq(waitpid(c.pid, NULL, WNOHANG), 0);
    t0 = mono_s();
    kill(c.pid, SIGTERM);
    ck_assert_int_eq(th_child_wait(&c), 0);
    ck_assert(mono_s() - t0 < 10); /* not the 60 s */
    err = th_child_stderr(&c);
    ck_assert(strstr(err, "\"msg\":\"draining: no new connections, finishing requests in "
                          "flight\"") != NULL);
    ck_assert(strstr(err, "\"msg\":\"stopped\"") != NULL);
    ck_assert(strstr(err, "\"route\":\"/v1/arch\",\"path\":\"/v1/arch\",\"status\":200") != NULL);
    free(err);
    th_child_cleanup(&c);
}
END_TEST

/* Without a second signal the delay runs its course, then the daemon stops. */
START_TEST(test_drain_delay_runs_its_course)
{
    char *const env[] = {"PT2SCOPE_DRAIN_DELAY=1", NULL};
    struct th_child c;
    double t0;
    char *err;

    child_serve(&c, NULL, env);
    t0 = mono_s();
    kill(c.pid, SIGTERM);
    ck_assert_int_eq(th_child_wait(&c), 0);
    ck_assert(mono_s() - t0 >= 1.0);
    err = th_child_stderr(&c);
    ck_assert(strstr(err, "still serving for 1 s (--drain-delay)") != NULL);
    ck_assert(strstr(err, "\"msg\":\"stopped\"") != NULL);
    free(err);
    th_child_cleanup(&c);
}
END_TEST

struct upload {
    const char *base;
    const void *body;
    size_t len;
    struct th_resp r;
    pthread_t tid;
};

static void *upload_run(void *arg)
{
    struct upload *u = arg;
    struct th_req rq = {.path = "/v1/arch",
                        .body = u->body,
                        .body_len = u->len,
                        .ctype = "application/octet-stream"};
    struct curl_slist *hl;
    CURL *c = th_easy(u->base, &rq, &u->r, &hl);

    if (th_perform(c, &u->r, hl) != CURLE_OK)
        u->r.status = -1;
    return NULL;
}

START_TEST(test_max_uploads_refuses_past_the_cap)
{
    char *const env[] = {NULL};
    char gate[64], pkg[256], retry[16];
    const char *extra[] = {"--test-gate", gate, "--workers", "2", "--max-uploads", "1", NULL};
    struct th_child c;
    struct upload held = {0}, u = {0};
    size_t len;
    uint8_t *bytes;
    int i, fd;

    bytes = tu_read_file(tu_fixture("cpu_x86_64.pt2", pkg, sizeof(pkg)), &len);
    ck_assert_ptr_nonnull(bytes);
    snprintf(gate, sizeof(gate), "/tmp/pt2d-gate-up-%ld", (long)getpid());
    unlink(gate);
    daemon_bin = test_bin;
    child_serve(&c, extra, env);
    daemon_bin = production_bin;
    held.base = u.base = c.base;
    held.body = u.body = bytes;
    held.len = u.len = len;
    /* The first upload is spooled and held at the gate: it keeps the one slot. */
    ck_assert_int_eq(pthread_create(&held.tid, NULL, upload_run, &held), 0);
    for (i = 0; i < 2000 && scrape(c.base, "pt2scope_workers_busy") != 1; i++)
        th_sleep_ms(5);
    ck_assert_int_lt(i, 2000);
    upload_run(&u);
    th_assert_problem(&u.r, 503, "overloaded",
                      "too many uploads in progress (--max-uploads); retry shortly");
    ck_assert(th_header(&u.r, "Retry-After", retry, sizeof(retry)));
    ck_assert_str_eq(retry, "1");
    th_resp_free(&u.r);
    /* A path reference takes no slot. */
    {
        struct th_resp r;
        th_get(c.base, "/readyz", &r);
        ck_assert_int_eq(r.status, 200);
        th_resp_free(&r);
    }
    fd = open(gate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    ck_assert_int_ge(fd, 0);
    close(fd);
    pthread_join(held.tid, NULL);
    ck_assert_int_eq(held.r.status, 200);
    th_resp_free(&held.r);
    /* Once the held request is freed (only the scrape itself in flight), the slot is back. */
    for (i = 0; i < 2000 && scrape(c.base, "pt2scope_inflight_requests") != 1; i++)
        th_sleep_ms(5);
    ck_assert_int_lt(i, 2000);
    upload_run(&u);
    ck_assert_int_eq(u.r.status, 200);
    ck_assert(u.r.body != NULL && strstr(u.r.body, "\"device_key\":\"cpu\"") != NULL);
    th_resp_free(&u.r);
    unlink(gate);
    free(bytes);
    kill(c.pid, SIGTERM);
    ck_assert_int_eq(th_child_wait(&c), 0);
    th_child_cleanup(&c);
}
END_TEST

/* Run `pt2scoped --healthcheck ARGS...`; its exit status, stdout and stderr. */
static int healthcheck(const char *const *args, char *const envp[], char **out, char **err)
{
    struct th_child c;
    int rc;

    child_spawn(&c, args, envp);
    rc = th_child_wait(&c);
    *out = (char *)tu_read_file(c.out_path, NULL);
    *err = th_child_stderr(&c);
    ck_assert_ptr_nonnull(*out);
    th_child_cleanup(&c);
    return rc;
}

START_TEST(test_healthcheck)
{
    char *const noenv[] = {NULL};
    char listen_env[64], want[160], port[16], *out, *err;
    char *env[] = {listen_env, NULL};
    const char *flags_only[] = {"--healthcheck", "--listen", "127.0.0.1:0", NULL};
    const char *bad[] = {"--healthcheck", "--workers", "0", NULL};
    struct sockaddr_in sin;
    socklen_t sl = sizeof(sin);
    struct th_child d;
    int s;

    /* A live daemon: found through its port file, and through a wildcard address. */
    child_serve(&d, NULL, noenv);
    {
        const char *args[] = {"--healthcheck", "--listen",  "127.0.0.1:0",
                              "--port-file",   d.port_file, NULL};
        ck_assert_int_eq(healthcheck(args, noenv, &out, &err), 0);
        snprintf(want, sizeof(want), "pt2scoped: healthy: GET %s/livez answered 200\n", d.base);
        ck_assert_str_eq(out, want);
        ck_assert_str_eq(err, "");
        free(out);
        free(err);
    }
    snprintf(port, sizeof(port), "%s", strrchr(d.base, ':') + 1);
    snprintf(listen_env, sizeof(listen_env), "PT2SCOPE_LISTEN=0.0.0.0:%s", port);
    {
        const char *args[] = {"--healthcheck", NULL};
        ck_assert_int_eq(healthcheck(args, env, &out, &err), 0);
        ck_assert_str_eq(out, want);
        free(out);
        free(err);
    }
    kill(d.pid, SIGTERM);
    ck_assert_int_eq(th_child_wait(&d), 0);
    th_child_cleanup(&d);

    /* Nothing listening: a port bound but never listened on refuses connections. */
    s = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_ge(s, 0);
    memset(&sin, 0, sizeof(sin));
    sin.sin_family = AF_INET;
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(bind(s, (struct sockaddr *)&sin, sizeof(sin)), 0);
    ck_assert_int_eq(getsockname(s, (struct sockaddr *)&sin, &sl), 0);
    snprintf(listen_env, sizeof(listen_env), "PT2SCOPE_LISTEN=127.0.0.1:%u",
             (unsigned)ntohs(sin.sin_port));
    {
        const char *args[] = {"--healthcheck", NULL};
        ck_assert_int_eq(healthcheck(args, env, &out, &err), 1);
        snprintf(want, sizeof(want),
                 "pt2scoped: unhealthy: GET http://127.0.0.1:%u/livez: Connection refused\n",
                 (unsigned)ntohs(sin.sin_port));
        ck_assert_str_eq(err, want);
        ck_assert_str_eq(out, "");
        free(out);
        free(err);
        /* Listening but never answering: the 2 s limit, not a hang. */
        ck_assert_int_eq(listen(s, 4), 0);
        ck_assert_int_eq(healthcheck(args, env, &out, &err), 1);
        snprintf(want, sizeof(want),
                 "pt2scoped: unhealthy: GET http://127.0.0.1:%u/livez: no answer within 2000 ms\n",
                 (unsigned)ntohs(sin.sin_port));
        ck_assert_str_eq(err, want);
        free(out);
        free(err);
    }
    close(s);

    /* No address to ask, and a bad setting: 1 (a HEALTHCHECK's "unhealthy"), never 2. */
    ck_assert_int_eq(healthcheck(flags_only, noenv, &out, &err), 1);
    ck_assert_str_eq(err, "pt2scoped: unhealthy: the listen port is 0 and no --port-file names "
                          "the bound port\n");
    free(out);
    free(err);
    ck_assert_int_eq(healthcheck(bad, noenv, &out, &err), 1);
    ck_assert_str_eq(err, "pt2scoped: unhealthy: --workers: '0' is not an integer in 1..1024\n");
    free(out);
    free(err);
}
END_TEST

static Suite *daemon_suite(void)
{
    Suite *s = suite_create("http_daemon");
    TCase *tc = tcase_create("process");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_bad_flags_exit_2);
    tcase_add_test(tc, test_version_and_help);
    tcase_add_test(tc, test_port_file_first_log_line_and_env);
    tcase_add_test(tc, test_sigterm_drains_inflight_then_exits_0);
    tcase_add_test(tc, test_sigterm_queued_503_second_signal_exits);
    tcase_add_test(tc, test_drain_timeout_bounds_the_exit);
    tcase_add_test(tc, test_new_flags_validated);
    tcase_add_test(tc, test_drain_delay_keeps_serving_until_a_second_signal);
    tcase_add_test(tc, test_drain_delay_runs_its_course);
    tcase_add_test(tc, test_max_uploads_refuses_past_the_cap);
    tcase_add_test(tc, test_healthcheck);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    th_daemon_bin(production_bin, sizeof(production_bin), 0);
    th_daemon_bin(test_bin, sizeof(test_bin), 1);
    if (!tu_exists(production_bin) || !tu_exists(test_bin)) {
        tu_skip("http_daemon", "daemon binaries (pt2scoped, pt2scoped-test) not built");
        return 0;
    }
    return th_main("http_daemon", "cpu_x86_64.pt2", daemon_suite);
}
