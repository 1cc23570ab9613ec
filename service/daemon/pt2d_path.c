/*
 * pt2d_path.c - model-root confinement (see pt2d_path.h).
 *
 * Two ways to the same answer, and neither opens or stats anything outside
 * a root. The fast one: openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)
 * relative to the root's O_PATH descriptor, O_PATH first; the kernel
 * refuses every escape during its walk. The reference one, where openat2
 * is missing (ENOSYS, or EPERM/EINVAL from a seccomp filter, probed once)
 * or cannot decide (EXDEV: an absolute symlink, which may still stay
 * inside, or an escape): a walk component by component, each opened
 * O_PATH | O_NOFOLLOW relative to its parent, symlinks read with
 * readlinkat and spliced into the remaining text (".." applied lexically
 * over directories already proven real), so a link is never followed by
 * the kernel and "link/etc/shadow" is refused at "link" whatever lies
 * beyond: every escape is the same 403. The object found is judged by the
 * fstat of its O_PATH descriptor: anything but a regular file is 404
 * "not a regular file" without ever being opened; a regular file is then
 * reopened for reading and must be the same inode. A regular file named
 * directly in a root is judged by one fstatat that follows no link, which
 * cannot leave the root's directory (top_level).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
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

/* O_NONBLOCK: a file swapped for a FIFO between the stat and the open must not hang a worker. */
#define PATH_OPEN_FLAGS (O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
#define PATH_LINKS_MAX 40 /* the kernel's own limit (ELOOP) */

/* Where the kernel lacks openat2 (or a filter refuses it), or a test build says so. */
static atomic_int no_openat2;

#ifdef PT2SCOPE_TEST_HOOKS
void pt2d_path_test_force_walk(int on)
{
    atomic_store(&no_openat2, on ? 2 : 0);
}
#endif

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

/*
 * The walk's state: the path still to resolve, relative to the root, as
 * text. Components before `done` are real directories already opened (so a
 * ".." after them is lexical: their parent), none of them a symlink.
 */
struct walk {
    char path[2 * PT2D_PATH_MAX];
    size_t done; /* bytes of path already walked */
    unsigned links;
};

/*
 * Rebuild w->path as the walked prefix, then `target` (a symlink's text),
 * then `rest`, with "." and ".." applied lexically. 1 when it stays inside
 * the root, 0 when it climbs out of it (or names an absolute place that is
 * not under `root`), -1 when too long.
 */
static int walk_splice(struct walk *w, const char *root, const char *target, const char *rest)
{
    char out[2 * PT2D_PATH_MAX], in[3 * PT2D_PATH_MAX + 2];
    size_t n = 0, rl = strlen(root);
    const char *p;

    if (target[0] == '/') {
        /* Absolute: inside only when under the root's canonical name; then relative to it. */
        if (strcmp(root, "/") == 0)
            rl = 0;
        else if (strncmp(target, root, rl) != 0 || (target[rl] != '/' && target[rl] != '\0'))
            return 0;
        if ((size_t)snprintf(in, sizeof(in), "%s/%s", target + rl, rest) >= sizeof(in))
            return -1;
    } else if ((size_t)snprintf(in, sizeof(in), "%.*s/%s/%s", (int)w->done, w->path, target,
                                rest) >= sizeof(in)) {
        return -1;
    }
    for (p = in; *p != '\0';) {
        size_t c = strcspn(p, "/");
        if (c == 2 && p[0] == '.' && p[1] == '.') {
            if (n == 0)
                return 0; /* above the root */
            while (n > 0 && out[n - 1] != '/')
                n--;
            if (n > 0)
                n--;
        } else if (c > 0 && !(c == 1 && p[0] == '.')) {
            if (n + c + 2 > sizeof(out))
                return -1;
            if (n > 0)
                out[n++] = '/';
            memcpy(out + n, p, c);
            n += c;
        }
        p += c;
        while (*p == '/')
            p++;
    }
    memcpy(w->path, out, n);
    w->path[n] = '\0';
    w->done = 0;
    return 1;
}

enum walk_result { WALK_OK, WALK_MISSING, WALK_OUTSIDE, WALK_LOOP, WALK_DENIED, WALK_ERROR };

static enum walk_result walk_errno(int e)
{
    if (e == ENOENT || e == ENOTDIR || e == ENAMETOOLONG)
        return WALK_MISSING;
    return e == EACCES || e == EPERM ? WALK_DENIED : WALK_ERROR;
}

