/*
 * pt2_verdicts.c - the compatibility answer and the node rule (see
 * pt2_verdicts.h and pt2scope.h "Verdicts").
 *
 * Entries are kept as the JSON array they are answered as; the overall
 * verdict is tracked beside them in typed form, so nothing is ever decided
 * by re-reading strings.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_compat.h"
#include "pt2_target.h"
#include "pt2_inspect.h"
#include "pt2_node.h"
#include "pt2_runtime.h"
#include "pt2_model.h"
#include "pt2_sbuf.h"
#include "pt2_verdicts.h"

#define NAMES_MAX 4

struct pt2_verdicts {
    cJSON *entries;
    size_t ntargets;
    struct pt2_verdict_result worst_target; /* reason prefixed with the target */
    int have_node;
    struct pt2_verdict_result node;
    size_t nruntimes;
    struct pt2_verdict_result worst_runtime; /* reason prefixed with the runtime */
    int strict;                              /* every unverified requirement is incompatible */
};

void pt2_verdicts_set_strict(pt2_verdicts *v, int strict)
{
    if (v != NULL)
        v->strict = strict != 0;
}

/* --strict: a requirement the device does not settle is not met. */
static void apply_strict(const pt2_verdicts *v, struct pt2_verdict_result *r)
{
    char why[560];

    if (!v->strict || r->unverified == 0 || r->verdict == PT2_INCOMPATIBLE)
        return;
    snprintf(why, sizeof(why), "%s", r->reason);
    r->verdict = PT2_INCOMPATIBLE;
    if (r->unverified & PT2_UNVERIFIED_CUDA_DRIVER) {
        char c[16];
        snprintf(c, sizeof(c), "%d.%d", r->requires_driver / 1000,
                 (r->requires_driver % 1000) / 10);
        snprintf(r->code, sizeof(r->code), "driver-unknown");
        snprintf(r->reason, sizeof(r->reason),
                 "strict: the driver version is unknown and the "
                 "package needs CUDA %s; %.420s",
                 c, why);
        snprintf(r->advice, sizeof(r->advice),
                 "Give the node's driver version (--driver, driver=) or check on the node itself.");
    } else if (r->unverified & PT2_UNVERIFIED_CPU_FEATURES) {
        snprintf(r->code, sizeof(r->code), "cpu-unknown");
        snprintf(r->reason, sizeof(r->reason),
                 "strict: the CPU's features are unknown and the "
                 "package needs %.100s; %.340s",
                 r->requires_cpu, why);
        snprintf(r->advice, sizeof(r->advice),
                 "Label the nodes with Node Feature Discovery, or check on the node itself.");
    } else {
        snprintf(r->code, sizeof(r->code), "runtime");
        snprintf(r->reason, sizeof(r->reason), "strict: %.500s", why);
        if (r->advice[0] == '\0')
            snprintf(r->advice, sizeof(r->advice),
                     "Describe the runtime further (torch=, glibc=) or check it with --sysroot.");
    }
}

/* "code", "requires" and "unverified" of a device or CPU entry. */
static int add_requirements(cJSON *e, const struct pt2_verdict_result *r)
{
    cJSON *req, *unv;
    char c[16];
    int ok;

    /* one at a time: each is owned by `e` (or freed) before the next is made */
    if (!pt2_json_add_owned(e, "requires", req = cJSON_CreateObject()) ||
        !pt2_json_add_owned(e, "unverified", unv = cJSON_CreateArray()))
        return 0;
    ok = cJSON_AddStringToObject(e, "code", pt2_verdicts_code(r->code, r->verdict)) != NULL;
    if (ok && r->requires_driver > 0) {
        snprintf(c, sizeof(c), "%d.%d", r->requires_driver / 1000,
                 (r->requires_driver % 1000) / 10);
        ok = cJSON_AddStringToObject(req, "cuda_driver", c) != NULL;
        snprintf(c, sizeof(c), "%d", pt2_compat_cuda_branch(r->requires_driver));
        ok = ok && (pt2_compat_cuda_branch(r->requires_driver) == 0 ||
                    cJSON_AddStringToObject(req, "driver_branch", c) != NULL);
    }
    if (ok && r->requires_cpu[0] != '\0') {
        cJSON *f = cJSON_AddArrayToObject(req, "cpu_features");
        char buf[sizeof(r->requires_cpu)], *save = NULL, *t;
        snprintf(buf, sizeof(buf), "%s", r->requires_cpu);
        for (t = strtok_r(buf, ",", &save); ok && f != NULL && t != NULL;
             t = strtok_r(NULL, ",", &save))
            ok = pt2_json_add_owned(f, NULL, cJSON_CreateString(t));
        ok = ok && f != NULL;
    }
    if (ok && (r->unverified & PT2_UNVERIFIED_CUDA_DRIVER))
        ok = pt2_json_add_owned(unv, NULL, cJSON_CreateString("cuda_driver"));
    if (ok && (r->unverified & PT2_UNVERIFIED_CPU_FEATURES))
        ok = pt2_json_add_owned(unv, NULL, cJSON_CreateString("cpu_features"));
    return ok;
}

