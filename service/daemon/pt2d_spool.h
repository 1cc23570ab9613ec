/*
 * pt2d_spool.h - unlinked temporary files for what an upload keeps.
 *
 * Design: an upload is inspected as it streams (pt2_upload, pt2scope.h):
 * its kept bytes stay in memory up to a cap and past it go to a file in the
 * spool directory, asked for only then. The file has no name from the
 * moment it exists (O_TMPFILE, or mkstemp + immediate unlink where the
 * filesystem lacks it), so a crash or a client disconnect can never leave a
 * file behind: closing the descriptor is the whole cleanup. pt2_upload
 * writes and reads it with pwrite/pread.
 *
 * Ownership: pt2d_spool_open() returns an object freed with
 * pt2d_spool_free() (closes the descriptor). pt2d_spool_fd() is borrowed.
 */
#ifndef PT2D_SPOOL_H
#define PT2D_SPOOL_H

#include <stddef.h>
#include <stdint.h>

#include "pt2scope.h"

struct pt2d_spool;

/* Create an anonymous file in `dir`. */
int pt2d_spool_open(struct pt2d_spool **out, const char *dir, struct pt2_error *err);

/*
 * Whether an upload could be spooled now: an anonymous file is created in
 * `dir`, one byte written and the file closed. PT2_OK, or PT2_ERR_IO with
 * the reason (a removed or read-only directory, a full disk, no inodes).
 * For /readyz: a replica that would fail every upload is not ready.
 */
int pt2d_spool_check(const char *dir, struct pt2_error *err);

int pt2d_spool_fd(const struct pt2d_spool *s);

void pt2d_spool_free(struct pt2d_spool *s);

#endif
