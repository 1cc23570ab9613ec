/*
 * pt2_listing.c - one package as a listing item (see pt2scope.h, "Listings").
 *
 * Design: GET /v1/packages and `pt2scope scan` answer the same question
 * ("what is each of these packages for, and will it run on T?") with the
 * same item, so the item's shape and its rules live here once: which
 * fields, the targets short form, which verdicts, when an item is a
 * problem and when it counts as a failure. Callers only find the files
 * and open them; the item is built from the opened package (headers only,
 * as every inspection) or from the error that opening it gave.
 *
 * The targets short form names each distinct GPU target once, in the order
 * the kernels were found: SASS "sm_90a", with "+PTX" when PTX for the same
 * architecture is there too, lone PTX as "compute_90", AMD code objects by
 * their target id ("gfx90a:xnack-"), Intel kernels as "spirv"/"zebin". A
 * package without GPU kernels is described by its host code instead: "cpu
 * x86_64 AVX-512". A package with no compiled code at all (an exported
 * program only) has no targets (null).
 *
 * Ownership: items are new cJSON documents owned by the caller.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "pt2_error.h"
#include "pt2_inspect.h"
#include "pt2_isa.h"
#include "pt2_sbuf.h"
#include "pt2_verdicts.h"

#define LISTING_NAMES_MAX 64 /* distinct targets named; past them the text ends in ", more" */
#define LISTING_NAME_LEN 64
#define LISTING_DEVICE_MAX 128
#define LISTING_MACHINES_MAX 8

struct listing_target {
    int kind; /* enum pt2_kernel_kind */
    unsigned sm;
    char variant;
    char name[LISTING_NAME_LEN];
};

struct listing_names {
    struct listing_target v[LISTING_NAMES_MAX];
    size_t n;
    int more; /* there are distinct targets past LISTING_NAMES_MAX */
};

static int listing_same(const struct listing_target *t, const struct pt2_kernel *k,
                        const char *name)
{
    return t->kind == k->kind && strcmp(t->name, name) == 0;
}

/* Distinct kernel targets in first-seen order (device-link stubs hold no kernels). */
static void listing_collect(const struct pt2_kernel_list *ks, struct listing_names *out)
{
    char name[LISTING_NAME_LEN];
    size_t i, j;

    memset(out, 0, sizeof(*out));
    for (i = 0; ks != NULL && i < ks->n; i++) {
        const struct pt2_kernel *k = &ks->v[i];

        if (k->kind == PT2_KERNEL_SASS && k->has_code == 0)
            continue;
        pt2_kernel_target_name(k, name, sizeof(name));
        for (j = 0; j < out->n; j++)
            if (listing_same(&out->v[j], k, name))
                break;
        if (j < out->n)
            continue;
        if (out->n == LISTING_NAMES_MAX) {
            out->more = 1; /* counting them would need them all: "more", no number */
            continue;
        }
        out->v[out->n].kind = k->kind;
        out->v[out->n].sm = k->sm;
        out->v[out->n].variant = k->variant;
        snprintf(out->v[out->n].name, sizeof(out->v[out->n].name), "%s", name);
        out->n++;
    }
}

/* 1 when `names` holds code of `kind` for the same NVIDIA architecture as `t`. */
static int listing_has(const struct listing_names *names, int kind, const struct listing_target *t)
{
    size_t i;

    for (i = 0; i < names->n; i++)
        if (names->v[i].kind == kind && names->v[i].sm == t->sm &&
            names->v[i].variant == t->variant)
            return 1;
    return 0;
}

/* "cpu x86_64 AVX-512" from the host binaries and the first model's ISA; "" without hosts. */
static void listing_cpu(const pt2_package *pkg, struct pt2_sbuf *b)
{
    const struct pt2_host_list *hs = pt2_package_hosts(pkg);
    const char *seen[LISTING_MACHINES_MAX];
    const struct pt2_cpu_isa *isa =
        pt2_package_model_count(pkg) > 0 ? pt2_package_model_isa(pkg, 0) : NULL;
    size_t i, j, n = 0;

    for (i = 0; hs != NULL && i < hs->n; i++) {
        for (j = 0; j < n; j++)
            if (strcmp(seen[j], hs->v[i].machine) == 0)
                break;
        if (j < n || n == LISTING_MACHINES_MAX)
            continue;
        seen[n++] = hs->v[i].machine;
        pt2_sbuf_add(b, n == 1 ? "cpu %s" : "/%s", hs->v[i].machine);
    }
    if (n > 0 && isa != NULL && isa->source[0] != '\0' && isa->isa[0] != '\0')
        pt2_sbuf_add(b, " %s", pt2_isa_display_name(isa->isa));
}

