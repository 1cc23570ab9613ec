/*
 * test_fatbin.c - fatbin walking: exact entry lists for every reference
 * fatbin (docs/cuda-elf-facts.md §4, bins/README.md), consecutive fatbins
 * with padding, and malformed headers (overflowing sizes, bad header sizes,
 * too many entries).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_fatbin.h"
#include "testutil.h"

static uint8_t *load(const char *rel, size_t *n)
{
    char path[512];
    uint8_t *b = tu_read_file(tu_fixture(rel, path, sizeof(path)), n);

    ck_assert_msg(b != NULL, "missing fixture %s", rel);
    return b;
}

struct ent {
    int kind;
    unsigned sm;
    char variant;
    const char *comp;
    int debug, abi;
    unsigned ptx_major, ptx_minor, vsm, toolkit;
    int elf_type, has_code;
};

/* Uncompressed cubin decoded in place / compressed cubin / PTX. */
#define ELF13(s, v)                                                                                \
    {                                                                                              \
        PT2_KERNEL_SASS, s, v, "", 0, 8, 0, 0, s, 130, 2, 1                                        \
    }
#define ELFZ(s, v)                                                                                 \
    {                                                                                              \
        PT2_KERNEL_SASS, s, v, "zstd", 0, 8, 0, 0, 0, 0, 0, -1                                     \
    }
#define PTX(s, v, c, ma, mi)                                                                       \
    {                                                                                              \
        PT2_KERNEL_PTX, s, v, c, 0, 0, ma, mi, 0, 0, 0, -1                                         \
    }
#define END                                                                                        \
    {                                                                                              \
        0, 0, 0, NULL, 0, 0, 0, 0, 0, 0, 0, 0                                                      \
    }

struct fat_case {
    const char *file;
    struct ent e[8];
};

static const struct fat_case fat_cases[] = {
    {"bins/fatbin/cuda13_mixed_default.fatbin",
     {ELF13(75, 0), ELF13(80, 0), ELF13(90, 'a'), ELF13(100, 'f'), ELF13(120, 0),
      PTX(120, 0, "zstd", 9, 0), PTX(90, 0, "zstd", 9, 0), END}},
    {"bins/fatbin/cuda13_mixed_nocompress.fatbin",
     {ELF13(75, 0), ELF13(80, 0), ELF13(90, 'a'), ELF13(100, 'f'), ELF13(120, 0),
      PTX(120, 0, "", 9, 0), PTX(90, 0, "", 9, 0), END}},
    {"bins/fatbin/cuda13_mixed_compress_all_zstd.fatbin",
     {ELFZ(75, 0), ELFZ(80, 0), ELFZ(90, 'a'), ELFZ(100, 'f'), ELFZ(120, 0),
      PTX(120, 0, "zstd", 9, 0), PTX(90, 0, "zstd", 9, 0), END}},
    {"bins/fatbin/cuda13_single_sm_90a.fatbin", {ELF13(90, 'a'), PTX(90, 'a', "zstd", 9, 0), END}},
    {"bins/fatbin/cuda13_single_sm_100a.fatbin",
     {ELF13(100, 'a'), PTX(100, 'a', "zstd", 9, 0), END}},
    {"bins/fatbin/cuda13_single_sm_100f.fatbin",
     {ELF13(100, 'f'), PTX(100, 'f', "zstd", 9, 0), END}},
    {"bins/fatbin/cuda13_single_sm_120f.fatbin",
     {ELF13(120, 'f'), PTX(120, 'f', "zstd", 9, 0), END}},
    {"bins/fatbin/cuda13_single_sm_121a.fatbin",
     {ELF13(121, 'a'), PTX(121, 'a', "zstd", 9, 0), END}},
    {"bins/fatbin/cuda13_sm_90_debug_G.fatbin",
     {{PT2_KERNEL_SASS, 90, 0, "zstd", 1, 8, 0, 0, 0, 0, 0, -1}, END}},
    {"bins/fatbin/cuda12.4_v7_default_lz4ptx.fatbin",
     {{PT2_KERNEL_SASS, 75, 0, "", 0, 7, 0, 0, 75, 124, 2, 1},
      {PT2_KERNEL_SASS, 90, 0, "", 0, 7, 0, 0, 90, 124, 2, 1},
      {PT2_KERNEL_SASS, 90, 'a', "", 0, 7, 0, 0, 90, 124, 2, 1},
      PTX(90, 0, "lz4", 8, 4),
      PTX(90, 'a', "lz4", 8, 4),
      END}},
    {"bins/fatbin/cuda12.4_v7_compress_all_lz4.fatbin",
     {{PT2_KERNEL_SASS, 75, 0, "lz4", 0, 7, 0, 0, 0, 0, 0, -1},
      {PT2_KERNEL_SASS, 90, 'a', "lz4", 0, 7, 0, 0, 0, 0, 0, -1},
      PTX(90, 0, "lz4", 8, 4),
      END}},
};

