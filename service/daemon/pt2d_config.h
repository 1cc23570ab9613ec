/*
 * pt2d_config.h - pt2scoped settings from flags and PT2SCOPE_* variables.
 *
 * Design: defaults, then the environment, then flags (a flag wins over its
 * variable; a repeatable flag replaces the variable's whole list). Every
 * value is validated here, so the server can trust the struct; a bad value
 * yields one line for stderr and exit status 2.
 *
 * Ownership: a plain value with fixed-size arrays; nothing to free.
 */
#ifndef PT2D_CONFIG_H
#define PT2D_CONFIG_H

#include <stdint.h>
#include <stdio.h>

#include "pt2scope.h"
#include "pt2d_auth.h"
#include "pt2d_path.h"

#define PT2D_MAX_ROOTS 16
#define PT2D_MAX_ORIGINS 16
#define PT2D_ORIGIN_MAX 256
#define PT2D_MAX_PEERS 64
#define PT2D_PEER_URL_MAX 256 /* "http://host:port", no trailing slash */
#define PT2D_MAX_REMOTE_ALLOW 32
#define PT2D_MAX_CFG_RUNTIMES 8
#define PT2D_CFG_RUNTIME_MAX 257
#define PT2D_REMOTE_PREFIX_MAX 1024

struct pt2d_gate;

/* PT2D_HEALTHCHECK (--healthcheck): ask the configured address's /livez, exit (pt2d_health.h). */
enum pt2d_config_action { PT2D_RUN = 0, PT2D_SHOW_HELP, PT2D_SHOW_VERSION, PT2D_HEALTHCHECK };

struct pt2d_config {
    enum pt2d_config_action action;
    char host[PT2D_HOST_MAX]; /* numeric address or name, no brackets */
    uint16_t port;            /* 0 = ephemeral */
    unsigned workers;
    unsigned queue;
    char roots[PT2D_MAX_ROOTS][PT2D_PATH_MAX]; /* canonical (realpath) */
    unsigned n_roots;
    char spool_dir[PT2D_PATH_MAX];
    uint64_t max_upload;             /* bytes */
    unsigned max_uploads;            /* upload bodies spooled at once (more: 503), 0 = no limit */
    unsigned header_timeout;         /* seconds to receive a request's headers; 0 = none */
    uint64_t memory_budget;          /* bytes of request bodies held in memory; 0 = no limit */
    unsigned max_connections;        /* open connections; 0 = the descriptor limit less a reserve */
    unsigned max_connections_per_ip; /* open connections from one address; 0 = no limit */
    char origins[PT2D_MAX_ORIGINS][PT2D_ORIGIN_MAX];
    unsigned n_origins;            /* "*" is stored like any origin */
    unsigned request_timeout;      /* seconds, 1..86400 */
    unsigned cache_entries;        /* 0 disables the cache */
    uint64_t cache_bytes;          /* bound on what the cached packages cost; 0 = none */
    char port_file[PT2D_PATH_MAX]; /* "" = none */
    char libcuda[256];             /* CUDA driver to dlopen; "" = $PT2SCOPE_LIBCUDA at each
                                    probe, else libcuda.so.1 */
    char sysfs_root[256];          /* sysfs for AMD GPUs; "" = $PT2SCOPE_SYSFS_ROOT, else /sys */
    char node_name[PT2D_HOST_MAX]; /* name in /v1/node; "" = the host name */
    char peers[PT2D_MAX_PEERS][PT2D_PEER_URL_MAX]; /* cluster peers' base URLs */
    unsigned n_peers;
    char peers_dns[PT2D_HOST_MAX]; /* headless Service name resolved per request; "" = none */
    uint16_t peers_port;           /* port of the resolved peers; 0 = this daemon's port */
    unsigned peer_timeout;         /* seconds per peer request, 1..300 */
    unsigned peer_connect_timeout; /* seconds per peer connection, 1..300 */
    unsigned
        access_log_flush_ms; /* access lines wait in per-thread buffers at most this, 0 = none */
    unsigned drain_delay;    /* seconds after SIGTERM still serving with /readyz 503, 0..300 */
    unsigned drain_timeout;  /* seconds the drain waits for running jobs, then exit (25) */
    char token_file[PT2D_PATH_MAX]; /* bearer tokens, one a line (pt2d_auth.h); "" = none */
    int metrics_public;             /* /metrics needs no token even with token_file */
    /* Host names answered besides loopback names (pt2d_auth.h), lowercase, no port. */
    char allowed_hosts[PT2D_MAX_ALLOWED_HOSTS][PT2D_HOST_MAX];
    unsigned n_allowed_hosts;
    /* Remote packages (?url=, pt2_remote.h): off while n_remote_allow is 0. */
    char remote_allow[PT2D_MAX_REMOTE_ALLOW][PT2D_REMOTE_PREFIX_MAX]; /* URL prefixes */
    unsigned n_remote_allow;
    unsigned remote_timeout;      /* seconds per inspection, every request together, 1..3600 */
    uint64_t remote_max_download; /* servers without Range: larger objects are refused */
    uint64_t remote_max_bytes;    /* bytes transferred per inspection */
    /* Default runtimes of every answer (pt2scope.h "Runtimes"); a request's runtime=
     * replaces them. Specs are checked at load; the folders are opened by the server. */
    char runtimes[PT2D_MAX_CFG_RUNTIMES][PT2D_CFG_RUNTIME_MAX];
    unsigned n_runtimes;
    char sysroot[PT2D_PATH_MAX];  /* "" = none */
    char libtorch[PT2D_PATH_MAX]; /* "" = none */
#ifdef PT2SCOPE_TEST_HOOKS
    /* Test builds only (pt2d_gate.h): every package job waits at a gate first. */
    char test_gate_file[PT2D_PATH_MAX]; /* --test-gate: open once this file exists; "" = none */
    struct pt2d_gate *test_gate; /* in-process gate (borrowed, outlives the server); NULL = none */
#endif
};

/* Defaults: 127.0.0.1:8080, workers = online CPUs (2..64), queue 64, spool $TMPDIR or /tmp,
 * max upload 16 GiB, request timeout 60 s, cache 256 entries, peer timeout 5 s (connection
 * 2 s). */
void pt2d_config_defaults(struct pt2d_config *cfg);

/* Apply `envp` (NULL-terminated "NAME=value" strings, may be NULL), then argv[1..]. */
int pt2d_config_load(struct pt2d_config *cfg, int argc, char *const argv[], char *const envp[],
                     struct pt2_error *err);

/* "16G", "512M", "64k", "1024" (binary units) -> bytes. */
int pt2d_config_parse_size(const char *text, uint64_t *out, struct pt2_error *err);

/* "127.0.0.1:8080", "[::1]:0", "localhost:80" -> host (no brackets) and port. */
int pt2d_config_parse_listen(const char *text, char *host, size_t hostlen, uint16_t *port,
                             struct pt2_error *err);

void pt2d_config_usage(FILE *out);

#endif
