/*
 * pt2_remote_url.h - the network-free rules of the remote layer (internal to
 * service/remote/): which URLs are accepted, how s3:// maps to HTTP, the
 * allow list, display URLs and names, redirect targets, address classes and
 * Content-Range.
 *
 * Design: everything here is a pure function of its arguments (the S3
 * environment is passed in as a struct), so the unit tests pin every rule
 * with exact values and pt2_remote.c only sequences requests. URLs are
 * parsed with libcurl's URL API, the same parser that later sends them.
 */
#ifndef PT2_REMOTE_URL_H
#define PT2_REMOTE_URL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "pt2_remote.h"

#define PT2_REMOTE_HOST_MAX 256 /* a host name, brackets of an IPv6 literal included */
#define PT2_REMOTE_NAME_MAX 256 /* pt2_remote_name() */
#define PT2_REMOTE_REGION_MAX 32
#define PT2_REMOTE_BUCKET_MAX 63

enum pt2_remote_scheme {
    PT2_REMOTE_SCHEME_NONE = 0,
    PT2_REMOTE_SCHEME_HTTP,
    PT2_REMOTE_SCHEME_HTTPS,
    PT2_REMOTE_SCHEME_S3
};

/* The scheme `s` starts with ("scheme://", case-insensitive), or NONE. */
int pt2_remote_url_scheme(const char *s);

/* ---- s3:// ---------------------------------------------------------------- */

/* Where s3:// objects live; pt2_remote_s3_env_get() reads it from the environment. */
struct pt2_remote_s3_env {
    const char *endpoint; /* AWS_ENDPOINT_URL_S3, else AWS_ENDPOINT_URL; NULL or "" = AWS */
    const char *region;   /* AWS_REGION; NULL or "" = us-east-1 */
};
void pt2_remote_s3_env_get(struct pt2_remote_s3_env *env);

struct pt2_remote_s3 {
    char url[PT2_REMOTE_URL_MAX + 1];       /* the http(s) URL of the object */
    char region[PT2_REMOTE_REGION_MAX + 1]; /* for the signature */
    char host[PT2_REMOTE_HOST_MAX];         /* url's host, as pt2_remote_url_host gives it */
    long port;                              /* url's port, the scheme's default filled in */
    int endpoint;                           /* 1: under the operator's endpoint (trusted host) */
};

/*
 * Map "s3://bucket/key" to its HTTP URL: path-style under env->endpoint,
 * else https://bucket.s3.REGION.amazonaws.com/key, or path-style
 * https://s3.REGION.amazonaws.com/bucket/key when the bucket is not a DNS
 * label (a dot, an upper-case letter or '_'). Key bytes other than
 * unreserved characters and '/' are percent-encoded. PT2_ERR_INVALID when
 * the URL, the endpoint or the region is unusable.
 */
int pt2_remote_s3_map(const char *s3url, const struct pt2_remote_s3_env *env,
                      struct pt2_remote_s3 *out, struct pt2_error *err);

/*
 * 1 when `url` names a prefix to list rather than an object: s3://BUCKET/
 * or s3://BUCKET/PREFIX/ (a key prefix ending in '/'; s3://BUCKET alone too).
 */
int pt2_remote_url_is_prefix(const char *url);

/*
 * The bucket of a prefix URL (pt2_remote_url_is_prefix) as an HTTP URL
 * ending in '/' (out->url, mapped as pt2_remote_s3_map maps objects), its
 * name into bucket (PT2_REMOTE_BUCKET_MAX + 1) and *prefix pointing at the
 * key prefix inside s3url ("" for the whole bucket). PT2_ERR_INVALID.
 */
int pt2_remote_s3_map_bucket(const char *s3url, const struct pt2_remote_s3_env *env,
                             struct pt2_remote_s3 *out, char *bucket, const char **prefix,
                             struct pt2_error *err);

/* Percent-encode every byte of `s` but unreserved ones (and '/' when keep_slash), as
 * SigV4 and S3 want: PT2_OK, or PT2_ERR_INVALID when `len` is too small. */
int pt2_remote_s3_encode(const char *s, int keep_slash, char *out, size_t len);

/* ---- parts, display, redirects ---------------------------------------------- */

/*
 * Host (as curl gives it: IPv6 literals in brackets) and port (the scheme's
 * default filled in) of an http(s) URL. PT2_OK or PT2_ERR_INVALID.
 */
int pt2_remote_url_host(const char *url, char *host, size_t host_len, long *port);

