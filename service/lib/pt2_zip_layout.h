/*
 * pt2_zip_layout.h - the .pt2 layout of an archive: what makes a zip a .pt2.
 *
 * Design: zip access (pt2_zip) knows nothing of torch; the rules of the two
 * .pt2 container generations (FORMATS.md §2) live here, in one place:
 *   - the archive prefix folder torch >= 2.8 writes ("linear_3/"): the first
 *     path component common to ALL entry names, iff something of a package
 *     root (archive_format, archive_version, version, .data/version,
 *     byteorder, data/, models/, extra/) lies below it. pt2_zip asks for it
 *     at open and strips it from every relname;
 *   - model folders, data/aotinductor/<model>/: pt2_zip_layout_model_of() is
 *     the one rule both the open-time check and pt2_inspect's walk use;
 *   - the archive-level facts (struct pt2_zip_layout) and the decision
 *     "is this a .pt2" (pt2_zip_layout()).
 * The two modules call each other on purpose: pt2_zip applies the prefix
 * and model-folder rules while opening, and this module reads its few
 * marker entries through pt2_zip.
 *
 * Errors (enum pt2_status): PT2_ERR_NOT_PT2 (pt2_zip_layout), PT2_ERR_ENTRY
 * and PT2_ERR_TOO_LARGE (a marker entry that cannot be read, or is larger
 * than PT2_ZIP_LAYOUT_FIELD_CAP), PT2_ERR_TOO_LARGE (the model-folder caps).
 *
 * Ownership: struct pt2_zip_layout is a plain caller-owned value; nothing
 * here allocates anything that outlives a call. Same threading as pt2_zip.
 */
#ifndef PT2_ZIP_LAYOUT_H
#define PT2_ZIP_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "pt2_error.h"
#include "pt2_model.h"
#include "pt2_zip.h"

#define PT2_ZIP_LAYOUT_MODELS_MAX 256u /* data/aotinductor/<model>/ folders */
#define PT2_ZIP_LAYOUT_FIELD_CAP 256u  /* archive_format, byteorder, ... entry size */

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

/*
 * Fill *out and decide whether this is a .pt2: archive_format == "pt2", or no
 * archive_format but data/aotinductor/, models/<m>.json or the legacy
 * serialized_exported_program.json. A torch.save checkpoint (one top folder
 * holding data.pkl and version or .format_version) is PT2_ERR_TORCH_SAVE;
 * anything else PT2_ERR_NOT_PT2 (with *out filled). Reads only the few small
 * marker entries.
 */
int pt2_zip_layout(pt2_zip *z, struct pt2_zip_layout *out, struct pt2_error *err) PT2_WARN_UNUSED;

/* 1 when pt2_zip_layout() reads entry `rel` (relative to the prefix) as one of its fields. */
int pt2_zip_layout_reads(const char *rel);

/*
 * The model folder of entry `rel` (a name relative to the prefix): for
 * "data/aotinductor/<m>/<anything>" copy <m> into out (len bytes) and return
 * PT2_OK. PT2_ERR_NOT_FOUND, err untouched, when rel is not inside such a
 * folder (a file directly in data/aotinductor/, an empty <m>, another
 * folder). PT2_ERR_TOO_LARGE, err set ("<rel>: model folder name is N bytes
 * (cap len-1)") and out "", when <m> does not fit. err may be NULL.
 */
int pt2_zip_layout_model_of(const char *rel, char *out, size_t len, struct pt2_error *err);

/*
 * Length of the prefix folder of z's entry names (pt2_zip_name), slash
 * included ("linear_3/" -> 9), or 0 when there is none. Always below
 * PT2_NAME_MAX. Used by pt2_zip while it opens z.
 */
size_t pt2_zip_layout_prefix_len(const pt2_zip *z);

/*
 * The model-folder caps, over z's relnames: PT2_ERR_TOO_LARGE when a folder
 * name does not fit PT2_NAME_MAX or there are more than
 * PT2_ZIP_LAYOUT_MODELS_MAX distinct folders. Used by pt2_zip while it
 * opens z, once the prefix is known.
 */
int pt2_zip_layout_check_models(const pt2_zip *z, struct pt2_error *err) PT2_WARN_UNUSED;

#endif
