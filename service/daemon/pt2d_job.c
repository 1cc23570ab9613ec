/*
 * pt2d_job.c - inspection jobs (see pt2d_job.h).
 *
 * A validation failure ("input x axis 0: expected 8, got 9") is an answer,
 * not an error: it is a 200 with {"valid": false}. Only requests the
 * library rejects as malformed become problems.
 */
#include <stdio.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h> /* malloc_trim */
#endif
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <nettle/base16.h>
#include <nettle/sha2.h>

#include "pt2d_node.h"
#include "pt2d_etag.h"
#include "pt2d_fmt.h"
#include "pt2d_job.h"
#include "pt2d_path.h"
#include "pt2d_problem.h"

/* Opening a package bigger than this (pt2_package_memory) ends the job with malloc_trim(). */
#define PT2D_JOB_TRIM_BYTES (4u << 20)

static double job_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Test builds: whether jobs wait at a gate (pt2d_gate.h); production builds have none. */
static int job_gated(const struct pt2d_job *job)
{
#ifdef PT2SCOPE_TEST_HOOKS
    return job->env->gate != NULL;
#else
    return 0;
#endif
}

static void job_wait_at_gate(const struct pt2d_job *job)
{
#ifdef PT2SCOPE_TEST_HOOKS
    if (job->env->gate != NULL)
        pt2d_gate_wait(job->env->gate);
#endif
}

static int job_problem(struct pt2d_job *job, const struct pt2_error *err)
{
    return pt2d_reply_problem(job->reply, err->code, err->message, job->request_id);
}

/* The library's answer: {"valid", "errors": [every violation], "warnings"}. */
static int job_validate_doc(const pt2_package *pkg, const cJSON *inputs, cJSON **out,
                            struct pt2_error *err)
{
    if (inputs == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID,
                             "inputs are required, e.g. {\"x\": [8, 3, 512, 512]}");
    return pt2_package_validate(pkg, inputs, out, err);
}

/*
 * The library's full document plus `compatibility` and `overall`: one
 * verdict per target or, with no target named and a node snapshot, one per
 * GPU of this node and one for its CPU (pt2_verdicts_add_node: the node is
 * not asked once targets are); then one per runtime. All of it decided by the
 * library (pt2_verdicts).
 */
int pt2d_job_runtimes(const struct pt2d_job_env *env, const struct pt2d_options *o,
                      pt2_runtime **owned, const pt2_runtime **use, size_t cap, size_t *n,
                      struct pt2_error *err)
{
    size_t i;

    *n = 0;
    for (i = 0; i < o->n_runtimes && *n < cap; i++) {
        int rc = pt2_runtime_parse(o->runtimes[i], &owned[i], err);
        if (rc != PT2_OK) {
            pt2d_job_runtimes_free(owned, i);
            *n = 0;
            return rc;
        }
        use[(*n)++] = owned[i];
    }
    for (i = 0; o->n_runtimes == 0 && env->runtimes != NULL && i < env->n_runtimes && *n < cap; i++)
        use[(*n)++] = env->runtimes[i];
    return PT2_OK;
}

void pt2d_job_runtimes_free(pt2_runtime **owned, size_t n)
{
    for (size_t i = 0; i < n; i++)
        pt2_runtime_free(owned[i]);
}

/*
 * The verdicts against what the request and this node name ({"compatibility",
 * "overall"}, appended to the inspection document), or NULL in *out when
 * there is nothing to check against (no node probe: unit tests).
 */
