/*
 * pt2_compat.c - GPU and CPU verdicts: the rules (what users name is parsed
 * in pt2_target.c).
 *
 * The verdict functions never allocate: target lists for messages are
 * collected into a small fixed array (PT2_COMPAT_NAMES_MAX distinct names;
 * the rest are counted as "N more"), and every sentence goes through a
 * bounded appender into the fixed-size reason. User text echoed into an
 * error message (a bad target, a bad device key) is cut short and stripped
 * of control characters so a message stays one line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_compat.h"
#include "pt2_zebin.h"
#include "pt2_target.h"
#include "pt2_sbuf.h"
#include "pt2_desc.h"
#include "pt2_isa.h"
#include "pt2_runtime.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

#define PT2_COMPAT_NAMES_MAX 24 /* distinct targets named in one reason */
#define PT2_COMPAT_NODE_FEATURES_MAX 4096
#define PT2_COMPAT_ECHO_MAX 48 /* bytes of user text echoed in messages */

/* ---- text helpers ---------------------------------------------------------- */

static char lower(char c)
{
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int streq_nocase(const char *a, const char *b)
{
    for (; *a != '\0' && *b != '\0'; a++, b++)
        if (lower(*a) != lower(*b))
            return 0;
    return *a == *b;
}

/* 12040 -> "12.4". */
static const char *cuda_text(int v, char *buf, size_t len)
{
    snprintf(buf, len, "%d.%d", v / 1000, (v % 1000) / 10);
    return buf;
}

/* ---- driver requirements ------------------------------------------------------ */

static const struct {
    unsigned major, minor;
    int cuda;
} ptx_isa[] = {
    {6, 0, 9000},  {6, 1, 9010},  {6, 2, 9020},  {6, 3, 10000}, {6, 4, 10010},
    {6, 5, 10020}, {7, 0, 11000}, {7, 1, 11010}, {7, 2, 11020}, {7, 3, 11030},
    {7, 4, 11040}, {7, 5, 11050}, {7, 6, 11060}, {7, 7, 11070}, {7, 8, 11080},
    {8, 0, 12000}, {8, 1, 12010}, {8, 2, 12020}, {8, 3, 12030}, {8, 4, 12040},
    {8, 5, 12050}, {8, 6, 12070}, {8, 7, 12080}, {8, 8, 12090}, {9, 0, 13000},
};

int pt2_compat_ptx_min_driver(unsigned ptx_major, unsigned ptx_minor)
{
    size_t i;

    if (ptx_major == 0)
        return 0;
    /* The first release at or above this ISA (an ISA between rows is newer). */
    for (i = 0; i < NELEM(ptx_isa); i++)
        if (ptx_isa[i].major > ptx_major ||
            (ptx_isa[i].major == ptx_major && ptx_isa[i].minor >= ptx_minor))
            return ptx_isa[i].cuda;
    /* Past the table: PTX x.y has shipped with CUDA (x+4).y since 9.0. */
    if (ptx_major > 99 || ptx_minor > 9)
        return 0;
    return (int)((ptx_major + 4) * 1000 + ptx_minor * 10);
}

/* Driver a GPU needs at all (FORMATS.md §10); 0 = no floor worth checking. */
static const struct {
    int cc, cuda;
} device_floors[] = {
    {100, 12080}, {101, 12080}, {103, 12090}, {110, 13000}, {120, 12080}, {121, 12090},
};

int pt2_compat_device_min_driver(int major, int minor)
{
    int cc = major * 10 + minor;
    size_t i;

    for (i = 0; i < NELEM(device_floors); i++)
        if (device_floors[i].cc == cc)
            return device_floors[i].cuda;
    return 0;
}

int pt2_compat_device_floor_at(size_t i, int *major, int *minor)
{
    if (i >= NELEM(device_floors))
        return 0;
    *major = device_floors[i].cc / 10;
    *minor = device_floors[i].cc % 10;
    return device_floors[i].cuda;
}

/*
 * NVIDIA CUDA Toolkit release notes, "CUDA Toolkit and Corresponding Driver
 * Versions": the Linux driver branch each CUDA release first required. A
 * driver of a branch reports (cuDriverGetVersion) that CUDA version.
 */
static const struct {
    int branch, cuda;
} driver_branches[] = {
    {450, 11000}, {455, 11010}, {460, 11020}, {465, 11030}, {470, 11040},
    {495, 11050}, {510, 11060}, {515, 11070}, {520, 11080}, {525, 12000},
    {530, 12010}, {535, 12020}, {545, 12030}, {550, 12040}, {555, 12050},
    {560, 12060}, {565, 12070}, {570, 12080}, {575, 12090}, {580, 13000},
};

int pt2_compat_branch_cuda(int branch)
{
    int cuda = 0;
    size_t i;

    for (i = 0; i < NELEM(driver_branches) && driver_branches[i].branch <= branch; i++)
        cuda = driver_branches[i].cuda;
    return cuda;
}

int pt2_compat_cuda_branch(int cuda)
{
    size_t i;

    for (i = 0; i < NELEM(driver_branches); i++)
        if (driver_branches[i].cuda >= cuda)
            return driver_branches[i].branch;
    return 0;
}

/* ---- target lists for messages ---------------------------------------------------- */

struct name_entry {
    int rank; /* kind order: cubins, PTX, AMD, Intel */
    unsigned sm;
    int variant;
    char name[72];
};

struct name_list {
    struct name_entry v[PT2_COMPAT_NAMES_MAX];
    size_t n, more;
};

static int kind_rank(int kind)
{
    switch (kind) {
    case PT2_KERNEL_SASS:
        return 0;
    case PT2_KERNEL_PTX:
        return 1;
    case PT2_KERNEL_HSACO:
        return 2;
    default:
        return 3;
    }
}

static int variant_rank(char v)
{
    return v == 0 ? 0 : v == 'a' ? 1 : 2;
}

static int name_cmp(const void *a, const void *b)
{
    const struct name_entry *x = a, *y = b;

    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->sm != y->sm)
        return x->sm < y->sm ? -1 : 1;
    if (x->variant != y->variant)
        return x->variant < y->variant ? -1 : 1;
    return strcmp(x->name, y->name);
}

static void names_add(struct name_list *nl, const struct pt2_kernel *k)
{
    struct name_entry e;
    size_t i;

    memset(&e, 0, sizeof(e));
    e.rank = kind_rank(k->kind);
    e.sm = k->sm;
    e.variant = variant_rank(k->variant);
    pt2_kernel_target_name(k, e.name, sizeof(e.name));
    for (i = 0; i < nl->n; i++)
        if (strcmp(nl->v[i].name, e.name) == 0)
            return;
    if (nl->n == PT2_COMPAT_NAMES_MAX) {
        nl->more++;
        return;
    }
    nl->v[nl->n++] = e;
}

static void names_print(struct pt2_sbuf *b, struct name_list *nl)
{
    size_t i;

    qsort(nl->v, nl->n, sizeof(nl->v[0]), name_cmp);
    for (i = 0; i < nl->n; i++)
        pt2_sbuf_add(b, "%s%s", i ? ", " : "", nl->v[i].name);
    if (nl->more)
        pt2_sbuf_add(b, " and %zu more", nl->more);
}

