/*
 * pt2_remote.c - transfers for pt2_remote.h: the first request, Range reads
 * (one, or a batch in parallel) and the whole-object download, all on one
 * curl multi handle.
 *
 * Design: every request runs in a "slot": an easy handle kept for reuse, the
 * headers captured from its response (each with a cap) and where its body
 * goes. One loop drives the slots over the multi handle, whether they hold
 * the first request, one read_at or up to SLOTS_MAX ranges of a read_many;
 * the multi handle's connection cache lets later requests reuse
 * connections. A redirect restarts its slot on the next hop after the
 * checks the first URL passed. Every body has a bounded destination: a
 * Range body goes straight into the caller's buffer and a byte beyond what
 * was asked stops the transfer as an error.
 *
 * Restricted mode resolves each new hop's host here, refuses blocked
 * address classes and pins the checked addresses with CURLOPT_RESOLVE; a
 * socket callback checks the address actually connected to once more, so
 * nothing curl looks up on its own can reach a refused address.
 *
 * Budgets: the deadline is fixed at open and each request gets the time
 * left as its CURLOPT_TIMEOUT_MS; max_bytes counts every body but a whole
 * download, which max_download bounds instead (both say what they cap).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "pt2_remote.h"
#include "pt2_remote_int.h"
#include "pt2_remote_url.h"
#include "pt2scope.h"

#define SLOTS_MAX 16 /* requests in flight at once */
#define FIRST_KEEP_MAX                                                                             \
    (2u * PT2_REMOTE_SUFFIX_BYTES) /* a first 206 body kept; the rest is left                      \
                                    */
#define ERRBODY_MAX 4096           /* an error body kept, for S3's <Code> */
#define DISCARD_MAX (64u * 1024u)  /* an unwanted body read before the transfer is cut */
#define ETAG_MAX 256
#define DATE_MAX 128
#define CRANGE_MAX 128
#define CONNECT_DEFAULT_MS 10000L
#define LOOP_SLACK_MS 2000 /* the loop's own guard past the deadline */
#define POLL_MS 1000
#define PIN_ADDRS_MAX 16
#define PIN_MAX 1536
#define S3_CODE_MAX 64
#define SHOWN "%.300s" /* a URL in a message: the reason after it must fit too */

struct resp {
    long status;
    char etag[ETAG_MAX + 1];
    char last_modified[DATE_MAX + 1];
    char content_range[CRANGE_MAX + 1];
    char location[PT2_REMOTE_URL_MAX + 1];
    uint64_t length;
    int has_length;
    const char *bad; /* a header over its cap or with control bytes */
};

enum body_mode { BODY_UNSET, BODY_FIRST, BODY_SPOOL, BODY_RANGE, BODY_OTHER };

/* How a hop's URL came to be, which decides what is checked. */
enum hop_kind {
    HOP_KNOWN,   /* the object's URL, checked and pinned by the first request */
    HOP_FIRST,   /* the URL given */
    HOP_MAPPED,  /* the HTTP URL of an s3:// URL (the s3:// URL was allow-checked) */
    HOP_REDIRECT /* a Location */
};

#define FOLLOWED 1 /* slot_finish: restarted on the next hop */

struct slot {
    pt2_remote *r;
    CURL *h;
    int busy, done;
    CURLcode rc;

    int first;         /* the first request, else a range */
    uint64_t off, len; /* the range */
    uint8_t *dst;      /* its buffer */
    unsigned hops;
    char url[PT2_REMOTE_URL_MAX + 1];
    char host[PT2_REMOTE_HOST_MAX];
    int trusted; /* restricted: the address rules do not apply to this host */
    int sign;    /* SigV4 */
    struct curl_slist *headers, *pin_own, *pin;
    char range[48];

    /* this request's response */
    struct resp resp;
    int mode;         /* enum body_mode, decided at the first body byte */
    size_t got;       /* body bytes where they belong */
    size_t cap;       /* BODY_FIRST: bytes to keep */
    int keep_partial; /* BODY_FIRST: stopping at cap is expected */
    int stopped;      /* the body was cut on purpose, not by a failure */
    uint64_t other;   /* BODY_OTHER bytes seen */
    char errbody[ERRBODY_MAX + 1];
    size_t errbody_len;
    char refused[INET6_ADDRSTRLEN + 8]; /* the socket callback refused this address */
    int refused_cls;
    char errbuf[CURL_ERROR_SIZE];
    struct pt2_error err; /* set by a callback that stopped the transfer */
};

struct pt2_remote {
    struct pt2_remote_opts opts; /* allow points at `allow` below */
    char **allow;
    long timeout_ms, connect_ms;
    uint64_t max_download, max_bytes;
    char *spool_dir;
    int64_t deadline_ms;

    char display[PT2_REMOTE_URL_MAX + 1];
    char name[PT2_REMOTE_NAME_MAX];
    char url[PT2_REMOTE_URL_MAX + 1]; /* what Range requests go to: the last hop's */
    int url_trusted;
    struct curl_slist *pin; /* its CURLOPT_RESOLVE entry (restricted mode) */

    int s3, s3_endpoint, sign;
    char s3_host[PT2_REMOTE_HOST_MAX];
    long s3_port;
    char sigv4[PT2_REMOTE_REGION_MAX + 16];
    char *key_id, *secret, *token_header;

    char etag[ETAG_MAX + 1];
    char last_modified[DATE_MAX + 1];
    int etag_strong;
    char validator[ETAG_MAX + DATE_MAX + 32];

    uint64_t size, requests, bytes, budget; /* budget: bytes max_bytes counts */
    uint64_t trips; /* sequential round trips: one per batch, plus its longest redirect chain */
    int downloaded;
    int fd;
    uint64_t spooled;
    uint8_t *first_buf;
    pt2_source *src;
    CURLM *multi;
    int own_multi; /* 0: opts.multi, the caller's */
    struct slot slots[SLOTS_MAX];
};

int64_t pt2_remote_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t now_ms(void)
{
    return pt2_remote_now_ms();
}

/* ---- errors ------------------------------------------------------------- */

static int timeout_error(const pt2_remote *r, struct pt2_error *err)
{
    return pt2_error_set(err, PT2_ERR_REMOTE_TIMEOUT,
                         SHOWN ": no complete answer within %ld ms (the remote timeout)",
                         r->display, r->timeout_ms);
}

static int changed_error(const pt2_remote *r, struct pt2_error *err)
{
    return pt2_error_set(err, PT2_ERR_REMOTE_CHANGED,
                         "the object at " SHOWN " changed while it was read", r->display);
}

static int too_large_error(const pt2_remote *r, struct pt2_error *err)
{
    return pt2_error_set(err, PT2_ERR_TOO_LARGE,
                         SHOWN ": reading it would transfer more than %llu bytes (the remote "
                               "transfer limit)",
                         r->display, (unsigned long long)r->max_bytes);
}

