/*
 * pt2d_compat.c - compatibility verdicts (see pt2d_compat.h).
 */
#include <stdio.h>

#include "pt2d_compat.h"

cJSON *pt2d_compat_device_json(const struct pt2_device *dev)
{
    cJSON *d = cJSON_CreateObject();
    char cc[32];
    int ok;

    if (d == NULL)
        return NULL;
    ok = cJSON_AddStringToObject(d, "name", dev->name) != NULL;
    if (dev->cc_major > 0) {
        snprintf(cc, sizeof(cc), "%d.%d", dev->cc_major, dev->cc_minor);
        ok = ok && cJSON_AddStringToObject(d, "compute_capability", cc) != NULL;
    } else {
        ok = ok && cJSON_AddNullToObject(d, "compute_capability") != NULL;
    }
    if (dev->gfx[0] != '\0')
        ok = ok && cJSON_AddStringToObject(d, "gfx", dev->gfx) != NULL;
    else
        ok = ok && cJSON_AddNullToObject(d, "gfx") != NULL;
    if (dev->driver_cuda_version > 0)
        ok = ok &&
             cJSON_AddNumberToObject(d, "driver_cuda_version", dev->driver_cuda_version) != NULL;
    else
        ok = ok && cJSON_AddNullToObject(d, "driver_cuda_version") != NULL;
    if (!ok) {
        cJSON_Delete(d);
        return NULL;
    }
    return d;
}

int pt2d_compat_add(cJSON *array, const char *kind, const char *target, cJSON *device,
                    const struct pt2_verdict_result *res, struct pt2_error *err)
{
    cJSON *entry = cJSON_CreateObject();

    if (entry == NULL || device == NULL ||
        cJSON_AddStringToObject(entry, "target", target) == NULL ||
        cJSON_AddStringToObject(entry, "kind", kind) == NULL)
        goto nomem;
    if (!cJSON_AddItemToObject(entry, "device", device))
        goto nomem;
    device = NULL; /* owned by entry now */
    if (cJSON_AddStringToObject(entry, "verdict", pt2_verdict_name(res->verdict)) == NULL ||
        cJSON_AddStringToObject(entry, "reason", res->reason) == NULL)
        goto nomem;
    if (!cJSON_AddItemToArray(array, entry))
        goto nomem;
    return PT2_OK;
nomem:
    cJSON_Delete(device);
    cJSON_Delete(entry);
    return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory building compatibility");
}

int pt2d_compat_append(cJSON *array, const pt2_package *pkg, const char *kind, const char *target,
                       const struct pt2_device *dev, cJSON *device, struct pt2_error *err)
{
    struct pt2_verdict_result res = {0};
    int rc;

    rc = pt2_package_check_device(pkg, dev, &res, err);
    if (rc != PT2_OK) {
        cJSON_Delete(device);
        return rc;
    }
    if (device == NULL && (device = pt2d_compat_device_json(dev)) == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory building compatibility");
    return pt2d_compat_add(array, kind, target, device, &res, err);
}

int pt2d_compat_build(const pt2_package *pkg, const struct pt2d_options *o, cJSON **out,
                      struct pt2_error *err)
{
    cJSON *array = cJSON_CreateArray();
    size_t i;
    int rc = PT2_OK;

    *out = NULL;
    if (array == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory building compatibility");
    for (i = 0; rc == PT2_OK && i < o->n_targets; i++)
        rc = pt2d_compat_append(array, pkg, "target", o->targets[i].text, &o->targets[i].dev, NULL,
                                err);
    if (rc != PT2_OK) {
        cJSON_Delete(array);
        return rc;
    }
    *out = array;
    return PT2_OK;
}
