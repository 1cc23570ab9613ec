/*
 * pt2_remote_url.c - the network-free rules of the remote layer (see
 * pt2_remote_url.h and pt2_remote.h).
 *
 * Design: http(s) URLs are parsed with libcurl's URL API (CURLU), the parser
 * that later sends them, so what is checked is what is requested: CURLU
 * removes "." and ".." segments and normalises numeric IPv4 hosts before
 * anything here compares them. s3:// URLs are split by hand, as the AWS CLI
 * reads them: everything after the bucket's slash is the key, literally
 * ('%', '?' and '#' included), and the key is percent-encoded once when it
 * becomes an HTTP path (the encoding SigV4 signs and S3 decodes).
 *
 * Path prefixes are compared decoded, as a server sees them; a path that
 * would climb out of a prefix once decoded ("%2e%2e", a backslash) matches
 * no entry at all.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

#include "pt2_remote_url.h"
#include "pt2scope.h"

#define S3_KEY_MAX 1024 /* S3's own limit on a key, in bytes */
#define DEFAULT_REGION "us-east-1"
#define DEFAULT_NAME "package.pt2"

int pt2_remote_url_scheme(const char *s)
{
    if (s == NULL)
        return PT2_REMOTE_SCHEME_NONE;
    if (strncasecmp(s, "http://", 7) == 0)
        return PT2_REMOTE_SCHEME_HTTP;
    if (strncasecmp(s, "https://", 8) == 0)
        return PT2_REMOTE_SCHEME_HTTPS;
    if (strncasecmp(s, "s3://", 5) == 0)
        return PT2_REMOTE_SCHEME_S3;
    return PT2_REMOTE_SCHEME_NONE;
}

int pt2_remote_is_url(const char *s)
{
    return pt2_remote_url_scheme(s) != PT2_REMOTE_SCHEME_NONE;
}

/* 1 when every byte is printable ASCII without blanks (an http(s) URL as sent). */
static int url_bytes_ok(const char *s)
{
    for (; *s != '\0'; s++)
        if ((unsigned char)*s <= 0x20 || (unsigned char)*s >= 0x7f)
            return 0;
    return 1;
}

/* ---- CURLU helpers ------------------------------------------------------ */

/* A CURLU holding `url` (an http(s) URL, or any scheme with `flags`), or NULL. */
static CURLU *url_parse(const char *url, unsigned flags)
{
    CURLU *h;

    const char *sep = url != NULL ? strstr(url, "://") : NULL;

    if (url == NULL || strlen(url) > PT2_REMOTE_URL_MAX || !url_bytes_ok(url))
        return NULL;
    /* "http:///x" is no host at all, whatever curl would make of it */
    if (sep != NULL && sep[3] == '/')
        return NULL;
    h = curl_url();
    if (h != NULL && curl_url_set(h, CURLUPART_URL, url, flags) != CURLUE_OK) {
        curl_url_cleanup(h);
        h = NULL;
    }
    return h;
}

/* Copy one part into out (PT2_OK), or PT2_ERR_INVALID when absent or too long. */
static int part_copy(CURLU *h, CURLUPart what, unsigned flags, char *out, size_t len)
{
    char *v = NULL;
    int rc = PT2_ERR_INVALID;

    if (curl_url_get(h, what, &v, flags) == CURLUE_OK && strlen(v) < len) {
        memcpy(out, v, strlen(v) + 1);
        rc = PT2_OK;
    }
    curl_free(v);
    return rc;
}

static int part_present(CURLU *h, CURLUPart what)
{
    char *v = NULL;
    CURLUcode rc = curl_url_get(h, what, &v, 0);

    curl_free(v);
    return rc == CURLUE_OK;
}

static int host_port(CURLU *h, char *host, size_t host_len, long *port)
{
    char p[16];

    if (part_copy(h, CURLUPART_HOST, 0, host, host_len) != PT2_OK || host[0] == '\0' ||
        part_copy(h, CURLUPART_PORT, CURLU_DEFAULT_PORT, p, sizeof(p)) != PT2_OK ||
        pt2_num_long(p, 1, 65535, port) != PT2_OK)
        return PT2_ERR_INVALID;
    return PT2_OK;
}

