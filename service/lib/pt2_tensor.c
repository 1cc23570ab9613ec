/*
 * pt2_tensor.c - tensor specs: dtype names, JSON views and shape validation.
 *
 * Validation runs on inputs that are partly hostile on both sides (the spec
 * comes from a package, the proposal from a request), so it does no
 * quadratic work: names and symbols are looked up in open-addressing tables
 * sized from the input, and every message is built in a bounded buffer.
 *
 * The OIP view is the protocol's $metadata_tensor and nothing more: a spec
 * whose dtype is outside the protocol's datatype table, or whose dtype or
 * rank is unknown, is left out (with a warning line in list views), never
 * written with a borrowed or invented type.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_model.h"
#include "pt2_tensor.h"

#define MSG_MAX 1024       /* longest validation message */
#define NAMES_LIST_MAX 400 /* bytes of the "(expected: ...)" list */

void pt2_tensor_init(struct pt2_tensor *t)
{
    int i;

    memset(t, 0, sizeof(*t));
    t->ndim = -1;
    for (i = 0; i < PT2_DIMS_MAX; i++)
        t->dims[i].min = t->dims[i].max = -1;
}

/* ---- lists ---------------------------------------------------------------- */

int pt2_tensor_list_push(struct pt2_tensor_list *l, const struct pt2_tensor *t,
                         struct pt2_error *err)
{
    int rc = pt2_model_grow((void **)&l->v, &l->cap, l->n, sizeof(*t), PT2_TENSORS_MAX,
                            "tensors in one list", err);
    if (rc != PT2_OK)
        return rc;
    l->v[l->n++] = *t;
    return PT2_OK;
}

