/*
 * pt2_abi.c - the stable entry points of libpt2scope.so, for bindings.
 *
 * Design: a thin layer over the public header (pt2scope.h, "Bindings")
 * with plain C types only, so a binding needs no struct layouts: a package
 * is an opaque handle, requests and answers are JSON text, and a failure is
 * the problem document pt2_problem_json builds for the CLI's --json errors
 * and the daemon's problem+json answers, so a binding maps the same `type`
 * to the same exception whichever way it asked. Every answer is a document
 * the library already builds (pt2_package_to_json, pt2_verdicts,
 * pt2_package_validate); nothing is decided here but which of them to call.
 *
 * URLs go through the remote layer (service/remote) without an allow list,
 * as in the CLI: the caller chose the URL. libcurl is initialised once, on
 * the first URL (curl_global_init is thread-safe in the libcurl Debian 12
 * ships, and pthread_once orders it anyway).
 *
 * Ownership: handles from pt2scope_open_* are the caller's (pt2scope_close);
 * every char * this returns is the caller's (pt2scope_free). Packages are
 * immutable once opened, so one handle may be read by many threads at once.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "pt2_remote.h"
#include "pt2scope.h"

/* A request document: a few options, bounded like any outside-fed text. */
#define ABI_TARGETS_MAX 64
#define ABI_RUNTIMES_MAX 16
static const struct pt2_json_limits abi_request_limits = {1u << 20, 64, 100000, 64u * 1024u};

struct abi_request {
    cJSON *doc; /* owns the strings below */
    const char *targets[ABI_TARGETS_MAX];
    size_t n_targets;
    const char *runtimes[ABI_RUNTIMES_MAX]; /* runtime specs (pt2_runtime_parse) */
    size_t n_runtimes;
    const char *sysroot, *libtorch;
    int driver;           /* cuDriverGetVersion() form; 0 = as probed */
    const char *platform; /* the targets' "linux/arm64"...; NULL = the default */
    const char *device;   /* NULL = every GPU; "current" = see abi_current_device */
    int node;             /* 1: add this node's entries */
    unsigned json_flags;  /* PT2_JSON_AFFINITY, and PT2_JSON_OIP for "view": "oip" */
};

/* *out = the problem document of `err` (NULL when out of memory); returns err->code. */
static int abi_fail(const struct pt2_error *err, char **out)
{
    cJSON *doc = pt2_problem_json(err->code, err->message, NULL);

    *out = doc != NULL ? cJSON_PrintUnformatted(doc) : NULL;
    cJSON_Delete(doc);
    return err->code;
}

/* *out = `doc` as text (doc is consumed); a problem document on failure. */
static int abi_answer(cJSON *doc, char **out)
{
    struct pt2_error err = {0};
    char *text = doc != NULL ? cJSON_PrintUnformatted(doc) : NULL;

    cJSON_Delete(doc);
    if (text == NULL) {
        pt2_error_set(&err, PT2_ERR_NOMEM, "out of memory rendering the answer");
        return abi_fail(&err, out);
    }
    pt2_utf8_scrub(text, strlen(text)); /* entry names need not be UTF-8 */
    *out = text;
    return PT2_OK;
}

int pt2scope_abi_version(void)
{
    return PT2SCOPE_ABI_VERSION;
}

const char *pt2scope_version(void)
{
    return PT2SCOPE_VERSION;
}

void pt2scope_free(char *text)
{
    cJSON_free(text);
}

void pt2scope_close(pt2_package *pkg)
{
    pt2_package_free(pkg);
}

static int abi_opened(int rc, const struct pt2_error *err, char **problem)
{
    if (problem != NULL)
        *problem = NULL;
    if (rc == PT2_OK)
        return PT2_OK;
    return problem != NULL ? abi_fail(err, problem) : rc;
}

