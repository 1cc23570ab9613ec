/*
 * test_pe.c - PE/COFF headers and the import directory.
 *
 * The real oracle is a Windows DLL built at test time by Debian's mingw-w64
 * (tests/fixtures/src/win_model.c -> $PT2SCOPE_BUILD/fixtures/win/
 * win_model.pyd; x86_64-w64-mingw32-objdump -p shows the same tables): its
 * machine, subsystem, DllCharacteristics, DLLs in order, functions by name
 * and by ordinal, the shims' torch floor (equal to that of the same source
 * built as an ELF .so), and an arm64 copy (COFF Machine patched). It skips
 * when the cross compiler is absent (make test installs it) and fails when
 * the compiler is there but the DLL was not built. Hand-made images cover
 * PE32, the malformed cases (a truncated optional header, an import RVA in
 * no section, a DLL name without a NUL, a lookup table running out of its
 * section, more than 256 DLLs or 65536 functions, the read budget): the
 * library is still described and `partial` says why. The delay-load
 * directory: the same source linked by LLVM's lld-link with torch_cpu.dll
 * delay-loaded (win_delay.pyd; `llvm-readobj --coff-imports` shows the same
 * tables), and hand-made ones (a DLL in both directories, the old address
 * form, a directory in no section, no name table).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "pt2_binary.h"
#include "pt2_jw.h"
#include "pt2_needs.h"
#include "pt2_pe.h"
#include "pt2_runtime.h"
#include "pt2_shims.h"
#include "testutil.h"

#define MINGW "x86_64-w64-mingw32-gcc"
#define LLD_LINK "lld-link"
#define LLVM_DLLTOOL "llvm-dlltool"
#define OPT_OFF 0x58u
#define RAW 0x200u
#define VA 0x1000u

static const char *S(const struct pt2_needs *n, uint32_t off)
{
    return pt2_needs_str(n, off);
}

static int on_path(const char *tool)
{
    const char *path = getenv("PATH");
    char dir[1024];

    while (path != NULL && *path != '\0') {
        const char *end = strchr(path, ':');
        size_t len = end != NULL ? (size_t)(end - path) : strlen(path);

        snprintf(dir, sizeof(dir), "%.*s/%s", (int)len, path, tool);
        if (access(dir, X_OK) == 0)
            return 1;
        path = end != NULL ? end + 1 : NULL;
    }
    return 0;
}

/* The mingw DLL, or NULL (skipped) when the cross compiler is absent. */
static uint8_t *load_dll(const char *file, size_t *n)
{
    char path[512];
    uint8_t *b;

    snprintf(path, sizeof(path), "%s/fixtures/win/%s", tu_build_dir(), file);
    b = tu_read_file(path, n);
    if (b == NULL && !on_path(MINGW)) {
        tu_skip("pe mingw DLL", MINGW " absent (make deps installs gcc-mingw-w64-x86-64)");
        return NULL;
    }
    ck_assert_msg(b != NULL, "%s missing: make test-unit builds it with " MINGW, path);
    return b;
}

/* The lld-link DLL with torch_cpu.dll delay-loaded, or NULL (skipped) without the tools. */
static uint8_t *load_delay_dll(size_t *n)
{
    char path[512];
    uint8_t *b;

    snprintf(path, sizeof(path), "%s/fixtures/win/win_delay.pyd", tu_build_dir());
    b = tu_read_file(path, n);
    if (b == NULL && (!on_path(MINGW) || !on_path(LLD_LINK) || !on_path(LLVM_DLLTOOL))) {
        tu_skip("pe delay-load DLL",
                MINGW ", " LLD_LINK " or " LLVM_DLLTOOL
                      " absent (make deps installs gcc-mingw-w64-x86-64, lld, llvm)");
        return NULL;
    }
    ck_assert_msg(b != NULL, "%s missing: make test-unit builds it with " LLD_LINK, path);
    return b;
}

static int scan(const uint8_t *b, size_t n, struct pt2_host *h, int *rec, struct pt2_error *err)
{
    struct pt2_rd rd;

    memset(h, 0, sizeof(*h));
    h->needs = pt2_needs_new(PT2_HOST_PE);
    ck_assert_ptr_nonnull(h->needs);
    pt2_rd_init_mem(&rd, b, n, "lib.pyd");
    return pt2_pe_scan(&rd, h, rec, err);
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, (uint16_t)v);
    put16(p + 2, (uint16_t)(v >> 16));
}

