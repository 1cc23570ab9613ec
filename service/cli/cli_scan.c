/*
 * cli_scan.c - `pt2scope scan PATH...`: every package under files and
 * folders, one line (or one JSON item) each, for CI and operators.
 *
 * Design: the items are the library's (pt2_listing_item), the same as GET
 * /v1/packages lists, so the CLI and the service cannot disagree about a
 * package; this file only finds the files and prints. A file named on the
 * command line is scanned whatever its name, and so is a URL (read with
 * Range requests, as `inspect URL` does); in a folder, every `*.pt2`
 * below it is (hidden names skipped, symlinked folders not entered, 32
 * levels at most), sorted by path. The paths are checked before anything
 * is printed, so a typo is a usage error (2), not a half report. Exit 3
 * when any item is a problem (the package could not be read), else 1 when
 * any is incompatible with a --target (pt2_listing_item_ok), else 0; 2
 * when no package was found: "which of our packages will not run on
 * B200?" is `pt2scope scan models/ --target B200`.
 *
 * Text output, two spaces between columns, package text defanged:
 *   NAME  KIND  TARGETS[  T: VERDICT[ (REASON)]...]
 *   NAME  error  SLUG: DETAIL
 * then the summary line "N packages: N compatible, N incompatible, N
 * unreadable" (", N unverified" before "incompatible" when there are any;
 * "N readable, N unreadable" without targets). --json prints a JSON array,
 * one item per line; --format junit/sarif a report (cli_format.h) whose
 * verdicts carry their advice, from the package's verdicts document (an
 * item keeps the reason only). Those three print the document alone (its
 * counts are in it), and stderr stays for errors.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cli_format.h"
#include "pt2_remote.h"
#include "pt2scope.h"

#define SCAN_FILES_MAX 1000000u /* files one scan lists */
#define SCAN_DEPTH_MAX 32u
#define SCAN_PATH_MAX 4096u
#define SCAN_TARGETS_MAX 64u
#define SCAN_RUNTIMES_MAX 16

struct scan_list {
    char **v;
    size_t n, cap;
};

static int scan_add(struct scan_list *l, const char *path)
{
    char **nv;
    char *copy;

    if (l->n == SCAN_FILES_MAX)
        return PT2_ERR_TOO_LARGE;
    if (l->n == l->cap) {
        size_t cap = l->cap != 0 ? l->cap * 2 : 64;

        nv = realloc(l->v, cap * sizeof(*nv));
        if (nv == NULL)
            return PT2_ERR_NOMEM;
        l->v = nv;
        l->cap = cap;
    }
    copy = strdup(path);
    if (copy == NULL)
        return PT2_ERR_NOMEM;
    l->v[l->n++] = copy;
    return PT2_OK;
}

static void scan_list_free(struct scan_list *l)
{
    size_t i;

    for (i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
}

static int scan_is_package(const char *name)
{
    size_t n = strlen(name);

    return n > 4 && strcmp(name + n - 4, ".pt2") == 0;
}

/* Every *.pt2 under the folder `dir` (a path of len bytes in a SCAN_PATH_MAX buffer). */
static int scan_walk(struct scan_list *l, char *dir, size_t len, unsigned depth)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    struct stat st;
    int rc = PT2_OK;

    if (d == NULL)
        return PT2_OK; /* an unreadable folder below the ones named is skipped */
    while (rc == PT2_OK && (e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        int is_dir;

        if (e->d_name[0] == '.' || len + 1 + n + 1 > SCAN_PATH_MAX)
            continue;
        dir[len] = '/';
        memcpy(dir + len + 1, e->d_name, n + 1);
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        is_dir = S_ISDIR(st.st_mode);
        /* A link is scanned when it leads to a file (or nowhere: then its item says so),
         * never to a folder or a FIFO, where opening it would wait forever. */
        if (S_ISLNK(st.st_mode) && stat(dir, &st) == 0 && !S_ISREG(st.st_mode))
            continue;
        if (is_dir && depth + 1 < SCAN_DEPTH_MAX)
            rc = scan_walk(l, dir, len + 1 + n, depth + 1);
        else if (!is_dir && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) &&
                 scan_is_package(e->d_name))
            rc = scan_add(l, dir);
    }
    dir[len] = '\0';
    closedir(d);
    return rc;
}

