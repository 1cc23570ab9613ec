/*
 * pt2_inspect.c - one package, inspected: the orchestration behind pt2scope.h.
 *
 * Design: pt2_package_open_*() walks the archive's central directory once and
 * hands each interesting entry to the module that understands it:
 *
 *   data/aotinductor/<m>/ *.so .cubin .fatbin .hsaco .ptx .spv .zebin
 *                                       -> pt2_binary (bounded header reads)
 *   data/aotinductor/<m>/ *metadata.json -> pt2_meta (AOTI string map)
 *   data/aotinductor/<m>/ *.cpp          -> tail only, for the compile command
 *   any  .../model_metadata.json         -> pt2_meta (user tensor specs)
 *   models/<m>.json                      -> pt2_eprog (exported program I/O)
 *
 * Everything is read into typed structs; JSON is produced on demand from them
 * (pt2_json.c would be the natural split if this file grows further). The
 * package is immutable once opened, so its const functions may run on many
 * threads at once (the daemon caches packages).
 *
 * Error policy: a broken container (not a zip, truncated, not a pt2) fails
 * the open. A malformed metadata document does not: the failure is kept and
 * returned by every call that needs the metadata, so /v1/arch still answers
 * for a package whose model_metadata.json is bad. A host binary or kernel
 * file that cannot be parsed becomes a warning in the document: one corrupt
 * .so must not hide what the rest of the package says.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_binary.h"
#include "pt2_budget.h"
#include "pt2_compat.h"
#include "pt2_desc.h"
#include "pt2_eprog.h"
#include "pt2_error.h"
#include "pt2_inspect.h"
#include "pt2_isa.h"
#include "pt2_meta.h"
#include "pt2_needs.h"
#include "pt2_runtime.h"
#include "pt2_model.h"
#include "pt2_tensor.h"
#include "pt2_sbuf.h"
#include "pt2_source.h"
#include "pt2_weights.h"
#include "pt2_wrapper.h"
#include "pt2_zip.h"
#include "pt2_zip_layout.h"

#define JSON_CAP_DEFAULT (1024u * 1024u) /* one small JSON entry */
/* An exported program is the whole graph: a higher, still hard, cap (parsed, never kept). */
#define EPROG_CAP (8u * 1024u * 1024u)
#define WRAPPER_CHUNK (64u * 1024u) /* bytes handed to the wrapper scanner at a time */
#define LEGACY_EPROG "serialized_exported_program.json"
#define CPP_TAIL_MAX (64u * 1024u) /* end of the wrapper .cpp: the compile command */
/* Planned reads of a binary or wrapper (see plan()): its start and its end. */
#define PLAN_HEAD (64u * 1024u)
#define PLAN_TAIL (16u * 1024u)
#define WARNINGS_MAX 64u
#define CUSTOM_OPS_MAX 32u
#define EPROGS_MAX 16u
#define EXTRAS_MAX 64u           /* executorch programs, pickles: listed up to this many */
#define CMAKE_CAP (256u * 1024u) /* a CMakeLists.txt torch writes is a few KB */
/*
 * Package-wide retention budgets. Each entry is capped on its own, but a small
 * hostile zip can hold hundreds of capped entries; what the package keeps in
 * memory (and every cached copy of it in the daemon) is bounded here.
 */
#define RETAINED_JSON_MAX (8u * 1024u * 1024u) /* AOTI maps + user metadata, source bytes */
#define RETAINED_TENSORS_MAX 8192u             /* tensor specs over all documents */

static const char AOTI_DIR[] = "data/aotinductor/";

struct pkg_model {
    char name[PT2_NAME_MAX];
    cJSON *aoti;                   /* AOTI metadata map, or NULL */
    char aoti_entry[PT2_PATH_MAX]; /* the entry it came from */
    int aoti_rank;                 /* 2 wrapper_metadata, 1 other *_metadata.json */
    struct pt2_error aoti_err;     /* best-ranked failure, reported only if it outranks aoti */
    int aoti_err_rank;
    char cpp_entry[PT2_PATH_MAX]; /* wrapper .cpp (for the compile command) */
    struct pt2_cpu_isa isa;
    size_t files;
    /* From the wrapper .cpp (pt2_wrapper): the I/O torch itself records. */
    int wrapper_found;
    struct pt2_tensor_list inputs, outputs;
    /* The same-named exported program's specs narrowed to what this model's wrapper checks
     * (pt2_tensor_list_narrow): what the compiled code takes, with the program's names. */
    int narrowed;
    struct pt2_tensor_list spec_in, spec_out;
    int has_constants;
    struct pt2_constants constants;
    int has_cmake; /* a CMakeLists.txt in the folder (aot_inductor.package_cpp_only) */
    char cmake_target[PT2_NAME_MAX];   /* its first add_library() target, or "" */
    char weights_config[PT2_PATH_MAX]; /* <model>/weights_config.json (pickle_weights), or "" */
    struct pt2_weights weights;
    size_t proxy_nodes; /* nodes of its <hash>.wrapper.json (run by the proxy executor) */
    int64_t shaders;    /* Metal shader libraries its MPS wrapper creates; -1 = not counted */
    /* Custom operators the proxy executor runs (<hash>.wrapper.json node targets). */
    char custom_ops[CUSTOM_OPS_MAX][PT2_NAME_MAX];
    /* 1 where a node of it says torch_library_custom_op: made with torch.library.custom_op in
     * Python, which torch's C++ loader cannot run outside a Python process defining it */
    unsigned char custom_py[CUSTOM_OPS_MAX];
    size_t ncustom_ops;
};

struct pkg_eprog {
    char name[PT2_NAME_MAX];
    char entry[PT2_PATH_MAX];
    struct pt2_tensor_list inputs, outputs;
    struct pt2_constants constants;
    struct pt2_weights weights;
};

/* An entry listed as it is (an ExecuTorch program, a pickle). */
struct pkg_extra {
    char entry[PT2_PATH_MAX];
    char kind[16]; /* pickles: "custom_obj", "opaque" */
    uint64_t size;
};

struct pt2_package {
    char display_name[PT2_PATH_MAX];
    struct pt2_zip_layout layout;

    struct pkg_model *models;
    size_t nmodels, models_cap;

    struct pt2_kernel_list kernels;
    struct pt2_host_list hosts;

    struct pt2_meta_user user;
    int has_user;
    char user_entry[PT2_PATH_MAX];
    struct pt2_error user_err; /* best-ranked failure, see settle_meta_errors() */
    int user_err_rank;

    struct pkg_eprog *eprogs;
    size_t neprogs;

    /* Grown as met (most packages have none): a package object stays small, and
     * allocating and freeing it stays cheap. */
    struct pkg_extra *executorch, *pickles;
    size_t nexecutorch, npickles, executorch_cap, pickles_cap;
    uint64_t executorch_total, pickles_total; /* counted past the cap too */

    /* A metadata error is deferred to the calls that need metadata. */
    struct pt2_error meta_err;

    uint64_t retained_json; /* against RETAINED_JSON_MAX */
    size_t retained_tensors;

    char (*warnings)[PT2_ERROR_MSG_MAX]; /* grown as met, up to WARNINGS_MAX */
    size_t nwarnings, warnings_cap;

    uint64_t bytes_read, read_calls;
    cJSON *source; /* package.source (pt2_package_set_source), or NULL */

    /* pt2_open_options.model: the one model read, and the others the archive names. */
    char only[PT2_NAME_MAX];
    char others[512];
    size_t nothers;
};

/* ---- small helpers ------------------------------------------------------ */

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash != NULL ? slash + 1 : path;
}

/* Room for one more of `elem` bytes in *v, as pt2_model_grow makes it: 1, or 0 when full or
 * out of memory (what does not fit is counted by the caller, not listed). */
static int grow(void **v, size_t *cap, size_t n, size_t elem, size_t max)
{
    struct pt2_error ignored;

    ignored.code = PT2_OK;
    return pt2_model_grow(v, cap, n, elem, max, "records", &ignored) == PT2_OK;
}

static void add_warning(struct pt2_package *pkg, const char *msg)
{
    if (grow((void **)&pkg->warnings, &pkg->warnings_cap, pkg->nwarnings, sizeof(pkg->warnings[0]),
             WARNINGS_MAX))
        snprintf(pkg->warnings[pkg->nwarnings++], PT2_ERROR_MSG_MAX, "%s", msg);
}

/* Errors that end the whole inspection rather than one document. */
static int is_fatal(int rc)
{
    return rc == PT2_ERR_NOMEM || rc == PT2_ERR_IO;
}

/* Keep `e` in `slot` if it outranks what is there (the best candidate's error matters). */
static void keep_error(struct pt2_error *slot, int *slot_rank, const struct pt2_error *e, int rank)
{
    if (slot->code == PT2_OK || rank > *slot_rank) {
        *slot = *e;
        *slot_rank = rank;
    }
}

static struct pkg_model *find_model(struct pt2_package *pkg, const char *name)
{
    for (size_t i = 0; i < pkg->nmodels; i++)
        if (strcmp(pkg->models[i].name, name) == 0)
            return &pkg->models[i];
    return NULL;
}

static int add_model(struct pt2_package *pkg, const char *name, struct pkg_model **out,
                     struct pt2_error *err)
{
    struct pkg_model *m = find_model(pkg, name);

    if (m == NULL) {
        int rc = pt2_model_grow((void **)&pkg->models, &pkg->models_cap, pkg->nmodels, sizeof(*m),
                                PT2_ZIP_LAYOUT_MODELS_MAX, "models in one package", err);
        if (rc != PT2_OK)
            return rc;
        m = &pkg->models[pkg->nmodels++];
        memset(m, 0, sizeof(*m));
        m->weights.bytes = m->weights.declared = -1;
        m->shaders = -1;
        snprintf(m->name, sizeof(m->name), "%s", name);
    }
    *out = m;
    return PT2_OK;
}

