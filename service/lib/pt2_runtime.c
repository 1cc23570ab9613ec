/*
 * pt2_runtime.c - runtimes, the needs document and the runtime verdict (see pt2_runtime.h).
 *
 * JSON is built with a "failed" flag (one check at the end) so the many
 * small members do not each need an error path.
 */
#include <gnu/libc-version.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_inspect.h"
#include "pt2_jw.h"
#include "pt2_pe.h"
#include "pt2_runtime.h"
#include "pt2_sbuf.h"
#include "pt2_shims.h"
#include "pt2_sysroot.h"

#define SPEC_MAX 256
#define UNVERIFIED_MAX 8

struct pt2_runtime {
    char label[SPEC_MAX + 16];
    char name[96]; /* "Debian 12", "this machine", "the sysroot /mnt/image" */
    char os[16];   /* "linux", "macos", "" unknown */
    char glibc[16], glibcxx[16], cxxabi[16];
    unsigned gcc;   /* GCC release of its libgcc_s / libgomp; 0 unknown */
    unsigned torch; /* release, 0 unknown */
    uint32_t macos; /* xxxx.yy.zz nibbles as pt2_needs.macos_min (14.2.1 = 0x000e0201), 0 unknown */
    struct pt2_sysroot *sysroot;
    struct pt2_sysroot *libtorch;
    char libtorch_path[PT2_PATH_MAX];
};

/* ---- bases ------------------------------------------------------------------------------ */

struct base {
    const char *key, *name, *glibc, *glibcxx;
};

/* ../shared/docs/runtime-needs.md §3 */
static const struct base bases[] = {
    {"debian11", "Debian 11", "2.31", "3.4.28"},
    {"debian12", "Debian 12", "2.36", "3.4.30"},
    {"debian13", "Debian 13", "2.41", "3.4.33"},
    {"ubuntu20.04", "Ubuntu 20.04", "2.31", "3.4.28"},
    {"ubuntu22.04", "Ubuntu 22.04", "2.35", "3.4.30"},
    {"ubuntu24.04", "Ubuntu 24.04", "2.39", "3.4.33"},
    {"rhel8", "RHEL 8", "2.28", "3.4.25"},
    {"rhel9", "RHEL 9", "2.34", "3.4.29"},
    {"manylinux_2_28", "manylinux_2_28", "2.28", "3.4.25"},
    {"al2023", "Amazon Linux 2023", "2.34", "3.4.29"},
};
#define NBASES (sizeof(bases) / sizeof(bases[0]))

/* libstdc++'s ABI history: the GCC release that brought each GLIBCXX_3.4.n, and its CXXABI. */
static const struct {
    unsigned glibcxx, gcc;
    const char *cxxabi;
} abi[] = {{25, 8, "1.3.11"},  {26, 9, "1.3.12"},  {27, 9, "1.3.12"},
           {28, 10, "1.3.12"}, {29, 11, "1.3.13"}, {30, 12, "1.3.13"},
           {31, 13, "1.3.14"}, {32, 13, "1.3.14"}, {33, 14, "1.3.15"}};

/* The number at *p (0 when none), *p moved past it. */
static uint64_t num_at(const char **p)
{
    uint64_t v = 0;
    const char *end;

    if (pt2_num_u64_prefix(*p, 10, &v, &end) != PT2_OK)
        return 0;
    *p = end;
    return v;
}

static unsigned lead(const char *s)
{
    return (unsigned)num_at(&s);
}

/* Compare dotted versions numerically ("2.9" < "2.10"). */
static int vcmp(const char *a, const char *b)
{
    while (*a != '\0' || *b != '\0') {
        uint64_t x = num_at(&a), y = num_at(&b);
        if (x != y)
            return x < y ? -1 : 1;
        if (*a == '.')
            a++;
        if (*b == '.')
            b++;
        if ((*a != '\0' && (*a < '0' || *a > '9')) || (*b != '\0' && (*b < '0' || *b > '9')))
            return strcmp(a, b);
    }
    return 0;
}

static int dotted(const char *s, int parts_min, int parts_max)
{
    int parts = 1;

    if (s[0] < '0' || s[0] > '9' || strlen(s) > 15)
        return 0;
    for (const char *p = s; *p != '\0'; p++) {
        if (*p == '.') {
            if (p[1] < '0' || p[1] > '9')
                return 0;
            parts++;
        } else if (*p < '0' || *p > '9') {
            return 0;
        }
    }
    return parts >= parts_min && parts <= parts_max;
}

/* Fill cxxabi and gcc from glibcxx where they are not set. */
static void derive_abi(struct pt2_runtime *rt)
{
    unsigned n;

    if (rt->glibcxx[0] == '\0' || strncmp(rt->glibcxx, "3.4.", 4) != 0)
        return;
    n = lead(rt->glibcxx + 4);
    for (size_t i = sizeof(abi) / sizeof(abi[0]); i-- > 0;) {
        if (abi[i].glibcxx <= n) {
            if (rt->cxxabi[0] == '\0')
                snprintf(rt->cxxabi, sizeof(rt->cxxabi), "%s", abi[i].cxxabi);
            if (rt->gcc == 0)
                rt->gcc = abi[i].gcc;
            return;
        }
    }
}

static int bases_list(char *buf, size_t len)
{
    struct pt2_sbuf b;

    pt2_sbuf_init(&b, buf, len);
    for (size_t i = 0; i < NBASES; i++)
        pt2_sbuf_add(&b, "%s%s", i ? ", " : "", bases[i].key);
    return 0;
}

/* This machine: its glibc, and the libstdc++ the loader would find here (read, never
 * loaded). */
static void fill_local(struct pt2_runtime *rt)
{
    struct pt2_sysroot *sr = NULL;
    char v[24] = "";

    snprintf(rt->name, sizeof(rt->name), "this machine");
    snprintf(rt->os, sizeof(rt->os), "linux");
    if (rt->glibc[0] == '\0')
        snprintf(rt->glibc, sizeof(rt->glibc), "%.15s", gnu_get_libc_version());
    if (pt2_sysroot_open("/", &sr, NULL) != PT2_OK)
        return;
    if (rt->glibcxx[0] == '\0' &&
        pt2_sysroot_newest(sr, "libstdc++.so.6", "GLIBCXX_", v, sizeof(v)) == PT2_OK)
        snprintf(rt->glibcxx, sizeof(rt->glibcxx), "%.15s", v);
    v[0] = '\0';
    if (rt->cxxabi[0] == '\0' &&
        pt2_sysroot_newest(sr, "libstdc++.so.6", "CXXABI_", v, sizeof(v)) == PT2_OK)
        snprintf(rt->cxxabi, sizeof(rt->cxxabi), "%.15s", v);
    pt2_sysroot_free(sr);
}

static void macos_text(uint32_t v, char *buf, size_t len);

/* "14", "14.2" or "14.2.1" as LC_BUILD_VERSION encodes it (major 16 bits, minor and patch 8
 * bits each), so a library's minimum compares with it exactly; 0 past those widths. */
static int macos_parse(const char *val, uint32_t *out)
{
    const char *p = val;
    uint64_t part[3] = {0, 0, 0};

    for (int i = 0; i < 3 && *p != '\0'; i++) {
        part[i] = num_at(&p);
        if (*p == '.')
            p++;
    }
    if (part[0] == 0 || part[0] > 0xffff || part[1] > 0xff || part[2] > 0xff)
        return 0;
    *out = (uint32_t)(part[0] << 16 | part[1] << 8 | part[2]);
    return 1;
}

