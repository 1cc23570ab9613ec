/*
 * bench_inspect.c - library-level inspection cost: bytes read, read calls
 * and time per package, for packages of growing weights size and entry
 * count (made by bench_genpkg).
 *
 * One sample = pt2_package_open_source() + pt2_package_print_json() + free,
 * the work the daemon does for an uncached request (the document printed
 * without its tree). The first open is taken
 * apart (it may fault the file's pages in); then samples repeat until both
 * MIN_ITERS samples and MIN_MS milliseconds are reached, and the median and
 * 90th percentile are reported. Bytes and calls come from the library's own
 * counters, so they are exact and the same on every sample.
 *
 * Ratios are against the first package on the command line (the smallest),
 * which is what "cost must not grow with weights size" is checked against.
 *
 * TZ: libzip converts every directory entry's DOS time with mktime(), and
 * glibc's mktime() stats /etc/localtime on every call while TZ is unset
 * (about 3 us per entry here, the larger part of a 20,000-entry open). Like
 * pt2scoped at start-up, we set TZ=:/etc/localtime when it is unset: the
 * same zone, read once.
 *
 * BENCH_AFFINITY=1 in the environment inspects with PT2_JSON_AFFINITY (the
 * daemon's affinity=1: the scheduling member, the nodeAffinity computed).
 *
 * usage: bench_inspect OUT.json MIN_MS LABEL WEIGHTS PATH [LABEL WEIGHTS PATH ...]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <cJSON.h>

#include "pt2scope.h"

#define BI_MIN_ITERS 5u
#define BI_MAX_SAMPLES 100000u
#define BI_MAX_PKGS 64u
#define BI_MIN_MS_MAX 60000L

struct bi_result {
    const char *label;
    const char *path;
    unsigned long long weights, file_size, entries;
    unsigned long long bytes_read, read_calls, rounds;
    unsigned long long direct_calls, direct_bytes; /* the same inspection, every read a pread */
    double first_us, median_us, p90_us, min_us;
    size_t iters;
};

static double bi_now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int bi_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/*
 * The same inspection through a source with `direct` tuning: every read the
 * inspector makes goes to pread() as asked, nothing planned or cached. What
 * the byte source saves is the difference. The entry count is read from this
 * one's document (a tree), outside the samples.
 */
static int bi_direct(struct bi_result *r, struct pt2_error *err)
{
    const struct pt2_source_tuning direct = {.direct = 1};
    pt2_source *src = NULL;
    pt2_package *pkg = NULL;
    cJSON *doc = NULL;
    const cJSON *n;
    FILE *f = fopen(r->path, "rb");
    int rc;

    if (f == NULL)
        return pt2_error_set(err, PT2_ERR_IO, "cannot open %s", r->path);
    rc = pt2_source_new_fd(&src, fileno(f), &direct, err);
    if (rc == PT2_OK)
        rc = pt2_package_open_source(&pkg, src, NULL, err);
    if (rc == PT2_OK) {
        r->direct_calls = pt2_source_requests(src);
        r->direct_bytes = pt2_source_bytes(src);
        rc = pt2_package_to_json(pkg, PT2_JSON_DEFAULT, &doc, err);
    }
    if (rc == PT2_OK) {
        n = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "package"),
                                             "entries");
        r->entries = cJSON_IsNumber(n) ? (unsigned long long)n->valuedouble : 0;
    }
    cJSON_Delete(doc);
    pt2_package_free(pkg);
    pt2_source_free(src);
    fclose(f);
    return rc;
}

/* One full inspection; fills bytes/calls/rounds/entries on success. */
/* The document the samples build: the default one, or without the affinity. */
static unsigned bi_json_flags(void)
{
    const char *a = getenv("BENCH_AFFINITY");

    return a != NULL && strcmp(a, "1") == 0 ? PT2_JSON_AFFINITY : 0;
}

