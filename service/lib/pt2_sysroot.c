/*
 * pt2_sysroot.c - library resolution and load checks inside a root (see pt2_sysroot.h).
 *
 * Paths: an in-root path is kept as text relative to the root descriptor
 * with no symlink in it; each component is opened with O_NOFOLLOW and a
 * symlink is replaced by its target (absolute targets restart at the root),
 * so openat() never follows anything the walk did not check.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pt2_dynamic.h"
#include "pt2_elf.h"
#include "pt2_model.h"
#include "pt2_shims.h"
#include "pt2_sysroot.h"

#define LINKS_MAX 40
#define DIRS_MAX 64
#define TORCH_DIRS_MAX 8
#define DIR_SCAN_MAX 4096
#define CONF_MAX (64u * 1024u)
#define REL_MAX PT2_PATH_MAX

struct sr_lib {
    char rel[REL_MAX]; /* in-root path, no leading '/' */
    char name[128];    /* the file name it was found as */
    int fd;
    struct pt2_rd rd;
    struct pt2_elf elf;
    struct pt2_needs *needs;
    struct pt2_dyn_symtab sym;
    int sym_ok;
    unsigned machine;
};

struct pt2_sysroot {
    int rootfd;
    char dir[PT2_PATH_MAX];
    int libtorch; /* a libtorch set: the scope is every library, no resolution */
    char dirs[DIRS_MAX][REL_MAX];
    size_t ndirs;
    char torch[TORCH_DIRS_MAX][REL_MAX];
    size_t ntorch;
    /* Each library on its own: its reader's context, ELF and symbol table point into it, so it
     * must not move when the table grows (a load scope past 16 libraries did). */
    struct sr_lib **libs;
    size_t nlibs;
    pthread_mutex_t mu;
};

/* ---- paths inside the root ------------------------------------------------------------- */

static void pop(char *rel)
{
    char *s = strrchr(rel, '/');
    if (s != NULL)
        *s = '\0';
    else
        rel[0] = '\0';
}

/*
 * Resolve `path` (absolute in the root, or relative to in-root folder `base`) into
 * `out`, following symlinks inside the root. 0, or an errno value.
 */
static int resolve(const struct pt2_sysroot *sr, const char *base, const char *path, char *out)
{
    char todo[2 * REL_MAX], rel[REL_MAX] = "", link[REL_MAX];
    int links = 0;

    if (path[0] == '/')
        snprintf(todo, sizeof(todo), "%s", path + 1);
    else if (snprintf(rel, sizeof(rel), "%s", base) >= (int)sizeof(rel) ||
             snprintf(todo, sizeof(todo), "%s", path) >= (int)sizeof(todo))
        return ENAMETOOLONG;
    while (todo[0] != '\0') {
        char comp[256], cand[REL_MAX];
        char *slash = strchr(todo, '/');
        size_t n = slash != NULL ? (size_t)(slash - todo) : strlen(todo);
        struct stat st;
        ssize_t ln;

        if (n >= sizeof(comp))
            return ENAMETOOLONG;
        memcpy(comp, todo, n);
        comp[n] = '\0';
        memmove(todo, slash != NULL ? slash + 1 : todo + n,
                strlen(slash != NULL ? slash + 1 : todo + n) + 1);
        if (n == 0 || strcmp(comp, ".") == 0)
            continue;
        if (strcmp(comp, "..") == 0) {
            pop(rel);
            continue;
        }
        if (snprintf(cand, sizeof(cand), "%s%s%s", rel, rel[0] ? "/" : "", comp) >=
            (int)sizeof(cand))
            return ENAMETOOLONG;
        if (fstatat(sr->rootfd, cand, &st, AT_SYMLINK_NOFOLLOW) != 0)
            return errno;
        if (!S_ISLNK(st.st_mode)) {
            memcpy(rel, cand, sizeof(rel));
            continue;
        }
        if (++links > LINKS_MAX)
            return ELOOP;
        ln = readlinkat(sr->rootfd, cand, link, sizeof(link) - 1);
        if (ln <= 0 || (size_t)ln >= sizeof(link) - 1)
            return ln < 0 ? errno : ENAMETOOLONG;
        link[ln] = '\0';
        if (strlen(link) + 1 + strlen(todo) + 1 > sizeof(todo))
            return ENAMETOOLONG;
        {
            char rest[2 * REL_MAX];
            if (snprintf(rest, sizeof(rest), "%s%s%s", link[0] == '/' ? link + 1 : link,
                         todo[0] ? "/" : "", todo) >= (int)sizeof(rest))
                return ENAMETOOLONG;
            memcpy(todo, rest, sizeof(todo));
        }
        if (link[0] == '/')
            rel[0] = '\0';
    }
    snprintf(out, REL_MAX, "%s", rel);
    return 0;
}

