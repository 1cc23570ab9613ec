/*
 * pt2_report.c - the inspection document (JSON) built from an opened package.
 *
 * Design: the top-level names (`arch.cuda_compute_capability`,
 * `arch.cuda_gpu_description`, `arch.cpu_description`, `metadata.model`,
 * `metadata.inputs`, `metadata.outputs`, `metadata.raw`) are the seed API's
 * and are an interface: scripts and UIs read them. Everything else is detail
 * added beside them. cJSON allocation failures are tracked with a sticky flag
 * (curl's dynbuf habit) so the builders stay readable and the failure is
 * still reported once, as PT2_ERR_NOMEM. With PT2_JSON_OIP `metadata` is the
 * Open Inference Protocol's model metadata response instead (its own
 * `warnings` for tensors left out, repeated in the document's), and
 * `scheduling` is pt2_package_node_affinity's answer, not rebuilt here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_compat.h"
#include "pt2_needs.h"
#include "pt2_runtime.h"
#include "pt2_sbuf.h"
#include "pt2_desc.h"
#include "pt2_error.h"
#include "pt2_inspect.h"
#include "pt2_isa.h"
#include "pt2_jb.h"
#include "pt2_verdicts.h"
#include "pt2_zebin.h"

/* The builders' short names for pt2_jb.h: keys are string literals, arrays take jpush. */
#define jadd(b, o, key, item) PT2_JB_ADD(b, o, key, item)
#define jpush(b, a, item) PT2_JB_PUSH(b, a, item)
#define jstr(b, o, key, v, empty_null) PT2_JB_STR(b, o, key, v, empty_null)
#define jnum(b, o, key, v) PT2_JB_NUM(b, o, key, v)
#define jbool(b, o, key, v) PT2_JB_BOOL(b, o, key, v)
#define jdup(b, o, key, src) jdup_lit(b, o, "" key, src)

static void jdup_lit(struct pt2_jb *b, cJSON *obj, const char *lit, const cJSON *src)
{
    pt2_jb_add_lit(b, obj, lit, src == NULL ? cJSON_CreateNull() : cJSON_Duplicate(src, 1));
}

static int finish(struct pt2_jb *b, cJSON *doc, cJSON **out, struct pt2_error *err)
{
    if (b->failed || doc == NULL) {
        cJSON_Delete(doc);
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory building the JSON document");
    }
    *out = doc;
    return PT2_OK;
}

/* ---- arch ------------------------------------------------------------------ */

static const char *kind_name(int kind)
{
    switch (kind) {
    case PT2_KERNEL_SASS:
        return "sass";
    case PT2_KERNEL_PTX:
        return "ptx";
    case PT2_KERNEL_HSACO:
        return "hsaco";
    case PT2_KERNEL_SPIRV:
        return "spirv";
    case PT2_KERNEL_ZEBIN:
        return "zebin";
    default:
        return "unknown";
    }
}

static const char *container_name(int c)
{
    switch (c) {
    case PT2_CONT_FILE:
        return "file";
    case PT2_CONT_FATBIN:
        return "fatbin";
    case PT2_CONT_SO_FATBIN:
        return "so-fatbin";
    case PT2_CONT_SO_SYMBOL:
        return "so-symbol";
    default:
        return "unknown";
    }
}

static const char *amd_feature_name(int f)
{
    switch (f) {
    case PT2_AMD_ANY:
        return "any";
    case PT2_AMD_OFF:
        return "off";
    case PT2_AMD_ON:
        return "on";
    default:
        return "unsupported";
    }
}

/* Model directory of a kernel/host source path ("data/aotinductor/<m>/..."). */
static void source_model(const char *src, char *out, size_t len)
{
    static const char dir[] = "data/aotinductor/";
    const char *p, *slash;

    out[0] = '\0';
    if (strncmp(src, dir, sizeof(dir) - 1) != 0)
        return;
    p = src + sizeof(dir) - 1;
    slash = strchr(p, '/');
    if (slash != NULL)
        snprintf(out, len, "%.*s", (int)(slash - p), p);
}

