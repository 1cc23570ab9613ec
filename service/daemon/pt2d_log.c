/*
 * pt2d_log.c - JSON-lines logging (see pt2d_log.h).
 */
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "pt2d_log.h"

int pt2d_log_json_string(struct pt2d_buf *b, const char *s, size_t max)
{
    size_t i;

    pt2d_buf_puts(b, "\"");
    for (i = 0; s != NULL && s[i] != '\0' && i < max; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            pt2d_buf_printf(b, "\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            pt2d_buf_printf(b, "\\u%04x", c);
        else
            pt2d_buf_append(b, &s[i], 1);
    }
    return pt2d_buf_puts(b, "\"");
}

/*
 * Civil date of a day count since 1970-01-01 (H. Hinnant's algorithm).
 * Done by hand because gmtime_r takes glibc's timezone lock, which libzip's
 * mktime calls on worker threads contend for (and TSan cannot see).
 */
static void civil_from_days(long long z, int *y, unsigned *m, unsigned *d)
{
    long long era, yy;
    unsigned doe, yoe, doy, mp;

    z += 719468;
    era = (z >= 0 ? z : z - 146096) / 146097;
    doe = (unsigned)(z - era * 146097);
    yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    yy = (long long)yoe + era * 400;
    doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int)(yy + (*m <= 2));
}

int pt2d_log_format_time(struct pt2d_buf *b, const struct timespec *ts)
{
    long long days = (long long)ts->tv_sec / 86400, secs = (long long)ts->tv_sec % 86400;
    unsigned mon, day;
    int year;

    if (secs < 0) {
        secs += 86400;
        days--;
    }
    civil_from_days(days, &year, &mon, &day);
    return pt2d_buf_printf(b, "\"%04d-%02u-%02uT%02lld:%02lld:%02lld.%03ldZ\"", year, mon, day,
                           secs / 3600, secs / 60 % 60, secs % 60, ts->tv_nsec / 1000000);
}

int pt2d_log_timestamp(struct pt2d_buf *b)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return pt2d_log_format_time(b, &ts);
}

/* Callers emit only complete lines: a line that hit the cap is dropped, not cut. */
static void log_emit(FILE *out, struct pt2d_buf *b)
{
    flockfile(out);
    fwrite(b->ptr, 1, b->len, out);
    fflush(out);
    funlockfile(out);
}

void pt2d_log_access(FILE *out, const struct pt2d_access_record *r)
{
    struct pt2d_buf b;

    if (out == NULL)
        return;
    pt2d_buf_init(&b, PT2D_LOG_LINE_MAX);
    pt2d_buf_puts(&b, "{\"ts\":");
    pt2d_log_timestamp(&b);
    pt2d_buf_puts(&b, ",\"id\":");
    pt2d_log_json_string(&b, r->id, 128);
    pt2d_buf_puts(&b, ",\"method\":");
    pt2d_log_json_string(&b, r->method, 16);
    pt2d_buf_puts(&b, ",\"route\":");
    pt2d_log_json_string(&b, r->route, 64);
    pt2d_buf_puts(&b, ",\"path\":");
    pt2d_log_json_string(&b, r->path, 1024);
    pt2d_buf_printf(&b, ",\"status\":%u,\"bytes\":%llu,\"duration_ms\":%.3f,\"remote\":", r->status,
                    (unsigned long long)r->bytes, r->duration_ms);
    pt2d_log_json_string(&b, r->remote, 64);
    if (r->error != NULL) {
        pt2d_buf_puts(&b, ",\"error\":");
        pt2d_log_json_string(&b, r->error, 256);
    }
    if (pt2d_buf_puts(&b, "}\n") == PT2_OK)
        log_emit(out, &b);
    pt2d_buf_free(&b);
}

void pt2d_log_event(FILE *out, const char *level, const char *fmt, ...)
{
    char msg[2048];
    struct pt2d_buf b;
    va_list ap;

    if (out == NULL)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    pt2d_buf_init(&b, PT2D_LOG_LINE_MAX);
    pt2d_buf_puts(&b, "{\"ts\":");
    pt2d_log_timestamp(&b);
    pt2d_buf_puts(&b, ",\"level\":");
    pt2d_log_json_string(&b, level, 16);
    pt2d_buf_puts(&b, ",\"msg\":");
    pt2d_log_json_string(&b, msg, sizeof(msg));
    if (pt2d_buf_puts(&b, "}\n") == PT2_OK)
        log_emit(out, &b);
    pt2d_buf_free(&b);
}
