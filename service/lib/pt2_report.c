/*
 * pt2_report.c - the inspection document (JSON) built from an opened package.
 *
 * Design: the top-level names (`arch.cuda_compute_capability`,
 * `arch.cuda_gpu_description`, `arch.cpu_description`, `metadata.model`,
 * `metadata.inputs`, `metadata.outputs`, `metadata.raw`) are the seed API's
 * and are an interface: scripts and UIs read them. Everything else is detail
 * added beside them. Each part is written once, in document order, to a
 * writer (pt2_jw.h) that builds the cJSON tree (pt2_package_to_json: the CLI
 * renders from it) or prints its bytes without building it
 * (pt2_package_print_json: the daemon's answer); the writer's failures are
 * sticky (curl's dynbuf habit) so the writers stay readable and a failure is
 * still reported once, as PT2_ERR_NOMEM. The warnings, written last but
 * found all along, gather in a side list. With PT2_JSON_OIP `metadata` is the
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
#include "pt2_jw.h"
#include "pt2_verdicts.h"
#include "pt2_zebin.h"

/* The writers' short names for pt2_jw.h: keys are string literals. */
#define wstr(w, key, v, empty_null) PT2_JW_STR(w, key, v, empty_null)
#define wnum(w, key, v) PT2_JW_NUM(w, key, v)
#define wbool(w, key, v) PT2_JW_BOOL(w, key, v)
#define wnull(w, key) PT2_JW_NULL(w, key)
#define wkey(w, key) PT2_JW_KEY(w, key)

/* Append msg to the document's warnings (a side list: they are written last). */
static void warn_add(struct pt2_jw *w, cJSON *warn, const char *msg)
{
    if (warn != NULL && !pt2_json_add_owned(warn, NULL, cJSON_CreateString(msg)))
        w->failed = 1;
}

/* A number, or null when it is not `present`. */
static void number_or_null(struct pt2_jw *w, int present, double v)
{
    if (present)
        pt2_jw_number(w, v);
    else
        pt2_jw_null(w);
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
    if (slash != NULL) { /* "%.*s", without printf: once per kernel and library */
        size_t n = (size_t)(slash - p) < len - 1 ? (size_t)(slash - p) : len - 1;

        memcpy(out, p, n);
        out[n] = '\0';
    }
}

