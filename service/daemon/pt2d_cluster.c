/*
 * pt2d_cluster.c - fan-out to peer daemons (see pt2d_cluster.h).
 *
 * One easy handle per peer request, all in one multi handle; every handle
 * carries its own timeouts, and the loop has a deadline of its own as a
 * second guard. Peer responses are untrusted input: bodies are capped,
 * parsed with cJSON and only known members are used.
 */
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <curl/curl.h>

#include "pt2d_buf.h"
#include "pt2d_cluster.h"
#include "pt2scope.h"

#define URL_MAX 8192       /* a peer request URL with its query */
#define LOOP_SLACK_MS 2000 /* the multi loop's own deadline past the timeout */
#define POLL_MS 200
#define AUTH_HEADER_MAX 1024 /* "Bearer " + a token (pt2d_auth caps tokens far below) */

struct xfer {
    CURL *h;
    struct pt2d_buf body;
    char errbuf[CURL_ERROR_SIZE];
    CURLcode rc;
    long status;
    int done;
};

struct peer {
    char url[PT2D_PEER_URL_MAX];
    struct xfer inspect, node;
};

/* ---- peer list ----------------------------------------------------------- */

static int peer_known(const struct peer *peers, size_t n, const char *url)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (strcmp(peers[i].url, url) == 0)
            return 1;
    return 0;
}

/* Append one resolved address as "http://A:port" or "http://[A]:port". */
static void add_address(struct peer *peers, size_t *n, const struct sockaddr *sa, socklen_t len,
                        unsigned port)
{
    char host[96], url[PT2D_PEER_URL_MAX]; /* numeric address, zone included */
    char *pct;

    if (*n >= PT2D_PEERS_MAX ||
        getnameinfo(sa, len, host, sizeof(host), NULL, 0, NI_NUMERICHOST) != 0)
        return;
    /* A zone index ("fe80::1%eth0") is written %25 inside a URL. */
    pct = strchr(host, '%');
    if (sa->sa_family == AF_INET6 && pct != NULL)
        snprintf(url, sizeof(url), "http://[%.*s%%25%s]:%u", (int)(pct - host), host, pct + 1,
                 port);
    else if (sa->sa_family == AF_INET6)
        snprintf(url, sizeof(url), "http://[%s]:%u", host, port);
    else
        snprintf(url, sizeof(url), "http://%s:%u", host, port);
    if (!peer_known(peers, *n, url))
        snprintf(peers[(*n)++].url, sizeof(peers[0].url), "%s", url);
}

/* Static peers, then the DNS ones; fills the "dns" member (or null). */
static int collect_peers(const struct pt2d_cluster_cfg *cfg, struct peer *peers, size_t *n,
                         cJSON *doc)
{
    struct addrinfo hints, *res = NULL, *ai;
    size_t i, before;
    cJSON *dns;
    int rc;

    *n = 0;
    for (i = 0; i < cfg->n_peers && *n < PT2D_PEERS_MAX; i++)
        if (!peer_known(peers, *n, cfg->peers[i]))
            snprintf(peers[(*n)++].url, sizeof(peers[0].url), "%s", cfg->peers[i]);
    if (cfg->dns_name == NULL || cfg->dns_name[0] == '\0')
        return cJSON_AddNullToObject(doc, "dns") != NULL ? PT2_OK : PT2_ERR_NOMEM;

    dns = cJSON_AddObjectToObject(doc, "dns");
    if (dns == NULL || cJSON_AddStringToObject(dns, "name", cfg->dns_name) == NULL ||
        cJSON_AddNumberToObject(dns, "port", cfg->dns_port) == NULL)
        return PT2_ERR_NOMEM;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    before = *n;
    rc = getaddrinfo(cfg->dns_name, NULL, &hints, &res);
    for (ai = rc == 0 ? res : NULL; ai != NULL; ai = ai->ai_next)
        if (ai->ai_family == AF_INET || ai->ai_family == AF_INET6)
            add_address(peers, n, ai->ai_addr, ai->ai_addrlen, cfg->dns_port);
    if (res != NULL)
        freeaddrinfo(res);
    if (cJSON_AddNumberToObject(dns, "addresses", (double)(*n - before)) == NULL)
        return PT2_ERR_NOMEM;
    if (rc != 0) {
        char msg[256];

        snprintf(msg, sizeof(msg), "cannot resolve '%.128s': %s", cfg->dns_name, gai_strerror(rc));
        if (cJSON_AddStringToObject(dns, "error", msg) == NULL)
            return PT2_ERR_NOMEM;
    } else if (cJSON_AddNullToObject(dns, "error") == NULL) {
        return PT2_ERR_NOMEM;
    }
    return PT2_OK;
}

