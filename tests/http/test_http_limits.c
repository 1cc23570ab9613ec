/*
 * test_http_limits.c - pt2scoped under pressure: upload caps (declared and
 * mid-stream), a full queue, clients that vanish mid-upload, model-root
 * escapes, and draining with a request in flight. The worker is held busy
 * by the server's job gate (pt2d_gate.h), which each test opens once it has
 * checked what it must while the job waits: no sleep decides the order, so
 * the tests pass on a loaded machine too.
 */
#include "http_harness.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>

#include "pt2scope.h"

static struct th_server T;

static void setup_small(void)
{
    th_config(&T);
    T.cfg.max_upload = 4096;
    th_start(&T);
}

static void setup_slow(void)
{
    th_config(&T);
    T.cfg.workers = 1;
    T.cfg.queue = 1;
    th_gate(&T);
    th_start(&T);
}

static void setup_plain(void)
{
    th_config(&T);
    /* libmicrohttpd can miss a peer's close mid-body; the timeout then reaps it. */
    T.cfg.request_timeout = 1;
    th_start(&T);
}

static void teardown(void)
{
    th_stop(&T);
}

/* Descriptors of this process that point into the spool directory. */
static int spool_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    char link[PATH_MAX], p[300];
    int n = 0;

    ck_assert_ptr_nonnull(d);
    while ((e = readdir(d)) != NULL) {
        ssize_t k;

        if (e->d_name[0] == '.')
            continue;
        snprintf(p, sizeof(p), "/proc/self/fd/%s", e->d_name);
        k = readlink(p, link, sizeof(link) - 1);
        if (k <= 0)
            continue;
        link[k] = '\0';
        if (strncmp(link, T.spool, strlen(T.spool)) == 0)
            n++;
    }
    closedir(d);
    return n;
}

/* Wait (bounded, 4 s) until the process has `want` descriptors open. */
static int wait_fd_count(int want)
{
    int i;

    for (i = 0; i < 800; i++) {
        if (th_fd_count() == want)
            return 1;
        th_sleep_ms(5);
    }
    return 0;
}

/* Wait (bounded, 4 s: longer than the 1 s request timeout) until spool_fds() == want. */
static int wait_spool_fds(int want)
{
    int i;

    for (i = 0; i < 800; i++) {
        if (spool_fds() == want)
            return 1;
        th_sleep_ms(5);
    }
    return 0;
}

static unsigned long long metric(const char *text, const char *series)
{
    const char *p = text;
    size_t n = strlen(series);

    while ((p = strstr(p, series)) != NULL) {
        if ((p == text || p[-1] == '\n') && p[n] == ' ')
            return strtoull(p + n + 1, NULL, 10);
        p += n;
    }
    return (unsigned long long)-1;
}

static unsigned long long scrape(const char *series)
{
    struct th_resp r;
    unsigned long long v;

    th_get(T.base, "/metrics", &r);
    v = metric(r.body, series);
    th_resp_free(&r);
    return v;
}

/* Wait (bounded: 2000 scrapes, at least 10 s) until a gauge reaches `want`. */
static int wait_metric(const char *series, unsigned long long want)
{
    int i;

    for (i = 0; i < 2000; i++) {
        if (scrape(series) == want)
            return 1;
        th_sleep_ms(5);
    }
    return 0;
}

/* ---- 413 --------------------------------------------------------------- */

START_TEST(test_413_declared_length_skips_body)
{
    static char body[8192];
    const char *hs[] = {"Expect: 100-continue", NULL};
    struct th_req rq = {.path = "/v1/inspect",
                        .headers = hs,
                        .body = body,
                        .body_len = sizeof(body),
                        .ctype = "application/octet-stream"};
    struct curl_slist *hl;
    struct th_resp r;
    curl_off_t sent = -1;
    CURL *c;

    memset(body, 'x', sizeof(body));
    c = th_easy(T.base, &rq, &r, &hl);
    /* Give the server all the time it wants to answer before the body. */
    curl_easy_setopt(c, CURLOPT_EXPECT_100_TIMEOUT_MS, 5000L);
    ck_assert_int_eq(curl_easy_perform(c), CURLE_OK);
    curl_easy_getinfo(c, CURLINFO_SIZE_UPLOAD_T, &sent);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
    curl_slist_free_all(hl);
    curl_easy_cleanup(c);
    th_assert_problem(&r, 413, "too-large",
                      "request body of 8192 bytes exceeds the 4096-byte limit");
    ck_assert_int_eq(sent, 0);
    ck_assert_int_eq(spool_fds(), 0);
    th_resp_free(&r);
}
END_TEST

