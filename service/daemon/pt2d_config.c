/*
 * pt2d_config.c - flags and environment (see pt2d_config.h).
 *
 * One table lists every setting with its flag, its variable and the
 * function that validates and stores it, so the two sources cannot drift.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pt2d_alog.h"
#include "pt2d_auth.h"
#include "pt2_remote.h"
#include "pt2d_config.h"
#include "pt2d_pool.h"
#include "pt2d_url.h"
#include "pt2scope.h"

typedef int (*opt_apply_fn)(struct pt2d_config *cfg, const char *src, const char *value,
                            struct pt2_error *err);

struct opt {
    const char *flag;
    const char *env;
    const char *metavar;
    const char *help;
    opt_apply_fn apply;
    int list; /* repeatable; the variable form is split on `sep` */
    char sep;
    int boolean; /* a flag without a value; the variable takes 1/0, true/false, yes/no, on/off */
    int group;   /* where --help lists it (enum opt_group; 0: this node and the cluster) */
};

/* The topics of --help, in the order it lists them. */
enum opt_group {
    G_CLUSTER,
    G_LISTEN,
    G_PACKAGES,
    G_REMOTE,
    G_RUNTIME,
    G_LIMITS,
    G_AUTH,
    G_LOGGING
};
static const struct {
    int group;
    const char *title;
} groups[] = {
    {G_LISTEN, "listening (address, workers, shutdown)"},
    {G_PACKAGES, "packages (model roots, uploads, the result cache)"},
    {G_REMOTE, "remote packages (?url=, {\"url\"}; off until --remote-allow)"},
    {G_RUNTIME, "runtimes (does the library load there; a request's runtime= replaces them)"},
    {G_LIMITS, "limits (what one client may hold)"},
    {G_CLUSTER, "this node and the cluster (GPU probes, peers)"},
    {G_AUTH, "auth and browsers (tokens, Host names, CORS)"},
    {G_LOGGING, "logging: JSON lines on stderr (the listening address, then one access record per "
                "request; never a query string or a request header)"},
};

static int parse_uint(const char *src, const char *value, unsigned long lo, unsigned long hi,
                      unsigned *out, struct pt2_error *err)
{
    uint64_t v;

    if (pt2_num_u64(value, 10, &v) != PT2_OK || v < lo || v > hi)
        goto bad;
    *out = (unsigned)v;
    return PT2_OK;
bad:
    return pt2_error_set(err, PT2_ERR_INVALID, "%s: '%s' is not an integer in %lu..%lu", src, value,
                         lo, hi);
}

int pt2d_config_parse_size(const char *text, uint64_t *out, struct pt2_error *err)
{
    uint64_t v, mult = 1;
    const char *end = NULL;

    if (pt2_num_u64_prefix(text, 10, &v, &end) != PT2_OK)
        goto bad;
    switch (*end) {
    case '\0':
        break;
    case 'k':
    case 'K':
        mult = 1ull << 10;
        end++;
        break;
    case 'm':
    case 'M':
        mult = 1ull << 20;
        end++;
        break;
    case 'g':
    case 'G':
        mult = 1ull << 30;
        end++;
        break;
    case 't':
    case 'T':
        mult = 1ull << 40;
        end++;
        break;
    default:
        goto bad;
    }
    /* Accept the common spellings 16G, 16GB, 16GiB. */
    if (mult > 1 && (strcmp(end, "iB") == 0 || strcmp(end, "B") == 0))
        end += strlen(end);
    if (*end != '\0' || v == 0 || v > UINT64_MAX / mult)
        goto bad;
    *out = v * mult;
    return PT2_OK;
bad:
    return pt2_error_set(err, PT2_ERR_INVALID,
                         "'%s' is not a size (a positive number, optionally with K, M, G or T)",
                         text);
}

int pt2d_config_parse_listen(const char *text, char *host, size_t hostlen, uint16_t *port,
                             struct pt2_error *err)
{
    const char *colon, *hs = text, *he;
    unsigned p = 0;
    struct pt2_error perr = {0};

    if (text[0] == '[') {
        hs = text + 1;
        he = strchr(hs, ']');
        if (he == NULL || he[1] != ':')
            goto bad;
        colon = he + 1;
    } else {
        colon = strrchr(text, ':');
        if (colon == NULL || memchr(text, ':', (size_t)(colon - text)) != NULL)
            goto bad; /* an IPv6 address needs brackets */
        he = colon;
    }
    if (he == hs || (size_t)(he - hs) >= hostlen)
        goto bad;
    if (parse_uint("port", colon + 1, 0, 65535, &p, &perr) != PT2_OK)
        goto bad;
    memcpy(host, hs, (size_t)(he - hs));
    host[he - hs] = '\0';
    *port = (uint16_t)p;
    return PT2_OK;
bad:
    return pt2_error_set(err, PT2_ERR_INVALID,
                         "'%s' is not HOST:PORT (e.g. 127.0.0.1:8080 or [::1]:8080)", text);
}

static int set_listen(struct pt2d_config *cfg, const char *src, const char *v,
                      struct pt2_error *err)
{
    struct pt2_error e = {0};

