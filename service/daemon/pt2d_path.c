/*
 * pt2d_path.c - model-root confinement (see pt2d_path.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pt2d_path.h"
#include "pt2d_problem.h"

/* Lexical checks that need no filesystem access. */
static int path_check_text(const char *rel, struct pt2_error *err)
{
    const char *p = rel;
    size_t len = strnlen(rel, PT2D_PATH_MAX);

    if (len == 0)
        return pt2_error_set(err, PT2_ERR_INVALID, "path is empty");
    if (len >= PT2D_PATH_MAX)
        return pt2_error_set(err, PT2_ERR_INVALID, "path is longer than %d bytes",
                             PT2D_PATH_MAX - 1);
    if (rel[0] == '/')
        return pt2_error_set(err, PT2D_ERR_OUTSIDE_ROOT,
                             "path '%s' is absolute; name a file relative to a model root", rel);
    while (*p != '\0') {
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return pt2_error_set(err, PT2D_ERR_OUTSIDE_ROOT,
                                 "path '%s' contains '..'; it must stay inside a model root", rel);
        p += n;
        while (*p == '/')
            p++;
    }
    return PT2_OK;
}

static int path_inside(const char *root, const char *real)
{
    size_t n = strlen(root);

    if (strcmp(root, "/") == 0)
        return real[0] == '/';
    return strncmp(root, real, n) == 0 && real[n] == '/';
}

/* The canonical path of what `fd` refers to, checked against `candidate`. */
static int path_real_of_fd(int fd, const char *candidate, const struct stat *st, char *real,
                           size_t cap)
{
    char proc[64];
    char *rp;
    struct stat rs;
    ssize_t n;

    snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
    n = readlink(proc, real, cap - 1);
    if (n > 0 && (size_t)n < cap - 1) {
        real[n] = '\0';
        return 0;
    }
    /* No /proc: canonicalise the name and prove it is still the opened file. */
    rp = realpath(candidate, NULL);
    if (rp == NULL)
        return -1;
    if (stat(rp, &rs) != 0 || rs.st_dev != st->st_dev || rs.st_ino != st->st_ino ||
        strlen(rp) >= cap) {
        free(rp);
        return -1;
    }
    snprintf(real, cap, "%s", rp);
    free(rp);
    return 0;
}

int pt2d_path_open(const char *const *roots, size_t nroots, const char *rel,
                   struct pt2d_path_file *out, struct pt2_error *err)
{
    char candidate[2 * PT2D_PATH_MAX], real[PT2D_PATH_MAX], eb[128];
    const char *base;
    size_t i;
    int rc, fd = -1;

    out->fd = -1;
    rc = path_check_text(rel, err);
    if (rc != PT2_OK)
        return rc;
    if (nroots == 0)
        return pt2_error_set(err, PT2D_ERR_OUTSIDE_ROOT,
                             "path references are disabled: no --model-root is configured");
    for (i = 0; i < nroots; i++) {
        snprintf(candidate, sizeof(candidate), "%s/%s", roots[i], rel);
        /* O_NONBLOCK: opening a FIFO planted in a root must not hang a worker. */
        fd = open(candidate, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd >= 0)
            break;
        if (errno != ENOENT && errno != ENOTDIR) {
            if (errno == ELOOP)
                return pt2_error_set(err, PT2_ERR_INVALID, "path '%s': too many symlinks", rel);
            return pt2_error_set(err, PT2_ERR_IO, "cannot open '%s': %s", rel,
                                 strerror_r(errno, eb, sizeof(eb)));
        }
    }
    if (fd < 0)
        return pt2_error_set(err, PT2_ERR_NOT_FOUND, "no package '%s' under any model root", rel);
    if (fstat(fd, &out->st) != 0) {
        rc = pt2_error_set(err, PT2_ERR_IO, "cannot stat '%s': %s", rel,
                           strerror_r(errno, eb, sizeof(eb)));
        goto cleanup;
    }
    if (path_real_of_fd(fd, candidate, &out->st, real, sizeof(real)) != 0) {
        rc = pt2_error_set(err, PT2_ERR_IO, "cannot resolve '%s'", rel);
        goto cleanup;
    }
    if (!path_inside(roots[i], real)) {
        rc = pt2_error_set(err, PT2D_ERR_OUTSIDE_ROOT, "path '%s' resolves outside its model root",
                           rel);
        goto cleanup;
    }
    if (!S_ISREG(out->st.st_mode)) {
        rc = pt2_error_set(err, PT2_ERR_NOT_FOUND, "'%s' is not a regular file", rel);
        goto cleanup;
    }
    /* Back to blocking reads now that we know it is a regular file. */
    if (fcntl(fd, F_SETFL, 0) != 0) {
        rc = pt2_error_set(err, PT2_ERR_IO, "cannot use '%s': %s", rel,
                           strerror_r(errno, eb, sizeof(eb)));
        goto cleanup;
    }
    base = strrchr(rel, '/');
    snprintf(out->name, sizeof(out->name), "%s", base != NULL ? base + 1 : rel);
    out->fd = fd;
    return PT2_OK;
cleanup:
    close(fd);
    return rc;
}