static int job_inspect_verdicts(const pt2_package *pkg, const struct pt2d_options *o,
                                const struct pt2d_node_snap *snap, const struct pt2d_job_env *env,
                                cJSON **out, struct pt2_error *err)
{
    pt2_verdicts *v = NULL;
    pt2_runtime *owned[PT2D_MAX_RUNTIMES];
    const pt2_runtime *rts[PT2D_JOB_RUNTIMES_MAX];
    size_t i, nrts = 0;
    int rc;

    *out = NULL;
    rc = pt2d_job_runtimes(env, o, owned, rts, sizeof(rts) / sizeof(rts[0]), &nrts, err);
    if (rc != PT2_OK || (o->n_targets == 0 && snap == NULL && nrts == 0)) {
        pt2d_job_runtimes_free(owned, o->n_runtimes > 0 ? nrts : 0);
        return rc;
    }
    rc = pt2_verdicts_new(&v, err);
    pt2_verdicts_set_strict(v, o->strict);
    for (i = 0; rc == PT2_OK && i < o->n_targets; i++)
        rc = pt2_verdicts_add_target(v, pkg, o->targets[i].text, &o->targets[i].dev, err);
    if (rc == PT2_OK && snap != NULL) {
        struct pt2_error derr = {0};

        rc = pt2_verdicts_add_node(v, pkg, snap->probe, o->has_device ? o->device : NULL, 0, &derr);
        /* ?device= names a GPU this node lacks: the request's mistake, not a missing package. */
        if (rc == PT2_ERR_NOT_FOUND)
            rc = pt2_error_set(err, PT2_ERR_INVALID, "%s", derr.message);
        else if (rc != PT2_OK)
            pt2_error_copy(err, &derr);
    }
    for (i = 0; rc == PT2_OK && i < nrts; i++)
        rc = pt2_verdicts_add_runtime(v, pkg, rts[i], err);
    pt2d_job_runtimes_free(owned, o->n_runtimes > 0 ? nrts : 0);
    if (rc == PT2_OK)
        rc = pt2_verdicts_to_json(v, out, err);
    pt2_verdicts_free(v);
    if (rc != PT2_OK) {
        cJSON_Delete(*out);
        *out = NULL;
    }
    return rc;
}

/* GET /v1/inspect: the document printed without its tree, the verdicts after it. */
static int job_inspect_text(const pt2_package *pkg, const struct pt2d_options *o,
                            const struct pt2d_node_snap *snap, const struct pt2d_job_env *env,
                            char **text, size_t *len, struct pt2_error *err)
{
    cJSON *answer = NULL;
    int rc = pt2_package_document_check(pkg, err); /* its error before the verdicts' */

    if (rc == PT2_OK)
        rc = job_inspect_verdicts(pkg, o, snap, env, &answer, err);
    if (rc == PT2_OK) /* one spare byte: the reply's newline */
        rc = pt2_package_print_json(pkg, o->json_flags, answer, 1, text, len, err);
    cJSON_Delete(answer);
    return rc;
}

/* What one job works from, once the request's body is understood. */
struct job_input {
    const struct pt2d_options *opts; /* the request's, or `own` */
    struct pt2d_options own;         /* query arguments plus a JSON body's members */
    pt2_k8s_nodes *nodes;            /* POST /v1/compatibility */
    const struct pt2d_node_snap *snap;
};

/*
 * POST /v1/compatibility: the nodes (and, for a JSON body, the path and
 * other options) from the body. Query arguments were parsed on the HTTP
 * thread; a JSON body adds to a copy of them.
 */
static int job_has_upload(const struct pt2d_job *job)
{
    return job->upload != NULL;
}