static int scan_by_path(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files of one command-line path: itself, or the packages below it, sorted. */
static int scan_path(struct scan_list *l, const char *path)
{
    char buf[SCAN_PATH_MAX];
    struct stat st;
    size_t first = l->n, len = strlen(path);
    int rc;

    if (pt2_remote_is_url(path)) {
        rc = scan_add(l, path); /* one package, read where it lives */
    } else if (stat(path, &st) != 0) {
        return cli_fail(PT2_ERR_NOT_FOUND, path, strerror(errno));
    } else if (!S_ISDIR(st.st_mode)) {
        rc = scan_add(l, path);
    } else {
        if (len >= sizeof(buf))
            return cli_fail(PT2_ERR_INVALID, path, "path too long");
        memcpy(buf, path, len + 1);
        while (len > 1 && buf[len - 1] == '/')
            buf[--len] = '\0';
        rc = scan_walk(l, buf, len, 0);
        if (l->n > first) /* qsort(NULL, 0) is undefined */
            qsort(l->v + first, l->n - first, sizeof(*l->v), scan_by_path);
    }
    if (rc == PT2_ERR_TOO_LARGE)
        return cli_fail(rc, path, "more than 1000000 packages");
    if (rc != PT2_OK)
        return cli_fail(rc, path, "out of memory");
    return CLI_OK;
}

static const char *scan_str(const cJSON *o, const char *key)
{
    const char *s = pt2_json_str(o, key);

    return s != NULL ? s : "-";
}

/* One text line for an item; package-derived text is defanged. */
static void scan_print_line(const cJSON *item)
{
    char line[4096], part[1024];
    const cJSON *v;
    size_t n;

    if (pt2_json_str(item, "type") != NULL) {
        const char *type = pt2_json_str(item, "type"), *slash = strrchr(type, '/');

        snprintf(line, sizeof(line), "%s  error  %s: %s", scan_str(item, "name"),
                 slash != NULL ? slash + 1 : type, scan_str(item, "detail"));
    } else {
        snprintf(line, sizeof(line), "%s  %s  %s", scan_str(item, "name"), scan_str(item, "kind"),
                 scan_str(item, "targets"));
        cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(item, "verdicts"))
        {
            const char *verdict = scan_str(v, "verdict");

            if (pt2_verdict_from_name(verdict) == PT2_INCOMPATIBLE)
                snprintf(part, sizeof(part), "  %s: %s (%s)", scan_str(v, "target"), verdict,
                         scan_str(v, "reason"));
            else
                snprintf(part, sizeof(part), "  %s: %s", scan_str(v, "target"), verdict);
            n = strlen(line);
            snprintf(line + n, sizeof(line) - n, "%s", part);
        }
    }
    cli_defang(line);
    printf("%s\n", line);
}

static void scan_print_json(const cJSON *item, int first)
{
    char *s = cJSON_PrintUnformatted(item);

    if (s == NULL)
        return;
    pt2_utf8_scrub(s, strlen(s)); /* file names need not be UTF-8 */
    printf("%s%s", first ? "\n" : ",\n", s);
    cJSON_free(s);
}

/* The verdicts document (pt2_verdicts_to_json) of an opened package on the targets. */
static int scan_verdicts(const pt2_package *pkg, const struct pt2_listing_target *t, size_t nt,
                         cJSON **out, struct pt2_error *err)
{
    pt2_verdicts *v = NULL;
    int rc = pt2_verdicts_new(&v, err);

    for (size_t i = 0; rc == PT2_OK && i < nt; i++)
        rc = t[i].runtime != NULL ? pt2_verdicts_add_runtime(v, pkg, t[i].runtime, err)
                                  : pt2_verdicts_add_target(v, pkg, t[i].label, &t[i].dev, err);
    if (rc == PT2_OK)
        rc = pt2_verdicts_to_json(v, out, err);
    pt2_verdicts_free(v);
    return rc;
}

