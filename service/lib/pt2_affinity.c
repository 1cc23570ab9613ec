/*
 * pt2_affinity.c - the nodeAffinity of a package (see pt2_affinity.h for the
 * design and the exact domain).
 *
 * Three steps: collect, per model, the package's distinct kernels (what the
 * GPU rules read of a kernel is a few numbers, so thousands of cubins of one
 * architecture are one check); evaluate the rules over compute-capability
 * classes and CUDA versions, the host check over architectures; write the
 * classes that pass as nodeSelectorTerms, one per (group of compute
 * capabilities, way of showing a new enough driver). Everything is bounded:
 * 99 majors, 10 minors, a binary search over 990 CUDA versions, at most
 * PT2_AFFINITY_TERMS_MAX terms.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_affinity.h"
#include "pt2_compat.h"
#include "pt2_inspect.h"
#include "pt2_isa.h"
#include "pt2_k8s.h"
#include "pt2_nfd.h"
#include "pt2_sbuf.h"
#include "pt2_verdicts.h"

#define MAJOR_MAX 99      /* what nvidia.com/gpu.compute.major can say (pt2_k8s) */
#define CUDA_STEPS 990    /* CUDA 1.0 ... 99.9, what the runtime-version labels can say */
#define NEED_UNKNOWN (-1) /* only a node whose driver is unknown passes */
#define CLASSES_MAX 1024  /* (major, need) and run classes: at most 99 * 10 + 50 */
#define ARCHS_MAX 16

/* ---- the package's distinct kernels --------------------------------------------- */

/* What the GPU rules (pt2_compat_gpu) read of one kernel. */
struct sig {
    int kind;
    unsigned sm;
    int variant;
    int abi_version;
    unsigned toolkit;
    unsigned ptx_major, ptx_minor;
    int has_code;
    int xnack, sramecc;
    char gfx[32];
    char target_id[64];
};

struct judge_model {
    struct pt2_kernel_list ks; /* one kernel per distinct sig (owned) */
    const char *key;           /* AOTI_DEVICE_KEY, borrowed */
    const char *meta_cc;       /* AOTI_COMPUTE_CAPABILITY, borrowed */
};

struct judge {
    struct judge_model *m;
    size_t n;
};

static void sig_of(const struct pt2_kernel *k, struct sig *s)
{
    memset(s, 0, sizeof(*s));
    s->kind = k->kind;
    s->sm = k->sm;
    s->variant = (unsigned char)k->variant;
    s->abi_version = k->abi_version;
    s->toolkit = k->toolkit;
    s->ptx_major = k->ptx_major;
    s->ptx_minor = k->ptx_minor;
    s->has_code = k->has_code;
    s->xnack = k->xnack;
    s->sramecc = k->sramecc;
    memcpy(s->gfx, k->gfx, sizeof(s->gfx));
    memcpy(s->target_id, k->target_id, sizeof(s->target_id));
    s->gfx[sizeof(s->gfx) - 1] = '\0';
    s->target_id[sizeof(s->target_id) - 1] = '\0';
}

/* Zeroed and filled field by field, so whole structs compare as bytes. */
static int sig_cmp(const void *a, const void *b)
{
    return memcmp(a, b, sizeof(struct sig));
}

static void kernel_of(const struct sig *s, struct pt2_kernel *k)
{
    memset(k, 0, sizeof(*k));
    k->kind = s->kind;
    k->sm = s->sm;
    k->variant = (char)s->variant;
    k->abi_version = s->abi_version;
    k->toolkit = s->toolkit;
    k->ptx_major = s->ptx_major;
    k->ptx_minor = s->ptx_minor;
    k->has_code = s->has_code;
    k->xnack = s->xnack;
    k->sramecc = s->sramecc;
    memcpy(k->gfx, s->gfx, sizeof(s->gfx));
    memcpy(k->target_id, s->target_id, sizeof(s->target_id));
}

static void judge_free(struct judge *j)
{
    size_t i;

    for (i = 0; j->m != NULL && i < j->n; i++)
        pt2_kernel_list_free(&j->m[i].ks);
    free(j->m);
    j->m = NULL;
    j->n = 0;
}

