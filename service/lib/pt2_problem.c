/*
 * pt2_problem.c - problem documents (RFC 9457) for every status: one table
 * of slug, title and status number, shared by the daemon's answers and the
 * CLI's --json errors (see pt2scope.h, "Problem documents").
 *
 * A problem document is a data format; the status number it carries is the
 * one the HTTP API answers with, but nothing here speaks HTTP. Client
 * mistakes are 4xx; only our own failures are 5xx (and 503 "retry later").
 * 422 is for packages the request named well but that cannot be inspected.
 */
#include <stdio.h>
#include <string.h>

#include "pt2_error.h"

static const struct {
    int code;
    unsigned status;
    const char *title;
} table[] = {
    {PT2_ERR_NOT_ZIP, 422, "The file is not a zip archive"},
    {PT2_ERR_TRUNCATED, 422, "The archive is truncated or corrupt"},
    {PT2_ERR_ENTRY, 422, "The archive is truncated or corrupt"},
    {PT2_ERR_FORMAT, 422, "The archive is truncated or corrupt"},
    {PT2_ERR_NOT_PT2, 422, "The archive is not a PyTorch .pt2 package"},
    {PT2_ERR_TORCH_SAVE, 422, "The file is a torch.save checkpoint, not a .pt2 package"},
    {PT2_ERR_METADATA, 422, "A metadata document in the package is invalid"},
    {PT2_ERR_UNSUPPORTED, 422, "The package uses a format pt2scope does not support"},
    {PT2_ERR_TOO_LARGE, 413, "The request or package exceeds a size limit"},
    {PT2_ERR_INVALID, 400, "The request is malformed"},
    {PT2_ERR_NOT_FOUND, 404, "Not found"},
    {PT2_ERR_NO_ROUTE, 404, "Not found"},
    {PT2_ERR_DOCS_NOT_BUILT, 404, "This pt2scoped was built without the API reference"},
    {PT2_ERR_OUTSIDE_ROOT, 403, "The path is outside every model root"},
    {PT2_ERR_FORBIDDEN, 403, "The package cannot be read"},
    {PT2_ERR_UNAUTHORIZED, 401, "A valid bearer token is required"},
    {PT2_ERR_HOST_NOT_ALLOWED, 403, "This server does not answer for that Host"},
    {PT2_ERR_REMOTE_REFUSED, 403, "The URL is not allowed here"},
    {PT2_ERR_REMOTE_UNREACHABLE, 502, "The remote server could not be read"},
    {PT2_ERR_REMOTE_NO_RANGE, 502, "The remote server does not support Range requests"},
    {PT2_ERR_REMOTE_CHANGED, 409, "The remote object changed while it was read"},
    {PT2_ERR_REMOTE_TIMEOUT, 504, "The remote server did not answer in time"},
    {PT2_ERR_OVERLOADED, 503, "The server is overloaded; retry later"},
    {PT2_ERR_METHOD, 405, "Method not allowed on this resource"},
    {PT2_ERR_MEDIA_TYPE, 415, "Unsupported request Content-Type"},
    {PT2_ERR_IO, 500, "The package could not be read"},
    {PT2_ERR_NOMEM, 500, "Internal server error"},
    {PT2_ERR_INTERNAL, 500, "Internal server error"},
};

/* The row of `code`; unknown codes are internal errors. */
static size_t row(int code)
{
    size_t i, internal = 0;

    for (i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        if (table[i].code == code)
            return i;
        if (table[i].code == PT2_ERR_INTERNAL)
            internal = i;
    }
    return internal;
}

unsigned pt2_problem_status(int code)
{
    return table[row(code)].status;
}

const char *pt2_problem_title(int code)
{
    return table[row(code)].title;
}

cJSON *pt2_problem_json(int code, const char *detail, const char *instance)
{
    cJSON *doc = cJSON_CreateObject();
    char type[128];

    if (doc == NULL)
        return NULL;
    snprintf(type, sizeof(type), "%s%s", PT2_PROBLEM_BASE, pt2_status_slug(code));
    if (cJSON_AddStringToObject(doc, "type", type) == NULL ||
        cJSON_AddStringToObject(doc, "title", pt2_problem_title(code)) == NULL ||
        cJSON_AddNumberToObject(doc, "status", pt2_problem_status(code)) == NULL ||
        (detail != NULL && detail[0] != '\0' &&
         cJSON_AddStringToObject(doc, "detail", detail) == NULL) ||
        (instance != NULL && instance[0] != '\0' &&
         cJSON_AddStringToObject(doc, "instance", instance) == NULL)) {
        cJSON_Delete(doc);
        return NULL;
    }
    return doc;
}