static int set_field(struct pt2_runtime *rt, const char *key, const char *val,
                     struct pt2_error *err)
{
    if (strcmp(key, "glibc") == 0 && dotted(val, 2, 3)) {
        snprintf(rt->glibc, sizeof(rt->glibc), "%s", val);
        snprintf(rt->os, sizeof(rt->os), "linux");
    } else if (strcmp(key, "glibcxx") == 0 && dotted(val, 3, 3)) {
        snprintf(rt->glibcxx, sizeof(rt->glibcxx), "%s", val);
        snprintf(rt->os, sizeof(rt->os), "linux");
    } else if (strcmp(key, "cxxabi") == 0 && dotted(val, 2, 3)) {
        snprintf(rt->cxxabi, sizeof(rt->cxxabi), "%s", val);
    } else if (strcmp(key, "torch") == 0 && pt2_shims_release_parse(val, &rt->torch) == PT2_OK) {
        /* set */
    } else if (strcmp(key, "macos") == 0 && dotted(val, 1, 3) && macos_parse(val, &rt->macos)) {
        snprintf(rt->os, sizeof(rt->os), "macos");
    } else if (strcmp(key, "glibc") == 0 || strcmp(key, "glibcxx") == 0 ||
               strcmp(key, "cxxabi") == 0 || strcmp(key, "torch") == 0 ||
               strcmp(key, "macos") == 0) {
        char e[64];
        pt2_sbuf_echo(e, sizeof(e), val, 40);
        return pt2_error_set(err, PT2_ERR_INVALID,
                             "runtime %s=%s: not a version (e.g. glibc=2.36, glibcxx=3.4.30, "
                             "torch=2.8, macos=14.0)",
                             key, e);
    } else {
        char e[64];
        pt2_sbuf_echo(e, sizeof(e), key, 40);
        return pt2_error_set(err, PT2_ERR_INVALID,
                             "runtime field '%s' is unknown (use glibc=, glibcxx=, cxxabi=, "
                             "torch=, macos= or a base name)",
                             e);
    }
    return PT2_OK;
}

