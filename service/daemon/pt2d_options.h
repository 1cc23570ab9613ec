/*
 * pt2d_options.h - what a request asks for, from its query and JSON body.
 *
 * Design: query arguments (path, url, target, runtime, driver, view, affinity, inputs,
 * input, nocache) and the members of a JSON body (path, url, inputs, target,
 * runtime, driver, view, affinity) fill one struct, so handlers never look at raw request text.
 * Every list has a hard cap. pt2d_options_fingerprint() gives the canonical form of everything that
 * shapes a response body; it feeds the ETag.
 *
 * Ownership: the struct is caller-owned; pt2d_options_free() releases the
 * inputs document. Strings passed in are copied.
 */
#ifndef PT2D_OPTIONS_H
#define PT2D_OPTIONS_H

#include <stddef.h>

#include <cJSON.h>

#include "pt2scope.h"
#include "pt2d_buf.h"
#include "pt2_remote.h"
#include "pt2d_path.h"

#define PT2D_MAX_TARGETS 16
#define PT2D_TARGET_TEXT_MAX 64
#define PT2D_MAX_INPUTS 256
#define PT2D_MAX_DIMS 64
#define PT2D_JSON_BODY_MAX (1u << 20)
#define PT2D_DEVICE_MAX 32
#define PT2D_URL_MAX PT2_REMOTE_URL_MAX
#define PT2D_MAX_RUNTIMES 8
#define PT2D_RUNTIME_TEXT_MAX 257

struct pt2d_target {
    char text[PT2D_TARGET_TEXT_MAX]; /* as the client wrote it */
    struct pt2_device dev;
};

#define PT2D_MODEL_MAX 128 /* a model folder name, NUL included */

struct pt2d_options {
    char path[PT2D_PATH_MAX];
    int has_path;
    char url[PT2D_URL_MAX]; /* ?url= / {"url"}: a remote package (pt2_remote.h) */
    int has_url;
    struct pt2d_target targets[PT2D_MAX_TARGETS];
    size_t n_targets;
    int driver_version;  /* cuDriverGetVersion() form; 0 = not given */
    char platform[16];   /* ?platform=linux/arm64 for every target; "" = not given */
    unsigned json_flags; /* PT2_JSON_OIP for view=oip, PT2_JSON_AFFINITY for affinity=1 */
    int nocache;
    int no_stream; /* ?stream=0: an upload is kept whole, not inspected as it streams */
    cJSON *inputs; /* {name: [dims...]} or NULL; owned */
    char device[PT2D_DEVICE_MAX]; /* ?device=: "", "cuda", "cuda:N" or "N" */
    int has_device;               /* 0 = every GPU of the node */
    int refresh;                  /* ?refresh=1: probe the node again (/v1/node) */
    int strict;                   /* ?strict=1: unverified requirements are incompatible */
    /* ?runtime= / {"runtime"}: runtime specs (pt2_runtime_parse), checked when added;
     * they replace the daemon's default runtimes for this request. */
    char runtimes[PT2D_MAX_RUNTIMES][PT2D_RUNTIME_TEXT_MAX];
    size_t n_runtimes;
    /* ?model= / {"model"}: judge that model of the package only (pt2_open_options.model). */
    char model[PT2D_MODEL_MAX];
};

void pt2d_options_init(struct pt2d_options *o);
void pt2d_options_free(struct pt2d_options *o);

/* One query argument (already URL-decoded). Unknown keys are ignored. */
int pt2d_options_add_query(struct pt2d_options *o, const char *key, const char *value,
                           struct pt2_error *err);

/* A JSON request body (at most PT2D_JSON_BODY_MAX bytes, not NUL-terminated). */
int pt2d_options_add_json(struct pt2d_options *o, const char *body, size_t len,
                          struct pt2_error *err);

/*
 * The members of an already parsed JSON body (must be an object): path,
 * inputs, target(s), driver, view, affinity (a boolean), device. Other members are ignored, so a
 * caller can keep its own (POST /v1/compatibility's "nodes").
 */
int pt2d_options_apply_json(struct pt2d_options *o, const cJSON *doc, struct pt2_error *err);

/* The limits of a request's own JSON (a body, ?inputs=): checked before any tree is built. */
extern const struct pt2_json_limits pt2d_json_body_limits;

/*
 * Parse text that must be exactly one JSON value (trailing whitespace
 * allowed) into *out, after pt2_json_check against `lim`: PT2_ERR_TOO_LARGE
 * past a limit, PT2_ERR_INVALID for NUL bytes and for "<what> is not valid JSON".
 */
int pt2d_options_parse_json(const char *text, size_t len, const struct pt2_json_limits *lim,
                            const char *what, cJSON **out, struct pt2_error *err);

/*
 * The one rule for naming a package: at most one of an upload, a path and a
 * url, and (with `required`) at least one. PT2_OK, or PT2_ERR_INVALID with
 * the message the API answers.
 */
int pt2d_options_check_package(const struct pt2d_options *o, int upload, int required,
                               struct pt2_error *err);

/* Apply the driver version to every target; call once all arguments are in. */
void pt2d_options_finish(struct pt2d_options *o);

/* Canonical text of everything that shapes the response body. */
int pt2d_options_fingerprint(const struct pt2d_options *o, struct pt2d_buf *out);

#endif
