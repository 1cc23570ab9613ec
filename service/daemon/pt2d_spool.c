/*
 * pt2d_spool.c - anonymous spool files (see pt2d_spool.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pt2d_spool.h"

struct pt2d_spool {
    int fd;
};

static int spool_create_fd(const char *dir, struct pt2_error *err)
{
    char tmpl[4096], eb[128];
    int fd, n;

    fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0)
        return fd;
    /* EOPNOTSUPP/EISDIR: filesystem without O_TMPFILE; anything else is fatal. */
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
        return pt2_error_set(err, PT2_ERR_IO, "spool: cannot create a file in %s: %s", dir,
                             strerror_r(errno, eb, sizeof(eb)));
    n = snprintf(tmpl, sizeof(tmpl), "%s/pt2scoped-upload-XXXXXX", dir);
    if (n < 0 || (size_t)n >= sizeof(tmpl))
        return pt2_error_set(err, PT2_ERR_INVALID, "spool: directory name too long");
    fd = mkostemp(tmpl, O_CLOEXEC);
    if (fd < 0)
        return pt2_error_set(err, PT2_ERR_IO, "spool: cannot create a file in %s: %s", dir,
                             strerror_r(errno, eb, sizeof(eb)));
    if (unlink(tmpl) != 0) {
        int e = errno;
        close(fd);
        return pt2_error_set(err, PT2_ERR_IO, "spool: cannot unlink %s: %s", tmpl,
                             strerror_r(e, eb, sizeof(eb)));
    }
    return fd;
}

int pt2d_spool_check(const char *dir, struct pt2_error *err)
{
    char eb[128];
    int fd = spool_create_fd(dir, err), rc = PT2_OK;

    if (fd < 0)
        return fd;
    /* posix_fallocate asks for a block now; a plain write could be delayed allocation. */
    if ((errno = posix_fallocate(fd, 0, 1)) != 0 && errno != EOPNOTSUPP && errno != EINVAL)
        rc = pt2_error_set(err, PT2_ERR_IO, "spool: cannot write in %s: %s", dir,
                           strerror_r(errno, eb, sizeof(eb)));
    close(fd);
    return rc;
}

int pt2d_spool_open(struct pt2d_spool **out, const char *dir, struct pt2_error *err)
{
    struct pt2d_spool *s;
    int fd;

    *out = NULL;
    s = calloc(1, sizeof(*s));
    if (s == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "spool: out of memory");
    fd = spool_create_fd(dir, err);
    if (fd < 0) {
        free(s);
        return fd;
    }
    s->fd = fd;
    *out = s;
    return PT2_OK;
}

int pt2d_spool_fd(const struct pt2d_spool *s)
{
    return s->fd;
}

void pt2d_spool_free(struct pt2d_spool *s)
{
    if (s == NULL)
        return;
    if (s->fd >= 0)
        close(s->fd);
    free(s);
}
