/*
 * test_isa.c - CPU ISA from AOTI_CPU_ISA and from "// Compile cmd" comments,
 * and the CPU features a node needs for it.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_isa.h"
#include "testutil.h"

/* Join the required features with spaces for one exact comparison. */
static const char *features(const struct pt2_cpu_isa *isa, char *buf, size_t len)
{
    const char *f[PT2_ISA_FEATURES_MAX];
    size_t n = 0, i, off = 0;

    ck_assert_int_eq(pt2_isa_required_features(isa, f, PT2_ISA_FEATURES_MAX, &n), PT2_OK);
    buf[0] = '\0';
    for (i = 0; i < n; i++)
        off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? " " : "", f[i]);
    return buf;
}

static const char *flags(const struct pt2_cpu_isa *isa, char *buf, size_t len)
{
    size_t i, off = 0;

    buf[0] = '\0';
    for (i = 0; i < isa->nflags; i++)
        off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? " " : "", isa->flags[i]);
    return buf;
}

static int from_cmd(const char *text, struct pt2_cpu_isa *isa)
{
    return pt2_isa_from_compile_cmd(text, strlen(text), isa);
}

/* ---- AOTI_CPU_ISA --------------------------------------------------------- */

START_TEST(test_metadata_avx512)
{
    struct pt2_cpu_isa isa;
    char b[512];

    ck_assert_int_eq(pt2_isa_from_metadata("AVX512", &isa), PT2_OK);
    ck_assert_str_eq(isa.isa, "AVX512");
    ck_assert_str_eq(isa.source, "metadata");
    ck_assert_str_eq(isa.march, "");
    ck_assert_uint_eq(isa.nflags, 0);
    ck_assert_str_eq(features(&isa, b, sizeof(b)), "avx512f avx512dq avx512vl avx512bw fma");
    ck_assert_int_eq(pt2_isa_is_native(&isa), 0);
}
END_TEST

START_TEST(test_metadata_amx_words)
{
    struct pt2_cpu_isa isa;
    char b[512];

    ck_assert_int_eq(pt2_isa_from_metadata("AVX512 AVX512_VNNI AMX_TILE", &isa), PT2_OK);
    ck_assert_str_eq(isa.isa, "AVX512");
    ck_assert_str_eq(flags(&isa, b, sizeof(b)), "avx512vnni amx-tile amx-bf16 amx-int8");
    ck_assert_str_eq(features(&isa, b, sizeof(b)),
                     "avx512f avx512dq avx512vl avx512bw fma avx512_vnni amx_tile amx_bf16 "
                     "amx_int8");
}
END_TEST

START_TEST(test_metadata_other_isas)
{
    static const struct {
        const char *value, *isa, *features;
    } cases[] = {
        {"AVX2", "AVX2", "avx2 fma f16c"},
        {"avx2", "AVX2", "avx2 fma f16c"},
        {"  AVX2  ", "AVX2", "avx2 fma f16c"},
        {"ASIMD", "NEON", "asimd"},
        {"NEON", "NEON", "asimd"},
        {"SVE256", "SVE256", "sve"},
        {"VSX", "VSX", ""},
        {"ZVECTOR", "ZVECTOR", "vxe"},
        {"INVALID_VEC_ISA", "", ""},
        {"DEFAULT", "", ""},
        {"", "", ""},
        {"RISCV_V", "RISCV_V", ""},
        {"AVX\x1b[2J", "", ""},
        {"amx-tile", "", ""},
        /* A word too long for the field is dropped, not truncated. */
        {"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "", ""},
    };
    struct pt2_cpu_isa isa;
    char b[512];
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        ck_assert_int_eq(pt2_isa_from_metadata(cases[i].value, &isa), PT2_OK);
        ck_assert_str_eq(isa.isa, cases[i].isa);
        ck_assert_str_eq(isa.source, "metadata");
        ck_assert_str_eq(features(&isa, b, sizeof(b)), cases[i].features);
        /* torch's words for "vectorised nothing" (Debian's torch 2.14.1 writes the first:
         * tests/fixtures/torch/t214_linear.pt2) are said so, not "unknown" */
        ck_assert_int_eq(isa.novec, strcmp(cases[i].value, "INVALID_VEC_ISA") == 0 ||
                                        strcmp(cases[i].value, "DEFAULT") == 0);
        ck_assert_str_eq(pt2_isa_display(&isa), isa.novec ? "none (no vector ISA: baseline code)"
                                                          : pt2_isa_display_name(isa.isa));
    }
    ck_assert_int_eq(pt2_isa_from_metadata(NULL, &isa), PT2_ERR_INVALID);
    ck_assert_int_eq(pt2_isa_from_metadata("AVX2", NULL), PT2_ERR_INVALID);
}
END_TEST