static cJSON *kernel_json(struct pt2_jb *b, const struct pt2_kernel *k)
{
    cJSON *o = cJSON_CreateObject();
    char buf[128], model[PT2_NAME_MAX];
    int nv = k->kind == PT2_KERNEL_SASS || k->kind == PT2_KERNEL_PTX;

    if (o == NULL) {
        b->failed = 1;
        return NULL;
    }
    source_model(k->source, model, sizeof(model));
    jstr(b, o, "model", model, 1);
    jstr(b, o, "source", k->source, 0);
    jstr(b, o, "container", container_name(k->container), 0);
    jstr(b, o, "symbol", k->symbol, 1);
    jstr(b, o, "kind", kind_name(k->kind), 0);
    jstr(b, o, "target", pt2_kernel_target_name(k, buf, sizeof(buf)), 0);
    if (nv) {
        char v[2] = {k->variant, '\0'};
        jnum(b, o, "sm", k->sm);
        jstr(b, o, "compute_capability", pt2_sbuf_version(buf, sizeof(buf), k->sm / 10, k->sm % 10),
             0);
        jstr(b, o, "variant", v, 1);
        if (k->virtual_sm) {
            jstr(b, o, "virtual_arch",
                 pt2_sbuf_tag(buf, sizeof(buf), "compute_", k->virtual_sm, ""), 0);
        } else {
            jstr(b, o, "virtual_arch", NULL, 0);
        }
        if (k->kind == PT2_KERNEL_SASS) {
            if (k->abi_version)
                jnum(b, o, "abi_version", k->abi_version);
            else
                jstr(b, o, "abi_version", NULL, 0);
            jstr(b, o, "elf_type", k->elf_type == 1 ? "relocatable" : "executable", 0);
            if (k->has_code >= 0)
                jbool(b, o, "link_stub", k->has_code == 0);
        }
        if (k->toolkit) {
            jstr(b, o, "toolkit",
                 pt2_sbuf_version(buf, sizeof(buf), k->toolkit / 10, k->toolkit % 10), 0);
        } else {
            jstr(b, o, "toolkit", NULL, 0);
        }
        if (k->ptx_major || k->ptx_minor) {
            jstr(b, o, "ptx_isa", pt2_sbuf_version(buf, sizeof(buf), k->ptx_major, k->ptx_minor),
                 0);
        }
        jstr(b, o, "compression", k->compression, 1);
        jbool(b, o, "debug", k->debug);
        {
            int need = pt2_compat_kernel_min_driver(k);

            jstr(b, o, "min_driver",
                 need > 0 ? pt2_sbuf_version(buf, sizeof(buf), (unsigned)need / 1000,
                                             (unsigned)need % 1000 / 10)
                          : NULL,
                 0);
        }
        jstr(b, o, "gpu_description",
             pt2_desc_cc_text((int)k->sm / 10, (int)k->sm % 10, buf, sizeof(buf)), 0);
    } else if (k->kind == PT2_KERNEL_HSACO) {
        jstr(b, o, "gfx", k->gfx, 1);
        jstr(b, o, "target_id", k->target_id, 1);
        jstr(b, o, "xnack", amd_feature_name(k->xnack), 0);
        jstr(b, o, "sramecc", amd_feature_name(k->sramecc), 0);
        if (k->code_object_version)
            jnum(b, o, "code_object_version", k->code_object_version);
        jstr(b, o, "gpu_description", pt2_desc_gfx_text(k->gfx, buf, sizeof(buf)), 0);
    } else if (k->kind == PT2_KERNEL_ZEBIN) {
        jadd(b, o, "intel_product_family",
             k->intel_product ? cJSON_CreateNumber(k->intel_product) : cJSON_CreateNull());
        jadd(b, o, "intel_gfxcore_family",
             k->intel_gfxcore ? cJSON_CreateNumber(k->intel_gfxcore) : cJSON_CreateNull());
        jstr(b, o, "gpu_description", pt2_zebin_product_text(k->intel_product), 0);
    }
    return o;
}

static const char *host_format_name(int f)
{
    switch (f) {
    case PT2_HOST_ELF:
        return "elf";
    case PT2_HOST_MACHO:
        return "macho";
    case PT2_HOST_MACHO_FAT:
        return "macho-universal";
    case PT2_HOST_PE:
        return "pe";
    default:
        return "unknown";
    }
}

static cJSON *host_json(struct pt2_jb *b, const struct pt2_host *h)
{
    cJSON *o = cJSON_CreateObject();
    char model[PT2_NAME_MAX];

    if (o == NULL) {
        b->failed = 1;
        return NULL;
    }
    source_model(h->source, model, sizeof(model));
    jstr(b, o, "model", model, 1);
    jstr(b, o, "source", h->source, 0);
    jstr(b, o, "format", host_format_name(h->format), 0);
    jnum(b, o, "bits", h->bits);
    jstr(b, o, "endianness", h->big_endian ? "big" : "little", 0);
    jstr(b, o, "machine", h->machine, 0);
    jnum(b, o, "e_machine", h->e_machine);
    jstr(b, o, "description", h->description, 0);
    jnum(b, o, "size", (double)h->size);
    return o;
}

static cJSON *isa_json(struct pt2_jb *b, const struct pt2_cpu_isa *isa)
{
    cJSON *o, *flags, *req;
    const char *feat[PT2_ISA_FEATURES_MAX];
    size_t n = 0;

    if (isa->source[0] == '\0')
        return cJSON_CreateNull();
    o = cJSON_CreateObject();
    if (o == NULL)
        return NULL;
    jstr(b, o, "isa", isa->isa, 1);
    jstr(b, o, "display", pt2_isa_display_name(isa->isa), 1);
    jstr(b, o, "source", isa->source, 0);
    jstr(b, o, "march", isa->march, 1);
    flags = jadd(b, o, "flags", cJSON_CreateArray());
    for (size_t i = 0; flags != NULL && i < isa->nflags; i++)
        jpush(b, flags, cJSON_CreateString(isa->flags[i]));
    req = jadd(b, o, "required_features", cJSON_CreateArray());
    if (pt2_isa_required_features(isa, feat, PT2_ISA_FEATURES_MAX, &n) != PT2_OK)
        n = 0;
    for (size_t i = 0; req != NULL && i < n; i++)
        jpush(b, req, cJSON_CreateString(feat[i]));
    jbool(b, o, "native", pt2_isa_is_native(isa));
    return o;
}

