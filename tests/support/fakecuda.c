/*
 * fakecuda.c - a stand-in libcuda.so.1 for the pt2_cuda tests.
 *
 * Same C ABI as the entry points pt2_cuda resolves with dlsym, driven by the
 * environment so each (forked) test can describe the node it wants:
 *
 *   PT2SCOPE_FAKECUDA_DEVICES  "name,cc,SMs,bytes;..." e.g.
 *                              "NVIDIA H100 80GB HBM3,9.0,132,85899345920"
 *                              (unset or empty: a driver with no GPU)
 *   PT2SCOPE_FAKECUDA_DRIVER   cuDriverGetVersion() value (default 12040)
 *   PT2SCOPE_FAKECUDA_INIT_ERROR  CUresult cuInit returns (34, 100, 803...);
 *                              34 behaves like the toolkit stub: every call fails
 *   PT2SCOPE_FAKECUDA_LOAD_RESULT  CUresult cuModuleLoadData returns for an
 *                              image that starts like a cubin, fatbin or PTX
 *                              (default 0); other images give 200 INVALID_IMAGE
 *   CUDA_VISIBLE_DEVICES       applied like the real driver (below)
 *
 * Physical device i gets UUID bytes {0xa0+i, 0x10+i, 0x20+i, ..., 0xf0+i}
 * ("GPU-a0102030-4050-6070-8090-a0b0c0d0e0f0" for i = 0) and PCI bus id
 * "0000:1B:00.0" + 0x10 per device, upper case like the real driver.
 *
 * CUDA_VISIBLE_DEVICES (CUDA Programming Guide, "CUDA Environment
 * Variables"): unset = all devices; otherwise a comma list of ordinals or
 * "GPU-<uuid prefix>" (the prefix must match exactly one device), visible in
 * list order and renumbered 0..n-1. Parsing stops at the first invalid entry
 * (an unknown ordinal, an ambiguous or unknown UUID, "MIG-...", an empty
 * entry, a duplicate). When nothing is left visible - including the empty
 * string - cuInit returns CUDA_ERROR_NO_DEVICE (100), which is what the real
 * driver does (torch then reports "no CUDA-capable device is detected").
 *
 * Like the real driver the environment is read once (on the first call) and
 * a failed cuInit is sticky. With -DFAKECUDA_OLD_API the library does not
 * export cuDeviceTotalMem_v2, cuDeviceGetUuid_v2, cuDevicePrimaryCtxRelease_v2,
 * cuGetErrorName or cuGetErrorString, like a pre-CUDA-6 driver; its
 * cuDeviceTotalMem has the old 32-bit result and saturates at 4 GiB - 1.
 *
 * The primary-context and module calls exist only so tests/gpu/loadcheck
 * can be dry-run without a GPU; they load nothing. Each device's primary
 * context is a distinct handle, and cuCtxSetCurrent makes one current for
 * the calling thread (thread-local, as in the driver), so cuCtxGetCurrent
 * and cuCtxGetDevice answer which GPU a thread works on (tests/python).
 *
 * The only globals are the state a driver itself holds, set up once under
 * pthread_once, so concurrent callers are safe.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_DEVICES_MAX 16
#define FAKE_ENTRY_MAX 512

#define CUDA_SUCCESS 0
#define CUDA_ERROR_INVALID_VALUE 1
#define CUDA_ERROR_NOT_INITIALIZED 3
#define CUDA_ERROR_STUB_LIBRARY 34
#define CUDA_ERROR_NO_DEVICE 100
#define CUDA_ERROR_INVALID_DEVICE 101
#define CUDA_ERROR_INVALID_IMAGE 200
#define CUDA_ERROR_INVALID_CONTEXT 201
#define CUDA_ERROR_UNKNOWN 999

typedef struct {
    char bytes[16];
} CUuuid;

/* Exported entry points (declared for -Wmissing-prototypes). */
int cuInit(unsigned int flags);
int cuDriverGetVersion(int *version);
int cuDeviceGetCount(int *count);
int cuDeviceGet(int *device, int ordinal);
int cuDeviceGetName(char *name, int len, int dev);
int cuDeviceGetAttribute(int *value, int attrib, int dev);
int cuDeviceTotalMem(unsigned int *bytes, int dev);
int cuDeviceGetUuid(CUuuid *uuid, int dev);
int cuDeviceGetPCIBusId(char *id, int len, int dev);
int cuDevicePrimaryCtxRetain(void **ctx, int dev);
int cuDevicePrimaryCtxRelease(int dev);
int cuCtxSetCurrent(void *ctx);
int cuCtxGetCurrent(void **ctx);
int cuCtxGetDevice(int *device);
int cuModuleLoadData(void **module, const void *image);
int cuModuleUnload(void *module);
#ifndef FAKECUDA_OLD_API
int cuDevicePrimaryCtxRelease_v2(int dev);
int cuDeviceTotalMem_v2(size_t *bytes, int dev);
int cuDeviceGetUuid_v2(CUuuid *uuid, int dev);
int cuGetErrorName(int error, const char **str);
int cuGetErrorString(int error, const char **str);
#endif