/* ---- compile command -------------------------------------------------------- */

START_TEST(test_cmd_real_mlcolvar_avx512)
{
    char path[256], b[512];
    size_t len = 0;
    uint8_t *text =
        tu_read_file(tu_fixture("isa/mlcolvar_avx512.wrapper_tail.txt", path, sizeof(path)), &len);
    struct pt2_cpu_isa isa;

    ck_assert_ptr_nonnull(text);
    ck_assert_uint_eq(len, 4096);
    ck_assert_int_eq(pt2_isa_from_compile_cmd((const char *)text, len, &isa), PT2_OK);
    ck_assert_str_eq(isa.isa, "AVX512");
    ck_assert_str_eq(isa.source, "compile_cmd");
    ck_assert_str_eq(isa.march, "native");
    ck_assert_str_eq(flags(&isa, b, sizeof(b)), "avx512f avx512dq avx512vl avx512bw fma");
    ck_assert_str_eq(features(&isa, b, sizeof(b)), "avx512f avx512dq avx512vl avx512bw fma");
    ck_assert_int_eq(pt2_isa_is_native(&isa), 1);
    free(text);
}
END_TEST

START_TEST(test_cmd_real_executorch_neon)
{
    char path[256], b[512];
    size_t len = 0;
    uint8_t *text = tu_read_file(
        tu_fixture("isa/executorch_macos_neon.wrapper_tail.txt", path, sizeof(path)), &len);
    struct pt2_cpu_isa isa;

    ck_assert_ptr_nonnull(text);
    ck_assert_int_eq(pt2_isa_from_compile_cmd((const char *)text, len, &isa), PT2_OK);
    ck_assert_str_eq(isa.isa, "NEON");
    ck_assert_str_eq(isa.march, "");
    ck_assert_uint_eq(isa.nflags, 0);
    ck_assert_str_eq(features(&isa, b, sizeof(b)), "asimd");
    free(text);
}
END_TEST

START_TEST(test_cmd_one_line_colon_form)
{
    struct pt2_cpu_isa isa;
    char b[512];

    ck_assert_int_eq(
        from_cmd("code();\n// Compile cmd: g++ a.cpp -DCPU_CAPABILITY=AVX2 -mavx2 -mfma -o a.o\n",
                 &isa),
        PT2_OK);
    ck_assert_str_eq(isa.isa, "AVX2");
    ck_assert_str_eq(flags(&isa, b, sizeof(b)), "avx2 fma");
    ck_assert_str_eq(features(&isa, b, sizeof(b)), "avx2 fma f16c");
}
END_TEST

START_TEST(test_cmd_continuation_lines_stop_at_link)
{
    struct pt2_cpu_isa isa;
    char b[512];

    ck_assert_int_eq(from_cmd("// Compile cmd\n"
                              "// g++ a.cpp -mavx512f\n"
                              "//   -mavx512bw -D\n"
                              "// CPU_CAPABILITY_AVX512\n"
                              "// Link cmd\n"
                              "// g++ a.o -mamx-tile -DCPU_CAPABILITY_AVX2\n",
                              &isa),
                     PT2_OK);
    ck_assert_str_eq(isa.isa, "AVX512");
    ck_assert_str_eq(flags(&isa, b, sizeof(b)), "avx512f avx512bw");
}
END_TEST

