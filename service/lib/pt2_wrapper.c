/*
 * pt2_wrapper.c - push scanner over the AOTInductor wrapper C++ source.
 *
 * The wrapper is generated code, so the facts sit on lines of a few fixed
 * shapes (see pt2_wrapper.h and FORMATS.md §5). Each complete line
 * is matched against those shapes with small hand-written matchers (no regex
 * engine, no backtracking): O(line length) per line, so O(bytes) overall.
 * Facts are stored by input/output index in capped tables while scanning;
 * everything keyed by name (the run_impl symbol bindings, torch 2.1
 * make_dynamic_dim bounds) is kept in capped lists and resolved once in
 * finish() by sorting, so no step is quadratic. Constants are
 * summed as their blocks go by (only the current one is held), with a bitmap
 * of indices already counted so a repeated block is not counted twice.
 *
 * Rank rule (the doc's): an input's rank is known only when its check block
 * checks every dim from 0 to the highest size or stride index it mentions;
 * otherwise the rank stays unknown and a warning says so.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pt2_model.h"
#include "pt2_utf8.h"
#include "pt2_wrapper.h"

_Static_assert(PT2_DIMS_MAX <= 64, "dim masks are 64-bit");

#define BINDINGS_MAX 16384 /* run_impl symbol bindings kept for finish() */
#define DYNDIMS_MAX 4096   /* torch 2.1 make_dynamic_dim lines kept */
#define CTOR_LINES_MAX 8   /* lines the AOTInductorModelBase( arguments may span */
#define NAME_LEN 128       /* = sizeof(struct pt2_tensor.name) */
/* How far past the prologue run_impl is read for assert_size_stride lines: they come at
 * each input's first use, near the top; a dim still unnamed past this stays unnamed. */
#define ASSERT_WINDOW (64u * 1024u)

/* ---- dtypes ----------------------------------------------------------------- */

/* c10::ScalarType in code order: the index is the code. */
static const struct {
    const char *scalar; /* c10 name, as in at::kFloat / ScalarType::Float */
    const char *torch;  /* canonical torch name */
} c10_dtypes[] = {
    {"Byte", "uint8"},
    {"Char", "int8"},
    {"Short", "int16"},
    {"Int", "int32"},
    {"Long", "int64"},
    {"Half", "float16"},
    {"Float", "float32"},
    {"Double", "float64"},
    {"ComplexHalf", "complex32"},
    {"ComplexFloat", "complex64"},
    {"ComplexDouble", "complex128"},
    {"Bool", "bool"},
    {"QInt8", "qint8"},
    {"QUInt8", "quint8"},
    {"QInt32", "qint32"},
    {"BFloat16", "bfloat16"},
    {"QUInt4x2", "quint4x2"},
    {"QUInt2x4", "quint2x4"},
    {"Bits1x8", "bits1x8"},
    {"Bits2x4", "bits2x4"},
    {"Bits4x2", "bits4x2"},
    {"Bits8", "bits8"},
    {"Bits16", "bits16"},
    {"Float8_e5m2", "float8_e5m2"},
    {"Float8_e4m3fn", "float8_e4m3fn"},
    {"Float8_e5m2fnuz", "float8_e5m2fnuz"},
    {"Float8_e4m3fnuz", "float8_e4m3fnuz"},
    {"UInt16", "uint16"},
    {"UInt32", "uint32"},
    {"UInt64", "uint64"},
    {"UInt1", "uint1"},
    {"UInt2", "uint2"},
    {"UInt3", "uint3"},
    {"UInt4", "uint4"},
    {"UInt5", "uint5"},
    {"UInt6", "uint6"},
    {"UInt7", "uint7"},
    {"Int1", "int1"},
    {"Int2", "int2"},
    {"Int3", "int3"},
    {"Int4", "int4"},
    {"Int5", "int5"},
    {"Int6", "int6"},
    {"Int7", "int7"},
    {"Float8_e8m0fnu", "float8_e8m0fnu"},
    {"Float4_e2m1fn_x2", "float4_e2m1fn_x2"},
};

#define N_DTYPES ((int)(sizeof(c10_dtypes) / sizeof(c10_dtypes[0])))
#define DTYPE_UNKNOWN N_DTYPES /* bucket of the constants breakdown */

_Static_assert(sizeof(c10_dtypes) / sizeof(c10_dtypes[0]) + 1 <= PT2_CONST_DTYPES_MAX,
               "breakdown has room for every dtype and the unknown bucket");

const char *pt2_wrapper_c10_dtype_name(int64_t code)
{
    if (code < 0 || code >= N_DTYPES)
        return NULL;
    return c10_dtypes[code].torch;
}

static int dtype_by_torch_name(const char *name, int ignore_case)
{
    int i;

    for (i = 0; i < N_DTYPES; i++)
        if ((ignore_case ? strcasecmp(name, c10_dtypes[i].torch)
                         : strcmp(name, c10_dtypes[i].torch)) == 0)
            return i;
    return -1;
}

static int dtype_by_scalar_name(const char *name)
{
    int i;

    for (i = 0; i < N_DTYPES; i++)
        if (strcmp(name, c10_dtypes[i].scalar) == 0)
            return i;
    return -1;
}

/* ---- small text matchers ------------------------------------------------------ */

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\v' || *p == '\f')
        p++;
    return p;
}

static int starts(const char *p, const char *lit)
{
    return strncmp(p, lit, strlen(lit)) == 0;
}

/* Advance *p past `lit` (after blanks) if it is there. */
static int eat(const char **p, const char *lit)
{
    const char *q = skip_ws(*p);
    size_t n = strlen(lit);

    if (strncmp(q, lit, n) != 0)
        return 0;
    *p = q + n;
    return 1;
}

static int is_ident_start(char c)
{
    return isalpha((unsigned char)c) || c == '_';
}

static int is_ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

static size_t ident_len(const char *p)
{
    size_t n = 0;

    if (!is_ident_start(p[0]))
        return 0;
    while (is_ident_char(p[n]))
        n++;
    return n;
}

/* Copy an identifier of n bytes into out; 0 when it does not fit. */
static int copy_ident(const char *p, size_t n, char *out, size_t len)
{
    if (n == 0 || n >= len)
        return 0;
    memcpy(out, p, n);
    out[n] = '\0';
    return 1;
}

/* Decimal integer literal (optional '-', C suffixes L/LL/U ignored) that fits
 * an int64_t. 1 and *p advanced, or 0. */
static int parse_i64(const char **p, int64_t *out)
{
    const char *s = skip_ws(*p);
    int neg = s[0] == '-';
    const char *end;
    uint64_t mag;

    if (pt2_num_u64_prefix(s + neg, 10, &mag, &end) != PT2_OK ||
        mag > (uint64_t)INT64_MAX + (uint64_t)neg)
        return 0;
    while (*end == 'L' || *end == 'l' || *end == 'U' || *end == 'u')
        end++;
    if (is_ident_char(*end) || *end == '.')
        return 0;
    *out = neg ? (int64_t)(0 - mag) : (int64_t)mag;
    *p = end;
    return 1;
}

/* Non-negative integer at most 2^53 (exact in JSON); 0 otherwise. */
static int parse_size(const char **p, int64_t *out)
{
    int64_t v;

    if (!parse_i64(p, &v) || v < 0 || v > PT2_JSON_INT_MAX)
        return 0;
    *out = v;
    return 1;
}

/*
 * C string literal at *p (after blanks) into out. Returns 1 and advances,
 * 0 when there is no complete literal, -1 when it does not fit in `len`.
 */
static int parse_cstr(const char **p, char *out, size_t len)
{
    const char *s = skip_ws(*p);
    size_t n = 0;
    int fits = 1;

    if (*s != '"')
        return 0;
    s++;
    while (*s != '"') {
        char c = *s;

        if (c == '\0')
            return 0;
        if (c == '\\') {
            s++;
            switch (*s) {
            case '\0':
                return 0;
            case 'n':
                c = '\n';
                break;
            case 't':
                c = '\t';
                break;
            default:
                c = *s;
            }
        }
        if (n + 1 < len)
            out[n++] = c;
        else
            fits = 0;
        s++;
    }
    out[n] = '\0';
    *p = s + 1;
    return fits ? 1 : -1;
}

/* Text up to ';' (or the end), blanks trimmed, into out; 0 when too long. */
static int rhs_copy(const char *p, char *out, size_t len)
{
    const char *end = strchr(p, ';');
    size_t n;

    p = skip_ws(p);
    n = end != NULL && end >= p ? (size_t)(end - p) : strlen(p);
    while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
        n--;
    if (n >= len)
        return 0;
    memcpy(out, p, n);
    out[n] = '\0';
    return 1;
}

static void strip_prefixes(const char **t)
{
    static const char *const ns[] = {"at::", "c10::", "torch::", "ScalarType::"};
    size_t i;
    int again = 1;

    while (again) {
        again = 0;
        for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
            if (starts(*t, ns[i])) {
                *t += strlen(ns[i]);
                again = 1;
            }
    }
}

