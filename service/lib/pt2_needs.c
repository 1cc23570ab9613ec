/*
 * pt2_needs.c - the capped containers of pt2_needs.h.
 *
 * Names live in one arena per library (offset 0 is the empty string), so a
 * record of a few thousand imports is a handful of allocations and its cost
 * is easy to count for the daemon's byte-bounded cache.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_model.h"
#include "pt2_needs.h"

struct pt2_needs *pt2_needs_new(int format)
{
    struct pt2_needs *n = calloc(1, sizeof(*n));

    if (n == NULL)
        return NULL;
    n->format = format;
    n->names = malloc(256);
    if (n->names == NULL) {
        free(n);
        return NULL;
    }
    n->names[0] = '\0';
    n->names_len = 1;
    n->names_cap = 256;
    return n;
}

void pt2_needs_free(struct pt2_needs *n)
{
    if (n == NULL)
        return;
    free(n->vers);
    free(n->defs);
    free(n->defs_ndx);
    free(n->imports);
    free(n->names);
    free(n);
}

uint64_t pt2_needs_memory(const struct pt2_needs *n)
{
    if (n == NULL)
        return 0;
    return sizeof(*n) + n->names_cap + n->imports_cap * sizeof(*n->imports) +
           n->nvers * sizeof(*n->vers) + n->ndefs * (sizeof(*n->defs) + sizeof(*n->defs_ndx));
}

const char *pt2_needs_str(const struct pt2_needs *n, uint32_t off)
{
    if (n == NULL || off >= n->names_len)
        return "";
    return n->names + off;
}

void pt2_needs_set_partial(struct pt2_needs *n, const char *fmt, ...)
{
    va_list ap;

    if (n->partial[0] != '\0')
        return;
    va_start(ap, fmt);
    vsnprintf(n->partial, sizeof(n->partial), fmt, ap);
    va_end(ap);
}

int pt2_needs_intern(struct pt2_needs *n, const char *s, size_t len, uint32_t *off,
                     struct pt2_error *err)
{
    size_t need = n->names_len + len + 1;

    if (len == 0) {
        *off = 0;
        return PT2_OK;
    }
    if (need > PT2_NEEDS_NAMES_MAX)
        return pt2_error_set(err, PT2_ERR_TOO_LARGE, "more than %u bytes of symbol names",
                             PT2_NEEDS_NAMES_MAX);
    if (need > n->names_cap) {
        size_t cap = n->names_cap * 2;
        char *p;

        while (cap < need)
            cap *= 2;
        if (cap > PT2_NEEDS_NAMES_MAX)
            cap = PT2_NEEDS_NAMES_MAX;
        p = realloc(n->names, cap);
        if (p == NULL)
            return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory reading a library's needs");
        n->names = p;
        n->names_cap = cap;
    }
    memcpy(n->names + n->names_len, s, len);
    n->names[n->names_len + len] = '\0';
    *off = (uint32_t)n->names_len;
    n->names_len = need;
    return PT2_OK;
}

/* Intern, turning the name budget into a `partial` note: 1 kept, 0 dropped, <0 failure. */
static int keep(struct pt2_needs *n, const char *s, uint32_t *off, struct pt2_error *err)
{
    struct pt2_error local; /* not zeroed: this runs once per imported symbol */
    int rc;

    local.code = PT2_OK;
    local.message[0] = '\0';
    rc = pt2_needs_intern(n, s, strlen(s), off, &local);

    if (rc == PT2_ERR_TOO_LARGE) {
        pt2_needs_set_partial(n, "%s", local.message);
        return 0;
    }
    if (rc != PT2_OK)
        return pt2_error_copy(err, &local);
    return 1;
}