static int abi_open_path(const char *path, const char *model, pt2_package **pkg, char **problem)
{
    struct pt2_open_options oo = {0};
    struct pt2_error err = {0};
    int rc;

    if (pkg == NULL)
        return PT2_ERR_INVALID;
    *pkg = NULL;
    oo.model = model;
    rc = path == NULL ? pt2_error_set(&err, PT2_ERR_INVALID, "no package path given")
                      : pt2_package_open_path(pkg, path, &oo, &err);
    return abi_opened(rc, &err, problem);
}

int pt2scope_open_path(const char *path, pt2_package **pkg, char **problem)
{
    return abi_open_path(path, NULL, pkg, problem);
}

static pthread_once_t abi_curl_once = PTHREAD_ONCE_INIT;
static int abi_curl_ok;

static void abi_curl_init(void)
{
    abi_curl_ok = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
}

static int abi_open_url(const char *url, const char *model, pt2_package **pkg, char **problem)
{
    struct pt2_remote_opts ro = {0};
    struct pt2_open_options oo = {0};
    struct pt2_error err = {0};
    pt2_remote *r = NULL;
    int rc;

    if (pkg == NULL)
        return PT2_ERR_INVALID;
    *pkg = NULL;
    pthread_once(&abi_curl_once, abi_curl_init);
    if (url == NULL)
        rc = pt2_error_set(&err, PT2_ERR_INVALID, "no package URL given");
    else if (!abi_curl_ok)
        rc = pt2_error_set(&err, PT2_ERR_INTERNAL, "cannot initialise libcurl");
    else
        rc = pt2_remote_open(&r, url, &ro, &err);
    if (rc == PT2_OK) {
        oo.display_name = pt2_remote_name(r);
        oo.model = model;
        rc = pt2_package_open_source(pkg, pt2_remote_source(r), &oo, &err);
    }
    if (rc == PT2_OK)
        pt2_package_set_source(*pkg, pt2_remote_source_json(r));
    pt2_remote_free(r);
    return abi_opened(rc, &err, problem);
}

int pt2scope_open_url(const char *url, pt2_package **pkg, char **problem)
{
    return abi_open_url(url, NULL, pkg, problem);
}

/* A byte source over the caller's buffer, for the length of one open. */
struct abi_buffer {
    const unsigned char *data;
    size_t len;
};

static int abi_buffer_read(void *ctx, uint64_t off, void *buf, size_t len, size_t *got,
                           struct pt2_error *err)
{
    const struct abi_buffer *b = ctx;

    (void)err;
    *got = 0;
    if (off >= b->len)
        return PT2_OK;
    *got = len < b->len - off ? len : (size_t)(b->len - off);
    memcpy(buf, b->data + off, *got);
    return PT2_OK;
}

static int abi_open_buffer(const void *data, size_t len, const char *name, const char *model,
                           pt2_package **pkg, char **problem)
{
    static const struct pt2_source_ops ops = {abi_buffer_read, NULL};
    struct abi_buffer b = {data, len};
    struct pt2_open_options oo = {0};
    struct pt2_error err = {0};
    pt2_source *src = NULL;
    int rc;

    if (pkg == NULL)
        return PT2_ERR_INVALID;
    *pkg = NULL;
    oo.display_name = name != NULL && name[0] != '\0' ? name : NULL;
    oo.model = model;
    if (data == NULL && len > 0)
        rc = pt2_error_set(&err, PT2_ERR_INVALID, "no package bytes given");
    else
        rc = pt2_source_new(&src, &ops, &b, len, NULL, &err);
    if (rc == PT2_OK)
        rc = pt2_package_open_source(pkg, src, &oo, &err);
    pt2_source_free(src);
    return abi_opened(rc, &err, problem);
}

int pt2scope_open_buffer(const void *data, size_t len, const char *name, pt2_package **pkg,
                         char **problem)
{
    return abi_open_buffer(data, len, name, NULL, pkg, problem);
}

