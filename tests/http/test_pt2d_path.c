/*
 * test_pt2d_path.c - model-root confinement: lexical refusals, symlinks in
 * and out, several roots, non-regular files, and the opened descriptor.
 * Every case runs three ways, by name (pt2d_path_open: the walk from a root
 * opened per call), through the roots' descriptors (pt2d_path_open_at:
 * openat2 where the kernel has it) and through them with the walk forced
 * (the test build's pt2d_path_test_force_walk, as on a kernel without
 * openat2), and all must give the same result and message.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pt2d_path.h"
#include "pt2d_problem.h"
#include "testutil.h"

static char base[256], r1[300], r2[300], outside[300];
static const char *roots[2];
static int root_fds[2] = {-1, -1};
static int have_openat2;

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static void setup(void)
{
    char tmpl[] = "/tmp/pt2d-path-XXXXXX", p[400], real[PATH_MAX];

    ck_assert_ptr_nonnull(mkdtemp(tmpl));
    ck_assert_ptr_nonnull(realpath(tmpl, real));
    ck_assert_uint_lt(strlen(real), sizeof(base));
    memcpy(base, real, strlen(real) + 1);
    snprintf(r1, sizeof(r1), "%s/r1", base);
    snprintf(r2, sizeof(r2), "%s/r2", base);
    snprintf(outside, sizeof(outside), "%s/secret.pt2", base);
    mkdir(r1, 0700);
    mkdir(r2, 0700);
    put(outside, "secret");
    snprintf(p, sizeof(p), "%s/a.pt2", r1);
    put(p, "one");
    snprintf(p, sizeof(p), "%s/a.pt2", r2);
    put(p, "two");
    snprintf(p, sizeof(p), "%s/b.pt2", r2);
    put(p, "bee");
    snprintf(p, sizeof(p), "%s/d", r1);
    mkdir(p, 0700);
    snprintf(p, sizeof(p), "%s/d/c.pt2", r1);
    put(p, "see");
    snprintf(p, sizeof(p), "%s/in.pt2", r1);
    ck_assert_int_eq(symlink("d/c.pt2", p), 0);
    snprintf(p, sizeof(p), "%s/out.pt2", r1);
    ck_assert_int_eq(symlink(outside, p), 0);
    snprintf(p, sizeof(p), "%s/rel-out.pt2", r1);
    ck_assert_int_eq(symlink("../secret.pt2", p), 0);
    snprintf(p, sizeof(p), "%s/to-r2", r1);
    ck_assert_int_eq(symlink(r2, p), 0);
    snprintf(p, sizeof(p), "%s/loop", r1);
    ck_assert_int_eq(symlink("loop", p), 0);
    snprintf(p, sizeof(p), "%s/abs-in.pt2", r1);
    snprintf(real, sizeof(real), "%s/d/c.pt2", r1);
    ck_assert_int_eq(symlink(real, p), 0);
    roots[0] = r1;
    roots[1] = r2;
    /* A directory link out of the root, to "/" and by "..": the existence oracle's shape. */
    snprintf(p, sizeof(p), "%s/slash", r1);
    ck_assert_int_eq(symlink("/", p), 0);
    snprintf(p, sizeof(p), "%s/d/up", r1);
    ck_assert_int_eq(symlink("../..", p), 0);
    snprintf(p, sizeof(p), "%s/d/back", r1);
    ck_assert_int_eq(symlink("../d/./c.pt2", p), 0);
    have_openat2 = pt2d_path_roots_open(root_fds, roots, 2);
    ck_assert_int_ge(root_fds[0], 0);
    ck_assert_int_ge(root_fds[1], 0);
}

static void teardown(void)
{
    char cmd[300];

    pt2d_path_roots_close(root_fds, 2);
    ck_assert_int_eq(root_fds[0], -1);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
    ck_assert_int_eq(system(cmd), 0);
}