/* Entries the binary scanner should look at, by extension. */
static int is_binary_entry(const char *rel)
{
    static const char *const exts[] = {".so",    ".cubin", ".fatbin", ".hsaco", ".ptx", ".spv",
                                       ".zebin", ".dylib", ".o",      ".pyd",   ".dll"};
    for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++)
        if (has_suffix(rel, exts[i]))
            return 1;
    return 0;
}

/* Reserve `bytes` of retained JSON; 0 (with a warning) when over budget. */
static int retain_json(struct pt2_package *pkg, const char *rel, uint64_t bytes)
{
    char msg[PT2_ERROR_MSG_MAX];

    if (pkg->retained_json + bytes <= RETAINED_JSON_MAX) {
        pkg->retained_json += bytes;
        return 1;
    }
    snprintf(msg, sizeof(msg), "%s: skipped, the package's metadata exceeds %u bytes in total", rel,
             RETAINED_JSON_MAX);
    add_warning(pkg, msg);
    return 0;
}

/* ---- the walk ----------------------------------------------------------- */

static int scan_binary(struct pt2_package *pkg, pt2_zip *z, size_t i, const char *rel,
                       struct pt2_error *err)
{
    pt2_zip_entry *e = NULL;
    struct pt2_error local = {0};
    int recognized = 0, rc;

    rc = pt2_zip_entry_open(z, i, &e, &local);
    if (rc == PT2_OK) {
        struct pt2_rd *rd = pt2_zip_entry_rd(e);
        /* the headers and kernels, then the dynamic sections of its runtime needs */
        pt2_rd_set_budget(rd, PT2_RD_DEFAULT_BUDGET + PT2_NEEDS_READ_MAX);
        rc = pt2_binary_scan(rd, rel, &pkg->kernels, &pkg->hosts, &recognized, &local);
    }
    pt2_zip_entry_free(e);
    if (is_fatal(rc))
        return pt2_error_copy(err, &local);
    if (rc == PT2_ERR_TOO_LARGE && pkg->kernels.n >= PT2_KERNELS_MAX)
        return pt2_error_copy(err, &local);
    if (rc != PT2_OK)
        add_warning(pkg, local.message);
    return PT2_OK;
}

static int load_aoti_meta(struct pt2_package *pkg, struct pkg_model *m, pt2_zip *z, size_t i,
                          const char *rel, size_t cap, struct pt2_error *err)
{
    int rank = has_suffix(rel, "wrapper_metadata.json") ? 2 : 1;
    char *buf = NULL;
    size_t len = 0;
    cJSON *map = NULL;
    struct pt2_error local = {0};
    int rc = PT2_OK;

    /* torch's load_metadata_from_package takes the wrapper's copy first. */
    if (m->aoti != NULL && m->aoti_rank >= rank)
        return PT2_OK;
    if (!retain_json(pkg, rel, pt2_zip_entry_size(z, i)))
        return PT2_OK;
    rc = pt2_zip_read_small(z, i, cap, &buf, &len, &local);
    if (rc == PT2_OK)
        rc = pt2_meta_parse_aoti(buf, len, rel, &map, &local);
    if (rc != PT2_OK) {
        if (is_fatal(rc)) {
            pt2_error_copy(err, &local);
            goto cleanup;
        }
        keep_error(&m->aoti_err, &m->aoti_err_rank, &local, rank);
        rc = PT2_OK;
        goto cleanup;
    }
    cJSON_Delete(m->aoti);
    m->aoti = map;
    map = NULL;
    m->aoti_rank = rank;
    snprintf(m->aoti_entry, sizeof(m->aoti_entry), "%s", rel);
cleanup:
    cJSON_Delete(map);
    free(buf);
    return rc;
}

static void add_custom_op(struct pkg_model *m, const char *target, int python)
{
    size_t i;

    for (i = 0; i < m->ncustom_ops; i++)
        if (strcmp(m->custom_ops[i], target) == 0)
            break;
    if (i == m->ncustom_ops && m->ncustom_ops < CUSTOM_OPS_MAX)
        snprintf(m->custom_ops[m->ncustom_ops++], PT2_NAME_MAX, "%s", target);
    if (i < m->ncustom_ops && python)
        m->custom_py[i] = 1;
}

/*
 * <hash>.wrapper.json (<hash>.json up to torch 2.6): the nodes the proxy executor runs, each
 * an operator ("preprocess::tile_crop") whose library the loading process must have
 * registered. A document that does not parse is a warning.
 */
static int load_custom_ops(struct pt2_package *pkg, struct pkg_model *m, pt2_zip *z, size_t i,
                           const char *rel, size_t cap, struct pt2_error *err)
{
    static const struct pt2_json_limits lim = {0, 64, 200000, 4096};
    struct pt2_error local = {0};
    char *buf = NULL;
    size_t len = 0;
    cJSON *doc = NULL, *node;
    int rc;

    rc = pt2_zip_read_small(z, i, cap, &buf, &len, &local);
    if (rc == PT2_OK)
        rc = pt2_json_parse(buf, len, &lim, rel, &doc, &local);
    if (rc != PT2_OK) {
        free(buf);
        if (is_fatal(rc))
            return pt2_error_copy(err, &local);
        add_warning(pkg, local.message);
        return PT2_OK;
    }
    cJSON_ArrayForEach(node, cJSON_GetObjectItemCaseSensitive(doc, "nodes"))
    {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(node, "node");
        const char *t = pt2_json_str(n, "target");
        const char *py = pt2_json_str(cJSON_GetObjectItemCaseSensitive(n, "metadata"),
                                      "torch_library_custom_op");
        m->proxy_nodes++;
        if (t != NULL && t[0] != '\0')
            add_custom_op(m, t, py != NULL && strcmp(py, "1") == 0);
    }
    cJSON_Delete(doc);
    free(buf);
    return PT2_OK;
}

cJSON *pt2_package_custom_ops_json(const pt2_package *pkg)
{
    cJSON *a = cJSON_CreateArray();

    for (size_t m = 0; a != NULL && m < pkg->nmodels; m++)
        for (size_t k = 0; k < pkg->models[m].ncustom_ops; k++) {
            int dup = 0;
            cJSON *e;
            cJSON_ArrayForEach(e, a) dup |=
                strcmp(e->valuestring, pkg->models[m].custom_ops[k]) == 0;
            if (!dup &&
                !pt2_json_add_owned(a, NULL, cJSON_CreateString(pkg->models[m].custom_ops[k]))) {
                cJSON_Delete(a);
                return NULL;
            }
        }
    return a;
}

/* ---- weights, sources and other entries ---------------------------------- */

/* The sink pt2_weights reads the archive and warns through. */
struct weights_ctx {
    struct pt2_package *pkg;
    pt2_zip *z;
};

static int weights_stat(void *ctx, const char *rel, uint64_t *size)
{
    struct weights_ctx *c = ctx;
    size_t i;

    if (pt2_zip_find(c->z, rel, &i) != PT2_OK)
        return 0;
    *size = pt2_zip_entry_size(c->z, i);
    return 1;
}

static void weights_warn(void *ctx, const char *msg)
{
    add_warning(((struct weights_ctx *)ctx)->pkg, msg);
}

/* A config read whole and handed to `parse`; a bad one is a warning, not a failure. */
static int load_weights_config(struct pt2_package *pkg, pt2_zip *z, const char *rel,
                               struct pt2_weights *w, const char *dir, struct pt2_error *err)
{
    struct weights_ctx c = {pkg, z};
    struct pt2_weights_sink s = {weights_stat, weights_warn, &c};
    struct pt2_error local = {0};
    char *buf = NULL;
    size_t len = 0, i;
    int rc;

    if (pt2_zip_find(z, rel, &i) != PT2_OK)
        return PT2_OK;
    rc = pt2_zip_read_small(z, i, 16u * 1024u * 1024u, &buf, &len, &local);
    if (rc == PT2_OK)
        rc = dir == NULL ? pt2_weights_pickle(w, buf, len, rel, &s, &local)
                         : pt2_weights_payload(w, buf, len, rel, dir, &s, &local);
    free(buf);
    if (is_fatal(rc))
        return pt2_error_copy(err, &local);
    if (rc != PT2_OK)
        add_warning(pkg, local.message);
    return PT2_OK;
}

/* Weights of every model and program, once the walk has seen every entry. */
static int settle_weights(struct pt2_package *pkg, pt2_zip *z, struct pt2_error *err)
{
    struct weights_ctx c = {pkg, z};
    struct pt2_weights_sink s = {weights_stat, weights_warn, &c};
    char rel[PT2_PATH_MAX];
    int rc = PT2_OK;

    for (size_t i = 0; i < pkg->nmodels && rc == PT2_OK; i++) {
        struct pkg_model *m = &pkg->models[i];
        int lib = pt2_package_model_library(pkg, i, NULL);

        if (m->has_constants && m->constants.missing_size == 0)
            m->weights.declared = (int64_t)m->constants.bytes;
        if (m->weights_config[0] != '\0')
            rc = load_weights_config(pkg, z, m->weights_config, &m->weights, NULL, err);
        pt2_weights_finish(&m->weights, lib, m->has_constants ? m->constants.count : 0, m->name,
                           &s);
    }
    for (size_t i = 0; i < pkg->neprogs && rc == PT2_OK; i++) {
        struct pkg_eprog *ep = &pkg->eprogs[i];

        snprintf(rel, sizeof(rel), "data/weights/%.200s_weights_config.json", ep->name);
        rc = load_weights_config(pkg, z, rel, &ep->weights, "data/weights/", err);
        snprintf(rel, sizeof(rel), "data/constants/%.200s_constants_config.json", ep->name);
        if (rc == PT2_OK)
            rc = load_weights_config(pkg, z, rel, &ep->weights, "data/constants/", err);
        pt2_weights_finish(&ep->weights, 0, 0, ep->name, &s);
    }
    return rc;
}