void pt2_tensor_list_free(struct pt2_tensor_list *l)
{
    if (l == NULL)
        return;
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

const struct pt2_tensor *pt2_tensor_list_find(const struct pt2_tensor_list *l, const char *name)
{
    size_t i;

    for (i = 0; l != NULL && i < l->n; i++)
        if (strcmp(l->v[i].name, name) == 0)
            return &l->v[i];
    return NULL;
}

/* ---- narrowing to the compiled model ---------------------------------------- */

/* [*min, *max] intersected with [min, max]; -1 is no bound. */
static void bounds_meet(int64_t *lo, int64_t *hi, int64_t min, int64_t max)
{
    if (min >= 0 && (*lo < 0 || min > *lo))
        *lo = min;
    if (max >= 0 && (*hi < 0 || max < *hi))
        *hi = max;
}

static int lists_line_up(const struct pt2_tensor_list *a, const struct pt2_tensor_list *b)
{
    if (a->n == 0 || a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++)
        if (a->v[i].ndim < 0 || a->v[i].ndim != b->v[i].ndim)
            return 0;
    return 1;
}

/* A symbol's narrowed range; sorted by name so each lookup is a binary search (no step of
 * the narrowing is quadratic in the number of dims). */
struct sym_range {
    const char *sym; /* borrowed from the inputs list */
    int64_t lo, hi;
};

static int sym_range_cmp(const void *a, const void *b)
{
    return strcmp(((const struct sym_range *)a)->sym, ((const struct sym_range *)b)->sym);
}

/* Every named dynamic dim of `l` meets its symbol's range in r[0..n). */
static void symbols_meet(struct pt2_tensor_list *l, const struct sym_range *r, size_t n)
{
    for (size_t i = 0; i < l->n; i++)
        for (int d = 0; d < l->v[i].ndim && d < PT2_DIMS_MAX; d++) {
            struct pt2_dim *x = &l->v[i].dims[d];
            struct sym_range key = {x->symbol, -1, -1};
            const struct sym_range *hit;

            if (x->size >= 0 || x->symbol[0] == '\0')
                continue;
            hit = bsearch(&key, r, n, sizeof(*r), sym_range_cmp);
            if (hit != NULL)
                bounds_meet(&x->min, &x->max, hit->lo, hit->hi);
        }
}

int pt2_tensor_list_narrow(struct pt2_tensor_list *inputs, struct pt2_tensor_list *outputs,
                           const struct pt2_tensor_list *compiled, struct pt2_error *err)
{
    struct sym_range *r;
    size_t n = 0, k = 0, total = 0;

    if (!lists_line_up(inputs, compiled))
        return 0;
    for (size_t i = 0; i < inputs->n; i++)
        total += (size_t)inputs->v[i].ndim;
    r = malloc((total > 0 ? total : 1) * sizeof(*r));
    if (r == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < inputs->n; i++)
        for (int d = 0; d < inputs->v[i].ndim; d++) {
            struct pt2_dim *x = &inputs->v[i].dims[d];
            const struct pt2_dim *c = &compiled->v[i].dims[d];

            if (x->size >= 0)
                continue;
            if (c->size >= 0) { /* the compiled code fixed it */
                x->size = c->size;
                x->min = x->max = -1;
                continue;
            }
            bounds_meet(&x->min, &x->max, c->min, c->max);
            if (x->symbol[0] != '\0')
                r[n++] = (struct sym_range){x->symbol, x->min, x->max};
        }
    qsort(r, n, sizeof(*r), sym_range_cmp);
    for (size_t i = 0; i < n; i++) { /* one entry per symbol: the meet of its dims */
        if (k > 0 && strcmp(r[k - 1].sym, r[i].sym) == 0)
            bounds_meet(&r[k - 1].lo, &r[k - 1].hi, r[i].lo, r[i].hi);
        else
            r[k++] = r[i];
    }
    symbols_meet(inputs, r, k);
    if (outputs != NULL)
        symbols_meet(outputs, r, k);
    free(r);
    return 1;
}

/* ---- dtype names ----------------------------------------------------------- */

struct dtype_alias {
    const char *alias;
    const char *canonical;
};

/* Lower-case spellings seen in torch, numpy, OIP and the export schema enum. */
static const struct dtype_alias dtype_aliases[] = {
    {"float32", "float32"},
    {"float", "float32"},
    {"fp32", "float32"},
    {"f32", "float32"},
    {"float16", "float16"},
    {"half", "float16"},
    {"fp16", "float16"},
    {"f16", "float16"},
    {"bfloat16", "bfloat16"},
    {"bf16", "bfloat16"},
    {"float64", "float64"},
    {"double", "float64"},
    {"fp64", "float64"},
    {"f64", "float64"},
    {"int8", "int8"},
    {"char", "int8"},
    {"i8", "int8"},
    {"int16", "int16"},
    {"short", "int16"},
    {"i16", "int16"},
    {"int32", "int32"},
    {"int", "int32"},
    {"i32", "int32"},
    {"int64", "int64"},
    {"long", "int64"},
    {"i64", "int64"},
    {"uint8", "uint8"},
    {"byte", "uint8"},
    {"u8", "uint8"},
    {"uint16", "uint16"},
    {"u16", "uint16"},
    {"uint32", "uint32"},
    {"u32", "uint32"},
    {"uint64", "uint64"},
    {"u64", "uint64"},
    {"bool", "bool"},
    {"boolean", "bool"},
    {"complex32", "complex32"},
    {"chalf", "complex32"},
    {"complexhalf", "complex32"},
    {"complex64", "complex64"},
    {"cfloat", "complex64"},
    {"complexfloat", "complex64"},
    {"complex128", "complex128"},
    {"cdouble", "complex128"},
    {"complexdouble", "complex128"},
    {"float8_e4m3fn", "float8_e4m3fn"},
    {"float8e4m3fn", "float8_e4m3fn"},
    {"float8_e5m2", "float8_e5m2"},
    {"float8e5m2", "float8_e5m2"},
    {"float8_e4m3fnuz", "float8_e4m3fnuz"},
    {"float8e4m3fnuz", "float8_e4m3fnuz"},
    {"float8_e5m2fnuz", "float8_e5m2fnuz"},
    {"float8e5m2fnuz", "float8_e5m2fnuz"},
};

int pt2_tensor_dtype_normalize(const char *in, char *out, size_t len)
{
    char low[64];
    const char *p = in, *end;
    size_t i, n;

    if (len == 0)
        return 0;
    while (*p != '\0' && isspace((unsigned char)*p))
        p++;
    end = p + strlen(p);
    while (end > p && isspace((unsigned char)end[-1]))
        end--;
    n = (size_t)(end - p);
    if (n >= sizeof(low))
        n = sizeof(low) - 1;
    for (i = 0; i < n; i++)
        low[i] = (char)tolower((unsigned char)p[i]);
    low[n] = '\0';

    p = low;
    if (strncmp(p, "torch.", 6) == 0)
        p += 6;
    for (i = 0; i < sizeof(dtype_aliases) / sizeof(dtype_aliases[0]); i++) {
        if (strcmp(p, dtype_aliases[i].alias) == 0) {
            snprintf(out, len, "%s", dtype_aliases[i].canonical);
            return 1;
        }
    }
    snprintf(out, len, "%s", low);
    return 0;
}

/*
 * The Open Inference Protocol's tensor data types (KServe open-inference-protocol,
 * inference_rest.md, "Tensor Data Types"): BOOL, UINT8-64, INT8-64, FP16, FP32,
 * FP64 and BYTES, nothing else. BF16 is not in that table (the protocol text
 * only mentions it; Triton adds it as its own extension), so a bfloat16
 * tensor has no OIP type here, like complex and float8 ones. Torch has no
 * byte-string dtype; a user's metadata may say "bytes" or "string".
 */
static const struct dtype_alias oip_names[] = {
    {"bool", "BOOL"},     {"uint8", "UINT8"},  {"uint16", "UINT16"}, {"uint32", "UINT32"},
    {"uint64", "UINT64"}, {"int8", "INT8"},    {"int16", "INT16"},   {"int32", "INT32"},
    {"int64", "INT64"},   {"float16", "FP16"}, {"float32", "FP32"},  {"float64", "FP64"},
    {"bytes", "BYTES"},   {"string", "BYTES"}, {"str", "BYTES"},
};

const char *pt2_tensor_dtype_oip(const char *dtype, char *out, size_t len)
{
    size_t i;

    if (dtype == NULL || dtype[0] == '\0' || len == 0)
        return NULL;
    for (i = 0; i < sizeof(oip_names) / sizeof(oip_names[0]); i++) {
        if (strcmp(dtype, oip_names[i].alias) == 0) {
            snprintf(out, len, "%s", oip_names[i].canonical);
            return out;
        }
    }
    return NULL; /* never an invented type */
}

/* ---- shape description ----------------------------------------------------- */

/* Append to a bounded buffer; `*pos` keeps counting past the end so callers
 * can tell truncation happened. */
static void PT2_PRINTF(4, 5) bappend(char *buf, size_t len, size_t *pos, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(*pos < len ? buf + *pos : NULL, *pos < len ? len - *pos : 0, fmt, ap);
    va_end(ap);
    if (n > 0)
        *pos += (size_t)n;
}

const char *pt2_tensor_shape_description(const struct pt2_tensor *t, char *buf, size_t len)
{
    size_t pos = 0;
    int i;

    if (len == 0)
        return buf;
    buf[0] = '\0';
    if (t->ndim < 0 || t->ndim > PT2_DIMS_MAX) {
        snprintf(buf, len, "unknown");
        return buf;
    }
    bappend(buf, len, &pos, "(");
    for (i = 0; i < t->ndim; i++) {
        const struct pt2_dim *d = &t->dims[i];
        const char *sep = i ? ", " : "";

        if (d->size >= 0)
            bappend(buf, len, &pos, "%s%lld", sep, (long long)d->size);
        else
            bappend(buf, len, &pos, "%s%s", sep, d->symbol[0] ? d->symbol : "?");
    }
    bappend(buf, len, &pos, ")");
    return buf;
}

/* ---- JSON views ------------------------------------------------------------ */

/* cJSON_Add*ToObject return NULL on allocation failure; one check per view. */
/* A count or bound: null when negative (unknown). */
static int add_int_or_null(cJSON *o, const char *key, int64_t v)
{
    return pt2_json_add_num_or_null(o, key, (double)v, v >= 0);
}

static int add_item(cJSON *parent, cJSON *item)
{
    if (item == NULL)
        return 0;
    cJSON_AddItemToArray(parent, item);
    return 1;
}

/* Why the protocol cannot describe `t` ("" when it can): its datatype and shape are required. */
static const char *oip_gap(const struct pt2_tensor *t, char *buf, size_t len)
{
    char dt[16];
    int typed = pt2_tensor_dtype_oip(t->dtype, dt, sizeof(dt)) != NULL;
    int shaped = t->ndim >= 0 && t->ndim <= PT2_DIMS_MAX;

    buf[0] = '\0';
    if (!typed && t->dtype[0] == '\0')
        snprintf(buf, len, "its dtype is not recorded");
    else if (!typed)
        snprintf(buf, len, "dtype %s has no Open Inference Protocol datatype", t->dtype);
    if (!shaped)
        snprintf(buf + strlen(buf), len - strlen(buf), "%sits shape is not recorded",
                 typed ? "" : " and ");
    return buf;
}

/* {"name", "datatype", "shape"} with -1 for dynamic dims; the caller checked oip_gap. */
static cJSON *oip_view(const struct pt2_tensor *t)
{
    char dt[16];
    cJSON *o = cJSON_CreateObject(), *shape;
    int ok, i;

    if (o == NULL)
        return NULL;
    ok = cJSON_AddStringToObject(o, "name", t->name) != NULL &&
         cJSON_AddStringToObject(o, "datatype", pt2_tensor_dtype_oip(t->dtype, dt, sizeof(dt))) !=
             NULL;
    shape = ok ? cJSON_AddArrayToObject(o, "shape") : NULL;
    ok = shape != NULL;
    for (i = 0; ok && i < t->ndim && i < PT2_DIMS_MAX; i++)
        ok = add_item(shape,
                      cJSON_CreateNumber((double)(t->dims[i].size >= 0 ? t->dims[i].size : -1)));
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static cJSON *default_view(const struct pt2_tensor *t)
{
    char desc[PT2_DIMS_MAX * (PT2_SYMBOL_MAX + 2) + 8], key[16];
    cJSON *o = cJSON_CreateObject(), *shape = NULL, *fixed, *dyn, *e;
    int ok, i, ndim = t->ndim > PT2_DIMS_MAX ? PT2_DIMS_MAX : t->ndim;

    if (o == NULL)
        return NULL;
    ok = cJSON_AddStringToObject(o, "name", t->name) != NULL;
    if (ok && ndim < 0)
        ok = cJSON_AddNullToObject(o, "shape") != NULL;
    else if (ok) {
        shape = cJSON_AddArrayToObject(o, "shape");
        ok = shape != NULL;
    }
    for (i = 0; ok && i < ndim; i++) {
        const struct pt2_dim *d = &t->dims[i];

        if (d->size >= 0)
            ok = add_item(shape, cJSON_CreateNumber((double)d->size));
        else if (d->symbol[0] != '\0')
            ok = add_item(shape, cJSON_CreateString(d->symbol));
        else
            ok = add_item(shape, cJSON_CreateNull());
    }
    ok = ok && pt2_json_add_str_or_null(o, "dtype", t->dtype) &&
         (!t->has_dtype_code ||
          pt2_json_add_num_or_null(o, "dtype_code", (double)t->dtype_code, 1)) &&
         pt2_json_add_str_or_null(o, "description", t->description) &&
         add_int_or_null(o, "ndim", ndim);
    fixed = ok ? cJSON_AddObjectToObject(o, "fixed_shape") : NULL;
    ok = fixed != NULL;
    for (i = 0; ok && i < ndim; i++) {
        if (t->dims[i].size < 0)
            continue;
        snprintf(key, sizeof(key), "%d", i);
        ok = cJSON_AddNumberToObject(fixed, key, (double)t->dims[i].size) != NULL;
    }
    ok = ok && cJSON_AddStringToObject(o, "shape_description",
                                       pt2_tensor_shape_description(t, desc, sizeof(desc)));
    dyn = ok ? cJSON_AddArrayToObject(o, "dynamic_dims") : NULL;
    ok = dyn != NULL;
    for (i = 0; ok && i < ndim; i++) {
        const struct pt2_dim *d = &t->dims[i];

        if (d->size >= 0)
            continue;
        e = cJSON_CreateObject();
        ok = add_item(dyn, e) && cJSON_AddNumberToObject(e, "axis", i) != NULL &&
             pt2_json_add_str_or_null(e, "symbol", d->symbol) &&
             add_int_or_null(e, "min", d->min) && add_int_or_null(e, "max", d->max);
    }
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

int pt2_tensor_to_json(const struct pt2_tensor *t, unsigned flags, cJSON **out,
                       struct pt2_error *err)
{
    char gap[160];

    *out = NULL;
    if ((flags & PT2_JSON_OIP) && oip_gap(t, gap, sizeof(gap))[0] != '\0')
        return pt2_error_set(err, PT2_ERR_UNSUPPORTED, "tensor '%s': %s", t->name, gap);
    *out = (flags & PT2_JSON_OIP) ? oip_view(t) : default_view(t);
    if (*out == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory building tensor '%s'", t->name);
    return PT2_OK;
}

int pt2_tensor_list_oip_json(const struct pt2_tensor_list *l, const char *what, cJSON **out,
                             cJSON *warnings, struct pt2_error *err)
{
    char gap[160], msg[PT2_ERROR_MSG_MAX];
    cJSON *arr = cJSON_CreateArray(), *item;
    size_t i;

    *out = NULL;
    if (arr == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    for (i = 0; l != NULL && i < l->n; i++) {
        const struct pt2_tensor *t = &l->v[i];

        if (oip_gap(t, gap, sizeof(gap))[0] != '\0') {
            /* Left out, said so: never given a type the protocol does not have. */
            snprintf(msg, sizeof(msg), "%s '%.128s' is left out of the OIP view: %s",
                     what != NULL ? what : "tensor", t->name, gap);
            if (warnings != NULL && !cJSON_AddItemToArray(warnings, cJSON_CreateString(msg)))
                goto nomem;
            continue;
        }
        if ((item = oip_view(t)) == NULL || !cJSON_AddItemToArray(arr, item)) {
            cJSON_Delete(item);
            goto nomem;
        }
    }
    *out = arr;
    return PT2_OK;
nomem:
    cJSON_Delete(arr);
    return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory building tensor specs");
}

int pt2_tensor_list_to_json(const struct pt2_tensor_list *l, unsigned flags, cJSON **out,
                            struct pt2_error *err)
{
    cJSON *arr, *item;
    size_t i;
    int rc;

    if (flags & PT2_JSON_OIP)
        return pt2_tensor_list_oip_json(l, NULL, out, NULL, err);
    *out = NULL;
    arr = cJSON_CreateArray();
    if (arr == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    for (i = 0; l != NULL && i < l->n; i++) {
        rc = pt2_tensor_to_json(&l->v[i], flags, &item, err);
        if (rc != PT2_OK) {
            cJSON_Delete(arr);
            return rc;
        }
        cJSON_AddItemToArray(arr, item);
    }
    *out = arr;
    return PT2_OK;
}

/* ---- numbers --------------------------------------------------------------- */

int pt2_tensor_json_int(const cJSON *item, int64_t *out)
{
    double d;
    int64_t i;

    if (!cJSON_IsNumber(item))
        return 0;
    d = item->valuedouble;
    /* The range test also rejects NaN. */
    if (!(d >= -(double)PT2_JSON_INT_MAX && d <= (double)PT2_JSON_INT_MAX))
        return 0;
    i = (int64_t)d;
    if ((double)i != d)
        return 0;
    *out = i;
    return 1;
}

/* ---- derived dims -------------------------------------------------------- */

/* A decimal integer within +-2^53 at *p (no sign); 1 and *p past it, else 0. */
static int lin_int(const char **p, int64_t *out)
{
    int64_t v = 0;
    const char *q = *p;

    if (*q < '0' || *q > '9')
        return 0;
    for (; *q >= '0' && *q <= '9'; q++) {
        v = v * 10 + (*q - '0');
        if (v > PT2_JSON_INT_MAX)
            return 0;
    }
    *out = v;
    *p = q;
    return 1;
}

static int lin_ident(const char **p, char *sym, size_t symlen)
{
    const char *q = *p;
    size_t n = 0;

    if (!(isalpha((unsigned char)*q) || *q == '_'))
        return 0;
    while (isalnum((unsigned char)q[n]) || q[n] == '_')
        n++;
    if (n >= symlen)
        return 0;
    memcpy(sym, q, n);
    sym[n] = '\0';
    *p = q + n;
    return 1;
}

int pt2_tensor_linear(const char *text, char *sym, size_t symlen, int64_t *a, int64_t *b)
{
    const char *p = text;
    int64_t k = 1, c = 0;
    int scaled = 0;

    if (lin_int(&p, &k)) {
        if (*p++ != '*' || k == 0)
            return 0;
        scaled = 1;
    }
    if (!lin_ident(&p, sym, symlen))
        return 0;
    if (*p == ' ' && (p[1] == '+' || p[1] == '-') && p[2] == ' ') {
        int neg = p[1] == '-';
        p += 3;
        if (!lin_int(&p, &c) || c == 0)
            return 0;
        c = neg ? -c : c;
    }
    if (*p != '\0' || (!scaled && c == 0))
        return 0; /* a bare symbol is no derived dim */
    *a = k;
    *b = c;
    return 1;
}

/* ---- validation ------------------------------------------------------------ */

/*
 * String-keyed open-addressing table. Keys are borrowed; the table holds at
 * most half as many keys as slots, so probing always ends at an empty slot.
 */
struct smap_slot {
    const char *key; /* NULL = empty */
    size_t idx;      /* tensor index (names) or binding input index (symbols) */
    int64_t size;    /* bound size (symbols) */
    const cJSON *shape;
};

struct smap {
    struct smap_slot *slots;
    size_t mask;
};

static int smap_init(struct smap *m, size_t nkeys)
{
    size_t cap = 16;

    while (cap < nkeys * 2)
        cap *= 2;
    m->slots = calloc(cap, sizeof(*m->slots));
    m->mask = cap - 1;
    return m->slots != NULL;
}

/* The slot holding `key`, or the empty slot where it would go. */
static struct smap_slot *smap_slot(const struct smap *m, const char *key)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    const unsigned char *p;
    size_t i;

    for (p = (const unsigned char *)key; *p != '\0'; p++)
        h = (h ^ *p) * 1099511628211ULL;
    for (i = (size_t)h & m->mask;; i = (i + 1) & m->mask) {
        struct smap_slot *s = &m->slots[i];
        if (s->key == NULL || strcmp(s->key, key) == 0)
            return s;
    }
}

struct vstate {
    const struct pt2_tensor_list *expected;
    struct smap names;    /* expected input name -> index */
    struct smap proposed; /* proposed input name -> shape array */
    struct smap symbols;  /* dynamic symbol -> first size seen */
    cJSON *errors;        /* the caller's array: one object per violation */
    size_t nerrors;       /* violations found, including those past the cap */
    int nomem;
};

/* What one violation is about, as data (pt2_tensor.h lists the codes). */
struct viol {
    const char *code;
    const char *input;    /* NULL: none */
    int axis;             /* -1: none */
    const char *expected; /* NULL: none */
    long long got;
    int has_got;
};

static cJSON *viol_json(const struct viol *w, const char *msg)
{
    cJSON *o = cJSON_CreateObject();

    if (o == NULL || !pt2_json_add_str_or_null(o, "input", w->input ? w->input : "") ||
        !pt2_json_add_num_or_null(o, "axis", w->axis, w->axis >= 0) ||
        !pt2_json_add_str_or_null(o, "expected", w->expected ? w->expected : "") ||
        !pt2_json_add_num_or_null(o, "got", (double)w->got, w->has_got) ||
        cJSON_AddStringToObject(o, "code", w->code) == NULL ||
        cJSON_AddStringToObject(o, "message", msg) == NULL) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* One violation; past PT2_VALIDATE_ERRORS_MAX they are only counted. */
static void PT2_PRINTF(3, 4) verdict(struct vstate *st, const struct viol *w, const char *fmt, ...)
{
    char msg[MSG_MAX];
    va_list ap;
    cJSON *o;

    if (st->nerrors++ >= PT2_VALIDATE_ERRORS_MAX)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    o = viol_json(w, msg);
    if (o == NULL || !cJSON_AddItemToArray(st->errors, o)) {
        cJSON_Delete(o);
        st->nomem = 1;
    }
}

/* Malformed proposals are the caller's error, not a verdict. */
static int check_proposed_form(const cJSON *proposed, size_t *count, struct pt2_error *err)
{
    const cJSON *in, *d;
    int64_t v;
    int axis;

    if (!cJSON_IsObject(proposed))
        return pt2_error_set(err, PT2_ERR_INVALID,
                             "inputs must be a JSON object mapping input names to shapes");
    *count = 0;
    cJSON_ArrayForEach(in, proposed)
    {
        if (in->string == NULL)
            return pt2_error_set(err, PT2_ERR_INVALID, "inputs: member without a name");
        if (!cJSON_IsArray(in))
            return pt2_error_set(err, PT2_ERR_INVALID,
                                 "input '%s': shape must be an array of integers", in->string);
        axis = 0;
        cJSON_ArrayForEach(d, in)
        {
            if (!pt2_tensor_json_int(d, &v) || v < 0)
                return pt2_error_set(err, PT2_ERR_INVALID,
                                     "input '%s' axis %d: size must be a non-negative integer",
                                     in->string, axis);
            axis++;
        }
        (*count)++;
    }
    return PT2_OK;
}

/* "image, scale" (cut with ", ..." when long) for the unknown-input verdict. */
static const char *expected_names(const struct pt2_tensor_list *l, char *buf, size_t len)
{
    size_t i, pos = 0;

    buf[0] = '\0';
    if (l->n == 0) {
        snprintf(buf, len, "no inputs");
        return buf;
    }
    for (i = 0; i < l->n; i++) {
        size_t before = pos;

        bappend(buf, len, &pos, "%s%s", i ? ", " : "", l->v[i].name);
        if (pos >= NAMES_LIST_MAX || pos >= len) {
            /* Drop the partial name and say there is more. */
            buf[before < len ? before : len - 1] = '\0';
            snprintf(buf + strlen(buf), len - strlen(buf), ", ...");
            break;
        }
    }
    return buf;
}

static int symbol_comparable(const char *sym)
{
    size_t n = strlen(sym);
    return !(n >= 3 && strcmp(sym + n - 3, "...") == 0);
}

/* Rank, then every fixed size, range and shared symbol of one input, each violation said. */
static void check_input(struct vstate *st, size_t ti, const cJSON *shape)
{
    const struct pt2_tensor *t = &st->expected->v[ti];
    char desc[PT2_DIMS_MAX * (PT2_SYMBOL_MAX + 2) + 8];
    const cJSON *d;
    int n = cJSON_GetArraySize(shape), axis = 0;
    int64_t got;

    if (t->ndim < 0)
        return;
    if (n != t->ndim) {
        struct viol w = {"rank", t->name, -1, desc, n, 1};

        pt2_tensor_shape_description(t, desc, sizeof(desc));
        verdict(st, &w, "input '%s': expected %d dimension%s %s, got %d", t->name, t->ndim,
                t->ndim == 1 ? "" : "s", desc, n);
        return;
    }
    cJSON_ArrayForEach(d, shape)
    {
        const struct pt2_dim *dim = &t->dims[axis];
        /* Unnamed dims share the implicit symbol, unless the source says they are unrelated. */
        const char *sym = dim->symbol[0]        ? dim->symbol
                          : t->independent_dims ? NULL
                                                : PT2_TENSOR_IMPLICIT_SYMBOL;
        struct smap_slot *s;
        char want[96];
        struct viol w = {"size", t->name, axis, want, 0, 1};

        /* Form already checked by check_proposed_form(). */
        if (!pt2_tensor_json_int(d, &got))
            got = -1;
        w.got = (long long)got;
        if (dim->size >= 0) {
            if (got != dim->size) {
                snprintf(want, sizeof(want), "%lld", (long long)dim->size);
                verdict(st, &w, "input '%s' axis %d: expected %lld, got %lld", t->name, axis,
                        (long long)dim->size, (long long)got);
            }
        } else if ((dim->min >= 0 && got < dim->min) || (dim->max >= 0 && got > dim->max)) {
            if (sym == NULL)
                sym = "?";
            w.code = "range";
            if (dim->min >= 0 && dim->max >= 0)
                snprintf(want, sizeof(want), "[%lld, %lld]", (long long)dim->min,
                         (long long)dim->max);
            else
                snprintf(want, sizeof(want), "%s %lld", dim->min >= 0 ? ">=" : "<=",
                         (long long)(dim->min >= 0 ? dim->min : dim->max));
            if (dim->min >= 0 && dim->max >= 0)
                verdict(st, &w,
                        "input '%s' axis %d: dynamic dim '%s' must be in [%lld, %lld], got %lld",
                        t->name, axis, sym, (long long)dim->min, (long long)dim->max,
                        (long long)got);
            else
                verdict(st, &w, "input '%s' axis %d: dynamic dim '%s' must be %s, got %lld",
                        t->name, axis, sym, want, (long long)got);
        } else if (sym != NULL && symbol_comparable(sym)) {
            s = smap_slot(&st->symbols, sym);
            if (s->key == NULL) {
                s->key = sym;
                s->idx = ti;
                s->size = got;
            } else if (s->size != got) {
                w.code = "symbol-mismatch";
                snprintf(want, sizeof(want), "%lld", (long long)s->size);
                verdict(st, &w,
                        "input '%s' axis %d: dynamic dim '%s' is %lld in input '%s' but %lld here",
                        t->name, axis, sym, (long long)s->size, st->expected->v[s->idx].name,
                        (long long)got);
            }
        }
        axis++;
    }
}

/* Each derived dim ("2*s0") of one input against the size its symbol took where another dim
 * names the symbol itself (check_input bound it); one it cannot relate is left alone. */
static void check_derived(struct vstate *st, size_t ti, const cJSON *shape)
{
    const struct pt2_tensor *t = &st->expected->v[ti];
    const cJSON *d;
    int axis = 0;

    if (t->ndim < 0 || cJSON_GetArraySize(shape) != t->ndim)
        return; /* the rank was said */
    cJSON_ArrayForEach(d, shape)
    {
        const struct pt2_dim *dim = &t->dims[axis];
        char base[PT2_SYMBOL_MAX], want[96];
        const struct smap_slot *s;
        int64_t a, b, got, v;
        struct viol w = {"symbol-mismatch", t->name, axis, want, 0, 1};

        int over;

        if (dim->size < 0 && dim->symbol[0] != '\0' &&
            pt2_tensor_linear(dim->symbol, base, sizeof(base), &a, &b) &&
            (s = smap_slot(&st->symbols, base))->key != NULL && pt2_tensor_json_int(d, &got)) {
            /* a size past int64 is no size any shape can have */
            over = __builtin_mul_overflow(a, s->size, &v) || __builtin_add_overflow(v, b, &v);
            if (!over && got == v) {
                axis++;
                continue;
            }
            w.got = (long long)got;
            if (over)
                snprintf(want, sizeof(want), "%s", dim->symbol);
            else
                snprintf(want, sizeof(want), "%lld", (long long)v);
            verdict(st, &w,
                    "input '%s' axis %d: dynamic dim '%s' must be %s ('%s' is %lld in input "
                    "'%s'), got %lld",
                    t->name, axis, dim->symbol, want, base, (long long)s->size,
                    st->expected->v[s->idx].name, (long long)got);
        }
        axis++;
    }
}

int pt2_tensor_validate(const struct pt2_tensor_list *expected, const cJSON *proposed,
                        cJSON *errors, struct pt2_error *err)
{
    static const struct pt2_tensor_list no_inputs = {0};
    struct vstate *st = NULL;
    char list[NAMES_LIST_MAX + 16];
    const cJSON *in;
    size_t i, nproposed = 0, ndyn = 0;
    int rc;

    if (!cJSON_IsArray(errors))
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_tensor_validate: no errors array");
    if (expected == NULL)
        expected = &no_inputs;
    rc = check_proposed_form(proposed, &nproposed, err);
    if (rc != PT2_OK)
        return rc;

    st = calloc(1, sizeof(*st));
    if (st == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    st->expected = expected;
    st->errors = errors;
    for (i = 0; i < expected->n; i++)
        if (expected->v[i].ndim > 0)
            ndyn += (size_t)expected->v[i].ndim;
    if (!smap_init(&st->names, expected->n) || !smap_init(&st->proposed, nproposed) ||
        !smap_init(&st->symbols, ndyn)) {
        rc = pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    for (i = 0; i < expected->n; i++) {
        struct smap_slot *s = smap_slot(&st->names, expected->v[i].name);
        if (s->key == NULL) {
            s->key = expected->v[i].name;
            s->idx = i;
        }
    }

    cJSON_ArrayForEach(in, proposed)
    {
        struct smap_slot *s = smap_slot(&st->proposed, in->string);
        if (s->key != NULL) {
            rc = pt2_error_set(err, PT2_ERR_INVALID, "input '%s' is given more than once",
                               in->string);
            goto cleanup;
        }
        s->key = in->string;
        s->shape = in;
    }
    /* Every violation, in a fixed order: unknown names, missing names, then shapes. */
    cJSON_ArrayForEach(in, proposed)
    {
        struct viol w = {"unknown-input", in->string, -1, list, 0, 0};

        if (smap_slot(&st->names, in->string)->key == NULL)
            verdict(st, &w, "unknown input '%s' (expected: %s)", in->string,
                    expected_names(expected, list, sizeof(list)));
    }
    for (i = 0; i < expected->n; i++) {
        const struct smap_slot *s = smap_slot(&st->proposed, expected->v[i].name);
        struct viol w = {"missing-input", expected->v[i].name, -1, NULL, 0, 0};

        if (s->key == NULL)
            verdict(st, &w, "missing input '%s'", expected->v[i].name);
        else
            check_input(st, i, s->shape);
    }
    for (i = 0; i < expected->n; i++) {
        const struct smap_slot *s = smap_slot(&st->proposed, expected->v[i].name);
        if (s->key != NULL)
            check_derived(st, i, s->shape);
    }
    if (st->nerrors > PT2_VALIDATE_ERRORS_MAX) {
        /* the cap's own line: counted past the cap, so added here directly */
        struct viol w = {"more", NULL, -1, NULL, (long long)(st->nerrors - PT2_VALIDATE_ERRORS_MAX),
                         1};
        cJSON *o = viol_json(&w, "... and more violations");

        if (o == NULL || !cJSON_AddItemToArray(errors, o)) {
            cJSON_Delete(o);
            st->nomem = 1;
        }
    }
    rc = st->nomem ? pt2_error_set(err, PT2_ERR_NOMEM, "out of memory") : PT2_OK;
cleanup:
    if (st != NULL) {
        free(st->names.slots);
        free(st->proposed.slots);
        free(st->symbols.slots);
        free(st);
    }
    return rc;
}
