/*
 * pt2_kernelfile.c - a raw kernel file against a device (pt2scope.h,
 * pt2_kernel_file_check).
 *
 * A lone .cubin/.fatbin/.hsaco is what people have when a package failed to
 * load: read it whole (it is small, and capped), identify it by its bytes
 * like any package entry, then apply the package rules to it as a CUDA
 * (or, for AMD code objects, ROCm) kernel set.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pt2_binary.h"
#include "pt2_compat.h"
#include "pt2_rd.h"

int pt2_kernel_file_check(const char *path, const struct pt2_device *dev,
                          struct pt2_verdict_result *out, struct pt2_error *err)
{
    struct pt2_kernel_list ks = {0};
    struct pt2_host_list hs = {0};
    struct pt2_rd rd;
    struct stat st;
    unsigned char *buf = NULL;
    size_t got = 0;
    char eb[128];
    int fd = -1, rc, recognized = 0;

    if (path == NULL || dev == NULL || out == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_kernel_file_check: missing argument");
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0) {
        rc = pt2_error_set(err, PT2_ERR_IO, "%s", pt2_strerror(errno, eb, sizeof(eb)));
        goto cleanup;
    }
    if (!S_ISREG(st.st_mode) || st.st_size <= 0) {
        rc = pt2_error_set(err, PT2_ERR_FORMAT, "not a regular, non-empty file");
        goto cleanup;
    }
    if ((uint64_t)st.st_size > PT2_KERNEL_FILE_MAX) {
        rc = pt2_error_set(err, PT2_ERR_TOO_LARGE, "larger than %u MiB", PT2_KERNEL_FILE_MAX >> 20);
        goto cleanup;
    }
    buf = malloc((size_t)st.st_size);
    if (buf == NULL) {
        rc = pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    while (got < (size_t)st.st_size) {
        ssize_t n = pread(fd, buf + got, (size_t)st.st_size - got, (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rc = pt2_error_set(err, PT2_ERR_IO, "cannot read: %s",
                               n < 0 ? pt2_strerror(errno, eb, sizeof(eb)) : "the file shrank");
            goto cleanup;
        }
        got += (size_t)n;
    }
    pt2_rd_init_mem(&rd, buf, got, path);
    rc = pt2_binary_scan(&rd, path, &ks, &hs, &recognized, err);
    if (rc != PT2_OK)
        goto cleanup;
    if (!recognized || ks.n == 0) {
        rc = pt2_error_set(err, PT2_ERR_FORMAT, "no GPU kernels recognised");
        goto cleanup;
    }
    rc = pt2_compat_gpu(&ks, "cuda", NULL, dev, out, err);
cleanup:
    if (fd >= 0)
        close(fd);
    free(buf);
    pt2_kernel_list_free(&ks);
    pt2_host_list_free(&hs);
    return rc;
}
