/*
 * cli_runtime.c - the runtimes `check` and `scan` judge, from their options.
 *
 * The rules (what a spec means, how a sysroot resolves, what a libtorch
 * exports) are the library's (pt2scope.h "Runtimes"); this only maps the
 * options onto it and names the option in an error.
 */
#include <stdio.h>

#include "cli.h"

static int bad(const char *opt, pt2_runtime **rts, size_t n, const struct pt2_error *err)
{
    for (size_t i = 0; i < n; i++)
        pt2_runtime_free(rts[i]);
    return cli_fail(err->code, opt, err->message);
}

int cli_runtimes(const char *const *specs, size_t nspecs, const char *sysroot, const char *libtorch,
                 int local, pt2_runtime **rts, size_t *n)
{
    struct pt2_error err = {0};

    *n = 0;
    for (size_t i = 0; i < nspecs; i++) {
        if (pt2_runtime_parse(specs[i], &rts[*n], &err) != PT2_OK)
            return bad("--runtime", rts, *n, &err);
        (*n)++;
    }
    if (sysroot != NULL) {
        if (pt2_runtime_sysroot(sysroot, &rts[*n], &err) != PT2_OK)
            return bad("--sysroot", rts, *n, &err);
        (*n)++;
    }
    if (*n == 0 && local) {
        if (pt2_runtime_local(&rts[*n], &err) != PT2_OK)
            return bad("check", rts, *n, &err);
        (*n)++;
    }
    if (libtorch == NULL)
        return CLI_OK;
    if (*n == 0) {
        if (pt2_runtime_libtorch(libtorch, &rts[0], &err) != PT2_OK)
            return bad("--libtorch", rts, 0, &err);
        *n = 1;
        return CLI_OK;
    }
    for (size_t i = 0; i < *n; i++)
        if (pt2_runtime_use_libtorch(rts[i], libtorch, &err) != PT2_OK)
            return bad("--libtorch", rts, *n, &err);
    return CLI_OK;
}
