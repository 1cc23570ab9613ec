/*
 * http_harness.h - helpers for the HTTP suites: an in-process pt2scoped on
 * an ephemeral loopback port and a small libcurl client.
 *
 * The Makefile links only tests/http/test_*.c into the HTTP binaries, so the
 * helpers live in this header as static functions (TH_FN marks them unused-ok).
 * All traffic goes to 127.0.0.1. Every wait is bounded.
 *
 * The suites link the daemon's test build (-DPT2SCOPE_TEST_HOOKS): a test
 * that needs a busy worker closes the server's job gate (th_gate) and opens
 * it when it is done (th_gate_open), instead of slowing jobs with a sleep.
 * Child daemons that need a hook are $(BUILD)/pt2scoped-test (th_daemon_bin).
 */
#ifndef PT2D_HTTP_HARNESS_H
#define PT2D_HTTP_HARNESS_H

#include <check.h>
#include <cJSON.h>
#include <curl/curl.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef PT2SCOPE_TEST_HOOKS
#error "the HTTP suites are built with -DPT2SCOPE_TEST_HOOKS (see the Makefile)"
#endif

#include "pt2d_config.h"
#include "pt2d_gate.h"
#include "pt2d_server.h"
#include "testutil.h"

#define TH_FN __attribute__((unused)) static
#define TH_NO_DRIVER "/nonexistent/pt2scope-test/libcuda.so.1"

struct th_server {
    struct pt2d_server *srv;
    struct pt2d_config cfg;
    char base[96];   /* "http://127.0.0.1:PORT" */
    char spool[256]; /* private spool directory */
    char root2[256]; /* private second model root */
    FILE *log;       /* access log (tmpfile) */
    /* While `gated` (th_gate), every package job waits at `gate`. */
    struct pt2d_gate gate;
    int gated;
};

struct th_resp {
    long status;
    char *body;
    size_t len;
    char headers[16384];
    size_t hlen;
};

/* A request; unset fields are omitted. */
struct th_req {
    const char *method;         /* default GET (POST when body set) */
    const char *path;           /* "/v1/inspect?..." */
    const char *const *headers; /* NULL-terminated "Name: value" list */
    const void *body;
    size_t body_len;
    const char *ctype; /* Content-Type for body */
};

/*
 * main() of an HTTP suite: skip (exit 0, one SKIP line) when `fixture` is not
 * in tests/fixtures, else build the suite and run it with libcurl set up.
 */
TH_FN int th_main(const char *name, const char *fixture, Suite *(*build)(void))
{
    char p[256];
    int rc;

    if (!tu_exists(tu_fixture(fixture, p, sizeof(p)))) {
        tu_skip(name, "tests/fixtures/*.pt2 not generated (make fixtures)");
        return 0;
    }
    curl_global_init(CURL_GLOBAL_DEFAULT);
    rc = tu_run_suite(build());
    curl_global_cleanup();
    return rc;
}

