/*
 * pt2_remote_list.c - ListObjectsV2 pages, shards and PUT (pt2_remote_list.h).
 *
 * Design: both a listing and an upload are one signed request to the S3
 * host, made by s3_call() with the rules an inspection's first hop obeys
 * (pt2_remote_int.h for the keys and the address pin); the XML of a page is
 * read by s3_tag(), which finds an element's text between two offsets and
 * decodes XML's five entities and character references, nothing more: S3
 * answers are machine-written and anything this does not understand is
 * skipped, never guessed at.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "pt2_remote.h"
#include "pt2_remote_int.h"
#include "pt2_remote_list.h"
#include "pt2_remote_url.h"
#include "pt2scope.h"

#define CONNECT_DEFAULT_MS 10000L
#define ERRBODY_MAX 4096
#define CODE_MAX 64
#define QUERY_MAX (3 * (PT2_REMOTE_LIST_TOKEN_MAX + PT2_REMOTE_URL_MAX) + 128)
#define SHOWN "%.300s"

/* One request: where, what is sent, what came back. */
struct s3_call {
    const char *display;                      /* the s3:// URL, for messages */
    char url[PT2_REMOTE_URL_MAX + QUERY_MAX]; /* the HTTP URL with its query */
    struct pt2_remote_s3 m;                   /* the mapping (host, region, endpoint) */
    int put_fd;                               /* PUT: the body's source; -1 for a GET */
    uint64_t put_len, put_sent;
    char *body; /* GET: the answer (capped at body_cap); error bodies always */
    size_t body_len, body_cap;
    int over; /* the answer was longer than body_cap */
    int read_failed;
    long status;
};

int pt2_remote_is_prefix(const char *url)
{
    return pt2_remote_url_is_prefix(url);
}

unsigned pt2_remote_shard(const char *key, unsigned n)
{
    uint64_t h = 14695981039346656037ull; /* FNV-1a 64: offset basis, then xor and multiply */

    for (const unsigned char *p = (const unsigned char *)key; *p != '\0'; p++) {
        h ^= *p;
        h *= 1099511628211ull;
    }
    return n > 1 ? (unsigned)(h % n) : 0;
}

/* ---- the request ------------------------------------------------------------- */

static size_t on_body(char *p, size_t size, size_t nmemb, void *ud)
{
    struct s3_call *c = ud;
    size_t n = size * nmemb;

    if (n > c->body_cap - c->body_len) {
        c->over = 1;
        return 0; /* stops the transfer: the cap says why */
    }
    memcpy(c->body + c->body_len, p, n);
    c->body_len += n;
    c->body[c->body_len] = '\0';
    return n;
}

static size_t on_read(char *p, size_t size, size_t nmemb, void *ud)
{
    struct s3_call *c = ud;
    size_t want = size * nmemb;
    ssize_t got;

    if (want > c->put_len - c->put_sent)
        want = (size_t)(c->put_len - c->put_sent);
    if (want == 0)
        return 0;
    do
        got = read(c->put_fd, p, want);
    while (got < 0 && errno == EINTR);
    if (got <= 0) {
        c->read_failed = 1;
        return CURL_READFUNC_ABORT;
    }
    c->put_sent += (uint64_t)got;
    return (size_t)got;
}

/* S3's <Code> in an error body ("SignatureDoesNotMatch"), or "". */
static void s3_error_code(const char *body, char *out, size_t len)
{
    const char *p = body != NULL ? strstr(body, "<Code>") : NULL, *e;
    size_t n;

    out[0] = '\0';
    if (p == NULL || (e = strstr(p + 6, "</Code>")) == NULL)
        return;
    n = (size_t)(e - p - 6);
    if (n == 0 || n >= len)
        return;
    for (size_t i = 0; i < n; i++)
        if (!((p[6 + i] >= 'a' && p[6 + i] <= 'z') || (p[6 + i] >= 'A' && p[6 + i] <= 'Z') ||
              (p[6 + i] >= '0' && p[6 + i] <= '9')))
            return;
    memcpy(out, p + 6, n);
    out[n] = '\0';
}