/* Each model's distinct kernels, as pt2_package_check_device groups them (by directory). */
static int judge_build(const pt2_package *pkg, struct judge *j, struct pt2_error *err)
{
    const struct pt2_kernel_list *all = pt2_package_kernels(pkg);
    size_t nm = pt2_package_model_count(pkg), m, i, ns, u;
    struct sig *sigs = NULL;
    struct pt2_kernel k;
    char dir[PT2_PATH_MAX];
    int rc = PT2_OK;

    memset(j, 0, sizeof(*j));
    if (nm == 0)
        return PT2_OK;
    j->m = calloc(nm, sizeof(*j->m));
    sigs = malloc((all->n > 0 ? all->n : 1) * sizeof(*sigs));
    if (j->m == NULL || sigs == NULL) {
        rc = pt2_error_set(err, PT2_ERR_NOMEM, "out of memory building the node affinity");
        goto cleanup;
    }
    j->n = nm;
    for (m = 0; m < nm && rc == PT2_OK; m++) {
        snprintf(dir, sizeof(dir), "data/aotinductor/%s/", pt2_package_model_name(pkg, m));
        ns = 0;
        for (i = 0; i < all->n; i++)
            if (strncmp(all->v[i].source, dir, strlen(dir)) == 0)
                sig_of(&all->v[i], &sigs[ns++]);
        qsort(sigs, ns, sizeof(*sigs), sig_cmp);
        for (i = 0, u = 0; i < ns && rc == PT2_OK; i++) {
            if (u > 0 && sig_cmp(&sigs[i], &sigs[u - 1]) == 0)
                continue;
            sigs[u++] = sigs[i];
            kernel_of(&sigs[i], &k);
            rc = pt2_kernel_list_push(&j->m[m].ks, &k, err);
        }
        j->m[m].key = pt2_package_device_key(pkg, m);
        j->m[m].meta_cc =
            pt2_json_str(pt2_package_model_aoti(pkg, m, NULL), "AOTI_COMPUTE_CAPABILITY");
    }
cleanup:
    free(sigs);
    if (rc != PT2_OK)
        judge_free(j);
    return rc;
}

/*
 * Does the package pass the GPU check on compute capability major.minor with
 * driver CUDA version `cuda` (0 unknown)? The worst model decides, as in
 * pt2_package_check_device; no compiled model at all runs anywhere.
 */
static int judge_ok(const struct judge *j, int major, int minor, int cuda, int *ok,
                    struct pt2_error *err)
{
    struct pt2_device dev;
    size_t m;
    int rc, verdict;

    memset(&dev, 0, sizeof(dev));
    dev.cc_major = major;
    dev.cc_minor = minor;
    dev.driver_cuda_version = cuda;
    *ok = 1;
    for (m = 0; m < j->n && *ok; m++) {
        rc = pt2_compat_gpu_verdict(&j->m[m].ks, j->m[m].key, j->m[m].meta_cc, &dev, &verdict, err);
        if (rc != PT2_OK)
            return rc;
        *ok = verdict != PT2_INCOMPATIBLE;
    }
    return PT2_OK;
}

/* The CUDA versions the labels can say, by index: 0 = 1.0, 1 = 1.1, ... 989 = 99.9. */
static int cuda_at(int i)
{
    return (i / 10 + 1) * 1000 + (i % 10) * 10;
}

static int cuda_index(int cuda)
{
    return (cuda / 1000 - 1) * 10 + (cuda % 1000) / 10;
}

#define KNOWN_MAX 8

/* The minimums found so far: most compute capabilities share one of a few. */
struct known {
    int v[KNOWN_MAX];
    size_t n;
};

/*
 * Whether major.minor passes with some driver (*ok), and the lowest CUDA
 * version that passes (*need: 0 any, NEED_UNKNOWN only an unknown driver).
 * A newer driver never refuses more, so the lowest is found by bisection.
 */
