/*
 * pt2_jw.c - the JSON writer (pt2_jw.h) and pt2_json_print (pt2scope.h).
 *
 * The text sink and pt2_json_print share one printer of cJSON's bytes:
 * integers (what nearly every number in our documents is) by hand, strings
 * by runs of bytes that need no escape, any other number through cJSON's
 * own printer ("%1.15g", or "%1.17g" where that does not read back), so
 * what is written is cJSON_PrintUnformatted's output byte for byte.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "pt2_jw.h"
#include "pt2scope.h"

#define JW_PRINT_DEPTH_MAX 512 /* deeper trees: cJSON's printer (ours are ~10) */

/* ---- the text buffer (the writer's own; pt2_json_print uses a text writer too) ---- */

/* Room for n more bytes at the end: where to write them, or NULL (and failed). */
static char *jo_room(struct pt2_jw *w, size_t n)
{
    size_t cap = w->cap;
    char *q;

    if (w->failed)
        return NULL;
    if (n <= w->cap - w->len)
        return w->buf + w->len;
    if (n > SIZE_MAX / 2 - w->len) {
        w->failed = 1;
        return NULL;
    }
    while (cap - w->len < n)
        cap = cap < 4096 ? 4096 : cap * 2;
    q = realloc(w->buf, cap);
    if (q == NULL) {
        w->failed = 1;
        return NULL;
    }
    w->buf = q;
    w->cap = cap;
    return w->buf + w->len;
}

static void jo_put(struct pt2_jw *w, const char *s, size_t n)
{
    char *d = jo_room(w, n);

    if (d != NULL) {
        memcpy(d, s, n);
        w->len += n;
    }
}

static void jo_byte(struct pt2_jw *w, char c)
{
    char *d = jo_room(w, 1);

    if (d != NULL) {
        *d = c;
        w->len++;
    }
}

/* The rest of a string from its first byte that needs an escape, and its closing quote. */
static void jo_string_escaped(struct pt2_jw *w, const unsigned char *u)
{
    static const char hex[] = "0123456789abcdef";

    while (*u != '\0') {
        const unsigned char *run = u;
        char esc[6] = {'\\', 'u', '0', '0', 0, 0};
        size_t n = 2;

        while (*u >= 0x20 && *u != '"' && *u != '\\')
            u++;
        jo_put(w, (const char *)run, (size_t)(u - run));
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
        jo_put(w, esc, n);
        u++;
    }
    jo_byte(w, '"');
}

/* 1 when one of the 8 bytes of x is a control byte, '"' or '\\' (an escape, or a false
 * alarm the byte loop then settles: the tests are exact only on whether one is there). */
static int jo_word_needs_escape(uint64_t x)
{
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    uint64_t q = x ^ (ones * '"'), b = x ^ (ones * '\\');

    return (((x - ones * 0x20) & ~x) | ((q - ones) & ~q) | ((b - ones) & ~b)) & high ? 1 : 0;
}

/*
 * cJSON's print_string_ptr: '"', '\\' and control bytes escaped, the rest as
 * is; `pre` and `post` (0: none) around it, for a key's comma and colon. One
 * reservation, and eight bytes at a time while none needs an escape.
 */
static void jo_string_with(struct pt2_jw *w, char pre, const char *s, char post)
{
    const unsigned char *u = (const unsigned char *)(s != NULL ? s : "");
    size_t n = strlen((const char *)u), i;
    char *d = jo_room(w, n + 12), *d0 = d; /* n + 4, and a whole word past the tail */

    if (d == NULL)
        return;
    if (pre)
        *d++ = pre;
    *d++ = '"';
    for (i = 0; i + 8 <= n; i += 8) {
        uint64_t x;

        memcpy(&x, u + i, 8);
        if (jo_word_needs_escape(x))
            break;
        memcpy(d, &x, 8);
        d += 8;
    }
    if (i < n && i + 8 > n) { /* the last 1..7 bytes as one word, padded with 'a' */
        uint64_t x = 0x6161616161616161ull;

        memcpy(&x, u + i, n - i);
        if (!jo_word_needs_escape(x)) {
            memcpy(d, &x, 8);
            d += n - i;
            i = n;
        }
    }
    for (; i < n; i++) {
        if (u[i] < 0x20 || u[i] == '"' || u[i] == '\\') {
            w->len += (size_t)(d - d0);
            jo_string_escaped(w, u + i);
            if (post)
                jo_byte(w, post);
            return;
        }
        *d++ = (char)u[i];
    }
    *d++ = '"';
    if (post)
        *d++ = post;
    w->len += (size_t)(d - d0);
}