struct chunk_src {
    size_t left;
};

static size_t read_chunks(char *buf, size_t sz, size_t n, void *ud)
{
    struct chunk_src *s = ud;
    size_t k = sz * n < 1000 ? sz * n : 1000;

    if (k > s->left)
        k = s->left;
    memset(buf, 'z', k);
    s->left -= k;
    return k;
}

START_TEST(test_413_chunked_mid_stream)
{
    const char *hs[] = {"Transfer-Encoding: chunked", "Content-Type: application/octet-stream",
                        NULL};
    struct th_req rq = {.method = "POST", .path = "/v1/inspect", .headers = hs};
    struct chunk_src src = {20000};
    struct curl_slist *hl;
    struct th_resp r;
    CURL *c;

    c = th_easy(T.base, &rq, &r, &hl);
    curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, "POST");
    curl_easy_setopt(c, CURLOPT_READFUNCTION, read_chunks);
    curl_easy_setopt(c, CURLOPT_READDATA, &src);
    ck_assert_int_eq(th_perform(c, &r, hl), CURLE_OK);
    th_assert_problem(&r, 413, "too-large", "request body exceeds the 4096-byte limit");
    ck_assert(wait_spool_fds(0));
    ck_assert_int_eq(th_dir_count(T.spool), 0);
    th_resp_free(&r);
}
END_TEST

START_TEST(test_413_json_body_over_1mib)
{
    size_t n = (1u << 20) + 10;
    char *body = malloc(n);
    struct th_req rq = {
        .path = "/v1/inspect", .body = body, .body_len = n, .ctype = "application/json"};
    struct th_resp r;

    memset(body, ' ', n);
    th_do(T.base, &rq, &r);
    th_assert_problem(&r, 413, "too-large",
                      "request body of 1048586 bytes exceeds the 1048576-byte limit");
    th_resp_free(&r);
    free(body);
}
END_TEST

START_TEST(test_upload_within_cap_is_accepted)
{
    struct th_req rq = {.path = "/v1/inspect",
                        .body = "not a zip",
                        .body_len = 9,
                        .ctype = "application/octet-stream"};
    struct th_resp r;

    th_do(T.base, &rq, &r);
    ck_assert_int_eq(r.status, 422);
    ck_assert(wait_spool_fds(0));
    th_resp_free(&r);
}
END_TEST

/* ---- 503 --------------------------------------------------------------- */

#define GATE_WAIT_MS 10000 /* bound on a job reaching the gate */

struct bg_req {
    const char *base;
    const char *path;
    long status;
    char retry_after[16];
    char type[128];
    pthread_t tid;
};

static void *bg_run(void *arg)
{
    struct bg_req *b = arg;
    struct th_req rq = {.path = b->path};
    struct curl_slist *hl;
    struct th_resp r;
    CURL *c = th_easy(b->base, &rq, &r, &hl);

    if (th_perform(c, &r, hl) == CURLE_OK) {
        b->status = r.status;
        th_header(&r, "Retry-After", b->retry_after, sizeof(b->retry_after));
        if (r.body != NULL && strstr(r.body, "/problems/overloaded") != NULL)
            snprintf(b->type, sizeof(b->type), "overloaded");
    }
    free(r.body);
    return NULL;
}

