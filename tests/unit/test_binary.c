/*
 * test_binary.c - the entry dispatcher: every file under tests/fixtures/bins
 * gives an exact list of records within the default read budget; host ELF
 * files give their embedded kernels (.nv_fatbin / __nv_relfatbin fatbins and
 * AOTI __<kernel>_start blobs); unknown and malformed inputs behave.
 *
 * Records are summarised as "<container>:<target>[:<symbol>][:nocode]" with
 * container F (file), B (fatbin file), S (.so fatbin section), Y (.so symbol).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_binary.h"
#include "pt2_needs.h"
#include "testutil.h"

static uint8_t *load(const char *rel, size_t *n)
{
    char path[512];
    uint8_t *b = tu_read_file(tu_fixture(rel, path, sizeof(path)), n);

    ck_assert_msg(b != NULL, "missing fixture %s", rel);
    return b;
}

static void summarize(const struct pt2_kernel_list *l, char *out, size_t len)
{
    static const char cont[] = "?FBSY";
    size_t i, used = 0;

    out[0] = '\0';
    for (i = 0; i < l->n && used < len; i++) {
        const struct pt2_kernel *k = &l->v[i];
        char t[96];
        int w;

        pt2_kernel_target_name(k, t, sizeof(t));
        w = snprintf(out + used, len - used, "%s%c:%s%s%s%s", i ? " " : "",
                     k->container >= 1 && k->container <= 4 ? cont[k->container] : '?', t,
                     k->symbol[0] ? ":" : "", k->symbol, k->has_code == 0 ? ":nocode" : "");
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

struct bin_case {
    const char *file;
    const char *kernels; /* summary of kernel records */
    const char *host;    /* host description, or NULL for none */
};

#define CUB(dir, x, t)                                                                             \
    {                                                                                              \
        "bins/" dir "/" x ".cubin", "F:" t, NULL                                                   \
    }
#define HSA(x, t)                                                                                  \
    {                                                                                              \
        "bins/amdgpu/" x ".hsaco", "F:" t, NULL                                                    \
    }

