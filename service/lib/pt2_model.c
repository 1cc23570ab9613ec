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

int pt2_model_grow(void **v, size_t *cap, size_t n, size_t size, size_t max, const char *what,
                   struct pt2_error *err)
{
    size_t ncap;
    void *nv;

    if (n >= max)
        return pt2_error_set(err, PT2_ERR_TOO_LARGE, "more than %zu %s", max, what);
    if (n < *cap)
        return PT2_OK;
    ncap = *cap ? *cap * 2 : 8;
    if (ncap > max)
        ncap = max;
    nv = realloc(*v, ncap * size);
    if (nv == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    *v = nv;
    *cap = ncap;
    return PT2_OK;
}

int pt2_kernel_list_push(struct pt2_kernel_list *l, const struct pt2_kernel *k,
                         struct pt2_error *err)
{
    int rc = pt2_model_grow((void **)&l->v, &l->cap, l->n, sizeof(*k), PT2_KERNELS_MAX,
                            "kernels in one package", err);
    if (rc != PT2_OK)
        return rc;
    l->v[l->n++] = *k;
    return PT2_OK;
}

void pt2_kernel_list_free(struct pt2_kernel_list *l)
{
    if (l == NULL)
        return;
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

int pt2_host_list_push(struct pt2_host_list *l, const struct pt2_host *h, struct pt2_error *err)
{
    int rc = pt2_model_grow((void **)&l->v, &l->cap, l->n, sizeof(*h), PT2_HOSTS_MAX,
                            "host binaries in one package", err);
    if (rc != PT2_OK)
        return rc;
    l->v[l->n++] = *h;
    return PT2_OK;
}

void pt2_host_list_free(struct pt2_host_list *l)
{
    if (l == NULL)
        return;
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

const char *pt2_kernel_target_name(const struct pt2_kernel *k, char *buf, size_t len)
{
    char v[2] = {k->variant, '\0'};

    switch (k->kind) {
    case PT2_KERNEL_SASS:
        snprintf(buf, len, "sm_%u%s", k->sm, v);
        break;
    case PT2_KERNEL_PTX:
        snprintf(buf, len, "compute_%u%s", k->sm, v);
        break;
    case PT2_KERNEL_HSACO:
        snprintf(buf, len, "%s", k->target_id[0] ? k->target_id : k->gfx);
        break;
    case PT2_KERNEL_SPIRV:
        snprintf(buf, len, "spirv");
        break;
    case PT2_KERNEL_ZEBIN:
        snprintf(buf, len, "zebin");
        break;
    default:
        snprintf(buf, len, "unknown");
        break;
    }
    return buf;
}