/* A kernel that counts: device-link stubs carry no kernels. */
static int has_code(const struct pt2_kernel *k)
{
    return !(k->kind == PT2_KERNEL_SASS && k->has_code == 0);
}

/* ---- advice ------------------------------------------------------------------------- */

#define ARCH_LIST_MAX 12 /* entries of a suggested TORCH_CUDA_ARCH_LIST / PYTORCH_ROCM_ARCH */

/* "Upgrade the NVIDIA driver to branch 580 or newer (CUDA 13.0)", from the branch table. */
static void set_code(struct pt2_verdict_result *out, const char *code)
{
    if (out != NULL)
        snprintf(out->code, sizeof(out->code), "%s", code);
}

static void advise_driver(struct pt2_sbuf *a, int cuda)
{
    int branch = pt2_compat_cuda_branch(cuda);
    char c[16];

    if (branch > 0)
        pt2_sbuf_add(a, "Upgrade the NVIDIA driver to branch %d or newer (CUDA %s)", branch,
                     cuda_text(cuda, c, sizeof(c)));
    else
        pt2_sbuf_add(a, "Upgrade the NVIDIA driver to one that supports CUDA %s",
                     cuda_text(cuda, c, sizeof(c)));
}

struct arch_entry {
    unsigned sm;
    char variant; /* 0 or 'a': an 'f' cubin is the plain cubin of its SM */
    int ptx;
};

static int arch_cmp(const void *x, const void *y)
{
    const struct arch_entry *a = x, *b = y;

    if (a->sm != b->sm)
        return a->sm < b->sm ? -1 : 1;
    return (a->variant > b->variant) - (a->variant < b->variant);
}

static void arch_add(struct arch_entry *v, size_t *n, unsigned sm, char variant, int ptx)
{
    size_t i;

    variant = variant == 'a' ? 'a' : 0;
    for (i = 0; i < *n; i++) {
        if (v[i].sm == sm && v[i].variant == variant) {
            v[i].ptx |= ptx;
            return;
        }
    }
    if (*n < ARCH_LIST_MAX)
        v[(*n)++] = (struct arch_entry){sm, variant, ptx};
}

/*
 * The TORCH_CUDA_ARCH_LIST that keeps the package's NVIDIA targets and adds
 * the device's compute capability `dev_sm` ("8.0;9.0a"); with `ptx_top` the
 * highest plain entry also gets "+PTX", which the driver can JIT-compile for
 * any later GPU (forward compatibility).
 */
static void arch_list(struct pt2_sbuf *a, const struct pt2_kernel_list *ks, unsigned dev_sm,
                      int ptx_top)
{
    struct arch_entry v[ARCH_LIST_MAX];
    size_t n = 0, i, top = ARCH_LIST_MAX;

    if (a->cap == 0)
        return; /* quiet */
    arch_add(v, &n, dev_sm, 0, 0);
    for (i = 0; ks != NULL && i < ks->n; i++) {
        const struct pt2_kernel *k = &ks->v[i];

        if ((k->kind == PT2_KERNEL_SASS && has_code(k)) || k->kind == PT2_KERNEL_PTX)
            arch_add(v, &n, k->sm, k->variant, k->kind == PT2_KERNEL_PTX);
    }
    qsort(v, n, sizeof(v[0]), arch_cmp);
    for (i = 0; ptx_top && i < n; i++)
        if (v[i].variant == 0)
            top = i;
    for (i = 0; i < n; i++)
        pt2_sbuf_add(a, "%s%u.%u%s%s", i ? ";" : "", v[i].sm / 10, v[i].sm % 10,
                     v[i].variant == 'a' ? "a" : "", v[i].ptx || i == top ? "+PTX" : "");
}

/* Does the package carry NVIDIA code at all? */
static int has_nvidia(const struct pt2_kernel_list *ks)
{
    size_t i;

    for (i = 0; ks != NULL && i < ks->n; i++)
        if ((ks->v[i].kind == PT2_KERNEL_SASS && has_code(&ks->v[i])) ||
            ks->v[i].kind == PT2_KERNEL_PTX)
            return 1;
    return 0;
}

/* Rebuild with the device's CC added: the one fix for "no code for this GPU". */
static void advise_rebuild_nv(struct pt2_sbuf *a, const struct pt2_kernel_list *ks, unsigned dev_sm)
{
    pt2_sbuf_add(a, "Rebuild %swith TORCH_CUDA_ARCH_LIST=\"",
                 has_nvidia(ks) ? "" : "on a CUDA build of torch ");
    arch_list(a, ks, dev_sm, 0);
    pt2_sbuf_add(a, "\" (or \"");
    arch_list(a, ks, dev_sm, 1);
    pt2_sbuf_add(a,
                 "\", adding PTX for forward compatibility) and "
                 "aot_inductor.emit_multi_arch_kernel=True, so the package carries code for "
                 "%u.%u.",
                 dev_sm / 10, dev_sm % 10);
}

/* PYTORCH_ROCM_ARCH with the package's AMD targets and the device's ("gfx90a;gfx942"). */
static void advise_rebuild_amd(struct pt2_sbuf *a, const struct pt2_kernel_list *ks,
                               const char *devgfx)
{
    char names[ARCH_LIST_MAX][72], tn[72];
    size_t n = 0, i, j;

    if (a->cap == 0)
        return; /* quiet */
    pt2_sbuf_add(a, "Rebuild on a ROCm build of torch with PYTORCH_ROCM_ARCH=\"");
    for (i = 0; ks != NULL && i < ks->n && n < ARCH_LIST_MAX - 1; i++) {
        if (ks->v[i].kind != PT2_KERNEL_HSACO)
            continue;
        pt2_kernel_target_name(&ks->v[i], tn, sizeof(tn));
        for (j = 0; j < n && strcmp(names[j], tn) != 0; j++)
            ;
        if (j == n && strcmp(tn, devgfx) != 0)
            snprintf(names[n++], sizeof(names[0]), "%s", tn);
    }
    for (i = 0; i < n; i++)
        pt2_sbuf_add(a, "%s;", names[i]);
    pt2_sbuf_add(a, "%s\", so the package carries a code object for %s.", devgfx, devgfx);
}

/* ---- GPU verdicts ------------------------------------------------------------------- */

/* SM 101 was Thor's number before CUDA 13 renamed it 110. */
static unsigned canon_sm(unsigned sm)
{
    return sm == 101 ? 110 : sm;
}

static int nv_matches(const struct pt2_kernel *k, unsigned dcc)
{
    unsigned s = canon_sm(k->sm);

    if (k->variant == 'a')
        return s == dcc;
    if (k->kind == PT2_KERNEL_SASS || k->variant == 'f')
        return s / 10 == dcc / 10 && s % 10 <= dcc % 10;
    return dcc >= s; /* plain PTX: any later GPU, across majors */
}

struct nv_eval {
    const struct pt2_kernel *sass;    /* best runnable cubin */
    int sass_caveat;                  /* it needs CUDA 13 and the driver is unknown */
    const struct pt2_kernel *sass_v8; /* best cubin refused by a known pre-13 driver */
    const struct pt2_kernel *ptx;     /* best JIT-able PTX */
    int ptx_need;                     /* its ISA's CUDA version (0 unknown) */
    const struct pt2_kernel *ptx_old; /* best PTX too new for the known driver */
    int ptx_old_need;
    int any_match;
};