int pt2_remote_url_host(const char *url, char *host, size_t host_len, long *port)
{
    int s = pt2_remote_url_scheme(url), rc;
    CURLU *h;

    if (s != PT2_REMOTE_SCHEME_HTTP && s != PT2_REMOTE_SCHEME_HTTPS)
        return PT2_ERR_INVALID;
    h = url_parse(url, 0);
    if (h == NULL)
        return PT2_ERR_INVALID;
    rc = host_port(h, host, host_len, port);
    curl_url_cleanup(h);
    return rc;
}

/* ---- s3:// ---------------------------------------------------------------- */

/*
 * Split "s3://bucket/key": the bucket into `bucket` (1..63 of [A-Za-z0-9._-],
 * starting with a letter or digit), *key after its slash ("" when there is
 * no slash). PT2_OK or PT2_ERR_INVALID.
 */
static int s3_split(const char *url, char bucket[PT2_REMOTE_BUCKET_MAX + 1], const char **key)
{
    const char *b, *slash;
    size_t n, i;

    /* the scheme first: a shorter string has no byte 5 */
    if (pt2_remote_url_scheme(url) != PT2_REMOTE_SCHEME_S3)
        return PT2_ERR_INVALID;
    b = url + 5;
    slash = strchr(b, '/');
    n = slash != NULL ? (size_t)(slash - b) : strlen(b);
    if (n == 0 || n > PT2_REMOTE_BUCKET_MAX)
        return PT2_ERR_INVALID;
    for (i = 0; i < n; i++) {
        char c = b[i];
        int alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');

        if (!alnum && (i == 0 || (c != '.' && c != '-' && c != '_')))
            return PT2_ERR_INVALID;
    }
    memcpy(bucket, b, n);
    bucket[n] = '\0';
    *key = slash != NULL ? slash + 1 : "";
    return PT2_OK;
}

/*
 * A key S3 and curl both take literally: at most 1024 bytes of valid UTF-8
 * without control bytes, and no "." or ".." segment (curl would remove them
 * from the HTTP path and so ask for another key).
 */
static int s3_key_ok(const char *key)
{
    char copy[S3_KEY_MAX + 1];
    size_t n = strlen(key), i, seg = 0;

    if (n > S3_KEY_MAX)
        return 0;
    for (i = 0; i <= n; i++) {
        unsigned char c = (unsigned char)key[i];

        if (i < n && (c < 0x20 || c == 0x7f))
            return 0;
        if (i == n || c == '/') {
            size_t len = i - seg;

            if ((len == 1 && key[seg] == '.') ||
                (len == 2 && key[seg] == '.' && key[seg + 1] == '.'))
                return 0;
            seg = i + 1;
        }
    }
    memcpy(copy, key, n + 1);
    pt2_utf8_scrub(copy, n);
    return memcmp(copy, key, n) == 0;
}

/* 1 when the bucket can be a host name label: virtual-hosted style. */
static int s3_dns_label(const char *bucket)
{
    size_t n = strlen(bucket), i;

    for (i = 0; i < n; i++) {
        char c = bucket[i];

        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'))
            return 0;
    }
    return bucket[0] != '-' && bucket[n - 1] != '-';
}

static int region_ok(const char *r)
{
    size_t n = strlen(r), i;

    if (n == 0 || n > PT2_REMOTE_REGION_MAX)
        return 0;
    for (i = 0; i < n; i++)
        if (!((r[i] >= 'a' && r[i] <= 'z') || (r[i] >= '0' && r[i] <= '9') || r[i] == '-'))
            return 0;
    return 1;
}

int pt2_remote_s3_encode(const char *key, int keep_slash, char *out, size_t len)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;

    for (; *key != '\0'; key++) {
        unsigned char c = (unsigned char)*key;
        int keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                   c == '-' || c == '.' || c == '_' || c == '~' || (c == '/' && keep_slash);

        if (o + (keep ? 1 : 3) >= len)
            return PT2_ERR_INVALID;
        if (keep) {
            out[o++] = (char)c;
        } else {
            out[o++] = '%';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        }
    }
    out[o] = '\0';
    return PT2_OK;
}

