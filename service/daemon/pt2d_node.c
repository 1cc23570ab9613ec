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
#include <time.h>
#include <unistd.h>

#include "pt2d_compat.h"
#include "pt2d_node.h"

struct snap {
    struct pt2d_node_snap pub;
    atomic_int refs;
};

struct pt2d_node {
    pthread_mutex_t probe_lock; /* one probe at a time, published in order */
    pthread_mutex_t lock;       /* guards cur and generation; held only briefly */
    struct snap *cur;
    unsigned long generation;
    char libcuda[256];             /* "" = let pt2_cuda_probe choose */
    char name[PT2D_NODE_NAME_MAX]; /* "" = gethostname() at each probe */
};

static struct snap *snap_of(const struct pt2d_node_snap *s)
{
    /* pub is the first member: the public pointer is the private one. */
    return (struct snap *)(void *)s;
}

static void now_rfc3339(char *buf, size_t len)
{
    struct timespec ts;
    struct tm tm;

    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    if (strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        snprintf(buf, len, "1970-01-01T00:00:00Z");
}

/* A fresh snapshot with one reference (the caller's). */
static int probe(const struct pt2d_node *n, struct snap **out, struct pt2_error *err)
{
    struct snap *s = calloc(1, sizeof(*s));
    int rc;

    *out = NULL;
    if (s == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "node probe: out of memory");
    rc = pt2_cuda_probe(n->libcuda[0] != '\0' ? n->libcuda : NULL, &s->pub.gpus, err);
    if (rc == PT2_OK)
        rc = pt2_cpu_probe(&s->pub.cpu, err);
    if (rc != PT2_OK) {
        free(s);
        return rc;
    }
    if (n->name[0] != '\0') {
        snprintf(s->pub.node, sizeof(s->pub.node), "%s", n->name);
    } else if (gethostname(s->pub.node, sizeof(s->pub.node)) != 0) {
        snprintf(s->pub.node, sizeof(s->pub.node), "localhost");
    }
    s->pub.node[sizeof(s->pub.node) - 1] = '\0';
    now_rfc3339(s->pub.probed_at, sizeof(s->pub.probed_at));
    atomic_init(&s->refs, 1);
    *out = s;
    return PT2_OK;
}

int pt2d_node_create(struct pt2d_node **out, const char *libcuda, const char *node_name,
                     struct pt2_error *err)
{
    struct pt2d_node *n;
    int rc;

    *out = NULL;
    if ((libcuda != NULL && strlen(libcuda) >= sizeof(n->libcuda)) ||
        (node_name != NULL && strlen(node_name) >= sizeof(n->name)))
        return pt2_error_set(err, PT2_ERR_INVALID, "node: library path or node name too long");
    n = calloc(1, sizeof(*n));
    if (n == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "node: out of memory");
    pthread_mutex_init(&n->probe_lock, NULL);
    pthread_mutex_init(&n->lock, NULL);
    snprintf(n->libcuda, sizeof(n->libcuda), "%s", libcuda != NULL ? libcuda : "");
    snprintf(n->name, sizeof(n->name), "%s", node_name != NULL ? node_name : "");
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

int pt2d_node_refresh(struct pt2d_node *n, struct pt2_error *err)
{
    struct snap *fresh = NULL, *old;
    int rc;

    /* Readers never wait for a probe: they keep the current snapshot meanwhile. */
    pthread_mutex_lock(&n->probe_lock);
    rc = probe(n, &fresh, err);
    if (rc != PT2_OK) {
        pthread_mutex_unlock(&n->probe_lock);
        return rc;
    }
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
    if (atomic_fetch_sub(&p->refs, 1) == 1)
        free(p);
}

/* ---- documents ----------------------------------------------------------- */

int pt2d_node_json(const struct pt2d_node_snap *s, cJSON **out, struct pt2_error *err)
{
    cJSON *doc = NULL, *gpus = NULL, *cpu = NULL, *item;
    int rc;

    *out = NULL;
    rc = pt2_cuda_to_json(&s->gpus, &gpus, err);
    if (rc == PT2_OK)
        rc = pt2_cpu_to_json(&s->cpu, &cpu, err);
    if (rc != PT2_OK)
        goto fail;
    doc = cJSON_CreateObject();
    if (doc == NULL || cJSON_AddStringToObject(doc, "node", s->node) == NULL ||
        cJSON_AddStringToObject(doc, "probed_at", s->probed_at) == NULL)
        goto nomem;
    /* Move the GPU document's members up, keeping their order. */
    while ((item = gpus->child) != NULL) {
        cJSON_DetachItemViaPointer(gpus, item);
        if (!cJSON_AddItemToObject(doc, item->string, item)) {
            cJSON_Delete(item);
            goto nomem;
        }
    }
    if (!cJSON_AddItemToObject(doc, "cpu", cpu))
        goto nomem;
    cpu = NULL;
    cJSON_Delete(gpus);
    *out = doc;
    return PT2_OK;
nomem:
    rc = pt2_error_set(err, PT2_ERR_NOMEM, "out of memory building the node document");
fail:
    cJSON_Delete(doc);
    cJSON_Delete(gpus);
    cJSON_Delete(cpu);
    return rc;
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
    if (pt2d_node_json(snap, &doc, &err) != PT2_OK)
        pt2d_reply_problem(reply, err.code, err.message, request_id);
    else
        pt2d_reply_json(reply, 200, doc);
    cJSON_Delete(doc);
    pt2d_node_release(snap);
}

/* The compatibility entry's "device" for a local GPU. */
static cJSON *gpu_device_json(const struct pt2_gpu *g, const struct pt2_device *dev)
{
    cJSON *d = pt2d_compat_device_json(dev);

    if (d == NULL)
        return NULL;
    /* dev->name says "(cuda:N)" for the reason; the device shows the driver's name. */
    if (!cJSON_ReplaceItemInObjectCaseSensitive(d, "name", cJSON_CreateString(g->name)) ||
        cJSON_AddNumberToObject(d, "index", g->index) == NULL ||
        cJSON_AddStringToObject(d, "uuid", g->uuid) == NULL ||
        cJSON_AddStringToObject(d, "pci_bus_id", g->pci_bus_id) == NULL ||
        cJSON_AddNumberToObject(d, "sm_count", g->sm_count) == NULL ||
        cJSON_AddNumberToObject(d, "total_memory", (double)g->total_memory) == NULL) {
        cJSON_Delete(d);
        return NULL;
    }
    return d;
}

static int add_str_or_null(cJSON *o, const char *key, const char *s)
{
    if (s == NULL || s[0] == '\0')
        return cJSON_AddNullToObject(o, key) != NULL;
    return cJSON_AddStringToObject(o, key, s) != NULL;
}

static cJSON *cpu_device_json(const struct pt2_cpu_info *c)
{
    cJSON *d = cJSON_CreateObject();

    if (d == NULL ||
        cJSON_AddStringToObject(d, "name", c->model[0] != '\0' ? c->model : c->machine) == NULL ||
        !add_str_or_null(d, "machine", c->machine) || !add_str_or_null(d, "vendor", c->vendor) ||
        !add_str_or_null(d, "vec_isa", pt2_cpu_vec_isa(c))) {
        cJSON_Delete(d);
        return NULL;
    }
    return d;
}

static int add_gpu(const struct pt2d_node_snap *s, const struct pt2_gpu *g, const pt2_package *pkg,
                   cJSON *array, struct pt2_error *err)
{
    struct pt2_device dev;
    char target[32];
    cJSON *d;

    pt2_cuda_device(&s->gpus, g, &dev);
    snprintf(target, sizeof(target), "cuda:%d", g->index);
    d = gpu_device_json(g, &dev);
    if (d == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory building compatibility");
    return pt2d_compat_append(array, pkg, "gpu", target, &dev, d, err);
}

int pt2d_node_compat(const struct pt2d_node_snap *s, const pt2_package *pkg, const char *device,
                     cJSON *array, struct pt2_error *err)
{
    const char *feats[PT2_CPU_FEATURES_MAX];
    struct pt2_verdict_result res;
    const struct pt2_gpu *g = NULL;
    struct pt2_error serr = {0};
    size_t i;
    cJSON *d;
    int rc;

    if (device != NULL) {
        if (pt2_cuda_select(&s->gpus, device, &g, &serr) != PT2_OK)
            return pt2_error_set(err, PT2_ERR_INVALID, "%s", serr.message);
        rc = add_gpu(s, g, pkg, array, err);
    } else {
        rc = PT2_OK;
        for (i = 0; rc == PT2_OK && i < s->gpus.n && i < PT2_GPUS_MAX; i++)
            rc = add_gpu(s, &s->gpus.gpus[i], pkg, array, err);
    }
    if (rc != PT2_OK)
        return rc;

    for (i = 0; i < s->cpu.nfeatures && i < PT2_CPU_FEATURES_MAX; i++)
        feats[i] = s->cpu.features[i];
    rc = pt2_package_check_cpu(pkg, s->cpu.machine, feats, i, &res, err);
    if (rc != PT2_OK)
        return rc;
    d = cpu_device_json(&s->cpu);
    if (d == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory building compatibility");
    return pt2d_compat_add(array, "cpu", "cpu", d, &res, err);
}