START_TEST(test_cmd_last_compile_line_wins)
{
    struct pt2_cpu_isa isa;
    char b[512];

    ck_assert_int_eq(from_cmd("// Compile cmd\n// g++ k.cpp -D CPU_CAPABILITY_AVX512 -mavx512f\n"
                              "// Link cmd\n// g++ k.o\n"
                              "int x;\n"
                              "\t// Compile cmd\r\n// g++ w.cpp -D CPU_CAPABILITY_AVX2 -mavx2\r\n"
                              "// Link cmd\r\n",
                              &isa),
                     PT2_OK);
    ck_assert_str_eq(isa.isa, "AVX2");
    ck_assert_str_eq(flags(&isa, b, sizeof(b)), "avx2");
}
END_TEST

START_TEST(test_cmd_derives_isa_from_flags_and_march)
{
    struct pt2_cpu_isa isa;
    char b[512];

    ck_assert_int_eq(from_cmd("// Compile cmd\n// g++ -mavx2 -mfma -mf16c\n", &isa), PT2_OK);
    ck_assert_str_eq(isa.isa, "AVX2");

    ck_assert_int_eq(from_cmd("// Compile cmd\n// g++ -mavx512bf16\n", &isa), PT2_OK);
    ck_assert_str_eq(isa.isa, "AVX512");
    ck_assert_str_eq(features(&isa, b, sizeof(b)),
                     "avx512f avx512dq avx512vl avx512bw fma avx512_bf16");

    ck_assert_int_eq(from_cmd("// Compile cmd\n// gcc -march=x86-64-v3 -O2\n", &isa), PT2_OK);
    ck_assert_str_eq(isa.isa, "AVX2");
    ck_assert_str_eq(isa.march, "x86-64-v3");
    ck_assert_str_eq(features(&isa, b, sizeof(b)),
                     "avx2 fma f16c pni ssse3 sse4_1 sse4_2 popcnt cx16 avx bmi1 bmi2 movbe abm");

    ck_assert_int_eq(from_cmd("// Compile cmd\n// gcc -march=skylake-avx512\n", &isa), PT2_OK);
    ck_assert_str_eq(isa.isa, "");
    ck_assert_str_eq(features(&isa, b, sizeof(b)),
                     "pni ssse3 sse4_1 sse4_2 popcnt cx16 avx avx2 bmi1 bmi2 f16c fma movbe abm "
                     "avx512f avx512bw avx512cd avx512dq avx512vl");

    /* native alone: no requirement, no ISA; the caller warns. */
    ck_assert_int_eq(from_cmd("// Compile cmd\n// g++ -march=native -O3\n", &isa), PT2_OK);
    ck_assert_str_eq(isa.isa, "");
    ck_assert_str_eq(features(&isa, b, sizeof(b)), "");
    ck_assert_int_eq(pt2_isa_is_native(&isa), 1);
}
END_TEST

START_TEST(test_cmd_flag_hygiene)
{
    struct pt2_cpu_isa isa;
    char b[512];

    ck_assert_int_eq(from_cmd("// Compile cmd\n// g++ -m64 -mtune=native -mfpmath=sse "
                              "-mavx256-split-unaligned-load -mavx512f '-mavx2' \"-mfma\" "
                              "-mavx2 -msse4.2 -mno-avx512f -mno-notthere -march=x86-64 "
                              "-march=haswell\n",
                              &isa),
                     PT2_OK);
    ck_assert_str_eq(flags(&isa, b, sizeof(b)), "avx2 fma sse4.2");
    ck_assert_str_eq(isa.march, "haswell");
    ck_assert_str_eq(isa.isa, "AVX2");
    ck_assert_str_eq(features(&isa, b, sizeof(b)),
                     "avx2 fma f16c sse4_2 pni ssse3 sse4_1 popcnt cx16 avx bmi1 bmi2 movbe abm");
}
END_TEST