/*
 * `comp`, in directory `dir`, is a symlink: splice its text into the walk.
 * WALK_OK to walk again from the root; else why not (out, a loop, ...).
 */
static enum walk_result walk_link(struct walk *w, int dir, const char *comp, const char *rest,
                                  const char *root)
{
    char target[PT2D_PATH_MAX], restcopy[2 * PT2D_PATH_MAX];
    ssize_t n = readlinkat(dir, comp, target, sizeof(target) - 1);
    int in;

    if (n < 0)
        return walk_errno(errno);
    if (++w->links > PATH_LINKS_MAX)
        return WALK_LOOP;
    target[n] = '\0';
    snprintf(restcopy, sizeof(restcopy), "%s", rest); /* rest points into w->path */
    in = walk_splice(w, root, target, restcopy);
    return in == 1 ? WALK_OK : in == 0 ? WALK_OUTSIDE : WALK_MISSING;
}

/*
 * One component at a time from the root, each opened O_PATH | O_NOFOLLOW
 * relative to its parent: a symlink is read (readlinkat, inside the root)
 * and spliced into the text, never followed by the kernel, so nothing
 * outside the root is ever opened or stat'ed. On WALK_OK *fd is the last
 * component's O_PATH descriptor, *dir its parent's, *st its fstat.
 */
static enum walk_result walk_root(int rootfd, const char *root, const char *rel, int *dir, int *fd,
                                  struct stat *st, char *last, size_t cap)
{
    struct walk w = {{0}, 0, 0};
    char comp[PT2D_PATH_MAX];
    int cur = -1, next;

    if (walk_splice(&w, root, "", rel) != 1)
        return WALK_MISSING;
restart:
    if (cur >= 0)
        close(cur);
    cur = openat(rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (cur < 0)
        return walk_errno(errno);
    if (w.path[0] == '\0') { /* the root itself: a directory */
        *dir = -1;
        *fd = cur;
        return fstat(cur, st) == 0 ? WALK_OK : WALK_ERROR;
    }
    for (;;) {
        size_t c = strcspn(w.path + w.done, "/");
        const char *rest = w.path + w.done + c + (w.path[w.done + c] == '/');

        if (c >= sizeof(comp)) {
            close(cur);
            return WALK_MISSING;
        }
        memcpy(comp, w.path + w.done, c);
        comp[c] = '\0';
        next = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0 || fstat(next, st) != 0) {
            int e = errno;
            if (next >= 0)
                close(next);
            close(cur);
            return walk_errno(e);
        }
        if (S_ISLNK(st->st_mode)) {
            enum walk_result r;

            close(next);
            r = walk_link(&w, cur, comp, rest, root);
            if (r != WALK_OK) {
                close(cur);
                return r;
            }
            goto restart;
        }
        if (*rest == '\0') {
            *dir = cur;
            *fd = next;
            snprintf(last, cap, "%s", comp);
            return WALK_OK;
        }
        close(cur);
        if (!S_ISDIR(st->st_mode)) {
            close(next);
            return WALK_MISSING;
        }
        cur = next;
        w.done = (size_t)(rest - w.path);
    }
}

