/*
 * pt2d_probe.c - probes, metrics and version (see pt2d_probe.h).
 *
 * Probe bodies are plain text ("ok", "draining"): Kubernetes reads only
 * the status code, humans read the word.
 */
#include <microhttpd.h>
#include <zip.h>

#include "pt2d_probe.h"
#include "pt2d_spool.h"
#include "pt2scope.h"

cJSON *pt2d_probe_version_json(void)
{
    cJSON *doc = cJSON_CreateObject();

    if (doc == NULL || cJSON_AddStringToObject(doc, "version", PT2SCOPE_VERSION) == NULL ||
        cJSON_AddNumberToObject(doc, "schema_version", PT2SCOPE_SCHEMA_VERSION) == NULL ||
        cJSON_AddStringToObject(doc, "api", "v1") == NULL ||
        cJSON_AddStringToObject(doc, "libmicrohttpd", MHD_get_version()) == NULL ||
        cJSON_AddStringToObject(doc, "libzip", zip_libzip_version()) == NULL ||
        cJSON_AddStringToObject(doc, "cjson", cJSON_Version()) == NULL) {
        cJSON_Delete(doc);
        return NULL;
    }
    return doc;
}

void pt2d_probe_run(enum pt2d_route route, const struct pt2d_probe_state *st, struct pt2d_reply *r,
                    const char *request_id)
{
    struct pt2_error err = {0};
    cJSON *doc;
    size_t len = 0;
    char *text;

    switch (route) {
    case PT2D_ROUTE_LIVEZ:
        pt2d_reply_text(r, 200, PT2D_PROBE_CTYPE, "ok\n");
        break;
    case PT2D_ROUTE_READYZ:
        if (!st->gauges.ready)
            pt2d_reply_text(r, 503, PT2D_PROBE_CTYPE, "draining\n");
        else if (st->spool_dir != NULL && pt2d_spool_check(st->spool_dir, &err) != PT2_OK)
            /* Every upload would fail here: send them elsewhere (the reason is the log's). */
            pt2d_reply_text(r, 503, PT2D_PROBE_CTYPE, "spool unavailable\n");
        else
            pt2d_reply_text(r, 200, PT2D_PROBE_CTYPE, "ok\n");
        break;
    case PT2D_ROUTE_METRICS:
        text = pt2d_metrics_render(st->metrics, &st->gauges, &len);
        if (text == NULL)
            pt2d_reply_problem(r, PT2_ERR_NOMEM, "out of memory rendering metrics", request_id);
        else
            pt2d_reply_take(r, 200, PT2D_METRICS_CTYPE, text, len);
        break;
    case PT2D_ROUTE_VERSION:
        doc = pt2d_probe_version_json();
        if (doc == NULL)
            pt2d_reply_problem(r, PT2_ERR_NOMEM, "out of memory", request_id);
        else
            pt2d_reply_json(r, 200, doc);
        cJSON_Delete(doc);
        break;
    default:
        pt2d_reply_problem(r, PT2_ERR_INTERNAL, "not a probe route", request_id);
        break;
    }
}