/* A model's host libraries that the loader would not take, when they are not what it takes. */
static void warn_other_libraries(struct pt2_package *pkg, size_t mi)
{
    size_t loaded;
    char msg[PT2_ERROR_MSG_MAX];

    if (!pt2_package_model_library(pkg, mi, &loaded))
        return;
    for (size_t h = 0; h < pkg->hosts.n; h++) {
        const struct pt2_host *x = &pkg->hosts.v[h], *l = &pkg->hosts.v[loaded];

        if (h == loaded || !pt2_package_host_in_model(pkg, mi, h) ||
            (x->format == l->format && strcmp(x->machine, l->machine) == 0))
            continue;
        snprintf(msg, sizeof(msg),
                 "model '%.60s': torch's loader takes %.120s (%.31s), the last library in zip "
                 "order; %.120s is %.31s and is not what runs",
                 pkg->models[mi].name, l->source, l->machine, x->source, x->machine);
        add_warning(pkg, msg);
    }
}

/* What each model needs said once every entry is known: sources to compile, mixed libraries. */
static const struct pkg_eprog *eprog_of(const pt2_package *pkg, const char *name);

/* A model compiled from an exported program the package also holds: the program's specs,
 * narrowed to the bounds and fixed dims the model's wrapper checks. */
static int narrow_specs(struct pt2_package *pkg, struct pkg_model *m, struct pt2_error *err)
{
    const struct pkg_eprog *ep = eprog_of(pkg, m->name);
    int rc = PT2_OK;

    if (ep == NULL || !m->wrapper_found)
        return PT2_OK;
    for (size_t i = 0; i < ep->inputs.n && rc == PT2_OK; i++)
        rc = pt2_tensor_list_push(&m->spec_in, &ep->inputs.v[i], err);
    for (size_t i = 0; i < ep->outputs.n && rc == PT2_OK; i++)
        rc = pt2_tensor_list_push(&m->spec_out, &ep->outputs.v[i], err);
    if (rc == PT2_OK) {
        rc = pt2_tensor_list_narrow(&m->spec_in, &m->spec_out, &m->inputs, err);
        m->narrowed = rc == 1;
        rc = rc < 0 ? rc : PT2_OK;
    }
    if (!m->narrowed) {
        pt2_tensor_list_free(&m->spec_in);
        pt2_tensor_list_free(&m->spec_out);
    }
    return rc;
}

static void settle_models(struct pt2_package *pkg)
{
    char msg[PT2_ERROR_MSG_MAX];

    for (size_t i = 0; i < pkg->nmodels; i++) {
        const struct pkg_model *m = &pkg->models[i];

        if (pt2_package_model_cpp_only(pkg, i)) {
            snprintf(msg, sizeof(msg),
                     "model '%.100s' is C++ sources only (aot_inductor.package_cpp_only%s%.100s): "
                     "it must be compiled on the target before it can load",
                     m->name, m->cmake_target[0] != '\0' ? ", CMake target " : "", m->cmake_target);
            add_warning(pkg, msg);
        }
        warn_other_libraries(pkg, i);
    }
    if (pkg->pickles_total > 0) {
        snprintf(msg, sizeof(msg),
                 "the package carries %llu pickled object%s under data/constants/ (torchbind or "
                 "opaque objects): loading them executes code, and weights_only loading refuses "
                 "them",
                 (unsigned long long)pkg->pickles_total, pkg->pickles_total == 1 ? "" : "s");
        add_warning(pkg, msg);
    }
}

static void add_extra(struct pkg_extra **pv, size_t *n, size_t *cap, uint64_t *total,
                      const char *rel, const char *kind, uint64_t size)
{
    struct pkg_extra *v;

    (*total)++;
    if (!grow((void **)pv, cap, *n, sizeof(**pv), EXTRAS_MAX))
        return;
    v = *pv;
    snprintf(v[*n].entry, sizeof(v[*n].entry), "%s", rel);
    snprintf(v[*n].kind, sizeof(v[*n].kind), "%s", kind);
    v[*n].size = size;
    (*n)++;
}

/*
 * Entries outside the model folders worth naming: ExecuTorch programs
 * (data/executorch/), and the pickles of data/constants/ (torchbind
 * custom_obj_<N> and opaque objects: everything there but raw tensor_<N>
 * payloads and the JSON configs), which execute code when loaded.
 */
static void note_other(struct pt2_package *pkg, pt2_zip *z, size_t i, const char *rel)
{
    const char *b = base_name(rel);

    if (strncmp(rel, "data/executorch/", 16) == 0 && rel[16] != '\0' && !has_suffix(rel, "/"))
        add_extra(&pkg->executorch, &pkg->nexecutorch, &pkg->executorch_cap, &pkg->executorch_total,
                  rel + 16, "", pt2_zip_entry_size(z, i));
    else if (strncmp(rel, "data/constants/", 15) == 0 && strchr(rel + 15, '/') == NULL &&
             b[0] != '\0' && strncmp(b, "tensor_", 7) != 0 && !has_suffix(b, ".json"))
        add_extra(&pkg->pickles, &pkg->npickles, &pkg->pickles_cap, &pkg->pickles_total, rel,
                  strncmp(b, "custom_obj_", 11) == 0 ? "custom_obj" : "opaque",
                  pt2_zip_entry_size(z, i));
}

static void blob_seen(struct pt2_package *pkg, struct pkg_model *m, pt2_zip *z, size_t i,
                      const char *rel)
{
    struct weights_ctx c = {pkg, z};
    struct pt2_weights_sink s = {weights_stat, weights_warn, &c};

    pt2_weights_blob(&m->weights, rel, pt2_zip_entry_size(z, i), &s);
}

/* add_library(<target> ...) / add_executable: the target CMakeLists.txt builds. */
static int load_cmake(struct pt2_package *pkg, struct pkg_model *m, pt2_zip *z, size_t i,
                      struct pt2_error *err)
{
    static const char *const verbs[] = {"add_library(", "add_executable("};
    struct pt2_error local = {0};
    char *buf = NULL;
    size_t len = 0;
    int rc;

    m->has_cmake = 1;
    rc = pt2_zip_read_small(z, i, CMAKE_CAP, &buf, &len, &local);
    if (rc != PT2_OK) {
        if (is_fatal(rc))
            return pt2_error_copy(err, &local);
        add_warning(pkg, local.message);
        return PT2_OK;
    }
    for (size_t v = 0; v < 2 && m->cmake_target[0] == '\0'; v++) {
        const char *p = strstr(buf, verbs[v]);
        size_t n = 0;

        if (p == NULL)
            continue;
        p += strlen(verbs[v]);
        while (*p == ' ' || *p == '\t')
            p++;
        while (n + 1 < sizeof(m->cmake_target) &&
               (p[n] == '_' || p[n] == '-' || p[n] == '.' || (p[n] >= '0' && p[n] <= '9') ||
                ((p[n] | 0x20) >= 'a' && (p[n] | 0x20) <= 'z')))
            n++;
        snprintf(m->cmake_target, sizeof(m->cmake_target), "%.*s", (int)n, p);
    }
    free(buf);
    return PT2_OK;
}

/* Where a model_metadata.json sits decides which one wins: extra/ first. */
static int user_meta_rank(const char *rel)
{
    if (strcmp(rel, "extra/model_metadata.json") == 0)
        return 3;
    if (strcmp(rel, "extra_files/model_metadata.json") == 0)
        return 2;
    return 1;
}

static int retain_tensors(struct pt2_package *pkg, const char *rel, size_t n)
{
    char msg[PT2_ERROR_MSG_MAX];

    if (pkg->retained_tensors + n <= RETAINED_TENSORS_MAX) {
        pkg->retained_tensors += n;
        return 1;
    }
    snprintf(msg, sizeof(msg),
             "%.300s: skipped, the package declares more than %u tensors in total", rel,
             RETAINED_TENSORS_MAX);
    add_warning(pkg, msg);
    return 0;
}

static int load_user_meta(struct pt2_package *pkg, pt2_zip *z, size_t i, const char *rel,
                          size_t cap, struct pt2_error *err)
{
    int rank = user_meta_rank(rel);
    char *buf = NULL;
    size_t len = 0;
    struct pt2_meta_user u;
    struct pt2_error local = {0};
    int rc = PT2_OK;

    memset(&u, 0, sizeof(u));
    if (pkg->has_user && user_meta_rank(pkg->user_entry) >= rank)
        return PT2_OK;
    if (!retain_json(pkg, rel, pt2_zip_entry_size(z, i)))
        return PT2_OK;
    rc = pt2_zip_read_small(z, i, cap, &buf, &len, &local);
    if (rc == PT2_OK)
        rc = pt2_meta_parse_user(buf, len, rel, &u, &local);
    if (rc != PT2_OK) {
        if (is_fatal(rc)) {
            pt2_error_copy(err, &local);
            goto cleanup;
        }
        keep_error(&pkg->user_err, &pkg->user_err_rank, &local, rank);
        rc = PT2_OK;
        goto cleanup;
    }
    if (!retain_tensors(pkg, rel, u.inputs.n + u.outputs.n))
        goto cleanup;
    if (pkg->has_user)
        pt2_meta_user_free(&pkg->user);
    pkg->user = u;
    memset(&u, 0, sizeof(u));
    pkg->has_user = 1;
    snprintf(pkg->user_entry, sizeof(pkg->user_entry), "%s", rel);
cleanup:
    pt2_meta_user_free(&u);
    free(buf);
    return rc;
}

/* The name an exported-program entry gives its model ("models/m.json" -> "m"). */
static void eprog_name(const char *rel, char *out, size_t len)
{
    const char *b = base_name(rel);

    if (strcmp(rel, LEGACY_EPROG) == 0)
        snprintf(out, len, "model");
    else
        snprintf(out, len, "%.*s", (int)(strlen(b) - 5), b);
}

