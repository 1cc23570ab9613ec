/*
 * bench_needs.c - what reading the runtime needs adds to an inspection: the
 * bytes of the dynamic sections pt2_dyn_read() reads and the time it takes,
 * beside a whole inspection of the package the library came from.
 *
 * One needs sample = pt2_elf_open + pt2_dyn_read(IMPORTS) + classification
 * of the library in memory (the bytes are counted by the reader); one
 * inspection sample = pt2_package_open_path + pt2_package_to_json + free.
 * Medians over at least MIN_MS milliseconds each.
 *
 * usage: bench_needs OUT.json MIN_MS LABEL PACKAGE LIBRARY [LABEL PACKAGE LIBRARY ...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cJSON.h>

#include "pt2_dynamic.h"
#include "pt2_elf.h"
#include "pt2_needs.h"
#include "pt2_shims.h"
#include "pt2scope.h"

#define BN_MAX_SAMPLES 200000u

static double bn_now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int bn_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static uint8_t *bn_read(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    uint8_t *b = NULL;
    long len;

    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 ||
        fseek(f, 0, SEEK_SET) != 0 || (b = malloc((size_t)len + 1)) == NULL ||
        fread(b, 1, (size_t)len, f) != (size_t)len) {
        free(b);
        b = NULL;
    }
    if (f != NULL)
        fclose(f);
    *n = b != NULL ? (size_t)len : 0;
    return b;
}

/* One needs reading; its bytes into *bytes. */
static int bn_needs(const uint8_t *b, size_t n, uint64_t *bytes, size_t *imports)
{
    struct pt2_error err = {0};
    struct pt2_needs *nd = pt2_needs_new(1);
    struct pt2_elf elf;
    struct pt2_rd rd;
    int rc = PT2_ERR_NOMEM;

    pt2_rd_init_mem(&rd, b, n, "lib.so");
    if (nd != NULL && (rc = pt2_elf_open(&elf, &rd, 0, n, &err)) == PT2_OK) {
        uint64_t headers;
        rc = pt2_elf_load_sections(&elf, &err);
        headers = rd.bytes_read; /* the inspection reads these for the kernels anyway */
        if (rc == PT2_OK)
            rc = pt2_dyn_read(&elf, PT2_DYN_IMPORTS, nd, &err);
        if (rc == PT2_OK)
            pt2_shims_classify_needs(nd);
        *bytes = rd.bytes_read - headers;
        *imports = nd->nimports;
        pt2_elf_close(&elf);
    }
    pt2_needs_free(nd);
    return rc;
}

static int bn_inspect(const char *path, uint64_t *bytes)
{
    struct pt2_error err = {0};
    pt2_package *pkg = NULL;
    cJSON *doc = NULL;
    int rc = pt2_package_open_path(&pkg, path, NULL, &err);

    if (rc == PT2_OK)
        rc = pt2_package_to_json(pkg, 0, &doc, &err);
    if (rc == PT2_OK)
        *bytes = pt2_package_bytes_read(pkg);
    cJSON_Delete(doc);
    pt2_package_free(pkg);
    return rc;
}

static double bn_median(double *s, size_t n)
{
    qsort(s, n, sizeof(*s), bn_cmp);
    return n > 0 ? s[n / 2] : 0;
}

int main(int argc, char **argv)
{
    double *s = malloc(BN_MAX_SAMPLES * sizeof(*s));
    cJSON *out = cJSON_CreateArray();
    long min_ms;

    if (argc < 6 || (argc - 3) % 3 != 0 || s == NULL || out == NULL) {
        fprintf(stderr, "usage: %s OUT.json MIN_MS LABEL PACKAGE LIBRARY ...\n", argv[0]);
        return 2;
    }
    min_ms = (long)strtol(argv[2], NULL, 10);
    printf("%-24s %12s %12s %8s %12s %12s %8s %8s\n", "package", "needs bytes", "inspect B",
           "share", "needs us", "inspect us", "share", "imports");
    for (int i = 3; i + 2 < argc; i += 3) {
        size_t n = 0, k, imports = 0;
        uint8_t *lib = bn_read(argv[i + 2], &n);
        uint64_t nb = 0, ib = 0;
        double t0, needs_us, insp_us;
        cJSON *o;

        if (lib == NULL || bn_needs(lib, n, &nb, &imports) != PT2_OK ||
            bn_inspect(argv[i + 1], &ib) != PT2_OK) {
            fprintf(stderr, "bench_needs: %s: cannot read\n", argv[i + 1]);
            return 1;
        }
        for (k = 0, t0 = bn_now_us(); k < BN_MAX_SAMPLES && (k < 5 || bn_now_us() - t0 < min_ms * 1e3); k++) {
            double a = bn_now_us();
            bn_needs(lib, n, &nb, &imports);
            s[k] = bn_now_us() - a;
        }
        needs_us = bn_median(s, k);
        for (k = 0, t0 = bn_now_us(); k < BN_MAX_SAMPLES && (k < 5 || bn_now_us() - t0 < min_ms * 1e3); k++) {
            double a = bn_now_us();
            bn_inspect(argv[i + 1], &ib);
            s[k] = bn_now_us() - a;
        }
        insp_us = bn_median(s, k);
        printf("%-24s %12llu %12llu %7.1f%% %12.1f %12.1f %7.1f%% %8zu\n", argv[i],
               (unsigned long long)nb, (unsigned long long)ib, ib ? 100.0 * (double)nb / (double)ib : 0,
               needs_us, insp_us, insp_us > 0 ? 100.0 * needs_us / insp_us : 0, imports);
        o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "package", argv[i]);
        cJSON_AddNumberToObject(o, "needs_bytes", (double)nb);
        cJSON_AddNumberToObject(o, "inspection_bytes", (double)ib);
        cJSON_AddNumberToObject(o, "needs_us", needs_us);
        cJSON_AddNumberToObject(o, "inspection_us", insp_us);
        cJSON_AddNumberToObject(o, "imports", (double)imports);
        cJSON_AddItemToArray(out, o);
        free(lib);
    }
    {
        char *text = cJSON_Print(out);
        FILE *f = fopen(argv[1], "w");
        if (text == NULL || f == NULL || fputs(text, f) < 0) {
            fprintf(stderr, "bench_needs: cannot write %s\n", argv[1]);
            return 1;
        }
        fputs("\n", f);
        fclose(f);
        free(text);
    }
    cJSON_Delete(out);
    free(s);
    return 0;
}
