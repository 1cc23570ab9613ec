/*
 * pt2d_jsonout.h - print a cJSON tree as cJSON_PrintUnformatted does, faster.
 *
 * Design: an uncached /v1/inspect spent ~16 % of its time in cJSON's printer
 * (tests/bench/README.md): every number through "%1.15g" and an sscanf
 * round-trip check, every string byte by byte. This printer writes the same
 * bytes: integers (what nearly every number in our documents is) by hand,
 * strings by runs of bytes that need no escape, and hands any other number
 * to cJSON's own printer, so the output is cJSON_PrintUnformatted's byte for
 * byte (test_pt2d_jsonout compares them on every fixture's documents).
 *
 * Ownership: the text is malloc'd (free()), NUL-terminated, with `extra`
 * spare bytes after the NUL's position for the caller (a newline).
 */
#ifndef PT2D_JSONOUT_H
#define PT2D_JSONOUT_H

#include <stddef.h>

#include <cJSON.h>

/* The text and its length in *len, or NULL (out of memory, an invalid item, too deep). */
char *pt2d_jsonout_print(const cJSON *doc, size_t extra, size_t *len);

#endif