/*
 * c10 code of a dtype as generated code spells it: cached_torch_dtype_float32,
 * aoti_torch_dtype_bfloat16(), at::kFloat, c10::ScalarType::BFloat16,
 * "torch.float16", a bare c10 code (6), each optionally inside
 * static_cast<int32_t>(...). -1 when not recognised.
 */
static int dtype_from_code(const char *rhs)
{
    static const char *const torch_prefixes[] = {"cached_torch_dtype_", "aoti_torch_dtype_",
                                                 "torch_dtype_"};
    char buf[128], *t;
    const char *u;
    size_t n, i;
    int64_t code;
    int r;

    if (!rhs_copy(rhs, buf, sizeof(buf)))
        return -1;
    t = buf;
    if (starts(t, "static_cast<")) {
        t = strchr(t, '>');
        if (t == NULL || t[1] != '(')
            return -1;
        t += 2;
        n = strlen(t);
        if (n == 0 || t[n - 1] != ')')
            return -1;
        t[n - 1] = '\0';
    }
    t = (char *)skip_ws(t);
    n = strlen(t);
    while (n > 0 && (t[n - 1] == ' ' || t[n - 1] == '\t'))
        t[--n] = '\0';
    if (n >= 2 && t[n - 2] == '(' && t[n - 1] == ')')
        t[n -= 2] = '\0';
    u = t;
    if (parse_i64(&u, &code) && *skip_ws(u) == '\0')
        return code >= 0 && code < N_DTYPES ? (int)code : -1;
    if (t[0] == '"') {
        char s[64];

        u = t;
        if (parse_cstr(&u, s, sizeof(s)) != 1)
            return -1;
        u = s;
        if (starts(u, "torch."))
            u += 6;
        return dtype_by_torch_name(u, 0);
    }
    for (i = 0; i < sizeof(torch_prefixes) / sizeof(torch_prefixes[0]); i++)
        if (starts(t, torch_prefixes[i]))
            return dtype_by_torch_name(t + strlen(torch_prefixes[i]), 0);
    u = t;
    strip_prefixes(&u);
    if (u[0] == 'k' && isupper((unsigned char)u[1])) {
        r = dtype_by_scalar_name(u + 1);
        return r >= 0 ? r : dtype_by_torch_name(u + 1, 1); /* kFloat32, kInt64 */
    }
    return u != t ? dtype_by_scalar_name(u) : -1;
}

/* ---- scan state ---------------------------------------------------------------- */

/* Facts about one input or output, by index. */
struct io_slot {
    struct pt2_tensor t; /* name, dtype; dims: size >= 0 fixed, else min/max/symbol */
    char var[NAME_LEN];  /* variable of its check block, "" = none */
    int named;
    int name_too_long;
    int block;        /* a check block (or a torch 2.1 dtype/shape) was seen */
    uint64_t checked; /* dims with a size check */
    int hi;           /* highest size/stride index mentioned, -1 = none */
    int over;         /* an index >= PT2_DIMS_MAX was mentioned */
    int reserve;      /* torch 2.1 shape.reserve(n), -1 = none */
    int pushed;       /* torch 2.1 dims pushed */
};

struct io_table {
    struct io_slot *v;
    size_t n, cap;
    int over_cap; /* an index >= PT2_TENSORS_MAX was seen */
};

struct binding {
    char var[NAME_LEN];
    char sym[PT2_SYMBOL_MAX];
    int dim;
};

struct dyndim {
    char sym[PT2_SYMBOL_MAX];
    int64_t min, max;
};

struct dstat {
    uint64_t count, bytes, elements;
    int seen;
};

/* The constant whose block is being read. */
struct const_cur {
    int64_t idx; /* -1 = none */
    int skip;    /* repeated block: ignored */
    int dtype;   /* c10 code, -1 = none/unknown */
    int64_t size, elements;
    int type; /* ConstantType, -1 = not given */
    int folded;
};

struct pt2_wrapper_scan {
    char line[PT2_WRAPPER_LINE_MAX + 1];
    size_t len;
    int skipping; /* inside a line longer than the window */
    uint64_t consumed, cap;
    int cut, done, finished;
    char model[NAME_LEN];

    struct io_table in, out;
    int cur_kind; /* 0 none, 1 input block, 2 output block */
    size_t cur_idx;

    int found, ctor_seen, ctor_pending, ctor_lines, ctor_nargs;
    int64_t ctor_args[3];
    int in_run_impl, prologue_done, saw_check_fn, saw_block;
    /* After the prologue, while an input dim has no symbol yet: run_impl's
     * `assert_size_stride(x, {2L, s27}, ...)` lines name the symbols of the dims
     * the prologue does not bind (a second input sharing a dim, torch >= 2.8). */
    int asserting;
    uint64_t assert_from;
    size_t asserts_seen;
    int has_in_spec, has_out_spec;
    char *in_spec; /* the in_spec_ literal's text (JSON), when its line fitted the window */
    size_t in_spec_len;

    struct const_cur cc;
    unsigned char *cseen; /* bitmap of constant indices counted */
    size_t cseen_len;
    uint64_t ccount, cbytes, celements, cmissing_size, cmissing_shape;
    uint64_t cparams, cbuffers, ctensors, cfolded, crepeated;
    int cover_cap;
    struct dstat dstats[N_DTYPES + 1];
    int dorder[N_DTYPES + 1];
    int ndorder;

    struct binding *bind;
    size_t nbind, capbind;
    int bind_over;
    struct dyndim *dyn;
    size_t ndyn, capdyn;

    uint64_t long_relevant; /* skipped long lines that looked like I/O facts */
};

static void sat_add(uint64_t *a, uint64_t b)
{
    *a = *a > UINT64_MAX - b ? UINT64_MAX : *a + b;
}

static void slot_init(struct io_slot *sl)
{
    int i;

    memset(sl, 0, sizeof(*sl));
    pt2_tensor_init(&sl->t);
    for (i = 0; i < PT2_DIMS_MAX; i++)
        sl->t.dims[i].size = -1;
    sl->hi = -1;
    sl->reserve = -1;
}

/* Slot `idx` of the table (created on first use); NULL past the cap. */
static int slot_get(struct io_table *tb, int64_t idx, struct io_slot **out, struct pt2_error *err)
{
    int rc;

    *out = NULL;
    if (idx < 0)
        return PT2_OK;
    if (idx >= PT2_TENSORS_MAX) {
        tb->over_cap = 1;
        return PT2_OK;
    }
    while ((size_t)idx >= tb->cap) {
        rc = pt2_model_grow((void **)&tb->v, &tb->cap, tb->cap, sizeof(*tb->v), PT2_TENSORS_MAX,
                            "inputs or outputs in one wrapper", err);
        if (rc != PT2_OK)
            return rc;
    }
    while (tb->n <= (size_t)idx)
        slot_init(&tb->v[tb->n++]);
    *out = &tb->v[idx];
    return PT2_OK;
}

static struct io_slot *cur_slot(struct pt2_wrapper_scan *s)
{
    struct io_table *tb = s->cur_kind == 1 ? &s->in : s->cur_kind == 2 ? &s->out : NULL;

    if (tb == NULL || s->cur_idx >= tb->n)
        return NULL;
    return &tb->v[s->cur_idx];
}

/* ---- constants ------------------------------------------------------------------ */

static void const_flush(struct pt2_wrapper_scan *s)
{
    struct const_cur *c = &s->cc;
    struct dstat *d;
    int b;

    if (c->idx < 0 || c->skip) {
        c->idx = -1;
        return;
    }
    s->ccount++;
    b = c->dtype >= 0 ? c->dtype : DTYPE_UNKNOWN;
    d = &s->dstats[b];
    if (!d->seen) {
        d->seen = 1;
        s->dorder[s->ndorder++] = b;
    }
    d->count++;
    if (c->size >= 0) {
        sat_add(&s->cbytes, (uint64_t)c->size);
        sat_add(&d->bytes, (uint64_t)c->size);
    } else {
        s->cmissing_size++;
    }
    if (c->elements >= 0) {
        sat_add(&s->celements, (uint64_t)c->elements);
        sat_add(&d->elements, (uint64_t)c->elements);
    } else {
        s->cmissing_shape++;
    }
    if (c->type == 1)
        s->cparams++;
    else if (c->type == 2)
        s->cbuffers++;
    else if (c->type == 3)
        s->ctensors++;
    if (c->type == 4 || c->folded)
        s->cfolded++;
    c->idx = -1;
}

