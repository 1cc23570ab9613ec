/*
 * pt2d_server.c - libmicrohttpd glue (see pt2d_server.h).
 *
 * Request life cycle (struct request, MHD's per-request *con_cls):
 *   REQ_BODY     first call: route, method, CORS, query and body headers are
 *                checked. Refusals (404, 405, 413, 415, 400) and probes are
 *                answered without the pool: at once when a body is pending
 *                (so MHD skips "100 Continue" and drops it), else on the next
 *                call (so the connection can stay alive).
 *   (body)       chunks stream into the intake (spool / JSON buffer).
 *   REQ_QUEUED   last call: the job goes to the pool, the connection is
 *                suspended. Unless the job can be answered from memory (a
 *                cached package whose response for this ETag was rendered
 *                before, or a 304): then it is answered at once.
 *   REQ_DONE     the worker stored the reply and resumed the connection; the
 *                next handler call queues it.
 *   REQ_ANSWERED a response is queued; NOTIFY_COMPLETED logs and frees.
 */
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "pt2d_alog.h"
#include "pt2d_auth.h"
#include "pt2d_budget.h"
#include "pt2d_cache.h"
#include "pt2d_clock.h"
#include "pt2d_cluster.h"
#include "pt2d_docs.h"
#include "pt2d_cors.h"
#include "pt2d_frame.h"
#include "pt2d_deadline.h"
#include "pt2d_intake.h"
#include "pt2d_job.h"
#include "pt2d_listen.h"
#include "pt2d_log.h"
#include "pt2d_metrics.h"
#include "pt2d_node.h"
#include "pt2d_options.h"
#include "pt2d_bucket.h"
#include "pt2d_packages.h"
#include "pt2d_page.h"
#include "pt2d_path.h"
#include "pt2d_pool.h"
#include "pt2d_probe.h"
#include "pt2d_problem.h"
#ifdef PT2SCOPE_TEST_HOOKS
#include "pt2d_gate.h"
#include "pt2d_record.h"
#endif
#include "pt2d_reply.h"
#include "pt2d_reqid.h"
#include "pt2d_router.h"
#include "pt2d_server.h"
#include "pt2scope.h"

#define MAX_QUERY_ARGS 256
#define CONN_MEMORY_LIMIT (128 * 1024)
/* Descriptors kept back from --max-connections 0: packages, spool files, peers, logs. */
#define FD_RESERVE 128
#define HTTP_THREADS_MAX 16u
#define HEADER_SHARE_PCT 50u /* of the connection limit, for connections in their headers */
#define INM_MAX 1024
#define LOG_PATH_MAX 512
#define CLUSTER_WORKERS 2u    /* concurrent cluster fan-outs */
#define CLUSTER_QUEUE 8u      /* cluster requests that may wait, then 503 */
#define REMOTE_WORKERS_MIN 2u /* the remote pool: half the workers, at least this */
#define RELOAD_STOP_S 2       /* how long shutdown waits for a token re-read in progress */

enum req_state { REQ_BODY, REQ_QUEUED, REQ_DONE, REQ_ANSWERED };

struct pt2d_server {
    struct pt2d_deadlines *deadlines; /* --header-timeout watchdog, or NULL */
    struct pt2d_budget budget;        /* request bodies buffered in memory (--memory-budget) */
    struct pt2d_config cfg;
    const char *roots[PT2D_MAX_ROOTS];
    int root_fds[PT2D_MAX_ROOTS]; /* O_PATH, for openat2 beneath them (pt2d_path.h) */
    struct pt2d_job_env env;
    struct MHD_Daemon *mhd;
    struct pt2d_pool *pool;
    /*
     * Cluster fan-out waits on peers, and a peer may be this very daemon
     * (a headless Service lists every pod): on the job pool it would hold the
     * workers that must answer the peers' own /v1/inspect and /v1/node.
     */
    struct pt2d_pool *cluster_pool;
    /*
     * ?url= inspections wait on remote servers for up to --remote-timeout:
     * on the job pool, as many slow allowed URLs as workers would stall
     * every local inspection. They run on a bounded pool of their own
     * (remote_workers() threads, --queue waiting, then 503).
     */
    struct pt2d_pool *remote_pool;
    struct pt2d_cache *cache;
    struct pt2d_metrics *metrics;
    struct pt2d_auth *auth; /* Host check and bearer tokens (pt2d_auth.h) */
    /*
     * SIGHUP's token re-read runs on a thread of its own: the signal thread
     * only posts it, so no file (a FIFO, a hung mount) can keep SIGTERM
     * from being seen. `reload_*` are guarded by reload_lock.
     */
    pthread_t reload_thread;
    pthread_mutex_t reload_lock;
    pthread_cond_t reload_wake;
    int reload_started, reload_pending, reload_stop, reload_busy;
    FILE *log;
    struct pt2d_alog *alog; /* access lines, batched per thread (pt2d_alog.h) */
    struct pt2d_listener listener;
    atomic_int draining;
    atomic_int unready;  /* --drain-delay: /readyz fails, work is still served */
    atomic_uint uploads; /* upload bodies spooled now (--max-uploads) */
    int quiesced;
    struct pt2d_reqid_gen ids; /* X-Request-Id for requests without a sane one */
    pthread_mutex_t lock;      /* guards inflight */
    pthread_cond_t idle;
    unsigned long inflight;
    struct pt2d_node *node; /* this node's GPUs and CPU */
    struct pt2d_cluster_cfg cluster;
    /* ?url= rules (pt2_remote.h), pointing into cfg; env.remote is NULL while none allowed. */
    struct pt2_remote_opts remote;
    /* Default runtimes (--runtime, --sysroot, --libtorch), opened once. */
    pt2_runtime *runtimes[PT2D_MAX_CFG_RUNTIMES + 2];
    size_t n_runtimes;
    char
        runtime_labels[PT2D_MAX_CFG_RUNTIMES * (PT2D_CFG_RUNTIME_MAX + 1) + 2 * PT2D_PATH_MAX + 32];
    const char *remote_allow[PT2D_MAX_REMOTE_ALLOW];
#ifdef PT2SCOPE_TEST_HOOKS
    struct pt2d_recorder recorder; /* contract tests: off unless PT2SCOPE_RECORD_DIR */
    struct pt2d_gate file_gate;    /* --test-gate FILE (pt2d_gate.h) */
    int has_file_gate;
#endif
};

static void *reload_main(void *arg);

struct header_count {
    const char *name;
    unsigned n;
};