/* One way (fds NULL: by name); on success `content` becomes "<first bytes>|<name>". */
static int try_open_with(const int *fds, const char *rel, size_t nroots, struct pt2_error *err,
                         char *content)
{
    struct pt2d_path_file pf;
    char head[16];
    int rc;

    pt2_error_clear(err);
    content[0] = '\0';
    rc = fds == NULL ? pt2d_path_open(roots, nroots, rel, &pf, err)
                     : pt2d_path_open_at(roots, fds, nroots, rel, &pf, err);
    if (rc == PT2_OK) {
        ssize_t n = pread(pf.fd, head, sizeof(head) - 1, 0);
        ck_assert_int_ge(n, 0);
        head[n] = '\0';
        ck_assert(S_ISREG(pf.st.st_mode));
        ck_assert_int_eq(fcntl(pf.fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
        ck_assert_int_eq(fcntl(pf.fd, F_GETFL) & O_NONBLOCK, 0);
        close(pf.fd);
        snprintf(content, 64, "%s|%.32s", head, pf.name);
    } else {
        ck_assert_int_eq(pf.fd, -1);
    }
    return rc;
}

/* pt2d_path_stat_at: the same answer as the open, nothing left open, the same identity. */
static void try_stat_with(const char *rel, size_t nroots, int rc, const struct pt2_error *err,
                          const char *content)
{
    struct pt2d_path_file pf;
    struct pt2_error e;
    const char *bar = strchr(content, '|');

    pt2_error_clear(&e);
    ck_assert_int_eq(pt2d_path_stat_at(roots, root_fds, nroots, rel, &pf, &e), rc);
    ck_assert_str_eq(e.message, err->message);
    ck_assert_int_eq(pf.fd, -1);
    if (rc == PT2_OK) {
        ck_assert(S_ISREG(pf.st.st_mode));
        ck_assert_str_eq(pf.name, bar + 1);
    }
}

/* All three ways, which must agree, and the stat alone both ways; `err` and `content`
 * are the by-name ones. */
static int try_open(const char *rel, size_t nroots, struct pt2_error *err, char *content)
{
    struct pt2_error err2;
    char content2[64];
    int rc = try_open_with(NULL, rel, nroots, err, content), walk;

    for (walk = 0; walk < 2; walk++) {
        pt2d_path_test_force_walk(walk);
        ck_assert_int_eq(try_open_with(root_fds, rel, nroots, &err2, content2), rc);
        try_stat_with(rel, nroots, rc, err, content);
        pt2d_path_test_force_walk(0);
        ck_assert_str_eq(err2.message, err->message);
        ck_assert_str_eq(content2, content);
    }
    return rc;
}

START_TEST(test_open_inside)
{
    struct pt2_error err;
    char c[64];

    ck_assert_int_eq(try_open("a.pt2", 2, &err, c), PT2_OK);
    ck_assert_str_eq(c, "one|a.pt2"); /* first root wins */
    ck_assert_int_eq(try_open("b.pt2", 2, &err, c), PT2_OK);
    ck_assert_str_eq(c, "bee|b.pt2");
    ck_assert_int_eq(try_open("d/c.pt2", 2, &err, c), PT2_OK);
    ck_assert_str_eq(c, "see|c.pt2");
    ck_assert_int_eq(try_open("./d//c.pt2", 2, &err, c), PT2_OK);
    ck_assert_int_eq(try_open("in.pt2", 2, &err, c), PT2_OK);
    ck_assert_str_eq(c, "see|in.pt2");
}
END_TEST

START_TEST(test_refusals)
{
    struct pt2_error err;
    char c[64];

    ck_assert_int_eq(try_open("../secret.pt2", 2, &err, c), PT2_ERR_OUTSIDE_ROOT);
    ck_assert_str_eq(err.message,
                     "path '../secret.pt2' contains '..'; it must stay inside a model root");
    ck_assert_int_eq(try_open("d/..", 2, &err, c), PT2_ERR_OUTSIDE_ROOT);
    ck_assert_int_eq(try_open("/etc/hostname", 2, &err, c), PT2_ERR_OUTSIDE_ROOT);
    ck_assert_str_eq(err.message,
                     "path '/etc/hostname' is absolute; name a file relative to a model root");
    ck_assert_int_eq(try_open("out.pt2", 2, &err, c), PT2_ERR_OUTSIDE_ROOT);
    ck_assert_str_eq(err.message, "path 'out.pt2' resolves outside its model root");
    ck_assert_int_eq(try_open("rel-out.pt2", 2, &err, c), PT2_ERR_OUTSIDE_ROOT);
    /* Into another root is still out of this one. */
    ck_assert_int_eq(try_open("to-r2/b.pt2", 2, &err, c), PT2_ERR_OUTSIDE_ROOT);
    ck_assert_int_eq(try_open("", 2, &err, c), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "path is empty");
    ck_assert_int_eq(try_open("loop", 2, &err, c), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "path 'loop': too many symlinks");
    ck_assert_int_eq(try_open("a.pt2", 0, &err, c), PT2_ERR_OUTSIDE_ROOT);
    ck_assert_str_eq(err.message, "path references are disabled: no --model-root is configured");
}
END_TEST

/* Through a link out of the root, what lies beyond changes nothing: one 403, same words. */
START_TEST(test_no_existence_oracle)
{
    static const char *const out[] = {
        "slash/etc/hostname", "slash/etc/nonexistent", "slash/nonexistent/x", "slash",
        "d/up/secret.pt2",    "d/up/nonexistent.pt2",  "d/up/r1/a.pt2"};
    struct pt2_error err;
    char c[64], want[128];
    size_t i;

    for (i = 0; i < sizeof(out) / sizeof(out[0]); i++) {
        ck_assert_int_eq(try_open(out[i], 2, &err, c), PT2_ERR_OUTSIDE_ROOT);
        snprintf(want, sizeof(want), "path '%s' resolves outside its model root", out[i]);
        ck_assert_str_eq(err.message, want);
    }
    /* ".." inside a link's text, staying inside, is fine. */
    ck_assert_int_eq(try_open("d/back", 2, &err, c), PT2_OK);
    ck_assert_str_eq(c, "see|back");
    ck_assert_int_eq(try_open("a.pt2/", 2, &err, c), PT2_ERR_NOT_FOUND);
}
END_TEST

START_TEST(test_missing_and_not_regular)
{
    struct pt2_error err;
    char c[64], p[400];

    ck_assert_int_eq(try_open("nope.pt2", 2, &err, c), PT2_ERR_NOT_FOUND);
    ck_assert_str_eq(err.message, "no package 'nope.pt2' under any model root");
    ck_assert_int_eq(try_open("a.pt2/x", 2, &err, c), PT2_ERR_NOT_FOUND);
    ck_assert_int_eq(try_open("d", 2, &err, c), PT2_ERR_NOT_FOUND);
    ck_assert_str_eq(err.message, "'d' is not a regular file");
    snprintf(p, sizeof(p), "%s/fifo.pt2", r1);
    ck_assert_int_eq(mkfifo(p, 0600), 0);
    ck_assert_int_eq(try_open("fifo.pt2", 2, &err, c), PT2_ERR_NOT_FOUND);
    ck_assert_str_eq(err.message, "'fifo.pt2' is not a regular file");
    /* A unix socket cannot be opened at all (ENXIO): judged by its O_PATH stat, it is a 404. */
    {
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);

        ck_assert_int_ge(fd, 0);
        snprintf(p, sizeof(p), "%s/sock.pt2", r1);
        ck_assert_uint_lt(strlen(p), sizeof(sa.sun_path));
        memcpy(sa.sun_path, p, strlen(p) + 1);
        ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
        ck_assert_int_eq(try_open("sock.pt2", 2, &err, c), PT2_ERR_NOT_FOUND);
        ck_assert_str_eq(err.message, "'sock.pt2' is not a regular file");
        close(fd);
    }
    /* A device (a tty where one can be made): never opened, so never a controlling tty. */
    snprintf(p, sizeof(p), "%s/tty.pt2", r1);
    if (mknod(p, S_IFCHR | 0600, makedev(5, 0)) == 0) {
        ck_assert_int_eq(try_open("tty.pt2", 2, &err, c), PT2_ERR_NOT_FOUND);
        ck_assert_str_eq(err.message, "'tty.pt2' is not a regular file");
    }
    /* Through a link to a FIFO too. */
    snprintf(p, sizeof(p), "%s/to-fifo", r1);
    ck_assert_int_eq(symlink("fifo.pt2", p), 0);
    ck_assert_int_eq(try_open("to-fifo", 2, &err, c), PT2_ERR_NOT_FOUND);
    ck_assert_str_eq(err.message, "'to-fifo' is not a regular file");
}
END_TEST

/* An absolute symlink that stays inside: openat2 refuses it (EXDEV), the fallback accepts. */
START_TEST(test_absolute_link_inside)
{
    struct pt2_error err;
    char c[64];

    ck_assert_int_eq(try_open("abs-in.pt2", 2, &err, c), PT2_OK);
    ck_assert_str_eq(c, "see|abs-in.pt2");
    /* All descriptors -1 is the by-name path alone. */
    {
        const int none[2] = {-1, -1};
        ck_assert_int_eq(try_open_with(none, "abs-in.pt2", 2, &err, c), PT2_OK);
        ck_assert_str_eq(c, "see|abs-in.pt2");
        ck_assert_int_eq(try_open_with(none, "out.pt2", 2, &err, c), PT2_ERR_OUTSIDE_ROOT);
        ck_assert_str_eq(err.message, "path 'out.pt2' resolves outside its model root");
    }
}
END_TEST

/* A replaced file is a new identity; a link swapped to point outside is refused at once. */
START_TEST(test_replaced)
{
    struct pt2d_path_file pf;
    struct pt2_error err = {0};
    struct stat before;
    char p[400], tmp[400], c[64];

    ck_assert_int_eq(pt2d_path_open_at(roots, root_fds, 2, "a.pt2", &pf, &err), PT2_OK);
    before = pf.st;
    close(pf.fd);
    snprintf(p, sizeof(p), "%s/a.pt2", r1);
    snprintf(tmp, sizeof(tmp), "%s/a.pt2.new", r1);
    put(tmp, "uno");
    ck_assert_int_eq(rename(tmp, p), 0);
    ck_assert_int_eq(pt2d_path_open_at(roots, root_fds, 2, "a.pt2", &pf, &err), PT2_OK);
    ck_assert(pf.st.st_ino != before.st_ino);
    close(pf.fd);
    ck_assert_int_eq(try_open("a.pt2", 2, &err, c), PT2_OK);
    ck_assert_str_eq(c, "uno|a.pt2");
    snprintf(p, sizeof(p), "%s/in.pt2", r1);
    ck_assert_int_eq(unlink(p), 0);
    ck_assert_int_eq(symlink("../secret.pt2", p), 0);
    ck_assert_int_eq(try_open("in.pt2", 2, &err, c), PT2_ERR_OUTSIDE_ROOT);
    ck_assert_str_eq(err.message, "path 'in.pt2' resolves outside its model root");
}
END_TEST

/* The descriptors are what the fast path resolves from: a renamed root still answers. */
START_TEST(test_root_descriptor_used)
{
    struct pt2_error err;
    char moved[400], c[64];

    if (!have_openat2)
        return; /* no openat2 here: pt2d_path_open_at() is the by-name path */
    snprintf(moved, sizeof(moved), "%s/r1-moved", base);
    ck_assert_int_eq(rename(r1, moved), 0);
    ck_assert_int_eq(try_open_with(root_fds, "d/c.pt2", 1, &err, c), PT2_OK);
    ck_assert_str_eq(c, "see|c.pt2");
    ck_assert_int_eq(try_open_with(NULL, "d/c.pt2", 1, &err, c), PT2_ERR_NOT_FOUND);
    ck_assert_int_eq(rename(moved, r1), 0);
}
END_TEST

/* A random path of `comps` names, ".." and "." among them when `dots`. */
static void rnd_path(unsigned *seed, char *out, size_t cap, int comps, int dots)
{
    static const char *const names[] = {"a", "b", "c", "d.pt2", "..", "."};
    int i;

    out[0] = '\0';
    for (i = 0; i < comps; i++)
        snprintf(out + strlen(out), cap - strlen(out), "%s%s", i ? "/" : "",
                 names[rand_r(seed) % (dots ? 6 : 4)]);
}

/*
 * Seeded random trees of files, directories and links (relative ones that
 * may climb out and back, absolute ones inside and out, loops): openat2 and
 * the forced walk agree on every result and message, and nothing opened
 * lies outside the root.
 */
START_TEST(test_random_trees_agree)
{
    char rel[256], t[PATH_MAX], p[PATH_MAX + 300], link[64], real[PATH_MAX];
    unsigned seed = 24u + (unsigned)_i;
    int fds[1], i, k, ra, rb, rs;
    const char *rr[1] = {r1};
    struct pt2d_path_file fa, fb, fs;
    struct pt2_error ea, eb, es;
    ssize_t n;

    for (i = 0; i < 80; i++) {
        rnd_path(&seed, rel, sizeof(rel), 1 + (int)(rand_r(&seed) % 3), 0);
        snprintf(p, sizeof(p), "%s/%s", r1, rel);
        k = (int)(rand_r(&seed) % 6);
        if (k == 0)
            mkdir(p, 0700);
        else if (k == 1) {
            FILE *f = fopen(p, "w"); /* fails where a parent is missing or not a directory */
            if (f != NULL)
                fclose(f);
        } else if (k == 2)
            rnd_path(&seed, t, sizeof(t), 1 + (int)(rand_r(&seed) % 4), 1);
        else if (k == 3) {
            rnd_path(&seed, rel, sizeof(rel), 1 + (int)(rand_r(&seed) % 2), 0);
            snprintf(t, sizeof(t), "%s/%s", r1, rel);
        } else if (k == 4)
            snprintf(t, sizeof(t), "%s%s", base, rand_r(&seed) % 2 ? "" : "/secret.pt2");
        else
            snprintf(t, sizeof(t), "../%s", rand_r(&seed) % 2 ? "r2" : "r1/a.pt2");
        if (k >= 2)
            (void)symlink(t, p);
    }
    ck_assert_int_eq(pt2d_path_roots_open(fds, rr, 1), have_openat2);
    for (i = 0; i < 3000; i++) {
        rnd_path(&seed, rel, sizeof(rel), 1 + (int)(rand_r(&seed) % 4), 0);
        pt2_error_clear(&ea);
        pt2_error_clear(&eb);
        ra = pt2d_path_open_at(rr, fds, 1, rel, &fa, &ea);
        pt2d_path_test_force_walk(1);
        rb = pt2d_path_open_at(rr, fds, 1, rel, &fb, &eb);
        pt2d_path_test_force_walk(0);
        ck_assert_msg(ra == rb && strcmp(ea.message, eb.message) == 0, "%s: %d '%s' / %d '%s'", rel,
                      ra, ea.message, rb, eb.message);
        pt2_error_clear(&es);
        rs = pt2d_path_stat_at(rr, fds, 1, rel, &fs, &es);
        ck_assert_msg(rs == ra && strcmp(es.message, ea.message) == 0 && fs.fd == -1,
                      "%s: stat %d '%s' / open %d '%s'", rel, rs, es.message, ra, ea.message);
        if (ra != PT2_OK)
            continue;
        ck_assert(fa.st.st_ino == fb.st.st_ino);
        ck_assert(fs.st.st_ino == fa.st.st_ino && fs.st.st_dev == fa.st.st_dev);
        snprintf(link, sizeof(link), "/proc/self/fd/%d", fa.fd);
        n = readlink(link, real, sizeof(real) - 1);
        ck_assert_int_gt(n, 0);
        real[n] = '\0';
        ck_assert_msg(strncmp(real, r1, strlen(r1)) == 0 && real[strlen(r1)] == '/', "%s -> %s",
                      rel, real);
        close(fa.fd);
        close(fb.fd);
    }
    pt2d_path_roots_close(fds, 1);
}
END_TEST

#ifdef SYS_openat2
/* In this process from now on, openat2 fails with `e` (a seccomp filter): 0, or -1. */
static int refuse_openat2(int e)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned)e & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {(unsigned short)(sizeof(f) / sizeof(f[0])), f};

    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0 ? 0 : -1;
}
#endif