    if (pt2d_config_parse_listen(v, cfg->host, sizeof(cfg->host), &cfg->port, &e) != PT2_OK)
        return pt2_error_set(err, PT2_ERR_INVALID, "%s: %s", src, e.message);
    return PT2_OK;
}

static int set_workers(struct pt2d_config *cfg, const char *src, const char *v,
                       struct pt2_error *err)
{
    return parse_uint(src, v, 1, PT2D_POOL_MAX_WORKERS, &cfg->workers, err);
}

static int set_queue(struct pt2d_config *cfg, const char *src, const char *v, struct pt2_error *err)
{
    return parse_uint(src, v, 1, PT2D_POOL_MAX_QUEUE, &cfg->queue, err);
}

static int set_timeout(struct pt2d_config *cfg, const char *src, const char *v,
                       struct pt2_error *err)
{
    /* Never 0: an idle or vanished client must not hold a slot (and its spool file) forever. */
    return parse_uint(src, v, 1, 86400, &cfg->request_timeout, err);
}

static int set_cache(struct pt2d_config *cfg, const char *src, const char *v, struct pt2_error *err)
{
    return parse_uint(src, v, 0, 100000, &cfg->cache_entries, err);
}

#ifdef PT2SCOPE_TEST_HOOKS
/* Test builds only: the file gate (pt2d_gate.h); it need not exist yet. */
static int set_test_gate(struct pt2d_config *cfg, const char *src, const char *v,
                         struct pt2_error *err)
{
    if (v[0] == '\0' || strlen(v) >= sizeof(cfg->test_gate_file))
        return pt2_error_set(err, PT2_ERR_INVALID, "%s: '%s' is not a file name", src, v);
    snprintf(cfg->test_gate_file, sizeof(cfg->test_gate_file), "%s", v);
    return PT2_OK;
}
#endif

/* A size setting ("16G", "512M", "64K", "1024"), its error prefixed with where it came from. */
static int parse_size(const char *src, const char *value, uint64_t *out, struct pt2_error *err)
{
    struct pt2_error e = {0};

    if (pt2d_config_parse_size(value, out, &e) != PT2_OK)
        return pt2_error_set(err, PT2_ERR_INVALID, "%s: %s", src, e.message);
    return PT2_OK;
}

static int set_max_upload(struct pt2d_config *cfg, const char *src, const char *v,
                          struct pt2_error *err)
{
    return parse_size(src, v, &cfg->max_upload, err);
}

/* Canonical path of an existing directory. */
static int canonical_dir(const char *src, const char *v, char *out, size_t cap,
                         struct pt2_error *err)
{
    struct stat st;
    char *rp;

    if (v[0] == '\0')
        return pt2_error_set(err, PT2_ERR_INVALID, "%s: empty directory name", src);
    rp = realpath(v, NULL);
    if (rp == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "%s: '%s': %s", src, v, strerror(errno));
    if (stat(rp, &st) != 0 || !S_ISDIR(st.st_mode)) {
        free(rp);
        return pt2_error_set(err, PT2_ERR_INVALID, "%s: '%s' is not a directory", src, v);
    }
    if (strlen(rp) >= cap) {
        free(rp);
        return pt2_error_set(err, PT2_ERR_INVALID, "%s: '%s' is too long", src, v);
    }
    snprintf(out, cap, "%s", rp);
    free(rp);
    return PT2_OK;
}

static int add_root(struct pt2d_config *cfg, const char *src, const char *v, struct pt2_error *err)
{
    if (cfg->n_roots == PT2D_MAX_ROOTS)
        return pt2_error_set(err, PT2_ERR_INVALID, "%s: more than %d model roots", src,
                             PT2D_MAX_ROOTS);
    if (canonical_dir(src, v, cfg->roots[cfg->n_roots], sizeof(cfg->roots[0]), err) != PT2_OK)
        return PT2_ERR_INVALID;
    cfg->n_roots++;
    return PT2_OK;
}

static int set_spool(struct pt2d_config *cfg, const char *src, const char *v, struct pt2_error *err)
{
    if (canonical_dir(src, v, cfg->spool_dir, sizeof(cfg->spool_dir), err) != PT2_OK)
        return PT2_ERR_INVALID;
    if (access(cfg->spool_dir, W_OK | X_OK) != 0)
        return pt2_error_set(err, PT2_ERR_INVALID, "%s: '%s' is not writable", src, v);
    return PT2_OK;
}

static int add_origin(struct pt2d_config *cfg, const char *src, const char *v,
                      struct pt2_error *err)
{
    if (v[0] == '\0')
        return PT2_OK; /* "a,,b" and a trailing comma are harmless */
    if (strlen(v) >= PT2D_ORIGIN_MAX || (strcmp(v, "*") != 0 && !pt2d_url_ok(v, PT2D_URL_ORIGIN)))
        return pt2_error_set(err, PT2_ERR_INVALID,
                             "%s: '%s' is not an origin (* or http[s]://host[:port])", src, v);
    if (cfg->n_origins == PT2D_MAX_ORIGINS)
        return pt2_error_set(err, PT2_ERR_INVALID, "%s: more than %d origins", src,
                             PT2D_MAX_ORIGINS);
    snprintf(cfg->origins[cfg->n_origins++], PT2D_ORIGIN_MAX, "%s", v);
    return PT2_OK;
}

