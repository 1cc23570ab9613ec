/*
 * test_desc.c - compute capability, GPU product, AMD target and CPU descriptions.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "pt2_desc.h"
#include "pt2_isa.h"
#include "testutil.h"

START_TEST(test_cc_text_every_row)
{
    static const struct {
        int major, minor;
        const char *text;
    } rows[] = {
        {5, 0, "Maxwell (GM107/GM108): Tesla M10, Quadro K620/K1200, GTX 750/750 Ti"},
        {5, 2,
         "Maxwell (GM20x): Tesla M4/M6/M40/M60, Quadro M4000/M6000, GTX 970/980/980 Ti, "
         "Titan X (Maxwell)"},
        {5, 3, "Maxwell (GM20B): Jetson TX1, Jetson Nano"},
        {6, 0, "Pascal (GP100): Tesla P100, Quadro GP100"},
        {6, 1,
         "Pascal (GP10x): Tesla P4/P40, Quadro P4000/P5000/P6000, GTX 1050-1080 Ti, "
         "Titan Xp"},
        {6, 2, "Pascal (GP10B): Jetson TX2"},
        {7, 0, "Volta (GV100): Tesla V100, Quadro GV100, Titan V"},
        {7, 2, "Volta (GV10B): Jetson AGX Xavier, Xavier NX"},
        {7, 5,
         "Turing (TU10x/TU11x): Tesla T4, Quadro RTX 4000-8000, T400-T1000, "
         "RTX 2060-2080 Ti, GTX 1650/1660, Titan RTX"},
        {8, 0, "Ampere (GA100): A100, A30, A800"},
        {8, 6, "Ampere (GA10x): A10, A10G, A16, A2, A40, RTX A2000-A6000, RTX 3050-3090 Ti"},
        {8, 7, "Ampere (GA10B): Jetson AGX Orin, Orin NX, Orin Nano"},
        {8, 8, "Unreleased (sm_88 target of CUDA 13.0): no public product known"},
        {8, 9,
         "Ada Lovelace (AD10x): L4, L40, L40S, L20, RTX 6000 Ada, RTX 4000/4500/5000 Ada, "
         "RTX 4060-4090"},
        {9, 0, "Hopper (GH100): H100, H200, H800, H20, GH200"},
        {10, 0, "Blackwell (GB100): B200, GB200, B100"},
        {10, 1,
         "Blackwell (Thor): Jetson AGX Thor, DRIVE AGX Thor; CC 10.1 is Thor's number "
         "before CUDA 13.0, which calls it 11.0"},
        {10, 3, "Blackwell Ultra: B300, GB300"},
        {11, 0,
         "Blackwell (Thor): Jetson AGX Thor, DRIVE AGX Thor; CUDA 12.8/12.9 called it "
         "10.1 (sm_101)"},
        {12, 0,
         "Blackwell (GB20x): RTX PRO 6000 Blackwell Server Edition, RTX PRO 4000-6000 "
         "Blackwell, RTX 5050-5090"},
        {12, 1, "Blackwell (GB10): DGX Spark, other GB10 systems"},
    };
    char buf[512];
    size_t i;

    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        ck_assert_str_eq(pt2_desc_cc_text(rows[i].major, rows[i].minor, buf, sizeof(buf)),
                         rows[i].text);
        ck_assert_int_eq(pt2_desc_cc(rows[i].major, rows[i].minor, NULL), PT2_OK);
    }
    ck_assert_str_eq(pt2_desc_cc_text(9, 9, buf, sizeof(buf)), "unknown compute capability 9.9");
    ck_assert_str_eq(pt2_desc_cc_text(3, 7, buf, sizeof(buf)), "unknown compute capability 3.7");
}
END_TEST

START_TEST(test_cc_fields_and_truncation)
{
    struct pt2_cc_desc d;
    char small[12];

    ck_assert_int_eq(pt2_desc_cc(9, 0, &d), PT2_OK);
    ck_assert_str_eq(d.arch, "Hopper");
    ck_assert_str_eq(d.chip, "GH100");
    ck_assert_str_eq(d.datacenter, "H100, H200, H800, H20, GH200");
    ck_assert_str_eq(d.workstation, "");
    ck_assert_str_eq(d.note, "");
    ck_assert_int_eq(pt2_desc_cc(8, 7, &d), PT2_OK);
    ck_assert_str_eq(d.embedded, "Jetson AGX Orin, Orin NX, Orin Nano");
    ck_assert_int_eq(pt2_desc_cc(9, 9, &d), PT2_ERR_NOT_FOUND);
    ck_assert_int_eq(pt2_desc_cc(-1, 0, &d), PT2_ERR_NOT_FOUND);
    ck_assert_str_eq(pt2_desc_cc_text(9, 0, small, sizeof(small)), "Hopper (GH1");
    ck_assert_ptr_eq(pt2_desc_cc_text(9, 0, small, 0), small);
}
END_TEST

START_TEST(test_gpu_lookup_nvidia)
{
    static const struct {
        const char *text, *product;
        int major, minor;
    } cases[] = {
        {"H100", "H100", 9, 0},
        {"h100", "H100", 9, 0},
        {"NVIDIA H100 80GB HBM3", "H100", 9, 0},
        {"NVIDIA H100 PCIe", "H100", 9, 0},
        {"NVIDIA-H100-80GB-HBM3", "H100", 9, 0},
        {"H200", "H200", 9, 0},
        {"H20", "H20", 9, 0},
        {"NVIDIA H20", "H20", 9, 0},
        {"GH200", "GH200", 9, 0},
        {"NVIDIA GH200 480GB", "GH200", 9, 0},
        {"A100", "A100", 8, 0},
        {"NVIDIA A100", "A100", 8, 0},
        {"A100-SXM4-80GB", "A100", 8, 0},
        {"A100-SXM4-40GB", "A100", 8, 0},
        {"NVIDIA-A100-SXM4-40GB", "A100", 8, 0},
        {"NVIDIA-A100-SXM4-40GB-MIG-1g.5gb", "A100", 8, 0},
        {"A10", "A10", 8, 6},
        {"NVIDIA A10", "A10", 8, 6},
        {"A10G", "A10G", 8, 6},
        {"NVIDIA A10G", "A10G", 8, 6},
        {"L4", "L4", 8, 9},
        {"NVIDIA L4", "L4", 8, 9},
        {"L40", "L40", 8, 9},
        {"L40S", "L40S", 8, 9},
        {"NVIDIA L40S", "L40S", 8, 9},
        {"T4", "T4", 7, 5},
        {"Tesla T4", "T4", 7, 5},
        {"Tesla-T4", "T4", 7, 5},
        {"V100", "V100", 7, 0},
        {"Tesla V100-SXM2-16GB", "V100", 7, 0},
        {"P100", "P100", 6, 0},
        {"Tesla P100-PCIE-16GB", "P100", 6, 0},
        {"Tesla P4", "Tesla P4", 6, 1},
        {"Tesla P40", "Tesla P40", 6, 1},
        {"B200", "B200", 10, 0},
        {"NVIDIA B200", "B200", 10, 0},
        {"GB200", "GB200", 10, 0},
        {"B300", "B300", 10, 3},
        {"GB300", "GB300", 10, 3},
        {"RTX 4090", "RTX 4090", 8, 9},
        {"rtx4090", "RTX 4090", 8, 9},
        {"NVIDIA GeForce RTX 4090", "RTX 4090", 8, 9},
        {"NVIDIA-GeForce-RTX-4090", "RTX 4090", 8, 9},
        {"RTX 3090", "RTX 3090", 8, 6},
        {"NVIDIA GeForce RTX 3090 Ti", "RTX 3090", 8, 6},
        {"RTX 5090", "RTX 5090", 12, 0},
        {"NVIDIA GeForce RTX 5090", "RTX 5090", 12, 0},
        {"RTX PRO 6000", "RTX PRO 6000", 12, 0},
        {"NVIDIA RTX PRO 6000 Blackwell Server Edition", "RTX PRO 6000", 12, 0},
        {"NVIDIA RTX 6000 Ada Generation", "RTX 6000 Ada", 8, 9},
        {"Quadro RTX 6000", "Quadro RTX 6000", 7, 5},
        {"NVIDIA RTX A6000", "RTX A6000", 8, 6},
        {"NVIDIA RTX 4000 SFF Ada Generation", "RTX 4000 SFF Ada", 8, 9},
        {"Jetson Orin", "Jetson Orin", 8, 7},
        {"Jetson AGX Orin", "Jetson Orin", 8, 7},
        {"Orin (nvgpu)", "Jetson Orin", 8, 7},
        {"Jetson Orin Nano", "Jetson Orin", 8, 7},
        {"Jetson Nano", "Jetson Nano", 5, 3},
        {"Thor", "Jetson Thor", 11, 0},
        {"NVIDIA Jetson AGX Thor", "Jetson Thor", 11, 0},
        {"DRIVE AGX Thor", "Jetson Thor", 11, 0},
        {"DGX Spark", "DGX Spark", 12, 1},
        {"GB10", "GB10", 12, 1},
        {"NVIDIA GB10", "GB10", 12, 1},
        {"Titan V", "Titan V", 7, 0},
        {"NVIDIA TITAN RTX", "Titan RTX", 7, 5},
    };
    struct pt2_gpu_match m;
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        ck_assert_msg(pt2_desc_gpu_lookup(cases[i].text, &m) == PT2_OK, "lookup '%s'",
                      cases[i].text);
        ck_assert_int_eq(m.vendor, PT2_VENDOR_NVIDIA);
        ck_assert_str_eq(m.product, cases[i].product);
        ck_assert_int_eq(m.cc_major, cases[i].major);
        ck_assert_int_eq(m.cc_minor, cases[i].minor);
        ck_assert_str_eq(m.gfx, "");
    }
}
END_TEST

START_TEST(test_gpu_lookup_amd)
{
    static const struct {
        const char *text, *product, *gfx;
    } cases[] = {
        {"MI300X", "MI300X", "gfx942"},
        {"AMD Instinct MI300X", "MI300X", "gfx942"},
        {"mi300a", "MI300A", "gfx942"},
        {"MI325X", "MI325X", "gfx942"},
        {"MI300", "MI300", "gfx942"},
        {"AMD Instinct MI250X", "MI250X", "gfx90a"},
        {"AMD Instinct MI250X / MI250", "MI250X", "gfx90a"},
        {"MI250", "MI250", "gfx90a"},
        {"MI210", "MI210", "gfx90a"},
        {"MI100", "MI100", "gfx908"},
        {"MI50", "MI50", "gfx906"},
        {"Radeon VII", "Radeon VII", "gfx906"},
        {"AMD Radeon PRO VII", "Radeon PRO VII", "gfx906"},
        {"MI25", "MI25", "gfx900"},
        {"Radeon RX Vega 64", "RX Vega", "gfx900"},
        {"MI355X", "MI355X", "gfx950"},
        {"AMD Radeon RX 7900 XTX", "RX 7900", "gfx1100"},
        {"Radeon PRO W7900", "Radeon PRO W7900", "gfx1100"},
        {"RX 6900 XT", "RX 6900", "gfx1030"},
        {"RX 9070 XT", "RX 9070", "gfx1201"},
    };
    struct pt2_gpu_match m;
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        ck_assert_msg(pt2_desc_gpu_lookup(cases[i].text, &m) == PT2_OK, "lookup '%s'",
                      cases[i].text);
        ck_assert_int_eq(m.vendor, PT2_VENDOR_AMD);
        ck_assert_str_eq(m.product, cases[i].product);
        ck_assert_str_eq(m.gfx, cases[i].gfx);
        ck_assert_int_eq(m.cc_major, 0);
    }
}
END_TEST

START_TEST(test_gpu_lookup_rejects)
{
    static const char *const bad[] = {
        "H999",   "",    "NVIDIA", "A1000",  "H1000", "GB1000", "X100",   "L400",
        "MI2500", "9.0", "sm_90",  "gfx90a", "-",     "   ",    "T40000",
    };
    char huge[300];
    struct pt2_gpu_match m;
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ck_assert_msg(pt2_desc_gpu_lookup(bad[i], &m) == PT2_ERR_NOT_FOUND, "lookup '%s'", bad[i]);
    memset(huge, 'A', sizeof(huge) - 1);
    huge[sizeof(huge) - 1] = '\0';
    ck_assert_int_eq(pt2_desc_gpu_lookup(huge, &m), PT2_ERR_INVALID);
    ck_assert_int_eq(pt2_desc_gpu_lookup(NULL, &m), PT2_ERR_INVALID);
    ck_assert_int_eq(pt2_desc_gpu_lookup("H100", NULL), PT2_ERR_INVALID);
    /* Separators alone do not count against the length cap. */
    memset(huge, '-', sizeof(huge) - 1);
    memcpy(huge + 200, "H100", 4);
    ck_assert_int_eq(pt2_desc_gpu_lookup(huge, &m), PT2_OK);
    ck_assert_str_eq(m.product, "H100");
}
END_TEST