/* Which kernels a target list collects. */
enum target_set { TARGETS_CUDA, TARGETS_AMD, TARGETS_ANY };

#define TARGETS_LIST_MAX 1024 /* distinct targets listed per array */

struct tname {
    char name[64];
    size_t first; /* index of the first kernel with this target */
};

static int tname_by_name(const void *a, const void *b)
{
    const struct tname *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c != 0 ? c : (x->first < y->first ? -1 : x->first > y->first);
}

static int tname_by_first(const void *a, const void *b)
{
    const struct tname *x = a, *y = b;
    return x->first < y->first ? -1 : x->first > y->first;
}

static int in_set(const struct pt2_kernel *k, enum target_set set)
{
    if (k->kind == PT2_KERNEL_SASS && k->has_code == 0)
        return 0; /* device-link stubs hold no kernels */
    if (set == TARGETS_CUDA)
        return k->kind == PT2_KERNEL_SASS || k->kind == PT2_KERNEL_PTX;
    if (set == TARGETS_AMD)
        return k->kind == PT2_KERNEL_HSACO;
    return 1;
}

/*
 * Append the distinct targets of the kernels (optionally only those under
 * `dir`) to `arr`, in first-seen order. Sorting keeps this O(n log n): a
 * package can list tens of thousands of kernels.
 */
static void add_targets(struct pt2_jb *b, cJSON *arr, const struct pt2_kernel_list *ks,
                        const char *dir, enum target_set set)
{
    struct tname *t;
    size_t n = 0, u = 0, dlen = dir != NULL ? strlen(dir) : 0;

    if (arr == NULL || ks->n == 0)
        return;
    t = malloc(ks->n * sizeof(*t));
    if (t == NULL) {
        b->failed = 1;
        return;
    }
    for (size_t i = 0; i < ks->n; i++) {
        if (!in_set(&ks->v[i], set) || (dir != NULL && strncmp(ks->v[i].source, dir, dlen)))
            continue;
        pt2_kernel_target_name(&ks->v[i], t[n].name, sizeof(t[n].name));
        t[n++].first = i;
    }
    qsort(t, n, sizeof(*t), tname_by_name);
    for (size_t i = 0; i < n; i++)
        if (u == 0 || strcmp(t[u - 1].name, t[i].name) != 0)
            t[u++] = t[i];
    qsort(t, u, sizeof(*t), tname_by_first);
    for (size_t i = 0; i < u && i < TARGETS_LIST_MAX; i++)
        jpush(b, arr, cJSON_CreateString(t[i].name));
    free(t);
}

/* "90" / "100" / "8.6" from AOTI_COMPUTE_CAPABILITY into major/minor. */
static int meta_cc(const char *v, int *major, int *minor)
{
    const char *end;
    uint64_t mj, mn, n;

    if (v == NULL)
        return 0;
    if (strchr(v, '.') != NULL) {
        if (pt2_num_u64_prefix(v, 10, &mj, &end) != PT2_OK || *end != '.' ||
            pt2_num_u64(end + 1, 10, &mn) != PT2_OK || mj < 1 || mj > 99 || mn > 9)
            return 0;
        *major = (int)mj;
        *minor = (int)mn;
        return 1;
    }
    if (pt2_num_u64(v, 10, &n) != PT2_OK || n < 10 || n > 999)
        return 0;
    *major = (int)(n / 10);
    *minor = (int)(n % 10);
    return 1;
}

/* The CPU line names the libraries the loader takes (one per model), not every library. */
static const char *loaded_cpu_text(const pt2_package *pkg, const struct pt2_cpu_isa *isa, char *buf,
                                   size_t len)
{
    const struct pt2_host_list *hs = pt2_package_hosts(pkg);
    struct pt2_host_list view = {0};
    size_t h;

    view.v = calloc(pt2_package_model_count(pkg) + 1, sizeof(*view.v));
    if (view.v == NULL)
        return pt2_desc_cpu_text(hs, isa, buf, len);
    for (size_t m = 0; m < pt2_package_model_count(pkg); m++)
        if (pt2_package_model_library(pkg, m, &h))
            view.v[view.n++] = hs->v[h]; /* a shallow copy: needs stay the package's */
    pt2_desc_cpu_text(view.n > 0 ? &view : hs, isa, buf, len);
    free(view.v);
    return buf;
}