static int set_port_file(struct pt2d_config *cfg, const char *src, const char *v,
                         struct pt2_error *err)
{
    if (v[0] == '\0' || strlen(v) >= sizeof(cfg->port_file))
        return pt2_error_set(err, PT2_ERR_INVALID, "%s: bad file name '%s'", src, v);
    snprintf(cfg->port_file, sizeof(cfg->port_file), "%s", v);
    return PT2_OK;
}

static int set_libcuda(struct pt2d_config *cfg, const char *src, const char *v,
                       struct pt2_error *err)
{
    /* Not checked for existence: a missing driver is a fact /v1/node reports. */
    if (v[0] == '\0' || strlen(v) >= sizeof(cfg->libcuda))
        return pt2_error_set(err, PT2_ERR_INVALID, "%s: bad library path '%.64s'", src, v);
    snprintf(cfg->libcuda, sizeof(cfg->libcuda), "%s", v);
    return PT2_OK;
}

static int set_sysfs_root(struct pt2d_config *cfg, const char *src, const char *v,
                          struct pt2_error *err)
{
    /* Not checked for existence: a node without amdgpu has no KFD topology there. */
    if (v[0] == '\0' || strlen(v) >= sizeof(cfg->sysfs_root))
        return pt2_error_set(err, PT2_ERR_INVALID, "%s: bad directory '%.64s'", src, v);
    snprintf(cfg->sysfs_root, sizeof(cfg->sysfs_root), "%s", v);
    return PT2_OK;
}

static int set_node_name(struct pt2d_config *cfg, const char *src, const char *v,
                         struct pt2_error *err)
{
    size_t i;

    for (i = 0; v[i] != '\0'; i++)
        if ((unsigned char)v[i] <= 0x20 || (unsigned char)v[i] >= 0x7f)
            break;
    if (v[0] == '\0' || v[i] != '\0' || i >= sizeof(cfg->node_name))
        return pt2_error_set(err, PT2_ERR_INVALID,
                             "%s: '%.64s' is not a node name (printable, no spaces)", src, v);
    snprintf(cfg->node_name, sizeof(cfg->node_name), "%s", v);
    return PT2_OK;
}

static int add_peer(struct pt2d_config *cfg, const char *src, const char *v, struct pt2_error *err)
{
    char url[PT2D_PEER_URL_MAX];
    size_t n = strlen(v);

    /* "http://a:8080/" and "http://a:8080" are the same peer. */
    while (n > 0 && v[n - 1] == '/')
        n--;
    if (n == 0 || n >= sizeof(url))
        return pt2_error_set(err, PT2_ERR_INVALID, "%s: '%.64s' is not a peer URL", src, v);
    memcpy(url, v, n);
    url[n] = '\0';
    if (!pt2d_url_ok(url, PT2D_URL_PEER))
        return pt2_error_set(err, PT2_ERR_INVALID,
                             "%s: '%.64s' is not a peer URL (http[s]://host[:port])", src, v);
    if (cfg->n_peers == PT2D_MAX_PEERS)
        return pt2_error_set(err, PT2_ERR_INVALID, "%s: more than %d peers", src, PT2D_MAX_PEERS);
    snprintf(cfg->peers[cfg->n_peers++], PT2D_PEER_URL_MAX, "%s", url);
    return PT2_OK;
}

static int set_peers_dns(struct pt2d_config *cfg, const char *src, const char *v,
                         struct pt2_error *err)
{
    size_t i;

    /* A DNS name or a numeric address, nothing a resolver would have to guess at. */
    for (i = 0; v[i] != '\0'; i++) {
        char c = v[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '-' || c == '_' || c == ':'))
            break;
    }
    if (v[0] == '\0' || v[i] != '\0' || i >= sizeof(cfg->peers_dns))
        return pt2_error_set(err, PT2_ERR_INVALID, "%s: '%.64s' is not a DNS name", src, v);
    snprintf(cfg->peers_dns, sizeof(cfg->peers_dns), "%s", v);
    return PT2_OK;
}

static int set_peers_port(struct pt2d_config *cfg, const char *src, const char *v,
                          struct pt2_error *err)
{
    unsigned port = 0;
    int rc = parse_uint(src, v, 1, 65535, &port, err);

    cfg->peers_port = (uint16_t)port;
    return rc;
}

static int set_peer_timeout(struct pt2d_config *cfg, const char *src, const char *v,
                            struct pt2_error *err)
{
    return parse_uint(src, v, 1, 300, &cfg->peer_timeout, err);
}

static int set_drain_delay(struct pt2d_config *cfg, const char *src, const char *v,
                           struct pt2_error *err)
{
    return parse_uint(src, v, 0, 300, &cfg->drain_delay, err);
}

static int set_drain_timeout(struct pt2d_config *cfg, const char *src, const char *v,
                             struct pt2_error *err)
{
    return parse_uint(src, v, 0, 3600, &cfg->drain_timeout, err);
}