START_TEST(test_cmd_sve_most_specific_macro)
{
    struct pt2_cpu_isa isa;
    char b[512];

    ck_assert_int_eq(from_cmd("// Compile cmd\n// g++ -D CPU_CAPABILITY_SVE "
                              "-D CPU_CAPABILITY_SVE256 -D AT_BUILD_ARM_VEC256_WITH_SLEEF "
                              "-march=armv8-a+sve+bf16 -msve-vector-bits=256\n",
                              &isa),
                     PT2_OK);
    ck_assert_str_eq(isa.isa, "SVE256");
    ck_assert_str_eq(isa.march, "armv8-a+sve+bf16");
    ck_assert_str_eq(flags(&isa, b, sizeof(b)), "sve-vector-bits=256");
    ck_assert_str_eq(features(&isa, b, sizeof(b)), "sve bf16");
    ck_assert_str_eq(pt2_isa_display_name(isa.isa), "SVE");

    /* Same macros in the other order. */
    ck_assert_int_eq(
        from_cmd("// Compile cmd\n// g++ -DCPU_CAPABILITY_SVE256 -DCPU_CAPABILITY_SVE\n", &isa),
        PT2_OK);
    ck_assert_str_eq(isa.isa, "SVE256");

    /* A macro value that is not a name is ignored. */
    ck_assert_int_eq(from_cmd("// Compile cmd\n// g++ -DCPU_CAPABILITY=AVX2 "
                              "-DCPU_CAPABILITY=$(X) -DCPU_CAPABILITY_=1\n",
                              &isa),
                     PT2_OK);
    ck_assert_str_eq(isa.isa, "AVX2");

    /* Without macros the flags say SVE256. */
    ck_assert_int_eq(from_cmd("// Compile cmd\n// g++ -msve-vector-bits=256\n", &isa), PT2_OK);
    ck_assert_str_eq(isa.isa, "SVE256");

    ck_assert_int_eq(from_cmd("// Compile cmd\n// g++ -march=armv9-a+i8mm\n", &isa), PT2_OK);
    ck_assert_str_eq(features(&isa, b, sizeof(b)), "sve sve2 i8mm");
}
END_TEST

START_TEST(test_cmd_zvector_vsx_mcpu_msvc)
{
    struct pt2_cpu_isa isa;
    char b[512];

    ck_assert_int_eq(from_cmd("// Compile cmd\n// g++ -DCPU_CAPABILITY_ZVECTOR "
                              "-DCPU_CAPABILITY=ZVECTOR -DHAVE_ZVECTOR_CPU_DEFINITION -mvx "
                              "-mzvector\n",
                              &isa),
                     PT2_OK);
    ck_assert_str_eq(isa.isa, "ZVECTOR");
    ck_assert_str_eq(flags(&isa, b, sizeof(b)), "vx zvector");
    ck_assert_str_eq(features(&isa, b, sizeof(b)), "vxe vx");

    ck_assert_int_eq(from_cmd("// Compile cmd\n// g++ -mvsx -mcpu=power9\n", &isa), PT2_OK);
    ck_assert_str_eq(isa.isa, "VSX");
    ck_assert_str_eq(isa.march, "power9");
    ck_assert_str_eq(features(&isa, b, sizeof(b)), "");

    /* -march wins over -mcpu whatever the order. */
    ck_assert_int_eq(from_cmd("// Compile cmd\n// g++ -march=armv8.2-a -mcpu=neoverse-v1\n", &isa),
                     PT2_OK);
    ck_assert_str_eq(isa.march, "armv8.2-a");

    ck_assert_int_eq(from_cmd("// Compile cmd\n// cl /arch:AVX512 /DCPU_CAPABILITY_AVX512\n", &isa),
                     PT2_OK);
    ck_assert_str_eq(isa.isa, "AVX512");
    ck_assert_str_eq(flags(&isa, b, sizeof(b)), "avx512f avx512cd avx512bw avx512dq avx512vl");
}
END_TEST

