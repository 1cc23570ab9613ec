/*
 * pt2d_metrics.c - Prometheus metrics (see pt2d_metrics.h).
 *
 * Request durations use the OpenTelemetry advised HTTP buckets; package
 * inspection gets its own histogram with larger buckets because its
 * latency follows archive size, not request handling.
 *
 * The process_* series follow the Prometheus client libraries (names,
 * types and help text of client_golang's process collector): CPU time and
 * start time come from /proc/self/stat in clock ticks (start time is
 * ticks after boot, so /proc/stat's btime is added), resident memory is
 * its rss in pages, open descriptors are the entries of /proc/self/fd
 * (the directory's own descriptor included, as client_golang counts) and
 * the maximum is RLIMIT_NOFILE's soft limit. Each read is capped
 * (PROC_STAT_MAX, PROC_FILE_MAX, PROC_FDS_MAX).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "pt2d_buf.h"
#include "pt2d_metrics.h"
#include "pt2scope.h"

static const unsigned status_codes[] = {200, 204, 304, 400, 403, 404, 405,
                                        413, 415, 422, 500, 501, 503};
#define N_STATUS (sizeof(status_codes) / sizeof(status_codes[0]) + 1) /* + "other" */

static const double http_buckets[] = {0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25,
                                      0.5,   0.75, 1,     2.5,  5,     7.5, 10};
#define N_HTTP_BUCKETS (sizeof(http_buckets) / sizeof(http_buckets[0]))

static const double inspect_buckets[] = {0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60};
#define N_INSPECT_BUCKETS (sizeof(inspect_buckets) / sizeof(inspect_buckets[0]))

#define RENDER_CAP (1u << 20)
#define PROC_ROOT_MAX 256
#define PROC_STAT_MAX 4096        /* /proc/self/stat: ~300 bytes plus a 16-byte comm */
#define PROC_FILE_MAX (1u << 20)  /* /proc/stat: btime follows a line per CPU and intr */
#define PROC_FDS_MAX (1ull << 24) /* directory entries counted at most */

struct histogram {
    uint64_t buckets[N_INSPECT_BUCKETS > N_HTTP_BUCKETS ? N_INSPECT_BUCKETS : N_HTTP_BUCKETS];
    uint64_t count;
    double sum;
};

struct pt2d_metrics {
    pthread_mutex_t lock;
    uint64_t requests[PT2D_ROUTE_COUNT][PT2D_METHOD_COUNT][N_STATUS];
    struct histogram http[PT2D_ROUTE_COUNT];
    struct histogram inspect;
    uint64_t bytes_read;
    uint64_t upload_bytes;
    uint64_t remote_requests, remote_bytes;
    uint64_t refused[PT2D_REFUSED_COUNT];
    char proc_root[PROC_ROOT_MAX]; /* "/proc" (tests: a fake tree) */
};

int pt2d_metrics_create(struct pt2d_metrics **out, struct pt2_error *err)
{
    struct pt2d_metrics *m = calloc(1, sizeof(*m));

    *out = NULL;
    if (m == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "metrics: out of memory");
    if (pthread_mutex_init(&m->lock, NULL) != 0) {
        free(m);
        return pt2_error_set(err, PT2_ERR_INTERNAL, "metrics: cannot create mutex");
    }
    snprintf(m->proc_root, sizeof(m->proc_root), "/proc");
    *out = m;
    return PT2_OK;
}

void pt2d_metrics_free(struct pt2d_metrics *m)
{
    if (m == NULL)
        return;
    pthread_mutex_destroy(&m->lock);
    free(m);
}

void pt2d_metrics_set_proc_root(struct pt2d_metrics *m, const char *proc_root)
{
    pthread_mutex_lock(&m->lock);
    snprintf(m->proc_root, sizeof(m->proc_root), "%s", proc_root);
    pthread_mutex_unlock(&m->lock);
}

static size_t status_index(unsigned status)
{
    size_t i;

    for (i = 0; i < N_STATUS - 1; i++)
        if (status_codes[i] == status)
            return i;
    return N_STATUS - 1;
}