static const struct bin_case cases[] = {
    CUB("cubin_cuda13", "sm_75", "sm_75"),
    CUB("cubin_cuda13", "sm_80", "sm_80"),
    CUB("cubin_cuda13", "sm_86", "sm_86"),
    CUB("cubin_cuda13", "sm_87", "sm_87"),
    CUB("cubin_cuda13", "sm_88", "sm_88"),
    CUB("cubin_cuda13", "sm_89", "sm_89"),
    CUB("cubin_cuda13", "sm_90", "sm_90"),
    CUB("cubin_cuda13", "sm_90a", "sm_90a"),
    CUB("cubin_cuda13", "sm_100", "sm_100"),
    CUB("cubin_cuda13", "sm_100a", "sm_100a"),
    CUB("cubin_cuda13", "sm_100f", "sm_100f"),
    CUB("cubin_cuda13", "sm_103", "sm_103"),
    CUB("cubin_cuda13", "sm_103a", "sm_103a"),
    CUB("cubin_cuda13", "sm_103f", "sm_103f"),
    CUB("cubin_cuda13", "sm_110", "sm_110"),
    CUB("cubin_cuda13", "sm_110a", "sm_110a"),
    CUB("cubin_cuda13", "sm_110f", "sm_110f"),
    CUB("cubin_cuda13", "sm_120", "sm_120"),
    CUB("cubin_cuda13", "sm_120a", "sm_120a"),
    CUB("cubin_cuda13", "sm_120f", "sm_120f"),
    CUB("cubin_cuda13", "sm_121", "sm_121"),
    CUB("cubin_cuda13", "sm_121a", "sm_121a"),
    CUB("cubin_cuda13", "sm_121f", "sm_121f"),
    CUB("cubin_cuda12.4", "sm_50", "sm_50"),
    CUB("cubin_cuda12.4", "sm_52", "sm_52"),
    CUB("cubin_cuda12.4", "sm_53", "sm_53"),
    CUB("cubin_cuda12.4", "sm_60", "sm_60"),
    CUB("cubin_cuda12.4", "sm_61", "sm_61"),
    CUB("cubin_cuda12.4", "sm_62", "sm_62"),
    CUB("cubin_cuda12.4", "sm_70", "sm_70"),
    CUB("cubin_cuda12.4", "sm_72", "sm_72"),
    CUB("cubin_cuda12.4", "sm_75", "sm_75"),
    CUB("cubin_cuda12.4", "sm_80", "sm_80"),
    CUB("cubin_cuda12.4", "sm_86", "sm_86"),
    CUB("cubin_cuda12.4", "sm_87", "sm_87"),
    CUB("cubin_cuda12.4", "sm_89", "sm_89"),
    CUB("cubin_cuda12.4", "sm_90", "sm_90"),
    CUB("cubin_cuda12.4", "sm_90a", "sm_90a"),
    CUB("cubin_cuda12.4", "sm_90_li", "sm_90"),
    CUB("cubin_cuda12.4", "sm_90_rel", "sm_90"),
    CUB("cubin_cuda12.4", "c75_sm86", "sm_86"),
    CUB("cubin_cuda12.4", "c75_sm90", "sm_90"),
    CUB("cubin_cuda12.4", "c75_sm90a", "sm_90a"),
    CUB("extra", "c75_sm90", "sm_90"),
    CUB("extra", "c100f_sm103", "sm_103f"),
    CUB("extra", "c120f_sm121a", "sm_121a"),
    CUB("extra", "f_sm_90a", "sm_90a"),
    CUB("extra", "f_sm_90a_wgmma", "sm_90a"),
    CUB("extra", "f_sm_100a", "sm_100a"),
    CUB("extra", "f_sm_100f", "sm_100f"),
    CUB("extra", "f_sm_103f", "sm_103f"),
    CUB("extra", "f_sm_110f", "sm_110f"),
    CUB("extra", "sm90_G", "sm_90"),
    CUB("extra", "sm100_G", "sm_100"),
    CUB("extra", "sm90_li", "sm_90"),
    CUB("extra", "sm90_rdc", "sm_90"),
    CUB("extra", "sm100_rdc", "sm_100"),
    CUB("extra", "nvlink_sm100a_obj_linked_as_sm100", "sm_100"),
    CUB("extra", "nvlink_sm100a_obj_linked_as_sm100a", "sm_100a"),
    CUB("extra", "nvlink_sm100f_obj_linked_as_sm103", "sm_103"),

    {"bins/fatbin/cuda13_mixed_default.fatbin",
     "B:sm_75 B:sm_80 B:sm_90a B:sm_100f B:sm_120 B:compute_120 B:compute_90", NULL},
    {"bins/fatbin/cuda13_mixed_nocompress.fatbin",
     "B:sm_75 B:sm_80 B:sm_90a B:sm_100f B:sm_120 B:compute_120 B:compute_90", NULL},
    {"bins/fatbin/cuda13_mixed_compress_all_zstd.fatbin",
     "B:sm_75 B:sm_80 B:sm_90a B:sm_100f B:sm_120 B:compute_120 B:compute_90", NULL},
    {"bins/fatbin/cuda13_single_sm_90a.fatbin", "B:sm_90a B:compute_90a", NULL},
    {"bins/fatbin/cuda13_single_sm_100a.fatbin", "B:sm_100a B:compute_100a", NULL},
    {"bins/fatbin/cuda13_single_sm_100f.fatbin", "B:sm_100f B:compute_100f", NULL},
    {"bins/fatbin/cuda13_single_sm_120f.fatbin", "B:sm_120f B:compute_120f", NULL},
    {"bins/fatbin/cuda13_single_sm_121a.fatbin", "B:sm_121a B:compute_121a", NULL},
    {"bins/fatbin/cuda13_sm_90_debug_G.fatbin", "B:sm_90", NULL},
    {"bins/fatbin/cuda12.4_v7_default_lz4ptx.fatbin",
     "B:sm_75 B:sm_90 B:sm_90a B:compute_90 B:compute_90a", NULL},
    {"bins/fatbin/cuda12.4_v7_compress_all_lz4.fatbin", "B:sm_75 B:sm_90a B:compute_90", NULL},

    HSA("gfx900", "gfx900"),
    HSA("gfx906", "gfx906"),
    HSA("gfx906_srameccm_xnackp", "gfx906:sramecc-:xnack+"),
    HSA("gfx908", "gfx908"),
    HSA("gfx90a", "gfx90a"),
    HSA("gfx90a_xnackp", "gfx90a:xnack+"),
    HSA("gfx90a_xnackm", "gfx90a:xnack-"),
    HSA("gfx90a_srameccp_xnackm", "gfx90a:sramecc+:xnack-"),
    HSA("gfx90a_cov3", "gfx90a:sramecc+:xnack+"),
    HSA("gfx90a_xnackp_cov3", "gfx90a:sramecc+:xnack+"),
    HSA("gfx90a_cov5", "gfx90a"),
    HSA("gfx940", "gfx940"),
    HSA("gfx1030", "gfx1030"),
    HSA("gfx1100", "gfx1100"),
    HSA("gfx1101", "gfx1101"),
    HSA("gfx1102", "gfx1102"),
    HSA("gfx1103", "gfx1103"),

    {"bins/ptx/compute_90.ptx", "F:compute_90", NULL},
    {"bins/ptx/compute_90a.ptx", "F:compute_90a", NULL},
    {"bins/ptx/compute_100f.ptx", "F:compute_100f", NULL},
    {"bins/ptx/compute_120f.ptx", "F:compute_120f", NULL},
    {"bins/ptx/compute_90_isa8.4.ptx", "F:compute_90", NULL},

    {"bins/host_so_cpu/libx86_64.so", "", "ELF 64-bit LSB shared object, x86-64"},
    {"bins/host_so_cpu/libaarch64.so", "", "ELF 64-bit LSB shared object, ARM aarch64"},
    {"bins/host_so_cpu/lib_powerpc64le-linux-gnu.so", "",
     "ELF 64-bit LSB shared object, 64-bit PowerPC, ELFv2 ABI"},
    {"bins/host_so_cpu/lib_s390x-linux-gnu.so", "", "ELF 64-bit MSB shared object, IBM S/390"},
    {"bins/host_so_cpu/lib_riscv64-linux-gnu.so", "",
     "ELF 64-bit LSB shared object, RISC-V, RVC, double-float ABI"},
    {"bins/host_so_cpu/lib_i686-linux-gnu.so", "", "ELF 32-bit LSB shared object, Intel 80386"},
    {"bins/host_so_cpu/lib_armv7a-linux-gnueabihf.so", "",
     "ELF 32-bit LSB shared object, ARM, EABI5, hard-float"},

    /* nvcc 13: a device-link stub fatbin (no .text.*) precedes the real one. */
    {"bins/host_so_cuda/libhost_fatbin.so",
     "S:sm_80:nocode S:sm_90a:nocode S:sm_100f:nocode S:sm_120:nocode "
     "S:sm_80 S:sm_90a S:sm_100f S:sm_120 S:compute_120",
     "ELF 64-bit LSB shared object, x86-64"},
    {"bins/host_so_cuda/libhost_rdc.so",
     "S:sm_80 S:sm_90a S:sm_100f S:sm_120 S:sm_80 S:sm_90a S:sm_100f S:sm_120 S:compute_120",
     "ELF 64-bit LSB shared object, x86-64"},
    {"bins/host_so_cuda/libhost_cudartshared.so", "S:sm_90:nocode S:sm_90",
     "ELF 64-bit LSB shared object, x86-64"},
    {"bins/host_so_cuda/host_rdc.o.bin", "S:sm_80 S:sm_90a S:sm_100f S:sm_120 S:compute_120",
     "ELF 64-bit LSB relocatable, x86-64"},

    {"bins/host/libembedded_symbols.so", "Y:sm_90a:triton_poi_fused_0 Y:sm_100a:triton_per_fused_1",
     "ELF 64-bit LSB shared object, x86-64"},
    {"bins/host/triton_poi_fused_0.cubin.o.bin", "Y:sm_90a:triton_poi_fused_0",
     "ELF 64-bit LSB relocatable, x86-64"},
    /* Fatbin blob, AMD blob, cubin in .lrodata; the decoy and the lone _start are skipped. */
    {"bins/host/libembedded_mixed.so",
     "Y:sm_90a:triton_poi_fused_0 Y:sm_90a:triton_tem_fused_2 Y:compute_90a:triton_tem_fused_2 "
     "Y:gfx90a:xnack-:amd_kernel_4 Y:sm_120f:triton_red_fused_3",
     "ELF 64-bit LSB shared object, x86-64"},
    {"bins/host/macho_arm64_dylib.bin", "", "Mach-O 64-bit dylib, arm64"},
    {"bins/host/macho_universal_dylib.bin", "",
     "Mach-O universal binary with 2 architectures: x86_64 arm64"},
};

