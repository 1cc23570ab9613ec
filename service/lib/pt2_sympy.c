/*
 * pt2_sympy.c - sympy srepr text to the form str() prints (see pt2_sympy.h).
 *
 * A small recursive-descent parser over a fixed pool of nodes with a depth
 * cap, so hostile text costs O(length) and nothing is allocated; anything
 * unexpected (unknown syntax, too many nodes, too deep, integers past 2^53)
 * makes the caller fall back to the raw string. The printer follows sympy's
 * str() for the shapes torch writes: symbolic terms of a sum first and the
 * constant last ("s0 + 1"), a negative term as " - ", a coefficient of -1 as
 * a minus sign, FloorDiv always in parentheses as torch prints it.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_sympy.h"
#include "pt2_tensor.h"

#define EXPR_NODES_MAX 128
#define EXPR_DEPTH_MAX 32
#define EXPR_TEXT_MAX 512

enum node_kind { N_INT, N_SYM, N_FUNC };

struct node {
    int kind;
    const char *name; /* symbol or function name, not NUL-terminated */
    size_t name_len;
    long long value; /* N_INT */
    int child, next; /* first argument, next sibling; -1 = none */
};

struct xparse {
    const char *s;
    size_t i;
    struct node nodes[EXPR_NODES_MAX];
    int n;
};

static void skip_ws(struct xparse *p)
{
    while (p->s[p->i] == ' ')
        p->i++;
}

static int is_ident_start(char c)
{
    return isalpha((unsigned char)c) || c == '_';
}

static int is_ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

static int new_node(struct xparse *p, int kind)
{
    struct node *nd;

    if (p->n >= EXPR_NODES_MAX)
        return -1;
    nd = &p->nodes[p->n];
    memset(nd, 0, sizeof(*nd));
    nd->kind = kind;
    nd->child = nd->next = -1;
    return p->n++;
}

static int parse_expr(struct xparse *p, int depth);

/*
 * Integer literal with an optional sign; -1 on no digits or a magnitude past
 * 2^53 (no size is that large, and render() negates values: -LLONG_MIN
 * would overflow).
 */
static int parse_int(struct xparse *p)
{
    const char *start = p->s + p->i;
    int neg = start[0] == '-';
    const char *end;
    uint64_t mag;
    int id;

    if (pt2_num_u64_prefix(start + neg, 10, &mag, &end) != PT2_OK || mag > PT2_JSON_INT_MAX ||
        (id = new_node(p, N_INT)) < 0)
        return -1;
    p->nodes[id].value = neg ? -(long long)mag : (long long)mag;
    p->i += (size_t)(end - start);
    return id;
}

/* `Name(args)` or a bare identifier; `key=value` arguments are dropped and
 * Symbol('x', ...) / Integer(n) collapse to leaves. */
static int parse_call(struct xparse *p, int depth)
{
    const char *name = p->s + p->i;
    size_t nlen = 0;
    int id, arg, last = -1;

    while (is_ident_char(name[nlen]))
        nlen++;
    p->i += nlen;
    skip_ws(p);
    if (p->s[p->i] != '(') {
        if ((id = new_node(p, N_SYM)) < 0)
            return -1;
        p->nodes[id].name = name;
        p->nodes[id].name_len = nlen;
        return id;
    }
    p->i++;
    if (nlen == 6 && strncmp(name, "Symbol", 6) == 0) {
        char q;
        size_t start;

        skip_ws(p);
        q = p->s[p->i];
        if (q != '\'' && q != '"')
            return -1;
        start = ++p->i;
        while (p->s[p->i] != '\0' && p->s[p->i] != q)
            p->i++;
        if (p->s[p->i] != q || p->i == start || (id = new_node(p, N_SYM)) < 0)
            return -1;
        p->nodes[id].name = p->s + start;
        p->nodes[id].name_len = p->i - start;
        p->i++;
        /* The assumptions (integer=True, ...) say nothing about the size. */
        while (p->s[p->i] != '\0' && p->s[p->i] != ')')
            p->i++;
        if (p->s[p->i] != ')')
            return -1;
        p->i++;
        return id;
    }
    if (nlen == 7 && strncmp(name, "Integer", 7) == 0) {
        skip_ws(p);
        id = parse_int(p);
        skip_ws(p);
        if (id < 0 || p->s[p->i] != ')')
            return -1;
        p->i++;
        return id;
    }
    if ((id = new_node(p, N_FUNC)) < 0)
        return -1;
    p->nodes[id].name = name;
    p->nodes[id].name_len = nlen;
    for (;;) {
        skip_ws(p);
        if (p->s[p->i] == ')') {
            p->i++;
            return id;
        }
        arg = parse_expr(p, depth + 1);
        if (arg < 0)
            return -1;
        skip_ws(p);
        if (p->s[p->i] == '=') { /* keyword argument: drop it */
            p->i++;
            skip_ws(p);
            if (parse_expr(p, depth + 1) < 0)
                return -1;
            skip_ws(p);
        } else if (last < 0) {
            p->nodes[id].child = arg;
            last = arg;
        } else {
            p->nodes[last].next = arg;
            last = arg;
        }
        if (p->s[p->i] == ',')
            p->i++;
        else if (p->s[p->i] != ')')
            return -1;
    }
}