/*
 * `url` without userinfo, query or fragment ("s3://bucket/key" as given for
 * S3). PT2_OK, or PT2_ERR_INVALID (not a URL this accepts, or `len` too small).
 */
int pt2_remote_url_display(const char *url, char *out, size_t len);

/* The last path segment of a display URL, percent-decoded when that is clean text;
 * "package.pt2" when the path ends in '/'. */
void pt2_remote_url_name(const char *display, char *out, size_t len);

/*
 * The URL a Location header points to, resolved against `base` (relative
 * references included), without its fragment and without any user, password
 * or login options (a Location's "user:pass@" is never sent on). Any scheme parses (the hop
 * check refuses what is not http or https). PT2_OK or PT2_ERR_INVALID.
 */
int pt2_remote_url_resolve(const char *base, const char *location, char *out, size_t len);

/* ---- the allow list --------------------------------------------------------- */

/*
 * 1 when `url` lies under the allow entry `entry`: an entry that is a scheme
 * alone ("http://", "https://") takes any URL of that scheme (then the
 * address rules decide, as no host is named); otherwise the same scheme, host
 * (case-insensitive) and effective port, and the entry's path (decoded) is a
 * prefix of the URL's, ending at a segment boundary ("/models" takes
 * "/models/x" but not "/models-private/x") (decoded; a URL whose path has "." or ".." segments
 * or a backslash after decoding matches nothing). s3 entries compare the
 * bucket, then the entry's key as a prefix of the URL's key.
 */
int pt2_remote_url_allow_match(const char *entry, const char *url);
/* 1 when some entry of opts->allow matches. */
int pt2_remote_url_allowed(const char *url, const struct pt2_remote_opts *opts);
/*
 * 1 when an http(s) allow entry that names a host (not a scheme alone) takes
 * `url` itself: scheme, host, port and path prefix. The operator wrote that
 * host down, so the address rules do not apply to it there (an internal
 * registry by name, a test server at 127.0.0.1); the same host under another
 * port or path, reached through a broader entry, is judged by its addresses.
 */
int pt2_remote_url_host_named(const char *url, const struct pt2_remote_opts *opts);

/* ---- addresses ---------------------------------------------------------------- */

enum pt2_remote_addr_class {
    PT2_REMOTE_ADDR_PUBLIC = 0,
    PT2_REMOTE_ADDR_LOOPBACK,     /* 127/8, ::1 */
    PT2_REMOTE_ADDR_PRIVATE,      /* 10/8, 172.16/12, 192.168/16, fec0::/10 */
    PT2_REMOTE_ADDR_CGNAT,        /* 100.64/10 (Alibaba metadata 100.100.100.200) */
    PT2_REMOTE_ADDR_LINK_LOCAL,   /* 169.254/16 (cloud metadata), fe80::/10 */
    PT2_REMOTE_ADDR_UNIQUE_LOCAL, /* fc00::/7 (AWS fd00:ec2::254) */
    PT2_REMOTE_ADDR_UNSPECIFIED,  /* 0/8, :: */
    PT2_REMOTE_ADDR_MULTICAST,    /* 224/4, ff00::/8 */
    PT2_REMOTE_ADDR_BROADCAST,    /* 255.255.255.255 */
    PT2_REMOTE_ADDR_RESERVED      /* 240/4, ::/96 IPv4-compatible, an unknown family */
};

/*
 * The class of an IPv4 or IPv6 socket address; IPv4-mapped (::ffff:0:0/96),
 * NAT64 (64:ff9b::/96) and 6to4 (2002::/16) addresses are classed by the
 * IPv4 address inside. Everything but PUBLIC is refused in restricted mode.
 */
int pt2_remote_addr_class(const struct sockaddr *sa, size_t len);
/* "loopback", "private", ... ("public" for PUBLIC). */
const char *pt2_remote_addr_class_name(int cls);

/* ---- Content-Range ------------------------------------------------------------ */

struct pt2_remote_crange {
    uint64_t first, last, total; /* first/last are 0 when unsatisfied */
    int unsatisfied;             /* the 416 form: no range, only the total */
};

/*
 * Parse a Content-Range value (`len` bytes, surrounding blanks already
 * trimmed): "bytes FIRST-LAST/TOTAL" with FIRST <= LAST < TOTAL, or the
 * unsatisfied form, "bytes " '*' '/' TOTAL. An unknown total ('*' after the
 * slash) is invalid: the size is what the first response is for.
 * PT2_OK or PT2_ERR_INVALID (*out untouched).
 */
int pt2_remote_content_range(const char *v, size_t len, struct pt2_remote_crange *out);

#endif