TH_FN void th_sleep_ms(unsigned ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Defaults for a test server: tests/fixtures plus a private root, 2 workers. */
TH_FN void th_config(struct th_server *t)
{
    struct pt2_error err = {0};
    char *const argv[] = {"pt2scoped",    "--listen",       "127.0.0.1:0",
                          "--model-root", "tests/fixtures", NULL};

    memset(t, 0, sizeof(*t));
    snprintf(t->spool, sizeof(t->spool), "/tmp/pt2d-spool-XXXXXX");
    snprintf(t->root2, sizeof(t->root2), "/tmp/pt2d-root-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(t->spool));
    ck_assert_ptr_nonnull(mkdtemp(t->root2));
    pt2d_config_defaults(&t->cfg);
    ck_assert_int_eq(pt2d_config_load(&t->cfg, 5, argv, NULL, &err), PT2_OK);
    snprintf(t->cfg.spool_dir, sizeof(t->cfg.spool_dir), "%s", t->spool);
    ck_assert_ptr_nonnull(realpath(t->root2, t->cfg.roots[1]));
    t->cfg.n_roots = 2;
    t->cfg.workers = 2;
    t->cfg.queue = 8;
    t->cfg.request_timeout = 10;
    /* A node without a CUDA driver, whatever machine runs the tests; suites
     * that probe GPUs point this at the stand-in driver. */
    snprintf(t->cfg.libcuda, sizeof(t->cfg.libcuda), "%s", TH_NO_DRIVER);
}

/* Before th_start: every package job waits at t->gate until th_gate_open (or th_stop). */
TH_FN void th_gate(struct th_server *t)
{
    pt2d_gate_init(&t->gate);
    t->gated = 1;
    t->cfg.test_gate = &t->gate;
}

TH_FN void th_gate_open(struct th_server *t)
{
    if (t->gated)
        pt2d_gate_open(&t->gate);
}

/*
 * The daemon program a subprocess test starts: $PT2SCOPE_BUILD/pt2scoped, or
 * with `hooks` $PT2SCOPE_BUILD/pt2scoped-test (--test-gate, recording).
 */
TH_FN const char *th_daemon_bin(char *out, size_t cap, int hooks)
{
    snprintf(out, cap, "%s/%s", tu_build_dir(), hooks ? "pt2scoped-test" : "pt2scoped");
    return out;
}

TH_FN void th_start(struct th_server *t)
{
    struct pt2_error err = {0};

    t->log = tmpfile();
    ck_assert_ptr_nonnull(t->log);
    if (pt2d_server_start(&t->srv, &t->cfg, t->log, &err) != PT2_OK)
        ck_abort_msg("server start: %s", err.message);
    snprintf(t->base, sizeof(t->base), "http://127.0.0.1:%u", pt2d_server_port(t->srv));
}

TH_FN void th_rm_tree(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char p[1024];

    if (d == NULL)
        return;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
        if (e->d_type == DT_DIR)
            th_rm_tree(p);
        else
            unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

TH_FN void th_stop(struct th_server *t)
{
    th_gate_open(t); /* the server waits for its jobs */
    pt2d_server_free(t->srv);
    t->srv = NULL;
    if (t->gated)
        pt2d_gate_destroy(&t->gate);
    t->gated = 0;
    if (t->log != NULL)
        fclose(t->log);
    t->log = NULL;
    th_rm_tree(t->spool);
    th_rm_tree(t->root2);
}

/* Entries in a directory other than . and .. */
TH_FN int th_dir_count(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    if (d == NULL)
        return -1;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

/* Open descriptors of this process. */
TH_FN int th_fd_count(void)
{
    return th_dir_count("/proc/self/fd") - 1; /* minus opendir's own */
}

TH_FN size_t th_on_body(char *p, size_t sz, size_t n, void *ud)
{
    struct th_resp *r = ud;
    char *nb = realloc(r->body, r->len + sz * n + 1);

    if (nb == NULL)
        return 0;
    r->body = nb;
    memcpy(r->body + r->len, p, sz * n);
    r->len += sz * n;
    r->body[r->len] = '\0';
    return sz * n;
}

TH_FN size_t th_on_header(char *p, size_t sz, size_t n, void *ud)
{
    struct th_resp *r = ud;
    size_t k = sz * n;

    /* Keep only the last response's headers (a 100 Continue may come first). */
    if (k > 5 && strncmp(p, "HTTP/", 5) == 0)
        r->hlen = 0;
    if (r->hlen + k < sizeof(r->headers)) {
        memcpy(r->headers + r->hlen, p, k);
        r->hlen += k;
        r->headers[r->hlen] = '\0';
    }
    return k;
}

/* Prepare an easy handle for `rq` against server base `base`; caller adds options. */
TH_FN CURL *th_easy(const char *base, const struct th_req *rq, struct th_resp *out,
                    struct curl_slist **hl)
{
    CURL *c = curl_easy_init();
    size_t i, n = strlen(base) + strlen(rq->path) + 1;
    char *url = malloc(n); /* any length: tests send over-long request lines on purpose */

    memset(out, 0, sizeof(*out));
    *hl = NULL;
    ck_assert_ptr_nonnull(c);
    ck_assert_ptr_nonnull(url);
    snprintf(url, n, "%s%s", base, rq->path);
    curl_easy_setopt(c, CURLOPT_URL, url); /* libcurl keeps its own copy */
    free(url);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, th_on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, th_on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, out);
    for (i = 0; rq->headers != NULL && rq->headers[i] != NULL; i++)
        *hl = curl_slist_append(*hl, rq->headers[i]);
    if (rq->body != NULL) {
        char ct[256];
        snprintf(ct, sizeof(ct), "Content-Type: %s", rq->ctype ? rq->ctype : "");
        *hl = curl_slist_append(*hl, ct);
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, rq->body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)rq->body_len);
    }
    if (rq->method != NULL && strcmp(rq->method, "HEAD") == 0)
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    else if (rq->method != NULL)
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, rq->method);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, *hl);
    return c;
}

