/*
 * pt2d_packages.c - GET /v1/packages (see pt2d_packages.h).
 *
 * The walk: per root, depth first, openat() with O_NOFOLLOW for every
 * directory (a symlinked directory is never entered, so no loop and no way
 * out of the root), d_type where the filesystem gives it, else one
 * fstatat(). A `*.pt2` entry that is a file or a symlink is a candidate:
 * whether it is inside the root, a regular file and a package is for the
 * open to say, as for ?path=. Directories whose path cannot lead to the
 * prefix are not entered. Names that are not UTF-8 or hold control bytes
 * cannot be written into JSON as themselves, and so could not be asked for
 * again: they are left out.
 *
 * `contains` filters names like `prefix` but anywhere in the path, so it
 * cannot prune directories: the walk is the whole tree, as without a prefix.
 *
 * The page: a max-heap of the limit + 1 smallest candidate names after the
 * cursor; one more than the page tells whether there is a next one.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pt2d_cache.h"
#include "pt2d_etag.h"
#include "pt2d_packages.h"
#include "pt2d_problem.h"
#include "pt2d_reply.h"

#define PKGS_SUFFIX ".pt2"

static const char pkgs_b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

void pt2d_packages_query_init(struct pt2d_packages_query *q)
{
    memset(q, 0, sizeof(*q));
    q->limit = PT2D_PACKAGES_LIMIT_DEFAULT;
}

void pt2d_packages_cursor(const char *name, char *out, size_t cap)
{
    const unsigned char *p = (const unsigned char *)name;
    size_t len = strlen(name), i, n = 0;

    for (i = 0; i < len && n + 5 <= cap; i += 3) {
        unsigned v = (unsigned)p[i] << 16;

        if (i + 1 < len)
            v |= (unsigned)p[i + 1] << 8;
        if (i + 2 < len)
            v |= p[i + 2];
        out[n++] = pkgs_b64[(v >> 18) & 63];
        out[n++] = pkgs_b64[(v >> 12) & 63];
        if (i + 1 < len)
            out[n++] = pkgs_b64[(v >> 6) & 63];
        if (i + 2 < len)
            out[n++] = pkgs_b64[v & 63];
    }
    if (cap > 0)
        out[n < cap ? n : cap - 1] = '\0';
}

static int pkgs_b64_value(char c)
{
    const char *p = c != '\0' ? strchr(pkgs_b64, c) : NULL;

    return p != NULL ? (int)(p - pkgs_b64) : -1;
}

/* The name a cursor stands for into out (PT2D_PATH_MAX): PT2_OK or PT2_ERR_INVALID. */
static int pkgs_cursor_decode(const char *text, char *out, struct pt2_error *err)
{
    size_t len = strlen(text), i, n = 0;
    unsigned acc = 0;
    int bits = 0;

    if (len == 0 || len >= PT2D_PACKAGES_CURSOR_MAX || len % 4 == 1)
        goto bad;
    for (i = 0; i < len; i++) {
        int v = pkgs_b64_value(text[i]);

        if (v < 0)
            goto bad;
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[n] = (char)((acc >> bits) & 0xff);
            if (out[n] == '\0' || n + 1 >= PT2D_PATH_MAX)
                goto bad;
            n++;
        }
    }
    /* Leftover bits must be zero, or two texts would stand for one name. */
    if ((acc & ((1u << bits) - 1)) != 0)
        goto bad;
    out[n] = '\0';
    return PT2_OK;
bad:
    out[0] = '\0';
    return pt2_error_set(err, PT2_ERR_INVALID,
                         "cursor is not one this server gave out (use the \"next\" of a page)");
}

/* A name filter (prefix, contains): once, shorter than `cap`. */
static int pkgs_set_text(const char *key, const char *value, char *dst, size_t cap, int *has,
                         struct pt2_error *err)
{
    if (*has)
        return pt2_error_set(err, PT2_ERR_INVALID, "%s given more than once", key);
    if (strlen(value) >= cap)
        return pt2_error_set(err, PT2_ERR_INVALID, "%s is longer than %zu bytes", key, cap - 1);
    snprintf(dst, cap, "%s", value);
    *has = 1;
    return PT2_OK;
}