START_TEST(test_cmd_not_found_and_bad_args)
{
    struct pt2_cpu_isa isa;

    memset(&isa, 0x5a, sizeof(isa));
    ck_assert_int_eq(from_cmd("int main() { return 0; }\n// Link cmd\n// g++ -mavx2\n", &isa),
                     PT2_ERR_NOT_FOUND);
    ck_assert_str_eq(isa.isa, "");
    ck_assert_str_eq(isa.source, "");
    ck_assert_uint_eq(isa.nflags, 0);
    ck_assert_int_eq(pt2_isa_from_compile_cmd(NULL, 0, &isa), PT2_ERR_NOT_FOUND);
    ck_assert_int_eq(pt2_isa_from_compile_cmd(NULL, 5, &isa), PT2_ERR_INVALID);
    ck_assert_int_eq(pt2_isa_from_compile_cmd("x", 1, NULL), PT2_ERR_INVALID);
    /* "// Compile cmd" at the very end, nothing after it. */
    ck_assert_int_eq(from_cmd("// Compile cmd", &isa), PT2_OK);
    ck_assert_str_eq(isa.source, "compile_cmd");
    ck_assert_str_eq(isa.isa, "");
}
END_TEST

START_TEST(test_cmd_caps)
{
    struct pt2_cpu_isa isa;
    char *text = malloc(16384);
    size_t off = 0;
    int i;

    ck_assert_ptr_nonnull(text);
    off += (size_t)snprintf(text + off, 16384 - off, "// Compile cmd\n// g++");
    for (i = 0; i < 100; i++)
        off += (size_t)snprintf(text + off, 16384 - off, " -mavx512x%d", i);
    /* An over-long -march is ignored rather than cut. */
    off += (size_t)snprintf(text + off, 16384 - off, " -march=");
    for (i = 0; i < 300; i++)
        text[off++] = 'a';
    /* A flag longer than the field is skipped. */
    off += (size_t)snprintf(text + off, 16384 - off, " -mavx512abcdefghijklmnopqrstuvwxyz\n");
    ck_assert_int_eq(pt2_isa_from_compile_cmd(text, off, &isa), PT2_OK);
    ck_assert_uint_eq(isa.nflags, PT2_ISA_FLAGS_MAX);
    ck_assert_str_eq(isa.flags[0], "avx512x0");
    ck_assert_str_eq(isa.flags[PT2_ISA_FLAGS_MAX - 1], "avx512x31");
    ck_assert_str_eq(isa.march, "");
    ck_assert_str_eq(isa.isa, "AVX512");
    free(text);
}
END_TEST

START_TEST(test_cmd_continuation_cap)
{
    struct pt2_cpu_isa isa;
    char *text = malloc(65536);
    size_t off = 0;
    int i;

    ck_assert_ptr_nonnull(text);
    off += (size_t)snprintf(text + off, 65536 - off, "// Compile cmd\n");
    for (i = 0; i < PT2_ISA_CMD_LINES_MAX; i++)
        off += (size_t)snprintf(text + off, 65536 - off, "// -O2\n");
    /* One line past the cap: never read. */
    off += (size_t)snprintf(text + off, 65536 - off, "// -mavx2\n");
    ck_assert_int_eq(pt2_isa_from_compile_cmd(text, off, &isa), PT2_OK);
    ck_assert_uint_eq(isa.nflags, 0);
    free(text);
}
END_TEST

