/*
 * pt2d_record.c - response recording for the contract tests (see pt2d_record.h).
 *
 * The file name starts with the wall-clock time so a directory listing reads
 * in the order responses were sent; mkostemps() supplies the uniqueness.
 * Without PT2SCOPE_TEST_HOOKS this file compiles to nothing (and make does
 * not link it into pt2scoped): the production daemon carries no recorder.
 */
#ifdef PT2SCOPE_TEST_HOOKS

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "pt2d_record.h"

int pt2d_recorder_set_dir(struct pt2d_recorder *r, const char *dir, struct pt2_error *err)
{
    r->dir[0] = '\0';
    if (dir == NULL || dir[0] == '\0')
        return PT2_OK;
    if (strlen(dir) >= sizeof(r->dir))
        return pt2_error_set(err, PT2_ERR_INVALID, "%s is longer than %zu bytes", PT2D_RECORD_ENV,
                             sizeof(r->dir) - 1);
    snprintf(r->dir, sizeof(r->dir), "%s", dir);
    return PT2_OK;
}

int pt2d_recorder_init(struct pt2d_recorder *r, struct pt2_error *err)
{
    return pt2d_recorder_set_dir(r, getenv(PT2D_RECORD_ENV), err);
}

int pt2d_recorder_enabled(const struct pt2d_recorder *r)
{
    return r != NULL && r->dir[0] != '\0';
}

#define RECORD_REQUEST_CUT 4096 /* bytes kept of a request body too big to parse */

/* application/json, application/problem+json, ... (parameters ignored). */
static int media_is_json(const char *ctype)
{
    size_t n;

    if (ctype == NULL)
        return 0;
    n = strcspn(ctype, "; ");
    if (n == 16 && strncasecmp(ctype, "application/json", 16) == 0)
        return 1;
    return n > 5 && strncasecmp(ctype + n - 5, "+json", 5) == 0;
}

