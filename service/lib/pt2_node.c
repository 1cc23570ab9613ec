/*
 * pt2_node.c - probe this node (see pt2scope.h "This node" and pt2_node.h).
 *
 * NVIDIA and AMD GPUs are probed independently: a node may have either,
 * both or none, and the absence of one driver says nothing of the other.
 * torch numbers the GPUs of the one backend it was built for as cuda:N, so
 * "cuda:N" means the NVIDIA GPU N where the node has NVIDIA GPUs and the AMD
 * GPU N otherwise; "rocm:N" always names an AMD GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pt2_compat.h"
#include "pt2_target.h"
#include "pt2_node.h"
#include "pt2_sbuf.h"

static void now_rfc3339(char *buf, size_t len)
{
    struct timespec ts;
    struct tm tm;

    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    if (strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        snprintf(buf, len, "1970-01-01T00:00:00Z");
}

int pt2_node_probe(pt2_node **out, const struct pt2_node_options *opts, struct pt2_error *err)
{
    struct pt2_node *n;
    const char *name = opts != NULL ? opts->name : NULL;
    int rc;

    if (out == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_node_probe: missing argument");
    *out = NULL;
    if (name != NULL && strlen(name) >= PT2_NODE_NAME_MAX)
        return pt2_error_set(err, PT2_ERR_INVALID, "node name is longer than %d bytes",
                             PT2_NODE_NAME_MAX - 1);
    n = calloc(1, sizeof(*n));
    if (n == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "node probe: out of memory");
    rc = pt2_cuda_probe(
        opts != NULL && opts->libcuda != NULL && opts->libcuda[0] != '\0' ? opts->libcuda : NULL,
        &n->nv, err);
    if (rc == PT2_OK)
        rc = pt2_amdkfd_probe(opts != NULL ? opts->sysfs_root : NULL, &n->amd, err);
    if (rc == PT2_OK)
        rc = pt2_cpu_probe(&n->cpu, err);
    if (rc != PT2_OK) {
        free(n);
        return rc;
    }
    if (name != NULL && name[0] != '\0')
        snprintf(n->name, sizeof(n->name), "%s", name);
    else if (gethostname(n->name, sizeof(n->name)) != 0)
        snprintf(n->name, sizeof(n->name), "localhost");
    n->name[sizeof(n->name) - 1] = '\0';
    now_rfc3339(n->probed_at, sizeof(n->probed_at));
    *out = n;
    return PT2_OK;
}

void pt2_node_free(pt2_node *node)
{
    free(node);
}

size_t pt2_node_gpu_count(const pt2_node *node)
{
    return node != NULL ? node->nv.n + node->amd.n : 0;
}

const char *pt2_node_name(const pt2_node *node)
{
    return node != NULL ? node->name : "";
}

const char *pt2_node_probed_at(const pt2_node *node)
{
    return node != NULL ? node->probed_at : "";
}

const char *pt2_node_summary(const pt2_node *node, char *buf, size_t len)
{
    struct pt2_sbuf b;

    pt2_sbuf_init(&b, buf, len);
    if (node->nv.n > 0)
        pt2_sbuf_add(&b, "%zu NVIDIA GPU%s (CUDA %d.%d driver, %s)", node->nv.n,
                     node->nv.n == 1 ? "" : "s", node->nv.driver_cuda_version / 1000,
                     (node->nv.driver_cuda_version % 1000) / 10, node->nv.library);
    else
        pt2_sbuf_add(&b, "no NVIDIA GPU: %s", node->nv.reason);
    if (node->amd.n > 0)
        pt2_sbuf_add(&b, "; %zu AMD GPU%s (%s)", node->amd.n, node->amd.n == 1 ? "" : "s",
                     node->amd.gpus[0].gfx);
    else
        pt2_sbuf_add(&b, "; no AMD GPU: %s", node->amd.reason);
    return buf;
}

static cJSON *amd_json(const struct pt2_amd_gpu *g)
{
    cJSON *o = cJSON_CreateObject();
    char target[32];
    int ok;

    if (o == NULL)
        return NULL;
    snprintf(target, sizeof(target), "rocm:%d", g->index);
    ok = cJSON_AddNumberToObject(o, "index", g->index) != NULL &&
         cJSON_AddStringToObject(o, "target", target) != NULL &&
         cJSON_AddStringToObject(o, "name", g->name) != NULL &&
         cJSON_AddStringToObject(o, "gfx", g->gfx) != NULL &&
         cJSON_AddNumberToObject(o, "gfx_target_version", g->gfx_target_version) != NULL &&
         cJSON_AddNumberToObject(o, "kfd_node", g->kfd_node) != NULL &&
         cJSON_AddNumberToObject(o, "vendor_id", g->vendor_id) != NULL &&
         cJSON_AddNumberToObject(o, "device_id", g->device_id) != NULL &&
         pt2_json_add_str_or_null(o, "pci_bus_id", g->pci_bus_id) &&
         pt2_json_add_num_or_null(o, "compute_units", g->compute_units, g->compute_units > 0) &&
         pt2_json_add_num_or_null(o, "unique_id", (double)g->unique_id, g->unique_id > 0);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

int pt2_node_to_json(const pt2_node *node, cJSON **out, struct pt2_error *err)
{
    cJSON *doc = NULL, *nv = NULL, *cpu = NULL, *amd, *item;
    size_t i;
    int rc;

    if (out == NULL || node == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_node_to_json: missing argument");
    *out = NULL;
    rc = pt2_cuda_to_json(&node->nv, &nv, err);
    if (rc == PT2_OK)
        rc = pt2_cpu_to_json(&node->cpu, &cpu, err);
    if (rc != PT2_OK)
        goto fail;
    doc = cJSON_CreateObject();
    if (doc == NULL || cJSON_AddStringToObject(doc, "node", node->name) == NULL ||
        cJSON_AddStringToObject(doc, "probed_at", node->probed_at) == NULL)
        goto nomem;
    /* The NVIDIA document's members, in their order, at the top level. */
    while ((item = nv->child) != NULL) {
        cJSON_DetachItemViaPointer(nv, item);
        if (!cJSON_AddItemToObject(doc, item->string, item)) {
            cJSON_Delete(item);
            goto nomem;
        }
    }
    amd = cJSON_AddArrayToObject(doc, "amd_gpus");
    if (amd == NULL)
        goto nomem;
    for (i = 0; i < node->amd.n; i++) {
        if (!pt2_json_add_owned(amd, NULL, amd_json(&node->amd.gpus[i])))
            goto nomem;
    }
    if (!pt2_json_add_str_or_null(doc, "amd_reason", node->amd.reason) ||
        !cJSON_AddItemToObject(doc, "cpu", cpu))
        goto nomem;
    cpu = NULL;
    cJSON_Delete(nv);
    *out = doc;
    return PT2_OK;