static int judge_need(const struct judge *j, int major, int minor, struct known *known, int *ok,
                      int *need, struct pt2_error *err)
{
    int lo = 0, hi = CUDA_STEPS - 1, mid, pass, below, rc;
    size_t k;

    *need = 0;
    if ((rc = judge_ok(j, major, minor, 0, ok, err)) != PT2_OK || !*ok)
        return rc;
    if ((rc = judge_ok(j, major, minor, cuda_at(lo), &pass, err)) != PT2_OK || pass)
        return rc;
    /* A minimum already found is this one when it passes there and fails one step below. */
    for (k = 0; k < known->n; k++) {
        if ((rc = judge_ok(j, major, minor, known->v[k], &pass, err)) != PT2_OK)
            return rc;
        if (!pass)
            continue;
        if ((rc = judge_ok(j, major, minor, cuda_at(cuda_index(known->v[k]) - 1), &below, err)) !=
            PT2_OK)
            return rc;
        if (!below) {
            *need = known->v[k];
            return PT2_OK;
        }
    }
    if ((rc = judge_ok(j, major, minor, cuda_at(hi), &pass, err)) != PT2_OK)
        return rc;
    if (!pass) {
        *need = NEED_UNKNOWN;
        return PT2_OK;
    }
    while (hi - lo > 1) { /* fails at lo, passes at hi */
        mid = lo + (hi - lo) / 2;
        if ((rc = judge_ok(j, major, minor, cuda_at(mid), &pass, err)) != PT2_OK)
            return rc;
        if (pass)
            hi = mid;
        else
            lo = mid;
    }
    *need = cuda_at(hi);
    if (known->n < KNOWN_MAX)
        known->v[known->n++] = *need;
    return PT2_OK;
}

/* Majors whose minors the rules tell apart: a kernel's, the metadata's, a driver floor's. */
static void mark_major(unsigned char *interesting, unsigned sm)
{
    if (sm / 10 >= 1 && sm / 10 <= MAJOR_MAX)
        interesting[sm / 10] = 1;
    if (sm == 101) /* Thor's SM before CUDA 13: the rules read it as 110 */
        interesting[11] = 1;
}

static void mark_majors(const struct judge *j, unsigned char *interesting)
{
    size_t m, i;
    uint64_t v;
    int major, minor;

    for (m = 0; m < j->n; m++) {
        for (i = 0; i < j->m[m].ks.n; i++) {
            const struct pt2_kernel *k = &j->m[m].ks.v[i];
            if (k->kind == PT2_KERNEL_SASS || k->kind == PT2_KERNEL_PTX)
                mark_major(interesting, k->sm);
        }
        if (j->m[m].meta_cc != NULL && pt2_num_u64(j->m[m].meta_cc, 10, &v) == PT2_OK && v <= 999)
            mark_major(interesting, (unsigned)v);
    }
    for (m = 0; pt2_compat_device_floor_at(m, &major, &minor) != 0; m++)
        if (major >= 1 && major <= MAJOR_MAX)
            interesting[major] = 1;
}

/* ---- compute-capability classes ------------------------------------------------- */

/*
 * Compute capabilities that pass alike: majors `lo`..`hi` with the minors in
 * `minors` (bits 0-9), all passing from driver `need` on. A run (`run`, the
 * majors between the ones the rules name) is written as a range.
 */
struct cls {
    int run, lo, hi;
    unsigned minors;
    int need;
};

/* Compute capabilities written as one pair of expressions: majors (a bitmap) x minors. */
struct group {
    uint64_t majors[2];
    unsigned minors;
};

struct plan {
    struct cls *c; /* grows from a few: most packages name one or two majors */
    size_t n, cap;
    struct group g[MAJOR_MAX + 1]; /* scratch, per driver alternative */
};

static int plan_add(struct plan *p, struct cls c, struct pt2_error *err)
{
    int rc = pt2_model_grow((void **)&p->c, &p->cap, p->n, sizeof(*p->c), CLASSES_MAX,
                            "compute-capability classes", err);

    if (rc == PT2_OK)
        p->c[p->n++] = c;
    return rc;
}