struct request {
    struct pt2d_server *srv;
    struct MHD_Connection *conn;
    const struct pt2d_route_info *route; /* NULL for unknown paths */
    enum pt2d_method method;
    char method_text[16];
    char id[PT2D_REQID_MAX];
    char path[LOG_PATH_MAX];
    char remote[64];
    char inm[INM_MAX]; /* If-None-Match, "" when absent or too long */
    struct pt2d_cors cors;
    /* The caller's Authorization header (MHD's memory, valid for the request), passed on
     * to cluster peers, which share the token file; NULL when absent. */
    const char *authorization;
    double t0;
    atomic_int state;
    struct pt2_error qerr; /* first bad query argument */
    unsigned nargs;
    struct pt2d_intake intake;
    struct pt2d_options opts;
    struct pt2d_packages_query list; /* GET /v1/packages: limit, cursor, prefix */
    struct pt2d_reply reply;
    struct pt2d_job job;
    unsigned status_sent;
    uint64_t bytes_sent;
    int upload_slot; /* holds one of s->uploads */
};

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- responses --------------------------------------------------------- */

static void add_cors(struct request *rq, struct MHD_Response *resp)
{
    if (rq->cors.allow_origin != NULL) {
        MHD_add_response_header(resp, "Access-Control-Allow-Origin", rq->cors.allow_origin);
        MHD_add_response_header(resp, "Access-Control-Expose-Headers", PT2D_CORS_EXPOSE_HEADERS);
    }
    if (rq->cors.vary_origin)
        MHD_add_response_header(resp, "Vary", "Origin");
}

/*
 * Test builds: hand a response to the recorder (a no-op unless recording is
 * on). Production builds carry no recorder (pt2d_record.h).
 */
static void record(struct request *rq, struct MHD_Response *resp, const char *body, size_t len)
{
#ifdef PT2SCOPE_TEST_HOOKS
    struct pt2_error err = {0};
    const struct pt2d_buf *json = rq->intake.kind == PT2D_BODY_JSON ? &rq->intake.json : NULL;

    if (pt2d_record_response(&rq->srv->recorder, rq->conn, rq->method_text, rq->path,
                             rq->reply.status, resp, body, len,
                             json != NULL ? pt2d_buf_str(json) : NULL, json != NULL ? json->len : 0,
                             &err) != PT2_OK)
        pt2d_log_event(rq->srv->log, "warn", "%s", err.message);
#endif
}

/* Queue rq->reply; only ever called from inside the access handler. */
static enum MHD_Result answer(struct request *rq)
{
    struct pt2d_reply *r = &rq->reply;
    struct MHD_Response *resp;
    enum MHD_Result ret;
    const char *body;
    char num[32];

    if (r->status == 0)
        pt2d_reply_problem(r, PT2_ERR_INTERNAL, "no response was produced", rq->id);
    body = r->body; /* stays valid while resp exists */
    if (r->body != NULL) {
        /* No copy: MHD lets go of the body (free, or a shared memo's release) when done. */
        resp = MHD_create_response_from_buffer_with_free_callback(
            r->len, r->body, r->body_release != NULL ? r->body_release : free);
        if (resp != NULL) {
            r->body = NULL; /* MHD owns it now */
            r->body_release = NULL;
        }
    } else {
        resp = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
    }
    if (resp == NULL)
        return MHD_NO;
    if (r->content_type != NULL)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, r->content_type);
    MHD_add_response_header(resp, "X-Request-Id", rq->id);
    if (r->etag[0] != '\0') {
        MHD_add_response_header(resp, MHD_HTTP_HEADER_ETAG, r->etag);
        /* Clients may keep the body but must revalidate: a path's file can change. */
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
    }
    if (r->retry_after > 0) {
        snprintf(num, sizeof(num), "%u", r->retry_after);
        MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, num);
    }
    if (r->allow != NULL)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, r->allow);
    if (r->www_authenticate != NULL)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE, r->www_authenticate);
    if (r->location != NULL)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_LOCATION, r->location);
    if (r->preflight) {
        MHD_add_response_header(resp, "Access-Control-Allow-Methods", r->allow);
        MHD_add_response_header(resp, "Access-Control-Allow-Headers", PT2D_CORS_ALLOW_HEADERS);
        MHD_add_response_header(resp, "Access-Control-Max-Age", PT2D_CORS_MAX_AGE);
    }
    /* Unready or draining: kept-alive clients reconnect, through the Service, elsewhere. */
    if (r->close || atomic_load(&rq->srv->draining) || atomic_load(&rq->srv->unready))
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
    add_cors(rq, resp);
    record(rq, resp, body, r->len);
    ret = MHD_queue_response(rq->conn, r->status, resp);
    MHD_destroy_response(resp);
    rq->status_sent = r->status;
    rq->bytes_sent = rq->method == PT2D_METHOD_HEAD ? 0 : r->len;
    atomic_store(&rq->state, REQ_ANSWERED);
    pt2d_metrics_request(rq->srv->metrics, rq->route ? rq->route->id : PT2D_ROUTE_OTHER, rq->method,
                         r->status, now_s() - rq->t0);
    return ret;
}

static enum MHD_Result answer_problem(struct request *rq, int code, const char *detail)
{
    pt2d_reply_problem(&rq->reply, code, detail, rq->id);
    return answer(rq);
}

/* ---- probes (answered on the HTTP thread) ------------------------------ */

static void probe(struct request *rq)
{
    struct pt2d_server *s = rq->srv;
    struct pt2d_probe_state st = {s->metrics, {0}, s->cfg.spool_dir};
    struct pt2d_metrics_gauges *g = &st.gauges;
    struct pt2d_pool_stats ps;
    struct pt2d_cache_stats cs;

    pt2d_pool_stats(s->pool, &ps);
    g->queue_depth = ps.queued;
    g->queue_capacity = ps.capacity;
    g->workers_busy = ps.busy;
    g->workers_total = ps.workers;
    pt2d_pool_stats(s->remote_pool, &ps);
    g->remote_queue_depth = ps.queued;
    g->remote_queue_capacity = ps.capacity;
    g->remote_workers_busy = ps.busy;
    g->remote_workers_total = ps.workers;
    pt2d_cache_stats(s->cache, &cs);
    g->cache_hits = cs.hits;
    g->cache_misses = cs.misses;
    g->cache_entries = cs.entries;
    g->cache_bytes = cs.bytes;
    g->body_bytes = pt2d_budget_used(&s->budget);
    g->body_budget = s->budget.limit;
    pthread_mutex_lock(&s->lock);
    g->inflight = s->inflight;
    pthread_mutex_unlock(&s->lock);
    g->ready = !atomic_load(&s->draining) && !atomic_load(&s->unready);
    pt2d_probe_run(rq->route->id, &st, &rq->reply, rq->id);
}

/* ---- request setup ----------------------------------------------------- */

/* Dotted quad by hand: inet_ntop() and getnameinfo() go through sprintf. */
static void remote_ipv4(const struct sockaddr_in *sin, char *out, size_t cap)
{
    const uint8_t *a = (const uint8_t *)&sin->sin_addr.s_addr; /* network order */
    char text[16];
    size_t n = 0;
    int i;

    for (i = 0; i < 4; i++) {
        if (i > 0)
            text[n++] = '.';
        if (a[i] >= 100)
            text[n++] = (char)('0' + a[i] / 100);
        if (a[i] >= 10)
            text[n++] = (char)('0' + a[i] / 10 % 10);
        text[n++] = (char)('0' + a[i] % 10);
    }
    text[n] = '\0';
    if (n < cap)
        memcpy(out, text, n + 1);
}

