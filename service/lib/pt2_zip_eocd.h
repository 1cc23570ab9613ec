/*
 * pt2_zip_eocd.h - where the archive lies in the file: the zip end records.
 *
 * Design: libzip 1.7.3 finds the end-of-central-directory record itself, but
 * it trusts the entry count and directory size it finds there, and it reads
 * the directory a record at a time (two calls per entry). So before libzip
 * opens the file, this module reads the file tail, exactly the window libzip
 * asks for first (FORMATS.md §1), and decodes every end record in it that
 * libzip could use: the classic record, with the zip64 locator and record
 * when present. The caps below apply to each of them before libzip reads a
 * directory. When exactly one record is usable, its directory is what libzip
 * will read: it is buffered too (one read), so that pt2_zip can serve
 * libzip's reads from memory and check entry offsets without ZIP_CHECKCONS.
 * Files go through the caller's read function (pt2_zip's counting pread), so
 * these bytes are counted with all the others.
 *
 * Errors (enum pt2_status): PT2_ERR_TOO_LARGE (a usable end record over a
 * cap), PT2_ERR_NOMEM, PT2_ERR_IO (whatever the read function reports, or a
 * file that shrank while being read), PT2_ERR_TRUNCATED (from
 * pt2_zip_eocd_check_extents). No end record at all is not an error here
 * (have_eocd = 0): libzip decides, and pt2_zip maps its answer.
 *
 * Ownership: struct pt2_zip_eocd is the caller's; it owns `buf` (freed by
 * pt2_zip_eocd_release()) and borrows the read function's context, which
 * must outlive it. One thread at a time.
 */
#ifndef PT2_ZIP_EOCD_H
#define PT2_ZIP_EOCD_H

#include <stddef.h>
#include <stdint.h>

#include "pt2_error.h"
#include "pt2_rd.h"

#define PT2_ZIP_EOCD_ENTRIES_MAX 1000000u            /* entries per archive */
#define PT2_ZIP_EOCD_CDIR_MAX (256u * 1024u * 1024u) /* central directory bytes */
/* What libzip 1.7.3 reads first: MAXCOMLEN + EOCDLEN + EOCD64LOCLEN from the end. */
#define PT2_ZIP_EOCD_TAIL_LEN (65536u + 22u + 20u)

struct pt2_zip_eocd {
    /* the file, as given to pt2_zip_eocd_scan() (borrowed) */
    pt2_rd_fn read; /* *got < len only at end of file */
    void *ctx;
    uint64_t size;

    /* file bytes [buf_off, buf_off + buf_len) read by the scan (owned; NULL once released) */
    uint8_t *buf;
    uint64_t buf_off;
    size_t buf_len;

    /* what the end records say */
    int have_eocd; /* an end-record signature is in the tail */
    int cd_known;  /* exactly one end record libzip can use: cd_offset, cd_size are its */
    int zip64;     /* the record libzip keeps has a zip64 locator */
    uint64_t cd_offset, cd_size;
    uint64_t entries; /* what that record lists (cd_known only) */
    /* cd_known, one disk, the classic and zip64 records agree, and the directory ends
     * right where the end records start: nothing for libzip to judge differently */
    int plain;
};

/*
 * One central directory record, zip64 extra applied; name borrowed from the
 * buffered directory (not NUL-terminated).
 */
struct pt2_zip_eocd_rec {
    const uint8_t *name;
    size_t name_len;
    uint64_t size, csize, offset;
    uint32_t crc;
    uint16_t method;
};

/*
 * Read the tail of the `size`-byte file behind `read`/`ctx` into e->buf,
 * decode the end records and apply the caps; with exactly one usable record
 * whose directory runs on into the tail (the normal layout), extend e->buf
 * down to the directory start. *e is reset first; release it with
 * pt2_zip_eocd_release() whatever this returns.
 */
int pt2_zip_eocd_scan(struct pt2_zip_eocd *e, pt2_rd_fn read, void *ctx, uint64_t size,
                      struct pt2_error *err) PT2_WARN_UNUSED;

/* File bytes [off, off+len) if all of them are in e->buf (borrowed), else NULL. */
const uint8_t *pt2_zip_eocd_bytes(const struct pt2_zip_eocd *e, uint64_t off, size_t len);

/* 1 when cd_known and the whole central directory is in e->buf. */
int pt2_zip_eocd_cd_buffered(const struct pt2_zip_eocd *e);

/*
 * The directory-level half of libzip's ZIP_CHECKCONS, on the buffered
 * directory, and more: every entry's local header, name and data must end
 * before the directory starts (zip64 extra fields applied), and no two
 * entries may overlap (local header, name and data, as the directory gives
 * them). PT2_ERR_TRUNCATED when either fails (the offsets are checked first,
 * over every record; an overlap names the two offsets); PT2_OK when both hold
 * or when the directory is not buffered.
 */
int pt2_zip_eocd_check_extents(const struct pt2_zip_eocd *e, struct pt2_error *err) PT2_WARN_UNUSED;

/*
 * The local header offsets of the first `n` directory records (zip64 extra
 * applied) into out[] (libzip indexes entries in directory order): the
 * count stored, 0 when the directory is not buffered.
 */
size_t pt2_zip_eocd_local_offsets(const struct pt2_zip_eocd *e, uint64_t *out, size_t n);
/*
 * The record at directory offset *pos, if it is one libzip 1.7.3 would open
 * and describe exactly as it reads: signature and lengths in bounds, disk 0,
 * not encrypted, no comment, well-formed extra fields with every saturated
 * size or offset in a zip64 field, none of the Info-ZIP Unicode fields libzip
 * would rename it by, and a name it returns byte for byte (printable ASCII,
 * tab, CR, LF, valid UTF-8). 1 with *rec filled and *pos moved past it, 0
 * otherwise (then libzip is the judge). Needs the directory buffered.
 */
int pt2_zip_eocd_plain_record(const struct pt2_zip_eocd *e, uint64_t *pos,
                              struct pt2_zip_eocd_rec *rec);

/* 1 if the file starts with a local file header signature (read if not buffered). */
int pt2_zip_eocd_starts_with_local_header(const struct pt2_zip_eocd *e);

/* Free the buffered bytes; the facts (have_eocd, zip64, cd_*) stay. Accepts NULL. */
void pt2_zip_eocd_release(struct pt2_zip_eocd *e);

#endif