/*
 * openat2 refused after the roots were probed (a seccomp filter put in place
 * since, or a caller that never probed): every lookup still answers, by the
 * name in the root for a top-level file (no openat2 needed) and by the walk
 * for a deeper one. In a child, which the filter then binds for good.
 */
START_TEST(test_openat2_refused_later)
{
#ifdef SYS_openat2
    int e, status;
    pid_t pid;

    if (!have_openat2)
        return; /* refused already: every lookup is the walk */
    for (e = 0; e < 2; e++) {
        pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
            struct pt2_error err = {0};
            char c[64];
            int bad;

            if (refuse_openat2(e ? EPERM : ENOSYS) != 0)
                _exit(2); /* no seccomp filters here */
            bad = try_open_with(root_fds, "a.pt2", 2, &err, c) != PT2_OK ||
                  strcmp(c, "one|a.pt2") != 0;
            bad = bad || try_open_with(root_fds, "d/c.pt2", 2, &err, c) != PT2_OK ||
                  strcmp(c, "see|c.pt2") != 0;
            bad = bad || try_open_with(root_fds, "out.pt2", 2, &err, c) != PT2_ERR_OUTSIDE_ROOT;
            _exit(bad ? 1 : 0);
        }
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 2) {
            tu_skip("openat2 refused later", "this kernel or sandbox takes no seccomp filter");
            return;
        }
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                      "openat2 refused with %s: a lookup failed", e ? "EPERM" : "ENOSYS");
    }
#endif
}
END_TEST

START_TEST(test_too_long)
{
    struct pt2_error err;
    char *p = malloc(PT2D_PATH_MAX + 1), c[64];

    memset(p, 'a', PT2D_PATH_MAX);
    p[PT2D_PATH_MAX] = '\0';
    ck_assert_int_eq(try_open(p, 2, &err, c), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "path is longer than 4095 bytes");
    free(p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pt2d_path");
    TCase *tc = tcase_create("core");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_open_inside);
    tcase_add_test(tc, test_refusals);
    tcase_add_test(tc, test_no_existence_oracle);
    tcase_add_test(tc, test_missing_and_not_regular);
    tcase_add_test(tc, test_absolute_link_inside);
    tcase_add_test(tc, test_replaced);
    tcase_add_test(tc, test_root_descriptor_used);
    tcase_add_test(tc, test_too_long);
    tcase_add_test(tc, test_openat2_refused_later);
    tcase_add_loop_test(tc, test_random_trees_agree, 0, 3);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
