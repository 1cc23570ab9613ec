/*
 * pt2d_bucket.c - a page of a bucket for GET /v1/packages?url= (pt2d_bucket.h).
 *
 * Design: three passes over one listing page. First each object is looked
 * up in the cache by the key its listing ETag gives; then the misses are
 * read on a pt2_remote_multi pool (each thread opens, inspects and caches
 * its object, keeping the reference or the problem in the object's slot);
 * then the items are made in listing order on this thread. Memory is the
 * page's: at most `limit` objects and references.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_remote.h"
#include "pt2_remote_list.h"
#include "pt2_remote_multi.h"
#include "pt2d_bucket.h"
#include "pt2d_cache.h"
#include "pt2d_etag.h"
#include "pt2d_packages.h"

struct bucket_obj {
    const struct pt2_remote_object *o;
    char name[256];               /* as pt2_remote_name() gives it (PT2_REMOTE_NAME_MAX) */
    char key[PT2D_CACHE_KEY_MAX]; /* "" until known: a weak or missing listing ETag */
    struct pt2d_pkgref *ref;
    struct pt2_error perr; /* why it did not open */
    uint64_t requests, bytes;
};

struct bucket_run {
    const struct pt2d_job_env *env;
    const struct pt2d_options *o;
    struct bucket_obj *v;
};

/* The last segment of the key, as pt2_remote_name() names an s3:// object. */
static void bucket_name(const char *key, char *out, size_t cap)
{
    const char *slash = strrchr(key, '/');

    snprintf(out, cap, "%s", slash != NULL ? slash + 1 : key);
    pt2_utf8_scrub(out, strlen(out));
}

/* Read one object (a pool thread): open, inspect, key by its validator, cache. */
static void bucket_read(void *ctx, size_t i, const struct pt2_remote_opts *ro)
{
    struct bucket_run *run = ctx;
    struct bucket_obj *b = &run->v[i];
    struct pt2_open_options oo = {0};
    pt2_package *pkg = NULL;
    pt2_remote *r = NULL;
    const char *validator;

    if (b->ref != NULL)
        return; /* answered from the cache */
    if (pt2_remote_open(&r, b->o->url, ro, &b->perr) == PT2_OK) {
        oo.display_name = pt2_remote_name(r);
        if (pt2_package_open_source(&pkg, pt2_remote_source(r), &oo, &b->perr) == PT2_OK)
            pt2_package_set_source(pkg, pt2_remote_source_json(r));
        validator = pt2_remote_validator(r);
        if (validator[0] == '"')
            pt2d_job_remote_key(b->key, sizeof(b->key), b->o->url, validator, pt2_remote_size(r),
                                b->name);
        else
            b->key[0] = '\0'; /* no strong validator: nothing to key it by */
    }
    if (r != NULL) {
        b->requests = pt2_remote_requests(r);
        b->bytes = pt2_remote_bytes(r);
    }
    pt2_remote_free(r);
    if (pkg != NULL && (b->ref = pt2d_pkgref_new(pkg)) == NULL)
        pt2_error_set(&b->perr, PT2_ERR_NOMEM, "out of memory");
    if (b->ref != NULL && b->key[0] != '\0' && !run->o->nocache && run->env->cache != NULL)
        pt2d_cache_put(run->env->cache, b->key, b->ref);
}

/* The cache pass: an object with a strong listing ETag may need no request. */
static size_t bucket_lookup(const struct bucket_run *run, size_t n)
{
    size_t misses = 0;

    for (size_t i = 0; i < n; i++) {
        struct bucket_obj *b = &run->v[i];

        bucket_name(b->o->key, b->name, sizeof(b->name));
        if (b->o->etag[0] == '"')
            pt2d_job_remote_key(b->key, sizeof(b->key), b->o->url, b->o->etag, b->o->size, b->name);
        if (b->key[0] != '\0' && !run->o->nocache && run->env->cache != NULL)
            b->ref = pt2d_cache_get(run->env->cache, b->key);
        misses += b->ref == NULL;
    }
    return misses;
}

/* One item: the library's, plus the ETag /v1/inspect?url= answers with. */
static int bucket_item(const struct bucket_run *run, struct pt2d_packages_judge *jd,
                       const struct bucket_obj *b, cJSON **out, struct pt2_error *err)
{
    struct pt2_listing_file file = pt2_remote_object_file(b->o, b->o->url);
    char etag[PT2D_ETAG_MAX] = "";
    int rc;

    rc = pt2_listing_item(&file, b->ref != NULL ? pt2d_pkgref_pkg(b->ref) : NULL, &b->perr,
                          jd->targets, jd->nt, out, err);
    if (rc != PT2_OK || b->ref == NULL || b->key[0] == '\0' ||
        cJSON_GetObjectItemCaseSensitive(*out, "type") != NULL)
        return rc;
    if (pt2d_job_etag(PT2D_ROUTE_INSPECT, b->key, run->o, jd->snap, run->env, &jd->scratch, etag,
                      sizeof(etag)) != PT2_OK ||
        cJSON_AddStringToObject(*out, "etag", etag) == NULL) {
        cJSON_Delete(*out);
        *out = NULL;
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory listing packages");
    }
    return PT2_OK;
}

