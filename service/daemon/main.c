/*
 * main.c - pt2scoped: flags, signals, port file, run until SIGTERM/SIGINT.
 *
 * Signals are blocked in every thread (the mask is set before any thread
 * starts and is inherited) and read from a signalfd here, so no work ever
 * runs in a signal handler. The first SIGTERM/SIGINT drains: with
 * --drain-delay N, first N seconds of serving as usual while /readyz fails
 * (Kubernetes sends SIGTERM as it starts removing the pod from endpoints;
 * kube-proxy and load balancers route here for seconds more), then stop
 * accepting: jobs still queued are answered 503 at once, running ones get
 * --drain-timeout seconds (25) to finish, then the process exits (0 when
 * nothing was left, 1 otherwise) without waiting for a worker stuck in a
 * job. A second signal, at any point, exits at once: cleanly when nothing
 * runs, else with _exit, since a worker thread in a job cannot be
 * interrupted and a clean teardown would join it.
 *
 * SIGHUP, at any point, re-reads --token-file (pt2d_server_reload) and is
 * otherwise ignored: it neither starts nor shortens a drain.
 *
 * --healthcheck runs none of that: it asks the configured address's /livez
 * once (pt2d_health.h) and exits 0 or 1, the container HEALTHCHECK's
 * convention; even a bad setting is 1 there, never 2.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "pt2d_config.h"
#include "pt2d_health.h"
#include "pt2d_log.h"
#include "pt2d_server.h"
#include "pt2scope.h"

#define DRAIN_STEP_MS 200

extern char **environ;

static int write_port_file(const char *path, unsigned port)
{
    char tmp[PT2D_PATH_MAX + 32];
    FILE *f;
    int ok;

    /* Write then rename, so a test polling the file never reads half a number. */
    snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
    f = fopen(tmp, "w");
    if (f == NULL)
        return -1;
    ok = fprintf(f, "%u\n", port) > 0;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

static long long mono_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Wait for the next SIGTERM/SIGINT, up to timeout_ms (-1 = forever). 1 = got one. A SIGHUP
 * on the way re-reads the token file and the wait goes on to the same deadline.
 */