START_TEST(test_503_when_queue_full)
{
    struct bg_req b[3];
    int i;

    memset(b, 0, sizeof(b));
    for (i = 0; i < 3; i++) {
        b[i].base = T.base;
        b[i].path = "/v1/arch?path=cpu_x86_64.pt2";
    }
    /* One request holds the only worker at the gate... */
    ck_assert_int_eq(pthread_create(&b[0].tid, NULL, bg_run, &b[0]), 0);
    ck_assert(pt2d_gate_await_waiting(&T.gate, 1, GATE_WAIT_MS));
    /* ...the next takes the one queue slot... */
    ck_assert_int_eq(pthread_create(&b[1].tid, NULL, bg_run, &b[1]), 0);
    ck_assert(wait_metric("pt2scope_queue_depth", 1));
    /* ...so the third is refused at once, while both are still held. */
    ck_assert_int_eq(pthread_create(&b[2].tid, NULL, bg_run, &b[2]), 0);
    pthread_join(b[2].tid, NULL);
    ck_assert_int_eq(b[2].status, 503);
    ck_assert_str_eq(b[2].retry_after, "1");
    ck_assert_str_eq(b[2].type, "overloaded");
    ck_assert_uint_eq(pt2d_gate_waiting(&T.gate), 1);
    ck_assert_uint_eq(scrape("pt2scope_queue_depth"), 1);
    th_gate_open(&T);
    for (i = 0; i < 2; i++)
        pthread_join(b[i].tid, NULL);
    ck_assert_int_eq(b[0].status, 200);
    ck_assert_int_eq(b[1].status, 200);
    ck_assert_uint_eq(
        scrape("pt2scope_http_requests_total{route=\"/v1/arch\",method=\"GET\",status=\"503\"}"),
        1);
}
END_TEST

/* Probes are answered on the HTTP thread even while every worker is busy. */
START_TEST(test_probes_not_queued)
{
    struct bg_req b;
    struct th_resp r;

    memset(&b, 0, sizeof(b));
    b.base = T.base;
    b.path = "/v1/arch?path=cpu_x86_64.pt2";
    ck_assert_int_eq(pthread_create(&b.tid, NULL, bg_run, &b), 0);
    ck_assert(pt2d_gate_await_waiting(&T.gate, 1, GATE_WAIT_MS));
    ck_assert_uint_eq(scrape("pt2scope_workers_busy"), 1);
    th_get(T.base, "/livez", &r);
    ck_assert_int_eq(r.status, 200);
    th_resp_free(&r);
    th_get(T.base, "/readyz", &r);
    ck_assert_int_eq(r.status, 200);
    th_resp_free(&r);
    /* Answered while the only worker is still held: the probes did not queue. */
    ck_assert_uint_eq(pt2d_gate_waiting(&T.gate), 1);
    ck_assert_uint_eq(scrape("pt2scope_workers_busy"), 1);
    th_gate_open(&T);
    pthread_join(b.tid, NULL);
    ck_assert_int_eq(b.status, 200);
}
END_TEST

/* ---- client abort ------------------------------------------------------ */

/* connect() `fd` to the server's port on 127.0.0.1: its result. */
static int connect_loopback(int fd, uint16_t port)
{
    struct sockaddr_in sa;

    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = htons(port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return connect(fd, (struct sockaddr *)&sa, sizeof(sa));
}

/* A connection from `from` (network order) to the server on 127.0.0.1. */
static int connect_from(uint16_t port, in_addr_t from)
{
    struct sockaddr_in sa;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    ck_assert_int_ge(fd, 0);
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = from;
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    ck_assert_int_eq(connect_loopback(fd, port), 0);
    return fd;
}

static int connect_local(uint16_t port)
{
    return connect_from(port, htonl(INADDR_ANY)); /* the kernel picks 127.0.0.1 */
}

/* 1 once nothing listens on the port any more (a connection is refused). */
static int listener_closed(uint16_t port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), rc;

    ck_assert_int_ge(fd, 0);
    rc = connect_loopback(fd, port);
    close(fd);
    return rc != 0 && errno == ECONNREFUSED;
}