static int plan_build(const struct judge *j, struct plan *p, struct pt2_error *err)
{
    unsigned char interesting[MAJOR_MAX + 1] = {0};
    struct known known = {{0}, 0};
    int major = 1, minor, ok, need, rc, lo;

    p->n = 0;
    mark_majors(j, interesting);
    while (major <= MAJOR_MAX) {
        if (interesting[major]) {
            /* Minors of one major by need, in order of first appearance. */
            int needs[10];
            unsigned masks[10] = {0};
            size_t nn = 0, i;

            for (minor = 0; minor <= 9; minor++) {
                if ((rc = judge_need(j, major, minor, &known, &ok, &need, err)) != PT2_OK)
                    return rc;
                if (!ok)
                    continue;
                for (i = 0; i < nn && needs[i] != need; i++)
                    ;
                if (i == nn)
                    needs[nn++] = need;
                masks[i] |= 1u << minor;
            }
            for (i = 0; i < nn; i++)
                if ((rc = plan_add(p, (struct cls){0, major, major, masks[i], needs[i]}, err)) !=
                    PT2_OK)
                    return rc;
            major++;
            continue;
        }
        for (lo = major; major <= MAJOR_MAX && !interesting[major]; major++)
            ;
        if ((rc = judge_need(j, lo, 0, &known, &ok, &need, err)) != PT2_OK)
            return rc;
        if (ok && (rc = plan_add(p, (struct cls){1, lo, major - 1, 0x3ff, need}, err)) != PT2_OK)
            return rc;
    }
    return PT2_OK;
}

/* ---- driver alternatives --------------------------------------------------------- */

/*
 * How a node shows a driver new enough for `need` (CUDA X.Y), each one term:
 * a later major (X+1 or more; X or more for X.0), or major X with minor Y or
 * more, or no CUDA label at all (pt2_k8s then takes the driver as new
 * enough). A class joins every alternative its need admits exactly, so
 * classes of different needs share the terms they can share.
 */
enum driver_alt {
    DRV_ANY,     /* need 0: no driver expression */
    DRV_MAJOR,   /* runtime-version.major > `arg` */
    DRV_MINOR,   /* runtime-version.major == need's, minor >= need's (`arg` = need) */
    DRV_UNKNOWN, /* no CUDA label */
};

/* The runtime-version.major a need's DRV_MAJOR term compares with ("Gt"). */
static int major_floor(int need)
{
    return (need % 1000) / 10 == 0 ? need / 1000 - 1 : need / 1000;
}

static int alt_has(enum driver_alt alt, int arg, const struct cls *c)
{
    switch (alt) {
    case DRV_ANY:
        return c->need == 0;
    case DRV_MAJOR:
        return c->need > 0 && major_floor(c->need) == arg;
    case DRV_MINOR:
        return c->need == arg;
    default:
        return c->need != 0;
    }
}

/* ---- nodeSelectorTerms ---------------------------------------------------------- */

struct writer {
    cJSON *terms;
    size_t n;
    int nomem, toolarge;
};

/* {"key", "operator", "values"?}: `values` is NULL for Exists and DoesNotExist. */
static void expr(struct writer *w, cJSON *exprs, const char *key, const char *op,
                 const char *const *values, size_t nvalues)
{
    cJSON *e = cJSON_CreateObject(), *vals;
    size_t i;

    if (e == NULL || !cJSON_AddItemToArray(exprs, e)) {
        cJSON_Delete(e);
        w->nomem = 1;
        return;
    }
    if (cJSON_AddStringToObject(e, "key", key) == NULL ||
        cJSON_AddStringToObject(e, "operator", op) == NULL) {
        w->nomem = 1;
        return;
    }
    if (values == NULL)
        return;
    if ((vals = cJSON_AddArrayToObject(e, "values")) == NULL) {
        w->nomem = 1;
        return;
    }
    for (i = 0; i < nvalues; i++)
        if (!cJSON_AddItemToArray(vals, cJSON_CreateString(values[i])))
            w->nomem = 1;
}

/* One integer value: Gt/Lt (Kubernetes parses label and value as integers) or In. */
static void expr_int(struct writer *w, cJSON *exprs, const char *key, const char *op, int v)
{
    char buf[16];
    const char *vals[1] = {buf};

    snprintf(buf, sizeof(buf), "%d", v);
    expr(w, exprs, key, op, vals, 1);
}

static int has_major(const struct group *g, int m)
{
    return (g->majors[m / 64] >> (m % 64)) & 1u;
}