static void remote_of(struct MHD_Connection *c, char *out, size_t cap)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    const struct sockaddr *sa = ci != NULL ? ci->client_addr : NULL;

    snprintf(out, cap, "-");
    if (sa == NULL)
        return;
    if (sa->sa_family == AF_INET) {
        remote_ipv4((const struct sockaddr_in *)(const void *)sa, out, cap);
        return;
    }
    /* IPv6 keeps getnameinfo() for its scope ("fe80::1%eth0"). */
    getnameinfo(sa, sizeof(struct sockaddr_in6), out, (socklen_t)cap, NULL, 0, NI_NUMERICHOST);
}

static enum MHD_Result on_query_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                    size_t key_size, const char *value, size_t value_size)
{
    struct request *rq = cls;

    if (++rq->nargs > MAX_QUERY_ARGS) {
        pt2_error_set(&rq->qerr, PT2_ERR_INVALID, "more than %d query arguments", MAX_QUERY_ARGS);
        return MHD_NO;
    }
    /* %00 decodes to a NUL that would end the C string early: "a.pt2%00.txt" must not be
     * "a.pt2". The sizes are MHD's, the lengths ours. */
    if (strlen(key) != key_size || (value != NULL && strlen(value) != value_size)) {
        pt2_error_set(&rq->qerr, PT2_ERR_INVALID, "query argument '%.64s' contains a NUL byte",
                      key);
        return MHD_NO;
    }
    if (rq->route->id == PT2D_ROUTE_PACKAGES)
        return pt2d_packages_add_query(&rq->list, &rq->opts, key, value != NULL ? value : "",
                                       &rq->qerr) == PT2_OK
                   ? MHD_YES
                   : MHD_NO;
    return pt2d_options_add_query(&rq->opts, key, value != NULL ? value : "", &rq->qerr) == PT2_OK
               ? MHD_YES
               : MHD_NO;
}

static int header_has_token(const char *value, const char *token)
{
    size_t n = strlen(token);
    const char *p = value;

    while (p != NULL && *p != '\0') {
        while (*p == ' ' || *p == ',')
            p++;
        if (strncasecmp(p, token, n) == 0 && (p[n] == '\0' || p[n] == ',' || p[n] == ' '))
            return 1;
        p = strchr(p, ',');
    }
    return 0;
}

/* snprintf(dst, cap, "%s", src) without the printf machinery (per request, 3 times). */
static void copy_text(char *dst, size_t cap, const char *src)
{
    size_t n = strnlen(src, cap - 1);

    memcpy(dst, src, n);
    dst[n] = '\0';
}

static struct request *request_new(struct pt2d_server *s, struct MHD_Connection *c, const char *url,
                                   const char *method)
{
    struct request *rq = calloc(1, sizeof(*rq));
    const char *hid;

    if (rq == NULL)
        return NULL;
    rq->srv = s;
    rq->conn = c;
    rq->t0 = now_s();
    atomic_init(&rq->state, REQ_BODY);
    rq->route = pt2d_router_match(url);
    rq->method = pt2d_router_method(method);
    copy_text(rq->method_text, sizeof(rq->method_text), method);
    copy_text(rq->path, sizeof(rq->path), url);
    hid = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Request-Id");
    if (hid != NULL && pt2d_reqid_is_sane(hid))
        copy_text(rq->id, sizeof(rq->id), hid);
    else
        pt2d_reqid_next(&s->ids, rq->id);
    remote_of(c, rq->remote, sizeof(rq->remote));
    pt2d_options_init(&rq->opts);
    pt2d_packages_query_init(&rq->list);
    pt2d_reply_init(&rq->reply);
    pthread_mutex_lock(&s->lock);
    s->inflight++;
    pthread_mutex_unlock(&s->lock);
    return rq;
}

static void request_free(struct request *rq)
{
    struct pt2d_server *s = rq->srv;

    pt2d_intake_free(&rq->intake);
    if (rq->upload_slot)
        atomic_fetch_sub(&s->uploads, 1);
    pt2d_options_free(&rq->opts);
    pt2d_reply_free(&rq->reply);
    free(rq);
    pthread_mutex_lock(&s->lock);
    s->inflight--;
    if (s->inflight == 0)
        pthread_cond_broadcast(&s->idle);
    pthread_mutex_unlock(&s->lock);
}

/* OPTIONS: CORS preflight, or a plain capability answer. */
static void preflight(struct request *rq)
{
    const char *reqm =
        MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, "Access-Control-Request-Method");

    pt2d_reply_take(&rq->reply, MHD_HTTP_NO_CONTENT, NULL, NULL, 0);
    rq->reply.allow = rq->route->allow;
    rq->reply.preflight = rq->cors.allow_origin != NULL && reqm != NULL;
}

/* 1 when the request announces a body (Content-Length > 0 or chunked). */
static int request_has_body(struct MHD_Connection *c)
{
    const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");

    if (MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Transfer-Encoding") != NULL)
        return 1;
    return cl != NULL && strspn(cl, "0") != strlen(cl);
}

/*
 * The reply is ready during the first call. With a body pending, queue it
 * now so MHD skips "100 Continue" and drops the body; without one, queue it
 * on the next call instead, which lets MHD keep the connection alive (a
 * response queued before the body is read always closes it).
 */
static enum MHD_Result early(struct request *rq)
{
    if (request_has_body(rq->conn))
        return answer(rq);
    atomic_store(&rq->state, REQ_DONE);
    return MHD_YES;
}

static enum MHD_Result early_problem(struct request *rq, int code, const char *detail)
{
    pt2d_reply_problem(&rq->reply, code, detail, rq->id);
    return early(rq);
}

/*
 * --max-uploads: a request holds a slot from the moment its upload body starts until it is
 * freed, so at most max_uploads uploads (each with its memory and spool file) exist at once.
 */
static int upload_slot_take(struct request *rq)
{
    struct pt2d_server *s = rq->srv;

    if (atomic_fetch_add(&s->uploads, 1) >= s->cfg.max_uploads && s->cfg.max_uploads != 0) {
        atomic_fetch_sub(&s->uploads, 1);
        return 0;
    }
    rq->upload_slot = 1;
    return 1;
}

/*
 * The Host check and the bearer token (pt2d_auth.h): 1 with the refusal in rq->reply. The
 * Authorization header is only read here, never copied, logged or recorded.
 */
static int access_refused(struct request *rq)
{
    struct pt2d_auth_verdict v;

    pt2d_auth_decide(rq->srv->auth, rq->route != NULL ? rq->route->id : PT2D_ROUTE_OTHER,
                     rq->method, MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, "Host"),
                     MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, "Authorization"), &v);
    if (v.code == PT2_OK)
        return 0;
    pt2d_metrics_auth_refused(rq->srv->metrics, v.code == PT2_ERR_HOST_NOT_ALLOWED
                                                    ? PT2D_REFUSED_HOST
                                                    : PT2D_REFUSED_UNAUTHORIZED);
    pt2d_reply_problem(&rq->reply, v.code, v.detail, rq->id);
    rq->reply.www_authenticate = v.challenge;
    return 1;
}

