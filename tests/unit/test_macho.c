/*
 * test_macho.c - Mach-O headers: thin and universal fixtures (the thin one is
 * the header of the arm64 dylib in the executorch preprocess package), the
 * real package when the shared corpus is present, big-endian headers, CPU
 * names, Java class files (same magic), and malformed universal headers.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_macho.h"
#include "pt2_needs.h"
#include "pt2_runtime.h"
#include "pt2_shims.h"
#include "testutil.h"

static uint8_t *load(const char *rel, size_t *n)
{
    char path[512];
    uint8_t *b = tu_read_file(tu_fixture(rel, path, sizeof(path)), n);

    ck_assert_msg(b != NULL, "missing fixture %s", rel);
    return b;
}

static int scan(const uint8_t *b, size_t n, struct pt2_host *h, int *recognized,
                struct pt2_error *err)
{
    struct pt2_rd rd;

    memset(h, 0, sizeof(*h));
    pt2_rd_init_mem(&rd, b, n, "lib.dylib");
    return pt2_macho_scan(&rd, h, recognized, err);
}

START_TEST(test_thin_arm64_dylib)
{
    struct pt2_error err = {0};
    struct pt2_host h;
    int rec = 0;
    size_t n = 0;
    uint8_t *b = load("bins/host/macho_arm64_dylib.bin", &n);

    ck_assert_int_eq(pt2_macho_probe(b, n), PT2_MACHO_THIN);
    ck_assert_int_eq(scan(b, n, &h, &rec, &err), PT2_OK);
    ck_assert_int_eq(rec, 1);
    ck_assert_int_eq(h.format, PT2_HOST_MACHO);
    ck_assert_int_eq(h.bits, 64);
    ck_assert_int_eq(h.big_endian, 0);
    ck_assert_uint_eq(h.e_machine, 0x0100000c);
    ck_assert_str_eq(h.machine, "arm64");
    ck_assert_str_eq(h.description, "Mach-O 64-bit dylib, arm64");
    ck_assert_int_eq(h.elf_type, 0);
    ck_assert_uint_eq(h.size, 32);
    free(b);
}
END_TEST

START_TEST(test_universal_dylib)
{
    struct pt2_error err = {0};
    struct pt2_host h;
    int rec = 0;
    size_t n = 0;
    uint8_t *b = load("bins/host/macho_universal_dylib.bin", &n);

    ck_assert_int_eq(pt2_macho_probe(b, n), PT2_MACHO_FAT);
    ck_assert_int_eq(scan(b, n, &h, &rec, &err), PT2_OK);
    ck_assert_int_eq(rec, 1);
    ck_assert_int_eq(h.format, PT2_HOST_MACHO_FAT);
    ck_assert_int_eq(h.bits, 64);
    ck_assert_uint_eq(h.e_machine, 0x01000007);
    ck_assert_str_eq(h.machine, "x86_64,arm64");
    ck_assert_str_eq(h.description, "Mach-O universal binary with 2 architectures: x86_64 arm64");
    ck_assert_uint_eq(h.size, 128);
    free(b);
}
END_TEST

/* Stored (uncompressed) zip member whose name ends with `suffix`: data offset. */
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

