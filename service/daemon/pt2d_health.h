/*
 * pt2d_health.h - `pt2scoped --healthcheck`: does the daemon this
 * configuration describes answer GET /livez?
 *
 * Design: a container HEALTHCHECK needs a client, and the image carries no
 * curl: the daemon binary asks itself. The same flags and PT2SCOPE_*
 * variables as the daemon give the address (pt2d_config.h); a wildcard
 * listen address (0.0.0.0, ::) is asked on loopback (127.0.0.1, ::1), and
 * port 0 is read from --port-file. One HTTP/1.1 request with
 * `Connection: close`; only the status line is read (at most
 * PT2D_HEALTH_LINE_MAX bytes), and connecting, sending and reading share
 * one deadline. Healthy means exactly status 200.
 *
 * Ownership: nothing is allocated; `line` is the caller's.
 */
#ifndef PT2D_HEALTH_H
#define PT2D_HEALTH_H

#include <stddef.h>

#include "pt2d_config.h"

#define PT2D_HEALTH_TIMEOUT_MS 2000
#define PT2D_HEALTH_LINE_MAX 256

/*
 * 0 when /livez answered 200 within timeout_ms, with `line` "healthy: GET
 * http://127.0.0.1:8080/livez answered 200"; 1 otherwise, with `line`
 * "unhealthy: GET http://127.0.0.1:8080/livez: <why>" (or "unhealthy: <why>"
 * when there is no address to ask).
 */
int pt2d_health_check(const struct pt2d_config *cfg, unsigned timeout_ms, char *line, size_t cap);

#endif