static int no_range_error(const pt2_remote *r, struct pt2_error *err)
{
    return pt2_error_set(err, PT2_ERR_REMOTE_NO_RANGE,
                         SHOWN ": the server does not support Range requests and the object is "
                               "larger than %llu bytes (--remote-max-download)",
                         r->display, (unsigned long long)r->max_download);
}

/* S3's error code in an XML error body ("NoSuchKey"), or "". */
static void s3_code(const char *body, char *out, size_t len)
{
    const char *p = strstr(body, "<Code>"), *e;
    size_t n;

    out[0] = '\0';
    if (p == NULL)
        return;
    p += 6;
    e = strstr(p, "</Code>");
    n = e != NULL ? (size_t)(e - p) : 0;
    if (n == 0 || n >= len)
        return;
    for (size_t i = 0; i < n; i++)
        if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= 'A' && p[i] <= 'Z') ||
              (p[i] >= '0' && p[i] <= '9') || p[i] == '.'))
            return;
    memcpy(out, p, n);
    out[n] = '\0';
}

/* An error status (or one this layer has no use for) as a status code. */
static int status_error(const pt2_remote *r, const struct slot *s, struct pt2_error *err)
{
    char code[S3_CODE_MAX + 1];
    long st = s->resp.status;
    const char *sep;

    s3_code(s->errbody, code, sizeof(code));
    sep = code[0] != '\0' ? ", " : "";
    if (st == 404 || st == 410 || strcmp(code, "NoSuchKey") == 0 ||
        strcmp(code, "NoSuchBucket") == 0)
        return pt2_error_set(err, PT2_ERR_NOT_FOUND, SHOWN ": not found (HTTP %ld%s%s)", r->display,
                             st, sep, code);
    if (st >= 400)
        return pt2_error_set(err, PT2_ERR_REMOTE_UNREACHABLE,
                             SHOWN ": the server answered HTTP %ld%s%s", r->display, st, sep, code);
    return pt2_error_set(err, PT2_ERR_REMOTE_UNREACHABLE, SHOWN ": unexpected HTTP status %ld",
                         r->display, st);
}

static int curl_failure(const pt2_remote *r, const struct slot *s, struct pt2_error *err)
{
    if (s->refused[0] != '\0')
        return pt2_error_set(err, PT2_ERR_REMOTE_REFUSED,
                             SHOWN ": %.200s connects to %s, a %s address (refused)", r->display,
                             s->host, s->refused, pt2_remote_addr_class_name(s->refused_cls));
    /* time left but none taken: the connect timeout, not the whole one */
    if (s->rc == CURLE_OPERATION_TIMEDOUT && now_ms() < r->deadline_ms - POLL_MS)
        return pt2_error_set(err, PT2_ERR_REMOTE_TIMEOUT,
                             SHOWN ": no connection within %ld ms (the remote connect timeout)",
                             r->display, r->connect_ms);
    if (s->rc == CURLE_OPERATION_TIMEDOUT)
        return timeout_error(r, err);
    return pt2_error_set(err, PT2_ERR_REMOTE_UNREACHABLE, SHOWN ": %s", r->display,
                         s->errbuf[0] != '\0' ? s->errbuf : curl_easy_strerror(s->rc));
}

/* ---- hops ----------------------------------------------------------------- */

/*
 * A name lookup bounded by the deadline: getaddrinfo() blocks for as long as
 * the resolver likes (a name server that never answers holds the worker far
 * past --remote-timeout). getaddrinfo_a() runs it on glibc's own thread; on
 * time-out the request is cancelled, or, when already running, left to end
 * on its own: the lookup and its notification share one heap block with two
 * references, and whichever side lets go last frees it.
 */
struct lookup {
    struct gaicb cb;
    struct addrinfo hints;
    char name[PT2_REMOTE_HOST_MAX], service[8];
    atomic_int refs;
};

static void lookup_release(struct lookup *l)
{
    if (atomic_fetch_sub(&l->refs, 1) == 1) {
        if (l->cb.ar_result != NULL)
            freeaddrinfo(l->cb.ar_result);
        free(l);
    }
}

static void lookup_done(union sigval v)
{
    lookup_release(v.sival_ptr);
}

/* 0 and *res, a getaddrinfo error, or EAI_AGAIN with *timed_out set. */
static int lookup_bounded(const char *name, const char *service, const struct addrinfo *hints,
                          int64_t deadline_ms, struct addrinfo **res, int *timed_out)
{
    struct gaicb *list[1];
    struct sigevent sev;
    struct lookup *l = calloc(1, sizeof(*l));
    int rc;

    *res = NULL;
    *timed_out = 0;
    if (l == NULL)
        return EAI_MEMORY;
    snprintf(l->name, sizeof(l->name), "%s", name);
    snprintf(l->service, sizeof(l->service), "%s", service);
    l->hints = *hints;
    l->cb.ar_name = l->name;
    l->cb.ar_service = l->service;
    l->cb.ar_request = &l->hints;
    atomic_init(&l->refs, 2);
    memset(&sev, 0, sizeof(sev));
    sev.sigev_notify = SIGEV_THREAD;
    sev.sigev_notify_function = lookup_done;
    sev.sigev_value.sival_ptr = l;
    list[0] = &l->cb;
    if (getaddrinfo_a(GAI_NOWAIT, list, 1, &sev) != 0) {
        free(l);
        return EAI_SYSTEM;
    }
    for (;;) {
        int64_t left = deadline_ms - now_ms();
        struct timespec ts;
        const struct gaicb *const wait[1] = {&l->cb};

        rc = gai_error(&l->cb);
        if (rc != EAI_INPROGRESS)
            break;
        if (left <= 0) {
            /* cancelled or not, the notification still comes and drops its reference */
            gai_cancel(&l->cb);
            *timed_out = 1;
            lookup_release(l);
            return EAI_AGAIN;
        }
        ts.tv_sec = (time_t)(left / 1000);
        ts.tv_nsec = (long)(left % 1000) * 1000000L;
        gai_suspend(wait, 1, &ts);
    }
    if (rc == 0) {
        *res = l->cb.ar_result; /* ours now */
        l->cb.ar_result = NULL;
    }
    lookup_release(l);
    return rc;
}

/*
 * Resolve a host, refuse it when any address is in a blocked class, and pin
 * the addresses so that curl connects to exactly these (pt2_remote_int.h).
 */