static int build_arch(const pt2_package *pkg, cJSON **out, struct pt2_error *err)
{
    struct pt2_jb b = {0};
    const struct pt2_kernel_list *ks = pt2_package_kernels(pkg);
    const struct pt2_host_list *hs = pt2_package_hosts(pkg);
    cJSON *o = cJSON_CreateObject(), *arr, *cuda, *amd;
    const struct pt2_kernel *first = NULL;
    const struct pt2_cpu_isa *isa = NULL;
    char buf[256];
    int major = 0, minor = 0, have_cc = 0;
    const char *mcc = NULL;
    const cJSON *aoti;

    for (size_t i = 0; i < ks->n && first == NULL; i++)
        if (ks->v[i].kind == PT2_KERNEL_SASS && ks->v[i].has_code != 0)
            first = &ks->v[i];
    if (pt2_package_model_count(pkg) > 0) {
        isa = pt2_package_model_isa(pkg, 0);
        aoti = pt2_package_model_aoti(pkg, 0, NULL);
        if (aoti != NULL) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(aoti, "AOTI_COMPUTE_CAPABILITY");
            mcc = cJSON_IsString(v) ? v->valuestring : NULL;
        }
    }
    if (first != NULL) {
        major = (int)first->sm / 10;
        minor = (int)first->sm % 10;
        have_cc = 1;
    } else {
        have_cc = meta_cc(mcc, &major, &minor);
    }
    if (have_cc) {
        snprintf(buf, sizeof(buf), "%d.%d", major, minor);
        jstr(&b, o, "cuda_compute_capability", buf, 0);
        jstr(&b, o, "cuda_gpu_description", pt2_desc_cc_text(major, minor, buf, sizeof(buf)), 0);
    } else {
        jstr(&b, o, "cuda_compute_capability", NULL, 0);
        jstr(&b, o, "cuda_gpu_description", NULL, 0);
    }
    if (hs->n > 0)
        jstr(&b, o, "cpu_description", loaded_cpu_text(pkg, isa, buf, sizeof(buf)), 0);
    else
        jstr(&b, o, "cpu_description", NULL, 0);
    jstr(&b, o, "device_key", pt2_package_device_key(pkg, 0), 0);
    jstr(&b, o, "compute_capability_metadata", mcc, 1);

    cuda = jadd(&b, o, "cuda_targets", cJSON_CreateArray());
    amd = jadd(&b, o, "amd_targets", cJSON_CreateArray());
    add_targets(&b, cuda, ks, NULL, TARGETS_CUDA);
    add_targets(&b, amd, ks, NULL, TARGETS_AMD);
    {
        /* The one-line form the listing shows ("sm_120+PTX"), so both read the same. */
        char targets[PT2_LISTING_TARGETS_TEXT_MAX];

        jstr(&b, o, "targets", pt2_listing_targets(pkg, targets, sizeof(targets)), 1);
    }
    /* Every record counts in the targets above; the list itself stops at a cap, so a
     * package of 65,536 one-kernel entries is not a 25 MB answer held in memory whole. */
    arr = jadd(&b, o, "kernels", cJSON_CreateArray());
    for (size_t i = 0; arr != NULL && i < ks->n && i < PT2_REPORT_KERNELS_MAX; i++)
        jpush(&b, arr, kernel_json(&b, &ks->v[i]));
    jnum(&b, o, "kernels_total", (double)ks->n);
    arr = jadd(&b, o, "hosts", cJSON_CreateArray());
    for (size_t i = 0; arr != NULL && i < hs->n; i++)
        jpush(&b, arr, host_json(&b, &hs->v[i]));
    if (isa != NULL)
        jadd(&b, o, "cpu_isa", isa_json(&b, isa));
    else
        jadd(&b, o, "cpu_isa", cJSON_CreateNull());
    return finish(&b, o, out, err);
}

/* {"where", "entries", "bytes", "declared_bytes"} (pt2_weights.h); null bytes = not known. */
static cJSON *weights_json(struct pt2_jb *b, const struct pt2_weights *w)
{
    cJSON *o = cJSON_CreateObject();

    if (o == NULL) {
        b->failed = 1;
        return NULL;
    }
    jstr(b, o, "where", pt2_weights_where_name(w->where), 0);
    jnum(b, o, "entries", (double)w->entries);
    jadd(b, o, "bytes", w->bytes >= 0 ? cJSON_CreateNumber((double)w->bytes) : cJSON_CreateNull());
    jadd(b, o, "declared_bytes",
         w->declared >= 0 ? cJSON_CreateNumber((double)w->declared) : cJSON_CreateNull());
    jnum(b, o, "missing", (double)w->missing);
    return o;
}

/* Model m's host libraries in zip order, each with the CPU features its model was built for. */
static cJSON *model_libraries_json(struct pt2_jb *b, const pt2_package *pkg, size_t m)
{
    const struct pt2_host_list *hs = pt2_package_hosts(pkg);
    const struct pt2_cpu_isa *isa = pt2_package_model_isa(pkg, m);
    const char *feat[PT2_ISA_FEATURES_MAX];
    size_t nf = 0;
    cJSON *arr = cJSON_CreateArray();

    if (arr == NULL) {
        b->failed = 1;
        return NULL;
    }
    if (pt2_isa_required_features(isa, feat, PT2_ISA_FEATURES_MAX, &nf) != PT2_OK)
        nf = 0;
    for (size_t h = 0; h < hs->n; h++) {
        cJSON *lib, *cf;

        if (!pt2_package_host_in_model(pkg, m, h))
            continue;
        lib = jpush(b, arr, pt2_runtime_library_json(&hs->v[h], pt2_runtime_host_loaded(hs, h)));
        cf = lib != NULL ? jadd(b, lib, "cpu_features", cJSON_CreateArray()) : NULL;
        for (size_t i = 0; cf != NULL && i < nf; i++)
            jpush(b, cf, cJSON_CreateString(feat[i]));
    }
    return arr;
}

