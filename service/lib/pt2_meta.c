/*
 * pt2_meta.c - strict JSON entry point, AOTI metadata map, model_metadata.json.
 *
 * The pre-scan exists because cJSON accepts what Python would reject (bad
 * UTF-8, NUL bytes) and recurses once per nesting level: rejecting those
 * here keeps every document the library hands on printable and cheap to
 * walk, and lets the message say what is wrong instead of "invalid JSON".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_meta.h"
#include "pt2_utf8.h"

/* ---- strict parse ---------------------------------------------------------- */

int pt2_meta_json_parse(const char *buf, size_t len, const char *entry, cJSON **out,
                        struct pt2_error *err)
{
    static const struct pt2_json_limits lim = {PT2_META_JSON_MAX, PT2_META_DEPTH_MAX, 0, 0};
    struct pt2_error local = {0};
    int rc;

    /* A package's document is its metadata: every failure is metadata-invalid, but a
     * document over the size cap says it is too large. */
    rc = pt2_json_parse(buf, len, &lim, entry != NULL ? entry : "document", out, &local);
    if (rc == PT2_OK)
        return PT2_OK;
    if (rc == PT2_ERR_NOMEM || (rc == PT2_ERR_TOO_LARGE && len > PT2_META_JSON_MAX))
        return pt2_error_copy(err, &local);
    return pt2_error_set(err, PT2_ERR_METADATA, "%s", local.message);
}

const char *pt2_meta_json_type(const cJSON *j)
{
    if (cJSON_IsObject(j))
        return "an object";
    if (cJSON_IsArray(j))
        return "an array";
    if (cJSON_IsString(j))
        return "a string";
    if (cJSON_IsNumber(j))
        return "a number";
    if (cJSON_IsBool(j))
        return "a boolean";
    return "null";
}

/* ---- AOTI metadata --------------------------------------------------------- */

struct keyed {
    cJSON *item;
    size_t index;
};

