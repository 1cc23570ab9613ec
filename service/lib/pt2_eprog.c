/*
 * pt2_eprog.c - user I/O specs from an exported program's JSON (see pt2_eprog.h).
 *
 * The walk: graph_module.signature.{input,output}_specs give the user
 * tensors in order, graph_module.graph.tensor_values their dtype and sizes,
 * range_constraints the bounds of their symbols (FORMATS.md §4). A size that
 * is a sympy expression is made readable by pt2_sympy; a bare symbol gets
 * its range, a constant becomes a fixed size, anything else stays dynamic.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_eprog.h"
#include "pt2_meta.h"
#include "pt2_sympy.h"

/* ---- dtype codes ----------------------------------------------------------- */

/* torch/_export/serde/schema.py ScalarType (not c10's numbering). */
static const struct {
    int code;
    const char *name;
    unsigned size; /* bytes per element; 0 = unknown */
} scalar_types[] = {
    {0, "unknown", 0},
    {1, "uint8", 1},
    {2, "int8", 1},
    {3, "int16", 2},
    {4, "int32", 4},
    {5, "int64", 8},
    {6, "float16", 2},
    {7, "float32", 4},
    {8, "float64", 8},
    {9, "complex32", 4},
    {10, "complex64", 8},
    {11, "complex128", 16},
    {12, "bool", 1},
    {13, "bfloat16", 2},
    {28, "uint16", 2},
    {29, "float8_e4m3fn", 1},
    {30, "float8_e5m2", 1},
    {31, "float8_e4m3fnuz", 1},
    {32, "float8_e5m2fnuz", 1},
    {33, "float8_e8m0fnu", 1}, /* schema 8.20 */
    {34, "uint32", 4},
    {35, "uint64", 8},
};

unsigned pt2_eprog_dtype_size(int64_t code)
{
    size_t i;

    for (i = 0; i < sizeof(scalar_types) / sizeof(scalar_types[0]); i++)
        if (scalar_types[i].code == code)
            return scalar_types[i].size;
    return 0;
}

const char *pt2_eprog_dtype_name(int64_t code, char *buf, size_t len)
{
    size_t i;

    for (i = 0; i < sizeof(scalar_types) / sizeof(scalar_types[0]); i++) {
        if (scalar_types[i].code == code) {
            snprintf(buf, len, "%s", scalar_types[i].name);
            return buf;
        }
    }
    (void)code;
    snprintf(buf, len, "%s", ""); /* never a made-up name: the caller keeps the code */
    return buf;
}

/* ---- program --------------------------------------------------------------- */

/*
 * One member of tensor_values or range_constraints. Both objects are sorted
 * once by key, so that each lookup is a binary search and not a walk of the
 * whole object, and each member is decoded at most once however many
 * inputs/outputs or dims refer to it: a hostile document then costs
 * O(n log n), not inputs x dims x members.
 */
struct kv {
    const char *key;
    const cJSON *item;
    size_t ord;                   /* position in the object: the first of equal keys wins */
    int done;                     /* decoded already: the fields below hold the result */
    int64_t min, max;             /* range_constraints: the symbol's bounds */
    struct pt2_tensor_list *list; /* tensor_values: the tensor is list->v[pos] */
    size_t pos;
};

struct kv_index {
    struct kv *v;
    size_t n;
};

struct ctx {
    const char *entry;
    struct kv_index tensor_values;     /* graph_module.graph.tensor_values */
    struct kv_index range_constraints; /* empty when absent or null */
    struct pt2_error *err;
};

static int kv_cmp(const void *a, const void *b)
{
    const struct kv *x = a, *y = b;
    int c = strcmp(x->key, y->key);

    if (c != 0)
        return c;
    return x->ord < y->ord ? -1 : x->ord > y->ord;
}