static int set_max_uploads(struct pt2d_config *cfg, const char *src, const char *v,
                           struct pt2_error *err)
{
    return parse_uint(src, v, 0, 65536, &cfg->max_uploads, err);
}

static int set_memory_budget(struct pt2d_config *cfg, const char *src, const char *v,
                             struct pt2_error *err)
{
    return parse_size(src, v, &cfg->memory_budget, err);
}

static int set_cache_bytes(struct pt2d_config *cfg, const char *src, const char *v,
                           struct pt2_error *err)
{
    return parse_size(src, v, &cfg->cache_bytes, err);
}

static int set_header_timeout(struct pt2d_config *cfg, const char *src, const char *v,
                              struct pt2_error *err)
{
    return parse_uint(src, v, 0, 3600, &cfg->header_timeout, err);
}

static int set_max_connections(struct pt2d_config *cfg, const char *src, const char *v,
                               struct pt2_error *err)
{
    return parse_uint(src, v, 0, 1000000, &cfg->max_connections, err);
}

static int set_access_log_flush(struct pt2d_config *cfg, const char *src, const char *v,
                                struct pt2_error *err)
{
    return parse_uint(src, v, 0, PT2D_ALOG_FLUSH_MS_MAX, &cfg->access_log_flush_ms, err);
}

static int set_max_connections_per_ip(struct pt2d_config *cfg, const char *src, const char *v,
                                      struct pt2_error *err)
{
    return parse_uint(src, v, 0, 1000000, &cfg->max_connections_per_ip, err);
}

static int set_peer_connect_timeout(struct pt2d_config *cfg, const char *src, const char *v,
                                    struct pt2_error *err)
{
    return parse_uint(src, v, 1, 300, &cfg->peer_connect_timeout, err);
}

/* Checked now, so a bad file is exit 2 at start; the server reads it again (and on SIGHUP). */
static int set_token_file(struct pt2d_config *cfg, const char *src, const char *v,
                          struct pt2_error *err)
{
    struct pt2d_auth_tokens *t = NULL;
    struct pt2_error e = {0};

    if (v[0] == '\0' || strlen(v) >= sizeof(cfg->token_file))
        return pt2_error_set(err, PT2_ERR_INVALID, "%s: bad file name '%.64s'", src, v);
    if (pt2d_auth_tokens_load(v, &t, &e) != PT2_OK)
        return pt2_error_set(err, PT2_ERR_INVALID, "%s: %s", src, e.message);
    pt2d_auth_tokens_free(t);
    snprintf(cfg->token_file, sizeof(cfg->token_file), "%s", v);
    return PT2_OK;
}

static int set_metrics_public(struct pt2d_config *cfg, const char *src, const char *v,
                              struct pt2_error *err)
{
    static const char *const yes[] = {"1", "true", "yes", "on"};
    static const char *const no[] = {"0", "false", "no", "off", ""};
    size_t i;

    for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
        if (strcasecmp(v, yes[i]) == 0) {
            cfg->metrics_public = 1;
            return PT2_OK;
        }
    for (i = 0; i < sizeof(no) / sizeof(no[0]); i++)
        if (strcasecmp(v, no[i]) == 0) {
            cfg->metrics_public = 0;
            return PT2_OK;
        }
    return pt2_error_set(err, PT2_ERR_INVALID, "%s: '%.64s' is not a boolean (1/0, true/false)",
                         src, v);
}

static int add_allowed_host(struct pt2d_config *cfg, const char *src, const char *v,
                            struct pt2_error *err)
{
    char name[PT2D_HOST_MAX];

    if (v[0] == '\0')
        return PT2_OK; /* "a,,b" and a trailing comma are harmless */
    /* Stored as a Host header's name is compared: lowercase, no port or brackets. */
    if (pt2d_auth_host_name(v, name, sizeof(name)) != PT2_OK)
        return pt2_error_set(err, PT2_ERR_INVALID,
                             "%s: '%.64s' is not a host name (NAME, IPv4 or [IPv6])", src, v);
    if (cfg->n_allowed_hosts == PT2D_MAX_ALLOWED_HOSTS)
        return pt2_error_set(err, PT2_ERR_INVALID, "%s: more than %d host names", src,
                             PT2D_MAX_ALLOWED_HOSTS);
    snprintf(cfg->allowed_hosts[cfg->n_allowed_hosts++], PT2D_HOST_MAX, "%s", name);
    return PT2_OK;
}

static int add_remote_allow(struct pt2d_config *cfg, const char *src, const char *v,
                            struct pt2_error *err)
{
    struct pt2_error e = {0};

    if (v[0] == '\0')
        return PT2_OK; /* "a,,b" and a trailing comma are harmless */
    if (strlen(v) >= PT2D_REMOTE_PREFIX_MAX)
        return pt2_error_set(err, PT2_ERR_INVALID, "%s: prefix longer than %d bytes", src,
                             PT2D_REMOTE_PREFIX_MAX - 1);
    /* The remote layer says what a prefix may be (its one rule for it). */
    if (pt2_remote_check_allow(v, &e) != PT2_OK)
        return pt2_error_set(err, PT2_ERR_INVALID, "%s: %s", src, e.message);
    if (cfg->n_remote_allow == PT2D_MAX_REMOTE_ALLOW)
        return pt2_error_set(err, PT2_ERR_INVALID, "%s: more than %d prefixes", src,
                             PT2D_MAX_REMOTE_ALLOW);
    snprintf(cfg->remote_allow[cfg->n_remote_allow++], PT2D_REMOTE_PREFIX_MAX, "%s", v);
    return PT2_OK;
}