/* First handler call: headers only. Answer now or get ready for the body. */
static enum MHD_Result request_begin(struct request *rq)
{
    struct pt2d_server *s = rq->srv;
    struct pt2_error err = {0};
    struct pt2d_intake_limits lim = {
        s->cfg.spool_dir, s->cfg.max_upload, 0, NULL, 0, &s->budget, 0};
    const char *h;

    rq->authorization = MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, "Authorization");
    pt2d_cors_decide(&s->cfg, MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, "Origin"),
                     &rq->cors);
    /* After CORS, so a browser can read the 401; before routing, so nothing else leaks. */
    if (access_refused(rq))
        return early(rq);
    if (rq->route == NULL)
        return early_problem(rq, PT2_ERR_NO_ROUTE, "no such endpoint");
    if (rq->method == PT2D_METHOD_OPTIONS) {
        preflight(rq);
        return early(rq);
    }
    if (rq->method == PT2D_METHOD_OTHER || (rq->route->methods & PT2D_M(rq->method)) == 0) {
        rq->reply.allow = rq->route->allow;
        return early_problem(rq, PT2_ERR_METHOD, "see the Allow header");
    }
    if (rq->route->kind == PT2D_KIND_PROBE) {
        probe(rq);
        return early(rq);
    }
    if (rq->route->kind == PT2D_KIND_DOC) {
        struct pt2d_doc doc;

        if (pt2d_docs_find(rq->route->path, &doc))
            pt2d_docs_reply(&doc, &rq->reply, rq->id);
        else
            pt2d_docs_redirect(rq->route->path, &rq->reply);
        return early(rq);
    }
    if (rq->route->kind == PT2D_KIND_PAGE) {
        struct pt2d_page_file file;

        if (pt2d_page_find(rq->route->path, &file))
            pt2d_page_reply(&file, &rq->reply, rq->id);
        return early(rq);
    }
    if (atomic_load(&s->draining))
        return early_problem(rq, PT2_ERR_OVERLOADED, "the server is shutting down");
    MHD_get_connection_values_n(rq->conn, MHD_GET_ARGUMENT_KIND, on_query_arg, rq);
    if (rq->qerr.code != PT2_OK)
        return early_problem(rq, rq->qerr.code, rq->qerr.message);
    h = MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, "If-None-Match");
    if (h != NULL && strlen(h) < sizeof(rq->inm))
        snprintf(rq->inm, sizeof(rq->inm), "%s", h);
    h = MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, "Cache-Control");
    if (h != NULL && header_has_token(h, "no-cache"))
        rq->opts.nocache = 1;
    lim.no_stream = rq->opts.no_stream;
    if (rq->route->id == PT2D_ROUTE_COMPATIBILITY) {
        /* Node lists are larger than option bodies; they come as JSON or beside the file. */
        lim.json_max = PT2_K8S_TEXT_MAX;
        lim.field_name = "nodes";
        lim.field_max = PT2_K8S_TEXT_MAX;
    }
    if (pt2d_intake_begin(&rq->intake, rq->conn, rq->method == PT2D_METHOD_POST, &lim, &err) !=
        PT2_OK)
        return early_problem(rq, err.code, err.message);
    if (rq->route->id == PT2D_ROUTE_COMPATIBILITY && rq->intake.kind == PT2D_BODY_RAW) {
        pt2d_intake_free(&rq->intake);
        return early_problem(rq, PT2_ERR_MEDIA_TYPE,
                             "POST /v1/compatibility takes application/json {\"path\", \"nodes\"} "
                             "or multipart/form-data with parts 'file' and 'nodes'");
    }
    if (pt2d_intake_upload(&rq->intake) != NULL && !upload_slot_take(rq)) {
        pt2d_intake_free(&rq->intake);
        return early_problem(rq, PT2_ERR_OVERLOADED,
                             "too many uploads in progress (--max-uploads); retry shortly");
    }
    return MHD_YES;
}

static void run_job(void *arg)
{
    struct request *rq = arg;

    pt2d_job_run(&rq->job);
    atomic_store(&rq->state, REQ_DONE);
    /* After this call the HTTP thread may free rq: touch nothing more. */
    MHD_resume_connection(rq->conn);
}

/* Work that is not about one package: the node probe, the peers, the listing. */
static void run_task(void *arg)
{
    struct request *rq = arg;
    struct pt2d_server *s = rq->srv;

    if (rq->route->id == PT2D_ROUTE_CLUSTER)
        pt2d_cluster_serve(&s->cluster, &rq->opts, rq->id, rq->authorization, &rq->reply);
    else if (rq->route->id == PT2D_ROUTE_PACKAGES && rq->list.has_url) /* url=s3://B/P/ */
        pt2d_bucket_serve(&s->env, &rq->list, &rq->opts, rq->inm[0] != '\0' ? rq->inm : NULL,
                          rq->id, &rq->reply);
    else if (rq->route->id == PT2D_ROUTE_PACKAGES)
        pt2d_packages_serve(&s->env, &rq->list, &rq->opts, rq->inm[0] != '\0' ? rq->inm : NULL,
                            rq->id, &rq->reply);
    else
        pt2d_node_serve(s->node, rq->opts.refresh, rq->id, &rq->reply);
    atomic_store(&rq->state, REQ_DONE);
    MHD_resume_connection(rq->conn);
}

/* The pool a task waits on: a bucket listing reads another server, so the remote pool. */
static struct pt2d_pool *task_pool(const struct request *rq)
{
    if (rq->route->id == PT2D_ROUTE_CLUSTER)
        return rq->srv->cluster_pool;
    if (rq->route->id == PT2D_ROUTE_PACKAGES && rq->list.has_url)
        return rq->srv->remote_pool;
    return rq->srv->pool;
}

/* Suspend the connection and queue `fn` on `pool` (or answer 503). */
static enum MHD_Result submit_to(struct request *rq, struct pt2d_pool *pool, void (*fn)(void *))
{
    struct pt2d_server *s = rq->srv;

    /* Suspend before submitting: the worker may finish and resume at once. */
    atomic_store(&rq->state, REQ_QUEUED);
    MHD_suspend_connection(rq->conn);
    if (pt2d_pool_submit(pool, fn, rq) != PT2_OK) {
        pt2d_reply_problem(&rq->reply, PT2_ERR_OVERLOADED,
                           atomic_load(&s->draining) ? "the server is shutting down"
                                                     : "all workers are busy and the queue is full",
                           rq->id);
        atomic_store(&rq->state, REQ_DONE);
        MHD_resume_connection(rq->conn);
    }
    return MHD_YES;
}

/* Last handler call of the body: hand the work to the pool. */
static enum MHD_Result request_dispatch(struct request *rq)
{
    struct pt2d_server *s = rq->srv;
    struct pt2_error err = {0};
    int compat = rq->route->id == PT2D_ROUTE_COMPATIBILITY;
    pt2_upload *upload;

