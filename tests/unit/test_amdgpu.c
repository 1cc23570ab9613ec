/*
 * test_amdgpu.c - AMD code object headers: every bins/amdgpu .hsaco (clang-16
 * builds, docs/cuda-elf-facts.md §6), the MACH table values listed in the doc,
 * code object v2/v3 vs v4+ feature layouts, and non-AMD input.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_amdgpu.h"
#include "testutil.h"

struct hsaco_case {
    const char *file, *gfx, *target_id;
    int xnack, sramecc, cov;
};

static const struct hsaco_case cases[] = {
    {"bins/amdgpu/gfx900.hsaco", "gfx900", "gfx900", PT2_AMD_ANY, PT2_AMD_UNSUPPORTED, 4},
    {"bins/amdgpu/gfx906.hsaco", "gfx906", "gfx906", PT2_AMD_ANY, PT2_AMD_ANY, 4},
    {"bins/amdgpu/gfx906_srameccm_xnackp.hsaco", "gfx906", "gfx906:sramecc-:xnack+", PT2_AMD_ON,
     PT2_AMD_OFF, 4},
    {"bins/amdgpu/gfx908.hsaco", "gfx908", "gfx908", PT2_AMD_ANY, PT2_AMD_ANY, 4},
    {"bins/amdgpu/gfx90a.hsaco", "gfx90a", "gfx90a", PT2_AMD_ANY, PT2_AMD_ANY, 4},
    {"bins/amdgpu/gfx90a_xnackp.hsaco", "gfx90a", "gfx90a:xnack+", PT2_AMD_ON, PT2_AMD_ANY, 4},
    {"bins/amdgpu/gfx90a_xnackm.hsaco", "gfx90a", "gfx90a:xnack-", PT2_AMD_OFF, PT2_AMD_ANY, 4},
    {"bins/amdgpu/gfx90a_srameccp_xnackm.hsaco", "gfx90a", "gfx90a:sramecc+:xnack-", PT2_AMD_OFF,
     PT2_AMD_ON, 4},
    /* COv3: single "on" bits; clang-16 sets both for gfx90a (e_flags 0x33f). */
    {"bins/amdgpu/gfx90a_cov3.hsaco", "gfx90a", "gfx90a:sramecc+:xnack+", PT2_AMD_ON, PT2_AMD_ON,
     3},
    {"bins/amdgpu/gfx90a_xnackp_cov3.hsaco", "gfx90a", "gfx90a:sramecc+:xnack+", PT2_AMD_ON,
     PT2_AMD_ON, 3},
    {"bins/amdgpu/gfx90a_cov5.hsaco", "gfx90a", "gfx90a", PT2_AMD_ANY, PT2_AMD_ANY, 5},
    {"bins/amdgpu/gfx940.hsaco", "gfx940", "gfx940", PT2_AMD_ANY, PT2_AMD_ANY, 4},
    {"bins/amdgpu/gfx1030.hsaco", "gfx1030", "gfx1030", PT2_AMD_UNSUPPORTED, PT2_AMD_UNSUPPORTED,
     4},
    {"bins/amdgpu/gfx1100.hsaco", "gfx1100", "gfx1100", PT2_AMD_UNSUPPORTED, PT2_AMD_UNSUPPORTED,
     4},
    {"bins/amdgpu/gfx1101.hsaco", "gfx1101", "gfx1101", PT2_AMD_UNSUPPORTED, PT2_AMD_UNSUPPORTED,
     4},
    {"bins/amdgpu/gfx1102.hsaco", "gfx1102", "gfx1102", PT2_AMD_UNSUPPORTED, PT2_AMD_UNSUPPORTED,
     4},
    {"bins/amdgpu/gfx1103.hsaco", "gfx1103", "gfx1103", PT2_AMD_UNSUPPORTED, PT2_AMD_UNSUPPORTED,
     4},
};

START_TEST(test_every_reference_code_object)
{
    const struct hsaco_case *c = &cases[_i];
    char path[512];
    struct pt2_rd rd;
    struct pt2_elf elf;
    struct pt2_error err = {0};
    struct pt2_kernel k;
    size_t n = 0;
    uint8_t *b = tu_read_file(tu_fixture(c->file, path, sizeof(path)), &n);

    ck_assert_ptr_nonnull(b);
    memset(&k, 0x5a, sizeof(k));
    pt2_rd_init_mem(&rd, b, n, c->file);
    ck_assert_int_eq(pt2_elf_open(&elf, &rd, 0, n, &err), PT2_OK);
    ck_assert_int_eq(pt2_amdgpu_from_elf(&elf, &k, &err), PT2_OK);
    ck_assert_int_eq(k.kind, PT2_KERNEL_HSACO);
    ck_assert_str_eq(k.gfx, c->gfx);
    ck_assert_str_eq(k.target_id, c->target_id);
    ck_assert_int_eq(k.xnack, c->xnack);
    ck_assert_int_eq(k.sramecc, c->sramecc);
    ck_assert_int_eq(k.code_object_version, c->cov);
    ck_assert_int_eq(k.has_code, -1);
    ck_assert_uint_eq(rd.bytes_read, 64); /* the ELF header says it all */
    pt2_elf_close(&elf);
    free(b);
}
END_TEST