struct fake_gpu {
    char name[256];
    int cc_major, cc_minor, sm_count;
    unsigned long long bytes;
    unsigned char uuid[16];
    char uuid_text[48]; /* "GPU-..." for CUDA_VISIBLE_DEVICES matching */
    int pci_bus;
};

struct fake_driver {
    int driver_version;
    int init_result; /* what cuInit returns, forever */
    int load_result; /* what cuModuleLoadData returns for a plausible image */
    size_t nphys;
    struct fake_gpu phys[FAKE_DEVICES_MAX];
    size_t n; /* visible, in CUDA ordinal order */
    int visible[FAKE_DEVICES_MAX];
};

static pthread_once_t fake_once = PTHREAD_ONCE_INIT;
static struct fake_driver fake;
static atomic_int fake_initialized;

static int parse_int(const char *s, const char *end, long lo, long hi, long *out)
{
    char buf[32];
    char *e = NULL;
    size_t len = (size_t)(end - s);
    long v;

    if (len == 0 || len >= sizeof(buf))
        return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    errno = 0;
    v = strtol(buf, &e, 10);
    if (errno == ERANGE || *e != '\0' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* One "name,cc,SMs,bytes" entry [s, end) into *g. */
static int parse_device(const char *s, const char *end, struct fake_gpu *g)
{
    char buf[FAKE_ENTRY_MAX];
    char *f[4], *p, *e = NULL;
    size_t len = (size_t)(end - s);
    long major, minor, sms;
    int i;

    if (len >= sizeof(buf))
        return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    f[0] = buf;
    for (i = 1; i < 4; i++) {
        p = strchr(f[i - 1], ',');
        if (p == NULL)
            return -1;
        *p = '\0';
        f[i] = p + 1;
    }
    if (strchr(f[3], ',') != NULL || f[0][0] == '\0' || strlen(f[0]) >= sizeof(g->name))
        return -1;
    p = strchr(f[1], '.');
    if (p == NULL || parse_int(f[1], p, 1, 99, &major) != 0 ||
        parse_int(p + 1, p + strlen(p), 0, 9, &minor) != 0 ||
        parse_int(f[2], f[2] + strlen(f[2]), 1, 100000, &sms) != 0)
        return -1;
    errno = 0;
    g->bytes = strtoull(f[3], &e, 10);
    if (errno == ERANGE || e == f[3] || *e != '\0' || f[3][0] == '-')
        return -1;
    snprintf(g->name, sizeof(g->name), "%s", f[0]);
    g->cc_major = (int)major;
    g->cc_minor = (int)minor;
    g->sm_count = (int)sms;
    return 0;
}

/* Physical index for one CUDA_VISIBLE_DEVICES entry [s, end), or -1. */
static int resolve_visible(const char *s, const char *end)
{
    size_t len = (size_t)(end - s), i;
    int match = -1;
    long v;

    if (len > 4 && strncmp(s, "GPU-", 4) == 0) {
        for (i = 0; i < fake.nphys; i++) {
            if (len <= strlen(fake.phys[i].uuid_text) &&
                strncmp(fake.phys[i].uuid_text, s, len) == 0) {
                if (match >= 0)
                    return -1; /* ambiguous prefix */
                match = (int)i;
            }
        }
        return match;
    }
    for (i = 0; i < len; i++)
        if (s[i] < '0' || s[i] > '9')
            return -1;
    if (parse_int(s, end, 0, (long)fake.nphys - 1, &v) != 0)
        return -1;
    return (int)v;
}

static void apply_visible(void)
{
    const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
    const char *p, *end;
    size_t i;
    int idx;

    fake.n = 0;
    if (cvd == NULL) {
        for (i = 0; i < fake.nphys; i++)
            fake.visible[fake.n++] = (int)i;
        return;
    }
    for (p = cvd; *p != '\0' && fake.n < FAKE_DEVICES_MAX; p = *end ? end + 1 : end) {
        end = strchr(p, ',');
        if (end == NULL)
            end = p + strlen(p);
        idx = resolve_visible(p, end);
        if (idx < 0)
            break;
        for (i = 0; i < fake.n; i++)
            if (fake.visible[i] == idx)
                return; /* a duplicate ends the list too */
        fake.visible[fake.n++] = idx;
    }
}

static void fake_load(void)
{
    const char *v = getenv("PT2SCOPE_FAKECUDA_DRIVER");
    const char *p, *end;
    struct fake_gpu *g;
    long num;
    int k;

    memset(&fake, 0, sizeof(fake));
    fake.driver_version = 12040;
    if (v != NULL && parse_int(v, v + strlen(v), 0, INT_MAX, &num) == 0)
        fake.driver_version = (int)num;
    v = getenv("PT2SCOPE_FAKECUDA_INIT_ERROR");
    if (v != NULL && parse_int(v, v + strlen(v), 0, INT_MAX, &num) == 0)
        fake.init_result = (int)num;
    v = getenv("PT2SCOPE_FAKECUDA_LOAD_RESULT");
    if (v != NULL && parse_int(v, v + strlen(v), 0, INT_MAX, &num) == 0)
        fake.load_result = (int)num;

    v = getenv("PT2SCOPE_FAKECUDA_DEVICES");
    for (p = v != NULL ? v : ""; *p != '\0'; p = *end ? end + 1 : end) {
        end = strchr(p, ';');
        if (end == NULL)
            end = p + strlen(p);
        if (end == p)
            continue;
        if (fake.nphys == FAKE_DEVICES_MAX) {
            fprintf(stderr, "fakecuda: more than %d devices\n", FAKE_DEVICES_MAX);
            fake.init_result = CUDA_ERROR_UNKNOWN;
            return;
        }
        g = &fake.phys[fake.nphys];
        if (parse_device(p, end, g) != 0) {
            fprintf(stderr, "fakecuda: bad device entry %zu in PT2SCOPE_FAKECUDA_DEVICES\n",
                    fake.nphys);
            fake.init_result = CUDA_ERROR_UNKNOWN;
            return;
        }
        g->uuid[0] = (unsigned char)(0xa0 + fake.nphys);
        for (k = 1; k < 16; k++)
            g->uuid[k] = (unsigned char)(0x10 * k + (int)fake.nphys);
        snprintf(g->uuid_text, sizeof(g->uuid_text),
                 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                 g->uuid[0], g->uuid[1], g->uuid[2], g->uuid[3], g->uuid[4], g->uuid[5], g->uuid[6],
                 g->uuid[7], g->uuid[8], g->uuid[9], g->uuid[10], g->uuid[11], g->uuid[12],
                 g->uuid[13], g->uuid[14], g->uuid[15]);
        g->pci_bus = (0x1b + 0x10 * (int)fake.nphys) & 0xff;
        fake.nphys++;
    }
    apply_visible();
    if (fake.init_result == CUDA_SUCCESS && fake.n == 0)
        fake.init_result = CUDA_ERROR_NO_DEVICE;
}

static void fake_setup(void)
{
    pthread_once(&fake_once, fake_load);
}

/* Common gate of the device calls: initialised, valid handle. */
static int check_dev(int dev, const struct fake_gpu **g)
{
    fake_setup();
    if (fake.init_result == CUDA_ERROR_STUB_LIBRARY)
        return CUDA_ERROR_STUB_LIBRARY;
    if (!atomic_load(&fake_initialized))
        return CUDA_ERROR_NOT_INITIALIZED;
    if (dev < 0 || (size_t)dev >= fake.n)
        return CUDA_ERROR_INVALID_DEVICE;
    *g = &fake.phys[fake.visible[dev]];
    return CUDA_SUCCESS;
}

int cuInit(unsigned int flags)
{
    fake_setup();
    if (flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (fake.init_result == CUDA_SUCCESS)
        atomic_store(&fake_initialized, 1);
    return fake.init_result;
}

int cuDriverGetVersion(int *version)
{
    fake_setup();
    if (fake.init_result == CUDA_ERROR_STUB_LIBRARY)
        return CUDA_ERROR_STUB_LIBRARY;
    if (version == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *version = fake.driver_version;
    return CUDA_SUCCESS;
}

int cuDeviceGetCount(int *count)
{
    fake_setup();
    if (fake.init_result == CUDA_ERROR_STUB_LIBRARY)
        return CUDA_ERROR_STUB_LIBRARY;
    if (!atomic_load(&fake_initialized))
        return CUDA_ERROR_NOT_INITIALIZED;
    if (count == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *count = (int)fake.n;
    return CUDA_SUCCESS;
}

int cuDeviceGet(int *device, int ordinal)
{
    const struct fake_gpu *g;
    int rc = check_dev(ordinal, &g);

    if (rc != CUDA_SUCCESS)
        return rc;
    if (device == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *device = ordinal;
    return CUDA_SUCCESS;
}

int cuDeviceGetName(char *name, int len, int dev)
{
    const struct fake_gpu *g;
    int rc = check_dev(dev, &g);

    if (rc != CUDA_SUCCESS)
        return rc;
    if (name == NULL || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    snprintf(name, (size_t)len, "%s", g->name);
    return CUDA_SUCCESS;
}

int cuDeviceGetAttribute(int *value, int attrib, int dev)
{
    const struct fake_gpu *g;
    int rc = check_dev(dev, &g);

    if (rc != CUDA_SUCCESS)
        return rc;
    if (value == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    switch (attrib) {
    case 10: /* WARP_SIZE */
        *value = 32;
        return CUDA_SUCCESS;
    case 16: /* MULTIPROCESSOR_COUNT */
        *value = g->sm_count;
        return CUDA_SUCCESS;
    case 33: /* PCI_BUS_ID */
        *value = g->pci_bus;
        return CUDA_SUCCESS;
    case 34: /* PCI_DEVICE_ID */
    case 50: /* PCI_DOMAIN_ID */
        *value = 0;
        return CUDA_SUCCESS;
    case 75: /* COMPUTE_CAPABILITY_MAJOR */
        *value = g->cc_major;
        return CUDA_SUCCESS;
    case 76: /* COMPUTE_CAPABILITY_MINOR */
        *value = g->cc_minor;
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

/* The pre-CUDA-3.2 ABI: a 32-bit byte count. */
int cuDeviceTotalMem(unsigned int *bytes, int dev)
{
    const struct fake_gpu *g;
    int rc = check_dev(dev, &g);

    if (rc != CUDA_SUCCESS)
        return rc;
    if (bytes == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *bytes = g->bytes > UINT_MAX ? UINT_MAX : (unsigned int)g->bytes;
    return CUDA_SUCCESS;
}

int cuDeviceGetUuid(CUuuid *uuid, int dev)
{
    const struct fake_gpu *g;
    int rc = check_dev(dev, &g);

    if (rc != CUDA_SUCCESS)
        return rc;
    if (uuid == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    memcpy(uuid->bytes, g->uuid, sizeof(uuid->bytes));
    return CUDA_SUCCESS;
}

int cuDeviceGetPCIBusId(char *id, int len, int dev)
{
    const struct fake_gpu *g;
    int rc = check_dev(dev, &g);

    if (rc != CUDA_SUCCESS)
        return rc;
    if (id == NULL || len < 13)
        return CUDA_ERROR_INVALID_VALUE;
    snprintf(id, (size_t)len, "0000:%02X:00.0", (unsigned)g->pci_bus);
    return CUDA_SUCCESS;
}

/* Opaque handles: the addresses only need to be distinct and non-NULL. */
static char fake_context_token[FAKE_DEVICES_MAX], fake_module_token;
/* The calling thread's current context: a device ordinal, or -1. */
static _Thread_local int fake_current = -1;

int cuDevicePrimaryCtxRetain(void **ctx, int dev)
{
    const struct fake_gpu *g;
    int rc = check_dev(dev, &g);

    if (rc != CUDA_SUCCESS)
        return rc;
    if (ctx == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *ctx = &fake_context_token[dev];
    return CUDA_SUCCESS;
}

int cuDevicePrimaryCtxRelease(int dev)
{
    const struct fake_gpu *g;

    return check_dev(dev, &g);
}

int cuCtxSetCurrent(void *ctx)
{
    char *c = ctx;

    fake_setup();
    if (!atomic_load(&fake_initialized))
        return CUDA_ERROR_NOT_INITIALIZED;
    if (c == NULL) {
        fake_current = -1;
        return CUDA_SUCCESS;
    }
    if (c < fake_context_token || c >= fake_context_token + fake.n)
        return CUDA_ERROR_INVALID_CONTEXT;
    fake_current = (int)(c - fake_context_token);
    return CUDA_SUCCESS;
}

int cuCtxGetCurrent(void **ctx)
{
    fake_setup();
    if (!atomic_load(&fake_initialized))
        return CUDA_ERROR_NOT_INITIALIZED;
    if (ctx == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *ctx = fake_current >= 0 ? &fake_context_token[fake_current] : NULL;
    return CUDA_SUCCESS;
}

int cuCtxGetDevice(int *device)
{
    fake_setup();
    if (!atomic_load(&fake_initialized))
        return CUDA_ERROR_NOT_INITIALIZED;
    if (device == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (fake_current < 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    *device = fake_current;
    return CUDA_SUCCESS;
}

/* Byte-wise so a short NUL-terminated image never reads past its NUL. */
static int has_prefix(const unsigned char *image, const char *magic)
{
    size_t i;

    for (i = 0; magic[i] != '\0'; i++)
        if (image[i] != (unsigned char)magic[i])
            return 0;
    return 1;
}

int cuModuleLoadData(void **module, const void *image)
{
    fake_setup();
    if (!atomic_load(&fake_initialized))
        return CUDA_ERROR_NOT_INITIALIZED;
    if (module == NULL || image == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    /* A cubin, a fatbin (0xBA55ED50 little-endian) or PTX text; nothing is parsed. */
    if (!has_prefix(image, "\177ELF") && !has_prefix(image, "\x50\xed\x55\xba") &&
        !has_prefix(image, "//") && !has_prefix(image, ".version"))
        return CUDA_ERROR_INVALID_IMAGE;
    if (fake.load_result != CUDA_SUCCESS)
        return fake.load_result;
    *module = &fake_module_token;
    return CUDA_SUCCESS;
}

int cuModuleUnload(void *module)
{
    return module == &fake_module_token ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

#ifndef FAKECUDA_OLD_API
int cuDeviceTotalMem_v2(size_t *bytes, int dev)
{
    const struct fake_gpu *g;
    int rc = check_dev(dev, &g);

    if (rc != CUDA_SUCCESS)
        return rc;
    if (bytes == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *bytes = (size_t)g->bytes;
    return CUDA_SUCCESS;
}

int cuDevicePrimaryCtxRelease_v2(int dev)
{
    return cuDevicePrimaryCtxRelease(dev);
}

int cuDeviceGetUuid_v2(CUuuid *uuid, int dev)
{
    return cuDeviceGetUuid(uuid, dev);
}

/* A few names only, including 719, which pt2_cuda's own table lacks. */
static const struct {
    int code;
    const char *name, *text;
} fake_errors[] = {
    {0, "CUDA_SUCCESS", "no error"},
    {1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {34, "CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library"},
    {100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {101, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {719, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
     "system has unsupported display driver / cuda driver combination"},
    {999, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

static int lookup_error(int error, const char **str, int text)
{
    size_t i;

    if (str == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    for (i = 0; i < sizeof(fake_errors) / sizeof(fake_errors[0]); i++) {
        if (fake_errors[i].code == error) {
            *str = text ? fake_errors[i].text : fake_errors[i].name;
            return CUDA_SUCCESS;
        }
    }
    *str = NULL;
    return CUDA_ERROR_INVALID_VALUE;
}

int cuGetErrorName(int error, const char **str)
{
    return lookup_error(error, str, 0);
}

int cuGetErrorString(int error, const char **str)
{
    return lookup_error(error, str, 1);
}
#endif
