/*
 * cli.h - the `pt2scope` command-line tool (a thin layer over libpt2scope).
 */
#ifndef PT2_CLI_H
#define PT2_CLI_H

#include <stdio.h>

#include <cJSON.h>

/* Exit codes are an interface for pipelines. */
enum cli_exit {
    CLI_OK = 0,        /* inspected / compatible / valid */
    CLI_NEGATIVE = 1,  /* incompatible / invalid */
    CLI_ERROR = 2      /* unreadable package or usage error */
};

/* Print the inspection document for a terminal. */
void cli_render_inspect(FILE *f, const cJSON *doc);

#endif