START_TEST(test_every_fixture)
{
    const struct bin_case *c = &cases[_i];
    struct pt2_rd rd;
    struct pt2_error err = {0};
    struct pt2_kernel_list kl = {0};
    struct pt2_host_list hl = {0};
    char got[1024];
    size_t n = 0, i;
    int rec = 0;
    uint8_t *b = load(c->file, &n);

    pt2_rd_init_mem(&rd, b, n, c->file);
    pt2_rd_set_budget(&rd, PT2_RD_DEFAULT_BUDGET);
    ck_assert_int_eq(pt2_binary_scan(&rd, "model/x.bin", &kl, &hl, &rec, &err), PT2_OK);
    ck_assert_int_eq(rec, 1);
    summarize(&kl, got, sizeof(got));
    ck_assert_str_eq(got, c->kernels);
    for (i = 0; i < kl.n; i++)
        ck_assert_str_eq(kl.v[i].source, "model/x.bin");
    if (c->host == NULL) {
        ck_assert_uint_eq(hl.n, 0);
    } else {
        ck_assert_uint_eq(hl.n, 1);
        ck_assert_str_eq(hl.v[0].description, c->host);
        ck_assert_str_eq(hl.v[0].source, "model/x.bin");
        ck_assert_uint_eq(hl.v[0].size, n);
    }
    /* Bounded inspection: never the whole of a large binary. */
    ck_assert_uint_lt(rd.bytes_read, PT2_RD_DEFAULT_BUDGET);
    if (n > 64 * 1024)
        ck_assert_uint_lt(rd.bytes_read, n / 8);
    pt2_kernel_list_free(&kl);
    pt2_host_list_free(&hl);
    free(b);
}
END_TEST