static void kernel_write(struct pt2_jw *w, const struct pt2_kernel *k)
{
    char buf[128], model[PT2_NAME_MAX];
    int nv = k->kind == PT2_KERNEL_SASS || k->kind == PT2_KERNEL_PTX;

    pt2_jw_obj(w);
    source_model(k->source, model, sizeof(model));
    wstr(w, "model", model, 1);
    wstr(w, "source", k->source, 0);
    wstr(w, "container", container_name(k->container), 0);
    wstr(w, "symbol", k->symbol, 1);
    wstr(w, "kind", kind_name(k->kind), 0);
    wstr(w, "target", pt2_kernel_target_name(k, buf, sizeof(buf)), 0);
    if (nv) {
        char v[2] = {k->variant, '\0'};
        wnum(w, "sm", k->sm);
        wstr(w, "compute_capability", pt2_sbuf_version(buf, sizeof(buf), k->sm / 10, k->sm % 10),
             0);
        wstr(w, "variant", v, 1);
        wstr(w, "virtual_arch",
             k->virtual_sm ? pt2_sbuf_tag(buf, sizeof(buf), "compute_", k->virtual_sm, "") : NULL,
             0);
        if (k->kind == PT2_KERNEL_SASS) {
            wkey(w, "abi_version");
            number_or_null(w, k->abi_version != 0, k->abi_version);
            wstr(w, "elf_type", k->elf_type == 1 ? "relocatable" : "executable", 0);
            if (k->has_code >= 0)
                wbool(w, "link_stub", k->has_code == 0);
        }
        wstr(w, "toolkit",
             k->toolkit ? pt2_sbuf_version(buf, sizeof(buf), k->toolkit / 10, k->toolkit % 10)
                        : NULL,
             0);
        if (k->ptx_major || k->ptx_minor) {
            wstr(w, "ptx_isa", pt2_sbuf_version(buf, sizeof(buf), k->ptx_major, k->ptx_minor), 0);
        }
        wstr(w, "compression", k->compression, 1);
        wbool(w, "debug", k->debug);
        {
            int need = pt2_compat_kernel_min_driver(k);

            wstr(w, "min_driver",
                 need > 0 ? pt2_sbuf_version(buf, sizeof(buf), (unsigned)need / 1000,
                                             (unsigned)need % 1000 / 10)
                          : NULL,
                 0);
        }
        wstr(w, "gpu_description",
             pt2_desc_cc_text((int)k->sm / 10, (int)k->sm % 10, buf, sizeof(buf)), 0);
    } else if (k->kind == PT2_KERNEL_HSACO) {
        wstr(w, "gfx", k->gfx, 1);
        wstr(w, "target_id", k->target_id, 1);
        wstr(w, "xnack", amd_feature_name(k->xnack), 0);
        wstr(w, "sramecc", amd_feature_name(k->sramecc), 0);
        if (k->code_object_version)
            wnum(w, "code_object_version", k->code_object_version);
        wstr(w, "gpu_description", pt2_desc_gfx_text(k->gfx, buf, sizeof(buf)), 0);
    } else if (k->kind == PT2_KERNEL_ZEBIN) {
        wkey(w, "intel_product_family");
        number_or_null(w, k->intel_product != 0, k->intel_product);
        wkey(w, "intel_gfxcore_family");
        number_or_null(w, k->intel_gfxcore != 0, k->intel_gfxcore);
        wstr(w, "gpu_description", pt2_zebin_product_text(k->intel_product), 0);
    }
    pt2_jw_end(w);
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

static void host_write(struct pt2_jw *w, const struct pt2_host *h)
{
    char model[PT2_NAME_MAX];

    pt2_jw_obj(w);
    source_model(h->source, model, sizeof(model));
    wstr(w, "model", model, 1);
    wstr(w, "source", h->source, 0);
    wstr(w, "format", host_format_name(h->format), 0);
    wnum(w, "bits", h->bits);
    wstr(w, "endianness", h->big_endian ? "big" : "little", 0);
    wstr(w, "machine", h->machine, 0);
    wnum(w, "e_machine", h->e_machine);
    wstr(w, "description", h->description, 0);
    wnum(w, "size", (double)h->size);
    pt2_jw_end(w);
}

static void isa_write(struct pt2_jw *w, const struct pt2_cpu_isa *isa)
{
    const char *feat[PT2_ISA_FEATURES_MAX];
    size_t n = 0;

    if (isa == NULL || isa->source[0] == '\0') {
        pt2_jw_null(w);
        return;
    }
    pt2_jw_obj(w);
    wstr(w, "isa", isa->isa, 1);
    wstr(w, "display", pt2_isa_display(isa), 1);
    wstr(w, "source", isa->source, 0);
    wstr(w, "march", isa->march, 1);
    PT2_JW_ARR(w, "flags");
    for (size_t i = 0; i < isa->nflags; i++)
        pt2_jw_string(w, isa->flags[i], 0);
    pt2_jw_end(w);
    PT2_JW_ARR(w, "required_features");
    if (pt2_isa_required_features(isa, feat, PT2_ISA_FEATURES_MAX, &n) != PT2_OK)
        n = 0;
    for (size_t i = 0; i < n; i++)
        pt2_jw_string(w, feat[i], 0);
    pt2_jw_end(w);
    wbool(w, "native", pt2_isa_is_native(isa));
    pt2_jw_end(w);
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
 * An array of the distinct targets of the kernels (optionally only those
 * under `dir`), in first-seen order. Sorting keeps this O(n log n): a
 * package can list tens of thousands of kernels.
 */
static void targets_write(struct pt2_jw *w, const struct pt2_kernel_list *ks, const char *dir,
                          enum target_set set)
{
    struct tname *t = NULL;
    size_t n = 0, u = 0, dlen = dir != NULL ? strlen(dir) : 0;

    pt2_jw_arr(w);
    if (ks->n > 0 && (t = malloc(ks->n * sizeof(*t))) == NULL)
        w->failed = 1;
    for (size_t i = 0; t != NULL && i < ks->n; i++) {
        if (!in_set(&ks->v[i], set) || (dir != NULL && strncmp(ks->v[i].source, dir, dlen)))
            continue;
        pt2_kernel_target_name(&ks->v[i], t[n].name, sizeof(t[n].name));
        t[n++].first = i;
    }
    if (t != NULL) {
        qsort(t, n, sizeof(*t), tname_by_name);
        for (size_t i = 0; i < n; i++)
            if (u == 0 || strcmp(t[u - 1].name, t[i].name) != 0)
                t[u++] = t[i];
        qsort(t, u, sizeof(*t), tname_by_first);
    }
    for (size_t i = 0; i < u && i < TARGETS_LIST_MAX; i++)
        pt2_jw_string(w, t[i].name, 0);
    free(t);
    pt2_jw_end(w);
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

static void arch_write(struct pt2_jw *w, const pt2_package *pkg)
{
    const struct pt2_kernel_list *ks = pt2_package_kernels(pkg);
    const struct pt2_host_list *hs = pt2_package_hosts(pkg);
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
    pt2_jw_obj(w);
    if (have_cc) {
        snprintf(buf, sizeof(buf), "%d.%d", major, minor);
        wstr(w, "cuda_compute_capability", buf, 0);
        wstr(w, "cuda_gpu_description", pt2_desc_cc_text(major, minor, buf, sizeof(buf)), 0);
    } else {
        wstr(w, "cuda_compute_capability", NULL, 0);
        wstr(w, "cuda_gpu_description", NULL, 0);
    }
    wstr(w, "cpu_description", hs->n > 0 ? loaded_cpu_text(pkg, isa, buf, sizeof(buf)) : NULL, 0);
    wstr(w, "device_key", pt2_package_device_key(pkg, 0), 0);
    wstr(w, "compute_capability_metadata", mcc, 1);
    wkey(w, "cuda_targets");
    targets_write(w, ks, NULL, TARGETS_CUDA);
    wkey(w, "amd_targets");
    targets_write(w, ks, NULL, TARGETS_AMD);
    {
        /* The one-line form the listing shows ("sm_120+PTX"), so both read the same. */
        char targets[PT2_LISTING_TARGETS_TEXT_MAX];

        wstr(w, "targets", pt2_listing_targets(pkg, targets, sizeof(targets)), 1);
    }
    /* Every record counts in the targets above; the list itself stops at a cap, so a
     * package of 65,536 one-kernel entries is not a 25 MB answer held in memory whole. */
    PT2_JW_ARR(w, "kernels");
    for (size_t i = 0; i < ks->n && i < PT2_REPORT_KERNELS_MAX; i++)
        kernel_write(w, &ks->v[i]);
    pt2_jw_end(w);
    wnum(w, "kernels_total", (double)ks->n);
    PT2_JW_ARR(w, "hosts");
    for (size_t i = 0; i < hs->n; i++)
        host_write(w, &hs->v[i]);
    pt2_jw_end(w);
    wkey(w, "cpu_isa");
    isa_write(w, isa);
    pt2_jw_end(w);
}

/* {"where", "entries", "bytes", "declared_bytes"} (pt2_weights.h); null bytes = not known. */
static void weights_write(struct pt2_jw *w, const struct pt2_weights *wt)
{
    pt2_jw_obj(w);
    wstr(w, "where", pt2_weights_where_name(wt->where), 0);
    wnum(w, "entries", (double)wt->entries);
    wkey(w, "bytes");
    number_or_null(w, wt->bytes >= 0, (double)wt->bytes);
    wkey(w, "declared_bytes");
    number_or_null(w, wt->declared >= 0, (double)wt->declared);
    wnum(w, "missing", (double)wt->missing);
    pt2_jw_end(w);
}

/* Model m's host libraries in zip order, each with the CPU features its model was built for. */
static void model_libraries_write(struct pt2_jw *w, const pt2_package *pkg, size_t m)
{
    const struct pt2_host_list *hs = pt2_package_hosts(pkg);
    const struct pt2_cpu_isa *isa = pt2_package_model_isa(pkg, m);
    const char *feat[PT2_ISA_FEATURES_MAX];
    size_t nf = 0;

    if (pt2_isa_required_features(isa, feat, PT2_ISA_FEATURES_MAX, &nf) != PT2_OK)
        nf = 0;
    pt2_jw_arr(w);
    for (size_t h = 0; h < hs->n; h++) {
        if (!pt2_package_host_in_model(pkg, m, h))
            continue;
        pt2_jw_obj(w);
        pt2_runtime_library_members(w, &hs->v[h], pt2_runtime_host_loaded(hs, h));
        PT2_JW_ARR(w, "cpu_features");
        for (size_t i = 0; i < nf; i++)
            pt2_jw_string(w, feat[i], 0);
        pt2_jw_end(w);
        pt2_jw_end(w);
    }
    pt2_jw_end(w);
}

/* build, cmake_target, libraries, weights, custom_ops, proxy_nodes of model m. */
static void model_build_write(struct pt2_jw *w, const pt2_package *pkg, size_t m)
{
    size_t nodes = 0, nops = pt2_package_model_custom_ops(pkg, m, 0, NULL, &nodes);

    wstr(w, "build", pt2_package_model_cpp_only(pkg, m) ? "cpp-only" : "compiled", 0);
    wstr(w, "cmake_target", pt2_package_model_cmake_target(pkg, m), 1);
    wkey(w, "libraries");
    model_libraries_write(w, pkg, m);
    wkey(w, "weights");
    weights_write(w, pt2_package_model_weights(pkg, m));
    PT2_JW_ARR(w, "custom_ops");
    for (size_t k = 0; k < nops; k++) {
        const char *op = NULL;

        pt2_package_model_custom_ops(pkg, m, k, &op, NULL);
        pt2_jw_string(w, op, 0);
    }
    pt2_jw_end(w);
    wnum(w, "proxy_nodes", (double)nodes);
    wkey(w, "metal_shader_libraries");
    number_or_null(w, pt2_package_model_shaders(pkg, m) >= 0,
                   (double)pt2_package_model_shaders(pkg, m));
}

/* package.executorch [{name, size}] or package.pickles [{entry, kind, size}]. */
static void extras_write(struct pt2_jw *w, const pt2_package *pkg, int pickles)
{
    const char *entry = NULL, *kind = NULL;
    uint64_t size = 0;
    size_t n = pt2_package_extra(pkg, pickles, 0, &entry, &kind, &size);

    pt2_jw_arr(w);
    for (size_t k = 0; k < n; k++) {
        pt2_package_extra(pkg, pickles, k, &entry, &kind, &size);
        pt2_jw_obj(w);
        pt2_jw_key_lit(w, pickles ? "entry" : "name"); /* literals both */
        pt2_jw_string(w, entry, 0);
        if (pickles)
            wstr(w, "kind", kind, 0);
        wnum(w, "size", (double)size);
        pt2_jw_end(w);
    }
    pt2_jw_end(w);
}

/* ---- metadata ------------------------------------------------------------ */

/* Member `lit` (a literal): a tensor list in the view `flags` asks for; in the OIP view a
 * spec the protocol cannot describe is left out and `warn` (when not NULL) says so, naming
 * it as `what`. */
static void tensors(struct pt2_jw *w, const char *lit, const struct pt2_tensor_list *l,
                    unsigned flags, const char *what, cJSON *warn)
{
    cJSON *arr = NULL;
    struct pt2_error e = {0};
    int rc;

    pt2_jw_key_lit(w, lit);
    if (l == NULL) {
        pt2_jw_arr(w);
        pt2_jw_end(w);
        return;
    }
    rc = (flags & PT2_JSON_OIP) ? pt2_tensor_list_oip_json(l, what, &arr, warn, &e)
                                : pt2_tensor_list_to_json(l, flags, &arr, &e);
    if (rc != PT2_OK) {
        cJSON_Delete(arr);
        arr = NULL;
    }
    pt2_jw_tree_take(w, arr); /* NULL: the writer fails */
}

/* A model's size (struct pt2_constants) with the entry it came from; null when unknown. */
static void size_write(struct pt2_jw *w, const struct pt2_constants *c, const char *entry)
{
    if (c == NULL) {
        pt2_jw_null(w);
        return;
    }
    pt2_jw_obj(w);
    wstr(w, "source", entry, 1);
    wnum(w, "constants", (double)c->count);
    wkey(w, "declared");
    number_or_null(w, c->declared >= 0, (double)c->declared);
    wnum(w, "bytes", (double)c->bytes);
    wnum(w, "elements", (double)c->elements);
    wnum(w, "parameters", (double)c->parameters);
    wnum(w, "buffers", (double)c->buffers);
    wnum(w, "tensor_constants", (double)c->tensor_constants);
    wnum(w, "folded", (double)c->folded);
    wnum(w, "missing_size", (double)c->missing_size);
    wnum(w, "missing_shape", (double)c->missing_shape);
    PT2_JW_ARR(w, "by_dtype");
    for (size_t i = 0; i < c->ndtypes; i++) {
        pt2_jw_obj(w);
        wstr(w, "dtype", c->dtypes[i].dtype, 1);
        wnum(w, "count", (double)c->dtypes[i].count);
        wnum(w, "bytes", (double)c->dtypes[i].bytes);
        wnum(w, "elements", (double)c->dtypes[i].elements);
        pt2_jw_end(w);
    }
    pt2_jw_end(w);
    pt2_jw_end(w);
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
 * "outputs"}, plus "warnings" when a tensor had to be left out (copied onto
 * `warn`, the document's, when not NULL).
 */
static void oip_metadata_write(struct pt2_jw *w, const pt2_package *pkg, cJSON *warn)
{
    const struct pt2_meta_user *u = pt2_package_user_meta(pkg, NULL);
    const cJSON *ver = u != NULL ? cJSON_GetObjectItemCaseSensitive(u->raw, "version") : NULL;
    cJSON *own = cJSON_CreateArray();
    const cJSON *item;
    char name[PT2_NAME_MAX], vtext[64] = "";
    int64_t vnum;

    if (own == NULL)
        w->failed = 1;
    pt2_jw_obj(w);
    oip_name(pkg, u, name, sizeof(name));
    wstr(w, "name", name, 0);
    if (cJSON_IsString(ver) && ver->valuestring[0] != '\0')
        snprintf(vtext, sizeof(vtext), "%.63s", ver->valuestring);
    else if (pt2_tensor_json_int(ver, &vnum))
        snprintf(vtext, sizeof(vtext), "%lld", (long long)vnum);
    if (vtext[0] != '\0') {
        PT2_JW_ARR(w, "versions");
        pt2_jw_string(w, vtext, 0);
        pt2_jw_end(w);
    }
    wstr(w, "platform", oip_platform(pkg), 0);
    tensors(w, "inputs", pt2_package_inputs(pkg), PT2_JSON_OIP, "input", own);
    tensors(w, "outputs", pt2_package_outputs(pkg), PT2_JSON_OIP, "output", own);
    /* The OIP view's own warnings (tensors it left out) belong to the whole answer too. */
    cJSON_ArrayForEach(item, own) warn_add(w, warn, item->valuestring);
    if (own != NULL && own->child != NULL) {
        PT2_JW_TAKE(w, "warnings", own);
        own = NULL;
    }
    cJSON_Delete(own);
    pt2_jw_end(w);
}

static void metadata_write(struct pt2_jw *w, const pt2_package *pkg, unsigned flags, cJSON *warn)
{
    const char *uentry = NULL;
    const struct pt2_meta_user *u;
    size_t nep = pt2_package_eprog_count(pkg);

    if (flags & PT2_JSON_OIP) {
        oip_metadata_write(w, pkg, warn);
        return;
    }
    u = pt2_package_user_meta(pkg, &uentry);
    pt2_jw_obj(w);
    wstr(w, "model", u != NULL ? u->model : NULL, 1);
    tensors(w, "inputs", pt2_package_inputs(pkg), flags, NULL, NULL);
    tensors(w, "outputs", pt2_package_outputs(pkg), flags, NULL, NULL);
    PT2_JW_TREE(w, "raw", u != NULL ? u->raw : NULL);
    /* The entry the specs came from: model_metadata.json, a program, or a wrapper. */
    wstr(w, "source", pt2_package_specs_source(pkg), 0);
    PT2_JW_TREE(w, "aoti",
                pt2_package_model_count(pkg) > 0 ? pt2_package_model_aoti(pkg, 0, NULL) : NULL);
    PT2_JW_ARR(w, "exported_programs");
    for (size_t i = 0; i < nep; i++) {
        const char *entry = NULL;
        const struct pt2_tensor_list *in = NULL, *outs = NULL;
        const char *name = pt2_package_eprog(pkg, i, &entry, &in, &outs);

        pt2_jw_obj(w);
        wstr(w, "name", name, 0);
        wstr(w, "source", entry, 0);
        tensors(w, "inputs", in, flags, NULL, NULL);
        tensors(w, "outputs", outs, flags, NULL, NULL);
        wkey(w, "size");
        size_write(w, pt2_package_eprog_constants(pkg, i), entry);
        wkey(w, "weights");
        weights_write(w, pt2_package_eprog_weights(pkg, i));
        pt2_jw_end(w);
    }
    pt2_jw_end(w);
    pt2_jw_end(w);
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

static void package_write(struct pt2_jw *w, const pt2_package *pkg)
{
    const struct pt2_zip_layout *l = pt2_package_layout(pkg);

    pt2_jw_obj(w);
    wstr(w, "name", pt2_package_name(pkg), 0);
    wstr(w, "kind", pt2_package_kind(pkg), 0);
    wnum(w, "size", (double)l->file_size);
    wstr(w, "archive_format", l->archive_format, 1);
    wstr(w, "archive_version", l->archive_version, 1);
    wstr(w, "data_version", l->data_version, 1);
    wstr(w, "version", l->legacy_version, 1);
    wstr(w, "byteorder", l->byteorder, 1);
    wstr(w, "prefix", l->prefix, 1);
    wstr(w, "layout", layout_name(pkg, l), 0);
    wbool(w, "zip64", l->zip64);
    wnum(w, "entries", (double)l->entries);
    wstr(w, "model", pt2_package_selected_model(pkg), 0);
    wkey(w, "executorch");
    extras_write(w, pkg, 0);
    wkey(w, "pickles");
    extras_write(w, pkg, 1);
    if (pt2_package_source(pkg) != NULL)
        PT2_JW_TREE(w, "source", pt2_package_source(pkg));
    pt2_jw_end(w);
}

/* The models; in the OIP view a tensor left out of a model's specs is said in `warn`. */
static void models_write(struct pt2_jw *w, const pt2_package *pkg, unsigned flags, cJSON *warn)
{
    const struct pt2_kernel_list *ks = pt2_package_kernels(pkg);

    pt2_jw_arr(w);
    for (size_t m = 0; m < pt2_package_model_count(pkg); m++) {
        const char *entry = NULL;
        const cJSON *aoti = pt2_package_model_aoti(pkg, m, &entry);
        const char *name = pt2_package_model_name(pkg, m);
        char dir[PT2_PATH_MAX];
        size_t nk = 0;

        pt2_jw_obj(w);
        snprintf(dir, sizeof(dir), "data/aotinductor/%s/", name);
        wstr(w, "name", name, 0);
        wstr(w, "directory", dir, 0);
        wnum(w, "files", (double)pt2_package_model_files(pkg, m));
        wstr(w, "device_key", pt2_package_device_key(pkg, m), 0);
        wstr(w, "platform", pt2_verdicts_platform(pkg, m), 0);
        wstr(w, "aoti_metadata_source", entry, 1);
        PT2_JW_TREE(w, "aoti_metadata", aoti);
        for (size_t i = 0; i < ks->n; i++)
            if (strncmp(ks->v[i].source, dir, strlen(dir)) == 0)
                nk++;
        wkey(w, "targets");
        targets_write(w, ks, dir, TARGETS_ANY);
        wnum(w, "kernels", (double)nk);
        wkey(w, "cpu_isa");
        isa_write(w, pt2_package_model_isa(pkg, m));
        {
            const struct pt2_tensor_list *in = NULL, *outs = NULL;
            const char *src = pt2_package_model_specs(pkg, m, &in, &outs), *cs = NULL;
            const struct pt2_constants *c = pt2_package_model_constants(pkg, m, &cs);

            char in_what[PT2_NAME_MAX + 32], out_what[PT2_NAME_MAX + 32];

            snprintf(in_what, sizeof(in_what), "model '%.100s' input", name);
            snprintf(out_what, sizeof(out_what), "model '%.100s' output", name);
            wstr(w, "specs_source", src, 0);
            tensors(w, "inputs", in, flags, in_what, warn);
            tensors(w, "outputs", outs, flags, out_what, warn);
            wkey(w, "size");
            size_write(w, c, cs);
        }
        model_build_write(w, pkg, m);
        pt2_jw_end(w);
    }
    pt2_jw_end(w);
}

/* ---- public entry points ---------------------------------------------------- */

int pt2_package_arch_json(const pt2_package *pkg, unsigned flags, cJSON **out,
                          struct pt2_error *err)
{
    struct pt2_jw w;

    (void)flags;
    pt2_jw_init_tree(&w);
    arch_write(&w, pkg);
    return pt2_jw_finish_tree(&w, out, err);
}

int pt2_package_metadata_json(const pt2_package *pkg, unsigned flags, cJSON **out,
                              struct pt2_error *err)
{
    struct pt2_jw w;
    int rc = pt2_package_document_check(pkg, err);

    *out = NULL;
    if (rc != PT2_OK)
        return rc;
    pt2_jw_init_tree(&w);
    metadata_write(&w, pkg, flags, NULL);
    return pt2_jw_finish_tree(&w, out, err);
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
static void runtime_warnings(struct pt2_jw *w, const pt2_package *pkg, cJSON *warn)
{
    const struct pt2_host_list *hosts = pt2_package_hosts(pkg);

    for (size_t i = 0; hosts != NULL && i < hosts->n; i++) {
        const struct pt2_needs *n = hosts->v[i].needs;
        char msg[PT2_ERROR_MSG_MAX + 64];

        if (n == NULL || n->partial[0] == '\0')
            continue;
        snprintf(msg, sizeof(msg), "runtime needs of %.200s read in part: %.300s",
                 hosts->v[i].source, n->partial);
        warn_add(w, warn, msg);
    }
}

/*
 * The whole document, then `extra`'s members (their names are not the
 * document's: pt2scope.h). What can fail other than memory (the metadata,
 * the affinity) is settled before anything is written.
 */
int pt2_package_document_check(const pt2_package *pkg, struct pt2_error *err)
{
    const struct pt2_error *merr = pt2_package_meta_error(pkg);

    return merr != NULL ? pt2_error_copy(err, merr) : PT2_OK;
}

static int document_write(struct pt2_jw *w, const pt2_package *pkg, unsigned flags,
                          const cJSON *extra, struct pt2_error *err)
{
    cJSON *sched = NULL, *warn;
    const cJSON *item;
    char sched_warning[PT2_ERROR_MSG_MAX + 32];
    int rc = pt2_package_document_check(pkg, err);

    sched_warning[0] = '\0';
    if (rc != PT2_OK)
        return rc;
    /* The affinity is computed only when asked for: it is the document's largest part. */
    if ((flags & PT2_JSON_AFFINITY) &&
        (rc = scheduling_json(pkg, &sched, sched_warning, sizeof(sched_warning), err)) != PT2_OK)
        return rc;
    /* The warnings come last but are said all along: gathered here, in their order. */
    warn = cJSON_CreateArray();
    if (warn == NULL)
        w->failed = 1;
    for (size_t i = 0; i < pt2_package_warning_count(pkg); i++)
        warn_add(w, warn, pt2_package_warning(pkg, i));
    pt2_jw_obj(w);
    wkey(w, "arch");
    arch_write(w, pkg);
    wkey(w, "metadata");
    metadata_write(w, pkg, flags, warn);
    wkey(w, "package");
    package_write(w, pkg);
    wkey(w, "models");
    models_write(w, pkg, flags, warn);
    if (flags & PT2_JSON_AFFINITY)
        PT2_JW_TAKE(w, "scheduling", sched);
    wkey(w, "runtime");
    pt2_runtime_needs_write(w, pkg);
    runtime_warnings(w, pkg, warn);
    if (sched_warning[0] != '\0')
        warn_add(w, warn, sched_warning);
    if (pt2_package_kernels(pkg)->n > PT2_REPORT_KERNELS_MAX) {
        char msg[160];

        snprintf(msg, sizeof(msg),
                 "arch.kernels lists the first %u of the package's %zu kernel records "
                 "(arch.kernels_total); the targets count them all",
                 PT2_REPORT_KERNELS_MAX, pt2_package_kernels(pkg)->n);
        warn_add(w, warn, msg);
    }
    PT2_JW_TAKE(w, "warnings", warn);
    wnum(w, "bytes_read", (double)pt2_package_bytes_read(pkg));
    cJSON_ArrayForEach(item, extra)
    {
        pt2_jw_key_copy(w, item->string);
        pt2_jw_tree(w, item);
    }
    pt2_jw_end(w);
    return PT2_OK;
}

int pt2_package_to_json(const pt2_package *pkg, unsigned flags, cJSON **out, struct pt2_error *err)
{
    struct pt2_jw w;
    int rc;

    *out = NULL;
    pt2_jw_init_tree(&w);
    rc = document_write(&w, pkg, flags, NULL, err); /* fails before writing anything */
    return rc != PT2_OK ? rc : pt2_jw_finish_tree(&w, out, err);
}

int pt2_package_print_json(const pt2_package *pkg, unsigned flags, const cJSON *extra, size_t spare,
                           char **out, size_t *len, struct pt2_error *err)
{
    struct pt2_jw w;
    int rc;

    *out = NULL;
    *len = 0;
    pt2_jw_init_text(&w);
    rc = document_write(&w, pkg, flags, extra, err); /* fails before writing anything */
    return rc != PT2_OK ? rc : pt2_jw_finish_text(&w, spare, out, len, err);
}