static int bi_once(struct bi_result *r, struct pt2_error *err)
{
    pt2_package *pkg = NULL;
    char *text = NULL;
    size_t len = 0;
    int rc;

    pt2_source *src = NULL;
    FILE *f = fopen(r->path, "rb");

    if (f == NULL)
        return pt2_error_set(err, PT2_ERR_IO, "cannot open %s", r->path);
    rc = pt2_source_new_fd(&src, fileno(f), NULL, err);
    if (rc == PT2_OK)
        rc = pt2_package_open_source(&pkg, src, NULL, err);
    if (rc == PT2_OK)
        rc = pt2_package_print_json(pkg, bi_json_flags(), NULL, 1, &text, &len, err);
    if (rc == PT2_OK) {
        r->bytes_read = pt2_package_bytes_read(pkg);
        r->read_calls = pt2_package_read_calls(pkg);
        r->rounds = pt2_source_rounds(src);
    }
    free(text);
    pt2_package_free(pkg);
    pt2_source_free(src);
    fclose(f);
    return rc;
}

static int bi_measure(struct bi_result *r, long min_ms, double *samples)
{
    struct pt2_error err = {0};
    struct stat st;
    double t0, start;
    size_t n = 0;

    if (stat(r->path, &st) != 0) {
        fprintf(stderr, "bench_inspect: %s: %s\n", r->path, strerror(errno));
        return -1;
    }
    r->file_size = (unsigned long long)st.st_size;
    t0 = bi_now_us();
    if (bi_once(r, &err) != PT2_OK) {
        fprintf(stderr, "bench_inspect: %s: %s\n", r->path, err.message);
        return -1;
    }
    r->first_us = bi_now_us() - t0;
    if (bi_direct(r, &err) != PT2_OK) {
        fprintf(stderr, "bench_inspect: %s: %s\n", r->path, err.message);
        return -1;
    }
    start = bi_now_us();
    while (n < BI_MAX_SAMPLES &&
           (n < BI_MIN_ITERS || bi_now_us() - start < (double)min_ms * 1000.0)) {
        t0 = bi_now_us();
        if (bi_once(r, &err) != PT2_OK) {
            fprintf(stderr, "bench_inspect: %s: %s\n", r->path, err.message);
            return -1;
        }
        samples[n++] = bi_now_us() - t0;
    }
    qsort(samples, n, sizeof(*samples), bi_cmp_double);
    r->iters = n;
    r->min_us = samples[0];
    r->median_us = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2.0;
    r->p90_us = samples[(n * 9) / 10 < n ? (n * 9) / 10 : n - 1];
    return 0;
}

static int bi_parse_ull(const char *s, unsigned long long *out)
{
    char *end = NULL;

    if (s[0] < '0' || s[0] > '9')
        return -1;
    errno = 0;
    *out = strtoull(s, &end, 10);
    return errno == ERANGE || end == s || *end != '\0' ? -1 : 0;
}