/* ---- what the package needs --------------------------------------------------- */

static void name_add(char names[NAMES_MAX][32], size_t *n, size_t *more, const char *name)
{
    size_t i;

    for (i = 0; i < *n; i++)
        if (strcmp(names[i], name) == 0)
            return;
    if (*n < NAMES_MAX)
        snprintf(names[(*n)++], sizeof(names[0]), "%s", name);
    else
        (*more)++;
}

static void names_print(struct pt2_sbuf *b, const char *words, char names[NAMES_MAX][32], size_t n,
                        size_t more)
{
    size_t i;

    pt2_sbuf_add(b, "%s", words);
    if (n == 0)
        return;
    pt2_sbuf_add(b, " (");
    for (i = 0; i < n; i++)
        pt2_sbuf_add(b, "%s%s", i > 0 ? ", " : "", names[i]);
    if (more > 0)
        pt2_sbuf_add(b, " and %zu more", more);
    pt2_sbuf_add(b, ")");
}

unsigned pt2_verdicts_need(const pt2_package *pkg, char *what, size_t len)
{
    const struct pt2_kernel_list *ks = pt2_package_kernels(pkg);
    char nv[NAMES_MAX][32], amd[NAMES_MAX][32], key[32] = "";
    size_t nnv = 0, namd = 0, morenv = 0, moreamd = 0, i, m;
    unsigned need = 0;
    struct pt2_sbuf b;

    for (i = 0; ks != NULL && i < ks->n; i++) {
        const struct pt2_kernel *k = &ks->v[i];
        char name[64];

        if (k->kind == PT2_KERNEL_SASS && k->has_code == 0)
            continue; /* a device-link stub runs nowhere and needs nothing */
        pt2_kernel_target_name(k, name, sizeof(name));
        if (k->kind == PT2_KERNEL_SASS || k->kind == PT2_KERNEL_PTX) {
            need |= PT2_NEED_NVIDIA;
            name_add(nv, &nnv, &morenv, name);
        } else if (k->kind == PT2_KERNEL_HSACO) {
            need |= PT2_NEED_AMD;
            name_add(amd, &namd, &moreamd, k->gfx);
        } else {
            need |= PT2_NEED_OTHER;
            snprintf(key, sizeof(key), "xpu");
        }
    }
    /* No kernel binary: the models' metadata says what they were built for. */
    for (m = 0; need == 0 && m < pt2_package_model_count(pkg); m++) {
        const char *dk = pt2_package_device_key(pkg, m);
        const cJSON *aoti = pt2_package_model_aoti(pkg, m, NULL);
        const char *cc = pt2_json_str(aoti, "AOTI_COMPUTE_CAPABILITY");

        if (dk == NULL || dk[0] == '\0' || strcmp(dk, "cpu") == 0)
            continue;
        if (cc != NULL && strncmp(cc, "gfx", 3) == 0) {
            need |= PT2_NEED_AMD;
            name_add(amd, &namd, &moreamd, cc);
        } else if (strcmp(dk, "cuda") == 0) {
            char sm[40];
            need |= PT2_NEED_NVIDIA;
            if (cc != NULL && cc[0] != '\0') {
                snprintf(sm, sizeof(sm), "sm_%.30s", cc);
                name_add(nv, &nnv, &morenv, sm);
            }
        } else {
            need |= PT2_NEED_OTHER;
            snprintf(key, sizeof(key), "%.30s", dk);
        }
    }
    pt2_sbuf_init(&b, what, len);
    if (need & PT2_NEED_NVIDIA)
        names_print(&b, "an NVIDIA GPU", nv, nnv, morenv);
    if (need & PT2_NEED_AMD)
        names_print(&b, (need & PT2_NEED_NVIDIA) ? " or an AMD GPU" : "an AMD GPU", amd, namd,
                    moreamd);
    if ((need & PT2_NEED_OTHER) && !(need & (PT2_NEED_NVIDIA | PT2_NEED_AMD)))
        pt2_sbuf_add(&b, "an %s device", key);
    return need;
}

