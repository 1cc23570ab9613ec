/*
 * pt2d_deadline.h - a deadline for receiving a request's headers.
 *
 * Design: libmicrohttpd's --request-timeout is an idle timeout: a client
 * that sends one header byte a second is never idle, and a thousand such
 * clients hold a thousand connections for ever. Every connection is
 * registered here when it opens (MHD_CONNECTION_NOTIFY_STARTED) with a
 * deadline; the access handler's first call (the headers are complete)
 * turns it into a body deadline that moves with the bytes received (a
 * minimum average rate), the body's end lifts it, and the request's
 * completion sets it again for the next request on a kept-alive connection. A watchdog thread shuts
 * down (shutdown(2), not close) the sockets whose deadline passed: libmicrohttpd then sees the
 * connection end and cleans up as for any client that went away. The
 * registry is locked while the watchdog shuts a socket down and while a
 * closed connection is removed, and libmicrohttpd reports the close before
 * it closes the descriptor, so a number reused by another socket is never
 * touched.
 *
 *
 * Header-phase budget: connections still in their headers (new ones, and
 * kept-alive ones waiting for the next request) are at most
 * `max_in_headers`. A connection that arrives when the budget is full cuts
 * the oldest such connection first (the same shutdown), so a flood of slow
 * clients from any number of addresses only ever pushes out its own
 * oldest members, and a fresh client that sends its headers at once (a
 * kubelet probe) is always let in and answered. Connections whose headers
 * are complete (a request running, a body arriving) are never cut for it.
 *
 * Ownership: pt2d_deadlines_start() returns an object that
 * pt2d_deadlines_stop() joins and frees. Entries belong to the registry;
 * the caller keeps the pointer as the connection's socket context.
 */
#ifndef PT2D_DEADLINE_H
#define PT2D_DEADLINE_H

#include <stdint.h>

#include "pt2scope.h"

struct pt2d_deadlines;
struct pt2d_deadline;

/*
 * `seconds` for the headers of each request (0: no deadline, no watchdog thread) and at most
 * `max_in_headers` connections in their headers (0: no budget). Both 0: *out is NULL and
 * every call below is a no-op.
 */
int pt2d_deadlines_start(struct pt2d_deadlines **out, unsigned seconds, unsigned max_in_headers,
                         struct pt2_error *err);
void pt2d_deadlines_stop(struct pt2d_deadlines *d);

/* Register a new connection's socket; NULL when out of memory or without deadlines. */
struct pt2d_deadline *pt2d_deadlines_add(struct pt2d_deadlines *d, int fd);
/* The headers are in (1): no deadline while the request runs; done (0): a new one. */
void pt2d_deadlines_in_request(struct pt2d_deadlines *d, struct pt2d_deadline *e, int in_request);

/* Bytes a body must average after the grace of `seconds`: slower is a trickle, and is cut. */
#define PT2D_BODY_MIN_RATE (16u * 1024u)

/*
 * The body is arriving, `received` bytes so far: the deadline is the body's
 * start + seconds + received / PT2D_BODY_MIN_RATE, so an upload of any size
 * at a usable rate never meets it and a trickled one does. The request's
 * work (after the body) is under no deadline: pt2d_deadlines_in_request(1).
 */
void pt2d_deadlines_body(struct pt2d_deadlines *d, struct pt2d_deadline *e, uint64_t received);
/* The connection is closing: forget it (e may be NULL). */
void pt2d_deadlines_remove(struct pt2d_deadlines *d, struct pt2d_deadline *e);

/* Connections cut for missing their deadline so far. */
uint64_t pt2d_deadlines_cut(struct pt2d_deadlines *d);
/* Connections cut so far to make room under the header-phase budget. */
uint64_t pt2d_deadlines_budget_cut(struct pt2d_deadlines *d);

#endif
