/*
 * cli.h - the `pt2scope` command-line tool (a thin layer over libpt2scope).
 */
#ifndef PT2_CLI_H
#define PT2_CLI_H

#include <stddef.h>
#include <stdio.h>

#include <cJSON.h>

#include "pt2scope.h"

/* Exit codes are an interface for pipelines (README, `pt2scope --help`). */
enum cli_exit {
    CLI_OK = 0,        /* inspected / compatible / valid */
    CLI_NEGATIVE = 1,  /* incompatible / invalid */
    CLI_ERROR = 2,     /* usage error, no package found, or our own failure */
    CLI_UNREADABLE = 3 /* a package could not be read or judged (wins over 1) */
};

/* Replace control bytes in `s` with '?' (in place; NULL is fine). */
void cli_defang(char *s);

/* Replace control characters in every key and string of `doc` (in place)
 * before text output: package contents must never drive the terminal. */
void cli_sanitize(cJSON *doc);

/*
 * Open the package at an http://, https:// or s3:// URL (pt2_remote.h, no
 * allow list: the user chose it), with package.source set. *pkg is the
 * caller's; on failure err says why, its message starting with the URL.
 */
int cli_open_url(const char *url, pt2_package **pkg, struct pt2_error *err);
/* The same, reading only model `model` (NULL = all; pt2_open_options.model). */
int cli_open_url_model(const char *url, const char *model, pt2_package **pkg,
                       struct pt2_error *err);

struct pt2_remote_opts;
/* The same with the caller's remote options (limits, a pool's handles; NULL = defaults),
 * curl_global_init() already done by the caller. Thread-safe for different packages. */
int cli_open_url_opts(const char *url, const struct pt2_remote_opts *ro, const char *model,
                      pt2_package **pkg, struct pt2_error *err);

/* Print the inspection document for a terminal (sanitize it first). */
void cli_render_inspect(FILE *f, const cJSON *doc);

/* Print the node document (pt2_node_to_json) for a terminal (sanitize it first). */
void cli_render_node(FILE *f, const cJSON *doc);

/* Print a nodeAffinity (pt2_package_node_affinity) as the YAML snippet
 * "affinity:\n  nodeAffinity:\n    ..." to paste under a pod spec (cli_yaml.c),
 * after a comment naming `file` and one with `note` (pt2_package_node_affinity_note;
 * NULL or "" for none). */
void cli_yaml_affinity(FILE *f, const cJSON *node_affinity, const char *file, const char *note);

/* One line "pt2scope: <what>: <why>" on stderr (with --json also the problem document for
 * `code` on stdout, pt2_problem_json); returns CLI_ERROR. */
int cli_fail(int code, const char *what, const char *why);

/* `pt2scope scan PATH... [--target T]... [--driver X.Y] [--format F]` (cli_scan.c): every
 * package under the paths as a listing item (pt2_listing_item), printed in `format` (enum
 * cli_format), then a summary line. CLI_UNREADABLE when any is a problem, else
 * CLI_NEGATIVE when any is incompatible with a target; CLI_ERROR when none is found. */
struct cli_scan_opts {
    unsigned concurrency; /* --remote-concurrency N: packages in flight; 0 = the default */
    const char *state;    /* --state FILE: incremental (cli_scan_state.h); NULL = none */
    unsigned shard;       /* --shard I/N: I */
    unsigned shards;      /* N; 0 = no sharding */
    const char *output;   /* --output s3://BUCKET/KEY or .../PREFIX/: the JSON Lines uploaded */
};
int cli_scan(char *const *paths, size_t npaths, const char *const *targets, size_t ntargets,
             const char *driver, const char *platform, int format, const char *const *runtimes,
             size_t nruntimes, const char *sysroot, const char *libtorch,
             const struct cli_scan_opts *so);

/* --target TEXT into *dev, with the --driver version (0: none) and --platform (NULL: none);
 * CLI_OK, else the one-line error is printed and CLI_ERROR returned. */
int cli_target(const char *text, int driver, const char *platform, struct pt2_device *dev);

/*
 * The runtimes a check judges (cli_runtime.c): one per --runtime SPEC, the --sysroot DIR,
 * and --libtorch PATH applied to each (or a runtime of its own when it is alone); with
 * `local` and none of those, this machine. Into rts (room for nspecs + 2); the caller
 * frees them. CLI_ERROR (one line on stderr naming the option) on a bad spec.
 */
int cli_runtimes(const char *const *specs, size_t nspecs, const char *sysroot, const char *libtorch,
                 int local, pt2_runtime **rts, size_t *n);

#endif
