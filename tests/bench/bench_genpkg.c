/*
 * bench_genpkg.c - write a torch >= 2.8 style .pt2 of any weights size and
 * entry count, for the inspection benchmark.
 *
 * The records are written by tests/support/bigzip.c's writer (the tests'
 * 5 GiB package uses it too): a PyTorchStreamWriter look-alike with stored
 * records, FB padding to 64 bytes, data descriptors, zip64 extras past 4 GiB
 * and zip64 end records always.
 *
 * Layout: `entries - 8` weight records data/weights/weight_<i> sharing
 * `weights` bytes (holes made with lseek, so 8 GiB costs no disk), then the
 * AOTI model (wrapper .so, its metadata, one .cubin), then the five
 * trailer records. Weights come first so the model's headers sit past the
 * weights, at zip64 offsets for the big packages.
 *
 * usage: bench_genpkg OUT.pt2 WEIGHTS ENTRIES SO CUBIN
 *        WEIGHTS takes K/M/G suffixes (powers of 1024); 9 <= ENTRIES <= 1,000,000.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bigzip.h"

#define GP_FIXED 8u /* .so, metadata, cubin and the five trailer records */
#define GP_ENTRIES_MAX 1000000u
#define GP_WEIGHTS_MAX (1ull << 44) /* 16 TiB of holes is plenty */
#define GP_NAME_MAX 160u

/* "8G", "1M", "123" -> bytes; -1 on anything else. */
static int gp_parse_size(const char *s, uint64_t *out)
{
    unsigned long long v;
    char *end = NULL;
    unsigned shift = 0;

    if (s[0] < '0' || s[0] > '9')
        return -1;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno == ERANGE || end == s)
        return -1;
    switch (*end) {
    case '\0':
        break;
    case 'K':
        shift = 10;
        break;
    case 'M':
        shift = 20;
        break;
    case 'G':
        shift = 30;
        break;
    default:
        return -1;
    }
    if (*end != '\0' && end[1] != '\0')
        return -1;
    if (v > (GP_WEIGHTS_MAX >> shift))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

static int gp_write_package(struct bigzip_writer *w, uint64_t weights, size_t entries,
                            const uint8_t *so, size_t so_len, const uint8_t *cubin,
                            size_t cubin_len)
{
    static const char meta[] = "{\"AOTI_DEVICE_KEY\": \"cuda\", \"AOTI_PLATFORM\": \"linux\", "
                               "\"AOTI_MACHINE\": \"x86_64\", \"AOTI_CPU_ISA\": \"AVX512\", "
                               "\"AOTI_COMPUTE_CAPABILITY\": \"90\"}";
    static const char model[] = "data/aotinductor/model/";
    static const char hw[] = "cbenchwrapper0000000000000000000000000000000000000000";
    size_t nweights = entries - GP_FIXED, i;
    uint64_t each = weights / nweights;
    char rel[GP_NAME_MAX];

    for (i = 0; i < nweights; i++) {
        /* The last weight takes the remainder so the total is exact. */
        uint64_t size = i + 1 == nweights ? weights - each * (nweights - 1) : each;

        snprintf(rel, sizeof(rel), "data/weights/weight_%zu", i);
        if (bigzip_add(w, rel, NULL, size) < 0)
            return -1;
    }
    snprintf(rel, sizeof(rel), "%s%s.wrapper.so", model, hw);
    if (bigzip_add(w, rel, so, so_len) < 0)
        return -1;
    snprintf(rel, sizeof(rel), "%s%s.wrapper_metadata.json", model, hw);
    if (bigzip_add(w, rel, meta, sizeof(meta) - 1) < 0)
        return -1;
    snprintf(rel, sizeof(rel), "%scbenchkernel0.cubin", model);
    if (bigzip_add(w, rel, cubin, cubin_len) < 0)
        return -1;
    return bigzip_add_trailer(w);
}

int main(int argc, char **argv)
{
    struct bigzip_writer *w = NULL;
    uint8_t *so = NULL, *cubin = NULL;
    size_t so_len = 0, cubin_len = 0;
    uint64_t weights = 0, entries = 0;
    const char *out;
    int rc = 1;

    if (argc != 6) {
        fprintf(stderr, "usage: %s OUT.pt2 WEIGHTS ENTRIES SO CUBIN\n", argv[0]);
        return 2;
    }
    out = argv[1];
    if (gp_parse_size(argv[2], &weights) < 0) {
        fprintf(stderr, "bench_genpkg: bad weights size '%s' (e.g. 1M, 8G)\n", argv[2]);
        return 2;
    }
    if (gp_parse_size(argv[3], &entries) < 0 || entries <= GP_FIXED || entries > GP_ENTRIES_MAX) {
        fprintf(stderr, "bench_genpkg: entries '%s' must be %u..%u\n", argv[3], GP_FIXED + 1,
                GP_ENTRIES_MAX);
        return 2;
    }
    so = bigzip_slurp(argv[4], &so_len);
    if (so == NULL) {
        fprintf(stderr, "bench_genpkg: cannot read %s: %s\n", argv[4], strerror(errno));
        goto cleanup;
    }
    cubin = bigzip_slurp(argv[5], &cubin_len);
    if (cubin == NULL) {
        fprintf(stderr, "bench_genpkg: cannot read %s: %s\n", argv[5], strerror(errno));
        goto cleanup;
    }
    w = bigzip_open(out, (size_t)entries);
    if (w == NULL) {
        fprintf(stderr, "bench_genpkg: cannot create %s: %s\n", out, strerror(errno));
        goto cleanup;
    }
    if (gp_write_package(w, weights, (size_t)entries, so, so_len, cubin, cubin_len) < 0) {
        fprintf(stderr, "bench_genpkg: writing %s: %s\n", out, strerror(errno));
        bigzip_abort(w);
        goto cleanup;
    }
    if (bigzip_close(w) != 0) {
        fprintf(stderr, "bench_genpkg: finishing %s: %s\n", out, strerror(errno));
        goto cleanup;
    }
    rc = 0;
cleanup:
    if (rc != 0)
        unlink(out);
    free(so);
    free(cubin);
    return rc;
}