static void put64(uint8_t *p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

/* File bytes of `rva` in a hand-made image. */
static uint8_t *at(uint8_t *b, uint32_t rva)
{
    return b + RAW + (rva - VA);
}

/*
 * A DLL for x64 (PE32+, plus) or x86 (PE32) with one section ".idata" of `secsize` bytes at
 * RVA 0x1000 / file offset 0x200, the import directory at its start; subsystem 3
 * (windows-cui), DllCharacteristics 0x4160. The file is exactly headers + section.
 */
static uint8_t *mk_pe(int plus, size_t secsize, size_t *n)
{
    unsigned optsize = plus ? 240 : 224, fixed = plus ? 112 : 96;
    uint8_t *b = calloc(1, RAW + secsize), *o, *s;

    ck_assert_ptr_nonnull(b);
    b[0] = 'M';
    b[1] = 'Z';
    put32(b + 0x3c, 0x40);
    memcpy(b + 0x40, "PE\0\0", 4);
    put16(b + 0x44, plus ? 0x8664 : 0x14c);
    put16(b + 0x46, 1);
    put16(b + 0x54, (uint16_t)optsize);
    put16(b + 0x56, 0x2022);
    o = b + OPT_OFF;
    put16(o, plus ? 0x20b : 0x10b);
    put32(o + 60, RAW);
    put16(o + 68, 3);
    put16(o + 70, 0x4160);
    put32(o + fixed - 4, 16);
    put32(o + fixed + 8, VA);
    put32(o + fixed + 12, 40);
    s = o + optsize;
    memcpy(s, ".idata", 6);
    put32(s + 8, (uint32_t)secsize);
    put32(s + 12, VA);
    put32(s + 16, (uint32_t)secsize);
    put32(s + 20, RAW);
    *n = RAW + secsize;
    return b;
}

/* Lookup-table entry j at `rva`: an RVA of a hint/name, or an ordinal. */
static void thunk(uint8_t *b, int plus, uint32_t rva, size_t j, uint64_t v)
{
    if (plus)
        put64(at(b, rva) + 8 * j, v);
    else
        put32(at(b, rva) + 4 * j, (uint32_t)v);
}

/* Descriptor i at 0x1000: lookup table, DLL name. */
static void desc(uint8_t *b, size_t i, uint32_t lookup, uint32_t name)
{
    put32(at(b, VA) + 20 * i, lookup);
    put32(at(b, VA) + 20 * i + 12, name);
    put32(at(b, VA) + 20 * i + 16, lookup);
}

/* One DLL, torch_cpu.dll: aoti_torch_empty_strided by name and ordinal 5. */
static uint8_t *mk_std(int plus, size_t *n)
{
    uint8_t *b = mk_pe(plus, 0x200, n);

    desc(b, 0, 0x1040, 0x1100);
    thunk(b, plus, 0x1040, 0, 0x1080);
    thunk(b, plus, 0x1040, 1, plus ? 0x8000000000000005ull : 0x80000005u);
    put16(at(b, 0x1080), 1);
    memcpy(at(b, 0x1082), "aoti_torch_empty_strided", 25);
    memcpy(at(b, 0x1100), "torch_cpu.dll", 14);
    return b;
}

/* What win_model.c imports, in table order (objdump -p, llvm-readobj --coff-imports): three
 * KERNEL32.dll functions, three torch shims and one torch_cpu.dll ordinal. */
static const char *const WIN_MODEL_IMPORTS[7] = {"GetProcessHeap",
                                                 "GetTickCount",
                                                 "Sleep",
                                                 "aoti_torch_aten_full",
                                                 "aoti_torch_delete_tensor_object",
                                                 "aoti_torch_empty_strided",
                                                 "#7"};

START_TEST(test_mingw_dll)
{
    struct pt2_error err = {0};
    struct pt2_host h;
    struct pt2_needs *nd;
    int rec = 0;
    size_t n = 0;
    uint8_t *b = load_dll("win_model.pyd", &n);

    if (b == NULL)
        return;
    ck_assert_int_eq(pt2_pe_probe(b, n), 1);
    ck_assert_int_eq(scan(b, n, &h, &rec, &err), PT2_OK);
    nd = h.needs;
    ck_assert_int_eq(rec, 1);
    ck_assert_int_eq(h.format, PT2_HOST_PE);
    ck_assert_int_eq(h.bits, 64);
    ck_assert_int_eq(h.big_endian, 0);
    ck_assert_uint_eq(h.e_machine, 0x8664);
    ck_assert_str_eq(h.machine, "x86_64");
    ck_assert_str_eq(h.description, "PE32+ DLL, x86_64, windows-gui");
    ck_assert_uint_eq(h.size, n);
    /* objdump -p: Characteristics 0x2226, Subsystem 2, DllCharacteristics 0x160 */
    ck_assert_uint_eq(nd->pe_characteristics, 0x2226);
    ck_assert_uint_eq(nd->pe_subsystem, 2);
    ck_assert_uint_eq(nd->pe_dll_characteristics, 0x160);
    ck_assert_str_eq(nd->partial, "");
    ck_assert_uint_eq(nd->nlibs, 2);
    ck_assert_str_eq(S(nd, nd->libs[0]), "KERNEL32.dll");
    ck_assert_str_eq(S(nd, nd->libs[1]), "torch_cpu.dll");
    ck_assert_uint_eq(nd->nimports, 7);
    ck_assert_uint_eq(nd->imports_total, 7);
    for (size_t i = 0; i < 7; i++)
        ck_assert_str_eq(S(nd, nd->imports[i].name), WIN_MODEL_IMPORTS[i]);
    pt2_needs_free(nd);
    free(b);
}
END_TEST

/* Through the dispatcher: the host record, the shims classified, the torch floor equal to
 * that of the same source built as an ELF shared object. */
START_TEST(test_mingw_dll_torch_floor)
{
    struct pt2_error err = {0};
    struct pt2_kernel_list ks = {0};
    struct pt2_host_list hs = {0}, es = {0};
    struct pt2_torch_floor pf, ef;
    struct pt2_rd rd;
    int rec = 0;
    size_t n = 0, en = 0;
    uint8_t *b = load_dll("win_model.pyd", &n), *e;
    const struct pt2_needs *nd;

    if (b == NULL)
        return;
    pt2_rd_init_mem(&rd, b, n, "model.wrapper.pyd");
    ck_assert_int_eq(
        pt2_binary_scan(&rd, "data/aotinductor/model/model.wrapper.pyd", &ks, &hs, &rec, &err),
        PT2_OK);
    ck_assert_int_eq(rec, 1);
    ck_assert_uint_eq(hs.n, 1);
    ck_assert_uint_eq(ks.n, 0);
    ck_assert_str_eq(hs.v[0].source, "data/aotinductor/model/model.wrapper.pyd");
    nd = hs.v[0].needs;
    ck_assert_ptr_nonnull(nd);
    ck_assert_int_eq(nd->format, PT2_HOST_PE);
    ck_assert_int_eq(nd->imports[0].kind, PT2_IMP_OTHER); /* GetProcessHeap */
    ck_assert_int_eq(nd->imports[3].kind, PT2_IMP_SHIM);  /* aoti_torch_aten_full */
    ck_assert_int_eq(nd->imports[4].kind, PT2_IMP_SHIM);
    ck_assert_int_eq(nd->imports[5].kind, PT2_IMP_SHIM);
    ck_assert_int_eq(nd->imports[6].kind, PT2_IMP_OTHER); /* #7 */
    pt2_shims_floor_init(&pf);
    pt2_shims_floor_add(&pf, nd);
    ck_assert_uint_eq(pf.shims, 3);
    ck_assert_uint_eq(pf.min, 210); /* aoti_torch_aten_full: 2.10 */
    ck_assert_str_eq(pf.because, "aoti_torch_aten_full");
    ck_assert_uint_eq(pf.custom, 0);

    e = load_dll("win_model_elf.so", &en);
    ck_assert_ptr_nonnull(e);
    pt2_rd_init_mem(&rd, e, en, "win_model_elf.so");
    ck_assert_int_eq(pt2_binary_scan(&rd, "win_model_elf.so", &ks, &es, &rec, &err), PT2_OK);
    ck_assert_uint_eq(es.n, 1);
    ck_assert_int_eq(es.v[0].format, PT2_HOST_ELF);
    pt2_shims_floor_init(&ef);
    pt2_shims_floor_add(&ef, es.v[0].needs);
    ck_assert_uint_eq(ef.shims, pf.shims);
    ck_assert_uint_eq(ef.min, pf.min);
    ck_assert_uint_eq(ef.sure_from, pf.sure_from);
    ck_assert_uint_eq(ef.max_hi, pf.max_hi);
    ck_assert_str_eq(ef.because, pf.because);
    pt2_host_list_free(&es);
    pt2_host_list_free(&hs);
    pt2_kernel_list_free(&ks);
    free(e);
    free(b);
}
END_TEST

START_TEST(test_mingw_dll_arm64)
{
    struct pt2_error err = {0};
    struct pt2_host h;
    int rec = 0;
    size_t n = 0;
    uint8_t *b = load_dll("win_model.pyd", &n);
    uint32_t lfanew;

    if (b == NULL)
        return;
    lfanew = pt2_le32(b + 0x3c);
    ck_assert_uint_eq(pt2_le16(b + lfanew + 4), 0x8664);
    put16(b + lfanew + 4, 0xaa64);
    ck_assert_int_eq(scan(b, n, &h, &rec, &err), PT2_OK);
    ck_assert_int_eq(rec, 1);
    ck_assert_uint_eq(h.e_machine, 0xaa64);
    ck_assert_str_eq(h.machine, "arm64");
    ck_assert_str_eq(h.description, "PE32+ DLL, arm64, windows-gui");
    ck_assert_uint_eq(h.needs->nlibs, 2);
    ck_assert_uint_eq(h.needs->nimports, 7);
    pt2_needs_free(h.needs);
    /* an unknown machine keeps its number */
    put16(b + lfanew + 4, 0x5064);
    ck_assert_int_eq(scan(b, n, &h, &rec, &err), PT2_OK);
    ck_assert_str_eq(h.machine, "pe_5064");
    pt2_needs_free(h.needs);
    free(b);
}
END_TEST

START_TEST(test_handmade_pe32plus_and_pe32)
{
    struct pt2_error err = {0};
    struct pt2_host h;
    int rec = 0;
    size_t n = 0;
    uint8_t *b;

    for (int plus = 1; plus >= 0; plus--) {
        b = mk_std(plus, &n);
        ck_assert_int_eq(scan(b, n, &h, &rec, &err), PT2_OK);
        ck_assert_int_eq(rec, 1);
        ck_assert_int_eq(h.bits, plus ? 64 : 32);
        ck_assert_str_eq(h.description,
                         plus ? "PE32+ DLL, x86_64, windows-cui" : "PE32 DLL, i686, windows-cui");
        ck_assert_str_eq(h.needs->partial, "");
        ck_assert_uint_eq(h.needs->pe_subsystem, 3);
        ck_assert_uint_eq(h.needs->pe_dll_characteristics, 0x4160);
        ck_assert_uint_eq(h.needs->pe_characteristics, 0x2022);
        ck_assert_uint_eq(h.needs->nlibs, 1);
        ck_assert_str_eq(S(h.needs, h.needs->libs[0]), "torch_cpu.dll");
        ck_assert_uint_eq(h.needs->nimports, 2);
        ck_assert_str_eq(S(h.needs, h.needs->imports[0].name), "aoti_torch_empty_strided");
        ck_assert_str_eq(S(h.needs, h.needs->imports[1].name), "#5");
        pt2_needs_free(h.needs);
        free(b);
    }
}
END_TEST

START_TEST(test_not_pe)
{
    struct pt2_error err = {0};
    struct pt2_host h;
    int rec = 1;
    size_t n = 0;
    uint8_t *b = mk_std(1, &n);

    memcpy(b + 0x40, "NE\0\0", 4); /* a DOS or 16-bit program: "MZ", no PE signature */
    ck_assert_int_eq(scan(b, n, &h, &rec, &err), PT2_OK);
    ck_assert_int_eq(rec, 0);
    pt2_needs_free(h.needs);
    put32(b + 0x3c, (uint32_t)n); /* e_lfanew past the end */
    ck_assert_int_eq(scan(b, n, &h, &rec, &err), PT2_OK);
    ck_assert_int_eq(rec, 0);
    pt2_needs_free(h.needs);
    ck_assert_int_eq(scan(b, 40, &h, &rec, &err), PT2_OK); /* shorter than a DOS header */
    ck_assert_int_eq(rec, 0);
    pt2_needs_free(h.needs);
    ck_assert_int_eq(pt2_pe_probe((const uint8_t *)"M", 1), 0);
    free(b);
}
END_TEST

START_TEST(test_truncated_optional_header)
{
    struct pt2_error err = {0};
    struct pt2_host h;
    int rec = 0;
    size_t n = 0;
    uint8_t *b = mk_std(1, &n);

    ck_assert_int_eq(scan(b, OPT_OFF + 50, &h, &rec, &err), PT2_OK);
    ck_assert_int_eq(rec, 1);
    ck_assert_int_eq(h.bits, 64);
    ck_assert_str_eq(h.description, "PE32+ DLL, x86_64");
    ck_assert_str_eq(h.needs->partial,
                     "lib.pyd: the PE optional header is truncated (50 of 112 bytes)");
    ck_assert_uint_eq(h.needs->nlibs, 0);
    pt2_needs_free(h.needs);
    /* the magic itself cut off */
    ck_assert_int_eq(scan(b, OPT_OFF + 1, &h, &rec, &err), PT2_OK);
    ck_assert_int_eq(rec, 1);
    ck_assert_int_eq(h.bits, 32);
    ck_assert_str_eq(h.needs->partial, "lib.pyd: the PE optional header is missing or truncated");
    pt2_needs_free(h.needs);
    /* a header that says it is shorter than its fixed part */
    put16(b + 0x54, 100);
    ck_assert_int_eq(scan(b, n, &h, &rec, &err), PT2_OK);
    ck_assert_str_eq(h.needs->partial,
                     "lib.pyd: the PE optional header is truncated (100 of 112 bytes)");
    pt2_needs_free(h.needs);
    /* a ROM image's magic */
    put16(b + 0x54, 240);
    put16(b + OPT_OFF, 0x107);
    ck_assert_int_eq(scan(b, n, &h, &rec, &err), PT2_OK);
    ck_assert_str_eq(h.needs->partial, "lib.pyd: the PE optional header has an unknown magic");
    ck_assert_str_eq(h.description, "PE32 DLL, x86_64");
    pt2_needs_free(h.needs);
    free(b);
}
END_TEST

START_TEST(test_import_rva_in_no_section)
{
    struct pt2_error err = {0};
    struct pt2_host h;
    int rec = 0;
    size_t n = 0;
    uint8_t *b = mk_std(1, &n);

    put32(b + OPT_OFF + 112 + 8, 0x5000);
    ck_assert_int_eq(scan(b, n, &h, &rec, &err), PT2_OK);
    ck_assert_int_eq(rec, 1);
    ck_assert_str_eq(h.description, "PE32+ DLL, x86_64, windows-cui");
    ck_assert_str_eq(h.needs->partial,
                     "lib.pyd: the import directory (RVA 0x5000) lies in no section");
    ck_assert_uint_eq(h.needs->nlibs, 0);
    pt2_needs_free(h.needs);
    /* the section's file bytes past the end of the file (a truncated download) */
    put32(b + OPT_OFF + 112 + 8, VA);
    ck_assert_int_eq(scan(b, RAW, &h, &rec, &err), PT2_OK);
    ck_assert_str_eq(h.needs->partial,
                     "lib.pyd: the import directory (RVA 0x1000) lies in no section");
    pt2_needs_free(h.needs);
    free(b);
}
END_TEST

START_TEST(test_dll_name_without_nul)
{
    struct pt2_error err = {0};
    struct pt2_host h;
    int rec = 0;
    size_t n = 0;
    uint8_t *b = mk_std(1, &n);

    /* the name runs to the end of the section, which is the end of the file */
    put32(at(b, VA) + 12, 0x11f0);
    memset(at(b, 0x11f0), 'A', 16);
    ck_assert_int_eq(scan(b, n, &h, &rec, &err), PT2_OK);
    ck_assert_int_eq(rec, 1);
    ck_assert_str_eq(h.needs->partial,
                     "lib.pyd: the name of imported DLL 0 has no NUL before its section ends");
    ck_assert_uint_eq(h.needs->nlibs, 0);
    ck_assert_uint_eq(h.needs->nimports, 0);
    pt2_needs_free(h.needs);
    /* a function name with the same fault: the DLL stays, the name is left out */
    put32(at(b, VA) + 12, 0x1100);
    thunk(b, 1, 0x1040, 0, 0x11ee);
    ck_assert_int_eq(scan(b, n, &h, &rec, &err), PT2_OK);
    ck_assert_str_eq(h.needs->partial, "lib.pyd: the name of a function imported from "
                                       "torch_cpu.dll has no NUL before its section ends");
    ck_assert_uint_eq(h.needs->nlibs, 1);
    ck_assert_uint_eq(h.needs->nimports, 1);
    ck_assert_str_eq(S(h.needs, h.needs->imports[0].name), "#5");
    pt2_needs_free(h.needs);
    free(b);
}
END_TEST

START_TEST(test_lookup_table_out_of_section)
{
    struct pt2_error err = {0};
    struct pt2_host h;
    int rec = 0;
    size_t n = 0;
    uint8_t *b = mk_std(1, &n);

    /* entries up to the section's end, none of them 0 */
    desc(b, 0, 0x1180, 0x1100);
    for (size_t j = 0; j < 16; j++)
        thunk(b, 1, 0x1180, j, 0x1080);
    ck_assert_int_eq(scan(b, n, &h, &rec, &err), PT2_OK);
    ck_assert_str_eq(h.needs->partial, "lib.pyd: the import lookup table of torch_cpu.dll (RVA "
                                       "0x1180) runs out of its section");
    ck_assert_uint_eq(h.needs->nimports, 16);
    pt2_needs_free(h.needs);
    /* no lookup table and no FirstThunk: the loader reads that as the list's end */
    desc(b, 0, 0, 0x1100);
    ck_assert_int_eq(scan(b, n, &h, &rec, &err), PT2_OK);
    ck_assert_str_eq(h.needs->partial, "");
    ck_assert_uint_eq(h.needs->nlibs, 0);
    pt2_needs_free(h.needs);
    free(b);
}
END_TEST

/* The import list ends at the first descriptor with no Name or no FirstThunk, as the loader
 * reads it, though the rest of it is not zero and DLLs follow. */
START_TEST(test_import_list_end)
{
    struct pt2_error err = {0};
    struct pt2_host h;
    int rec = 0;
    size_t n = 0;

    for (int which = 0; which < 3; which++) {
        uint8_t *b = mk_std(1, &n);
        uint8_t *d = at(b, 0x1140); /* room for three descriptors and the zero one */

        put32(b + OPT_OFF + 112 + 8, 0x1140);
        memcpy(d, at(b, VA), 20);      /* torch_cpu.dll */
        memcpy(d + 20, at(b, VA), 20); /* again, then KERNEL32.dll */
        memcpy(d + 40, at(b, VA), 20);
        put32(d + 40 + 12, 0x1110);
        memcpy(at(b, 0x1110), "KERNEL32.dll", 13);
        if (which == 1)
            put32(d + 20 + 12, 0); /* the second has no Name */
        else if (which == 2)
            put32(d + 20 + 16, 0); /* the second has no FirstThunk */
        ck_assert_int_eq(scan(b, n, &h, &rec, &err), PT2_OK);
        ck_assert_str_eq(h.needs->partial, "");
        /* torch_cpu.dll's two descriptors load it once: listed once, both tables read */
        ck_assert_uint_eq(h.needs->nlibs, which == 0 ? 2 : 1);
        ck_assert_str_eq(S(h.needs, h.needs->libs[0]), "torch_cpu.dll");
        if (which == 0)
            ck_assert_str_eq(S(h.needs, h.needs->libs[1]), "KERNEL32.dll");
        ck_assert_uint_eq(h.needs->nimports, which == 0 ? 6 : 2);
        pt2_needs_free(h.needs);
        free(b);
    }
}
END_TEST

/* 65536 + 1024 entries naming one function: capped, partial; 65536 and a 0: complete. */
START_TEST(test_huge_lookup_table)
{
    struct pt2_error err = {0};
    struct pt2_host h;
    int rec = 0;
    size_t n = 0, count = PT2_NEEDS_IMPORTS_MAX + 1024u;
    uint8_t *b = mk_pe(1, 0x1000 + 8 * (count + 1), &n);

    desc(b, 0, 0x2000, 0x1100);
    put16(at(b, 0x1080), 1);
    memcpy(at(b, 0x1082), "aoti_torch_empty_strided", 25);
    memcpy(at(b, 0x1100), "torch_cpu.dll", 14);
    for (size_t j = 0; j < count; j++)
        thunk(b, 1, 0x2000, j, 0x1080);
    ck_assert_int_eq(scan(b, n, &h, &rec, &err), PT2_OK);
    ck_assert_int_eq(rec, 1);
    ck_assert_str_eq(h.needs->partial, "lib.pyd: more than 65536 imported functions");
    ck_assert_uint_eq(h.needs->nimports, PT2_NEEDS_IMPORTS_MAX);
    ck_assert_str_eq(S(h.needs, h.needs->imports[PT2_NEEDS_IMPORTS_MAX - 1].name),
                     "aoti_torch_empty_strided");
    pt2_needs_free(h.needs);
    /* exactly the cap, then the terminator: complete */
    thunk(b, 1, 0x2000, PT2_NEEDS_IMPORTS_MAX, 0);
    ck_assert_int_eq(scan(b, n, &h, &rec, &err), PT2_OK);
    ck_assert_str_eq(h.needs->partial, "");
    ck_assert_uint_eq(h.needs->nimports, PT2_NEEDS_IMPORTS_MAX);
    pt2_needs_free(h.needs);
    free(b);
}
END_TEST

/* 300 descriptors, each a DLL with one ordinal import: 256 kept, partial. */
START_TEST(test_too_many_dlls)
{
    struct pt2_error err = {0};
    struct pt2_host h;
    int rec = 0;
    size_t n = 0;
    uint8_t *b = mk_pe(1, 0x4000, &n);

    put64(at(b, 0x3000), 0x8000000000000001ull);
    for (size_t i = 0; i < 300; i++) { /* dep000.dll ... dep299.dll: 11 bytes each */
        uint32_t name = (uint32_t)(0x3100 + 11 * i);

        snprintf((char *)at(b, name), 11, "dep%03zu.dll", i);
        desc(b, i, 0x3000, name);
    }
    ck_assert_int_eq(scan(b, n, &h, &rec, &err), PT2_OK);
    ck_assert_str_eq(h.needs->partial, "lib.pyd: more than 256 imported DLLs");
    ck_assert_uint_eq(h.needs->nlibs, PT2_NEEDS_LIBS_MAX);
    ck_assert_uint_eq(h.needs->nimports, PT2_NEEDS_LIBS_MAX);
    ck_assert_str_eq(S(h.needs, h.needs->imports[255].name), "#1");
    ck_assert_str_eq(S(h.needs, h.needs->libs[255]), "dep255.dll");
    pt2_needs_free(h.needs);
    free(b);
}
END_TEST

START_TEST(test_sections_and_budget)
{
    struct pt2_error err = {0};
    struct pt2_host h;
    struct pt2_rd rd;
    int rec = 0;
    size_t n = 0;
    uint8_t *b = mk_std(1, &n);

    /* a section count past the loader's limit: the first 96 are read (here past the file) */
    put16(b + 0x46, 200);
    ck_assert_int_eq(scan(b, n, &h, &rec, &err), PT2_OK);
    ck_assert_str_eq(h.needs->partial, "lib.pyd: more than 96 sections");
    ck_assert_uint_eq(h.needs->nlibs, 1);
    pt2_needs_free(h.needs);
    /* the headers fit the budget, the import tables do not: described, what was read stays */
    put16(b + 0x46, 1);
    memset(&h, 0, sizeof(h));
    h.needs = pt2_needs_new(PT2_HOST_PE);
    pt2_rd_init_mem(&rd, b, n, "lib.pyd");
    pt2_rd_set_budget(&rd, 600);
    ck_assert_int_eq(pt2_pe_scan(&rd, &h, &rec, &err), PT2_OK);
    ck_assert_int_eq(rec, 1);
    ck_assert_str_eq(h.description, "PE32+ DLL, x86_64, windows-cui");
    ck_assert_str_eq(h.needs->partial, "lib.pyd: read budget exhausted (bounded inspection)");
    ck_assert_uint_eq(h.needs->nlibs, 0);
    pt2_needs_free(h.needs);
    /* without a needs record: the headers alone */
    memset(&h, 0, sizeof(h));
    pt2_rd_init_mem(&rd, b, n, "lib.pyd");
    ck_assert_int_eq(pt2_pe_scan(&rd, &h, &rec, &err), PT2_OK);
    ck_assert_str_eq(h.description, "PE32+ DLL, x86_64");
    free(b);
}
END_TEST

START_TEST(test_names)
{
    char buf[32];

    ck_assert_str_eq(pt2_pe_subsystem_name(0, buf, sizeof(buf)), "");
    ck_assert_str_eq(pt2_pe_subsystem_name(1, buf, sizeof(buf)), "native");
    ck_assert_str_eq(pt2_pe_subsystem_name(2, buf, sizeof(buf)), "windows-gui");
    ck_assert_str_eq(pt2_pe_subsystem_name(3, buf, sizeof(buf)), "windows-cui");
    ck_assert_str_eq(pt2_pe_subsystem_name(4, buf, sizeof(buf)), "subsystem-4");
    ck_assert_str_eq(pt2_pe_subsystem_name(10, buf, sizeof(buf)), "efi-application");
    ck_assert_str_eq(pt2_pe_subsystem_name(16, buf, sizeof(buf)), "windows-boot-application");
    ck_assert_str_eq(pt2_pe_subsystem_name(17, buf, sizeof(buf)), "subsystem-17");
    ck_assert_ptr_null(pt2_pe_dll_characteristic_name(0x10));
    ck_assert_str_eq(pt2_pe_dll_characteristic_name(0x20), "high-entropy-va");
    ck_assert_str_eq(pt2_pe_dll_characteristic_name(0x40), "dynamic-base");
    ck_assert_str_eq(pt2_pe_dll_characteristic_name(0x100), "nx-compat");
    ck_assert_str_eq(pt2_pe_dll_characteristic_name(0x4000), "guard-cf");
    ck_assert_str_eq(pt2_pe_dll_characteristic_name(0x8000), "terminal-server-aware");
    ck_assert_ptr_null(pt2_pe_dll_characteristic_name(0x60));
}
END_TEST

/* The lld-link DLL: KERNEL32.dll imported, torch_cpu.dll delay-loaded (llvm-readobj
 * --coff-imports: an Import and a DelayImport with Attributes 0x1, in this order). */
START_TEST(test_delay_dll)
{
    struct pt2_error err = {0};
    struct pt2_host h;
    struct pt2_torch_floor t;
    struct pt2_needs *nd;
    int rec = 0;
    size_t n = 0;
    uint8_t *b = load_delay_dll(&n);

    if (b == NULL)
        return;
    ck_assert_int_eq(scan(b, n, &h, &rec, &err), PT2_OK);
    nd = h.needs;
    ck_assert_int_eq(rec, 1);
    ck_assert_str_eq(h.description, "PE32+ DLL, x86_64, windows-gui");
    ck_assert_str_eq(nd->partial, "");
    ck_assert_uint_eq(nd->nlibs, 2);
    ck_assert_str_eq(S(nd, nd->libs[0]), "KERNEL32.dll");
    ck_assert_str_eq(S(nd, nd->libs[1]), "torch_cpu.dll");
    ck_assert_uint_eq(nd->libs_delay[0], 0);
    ck_assert_uint_eq(nd->libs_delay[1], 1);
    ck_assert_uint_eq(nd->nimports, 7);
    ck_assert_uint_eq(nd->imports_total, 7);
    for (size_t i = 0; i < 7; i++)
        ck_assert_str_eq(S(nd, nd->imports[i].name), WIN_MODEL_IMPORTS[i]);
    /* delay-loaded shims bind the library to torch as imported ones do: win_model.pyd's floor */
    pt2_shims_classify_needs(nd);
    pt2_shims_floor_init(&t);
    pt2_shims_floor_add(&t, nd);
    ck_assert_uint_eq(t.shims, 3);
    ck_assert_uint_eq(t.min, 210);
    ck_assert_str_eq(t.because, "aoti_torch_aten_full");
    pt2_needs_free(nd);
    free(b);
}
END_TEST

#define DELAY_DIR (OPT_OFF + 112 + 8 * 13) /* data directory 13 of a PE32+ mk_pe image */

/* mk_std's torch_cpu.dll, and nvcuda.dll delay-loaded (ordinal 3) from the directory at
 * 0x1140; `attrs` its descriptor's Attributes. */
static uint8_t *mk_delay(uint32_t attrs, const char *dll, size_t *n)
{
    uint8_t *b = mk_std(1, n);

    put32(b + DELAY_DIR, 0x1140);
    put32(b + DELAY_DIR + 4, 64);
    put32(at(b, 0x1140), attrs);
    put32(at(b, 0x1140) + 4, 0x11c0);  /* DllNameRVA */
    put32(at(b, 0x1140) + 8, 0x11e0);  /* ModuleHandleRVA */
    put32(at(b, 0x1140) + 12, 0x11e8); /* ImportAddressTableRVA */
    put32(at(b, 0x1140) + 16, 0x1120); /* ImportNameTableRVA */
    thunk(b, 1, 0x1120, 0, 0x8000000000000003ull);
    memcpy(at(b, 0x11c0), dll, strlen(dll) + 1);
    return b;
}

/* The library's runtime members as JSON; its pe object's delay_loaded, joined with ','. */
static void delay_loaded_json(const struct pt2_host *h, char *out, size_t cap)
{
    struct pt2_error err = {0};
    struct pt2_jw w;
    char *text = NULL;
    size_t len = 0;
    cJSON *doc, *list, *it;

    pt2_jw_init_text(&w);
    pt2_jw_obj(&w);
    pt2_runtime_library_members(&w, h, 1);
    pt2_jw_end(&w);
    ck_assert_int_eq(pt2_jw_finish_text(&w, 0, &text, &len, &err), PT2_OK);
    doc = cJSON_Parse(text);
    ck_assert_ptr_nonnull(doc);
    list = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "pe"), "delay_loaded");
    ck_assert(cJSON_IsArray(list));
    out[0] = '\0';
    cJSON_ArrayForEach(it, list)
    {
        snprintf(out + strlen(out), cap - strlen(out), "%s%s", out[0] ? "," : "",
                 cJSON_GetStringValue(it));
    }
    cJSON_Delete(doc);
    free(text);
}

