/*
 * pt2d_spool.h - upload bodies streamed into unlinked temporary files.
 *
 * Design: an upload is never held in memory. Its bytes go to a file in the
 * spool directory that has no name from the moment it exists (O_TMPFILE,
 * or mkstemp + immediate unlink where the filesystem lacks it), so a crash
 * or a client disconnect can never leave a file behind: closing the
 * descriptor is the whole cleanup. The receiving thread only writes: the
 * body is not hashed on the way through (an upload's answer is keyed by the
 * digest of what its inspection read, pt2_source_record_digest), so an
 * upload is received at close to the speed of a discarding sink.
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

/* Create an anonymous file in `dir` accepting at most `cap` bytes. */
int pt2d_spool_open(struct pt2d_spool **out, const char *dir, uint64_t cap, struct pt2_error *err);

/* Append bytes; PT2_ERR_TOO_LARGE once the total would pass the cap, PT2_ERR_IO on write errors. */
int pt2d_spool_write(struct pt2d_spool *s, const void *data, size_t len, struct pt2_error *err);

/* The body is complete: further writes are refused. */
void pt2d_spool_finish(struct pt2d_spool *s);

/*
 * Whether an upload could be spooled now: an anonymous file is created in
 * `dir`, one byte written and the file closed. PT2_OK, or PT2_ERR_IO with
 * the reason (a removed or read-only directory, a full disk, no inodes).
 * For /readyz: a replica that would fail every upload is not ready.
 */
int pt2d_spool_check(const char *dir, struct pt2_error *err);

int pt2d_spool_fd(const struct pt2d_spool *s);
uint64_t pt2d_spool_size(const struct pt2d_spool *s);

void pt2d_spool_free(struct pt2d_spool *s);

#endif
