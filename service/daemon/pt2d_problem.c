/*
 * pt2d_problem.c - problem answers (see pt2d_problem.h): the library's
 * problem table as HTTP answers, and the document with the request id.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "pt2scope.h"
#include "pt2d_problem.h"

/* One row per library status, filled once from the library's problem table. */
#define NTYPES ((size_t)(PT2_OK - PT2_ERR_LAST))
static struct pt2d_problem_type problem_types[NTYPES];
static pthread_once_t types_once = PTHREAD_ONCE_INIT;

static void types_init(void)
{
    size_t i;

    for (i = 0; i < NTYPES; i++) {
        int code = PT2_ERR_LAST + (int)i;
        problem_types[i].code = code;
        problem_types[i].status = pt2_problem_status(code);
        problem_types[i].slug = pt2_status_slug(code);
        problem_types[i].title = pt2_problem_title(code);
    }
}

const struct pt2d_problem_type *pt2d_problem_lookup(int code)
{
    pthread_once(&types_once, types_init);
    if (code < PT2_ERR_LAST || code >= PT2_OK)
        code = PT2_ERR_INTERNAL;
    return &problem_types[code - PT2_ERR_LAST];
}

char *pt2d_problem_json(int code, const char *detail, const char *request_id, size_t *len_out)
{
    char instance[192] = "";
    cJSON *doc;
    char *text = NULL, *out = NULL;
    size_t n = 0;

    if (request_id != NULL && request_id[0] != '\0')
        snprintf(instance, sizeof(instance), "urn:request:%s", request_id);
    doc = pt2_problem_json(code, detail, instance);
    if (doc == NULL)
        goto cleanup;
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