const char *pt2_verdicts_platform(const pt2_package *pkg, size_t model)
{
    const struct pt2_kernel_list *ks = pt2_package_kernels(pkg);
    const char *name = pt2_package_model_name(pkg, model);
    const char *dk = pt2_package_device_key(pkg, model);
    const char *cc =
        pt2_json_str(pt2_package_model_aoti(pkg, model, NULL), "AOTI_COMPUTE_CAPABILITY");
    char dir[PT2_PATH_MAX];
    size_t i;

    snprintf(dir, sizeof(dir), "data/aotinductor/%s/", name);
    /* The kernels decide: ROCm builds of torch use the device key "cuda". */
    for (i = 0; ks != NULL && i < ks->n; i++) {
        if (strncmp(ks->v[i].source, dir, strlen(dir)) != 0)
            continue;
        switch (ks->v[i].kind) {
        case PT2_KERNEL_HSACO:
            return "rocm";
        case PT2_KERNEL_SASS:
        case PT2_KERNEL_PTX:
            return "cuda";
        default:
            return "xpu";
        }
    }
    if (dk == NULL || dk[0] == '\0')
        return "cpu";
    if (strcmp(dk, "cuda") == 0 && cc != NULL && strncmp(cc, "gfx", 3) == 0)
        return "rocm";
    return dk;
}

/* ---- the node rule --------------------------------------------------------------- */

static int needed(unsigned need, int vendor)
{
    return (vendor == PT2_VENDOR_NVIDIA && (need & PT2_NEED_NVIDIA)) ||
           (vendor == PT2_VENDOR_AMD && (need & PT2_NEED_AMD));
}

void pt2_verdicts_node_rule(const pt2_package *pkg, const struct pt2_gpu_check *gpus, size_t n,
                            const char *absent, const struct pt2_verdict_result *cpu,
                            struct pt2_verdict_result *gpu_part, struct pt2_verdict_result *out)
{
    char what[256], others[160] = "";
    unsigned need = pt2_verdicts_need(pkg, what, sizeof(what));
    const struct pt2_gpu_check *best = NULL;
    struct pt2_sbuf b;
    size_t i, nother = 0;
    int other_vendor = 0;

