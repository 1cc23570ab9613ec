/*
 * pt2_eprog.h - user input/output specs from a torch.export program.
 *
 * Design: a `.pt2` written by torch.export.save / package_pt2 carries the
 * exported program as `models/<name>.json` (schema torch/_export/serde/
 * schema.py). Only the signature and the tensor metadata are read: user
 * inputs/outputs in signature order, their dtype (export-schema ScalarType
 * codes, not c10's), sizes (SymInt: a fixed int or a sympy expression) and
 * the range constraints of the symbols. Both union encodings are accepted:
 * the current one-key objects and the old all-variants-present objects with
 * nulls for the unused ones (schema 2/3, about torch 2.2). Non-tensor user
 * inputs/outputs (ints, floats, None) are skipped.
 *
 * Ownership: the caller owns the two lists; they must be empty on entry and
 * are filled only on success (release with pt2_tensor_list_free()).
 */
#ifndef PT2_EPROG_H
#define PT2_EPROG_H

#include <stddef.h>
#include <stdint.h>

#include "pt2_error.h"
#include "pt2_tensor.h"

/* Symbol bounds at or above 2^53 are "unbounded" (torch writes int_oo as
 * 9223372036854775806 or null). */

int pt2_eprog_parse(const char *buf, size_t len, const char *entry, struct pt2_tensor_list *inputs,
                    struct pt2_tensor_list *outputs, struct pt2_error *err) PT2_WARN_UNUSED;

/* Canonical torch dtype name of an export-schema ScalarType code (7 ->
 * "float32", 0 -> "unknown", unassigned codes -> "unknown(<n>)"). Returns buf. */
const char *pt2_eprog_dtype_name(int64_t code, char *buf, size_t len);

enum pt2_eprog_expr_kind {
    PT2_EPROG_EXPR_SYMBOL = 1,  /* one symbol: "s0" */
    PT2_EPROG_EXPR_INTEGER = 2, /* a constant: out holds its decimal digits */
    PT2_EPROG_EXPR_COMPOUND = 3 /* anything else: out holds readable text */
};

/*
 * Readable form of a SymInt expr_str, either str() ("s0", "2*s0") or sympy
 * srepr ("Symbol('s0', integer=True, positive=True)",
 * "Mul(Integer(2), Symbol('s0', ...))" -> "2*s0"). Text that does not fit in
 * `len` ends in "...". Returns an enum pt2_eprog_expr_kind.
 */
int pt2_eprog_expr_readable(const char *expr, char *out, size_t len);

#endif