/*
 * The item of one file; never fails for the package's own trouble. With
 * `verdicts` (for a report), also the package's verdicts document when the
 * item is not a problem and there are targets (else NULL).
 */
static int scan_item(const char *path, const struct pt2_listing_target *t, size_t nt, cJSON **item,
                     cJSON **verdicts)
{
    struct pt2_listing_file file = {path, 0, 0, 0};
    struct pt2_error perr = {0}, err = {0};
    char shown[PT2_REMOTE_URL_MAX + 1];
    pt2_package *pkg = NULL;
    struct stat st;
    int rc;

    if (pt2_remote_is_url(path)) {
        /* named as answers show URLs (no credentials, no query); size and mtime unknown */
        if (pt2_remote_shown_url(path, shown, sizeof(shown)) == PT2_OK)
            file.name = shown;
        (void)cli_open_url(path, &pkg, &perr);
    } else {
        if (stat(path, &st) == 0) {
            file.has_stat = 1;
            file.size = (uint64_t)st.st_size;
            file.mtime = (int64_t)st.st_mtim.tv_sec;
        }
        pt2_package_open_path(&pkg, path, NULL, &perr);
    }
    rc = pt2_listing_item(&file, pkg, &perr, t, nt, item, &err);
    if (rc == PT2_OK && verdicts != NULL && nt > 0 && pt2_json_str(*item, "type") == NULL)
        rc = scan_verdicts(pkg, t, nt, verdicts, &err);
    pt2_package_free(pkg);
    if (rc != PT2_OK)
        return cli_fail(err.code, path, err.message);
    return CLI_OK;
}

/* What the items were, for the summary line and the exit status. */
struct scan_tally {
    size_t total, compatible, unverified, incompatible, unreadable;
};

static void scan_count(struct scan_tally *c, const cJSON *item)
{
    const cJSON *overall = cJSON_GetObjectItemCaseSensitive(item, "overall");

    c->total++;
    if (pt2_json_str(item, "type") != NULL)
        c->unreadable++;
    else if (!pt2_listing_item_ok(item))
        c->incompatible++;
    else if (pt2_verdict_from_name(pt2_json_str(overall, "verdict")) == PT2_UNVERIFIED)
        c->unverified++;
    else
        c->compatible++;
}

/* "12 packages: 10 compatible, 1 incompatible, 1 unreadable" (see the design note). */
static void scan_summary(FILE *f, const struct scan_tally *c, size_t nt)
{
    fprintf(f, "%zu package%s: ", c->total, c->total == 1 ? "" : "s");
    if (nt == 0) {
        fprintf(f, "%zu readable, %zu unreadable\n", c->compatible, c->unreadable);
        return;
    }
    fprintf(f, "%zu compatible, ", c->compatible);
    if (c->unverified > 0)
        fprintf(f, "%zu unverified, ", c->unverified);
    fprintf(f, "%zu incompatible, %zu unreadable\n", c->incompatible, c->unreadable);
}

/* One item as `format` prints it, or into the report r. */
static void scan_print(int format, cli_report *r, const cJSON *item, const cJSON *verdicts,
                       size_t i)
{
    const char *name = pt2_json_str(item, "name");

    if (format == CLI_FORMAT_JSON)
        scan_print_json(item, i == 0);
    else if (r == NULL)
        scan_print_line(item);
    else if (pt2_json_str(item, "type") != NULL)
        cli_report_problem(r, name, item);
    else if (verdicts == NULL)
        cli_report_readable(r, name);
    else
        cli_report_verdicts(r, name, cJSON_GetObjectItemCaseSensitive(verdicts, "compatibility"),
                            "target");
}