static void send_all(int fd, const void *p, size_t n)
{
    const char *c = p;

    while (n > 0) {
        ssize_t k = send(fd, c, n, MSG_NOSIGNAL);
        ck_assert_int_gt(k, 0);
        c += k;
        n -= (size_t)k;
    }
}

START_TEST(test_client_abort_mid_upload_leaves_nothing)
{
    static char chunk[65536];
    /* Not a zip: kept whole, so past the 8 MiB held in memory it goes to a spool file. */
    const char *head = "POST /v1/inspect HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                       "Content-Type: application/octet-stream\r\n"
                       "Content-Length: 12000000\r\n\r\n";
    int base_fds, fd;

    /* Measured before any connection exists, so no socket is half-closed. */
    base_fds = th_fd_count();
    fd = connect_local(pt2d_server_port(T.srv));
    send_all(fd, head, strlen(head));
    memset(chunk, 'q', sizeof(chunk));
    for (int i = 0; i < 144; i++) /* 9 MiB */
        send_all(fd, chunk, sizeof(chunk));
    /* The upload is being spooled: one anonymous file is open. */
    ck_assert(wait_spool_fds(1));
    close(fd);
    ck_assert(wait_spool_fds(0));
    ck_assert(wait_metric("pt2scope_inflight_requests", 1));
    ck_assert_int_eq(th_dir_count(T.spool), 0);
    ck_assert(wait_fd_count(base_fds));
}
END_TEST

START_TEST(test_client_abort_while_queued)
{
    const char *req = "GET /v1/arch?path=cpu_x86_64.pt2 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    int fd, base_fds;

    base_fds = th_fd_count();
    fd = connect_local(pt2d_server_port(T.srv));
    send_all(fd, req, strlen(req));
    ck_assert(pt2d_gate_await_waiting(&T.gate, 1, GATE_WAIT_MS));
    close(fd); /* gone while its job is held */
    th_gate_open(&T);
    /* The job still finishes; the suspended connection is resumed and closed. */
    ck_assert(wait_metric("pt2scope_workers_busy", 0));
    ck_assert(wait_metric("pt2scope_inflight_requests", 1));
    /* MHD closes the socket once it reads the client's EOF. */
    ck_assert(wait_fd_count(base_fds));
}
END_TEST

/* ---- model roots ------------------------------------------------------- */

START_TEST(test_paths_symlinks_and_dirs)
{
    char p[512], q[512], fx[PATH_MAX], fixture[256];
    struct th_resp r;

    ck_assert_ptr_nonnull(realpath(tu_fixture("cpu_x86_64.pt2", fixture, sizeof(fixture)), fx));
    snprintf(p, sizeof(p), "%s/real.pt2", T.root2);
    th_copy_file(fx, p);
    snprintf(p, sizeof(p), "%s/inside.pt2", T.root2);
    ck_assert_int_eq(symlink("real.pt2", p), 0);
    snprintf(p, sizeof(p), "%s/escape.pt2", T.root2);
    ck_assert_int_eq(symlink(fx, p), 0);
    snprintf(p, sizeof(p), "%s/sub", T.root2);
    ck_assert_int_eq(mkdir(p, 0700), 0);
    snprintf(q, sizeof(q), "%s/sub/nested.pt2", T.root2);
    th_copy_file(fx, q);
    snprintf(p, sizeof(p), "%s/fx", T.root2);
    ck_assert_ptr_nonnull(realpath("tests/fixtures", q));
    ck_assert_int_eq(symlink(q, p), 0);

    th_get(T.base, "/v1/arch?path=real.pt2", &r);
    ck_assert_int_eq(r.status, 200);
    th_resp_free(&r);
    th_get(T.base, "/v1/arch?path=inside.pt2", &r);
    ck_assert_int_eq(r.status, 200);
    th_resp_free(&r);
    th_get(T.base, "/v1/arch?path=sub/nested.pt2", &r);
    ck_assert_int_eq(r.status, 200);
    th_resp_free(&r);
    th_get(T.base, "/v1/arch?path=./sub//nested.pt2", &r);
    ck_assert_int_eq(r.status, 200);
    th_resp_free(&r);
    th_get(T.base, "/v1/arch?path=escape.pt2", &r);
    th_assert_problem(&r, 403, "outside-root", "path 'escape.pt2' resolves outside its model root");
    th_resp_free(&r);
    th_get(T.base, "/v1/arch?path=fx/cpu_x86_64.pt2", &r);
    th_assert_problem(&r, 403, "outside-root",
                      "path 'fx/cpu_x86_64.pt2' resolves outside its model root");
    th_resp_free(&r);
    th_get(T.base, "/v1/arch?path=sub/../real.pt2", &r);
    th_assert_problem(&r, 403, "outside-root",
                      "path 'sub/../real.pt2' contains '..'; it must stay inside a model root");
    th_resp_free(&r);
    th_get(T.base, "/v1/arch?path=%2e%2e/etc/passwd", &r);
    th_assert_problem(&r, 403, "outside-root",
                      "path '../etc/passwd' contains '..'; it must stay inside a model root");
    th_resp_free(&r);
    th_get(T.base, "/v1/arch?path=sub", &r);
    th_assert_problem(&r, 404, "not-found", "'sub' is not a regular file");
    th_resp_free(&r);
}
END_TEST

