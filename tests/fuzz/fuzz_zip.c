/*
 * fuzz_zip.c - libFuzzer harness with a differential check of the zip
 * reader: the input read through pt2_zip's direct reader and through libzip
 * alone (PT2_ZIP_OPEN_LIBZIP) must give the same open status and message,
 * the same entries, and the same bytes or the same error from every whole,
 * tail and random read of every entry: test_zip's oracle (tests/support/
 * zipdiff.c) on arbitrary bytes. A difference aborts, which libFuzzer
 * reports as a crash. Seeds: the fixtures and the differential seeds
 * (tests/fuzz/run.sh).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../support/zipdiff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the first 64 entries, whole reads up to 256 KiB: a few ms per input */
    static const struct zipdiff_opts some = {64, 256u * 1024u};
    char why[2048];
    int direct, fd = memfd_create("fuzz", 0);

    if (fd < 0)
        return 0;
    if (write(fd, data, size) == (ssize_t)size &&
        zipdiff_fd(fd, &some, &direct, why, sizeof(why)) != 0) {
        fprintf(stderr, "%s\n", why);
        abort();
    }
    close(fd);
    return 0;
}