int pt2d_path_roots_open(int *fds, const char *const *roots, size_t nroots)
{
    size_t i;
    int probe;

    for (i = 0; i < nroots; i++) {
        fds[i] = open(roots[i], O_PATH | O_DIRECTORY | O_CLOEXEC);
        /* Probe once, so a kernel or seccomp filter without openat2 costs nothing per request. */
        if (fds[i] < 0 || atomic_load(&no_openat2))
            continue; /* a root missing now is opened by name per request */
        probe = path_openat2(fds[i], ".", O_PATH | O_CLOEXEC);
        if (probe >= 0)
            close(probe);
        else if (errno == ENOSYS || errno == EPERM || errno == EINVAL)
            atomic_store(&no_openat2, 1);
    }
    return !atomic_load(&no_openat2);
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

/*
 * The fast way: openat2 beneath the root, O_PATH first (a FIFO, socket,
 * tty or device is never opened for reading). WALK_ERROR with errno
 * ENOSYS-like or EXDEV means "the walk decides": an absolute symlink that
 * may still stay inside, or an escape, which the walk words as one 403.
 */
static enum walk_result fast_root(int rootfd, const char *rel, int *fd, struct stat *st,
                                  int *decide)
{
    int e;

    *decide = 1;
    *fd = path_openat2(rootfd, rel, O_PATH | O_CLOEXEC);
    if (*fd >= 0) {
        *decide = 0;
        if (fstat(*fd, st) == 0)
            return WALK_OK;
        e = errno;
        close(*fd);
        *fd = -1;
        errno = e;
        return WALK_ERROR;
    }
    e = errno;
    if (e == ENOENT || e == ENOTDIR || e == ENAMETOOLONG || e == EACCES || e == ELOOP) {
        *decide = 0;
        return e == ELOOP ? WALK_LOOP : walk_errno(e);
    }
    if (e == ENOSYS)
        atomic_store(&no_openat2, 1);
    return WALK_ERROR;
}

/*
 * Reopen a regular file judged through its O_PATH descriptor (or its fstatat,
 * `top`) for reading: by its last name in its parent (the walk), by its name
 * in the root without following a link (top: no openat2 needed), or openat2.
 */
static int reopen(int rootfd, int dir, int top, const char *rel, const char *last,
                  const struct stat *st)
{
    struct stat now;
    int fd = dir >= 0 ? openat(dir, last, PATH_OPEN_FLAGS | O_NOFOLLOW)
             : top    ? openat(rootfd, rel, PATH_OPEN_FLAGS | O_NOFOLLOW)
                      : path_openat2(rootfd, rel, PATH_OPEN_FLAGS);

    if (fd < 0)
        return -1;
    /* Swapped since the stat: not the file that was judged. */
    if (fstat(fd, &now) != 0 || now.st_dev != st->st_dev || now.st_ino != st->st_ino) {
        close(fd);
        errno = ENOENT;
        return -1;
    }
    return fd;
}

static int path_result(enum walk_result r, const char *rel, int e, struct pt2_error *err)
{
    char eb[128];

    switch (r) {
    case WALK_OUTSIDE:
        /* One answer for every escape, whatever lies beyond (no existence oracle). */
        return pt2_error_set(err, PT2_ERR_OUTSIDE_ROOT, "path '%s' resolves outside its model root",
                             rel);
    case WALK_LOOP:
        return pt2_error_set(err, PT2_ERR_INVALID, "path '%s': too many symlinks", rel);
    case WALK_DENIED:
        /* The client's doing only in that it named the file: 403, and the
         * permissions, owners and modes of the server's files stay unsaid. */
        return pt2_error_set(err, PT2_ERR_FORBIDDEN, "path '%s' cannot be read", rel);
    case WALK_MISSING:
        return pt2_error_set(err, PT2_ERR_NOT_FOUND, "no package '%s' under any model root", rel);
    default:
        return pt2_error_set(err, PT2_ERR_IO, "cannot open '%s': %s", rel,
                             strerror_r(e, eb, sizeof(eb)));
    }
}

/* One root's answer: the O_PATH descriptor, its parent (the walk) or -1, and its last name.
 * A regular file found with fd -1 was found by top_level, which opens nothing. */
struct found {
    int fd, dir, root;
    char last[PT2D_PATH_MAX];
};

static void found_close(struct found *f)
{
    if (f->fd >= 0)
        close(f->fd);
    if (f->dir >= 0)
        close(f->dir);
    if (f->root >= 0)
        close(f->root);
    f->fd = f->dir = f->root = -1;
}

/*
 * A name directly in the root (no '/'): fstatat without following a link
 * cannot leave the root's directory, and a regular file found so is the
 * object openat2 would resolve, in one call instead of three (this is a
 * cached request's whole lookup). WALK_OK, WALK_MISSING where the name is
 * not there, or WALK_ERROR: a link, a directory or any other answer, which
 * openat2 and the walk then decide and word.
 */
static enum walk_result top_level(int rootfd, const char *rel, struct stat *st)
{
    if (strchr(rel, '/') != NULL)
        return WALK_ERROR;
    if (fstatat(rootfd, rel, st, AT_SYMLINK_NOFOLLOW) != 0)
        return errno == ENOENT ? WALK_MISSING : WALK_ERROR;
    return S_ISREG(st->st_mode) ? WALK_OK : WALK_ERROR;
}

/* Resolve `rel` under one root: WALK_OK with f filled and *st the object's fstat. */
static enum walk_result path_one_root(const char *root, int rootfd, const char *rel,
                                      struct found *f, struct stat *st)
{
    enum walk_result r;
    int decide = 1;

    f->fd = f->dir = f->root = -1;
    if (rootfd >= 0 && !atomic_load(&no_openat2)) {
        /* Found so, f holds nothing: the reopen is by name in the root, no link followed. */
        r = top_level(rootfd, rel, st);
        if (r != WALK_ERROR)
            return r;
        r = fast_root(rootfd, rel, &f->fd, st, &decide);
        if (!decide)
            return r;
    }
    if (rootfd < 0) {
        /* A root that could not be opened at start (or a caller without descriptors). */
        f->root = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (f->root < 0)
            return walk_errno(errno);
    }
    r = walk_root(f->root >= 0 ? f->root : rootfd, root, rel, &f->dir, &f->fd, st, f->last,
                  sizeof(f->last));
    /* "a.pt2/" names a directory: the kernel says ENOTDIR, and so does the walk. */
    if (r == WALK_OK && rel[strlen(rel) - 1] == '/' && !S_ISDIR(st->st_mode)) {
        found_close(f);
        r = WALK_MISSING;
    }
    return r;
}

static void path_base(const char *rel, char *out, size_t cap)
{
    const char *base = strrchr(rel, '/');
    size_t len;

    base = base != NULL ? base + 1 : rel;
    /* What snprintf("%s") would keep, without it (this runs per request). */
    len = strnlen(base, cap - 1);
    memcpy(out, base, len);
    out[len] = '\0';
}

/*
 * Resolve `rel` under the first root that has it and judge it: PT2_OK only for
 * a regular file, with *f still open (the caller closes it) and out->st its fstat.
 */
static int path_judge(const char *const *roots, const int *root_fds, size_t nroots, const char *rel,
                      struct found *f, int *rootfd, struct pt2d_path_file *out,
                      struct pt2_error *err)
{
    enum walk_result r = WALK_MISSING;
    size_t i;
    int rc;

    out->fd = -1;
    *rootfd = -1;
    rc = path_check_text(rel, err);
    if (rc != PT2_OK)
        return rc;
    if (nroots == 0)
        return pt2_error_set(err, PT2_ERR_OUTSIDE_ROOT,
                             "path references are disabled: no --model-root is configured");
    for (i = 0; i < nroots; i++) {
        *rootfd = root_fds != NULL ? root_fds[i] : -1;
        r = path_one_root(roots[i], *rootfd, rel, f, &out->st);
        if (r != WALK_MISSING)
            break;
        found_close(f);
    }
    if (r != WALK_OK) {
        rc = path_result(r, rel, errno, err);
        found_close(f);
        return rc;
    }
    /* Judged without opening it: a FIFO, socket, tty or device is never opened. */
    if (!S_ISREG(out->st.st_mode)) {
        found_close(f);
        return pt2_error_set(err, PT2_ERR_NOT_FOUND, "'%s' is not a regular file", rel);
    }
    return PT2_OK;
}

int pt2d_path_stat_at(const char *const *roots, const int *root_fds, size_t nroots, const char *rel,
                      struct pt2d_path_file *out, struct pt2_error *err)
{
    struct found f = {-1, -1, -1, ""};
    int rootfd, rc = path_judge(roots, root_fds, nroots, rel, &f, &rootfd, out, err);

    if (rc != PT2_OK)
        return rc;
    found_close(&f);
    path_base(rel, out->name, sizeof(out->name));
    return PT2_OK;
}

int pt2d_path_open_at(const char *const *roots, const int *root_fds, size_t nroots, const char *rel,
                      struct pt2d_path_file *out, struct pt2_error *err)
{
    struct found f = {-1, -1, -1, ""};
    int fd, rootfd, rc = path_judge(roots, root_fds, nroots, rel, &f, &rootfd, out, err);

    if (rc != PT2_OK)
        return rc;
    fd = reopen(f.root >= 0 ? f.root : rootfd, f.dir, f.fd < 0, rel, f.last, &out->st);
    if (fd < 0) {
        rc = path_result(walk_errno(errno), rel, errno, err);
        found_close(&f);
        return rc;
    }
    found_close(&f);
    /* Back to blocking reads now that we know it is a regular file. */
    if (fcntl(fd, F_SETFL, 0) != 0) {
        char eb[128];
        rc = pt2_error_set(err, PT2_ERR_IO, "cannot use '%s': %s", rel,
                           strerror_r(errno, eb, sizeof(eb)));
        close(fd);
        return rc;
    }
    path_base(rel, out->name, sizeof(out->name));
    out->fd = fd;
    return PT2_OK;
}