/* ---- transfers ----------------------------------------------------------- */

static size_t on_body(char *p, size_t sz, size_t nmemb, void *ud)
{
    struct xfer *x = ud;
    size_t n = sz * nmemb;

    /* Past the cap the append fails and returning short aborts the transfer. */
    return pt2d_buf_append(&x->body, p, n) == PT2_OK ? n : 0;
}

/* The path and query forwarded to /v1/inspect (the escape needs no handle). */
static int inspect_query(const struct pt2d_options *o, struct pt2d_buf *q)
{
    CURL *h = NULL;
    char *e;
    size_t i;

    /* each peer reads the package itself: from its model roots, or from the URL (under its own
     * --remote-allow) */
    e = curl_easy_escape(h, o->has_url ? o->url : o->path, 0);
    if (e == NULL)
        return PT2_ERR_NOMEM;
    pt2d_buf_printf(q, "/v1/inspect?%s=%s", o->has_url ? "url" : "path", e);
    curl_free(e);
    for (i = 0; i < o->n_targets; i++) {
        e = curl_easy_escape(h, o->targets[i].text, 0);
        if (e == NULL)
            return PT2_ERR_NOMEM;
        pt2d_buf_printf(q, "&target=%s", e);
        curl_free(e);
    }
    for (i = 0; i < o->n_runtimes; i++) {
        e = curl_easy_escape(h, o->runtimes[i], 0);
        if (e == NULL)
            return PT2_ERR_NOMEM;
        pt2d_buf_printf(q, "&runtime=%s", e);
        curl_free(e);
    }
    if (o->driver_version > 0)
        pt2d_buf_printf(q, "&driver=%d", o->driver_version);
    if (o->strict)
        pt2d_buf_printf(q, "&strict=1");
    if (o->platform[0] != '\0')
        pt2d_buf_printf(q, "&platform=%s", o->platform); /* one of three fixed spellings */
    if (o->has_device) {
        e = curl_easy_escape(h, o->device, 0);
        if (e == NULL)
            return PT2_ERR_NOMEM;
        pt2d_buf_printf(q, "&device=%s", e);
        curl_free(e);
    }
    return q->failed;
}