static int is_dir(const struct pt2_sysroot *sr, const char *rel)
{
    struct stat st;
    return fstatat(sr->rootfd, rel[0] ? rel : ".", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
           S_ISDIR(st.st_mode);
}

static void add_dir(struct pt2_sysroot *sr, const char *path)
{
    char rel[REL_MAX];

    if (sr->ndirs >= DIRS_MAX || resolve(sr, "", path, rel) != 0 || !is_dir(sr, rel))
        return;
    for (size_t i = 0; i < sr->ndirs; i++)
        if (strcmp(sr->dirs[i], rel) == 0)
            return;
    snprintf(sr->dirs[sr->ndirs++], REL_MAX, "%s", rel);
}

/* Expand a pattern of in-root folders ('*' within components) into `out`. */
static void glob_dirs(struct pt2_sysroot *sr, const char *base, const char *pattern,
                      char out[][REL_MAX], size_t *n, size_t cap)
{
    const char *slash = strchr(pattern, '/');
    char comp[256], rel[REL_MAX];
    size_t len = slash != NULL ? (size_t)(slash - pattern) : strlen(pattern);

    if (*n >= cap || len >= sizeof(comp))
        return;
    memcpy(comp, pattern, len);
    comp[len] = '\0';
    if (strchr(comp, '*') == NULL) {
        if (resolve(sr, base, comp, rel) != 0 || !is_dir(sr, rel))
            return;
        if (slash == NULL) {
            snprintf(out[(*n)++], REL_MAX, "%s", rel);
            return;
        }
        glob_dirs(sr, rel, slash + 1, out, n, cap);
        return;
    }
    {
        int fd = openat(sr->rootfd, base[0] ? base : ".",
                        O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
        struct dirent *e;
        size_t seen = 0;

        if (d == NULL) {
            if (fd >= 0)
                close(fd);
            return;
        }
        while ((e = readdir(d)) != NULL && seen++ < DIR_SCAN_MAX && *n < cap) {
            if (e->d_name[0] == '.' || fnmatch(comp, e->d_name, 0) != 0)
                continue;
            if (resolve(sr, base, e->d_name, rel) != 0 || !is_dir(sr, rel))
                continue;
            if (slash == NULL)
                snprintf(out[(*n)++], REL_MAX, "%s", rel);
            else
                glob_dirs(sr, rel, slash + 1, out, n, cap);
        }
        closedir(d);
    }
}

/* Read an in-root text file whole (capped) into a new buffer; NULL when absent. */
static char *read_text(struct pt2_sysroot *sr, const char *path)
{
    char rel[REL_MAX];
    char *buf;
    ssize_t got;
    int fd;

    if (resolve(sr, "", path, rel) != 0)
        return NULL;
    fd = openat(sr->rootfd, rel, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    buf = malloc(CONF_MAX + 1);
    got = buf != NULL ? read(fd, buf, CONF_MAX) : -1;
    close(fd);
    if (got < 0) {
        free(buf);
        return NULL;
    }
    buf[got] = '\0';
    return buf;
}

static void read_ldconf(struct pt2_sysroot *sr, const char *path, int depth)
{
    char *text = depth < 4 ? read_text(sr, path) : NULL, *save = NULL, *line;

    for (line = text != NULL ? strtok_r(text, "\n", &save) : NULL; line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        char *hash = strchr(line, '#'), *p = line, *end;

        if (hash != NULL)
            *hash = '\0';
        while (*p == ' ' || *p == '\t')
            p++;
        end = p + strlen(p);
        while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
            *--end = '\0';
        if (*p == '\0')
            continue;
        if (strncmp(p, "include", 7) == 0 && (p[7] == ' ' || p[7] == '\t')) {
            char pat[REL_MAX], dir[REL_MAX], *base, *slash;
            int fd;
            DIR *d;
            struct dirent *e;
            size_t seen = 0;

            p += 8;
            while (*p == ' ' || *p == '\t')
                p++;
            snprintf(pat, sizeof(pat), "%s%s", p[0] == '/' ? "" : "/etc/", p);
            slash = strrchr(pat, '/');
            *slash = '\0';
            base = slash + 1;
            if (resolve(sr, "", pat[0] ? pat : "/", dir) != 0)
                continue;
            fd = openat(sr->rootfd, dir[0] ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            d = fd >= 0 ? fdopendir(fd) : NULL;
            if (d == NULL) {
                if (fd >= 0)
                    close(fd);
                continue;
            }
            /* glob(3) order: sorted names */
            {
                char names[64][256];
                size_t k = 0;
                while ((e = readdir(d)) != NULL && seen++ < DIR_SCAN_MAX && k < 64)
                    if (fnmatch(base, e->d_name, 0) == 0 && e->d_name[0] != '.')
                        snprintf(names[k++], sizeof(names[0]), "%s", e->d_name);
                closedir(d);
                qsort(names, k, sizeof(names[0]), (int (*)(const void *, const void *))strcmp);
                for (size_t i = 0; i < k; i++) {
                    char file[REL_MAX + 260];
                    if (snprintf(file, sizeof(file), "/%s/%s", dir, names[i]) < (int)sizeof(file))
                        read_ldconf(sr, file, depth + 1);
                }
            }
            continue;
        }
        add_dir(sr, p);
    }
    free(text);
}

/* ---- reading libraries ------------------------------------------------------------------ */

static int fd_read(void *ctx, uint64_t off, void *buf, size_t len, size_t *got,
                   struct pt2_error *err)
{
    struct sr_lib *l = ctx;
    ssize_t n = pread(l->fd, buf, len, (off_t)off);
    char eb[128];

    if (n < 0)
        return pt2_error_set(err, PT2_ERR_IO, "%s: %s", l->rel,
                             pt2_strerror(errno, eb, sizeof(eb)));
    *got = (size_t)n;
    return PT2_OK;
}

static void lib_free(struct sr_lib *l)
{
    if (l == NULL)
        return;
    pt2_dyn_symtab_close(&l->sym);
    pt2_elf_close(&l->elf);
    pt2_needs_free(l->needs);
    if (l->fd >= 0)
        close(l->fd);
    free(l);
}

/*
 * Open the library at in-root path `rel` (cached): its index, -1 when it is not an ELF
 * shared object for `machine` (0 = any), or a negative... errors go to err with -2.
 */
static int lib_load(struct pt2_sysroot *sr, const char *rel, const char *name, unsigned machine,
                    struct pt2_error *err)
{
    struct sr_lib *l;
    struct stat st;
    struct pt2_error local = {0};
    int fd, nomem;

    for (size_t i = 0; i < sr->nlibs; i++)
        if (strcmp(sr->libs[i]->rel, rel) == 0)
            return machine == 0 || sr->libs[i]->machine == machine ? (int)i : -1;
    if (sr->nlibs >= PT2_SYSROOT_LIBS_MAX) {
        pt2_error_set(err, PT2_ERR_TOO_LARGE, "more than %u libraries in the load scope",
                      PT2_SYSROOT_LIBS_MAX);
        return -2;
    }
    fd = openat(sr->rootfd, rel, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return -1;
    }
    if (sr->nlibs % 16 == 0) {
        struct sr_lib **n = realloc(sr->libs, (sr->nlibs + 16) * sizeof(*n));
        if (n == NULL) {
            close(fd);
            pt2_error_set(err, PT2_ERR_NOMEM, "out of memory reading the sysroot");
            return -2;
        }
        sr->libs = n;
    }
    l = calloc(1, sizeof(*l));
    if (l == NULL) {
        close(fd);
        pt2_error_set(err, PT2_ERR_NOMEM, "out of memory reading the sysroot");
        return -2;
    }
    l->fd = fd;
    snprintf(l->rel, sizeof(l->rel), "%s", rel);
    snprintf(l->name, sizeof(l->name), "%s", name);
    pt2_rd_init_fn(&l->rd, fd_read, l, (uint64_t)st.st_size, l->rel);
    pt2_rd_set_budget(&l->rd, PT2_NEEDS_READ_MAX);
    l->needs = pt2_needs_new(PT2_HOST_ELF);
    nomem = l->needs == NULL;
    if (nomem || pt2_elf_open(&l->elf, &l->rd, 0, (uint64_t)st.st_size, &local) != PT2_OK ||
        l->elf.type != PT2_ELF_ET_DYN || (machine != 0 && l->elf.machine != machine) ||
        pt2_dyn_read(&l->elf, PT2_DYN_DEFS, l->needs, &local) != PT2_OK) {
        lib_free(l);
        if (local.code == PT2_ERR_NOMEM || nomem) {
            pt2_error_set(err, PT2_ERR_NOMEM, "out of memory reading the sysroot");
            return -2;
        }
        return -1; /* the loader skips files it cannot use and searches on */
    }
    l->machine = l->elf.machine;
    l->sym_ok = pt2_dyn_symtab_open(&l->sym, &l->elf, l->needs, &local) == PT2_OK;
    sr->libs[sr->nlibs] = l;
    return (int)sr->nlibs++;
}

/* ---- open and free ---------------------------------------------------------------------- */

static struct pt2_sysroot *sr_new(const char *dir, struct pt2_error *err)
{
    struct pt2_sysroot *sr = calloc(1, sizeof(*sr));
    struct stat st;
    char eb[128];

    if (sr == NULL) {
        pt2_error_set(err, PT2_ERR_NOMEM, "out of memory opening the sysroot");
        return NULL;
    }
    snprintf(sr->dir, sizeof(sr->dir), "%s", dir);
    pthread_mutex_init(&sr->mu, NULL);
    sr->rootfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (sr->rootfd < 0 || fstat(sr->rootfd, &st) != 0) {
        int e = errno;
        pt2_error_set(err, e == ENOENT ? PT2_ERR_NOT_FOUND : PT2_ERR_INVALID, "%s: %s", dir,
                      e == ENOTDIR ? "not a folder" : pt2_strerror(e, eb, sizeof(eb)));
        pt2_sysroot_free(sr);
        return NULL;
    }
    return sr;
}

int pt2_sysroot_open(const char *dir, struct pt2_sysroot **out, struct pt2_error *err)
{
    static const char *const defaults[] = {"/lib/x86_64-linux-gnu",
                                           "/usr/lib/x86_64-linux-gnu",
                                           "/lib/aarch64-linux-gnu",
                                           "/usr/lib/aarch64-linux-gnu",
                                           "/lib64",
                                           "/usr/lib64",
                                           "/lib",
                                           "/usr/lib"};
    static const char *const torch[] = {"usr/lib/python3*/site-packages/torch/lib",
                                        "usr/lib/python3*/dist-packages/torch/lib",
                                        "usr/local/lib/python3*/site-packages/torch/lib",
                                        "usr/local/lib/python3*/dist-packages/torch/lib",
                                        "opt/conda/lib/python3*/site-packages/torch/lib",
                                        "opt/conda/envs/*/lib/python3*/site-packages/torch/lib",
                                        "opt/*/lib/python3*/site-packages/torch/lib",
                                        "root/.local/lib/python3*/site-packages/torch/lib",
                                        "home/*/.local/lib/python3*/site-packages/torch/lib"};
    struct pt2_sysroot *sr;
    size_t before;

    *out = NULL;
    if (dir == NULL || dir[0] == '\0')
        return pt2_error_set(err, PT2_ERR_INVALID, "--sysroot: empty folder name");
    sr = sr_new(dir, err);
    if (sr == NULL)
        return err != NULL ? err->code : PT2_ERR_INVALID;
    read_ldconf(sr, "/etc/ld.so.conf", 0);
    before = sr->ndirs;
    for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
        add_dir(sr, defaults[i]);
    if (sr->ndirs == before && before == 0) {
        pt2_error_set(err, PT2_ERR_INVALID,
                      "%s is not a root filesystem: it has no lib, lib64 or usr/lib folder", dir);
        pt2_sysroot_free(sr);
        return PT2_ERR_INVALID;
    }
    for (size_t i = 0; i < sizeof(torch) / sizeof(torch[0]); i++)
        glob_dirs(sr, "", torch[i], sr->torch, &sr->ntorch, TORCH_DIRS_MAX);
    *out = sr;
    return PT2_OK;
}

int pt2_sysroot_libtorch(const char *path, struct pt2_sysroot **out, struct pt2_error *err)
{
    static const char *const names[] = {"libtorch_cpu.so",  "libtorch.so",     "libc10.so",
                                        "libtorch_cuda.so", "libc10_cuda.so",  "libtorch_hip.so",
                                        "libc10_hip.so",    "libtorch_xpu.so", "libc10_xpu.so"};
    struct pt2_sysroot *sr;
    struct stat st;
    char dir[PT2_PATH_MAX], file[256] = "", *real;
    int found_cpu = 0;

    *out = NULL;
    if (path == NULL || path[0] == '\0')
        return pt2_error_set(err, PT2_ERR_INVALID, "libtorch: empty path");
    /* a file named outright may be the soname link (libtorch_cpu.so.2.6) */
    real = realpath(path, NULL);
    if (real == NULL || stat(real, &st) != 0 || strlen(real) >= sizeof(dir)) {
        free(real);
        return pt2_error_set(err, PT2_ERR_NOT_FOUND, "%s: no such file or folder", path);
    }
    snprintf(dir, sizeof(dir), "%s", real);
    free(real);
    if (!S_ISDIR(st.st_mode)) {
        char *slash = strrchr(dir, '/');
        if (snprintf(file, sizeof(file), "%s", slash != NULL ? slash + 1 : dir) >=
            (int)sizeof(file))
            return pt2_error_set(err, PT2_ERR_INVALID, "%s: file name too long", path);
        if (slash != NULL)
            *slash = '\0';
        else
            snprintf(dir, sizeof(dir), ".");
    }
    sr = sr_new(dir[0] ? dir : "/", err);
    if (sr == NULL)
        return err != NULL ? err->code : PT2_ERR_INVALID;
    sr->libtorch = 1;
    {
        int fd = openat(sr->rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
        struct dirent *e;
        size_t seen = 0;
        int rc = 0;

        while (d != NULL && (e = readdir(d)) != NULL && seen++ < DIR_SCAN_MAX && rc >= -1) {
            for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
                size_t l = strlen(names[i]);
                if (strncmp(e->d_name, names[i], l) != 0 ||
                    (e->d_name[l] != '\0' && e->d_name[l] != '.'))
                    continue;
                if (file[0] != '\0' && strcmp(e->d_name, file) != 0)
                    continue; /* a file names exactly one library */
                rc = lib_load(sr, e->d_name, e->d_name, 0, err);
                if (rc >= 0 && i == 0)
                    found_cpu = 1;
            }
        }
        if (d != NULL)
            closedir(d);
        else if (fd >= 0)
            close(fd);
        if (rc == -2) {
            pt2_sysroot_free(sr);
            return err != NULL ? err->code : PT2_ERR_NOMEM;
        }
    }
    if (!found_cpu) {
        pt2_error_set(err, PT2_ERR_INVALID, "%s: no libtorch_cpu.so shared object there", path);
        pt2_sysroot_free(sr);
        return PT2_ERR_INVALID;
    }
    *out = sr;
    return PT2_OK;
}

void pt2_sysroot_free(struct pt2_sysroot *sr)
{
    if (sr == NULL)
        return;
    for (size_t i = 0; i < sr->nlibs; i++)
        lib_free(sr->libs[i]);
    free(sr->libs);
    if (sr->rootfd >= 0)
        close(sr->rootfd);
    pthread_mutex_destroy(&sr->mu);
    free(sr);
}

const char *pt2_sysroot_dir(const struct pt2_sysroot *sr)
{
    return sr != NULL ? sr->dir : "";
}

/* ---- the check -------------------------------------------------------------------------- */

/* The object at in-root `path` when it resolves and loads as `name`; -1 when not. */
static int try_candidate(struct pt2_sysroot *sr, const char *path, const char *name,
                         unsigned machine, struct pt2_error *err)
{
    char rel[REL_MAX];

    if (resolve(sr, "", path, rel) != 0)
        return -1;
    return lib_load(sr, rel, name, machine, err);
}

/* Search one colon-separated run path (in-root; $ORIGIN = origin). */
static int search_path(struct pt2_sysroot *sr, const char *list, const char *origin,
                       const char *name, unsigned machine, struct pt2_error *err)
{
    char buf[PT2_PATH_MAX], *save = NULL, *d;

    snprintf(buf, sizeof(buf), "%s", list);
    for (d = strtok_r(buf, ":", &save); d != NULL; d = strtok_r(NULL, ":", &save)) {
        char path[PT2_PATH_MAX * 2];
        int i;

        if (strncmp(d, "$ORIGIN", 7) == 0 || strncmp(d, "${ORIGIN}", 9) == 0) {
            const char *rest = d + (d[1] == '{' ? 9 : 7);
            if (origin == NULL)
                continue; /* the model library's folder is where torch unpacks it */
            snprintf(path, sizeof(path), "/%s%s/%s", origin, rest, name);
        } else if (d[0] == '/') {
            snprintf(path, sizeof(path), "%s/%s", d, name);
        } else {
            continue; /* relative to the process's working folder: unknowable */
        }
        if ((i = try_candidate(sr, path, name, machine, err)) != -1)
            return i;
    }
    return -1;
}

static int search_dirs(struct pt2_sysroot *sr, char dirs[][REL_MAX], size_t n, const char *name,
                       unsigned machine, struct pt2_error *err)
{
    for (size_t k = 0; k < n; k++) {
        char path[REL_MAX + 260];
        int i;

        snprintf(path, sizeof(path), "/%s/%s", dirs[k], name);
        if ((i = try_candidate(sr, path, name, machine, err)) != -1)
            return i;
    }
    return -1;
}

/* The loader's search for DT_NEEDED `name` of an object with these run paths. */
static int find_lib(struct pt2_sysroot *sr, const char *name, const struct pt2_needs *by,
                    const char *origin, unsigned machine, struct pt2_error *err)
{
    const char *rpath = pt2_needs_str(by, by->rpath), *runpath = pt2_needs_str(by, by->runpath);
    char rel[REL_MAX];
    int i;

    if (strchr(name, '/') != NULL) {
        if (name[0] != '/' || resolve(sr, "", name, rel) != 0)
            return -1;
        return lib_load(sr, rel, name, machine, err);
    }
    /* torch's own libraries are loaded (by `import torch`) before any model */
    if ((i = search_dirs(sr, sr->torch, sr->ntorch, name, machine, err)) != -1)
        return i;
    if (runpath[0] == '\0' && rpath[0] != '\0' &&
        (i = search_path(sr, rpath, origin, name, machine, err)) != -1)
        return i;
    if (runpath[0] != '\0' && (i = search_path(sr, runpath, origin, name, machine, err)) != -1)
        return i;
    return search_dirs(sr, sr->dirs, sr->ndirs, name, machine, err);
}

/* The scope member that a version need's file names (by soname, else file name). */
static int scope_by_file(struct pt2_sysroot *sr, const int *scope, size_t n, const char *file)
{
    for (size_t k = 0; k < n; k++) {
        const struct sr_lib *l = sr->libs[scope[k]];
        const char *so = pt2_needs_str(l->needs, l->needs->soname);

        if (strcmp(so[0] ? so : l->name, file) == 0 || strcmp(l->name, file) == 0)
            return scope[k];
    }
    return -1;
}

/* Newest "<prefix>x.y.z" version a provider defines into out. */
static void newest(const struct pt2_needs *n, const char *prefix, char *out, size_t len)
{
    size_t pl = strlen(prefix);

    for (size_t i = 0; n != NULL && i < n->ndefs; i++) {
        const char *v = pt2_needs_str(n, n->defs[i]);
        if (strncmp(v, prefix, pl) == 0 && v[pl] >= '0' && v[pl] <= '9' &&
            (out[0] == '\0' || strverscmp(v + pl, out) > 0))
            snprintf(out, len, "%s", v + pl);
    }
}

/* Newest "<prefix>x.y.z" the root's own `name` (its library folders) defines into out; the
 * library's index, -1 when there is none, -2 when reading failed (err). Holds sr->mu. */
static int root_newest(struct pt2_sysroot *sr, const char *name, const char *prefix,
                       unsigned machine, char *out, size_t len, struct pt2_error *err)
{
    int i = search_dirs(sr, sr->dirs, sr->ndirs, name, machine, err);

    if (i >= 0)
        newest(sr->libs[i]->needs, prefix, out, len);
    return i;
}

static void check_versions(struct pt2_sysroot *sr, const struct pt2_needs *obj, const char *objname,
                           const int *scope, size_t n, struct pt2_load_result *res)
{
    for (size_t v = 0; v < obj->nvers; v++) {
        const struct pt2_vneed *vn = &obj->vers[v];
        const char *file = pt2_needs_str(obj, vn->file), *ver = pt2_needs_str(obj, vn->version);
        int p = scope_by_file(sr, scope, n, file);

        if (vn->weak || p < 0 || sr->libs[p]->needs->ndefs == 0 ||
            pt2_needs_defines(sr->libs[p]->needs, ver))
            continue;
        if (sr->libs[p]->needs->defs_partial) { /* it may be among what was not read */
            if (res->note[0] == '\0')
                snprintf(
                    res->note, sizeof(res->note),
                    "%.100s is not among the version definitions of %.100s that could be read: "
                    "%.200s",
                    ver, file, sr->libs[p]->needs->partial);
            continue;
        }
        if (res->nmissing_versions < PT2_SYSROOT_MISSING_MAX) {
            struct pt2_load_missing_version *m = &res->missing_versions[res->nmissing_versions];
            snprintf(m->file, sizeof(m->file), "%s", file);
            snprintf(m->version, sizeof(m->version), "%s", ver);
            snprintf(m->required_by, sizeof(m->required_by), "%s", objname);
            m->nsyms = vn->nsyms;
        }
        res->nmissing_versions++;
    }
}

static int check_symbols(struct pt2_sysroot *sr, const struct pt2_needs *lib, const int *scope,
                         size_t n, int only_torch, struct pt2_load_result *res,
                         struct pt2_error *err)
{
    for (size_t i = 0; i < lib->nimports; i++) {
        const struct pt2_import *im = &lib->imports[i];
        const char *name = pt2_needs_str(lib, im->name);
        const char *ver = im->vneed >= 0 ? pt2_needs_str(lib, lib->vers[im->vneed].version) : NULL;
        int found = 0, rc;

        if (im->weak || (only_torch && im->kind != PT2_IMP_SHIM &&
                         im->kind != PT2_IMP_CUSTOM_SHIM && im->kind != PT2_IMP_LIBTORCH_CXX))
            continue;
        const char *unread = NULL, *in_part = NULL;

        for (size_t k = 0; k < n && !found; k++) {
            struct sr_lib *l = sr->libs[scope[k]];
            if (!l->sym_ok) {
                unread = unread != NULL ? unread : l->name;
                continue;
            }
            rc = pt2_dyn_symtab_find(&l->sym, name, ver, &found, err);
            if (rc != PT2_OK)
                return rc;
            /* a version it defines may be among what was not read: the lookup cannot say no */
            if (!found && ver != NULL && l->needs->defs_partial && in_part == NULL)
                in_part = l->name;
        }
        if (found)
            continue;
        if (unread != NULL) { /* it may be there: not missing, not checked */
            if (res->note[0] == '\0')
                snprintf(res->note, sizeof(res->note),
                         "%s is not found in the symbols that could be read; those of %s could "
                         "not be",
                         name, unread);
            continue;
        }
        if (in_part != NULL) {
            if (res->note[0] == '\0')
                snprintf(res->note, sizeof(res->note),
                         "%.200s@%.60s is not found; the version definitions of %.100s were read "
                         "in part",
                         name, ver, in_part);
            continue;
        }
        if (res->nmissing_symbols < PT2_SYSROOT_MISSING_MAX) {
            snprintf(res->missing_symbols[res->nmissing_symbols].name,
                     sizeof(res->missing_symbols[0].name), "%s", name);
            snprintf(res->missing_symbols[res->nmissing_symbols].version,
                     sizeof(res->missing_symbols[0].version), "%s", ver != NULL ? ver : "");
        }
        res->nmissing_symbols++;
    }
    return PT2_OK;
}

static void note_missing_lib(struct pt2_load_result *res, const char *name, const char *by)
{
    for (size_t i = 0; i < res->nmissing_libs && i < PT2_SYSROOT_MISSING_MAX; i++)
        if (strcmp(res->missing_lib_names[i], name) == 0)
            return;
    if (res->nmissing_libs < PT2_SYSROOT_MISSING_MAX) {
        snprintf(res->missing_lib_names[res->nmissing_libs], sizeof(res->missing_lib_names[0]),
                 "%s", name);
        snprintf(res->missing_libs[res->nmissing_libs], sizeof(res->missing_libs[0]),
                 "%.100s (needed by %.50s)", name,
                 strrchr(by, '/') != NULL ? strrchr(by, '/') + 1 : by);
    }
    res->nmissing_libs++;
}

static unsigned machine_code(const char *m)
{
    if (m == NULL)
        return 0;
    if (strcmp(m, "x86_64") == 0)
        return PT2_ELF_EM_X86_64;
    if (strcmp(m, "aarch64") == 0)
        return PT2_ELF_EM_AARCH64;
    if (strncmp(m, "ppc64", 5) == 0)
        return PT2_ELF_EM_PPC64;
    if (strcmp(m, "s390x") == 0)
        return PT2_ELF_EM_S390;
    return 0;
}

int pt2_sysroot_check(struct pt2_sysroot *sr, const struct pt2_needs *lib, const char *name,
                      const char *machine, struct pt2_load_result *res, struct pt2_error *err)
{
    int scope[PT2_SYSROOT_LIBS_MAX];
    size_t n = 0, q;
    unsigned em = machine_code(machine);
    int rc = PT2_OK;

    memset(res, 0, sizeof(*res));
    pthread_mutex_lock(&sr->mu);
    /* breadth first, as the loader maps a dlopen()ed object's dependencies */
    for (q = 0; q <= n && rc == PT2_OK; q++) {
        const struct pt2_needs *obj = q == 0 ? lib : sr->libs[scope[q - 1]]->needs;
        char objname[sizeof(((struct sr_lib *)0)->name)], origin[REL_MAX];

        /* a copy: find_lib() may grow sr->libs, which holds the name */
        snprintf(objname, sizeof(objname), "%s", q == 0 ? name : sr->libs[scope[q - 1]]->name);
        if (q > 0) {
            snprintf(origin, sizeof(origin), "%s", sr->libs[scope[q - 1]]->rel);
            pop(origin);
        }
        for (size_t d = 0; d < obj->nlibs; d++) {
            const char *need = pt2_needs_str(obj, obj->libs[d]);
            int i = scope_by_file(sr, scope, n, need);

            if (i >= 0)
                continue;
            i = find_lib(sr, need, obj, q == 0 ? NULL : origin, em, err);
            if (i == -2) {
                rc = err != NULL && err->code != 0 ? err->code : PT2_ERR_NOMEM;
                break;
            }
            if (i < 0) {
                note_missing_lib(res, need, objname);
                continue;
            }
            for (size_t k = 0; k < n; k++)
                if (scope[k] == i)
                    i = -1;
            if (i >= 0 && n < PT2_SYSROOT_LIBS_MAX)
                scope[n++] = i;
        }
        if (q == n)
            break;
    }
    if (rc == PT2_OK) {
        check_versions(sr, lib, name, scope, n, res);
        for (size_t k = 0; k < n; k++)
            check_versions(sr, sr->libs[scope[k]]->needs, sr->libs[scope[k]]->name, scope, n, res);
        rc = check_symbols(sr, lib, scope, n, 0, res, err);
    }
    res->nloaded = n;
    for (size_t k = 0; k < n; k++) {
        const struct sr_lib *l = sr->libs[scope[k]];
        if (strcmp(l->name, "libc.so.6") == 0)
            newest(l->needs, "GLIBC_", res->glibc, sizeof(res->glibc));
        else if (strcmp(l->name, "libstdc++.so.6") == 0)
            newest(l->needs, "GLIBCXX_", res->glibcxx, sizeof(res->glibcxx));
        if (l->needs->exec_stack != 0 && res->execstack_kind == 0) {
            snprintf(res->execstack_lib, sizeof(res->execstack_lib), "%s", l->name);
            res->execstack_kind = l->needs->exec_stack;
        }
    }
    if (rc == PT2_OK && res->glibc[0] == '\0') {
        /* a library that needs no C library still runs in a process that has the root's */
        struct pt2_error local = {0};
        int c = root_newest(sr, "libc.so.6", "GLIBC_", em, res->glibc, sizeof(res->glibc), &local);
        if (c == -2 && local.code != PT2_ERR_TOO_LARGE) /* a full cache: glibc unknown */
            rc = local.code != PT2_OK ? pt2_error_copy(err, &local) : PT2_ERR_NOMEM;
    }
    /* a provider read in part may hide what it needs itself (its own libraries, versions) */
    for (size_t k = 0; k < n && res->note[0] == '\0'; k++)
        if (sr->libs[scope[k]]->needs->partial[0] != '\0')
            snprintf(res->note, sizeof(res->note), "%s", sr->libs[scope[k]]->needs->partial);
    pthread_mutex_unlock(&sr->mu);
    return rc;
}

int pt2_sysroot_newest(struct pt2_sysroot *sr, const char *name, const char *prefix, char *out,
                       size_t len)
{
    int i;

    out[0] = '\0';
    pthread_mutex_lock(&sr->mu);
    i = root_newest(sr, name, prefix, 0, out, len, NULL);
    pthread_mutex_unlock(&sr->mu);
    return i >= 0 && out[0] != '\0' ? PT2_OK : PT2_ERR_NOT_FOUND;
}

int pt2_sysroot_check_exports(struct pt2_sysroot *sr, const struct pt2_needs *lib,
                              struct pt2_load_result *res, struct pt2_error *err)
{
    int scope[PT2_SYSROOT_LIBS_MAX];
    size_t n;
    int rc;

    memset(res, 0, sizeof(*res));
    pthread_mutex_lock(&sr->mu);
    for (n = 0; n < sr->nlibs && n < PT2_SYSROOT_LIBS_MAX; n++)
        scope[n] = (int)n;
    res->nloaded = n;
    rc = check_symbols(sr, lib, scope, n, 1, res, err);
    pthread_mutex_unlock(&sr->mu);
    return rc;
}
