/*
 * pt2_ptx.h - NVIDIA PTX text: ISA version and target.
 *
 * Design: PTX declares `.version X.Y` and `.target sm_XY[a|f][, options]`
 * before any code (after a comment banner in nvcc output, after blank lines
 * inside fatbins). Only the first PT2_PTX_HEAD_MAX bytes are read; text
 * without both directives there is not treated as PTX, which keeps C/C++
 * sources that also start with `//` from being mistaken for it.
 *
 * Ownership: fills a caller-owned struct pt2_kernel; allocates nothing.
 */
#ifndef PT2_PTX_H
#define PT2_PTX_H

#include <stddef.h>
#include <stdint.h>

#include "pt2_model.h"
#include "pt2_rd.h"

#define PT2_PTX_HEAD_MAX 8192u

/*
 * Parse `text` (len bytes, need not be NUL-terminated). Returns 1 and sets
 * kind (PTX), sm, variant, ptx_major, ptx_minor and debug (".target ...,
 * debug") when both directives are found before any other directive, else 0.
 * Leaves the other fields alone.
 */
int pt2_ptx_parse(const char *text, size_t len, struct pt2_kernel *k);

/* Read the head of [off, off+size) of rd and parse it; *found as above. */
int pt2_ptx_scan(struct pt2_rd *rd, uint64_t off, uint64_t size, struct pt2_kernel *k, int *found,
                 struct pt2_error *err);

/* 1 when `buf` looks like the start of PTX text (after blanks: "//" or ".version"). */
int pt2_ptx_probe(const uint8_t *buf, size_t len);

#endif
