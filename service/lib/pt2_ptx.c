/*
 * pt2_ptx.c - PTX header parsing (see pt2_ptx.h).
 *
 * The parser walks lines, skipping blank lines and `//` comments; the first
 * directive must be `.version`, and `.target` must follow before any other
 * directive except `.version` itself. Numbers are parsed with pt2_num_u64_prefix
 * and range-checked; anything unexpected means "not PTX" rather than an error.
 */
#include <stdlib.h>
#include <string.h>

#include "pt2_ptx.h"

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* Parse "X.Y" at s (within e); returns 1 on success. */
static int parse_version(const char *s, const char *e, unsigned *major, unsigned *minor)
{
    char buf[16];
    size_t n = (size_t)(e - s);
    uint64_t ma, mi;
    const char *end;

    if (n == 0 || n >= sizeof(buf))
        return 0;
    memcpy(buf, s, n);
    buf[n] = '\0';
    if (pt2_num_u64_prefix(buf, 10, &ma, &end) != PT2_OK || *end != '.' || ma > 99)
        return 0;
    if (pt2_num_u64_prefix(end + 1, 10, &mi, &end) != PT2_OK || mi > 99)
        return 0;
    while (is_blank(*end))
        end++;
    if (*end != '\0')
        return 0;
    *major = (unsigned)ma;
    *minor = (unsigned)mi;
    return 1;
}

/* Parse "sm_90a[, debug][, texmode_...]" at s (within e). */
static int parse_target(const char *s, const char *e, unsigned *sm, char *variant, int *debug)
{
    char buf[128];
    size_t n = (size_t)(e - s);
    uint64_t v;
    const char *end, *p;

    if (n == 0 || n >= sizeof(buf))
        return 0;
    memcpy(buf, s, n);
    buf[n] = '\0';
    if (strncmp(buf, "sm_", 3) != 0 || pt2_num_u64_prefix(buf + 3, 10, &v, &end) != PT2_OK ||
        v == 0 || v > 999)
        return 0;
    *sm = (unsigned)v;
    *variant = (*end == 'a' || *end == 'f') ? *end : 0;
    if (*variant)
        end++;
    if (*end != '\0' && *end != ',' && !is_blank(*end))
        return 0; /* "sm_90x": not a target we know how to read */
    *debug = 0;
    /* Remaining comma-separated target options ("texmode_independent", "debug"). */
    p = end;
    while (*p != '\0') {
        const char *q;

        while (*p == ',' || is_blank(*p))
            p++;
        q = p;
        while (*q != '\0' && *q != ',' && !is_blank(*q))
            q++;
        if (q - p == 5 && memcmp(p, "debug", 5) == 0)
            *debug = 1;
        p = q;
    }
    return 1;
}

int pt2_ptx_parse(const char *text, size_t len, struct pt2_kernel *k)
{
    const char *p = text, *end = text + len;
    unsigned major = 0, minor = 0, sm = 0;
    char variant = 0;
    int have_version = 0, debug = 0;

    while (p < end) {
        const char *line = p, *eol = memchr(p, '\n', (size_t)(end - p)), *s, *e;

        if (eol == NULL)
            eol = end;
        p = eol + (eol < end ? 1 : 0);
        s = line;
        while (s < eol && is_blank(*s))
            s++;
        e = eol;
        while (e > s && is_blank(e[-1]))
            e--;
        if (s == e || *s == '\0')
            continue;
        if (e - s >= 2 && s[0] == '/' && s[1] == '/')
            continue;
        if (e - s > 8 && memcmp(s, ".version", 8) == 0 && is_blank(s[8])) {
            s += 8;
            while (s < e && is_blank(*s))
                s++;
            if (!parse_version(s, e, &major, &minor))
                return 0;
            have_version = 1;
            continue;
        }
        if (have_version && e - s > 7 && memcmp(s, ".target", 7) == 0 && is_blank(s[7])) {
            s += 7;
            while (s < e && is_blank(*s))
                s++;
            /* Cut a trailing comment. */
            {
                const char *c = s;
                while (c + 1 < e && !(c[0] == '/' && c[1] == '/'))
                    c++;
                if (c + 1 < e)
                    e = c;
                while (e > s && is_blank(e[-1]))
                    e--;
            }
            if (!parse_target(s, e, &sm, &variant, &debug))
                return 0;
            k->kind = PT2_KERNEL_PTX;
            k->sm = sm;
            k->variant = variant;
            k->ptx_major = major;
            k->ptx_minor = minor;
            k->debug = debug;
            return 1;
        }
        return 0; /* any other content before .version/.target: not a PTX header */
    }
    return 0;
}

int pt2_ptx_probe(const uint8_t *buf, size_t len)
{
    size_t i = 0;

    while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n'))
        i++;
    if (len - i >= 2 && buf[i] == '/' && buf[i + 1] == '/')
        return 1;
    return len - i >= 8 && memcmp(buf + i, ".version", 8) == 0;
}

int pt2_ptx_scan(struct pt2_rd *rd, uint64_t off, uint64_t size, struct pt2_kernel *k, int *found,
                 struct pt2_error *err)
{
    char *buf;
    size_t n = size < PT2_PTX_HEAD_MAX ? (size_t)size : PT2_PTX_HEAD_MAX, got = 0;
    int rc;

    *found = 0;
    if (off > rd->size || size > rd->size - off)
        return pt2_error_set(err, PT2_ERR_FORMAT, "%s: PTX range at 0x%llx lies beyond the end",
                             rd->name, (unsigned long long)off);
    buf = malloc(n + 1);
    if (buf == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    rc = pt2_rd_read_some(rd, off, buf, n, &got, err);
    if (rc == PT2_OK)
        *found = pt2_ptx_parse(buf, got, k);
    free(buf);
    return rc;
}
