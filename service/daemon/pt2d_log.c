/*
 * pt2d_log.c - JSON-lines logging (see pt2d_log.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio_ext.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pt2d_fmt.h"
#include "pt2d_log.h"

/*
 * The length of the well-formed UTF-8 sequence at s (RFC 3629: no overlong
 * forms, no surrogates, nothing past U+10FFFF), reading at most `avail`
 * bytes; 0 when the bytes there are not one. A NUL is never a continuation
 * byte, so a sequence cut by the string's end is refused, not overread.
 */
static size_t utf8_len(const unsigned char *s, size_t avail)
{
    size_t n, k;
    unsigned char lo = 0x80, hi = 0xbf;

    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        n = 2;
    else if (s[0] >= 0xe0 && s[0] <= 0xef)
        n = 3;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4)
        n = 4;
    else
        return 0;
    if (n > avail)
        return 0;
    if (s[0] == 0xe0)
        lo = 0xa0; /* overlong */
    else if (s[0] == 0xed)
        hi = 0x9f; /* surrogates */
    else if (s[0] == 0xf0)
        lo = 0x90; /* overlong */
    else if (s[0] == 0xf4)
        hi = 0x8f; /* past U+10FFFF */
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (k = 2; k < n; k++)
        if (s[k] < 0x80 || s[k] > 0xbf)
            return 0;
    return n;
}

/* A byte that is not UTF-8 becomes the text \xFF (escaped for JSON: "\\xFF"). */
static void hex_escape(unsigned char c, char esc[6])
{
    static const char hex[] = "0123456789ABCDEF";

    memcpy(esc, "\\\\x", 3);
    esc[3] = hex[c >> 4];
    esc[4] = hex[c & 15];
}

int pt2d_log_json_string(struct pt2d_buf *b, const char *s, size_t max)
{
    size_t i;

    char esc[6];
    size_t n;

    pt2d_buf_puts(b, "\"");
    for (i = 0; s != NULL && s[i] != '\0' && i < max; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            pt2d_buf_printf(b, "\\%c", c);
        } else if (c < 0x20 || c == 0x7f) {
            pt2d_buf_printf(b, "\\u%04x", c);
        } else if (c < 0x80) {
            pt2d_buf_append(b, &s[i], 1);
        } else if ((n = utf8_len((const unsigned char *)s + i, max - i)) > 0) {
            pt2d_buf_append(b, &s[i], n);
            i += n - 1;
        } else {
            hex_escape(c, esc);
            pt2d_buf_append(b, esc, 5);
        }
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

/* A quoted RFC 3339 UTC timestamp with milliseconds, for printf. */
#define TS_FORMAT "\"%04d-%02u-%02uT%02lld:%02lld:%02lld.%03ldZ\""

/* UTC calendar date of `ts` and its seconds into that day. */
static void utc_parts(const struct timespec *ts, int *year, unsigned *mon, unsigned *day,
                      long long *secs)
{
    long long days = (long long)ts->tv_sec / 86400;

    *secs = (long long)ts->tv_sec % 86400;
    if (*secs < 0) {
        *secs += 86400;
        days--;
    }
    civil_from_days(days, year, mon, day);
}

int pt2d_log_format_time(struct pt2d_buf *b, const struct timespec *ts)
{
    long long secs;
    unsigned mon, day;
    int year;

    utc_parts(ts, &year, &mon, &day, &secs);
    return pt2d_buf_printf(b, TS_FORMAT, year, mon, day, secs / 3600, secs / 60 % 60, secs % 60,
                           ts->tv_nsec / 1000000);
}

int pt2d_log_timestamp(struct pt2d_buf *b)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return pt2d_log_format_time(b, &ts);
}

/*
 * Access lines are formatted into a stack buffer by hand: no allocation
 * and no printf machinery per request (the pt2d_buf/printf version was
 * ~11 % of a cached request's CPU). The output is byte for byte the one
 * of pt2d_log_json_string and pt2d_log_format_time.
 */
struct log_line {
    char *text; /* PT2D_LOG_LINE_MAX bytes, the caller's */
    size_t len;
    int over; /* a piece did not fit: the line is dropped, never cut */
};

static void line_put(struct log_line *l, const char *s, size_t n)
{
    if (l->over || n > PT2D_LOG_LINE_MAX - l->len) {
        l->over = 1;
        return;
    }
    memcpy(l->text + l->len, s, n);
    l->len += n;
}

static void line_puts(struct log_line *l, const char *s)
{
    line_put(l, s, strlen(s));
}

/* Worst case 6 output bytes per input byte (\u00xx), checked per run; bytes that are not
 * UTF-8 become \\xFF text, so every line is valid UTF-8 (a cut never splits a character). */
static void line_json(struct log_line *l, const char *s, size_t max)
{
    static const char hex[] = "0123456789abcdef";
    size_t i, run = 0;
    char esc[6];

    line_put(l, "\"", 1);
    for (i = 0; s != NULL && s[i] != '\0' && i < max; i++) {
        unsigned char c = (unsigned char)s[i];
        size_t n = 0;

        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            n = 2;
        } else if (c < 0x20 || c == 0x7f) {
            memcpy(esc, "\\u00", 4);
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 15];
            n = 6;
        } else if (c < 0x80) {
            run++;
            continue;
        } else if ((n = utf8_len((const unsigned char *)s + i, max - i)) > 0) {
            run += n;
            i += n - 1;
            continue;
        } else {
            hex_escape(c, esc);
            n = 5;
        }
        line_put(l, s + i - run, run);
        line_put(l, esc, n);
        run = 0;
    }
    line_put(l, s != NULL ? s + i - run : "", run);
    line_put(l, "\"", 1);
}

