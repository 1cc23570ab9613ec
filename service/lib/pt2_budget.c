/*
 * pt2_budget.c - the per-inspection JSON budget (see pt2_budget.h).
 *
 * One pointer per thread: the inspector's stack frame owns the budget, so
 * nothing is allocated and nothing outlives pt2_budget_end. A worker thread
 * runs one inspection at a time; begin/end nest for the rare caller that
 * inspects from inside an inspection.
 */
#include <stdio.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h> /* malloc_trim, mallopt */
#include <pthread.h>
#endif

#include "pt2_budget.h"

static _Thread_local struct pt2_budget *current;

#ifdef __GLIBC__
/*
 * glibc raises its mmap threshold to the size of each large block freed (up to 32 MiB), so
 * after the first 8 MiB document every later one is carved from a worker's arena; a
 * thread's arena gives its top back only past a trim threshold raised the same way, and
 * malloc_trim() does not shrink it either. A fixed threshold stops the raising: blocks of
 * 1 MiB and more (a document's text) are mapped and unmapped, and a freed tree is trimmed.
 */
static pthread_once_t malloc_once = PTHREAD_ONCE_INIT;

static void fix_malloc(void)
{
    mallopt(M_MMAP_THRESHOLD, PT2_BUDGET_MMAP_BYTES);
    mallopt(M_TRIM_THRESHOLD, PT2_BUDGET_MMAP_BYTES);
}
#endif

void pt2_budget_begin(struct pt2_budget *b)
{
#ifdef __GLIBC__
    pthread_once(&malloc_once, fix_malloc);
#endif
    memset(b, 0, sizeof(*b));
    b->max_values = PT2_BUDGET_VALUES;
    b->max_bytes = PT2_BUDGET_BYTES;
    b->outer = current;
    current = b;
}

void pt2_budget_end(struct pt2_budget *b)
{
    if (b == NULL)
        return;
    if (current == b)
        current = b->outer;
#ifdef __GLIBC__
    /* glibc keeps a freed tree or text in this thread's arena: the RSS would stay at the
     * peak of the largest document ever parsed on each worker. */
    if (b->peak > PT2_BUDGET_TRIM_BYTES)
        malloc_trim(0);
#endif
}

struct pt2_budget *pt2_budget_current(void)
{
    return current;
}

int pt2_budget_spent(void)
{
    return current != NULL && current->spent_by[0] != '\0';
}

int pt2_budget_admit(const char *what, struct pt2_error *err)
{
    if (!pt2_budget_spent())
        return PT2_OK;
    current->refused++;
    return pt2_error_set(err, PT2_ERR_TOO_LARGE,
                         "%s: not parsed, the inspection's JSON budget was spent by %s",
                         what != NULL ? what : "document", current->spent_by);
}

size_t pt2_budget_cost(size_t values, size_t strings, size_t sbytes)
{
    return values * PT2_BUDGET_NODE_BYTES + strings * PT2_BUDGET_STRING_BYTES + sbytes;
}

static void note_peak(struct pt2_budget *b, size_t bytes)
{
    if (bytes > b->peak)
        b->peak = bytes;
}

void pt2_budget_charge(struct pt2_budget *b, size_t values, size_t cost, size_t text)
{
    b->values += values;
    b->bytes += cost;
    b->parsed++;
    note_peak(b, text + cost);
}

void pt2_budget_refuse(struct pt2_budget *b, const char *what, size_t text)
{
    if (b->spent_by[0] == '\0')
        snprintf(b->spent_by, sizeof(b->spent_by), "%s", what != NULL ? what : "document");
    b->refused++;
    note_peak(b, text);
}
