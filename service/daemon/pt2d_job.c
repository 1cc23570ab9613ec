/*
 * pt2d_job.c - inspection jobs (see pt2d_job.h).
 *
 * A validation failure ("input x axis 0: expected 8, got 9") is an answer,
 * not an error: it is a 200 with {"valid": false}. Only requests the
 * library rejects as malformed become problems.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pt2d_compat.h"
#include "pt2d_etag.h"
#include "pt2d_job.h"
#include "pt2d_path.h"
#include "pt2d_problem.h"

/* Options are bounded by PT2D_MAX_INPUTS x PT2D_MAX_DIMS; this fits them all. */
#define FINGERPRINT_MAX (2u << 20)

static double job_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void job_sleep_ms(unsigned ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};

    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static int job_problem(struct pt2d_job *job, const struct pt2_error *err)
{
    return pt2d_reply_problem(job->reply, err->code, err->message, job->request_id);
}

/* {"valid": true} or {"valid": false, "errors": [message]}. */
static int job_validate_doc(const pt2_package *pkg, const cJSON *inputs, cJSON **out,
                            struct pt2_error *err)
{
    cJSON *doc = NULL, *errors;
    char *message = NULL;
    int rc;

    if (inputs == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID,
                             "inputs are required, e.g. {\"x\": [8, 3, 512, 512]}");
    rc = pt2_package_validate(pkg, inputs, &message, err);
    if (rc != PT2_OK)
        return rc;
    doc = cJSON_CreateObject();
    if (doc == NULL || cJSON_AddBoolToObject(doc, "valid", message == NULL) == NULL)
        goto nomem;
    if (message != NULL) {
        errors = cJSON_AddArrayToObject(doc, "errors");
        if (errors == NULL || !cJSON_AddItemToArray(errors, cJSON_CreateString(message)))
            goto nomem;
    }
    free(message);
    *out = doc;
    return PT2_OK;
nomem:
    free(message);
    cJSON_Delete(doc);
    return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory rendering the response");
}

/* The library's full document plus `compatibility`, one verdict per target. */
static int job_inspect_doc(const pt2_package *pkg, const struct pt2d_options *o, cJSON **out,
                           struct pt2_error *err)
{
    cJSON *doc = NULL, *compat = NULL;
    int rc;

    rc = pt2_package_to_json(pkg, o->json_flags, &doc, err);
    if (rc == PT2_OK)
        rc = pt2d_compat_build(pkg, o, &compat, err);
    if (rc != PT2_OK) {
        cJSON_Delete(doc);
        return rc;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "compatibility");
    if (!cJSON_AddItemToObject(doc, "compatibility", compat)) {
        cJSON_Delete(compat);
        cJSON_Delete(doc);
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory rendering the response");
    }
    *out = doc;
    return PT2_OK;
}

/* The endpoint's document for an opened package. */
static int job_render(const struct pt2d_job *job, const pt2_package *pkg, cJSON **out,
                      struct pt2_error *err)
{
    switch (job->route) {
    case PT2D_ROUTE_ARCH:
        return pt2_package_arch_json(pkg, job->opts->json_flags, out, err);
    case PT2D_ROUTE_METADATA:
        return pt2_package_metadata_json(pkg, job->opts->json_flags, out, err);
    case PT2D_ROUTE_VALIDATE:
        return job_validate_doc(pkg, job->opts->inputs, out, err);
    default:
        return job_inspect_doc(pkg, job->opts, out, err);
    }
}

/* Cache lookup, else open the package from `fd` (and cache it). */
static int job_package(struct pt2d_job *job, int fd, const char *name, const char *key,
                       struct pt2d_pkgref **out, struct pt2_error *err)
{
    struct pt2_open_options oo = {0};
    pt2_package *pkg = NULL;
    double t0;
    int rc;

    *out = NULL;
    if (!job->nocache && job->env->cache != NULL) {
        *out = pt2d_cache_get(job->env->cache, key);
        if (*out != NULL)
            return PT2_OK;
    }
    oo.display_name = name;
    t0 = job_now();
    rc = pt2_package_open_fd(&pkg, fd, &oo, err);
    if (rc != PT2_OK)
        return rc;
    if (job->env->metrics != NULL)
        pt2d_metrics_inspection(job->env->metrics, job_now() - t0, pt2_package_bytes_read(pkg));
    *out = pt2d_pkgref_new(pkg);
    if (*out == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    if (!job->nocache && job->env->cache != NULL)
        pt2d_cache_put(job->env->cache, key, *out);
    return PT2_OK;
}

void pt2d_job_run(struct pt2d_job *job)
{
    struct pt2_error err = {0};
    struct pt2d_path_file pf = {.fd = -1};
    struct pt2d_pkgref *ref = NULL;
    struct pt2d_buf fp;
    char key[PT2D_CACHE_KEY_MAX], hex[PT2D_SHA256_HEX_LEN];
    const char *name;
    cJSON *doc = NULL;
    int fd, rc;

    pt2d_buf_init(&fp, FINGERPRINT_MAX);
    if (job->env->delay_ms > 0)
        job_sleep_ms(job->env->delay_ms);

    if (job->upload_fd >= 0) {
        fd = job->upload_fd;
        name = job->upload_name != NULL ? job->upload_name : "upload.pt2";
        pt2d_sha256_hex(job->upload_digest, PT2D_SHA256_LEN, hex);
        snprintf(key, sizeof(key), "u:%s|%s", hex, name);
    } else {
        if (!job->opts->has_path) {
            pt2_error_set(&err, PT2_ERR_INVALID,
                          "name a package with ?path=, a JSON body {\"path\": ...} or upload it");
            goto fail;
        }
        rc = pt2d_path_open(job->env->roots, job->env->n_roots, job->opts->path, &pf, &err);
        if (rc != PT2_OK)
            goto fail;
        fd = pf.fd;
        name = pf.name;
        snprintf(key, sizeof(key), "f:%llu:%llu:%lld:%lld.%09ld|%s",
                 (unsigned long long)pf.st.st_dev, (unsigned long long)pf.st.st_ino,
                 (long long)pf.st.st_size, (long long)pf.st.st_mtim.tv_sec, pf.st.st_mtim.tv_nsec,
                 name);
    }

    rc = pt2d_options_fingerprint(job->opts, &fp);
    if (rc != PT2_OK) {
        pt2_error_set(&err, rc, "request options too large to fingerprint");
        goto fail;
    }
    pt2d_etag_make(pt2d_router_label(job->route), key, pt2d_buf_str(&fp), job->reply->etag,
                   sizeof(job->reply->etag));
    if (pt2d_etag_match(job->if_none_match, job->reply->etag)) {
        pt2d_reply_take(job->reply, 304, NULL, NULL, 0);
        goto cleanup;
    }

    rc = job_package(job, fd, name, key, &ref, &err);
    if (rc == PT2_OK)
        rc = job_render(job, pt2d_pkgref_pkg(ref), &doc, &err);
    if (rc != PT2_OK)
        goto fail;
    pt2d_reply_json(job->reply, 200, doc);
    goto cleanup;
fail:
    job_problem(job, &err);
cleanup:
    cJSON_Delete(doc);
    pt2d_pkgref_release(ref);
    if (pf.fd >= 0)
        close(pf.fd);
    pt2d_buf_free(&fp);
}
