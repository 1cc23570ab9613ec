/*
 * pt2d_health.c - the --healthcheck client (see pt2d_health.h).
 *
 * Plain sockets rather than libcurl: the check must be cheap enough to run
 * every few seconds in every container, and it needs one request line and
 * one status line. Every wait is a poll() bounded by the shared deadline.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "pt2d_health.h"
#include "pt2scope.h"

#define PORT_FILE_MAX 32

static long long now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Milliseconds left before `deadline`, 0 once passed. */
static int left_ms(long long deadline)
{
    long long d = deadline - now_ms();

    return d <= 0 ? 0 : d > 60000 ? 60000 : (int)d;
}

/* The port --port-file holds; 0 when it cannot be read or holds no port. */
static unsigned port_from_file(const char *path)
{
    char text[PORT_FILE_MAX];
    uint64_t v;
    ssize_t n = 0, r;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return 0;
    while (n < (ssize_t)sizeof(text) - 1) {
        r = read(fd, text + n, sizeof(text) - 1 - (size_t)n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += r;
    }
    close(fd);
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == ' '))
        n--;
    if (n == 0 || pt2_num_u64n(text, (size_t)n, 10, &v) != PT2_OK || v == 0 || v > 65535)
        return 0;
    return (unsigned)v;
}

/* Connect to one address before the deadline; the socket or -1 with errno set. */
static int connect_before(const struct addrinfo *ai, long long deadline)
{
    struct pollfd pfd;
    int fd, soerr = 0;
    socklen_t sl = sizeof(soerr);

    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0)
        return -1;
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
        return fd;
    if (errno != EINPROGRESS)
        goto fail;
    pfd = (struct pollfd){fd, POLLOUT, 0};
    for (;;) {
        int n = poll(&pfd, 1, left_ms(deadline));
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0) {
            errno = ETIMEDOUT;
            goto fail;
        }
        if (n < 0)
            goto fail;
        break;
    }
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) != 0)
        goto fail;
    if (soerr != 0) {
        errno = soerr;
        goto fail;
    }
    return fd;
fail:
    soerr = errno;
    close(fd);
    errno = soerr;
    return -1;
}

/* Wait for `events` on fd; 0 ready, -1 (errno ETIMEDOUT or poll's) otherwise. */
static int wait_for(int fd, short events, long long deadline)
{
    struct pollfd pfd = {fd, events, 0};

    for (;;) {
        int n = poll(&pfd, 1, left_ms(deadline));
        if (n > 0)
            return 0;
        if (n == 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        if (errno != EINTR)
            return -1;
    }
}

/*
 * Send the request and read the status code. 0 with *status, or -1 with
 * `why` filled ("no answer within 2000 ms", "connection closed", ...).
 */
static int ask(int fd, const char *hostport, long long deadline, unsigned timeout_ms,
               unsigned *status, char *why, size_t cap)
{
    char req[PT2D_HOST_MAX + 128], resp[PT2D_HEALTH_LINE_MAX];
    size_t len, sent = 0, got = 0;
    uint64_t code;
    char *eol;

    len =
        (size_t)snprintf(req, sizeof(req),
                         "GET /livez HTTP/1.1\r\nHost: %s\r\nUser-Agent: pt2scoped-healthcheck\r\n"
                         "Connection: close\r\n\r\n",
                         hostport);
    while (sent < len) {
        ssize_t w;

        if (wait_for(fd, POLLOUT, deadline) != 0)
            goto io_error;
        w = send(fd, req + sent, len - sent, MSG_NOSIGNAL);
        if (w < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (w < 0)
            goto io_error;
        sent += (size_t)w;
    }
    /* Only the status line matters: "HTTP/1.1 200 OK\r\n". */
    for (;;) {
        ssize_t r;

        if (wait_for(fd, POLLIN, deadline) != 0)
            goto io_error;
        r = recv(fd, resp + got, sizeof(resp) - 1 - got, 0);
        if (r < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (r < 0)
            goto io_error;
        got += (size_t)r;
        resp[got] = '\0';
        eol = strstr(resp, "\r\n");
        if (eol != NULL || r == 0 || got == sizeof(resp) - 1)
            break;
    }
    if (got < 12 || strncmp(resp, "HTTP/1.", 7) != 0 || resp[8] != ' ' ||
        pt2_num_u64n(resp + 9, 3, 10, &code) != PT2_OK) {
        snprintf(why, cap, "%s",
                 got == 0 ? "connection closed without an answer" : "not an HTTP answer");
        return -1;
    }
    *status = (unsigned)code;
    return 0;
io_error:
    if (errno == ETIMEDOUT)
        snprintf(why, cap, "no answer within %u ms", timeout_ms);
    else
        snprintf(why, cap, "%s", strerror(errno));
    return -1;
}

int pt2d_health_check(const struct pt2d_config *cfg, unsigned timeout_ms, char *line, size_t cap)
{
    struct addrinfo hints, *res = NULL, *ai;
    const char *host = cfg->host;
    char service[8], hostport[PT2D_HOST_MAX + 16], why[160];
    unsigned port = cfg->port, status = 0;
    long long deadline = now_ms() + timeout_ms;
    int fd = -1, gai, rc = 1;

    /* A wildcard listen address is asked where this container can reach it. */
    if (host[0] == '\0' || strcmp(host, "0.0.0.0") == 0)
        host = "127.0.0.1";
    else if (strcmp(host, "::") == 0)
        host = "::1";
    if (port == 0) {
        if (cfg->port_file[0] == '\0') {
            snprintf(line, cap,
                     "unhealthy: the listen port is 0 and no --port-file names the bound port");
            return 1;
        }
        port = port_from_file(cfg->port_file);
        if (port == 0) {
            snprintf(line, cap, "unhealthy: port file '%.128s' holds no port", cfg->port_file);
            return 1;
        }
    }
    if (strchr(host, ':') != NULL)
        snprintf(hostport, sizeof(hostport), "[%s]:%u", host, port);
    else
        snprintf(hostport, sizeof(hostport), "%s:%u", host, port);
    snprintf(service, sizeof(service), "%u", port);
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    gai = getaddrinfo(host, service, &hints, &res);
    if (gai != 0) {
        snprintf(why, sizeof(why), "cannot resolve '%.64s': %s", host, gai_strerror(gai));
        goto done;
    }
    errno = ECONNREFUSED;
    for (ai = res; ai != NULL && fd < 0 && left_ms(deadline) > 0; ai = ai->ai_next)
        fd = connect_before(ai, deadline);
    if (fd < 0) {
        if (errno == ETIMEDOUT || left_ms(deadline) == 0)
            snprintf(why, sizeof(why), "no answer within %u ms", timeout_ms);
        else
            snprintf(why, sizeof(why), "%s", strerror(errno));
        goto done;
    }
    if (ask(fd, hostport, deadline, timeout_ms, &status, why, sizeof(why)) != 0)
        goto done;
    if (status == 200) {
        rc = 0;
        goto done;
    }
    snprintf(why, sizeof(why), "answered %u", status);
done:
    if (fd >= 0)
        close(fd);
    if (res != NULL)
        freeaddrinfo(res);
    if (rc == 0)
        snprintf(line, cap, "healthy: GET http://%s/livez answered 200", hostport);
    else
        snprintf(line, cap, "unhealthy: GET http://%s/livez: %s", hostport, why);
    return rc;
}