static int job_compat_input(const struct pt2d_job *job, struct job_input *in, struct pt2_error *err)
{
    const cJSON *nodes;
    cJSON *doc;
    int rc;

    if (job->body == NULL) {
        if (!job_has_upload(job))
            return pt2_error_set(err, PT2_ERR_INVALID,
                                 "name a package with a JSON body {\"path\": ..., \"nodes\": ...} "
                                 "or upload it as multipart/form-data with parts 'file' and "
                                 "'nodes'");
        if (job->nodes_text == NULL)
            return pt2_error_set(err, PT2_ERR_INVALID,
                                 "multipart/form-data body has no 'nodes' field");
        return pt2_k8s_nodes_parse_text(&in->nodes, job->nodes_text, job->nodes_len, err);
    }
    /* A nodes body is checked against the nodes document's limits before it is parsed. */
    rc = pt2d_options_parse_json(job->body, job->body_len, &pt2_k8s_json_limits, "request body",
                                 &doc, err);
    if (rc != PT2_OK)
        return rc;
    in->own = *job->opts;
    in->own.inputs = NULL; /* the copy must not share the request's document */
    in->opts = &in->own;
    rc = pt2d_options_apply_json(&in->own, doc, err);
    nodes = cJSON_GetObjectItemCaseSensitive(doc, "nodes");
    if (rc == PT2_OK && nodes == NULL)
        rc = pt2_error_set(err, PT2_ERR_INVALID,
                           "name the nodes with a \"nodes\" member (a NodeList or an array of "
                           "Node objects)");
    if (rc == PT2_OK)
        rc = pt2_k8s_nodes_parse(&in->nodes, nodes, err);
    cJSON_Delete(doc);
    if (rc == PT2_OK && !in->own.has_path && !in->own.has_url)
        rc = pt2_error_set(err, PT2_ERR_INVALID,
                           "name a package with a JSON body {\"path\": ..., \"nodes\": ...} or "
                           "upload it as multipart/form-data with parts 'file' and 'nodes'");
    return rc;
}

/* The endpoint's document for an opened package: a tree in *out, or (inspect) text. */
static int job_render(const struct pt2d_job *job, const struct job_input *in,
                      const pt2_package *pkg, cJSON **out, char **text, size_t *len,
                      struct pt2_error *err)
{
    switch (job->route) {
    case PT2D_ROUTE_ARCH:
        return pt2_package_arch_json(pkg, in->opts->json_flags, out, err);
    case PT2D_ROUTE_METADATA:
        return pt2_package_metadata_json(pkg, in->opts->json_flags, out, err);
    case PT2D_ROUTE_VALIDATE:
        return job_validate_doc(pkg, in->opts->inputs, out, err);
    case PT2D_ROUTE_COMPATIBILITY:
        return pt2_k8s_compat_json(pkg, in->nodes, out, err);
    default:
        return job_inspect_text(pkg, in->opts, in->snap, job->env, text, len, err);
    }
}

/*
 * The cache key of a file, "f:<dev>:<ino>:<size>:<mtime s>.<ns>:<ctime s>.<ns>|<name>",
 * by hand: snprintf here was ~1.5 % of a cached request. Same bytes as
 * snprintf("f:%llu:%llu:%lld:%lld.%09ld:%lld.%09ld|%s"). The ctime is there
 * because a same-size rewrite in place that restores the mtime (rsync
 * --inplace -t, cp -p) changes nothing else; no one can set the ctime back.
 */
