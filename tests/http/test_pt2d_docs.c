/*
 * test_pt2d_docs.c - the embedded API documents: they are the files the build
 * embedded, the table is complete, and the spec lists every route the
 * router knows (and no route the router does not).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "pt2d_docs.h"
#include "pt2d_router.h"
#include "pt2scope.h"
#include "testutil.h"

/* Assert that `doc` holds exactly the bytes of the file at `path`. */
static void assert_same_as_file(const struct pt2d_doc *doc, const char *path)
{
    size_t len = 0;
    uint8_t *want = tu_read_file(path, &len);

    ck_assert_msg(want != NULL, "%s is missing", path);
    ck_assert_uint_eq(doc->len, len);
    ck_assert_int_eq(memcmp(doc->data, want, len), 0);
    ck_assert_int_eq(doc->data[doc->len], '\0');
    free(want);
}

START_TEST(test_find)
{
    struct pt2d_doc d;

    ck_assert(pt2d_docs_find("/openapi.yaml", &d));
    ck_assert_str_eq(d.path, "/openapi.yaml");
    ck_assert_str_eq(d.content_type, "application/yaml");
    assert_same_as_file(&d, "openapi/openapi.yaml");
    ck_assert(pt2d_docs_find("/docs/swagger-ui-bundle.js", &d));
    ck_assert_str_eq(d.content_type, "text/javascript; charset=utf-8");
    assert_same_as_file(&d, "openapi/node_modules/swagger-ui-dist/swagger-ui-bundle.js");
    ck_assert(pt2d_docs_find("/docs/swagger-ui.css", &d));
    ck_assert_str_eq(d.content_type, "text/css; charset=utf-8");
    assert_same_as_file(&d, "openapi/node_modules/swagger-ui-dist/swagger-ui.css");
    ck_assert(pt2d_docs_find("/docs", &d));
    ck_assert_str_eq(d.content_type, "text/html; charset=utf-8");
    ck_assert_int_eq(strncmp(d.data, "<!DOCTYPE html>\n", 16), 0);
    ck_assert_ptr_nonnull(strstr(d.data, "<script src=\"docs/swagger-ui-bundle.js\"></script>"));
    ck_assert_ptr_nonnull(strstr(d.data, "<link rel=\"stylesheet\" href=\"docs/swagger-ui.css\">"));
    ck_assert_ptr_nonnull(strstr(d.data, "url: \"openapi.json\""));
    ck_assert_uint_eq(d.len, strlen(d.data));

    ck_assert(!pt2d_docs_find("/docs/", &d));
    ck_assert(!pt2d_docs_find("/docs/index.html", &d));
    ck_assert(!pt2d_docs_find("/openapi.yml", &d));
    ck_assert(!pt2d_docs_find("", &d));
}
END_TEST

START_TEST(test_table)
{
    struct pt2d_doc d;
    size_t i;

    for (i = 0; pt2d_docs_get(i, &d); i++) {
        struct pt2d_doc again;

        ck_assert(pt2d_docs_find(d.path, &again));
        ck_assert_ptr_eq(again.data, d.data);
        ck_assert_uint_gt(d.len, 0);
        ck_assert_int_eq(d.built, 1); /* built with npm: every document is here */
        /* Every document is routed to the documents kind. */
        ck_assert_ptr_nonnull(pt2d_router_match(d.path));
        ck_assert_int_eq(pt2d_router_match(d.path)->kind, PT2D_KIND_DOC);
    }
    ck_assert_uint_eq(i, 5);
}
END_TEST

/* The embedded openapi.json, parsed. */
static cJSON *spec_json(void)
{
    struct pt2d_doc d;
    cJSON *spec;

    ck_assert(pt2d_docs_find("/openapi.json", &d));
    spec = cJSON_ParseWithLength(d.data, d.len);
    ck_assert_ptr_nonnull(spec);
    return spec;
}