const char *pt2_listing_targets(const pt2_package *pkg, char *buf, size_t len)
{
    struct listing_names names; /* ~5 KiB */
    struct pt2_sbuf b;
    size_t i, shown = 0;

    pt2_sbuf_init(&b, buf, len);
    if (pkg == NULL)
        return buf;
    listing_collect(pt2_package_kernels(pkg), &names);
    for (i = 0; i < names.n; i++) {
        const struct listing_target *t = &names.v[i];

        if (t->kind == PT2_KERNEL_PTX && listing_has(&names, PT2_KERNEL_SASS, t))
            continue; /* named as "sm_XY+PTX" */
        pt2_sbuf_add(&b, shown++ ? ", %s" : "%s", t->name);
        if (t->kind == PT2_KERNEL_SASS && listing_has(&names, PT2_KERNEL_PTX, t))
            pt2_sbuf_add(&b, "+PTX");
    }
    if (names.more)
        pt2_sbuf_add(&b, ", more");
    if (shown == 0)
        listing_cpu(pkg, &b);
    return buf;
}

/* "cuda", "rocm", "cpu", "cuda+cpu" (distinct platforms, model order); "" without models. */
static void listing_device(const pt2_package *pkg, char *buf, size_t len)
{
    const char *seen[8];
    struct pt2_sbuf b;
    size_t m, j, n = 0;

    pt2_sbuf_init(&b, buf, len);
    for (m = 0; m < pt2_package_model_count(pkg); m++) {
        const char *p = pt2_verdicts_platform(pkg, m);

        for (j = 0; j < n; j++)
            if (strcmp(seen[j], p) == 0)
                break;
        if (j < n || n == sizeof(seen) / sizeof(seen[0]))
            continue;
        seen[n++] = p;
        pt2_sbuf_add(&b, n == 1 ? "%s" : "+%s", p);
    }
}

/* RFC 3339 UTC, seconds: "2025-06-01T12:00:00Z"; 0 when it does not fit or is out of range. */
static int listing_time(int64_t t, char *buf, size_t len)
{
    struct tm tm;
    time_t tt = (time_t)t;

    if ((int64_t)tt != t || gmtime_r(&tt, &tm) == NULL)
        return 0;
    return strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm) > 0;
}

/* Move every member of `src` into `dst` (src is deleted). 0 when out of memory or src NULL. */
static int listing_merge(cJSON *dst, cJSON *src)
{
    cJSON *item;
    int ok = src != NULL;

    while (src != NULL && (item = src->child) != NULL) {
        cJSON_DetachItemViaPointer(src, item);
        if (ok && !cJSON_AddItemToObject(dst, item->string, item))
            ok = 0;
        if (!ok)
            cJSON_Delete(item);
    }
    cJSON_Delete(src);
    return ok;
}

/* {"target", "verdict", "reason"} of one compatibility entry; NULL when out of memory. */
static cJSON *listing_verdict(const cJSON *e)
{
    cJSON *o = cJSON_CreateObject();

    if (o == NULL || cJSON_AddStringToObject(o, "target", pt2_json_str(e, "target")) == NULL ||
        cJSON_AddStringToObject(o, "verdict", pt2_json_str(e, "verdict")) == NULL ||
        cJSON_AddStringToObject(o, "code", pt2_json_str(e, "code")) == NULL ||
        cJSON_AddStringToObject(o, "reason", pt2_json_str(e, "reason")) == NULL) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* "verdicts": [{"target", "verdict", "code", "reason"}] and "overall" for the targets. */
static int listing_verdicts(cJSON *item, const pt2_package *pkg,
                            const struct pt2_listing_target *targets, size_t n,
                            struct pt2_error *err)
{
    pt2_verdicts *v = NULL;
    cJSON *doc = NULL, *arr = NULL, *overall = NULL, *o;
    const cJSON *e;
    int rc, ok;
    size_t i;

    rc = pt2_verdicts_new(&v, err);
    for (i = 0; rc == PT2_OK && i < n; i++)
        rc = targets[i].runtime != NULL
                 ? pt2_verdicts_add_runtime(v, pkg, targets[i].runtime, err)
                 : pt2_verdicts_add_target(v, pkg, targets[i].label, &targets[i].dev, err);
    if (rc == PT2_OK)
        rc = pt2_verdicts_to_json(v, &doc, err);
    pt2_verdicts_free(v);
    if (rc != PT2_OK)
        return rc;
    arr = cJSON_CreateArray();
    ok = arr != NULL;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, "compatibility"))
    {
        o = ok ? listing_verdict(e) : NULL;
        if (o == NULL || !cJSON_AddItemToArray(arr, o)) {
            cJSON_Delete(o);
            ok = 0;
        }
    }
    overall = cJSON_DetachItemFromObjectCaseSensitive(doc, "overall");
    cJSON_Delete(doc);
    if (ok && cJSON_AddItemToObject(item, "verdicts", arr)) {
        arr = NULL;
        if (overall != NULL && cJSON_AddItemToObject(item, "overall", overall))
            return PT2_OK;
    }
    cJSON_Delete(arr);
    cJSON_Delete(overall);
    return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory building a listing item");
}