START_TEST(test_mach_table)
{
    /* Every MACH value listed in docs/cuda-elf-facts.md §6. */
    static const struct {
        unsigned mach;
        const char *name;
    } t[] = {{0x2c, "gfx900"},         {0x2f, "gfx906"},          {0x30, "gfx908"},
             {0x3f, "gfx90a"},         {0x40, "gfx940"},          {0x4b, "gfx941"},
             {0x4c, "gfx942"},         {0x4f, "gfx950"},          {0x36, "gfx1030"},
             {0x41, "gfx1100"},        {0x46, "gfx1101"},         {0x47, "gfx1102"},
             {0x44, "gfx1103"},        {0x43, "gfx1150"},         {0x4a, "gfx1151"},
             {0x48, "gfx1200"},        {0x4e, "gfx1201"},         {0x51, "gfx9-generic"},
             {0x5f, "gfx9-4-generic"}, {0x52, "gfx10-1-generic"}, {0x53, "gfx10-3-generic"},
             {0x54, "gfx11-generic"},  {0x59, "gfx12-generic"}};
    size_t i;

    for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        const char *got = pt2_amdgpu_mach_name(t[i].mach);
        ck_assert_msg(got != NULL, "MACH 0x%x unknown", t[i].mach);
        ck_assert_str_eq(got, t[i].name);
    }
    ck_assert_ptr_null(pt2_amdgpu_mach_name(0x00));
    ck_assert_ptr_null(pt2_amdgpu_mach_name(0x4d));
    ck_assert_ptr_null(pt2_amdgpu_mach_name(0xff));
}
END_TEST

START_TEST(test_feature_layouts)
{
    struct pt2_kernel k;

    /* COv4 gfx942 with sramecc on, xnack off. */
    memset(&k, 0, sizeof(k));
    pt2_amdgpu_decode(64, 2, 0xe4c, &k);
    ck_assert_str_eq(k.target_id, "gfx942:sramecc+:xnack-");
    ck_assert_int_eq(k.code_object_version, 4);

    /* COv6 generic target with a generic version in the top byte. */
    pt2_amdgpu_decode(64, 4, 0x01000551, &k);
    ck_assert_str_eq(k.gfx, "gfx9-generic");
    ck_assert_str_eq(k.target_id, "gfx9-generic");
    ck_assert_int_eq(k.xnack, PT2_AMD_ANY);
    ck_assert_int_eq(k.code_object_version, 6);

    /* COv3 with no bits: off where the chip has the feature, else unsupported. */
    pt2_amdgpu_decode(64, 1, 0x02f, &k);
    ck_assert_str_eq(k.target_id, "gfx906:sramecc-:xnack-");
    pt2_amdgpu_decode(64, 1, 0x036, &k);
    ck_assert_str_eq(k.target_id, "gfx1030");
    ck_assert_int_eq(k.xnack, PT2_AMD_UNSUPPORTED);
    ck_assert_int_eq(k.sramecc, PT2_AMD_UNSUPPORTED);

    /* COv2 as LLVM writes it: the v3 layout. */
    pt2_amdgpu_decode(64, 0, 0x12c, &k);
    ck_assert_str_eq(k.target_id, "gfx900:xnack+");
    ck_assert_int_eq(k.sramecc, PT2_AMD_UNSUPPORTED);
    ck_assert_int_eq(k.code_object_version, 2);

    /* Unknown MACH and a non-HSA OS ABI (PAL = 65): no code object version. */
    pt2_amdgpu_decode(65, 2, 0x54d, &k);
    ck_assert_str_eq(k.gfx, "gfx_mach_0x4d");
    ck_assert_str_eq(k.target_id, "gfx_mach_0x4d");
    ck_assert_int_eq(k.code_object_version, 0);
    ck_assert_int_eq(k.xnack, PT2_AMD_UNSUPPORTED);
}
END_TEST

START_TEST(test_not_amd)
{
    char path[512];
    struct pt2_rd rd;
    struct pt2_elf elf;
    struct pt2_error err = {0};
    struct pt2_kernel k;
    size_t n = 0;
    uint8_t *b = tu_read_file(tu_fixture("bins/cubin_cuda13/sm_90.cubin", path, sizeof(path)), &n);

    ck_assert_ptr_nonnull(b);
    pt2_rd_init_mem(&rd, b, n, "sm_90.cubin");
    ck_assert_int_eq(pt2_elf_open(&elf, &rd, 0, n, &err), PT2_OK);
    ck_assert_int_eq(pt2_amdgpu_from_elf(&elf, &k, &err), PT2_ERR_FORMAT);
    ck_assert_str_eq(err.message,
                     "sm_90.cubin: not an AMD GPU code object (e_machine 190, expected 224)");
    pt2_elf_close(&elf);
    free(b);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("amdgpu");
    TCase *tc = tcase_create("core");

    tcase_add_loop_test(tc, test_every_reference_code_object, 0,
                        (int)(sizeof(cases) / sizeof(cases[0])));
    tcase_add_test(tc, test_mach_table);
    tcase_add_test(tc, test_feature_layouts);
    tcase_add_test(tc, test_not_amd);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
