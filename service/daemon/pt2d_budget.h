/*
 * pt2d_budget.h - the process-wide memory budget for request bodies held
 * in memory (--memory-budget).
 *
 * Design: every connection may buffer a JSON body (1 MiB, 16 MiB for a
 * nodes document) or a multipart field; each cap alone is small, but
 * twenty slow clients holding 15 MiB each are 300 MiB, past a 256 MiB
 * container limit. Bytes are reserved from one budget before they are
 * buffered; when it is spent the request is answered 503 overloaded with
 * Retry-After instead of the process growing. A lock-free counter: take
 * and give are a compare-and-swap each, from any thread.
 *
 * Ownership: the struct is embedded by its owner (the server); the
 * reservations are returned by whoever took them.
 */
#ifndef PT2D_BUDGET_H
#define PT2D_BUDGET_H

#include <stdatomic.h>
#include <stdint.h>

struct pt2d_budget {
    _Atomic uint64_t used;
    uint64_t limit; /* 0 = no limit (used is still counted) */
};

void pt2d_budget_init(struct pt2d_budget *b, uint64_t limit);

/* Reserve n bytes: 1, or 0 (nothing reserved) when they would pass the limit. */
int pt2d_budget_take(struct pt2d_budget *b, uint64_t n);

/* Return n reserved bytes. */
void pt2d_budget_give(struct pt2d_budget *b, uint64_t n);

uint64_t pt2d_budget_used(const struct pt2d_budget *b);

#endif
