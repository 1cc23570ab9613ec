/*
 * bench_startup.c - start-up time of pt2scoped (exec to the first
 * `200` from /readyz) and its idle resident memory.
 *
 * Each run forks and execs DAEMON with its arguments plus `--listen
 * 127.0.0.1:0 --port-file DIR/startup.port`, waits for the port file, then
 * polls GET /readyz over a fresh connection every 0.2 ms until it answers
 * 200. Idle RSS is VmRSS from /proc/PID/status SU_IDLE_MS after that. The
 * daemon is then stopped with SIGTERM and the stop time measured too; its
 * output goes to DIR/startup.log. A process spawner of our own, not a shell
 * loop around curl, because the 50 ms target is finer than the cost of
 * starting curl.
 *
 * usage: bench_startup OUT.json RUNS DIR DAEMON [ARGS...]
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#define SU_RUNS_MAX 50u
#define SU_ARGS_MAX 64u
#define SU_POLL_NS 200000L     /* 0.2 ms between probes */
#define SU_DEADLINE_MS 10000.0 /* a start-up slower than this is a failure */
#define SU_IDLE_MS 500u        /* settle time before reading the idle RSS */
#define SU_PATH_MAX 4096u

struct su_run {
    double ready_ms;   /* exec to the first 200 from /readyz */
    double stop_ms;    /* SIGTERM to exit */
    long idle_rss_kib; /* VmRSS after SU_IDLE_MS idle */
    int exit_status;
};

static double su_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void su_nap(long ns)
{
    struct timespec ts = {0, ns};

    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* The port in `path`, or 0 while the file is absent or incomplete. */
static unsigned su_read_port(const char *path)
{
    char buf[32], *end = NULL;
    unsigned long v;
    ssize_t n;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return 0;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    errno = 0;
    v = strtoul(buf, &end, 10);
    if (errno == ERANGE || end == buf || (*end != '\n' && *end != '\0') || v == 0 || v > 65535)
        return 0;
    return (unsigned)v;
}

/* 1 if GET /readyz answers 200 now, 0 otherwise (refused, not ready, short answer). */
static int su_ready(unsigned port)
{
    static const char req[] =
        "GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    struct sockaddr_in sa;
    char buf[64];
    size_t have = 0;
    int fd, ok = 0;

    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return 0;
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
        send(fd, req, sizeof(req) - 1, MSG_NOSIGNAL) != (ssize_t)(sizeof(req) - 1))
        goto cleanup;
    while (have < 12) {
        ssize_t n = recv(fd, buf + have, sizeof(buf) - 1 - have, 0);

        if (n <= 0)
            goto cleanup;
        have += (size_t)n;
    }
    ok = memcmp(buf, "HTTP/1.1 200", 12) == 0;
cleanup:
    close(fd);
    return ok;
}

static long su_rss_kib(pid_t pid)
{
    char path[64], line[256];
    long kib = -1;
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
    f = fopen(path, "r");
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof(line), f) != NULL) {
        if (strncmp(line, "VmRSS:", 6) == 0) {
            char *end = NULL;

            errno = 0;
            kib = strtol(line + 6, &end, 10);
            if (errno == ERANGE || end == line + 6)
                kib = -1;
            break;
        }
    }
    fclose(f);
    return kib;
}

static int su_one(struct su_run *r, char **argv, const char *port_file, const char *log_file)
{
    double t0, deadline;
    unsigned port = 0;
    pid_t pid;
    int status;

    unlink(port_file);
    t0 = su_now_ms();
    pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        /* The access log goes to a file, as it would to a collector, not to our terminal. */
        int fd = open(log_file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

        if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0)
            _exit(126);
        execv(argv[0], argv);
        _exit(127);
    }
    deadline = t0 + SU_DEADLINE_MS;
    while (su_now_ms() < deadline) {
        if (port == 0)
            port = su_read_port(port_file);
        if (port != 0 && su_ready(port))
            break;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            fprintf(stderr, "bench_startup: %s exited during start-up (status %d)\n", argv[0],
                    status);
            return -1;
        }
        su_nap(SU_POLL_NS);
    }
    r->ready_ms = su_now_ms() - t0;
    if (r->ready_ms >= SU_DEADLINE_MS) {
        fprintf(stderr, "bench_startup: %s not ready after %.0f ms\n", argv[0], SU_DEADLINE_MS);
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        return -1;
    }
    su_nap(SU_IDLE_MS * 1000000L);
    r->idle_rss_kib = su_rss_kib(pid);
    t0 = su_now_ms();
    kill(pid, SIGTERM);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    r->stop_ms = su_now_ms() - t0;
    r->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return 0;
}