static void histogram_observe(struct histogram *h, const double *bounds, size_t n, double v)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (v <= bounds[i])
            h->buckets[i]++;
    h->count++;
    h->sum += v;
}

void pt2d_metrics_request(struct pt2d_metrics *m, enum pt2d_route route, enum pt2d_method method,
                          unsigned status, double seconds)
{
    if ((unsigned)route >= PT2D_ROUTE_COUNT)
        route = PT2D_ROUTE_OTHER;
    if ((unsigned)method >= PT2D_METHOD_COUNT)
        method = PT2D_METHOD_OTHER;
    pthread_mutex_lock(&m->lock);
    m->requests[route][method][status_index(status)]++;
    histogram_observe(&m->http[route], http_buckets, N_HTTP_BUCKETS, seconds);
    pthread_mutex_unlock(&m->lock);
}

void pt2d_metrics_inspection(struct pt2d_metrics *m, double seconds, uint64_t bytes_read)
{
    pthread_mutex_lock(&m->lock);
    histogram_observe(&m->inspect, inspect_buckets, N_INSPECT_BUCKETS, seconds);
    m->bytes_read += bytes_read;
    pthread_mutex_unlock(&m->lock);
}

void pt2d_metrics_upload(struct pt2d_metrics *m, uint64_t bytes)
{
    pthread_mutex_lock(&m->lock);
    m->upload_bytes += bytes;
    pthread_mutex_unlock(&m->lock);
}

void pt2d_metrics_remote(struct pt2d_metrics *m, uint64_t requests, uint64_t bytes)
{
    pthread_mutex_lock(&m->lock);
    m->remote_requests += requests;
    m->remote_bytes += bytes;
    pthread_mutex_unlock(&m->lock);
}

void pt2d_metrics_auth_refused(struct pt2d_metrics *m, enum pt2d_metrics_refusal reason)
{
    if ((unsigned)reason >= PT2D_REFUSED_COUNT)
        return;
    pthread_mutex_lock(&m->lock);
    m->refused[reason]++;
    pthread_mutex_unlock(&m->lock);
}

