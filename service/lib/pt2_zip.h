/*
 * pt2_zip.h - read-only, bounded, counted access to the entries of a zip.
 *
 * Design: stored archives as torch writes them are read directly from their
 * buffered central directory (pt2_zip.c says when); everything else is
 * libzip's, fed the file through a custom source that reads with pread()
 * and counts every byte and call, so the inspector can prove it read only
 * headers. Before libzip opens the
 * file, pt2_zip_eocd reads its end records and applies the caps on entries
 * and directory size; while opening, pt2_zip_layout supplies the .pt2 rules
 * for the archive prefix (entries are exposed both raw and relative to it)
 * and the model folders. On top of libzip: whole reads of small entries up
 * to a cap, and a random-access struct pt2_rd over one entry that seeks
 * inside stored entries instead of reading what lies between (see pt2_rd.h).
 *
 * Errors (enum pt2_status): PT2_ERR_IO (open/read failure), PT2_ERR_NOT_ZIP
 * (no end-of-central-directory record anywhere), PT2_ERR_TRUNCATED (a zip,
 * but cut or with a central directory that does not fit the file),
 * PT2_ERR_ENTRY (an entry cannot be read), PT2_ERR_TOO_LARGE (a cap here, in
 * pt2_zip_eocd.h or in pt2_zip_layout.h was hit).
 *
 * Ownership and threads: a pt2_zip owns its libzip archive and, when opened
 * by path, its descriptor; a descriptor passed to pt2_zip_open_fd() stays the
 * caller's (only pread() is used on it, never close). Names returned are
 * borrowed from the pt2_zip. A pt2_zip_entry borrows its pt2_zip, which must
 * outlive it; several entries may be open at once. One pt2_zip (with its
 * entries) must be used by one thread at a time; separate pt2_zip objects,
 * even on the same file, are independent and may live in different threads.
 */
#ifndef PT2_ZIP_H
#define PT2_ZIP_H

#include <stddef.h>
#include <stdint.h>

#include "pt2_error.h"
#include "pt2_rd.h"
#include "pt2scope.h"

#define PT2_ZIP_NAME_LEN_MAX 1024u                 /* bytes in one entry name */
#define PT2_ZIP_SKIP_MAX (64u * 1024u * 1024u)     /* one forward skip in a compressed entry */
#define PT2_ZIP_INFLATE_MAX (128u * 1024u * 1024u) /* inflated only to seek, per reader */
/* Bytes inflated only to seek, by all readers of one pt2_zip together. */
#define PT2_ZIP_INFLATE_TOTAL_MAX (256u * 1024u * 1024u)

typedef struct pt2_zip pt2_zip;
typedef struct pt2_zip_entry pt2_zip_entry;

/* Open the archive at `path` / on the caller's descriptor `fd`. *out is NULL on failure. */
int pt2_zip_open_path(pt2_zip **out, const char *path, struct pt2_error *err) PT2_WARN_UNUSED;
int pt2_zip_open_fd(pt2_zip **out, int fd, struct pt2_error *err) PT2_WARN_UNUSED;
/* Open the archive behind a byte source (borrowed: it must outlive the pt2_zip). */
int pt2_zip_open_source(pt2_zip **out, pt2_source *src, struct pt2_error *err) PT2_WARN_UNUSED;
/*
 * pt2_zip_open_source with options: PT2_ZIP_OPEN_LIBZIP reads everything
 * through libzip, as pt2_zip did before its direct reader (the reference the
 * direct reader is tested against, and a way to rule it out when debugging).
 */
#define PT2_ZIP_OPEN_LIBZIP 1u
int pt2_zip_open_source_opts(pt2_zip **out, pt2_source *src, unsigned opts,
                             struct pt2_error *err) PT2_WARN_UNUSED;
void pt2_zip_free(pt2_zip *z);

size_t pt2_zip_count(const pt2_zip *z);
/* Entry name as stored (borrowed), or NULL when i is out of range. */
const char *pt2_zip_name(const pt2_zip *z, size_t i);
/* Entry name with the prefix stripped (borrowed), or NULL when i is out of range. */
const char *pt2_zip_relname(const pt2_zip *z, size_t i);
/* The archive prefix folder, "linear_3/" or "" (borrowed; see pt2_zip_layout.h). */
const char *pt2_zip_prefix(const pt2_zip *z);
/* Uncompressed size from the central directory, or 0 when i is out of range. */
uint64_t pt2_zip_entry_size(const pt2_zip *z, size_t i);
/* 1 when entry i is stored (not compressed); its compressed size (= size when stored). */
int pt2_zip_entry_stored(const pt2_zip *z, size_t i);
uint64_t pt2_zip_entry_csize(const pt2_zip *z, size_t i);
/* Index of the first entry whose relname equals `relname`: PT2_OK, or PT2_ERR_NOT_FOUND. */
int pt2_zip_find(const pt2_zip *z, const char *relname, size_t *idx);

