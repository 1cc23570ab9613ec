/*
 * cli_scan_state.h - `scan --state FILE`: what the last scan of a bucket
 * answered, so the next one reads only the objects that changed.
 *
 * Design: the file is JSON Lines. The first line names the format and the
 * options the answers depend on: {"pt2scope_scan_state": 1, "options": TEXT}
 * (the version, the targets, runtimes, driver and platform, joined); a file
 * written under other options is ignored as a whole (every object is read
 * again), never half-trusted. Then one line per listed object:
 * {"url", "etag", "size", "answer"}, the ETag and size as the listing gave
 * them and the answer as the scan printed it. An object whose listing ETag
 * (not empty) and size both equal its line's is answered from the line.
 *
 * The new state is written as the scan goes to a temporary file beside
 * FILE and renamed over it only when the scan completes, so an interrupted
 * scan leaves the old state whole; objects gone from the bucket are simply
 * not written again. The old state is held in memory (sorted by URL, binary
 * search): at most CLI_STATE_MAX lines, each under CLI_STATE_LINE_MAX bytes.
 *
 * Ownership: a cli_state owns its entries and files; cli_state_free (NULL
 * is fine) removes an unfinished temporary file. Not thread-safe: callers
 * lock around cli_state_write.
 */
#ifndef CLI_SCAN_STATE_H
#define CLI_SCAN_STATE_H

#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

#define CLI_STATE_MAX 1000000u
#define CLI_STATE_LINE_MAX (1u << 20)

typedef struct cli_state cli_state;

/*
 * Load `path` (a missing file is an empty state) for the options text
 * `options`, and open the temporary file the new state goes to. 0, or -1
 * with a one-line reason in why (why_len bytes).
 */
int cli_state_open(cli_state **out, const char *path, const char *options, char *why,
                   size_t why_len);

/* The answer recorded for url when etag (non-empty) and size match; a new cJSON, else NULL. */
cJSON *cli_state_lookup(const cli_state *s, const char *url, const char *etag, uint64_t size);

/* Record one object's answer in the new state. 0, or -1 when it cannot be written. */
int cli_state_write(cli_state *s, const char *url, const char *etag, uint64_t size,
                    const cJSON *answer);

/* Rename the new state over the old. 0, or -1 with why. */
int cli_state_commit(cli_state *s, char *why, size_t why_len);

void cli_state_free(cli_state *s);

#endif