static int keyed_cmp(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    int c = strcmp(x->item->string, y->item->string);

    if (c != 0)
        return c;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Keep only the last of each repeated key; O(n log n) so a hostile map of
 * many keys costs no more than sorting it. */
static int drop_repeated_keys(cJSON *obj, struct pt2_error *err)
{
    struct keyed *v;
    cJSON *it;
    size_t n = 0, i;

    for (it = obj->child; it != NULL; it = it->next)
        n++;
    if (n < 2)
        return PT2_OK;
    v = calloc(n, sizeof(*v));
    if (v == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    i = 0;
    cJSON_ArrayForEach(it, obj)
    {
        v[i].item = it;
        v[i].index = i;
        i++;
    }
    qsort(v, n, sizeof(*v), keyed_cmp);
    for (i = 0; i + 1 < n; i++)
        if (strcmp(v[i].item->string, v[i + 1].item->string) == 0)
            cJSON_Delete(cJSON_DetachItemViaPointer(obj, v[i].item));
    free(v);
    return PT2_OK;
}

/* Replace a non-string scalar member by a string holding its JSON text. */
static int stringify_member(cJSON *obj, cJSON *item)
{
    char *text = cJSON_PrintUnformatted(item);
    cJSON *s;

    if (text == NULL)
        return 0;
    s = cJSON_CreateString(text);
    cJSON_free(text);
    if (s == NULL)
        return 0;
    /* The replacement takes over the key; cJSON frees it with the new item. */
    s->string = item->string;
    item->string = NULL;
    cJSON_ReplaceItemViaPointer(obj, item, s);
    return 1;
}

int pt2_meta_parse_aoti(const char *buf, size_t len, const char *entry, cJSON **out_map,
                        struct pt2_error *err)
{
    cJSON *doc = NULL, *it, *next;
    int rc;

    *out_map = NULL;
    rc = pt2_meta_json_parse(buf, len, entry, &doc, err);
    if (rc != PT2_OK)
        return rc;
    if (!cJSON_IsObject(doc)) {
        rc = pt2_error_set(err, PT2_ERR_METADATA, "%s: must be a JSON object, got %s", entry,
                           pt2_meta_json_type(doc));
        goto cleanup;
    }
    rc = drop_repeated_keys(doc, err);
    if (rc != PT2_OK)
        goto cleanup;
    for (it = doc->child; it != NULL; it = next) {
        next = it->next;
        if (cJSON_IsNumber(it) || cJSON_IsBool(it) || cJSON_IsNull(it)) {
            if (!stringify_member(doc, it)) {
                rc = pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
                goto cleanup;
            }
        }
    }
    *out_map = doc;
    doc = NULL;
cleanup:
    cJSON_Delete(doc);
    return rc;
}

/* ---- model_metadata.json --------------------------------------------------- */

/* Names tried in turn for the model's name. */
static const char *const model_keys[] = {"model", "model_class", "model_name", "class_name"};

static int parse_dims(const cJSON *shape, const char *entry, const char *path, struct pt2_tensor *t,
                      struct pt2_error *err)
{
    const cJSON *d;
    int64_t v;
    int n, i = 0;

    if (shape == NULL || cJSON_IsNull(shape))
        return PT2_OK; /* unknown rank */
    if (!cJSON_IsArray(shape))
        return pt2_error_set(err, PT2_ERR_METADATA, "%s: %s.shape must be an array or null, got %s",
                             entry, path, pt2_meta_json_type(shape));
    n = cJSON_GetArraySize(shape);
    if (n > PT2_DIMS_MAX)
        return pt2_error_set(err, PT2_ERR_METADATA, "%s: %s.shape has %d dimensions (max %d)",
                             entry, path, n, PT2_DIMS_MAX);
    cJSON_ArrayForEach(d, shape)
    {
        struct pt2_dim *dim = &t->dims[i];

        dim->min = dim->max = -1;
        dim->symbol[0] = '\0';
        if (pt2_tensor_json_int(d, &v) && v >= -1) {
            dim->size = v;
        } else if (cJSON_IsNull(d)) {
            dim->size = -1;
        } else if (cJSON_IsString(d) && d->valuestring[0] != '\0' &&
                   strlen(d->valuestring) < sizeof(dim->symbol)) {
            dim->size = -1;
            snprintf(dim->symbol, sizeof(dim->symbol), "%s", d->valuestring);
        } else if (cJSON_IsString(d) && d->valuestring[0] != '\0') {
            return pt2_error_set(err, PT2_ERR_METADATA,
                                 "%s: %s.shape[%d] symbol is longer than %d bytes", entry, path, i,
                                 PT2_SYMBOL_MAX - 1);
        } else {
            return pt2_error_set(err, PT2_ERR_METADATA,
                                 "%s: %s.shape[%d] must be an integer, a symbol string, null or -1",
                                 entry, path, i);
        }
        i++;
    }
    t->ndim = n;
    return PT2_OK;
}

/* Optional string member; 0 = absent or null. Non-strings are an error. */
static int opt_string(const cJSON *o, const char *key, const char *entry, const char *path,
                      const char **out, struct pt2_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    *out = NULL;
    if (v == NULL || cJSON_IsNull(v))
        return PT2_OK;
    if (!cJSON_IsString(v))
        return pt2_error_set(err, PT2_ERR_METADATA, "%s: %s.%s must be a string, got %s", entry,
                             path, key, pt2_meta_json_type(v));
    *out = v->valuestring;
    return PT2_OK;
}

/* One spec: `spec` is an object {name?, shape, dtype, description} or, in
 * the object-of-specs form where `name` comes from the key, a bare shape. */
static int parse_spec(const cJSON *spec, const char *name, const char *entry, const char *path,
                      struct pt2_tensor *t, struct pt2_error *err)
{
    const char *dtype = NULL, *desc = NULL;
    char dt[64];
    int bare = cJSON_IsArray(spec) && name != NULL;
    int rc;

    pt2_tensor_init(t);
    if (!bare && !cJSON_IsObject(spec))
        return pt2_error_set(err, PT2_ERR_METADATA, "%s: %s must be an object, got %s", entry, path,
                             pt2_meta_json_type(spec));
    if (name == NULL) {
        rc = opt_string(spec, "name", entry, path, &name, err);
        if (rc != PT2_OK)
            return rc;
        if (name == NULL)
            return pt2_error_set(err, PT2_ERR_METADATA, "%s: %s.name is missing", entry, path);
    }
    if (name[0] == '\0')
        return pt2_error_set(err, PT2_ERR_METADATA, "%s: %s.name is empty", entry, path);
    if (strlen(name) >= sizeof(t->name))
        return pt2_error_set(err, PT2_ERR_METADATA, "%s: %s.name is longer than %zu bytes", entry,
                             path, sizeof(t->name) - 1);
    snprintf(t->name, sizeof(t->name), "%s", name);
    if (bare)
        return parse_dims(spec, entry, path, t, err);

    rc = opt_string(spec, "dtype", entry, path, &dtype, err);
    if (rc == PT2_OK)
        rc = opt_string(spec, "description", entry, path, &desc, err);
    if (rc != PT2_OK)
        return rc;
    if (dtype != NULL) {
        /* Unknown names are kept as written, so they must fit. */
        pt2_tensor_dtype_normalize(dtype, dt, sizeof(dt));
        if (strlen(dt) >= sizeof(t->dtype))
            return pt2_error_set(err, PT2_ERR_METADATA, "%s: %s.dtype is longer than %zu bytes",
                                 entry, path, sizeof(t->dtype) - 1);
        memcpy(t->dtype, dt, strlen(dt) + 1); /* fits: checked above */
    }
    if (desc != NULL)
        snprintf(t->description, sizeof(t->description), "%s", desc);
    return parse_dims(cJSON_GetObjectItemCaseSensitive(spec, "shape"), entry, path, t, err);
}

static int parse_specs(const cJSON *doc, const char *key, const char *entry,
                       struct pt2_tensor_list *l, struct pt2_error *err)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, key), *it;
    struct pt2_tensor t;
    char path[192];
    int rc, obj, i = 0;

    if (list == NULL || cJSON_IsNull(list))
        return PT2_OK;
    obj = cJSON_IsObject(list);
    if (!obj && !cJSON_IsArray(list))
        return pt2_error_set(err, PT2_ERR_METADATA, "%s: %s must be an array or an object, got %s",
                             entry, key, pt2_meta_json_type(list));
    if (cJSON_GetArraySize(list) > PT2_TENSORS_MAX)
        return pt2_error_set(err, PT2_ERR_TOO_LARGE, "%s: %s has more than %d entries", entry, key,
                             PT2_TENSORS_MAX);
    cJSON_ArrayForEach(it, list)
    {
        if (obj && it->string[0] == '\0')
            return pt2_error_set(err, PT2_ERR_METADATA, "%s: %s has a member with an empty name",
                                 entry, key);
        if (obj)
            snprintf(path, sizeof(path), "%s.%s", key, it->string);
        else
            snprintf(path, sizeof(path), "%s[%d]", key, i);
        rc = parse_spec(it, obj ? it->string : NULL, entry, path, &t, err);
        if (rc != PT2_OK)
            return rc;
        if (pt2_tensor_list_find(l, t.name) != NULL)
            return pt2_error_set(err, PT2_ERR_METADATA, "%s: %s: name '%s' is used twice", entry,
                                 path, t.name);
        rc = pt2_tensor_list_push(l, &t, err);
        if (rc != PT2_OK)
            return rc;
        i++;
    }
    return PT2_OK;
}