static int set_remote_timeout(struct pt2d_config *cfg, const char *src, const char *v,
                              struct pt2_error *err)
{
    return parse_uint(src, v, 1, 3600, &cfg->remote_timeout, err);
}

static int set_remote_max_download(struct pt2d_config *cfg, const char *src, const char *v,
                                   struct pt2_error *err)
{
    return parse_size(src, v, &cfg->remote_max_download, err);
}

static int set_remote_max_bytes(struct pt2d_config *cfg, const char *src, const char *v,
                                struct pt2_error *err)
{
    int rc = parse_size(src, v, &cfg->remote_max_bytes, err);

    if (rc == PT2_OK && cfg->remote_max_bytes == 0)
        return pt2_error_set(err, PT2_ERR_INVALID, "%s: must be more than 0", src);
    return rc;
}

static int add_runtime(struct pt2d_config *cfg, const char *src, const char *v,
                       struct pt2_error *err)
{
    struct pt2_error e = {0};
    pt2_runtime *rt = NULL;

    if (v[0] == '\0')
        return PT2_OK;
    /* The library says what a spec may be (its one rule for it). */
    if (pt2_runtime_parse(v, &rt, &e) != PT2_OK)
        return pt2_error_set(err, PT2_ERR_INVALID, "%s: %s", src, e.message);
    pt2_runtime_free(rt);
    if (cfg->n_runtimes == PT2D_MAX_CFG_RUNTIMES)
        return pt2_error_set(err, PT2_ERR_INVALID, "%s: more than %d runtimes", src,
                             PT2D_MAX_CFG_RUNTIMES);
    snprintf(cfg->runtimes[cfg->n_runtimes++], PT2D_CFG_RUNTIME_MAX, "%s", v);
    return PT2_OK;
}

static int set_path_setting(char *dst, const char *src, const char *v, struct pt2_error *err)
{
    if (v[0] == '\0' || strlen(v) >= PT2D_PATH_MAX)
        return pt2_error_set(err, PT2_ERR_INVALID, "%s: empty or longer than %d bytes", src,
                             PT2D_PATH_MAX - 1);
    snprintf(dst, PT2D_PATH_MAX, "%s", v);
    return PT2_OK;
}

static int set_sysroot(struct pt2d_config *cfg, const char *src, const char *v,
                       struct pt2_error *err)
{
    return set_path_setting(cfg->sysroot, src, v, err);
}

static int set_libtorch(struct pt2d_config *cfg, const char *src, const char *v,
                        struct pt2_error *err)
{
    return set_path_setting(cfg->libtorch, src, v, err);
}