/* Is cubin a preferable to cubin b (NULL)? Fewer caveats, closer SM, 'a' over plain over 'f'. */
static int better_sass(const struct pt2_kernel *a, int a_cav, const struct pt2_kernel *b, int b_cav)
{
    static const int vr[3] = {1, 2, 0}; /* plain, 'a', 'f' */

    if (b == NULL)
        return 1;
    if (a_cav != b_cav)
        return a_cav < b_cav;
    if (canon_sm(a->sm) != canon_sm(b->sm))
        return canon_sm(a->sm) > canon_sm(b->sm);
    return vr[variant_rank(a->variant)] > vr[variant_rank(b->variant)];
}

/* ABI v8 (or a CUDA 13 toolkit note) means a CUDA 13 build, which needs a CUDA 13 driver. */
static int sass_is_cuda13(const struct pt2_kernel *k)
{
    return k->abi_version >= 8 || k->toolkit >= 130;
}

int pt2_compat_kernel_min_driver(const struct pt2_kernel *k)
{
    int need = 0, v;

    if (k == NULL || (k->kind != PT2_KERNEL_SASS && k->kind != PT2_KERNEL_PTX))
        return 0;
    if (k->kind == PT2_KERNEL_SASS && sass_is_cuda13(k))
        need = 13000;
    if (k->kind == PT2_KERNEL_PTX &&
        (v = pt2_compat_ptx_min_driver(k->ptx_major, k->ptx_minor)) > need)
        need = v;
    /* No GPU it runs on works with less (an sm_100 kernel needs 12.8 whatever built it). */
    if ((v = pt2_compat_device_min_driver((int)k->sm / 10, (int)k->sm % 10)) > need)
        need = v;
    return need;
}

static void nv_evaluate(const struct pt2_kernel_list *ks, unsigned dcc, int driver,
                        struct nv_eval *ev)
{
    size_t i;

    memset(ev, 0, sizeof(*ev));
    for (i = 0; ks != NULL && i < ks->n; i++) {
        const struct pt2_kernel *k = &ks->v[i];

        if ((k->kind != PT2_KERNEL_SASS && k->kind != PT2_KERNEL_PTX) || !has_code(k) ||
            !nv_matches(k, dcc))
            continue;
        ev->any_match = 1;
        if (k->kind == PT2_KERNEL_SASS) {
            int v8 = sass_is_cuda13(k);
            if (v8 && driver != 0 && driver < 13000) {
                if (better_sass(k, 0, ev->sass_v8, 0))
                    ev->sass_v8 = k;
            } else if (better_sass(k, v8 && driver == 0, ev->sass, ev->sass_caveat)) {
                ev->sass = k;
                ev->sass_caveat = v8 && driver == 0;
            }
        } else {
            int need = pt2_compat_ptx_min_driver(k->ptx_major, k->ptx_minor);
            if (driver != 0 && need != 0 && driver < need) {
                if (ev->ptx_old == NULL || need < ev->ptx_old_need) {
                    ev->ptx_old = k;
                    ev->ptx_old_need = need;
                }
            } else if (ev->ptx == NULL || canon_sm(k->sm) > canon_sm(ev->ptx->sm) ||
                       (canon_sm(k->sm) == canon_sm(ev->ptx->sm) && need < ev->ptx_need)) {
                ev->ptx = k;
                ev->ptx_need = need;
            }
        }
    }
}

/* 1 when the device's name already ends with what it is ("AMD gfx942", "gfx942"). */
static int name_says_it(const char *devname, const char *devis)
{
    size_t n = strlen(devname), m = strlen(devis);

    return m <= n && strcmp(devname + n - m, devis) == 0;
}

static void reason_targets_only(struct pt2_sbuf *b, const struct pt2_kernel_list *ks,
                                const char *devname, const char *devis)
{
    struct name_list nl;
    size_t i;

    if (b->cap == 0)
        return; /* quiet */
    memset(&nl, 0, sizeof(nl));
    for (i = 0; ks != NULL && i < ks->n; i++)
        if (has_code(&ks->v[i]))
            names_add(&nl, &ks->v[i]);
    pt2_sbuf_add(b, "kernels are ");
    names_print(b, &nl);
    /* A bare target ("compute capability 8.0", "AMD gfx942") would read "... gfx942 is gfx942". */
    if (devis != NULL && name_says_it(devname, devis))
        pt2_sbuf_add(b, " only; the target is %s", devname);
    else if (devis != NULL)
        pt2_sbuf_add(b, " only; %s is %s", devname, devis);
    else
        pt2_sbuf_add(b, " only; %s has no GPU", devname);
}

/*
 * The oldest driver (12080 form) that runs some kernel of the package on a device of
 * `dcc` whose own floor is `floor`: each matching kernel needs max(floor, what it needs
 * itself: 13.0 for an ELF ABI v8 cubin, its PTX ISA's CUDA for PTX), the package the least
 * of those. Advice names this one branch, never one that leaves the package incompatible.
 */
static int nv_min_driver(const struct pt2_kernel_list *ks, unsigned dcc, int floor)
{
    int best = 0;

    for (size_t i = 0; ks != NULL && i < ks->n; i++) {
        const struct pt2_kernel *k = &ks->v[i];
        int need;

        if ((k->kind != PT2_KERNEL_SASS && k->kind != PT2_KERNEL_PTX) || !has_code(k) ||
            !nv_matches(k, dcc))
            continue;
        if (k->kind == PT2_KERNEL_SASS)
            need = (k->abi_version >= 8 || k->toolkit >= 130) ? 13000 : 0;
        else
            need = pt2_compat_ptx_min_driver(k->ptx_major, k->ptx_minor);
        if (need < floor)
            need = floor;
        if (best == 0 || need < best)
            best = need;
    }
    return best > 0 ? best : floor;
}

/* The NVIDIA verdict from the evaluation: the one place it is decided. */
static int nv_decide(const struct nv_eval *ev, int driver, int floor)
{
    if (ev->any_match && driver != 0 && driver < floor)
        return PT2_INCOMPATIBLE; /* the GPU is newer than the driver */
    if (ev->sass != NULL)
        return PT2_COMPATIBLE;
    if (ev->ptx != NULL)
        return PT2_COMPATIBLE_PTX_JIT;
    return PT2_INCOMPATIBLE;
}

/* "compatible if the driver supports CUDA 13.0 (branch 580 or newer)" for an unknown driver. */
static void compatible_if(struct pt2_sbuf *b, int cuda, const char *why)
{
    char c[16];
    int branch = pt2_compat_cuda_branch(cuda);

    pt2_sbuf_add(b, "; compatible if the driver supports CUDA %s", cuda_text(cuda, c, sizeof(c)));
    if (branch > 0)
        pt2_sbuf_add(b, " (branch %d or newer)", branch);
    pt2_sbuf_add(b, ": %s and the driver version is unknown", why);
}

