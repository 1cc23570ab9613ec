/*
 * fuzz_request.c - libFuzzer harness: the daemon's request parsing. The
 * input is a query string ("path=a.pt2&target=H100&input=x=1,2"): each
 * argument goes through the options parser, then the fingerprint that keys
 * the cache, and the path through the model-root resolution (which must
 * never open anything outside tests/fixtures), by the default route and
 * with the component walk forced.
 *
 * An input whose first line ends in " HTTP/1.1" is a request head instead:
 * its header lines are laid out the way libmicrohttpd 0.9.75 leaves them
 * (names and values in place, a folded line appended to a copy of the
 * previous name) and pt2d_frame_header_problem() must refuse exactly the
 * heads a reading of the raw bytes refuses (whitespace before a colon, a
 * fold, a name outside the token set): a differential check.
 */
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pt2d_buf.h"
#include "pt2d_frame.h"
#include "pt2d_options.h"
#include "pt2d_path.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HEAD_MAX 8192
#define HEADERS_MAX 64

static int tchar(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

/* The raw reading: 1 when a line of the head is one RFC 9112 refuses. */
static int raw_refuses(const char *line, size_t n, int first)
{
    size_t i;

    if (!first && (line[0] == ' ' || line[0] == '\t'))
        return 1; /* obs-fold */
    for (i = 0; i < n && line[i] != ':'; i++)
        if (!tchar((unsigned char)line[i]))
            return 1;
    return i == 0;
}

/* Lay the head out as MHD does and compare the checker with the raw reading. */
static void check_head(const char *in, size_t size)
{
    static char arena[2 * HEAD_MAX + HEADERS_MAX * HEAD_MAX / 8];
    const char *keys[HEADERS_MAX], *values[HEADERS_MAX];
    size_t copies = HEAD_MAX, nh = 0, i;
    const char *p, *end = in + size, *eol;
    int want = 0, got = 0, first = 1;

    if (size > HEAD_MAX || memchr(in, '\0', size) != NULL)
        return;
    p = memchr(in, '\n', size);
    if (p == NULL)
        return;
    memcpy(arena, in, size);
    for (p = p + 1; p < end; p = eol + 1) {
        size_t n;
        char *line = arena + (p - in), *colon;

        eol = memchr(p, '\n', (size_t)(end - p));
        if (eol == NULL)
            return; /* the head never ended: MHD would still be waiting */
        n = (size_t)(eol - p) - (eol > p && eol[-1] == '\r');
        if (n == 0)
            break;
        line[n] = '\0';
        want |= raw_refuses(line, n, first);
        if (!first && (line[0] == ' ' || line[0] == '\t') && nh > 0) {
            /* MHD 0.9.75: the continuation goes onto a pool copy of the previous *name*. */
            const char *t = line + strspn(line, " \t");
            size_t kl = strlen(keys[nh - 1]), tl = strlen(t);
            if (copies + kl + tl + 1 > sizeof(arena))
                return;
            memcpy(arena + copies, keys[nh - 1], kl);
            memcpy(arena + copies + kl, t, tl + 1);
            keys[nh - 1] = arena + copies;
            copies += kl + tl + 1;
        } else {
            colon = strchr(line, ':');
            if (colon == NULL || nh == HEADERS_MAX)
                return; /* MHD answers a line without a colon itself */
            *colon = '\0';
            keys[nh] = line;
            values[nh] = colon + 1 + strspn(colon + 1, " \t");
            nh++;
        }
        first = 0;
    }
    for (i = 0; i < nh; i++)
        got |= pt2d_frame_header_problem(keys[i], values[i]) != NULL;
    if (got != want)
        abort(); /* the checker and the raw bytes disagree */
}

static int is_head(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size);
    size_t n = nl != NULL ? (size_t)(nl - data) : 0;

    if (n > 0 && data[n - 1] == '\r')
        n--;
    return n >= 9 && memcmp(data + n - 9, " HTTP/1.1", 9) == 0;
}

static void check_path(const char *root, const char *path)
{
    const char *roots[1] = {root};
    struct pt2_error err = {0};
    struct pt2d_path_file f;
    char real[PATH_MAX + 32], link[64];
    int fds[1] = {-1}, walk;
    ssize_t n;

    pt2d_path_roots_open(fds, roots, 1);
    for (walk = 0; walk < 3; walk++) {
        int rc;

        memset(&f, 0, sizeof(f));
        pt2_error_clear(&err);
#ifdef PT2SCOPE_TEST_HOOKS
        pt2d_path_test_force_walk(walk == 2);
#endif
        rc = walk == 0 ? pt2d_path_open(roots, 1, path, &f, &err)
                       : pt2d_path_open_at(roots, fds, 1, path, &f, &err);
        if (rc != PT2_OK)
            continue;
        snprintf(link, sizeof(link), "/proc/self/fd/%d", f.fd);
        n = readlink(link, real, sizeof(real) - 1);
        if (n > 0) {
            real[n] = '\0';
            if (strncmp(real, root, strlen(root)) != 0)
                abort(); /* escaped the model root */
        }
        close(f.fd);
    }
#ifdef PT2SCOPE_TEST_HOOKS
    pt2d_path_test_force_walk(0);
#endif
    pt2d_path_roots_close(fds, 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char root[PATH_MAX];
    struct pt2_error err = {0};
    struct pt2d_options o;
    struct pt2d_buf fp;
    char *q = malloc(size + 1), *arg, *next;

    if (q == NULL)
        return 0;
    if (is_head(data, size)) {
        check_head((const char *)data, size);
        free(q);
        return 0;
    }
    if (root[0] == '\0' && realpath("tests/fixtures", root) == NULL)
        abort(); /* run from the repository root */
    memcpy(q, data, size);
    q[size] = '\0';
    pt2d_options_init(&o);
    for (arg = q; arg != NULL; arg = next) {
        char *eq;

        next = strchr(arg, '&');
        if (next != NULL)
            *next++ = '\0';
        eq = strchr(arg, '=');
        if (eq == NULL)
            continue;
        *eq = '\0';
        pt2_error_clear(&err);
        if (pt2d_options_add_query(&o, arg, eq + 1, &err) != PT2_OK)
            break;
    }
    pt2d_options_finish(&o);
    pt2d_buf_init(&fp, 1u << 20);
    (void)pt2d_options_fingerprint(&o, &fp);
    pt2d_buf_free(&fp);
    if (o.has_path)
        check_path(root, o.path);
    pt2d_options_free(&o);
    free(q);
    return 0;
}