int pt2_remote_pin_host(const char *display, const char *host, long port, int64_t deadline_ms,
                        long timeout_ms, struct curl_slist **pin_out, struct pt2_error *err)
{
    char name[PT2_REMOTE_HOST_MAX], service[8], addr[INET6_ADDRSTRLEN + 8], pin[PIN_MAX];
    struct addrinfo hints, *res = NULL, *ai;
    size_t n = strlen(host), used;
    unsigned count = 0;
    int grc, rc = PT2_OK, literal = 0;

    *pin_out = NULL;

    /* getaddrinfo takes an IPv6 literal without its brackets */
    if (n >= 2 && host[0] == '[') {
        memcpy(name, host + 1, n - 2);
        name[n - 2] = '\0';
    } else {
        memcpy(name, host, n + 1);
    }
    snprintf(service, sizeof(service), "%ld", port);
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICHOST;
    grc = getaddrinfo(name, service, &hints, &res); /* numeric: no lookup, no wait */
    if (grc == 0) {
        literal = 1; /* curl does not look an address up: nothing to pin */
    } else {
        int timed_out;

        hints.ai_flags = 0;
        grc = lookup_bounded(name, service, &hints, deadline_ms, &res, &timed_out);
        if (timed_out)
            return pt2_error_set(err, PT2_ERR_REMOTE_TIMEOUT,
                                 SHOWN ": no answer from the resolver for %.200s within %ld ms "
                                       "(the remote timeout)",
                                 display, host, timeout_ms);
    }
    if (grc != 0)
        return pt2_error_set(err, PT2_ERR_REMOTE_UNREACHABLE, SHOWN ": cannot resolve %.200s: %s",
                             display, host, gai_strerror(grc));
    used = (size_t)snprintf(pin, sizeof(pin), "%s:%ld:", name, port);
    for (ai = res; ai != NULL && used < sizeof(pin); ai = ai->ai_next) {
        int cls;

        if (ai->ai_family != AF_INET && ai->ai_family != AF_INET6)
            continue;
        cls = pt2_remote_addr_class(ai->ai_addr, ai->ai_addrlen);
        if (getnameinfo(ai->ai_addr, ai->ai_addrlen, addr, sizeof(addr), NULL, 0, NI_NUMERICHOST) !=
            0)
            snprintf(addr, sizeof(addr), "?");
        if (cls != PT2_REMOTE_ADDR_PUBLIC && literal) {
            rc = pt2_error_set(err, PT2_ERR_REMOTE_REFUSED,
                               SHOWN ": %.200s is a %s address (refused)", display, host,
                               pt2_remote_addr_class_name(cls));
            goto cleanup;
        }
        if (cls != PT2_REMOTE_ADDR_PUBLIC) {
            /* the class, not the address: an answer must not map internal DNS for a caller */
            rc = pt2_error_set(err, PT2_ERR_REMOTE_REFUSED,
                               SHOWN ": %.200s resolves to a %s address (refused)", display, host,
                               pt2_remote_addr_class_name(cls));
            goto cleanup;
        }
        if (count < PIN_ADDRS_MAX) {
            used += (size_t)snprintf(pin + used, sizeof(pin) - used,
                                     ai->ai_family == AF_INET6 ? "%s[%s]" : "%s%s",
                                     count > 0 ? "," : "", addr);
            count++;
        }
    }
    if (count == 0 || used >= sizeof(pin)) {
        rc = pt2_error_set(err, PT2_ERR_REMOTE_UNREACHABLE,
                           SHOWN ": %.200s has no usable IPv4 or IPv6 address", display, host);
        goto cleanup;
    }
    if (!literal) {
        *pin_out = curl_slist_append(NULL, pin);
        if (*pin_out == NULL) {
            rc = pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
            goto cleanup;
        }
    }
cleanup:
    freeaddrinfo(res);
    return rc;
}

/* Resolve and pin the hop's host (pt2_remote_pin_host). */
static int hop_resolve(pt2_remote *r, struct slot *s, long port, struct pt2_error *err)
{
    int rc = pt2_remote_pin_host(r->display, s->host, port, r->deadline_ms, r->timeout_ms,
                                 &s->pin_own, err);

    s->pin = s->pin_own;
    return rc;
}

/* The checks a hop passes before its request: scheme, allow list, addresses. */
static int hop_prepare(pt2_remote *r, struct slot *s, int kind, struct pt2_error *err)
{
    int sch = pt2_remote_url_scheme(s->url);
    long port = 0;

    s->trusted = 1;
    s->pin = NULL;
    if (sch != PT2_REMOTE_SCHEME_HTTP && sch != PT2_REMOTE_SCHEME_HTTPS)
        return pt2_error_set(err, PT2_ERR_REMOTE_REFUSED,
                             SHOWN ": redirected to a URL that is not http or https", r->display);
    if (pt2_remote_url_host(s->url, s->host, sizeof(s->host), &port) != PT2_OK)
        return pt2_error_set(err, PT2_ERR_REMOTE_UNREACHABLE,
                             SHOWN ": redirected to an invalid URL", r->display);
    /* credentials go to the object's S3 host only, never to where it redirects */
    s->sign = r->sign && strcasecmp(s->host, r->s3_host) == 0 && port == r->s3_port &&
              sch == pt2_remote_url_scheme(r->url);
    if (!r->opts.restricted)
        return PT2_OK;
    if (kind == HOP_KNOWN) {
        s->trusted = r->url_trusted;
        s->pin = r->pin;
        return PT2_OK;
    }
    if (kind != HOP_MAPPED && !pt2_remote_url_allowed(s->url, &r->opts))
        return kind == HOP_REDIRECT
                   ? pt2_error_set(err, PT2_ERR_REMOTE_REFUSED,
                                   SHOWN ": redirected to %.200s, which is not under any "
                                         "allowed URL prefix",
                                   r->display, s->host)
                   : pt2_error_set(err, PT2_ERR_REMOTE_REFUSED,
                                   SHOWN " is not under any allowed URL prefix", r->display);
    s->trusted = pt2_remote_url_host_named(s->url, &r->opts) ||
                 (r->s3_endpoint && strcasecmp(s->host, r->s3_host) == 0 && port == r->s3_port);
    if (s->trusted)
        return PT2_OK;
    return hop_resolve(r, s, port, err);
}

/* ---- callbacks ------------------------------------------------------------ */

static void put(struct resp *rs, char *dst, size_t cap, const char *v, size_t vl, const char *what)
{
    size_t i;

    for (i = 0; i < vl; i++)
        if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f)
            break;
    if (vl >= cap || i < vl) {
        rs->bad = what;
        return;
    }
    memcpy(dst, v, vl);
    dst[vl] = '\0';
}

static int name_is(const char *p, size_t n, const char *name)
{
    return n == strlen(name) && strncasecmp(p, name, n) == 0;
}