START_TEST(test_embedded_record_details)
{
    struct pt2_rd rd;
    struct pt2_error err = {0};
    struct pt2_kernel_list kl = {0};
    struct pt2_host_list hl = {0};
    size_t n = 0;
    int rec = 0;
    uint8_t *b = load("bins/host/libembedded_mixed.so", &n);

    pt2_rd_init_mem(&rd, b, n, "wrapper.so");
    ck_assert_int_eq(pt2_binary_scan(&rd, "data/aotinductor/model/w.so", &kl, &hl, &rec, &err),
                     PT2_OK);
    ck_assert_uint_eq(kl.n, 5);
    /* The cubin in .lrodata: address 0x8010 != file offset 0x6010. */
    ck_assert_int_eq(kl.v[4].container, PT2_CONT_SO_SYMBOL);
    ck_assert_str_eq(kl.v[4].symbol, "triton_red_fused_3");
    ck_assert_uint_eq(kl.v[4].sm, 120);
    ck_assert_int_eq(kl.v[4].variant, 'f');
    ck_assert_uint_eq(kl.v[4].toolkit, 130);
    ck_assert_int_eq(kl.v[4].has_code, 1);
    /* The fatbin blob's PTX entry keeps its fatbin facts. */
    ck_assert_int_eq(kl.v[2].kind, PT2_KERNEL_PTX);
    ck_assert_str_eq(kl.v[2].compression, "zstd");
    ck_assert_uint_eq(kl.v[2].ptx_major, 9);
    /* The AMD blob. */
    ck_assert_int_eq(kl.v[3].kind, PT2_KERNEL_HSACO);
    ck_assert_int_eq(kl.v[3].code_object_version, 4);
    ck_assert_str_eq(hl.v[0].machine, "x86_64");
    ck_assert_int_eq(hl.v[0].elf_type, 3);
    pt2_kernel_list_free(&kl);
    pt2_host_list_free(&hl);
    free(b);
}
END_TEST

static int scan_buf(const uint8_t *b, size_t n, struct pt2_kernel_list *kl,
                    struct pt2_host_list *hl, int *rec, struct pt2_error *err)
{
    struct pt2_rd rd;

    pt2_rd_init_mem(&rd, b, n, "entry");
    pt2_rd_set_budget(&rd, PT2_RD_DEFAULT_BUDGET);
    return pt2_binary_scan(&rd, "e", kl, hl, rec, err);
}

START_TEST(test_unknown_inputs)
{
    static const char cpp[] = "// Compile cmd: g++ -O3 -march=native\n#include <x>\nint y;\n";
    static const uint8_t java[16] = {0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 61};
    static const uint8_t zip[8] = {'P', 'K', 3, 4, 20, 0, 0, 0};
    struct pt2_error err = {0};
    struct pt2_kernel_list kl = {0};
    struct pt2_host_list hl = {0};
    int rec = 1;
    size_t n = 0;
    uint8_t *b = tu_read_file("tests/unit/test_binary.c", &n);

    ck_assert_int_eq(scan_buf(NULL, 0, &kl, &hl, &rec, &err), PT2_OK);
    ck_assert_int_eq(rec, 0);
    ck_assert_int_eq(scan_buf((const uint8_t *)cpp, sizeof(cpp) - 1, &kl, &hl, &rec, &err), PT2_OK);
    ck_assert_int_eq(rec, 0);
    ck_assert_int_eq(scan_buf(java, sizeof(java), &kl, &hl, &rec, &err), PT2_OK);
    ck_assert_int_eq(rec, 0);
    ck_assert_int_eq(scan_buf(zip, sizeof(zip), &kl, &hl, &rec, &err), PT2_OK);
    ck_assert_int_eq(rec, 0);
    ck_assert_ptr_nonnull(b); /* a C source file */
    ck_assert_int_eq(scan_buf(b, n, &kl, &hl, &rec, &err), PT2_OK);
    ck_assert_int_eq(rec, 0);
    ck_assert_uint_eq(kl.n, 0);
    ck_assert_uint_eq(hl.n, 0);
    ck_assert_int_eq(err.code, PT2_OK);
    free(b);
}
END_TEST