    if (pt2d_intake_finish(&rq->intake, &err) != PT2_OK)
        return answer_problem(rq, err.code, err.message);
    if (rq->route->kind == PT2D_KIND_TASK)
        return submit_to(rq, task_pool(rq), run_task);
    /* POST /v1/compatibility's body can be large: its job parses it on the worker. */
    if (!compat && rq->intake.kind == PT2D_BODY_JSON &&
        pt2d_options_add_json(&rq->opts, pt2d_buf_str(&rq->intake.json), rq->intake.json.len,
                              &err) != PT2_OK)
        return answer_problem(rq, err.code, err.message);
    pt2d_options_finish(&rq->opts);
    upload = pt2d_intake_upload(&rq->intake);
    /* Early, on this thread; POST /v1/compatibility's body names its package on the worker. */
    if (pt2d_options_check_package(&rq->opts, upload != NULL, !compat, &err) != PT2_OK)
        return answer_problem(rq, err.code, err.message);
    if (compat && rq->intake.kind == PT2D_BODY_JSON) {
        rq->job.body = pt2d_buf_str(&rq->intake.json);
        rq->job.body_len = rq->intake.json.len;
    }
    if (compat && rq->intake.field_parts > 0) {
        rq->job.nodes_text = pt2d_buf_str(&rq->intake.field);
        rq->job.nodes_len = rq->intake.field.len;
    }
    rq->job.env = &s->env;
    rq->job.route = rq->route->id;
    rq->job.opts = &rq->opts;
    rq->job.upload = upload;
    rq->job.upload_name = rq->intake.filename[0] != '\0' ? rq->intake.filename : NULL;
    rq->job.if_none_match = rq->inm[0] != '\0' ? rq->inm : NULL;
    rq->job.nocache = rq->opts.nocache;
    rq->job.request_id = rq->id;
    rq->job.reply = &rq->reply;
    if (upload != NULL)
        pt2d_metrics_upload(s->metrics, rq->intake.received);
    /* A response already rendered for a cached package is sent from here: no pool trip. */
    if (pt2d_job_run_cached(&rq->job))
        return answer(rq);
    /* A remote read waits on another server: never on the workers local packages need. */
    return submit_to(rq, rq->opts.has_url ? s->remote_pool : s->pool, run_job);
}

/* Counts the `name` headers of a request (repeated ones included). */
static enum MHD_Result count_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                    const char *value)
{
    struct header_count *hc = cls;

    (void)kind;
    (void)value;
    if (strcasecmp(key, hc->name) == 0)
        hc->n++;
    return MHD_YES;
}

/* The first header line RFC 9112 refuses (pt2d_frame.h): *cls keeps its reason. */
static enum MHD_Result check_header_line(void *cls, enum MHD_ValueKind kind, const char *key,
                                         const char *value)
{
    const char **why = cls;

    (void)kind;
    *why = pt2d_frame_header_problem(key, value);
    return *why == NULL ? MHD_YES : MHD_NO;
}

/*
 * What RFC 9112 refuses and a proxy in front might read differently (request
 * smuggling): whitespace before a colon, an obs-folded line, a repeated Content-Length, a
 * Transfer-Encoding other than chunked alone, both at once, and an HTTP/1.1 request without Host.
 * NULL when the framing is sound, else why not.
 */
static const char *framing_problem(struct MHD_Connection *c, const char *version)
{
    struct header_count cl = {"Content-Length", 0}, te = {"Transfer-Encoding", 0},
                        host = {"Host", 0};
    const char *v = NULL;

    MHD_get_connection_values(c, MHD_HEADER_KIND, check_header_line, &v);
    if (v != NULL)
        return v;
    MHD_get_connection_values(c, MHD_HEADER_KIND, count_header, &cl);
    MHD_get_connection_values(c, MHD_HEADER_KIND, count_header, &te);
    MHD_get_connection_values(c, MHD_HEADER_KIND, count_header, &host);
    if (cl.n > 1)
        return "more than one Content-Length header";
    if (te.n > 1 || (te.n == 1 && ((v = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                                    "Transfer-Encoding")) == NULL ||
                                   strcasecmp(v, "chunked") != 0)))
        return "unsupported Transfer-Encoding (only chunked is accepted)";
    if (te.n > 0 && cl.n > 0)
        return "both Content-Length and Transfer-Encoding";
    if (host.n != 1 && version != NULL && strcmp(version, MHD_HTTP_VERSION_1_1) == 0)
        return host.n == 0 ? "an HTTP/1.1 request needs a Host header"
                           : "more than one Host header";
    return NULL;
}

/* The connection's deadline entry (its socket context), or NULL. */
static struct pt2d_deadline *conn_deadline(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

    return ci != NULL ? ci->socket_context : NULL;
}

/* Each connection's socket joins the header-deadline registry while it is open. */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
    struct pt2d_server *s = cls;
    const union MHD_ConnectionInfo *ci;

    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        *socket_context = ci != NULL ? pt2d_deadlines_add(s->deadlines, ci->connect_fd) : NULL;
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        /* Reported before MHD closes the descriptor: the watchdog can no longer touch it. */
        pt2d_deadlines_remove(s->deadlines, *socket_context);
        *socket_context = NULL;
    }
}

/*
 * libmicrohttpd 0.9.75 splits the query into arguments in the connection's
 * memory pool before any handler runs, and when the pool runs out (about
 * 2,000 arguments in 128 KiB) it closes the connection without an answer.
 * The URI log callback sees the request line first, in MHD's own writable
 * buffer: a query with more than MAX_QUERY_ARGS arguments is cut right
 * after its '?', so MHD splits nothing, and the request is marked so that
 * on_access answers it with the same 400 as 257 arguments get.
 */
static char too_many_args; /* the mark: *con_cls before on_access */
/* The other mark: %00 in the path, which MHD decodes to a NUL that ends the route early. */
static char nul_in_path;

static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
    const char *q = uri != NULL ? strchr(uri, '?') : NULL;
    const char *pct = uri != NULL ? strstr(uri, "%00") : NULL;
    unsigned n = 1;

    (void)cls;
    (void)c;
    if (pct != NULL && (q == NULL || pct < q))
        return &nul_in_path;
    if (q == NULL)
        return NULL;
    for (const char *p = q + 1; *p != '\0'; p++)
        if (*p == '&' && ++n > MAX_QUERY_ARGS) {
            ((char *)q)[1] = '\0'; /* MHD's buffer, not a constant (see above) */
            return &too_many_args;
        }
    return NULL;
}

