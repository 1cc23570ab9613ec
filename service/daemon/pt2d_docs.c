/*
 * pt2d_docs.c - embedded API documents (see pt2d_docs.h).
 *
 * The blobs and their lengths are defined in pt2d_docs_assets.S; a length is
 * a variable, not a constant expression, so the table keeps its address and
 * documents are handed out by value.
 */
#include <stdlib.h>
#include <string.h>

#include "pt2d_docs.h"
#include "pt2d_problem.h"
#include "pt2scope.h"

extern const char pt2d_docs_openapi_yaml[], pt2d_docs_openapi_json[];
extern const char pt2d_docs_swagger_js[], pt2d_docs_swagger_css[];
extern const size_t pt2d_docs_openapi_yaml_len, pt2d_docs_openapi_json_len;
extern const size_t pt2d_docs_swagger_js_len, pt2d_docs_swagger_css_len;
/* 0 when the daemon was built without npm: only the YAML is linked in. */
extern const unsigned char pt2d_docs_complete;

/* Relative URLs keep the page working behind a reverse proxy's path prefix. */
static const char docs_page[] =
    "<!DOCTYPE html>\n"
    "<html lang=\"en\">\n"
    "<head>\n"
    "<meta charset=\"utf-8\">\n"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    "<title>pt2scope " PT2SCOPE_VERSION " API reference</title>\n"
    /* No icon to fetch: a browser would ask for /favicon.ico and log its 404. */
    "<link rel=\"icon\" href=\"data:,\">\n"
    "<link rel=\"stylesheet\" href=\"docs/swagger-ui.css\">\n"
    "</head>\n"
    "<body>\n"
    "<div id=\"swagger-ui\"></div>\n"
    "<script src=\"docs/swagger-ui-bundle.js\"></script>\n"
    "<script>\n"
    "window.ui = SwaggerUIBundle(\n"
    "    {url: \"openapi.json\", dom_id: \"#swagger-ui\", deepLinking: true});\n"
    "</script>\n"
    "</body>\n"
    "</html>\n";
static const size_t docs_page_len = sizeof(docs_page) - 1;

static const struct docs_entry {
    const char *path;
    const char *content_type;
    const char *data;
    const size_t *len;
    int from_npm; /* made by the npm tools at build time */
} docs[] = {
    {"/docs", "text/html; charset=utf-8", docs_page, &docs_page_len, 1},
    {"/docs/swagger-ui-bundle.js", "text/javascript; charset=utf-8", pt2d_docs_swagger_js,
     &pt2d_docs_swagger_js_len, 1},
    {"/docs/swagger-ui.css", "text/css; charset=utf-8", pt2d_docs_swagger_css,
     &pt2d_docs_swagger_css_len, 1},
    {"/openapi.json", "application/json", pt2d_docs_openapi_json, &pt2d_docs_openapi_json_len, 1},
    {"/openapi.yaml", "application/yaml", pt2d_docs_openapi_yaml, &pt2d_docs_openapi_yaml_len, 0},
};

int pt2d_docs_get(size_t i, struct pt2d_doc *out)
{
    if (i >= sizeof(docs) / sizeof(docs[0]))
        return 0;
    out->path = docs[i].path;
    out->content_type = docs[i].content_type;
    out->data = docs[i].data;
    out->len = *docs[i].len;
    out->built = !docs[i].from_npm || pt2d_docs_complete;
    return 1;
}

int pt2d_docs_find(const char *path, struct pt2d_doc *out)
{
    size_t i;

    for (i = 0; i < sizeof(docs) / sizeof(docs[0]); i++)
        if (strcmp(docs[i].path, path) == 0)
            return pt2d_docs_get(i, out);
    return 0;
}

int pt2d_docs_reply(const struct pt2d_doc *doc, struct pt2d_reply *r, const char *request_id)
{
    char *copy;

    if (!doc->built) {
        pt2d_reply_problem(r, PT2_ERR_DOCS_NOT_BUILT,
                           "this pt2scoped was built without npm, so it has no /docs or "
                           "/openapi.json (/openapi.yaml is served): install Node.js and npm "
                           "(make deps) and rebuild with make",
                           request_id);
        return PT2_ERR_DOCS_NOT_BUILT;
    }
    copy = malloc(doc->len + 1);
    if (copy == NULL) {
        pt2d_reply_problem(r, PT2_ERR_NOMEM, "out of memory", request_id);
        return PT2_ERR_NOMEM;
    }
    memcpy(copy, doc->data, doc->len + 1);
    pt2d_reply_take(r, 200, doc->content_type, copy, doc->len);
    return PT2_OK;
}

int pt2d_docs_redirect(const char *path, struct pt2d_reply *r)
{
    if (strcmp(path, "/docs/") != 0)
        return 0;
    if (pt2d_reply_text(r, 301, "text/plain; charset=utf-8", "the API reference is at /docs\n") !=
        PT2_OK)
        return 1; /* the reply is a 500 problem */
    r->location = "../docs";
    return 1;
}