START_TEST(test_json_is_the_yaml_rendered)
{
    cJSON *spec = spec_json();
    const cJSON *info = cJSON_GetObjectItemCaseSensitive(spec, "info");

    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(spec, "openapi")->valuestring, "3.1.1");
    /* The contract's version is the server's. */
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(info, "version")->valuestring,
                     PT2SCOPE_VERSION);
    cJSON_Delete(spec);
}
END_TEST

/* Whether the spec's paths contain `path`, literally or via the enum of <dir>/{asset}
 * (/docs/{asset}, /page/{asset}), or as a declared path with a slash added, which the
 * shared trailing-slash rule (x-pt2scope-implicit) sends on to it (/docs/). */
static int spec_has_path(const cJSON *spec, const char *path)
{
    const cJSON *paths = cJSON_GetObjectItemCaseSensitive(spec, "paths"), *assets, *a;
    const cJSON *implicit = cJSON_GetObjectItemCaseSensitive(spec, "x-pt2scope-implicit");
    const char *slash = strrchr(path, '/');
    size_t len = strlen(path);
    char tpl[128];

    if (cJSON_GetObjectItemCaseSensitive(paths, path) != NULL)
        return 1;
    if (len > 1 && path[len - 1] == '/' && len < sizeof(tpl) &&
        cJSON_GetObjectItemCaseSensitive(implicit, "trailing-slash") != NULL) {
        snprintf(tpl, sizeof(tpl), "%.*s", (int)(len - 1), path);
        return cJSON_GetObjectItemCaseSensitive(paths, tpl) != NULL;
    }
    if (slash == NULL || slash == path)
        return 0;
    snprintf(tpl, sizeof(tpl), "%.*s/{asset}", (int)(slash - path), path);
    assets = cJSON_GetObjectItemCaseSensitive(paths, tpl);
    assets = cJSON_GetObjectItemCaseSensitive(assets, "get");
    assets = cJSON_GetObjectItemCaseSensitive(assets, "parameters");
    assets = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(assets, 0), "schema");
    cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(assets, "enum"))
    {
        if (strcmp(a->valuestring, slash + 1) == 0)
            return 1;
    }
    return 0;
}

START_TEST(test_spec_and_router_agree)
{
    cJSON *spec = spec_json();
    const cJSON *paths = cJSON_GetObjectItemCaseSensitive(spec, "paths"), *p;
    int r;

    for (r = 0; r < PT2D_ROUTE_OTHER; r++) {
        const char *path = pt2d_router_label((enum pt2d_route)r);
        ck_assert_msg(spec_has_path(spec, path), "route %s is not in openapi.yaml", path);
    }
    cJSON_ArrayForEach(p, paths)
    {
        if (strchr(p->string, '{') == NULL)
            ck_assert_msg(pt2d_router_match(p->string) != NULL,
                          "openapi.yaml lists %s, which the router does not serve", p->string);
    }
    cJSON_Delete(spec);
}
END_TEST

START_TEST(test_reply_is_a_copy)
{
    struct pt2d_reply r;
    struct pt2d_doc d;

    ck_assert(pt2d_docs_find("/docs/swagger-ui.css", &d));
    pt2d_reply_init(&r);
    ck_assert_int_eq(pt2d_docs_reply(&d, &r, "req-1"), PT2_OK);
    ck_assert_uint_eq(r.status, 200);
    ck_assert_str_eq(r.content_type, "text/css; charset=utf-8");
    ck_assert_uint_eq(r.len, d.len);
    ck_assert_ptr_ne(r.body, d.data);
    ck_assert_int_eq(memcmp(r.body, d.data, d.len + 1), 0);
    pt2d_reply_free(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pt2d_docs");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_find);
    tcase_add_test(tc, test_table);
    tcase_add_test(tc, test_json_is_the_yaml_rendered);
    tcase_add_test(tc, test_spec_and_router_agree);
    tcase_add_test(tc, test_reply_is_a_copy);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