int pt2d_packages_add_query(struct pt2d_packages_query *q, struct pt2d_options *o, const char *key,
                            const char *value, struct pt2_error *err)
{
    long limit;

    if (value == NULL)
        value = "";
    if (strcmp(key, "limit") == 0) {
        if (q->has_limit)
            return pt2_error_set(err, PT2_ERR_INVALID, "limit given more than once");
        if (pt2_num_long(value, 1, PT2D_PACKAGES_LIMIT_MAX, &limit) != PT2_OK)
            return pt2_error_set(err, PT2_ERR_INVALID,
                                 "limit '%.32s' is not a whole number from 1 to %u", value,
                                 PT2D_PACKAGES_LIMIT_MAX);
        q->limit = (unsigned)limit;
        q->has_limit = 1;
        return PT2_OK;
    }
    if (strcmp(key, "cursor") == 0) {
        if (q->has_cursor)
            return pt2_error_set(err, PT2_ERR_INVALID, "cursor given more than once");
        q->has_cursor = 1;
        return pkgs_cursor_decode(value, q->after, err);
    }
    if (strcmp(key, "prefix") == 0)
        return pkgs_set_text(key, value, q->prefix, sizeof(q->prefix), &q->has_prefix, err);
    if (strcmp(key, "url") == 0) /* a bucket prefix instead of the roots: pt2d_bucket_serve */
        return pkgs_set_text(key, value, q->url, sizeof(q->url), &q->has_url, err);
    if (strcmp(key, "contains") == 0)
        return pkgs_set_text(key, value, q->contains, sizeof(q->contains), &q->has_contains, err);
    if (strcmp(key, "target") == 0 || strcmp(key, "driver") == 0 || strcmp(key, "nocache") == 0 ||
        strcmp(key, "runtime") == 0)
        return pt2d_options_add_query(o, key, value, err);
    return PT2_OK;
}

/* ---- the walk ------------------------------------------------------------------ */

struct pkgs_walk {
    const struct pt2d_job_env *env;
    const struct pt2d_packages_query *q;
    size_t root;    /* index of the root being walked */
    char **heap;    /* max-heap by strcmp: the smallest names seen */
    size_t n, cap;  /* cap = limit + 1 */
    size_t entries; /* directory entries looked at */
    size_t total;   /* packages with the prefix, whatever the cursor */
    struct pt2_error err;
};

static void pkgs_swap(char **a, char **b)
{
    char *t = *a;

    *a = *b;
    *b = t;
}

static void pkgs_sift_down(struct pkgs_walk *w, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;

        if (l < w->n && strcmp(w->heap[l], w->heap[m]) > 0)
            m = l;
        if (r < w->n && strcmp(w->heap[r], w->heap[m]) > 0)
            m = r;
        if (m == i)
            return;
        pkgs_swap(&w->heap[i], &w->heap[m]);
        i = m;
    }
}

/* Keep `name` if it is among the cap smallest seen so far. */
static int pkgs_offer(struct pkgs_walk *w, const char *name)
{
    char *copy;
    size_t i;

    if (w->n == w->cap && strcmp(name, w->heap[0]) >= 0)
        return PT2_OK;
    copy = strdup(name);
    if (copy == NULL)
        return pt2_error_set(&w->err, PT2_ERR_NOMEM, "out of memory listing packages");
    if (w->n == w->cap) {
        free(w->heap[0]);
        w->heap[0] = copy;
        pkgs_sift_down(w, 0);
        return PT2_OK;
    }
    i = w->n++;
    w->heap[i] = copy;
    while (i > 0 && strcmp(w->heap[(i - 1) / 2], w->heap[i]) < 0) {
        pkgs_swap(&w->heap[(i - 1) / 2], &w->heap[i]);
        i = (i - 1) / 2;
    }
    return PT2_OK;
}