/* One NVIDIA device judged: the evaluation, the device, and where the words go. */
struct nv_case {
    const struct pt2_kernel_list *ks;
    struct nv_eval ev;
    const char *devname;
    char devis[16]; /* "9.0" */
    int driver, floor;
    unsigned dcc, dev_sm;
    struct pt2_sbuf *b, *a;
    struct pt2_verdict_result *out;
};

/* The requirement as data: the driver the kernel that runs needs, and the code. */
static void nv_requires(struct nv_case *c, int v)
{
    struct pt2_verdict_result *out = c->out;

    if (v != PT2_INCOMPATIBLE) {
        const struct pt2_kernel *k = c->ev.sass;
        int need =
            k != NULL ? ((k->abi_version >= 8 || k->toolkit >= 130) ? 13000 : 0) : c->ev.ptx_need;

        out->requires_driver = need > c->floor ? need : c->floor;
        if (c->driver == 0 && out->requires_driver > 0)
            out->unverified |= PT2_UNVERIFIED_CUDA_DRIVER;
        set_code(out, v == PT2_COMPATIBLE ? "compatible" : "ptx-jit");
    } else {
        out->requires_driver = c->ev.any_match ? nv_min_driver(c->ks, c->dcc, c->floor) : 0;
        set_code(out, c->ev.any_match ? "driver-too-old" : "arch-mismatch");
    }
}

/* The GPU is newer than the driver: the one branch that supports it and runs the code. */
static void nv_say_gpu_too_new(struct nv_case *c)
{
    char c1[16], c2[16];
    int need = nv_min_driver(c->ks, c->dcc, c->floor);

    pt2_sbuf_add(c->b, "%s needs a CUDA %s+ driver; this driver supports CUDA %s", c->devname,
                 cuda_text(c->floor, c1, sizeof(c1)), cuda_text(c->driver, c2, sizeof(c2)));
    advise_driver(c->a, need);
    if (need == c->floor)
        pt2_sbuf_add(c->a, ", the first that supports %s.", c->devname);
    else
        pt2_sbuf_add(c->a, ", the first that supports %s and runs the package's kernels.",
                     c->devname);
}

static void nv_say_cubin(struct nv_case *c)
{
    char tn[72];

    pt2_sbuf_add(c->b, "%s cubin runs on %s", pt2_kernel_target_name(c->ev.sass, tn, sizeof(tn)),
                 c->devname);
    if (c->ev.sass_caveat)
        compatible_if(c->b, 13000, "the cubin is CUDA 13 (ELF ABI v8)");
    else if (c->driver == 0 && c->floor > 0)
        compatible_if(c->b, c->floor, "the GPU needs it");
}

/* CUDA 13 cubins on an older driver; 1 when that is the whole story (no PTX to fall back on). */
static int nv_say_cuda13_cubins(struct nv_case *c)
{
    char tn[72], c1[16];

    pt2_sbuf_add(c->b,
                 "%s cubins are built with CUDA 13 (ELF ABI v8) and need a CUDA 13.0+ driver; "
                 "this driver supports CUDA %s",
                 pt2_kernel_target_name(c->ev.sass_v8, tn, sizeof(tn)),
                 cuda_text(c->driver, c1, sizeof(c1)));
    if (c->ev.ptx == NULL && c->ev.ptx_old == NULL) {
        advise_driver(c->a, 13000);
        pt2_sbuf_add(c->a, " to load these CUDA 13 cubins, or rebuild the package with a CUDA "
                           "12.x toolkit (a torch built for CUDA 12).");
        return 1;
    }
    pt2_sbuf_add(c->b, "; ");
    return 0;
}

/* `TORCH_CUDA_ARCH_LIST="...` with the device's architecture added (the caller closes it). */
static void advise_arch_list(struct nv_case *c, const char *before)
{
    pt2_sbuf_add(c->a, "%sTORCH_CUDA_ARCH_LIST=\"", before);
    arch_list(c->a, c->ks, c->dev_sm, 0);
}

/* PTX the driver can JIT-compile for the device. */
static void nv_say_ptx(struct nv_case *c)
{
    char tn[72], why[72];

    pt2_sbuf_add(c->b, "%s PTX can be JIT-compiled for %s",
                 pt2_kernel_target_name(c->ev.ptx, tn, sizeof(tn)), c->devname);
    if (c->driver == 0 && c->out->requires_driver != 0) {
        snprintf(why, sizeof(why), "its PTX is ISA %u.%u", c->ev.ptx->ptx_major,
                 c->ev.ptx->ptx_minor);
        compatible_if(c->b, c->out->requires_driver, why);
    }
    pt2_sbuf_add(c->a, "The driver JIT-compiles this PTX when the package loads (a slow first "
                       "load, and none at all with CUDA_DISABLE_JIT=1). ");
    if (c->ev.sass_v8 != NULL) {
        /* The cubin is there; only the driver keeps it from loading. */
        advise_driver(c->a, 13000);
        pt2_sbuf_add(c->a, " to run the package's CUDA 13 cubin instead.");
        return;
    }
    pt2_sbuf_add(c->a, "To ship a cubin for %s, ", c->devis);
    advise_arch_list(c, "rebuild with ");
    pt2_sbuf_add(c->a, "\" and aot_inductor.emit_multi_arch_kernel=True.");
}

/* PTX of an ISA newer than the driver can JIT-compile. */
static void nv_say_ptx_too_new(struct nv_case *c)
{
    const struct nv_eval *ev = &c->ev;
    char tn[72], c1[16], c2[16];

    pt2_sbuf_add(c->b,
                 "%s PTX is ISA %u.%u and needs a CUDA %s+ driver to JIT-compile for %s; "
                 "this driver supports CUDA %s",
                 pt2_kernel_target_name(ev->ptx_old, tn, sizeof(tn)), ev->ptx_old->ptx_major,
                 ev->ptx_old->ptx_minor, cuda_text(ev->ptx_old_need, c1, sizeof(c1)), c->devname,
                 cuda_text(c->driver, c2, sizeof(c2)));
    if (ev->sass_v8 != NULL && 13000 <= ev->ptx_old_need) {
        advise_driver(c->a, 13000);
        pt2_sbuf_add(c->a, ", which loads the package's CUDA 13 cubins");
    } else {
        advise_driver(c->a, ev->ptx_old_need);
        pt2_sbuf_add(c->a, ", which can JIT-compile PTX ISA %u.%u", ev->ptx_old->ptx_major,
                     ev->ptx_old->ptx_minor);
    }
    if (ev->sass_v8 != NULL || ev->ptx_old_need >= 13000)
        /* A rebuild with the same CUDA 13 toolkit needs the same driver. */
        pt2_sbuf_add(c->a, "; or rebuild the package with a CUDA 12.x toolkit (a torch built "
                           "for CUDA 12).");
    else {
        advise_arch_list(c, "; or rebuild with ");
        pt2_sbuf_add(c->a,
                     "\" and aot_inductor.emit_multi_arch_kernel=True so a cubin for %s needs "
                     "no JIT.",
                     c->devis);
    }
}

