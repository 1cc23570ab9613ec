/*
 * pt2d_jsonout.c - cJSON_PrintUnformatted's bytes, printed faster (see pt2d_jsonout.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pt2d_jsonout.h"

#define JO_DEPTH_MAX 512 /* deeper trees go to cJSON's printer (ours are ~10) */

struct jo {
    char *p;
    size_t len, cap;
    int failed;
};

static int jo_reserve(struct jo *o, size_t n)
{
    char *q;
    size_t cap = o->cap;

    if (o->failed)
        return 0;
    if (n <= o->cap - o->len)
        return 1;
    while (cap - o->len < n)
        cap = cap < 4096 ? 4096 : cap * 2;
    q = realloc(o->p, cap);
    if (q == NULL) {
        o->failed = 1;
        return 0;
    }
    o->p = q;
    o->cap = cap;
    return 1;
}

static void jo_put(struct jo *o, const char *s, size_t n)
{
    if (jo_reserve(o, n)) {
        memcpy(o->p + o->len, s, n);
        o->len += n;
    }
}

/* cJSON's print_string_ptr: '"', '\\' and control bytes escaped, the rest as is. */
static void jo_string(struct jo *o, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *u = (const unsigned char *)(s != NULL ? s : "");

    jo_put(o, "\"", 1);
    while (*u != '\0') {
        const unsigned char *run = u;
        char esc[6] = {'\\', 'u', '0', '0', 0, 0};
        size_t n = 2;

        while (*u >= 0x20 && *u != '"' && *u != '\\')
            u++;
        jo_put(o, (const char *)run, (size_t)(u - run));
        if (*u == '\0')
            break;
        switch (*u) {
        case '"':
            esc[1] = '"';
            break;
        case '\\':
            esc[1] = '\\';
            break;
        case '\b':
            esc[1] = 'b';
            break;
        case '\f':
            esc[1] = 'f';
            break;
        case '\n':
            esc[1] = 'n';
            break;
        case '\r':
            esc[1] = 'r';
            break;
        case '\t':
            esc[1] = 't';
            break;
        default:
            esc[4] = hex[*u >> 4];
            esc[5] = hex[*u & 15];
            n = 6;
        }
        jo_put(o, esc, n);
        u++;
    }
    jo_put(o, "\"", 1);
}

static void jo_integer(struct jo *o, long long v)
{
    char d[24];
    size_t i = sizeof(d);
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;

    do {
        d[--i] = (char)('0' + u % 10);
        u /= 10;
    } while (u != 0);
    if (v < 0)
        d[--i] = '-';
    jo_put(o, d + i, sizeof(d) - i);
}

/*
 * cJSON 1.7.15 prints "%1.15g" (or "%1.17g" where that does not read back):
 * an integral value under 1e15 in magnitude has at most 15 digits, which
 * "%1.15g" writes plainly ("-0" for minus zero). Anything else, NaN and
 * infinities included: cJSON's own printer.
 */
static void jo_number(struct jo *o, const cJSON *item)
{
    double d = item->valuedouble;
    char *s;

    if (isfinite(d) && fabs(d) < 1e15 && d == floor(d)) {
        if (d == 0 && signbit(d))
            jo_put(o, "-0", 2);
        else
            jo_integer(o, (long long)d);
        return;
    }
    s = cJSON_PrintUnformatted(item);
    if (s == NULL) {
        o->failed = 1;
        return;
    }
    jo_put(o, s, strlen(s));
    cJSON_free(s);
}

static void jo_value(struct jo *o, const cJSON *item, int depth);

static void jo_children(struct jo *o, const cJSON *item, int depth, int keyed)
{
    const cJSON *c;

    jo_put(o, keyed ? "{" : "[", 1);
    for (c = item->child; c != NULL && !o->failed; c = c->next) {
        if (c != item->child)
            jo_put(o, ",", 1);
        if (keyed) {
            jo_string(o, c->string);
            jo_put(o, ":", 1);
        }
        jo_value(o, c, depth + 1);
    }
    jo_put(o, keyed ? "}" : "]", 1);
}

static void jo_value(struct jo *o, const cJSON *item, int depth)
{
    if (depth > JO_DEPTH_MAX) {
        o->failed = 1;
        return;
    }
    switch (item->type & 0xFF) {
    case cJSON_NULL:
        jo_put(o, "null", 4);
        break;
    case cJSON_False:
        jo_put(o, "false", 5);
        break;
    case cJSON_True:
        jo_put(o, "true", 4);
        break;
    case cJSON_Number:
        jo_number(o, item);
        break;
    case cJSON_String:
        jo_string(o, item->valuestring);
        break;
    case cJSON_Raw:
        if (item->valuestring == NULL)
            o->failed = 1;
        else
            jo_put(o, item->valuestring, strlen(item->valuestring));
        break;
    case cJSON_Array:
        jo_children(o, item, depth, 0);
        break;
    case cJSON_Object:
        jo_children(o, item, depth, 1);
        break;
    default:
        o->failed = 1;
    }
}

char *pt2d_jsonout_print(const cJSON *doc, size_t extra, size_t *len)
{
    struct jo o = {NULL, 0, 0, 0};

    if (doc == NULL)
        return NULL;
    jo_value(&o, doc, 0);
    if (!jo_reserve(&o, 1 + extra)) {
        free(o.p);
        return NULL;
    }
    o.p[o.len] = '\0';
    *len = o.len;
    return o.p;
}