static int xfer_start(CURLM *m, struct xfer *x, const struct pt2d_cluster_cfg *cfg, const char *url,
                      struct curl_slist *headers)
{
    pt2d_buf_init(&x->body, PT2D_PEER_BODY_MAX);
    x->h = curl_easy_init();
    if (x->h == NULL)
        return PT2_ERR_NOMEM;
    curl_easy_setopt(x->h, CURLOPT_URL, url);
    curl_easy_setopt(x->h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(x->h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(x->h, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(x->h, CURLOPT_TIMEOUT_MS, (long)cfg->timeout_ms);
    curl_easy_setopt(x->h, CURLOPT_CONNECTTIMEOUT_MS, (long)cfg->connect_timeout_ms);
    curl_easy_setopt(x->h, CURLOPT_USERAGENT, "pt2scoped/" PT2SCOPE_VERSION);
    curl_easy_setopt(x->h, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(x->h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(x->h, CURLOPT_WRITEDATA, x);
    curl_easy_setopt(x->h, CURLOPT_ERRORBUFFER, x->errbuf);
    curl_easy_setopt(x->h, CURLOPT_PRIVATE, x);
    if (curl_multi_add_handle(m, x->h) != CURLM_OK)
        return PT2_ERR_INTERNAL;
    return PT2_OK;
}

static void xfer_free(CURLM *m, struct xfer *x)
{
    if (x->h != NULL) {
        curl_multi_remove_handle(m, x->h);
        curl_easy_cleanup(x->h);
        x->h = NULL;
    }
    pt2d_buf_free(&x->body);
}

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

/* Run every transfer to completion (or the deadline); record each result. */
static void run_multi(CURLM *m, unsigned timeout_ms)
{
    double deadline = now_ms() + timeout_ms + LOOP_SLACK_MS;
    int running = 1, left;
    CURLMsg *msg;

    while (running > 0 && now_ms() < deadline) {
        if (curl_multi_perform(m, &running) != CURLM_OK)
            break;
        while ((msg = curl_multi_info_read(m, &left)) != NULL) {
            struct xfer *x = NULL;

            if (msg->msg != CURLMSG_DONE)
                continue;
            curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&x);
            x->rc = msg->data.result;
            x->done = 1;
            curl_easy_getinfo(msg->easy_handle, CURLINFO_RESPONSE_CODE, &x->status);
        }
        if (running > 0 && curl_multi_poll(m, NULL, 0, POLL_MS, NULL) != CURLM_OK)
            break;
    }
}

/* ---- per-peer results ------------------------------------------------------ */

static int is_unreachable(CURLcode rc)
{
    switch (rc) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_GOT_NOTHING:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_SSL_CONNECT_ERROR:
        return 1;
    default:
        return 0;
    }
}

/* A peer body as a JSON object, or NULL. */
static cJSON *body_object(const struct xfer *x)
{
    cJSON *doc;

    if (x->body.len == 0)
        return NULL;
    doc = cJSON_ParseWithLength(pt2d_buf_str(&x->body), x->body.len);
    if (doc != NULL && !cJSON_IsObject(doc)) {
        cJSON_Delete(doc);
        return NULL;
    }
    return doc;
}

/*
 * The node verdict of one answering peer: the `overall` the peer decided
 * with the library's node rule. Nothing is re-derived here from strings.
 * 1 when the answer carries a well-formed one.
 */
static int peer_verdict(const cJSON *inspect, int *verdict, char *reason, size_t len)
{
    const cJSON *ov = cJSON_GetObjectItemCaseSensitive(inspect, "overall");
    const char *why = pt2_json_str(ov, "reason");
    int v = pt2_verdict_from_name(pt2_json_str(ov, "verdict"));

    if (v < 0 || why == NULL)
        return 0;
    *verdict = v;
    snprintf(reason, len, "%s", why);
    return 1;
}

static const char *verdict_name(int r)
{
    return pt2_verdict_name(r);
}

struct tally {
    unsigned ok, unreachable, error, verdicts[PT2_VERDICT_COUNT];
};

/* 1 if `e` has the shape of one of our compatibility entries. */
static int is_verdict_entry(const cJSON *e)
{
    const char *kind = pt2_json_str(e, "kind");

    return cJSON_IsObject(e) && kind != NULL &&
           (strcmp(kind, "target") == 0 || strcmp(kind, "gpu") == 0 || strcmp(kind, "cpu") == 0 ||
            strcmp(kind, "runtime") == 0) &&
           pt2_json_str(e, "target") != NULL && pt2_json_str(e, "verdict") != NULL &&
           pt2_json_str(e, "reason") != NULL &&
           cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(e, "device"));
}

/* A peer is untrusted: drop the entries that are not verdicts of ours. */
static void keep_verdict_entries(cJSON *compat)
{
    cJSON *e = compat != NULL ? compat->child : NULL;

    while (e != NULL) {
        cJSON *next = e->next;
        if (!is_verdict_entry(e))
            cJSON_Delete(cJSON_DetachItemViaPointer(compat, e));
        e = next;
    }
}

/* One "peers" entry; takes the parsed documents it keeps. */
static cJSON *peer_json(const struct peer *p, struct tally *t)
{
    const struct xfer *x = &p->inspect;
    cJSON *o = cJSON_CreateObject(), *inspect = NULL, *node = NULL, *compat = NULL;
    char error[512] = "", reason[512] = "";
    const char *status;
    int verdict = -1, ok;

    if (o == NULL)
        return NULL;
    if (p->node.done && p->node.rc == CURLE_OK && p->node.status == 200)
        node = body_object(&p->node);
    /* A peer is untrusted: pass on only what has the shape of a /v1/node answer. */
    if (node != NULL && !(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(node, "gpus")) &&
                          cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(node, "cpu")) &&
                          cJSON_IsString(cJSON_GetObjectItemCaseSensitive(node, "probed_at")))) {
        cJSON_Delete(node);
        node = NULL;
    }
    if (!x->done) {
        status = "unreachable";
        snprintf(error, sizeof(error), "no answer before the deadline");
    } else if (x->rc != CURLE_OK) {
        status = is_unreachable(x->rc) ? "unreachable" : "error";
        if (x->body.failed == PT2_ERR_TOO_LARGE)
            snprintf(error, sizeof(error), "response larger than %u bytes", PT2D_PEER_BODY_MAX);
        else
            snprintf(error, sizeof(error), "%s",
                     x->errbuf[0] != '\0' ? x->errbuf : curl_easy_strerror(x->rc));
    } else if ((inspect = body_object(x)) == NULL) {
        status = "error";
        snprintf(error, sizeof(error), "HTTP %ld with a body that is not a JSON object", x->status);
    } else if (x->status != 200) {
        const char *detail = pt2_json_str(inspect, "detail");

        status = "error";
        snprintf(error, sizeof(error), "HTTP %ld: %.480s", x->status,
                 detail != NULL ? detail : "no detail");
    } else if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(inspect, "compatibility"))) {
        status = "error";
        snprintf(error, sizeof(error), "answer has no compatibility array");
    } else {
        status = "ok";
        compat = cJSON_DetachItemFromObjectCaseSensitive(inspect, "compatibility");
        keep_verdict_entries(compat);
        if (cJSON_GetArraySize(compat) == 0) {
            /* a pt2scoped peer always sends at least its CPU verdict */
            status = "error";
            snprintf(error, sizeof(error), "answer has no valid compatibility entries");
            cJSON_Delete(compat);
            compat = NULL;
        } else if (!peer_verdict(inspect, &verdict, reason, sizeof(reason))) {
            status = "error";
            snprintf(error, sizeof(error), "answer has no overall verdict (an older pt2scoped?)");
        }
    }

    ok = cJSON_AddStringToObject(o, "peer", p->url) != NULL &&
         cJSON_AddStringToObject(o, "status", status) != NULL &&
         (x->done && x->status > 0 ? cJSON_AddNumberToObject(o, "http_status", x->status)
                                   : cJSON_AddNullToObject(o, "http_status")) != NULL;
    ok = ok && (node != NULL ? cJSON_AddItemToObject(o, "node", node)
                             : cJSON_AddNullToObject(o, "node") != NULL);
    if (ok)
        node = NULL;
    ok = ok && (compat != NULL ? cJSON_AddItemToObject(o, "compatibility", compat)
                               : cJSON_AddNullToObject(o, "compatibility") != NULL);
    if (ok)
        compat = NULL;
    ok = ok && (verdict >= 0 ? cJSON_AddStringToObject(o, "verdict", verdict_name(verdict))
                             : cJSON_AddNullToObject(o, "verdict")) != NULL;
    ok = ok && (verdict >= 0 ? cJSON_AddStringToObject(o, "reason", reason)
                             : cJSON_AddNullToObject(o, "reason")) != NULL;
    ok = ok && (error[0] != '\0' ? cJSON_AddStringToObject(o, "error", error)
                                 : cJSON_AddNullToObject(o, "error")) != NULL;
    cJSON_Delete(inspect);
    cJSON_Delete(node);
    cJSON_Delete(compat);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    if (strcmp(status, "ok") == 0) {
        t->ok++;
        t->verdicts[verdict]++;
    } else if (strcmp(status, "unreachable") == 0) {
        t->unreachable++;
    } else {
        t->error++;
    }
    return o;
}

