/*
 * pt2d_options.c - request options (see pt2d_options.h).
 *
 * Dimensions are read from cJSON's double and must be integral and within
 * +-2^53 (cJSON's valueint saturates at INT_MAX); -1 is allowed so clients
 * can mirror the Open Inference Protocol's dynamic-dimension notation.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2d_fmt.h"
#include "pt2d_options.h"

#define DIM_LIMIT 9007199254740992.0 /* 2^53 */

void pt2d_options_init(struct pt2d_options *o)
{
    memset(o, 0, sizeof(*o));
}

void pt2d_options_free(struct pt2d_options *o)
{
    if (o == NULL)
        return;
    cJSON_Delete(o->inputs);
    o->inputs = NULL;
}

static int add_target(struct pt2d_options *o, const char *text, struct pt2_error *err)
{
    struct pt2_error perr = {0};
    struct pt2d_target *t;

    if (o->n_targets == PT2D_MAX_TARGETS)
        return pt2_error_set(err, PT2_ERR_INVALID, "at most %d targets per request",
                             PT2D_MAX_TARGETS);
    if (text[0] == '\0' || strlen(text) >= PT2D_TARGET_TEXT_MAX)
        return pt2_error_set(err, PT2_ERR_INVALID, "target '%.64s' is empty or too long", text);
    t = &o->targets[o->n_targets];
    memset(t, 0, sizeof(*t));
    if (pt2_target_parse(text, &t->dev, &perr) != PT2_OK)
        return pt2_error_set(err, PT2_ERR_INVALID, "%s", perr.message);
    snprintf(t->text, sizeof(t->text), "%s", text);
    o->n_targets++;
    return PT2_OK;
}

static int add_runtime(struct pt2d_options *o, const char *text, struct pt2_error *err)
{
    struct pt2_error perr = {0};
    pt2_runtime *rt = NULL;

    if (o->n_runtimes == PT2D_MAX_RUNTIMES)
        return pt2_error_set(err, PT2_ERR_INVALID, "at most %d runtimes per request",
                             PT2D_MAX_RUNTIMES);
    if (pt2_runtime_parse(text, &rt, &perr) != PT2_OK)
        return pt2_error_set(err, PT2_ERR_INVALID, "%s", perr.message);
    pt2_runtime_free(rt);
    snprintf(o->runtimes[o->n_runtimes++], PT2D_RUNTIME_TEXT_MAX, "%s", text);
    return PT2_OK;
}

/* A JSON member that is a string or an array of strings: `add` on each. */
static int add_strings(struct pt2d_options *o, const cJSON *m,
                       int (*add)(struct pt2d_options *, const char *, struct pt2_error *),
                       struct pt2_error *err)
{
    const cJSON *t;
    int rc = PT2_OK;

    if (cJSON_IsString(m))
        return add(o, m->valuestring, err);
    if (!cJSON_IsArray(m))
        return pt2_error_set(err, PT2_ERR_INVALID, "%s must be a string or an array", m->string);
    cJSON_ArrayForEach(t, m)
    {
        if (!cJSON_IsString(t))
            return pt2_error_set(err, PT2_ERR_INVALID, "%s must hold strings", m->string);
        if ((rc = add(o, t->valuestring, err)) != PT2_OK)
            break;
    }
    return rc;
}

static int set_driver(struct pt2d_options *o, const char *text, struct pt2_error *err)
{
    struct pt2_error perr = {0};

    if (strlen(text) > 32)
        return pt2_error_set(err, PT2_ERR_INVALID, "driver version is longer than 32 bytes");
    if (pt2_driver_version_parse(text, &o->driver_version, &perr) != PT2_OK)
        return pt2_error_set(err, PT2_ERR_INVALID, "%s", perr.message);
    return PT2_OK;
}

static int set_platform(struct pt2d_options *o, const char *text, struct pt2_error *err)
{
    struct pt2_device probe;
    struct pt2_error perr = {0};

    memset(&probe, 0, sizeof(probe));
    if (pt2_platform_parse(text, &probe, &perr) != PT2_OK)
        return pt2_error_set(err, PT2_ERR_INVALID, "%s", perr.message);
    snprintf(o->platform, sizeof(o->platform), "%s", probe.platform);
    return PT2_OK;
}