int pt2scope_open_model(const char *ref, const void *data, size_t len, const char *model,
                        pt2_package **pkg, char **problem)
{
    const char *m = model != NULL && model[0] != '\0' ? model : NULL;

    if (data != NULL)
        return abi_open_buffer(data, len, ref, m, pkg, problem);
    if (ref != NULL && pt2_remote_is_url(ref))
        return abi_open_url(ref, m, pkg, problem);
    return abi_open_path(ref, m, pkg, problem);
}

static int abi_request_string(const cJSON *doc, const char *key, const char **out,
                              struct pt2_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, key);

    *out = NULL;
    if (v == NULL || cJSON_IsNull(v))
        return PT2_OK;
    if (!cJSON_IsString(v))
        return pt2_error_set(err, PT2_ERR_INVALID, "\"%s\" must be a string", key);
    *out = v->valuestring;
    return PT2_OK;
}

/* An array of strings member into v[] (at most max). */
static int abi_request_strings(const cJSON *doc, const char *key, const char **v, size_t max,
                               size_t *n, struct pt2_error *err)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(doc, key), *it;

    if (t == NULL || cJSON_IsNull(t))
        return PT2_OK;
    if (!cJSON_IsArray(t))
        return pt2_error_set(err, PT2_ERR_INVALID, "\"%s\" must be an array of strings", key);
    cJSON_ArrayForEach(it, t)
    {
        if (!cJSON_IsString(it))
            return pt2_error_set(err, PT2_ERR_INVALID, "\"%s\" must be an array of strings", key);
        if (*n == max)
            return pt2_error_set(err, PT2_ERR_TOO_LARGE, "more than %zu %s", max, key);
        v[(*n)++] = it->valuestring;
    }
    return PT2_OK;
}

static int abi_request_targets(struct abi_request *r, struct pt2_error *err)
{
    int rc =
        abi_request_strings(r->doc, "targets", r->targets, ABI_TARGETS_MAX, &r->n_targets, err);

    if (rc == PT2_OK)
        rc = abi_request_strings(r->doc, "runtimes", r->runtimes, ABI_RUNTIMES_MAX, &r->n_runtimes,
                                 err);
    if (rc == PT2_OK)
        rc = abi_request_string(r->doc, "sysroot", &r->sysroot, err);
    if (rc == PT2_OK)
        rc = abi_request_string(r->doc, "libtorch", &r->libtorch, err);
    return rc;
}

/* {"targets": [...], "runtimes": [...], "sysroot": DIR, "libtorch": PATH, "driver": "12.4",
 * "platform": "linux/arm64",
 * "device": "cuda:1" | "current", "node": bool, "view": "oip"}; NULL or "" is {}. */
static int abi_request_parse(const char *text, int node_default, struct abi_request *r,
                             struct pt2_error *err)
{
    const char *driver = NULL, *view = NULL;
    const cJSON *node;
    int rc;

    memset(r, 0, sizeof(*r));
    r->json_flags = PT2_JSON_AFFINITY; /* the bindings' documents carry `scheduling` */
    r->node = node_default;
    if (text == NULL || text[0] == '\0')
        return PT2_OK;
    rc = pt2_json_parse(text, strlen(text), &abi_request_limits, "request", &r->doc, err);
    if (rc == PT2_OK && !cJSON_IsObject(r->doc))
        rc = pt2_error_set(err, PT2_ERR_INVALID, "a request is a JSON object");
    if (rc == PT2_OK)
        rc = abi_request_targets(r, err);
    if (rc == PT2_OK)
        rc = abi_request_string(r->doc, "driver", &driver, err);
    if (rc == PT2_OK && driver != NULL)
        rc = pt2_driver_version_parse(driver, &r->driver, err);
    if (rc == PT2_OK)
        rc = abi_request_string(r->doc, "platform", &r->platform, err);
    if (rc == PT2_OK)
        rc = abi_request_string(r->doc, "device", &r->device, err);
    if (rc == PT2_OK)
        rc = abi_request_string(r->doc, "view", &view, err);
    if (rc == PT2_OK && view != NULL) {
        if (strcmp(view, "oip") == 0)
            r->json_flags |= PT2_JSON_OIP;
        else
            rc = pt2_error_set(err, PT2_ERR_INVALID, "unknown view '%s' (only \"oip\")", view);
    }
    node = rc == PT2_OK ? cJSON_GetObjectItemCaseSensitive(r->doc, "node") : NULL;
    if (node != NULL && !cJSON_IsNull(node)) {
        if (cJSON_IsBool(node))
            r->node = cJSON_IsTrue(node);
        else
            rc = pt2_error_set(err, PT2_ERR_INVALID, "\"node\" must be true or false");
    }
    return rc;
}

