/*
 * pt2_error.c - status slugs and the first-error-wins error object.
 *
 * Slugs double as the problem+json `type` suffix in the daemon, so they are
 * an interface: never rename one.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pt2_error.h"

const char *pt2_strerror(int e, char *buf, size_t len)
{
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
    return strerror_r(e, buf, len);
#else
    if (strerror_r(e, buf, len) != 0)
        snprintf(buf, len, "error %d", e);
    return buf;
#endif
}

void pt2_error_clear(struct pt2_error *err)
{
    if (err == NULL)
        return;
    err->code = PT2_OK;
    err->message[0] = '\0';
}

int pt2_error_set(struct pt2_error *err, int code, const char *fmt, ...)
{
    va_list ap;

    if (err == NULL)
        return code;
    if (err->code != PT2_OK)
        return err->code;
    err->code = code;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof(err->message), fmt, ap);
    va_end(ap);
    return code;
}

int pt2_error_copy(struct pt2_error *dst, const struct pt2_error *src)
{
    if (dst != NULL && dst->code == PT2_OK && src->code != PT2_OK) {
        dst->code = src->code;
        snprintf(dst->message, sizeof(dst->message), "%s", src->message);
    }
    return src->code;
}

const char *pt2_status_slug(int code)
{
    switch (code) {
    case PT2_OK:
        return "ok";
    case PT2_ERR_IO:
        return "unreadable";
    case PT2_ERR_NOT_ZIP:
        return "not-a-zip";
    case PT2_ERR_TRUNCATED:
    case PT2_ERR_ENTRY:
    case PT2_ERR_FORMAT:
        return "truncated";
    case PT2_ERR_NOT_PT2:
        return "not-a-pt2";
    case PT2_ERR_METADATA:
        return "metadata-invalid";
    case PT2_ERR_TOO_LARGE:
        return "too-large";
    case PT2_ERR_INVALID:
        return "bad-request";
    case PT2_ERR_NOT_FOUND:
    case PT2_ERR_NO_ROUTE:
        return "not-found";
    case PT2_ERR_UNSUPPORTED:
        return "unsupported";
    case PT2_ERR_OUTSIDE_ROOT:
        return "outside-root";
    case PT2_ERR_OVERLOADED:
        return "overloaded";
    case PT2_ERR_METHOD:
        return "method-not-allowed";
    case PT2_ERR_MEDIA_TYPE:
        return "unsupported-media-type";
    case PT2_ERR_DOCS_NOT_BUILT:
        return "docs-not-built";
    case PT2_ERR_TORCH_SAVE:
        return "torch-save-checkpoint";
    case PT2_ERR_FORBIDDEN:
        return "forbidden";
    case PT2_ERR_UNAUTHORIZED:
        return "unauthorized";
    case PT2_ERR_HOST_NOT_ALLOWED:
        return "host-not-allowed";
    case PT2_ERR_REMOTE_REFUSED:
        return "remote-refused";
    case PT2_ERR_REMOTE_UNREACHABLE:
        return "remote-unreachable";
    case PT2_ERR_REMOTE_NO_RANGE:
        return "remote-no-range";
    case PT2_ERR_REMOTE_CHANGED:
        return "remote-changed";
    case PT2_ERR_REMOTE_TIMEOUT:
        return "remote-timeout";
    case PT2_ERR_NOMEM:
    case PT2_ERR_INTERNAL:
    default:
        return "internal";
    }
}