/* Start the block of constant idx: 0 when it was counted before (ignored). */
static int const_begin(struct pt2_wrapper_scan *s, int64_t idx, struct pt2_error *err)
{
    size_t byte = (size_t)idx / 8, nlen;
    unsigned char *nv;

    const_flush(s);
    if (byte >= s->cseen_len) {
        nlen = s->cseen_len ? s->cseen_len : 64;
        while (nlen <= byte)
            nlen *= 2;
        if (nlen > PT2_WRAPPER_CONSTANTS_MAX / 8)
            nlen = PT2_WRAPPER_CONSTANTS_MAX / 8;
        nv = realloc(s->cseen, nlen);
        if (nv == NULL)
            return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
        memset(nv + s->cseen_len, 0, nlen - s->cseen_len);
        s->cseen = nv;
        s->cseen_len = nlen;
    }
    memset(&s->cc, 0, sizeof(s->cc));
    s->cc.idx = idx;
    s->cc.dtype = -1;
    s->cc.size = s->cc.elements = -1;
    s->cc.type = -1;
    if (s->cseen[byte] & (1u << (idx % 8))) {
        s->cc.skip = 1;
        s->crepeated++;
    }
    s->cseen[byte] |= (unsigned char)(1u << (idx % 8));
    return PT2_OK;
}

/* "{32, 45}" -> 1440; "{}" -> 1. -1 when malformed or past 2^53. */
static int64_t shape_product(const char *p)
{
    int64_t prod = 1, v;

    if (!eat(&p, "{"))
        return -1;
    if (eat(&p, "}"))
        return 1;
    for (;;) {
        if (!parse_size(&p, &v))
            return -1;
        if (v != 0 && prod > PT2_JSON_INT_MAX / v)
            return -1;
        prod *= v;
        if (eat(&p, "}"))
            return prod;
        if (!eat(&p, ","))
            return -1;
        if (eat(&p, "}")) /* trailing comma */
            return prod;
    }
}

/* ConstantType of "static_cast<int32_t>(torch::aot_inductor::ConstantType::Buffer)" or a code. */
static int constant_type(const char *p)
{
    static const char *const names[] = {"Unknown", "Parameter", "Buffer", "TensorConstant",
                                        "FoldedConstant"};
    const char *q = strstr(p, "ConstantType::");
    char buf[32];
    int64_t v;
    size_t i, n;

    if (q == NULL) {
        if (eat(&p, "static_cast<int32_t>("))
            p = skip_ws(p);
        return parse_i64(&p, &v) && v >= 0 && v <= 4 ? (int)v : -1;
    }
    q += strlen("ConstantType::");
    n = ident_len(q);
    if (!copy_ident(q, n, buf, sizeof(buf)))
        return -1;
    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(buf, names[i]) == 0)
            return (int)i;
    return -1;
}

/* constants_info_[<p>: "3].dtype = ...;" */
static int const_line(struct pt2_wrapper_scan *s, const char *p, struct pt2_error *err)
{
    char field[32];
    int64_t idx, v;
    size_t n;
    int rc;

    if (!parse_i64(&p, &idx) || idx < 0 || !eat(&p, "]") || !eat(&p, "."))
        return PT2_OK;
    if (idx >= PT2_WRAPPER_CONSTANTS_MAX) {
        s->cover_cap = 1;
        return PT2_OK;
    }
    s->found = 1;
    if (idx != s->cc.idx) {
        rc = const_begin(s, idx, err);
        if (rc != PT2_OK)
            return rc;
    }
    if (s->cc.skip)
        return PT2_OK;
    p = skip_ws(p);
    n = ident_len(p);
    if (!copy_ident(p, n, field, sizeof(field)))
        return PT2_OK;
    p += n;
    if (!eat(&p, "="))
        return PT2_OK;
    if (strcmp(field, "dtype") == 0) {
        s->cc.dtype = dtype_from_code(p);
    } else if (strcmp(field, "data_size") == 0) {
        if (parse_i64(&p, &v) && v >= 0)
            s->cc.size = v;
    } else if (strcmp(field, "shape") == 0) {
        s->cc.elements = shape_product(p);
    } else if (strcmp(field, "type") == 0) {
        s->cc.type = constant_type(skip_ws(p));
    } else if (strcmp(field, "from_folded") == 0) {
        s->cc.folded = eat(&p, "true");
    }
    return PT2_OK;
}

/* ---- inputs_info_ / outputs_info_ ------------------------------------------------ */

static int info_line(struct pt2_wrapper_scan *s, struct io_table *tb, const char *p,
                     struct pt2_error *err)
{
    struct io_slot *sl;
    int64_t idx, v;
    char sym[PT2_SYMBOL_MAX];
    size_t n;
    int rc, r;

    if (!parse_i64(&p, &idx) || idx < 0 || !eat(&p, "]") || !eat(&p, "."))
        return PT2_OK;
    rc = slot_get(tb, idx, &sl, err);
    if (rc != PT2_OK || sl == NULL)
        return rc;
    s->found = 1;
    p = skip_ws(p);
    if (eat(&p, "name") && eat(&p, "=")) {
        r = parse_cstr(&p, sl->t.name, sizeof(sl->t.name));
        sl->named = r == 1;
        sl->name_too_long = r < 0;
        if (r != 1)
            sl->t.name[0] = '\0';
        pt2_utf8_scrub(sl->t.name, strlen(sl->t.name)); /* names end up in JSON */
    } else if (eat(&p, "dtype") && eat(&p, "=")) {      /* torch 2.1: "torch.float16" */
        r = dtype_from_code(p);
        sl->block = 1;
        if (r >= 0)
            snprintf(sl->t.dtype, sizeof(sl->t.dtype), "%s", c10_dtypes[r].torch);
    } else if (eat(&p, "shape") && eat(&p, ".")) { /* torch 2.1 */
        sl->block = 1;
        if (eat(&p, "reserve") && eat(&p, "(")) {
            if (parse_i64(&p, &v) && v >= 0 && v <= PT2_DIMS_MAX)
                sl->reserve = (int)v;
            else
                sl->over = 1;
        } else if (eat(&p, "push_back") && eat(&p, "(")) {
            if (sl->pushed >= PT2_DIMS_MAX) {
                sl->over = 1;
                return PT2_OK;
            }
            p = skip_ws(p);
            if (eat(&p, "make_static_dim") && eat(&p, "(")) {
                if (parse_size(&p, &v))
                    sl->t.dims[sl->pushed].size = v;
                else
                    sl->over = 1; /* unreadable: keep the rank unknown */
            } else {
                n = ident_len(p);
                if (copy_ident(p, n, sym, sizeof(sym)))
                    snprintf(sl->t.dims[sl->pushed].symbol, PT2_SYMBOL_MAX, "%s", sym);
            }
            sl->pushed++;
        }
    }
    return PT2_OK;
}

/* ---- AOTInductorModelBase(inputs, outputs, constants, ...) --------------------------- */

/* Collect integer arguments from p; stop pending at anything else. */
static void ctor_args(struct pt2_wrapper_scan *s, const char *p)
{
    int64_t v;

    for (;;) {
        p = skip_ws(p);
        if (*p == '\0' || (p[0] == '/' && p[1] == '/')) {
            if (++s->ctor_lines > CTOR_LINES_MAX)
                s->ctor_pending = 0;
            return;
        }
        if (!parse_i64(&p, &v)) {
            s->ctor_pending = 0;
            return;
        }
        s->ctor_args[s->ctor_nargs++] = v;
        s->found = 1;
        s->ctor_seen = 1;
        if (s->ctor_nargs == 3 || !eat(&p, ",")) {
            s->ctor_pending = 0;
            return;
        }
    }
}

/* ---- runtime checks ------------------------------------------------------------ */

/* `X_size[3]` / `X_stride[3]`: base name, kind (1 size, 2 stride) and index. */
static int parse_ref(const char **pp, char *base, size_t blen, int *kind, int64_t *dim)
{
    const char *p = skip_ws(*pp);
    size_t n = ident_len(p), suf;

    if (n > 5 && strncmp(p + n - 5, "_size", 5) == 0) {
        *kind = 1;
        suf = 5;
    } else if (n > 7 && strncmp(p + n - 7, "_stride", 7) == 0) {
        *kind = 2;
        suf = 7;
    } else {
        return 0;
    }
    if (!copy_ident(p, n - suf, base, blen))
        return 0;
    p += n;
    if (!eat(&p, "[") || !parse_i64(&p, dim) || *dim < 0 || !eat(&p, "]"))
        return 0;
    *pp = p;
    return 1;
}

static const char *parse_op(const char **pp)
{
    static const char *const ops[] = {"!=", "==", "<=", ">=", "<", ">"};
    size_t i;

    for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (eat(pp, ops[i]))
            return ops[i];
    return NULL;
}

/* `a OP b` written as `b OP' a`. */
static const char *flip_op(const char *op)
{
    static const char *const from[] = {"<", ">", "<=", ">="}, *const to[] = {">", "<", ">=", "<="};
    size_t i;

    for (i = 0; i < sizeof(from) / sizeof(from[0]); i++)
        if (strcmp(op, from[i]) == 0)
            return to[i];
    return op; /* == and != */
}

/* The operator of `!(a OP b)`. */
static const char *negate_op(const char *op)
{
    static const char *const from[] = {"==", "!=", "<", ">", "<=", ">="}, *const to[] = {
                                                                              "!=", "==", ">=",
                                                                              "<=", ">",  "<"};
    size_t i;

    for (i = 0; i < sizeof(from) / sizeof(from[0]); i++)
        if (strcmp(op, from[i]) == 0)
            return to[i];
    return op;
}

