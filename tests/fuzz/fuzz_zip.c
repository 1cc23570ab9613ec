/*
 * fuzz_zip.c - libFuzzer harness with a differential check of the zip
 * reader: the input read through pt2_zip's direct reader and through libzip
 * alone (PT2_ZIP_OPEN_LIBZIP) must give the same open status and message,
 * the same entries, and the same bytes or the same error from every whole,
 * tail and random read of every entry (what test_zip's zip_agree checks on
 * fixed files). A difference aborts, which libFuzzer reports as a crash.
 * Seeds: the fixtures and the differential seeds (tests/fuzz/run.sh).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pt2_zip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_ENTRIES_MAX 64u          /* entries compared per input */
#define FZ_SMALL_MAX (256u * 1024u) /* whole reads up to this size */

static void fz_same(int ra, const struct pt2_error *ea, int rb, const struct pt2_error *eb,
                    const char *what, size_t i)
{
    if (ra != rb || strcmp(ea->message, eb->message) != 0) {
        fprintf(stderr, "%s %zu: direct %d '%s', libzip %d '%s'\n", what, i, ra, ea->message, rb,
                eb->message);
        abort();
    }
}

static void fz_same_bytes(const void *a, const void *b, size_t n, const char *what, size_t i)
{
    if (n > 0 && memcmp(a, b, n) != 0) {
        fprintf(stderr, "%s %zu: different bytes\n", what, i);
        abort();
    }
}

static void fz_entry(pt2_zip *a, pt2_zip *b, size_t i)
{
    struct pt2_error ea = {0}, eb = {0};
    char *oa = NULL, *ob = NULL, ba[128], bb[128];
    size_t na = 0, nb = 0;
    uint64_t size = pt2_zip_entry_size(a, i);
    pt2_zip_entry *xa = NULL, *xb = NULL;
    int ra, rb;

    if (strcmp(pt2_zip_name(a, i), pt2_zip_name(b, i)) != 0 || size != pt2_zip_entry_size(b, i) ||
        pt2_zip_entry_csize(a, i) != pt2_zip_entry_csize(b, i) ||
        pt2_zip_entry_stored(a, i) != pt2_zip_entry_stored(b, i)) {
        fprintf(stderr, "entry %zu: listed differently\n", i);
        abort();
    }
    ra = pt2_zip_read_small(a, i, FZ_SMALL_MAX, &oa, &na, &ea);
    rb = pt2_zip_read_small(b, i, FZ_SMALL_MAX, &ob, &nb, &eb);
    fz_same(ra, &ea, rb, &eb, "read_small", i);
    if (na != nb)
        abort();
    fz_same_bytes(oa, ob, na, "read_small", i);
    free(oa);
    free(ob);
    pt2_error_clear(&ea);
    pt2_error_clear(&eb);
    ra = pt2_zip_entry_open(a, i, &xa, &ea);
    rb = pt2_zip_entry_open(b, i, &xb, &eb);
    fz_same(ra, &ea, rb, &eb, "entry_open", i);
    if (ra == PT2_OK) {
        uint64_t at[2] = {size / 3, size > 40 ? size - 40 : 0};

        for (int k = 0; k < 2; k++) {
            size_t n = size - at[k] < sizeof(ba) ? (size_t)(size - at[k]) : sizeof(ba);

            pt2_error_clear(&ea);
            pt2_error_clear(&eb);
            ra = pt2_rd_read(pt2_zip_entry_rd(xa), at[k], ba, n, &ea);
            rb = pt2_rd_read(pt2_zip_entry_rd(xb), at[k], bb, n, &eb);
            fz_same(ra, &ea, rb, &eb, "rd_read", i);
            if (ra == PT2_OK)
                fz_same_bytes(ba, bb, n, "rd_read", i);
        }
    }
    pt2_zip_entry_free(xa);
    pt2_zip_entry_free(xb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct pt2_error ea = {0}, eb = {0};
    pt2_source *sa = NULL, *sb = NULL;
    pt2_zip *a = NULL, *b = NULL;
    int fd = memfd_create("fuzz", 0), ra, rb;

    if (fd < 0)
        return 0;
    if (write(fd, data, size) != (ssize_t)size || pt2_source_new_fd(&sa, fd, NULL, &ea) != PT2_OK ||
        pt2_source_new_fd(&sb, fd, NULL, &eb) != PT2_OK)
        goto cleanup;
    ra = pt2_zip_open_source_opts(&a, sa, 0, &ea);
    rb = pt2_zip_open_source_opts(&b, sb, PT2_ZIP_OPEN_LIBZIP, &eb);
    /* out of memory on one side only is not a difference in what the readers decide */
    if (ra == PT2_ERR_NOMEM || rb == PT2_ERR_NOMEM)
        goto cleanup;
    fz_same(ra, &ea, rb, &eb, "open", 0);
    if (ra == PT2_OK) {
        if (pt2_zip_count(a) != pt2_zip_count(b) ||
            strcmp(pt2_zip_prefix(a), pt2_zip_prefix(b)) != 0)
            abort();
        for (size_t i = 0; i < pt2_zip_count(a) && i < FZ_ENTRIES_MAX; i++)
            fz_entry(a, b, i);
    }
cleanup:
    pt2_zip_free(a);
    pt2_zip_free(b);
    pt2_source_free(sa);
    pt2_source_free(sb);
    close(fd);
    return 0;
}