static const struct opt opts[] = {
    {"--listen", "PT2SCOPE_LISTEN", "HOST:PORT",
     "address to listen on (default 127.0.0.1:8080; [::1]:PORT for IPv6; port 0 = any free)",
     set_listen, 0, 0, 0, .group = G_LISTEN},
    {"--workers", "PT2SCOPE_WORKERS", "N", "worker threads doing archive work (default: CPUs)",
     set_workers, 0, 0, 0, .group = G_LISTEN},
    {"--queue", "PT2SCOPE_QUEUE", "N", "jobs that may wait for a worker before 503 (default 64)",
     set_queue, 0, 0, 0, .group = G_LISTEN},
    {"--model-root", "PT2SCOPE_MODEL_ROOT", "DIR",
     "directory that path references resolve in (repeatable; variable: colon-separated)", add_root,
     1, ':', 0, .group = G_PACKAGES},
    {"--spool-dir", "PT2SCOPE_SPOOL_DIR", "DIR", "where uploads are spooled (default $TMPDIR)",
     set_spool, 0, 0, 0, .group = G_PACKAGES},
    {"--max-upload", "PT2SCOPE_MAX_UPLOAD", "SIZE", "largest upload, e.g. 16G, 512M (default 16G)",
     set_max_upload, 0, 0, 0, .group = G_PACKAGES},
    {"--cors-origin", "PT2SCOPE_CORS_ORIGIN", "ORIGIN",
     "allowed browser origin or * (repeatable; comma lists accepted)", add_origin, 1, ',', 0,
     .group = G_AUTH},
    {"--request-timeout", "PT2SCOPE_REQUEST_TIMEOUT", "SECONDS",
     "idle connection timeout, 1..86400 (default 60)", set_timeout, 0, 0, 0, .group = G_LIMITS},
    {"--cache-entries", "PT2SCOPE_CACHE_ENTRIES", "N",
     "inspection results kept in memory (default 256; 0 = no cache)", set_cache, 0, 0, 0,
     .group = G_PACKAGES},
    {"--port-file", "PT2SCOPE_PORT_FILE", "FILE", "write the bound port to FILE once listening",
     set_port_file, 0, 0, 0, .group = G_LISTEN},
    {"--libcuda", "PT2SCOPE_LIBCUDA", "PATH",
     "CUDA driver library to load at run time (default libcuda.so.1)", set_libcuda, 0, 0, 0,
     .group = G_CLUSTER},
    {"--sysfs-root", "PT2SCOPE_SYSFS_ROOT", "DIR",
     "sysfs to read AMD GPUs from (class/kfd/kfd/topology; default /sys)", set_sysfs_root, 0, 0, 0,
     .group = G_CLUSTER},
    {"--node-name", "PT2SCOPE_NODE_NAME", "NAME",
     "name /v1/node reports (default: the host name; in Kubernetes use spec.nodeName)",
     set_node_name, 0, 0, 0, .group = G_CLUSTER},
    {"--peer", "PT2SCOPE_PEERS", "URL",
     "cluster peer, e.g. http://10.0.0.7:8080 (repeatable; variable: comma-separated)", add_peer, 1,
     ',', 0, .group = G_CLUSTER},
    {"--peers-dns", "PT2SCOPE_PEERS_DNS", "NAME",
     "headless Service whose A/AAAA records are peers, resolved per request", set_peers_dns, 0, 0,
     0, .group = G_CLUSTER},
    {"--peers-port", "PT2SCOPE_PEERS_PORT", "PORT",
     "port of the --peers-dns peers (default: this daemon's port)", set_peers_port, 0, 0, 0,
     .group = G_CLUSTER},
    {"--peer-timeout", "PT2SCOPE_PEER_TIMEOUT", "SECONDS",
     "limit on each peer request, connection included (default 5)", set_peer_timeout, 0, 0, 0,
     .group = G_CLUSTER},
    {"--peer-connect-timeout", "PT2SCOPE_PEER_CONNECT_TIMEOUT", "SECONDS",
     "limit on connecting to a peer (default 2)", set_peer_connect_timeout, 0, 0, 0,
     .group = G_CLUSTER},
    {"--drain-delay", "PT2SCOPE_DRAIN_DELAY", "SECONDS",
     "after SIGTERM keep serving this long with /readyz 503 before closing the listener, 0..300 "
     "(default 0)",
     set_drain_delay, 0, 0, 0, .group = G_LISTEN},
    {"--drain-timeout", "PT2SCOPE_DRAIN_TIMEOUT", "SECONDS",
     "after closing the listener, wait this long for running jobs, then exit; queued jobs are "
     "answered 503 at once (default 25: with the default --drain-delay 0 it fits Kubernetes' 30 s "
     "grace period)",
     set_drain_timeout, 0, 0, 0, .group = G_LISTEN},
    {"--max-uploads", "PT2SCOPE_MAX_UPLOADS", "N",
     "uploads spooled at once; more are refused with 503 (default 0 = no limit)", set_max_uploads,
     0, 0, 0, .group = G_PACKAGES},
    {"--cache-bytes", "PT2SCOPE_CACHE_BYTES", "SIZE",
     "bound on the memory the cached packages hold (each counted with its largest response "
     "memo); the least recently used go first (default 64M, 0 = only --cache-entries)",
     set_cache_bytes, 0, 0, 0, .group = G_PACKAGES},
    {"--header-timeout", "PT2SCOPE_HEADER_TIMEOUT", "SECONDS",
     "a request's headers must arrive within this long of the connection opening (or of the "
     "previous response), however slowly they trickle, and its body within this long plus 1 s "
     "per 16 KiB; then the connection is cut (default 30, 0 = none)",
     set_header_timeout, 0, 0, 0, .group = G_LIMITS},
    {"--memory-budget", "PT2SCOPE_MEMORY_BUDGET", "SIZE",
     "request body bytes held in memory at once (JSON bodies, kept form fields), all "
     "connections together; more are refused with 503 (default 128M: within a 256 MiB "
     "container; 0 = no limit)",
     set_memory_budget, 0, 0, 0, .group = G_LIMITS},
    {"--max-connections", "PT2SCOPE_MAX_CONNECTIONS", "N",
     "open connections at once; more are closed on arrival (default 0 = the descriptor limit "
     "less 128, kept for packages, spool files and peers)",
     set_max_connections, 0, 0, 0, .group = G_LIMITS},
    {"--max-connections-per-ip", "PT2SCOPE_MAX_CONNECTIONS_PER_IP", "N",
     "open connections from one client address; more are closed on arrival, so one client "
     "cannot hold every connection (default 128, 0 = no limit)",
     set_max_connections_per_ip, 0, 0, 0, .group = G_LIMITS},
    {"--token-file", "PT2SCOPE_TOKEN_FILE", "FILE",
     "bearer tokens, one a line (# comments); then /v1/* and /metrics need Authorization: Bearer; "
     "re-read on SIGHUP",
     set_token_file, 0, 0, 0, .group = G_AUTH},
    {"--metrics-public", "PT2SCOPE_METRICS_PUBLIC", NULL,
     "serve /metrics without a token even with --token-file", set_metrics_public, 0, 0, 1,
     .group = G_AUTH},
    {"--allowed-host", "PT2SCOPE_ALLOWED_HOSTS", "NAME",
     "Host name answered besides loopback names (repeatable; comma lists accepted); given, it is "
     "enforced on any listener",
     add_allowed_host, 1, ',', 0, .group = G_AUTH},
    {"--remote-allow", "PT2SCOPE_REMOTE_ALLOW", "PREFIX",
     "allow ?url= / {\"url\"} packages under this URL prefix, e.g. https://models.example.com/ "
     "or s3://bucket/ (repeatable; variable: comma-separated; default none: URLs refused); hosts "
     "on loopback, private or link-local addresses only when a prefix names them literally",
     add_remote_allow, 1, ',', 0, .group = G_REMOTE},
    {"--remote-timeout", "PT2SCOPE_REMOTE_TIMEOUT", "SECONDS",
     "limit on reading one remote package, every request together, 1..3600 (default 30)",
     set_remote_timeout, 0, 0, 0, .group = G_REMOTE},
    {"--remote-max-download", "PT2SCOPE_REMOTE_MAX_DOWNLOAD", "SIZE",
     "a server without Range support: objects up to SIZE are downloaded to the spool and "
     "inspected there, larger ones refused with remote-no-range (default 256M)",
     set_remote_max_download, 0, 0, 0, .group = G_REMOTE},
    {"--remote-max-bytes", "PT2SCOPE_REMOTE_MAX_BYTES", "SIZE",
     "bytes transferred for one remote package with Range requests (default 64M)",
     set_remote_max_bytes, 0, 0, 0, .group = G_REMOTE},
    {"--runtime", "PT2SCOPE_RUNTIME", "SPEC",
     "judge every answer's library needs against this runtime, e.g. debian12, "
     "ubuntu22.04,torch=2.8, glibc=2.36, local (repeatable; variable: ';'-separated); a "
     "request's runtime= replaces it",
     add_runtime, 1, ';', 0, .group = G_RUNTIME},
    {"--sysroot", "PT2SCOPE_SYSROOT", "DIR",
     "judge every answer against the serving image mounted at DIR (read-only; resolved as "
     "its dynamic loader would)",
     set_sysroot, 0, 0, 0, .group = G_RUNTIME},
    {"--libtorch", "PT2SCOPE_LIBTORCH", "PATH",
     "judge torch shims against this libtorch_cpu.so (or its folder) exactly", set_libtorch, 0, 0,
     0, .group = G_RUNTIME},
    {"--access-log-flush-ms", "PT2SCOPE_ACCESS_LOG_FLUSH_MS", "MS",
     "access lines wait in their HTTP thread's buffer (4 KiB) at most MS before they are "
     "written, one write for many; 0 = each written as its request ends, 0..10000 (default "
     "100)",
     set_access_log_flush, 0, 0, 0, .group = G_LOGGING},
#ifdef PT2SCOPE_TEST_HOOKS
    {"--test-gate", "PT2SCOPE_TEST_GATE", "FILE",
     "test build only: every package job waits (up to 30 s) until FILE exists", set_test_gate, 0, 0,
     0, .group = G_LIMITS},
#endif
};
#define N_OPTS (sizeof(opts) / sizeof(opts[0]))