static enum MHD_Result on_access(void *cls, struct MHD_Connection *c, const char *url,
                                 const char *method, const char *version, const char *upload_data,
                                 size_t *upload_data_size, void **con_cls)
{
    struct request *rq = *con_cls;

    if (rq == NULL || *con_cls == &too_many_args || *con_cls == &nul_in_path) {
        const char *edge;
        int cut = *con_cls == &too_many_args, nul = *con_cls == &nul_in_path;

        /* The headers are in: from now on the body's pace is what is timed. */
        pt2d_deadlines_body(((struct pt2d_server *)cls)->deadlines, conn_deadline(c), 0);
        *con_cls = NULL;
        rq = request_new(cls, c, url, method);
        if (rq == NULL)
            return MHD_NO;
        *con_cls = rq;
        if (cut)
            pt2_error_set(&rq->qerr, PT2_ERR_INVALID, "more than %d query arguments",
                          MAX_QUERY_ARGS);
        edge = framing_problem(c, version);
        if (edge == NULL && nul)
            edge = "the URL path contains %00 (a NUL byte)";
        if (edge != NULL) {
            /* Whatever follows these headers is not read as another request. */
            rq->reply.close = 1;
            return early_problem(rq, PT2_ERR_INVALID, edge);
        }
        return request_begin(rq);
    }
    if (*upload_data_size > 0) {
        int rc = atomic_load(&rq->state) == REQ_BODY
                     ? pt2d_intake_feed(&rq->intake, upload_data, *upload_data_size)
                     : 0;
        pt2d_deadlines_body(rq->srv->deadlines, conn_deadline(c),
                            rq->intake.received + rq->intake.discarded);
        *upload_data_size = 0;
        return rc == 0 ? MHD_YES : MHD_NO;
    }
    switch (atomic_load(&rq->state)) {
    case REQ_BODY:
        /* The body is in: the work that follows has no deadline here. */
        pt2d_deadlines_in_request(rq->srv->deadlines, conn_deadline(c), 1);
        return request_dispatch(rq);
    case REQ_DONE:
        return answer(rq);
    default:
        /* Already answered (MHD discards a refused body) or still queued. */
        return MHD_YES;
    }
}

static const char *termination_name(enum MHD_RequestTerminationCode toe)
{
    switch (toe) {
    case MHD_REQUEST_TERMINATED_COMPLETED_OK:
        return NULL;
    case MHD_REQUEST_TERMINATED_TIMEOUT_REACHED:
        return "timeout";
    case MHD_REQUEST_TERMINATED_DAEMON_SHUTDOWN:
        return "daemon-shutdown";
    case MHD_REQUEST_TERMINATED_READ_ERROR:
        return "read-error";
    case MHD_REQUEST_TERMINATED_CLIENT_ABORT:
        return "client-abort";
    default:
        return "error";
    }
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    struct pt2d_server *s = cls;
    struct request *rq = *con_cls;
    struct pt2d_access_record rec;

    if (rq == NULL || *con_cls == &too_many_args || *con_cls == &nul_in_path) {
        *con_cls = NULL; /* marked by on_uri, never reached on_access */
        return;
    }
    *con_cls = NULL;
    /* A kept-alive connection has the header deadline again for its next request. */
    pt2d_deadlines_in_request(s->deadlines, conn_deadline(c), 0);
    memset(&rec, 0, sizeof(rec));
    rec.id = rq->id;
    rec.method = rq->method_text;
    rec.route = pt2d_router_label(rq->route != NULL ? rq->route->id : PT2D_ROUTE_OTHER);
    rec.path = rq->path;
    rec.status = rq->status_sent;
    rec.bytes = rq->bytes_sent;
    rec.duration_ms = (now_s() - rq->t0) * 1000.0;
    rec.remote = rq->remote;
    rec.error = termination_name(toe);
    rec.detail = rq->reply.withheld[0] != '\0' ? rq->reply.withheld : NULL;
    pt2d_alog_access(s->alog, &rec);
    request_free(rq);
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    struct pt2d_server *s = cls;
    char msg[512];
    size_t n;

    vsnprintf(msg, sizeof(msg), fmt, ap);
    n = strlen(msg);
    while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
        msg[--n] = '\0';
    pt2d_log_event(s->log, "warn", "libmicrohttpd: %s", msg);
}

/* ---- life cycle -------------------------------------------------------- */

/*
 * --max-connections, or the descriptor limit less FD_RESERVE; never more
 * than that either way, so the descriptors packages, spool files, peers and
 * logs need are always there (an accept() that fails with EMFILE answers
 * nobody). MHD splits the limit among its threads, so it is at least one
 * connection per thread.
 */
static unsigned connection_limit(const struct pt2d_config *cfg, unsigned threads)
{
    struct rlimit rl;
    unsigned long long n = cfg->max_connections, fds = 1024;

    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        fds = rl.rlim_cur;
    fds = fds > FD_RESERVE + 64 ? fds - FD_RESERVE : 64;
    if (n == 0 || n > fds)
        n = fds;
    if (n > 1000000)
        n = 1000000;
    return n < threads ? threads : (unsigned)n;
}

/* The remote pool's threads: half the workers, at least REMOTE_WORKERS_MIN. */
static unsigned remote_workers(const struct pt2d_config *cfg)
{
    unsigned n = cfg->workers / 2;

    return n < REMOTE_WORKERS_MIN ? REMOTE_WORKERS_MIN : n;
}

/* Connections still in their headers: at most this share of the limit (pt2d_deadline.h). */
static unsigned header_budget(unsigned limit)
{
    unsigned n = (unsigned)((unsigned long long)limit * HEADER_SHARE_PCT / 100u);

    return n > 0 ? n : 1;
}

void pt2d_server_log_node(struct pt2d_server *s)
{
    const struct pt2d_node_snap *snap = pt2d_node_acquire(s->node);
    char line[768];

    pt2d_log_event(s->log, "info", "node %s: %s", pt2_node_name(snap->probe),
                   pt2_node_summary(snap->probe, line, sizeof(line)));
    pt2d_node_release(snap);
}

/*
 * libmicrohttpd polling threads: one per CPU, so that probes and cached
 * answers use every core. (The pool also avoids a stall of MHD 0.9.75's
 * single internal epoll thread: at 256 keep-alive connections opened at
 * once most sockets sat with an unread request and /livez fell to ~50
 * req/s; tests/bench.)
 */
static unsigned http_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);

    return n < 1 ? 1u : n > (long)HTTP_THREADS_MAX ? HTTP_THREADS_MAX : (unsigned)n;
}

/*
 * Test builds: the recorder (PT2SCOPE_RECORD_DIR) and the job gate, the
 * test's own or --test-gate FILE's. Production builds have neither.
 */
static int server_test_hooks(struct pt2d_server *s, struct pt2_error *err)
{
#ifdef PT2SCOPE_TEST_HOOKS
    int rc = pt2d_recorder_init(&s->recorder, err);

    if (rc == PT2_OK && s->cfg.test_gate_file[0] != '\0') {
        rc = pt2d_gate_init_file(&s->file_gate, s->cfg.test_gate_file, err);
        s->has_file_gate = rc == PT2_OK;
    }
    s->env.gate = s->has_file_gate ? &s->file_gate : s->cfg.test_gate;
    return rc;
#else
    return PT2_OK;
#endif
}