void pt2_remote_s3_env_get(struct pt2_remote_s3_env *env)
{
    const char *e = getenv("AWS_ENDPOINT_URL_S3");

    if (e == NULL || e[0] == '\0')
        e = getenv("AWS_ENDPOINT_URL");
    env->endpoint = e;
    env->region = getenv("AWS_REGION");
}

/* The HTTP URL of `ekey` (encoded; "" for the bucket itself) in `bucket`. */
static int s3_build(const char *bucket, const char *ekey, const struct pt2_remote_s3_env *env,
                    struct pt2_remote_s3 *out, struct pt2_error *err)
{
    const char *region, *ep = env != NULL ? env->endpoint : NULL;
    int n;

    region =
        env != NULL && env->region != NULL && env->region[0] != '\0' ? env->region : DEFAULT_REGION;
    if (!region_ok(region))
        return pt2_error_set(err, PT2_ERR_INVALID, "AWS_REGION '%.40s' is not a region name",
                             region);
    if (ep != NULL && ep[0] != '\0') {
        size_t base = strlen(ep);
        CURLU *h;
        int clean;

        if (pt2_remote_url_scheme(ep) != PT2_REMOTE_SCHEME_HTTP &&
            pt2_remote_url_scheme(ep) != PT2_REMOTE_SCHEME_HTTPS)
            return pt2_error_set(err, PT2_ERR_INVALID,
                                 "the S3 endpoint (AWS_ENDPOINT_URL) is not an http(s) URL");
        h = url_parse(ep, 0);
        clean = h != NULL && !part_present(h, CURLUPART_QUERY) &&
                !part_present(h, CURLUPART_FRAGMENT) && !part_present(h, CURLUPART_USER);
        curl_url_cleanup(h);
        if (!clean)
            return pt2_error_set(err, PT2_ERR_INVALID,
                                 "the S3 endpoint (AWS_ENDPOINT_URL) is not a plain http(s) URL");
        while (base > 0 && ep[base - 1] == '/')
            base--;
        n = snprintf(out->url, sizeof(out->url), "%.*s/%s/%s", (int)base, ep, bucket, ekey);
        out->endpoint = 1;
    } else if (s3_dns_label(bucket)) {
        n = snprintf(out->url, sizeof(out->url), "https://%s.s3.%s.amazonaws.com/%s", bucket,
                     region, ekey);
    } else {
        /* a dot would break the *.s3 wildcard certificate; '_' or capitals are no host name */
        n = snprintf(out->url, sizeof(out->url), "https://s3.%s.amazonaws.com/%s/%s", region,
                     bucket, ekey);
    }
    if (n < 0 || (size_t)n >= sizeof(out->url))
        return pt2_error_set(err, PT2_ERR_INVALID, "the S3 URL is longer than %u bytes",
                             PT2_REMOTE_URL_MAX);
    if (pt2_remote_url_host(out->url, out->host, sizeof(out->host), &out->port) != PT2_OK)
        return pt2_error_set(err, PT2_ERR_INVALID, "the S3 object's URL is not valid");
    memcpy(out->region, region, strlen(region) + 1);
    return PT2_OK;
}

int pt2_remote_s3_map(const char *s3url, const struct pt2_remote_s3_env *env,
                      struct pt2_remote_s3 *out, struct pt2_error *err)
{
    char bucket[PT2_REMOTE_BUCKET_MAX + 1], ekey[PT2_REMOTE_URL_MAX + 1];
    const char *key;

    memset(out, 0, sizeof(*out));
    if (s3_split(s3url, bucket, &key) != PT2_OK || key[0] == '\0' || !s3_key_ok(key))
        return pt2_error_set(err, PT2_ERR_INVALID,
                             "not an s3://BUCKET/KEY URL (a bucket name, then an object key)");
    if (pt2_remote_s3_encode(key, 1, ekey, sizeof(ekey)) != PT2_OK)
        return pt2_error_set(err, PT2_ERR_INVALID, "the S3 key is too long");
    return s3_build(bucket, ekey, env, out, err);
}