START_TEST(test_real_package_dylib)
{
    char path[512];
    struct pt2_error err = {0};
    struct pt2_host h;
    int rec = 0;
    size_t n = 0;
    long off;
    uint8_t *z;

    if (tu_shared("corpus/pt2/executorch__preprocess_2025-05-23.pt2", path, sizeof(path)) == NULL) {
        tu_skip("macho real package", "shared corpus absent");
        return;
    }
    z = tu_read_file(path, &n);
    ck_assert_ptr_nonnull(z);
    off = find_stored_member(z, n, ".wrapper.so");
    ck_assert_int_gt(off, 0);
    ck_assert_int_eq(scan(z + off, n - (size_t)off, &h, &rec, &err), PT2_OK);
    ck_assert_int_eq(rec, 1);
    ck_assert_str_eq(h.machine, "arm64");
    ck_assert_str_eq(h.description, "Mach-O 64-bit dylib, arm64");

    /* Its runtime needs, as llvm-objdump --macho --private-headers and llvm-nm -u show them:
     * LC_BUILD_VERSION minos 15.0, three LC_LOAD_DYLIBs, 131 undefined externals of which 22
     * are torch shims (the leading '_' dropped). */
    {
        struct pt2_rd rd;
        struct pt2_needs *nd = pt2_needs_new(PT2_HOST_MACHO);
        size_t shims = 0;

        memset(&h, 0, sizeof(h));
        h.needs = nd;
        pt2_rd_init_mem(&rd, z + off, n - (size_t)off, "lib.dylib");
        ck_assert_int_eq(pt2_macho_scan(&rd, &h, &rec, &err), PT2_OK);
        ck_assert_str_eq(nd->partial, "");
        ck_assert_uint_eq(nd->macos_min, 0x000f0000u);
        ck_assert_uint_eq(nd->macho_platforms, 1u << 1); /* LC_BUILD_VERSION platform 1 */
        ck_assert_uint_eq(nd->nlibs, 3);
        ck_assert_str_eq(pt2_needs_str(nd, nd->libs[0]),
                         "/opt/homebrew/opt/libomp/lib/libomp.dylib");
        ck_assert_str_eq(pt2_needs_str(nd, nd->libs[1]), "/usr/lib/libc++.1.dylib");
        ck_assert_str_eq(pt2_needs_str(nd, nd->libs[2]), "/usr/lib/libSystem.B.dylib");
        ck_assert_uint_eq(nd->nimports, 131);
        /* LC_ID_DYLIB: the build folder's path (llvm-objdump); no LC_RPATH */
        ck_assert_str_eq(pt2_needs_str(nd, nd->soname),
                         "/var/folders/hw/zhdkxy2j40354p9kz4l_g5500000gn/T/"
                         "torchinductor_madragna/cbvpra7ytdnejykczq6clbq436em4pyddokcaybf57mpmgre"
                         "lra2/cw6i5kuukokhhl6upvnmncq5t6nnmtdfhtfxo46vzc7t46zchepo.wrapper.so");
        ck_assert_uint_eq(nd->runpath, 0);
        pt2_shims_classify_needs(nd);
        for (size_t i = 0; i < nd->nimports; i++)
            shims += nd->imports[i].kind == PT2_IMP_SHIM;
        ck_assert_uint_eq(shims, 22);
        pt2_needs_free(nd);
    }
    free(z);
}
END_TEST

/*
 * The platforms a Mach-O names: dyld loads it only into a process of one of them, so an
 * iOS or Mac Catalyst build is no macOS library (os "ios", "maccatalyst"); a zippered one
 * names macOS too; one that names none is macOS (older builds carry no platform command).
 */
