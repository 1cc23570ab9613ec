/*
 * cli_scan_state.c - the state file of an incremental scan (cli_scan_state.h).
 *
 * Design: the old state is read once, line by line (each line capped), into
 * a sorted array of {url, etag, size, answer text}; answers stay text until
 * one is reused. The new state streams to a mkstemp file in FILE's folder.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_scan_state.h"
#include "pt2scope.h"

#define STATE_FORMAT "pt2scope_scan_state"

struct entry {
    char *url, *etag, *answer;
    uint64_t size;
};

struct cli_state {
    struct entry *v;
    size_t n, cap;
    char *path, *tmp;
    FILE *out;
};

static void entry_free(struct entry *e)
{
    free(e->url);
    free(e->etag);
    free(e->answer);
}

static int by_url(const void *a, const void *b)
{
    return strcmp(((const struct entry *)a)->url, ((const struct entry *)b)->url);
}

/* One object line into the array: 0, 1 (skipped: not an object line), -1 (no memory). */
static int state_add(cli_state *s, const cJSON *line)
{
    const char *url = pt2_json_str(line, "url"), *etag = pt2_json_str(line, "etag");
    const cJSON *size = cJSON_GetObjectItemCaseSensitive(line, "size");
    const cJSON *answer = cJSON_GetObjectItemCaseSensitive(line, "answer");
    struct entry e = {0};

    if (url == NULL || etag == NULL || !cJSON_IsNumber(size) || size->valuedouble < 0 ||
        !cJSON_IsObject(answer))
        return 1;
    if (s->n == CLI_STATE_MAX)
        return 1;
    if (s->n == s->cap) {
        size_t cap = s->cap != 0 ? s->cap * 2 : 256;
        struct entry *nv = realloc(s->v, cap * sizeof(*nv));

        if (nv == NULL)
            return -1;
        s->v = nv;
        s->cap = cap;
    }
    e.url = strdup(url);
    e.etag = strdup(etag);
    e.answer = cJSON_PrintUnformatted(answer);
    e.size = (uint64_t)size->valuedouble;
    if (e.url == NULL || e.etag == NULL || e.answer == NULL) {
        entry_free(&e);
        return -1;
    }
    s->v[s->n++] = e;
    return 0;
}