/*
 * `if (3 != x_size[0]) {`, `if (x_size[1] < 2) {`, `if (x_size[1] > 4000) {`,
 * either operand order, `if (!(x_size[1] >= 2)) {`, and stride checks.
 */
static void check_line(struct pt2_wrapper_scan *s, const char *p)
{
    struct io_slot *sl = cur_slot(s);
    char base[NAME_LEN];
    const char *op;
    int64_t k, dim;
    int kind, ref_left, neg;
    struct pt2_dim *d;

    if (sl == NULL || !eat(&p, "("))
        return;
    neg = eat(&p, "!");
    if (neg && !eat(&p, "("))
        return;
    if (parse_ref(&p, base, sizeof(base), &kind, &dim)) {
        ref_left = 1;
        if ((op = parse_op(&p)) == NULL || !parse_i64(&p, &k))
            return;
    } else {
        ref_left = 0;
        if (!parse_i64(&p, &k) || (op = parse_op(&p)) == NULL ||
            !parse_ref(&p, base, sizeof(base), &kind, &dim))
            return;
    }
    if ((neg && !eat(&p, ")")) || !eat(&p, ")") || strcmp(base, sl->var) != 0)
        return;
    if (dim >= PT2_DIMS_MAX) {
        sl->over = 1;
        return;
    }
    if ((int)dim > sl->hi)
        sl->hi = (int)dim;
    if (kind == 2)
        return;
    /* Normalise to `size OP k`, the failing condition. */
    if (!ref_left)
        op = flip_op(op);
    if (neg)
        op = negate_op(op);
    d = &sl->t.dims[dim];
    if (strcmp(op, "!=") == 0) {
        if (k >= 0 && k <= PT2_JSON_INT_MAX) {
            d->size = k;
            sl->checked |= 1ull << dim;
        }
        return;
    }
    if (strcmp(op, "==") == 0)
        return;
    sl->checked |= 1ull << dim; /* a bound: dynamic */
    if (strcmp(op, "<=") == 0 && k < PT2_JSON_INT_MAX)
        k++;
    else if (strcmp(op, ">=") == 0 && k > 0)
        k--;
    if (k < 0 || k >= PT2_JSON_INT_MAX)
        return; /* unbounded (torch writes 2^63-1 for int_oo) */
    if (op[0] == '<')
        d->min = k;
    else
        d->max = k;
}

/* ---- declarations: `[type] name = rhs;` ------------------------------------------- */

static int block_start(struct pt2_wrapper_scan *s, const char *var, const char *rhs,
                       struct pt2_error *err)
{
    struct io_table *tb;
    struct io_slot *sl;
    const char *p = rhs;
    int64_t idx;
    int rc, wrapped;

    wrapped = eat(&p, "ConstantHandle") && eat(&p, "(");
    if (!wrapped)
        p = rhs;
    if (eat(&p, "input_handles"))
        tb = &s->in;
    else if (eat(&p, "output_handles"))
        tb = &s->out;
    else
        return PT2_OK;
    if (!eat(&p, "[") || !parse_i64(&p, &idx) || idx < 0 || !eat(&p, "]") ||
        (wrapped && !eat(&p, ")")))
        return PT2_OK;
    p = skip_ws(p);
    if (*p != ';' && *p != '\0')
        return PT2_OK;
    rc = slot_get(tb, idx, &sl, err);
    if (rc != PT2_OK || sl == NULL)
        return rc;
    snprintf(sl->var, sizeof(sl->var), "%s", var);
    sl->block = 1;
    s->saw_block = 1;
    s->cur_kind = tb == &s->in ? 1 : 2;
    s->cur_idx = (size_t)idx;
    return PT2_OK;
}

/* Input variable `var`'s dim `dim` is the symbol `sym` (kept for finish()). */
static int push_binding(struct pt2_wrapper_scan *s, const char *var, const char *sym, int64_t dim,
                        struct pt2_error *err)
{
    int rc;

    if (dim >= PT2_DIMS_MAX || strlen(sym) >= PT2_SYMBOL_MAX || strlen(var) >= NAME_LEN)
        return PT2_OK;
    if (s->nbind >= BINDINGS_MAX) {
        s->bind_over = 1;
        return PT2_OK;
    }
    rc = pt2_model_grow((void **)&s->bind, &s->capbind, s->nbind, sizeof(*s->bind), BINDINGS_MAX,
                        "symbol bindings", err);
    if (rc != PT2_OK)
        return rc;
    memcpy(s->bind[s->nbind].var, var, strlen(var) + 1); /* fits: checked above */
    memcpy(s->bind[s->nbind].sym, sym, strlen(sym) + 1);
    s->bind[s->nbind].dim = (int)dim;
    s->nbind++;
    return PT2_OK;
}

/* `int64_t s0 = arg0_1_size[1];` */
static int add_binding(struct pt2_wrapper_scan *s, const char *sym, const char *rhs,
                       struct pt2_error *err)
{
    char base[NAME_LEN];
    const char *p = rhs;
    int64_t dim;
    int kind;
    size_t blen;

    if (!parse_ref(&p, base, sizeof(base), &kind, &dim) || kind != 1 || *skip_ws(p) != ';')
        return PT2_OK;
    /* `int64_t arg0_1_size_0 = arg0_1_size[0];` feeds an expression: no symbol. */
    blen = strlen(base);
    if (strncmp(sym, base, blen) == 0 && starts(sym + blen, "_size_"))
        return PT2_OK;
    return push_binding(s, base, sym, dim, err);
}

/* One size of an assert_size_stride list: a symbol ("s27") or a derived dim of one
 * ("2L*s27", "s27 + 1L", "2L*s27 - 1L"), written as sympy prints it ("2*s27", "s27 + 1")
 * into sym; 0 for a number or any other expression (the check blocks' business). */
static int assert_size(const char *p, const char *end, char *sym, size_t len)
{
    char id[PT2_SYMBOL_MAX];
    int64_t a = 1, b = 0;
    int scaled = 0, n;
    size_t k;

    if (parse_i64(&p, &a)) {
        if (!eat(&p, "*") || a == 0)
            return 0;
        scaled = 1;
    }
    p = skip_ws(p);
    k = ident_len(p);
    if (!copy_ident(p, k, id, sizeof(id)))
        return 0;
    p = skip_ws(p + k);
    if (p < end && (*p == '+' || *p == '-')) {
        int neg = *p == '-';
        p++;
        if (!parse_i64(&p, &b) || b <= 0)
            return 0;
        b = neg ? -b : b;
        p = skip_ws(p);
    }
    if (p != end)
        return 0;
    if (!scaled && b == 0)
        n = snprintf(sym, len, "%s", id);
    else if (!scaled)
        n = snprintf(sym, len, "%s %c %lld", id, b < 0 ? '-' : '+', (long long)(b < 0 ? -b : b));
    else if (b == 0)
        n = snprintf(sym, len, "%lld*%s", (long long)a, id);
    else
        n = snprintf(sym, len, "%lld*%s %c %lld", (long long)a, id, b < 0 ? '-' : '+',
                     (long long)(b < 0 ? -b : b));
    return n > 0 && (size_t)n < len;
}

/* `... assert_size_stride(arg3_1, {2L, s27}, {s27, 1L}, "input"); }`: each size that is a
 * symbol, or a derived dim of one, binds that dim. */
static int add_assert(struct pt2_wrapper_scan *s, const char *p, struct pt2_error *err)
{
    char var[NAME_LEN], sym[PT2_SYMBOL_MAX];
    const char *start, *end;
    size_t n;
    int64_t dim;
    int depth, rc;

    p = strstr(p, "assert_size_stride(") + strlen("assert_size_stride(");
    p = skip_ws(p);
    n = ident_len(p);
    if (!copy_ident(p, n, var, sizeof(var)))
        return PT2_OK;
    p += n;
    if (!eat(&p, ",") || !eat(&p, "{"))
        return PT2_OK;
    s->asserts_seen++;
    for (dim = 0;; dim++) {
        p = skip_ws(p);
        if (*p == '}')
            return PT2_OK;
        start = p;
        for (depth = 0; *p != '\0' && !(depth == 0 && (*p == ',' || *p == '}')); p++)
            depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
        if (*p == '\0')
            return PT2_OK;
        for (end = p; end > start && (end[-1] == ' ' || end[-1] == '\t'); end--)
            ;
        if (assert_size(start, end, sym, sizeof(sym))) {
            rc = push_binding(s, var, sym, dim, err);
            if (rc != PT2_OK)
                return rc;
        }
        if (*p == ',')
            p++;
    }
}