nomem:
    rc = pt2_error_set(err, PT2_ERR_NOMEM, "out of memory building the node document");
fail:
    cJSON_Delete(doc);
    cJSON_Delete(nv);
    cJSON_Delete(cpu);
    return rc;
}

/* ---- selection ---------------------------------------------------------------- */

/* Torch's spellings: "", "cuda", "cuda:N", "N"; ours: "rocm", "rocm:N". */
static int device_parse(const char *device, int *amd, uint64_t *idx, struct pt2_error *err)
{
    const char *num = device;

    *amd = 0;
    *idx = 0;
    if (device == NULL || device[0] == '\0' || strcmp(device, "cuda") == 0) {
        num = NULL;
    } else if (strncmp(device, "cuda:", 5) == 0) {
        num = device + 5;
    } else if (strcmp(device, "rocm") == 0) {
        num = NULL;
        *amd = 1;
    } else if (strncmp(device, "rocm:", 5) == 0) {
        num = device + 5;
        *amd = 1;
    }
    if (num != NULL && (pt2_num_u64(num, 10, idx) != PT2_OK || *idx > 1000000))
        return pt2_error_set(err, PT2_ERR_INVALID,
                             "invalid device '%.64s': expected cuda, cuda:N, N or rocm:N", device);
    return PT2_OK;
}

int pt2_device_check(const char *device, struct pt2_error *err)
{
    uint64_t idx;
    int amd;

    return device_parse(device, &amd, &idx, err);
}

int pt2_node_select(const struct pt2_node *node, const char *device, int *vendor, size_t *index,
                    struct pt2_error *err)
{
    uint64_t idx = 0;
    int amd = 0, rc;
    size_t have;