/*
 * The default runtimes: one per --runtime spec, the --sysroot, and
 * --libtorch applied to each (a runtime of its own when alone). A folder
 * that is missing or not a root fails the start, with the library's words.
 */
static int server_runtimes(struct pt2d_server *s, struct pt2_error *err)
{
    const char *specs[PT2D_MAX_CFG_RUNTIMES], *which = "runtime";
    struct pt2_error e = {0};
    size_t used = 0;

    for (unsigned i = 0; i < s->cfg.n_runtimes; i++)
        specs[i] = s->cfg.runtimes[i];
    if (pt2_runtimes_build(specs, s->cfg.n_runtimes, s->cfg.sysroot, s->cfg.libtorch, 0,
                           s->runtimes, &s->n_runtimes, &which, &e) != PT2_OK)
        return pt2_error_set(err, e.code, "--%s: %s", which, e.message);
    for (size_t i = 0; i < s->n_runtimes; i++)
        used += (size_t)snprintf(s->runtime_labels + used, sizeof(s->runtime_labels) - used, "%s%s",
                                 i ? ";" : "", pt2_runtime_label(s->runtimes[i]));
    s->env.runtimes = s->runtimes;
    s->env.n_runtimes = s->n_runtimes;
    s->env.runtime_labels = s->runtime_labels;
    return PT2_OK;
}

int pt2d_server_start(struct pt2d_server **out, const struct pt2d_config *cfg, FILE *log,
                      struct pt2_error *err)
{
    struct pt2d_server *s;
    /*
     * poll, not epoll: libmicrohttpd 0.9.75's MHD_quiesce_daemon() races a pool
     * worker removing the listen socket from its epoll set, and the loser hits
     * MHD_PANIC ("Failed to remove listen FD from epoll set") during drain.
     * With poll, quiescing only wakes each worker through its ITC.
     */
    unsigned flags = MHD_USE_POLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
    unsigned i, threads = http_threads();
    int rc;

    *out = NULL;
    s = calloc(1, sizeof(*s));
    if (s == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "server: out of memory");
    s->cfg = *cfg;
    s->log = log;
    s->listener.fd = -1;
    atomic_init(&s->draining, 0);
    atomic_init(&s->unready, 0);
    atomic_init(&s->uploads, 0);
    pt2d_reqid_gen_init(&s->ids);
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->idle, NULL);
    pthread_mutex_init(&s->reload_lock, NULL);
    pthread_cond_init(&s->reload_wake, NULL);
    for (i = 0; i < s->cfg.n_roots; i++)
        s->roots[i] = s->cfg.roots[i];
    pt2d_path_roots_open(s->root_fds, s->roots, s->cfg.n_roots);

    pt2d_budget_init(&s->budget, s->cfg.memory_budget);
    rc = pt2d_alog_start(&s->alog, s->log, s->cfg.access_log_flush_ms, err);
    rc = rc ? rc : pt2d_metrics_create(&s->metrics, err);
    {
        struct pt2d_auth_settings as = {s->cfg.token_file, s->cfg.host,
                                        (const char(*)[PT2D_HOST_MAX])s->cfg.allowed_hosts,
                                        s->cfg.n_allowed_hosts, s->cfg.metrics_public};
        rc = rc ? rc : pt2d_auth_create(&s->auth, &as, err);
    }
    if (rc == PT2_OK && pt2d_auth_has_tokens(s->auth))
        s->reload_started = pthread_create(&s->reload_thread, NULL, reload_main, s) == 0;
    rc = rc ? rc : pt2d_cache_create(&s->cache, s->cfg.cache_entries, s->cfg.cache_bytes, err);
    rc = rc ? rc
            : pt2d_deadlines_start(&s->deadlines, s->cfg.header_timeout,
                                   header_budget(connection_limit(&s->cfg, threads)), err);
    rc = rc ? rc : pt2d_pool_create(&s->pool, s->cfg.workers, s->cfg.queue, err);
    rc = rc ? rc : pt2d_pool_create(&s->cluster_pool, CLUSTER_WORKERS, CLUSTER_QUEUE, err);
    rc = rc ? rc : pt2d_pool_create(&s->remote_pool, remote_workers(&s->cfg), s->cfg.queue, err);
    rc = rc ? rc : server_test_hooks(s, err);
    rc = rc ? rc : pt2d_listen_open(s->cfg.host, s->cfg.port, &s->listener, err);
    /* Probe the GPUs once now, not per request (GET /v1/node?refresh=1 probes again). */
    {
        struct pt2_node_options no = {s->cfg.libcuda, s->cfg.sysfs_root, s->cfg.node_name};
        rc = rc ? rc : pt2d_node_create(&s->node, &no, err);
    }
    if (rc != PT2_OK)
        goto fail;
    s->env.node = s->node;
    s->cluster.peers = (const char(*)[PT2D_PEER_URL_MAX])s->cfg.peers;
    s->cluster.n_peers = s->cfg.n_peers;
    s->cluster.dns_name = s->cfg.peers_dns;
    s->cluster.dns_port = s->cfg.peers_port != 0 ? s->cfg.peers_port : s->listener.port;
    s->cluster.timeout_ms = s->cfg.peer_timeout * 1000u;
    s->cluster.connect_timeout_ms = s->cfg.peer_connect_timeout * 1000u;
    s->env.roots = s->roots;
    s->env.root_fds = s->root_fds;
    s->env.n_roots = s->cfg.n_roots;
    s->env.cache = s->cache;
    s->env.metrics = s->metrics;
    for (i = 0; i < s->cfg.n_remote_allow; i++)
        s->remote_allow[i] = s->cfg.remote_allow[i];
    s->remote.restricted = 1;
    s->remote.allow = s->remote_allow;
    s->remote.n_allow = s->cfg.n_remote_allow;
    s->remote.timeout_ms = (long)s->cfg.remote_timeout * 1000L;
    s->remote.max_download = s->cfg.remote_max_download;
    s->remote.max_bytes = s->cfg.remote_max_bytes;
    s->remote.spool_dir = s->cfg.spool_dir;
    s->env.remote = s->cfg.n_remote_allow > 0 ? &s->remote : NULL;
    rc = server_runtimes(s, err);
    if (rc != PT2_OK)
        goto fail;
    if (s->listener.family == AF_INET6)
        flags |= MHD_USE_IPv6;
    /* The logger goes first so MHD reports option problems through it. A connection
     * over either limit is closed on arrival: one address dripping bytes into a
     * thousand connections cannot take the descriptors every other client (and the
     * kubelet's probes) need. */
    s->mhd = MHD_start_daemon(
        flags, 0, NULL, NULL, on_access, s, MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, s,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)s->listener.fd, MHD_OPTION_URI_LOG_CALLBACK, on_uri,
        s, MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_NOTIFY_CONNECTION,
        on_connection, s, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)s->cfg.request_timeout,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONN_MEMORY_LIMIT, MHD_OPTION_CONNECTION_LIMIT,
        connection_limit(&s->cfg, threads), MHD_OPTION_PER_IP_CONNECTION_LIMIT,
        s->cfg.max_connections_per_ip,
        /* MHD refuses a pool of one: then the list simply ends here. */
        threads > 1 ? MHD_OPTION_THREAD_POOL_SIZE : MHD_OPTION_END, threads, MHD_OPTION_END);
    if (s->mhd == NULL) {
        rc = pt2_error_set(err, PT2_ERR_INTERNAL, "server: libmicrohttpd failed to start on %s",
                           s->listener.address);
        goto fail;
    }
    *out = s;
    return PT2_OK;
