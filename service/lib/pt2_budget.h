/*
 * pt2_budget.h - the memory budget one inspection's JSON documents are parsed under.
 *
 * Design: cJSON builds a whole tree at once, about 80 bytes of heap per
 * value, so a per-document size cap is not enough: 8 MiB of "[0,0,...]"
 * deflates to 16 KB and becomes 4 M values and over 300 MiB of tree. The
 * inspector installs one budget for the calling thread around an inspection
 * (pt2_budget_begin/end), and every pt2_json_parse on that thread draws on
 * it: the text is first scanned without allocating (pt2_json_check), the
 * scan stops where the document would exceed what is left, in values or in
 * estimated bytes of tree, and only a document that fits is handed to cJSON
 * and charged. The first document over the budget is refused and spends it:
 * every later document of the same inspection is refused without a scan, so
 * sixteen hostile programs cost one scan, not sixteen parses. A thread
 * without a budget (request bodies, node lists) parses under its own
 * limits only. The budget lives on the caller's stack and owns nothing.
 */
#ifndef PT2_BUDGET_H
#define PT2_BUDGET_H

#include <stddef.h>

#include "pt2_error.h"

/* One inspection's allowance: 500,000 values or 32 MiB of estimated tree, whichever comes first. */
#define PT2_BUDGET_VALUES 500000u
#define PT2_BUDGET_BYTES (32u * 1024u * 1024u)
/* The estimate: a cJSON node (64 bytes) and malloc's header per value; a string or
 * key costs its bytes as written plus its own allocation's overhead. */
#define PT2_BUDGET_NODE_BYTES 80u
#define PT2_BUDGET_STRING_BYTES 24u
/* An inspection whose largest document (text and tree) was bigger gives its memory back. */
#define PT2_BUDGET_TRIM_BYTES (4u * 1024u * 1024u)
/* glibc only: the first budget fixes malloc's mmap and trim thresholds at this (see .c). */
#define PT2_BUDGET_MMAP_BYTES (1024u * 1024u)

#define PT2_BUDGET_NAME_MAX 256

struct pt2_budget {
    size_t max_values, max_bytes; /* the allowance (pt2_budget_begin sets the defaults) */
    size_t values, bytes;         /* spent by the documents parsed */
    size_t peak;                  /* the largest text + tree one document had, refused included */
    unsigned parsed, refused;     /* documents parsed; documents refused */
    char spent_by[PT2_BUDGET_NAME_MAX]; /* the document that spent it; "" while some is left */
    struct pt2_budget *outer;           /* the budget installed before this one, if any */
};

/* Install `b` (default allowance, nothing spent) for the calling thread; the first call in
 * the process also fixes glibc's malloc thresholds (PT2_BUDGET_MMAP_BYTES). */
void pt2_budget_begin(struct pt2_budget *b);
/* Uninstall `b` (the outer one, if any, is current again); when a document was larger
 * than PT2_BUDGET_TRIM_BYTES, return freed memory to the system (glibc keeps it). */
void pt2_budget_end(struct pt2_budget *b);
/* The calling thread's budget, NULL when none is installed. */
struct pt2_budget *pt2_budget_current(void);
/* 1 when the calling thread's budget is spent (a document was refused), else 0. */
int pt2_budget_spent(void);
/*
 * Whether document `what` may be read at all: PT2_OK (also without a budget), or
 * PT2_ERR_TOO_LARGE "<what>: not parsed, the inspection's JSON budget was spent by
 * <document>" once it is spent (counted as refused). Callers that would read a large
 * entry only to parse it ask first.
 */
int pt2_budget_admit(const char *what, struct pt2_error *err);
/* The tree estimate of a document of `values` values and `strings` strings of `sbytes` bytes. */
size_t pt2_budget_cost(size_t values, size_t strings, size_t sbytes);
/* Charge a parsed document (the scan's counts) to `b`; note a document's size for trimming. */
void pt2_budget_charge(struct pt2_budget *b, size_t values, size_t cost, size_t text);
/* The state of one scan of a JSON text (pt2_json.c); zeroed, it starts at the beginning. */
struct pt2_json_scan {
    size_t values, strings, sbytes; /* values (keys included), strings, their bytes as written */
    size_t cost;                    /* pt2_budget_cost of the above, kept as it grows */
    size_t max_values, max_cost;    /* the budget's part: 0 = none */
    size_t at;                      /* where the budget ran out */
    int over;                       /* 1 when it stopped for the budget */
    size_t pos, nvalues, slen;      /* next byte; values for the limits; the open string's length */
    unsigned depth;
    int in_string, escaped, in_scalar, started, bom;
};

/*
 * For a reader that has the first `len` bytes of document `what` (pt2_zip_read_small),
 * scanned on from where `s` (zeroed before the first call) stopped, so each byte is
 * scanned once: when the calling thread's budget is current and those bytes alone already
 * exceed what is left, the same refusal pt2_json_parse would make (PT2_ERR_TOO_LARGE, the
 * budget spent), so the rest need not be read; PT2_OK otherwise, nothing charged.
 * (In pt2_json.c, next to the scan.)
 */
int pt2_budget_check_prefix(struct pt2_json_scan *s, const char *text, size_t len, const char *what,
                            struct pt2_error *err);
/* Mark `b` spent by `what` (the first refusal names it), counting one refusal. */
void pt2_budget_refuse(struct pt2_budget *b, const char *what, size_t text);

#endif
