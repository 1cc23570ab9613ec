/*
 * pt2_tensor.h - tensor specs: the model, dtype names, JSON views, validation.
 *
 * Design: both sources of I/O specs (the user's model_metadata.json, parsed
 * by pt2_meta, and the exported program, parsed by pt2_eprog) produce the
 * same plain structs, so the JSON views and the shape validation exist once.
 * A dimension is either fixed (size >= 0) or dynamic (size -1) with an
 * optional symbol ("B", "s0", or a readable expression such as "2*s0") and
 * an optional known range. Dynamic dims that share a symbol must agree in a
 * proposed call; unnamed dynamic dims all share the implicit symbol "batch".
 *
 * Ownership: a list owns its array; pt2_tensor_list_free() accepts NULL and
 * zeroed lists. cJSON values returned through `cJSON **out` and messages
 * returned through `char **message_out` belong to the caller (cJSON_Delete /
 * free). Nothing here keeps state between calls, so every function is safe
 * to call from many threads on distinct or read-only objects.
 */
#ifndef PT2_TENSOR_H
#define PT2_TENSOR_H

#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

#include "pt2_error.h"

#define PT2_DIMS_MAX 32      /* rank of one tensor */
#define PT2_TENSORS_MAX 4096 /* tensors in one list */
#define PT2_SYMBOL_MAX 64    /* bytes of a dim symbol, NUL included */

/* Symbol shared by unnamed dynamic dims when validating. */
#define PT2_TENSOR_IMPLICIT_SYMBOL "batch"

struct pt2_dim {
    int64_t size;                /* >= 0 fixed; -1 dynamic */
    char symbol[PT2_SYMBOL_MAX]; /* "B", "s0", "2*s0"; "" = unnamed. A text cut to fit
                                    ends in "..." and is never compared. */
    int64_t min, max;            /* known range of a dynamic dim; -1 = unknown/unbounded */
};

struct pt2_tensor {
    char name[128];
    char dtype[32];     /* canonical torch name ("float32", "bfloat16"); "" = unknown */
    int has_dtype_code; /* 1: dtype is "" because dtype_code is a code no schema names */
    int64_t dtype_code;
    char description[256]; /* "" = none */
    int ndim;              /* -1 = unknown rank */
    int independent_dims;  /* 1: unnamed dynamic dims are unrelated (the wrapper does not
                              record which inputs share a size); 0: they share "batch" */
    struct pt2_dim dims[PT2_DIMS_MAX];
};

struct pt2_tensor_list {
    struct pt2_tensor *v;
    size_t n, cap;
};

/* Largest integer a JSON number (a double) carries exactly: 2^53. */
#define PT2_JSON_INT_MAX 9007199254740992LL

/* Reset *t to an empty spec of unknown rank and dtype. */
void pt2_tensor_init(struct pt2_tensor *t);

/* Append a copy of *t. PT2_ERR_TOO_LARGE past PT2_TENSORS_MAX. */
int pt2_tensor_list_push(struct pt2_tensor_list *l, const struct pt2_tensor *t,
                         struct pt2_error *err) PT2_WARN_UNUSED;
void pt2_tensor_list_free(struct pt2_tensor_list *l);
/* The first tensor named `name`, borrowed from the list; NULL if none. */
const struct pt2_tensor *pt2_tensor_list_find(const struct pt2_tensor_list *l, const char *name);

/*
 * A derived dim: `text` is "A*s", "A*s + B", "A*s - B", "s + B" or "s - B" (sympy's str()
 * of torch.export's derived Dims, A and B integers, A != 0) naming one symbol s. 1 with
 * s into sym (symlen bytes), *a and *b set; 0 for anything else, a bare symbol included.
 */
int pt2_tensor_linear(const char *text, char *sym, size_t symlen, int64_t *a, int64_t *b);

/*
 * Narrow an exported program's specs to what its compiled AOTI model accepts. `inputs` are
 * the program's user inputs; `compiled` the same inputs, in the same order, as the model's
 * wrapper checks them (torch specialises a size 0/1 bound away and may fix a dim). Where the
 * counts and each rank agree: a dim the compiled code fixes becomes fixed, a dynamic dim's
 * bounds become the intersection, and every dynamic dim of `inputs` and `outputs` named by a
 * symbol takes the narrowed range of that symbol. Returns 1 when applied, 0 when the lists
 * do not line up (nothing changed), PT2_ERR_NOMEM (negative) when out of memory.
 */
int pt2_tensor_list_narrow(struct pt2_tensor_list *inputs, struct pt2_tensor_list *outputs,
                           const struct pt2_tensor_list *compiled, struct pt2_error *err);