void pt2d_config_defaults(struct pt2d_config *cfg)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    const char *tmp = getenv("TMPDIR");

    memset(cfg, 0, sizeof(*cfg));
    cfg->action = PT2D_RUN;
    snprintf(cfg->host, sizeof(cfg->host), "127.0.0.1");
    cfg->port = 8080;
    cfg->workers = ncpu < 2 ? 2 : ncpu > 64 ? 64 : (unsigned)ncpu;
    cfg->queue = 64;
    snprintf(cfg->spool_dir, sizeof(cfg->spool_dir), "%s",
             tmp != NULL && tmp[0] == '/' && strlen(tmp) < PT2D_PATH_MAX ? tmp : "/tmp");
    cfg->max_upload = 16ull << 30;
    cfg->request_timeout = 60;
    cfg->cache_entries = 256;
    cfg->peer_timeout = 5;
    cfg->peer_connect_timeout = 2;
    cfg->drain_timeout = 25;
    cfg->max_connections_per_ip = 128;
    cfg->access_log_flush_ms = 100;
    cfg->memory_budget = 128ull << 20;
    cfg->header_timeout = 30;
    cfg->cache_bytes = 64ull << 20;
    cfg->remote_timeout = 30;
    cfg->remote_max_download = PT2_REMOTE_MAX_DOWNLOAD_DEFAULT;
    cfg->remote_max_bytes = PT2_REMOTE_MAX_BYTES_DEFAULT;
}

/* Apply one value; list settings split it on their separator. */
static int apply_value(struct pt2d_config *cfg, const struct opt *o, const char *src,
                       const char *value, struct pt2_error *err)
{
    char item[PT2D_PATH_MAX];
    const char *p = value;

    if (!o->list)
        return o->apply(cfg, src, value, err);
    for (;;) {
        size_t n = strcspn(p, (char[]){o->sep, '\0'});
        if (n >= sizeof(item))
            return pt2_error_set(err, PT2_ERR_INVALID, "%s: value too long", src);
        memcpy(item, p, n);
        item[n] = '\0';
        if (item[0] != '\0' && o->apply(cfg, src, item, err) != PT2_OK)
            return PT2_ERR_INVALID;
        if (p[n] == '\0')
            return PT2_OK;
        p += n + 1;
    }
}