/* build, cmake_target, libraries, weights, custom_ops, proxy_nodes of model m. */
static void model_build_json(struct pt2_jb *b, cJSON *o, const pt2_package *pkg, size_t m)
{
    size_t nodes = 0, nops = pt2_package_model_custom_ops(pkg, m, 0, NULL, &nodes);
    cJSON *ops;

    jstr(b, o, "build", pt2_package_model_cpp_only(pkg, m) ? "cpp-only" : "compiled", 0);
    jstr(b, o, "cmake_target", pt2_package_model_cmake_target(pkg, m), 1);
    jadd(b, o, "libraries", model_libraries_json(b, pkg, m));
    jadd(b, o, "weights", weights_json(b, pt2_package_model_weights(pkg, m)));
    ops = jadd(b, o, "custom_ops", cJSON_CreateArray());
    for (size_t k = 0; ops != NULL && k < nops; k++) {
        const char *op = NULL;

        pt2_package_model_custom_ops(pkg, m, k, &op, NULL);
        jpush(b, ops, cJSON_CreateString(op));
    }
    jnum(b, o, "proxy_nodes", (double)nodes);
    jadd(b, o, "metal_shader_libraries",
         pt2_package_model_shaders(pkg, m) >= 0
             ? cJSON_CreateNumber((double)pt2_package_model_shaders(pkg, m))
             : cJSON_CreateNull());
}

/* package.executorch [{name, size}] or package.pickles [{entry, kind, size}]. */
static cJSON *extras_json(struct pt2_jb *b, const pt2_package *pkg, int pickles)
{
    const char *entry = NULL, *kind = NULL;
    uint64_t size = 0;
    size_t n = pt2_package_extra(pkg, pickles, 0, &entry, &kind, &size);
    cJSON *arr = cJSON_CreateArray();

    if (arr == NULL) {
        b->failed = 1;
        return NULL;
    }
    for (size_t k = 0; k < n; k++) {
        cJSON *o;

        pt2_package_extra(pkg, pickles, k, &entry, &kind, &size);
        if ((o = jpush(b, arr, cJSON_CreateObject())) == NULL)
            break;
        pt2_jb_str_lit(b, o, pickles ? "entry" : "name", entry, 0); /* literals both */
        if (pickles)
            jstr(b, o, "kind", kind, 0);
        jnum(b, o, "size", (double)size);
    }
    return arr;
}

/* ---- metadata ------------------------------------------------------------ */

/* A tensor list in the view `flags` asks for; in the OIP view a spec the protocol cannot
 * describe is left out and `warn` (when not NULL) says so, naming it as `what`. */
static void tensors(struct pt2_jb *b, cJSON *o, const char *key, const struct pt2_tensor_list *l,
                    unsigned flags, const char *what, cJSON *warn)
{
    cJSON *arr = NULL;
    struct pt2_error e = {0};
    int rc;

    if (l == NULL) {
        pt2_jb_add_copy(b, o, key, cJSON_CreateArray());
        return;
    }
    rc = (flags & PT2_JSON_OIP) ? pt2_tensor_list_oip_json(l, what, &arr, warn, &e)
                                : pt2_tensor_list_to_json(l, flags, &arr, &e);
    if (rc != PT2_OK) {
        b->failed = 1;
        return;
    }
    pt2_jb_add_copy(b, o, key, arr);
}

/* A model's size (struct pt2_constants) with the entry it came from; null when unknown. */
static cJSON *size_json(struct pt2_jb *b, const struct pt2_constants *c, const char *entry)
{
    cJSON *o, *arr;
    size_t i;

    if (c == NULL)
        return cJSON_CreateNull();
    o = cJSON_CreateObject();
    if (o == NULL) {
        b->failed = 1;
        return NULL;
    }
    jstr(b, o, "source", entry, 1);
    jnum(b, o, "constants", (double)c->count);
    if (c->declared >= 0)
        jnum(b, o, "declared", (double)c->declared);
    else
        jadd(b, o, "declared", cJSON_CreateNull());
    jnum(b, o, "bytes", (double)c->bytes);
    jnum(b, o, "elements", (double)c->elements);
    jnum(b, o, "parameters", (double)c->parameters);
    jnum(b, o, "buffers", (double)c->buffers);
    jnum(b, o, "tensor_constants", (double)c->tensor_constants);
    jnum(b, o, "folded", (double)c->folded);
    jnum(b, o, "missing_size", (double)c->missing_size);
    jnum(b, o, "missing_shape", (double)c->missing_shape);
    arr = jadd(b, o, "by_dtype", cJSON_CreateArray());
    for (i = 0; arr != NULL && i < c->ndtypes; i++) {
        cJSON *d = jpush(b, arr, cJSON_CreateObject());
        if (d == NULL)
            break;
        jstr(b, d, "dtype", c->dtypes[i].dtype, 1);
        jnum(b, d, "count", (double)c->dtypes[i].count);
        jnum(b, d, "bytes", (double)c->dtypes[i].bytes);
        jnum(b, d, "elements", (double)c->dtypes[i].elements);
    }
    return o;
}