START_TEST(test_path_fifo_does_not_hang)
{
    char p[512];
    struct th_resp r;

    snprintf(p, sizeof(p), "%s/pipe.pt2", T.root2);
    ck_assert_int_eq(mkfifo(p, 0600), 0);
    th_get(T.base, "/v1/arch?path=pipe.pt2", &r);
    th_assert_problem(&r, 404, "not-found", "'pipe.pt2' is not a regular file");
    th_resp_free(&r);
}
END_TEST

/* ---- drain ------------------------------------------------------------- */

struct drain_arg {
    struct pt2d_server *srv;
    unsigned long left;
};

static void *drain_run(void *arg)
{
    struct drain_arg *d = arg;

    d->left = pt2d_server_drain(d->srv, 30000); /* the test opens the gate well before */
    return NULL;
}

START_TEST(test_drain_finishes_inflight_and_fails_readyz)
{
    struct bg_req b;
    struct drain_arg d = {T.srv, 99};
    struct th_req rq = {.path = "/readyz"};
    struct curl_slist *hl;
    struct th_resp r;
    pthread_t dt;
    CURL *keep;
    CURLcode rc;
    char url[128];
    int i;

    /* A kept-alive connection to ask /readyz after the listener is closed. */
    keep = curl_easy_init();
    snprintf(url, sizeof(url), "%s/readyz", T.base);
    curl_easy_setopt(keep, CURLOPT_URL, url);
    curl_easy_setopt(keep, CURLOPT_WRITEFUNCTION, th_on_body);
    memset(&r, 0, sizeof(r));
    curl_easy_setopt(keep, CURLOPT_WRITEDATA, &r);
    ck_assert_int_eq(curl_easy_perform(keep), CURLE_OK);
    free(r.body);

    memset(&b, 0, sizeof(b));
    b.base = T.base;
    b.path = "/v1/arch?path=cpu_x86_64.pt2";
    ck_assert_int_eq(pthread_create(&b.tid, NULL, bg_run, &b), 0);
    ck_assert(pt2d_gate_await_waiting(&T.gate, 1, GATE_WAIT_MS));
    ck_assert_int_eq(pthread_create(&dt, NULL, drain_run, &d), 0);

    /* Wait (bounded: 5 s) for the listener to close, i.e. for quiescing to be over: a
     * request libmicrohttpd is answering while it quiesces may have its connection closed
     * after the answer, which would make this test a race; an idle one stays. */
    for (i = 0; i < 1000 && !listener_closed(pt2d_server_port(T.srv)); i++)
        th_sleep_ms(5);
    ck_assert_int_lt(i, 1000);

    /* The drain flag was set before; poll the old connection (bounded: 5 s). */
    for (i = 0; i < 1000; i++) {
        long status = 0;
        memset(&r, 0, sizeof(r));
        curl_easy_setopt(keep, CURLOPT_WRITEDATA, &r);
        rc = curl_easy_perform(keep);
        curl_easy_getinfo(keep, CURLINFO_RESPONSE_CODE, &status);
        if (rc == CURLE_OK && status == 503) {
            ck_assert_str_eq(r.body, "draining\n");
            free(r.body);
            break;
        }
        free(r.body);
        th_sleep_ms(5);
    }
    ck_assert_int_lt(i, 1000);
    curl_easy_cleanup(keep);

    /*
     * New connections are refused once quiesced. The drain flag is set just
     * before the listener closes, so a connection made in between is either
     * answered 503 or reset when the listener goes (curl: RECV_ERROR); it is
     * never served normally. Poll (bounded) until connecting fails.
     */
    for (i = 0; i < 1000; i++) {
        CURL *c = th_easy(T.base, &rq, &r, &hl);
        rc = th_perform(c, &r, hl);
        free(r.body);
        if (rc == CURLE_COULDNT_CONNECT)
            break;
        ck_assert_msg(rc == CURLE_RECV_ERROR || (rc == CURLE_OK && r.status == 503),
                      "a new connection during drain got curl %d, HTTP %ld", (int)rc, r.status);
        th_sleep_ms(5);
    }
    ck_assert_int_lt(i, 1000);
    /* All of that happened while the request was in flight; now let it finish. */
    ck_assert_uint_eq(pt2d_gate_waiting(&T.gate), 1);
    th_gate_open(&T);
    pthread_join(b.tid, NULL);
    ck_assert_int_eq(b.status, 200);
    pthread_join(dt, NULL);
    ck_assert_uint_eq(d.left, 0);
}
END_TEST