/* `v` in decimal, zero-padded to at least `width` digits. */
static void line_uint(struct log_line *l, unsigned long long v, int width)
{
    char d[PT2D_FMT_INT_MAX];

    line_put(l, d, pt2d_fmt_uint(d, v, width));
}

/* "%.3f" for the usual range by hand; printf's for anything else. */
static void line_ms(struct log_line *l, double ms)
{
    char num[64];
    unsigned long long t;

    if (ms >= 0 && ms < 1e12) {
        t = (unsigned long long)(ms * 1000.0 + 0.5);
        line_uint(l, t / 1000, 1);
        line_put(l, ".", 1);
        line_uint(l, t % 1000, 3);
        return;
    }
    snprintf(num, sizeof(num), "%.3f", ms);
    line_puts(l, num);
}

static void line_time(struct log_line *l, const struct timespec *ts)
{
    long long secs;
    unsigned mon, day;
    int year;

    utc_parts(ts, &year, &mon, &day, &secs);
    if (year < 0 || year > 9999) { /* not a clock this daemon will see; keep printf's form */
        char num[64];
        snprintf(num, sizeof(num), TS_FORMAT, year, mon, day, secs / 3600, secs / 60 % 60,
                 secs % 60, ts->tv_nsec / 1000000);
        line_puts(l, num);
        return;
    }
    line_put(l, "\"", 1);
    line_uint(l, (unsigned)year, 4);
    line_put(l, "-", 1);
    line_uint(l, mon, 2);
    line_put(l, "-", 1);
    line_uint(l, day, 2);
    line_put(l, "T", 1);
    line_uint(l, (unsigned long long)(secs / 3600), 2);
    line_put(l, ":", 1);
    line_uint(l, (unsigned long long)(secs / 60 % 60), 2);
    line_put(l, ":", 1);
    line_uint(l, (unsigned long long)(secs % 60), 2);
    line_put(l, ".", 1);
    line_uint(l, (unsigned long long)(ts->tv_nsec / 1000000), 3);
    line_put(l, "Z\"", 2);
}

/*
 * One fwrite of the whole line under the stream's lock, then a flush: on
 * the unbuffered stderr that is exactly one write(2) per line, and lines
 * from different threads never interleave.
 */
static void log_emit(FILE *out, const char *text, size_t len)
{
    flockfile(out);
    fwrite_unlocked(text, 1, len, out);
    fflush_unlocked(out);
    funlockfile(out);
}

/*
 * Access lines: one write(2) of the thread's own buffer, without the
 * stream's lock, where the stream is a descriptor with nothing buffered
 * (stderr; every other line is flushed as it is written).
 * Lines still never interleave: a write of at most PIPE_BUF bytes to a pipe
 * is atomic, and a file's offset moves under the kernel's own lock. A longer
 * line, a stream with bytes pending or without a descriptor (a memstream)
 * goes through log_emit.
 */
void pt2d_log_write(FILE *out, const char *text, size_t len)
{
    int fd = fileno_unlocked(out); /* no lock: the descriptor never changes */
    ssize_t n;

    if (fd < 0 || len > PIPE_BUF || __fpending(out) != 0) {
        log_emit(out, text, len);
        return;
    }
    while (len > 0) {
        n = write(fd, text, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return; /* as a failed fwrite: the line is lost, the request is not */
        text += n;
        len -= (size_t)n;
    }
}

size_t pt2d_log_access_format(const struct pt2d_access_record *r, char *text)
{
    struct log_line l;
    struct timespec ts;

    l.text = text;
    l.len = 0;
    l.over = 0;
    clock_gettime(CLOCK_REALTIME, &ts);
    line_puts(&l, "{\"ts\":");
    line_time(&l, &ts);
    line_puts(&l, ",\"id\":");
    line_json(&l, r->id, 128);
    line_puts(&l, ",\"method\":");
    line_json(&l, r->method, 16);
    line_puts(&l, ",\"route\":");
    line_json(&l, r->route, 64);
    line_puts(&l, ",\"path\":");
    line_json(&l, r->path, 1024);
    line_puts(&l, ",\"status\":");
    line_uint(&l, r->status, 1);
    line_puts(&l, ",\"bytes\":");
    line_uint(&l, (unsigned long long)r->bytes, 1);
    line_puts(&l, ",\"duration_ms\":");
    line_ms(&l, r->duration_ms);
    line_puts(&l, ",\"remote\":");
    line_json(&l, r->remote, 64);
    if (r->error != NULL) {
        line_puts(&l, ",\"error\":");
        line_json(&l, r->error, 256);
    }
    if (r->detail != NULL) {
        line_puts(&l, ",\"detail\":");
        line_json(&l, r->detail, 1024);
    }
    line_put(&l, "}\n", 2);
    return l.over ? 0 : l.len;
}

void pt2d_log_access(FILE *out, const struct pt2d_access_record *r)
{
    char text[PT2D_LOG_LINE_MAX];
    size_t len;

    if (out == NULL)
        return;
    len = pt2d_log_access_format(r, text);
    if (len > 0)
        pt2d_log_write(out, text, len);
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
        log_emit(out, b.ptr, b.len);
    pt2d_buf_free(&b);
}
