/*
 * pt2d_router.h - the endpoint table: URL path -> route, methods, kind.
 *
 * Design: routes are a closed enum so that metrics can label by route
 * template with bounded cardinality and handlers can switch on them. The
 * table is static and read-only.
 */
#ifndef PT2D_ROUTER_H
#define PT2D_ROUTER_H

enum pt2d_route {
    PT2D_ROUTE_INSPECT = 0,
    PT2D_ROUTE_ARCH,
    PT2D_ROUTE_METADATA,
    PT2D_ROUTE_VALIDATE,
    PT2D_ROUTE_VERSION,
    PT2D_ROUTE_LIVEZ,
    PT2D_ROUTE_READYZ,
    PT2D_ROUTE_METRICS,
    PT2D_ROUTE_NODE,          /* GET /v1/node */
    PT2D_ROUTE_COMPATIBILITY, /* POST /v1/compatibility */
    PT2D_ROUTE_CLUSTER,       /* GET /v1/cluster/compatibility */
    PT2D_ROUTE_OPENAPI_YAML,
    PT2D_ROUTE_OPENAPI_JSON,
    PT2D_ROUTE_DOCS,
    PT2D_ROUTE_DOCS_JS,
    PT2D_ROUTE_DOCS_CSS,
    PT2D_ROUTE_DOCS_SLASH, /* GET /docs/: a redirect to /docs */
    PT2D_ROUTE_PACKAGES,   /* GET /v1/packages */
    PT2D_ROUTE_PAGE,       /* GET /: the operator page (pt2d_page.h) */
    PT2D_ROUTE_PAGE_JS,
    PT2D_ROUTE_PAGE_CSS,
    PT2D_ROUTE_OTHER, /* unmatched paths, for metrics */
    PT2D_ROUTE_COUNT
};

enum pt2d_method {
    PT2D_METHOD_GET = 0,
    PT2D_METHOD_HEAD,
    PT2D_METHOD_POST,
    PT2D_METHOD_OPTIONS,
    PT2D_METHOD_OTHER,
    PT2D_METHOD_COUNT
};

#define PT2D_M(m) (1u << (m))

enum pt2d_route_kind {
    PT2D_KIND_PROBE, /* answered on the HTTP thread, never queued */
    PT2D_KIND_JOB,   /* package work, done by the worker pool */
    PT2D_KIND_TASK,  /* other slow work (driver probe, peers), done by the worker pool */
    PT2D_KIND_DOC,   /* an embedded document (pt2d_docs.h), on the HTTP thread */
    PT2D_KIND_PAGE   /* the operator page's files (pt2d_page.h), on the HTTP thread */
};

struct pt2d_route_info {
    enum pt2d_route id;
    const char *path;  /* exact path, also the metrics label */
    unsigned methods;  /* PT2D_M() bits; OPTIONS is always allowed */
    const char *allow; /* the Allow header for 405 and OPTIONS */
    enum pt2d_route_kind kind;
};

/* The route for a URL path (no query string), or NULL. */
const struct pt2d_route_info *pt2d_router_match(const char *path);

enum pt2d_method pt2d_router_method(const char *method);
const char *pt2d_router_method_name(enum pt2d_method m);
/* Metrics label of a route ("other" for PT2D_ROUTE_OTHER). */
const char *pt2d_router_label(enum pt2d_route r);

#endif