/* No code for the device's architecture at all. */
static void nv_say_mismatch(struct nv_case *c)
{
    const struct pt2_kernel_list *ks = c->ks;

    reason_targets_only(c->b, ks, c->devname, c->devis);
    advise_rebuild_nv(c->a, ks, c->dev_sm);
    /* an 'a' cubin of the device's own major: the family is right, the variant is not */
    for (size_t i = 0; ks != NULL && i < ks->n; i++)
        if (ks->v[i].kind == PT2_KERNEL_SASS && ks->v[i].variant == 'a' && has_code(&ks->v[i]) &&
            canon_sm(ks->v[i].sm) / 10 == c->dcc / 10)
            set_code(c->out, "variant-mismatch");
}

/* The verdict, then (unless `b` is a quiet, zero-capacity buffer) the requirement, reason
 * and advice that explain it. */
static int nv_verdict(const struct pt2_kernel_list *ks, const struct pt2_device *dev,
                      const char *devname, struct pt2_sbuf *b, struct pt2_sbuf *a,
                      struct pt2_verdict_result *out)
{
    struct nv_case c = {ks, {0}, devname, "", 0, 0, 0, 0, b, a, out};
    int v;

    c.driver = dev->driver_cuda_version > 0 ? dev->driver_cuda_version : 0;
    c.dcc = c.dev_sm = (unsigned)(dev->cc_major * 10 + dev->cc_minor);
    c.floor = pt2_compat_device_min_driver(dev->cc_major, dev->cc_minor);
    if (c.dcc == 101)
        c.dcc = 110;
    nv_evaluate(ks, c.dcc, c.driver, &c.ev);
    v = nv_decide(&c.ev, c.driver, c.floor);
    if (b->cap == 0)
        return v; /* quiet */
    snprintf(c.devis, sizeof(c.devis), "%d.%d", dev->cc_major, dev->cc_minor);
    nv_requires(&c, v);
    if (c.ev.any_match && c.driver != 0 && c.driver < c.floor)
        nv_say_gpu_too_new(&c);
    else if (c.ev.sass != NULL)
        nv_say_cubin(&c);
    else if (c.ev.sass_v8 != NULL && nv_say_cuda13_cubins(&c))
        ;
    else if (c.ev.sass_v8 == NULL && c.ev.ptx == NULL && c.ev.ptx_old == NULL)
        nv_say_mismatch(&c);
    else {
        if (c.ev.sass_v8 == NULL)
            pt2_sbuf_add(b, "no cubin for %s; ", c.devis);
        if (c.ev.ptx != NULL)
            nv_say_ptx(&c);
        else
            nv_say_ptx_too_new(&c);
    }
    return v;
}

/* Device side of an AMD target id: 0 not named, else PT2_AMD_ON / PT2_AMD_OFF. */
static int amd_dev_feature(const char *target, const char *feature)
{
    const char *p = strchr(target, ':');
    size_t n = strlen(feature);

    while (p != NULL) {
        p++;
        if (strncmp(p, feature, n) == 0 && (p[n] == '+' || p[n] == '-'))
            return p[n] == '+' ? PT2_AMD_ON : PT2_AMD_OFF;
        p = strchr(p, ':');
    }
    return 0;
}

static int amd_feature_ok(int kernel, int device)
{
    if (kernel != PT2_AMD_ON && kernel != PT2_AMD_OFF)
        return 1; /* "any" or not supported by the target: runs either way */
    return device == 0 || kernel == device;
}

/* devgfx: the device's target id, NUL-terminated ("gfx90a:xnack-"). */
static int amd_verdict(const struct pt2_kernel_list *ks, const char *devgfx, const char *devname,
                       struct pt2_sbuf *b, struct pt2_sbuf *a, struct pt2_verdict_result *out)
{
    int same_gfx = 0;

    size_t i, dn = strcspn(devgfx, ":"), kn;
    int dx = amd_dev_feature(devgfx, "xnack"), ds = amd_dev_feature(devgfx, "sramecc");
    char tn[72];

    for (i = 0; ks != NULL && i < ks->n; i++) {
        const struct pt2_kernel *k = &ks->v[i];
        const char *g = k->gfx[0] != '\0' ? k->gfx : k->target_id;

        if (k->kind != PT2_KERNEL_HSACO)
            continue;
        kn = strcspn(g, ":");
        if (kn != dn || strncmp(g, devgfx, dn) != 0)
            continue;
        same_gfx = 1;
        if (!amd_feature_ok(k->xnack, dx) || !amd_feature_ok(k->sramecc, ds))
            continue;
        if (b->cap > 0)
            pt2_sbuf_add(b, "%s code object runs on %s", pt2_kernel_target_name(k, tn, sizeof(tn)),
                         devname);
        set_code(out, "compatible");
        return PT2_COMPATIBLE;
    }
    reason_targets_only(b, ks, devname, devgfx);
    advise_rebuild_amd(a, ks, devgfx);
    set_code(out, same_gfx ? "variant-mismatch" : "arch-mismatch");
    return PT2_INCOMPATIBLE;
}

/* AOTI_COMPUTE_CAPABILITY ("90", "gfx90a") as a stand-in kernel; 0 if not understood. */
static int meta_kernel(const char *meta_cc, struct pt2_kernel *k)
{
    char t[96]; /* fits "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-" */
    uint64_t v;
    memset(k, 0, sizeof(*k));
    if (meta_cc == NULL || !pt2_sbuf_trim(t, sizeof(t), meta_cc) || t[0] == '\0')
        return 0;
    if (pt2_num_u64(t, 10, &v) == PT2_OK && v >= 10 && v <= 999) {
        k->kind = PT2_KERNEL_SASS;
        k->sm = (unsigned)v;
        k->has_code = -1;
        return 1;
    }
    if (pt2_target_is_gfx(pt2_target_amd_tail(t))) {
        const char *g = pt2_target_amd_tail(t);
        k->kind = PT2_KERNEL_HSACO;
        snprintf(k->target_id, sizeof(k->target_id), "%.63s", g);
        snprintf(k->gfx, sizeof(k->gfx), "%.*s", (int)strcspn(g, ":"), g);
        k->xnack = amd_dev_feature(g, "xnack");
        k->sramecc = amd_dev_feature(g, "sramecc");
        if (k->xnack == 0)
            k->xnack = PT2_AMD_ANY;
        if (k->sramecc == 0)
            k->sramecc = PT2_AMD_ANY;
        return 1;
    }
    return 0;
}

static void device_name(const struct pt2_device *dev, char *buf, size_t len)
{
    if (dev->name[0] != '\0')
        snprintf(buf, len, "%.*s", (int)sizeof(dev->name), dev->name);
    else if (dev->gfx[0] != '\0')
        snprintf(buf, len, "AMD %.*s", (int)sizeof(dev->gfx), dev->gfx);
    else if (dev->cc_major > 0)
        snprintf(buf, len, "compute capability %d.%d", dev->cc_major, dev->cc_minor);
    else
        snprintf(buf, len, "this device");
}

/* Lower-case, bounded, printable copy of AOTI_DEVICE_KEY ("" if absent). */
static void device_key_norm(const char *key, char *buf, size_t len)
{
    size_t i = 0;

    for (; key != NULL && *key != '\0' && i + 1 < len; key++) {
        char c = lower(*key);
        buf[i++] = ((c >= 'a' && c <= 'z') || is_digit(c) || c == '_' || c == '-') ? c : '?';
    }
    buf[i] = '\0';
}

