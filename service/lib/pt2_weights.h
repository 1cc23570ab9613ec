/*
 * pt2_weights.h - where a model's weights are, and how big they are on disk.
 *
 * Design: torch writes weights in one of four places
 * (../shared/docs/pt2-layouts-2026.md §3): inside the model library (the
 * default, package_constants_in_so), a binary blob in the model folder
 * (`*.blob`), torch.save files under data/weights/ named by the model's
 * weights_config.json (pickle_weights), or raw payload files named by an
 * exported program's payload configs (data/weights/<m>_weights_config.json,
 * data/constants/<m>_constants_config.json). This module turns the configs
 * and the archive's record sizes into one summary: where, how many entries,
 * the bytes stored and the bytes the model declares. It judges nothing
 * beyond what it can count: a referenced file that is missing, an empty
 * blob, or a stored size below the declared one becomes a warning through
 * the caller's sink, never a guess.
 *
 * The archive is reached only through the sink's `stat` (size of an entry
 * by its path, prefix stripped), so the rules are testable without a zip.
 * Configs are parsed under hard limits (WEIGHTS_CONFIG_* in the .c).
 *
 * Ownership: struct pt2_weights is plain data; nothing is retained.
 */
#ifndef PT2_WEIGHTS_H
#define PT2_WEIGHTS_H

#include <stddef.h>
#include <stdint.h>

#include "pt2_error.h"

enum pt2_weights_where {
    PT2_WEIGHTS_NONE = 0,
    PT2_WEIGHTS_IN_LIBRARY = 1,
    PT2_WEIGHTS_BINARY_BLOB = 2,
    PT2_WEIGHTS_PICKLE_FILES = 3,
    PT2_WEIGHTS_PAYLOAD_FILES = 4
};

struct pt2_weights {
    int where;        /* enum pt2_weights_where */
    uint64_t entries; /* blobs, files or constants counted */
    int64_t bytes;    /* bytes stored in the archive; -1 = not known (inside the library) */
    int64_t declared; /* bytes the model declares; -1 = not recorded */
    uint64_t missing; /* referenced files the archive lacks */
};

/* How the caller answers and hears. stat: 1 and *size when `rel` is an entry, else 0. */
struct pt2_weights_sink {
    int (*stat)(void *ctx, const char *rel, uint64_t *size);
    void (*warn)(void *ctx, const char *msg);
    void *ctx;
};

/* "in-library", "binary-blob", "pickle-files", "payload-files", "none". */
const char *pt2_weights_where_name(int where);

/*
 * pickle_weights: `buf` is <model>/weights_config.json, {fqn: [file, shape,
 * stride, offset]}; each distinct file is data/weights/<file>. Fills w
 * (where, entries = distinct files, bytes, missing); w->declared is left
 * as the caller set it. PT2_ERR_METADATA for a config that is not that shape.
 */
int pt2_weights_pickle(struct pt2_weights *w, const char *buf, size_t len, const char *entry,
                       const struct pt2_weights_sink *s, struct pt2_error *err);

/*
 * An exported program's payload config (`dir` is "data/weights/" or
 * "data/constants/"): {"config": {fqn: {"path_name", "tensor_meta", ...}}}.
 * Adds to w (where = payload-files): entries, bytes stored, bytes declared
 * (elements x dtype size of each tensor_meta, when every one is known), and
 * a warning for each file missing or whose size disagrees with its tensor
 * (a 0-byte record means "all zeros" and agrees with any size).
 */
int pt2_weights_payload(struct pt2_weights *w, const char *buf, size_t len, const char *entry,
                        const char *dir, const struct pt2_weights_sink *s, struct pt2_error *err);

/* A blob of `size` bytes in the model folder (where = binary-blob); an empty one is said. */
void pt2_weights_blob(struct pt2_weights *w, const char *rel, uint64_t size,
                      const struct pt2_weights_sink *s);

/* The end of the summary: where the rest says nothing, in-library when the model has a
 * library that declares constants; a stored size below the declared one is said. */
void pt2_weights_finish(struct pt2_weights *w, int has_library, uint64_t constants,
                        const char *model, const struct pt2_weights_sink *s);

#endif
