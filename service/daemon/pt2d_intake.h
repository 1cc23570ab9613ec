/*
 * pt2d_intake.h - receiving a request body: raw upload, multipart, JSON.
 *
 * Design: the kind of body is decided from the headers alone on the first
 * handler call (so an unsupported Content-Type or a declared
 * Content-Length over the cap is refused before MHD sends 100 Continue).
 * Uploads are inspected as they stream (pt2_upload: what an inspection reads
 * is kept, in memory up to PT2D_UPLOAD_MEMORY reserved from the budget as it
 * grows, past it (or once the budget refuses) in a spool file opened only then; weights are
 * CRC-checked and dropped; ?stream=0 keeps every byte); multipart bodies go through
 * MHD_PostProcessor and only the `file` field is kept (plus, when the
 * route asks for it, one small named field such as POST
 * /v1/compatibility's `nodes`, buffered up to its own cap); JSON bodies
 * are buffered up to PT2D_JSON_BODY_MAX or the route's larger cap. After the first failure the rest
 * of the body is discarded (a response cannot be queued mid-body) and the failure is answered once
 * the body ends; a client that keeps sending more than PT2D_INTAKE_DISCARD_MAX past a failure is
 * disconnected.
 *
 * Ownership: the struct is embedded in the request; pt2d_intake_free()
 * frees the upload, closes the spool file and the post processor.
 * pt2d_intake_upload() is borrowed.
 */
#ifndef PT2D_INTAKE_H
#define PT2D_INTAKE_H

#include <stddef.h>
#include <stdint.h>

#include <microhttpd.h>

#include "pt2scope.h"
#include "pt2d_budget.h"
#include "pt2d_buf.h"
#include "pt2d_path.h"
#include "pt2d_spool.h"

#define PT2D_INTAKE_DISCARD_MAX (64ull << 20)
/* An upload's kept bytes held in memory at most, reserved from the budget as they grow. */
#define PT2D_UPLOAD_MEMORY (8u << 20)

enum pt2d_body_kind {
    PT2D_BODY_NONE = 0,  /* no body expected; stray bytes are discarded */
    PT2D_BODY_RAW,       /* application/octet-stream */
    PT2D_BODY_MULTIPART, /* multipart/form-data, field "file" */
    PT2D_BODY_JSON       /* application/json */
};

struct pt2d_intake {
    enum pt2d_body_kind kind;
    uint64_t cap;             /* limit on raw body bytes */
    uint64_t received;        /* raw body bytes accepted */
    uint64_t discarded;       /* bytes dropped after a failure */
    pt2_upload *upload;       /* raw and multipart bodies */
    struct pt2d_spool *spool; /* the upload's spill file, once needed */
    const char *spool_dir;
    struct pt2d_buf json;
    struct MHD_PostProcessor *pp;
    int file_parts;      /* multipart "file" parts seen */
    uint64_t file_bytes; /* bytes of the current file part */
    char filename[PT2D_NAME_MAX];
    const char *field_name;     /* extra multipart field kept in `field`, or NULL */
    struct pt2d_buf field;      /* its bytes */
    int field_parts;            /* parts named field_name seen */
    struct pt2_error err;       /* first failure; code != PT2_OK once failed */
    struct pt2d_budget *budget; /* what buffered bytes are reserved from, or NULL */
    uint64_t reserved;          /* bytes of `budget` this body holds */
};

struct pt2d_intake_limits {
    const char *spool_dir;
    uint64_t max_upload;
    size_t json_max;        /* cap on a JSON body; 0 = PT2D_JSON_BODY_MAX */
    const char *field_name; /* multipart field to keep besides `file` (static), or NULL */
    size_t field_max;       /* cap on that field's bytes */
    /* Bytes buffered in memory (JSON, the kept field) are reserved here first; when
     * it is spent the body fails with PT2_ERR_OVERLOADED (503). NULL: no budget. */
    struct pt2d_budget *budget;
    int no_stream; /* ?stream=0: keep every byte of an upload */
};

/*
 * First call, headers only. `has_body_method` is 0 for GET/HEAD. Returns
 * PT2_OK (in->kind set) or an error to answer now: PT2_ERR_MEDIA_TYPE,
 * PT2_ERR_TOO_LARGE, PT2_ERR_INVALID, PT2_ERR_IO.
 */
int pt2d_intake_begin(struct pt2d_intake *in, struct MHD_Connection *conn, int has_body_method,
                      const struct pt2d_intake_limits *lim, struct pt2_error *err);

/* A body chunk. Returns 0, or -1 when the connection should be dropped. */
int pt2d_intake_feed(struct pt2d_intake *in, const char *data, size_t len);

/* The body is complete: returns in->err's code (PT2_OK when the body is usable). */
int pt2d_intake_finish(struct pt2d_intake *in, struct pt2_error *err);

/* The upload (borrowed; finished once pt2d_intake_finish succeeded), or NULL when there is none. */
pt2_upload *pt2d_intake_upload(const struct pt2d_intake *in);

void pt2d_intake_free(struct pt2d_intake *in);

#endif
