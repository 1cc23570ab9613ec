/*
 * test_target.c - what users name: targets (compute capabilities, SMs, GPU
 * names, AMD gfx targets and full target IDs), CUDA driver versions and
 * verdict names.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "pt2_target.h"
#include "testutil.h"

START_TEST(test_target_parse_forms)
{
    static const struct {
        const char *text;
        int major, minor;
        const char *gfx, *name;
    } cases[] = {
        {"9.0", 9, 0, "", "compute capability 9.0"},
        {"90", 9, 0, "", "compute capability 9.0"},
        {"sm_90", 9, 0, "", "compute capability 9.0"},
        {"sm_90a", 9, 0, "", "compute capability 9.0"},
        {"SM_90A", 9, 0, "", "compute capability 9.0"},
        {"sm90", 9, 0, "", "compute capability 9.0"},
        {"90a", 9, 0, "", "compute capability 9.0"},
        {"compute_90", 9, 0, "", "compute capability 9.0"},
        {"compute_120f", 12, 0, "", "compute capability 12.0"},
        {"12.1", 12, 1, "", "compute capability 12.1"},
        {"121", 12, 1, "", "compute capability 12.1"},
        {"100", 10, 0, "", "compute capability 10.0"},
        {" 8.6\n", 8, 6, "", "compute capability 8.6"},
        {"H100", 9, 0, "", "NVIDIA H100"},
        {"NVIDIA A100", 8, 0, "", "NVIDIA A100"},
        {"A100-SXM4-80GB", 8, 0, "", "NVIDIA A100"},
        {"NVIDIA-A100-SXM4-40GB", 8, 0, "", "NVIDIA A100"},
        {"rtx4090", 8, 9, "", "NVIDIA RTX 4090"},
        {"L40S", 8, 9, "", "NVIDIA L40S"},
        {"A10G", 8, 6, "", "NVIDIA A10G"},
        {"H20", 9, 0, "", "NVIDIA H20"},
        {"Jetson Orin", 8, 7, "", "NVIDIA Jetson Orin"},
        {"DGX Spark", 12, 1, "", "NVIDIA DGX Spark"},
        {"GB10", 12, 1, "", "NVIDIA GB10"},
        {"RTX PRO 6000", 12, 0, "", "NVIDIA RTX PRO 6000"},
        {"gfx90a", 0, 0, "gfx90a", "AMD gfx90a"},
        {"gfx90a:xnack-", 0, 0, "gfx90a:xnack-", "AMD gfx90a:xnack-"},
        {"GFX942:sramecc+:xnack-", 0, 0, "gfx942:sramecc+:xnack-", "AMD gfx942:sramecc+:xnack-"},
        {"gfx1100", 0, 0, "gfx1100", "AMD gfx1100"},
        {"MI300X", 0, 0, "gfx942", "AMD MI300X (gfx942)"},
        {"AMD Instinct MI250X", 0, 0, "gfx90a", "AMD MI250X (gfx90a)"},
    };
    struct pt2_device d;
    struct pt2_error err = {0};
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        memset(&d, 0x5a, sizeof(d));
        ck_assert_msg(pt2_target_parse(cases[i].text, &d, &err) == PT2_OK, "'%s': %s",
                      cases[i].text, err.message);
        ck_assert_int_eq(d.cc_major, cases[i].major);
        ck_assert_int_eq(d.cc_minor, cases[i].minor);
        ck_assert_str_eq(d.gfx, cases[i].gfx);
        ck_assert_str_eq(d.name, cases[i].name);
        ck_assert_int_eq(d.driver_cuda_version, 0);
    }
}
END_TEST

START_TEST(test_target_parse_rejects)
{
    static const char *const bad[] = {
        "H999",     "9.10",   "1000",          "sm_9",         "sm_90b",      "sm_",
        "compute_", "gfx",    "gfx90a:",       "gfx90a:xnack", "gfx90a:foo+", "gfx90a:xnack+x",
        "-9.0",     "0.0",    "0.5",           "9.",           ".9",          "9",
        "sm_90aa",  "x86_64", "gfx90a xnack-",
    };
    static const char hint[] = "use a compute capability (9.0), an SM (sm_90a), a GPU name (H100) "
                               "or an AMD gfx target (gfx90a)";
    char want[512], huge[200];
    struct pt2_device d;
    struct pt2_error err;
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        pt2_error_clear(&err);
        ck_assert_msg(pt2_target_parse(bad[i], &d, &err) == PT2_ERR_INVALID, "'%s' accepted",
                      bad[i]);
        snprintf(want, sizeof(want), "unknown target '%s': %s", bad[i], hint);
        ck_assert_str_eq(err.message, want);
    }

    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_target_parse("H\n999", &d, &err), PT2_ERR_INVALID);
    snprintf(want, sizeof(want), "unknown target 'H?999': %s", hint);
    ck_assert_str_eq(err.message, want);

    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_target_parse("  ", &d, &err), PT2_ERR_INVALID);
    snprintf(want, sizeof(want), "empty target: %s", hint);
    ck_assert_str_eq(err.message, want);

    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_target_parse(NULL, &d, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "no target given");

    pt2_error_clear(&err);
    memset(huge, 'H', sizeof(huge) - 1);
    huge[sizeof(huge) - 1] = '\0';
    ck_assert_int_eq(pt2_target_parse(huge, &d, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "target 'HHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHH...' "
                                  "is too long (at most 127 bytes)");

    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_target_parse("gfx1aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", &d, &err),
                     PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "AMD target 'gfx1aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' is too long");
}
END_TEST

START_TEST(test_driver_version_parse)
{
    static const struct {
        const char *text;
        int v;
    } ok[] = {
        {"12.4", 12040},   {"13.0", 13000},   {"12040", 12040}, {"12", 12000},    {"13", 13000},
        {"12.4.1", 12040}, {" 12.8 ", 12080}, {"11.8", 11080},  {"12090", 12090}, {"12.10", 12100},
    };
    static const char *const bad[] = {"",    "abc",    "12.", ".4",    "12.4.x",
                                      "123", "0",      "-12", "12.4a", "100000",
                                      "0.4", "12.100", "+12", "1 2",   "99999999999999999999999"};
    struct pt2_error err;
    char want[256];
    size_t i;
    int v;

    for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        pt2_error_clear(&err);
        ck_assert_msg(pt2_driver_version_parse(ok[i].text, &v, &err) == PT2_OK, "'%s': %s",
                      ok[i].text, err.message);
        ck_assert_int_eq(v, ok[i].v);
    }
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        pt2_error_clear(&err);
        v = 7;
        ck_assert_msg(pt2_driver_version_parse(bad[i], &v, &err) == PT2_ERR_INVALID,
                      "'%s' accepted", bad[i]);
        ck_assert_int_eq(v, 0);
        snprintf(want, sizeof(want),
                 "invalid CUDA driver version '%s': use a CUDA version (12.4) or the "
                 "cuDriverGetVersion() form (12040)",
                 bad[i]);
        ck_assert_str_eq(err.message, want);
    }
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_driver_version_parse(NULL, &v, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "no CUDA driver version given");
}
END_TEST

START_TEST(test_verdict_names)
{
    ck_assert_str_eq(pt2_verdict_name(PT2_COMPATIBLE), "compatible");
    ck_assert_str_eq(pt2_verdict_name(PT2_COMPATIBLE_PTX_JIT), "compatible-ptx-jit");
    ck_assert_str_eq(pt2_verdict_name(PT2_UNVERIFIED), "unverified");
    ck_assert_str_eq(pt2_verdict_name(PT2_INCOMPATIBLE), "incompatible");
    ck_assert_int_eq(pt2_verdict_from_name("unverified"), PT2_UNVERIFIED);
    ck_assert_int_lt(PT2_UNVERIFIED, PT2_INCOMPATIBLE);
    ck_assert_int_gt(PT2_UNVERIFIED, PT2_COMPATIBLE_PTX_JIT);
    ck_assert_str_eq(pt2_verdict_name(42), "unknown");
    ck_assert_str_eq(pt2_verdict_name(-1), "unknown");
}
END_TEST

START_TEST(test_amd_helpers)
{
    ck_assert_str_eq(pt2_target_amd_tail("amdgcn-amd-amdhsa--gfx90a:xnack-"), "gfx90a:xnack-");
    ck_assert_str_eq(pt2_target_amd_tail("amdgcn-amd-amdhsa-unknown-gfx1100"), "gfx1100");
    ck_assert_str_eq(pt2_target_amd_tail("gfx90a"), "gfx90a");
    ck_assert_str_eq(pt2_target_amd_tail("amdgcn-amd-amdhsa--"), "amdgcn-amd-amdhsa--");
    ck_assert_int_eq(pt2_target_is_gfx("gfx942:sramecc+:xnack-"), 1);
    ck_assert_int_eq(pt2_target_is_gfx("gfx90a:xnack"), 0);
    ck_assert_int_eq(pt2_target_is_gfx("gfx"), 0);
    ck_assert_int_eq(pt2_target_is_gfx("sm_90"), 0);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("target");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_target_parse_forms);
    tcase_add_test(tc, test_target_parse_rejects);
    tcase_add_test(tc, test_driver_version_parse);
    tcase_add_test(tc, test_verdict_names);
    tcase_add_test(tc, test_amd_helpers);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run_suite(suite());
}
