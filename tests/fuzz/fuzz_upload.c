/*
 * fuzz_upload.c - libFuzzer harness with a differential check for uploads
 * inspected as they stream (pt2_upload): the input's first byte picks the
 * slice size (1..256 bytes, and every 8th input one slice of all), the rest
 * is the package. Whatever the stream, either the upload is refused
 * (PT2_ERR_UNSUPPORTED: not followed after bytes were dropped; PT2_ERR_ENTRY:
 * a dropped entry does not match its CRC-32), and then something was
 * dropped, or its answer is the answer the whole file gives: the same status
 * and message, or the same document. A difference aborts. Seeds: the
 * fixtures and torch-like packages with weights big enough to be dropped
 * (tests/fuzz/seeds/upload).
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

/* "rc message" or the document, malloc'd; NULL out of memory. */
static char *answer(pt2_source *src, int rc, struct pt2_error *err)
{
    pt2_package *pkg = NULL;
    cJSON *doc = NULL;
    char *text = NULL;

    if (rc == PT2_OK)
        rc = pt2_package_open_source(&pkg, src, NULL, err);
    if (rc == PT2_OK)
        rc = pt2_package_to_json(pkg, PT2_JSON_DEFAULT, &doc, err);
    if (rc == PT2_OK) {
        text = cJSON_PrintUnformatted(doc);
    } else {
        size_t n = strlen(err->message) + 16;

        text = malloc(n);
        if (text != NULL)
            snprintf(text, n, "%d %s", rc, err->message);
    }
    cJSON_Delete(doc);
    pt2_package_free(pkg);
    return text;
}

static int spill(void *ctx, int *fd, struct pt2_error *err)
{
    int *f = ctx;

    if (*f < 0)
        *f = memfd_create("fuzz-spill", 0);
    *fd = *f;
    return *f >= 0 ? PT2_OK : pt2_error_set(err, PT2_ERR_IO, "no memfd");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct pt2_error e1 = {0}, e2 = {0};
    int fd = memfd_create("fuzz", 0), spill_fd = -1, rc, rc1;
    struct pt2_upload_options o = {4096, spill, &spill_fd, 0, NULL};
    pt2_source *whole = NULL, *streamed = NULL;
    pt2_upload *u = NULL;
    char *a = NULL, *b = NULL;
    size_t slice;

    if (size < 1 || fd < 0) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    slice = data[0] % 8 == 7 ? size : (size_t)data[0] + 1;
    data++;
    size--;
    if (write(fd, data, size) != (ssize_t)size || pt2_upload_new(&u, &o, &e2) != PT2_OK)
        goto done;
    for (size_t off = 0; off < size; off += slice)
        if (pt2_upload_feed(u, data + off, size - off < slice ? size - off : slice, &e2) != PT2_OK)
            goto done;
    if (pt2_upload_finish(u, &e2) != PT2_OK)
        goto done;
    rc = pt2_upload_source(u, &streamed, &e2);
    if (rc == PT2_ERR_UNSUPPORTED || rc == PT2_ERR_ENTRY) {
        if (pt2_upload_kept(u) == pt2_upload_size(u)) {
            fprintf(stderr, "refused with nothing dropped: %s\n", e2.message);
            abort();
        }
        goto done;
    }
    rc1 = pt2_source_new_fd(&whole, fd, NULL, &e1);
    a = answer(whole, rc1, &e1);
    b = answer(streamed, rc, &e2);
    if (a != NULL && b != NULL && strcmp(a, b) != 0) {
        fprintf(stderr, "whole file:\n%.2000s\nstreamed:\n%.2000s\n", a, b);
        abort();
    }
done:
    free(a);
    free(b);
    pt2_source_free(whole);
    pt2_upload_free(u);
    if (spill_fd >= 0)
        close(spill_fd);
    close(fd);
    return 0;
}