/* A model folder name: data/aotinductor/<model>/, so no slash, no dot-only name. */
static int set_model(struct pt2d_options *o, const char *text, struct pt2_error *err)
{
    size_t n = strlen(text);

    if (n == 0 || n >= sizeof(o->model) || strchr(text, '/') != NULL || strcmp(text, ".") == 0 ||
        strcmp(text, "..") == 0)
        return pt2_error_set(err, PT2_ERR_INVALID,
                             "model must be a model folder name (data/aotinductor/NAME/), 1 to "
                             "%zu bytes without '/'",
                             sizeof(o->model) - 1);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)text[i] < 0x20 || text[i] == 0x7f)
            return pt2_error_set(err, PT2_ERR_INVALID, "model must not hold control characters");
    memcpy(o->model, text, n + 1);
    return PT2_OK;
}

static int set_view(struct pt2d_options *o, const char *text, struct pt2_error *err)
{
    if (strcmp(text, "oip") == 0)
        o->json_flags |= PT2_JSON_OIP;
    else if (strcmp(text, "default") == 0)
        o->json_flags &= ~(unsigned)PT2_JSON_OIP;
    else
        return pt2_error_set(err, PT2_ERR_INVALID, "view '%.32s' is not 'default' or 'oip'", text);
    return PT2_OK;
}

/* affinity=1 asks for scheduling.node_affinity (computed only then); 0, the default, leaves it out.
 */
static int set_affinity(struct pt2d_options *o, const char *text, struct pt2_error *err)
{
    if (strcmp(text, "0") == 0 || strcmp(text, "false") == 0)
        o->json_flags &= ~(unsigned)PT2_JSON_AFFINITY;
    else if (strcmp(text, "1") == 0 || strcmp(text, "true") == 0)
        o->json_flags |= PT2_JSON_AFFINITY;
    else
        return pt2_error_set(err, PT2_ERR_INVALID, "affinity '%.32s' is not 0, 1, false or true",
                             text);
    return PT2_OK;
}

static int set_url(struct pt2d_options *o, const char *text, struct pt2_error *err)
{
    if (strlen(text) >= sizeof(o->url))
        return pt2_error_set(err, PT2_ERR_INVALID, "url is longer than %zu bytes",
                             sizeof(o->url) - 1);
    if (o->has_url)
        return pt2_error_set(err, PT2_ERR_INVALID, "url given more than once");
    if (!pt2_remote_is_url(text))
        return pt2_error_set(err, PT2_ERR_INVALID,
                             "url must start with http://, https:// or s3://");
    snprintf(o->url, sizeof(o->url), "%s", text);
    o->has_url = 1;
    return PT2_OK;
}

static int set_path(struct pt2d_options *o, const char *text, struct pt2_error *err)
{
    if (strlen(text) >= sizeof(o->path))
        return pt2_error_set(err, PT2_ERR_INVALID, "path is longer than %zu bytes",
                             sizeof(o->path) - 1);
    if (o->has_path)
        return pt2_error_set(err, PT2_ERR_INVALID, "path given more than once");
    snprintf(o->path, sizeof(o->path), "%s", text);
    o->has_path = 1;
    return PT2_OK;
}

/* Torch's device spellings (pt2_device_check): checked here, resolved on the node later. */
static int set_device(struct pt2d_options *o, const char *text, struct pt2_error *err)
{
    if (o->has_device)
        return pt2_error_set(err, PT2_ERR_INVALID, "device given more than once");
    if (strlen(text) >= sizeof(o->device))
        return pt2_error_set(err, PT2_ERR_INVALID, "device is longer than %zu bytes",
                             sizeof(o->device) - 1);
    if (pt2_device_check(text, err) != PT2_OK)
        return PT2_ERR_INVALID;
    snprintf(o->device, sizeof(o->device), "%s", text);
    o->has_device = 1;
    return PT2_OK;
}

static int flag_value(const char *value)
{
    return strcmp(value, "0") != 0 && strcmp(value, "false") != 0;
}

/* Check one {name: [dims]} member and add a copy to o->inputs. */
static int add_input_json(struct pt2d_options *o, const char *name, const cJSON *dims,
                          struct pt2_error *err)
{
    const cJSON *d;
    cJSON *copy;
    int n = 0;

