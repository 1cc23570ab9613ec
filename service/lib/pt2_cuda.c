/*
 * pt2_cuda.c - enumerate NVIDIA GPUs through a dlopen'ed libcuda.so.1.
 *
 * See pt2_cuda.h for the design (why dlopen, RTLD_NODELETE, no globals).
 * The Driver API prototypes below are declared here on purpose: cuda.h is
 * not available at build time and the ABI of these calls has been stable
 * for a decade (CUresult and CUdevice are ints; CUuuid is 16 bytes passed
 * by pointer). Names are the dlsym names, i.e. the versioned ones that
 * cuda.h #defines the plain names to.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_cuda.h"

/* CUdevice_attribute values (cuda.h). */
#define CU_ATTR_MULTIPROCESSOR_COUNT 16
#define CU_ATTR_CC_MAJOR 75
#define CU_ATTR_CC_MINOR 76

#define CU_SUCCESS 0
#define CU_ERROR_STUB_LIBRARY 34
#define CU_ERROR_NO_DEVICE 100
#define CU_ERROR_SYSTEM_NOT_READY 802
#define CU_ERROR_SYSTEM_DRIVER_MISMATCH 803
#define CU_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE 804
#define CU_ERROR_UNKNOWN 999

typedef int (*cu_init_fn)(unsigned flags);
typedef int (*cu_int_out_fn)(int *out); /* cuDriverGetVersion, cuDeviceGetCount */
typedef int (*cu_device_get_fn)(int *dev, int ordinal);
typedef int (*cu_string_fn)(char *buf, int len, int dev); /* cuDeviceGetName, GetPCIBusId */
typedef int (*cu_attr_fn)(int *value, int attr, int dev);
typedef int (*cu_mem_fn)(size_t *bytes, int dev);         /* cuDeviceTotalMem_v2 */
typedef int (*cu_mem32_fn)(unsigned int *bytes, int dev); /* cuDeviceTotalMem (pre-3.2 ABI) */
typedef int (*cu_uuid_fn)(unsigned char uuid[16], int dev);
typedef int (*cu_error_name_fn)(int cu, const char **name);

struct cu_api {
    cu_init_fn init;
    cu_int_out_fn driver_get_version;
    cu_int_out_fn device_get_count;
    cu_device_get_fn device_get;
    cu_string_fn device_get_name;
    cu_attr_fn device_get_attribute;
    cu_mem_fn total_mem;
    cu_mem32_fn total_mem32; /* only when total_mem is missing */
    cu_uuid_fn get_uuid;
    cu_string_fn pci_bus_id;
    cu_error_name_fn error_name; /* optional */
};