/*
 * "current": the device of the calling thread's CUDA context when it has
 * one, else the first visible GPU ("cuda"), else (a node without GPUs) the
 * whole node, so the answer names what the package needs that it lacks.
 */
static int abi_current_device(const pt2_node *node, char *buf, size_t len, const char **device,
                              struct pt2_error *err)
{
    int ordinal = -1, rc = pt2_cuda_current_device(NULL, &ordinal, err);

    if (rc != PT2_OK)
        return rc;
    if (ordinal >= 0) {
        snprintf(buf, len, "cuda:%d", ordinal);
        *device = buf;
    } else {
        *device = pt2_node_gpu_count(node) > 0 ? "cuda" : NULL;
    }
    return PT2_OK;
}

/* The runtimes' entries: as pt2_runtimes_build makes them (`local`: this machine when the
 * request describes none). */
static int abi_runtimes(pt2_verdicts *v, const pt2_package *pkg, const struct abi_request *r,
                        int local, struct pt2_error *err)
{
    pt2_runtime *rts[ABI_RUNTIMES_MAX + 2];
    size_t n = 0;
    int rc = pt2_runtimes_build(r->runtimes, r->n_runtimes, r->sysroot, r->libtorch, local, rts, &n,
                                NULL, err);

    for (size_t i = 0; rc == PT2_OK && i < n; i++)
        rc = pt2_verdicts_add_runtime(v, pkg, rts[i], err);
    for (size_t i = 0; i < n; i++)
        pt2_runtime_free(rts[i]);
    return rc;
}

/* Targets (with the request's driver), then the node's entries when asked, then the
 * runtimes (this machine's with `local`). */
static int abi_verdicts(const pt2_package *pkg, const struct abi_request *r, int node_driver,
                        int local, cJSON **out, struct pt2_error *err)
{
    struct pt2_node_options no = {NULL, NULL, NULL};
    pt2_verdicts *v = NULL;
    pt2_node *node = NULL;
    const char *device = r->device;
    char current[32];
    int rc = pt2_verdicts_new(&v, err);

    for (size_t i = 0; rc == PT2_OK && i < r->n_targets; i++) {
        struct pt2_device dev;

        rc = pt2_target_parse(r->targets[i], &dev, err);
        dev.driver_cuda_version = r->driver;
        if (rc == PT2_OK && r->platform != NULL)
            rc = pt2_platform_parse(r->platform, &dev, err);
        if (rc == PT2_OK)
            rc = pt2_verdicts_add_target(v, pkg, r->targets[i], &dev, err);
    }
    if (rc == PT2_OK && r->node) {
        struct pt2_error derr = {0};

        rc = pt2_node_probe(&node, &no, err);
        if (rc == PT2_OK && device != NULL && strcmp(device, "current") == 0)
            rc = abi_current_device(node, current, sizeof(current), &device, err);
        if (rc == PT2_OK) {
            rc = pt2_verdicts_add_node(v, pkg, node, device, node_driver, &derr);
            /* A device the node lacks is the request's mistake, as the daemon answers it. */
            if (rc == PT2_ERR_NOT_FOUND)
                rc = pt2_error_set(err, PT2_ERR_INVALID, "%s", derr.message);
            else if (rc != PT2_OK)
                pt2_error_copy(err, &derr);
        }
    }
    if (rc == PT2_OK)
        rc = abi_runtimes(v, pkg, r, local, err);
    if (rc == PT2_OK)
        rc = pt2_verdicts_to_json(v, out, err);
    pt2_verdicts_free(v);
    pt2_node_free(node);
    return rc;
}

