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
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <curl/curl.h>

#include "cli.h"
#include "cli_format.h"
#include "cli_scan_state.h"
#include "pt2_remote.h"
#include "pt2_remote_list.h"
#include "pt2_remote_multi.h"
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

/* One JSON Lines item (--format jsonl, --output). */
static void scan_print_jsonl(FILE *f, const cJSON *item)
{
    char *s = cJSON_PrintUnformatted(item);

    if (s == NULL)
        return;
    pt2_utf8_scrub(s, strlen(s));
    fprintf(f, "%s\n", s);
    fflush(f); /* a line is whole when it is out: another process may be reading */
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
 * The item of one file or URL; never fails for the package's own trouble.
 * With `verdicts` (for a report), also the package's verdicts document when
 * the item is not a problem and there are targets (else NULL). Called on
 * the pool's threads: prints nothing, the caller reports err.
 */
static int scan_item(const char *path, const struct pt2_remote_object *listed,
                     const struct pt2_remote_opts *ro, const struct pt2_listing_target *t,
                     size_t nt, cJSON **item, cJSON **verdicts, struct pt2_error *err)
{
    struct pt2_listing_file file = {path, 0, 0, 0};
    struct pt2_error perr = {0};
    char shown[PT2_REMOTE_URL_MAX + 1];
    pt2_package *pkg = NULL;
    struct stat st;
    int rc;

    if (pt2_remote_is_url(path)) {
        /* named as answers show URLs (no credentials, no query); size and mtime as a
         * listing gives them, else unknown */
        if (pt2_remote_shown_url(path, shown, sizeof(shown)) == PT2_OK)
            file.name = shown;
        if (listed != NULL)
            file = pt2_remote_object_file(listed, file.name);
        (void)cli_open_url_opts(path, ro, NULL, &pkg, &perr);
    } else {
        if (stat(path, &st) == 0) {
            file.has_stat = 1;
            file.size = (uint64_t)st.st_size;
            file.mtime = (int64_t)st.st_mtim.tv_sec;
        }
        pt2_package_open_path(&pkg, path, NULL, &perr);
    }
    rc = pt2_listing_item(&file, pkg, &perr, t, nt, item, err);
    if (rc == PT2_OK && verdicts != NULL && nt > 0 && pt2_json_str(*item, "type") == NULL)
        rc = scan_verdicts(pkg, t, nt, verdicts, err);
    pt2_package_free(pkg);
    return rc;
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
    else if (format == CLI_FORMAT_JSONL)
        scan_print_jsonl(stdout, item);
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

/* ---- a run: batches of jobs on the remote pool --------------------------------------- */

/* One package to scan: a path or URL, and for a listed object its ETag and size. */
struct scan_job {
    const char *path;                    /* borrowed from the file list or the listing page */
    const struct pt2_remote_object *obj; /* a listed object (borrowed), else NULL */
    const char *etag;                    /* a listed object's, as listed; NULL otherwise */
    uint64_t size;
    cJSON *item, *verdicts;
    int rc;
    struct pt2_error err;
};

struct scan_run {
    const struct pt2_listing_target *t;
    size_t nt;
    int format;
    cli_report *report;
    struct scan_tally tally;
    size_t printed, skipped, listed;
    pthread_mutex_t lock; /* output, tally and state, from the pool's threads (jsonl) */
    FILE *out;            /* --output: the JSON Lines to upload; NULL = none */
    cli_state *state;
    int failed;
    pt2_remote_multi *pool;
    struct pt2_remote_opts ro;
    struct scan_job *jobs;
    size_t njobs;
};

/* One finished job: counted, printed, recorded; its item freed. Called under run->lock. */
static void scan_emit(struct scan_run *run, struct scan_job *j)
{
    if (j->rc != PT2_OK) {
        run->failed = cli_fail(j->err.code, j->path, j->err.message);
    } else if (!run->failed) {
        scan_count(&run->tally, j->item);
        scan_print(run->format, run->report, j->item, j->verdicts, run->printed++);
        if (run->out != NULL)
            scan_print_jsonl(run->out, j->item);
        if (run->state != NULL && j->etag != NULL &&
            cli_state_write(run->state, j->path, j->etag, j->size, j->item) != 0)
            run->failed = cli_fail(PT2_ERR_IO, "--state", "cannot write the new state");
    }
    cJSON_Delete(j->item);
    cJSON_Delete(j->verdicts);
    j->item = j->verdicts = NULL;
}

static void scan_work(void *ctx, size_t i, const struct pt2_remote_opts *ro)
{
    struct scan_run *run = ctx;
    struct scan_job *j = &run->jobs[i];

    if (j->item == NULL) /* else answered from the state */
        j->rc = scan_item(j->path, j->obj, ro, run->t, run->nt, &j->item,
                          run->report != NULL ? &j->verdicts : NULL, &j->err);
    if (run->format == CLI_FORMAT_JSONL) { /* streamed as each completes */
        pthread_mutex_lock(&run->lock);
        scan_emit(run, j);
        pthread_mutex_unlock(&run->lock);
    }
}

/* Inspect run->jobs[0..n) on the pool; emit them (in order, unless streaming). */
static int scan_batch(struct scan_run *run, size_t n)
{
    struct pt2_error err = {0};

    run->njobs = n;
    if (n > 0 && pt2_remote_multi_run(run->pool, n, &run->ro, scan_work, run, &err) != PT2_OK)
        return cli_fail(err.code, "scan", err.message);
    for (size_t i = 0; i < n && run->format != CLI_FORMAT_JSONL; i++)
        scan_emit(run, &run->jobs[i]);
    return run->failed ? CLI_ERROR : CLI_OK;
}

static struct scan_job *scan_job_at(struct scan_run *run, size_t i, const char *path)
{
    struct scan_job *j = &run->jobs[i];

    memset(j, 0, sizeof(*j));
    j->path = path;
    return j;
}

/* --shard I/N: the key (a listed object's key, else the path as given) is in this shard. */
static int scan_in_shard(const struct cli_scan_opts *so, const char *key)
{
    return so->shards <= 1 || pt2_remote_shard(key, so->shards) == so->shard;
}

/* The files and URLs named, in batches. */
static int scan_files(struct scan_run *run, const struct scan_list *files,
                      const struct cli_scan_opts *so)
{
    size_t i = 0, n;
    int rc = CLI_OK;

    while (rc == CLI_OK && i < files->n) {
        for (n = 0; i < files->n && n < PT2_REMOTE_LIST_PAGE_MAX; i++)
            if (scan_in_shard(so, files->v[i]))
                scan_job_at(run, n++, files->v[i]);
        rc = scan_batch(run, n);
    }
    return rc;
}

/* One listing page as a batch: the shard's objects, unchanged ones from the state. */
static int scan_page(struct scan_run *run, const struct pt2_remote_page *pg,
                     const struct cli_scan_opts *so)
{
    size_t n = 0;

    for (size_t i = 0; i < pg->n; i++) {
        const struct pt2_remote_object *o = &pg->v[i];
        struct scan_job *j;

        if (!scan_in_shard(so, o->key))
            continue;
        run->listed++;
        j = scan_job_at(run, n++, o->url);
        j->obj = o;
        j->etag = o->etag;
        j->size = o->size;
        j->item = cli_state_lookup(run->state, o->url, o->etag, o->size);
        if (j->item != NULL) {
            /* the same bytes, shown with what this listing says of them (a PUT of the same
             * bytes keeps the ETag and moves LastModified); else read afresh */
            struct pt2_listing_file f = pt2_remote_object_file(o, o->url);
            struct pt2_error ignored = {0};

            if (pt2_listing_item_stat(j->item, &f, &ignored) != PT2_OK) {
                cJSON_Delete(j->item);
                j->item = NULL;
            }
        }
        run->skipped += j->item != NULL;
    }
    return scan_batch(run, n);
}

/* Every page of a prefix; `first` (already listed, so that a refused listing is an error
 * before anything is printed) is the first. */
static int scan_prefix(struct scan_run *run, const char *url, struct pt2_remote_page *first,
                       const struct cli_scan_opts *so)
{
    struct pt2_remote_page pg = *first;
    struct pt2_error err = {0};
    char token[PT2_REMOTE_LIST_TOKEN_MAX + 1];
    int rc;

    memset(first, 0, sizeof(*first));
    for (;;) {
        rc = scan_page(run, &pg, so);
        snprintf(token, sizeof(token), "%s", pg.next);
        pt2_remote_page_free(&pg);
        if (rc != CLI_OK || token[0] == '\0')
            return rc;
        if (pt2_remote_list_page(url, token, 0, &run->ro, &pg, &err) != PT2_OK) {
            pt2_remote_page_free(&pg);
            return cli_fail(err.code, "scan", err.message);
        }
    }
}

/* ---- setting up: options, the state, the output -------------------------------------- */

/* What the answers depend on, for the state file: a state made under others is not used. */
static void scan_options_text(char *out, size_t cap, const struct pt2_listing_target *t, size_t nt,
                              const char *driver, const char *platform)
{
    size_t n = (size_t)snprintf(out, cap, "pt2scope %s schema %d; driver %s; platform %s",
                                PT2SCOPE_VERSION, PT2SCOPE_SCHEMA_VERSION,
                                driver != NULL ? driver : "-", platform != NULL ? platform : "-");

    for (size_t i = 0; i < nt && n < cap; i++)
        n += (size_t)snprintf(out + n, cap - n, "; %s %s",
                              t[i].runtime != NULL ? "runtime" : "target", t[i].label);
}

/* --output: where the JSON Lines go (a PREFIX/ gets scan.jsonl or scan-I-of-N.jsonl). */
static int scan_output_url(const char *output, const struct cli_scan_opts *so, char *out,
                           size_t cap)
{
    size_t n = strlen(output);

    if (n == 0 || output[n - 1] != '/')
        return (size_t)snprintf(out, cap, "%s", output) < cap ? CLI_OK : CLI_ERROR;
    if (so->shards > 1)
        return (size_t)snprintf(out, cap, "%sscan-%u-of-%u.jsonl", output, so->shard, so->shards) <
                       cap
                   ? CLI_OK
                   : CLI_ERROR;
    return (size_t)snprintf(out, cap, "%sscan.jsonl", output) < cap ? CLI_OK : CLI_ERROR;
}

static int scan_upload(struct scan_run *run, const char *output, const struct cli_scan_opts *so)
{
    char url[PT2_REMOTE_URL_MAX + 1];
    struct pt2_error err = {0};
    long len;

    if (scan_output_url(output, so, url, sizeof(url)) != CLI_OK)
        return cli_fail(PT2_ERR_INVALID, "--output", "the URL is too long");
    if (fflush(run->out) != 0 || (len = ftell(run->out)) < 0 || fseek(run->out, 0, SEEK_SET) != 0)
        return cli_fail(PT2_ERR_IO, "--output", "cannot read back the JSON Lines");
    if (pt2_remote_put(url, fileno(run->out), (uint64_t)len, &run->ro, &err) != PT2_OK)
        return cli_fail(err.code, "--output", err.message);
    return CLI_OK;
}

static int scan_setup(struct scan_run *run, const struct cli_scan_opts *so, const char *options)
{
    struct pt2_error err = {0};
    char why[512];

    if (so->output != NULL && (strncasecmp(so->output, "s3://", 5) != 0 ||
                               !(pt2_remote_is_prefix(so->output) ||
                                 pt2_remote_check_url(so->output, NULL, &err) == PT2_OK)))
        return cli_fail(PT2_ERR_INVALID, "--output",
                        "not an s3://BUCKET/KEY or s3://BUCKET/PREFIX/ URL");
    if (pt2_remote_multi_new(&run->pool, so->concurrency, &err) != PT2_OK)
        return cli_fail(err.code, "--remote-concurrency", err.message);
    if (so->state != NULL && cli_state_open(&run->state, so->state, options, why, sizeof(why)) != 0)
        return cli_fail(PT2_ERR_IO, so->state, why);
    if (so->output != NULL && (run->out = tmpfile()) == NULL)
        return cli_fail(PT2_ERR_IO, "--output", "cannot create a temporary file");
    run->jobs = calloc(PT2_REMOTE_LIST_PAGE_MAX, sizeof(*run->jobs));
    if (run->jobs == NULL)
        return cli_fail(PT2_ERR_NOMEM, "scan", "out of memory");
    return CLI_OK;
}

/* The targets and runtimes every item is judged on, into t (room for
 * SCAN_TARGETS_MAX + SCAN_RUNTIMES_MAX + 2) and rts. */
static int scan_targets(const char *const *targets, size_t ntargets, const char *driver,
                        const char *platform, const char *const *runtimes, size_t nruntimes,
                        const char *sysroot, const char *libtorch, struct pt2_listing_target *t,
                        size_t *nt, pt2_runtime **rts, size_t *nrts)
{
    struct pt2_error err = {0};
    int rc, dv = 0;
    size_t i;

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
    rc = cli_runtimes(runtimes, nruntimes, sysroot, libtorch, 0, rts, nrts);
    if (rc != CLI_OK)
        return rc;
    *nt = ntargets;
    for (i = 0; i < *nrts; i++) {
        memset(&t[*nt], 0, sizeof(t[*nt]));
        t[*nt].label = pt2_runtime_label(rts[i]);
        t[(*nt)++].runtime = rts[i];
    }
    return CLI_OK;
}

/* Check every path and list the first page of every prefix, before anything is printed. */
static int scan_gather(char *const *paths, size_t npaths, struct scan_list *files,
                       struct pt2_remote_page *firsts, const struct pt2_remote_opts *ro)
{
    struct pt2_error err = {0};
    int rc = CLI_OK;

    for (size_t i = 0; i < npaths && rc == CLI_OK; i++) {
        if (!pt2_remote_is_prefix(paths[i])) {
            rc = scan_path(files, paths[i]);
        } else if (pt2_remote_list_page(paths[i], NULL, 0, ro, &firsts[i], &err) != PT2_OK) {
            rc = cli_fail(err.code, "scan", err.message); /* the message names the URL */
        }
    }
    return rc;
}

/* Everything after the setup: the items, the summary, the report, the state, the upload. */
static int scan_all(struct scan_run *run, char *const *paths, size_t npaths,
                    struct scan_list *files, struct pt2_remote_page *firsts,
                    const struct cli_scan_opts *so)
{
    char why[512];
    int rc;

    if (run->format == CLI_FORMAT_JSON)
        printf("[");
    rc = scan_files(run, files, so);
    for (size_t i = 0; i < npaths && rc == CLI_OK; i++)
        if (pt2_remote_is_prefix(paths[i]))
            rc = scan_prefix(run, paths[i], &firsts[i], so);
    if (run->format == CLI_FORMAT_JSON)
        printf("%s]\n", run->printed > 0 ? "\n" : "");
    if (rc == CLI_OK && run->state != NULL) {
        fprintf(stderr, "pt2scope: scan: %zu of %zu listed objects unchanged since %s (not read)\n",
                run->skipped, run->listed, so->state);
        if (cli_state_commit(run->state, why, sizeof(why)) != 0)
            rc = cli_fail(PT2_ERR_IO, so->state, why);
    }
    if (rc == CLI_OK && run->out != NULL)
        rc = scan_upload(run, so->output, so);
    if (rc == CLI_OK && run->tally.total == 0)
        fprintf(stderr, "pt2scope: scan: no packages (*.pt2) found\n");
    else if (rc == CLI_OK && run->format == CLI_FORMAT_TEXT)
        scan_summary(stdout, &run->tally, run->nt);
    if (rc == CLI_OK)
        rc = run->tally.total == 0         ? CLI_ERROR
             : run->tally.unreadable > 0   ? CLI_UNREADABLE
             : run->tally.incompatible > 0 ? CLI_NEGATIVE
                                           : CLI_OK;
    return rc;
}

static void scan_run_free(struct scan_run *run, struct pt2_remote_page *firsts, size_t npaths)
{
    for (size_t i = 0; firsts != NULL && i < npaths; i++)
        pt2_remote_page_free(&firsts[i]);
    free(firsts);
    free(run->jobs);
    cli_state_free(run->state);
    if (run->out != NULL)
        fclose(run->out);
    pt2_remote_multi_free(run->pool);
    pthread_mutex_destroy(&run->lock);
}

int cli_scan(char *const *paths, size_t npaths, const char *const *targets, size_t ntargets,
             const char *driver, const char *platform, int format, const char *const *runtimes,
             size_t nruntimes, const char *sysroot, const char *libtorch,
             const struct cli_scan_opts *so)
{
    static const struct cli_scan_opts none;
    struct pt2_listing_target t[SCAN_TARGETS_MAX + SCAN_RUNTIMES_MAX + 2];
    pt2_runtime *rts[SCAN_RUNTIMES_MAX + 2];
    struct pt2_remote_page *firsts = NULL;
    struct scan_list files = {0};
    struct scan_run run;
    char options[8192];
    size_t i, nrts = 0, nt = 0;
    int rc;

    if (so == NULL)
        so = &none;
    memset(&run, 0, sizeof(run));
    pthread_mutex_init(&run.lock, NULL);
    if (npaths == 0)
        return cli_fail(PT2_ERR_INVALID, "usage", "scan needs at least one file or folder");
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) /* once, before any thread */
        return cli_fail(PT2_ERR_INTERNAL, "scan", "cannot initialise libcurl");
    rc = scan_targets(targets, ntargets, driver, platform, runtimes, nruntimes, sysroot, libtorch,
                      t, &nt, rts, &nrts);
    firsts = calloc(npaths, sizeof(*firsts));
    if (rc == CLI_OK && firsts == NULL)
        rc = cli_fail(PT2_ERR_NOMEM, "scan", "out of memory");
    if (rc == CLI_OK)
        rc = scan_gather(paths, npaths, &files, firsts, &run.ro);
    scan_options_text(options, sizeof(options), t, nt, driver, platform);
    if (rc == CLI_OK)
        rc = scan_setup(&run, so, options);
    run.t = t;
    run.nt = nt;
    run.format = format;
    if (rc == CLI_OK && (format == CLI_FORMAT_JUNIT || format == CLI_FORMAT_SARIF) &&
        cli_report_start(&run.report, format, "scan", stdout) != PT2_OK)
        rc = cli_fail(PT2_ERR_NOMEM, "scan", "out of memory");
    if (rc == CLI_OK)
        rc = scan_all(&run, paths, npaths, &files, firsts, so);
    if (run.report != NULL && cli_report_finish(run.report, rc) != PT2_OK && rc != CLI_ERROR)
        rc = cli_fail(PT2_ERR_IO, "stdout", "cannot write the report");
    scan_run_free(&run, firsts, npaths);
    scan_list_free(&files);
    for (i = 0; i < nrts; i++)
        pt2_runtime_free(rts[i]);
    curl_global_cleanup();
    return rc;
}