static const struct {
    int code;
    const char *name;
} cu_errors[] = {
    {0, "CUDA_SUCCESS"},
    {1, "CUDA_ERROR_INVALID_VALUE"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY"},
    {3, "CUDA_ERROR_NOT_INITIALIZED"},
    {4, "CUDA_ERROR_DEINITIALIZED"},
    {34, "CUDA_ERROR_STUB_LIBRARY"},
    {36, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER"},
    {46, "CUDA_ERROR_DEVICE_UNAVAILABLE"},
    {100, "CUDA_ERROR_NO_DEVICE"},
    {101, "CUDA_ERROR_INVALID_DEVICE"},
    {102, "CUDA_ERROR_DEVICE_NOT_LICENSED"},
    {200, "CUDA_ERROR_INVALID_IMAGE"},
    {201, "CUDA_ERROR_INVALID_CONTEXT"},
    {209, "CUDA_ERROR_NO_BINARY_FOR_GPU"},
    {218, "CUDA_ERROR_INVALID_PTX"},
    {221, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND"},
    {222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"},
    {223, "CUDA_ERROR_JIT_COMPILATION_DISABLED"},
    {304, "CUDA_ERROR_OPERATING_SYSTEM"},
    {500, "CUDA_ERROR_NOT_FOUND"},
    {800, "CUDA_ERROR_NOT_PERMITTED"},
    {801, "CUDA_ERROR_NOT_SUPPORTED"},
    {802, "CUDA_ERROR_SYSTEM_NOT_READY"},
    {803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"},
    {804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"},
    {999, "CUDA_ERROR_UNKNOWN"},
};

const char *pt2_cuda_error_name(int cu)
{
    size_t i;

    for (i = 0; i < sizeof(cu_errors) / sizeof(cu_errors[0]); i++)
        if (cu_errors[i].code == cu)
            return cu_errors[i].name;
    return NULL;
}

/* "CUDA_ERROR_X (N)" from our table, else from the driver, else "CUresult N". */
static void describe_cu(const struct cu_api *api, int cu, char *buf, size_t len)
{
    const char *name = pt2_cuda_error_name(cu);

    if (name == NULL && api != NULL && api->error_name != NULL &&
        api->error_name(cu, &name) != CU_SUCCESS)
        name = NULL;
    if (name != NULL)
        snprintf(buf, len, "%.64s (%d)", name, cu);
    else
        snprintf(buf, len, "CUresult %d", cu);
}

/* The reason line; vsnprintf because truncating a long dlerror() is fine. */
static void set_reason(struct pt2_node_gpus *out, const char *fmt, ...) PT2_PRINTF(2, 3);
static void set_reason(struct pt2_node_gpus *out, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(out->reason, sizeof(out->reason), fmt, ap);
    va_end(ap);
}

/* Copy an environment value for a message: printable ASCII only, bounded. */
static void quote_env(const char *v, char *buf, size_t len)
{
    size_t i, o = 0;

    /* Leave room for "..." and the NUL. */
    for (i = 0; v[i] != '\0' && o + 4 < len; i++)
        buf[o++] = (v[i] >= 0x20 && v[i] < 0x7f && v[i] != '\'') ? v[i] : '?';
    if (v[i] != '\0') {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = '\0';
}

static void set_reason_init(struct pt2_node_gpus *out, const struct cu_api *api, int cu)
{
    char what[96];

    describe_cu(api, cu, what, sizeof(what));
    switch (cu) {
    case CU_ERROR_STUB_LIBRARY:
        set_reason(out, "CUDA stub library loaded instead of the driver (CUDA_ERROR_STUB_LIBRARY)");
        break;
    case CU_ERROR_NO_DEVICE: {
        const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
        char q[72];

        if (cvd != NULL) {
            quote_env(cvd, q, sizeof(q));
            set_reason(out,
                       "no CUDA devices visible (CUDA_ERROR_NO_DEVICE); CUDA_VISIBLE_DEVICES='%s'",
                       q);
        } else {
            set_reason(out, "no CUDA devices visible (CUDA_ERROR_NO_DEVICE)");
        }
        break;
    }
    case CU_ERROR_SYSTEM_NOT_READY:
        set_reason(out, "CUDA system not ready, e.g. fabric manager not running "
                        "(CUDA_ERROR_SYSTEM_NOT_READY)");
        break;
    case CU_ERROR_SYSTEM_DRIVER_MISMATCH:
        set_reason(out,
                   "driver/kernel module version mismatch (CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)");
        break;
    case CU_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
        set_reason(out, "forward-compatibility driver not supported on this GPU "
                        "(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE)");
        break;
    case CU_ERROR_UNKNOWN:
        set_reason(out, "unknown driver error in cuInit (CUDA_ERROR_UNKNOWN)");
        break;
    default:
        set_reason(out, "cuInit failed: %s", what);
        break;
    }
}

/* dlsym a required entry point; remembers the first one that is missing. */
static void *need(void *h, const char *name, const char **missing)
{
    void *p = dlsym(h, name);

    if (p == NULL && *missing == NULL)
        *missing = name;
    return p;
}

/*
 * Resolve every entry point; 0, or -1 with *missing naming the first absent
 * one. The casts from void * are what POSIX dlsym requires in practice.
 */
static int resolve_api(void *h, struct cu_api *api, const char **missing)
{
    memset(api, 0, sizeof(*api));
    *missing = NULL;
    api->init = (cu_init_fn)need(h, "cuInit", missing);
    api->driver_get_version = (cu_int_out_fn)need(h, "cuDriverGetVersion", missing);
    api->device_get_count = (cu_int_out_fn)need(h, "cuDeviceGetCount", missing);
    api->device_get = (cu_device_get_fn)need(h, "cuDeviceGet", missing);
    api->device_get_name = (cu_string_fn)need(h, "cuDeviceGetName", missing);
    api->device_get_attribute = (cu_attr_fn)need(h, "cuDeviceGetAttribute", missing);
    /* Old drivers only have the 32-bit cuDeviceTotalMem and the pre-MIG cuDeviceGetUuid. */
    api->total_mem = (cu_mem_fn)dlsym(h, "cuDeviceTotalMem_v2");
    if (api->total_mem == NULL) {
        api->total_mem32 = (cu_mem32_fn)dlsym(h, "cuDeviceTotalMem");
        if (api->total_mem32 == NULL && *missing == NULL)
            *missing = "cuDeviceTotalMem_v2";
    }
    api->get_uuid = (cu_uuid_fn)dlsym(h, "cuDeviceGetUuid_v2");
    if (api->get_uuid == NULL) {
        api->get_uuid = (cu_uuid_fn)dlsym(h, "cuDeviceGetUuid");
        if (api->get_uuid == NULL && *missing == NULL)
            *missing = "cuDeviceGetUuid_v2";
    }
    api->pci_bus_id = (cu_string_fn)need(h, "cuDeviceGetPCIBusId", missing);
    api->error_name = (cu_error_name_fn)dlsym(h, "cuGetErrorName"); /* optional */
    return *missing == NULL ? 0 : -1;
}

/* Query one device; CU_SUCCESS or the failing CUresult with *call naming the call. */
static int probe_device(const struct cu_api *api, int ordinal, struct pt2_gpu *gpu,
                        const char **call)
{
    unsigned char u[16];
    int dev = 0, rc;
    size_t i;

    memset(gpu, 0, sizeof(*gpu));
    gpu->index = ordinal;
    *call = "cuDeviceGet";
    if ((rc = api->device_get(&dev, ordinal)) != CU_SUCCESS)
        return rc;
    *call = "cuDeviceGetName";
    if ((rc = api->device_get_name(gpu->name, (int)sizeof(gpu->name), dev)) != CU_SUCCESS)
        return rc;
    gpu->name[sizeof(gpu->name) - 1] = '\0';
    *call = "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MAJOR)";
    if ((rc = api->device_get_attribute(&gpu->cc_major, CU_ATTR_CC_MAJOR, dev)) != CU_SUCCESS)
        return rc;
    *call = "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MINOR)";
    if ((rc = api->device_get_attribute(&gpu->cc_minor, CU_ATTR_CC_MINOR, dev)) != CU_SUCCESS)
        return rc;
    *call = "cuDeviceGetAttribute(MULTIPROCESSOR_COUNT)";
    rc = api->device_get_attribute(&gpu->sm_count, CU_ATTR_MULTIPROCESSOR_COUNT, dev);
    if (rc != CU_SUCCESS)
        return rc;
    if (api->total_mem != NULL) {
        size_t bytes = 0;

        *call = "cuDeviceTotalMem_v2";
        if ((rc = api->total_mem(&bytes, dev)) != CU_SUCCESS)
            return rc;
        gpu->total_memory = bytes;
    } else {
        unsigned int bytes = 0;

        *call = "cuDeviceTotalMem";
        if ((rc = api->total_mem32(&bytes, dev)) != CU_SUCCESS)
            return rc;
        gpu->total_memory = bytes;
    }
    *call = "cuDeviceGetUuid";
    if ((rc = api->get_uuid(u, dev)) != CU_SUCCESS)
        return rc;
    /* The spelling nvidia-smi and CUDA_VISIBLE_DEVICES use. */
    snprintf(gpu->uuid, sizeof(gpu->uuid),
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
             u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
             u[15]);
    *call = "cuDeviceGetPCIBusId";
    rc = api->pci_bus_id(gpu->pci_bus_id, (int)sizeof(gpu->pci_bus_id), dev);
    if (rc != CU_SUCCESS)
        return rc;
    gpu->pci_bus_id[sizeof(gpu->pci_bus_id) - 1] = '\0';
    /* The driver prints hex in upper case; sysfs and NCCL use lower case. */
    for (i = 0; gpu->pci_bus_id[i] != '\0'; i++)
        gpu->pci_bus_id[i] = (char)tolower((unsigned char)gpu->pci_bus_id[i]);
    return CU_SUCCESS;
}

/* Pick the library to load: argument, then $PT2SCOPE_LIBCUDA, then the SONAME. */
static int choose_library(const char *libpath, struct pt2_node_gpus *out, struct pt2_error *err)
{
    const char *env;
    size_t len;

    if (libpath != NULL) {
        len = strlen(libpath);
        if (len == 0)
            return pt2_error_set(err, PT2_ERR_INVALID, "CUDA driver library path is empty");
        if (len >= sizeof(out->library))
            return pt2_error_set(err, PT2_ERR_INVALID,
                                 "CUDA driver library path is longer than %zu bytes",
                                 sizeof(out->library) - 1);
        memcpy(out->library, libpath, len + 1);
        return PT2_OK;
    }
    env = getenv(PT2_CUDA_LIB_ENV);
    if (env == NULL || env[0] == '\0')
        env = PT2_CUDA_DEFAULT_LIB;
    len = strlen(env);
    if (len >= sizeof(out->library)) {
        /* Configuration, not a caller error: report it as the reason. */
        set_reason(out, "%s is longer than %zu bytes", PT2_CUDA_LIB_ENV, sizeof(out->library) - 1);
        return PT2_OK;
    }
    memcpy(out->library, env, len + 1);
    return PT2_OK;
}

int pt2_cuda_probe(const char *libpath, struct pt2_node_gpus *out, struct pt2_error *err)
{
    struct cu_api api;
    const char *missing = NULL, *call = NULL;
    char what[96];
    void *h = NULL;
    int count = 0, rc, i;

    if (out == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_cuda_probe: no output");
    memset(out, 0, sizeof(*out));
    rc = choose_library(libpath, out, err);
    if (rc != PT2_OK || out->reason[0] != '\0')
        return rc;

    dlerror();
    h = dlopen(out->library, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (h == NULL) {
        const char *e = dlerror();

        if (e == NULL)
            e = "unknown error";
        /* The one-line cause; dlerror() would only repeat the name. */
        if (strstr(e, "No such file") != NULL)
            set_reason(out, "no NVIDIA driver installed (%s not found)", out->library);
        else
            set_reason(out, "%s could not be loaded (dlopen: %s)", out->library, e);
        goto cleanup;
    }
    if (resolve_api(h, &api, &missing) != 0) {
        if (api.init == NULL)
            set_reason(out, "%s is not a CUDA driver: cuInit missing", out->library);
        else
            set_reason(out, "driver too old: %s missing", missing);
        goto cleanup;
    }

    /* Works before cuInit, so a stub or a mismatch still reports the version. */
    if (api.driver_get_version(&out->driver_cuda_version) != CU_SUCCESS ||
        out->driver_cuda_version < 0)
        out->driver_cuda_version = 0;

    rc = api.init(0);
    if (rc != CU_SUCCESS) {
        out->cu_error = rc;
        set_reason_init(out, &api, rc);
        goto cleanup;
    }
    rc = api.device_get_count(&count);
    if (rc != CU_SUCCESS) {
        out->cu_error = rc;
        describe_cu(&api, rc, what, sizeof(what));
        set_reason(out, "cuDeviceGetCount failed: %s", what);
        goto cleanup;
    }
    if (count <= 0) {
        const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
        char q[72];

        if (cvd != NULL) {
            quote_env(cvd, q, sizeof(q));
            set_reason(out,
                       "no CUDA devices visible (cuDeviceGetCount returned %d); "
                       "CUDA_VISIBLE_DEVICES='%s'",
                       count, q);
        } else {
            set_reason(out, "no CUDA devices visible (cuDeviceGetCount returned %d)", count);
        }
        goto cleanup;
    }
    if (count > PT2_GPUS_MAX)
        count = PT2_GPUS_MAX;
    for (i = 0; i < count; i++) {
        rc = probe_device(&api, i, &out->gpus[i], &call);
        if (rc != CU_SUCCESS) {
            /* All or nothing: a half list would misreport ordinals. */
            memset(out->gpus, 0, sizeof(out->gpus));
            out->cu_error = rc;
            describe_cu(&api, rc, what, sizeof(what));
            set_reason(out, "device %d: %s failed: %s", i, call, what);
            goto cleanup;
        }
    }
    out->n = (size_t)count;

cleanup:
    /* RTLD_NODELETE keeps the driver mapped; this only drops our reference. */
    if (h != NULL)
        dlclose(h);
    return PT2_OK;
}

/* ---- JSON ----------------------------------------------------------------- */

static cJSON *gpu_json(const struct pt2_gpu *gpu)
{
    cJSON *o = cJSON_CreateObject();
    char cc[32], sm[32];
    int ok;

    if (o == NULL)
        return NULL;
    snprintf(cc, sizeof(cc), "%d.%d", gpu->cc_major, gpu->cc_minor);
    snprintf(sm, sizeof(sm), "sm_%d%d", gpu->cc_major, gpu->cc_minor);
    ok = cJSON_AddNumberToObject(o, "index", gpu->index) != NULL &&
         cJSON_AddStringToObject(o, "name", gpu->name) != NULL &&
         cJSON_AddStringToObject(o, "uuid", gpu->uuid) != NULL &&
         cJSON_AddStringToObject(o, "pci_bus_id", gpu->pci_bus_id) != NULL &&
         cJSON_AddStringToObject(o, "compute_capability", cc) != NULL &&
         cJSON_AddNumberToObject(o, "cc_major", gpu->cc_major) != NULL &&
         cJSON_AddNumberToObject(o, "cc_minor", gpu->cc_minor) != NULL &&
         cJSON_AddStringToObject(o, "sm", sm) != NULL &&
         cJSON_AddNumberToObject(o, "sm_count", gpu->sm_count) != NULL &&
         cJSON_AddNumberToObject(o, "total_memory", (double)gpu->total_memory) != NULL &&
         cJSON_AddNumberToObject(o, "total_memory_mib", (double)(gpu->total_memory >> 20)) != NULL;
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

int pt2_cuda_to_json(const struct pt2_node_gpus *g, cJSON **out, struct pt2_error *err)
{
    cJSON *o = NULL, *arr, *item;
    char ver[32] = "";
    size_t i, n;
    int ok;

    if (out != NULL)
        *out = NULL;
    if (g == NULL || out == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_cuda_to_json: missing argument");
    n = g->n > PT2_GPUS_MAX ? PT2_GPUS_MAX : g->n;
    if (g->driver_cuda_version > 0)
        snprintf(ver, sizeof(ver), "%d.%d", g->driver_cuda_version / 1000,
                 (g->driver_cuda_version % 1000) / 10);
    o = cJSON_CreateObject();
    if (o == NULL)
        goto nomem;
    ok = (g->driver_cuda_version > 0
              ? cJSON_AddNumberToObject(o, "driver_cuda_version", g->driver_cuda_version) != NULL
              : cJSON_AddNullToObject(o, "driver_cuda_version") != NULL) &&
         pt2_json_add_str_or_null(o, "driver_cuda", ver) &&
         cJSON_AddStringToObject(o, "library", g->library) != NULL &&
         cJSON_AddNumberToObject(o, "count", (double)n) != NULL &&
         cJSON_AddNumberToObject(o, "cu_error", g->cu_error) != NULL &&
         /* No CUresult at all when the library or a symbol was missing. */
         pt2_json_add_str_or_null(o, "cu_error_name",
                                  (g->cu_error == 0 && g->reason[0] != '\0')
                                      ? NULL
                                      : pt2_cuda_error_name(g->cu_error)) &&
         pt2_json_add_str_or_null(o, "reason", g->reason);
    if (!ok)
        goto nomem;
    arr = cJSON_AddArrayToObject(o, "gpus");
    if (arr == NULL)
        goto nomem;
    for (i = 0; i < n; i++) {
        item = gpu_json(&g->gpus[i]);
        if (item == NULL)
            goto nomem;
        cJSON_AddItemToArray(arr, item);
    }
    *out = o;
    return PT2_OK;

nomem:
    cJSON_Delete(o);
    return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory building the GPU document");
}

void pt2_cuda_device(const struct pt2_node_gpus *g, const struct pt2_gpu *gpu,
                     struct pt2_device *out)
{
    if (out == NULL)
        return;
    memset(out, 0, sizeof(*out));
    if (gpu == NULL)
        return;
    out->cc_major = gpu->cc_major;
    out->cc_minor = gpu->cc_minor;
    out->driver_cuda_version = g != NULL ? g->driver_cuda_version : 0;
    snprintf(out->name, sizeof(out->name), "%.100s (cuda:%d)", gpu->name, gpu->index);
}