/* Move every member of `from` into `to`, replacing members of the same name. */
static int abi_no_package(const pt2_package *pkg, char **out)
{
    struct pt2_error err = {0};

    pt2_error_set(&err, PT2_ERR_INVALID, "no package handle given");
    return abi_fail(&err, out);
}

int pt2scope_inspect(const pt2_package *pkg, const char *request, char **out)
{
    struct abi_request r;
    struct pt2_error err = {0};
    cJSON *verdicts = NULL;
    char *text = NULL;
    size_t len = 0;
    int rc;

    if (out == NULL)
        return PT2_ERR_INVALID;
    if (pkg == NULL)
        return abi_no_package(pkg, out);
    /* The daemon's /v1/inspect: the document (printed, no tree), then targets and this
     * node's entries. */
    rc = abi_request_parse(request, 1, &r, &err);
    if (rc == PT2_OK)
        rc = pt2_package_document_check(pkg, &err);
    if (rc == PT2_OK &&
        (r.n_targets > 0 || r.node || r.n_runtimes > 0 || r.sysroot != NULL || r.libtorch != NULL))
        rc = abi_verdicts(pkg, &r, 0, 0, &verdicts, &err);
    if (rc == PT2_OK)
        rc = pt2_package_print_json(pkg, r.json_flags, verdicts, 0, &text, &len, &err);
    cJSON_Delete(verdicts);
    cJSON_Delete(r.doc);
    if (rc != PT2_OK)
        return abi_fail(&err, out);
    pt2_utf8_scrub(text, len); /* entry names need not be UTF-8 */
    *out = text;
    return PT2_OK;
}

int pt2scope_check(const pt2_package *pkg, const char *request, char **out)
{
    struct abi_request r;
    struct pt2_error err = {0};
    cJSON *doc = NULL;
    int rc;

    if (out == NULL)
        return PT2_ERR_INVALID;
    if (pkg == NULL)
        return abi_no_package(pkg, out);
    /* The CLI's check: the targets, or without targets this node (the driver a what-if). */
    rc = abi_request_parse(request, 0, &r, &err);
    if (rc == PT2_OK) {
        r.node = r.n_targets == 0;
        /* as `pt2scope check`: without targets, this machine's runtime too */
        rc = abi_verdicts(pkg, &r, r.driver, r.n_targets == 0, &doc, &err);
    }
    cJSON_Delete(r.doc);
    if (rc != PT2_OK)
        return abi_fail(&err, out);
    return abi_answer(doc, out);
}

int pt2scope_validate(const pt2_package *pkg, const char *inputs, char **out)
{
    struct pt2_error err = {0};
    cJSON *doc = NULL, *answer = NULL;
    int rc;

    if (out == NULL)
        return PT2_ERR_INVALID;
    if (pkg == NULL)
        return abi_no_package(pkg, out);
    if (inputs == NULL)
        rc = pt2_error_set(&err, PT2_ERR_INVALID,
                           "inputs are required, e.g. {\"x\": [8, 3, 512, 512]}");
    else
        rc = pt2_json_parse(inputs, strlen(inputs), &abi_request_limits, "inputs", &doc, &err);
    if (rc == PT2_OK)
        rc = pt2_package_validate(pkg, doc, &answer, &err);
    cJSON_Delete(doc);
    if (rc != PT2_OK)
        return abi_fail(&err, out);
    return abi_answer(answer, out);
}