/* Exactly one JSON value, trailing whitespace allowed; NULL otherwise. */
static cJSON *parse_exact(const char *text, size_t len)
{
    const char *end = NULL;
    cJSON *doc = cJSON_ParseWithLengthOpts(text, len, &end, 0);

    if (doc == NULL)
        return NULL;
    while (end < text + len && (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n'))
        end++;
    if (end != text + len) {
        cJSON_Delete(doc);
        return NULL;
    }
    return doc;
}

/* A JSON string of `len` bytes that need not be NUL-terminated. */
static cJSON *string_n(const char *s, size_t len)
{
    char *copy = malloc(len + 1);
    cJSON *v;

    if (copy == NULL)
        return NULL;
    memcpy(copy, s, len);
    copy[len] = '\0';
    v = cJSON_CreateString(copy);
    free(copy);
    return v;
}

/* Add or replace `key` (headers may repeat; the last one wins). */
static int put(cJSON *obj, const char *key, cJSON *item)
{
    int ok;

    if (item == NULL)
        return 0;
    if (cJSON_GetObjectItemCaseSensitive(obj, key) != NULL)
        ok = cJSON_ReplaceItemInObjectCaseSensitive(obj, key, item);
    else
        ok = cJSON_AddItemToObject(obj, key, item);
    if (!ok)
        cJSON_Delete(item);
    return ok;
}

static cJSON *str_or_null(const char *s)
{
    return s != NULL ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static int add_body(cJSON *doc, const struct pt2d_record *rec)
{
    size_t len = rec->body_len;
    int cut = 0;
    cJSON *body = NULL;
    const char *kind = "text";

    if (rec->body == NULL)
        return put(doc, "body_kind", cJSON_CreateString("none")) &&
               put(doc, "body", cJSON_CreateNull()) &&
               put(doc, "body_truncated", cJSON_CreateFalse());
    if (len > PT2D_RECORD_BODY_MAX) {
        len = PT2D_RECORD_BODY_MAX;
        cut = 1;
    }
    if (!cut && media_is_json(rec->content_type)) {
        body = parse_exact(rec->body, len);
        if (body != NULL)
            kind = "json";
    }
    if (body == NULL)
        body = string_n(rec->body, len);
    return put(doc, "body_kind", cJSON_CreateString(kind)) && put(doc, "body", body) &&
           put(doc, "body_truncated", cJSON_CreateBool(cut));
}

static cJSON *record_json(const struct pt2d_record *rec)
{
    cJSON *doc = cJSON_CreateObject(), *headers = NULL, *req = NULL;
    size_t i;
    int ok;

    if (doc == NULL)
        return NULL;
    ok = put(doc, "method", str_or_null(rec->method)) && put(doc, "path", str_or_null(rec->path)) &&
         put(doc, "query",
             rec->query != NULL ? cJSON_Duplicate(rec->query, 1) : cJSON_CreateObject()) &&
         put(doc, "status", cJSON_CreateNumber(rec->status)) &&
         put(doc, "content_type", str_or_null(rec->content_type));
    if (ok) {
        headers = cJSON_CreateObject();
        ok = put(doc, "headers", headers);
    }
    for (i = 0; ok && i < rec->n_headers; i++)
        ok = put(headers, rec->headers[i].name, str_or_null(rec->headers[i].value));
    if (ok && rec->request_json != NULL) {
        /* A hostile body (millions of values) is refused by the server before any tree
         * is built; the recorder must not build one either: it keeps its first bytes. */
        static const struct pt2_json_limits lim = {0, 64, 100000, 0};
        struct pt2_error jerr = {0};
        size_t len = rec->request_json_len;

        if (pt2_json_check(rec->request_json, len, &lim, "request", &jerr) != PT2_OK)
            len = len < RECORD_REQUEST_CUT ? len : RECORD_REQUEST_CUT;
        else
            req = parse_exact(rec->request_json, len);
        /* Kept as text when it is not JSON: the server answered it anyway. */
        if (req == NULL)
            req = string_n(rec->request_json, len);
    } else if (ok) {
        req = cJSON_CreateNull();
    }
    ok = ok && put(doc, "request_json", req) && add_body(doc, rec);
    if (!ok) {
        cJSON_Delete(doc);
        return NULL;
    }
    return doc;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int pt2d_record_write(const struct pt2d_recorder *r, const struct pt2d_record *rec,
                      struct pt2_error *err)
{
    char path[PT2D_RECORD_DIR_MAX + 64], ebuf[128];
    struct timespec ts;
    cJSON *doc = NULL;
    char *text = NULL;
    int fd = -1, n, rc = PT2_OK;

    if (!pt2d_recorder_enabled(r))
        return PT2_OK;
    doc = record_json(rec);
    text = doc != NULL ? cJSON_PrintUnformatted(doc) : NULL;
    if (text == NULL) {
        rc = pt2_error_set(err, PT2_ERR_NOMEM, "record: out of memory for %s %s", rec->method,
                           rec->path);
        goto cleanup;
    }
    clock_gettime(CLOCK_REALTIME, &ts);
    n = snprintf(path, sizeof(path), "%s/%lld.%09ld-XXXXXX.json", r->dir, (long long)ts.tv_sec,
                 ts.tv_nsec);
    if (n < 0 || (size_t)n >= sizeof(path)) {
        rc = pt2_error_set(err, PT2_ERR_INVALID, "record: directory name is too long");
        goto cleanup;
    }
    fd = mkostemps(path, 5, O_CLOEXEC);
    if (fd < 0) {
        rc = pt2_error_set(err, PT2_ERR_IO, "record: cannot create a file in '%s': %s", r->dir,
                           strerror_r(errno, ebuf, sizeof(ebuf)));
        goto cleanup;
    }
    if (write_all(fd, text, strlen(text)) != 0 || write_all(fd, "\n", 1) != 0)
        rc = pt2_error_set(err, PT2_ERR_IO, "record: cannot write '%s': %s", path,
                           strerror_r(errno, ebuf, sizeof(ebuf)));
cleanup:
    if (fd >= 0 && close(fd) != 0 && rc == PT2_OK)
        rc = pt2_error_set(err, PT2_ERR_IO, "record: cannot write '%s'", path);
    cJSON_free(text);
    cJSON_Delete(doc);
    return rc;
}

/* ---- MHD glue ------------------------------------------------------------ */

struct query_ctx {
    cJSON *query;
    unsigned n;
    int failed;
};

static enum MHD_Result on_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                              const char *value)
{
    struct query_ctx *q = cls;
    cJSON *values, *item;

    if (++q->n > PT2D_RECORD_QUERY_MAX)
        return MHD_NO;
    values = cJSON_GetObjectItemCaseSensitive(q->query, key);
    if (values == NULL && !put(q->query, key, cJSON_CreateArray())) {
        q->failed = 1;
        return MHD_NO;
    }
    values = cJSON_GetObjectItemCaseSensitive(q->query, key);
    item = str_or_null(value);
    if (item == NULL || !cJSON_AddItemToArray(values, item)) {
        cJSON_Delete(item);
        q->failed = 1;
        return MHD_NO;
    }
    return MHD_YES;
}

struct header_ctx {
    struct pt2d_record_header v[PT2D_RECORD_HEADERS_MAX];
    size_t n;
    const char *content_type;
};

static enum MHD_Result on_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                 const char *value)
{
    struct header_ctx *h = cls;

    if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_TYPE) == 0) {
        h->content_type = value;
        return MHD_YES;
    }
    if (h->n == PT2D_RECORD_HEADERS_MAX)
        return MHD_NO;
    h->v[h->n].name = key;
    h->v[h->n].value = value;
    h->n++;
    return MHD_YES;
}

int pt2d_record_response(const struct pt2d_recorder *r, struct MHD_Connection *conn,
                         const char *method, const char *path, unsigned status,
                         struct MHD_Response *resp, const char *body, size_t body_len,
                         const char *request_json, size_t request_json_len, struct pt2_error *err)
{
    struct query_ctx q = {0};
    struct header_ctx h;
    struct pt2d_record rec;
    int rc;

    if (!pt2d_recorder_enabled(r))
        return PT2_OK;
    memset(&h, 0, sizeof(h));
    q.query = cJSON_CreateObject();
    if (q.query == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "record: out of memory");
    MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, on_arg, &q);
    MHD_get_response_headers(resp, on_header, &h);
    if (q.failed) {
        cJSON_Delete(q.query);
        return pt2_error_set(err, PT2_ERR_NOMEM, "record: out of memory");
    }
    memset(&rec, 0, sizeof(rec));
    rec.method = method;
    rec.path = path;
    rec.query = q.query;
    rec.status = status;
    rec.content_type = h.content_type;
    rec.headers = h.v;
    rec.n_headers = h.n;
    rec.request_json = request_json;
    rec.request_json_len = request_json_len;
    /* MHD never sends a body for HEAD; record what the client got. */
    if (strcmp(method, "HEAD") != 0) {
        rec.body = body;
        rec.body_len = body_len;
    }
    rc = pt2d_record_write(r, &rec, err);
    cJSON_Delete(q.query);
    return rc;
}

#endif /* PT2SCOPE_TEST_HOOKS */
