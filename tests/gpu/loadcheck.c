/*
 * loadcheck.c - ask the real CUDA driver whether each file loads on a GPU.
 *
 * Ground truth for pt2scope's compatibility verdicts, for a machine with an
 * NVIDIA GPU (not part of CI). For every cubin, fatbin or PTX file given it
 * calls cuModuleLoadData in the device's primary context and prints one TSV
 * line:
 *
 *     FILE <TAB> CURESULT <TAB> NAME        e.g. "sm_90a.cubin\t0\tCUDA_SUCCESS"
 *
 * Relocatable cubins (ELF e_type ET_REL, from -rdc or ptxas -c) need the JIT
 * linker, not cuModuleLoadData, so they are reported as "-\tSKIP_RELOCATABLE";
 * a file that cannot be read as "-\tUNREADABLE: <why>".
 * Header lines start with '#': the driver's CUDA version and the device.
 * stdout is flushed after every line so a crash keeps the rows before it.
 *
 * Usage: loadcheck [--device N] [--lib PATH] [--] FILE...
 * Exit: 0 when every file was tried, 2 when the driver or device could not be
 * set up (the reason is on stderr), 64 for a usage error.
 *
 * Built standalone by run.sh (cc -std=c11 loadcheck.c -ldl); like pt2_cuda.c
 * it declares the few Driver API prototypes itself instead of using cuda.h.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FILE_MAX (256L * 1024 * 1024) /* the reference binaries are a few KiB */

typedef int (*cu_init_fn)(unsigned flags);
typedef int (*cu_int_out_fn)(int *out);
typedef int (*cu_device_get_fn)(int *dev, int ordinal);
typedef int (*cu_name_fn)(char *buf, int len, int dev);
typedef int (*cu_attr_fn)(int *value, int attr, int dev);
typedef int (*cu_ctx_retain_fn)(void **ctx, int dev);
typedef int (*cu_ctx_release_fn)(int dev);
typedef int (*cu_ctx_set_fn)(void *ctx);
typedef int (*cu_load_fn)(void **module, const void *image);
typedef int (*cu_unload_fn)(void *module);
typedef int (*cu_error_name_fn)(int cu, const char **name);

struct api {
    cu_init_fn init;
    cu_int_out_fn driver_version;
    cu_device_get_fn device_get;
    cu_name_fn device_name;
    cu_attr_fn attribute;
    cu_ctx_retain_fn ctx_retain;
    cu_ctx_release_fn ctx_release;
    cu_ctx_set_fn ctx_set;
    cu_load_fn load;
    cu_unload_fn unload;
    cu_error_name_fn error_name;
};

static const char *cu_name(const struct api *a, int cu)
{
    const char *name = NULL;

    if (a->error_name != NULL && a->error_name(cu, &name) == 0 && name != NULL)
        return name;
    return "UNNAMED"; /* a driver without cuGetErrorName */
}

/* dlsym, remembering the first missing name. */
static void *need(void *h, const char *name, const char **missing)
{
    void *p = dlsym(h, name);

    if (p == NULL && *missing == NULL)
        *missing = name;
    return p;
}

static int resolve(void *h, struct api *a)
{
    const char *missing = NULL;

    a->init = (cu_init_fn)need(h, "cuInit", &missing);
    a->driver_version = (cu_int_out_fn)need(h, "cuDriverGetVersion", &missing);
    a->device_get = (cu_device_get_fn)need(h, "cuDeviceGet", &missing);
    a->device_name = (cu_name_fn)need(h, "cuDeviceGetName", &missing);
    a->attribute = (cu_attr_fn)need(h, "cuDeviceGetAttribute", &missing);
    a->ctx_retain = (cu_ctx_retain_fn)need(h, "cuDevicePrimaryCtxRetain", &missing);
    a->ctx_release = (cu_ctx_release_fn)dlsym(h, "cuDevicePrimaryCtxRelease_v2");
    if (a->ctx_release == NULL)
        a->ctx_release = (cu_ctx_release_fn)need(h, "cuDevicePrimaryCtxRelease", &missing);
    a->ctx_set = (cu_ctx_set_fn)need(h, "cuCtxSetCurrent", &missing);
    a->load = (cu_load_fn)need(h, "cuModuleLoadData", &missing);
    a->unload = (cu_unload_fn)need(h, "cuModuleUnload", &missing);
    a->error_name = (cu_error_name_fn)dlsym(h, "cuGetErrorName"); /* optional */
    if (missing != NULL) {
        fprintf(stderr, "loadcheck: driver lacks %s\n", missing);
        return -1;
    }
    return 0;
}