static void jo_string(struct pt2_jw *w, const char *s)
{
    jo_string_with(w, 0, s, 0);
}

static void jo_integer(struct pt2_jw *w, long long v)
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
    jo_put(w, d + i, sizeof(d) - i);
}

/* cJSON's text of a whole item (where ours would differ or cannot go). */
static void jo_cjson(struct pt2_jw *o, const cJSON *item)
{
    char *s = cJSON_PrintUnformatted(item);

    if (s == NULL) {
        o->failed = 1;
        return;
    }
    jo_put(o, s, strlen(s));
    cJSON_free(s);
}

/*
 * An integral value under 1e15 in magnitude has at most 15 digits, which
 * "%1.15g" writes plainly ("-0" for minus zero). Anything else, NaN and
 * infinities included: cJSON's own printer, on a number item of that value.
 */
static void jo_number(struct pt2_jw *o, double d, const cJSON *item)
{
    cJSON *tmp;

    if (isfinite(d) && fabs(d) < 1e15 && d == floor(d)) {
        if (d == 0 && signbit(d))
            jo_put(o, "-0", 2);
        else
            jo_integer(o, (long long)d);
        return;
    }
    if (item != NULL) {
        jo_cjson(o, item);
        return;
    }
    tmp = cJSON_CreateNumber(d);
    if (tmp == NULL) {
        o->failed = 1;
        return;
    }
    jo_cjson(o, tmp);
    cJSON_Delete(tmp);
}

static int jo_value(struct pt2_jw *o, const cJSON *item, int depth);

/* 0 when a container inside is deeper than JW_PRINT_DEPTH_MAX (nothing else fails so). */
static int jo_children(struct pt2_jw *o, const cJSON *item, int depth, int keyed)
{
    const cJSON *c;

    jo_byte(o, keyed ? '{' : '[');
    for (c = item->child; c != NULL && !o->failed; c = c->next) {
        if (keyed)
            jo_string_with(o, c != item->child ? ',' : 0, c->string, ':');
        else if (c != item->child)
            jo_byte(o, ',');
        if (!jo_value(o, c, depth + 1))
            return 0;
    }
    jo_byte(o, keyed ? '}' : ']');
    return 1;
}

static int jo_value(struct pt2_jw *o, const cJSON *item, int depth)
{
    if (depth > JW_PRINT_DEPTH_MAX)
        return 0;
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
        jo_number(o, item->valuedouble, item);
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
        return jo_children(o, item, depth, 0);
    case cJSON_Object:
        return jo_children(o, item, depth, 1);
    default:
        o->failed = 1;
    }
    return 1;
}

/* A whole tree: ours, or cJSON's where it is too deep for ours. */
static void jo_tree(struct pt2_jw *o, const cJSON *item)
{
    size_t at = o->len;

    if (!jo_value(o, item, 0)) {
        o->len = at;
        jo_cjson(o, item);
    }
}

char *pt2_json_print(const cJSON *doc, size_t spare, size_t *len)
{
    struct pt2_jw w;

    if (doc == NULL)
        return NULL;
    pt2_jw_init_text(&w);
    if (!jo_value(&w, doc, 0) || jo_room(&w, 1 + spare) == NULL) {
        free(w.buf);
        return NULL;
    }
    w.buf[w.len] = '\0';
    *len = w.len;
    return w.buf;
}

