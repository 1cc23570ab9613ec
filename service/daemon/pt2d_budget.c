/*
 * pt2d_budget.c - the memory budget for buffered request bodies (see
 * pt2d_budget.h).
 */
#include "pt2d_budget.h"

void pt2d_budget_init(struct pt2d_budget *b, uint64_t limit)
{
    atomic_init(&b->used, 0);
    b->limit = limit;
}

int pt2d_budget_take(struct pt2d_budget *b, uint64_t n)
{
    uint64_t cur = atomic_load(&b->used);

    do {
        if (b->limit != 0 && (n > b->limit || cur > b->limit - n))
            return 0;
    } while (!atomic_compare_exchange_weak(&b->used, &cur, cur + n));
    return 1;
}

void pt2d_budget_give(struct pt2d_budget *b, uint64_t n)
{
    atomic_fetch_sub(&b->used, n);
}

uint64_t pt2d_budget_used(const struct pt2d_budget *b)
{
    return atomic_load(&b->used);
}
