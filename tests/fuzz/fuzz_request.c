/*
 * fuzz_request.c - libFuzzer harness: the daemon's request parsing. The
 * input is a query string ("path=a.pt2&target=H100&input=x=1,2"): each
 * argument goes through the options parser, then the fingerprint that keys
 * the cache, and the path through the model-root resolution (which must
 * never open anything outside tests/fixtures).
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
#include "pt2d_options.h"
#include "pt2d_path.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char root[PATH_MAX];
    const char *roots[1] = {root};
    struct pt2_error err = {0};
    struct pt2d_path_file f;
    struct pt2d_options o;
    struct pt2d_buf fp;
    char *q = malloc(size + 1), *arg, *next;

    if (q == NULL)
        return 0;
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
    if (o.has_path) {
        memset(&f, 0, sizeof(f));
        if (pt2d_path_open(roots, 1, o.path, &f, &err) == PT2_OK) {
            char real[PATH_MAX + 32], link[64];
            ssize_t n;

            snprintf(link, sizeof(link), "/proc/self/fd/%d", f.fd);
            n = readlink(link, real, sizeof(real) - 1);
            if (n > 0) {
                real[n] = '\0';
                if (strncmp(real, root, strlen(root)) != 0)
                    abort(); /* escaped the model root */
            }
            close(f.fd);
        }
    }
    pt2d_options_free(&o);
    free(q);
    return 0;
}