int pt2_runtime_parse(const char *spec, pt2_runtime **out, struct pt2_error *err)
{
    struct pt2_runtime *rt;
    char buf[SPEC_MAX + 1], *save = NULL, *item;
    int rc = PT2_OK;

    if (out == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_runtime_parse: missing argument");
    *out = NULL;
    if (spec == NULL || spec[0] == '\0' || strlen(spec) > SPEC_MAX)
        return pt2_error_set(err, PT2_ERR_INVALID,
                             "runtime: empty or longer than %d bytes (e.g. debian12 or "
                             "ubuntu22.04,torch=2.8)",
                             SPEC_MAX);
    rt = calloc(1, sizeof(*rt));
    if (rt == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    snprintf(buf, sizeof(buf), "%s", spec);
    pt2_sbuf_echo(rt->label, sizeof(rt->label), spec, SPEC_MAX);
    for (item = strtok_r(buf, ",", &save); item != NULL && rc == PT2_OK;
         item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        size_t i;

        if (eq != NULL) {
            *eq = '\0';
            rc = set_field(rt, item, eq + 1, err);
            continue;
        }
        if (strcmp(item, "local") == 0) {
            fill_local(rt);
            continue;
        }
        for (i = 0; i < NBASES && strcmp(bases[i].key, item) != 0; i++)
            ;
        if (i == NBASES) {
            char list[256], e[64];
            bases_list(list, sizeof(list));
            pt2_sbuf_echo(e, sizeof(e), item, 40);
            rc = pt2_error_set(err, PT2_ERR_INVALID,
                               "runtime base '%s' is unknown (bases: %s; local = this machine)", e,
                               list);
            break;
        }
        snprintf(rt->name, sizeof(rt->name), "%s", bases[i].name);
        snprintf(rt->os, sizeof(rt->os), "linux");
        if (rt->glibc[0] == '\0')
            snprintf(rt->glibc, sizeof(rt->glibc), "%s", bases[i].glibc);
        if (rt->glibcxx[0] == '\0')
            snprintf(rt->glibcxx, sizeof(rt->glibcxx), "%s", bases[i].glibcxx);
    }
    if (rc == PT2_OK && buf[0] == ',')
        rc = pt2_error_set(err, PT2_ERR_INVALID, "runtime: empty item in '%s'", rt->label);
    if (rc != PT2_OK) {
        free(rt);
        return rc;
    }
    derive_abi(rt);
    if (rt->name[0] == '\0')
        snprintf(rt->name, sizeof(rt->name), "the runtime %.60s", rt->label);
    *out = rt;
    return PT2_OK;
}

int pt2_runtime_sysroot(const char *dir, pt2_runtime **out, struct pt2_error *err)
{
    struct pt2_runtime *rt;
    int rc;

    if (out == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_runtime_sysroot: missing argument");
    *out = NULL;
    rt = calloc(1, sizeof(*rt));
    if (rt == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    rc = pt2_sysroot_open(dir, &rt->sysroot, err);
    if (rc != PT2_OK) {
        free(rt);
        return rc;
    }
    snprintf(rt->os, sizeof(rt->os), "linux");
    snprintf(rt->label, sizeof(rt->label), "sysroot:%.*s", SPEC_MAX - 8, dir);
    snprintf(rt->name, sizeof(rt->name), "the sysroot %.48s", dir);
    *out = rt;
    return PT2_OK;
}

int pt2_runtime_use_libtorch(pt2_runtime *rt, const char *path, struct pt2_error *err)
{
    struct pt2_sysroot *lt = NULL;
    int rc;

    if (rt == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_runtime_use_libtorch: missing argument");
    rc = pt2_sysroot_libtorch(path, &lt, err);
    if (rc != PT2_OK)
        return rc;
    pt2_sysroot_free(rt->libtorch);
    rt->libtorch = lt;
    snprintf(rt->libtorch_path, sizeof(rt->libtorch_path), "%s", path);
    return PT2_OK;
}

int pt2_runtime_libtorch(const char *path, pt2_runtime **out, struct pt2_error *err)
{
    struct pt2_runtime *rt;
    int rc;

    if (out == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_runtime_libtorch: missing argument");
    *out = NULL;
    rt = calloc(1, sizeof(*rt));
    if (rt == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    rc = pt2_runtime_use_libtorch(rt, path, err);
    if (rc != PT2_OK) {
        free(rt);
        return rc;
    }
    snprintf(rt->label, sizeof(rt->label), "libtorch:%.*s", SPEC_MAX - 9, path);
    snprintf(rt->name, sizeof(rt->name), "the libtorch at %.44s", path);
    *out = rt;
    return PT2_OK;
}

int pt2_runtime_local(pt2_runtime **out, struct pt2_error *err)
{
    return pt2_runtime_parse("local", out, err);
}

static int build_fail(pt2_runtime **rts, size_t *n, const char **which, const char *what, int rc)
{
    for (size_t i = 0; i < *n; i++)
        pt2_runtime_free(rts[i]);
    *n = 0;
    if (which != NULL)
        *which = what;
    return rc;
}

int pt2_runtimes_build(const char *const *specs, size_t nspecs, const char *sysroot,
                       const char *libtorch, int local, pt2_runtime **rts, size_t *n,
                       const char **which, struct pt2_error *err)
{
    int rc;

    *n = 0;
    for (size_t i = 0; i < nspecs; i++) {
        if ((rc = pt2_runtime_parse(specs[i], &rts[*n], err)) != PT2_OK)
            return build_fail(rts, n, which, "runtime", rc);
        (*n)++;
    }
    if (sysroot != NULL && sysroot[0] != '\0') {
        if ((rc = pt2_runtime_sysroot(sysroot, &rts[*n], err)) != PT2_OK)
            return build_fail(rts, n, which, "sysroot", rc);
        (*n)++;
    }
    if (*n == 0 && local) {
        if ((rc = pt2_runtime_local(&rts[*n], err)) != PT2_OK)
            return build_fail(rts, n, which, "runtime", rc);
        (*n)++;
    }
    if (libtorch == NULL || libtorch[0] == '\0')
        return PT2_OK;
    if (*n == 0) {
        if ((rc = pt2_runtime_libtorch(libtorch, &rts[0], err)) != PT2_OK)
            return build_fail(rts, n, which, "libtorch", rc);
        *n = 1;
        return PT2_OK;
    }
    for (size_t i = 0; i < *n; i++)
        if ((rc = pt2_runtime_use_libtorch(rts[i], libtorch, err)) != PT2_OK)
            return build_fail(rts, n, which, "libtorch", rc);
    return PT2_OK;
}

void pt2_runtime_free(pt2_runtime *rt)
{
    if (rt == NULL)
        return;
    pt2_sysroot_free(rt->sysroot);
    pt2_sysroot_free(rt->libtorch);
    free(rt);
}

const char *pt2_runtime_label(const pt2_runtime *rt)
{
    return rt != NULL ? rt->label : "";
}

static void add_str_or_null(cJSON *o, const char *key, const char *v, int *failed)
{
    if (!pt2_json_add_str_or_null(o, key, v))
        *failed = 1;
}

cJSON *pt2_runtime_json(const pt2_runtime *rt)
{
    cJSON *o = cJSON_CreateObject();
    char t[16];
    int failed = o == NULL;

    if (failed || rt == NULL) {
        cJSON_Delete(o);
        return NULL;
    }
    add_str_or_null(o, "name", rt->label, &failed);
    add_str_or_null(o, "description", rt->name, &failed);
    add_str_or_null(o, "os", rt->os, &failed);
    add_str_or_null(o, "glibc", rt->glibc, &failed);
    add_str_or_null(o, "glibcxx", rt->glibcxx, &failed);
    add_str_or_null(o, "cxxabi", rt->cxxabi, &failed);
    add_str_or_null(o, "torch", pt2_shims_release_text(rt->torch, t, sizeof(t)), &failed);
    macos_text(rt->macos, t, sizeof(t));
    add_str_or_null(o, "macos", t, &failed);
    add_str_or_null(o, "sysroot", rt->sysroot != NULL ? pt2_sysroot_dir(rt->sysroot) : NULL,
                    &failed);
    add_str_or_null(o, "libtorch", rt->libtorch_path, &failed);
    if (failed) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* ---- floors ----------------------------------------------------------------------------- */

static void floor_take(struct pt2_floor_need *f, const char *v, const char *file, unsigned nsyms)
{
    int c = f->version[0] == '\0' ? 1 : vcmp(v, f->version);

    if (c > 0) {
        pt2_sbuf_copy(f->version, sizeof(f->version), v);
        pt2_sbuf_copy(f->file, sizeof(f->file), file);
        f->nsyms = nsyms;
    } else if (c == 0 && strcmp(f->file, file) == 0) {
        f->nsyms += nsyms;
    }
}

void pt2_floors_add(struct pt2_floors *f, const struct pt2_needs *n)
{
    static const struct {
        const char *prefix;
        size_t off;
    } fam[] = {{"GLIBC_", offsetof(struct pt2_floors, glibc)},
               {"GLIBCXX_", offsetof(struct pt2_floors, glibcxx)},
               {"CXXABI_", offsetof(struct pt2_floors, cxxabi)},
               {"GCC_", offsetof(struct pt2_floors, gcc)},
               {"GOMP_", offsetof(struct pt2_floors, gomp)}};

    for (size_t i = 0; n != NULL && i < n->nvers; i++) {
        const char *v = pt2_needs_str(n, n->vers[i].version);

        if (n->vers[i].weak)
            continue;
        for (size_t k = 0; k < sizeof(fam) / sizeof(fam[0]); k++) {
            size_t pl = strlen(fam[k].prefix);
            if (strncmp(v, fam[k].prefix, pl) == 0 && v[pl] >= '0' && v[pl] <= '9')
                floor_take((struct pt2_floor_need *)((char *)f + fam[k].off), v + pl,
                           pt2_needs_str(n, n->vers[i].file), n->vers[i].nsyms);
        }
    }
    if (n != NULL && n->macos_min > f->macos)
        f->macos = n->macos_min;
}

static int loadable_suffix(const char *s)
{
    size_t n = strlen(s);
    return (n > 3 && strcmp(s + n - 3, ".so") == 0) ||
           (n > 6 && strcmp(s + n - 6, ".dylib") == 0) ||
           (n > 4 && strcmp(s + n - 4, ".pyd") == 0) || (n > 4 && strcmp(s + n - 4, ".dll") == 0);
}

static size_t dir_len(const char *s)
{
    const char *slash = strrchr(s, '/');
    return slash != NULL ? (size_t)(slash - s) : 0;
}

int pt2_runtime_host_loaded(const struct pt2_host_list *hosts, size_t i)
{
    const char *src = hosts->v[i].source;
    size_t dl = dir_len(src);

    if (!loadable_suffix(src) || hosts->v[i].elf_type == 1 /* ET_REL */)
        return 0;
    for (size_t j = i + 1; j < hosts->n; j++) {
        const char *o = hosts->v[j].source;
        if (loadable_suffix(o) && dir_len(o) == dl && strncmp(o, src, dl) == 0)
            return 0; /* torch's loader takes the last one in zip order */
    }
    return 1;
}

/* ---- the needs document ----------------------------------------------------------------- */

/* The writers' short names for pt2_jw.h: keys are string literals; "" is null here. */
#define wstr(w, key, v) PT2_JW_STR(w, key, v, 1)
#define wnum(w, key, v) PT2_JW_NUM(w, key, v)
#define wbool(w, key, v) PT2_JW_BOOL(w, key, v)

static void macos_text(uint32_t v, char *buf, size_t len)
{
    if (v == 0)
        buf[0] = '\0';
    else if ((v & 0xff) != 0)
        snprintf(buf, len, "%u.%u.%u", v >> 16, (v >> 8) & 0xff, v & 0xff);
    else
        snprintf(buf, len, "%u.%u", v >> 16, (v >> 8) & 0xff);
}

static void torch_write(struct pt2_jw *w, const struct pt2_torch_floor *t)
{
    char r[16];

    pt2_jw_obj(w);
    wstr(w, "min", pt2_shims_release_text(t->min, r, sizeof(r)));
    wstr(w, "sure_from",
         t->sure_from > t->min ? pt2_shims_release_text(t->sure_from, r, sizeof(r)) : NULL);
    wstr(w, "max", t->nightly ? "2.3" : pt2_shims_release_text(t->max_hi, r, sizeof(r)));
    wstr(w, "because", t->because);
    wbool(w, "nightly", t->nightly);
    wbool(w, "exact_build", t->cxx > 0);
    /* a name the table does not know: min is only a lower bound */
    wbool(w, "lower_bound", t->custom > 0);
    PT2_JW_ARR(w, "unknown");
    for (size_t i = 0; i < t->custom && i < 4; i++)
        pt2_jw_string(w, t->unknown[i], 0);
    pt2_jw_end(w);
    wstr(w, "prefix", t->prefix);
    pt2_jw_end(w);
}

/* Whether library i of libs[k] names one an earlier library already named. */
static int needs_named_before(const struct pt2_needs *const *libs, size_t k, size_t i,
                              const char *name)
{
    for (size_t k2 = 0; k2 <= k; k2++)
        for (size_t i2 = 0; i2 < (k2 < k ? libs[k2]->nlibs : i); i2++)
            if (strcmp(pt2_needs_str(libs[k2], libs[k2]->libs[i2]), name) == 0)
                return 1;
    return 0;
}

/* The members of a "needs" object, up to its library list; the caller adds more and closes. */
static void needs_members(struct pt2_jw *w, const struct pt2_floors *f,
                          const struct pt2_torch_floor *t, const struct pt2_needs *const *libs,
                          size_t nlibs)
{
    char m[24];

    wstr(w, "glibc", f->glibc.version);
    wstr(w, "glibcxx", f->glibcxx.version);
    wstr(w, "cxxabi", f->cxxabi.version);
    wstr(w, "gcc", f->gcc.version);
    wstr(w, "gomp", f->gomp.version);
    macos_text(f->macos, m, sizeof(m));
    wstr(w, "macos", m);
    PT2_JW_KEY(w, "torch");
    torch_write(w, t);
    PT2_JW_ARR(w, "libraries");
    for (size_t k = 0; k < nlibs; k++)
        for (size_t i = 0; i < libs[k]->nlibs; i++) {
            const char *name = pt2_needs_str(libs[k], libs[k]->libs[i]);

            if (!needs_named_before(libs, k, i, name))
                pt2_jw_string(w, name, 0);
        }
    pt2_jw_end(w);
}

static void imports_write(struct pt2_jw *w, const struct pt2_needs *n,
                          const struct pt2_torch_floor *t)
{
    static const char *const keys[PT2_IMP_KINDS] = {
        "other", "shims", "prefixed_shims", "custom_shims", "libtorch_cxx", "cuda", "hip"};
    size_t counts[PT2_IMP_KINDS] = {0}, weak = 0;

    for (size_t i = 0; i < n->nimports; i++) {
        counts[n->imports[i].kind < PT2_IMP_KINDS ? n->imports[i].kind : 0]++;
        weak += n->imports[i].weak;
    }
    pt2_jw_obj(w);
    wnum(w, "total", (double)n->imports_total);
    for (size_t k = 1; k < PT2_IMP_KINDS; k++) {
        pt2_jw_key_lit(w, keys[k]); /* static */
        pt2_jw_number(w, (double)counts[k]);
    }
    wnum(w, "other", (double)counts[0]);
    wnum(w, "weak", (double)weak);
    PT2_JW_ARR(w, "libtorch_cxx_first");
    for (size_t i = 0; i < t->cxx && i < 4; i++)
        pt2_jw_string(w, t->cxx_first[i], 0);
    pt2_jw_end(w);
    pt2_jw_end(w);
}

static void versions_write(struct pt2_jw *w, const struct pt2_needs *n)
{
    pt2_jw_arr(w);
    for (size_t i = 0; i < n->nvers; i++) {
        pt2_jw_obj(w);
        wstr(w, "library", pt2_needs_str(n, n->vers[i].file));
        wstr(w, "version", pt2_needs_str(n, n->vers[i].version));
        wbool(w, "weak", n->vers[i].weak);
        wnum(w, "symbols", n->vers[i].nsyms);
        pt2_jw_end(w);
    }
    pt2_jw_end(w);
}

static const char *format_name(int f)
{
    switch (f) {
    case PT2_HOST_ELF:
        return "elf";
    case PT2_HOST_MACHO:
    case PT2_HOST_MACHO_FAT:
        return "mach-o";
    case PT2_HOST_PE:
        return "pe";
    default:
        return "unknown";
    }
}

/* A system a library loads on: its token in the document, and how a sentence names it. */
struct lib_os {
    const char *os, *said;
};

static const struct lib_os os_linux = {"linux", "a Linux"}, os_windows = {"windows", "a Windows"},
                           os_unknown = {"", "an unrecognised"};

/* Apple's platform numbers (<mach-o/loader.h> PLATFORM_*); 0 stands for any other. */
static const struct lib_os apple_os[] = {
    {"apple", "an Apple (unknown platform)"},
    {"macos", "a macOS"},
    {"ios", "an iOS"},
    {"tvos", "a tvOS"},
    {"watchos", "a watchOS"},
    {"bridgeos", "a bridgeOS"},
    {"maccatalyst", "a Mac Catalyst"},
    {"ios-simulator", "an iOS Simulator"},
    {"tvos-simulator", "a tvOS Simulator"},
    {"watchos-simulator", "a watchOS Simulator"},
    {"driverkit", "a DriverKit"},
    {"visionos", "a visionOS"},
    {"visionos-simulator", "a visionOS Simulator"},
};

/*
 * ELF loads on Linux, PE on Windows. A Mach-O loads only into a process of a platform it
 * names (dyld): macOS where it names macOS (a zippered library names Mac Catalyst too) or
 * names none (older macOS builds carry no platform command); else the first it names.
 */
static const struct lib_os *library_os(const struct pt2_host *h)
{
    uint32_t p = h->needs != NULL ? h->needs->macho_platforms : 0;
    size_t n = sizeof(apple_os) / sizeof(apple_os[0]);

    if (h->format == PT2_HOST_ELF)
        return &os_linux;
    if (h->format == PT2_HOST_PE)
        return &os_windows;
    if (h->format != PT2_HOST_MACHO && h->format != PT2_HOST_MACHO_FAT)
        return &os_unknown;
    if (p == 0 || (p & (1u << 1)) != 0)
        return &apple_os[1];
    for (size_t b = 2; b < 32; b++)
        if ((p & (1u << b)) != 0)
            return b < n ? &apple_os[b] : &apple_os[0];
    return &apple_os[0];
}

const char *pt2_runtime_library_os(const struct pt2_host *h)
{
    return library_os(h)->os;
}

const char *pt2_runtime_library_os_said(const struct pt2_host *h)
{
    return library_os(h)->said;
}

/* What the headers say of the file itself, beside what it needs. */
static void library_facts(struct pt2_jw *w, const struct pt2_host *h)
{
    wstr(w, "os", pt2_runtime_library_os(h));
    wnum(w, "bits", h->bits);
    wstr(w, "description", h->description);
    wnum(w, "size", (double)h->size);
}

/* A PE library's subsystem, DLL flag, DllCharacteristics and delay-loaded DLLs (pt2_pe.h). */
static void pe_write(struct pt2_jw *w, const struct pt2_needs *n)
{
    char sub[32];

    pt2_jw_obj(w);
    wstr(w, "subsystem", pt2_pe_subsystem_name(n->pe_subsystem, sub, sizeof(sub)));
    wbool(w, "dll", (n->pe_characteristics & PT2_PE_FILE_DLL) != 0);
    PT2_JW_ARR(w, "dll_characteristics");
    for (unsigned bit = 1; bit <= 0x8000u; bit <<= 1) {
        const char *name = pt2_pe_dll_characteristic_name(bit);
        if (name != NULL && (n->pe_dll_characteristics & bit) != 0)
            pt2_jw_string(w, name, 0);
    }
    pt2_jw_end(w);
    PT2_JW_ARR(w, "delay_loaded");
    for (size_t i = 0; i < n->nlibs; i++)
        if (n->libs_delay[i]) /* pt2_pe lists each DLL once */
            pt2_jw_string(w, pt2_needs_str(n, n->libs[i]), 0);
    pt2_jw_end(w);
    pt2_jw_end(w);
}

void pt2_runtime_library_members(struct pt2_jw *w, const struct pt2_host *h, int loaded)
{
    struct pt2_floors f = {0};
    struct pt2_torch_floor t;
    const struct pt2_needs *n = h->needs;

    pt2_shims_floor_init(&t);
    pt2_floors_add(&f, n);
    pt2_shims_floor_add(&t, n);
    wstr(w, "entry", h->source);
    wstr(w, "format", format_name(h->format));
    wstr(w, "machine", h->machine);
    library_facts(w, h);
    wbool(w, "loaded", loaded);
    PT2_JW_OBJ(w, "needs");
    needs_members(w, &f, &t, &n, n != NULL ? 1 : 0);
    if (n != NULL) {
        wstr(w, "soname", pt2_needs_str(n, n->soname));
        wstr(w, "runpath", pt2_needs_str(n, n->runpath));
        wstr(w, "rpath", pt2_needs_str(n, n->rpath));
        wbool(w, "bind_now", n->bind_now);
        wstr(w, "exec_stack",
             n->exec_stack == PT2_STACK_EXEC      ? "requested"
             : n->exec_stack == PT2_STACK_IMPLIED ? "implied"
                                                  : "");
        PT2_JW_KEY(w, "versions");
        versions_write(w, n);
    }
    pt2_jw_end(w);
    if (h->format == PT2_HOST_PE && n != NULL) {
        PT2_JW_KEY(w, "pe");
        pe_write(w, n);
    }
    PT2_JW_KEY(w, "imports");
    if (n != NULL)
        imports_write(w, n, &t);
    else
        pt2_jw_null(w);
    wstr(w, "partial", n != NULL ? n->partial : "its format has no needs reader");
}

/* The loaded libraries' needs, for the floors and the verdict. */
static size_t loaded_libs(const pt2_package *pkg, const struct pt2_host **out, size_t cap)
{
    const struct pt2_host_list *hosts = pt2_package_hosts(pkg);
    size_t n = 0;

    for (size_t i = 0; hosts != NULL && i < hosts->n && n < cap; i++)
        if (pt2_runtime_host_loaded(hosts, i))
            out[n++] = &hosts->v[i];
    return n;
}

void pt2_runtime_needs_write(struct pt2_jw *w, const pt2_package *pkg)
{
    const struct pt2_host_list *hosts = pt2_package_hosts(pkg);
    const struct pt2_host *loaded[PT2_HOSTS_MAX];
    const struct pt2_needs *ln[PT2_HOSTS_MAX];
    size_t nl = loaded_libs(pkg, loaded, PT2_HOSTS_MAX), k = 0;
    struct pt2_floors f = {0};
    struct pt2_torch_floor t;

    pt2_shims_floor_init(&t);
    for (size_t i = 0; i < nl; i++) {
        pt2_floors_add(&f, loaded[i]->needs);
        pt2_shims_floor_add(&t, loaded[i]->needs);
        if (loaded[i]->needs != NULL)
            ln[k++] = loaded[i]->needs;
    }
    pt2_jw_obj(w);
    PT2_JW_OBJ(w, "needs");
    needs_members(w, &f, &t, ln, k);
    PT2_JW_TAKE(w, "custom_ops", pt2_package_custom_ops_json(pkg));
    pt2_jw_end(w);
    PT2_JW_ARR(w, "libraries");
    for (size_t i = 0; hosts != NULL && i < hosts->n; i++) {
        pt2_jw_obj(w);
        pt2_runtime_library_members(w, &hosts->v[i], pt2_runtime_host_loaded(hosts, i));
        pt2_jw_end(w);
    }
    pt2_jw_end(w);
    pt2_jw_end(w);
}

/* ---- requirements ----------------------------------------------------------------------- */

/* REQ_UNDESCRIBED: the runtime does not say (no torch=): listed in "unverified", the
 * verdict stands; REQ_UNVERIFIED: it says, and the facts cannot settle it. */
enum req_status { REQ_MET = 0, REQ_UNDESCRIBED = 1, REQ_UNVERIFIED = 2, REQ_UNMET = 3 };

struct req {
    int status;
    const char *key; /* "glibc", "torch", ... */
    char reason[400];
    char advice[400];
};

static void req_set(struct req *r, int status, const char *key, const char *fmt, ...)
    PT2_PRINTF(4, 5);
static void req_set(struct req *r, int status, const char *key, const char *fmt, ...)
{
    va_list ap;

    r->status = status;
    r->key = key;
    va_start(ap, fmt);
    vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
    va_end(ap);
    r->advice[0] = '\0';
}

/* The bases whose glibc and GLIBCXX serve these floors: "Ubuntu 24.04, Debian 13". */
static void bases_serving(const struct pt2_floors *f, char *buf, size_t len)
{
    struct pt2_sbuf b;
    size_t n = 0;

    pt2_sbuf_init(&b, buf, len);
    for (size_t i = 0; i < NBASES; i++) {
        if (strcmp(bases[i].key, "manylinux_2_28") == 0)
            continue; /* a build base, not a serving one */
        if ((f->glibc.version[0] && vcmp(bases[i].glibc, f->glibc.version) < 0) ||
            (f->glibcxx.version[0] && vcmp(bases[i].glibcxx, f->glibcxx.version) < 0))
            continue;
        pt2_sbuf_add(&b, "%s%s", n++ ? ", " : "", bases[i].name);
    }
    if (n == 0)
        pt2_sbuf_add(&b, "none of the known bases");
}

/* A base to rebuild in whose floors the runtime serves. */
static const char *rebuild_base(const struct pt2_runtime *rt)
{
    const struct base *best = NULL;

    for (size_t i = 0; i < NBASES; i++)
        if ((rt->glibc[0] == '\0' || vcmp(bases[i].glibc, rt->glibc) <= 0) &&
            (rt->glibcxx[0] == '\0' || vcmp(bases[i].glibcxx, rt->glibcxx) <= 0) &&
            (best == NULL || vcmp(bases[i].glibc, best->glibc) > 0))
            best = &bases[i];
    return best != NULL ? best->name : "manylinux_2_28";
}

static void req_platform(const struct pt2_host *h, const struct pt2_runtime *rt, struct req *r)
{
    const char *want = pt2_runtime_library_os(h);

    if (rt->os[0] == '\0' || strcmp(rt->os, want) == 0) {
        r->status = REQ_MET;
        return;
    }
    req_set(r, REQ_UNMET, "platform", "%s is %s %s library; %s runs %s", h->source,
            pt2_runtime_library_os_said(h),
            h->format == PT2_HOST_ELF                                          ? "ELF"
            : h->format == PT2_HOST_PE                                         ? "PE"
            : (h->format == PT2_HOST_MACHO || h->format == PT2_HOST_MACHO_FAT) ? "Mach-O"
                                                                               : "host",
            rt->name, strcmp(rt->os, "macos") == 0 ? "macOS" : "Linux");
    snprintf(r->advice, sizeof(r->advice),
             "Re-export the package on %s with the torch you serve with: AOTInductor compiles "
             "for the platform it runs on.",
             strcmp(rt->os, "macos") == 0 ? "macOS" : "Linux");
}

static void req_version(const char *key, const char *family, const struct pt2_floor_need *need,
                        const char *have, const char *what, const struct pt2_runtime *rt,
                        const struct pt2_floors *f, struct req *r)
{
    char serving[160];

    r->status = REQ_MET;
    if (need->version[0] == '\0')
        return;
    if (have == NULL || have[0] == '\0') {
        req_set(r, REQ_UNDESCRIBED, key, "needs %s%s from %s; %s does not say which %s it has",
                family, need->version, need->file, rt->name, what);
        return;
    }
    if (vcmp(have, need->version) >= 0)
        return;
    req_set(r, REQ_UNMET, key, "needs %s%s from %s (%u symbol%s); %s has %s %s", family,
            need->version, need->file, need->nsyms, need->nsyms == 1 ? "" : "s", rt->name, what,
            have);
    bases_serving(f, serving, sizeof(serving));
    snprintf(r->advice, sizeof(r->advice),
             "Serve it from a base with %s %s or newer (%s), or rebuild the package in a base "
             "no newer than the runtime's (e.g. %s).",
             what, need->version, serving, rebuild_base(rt));
}

/* GCC_ and GOMP_ needs against a runtime known only by its GCC release. */
static void req_gcc(const struct pt2_floors *f, const struct pt2_runtime *rt, struct req *r)
{
    r->status = REQ_MET;
    if (f->gcc.version[0] != '\0' && vcmp(f->gcc.version, "4.8") > 0) {
        unsigned major = lead(f->gcc.version);
        if (rt->gcc == 0)
            req_set(r, REQ_UNDESCRIBED, "gcc",
                    "needs GCC_%s from %s; %s does not say which GCC "
                    "runtime it has",
                    f->gcc.version, f->gcc.file, rt->name);
        else if (major > rt->gcc)
            req_set(r, REQ_UNMET, "gcc", "needs GCC_%s from %s; %s has the GCC %u runtime",
                    f->gcc.version, f->gcc.file, rt->name, rt->gcc);
        if (r->status == REQ_UNMET)
            snprintf(r->advice, sizeof(r->advice),
                     "Serve it with libgcc_s from GCC %u or newer, or rebuild with the runtime's "
                     "GCC.",
                     major);
    }
    if (r->status == REQ_MET && f->gomp.version[0] != '\0' && vcmp(f->gomp.version, "4.5") > 0)
        req_set(r, REQ_UNDESCRIBED, "gomp",
                "needs GOMP_%s from %s; only a sysroot shows which libgomp %s has", f->gomp.version,
                f->gomp.file, rt->name);
}

static void req_macos(const struct pt2_floors *f, const struct pt2_runtime *rt, struct req *r)
{
    char need[24], have[24];

    r->status = REQ_MET;
    if (f->macos == 0 || strcmp(rt->os, "macos") != 0)
        return;
    macos_text(f->macos, need, sizeof(need));
    if (rt->macos == 0)
        req_set(r, REQ_UNDESCRIBED, "macos", "needs macOS %s; %s does not say which macOS", need,
                rt->name);
    else if (rt->macos < f->macos) { /* the same encoding: patch levels count (14.2 < 14.2.1) */
        macos_text(rt->macos, have, sizeof(have));
        req_set(r, REQ_UNMET, "macos", "needs macOS %s; %s is macOS %s", need, rt->name, have);
        snprintf(r->advice, sizeof(r->advice),
                 "Serve it on macOS %s or newer, or rebuild with MACOSX_DEPLOYMENT_TARGET set to "
                 "the runtime's macOS.",
                 need);
    }
}

static void req_torch(const struct pt2_torch_floor *t, const struct pt2_runtime *rt, struct req *r)
{
    char a[16], c[16], want[16];

    r->status = REQ_MET;
    if (t->shims == 0 && t->custom == 0 && t->cxx == 0 && t->prefixed == 0)
        return;
    if (rt->torch == 0) {
        if (t->min != 0)
            req_set(r, REQ_UNDESCRIBED, "torch",
                    "needs torch %s or newer (%s); %s does not say "
                    "which torch it has",
                    pt2_shims_release_text(t->min, a, sizeof(a)), t->because, rt->name);
        return;
    }
    pt2_shims_release_text(rt->torch, want, sizeof(want));
    if (t->nightly && rt->torch != 203) {
        req_set(r, REQ_UNMET, "torch",
                "imports shims only a 2.3 nightly declared (e.g. %s); it loads on no torch "
                "release from 2.4 on, and %s has torch %s",
                t->because[0] ? t->because : t->because_max, rt->name, want);
        snprintf(r->advice, sizeof(r->advice), "Re-export the package with torch %s.", want);
    } else if (t->min > rt->torch) {
        req_set(r, REQ_UNMET, "torch", "needs torch %s or newer (it imports %s); %s has torch %s",
                pt2_shims_release_text(t->min, a, sizeof(a)), t->because, rt->name, want);
        snprintf(r->advice, sizeof(r->advice),
                 "Serve it with torch %s or newer, or re-export the package with torch %s.", a,
                 want);
    } else if (t->max_hi != 0 && rt->torch > t->max_hi) {
        req_set(r, REQ_UNMET, "torch", "imports %s, which torch removed after %s; %s has torch %s",
                t->because_max, pt2_shims_release_text(t->max_hi, a, sizeof(a)), rt->name, want);
        snprintf(r->advice, sizeof(r->advice),
                 "Serve it with torch %s or older, or re-export the package with torch %s.", a,
                 want);
    } else if (t->sure_from > rt->torch) {
        req_set(r, REQ_UNVERIFIED, "torch",
                "imports %s, first declared by a torch between %s and %s; %s has torch %s",
                t->because_sure, pt2_shims_release_text(t->min, a, sizeof(a)),
                pt2_shims_release_text(t->sure_from, c, sizeof(c)), rt->name, want);
        snprintf(r->advice, sizeof(r->advice),
                 "Check with --libtorch against the serving build, or serve it with torch %s or "
                 "newer.",
                 c);
    } else if (t->max_hi != 0 && rt->torch > t->max_lo) {
        req_set(r, REQ_UNVERIFIED, "torch",
                "imports %s, last declared by a torch between %s and %s; %s has torch %s",
                t->because_max, pt2_shims_release_text(t->max_lo, a, sizeof(a)),
                pt2_shims_release_text(t->max_hi, c, sizeof(c)), rt->name, want);
        snprintf(r->advice, sizeof(r->advice), "Check with --libtorch against the serving build.");
    }
}

/* What the table cannot date: exact-build C++ imports, custom and prefixed shims. */
static void req_exact(const struct pt2_torch_floor *t, const struct pt2_runtime *rt, struct req *r)
{
    r->status = REQ_MET;
    if (t->cxx > 0) {
        req_set(r, REQ_UNVERIFIED, "torch",
                "imports %zu libtorch C++ symbol%s (%s): it loads only on the exact libtorch "
                "build it was compiled against",
                t->cxx, t->cxx == 1 ? "" : "s", t->cxx_first[0]);
        snprintf(r->advice, sizeof(r->advice),
                 "Check with --libtorch or --sysroot against the serving build, or re-export "
                 "the package with the serving torch.");
    } else if (t->custom > 0) {
        req_set(r, REQ_UNVERIFIED, "custom_shims",
                "imports %zu shim%s no torch release declares (%s): a custom shim the serving "
                "process must provide",
                t->custom, t->custom == 1 ? "" : "s", t->unknown[0]);
        snprintf(r->advice, sizeof(r->advice),
                 "Load the library that defines them before the model (or check with --sysroot).");
    } else if (t->prefixed > 0) {
        req_set(r, REQ_UNVERIFIED, "prefixed_shims",
                "imports %zu shim%s under the symbol prefix %s: provided by the runtime built "
                "with that prefix (ExecuTorch), not by torch",
                t->prefixed, t->prefixed == 1 ? "" : "s", t->prefix);
        snprintf(r->advice, sizeof(r->advice),
                 "Serve it with the runtime that defines the %s shims.", t->prefix);
    }
    (void)rt;
}

/* With a sysroot or a libtorch set: what the loader would miss, exactly. */
static void req_load(const struct pt2_load_result *lr, const struct pt2_runtime *rt,
                     const char *where, struct req *r)
{
    r->status = REQ_MET;
    if (lr->nmissing_libs > 0) {
        req_set(r, REQ_UNMET, "libraries", "needs %s, which %s does not have%s",
                lr->missing_libs[0], where, lr->nmissing_libs > 1 ? " (and more libraries)" : "");
        snprintf(r->advice, sizeof(r->advice),
                 "Install %s in the serving image, or put its folder on the loader's path "
                 "(ld.so.conf or a run path).",
                 lr->missing_lib_names[0]);
    } else if (lr->nmissing_versions > 0) {
        const struct pt2_load_missing_version *m = &lr->missing_versions[0];
        req_set(r, REQ_UNMET, "versions",
                "needs %s from %s (%u symbol%s, required by %s); %s's "
                "%s does not define it",
                m->version, m->file, m->nsyms, m->nsyms == 1 ? "" : "s", m->required_by, where,
                m->file);
        snprintf(r->advice, sizeof(r->advice),
                 "Serve it from an image whose %s defines %s, or rebuild the package in a base "
                 "no newer than the image.",
                 m->file, m->version);
    } else if (lr->nmissing_symbols > 0) {
        const struct pt2_load_missing_symbol *m = &lr->missing_symbols[0];
        const struct pt2_shim *s = pt2_shims_find(m->name);
        char a[16];
        req_set(r, REQ_UNMET, "symbols", "undefined symbol: %s%s%s (%zu missing in %s)", m->name,
                m->version[0] ? ", version " : "", m->version, lr->nmissing_symbols, where);
        if (s != NULL)
            snprintf(r->advice, sizeof(r->advice),
                     "Serve it with torch %s or newer (the first release declaring %s), or "
                     "re-export the package with the serving torch.",
                     pt2_shims_release_text(s->first_lo, a, sizeof(a)), m->name);
        else
            snprintf(r->advice, sizeof(r->advice),
                     "Serve it from an image whose libraries export %s, or re-export the "
                     "package with the serving torch.",
                     m->name);
    } else if (lr->note[0] != '\0') {
        /* nothing found missing, but not everything could be read: not a "loads" */
        req_set(r, REQ_UNVERIFIED, "libraries", "%s was read in part: %.300s", where, lr->note);
    }
    (void)rt;
}

/*
 * glibc 2.41 and newer refuse to dlopen an object that asks for an executable stack
 * (elf/dl-load.c, NEWS of 2.41: "cannot enable executable stack as shared object
 * requires") where the stack is not one already; older ones make the stack executable.
 * The object is `who` (the package's library, or one it loads), its PT2_STACK_* `kind`;
 * `glibc` is what `serving` has ("" unknown).
 */
static void req_execstack(const char *who, int kind, const char *glibc, const char *serving,
                          struct req *r)
{
    const char *why;

    r->status = REQ_MET;
    if (kind == 0)
        return;
    why = kind == PT2_STACK_EXEC ? "its PT_GNU_STACK has PF_X"
                                 : "it has no PT_GNU_STACK, and x86's default stack is executable";
    if (glibc == NULL || glibc[0] == '\0') {
        req_set(r, REQ_UNDESCRIBED, "execstack",
                "%s asks for an executable stack (%s), which glibc 2.41 and newer refuse to "
                "dlopen; %s does not say which glibc it has",
                who, why, serving);
        return;
    }
    if (vcmp(glibc, "2.41") < 0)
        return;
    req_set(r, REQ_UNMET, "execstack",
            "%s asks for an executable stack (%s), which glibc 2.41 and newer refuse to "
            "dlopen; %s has glibc %s",
            who, why, serving, glibc);
    snprintf(r->advice, sizeof(r->advice),
             "Relink it with -Wl,-z,noexecstack (an object without a .note.GNU-stack section, "
             "such as one made with ld -r -b binary, makes the linker ask for it), or clear the "
             "flag with execstack -c before packaging; serving it with glibc 2.40 or older "
             "loads it as it is.");
}

/* The package's library itself. */
static void req_execstack_own(const struct pt2_host *h, const char *glibc, const char *serving,
                              struct req *r)
{
    req_execstack(h->source, h->needs != NULL ? h->needs->exec_stack : 0, glibc, serving, r);
}

/* The first library of a sysroot's load scope that asks for one (pt2_sysroot_check). */
static void req_execstack_loaded(const struct pt2_host *h, const struct pt2_load_result *lr,
                                 const char *serving, struct req *r)
{
    char who[PT2_PATH_MAX + 160];

    snprintf(who, sizeof(who), "%.120s (loaded with %s)", lr->execstack_lib, h->source);
    req_execstack(who, lr->execstack_kind, lr->glibc, serving, r);
}

/*
 * A library torch's loader dlopen()s must be one the loader opens at all: glibc refuses an
 * executable ("cannot dynamically load executable", ET_EXEC) and, from 2.30, a
 * position-independent one ("cannot dynamically load position-independent executable",
 * DF_1_PIE); dyld refuses an MH_EXECUTE image. `glibc` is what `serving` has ("" unknown).
 */
static void req_loadable(const struct pt2_host *h, const char *glibc, const char *serving,
                         struct req *r)
{
    int pie = h->format == PT2_HOST_ELF && h->needs != NULL && h->needs->pie;

    r->status = REQ_MET;
    if (h->format == PT2_HOST_ELF && h->elf_type == 2)
        req_set(r, REQ_UNMET, "loadable",
                "%s is an executable (ET_EXEC), which the dynamic loader cannot dlopen", h->source);
    else if (pie && glibc[0] != '\0' && vcmp(glibc, "2.30") >= 0)
        req_set(r, REQ_UNMET, "loadable",
                "%s is a position-independent executable (DF_1_PIE), which glibc 2.30 and newer "
                "refuse to dlopen; %s has glibc %s",
                h->source, serving, glibc);
    else if (pie && glibc[0] == '\0')
        req_set(r, REQ_UNDESCRIBED, "loadable",
                "%s is a position-independent executable (DF_1_PIE), which glibc 2.30 and newer "
                "refuse to dlopen; %s does not say which glibc it has",
                h->source, serving);
    else if ((h->format == PT2_HOST_MACHO || h->format == PT2_HOST_MACHO_FAT) && h->needs != NULL &&
             h->needs->macho_filetype == 2)
        req_set(r, REQ_UNMET, "loadable",
                "%s is an executable (MH_EXECUTE), which dyld does not dlopen", h->source);
    if (r->status == REQ_UNMET)
        snprintf(r->advice, sizeof(r->advice),
                 "Package the model's shared library (AOTInductor links one with -shared), not an "
                 "executable.");
}

/* Operator namespaces libtorch registers itself: a proxy-executor node of these needs nothing
 * more from the loading process. */
static int op_builtin(const char *op)
{
    static const char *const ns[] = {
        "aten::",      "prim::",       "prims::",  "_c10d_functional::", "c10d::",
        "quantized::", "_quantized::", "mkldnn::", "onednn::",           "inductor::"};

    for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
        if (strncmp(op, ns[i], strlen(ns[i])) == 0)
            return 1;
    return 0;
}

/*
 * Operators the proxy executor runs (<hash>.wrapper.json) that torch does not register itself:
 * the loading process must have registered them, or torch's loader refuses the package ("Could
 * not find schema for ns::op", torch 2.14.1). No runtime describes which operator libraries its
 * process loads, so this is never met or unmet: it is listed in "unverified" and said.
 */
static void req_custom_ops(const pt2_package *pkg, struct req *r)
{
    const char *op = NULL, *first = NULL;
    size_t n = 0, py = 0;

    for (size_t m = 0; m < pt2_package_model_count(pkg); m++)
        for (size_t k = 0; k < pt2_package_model_custom_ops(pkg, m, 0, NULL, NULL); k++) {
            pt2_package_model_custom_ops(pkg, m, k, &op, NULL);
            if (op == NULL || op_builtin(op))
                continue;
            first = first != NULL ? first : op;
            n++;
            py += (size_t)pt2_package_model_custom_op_python(pkg, m, k);
        }
    r->status = REQ_MET;
    r->key = "custom_ops";
    r->reason[0] = r->advice[0] = '\0';
    if (n == 0)
        return;
    req_set(r, REQ_UNDESCRIBED, "custom_ops",
            "needs the operator %.200s%s registered in the loading process (torch's proxy executor "
            "runs it; torch's loader refuses the package without it)%s",
            first, n > 1 ? " and others" : "",
            py > 0 ? "; made with torch.library.custom_op, it runs only in a Python process that "
                     "defines it"
                   : "");
    snprintf(r->advice, sizeof(r->advice),
             "Load the library that registers %.200s (TORCH_LIBRARY; torch.ops.load_library) in "
             "the serving process before the package.",
             n > 1 ? "the custom operators" : first);
}

/* ---- the combiner ----------------------------------------------------------------------- */

struct judged {
    struct req decided; /* the first unmet, else the first unverified */
    const char *unverified[UNVERIFIED_MAX];
    size_t nunverified;
    char first_undescribed[384];
};

static void combine(struct judged *j, const struct req *r)
{
    if (r->status == REQ_MET)
        return;
    if ((r->status == REQ_UNVERIFIED || r->status == REQ_UNDESCRIBED) &&
        j->nunverified < UNVERIFIED_MAX) {
        int dup = 0;
        for (size_t i = 0; i < j->nunverified; i++)
            dup |= strcmp(j->unverified[i], r->key) == 0;
        if (!dup)
            j->unverified[j->nunverified++] = r->key;
    }
    if (r->status > j->decided.status)
        j->decided = *r;
    if (r->status == REQ_UNDESCRIBED && j->first_undescribed[0] == '\0')
        snprintf(j->first_undescribed, sizeof(j->first_undescribed), "%.380s", r->reason);
}

static int missing_json(cJSON *entry, const struct pt2_load_result *lr)
{
    cJSON *m = cJSON_CreateObject(), *a;
    size_t i;

    if (m == NULL || !pt2_json_add_owned(entry, "missing", m))
        return 0;
    if ((a = cJSON_AddArrayToObject(m, "libraries")) == NULL)
        return 0;
    for (i = 0; i < lr->nmissing_libs && i < PT2_SYSROOT_MISSING_MAX; i++)
        if (!pt2_json_add_owned(a, NULL, cJSON_CreateString(lr->missing_lib_names[i])))
            return 0;
    if ((a = cJSON_AddArrayToObject(m, "versions")) == NULL)
        return 0;
    for (i = 0; i < lr->nmissing_versions && i < PT2_SYSROOT_MISSING_MAX; i++) {
        cJSON *v = cJSON_CreateObject();
        if (!pt2_json_add_owned(a, NULL, v) ||
            !cJSON_AddStringToObject(v, "library", lr->missing_versions[i].file) ||
            !cJSON_AddStringToObject(v, "version", lr->missing_versions[i].version) ||
            !cJSON_AddStringToObject(v, "required_by", lr->missing_versions[i].required_by))
            return 0;
    }
    if ((a = cJSON_AddArrayToObject(m, "symbols")) == NULL)
        return 0;
    for (i = 0; i < lr->nmissing_symbols && i < PT2_SYSROOT_MISSING_MAX; i++) {
        char s[340];
        snprintf(s, sizeof(s), "%s%s%s", lr->missing_symbols[i].name,
                 lr->missing_symbols[i].version[0] ? "@" : "", lr->missing_symbols[i].version);
        if (!pt2_json_add_owned(a, NULL, cJSON_CreateString(s)))
            return 0;
    }
    return cJSON_AddNumberToObject(m, "libraries_total", (double)lr->nmissing_libs) != NULL &&
           cJSON_AddNumberToObject(m, "versions_total", (double)lr->nmissing_versions) != NULL &&
           cJSON_AddNumberToObject(m, "symbols_total", (double)lr->nmissing_symbols) != NULL;
}

/* Judge one loaded library; fills j and, for exact checks, *lr. */
static int judge_library(const struct pt2_host *h, const struct pt2_runtime *rt, struct judged *j,
                         struct pt2_load_result *lr, int *have_lr, struct pt2_error *err)
{
    struct pt2_floors f = {0};
    struct pt2_torch_floor t;
    struct req r;
    char where[PT2_PATH_MAX + 16];
    int rc;

    pt2_shims_floor_init(&t);
    pt2_floors_add(&f, h->needs);
    pt2_shims_floor_add(&t, h->needs);
    req_platform(h, rt, &r);
    combine(j, &r);
    if (r.status == REQ_UNMET)
        return PT2_OK;
    if (h->needs == NULL) {
        req_set(&r, REQ_UNVERIFIED, "needs", "the needs of %s (%s) are not read", h->source,
                format_name(h->format));
        combine(j, &r);
        return PT2_OK;
    }
    if (h->needs->partial[0] != '\0') {
        /* an incomplete reading never passes for a complete one */
        req_set(&r, REQ_UNVERIFIED, "needs", "its needs were read in part: %.300s",
                h->needs->partial);
        combine(j, &r);
    }
    if (rt->sysroot != NULL) {
        rc = pt2_sysroot_check(rt->sysroot, h->needs, h->source, h->machine, lr, err);
        if (rc != PT2_OK)
            return rc;
        *have_lr = 1;
        snprintf(where, sizeof(where), "the sysroot %s", pt2_sysroot_dir(rt->sysroot));
        /* in the loader's order: the object itself is refused before its dependencies */
        req_loadable(h, lr->glibc, where, &r);
        combine(j, &r);
        req_execstack_own(h, lr->glibc, where, &r);
        combine(j, &r);
        req_load(lr, rt, where, &r);
        combine(j, &r);
        req_execstack_loaded(h, lr, where, &r);
        combine(j, &r);
        return PT2_OK; /* the loader's answer is exact: nothing from the tables adds to it */
    }
    req_loadable(h, rt->glibc, rt->name, &r);
    combine(j, &r);
    req_execstack_own(h, rt->glibc, rt->name, &r);
    combine(j, &r);
    req_version("glibc", "GLIBC_", &f.glibc, rt->glibc, "glibc", rt, &f, &r);
    combine(j, &r);
    req_version("glibcxx", "GLIBCXX_", &f.glibcxx, rt->glibcxx, "GLIBCXX", rt, &f, &r);
    combine(j, &r);
    req_version("cxxabi", "CXXABI_", &f.cxxabi, rt->cxxabi, "CXXABI", rt, &f, &r);
    combine(j, &r);
    req_gcc(&f, rt, &r);
    combine(j, &r);
    req_macos(&f, rt, &r);
    combine(j, &r);
    if (rt->libtorch != NULL) {
        rc = pt2_sysroot_check_exports(rt->libtorch, h->needs, lr, err);
        if (rc != PT2_OK)
            return rc;
        *have_lr = 1;
        snprintf(where, sizeof(where), "the libtorch at %s", rt->libtorch_path);
        req_load(lr, rt, where, &r);
        combine(j, &r);
        return PT2_OK;
    }
    req_torch(&t, rt, &r);
    combine(j, &r);
    req_exact(&t, rt, &r);
    combine(j, &r);
    return PT2_OK;
}

int pt2_runtime_floors_json(const pt2_package *pkg, cJSON *req)
{
    const struct pt2_host *loaded[PT2_HOSTS_MAX];
    size_t nl = loaded_libs(pkg, loaded, PT2_HOSTS_MAX);
    struct pt2_floors f = {0};
    struct pt2_torch_floor t;
    const char *names[] = {"glibc", "glibcxx", "cxxabi", "torch"};
    char r16[16];
    const char *vals[4];
    int ok = 1;

    pt2_shims_floor_init(&t);
    for (size_t i = 0; i < nl; i++) {
        pt2_floors_add(&f, loaded[i]->needs);
        pt2_shims_floor_add(&t, loaded[i]->needs);
    }
    vals[0] = f.glibc.version;
    vals[1] = f.glibcxx.version;
    vals[2] = f.cxxabi.version;
    vals[3] = pt2_shims_release_text(t.min, r16, sizeof(r16));
    for (size_t i = 0; ok && i < 4; i++)
        if (vals[i] != NULL && vals[i][0] != '\0')
            ok = cJSON_AddStringToObject(req, names[i], vals[i]) != NULL;
    return ok;
}

int pt2_runtime_judge(const pt2_package *pkg, const pt2_runtime *rt, cJSON *entry,
                      struct pt2_verdict_result *out, struct pt2_error *err)
{
    const struct pt2_host *loaded[PT2_HOSTS_MAX];
    size_t nl = loaded_libs(pkg, loaded, PT2_HOSTS_MAX);
    struct pt2_load_result *lr = NULL, *first_lr = NULL;
    struct judged j;
    struct pt2_floors f = {0};
    struct pt2_torch_floor t;
    cJSON *req, *unv;
    char r16[16];
    int rc = PT2_OK, have_lr;

    memset(&j, 0, sizeof(j));
    memset(out, 0, sizeof(*out));
    lr = calloc(2, sizeof(*lr));
    if (lr == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory judging the runtime");
    pt2_shims_floor_init(&t);
    if (nl > 0) { /* first: a compatible answer says it before what the runtime leaves open */
        struct req ops;
        req_custom_ops(pkg, &ops);
        combine(&j, &ops);
    }
    for (size_t i = 0; i < nl && rc == PT2_OK; i++) {
        int before = j.decided.status;
        have_lr = 0;
        rc = judge_library(loaded[i], rt, &j, &lr[1], &have_lr, err);
        pt2_floors_add(&f, loaded[i]->needs);
        pt2_shims_floor_add(&t, loaded[i]->needs);
        if (have_lr && (first_lr == NULL || j.decided.status > before)) {
            lr[0] = lr[1];
            first_lr = &lr[0];
        }
    }
    if (rc != PT2_OK) {
        free(lr);
        return rc;
    }
    out->verdict = j.decided.status == REQ_UNMET        ? PT2_INCOMPATIBLE
                   : j.decided.status == REQ_UNVERIFIED ? PT2_UNVERIFIED
                                                        : PT2_COMPATIBLE;
    if (out->verdict == PT2_COMPATIBLE)
        j.decided.advice[0] = '\0';
    snprintf(out->code, sizeof(out->code), "%s",
             out->verdict == PT2_COMPATIBLE ? "compatible" : "runtime");
    if (j.nunverified > 0)
        out->unverified |= PT2_UNVERIFIED_RUNTIME;
    if (nl == 0)
        snprintf(out->reason, sizeof(out->reason), "the package has no compiled library to load");
    else if (j.decided.status >= REQ_UNVERIFIED)
        snprintf(out->reason, sizeof(out->reason), "%s", j.decided.reason);
    else if (j.first_undescribed[0] != '\0')
        snprintf(out->reason, sizeof(out->reason), "compatible as far as %s is described; %.380s",
                 rt->name, j.first_undescribed);
    else
        snprintf(out->reason, sizeof(out->reason), "%s can load %.300s", rt->name,
                 nl == 1 ? loaded[0]->source : "every model library");
    snprintf(out->advice, sizeof(out->advice), "%s",
             j.decided.advice[0] ? j.decided.advice
                                 : "Describe the runtime further (torch=, glibc=) or check it "
                                   "with --sysroot.");
    /* requires: the floors the package sets, as data */
    req = cJSON_CreateObject();
    unv = cJSON_CreateArray();
    if (req == NULL || unv == NULL || !pt2_json_add_owned(entry, "requires", req)) {
        if (unv == NULL)
            cJSON_Delete(req); /* not handed to entry: the || stopped before */
        cJSON_Delete(unv);
        rc = pt2_error_set(err, PT2_ERR_NOMEM, "out of memory judging the runtime");
        goto cleanup;
    }
    if (!pt2_json_add_owned(entry, "unverified", unv) ||
        !pt2_json_add_str_or_null(req, "glibc", f.glibc.version) ||
        !pt2_json_add_str_or_null(req, "glibcxx", f.glibcxx.version) ||
        !pt2_json_add_str_or_null(req, "cxxabi", f.cxxabi.version) ||
        !pt2_json_add_str_or_null(req, "torch", pt2_shims_release_text(t.min, r16, sizeof(r16))) ||
        (first_lr != NULL && !missing_json(entry, first_lr))) {
        rc = pt2_error_set(err, PT2_ERR_NOMEM, "out of memory judging the runtime");
        goto cleanup;
    }
    for (size_t i = 0; i < j.nunverified; i++)
        if (!pt2_json_add_owned(unv, NULL, cJSON_CreateString(j.unverified[i]))) {
            rc = pt2_error_set(err, PT2_ERR_NOMEM, "out of memory judging the runtime");
            goto cleanup;
        }
cleanup:
    free(lr);
    return rc;
}