/* ---- the writer ----------------------------------------------------------- */

void pt2_jw_init_text(struct pt2_jw *w)
{
    memset(w, 0, sizeof(*w));
    w->text = 1;
}

void pt2_jw_init_tree(struct pt2_jw *w)
{
    memset(w, 0, sizeof(*w));
}

/* In an object, a value needs its key; in an array or at the root, none. */
static int jw_in_object(const struct pt2_jw *w)
{
    return w->is_obj[w->depth];
}

static void jw_key(struct pt2_jw *w, const char *key, int lit)
{
    if (w->failed)
        return;
    if (key == NULL || w->key != NULL || !jw_in_object(w)) {
        w->failed = 1;
        return;
    }
    w->key = key;
    w->key_lit = lit;
    if (w->text) {
        jo_string_with(w, w->nonempty[w->depth] ? ',' : 0, key, ':');
        w->nonempty[w->depth] = 1;
        w->keyed = 1;
    }
}

void pt2_jw_key_lit(struct pt2_jw *w, const char *lit)
{
    jw_key(w, lit, 1);
}

void pt2_jw_key_copy(struct pt2_jw *w, const char *key)
{
    jw_key(w, key, 0);
}

/*
 * Before a value (text): *pre is the comma it needs first (an array's later
 * elements) or 0, for the caller to write; 0 when the writer cannot take one.
 */
static int jw_text_begin(struct pt2_jw *w, char *pre)
{
    *pre = 0;
    if (w->failed)
        return 0;
    if (jw_in_object(w) != (w->key != NULL) || (w->depth == 0 && w->len > 0)) {
        w->failed = 1;
        return 0;
    }
    if (!w->keyed && w->nonempty[w->depth])
        *pre = ',';
    w->nonempty[w->depth] = 1;
    w->keyed = 0;
    w->key = NULL;
    return 1;
}

/* jw_text_begin, its comma written. */
static int jw_text_value(struct pt2_jw *w)
{
    char pre;

    if (!jw_text_begin(w, &pre))
        return 0;
    if (pre)
        jo_byte(w, pre);
    return !w->failed;
}

/* Attach item where the writer stands (tree); 0 when it could not (item freed). */
static int jw_attach(struct pt2_jw *w, cJSON *item)
{
    cJSON *at = w->depth > 0 ? w->stack[w->depth] : NULL;
    const char *key = w->key;
    int ok;

    if (item == NULL || w->failed || jw_in_object(w) != (key != NULL) ||
        (w->depth == 0 && w->root != NULL)) {
        cJSON_Delete(item);
        w->failed = 1;
        return 0;
    }
    w->key = NULL;
    if (at == NULL) {
        w->root = item;
        return 1;
    }
    if (key != NULL && w->key_lit) {
        ok = cJSON_AddItemToObjectCS(at, key, item);
        if (!ok)
            cJSON_Delete(item);
    } else {
        ok = pt2_json_add_owned(at, key, item); /* an array element, or a copied key */
    }
    if (!ok)
        w->failed = 1;
    return ok;
}

static void jw_open(struct pt2_jw *w, int obj)
{
    if (w->failed)
        return;
    if (w->depth >= PT2_JW_DEPTH) {
        w->failed = 1;
        return;
    }
    if (w->text) {
        if (!jw_text_value(w))
            return;
        jo_byte(w, obj ? '{' : '[');
        w->depth++;
        w->nonempty[w->depth] = 0;
    } else {
        cJSON *c = obj ? cJSON_CreateObject() : cJSON_CreateArray();

        if (!jw_attach(w, c))
            return;
        w->stack[++w->depth] = c;
    }
    w->is_obj[w->depth] = (unsigned char)obj;
}

void pt2_jw_obj(struct pt2_jw *w)
{
    jw_open(w, 1);
}