static size_t on_header(char *p, size_t size, size_t nmemb, void *ud)
{
    struct slot *s = ud;
    struct resp *rs = &s->resp;
    size_t n = size * nmemb, nl;
    const char *colon, *v, *end = p + n;

    if (n >= 5 && memcmp(p, "HTTP/", 5) == 0) {
        const char *sp = memchr(p, ' ', n);
        uint64_t st = 0;

        /* a new response (an interim 1xx, say): the last one's headers are not this one's */
        memset(rs, 0, sizeof(*rs));
        if (sp != NULL && end - sp >= 4 && pt2_num_u64n(sp + 1, 3, 10, &st) == PT2_OK)
            rs->status = (long)st;
        return n;
    }
    colon = memchr(p, ':', n);
    if (colon == NULL)
        return n;
    nl = (size_t)(colon - p);
    v = colon + 1;
    while (v < end && (*v == ' ' || *v == '\t'))
        v++;
    while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' ' || end[-1] == '\t'))
        end--;
    if (name_is(p, nl, "etag"))
        put(rs, rs->etag, sizeof(rs->etag), v, (size_t)(end - v), "ETag");
    else if (name_is(p, nl, "last-modified"))
        put(rs, rs->last_modified, sizeof(rs->last_modified), v, (size_t)(end - v),
            "Last-Modified");
    else if (name_is(p, nl, "content-range"))
        put(rs, rs->content_range, sizeof(rs->content_range), v, (size_t)(end - v),
            "Content-Range");
    else if (name_is(p, nl, "location"))
        put(rs, rs->location, sizeof(rs->location), v, (size_t)(end - v), "Location");
    else if (name_is(p, nl, "content-length"))
        rs->has_length = pt2_num_u64n(v, (size_t)(end - v), 10, &rs->length) == PT2_OK;
    return n;
}