int pt2_meta_parse_user(const char *buf, size_t len, const char *entry, struct pt2_meta_user *out,
                        struct pt2_error *err)
{
    const cJSON *m;
    size_t k;
    int rc;

    memset(out, 0, sizeof(*out));
    if (entry == NULL)
        entry = "model_metadata.json";
    rc = pt2_meta_json_parse(buf, len, entry, &out->raw, err);
    if (rc != PT2_OK)
        return rc;
    if (!cJSON_IsObject(out->raw)) {
        rc = pt2_error_set(err, PT2_ERR_METADATA, "%s: must be a JSON object, got %s", entry,
                           pt2_meta_json_type(out->raw));
        goto cleanup;
    }
    for (k = 0; k < sizeof(model_keys) / sizeof(model_keys[0]); k++) {
        m = cJSON_GetObjectItemCaseSensitive(out->raw, model_keys[k]);
        if (m == NULL || cJSON_IsNull(m))
            continue;
        if (!cJSON_IsString(m)) {
            rc = pt2_error_set(err, PT2_ERR_METADATA, "%s: %s must be a string, got %s", entry,
                               model_keys[k], pt2_meta_json_type(m));
            goto cleanup;
        }
        snprintf(out->model, sizeof(out->model), "%s", m->valuestring);
        break;
    }
    rc = parse_specs(out->raw, "inputs", entry, &out->inputs, err);
    if (rc == PT2_OK)
        rc = parse_specs(out->raw, "outputs", entry, &out->outputs, err);
cleanup:
    if (rc != PT2_OK)
        pt2_meta_user_free(out);
    return rc;
}

void pt2_meta_user_free(struct pt2_meta_user *m)
{
    if (m == NULL)
        return;
    pt2_tensor_list_free(&m->inputs);
    pt2_tensor_list_free(&m->outputs);
    cJSON_Delete(m->raw);
    m->raw = NULL;
    m->model[0] = '\0';
}
