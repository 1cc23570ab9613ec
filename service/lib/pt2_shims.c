/*
 * pt2_shims.c - the generated shim table and the rules over it (see pt2_shims.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_shims.h"

static const struct pt2_shim table[] = {
#include "pt2_shim_table.inc"
};

#define NTABLE (sizeof(table) / sizeof(table[0]))

size_t pt2_shims_count(void)
{
    return NTABLE;
}

const struct pt2_shim *pt2_shims_at(size_t i)
{
    return i < NTABLE ? &table[i] : NULL;
}

static int cmp_name(const void *key, const void *e)
{
    return strcmp(key, ((const struct pt2_shim *)e)->name);
}

const struct pt2_shim *pt2_shims_find(const char *name)
{
    return bsearch(name, table, NTABLE, sizeof(table[0]), cmp_name);
}

/* Inline, not strncmp + strlen: it runs a few times for every symbol a library imports. */
static int starts(const char *s, const char *p)
{
    while (*p != '\0')
        if (*s++ != *p++)
            return 0;
    return 1;
}

/* A nested name in namespace torch, c10 or at (N5torch..., NK3c10...) anywhere in it. */
static int libtorch_cxx(const char *s)
{
    static const char *const ns[] = {"5torch", "3c10", "2at"};

    if (!starts(s, "_Z"))
        return 0;
    for (const char *p = s; (p = strchr(p, 'N')) != NULL; p++) {
        const char *q = p + 1;

        while (*q == 'K' || *q == 'V' || *q == 'r')
            q++; /* cv-qualifiers of a member function */
        for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
            size_t l = strlen(ns[i]);
            char next = q[l];

            if (strncmp(q, ns[i], l) == 0 &&
                ((next >= '0' && next <= '9') || next == 'C' || next == 'D' || next == 'I' ||
                 next == 'E' || next == 'S'))
                return 1;
        }
    }
    return 0;
}

/* An MSVC-mangled name (a Windows library's import: "?empty@at@@YA..."), whose outermost
 * scope, the one before the first "@@", is torch, c10 or at. */
static int libtorch_msvc(const char *s)
{
    static const char *const ns[] = {"torch", "c10", "at"};
    const char *end, *seg;

    if (s[0] != '?' || (end = strstr(s, "@@")) == NULL)
        return 0;
    for (seg = end; seg > s && seg[-1] != '@'; seg--)
        ;
    for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
        if ((size_t)(end - seg) == strlen(ns[i]) && strncmp(seg, ns[i], strlen(ns[i])) == 0)
            return 1;
    return 0;
}

static int is_ident(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return 0;
    }
    return n > 0;
}

int pt2_shims_classify(const char *name, const struct pt2_shim **shim, size_t *prefix_len)
{
    const char *at;

    *shim = NULL;
    *prefix_len = 0;
    if (starts(name, "aoti_torch_") || starts(name, "torch_")) {
        *shim = pt2_shims_find(name);
        if (*shim != NULL)
            return PT2_IMP_SHIM;
        return starts(name, "aoti_torch_") ? PT2_IMP_CUSTOM_SHIM : PT2_IMP_OTHER;
    }
    if (libtorch_cxx(name) || libtorch_msvc(name))
        return PT2_IMP_LIBTORCH_CXX;
    at = strstr(name, "aoti_torch_");
    if (at != NULL && !starts(name, "_Z") && is_ident(name, (size_t)(at - name))) {
        *prefix_len = (size_t)(at - name);
        *shim = pt2_shims_find(at);
        return PT2_IMP_PREFIXED_SHIM;
    }
    if (starts(name, "cuda") || starts(name, "__cuda") || starts(name, "nvrtc") ||
        (name[0] == 'c' && name[1] == 'u' && name[2] >= 'A' && name[2] <= 'Z'))
        return PT2_IMP_CUDA;
    if (starts(name, "hip") || starts(name, "__hip"))
        return PT2_IMP_HIP;
    return PT2_IMP_OTHER;
}