/* The majors of `g` (In), or of the run `r` (Gt and Lt; In for a run of one). */
static void expr_majors(struct writer *w, cJSON *exprs, const struct group *g, const struct cls *r)
{
    char text[MAJOR_MAX + 1][12];
    const char *vals[MAJOR_MAX + 1];
    size_t n = 0;
    int m;

    if (r != NULL && r->lo != r->hi) {
        expr_int(w, exprs, PT2_AFFINITY_L_MAJOR, "Gt", r->lo - 1);
        expr_int(w, exprs, PT2_AFFINITY_L_MAJOR, "Lt", r->hi + 1);
        return;
    }
    for (m = 1; m <= MAJOR_MAX; m++) {
        if (!(r != NULL ? m == r->lo : has_major(g, m)))
            continue;
        snprintf(text[n], sizeof(text[n]), "%d", m);
        vals[n] = text[n];
        n++;
    }
    expr(w, exprs, PT2_AFFINITY_L_MAJOR, "In", vals, n);
}

static void expr_minors(struct writer *w, cJSON *exprs, unsigned minors)
{
    static const char *const digits[10] = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"};
    const char *vals[10];
    size_t n = 0;
    int m;

    for (m = 0; m <= 9; m++)
        if (minors & (1u << m))
            vals[n++] = digits[m];
    expr(w, exprs, PT2_AFFINITY_L_MINOR, "In", vals, n);
}

static void expr_driver(struct writer *w, cJSON *exprs, enum driver_alt alt, int arg)
{
    static const char *const unknown[] = {
        "nvidia.com/cuda.runtime-version.full", PT2_AFFINITY_L_RT_MAJOR,
        "nvidia.com/cuda.runtime.major",        "nvidia.com/cuda.driver-version.major",
        "nvidia.com/cuda.driver.major",
    };
    size_t i;

    switch (alt) {
    case DRV_ANY:
        break;
    case DRV_MAJOR:
        expr_int(w, exprs, PT2_AFFINITY_L_RT_MAJOR, "Gt", arg);
        break;
    case DRV_MINOR:
        expr_int(w, exprs, PT2_AFFINITY_L_RT_MAJOR, "In", arg / 1000);
        expr_int(w, exprs, PT2_AFFINITY_L_RT_MINOR, "Gt", (arg % 1000) / 10 - 1);
        break;
    case DRV_UNKNOWN:
        for (i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++)
            expr(w, exprs, unknown[i], "DoesNotExist", NULL, 0);
        break;
    }
}

struct host {
    const char *archs[ARCHS_MAX];
    size_t n;
    int any; /* every architecture: no kubernetes.io/arch expression */
    /* Node Feature Discovery: per architecture, the CPU labels the package needs (those
     * pt2_nfd decides). With any, a term is written per architecture, twice: a node
     * labelled with all of them, or with none of its architecture's labels (unknown). */
    int cpu;
    const char *machine[ARCHS_MAX];
    const struct pt2_nfd_flag *need[ARCHS_MAX][PT2_NFD_FLAGS_MAX];
    size_t nneed[ARCHS_MAX];
};

enum cpu_kind {
    CPU_ANY,      /* no CPU label expression */
    CPU_LABELLED, /* every needed label "true" */
    CPU_UNKNOWN,  /* none of the architecture's labels NFD writes by default */
};

static void expr_cpu(struct writer *w, cJSON *exprs, const struct host *h, size_t a,
                     enum cpu_kind kind)
{
    static const char *const yes[] = {"true"};
    const struct pt2_nfd_flag *f;
    char key[PT2_NFD_LABEL_MAX];
    size_t i;

    if (kind == CPU_LABELLED)
        for (i = 0; i < h->nneed[a]; i++)
            expr(w, exprs, pt2_nfd_label(h->need[a][i], key, sizeof(key)), "In", yes, 1);
    if (kind == CPU_UNKNOWN)
        for (i = 0; (f = pt2_nfd_at(i)) != NULL; i++)
            if (f->by_default && strcmp(f->machine, h->machine[a]) == 0)
                expr(w, exprs, pt2_nfd_label(f, key, sizeof(key)), "DoesNotExist", NULL, 0);
}

/* One term: GPU compute capabilities (g or the run r; neither for a package that needs
 * no GPU), a driver alternative, then the host's architectures (`archs`, or none), its
 * CPU labels and the OS. */
