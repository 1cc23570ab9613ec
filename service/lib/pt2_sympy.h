/*
 * pt2_sympy.h - readable text of a sympy expression (a symbolic tensor size).
 *
 * Design: torch.export writes a symbolic size as sympy text: str() before
 * torch 2.6 ("s0", "2*s0"), srepr since ("Symbol('s0', integer=True,
 * positive=True)", "Mul(Integer(2), Symbol('s0', ...))"; FORMATS.md §4).
 * Reports and validation messages want what str() prints, and the exported
 * program walk (pt2_eprog) wants to know whether a size is one symbol (it
 * then has range constraints), a constant, or something else. This module
 * is that one conversion: a bounded parser and printer with no allocation
 * and no failure; text it cannot read is kept as it is.
 *
 * Ownership: writes into the caller's buffer only; no state, thread-safe.
 */
#ifndef PT2_SYMPY_H
#define PT2_SYMPY_H

#include <stddef.h>

enum pt2_sympy_kind {
    PT2_SYMPY_SYMBOL = 1,  /* one symbol: "s0" */
    PT2_SYMPY_INTEGER = 2, /* a constant: out holds its decimal digits */
    PT2_SYMPY_COMPOUND = 3 /* anything else: out holds readable text */
};

/*
 * Readable form of `expr`, either str() ("s0", "2*s0") or sympy srepr
 * ("Symbol('s0', integer=True, positive=True)" -> "s0",
 * "Mul(Integer(2), Symbol('s0', ...))" -> "2*s0") into out (len bytes,
 * always NUL-terminated when len > 0). Text that does not parse, nests
 * deeper than 32, needs more than 128 nodes, holds an integer beyond +-2^53
 * or would print longer than 511 bytes is copied raw. Text cut to fit `len`
 * (ending in "..." when len >= 4) is always COMPOUND. Returns an enum
 * pt2_sympy_kind.
 */
int pt2_sympy_readable(const char *expr, char *out, size_t len);

#endif
