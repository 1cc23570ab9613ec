/*
 * pt2_zipstream.h - a push parser of a zip archive as its bytes arrive.
 *
 * Design: an upload is fed in arbitrary slices. The parser recognises each
 * local header, then the entry's data, then its end, and finally the central
 * directory and the end records; nothing is ever read twice. Every byte is
 * either handed to the keep sink (with its offset in the archive) or, for
 * the data of an entry the `want` predicate declines, counted, its CRC-32
 * checked and dropped. Headers, data descriptors, the central directory,
 * the end records and whatever the parser cannot follow are always kept.
 *
 * torch's writer puts no sizes in a local header (flag bit 3): a stored
 * entry then ends at the data descriptor ("PK\7\b", CRC-32, two sizes of 4
 * or 8 bytes) whose CRC equals the running CRC of the data, whose sizes
 * equal the bytes since the data began, and which is followed by another
 * header signature: weights can contain the signature, not all three. A
 * deflated entry ends where its deflate stream ends. A descriptor without
 * its signature after stored data cannot be told from data and is not
 * followed.
 *
 * When the parser cannot follow the stream (an unknown signature, an
 * encrypted entry, a stored entry whose descriptor never comes, inflate
 * failing), it stops dropping: every later byte is kept, and the reason is
 * recorded. At the end the central directory must agree with what streamed
 * past: each record's local header offset, name, method, sizes and CRC, and
 * the end record's directory offset, size and count. The result is then
 * FOLLOWED (the kept bytes hold everything an inspection of the archive
 * reads through its directory), COMPLETE (not followed, but nothing was
 * dropped: the kept bytes are the whole upload) or LOST (not followed after
 * bytes were dropped; the upload cannot be inspected from what is left).
 *
 * Bounded state: one local or directory header (≤ 30 + 1024 + 65535
 * bytes), a 64-byte carry across slices, an inflate window, and 48 bytes
 * per streamed entry up to PT2_ZIPSTREAM_ENTRIES_MAX (past it the parser
 * stops dropping, as above).
 *
 * Ownership and threads: a pt2_zipstream is one upload's, used by one
 * thread at a time; the sink's context is borrowed and must outlive it.
 */
#ifndef PT2_ZIPSTREAM_H
#define PT2_ZIPSTREAM_H

#include <stddef.h>
#include <stdint.h>

#include "pt2_error.h"

#define PT2_ZIPSTREAM_ENTRIES_MAX 262144u

typedef struct pt2_zipstream pt2_zipstream;

enum pt2_zipstream_result {
    PT2_ZIPSTREAM_FOLLOWED = 0,
    PT2_ZIPSTREAM_COMPLETE = 1,
    PT2_ZIPSTREAM_LOST = 2
};

struct pt2_zipstream_sink {
    /* Bytes kept, at archive offset `off` (offsets only grow). PT2_OK or a status. */
    int (*keep)(void *ctx, uint64_t off, const void *data, size_t len, struct pt2_error *err);
    /* 1 when the data of the entry named `name` (name_len bytes, not NUL-terminated) is kept. */
    int (*want)(void *ctx, const char *name, size_t name_len);
    void *ctx;
};

int pt2_zipstream_new(pt2_zipstream **out, const struct pt2_zipstream_sink *sink,
                      struct pt2_error *err);
/* Feed the next slice. Fails only when the sink fails (or on allocation). */
int pt2_zipstream_feed(pt2_zipstream *zs, const void *data, size_t len, struct pt2_error *err);
/* The upload ended: check the directory against the stream. Fails only as feed does. */
int pt2_zipstream_finish(pt2_zipstream *zs, struct pt2_error *err);

/* After finish: enum pt2_zipstream_result; *reason (borrowed) says why not followed, or "". */
int pt2_zipstream_result(const pt2_zipstream *zs, const char **reason);
/* Bytes fed that were dropped, and the entries whose data was. */
uint64_t pt2_zipstream_dropped(const pt2_zipstream *zs);
uint64_t pt2_zipstream_entries_dropped(const pt2_zipstream *zs);
/* A dropped entry whose data does not match its CRC-32: 1 and its message, else 0. */
int pt2_zipstream_corrupt(const pt2_zipstream *zs, const char **message);

void pt2_zipstream_free(pt2_zipstream *zs);

#endif
