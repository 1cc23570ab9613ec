/*
 * pt2d_cluster.h - GET /v1/cluster/compatibility: one package, every peer.
 *
 * Design: the peers are other pt2scoped instances, typically one per node
 * (a DaemonSet): the --peer URLs, plus one per A/AAAA record of the
 * --peers-dns name (a headless Service), resolved when the request comes,
 * so pods that came and went are seen. Each peer is asked for
 * /v1/inspect?path=... (with the request's target, driver and device
 * arguments) and for /v1/node, all in one libcurl multi round: the whole
 * request takes about one peer timeout at worst, however many peers there
 * are. A peer that cannot be reached is reported, never fatal.
 *
 * The query blocks (DNS, network), so it runs on a pool worker, never on
 * the HTTP thread. Traffic goes straight to the peers (proxy variables are
 * ignored), only over http or https, without following redirects, and each
 * response body is capped at PT2D_PEER_BODY_MAX.
 *
 * A peer's "verdict" says whether the package runs on that node at all:
 * the best of its GPU verdicts (or, when it shows no GPU, incompatible for
 * a package that needs one) combined with its CPU verdict, the worse
 * winning.
 *
 * Ownership: the config is borrowed for the call; documents returned
 * through `cJSON **` belong to the caller.
 */
#ifndef PT2D_CLUSTER_H
#define PT2D_CLUSTER_H

#include <stddef.h>

#include <cJSON.h>

#include "pt2scope.h"
#include "pt2d_config.h"
#include "pt2d_options.h"
#include "pt2d_reply.h"

#define PT2D_PEERS_MAX 256                    /* peers per request, listed and resolved */
#define PT2D_PEER_BODY_MAX (8u * 1024 * 1024) /* bytes kept of one peer response */

struct pt2d_cluster_cfg {
    const char (*peers)[PT2D_PEER_URL_MAX]; /* --peer base URLs */
    size_t n_peers;
    const char *dns_name;        /* --peers-dns; NULL or "" = none */
    unsigned dns_port;           /* port of the resolved peers */
    unsigned timeout_ms;         /* per peer request, connection included */
    unsigned connect_timeout_ms; /* per peer connection */
};

/*
 * The aggregate document:
 * {"path": "...", "dns": {"name", "port", "addresses", "error"} | null,
 *  "peers": [{"peer": "http://10.0.0.7:8080", "status": "ok" | "unreachable" | "error",
 *             "http_status": 200 | null, "node": {...} | null,
 *             "compatibility": [...] | null, "verdict": "compatible" | ... | null,
 *             "reason": "..." | null, "error": null | "..."}],
 *  "summary": {"peers", "ok", "unreachable", "error",
 *              "compatible", "compatible-ptx-jit", "incompatible"}}
 * `o` must name a path (PT2_ERR_INVALID otherwise). `request_id` (may be
 * NULL) is sent to the peers as X-Request-Id, and `authorization` (the
 * caller's Authorization header value, may be NULL) as Authorization: peers
 * of one deployment share the --token-file. Neither is logged.
 */
int pt2d_cluster_query(const struct pt2d_cluster_cfg *cfg, const struct pt2d_options *o,
                       const char *request_id, const char *authorization, cJSON **out,
                       struct pt2_error *err);

/* pt2d_cluster_query() answered into `reply` (200 document or a problem). */
void pt2d_cluster_serve(const struct pt2d_cluster_cfg *cfg, const struct pt2d_options *o,
                        const char *request_id, const char *authorization,
                        struct pt2d_reply *reply);

#endif