/* 1 when `name` resolves in an earlier root, as ?path= would find it there first. */
static int pkgs_shadowed(const struct pkgs_walk *w, const char *name)
{
    char full[2 * PT2D_PATH_MAX];
    size_t j;

    for (j = 0; j < w->root; j++) {
        snprintf(full, sizeof(full), "%s/%s", w->env->roots[j], name);
        if (access(full, F_OK) == 0)
            return 1;
    }
    return 0;
}

/* 1 for names JSON carries as themselves: UTF-8 without control bytes. */
static int pkgs_plain(const char *name, size_t len)
{
    char copy[PT2D_PATH_MAX];
    size_t i;

    for (i = 0; i < len; i++)
        if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f)
            return 0;
    memcpy(copy, name, len + 1);
    pt2_utf8_scrub(copy, len);
    return memcmp(copy, name, len) == 0;
}

static int pkgs_is_package(const char *name, size_t len)
{
    size_t s = sizeof(PKGS_SUFFIX) - 1;

    return len > s && memcmp(name + len - s, PKGS_SUFFIX, s) == 0;
}

/* 1 when a directory at `path` ("a/b/") can hold names with the prefix. */
static int pkgs_dir_may_match(const char *prefix, const char *path, size_t len)
{
    size_t plen = strlen(prefix);

    return strncmp(path, prefix, len < plen ? len : plen) == 0;
}

static void pkgs_candidate(struct pkgs_walk *w, const char *rel, size_t len)
{
    const struct pt2d_packages_query *q = w->q;

    if (!pkgs_is_package(rel, len) || strncmp(rel, q->prefix, strlen(q->prefix)) != 0 ||
        (q->contains[0] != '\0' && strstr(rel, q->contains) == NULL) || !pkgs_plain(rel, len) ||
        (w->root > 0 && pkgs_shadowed(w, rel)))
        return;
    w->total++;
    if (q->after[0] == '\0' || strcmp(rel, q->after) > 0)
        pkgs_offer(w, rel);
}

/* Walk the directory open at `fd` (taken over), whose path from the root is rel[0..len). */
static void pkgs_walk_dir(struct pkgs_walk *w, int fd, char *rel, size_t len, unsigned depth)
{
    DIR *d = fdopendir(fd);
    struct dirent *e;

    if (d == NULL) {
        close(fd);
        return; /* unreadable directories are skipped, as missing ones */
    }
    while (w->err.code == PT2_OK && (e = readdir(d)) != NULL) {
        size_t nlen = strlen(e->d_name);
        unsigned char type = e->d_type;
        struct stat st;
        int sub;

        if (e->d_name[0] == '.')
            continue; /* ".", "..", and hidden names (a spool, an editor's backup) */
        if (++w->entries > PT2D_PACKAGES_ENTRIES_MAX) {
            pt2_error_set(&w->err, PT2_ERR_TOO_LARGE,
                          "the model roots hold more than %u entries; list a part with prefix=",
                          PT2D_PACKAGES_ENTRIES_MAX);
            break;
        }
        if (len + nlen + 2 > PT2D_PATH_MAX)
            continue;
        memcpy(rel + len, e->d_name, nlen + 1);
        if (type == DT_UNKNOWN) {
            if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
                continue;
            type = S_ISDIR(st.st_mode)   ? DT_DIR
                   : S_ISREG(st.st_mode) ? DT_REG
                   : S_ISLNK(st.st_mode) ? DT_LNK
                                         : DT_UNKNOWN;
        }
        if (type == DT_REG || type == DT_LNK) {
            pkgs_candidate(w, rel, len + nlen);
        } else if (type == DT_DIR && depth + 1 < PT2D_PACKAGES_DEPTH_MAX) {
            rel[len + nlen] = '/';
            rel[len + nlen + 1] = '\0';
            if (!pkgs_dir_may_match(w->q->prefix, rel, len + nlen + 1))
                continue;
            sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0)
                pkgs_walk_dir(w, sub, rel, len + nlen + 1, depth + 1);
        }
    }
    rel[len] = '\0';
    closedir(d);
}