/*
 * The platform of a .pt2 in the protocol's "<project>_<format>" spelling
 * (pytorch_torchscript, onnx_onnxv1, tensorrt_plan). The protocol names none
 * for AOTInductor, and "pytorch_libtorch" is Triton's name for TorchScript
 * run by libtorch, which a .pt2 is not: compiled models run through
 * AOTInductor's loader ("pytorch_aoti"), a package of exported programs only
 * through torch.export ("pytorch_export").
 */
static const char *oip_platform(const pt2_package *pkg)
{
    const char *kind = pt2_package_kind(pkg); /* NULL: neither models nor programs */

    return kind != NULL && strstr(kind, "aoti") != NULL ? "pytorch_aoti" : "pytorch_export";
}

/* The model's name: the user metadata's, else the package's file name without ".pt2". */
static void oip_name(const pt2_package *pkg, const struct pt2_meta_user *u, char *buf, size_t len)
{
    const char *name = pt2_package_name(pkg);
    size_t n = name != NULL ? strlen(name) : 0;

    if (u != NULL && u->model[0] != '\0') {
        snprintf(buf, len, "%s", u->model);
        return;
    }
    if (n > 4 && strcmp(name + n - 4, ".pt2") == 0)
        n -= 4;
    if (n == 0)
        snprintf(buf, len, "model");
    else
        snprintf(buf, len, "%.*s", (int)n, name);
}

/*
 * PT2_JSON_OIP: the protocol's $metadata_model_response, {"name", "versions"
 * (only when the user metadata records a "version"), "platform", "inputs",
 * "outputs"}, plus "warnings" when a tensor had to be left out.
 */
static int build_oip_metadata(const pt2_package *pkg, cJSON **out, struct pt2_error *err)
{
    struct pt2_jb b = {0};
    const struct pt2_meta_user *u = pt2_package_user_meta(pkg, NULL);
    const cJSON *ver = u != NULL ? cJSON_GetObjectItemCaseSensitive(u->raw, "version") : NULL;
    cJSON *o = cJSON_CreateObject(), *warn = cJSON_CreateArray(), *vers;
    char name[PT2_NAME_MAX], vtext[64] = "";
    int64_t vnum;

    oip_name(pkg, u, name, sizeof(name));
    jstr(&b, o, "name", name, 0);
    if (cJSON_IsString(ver) && ver->valuestring[0] != '\0')
        snprintf(vtext, sizeof(vtext), "%.63s", ver->valuestring);
    else if (pt2_tensor_json_int(ver, &vnum))
        snprintf(vtext, sizeof(vtext), "%lld", (long long)vnum);
    if (vtext[0] != '\0' && (vers = jadd(&b, o, "versions", cJSON_CreateArray())) != NULL)
        jpush(&b, vers, cJSON_CreateString(vtext));
    jstr(&b, o, "platform", oip_platform(pkg), 0);
    tensors(&b, o, "inputs", pt2_package_inputs(pkg), PT2_JSON_OIP, "input", warn);
    tensors(&b, o, "outputs", pt2_package_outputs(pkg), PT2_JSON_OIP, "output", warn);
    if (warn == NULL) {
        b.failed = 1;
    } else if (warn->child != NULL) {
        jadd(&b, o, "warnings", warn);
        warn = NULL;
    }
    cJSON_Delete(warn);
    return finish(&b, o, out, err);
}

static int build_metadata(const pt2_package *pkg, unsigned flags, cJSON **out,
                          struct pt2_error *err)
{
    struct pt2_jb b = {0};
    const struct pt2_error *merr = pt2_package_meta_error(pkg);
    const char *uentry = NULL;
    const struct pt2_meta_user *u;
    cJSON *o, *eps;
    size_t nep = pt2_package_eprog_count(pkg);

    if (merr != NULL)
        return pt2_error_copy(err, merr);
    if (flags & PT2_JSON_OIP)
        return build_oip_metadata(pkg, out, err);
    u = pt2_package_user_meta(pkg, &uentry);
    o = cJSON_CreateObject();
    jstr(&b, o, "model", u != NULL ? u->model : NULL, 1);
    tensors(&b, o, "inputs", pt2_package_inputs(pkg), flags, NULL, NULL);
    tensors(&b, o, "outputs", pt2_package_outputs(pkg), flags, NULL, NULL);
    jdup(&b, o, "raw", u != NULL ? u->raw : NULL);
    /* The entry the specs came from: model_metadata.json, a program, or a wrapper. */
    jstr(&b, o, "source", pt2_package_specs_source(pkg), 0);
    jdup(&b, o, "aoti",
         pt2_package_model_count(pkg) > 0 ? pt2_package_model_aoti(pkg, 0, NULL) : NULL);
    eps = jadd(&b, o, "exported_programs", cJSON_CreateArray());
    for (size_t i = 0; eps != NULL && i < nep; i++) {
        const char *entry = NULL;
        const struct pt2_tensor_list *in = NULL, *outs = NULL;
        const char *name = pt2_package_eprog(pkg, i, &entry, &in, &outs);
        cJSON *ep = jpush(&b, eps, cJSON_CreateObject());
        if (ep == NULL)
            break;
        jstr(&b, ep, "name", name, 0);
        jstr(&b, ep, "source", entry, 0);
        tensors(&b, ep, "inputs", in, flags, NULL, NULL);
        tensors(&b, ep, "outputs", outs, flags, NULL, NULL);
        jadd(&b, ep, "size", size_json(&b, pt2_package_eprog_constants(pkg, i), entry));
        jadd(&b, ep, "weights", weights_json(&b, pt2_package_eprog_weights(pkg, i)));
    }
    return finish(&b, o, out, err);
}

