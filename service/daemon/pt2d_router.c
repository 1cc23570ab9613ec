/*
 * pt2d_router.c - the endpoint table (see pt2d_router.h).
 *
 * HEAD is allowed wherever GET is, as RFC 9110 requires of GET resources.
 */
#include <string.h>

#include "pt2d_router.h"

#define GETS (PT2D_M(PT2D_METHOD_GET) | PT2D_M(PT2D_METHOD_HEAD))
#define GETS_POST (GETS | PT2D_M(PT2D_METHOD_POST))

static const struct pt2d_route_info routes[] = {
    {PT2D_ROUTE_INSPECT, "/v1/inspect", GETS_POST, "GET, HEAD, POST, OPTIONS", PT2D_KIND_JOB},
    {PT2D_ROUTE_ARCH, "/v1/arch", GETS_POST, "GET, HEAD, POST, OPTIONS", PT2D_KIND_JOB},
    {PT2D_ROUTE_METADATA, "/v1/metadata", GETS_POST, "GET, HEAD, POST, OPTIONS", PT2D_KIND_JOB},
    {PT2D_ROUTE_VALIDATE, "/v1/validate", GETS_POST, "GET, HEAD, POST, OPTIONS", PT2D_KIND_JOB},
    {PT2D_ROUTE_VERSION, "/v1/version", GETS, "GET, HEAD, OPTIONS", PT2D_KIND_PROBE},
    {PT2D_ROUTE_LIVEZ, "/livez", GETS, "GET, HEAD, OPTIONS", PT2D_KIND_PROBE},
    {PT2D_ROUTE_READYZ, "/readyz", GETS, "GET, HEAD, OPTIONS", PT2D_KIND_PROBE},
    {PT2D_ROUTE_METRICS, "/metrics", GETS, "GET, HEAD, OPTIONS", PT2D_KIND_PROBE},
    {PT2D_ROUTE_NODE, "/v1/node", GETS, "GET, HEAD, OPTIONS", PT2D_KIND_TASK},
    {PT2D_ROUTE_COMPATIBILITY, "/v1/compatibility", PT2D_M(PT2D_METHOD_POST), "POST, OPTIONS",
     PT2D_KIND_JOB},
    {PT2D_ROUTE_CLUSTER, "/v1/cluster/compatibility", GETS, "GET, HEAD, OPTIONS", PT2D_KIND_TASK},
    {PT2D_ROUTE_OPENAPI_YAML, "/openapi.yaml", GETS, "GET, HEAD, OPTIONS", PT2D_KIND_DOC},
    {PT2D_ROUTE_OPENAPI_JSON, "/openapi.json", GETS, "GET, HEAD, OPTIONS", PT2D_KIND_DOC},
    {PT2D_ROUTE_DOCS, "/docs", GETS, "GET, HEAD, OPTIONS", PT2D_KIND_DOC},
    {PT2D_ROUTE_DOCS_JS, "/docs/swagger-ui-bundle.js", GETS, "GET, HEAD, OPTIONS", PT2D_KIND_DOC},
    {PT2D_ROUTE_DOCS_CSS, "/docs/swagger-ui.css", GETS, "GET, HEAD, OPTIONS", PT2D_KIND_DOC},
    {PT2D_ROUTE_DOCS_SLASH, "/docs/", GETS, "GET, HEAD, OPTIONS", PT2D_KIND_DOC},
    {PT2D_ROUTE_PACKAGES, "/v1/packages", GETS, "GET, HEAD, OPTIONS", PT2D_KIND_TASK},
    {PT2D_ROUTE_PAGE, "/", GETS, "GET, HEAD, OPTIONS", PT2D_KIND_PAGE},
    {PT2D_ROUTE_PAGE_JS, "/page/app.js", GETS, "GET, HEAD, OPTIONS", PT2D_KIND_PAGE},
    {PT2D_ROUTE_PAGE_CSS, "/page/style.css", GETS, "GET, HEAD, OPTIONS", PT2D_KIND_PAGE},
};

const struct pt2d_route_info *pt2d_router_match(const char *path)
{
    size_t i;

    for (i = 0; i < sizeof(routes) / sizeof(routes[0]); i++)
        if (strcmp(routes[i].path, path) == 0)
            return &routes[i];
    return NULL;
}

enum pt2d_method pt2d_router_method(const char *method)
{
    static const char *const names[] = {"GET", "HEAD", "POST", "OPTIONS"};
    size_t i;

    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(names[i], method) == 0)
            return (enum pt2d_method)i;
    return PT2D_METHOD_OTHER;
}

const char *pt2d_router_method_name(enum pt2d_method m)
{
    static const char *const names[PT2D_METHOD_COUNT] = {"GET", "HEAD", "POST", "OPTIONS", "other"};

    return (unsigned)m < PT2D_METHOD_COUNT ? names[m] : "other";
}

const char *pt2d_router_label(enum pt2d_route r)
{
    size_t i;

    for (i = 0; i < sizeof(routes) / sizeof(routes[0]); i++)
        if (routes[i].id == r)
            return routes[i].path;
    return "other";
}
