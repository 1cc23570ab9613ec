/*
 * pt2d_reply.c - response bodies (see pt2d_reply.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2d_problem.h"
#include "pt2scope.h"
#include "pt2d_reply.h"

void pt2d_reply_init(struct pt2d_reply *r)
{
    memset(r, 0, sizeof(*r));
}

static void reply_drop_body(struct pt2d_reply *r)
{
    if (r->body != NULL) {
        if (r->body_release != NULL)
            r->body_release(r->body);
        else
            free(r->body);
    }
    r->body = NULL;
    r->body_release = NULL;
    r->len = 0;
}

void pt2d_reply_free(struct pt2d_reply *r)
{
    if (r == NULL)
        return;
    reply_drop_body(r);
}

void pt2d_reply_take_shared(struct pt2d_reply *r, unsigned status, const char *ctype, char *body,
                            size_t len, void (*release)(void *body))
{
    reply_drop_body(r);
    r->status = status;
    r->content_type = ctype;
    r->body = body;
    r->len = len;
    r->body_release = release;
}

void pt2d_reply_take(struct pt2d_reply *r, unsigned status, const char *ctype, char *body,
                     size_t len)
{
    pt2d_reply_take_shared(r, status, ctype, body, len, NULL);
}

int pt2d_reply_text(struct pt2d_reply *r, unsigned status, const char *ctype, const char *text)
{
    size_t n = strlen(text);
    char *copy = malloc(n + 1);

    if (copy == NULL) {
        pt2d_reply_take(r, 500, NULL, NULL, 0);
        return PT2_ERR_NOMEM;
    }
    memcpy(copy, text, n + 1);
    pt2d_reply_take(r, status, ctype, copy, n);
    return PT2_OK;
}

/* cJSON's own printer: where pt2_json_print cannot (out of memory, a tree too deep). */
static int reply_json_cjson(struct pt2d_reply *r, unsigned status, const cJSON *doc)
{
    char *s = cJSON_PrintUnformatted(doc);
    size_t n;
    char *body;

    if (s == NULL)
        return pt2d_reply_problem(r, PT2_ERR_NOMEM, "out of memory", NULL);
    n = strlen(s);
    /* Zip entry names and upload file names need not be UTF-8; JSON must be. */
    pt2_utf8_scrub(s, n);
    /* Copy into malloc'd memory with a newline: MHD frees with free(), not cJSON_free. */
    body = malloc(n + 2);
    if (body == NULL) {
        cJSON_free(s);
        return pt2d_reply_problem(r, PT2_ERR_NOMEM, "out of memory", NULL);
    }
    memcpy(body, s, n);
    body[n] = '\n';
    body[n + 1] = '\0';
    cJSON_free(s);
    pt2d_reply_take(r, status, PT2D_JSON_CTYPE, body, n + 1);
    return PT2_OK;
}

void pt2d_reply_json_text(struct pt2d_reply *r, unsigned status, char *text, size_t len)
{
    /* Zip entry names and upload file names need not be UTF-8; JSON must be. */
    pt2_utf8_scrub(text, len);
    text[len] = '\n';
    text[len + 1] = '\0';
    pt2d_reply_take(r, status, PT2D_JSON_CTYPE, text, len + 1);
}

int pt2d_reply_json(struct pt2d_reply *r, unsigned status, const cJSON *doc)
{
    size_t n = 0;
    /* cJSON_PrintUnformatted's bytes, printed ~3x faster; one spare byte for the newline. */
    char *body = pt2_json_print(doc, 1, &n);

    if (body == NULL)
        return reply_json_cjson(r, status, doc);
    pt2d_reply_json_text(r, status, body, n);
    return PT2_OK;
}

int pt2d_reply_problem(struct pt2d_reply *r, int code, const char *detail, const char *request_id)
{
    const struct pt2d_problem_type *t = pt2d_problem_lookup(code);
    size_t len = 0;
    char *body;

    r->withheld[0] = '\0';
    if (t->status == 500) {
        snprintf(r->withheld, sizeof(r->withheld), "%s", detail != NULL ? detail : "");
        detail = PT2D_REPLY_WITHHELD;
    }
    body = pt2d_problem_json(code, detail, request_id, &len);

    r->etag[0] = '\0';
    pt2d_reply_take(r, t->status, body != NULL ? PT2D_PROBLEM_CTYPE : NULL, body, len);
    if (code == PT2_ERR_OVERLOADED)
        r->retry_after = 1;
    return body != NULL ? PT2_OK : PT2_ERR_NOMEM;
}
