/*
 * pt2d_path.h - resolve a client's package path inside the model roots.
 *
 * Design: a reference like "team/model.pt2" is looked up under each
 * --model-root in order. The text is checked first (no absolute paths, no
 * ".." components), then it is resolved *beneath* the root: with
 * openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS) where the kernel has
 * it, else (and wherever openat2 cannot decide, e.g. an absolute symlink)
 * by a component-by-component O_NOFOLLOW walk that reads symlinks itself.
 * Nothing outside the root is opened or stat'ed, so no answer depends on
 * what lies outside (every escape is one 403, "resolves outside its model
 * root"). Symlinks that stay inside a root are followed (an absolute one
 * when its text starts with the root's canonical path). FIFOs, sockets,
 * ttys and devices are 404 "not a regular file" and are never opened.
 * A root directory replaced after start keeps being read through its old
 * descriptor while that exists (files inside it are looked up afresh on
 * every request).
 *
 * Ownership: on success the caller owns out->fd (close it); root
 * descriptors belong to whoever called pt2d_path_roots_open().
 */
#ifndef PT2D_PATH_H
#define PT2D_PATH_H

#include <stddef.h>
#include <sys/stat.h>

#include "pt2scope.h"

#define PT2D_PATH_MAX 4096
#define PT2D_NAME_MAX 256

struct pt2d_path_file {
    int fd;                   /* read-only, O_CLOEXEC */
    struct stat st;           /* fstat of fd */
    char name[PT2D_NAME_MAX]; /* basename of the reference, for reports */
};

/*
 * `roots` are absolute, canonical directory paths (realpath). Returns
 * PT2_OK, PT2_ERR_INVALID (malformed reference), PT2_ERR_OUTSIDE_ROOT
 * (escapes: "..", absolute, symlink out, or no roots configured),
 * PT2_ERR_NOT_FOUND (no such regular file in any root) or PT2_ERR_IO.
 */
int pt2d_path_open(const char *const *roots, size_t nroots, const char *rel,
                   struct pt2d_path_file *out, struct pt2_error *err);

/*
 * The same, trying openat2 beneath root_fds[i] first (NULL, or -1 for a
 * root, means by name only). Same results and messages as pt2d_path_open().
 */
int pt2d_path_open_at(const char *const *roots, const int *root_fds, size_t nroots, const char *rel,
                      struct pt2d_path_file *out, struct pt2_error *err);

/*
 * The identity alone: the same resolution, confinement, judgement, results and
 * messages as pt2d_path_open_at(), out->st the fstat of the file's O_PATH
 * descriptor (itself closed), out->fd -1 and nothing opened for reading. For a
 * cache lookup, where a hit reads nothing: one fstatat that follows no link for a
 * regular file named directly in a root, else openat2 + fstat. A file whose
 * reading would be refused is still found: the open that reads says so.
 */
int pt2d_path_stat_at(const char *const *roots, const int *root_fds, size_t nroots, const char *rel,
                      struct pt2d_path_file *out, struct pt2_error *err);

/*
 * Open each root as an O_PATH directory into fds[0..nroots) (-1 where it
 * cannot be opened: that root is then opened by name per request). Returns
 * 1 when openat2 works here, else 0 (the walk resolves every reference).
 * Close with pt2d_path_roots_close(), which accepts fds of -1.
 */
int pt2d_path_roots_open(int *fds, const char *const *roots, size_t nroots);
void pt2d_path_roots_close(int *fds, size_t nroots);

#ifdef PT2SCOPE_TEST_HOOKS
/* Test builds only: 1 makes every lookup take the walk, as on a kernel without openat2. */
void pt2d_path_test_force_walk(int on);
#endif

#endif