static void render_header(struct pt2d_buf *b, const char *name, const char *type, const char *help)
{
    pt2d_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* `labels` is either "" or `key="value",` (trailing comma) to prefix `le`. */
static void render_histogram(struct pt2d_buf *b, const char *name, const char *labels,
                             const struct histogram *h, const double *bounds, size_t n)
{
    int ll = (int)strlen(labels);
    size_t i;

    for (i = 0; i < n; i++)
        pt2d_buf_printf(b, "%s_bucket{%sle=\"%g\"} %llu\n", name, labels, bounds[i],
                        (unsigned long long)h->buckets[i]);
    pt2d_buf_printf(b, "%s_bucket{%sle=\"+Inf\"} %llu\n", name, labels,
                    (unsigned long long)h->count);
    if (ll > 0) /* the same labels without the trailing comma */
        pt2d_buf_printf(b, "%s_sum{%.*s} %.6f\n%s_count{%.*s} %llu\n", name, ll - 1, labels, h->sum,
                        name, ll - 1, labels, (unsigned long long)h->count);
    else
        pt2d_buf_printf(b, "%s_sum %.6f\n%s_count %llu\n", name, h->sum, name,
                        (unsigned long long)h->count);
}

static void render_requests(struct pt2d_buf *b, const struct pt2d_metrics *m)
{
    size_t r, me, s;

    render_header(b, "pt2scope_http_requests_total", "counter",
                  "HTTP requests answered, by route template, method and status.");
    for (r = 0; r < PT2D_ROUTE_COUNT; r++)
        for (me = 0; me < PT2D_METHOD_COUNT; me++)
            for (s = 0; s < N_STATUS; s++) {
                char status[16];
                uint64_t v = m->requests[r][me][s];

                if (v == 0)
                    continue; /* only label sets that occurred */
                if (s < N_STATUS - 1)
                    snprintf(status, sizeof(status), "%u", status_codes[s]);
                else
                    snprintf(status, sizeof(status), "other");
                pt2d_buf_printf(b,
                                "pt2scope_http_requests_total{route=\"%s\",method=\"%s\","
                                "status=\"%s\"} %llu\n",
                                pt2d_router_label((enum pt2d_route)r),
                                pt2d_router_method_name((enum pt2d_method)me), status,
                                (unsigned long long)v);
            }
    render_header(b, "pt2scope_http_request_duration_seconds", "histogram",
                  "Time from the first byte of a request to its response, by route.");
    for (r = 0; r < PT2D_ROUTE_COUNT; r++) {
        char labels[64];

        if (m->http[r].count == 0)
            continue;
        snprintf(labels, sizeof(labels), "route=\"%s\",", pt2d_router_label((enum pt2d_route)r));
        render_histogram(b, "pt2scope_http_request_duration_seconds", labels, &m->http[r],
                         http_buckets, N_HTTP_BUCKETS);
    }
}

static void render_scalars(struct pt2d_buf *b, const struct pt2d_metrics *snap,
                           const struct pt2d_metrics_gauges *g)
{
    const struct {
        const char *name, *type, *help;
        uint64_t value;
    } scalars[] = {
        {"pt2scope_bytes_read_total", "counter", "Bytes read from packages by inspections.",
         snap->bytes_read},
        {"pt2scope_upload_bytes_total", "counter", "Request body bytes received in uploads.",
         snap->upload_bytes},
        {"pt2scope_remote_requests_total", "counter",
         "HTTP requests made to read remote packages (?url=), redirects included.",
         snap->remote_requests},
        {"pt2scope_remote_bytes_total", "counter",
         "Body bytes received reading remote packages (?url=).", snap->remote_bytes},
        {"pt2scope_cache_hits_total", "counter", "Inspection results served from the cache.",
         g->cache_hits},
        {"pt2scope_cache_misses_total", "counter", "Cache lookups that found nothing.",
         g->cache_misses},
        {"pt2scope_cache_entries", "gauge", "Entries in the result cache.", g->cache_entries},
        {"pt2scope_cache_bytes", "gauge",
         "What the cached packages cost against --cache-bytes (estimated heap bytes).",
         g->cache_bytes},
        {"pt2scope_queue_depth", "gauge", "Jobs waiting for a worker.", g->queue_depth},
        {"pt2scope_queue_capacity", "gauge",
         "Jobs that may wait before requests are refused with 503.", g->queue_capacity},
        {"pt2scope_workers_busy", "gauge", "Workers running a job.", g->workers_busy},
        {"pt2scope_workers", "gauge", "Worker threads in the pool.", g->workers_total},
        {"pt2scope_remote_queue_depth", "gauge",
         "Inspections of remote packages (?url=) waiting for a remote worker.",
         g->remote_queue_depth},
        {"pt2scope_remote_queue_capacity", "gauge",
         "Remote inspections that may wait before requests are refused with 503.",
         g->remote_queue_capacity},
        {"pt2scope_remote_workers_busy", "gauge", "Remote workers reading a remote package.",
         g->remote_workers_busy},
        {"pt2scope_remote_workers", "gauge",
         "Worker threads for remote packages, apart from the local pool.", g->remote_workers_total},
        {"pt2scope_inflight_requests", "gauge", "Requests received and not yet completed.",
         g->inflight},
        {"pt2scope_ready", "gauge", "1 while accepting work, 0 when draining.", g->ready ? 1u : 0u},
        {"pt2scope_body_memory_bytes", "gauge",
         "Request body bytes held in memory (JSON bodies, kept form fields).", g->body_bytes},
        {"pt2scope_body_memory_budget_bytes", "gauge",
         "--memory-budget: more body bytes are refused with 503 (0: no limit).", g->body_budget},
    };
    size_t i;

    for (i = 0; i < sizeof(scalars) / sizeof(scalars[0]); i++) {
        render_header(b, scalars[i].name, scalars[i].type, scalars[i].help);
        pt2d_buf_printf(b, "%s %llu\n", scalars[i].name, (unsigned long long)scalars[i].value);
    }
}

/* Both reasons always, 0 included: an alert can watch the series before the first refusal. */
static void render_refused(struct pt2d_buf *b, const struct pt2d_metrics *snap)
{
    static const char *const reasons[PT2D_REFUSED_COUNT] = {"unauthorized", "host-not-allowed"};
    size_t i;

    render_header(b, "pt2scope_auth_refused_total", "counter",
                  "Requests refused before routing: no valid bearer token, or a Host not allowed.");
    for (i = 0; i < PT2D_REFUSED_COUNT; i++)
        pt2d_buf_printf(b, "pt2scope_auth_refused_total{reason=\"%s\"} %llu\n", reasons[i],
                        (unsigned long long)snap->refused[i]);
}

/* ---- process_* -------------------------------------------------------- */

/* Read at most cap - 1 bytes of a file into buf (NUL-terminated); bytes read or -1. */
static ssize_t read_small(const char *path, char *buf, size_t cap)
{
    size_t n = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return -1;
    while (n + 1 < cap) {
        ssize_t r = read(fd, buf + n, cap - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    buf[n] = '\0';
    return (ssize_t)n;
}

/* The `want`-th space-separated field after `p` (0 = the first), as a number. */
static int stat_field(const char *p, unsigned want, uint64_t *out)
{
    unsigned i = 0;

    for (;;) {
        size_t len;

        while (*p == ' ')
            p++;
        len = strcspn(p, " \n");
        if (len == 0)
            return PT2_ERR_INVALID;
        if (i == want)
            return pt2_num_u64n(p, len, 10, out);
        p += len;
        i++;
    }
}

/* btime (boot time, Unix seconds) from <root>/stat, read in chunks: the line can be far in. */
static int boot_time(const char *root, uint64_t *out)
{
    char path[PROC_ROOT_MAX + 16], chunk[4096], line[64];
    size_t total = 0, ll = 0;
    int fd, rc = PT2_ERR_NOT_FOUND, at_start = 1;

    snprintf(path, sizeof(path), "%s/stat", root);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return PT2_ERR_IO;
    /* Keep only the first bytes of each line: enough to see "btime N". */
    while (rc == PT2_ERR_NOT_FOUND && total < PROC_FILE_MAX) {
        ssize_t r = read(fd, chunk, sizeof(chunk));
        ssize_t i;

        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        total += (size_t)r;
        for (i = 0; i < r && rc == PT2_ERR_NOT_FOUND; i++) {
            if (at_start)
                ll = 0;
            at_start = chunk[i] == '\n';
            if (!at_start && ll + 1 < sizeof(line)) {
                line[ll++] = chunk[i];
                continue;
            }
            line[ll] = '\0';
            if (at_start && strncmp(line, "btime ", 6) == 0)
                rc = pt2_num_u64(line + 6, 10, out) == PT2_OK ? PT2_OK : PT2_ERR_INVALID;
        }
    }
    close(fd);
    return rc;
}

void pt2d_metrics_process_read(const char *proc_root, struct pt2d_process_stats *out)
{
    char path[PROC_ROOT_MAX + 32], stat[PROC_STAT_MAX];
    const char *after;
    uint64_t utime, stime, start, rss, btime, n = 0;
    long ticks = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
    struct rlimit rl;
    struct dirent *e;
    DIR *d;

    memset(out, 0, sizeof(*out));
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        out->max_fds = (uint64_t)rl.rlim_cur;
        out->have |= PT2D_PROC_MAXFD;
    }
    /* Fields after the command name, which may itself hold spaces and ')'. Counting from
     * the state (field 3 of proc(5)): utime 14, stime 15, starttime 22, rss 24. */
    snprintf(path, sizeof(path), "%s/self/stat", proc_root);
    if (ticks > 0 && page > 0 && read_small(path, stat, sizeof(stat)) > 0 &&
        (after = strrchr(stat, ')')) != NULL) {
        after++;
        if (stat_field(after, 11, &utime) == PT2_OK && stat_field(after, 12, &stime) == PT2_OK) {
            out->cpu_seconds = (double)(utime + stime) / (double)ticks;
            out->have |= PT2D_PROC_CPU;
        }
        if (stat_field(after, 21, &rss) == PT2_OK && rss <= UINT64_MAX / (uint64_t)page) {
            out->resident_bytes = rss * (uint64_t)page;
            out->have |= PT2D_PROC_RSS;
        }
        if (stat_field(after, 19, &start) == PT2_OK && boot_time(proc_root, &btime) == PT2_OK) {
            out->start_time = (double)btime + (double)start / (double)ticks;
            out->have |= PT2D_PROC_START;
        }
    }
    snprintf(path, sizeof(path), "%s/self/fd", proc_root);
    d = opendir(path);
    if (d != NULL) {
        while (n < PROC_FDS_MAX && (e = readdir(d)) != NULL)
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
                n++;
        closedir(d);
        out->open_fds = n;
        out->have |= PT2D_PROC_FDS;
    }
}

static void render_process(struct pt2d_buf *b, const char *proc_root)
{
    struct pt2d_process_stats ps;

    pt2d_metrics_process_read(proc_root, &ps);
    if (ps.have & PT2D_PROC_CPU) {
        render_header(b, "process_cpu_seconds_total", "counter",
                      "Total user and system CPU time spent in seconds.");
        pt2d_buf_printf(b, "process_cpu_seconds_total %.3f\n", ps.cpu_seconds);
    }
    if (ps.have & PT2D_PROC_FDS) {
        render_header(b, "process_open_fds", "gauge", "Number of open file descriptors.");
        pt2d_buf_printf(b, "process_open_fds %llu\n", (unsigned long long)ps.open_fds);
    }
    if (ps.have & PT2D_PROC_MAXFD) {
        render_header(b, "process_max_fds", "gauge", "Maximum number of open file descriptors.");
        pt2d_buf_printf(b, "process_max_fds %llu\n", (unsigned long long)ps.max_fds);
    }
    if (ps.have & PT2D_PROC_RSS) {
        render_header(b, "process_resident_memory_bytes", "gauge",
                      "Resident memory size in bytes.");
        pt2d_buf_printf(b, "process_resident_memory_bytes %llu\n",
                        (unsigned long long)ps.resident_bytes);
    }
    if (ps.have & PT2D_PROC_START) {
        render_header(b, "process_start_time_seconds", "gauge",
                      "Start time of the process since unix epoch in seconds.");
        pt2d_buf_printf(b, "process_start_time_seconds %.3f\n", ps.start_time);
    }
}

char *pt2d_metrics_render(struct pt2d_metrics *m, const struct pt2d_metrics_gauges *g,
                          size_t *len_out)
{
    struct pt2d_metrics *snap = malloc(sizeof(*snap));
    struct pt2d_buf b;
    char *out = NULL;

    if (len_out != NULL)
        *len_out = 0;
    if (snap == NULL)
        return NULL;
    /* Copy under the lock, format outside it: rendering must not stall workers. */
    pthread_mutex_lock(&m->lock);
    memcpy(snap->requests, m->requests, sizeof(m->requests));
    memcpy(snap->http, m->http, sizeof(m->http));
    snap->inspect = m->inspect;
    snap->bytes_read = m->bytes_read;
    snap->upload_bytes = m->upload_bytes;
    snap->remote_requests = m->remote_requests;
    snap->remote_bytes = m->remote_bytes;
    memcpy(snap->refused, m->refused, sizeof(m->refused));
    memcpy(snap->proc_root, m->proc_root, sizeof(m->proc_root));
    pthread_mutex_unlock(&m->lock);

    pt2d_buf_init(&b, RENDER_CAP);
    render_header(&b, "pt2scope_build_info", "gauge", "Build information; always 1.");
    pt2d_buf_printf(&b, "pt2scope_build_info{version=\"%s\",schema_version=\"%d\"} 1\n",
                    PT2SCOPE_VERSION, PT2SCOPE_SCHEMA_VERSION);
    render_requests(&b, snap);
    render_header(&b, "pt2scope_inspect_duration_seconds", "histogram",
                  "Time to open and inspect one package (cache misses only).");
    render_histogram(&b, "pt2scope_inspect_duration_seconds", "", &snap->inspect, inspect_buckets,
                     N_INSPECT_BUCKETS);
    render_scalars(&b, snap, g);
    render_refused(&b, snap);
    render_process(&b, snap->proc_root);
    if (b.failed == PT2_OK)
        out = pt2d_buf_detach(&b, len_out);
    pt2d_buf_free(&b);
    free(snap);
    return out;
}