/* ---- connections per client address ------------------------------------- */

#define PER_IP 4

static void setup_per_ip(void)
{
    th_config(&T);
    T.cfg.max_connections_per_ip = PER_IP;
    th_start(&T);
}

/* The status code of the first response on fd (0 when the server closed it first). */
static int read_status(int fd)
{
    char buf[1024]; /* a whole small response: a second read starts at the next one */
    size_t n = 0;
    ssize_t k;
    int code = 0;

    while (n < sizeof(buf) - 1 && (k = recv(fd, buf + n, sizeof(buf) - 1 - n, 0)) > 0) {
        n += (size_t)k;
        buf[n] = '\0';
        if (strstr(buf, "\r\n") != NULL)
            break;
    }
    buf[n] = '\0';
    if (sscanf(buf, "HTTP/1.1 %d", &code) != 1)
        return 0;
    return code;
}

/*
 * One address holding its share of connections with half-sent headers (a
 * slow client, or a thousand of them) cannot lock another address out: the
 * next connection from the first address is closed on arrival, a probe
 * from a second address is answered, and the held connections still work.
 */
START_TEST(test_per_ip_limit_keeps_others_served)
{
    static const char partial[] = "GET /livez HTTP/1.1\r\nHost: a\r\n";
    static const char full[] = "GET /livez HTTP/1.1\r\nHost: b\r\nConnection: close\r\n\r\n";
    uint16_t port = pt2d_server_port(T.srv);
    in_addr_t one = inet_addr("127.0.0.1"), two = inet_addr("127.0.0.2");
    int held[PER_IP], extra, other, i;

    for (i = 0; i < PER_IP; i++) {
        held[i] = connect_from(port, one);
        send_all(held[i], partial, sizeof(partial) - 1);
    }
    /* Accepted by the kernel, closed by the server without a response. */
    extra = connect_from(port, one);
    send_all(extra, full, sizeof(full) - 1);
    ck_assert_int_eq(read_status(extra), 0);
    close(extra);
    /* Another address is served. */
    other = connect_from(port, two);
    send_all(other, full, sizeof(full) - 1);
    ck_assert_int_eq(read_status(other), 200);
    close(other);
    /* The held connections were never cut: one finishes its request. */
    send_all(held[0], "\r\n", 2);
    ck_assert_int_eq(read_status(held[0]), 200);
    for (i = 0; i < PER_IP; i++)
        close(held[i]);
}
END_TEST

