/*
 * probe.c - print what pt2_cuda_probe() sees, for run.sh to compare with nvidia-smi.
 *
 * Output (TSV): "# driver <TAB> 12040 <TAB> reason" then one line per GPU:
 *     INDEX UUID PCI_BUS_ID CC SM_COUNT TOTAL_MEMORY NAME
 * Exit 0 when at least one GPU was found, 1 when none (the reason is printed).
 * Built by run.sh against $BUILD/libpt2scope.a; not part of CI.
 */
#include <stdio.h>
#include <stdlib.h>

#include "pt2_cuda.h"

int main(void)
{
    struct pt2_node_gpus *g = malloc(sizeof(*g));
    struct pt2_error err = {0};
    size_t i;
    int rc;

    if (g == NULL)
        return 2;
    if (pt2_cuda_probe(NULL, g, &err) != PT2_OK) {
        fprintf(stderr, "probe: %s\n", err.message);
        free(g);
        return 2;
    }
    printf("# driver\t%d\t%s\n", g->driver_cuda_version, g->reason);
    for (i = 0; i < g->n; i++) {
        const struct pt2_gpu *u = &g->gpus[i];

        printf("%d\t%s\t%s\t%d.%d\t%d\t%llu\t%s\n", u->index, u->uuid, u->pci_bus_id, u->cc_major,
               u->cc_minor, u->sm_count, (unsigned long long)u->total_memory, u->name);
    }
    rc = g->n > 0 ? 0 : 1;
    free(g);
    return rc;
}