int pt2_remote_url_is_prefix(const char *url)
{
    char bucket[PT2_REMOTE_BUCKET_MAX + 1];
    const char *key;
    size_t n;

    if (url == NULL || s3_split(url, bucket, &key) != PT2_OK)
        return 0;
    n = strlen(key);
    return n == 0 || (key[n - 1] == '/' && s3_key_ok(key));
}

int pt2_remote_s3_map_bucket(const char *s3url, const struct pt2_remote_s3_env *env,
                             struct pt2_remote_s3 *out, char *bucket, const char **prefix,
                             struct pt2_error *err)
{
    memset(out, 0, sizeof(*out));
    if (!pt2_remote_url_is_prefix(s3url) || s3_split(s3url, bucket, prefix) != PT2_OK)
        return pt2_error_set(err, PT2_ERR_INVALID,
                             "not an s3://BUCKET/PREFIX/ URL (a bucket name, then a key prefix "
                             "ending in '/')");
    return s3_build(bucket, "", env, out, err);
}

/* ---- display, name, redirects --------------------------------------------- */

int pt2_remote_url_display(const char *url, char *out, size_t len)
{
    int s = pt2_remote_url_scheme(url), rc = PT2_ERR_INVALID;
    CURLU *h;

    if (s == PT2_REMOTE_SCHEME_S3) {
        char bucket[PT2_REMOTE_BUCKET_MAX + 1];
        const char *key;

        if (s3_split(url, bucket, &key) != PT2_OK || !s3_key_ok(key) ||
            (size_t)snprintf(out, len, "s3://%s/%s", bucket, key) >= len)
            return PT2_ERR_INVALID;
        return PT2_OK;
    }
    if (s == PT2_REMOTE_SCHEME_NONE || (h = url_parse(url, 0)) == NULL)
        return PT2_ERR_INVALID;
    /* what a URL may carry that is nobody else's business: credentials, signatures */
    if (curl_url_set(h, CURLUPART_USER, NULL, 0) == CURLUE_OK &&
        curl_url_set(h, CURLUPART_PASSWORD, NULL, 0) == CURLUE_OK &&
        curl_url_set(h, CURLUPART_OPTIONS, NULL, 0) == CURLUE_OK &&
        curl_url_set(h, CURLUPART_QUERY, NULL, 0) == CURLUE_OK &&
        curl_url_set(h, CURLUPART_FRAGMENT, NULL, 0) == CURLUE_OK)
        rc = part_copy(h, CURLUPART_URL, 0, out, len);
    curl_url_cleanup(h);
    return rc;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

void pt2_remote_url_name(const char *display, char *out, size_t len)
{
    const char *p = display != NULL ? strstr(display, "://") : NULL, *seg;
    char dec[PT2_REMOTE_NAME_MAX];
    size_t n = 0, i;
    int clean = 1;

    if (len == 0)
        return;
    p = p != NULL ? strchr(p + 3, '/') : NULL;
    seg = p != NULL ? strrchr(p, '/') + 1 : "";
    if (seg[0] == '\0') {
        snprintf(out, len, "%s", DEFAULT_NAME);
        return;
    }
    /* http(s) paths are percent-encoded; an S3 key is shown as it was given */
    for (i = 0; pt2_remote_url_scheme(display) != PT2_REMOTE_SCHEME_S3 && seg[i] != '\0'; i++) {
        int c = (unsigned char)seg[i];

        if (c == '%' && hexval(seg[i + 1]) >= 0 && hexval(seg[i + 2]) >= 0) {
            c = hexval(seg[i + 1]) * 16 + hexval(seg[i + 2]);
            i += 2;
        }
        if (c < 0x20 || c == 0x7f || c == '/' || c == '\\' || n + 1 >= sizeof(dec)) {
            clean = 0;
            break;
        }
        dec[n++] = (char)c;
    }
    dec[n] = '\0';
    if (pt2_remote_url_scheme(display) == PT2_REMOTE_SCHEME_S3 || !clean)
        snprintf(out, len, "%s", seg);
    else
        snprintf(out, len, "%s", dec);
    /* a cut may split a UTF-8 sequence, and a decoded name may not be UTF-8 */
    pt2_utf8_scrub(out, strlen(out));
}

int pt2_remote_url_resolve(const char *base, const char *location, char *out, size_t len)
{
    CURLU *h;
    int rc = PT2_ERR_INVALID;

    if (location == NULL || location[0] == '\0' || strlen(location) > PT2_REMOTE_URL_MAX ||
        !url_bytes_ok(location))
        return PT2_ERR_INVALID;
    h = url_parse(base, CURLU_NON_SUPPORT_SCHEME);
    if (h == NULL)
        return PT2_ERR_INVALID;
    /* set on a handle that holds a URL, a relative reference is resolved against it */
    if (curl_url_set(h, CURLUPART_URL, location, CURLU_NON_SUPPORT_SCHEME) == CURLUE_OK &&
        curl_url_set(h, CURLUPART_FRAGMENT, NULL, 0) == CURLUE_OK &&
        /* a Location's user:pass@ would be sent as Basic credentials to its host */
        curl_url_set(h, CURLUPART_USER, NULL, 0) == CURLUE_OK &&
        curl_url_set(h, CURLUPART_PASSWORD, NULL, 0) == CURLUE_OK &&
        curl_url_set(h, CURLUPART_OPTIONS, NULL, 0) == CURLUE_OK &&
        part_copy(h, CURLUPART_URL, 0, out, len) == PT2_OK && strlen(out) <= PT2_REMOTE_URL_MAX)
        rc = PT2_OK;
    curl_url_cleanup(h);
    return rc;
}

/* ---- the allow list ------------------------------------------------------- */

struct http_parts {
    char host[PT2_REMOTE_HOST_MAX];
    long port;
    char path[PT2_REMOTE_URL_MAX + 1]; /* decoded */
};

/* 1 when a decoded path has a "." or ".." segment or a backslash. */
static int path_climbs(const char *path)
{
    const char *p = path;

    if (strchr(path, '\\') != NULL)
        return 1;
    while (p != NULL) {
        const char *next = strchr(p, '/');
        size_t n = next != NULL ? (size_t)(next - p) : strlen(p);

        if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
            return 1;
        p = next != NULL ? next + 1 : NULL;
    }
    return 0;
}

static int http_split(const char *url, struct http_parts *p)
{
    CURLU *h = url_parse(url, 0);
    int rc;

    if (h == NULL)
        return PT2_ERR_INVALID;
    rc = host_port(h, p->host, sizeof(p->host), &p->port);
    /* decoding refuses control bytes (%00 included) */
    if (rc == PT2_OK)
        rc = part_copy(h, CURLUPART_PATH, CURLU_URLDECODE, p->path, sizeof(p->path));
    curl_url_cleanup(h);
    if (rc == PT2_OK && path_climbs(p->path))
        rc = PT2_ERR_INVALID;
    return rc;
}

/* 1 for an entry that is a scheme alone ("http://", "https://"): any host, address rules on. */
static int scheme_only(const char *entry)
{
    return strcasecmp(entry, "http://") == 0 || strcasecmp(entry, "https://") == 0;
}

/*
 * 1 when `prefix` starts `path` and ends at a segment boundary: "models/" or
 * "" takes anything under it, "models" takes "models" and "models/..." but
 * not "models-private/...".
 */
static int prefix_at_boundary(const char *prefix, const char *path)
{
    size_t n = strlen(prefix);

    if (strncmp(path, prefix, n) != 0)
        return 0;
    return n == 0 || prefix[n - 1] == '/' || path[n] == '\0' || path[n] == '/';
}

int pt2_remote_url_allow_match(const char *entry, const char *url)
{
    int es = pt2_remote_url_scheme(entry), match = 0;
    struct http_parts *e = NULL, *u = NULL;

    if (es == PT2_REMOTE_SCHEME_NONE || es != pt2_remote_url_scheme(url))
        return 0;
    if (scheme_only(entry))
        return 1; /* the scheme matched: any host, the address rules decide */
    if (es == PT2_REMOTE_SCHEME_S3) {
        char eb[PT2_REMOTE_BUCKET_MAX + 1], ub[PT2_REMOTE_BUCKET_MAX + 1];
        const char *ek, *uk;

        return s3_split(entry, eb, &ek) == PT2_OK && s3_split(url, ub, &uk) == PT2_OK &&
               s3_key_ok(uk) && strcmp(eb, ub) == 0 && prefix_at_boundary(ek, uk);
    }
    e = malloc(sizeof(*e));
    u = malloc(sizeof(*u));
    if (e != NULL && u != NULL && http_split(entry, e) == PT2_OK && http_split(url, u) == PT2_OK)
        match = strcasecmp(e->host, u->host) == 0 && e->port == u->port &&
                prefix_at_boundary(e->path, u->path);
    free(e);
    free(u);
    return match;
}

int pt2_remote_url_allowed(const char *url, const struct pt2_remote_opts *opts)
{
    size_t i;

    for (i = 0; opts != NULL && opts->allow != NULL && i < opts->n_allow; i++)
        if (opts->allow[i] != NULL && pt2_remote_url_allow_match(opts->allow[i], url))
            return 1;
    return 0;
}

int pt2_remote_url_host_named(const char *url, const struct pt2_remote_opts *opts)
{
    size_t i;

    if (url == NULL || pt2_remote_url_scheme(url) == PT2_REMOTE_SCHEME_S3)
        return 0;
    /* The entry must name the host and take this very URL (scheme, port and path): naming
     * 127.0.0.1:9000/models/ trusts nothing else on 127.0.0.1, whatever broader entries allow. */
    for (i = 0; opts != NULL && opts->allow != NULL && i < opts->n_allow; i++)
        if (opts->allow[i] != NULL && !scheme_only(opts->allow[i]) &&
            pt2_remote_url_scheme(opts->allow[i]) != PT2_REMOTE_SCHEME_S3 &&
            pt2_remote_url_allow_match(opts->allow[i], url))
            return 1;
    return 0;
}

/* ---- the public checks ------------------------------------------------------ */

int pt2_remote_check_url(const char *url, const struct pt2_remote_opts *opts, struct pt2_error *err)
{
    char display[PT2_REMOTE_URL_MAX + 1];
    int s = pt2_remote_url_scheme(url);
    CURLU *h;

    if (url == NULL || url[0] == '\0')
        return pt2_error_set(err, PT2_ERR_INVALID, "no URL given");
    if (strnlen(url, PT2_REMOTE_URL_MAX + 1) > PT2_REMOTE_URL_MAX)
        return pt2_error_set(err, PT2_ERR_INVALID, "the URL is longer than %u bytes",
                             PT2_REMOTE_URL_MAX);
    if (s == PT2_REMOTE_SCHEME_NONE)
        return pt2_error_set(err, PT2_ERR_INVALID, "not an http://, https:// or s3:// URL");
    if (s == PT2_REMOTE_SCHEME_S3) {
        char bucket[PT2_REMOTE_BUCKET_MAX + 1];
        const char *key;

        if (s3_split(url, bucket, &key) != PT2_OK || key[0] == '\0' || !s3_key_ok(key))
            return pt2_error_set(err, PT2_ERR_INVALID,
                                 "not an s3://BUCKET/KEY URL (a bucket name, then an object key)");
    } else {
        if (!url_bytes_ok(url))
            return pt2_error_set(err, PT2_ERR_INVALID,
                                 "the URL has blanks, control bytes or non-ASCII bytes "
                                 "(percent-encode them)");
        h = url_parse(url, 0);
        if (h == NULL || !part_present(h, CURLUPART_HOST)) {
            curl_url_cleanup(h);
            return pt2_error_set(err, PT2_ERR_INVALID, "not a valid http(s) URL");
        }
        curl_url_cleanup(h);
    }
    if (pt2_remote_url_display(url, display, sizeof(display)) != PT2_OK)
        return pt2_error_set(err, PT2_ERR_INVALID, "not a valid URL");
    if (opts != NULL && opts->restricted && !pt2_remote_url_allowed(url, opts))
        return pt2_error_set(err, PT2_ERR_REMOTE_REFUSED,
                             "%.300s is not under any allowed URL prefix", display);
    return PT2_OK;
}

int pt2_remote_check_allow(const char *entry, struct pt2_error *err)
{
    int s = pt2_remote_url_scheme(entry), clean;
    CURLU *h;

    if (s == PT2_REMOTE_SCHEME_S3) {
        char bucket[PT2_REMOTE_BUCKET_MAX + 1];
        const char *key;

        if (s3_split(entry, bucket, &key) != PT2_OK || (key[0] != '\0' && !s3_key_ok(key)))
            return pt2_error_set(err, PT2_ERR_INVALID,
                                 "allowed prefix '%.200s': not s3://BUCKET/ or s3://BUCKET/PREFIX",
                                 entry);
        return PT2_OK;
    }
    if (s == PT2_REMOTE_SCHEME_NONE)
        return pt2_error_set(err, PT2_ERR_INVALID,
                             "allowed prefix '%.200s': not an http://, https:// or s3:// URL",
                             entry != NULL ? entry : "");
    if (scheme_only(entry))
        return PT2_OK;
    h = url_parse(entry, 0);
    clean = h != NULL && part_present(h, CURLUPART_HOST) && !part_present(h, CURLUPART_USER) &&
            !part_present(h, CURLUPART_QUERY) && !part_present(h, CURLUPART_FRAGMENT);
    curl_url_cleanup(h);
    if (!clean)
        return pt2_error_set(err, PT2_ERR_INVALID,
                             "allowed prefix '%.200s': not a plain http(s) URL (no user, query "
                             "or fragment)",
                             entry);
    return PT2_OK;
}

/* ---- addresses -------------------------------------------------------------- */

static int class_v4(const unsigned char b[4])
{
    uint32_t a = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];

    if ((a >> 24) == 0)
        return PT2_REMOTE_ADDR_UNSPECIFIED;
    if ((a >> 24) == 127)
        return PT2_REMOTE_ADDR_LOOPBACK;
    if ((a >> 24) == 10 || (a & 0xfff00000u) == 0xac100000u || (a & 0xffff0000u) == 0xc0a80000u)
        return PT2_REMOTE_ADDR_PRIVATE;
    if ((a & 0xffc00000u) == 0x64400000u)
        return PT2_REMOTE_ADDR_CGNAT;
    if ((a & 0xffff0000u) == 0xa9fe0000u)
        return PT2_REMOTE_ADDR_LINK_LOCAL;
    if (a == 0xffffffffu)
        return PT2_REMOTE_ADDR_BROADCAST;
    /* IETF protocol assignments 192.0.0/24, benchmarking 198.18/15: never a registry */
    if ((a & 0xffffff00u) == 0xc0000000u || (a & 0xfffe0000u) == 0xc6120000u)
        return PT2_REMOTE_ADDR_RESERVED;
    if ((a & 0xf0000000u) == 0xe0000000u)
        return PT2_REMOTE_ADDR_MULTICAST;
    if ((a & 0xf0000000u) == 0xf0000000u)
        return PT2_REMOTE_ADDR_RESERVED;
    return PT2_REMOTE_ADDR_PUBLIC;
}