/* Whole file plus a NUL (PTX must be NUL-terminated); NULL with errno-style message. */
static unsigned char *read_file(const char *path, long *len_out, const char **why)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    long n;

    *why = NULL;
    if (f == NULL) {
        *why = strerror(errno);
        return NULL;
    }
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        *why = "cannot seek";
        goto out;
    }
    if (n > FILE_MAX) {
        *why = "larger than 256 MiB";
        goto out;
    }
    buf = malloc((size_t)n + 1);
    if (buf == NULL) {
        *why = "out of memory";
        goto out;
    }
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
        *why = "short read";
        free(buf);
        buf = NULL;
        goto out;
    }
    buf[n] = 0;
    *len_out = n;
out:
    fclose(f);
    return buf;
}

static int parse_ordinal(const char *s, int *out)
{
    char *end = NULL;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno == ERANGE || end == s || *end != '\0' || v < 0 || v > INT_MAX)
        return -1;
    *out = (int)v;
    return 0;
}

int main(int argc, char **argv)
{
    const char *lib = "libcuda.so.1", *why;
    struct api a;
    void *h, *ctx = NULL, *mod;
    unsigned char *img;
    char name[256] = "";
    int ordinal = 0, dev = 0, first, rc, ver = 0, major = 0, minor = 0, i;
    long len = 0;

    for (first = 1; first < argc; first++) {
        if (strcmp(argv[first], "--device") == 0 && first + 1 < argc) {
            if (parse_ordinal(argv[++first], &ordinal) != 0) {
                fprintf(stderr, "loadcheck: bad --device %s\n", argv[first]);
                return 64;
            }
        } else if (strcmp(argv[first], "--lib") == 0 && first + 1 < argc) {
            lib = argv[++first];
        } else if (strcmp(argv[first], "--") == 0) {
            first++;
            break;
        } else {
            break;
        }
    }
    if (first >= argc) {
        fprintf(stderr, "usage: loadcheck [--device N] [--lib PATH] [--] FILE...\n");
        return 64;
    }

    h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        fprintf(stderr, "loadcheck: %s\n", dlerror());
        return 2;
    }
    if (resolve(h, &a) != 0)
        return 2;
    if ((rc = a.init(0)) != 0) {
        fprintf(stderr, "loadcheck: cuInit: %d %s\n", rc, cu_name(&a, rc));
        return 2;
    }
    a.driver_version(&ver);
    if ((rc = a.device_get(&dev, ordinal)) != 0) {
        fprintf(stderr, "loadcheck: cuDeviceGet(%d): %d %s\n", ordinal, rc, cu_name(&a, rc));
        return 2;
    }
    a.device_name(name, (int)sizeof(name), dev);
    name[sizeof(name) - 1] = '\0';
    a.attribute(&major, 75, dev);
    a.attribute(&minor, 76, dev);
    if ((rc = a.ctx_retain(&ctx, dev)) != 0 || (rc = a.ctx_set(ctx)) != 0) {
        fprintf(stderr, "loadcheck: primary context: %d %s\n", rc, cu_name(&a, rc));
        return 2;
    }
    printf("# driver\t%d\n# device\t%d\t%s\t%d.%d\n", ver, ordinal, name, major, minor);
    fflush(stdout);

    for (i = first; i < argc; i++) {
        img = read_file(argv[i], &len, &why);
        if (img == NULL) {
            printf("%s\t-\tUNREADABLE: %s\n", argv[i], why);
        } else if (len >= 18 &&
                   memcmp(img,
                          "\x7f"
                          "ELF",
                          4) == 0 &&
                   img[16] == 1 && img[17] == 0) {
            printf("%s\t-\tSKIP_RELOCATABLE\n", argv[i]);
        } else {
            mod = NULL;
            rc = a.load(&mod, img);
            printf("%s\t%d\t%s\n", argv[i], rc, cu_name(&a, rc));
            if (rc == 0)
                a.unload(mod);
        }
        fflush(stdout);
        free(img);
    }
    a.ctx_release(dev);
    return 0;
}