    rc = device_parse(device, &amd, &idx, err);
    if (rc != PT2_OK)
        return rc;
    /* torch on ROCm calls the AMD GPUs cuda:N. */
    if (!amd && node->nv.n == 0 && node->amd.n > 0)
        amd = 1;
    have = amd ? node->amd.n : node->nv.n;
    if (idx >= have) {
        const char *why = amd ? node->amd.reason : node->nv.reason;

        if (have == 0 && why[0] != '\0')
            return pt2_error_set(err, PT2_ERR_NOT_FOUND, "device %s:%llu not found: %s",
                                 amd ? "rocm" : "cuda", (unsigned long long)idx, why);
        return pt2_error_set(err, PT2_ERR_NOT_FOUND,
                             "device %s:%llu not found: %zu %s device%s visible",
                             amd ? "rocm" : "cuda", (unsigned long long)idx, have,
                             amd ? "AMD" : "CUDA", have == 1 ? "" : "s");
    }
    *vendor = amd ? PT2_VENDOR_AMD : PT2_VENDOR_NVIDIA;
    *index = (size_t)idx;
    return PT2_OK;
}

void pt2_node_gpu_device(const struct pt2_node *node, int vendor, size_t index,
                         struct pt2_device *dev, char *label, size_t label_len)
{
    memset(dev, 0, sizeof(*dev));
    if (vendor == PT2_VENDOR_AMD) {
        const struct pt2_amd_gpu *g = &node->amd.gpus[index];

        snprintf(label, label_len, "rocm:%d", g->index);
        snprintf(dev->gfx, sizeof(dev->gfx), "%s", g->gfx);
        snprintf(dev->name, sizeof(dev->name), "%.100s (%s)", g->name, label);
    } else {
        pt2_cuda_device(&node->nv, &node->nv.gpus[index], dev);
        snprintf(label, label_len, "cuda:%d", node->nv.gpus[index].index);
    }
}

int pt2_node_device(const pt2_node *node, const char *device, struct pt2_device *dev, char *label,
                    size_t label_len, struct pt2_error *err)
{
    int vendor = 0, rc;
    size_t index = 0;

    if (node == NULL || dev == NULL || label == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_node_device: missing argument");
    rc = pt2_node_select(node, device, &vendor, &index, err);
    if (rc == PT2_OK)
        pt2_node_gpu_device(node, vendor, index, dev, label, label_len);
    return rc;
}

/* ---- compatibility devices -------------------------------------------------------- */

cJSON *pt2_node_gpu_json(const struct pt2_node *node, int vendor, size_t index,
                         const struct pt2_device *dev)
{
    cJSON *d = pt2_target_device_json(dev);
    int ok;

    if (d == NULL)
        return NULL;
    if (vendor == PT2_VENDOR_AMD) {
        const struct pt2_amd_gpu *g = &node->amd.gpus[index];

        ok = cJSON_ReplaceItemInObjectCaseSensitive(d, "name", cJSON_CreateString(g->name)) &&
             cJSON_AddNumberToObject(d, "index", g->index) != NULL &&
             pt2_json_add_str_or_null(d, "pci_bus_id", g->pci_bus_id) &&
             pt2_json_add_num_or_null(d, "compute_units", g->compute_units, g->compute_units > 0);
    } else {
        const struct pt2_gpu *g = &node->nv.gpus[index];

        /* dev->name says "(cuda:N)" for the reason; the device shows the driver's name. */
        ok = cJSON_ReplaceItemInObjectCaseSensitive(d, "name", cJSON_CreateString(g->name)) &&
             cJSON_AddNumberToObject(d, "index", g->index) != NULL &&
             cJSON_AddStringToObject(d, "uuid", g->uuid) != NULL &&
             cJSON_AddStringToObject(d, "pci_bus_id", g->pci_bus_id) != NULL &&
             cJSON_AddNumberToObject(d, "sm_count", g->sm_count) != NULL &&
             cJSON_AddNumberToObject(d, "total_memory", (double)g->total_memory) != NULL;
    }
    if (!ok) {
        cJSON_Delete(d);
        return NULL;
    }
    return d;
}

cJSON *pt2_node_cpu_json(const struct pt2_node *node)
{
    const struct pt2_cpu_info *c = &node->cpu;
    cJSON *d = cJSON_CreateObject();

    if (d == NULL ||
        cJSON_AddStringToObject(d, "name", c->model[0] != '\0' ? c->model : c->machine) == NULL ||
        !pt2_json_add_str_or_null(d, "machine", c->machine) ||
        !pt2_json_add_str_or_null(d, "vendor", c->vendor) ||
        !pt2_json_add_str_or_null(d, "vec_isa", pt2_cpu_vec_isa(c))) {
        cJSON_Delete(d);
        return NULL;
    }
    return d;
}
