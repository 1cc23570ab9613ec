/*
 * pt2d_node.c - the node probe and its snapshots (see pt2d_node.h).
 *
 * Reference counts are C11 atomics so that releasing a snapshot takes no
 * lock; the mutex only guards which snapshot is current.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2d_etag.h"
#include "pt2d_node.h"

#define OPT_MAX 256

struct snap {
    struct pt2d_node_snap pub;
    atomic_int refs;
};

struct pt2d_node {
    pthread_mutex_t probe_lock; /* one probe at a time, published in order */
    pthread_mutex_t lock;       /* guards cur and generation; held only briefly */
    struct snap *cur;
    unsigned long generation;
    char libcuda[OPT_MAX], sysfs_root[OPT_MAX], name[OPT_MAX]; /* "" = the library's default */
};

static struct snap *snap_of(const struct pt2d_node_snap *s)
{
    /* pub is the first member: the public pointer is the private one. */
    return (struct snap *)(void *)s;
}

int pt2d_node_create(struct pt2d_node **out, const struct pt2_node_options *opts,
                     struct pt2_error *err)
{
    const char *lib = opts != NULL && opts->libcuda != NULL ? opts->libcuda : "";
    const char *sys = opts != NULL && opts->sysfs_root != NULL ? opts->sysfs_root : "";
    const char *name = opts != NULL && opts->name != NULL ? opts->name : "";
    struct pt2d_node *n;
    int rc;

    *out = NULL;
    if (strlen(lib) >= OPT_MAX || strlen(sys) >= OPT_MAX || strlen(name) >= OPT_MAX)
        return pt2_error_set(err, PT2_ERR_INVALID,
                             "node: library path, sysfs root or node name too long");
    n = calloc(1, sizeof(*n));
    if (n == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "node: out of memory");
    pthread_mutex_init(&n->probe_lock, NULL);
    pthread_mutex_init(&n->lock, NULL);
    snprintf(n->libcuda, sizeof(n->libcuda), "%s", lib);
    snprintf(n->sysfs_root, sizeof(n->sysfs_root), "%s", sys);
    snprintf(n->name, sizeof(n->name), "%s", name);
    rc = pt2d_node_refresh(n, err);
    if (rc != PT2_OK) {
        pt2d_node_free(n);
        return rc;
    }
    *out = n;
    return PT2_OK;
}

void pt2d_node_free(struct pt2d_node *n)
{
    if (n == NULL)
        return;
    if (n->cur != NULL)
        pt2d_node_release(&n->cur->pub);
    pthread_mutex_destroy(&n->lock);
    pthread_mutex_destroy(&n->probe_lock);
    free(n);
}

/* The digest of what `probe` found, without when (see pt2d_node_snap.fingerprint). */
static int node_fingerprint(const pt2_node *probe, char *out, size_t cap, struct pt2_error *err)
{
    cJSON *doc = NULL;
    char *text;
    int rc;

    rc = pt2_node_to_json(probe, &doc, err);
    if (rc != PT2_OK)
        return rc;
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "probed_at");
    text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    if (text == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "node probe: out of memory");
    pt2d_etag_make("node", text, "", out, cap);
    cJSON_free(text);
    return PT2_OK;
}

int pt2d_node_refresh(struct pt2d_node *n, struct pt2_error *err)
{
    struct pt2_node_options o = {n->libcuda, n->sysfs_root, n->name};
    struct snap *fresh, *old;
    int rc;

    fresh = calloc(1, sizeof(*fresh));
    if (fresh == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "node probe: out of memory");
    /* Readers never wait for a probe: they keep the current snapshot meanwhile. */
    pthread_mutex_lock(&n->probe_lock);
    rc = pt2_node_probe(&fresh->pub.probe, &o, err);
    if (rc == PT2_OK)
        rc = node_fingerprint(fresh->pub.probe, fresh->pub.fingerprint,
                              sizeof(fresh->pub.fingerprint), err);
    if (rc != PT2_OK) {
        pthread_mutex_unlock(&n->probe_lock);
        pt2_node_free(fresh->pub.probe);
        free(fresh);
        return rc;
    }
    atomic_init(&fresh->refs, 1);
    pthread_mutex_lock(&n->lock);
    old = n->cur;
    fresh->pub.generation = ++n->generation;
    n->cur = fresh;
    pthread_mutex_unlock(&n->lock);
    pthread_mutex_unlock(&n->probe_lock);
    if (old != NULL)
        pt2d_node_release(&old->pub);
    return PT2_OK;
}

const struct pt2d_node_snap *pt2d_node_acquire(struct pt2d_node *n)
{
    struct snap *s;

    pthread_mutex_lock(&n->lock);
    s = n->cur;
    atomic_fetch_add(&s->refs, 1);
    pthread_mutex_unlock(&n->lock);
    return &s->pub;
}

void pt2d_node_release(const struct pt2d_node_snap *s)
{
    struct snap *p;

    if (s == NULL)
        return;
    p = snap_of(s);
    if (atomic_fetch_sub(&p->refs, 1) == 1) {
        pt2_node_free(p->pub.probe);
        free(p);
    }
}

void pt2d_node_serve(struct pt2d_node *n, int refresh, const char *request_id,
                     struct pt2d_reply *reply)
{
    const struct pt2d_node_snap *snap;
    struct pt2_error err = {0};
    cJSON *doc = NULL;

    if (refresh && pt2d_node_refresh(n, &err) != PT2_OK) {
        pt2d_reply_problem(reply, err.code, err.message, request_id);
        return;
    }
    snap = pt2d_node_acquire(n);
    if (pt2_node_to_json(snap->probe, &doc, &err) != PT2_OK)
        pt2d_reply_problem(reply, err.code, err.message, request_id);
    else
        pt2d_reply_json(reply, 200, doc);
    cJSON_Delete(doc);
    pt2d_node_release(snap);
}