static int call_status(const struct s3_call *c, struct pt2_error *err)
{
    char code[CODE_MAX];
    const char *sep;

    if (c->status == 200)
        return PT2_OK;
    s3_error_code(c->body, code, sizeof(code));
    sep = code[0] != '\0' ? ", " : "";
    if (c->status == 404 || strcmp(code, "NoSuchBucket") == 0)
        return pt2_error_set(err, PT2_ERR_NOT_FOUND, SHOWN ": not found (HTTP %ld%s%s)", c->display,
                             c->status, sep, code);
    return pt2_error_set(err, PT2_ERR_REMOTE_UNREACHABLE,
                         SHOWN ": the server answered HTTP %ld%s%s", c->display, c->status, sep,
                         code);
}

static int call_failure(const struct s3_call *c, CURLcode rc, const char *errbuf, long timeout_ms,
                        struct pt2_error *err)
{
    if (c->over && c->put_fd < 0)
        return pt2_error_set(err, PT2_ERR_TOO_LARGE,
                             SHOWN ": the listing page is larger than %u bytes", c->display,
                             PT2_REMOTE_LIST_BODY_MAX);
    if (c->read_failed)
        return pt2_error_set(err, PT2_ERR_IO, SHOWN ": cannot read what is to be uploaded",
                             c->display);
    if (rc == CURLE_OPERATION_TIMEDOUT)
        return pt2_error_set(err, PT2_ERR_REMOTE_TIMEOUT,
                             SHOWN ": no complete answer within %ld ms (the remote timeout)",
                             c->display, timeout_ms);
    return pt2_error_set(err, PT2_ERR_REMOTE_UNREACHABLE, SHOWN ": %s", c->display,
                         errbuf[0] != '\0' ? errbuf : curl_easy_strerror(rc));
}

static int add_header(struct curl_slist **list, const char *line)
{
    struct curl_slist *l = curl_slist_append(*list, line);

    if (l == NULL)
        return PT2_ERR_NOMEM;
    *list = l;
    return PT2_OK;
}

/* The request's options: the same transfer rules as an inspection's (pt2_remote.c). */
static int call_setup(CURL *h, struct s3_call *c, const struct pt2_remote_opts *o,
                      const struct pt2_remote_cred *cred, struct curl_slist *headers,
                      struct curl_slist *pin, char *sigv4, char *errbuf)
{
    long timeout = o->timeout_ms > 0 ? o->timeout_ms : PT2_REMOTE_TIMEOUT_DEFAULT_MS;
    long ct = o->connect_timeout_ms > 0 ? o->connect_timeout_ms : CONNECT_DEFAULT_MS;
    int bad = 0;

    bad |= curl_easy_setopt(h, CURLOPT_URL, c->url) != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L) != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L) != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout) != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, ct < timeout ? ct : timeout) != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_USERAGENT, "pt2scope/" PT2SCOPE_VERSION) != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers) != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body) != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_WRITEDATA, c) != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf) != CURLE_OK;
    if (o->share != NULL)
        bad |= curl_easy_setopt(h, CURLOPT_SHARE, (CURLSH *)o->share) != CURLE_OK;
    if (c->put_fd >= 0) {
        bad |= curl_easy_setopt(h, CURLOPT_UPLOAD, 1L) != CURLE_OK;
        bad |= curl_easy_setopt(h, CURLOPT_READFUNCTION, on_read) != CURLE_OK;
        bad |= curl_easy_setopt(h, CURLOPT_READDATA, c) != CURLE_OK;
        bad |= curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, (curl_off_t)c->put_len) != CURLE_OK;
    }
    if (o->restricted) {
        bad |= curl_easy_setopt(h, CURLOPT_PROXY, "") != CURLE_OK;
        bad |= curl_easy_setopt(h, CURLOPT_RESOLVE, pin) != CURLE_OK;
    }
    if (cred->sign) {
        snprintf(sigv4, PT2_REMOTE_REGION_MAX + 16, "aws:amz:%s:s3", c->m.region);
        bad |= curl_easy_setopt(h, CURLOPT_AWS_SIGV4, sigv4) != CURLE_OK;
        bad |= curl_easy_setopt(h, CURLOPT_USERNAME, cred->key_id) != CURLE_OK;
        bad |= curl_easy_setopt(h, CURLOPT_PASSWORD, cred->secret) != CURLE_OK;
    }
    return bad ? PT2_ERR_INTERNAL : PT2_OK;
}

/* The headers: the signature's own (pt2_remote.c says why). No "Expect:" to skip the
 * 100-continue wait: libcurl 7.88 signs the emptied header and S3 then refuses the signature. */