static int parse_expr(struct xparse *p, int depth)
{
    char c;

    if (depth > EXPR_DEPTH_MAX)
        return -1;
    skip_ws(p);
    c = p->s[p->i];
    if (c == '-' || isdigit((unsigned char)c))
        return parse_int(p);
    if (is_ident_start(c))
        return parse_call(p, depth);
    return -1;
}

struct xout {
    char buf[EXPR_TEXT_MAX];
    size_t pos;
    int overflow;
};

static void put(struct xout *o, const char *s, size_t n)
{
    if (o->pos + n >= sizeof(o->buf)) {
        o->overflow = 1;
        return;
    }
    memcpy(o->buf + o->pos, s, n);
    o->pos += n;
    o->buf[o->pos] = '\0';
}

static void puts_(struct xout *o, const char *s)
{
    put(o, s, strlen(s));
}

static int is_func(const struct xparse *p, int id, const char *name)
{
    const struct node *nd = &p->nodes[id];
    return nd->kind == N_FUNC && nd->name_len == strlen(name) &&
           strncmp(nd->name, name, nd->name_len) == 0;
}

/* A term printed after " - " in a sum: a negative integer or -1*x. */
static int is_negative(const struct xparse *p, int id)
{
    const struct node *nd = &p->nodes[id];

    if (nd->kind == N_INT)
        return nd->value < 0;
    return is_func(p, id, "Mul") && nd->child >= 0 && p->nodes[nd->child].kind == N_INT &&
           p->nodes[nd->child].value < 0;
}

enum { CTX_TOP, CTX_SUM, CTX_PRODUCT, CTX_POWER };

static void render(const struct xparse *p, int id, int ctx, int negate, struct xout *o);

/* Mul(Integer(-1), x) -> "-x"; Mul(Integer(2), x) -> "2*x". */
static void render_product(const struct xparse *p, int id, int negate, struct xout *o)
{
    int c = p->nodes[id].child, first = 1;
    char num[32];

    if (c >= 0 && p->nodes[c].kind == N_INT) {
        long long v = negate ? -p->nodes[c].value : p->nodes[c].value;

        if (v == -1 && p->nodes[c].next >= 0) {
            puts_(o, "-");
        } else if (v != 1 || p->nodes[c].next < 0) {
            snprintf(num, sizeof(num), "%lld", v);
            puts_(o, num);
            first = 0;
        }
        c = p->nodes[c].next;
    } else if (negate) {
        puts_(o, "-");
    }
    for (; c >= 0; c = p->nodes[c].next) {
        if (!first)
            puts_(o, "*");
        render(p, c, CTX_PRODUCT, 0, o);
        first = 0;
    }
}