void pt2_shims_classify_needs(struct pt2_needs *n)
{
    for (size_t i = 0; i < n->nimports; i++) {
        const struct pt2_shim *s;
        size_t plen;

        n->imports[i].kind =
            (uint8_t)pt2_shims_classify(pt2_needs_str(n, n->imports[i].name), &s, &plen);
        n->imports[i].shim = s != NULL ? (uint16_t)(s - table + 1) : 0;
    }
}

const char *pt2_shims_release_text(unsigned r, char *buf, size_t len)
{
    if (r == 0)
        snprintf(buf, len, "%s", "");
    else
        snprintf(buf, len, "%u.%u", r / 100, r % 100);
    return buf;
}

int pt2_shims_release_parse(const char *s, unsigned *out)
{
    uint64_t major, minor;
    const char *end;

    if (s == NULL || pt2_num_u64_prefix(s, 10, &major, &end) != PT2_OK || *end != '.' ||
        pt2_num_u64_prefix(end + 1, 10, &minor, &end) != PT2_OK)
        return PT2_ERR_INVALID;
    if (major > 99 || minor > 99)
        return PT2_ERR_INVALID;
    /* "2.8.1", "2.8.0+cu128", "2.9.0a0": the patch level and local part do not date shims */
    if (*end != '\0' && *end != '.' && *end != '+' && *end != 'a' && *end != 'r' && *end != 'd')
        return PT2_ERR_INVALID;
    *out = (unsigned)(major * 100 + minor);
    return PT2_OK;
}

void pt2_shims_floor_init(struct pt2_torch_floor *f)
{
    memset(f, 0, sizeof(*f));
}

static void note_first(char list[][128], size_t cap, size_t *count, const char *name)
{
    if (*count < cap)
        snprintf(list[*count], sizeof(list[0]), "%s", name);
}

static void add_shim(struct pt2_torch_floor *f, const struct pt2_shim *s, const char *name)
{
    if (s->nightly)
        f->nightly = 1;
    if (s->first_lo > f->min) {
        f->min = s->first_lo;
        snprintf(f->because, sizeof(f->because), "%s", name);
    }
    if (s->first_hi > f->sure_from) {
        f->sure_from = s->first_hi;
        snprintf(f->because_sure, sizeof(f->because_sure), "%s", name);
    }
    if (s->last_hi != 0 && (f->max_hi == 0 || s->last_hi < f->max_hi)) {
        f->max_lo = s->last_lo;
        f->max_hi = s->last_hi;
        snprintf(f->because_max, sizeof(f->because_max), "%s", name);
    }
}

void pt2_shims_floor_add(struct pt2_torch_floor *f, const struct pt2_needs *n)
{
    for (size_t i = 0; n != NULL && i < n->nimports; i++) {
        const struct pt2_import *im = &n->imports[i];
        const char *name = pt2_needs_str(n, im->name);

        if (im->weak)
            continue; /* a weak import may stay unresolved */
        switch (im->kind) {
        case PT2_IMP_SHIM:
            f->shims++;
            add_shim(f, &table[im->shim - 1], name);
            break;
        case PT2_IMP_PREFIXED_SHIM:
            if (f->prefixed++ == 0) {
                const char *at = strstr(name, "aoti_torch_");
                snprintf(f->prefix, sizeof(f->prefix), "%.*s", (int)(at - name), name);
            }
            break;
        case PT2_IMP_CUSTOM_SHIM:
            note_first(f->unknown, 4, &f->custom, name);
            f->custom++;
            break;
        case PT2_IMP_LIBTORCH_CXX:
            if (f->cxx < 4)
                snprintf(f->cxx_first[f->cxx], sizeof(f->cxx_first[0]), "%s", name);
            f->cxx++;
            break;
        default:
            break;
        }
    }
    if (f->sure_from < f->min)
        f->sure_from = f->min;
}