static void term_one(struct writer *w, const struct group *g, const struct cls *r,
                     enum driver_alt alt, int arg, const struct host *h, const char *const *archs,
                     size_t narchs, size_t a, enum cpu_kind kind)
{
    static const char *const zero[] = {"0"}, *const linux_os[] = {"linux"};
    cJSON *t, *exprs;

    if (w->n == PT2_AFFINITY_TERMS_MAX) {
        w->toolarge = 1;
        return;
    }
    t = cJSON_CreateObject();
    if (t == NULL || !cJSON_AddItemToArray(w->terms, t)) {
        cJSON_Delete(t);
        w->nomem = 1;
        return;
    }
    w->n++;
    if ((exprs = cJSON_AddArrayToObject(t, "matchExpressions")) == NULL) {
        w->nomem = 1;
        return;
    }
    if (g != NULL || r != NULL) {
        expr(w, exprs, PT2_AFFINITY_L_COUNT, "NotIn", zero, 1);
        expr_majors(w, exprs, g, r);
        expr_minors(w, exprs, r != NULL ? r->minors : g->minors);
        expr_driver(w, exprs, alt, arg);
    }
    if (archs != NULL)
        expr(w, exprs, PT2_AFFINITY_L_ARCH, "In", archs, narchs);
    expr_cpu(w, exprs, h, a, kind);
    /* pt2_k8s checks host code for Linux nodes only. */
    expr(w, exprs, PT2_AFFINITY_L_OS, "In", linux_os, 1);
}

/* The terms of one GPU (or no-GPU) alternative: one, or per architecture the NFD-labelled
 * node and the node whose CPU features are unknown. */
static void term(struct writer *w, const struct group *g, const struct cls *r, enum driver_alt alt,
                 int arg, const struct host *h)
{
    size_t a;

    if (!h->cpu) {
        term_one(w, g, r, alt, arg, h, h->any ? NULL : h->archs, h->n, 0, CPU_ANY);
        return;
    }
    for (a = 0; a < h->n; a++) {
        term_one(w, g, r, alt, arg, h, &h->archs[a], 1, a,
                 h->nneed[a] > 0 ? CPU_LABELLED : CPU_ANY);
        if (h->nneed[a] > 0)
            term_one(w, g, r, alt, arg, h, &h->archs[a], 1, a, CPU_UNKNOWN);
    }
}

/* The terms of one driver alternative: the minors of each major it admits, majors with the
 * same minors in one term, then its runs. */
static void alt_terms(struct writer *w, struct plan *p, enum driver_alt alt, int arg,
                      const struct host *h)
{
    unsigned minors[MAJOR_MAX + 1] = {0};
    size_t i, k, ng = 0;
    int m;

    for (i = 0; i < p->n; i++)
        if (!p->c[i].run && alt_has(alt, arg, &p->c[i]))
            minors[p->c[i].lo] |= p->c[i].minors;
    for (m = 1; m <= MAJOR_MAX; m++) {
        if (minors[m] == 0)
            continue;
        for (k = 0; k < ng && p->g[k].minors != minors[m]; k++)
            ;
        if (k == ng) {
            memset(&p->g[ng], 0, sizeof(p->g[0]));
            p->g[ng++].minors = minors[m];
        }
        p->g[k].majors[m / 64] |= (uint64_t)1 << (m % 64);
    }
    for (k = 0; k < ng; k++)
        term(w, &p->g[k], NULL, alt, arg, h);
    for (i = 0; i < p->n; i++)
        if (p->c[i].run && alt_has(alt, arg, &p->c[i]))
            term(w, NULL, &p->c[i], alt, arg, h);
}

/* Every alternative in order: no driver needed, each later major, each exact minimum,
 * then the unknown driver. */