/* Add: symbolic terms first, the constant last, as str() prints it. */
static void render_sum(const struct xparse *p, int id, struct xout *o)
{
    int pass, c, first = 1;

    for (pass = 0; pass < 2; pass++) {
        for (c = p->nodes[id].child; c >= 0; c = p->nodes[c].next) {
            if ((p->nodes[c].kind == N_INT) != (pass == 1))
                continue;
            if (!first)
                puts_(o, is_negative(p, c) ? " - " : " + ");
            render(p, c, CTX_SUM, !first && is_negative(p, c), o);
            first = 0;
        }
    }
}

static void render(const struct xparse *p, int id, int ctx, int negate, struct xout *o)
{
    const struct node *nd = &p->nodes[id];
    char num[32];
    int c, paren;

    switch (nd->kind) {
    case N_INT:
        paren = nd->value < 0 && !negate && ctx >= CTX_PRODUCT;
        snprintf(num, sizeof(num), paren ? "(%lld)" : "%lld", negate ? -nd->value : nd->value);
        puts_(o, num);
        return;
    case N_SYM:
        put(o, nd->name, nd->name_len);
        return;
    }
    if (is_func(p, id, "Add")) {
        paren = ctx >= CTX_PRODUCT;
        puts_(o, paren ? "(" : "");
        render_sum(p, id, o);
        puts_(o, paren ? ")" : "");
    } else if (is_func(p, id, "Mul")) {
        paren = ctx == CTX_POWER;
        puts_(o, paren ? "(" : "");
        render_product(p, id, negate, o);
        puts_(o, paren ? ")" : "");
    } else if (is_func(p, id, "Pow") && nd->child >= 0 && p->nodes[nd->child].next >= 0) {
        render(p, nd->child, CTX_POWER, 0, o);
        puts_(o, "**");
        render(p, p->nodes[nd->child].next, CTX_POWER, 0, o);
    } else if (is_func(p, id, "FloorDiv") && nd->child >= 0 && p->nodes[nd->child].next >= 0) {
        /* torch prints FloorDiv as "(a//b)" whatever the context. */
        puts_(o, "(");
        render(p, nd->child, CTX_PRODUCT, 0, o);
        puts_(o, "//");
        render(p, p->nodes[nd->child].next, CTX_PRODUCT, 0, o);
        puts_(o, ")");
    } else {
        put(o, nd->name, nd->name_len);
        puts_(o, "(");
        for (c = nd->child; c >= 0; c = p->nodes[c].next) {
            render(p, c, CTX_TOP, 0, o);
            if (p->nodes[c].next >= 0)
                puts_(o, ", ");
        }
        puts_(o, ")");
    }
}

static int all_ident(const char *s)
{
    if (!is_ident_start(*s))
        return 0;
    while (is_ident_char(*s))
        s++;
    return *s == '\0';
}

static void copy_cut(char *out, size_t len, const char *text)
{
    if (len == 0)
        return;
    if (strlen(text) < len || len < 4) {
        snprintf(out, len, "%s", text);
        return;
    }
    snprintf(out, len, "%.*s...", (int)(len - 4), text);
}

int pt2_sympy_readable(const char *expr, char *out, size_t len)
{
    struct xparse p; /* about 5 KiB: fine on any worker thread's stack */
    struct xout o;
    const char *text = expr;
    int root, kind = PT2_SYMPY_COMPOUND;

    /* Called once per dimension: new_node() clears the nodes it hands out,
     * so only the counters are reset here, not the whole pool. */
    p.s = expr;
    p.i = 0;
    p.n = 0;
    o.buf[0] = '\0';
    o.pos = 0;
    o.overflow = 0;
    root = parse_expr(&p, 0);
    skip_ws(&p);
    if (root >= 0 && p.s[p.i] == '\0') {
        render(&p, root, CTX_TOP, 0, &o);
        if (!o.overflow) {
            text = o.buf;
            if (p.nodes[root].kind == N_INT)
                kind = PT2_SYMPY_INTEGER;
            else if (p.nodes[root].kind == N_SYM && all_ident(text))
                kind = PT2_SYMPY_SYMBOL;
        }
    }
    copy_cut(out, len, text);
    if (kind != PT2_SYMPY_COMPOUND && strlen(text) >= len)
        kind = PT2_SYMPY_COMPOUND; /* cut text is no longer that symbol */
    return kind;
}