static int pkgs_by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- the page ------------------------------------------------------------------ */

/* What the package itself decided (same bytes, same answer), not the moment (memory, I/O). */
static int pkgs_lasting_failure(int code)
{
    return code != PT2_ERR_NOMEM && code != PT2_ERR_IO && code != PT2_ERR_INTERNAL &&
           code != PT2_ERR_OVERLOADED;
}

/*
 * Open an item's package through the job cache. A package that failed is
 * remembered by its file identity (pt2d_cache_put_failure) like a good one
 * is kept: the next listing answers it without parsing it again.
 */
static int pkgs_open(const struct pt2d_job_env *env, int nocache, const struct pt2d_path_file *pf,
                     const char *key, struct pt2d_pkgref **ref, struct pt2_error *perr)
{
    int rc;

    if (!nocache && env->cache != NULL && pt2d_cache_get_failure(env->cache, key, perr))
        return perr->code;
    rc = pt2d_job_package(env, nocache, pf->fd, pf->name, key, ref, perr);
    if (rc != PT2_OK && env->cache != NULL && pkgs_lasting_failure(rc))
        pt2d_cache_put_failure(env->cache, key, perr);
    return rc;
}

/* One item: open through the job cache, the library's item, the inspect ETag. */
static int pkgs_item(const struct pt2d_job_env *env, const struct pt2d_options *o,
                     const struct pt2_listing_target *targets, size_t ntargets,
                     const struct pt2d_node_snap *snap, struct pt2d_buf *scratch, const char *name,
                     cJSON **out, struct pt2_error *err)
{
    struct pt2d_path_file pf = {.fd = -1};
    struct pt2_listing_file file = {name, 0, 0, 0};
    struct pt2_error perr = {0};
    struct pt2d_pkgref *ref = NULL;
    char key[PT2D_CACHE_KEY_MAX], etag[PT2D_ETAG_MAX] = "";
    int rc;

    rc = pt2d_path_open_at(env->roots, env->root_fds, env->n_roots, name, &pf, &perr);
    if (rc == PT2_OK) {
        file.has_stat = 1;
        file.size = (uint64_t)pf.st.st_size;
        file.mtime = (int64_t)pf.st.st_mtim.tv_sec;
        pt2d_job_file_key(key, sizeof(key), &pf.st, pf.name);
        rc = pt2d_job_etag(PT2D_ROUTE_INSPECT, key, o, snap, env, scratch, etag, sizeof(etag));
        if (rc != PT2_OK) {
            close(pf.fd);
            return pt2_error_set(err, rc, "request options too large to fingerprint");
        }
        rc = pkgs_open(env, o->nocache, &pf, key, &ref, &perr);
        close(pf.fd);
    }
    /* The server's own failure (a 500: errno text, paths) stays unsaid, as /v1/inspect does. */
    if (perr.code != PT2_OK && pt2d_problem_lookup(perr.code)->status == 500) {
        int code = perr.code;
        pt2_error_clear(&perr);
        pt2_error_set(&perr, code, "%s", PT2D_REPLY_WITHHELD);
    }
    rc = pt2_listing_item(&file, ref != NULL ? pt2d_pkgref_pkg(ref) : NULL, &perr, targets,
                          ntargets, out, err);
    pt2d_pkgref_release(ref);
    /* An item /v1/inspect would answer with a problem carries no ETag, as that answer. */
    if (rc == PT2_OK && etag[0] != '\0' && cJSON_GetObjectItemCaseSensitive(*out, "type") == NULL &&
        cJSON_AddStringToObject(*out, "etag", etag) == NULL) {
        cJSON_Delete(*out);
        *out = NULL;
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory listing packages");
    }
    return rc;
}

