/*
 * test_nfd.c - the Node Feature Discovery CPUID label table against NFD's
 * names (kubernetes-sigs/node-feature-discovery docs/usage/features.md and
 * klauspost/cpuid's flag names) and against every feature pt2_isa can ask
 * for.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "pt2_isa.h"
#include "pt2_nfd.h"
#include "testutil.h"

static const char *flag_of(const char *machine, const char *feature)
{
    const struct pt2_nfd_flag *f = pt2_nfd_by_feature(machine, feature);

    return f != NULL ? f->flag : "(none)";
}

START_TEST(test_names_as_nfd_writes_them)
{
    char key[PT2_NFD_LABEL_MAX];

    /* x86: klauspost/cpuid's names, which differ from /proc/cpuinfo's here and there. */
    ck_assert_str_eq(flag_of("x86_64", "avx512f"), "AVX512F");
    ck_assert_str_eq(flag_of("x86_64", "AVX2"), "AVX2");
    ck_assert_str_eq(flag_of("x86_64", "fma"), "FMA3");
    ck_assert_str_eq(flag_of("x86_64", "avx512_vnni"), "AVX512VNNI");
    ck_assert_str_eq(flag_of("x86_64", "avx512_bf16"), "AVX512BF16");
    ck_assert_str_eq(flag_of("x86_64", "amx_tile"), "AMXTILE");
    ck_assert_str_eq(flag_of("x86_64", "aes"), "AESNI");
    ck_assert_str_eq(flag_of("x86_64", "sha_ni"), "SHA");
    ck_assert_str_eq(flag_of("x86_64", "sse4_1"), "SSE4");
    ck_assert_str_eq(flag_of("x86_64", "sse4_2"), "SSE42");
    ck_assert_str_eq(flag_of("x86_64", "pni"), "SSE3");
    ck_assert_str_eq(flag_of("x86_64", "abm"), "LZCNT");
    ck_assert_str_eq(flag_of("x86_64", "pclmulqdq"), "CLMUL");
    /* arm64 and s390x: the hwcap names upper-cased; the same cpuinfo word can differ by
     * architecture. */
    ck_assert_str_eq(flag_of("aarch64", "asimd"), "ASIMD");
    ck_assert_str_eq(flag_of("aarch64", "sve"), "SVE");
    ck_assert_str_eq(flag_of("aarch64", "sve2"), "SVE2");
    ck_assert_str_eq(flag_of("aarch64", "asimddp"), "ASIMDDP");
    ck_assert_str_eq(flag_of("aarch64", "aes"), "AES");
    ck_assert_str_eq(flag_of("s390x", "vxe"), "VXE");
    ck_assert_str_eq(flag_of("x86_64", "asimd"), "(none)");
    ck_assert_str_eq(flag_of("aarch64", "avx2"), "(none)");
    ck_assert_ptr_null(pt2_nfd_by_feature(NULL, "avx2"));
    ck_assert_ptr_null(pt2_nfd_by_feature("x86_64", NULL));
    ck_assert_str_eq(pt2_nfd_label(pt2_nfd_by_feature("x86_64", "avx512bw"), key, sizeof(key)),
                     "feature.node.kubernetes.io/cpu-cpuid.AVX512BW");
}
END_TEST

START_TEST(test_default_blacklist)
{
    /* NFD's default sources.cpu.cpuid.attributeBlacklist, as far as the table has them. */
    static const char *const blacklisted[] = {"BMI1", "BMI2",   "CLMUL",  "CX16",   "F16C", "LZCNT",
                                              "MMX",  "POPCNT", "RDRAND", "RDSEED", "SSE",  "SSE2",
                                              "SSE3", "SSE4",   "SSE42",  "SSSE3"};
    const struct pt2_nfd_flag *f;
    size_t i, j, n = 0;

    for (i = 0; (f = pt2_nfd_at(i)) != NULL; i++) {
        int listed = 0;

        for (j = 0; j < sizeof(blacklisted) / sizeof(blacklisted[0]); j++)
            listed |= strcmp(f->flag, blacklisted[j]) == 0 && strcmp(f->machine, "x86_64") == 0;
        ck_assert_msg(f->by_default == !listed, "%s %s", f->machine, f->flag);
        n += (size_t)listed;
    }
    ck_assert_uint_eq(n, sizeof(blacklisted) / sizeof(blacklisted[0]));
    ck_assert_uint_le(i, PT2_NFD_FLAGS_MAX);
    ck_assert_int_eq(pt2_nfd_decides("x86_64", "avx2"), 1);
    ck_assert_int_eq(pt2_nfd_decides("x86_64", "f16c"), 0);
    ck_assert_int_eq(pt2_nfd_decides("x86_64", "no-such-feature"), 0);
    ck_assert_int_eq(pt2_nfd_decides("aarch64", "sve"), 1);
}
END_TEST

/* Every feature pt2_isa can require on x86-64 and arm64 has an NFD name. */
START_TEST(test_every_isa_feature_is_mapped)
{
    static const struct {
        const char *machine, *isa, *march, *flags;
    } builds[] = {
        {"x86_64", "AVX512", "x86-64-v4",
         "avx512vnni avx512bf16 avx512fp16 amx-tile amx-bf16 "
         "amx-int8 amx-fp16 avx512ifma avx512vbmi avx512vbmi2"},
        {"x86_64", "AVX2", "x86-64-v3",
         "avxvnni fma4 sse4a aes pclmul sha gfni vaes vpclmulqdq adx rdrnd rdseed xsave mmx "
         "avx512bitalg avx512vpopcntdq avx512vp2intersect"},
        {"aarch64", "SVE256", "armv9-a+sve2+bf16+i8mm+dotprod", "neon"},
        {"s390x", "ZVECTOR", "", "vx"},
    };
    const char *req[PT2_ISA_FEATURES_MAX];
    struct pt2_cpu_isa isa;
    size_t b, i, n;

    for (b = 0; b < sizeof(builds) / sizeof(builds[0]); b++) {
        const char *p = builds[b].flags;

        memset(&isa, 0, sizeof(isa));
        snprintf(isa.isa, sizeof(isa.isa), "%s", builds[b].isa);
        snprintf(isa.march, sizeof(isa.march), "%s", builds[b].march);
        while (*p != '\0' && isa.nflags < PT2_ISA_FLAGS_MAX) {
            size_t len = strcspn(p, " ");

            snprintf(isa.flags[isa.nflags++], sizeof(isa.flags[0]), "%.*s", (int)len, p);
            p += len + (p[len] == ' ');
        }
        ck_assert_int_eq(pt2_isa_required_features(&isa, req, PT2_ISA_FEATURES_MAX, &n), PT2_OK);
        ck_assert_uint_gt(n, 0);
        for (i = 0; i < n; i++)
            ck_assert_msg(pt2_nfd_by_feature(builds[b].machine, req[i]) != NULL, "%s: %s",
                          builds[b].machine, req[i]);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("nfd");
    TCase *tc = tcase_create("table");

    tcase_add_test(tc, test_names_as_nfd_writes_them);
    tcase_add_test(tc, test_default_blacklist);
    tcase_add_test(tc, test_every_isa_feature_is_mapped);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run_suite(suite());
}