/* A dtype code no schema names is kept as a number ("dtype": null, "dtype_code"), and said. */
static void warn_unknown_dtypes(struct pt2_package *pkg, const char *rel,
                                const struct pt2_tensor_list *l, const char *role)
{
    char msg[PT2_ERROR_MSG_MAX];

    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].has_dtype_code) {
            snprintf(msg, sizeof(msg),
                     "%.200s: %s '%.100s' has dtype code %lld, which no export schema this "
                     "reader knows names (dtype null)",
                     rel, role, l->v[i].name, (long long)l->v[i].dtype_code);
            add_warning(pkg, msg);
        }
}

static int load_eprog(struct pt2_package *pkg, pt2_zip *z, size_t i, const char *rel, size_t cap,
                      struct pt2_error *err)
{
    char *buf = NULL, msg[PT2_ERROR_MSG_MAX];
    size_t len = 0;
    struct pkg_eprog ep, *nv;
    struct pt2_error local = {0};
    int rc = PT2_OK;

    memset(&ep, 0, sizeof(ep));
    ep.weights.bytes = ep.weights.declared = -1;
    if (pkg->neprogs >= EPROGS_MAX) {
        snprintf(msg, sizeof(msg), "%s: skipped, more than %u exported programs", rel, EPROGS_MAX);
        add_warning(pkg, msg);
        return PT2_OK;
    }
    if (cap < EPROG_CAP)
        cap = EPROG_CAP;
    if (pt2_zip_entry_size(z, i) > cap) {
        snprintf(msg, sizeof(msg),
                 "%s: %llu bytes, over the %zu-byte cap; exported-program I/O not read", rel,
                 (unsigned long long)pt2_zip_entry_size(z, i), cap);
        add_warning(pkg, msg);
        return PT2_OK;
    }
    /* torch.export.save (<= 2.4) has one program at the root: the model. */
    eprog_name(rel, ep.name, sizeof(ep.name));
    snprintf(ep.entry, sizeof(ep.entry), "%s", rel);
    rc = pt2_budget_admit(rel, &local); /* a spent JSON budget: not even inflated */
    if (rc == PT2_OK)
        rc = pt2_zip_read_small(z, i, cap, &buf, &len, &local);
    if (rc == PT2_OK)
        rc = pt2_eprog_parse_full(buf, len, rel, &ep.inputs, &ep.outputs, &ep.constants, &local);
    if (rc != PT2_OK) {
        if (is_fatal(rc))
            pt2_error_copy(err, &local);
        else if (pt2_budget_spent()) /* over the JSON budget: a warning, as over the cap */
            add_warning(pkg, local.message);
        else
            pt2_error_copy(&pkg->meta_err, &local);
        rc = is_fatal(rc) ? rc : PT2_OK;
        goto cleanup;
    }
    if (!retain_tensors(pkg, rel, ep.inputs.n + ep.outputs.n))
        goto cleanup;
    warn_unknown_dtypes(pkg, rel, &ep.inputs, "input");
    warn_unknown_dtypes(pkg, rel, &ep.outputs, "output");
    nv = realloc(pkg->eprogs, (pkg->neprogs + 1) * sizeof(*nv));
    if (nv == NULL) {
        rc = pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    pkg->eprogs = nv;
    pkg->eprogs[pkg->neprogs++] = ep;
    memset(&ep, 0, sizeof(ep));
cleanup:
    pt2_tensor_list_free(&ep.inputs);
    pt2_tensor_list_free(&ep.outputs);
    free(buf);
    return rc;
}

/* AOTI_CPU_ISA when recorded, else the `// Compile cmd` at the end of the .cpp. */
static int load_isa(struct pt2_package *pkg, struct pkg_model *m, pt2_zip *z, struct pt2_error *err)
{
    const cJSON *v = m->aoti ? cJSON_GetObjectItemCaseSensitive(m->aoti, "AOTI_CPU_ISA") : NULL;
    char *tail = NULL;
    size_t len = 0, idx;
    struct pt2_error local = {0};
    struct pt2_cpu_isa cmd;
    int rc;

    if (cJSON_IsString(v) && v->valuestring[0] != '\0')
        pt2_isa_from_metadata(v->valuestring, &m->isa);
    if (m->cpp_entry[0] == '\0' || pt2_zip_find(z, m->cpp_entry, &idx) != PT2_OK)
        return PT2_OK;
    rc = pt2_zip_read_tail(z, idx, CPP_TAIL_MAX, &tail, &len, &local);
    if (rc != PT2_OK) {
        if (is_fatal(rc))
            pt2_error_copy(err, &local);
        else
            add_warning(pkg, local.message);
        rc = is_fatal(rc) ? rc : PT2_OK;
        goto cleanup;
    }
    if (m->isa.source[0] == '\0') {
        pt2_isa_from_compile_cmd(tail, len, &m->isa);
        goto cleanup;
    }
    /* The metadata names the ISA; the compile command still tells the exact flags. */
    memset(&cmd, 0, sizeof(cmd));
    if (pt2_isa_from_compile_cmd(tail, len, &cmd) == PT2_OK && cmd.source[0] != '\0') {
        snprintf(m->isa.march, sizeof(m->isa.march), "%s", cmd.march);
        m->isa.nflags = cmd.nflags;
        memcpy(m->isa.flags, cmd.flags, sizeof(cmd.flags));
    }
cleanup:
    free(tail);
    return rc;
}

/* The wrapper .cpp: prefer "*.wrapper.cpp"; else the last .cpp (torch's loader rule);
 * never a "*.kernel.cpp" (torch >= 2.7 keeps the kernels apart). */
static void note_cpp(struct pkg_model *m, const char *rel)
{
    if (!pt2_wrapper_is_wrapper_name(rel) ||
        (has_suffix(m->cpp_entry, ".wrapper.cpp") && !has_suffix(rel, ".wrapper.cpp")))
        return;
    snprintf(m->cpp_entry, sizeof(m->cpp_entry), "%s", rel);
}

/*
 * The wrapper .cpp streamed through pt2_wrapper in WRAPPER_CHUNK pieces: the
 * scanner keeps one line at a time and says when nothing later can matter,
 * so a several-MB wrapper is neither held whole nor (usually) read to its
 * end. A wrapper that cannot be read is a warning; only allocation failures
 * and the package-wide inflate budget stop the inspection.
 */
static int load_wrapper(struct pt2_package *pkg, struct pkg_model *m, pt2_zip *z,
                        struct pt2_error *err)
{
    struct pt2_wrapper_info info;
    struct pt2_error local = {0};
    pt2_wrapper_scan *scan = NULL;
    pt2_zip_entry *e = NULL;
    struct pt2_rd *rd;
    char *chunk = NULL;
    uint64_t off = 0;
    size_t idx, i;
    struct pt2_shader_count shaders = {0};
    const char *key = m->aoti != NULL ? pt2_json_str(m->aoti, "AOTI_DEVICE_KEY") : NULL;
    /* an MPS wrapper is read to its end: its shaders are text anywhere in it */
    int mps = key != NULL && strcmp(key, "mps") == 0;
    int rc;

