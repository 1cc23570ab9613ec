/*
 * cli.h - the `pt2scope` command-line tool (a thin layer over libpt2scope).
 */
#ifndef PT2_CLI_H
#define PT2_CLI_H

#include <stdio.h>

#include <cJSON.h>

/* Exit codes are an interface for pipelines. */
enum cli_exit {
    CLI_OK = 0,       /* inspected / compatible / valid */
    CLI_NEGATIVE = 1, /* incompatible / invalid */
    CLI_ERROR = 2     /* unreadable package or usage error */
};

/* Replace control bytes in `s` with '?' (in place; NULL is fine). */
void cli_defang(char *s);

/* Replace control characters in every key and string of `doc` (in place)
 * before text output: package contents must never drive the terminal. */
void cli_sanitize(cJSON *doc);

/* Print the inspection document for a terminal (sanitize it first). */
void cli_render_inspect(FILE *f, const cJSON *doc);

/* Print the node document (pt2_node_to_json) for a terminal (sanitize it first). */
void cli_render_node(FILE *f, const cJSON *doc);

#endif
