/*
 * pt2d_intake.c - request bodies (see pt2d_intake.h).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pt2d_intake.h"
#include "pt2d_options.h"
#include "pt2d_problem.h"

#define PP_BUFFER (64 * 1024)

/* Case-insensitive match of the media type before any ';' parameters. */
static int media_is(const char *ctype, const char *want)
{
    size_t n = strlen(want);

    while (*ctype == ' ')
        ctype++;
    return strncasecmp(ctype, want, n) == 0 &&
           (ctype[n] == '\0' || ctype[n] == ';' || ctype[n] == ' ');
}

/* Free the buffers and give their reservation back. */
static void intake_release(struct pt2d_intake *in)
{
    pt2d_buf_free(&in->json);
    pt2d_buf_free(&in->field);
    if (in->budget != NULL && in->reserved > 0)
        pt2d_budget_give(in->budget, in->reserved);
    in->reserved = 0;
}

static void intake_fail(struct pt2d_intake *in)
{
    /* The upload will not be used: give its memory and disk space back right away. */
    pt2_upload_free(in->upload);
    in->upload = NULL;
    pt2d_spool_free(in->spool);
    in->spool = NULL;
    intake_release(in);
}

/* pt2_upload's spill file: a spool file, opened when the kept bytes outgrow memory. */
static int intake_spill(void *ctx, int *fd, struct pt2_error *err)
{
    struct pt2d_intake *in = ctx;

    if (in->spool == NULL && pt2d_spool_open(&in->spool, in->spool_dir, err) != PT2_OK)
        return PT2_ERR_IO;
    *fd = pt2d_spool_fd(in->spool);
    return PT2_OK;
}

/* Take `len` bytes of the budget for this body (given back by intake_release): 1, or 0. */
static int intake_take(struct pt2d_intake *in, size_t len)
{
    if (in->budget == NULL)
        return 1;
    if (!pt2d_budget_take(in->budget, len))
        return 0;
    in->reserved += len;
    return 1;
}

/* Memory for kept bytes, as it grows: from the budget; once refused, the spool takes the rest. */
static int intake_upload_reserve(void *ctx, size_t more)
{
    return intake_take(ctx, more);
}

static int intake_upload_new(struct pt2d_intake *in, const struct pt2d_intake_limits *lim,
                             struct pt2_error *err)
{
    struct pt2_upload_options o = {PT2D_UPLOAD_MEMORY, intake_spill, in, lim->no_stream,
                                   intake_upload_reserve};

    return pt2_upload_new(&in->upload, &o, err);
}

/* Reserve `len` more buffered bytes: 1, or 0 with in->err set (503) when the budget is spent. */
static int intake_reserve(struct pt2d_intake *in, size_t len)
{
    if (intake_take(in, len))
        return 1;
    pt2_error_set(&in->err, PT2_ERR_OVERLOADED,
                  "the memory for request bodies (--memory-budget) is in use; retry");
    return 0;
}

static void copy_filename(struct pt2d_intake *in, const char *filename)
{
    const char *base = strrchr(filename, '/');
    size_t i, j = 0;

    base = base != NULL ? base + 1 : filename;
    /* Keep a printable, quote-free name: it is echoed inside JSON reports. */
    for (i = 0; base[i] != '\0' && j + 1 < sizeof(in->filename); i++) {
        unsigned char c = (unsigned char)base[i];
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
            in->filename[j++] = (char)c;
    }
    in->filename[j] = '\0';
}

static enum MHD_Result on_post_field(void *cls, enum MHD_ValueKind kind, const char *key,
                                     const char *filename, const char *content_type,
                                     const char *transfer_encoding, const char *data, uint64_t off,
                                     size_t size)
{
    struct pt2d_intake *in = cls;

    if (in->err.code != PT2_OK)
        return MHD_NO;
    if (key != NULL && in->field_name != NULL && strcmp(key, in->field_name) == 0) {
        if (off == 0 && in->field_parts++ > 0) {
            pt2_error_set(&in->err, PT2_ERR_INVALID, "multipart body has more than one '%s' field",
                          in->field_name);
            return MHD_NO;
        }
        if (size > 0 && !intake_reserve(in, size))
            return MHD_NO;
        if (size > 0 && pt2d_buf_append(&in->field, data, size) != PT2_OK) {
            pt2_error_set(&in->err, PT2_ERR_TOO_LARGE,
                          "multipart field '%s' exceeds the %zu-byte limit", in->field_name,
                          in->field.cap);
            return MHD_NO;
        }
        return MHD_YES;
    }
    if (key == NULL || strcmp(key, "file") != 0)
        return MHD_YES; /* other form fields are ignored */
    if (off == 0 && in->file_bytes > 0) {
        pt2_error_set(&in->err, PT2_ERR_INVALID, "multipart body has more than one 'file' field");
        return MHD_NO;
    }
    if (in->file_parts == 0) {
        in->file_parts = 1;
        if (filename != NULL)
            copy_filename(in, filename);
    }
    if (size > 0 && pt2_upload_feed(in->upload, data, size, &in->err) != PT2_OK)
        return MHD_NO;
    in->file_bytes += size;
    return MHD_YES;
}

static int parse_length(const char *text, uint64_t *out)
{
    return pt2_num_u64(text, 10, out) == PT2_OK ? 0 : -1;
}