START_TEST(test_presence_only_formats)
{
    static const uint8_t spv_le[20] = {0x03, 0x02, 0x23, 0x07, 0, 0, 1, 0};
    static const uint8_t spv_be[20] = {0x07, 0x23, 0x02, 0x03, 0, 1, 0, 0};
    struct pt2_error err = {0};
    struct pt2_kernel_list kl = {0};
    struct pt2_host_list hl = {0};
    char got[256];
    int rec = 0;
    size_t n = 0;
    uint8_t *b = load("bins/cubin_cuda13/sm_90.cubin", &n);

    ck_assert_int_eq(scan_buf(spv_le, sizeof(spv_le), &kl, &hl, &rec, &err), PT2_OK);
    ck_assert_int_eq(rec, 1);
    ck_assert_int_eq(scan_buf(spv_be, sizeof(spv_be), &kl, &hl, &rec, &err), PT2_OK);
    b[18] = 205; /* e_machine EM_INTELGT: an Intel zebin */
    b[19] = 0;
    ck_assert_int_eq(scan_buf(b, n, &kl, &hl, &rec, &err), PT2_OK);
    summarize(&kl, got, sizeof(got));
    ck_assert_str_eq(got, "F:spirv F:spirv F:zebin");
    ck_assert_int_eq(kl.v[2].has_code, -1);
    pt2_kernel_list_free(&kl);
    free(b);
}
END_TEST