static int kv_index_build(struct ctx *c, const cJSON *obj, const char *what, struct kv_index *ix)
{
    const cJSON *m;
    size_t n = 0;

    ix->v = NULL;
    ix->n = 0;
    cJSON_ArrayForEach(m, obj) n++;
    if (n == 0)
        return PT2_OK;
    ix->v = calloc(n, sizeof(*ix->v));
    if (ix->v == NULL)
        return pt2_error_set(c->err, PT2_ERR_NOMEM, "%s: out of memory indexing %s", c->entry,
                             what);
    cJSON_ArrayForEach(m, obj)
    {
        if (m->string == NULL)
            continue;
        ix->v[ix->n].key = m->string;
        ix->v[ix->n].item = m;
        ix->v[ix->n].ord = ix->n;
        ix->n++;
    }
    qsort(ix->v, ix->n, sizeof(*ix->v), kv_cmp);
    return PT2_OK;
}

/* The member named `key` (the first one, as cJSON_GetObjectItemCaseSensitive), or NULL. */
static struct kv *kv_find(const struct kv_index *ix, const char *key)
{
    size_t lo = 0, hi = ix->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (strcmp(ix->v[mid].key, key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ix->n && strcmp(ix->v[lo].key, key) == 0 ? &ix->v[lo] : NULL;
}

/* The variant of a union: the one member in the current encoding, the one
 * non-null member in the old all-variants encoding. NULL if none. */
static const cJSON *union_pick(const cJSON *u, const char **kind)
{
    const cJSON *m;

    if (!cJSON_IsObject(u))
        return NULL;
    cJSON_ArrayForEach(m, u)
    {
        if (!cJSON_IsNull(m)) {
            *kind = m->string;
            return m;
        }
    }
    return NULL;
}

static const cJSON *member(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* One bound of range_constraints: -1 when unbounded or not a size. */
static int range_bound(struct ctx *c, const cJSON *v, const char *sym, const char *key,
                       int64_t *out)
{
    int64_t i;

    *out = -1;
    if (v == NULL || cJSON_IsNull(v) || cJSON_IsString(v))
        return PT2_OK; /* null, "Infinity", "-Infinity", "oo" */
    if (!cJSON_IsNumber(v))
        return pt2_error_set(c->err, PT2_ERR_METADATA,
                             "%s: range_constraints.%s.%s must be a number or null, got %s",
                             c->entry, sym, key, pt2_meta_json_type(v));
    /* Huge values (int_oo as 2^63-2) are beyond exact doubles: unbounded. */
    if (pt2_tensor_json_int(v, &i) && i >= 0)
        *out = i;
    return PT2_OK;
}

static int apply_range(struct ctx *c, struct pt2_dim *d)
{
    struct kv *slot = kv_find(&c->range_constraints, d->symbol);
    const cJSON *r = slot != NULL ? slot->item : NULL;
    int rc;

    if (r == NULL || cJSON_IsNull(r))
        return PT2_OK;
    if (slot->done) {
        d->min = slot->min;
        d->max = slot->max;
        return PT2_OK;
    }
    if (!cJSON_IsObject(r))
        return pt2_error_set(c->err, PT2_ERR_METADATA,
                             "%s: range_constraints.%s must be an object, got %s", c->entry,
                             d->symbol, pt2_meta_json_type(r));
    rc = range_bound(c, member(r, "min_val"), d->symbol, "min_val", &d->min);
    if (rc == PT2_OK)
        rc = range_bound(c, member(r, "max_val"), d->symbol, "max_val", &d->max);
    if (rc == PT2_OK) {
        slot->done = 1;
        slot->min = d->min;
        slot->max = d->max;
    }
    return rc;
}

static int parse_symint(struct ctx *c, const cJSON *s, const char *tname, int axis,
                        struct pt2_dim *d)
{
    const char *kind = NULL, *expr = NULL;
    const cJSON *v = union_pick(s, &kind), *es;
    uint64_t u;
    int64_t i;

    d->symbol[0] = '\0';
    d->min = d->max = -1;
    if (v == NULL)
        return pt2_error_set(c->err, PT2_ERR_METADATA,
                             "%s: tensor_values.%s.sizes[%d] must be a SymInt object", c->entry,
                             tname, axis);
    if (strcmp(kind, "as_int") == 0) {
        if (!pt2_tensor_json_int(v, &i) || i < 0)
            return pt2_error_set(c->err, PT2_ERR_METADATA,
                                 "%s: tensor_values.%s.sizes[%d].as_int must be a non-negative "
                                 "integer",
                                 c->entry, tname, axis);
        d->size = i;
        return PT2_OK;
    }
    if (strcmp(kind, "as_expr") != 0)
        return pt2_error_set(c->err, PT2_ERR_METADATA,
                             "%s: tensor_values.%s.sizes[%d]: unsupported SymInt form '%s'",
                             c->entry, tname, axis, kind);
    /* {"expr_str": ..., "hint": ...}; the oldest writers used a bare string. */
    es = cJSON_IsString(v) ? v : member(v, "expr_str");
    if (cJSON_IsString(es))
        expr = es->valuestring;
    if (expr == NULL || expr[0] == '\0')
        return pt2_error_set(c->err, PT2_ERR_METADATA,
                             "%s: tensor_values.%s.sizes[%d].as_expr.expr_str must be a "
                             "non-empty string",
                             c->entry, tname, axis);
    d->size = -1;
    switch (pt2_sympy_readable(expr, d->symbol, sizeof(d->symbol))) {
    case PT2_SYMPY_INTEGER:
        if (pt2_num_u64(d->symbol, 10, &u) == PT2_OK && u <= (uint64_t)INT64_MAX) {
            d->size = (int64_t)u;
            d->symbol[0] = '\0';
        }
        return PT2_OK;
    case PT2_SYMPY_SYMBOL:
        return apply_range(c, d);
    default:
        return PT2_OK; /* compound: dynamic, no known range */
    }
}

/* Decode tensor_values.<name> (`slot`, NULL when there is none) into *t. */
static int tensor_from_meta(struct ctx *c, const struct kv *slot, const char *name,
                            const char *role, struct pt2_tensor *t)
{
    const cJSON *meta, *sizes, *s;
    char dtype[32];
    int64_t code;
    int n, axis = 0, rc;

    pt2_tensor_init(t);
    if (strlen(name) >= sizeof(t->name))
        return pt2_error_set(c->err, PT2_ERR_METADATA,
                             "%s: %s name '%.40s...' is longer than %zu bytes", c->entry, role,
                             name, sizeof(t->name) - 1);
    snprintf(t->name, sizeof(t->name), "%s", name);
    meta = slot != NULL ? slot->item : NULL;
    if (!cJSON_IsObject(meta))
        return pt2_error_set(c->err, PT2_ERR_METADATA,
                             "%s: graph_module.graph.tensor_values has no entry for %s '%s'",
                             c->entry, role, name);
    if (!pt2_tensor_json_int(member(meta, "dtype"), &code))
        return pt2_error_set(c->err, PT2_ERR_METADATA,
                             "%s: tensor_values.%s.dtype must be an integer", c->entry, name);
    snprintf(t->dtype, sizeof(t->dtype), "%s", pt2_eprog_dtype_name(code, dtype, sizeof(dtype)));
    if (t->dtype[0] == '\0') {
        t->has_dtype_code = 1;
        t->dtype_code = code;
    }
    sizes = member(meta, "sizes");
    if (!cJSON_IsArray(sizes))
        return pt2_error_set(c->err, PT2_ERR_METADATA,
                             "%s: tensor_values.%s.sizes must be an array", c->entry, name);
    n = cJSON_GetArraySize(sizes);
    if (n > PT2_DIMS_MAX)
        return pt2_error_set(c->err, PT2_ERR_METADATA,
                             "%s: tensor_values.%s.sizes has %d dimensions (max %d)", c->entry,
                             name, n, PT2_DIMS_MAX);
    cJSON_ArrayForEach(s, sizes)
    {
        rc = parse_symint(c, s, name, axis, &t->dims[axis]);
        if (rc != PT2_OK)
            return rc;
        axis++;
    }
    t->ndim = n;
    return PT2_OK;
}

/* Walk input_specs or output_specs, keeping the `want` variant with a tensor. */
static int collect(struct ctx *c, const cJSON *sig, const char *list_key, const char *want,
                   const char *role, struct pt2_tensor_list *out)
{
    const cJSON *specs = member(sig, list_key), *spec, *v, *arg, *name;
    const char *kind = NULL, *akind = NULL;
    struct pt2_tensor t;
    struct kv *slot;
    int i = -1, rc;

    if (!cJSON_IsArray(specs))
        return pt2_error_set(c->err, PT2_ERR_METADATA,
                             "%s: graph_module.signature.%s must be an array", c->entry, list_key);
    cJSON_ArrayForEach(spec, specs)
    {
        i++;
        v = union_pick(spec, &kind);
        if (v == NULL)
            return pt2_error_set(c->err, PT2_ERR_METADATA,
                                 "%s: graph_module.signature.%s[%d] has no variant", c->entry,
                                 list_key, i);
        if (strcmp(kind, want) != 0)
            continue;
        arg = union_pick(member(v, "arg"), &akind);
        if (arg == NULL)
            return pt2_error_set(c->err, PT2_ERR_METADATA,
                                 "%s: graph_module.signature.%s[%d].%s.arg has no variant",
                                 c->entry, list_key, i, want);
        if (strcmp(akind, "as_tensor") != 0)
            continue; /* ints, floats, None, ...: not tensor specs */
        name = member(arg, "name");
        if (!cJSON_IsString(name) || name->valuestring[0] == '\0')
            return pt2_error_set(c->err, PT2_ERR_METADATA,
                                 "%s: graph_module.signature.%s[%d].%s.arg.as_tensor.name must "
                                 "be a non-empty string",
                                 c->entry, list_key, i, want);
        slot = kv_find(&c->tensor_values, name->valuestring);
        if (slot != NULL && slot->done) {
            t = slot->list->v[slot->pos]; /* the same tensor seen before */
            rc = PT2_OK;
        } else {
            rc = tensor_from_meta(c, slot, name->valuestring, role, &t);
        }
        if (rc == PT2_OK)
            rc = pt2_tensor_list_push(out, &t, c->err);
        if (rc != PT2_OK)
            return rc;
        if (slot != NULL && !slot->done) {
            slot->done = 1;
            slot->list = out;
            slot->pos = out->n - 1;
        }
    }
    return PT2_OK;
}

/* The dtype row of `c` for `dtype` (""= unknown), added on first sight; NULL when full. */
static struct pt2_dtype_stat *dtype_row(struct pt2_constants *c, const char *dtype)
{
    size_t i;

    for (i = 0; i < c->ndtypes; i++)
        if (strcmp(c->dtypes[i].dtype, dtype) == 0)
            return &c->dtypes[i];
    if (c->ndtypes == PT2_CONST_DTYPES_MAX)
        return NULL;
    snprintf(c->dtypes[c->ndtypes].dtype, sizeof(c->dtypes[0].dtype), "%s", dtype);
    return &c->dtypes[c->ndtypes++];
}

/*
 * The model's size from its parameters, buffers and tensor constants: each
 * tensor_values entry gives dtype and sizes; a symbolic size leaves the
 * tensor's elements and bytes unknown (missing_shape), an unknown dtype its
 * bytes (missing_size). Malformed entries are counted, never fatal: the
 * signature's user inputs decide whether the document is valid.
 */
static void constants(struct ctx *c, const cJSON *sig, struct pt2_constants *out)
{
    static const char *const kinds[] = {"parameter", "buffer", "tensor_constant"};
    const cJSON *spec, *v, *name, *meta, *sz;
    const char *kind = NULL;
    size_t k;

    memset(out, 0, sizeof(*out));
    out->declared = -1;
    cJSON_ArrayForEach(spec, member(sig, "input_specs"))
    {
        uint64_t elements = 1;
        int shaped = 1, sized;
        int64_t code = 0, d;
        struct pt2_dtype_stat *row;
        struct kv *slot;
        char dtype[32] = "";

        v = union_pick(spec, &kind);
        for (k = 0; v != NULL && k < 3 && strcmp(kind, kinds[k]) != 0; k++)
            ;
        if (v == NULL || k == 3)
            continue;
        name = member(member(v, "arg"), "name");
        slot = cJSON_IsString(name) ? kv_find(&c->tensor_values, name->valuestring) : NULL;
        meta = slot != NULL ? slot->item : NULL;
        out->count++;
        out->parameters += k == 0;
        out->buffers += k == 1;
        out->tensor_constants += k == 2;
        if (pt2_tensor_json_int(member(meta, "dtype"), &code))
            pt2_eprog_dtype_name(code, dtype, sizeof(dtype));
        cJSON_ArrayForEach(sz, member(meta, "sizes"))
        {
            const char *sk = NULL;
            const cJSON *sv = union_pick(sz, &sk);
            if (sv == NULL || strcmp(sk, "as_int") != 0 || !pt2_tensor_json_int(sv, &d) || d < 0 ||
                (d > 0 && elements > UINT64_MAX / (uint64_t)d)) {
                shaped = 0;
                break;
            }
            elements *= (uint64_t)d;
        }
        if (!cJSON_IsArray(member(meta, "sizes")))
            shaped = 0;
        sized = shaped && pt2_eprog_dtype_size(code) > 0 && elements <= UINT64_MAX / 16;
        row = dtype_row(out, dtype);
        out->missing_shape += !shaped;
        out->missing_size += !sized;
        if (shaped)
            out->elements += elements;
        if (sized)
            out->bytes += elements * pt2_eprog_dtype_size(code);
        if (row != NULL) {
            row->count++;
            row->elements += shaped ? elements : 0;
            row->bytes += sized ? elements * pt2_eprog_dtype_size(code) : 0;
        }
    }
}

int pt2_eprog_parse(const char *buf, size_t len, const char *entry, struct pt2_tensor_list *inputs,
                    struct pt2_tensor_list *outputs, struct pt2_error *err)
{
    return pt2_eprog_parse_full(buf, len, entry, inputs, outputs, NULL, err);
}

int pt2_eprog_parse_full(const char *buf, size_t len, const char *entry,
                         struct pt2_tensor_list *inputs, struct pt2_tensor_list *outputs,
                         struct pt2_constants *consts, struct pt2_error *err)
{
    struct pt2_tensor_list in = {0}, outl = {0};
    const cJSON *gm, *sig, *graph, *rc_obj, *tv;
    cJSON *doc = NULL;
    struct ctx c;
    int rc;

    if (entry == NULL)
        entry = "models/model.json";
    memset(&c, 0, sizeof(c));
    rc = pt2_meta_json_parse(buf, len, entry, &doc, err);
    if (rc != PT2_OK)
        return rc;
    c.entry = entry;
    c.err = err;
    rc = PT2_ERR_METADATA;
    if (!cJSON_IsObject(doc)) {
        pt2_error_set(err, rc, "%s: must be a JSON object, got %s", entry, pt2_meta_json_type(doc));
        goto cleanup;
    }
    gm = member(doc, "graph_module");
    sig = member(gm, "signature");
    graph = member(gm, "graph");
    if (!cJSON_IsObject(gm) || !cJSON_IsObject(sig) || !cJSON_IsObject(graph)) {
        pt2_error_set(err, rc, "%s: graph_module with graph and signature objects is missing",
                      entry);
        goto cleanup;
    }
    tv = member(graph, "tensor_values");
    if (!cJSON_IsObject(tv)) {
        pt2_error_set(err, rc, "%s: graph_module.graph.tensor_values must be an object", entry);
        goto cleanup;
    }
    rc_obj = member(doc, "range_constraints");
    if (rc_obj != NULL && !cJSON_IsNull(rc_obj) && !cJSON_IsObject(rc_obj)) {
        pt2_error_set(err, rc, "%s: range_constraints must be an object, got %s", entry,
                      pt2_meta_json_type(rc_obj));
        goto cleanup;
    }
    rc = kv_index_build(&c, tv, "tensor_values", &c.tensor_values);
    if (rc == PT2_OK && cJSON_IsObject(rc_obj))
        rc = kv_index_build(&c, rc_obj, "range_constraints", &c.range_constraints);
    if (rc != PT2_OK)
        goto cleanup;

    rc = collect(&c, sig, "input_specs", "user_input", "user input", &in);
    if (rc == PT2_OK)
        rc = collect(&c, sig, "output_specs", "user_output", "user output", &outl);
    if (rc == PT2_OK && consts != NULL)
        constants(&c, sig, consts);
    if (rc == PT2_OK) {
        *inputs = in;
        *outputs = outl;
        in = (struct pt2_tensor_list){0};
        outl = (struct pt2_tensor_list){0};
    }
cleanup:
    free(c.tensor_values.v);
    free(c.range_constraints.v);
    pt2_tensor_list_free(&in);
    pt2_tensor_list_free(&outl);
    cJSON_Delete(doc);
    return rc;
}