/* ---- package and models ------------------------------------------------------ */

/* The container generation; a legacy torch.export.save archive says so by name. */
static const char *layout_name(const pt2_package *pkg, const struct pt2_zip_layout *l)
{
    const char *entry = NULL;

    if (l->generation == 2)
        return "torch>=2.8";
    if (pt2_package_model_count(pkg) == 0 && pt2_package_eprog_count(pkg) > 0 &&
        pt2_package_eprog(pkg, 0, &entry, NULL, NULL) != NULL &&
        strcmp(entry, "serialized_exported_program.json") == 0)
        return "torch.export.save";
    return "torch<=2.7";
}

static cJSON *package_json(struct pt2_jb *b, const pt2_package *pkg)
{
    const struct pt2_zip_layout *l = pt2_package_layout(pkg);
    cJSON *o = cJSON_CreateObject();

    if (o == NULL) {
        b->failed = 1;
        return NULL;
    }
    jstr(b, o, "name", pt2_package_name(pkg), 0);
    jstr(b, o, "kind", pt2_package_kind(pkg), 0);
    jnum(b, o, "size", (double)l->file_size);
    jstr(b, o, "archive_format", l->archive_format, 1);
    jstr(b, o, "archive_version", l->archive_version, 1);
    jstr(b, o, "data_version", l->data_version, 1);
    jstr(b, o, "version", l->legacy_version, 1);
    jstr(b, o, "byteorder", l->byteorder, 1);
    jstr(b, o, "prefix", l->prefix, 1);
    jstr(b, o, "layout", layout_name(pkg, l), 0);
    jbool(b, o, "zip64", l->zip64);
    jnum(b, o, "entries", (double)l->entries);
    jstr(b, o, "model", pt2_package_selected_model(pkg), 0);
    jadd(b, o, "executorch", extras_json(b, pkg, 0));
    jadd(b, o, "pickles", extras_json(b, pkg, 1));
    if (pt2_package_source(pkg) != NULL)
        jadd(b, o, "source", cJSON_Duplicate(pt2_package_source(pkg), 1));
    return o;
}

/* The models; in the OIP view a tensor left out of a model's specs is said in `warn`. */
static cJSON *models_json(struct pt2_jb *b, const pt2_package *pkg, unsigned flags, cJSON *warn)
{
    cJSON *arr = cJSON_CreateArray();
    const struct pt2_kernel_list *ks = pt2_package_kernels(pkg);

    if (arr == NULL) {
        b->failed = 1;
        return NULL;
    }
    for (size_t m = 0; m < pt2_package_model_count(pkg); m++) {
        const char *entry = NULL;
        const cJSON *aoti = pt2_package_model_aoti(pkg, m, &entry);
        const char *name = pt2_package_model_name(pkg, m);
        cJSON *o = jpush(b, arr, cJSON_CreateObject()), *targets;
        char dir[PT2_PATH_MAX];
        size_t nk = 0;

        if (o == NULL)
            break;
        snprintf(dir, sizeof(dir), "data/aotinductor/%s/", name);
        jstr(b, o, "name", name, 0);
        jstr(b, o, "directory", dir, 0);
        jnum(b, o, "files", (double)pt2_package_model_files(pkg, m));
        jstr(b, o, "device_key", pt2_package_device_key(pkg, m), 0);
        jstr(b, o, "platform", pt2_verdicts_platform(pkg, m), 0);
        jstr(b, o, "aoti_metadata_source", entry, 1);
        jdup(b, o, "aoti_metadata", aoti);
        targets = jadd(b, o, "targets", cJSON_CreateArray());
        for (size_t i = 0; i < ks->n; i++)
            if (strncmp(ks->v[i].source, dir, strlen(dir)) == 0)
                nk++;
        add_targets(b, targets, ks, dir, TARGETS_ANY);
        jnum(b, o, "kernels", (double)nk);
        jadd(b, o, "cpu_isa", isa_json(b, pt2_package_model_isa(pkg, m)));
        {
            const struct pt2_tensor_list *in = NULL, *outs = NULL;
            const char *src = pt2_package_model_specs(pkg, m, &in, &outs), *cs = NULL;
            const struct pt2_constants *c = pt2_package_model_constants(pkg, m, &cs);

            char in_what[PT2_NAME_MAX + 32], out_what[PT2_NAME_MAX + 32];

            snprintf(in_what, sizeof(in_what), "model '%.100s' input", name);
            snprintf(out_what, sizeof(out_what), "model '%.100s' output", name);
            jstr(b, o, "specs_source", src, 0);
            tensors(b, o, "inputs", in, flags, in_what, warn);
            tensors(b, o, "outputs", outs, flags, out_what, warn);
            jadd(b, o, "size", size_json(b, c, cs));
        }
        model_build_json(b, o, pkg, m);
    }
    return arr;
}

