/*
 * test_http_edges.c - the edges a client can reach on purpose: a package
 * rewritten in place with its old mtime, a file the server may not read, a
 * path component longer than any name, and a broken spool. Each must be a
 * specific answer (a client's mistake a 4xx, never a 500 anyone can cause),
 * and no answer may name a server-side path.
 */
#include "http_harness.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "pt2scope.h"

static struct th_server T;

static void setup(void)
{
    th_config(&T);
    th_start(&T);
}

static void teardown(void)
{
    th_stop(&T);
}

/* A fixture copied to `to` with exactly `mode`, whatever the umask. */
static void copy_fixture(const char *to, mode_t mode)
{
    char src[256];

    th_copy_file(tu_fixture("cpu_x86_64.pt2", src, sizeof(src)), to);
    ck_assert_int_eq(chmod(to, mode), 0);
}

/*
 * rsync --inplace -t or cp -p over the same file: same inode, same size, the
 * old mtime back. Only the ctime (which no one can set back) tells.
 */
START_TEST(test_inplace_rewrite_with_old_mtime_is_noticed)
{
    char dst[512], etag[128], hdr[160], zeros[4096] = {0};
    const char *hl[] = {hdr, NULL};
    struct timespec times[2];
    struct th_resp r = {0};
    struct stat before, after;
    off_t left;
    int fd;

    snprintf(dst, sizeof(dst), "%s/m.pt2", T.root2);
    copy_fixture(dst, 0644);
    ck_assert_int_eq(stat(dst, &before), 0);
    th_get(T.base, "/v1/inspect?path=m.pt2", &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert(th_header(&r, "ETag", etag, sizeof(etag)));
    th_resp_free(&r);

    /* Same size, in place: the bytes are no zip any more. */
    fd = open(dst, O_WRONLY | O_CLOEXEC);
    ck_assert_int_ge(fd, 0);
    for (left = before.st_size; left > 0; left -= (off_t)sizeof(zeros))
        ck_assert_int_gt(
            write(fd, zeros, left < (off_t)sizeof(zeros) ? (size_t)left : sizeof(zeros)), 0);
    close(fd);
    times[0] = before.st_atim;
    times[1] = before.st_mtim;
    /* The kernel's coarse clock may not have ticked since the copy: restore until the
     * ctime differs, which is the state a real rewrite leaves. */
    do {
        ck_assert_int_eq(utimensat(AT_FDCWD, dst, times, 0), 0);
        ck_assert_int_eq(stat(dst, &after), 0);
    } while (after.st_ctim.tv_sec == before.st_ctim.tv_sec &&
             after.st_ctim.tv_nsec == before.st_ctim.tv_nsec);
    ck_assert_int_eq(after.st_ino, before.st_ino);
    ck_assert_int_eq(after.st_size, before.st_size);
    ck_assert_int_eq(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
    ck_assert_int_eq(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);

    /* The old answer's tag is no longer valid, and the new content is answered. */
    snprintf(hdr, sizeof(hdr), "If-None-Match: %s", etag);
    struct th_req rq = {.path = "/v1/inspect?path=m.pt2", .headers = hl};
    th_do(T.base, &rq, &r);
    ck_assert_int_eq(r.status, 422);
    ck_assert_ptr_nonnull(strstr(r.body, "\"type\":\"https://pt2scope.dev/problems/not-a-zip\""));
    th_resp_free(&r);
}
END_TEST

/* A component longer than NAME_MAX cannot name a package: 404, as any missing name. */
START_TEST(test_overlong_component_is_not_found)
{
    char path[400], name[300];
    struct th_resp r = {0};

    memset(name, 'a', 256);
    name[256] = '\0';
    snprintf(path, sizeof(path), "/v1/inspect?path=%s.pt2", name);
    th_get(T.base, path, &r);
    ck_assert_int_eq(r.status, 404);
    ck_assert_ptr_nonnull(strstr(r.body, "\"type\":\"https://pt2scope.dev/problems/not-found\""));
    th_resp_free(&r);
    snprintf(path, sizeof(path), "/v1/inspect?path=%s/m.pt2", name);
    th_get(T.base, path, &r);
    ck_assert_int_eq(r.status, 404);
    th_resp_free(&r);
}
END_TEST

/* The scenario of test_unreadable_is_forbidden, as a user the permission bits bind. */
static int forbidden_scenario(const char *dir)
{
    struct th_resp r = {0};
    int bad = 0;

    th_get(T.base, "/v1/inspect?path=secret.pt2", &r);
    bad |= r.status != 403;
    bad |= r.body == NULL ||
           strstr(r.body, "\"type\":\"https://pt2scope.dev/problems/forbidden\"") == NULL ||
           strstr(r.body, "\"detail\":\"path 'secret.pt2' cannot be read\"") == NULL;
    /* Neither why (permission) nor where (the root's real path). */
    bad |= r.body == NULL || strstr(r.body, "ermission") != NULL || strstr(r.body, dir) != NULL;
    th_resp_free(&r);
    return bad;
}

/* A package the server may not read is the client's dead end (403), not a server failure. */
START_TEST(test_unreadable_is_forbidden)
{
    char dir[] = "/tmp/pt2d-forbid-XXXXXX", dst[300];
    pid_t pid;
    int status;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(chmod(dir, 0755), 0);
    snprintf(dst, sizeof(dst), "%s/secret.pt2", dir);
    copy_fixture(dst, 0);
    th_config(&T);
    snprintf(T.cfg.roots[1], sizeof(T.cfg.roots[1]), "%s", dir);
    if (geteuid() != 0) {
        th_start(&T);
        ck_assert_int_eq(forbidden_scenario(dir), 0);
        th_stop(&T);
    } else {
        /* root reads every file: run the daemon as nobody, in a child of this test. */
        pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
            if (setgid(65534) != 0 || setuid(65534) != 0)
                _exit(3);
            th_start(&T);
            status = forbidden_scenario(dir);
            pt2d_server_free(T.srv);
            _exit(status);
        }
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        ck_assert(WIFEXITED(status));
        ck_assert_int_eq(WEXITSTATUS(status), 0);
        th_rm_tree(T.spool);
        th_rm_tree(T.root2);
    }
    ck_assert_int_eq(unlink(dst), 0);
    ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/*
 * A spool that fails every upload: /readyz sends traffic elsewhere, an
 * upload that needs it (kept whole, past the 8 MiB held in memory) is a 500
 * whose detail (it names the spool directory) stays in the access log.
 */
START_TEST(test_broken_spool_unready_and_detail_withheld)
{
    static char body[9u << 20];
    struct th_req rq = {.method = "POST",
                        .path = "/v1/inspect?stream=0",
                        .body = body,
                        .body_len = sizeof(body),
                        .ctype = "application/octet-stream"};
    struct th_resp r = {0};
    char *log;
    int i, found = 0;

    th_get(T.base, "/readyz", &r);
    ck_assert_int_eq(r.status, 200);
    th_resp_free(&r);
    ck_assert_int_eq(rmdir(T.spool), 0);

    th_get(T.base, "/readyz", &r);
    ck_assert_int_eq(r.status, 503);
    ck_assert_str_eq(r.body, "spool unavailable\n");
    th_resp_free(&r);

    th_do(T.base, &rq, &r);
    ck_assert_int_eq(r.status, 500);
    ck_assert_ptr_nonnull(strstr(r.body, "\"detail\":\"the server failed; its log has the details "
                                         "under this request's id\""));
    ck_assert_ptr_null(strstr(r.body, T.spool));
    th_resp_free(&r);
    /* The access record is written once the response is out: wait for it (bounded). */
    for (i = 0; i < 2000; i++) {
        log = th_log_text(&T);
        found = strstr(log, "\"status\":500") != NULL && strstr(log, T.spool) != NULL;
        if (found || i == 1999)
            break;
        free(log);
        th_sleep_ms(5);
    }
    ck_assert_msg(found, "the access log keeps the detail: %s", log);
    free(log);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("http_edges");
    TCase *tc = tcase_create("core");
    TCase *own = tcase_create("own-server");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_inplace_rewrite_with_old_mtime_is_noticed);
    tcase_add_test(tc, test_overlong_component_is_not_found);
    tcase_add_test(tc, test_broken_spool_unready_and_detail_withheld);
    suite_add_tcase(s, tc);
    tcase_add_test(own, test_unreadable_is_forbidden);
    suite_add_tcase(s, own);
    return s;
}

int main(void)
{
    return th_main("http_edges", "cpu_x86_64.pt2", suite);
}