static int call_headers(const struct pt2_remote_cred *cred, int put, struct curl_slist **h)
{
    int rc = PT2_OK;

    if (cred->sign)
        rc = add_header(h, "x-amz-content-sha256: UNSIGNED-PAYLOAD");
    if (rc == PT2_OK && cred->sign && cred->token_header != NULL)
        rc = add_header(h, cred->token_header);
    if (rc == PT2_OK && put)
        rc = add_header(h, "Content-Type: application/x-ndjson");
    return rc;
}

/* Send c (c->url and c->m set), the host checked first in restricted mode; c->status set. */
static int s3_call(struct s3_call *c, const struct pt2_remote_opts *o, struct pt2_error *err)
{
    char errbuf[CURL_ERROR_SIZE] = "", sigv4[PT2_REMOTE_REGION_MAX + 16];
    long timeout = o->timeout_ms > 0 ? o->timeout_ms : PT2_REMOTE_TIMEOUT_DEFAULT_MS;
    struct pt2_remote_cred cred;
    struct curl_slist *headers = NULL, *pin = NULL;
    CURL *h = NULL;
    CURLcode cc;
    int rc;

    rc = pt2_remote_cred_load(&cred, err);
    /* the operator's endpoint is trusted like a literal allow entry (pt2_remote.h) */
    if (rc == PT2_OK && o->restricted && !c->m.endpoint)
        rc = pt2_remote_pin_host(c->display, c->m.host, c->m.port, pt2_remote_now_ms() + timeout,
                                 timeout, &pin, err);
    if (rc != PT2_OK)
        goto cleanup;
    if (call_headers(&cred, c->put_fd >= 0, &headers) != PT2_OK || (h = curl_easy_init()) == NULL) {
        rc = pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    if (call_setup(h, c, o, &cred, headers, pin, sigv4, errbuf) != PT2_OK) {
        rc = pt2_error_set(err, PT2_ERR_INTERNAL, "libcurl refused a transfer option");
        goto cleanup;
    }
    cc = curl_easy_perform(h);
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &c->status);
    if (cc != CURLE_OK && !(cc == CURLE_WRITE_ERROR && c->over && c->status != 200))
        rc = call_failure(c, cc, errbuf, timeout, err);
    else
        rc = call_status(c, err);
cleanup:
    curl_easy_cleanup(h);
    curl_slist_free_all(headers);
    curl_slist_free_all(pin);
    pt2_remote_cred_clear(&cred);
    return rc;
}

/* ---- the XML ------------------------------------------------------------------- */

/* Decode XML text (entities, character references) of n bytes into out; 0 or -1. */
static int xml_text(const char *p, size_t n, char *out, size_t cap)
{
    static const struct {
        const char *name;
        char c;
    } ents[] = {{"amp;", '&'}, {"lt;", '<'}, {"gt;", '>'}, {"quot;", '"'}, {"apos;", '\''}};
    size_t o = 0, i = 0;

    while (i < n) {
        char c = p[i++];

        if (c == '&') {
            size_t k, len;
            uint64_t v = 0;
            const char *semi = memchr(p + i, ';', n - i);

            if (semi == NULL)
                return -1;
            len = (size_t)(semi - (p + i)) + 1;
            for (k = 0; k < sizeof(ents) / sizeof(ents[0]); k++)
                if (len == strlen(ents[k].name) && memcmp(p + i, ents[k].name, len) == 0)
                    break;
            if (k < sizeof(ents) / sizeof(ents[0]))
                c = ents[k].c;
            else if (len > 2 && p[i] == '#' &&
                     (p[i + 1] == 'x' ? pt2_num_u64n(p + i + 2, len - 3, 16, &v)
                                      : pt2_num_u64n(p + i + 1, len - 2, 10, &v)) == PT2_OK &&
                     v > 0 && v < 0x80)
                c = (char)v; /* S3 escapes ASCII only; anything else is refused */
            else
                return -1;
            i += len;
        }
        if (o + 1 >= cap)
            return -1;
        out[o++] = c;
    }
    out[o] = '\0';
    return 0;
}