/* ---- the header deadline ---------------------------------------------------- */

static void setup_deadline(void)
{
    th_config(&T);
    T.cfg.header_timeout = 1;
    th_start(&T);
}

/*
 * A client that is never idle (a header byte every 50 ms) but never finishes
 * its headers is cut at the deadline; one that sends its request in time,
 * and then another on the same connection, is served.
 */
START_TEST(test_header_deadline_cuts_a_dripping_client)
{
    static const char full[] = "GET /livez HTTP/1.1\r\nHost: localhost\r\n\r\n";
    uint16_t port = pt2d_server_port(T.srv);
    struct pollfd p;
    int fd, i, closed = 0;
    char c;

    fd = connect_local(port);
    send_all(fd, "GET /livez HTTP/1.1\r\nX-Drip: ", 30);
    /* Bounded: 400 x 50 ms, far past the 1 s deadline and the watchdog's tick. */
    for (i = 0; i < 400 && !closed; i++) {
        if (send(fd, "a", 1, MSG_NOSIGNAL) != 1)
            closed = 1;
        p.fd = fd;
        p.events = POLLIN;
        if (!closed && poll(&p, 1, 50) == 1 && recv(fd, &c, 1, 0) <= 0)
            closed = 1;
    }
    ck_assert_msg(closed, "a client dripping its headers was never cut");
    close(fd);

    /* A body trickled far below PT2D_BODY_MIN_RATE is cut the same way. */
    fd = connect_local(port);
    send_all(fd,
             "POST /v1/inspect HTTP/1.1\r\nHost: localhost\r\n"
             "Content-Type: application/octet-stream\r\nContent-Length: 1000000\r\n\r\nPK",
             113);
    for (i = 0, closed = 0; i < 400 && !closed; i++) {
        if (send(fd, "a", 1, MSG_NOSIGNAL) != 1)
            closed = 1;
        p.fd = fd;
        p.events = POLLIN;
        if (!closed && poll(&p, 1, 50) == 1 && recv(fd, &c, 1, 0) <= 0)
            closed = 1;
    }
    ck_assert_msg(closed, "a client trickling its body was never cut");
    close(fd);
    ck_assert(wait_spool_fds(0)); /* and its spool file went with it */

    /* In time, twice on one kept-alive connection: both answered. */
    fd = connect_local(port);
    send_all(fd, full, sizeof(full) - 1);
    ck_assert_int_eq(read_status(fd), 200);
    send_all(fd, full, sizeof(full) - 1);
    ck_assert_int_eq(read_status(fd), 200);
    close(fd);
}
END_TEST

/* ---- the memory budget for request bodies -------------------------------- */

#define BUDGET (2u << 20)
#define HELD (1536u << 10) /* what one slow client has sent of its nodes document */

static void setup_budget(void)
{
    th_config(&T);
    T.cfg.memory_budget = BUDGET;
    th_start(&T);
}

/* A complete 1 MiB POST /v1/compatibility body; the response's status. */
static long post_mib(struct th_resp *r)
{
    static char body[1u << 20];
    static const char head[] = "{\"path\": \"cpu_x86_64.pt2\", \"nodes\": []";
    struct th_req rq = {.method = "POST",
                        .path = "/v1/compatibility",
                        .body = body,
                        .body_len = sizeof(body),
                        .ctype = "application/json"};

    memset(body, ' ', sizeof(body));
    memcpy(body, head, sizeof(head) - 1);
    body[sizeof(body) - 1] = '}';
    th_do(T.base, &rq, r);
    return r->status;
}

/*
 * Twenty slow clients holding 15 MiB bodies were 300 MiB: now body bytes
 * come from one budget. While one client holds most of it another body is
 * refused 503 overloaded (Retry-After), not buffered; when the first goes
 * away its bytes come back.
 */