    memset(gpu_part, 0, sizeof(*gpu_part));
    memset(out, 0, sizeof(*out));
    if (need == 0) {
        gpu_part->verdict = PT2_COMPATIBLE;
        snprintf(gpu_part->code, sizeof(gpu_part->code), "compatible");
        snprintf(gpu_part->reason, sizeof(gpu_part->reason), "the package needs no GPU");
        *out = *cpu;
        snprintf(out->reason, sizeof(out->reason), "cpu: %.500s", cpu->reason);
        return;
    }
    for (i = 0; i < n; i++) {
        if (needed(need, gpus[i].vendor)) {
            if (best == NULL || gpus[i].r.verdict < best->r.verdict)
                best = &gpus[i];
        } else {
            /* "rocm:0, rocm:1, rocm:2 and 5 more" */
            if (nother < 3)
                snprintf(others + strlen(others), sizeof(others) - strlen(others), "%s%.40s",
                         nother > 0 ? ", " : "", gpus[i].label);
            else if (nother == 3)
                snprintf(others + strlen(others), sizeof(others) - strlen(others), " and more");
            if (nother++ == 0)
                other_vendor = gpus[i].vendor;
        }
    }
    pt2_sbuf_init(&b, gpu_part->reason, sizeof(gpu_part->reason));
    if (best == NULL) {
        gpu_part->verdict = PT2_INCOMPATIBLE;
        snprintf(gpu_part->code, sizeof(gpu_part->code), "no-gpu");
        pt2_sbuf_add(&b, "the package needs %s; this node has none", what);
        if (nother > 0)
            pt2_sbuf_add(&b, " (its GPU%s: %s %s)", nother == 1 ? "" : "s",
                         other_vendor == PT2_VENDOR_AMD ? "AMD" : "NVIDIA", others);
        else if (absent != NULL && absent[0] != '\0')
            pt2_sbuf_add(&b, ": %s", absent);
        pt2_sbuf_init(&b, gpu_part->advice, sizeof(gpu_part->advice));
        pt2_sbuf_add(&b, "Run it on a node with %s", what);
        if (need & PT2_NEED_NVIDIA)
            pt2_sbuf_add(&b, "; `pt2scope affinity FILE` prints a Kubernetes nodeAffinity that "
                             "selects such nodes");
        pt2_sbuf_add(&b, ".");
    } else {
        *gpu_part = best->r; /* code and requirements with it */
        gpu_part->reason[0] = '\0';
        if (best->label[0] != '\0')
            pt2_sbuf_add(&b, "%s: ", best->label);
        pt2_sbuf_add(&b, "%s", best->r.reason);
    }
    if (cpu->verdict > gpu_part->verdict) {
        *out = *cpu;
        snprintf(out->reason, sizeof(out->reason), "cpu: %.500s", cpu->reason);
    } else if (gpu_part->verdict > cpu->verdict) {
        *out = *gpu_part;
    } else {
        *out = *gpu_part;
        out->unverified |= cpu->unverified;
        pt2_sbuf_init(&b, out->reason, sizeof(out->reason));
        pt2_sbuf_add(&b, "%s; cpu: %s", gpu_part->reason, cpu->reason);
        /* Both sides failed alike: both fixes are needed. */
        pt2_sbuf_init(&b, out->advice, sizeof(out->advice));
        pt2_sbuf_add(&b, "%s%s%s", gpu_part->advice,
                     gpu_part->advice[0] != '\0' && cpu->advice[0] != '\0' ? " " : "", cpu->advice);
    }
}

/* ---- the answer -------------------------------------------------------------------- */

