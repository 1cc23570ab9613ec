/*
 * fuzz_package.c - libFuzzer harness: a whole package, as the daemon sees an
 * upload (an fd), through every answer the library gives about it: the
 * document in both views (its printed text checked against the tree's),
 * validation, target and node-less verdicts, Kubernetes verdicts.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pt2scope.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The document printed without its tree (the daemon's) is the tree's as
 * cJSON prints it, or both fail alike: a difference aborts (a crash).
 */
static void same_document(const pt2_package *pkg, unsigned flags)
{
    struct pt2_error err = {0}, terr = {0};
    cJSON *doc = NULL;
    char *want = NULL, *got = NULL;
    size_t n = 0;
    int rc = pt2_package_to_json(pkg, flags, &doc, &err);
    int trc = pt2_package_print_json(pkg, flags, NULL, 0, &got, &n, &terr);

    if (rc == PT2_OK)
        want = cJSON_PrintUnformatted(doc);
    if (trc != rc || (rc == PT2_OK && (want == NULL || strcmp(want, got) != 0))) {
        fprintf(stderr, "printed document differs from the tree's (%d, %d): %.300s\n", rc, trc,
                got != NULL ? got : terr.message);
        abort();
    }
    cJSON_free(want);
    free(got);
    cJSON_Delete(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char nodes[] = "[{\"metadata\": {\"name\": \"n\", \"labels\": "
                                "{\"nvidia.com/gpu.compute.major\": \"9\", "
                                "\"nvidia.com/gpu.compute.minor\": \"0\"}}}]";
    struct pt2_error err = {0};
    struct pt2_device dev;
    pt2_package *pkg = NULL;
    pt2_verdicts *v = NULL;
    pt2_k8s_nodes *kn = NULL;
    cJSON *doc = NULL, *in;
    int fd = memfd_create("fuzz", 0);

    if (fd < 0)
        return 0;
    if (write(fd, data, size) != (ssize_t)size)
        goto cleanup;
    if (pt2_package_open_fd(&pkg, fd, NULL, &err) != PT2_OK)
        goto cleanup;
    for (unsigned flags = 0; flags <= PT2_JSON_OIP; flags++)
        same_document(pkg, flags);
    in = cJSON_Parse("{\"x\": [1, 2], \"arg0_1\": [3, 4000]}");
    if (pt2_package_validate(pkg, in, &doc, &err) == PT2_OK)
        cJSON_Delete(doc);
    doc = NULL;
    cJSON_Delete(in);
    if (pt2_verdicts_new(&v, &err) == PT2_OK) {
        if (pt2_target_parse("H100", &dev, &err) == PT2_OK)
            (void)pt2_verdicts_add_target(v, pkg, "H100", &dev, &err);
        if (pt2_target_parse("gfx90a", &dev, &err) == PT2_OK)
            (void)pt2_verdicts_add_target(v, pkg, "gfx90a", &dev, &err);
        if (pt2_verdicts_to_json(v, &doc, &err) == PT2_OK)
            cJSON_Delete(doc);
        doc = NULL;
    }
    if (pt2_k8s_nodes_parse_text(&kn, nodes, sizeof(nodes) - 1, &err) == PT2_OK &&
        pt2_k8s_compat_json(pkg, kn, &doc, &err) == PT2_OK)
        cJSON_Delete(doc);
cleanup:
    pt2_k8s_nodes_free(kn);
    pt2_verdicts_free(v);
    pt2_package_free(pkg);
    close(fd);
    return 0;
}
