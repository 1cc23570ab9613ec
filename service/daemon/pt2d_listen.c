/*
 * pt2d_listen.c - listening socket (see pt2d_listen.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pt2d_listen.h"

int pt2d_listen_open(const char *host, uint16_t port, struct pt2d_listener *out,
                     struct pt2_error *err)
{
    struct addrinfo hints, *res = NULL, *ai;
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    char service[8], numeric[INET6_ADDRSTRLEN];
    int fd = -1, one = 1, gai, rc = PT2_OK, saved = 0;

    out->fd = -1;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    snprintf(service, sizeof(service), "%u", (unsigned)port);
    gai = getaddrinfo(host, service, &hints, &res);
    if (gai != 0)
        return pt2_error_set(err, PT2_ERR_INVALID, "listen: cannot resolve '%s': %s", host,
                             gai_strerror(gai));
    for (ai = res; ai != NULL; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            saved = errno;
            continue;
        }
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (ai->ai_family == AF_INET6)
            setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, SOMAXCONN) == 0)
            break;
        saved = errno;
        close(fd);
        fd = -1;
    }
    if (fd < 0) {
        rc = pt2_error_set(err, PT2_ERR_IO, "listen: cannot listen on %s:%u: %s", host,
                           (unsigned)port, strerror(saved));
        goto cleanup;
    }
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0) {
        rc = pt2_error_set(err, PT2_ERR_IO, "listen: getsockname: %s", strerror(errno));
        close(fd);
        goto cleanup;
    }
    out->family = ss.ss_family;
    if (ss.ss_family == AF_INET6) {
        const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)&ss;
        inet_ntop(AF_INET6, &s6->sin6_addr, numeric, sizeof(numeric));
        out->port = ntohs(s6->sin6_port);
        snprintf(out->address, sizeof(out->address), "[%s]:%u", numeric, (unsigned)out->port);
    } else {
        const struct sockaddr_in *s4 = (const struct sockaddr_in *)&ss;
        inet_ntop(AF_INET, &s4->sin_addr, numeric, sizeof(numeric));
        out->port = ntohs(s4->sin_port);
        snprintf(out->address, sizeof(out->address), "%s:%u", numeric, (unsigned)out->port);
    }
    out->fd = fd;
cleanup:
    freeaddrinfo(res);
    return rc;
}
