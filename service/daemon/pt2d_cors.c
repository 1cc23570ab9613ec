/*
 * pt2d_cors.c - CORS decisions (see pt2d_cors.h).
 */
#include <string.h>

#include "pt2d_cors.h"

void pt2d_cors_decide(const struct pt2d_config *cfg, const char *origin, struct pt2d_cors *out)
{
    unsigned i;

    out->allow_origin = NULL;
    out->vary_origin = 0;
    if (cfg->n_origins == 0)
        return;
    for (i = 0; i < cfg->n_origins; i++)
        if (strcmp(cfg->origins[i], "*") == 0) {
            out->allow_origin = "*";
            return;
        }
    out->vary_origin = 1;
    for (i = 0; origin != NULL && i < cfg->n_origins; i++)
        if (strcmp(cfg->origins[i], origin) == 0) {
            out->allow_origin = cfg->origins[i];
            return;
        }
}