int pt2d_packages_judge_begin(const struct pt2d_job_env *env, const struct pt2d_options *o,
                              struct pt2d_packages_judge *jd, struct pt2_error *err)
{
    size_t i;
    int rc;

    memset(jd, 0, sizeof(*jd));
    for (i = 0; i < o->n_targets; i++) {
        jd->targets[i].label = o->targets[i].text;
        jd->targets[i].dev = o->targets[i].dev;
        if (o->driver_version != 0)
            jd->targets[i].dev.driver_cuda_version = o->driver_version;
    }
    jd->nt = o->n_targets;
    /* A listing judges the runtimes /v1/inspect would, the same way: only when asked
     * (runtime=, or targets with the daemon's defaults). */
    rc = pt2d_job_runtimes(env, o, jd->owned, jd->rts, sizeof(jd->rts) / sizeof(jd->rts[0]),
                           &jd->nrts, err);
    if (rc != PT2_OK)
        return rc;
    jd->n_owned = o->n_runtimes > 0 ? jd->nrts : 0;
    for (i = 0; i < jd->nrts && (o->n_runtimes > 0 || o->n_targets > 0); i++) {
        jd->targets[jd->nt].label = pt2_runtime_label(jd->rts[i]);
        jd->targets[jd->nt++].runtime = jd->rts[i];
    }
    /* The snapshot /v1/inspect's ETag covers: one for the page, as for one job. */
    if (env->node != NULL)
        jd->snap = pt2d_node_acquire(env->node);
    pt2d_buf_init(&jd->scratch, PT2D_JOB_FINGERPRINT_MAX);
    return PT2_OK;
}

void pt2d_packages_judge_end(struct pt2d_packages_judge *jd)
{
    pt2d_buf_free(&jd->scratch);
    pt2d_node_release(jd->snap);
    pt2d_job_runtimes_free(jd->owned, jd->n_owned);
}

static int pkgs_page(const struct pt2d_job_env *env, const struct pkgs_walk *w, size_t count,
                     const struct pt2d_options *o, cJSON *items)
{
    struct pt2d_packages_judge jd;
    struct pt2_error err = {0};
    size_t i;
    int rc;

    rc = pt2d_packages_judge_begin(env, o, &jd, &err);
    if (rc != PT2_OK)
        return rc;
    for (i = 0; rc == PT2_OK && i < count; i++) {
        cJSON *item = NULL;

        rc = pkgs_item(env, o, jd.targets, jd.nt, jd.snap, &jd.scratch, w->heap[i], &item, &err);
        if (rc == PT2_OK && !cJSON_AddItemToArray(items, item)) {
            cJSON_Delete(item);
            rc = PT2_ERR_NOMEM;
        }
    }
    pt2d_packages_judge_end(&jd);
    return rc;
}

/* Why a listing may be short: no root, or roots that cannot be opened (not named: paths stay
 * on the server). */
static int pkgs_warnings(const struct pt2d_job_env *env, size_t unopened, cJSON *doc)
{
    cJSON *w = cJSON_AddArrayToObject(doc, "warnings");
    char msg[160];

    if (w == NULL)
        return PT2_ERR_NOMEM;
    if (env->n_roots == 0)
        snprintf(msg, sizeof(msg),
                 "no model root configured: start pt2scoped with --model-root DIR "
                 "(PT2SCOPE_MODEL_ROOT) to list packages");
    else if (unopened > 0)
        snprintf(msg, sizeof(msg),
                 "%zu of %zu model roots cannot be opened (missing or not "
                 "readable); their packages are not listed",
                 unopened, env->n_roots);
    else
        return PT2_OK;
    return cJSON_AddItemToArray(w, cJSON_CreateString(msg)) ? PT2_OK : PT2_ERR_NOMEM;
}