static int su_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static double su_median(double *v, size_t n)
{
    qsort(v, n, sizeof(*v), su_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

static int su_write(const char *out, const struct su_run *runs, size_t n)
{
    double ready[SU_RUNS_MAX], rss[SU_RUNS_MAX], stop[SU_RUNS_MAX];
    cJSON *doc = cJSON_CreateObject(), *arr = NULL;
    char *text = NULL;
    FILE *f = NULL;
    size_t i;
    int rc = -1;

    if (doc == NULL)
        goto cleanup;
    arr = cJSON_AddArrayToObject(doc, "runs");
    if (arr == NULL)
        goto cleanup;
    for (i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();

        if (o == NULL)
            goto cleanup;
        cJSON_AddItemToArray(arr, o);
        if (cJSON_AddNumberToObject(o, "ready_ms", runs[i].ready_ms) == NULL ||
            cJSON_AddNumberToObject(o, "idle_rss_kib", (double)runs[i].idle_rss_kib) == NULL ||
            cJSON_AddNumberToObject(o, "stop_ms", runs[i].stop_ms) == NULL ||
            cJSON_AddNumberToObject(o, "exit_status", runs[i].exit_status) == NULL)
            goto cleanup;
        ready[i] = runs[i].ready_ms;
        rss[i] = (double)runs[i].idle_rss_kib;
        stop[i] = runs[i].stop_ms;
    }
    if (cJSON_AddStringToObject(doc, "benchmark", "startup") == NULL ||
        cJSON_AddNumberToObject(doc, "ready_ms_median", su_median(ready, n)) == NULL ||
        cJSON_AddNumberToObject(doc, "ready_ms_max", ready[n - 1]) == NULL ||
        cJSON_AddNumberToObject(doc, "idle_rss_kib_median", su_median(rss, n)) == NULL ||
        cJSON_AddNumberToObject(doc, "stop_ms_median", su_median(stop, n)) == NULL)
        goto cleanup;
    text = cJSON_Print(doc);
    if (text == NULL)
        goto cleanup;
    f = fopen(out, "w");
    if (f == NULL || fputs(text, f) == EOF || fputc('\n', f) == EOF)
        goto cleanup;
    printf("start-up to /readyz: median %.1f ms, max %.1f ms; idle RSS %.0f KiB; stop %.1f ms\n",
           su_median(ready, n), ready[n - 1], su_median(rss, n), su_median(stop, n));
    rc = 0;
cleanup:
    if (f != NULL && fclose(f) != 0)
        rc = -1;
    if (rc != 0)
        fprintf(stderr, "bench_startup: cannot write %s\n", out);
    free(text);
    cJSON_Delete(doc);
    return rc;
}

int main(int argc, char **argv)
{
    struct su_run runs[SU_RUNS_MAX];
    char *args[SU_ARGS_MAX + 6], port_file[SU_PATH_MAX], log_file[SU_PATH_MAX], *end = NULL;
    unsigned long nruns;
    size_t nargs = 0, i;
    int k;

    if (argc < 5 || (size_t)(argc - 4) > SU_ARGS_MAX) {
        fprintf(stderr, "usage: %s OUT.json RUNS DIR DAEMON [ARGS...]\n", argv[0]);
        return 2;
    }
    errno = 0;
    nruns = strtoul(argv[2], &end, 10);
    if (errno == ERANGE || end == argv[2] || *end != '\0' || nruns == 0 || nruns > SU_RUNS_MAX) {
        fprintf(stderr, "bench_startup: RUNS must be 1..%u\n", SU_RUNS_MAX);
        return 2;
    }
    if (snprintf(port_file, sizeof(port_file), "%s/startup.port", argv[3]) >=
            (int)sizeof(port_file) ||
        snprintf(log_file, sizeof(log_file), "%s/startup.log", argv[3]) >= (int)sizeof(log_file)) {
        fprintf(stderr, "bench_startup: directory name too long\n");
        return 2;
    }
    for (k = 4; k < argc; k++)
        args[nargs++] = argv[k];
    args[nargs++] = "--listen";
    args[nargs++] = "127.0.0.1:0";
    args[nargs++] = "--port-file";
    args[nargs++] = port_file;
    args[nargs] = NULL;
    for (i = 0; i < nruns; i++) {
        if (su_one(&runs[i], args, port_file, log_file) < 0)
            return 1;
    }
    unlink(port_file);
    return su_write(argv[1], runs, (size_t)nruns) < 0 ? 1 : 0;
}