/* The page's items, in listing order; misses read on the pool first. */
static int bucket_items(struct bucket_run *run, const struct pt2_remote_page *pg, cJSON *items,
                        struct pt2_error *err)
{
    struct pt2d_packages_judge jd;
    pt2_remote_multi *pool = NULL;
    int rc = PT2_OK;
    size_t i;

    for (i = 0; i < pg->n; i++)
        run->v[i].o = &pg->v[i];
    if (bucket_lookup(run, pg->n) > 0) {
        rc = pt2_remote_multi_new(&pool, PT2D_BUCKET_CONCURRENCY, err);
        if (rc == PT2_OK)
            rc = pt2_remote_multi_run(pool, pg->n, run->env->remote, bucket_read, run, err);
        pt2_remote_multi_free(pool);
    }
    for (i = 0; i < pg->n && run->env->metrics != NULL; i++)
        pt2d_metrics_remote(run->env->metrics, run->v[i].requests, run->v[i].bytes);
    if (rc == PT2_OK)
        rc = pt2d_packages_judge_begin(run->env, run->o, &jd, err);
    else
        return rc;
    for (i = 0; rc == PT2_OK && i < pg->n; i++) {
        cJSON *item = NULL;

        rc = bucket_item(run, &jd, &run->v[i], &item, err);
        if (rc == PT2_OK && !cJSON_AddItemToArray(items, item)) {
            cJSON_Delete(item);
            rc = pt2_error_set(err, PT2_ERR_NOMEM, "out of memory listing packages");
        }
    }
    pt2d_packages_judge_end(&jd);
    return rc;
}

/* {"items", "next", "total": null, "warnings": []} for one listing page. */
static int bucket_doc(struct bucket_run *run, const struct pt2_remote_page *pg, cJSON *doc,
                      struct pt2_error *err)
{
    char cursor[PT2D_PACKAGES_CURSOR_MAX];
    cJSON *items = cJSON_AddArrayToObject(doc, "items");
    int rc;

    if (items == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory listing packages");
    rc = bucket_items(run, pg, items, err);
    if (rc != PT2_OK)
        return rc;
    if (pg->next[0] != '\0')
        pt2d_packages_cursor(pg->next, cursor, sizeof(cursor));
    if ((pg->next[0] != '\0' ? cJSON_AddStringToObject(doc, "next", cursor)
                             : cJSON_AddNullToObject(doc, "next")) == NULL ||
        cJSON_AddNullToObject(doc, "total") == NULL ||
        cJSON_AddArrayToObject(doc, "warnings") == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory listing packages");
    return PT2_OK;
}

void pt2d_bucket_serve(const struct pt2d_job_env *env, const struct pt2d_packages_query *q,
                       const struct pt2d_options *o, const char *if_none_match,
                       const char *request_id, struct pt2d_reply *reply)
{
    struct bucket_run run = {env, o, NULL};
    struct pt2_remote_page pg;
    struct pt2_error err = {0};
    cJSON *doc = NULL;
    int rc;

    memset(&pg, 0, sizeof(pg));
    if (env->remote == NULL)
        rc = pt2_error_set(&err, PT2_ERR_REMOTE_REFUSED,
                           "remote packages are off here: start pt2scoped with --remote-allow "
                           "PREFIX to allow URLs under PREFIX");
    else if (!pt2_remote_is_prefix(q->url))
        rc = pt2_error_set(&err, PT2_ERR_INVALID,
                           "url must be an s3://BUCKET/PREFIX/ URL ending in '/' to list a bucket");
    else
        rc = pt2_remote_list_page(q->url, q->has_cursor ? q->after : NULL, q->limit, env->remote,
                                  &pg, &err);
    if (env->metrics != NULL && rc != PT2_ERR_INVALID && rc != PT2_ERR_REMOTE_REFUSED)
        pt2d_metrics_remote(env->metrics, 1, 0); /* the listing request was made */
    if (rc == PT2_OK && (run.v = calloc(pg.n + 1, sizeof(*run.v))) == NULL)
        rc = pt2_error_set(&err, PT2_ERR_NOMEM, "out of memory listing packages");
    if (rc == PT2_OK && (doc = cJSON_CreateObject()) == NULL)
        rc = pt2_error_set(&err, PT2_ERR_NOMEM, "out of memory listing packages");
    if (rc == PT2_OK)
        rc = bucket_doc(&run, &pg, doc, &err);
    if (rc != PT2_OK)
        pt2d_reply_problem(reply, err.code, err.message, request_id);
    else if (pt2d_reply_json(reply, 200, doc) == PT2_OK)
        pt2d_packages_etag_304(reply, if_none_match);
    for (size_t i = 0; run.v != NULL && i < pg.n; i++)
        pt2d_pkgref_release(run.v[i].ref);
    free(run.v);
    cJSON_Delete(doc);
    pt2_remote_page_free(&pg);
}