void pt2_jw_arr(struct pt2_jw *w)
{
    jw_open(w, 0);
}

void pt2_jw_end(struct pt2_jw *w)
{
    if (w->failed)
        return;
    if (w->depth == 0 || w->key != NULL) {
        w->failed = 1;
        return;
    }
    if (w->text) {
        jo_byte(w, w->is_obj[w->depth] ? '}' : ']');
    }
    w->depth--;
}

void pt2_jw_string(struct pt2_jw *w, const char *v, int empty_null)
{
    if (v == NULL || (empty_null && v[0] == '\0')) {
        pt2_jw_null(w);
    } else if (w->text) {
        char pre;

        if (jw_text_begin(w, &pre))
            jo_string_with(w, pre, v, 0);
    } else if (!w->failed) {
        jw_attach(w, cJSON_CreateString(v));
    }
}

void pt2_jw_number(struct pt2_jw *w, double v)
{
    if (w->text) {
        if (jw_text_value(w))
            jo_number(w, v, NULL);
    } else if (!w->failed) {
        jw_attach(w, cJSON_CreateNumber(v));
    }
}

static void jw_word(struct pt2_jw *w, const char *word, cJSON *(*make)(void))
{
    if (w->text) {
        if (jw_text_value(w))
            jo_put(w, word, strlen(word));
    } else if (!w->failed) {
        jw_attach(w, make());
    }
}

static cJSON *jw_true(void)
{
    return cJSON_CreateTrue();
}

static cJSON *jw_false(void)
{
    return cJSON_CreateFalse();
}

void pt2_jw_bool(struct pt2_jw *w, int v)
{
    jw_word(w, v ? "true" : "false", v ? jw_true : jw_false);
}

void pt2_jw_null(struct pt2_jw *w)
{
    jw_word(w, "null", cJSON_CreateNull);
}

void pt2_jw_tree(struct pt2_jw *w, const cJSON *item)
{
    if (item == NULL) {
        pt2_jw_null(w);
    } else if (w->text) {
        if (jw_text_value(w))
            jo_tree(w, item);
    } else if (!w->failed) {
        jw_attach(w, cJSON_Duplicate(item, 1));
    }
}

void pt2_jw_tree_take(struct pt2_jw *w, cJSON *item)
{
    if (item == NULL) {
        w->failed = 1;
    } else if (w->text) {
        pt2_jw_tree(w, item);
        cJSON_Delete(item);
    } else if (w->failed) {
        cJSON_Delete(item);
    } else {
        jw_attach(w, item);
    }
}

void pt2_jw_discard(struct pt2_jw *w)
{
    free(w->buf);
    cJSON_Delete(w->root);
    w->buf = NULL;
    w->root = NULL;
    w->len = w->cap = 0;
    w->depth = 0;
    w->key = NULL;
}

static int jw_incomplete(const struct pt2_jw *w)
{
    return w->failed || w->depth != 0 || w->key != NULL ||
           (w->text ? w->len == 0 : w->root == NULL);
}

int pt2_jw_finish_tree(struct pt2_jw *w, cJSON **out, struct pt2_error *err)
{
    *out = NULL;
    if (w->text || jw_incomplete(w)) {
        pt2_jw_discard(w);
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory building the JSON document");
    }
    *out = w->root;
    w->root = NULL;
    return PT2_OK;
}

int pt2_jw_finish_text(struct pt2_jw *w, size_t spare, char **out, size_t *len,
                       struct pt2_error *err)
{
    *out = NULL;
    *len = 0;
    if (!w->text || jw_incomplete(w) || jo_room(w, 1 + spare) == NULL) {
        pt2_jw_discard(w);
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory building the JSON document");
    }
    w->buf[w->len] = '\0';
    *out = w->buf;
    *len = w->len;
    w->buf = NULL;
    w->len = w->cap = 0;
    return PT2_OK;
}
