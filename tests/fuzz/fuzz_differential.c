/*
 * fuzz_differential.c - libFuzzer harness with a differential check: the
 * same package read through the byte source's block cache (default tuning),
 * through a tiny cache that evicts all the time, and `direct` (every read
 * to the descriptor as asked, nothing cached or planned) must give the same
 * answer: the same status and message, or the same document (bytes_read
 * aside, which is what the cache changes). A difference aborts, which
 * libFuzzer reports as a crash. Seeds: the fixtures, and one input per
 * hostile case of the attack run (tests/fuzz/seeds/differential).
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

/* The answer through one tuning: "rc message" or the document, malloc'd; NULL out of memory. */
static char *answer(int fd, const struct pt2_source_tuning *t)
{
    struct pt2_error err = {0};
    pt2_source *src = NULL;
    pt2_package *pkg = NULL;
    cJSON *doc = NULL;
    char *text = NULL;
    int rc = pt2_source_new_fd(&src, fd, t, &err);

    if (rc == PT2_OK)
        rc = pt2_package_open_source(&pkg, src, NULL, &err);
    if (rc == PT2_OK)
        rc = pt2_package_to_json(pkg, PT2_JSON_DEFAULT, &doc, &err);
    if (rc == PT2_OK) {
        cJSON_DeleteItemFromObjectCaseSensitive(doc, "bytes_read");
        text = cJSON_PrintUnformatted(doc);
    } else {
        size_t n = strlen(err.message) + 16;

        text = malloc(n);
        if (text != NULL)
            snprintf(text, n, "%d %s", rc, err.message);
    }
    cJSON_Delete(doc);
    pt2_package_free(pkg);
    pt2_source_free(src);
    return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const struct pt2_source_tuning cached = {0, 0, 0, 0, 0};
    static const struct pt2_source_tuning tiny = {512, 512, 512, 4096, 0};
    static const struct pt2_source_tuning direct = {0, 0, 0, 0, 1};
    char *a = NULL, *b = NULL, *c = NULL;
    int fd = memfd_create("fuzz", 0);

    if (fd < 0)
        return 0;
    if (write(fd, data, size) == (ssize_t)size) {
        a = answer(fd, &cached);
        b = answer(fd, &tiny);
        c = answer(fd, &direct);
    }
    /* out of memory under one tuning only is not a difference in what was read */
    if (a != NULL && b != NULL && c != NULL && (strcmp(a, b) != 0 || strcmp(a, c) != 0)) {
        fprintf(stderr, "cached:\n%.2000s\ntiny cache:\n%.2000s\ndirect:\n%.2000s\n", a, b, c);
        abort();
    }
    free(a);
    free(b);
    free(c);
    close(fd);
    return 0;
}
