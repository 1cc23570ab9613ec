/*
 * pt2d_metrics.c - Prometheus metrics (see pt2d_metrics.h).
 *
 * Request durations use the OpenTelemetry advised HTTP buckets; package
 * inspection gets its own histogram with larger buckets because its
 * latency follows archive size, not request handling.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        {"pt2scope_upload_bytes_total", "counter", "Request body bytes spooled from uploads.",
         snap->upload_bytes},
        {"pt2scope_cache_hits_total", "counter", "Inspection results served from the cache.",
         g->cache_hits},
        {"pt2scope_cache_misses_total", "counter", "Cache lookups that found nothing.",
         g->cache_misses},
        {"pt2scope_cache_entries", "gauge", "Entries in the result cache.", g->cache_entries},
        {"pt2scope_queue_depth", "gauge", "Jobs waiting for a worker.", g->queue_depth},
        {"pt2scope_queue_capacity", "gauge",
         "Jobs that may wait before requests are refused with 503.", g->queue_capacity},
        {"pt2scope_workers_busy", "gauge", "Workers running a job.", g->workers_busy},
        {"pt2scope_workers", "gauge", "Worker threads in the pool.", g->workers_total},
        {"pt2scope_inflight_requests", "gauge", "Requests received and not yet completed.",
         g->inflight},
        {"pt2scope_ready", "gauge", "1 while accepting work, 0 when draining.", g->ready ? 1u : 0u},
    };
    size_t i;

    for (i = 0; i < sizeof(scalars) / sizeof(scalars[0]); i++) {
        render_header(b, scalars[i].name, scalars[i].type, scalars[i].help);
        pt2d_buf_printf(b, "%s %llu\n", scalars[i].name, (unsigned long long)scalars[i].value);
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
    if (b.failed == PT2_OK)
        out = pt2d_buf_detach(&b, len_out);
    pt2d_buf_free(&b);
    free(snap);
    return out;
}