START_TEST(test_gfx_text)
{
    static const struct {
        const char *gfx, *text;
    } cases[] = {
        {"gfx90a", "AMD Instinct MI210/MI250/MI250X (CDNA2)"},
        {"gfx90a:xnack-", "AMD Instinct MI210/MI250/MI250X (CDNA2)"},
        {"gfx90a:sramecc+:xnack-", "AMD Instinct MI210/MI250/MI250X (CDNA2)"},
        {"gfx942", "AMD Instinct MI300X/MI300A/MI325X (CDNA3)"},
        {"gfx950", "AMD Instinct MI350X/MI355X (CDNA4)"},
        {"gfx908", "AMD Instinct MI100 (CDNA)"},
        {"gfx906", "AMD Instinct MI50/MI60 / Radeon VII (Vega 20, GCN5)"},
        {"gfx900", "AMD Radeon Instinct MI25 / Radeon RX Vega (Vega 10, GCN5)"},
        {"gfx940", "AMD Instinct MI300A (CDNA3, early gfx940 target)"},
        {"gfx1030", "AMD Radeon RX 6800/6900, Radeon PRO W6800 (RDNA2)"},
        {"gfx1100", "AMD Radeon RX 7900, Radeon PRO W7800/W7900 (RDNA3)"},
        {"gfx1101", "AMD Radeon RX 7700/7800 (RDNA3)"},
        {"gfx1102", "AMD Radeon RX 7600 (RDNA3)"},
        {"gfx1103", "AMD Radeon 760M/780M integrated (RDNA3)"},
        {"gfx1201", "AMD Radeon RX 9070 (RDNA4)"},
        {"gfx1234", "unknown AMD GPU target gfx1234"},
        {"gfx9", "unknown AMD GPU target gfx9"},
        {"", "unknown AMD GPU target "},
    };
    char buf[128];
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        ck_assert_str_eq(pt2_desc_gfx_text(cases[i].gfx, buf, sizeof(buf)), cases[i].text);
    ck_assert_str_eq(pt2_desc_gfx_text(NULL, buf, sizeof(buf)), "unknown AMD GPU target ");
    ck_assert_str_eq(
        pt2_desc_gfx_text("gfx1aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", buf, sizeof(buf)),
        "unknown AMD GPU target gfx1aaaaaaaaaaaaaaaaaaaaaaaaaaaa");
}
END_TEST