int cli_scan(char *const *paths, size_t npaths, const char *const *targets, size_t ntargets,
             const char *driver, const char *platform, int format, const char *const *runtimes,
             size_t nruntimes, const char *sysroot, const char *libtorch)
{
    struct pt2_listing_target t[SCAN_TARGETS_MAX + SCAN_RUNTIMES_MAX + 2];
    pt2_runtime *rts[SCAN_RUNTIMES_MAX + 2];
    struct scan_list files = {0};
    struct scan_tally tally = {0};
    struct pt2_error err = {0};
    cli_report *report = NULL;
    int rc = CLI_OK, dv = 0;
    size_t i, nrts = 0, nt;

    if (npaths == 0)
        return cli_fail(PT2_ERR_INVALID, "usage", "scan needs at least one file or folder");
    if (ntargets > SCAN_TARGETS_MAX)
        return cli_fail(PT2_ERR_INVALID, "usage", "too many --target options");
    if (driver != NULL && pt2_driver_version_parse(driver, &dv, &err) != PT2_OK)
        return cli_fail(err.code, "--driver", err.message);
    for (i = 0; i < ntargets; i++) {
        memset(&t[i], 0, sizeof(t[i]));
        t[i].label = targets[i];
        if (cli_target(targets[i], dv, platform, &t[i].dev) != CLI_OK)
            return CLI_ERROR;
    }
    if (nruntimes > SCAN_RUNTIMES_MAX)
        return cli_fail(PT2_ERR_INVALID, "usage", "too many --runtime options");
    rc = cli_runtimes(runtimes, nruntimes, sysroot, libtorch, 0, rts, &nrts);
    if (rc != CLI_OK)
        return rc;
    nt = ntargets;
    for (i = 0; i < nrts; i++) {
        memset(&t[nt], 0, sizeof(t[nt]));
        t[nt].label = pt2_runtime_label(rts[i]);
        t[nt++].runtime = rts[i];
    }
    for (i = 0; i < npaths && rc == CLI_OK; i++)
        rc = scan_path(&files, paths[i]);
    if (rc != CLI_OK)
        goto cleanup;
    if (format >= CLI_FORMAT_JUNIT && cli_report_start(&report, format, "scan", stdout) != PT2_OK) {
        rc = cli_fail(PT2_ERR_NOMEM, "scan", "out of memory");
        goto cleanup;
    }
    if (format == CLI_FORMAT_JSON)
        printf("[");
    for (i = 0; i < files.n && rc == CLI_OK; i++) {
        cJSON *item = NULL, *verdicts = NULL;

        rc = scan_item(files.v[i], t, nt, &item, report != NULL ? &verdicts : NULL);
        if (rc == CLI_OK) {
            scan_count(&tally, item);
            scan_print(format, report, item, verdicts, i);
        }
        cJSON_Delete(item);
        cJSON_Delete(verdicts);
    }
    if (format == CLI_FORMAT_JSON)
        printf("%s]\n", files.n > 0 ? "\n" : "");
    if (files.n == 0)
        fprintf(stderr, "pt2scope: scan: no packages (*.pt2) found\n");
    else if (rc == CLI_OK && format == CLI_FORMAT_TEXT)
        scan_summary(stdout, &tally, nt);
    if (rc == CLI_OK)
        rc = files.n == 0             ? CLI_ERROR
             : tally.unreadable > 0   ? CLI_UNREADABLE
             : tally.incompatible > 0 ? CLI_NEGATIVE
                                      : CLI_OK;
    if (report != NULL && cli_report_finish(report, rc) != PT2_OK && rc != CLI_ERROR)
        rc = cli_fail(PT2_ERR_IO, "stdout", "cannot write the report");
cleanup:
    scan_list_free(&files);
    for (i = 0; i < nrts; i++)
        pt2_runtime_free(rts[i]);
    return rc;
}
