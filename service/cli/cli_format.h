/*
 * cli_format.h - `--format junit` and `--format sarif`: what `check`,
 * `validate` and `scan` found, as the reports CI systems read.
 *
 * A report is written as it goes (a scan of many packages holds one
 * package at a time): start it, add each package, finish it with the exit
 * status. JUnit: one <testsuite> per package, one <testcase> per target
 * (per node with --nodes; "inputs" for validate; "read" for a scan without
 * targets), a <failure> for each incompatible verdict or invalid input set,
 * an <error> for a package that could not be read. SARIF 2.1.0: one run,
 * one result per incompatible verdict (per violation for validate) with
 * the package as the artifact, and an unreadable package as a tool
 * execution notification. The rule id (JUnit's failure type) is the
 * entry's "code" when the library gives one, else its verdict name
 * ("invalid" for a violation without one); a problem's is its type's slug.
 */
#ifndef PT2_CLI_FORMAT_H
#define PT2_CLI_FORMAT_H

#include <stdio.h>

#include <cJSON.h>

enum cli_format { CLI_FORMAT_TEXT = 0, CLI_FORMAT_JSON, CLI_FORMAT_JUNIT, CLI_FORMAT_SARIF };
/* `scan --format jsonl` only (cli_main.c parses it): one item per line as each completes. */
#define CLI_FORMAT_JSONL 16

/* "text", "json", "junit" or "sarif" into *out: 0, or -1 for anything else (out untouched). */
int cli_format_parse(const char *name, int *out);

typedef struct cli_report cli_report;

/*
 * Start a report (CLI_FORMAT_JUNIT or CLI_FORMAT_SARIF) of `command` ("check",
 * "validate", "scan"; borrowed until finished) on `f`. PT2_OK with *out the
 * caller's until cli_report_finish; PT2_ERR_INVALID for another format,
 * PT2_ERR_NOMEM.
 */
int cli_report_start(cli_report **out, int format, const char *command, FILE *f);

/*
 * One package (`package`: its name as shown) and its verdict entries: the
 * objects of `entries` (pt2_verdicts_to_json's "compatibility", the "nodes"
 * of pt2_k8s_compat_json), each named by its `label_key` member ("target",
 * "name"), with "verdict", "reason", "advice" and, when there, "code".
 */
void cli_report_verdicts(cli_report *r, const char *package, const cJSON *entries,
                         const char *label_key);

/* One package that could not be read or judged: its problem document (pt2_problem_json, or a
 * listing's problem item: "type", "title", "detail"). */
void cli_report_problem(cli_report *r, const char *package, const cJSON *problem);

/* One package that was read and had nothing to be judged against (scan without targets). */
void cli_report_readable(cli_report *r, const char *package);

/* One package's answer from pt2_package_validate: "valid", "errors" (strings, or objects with
 * "code" and "message"), "warnings". */
void cli_report_validation(cli_report *r, const char *package, const cJSON *answer);

/*
 * End the document (SARIF's invocation records `exit_code`) and free r
 * (NULL is fine). PT2_OK, PT2_ERR_NOMEM when a part could not be built,
 * PT2_ERR_IO when writing to the stream failed.
 */
int cli_report_finish(cli_report *r, int exit_code);

#endif