int pt2_verdicts_new(pt2_verdicts **out, struct pt2_error *err)
{
    struct pt2_verdicts *v;

    if (out == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_verdicts_new: missing argument");
    *out = NULL;
    v = calloc(1, sizeof(*v));
    if (v == NULL || (v->entries = cJSON_CreateArray()) == NULL) {
        free(v);
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory building compatibility");
    }
    *out = v;
    return PT2_OK;
}

void pt2_verdicts_free(pt2_verdicts *v)
{
    if (v == NULL)
        return;
    cJSON_Delete(v->entries);
    free(v);
}

const char *pt2_verdicts_code(const char *code, int verdict)
{
    if (code != NULL && code[0] != '\0')
        return code;
    return verdict == PT2_COMPATIBLE_PTX_JIT ? "ptx-jit" : pt2_verdict_name(verdict);
}

int pt2_verdicts_add_advice(cJSON *o, const struct pt2_verdict_result *r)
{
    /* Only a verdict that is not simply "compatible" has something to act on. */
    return pt2_json_add_str_or_null(o, "advice", r->verdict != PT2_COMPATIBLE ? r->advice : NULL);
}

/* Append one entry; takes `device` in every case. */
static int add_entry(pt2_verdicts *v, const char *kind, const char *target, cJSON *device,
                     const struct pt2_verdict_result *r, struct pt2_error *err)
{
    cJSON *e = cJSON_CreateObject();

    if (e == NULL || device == NULL || cJSON_AddStringToObject(e, "target", target) == NULL ||
        cJSON_AddStringToObject(e, "kind", kind) == NULL)
        goto nomem;
    if (!cJSON_AddItemToObject(e, "device", device))
        goto nomem;
    device = NULL;
    if (cJSON_AddStringToObject(e, "verdict", pt2_verdict_name(r->verdict)) == NULL ||
        cJSON_AddStringToObject(e, "reason", r->reason) == NULL || !pt2_verdicts_add_advice(e, r) ||
        !add_requirements(e, r) || !cJSON_AddItemToArray(v->entries, e))
        goto nomem;
    return PT2_OK;
nomem:
    cJSON_Delete(device);
    cJSON_Delete(e);
    return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory building compatibility");
}

/* A package whose metadata is invalid cannot be judged: its device key and compute
 * capability are part of the verdict. Every answer says so the same way. */
static int judgeable(const pt2_package *pkg, struct pt2_error *err)
{
    const struct pt2_error *merr = pt2_package_meta_error(pkg);

    return merr != NULL ? pt2_error_copy(err, merr) : PT2_OK;
}

/* ---- the host side of a target: a library its nodes can load -------------------------- */

/*
 * The host side of a GPU target, as requirements: each returns 1 when met, else fills
 * *r (code, reason, advice; the verdict is the combiner's). A GPU target is a node with
 * that GPU: Linux on the architectures GPUs ship in (amd64, arm64) unless the device
 * names a platform. Every compiled model must have a library that node's torch loads.
 */

/* A library to load at all: C++ sources only (package_cpp_only) or nothing is unmet. */
static int req_library(const pt2_package *pkg, size_t m, const struct pt2_host *h,
                       struct pt2_verdict_result *r)
{
    if (h != NULL)
        return 1;
    pt2_package_model_unloadable(pkg, m, r);
    return 0;
}

static const char *host_os(int format)
{
    return format == PT2_HOST_ELF ? "Linux" : format == PT2_HOST_PE ? "Windows" : "macOS";
}

static const char *host_kind(int format)
{
    return format == PT2_HOST_ELF ? "library" : format == PT2_HOST_PE ? "DLL" : "dylib";
}

/* The library is for the node's OS and architecture. */
static int req_platform(const struct pt2_host *h, const struct pt2_device *dev, const char *devname,
                        struct pt2_verdict_result *r)
{
    const char *os, *arches;
    struct pt2_sbuf b, a;

    if (pt2_target_platform_runs(dev, h->format, h->machine, &os, &arches))
        return 1;
    pt2_sbuf_init(&b, r->reason, sizeof(r->reason));
    pt2_sbuf_init(&a, r->advice, sizeof(r->advice));
    snprintf(r->code, sizeof(r->code), "host-platform");
    pt2_sbuf_add(&b, "the model library %.200s is a %s %.31s %s; a node with %.80s runs %s on %s",
                 h->source, host_os(h->format), h->machine, host_kind(h->format), devname, os,
                 arches);
    pt2_sbuf_add(&a,
                 "Re-export the package on %s (%s) with the torch you serve with: AOTInductor "
                 "compiles for the platform it runs on.",
                 os, arches);
    return 0;
}

/* 1 when model m's library loads on the target's nodes, else 0 with *r filled. */
static int model_host(const pt2_package *pkg, size_t m, const struct pt2_device *dev,
                      const char *devname, struct pt2_verdict_result *r)
{
    char dir[PT2_PATH_MAX];
    const struct pt2_host *h = NULL;
    size_t i;

    snprintf(dir, sizeof(dir), "data/aotinductor/%.400s/", pt2_package_model_name(pkg, m));
    if (pt2_package_model_library(pkg, m, &i))
        h = &pt2_package_hosts(pkg)->v[i];
    if (req_library(pkg, m, h, r) && req_platform(h, dev, devname, r))
        return 1;
    r->verdict = PT2_INCOMPATIBLE;
    return 0;
}

/* Fills *r only when the host side fails (r->verdict stays compatible else). */
static void target_host(const pt2_package *pkg, const struct pt2_device *dev, const char *devname,
                        struct pt2_verdict_result *r)
{
    memset(r, 0, sizeof(*r));
    for (size_t m = 0; m < pt2_package_model_count(pkg); m++)
        if (!model_host(pkg, m, dev, devname, r))
            return;
}

/*
 * A package with several models: each model's verdict on the target (its GPU code, then
 * its library), as "models" of the entry. Which model a process loads is its choice
 * (pt2_open_options.model judges one); the entry's own verdict is the worst of them.
 */
static int add_model_verdicts(const pt2_package *pkg, const struct pt2_device *dev,
                              const char *devname, cJSON *entry, struct pt2_error *err)
{
    cJSON *arr;

    if (pt2_package_model_count(pkg) < 2)
        return PT2_OK;
    if ((arr = cJSON_AddArrayToObject(entry, "models")) == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory building compatibility");
    for (size_t m = 0; m < pt2_package_model_count(pkg); m++) {
        struct pt2_verdict_result r, host;
        cJSON *o;
        int rc = pt2_package_check_device_model(pkg, m, dev, &r, err);

        if (rc != PT2_OK)
            return rc;
        memset(&host, 0, sizeof(host));
        if ((dev->cc_major > 0 || dev->gfx[0] != '\0') &&
            !model_host(pkg, m, dev, devname, &host) && host.verdict > r.verdict)
            r = host;
        /* the object is the array's once added; what fails after is freed with the entry */
        if ((o = cJSON_CreateObject()) == NULL || !pt2_json_add_owned(arr, NULL, o) ||
            cJSON_AddStringToObject(o, "model", pt2_package_model_name(pkg, m)) == NULL ||
            cJSON_AddStringToObject(o, "verdict", pt2_verdict_name(r.verdict)) == NULL ||
            cJSON_AddStringToObject(o, "code", pt2_verdicts_code(r.code, r.verdict)) == NULL ||
            cJSON_AddStringToObject(o, "reason", r.reason) == NULL)
            return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory building compatibility");
    }
    return PT2_OK;
}

/* The CPU ISA requirement of a target: a GPU names no CPU, so the features the host code
 * needs are required and unverified (the node's CPU is unknown until --nodes or the node). */
static int target_cpu(const pt2_package *pkg, struct pt2_verdict_result *r, struct pt2_error *err)
{
    struct pt2_verdict_result cpu;
    int rc = pt2_package_check_cpu(pkg, NULL, NULL, 0, &cpu, err);

    if (rc != PT2_OK)
        return rc;
    memcpy(r->requires_cpu, cpu.requires_cpu, sizeof(r->requires_cpu));
    r->unverified |= cpu.unverified & PT2_UNVERIFIED_CPU_FEATURES;
    if (r->verdict != PT2_INCOMPATIBLE && (cpu.unverified & PT2_UNVERIFIED_CPU_FEATURES)) {
        size_t n = strlen(r->reason);
        char buf[sizeof(r->requires_cpu)], *save = NULL, *t;
        const char *sep = "";
        struct pt2_sbuf b;

        /* as the driver's: "compatible if ...", the requirement in words */
        pt2_sbuf_init(&b, r->reason + n, sizeof(r->reason) - n);
        pt2_sbuf_add(&b, "; compatible if the node's CPU has ");
        snprintf(buf, sizeof(buf), "%s", cpu.requires_cpu);
        for (t = strtok_r(buf, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save), sep = ", ")
            pt2_sbuf_add(&b, "%s%s", sep, t);
        pt2_sbuf_add(&b, " (a target names no CPU)");
    }
    return PT2_OK;
}

int pt2_verdicts_add_target(pt2_verdicts *v, const pt2_package *pkg, const char *label,
                            const struct pt2_device *dev, struct pt2_error *err)
{
    struct pt2_verdict_result r;
    int rc, loads = 1;
    char devname[160];
    cJSON *entry;

    if (v == NULL || pkg == NULL || label == NULL || dev == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_verdicts_add_target: missing argument");
    snprintf(devname, sizeof(devname), "%.*s", (int)sizeof(dev->name),
             dev->name[0] != '\0' ? dev->name : label);
    if ((rc = judgeable(pkg, err)) != PT2_OK)
        return rc;
    rc = pt2_package_check_device(pkg, dev, &r, err);
    if (rc != PT2_OK)
        return rc;
    if (dev->cc_major > 0 || dev->gfx[0] != '\0') {
        struct pt2_verdict_result host;

        target_host(pkg, dev, devname, &host);
        loads = host.verdict <= r.verdict;
        if (!loads)
            r = host; /* the code is right for the GPU, and cannot load there */
        else if ((rc = target_cpu(pkg, &r, err)) != PT2_OK)
            return rc;
    }
    apply_strict(v, &r);
    rc = add_entry(v, "target", label, pt2_target_json(dev), &r, err);
    if (rc != PT2_OK)
        return rc;
    entry = cJSON_GetArrayItem(v->entries, cJSON_GetArraySize(v->entries) - 1);
    /* what the library needs of the node's runtime, as data (judged by runtime entries) */
    if (loads && !pt2_runtime_floors_json(pkg, cJSON_GetObjectItemCaseSensitive(entry, "requires")))
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory building compatibility");
    if ((rc = add_model_verdicts(pkg, dev, devname, entry, err)) != PT2_OK)
        return rc;
    /* The first of the worst targets speaks for all of them. */
    if (v->ntargets++ == 0 || r.verdict > v->worst_target.verdict) {
        v->worst_target.verdict = r.verdict;
        v->worst_target = r;
        snprintf(v->worst_target.reason, sizeof(v->worst_target.reason), "%.60s: %.440s", label,
                 r.reason);
    }
    return PT2_OK;
}

/* Check one GPU of the node, add its entry and fill *c. */
static int node_gpu(pt2_verdicts *v, const pt2_package *pkg, const struct pt2_node *node,
                    int vendor, size_t index, int driver, struct pt2_gpu_check *c,
                    struct pt2_error *err)
{
    struct pt2_device dev;
    int rc;

    c->vendor = vendor;
    pt2_node_gpu_device(node, vendor, index, &dev, c->label, sizeof(c->label));
    if (driver > 0 && vendor == PT2_VENDOR_NVIDIA)
        dev.driver_cuda_version = driver;
    rc = pt2_package_check_device(pkg, &dev, &c->r, err);
    if (rc != PT2_OK)
        return rc;
    apply_strict(v, &c->r);
    return add_entry(v, "gpu", c->label, pt2_node_gpu_json(node, vendor, index, &dev), &c->r, err);
}

int pt2_verdicts_add_node(pt2_verdicts *v, const pt2_package *pkg, const pt2_node *node,
                          const char *device, int driver_cuda_version, struct pt2_error *err)
{
    const char *feats[PT2_CPU_FEATURES_MAX];
    struct pt2_gpu_check *checks = NULL;
    struct pt2_verdict_result cpu, gpu_part;
    char absent[320];
    size_t n = 0, i, want;
    unsigned need;
    int rc = PT2_OK;

    if (v == NULL || pkg == NULL || node == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_verdicts_add_node: missing argument");
    if (v->ntargets > 0 && device != NULL)
        return pt2_error_set(err, PT2_ERR_INVALID,
                             "a device picks one of this node's GPUs and a target names other "
                             "GPUs: give one or the other");
    if (v->ntargets > 0)
        return PT2_OK; /* the targets are the question */
    if ((rc = judgeable(pkg, err)) != PT2_OK)
        return rc;
    /* As many as this node has (a check is over 1 KiB): room for all 128 was a calloc
     * past glibc's mmap threshold, mapped and zeroed on every inspection. */
    want = device != NULL ? 1
                          : (node->nv.n < PT2_GPUS_MAX ? node->nv.n : PT2_GPUS_MAX) +
                                (node->amd.n < PT2_AMD_GPUS_MAX ? node->amd.n : PT2_AMD_GPUS_MAX);
    checks = calloc(want > 0 ? want : 1, sizeof(*checks));
    if (checks == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory building compatibility");
    if (device != NULL) {
        int vendor = 0;
        size_t index = 0;

        rc = pt2_node_select(node, device, &vendor, &index, err);
        if (rc == PT2_OK)
            rc = node_gpu(v, pkg, node, vendor, index, driver_cuda_version, &checks[n++], err);
    } else {
        for (i = 0; rc == PT2_OK && i < node->nv.n && i < PT2_GPUS_MAX; i++)
            rc = node_gpu(v, pkg, node, PT2_VENDOR_NVIDIA, i, driver_cuda_version, &checks[n++],
                          err);
        for (i = 0; rc == PT2_OK && i < node->amd.n && i < PT2_AMD_GPUS_MAX; i++)
            rc = node_gpu(v, pkg, node, PT2_VENDOR_AMD, i, 0, &checks[n++], err);
    }
    for (i = 0; rc == PT2_OK && i < node->cpu.nfeatures && i < PT2_CPU_FEATURES_MAX; i++)
        feats[i] = node->cpu.features[i];
    if (rc == PT2_OK)
        rc = pt2_package_check_cpu(pkg, node->cpu.machine, feats, i, &cpu, err);
    if (rc == PT2_OK) {
        apply_strict(v, &cpu);
        rc = add_entry(v, "cpu", "cpu", pt2_node_cpu_json(node), &cpu, err);
    }
    if (rc == PT2_OK) {
        /* Why no GPU of the kind the package needs shows here. */
        need = pt2_verdicts_need(pkg, absent, sizeof(absent));
        snprintf(absent, sizeof(absent), "%.300s",
                 (need & PT2_NEED_NVIDIA) || !(need & PT2_NEED_AMD) ? node->nv.reason
                                                                    : node->amd.reason);
        pt2_verdicts_node_rule(pkg, checks, n, absent, &cpu, &gpu_part, &v->node);
        v->have_node = 1;
    }
    free(checks);
    return rc;
}

int pt2_verdicts_add_runtime(pt2_verdicts *v, const pt2_package *pkg, const pt2_runtime *rt,
                             struct pt2_error *err)
{
    struct pt2_verdict_result r;
    cJSON *e;
    int rc;

    if (v == NULL || pkg == NULL || rt == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_verdicts_add_runtime: missing argument");
    e = cJSON_CreateObject();
    if (e == NULL || cJSON_AddStringToObject(e, "target", pt2_runtime_label(rt)) == NULL ||
        cJSON_AddStringToObject(e, "kind", "runtime") == NULL ||
        !pt2_json_add_owned(e, "device", pt2_runtime_json(rt))) {
        cJSON_Delete(e);
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory building compatibility");
    }
    rc = pt2_runtime_judge(pkg, rt, e, &r, err);
    if (rc == PT2_OK)
        apply_strict(v, &r);
    if (rc == PT2_OK &&
        (cJSON_AddStringToObject(e, "verdict", pt2_verdict_name(r.verdict)) == NULL ||
         cJSON_AddStringToObject(e, "code", r.code) == NULL ||
         cJSON_AddStringToObject(e, "reason", r.reason) == NULL || !pt2_verdicts_add_advice(e, &r)))
        rc = pt2_error_set(err, PT2_ERR_NOMEM, "out of memory building compatibility");
    if (rc != PT2_OK) {
        cJSON_Delete(e);
        return rc;
    }
    if (!cJSON_AddItemToArray(v->entries, e)) {
        cJSON_Delete(e);
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory building compatibility");
    }
    if (v->nruntimes++ == 0 || r.verdict > v->worst_runtime.verdict) {
        v->worst_runtime = r;
        snprintf(v->worst_runtime.reason, sizeof(v->worst_runtime.reason), "%.60s: %.440s",
                 pt2_runtime_label(rt), r.reason);
    }
    return PT2_OK;
}

int pt2_verdicts_overall(const pt2_verdicts *v, struct pt2_verdict_result *out,
                         struct pt2_error *err)
{
    if (v == NULL || out == NULL || (v->ntargets == 0 && !v->have_node && v->nruntimes == 0))
        return pt2_error_set(err, PT2_ERR_INVALID,
                             "no target, node or runtime to decide an overall verdict from");
    if (v->ntargets == 0 && !v->have_node)
        *out = v->worst_runtime;
    else
        *out = v->ntargets > 0 ? v->worst_target : v->node;
    /* The code must load too: the worse of the device side and the runtime wins. */
    if (v->nruntimes > 0 && v->worst_runtime.verdict > out->verdict)
        *out = v->worst_runtime;
    return PT2_OK;
}

int pt2_verdicts_to_json(const pt2_verdicts *v, cJSON **out, struct pt2_error *err)
{
    struct pt2_verdict_result r;
    cJSON *doc = NULL, *ov;
    int rc;

    if (out == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_verdicts_to_json: missing argument");
    *out = NULL;
    rc = pt2_verdicts_overall(v, &r, err);
    if (rc != PT2_OK)
        return rc;
    doc = cJSON_CreateObject();
    if (doc == NULL || !pt2_json_add_owned(doc, "compatibility", cJSON_Duplicate(v->entries, 1)) ||
        (ov = cJSON_AddObjectToObject(doc, "overall")) == NULL ||
        cJSON_AddStringToObject(ov, "verdict", pt2_verdict_name(r.verdict)) == NULL ||
        cJSON_AddStringToObject(ov, "code", pt2_verdicts_code(r.code, r.verdict)) == NULL ||
        cJSON_AddStringToObject(ov, "reason", r.reason) == NULL ||
        !pt2_verdicts_add_advice(ov, &r)) {
        cJSON_Delete(doc);
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory building compatibility");
    }
    *out = doc;
    return PT2_OK;
}
