/*
 * pt2_json.c - the small cJSON helpers every layer uses, and the checked
 * parse every JSON document from outside goes through (see pt2scope.h,
 * "JSON helpers").
 *
 * cJSON builds the whole tree at once, about 64 bytes per value: a 16 MiB
 * body of "[0,0,0,...]" is 8 M values and a gigabyte of memory before any
 * caller could refuse it. pt2_json_check walks the text once, without
 * allocating, and refuses what exceeds the caller's limits (depth, values,
 * string length) before cJSON sees it. It also refuses what would silently
 * change meaning once parsed: NUL bytes, raw or escaped (cJSON's strings end
 * at a NUL, so "a.pt2\u0000.txt" would become "a.pt2"), and invalid UTF-8.
 * The same scan counts what the tree would cost, so pt2_json_parse also
 * draws every document of an inspection on one budget (pt2_budget.h) and
 * stops scanning where that budget runs out.
 */
#include <stdio.h>
#include <string.h>

#include <cJSON.h>

#include "pt2_budget.h"
#include "pt2_error.h"
#include "pt2_utf8.h"

int pt2_json_add_str_or_null(cJSON *o, const char *key, const char *s)
{
    if (s == NULL || s[0] == '\0')
        return cJSON_AddNullToObject(o, key) != NULL;
    return cJSON_AddStringToObject(o, key, s) != NULL;
}

int pt2_json_add_num_or_null(cJSON *o, const char *key, double v, int present)
{
    if (!present)
        return cJSON_AddNullToObject(o, key) != NULL;
    return cJSON_AddNumberToObject(o, key, v) != NULL;
}

int pt2_json_add_owned(cJSON *o, const char *key, cJSON *item)
{
    if (item == NULL)
        return 0;
    if (key != NULL ? cJSON_AddItemToObject(o, key, item) : cJSON_AddItemToArray(o, item))
        return 1;
    cJSON_Delete(item);
    return 0;
}

const char *pt2_json_str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void scan_value(struct pt2_json_scan *s, int string)
{
    s->values++;
    s->cost += PT2_BUDGET_NODE_BYTES;
    if (string) {
        s->strings++;
        s->cost += PT2_BUDGET_STRING_BYTES;
    }
}

/* The budget's limits, checked after each byte: 1 (and `over`) once past either. */
static int scan_over(struct pt2_json_scan *s, size_t at)
{
    if ((s->max_values > 0 && s->values > s->max_values) ||
        (s->max_cost > 0 && s->cost > s->max_cost)) {
        s->over = 1;
        s->at = at;
        return 1;
    }
    return 0;
}

/*
 * Scan text[s->pos, len) on from the state in `s` (zeroed: from the start). With `final`
 * 0 the text may go on: a UTF-8 sequence or a \u escape cut at its end is left for the
 * next call, which resumes at s->pos.
 */
static int scan(const char *text, size_t len, const struct pt2_json_limits *lim, const char *what,
                struct pt2_json_scan *s, int final, struct pt2_error *err)
{
    const unsigned char *p = (const unsigned char *)text;
    size_t i = s->pos, n;

    if (lim->max_bytes > 0 && len > lim->max_bytes)
        return pt2_error_set(err, PT2_ERR_TOO_LARGE, "%s: %zu bytes of JSON (max %zu)", what, len,
                             lim->max_bytes);
    for (; i < len; s->pos = i) {
        unsigned char c = p[i];
        size_t at = i, was = i; /* where this byte, and any value it starts, is */

        if (c == 0)
            return pt2_error_set(err, PT2_ERR_INVALID, "%s: NUL byte at byte %zu", what, i);
        if (c >= 0x80) {
            n = pt2_utf8_seq(p + i, len - i);
            if (n == 0 && !final && len - i < 4)
                break; /* perhaps only cut short */
            if (n == 0)
                return pt2_error_set(err, PT2_ERR_INVALID, "%s: invalid UTF-8 at byte %zu", what,
                                     i);
            i += n;
            s->slen += n;
            s->escaped = 0;
        } else if (s->in_string) {
            if (s->escaped) {
                if (c == 'u' && i + 4 >= len && !final)
                    break;
                s->escaped = 0;
                if (c == 'u' && i + 4 < len && memcmp(p + i + 1, "0000", 4) == 0)
                    return pt2_error_set(err, PT2_ERR_INVALID,
                                         "%s: \\u0000 (a NUL character) in a string at byte %zu",
                                         what, i - 1);
            } else if (c == '\\') {
                s->escaped = 1;
            } else if (c == '"') {
                s->in_string = 0;
            }
            i++;
            s->slen++;
        } else {
            if (c == '"') {
                s->in_string = 1;
                s->slen = 0;
                s->nvalues++;
                scan_value(s, 1);
            } else if (c == '[' || c == '{') {
                s->nvalues++;
                scan_value(s, 0);
                if (++s->depth > lim->max_depth && lim->max_depth > 0)
                    return pt2_error_set(err, PT2_ERR_TOO_LARGE,
                                         "%s: JSON nested deeper than %u levels at byte %zu", what,
                                         lim->max_depth, at);
            } else if ((c == ']' || c == '}') && s->depth > 0) {
                s->depth--;
            } else if (!is_space(c) && c != ',' && c != ':' && !s->in_scalar) {
                s->nvalues++; /* the first character of a number or literal */
                scan_value(s, 0);
            }
            s->in_scalar = !is_space(c) && c != ',' && c != ':' && c != '[' && c != '{' &&
                           c != ']' && c != '}' && c != '"';
            i++;
        }
        if (s->in_string) {
            s->sbytes += i - was;
            s->cost += i - was;
        }
        if (s->in_string && lim->max_string > 0 && s->slen > lim->max_string)
            return pt2_error_set(err, PT2_ERR_TOO_LARGE,
                                 "%s: a JSON string longer than %zu bytes at byte %zu", what,
                                 lim->max_string, at);
        if (lim->max_values > 0 && s->nvalues > lim->max_values)
            return pt2_error_set(err, PT2_ERR_TOO_LARGE,
                                 "%s: more than %zu JSON values at byte %zu", what, lim->max_values,
                                 at);
        if (scan_over(s, at))
            return PT2_ERR_TOO_LARGE; /* the caller words it: it knows the budget */
    }
    return PT2_OK;
}

