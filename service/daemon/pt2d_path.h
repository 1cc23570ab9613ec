/*
 * pt2d_path.h - resolve a client's package path inside the model roots.
 *
 * Design: a reference like "team/model.pt2" is looked up under each
 * --model-root in order. The text is checked first (no absolute paths, no
 * ".." components), then the file is opened and the *opened descriptor's*
 * real path (/proc/self/fd, or realpath + st_dev/st_ino when /proc is
 * missing) must lie inside the root: checking the name and then opening it
 * would race with a symlink swap (TOCTOU). Symlinks that stay inside a
 * root are followed.
 *
 * Ownership: on success the caller owns out->fd (close it).
 */
#ifndef PT2D_PATH_H
#define PT2D_PATH_H

#include <stddef.h>
#include <sys/stat.h>

#include "pt2_error.h"

#define PT2D_PATH_MAX 4096
#define PT2D_NAME_MAX 256

struct pt2d_path_file {
    int fd;                   /* read-only, O_CLOEXEC */
    struct stat st;           /* fstat of fd */
    char name[PT2D_NAME_MAX]; /* basename of the reference, for reports */
};

/*
 * `roots` are absolute, canonical directory paths (realpath). Returns
 * PT2_OK, PT2_ERR_INVALID (malformed reference), PT2D_ERR_OUTSIDE_ROOT
 * (escapes: "..", absolute, symlink out, or no roots configured),
 * PT2_ERR_NOT_FOUND (no such regular file in any root) or PT2_ERR_IO.
 */
int pt2d_path_open(const char *const *roots, size_t nroots, const char *rel,
                   struct pt2d_path_file *out, struct pt2_error *err);

#endif
