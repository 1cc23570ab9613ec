/*
 * pt2d_path.c - model-root confinement (see pt2d_path.h).
 *
 * Two ways to the same answer. The fast one, per root opened once with
 * pt2d_path_roots_open(): one openat2(RESOLVE_BENEATH) relative to the
 * root's O_PATH descriptor; the kernel refuses every escape during the
 * walk, so no canonical name needs checking afterwards (the readlink of
 * /proc/self/fd and the open by full name were ~17 % of a cached request).
 * The portable one (open by name, then prove the descriptor's real path is
 * inside) runs whenever the fast one cannot decide: no descriptor, a
 * kernel without openat2 (ENOSYS, or EPERM/EINVAL from a seccomp filter),
 * or any refusal (EXDEV: an absolute symlink, even one that stays inside;
 * ELOOP; EACCES) - so the result and every message stay those of the
 * portable code, which is the reference.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
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
        return pt2_error_set(err, PT2_ERR_OUTSIDE_ROOT,
                             "path '%s' is absolute; name a file relative to a model root", rel);
    while (*p != '\0') {
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return pt2_error_set(err, PT2_ERR_OUTSIDE_ROOT,
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

/* O_NONBLOCK: opening a FIFO planted in a root must not hang a worker. */
#define PATH_OPEN_FLAGS (O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)

/* openat2 beneath `dirfd`; -1 with errno set (ENOSYS where the kernel lacks it). */
static int path_openat2(int dirfd, const char *rel, unsigned long long flags)
{
#ifdef SYS_openat2
    struct open_how how;

    memset(&how, 0, sizeof(how));
    how.flags = flags;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
    return (int)syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
#else
    (void)dirfd;
    (void)rel;
    (void)flags;
    errno = ENOSYS;
    return -1;
#endif
}

int pt2d_path_roots_open(int *fds, const char *const *roots, size_t nroots)
{
    size_t i;
    int probe, usable = 1;

    for (i = 0; i < nroots; i++)
        fds[i] = -1;
    for (i = 0; i < nroots && usable; i++) {
        fds[i] = open(roots[i], O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (fds[i] < 0)
            continue; /* a root missing now is looked up by name per request, as before */
        /* Probe once, so a kernel or seccomp filter without openat2 costs nothing per request. */
        probe = path_openat2(fds[i], ".", O_PATH | O_CLOEXEC);
        if (probe >= 0)
            close(probe);
        else if (errno == ENOSYS || errno == EPERM || errno == EINVAL)
            usable = 0;
    }
    if (!usable) {
        pt2d_path_roots_close(fds, nroots);
        return 0;
    }
    return 1;
}

void pt2d_path_roots_close(int *fds, size_t nroots)
{
    size_t i;

    for (i = 0; fds != NULL && i < nroots; i++) {
        if (fds[i] >= 0)
            close(fds[i]);
        fds[i] = -1;
    }
}

int pt2d_path_open(const char *const *roots, size_t nroots, const char *rel,
                   struct pt2d_path_file *out, struct pt2_error *err)
{
    return pt2d_path_open_at(roots, NULL, nroots, rel, out, err);
}

int pt2d_path_open_at(const char *const *roots, const int *root_fds, size_t nroots, const char *rel,
                      struct pt2d_path_file *out, struct pt2_error *err)
{
    char candidate[2 * PT2D_PATH_MAX], real[PT2D_PATH_MAX], eb[128];
    const char *base;
    size_t i, len;
    int rc, fd = -1, beneath = 0;

    out->fd = -1;
    rc = path_check_text(rel, err);
    if (rc != PT2_OK)
        return rc;
    if (nroots == 0)
        return pt2_error_set(err, PT2_ERR_OUTSIDE_ROOT,
                             "path references are disabled: no --model-root is configured");
    for (i = 0; i < nroots; i++) {
        if (root_fds != NULL && root_fds[i] >= 0) {
            fd = path_openat2(root_fds[i], rel, PATH_OPEN_FLAGS);
            if (fd >= 0) {
                beneath = 1;
                break;
            }
            if (errno == ENOENT || errno == ENOTDIR || errno == ENAMETOOLONG)
                continue;
            /* Refused or unsupported: the portable code below decides and words it. */
        }
        snprintf(candidate, sizeof(candidate), "%s/%s", roots[i], rel);
        fd = open(candidate, PATH_OPEN_FLAGS);
        if (fd >= 0)
            break;
        /* A component longer than NAME_MAX names nothing that can exist: not found. */
        if (errno != ENOENT && errno != ENOTDIR && errno != ENAMETOOLONG) {
            if (errno == ELOOP)
                return pt2_error_set(err, PT2_ERR_INVALID, "path '%s': too many symlinks", rel);
            /* The client's doing only in that it named the file: 403, and the
             * permissions, owners and modes of the server's files stay unsaid. */
            if (errno == EACCES || errno == EPERM)
                return pt2_error_set(err, PT2_ERR_FORBIDDEN, "path '%s' cannot be read", rel);
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
    /* openat2 proved confinement during the walk; a name-based open proves it now. */
    if (!beneath) {
        if (path_real_of_fd(fd, candidate, &out->st, real, sizeof(real)) != 0) {
            rc = pt2_error_set(err, PT2_ERR_IO, "cannot resolve '%s'", rel);
            goto cleanup;
        }
        if (!path_inside(roots[i], real)) {
            rc = pt2_error_set(err, PT2_ERR_OUTSIDE_ROOT,
                               "path '%s' resolves outside its model root", rel);
            goto cleanup;
        }
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
    base = base != NULL ? base + 1 : rel;
    /* What snprintf("%s") would keep, without it (this runs per request). */
    len = strnlen(base, sizeof(out->name) - 1);
    memcpy(out->name, base, len);
    out->name[len] = '\0';
    out->fd = fd;
    return PT2_OK;
cleanup:
    close(fd);
    return rc;
}
