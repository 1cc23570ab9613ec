/*
 * pt2_meta.h - metadata JSON documents of a package.
 *
 * Design: three things live here because they share one strict JSON entry
 * point. pt2_meta_json_parse() is the only place the library turns archive
 * bytes into cJSON: it checks UTF-8, nesting depth and trailing bytes before
 * cJSON sees the text, and never uses cJSON_GetErrorPtr() (not thread safe).
 * On top of it: the AOTInductor `*_metadata.json` string map (torch writes
 * {str: str}; other scalars are kept as their JSON text) and the user's
 * `model_metadata.json` (model name plus input/output specs).
 *
 * Errors: every malformed document is PT2_ERR_METADATA with a message that
 * starts with the entry name, e.g.
 * "extra/model_metadata.json: inputs[1].shape[2] must be an integer, a symbol
 * string, null or -1".
 *
 * Ownership: cJSON documents returned through `cJSON **out` belong to the
 * caller (cJSON_Delete). struct pt2_meta_user owns its lists and `raw`;
 * release it with pt2_meta_user_free(), which accepts NULL and zeroed structs.
 *
 * Threads: every function here may run on many threads at once on separate
 * documents, with one caveat that lies in cJSON 1.7.15, not here:
 * cJSON_ParseWithLengthOpts() writes a static `global_error` (reset on
 * every call, set on failure) that cJSON_GetErrorPtr() reads. Concurrent
 * parses therefore race on that variable: formally a C11 data race, benign
 * in practice because this library never reads it (the error offset comes
 * from the parse's own return_parse_end). Nothing else in cJSON that we
 * call writes global state (the allocation hooks are never changed: no
 * cJSON_InitHooks()).
 * ThreadSanitizer will report the race; suppress it for cJSON_Parse*.
 */
#ifndef PT2_META_H
#define PT2_META_H

#include <stddef.h>

#include <cJSON.h>

#include "pt2_error.h"
#include "pt2_tensor.h"

/* Hard cap on one JSON document, whatever the caller's read cap. */
#define PT2_META_JSON_MAX (16u * 1024u * 1024u)
/* Deepest nesting accepted (cJSON's own limit is 1000). */
#define PT2_META_DEPTH_MAX 256

/*
 * Parse `len` bytes (not NUL-terminated) as exactly one JSON value; `entry`
 * names the document in messages. A UTF-8 byte order mark is skipped.
 * Byte offsets in messages count from the start of `buf`.
 */
int pt2_meta_json_parse(const char *buf, size_t len, const char *entry, cJSON **out,
                        struct pt2_error *err) PT2_WARN_UNUSED;

/* "an object", "an array", "a string", "a number", "a boolean" or "null",
 * for messages such as "inputs must be an array, got a string". */
const char *pt2_meta_json_type(const cJSON *j);

/*
 * AOTInductor metadata: must be a JSON object. String values are kept,
 * numbers/booleans/null become strings holding their JSON text ("2", "true",
 * "null"), nested objects/arrays are kept as they are. For a repeated key the
 * last value wins, as with Python's json module. *out_map: caller owns.
 */
int pt2_meta_parse_aoti(const char *buf, size_t len, const char *entry, cJSON **out_map,
                        struct pt2_error *err) PT2_WARN_UNUSED;

/* The user's model_metadata.json. */
struct pt2_meta_user {
    char model[128];               /* "model", else "model_class", "model_name",
                                      "class_name"; "" if none (cut to fit) */
    struct pt2_tensor_list inputs; /* in document order */
    struct pt2_tensor_list outputs;
    cJSON *raw; /* the whole parsed document */
};

/*
 * Parse model_metadata.json into *out (zeroed first; on failure nothing is
 * left to free). "inputs"/"outputs" are arrays of {name, shape, dtype,
 * description} or objects {name: {shape, dtype, description}} (a bare shape
 * array is accepted as the value too). A shape entry is an integer >= 0, a
 * symbol string ("B"), null or -1 (both unnamed dynamic); a missing or null
 * shape means unknown rank. Names must be unique and non-empty.
 */
int pt2_meta_parse_user(const char *buf, size_t len, const char *entry, struct pt2_meta_user *out,
                        struct pt2_error *err) PT2_WARN_UNUSED;
void pt2_meta_user_free(struct pt2_meta_user *m);

#endif