static void check_entries(const struct pt2_kernel_list *l, size_t first, const struct ent *e,
                          const char *what)
{
    size_t i;

    for (i = 0; e[i].comp != NULL; i++) {
        const struct pt2_kernel *k = &l->v[first + i];

        ck_assert_msg(first + i < l->n, "%s: missing entry %zu", what, i);
        ck_assert_int_eq(k->kind, e[i].kind);
        ck_assert_uint_eq(k->sm, e[i].sm);
        ck_assert_int_eq(k->variant, e[i].variant);
        ck_assert_str_eq(k->compression, e[i].comp);
        ck_assert_int_eq(k->debug, e[i].debug);
        ck_assert_int_eq(k->abi_version, e[i].abi);
        ck_assert_uint_eq(k->ptx_major, e[i].ptx_major);
        ck_assert_uint_eq(k->ptx_minor, e[i].ptx_minor);
        ck_assert_uint_eq(k->virtual_sm, e[i].vsm);
        ck_assert_uint_eq(k->toolkit, e[i].toolkit);
        ck_assert_int_eq(k->elf_type, e[i].elf_type);
        ck_assert_int_eq(k->has_code, e[i].has_code);
    }
    ck_assert_uint_eq(l->n, first + i);
}

START_TEST(test_every_reference_fatbin)
{
    const struct fat_case *c = &fat_cases[_i];
    struct pt2_rd rd;
    struct pt2_error err = {0};
    struct pt2_kernel tmpl;
    struct pt2_kernel_list l = {0};
    size_t n = 0, nfat = 9;
    uint8_t *b = load(c->file, &n);
    size_t i;

    memset(&tmpl, 0, sizeof(tmpl));
    tmpl.container = PT2_CONT_FATBIN;
    tmpl.source = "model/k.fatbin";
    pt2_rd_init_mem(&rd, b, n, c->file);
    pt2_rd_set_budget(&rd, PT2_RD_DEFAULT_BUDGET);
    ck_assert_int_eq(pt2_fatbin_scan(&rd, 0, n, 0, &tmpl, &l, &nfat, &err), PT2_OK);
    ck_assert_uint_eq(nfat, 1);
    check_entries(&l, 0, c->e, c->file);
    for (i = 0; i < l.n; i++) {
        ck_assert_int_eq(l.v[i].container, PT2_CONT_FATBIN);
        ck_assert_str_eq(l.v[i].source, "model/k.fatbin");
        ck_assert_str_eq(l.v[i].symbol, "");
    }
    /* Payloads are skipped; only entry headers and inner cubin headers are read. */
    ck_assert_uint_lt(rd.bytes_read, 12000);
    pt2_kernel_list_free(&l);
    free(b);
}
END_TEST

/* Build a fatbin: header plus `n` entries of (kind, arch, flags, payload size). */
struct spec {
    uint16_t kind;
    uint32_t arch;
    uint64_t flags, psz;
};

static size_t build(uint8_t *buf, const struct spec *s, size_t n)
{
    size_t off = 16, i;

    memset(buf, 0, 16);
    buf[0] = 0x50;
    buf[1] = 0xed;
    buf[2] = 0x55;
    buf[3] = 0xba;
    buf[4] = 1;
    buf[6] = 16;
    for (i = 0; i < n; i++) {
        uint8_t *e = buf + off;
        uint64_t f = s[i].flags, p = s[i].psz;
        int j;

        memset(e, 0, 64 + (size_t)s[i].psz);
        e[0] = (uint8_t)s[i].kind;
        e[2] = 1;
        e[3] = 1;
        e[4] = 64;
        for (j = 0; j < 8; j++)
            e[8 + j] = (uint8_t)(p >> (8 * j));
        e[0x18] = s[i].kind == 1 ? 5 : 8;
        e[0x1a] = s[i].kind == 1 ? 8 : 1;
        for (j = 0; j < 4; j++)
            e[0x1c + j] = (uint8_t)(s[i].arch >> (8 * j));
        for (j = 0; j < 8; j++)
            e[0x28 + j] = (uint8_t)(f >> (8 * j));
        off += 64 + (size_t)s[i].psz;
    }
    for (i = 0; i < 8; i++)
        buf[8 + i] = (uint8_t)((uint64_t)(off - 16) >> (8 * i));
    return off;
}