static void gpu_terms(struct writer *w, struct plan *p, const struct host *h)
{
    int seen_major[MAJOR_MAX + 2] = {0}, any = 0, needs_driver = 0, last = 0, m;
    size_t i, k;

    for (i = 0; i < p->n; i++) {
        any |= p->c[i].need == 0;
        needs_driver |= p->c[i].need != 0;
        if (p->c[i].need > 0 && major_floor(p->c[i].need) <= MAJOR_MAX)
            seen_major[major_floor(p->c[i].need)] = 1;
    }
    if (any)
        alt_terms(w, p, DRV_ANY, 0, h);
    for (m = 0; m <= MAJOR_MAX; m++)
        if (seen_major[m])
            alt_terms(w, p, DRV_MAJOR, m, h);
    /* Each distinct need with a minor, ascending. */
    for (;;) {
        int next = 0;

        for (k = 0; k < p->n; k++) {
            int n = p->c[k].need;

            if (n > last && (n % 1000) / 10 != 0 && (next == 0 || n < next))
                next = n;
        }
        if (next == 0)
            break;
        alt_terms(w, p, DRV_MINOR, next, h);
        last = next;
    }
    if (needs_driver)
        alt_terms(w, p, DRV_UNKNOWN, 0, h);
}

/* The NFD labels the package needs on each architecture of h (pt2_k8s_cpu_required, the
 * features pt2_nfd decides). */
static int host_labels(const pt2_package *pkg, struct host *h, struct pt2_error *err)
{
    const char *req[4 * PT2_ISA_FEATURES_MAX];
    const struct pt2_nfd_flag *f;
    size_t nreq, a, i;
    int rc;

    if (h->any || h->n == 0)
        return PT2_OK;
    if ((rc = pt2_k8s_cpu_required(pkg, req, sizeof(req) / sizeof(req[0]), &nreq, err)) != PT2_OK)
        return rc;
    for (a = 0; a < h->n; a++) {
        h->machine[a] = pt2_k8s_arch_machine(h->archs[a]);
        for (i = 0; i < nreq && h->nneed[a] < PT2_NFD_FLAGS_MAX; i++)
            if ((f = pt2_nfd_by_feature(h->machine[a], req[i])) != NULL && f->by_default)
                h->need[a][h->nneed[a]++] = f;
        h->cpu |= h->nneed[a] > 0;
    }
    return PT2_OK;
}

/* Where the host code runs: every architecture pt2_k8s knows, on Linux. */
static int host_archs(const pt2_package *pkg, struct host *h, struct pt2_error *err)
{
    struct pt2_k8s_node node;
    struct pt2_verdict_result r;
    const char *arch, *machine;
    size_t i;
    int rc, all = 1;

    memset(h, 0, sizeof(*h));
    for (i = 0; (arch = pt2_k8s_arch_at(i)) != NULL && h->n < ARCHS_MAX; i++) {
        memset(&node, 0, sizeof(node));
        machine = pt2_k8s_arch_machine(arch);
        snprintf(node.arch, sizeof(node.arch), "%s", arch);
        snprintf(node.machine, sizeof(node.machine), "%s", machine != NULL ? machine : arch);
        snprintf(node.os, sizeof(node.os), "linux");
        if ((rc = pt2_k8s_check_cpu(pkg, &node, &r, err)) != PT2_OK)
            return rc;
        if (r.verdict != PT2_INCOMPATIBLE)
            h->archs[h->n++] = arch;
        else
            all = 0;
    }
    h->any = all;
    return host_labels(pkg, h, err);
}

/* The term that selects no node: it requires and forbids the same label. */
static void term_none(struct writer *w)
{
    cJSON *t = cJSON_CreateObject(), *exprs;

    if (t == NULL || !cJSON_AddItemToArray(w->terms, t)) {
        cJSON_Delete(t);
        w->nomem = 1;
        return;
    }
    if ((exprs = cJSON_AddArrayToObject(t, "matchExpressions")) == NULL) {
        w->nomem = 1;
        return;
    }
    expr(w, exprs, PT2_AFFINITY_NONE_KEY, "Exists", NULL, 0);
    expr(w, exprs, PT2_AFFINITY_NONE_KEY, "DoesNotExist", NULL, 0);
}

int pt2_package_node_affinity_note(const pt2_package *pkg, char *buf, size_t len,
                                   struct pt2_error *err)
{
    const char *req[4 * PT2_ISA_FEATURES_MAX];
    cJSON *aff = NULL;
    struct host h;
    struct pt2_sbuf b;
    size_t a, i, nreq, nout = 0;
    int rc, selectable = 0;