START_TEST(test_cmd_garbage_does_not_crash)
{
    struct pt2_cpu_isa isa;
    size_t len = 1 << 20, i;
    char *text = malloc(len);
    unsigned seed = 12345;
    int round;
    static const char tail[] = "\n// Compile cmd\n// g++ -mavx2\n";

    ck_assert_ptr_nonnull(text);
    for (round = 0; round < 4; round++) {
        for (i = 0; i < len; i++) {
            seed = seed * 1103515245u + 12345u;
            /* Biased towards the characters the parser cares about. */
            text[i] = "/ \n-mDC:_avx2\0\r\t"[(seed >> 16) % 16];
        }
        /* Compile-command headers scattered through it, so garbage gets tokenized. */
        for (i = (size_t)round * 777; i + 32 < len; i += 5000)
            memcpy(text + i, "\n// compile CMD: -D ", 20);
        (void)pt2_isa_from_compile_cmd(text, len, &isa);
        ck_assert_uint_le(isa.nflags, PT2_ISA_FLAGS_MAX);
        ck_assert_uint_lt(strlen(isa.isa), sizeof(isa.isa));
        ck_assert_uint_lt(strlen(isa.march), sizeof(isa.march));
    }
    memcpy(text + len - (sizeof(tail) - 1), tail, sizeof(tail) - 1);
    ck_assert_int_eq(pt2_isa_from_compile_cmd(text, len, &isa), PT2_OK);
    ck_assert_str_eq(isa.isa, "AVX2");
    free(text);
}
END_TEST

/* ---- features and names ------------------------------------------------------ */

START_TEST(test_required_features_overflow_and_args)
{
    struct pt2_cpu_isa isa;
    const char *f[3];
    size_t n = 99;

    ck_assert_int_eq(pt2_isa_from_metadata("AVX512", &isa), PT2_OK);
    ck_assert_int_eq(pt2_isa_required_features(&isa, f, 3, &n), PT2_ERR_TOO_LARGE);
    ck_assert_uint_eq(n, 3);
    ck_assert_str_eq(f[2], "avx512vl");
    ck_assert_int_eq(pt2_isa_required_features(NULL, f, 3, &n), PT2_ERR_INVALID);
    ck_assert_uint_eq(n, 0);
    ck_assert_int_eq(pt2_isa_required_features(&isa, f, 3, NULL), PT2_ERR_INVALID);
}
END_TEST

/* Split the space-separated `words` into v[] (at most `max`); the count. */
static size_t split_words(const char *words, char (*buf)[24], const char **v, size_t max)
{
    size_t n = 0, k;

    while (*words != '\0' && n < max) {
        k = strcspn(words, " ");
        snprintf(buf[n], sizeof(buf[n]), "%.*s", (int)k, words);
        v[n] = buf[n];
        n++;
        words += k;
        words += *words == ' ';
    }
    return n;
}

/*
 * The longest feature list there is: the AVX512 ISA, 32 -m flags that each
 * add a feature of their own, and -march=x86-64-v4 (5 + 32 + 14 new = 51).
 */
static void longest_isa(struct pt2_cpu_isa *isa)
{
    static const char fl[] =
        "avx512ifma avx512vbmi avx512vbmi2 avx512vnni avx512bitalg "
        "avx512vpopcntdq avx512bf16 avx512fp16 avx512vp2intersect avxvnni fma4 "
        "sse sse2 sse4a amx-tile amx-bf16 amx-int8 amx-fp16 aes pclmul sha "
        "gfni vaes vpclmulqdq adx rdrnd rdseed xsave mmx sve sve2 vx";
    const char *v[PT2_ISA_FLAGS_MAX + 1];

    memset(isa, 0, sizeof(*isa));
    snprintf(isa->isa, sizeof(isa->isa), "AVX512");
    snprintf(isa->source, sizeof(isa->source), "compile_cmd");
    snprintf(isa->march, sizeof(isa->march), "x86-64-v4");
    isa->nflags = split_words(fl, isa->flags, v, PT2_ISA_FLAGS_MAX + 1);
    ck_assert_uint_eq(isa->nflags, PT2_ISA_FLAGS_MAX);
}