/*
 * Read a whole small entry into a malloc'd, NUL-terminated buffer (*out, the
 * caller frees it; *len excludes the NUL). PT2_ERR_TOO_LARGE, without reading,
 * when the central directory says the entry is larger than `cap` bytes.
 * The CRC is verified. A ".json" entry read while an inspection's JSON budget
 * is current (pt2_budget.h) is checked against it every MiB: PT2_ERR_TOO_LARGE,
 * the budget's refusal, as soon as what has arrived already exceeds it.
 */
int pt2_zip_read_small(pt2_zip *z, size_t i, size_t cap, char **out, size_t *len,
                       struct pt2_error *err) PT2_WARN_UNUSED;

/* The last min(size, max) bytes of an entry, like pt2_zip_read_small (no CRC check). */
int pt2_zip_read_tail(pt2_zip *z, size_t i, size_t max, char **out, size_t *len,
                      struct pt2_error *err) PT2_WARN_UNUSED;

/*
 * Open a random-access reader over entry i's uncompressed bytes. Stored
 * entries seek directly; compressed ones inflate forward, reopening to go
 * backwards, and fail with PT2_ERR_TOO_LARGE past PT2_ZIP_SKIP_MAX in one skip,
 * PT2_ZIP_INFLATE_MAX skipped by this reader, or
 * PT2_ZIP_INFLATE_TOTAL_MAX skipped in all readers of the pt2_zip together
 * (that budget is never refilled: a pt2_zip inspects one package once).
 * *out is freed with pt2_zip_entry_free() before the pt2_zip.
 */
int pt2_zip_entry_open(pt2_zip *z, size_t i, pt2_zip_entry **out,
                       struct pt2_error *err) PT2_WARN_UNUSED;
/* The entry's reader (borrowed, valid until the entry is freed); name = entry relname. */
struct pt2_rd *pt2_zip_entry_rd(pt2_zip_entry *e);
void pt2_zip_entry_free(pt2_zip_entry *e);

/*
 * What an inspection will read of entry `index`: its local header and the
 * first `head` bytes of its (compressed) data, and for a stored entry its
 * last `tail` bytes too.
 */
struct pt2_zip_want {
    size_t index;
    uint64_t head, tail;
};
/*
 * Fetch all of that in one batch (pt2_source_prefetch: nearby ranges merged,
 * what is cached skipped). Entries whose offsets are unknown (a directory
 * that could not be buffered) are left to be read on demand.
 */
int pt2_zip_prefetch(pt2_zip *z, const struct pt2_zip_want *w, size_t n,
                     struct pt2_error *err) PT2_WARN_UNUSED;

/*
 * Where stored entry i's data starts in the file (its local header read
 * through the source): PT2_OK, or PT2_ERR_NOT_FOUND for a compressed entry,
 * an unknown offset or a bad local header.
 */
int pt2_zip_data_offset(pt2_zip *z, size_t i, uint64_t *off);

/*
 * Ranges of stored entry i's data (entry offsets) as file ranges, for
 * pt2_source_prefetch: into out[] (room for n), the count; 0 for other
 * entries. Ranges past the entry's end are dropped.
 */
size_t pt2_zip_file_ranges(pt2_zip *z, size_t i, const struct pt2_range *r, size_t n,
                           struct pt2_range *out);

/* Bytes and read calls that reached the byte source's backend so far (libzip's reads included). */
uint64_t pt2_zip_bytes_read(const pt2_zip *z);
uint64_t pt2_zip_read_calls(const pt2_zip *z);
uint64_t pt2_zip_file_size(const pt2_zip *z);
/* The byte source the archive is read through (borrowed). */
pt2_source *pt2_zip_source(pt2_zip *z);
/* 1 when the entries were listed by our own walk of the directory, not libzip's open. */
int pt2_zip_direct(const pt2_zip *z);
/* 1 if the end record libzip uses has a zip64 locator (see pt2_zip_eocd.h). */
int pt2_zip_zip64(const pt2_zip *z);

#endif