static struct pt2_host host(int format, const char *machine, int elf_type, int big_endian)
{
    struct pt2_host h;

    memset(&h, 0, sizeof(h));
    h.format = format;
    h.elf_type = elf_type;
    h.big_endian = big_endian;
    h.bits = 64;
    snprintf(h.machine, sizeof(h.machine), "%s", machine);
    return h;
}

START_TEST(test_cpu_text)
{
    struct pt2_host hv[6];
    struct pt2_host_list hl = {hv, 0, 6};
    struct pt2_cpu_isa isa;
    char buf[512];
    static const char cmd[] = "// Compile cmd\n// g++ -march=native -D CPU_CAPABILITY_AVX512 "
                              "-mavx512f -mavx512dq -mavx512vl -mavx512bw -mfma\n";

    hv[0] = host(PT2_HOST_ELF, "x86_64", 3, 0);
    hl.n = 1;
    ck_assert_int_eq(pt2_isa_from_compile_cmd(cmd, sizeof(cmd) - 1, &isa), PT2_OK);
    ck_assert_str_eq(pt2_desc_cpu_text(&hl, &isa, buf, sizeof(buf)),
                     "x86-64 Linux shared object, AVX-512 (avx512f, avx512dq, avx512vl, "
                     "avx512bw, fma), -march=native");
    ck_assert_str_eq(pt2_desc_cpu_text(&hl, NULL, buf, sizeof(buf)), "x86-64 Linux shared object");

    hv[0] = host(PT2_HOST_ELF, "aarch64", 3, 0);
    ck_assert_int_eq(pt2_isa_from_metadata("NEON", &isa), PT2_OK);
    ck_assert_str_eq(pt2_desc_cpu_text(&hl, &isa, buf, sizeof(buf)),
                     "AArch64 Linux shared object, NEON (asimd)");

    hv[0] = host(PT2_HOST_MACHO, "arm64", 0, 0);
    ck_assert_str_eq(pt2_desc_cpu_text(&hl, &isa, buf, sizeof(buf)),
                     "macOS arm64 (Apple silicon) dylib, NEON (asimd)");
    hv[0] = host(PT2_HOST_MACHO, "x86_64", 0, 0);
    ck_assert_str_eq(pt2_desc_cpu_text(&hl, NULL, buf, sizeof(buf)), "macOS x86-64 (Intel) dylib");
    hv[0] = host(PT2_HOST_MACHO_FAT, "arm64,x86_64", 0, 0);
    ck_assert_str_eq(pt2_desc_cpu_text(&hl, NULL, buf, sizeof(buf)),
                     "macOS universal dylib (arm64,x86_64)");
    hv[0] = host(PT2_HOST_PE, "x86_64", 0, 0);
    ck_assert_str_eq(pt2_desc_cpu_text(&hl, NULL, buf, sizeof(buf)), "Windows x86-64 DLL");

    hv[0] = host(PT2_HOST_ELF, "s390x", 3, 1);
    ck_assert_int_eq(pt2_isa_from_metadata("", &isa), PT2_OK);
    ck_assert_str_eq(pt2_desc_cpu_text(&hl, &isa, buf, sizeof(buf)),
                     "s390x (big-endian) Linux shared object");
    ck_assert_int_eq(pt2_isa_from_metadata("ZVECTOR", &isa), PT2_OK);
    ck_assert_str_eq(pt2_desc_cpu_text(&hl, &isa, buf, sizeof(buf)),
                     "s390x (big-endian) Linux shared object, z/Architecture vector (vxe)");

    hv[0] = host(PT2_HOST_ELF, "ppc64le", 3, 0);
    ck_assert_int_eq(pt2_isa_from_metadata("VSX", &isa), PT2_OK);
    ck_assert_str_eq(pt2_desc_cpu_text(&hl, &isa, buf, sizeof(buf)),
                     "ppc64le Linux shared object, VSX");

    /* Several hosts: distinct kinds joined, duplicates once. */
    hv[0] = host(PT2_HOST_ELF, "x86_64", 3, 0);
    hv[1] = host(PT2_HOST_ELF, "x86_64", 3, 0);
    hv[2] = host(PT2_HOST_ELF, "x86_64", 1, 0);
    hv[3] = host(PT2_HOST_ELF, "riscv64", 3, 0);
    hv[4] = host(PT2_HOST_ELF, "em_999", 2, 0);
    hv[5] = host(PT2_HOST_ELF, "i686", 3, 0);
    hl.n = 6;
    ck_assert_str_eq(pt2_desc_cpu_text(&hl, NULL, buf, sizeof(buf)),
                     "x86-64 Linux shared object + x86-64 Linux relocatable object + RISC-V 64 "
                     "Linux shared object + em_999 Linux executable + more");

    /* No host at all; ISA from flags only. */
    ck_assert_int_eq(pt2_isa_from_compile_cmd("// Compile cmd\n// g++ -mf16c\n", 29, &isa), PT2_OK);
    ck_assert_str_eq(pt2_desc_cpu_text(NULL, &isa, buf, sizeof(buf)),
                     "no host binary, CPU features (f16c)");
    ck_assert_str_eq(pt2_desc_cpu_text(NULL, NULL, buf, sizeof(buf)), "no host binary");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("desc");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_cc_text_every_row);
    tcase_add_test(tc, test_cc_fields_and_truncation);
    tcase_add_test(tc, test_gpu_lookup_nvidia);
    tcase_add_test(tc, test_gpu_lookup_amd);
    tcase_add_test(tc, test_gpu_lookup_rejects);
    tcase_add_test(tc, test_gfx_text);
    tcase_add_test(tc, test_cpu_text);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