START_TEST(test_synthetic_entries_and_kinds)
{
    static const struct spec s[] = {
        {1, 89, 0x11, 24},     /* PTX 8.5, no payload parse */
        {4, 90, 0x11, 16},     /* unknown kind (LTO IR): skipped */
        {2, 80, 0x200011, 40}, /* ELF payload that is not an ELF: header facts only */
        {2, 100, 0x300013, 0}, /* both a and f flags: 'a' wins; debug bit */
    };
    uint8_t buf[1024];
    size_t n = build(buf, s, 4), nfat = 0;
    struct pt2_rd rd;
    struct pt2_error err = {0};
    struct pt2_kernel tmpl;
    struct pt2_kernel_list l = {0};

    memset(&tmpl, 0, sizeof(tmpl));
    pt2_rd_init_mem(&rd, buf, n, "synthetic.fatbin");
    ck_assert_int_eq(pt2_fatbin_scan(&rd, 0, n, 0, &tmpl, &l, &nfat, &err), PT2_OK);
    ck_assert_uint_eq(nfat, 1);
    ck_assert_uint_eq(l.n, 3);
    ck_assert_int_eq(l.v[0].kind, PT2_KERNEL_PTX);
    ck_assert_uint_eq(l.v[0].sm, 89);
    ck_assert_uint_eq(l.v[0].ptx_major, 8);
    ck_assert_uint_eq(l.v[0].ptx_minor, 5);
    ck_assert_int_eq(l.v[1].kind, PT2_KERNEL_SASS);
    ck_assert_uint_eq(l.v[1].sm, 80);
    ck_assert_int_eq(l.v[1].variant, 'f');
    ck_assert_int_eq(l.v[1].has_code, -1);
    ck_assert_uint_eq(l.v[1].virtual_sm, 0);
    ck_assert_int_eq(l.v[2].variant, 'a');
    ck_assert_int_eq(l.v[2].debug, 1);
    pt2_kernel_list_free(&l);
}
END_TEST

START_TEST(test_consecutive_fatbins_and_padding)
{
    static const struct spec a[] = {{2, 75, 0x8011, 12}}; /* 16+64+12 = 92 -> next at 96 */
    static const struct spec b[] = {{1, 90, 0x11, 8}};
    uint8_t buf[2048];
    size_t n1, n2, nfat = 0, end;
    struct pt2_rd rd;
    struct pt2_error err = {0};
    struct pt2_kernel tmpl;
    struct pt2_kernel_list l = {0};

    memset(buf, 0, sizeof(buf));
    memset(&tmpl, 0, sizeof(tmpl));
    n1 = build(buf, a, 1);
    ck_assert_uint_eq(n1, 92);
    n2 = build(buf + 96, b, 1); /* right after, 8-aligned */
    /* A third one after 256 bytes of zero padding. */
    ck_assert_uint_eq(n2, 88); /* ends at 184, itself 8-aligned */
    build(buf + 184 + 256, b, 1);
    end = 184 + 256 + n2;

    pt2_rd_init_mem(&rd, buf, end, ".nv_fatbin");
    ck_assert_int_eq(pt2_fatbin_scan(&rd, 0, end, 4096, &tmpl, &l, &nfat, &err), PT2_OK);
    ck_assert_uint_eq(nfat, 3);
    ck_assert_uint_eq(l.n, 3);
    ck_assert_uint_eq(l.v[0].sm, 75);
    ck_assert_str_eq(l.v[0].compression, "zstd");
    ck_assert_int_eq(l.v[2].kind, PT2_KERNEL_PTX);
    pt2_kernel_list_free(&l);

    /* Without a gap allowance the walk stops at the padding. */
    ck_assert_int_eq(pt2_fatbin_scan(&rd, 0, end, 0, &tmpl, &l, &nfat, &err), PT2_OK);
    ck_assert_uint_eq(nfat, 2);
    pt2_kernel_list_free(&l);

    /* A gap allowance smaller than the padding also stops there. */
    ck_assert_int_eq(pt2_fatbin_scan(&rd, 0, end, 128, &tmpl, &l, &nfat, &err), PT2_OK);
    ck_assert_uint_eq(nfat, 2);
    pt2_kernel_list_free(&l);

    /* Garbage only: nothing found, no error. */
    memset(buf, 0x33, 256);
    pt2_rd_init_mem(&rd, buf, 256, "junk");
    ck_assert_int_eq(pt2_fatbin_scan(&rd, 0, 256, 4096, &tmpl, &l, &nfat, &err), PT2_OK);
    ck_assert_uint_eq(nfat, 0);
    ck_assert_uint_eq(l.n, 0);
    ck_assert_int_eq(err.code, PT2_OK);
}
END_TEST