/* One GPU device judged: what it is and where the words go (`out` NULL when quiet). */
struct gpu_case {
    char devname[160], devis[40], key[17];
    int is_amd, is_nv;
    struct pt2_sbuf b, a;
    struct pt2_verdict_result *out;
};

static const char *gpu_kind(const struct gpu_case *g)
{
    return g->is_nv ? "CUDA" : "ROCm";
}

/* What a device key needs, in words (../shared/docs/pt2-layouts-2026.md §5). */
static const char *device_key_needs(const char *key)
{
    if (strcmp(key, "mps") == 0)
        return "an Apple GPU on macOS (Metal, MPS)";
    if (strcmp(key, "xpu") == 0)
        return "an Intel GPU (XPU)";
    return NULL;
}

/* The package is for another kind of device (AOTI_DEVICE_KEY xpu, mps...). */
static int say_other_device_key(struct gpu_case *g, const struct pt2_kernel_list *kernels)
{
    const char *needs = device_key_needs(g->key), *intel = NULL;

    for (size_t i = 0; kernels != NULL && i < kernels->n && intel == NULL; i++)
        if (kernels->v[i].kind == PT2_KERNEL_ZEBIN)
            intel = pt2_zebin_product_text(kernels->v[i].intel_product);
    if (needs != NULL && intel != NULL)
        pt2_sbuf_add(&g->b, "package is for %s, zebin kernels for %s (AOTI_DEVICE_KEY %s); ", needs,
                     intel, g->key);
    else if (needs != NULL)
        pt2_sbuf_add(&g->b, "package is for %s (AOTI_DEVICE_KEY %s); ", needs, g->key);
    else
        pt2_sbuf_add(&g->b, "package is for %s devices (AOTI_DEVICE_KEY %s); ", g->key, g->key);
    if (g->is_nv || g->is_amd) {
        pt2_sbuf_add(&g->b, "%s is a %s device", g->devname, gpu_kind(g));
        pt2_sbuf_add(&g->a,
                     "Run it on %s, or re-export the model with AOTInductor on a %s device to get "
                     "code for %s.",
                     needs != NULL ? needs : "a node with devices of that key", gpu_kind(g),
                     g->devname);
    } else {
        pt2_sbuf_add(&g->b, "%s has no GPU", g->devname);
        pt2_sbuf_add(&g->a, "Run it on %s.", needs != NULL ? needs : "a node with such devices");
    }
    set_code(g->out, (g->is_nv || g->is_amd) ? "wrong-vendor" : "no-gpu");
    return PT2_INCOMPATIBLE;
}

/* Intel kernels without a device key: name them. */
static int say_intel_kernels(struct gpu_case *g, const struct pt2_kernel_list *kernels)
{
    reason_targets_only(&g->b, kernels, g->devname, g->devis[0] != '\0' ? g->devis : NULL);
    if (g->is_nv || g->is_amd)
        pt2_sbuf_add(&g->a,
                     "Run it on an Intel GPU (xpu), or re-export the model with AOTInductor on "
                     "a %s device to get code for %s.",
                     gpu_kind(g), g->devname);
    else
        pt2_sbuf_add(&g->a, "Run it on a node with an Intel GPU (xpu).");
    set_code(g->out, (g->is_nv || g->is_amd) ? "wrong-vendor" : "no-gpu");
    return PT2_INCOMPATIBLE;
}

static int say_cpu_only(struct gpu_case *g)
{
    if (g->key[0] == '\0')
        pt2_sbuf_add(&g->b, "CPU-only package (no GPU kernels, no AOTI_DEVICE_KEY): runs on the "
                            "host CPU, needs no GPU");
    else
        pt2_sbuf_add(&g->b, "CPU-only package (AOTI_DEVICE_KEY cpu): runs on the host CPU, needs "
                            "no GPU");
    set_code(g->out, "compatible");
    return PT2_COMPATIBLE;
}

/* A CUDA package without kernels and without a usable AOTI_COMPUTE_CAPABILITY. */
static int say_no_kernels(struct gpu_case *g, const char *meta_cc)
{
    char meta[32];

    pt2_sbuf_echo(meta, sizeof(meta), meta_cc, PT2_COMPAT_ECHO_MAX);
    if (meta_cc == NULL || meta[0] == '\0')
        pt2_sbuf_add(&g->b, "no GPU kernels found and no AOTI_COMPUTE_CAPABILITY in the metadata "
                            "(AOTI_DEVICE_KEY cuda); cannot tell which GPUs it runs on");
    else
        pt2_sbuf_add(&g->b,
                     "no GPU kernels found and AOTI_COMPUTE_CAPABILITY '%s' is not a compute "
                     "capability (AOTI_DEVICE_KEY cuda); cannot tell which GPUs it runs on",
                     meta);
    pt2_sbuf_add(&g->a, "Nothing in the package says which GPUs it was compiled for: re-export "
                        "it with torch._inductor.aoti_compile_and_package, which records "
                        "AOTI_COMPUTE_CAPABILITY, or try loading it on the GPU.");
    set_code(g->out, "no-kernels");
    return PT2_INCOMPATIBLE;
}

/* GPU code for a device that is no GPU (a CPU-only node). */
static int say_no_gpu(struct gpu_case *g, const struct pt2_kernel_list *ks)
{
    reason_targets_only(&g->b, ks, g->devname, NULL);
    pt2_sbuf_add(&g->a, "Run it on a node with a GPU it was compiled for, or re-export the "
                        "model for the CPU (AOTInductor with CPU inputs) to run it here.");
    set_code(g->out, "no-gpu");
    return PT2_INCOMPATIBLE;
}

static void gpu_case_init(struct gpu_case *g, const char *device_key, const struct pt2_device *dev,
                          struct pt2_verdict_result *out, int quiet)
{
    memset(g, 0, sizeof(*g));
    if (quiet) {
        pt2_sbuf_init(&g->b, NULL, 0); /* a zero-capacity buffer formats nothing */
        pt2_sbuf_init(&g->a, NULL, 0);
    } else {
        g->out = out;
        pt2_sbuf_init(&g->b, out->reason, sizeof(out->reason));
        pt2_sbuf_init(&g->a, out->advice, sizeof(out->advice));
        device_name(dev, g->devname, sizeof(g->devname));
    }
    device_key_norm(device_key, g->key, sizeof(g->key));
    g->is_amd = dev->gfx[0] != '\0';
    g->is_nv = !g->is_amd && dev->cc_major > 0;
    if (g->is_amd)
        snprintf(g->devis, sizeof(g->devis), "%.*s", (int)sizeof(dev->gfx), dev->gfx);
    else if (g->is_nv && !quiet)
        snprintf(g->devis, sizeof(g->devis), "%d.%d", dev->cc_major, dev->cc_minor);
}

