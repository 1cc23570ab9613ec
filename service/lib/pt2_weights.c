/*
 * pt2_weights.c - weights outside the library (see pt2_weights.h).
 *
 * Both config shapes are parsed under small fixed limits: a config lists one
 * line per tensor, so 200,000 values cover any real model, and a hostile one
 * costs a bounded walk, not a tree without end.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pt2_eprog.h"
#include "pt2_tensor.h"
#include "pt2_weights.h"
#include "pt2scope.h"

#define WEIGHTS_CONFIG_BYTES (16u * 1024u * 1024u)
#define WEIGHTS_CONFIG_VALUES 400000u
#define WEIGHTS_FILE_NAME_MAX 256u
#define WEIGHTS_WARN_MAX 8u /* per config: the first few missing files, then a count */

static const struct pt2_json_limits config_limits = {WEIGHTS_CONFIG_BYTES, 32,
                                                     WEIGHTS_CONFIG_VALUES, 4096};

const char *pt2_weights_where_name(int where)
{
    switch (where) {
    case PT2_WEIGHTS_IN_LIBRARY:
        return "in-library";
    case PT2_WEIGHTS_BINARY_BLOB:
        return "binary-blob";
    case PT2_WEIGHTS_PICKLE_FILES:
        return "pickle-files";
    case PT2_WEIGHTS_PAYLOAD_FILES:
        return "payload-files";
    default:
        return "none";
    }
}

static void say(const struct pt2_weights_sink *s, const char *fmt, ...) PT2_PRINTF(2, 3);

static void say(const struct pt2_weights_sink *s, const char *fmt, ...)
{
    char msg[PT2_ERROR_MSG_MAX];
    va_list ap;

    if (s->warn == NULL)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    s->warn(s->ctx, msg);
}

/* Count `dir``name` once: stored bytes, or missing. Returns its size or -1. */
static int64_t count_file(struct pt2_weights *w, const char *entry, const char *dir,
                          const char *name, const struct pt2_weights_sink *s, unsigned *warned)
{
    char rel[WEIGHTS_FILE_NAME_MAX + 32];
    uint64_t size = 0;

    snprintf(rel, sizeof(rel), "%s%s", dir, name);
    w->entries++;
    if (s->stat(s->ctx, rel, &size)) {
        w->bytes = (w->bytes < 0 ? 0 : w->bytes) + (int64_t)size;
        return (int64_t)size;
    }
    w->missing++;
    if ((*warned)++ < WEIGHTS_WARN_MAX)
        say(s, "%.200s names %.200s, which the package does not contain", entry, rel);
    return -1;
}

/* 1 when name is a file name the config may refer to (no path, no NUL tricks). */
static int plain_name(const char *name)
{
    size_t n = strlen(name);
    return n > 0 && n < WEIGHTS_FILE_NAME_MAX && strchr(name, '/') == NULL &&
           strcmp(name, "..") != 0 && strcmp(name, ".") != 0;
}

static int seen_before(const cJSON *obj, const cJSON *upto, const char *name, int pickle)
{
    for (const cJSON *it = obj->child; it != NULL && it != upto; it = it->next) {
        const cJSON *f =
            pickle ? cJSON_GetArrayItem(it, 0) : cJSON_GetObjectItemCaseSensitive(it, "path_name");
        if (cJSON_IsString(f) && strcmp(f->valuestring, name) == 0)
            return 1;
    }
    return 0;
}

int pt2_weights_pickle(struct pt2_weights *w, const char *buf, size_t len, const char *entry,
                       const struct pt2_weights_sink *s, struct pt2_error *err)
{
    cJSON *doc = NULL, *it;
    unsigned warned = 0;
    int rc = pt2_json_parse(buf, len, &config_limits, entry, &doc, err);

    if (rc != PT2_OK)
        return rc == PT2_ERR_NOMEM ? rc : pt2_error_set(err, PT2_ERR_METADATA, "%s", err->message);
    if (!cJSON_IsObject(doc)) {
        cJSON_Delete(doc);
        return pt2_error_set(err, PT2_ERR_METADATA,
                             "%s: expected {fqn: [file, shape, stride, offset]}", entry);
    }
    w->where = PT2_WEIGHTS_PICKLE_FILES;
    cJSON_ArrayForEach(it, doc)
    {
        const cJSON *f = cJSON_GetArrayItem(it, 0);

        if (!cJSON_IsArray(it) || !cJSON_IsString(f) || !plain_name(f->valuestring)) {
            rc = pt2_error_set(err, PT2_ERR_METADATA,
                               "%s: '%.100s' is not [file, shape, stride, offset]", entry,
                               it->string != NULL ? it->string : "");
            break;
        }
        if (!seen_before(doc, it, f->valuestring, 1))
            count_file(w, entry, "data/weights/", f->valuestring, s, &warned);
    }
    if (warned > WEIGHTS_WARN_MAX)
        say(s, "%.200s: %u more missing files", entry, warned - WEIGHTS_WARN_MAX);
    cJSON_Delete(doc);
    return rc;
}

