/*
 * cli_runtime.c - the runtimes `check` and `scan` judge, from their options.
 *
 * How specs, a sysroot and a libtorch make runtimes is the library's
 * (pt2_runtimes_build); this only names the option in an error.
 */
#include <stdio.h>

#include "cli.h"

int cli_runtimes(const char *const *specs, size_t nspecs, const char *sysroot, const char *libtorch,
                 int local, pt2_runtime **rts, size_t *n)
{
    struct pt2_error err = {0};
    const char *which = "runtime";
    char opt[16];

    if (pt2_runtimes_build(specs, nspecs, sysroot, libtorch, local, rts, n, &which, &err) == PT2_OK)
        return CLI_OK;
    snprintf(opt, sizeof(opt), "--%s", which);
    return cli_fail(err.code, opt, err.message);
}