static int class_v6(const unsigned char b[16])
{
    static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    static const unsigned char nat64[12] = {0, 0x64, 0xff, 0x9b};
    static const unsigned char zero[16] = {0};

    /* an IPv4 address in IPv6 clothing reaches that IPv4 address */
    if (memcmp(b, mapped, 12) == 0 || memcmp(b, nat64, 12) == 0)
        return class_v4(b + 12);
    if (b[0] == 0x20 && b[1] == 0x02)
        return class_v4(b + 2); /* 6to4 */
    /* local-use NAT64 64:ff9b:1::/48 and Teredo 2001::/32 reach IPv4 hosts we cannot judge */
    if ((b[0] == 0 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b && b[4] == 0 && b[5] == 1) ||
        (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && b[3] == 0))
        return PT2_REMOTE_ADDR_RESERVED;
    if (memcmp(b, zero, 16) == 0)
        return PT2_REMOTE_ADDR_UNSPECIFIED;
    if (memcmp(b, zero, 15) == 0 && b[15] == 1)
        return PT2_REMOTE_ADDR_LOOPBACK;
    if (memcmp(b, zero, 12) == 0)
        return PT2_REMOTE_ADDR_RESERVED; /* IPv4-compatible, deprecated */
    if (b[0] == 0xff)
        return PT2_REMOTE_ADDR_MULTICAST;
    if ((b[0] & 0xfe) == 0xfc)
        return PT2_REMOTE_ADDR_UNIQUE_LOCAL;
    if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80)
        return PT2_REMOTE_ADDR_LINK_LOCAL;
    if (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0)
        return PT2_REMOTE_ADDR_PRIVATE; /* site-local, deprecated */
    return PT2_REMOTE_ADDR_PUBLIC;
}