int pt2d_intake_begin(struct pt2d_intake *in, struct MHD_Connection *conn, int has_body_method,
                      const struct pt2d_intake_limits *lim, struct pt2_error *err)
{
    const char *ctype = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Type");
    const char *clen = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Length");
    uint64_t declared = 0;
    int have_len = 0, announced;

    memset(in, 0, sizeof(*in));
    pt2d_buf_init(&in->json, lim->json_max > 0 ? lim->json_max : PT2D_JSON_BODY_MAX);
    pt2d_buf_init(&in->field, lim->field_max);
    in->field_name = lim->field_name;
    in->budget = lim->budget;
    in->spool_dir = lim->spool_dir;
    in->cap = lim->max_upload;
    if (clen != NULL) {
        if (parse_length(clen, &declared) != 0)
            return pt2_error_set(err, PT2_ERR_INVALID, "Content-Length '%.32s' is not a number",
                                 clen);
        have_len = 1;
    }
    announced =
        have_len ? declared > 0
                 : MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Transfer-Encoding") != NULL;
    /* A POST without Content-Type and without a body names its package in the query. */
    if (!has_body_method || (ctype == NULL && !announced)) {
        in->kind = PT2D_BODY_NONE;
        in->cap = 0;
        return PT2_OK;
    }
    if (ctype != NULL && media_is(ctype, "application/octet-stream")) {
        in->kind = PT2D_BODY_RAW;
    } else if (ctype != NULL && media_is(ctype, "multipart/form-data")) {
        in->kind = PT2D_BODY_MULTIPART;
    } else if (ctype != NULL && media_is(ctype, "application/json")) {
        in->kind = PT2D_BODY_JSON;
        in->cap = in->json.cap;
    } else {
        return pt2_error_set(err, PT2_ERR_MEDIA_TYPE,
                             "Content-Type '%.64s' is not supported; send "
                             "application/octet-stream, multipart/form-data or application/json",
                             ctype != NULL ? ctype : "(none)");
    }
    if (have_len && declared > in->cap)
        return pt2_error_set(err, PT2_ERR_TOO_LARGE,
                             "request body of %llu bytes exceeds the %llu-byte limit",
                             (unsigned long long)declared, (unsigned long long)in->cap);
    if (in->kind == PT2D_BODY_JSON)
        return PT2_OK;
    if (intake_upload_new(in, lim, err) != PT2_OK) {
        intake_release(in);
        return PT2_ERR_NOMEM;
    }
    if (in->kind == PT2D_BODY_MULTIPART) {
        in->pp = MHD_create_post_processor(conn, PP_BUFFER, on_post_field, in);
        if (in->pp == NULL) {
            pt2d_intake_free(in);
            return pt2_error_set(err, PT2_ERR_INVALID,
                                 "multipart/form-data body without a boundary parameter");
        }
    }
    return PT2_OK;
}

int pt2d_intake_feed(struct pt2d_intake *in, const char *data, size_t len)
{
    if (in->err.code == PT2_OK && in->kind == PT2D_BODY_NONE) {
        pt2_error_set(&in->err, PT2_ERR_INVALID, "this request takes no body");
        intake_fail(in);
    }
    if (in->err.code == PT2_OK && (len > in->cap || in->received > in->cap - len)) {
        pt2_error_set(&in->err, PT2_ERR_TOO_LARGE, "request body exceeds the %llu-byte limit",
                      (unsigned long long)in->cap);
        intake_fail(in);
    }
    if (in->err.code != PT2_OK) {
        in->discarded += len;
        return in->discarded > PT2D_INTAKE_DISCARD_MAX ? -1 : 0;
    }
    in->received += len;
    switch (in->kind) {
    case PT2D_BODY_RAW:
        pt2_upload_feed(in->upload, data, len, &in->err);
        break;
    case PT2D_BODY_MULTIPART:
        if (MHD_post_process(in->pp, data, len) != MHD_YES)
            pt2_error_set(&in->err, PT2_ERR_INVALID, "malformed multipart/form-data body");
        break;
    case PT2D_BODY_JSON:
        if (!intake_reserve(in, len))
            break;
        if (pt2d_buf_append(&in->json, data, len) != PT2_OK)
            pt2_error_set(&in->err, PT2_ERR_TOO_LARGE, "JSON body exceeds %zu bytes", in->json.cap);
        break;
    default:
        break;
    }
    if (in->err.code != PT2_OK)
        intake_fail(in);
    return 0;
}

int pt2d_intake_finish(struct pt2d_intake *in, struct pt2_error *err)
{
    if (in->pp != NULL) {
        /* Destroying the processor flushes the last part to the iterator. */
        if (MHD_destroy_post_processor(in->pp) != MHD_YES && in->err.code == PT2_OK)
            pt2_error_set(&in->err, PT2_ERR_INVALID, "truncated multipart/form-data body");
        in->pp = NULL;
        if (in->err.code == PT2_OK && in->file_parts == 0)
            pt2_error_set(&in->err, PT2_ERR_INVALID,
                          "multipart/form-data body has no 'file' field");
    }
    if (in->err.code != PT2_OK) {
        intake_fail(in);
        return pt2_error_copy(err, &in->err);
    }
    if (in->upload != NULL && pt2_upload_finish(in->upload, &in->err) != PT2_OK) {
        intake_fail(in);
        return pt2_error_copy(err, &in->err);
    }
    return PT2_OK;
}

pt2_upload *pt2d_intake_upload(const struct pt2d_intake *in)
{
    return in->upload;
}

void pt2d_intake_free(struct pt2d_intake *in)
{
    if (in == NULL)
        return;
    if (in->pp != NULL)
        MHD_destroy_post_processor(in->pp);
    in->pp = NULL;
    intake_fail(in);
}