START_TEST(test_handmade_delay)
{
    struct pt2_error err = {0};
    struct pt2_host h;
    char got[256];
    int rec = 0;
    size_t n = 0;
    uint8_t *b = mk_delay(1, "nvcuda.dll", &n);

    ck_assert_int_eq(scan(b, n, &h, &rec, &err), PT2_OK);
    ck_assert_str_eq(h.needs->partial, "");
    ck_assert_uint_eq(h.needs->nlibs, 2);
    ck_assert_str_eq(S(h.needs, h.needs->libs[1]), "nvcuda.dll");
    ck_assert_uint_eq(h.needs->libs_delay[0], 0);
    ck_assert_uint_eq(h.needs->libs_delay[1], 1);
    ck_assert_uint_eq(h.needs->nimports, 3);
    ck_assert_str_eq(S(h.needs, h.needs->imports[2].name), "#3");
    delay_loaded_json(&h, got, sizeof(got));
    ck_assert_str_eq(got, "nvcuda.dll");
    pt2_needs_free(h.needs);
    free(b);

    /* the DLL the import directory binds at load time (Windows ignores ASCII case): listed
     * once, under the import's spelling, not delay-loaded; the delay directory's function
     * is still one of its imports */
    for (int upper = 0; upper < 2; upper++) {
        b = mk_delay(1, upper ? "TORCH_CPU.DLL" : "torch_cpu.dll", &n);
        ck_assert_int_eq(scan(b, n, &h, &rec, &err), PT2_OK);
        ck_assert_uint_eq(h.needs->nlibs, 1);
        ck_assert_str_eq(S(h.needs, h.needs->libs[0]), "torch_cpu.dll");
        ck_assert_uint_eq(h.needs->libs_delay[0], 0);
        ck_assert_uint_eq(h.needs->nimports, 3);
        ck_assert_str_eq(S(h.needs, h.needs->imports[2].name), "#3");
        delay_loaded_json(&h, got, sizeof(got));
        ck_assert_str_eq(got, "");
        pt2_needs_free(h.needs);
        free(b);
    }

    /* the pre-2002 form (addresses, not RVAs): said, not read */
    b = mk_delay(0, "nvcuda.dll", &n);
    ck_assert_int_eq(scan(b, n, &h, &rec, &err), PT2_OK);
    ck_assert_str_eq(h.needs->partial,
                     "lib.pyd: delay-load descriptor 0 is in the old address form");
    ck_assert_uint_eq(h.needs->nlibs, 1);
    ck_assert_uint_eq(h.needs->nimports, 2);
    pt2_needs_free(h.needs);

    /* no name table: the DLL stays, its functions are unknown */
    put32(b + DELAY_DIR, 0x1140);
    put32(at(b, 0x1140), 1);
    put32(at(b, 0x1140) + 16, 0);
    ck_assert_int_eq(scan(b, n, &h, &rec, &err), PT2_OK);
    ck_assert_str_eq(h.needs->partial, "lib.pyd: nvcuda.dll has no import name table");
    ck_assert_uint_eq(h.needs->nlibs, 2);
    ck_assert_uint_eq(h.needs->nimports, 2);
    pt2_needs_free(h.needs);

    /* a name in no section */
    put32(at(b, 0x1140) + 4, 0x7000);
    ck_assert_int_eq(scan(b, n, &h, &rec, &err), PT2_OK);
    ck_assert_str_eq(h.needs->partial,
                     "lib.pyd: the name of delay-loaded DLL 0 lies in no section");
    ck_assert_uint_eq(h.needs->nlibs, 1);
    pt2_needs_free(h.needs);

    /* the directory in no section, then running out of it with no terminator */
    put32(b + DELAY_DIR, 0x5000);
    ck_assert_int_eq(scan(b, n, &h, &rec, &err), PT2_OK);
    ck_assert_str_eq(h.needs->partial,
                     "lib.pyd: the delay-load import directory (RVA 0x5000) lies in no section");
    ck_assert_uint_eq(h.needs->nlibs, 1);
    pt2_needs_free(h.needs);
    put32(b + DELAY_DIR, 0x11e0); /* one whole descriptor, the section ends before the next */
    memset(at(b, 0x11e0), 0, 0x20);
    put32(at(b, 0x11e0), 1);
    put32(at(b, 0x11e0) + 4, 0x11c0);
    put32(at(b, 0x11e0) + 16, 0x1120);
    ck_assert_int_eq(scan(b, n, &h, &rec, &err), PT2_OK);
    ck_assert_str_eq(
        h.needs->partial,
        "lib.pyd: the delay-load import directory (RVA 0x11e0) runs out of its section");
    ck_assert_uint_eq(h.needs->nlibs, 2);
    ck_assert_uint_eq(h.needs->nimports, 3);
    pt2_needs_free(h.needs);
    free(b);

    /* no DllNameRVA ends the list, as the delay helper reads it, whatever else is set */
    b = mk_delay(1, "nvcuda.dll", &n);
    put32(at(b, 0x1140) + 4, 0);
    ck_assert_int_eq(scan(b, n, &h, &rec, &err), PT2_OK);
    ck_assert_str_eq(h.needs->partial, "");
    ck_assert_uint_eq(h.needs->nlibs, 1);
    ck_assert_uint_eq(h.needs->nimports, 2);
    pt2_needs_free(h.needs);
    free(b);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pe");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_mingw_dll);
    tcase_add_test(tc, test_mingw_dll_torch_floor);
    tcase_add_test(tc, test_mingw_dll_arm64);
    tcase_add_test(tc, test_delay_dll);
    tcase_add_test(tc, test_handmade_delay);
    tcase_add_test(tc, test_handmade_pe32plus_and_pe32);
    tcase_add_test(tc, test_not_pe);
    tcase_add_test(tc, test_truncated_optional_header);
    tcase_add_test(tc, test_import_rva_in_no_section);
    tcase_add_test(tc, test_dll_name_without_nul);
    tcase_add_test(tc, test_lookup_table_out_of_section);
    tcase_add_test(tc, test_import_list_end);
    tcase_add_test(tc, test_huge_lookup_table);
    tcase_add_test(tc, test_too_many_dlls);
    tcase_add_test(tc, test_sections_and_budget);
    tcase_add_test(tc, test_names);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
