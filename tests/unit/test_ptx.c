/*
 * test_ptx.c - PTX header parsing: the reference .ptx files (bins/ptx),
 * fatbin-style PTX (blank lines, no banner), target options, and text that
 * must not be taken for PTX (C++ sources, missing directives, bad numbers).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_ptx.h"
#include "testutil.h"

struct ptx_case {
    const char *file;
    unsigned sm;
    char variant;
    unsigned major, minor;
};

static const struct ptx_case files[] = {
    {"bins/ptx/compute_90.ptx", 90, 0, 9, 0},        {"bins/ptx/compute_90a.ptx", 90, 'a', 9, 0},
    {"bins/ptx/compute_100f.ptx", 100, 'f', 9, 0},   {"bins/ptx/compute_120f.ptx", 120, 'f', 9, 0},
    {"bins/ptx/compute_90_isa8.4.ptx", 90, 0, 8, 4},
};

START_TEST(test_reference_ptx_files)
{
    const struct ptx_case *c = &files[_i];
    char path[512];
    struct pt2_rd rd;
    struct pt2_error err = {0};
    struct pt2_kernel k;
    size_t n = 0;
    int found = 0;
    uint8_t *b = tu_read_file(tu_fixture(c->file, path, sizeof(path)), &n);

    ck_assert_ptr_nonnull(b);
    ck_assert_int_eq(pt2_ptx_probe(b, n), 1);
    memset(&k, 0, sizeof(k));
    pt2_rd_init_mem(&rd, b, n, c->file);
    ck_assert_int_eq(pt2_ptx_scan(&rd, 0, n, &k, &found, &err), PT2_OK);
    ck_assert_int_eq(found, 1);
    ck_assert_int_eq(k.kind, PT2_KERNEL_PTX);
    ck_assert_uint_eq(k.sm, c->sm);
    ck_assert_int_eq(k.variant, c->variant);
    ck_assert_uint_eq(k.ptx_major, c->major);
    ck_assert_uint_eq(k.ptx_minor, c->minor);
    ck_assert_int_eq(k.debug, 0);
    free(b);
}
END_TEST

static int parse(const char *text, struct pt2_kernel *k)
{
    memset(k, 0, sizeof(*k));
    return pt2_ptx_parse(text, strlen(text), k);
}

START_TEST(test_header_variants)
{
    struct pt2_kernel k;

    /* As stored in fatbins: comments blanked, NUL padded. */
    ck_assert_int_eq(parse("\n\n\n\n.version 9.0\n.target sm_120\n.address_size 64\n", &k), 1);
    ck_assert_uint_eq(k.sm, 120);
    ck_assert_int_eq(k.variant, 0);
    ck_assert_int_eq(parse("\r\n  .version 7.8\r\n\t.target sm_86, debug\r\n", &k), 1);
    ck_assert_uint_eq(k.ptx_major, 7);
    ck_assert_uint_eq(k.ptx_minor, 8);
    ck_assert_uint_eq(k.sm, 86);
    ck_assert_int_eq(k.debug, 1);
    ck_assert_int_eq(parse(".version 6.4\n.target sm_52, texmode_independent\n", &k), 1);
    ck_assert_uint_eq(k.sm, 52);
    ck_assert_int_eq(k.debug, 0);
    ck_assert_int_eq(parse("// banner\n//\n.version 9.0\n.target sm_100a // arch-specific\n", &k),
                     1);
    ck_assert_uint_eq(k.sm, 100);
    ck_assert_int_eq(k.variant, 'a');
    ck_assert_int_eq(parse(".version 8.8\n.version 9.0\n.target sm_121f\n", &k), 1);
    ck_assert_uint_eq(k.ptx_major, 9);
    ck_assert_int_eq(k.variant, 'f');
    /* No trailing newline. */
    ck_assert_int_eq(parse(".version 9.0\n.target sm_90", &k), 1);
    ck_assert_uint_eq(k.sm, 90);
}
END_TEST

START_TEST(test_not_ptx)
{
    struct pt2_kernel k;

    ck_assert_int_eq(parse("// Compile cmd: g++ ...\n#include <torch/all.h>\nint x;\n", &k), 0);
    ck_assert_int_eq(k.kind, 0); /* untouched */
    ck_assert_int_eq(parse(".version 9.0\n.address_size 64\n.target sm_90\n", &k), 0);
    ck_assert_int_eq(parse(".target sm_90\n.version 9.0\n", &k), 0);
    ck_assert_int_eq(parse(".version 9.0\n", &k), 0);
    ck_assert_int_eq(parse(".version nine\n.target sm_90\n", &k), 0);
    ck_assert_int_eq(parse(".version 9.0.1\n.target sm_90\n", &k), 0);
    ck_assert_int_eq(parse(".version 900.0\n.target sm_90\n", &k), 0);
    ck_assert_int_eq(parse(".version 9.0\n.target compute_90\n", &k), 0);
    ck_assert_int_eq(parse(".version 9.0\n.target sm_90x\n", &k), 0);
    ck_assert_int_eq(parse(".version 9.0\n.target sm_0\n", &k), 0);
    ck_assert_int_eq(parse(".version 9.0\n.target sm_12345\n", &k), 0);
    ck_assert_int_eq(parse(".versionX 9.0\n.target sm_90\n", &k), 0);
    ck_assert_int_eq(parse("", &k), 0);
    ck_assert_int_eq(k.kind, 0);
}
END_TEST

START_TEST(test_probe_and_scan_bounds)
{
    struct pt2_rd rd;
    struct pt2_error err = {0};
    struct pt2_kernel k;
    int found = 1;
    static const char cpp[] = "#include <x>\n";
    char *big;
    size_t n = 3 * PT2_PTX_HEAD_MAX;

    ck_assert_int_eq(pt2_ptx_probe((const uint8_t *)"  \n//x", 6), 1);
    ck_assert_int_eq(pt2_ptx_probe((const uint8_t *)"\n.version 9.0", 13), 1);
    ck_assert_int_eq(pt2_ptx_probe((const uint8_t *)cpp, sizeof(cpp) - 1), 0);
    ck_assert_int_eq(pt2_ptx_probe((const uint8_t *)"", 0), 0);

    /* Directives past the head window are not looked for; reads stay bounded. */
    big = malloc(n);
    memset(big, '\n', n);
    memcpy(big + n - 32, ".version 9.0\n.target sm_90\n", 27);
    pt2_rd_init_mem(&rd, big, n, "late.ptx");
    ck_assert_int_eq(pt2_ptx_scan(&rd, 0, n, &k, &found, &err), PT2_OK);
    ck_assert_int_eq(found, 0);
    ck_assert_uint_eq(rd.bytes_read, PT2_PTX_HEAD_MAX);

    ck_assert_int_eq(pt2_ptx_scan(&rd, n, 1, &k, &found, &err), PT2_ERR_FORMAT);
    ck_assert_str_eq(err.message, "late.ptx: PTX range at 0x6000 lies beyond the end");
    free(big);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ptx");
    TCase *tc = tcase_create("core");

    tcase_add_loop_test(tc, test_reference_ptx_files, 0, (int)(sizeof(files) / sizeof(files[0])));
    tcase_add_test(tc, test_header_variants);
    tcase_add_test(tc, test_not_ptx);
    tcase_add_test(tc, test_probe_and_scan_bounds);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