int pt2_needs_add_lib(struct pt2_needs *n, const char *name, int weak, struct pt2_error *err)
{
    uint32_t off;
    int rc;

    if (n->nlibs >= PT2_NEEDS_LIBS_MAX) {
        pt2_needs_set_partial(n, "more than %u needed libraries", PT2_NEEDS_LIBS_MAX);
        return PT2_OK;
    }
    rc = keep(n, name, &off, err);
    if (rc <= 0)
        return rc;
    n->libs_weak[n->nlibs] = weak != 0;
    n->libs[n->nlibs++] = off;
    return PT2_OK;
}

int pt2_needs_add_vneed(struct pt2_needs *n, const char *file, const char *version, uint16_t index,
                        int weak, struct pt2_error *err)
{
    struct pt2_vneed v = {0};
    int rc;

    if (n->nvers >= PT2_NEEDS_VERSIONS_MAX) {
        pt2_needs_set_partial(n, "more than %u version needs", PT2_NEEDS_VERSIONS_MAX);
        return PT2_OK;
    }
    if ((rc = keep(n, file, &v.file, err)) <= 0 || (rc = keep(n, version, &v.version, err)) <= 0)
        return rc;
    v.index = index;
    v.weak = weak != 0;
    if (n->nvers % 16 == 0) {
        struct pt2_vneed *p = realloc(n->vers, (n->nvers + 16) * sizeof(*p));
        if (p == NULL)
            return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory reading a library's needs");
        n->vers = p;
    }
    n->vers[n->nvers++] = v;
    return PT2_OK;
}

int pt2_needs_add_def(struct pt2_needs *n, const char *version, uint16_t ndx, struct pt2_error *err)
{
    uint32_t off;
    int rc;

    if (n->ndefs >= PT2_NEEDS_DEFS_MAX) {
        pt2_needs_set_partial(n, "more than %u version definitions", PT2_NEEDS_DEFS_MAX);
        n->defs_partial = 1;
        return PT2_OK;
    }
    if ((rc = keep(n, version, &off, err)) <= 0)
        return rc;
    if (n->ndefs % 32 == 0) {
        uint32_t *d = realloc(n->defs, (n->ndefs + 32) * sizeof(*d));
        uint16_t *x;

        if (d == NULL)
            return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory reading a library's needs");
        n->defs = d;
        x = realloc(n->defs_ndx, (n->ndefs + 32) * sizeof(*x));
        if (x == NULL)
            return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory reading a library's needs");
        n->defs_ndx = x;
    }
    n->defs[n->ndefs] = off;
    n->defs_ndx[n->ndefs++] = ndx;
    return PT2_OK;
}

int pt2_needs_add_import(struct pt2_needs *n, const char *name, int32_t vneed, int weak,
                         struct pt2_error *err)
{
    struct pt2_import im = {0};
    int rc;

    n->imports_total++;
    if (n->nimports >= PT2_NEEDS_IMPORTS_MAX) {
        pt2_needs_set_partial(n, "more than %u undefined symbols", PT2_NEEDS_IMPORTS_MAX);
        return PT2_OK;
    }
    if ((rc = keep(n, name, &im.name, err)) <= 0)
        return rc;
    im.vneed = vneed;
    im.weak = weak != 0;
    if (vneed >= 0 && (size_t)vneed < n->nvers)
        n->vers[vneed].nsyms++;
    rc = pt2_model_grow((void **)&n->imports, &n->imports_cap, n->nimports, sizeof(im),
                        PT2_NEEDS_IMPORTS_MAX, "undefined symbols", err);
    if (rc != PT2_OK)
        return rc;
    n->imports[n->nimports++] = im;
    return PT2_OK;
}

int32_t pt2_needs_vneed_by_index(const struct pt2_needs *n, uint16_t index)
{
    for (size_t i = 0; i < n->nvers; i++)
        if (n->vers[i].index == index)
            return (int32_t)i;
    return -1;
}

int pt2_needs_defines(const struct pt2_needs *n, const char *version)
{
    for (size_t i = 0; i < n->ndefs; i++)
        if (strcmp(pt2_needs_str(n, n->defs[i]), version) == 0)
            return 1;
    return 0;
}