static void expect_error(uint8_t *buf, size_t n, int code, const char *msg)
{
    struct pt2_rd rd;
    struct pt2_error err = {0};
    struct pt2_kernel tmpl;
    struct pt2_kernel_list l = {0};

    memset(&tmpl, 0, sizeof(tmpl));
    pt2_rd_init_mem(&rd, buf, n, "bad.fatbin");
    ck_assert_int_eq(pt2_fatbin_scan(&rd, 0, n, 0, &tmpl, &l, NULL, &err), code);
    ck_assert_str_eq(err.message, msg);
    pt2_kernel_list_free(&l);
}

/* The arch field must be a plausible SM (10..999) for PTX and ELF entries. */
START_TEST(test_implausible_arch)
{
    static const struct {
        uint16_t kind;
        uint32_t arch;
    } bad[] = {{2, 0}, {2, 9}, {1, 1000}, {2, 4294967295u}, {1, 0x5a00}};
    static const struct spec edge[] = {{2, 10, 0x11, 0}, {1, 999, 0x11, 0}, {4, 0, 0x11, 0}};
    uint8_t buf[512];
    char want[PT2_ERROR_MSG_MAX];
    size_t n, k;

    for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        const struct spec two[] = {{2, 90, 0x11, 0}, {bad[k].kind, bad[k].arch, 0x11, 8}};

        n = build(buf, two, 2);
        snprintf(want, sizeof(want),
                 "bad.fatbin: fatbin at 0x0: entry 1 (offset 0x50) has an implausible arch %u "
                 "(expected 10..999)",
                 bad[k].arch);
        expect_error(buf, n, PT2_ERR_FORMAT, want);
    }

    /* the bounds themselves pass; a kind without code is not checked */
    {
        struct pt2_rd rd;
        struct pt2_error err = {0};
        struct pt2_kernel tmpl;
        struct pt2_kernel_list l = {0};

        memset(&tmpl, 0, sizeof(tmpl));
        n = build(buf, edge, 3);
        pt2_rd_init_mem(&rd, buf, n, "edge.fatbin");
        ck_assert_int_eq(pt2_fatbin_scan(&rd, 0, n, 0, &tmpl, &l, NULL, &err), PT2_OK);
        ck_assert_uint_eq(l.n, 2);
        ck_assert_uint_eq(l.v[0].sm, 10);
        ck_assert_uint_eq(l.v[1].sm, 999);
        pt2_kernel_list_free(&l);
    }
}
END_TEST

