/*
 * pt2_eprog.h - user input/output specs from a torch.export program.
 *
 * Design: a `.pt2` written by torch.export.save / package_pt2 carries the
 * exported program as `models/<name>.json` (schema torch/_export/serde/
 * schema.py). Only the signature and the tensor metadata are read: user
 * inputs/outputs in signature order, their dtype (export-schema ScalarType
 * codes, not c10's), sizes (SymInt: a fixed int or a sympy expression, made
 * readable by pt2_sympy) and the range constraints of the symbols. Both union
 * encodings are accepted: the current one-key objects and the old
 * all-variants-present objects with nulls for the unused ones (schema 2/3,
 * about torch 2.2). Non-tensor user inputs/outputs (ints, floats, None) are
 * skipped. Format facts: FORMATS.md §4.
 *
 * Ownership: the caller owns the two lists; they must be empty on entry and
 * are filled only on success (release with pt2_tensor_list_free()).
 */
#ifndef PT2_EPROG_H
#define PT2_EPROG_H

#include <stddef.h>
#include <stdint.h>

#include "pt2_error.h"
#include "pt2_model.h"
#include "pt2_tensor.h"

/*
 * Parse the program JSON `buf` (len bytes) of archive entry `entry` (used in
 * messages; NULL = "models/model.json") into the user inputs and outputs.
 * A dim is a fixed size, or a symbol with its range_constraints bounds (-1
 * when unbounded: null, a string such as "oo", or a number that is negative,
 * fractional or above 2^53, as torch's int_oo 9223372036854775806 is), or a
 * readable compound expression (size -1, no bounds).
 * PT2_ERR_METADATA (message starting with the entry name) for a malformed
 * document, PT2_ERR_NOMEM.
 */
int pt2_eprog_parse(const char *buf, size_t len, const char *entry, struct pt2_tensor_list *inputs,
                    struct pt2_tensor_list *outputs, struct pt2_error *err) PT2_WARN_UNUSED;

/* The same, and the model's size from its parameters, buffers and tensor
 * constants into *consts (when not NULL; filled only on success). */
int pt2_eprog_parse_full(const char *buf, size_t len, const char *entry,
                         struct pt2_tensor_list *inputs, struct pt2_tensor_list *outputs,
                         struct pt2_constants *consts, struct pt2_error *err) PT2_WARN_UNUSED;

/* Canonical torch dtype name of an export-schema ScalarType code (7 ->
 * "float32", 0 -> "unknown", 33..35 of schema 8.20 included); "" for a code
 * no schema this reader knows assigns (the caller reports the code). Returns buf. */
const char *pt2_eprog_dtype_name(int64_t code, char *buf, size_t len);
/* Bytes of one element of that ScalarType; 0 when unknown. */
unsigned pt2_eprog_dtype_size(int64_t code);

#endif