static int wait_signal(int sfd, int timeout_ms, struct pt2d_server *srv)
{
    struct pollfd pfd = {sfd, POLLIN, 0};
    struct signalfd_siginfo si;
    long long deadline = timeout_ms >= 0 ? mono_ms() + timeout_ms : -1;

    for (;;) {
        long long left = deadline >= 0 ? deadline - mono_ms() : -1;
        int n = poll(&pfd, 1, deadline < 0 ? -1 : left > 0 ? (int)left : 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        if (read(sfd, &si, sizeof(si)) != (ssize_t)sizeof(si))
            continue;
        if (si.ssi_signo != SIGHUP)
            return 1;
        pt2d_server_reload(srv);
    }
}

int main(int argc, char **argv)
{
    struct pt2d_config cfg;
    struct pt2_error err = {0};
    struct pt2d_server *srv = NULL;
    sigset_t set;
    unsigned long left = 0;
    unsigned waited;
    int sfd, again = 0;

    pt2d_config_defaults(&cfg);
    if (pt2d_config_load(&cfg, argc, argv, environ, &err) != PT2_OK) {
        if (cfg.action == PT2D_HEALTHCHECK) {
            fprintf(stderr, "pt2scoped: unhealthy: %s\n", err.message);
            return 1;
        }
        fprintf(stderr, "pt2scoped: %s\n", err.message);
        return 2;
    }
    if (cfg.action == PT2D_HEALTHCHECK) {
        char line[PT2D_HEALTH_LINE_MAX + PT2D_HOST_MAX];
        int rc = pt2d_health_check(&cfg, PT2D_HEALTH_TIMEOUT_MS, line, sizeof(line));

        fprintf(rc == 0 ? stdout : stderr, "pt2scoped: %s\n", line);
        return rc;
    }
    if (cfg.action == PT2D_SHOW_HELP) {
        pt2d_config_usage(stdout);
        return 0;
    }
    if (cfg.action == PT2D_SHOW_VERSION) {
        printf("pt2scoped %s (schema %d)\n", PT2SCOPE_VERSION, PT2SCOPE_SCHEMA_VERSION);
        return 0;
    }

    /*
     * libzip converts every archive entry's DOS time with mktime(), and while
     * TZ is unset glibc stats /etc/localtime on each call: a 20,000-entry
     * package took three times as long to open (tests/bench). Naming the same
     * zone makes glibc read it once. setenv() before any thread exists; if it
     * fails, inspection is only slower.
     */
    if (getenv("TZ") == NULL && setenv("TZ", ":/etc/localtime", 0) != 0)
        fprintf(stderr, "pt2scoped: cannot set TZ, large archives will open slower\n");
    /* Before any thread exists: cluster queries use libcurl from the workers. */
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        fprintf(stderr, "pt2scoped: cannot initialise libcurl\n");
        return 1;
    }
    atexit(curl_global_cleanup);
    signal(SIGPIPE, SIG_IGN);
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP); /* its default would end the process */
    if (pthread_sigmask(SIG_BLOCK, &set, NULL) != 0 ||
        (sfd = signalfd(-1, &set, SFD_CLOEXEC)) < 0) {
        fprintf(stderr, "pt2scoped: cannot set up signal handling: %s\n", strerror(errno));
        return 1;
    }

    if (pt2d_server_start(&srv, &cfg, stderr, &err) != PT2_OK) {
        fprintf(stderr, "pt2scoped: %s\n", err.message);
        close(sfd);
        return 1;
    }
    pt2d_log_event(stderr, "info", "listening on http://%s (workers %u, queue %u, roots %u)",
                   pt2d_server_address(srv), cfg.workers, cfg.queue, cfg.n_roots);
    pt2d_server_log_node(srv);
    if (cfg.port_file[0] != '\0' && write_port_file(cfg.port_file, pt2d_server_port(srv)) != 0) {
        /* After "listening": a log line like the rest of them (JSON, UTF-8). */
        pt2d_log_event(stderr, "error", "cannot write port file '%s': %s", cfg.port_file,
                       strerror(errno));
        pt2d_server_free(srv);
        close(sfd);
        return 1;
    }

    wait_signal(sfd, -1, srv);
    if (cfg.drain_delay > 0) {
        pt2d_server_unready(srv);
        pt2d_log_event(stderr, "info",
                       "unready: /readyz answers 503, still serving for %u s (--drain-delay)",
                       cfg.drain_delay);
        again = wait_signal(sfd, (int)cfg.drain_delay * 1000, srv);
    }
    pt2d_log_event(stderr, "info", "draining: no new connections, finishing requests in flight");
    /* Drain in steps so that a second signal can cut the wait short. */
    for (waited = 0; waited <= cfg.drain_timeout * 1000u; waited += DRAIN_STEP_MS) {
        left = pt2d_server_drain(srv, again ? 0 : DRAIN_STEP_MS);
        if (left == 0 || again)
            break;
        again = wait_signal(sfd, 0, srv);
    }
    if (left > 0) {
        /* Workers still in a job would be joined by a clean teardown: leave now instead. */
        pt2d_log_event(stderr, "warn", "stopping now with %lu request%s still in flight (%s)", left,
                       left == 1 ? "" : "s", again ? "second signal" : "--drain-timeout reached");
        if (cfg.port_file[0] != '\0')
            unlink(cfg.port_file);
        fflush(stderr);
        _exit(1);
    }
    pt2d_server_free(srv);
    pt2d_log_event(stderr, "info", "stopped");
    close(sfd);
    if (cfg.port_file[0] != '\0')
        unlink(cfg.port_file);
    return 0;
}