/* Parse the lines of f; the first must be the header for `options`, else nothing is kept. */
static int state_read(cli_state *s, FILE *f, const char *options, char *why, size_t why_len)
{
    char *line = malloc(CLI_STATE_LINE_MAX + 1);
    int first = 1, rc = 0;

    if (line == NULL) {
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    while (rc == 0 && fgets(line, CLI_STATE_LINE_MAX + 1, f) != NULL) {
        cJSON *j = cJSON_Parse(line);

        if (first) {
            const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(j, STATE_FORMAT);
            const char *opt = pt2_json_str(j, "options");

            first = 0;
            if (!cJSON_IsNumber(fmt) || fmt->valueint != 1 || opt == NULL ||
                strcmp(opt, options) != 0) {
                cJSON_Delete(j);
                break; /* another format or other options: every object is read again */
            }
        } else if (j != NULL && state_add(s, j) < 0) {
            snprintf(why, why_len, "out of memory");
            rc = -1;
        }
        cJSON_Delete(j);
    }
    free(line);
    if (rc == 0 && s->n > 1)
        qsort(s->v, s->n, sizeof(*s->v), by_url);
    return rc;
}

static int state_tmp(cli_state *s, const char *options, char *why, size_t why_len)
{
    size_t n = strlen(s->path) + sizeof(".tmp-XXXXXX");
    cJSON *head = cJSON_CreateObject();
    char *text = NULL;
    int fd;

    s->tmp = malloc(n);
    if (s->tmp == NULL || head == NULL || cJSON_AddNumberToObject(head, STATE_FORMAT, 1) == NULL ||
        cJSON_AddStringToObject(head, "options", options) == NULL ||
        (text = cJSON_PrintUnformatted(head)) == NULL) {
        cJSON_Delete(head);
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    cJSON_Delete(head);
    snprintf(s->tmp, n, "%s.tmp-XXXXXX", s->path);
    fd = mkstemp(s->tmp);
    if (fd < 0 || (s->out = fdopen(fd, "w")) == NULL) {
        snprintf(why, why_len, "cannot create %s: %s", s->tmp, strerror(errno));
        if (fd >= 0)
            close(fd);
        free(s->tmp);
        s->tmp = NULL;
        cJSON_free(text);
        return -1;
    }
    fprintf(s->out, "%s\n", text);
    cJSON_free(text);
    return 0;
}

int cli_state_open(cli_state **out, const char *path, const char *options, char *why,
                   size_t why_len)
{
    cli_state *s = calloc(1, sizeof(*s));
    FILE *f;

    *out = NULL;
    if (s == NULL || (s->path = strdup(path)) == NULL) {
        free(s);
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    f = fopen(path, "re");
    if (f == NULL && errno != ENOENT) {
        snprintf(why, why_len, "cannot read it: %s", strerror(errno));
        cli_state_free(s);
        return -1;
    }
    if ((f != NULL && state_read(s, f, options, why, why_len) != 0) ||
        state_tmp(s, options, why, why_len) != 0) {
        if (f != NULL)
            fclose(f);
        cli_state_free(s);
        return -1;
    }
    if (f != NULL)
        fclose(f);
    *out = s;
    return 0;
}

cJSON *cli_state_lookup(const cli_state *s, const char *url, const char *etag, uint64_t size)
{
    struct entry key = {.url = (char *)url};
    const struct entry *e;

    if (s == NULL || s->n == 0 || etag == NULL || etag[0] == '\0')
        return NULL;
    e = bsearch(&key, s->v, s->n, sizeof(*s->v), by_url);
    if (e == NULL || e->size != size || strcmp(e->etag, etag) != 0)
        return NULL;
    return cJSON_Parse(e->answer);
}

int cli_state_write(cli_state *s, const char *url, const char *etag, uint64_t size,
                    const cJSON *answer)
{
    cJSON *line = cJSON_CreateObject();
    cJSON *copy = NULL;
    char *text = NULL;
    int rc = -1;

    if (line != NULL && cJSON_AddStringToObject(line, "url", url) != NULL &&
        cJSON_AddStringToObject(line, "etag", etag) != NULL &&
        cJSON_AddNumberToObject(line, "size", (double)size) != NULL &&
        (copy = cJSON_Duplicate(answer, 1)) != NULL) {
        if (cJSON_AddItemToObject(line, "answer", copy))
            text = cJSON_PrintUnformatted(line);
        else
            cJSON_Delete(copy); /* not the line's: ours to free */
    }
    if (text != NULL) {
        pt2_utf8_scrub(text, strlen(text));
        rc = fprintf(s->out, "%s\n", text) < 0 ? -1 : 0;
    }
    cJSON_free(text);
    cJSON_Delete(line);
    return rc;
}

int cli_state_commit(cli_state *s, char *why, size_t why_len)
{
    int bad = fflush(s->out) != 0 || ferror(s->out) || fsync(fileno(s->out)) != 0;

    bad |= fclose(s->out) != 0;
    s->out = NULL;
    if (bad || rename(s->tmp, s->path) != 0) {
        snprintf(why, why_len, "cannot write it: %s", strerror(errno));
        return -1;
    }
    free(s->tmp);
    s->tmp = NULL;
    return 0;
}

void cli_state_free(cli_state *s)
{
    if (s == NULL)
        return;
    if (s->out != NULL)
        fclose(s->out);
    if (s->tmp != NULL)
        unlink(s->tmp);
    for (size_t i = 0; i < s->n; i++)
        entry_free(&s->v[i]);
    free(s->v);
    free(s->tmp);
    free(s->path);
    free(s);
}