int pt2_json_check(const char *text, size_t len, const struct pt2_json_limits *lim,
                   const char *what, struct pt2_error *err)
{
    struct pt2_json_scan s;

    if (what == NULL)
        what = "document";
    if (lim == NULL || (text == NULL && len > 0))
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_json_check: missing argument");
    memset(&s, 0, sizeof(s));
    return scan(text, len, lim, what, &s, 1, err);
}

/* What is left of `b` as the scan's limits; 1 when nothing is (the scan need not start). */
static int budget_limits(const struct pt2_budget *b, struct pt2_json_scan *s)
{
    /* the scan stops one value (or byte) past what is left */
    s->max_values = b->values < b->max_values ? b->max_values - b->values : 0;
    s->max_cost = b->bytes < b->max_bytes ? b->max_bytes - b->bytes : 0;
    return s->max_values == 0 || s->max_cost == 0;
}

static int budget_refusal(struct pt2_budget *b, const char *what, size_t len, size_t at,
                          struct pt2_error *err)
{
    pt2_budget_refuse(b, what, len);
    return pt2_error_set(err, PT2_ERR_TOO_LARGE,
                         "%s: not parsed, over the inspection's JSON budget (%zu values, "
                         "%zu %s of parse tree) at byte %zu",
                         what, b->max_values,
                         b->max_bytes % (1u << 20) ? b->max_bytes : b->max_bytes >> 20,
                         b->max_bytes % (1u << 20) ? "bytes" : "MiB", at);
}

/*
 * Scan under the limits and what is left of the calling thread's budget: PT2_OK (the
 * document charged to it), or the refusal, which spends it.
 */
static int scan_budgeted(const char *text, size_t len, const struct pt2_json_limits *lim,
                         const char *what, struct pt2_error *err)
{
    struct pt2_budget *b = pt2_budget_current();
    struct pt2_json_scan s;
    int rc;

    if (lim == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_json_check: missing argument");
    memset(&s, 0, sizeof(s));
    if (b != NULL) {
        rc = pt2_budget_admit(what, err);
        if (rc != PT2_OK)
            return rc;
        if (budget_limits(b, &s))
            return budget_refusal(b, what, len, 0, err);
    }
    rc = scan(text, len, lim, what, &s, 1, err);
    if (b != NULL && s.over)
        return budget_refusal(b, what, len, s.at, err);
    if (rc == PT2_OK && b != NULL)
        pt2_budget_charge(b, s.values, s.cost, len);
    return rc;
}

int pt2_json_parse(const char *text, size_t len, const struct pt2_json_limits *lim,
                   const char *what, cJSON **out, struct pt2_error *err)
{
    const char *end = NULL;
    size_t start = 0, pos;
    cJSON *doc;
    int rc;

    if (out == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_json_parse: missing argument");
    *out = NULL;
    if (what == NULL)
        what = "document";
    if (text == NULL)
        len = 0;
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        start = 3;
    for (pos = start; pos < len && is_space((unsigned char)text[pos]); pos++)
        ;
    if (pos == len)
        return pt2_error_set(err, PT2_ERR_INVALID, "%s: empty document", what);
    rc = scan_budgeted(text + start, len - start, lim, what, err);
    if (rc != PT2_OK) {
        /* Offsets in messages count from the start of `text`, BOM included. */
        return rc;
    }
    doc = cJSON_ParseWithLengthOpts(text + start, len - start, &end, 0);
    if (doc == NULL) {
        pos = end != NULL && end >= text ? (size_t)(end - text) : start;
        return pt2_error_set(err, PT2_ERR_INVALID, "%s: invalid JSON near byte %zu", what, pos);
    }
    for (pos = (size_t)(end - text); pos < len && is_space((unsigned char)text[pos]); pos++)
        ;
    if (pos < len) {
        cJSON_Delete(doc);
        return pt2_error_set(err, PT2_ERR_INVALID,
                             "%s: unexpected data after the JSON value at byte %zu", what, pos);
    }
    *out = doc;
    return PT2_OK;
}

int pt2_budget_check_prefix(struct pt2_json_scan *s, const char *text, size_t len, const char *what,
                            struct pt2_error *err)
{
    static const struct pt2_json_limits none = {0, 0, 0, 0};
    struct pt2_budget *b = pt2_budget_current();
    struct pt2_error ignored = {0};
    size_t base;

    if (b == NULL || pt2_budget_spent() || len < 3)
        return PT2_OK;
    if (!s->started) { /* offsets as pt2_json_parse gives them: after a byte order mark */
        s->started = 1;
        s->bom = memcmp(text, "\xEF\xBB\xBF", 3) == 0;
    }
    base = s->bom ? 3 : 0;
    if (what == NULL)
        what = "document";
    /* the scan pt2_json_parse will make, on from where the last call stopped: only its
     * budget refusal counts (the rest is the parse's to say), and nothing is charged */
    if (budget_limits(b, s))
        return budget_refusal(b, what, len, 0, err);
    (void)scan(text + base, len - base, &none, what, s, 0, &ignored);
    return s->over ? budget_refusal(b, what, len, s->at, err) : PT2_OK;
}