/*
 * Canonical torch dtype name for `in` ("torch.float32", "fp32", "FP32", "f32",
 * "float", "half", "bf16", "long", ...) into out. Unknown names are copied
 * lower-cased. Returns 1 when the name was recognised, 0 otherwise.
 */
int pt2_tensor_dtype_normalize(const char *in, char *out, size_t len);

/*
 * Open Inference Protocol datatype for a canonical dtype ("float32" -> "FP32",
 * "int64" -> "INT64", "bytes"/"string" -> "BYTES"): only the protocol's own
 * types (BOOL, UINT8-64, INT8-64, FP16, FP32, FP64, BYTES). NULL for every
 * other dtype (bfloat16, complex, float8 variants, unknown names, ""): the
 * protocol cannot type them and no name is invented. Else out.
 */
const char *pt2_tensor_dtype_oip(const char *dtype, char *out, size_t len);

/* "(B, 3, 512, 512)"; "?" for an unnamed dynamic dim, "()" for a scalar,
 * "unknown" for an unknown rank. Truncated to fit; returns buf. */
const char *pt2_tensor_shape_description(const struct pt2_tensor *t, char *buf, size_t len);

/*
 * JSON view of one spec (flags from enum pt2_json_flags).
 * Default: {"name", "shape": ["B", 3, null], "dtype", "description", "ndim",
 *           "fixed_shape": {"1": 3}, "shape_description",
 *           "dynamic_dims": [{"axis", "symbol", "min", "max"}]}
 *   with null for an unknown rank/dtype/description/symbol/bound.
 * PT2_JSON_OIP: the protocol's $metadata_tensor {"name", "datatype": "FP32",
 *   "shape": [-1, 3]}, -1 for every dynamic dim. A spec the protocol cannot
 *   describe (no OIP datatype, unknown dtype or rank) is PT2_ERR_UNSUPPORTED,
 *   the message saying why.
 */
int pt2_tensor_to_json(const struct pt2_tensor *t, unsigned flags, cJSON **out,
                       struct pt2_error *err) PT2_WARN_UNUSED;
/* JSON array of the views of every spec in the list; with PT2_JSON_OIP the specs
 * the protocol cannot describe are left out (pt2_tensor_list_oip_json, no warnings). */
int pt2_tensor_list_to_json(const struct pt2_tensor_list *l, unsigned flags, cJSON **out,
                            struct pt2_error *err) PT2_WARN_UNUSED;
/*
 * The OIP view of a list: every spec the protocol can describe, in order; each
 * one left out appends to `warnings` (a JSON array; NULL = none kept) one line
 * "<what> 'w' is left out of the OIP view: dtype bfloat16 has no Open
 * Inference Protocol datatype" (or "its dtype is not recorded", "its shape is
 * not recorded"). `what` names the list's tensors ("input"; NULL = "tensor").
 */
int pt2_tensor_list_oip_json(const struct pt2_tensor_list *l, const char *what, cJSON **out,
                             cJSON *warnings, struct pt2_error *err) PT2_WARN_UNUSED;

/* Violations reported by one validation at most (one more line says there are more). */
#define PT2_VALIDATE_ERRORS_MAX 64

/*
 * Check proposed input shapes against `expected`. `proposed` must be a JSON
 * object {name: [d0, d1, ...]} with integer dims >= 0; anything else is
 * PT2_ERR_INVALID. Otherwise returns PT2_OK and appends to the JSON array
 * `errors` one object per violation, every one (empty = acceptable): unknown
 * names, missing names, then per input in `expected` order the rank, each
 * fixed size, each dynamic range and the agreement of shared symbols, then
 * every derived dim ("2*s0") against its symbol's size where another dim
 * names the symbol itself (symbol-mismatch). Each is
 * {input, axis, expected, got, code, message}, code one of unknown-input,
 * missing-input, rank, size, range, symbol-mismatch, and past
 * PT2_VALIDATE_ERRORS_MAX one `more` whose got counts the rest.
 * Inputs of unknown rank accept any shape; a NULL `expected` means none.
 */
int pt2_tensor_validate(const struct pt2_tensor_list *expected, const cJSON *proposed,
                        cJSON *errors, struct pt2_error *err) PT2_WARN_UNUSED;

/* 1 and *out set when `item` is a JSON number that is an integer of
 * magnitude <= 2^53, else 0 (cJSON's valueint saturates; never use it). */
int pt2_tensor_json_int(const cJSON *item, int64_t *out);

#endif