static cJSON *bi_result_json(const struct bi_result *r, const struct bi_result *base)
{
    cJSON *o = cJSON_CreateObject();

    if (o == NULL)
        return NULL;
    if (cJSON_AddStringToObject(o, "label", r->label) == NULL ||
        cJSON_AddNumberToObject(o, "weights_bytes", (double)r->weights) == NULL ||
        cJSON_AddNumberToObject(o, "entries", (double)r->entries) == NULL ||
        cJSON_AddNumberToObject(o, "file_size", (double)r->file_size) == NULL ||
        cJSON_AddNumberToObject(o, "bytes_read", (double)r->bytes_read) == NULL ||
        cJSON_AddNumberToObject(o, "read_calls", (double)r->read_calls) == NULL ||
        cJSON_AddNumberToObject(o, "read_rounds", (double)r->rounds) == NULL ||
        cJSON_AddNumberToObject(o, "unplanned_read_calls", (double)r->direct_calls) == NULL ||
        cJSON_AddNumberToObject(o, "unplanned_bytes_read", (double)r->direct_bytes) == NULL ||
        cJSON_AddNumberToObject(o, "iterations", (double)r->iters) == NULL ||
        cJSON_AddNumberToObject(o, "first_us", r->first_us) == NULL ||
        cJSON_AddNumberToObject(o, "median_us", r->median_us) == NULL ||
        cJSON_AddNumberToObject(o, "p90_us", r->p90_us) == NULL ||
        cJSON_AddNumberToObject(o, "min_us", r->min_us) == NULL ||
        cJSON_AddNumberToObject(o, "bytes_ratio",
                                (double)r->bytes_read / (double)base->bytes_read) == NULL ||
        cJSON_AddNumberToObject(o, "time_ratio", r->median_us / base->median_us) == NULL) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static int bi_write_json(const char *out, const struct bi_result *res, size_t n, long min_ms)
{
    cJSON *doc = cJSON_CreateObject(), *arr;
    char *text = NULL;
    FILE *f = NULL;
    size_t i;
    int rc = -1;

    if (doc == NULL || cJSON_AddStringToObject(doc, "benchmark", "inspect") == NULL ||
        cJSON_AddStringToObject(doc, "sample", "open_source + print_json + free") == NULL ||
        cJSON_AddBoolToObject(doc, "affinity", bi_json_flags() != 0) == NULL ||
        cJSON_AddNumberToObject(doc, "min_ms", (double)min_ms) == NULL ||
        cJSON_AddStringToObject(doc, "tz", getenv("TZ") != NULL ? getenv("TZ") : "") == NULL)
        goto cleanup;
    arr = cJSON_AddArrayToObject(doc, "packages");
    if (arr == NULL)
        goto cleanup;
    for (i = 0; i < n; i++) {
        cJSON *o = bi_result_json(&res[i], &res[0]);

        if (o == NULL)
            goto cleanup;
        cJSON_AddItemToArray(arr, o);
    }
    text = cJSON_Print(doc);
    if (text == NULL)
        goto cleanup;
    f = fopen(out, "w");
    if (f == NULL || fputs(text, f) == EOF || fputc('\n', f) == EOF)
        goto cleanup;
    rc = 0;
cleanup:
    if (f != NULL && fclose(f) != 0)
        rc = -1;
    if (rc != 0)
        fprintf(stderr, "bench_inspect: cannot write %s\n", out);
    free(text);
    cJSON_Delete(doc);
    return rc;
}

int main(int argc, char **argv)
{
    struct bi_result res[BI_MAX_PKGS];
    unsigned long long min_ms = 0;
    double *samples = NULL;
    size_t n = 0, i;
    int rc = 1;

    if (argc < 6 || (argc - 3) % 3 != 0 || (size_t)(argc - 3) / 3 > BI_MAX_PKGS ||
        bi_parse_ull(argv[2], &min_ms) < 0 || min_ms > BI_MIN_MS_MAX) {
        fprintf(stderr, "usage: %s OUT.json MIN_MS LABEL WEIGHTS PATH [LABEL WEIGHTS PATH ...]\n",
                argv[0]);
        return 2;
    }
    if (getenv("TZ") == NULL && setenv("TZ", ":/etc/localtime", 0) != 0) {
        fprintf(stderr, "bench_inspect: cannot set TZ\n");
        return 1;
    }
    memset(res, 0, sizeof(res));
    samples = malloc(BI_MAX_SAMPLES * sizeof(*samples));
    if (samples == NULL) {
        fprintf(stderr, "bench_inspect: out of memory\n");
        return 1;
    }
    printf("%-14s %12s %7s %10s %7s %10s %8s %8s %7s\n", "package", "file bytes", "entries",
           "bytes read", "calls", "median us", "p90 us", "bytes x", "time x");
    for (i = 3; i + 2 < (size_t)argc; i += 3, n++) {
        struct bi_result *r = &res[n];

        r->label = argv[i];
        r->path = argv[i + 2];
        if (bi_parse_ull(argv[i + 1], &r->weights) < 0) {
            fprintf(stderr, "bench_inspect: bad weights size '%s'\n", argv[i + 1]);
            goto cleanup;
        }
        if (bi_measure(r, (long)min_ms, samples) < 0)
            goto cleanup;
        printf("%-14s %12llu %7llu %10llu %7llu %10.1f %8.1f %7.2fx %6.2fx\n", r->label,
               r->file_size, r->entries, r->bytes_read, r->read_calls, r->median_us, r->p90_us,
               (double)r->bytes_read / (double)res[0].bytes_read, r->median_us / res[0].median_us);
        fflush(stdout);
    }
    if (bi_write_json(argv[1], res, n, (long)min_ms) < 0)
        goto cleanup;
    rc = 0;
cleanup:
    free(samples);
    return rc;
}