/* torch 2.1: `auto s0 = make_dynamic_dim("s0", 2, 2048);` */
static int add_dyndim(struct pt2_wrapper_scan *s, const char *p, struct pt2_error *err)
{
    struct dyndim d;
    int rc;

    if (!eat(&p, "(") || parse_cstr(&p, d.sym, sizeof(d.sym)) != 1 || !eat(&p, ","))
        return PT2_OK;
    pt2_utf8_scrub(d.sym, strlen(d.sym));
    if (!parse_size(&p, &d.min))
        d.min = -1;
    if (!eat(&p, ",") || !parse_size(&p, &d.max))
        d.max = -1;
    if (s->ndyn >= DYNDIMS_MAX)
        return PT2_OK;
    rc = pt2_model_grow((void **)&s->dyn, &s->capdyn, s->ndyn, sizeof(*s->dyn), DYNDIMS_MAX,
                        "dynamic dims", err);
    if (rc != PT2_OK)
        return rc;
    s->dyn[s->ndyn++] = d;
    return PT2_OK;
}

static int decl_line(struct pt2_wrapper_scan *s, const char *p, struct pt2_error *err)
{
    const char *eq = strchr(p, '='), *rhs, *q;
    char var[NAME_LEN];
    size_t end, n, vlen;
    struct io_slot *sl;
    int r;

    if (eq == NULL || eq == p || eq[1] == '=' || strchr("!<>=+-*/%&|^", eq[-1]) != NULL)
        return PT2_OK;
    for (q = p; q < eq; q++)
        if (strchr(".[]()\"'", *q) != NULL || (q[0] == '-' && q[1] == '>'))
            return PT2_OK; /* a member, an index or a call: not a declaration */
    end = (size_t)(eq - p);
    while (end > 0 && (p[end - 1] == ' ' || p[end - 1] == '\t'))
        end--;
    n = end;
    while (n > 0 && is_ident_char(p[n - 1]))
        n--;
    vlen = end - n;
    if (vlen == 0 || !is_ident_start(p[n]) || !copy_ident(p + n, vlen, var, sizeof(var)))
        return PT2_OK;
    rhs = skip_ws(eq + 1);

    if (starts(rhs, "ConstantHandle") || starts(rhs, "input_handles") ||
        starts(rhs, "output_handles"))
        return block_start(s, var, rhs, err);
    if (vlen > 15 && strcmp(var + vlen - 15, "_expected_dtype") == 0) {
        sl = cur_slot(s);
        if (sl != NULL && strlen(sl->var) == vlen - 15 && strncmp(var, sl->var, vlen - 15) == 0) {
            r = dtype_from_code(rhs);
            if (r >= 0) /* an unknown spelling leaves "" (and a warning) */
                snprintf(sl->t.dtype, sizeof(sl->t.dtype), "%s", c10_dtypes[r].torch);
        }
        return PT2_OK;
    }
    q = rhs;
    if (eat(&q, "make_dynamic_dim"))
        return add_dyndim(s, q, err);
    if (strstr(rhs, "_size") != NULL)
        return add_binding(s, var, rhs, err);
    return PT2_OK;
}

/* ---- pytree specs ------------------------------------------------------------------ */

/* `in_spec_ = "...";` or `= R"(...)";`: 1 when the literal is not empty. */
static int spec_nonempty(const char *p)
{
    if (!eat(&p, "="))
        return 0;
    p = skip_ws(p);
    if (p[0] == 'R' && p[1] == '"') {
        p = strchr(p, '(');
        return p != NULL && p[1] != ')' && p[1] != '\0';
    }
    return p[0] == '"' && p[1] != '"' && p[1] != '\0';
}

/* The text of `= R"(...)";` or `= "...";` (only \" and \\ escapes, as torch writes it) into
 * s->in_spec; anything else is left unread. */
static void spec_keep(struct pt2_wrapper_scan *s, const char *p)
{
    const char *end;
    char *t;
    size_t n = 0;

    if (s->in_spec != NULL || !eat(&p, "="))
        return;
    p = skip_ws(p);
    if (p[0] == 'R' && p[1] == '"' && p[2] == '(') {
        p += 3;
        end = strstr(p, ")\"");
        if (end == NULL || (t = malloc((size_t)(end - p) + 1)) == NULL)
            return;
        memcpy(t, p, (size_t)(end - p));
        n = (size_t)(end - p);
    } else if (p[0] == '"') {
        if ((t = malloc(strlen(p))) == NULL)
            return;
        for (p++; *p != '\0' && *p != '"'; p++) {
            if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
                p++;
            else if (*p == '\\')
                break; /* an escape torch does not write: leave it */
            t[n++] = *p;
        }
        if (*p != '"') {
            free(t);
            return;
        }
    } else {
        return;
    }
    t[n] = '\0';
    s->in_spec = t;
    s->in_spec_len = n;
}

static int spec_line(struct pt2_wrapper_scan *s, const char *p)
{
    if (eat(&p, "in_spec_")) {
        if (spec_nonempty(p)) {
            s->has_in_spec = 1;
            spec_keep(s, p);
        }
        return 1;
    }
    if (eat(&p, "out_spec_")) {
        if (spec_nonempty(p))
            s->has_out_spec = 1;
        return 1;
    }
    return 0;
}

/* ---- lines ----------------------------------------------------------------------- */

static void update_done(struct pt2_wrapper_scan *s)
{
    if (s->ctor_seen && s->prologue_done && !s->ctor_pending && !s->asserting)
        s->done = 1;
}

static int inputs_unbound(struct pt2_wrapper_scan *s, int *out, struct pt2_error *err);

/* `inputs.clear();` ends the prologue: done, unless an input dim still wants its symbol. */
static int prologue_end(struct pt2_wrapper_scan *s, struct pt2_error *err)
{
    int unbound = 0, rc = inputs_unbound(s, &unbound, err);

    if (rc != PT2_OK)
        return rc;
    s->asserting = unbound;
    s->assert_from = s->consumed;
    update_done(s);
    return PT2_OK;
}

/* A line of run_impl after its prologue: assert_size_stride lines until run_impl ends, every
 * input was asserted, or the window is spent. */
static int assert_line(struct pt2_wrapper_scan *s, const char *p, struct pt2_error *err)
{
    int rc = PT2_OK;

    if (strstr(p, "assert_size_stride(") != NULL)
        rc = add_assert(s, p, err);
    if (p[0] == '}' || s->asserts_seen >= s->in.n || s->consumed - s->assert_from > ASSERT_WINDOW) {
        s->asserting = 0;
        update_done(s);
    }
    return rc;
}

static int process_line(struct pt2_wrapper_scan *s, char *line, struct pt2_error *err)
{
    const char *p = skip_ws(line), *q;

    if (s->ctor_pending) {
        ctor_args(s, p);
        if (s->ctor_pending || s->ctor_nargs > 0)
            return PT2_OK;
    }
    if (*p == '\0' || *p == '#' || (p[0] == '/' && (p[1] == '/' || p[1] == '*')))
        return PT2_OK;
    if (s->asserting)
        return assert_line(s, p, err);
    if (starts(p, "this->"))
        p += 6;
    if (starts(p, "inputs_info_["))
        return info_line(s, &s->in, p + 13, err);
    if (starts(p, "outputs_info_["))
        return info_line(s, &s->out, p + 14, err);
    if (starts(p, "constants_info_["))
        return const_line(s, p + 16, err);
    if (spec_line(s, p))
        return PT2_OK;
    if ((q = strstr(p, "AOTInductorModelBase(")) != NULL) {
        s->ctor_pending = 1;
        s->ctor_lines = 0;
        s->ctor_nargs = 0;
        ctor_args(s, q + strlen("AOTInductorModelBase("));
        return PT2_OK;
    }
    if (strstr(p, "::run_impl(") != NULL) {
        s->in_run_impl = 1;
        s->cur_kind = 0;
        return PT2_OK;
    }
    if (strstr(p, "void check_input_") != NULL || strstr(p, "void check_output_") != NULL) {
        s->saw_check_fn = 1;
        s->cur_kind = 0;
        return PT2_OK;
    }
    if (p[0] == 'i' && p[1] == 'f' && !is_ident_char(p[2])) {
        check_line(s, p + 2);
        return PT2_OK;
    }
    if (s->in_run_impl && strcmp(p, "inputs.clear();") == 0) {
        s->prologue_done = 1;
        return prologue_end(s, err);
    }
    return decl_line(s, p, err);
}

/* The window is full: look only at the start of this long line. */
static void long_line(struct pt2_wrapper_scan *s)
{
    const char *p;

    s->line[s->len] = '\0';
    p = skip_ws(s->line);
    if (starts(p, "this->"))
        p += 6;
    if (spec_line(s, p))
        return;
    if (starts(p, "inputs_info_[") || starts(p, "outputs_info_[") ||
        starts(p, "constants_info_[") || strstr(p, "_expected_dtype") != NULL ||
        strstr(p, "input_handles[") != NULL || strstr(p, "AOTInductorModelBase(") != NULL ||
        (p[0] == 'i' && p[1] == 'f' && strstr(p, "_size[") != NULL))
        s->long_relevant++;
}

/* ---- public: scan ---------------------------------------------------------------- */

int pt2_wrapper_scan_new(pt2_wrapper_scan **out, const char *model, size_t max_bytes,
                         struct pt2_error *err)
{
    pt2_wrapper_scan *s;