/* Bytes one tensor_meta declares (elements x dtype size), or -1 when not all known. */
static int64_t meta_bytes(const cJSON *meta)
{
    int64_t code = 0, n, total = 1;
    unsigned esize;
    const cJSON *d;

    if (!pt2_tensor_json_int(cJSON_GetObjectItemCaseSensitive(meta, "dtype"), &code) ||
        (esize = pt2_eprog_dtype_size(code)) == 0)
        return -1;
    cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(meta, "sizes"))
    {
        if (!pt2_tensor_json_int(cJSON_GetObjectItemCaseSensitive(d, "as_int"), &n) || n < 0 ||
            (n > 0 && total > INT64_MAX / 16 / n))
            return -1;
        total *= n;
    }
    if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(meta, "sizes")))
        return -1;
    return total * esize;
}

static void payload_one(struct pt2_weights *w, const cJSON *doc, const cJSON *it, const char *entry,
                        const char *dir, const struct pt2_weights_sink *s, unsigned *warned,
                        int *declared_known)
{
    const char *name = pt2_json_str(it, "path_name");
    int64_t want, got;
    char rel[WEIGHTS_FILE_NAME_MAX + 32];

    if (name == NULL || !plain_name(name) || seen_before(doc, it, name, 0))
        return;
    want = meta_bytes(cJSON_GetObjectItemCaseSensitive(it, "tensor_meta"));
    got = count_file(w, entry, dir, name, s, warned);
    if (want < 0)
        *declared_known = 0;
    else
        w->declared = (w->declared < 0 ? 0 : w->declared) + want;
    snprintf(rel, sizeof(rel), "%s%s", dir, name);
    if (got > 0 && want >= 0 && got != want)
        say(s, "%.200s: %.200s holds %llu bytes, its tensor_meta declares %llu", entry, rel,
            (unsigned long long)got, (unsigned long long)want);
}

int pt2_weights_payload(struct pt2_weights *w, const char *buf, size_t len, const char *entry,
                        const char *dir, const struct pt2_weights_sink *s, struct pt2_error *err)
{
    cJSON *doc = NULL, *cfg, *it;
    unsigned warned = 0;
    int declared_known = 1;
    int rc = pt2_json_parse(buf, len, &config_limits, entry, &doc, err);

    if (rc != PT2_OK)
        return rc == PT2_ERR_NOMEM ? rc : pt2_error_set(err, PT2_ERR_METADATA, "%s", err->message);
    cfg = cJSON_GetObjectItemCaseSensitive(doc, "config");
    if (!cJSON_IsObject(cfg)) {
        cJSON_Delete(doc);
        return pt2_error_set(err, PT2_ERR_METADATA, "%s: expected {\"config\": {fqn: {...}}}",
                             entry);
    }
    w->where = PT2_WEIGHTS_PAYLOAD_FILES;
    if (w->bytes < 0)
        w->bytes = 0;
    cJSON_ArrayForEach(it, cfg) payload_one(w, cfg, it, entry, dir, s, &warned, &declared_known);
    if (!declared_known)
        w->declared = -1;
    if (warned > WEIGHTS_WARN_MAX)
        say(s, "%.200s: %u more missing files", entry, warned - WEIGHTS_WARN_MAX);
    cJSON_Delete(doc);
    return PT2_OK;
}

void pt2_weights_blob(struct pt2_weights *w, const char *rel, uint64_t size,
                      const struct pt2_weights_sink *s)
{
    w->where = PT2_WEIGHTS_BINARY_BLOB;
    w->entries++;
    w->bytes = (w->bytes < 0 ? 0 : w->bytes) + (int64_t)size;
    if (size == 0)
        say(s, "%.300s is empty: the model's weights blob holds no bytes", rel);
}

void pt2_weights_finish(struct pt2_weights *w, int has_library, uint64_t constants,
                        const char *model, const struct pt2_weights_sink *s)
{
    if (w->where == PT2_WEIGHTS_NONE && has_library && constants > 0) {
        w->where = PT2_WEIGHTS_IN_LIBRARY;
        w->entries = constants;
        w->bytes = -1;
    }
    if (w->where == PT2_WEIGHTS_NONE && w->bytes < 0)
        w->bytes = 0;
    if (w->bytes >= 0 && w->declared > 0 && w->bytes < w->declared &&
        (w->where == PT2_WEIGHTS_BINARY_BLOB || w->where == PT2_WEIGHTS_PICKLE_FILES))
        say(s,
            "model '%.100s': its weights (%llu bytes stored) are smaller than the %llu bytes "
            "its constants declare",
            model, (unsigned long long)w->bytes, (unsigned long long)w->declared);
}