/* Kernels with code: *ngpu for NVIDIA and AMD, *nother for the rest (Intel). */
static void count_code(const struct pt2_kernel_list *kernels, size_t *ngpu, size_t *nother)
{
    *ngpu = *nother = 0;
    for (size_t i = 0; kernels != NULL && i < kernels->n; i++) {
        const struct pt2_kernel *k = &kernels->v[i];

        if (!has_code(k))
            continue;
        if (k->kind == PT2_KERNEL_SASS || k->kind == PT2_KERNEL_PTX || k->kind == PT2_KERNEL_HSACO)
            (*ngpu)++;
        else
            (*nother)++;
    }
}

/* The GPU rules; with `quiet` only out->verdict is written (reason and advice stay
 * untouched and no text is built), for callers that judge many devices. */
static int compat_gpu(const struct pt2_kernel_list *kernels, const char *device_key,
                      const char *meta_cc, const struct pt2_device *dev,
                      struct pt2_verdict_result *out, int quiet, struct pt2_error *err)
{
    struct gpu_case gc, *g = &gc;
    struct pt2_kernel synth;
    struct pt2_kernel_list one;
    const struct pt2_kernel_list *ks = kernels;
    size_t ngpu, nother;
    int from_meta = 0, v;
    char tn[72];

    if (out == NULL || dev == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "GPU check needs a device and a result");
    if (dev->cc_major < 0 || dev->cc_major > 99 || dev->cc_minor < 0 || dev->cc_minor > 9)
        return pt2_error_set(err, PT2_ERR_INVALID, "compute capability %d.%d is out of range",
                             dev->cc_major, dev->cc_minor);
    if (quiet)
        out->verdict = 0;
    else
        memset(out, 0, sizeof(*out));
    gpu_case_init(g, device_key, dev, out, quiet);
    count_code(kernels, &ngpu, &nother);
    if (ngpu == 0 && g->key[0] != '\0' && strcmp(g->key, "cpu") != 0 &&
        strcmp(g->key, "cuda") != 0) {
        v = say_other_device_key(g, kernels);
    } else if (ngpu == 0 && nother > 0) {
        v = say_intel_kernels(g, kernels);
    } else if (ngpu == 0 && (g->key[0] == '\0' || strcmp(g->key, "cpu") == 0)) {
        v = say_cpu_only(g);
    } else if (ngpu == 0 && !meta_kernel(meta_cc, &synth)) {
        v = say_no_kernels(g, meta_cc);
    } else {
        /* A CUDA package whose kernels were not found: trust its metadata. */
        if (ngpu == 0) {
            one.v = &synth;
            one.n = one.cap = 1;
            ks = &one;
            from_meta = 1;
        }
        if (g->is_amd)
            v = amd_verdict(ks, g->devis, g->devname, &g->b, &g->a, g->out);
        else if (g->is_nv)
            v = nv_verdict(ks, dev, g->devname, &g->b, &g->a, out);
        else
            v = say_no_gpu(g, ks);
        if (from_meta && !quiet)
            pt2_sbuf_add(&g->b,
                         "; no kernel binaries found, so %s is taken from AOTI_COMPUTE_CAPABILITY",
                         pt2_kernel_target_name(&synth, tn, sizeof(tn)));
    }
    out->verdict = v;
    return PT2_OK;
}

int pt2_compat_gpu(const struct pt2_kernel_list *kernels, const char *device_key,
                   const char *meta_cc, const struct pt2_device *dev,
                   struct pt2_verdict_result *out, struct pt2_error *err)
{
    return compat_gpu(kernels, device_key, meta_cc, dev, out, 0, err);
}

int pt2_compat_gpu_verdict(const struct pt2_kernel_list *kernels, const char *device_key,
                           const char *meta_cc, const struct pt2_device *dev, int *verdict,
                           struct pt2_error *err)
{
    struct pt2_verdict_result r;
    int rc;

    if (verdict == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "GPU check needs a device and a result");
    r.verdict = PT2_INCOMPATIBLE;
    rc = compat_gpu(kernels, device_key, meta_cc, dev, &r, 1, err);
    *verdict = r.verdict;
    return rc;
}

/* ---- CPU verdicts ------------------------------------------------------------------- */

/* uname -m spellings to one name per architecture. */
static void machine_norm(const char *m, char *buf, size_t len)
{
    static const struct {
        const char *alias, *name;
    } aliases[] = {
        {"amd64", "x86_64"}, {"x86-64", "x86_64"}, {"x64", "x86_64"}, {"arm64", "aarch64"},
        {"i386", "i686"},    {"i486", "i686"},     {"i586", "i686"},  {"x86", "i686"},
        {"armv7l", "arm"},   {"armv7", "arm"},     {"armhf", "arm"},  {"ppc64el", "ppc64le"},
    };
    char t[32];
    size_t i = 0;

    for (; m != NULL && *m != '\0' && i + 1 < sizeof(t); m++)
        t[i++] = (*m >= 0x20 && *m < 0x7f) ? lower(*m) : '?';
    t[i] = '\0';
    for (i = 0; i < NELEM(aliases); i++) {
        if (strcmp(t, aliases[i].alias) == 0) {
            snprintf(buf, len, "%s", aliases[i].name);
            return;
        }
    }
    snprintf(buf, len, "%s", t);
}

static int node_has(const char *const *feats, size_t n, const char *f)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (feats[i] != NULL && streq_nocase(feats[i], f))
            return 1;
    return 0;
}

/* The strongest vector extension a node reports, for "this CPU has ...". */
static const char *node_best(const char *const *feats, size_t n)
{
    static const char *const ranked[] = {"amx_tile", "avx512f", "avx2",  "avx", "sse4_2",
                                         "sve2",     "sve",     "asimd", "vxe", "vx"};
    size_t i;

    for (i = 0; i < NELEM(ranked); i++)
        if (node_has(feats, n, ranked[i]))
            return ranked[i];
    return NULL;
}

/* The torch CPU_CAPABILITY a package can be rebuilt for to run on a CPU whose best
 * extension is `best` (node_best()). */
static const char *cpu_capability(const char *best)
{
    if (best == NULL)
        return "DEFAULT";
    if (strcmp(best, "amx_tile") == 0 || strcmp(best, "avx512f") == 0)
        return "AVX512";
    if (strcmp(best, "avx2") == 0)
        return "AVX2";
    if (strcmp(best, "sve") == 0 || strcmp(best, "sve2") == 0)
        return "SVE256";
    return "DEFAULT";
}

/* Advice for host code that does not load on this node at all. */
static void advise_host(struct pt2_sbuf *a, const struct pt2_host *h, const char *node)
{
    char hm[32];

    if (h->format == PT2_HOST_ELF) {
        machine_norm(h->machine, hm, sizeof(hm));
        pt2_sbuf_add(a,
                     "Re-export the model with AOTInductor on (or cross-compile it for) a Linux "
                     "%s host, or run it on a Linux %s node.",
                     node, hm);
    } else if (node[0] != '\0') {
        pt2_sbuf_add(a,
                     "Re-export the model with AOTInductor on a Linux %s host: only a Linux ELF "
                     "shared object loads here.",
                     node);
    } else {
        pt2_sbuf_add(a, "Re-export the model with AOTInductor on Linux: only a Linux ELF shared "
                        "object loads on a Linux node.");
    }
}