static const char *env_lookup(char *const envp[], const char *name)
{
    size_t n = strlen(name), i;

    for (i = 0; envp != NULL && envp[i] != NULL; i++)
        if (strncmp(envp[i], name, n) == 0 && envp[i][n] == '=')
            return envp[i] + n + 1;
    return NULL;
}

int pt2d_config_load(struct pt2d_config *cfg, int argc, char *const argv[], char *const envp[],
                     struct pt2_error *err)
{
    enum { OPT_HELP = 1, OPT_VERSION = 2, OPT_HEALTHCHECK = 3, OPT_TABLE = 0x100 };
    struct option lo[N_OPTS + 4];
    int given[N_OPTS] = {0};
    size_t k, npairs = 0;
    struct {
        size_t k;
        const char *value;
    } *pairs = NULL;
    int c, rc = PT2_OK;

    for (k = 0; k < N_OPTS; k++)
        lo[k] = (struct option){opts[k].flag + 2, opts[k].boolean ? no_argument : required_argument,
                                NULL, OPT_TABLE + (int)k};
    lo[N_OPTS] = (struct option){"help", no_argument, NULL, OPT_HELP};
    lo[N_OPTS + 1] = (struct option){"version", no_argument, NULL, OPT_VERSION};
    lo[N_OPTS + 2] = (struct option){"healthcheck", no_argument, NULL, OPT_HEALTHCHECK};
    lo[N_OPTS + 3] = (struct option){NULL, 0, NULL, 0};
    pairs = calloc((size_t)(argc > 0 ? argc : 1), sizeof(*pairs));
    if (pairs == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory reading options");
    /* getopt_long permutes argv; the caller's array is its to permute (main's argv). */
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, (char **)argv, ":h", lo, NULL)) != -1) {
        if (c == 'h' || c == OPT_HELP) {
            cfg->action = PT2D_SHOW_HELP;
            goto cleanup;
        }
        if (c == OPT_VERSION) {
            cfg->action = PT2D_SHOW_VERSION;
            goto cleanup;
        }
        if (c == OPT_HEALTHCHECK) {
            /* The rest still applies: the check asks the address the daemon would listen on. */
            cfg->action = PT2D_HEALTHCHECK;
            continue;
        }
        if (c == ':') {
            rc = pt2_error_set(err, PT2_ERR_INVALID, "%s needs a value", argv[optind - 1]);
            goto cleanup;
        }
        if (c < OPT_TABLE) {
            rc = pt2_error_set(err, PT2_ERR_INVALID, "unknown option '%s' (see --help)",
                               argv[optind - 1]);
            goto cleanup;
        }
        pairs[npairs].k = (size_t)(c - OPT_TABLE);
        pairs[npairs++].value = opts[c - OPT_TABLE].boolean ? "true" : optarg;
        given[c - OPT_TABLE] = 1;
    }
    if (optind < argc) {
        rc = pt2_error_set(err, PT2_ERR_INVALID, "unexpected argument '%s' (see --help)",
                           argv[optind]);
        goto cleanup;
    }
    /* A flag wins over its variable: the variable is then not even validated. */
    for (k = 0; k < N_OPTS; k++) {
        const char *v = given[k] ? NULL : env_lookup(envp, opts[k].env);
        if (v != NULL && apply_value(cfg, &opts[k], opts[k].env, v, err) != PT2_OK) {
            rc = PT2_ERR_INVALID;
            goto cleanup;
        }
    }
    for (k = 0; k < npairs; k++)
        if (apply_value(cfg, &opts[pairs[k].k], opts[pairs[k].k].flag, pairs[k].value, err) !=
            PT2_OK) {
            rc = PT2_ERR_INVALID;
            goto cleanup;
        }
cleanup:
    free(pairs);
    return rc;
}

void pt2d_config_usage(FILE *out)
{
    size_t g, k;

    fprintf(out,
            "usage: pt2scoped [OPTION...]\n\n"
            "HTTP service that inspects PyTorch AOTInductor .pt2 packages (pt2scope %s).\n"
            "Each option may also be set with its environment variable; the flag wins.\n\n",
            PT2SCOPE_VERSION);
    for (g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
        fprintf(out, "%s%s\n", g > 0 ? "\n" : "", groups[g].title);
        for (k = 0; k < N_OPTS; k++)
            if (opts[k].group == groups[g].group)
                fprintf(out, "  %s%s%s\n      %s [%s]\n", opts[k].flag,
                        opts[k].metavar != NULL ? " " : "",
                        opts[k].metavar != NULL ? opts[k].metavar : "", opts[k].help, opts[k].env);
    }
    fprintf(out, "\nother\n");
    fprintf(out,
            "  --healthcheck\n      exit 0 when GET /livez on the --listen address answers 200 "
            "within 2 s, else 1 (for a container HEALTHCHECK)\n");
    fprintf(out, "  --help, --version\n");
}
