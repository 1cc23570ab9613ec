/*
 * pt2d_server.h - the HTTP server: libmicrohttpd glue over the pool.
 *
 * Design: MHD polling threads (poll; see pt2d_server_start) parse requests, streams bodies
 * into the spool and answers probes (/livez, /readyz, /metrics,
 * /v1/version) itself. Package work, the GPU probe behind /v1/node and
 * the cluster fan-out (pt2d_node.h, pt2d_cluster.h) go to worker threads
 * (the fan-out to a small pool of its own, since a peer may be this daemon):
 * the connection is suspended, the worker fills a reply and resumes the
 * connection, and the access handler queues the reply (responses are only
 * ever queued from inside the handler; MHD bug #7757). Draining quiesces
 * the listen socket, fails /readyz and waits for in-flight requests.
 *
 * Test builds (-DPT2SCOPE_TEST_HOOKS: pt2scoped-test and the HTTP suites)
 * add the response recorder (pt2d_record.h) and the job gate (pt2d_gate.h);
 * the production pt2scoped has neither.
 *
 * Ownership: pt2d_server_start() copies the config and returns a server
 * freed with pt2d_server_free() (which drains first if needed, and writes
 * the access lines still held). The log stream is borrowed and must outlive
 * the server.
 */
#ifndef PT2D_SERVER_H
#define PT2D_SERVER_H

#include <stdint.h>
#include <stdio.h>

#include "pt2scope.h"
#include "pt2d_config.h"

struct pt2d_server;

int pt2d_server_start(struct pt2d_server **out, const struct pt2d_config *cfg, FILE *log,
                      struct pt2_error *err);

/* The bound port (useful with port 0) and "host:port" ("[v6]:port"). */
uint16_t pt2d_server_port(const struct pt2d_server *s);
const char *pt2d_server_address(const struct pt2d_server *s);

/* Log one line saying what the start-up GPU probe found (a GPU-less pod is then obvious). */
void pt2d_server_log_node(struct pt2d_server *s);

/*
 * SIGHUP: re-read --token-file (pt2d_auth.h) on the server's reload thread; returns at once,
 * so the signal thread never waits on the file (a FIFO, a hung mount). A file that cannot be
 * used (not a regular file, unreadable, bad) leaves the tokens as they were; either way one
 * line is logged. Safe while requests are being served.
 */
void pt2d_server_reload(struct pt2d_server *s);

/*
 * Answer /readyz with 503 (pt2scope_ready 0) and close kept-alive connections after each
 * response, while still serving every request: the --drain-delay after SIGTERM, so that
 * clients routed here before the endpoints update are answered. Safe to call more than once.
 */
void pt2d_server_unready(struct pt2d_server *s);

/*
 * Stop accepting connections, answer /readyz with 503 and wait up to
 * `timeout_ms` for requests in flight to complete. Returns the number of
 * requests still in flight (0 = drained). Safe to call more than once.
 */
unsigned long pt2d_server_drain(struct pt2d_server *s, unsigned timeout_ms);

/* Write the access lines the HTTP threads hold (pt2d_alog.h) now, not at the next interval. */
void pt2d_server_flush_log(struct pt2d_server *s);

void pt2d_server_free(struct pt2d_server *s);

#endif
