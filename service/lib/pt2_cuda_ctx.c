/*
 * pt2_cuda_ctx.c - which GPU the calling thread's CUDA context is on.
 *
 * Design: a process that already works with the GPU (torch, cupy, a
 * serving runtime) has a current context on its thread; the device of that
 * context is the one the worker was given. This asks the driver the process
 * has loaded (dlopen of the same name returns the same library) with
 * cuCtxGetCurrent and cuCtxGetDevice. It never calls cuInit and never
 * creates a context: a driver that was never initialised, or a thread
 * without a context, simply has no current device. The library is opened
 * with RTLD_NODELETE, as pt2_cuda.c explains, and no state is kept, so
 * concurrent calls are safe.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_cuda.h"

typedef int (*cu_ctx_get_current_fn)(void **ctx);
typedef int (*cu_ctx_get_device_fn)(int *dev);

int pt2_cuda_current_device(const char *libpath, int *ordinal, struct pt2_error *err)
{
    cu_ctx_get_current_fn get_current;
    cu_ctx_get_device_fn get_device;
    void *h, *ctx = NULL;
    int dev = -1;

    if (ordinal == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_cuda_current_device: no output");
    *ordinal = -1;
    if (libpath == NULL || libpath[0] == '\0')
        libpath = getenv(PT2_CUDA_LIB_ENV);
    if (libpath == NULL || libpath[0] == '\0')
        libpath = PT2_CUDA_DEFAULT_LIB;
    h = dlopen(libpath, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (h == NULL)
        return PT2_OK; /* no driver: no context either */
    get_current = (cu_ctx_get_current_fn)dlsym(h, "cuCtxGetCurrent");
    get_device = (cu_ctx_get_device_fn)dlsym(h, "cuCtxGetDevice");
    if (get_current != NULL && get_device != NULL && get_current(&ctx) == 0 && ctx != NULL &&
        get_device(&dev) == 0 && dev >= 0)
        *ordinal = dev; /* a CUdevice is its ordinal */
    dlclose(h);
    return PT2_OK;
}
