/*
 * pt2d_problem.c - status code -> problem type table and the document.
 *
 * 422 is used for packages the server understood the request for but could
 * not inspect (the upload or file is not a valid .pt2): the request itself
 * was well formed, the artifact was not.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "pt2scope.h"
#include "pt2d_problem.h"

/* HTTP status and title per code; the slug is filled from the library. */
static const struct {
    int code;
    unsigned status;
    const char *title;
} http_of[] = {
    {PT2_ERR_NOT_ZIP, 422, "The file is not a zip archive"},
    {PT2_ERR_TRUNCATED, 422, "The archive is truncated or corrupt"},
    {PT2_ERR_ENTRY, 422, "The archive is truncated or corrupt"},
    {PT2_ERR_FORMAT, 422, "The archive is truncated or corrupt"},
    {PT2_ERR_NOT_PT2, 422, "The archive is not a PyTorch .pt2 package"},
    {PT2_ERR_METADATA, 422, "A metadata document in the package is invalid"},
    {PT2_ERR_UNSUPPORTED, 422, "The package uses a format pt2scope does not support"},
    {PT2_ERR_TOO_LARGE, 413, "The request or package exceeds a size limit"},
    {PT2_ERR_INVALID, 400, "The request is malformed"},
    {PT2_ERR_NOT_FOUND, 404, "Not found"},
    {PT2_ERR_NO_ROUTE, 404, "Not found"},
    {PT2_ERR_DOCS_NOT_BUILT, 404, "This pt2scoped was built without the API reference"},
    {PT2_ERR_OUTSIDE_ROOT, 403, "The path is outside every model root"},
    {PT2_ERR_OVERLOADED, 503, "The server is overloaded; retry later"},
    {PT2_ERR_METHOD, 405, "Method not allowed on this resource"},
    {PT2_ERR_MEDIA_TYPE, 415, "Unsupported request Content-Type"},
    {PT2_ERR_IO, 500, "The package could not be read"},
    {PT2_ERR_NOMEM, 500, "Internal server error"},
    {PT2_ERR_INTERNAL, 500, "Internal server error"},
};

#define NTYPES (sizeof(http_of) / sizeof(http_of[0]))
static struct pt2d_problem_type problem_types[NTYPES];
static pthread_once_t types_once = PTHREAD_ONCE_INIT;

static void types_init(void)
{
    size_t i;

    for (i = 0; i < NTYPES; i++) {
        problem_types[i].code = http_of[i].code;
        problem_types[i].status = http_of[i].status;
        problem_types[i].slug = pt2_status_slug(http_of[i].code);
        problem_types[i].title = http_of[i].title;
    }
}

const struct pt2d_problem_type *pt2d_problem_lookup(int code)
{
    size_t i, internal = 0;

    pthread_once(&types_once, types_init);
    for (i = 0; i < NTYPES; i++) {
        if (problem_types[i].code == code)
            return &problem_types[i];
        if (problem_types[i].code == PT2_ERR_INTERNAL)
            internal = i;
    }
    return &problem_types[internal];
}

char *pt2d_problem_json(int code, const char *detail, const char *request_id, size_t *len_out)
{
    const struct pt2d_problem_type *t = pt2d_problem_lookup(code);
    char type[128], instance[192];
    cJSON *doc = cJSON_CreateObject();
    char *text = NULL, *out = NULL;
    size_t n = 0;

    if (doc == NULL)
        goto cleanup;
    snprintf(type, sizeof(type), "%s%s", PT2D_PROBLEM_BASE, t->slug);
    if (cJSON_AddStringToObject(doc, "type", type) == NULL ||
        cJSON_AddStringToObject(doc, "title", t->title) == NULL ||
        cJSON_AddNumberToObject(doc, "status", t->status) == NULL)
        goto cleanup;
    if (detail != NULL && detail[0] != '\0' &&
        cJSON_AddStringToObject(doc, "detail", detail) == NULL)
        goto cleanup;
    if (request_id != NULL && request_id[0] != '\0') {
        snprintf(instance, sizeof(instance), "urn:request:%s", request_id);
        if (cJSON_AddStringToObject(doc, "instance", instance) == NULL)
            goto cleanup;
    }
    text = cJSON_PrintUnformatted(doc);
    if (text == NULL)
        goto cleanup;
    /* Copy with a trailing newline, like every JSON body the daemon sends. */
    n = strlen(text);
    /* The detail may echo request bytes (a path): keep the document UTF-8. */
    pt2_utf8_scrub(text, n);
    out = malloc(n + 2);
    if (out != NULL) {
        memcpy(out, text, n);
        out[n] = '\n';
        out[n + 1] = '\0';
    }
cleanup:
    cJSON_free(text);
    cJSON_Delete(doc);
    if (len_out != NULL)
        *len_out = out != NULL ? n + 1 : 0;
    return out;
}