TH_FN CURLcode th_perform(CURL *c, struct th_resp *out, struct curl_slist *hl)
{
    CURLcode rc = curl_easy_perform(c);

    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &out->status);
    curl_slist_free_all(hl);
    curl_easy_cleanup(c);
    return rc;
}

/* Do one request; asserts the transfer itself worked. */
TH_FN void th_do(const char *base, const struct th_req *rq, struct th_resp *out)
{
    struct curl_slist *hl;
    CURL *c = th_easy(base, rq, out, &hl);
    CURLcode rc = th_perform(c, out, hl);

    ck_assert_msg(rc == CURLE_OK, "%s: %s", rq->path, curl_easy_strerror(rc));
    if (out->body == NULL)
        out->body = calloc(1, 1);
}

TH_FN void th_get(const char *base, const char *path, struct th_resp *out)
{
    struct th_req rq = {.path = path};
    th_do(base, &rq, out);
}

TH_FN void th_resp_free(struct th_resp *r)
{
    free(r->body);
    r->body = NULL;
}

/* Value of response header `name` (case-insensitive) into out; 1 when present. */
TH_FN int th_header(const struct th_resp *r, const char *name, char *out, size_t cap)
{
    const char *p = r->headers;
    size_t n = strlen(name);

    while (p != NULL && *p != '\0') {
        if (strncasecmp(p, name, n) == 0 && p[n] == ':') {
            const char *v = p + n + 1, *e;
            while (*v == ' ')
                v++;
            e = strpbrk(v, "\r\n");
            if (e == NULL)
                e = v + strlen(v);
            snprintf(out, cap, "%.*s", (int)(e - v), v);
            return 1;
        }
        p = strchr(p, '\n');
        if (p != NULL)
            p++;
    }
    if (cap > 0)
        out[0] = '\0';
    return 0;
}