/* The text of the first <name>...</name> in [p, end), decoded into out: 0, or -1. */
static int s3_tag(const char *p, const char *end, const char *name, char *out, size_t cap)
{
    char open[40], close[40];
    const char *a, *b;
    size_t on, cn;

    snprintf(open, sizeof(open), "<%s>", name);
    snprintf(close, sizeof(close), "</%s>", name);
    on = strlen(open);
    cn = strlen(close);
    a = memmem(p, (size_t)(end - p), open, on);
    if (a == NULL)
        return -1;
    a += on;
    b = memmem(a, (size_t)(end - a), close, cn);
    if (b == NULL)
        return -1;
    return xml_text(a, (size_t)(b - a), out, cap);
}

/* Days from 1970-01-01 to y-m-d, proleptic Gregorian (m 1..12; eras of 400 years). */
static int64_t civil_days(int64_t y, unsigned m, unsigned d)
{
    int64_t era;
    unsigned yoe, doy;

    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = (unsigned)(y - era * 400);
    doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    return era * 146097 + (int64_t)(yoe * 365 + yoe / 4 - yoe / 100 + doy) - 719468;
}

/* `n` (at most 4) decimal digits at s as a number, or -1. */
static int digits(const char *s, size_t n)
{
    uint64_t v;

    return pt2_num_u64n(s, n, 10, &v) == PT2_OK ? (int)v : -1;
}

/*
 * S3's LastModified, "YYYY-MM-DDTHH:MM:SS[.fraction]Z" (UTC), as seconds since
 * the epoch. 0 for anything else, a date that does not exist, one before 1970
 * (no object store's) and one this time_t cannot hold included: the item then
 * says null rather than a time the listing did not give.
 */
static int s3_time(const char *s, int64_t *out)
{
    static const unsigned char mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    size_t n = strlen(s), z = 19;
    int y, mo, d, h, mi, sec;
    int64_t t;

    if (n < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':')
        return 0;
    y = digits(s, 4), mo = digits(s + 5, 2), d = digits(s + 8, 2);
    h = digits(s + 11, 2), mi = digits(s + 14, 2), sec = digits(s + 17, 2);
    if (s[z] == '.')
        for (z++; z < n && s[z] >= '0' && s[z] <= '9'; z++)
            ;
    /* digits() is -1 for a non-digit, which every lower bound below refuses */
    if (z != n - 1 || s[z] != 'Z' || s[z - 1] == '.' || y < 1970 || mo < 1 || mo > 12 || d < 1 ||
        d > mdays[mo - 1] || h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59)
        return 0;
    if (mo == 2 && d == 29 && !(y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)))
        return 0;
    t = civil_days(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 + sec;
    if ((int64_t)(time_t)t != t)
        return 0;
    *out = t;
    return 1;
}

struct pt2_listing_file pt2_remote_object_file(const struct pt2_remote_object *o, const char *name)
{
    struct pt2_listing_file f = {name, o->has_mtime, o->size, o->mtime};

    return f;
}

/* A wanted key, with what its <Contents> says of it (etag, size, mtime). */
static int page_add(struct pt2_remote_page *pg, size_t *cap, const char *bucket, const char *key,
                    const struct pt2_remote_object *listed)
{
    struct pt2_remote_object *o;
    size_t n = strlen(bucket) + strlen(key) + 7;

    if (pg->n == *cap) {
        size_t nc = *cap != 0 ? *cap * 2 : 64;
        struct pt2_remote_object *nv = realloc(pg->v, nc * sizeof(*nv));

        if (nv == NULL)
            return PT2_ERR_NOMEM;
        pg->v = nv;
        *cap = nc;
    }
    o = &pg->v[pg->n];
    memset(o, 0, sizeof(*o));
    o->url = malloc(n);
    if (o->url == NULL)
        return PT2_ERR_NOMEM;
    snprintf(o->url, n, "s3://%s/%s", bucket, key);
    o->key = o->url + 6 + strlen(bucket);
    snprintf(o->etag, sizeof(o->etag), "%s", listed->etag);
    o->size = listed->size;
    o->mtime = listed->mtime;
    o->has_mtime = listed->has_mtime;
    pg->n++;
    return PT2_OK;
}

/* A listed key worth inspecting: *.pt2 under the prefix, a URL this layer accepts. */
static int key_wanted(const char *bucket, const char *prefix, const char *key,
                      const struct pt2_remote_opts *opts)
{
    char url[PT2_REMOTE_URL_MAX + 1];
    struct pt2_error e = {0};
    size_t n = strlen(key);

    if (n <= 4 || strcmp(key + n - 4, ".pt2") != 0 || strncmp(key, prefix, strlen(prefix)) != 0)
        return 0;
    if ((size_t)snprintf(url, sizeof(url), "s3://%s/%s", bucket, key) >= sizeof(url))
        return 0;
    return pt2_remote_check_url(url, opts, &e) == PT2_OK;
}