/* Every possible list fits in PT2_ISA_FEATURES_MAX (48 used to cut this one after f16c). */
START_TEST(test_required_features_longest_list_fits)
{
    const char *f[PT2_ISA_FEATURES_MAX];
    struct pt2_cpu_isa isa;
    char buf[1024];
    size_t n = 0;

    longest_isa(&isa);
    ck_assert_str_eq(features(&isa, buf, sizeof(buf)),
                     "avx512f avx512dq avx512vl avx512bw fma avx512ifma avx512vbmi "
                     "avx512_vbmi2 avx512_vnni avx512_bitalg avx512_vpopcntdq avx512_bf16 "
                     "avx512_fp16 avx512_vp2intersect avx_vnni fma4 sse sse2 sse4a amx_tile "
                     "amx_bf16 amx_int8 amx_fp16 aes pclmulqdq sha_ni gfni vaes vpclmulqdq "
                     "adx rdrand rdseed xsave mmx sve sve2 vx pni ssse3 sse4_1 sse4_2 "
                     "popcnt cx16 avx avx2 bmi1 bmi2 f16c movbe abm avx512cd");
    /* with room for one less, the cut is reported */
    ck_assert_int_eq(pt2_isa_required_features(&isa, f, 50, &n), PT2_ERR_TOO_LARGE);
    ck_assert_uint_eq(n, 50);
    ck_assert_str_eq(f[49], "abm");
}
END_TEST

START_TEST(test_display_names)
{
    ck_assert_str_eq(pt2_isa_display_name("AVX512"), "AVX-512");
    ck_assert_str_eq(pt2_isa_display_name("AVX2"), "AVX2");
    ck_assert_str_eq(pt2_isa_display_name("NEON"), "NEON");
    ck_assert_str_eq(pt2_isa_display_name("SVE256"), "SVE");
    ck_assert_str_eq(pt2_isa_display_name("VSX"), "VSX");
    ck_assert_str_eq(pt2_isa_display_name("ZVECTOR"), "z/Architecture vector");
    ck_assert_str_eq(pt2_isa_display_name("RISCV_V"), "RISCV_V");
    ck_assert_str_eq(pt2_isa_display_name(""), "");
    ck_assert_str_eq(pt2_isa_display_name(NULL), "");
    ck_assert_int_eq(pt2_isa_is_native(NULL), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("isa");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_metadata_avx512);
    tcase_add_test(tc, test_metadata_amx_words);
    tcase_add_test(tc, test_metadata_other_isas);
    tcase_add_test(tc, test_cmd_real_mlcolvar_avx512);
    tcase_add_test(tc, test_cmd_real_executorch_neon);
    tcase_add_test(tc, test_cmd_one_line_colon_form);
    tcase_add_test(tc, test_cmd_continuation_lines_stop_at_link);
    tcase_add_test(tc, test_cmd_last_compile_line_wins);
    tcase_add_test(tc, test_cmd_derives_isa_from_flags_and_march);
    tcase_add_test(tc, test_cmd_flag_hygiene);
    tcase_add_test(tc, test_cmd_sve_most_specific_macro);
    tcase_add_test(tc, test_cmd_zvector_vsx_mcpu_msvc);
    tcase_add_test(tc, test_cmd_not_found_and_bad_args);
    tcase_add_test(tc, test_cmd_caps);
    tcase_add_test(tc, test_cmd_continuation_cap);
    tcase_add_test(tc, test_cmd_garbage_does_not_crash);
    tcase_add_test(tc, test_required_features_overflow_and_args);
    tcase_add_test(tc, test_required_features_longest_list_fits);
    tcase_add_test(tc, test_display_names);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