fail:
    pt2d_server_free(s);
    return rc;
}

void pt2d_server_flush_log(struct pt2d_server *s)
{
    if (s != NULL)
        pt2d_alog_flush(s->alog);
}

uint16_t pt2d_server_port(const struct pt2d_server *s)
{
    return s->listener.port;
}

const char *pt2d_server_address(const struct pt2d_server *s)
{
    return s->listener.address;
}

static void server_reload_now(struct pt2d_server *s)
{
    struct pt2_error err = {0};
    unsigned n = 0;

    if (pt2d_auth_reload(s->auth, &n, &err) != PT2_OK)
        pt2d_log_event(s->log, "warn", "SIGHUP: %s; keeping the %u token%s loaded before",
                       err.message, n, n == 1 ? "" : "s");
    else
        pt2d_log_event(s->log, "info", "SIGHUP: token file re-read, %u token%s", n,
                       n == 1 ? "" : "s");
}

static void *reload_main(void *arg)
{
    struct pt2d_server *s = arg;

    pthread_mutex_lock(&s->reload_lock);
    for (;;) {
        while (!s->reload_pending && !s->reload_stop)
            pthread_cond_wait(&s->reload_wake, &s->reload_lock);
        if (s->reload_stop)
            break;
        s->reload_pending = 0;
        s->reload_busy = 1;
        pthread_mutex_unlock(&s->reload_lock);
        server_reload_now(s);
        pthread_mutex_lock(&s->reload_lock);
        s->reload_busy = 0;
        pthread_cond_broadcast(&s->reload_wake);
    }
    pthread_mutex_unlock(&s->reload_lock);
    return NULL;
}

void pt2d_server_reload(struct pt2d_server *s)
{
    if (!pt2d_auth_has_tokens(s->auth)) {
        pt2d_log_event(s->log, "info", "SIGHUP: nothing to re-read (no --token-file)");
        return;
    }
    if (!s->reload_started) { /* no thread could be made: read here */
        server_reload_now(s);
        return;
    }
    pthread_mutex_lock(&s->reload_lock);
    s->reload_pending = 1; /* a second SIGHUP while one is pending is the same re-read */
    pthread_cond_signal(&s->reload_wake);
    pthread_mutex_unlock(&s->reload_lock);
}

/*
 * Stop the reload thread. 1 when it ended; 0 when a re-read is still stuck
 * after RELOAD_STOP_S (then it keeps the auth object, which is left to the
 * process's exit).
 */
static int reload_stop(struct pt2d_server *s)
{
    struct timespec until;

    if (!s->reload_started)
        return 1;
    pthread_mutex_lock(&s->reload_lock);
    s->reload_stop = 1;
    pthread_cond_broadcast(&s->reload_wake);
    pthread_mutex_unlock(&s->reload_lock);
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += RELOAD_STOP_S;
    if (pthread_timedjoin_np(s->reload_thread, NULL, &until) != 0) {
        pthread_detach(s->reload_thread);
        return 0;
    }
    s->reload_started = 0;
    return 1;
}

void pt2d_server_unready(struct pt2d_server *s)
{
    atomic_store(&s->unready, 1);
}

/* A queued request that will not run now: 503, as if the queue had been full. */
static void cancel_job(void *arg)
{
    struct request *rq = arg;

    pt2d_reply_problem(&rq->reply, PT2_ERR_OVERLOADED, "the server is shutting down", rq->id);
    atomic_store(&rq->state, REQ_DONE);
    MHD_resume_connection(rq->conn);
}

unsigned long pt2d_server_drain(struct pt2d_server *s, unsigned timeout_ms)
{
    struct timespec deadline;
    unsigned long left;

    atomic_store(&s->draining, 1);
    if (s->mhd != NULL && !s->quiesced) {
        MHD_socket fd = MHD_quiesce_daemon(s->mhd);
        /* After quiescing, MHD no longer owns the listen socket. */
        if (fd != MHD_INVALID_SOCKET)
            close(fd);
        s->quiesced = 1;
        /* Work that has not started is answered now; only running jobs are waited for. */
        pt2d_pool_cancel_queued(s->pool, cancel_job);
        pt2d_pool_cancel_queued(s->cluster_pool, cancel_job);
        pt2d_pool_cancel_queued(s->remote_pool, cancel_job);
    }
    pt2d_clock_after(&deadline, CLOCK_REALTIME, timeout_ms); /* s->idle's clock */
    pthread_mutex_lock(&s->lock);
    while (s->inflight > 0)
        if (pthread_cond_timedwait(&s->idle, &s->lock, &deadline) == ETIMEDOUT)
            break;
    left = s->inflight;
    pthread_mutex_unlock(&s->lock);
    return left;
}

void pt2d_server_free(struct pt2d_server *s)
{
    if (s == NULL)
        return;
    if (s->mhd != NULL) {
        pt2d_server_drain(s, 0);
        /* Every job finishes and resumes its connection before MHD stops:
         * stopping with suspended connections is an API violation. The pool
         * itself lives on until MHD has stopped: kept-alive connections may
         * still ask for /readyz (pool stats) or submit (refused, 503). */
        pt2d_pool_stop(s->cluster_pool);
        pt2d_pool_stop(s->remote_pool);
        pt2d_pool_stop(s->pool);
        MHD_stop_daemon(s->mhd);
    } else if (s->listener.fd >= 0) {
        close(s->listener.fd);
    }
    pt2d_alog_stop(s->alog); /* the HTTP threads, its only writers, have been joined */
    pt2d_pool_free(s->cluster_pool);
    pt2d_pool_free(s->remote_pool);
    pt2d_pool_free(s->pool);
    pt2d_node_free(s->node);
    for (size_t r = 0; r < s->n_runtimes; r++)
        pt2_runtime_free(s->runtimes[r]);
    pt2d_cache_free(s->cache);
    pt2d_metrics_free(s->metrics);
    if (reload_stop(s)) {
        pt2d_auth_free(s->auth);
        pthread_cond_destroy(&s->reload_wake);
        pthread_mutex_destroy(&s->reload_lock);
    }
    pt2d_deadlines_stop(s->deadlines);
    pt2d_path_roots_close(s->root_fds, s->cfg.n_roots);
#ifdef PT2SCOPE_TEST_HOOKS
    if (s->has_file_gate)
        pt2d_gate_destroy(&s->file_gate);
#endif
    pthread_cond_destroy(&s->idle);
    pthread_mutex_destroy(&s->lock);
    free(s);
}