static int spool_open(pt2_remote *r, struct pt2_error *err)
{
    char path[4096], eb[128];
    int n;

    if (r->fd >= 0)
        return PT2_OK;
    /* unlinked from the start: nothing is left behind, whatever happens */
    r->fd = open(r->spool_dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (r->fd < 0) {
        n = snprintf(path, sizeof(path), "%s/pt2scope-remote-XXXXXX", r->spool_dir);
        if (n > 0 && (size_t)n < sizeof(path)) {
            r->fd = mkostemp(path, O_CLOEXEC);
            if (r->fd >= 0)
                unlink(path);
        }
    }
    if (r->fd < 0)
        return pt2_error_set(err, PT2_ERR_IO, "cannot create a file in %.200s for a download: %s",
                             r->spool_dir, strerror_r(errno, eb, sizeof(eb)));
    return PT2_OK;
}

static int spool_write(pt2_remote *r, const char *p, size_t n, struct pt2_error *err)
{
    char eb[128];

    while (n > 0) {
        ssize_t w = write(r->fd, p, n);

        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return pt2_error_set(err, PT2_ERR_IO, "cannot write a download to %.200s: %s",
                                 r->spool_dir,
                                 w < 0 ? strerror_r(errno, eb, sizeof(eb)) : "no space");
        p += w;
        n -= (size_t)w;
    }
    return PT2_OK;
}

/* Where this response's body goes, decided once its status and headers are known. */
static int body_begin(pt2_remote *r, struct slot *s)
{
    struct pt2_remote_crange c;
    const struct resp *rs = &s->resp;
    int have_range =
        pt2_remote_content_range(rs->content_range, strlen(rs->content_range), &c) == PT2_OK &&
        !c.unsatisfied;

    s->mode = BODY_OTHER;
    if (rs->bad != NULL || (rs->status != 200 && rs->status != 206))
        return PT2_OK;
    if (s->first && rs->status == 206) {
        uint64_t want;

        if (!have_range)
            return pt2_error_set(&s->err, PT2_ERR_REMOTE_UNREACHABLE,
                                 SHOWN ": a 206 response without a valid Content-Range",
                                 r->display);
        want = c.last - c.first + 1;
        s->cap = want > FIRST_KEEP_MAX ? FIRST_KEEP_MAX : (size_t)want;
        s->keep_partial = want > FIRST_KEEP_MAX;
        if (r->first_buf == NULL && (r->first_buf = malloc(FIRST_KEEP_MAX)) == NULL)
            return pt2_error_set(&s->err, PT2_ERR_NOMEM, "out of memory");
        s->mode = BODY_FIRST;
    } else if (s->first) {
        if (rs->has_length && rs->length > r->max_download)
            return no_range_error(r, &s->err);
        if (spool_open(r, &s->err) != PT2_OK)
            return s->err.code;
        s->mode = BODY_SPOOL;
    } else if (rs->status == 206) {
        if (!have_range)
            return pt2_error_set(&s->err, PT2_ERR_REMOTE_UNREACHABLE,
                                 SHOWN ": a 206 response without a valid Content-Range",
                                 r->display);
        if (c.total != r->size)
            return changed_error(r, &s->err);
        if (c.first != s->off || c.last != s->off + s->len - 1)
            return pt2_error_set(&s->err, PT2_ERR_REMOTE_UNREACHABLE,
                                 SHOWN ": the server sent bytes %llu-%llu for a request for "
                                       "%llu-%llu",
                                 r->display, (unsigned long long)c.first,
                                 (unsigned long long)c.last, (unsigned long long)s->off,
                                 (unsigned long long)(s->off + s->len - 1));
        s->mode = BODY_RANGE;
    }
    return PT2_OK;
}

static size_t on_body(char *p, size_t size, size_t nmemb, void *ud)
{
    struct slot *s = ud;
    pt2_remote *r = s->r;
    size_t n = size * nmemb, room;

    if (s->mode == BODY_UNSET && body_begin(r, s) != PT2_OK)
        return 0;
    r->bytes += n;
    if (s->mode != BODY_SPOOL) {
        r->budget += n;
        if (r->budget > r->max_bytes) {
            too_large_error(r, &s->err);
            return 0;
        }
    }
    switch (s->mode) {
    case BODY_RANGE:
        if (n > s->len - s->got) {
            pt2_error_set(&s->err, PT2_ERR_REMOTE_UNREACHABLE,
                          SHOWN ": the server sent more than the %llu bytes asked for", r->display,
                          (unsigned long long)s->len);
            return 0;
        }
        memcpy(s->dst + s->got, p, n);
        s->got += n;
        return n;
    case BODY_FIRST:
        room = s->cap - s->got;
        if (n > room) {
            if (!s->keep_partial) {
                pt2_error_set(&s->err, PT2_ERR_REMOTE_UNREACHABLE,
                              SHOWN ": the server sent more than its Content-Range says",
                              r->display);
                return 0;
            }
            /* enough of a long answer: the source asks for the rest when it needs it */
            memcpy(r->first_buf + s->got, p, room);
            s->got += room;
            s->stopped = 1;
            return 0;
        }
        memcpy(r->first_buf + s->got, p, n);
        s->got += n;
        return n;
    case BODY_SPOOL:
        if (n > r->max_download - r->spooled) {
            no_range_error(r, &s->err);
            return 0;
        }
        if (spool_write(r, p, n, &s->err) != PT2_OK)
            return 0;
        r->spooled += n;
        return n;
    default:
        room = ERRBODY_MAX - s->errbody_len;
        room = n < room ? n : room;
        memcpy(s->errbody + s->errbody_len, p, room);
        s->errbody_len += room;
        s->errbody[s->errbody_len] = '\0';
        s->other += n;
        if (s->other > DISCARD_MAX) {
            s->stopped = 1; /* the status says what went wrong; the rest is not needed */
            return 0;
        }
        return n;
    }
}

static curl_socket_t on_socket(void *ud, curlsocktype purpose, struct curl_sockaddr *a)
{
    struct slot *s = ud;
    int cls = pt2_remote_addr_class(&a->addr, a->addrlen);

    if (!s->trusted && cls != PT2_REMOTE_ADDR_PUBLIC) {
        if (getnameinfo(&a->addr, a->addrlen, s->refused, sizeof(s->refused), NULL, 0,
                        NI_NUMERICHOST) != 0)
            snprintf(s->refused, sizeof(s->refused), "?");
        s->refused_cls = cls;
        return CURL_SOCKET_BAD;
    }
    return socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
}

/* ---- slots ------------------------------------------------------------------ */

static void slot_release(pt2_remote *r, struct slot *s)
{
    if (s->busy)
        curl_multi_remove_handle(r->multi, s->h);
    s->busy = 0;
    s->done = 0;
    curl_slist_free_all(s->headers);
    s->headers = NULL;
    curl_slist_free_all(s->pin_own);
    s->pin_own = NULL;
    s->pin = NULL;
}

static int add_header(struct curl_slist **list, const char *line)
{
    struct curl_slist *l = curl_slist_append(*list, line);

    if (l == NULL)
        return PT2_ERR_NOMEM;
    *list = l;
    return PT2_OK;
}

/* The request headers: the validator on later requests, the signature's own. */
static int slot_headers(pt2_remote *r, struct slot *s)
{
    char line[DATE_MAX + ETAG_MAX + 32];
    int rc = PT2_OK;

    if (!s->first && r->etag_strong) {
        snprintf(line, sizeof(line), "If-Match: %s", r->etag);
        rc = add_header(&s->headers, line);
    } else if (!s->first && r->last_modified[0] != '\0') {
        snprintf(line, sizeof(line), "If-Unmodified-Since: %s", r->last_modified);
        rc = add_header(&s->headers, line);
    }
    /*
     * S3 wants x-amz-content-sha256 on every signed request; libcurl 7.88
     * does not add it for a GET, but signs it (and takes its value as the
     * payload hash) when it is given. Later versions add it only when absent.
     */
    if (rc == PT2_OK && s->sign)
        rc = add_header(&s->headers, "x-amz-content-sha256: UNSIGNED-PAYLOAD");
    if (rc == PT2_OK && s->sign && r->token_header != NULL)
        rc = add_header(&s->headers, r->token_header);
    return rc;
}

static int slot_start(pt2_remote *r, struct slot *s, int kind, struct pt2_error *err)
{
    int64_t left = r->deadline_ms - now_ms();
    long ct;
    int rc;

    memset(&s->resp, 0, sizeof(s->resp));
    memset(&s->err, 0, sizeof(s->err));
    s->mode = BODY_UNSET;
    s->got = 0;
    s->cap = 0;
    s->keep_partial = 0;
    s->stopped = 0;
    s->other = 0;
    s->errbody_len = 0;
    s->errbody[0] = '\0';
    s->refused[0] = '\0';
    s->errbuf[0] = '\0';
    s->rc = CURLE_OK;
    if (left <= 0)
        return timeout_error(r, err);
    rc = hop_prepare(r, s, kind, err);
    if (rc != PT2_OK)
        return rc;
    left = r->deadline_ms - now_ms(); /* the lookup took its time */
    if (left <= 0)
        return timeout_error(r, err);
    if (slot_headers(r, s) != PT2_OK)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    if (s->first)
        snprintf(s->range, sizeof(s->range), "-%u", PT2_REMOTE_SUFFIX_BYTES);
    else
        snprintf(s->range, sizeof(s->range), "%llu-%llu", (unsigned long long)s->off,
                 (unsigned long long)(s->off + s->len - 1));
    if (s->h == NULL && (s->h = curl_easy_init()) == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    curl_easy_reset(s->h);
    ct = r->connect_ms < left ? r->connect_ms : (long)left;
    if (curl_easy_setopt(s->h, CURLOPT_URL, s->url) != CURLE_OK ||
        curl_easy_setopt(s->h, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK ||
        curl_easy_setopt(s->h, CURLOPT_FOLLOWLOCATION, 0L) != CURLE_OK ||
        curl_easy_setopt(s->h, CURLOPT_RANGE, s->range) != CURLE_OK ||
        curl_easy_setopt(s->h, CURLOPT_HTTPHEADER, s->headers) != CURLE_OK ||
        curl_easy_setopt(s->h, CURLOPT_NOSIGNAL, 1L) != CURLE_OK ||
        curl_easy_setopt(s->h, CURLOPT_TIMEOUT_MS, (long)left) != CURLE_OK ||
        curl_easy_setopt(s->h, CURLOPT_CONNECTTIMEOUT_MS, ct) != CURLE_OK ||
        curl_easy_setopt(s->h, CURLOPT_USERAGENT, "pt2scope/" PT2SCOPE_VERSION) != CURLE_OK ||
        curl_easy_setopt(s->h, CURLOPT_HEADERFUNCTION, on_header) != CURLE_OK ||
        curl_easy_setopt(s->h, CURLOPT_HEADERDATA, s) != CURLE_OK ||
        curl_easy_setopt(s->h, CURLOPT_WRITEFUNCTION, on_body) != CURLE_OK ||
        curl_easy_setopt(s->h, CURLOPT_WRITEDATA, s) != CURLE_OK ||
        curl_easy_setopt(s->h, CURLOPT_ERRORBUFFER, s->errbuf) != CURLE_OK ||
        curl_easy_setopt(s->h, CURLOPT_PRIVATE, s) != CURLE_OK)
        return pt2_error_set(err, PT2_ERR_INTERNAL, "libcurl refused a transfer option");
    if (r->opts.restricted &&
        (curl_easy_setopt(s->h, CURLOPT_PROXY, "") != CURLE_OK ||
         curl_easy_setopt(s->h, CURLOPT_RESOLVE, s->pin) != CURLE_OK ||
         curl_easy_setopt(s->h, CURLOPT_OPENSOCKETFUNCTION, on_socket) != CURLE_OK ||
         curl_easy_setopt(s->h, CURLOPT_OPENSOCKETDATA, s) != CURLE_OK))
        return pt2_error_set(err, PT2_ERR_INTERNAL, "libcurl refused a transfer option");
    if (r->opts.share != NULL &&
        curl_easy_setopt(s->h, CURLOPT_SHARE, (CURLSH *)r->opts.share) != CURLE_OK)
        return pt2_error_set(err, PT2_ERR_INTERNAL, "libcurl refused a transfer option");
    if (s->sign && (curl_easy_setopt(s->h, CURLOPT_AWS_SIGV4, r->sigv4) != CURLE_OK ||
                    curl_easy_setopt(s->h, CURLOPT_USERNAME, r->key_id) != CURLE_OK ||
                    curl_easy_setopt(s->h, CURLOPT_PASSWORD, r->secret) != CURLE_OK))
        return pt2_error_set(err, PT2_ERR_INTERNAL, "this libcurl cannot sign S3 requests");
    if (curl_multi_add_handle(r->multi, s->h) != CURLM_OK)
        return pt2_error_set(err, PT2_ERR_INTERNAL, "libcurl refused a transfer");
    s->busy = 1;
    r->requests++;
    return PT2_OK;
}

static void keep_validator(pt2_remote *r, const struct resp *rs)
{
    memcpy(r->etag, rs->etag, sizeof(r->etag));
    memcpy(r->last_modified, rs->last_modified, sizeof(r->last_modified));
    r->etag_strong = r->etag[0] != '\0' && strncmp(r->etag, "W/", 2) != 0;
    if (r->etag[0] != '\0')
        snprintf(r->validator, sizeof(r->validator), "%s", r->etag);
    else if (r->last_modified[0] != '\0')
        snprintf(r->validator, sizeof(r->validator), "Last-Modified: %s", r->last_modified);
    /* shown in JSON: a header may carry any byte above 0x7f */
    pt2_utf8_scrub(r->validator, strlen(r->validator));
}

static const struct pt2_source_ops remote_ops;

/* The first request's final answer: the size, the validator and the source. */
static int first_done(pt2_remote *r, struct slot *s, struct pt2_error *err)
{
    const struct resp *rs = &s->resp;
    struct pt2_remote_crange c;
    int rc, cr;

    memset(&c, 0, sizeof(c));
    cr = pt2_remote_content_range(rs->content_range, strlen(rs->content_range), &c);

    if (rs->status == 206) {
        uint64_t want = c.last - c.first + 1; /* body_begin checked the Content-Range */

        if (s->stopped ? s->got != s->cap : s->got != want)
            return pt2_error_set(err, PT2_ERR_REMOTE_UNREACHABLE,
                                 SHOWN ": the response ended before its Content-Range did",
                                 r->display);
        if (c.total > (uint64_t)INT64_MAX)
            return pt2_error_set(err, PT2_ERR_REMOTE_UNREACHABLE,
                                 SHOWN ": the server reports an object of %llu bytes", r->display,
                                 (unsigned long long)c.total);
        r->size = c.total;
        rc = pt2_source_new(&r->src, &remote_ops, r, r->size, NULL, err);
        if (rc == PT2_OK)
            rc = pt2_source_seed(r->src, c.first, r->first_buf, s->got, err);
    } else if (rs->status == 200) {
        if (rs->has_length && r->spooled != rs->length)
            return pt2_error_set(err, PT2_ERR_REMOTE_UNREACHABLE,
                                 SHOWN ": the response ended before its Content-Length did",
                                 r->display);
        r->size = r->spooled;
        r->downloaded = 1;
        rc = pt2_source_new_fd(&r->src, r->fd, NULL, err);
    } else if (rs->status == 416) {
        /* a suffix of an empty object cannot be satisfied: empty when the server says so */
        if (rs->content_range[0] == '\0' || cr != PT2_OK || !c.unsatisfied || c.total != 0)
            return pt2_error_set(err, PT2_ERR_REMOTE_UNREACHABLE,
                                 SHOWN ": the server refused a suffix Range of an object it "
                                       "says is not empty (HTTP 416)",
                                 r->display);
        r->size = 0;
        rc = pt2_source_new(&r->src, &remote_ops, r, 0, NULL, err);
    } else {
        return status_error(r, s, err);
    }
    if (rc != PT2_OK)
        return rc;
    keep_validator(r, rs);
    /* later requests go where the redirects ended, to the addresses checked there */
    memcpy(r->url, s->url, sizeof(r->url));
    r->url_trusted = s->trusted;
    r->pin = s->pin_own;
    s->pin_own = NULL;
    free(r->first_buf);
    r->first_buf = NULL;
    return PT2_OK;
}

static int range_done(pt2_remote *r, struct slot *s, struct pt2_error *err)
{
    const struct resp *rs = &s->resp;

    if (rs->status == 200 || rs->status == 412 || rs->status == 416)
        return changed_error(r, err);
    if (rs->status != 206)
        return status_error(r, s, err);
    /* body_begin checked the Content-Range against the request and the size */
    if (rs->etag[0] != '\0' && strcmp(rs->etag, r->etag) != 0)
        return changed_error(r, err);
    if (r->etag[0] == '\0' && r->last_modified[0] != '\0' && rs->last_modified[0] != '\0' &&
        strcmp(rs->last_modified, r->last_modified) != 0)
        return changed_error(r, err);
    if (s->got != s->len)
        return pt2_error_set(err, PT2_ERR_REMOTE_UNREACHABLE,
                             SHOWN ": a Range response ended after %zu of %llu bytes", r->display,
                             s->got, (unsigned long long)s->len);
    return PT2_OK;
}

static int is_redirect(long st)
{
    return st == 301 || st == 302 || st == 303 || st == 307 || st == 308;
}

/* A finished transfer: PT2_OK (done), FOLLOWED (restarted on the next hop) or an error. */
static int slot_finish(pt2_remote *r, struct slot *s, struct pt2_error *err)
{
    char next[PT2_REMOTE_URL_MAX + 1];
    long st = 0;
    int rc;

    curl_multi_remove_handle(r->multi, s->h);
    s->busy = 0;
    s->done = 0;
    curl_slist_free_all(s->headers);
    s->headers = NULL;
    if (s->err.code != PT2_OK)
        return pt2_error_copy(err, &s->err);
    if (s->rc != CURLE_OK && !(s->rc == CURLE_WRITE_ERROR && s->stopped))
        return curl_failure(r, s, err);
    curl_easy_getinfo(s->h, CURLINFO_RESPONSE_CODE, &st);
    s->resp.status = st;
    if (s->resp.bad != NULL)
        return pt2_error_set(err, PT2_ERR_REMOTE_UNREACHABLE,
                             SHOWN ": the server sent an over-long or malformed %s header",
                             r->display, s->resp.bad);
    if (is_redirect(st)) {
        if (s->resp.location[0] == '\0')
            return pt2_error_set(err, PT2_ERR_REMOTE_UNREACHABLE,
                                 SHOWN ": HTTP %ld without a Location", r->display, st);
        if (s->hops >= PT2_REMOTE_REDIRECTS_MAX)
            return pt2_error_set(err, PT2_ERR_REMOTE_UNREACHABLE, SHOWN ": more than %d redirects",
                                 r->display, PT2_REMOTE_REDIRECTS_MAX);
        if (pt2_remote_url_resolve(s->url, s->resp.location, next, sizeof(next)) != PT2_OK)
            return pt2_error_set(err, PT2_ERR_REMOTE_UNREACHABLE,
                                 SHOWN ": redirected to an invalid URL", r->display);
        memcpy(s->url, next, sizeof(s->url));
        s->hops++;
        curl_slist_free_all(s->pin_own);
        s->pin_own = NULL;
        rc = slot_start(r, s, HOP_REDIRECT, err);
        return rc == PT2_OK ? FOLLOWED : rc;
    }
    /* a body-less answer never reached on_body */
    if (s->mode == BODY_UNSET && body_begin(r, s) != PT2_OK)
        return pt2_error_copy(err, &s->err);
    return s->first ? first_done(r, s, err) : range_done(r, s, err);
}

/* Drive the transfers one step; marks the slots that finished. */
static int pump(pt2_remote *r, struct pt2_error *err)
{
    int running = 0, left, finished = 0;
    CURLMsg *m;

    if (curl_multi_perform(r->multi, &running) != CURLM_OK)
        return pt2_error_set(err, PT2_ERR_INTERNAL, "libcurl failed to run transfers");
    while ((m = curl_multi_info_read(r->multi, &left)) != NULL) {
        struct slot *s = NULL;

        if (m->msg != CURLMSG_DONE)
            continue;
        curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&s);
        s->rc = m->data.result;
        s->done = 1;
        finished++;
    }
    if (finished == 0 && running > 0 &&
        curl_multi_poll(r->multi, NULL, 0, POLL_MS, NULL) != CURLM_OK)
        return pt2_error_set(err, PT2_ERR_INTERNAL, "libcurl failed to wait for transfers");
    return PT2_OK;
}

/*
 * Run the first request (first = 1, n = 1) or n ranges into bufs, at most
 * SLOTS_MAX at a time; the first failure stops the rest.
 */
static int run_slots(pt2_remote *r, int first, const struct pt2_range *ranges, void *const *bufs,
                     size_t n, struct pt2_error *err)
{
    size_t next = 0, i, busy;
    unsigned hops = 0;
    int rc = PT2_OK;

    r->trips++;
    while (rc == PT2_OK) {
        for (i = 0; i < SLOTS_MAX && next < n && rc == PT2_OK; i++) {
            struct slot *s = &r->slots[i];

            if (s->busy)
                continue;
            s->first = first;
            s->off = first ? 0 : ranges[next].off;
            s->len = first ? 0 : ranges[next].len;
            s->dst = first ? NULL : bufs[next];
            s->hops = 0;
            next++;
            if (!first && s->len == 0)
                continue;
            memcpy(s->url, r->url, sizeof(s->url));
            rc = slot_start(r, s, !first ? HOP_KNOWN : r->s3 ? HOP_MAPPED : HOP_FIRST, err);
        }
        for (i = 0, busy = 0; i < SLOTS_MAX; i++)
            busy += r->slots[i].busy;
        if (rc != PT2_OK || busy == 0)
            break;
        rc = pump(r, err);
        for (i = 0; i < SLOTS_MAX && rc == PT2_OK; i++)
            if (r->slots[i].done) {
                int f = slot_finish(r, &r->slots[i], err);

                if (f == FOLLOWED && r->slots[i].hops > hops)
                    hops = r->slots[i].hops; /* a redirect is one more trip in sequence */
                rc = f == FOLLOWED ? PT2_OK : f;
            }
        /* each request has the time left as its timeout; this is the loop's own guard */
        if (rc == PT2_OK && now_ms() > r->deadline_ms + LOOP_SLACK_MS)
            rc = timeout_error(r, err);
    }
    for (i = 0; i < SLOTS_MAX; i++)
        slot_release(r, &r->slots[i]);
    r->trips += hops;
    /* more ranges than slots went in waves */
    if (n > SLOTS_MAX)
        r->trips += (n - 1) / SLOTS_MAX;
    return rc;
}

/* ---- the source's backend ------------------------------------------------------- */

static int fetch(pt2_remote *r, const struct pt2_range *ranges, void *const *bufs, size_t n,
                 struct pt2_error *err)
{
    uint64_t total = 0;
    size_t i;

    for (i = 0; i < n; i++) {
        if (ranges[i].len > r->size || ranges[i].off > r->size - ranges[i].len)
            return pt2_error_set(err, PT2_ERR_INTERNAL, "a read past the end of the object");
        /* refused before it is sent: the answer would only be thrown away */
        if (r->budget > r->max_bytes || ranges[i].len > r->max_bytes - r->budget - total)
            return too_large_error(r, err);
        total += ranges[i].len;
    }
    return run_slots(r, 0, ranges, bufs, n, err);
}

static int remote_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got,
                          struct pt2_error *err)
{
    pt2_remote *r = ctx;
    struct pt2_range rg;
    void *bufs[1];
    int rc;

    *got = 0;
    if (off >= r->size || len == 0)
        return PT2_OK;
    if (len > r->size - off)
        len = (size_t)(r->size - off);
    rg.off = off;
    rg.len = len;
    bufs[0] = buf;
    rc = fetch(r, &rg, bufs, 1, err);
    if (rc == PT2_OK)
        *got = len;
    return rc;
}

static int remote_read_many(void *ctx, const struct pt2_range *ranges, void *const *bufs, size_t n,
                            struct pt2_error *err)
{
    return fetch(ctx, ranges, bufs, n, err);
}

static const struct pt2_source_ops remote_ops = {.read_at = remote_read_at,
                                                 .read_many = remote_read_many};

/* ---- life ----------------------------------------------------------------------- */

/* A header value from the environment: printable ASCII only (no header injection). */
static int env_value_ok(const char *v)
{
    for (; *v != '\0'; v++)
        if ((unsigned char)*v <= 0x20 || (unsigned char)*v >= 0x7f)
            return 0;
    return 1;
}

static void free_secret(char *s)
{
    if (s != NULL)
        explicit_bzero(s, strlen(s));
    free(s);
}

void pt2_remote_cred_clear(struct pt2_remote_cred *c)
{
    free(c->key_id);
    free_secret(c->secret);
    free_secret(c->token_header);
    memset(c, 0, sizeof(*c));
}

int pt2_remote_cred_load(struct pt2_remote_cred *c, struct pt2_error *err)
{
    const char *id = getenv("AWS_ACCESS_KEY_ID"), *secret = getenv("AWS_SECRET_ACCESS_KEY");
    const char *token = getenv("AWS_SESSION_TOKEN");
    int has_token = token != NULL && token[0] != '\0';

    memset(c, 0, sizeof(*c));
    if (id == NULL || id[0] == '\0' || secret == NULL || secret[0] == '\0')
        return PT2_OK; /* no keys: unsigned requests (public objects) */
    if (!env_value_ok(id) || !env_value_ok(secret) || (has_token && !env_value_ok(token)))
        return pt2_error_set(err, PT2_ERR_INVALID,
                             "AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY or AWS_SESSION_TOKEN has "
                             "bytes a request header cannot carry");
    c->key_id = strdup(id);
    c->secret = strdup(secret);
    if (has_token) {
        size_t n = strlen(token) + sizeof("x-amz-security-token: ");

        c->token_header = malloc(n);
        if (c->token_header != NULL)
            snprintf(c->token_header, n, "x-amz-security-token: %s", token);
    }
    if (c->key_id == NULL || c->secret == NULL || (has_token && c->token_header == NULL))
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    c->sign = 1;
    return PT2_OK;
}

static int setup_s3(pt2_remote *r, const char *url, struct pt2_error *err)
{
    struct pt2_remote_s3_env env;
    struct pt2_remote_s3 *m;
    struct pt2_remote_cred c;
    int rc;

    m = malloc(sizeof(*m));
    if (m == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    pt2_remote_s3_env_get(&env);
    rc = pt2_remote_s3_map(url, &env, m, err);
    if (rc != PT2_OK)
        goto cleanup;
    r->s3 = 1;
    r->s3_endpoint = m->endpoint;
    memcpy(r->url, m->url, sizeof(r->url));
    memcpy(r->s3_host, m->host, sizeof(r->s3_host));
    r->s3_port = m->port;
    snprintf(r->sigv4, sizeof(r->sigv4), "aws:amz:%s:s3", m->region);
    rc = pt2_remote_cred_load(&c, err);
    /* the remote owns them from here (pt2_remote_free wipes them) */
    r->key_id = c.key_id;
    r->secret = c.secret;
    r->token_header = c.token_header;
    r->sign = rc == PT2_OK && c.sign;
cleanup:
    free(m);
    return rc;
}

static int setup(pt2_remote *r, const char *url, const struct pt2_remote_opts *o,
                 struct pt2_error *err)
{
    const char *tmp = getenv("TMPDIR");
    size_t i;

    r->opts = *o;
    r->opts.allow = NULL;
    if (o->restricted && o->allow != NULL && o->n_allow > 0) {
        r->allow = calloc(o->n_allow, sizeof(*r->allow));
        if (r->allow == NULL)
            return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
        r->opts.allow = (const char *const *)r->allow;
        for (i = 0; i < o->n_allow; i++)
            if (o->allow[i] != NULL && (r->allow[i] = strdup(o->allow[i])) == NULL)
                return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    } else {
        r->opts.n_allow = 0;
    }
    r->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : PT2_REMOTE_TIMEOUT_DEFAULT_MS;
    r->connect_ms = o->connect_timeout_ms > 0 ? o->connect_timeout_ms : CONNECT_DEFAULT_MS;
    if (r->connect_ms > r->timeout_ms)
        r->connect_ms = r->timeout_ms;
    r->max_download = o->max_download > 0 ? o->max_download : PT2_REMOTE_MAX_DOWNLOAD_DEFAULT;
    r->max_bytes = o->max_bytes > 0 ? o->max_bytes : PT2_REMOTE_MAX_BYTES_DEFAULT;
    r->spool_dir = strdup(o->spool_dir != NULL && o->spool_dir[0] != '\0' ? o->spool_dir
                          : tmp != NULL && tmp[0] != '\0'                 ? tmp
                                                                          : "/tmp");
    if (r->spool_dir == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    r->deadline_ms = now_ms() + r->timeout_ms;
    if (pt2_remote_url_display(url, r->display, sizeof(r->display)) != PT2_OK)
        return pt2_error_set(err, PT2_ERR_INVALID, "not a valid URL");
    pt2_remote_url_name(r->display, r->name, sizeof(r->name));
    if (pt2_remote_url_scheme(url) == PT2_REMOTE_SCHEME_S3) {
        int rc = setup_s3(r, url, err);

        if (rc != PT2_OK)
            return rc;
    } else {
        snprintf(r->url, sizeof(r->url), "%s", url);
    }
    for (i = 0; i < SLOTS_MAX; i++)
        r->slots[i].r = r;
    r->own_multi = o->multi == NULL;
    r->multi = o->multi != NULL ? (CURLM *)o->multi : curl_multi_init();
    if (r->multi == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    return PT2_OK;
}

int pt2_remote_open(pt2_remote **out, const char *url, const struct pt2_remote_opts *opts,
                    struct pt2_error *err)
{
    static const struct pt2_remote_opts defaults;
    pt2_remote *r = NULL;
    int rc;

    if (out == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "no place for the remote object");
    *out = NULL;
    if (opts == NULL)
        opts = &defaults;
    rc = pt2_remote_check_url(url, opts, err);
    if (rc != PT2_OK)
        return rc;
    r = calloc(1, sizeof(*r));
    if (r == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    r->fd = -1;
    rc = setup(r, url, opts, err);
    if (rc == PT2_OK)
        rc = run_slots(r, 1, NULL, NULL, 1, err);
    if (rc != PT2_OK) {
        pt2_remote_free(r);
        return rc;
    }
    *out = r;
    return PT2_OK;
}

void pt2_remote_free(pt2_remote *r)
{
    size_t i;

    if (r == NULL)
        return;
    pt2_source_free(r->src);
    for (i = 0; i < SLOTS_MAX; i++) {
        slot_release(r, &r->slots[i]);
        if (r->slots[i].h != NULL)
            curl_easy_cleanup(r->slots[i].h);
    }
    if (r->multi != NULL && r->own_multi)
        curl_multi_cleanup(r->multi);
    curl_slist_free_all(r->pin);
    if (r->fd >= 0)
        close(r->fd);
    free(r->first_buf);
    for (i = 0; r->allow != NULL && i < r->opts.n_allow; i++)
        free(r->allow[i]);
    free(r->allow);
    free(r->key_id);
    free_secret(r->secret);
    free_secret(r->token_header);
    free(r->spool_dir);
    free(r);
}

/* ---- accessors ---------------------------------------------------------------------- */

pt2_source *pt2_remote_source(pt2_remote *r)
{
    return r->src;
}

const char *pt2_remote_display_url(const pt2_remote *r)
{
    return r->display;
}

const char *pt2_remote_name(const pt2_remote *r)
{
    return r->name;
}

const char *pt2_remote_validator(const pt2_remote *r)
{
    return r->validator;
}

uint64_t pt2_remote_size(const pt2_remote *r)
{
    return r->size;
}

uint64_t pt2_remote_requests(const pt2_remote *r)
{
    return r->requests;
}

uint64_t pt2_remote_bytes(const pt2_remote *r)
{
    return r->bytes;
}

int pt2_remote_downloaded(const pt2_remote *r)
{
    return r->downloaded;
}

int pt2_remote_shown_url(const char *url, char *out, size_t len)
{
    return pt2_remote_url_display(url, out, len);
}

cJSON *pt2_remote_source_json(const pt2_remote *r)
{
    cJSON *o = cJSON_CreateObject();

    if (o == NULL)
        return NULL;
    if (cJSON_AddStringToObject(o, "url", r->display) == NULL ||
        (r->validator[0] != '\0' ? cJSON_AddStringToObject(o, "validator", r->validator)
                                 : cJSON_AddNullToObject(o, "validator")) == NULL ||
        cJSON_AddNumberToObject(o, "requests", (double)r->requests) == NULL ||
        cJSON_AddNumberToObject(o, "round_trips", (double)r->trips) == NULL ||
        cJSON_AddNumberToObject(o, "bytes_transferred", (double)r->bytes) == NULL ||
        cJSON_AddBoolToObject(o, "range_requests", !r->downloaded) == NULL) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}
