/*
 * pt2d_listen.h - create the listening socket.
 *
 * Design: the daemon binds the socket itself and hands it to MHD
 * (MHD_OPTION_LISTEN_SOCKET) so that it knows the real port when asked
 * for port 0 and controls the socket options (IPv6-only for [::1],
 * close-on-exec, non-blocking as MHD requires).
 *
 * Ownership: on success the caller owns *fd_out (MHD takes it over).
 */
#ifndef PT2D_LISTEN_H
#define PT2D_LISTEN_H

#include <stddef.h>
#include <stdint.h>

#include "pt2scope.h"

struct pt2d_listener {
    int fd;
    int family;        /* AF_INET or AF_INET6 */
    uint16_t port;     /* the bound port */
    char address[300]; /* "127.0.0.1:8080" or "[::1]:8080" */
};

int pt2d_listen_open(const char *host, uint16_t port, struct pt2d_listener *out,
                     struct pt2_error *err);

#endif