/* Every <Contents> of the page's XML, then the continuation token. */
static int page_parse(const struct s3_call *c, const char *bucket, const char *prefix,
                      unsigned max_keys, const struct pt2_remote_opts *opts,
                      struct pt2_remote_page *pg, struct pt2_error *err)
{
    const char *p = c->body, *end = c->body + c->body_len, *e;
    char *k = NULL, size_text[32], when[40], trunc[8];
    struct pt2_remote_object lo;
    size_t cap = 0;
    int rc = PT2_OK;

    k = malloc(PT2_REMOTE_URL_MAX + 1);
    if (k == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    /* a store that answers more keys than asked is not believed past max_keys */
    while (rc == PT2_OK && pg->listed < max_keys &&
           (p = memmem(p, (size_t)(end - p), "<Contents>", 10)) != NULL) {
        e = memmem(p, (size_t)(end - p), "</Contents>", 11);
        if (e == NULL)
            break;
        pg->listed++;
        memset(&lo, 0, sizeof(lo));
        if (s3_tag(p, e, "Key", k, PT2_REMOTE_URL_MAX + 1) == 0 &&
            s3_tag(p, e, "Size", size_text, sizeof(size_text)) == 0 &&
            pt2_num_u64n(size_text, strlen(size_text), 10, &lo.size) == PT2_OK &&
            key_wanted(bucket, prefix, k, opts)) {
            if (s3_tag(p, e, "ETag", lo.etag, sizeof(lo.etag)) != 0)
                lo.etag[0] = '\0';
            pt2_utf8_scrub(lo.etag, strlen(lo.etag));
            lo.has_mtime =
                s3_tag(p, e, "LastModified", when, sizeof(when)) == 0 && s3_time(when, &lo.mtime);
            rc = page_add(pg, &cap, bucket, k, &lo);
        }
        p = e + 11;
    }
    free(k);
    if (rc != PT2_OK)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    if (s3_tag(c->body, end, "IsTruncated", trunc, sizeof(trunc)) == 0 &&
        strcmp(trunc, "true") == 0 &&
        (s3_tag(c->body, end, "NextContinuationToken", pg->next, sizeof(pg->next)) != 0 ||
         pg->next[0] == '\0'))
        return pt2_error_set(err, PT2_ERR_REMOTE_UNREACHABLE,
                             SHOWN ": a truncated listing without a usable continuation token",
                             c->display);
    return PT2_OK;
}

/* ---- listing ---------------------------------------------------------------------- */

/* "?continuation-token=..&list-type=2&max-keys=N&prefix=..": sorted, encoded as signed. */
static int list_query(char *url, size_t cap, const char *token, unsigned max_keys,
                      const char *prefix)
{
    char et[3 * PT2_REMOTE_LIST_TOKEN_MAX + 1], ep[3 * PT2_REMOTE_URL_MAX + 1];
    size_t n = strlen(url);
    int w;

    if (pt2_remote_s3_encode(prefix, 0, ep, sizeof(ep)) != PT2_OK ||
        pt2_remote_s3_encode(token, 0, et, sizeof(et)) != PT2_OK)
        return PT2_ERR_INVALID;
    w = snprintf(url + n, cap - n, "?%s%s%slist-type=2&max-keys=%u&prefix=%s",
                 token[0] != '\0' ? "continuation-token=" : "", et, token[0] != '\0' ? "&" : "",
                 max_keys, ep);
    return w < 0 || (size_t)w >= cap - n ? PT2_ERR_INVALID : PT2_OK;
}

static int list_prepare(struct s3_call *c, const char *prefix_url, const char *token,
                        unsigned max_keys, const struct pt2_remote_opts *opts, char *bucket,
                        const char **prefix, struct pt2_error *err)
{
    struct pt2_remote_s3_env env;
    int rc;

    if (prefix_url == NULL || !pt2_remote_is_prefix(prefix_url))
        return pt2_error_set(err, PT2_ERR_INVALID,
                             "not an s3://BUCKET/PREFIX/ URL (a bucket, then a key prefix ending "
                             "in '/')");
    if (strlen(token) > PT2_REMOTE_LIST_TOKEN_MAX)
        return pt2_error_set(err, PT2_ERR_INVALID, "the continuation token is too long");
    if (opts->restricted && !pt2_remote_url_allowed(prefix_url, opts))
        return pt2_error_set(err, PT2_ERR_REMOTE_REFUSED,
                             SHOWN " is not under any allowed URL prefix", prefix_url);
    pt2_remote_s3_env_get(&env);
    rc = pt2_remote_s3_map_bucket(prefix_url, &env, &c->m, bucket, prefix, err);
    if (rc != PT2_OK)
        return rc;
    memcpy(c->url, c->m.url, strlen(c->m.url) + 1);
    if (list_query(c->url, sizeof(c->url), token, max_keys, *prefix) != PT2_OK)
        return pt2_error_set(err, PT2_ERR_INVALID, "the listing's URL is too long");
    c->body_cap = PT2_REMOTE_LIST_BODY_MAX;
    c->body = malloc(c->body_cap + 1);
    if (c->body == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    c->body[0] = '\0';
    return PT2_OK;
}

int pt2_remote_list_page(const char *prefix_url, const char *token, unsigned max_keys,
                         const struct pt2_remote_opts *opts, struct pt2_remote_page *page,
                         struct pt2_error *err)
{
    static const struct pt2_remote_opts defaults;
    char bucket[PT2_REMOTE_BUCKET_MAX + 1];
    const char *prefix = "";
    struct s3_call *c;
    int rc;

    memset(page, 0, sizeof(*page));
    if (opts == NULL)
        opts = &defaults;
    if (max_keys == 0 || max_keys > PT2_REMOTE_LIST_PAGE_MAX)
        max_keys = PT2_REMOTE_LIST_PAGE_MAX;
    c = calloc(1, sizeof(*c));
    if (c == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    c->put_fd = -1;
    c->display = prefix_url != NULL ? prefix_url : "";
    rc = list_prepare(c, prefix_url, token != NULL ? token : "", max_keys, opts, bucket, &prefix,
                      err);
    if (rc == PT2_OK)
        rc = s3_call(c, opts, err);
    if (rc == PT2_OK)
        rc = page_parse(c, bucket, prefix, max_keys, opts, page, err);
    free(c->body);
    free(c);
    return rc;
}

void pt2_remote_page_free(struct pt2_remote_page *page)
{
    if (page == NULL)
        return;
    for (size_t i = 0; i < page->n; i++)
        free(page->v[i].url);
    free(page->v);
    memset(page, 0, sizeof(*page));
}

/* ---- upload ------------------------------------------------------------------------- */

int pt2_remote_put(const char *s3url, int fd, uint64_t len, const struct pt2_remote_opts *opts,
                   struct pt2_error *err)
{
    static const struct pt2_remote_opts defaults;
    struct pt2_remote_s3_env env;
    struct s3_call *c;
    int rc;

    if (opts == NULL)
        opts = &defaults;
    if (len > PT2_REMOTE_PUT_MAX)
        return pt2_error_set(err, PT2_ERR_TOO_LARGE, "%.300s: more than %llu bytes for one PUT",
                             s3url, (unsigned long long)PT2_REMOTE_PUT_MAX);
    rc = pt2_remote_check_url(s3url, opts, err);
    if (rc == PT2_OK && pt2_remote_url_scheme(s3url) != PT2_REMOTE_SCHEME_S3)
        rc = pt2_error_set(err, PT2_ERR_INVALID, "an upload goes to an s3://BUCKET/KEY URL");
    if (rc != PT2_OK)
        return rc;
    c = calloc(1, sizeof(*c));
    if (c == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    c->display = s3url;
    c->put_fd = fd;
    c->put_len = len;
    c->body_cap = ERRBODY_MAX; /* the answer: S3's XML when it refuses */
    c->body = malloc(c->body_cap + 1);
    pt2_remote_s3_env_get(&env);
    if (c->body == NULL)
        rc = pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    else
        rc = pt2_remote_s3_map(s3url, &env, &c->m, err);
    if (rc == PT2_OK) {
        c->body[0] = '\0';
        memcpy(c->url, c->m.url, strlen(c->m.url) + 1);
        rc = s3_call(c, opts, err);
    }
    free(c->body);
    free(c);
    return rc;
}
