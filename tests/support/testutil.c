/*
 * testutil.c - see testutil.h.
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testutil.h"

uint8_t *tu_read_file(const char *path, size_t *len_out)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    long n;

    if (f == NULL)
        return NULL;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
        goto cleanup;
    buf = malloc((size_t)n + 1);
    if (buf == NULL)
        goto cleanup;
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
        goto cleanup;
    }
    buf[n] = 0;
    if (len_out)
        *len_out = (size_t)n;
cleanup:
    fclose(f);
    return buf;
}

const char *tu_fixture(const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "tests/fixtures/%s", name);
    return buf;
}

const char *tu_shared(const char *rel, char *buf, size_t len)
{
    const char *root = getenv("PT2SCOPE_SHARED");
    char probe[1024];

    if (root == NULL || root[0] == '\0')
        root = "../shared";
    snprintf(probe, sizeof(probe), "%s/%s", root, rel);
    if (!tu_exists(probe)) {
        /* CI sets this so that a missing ../shared fails instead of skipping. */
        const char *req = getenv("PT2SCOPE_REQUIRE_CORPUS");
        if (req != NULL && strcmp(req, "1") == 0)
            ck_abort_msg("%s is absent and PT2SCOPE_REQUIRE_CORPUS=1", probe);
        return NULL;
    }
    snprintf(buf, len, "%s", probe);
    return buf;
}

int tu_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

void tu_skip(const char *what, const char *why)
{
    fprintf(stderr, "SKIP %s: %s\n", what, why);
}

const char *tu_build_dir(void)
{
    const char *b = getenv("PT2SCOPE_BUILD");
    return (b != NULL && b[0] != '\0') ? b : "build";
}

int tu_run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

int tu_each_file(const char *dir, const char *suffix,
                 int (*fn)(const char *path, const char *name, void *ctx), void *ctx)
{
    char path[4096];
    struct dirent *de;
    DIR *d = opendir(dir);
    size_t k = strlen(suffix);
    int sum = 0;

    if (d == NULL)
        return 0;
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        struct stat st;

        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        if (de->d_name[0] == '.' || len < k || strcmp(de->d_name + len - k, suffix) != 0 ||
            stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        sum += fn(path, de->d_name, ctx);
    }
    closedir(d);
    return sum;
}

void tu_put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

size_t tu_macho_dylib(uint8_t *out, const struct tu_macho_cmd *c, size_t n)
{
    size_t off = 32, i;

    memset(out, 0, TU_MACHO_MAX);
    tu_put_le32(out, 0xfeedfacfu);     /* MH_MAGIC_64 */
    tu_put_le32(out + 4, 0x0100000cu); /* CPU_TYPE_ARM64 */
    tu_put_le32(out + 12, 6);          /* MH_DYLIB */
    for (i = 0; i < n && off + 24 <= TU_MACHO_MAX; i++) {
        uint32_t size = c[i].cmd == 0x32u ? 24 : 16;

        tu_put_le32(out + off, c[i].cmd);
        tu_put_le32(out + off + 4, size);
        if (c[i].cmd == 0x32u) {
            tu_put_le32(out + off + 8, c[i].platform);
            tu_put_le32(out + off + 12, c[i].version); /* minos */
            tu_put_le32(out + off + 16, c[i].version); /* sdk */
        } else {
            tu_put_le32(out + off + 8, c[i].version);
            tu_put_le32(out + off + 12, c[i].version);
        }
        off += size;
    }
    tu_put_le32(out + 16, (uint32_t)i);          /* ncmds */
    tu_put_le32(out + 20, (uint32_t)(off - 32)); /* sizeofcmds */
    return off;
}