/* GET `path`: asserts 200, its ETag into out. */
TH_FN void th_etag_of(const char *base, const char *path, char *out, size_t cap)
{
    struct th_resp r;

    th_get(base, path, &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert(th_header(&r, "ETag", out, cap));
    th_resp_free(&r);
}

/* Parse the body as JSON (asserts it is JSON). */
TH_FN cJSON *th_json(const struct th_resp *r)
{
    cJSON *doc = cJSON_ParseWithLength(r->body, r->len);

    ck_assert_msg(doc != NULL, "body is not JSON: %.200s", r->body);
    return doc;
}

TH_FN const char *th_str(const cJSON *obj, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The number member `key` of `o` (asserted to be one). */
TH_FN double th_num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    ck_assert_msg(cJSON_IsNumber(v), "%s is not a number", key);
    return v->valuedouble;
}

/* Assert a problem+json answer with status and slug; returns the detail (static copy). */
TH_FN void th_assert_problem(const struct th_resp *r, long status, const char *slug,
                             const char *detail)
{
    char ct[128], rid[160], type[160], inst[200];
    cJSON *doc;

    ck_assert_int_eq(r->status, status);
    th_header(r, "Content-Type", ct, sizeof(ct));
    ck_assert_str_eq(ct, "application/problem+json");
    doc = th_json(r);
    snprintf(type, sizeof(type), "https://pt2scope.dev/problems/%s", slug);
    ck_assert_str_eq(th_str(doc, "type"), type);
    ck_assert_int_eq(cJSON_GetObjectItem(doc, "status")->valueint, (int)status);
    ck_assert_ptr_nonnull(th_str(doc, "title"));
    if (detail != NULL)
        ck_assert_str_eq(th_str(doc, "detail"), detail);
    ck_assert(th_header(r, "X-Request-Id", rid, sizeof(rid)));
    snprintf(inst, sizeof(inst), "urn:request:%s", rid);
    ck_assert_str_eq(th_str(doc, "instance"), inst);
    cJSON_Delete(doc);
}

/* Copy a file (a fixture into a private root). */
TH_FN void th_copy_file(const char *from, const char *to)
{
    size_t len = 0;
    uint8_t *data = tu_read_file(from, &len);
    FILE *f = fopen(to, "wb");

    ck_assert_ptr_nonnull(data);
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
    free(data);
}

/* The whole access log of an in-process server so far (caller frees). */
TH_FN char *th_log_text(struct th_server *t)
{
    long n;
    char *s;

    pt2d_server_flush_log(t->srv); /* the lines the HTTP threads still hold */
    fflush(t->log);
    n = ftell(t->log);
    ck_assert_int_ge(n, 0);
    s = calloc(1, (size_t)n + 1);
    ck_assert_ptr_nonnull(s);
    rewind(t->log);
    ck_assert_uint_eq(fread(s, 1, (size_t)n, t->log), (size_t)n);
    fseek(t->log, 0, SEEK_END);
    return s;
}

/* ---- a daemon as a child process ------------------------------------------ */

struct th_child {
    pid_t pid;
    char err_path[64]; /* the child's stderr */
    char out_path[64]; /* the child's stdout */
    char port_file[64];
    char base[64];
};

/* Start `bin` with args (NULL-terminated, without argv[0]) and envp. */
TH_FN void th_child_spawn(struct th_child *c, const char *bin, const char *const *args,
                          char *const envp[])
{
    const char *argv[32];
    size_t i;
    int efd, ofd;

    memset(c, 0, sizeof(*c));
    snprintf(c->err_path, sizeof(c->err_path), "/tmp/pt2d-err-XXXXXX");
    snprintf(c->out_path, sizeof(c->out_path), "/tmp/pt2d-out-XXXXXX");
    efd = mkstemp(c->err_path);
    ofd = mkstemp(c->out_path);
    ck_assert_int_ge(efd, 0);
    ck_assert_int_ge(ofd, 0);
    argv[0] = bin;
    for (i = 0; args[i] != NULL && i + 2 < sizeof(argv) / sizeof(argv[0]); i++)
        argv[i + 1] = args[i];
    argv[i + 1] = NULL;
    c->pid = fork();
    ck_assert_int_ge(c->pid, 0);
    if (c->pid == 0) {
        dup2(efd, 2);
        dup2(ofd, 1);
        execve(bin, (char *const *)argv, envp);
        _exit(127);
    }
    close(efd);
    close(ofd);
}

/* Wait (bounded, ~10 s) for the child to exit; its exit status, or -1 (then it is killed). */
TH_FN int th_child_wait(struct th_child *c)
{
    int st, i;

    for (i = 0; i < 2000; i++) {
        if (waitpid(c->pid, &st, WNOHANG) == c->pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        th_sleep_ms(5);
    }
    kill(c->pid, SIGKILL);
    waitpid(c->pid, &st, 0);
    return -1;
}

/* The child's stderr so far (caller frees). */
TH_FN char *th_child_stderr(const struct th_child *c)
{
    char *s = (char *)tu_read_file(c->err_path, NULL);

    ck_assert_ptr_nonnull(s);
    return s;
}

/* Wait (bounded, ~10 s) until the child's stderr holds `text` `times` times. */
TH_FN int th_child_logged(const struct th_child *c, const char *text, int times)
{
    int i;

    for (i = 0; i < 2000; i++) {
        char *err = (char *)tu_read_file(c->err_path, NULL);
        const char *p = err;
        int n = 0;

        while (p != NULL && (p = strstr(p, text)) != NULL) {
            n++;
            p += strlen(text);
        }
        free(err);
        if (n >= times)
            return 1;
        th_sleep_ms(5);
    }
    return 0;
}

/* Remove the child's files. */
TH_FN void th_child_cleanup(struct th_child *c)
{
    unlink(c->err_path);
    unlink(c->out_path);
    if (c->port_file[0] != '\0')
        unlink(c->port_file);
}

#endif