    memset(&info, 0, sizeof(info));
    if (m->cpp_entry[0] == '\0' || pt2_zip_find(z, m->cpp_entry, &idx) != PT2_OK)
        return PT2_OK;
    chunk = malloc(WRAPPER_CHUNK);
    if (chunk == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    rc = pt2_wrapper_scan_new(&scan, m->name, 0, &local);
    if (rc == PT2_OK)
        rc = pt2_zip_entry_open(z, idx, &e, &local);
    if (rc == PT2_OK) {
        /* One byte past the cap, so the scanner can say the wrapper was cut. */
        uint64_t limit = PT2_WRAPPER_BYTES_MAX + 1u;

        rd = pt2_zip_entry_rd(e);
        if (rd->size < limit)
            limit = rd->size;
        pt2_rd_set_budget(rd, limit);
        while (rc == PT2_OK && off < limit &&
               (mps || pt2_wrapper_scan_wants_more(scan) || off == PT2_WRAPPER_BYTES_MAX)) {
            size_t got = 0,
                   want = limit - off < WRAPPER_CHUNK ? (size_t)(limit - off) : WRAPPER_CHUNK;
            rc = pt2_rd_read_some(rd, off, chunk, want, &got, &local);
            if (rc == PT2_OK && got == 0)
                break;
            if (rc == PT2_OK && mps)
                pt2_wrapper_count_shaders(&shaders, chunk, got);
            if (rc == PT2_OK && (pt2_wrapper_scan_wants_more(scan) || off == PT2_WRAPPER_BYTES_MAX))
                rc = pt2_wrapper_scan_feed(scan, chunk, got, &local);
            off += got;
        }
    }
    if (rc == PT2_OK)
        rc = pt2_wrapper_scan_finish(scan, &info, &local);
    if (rc == PT2_OK && mps)
        m->shaders = (int64_t)shaders.n;
    if (rc != PT2_OK) {
        if (is_fatal(rc)) {
            pt2_error_copy(err, &local);
        } else {
            char msg[PT2_ERROR_MSG_MAX];
            snprintf(msg, sizeof(msg),
                     "%.200s: the wrapper could not be read, so inputs and outputs are "
                     "unknown: %.220s",
                     m->cpp_entry, local.message);
            add_warning(pkg, msg);
            rc = PT2_OK;
        }
        goto cleanup;
    }
    for (i = 0; i < info.nwarnings; i++)
        add_warning(pkg, info.warnings[i]);
    if (!info.found)
        goto cleanup;
    m->wrapper_found = 1;
    m->has_constants = info.constants.count > 0 || info.constants.declared >= 0;
    m->constants = info.constants;
    if (!retain_tensors(pkg, m->cpp_entry, info.inputs.n + info.outputs.n))
        goto cleanup;
    /* The wrapper binds each size symbol once: other unnamed dims are not the same size. */
    for (i = 0; i < info.inputs.n; i++)
        info.inputs.v[i].independent_dims = 1;
    m->inputs = info.inputs;
    m->outputs = info.outputs;
    memset(&info.inputs, 0, sizeof(info.inputs));
    memset(&info.outputs, 0, sizeof(info.outputs));
cleanup:
    pt2_wrapper_info_free(&info);
    pt2_wrapper_scan_free(scan);
    pt2_zip_entry_free(e);
    free(chunk);
    return rc;
}

/*
 * A metadata failure counts only when no better-ranked document of the same
 * kind parsed: a broken extra_files/ copy does not hide a good extra/ one,
 * whatever the entry order.
 */
static void settle_meta_errors(struct pt2_package *pkg)
{
    int user_rank = pkg->has_user ? user_meta_rank(pkg->user_entry) : 0;

    /* The user's metadata names tensors, never what the code runs on: a malformed or
     * oversized one is a warning, and everything else is still answered. */
    if (pkg->user_err.code != PT2_OK && pkg->user_err_rank > user_rank) {
        char msg[PT2_ERROR_MSG_MAX];
        snprintf(msg, sizeof(msg),
                 "%.400s (ignored: kernels, libraries and verdicts do not "
                 "depend on it)",
                 pkg->user_err.message);
        add_warning(pkg, msg);
    }
    for (size_t i = 0; i < pkg->nmodels; i++) {
        const struct pkg_model *m = &pkg->models[i];
        int have = m->aoti != NULL ? m->aoti_rank : 0;
        if (m->aoti_err.code != PT2_OK && m->aoti_err_rank > have)
            pt2_error_copy(&pkg->meta_err, &m->aoti_err);
    }
}

/* What the walk does with an entry: the one classification walk() and plan() share. */
enum entry_kind {
    ENTRY_OTHER,
    ENTRY_USER_META,
    ENTRY_EPROG,
    /* in a model folder (mname set): */
    ENTRY_AOTI_META,
    ENTRY_CPP,
    ENTRY_BINARY,
    ENTRY_MODEL_FILE
};

static int in_model_folder(enum entry_kind k)
{
    return k == ENTRY_AOTI_META || k == ENTRY_CPP || k == ENTRY_BINARY || k == ENTRY_MODEL_FILE;
}

/* The proxy executor's nodes (ExternKernelNodes): <hw>.wrapper.json, or <hash>.json beside
 * <hash>.cpp and <hash>_metadata.json as torch 2.6 and older name it (52 base32 characters,
 * 'c' first, as every torch code hash). */
static int extern_nodes_name(const char *rel)
{
    const char *b = base_name(rel);
    size_t i;

    if (has_suffix(b, ".wrapper.json"))
        return 1;
    if (strlen(b) != 52 + 5 || b[0] != 'c' || strcmp(b + 52, ".json") != 0)
        return 0;
    for (i = 0; i < 52; i++)
        if (!((b[i] >= 'a' && b[i] <= 'z') || (b[i] >= '0' && b[i] <= '9')))
            return 0;
    return 1;
}

static enum entry_kind entry_kind(const char *rel, char *mname, size_t mlen)
{
    if (strcmp(base_name(rel), "model_metadata.json") == 0)
        return ENTRY_USER_META; /* wherever it sits: extra/, extra_files/, or a model directory */
    if (pt2_zip_layout_model_of(rel, mname, mlen, NULL) == PT2_OK) {
        if (has_suffix(rel, "metadata.json"))
            return ENTRY_AOTI_META;
        if (has_suffix(rel, ".cpp"))
            return ENTRY_CPP;
        if (is_binary_entry(rel))
            return ENTRY_BINARY;
        return ENTRY_MODEL_FILE;
    }
    if ((strncmp(rel, "models/", 7) == 0 && has_suffix(rel, ".json") &&
         strchr(rel + 7, '/') == NULL) ||
        strcmp(rel, LEGACY_EPROG) == 0)
        return ENTRY_EPROG;
    return ENTRY_OTHER;
}

/*
 * Whether the walk (or the layout, or the weights' configs) reads the data
 * of the entry with this prefix-free name: by the same classification as
 * walk(). Entries it only counts or sizes (weights, constants, blobs,
 * ExecuTorch programs, sample inputs) are not read.
 */
static int entry_read(const char *rel)
{
    char mname[PT2_NAME_MAX];

    switch (entry_kind(rel, mname, sizeof(mname))) {
    case ENTRY_USER_META:
    case ENTRY_EPROG:
    case ENTRY_AOTI_META:
    case ENTRY_CPP:
    case ENTRY_BINARY:
        return 1;
    case ENTRY_MODEL_FILE:
        return !has_suffix(rel, ".blob") && !has_suffix(rel, ".bin");
    case ENTRY_OTHER:
        break;
    }
    return pt2_zip_layout_reads(rel) || has_suffix(rel, ".json");
}

int pt2_package_entry_read(const char *name, size_t len)
{
    char rel[PT2_ZIP_NAME_LEN_MAX + 1];
    const char *slash;

    if (len > PT2_ZIP_NAME_LEN_MAX || memchr(name, '\0', len) != NULL)
        return 1; /* not a name the walk would see: keep, judge nothing */
    memcpy(rel, name, len);
    rel[len] = '\0';
    if (entry_read(rel))
        return 1;
    /* The archive prefix is known only from the directory: the name without its first folder. */
    slash = strchr(rel, '/');
    return slash != NULL && entry_read(slash + 1);
}

/*
 * Everything the walk below will read, fetched in one batch before it
 * starts: whole metadata documents, the head and tail of every binary (ELF
 * and section headers; cubins are mostly small enough to come whole), the
 * start and end of wrapper .cpp files. What the scanners then find (a
 * fatbin inside a .so) is read on demand. Only a plan: a failure here is
 * ignored, and the reads happen again where they are needed.
 */
static void plan(pt2_zip *z, const unsigned char *kinds, size_t cap)
{
    struct pt2_error ignored = {0};
    struct pt2_zip_want *w;
    size_t n = pt2_zip_count(z), k = 0;

    w = calloc(n > 0 ? n : 1, sizeof(*w));
    if (w == NULL)
        return;
    for (size_t i = 0; i < n; i++) {
        const char *rel = pt2_zip_relname(z, i);
        uint64_t csize = pt2_zip_entry_csize(z, i);

        if (rel == NULL)
            continue;
        switch ((enum entry_kind)kinds[i]) {
        case ENTRY_USER_META:
        case ENTRY_AOTI_META:
            if (pt2_zip_entry_size(z, i) <= cap)
                w[k++] = (struct pt2_zip_want){i, csize, 0};
            break;
        case ENTRY_EPROG:
            if (pt2_zip_entry_size(z, i) <= EPROG_CAP)
                w[k++] = (struct pt2_zip_want){i, csize, 0};
            break;
        case ENTRY_CPP:
            if (pt2_wrapper_is_wrapper_name(rel))
                w[k++] = (struct pt2_zip_want){i, pt2_zip_entry_stored(z, i) ? PLAN_HEAD : csize,
                                               CPP_TAIL_MAX};
            break;
        case ENTRY_BINARY:
            w[k++] = (struct pt2_zip_want){i, PLAN_HEAD, PLAN_TAIL};
            break;
        case ENTRY_OTHER:
        case ENTRY_MODEL_FILE:
            break;
        }
    }
    if (pt2_zip_prefetch(z, w, k, &ignored) != PT2_OK) {
        /* the walk reads on demand, and meets any lasting failure itself */
    }
    free(w);
}

/*
 * The second plan: with every binary's ELF header and section table in the
 * cache (the first plan's heads and tails), the sections its scan will read
 * (pt2_binary_plan) are fetched in one more batch, for all binaries at once,
 * instead of one round trip per binary as the walk meets them. It looks
 * only at what the cache holds (cached-only mode): a binary the first plan
 * could not fetch (tens of thousands of them) is read once, by the walk.
 */
static void plan_sections(pt2_zip *z, const unsigned char *kinds)
{
    struct pt2_error ignored = {0};
    struct pt2_range *all = NULL, mine[PT2_BINARY_PLAN_MAX];
    size_t n = pt2_zip_count(z), k = 0, cap = 0, m;

    pt2_source_cached_only(pt2_zip_source(z), 1);
    for (size_t i = 0; i < n; i++) {
        const char *rel = pt2_zip_relname(z, i);
        pt2_zip_entry *e = NULL;

        if (rel == NULL || !pt2_zip_entry_stored(z, i) || kinds[i] != ENTRY_BINARY)
            continue;
        if (pt2_zip_entry_open(z, i, &e, &ignored) != PT2_OK)
            continue;
        pt2_rd_set_budget(pt2_zip_entry_rd(e), PT2_RD_DEFAULT_BUDGET);
        pt2_binary_plan(pt2_zip_entry_rd(e), mine, &m);
        pt2_zip_entry_free(e);
        if (m == 0)
            continue;
        if (k + m > cap) {
            size_t ncap = cap ? cap * 2 : 64;
            struct pt2_range *na;

            while (ncap < k + m)
                ncap *= 2;
            na = realloc(all, ncap * sizeof(*na));
            if (na == NULL)
                break;
            all = na;
            cap = ncap;
        }
        k += pt2_zip_file_ranges(z, i, mine, m, all + k);
    }
    pt2_source_cached_only(pt2_zip_source(z), 0);
    if (k > 0 && pt2_source_prefetch(pt2_zip_source(z), all, k, &ignored) != PT2_OK) {
        /* read on demand */
    }
    free(all);
}

/* 1 when `name` is not the model pt2_open_options.model asks for (noted for the error). */
static int skip_model(struct pt2_package *pkg, const char *name)
{
    size_t n = strlen(pkg->others), nl = strlen(name);
    int seen = 0;

    if (pkg->only[0] == '\0' || strcmp(pkg->only, name) == 0)
        return 0;
    for (const char *p = pkg->others; !seen && (p = strstr(p, name)) != NULL; p += nl)
        seen = (p == pkg->others || p[-1] == ' ') && (p[nl] == ',' || p[nl] == '\0');
    if (!seen && n + nl + 3 < sizeof(pkg->others))
        snprintf(pkg->others + n, sizeof(pkg->others) - n, "%s%s", n > 0 ? ", " : "", name);
    pkg->nothers += !seen;
    return 1;
}

/*
 * Each entry's kind, classified once for the two plans and the walk (three
 * classifications per entry were a third of an inspection at 40,000 entries).
 * NULL when out of memory; the caller frees it.
 */
static unsigned char *entry_kinds(pt2_zip *z)
{
    size_t n = pt2_zip_count(z);
    unsigned char *kinds = malloc(n > 0 ? n : 1);
    char mname[PT2_NAME_MAX];

    for (size_t i = 0; kinds != NULL && i < n; i++) {
        const char *rel = pt2_zip_relname(z, i);

        kinds[i] =
            (unsigned char)(rel != NULL ? entry_kind(rel, mname, sizeof(mname)) : ENTRY_OTHER);
    }
    return kinds;
}

static int walk(struct pt2_package *pkg, pt2_zip *z, size_t cap, struct pt2_error *err)
{
    size_t n = pt2_zip_count(z);
    unsigned char *kinds = entry_kinds(z);
    char mname[PT2_NAME_MAX];
    int rc = PT2_OK;

    if (kinds == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory reading the archive's entries");
    plan(z, kinds, cap);
    plan_sections(z, kinds);
    for (size_t i = 0; i < n && rc == PT2_OK; i++) {
        const char *rel = pt2_zip_relname(z, i);
        enum entry_kind kind = (enum entry_kind)kinds[i];
        struct pkg_model *m = NULL;

        if (rel == NULL)
            continue;
        mname[0] = '\0';
        if (kind == ENTRY_EPROG)
            eprog_name(rel, mname, sizeof(mname));
        else if (in_model_folder(kind)) /* its name, as entry_kind found it */
            pt2_zip_layout_model_of(rel, mname, sizeof(mname), NULL);
        if ((kind == ENTRY_EPROG || in_model_folder(kind)) && skip_model(pkg, mname))
            continue;
        if (kind == ENTRY_OTHER) {
            note_other(pkg, z, i, rel);
        } else if (kind == ENTRY_USER_META) {
            rc = load_user_meta(pkg, z, i, rel, cap, err);
        } else if (kind == ENTRY_EPROG) {
            rc = load_eprog(pkg, z, i, rel, cap, err);
        } else {
            rc = add_model(pkg, mname, &m, err);
            if (rc != PT2_OK)
                break;
            m->files++;
            if (kind == ENTRY_AOTI_META)
                rc = load_aoti_meta(pkg, m, z, i, rel, cap, err);
            else if (kind == ENTRY_CPP)
                note_cpp(m, rel);
            else if (kind == ENTRY_BINARY)
                rc = scan_binary(pkg, z, i, rel, err);
            else if (kind == ENTRY_MODEL_FILE && extern_nodes_name(rel))
                rc = load_custom_ops(pkg, m, z, i, rel, cap, err);
            else if (kind == ENTRY_MODEL_FILE && strcmp(base_name(rel), "CMakeLists.txt") == 0)
                rc = load_cmake(pkg, m, z, i, err);
            else if (kind == ENTRY_MODEL_FILE && strcmp(base_name(rel), "weights_config.json") == 0)
                snprintf(m->weights_config, sizeof(m->weights_config), "%s", rel);
            else if (kind == ENTRY_MODEL_FILE && has_suffix(rel, ".blob"))
                blob_seen(pkg, m, z, i, rel);
        }
    }
    free(kinds);
    for (size_t i = 0; i < pkg->nmodels && rc == PT2_OK; i++) {
        rc = load_isa(pkg, &pkg->models[i], z, err);
        if (rc == PT2_OK)
            rc = load_wrapper(pkg, &pkg->models[i], z, err);
    }
    for (size_t i = 0; i < pkg->nmodels && rc == PT2_OK; i++)
        rc = narrow_specs(pkg, &pkg->models[i], err);
    if (rc == PT2_OK)
        rc = settle_weights(pkg, z, err);
    if (rc == PT2_OK)
        settle_models(pkg);
    if (rc == PT2_OK)
        settle_meta_errors(pkg);
    return rc;
}

static int open_common(pt2_package **out, pt2_zip *z, const char *name,
                       const struct pt2_open_options *opts, struct pt2_error *err)
{
    struct pt2_package *pkg;
    size_t cap = (opts && opts->json_cap) ? opts->json_cap : JSON_CAP_DEFAULT;
    struct pt2_budget budget;
    int rc;

    pkg = calloc(1, sizeof(*pkg));
    if (pkg == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    snprintf(pkg->display_name, sizeof(pkg->display_name), "%s",
             (opts && opts->display_name) ? opts->display_name : name);
    if (opts != NULL && opts->model != NULL)
        snprintf(pkg->only, sizeof(pkg->only), "%s", opts->model);
    pt2_budget_begin(&budget); /* every JSON document of this inspection draws on it */
    rc = pt2_zip_layout(z, &pkg->layout, err);
    if (rc == PT2_OK)
        rc = walk(pkg, z, cap, err);
    pt2_budget_end(&budget);
    if (rc == PT2_OK && pkg->only[0] != '\0' && pkg->nmodels == 0 && pkg->neprogs == 0)
        rc = pt2_error_set(err, PT2_ERR_NOT_FOUND,
                           "no model '%.100s' in the package; available models: %s", pkg->only,
                           pkg->nothers > 0 ? pkg->others : "none");
    /* A source that failed underneath (a remote object replaced, a timeout) fails the whole
     * inspection: never an answer from a mix of what was read before and after. */
    if (rc == PT2_OK)
        rc = pt2_source_failed(pt2_zip_source(z), err);
    pkg->bytes_read = pt2_zip_bytes_read(z);
    pkg->read_calls = pt2_zip_read_calls(z);
    if (rc != PT2_OK) {
        pt2_package_free(pkg);
        return rc;
    }
    *out = pkg;
    return PT2_OK;
}

int pt2_package_open_path(pt2_package **out, const char *path, const struct pt2_open_options *opts,
                          struct pt2_error *err)
{
    pt2_zip *z = NULL;
    int rc;

    *out = NULL;
    if (path == NULL || path[0] == '\0')
        return pt2_error_set(err, PT2_ERR_INVALID, "no package path given");
    rc = pt2_zip_open_path(&z, path, err);
    if (rc == PT2_OK)
        rc = open_common(out, z, base_name(path), opts, err);
    pt2_zip_free(z);
    return rc;
}

int pt2_package_open_fd(pt2_package **out, int fd, const struct pt2_open_options *opts,
                        struct pt2_error *err)
{
    pt2_zip *z = NULL;
    int rc;

    *out = NULL;
    if (fd < 0)
        return pt2_error_set(err, PT2_ERR_INVALID, "invalid file descriptor");
    rc = pt2_zip_open_fd(&z, fd, err);
    if (rc == PT2_OK)
        rc = open_common(out, z, "upload.pt2", opts, err);
    pt2_zip_free(z);
    return rc;
}

int pt2_package_open_source(pt2_package **out, pt2_source *src, const struct pt2_open_options *opts,
                            struct pt2_error *err)
{
    pt2_zip *z = NULL;
    int rc;

    *out = NULL;
    if (src == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "no byte source given");
    rc = pt2_zip_open_source(&z, src, err);
    if (rc == PT2_OK)
        rc = open_common(out, z, "package.pt2", opts, err);
    pt2_zip_free(z);
    return rc;
}

void pt2_package_set_source(pt2_package *pkg, cJSON *source)
{
    cJSON_Delete(pkg->source);
    pkg->source = source;
}

const cJSON *pt2_package_source(const pt2_package *pkg)
{
    return pkg->source;
}

void pt2_package_free(pt2_package *pkg)
{
    if (pkg == NULL)
        return;
    cJSON_Delete(pkg->source);
    for (size_t i = 0; i < pkg->nmodels; i++) {
        cJSON_Delete(pkg->models[i].aoti);
        pt2_tensor_list_free(&pkg->models[i].inputs);
        pt2_tensor_list_free(&pkg->models[i].outputs);
        pt2_tensor_list_free(&pkg->models[i].spec_in);
        pt2_tensor_list_free(&pkg->models[i].spec_out);
    }
    free(pkg->models);
    for (size_t i = 0; i < pkg->neprogs; i++) {
        pt2_tensor_list_free(&pkg->eprogs[i].inputs);
        pt2_tensor_list_free(&pkg->eprogs[i].outputs);
    }
    free(pkg->eprogs);
    if (pkg->has_user)
        pt2_meta_user_free(&pkg->user);
    pt2_kernel_list_free(&pkg->kernels);
    pt2_host_list_free(&pkg->hosts);
    free(pkg->executorch);
    free(pkg->pickles);
    free(pkg->warnings);
    free(pkg);
}

uint64_t pt2_package_bytes_read(const pt2_package *pkg)
{
    return pkg->bytes_read;
}

uint64_t pt2_package_read_calls(const pt2_package *pkg)
{
    return pkg->read_calls;
}

static uint64_t hosts_needs_memory(const struct pt2_host_list *h)
{
    uint64_t n = 0;
    for (size_t i = 0; i < h->n; i++)
        n += pt2_needs_memory(h->v[i].needs);
    return n;
}

/* A cJSON tree costs several times its text (a node of ~64 bytes per value). */
#define JSON_TREE_PER_TEXT_BYTE 4

uint64_t pt2_package_memory(const pt2_package *pkg)
{
    if (pkg == NULL)
        return 0;
    return sizeof(*pkg) + (uint64_t)pkg->models_cap * sizeof(pkg->models[0]) +
           (uint64_t)pkg->kernels.cap * sizeof(pkg->kernels.v[0]) +
           (uint64_t)pkg->kernels.nsources * PT2_PATH_MAX + /* at most, each */
           (uint64_t)pkg->hosts.cap * sizeof(pkg->hosts.v[0]) + hosts_needs_memory(&pkg->hosts) +
           (uint64_t)pkg->neprogs * sizeof(pkg->eprogs[0]) +
           pkg->retained_json * JSON_TREE_PER_TEXT_BYTE +
           (uint64_t)pkg->retained_tensors * sizeof(struct pt2_tensor) +
           (uint64_t)pkg->warnings_cap * sizeof(pkg->warnings[0]) +
           (uint64_t)(pkg->executorch_cap + pkg->pickles_cap) * sizeof(struct pkg_extra);
}

/* ---- accessors used by pt2_report.c and the compatibility calls --------- */

int pt2_package_host_in_model(const pt2_package *pkg, size_t m, size_t h)
{
    const char *src = pkg->hosts.v[h].source, *name = pkg->models[m].name;
    size_t dl = sizeof(AOTI_DIR) - 1, nl = strlen(name);

    return strncmp(src, AOTI_DIR, dl) == 0 && strncmp(src + dl, name, nl) == 0 &&
           src[dl + nl] == '/' && strchr(src + dl + nl + 1, '/') == NULL;
}

int pt2_package_model_library(const pt2_package *pkg, size_t m, size_t *host)
{
    for (size_t h = 0; h < pkg->hosts.n; h++)
        if (pt2_package_host_in_model(pkg, m, h) && pt2_runtime_host_loaded(&pkg->hosts, h)) {
            if (host != NULL)
                *host = h;
            return 1;
        }
    return 0;
}

int pt2_package_model_cpp_only(const pt2_package *pkg, size_t i)
{
    return pt2_package_model_has_sources(pkg, i) && !pt2_package_model_library(pkg, i, NULL) &&
           pkg->models[i].has_cmake;
}

void pt2_package_model_unloadable(const pt2_package *pkg, size_t i, struct pt2_verdict_result *r)
{
    const struct pkg_model *m = &pkg->models[i];

    if (pt2_package_model_has_sources(pkg, i)) {
        /* torch's loader builds such a package when it loads it (torch 2.14: "Failed to
         * compile cpp file." where no g++ is found), so it loads only where it can compile */
        snprintf(r->code, sizeof(r->code), "needs-compile");
        snprintf(r->reason, sizeof(r->reason),
                 "model '%.100s' ships C++ sources and no compiled library "
                 "(aot_inductor.package_cpp_only): torch's loader compiles it when it loads it, "
                 "so it loads only where a C++ compiler and torch's headers are installed",
                 m->name);
        snprintf(r->advice, sizeof(r->advice),
                 "Serve it from an image with g++ and torch's headers, or compile it ahead: "
                 "cmake -S data/aotinductor/%.100s/ -B build -DCMAKE_PREFIX_PATH=$(python -c "
                 "'import torch; print(torch.utils.cmake_prefix_path)') && cmake --build "
                 "build%s%.100s; or re-export without package_cpp_only.",
                 m->name, m->cmake_target[0] != '\0' ? " --target " : "", m->cmake_target);
        return;
    }
    snprintf(r->code, sizeof(r->code), "not-loadable");
    snprintf(r->reason, sizeof(r->reason),
             "model '%.100s' has no library torch can load (no .so in data/aotinductor/%.100s/)",
             m->name, m->name);
    snprintf(r->advice, sizeof(r->advice),
             "Re-export the model with torch._inductor.aoti_compile_and_package, which packages "
             "the compiled library.");
}

const char *pt2_package_model_cmake_target(const pt2_package *pkg, size_t i)
{
    return pkg->models[i].cmake_target;
}

const struct pt2_weights *pt2_package_model_weights(const pt2_package *pkg, size_t i)
{
    return &pkg->models[i].weights;
}

const struct pt2_weights *pt2_package_eprog_weights(const pt2_package *pkg, size_t i)
{
    return &pkg->eprogs[i].weights;
}

int pt2_package_model_custom_op_python(const pt2_package *pkg, size_t i, size_t k)
{
    return k < pkg->models[i].ncustom_ops && pkg->models[i].custom_py[k];
}

size_t pt2_package_model_custom_ops(const pt2_package *pkg, size_t i, size_t k, const char **op,
                                    size_t *nodes)
{
    if (nodes != NULL)
        *nodes = pkg->models[i].proxy_nodes;
    if (op != NULL)
        *op = k < pkg->models[i].ncustom_ops ? pkg->models[i].custom_ops[k] : NULL;
    return pkg->models[i].ncustom_ops;
}

const char *pt2_package_selected_model(const pt2_package *pkg)
{
    return pkg->only[0] != '\0' ? pkg->only : NULL;
}

int64_t pt2_package_model_shaders(const pt2_package *pkg, size_t i)
{
    return pkg->models[i].shaders;
}

size_t pt2_package_extra(const pt2_package *pkg, int pickles, size_t k, const char **entry,
                         const char **kind, uint64_t *size)
{
    const struct pkg_extra *v = pickles ? pkg->pickles : pkg->executorch;
    size_t n = pickles ? pkg->npickles : pkg->nexecutorch;

    if (k < n) {
        *entry = v[k].entry;
        *kind = v[k].kind;
        *size = v[k].size;
    }
    return n;
}

int pt2_package_model_has_sources(const pt2_package *pkg, size_t i)
{
    return i < pkg->nmodels && (pkg->models[i].has_cmake || pkg->models[i].cpp_entry[0] != '\0');
}

const char *pt2_package_name(const pt2_package *pkg)
{
    return pkg->display_name;
}

const struct pt2_zip_layout *pt2_package_layout(const pt2_package *pkg)
{
    return &pkg->layout;
}

const struct pt2_kernel_list *pt2_package_kernels(const pt2_package *pkg)
{
    return &pkg->kernels;
}

const struct pt2_host_list *pt2_package_hosts(const pt2_package *pkg)
{
    return &pkg->hosts;
}

size_t pt2_package_model_count(const pt2_package *pkg)
{
    return pkg->nmodels;
}

const char *pt2_package_model_name(const pt2_package *pkg, size_t i)
{
    return pkg->models[i].name;
}

const cJSON *pt2_package_model_aoti(const pt2_package *pkg, size_t i, const char **entry)
{
    if (entry != NULL)
        *entry = pkg->models[i].aoti_entry;
    return pkg->models[i].aoti;
}

const struct pt2_cpu_isa *pt2_package_model_isa(const pt2_package *pkg, size_t i)
{
    return &pkg->models[i].isa;
}

size_t pt2_package_model_files(const pt2_package *pkg, size_t i)
{
    return pkg->models[i].files;
}

const struct pt2_meta_user *pt2_package_user_meta(const pt2_package *pkg, const char **entry)
{
    if (!pkg->has_user)
        return NULL;
    if (entry != NULL)
        *entry = pkg->user_entry;
    return &pkg->user;
}

size_t pt2_package_eprog_count(const pt2_package *pkg)
{
    return pkg->neprogs;
}

const char *pt2_package_eprog(const pt2_package *pkg, size_t i, const char **entry,
                              const struct pt2_tensor_list **inputs,
                              const struct pt2_tensor_list **outputs)
{
    const struct pkg_eprog *ep = &pkg->eprogs[i];
    if (entry)
        *entry = ep->entry;
    if (inputs)
        *inputs = &ep->inputs;
    if (outputs)
        *outputs = &ep->outputs;
    return ep->name;
}

const struct pt2_error *pt2_package_meta_error(const pt2_package *pkg)
{
    return pkg->meta_err.code != PT2_OK ? &pkg->meta_err : NULL;
}

size_t pt2_package_warning_count(const pt2_package *pkg)
{
    return pkg->nwarnings;
}

const char *pt2_package_warning(const pt2_package *pkg, size_t i)
{
    return pkg->warnings[i];
}

const char *pt2_package_device_key(const pt2_package *pkg, size_t model)
{
    const cJSON *v;

    if (model >= pkg->nmodels || pkg->models[model].aoti == NULL)
        return NULL;
    v = cJSON_GetObjectItemCaseSensitive(pkg->models[model].aoti, "AOTI_DEVICE_KEY");
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static const char *model_meta_str(const pt2_package *pkg, size_t model, const char *key)
{
    const cJSON *v;

    if (model >= pkg->nmodels || pkg->models[model].aoti == NULL)
        return NULL;
    v = cJSON_GetObjectItemCaseSensitive(pkg->models[model].aoti, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The exported program that describes model `name`, or NULL. */
static const struct pkg_eprog *eprog_of(const pt2_package *pkg, const char *name)
{
    for (size_t i = 0; i < pkg->neprogs; i++)
        if (strcmp(pkg->eprogs[i].name, name) == 0)
            return &pkg->eprogs[i];
    return NULL;
}

const char *pt2_package_model_specs(const pt2_package *pkg, size_t i,
                                    const struct pt2_tensor_list **inputs,
                                    const struct pt2_tensor_list **outputs)
{
    const struct pkg_model *m = &pkg->models[i];
    const struct pkg_eprog *ep = eprog_of(pkg, m->name);

    if (ep != NULL) {
        *inputs = m->narrowed ? &m->spec_in : &ep->inputs;
        *outputs = m->narrowed ? &m->spec_out : &ep->outputs;
        return ep->entry;
    }
    *inputs = &m->inputs;
    *outputs = &m->outputs;
    return m->wrapper_found ? m->cpp_entry : NULL;
}

const struct pt2_constants *pt2_package_model_constants(const pt2_package *pkg, size_t i,
                                                        const char **entry)
{
    const struct pkg_model *m = &pkg->models[i];
    const struct pkg_eprog *ep = eprog_of(pkg, m->name);

    if (m->has_constants) {
        *entry = m->cpp_entry;
        return &m->constants;
    }
    if (ep != NULL) {
        *entry = ep->entry;
        return &ep->constants;
    }
    *entry = NULL;
    return NULL;
}

const struct pt2_constants *pt2_package_eprog_constants(const pt2_package *pkg, size_t i)
{
    return &pkg->eprogs[i].constants;
}

const char *pt2_package_kind(const pt2_package *pkg)
{
    if (pkg->nmodels > 0 && pkg->neprogs > 0)
        return "aoti+exported-program";
    if (pkg->nmodels > 0)
        return "aoti";
    if (pkg->neprogs > 0)
        return "exported-program";
    return NULL;
}

/*
 * Tensor specs the package declares for its inputs, by precedence: a user
 * model_metadata.json, then an exported program, then the first model's AOTI
 * wrapper. *entry (may be NULL) names where they came from. NULL when the
 * package records none.
 */
static const struct pt2_tensor_list *specs(const pt2_package *pkg, int outputs, const char **entry)
{
    const char *e = NULL;
    const struct pt2_tensor_list *l = NULL;

    if (pkg->has_user && pkg->user.inputs.n + pkg->user.outputs.n > 0) {
        l = outputs ? &pkg->user.outputs : &pkg->user.inputs;
        e = pkg->user_entry;
    } else if (pkg->neprogs > 0) {
        const struct pkg_model *m = find_model((struct pt2_package *)pkg, pkg->eprogs[0].name);

        if (m != NULL && m->narrowed)
            l = outputs ? &m->spec_out : &m->spec_in;
        else
            l = outputs ? &pkg->eprogs[0].outputs : &pkg->eprogs[0].inputs;
        e = pkg->eprogs[0].entry;
    } else {
        for (size_t i = 0; i < pkg->nmodels && l == NULL; i++) {
            if (pkg->models[i].wrapper_found) {
                l = outputs ? &pkg->models[i].outputs : &pkg->models[i].inputs;
                e = pkg->models[i].cpp_entry;
            }
        }
    }
    if (l == NULL && pkg->has_user) {
        l = outputs ? &pkg->user.outputs : &pkg->user.inputs;
        e = pkg->user_entry;
    }
    if (entry != NULL)
        *entry = e;
    return l;
}

const struct pt2_tensor_list *pt2_package_inputs(const pt2_package *pkg)
{
    return specs(pkg, 0, NULL);
}

const struct pt2_tensor_list *pt2_package_outputs(const pt2_package *pkg)
{
    return specs(pkg, 1, NULL);
}

const char *pt2_package_specs_source(const pt2_package *pkg)
{
    const char *e = NULL;

    specs(pkg, 0, &e);
    return e;
}

/* ---- validation --------------------------------------------------------- */

/* The warning for inputs whose shapes the package does not record (only names checked). */
static void unrecorded_note(const struct pt2_tensor_list *l, char *buf, size_t len)
{
    struct pt2_sbuf b;
    size_t i, n = 0;

    for (i = 0; i < l->n; i++)
        n += l->v[i].ndim < 0;
    buf[0] = '\0';
    if (n == 0)
        return;
    pt2_sbuf_init(&b, buf, len);
    if (n == l->n) {
        pt2_sbuf_add(&b, "the package records input names but not their shapes: only the names "
                         "were checked");
        return;
    }
    pt2_sbuf_add(&b, "the package does not record the shape of ");
    for (i = 0, n = 0; i < l->n; i++)
        if (l->v[i].ndim < 0)
            pt2_sbuf_add(&b, "%s'%s'", n++ > 0 ? ", " : "", l->v[i].name);
    pt2_sbuf_add(&b, ": only %s checked", n == 1 ? "its name was" : "their names were");
}

int pt2_package_validate(const pt2_package *pkg, const cJSON *inputs, cJSON **out,
                         struct pt2_error *err)
{
    const struct pt2_tensor_list *expected;
    cJSON *doc = NULL, *valid, *errors, *warnings;
    char note[PT2_ERROR_MSG_MAX];
    int rc;

    *out = NULL;
    if (pkg->meta_err.code != PT2_OK)
        return pt2_error_copy(err, &pkg->meta_err);
    if (!cJSON_IsObject(inputs))
        return pt2_error_set(err, PT2_ERR_INVALID,
                             "inputs must be a JSON object {\"name\": [d0, d1, ...]}");
    expected = pt2_package_inputs(pkg);
    if (expected == NULL)
        return pt2_error_set(err, PT2_ERR_NOT_FOUND,
                             "the package records no inputs (no model_metadata.json, no "
                             "exported program and no AOTI wrapper with input names)");
    /* The arrays hang in the document from the start: one cJSON_Delete frees all on failure. */
    doc = cJSON_CreateObject();
    if (doc == NULL || (valid = cJSON_AddFalseToObject(doc, "valid")) == NULL ||
        (errors = cJSON_AddArrayToObject(doc, "errors")) == NULL ||
        (warnings = cJSON_AddArrayToObject(doc, "warnings")) == NULL) {
        rc = pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    rc = pt2_tensor_validate(expected, inputs, errors, err);
    if (rc != PT2_OK)
        goto cleanup;
    unrecorded_note(expected, note, sizeof(note));
    if (note[0] != '\0' && !cJSON_AddItemToArray(warnings, cJSON_CreateString(note))) {
        rc = pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    if (cJSON_GetArraySize(errors) == 0)
        valid->type = cJSON_True; /* cJSON 1.7.15 has no cJSON_SetBoolValue */
cleanup:
    if (rc != PT2_OK) {
        cJSON_Delete(doc);
        return rc;
    }
    *out = doc;
    return PT2_OK;
}

/* ---- compatibility ------------------------------------------------------ */

/* Kernels of one model: those whose source lies in its directory. */
static int model_kernels(const pt2_package *pkg, size_t model, struct pt2_kernel_list *out,
                         struct pt2_error *err)
{
    char dir[PT2_PATH_MAX];
    size_t dlen;

    snprintf(dir, sizeof(dir), "%s%s/", AOTI_DIR, pkg->models[model].name);
    dlen = strlen(dir);
    for (size_t i = 0; i < pkg->kernels.n; i++) {
        if (strncmp(pkg->kernels.v[i].source, dir, dlen) != 0)
            continue;
        int rc = pt2_kernel_list_push(out, &pkg->kernels.v[i], err);
        if (rc != PT2_OK)
            return rc;
    }
    return PT2_OK;
}

static int verdict_rank(int v)
{
    return v == PT2_INCOMPATIBLE ? 2 : v == PT2_COMPATIBLE_PTX_JIT ? 1 : 0;
}

int pt2_package_check_device_model(const pt2_package *pkg, size_t m, const struct pt2_device *dev,
                                   struct pt2_verdict_result *out, struct pt2_error *err)
{
    struct pt2_kernel_list ks = {0};
    int rc = model_kernels(pkg, m, &ks, err);

    if (rc == PT2_OK)
        rc = pt2_compat_gpu(&ks, pt2_package_device_key(pkg, m),
                            model_meta_str(pkg, m, "AOTI_COMPUTE_CAPABILITY"), dev, out, err);
    pt2_kernel_list_free(&ks);
    return rc;
}

int pt2_package_check_device(const pt2_package *pkg, const struct pt2_device *dev,
                             struct pt2_verdict_result *out, struct pt2_error *err)
{
    int rc = PT2_OK, have = 0;

    memset(out, 0, sizeof(*out));
    if (pkg->nmodels == 0) {
        out->verdict = PT2_COMPATIBLE;
        snprintf(out->code, sizeof(out->code), "compatible");
        snprintf(out->reason, sizeof(out->reason),
                 "no compiled code (exported program only): runs wherever torch runs");
        return PT2_OK;
    }
    /* Each model loads on its own; the package verdict is the worst of them. */
    for (size_t m = 0; m < pkg->nmodels; m++) {
        struct pt2_verdict_result r;

        rc = pt2_package_check_device_model(pkg, m, dev, &r, err);
        if (rc != PT2_OK)
            return rc;
        if (!have || verdict_rank(r.verdict) > verdict_rank(out->verdict)) {
            *out = r; /* code and requirements with it */
            if (pkg->nmodels > 1)
                snprintf(out->reason, sizeof(out->reason), "model '%.100s': %.400s",
                         pkg->models[m].name, r.reason);
            have = 1;
        }
    }
    return PT2_OK;
}

int pt2_package_check_cpu(const pt2_package *pkg, const char *machine, const char *const *features,
                          size_t nfeatures, struct pt2_verdict_result *out, struct pt2_error *err)
{
    int rc = PT2_OK, have = 0;

    memset(out, 0, sizeof(*out));
    if (pkg->nmodels == 0) {
        out->verdict = PT2_COMPATIBLE;
        snprintf(out->code, sizeof(out->code), "compatible");
        snprintf(out->reason, sizeof(out->reason),
                 "no compiled code (exported program only): runs wherever torch runs");
        return PT2_OK;
    }
    for (size_t m = 0; m < pkg->nmodels; m++) {
        struct pt2_verdict_result r;
        /* the library the loader takes is what runs; the others are warned about */
        struct pt2_host_list one = {0};
        size_t h;

        if (pt2_package_model_library(pkg, m, &h)) {
            one.v = &pkg->hosts.v[h];
            one.n = one.cap = 1;
        }
        if (one.n == 0 && (pkg->hosts.n == 0 || pt2_package_model_has_sources(pkg, m))) {
            /* nothing to load: sources to build first (an object file beside them, such as
             * torch's <hash>.weights.o, is no library), or missing */
            memset(&r, 0, sizeof(r));
            r.verdict = PT2_INCOMPATIBLE;
            pt2_package_model_unloadable(pkg, m, &r);
        } else {
            rc = pt2_compat_cpu(one.n > 0 ? &one : &pkg->hosts, &pkg->models[m].isa, machine,
                                features, nfeatures, &r, err);
        }
        if (rc != PT2_OK)
            return rc;
        if (!have || verdict_rank(r.verdict) > verdict_rank(out->verdict)) {
            *out = r;
            have = 1;
        }
    }
    return PT2_OK;
}