void pt2d_job_file_key(char *key, size_t cap, const struct stat *st, const char *name)
{
    size_t n = 0, len = strlen(name);

    /* 7 numbers of at most 21 bytes, 9 separators, the name, the NUL; nsec as a kernel gives. */
    if (cap < 7 * 21 + 9 + len + 1 || st->st_mtim.tv_nsec < 0 ||
        st->st_mtim.tv_nsec >= 1000000000L || st->st_ctim.tv_nsec < 0 ||
        st->st_ctim.tv_nsec >= 1000000000L) {
        snprintf(key, cap, "f:%llu:%llu:%lld:%lld.%09ld:%lld.%09ld|%s",
                 (unsigned long long)st->st_dev, (unsigned long long)st->st_ino,
                 (long long)st->st_size, (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec,
                 (long long)st->st_ctim.tv_sec, st->st_ctim.tv_nsec, name);
        return;
    }
    key[n++] = 'f';
    key[n++] = ':';
    n += pt2d_fmt_uint(key + n, (unsigned long long)st->st_dev, 1);
    key[n++] = ':';
    n += pt2d_fmt_uint(key + n, (unsigned long long)st->st_ino, 1);
    key[n++] = ':';
    n += pt2d_fmt_int(key + n, (long long)st->st_size);
    key[n++] = ':';
    n += pt2d_fmt_int(key + n, (long long)st->st_mtim.tv_sec);
    key[n++] = '.';
    n += pt2d_fmt_uint(key + n, (unsigned long long)st->st_mtim.tv_nsec, 9);
    key[n++] = ':';
    n += pt2d_fmt_int(key + n, (long long)st->st_ctim.tv_sec);
    key[n++] = '.';
    n += pt2d_fmt_uint(key + n, (unsigned long long)st->st_ctim.tv_nsec, 9);
    key[n++] = '|';
    memcpy(key + n, name, len + 1);
}

/* Everything besides the route and the content that shapes an answer, into scratch. */
static int job_fingerprint(const struct pt2d_options *opts, const struct pt2d_node_snap *snap,
                           const struct pt2d_job_env *env, struct pt2d_buf *scratch)
{
    int rc;

    pt2d_buf_reset(scratch);
    rc = pt2d_options_fingerprint(opts, scratch);
    /* the defaults shape an answer only where the request names no runtime */
    if (rc == PT2_OK && opts->n_runtimes == 0 && env != NULL && env->runtime_labels != NULL) {
        pt2d_buf_puts(scratch, ";defaults=");
        rc = pt2d_buf_puts(scratch, env->runtime_labels);
    }
    if (rc == PT2_OK && snap != NULL && opts->n_targets == 0) { /* targets: no node verdicts */
        pt2d_buf_puts(scratch, ";node=");
        rc = pt2d_buf_puts(scratch, snap->fingerprint);
    }
    return rc;
}

/* "<label>\n<length of key>:<key>\n<fingerprint>" into q (snprintf's bytes, by hand: this
 * runs on every cached hit); its length, or 0 where it does not fit in cap. */
static size_t job_question(char *q, size_t cap, const char *label, const char *key,
                           const char *fingerprint)
{
    size_t nl = strlen(label), nk = strlen(key), nf = strlen(fingerprint), n;

    if (nl + nk + nf + PT2D_FMT_INT_MAX + 4 > cap)
        return 0;
    memcpy(q, label, nl);
    n = nl;
    q[n++] = '\n';
    n += pt2d_fmt_uint(q + n, nk, 1);
    q[n++] = ':';
    memcpy(q + n, key, nk);
    n += nk;
    q[n++] = '\n';
    memcpy(q + n, fingerprint, nf + 1);
    return n + nf;
}

/*
 * The ETag, memoised on the package's pkgref when one is known (ref may be
 * NULL): the question is the ETag's whole input, the key's length keeping
 * its parts apart.
 */
static int job_etag_memo(enum pt2d_route route, const char *key, const struct pt2d_options *opts,
                         const struct pt2d_node_snap *snap, const struct pt2d_job_env *env,
                         struct pt2d_pkgref *ref, struct pt2d_buf *scratch, char *etag, size_t cap)
{
    char question[PT2D_MEMO_QUESTION_MAX];
    const char *label = pt2d_router_label(route);
    int rc = job_fingerprint(opts, snap, env, scratch), memo;

    if (rc != PT2_OK)
        return rc;
    memo = ref != NULL &&
           job_question(question, sizeof(question), label, key, pt2d_buf_str(scratch)) > 0;
    if (memo && pt2d_pkgref_etag_get(ref, question, etag, cap))
        return PT2_OK;
    pt2d_etag_make(label, key, pt2d_buf_str(scratch), etag, cap);
    if (memo)
        pt2d_pkgref_etag_put(ref, question, etag);
    return PT2_OK;
}

int pt2d_job_etag(enum pt2d_route route, const char *key, const struct pt2d_options *opts,
                  const struct pt2d_node_snap *snap, const struct pt2d_job_env *env,
                  struct pt2d_buf *scratch, char *etag, size_t cap)
{
    return job_etag_memo(route, key, opts, snap, env, NULL, scratch, etag, cap);
}

/* Open the package behind `src`, timed and counted; *out is the caller's. */
static int job_open(const struct pt2d_job_env *env, pt2_source *src, const char *name,
                    const char *model, pt2_package **out, struct pt2_error *err)
{
    struct pt2_open_options oo = {0};
    double t0 = job_now();
    int rc;

    oo.display_name = name;
    oo.model = model != NULL && model[0] != '\0' ? model : NULL;
    rc = pt2_package_open_source(out, src, &oo, err);
    if (rc == PT2_OK && env->metrics != NULL)
        pt2d_metrics_inspection(env->metrics, job_now() - t0, pt2_package_bytes_read(*out));
    return rc;
}

/* Wrap and (unless nocache) cache an opened package; pkg is consumed. */
static int job_keep(const struct pt2d_job_env *env, int nocache, pt2_package *pkg, const char *key,
                    struct pt2d_pkgref **out, struct pt2_error *err)
{
    *out = pt2d_pkgref_new(pkg);
    if (*out == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    if (!nocache && env->cache != NULL)
        pt2d_cache_put(env->cache, key, *out);
    return PT2_OK;
}

/*
 * What a job reads: a file under a model root, an upload, or a remote
 * object. `key` identifies the content when it can be known before reading
 * (a file's identity, a remote object's URL and validator); otherwise
 * (uploads, remote objects without a validator) key_after is set and the
 * key is made from the digest of what the inspection read (pt2_source.h):
 * the receiving thread never hashes an upload's gigabytes of weights, and
 * two bodies share an answer only when every byte the answer depends on is
 * the same.
 */
struct job_src {
    struct pt2d_path_file pf;
    pt2_remote *remote;
    pt2_source *src; /* owned unless it is the remote's or the upload's */
    const pt2_upload *upload;
    const char *name;
    char key[PT2D_CACHE_KEY_MAX];
    int key_after;
    uint64_t opened_bytes; /* pt2_package_memory of a package this job opened, else 0 */
    const char *model;     /* ?model=: only that model is read (""/NULL = all) */
};

/* A package read for one model is another package: its key says which. */
static void job_key_model(struct job_src *js)
{
    size_t n = strlen(js->key);

    if (js->model != NULL && js->model[0] != '\0')
        snprintf(js->key + n, sizeof(js->key) - n, "#model=%s", js->model);
}

static void job_src_free(struct job_src *js)
{
    if (js->remote == NULL && js->upload == NULL)
        pt2_source_free(js->src);
    pt2_remote_free(js->remote);
    if (js->pf.fd >= 0)
        close(js->pf.fd);
}

/* "<prefix>:<SHA-256 hex of the parts>|<name>" */
static void job_hash_key(char *key, size_t cap, const char *prefix, const uint8_t digest[32],
                         uint64_t size, const char *name)
{
    char hex[BASE16_ENCODE_LENGTH(SHA256_DIGEST_SIZE) + 1];

    base16_encode_update(hex, SHA256_DIGEST_SIZE, digest);
    hex[BASE16_ENCODE_LENGTH(SHA256_DIGEST_SIZE)] = '\0';
    snprintf(key, cap, "%s:%s:%llu|%s", prefix, hex, (unsigned long long)size, name);
}

static int job_remote(const struct pt2d_job *job, const char *url, struct job_src *js,
                      struct pt2_error *err)
{
    const char *validator;
    int rc;

    if (job->env->remote == NULL)
        return pt2_error_set(err, PT2_ERR_REMOTE_REFUSED,
                             "remote packages are off here: start pt2scoped with --remote-allow "
                             "PREFIX to allow URLs under PREFIX");
    rc = pt2_remote_open(&js->remote, url, job->env->remote, err);
    if (job->env->metrics != NULL && js->remote != NULL)
        pt2d_metrics_remote(job->env->metrics, pt2_remote_requests(js->remote),
                            pt2_remote_bytes(js->remote));
    if (rc != PT2_OK)
        return rc;
    js->src = pt2_remote_source(js->remote);
    js->name = pt2_remote_name(js->remote);
    validator = pt2_remote_validator(js->remote);
    /* Only a strong ETag promises the same bytes; a weak one or a Last-Modified (one-second
     * resolution) does not, so those objects are keyed by what their inspection reads. */
    if (validator[0] != '"') {
        js->key_after = 1;
        return PT2_OK;
    }
    pt2d_job_remote_key(js->key, sizeof(js->key), url, validator, pt2_remote_size(js->remote),
                        js->name);
    return PT2_OK;
}

/* `stat_only`: a path's identity alone (a cache lookup on the HTTP thread reads nothing). */
static int job_resolve(const struct pt2d_job *job, const struct pt2d_options *o, int stat_only,
                       struct job_src *js, struct pt2_error *err)
{
    int rc;

    rc = pt2d_options_check_package(o, job_has_upload(job), 1, err);
    if (rc != PT2_OK)
        return rc;
    js->model = o->model;
    if (job_has_upload(job)) {
        js->upload = job->upload;
        rc = pt2_upload_source(job->upload, &js->src, err);
        js->name = job->upload_name != NULL ? job->upload_name : "upload.pt2";
        js->key_after = 1;
        return rc;
    }
    if (o->has_url) {
        rc = job_remote(job, o->url, js, err);
        if (rc == PT2_OK && !js->key_after)
            job_key_model(js);
        return rc;
    }
    rc = (stat_only ? pt2d_path_stat_at : pt2d_path_open_at)(
        job->env->roots, job->env->root_fds, job->env->n_roots, o->path, &js->pf, err);
    if (rc != PT2_OK)
        return rc;
    js->name = js->pf.name;
    pt2d_job_file_key(js->key, sizeof(js->key), &js->pf.st, js->name);
    job_key_model(js);
    return PT2_OK;
}

/*
 * A package this job opened from js: remember its size (for the trim at the
 * end), say where a remote one came from, and keep it (cached unless nocache).
 */
static int job_keep_opened(const struct pt2d_job_env *env, int nocache, struct job_src *js,
                           pt2_package *pkg, struct pt2d_pkgref **ref, struct pt2_error *err)
{
    js->opened_bytes = pt2_package_memory(pkg);
    if (js->remote != NULL)
        pt2_package_set_source(pkg, pt2_remote_source_json(js->remote));
    else if (js->upload != NULL)
        pt2_package_set_source(pkg, pt2_upload_source_json(js->upload));
    return job_keep(env, nocache, pkg, js->key, ref, err);
}

/*
 * An upload's answer also depends on how it was kept (package.source: streamed or
 * not, and why): that goes into the digest too.
 */
static void job_upload_digest(const pt2_upload *u, uint8_t d[SHA256_DIGEST_SIZE])
{
    struct sha256_ctx sha;
    cJSON *j = pt2_upload_source_json(u);
    char *s = j != NULL ? cJSON_PrintUnformatted(j) : NULL;

    sha256_init(&sha);
    sha256_update(&sha, SHA256_DIGEST_SIZE, d);
    if (s != NULL)
        sha256_update(&sha, strlen(s), (const uint8_t *)s);
    sha256_digest(&sha, SHA256_DIGEST_SIZE, d);
    cJSON_free(s);
    cJSON_Delete(j);
}

/* Open what js names (never cached: its key comes from what was read) and key it. */
static int job_open_unkeyed(const struct pt2d_job *job, struct job_src *js,
                            struct pt2d_pkgref **ref, struct pt2_error *err)
{
    pt2_package *pkg = NULL;
    uint8_t d[SHA256_DIGEST_SIZE];
    int rc;

    pt2_source_record_digest(js->src);
    rc = job_open(job->env, js->src, js->name, js->model, &pkg, err);
    if (rc != PT2_OK)
        return rc;
    pt2_source_digest(js->src, d);
    if (js->upload != NULL)
        job_upload_digest(js->upload, d);
    job_hash_key(js->key, sizeof(js->key), js->remote != NULL ? "rd" : "u", d,
                 pt2_source_size(js->src), js->name);
    job_key_model(js);
    return job_keep_opened(job->env, 1, js, pkg, ref, err);
}

/* Cache lookup by js->key, else open (a file's source made only then) and cache. */
static int job_open_keyed(const struct pt2d_job_env *env, int nocache, struct job_src *js,
                          struct pt2d_pkgref **ref, struct pt2_error *err)
{
    pt2_package *pkg = NULL;
    int rc;

    if (!nocache && env->cache != NULL) {
        *ref = pt2d_cache_get(env->cache, js->key);
        if (*ref != NULL)
            return PT2_OK;
    }
    if (js->src == NULL && (rc = pt2_source_new_fd(&js->src, js->pf.fd, NULL, err)) != PT2_OK)
        return rc;
    rc = job_open(env, js->src, js->name, js->model, &pkg, err);
    if (rc != PT2_OK)
        return rc;
    return job_keep_opened(env, nocache, js, pkg, ref, err);
}

/* Cache lookup, else open the package from `fd` (and cache it): a path job's own steps. */
int pt2d_job_package(const struct pt2d_job_env *env, int nocache, int fd, const char *name,
                     const char *key, struct pt2d_pkgref **out, struct pt2_error *err)
{
    struct job_src js = {.pf = {.fd = fd}, .name = name}; /* fd stays the caller's */
    int rc;

    *out = NULL;
    snprintf(js.key, sizeof(js.key), "%s", key);
    rc = job_open_keyed(env, nocache, &js, out, err);
    pt2_source_free(js.src);
    return rc;
}

static void job_remote_done(const struct pt2d_job *job, const struct job_src *js, uint64_t req0,
                            uint64_t bytes0)
{
    if (js->remote != NULL && job->env->metrics != NULL)
        pt2d_metrics_remote(job->env->metrics, pt2_remote_requests(js->remote) - req0,
                            pt2_remote_bytes(js->remote) - bytes0);
}

/* The ETag of this job's answer, and 304 when the client has it: 1 when answered. */
static int job_etag_304(struct pt2d_job *job, const struct job_input *in, const char *key,
                        struct pt2d_pkgref *ref, struct pt2d_buf *fp, struct pt2_error *err)
{
    int rc;

    if (job->route == PT2D_ROUTE_COMPATIBILITY)
        return 0;
    rc = job_etag_memo(job->route, key, in->opts, in->snap, job->env, ref, fp, job->reply->etag,
                       sizeof(job->reply->etag));
    if (rc != PT2_OK)
        return -pt2_error_set(err, rc, "request options too large to fingerprint");
    if (pt2d_etag_match(job->if_none_match, job->reply->etag)) {
        pt2d_reply_take(job->reply, 304, NULL, NULL, 0);
        return 1;
    }
    return 0;
}

/*
 * The whole job. With `cached_only` it runs on the HTTP thread and stops,
 * returning 0 with nothing answered, wherever more than memory would be
 * needed: no package in the cache, no body memoised for this ETag, or any
 * error (the worker that runs the job next reports it). Returns 1 when
 * job->reply holds the answer.
 */
static int job_run(struct pt2d_job *job, int cached_only)
{
    struct pt2_error err = {0};
    struct job_src js = {.pf = {.fd = -1}};
    struct pt2d_pkgref *ref = NULL;
    struct job_input in;
    struct pt2d_buf fp;
    uint64_t req0 = 0, bytes0 = 0;
    cJSON *doc = NULL;
    char *body, *text = NULL;
    size_t body_len = 0, text_len = 0;
    int rc, answered = 1;

    if (cached_only &&
        (job_has_upload(job) || job->route == PT2D_ROUTE_COMPATIBILITY || job->opts->has_url ||
         job->nocache || job->env->cache == NULL || job_gated(job)))
        return 0;
    memset(&in, 0, sizeof(in));
    in.opts = job->opts;
    pt2d_buf_init(&fp, PT2D_JOB_FINGERPRINT_MAX);
    job_wait_at_gate(job);
    if (job->route == PT2D_ROUTE_COMPATIBILITY && (rc = job_compat_input(job, &in, &err)) != PT2_OK)
        goto fail;
    if ((rc = job_resolve(job, in.opts, cached_only, &js, &err)) != PT2_OK)
        goto fail;
    if (js.remote != NULL) {
        req0 = pt2_remote_requests(js.remote);
        bytes0 = pt2_remote_bytes(js.remote);
    }

    /* One snapshot for the whole job: the verdicts and the ETag agree. */
    if (job->route == PT2D_ROUTE_INSPECT && job->env->node != NULL)
        in.snap = pt2d_node_acquire(job->env->node);
    if (js.key_after) {
        rc = job_open_unkeyed(job, &js, &ref, &err);
        if (rc != PT2_OK)
            goto fail;
    } else if (cached_only) {
        ref = pt2d_cache_peek(job->env->cache, js.key); /* its ETag memo spares the hash */
    }
    rc = job_etag_304(job, &in, js.key, ref, &fp, &err);
    if (rc < 0)
        goto fail;
    if (rc > 0)
        goto cleanup;

    if (cached_only) {
        body = ref != NULL ? pt2d_pkgref_body_get(ref, job->reply->etag, &body_len) : NULL;
        if (body == NULL) {
            answered = 0;
            goto cleanup;
        }
        pt2d_cache_count_hit(job->env->cache);
        pt2d_reply_take_shared(job->reply, 200, PT2D_JSON_CTYPE, body, body_len,
                               pt2d_pkgref_body_release);
        goto cleanup;
    }
    if (ref == NULL && (rc = job_open_keyed(job->env, job->nocache, &js, &ref, &err)) != PT2_OK)
        goto fail;
    /* Same strong ETag, same bytes: re-send what this package last rendered for it. */
    body = pt2d_pkgref_body_get(ref, job->reply->etag, &body_len);
    if (body != NULL) {
        pt2d_reply_take_shared(job->reply, 200, PT2D_JSON_CTYPE, body, body_len,
                               pt2d_pkgref_body_release);
        goto cleanup;
    }
    rc = job_render(job, &in, pt2d_pkgref_pkg(ref), &doc, &text, &text_len, &err);
    if (rc != PT2_OK)
        goto fail;
    if (text != NULL)
        pt2d_reply_json_text(job->reply, 200, text, text_len);
    else if (pt2d_reply_json(job->reply, 200, doc) != PT2_OK)
        goto cleanup;
    if (job->reply->status == 200)
        pt2d_pkgref_body_put(ref, job->reply->etag, job->reply->body, job->reply->len);
    goto cleanup;
fail:
    if (cached_only)
        answered = 0;
    else
        job_problem(job, &err);
cleanup:
    job_remote_done(job, &js, req0, bytes0);
    cJSON_Delete(doc);
    pt2d_pkgref_release(ref);
    pt2d_node_release(in.snap);
    pt2_k8s_nodes_free(in.nodes);
    pt2d_options_free(&in.own);
    job_src_free(&js);
    pt2d_buf_free(&fp);
#ifdef __GLIBC__
    /* A package of tens of thousands of kernels costs tens of MB to open; glibc keeps freed
     * memory in this worker's arena, so give it back or the RSS stays at the peak. */
    if (js.opened_bytes > PT2D_JOB_TRIM_BYTES)
        malloc_trim(0);
#endif
    return answered;
}

void pt2d_job_run(struct pt2d_job *job)
{
    job_run(job, 0);
}

int pt2d_job_run_cached(struct pt2d_job *job)
{
    return job_run(job, 1);
}

void pt2d_job_remote_key(char *key, size_t cap, const char *url, const char *validator,
                         uint64_t size, const char *name)
{
    struct sha256_ctx sha;
    uint8_t d[SHA256_DIGEST_SIZE];

    /* The URL as given (a query string can name another object) with its validator, hashed:
     * a fixed-size key that keeps no credential in memory. */
    sha256_init(&sha);
    sha256_update(&sha, strlen(url) + 1, (const uint8_t *)url);
    sha256_update(&sha, strlen(validator) + 1, (const uint8_t *)validator);
    sha256_digest(&sha, sizeof(d), d);
    job_hash_key(key, cap, "r", d, size, name);
}
