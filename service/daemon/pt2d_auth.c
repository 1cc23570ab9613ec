/*
 * pt2d_auth.c - bearer tokens and the Host check (see pt2d_auth.h).
 *
 * Why digests: comparing fixed-size SHA-256 digests makes every comparison
 * the same length whatever the presented token's length, so neither the
 * length nor a common prefix shows in the timing; the raw tokens are never
 * kept in memory after parsing.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nettle/sha2.h>

#include "pt2d_auth.h"

struct pt2d_auth {
    pthread_rwlock_t lock;           /* guards tokens */
    struct pt2d_auth_tokens *tokens; /* NULL without --token-file */
    char token_file[PT2D_PATH_MAX];
    int metrics_public;
    char listen_host[PT2D_HOST_MAX];
    char allowed[PT2D_MAX_ALLOWED_HOSTS][PT2D_HOST_MAX];
    unsigned n_allowed;
};

static void token_digest(const char *token, size_t len, uint8_t out[PT2D_AUTH_DIGEST])
{
    struct sha256_ctx sha;

    sha256_init(&sha);
    sha256_update(&sha, len, (const uint8_t *)token);
    sha256_digest(&sha, PT2D_AUTH_DIGEST, out);
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

int pt2d_auth_tokens_parse(const char *text, size_t len, struct pt2d_auth_tokens **out,
                           struct pt2_error *err)
{
    struct pt2d_auth_tokens *t = NULL;
    size_t pos = 0;
    unsigned line = 0;
    int rc = PT2_OK;

    *out = NULL;
    if (len > PT2D_AUTH_FILE_MAX) {
        rc = pt2_error_set(err, PT2_ERR_TOO_LARGE, "token file is larger than %u bytes",
                           PT2D_AUTH_FILE_MAX);
        goto cleanup;
    }
    t = calloc(1, sizeof(*t));
    if (t == NULL) {
        rc = pt2_error_set(err, PT2_ERR_NOMEM, "token file: out of memory");
        goto cleanup;
    }
    while (pos < len) {
        const char *p = text + pos, *nl = memchr(p, '\n', len - pos);
        size_t n = nl != NULL ? (size_t)(nl - p) : len - pos, i;

        pos += n + (nl != NULL);
        line++;
        /* Trim: CRLF files and indented lines read the same. */
        while (n > 0 && is_space(*p)) {
            p++;
            n--;
        }
        while (n > 0 && is_space(p[n - 1]))
            n--;
        if (n == 0 || p[0] == '#')
            continue;
        if (n > PT2D_AUTH_TOKEN_MAX) {
            rc = pt2_error_set(err, PT2_ERR_INVALID, "token file line %u: longer than %u bytes",
                               line, PT2D_AUTH_TOKEN_MAX);
            goto cleanup;
        }
        /* Visible ASCII only: anything else could not be sent in a header as it is. */
        for (i = 0; i < n; i++)
            if ((unsigned char)p[i] <= 0x20 || (unsigned char)p[i] >= 0x7f) {
                rc = pt2_error_set(err, PT2_ERR_INVALID,
                                   "token file line %u: a token is visible ASCII without spaces",
                                   line);
                goto cleanup;
            }
        if (t->n == PT2D_AUTH_TOKENS_MAX) {
            rc = pt2_error_set(err, PT2_ERR_INVALID, "token file: more than %u tokens",
                               PT2D_AUTH_TOKENS_MAX);
            goto cleanup;
        }
        token_digest(p, n, t->digest[t->n++]);
    }
    /* An empty set would refuse everything: surely a mistake, never silently applied. */
    if (t->n == 0) {
        rc = pt2_error_set(err, PT2_ERR_INVALID, "token file has no tokens");
        goto cleanup;
    }
    *out = t;
    t = NULL;
cleanup:
    pt2d_auth_tokens_free(t);
    return rc;
}

int pt2d_auth_tokens_load(const char *path, struct pt2d_auth_tokens **out, struct pt2_error *err)
{
    char *buf = NULL;
    struct stat st;
    size_t n = 0;
    int fd = -1, rc = PT2_OK;

    *out = NULL;
    /* O_NONBLOCK: a FIFO (or a device) planted as the file must not block the open;
     * then only a regular file is read, so no read blocks either. */
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        rc = pt2_error_set(err, PT2_ERR_IO, "token file '%.200s': %s", path, strerror(errno));
        goto cleanup;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        rc = pt2_error_set(err, PT2_ERR_IO, "token file '%.200s' is not a regular file", path);
        goto cleanup;
    }
    /* One byte past the cap tells "exactly the cap" from "more". */
    buf = malloc(PT2D_AUTH_FILE_MAX + 1);
    if (buf == NULL) {
        rc = pt2_error_set(err, PT2_ERR_NOMEM, "token file: out of memory");
        goto cleanup;
    }
    while (n < PT2D_AUTH_FILE_MAX + 1) {
        ssize_t r = read(fd, buf + n, PT2D_AUTH_FILE_MAX + 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            rc = pt2_error_set(err, PT2_ERR_IO, "token file '%.200s': %s", path, strerror(errno));
            goto cleanup;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    rc = pt2d_auth_tokens_parse(buf, n, out, err);
cleanup:
    if (buf != NULL) {
        /* The buffer held secrets. */
        explicit_bzero(buf, n);
        free(buf);
    }
    if (fd >= 0)
        close(fd);
    return rc;
}

void pt2d_auth_tokens_free(struct pt2d_auth_tokens *t)
{
    free(t);
}

int pt2d_auth_tokens_match(const struct pt2d_auth_tokens *set, const char *token, size_t len)
{
    uint8_t d[PT2D_AUTH_DIGEST];
    unsigned i, found = 0;

    if (set == NULL)
        return 0;
    token_digest(token, len, d);
    /* Every token, every byte: no exit on the first match or mismatch. */
    for (i = 0; i < set->n; i++) {
        unsigned diff = 0, b;

        for (b = 0; b < PT2D_AUTH_DIGEST; b++)
            diff |= (unsigned)(set->digest[i][b] ^ d[b]);
        /* diff is 0..255: (diff - 1) >> 8 is all ones only for 0. */
        found |= ((diff - 1u) >> 8) & 1u;
    }
    return (int)found;
}

int pt2d_auth_bearer(const char *header, const char **token, size_t *len)
{
    const char *p = header;
    size_t n;

    *token = NULL;
    *len = 0;
    if (p == NULL)
        return PT2_ERR_NOT_FOUND;
    while (*p == ' ' || *p == '\t')
        p++;
    if (strncasecmp(p, "Bearer", 6) != 0 || (p[6] != ' ' && p[6] != '\t'))
        return PT2_ERR_NOT_FOUND;
    p += 6;
    while (*p == ' ' || *p == '\t')
        p++;
    n = strlen(p);
    while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
        n--;
    if (n == 0)
        return PT2_ERR_NOT_FOUND;
    *token = p;
    *len = n;
    return PT2_OK;
}

static int host_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
}

int pt2d_auth_host_name(const char *value, char *out, size_t cap)
{
    const char *name = value, *end, *port;
    size_t n, i;
    int v6 = 0;

    if (value == NULL || cap == 0)
        return PT2_ERR_INVALID;
    if (value[0] == '[') {
        name = value + 1;
        end = strchr(name, ']');
        if (end == NULL)
            return PT2_ERR_INVALID;
        port = end + 1;
        v6 = 1;
    } else {
        end = strchr(value, ':');
        port = end != NULL ? end : value + strlen(value);
        end = port;
    }
    /* Optional ":digits" (RFC 3986 also allows an empty port), nothing else. */
    if (*port == ':') {
        port++;
        if (strlen(port) > 5 || strspn(port, "0123456789") != strlen(port))
            return PT2_ERR_INVALID;
    } else if (*port != '\0') {
        return PT2_ERR_INVALID;
    }
    n = (size_t)(end - name);
    if (!v6 && n > 0 && name[n - 1] == '.')
        n--; /* "localhost." is the same name */
    if (n == 0 || n >= cap)
        return PT2_ERR_INVALID;
    for (i = 0; i < n; i++) {
        char c = name[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (!(host_char(c) || (v6 && (c == ':' || c == '%'))))
            return PT2_ERR_INVALID;
        out[i] = c;
    }
    out[n] = '\0';
    return PT2_OK;
}

int pt2d_auth_is_loopback(const char *name)
{
    struct in_addr a4;
    struct in6_addr a6;

    if (strcasecmp(name, "localhost") == 0)
        return 1;
    /* inet_pton takes only the strict dotted quad, so "127.1" or "0x7f.0.0.1" do not pass. */
    if (inet_pton(AF_INET, name, &a4) == 1)
        return ((const uint8_t *)&a4.s_addr)[0] == 127;
    if (inet_pton(AF_INET6, name, &a6) == 1)
        return IN6_IS_ADDR_LOOPBACK(&a6);
    return 0;
}

int pt2d_auth_host_allowed(const char *listen_host, const char (*allowed)[PT2D_HOST_MAX],
                           unsigned n_allowed, const char *host_header)
{
    char name[PT2D_HOST_MAX];
    unsigned i;

    if (!pt2d_auth_is_loopback(listen_host) && n_allowed == 0)
        return 1; /* nothing to defend: a routable listener without --allowed-host */
    if (host_header == NULL)
        return 1; /* HTTP/1.0 (HTTP/1.1 without Host is refused as bad framing first) */
    if (pt2d_auth_host_name(host_header, name, sizeof(name)) != PT2_OK)
        return 0;
    /* kubectl port-forward and local tools say localhost on any listener. */
    if (pt2d_auth_is_loopback(name) || strcasecmp(name, listen_host) == 0)
        return 1;
    for (i = 0; i < n_allowed; i++)
        if (strcmp(name, allowed[i]) == 0)
            return 1;
    return 0;
}

int pt2d_auth_route_needs_token(enum pt2d_route route, enum pt2d_method method, int metrics_public)
{
    /* Browsers send preflights without credentials; they carry no data. */
    if (method == PT2D_METHOD_OPTIONS)
        return 0;
    switch (route) {
    case PT2D_ROUTE_LIVEZ:
    case PT2D_ROUTE_READYZ:
    /* The page and the API reference are static: no package data. */
    case PT2D_ROUTE_PAGE:
    case PT2D_ROUTE_PAGE_JS:
    case PT2D_ROUTE_PAGE_CSS:
    case PT2D_ROUTE_DOCS:
    case PT2D_ROUTE_DOCS_JS:
    case PT2D_ROUTE_DOCS_CSS:
    case PT2D_ROUTE_DOCS_SLASH:
    case PT2D_ROUTE_OPENAPI_YAML:
    case PT2D_ROUTE_OPENAPI_JSON:
        return 0;
    case PT2D_ROUTE_METRICS:
        return !metrics_public;
    default:
        /* /v1/... and unknown paths: no probing for what exists without a token. */
        return 1;
    }
}

int pt2d_auth_create(struct pt2d_auth **out, const struct pt2d_auth_settings *cfg,
                     struct pt2_error *err)
{
    struct pt2d_auth *a = calloc(1, sizeof(*a));
    int rc = PT2_OK;

    *out = NULL;
    if (a == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "auth: out of memory");
    if (pthread_rwlock_init(&a->lock, NULL) != 0) {
        free(a);
        return pt2_error_set(err, PT2_ERR_INTERNAL, "auth: cannot create lock");
    }
    snprintf(a->token_file, sizeof(a->token_file), "%s", cfg->token_file);
    snprintf(a->listen_host, sizeof(a->listen_host), "%s", cfg->listen_host);
    a->n_allowed =
        cfg->n_allowed < PT2D_MAX_ALLOWED_HOSTS ? cfg->n_allowed : PT2D_MAX_ALLOWED_HOSTS;
    if (a->n_allowed > 0)
        memcpy(a->allowed, cfg->allowed, a->n_allowed * sizeof(a->allowed[0]));
    a->metrics_public = cfg->metrics_public;
    if (a->token_file[0] != '\0')
        rc = pt2d_auth_tokens_load(a->token_file, &a->tokens, err);
    if (rc != PT2_OK) {
        pt2d_auth_free(a);
        return rc;
    }
    *out = a;
    return PT2_OK;
}

void pt2d_auth_free(struct pt2d_auth *a)
{
    if (a == NULL)
        return;
    pt2d_auth_tokens_free(a->tokens);
    pthread_rwlock_destroy(&a->lock);
    free(a);
}

int pt2d_auth_has_tokens(const struct pt2d_auth *a)
{
    /* The file name never changes after create: no lock needed. */
    return a != NULL && a->token_file[0] != '\0';
}

int pt2d_auth_reload(struct pt2d_auth *a, unsigned *count, struct pt2_error *err)
{
    struct pt2d_auth_tokens *fresh = NULL, *old;
    int rc;

    *count = 0;
    if (!pt2d_auth_has_tokens(a))
        return PT2_OK;
    /* Parse outside the lock: requests keep using the old set meanwhile. */
    rc = pt2d_auth_tokens_load(a->token_file, &fresh, err);
    if (rc != PT2_OK) {
        pthread_rwlock_rdlock(&a->lock);
        *count = a->tokens != NULL ? a->tokens->n : 0;
        pthread_rwlock_unlock(&a->lock);
        return rc;
    }
    pthread_rwlock_wrlock(&a->lock);
    old = a->tokens;
    a->tokens = fresh;
    pthread_rwlock_unlock(&a->lock);
    *count = fresh->n;
    pt2d_auth_tokens_free(old);
    return PT2_OK;
}

void pt2d_auth_decide(struct pt2d_auth *a, enum pt2d_route route, enum pt2d_method method,
                      const char *host, const char *authorization, struct pt2d_auth_verdict *out)
{
    const char *token;
    size_t len;
    int ok;

    out->code = PT2_OK;
    out->detail = NULL;
    out->challenge = NULL;
    /* Probes answer whatever Host a kubelet or load balancer sends. */
    if (route != PT2D_ROUTE_LIVEZ && route != PT2D_ROUTE_READYZ &&
        !pt2d_auth_host_allowed(a->listen_host, (const char(*)[PT2D_HOST_MAX])a->allowed,
                                a->n_allowed, host)) {
        out->code = PT2_ERR_HOST_NOT_ALLOWED;
        out->detail = "this server does not answer for that Host (see --allowed-host)";
        return;
    }
    if (!pt2d_auth_has_tokens(a) || !pt2d_auth_route_needs_token(route, method, a->metrics_public))
        return;
    if (pt2d_auth_bearer(authorization, &token, &len) != PT2_OK) {
        out->code = PT2_ERR_UNAUTHORIZED;
        out->detail = "send Authorization: Bearer <token>";
        out->challenge = PT2D_AUTH_REALM;
        return;
    }
    pthread_rwlock_rdlock(&a->lock);
    ok = pt2d_auth_tokens_match(a->tokens, token, len);
    pthread_rwlock_unlock(&a->lock);
    if (!ok) {
        out->code = PT2_ERR_UNAUTHORIZED;
        out->detail = "the bearer token is not valid";
        out->challenge = PT2D_AUTH_REALM_INVALID;
    }
}