/* ---- the request ------------------------------------------------------------ */

/* Append one header line; 0 when out of memory (the list stays as it was). */
static int add_header(struct curl_slist **headers, const char *line)
{
    struct curl_slist *h = curl_slist_append(*headers, line);

    if (h == NULL)
        return 0;
    *headers = h;
    return 1;
}

int pt2d_cluster_query(const struct pt2d_cluster_cfg *cfg, const struct pt2d_options *o,
                       const char *request_id, const char *authorization, cJSON **out,
                       struct pt2_error *err)
{
    struct peer *peers = NULL;
    struct curl_slist *headers = NULL;
    struct pt2d_buf url, query;
    struct tally t = {0};
    CURLM *m = NULL;
    cJSON *doc = NULL, *arr, *item, *sum;
    char hdr[128], auth[AUTH_HEADER_MAX + 16], shown[PT2D_URL_MAX];
    size_t n = 0, i;
    int rc = PT2_OK;

    *out = NULL;
    pt2d_buf_init(&url, URL_MAX);
    pt2d_buf_init(&query, URL_MAX);
    if (o->has_path == o->has_url)
        return pt2_error_set(err, PT2_ERR_INVALID,
                             o->has_url ? "send either a path or a url, not both"
                                        : "name the package with ?path= (a path under the peers' "
                                          "model roots) or ?url=");
    peers = calloc(PT2D_PEERS_MAX, sizeof(*peers));
    doc = cJSON_CreateObject();
    /* the report names the URL as answers do: no credentials, no query */
    if (o->has_url && pt2_remote_shown_url(o->url, shown, sizeof(shown)) != PT2_OK) {
        rc = pt2_error_set(err, PT2_ERR_INVALID, "url is not a URL this server reads");
        goto cleanup;
    }
    if (peers == NULL || doc == NULL ||
        cJSON_AddStringToObject(doc, o->has_url ? "url" : "path", o->has_url ? shown : o->path) ==
            NULL)
        goto nomem;
    if (collect_peers(cfg, peers, &n, doc) != PT2_OK)
        goto nomem;
    rc = inspect_query(o, &query);
    if (rc == PT2_ERR_TOO_LARGE) {
        rc = pt2_error_set(err, PT2_ERR_INVALID, "the forwarded query exceeds %d bytes", URL_MAX);
        goto cleanup;
    }
    if (rc != PT2_OK)
        goto nomem;

