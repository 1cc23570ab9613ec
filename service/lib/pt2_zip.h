/*
 * pt2_zip.h - read-only, bounded, counted access to a .pt2 zip archive.
 *
 * Design: libzip does the zip parsing; this module feeds it the file through
 * a custom source that reads with pread() and counts every byte and call, so
 * the inspector can prove it read only headers. It adds what a .pt2 reader
 * needs on top: the archive prefix folder torch >= 2.8 writes (entries are
 * exposed both raw and relative to it), the layout facts (archive_format,
 * versions, byteorder, zip64, generation), the model directories under
 * data/aotinductor/, whole reads of small entries up to a cap, and a
 * random-access struct pt2_rd over one entry that seeks inside stored
 * entries instead of reading what lies between (see pt2_rd.h).
 *
 * Errors (enum pt2_status): PT2_ERR_IO (open/read failure), PT2_ERR_NOT_ZIP
 * (no end-of-central-directory record anywhere), PT2_ERR_TRUNCATED (a zip,
 * but cut or with a central directory that does not fit the file),
 * PT2_ERR_NOT_PT2 (from pt2_zip_layout), PT2_ERR_ENTRY (an entry cannot be
 * read), PT2_ERR_TOO_LARGE (a cap below was hit).
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
#include "pt2_model.h"
#include "pt2_rd.h"

#define PT2_ZIP_ENTRIES_MAX 1000000u               /* entries per archive */
#define PT2_ZIP_NAME_LEN_MAX 1024u                 /* bytes in one entry name */
#define PT2_ZIP_CDIR_MAX (256u * 1024u * 1024u)    /* central directory bytes */
#define PT2_ZIP_MODELS_MAX 256u                    /* data/aotinductor/<model>/ folders */
#define PT2_ZIP_SKIP_MAX (64u * 1024u * 1024u)     /* one forward skip in a compressed entry */
#define PT2_ZIP_INFLATE_MAX (128u * 1024u * 1024u) /* inflated only to seek, per reader */
#define PT2_ZIP_LAYOUT_FIELD_CAP 256u              /* archive_format, byteorder, ... entry size */
/* Bytes inflated only to seek, by all readers of one pt2_zip together. */
#define PT2_ZIP_INFLATE_TOTAL_MAX (256u * 1024u * 1024u)

typedef struct pt2_zip pt2_zip;
typedef struct pt2_zip_entry pt2_zip_entry;

/* Archive-level facts; strings are trimmed entry contents, "" when absent. */
struct pt2_zip_layout {
    char prefix[PT2_NAME_MAX]; /* "linear_3/" (with the slash) or "" */
    char archive_format[32];   /* "pt2" */
    char archive_version[32];  /* "0" */
    char data_version[32];     /* `.data/version`, "6" */
    char legacy_version[32];   /* `version` of torch <= 2.7 packages, "0" */
    char byteorder[32];        /* "little" */
    int zip64;                 /* 1 if a zip64 end-of-central-directory locator is present */
    int generation;            /* 2 with a prefix folder (torch >= 2.8), 1 without */
    uint64_t entries;          /* entry count */
    uint64_t file_size;        /* bytes */
};

/* Open the archive at `path` / on the caller's descriptor `fd`. *out is NULL on failure. */
int pt2_zip_open_path(pt2_zip **out, const char *path, struct pt2_error *err) PT2_WARN_UNUSED;
int pt2_zip_open_fd(pt2_zip **out, int fd, struct pt2_error *err) PT2_WARN_UNUSED;
void pt2_zip_free(pt2_zip *z);

size_t pt2_zip_count(const pt2_zip *z);
/* Entry name as stored (borrowed), or NULL when i is out of range. */
const char *pt2_zip_name(const pt2_zip *z, size_t i);
/* Entry name with the prefix stripped (borrowed), or NULL when i is out of range. */
const char *pt2_zip_relname(const pt2_zip *z, size_t i);
/* "linear_3/" or "" (borrowed). */
const char *pt2_zip_prefix(const pt2_zip *z);
uint64_t pt2_zip_entry_size(const pt2_zip *z, size_t i);
/* 1 if the entry is stored (method 0), 0 otherwise. */
int pt2_zip_entry_stored(const pt2_zip *z, size_t i);
/* Compression method number from the central directory (0 stored, 8 deflate). */
unsigned pt2_zip_entry_method(const pt2_zip *z, size_t i);
/* Index of the first entry whose relname equals `relname`: PT2_OK, or PT2_ERR_NOT_FOUND. */
int pt2_zip_find(const pt2_zip *z, const char *relname, size_t *idx);

/* Models (the <model> of data/aotinductor/<model>/...) in first-seen order; borrowed. */
size_t pt2_zip_model_count(const pt2_zip *z);
const char *pt2_zip_model(const pt2_zip *z, size_t i);

/*
 * Read a whole small entry into a malloc'd, NUL-terminated buffer (*out, the
 * caller frees it; *len excludes the NUL). PT2_ERR_TOO_LARGE, without reading,
 * when the central directory says the entry is larger than `cap` bytes.
 * The CRC is verified.
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
 * Fill *out and decide whether this is a .pt2: archive_format == "pt2", or no
 * archive_format but data/aotinductor/, models/<m>.json or the legacy
 * serialized_exported_program.json. Otherwise PT2_ERR_NOT_PT2 (with *out
 * filled). Reads only the few small marker entries.
 */
int pt2_zip_layout(pt2_zip *z, struct pt2_zip_layout *out, struct pt2_error *err) PT2_WARN_UNUSED;

/* Bytes and read calls issued against the file so far (libzip's own reads included). */
uint64_t pt2_zip_bytes_read(const pt2_zip *z);
uint64_t pt2_zip_read_calls(const pt2_zip *z);
uint64_t pt2_zip_file_size(const pt2_zip *z);

#endif