/* ---- public entry points ---------------------------------------------------- */

int pt2_package_arch_json(const pt2_package *pkg, unsigned flags, cJSON **out,
                          struct pt2_error *err)
{
    (void)flags;
    *out = NULL;
    return build_arch(pkg, out, err);
}

int pt2_package_metadata_json(const pt2_package *pkg, unsigned flags, cJSON **out,
                              struct pt2_error *err)
{
    *out = NULL;
    return build_metadata(pkg, flags, out, err);
}

/*
 * {"node_affinity": {...}}: where Kubernetes may schedule the package
 * (pt2_package_node_affinity). A package whose selector would be too large
 * to write gets null and a warning, not a failed inspection.
 */
static int scheduling_json(const pt2_package *pkg, cJSON **out, char *warning, size_t len,
                           struct pt2_error *err)
{
    struct pt2_error aerr = {0};
    cJSON *aff = NULL, *o;
    int rc = pt2_package_node_affinity(pkg, &aff, NULL, &aerr);

    *out = NULL;
    warning[0] = '\0';
    if (rc == PT2_ERR_TOO_LARGE)
        snprintf(warning, len, "scheduling.node_affinity: %s", aerr.message);
    else if (rc != PT2_OK)
        return pt2_error_copy(err, &aerr);
    o = cJSON_CreateObject();
    if (o == NULL) {
        cJSON_Delete(aff);
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory building the JSON document");
    }
    if (!pt2_json_add_owned(o, "node_affinity", aff != NULL ? aff : cJSON_CreateNull())) {
        cJSON_Delete(o);
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory building the JSON document");
    }
    *out = o;
    return PT2_OK;
}

/* A library whose needs were read only in part says so: its floors may be too low. */
static void runtime_warnings(struct pt2_jb *b, const pt2_package *pkg, cJSON *warn)
{
    const struct pt2_host_list *hosts = pt2_package_hosts(pkg);

    for (size_t i = 0; warn != NULL && hosts != NULL && i < hosts->n; i++) {
        const struct pt2_needs *n = hosts->v[i].needs;
        char msg[PT2_ERROR_MSG_MAX + 64];

        if (n == NULL || n->partial[0] == '\0')
            continue;
        snprintf(msg, sizeof(msg), "runtime needs of %.200s read in part: %.300s",
                 hosts->v[i].source, n->partial);
        jpush(b, warn, cJSON_CreateString(msg));
    }
}

int pt2_package_to_json(const pt2_package *pkg, unsigned flags, cJSON **out, struct pt2_error *err)
{
    struct pt2_jb b = {0};
    cJSON *doc = NULL, *arch = NULL, *meta = NULL, *sched = NULL, *warn;
    const cJSON *item;
    char sched_warning[PT2_ERROR_MSG_MAX + 32];
    int rc;

    *out = NULL;
    sched_warning[0] = '\0';
    rc = build_arch(pkg, &arch, err);
    if (rc == PT2_OK)
        rc = build_metadata(pkg, flags, &meta, err);
    /* The affinity is computed only when asked for: it is the document's largest part. */
    if (rc == PT2_OK && (flags & PT2_JSON_AFFINITY))
        rc = scheduling_json(pkg, &sched, sched_warning, sizeof(sched_warning), err);
    if (rc != PT2_OK) {
        cJSON_Delete(arch);
        cJSON_Delete(meta);
        return rc;
    }
    doc = cJSON_CreateObject();
    warn = cJSON_CreateArray();
    for (size_t i = 0; warn != NULL && i < pt2_package_warning_count(pkg); i++)
        jpush(&b, warn, cJSON_CreateString(pt2_package_warning(pkg, i)));
    /* The OIP view's own warnings (tensors it left out) belong to the whole answer too. */
    cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(meta, "warnings"))
        jpush(&b, warn, cJSON_CreateString(item->valuestring));
    jadd(&b, doc, "arch", arch);
    jadd(&b, doc, "metadata", meta);
    jadd(&b, doc, "package", package_json(&b, pkg));
    jadd(&b, doc, "models", models_json(&b, pkg, flags, warn));
    if (flags & PT2_JSON_AFFINITY)
        jadd(&b, doc, "scheduling", sched);
    jadd(&b, doc, "runtime", pt2_runtime_needs_json(pkg));
    runtime_warnings(&b, pkg, warn);
    if (warn != NULL && sched_warning[0] != '\0')
        jpush(&b, warn, cJSON_CreateString(sched_warning));
    if (warn != NULL && pt2_package_kernels(pkg)->n > PT2_REPORT_KERNELS_MAX) {
        char msg[160];

        snprintf(msg, sizeof(msg),
                 "arch.kernels lists the first %u of the package's %zu kernel records "
                 "(arch.kernels_total); the targets count them all",
                 PT2_REPORT_KERNELS_MAX, pt2_package_kernels(pkg)->n);
        jpush(&b, warn, cJSON_CreateString(msg));
    }
    jadd(&b, doc, "warnings", warn);
    jnum(&b, doc, "bytes_read", (double)pt2_package_bytes_read(pkg));
    return finish(&b, doc, out, err);
}