/* "package is a Linux x86_64 shared object" for the host binary h. */
static void say_host(struct pt2_sbuf *b, const struct pt2_host *h)
{
    char hm[32];
    int w = (int)sizeof(h->machine);

    switch (h->format) {
    case PT2_HOST_ELF:
        machine_norm(h->machine, hm, sizeof(hm));
        pt2_sbuf_add(b, "package is a Linux %s %s", hm, pt2_desc_elf_kind(h));
        break;
    case PT2_HOST_MACHO:
        pt2_sbuf_add(b, "package is %s %.*s dylib", pt2_runtime_library_os_said(h), w, h->machine);
        break;
    case PT2_HOST_MACHO_FAT:
        pt2_sbuf_add(b, "package is %s universal dylib (%.*s)", pt2_runtime_library_os_said(h), w,
                     h->machine);
        break;
    case PT2_HOST_PE:
        pt2_sbuf_add(b, "package is a Windows %.*s DLL", w, h->machine);
        break;
    default:
        pt2_sbuf_add(b, "package has an unrecognised host binary (%.*s)", w, h->machine);
        break;
    }
}

/*
 * Requirement 1: the host binaries load on a Linux node of this architecture.
 * Returns 1 when met (the reason so far in b), 0 when not (out filled).
 */
static int cpu_req_host(const struct pt2_host_list *hosts, const char *node, struct pt2_sbuf *b,
                        struct pt2_sbuf *a, struct pt2_verdict_result *out)
{
    const struct pt2_host *h;
    char hm[32];
    int met = 1;

    if (hosts == NULL || hosts->n == 0) {
        pt2_sbuf_add(b, "no host binary found");
        return 1;
    }
    h = &hosts->v[0];
    for (size_t i = 0; i < hosts->n && met; i++) {
        const struct pt2_host *x = &hosts->v[i];

        machine_norm(x->machine, hm, sizeof(hm));
        if (x->format != PT2_HOST_ELF || (node[0] != '\0' && strcmp(hm, node) != 0)) {
            h = x;
            met = 0;
        }
    }
    say_host(b, h);
    if (node[0] != '\0')
        pt2_sbuf_add(b, "; this node is Linux %s", node);
    else
        pt2_sbuf_add(b, "; this node's architecture is unknown");
    if (met)
        return 1;
    advise_host(a, h, node);
    out->verdict = PT2_INCOMPATIBLE;
    set_code(out, "host-platform");
    return 0;
}

/* "avx512f, avx512dq" into b. */
static void say_features(struct pt2_sbuf *b, const char *const *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        pt2_sbuf_add(b, "%s%s", i ? ", " : "", f[i]);
}

/* The features missing on the node: the reason and advice of an unmet ISA requirement. */
static void say_missing(const struct pt2_cpu_isa *isa, const char *name, const char *const *missing,
                        size_t nmiss, const char *const *feats, size_t nfeatures,
                        struct pt2_sbuf *b, struct pt2_sbuf *a)
{
    const char *best = node_best(feats, nfeatures);

    pt2_sbuf_add(b, "package needs %s (", name);
    say_features(b, missing, nmiss);
    if (best != NULL)
        pt2_sbuf_add(b, " missing); this CPU has %s", best);
    else
        pt2_sbuf_add(b, " missing); this CPU has no vector extensions");
    pt2_sbuf_add(a,
                 "Rebuild %swith CPU_CAPABILITY=%s so the code uses only what this CPU has, or "
                 "run it on a CPU with ",
                 pt2_isa_is_native(isa) ? "without -march=native, or " : "", cpu_capability(best));
    say_features(a, missing, nmiss);
    pt2_sbuf_add(a, ".");
}

/*
 * Requirement 2: every CPU feature the code was compiled for is there: all of
 * them, so a list cut short is an error, not a check of its prefix. Returns
 * PT2_OK with out->verdict set; unknown node features leave it unverified.
 */
static int cpu_req_isa(const struct pt2_cpu_isa *isa, const char *const *feats, size_t nfeatures,
                       struct pt2_sbuf *b, struct pt2_sbuf *a, struct pt2_verdict_result *out,
                       struct pt2_error *err)
{
    const char *req[PT2_ISA_FEATURES_MAX], *missing[PT2_ISA_FEATURES_MAX];
    size_t nreq = 0, nmiss = 0, i;
    const char *name;

    if (isa != NULL && pt2_isa_required_features(isa, req, NELEM(req), &nreq) != PT2_OK)
        return pt2_error_set(err, PT2_ERR_TOO_LARGE,
                             "CPU check: the package needs more than %zu CPU features", NELEM(req));
    name = isa != NULL ? pt2_isa_display_name(isa->isa) : "";
    if (name[0] == '\0')
        name = "CPU features";
    for (i = 0; i < nreq; i++) {
        size_t l = strlen(out->requires_cpu);
        snprintf(out->requires_cpu + l, sizeof(out->requires_cpu) - l, "%s%s", i ? "," : "",
                 req[i]);
        if (nfeatures > 0 && !node_has(feats, nfeatures, req[i]))
            missing[nmiss++] = req[i];
    }
    if (nmiss > 0) {
        pt2_sbuf_init(b, out->reason, sizeof(out->reason));
        say_missing(isa, name, missing, nmiss, feats, nfeatures, b, a);
        out->verdict = PT2_INCOMPATIBLE;
        set_code(out, "cpu-isa");
        return PT2_OK;
    }
    if (nreq > 0) {
        pt2_sbuf_add(b, "; it needs %s (", name);
        say_features(b, req, nreq);
        pt2_sbuf_add(b,
                     nfeatures == 0 ? "), this node's CPU features are unknown" : "), all present");
        if (nfeatures == 0)
            out->unverified |= PT2_UNVERIFIED_CPU_FEATURES;
    }
    if (pt2_isa_is_native(isa))
        pt2_sbuf_add(b, "; built with -march=native, so it may also use other instructions of the "
                        "build host's CPU");
    return PT2_OK;
}

int pt2_compat_cpu(const struct pt2_host_list *hosts, const struct pt2_cpu_isa *isa,
                   const char *node_machine, const char *const *node_features, size_t nfeatures,
                   struct pt2_verdict_result *out, struct pt2_error *err)
{
    char node[32];
    struct pt2_sbuf b, a;

    if (out == NULL || (nfeatures > 0 && node_features == NULL))
        return pt2_error_set(err, PT2_ERR_INVALID, "CPU check needs a result and a feature list");
    if (nfeatures > PT2_COMPAT_NODE_FEATURES_MAX)
        return pt2_error_set(err, PT2_ERR_TOO_LARGE, "%zu CPU features given, at most %d",
                             nfeatures, PT2_COMPAT_NODE_FEATURES_MAX);
    memset(out, 0, sizeof(*out));
    pt2_sbuf_init(&b, out->reason, sizeof(out->reason));
    pt2_sbuf_init(&a, out->advice, sizeof(out->advice));
    machine_norm(node_machine, node, sizeof(node));
    out->verdict = PT2_COMPATIBLE;
    set_code(out, "compatible");
    if (!cpu_req_host(hosts, node, &b, &a, out))
        return PT2_OK;
    return cpu_req_isa(isa, node_features, nfeatures, &b, &a, out, err);
}