/*
 * A strong ETag of the page's bytes (each item carries its own size, mtime and etag, so any
 * change to a listed package changes it), and 304 when the client has it.
 */
void pt2d_packages_etag_304(struct pt2d_reply *reply, const char *if_none_match)
{
    char etag[PT2D_ETAG_MAX], *body;

    if (reply->status != 200 || reply->body == NULL)
        return;
    body = strndup(reply->body, reply->len);
    if (body == NULL)
        return; /* no ETag rather than a wrong one */
    pt2d_etag_make("/v1/packages", body, "", etag, sizeof(etag));
    free(body);
    if (pt2d_etag_match(if_none_match, etag)) {
        pt2d_reply_free(reply);
        pt2d_reply_init(reply);
        pt2d_reply_take(reply, 304, NULL, NULL, 0);
    }
    snprintf(reply->etag, sizeof(reply->etag), "%s", etag);
}

void pt2d_packages_serve(const struct pt2d_job_env *env, const struct pt2d_packages_query *q,
                         const struct pt2d_options *o, const char *if_none_match,
                         const char *request_id, struct pt2d_reply *reply)
{
    size_t unopened = 0;
    struct pkgs_walk w;
    char rel[PT2D_PATH_MAX], cursor[PT2D_PACKAGES_CURSOR_MAX];
    cJSON *doc = NULL, *items;
    size_t i, count;
    int fd, rc;

    memset(&w, 0, sizeof(w));
    w.env = env;
    w.q = q;
    w.cap = (size_t)q->limit + 1;
    w.heap = calloc(w.cap, sizeof(*w.heap));
    if (w.heap == NULL) {
        pt2d_reply_problem(reply, PT2_ERR_NOMEM, "out of memory listing packages", request_id);
        return;
    }
    for (w.root = 0; w.root < env->n_roots && w.err.code == PT2_OK; w.root++) {
        fd = open(env->roots[w.root], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        rel[0] = '\0';
        if (fd >= 0)
            pkgs_walk_dir(&w, fd, rel, 0, 0);
        else
            unopened++;
    }
    if (w.err.code != PT2_OK) {
        pt2d_reply_problem(reply, w.err.code, w.err.message, request_id);
        goto cleanup;
    }
    qsort(w.heap, w.n, sizeof(*w.heap), pkgs_by_name);
    count = w.n < q->limit ? w.n : q->limit;
    doc = cJSON_CreateObject();
    items = doc != NULL ? cJSON_AddArrayToObject(doc, "items") : NULL;
    rc = items != NULL ? pkgs_page(env, &w, count, o, items) : PT2_ERR_NOMEM;
    if (rc == PT2_OK && w.n > count) {
        pt2d_packages_cursor(w.heap[count - 1], cursor, sizeof(cursor));
        rc = cJSON_AddStringToObject(doc, "next", cursor) != NULL ? PT2_OK : PT2_ERR_NOMEM;
    } else if (rc == PT2_OK) {
        rc = cJSON_AddNullToObject(doc, "next") != NULL ? PT2_OK : PT2_ERR_NOMEM;
    }
    if (rc == PT2_OK)
        rc =
            cJSON_AddNumberToObject(doc, "total", (double)w.total) != NULL ? PT2_OK : PT2_ERR_NOMEM;
    if (rc == PT2_OK)
        rc = pkgs_warnings(env, unopened, doc);
    if (rc == PT2_ERR_TOO_LARGE)
        pt2d_reply_problem(reply, rc, "request options too large to fingerprint", request_id);
    else if (rc != PT2_OK)
        pt2d_reply_problem(reply, PT2_ERR_NOMEM, "out of memory listing packages", request_id);
    else if (pt2d_reply_json(reply, 200, doc) == PT2_OK)
        pt2d_packages_etag_304(reply, if_none_match);
cleanup:
    cJSON_Delete(doc);
    for (i = 0; i < w.n; i++)
        free(w.heap[i]);
    free(w.heap);
}
