/*
 * pt2d_page.c - the operator page's files (see pt2d_page.h).
 *
 * The blobs and their lengths are defined in pt2d_page_assets.S; a length
 * is a variable, not a constant expression, so the table points at it.
 */
#include <stdlib.h>
#include <string.h>

#include "pt2d_page.h"
#include "pt2d_problem.h"
#include "pt2scope.h"

extern const char pt2d_page_index_html[], pt2d_page_app_js[], pt2d_page_style_css[];
extern const size_t pt2d_page_index_html_len, pt2d_page_app_js_len, pt2d_page_style_css_len;

static const struct page_entry {
    const char *path;
    const char *content_type;
    const char *data;
    const size_t *len;
} page_files[] = {
    {"/", "text/html; charset=utf-8", pt2d_page_index_html, &pt2d_page_index_html_len},
    {"/page/app.js", "text/javascript; charset=utf-8", pt2d_page_app_js, &pt2d_page_app_js_len},
    {"/page/style.css", "text/css; charset=utf-8", pt2d_page_style_css, &pt2d_page_style_css_len},
};

int pt2d_page_find(const char *path, struct pt2d_page_file *out)
{
    size_t i;

    for (i = 0; i < sizeof(page_files) / sizeof(page_files[0]); i++) {
        if (strcmp(page_files[i].path, path) != 0)
            continue;
        out->path = page_files[i].path;
        out->content_type = page_files[i].content_type;
        out->data = page_files[i].data;
        out->len = *page_files[i].len;
        return 1;
    }
    return 0;
}

int pt2d_page_reply(const struct pt2d_page_file *file, struct pt2d_reply *r, const char *request_id)
{
    char *copy = malloc(file->len + 1);

    if (copy == NULL) {
        pt2d_reply_problem(r, PT2_ERR_NOMEM, "out of memory", request_id);
        return PT2_ERR_NOMEM;
    }
    memcpy(copy, file->data, file->len + 1);
    pt2d_reply_take(r, 200, file->content_type, copy, file->len);
    return PT2_OK;
}