static void put64(uint8_t *p, uint64_t v)
{
    int i;
    for (i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

START_TEST(test_host_without_section_headers)
{
    struct pt2_error err = {0};
    struct pt2_kernel_list kl = {0};
    struct pt2_host_list hl = {0};
    char got[256];
    int rec = 0;
    size_t n = 0;
    uint8_t *b = load("bins/host_so_cuda/libhost_cudartshared.so", &n);

    /* sstrip-style: no section headers; small file, so scanned for fatbin magic. */
    put64(b + 40, 0);
    b[60] = b[61] = b[62] = b[63] = 0;
    ck_assert_int_eq(scan_buf(b, n, &kl, &hl, &rec, &err), PT2_OK);
    summarize(&kl, got, sizeof(got));
    ck_assert_str_eq(got, "S:sm_90:nocode S:sm_90");
    ck_assert_uint_eq(hl.n, 1);
    pt2_kernel_list_free(&kl);
    pt2_host_list_free(&hl);
    free(b);

    /* The same on a file above the raw-scan limit: a host without kernels. */
    b = load("bins/host_so_cuda/libhost_fatbin.so", &n);
    put64(b + 40, 0);
    b[60] = b[61] = b[62] = b[63] = 0;
    ck_assert_int_eq(scan_buf(b, n, &kl, &hl, &rec, &err), PT2_OK);
    ck_assert_uint_eq(kl.n, 0);
    ck_assert_uint_eq(hl.n, 1);
    pt2_host_list_free(&hl);
    free(b);
}
END_TEST

START_TEST(test_malformed_host_sections)
{
    struct pt2_error err = {0};
    struct pt2_kernel_list kl = {0};
    struct pt2_host_list hl = {0};
    int rec = 0;
    size_t n = 0;
    uint8_t *b = load("bins/host_so_cuda/libhost_cudartshared.so", &n);
    uint64_t shoff = pt2_le64(b + 40);

    /* .nv_fatbin (section 15) sh_offset moved past the end of the file. */
    put64(b + shoff + 15 * 64 + 24, 0x7fffffff);
    ck_assert_int_eq(scan_buf(b, n, &kl, &hl, &rec, &err), PT2_ERR_FORMAT);
    ck_assert_int_eq(rec, 1);
    ck_assert_str_eq(err.message, "entry: ELF section .nv_fatbin (offset 0x7fffffff, size 5528) "
                                  "lies beyond the end of the file (22576 bytes)");
    ck_assert_uint_eq(hl.n, 1); /* the host record made before the failure stays */
    pt2_host_list_free(&hl);
    free(b);

    /* A fatbin inside .nv_fatbin whose entry overflows it. */
    pt2_error_clear(&err);
    b = load("bins/host_so_cuda/libhost_cudartshared.so", &n);
    put64(b + 0x2008 + 16 + 8, 0xffffffffffffull);
    ck_assert_int_eq(scan_buf(b, n, &kl, &hl, &rec, &err), PT2_ERR_FORMAT);
    ck_assert_str_eq(err.message, "entry: fatbin at 0x2008: entry 0 (offset 0x2018, header 64 + "
                                  "payload 281474976710655 bytes) overflows the fatbin (1592 "
                                  "bytes left)");
    pt2_kernel_list_free(&kl);
    pt2_host_list_free(&hl);
    free(b);

    /* An embedded cubin blob with a broken section table. */
    pt2_error_clear(&err);
    b = load("bins/host/libembedded_symbols.so", &n);
    b[0x2000 + 60] = 0xff;
    b[0x2000 + 61] = 0xff;
    ck_assert_int_eq(scan_buf(b, n, &kl, &hl, &rec, &err), PT2_ERR_FORMAT);
    ck_assert_str_eq(err.message, "entry@0x2000: ELF section header table (offset 0xa28, 65535 "
                                  "entries) lies beyond the end of the file (3840 bytes)");
    pt2_kernel_list_free(&kl);
    pt2_host_list_free(&hl);
    free(b);
}
END_TEST

START_TEST(test_truncated_inputs)
{
    struct pt2_error err = {0};
    struct pt2_kernel_list kl = {0};
    struct pt2_host_list hl = {0};
    int rec = 0;
    size_t n = 0;
    uint8_t *b = load("bins/fatbin/cuda13_single_sm_90a.fatbin", &n);

    ck_assert_int_eq(scan_buf(b, 40, &kl, &hl, &rec, &err), PT2_ERR_FORMAT);
    ck_assert_int_eq(rec, 1);
    ck_assert_str_eq(err.message, "entry: fatbin at 0x0 claims 4352 bytes of entries but only 24 "
                                  "remain");
    free(b);

    pt2_error_clear(&err);
    b = load("bins/host_so_cpu/libx86_64.so", &n);
    ck_assert_int_eq(scan_buf(b, 50, &kl, &hl, &rec, &err), PT2_ERR_FORMAT);
    ck_assert_int_eq(rec, 1);
    ck_assert_str_eq(err.message, "entry: ELF header truncated (50 bytes, needs 64)");
    ck_assert_uint_eq(hl.n, 0);
    free(b);
}
END_TEST

START_TEST(test_budget_is_enforced)
{
    struct pt2_rd rd;
    struct pt2_error err = {0};
    struct pt2_kernel_list kl = {0};
    struct pt2_host_list hl = {0};
    int rec = 0;
    size_t n = 0;
    uint8_t *b = load("bins/host_so_cuda/libhost_fatbin.so", &n);

    pt2_rd_init_mem(&rd, b, n, "libhost_fatbin.so");
    pt2_rd_set_budget(&rd, 4096);
    ck_assert_int_eq(pt2_binary_scan(&rd, "x", &kl, &hl, &rec, &err), PT2_ERR_TOO_LARGE);
    ck_assert_str_eq(err.message, "libhost_fatbin.so: read budget exhausted (bounded inspection)");
    ck_assert_uint_le(rd.bytes_read, 4096);
    pt2_kernel_list_free(&kl);
    pt2_host_list_free(&hl);
    free(b);
}
END_TEST

/* Callback backend over a buffer: counts what a zip-entry reader would see. */
struct cbctx {
    const uint8_t *b;
    size_t n;
};

static int cb(void *ctx, uint64_t off, void *buf, size_t len, size_t *got, struct pt2_error *e)
{
    const struct cbctx *c = ctx;

    (void)e;
    *got = off < c->n ? (len < c->n - off ? len : c->n - (size_t)off) : 0;
    memcpy(buf, c->b + off, *got);
    return PT2_OK;
}

/* The second read plan of a host .so: exactly the sections its scan goes on to read. */
START_TEST(test_plan_host_so)
{
    struct pt2_range r[PT2_BINARY_PLAN_MAX];
    struct pt2_rd rd;
    size_t n = 99, len;
    uint8_t *b = load("bins/host_so_cuda/libhost_fatbin.so", &len);

    pt2_rd_init_mem(&rd, b, len, "libhost_fatbin.so");
    pt2_binary_plan(&rd, r, &n);
    /* readelf -S: .dynsym 0x2c8+0xfd8 (sh_info 1, 24-byte symbols), .dynstr 0x12a0+0x86a,
     * .gnu.version 0x1b0a+0x152, .gnu.version_r 0x1c60+0xe0 (the runtime needs),
     * .nv_fatbin 0x8e990+0x6418, .dynamic 0xacea0+0x1f0, .symtab 0xae5c0+0x17100
     * (sh_info 3768), in section order */
    ck_assert_uint_eq(n, 7);
    ck_assert_uint_eq(r[0].off, 0x2c8 + 24);
    ck_assert_uint_eq(r[0].len, 0xfd8 - 24);
    ck_assert_uint_eq(r[1].off, 0x12a0);
    ck_assert_uint_eq(r[1].len, 0x86a);
    ck_assert_uint_eq(r[2].off, 0x1b0a);
    ck_assert_uint_eq(r[2].len, 0x152);
    ck_assert_uint_eq(r[3].off, 0x1c60);
    ck_assert_uint_eq(r[3].len, 0xe0);
    ck_assert_uint_eq(r[4].off, 0x8e990);
    ck_assert_uint_eq(r[4].len, 0x6418);
    ck_assert_uint_eq(r[5].off, 0xacea0);
    ck_assert_uint_eq(r[5].len, 0x1f0);
    ck_assert_uint_eq(r[6].off, 0xae5c0 + 3768u * 24u);
    ck_assert_uint_eq(r[6].len, 0x17100 - 3768u * 24u);
    free(b);

    /* a cubin comes whole with the first plan; text and short input plan nothing */
    b = load("bins/cubin_cuda13/sm_90a.cubin", &len);
    pt2_rd_init_mem(&rd, b, len, "sm_90a.cubin");
    n = 99;
    pt2_binary_plan(&rd, r, &n);
    ck_assert_uint_eq(n, 0);
    free(b);
    pt2_rd_init_mem(&rd, "\177ELF", 4, "short");
    n = 99;
    pt2_binary_plan(&rd, r, &n);
    ck_assert_uint_eq(n, 0);
}
END_TEST

START_TEST(test_callback_reader_counts)
{
    struct pt2_rd rd;
    struct pt2_error err = {0};
    struct pt2_kernel_list kl = {0};
    struct pt2_host_list hl = {0};
    struct cbctx c;
    int rec = 0;
    size_t n = 0;
    uint8_t *b = load("bins/host_so_cuda/libhost_rdc.so", &n);

    c.b = b;
    c.n = n;
    pt2_rd_init_fn(&rd, cb, &c, n, "libhost_rdc.so");
    pt2_rd_set_budget(&rd, PT2_RD_DEFAULT_BUDGET);
    ck_assert_int_eq(pt2_binary_scan(&rd, "x", &kl, &hl, &rec, &err), PT2_OK);
    ck_assert_uint_eq(kl.n, 9);
    ck_assert_uint_gt(rd.calls, 10);
    ck_assert_uint_lt(rd.calls, 400);
    /* headers, kernels and the runtime needs (.dynsym 0x1098, .dynstr 0x992, .gnu.version
     * 0x162, .gnu.version_r 0xe0, .dynamic 0x1f0; names from the .dynstr read once) */
    ck_assert_uint_lt(rd.bytes_read, 64 * 1024);
    ck_assert_uint_eq(hl.n, 1);
    ck_assert_ptr_nonnull(hl.v[0].needs);
    ck_assert_str_eq(hl.v[0].needs->partial, "");
    pt2_kernel_list_free(&kl);
    pt2_host_list_free(&hl);
    free(b);
}
END_TEST

/* Stored zip member whose name ends with `suffix`: offset of its data. */
static long find_stored_member(const uint8_t *z, size_t n, const char *suffix)
{
    size_t i, sl = strlen(suffix);

    for (i = 0; i + 30 <= n; i++) {
        size_t nl, xl;
        if (memcmp(z + i, "PK\003\004", 4) != 0)
            continue;
        nl = pt2_le16(z + i + 26);
        xl = pt2_le16(z + i + 28);
        if (i + 30 + nl + xl > n || nl < sl || pt2_le16(z + i + 8) != 0)
            continue;
        if (memcmp(z + i + 30 + nl - sl, suffix, sl) == 0)
            return (long)(i + 30 + nl + xl);
    }
    return -1;
}

START_TEST(test_real_package_host_so)
{
    char path[512];
    struct pt2_rd rd;
    struct pt2_error err = {0};
    struct pt2_kernel_list kl = {0};
    struct pt2_host_list hl = {0};
    size_t n = 0, size;
    int rec = 0;
    long off;
    uint8_t *z;

    if (tu_shared("corpus/pt2/mlcolvar__descriptor_based_inputs_model.pt2", path, sizeof(path)) ==
        NULL) {
        tu_skip("binary real package", "shared corpus absent");
        return;
    }
    z = tu_read_file(path, &n);
    ck_assert_ptr_nonnull(z);
    off = find_stored_member(z, n, ".wrapper.so");
    ck_assert_int_gt(off, 0);
    size = 370624; /* the member's size (zipfile listing) */
    ck_assert_uint_le((size_t)off + size, n);
    pt2_rd_init_mem(&rd, z + off, size, "wrapper.so");
    pt2_rd_set_budget(&rd, PT2_RD_DEFAULT_BUDGET);
    ck_assert_int_eq(pt2_binary_scan(&rd, "x", &kl, &hl, &rec, &err), PT2_OK);
    ck_assert_uint_eq(kl.n, 0);
    ck_assert_uint_eq(hl.n, 1);
    ck_assert_str_eq(hl.v[0].description, "ELF 64-bit LSB shared object, x86-64");
    /* headers and the runtime needs (readelf -S: .dynsym 0x3438, .dynstr 0xc914,
     * .gnu.version 0x45a, .gnu.version_r, .dynamic), each section read once */
    ck_assert_uint_lt(rd.bytes_read, 128 * 1024);
    pt2_host_list_free(&hl);
    free(z);
}
END_TEST

/* Deterministic byte mutations of real fixtures: every outcome is a clean
 * status with a message (never a crash, hang or sanitizer report). */
START_TEST(test_mutations_fail_cleanly)
{
    static const char *const files[] = {
        "bins/host/libembedded_mixed.so", "bins/host_so_cuda/libhost_cudartshared.so",
        "bins/fatbin/cuda13_mixed_default.fatbin", "bins/cubin_cuda13/sm_100f.cubin",
        "bins/host/macho_universal_dylib.bin"};
    uint64_t x = 0x9e3779b97f4a7c15ull;
    size_t f, it, outcomes[2] = {0, 0};

    for (f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
        size_t n = 0;
        uint8_t *orig = load(files[f], &n), *b = malloc(n);

        for (it = 0; it < 200; it++) {
            struct pt2_error err = {0};
            struct pt2_kernel_list kl = {0};
            struct pt2_host_list hl = {0};
            size_t j, len = n;
            int rec = 0, rc;

            memcpy(b, orig, n);
            for (j = 0; j < 4; j++) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                /* Half the hits land in the first 64 bytes (headers). */
                b[(j & 1) ? x % n : x % (n < 64 ? n : 64)] = (uint8_t)(x >> 32);
            }
            if (it % 10 == 0)
                len = (size_t)(x % n);
            rc = scan_buf(b, len, &kl, &hl, &rec, &err);
            ck_assert_msg(rc == PT2_OK || rc == PT2_ERR_FORMAT || rc == PT2_ERR_TOO_LARGE,
                          "%s: unexpected status %d", files[f], rc);
            if (rc == PT2_OK)
                ck_assert_int_eq(err.code, PT2_OK);
            else
                ck_assert_int_ne(err.message[0], '\0');
            outcomes[rc == PT2_OK]++;
            pt2_kernel_list_free(&kl);
            pt2_host_list_free(&hl);
        }
        free(b);
        free(orig);
    }
    /* Both kinds of outcome occurred, so the mutations reached the parsers. */
    ck_assert_uint_gt(outcomes[0], 50);
    ck_assert_uint_gt(outcomes[1], 50);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("binary");
    TCase *tc = tcase_create("core");

    tcase_add_loop_test(tc, test_every_fixture, 0, (int)(sizeof(cases) / sizeof(cases[0])));
    tcase_add_test(tc, test_embedded_record_details);
    tcase_add_test(tc, test_unknown_inputs);
    tcase_add_test(tc, test_presence_only_formats);
    tcase_add_test(tc, test_host_without_section_headers);
    tcase_add_test(tc, test_malformed_host_sections);
    tcase_add_test(tc, test_truncated_inputs);
    tcase_add_test(tc, test_budget_is_enforced);
    tcase_add_test(tc, test_callback_reader_counts);
    tcase_add_test(tc, test_plan_host_so);
    tcase_add_test(tc, test_real_package_host_so);
    tcase_add_test(tc, test_mutations_fail_cleanly);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