    if (pkg == NULL || buf == NULL || len == 0)
        return pt2_error_set(err, PT2_ERR_INVALID,
                             "pt2_package_node_affinity_note: missing argument");
    buf[0] = '\0';
    /* A selector that selects nothing takes nothing on trust. */
    if ((rc = pt2_package_node_affinity(pkg, &aff, &selectable, err)) != PT2_OK)
        return rc;
    cJSON_Delete(aff);
    if (!selectable || (rc = host_archs(pkg, &h, err)) != PT2_OK || !h.cpu)
        return rc;
    if ((rc = pt2_k8s_cpu_required(pkg, req, sizeof(req) / sizeof(req[0]), &nreq, err)) != PT2_OK)
        return rc;
    pt2_sbuf_init(&b, buf, len);
    pt2_sbuf_add(&b, "CPU: a node with Node Feature Discovery labels must have");
    for (a = 0; a < h.n; a++) {
        for (i = 0; i < h.nneed[a]; i++)
            pt2_sbuf_add(&b, "%s%s%s", a && !i ? "; " : "", i ? ", " : " " PT2_NFD_CPUID_PREFIX,
                         h.need[a][i]->flag);
        pt2_sbuf_add(&b, "=true (%s)", h.archs[a]);
    }
    pt2_sbuf_add(&b, "; a node without NFD CPU labels is selected too, its CPU features unknown");
    for (a = 0; a < h.n && h.n == 1; a++)
        for (i = 0; i < nreq; i++)
            if (!pt2_nfd_decides(h.machine[a], req[i]))
                pt2_sbuf_add(&b, "%s%s",
                             nout++ ? ", "
                                    : "; not checked (NFD does not label "
                                      "them by default): ",
                             req[i]);
    return PT2_OK;
}

int pt2_package_node_affinity(const pt2_package *pkg, cJSON **out, int *selectable,
                              struct pt2_error *err)
{
    const struct pt2_error *merr;
    struct judge j = {0};
    struct plan p = {0};
    struct host h;
    struct writer w = {0};
    cJSON *doc = NULL, *req;
    char what[256];
    unsigned need;
    int rc = PT2_OK;

    if (out != NULL)
        *out = NULL;
    if (selectable != NULL)
        *selectable = 0;
    if (pkg == NULL || out == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_package_node_affinity: missing argument");
    /* Invalid metadata leaves the verdicts undecided, and so the selector. */
    if ((merr = pt2_package_meta_error(pkg)) != NULL)
        return pt2_error_copy(err, merr);
    need = pt2_verdicts_need(pkg, what, sizeof(what));
    if ((rc = host_archs(pkg, &h, err)) != PT2_OK)
        return rc;
    doc = cJSON_CreateObject();
    req = doc != NULL
              ? cJSON_AddObjectToObject(doc, "requiredDuringSchedulingIgnoredDuringExecution")
              : NULL;
    w.terms = req != NULL ? cJSON_AddArrayToObject(req, "nodeSelectorTerms") : NULL;
    if (w.terms == NULL) {
        rc = pt2_error_set(err, PT2_ERR_NOMEM, "out of memory building the node affinity");
        goto cleanup;
    }
    if (h.n == 0) {
        /* The host code loads on no Linux node. */
    } else if (need == 0) {
        term(&w, NULL, NULL, DRV_ANY, 0, &h);
    } else if (need & PT2_NEED_NVIDIA) {
        /* GFD labels describe NVIDIA GPUs; a package for AMD or other devices runs on none. */
        if ((rc = judge_build(pkg, &j, err)) != PT2_OK || (rc = plan_build(&j, &p, err)) != PT2_OK)
            goto cleanup;
        gpu_terms(&w, &p, &h);
    }
    if (w.toolarge) {
        rc = pt2_error_set(err, PT2_ERR_TOO_LARGE,
                           "the node affinity would need more than %d nodeSelectorTerms",
                           PT2_AFFINITY_TERMS_MAX);
        goto cleanup;
    }
    if (w.n == 0)
        term_none(&w);
    if (w.nomem) {
        rc = pt2_error_set(err, PT2_ERR_NOMEM, "out of memory building the node affinity");
        goto cleanup;
    }
    if (selectable != NULL)
        *selectable = w.n > 0;
    *out = doc;
    doc = NULL;
cleanup:
    cJSON_Delete(doc);
    judge_free(&j);
    free(p.c);
    return rc;
}