START_TEST(test_memory_budget_refuses_then_recovers)
{
    static char part[HELD];
    char hdr[256], v[16];
    struct th_resp r = {0};
    int fd;

    ck_assert(wait_metric("pt2scope_body_memory_budget_bytes", BUDGET));
    fd = connect_local(pt2d_server_port(T.srv));
    snprintf(
        hdr, sizeof(hdr),
        "POST /v1/compatibility HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
        "Content-Length: %u\r\n\r\n",
        4u << 20);
    send_all(fd, hdr, strlen(hdr));
    memset(part, ' ', sizeof(part));
    part[0] = '[';
    send_all(fd, part, sizeof(part));
    ck_assert(wait_metric("pt2scope_body_memory_bytes", HELD));

    ck_assert_int_eq(post_mib(&r), 503);
    th_assert_problem(&r, 503, "overloaded",
                      "the memory for request bodies (--memory-budget) is in use; retry");
    ck_assert(th_header(&r, "Retry-After", v, sizeof(v)));
    ck_assert_str_eq(v, "1");
    th_resp_free(&r);

    close(fd); /* the slow client goes away: its bytes come back */
    ck_assert(wait_metric("pt2scope_body_memory_bytes", 0));
    ck_assert_int_eq(post_mib(&r), 200);
    th_resp_free(&r);
    ck_assert(wait_metric("pt2scope_body_memory_bytes", 0));
}
END_TEST

static Suite *limits_suite(void)
{
    Suite *s = suite_create("http_limits");
    TCase *small = tcase_create("upload_cap");
    TCase *slow = tcase_create("slow_worker");
    TCase *plain = tcase_create("paths");
    TCase *per_ip = tcase_create("per_ip");
    TCase *budget = tcase_create("budget");
    TCase *deadline = tcase_create("deadline");

    tcase_add_checked_fixture(small, setup_small, teardown);
    tcase_set_timeout(small, 30);
    tcase_add_test(small, test_413_declared_length_skips_body);
    tcase_add_test(small, test_413_chunked_mid_stream);
    tcase_add_test(small, test_413_json_body_over_1mib);
    tcase_add_test(small, test_upload_within_cap_is_accepted);
    suite_add_tcase(s, small);

    tcase_add_checked_fixture(slow, setup_slow, teardown);
    tcase_set_timeout(slow, 30);
    tcase_add_test(slow, test_503_when_queue_full);
    tcase_add_test(slow, test_probes_not_queued);
    tcase_add_test(slow, test_client_abort_while_queued);
    tcase_add_test(slow, test_drain_finishes_inflight_and_fails_readyz);
    suite_add_tcase(s, slow);

    tcase_add_checked_fixture(plain, setup_plain, teardown);
    tcase_set_timeout(plain, 30);
    tcase_add_test(plain, test_client_abort_mid_upload_leaves_nothing);
    tcase_add_test(plain, test_paths_symlinks_and_dirs);
    tcase_add_test(plain, test_path_fifo_does_not_hang);
    suite_add_tcase(s, plain);

    tcase_add_checked_fixture(per_ip, setup_per_ip, teardown);
    tcase_set_timeout(per_ip, 30);
    tcase_add_test(per_ip, test_per_ip_limit_keeps_others_served);
    suite_add_tcase(s, per_ip);

    tcase_add_checked_fixture(budget, setup_budget, teardown);
    tcase_set_timeout(budget, 30);
    tcase_add_test(budget, test_memory_budget_refuses_then_recovers);
    suite_add_tcase(s, budget);

    tcase_add_checked_fixture(deadline, setup_deadline, teardown);
    tcase_set_timeout(deadline, 30);
    tcase_add_test(deadline, test_header_deadline_cuts_a_dripping_client);
    suite_add_tcase(s, deadline);
    return s;
}

int main(void)
{
    return th_main("http_limits", "cpu_x86_64.pt2", limits_suite);
}