START_TEST(test_malformed_fatbins)
{
    static const struct spec one[] = {{2, 90, 0x11, 32}};
    uint8_t buf[512];
    size_t n;

    /* Payload size overflowing (2^64 - 1): no arithmetic wrap. */
    n = build(buf, one, 1);
    memset(buf + 16 + 8, 0xff, 8);
    expect_error(buf, n, PT2_ERR_FORMAT,
                 "bad.fatbin: fatbin at 0x0: entry 0 (offset 0x10, header 64 + payload "
                 "18446744073709551615 bytes) overflows the fatbin (96 bytes left)");

    /* Entry header size below the fixed part. */
    n = build(buf, one, 1);
    buf[16 + 4] = 8;
    expect_error(buf, n, PT2_ERR_FORMAT,
                 "bad.fatbin: fatbin at 0x0: entry 0 (offset 0x10) has an invalid header size 8");

    /* Entry header size absurdly large. */
    n = build(buf, one, 1);
    buf[16 + 4] = 0;
    buf[16 + 5] = 0;
    buf[16 + 6] = 1; /* 65536 */
    expect_error(buf, n, PT2_ERR_FORMAT,
                 "bad.fatbin: fatbin at 0x0: entry 0 (offset 0x10) has an invalid header size "
                 "65536");

    /* Fat size claims more than the input holds. */
    n = build(buf, one, 1);
    buf[8 + 4] = 1; /* + 2^32 */
    expect_error(buf, n, PT2_ERR_FORMAT,
                 "bad.fatbin: fatbin at 0x0 claims 4294967392 bytes of entries but only 96 "
                 "remain");

    /* Fatbin header size field of 0. */
    n = build(buf, one, 1);
    buf[6] = 0;
    expect_error(buf, n, PT2_ERR_FORMAT, "bad.fatbin: fatbin at 0x0 has an invalid header size 0");

    /* Fat size cuts an entry header short. */
    n = build(buf, one, 1);
    buf[8] = 40;
    expect_error(buf, n, PT2_ERR_FORMAT,
                 "bad.fatbin: fatbin at 0x0: entry 0 (offset 0x10) header is truncated (40 bytes "
                 "left)");

    /* An uncompressed ELF payload that is a broken cubin: the cubin error surfaces. */
    {
        size_t cn = 0;
        uint8_t *cub = load("bins/cubin_cuda13/sm_90a.cubin", &cn);
        uint8_t *big = malloc(16 + 64 + cn);
        struct spec s = {2, 90, 0x11, cn};

        build(big, &s, 1);
        memcpy(big + 80, cub, cn);
        big[80 + 60] = 0xff; /* e_shnum = 0xff0f */
        big[80 + 61] = 0xff;
        expect_error(big, 80 + cn, PT2_ERR_FORMAT,
                     "bad.fatbin@0x50: ELF section header table (offset 0xa28, 65535 entries) "
                     "lies beyond the end of the file (3840 bytes)");
        free(big);
        free(cub);
    }
}
END_TEST

START_TEST(test_entry_cap)
{
    size_t count = PT2_FATBIN_ENTRIES_MAX + 1, n, i;
    struct spec *s = calloc(count, sizeof(*s));
    uint8_t *buf = malloc(16 + count * 64);

    for (i = 0; i < count; i++)
        s[i].kind = 3; /* skipped kind: the cap still applies */
    n = build(buf, s, count);
    expect_error(buf, n, PT2_ERR_TOO_LARGE, "bad.fatbin: fatbin at 0x0 has more than 4096 entries");
    free(buf);
    free(s);
}
END_TEST

START_TEST(test_region_checks)
{
    uint8_t buf[64];
    struct pt2_rd rd;
    struct pt2_error err = {0};
    struct pt2_kernel tmpl;
    struct pt2_kernel_list l = {0};
    size_t nfat = 5;

    memset(buf, 0, sizeof(buf));
    memset(&tmpl, 0, sizeof(tmpl));
    pt2_rd_init_mem(&rd, buf, sizeof(buf), "region");
    ck_assert_int_eq(pt2_fatbin_scan(&rd, 32, 64, 0, &tmpl, &l, &nfat, &err), PT2_ERR_FORMAT);
    ck_assert_str_eq(err.message,
                     "region: fatbin region at 0x20 (64 bytes) lies beyond the end (64 bytes)");
    /* Empty region: nothing, no error. */
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_fatbin_scan(&rd, 64, 0, 0, &tmpl, &l, &nfat, &err), PT2_OK);
    ck_assert_uint_eq(nfat, 0);
    ck_assert_int_eq(pt2_fatbin_probe(buf, 4), 0);
    buf[0] = 0x50;
    buf[1] = 0xed;
    buf[2] = 0x55;
    buf[3] = 0xba;
    ck_assert_int_eq(pt2_fatbin_probe(buf, 4), 1);
    ck_assert_int_eq(pt2_fatbin_probe(buf, 3), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fatbin");
    TCase *tc = tcase_create("core");

    tcase_add_loop_test(tc, test_every_reference_fatbin, 0,
                        (int)(sizeof(fat_cases) / sizeof(fat_cases[0])));
    tcase_add_test(tc, test_synthetic_entries_and_kinds);
    tcase_add_test(tc, test_consecutive_fatbins_and_padding);
    tcase_add_test(tc, test_malformed_fatbins);
    tcase_add_test(tc, test_implausible_arch);
    tcase_add_test(tc, test_entry_cap);
    tcase_add_test(tc, test_region_checks);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