    if (name[0] == '\0' || strlen(name) > 256)
        return pt2_error_set(err, PT2_ERR_INVALID, "input names must be 1..256 characters");
    if (!cJSON_IsArray(dims))
        return pt2_error_set(err, PT2_ERR_INVALID, "input '%s' must be an array of integers", name);
    cJSON_ArrayForEach(d, dims)
    {
        double v = d->valuedouble;
        if (!cJSON_IsNumber(d) || v != floor(v) || v < -1 || v > DIM_LIMIT)
            return pt2_error_set(err, PT2_ERR_INVALID,
                                 "input '%s' dimension %d is not an integer >= -1", name, n);
        if (++n > PT2D_MAX_DIMS)
            return pt2_error_set(err, PT2_ERR_INVALID, "input '%s' has more than %d dimensions",
                                 name, PT2D_MAX_DIMS);
    }
    if (o->inputs == NULL && (o->inputs = cJSON_CreateObject()) == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    if (cJSON_GetArraySize(o->inputs) >= PT2D_MAX_INPUTS)
        return pt2_error_set(err, PT2_ERR_INVALID, "more than %d inputs", PT2D_MAX_INPUTS);
    if (cJSON_GetObjectItemCaseSensitive(o->inputs, name) != NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "input '%s' given more than once", name);
    copy = cJSON_Duplicate(dims, 1);
    if (copy == NULL || !cJSON_AddItemToObject(o->inputs, name, copy)) {
        cJSON_Delete(copy);
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    }
    return PT2_OK;
}

static int add_inputs_object(struct pt2d_options *o, const cJSON *obj, struct pt2_error *err)
{
    const cJSON *m;

    if (!cJSON_IsObject(obj))
        return pt2_error_set(err, PT2_ERR_INVALID,
                             "inputs must be an object like {\"x\": [8, 3, 512, 512]}");
    cJSON_ArrayForEach(m, obj)
    {
        if (add_input_json(o, m->string, m, err) != PT2_OK)
            return PT2_ERR_INVALID;
    }
    if (o->inputs == NULL && (o->inputs = cJSON_CreateObject()) == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    return PT2_OK;
}

const struct pt2_json_limits pt2d_json_body_limits = {PT2D_JSON_BODY_MAX, 64, 100000, 64u * 1024u};

int pt2d_options_parse_json(const char *text, size_t len, const struct pt2_json_limits *lim,
                            const char *what, cJSON **out, struct pt2_error *err)
{
    const char *end = NULL;
    cJSON *doc;
    int rc;

    *out = NULL;
    /* Limits and NUL bytes first, before cJSON builds anything. */
    rc = pt2_json_check(text, len, lim, what, err);
    if (rc != PT2_OK)
        return rc;
    doc = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (doc != NULL) {
        while (end != NULL && (size_t)(end - text) < len &&
               (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n'))
            end++;
        if (end == NULL || (size_t)(end - text) != len) {
            cJSON_Delete(doc);
            doc = NULL;
        }
    }
    if (doc == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "%s is not valid JSON", what);
    *out = doc;
    return PT2_OK;
}

/* "x=8,3,512,512" */
static int add_input_spec(struct pt2d_options *o, const char *spec, struct pt2_error *err)
{
    char name[257];
    const char *eq = strchr(spec, '='), *p;
    cJSON *dims = NULL;
    int rc;

    if (eq == NULL || eq == spec || (size_t)(eq - spec) >= sizeof(name))
        return pt2_error_set(err, PT2_ERR_INVALID,
                             "input '%.64s' is not NAME=D0,D1,... (e.g. x=8,3,512,512)", spec);
    memcpy(name, spec, (size_t)(eq - spec));
    name[eq - spec] = '\0';
    dims = cJSON_CreateArray();
    if (dims == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    for (p = eq + 1; *p != '\0';) {
        int neg = *p == '-';
        const char *end = NULL;
        uint64_t mag;
        int64_t v;

        if (cJSON_GetArraySize(dims) >= PT2D_MAX_DIMS) {
            rc = pt2_error_set(err, PT2_ERR_INVALID, "input '%s' has more than %d dimensions", name,
                               PT2D_MAX_DIMS);
            goto cleanup;
        }
        if (pt2_num_u64_prefix(p + neg, 10, &mag, &end) != PT2_OK ||
            mag > (uint64_t)INT64_MAX + (uint64_t)neg || (*end != ',' && *end != '\0')) {
            rc = pt2_error_set(err, PT2_ERR_INVALID, "input '%s': bad dimension list '%.64s'", name,
                               eq + 1);
            goto cleanup;
        }
        v = neg ? (int64_t)(0 - mag) : (int64_t)mag;
        if (!cJSON_AddItemToArray(dims, cJSON_CreateNumber((double)v))) {
            rc = pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
            goto cleanup;
        }
        p = *end == ',' ? end + 1 : end;
        if (*end == ',' && *p == '\0') {
            rc = pt2_error_set(err, PT2_ERR_INVALID, "input '%s': trailing comma", name);
            goto cleanup;
        }
    }
    rc = add_input_json(o, name, dims, err);
cleanup:
    cJSON_Delete(dims);
    return rc;
}

int pt2d_options_add_query(struct pt2d_options *o, const char *key, const char *value,
                           struct pt2_error *err)
{
    if (value == NULL)
        value = "";
    if (strcmp(key, "path") == 0)
        return set_path(o, value, err);
    if (strcmp(key, "url") == 0)
        return set_url(o, value, err);
    if (strcmp(key, "target") == 0)
        return add_target(o, value, err);
    if (strcmp(key, "runtime") == 0)
        return add_runtime(o, value, err);
    if (strcmp(key, "driver") == 0)
        return set_driver(o, value, err);
    if (strcmp(key, "platform") == 0)
        return set_platform(o, value, err);
    if (strcmp(key, "view") == 0)
        return set_view(o, value, err);
    if (strcmp(key, "model") == 0)
        return set_model(o, value, err);
    if (strcmp(key, "nocache") == 0) {
        o->nocache = flag_value(value);
        return PT2_OK;
    }
    if (strcmp(key, "stream") == 0) {
        o->no_stream = !flag_value(value);
        return PT2_OK;
    }
    if (strcmp(key, "affinity") == 0)
        return set_affinity(o, value, err);
    if (strcmp(key, "refresh") == 0) {
        o->refresh = flag_value(value);
        return PT2_OK;
    }
    if (strcmp(key, "strict") == 0) {
        o->strict = flag_value(value);
        return PT2_OK;
    }
    if (strcmp(key, "device") == 0)
        return set_device(o, value, err);
    if (strcmp(key, "input") == 0)
        return add_input_spec(o, value, err);
    if (strcmp(key, "inputs") == 0) {
        cJSON *doc = NULL;
        int rc = pt2d_options_parse_json(value, strlen(value), &pt2d_json_body_limits, "inputs",
                                         &doc, err);

        if (rc != PT2_OK)
            return rc;
        rc = add_inputs_object(o, doc, err);
        cJSON_Delete(doc);
        return rc;
    }
    return PT2_OK;
}

int pt2d_options_add_json(struct pt2d_options *o, const char *body, size_t len,
                          struct pt2_error *err)
{
    cJSON *doc = NULL;
    int rc;

    if (len > PT2D_JSON_BODY_MAX)
        return pt2_error_set(err, PT2_ERR_TOO_LARGE, "JSON body exceeds %u bytes",
                             PT2D_JSON_BODY_MAX);
    rc = pt2d_options_parse_json(body, len, &pt2d_json_body_limits, "request body", &doc, err);
    if (rc != PT2_OK)
        return rc;
    rc = pt2d_options_apply_json(o, doc, err);
    cJSON_Delete(doc);
    return rc;
}

int pt2d_options_apply_json(struct pt2d_options *o, const cJSON *doc, struct pt2_error *err)
{
    const cJSON *m;
    int rc = PT2_OK;

    if (!cJSON_IsObject(doc))
        return pt2_error_set(err, PT2_ERR_INVALID, "request body must be a JSON object");
    cJSON_ArrayForEach(m, doc)
    {
        const char *k = m->string;

        if (strcmp(k, "inputs") == 0) {
            rc = add_inputs_object(o, m, err);
        } else if (strcmp(k, "target") == 0 || strcmp(k, "targets") == 0) {
            rc = add_strings(o, m, add_target, err);
        } else if (strcmp(k, "runtime") == 0 || strcmp(k, "runtimes") == 0) {
            rc = add_strings(o, m, add_runtime, err);
        } else if (strcmp(k, "affinity") == 0) {
            if (!cJSON_IsBool(m))
                rc = pt2_error_set(err, PT2_ERR_INVALID, "affinity must be true or false");
            else
                rc = set_affinity(o, cJSON_IsTrue(m) ? "1" : "0", err);
        } else if (strcmp(k, "path") == 0 || strcmp(k, "url") == 0 || strcmp(k, "driver") == 0 ||
                   strcmp(k, "view") == 0 || strcmp(k, "device") == 0 ||
                   strcmp(k, "platform") == 0 || strcmp(k, "model") == 0) {
            if (!cJSON_IsString(m))
                rc = pt2_error_set(err, PT2_ERR_INVALID, "%s must be a string", k);
            else
                rc = pt2d_options_add_query(o, k, m->valuestring, err);
        }
        /* Unknown members are ignored, as for query arguments. */
        if (rc != PT2_OK)
            break;
    }
    return rc;
}

int pt2d_options_check_package(const struct pt2d_options *o, int upload, int required,
                               struct pt2_error *err)
{
    if (upload && (o->has_path || o->has_url))
        return pt2_error_set(err, PT2_ERR_INVALID, "send either an upload or a %s, not both",
                             o->has_url ? "url" : "path");
    if (o->has_path && o->has_url)
        return pt2_error_set(err, PT2_ERR_INVALID, "send either a path or a url, not both");
    if (required && !upload && !o->has_path && !o->has_url)
        return pt2_error_set(err, PT2_ERR_INVALID,
                             "name a package with ?path=, ?url=, a JSON body {\"path\": ...} or "
                             "upload it as application/octet-stream or multipart/form-data");
    return PT2_OK;
}

void pt2d_options_finish(struct pt2d_options *o)
{
    for (size_t i = 0; i < o->n_targets; i++) {
        if (o->driver_version != 0)
            o->targets[i].dev.driver_cuda_version = o->driver_version;
        memcpy(o->targets[i].dev.platform, o->platform, sizeof(o->platform));
    }
}

/* `key`, then `v` in decimal. */
static void fp_number(struct pt2d_buf *out, const char *key, long long v)
{
    char d[PT2D_FMT_INT_MAX];

    pt2d_buf_puts(out, key);
    pt2d_buf_append(out, d, pt2d_fmt_int(d, v));
}

/* `key`, then "<length>:<s>": the length keeps a value from running into the next part. */
static void fp_counted(struct pt2d_buf *out, const char *key, const char *s)
{
    size_t len = strlen(s);

    fp_number(out, key, (long long)len);
    pt2d_buf_append(out, ":", 1);
    pt2d_buf_append(out, s, len);
}

/* By hand rather than printf: it runs on every cached hit (the ETag's question). The
 * buffer's first failure is sticky, so it is checked once, at the end. */
int pt2d_options_fingerprint(const struct pt2d_options *o, struct pt2d_buf *out)
{
    size_t i;

    fp_number(out, "flags=", (long long)o->json_flags);
    fp_number(out, ";driver=", o->driver_version);
    pt2d_buf_puts(out, ";targets=");
    for (i = 0; i < o->n_targets; i++) {
        fp_counted(out, "", o->targets[i].text);
        pt2d_buf_append(out, ",", 1);
    }
    if (o->has_device)
        fp_counted(out, ";device=", o->device);
    if (o->strict)
        pt2d_buf_puts(out, ";strict");
    if (o->platform[0] != '\0') {
        pt2d_buf_puts(out, ";platform=");
        pt2d_buf_puts(out, o->platform);
    }
    if (o->model[0] != '\0')
        fp_counted(out, ";model=", o->model);
    for (i = 0; i < o->n_runtimes; i++)
        fp_counted(out, ";runtime=", o->runtimes[i]);
    if (out->failed == PT2_OK && o->inputs != NULL) {
        char *s = cJSON_PrintUnformatted(o->inputs);

        if (s == NULL)
            return PT2_ERR_NOMEM;
        pt2d_buf_puts(out, ";inputs=");
        pt2d_buf_puts(out, s);
        cJSON_free(s);
    }
    return out->failed;
}
