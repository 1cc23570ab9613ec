/*
 * pt2_model.c - capped growable lists and target names for the data model.
 *
 * The two lists share one growth routine; the caps come from pt2_model.h so a
 * package with millions of tiny kernels fails with "too-large" instead of
 * exhausting memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_model.h"
#include "pt2_needs.h"
#include "pt2_sbuf.h"
#include "pt2_zebin.h"

int pt2_model_grow(void **v, size_t *cap, size_t n, size_t size, size_t max, const char *what,
                   struct pt2_error *err)
{
    size_t ncap;
    void *nv;

    if (n >= max)
        return pt2_error_set(err, PT2_ERR_TOO_LARGE, "more than %zu %s", max, what);
    if (n < *cap)
        return PT2_OK;
    /* First room for what fits in 16 KiB (one 10 KB model, or 8 small records): a table
     * freed past glibc's 64 KiB threshold makes every free of the package consolidate. */
    ncap = *cap ? *cap * 2 : (size >= 2048 ? 1 : 8);
    if (ncap > max)
        ncap = max;
    nv = realloc(*v, ncap * size);
    if (nv == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    *v = nv;
    *cap = ncap;
    return PT2_OK;
}

/* The list's own copy of `source`: kernels arrive entry by entry, so only the last copy is
 * compared (a search of all would be quadratic in 65,536 one-kernel entries). */
static const char *kernel_source(struct pt2_kernel_list *l, const char *source,
                                 struct pt2_error *err)
{
    char *copy;

    if (source == NULL)
        source = "";
    if (l->nsources > 0 && strcmp(l->sources[l->nsources - 1], source) == 0)
        return l->sources[l->nsources - 1];
    if (pt2_model_grow((void **)&l->sources, &l->sources_cap, l->nsources, sizeof(*l->sources),
                       PT2_KERNELS_MAX, "kernel sources in one package", err) != PT2_OK)
        return NULL;
    copy = strdup(source);
    if (copy == NULL) {
        pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
        return NULL;
    }
    l->sources[l->nsources++] = copy;
    return copy;
}

int pt2_kernel_list_push(struct pt2_kernel_list *l, const struct pt2_kernel *k,
                         struct pt2_error *err)
{
    const char *src;
    int rc = pt2_model_grow((void **)&l->v, &l->cap, l->n, sizeof(*k), PT2_KERNELS_MAX,
                            "kernels in one package", err);
    if (rc != PT2_OK)
        return rc;
    src = kernel_source(l, k->source, err);
    if (src == NULL)
        return err->code != PT2_OK ? err->code : PT2_ERR_NOMEM;
    l->v[l->n] = *k;
    l->v[l->n++].source = src;
    return PT2_OK;
}

void pt2_kernel_list_free(struct pt2_kernel_list *l)
{
    if (l == NULL)
        return;
    for (size_t i = 0; i < l->nsources; i++)
        free(l->sources[i]);
    free(l->sources);
    free(l->v);
    l->v = NULL;
    l->sources = NULL;
    l->n = l->cap = l->nsources = l->sources_cap = 0;
}

int pt2_host_list_push(struct pt2_host_list *l, const struct pt2_host *h, struct pt2_error *err)
{
    int rc = pt2_model_grow((void **)&l->v, &l->cap, l->n, sizeof(*h), PT2_HOSTS_MAX,
                            "host binaries in one package", err);
    if (rc != PT2_OK) {
        pt2_needs_free(h->needs);
        return rc;
    }
    l->v[l->n++] = *h;
    return PT2_OK;
}

void pt2_host_list_free(struct pt2_host_list *l)
{
    if (l == NULL)
        return;
    for (size_t i = 0; i < l->n; i++)
        pt2_needs_free(l->v[i].needs);
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

const char *pt2_kernel_target_name(const struct pt2_kernel *k, char *buf, size_t len)
{
    char v[2] = {k->variant, '\0'};

    switch (k->kind) {
    case PT2_KERNEL_SASS:
        pt2_sbuf_tag(buf, len, "sm_", k->sm, v);
        break;
    case PT2_KERNEL_PTX:
        pt2_sbuf_tag(buf, len, "compute_", k->sm, v);
        break;
    case PT2_KERNEL_HSACO:
        pt2_sbuf_copy(buf, len, k->target_id[0] ? k->target_id : k->gfx);
        break;
    case PT2_KERNEL_SPIRV:
        snprintf(buf, len, "spirv");
        break;
    case PT2_KERNEL_ZEBIN:
        if (pt2_zebin_product_short(k->intel_product) != NULL)
            snprintf(buf, len, "zebin:%s", pt2_zebin_product_short(k->intel_product));
        else
            snprintf(buf, len, "zebin");
        break;
    default:
        snprintf(buf, len, "unknown");
        break;
    }
    return buf;
}