START_TEST(test_platforms)
{
    static const struct {
        struct tu_macho_cmd c[2];
        size_t n;
        uint32_t platforms, macos_min;
        const char *os, *said;
    } cases[] = {
        {{{0x32, 2, 0x00110000}}, 1, 1u << 2, 0, "ios", "an iOS"},
        {{{0x32, 1, 0x000e0000}, {0x32, 6, 0x00110000}},
         2,
         (1u << 1) | (1u << 6),
         0x000e0000,
         "macos",
         "a macOS"},
        {{{0x32, 6, 0x00110000}}, 1, 1u << 6, 0, "maccatalyst", "a Mac Catalyst"},
        {{{0x32, 7, 0x00110000}}, 1, 1u << 7, 0, "ios-simulator", "an iOS Simulator"},
        {{{0x32, 11, 0x00020000}}, 1, 1u << 11, 0, "visionos", "a visionOS"},
        {{{0x32, 40, 0x00010000}}, 1, 1u, 0, "apple", "an Apple (unknown platform)"},
        {{{0x32, 20, 0x00010000}}, 1, 1u << 20, 0, "apple", "an Apple (unknown platform)"},
        {{{0x25, 0, 0x000c0000}}, 1, 1u << 2, 0, "ios", "an iOS"},
        {{{0x2f, 0, 0x000c0000}}, 1, 1u << 3, 0, "tvos", "a tvOS"},
        {{{0x30, 0, 0x00060000}}, 1, 1u << 4, 0, "watchos", "a watchOS"},
        {{{0x24, 0, 0x000a0f00}}, 1, 1u << 1, 0x000a0f00, "macos", "a macOS"},
        {{{0}}, 0, 0, 0, "macos", "a macOS"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint8_t b[TU_MACHO_MAX];
        size_t len = tu_macho_dylib(b, cases[i].c, cases[i].n);
        struct pt2_error err = {0};
        struct pt2_host h;
        struct pt2_rd rd;
        int rec = 0;

        memset(&h, 0, sizeof(h));
        h.needs = pt2_needs_new(PT2_HOST_MACHO);
        ck_assert_ptr_nonnull(h.needs);
        pt2_rd_init_mem(&rd, b, len, "lib.dylib");
        ck_assert_int_eq(pt2_macho_scan(&rd, &h, &rec, &err), PT2_OK);
        ck_assert_int_eq(rec, 1);
        ck_assert_str_eq(h.needs->partial, "");
        ck_assert_msg(h.needs->macho_platforms == cases[i].platforms, "case %zu: 0x%x", i,
                      h.needs->macho_platforms);
        ck_assert_uint_eq(h.needs->macos_min, cases[i].macos_min);
        ck_assert_str_eq(pt2_runtime_library_os(&h), cases[i].os);
        ck_assert_str_eq(pt2_runtime_library_os_said(&h), cases[i].said);
        pt2_needs_free(h.needs);
    }
}
END_TEST

/* A load command naming a string at +8 (dylib_command, rpath_command), padded to 8 bytes. */
static size_t put_str_cmd(uint8_t *p, uint32_t cmd, uint32_t at, const char *s)
{
    size_t len = (at + strlen(s) + 1 + 7) / 8 * 8;

    tu_put_le32(p, cmd);
    tu_put_le32(p + 4, (uint32_t)len);
    tu_put_le32(p + 8, at);
    memcpy(p + at, s, strlen(s) + 1);
    return len;
}

/*
 * The install name (LC_ID_DYLIB, the first one) and the run paths (each LC_RPATH, joined
 * with ':' in order), as dyld reads them; a command size that is not a multiple of 4, which
 * dyld refuses, ends the walk with a partial note.
 */
START_TEST(test_install_name_and_rpaths)
{
    uint8_t b[512] = {0};
    size_t off = 32;
    struct pt2_error err = {0};
    struct pt2_host h;
    struct pt2_rd rd;
    int rec = 0;

    tu_put_le32(b, 0xfeedfacfu);
    tu_put_le32(b + 4, 0x0100000cu);
    tu_put_le32(b + 12, 6);
    off += put_str_cmd(b + off, 0xd, 24, "@rpath/libm.dylib");
    off += put_str_cmd(b + off, 0x8000001cu, 12, "@loader_path/../lib");
    off += put_str_cmd(b + off, 0xd, 24, "@rpath/other.dylib");
    off += put_str_cmd(b + off, 0x8000001cu, 12, "/opt/torch/lib");
    off += put_str_cmd(b + off, 0xc, 24, "@rpath/libtorch_cpu.dylib");
    tu_put_le32(b + 16, 5);
    tu_put_le32(b + 20, (uint32_t)(off - 32));
    for (int bad = 0; bad < 2; bad++) {
        memset(&h, 0, sizeof(h));
        h.needs = pt2_needs_new(PT2_HOST_MACHO);
        ck_assert_ptr_nonnull(h.needs);
        pt2_rd_init_mem(&rd, b, off, "lib.dylib");
        ck_assert_int_eq(pt2_macho_scan(&rd, &h, &rec, &err), PT2_OK);
        if (!bad) {
            ck_assert_str_eq(h.needs->partial, "");
            ck_assert_str_eq(pt2_needs_str(h.needs, h.needs->soname), "@rpath/libm.dylib");
            ck_assert_str_eq(pt2_needs_str(h.needs, h.needs->runpath),
                             "@loader_path/../lib:/opt/torch/lib");
            ck_assert_uint_eq(h.needs->nlibs, 1);
            ck_assert_str_eq(pt2_needs_str(h.needs, h.needs->libs[0]), "@rpath/libtorch_cpu.dylib");
        } else {
            ck_assert_str_eq(h.needs->partial, "lib.dylib: load command 1 has size 33");
            ck_assert_str_eq(pt2_needs_str(h.needs, h.needs->soname), "@rpath/libm.dylib");
            ck_assert_uint_eq(h.needs->runpath, 0);
            ck_assert_uint_eq(h.needs->nlibs, 0);
        }
        pt2_needs_free(h.needs);
        tu_put_le32(b + 32 + 48 + 4, 33); /* the first LC_RPATH's size (it is 32) */
    }
}
END_TEST

START_TEST(test_big_endian_and_cpu_names)
{
    /* MH_CIGAM (32-bit big-endian), cputype PowerPC, MH_EXECUTE. */
    static const uint8_t ppc[28] = {0xfe, 0xed, 0xfa, 0xce, 0, 0, 0, 18, 0, 0, 0, 0, 0, 0,
                                    0,    2,    0,    0,    0, 0, 0, 0,  0, 0, 0, 0, 0, 0};
    struct pt2_error err = {0};
    struct pt2_host h;
    int rec = 0;
    char buf[32];

    ck_assert_int_eq(scan(ppc, sizeof(ppc), &h, &rec, &err), PT2_OK);
    ck_assert_int_eq(h.big_endian, 1);
    ck_assert_int_eq(h.bits, 32);
    ck_assert_str_eq(h.description, "Mach-O 32-bit executable, ppc");

    ck_assert_str_eq(pt2_macho_cpu_name(0x0100000c, 0x80000002, buf, sizeof(buf)), "arm64e");
    ck_assert_str_eq(pt2_macho_cpu_name(0x0100000c, 0, buf, sizeof(buf)), "arm64");
    ck_assert_str_eq(pt2_macho_cpu_name(0x0200000c, 0, buf, sizeof(buf)), "arm64_32");
    ck_assert_str_eq(pt2_macho_cpu_name(0x01000007, 8, buf, sizeof(buf)), "x86_64h");
    ck_assert_str_eq(pt2_macho_cpu_name(7, 3, buf, sizeof(buf)), "i386");
    ck_assert_str_eq(pt2_macho_cpu_name(12, 9, buf, sizeof(buf)), "arm");
    ck_assert_str_eq(pt2_macho_cpu_name(0x01000012, 0, buf, sizeof(buf)), "ppc64");
    ck_assert_str_eq(pt2_macho_cpu_name(99, 0, buf, sizeof(buf)), "cpu_0x63");
}
END_TEST

START_TEST(test_java_class_is_not_macho)
{
    /* CAFEBABE, minor 0, major 52 (Java 8): reads as 52 "architectures". */
    static const uint8_t cls[16] = {0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 52, 0, 0x1d, 0x0a};
    struct pt2_error err = {0};
    struct pt2_host h;
    int rec = 1;

    ck_assert_int_eq(pt2_macho_probe(cls, sizeof(cls)), PT2_MACHO_NONE);
    ck_assert_int_eq(scan(cls, sizeof(cls), &h, &rec, &err), PT2_OK);
    ck_assert_int_eq(rec, 0);
    ck_assert_int_eq(err.code, PT2_OK);
}
END_TEST

START_TEST(test_malformed_universal)
{
    struct pt2_error err = {0};
    struct pt2_host h;
    int rec = 0;
    size_t n = 0;
    uint8_t *b = load("bins/host/macho_universal_dylib.bin", &n);
    uint8_t fat64[16] = {0xca, 0xfe, 0xba, 0xbf, 0xff, 0xff, 0xff, 0xff};

    /* 64-bit universal header with a huge count: no Java ambiguity, so an error. */
    ck_assert_int_eq(scan(fat64, sizeof(fat64), &h, &rec, &err), PT2_ERR_FORMAT);
    ck_assert_int_eq(rec, 1);
    ck_assert_str_eq(
        err.message,
        "lib.dylib: Mach-O universal header claims 4294967295 architectures (limit 64)");

    /* Count within limits but the records run off the end. */
    pt2_error_clear(&err);
    fat64[7] = 3;
    fat64[4] = fat64[5] = fat64[6] = 0;
    ck_assert_int_eq(scan(fat64, sizeof(fat64), &h, &rec, &err), PT2_ERR_FORMAT);
    ck_assert_str_eq(err.message,
                     "lib.dylib: Mach-O universal header (3 architectures) is truncated");

    /* A slice pointing past the end of the file. */
    pt2_error_clear(&err);
    b[8 + 20 + 8 + 2] = 0x10; /* second fat_arch offset = 0x1060 */
    ck_assert_int_eq(scan(b, n, &h, &rec, &err), PT2_ERR_FORMAT);
    ck_assert_str_eq(err.message, "lib.dylib: Mach-O universal architecture 1 (offset 0x1060, "
                                  "size 32) lies beyond the end of the file (128 bytes)");
    free(b);

    /* A slice without a mach header. */
    pt2_error_clear(&err);
    b = load("bins/host/macho_universal_dylib.bin", &n);
    memset(b + 64, 0, 4);
    ck_assert_int_eq(scan(b, n, &h, &rec, &err), PT2_ERR_FORMAT);
    ck_assert_str_eq(err.message,
                     "lib.dylib: Mach-O slice at 0x40 has no mach header (magic 0x00000000)");
    free(b);
}
END_TEST

START_TEST(test_truncated_and_empty)
{
    static const uint8_t thin[10] = {0xcf, 0xfa, 0xed, 0xfe, 0x0c, 0, 0, 1};
    struct pt2_error err = {0};
    struct pt2_host h;
    int rec = 0;

    ck_assert_int_eq(scan(thin, sizeof(thin), &h, &rec, &err), PT2_ERR_FORMAT);
    ck_assert_str_eq(err.message, "lib.dylib: Mach-O header at 0x0 truncated (10 bytes, needs 28)");
    pt2_error_clear(&err);
    ck_assert_int_eq(scan(thin, 0, &h, &rec, &err), PT2_OK);
    ck_assert_int_eq(rec, 0);
    ck_assert_int_eq(pt2_macho_probe(thin, 3), PT2_MACHO_NONE);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("macho");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_thin_arm64_dylib);
    tcase_add_test(tc, test_universal_dylib);
    tcase_add_test(tc, test_real_package_dylib);
    tcase_add_test(tc, test_platforms);
    tcase_add_test(tc, test_install_name_and_rpaths);
    tcase_add_test(tc, test_big_endian_and_cpu_names);
    tcase_add_test(tc, test_java_class_is_not_macho);
    tcase_add_test(tc, test_malformed_universal);
    tcase_add_test(tc, test_truncated_and_empty);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