    m = curl_multi_init();
    headers = curl_slist_append(NULL, "Accept: application/json");
    if (m == NULL || headers == NULL)
        goto nomem;
    if (request_id != NULL && request_id[0] != '\0') {
        snprintf(hdr, sizeof(hdr), "X-Request-Id: %.100s", request_id);
        if (!add_header(&headers, hdr))
            goto nomem;
    }
    /* Longer than any token file allows: not a credential worth passing on. */
    if (authorization != NULL && strlen(authorization) <= AUTH_HEADER_MAX) {
        int ok;

        snprintf(auth, sizeof(auth), "Authorization: %s", authorization);
        ok = add_header(&headers, auth); /* curl keeps its own copy */
        explicit_bzero(auth, sizeof(auth));
        if (!ok)
            goto nomem;
    }
    for (i = 0; i < n; i++) {
        pt2d_buf_reset(&url);
        if (pt2d_buf_printf(&url, "%s%s", peers[i].url, pt2d_buf_str(&query)) != PT2_OK ||
            xfer_start(m, &peers[i].inspect, cfg, pt2d_buf_str(&url), headers) != PT2_OK)
            goto nomem;
        pt2d_buf_reset(&url);
        if (pt2d_buf_printf(&url, "%s/v1/node", peers[i].url) != PT2_OK ||
            xfer_start(m, &peers[i].node, cfg, pt2d_buf_str(&url), headers) != PT2_OK)
            goto nomem;
    }
    run_multi(m, cfg->timeout_ms);