/* The summary members of an opened package whose metadata is valid. */
static int listing_summary(cJSON *item, const pt2_package *pkg,
                           const struct pt2_listing_target *targets, size_t n,
                           struct pt2_error *err)
{
    char targets_text[PT2_LISTING_TARGETS_TEXT_MAX], device[LISTING_DEVICE_MAX];
    int ok;

    pt2_listing_targets(pkg, targets_text, sizeof(targets_text));
    listing_device(pkg, device, sizeof(device));
    ok = pt2_json_add_str_or_null(item, "kind", pt2_package_kind(pkg)) &&
         pt2_json_add_str_or_null(item, "device", device) &&
         pt2_json_add_str_or_null(item, "targets", targets_text) &&
         cJSON_AddNumberToObject(item, "models", (double)pt2_package_model_count(pkg)) != NULL;
    if (!ok)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory building a listing item");
    return n > 0 ? listing_verdicts(item, pkg, targets, n, err) : PT2_OK;
}

/* "size" and "mtime" of `file`: null without its stat; the mtime null too where the time
 * cannot be written. */
static cJSON *listing_size(const struct pt2_listing_file *file)
{
    return file->has_stat ? cJSON_CreateNumber((double)file->size) : cJSON_CreateNull();
}

static cJSON *listing_mtime(const struct pt2_listing_file *file)
{
    char when[32];

    return file->has_stat && listing_time(file->mtime, when, sizeof(when))
               ? cJSON_CreateString(when)
               : cJSON_CreateNull();
}

/* Replace `key` of item with v, or add it where it is missing; 0 when v is NULL (no memory). */
static int listing_put(cJSON *item, const char *key, cJSON *v)
{
    if (v == NULL)
        return 0;
    if (cJSON_GetObjectItemCaseSensitive(item, key) != NULL)
        return cJSON_ReplaceItemInObjectCaseSensitive(item, key, v) ? 1 : (cJSON_Delete(v), 0);
    return pt2_json_add_owned(item, key, v);
}

/* "name", "size", "mtime". */
static int listing_identity(cJSON *item, const struct pt2_listing_file *file)
{
    return cJSON_AddStringToObject(item, "name", file->name) != NULL &&
           listing_put(item, "size", listing_size(file)) &&
           listing_put(item, "mtime", listing_mtime(file));
}

int pt2_listing_item_stat(cJSON *item, const struct pt2_listing_file *file, struct pt2_error *err)
{
    if (!cJSON_IsObject(item) || file == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_listing_item_stat: missing argument");
    if (!listing_put(item, "size", listing_size(file)) ||
        !listing_put(item, "mtime", listing_mtime(file)))
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory building a listing item");
    return PT2_OK;
}

int pt2_listing_item(const struct pt2_listing_file *file, const pt2_package *pkg,
                     const struct pt2_error *problem, const struct pt2_listing_target *targets,
                     size_t n_targets, cJSON **out, struct pt2_error *err)
{
    const struct pt2_error *why = pkg != NULL ? pt2_package_meta_error(pkg) : problem;
    cJSON *item;
    int rc;

    if (out != NULL)
        *out = NULL;
    if (out == NULL || file == NULL || file->name == NULL || (pkg == NULL && problem == NULL) ||
        (n_targets > 0 && targets == NULL))
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_listing_item: missing argument");
    item = cJSON_CreateObject();
    if (item == NULL || !listing_identity(item, file)) {
        cJSON_Delete(item);
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory building a listing item");
    }
    /* What /v1/inspect refuses is a problem item: unopened, or its metadata invalid. */
    if (why != NULL) {
        if (!listing_merge(item, pt2_problem_json(why->code, why->message, NULL))) {
            cJSON_Delete(item);
            return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory building a listing item");
        }
        *out = item;
        return PT2_OK;
    }
    rc = listing_summary(item, pkg, targets, n_targets, err);
    if (rc != PT2_OK) {
        cJSON_Delete(item);
        return rc;
    }
    *out = item;
    return PT2_OK;
}

int pt2_listing_item_ok(const cJSON *item)
{
    const cJSON *overall = cJSON_GetObjectItemCaseSensitive(item, "overall");

    if (item == NULL || cJSON_GetObjectItemCaseSensitive(item, "type") != NULL)
        return 0;
    return pt2_verdict_from_name(pt2_json_str(overall, "verdict")) != PT2_INCOMPATIBLE;
}