    if (out == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_wrapper_scan_new: no output pointer");
    *out = NULL;
    s = calloc(1, sizeof(*s));
    if (s == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    s->cap =
        max_bytes == 0 || max_bytes > PT2_WRAPPER_BYTES_MAX ? PT2_WRAPPER_BYTES_MAX : max_bytes;
    snprintf(s->model, sizeof(s->model), "%s", model != NULL ? model : "");
    pt2_utf8_scrub(s->model, strlen(s->model));
    s->cc.idx = -1;
    *out = s;
    return PT2_OK;
}

static int end_line(struct pt2_wrapper_scan *s, struct pt2_error *err)
{
    int rc = PT2_OK;

    if (!s->skipping) {
        if (s->len > 0 && s->line[s->len - 1] == '\r')
            s->len--;
        s->line[s->len] = '\0';
        rc = process_line(s, s->line, err);
    }
    s->skipping = 0;
    s->len = 0;
    return rc;
}

int pt2_wrapper_scan_feed(pt2_wrapper_scan *s, const void *data, size_t len, struct pt2_error *err)
{
    const char *p = data, *nl;
    size_t seg, room;
    int rc;

    if (s == NULL || (data == NULL && len > 0))
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_wrapper_scan_feed: bad arguments");
    if (s->finished)
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_wrapper_scan_feed: scan already finished");
    if (s->cut)
        return PT2_OK;
    if (len > s->cap - s->consumed) {
        len = (size_t)(s->cap - s->consumed);
        s->cut = 1;
    }
    s->consumed += len;
    while (len > 0 && !s->done) {
        nl = memchr(p, '\n', len);
        seg = nl != NULL ? (size_t)(nl - p) : len;
        if (!s->skipping) {
            room = PT2_WRAPPER_LINE_MAX - s->len;
            if (seg > room) {
                memcpy(s->line + s->len, p, room);
                s->len += room;
                long_line(s);
                s->skipping = 1;
                s->len = 0;
            } else {
                memcpy(s->line + s->len, p, seg);
                s->len += seg;
            }
        }
        if (nl == NULL)
            break;
        rc = end_line(s, err);
        if (rc != PT2_OK)
            return rc;
        p = nl + 1;
        len -= seg + 1;
    }
    return PT2_OK;
}

int pt2_wrapper_scan_wants_more(const pt2_wrapper_scan *s)
{
    return s != NULL && !s->cut && !s->done && !s->finished && s->consumed < s->cap;
}

void pt2_wrapper_scan_free(pt2_wrapper_scan *s)
{
    if (s == NULL)
        return;
    free(s->in.v);
    free(s->out.v);
    free(s->cseen);
    free(s->bind);
    free(s->dyn);
    free(s->in_spec);
    free(s);
}

void pt2_wrapper_info_free(struct pt2_wrapper_info *info)
{
    if (info == NULL)
        return;
    pt2_tensor_list_free(&info->inputs);
    pt2_tensor_list_free(&info->outputs);
}

/* ---- finish: string-keyed lookups ---------------------------------------------------- */

/*
 * Names and symbols are grouped by sorting (qsort, then binary search or
 * runs), not hashing: O(n log n) whatever the keys, so crafted names cannot
 * make finish() quadratic.
 */
struct named {
    const char *key; /* borrowed */
    size_t idx;
};

static int named_cmp(const void *a, const void *b)
{
    const struct named *x = a, *y = b;
    int c = strcmp(x->key, y->key);

    if (c != 0)
        return c;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Lowest index among the entries whose key is `key`; 0 when none. */
static int named_find(const struct named *v, size_t n, const char *key, size_t *idx)
{
    size_t lo = 0, hi = n, mid;

    while (lo < hi) {
        mid = lo + (hi - lo) / 2;
        if (strcmp(v[mid].key, key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == n || strcmp(v[lo].key, key) != 0)
        return 0;
    *idx = v[lo].idx;
    return 1;
}

/* ---- finish: shapes ------------------------------------------------------------------ */

static void slot_rank(struct io_slot *sl)
{
    uint64_t need;
    int i;

    sl->t.ndim = -1;
    if (sl->over)
        return;
    if (sl->reserve >= 0) { /* torch 2.1: the constructor lists every dim */
        if (sl->pushed == sl->reserve)
            sl->t.ndim = sl->reserve;
        return;
    }
    if (!sl->block || sl->hi < 0)
        return;
    need = sl->hi == 63 ? UINT64_MAX : (1ull << (sl->hi + 1)) - 1;
    if ((sl->checked & need) != need)
        return;
    sl->t.ndim = sl->hi + 1;
    for (i = 0; i < sl->t.ndim; i++)
        if (sl->t.dims[i].size >= 0)
            sl->t.dims[i].min = sl->t.dims[i].max = -1;
}

/* The inputs by their names and check-block variables, sorted for named_find: *keys is the
 * caller's to free (NULL when there are none). */
static int input_keys(struct pt2_wrapper_scan *s, struct named **keys, size_t *n,
                      struct pt2_error *err)
{
    size_t i;

    *keys = NULL;
    *n = 0;
    if (s->in.n == 0)
        return PT2_OK;
    *keys = malloc(2 * s->in.n * sizeof(**keys));
    if (*keys == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    for (i = 0; i < s->in.n; i++) {
        if (s->in.v[i].named)
            (*keys)[(*n)++] = (struct named){s->in.v[i].t.name, i};
        if (s->in.v[i].var[0] != '\0')
            (*keys)[(*n)++] = (struct named){s->in.v[i].var, i};
    }
    if (*n > 0)
        qsort(*keys, *n, sizeof(**keys), named_cmp);
    return PT2_OK;
}

static int apply_bindings(struct pt2_wrapper_scan *s, struct pt2_error *err)
{
    struct named *keys;
    struct io_slot *sl;
    struct pt2_dim *d;
    size_t i, n, v;
    int rc;

    if (s->nbind == 0)
        return PT2_OK;
    rc = input_keys(s, &keys, &n, err);
    if (rc != PT2_OK)
        return rc;
    for (i = 0; i < s->nbind; i++) {
        if (!named_find(keys, n, s->bind[i].var, &v))
            continue;
        sl = &s->in.v[v];
        if (s->bind[i].dim >= sl->t.ndim)
            continue;
        d = &sl->t.dims[s->bind[i].dim];
        if (d->size < 0 && d->symbol[0] == '\0')
            snprintf(d->symbol, sizeof(d->symbol), "%s", s->bind[i].sym);
    }
    free(keys);
    return PT2_OK;
}

/* *out = 1 when a dim an input's check block mentions is not fixed and no binding names it
 * (so the symbol may come from an assert_size_stride line further on). */
static int inputs_unbound(struct pt2_wrapper_scan *s, int *out, struct pt2_error *err)
{
    struct named *keys;
    uint64_t *bound;
    size_t i, n, v;
    int d, rc;

    *out = 0;
    if (s->in.n == 0)
        return PT2_OK;
    rc = input_keys(s, &keys, &n, err);
    if (rc != PT2_OK)
        return rc;
    bound = calloc(s->in.n, sizeof(*bound));
    if (bound == NULL) {
        free(keys);
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    }
    for (i = 0; i < s->nbind; i++)
        if (named_find(keys, n, s->bind[i].var, &v))
            bound[v] |= 1ull << s->bind[i].dim; /* dim < PT2_DIMS_MAX <= 64 */
    for (i = 0; i < s->in.n && !*out; i++)
        for (d = 0; s->in.v[i].block && !s->in.v[i].over && d <= s->in.v[i].hi; d++)
            if (s->in.v[i].t.dims[d].size < 0 && !(bound[i] & (1ull << d)))
                *out = 1;
    free(bound);
    free(keys);
    return PT2_OK;
}

/* One dim's bounds into the symbol's known range (intersection). */
static void merge_bounds(int64_t *min, int64_t *max, int64_t dmin, int64_t dmax)
{
    if (dmin >= 0 && (*min < 0 || dmin > *min))
        *min = dmin;
    if (dmax >= 0 && (*max < 0 || dmax < *max))
        *max = dmax;
}

/* A symbol occurrence: a dim of an input/output, or a make_dynamic_dim line. */
struct symref {
    const char *sym;
    struct pt2_dim *dim; /* NULL for make_dynamic_dim */
    int64_t min, max;
};

static int symref_cmp(const void *a, const void *b)
{
    return strcmp(((const struct symref *)a)->sym, ((const struct symref *)b)->sym);
}

/*
 * Dims that share a symbol share its value: give every such dim the tightest
 * bounds known for the symbol (from checks on any of them, or make_dynamic_dim).
 */
static int share_symbol_bounds(struct pt2_wrapper_scan *s, struct pt2_error *err)
{
    struct io_table *tbs[2] = {&s->in, &s->out};
    struct symref *v = NULL;
    size_t total = s->ndyn, n = 0, i, k, run;
    int64_t min, max;
    struct pt2_dim *d;
    int j;

    for (k = 0; k < 2; k++)
        for (i = 0; i < tbs[k]->n; i++)
            total += (size_t)(tbs[k]->v[i].t.ndim > 0 ? tbs[k]->v[i].t.ndim : 0);
    if (total == 0)
        return PT2_OK;
    v = malloc(total * sizeof(*v));
    if (v == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    for (i = 0; i < s->ndyn; i++)
        v[n++] = (struct symref){s->dyn[i].sym, NULL, s->dyn[i].min, s->dyn[i].max};
    for (k = 0; k < 2; k++)
        for (i = 0; i < tbs[k]->n; i++)
            for (j = 0; j < tbs[k]->v[i].t.ndim; j++) {
                d = &tbs[k]->v[i].t.dims[j];
                if (d->size < 0 && d->symbol[0] != '\0')
                    v[n++] = (struct symref){d->symbol, d, d->min, d->max};
            }
    if (n > 0)
        qsort(v, n, sizeof(*v), symref_cmp);
    for (i = 0; i < n; i = run) {
        min = max = -1;
        for (run = i; run < n && strcmp(v[run].sym, v[i].sym) == 0; run++)
            merge_bounds(&min, &max, v[run].min, v[run].max);
        for (k = i; k < run; k++)
            if (v[k].dim != NULL)
                merge_bounds(&v[k].dim->min, &v[k].dim->max, min, max);
    }
    free(v);
    return PT2_OK;
}

/* ---- finish: warnings ------------------------------------------------------------------ */

static void warn(struct pt2_wrapper_info *o, const char *fmt, ...) PT2_PRINTF(2, 3);

static void warn(struct pt2_wrapper_info *o, const char *fmt, ...)
{
    va_list ap;

    if (o->nwarnings >= PT2_WRAPPER_WARNINGS_MAX) {
        o->warnings_dropped++;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(o->warnings[o->nwarnings], PT2_WRAPPER_WARNING_LEN, fmt, ap);
    va_end(ap);
    /* a name cut to fit may end inside a UTF-8 sequence */
    pt2_utf8_scrub(o->warnings[o->nwarnings], strlen(o->warnings[o->nwarnings]));
    o->nwarnings++;
}

/* "a, b, c, ..." of the names of inputs matching `pick`, into buf. */
static size_t name_list(const struct pt2_tensor_list *l, int (*pick)(const struct pt2_tensor *),
                        char *buf, size_t len)
{
    size_t i, n = 0, used = 0;
    int w;

    buf[0] = '\0';
    for (i = 0; i < l->n; i++) {
        if (!pick(&l->v[i]))
            continue;
        if (n < 4 && used < len) {
            w = snprintf(buf + used, len - used, "%s%s", n ? ", " : "", l->v[i].name);
            used = w < 0 ? len : used + (size_t)w;
        } else if (n == 4 && used < len) {
            w = snprintf(buf + used, len - used, ", ...");
            used = w < 0 ? len : used + (size_t)w;
        }
        n++;
    }
    return n;
}

static int no_dtype(const struct pt2_tensor *t)
{
    return t->dtype[0] == '\0';
}

static int no_rank(const struct pt2_tensor *t)
{
    return t->ndim < 0;
}

static int no_facts(const struct pt2_tensor *t)
{
    return t->dtype[0] == '\0' && t->ndim < 0;
}

static void count_unnamed(const struct io_table *tb, size_t *unnamed, size_t *too_long)
{
    size_t i;

    *unnamed = *too_long = 0;
    for (i = 0; i < tb->n; i++) {
        if (tb->v[i].name_too_long)
            (*too_long)++;
        else if (!tb->v[i].named)
            (*unnamed)++;
    }
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A pytree spec node with no children (a leaf: one tensor). */
static int spec_leaf(const cJSON *n)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(n, "children_spec");
    return cJSON_IsObject(n) && cJSON_IsArray(c) && cJSON_GetArraySize(c) == 0 &&
           cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(n, "type"));
}

/* Every child of a spec node a leaf: their number, else -1. */
static int spec_leaves(const cJSON *n, const char *type)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(n, "children_spec"), *e;
    const char *t = pt2_json_str(n, "type");
    int k = 0;

    if (t == NULL || strcmp(t, type) != 0 || !cJSON_IsArray(c))
        return -1;
    cJSON_ArrayForEach(e, c)
    {
        if (!spec_leaf(e))
            return -1;
        k++;
    }
    return k;
}

/*
 * Inputs passed by keyword are named as forward() names them. torch's in_spec_ is the
 * pytree of forward(*args, **kwargs): [version, tuple(args tuple, kwargs dict)], the dict's
 * context the JSON text of its keys, in the order of the flattened inputs after the args.
 * Where every argument is one tensor, the k-th keyword input takes its key for its name
 * (the wrapper's own is argN_M); a nested or unexpected spec leaves the names as they are.
 */
static void kwargs_names(const struct pt2_wrapper_scan *s, struct pt2_wrapper_info *o)
{
    static const struct pt2_json_limits lim = {PT2_WRAPPER_LINE_MAX, 32, 20000, 4096};
    struct pt2_error ignored = {0};
    cJSON *doc = NULL, *keys = NULL;
    const cJSON *spec, *args, *kw, *k;
    const char **sorted = NULL;
    int nargs, nkw, i = 0;

    /* most models take no keyword: their dict's context is "[]", and nothing is parsed */
    if (s->in_spec == NULL ||
        strstr(s->in_spec, "\"builtins.dict\", \"context\": \"[]\"") != NULL ||
        strstr(s->in_spec, "\"builtins.dict\"") == NULL ||
        pt2_json_parse(s->in_spec, s->in_spec_len, &lim, "in_spec", &doc, &ignored) != PT2_OK)
        return;
    spec = cJSON_GetArrayItem(doc, 1);
    args = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(spec, "children_spec"), 0);
    kw = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(spec, "children_spec"), 1);
    nargs = spec_leaves(args, "builtins.tuple");
    nkw = spec_leaves(kw, "builtins.dict");
    if (!cJSON_IsArray(doc) || nargs < 0 || nkw <= 0 || (size_t)(nargs + nkw) != o->inputs.n ||
        pt2_json_str(kw, "context") == NULL ||
        pt2_json_parse(pt2_json_str(kw, "context"), strlen(pt2_json_str(kw, "context")), &lim,
                       "in_spec context", &keys, &ignored) != PT2_OK ||
        !cJSON_IsArray(keys) || cJSON_GetArraySize(keys) != nkw)
        goto cleanup;
    /* the keys and the positional inputs' names, sorted: every name once (no quadratic step) */
    sorted = malloc(o->inputs.n * sizeof(*sorted));
    if (sorted == NULL)
        goto cleanup;
    for (i = 0; i < nargs; i++)
        sorted[i] = o->inputs.v[i].name;
    cJSON_ArrayForEach(k, keys)
    {
        if (!cJSON_IsString(k) || k->valuestring[0] == '\0' ||
            strlen(k->valuestring) >= sizeof(o->inputs.v[0].name))
            goto cleanup;
        sorted[i++] = k->valuestring;
    }
    qsort(sorted, o->inputs.n, sizeof(*sorted), str_cmp);
    for (i = 1; (size_t)i < o->inputs.n; i++)
        if (strcmp(sorted[i - 1], sorted[i]) == 0)
            goto cleanup;
    i = 0;
    cJSON_ArrayForEach(k, keys)
    {
        char *name = o->inputs.v[nargs + i++].name;
        memcpy(name, k->valuestring, strlen(k->valuestring) + 1); /* fits: checked above */
        pt2_utf8_scrub(name, strlen(name));
    }
cleanup:
    free(sorted);
    cJSON_Delete(keys);
    cJSON_Delete(doc);
}

static void add_warnings(const struct pt2_wrapper_scan *s, struct pt2_wrapper_info *o)
{
    char model[NAME_LEN + 16], names[160];
    size_t n, unnamed, too_long;
    int k;

    if (s->model[0] != '\0')
        snprintf(model, sizeof(model), "model '%s'", s->model);
    else
        snprintf(model, sizeof(model), "the model");
    if (s->cut)
        warn(o,
             "the wrapper source of %s was cut at %llu bytes (the cap): I/O facts after that "
             "point are missing",
             model, (unsigned long long)s->cap);
    if (!o->found) {
        warn(o, "no AOTInductor model constructor or I/O table found in the wrapper source of %s",
             model);
        return;
    }
    for (k = 0; k < 2; k++) {
        const struct io_table *tb = k == 0 ? &s->in : &s->out;
        const struct pt2_tensor_list *l = k == 0 ? &o->inputs : &o->outputs;
        const char *what = k == 0 ? "input" : "output";
        int64_t declared = k == 0 ? o->declared_inputs : o->declared_outputs;

        count_unnamed(tb, &unnamed, &too_long);
        if (tb->over_cap)
            warn(o, "the wrapper of %s has more than %d %ss; the rest are left out", model,
                 PT2_TENSORS_MAX, what);
        if (too_long > 0)
            warn(o, "%zu %s name(s) of %s are longer than %d bytes and are left out", too_long,
                 what, model, NAME_LEN - 1);
        if (unnamed > 0)
            warn(o, "the wrapper of %s gives no name for %zu %s(s); they are left out", model,
                 unnamed, what);
        if (declared >= 0 && !tb->over_cap && (uint64_t)declared != (uint64_t)l->n)
            warn(o, "the wrapper of %s declares %lld %ss but names %zu", model, (long long)declared,
                 what, l->n);
        if (l->n == 0)
            continue;
        n = name_list(l, no_facts, names, sizeof(names));
        if (n == l->n) {
            warn(o, "the wrapper records %s names but no dtypes or shapes for %s", what, model);
            continue;
        }
        n = name_list(l, no_dtype, names, sizeof(names));
        if (n > 0)
            warn(o, "the wrapper records no dtype for %zu %s(s) of %s: %s", n, what, model, names);
        n = name_list(l, no_rank, names, sizeof(names));
        if (n > 0)
            warn(o, "the wrapper records no complete shape for %zu %s(s) of %s: %s", n, what, model,
                 names);
    }
    if (s->cover_cap)
        warn(o, "the wrapper of %s describes more than %u constants; the rest are not counted",
             model, (unsigned)PT2_WRAPPER_CONSTANTS_MAX);
    if (o->constants.declared >= 0 && !s->cover_cap &&
        (uint64_t)o->constants.declared != o->constants.count)
        warn(o, "the wrapper of %s declares %lld constants but describes %llu", model,
             (long long)o->constants.declared, (unsigned long long)o->constants.count);
    if (s->crepeated > 0)
        warn(o, "the wrapper of %s describes %llu constant(s) twice; counted once", model,
             (unsigned long long)s->crepeated);
    if (s->bind_over)
        warn(o, "the wrapper of %s binds more than %d size symbols; the rest are ignored", model,
             BINDINGS_MAX);
    if (s->long_relevant > 0)
        warn(o,
             "%llu line(s) of the wrapper of %s longer than %d bytes that looked like I/O facts "
             "were skipped",
             (unsigned long long)s->long_relevant, model, PT2_WRAPPER_LINE_MAX);
}

/* ---- finish -------------------------------------------------------------------------- */

static int push_slots(struct io_table *tb, struct pt2_tensor_list *l, struct pt2_error *err)
{
    size_t i;
    int rc;

    for (i = 0; i < tb->n; i++) {
        if (!tb->v[i].named)
            continue;
        rc = pt2_tensor_list_push(l, &tb->v[i].t, err);
        if (rc != PT2_OK)
            return rc;
    }
    return PT2_OK;
}

static void fill_constants(const struct pt2_wrapper_scan *s, struct pt2_constants *c)
{
    const struct dstat *d;
    int i;

    c->declared = s->ctor_nargs >= 3 ? s->ctor_args[2] : -1;
    c->count = s->ccount;
    c->bytes = s->cbytes;
    c->elements = s->celements;
    c->missing_size = s->cmissing_size;
    c->missing_shape = s->cmissing_shape;
    c->parameters = s->cparams;
    c->buffers = s->cbuffers;
    c->tensor_constants = s->ctensors;
    c->folded = s->cfolded;
    for (i = 0; i < s->ndorder; i++) {
        struct pt2_dtype_stat *o = &c->dtypes[c->ndtypes++];

        d = &s->dstats[s->dorder[i]];
        if (s->dorder[i] != DTYPE_UNKNOWN)
            snprintf(o->dtype, sizeof(o->dtype), "%s", c10_dtypes[s->dorder[i]].torch);
        o->count = d->count;
        o->bytes = d->bytes;
        o->elements = d->elements;
    }
}

int pt2_wrapper_scan_finish(pt2_wrapper_scan *s, struct pt2_wrapper_info *out,
                            struct pt2_error *err)
{
    size_t i;
    int rc;

    if (out == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_wrapper_scan_finish: no output");
    memset(out, 0, sizeof(*out));
    if (s == NULL || s->finished)
        return pt2_error_set(err, PT2_ERR_INVALID,
                             "pt2_wrapper_scan_finish: no scan, or finished already");
    s->finished = 1;
    /* A last line without a newline counts, unless the cap cut it. */
    if (!s->cut && !s->done && (s->len > 0 || s->skipping)) {
        rc = end_line(s, err);
        if (rc != PT2_OK)
            goto cleanup;
    }
    const_flush(s);

    for (i = 0; i < s->in.n; i++)
        slot_rank(&s->in.v[i]);
    for (i = 0; i < s->out.n; i++)
        slot_rank(&s->out.v[i]);
    rc = apply_bindings(s, err);
    if (rc == PT2_OK)
        rc = share_symbol_bounds(s, err);
    if (rc == PT2_OK)
        rc = push_slots(&s->in, &out->inputs, err);
    if (rc == PT2_OK)
        rc = push_slots(&s->out, &out->outputs, err);
    if (rc != PT2_OK)
        goto cleanup;

    out->found = s->found;
    out->declared_inputs = s->ctor_nargs >= 1 ? s->ctor_args[0] : -1;
    out->declared_outputs = s->ctor_nargs >= 2 ? s->ctor_args[1] : -1;
    for (i = 0; i < s->in.n; i++)
        if (s->in.v[i].named && s->in.v[i].block)
            out->checked_inputs++;
    if (s->saw_block)
        out->checks = s->saw_check_fn ? PT2_WRAPPER_CHECKS_FUNCTIONS : PT2_WRAPPER_CHECKS_INLINE;
    out->has_in_spec = s->has_in_spec;
    out->has_out_spec = s->has_out_spec;
    fill_constants(s, &out->constants);
    out->bytes_scanned = s->consumed;
    out->cut = s->cut;
    kwargs_names(s, out);
    add_warnings(s, out);
cleanup:
    if (rc != PT2_OK)
        pt2_wrapper_info_free(out);
    return rc;
}

/* ---- entry names ------------------------------------------------------------------- */

/* Just past "data/aotinductor/" when it starts a path component; NULL otherwise. */
static const char *aoti_dir(const char *path)
{
    static const char dir[] = "data/aotinductor/";
    const char *p = path;

    while ((p = strstr(p, dir)) != NULL) {
        if (p == path || p[-1] == '/')
            return p + sizeof(dir) - 1;
        p++;
    }
    return NULL;
}

int pt2_wrapper_is_wrapper_name(const char *entry_path)
{
    const char *dir, *base;
    size_t n;

    if (entry_path == NULL || strstr(entry_path, "__MACOSX/") != NULL)
        return 0;
    dir = aoti_dir(entry_path);
    if (dir == NULL)
        return 0;
    base = strrchr(entry_path, '/') + 1; /* dir ends in '/', so there is one */
    if (base < dir)
        return 0;
    n = strlen(base);
    if (n <= 4 || strcmp(base + n - 4, ".cpp") != 0 || starts(base, "._"))
        return 0;
    if (n >= 11 && strcmp(base + n - 11, ".kernel.cpp") == 0)
        return 0;
    return 1;
}

const char *pt2_wrapper_model_name(const char *entry_path, char *out, size_t len)
{
    const char *dir = entry_path != NULL ? aoti_dir(entry_path) : NULL, *slash;

    if (len == 0)
        return out;
    out[0] = '\0';
    if (dir == NULL || (slash = strchr(dir, '/')) == NULL)
        return out;
    snprintf(out, len, "%.*s", (int)(slash - dir), dir);
    return out;
}

/* ---- Metal shader sources --------------------------------------------------- */

static uint64_t count_in(const char *buf, size_t len, const char *tok, size_t tl)
{
    uint64_t n = 0;
    const char *p = buf, *end = buf + len, *hit;

    while ((size_t)(end - p) >= tl && (hit = memmem(p, (size_t)(end - p), tok, tl)) != NULL) {
        n++;
        p = hit + tl;
    }
    return n;
}

void pt2_wrapper_count_shaders(struct pt2_shader_count *c, const char *buf, size_t len)
{
    static const char tok[] = PT2_WRAPPER_SHADER_CALL;
    const size_t tl = sizeof(tok) - 1;
    char window[2 * sizeof(tok)];
    size_t head = len < tl - 1 ? len : tl - 1;

    /* a call cut by the chunk boundary: the last tl-1 bytes before it and the first after */
    memcpy(window, c->tail, c->ntail);
    memcpy(window + c->ntail, buf, head);
    if (c->ntail > 0)
        c->n += count_in(window, c->ntail + head, tok, tl);
    c->n += count_in(buf, len, tok, tl);
    if (len >= tl - 1) {
        memcpy(c->tail, buf + len - (tl - 1), tl - 1);
        c->ntail = tl - 1;
    } else {
        size_t keep = c->ntail + len > tl - 1 ? tl - 1 - len : c->ntail;

        memmove(c->tail, c->tail + c->ntail - keep, keep);
        memcpy(c->tail + keep, buf, len);
        c->ntail = keep + len;
    }
}