    if ((arr = cJSON_AddArrayToObject(doc, "peers")) == NULL)
        goto nomem;
    /* An empty answer says why: nothing configured, or a DNS name with no address. */
    if (n == 0) {
        cJSON *w = cJSON_AddArrayToObject(doc, "warnings");
        const char *why =
            cfg->dns_name != NULL && cfg->dns_name[0] != '\0'
                ? "no peers: the --peers-dns name has no address now (see \"dns\")"
                : "no peers configured: start pt2scoped with --peer URL (PT2SCOPE_PEERS) or "
                  "--peers-dns NAME (PT2SCOPE_PEERS_DNS) to ask other nodes";

        if (w == NULL || !cJSON_AddItemToArray(w, cJSON_CreateString(why)))
            goto nomem;
    }
    for (i = 0; i < n; i++) {
        if ((item = peer_json(&peers[i], &t)) == NULL)
            goto nomem;
        cJSON_AddItemToArray(arr, item);
    }
    if ((sum = cJSON_AddObjectToObject(doc, "summary")) == NULL ||
        cJSON_AddNumberToObject(sum, "peers", (double)n) == NULL ||
        cJSON_AddNumberToObject(sum, "ok", t.ok) == NULL ||
        cJSON_AddNumberToObject(sum, "unreachable", t.unreachable) == NULL ||
        cJSON_AddNumberToObject(sum, "error", t.error) == NULL ||
        cJSON_AddNumberToObject(sum, "compatible", t.verdicts[0]) == NULL ||
        cJSON_AddNumberToObject(sum, "compatible-ptx-jit", t.verdicts[1]) == NULL ||
        cJSON_AddNumberToObject(sum, "unverified", t.verdicts[PT2_UNVERIFIED]) == NULL ||
        cJSON_AddNumberToObject(sum, "incompatible", t.verdicts[PT2_INCOMPATIBLE]) == NULL)
        goto nomem;
    *out = doc;
    doc = NULL;
    goto cleanup;
nomem:
    rc = pt2_error_set(err, PT2_ERR_NOMEM, "out of memory querying the peers");
cleanup:
    for (i = 0; peers != NULL && i < n; i++) {
        xfer_free(m, &peers[i].inspect);
        xfer_free(m, &peers[i].node);
    }
    if (m != NULL)
        curl_multi_cleanup(m);
    curl_slist_free_all(headers);
    pt2d_buf_free(&url);
    pt2d_buf_free(&query);
    free(peers);
    cJSON_Delete(doc);
    return rc;
}

void pt2d_cluster_serve(const struct pt2d_cluster_cfg *cfg, const struct pt2d_options *o,
                        const char *request_id, const char *authorization, struct pt2d_reply *reply)
{
    struct pt2_error err = {0};
    cJSON *doc = NULL;

    if (pt2d_cluster_query(cfg, o, request_id, authorization, &doc, &err) != PT2_OK)
        pt2d_reply_problem(reply, err.code, err.message, request_id);
    else
        pt2d_reply_json(reply, 200, doc);
    cJSON_Delete(doc);
}