int pt2_remote_addr_class(const struct sockaddr *sa, size_t len)
{
    if (sa != NULL && sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
        struct sockaddr_in in;

        memcpy(&in, sa, sizeof(in));
        return class_v4((const unsigned char *)&in.sin_addr);
    }
    if (sa != NULL && sa->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
        struct sockaddr_in6 in6;

        memcpy(&in6, sa, sizeof(in6));
        return class_v6(in6.sin6_addr.s6_addr);
    }
    return PT2_REMOTE_ADDR_RESERVED;
}

const char *pt2_remote_addr_class_name(int cls)
{
    switch (cls) {
    case PT2_REMOTE_ADDR_PUBLIC:
        return "public";
    case PT2_REMOTE_ADDR_LOOPBACK:
        return "loopback";
    case PT2_REMOTE_ADDR_PRIVATE:
        return "private";
    case PT2_REMOTE_ADDR_CGNAT:
        return "shared (CGNAT, cloud metadata)";
    case PT2_REMOTE_ADDR_LINK_LOCAL:
        return "link-local (cloud metadata)";
    case PT2_REMOTE_ADDR_UNIQUE_LOCAL:
        return "unique local";
    case PT2_REMOTE_ADDR_UNSPECIFIED:
        return "unspecified";
    case PT2_REMOTE_ADDR_MULTICAST:
        return "multicast";
    case PT2_REMOTE_ADDR_BROADCAST:
        return "broadcast";
    default:
        return "reserved";
    }
}

/* ---- Content-Range ------------------------------------------------------------ */

int pt2_remote_content_range(const char *v, size_t len, struct pt2_remote_crange *out)
{
    struct pt2_remote_crange c = {0};
    const char *p, *end = v + len, *slash, *dash;

    if (v == NULL || len < 6 || strncasecmp(v, "bytes ", 6) != 0)
        return PT2_ERR_INVALID;
    p = v + 6;
    slash = memchr(p, '/', (size_t)(end - p));
    if (slash == NULL || pt2_num_u64n(slash + 1, (size_t)(end - slash - 1), 10, &c.total) != PT2_OK)
        return PT2_ERR_INVALID;
    if (slash - p == 1 && p[0] == '*') {
        c.unsatisfied = 1;
    } else {
        dash = memchr(p, '-', (size_t)(slash - p));
        if (dash == NULL || pt2_num_u64n(p, (size_t)(dash - p), 10, &c.first) != PT2_OK ||
            pt2_num_u64n(dash + 1, (size_t)(slash - dash - 1), 10, &c.last) != PT2_OK ||
            c.first > c.last || c.last >= c.total)
            return PT2_ERR_INVALID;
    }
    *out = c;
    return PT2_OK;
}
