/*
 * test_dynamic.c - the ELF dynamic needs reader: exact needs of a real
 * host library (readelf -dV is the reference), provider lookups through the
 * hash table, and malformed version sections (a chain past its section, a
 * count past its entries, a symbol naming a version no need defines): a
 * `partial` note and no false "compatible", never a crash.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_dynamic.h"
#include "pt2_elf.h"
#include "pt2_needs.h"
#include "pt2_shims.h"
#include "testutil.h"
#include "ziptest.h"

#define RDC "tests/fixtures/bins/host_so_cuda/libhost_rdc.so"

static struct pt2_needs *read_needs(const uint8_t *b, size_t n, unsigned what)
{
    struct pt2_error err = {0};
    struct pt2_needs *needs = pt2_needs_new(1);
    struct pt2_elf elf;
    struct pt2_rd rd;

    pt2_rd_init_mem(&rd, b, n, "lib.so");
    ck_assert_int_eq(pt2_elf_open(&elf, &rd, 0, n, &err), PT2_OK);
    ck_assert_int_eq(pt2_dyn_read(&elf, what, needs, &err), PT2_OK);
    pt2_elf_close(&elf);
    return needs;
}

static const char *S(const struct pt2_needs *n, uint32_t off)
{
    return pt2_needs_str(n, off);
}

START_TEST(test_real_library)
{
    size_t len = 0, weak = 0, versioned = 0;
    uint8_t *b = tu_read_file(RDC, &len);
    struct pt2_needs *n;

    ck_assert_ptr_nonnull(b);
    n = read_needs(b, len, PT2_DYN_IMPORTS);
    ck_assert_str_eq(n->partial, "");
    ck_assert_uint_eq(n->nlibs, 4);
    ck_assert_str_eq(S(n, n->libs[0]), "libstdc++.so.6");
    ck_assert_str_eq(S(n, n->libs[1]), "libgcc_s.so.1");
    ck_assert_str_eq(S(n, n->libs[2]), "libc.so.6");
    ck_assert_str_eq(S(n, n->libs[3]), "ld-linux-x86-64.so.2");
    ck_assert_uint_eq(n->nvers, 10);
    ck_assert_str_eq(S(n, n->vers[0].file), "libgcc_s.so.1");
    ck_assert_str_eq(S(n, n->vers[0].version), "GCC_3.0");
    ck_assert_uint_eq(n->vers[0].index, 11);
    ck_assert_str_eq(S(n, n->vers[3].file), "libc.so.6");
    ck_assert_str_eq(S(n, n->vers[3].version), "GLIBC_2.3.3");
    ck_assert_str_eq(S(n, n->vers[9].version), "GLIBC_2.2.5");
    ck_assert_uint_eq(n->vers[9].index, 2);
    /* nm -D --undefined-only: 165 undefined, 4 of them weak */
    ck_assert_uint_eq(n->nimports, 165);
    ck_assert_uint_eq(n->imports_total, 165);
    for (size_t i = 0; i < n->nimports; i++) {
        weak += n->imports[i].weak;
        versioned += n->imports[i].vneed >= 0;
    }
    ck_assert_uint_eq(weak, 4);
    ck_assert_uint_gt(versioned, 100);
    ck_assert_int_eq(n->bind_now, 0);
    pt2_needs_free(n);
    free(b);
}
END_TEST

/* The library as a provider: a defined symbol is found by hash, with its version. */
START_TEST(test_provider_lookup)
{
    struct pt2_error err = {0};
    size_t len = 0;
    uint8_t *b = tu_read_file("tests/fixtures/bins/host_so_cpu/libx86_64.so", &len);
    struct pt2_needs *n;
    struct pt2_dyn_symtab t;
    struct pt2_elf elf;
    struct pt2_rd rd;
    int found = -1;

    ck_assert_ptr_nonnull(b);
    n = read_needs(b, len, PT2_DYN_DEFS);
    pt2_rd_init_mem(&rd, b, len, "libx86_64.so");
    ck_assert_int_eq(pt2_elf_open(&elf, &rd, 0, len, &err), PT2_OK);
    ck_assert_int_eq(pt2_dyn_symtab_open(&t, &elf, n, &err), PT2_OK);
    /* h.c defines one int function, aoti_dummy_add (nm -D --defined-only) */
    ck_assert_int_eq(pt2_dyn_symtab_find(&t, "aoti_dummy_add", NULL, &found, &err), PT2_OK);
    ck_assert_int_eq(found, 1);
    ck_assert_int_eq(pt2_dyn_symtab_find(&t, "aoti_dummy_add", "V_9", &found, &err), PT2_OK);
    ck_assert_int_eq(found, 1); /* an unversioned definition binds a versioned reference */
    ck_assert_int_eq(pt2_dyn_symtab_find(&t, "aoti_dummy_ad", NULL, &found, &err), PT2_OK);
    ck_assert_int_eq(found, 0);
    ck_assert_int_eq(pt2_dyn_symtab_find(&t, "", NULL, &found, &err), PT2_OK);
    ck_assert_int_eq(found, 0);
    pt2_dyn_symtab_close(&t);
    pt2_elf_close(&elf);
    pt2_needs_free(n);
    free(b);
}
END_TEST

/*
 * A definition whose name is longer than any window the reader uses (mangled C++ names
 * of 300 to 600 bytes are common in libtorch): found by its whole name, as the loader's
 * strcmp finds it, and not found by a name that differs only past the first 256 bytes.
 * The library is built here by the C compiler; the loader itself is the oracle (a
 * program linked against it runs).
 */
START_TEST(test_provider_long_name)
{
    char dir[256], cmd[1024], path[512], name[301], other[301];
    int w;
    struct pt2_error err = {0};
    struct pt2_dyn_symtab t;
    struct pt2_needs *n;
    struct pt2_elf elf;
    struct pt2_rd rd;
    size_t len = 0;
    int found = -1;
    uint8_t *b;
    FILE *f;

    memset(name, 'a', 300);
    name[0] = 'f';
    name[300] = '\0';
    memcpy(other, name, sizeof(other));
    other[280] = 'b';
    zt_tmp_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/l.c", dir);
    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "int %s(void) { return 7; }\n", name);
    fclose(f);
    snprintf(path, sizeof(path), "%s/m.c", dir);
    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "int %s(void);\nint main(void) { return %s() != 7; }\n", name, name);
    fclose(f);
    w = snprintf(cmd, sizeof(cmd),
                 "cd %s && cc -shared -fPIC -o liblong.so l.c 2>/dev/null && "
                 "cc -o m m.c -L. -llong 2>/dev/null",
                 dir);
    ck_assert(w > 0 && (size_t)w < sizeof(cmd));
    if (system(cmd) != 0) {
        zt_rm_dir(dir);
        tu_skip("long symbol names", "no C compiler to build the provider");
        return;
    }
    snprintf(cmd, sizeof(cmd), "cd %s && LD_LIBRARY_PATH=. ./m", dir);
    ck_assert_int_eq(system(cmd), 0); /* the loader binds it */
    snprintf(path, sizeof(path), "%s/liblong.so", dir);
    b = tu_read_file(path, &len);
    ck_assert_ptr_nonnull(b);
    n = read_needs(b, len, PT2_DYN_DEFS);
    pt2_rd_init_mem(&rd, b, len, "liblong.so");
    ck_assert_int_eq(pt2_elf_open(&elf, &rd, 0, len, &err), PT2_OK);
    ck_assert_int_eq(pt2_dyn_symtab_open(&t, &elf, n, &err), PT2_OK);
    ck_assert_int_eq(pt2_dyn_symtab_find(&t, name, NULL, &found, &err), PT2_OK);
    ck_assert_int_eq(found, 1);
    ck_assert_int_eq(pt2_dyn_symtab_find(&t, other, NULL, &found, &err), PT2_OK);
    ck_assert_int_eq(found, 0);
    other[280] = '\0'; /* a prefix of it */
    ck_assert_int_eq(pt2_dyn_symtab_find(&t, other, NULL, &found, &err), PT2_OK);
    ck_assert_int_eq(found, 0);
    pt2_dyn_symtab_close(&t);
    pt2_elf_close(&elf);
    pt2_needs_free(n);
    free(b);
    zt_rm_dir(dir);
}
END_TEST

/*
 * A provider whose .dynstr is larger than the reader holds in memory (8 MiB; a release
 * libtorch_cpu.so's C++ names run to many MiB): 900 exported names of 10,000 bytes make
 * a 9 MB table. Its soname, run path, needed library, version definitions and version
 * need are all read exactly, one name at a time, with no partial note; its symbols are
 * found through the hash table. Built here (an assembler source, a version script); the
 * loader binds a program to it.
 */
#define BIG_NAMES 900
#define BIG_NAME_LEN 10000

static void big_name(char *buf, unsigned i)
{
    snprintf(buf, 8, "b%05u_", i);
    memset(buf + 7, 'x', BIG_NAME_LEN - 7);
    buf[BIG_NAME_LEN] = '\0';
}

static int big_build(const char *dir, char *name)
{
    char cmd[1024], path[512];
    FILE *f;
    int w;

    snprintf(path, sizeof(path), "%s/big.s", dir);
    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("\t.text\n\t.globl big_new\n\t.type big_new,@function\nbig_new:\n"
          "\tjmp strlen@PLT\n",
          f);
    for (unsigned i = 0; i < BIG_NAMES; i++) {
        big_name(name, i);
        fprintf(f, "\t.globl %s\n\t.type %s,@function\n%s:\n\tret\n", name, name, name);
    }
    fputs("\t.section .note.GNU-stack,\"\",@progbits\n", f);
    fclose(f);
    snprintf(path, sizeof(path), "%s/big.map", dir);
    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("BIG_1.0 { global: b*; local: *; };\nBIG_2.0 { global: big_new; } BIG_1.0;\n", f);
    fclose(f);
    snprintf(path, sizeof(path), "%s/m.c", dir);
    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f,
            "unsigned long big_new(const char *);\nvoid %s(void);\n"
            "int main(void) { %s(); return big_new(\"abc\") != 3; }\n",
            name, name);
    fclose(f);
    w = snprintf(cmd, sizeof(cmd),
                 "cd %s && cc -shared -fPIC -Wl,-soname,libbig.so.1 -Wl,--version-script=big.map "
                 "'-Wl,-rpath,$ORIGIN/run' -Wl,--enable-new-dtags -o libbig.so.1 big.s "
                 "2>/dev/null && cc -o m m.c libbig.so.1 2>/dev/null",
                 dir);
    ck_assert(w > 0 && (size_t)w < sizeof(cmd));
    return system(cmd) == 0;
}

START_TEST(test_provider_big_strtab)
{
    char dir[256], cmd[512], path[512], *name = malloc(BIG_NAME_LEN + 1);
    struct pt2_error err = {0};
    struct pt2_dyn_symtab t;
    struct pt2_needs *n;
    struct pt2_elf elf;
    struct pt2_rd rd;
    size_t len = 0;
    int found = -1;
    uint8_t *b;

    ck_assert_ptr_nonnull(name);
    zt_tmp_dir(dir, sizeof(dir));
    if (!big_build(dir, name)) {
        zt_rm_dir(dir);
        free(name);
        tu_skip("a 9 MB string table", "no C compiler to build the provider");
        return;
    }
    snprintf(cmd, sizeof(cmd), "cd %s && LD_LIBRARY_PATH=. ./m", dir);
    ck_assert_int_eq(system(cmd), 0); /* the loader binds both */
    snprintf(path, sizeof(path), "%s/libbig.so.1", dir);
    b = tu_read_file(path, &len);
    ck_assert_ptr_nonnull(b);
    pt2_rd_init_mem(&rd, b, len, "libbig.so");
    ck_assert_int_eq(pt2_elf_open(&elf, &rd, 0, len, &err), PT2_OK);
    ck_assert_int_eq(pt2_elf_load_sections(&elf, &err), PT2_OK);
    for (size_t i = 0; i < elf.shnum; i++)
        if (strcmp(elf.sec[i].name, ".dynstr") == 0)
            ck_assert_uint_gt(elf.sec[i].size, 9000000u);
    pt2_elf_close(&elf);
    n = read_needs(b, len, PT2_DYN_DEFS);
    ck_assert_str_eq(n->partial, "");
    ck_assert_str_eq(S(n, n->soname), "libbig.so.1");
    ck_assert_str_eq(S(n, n->runpath), "$ORIGIN/run");
    ck_assert_uint_eq(n->nlibs, 1);
    ck_assert_str_eq(S(n, n->libs[0]), "libc.so.6");
    ck_assert_uint_eq(n->nvers, 1);
    ck_assert_str_eq(S(n, n->vers[0].file), "libc.so.6");
    ck_assert_str_eq(S(n, n->vers[0].version), "GLIBC_2.2.5");
    ck_assert_uint_eq(n->ndefs, 3); /* the base definition (the soname), then the two */
    ck_assert_str_eq(S(n, n->defs[0]), "libbig.so.1");
    ck_assert_str_eq(S(n, n->defs[1]), "BIG_1.0");
    ck_assert_str_eq(S(n, n->defs[2]), "BIG_2.0");
    ck_assert_int_eq(n->defs_partial, 0);
    pt2_needs_free(n);
    /* its imports (nm -D --undefined-only: big_new jumps to strlen, the other four are the
     * C runtime's weak ones), each name read alone from the large table */
    n = read_needs(b, len, PT2_DYN_IMPORTS);
    ck_assert_str_eq(n->partial, "");
    ck_assert_uint_eq(n->nimports, 5);
    {
        size_t strong = 0;
        for (size_t i = 0; i < n->nimports; i++)
            if (!n->imports[i].weak) {
                strong++;
                ck_assert_str_eq(S(n, n->imports[i].name), "strlen");
                ck_assert_str_eq(S(n, n->vers[n->imports[i].vneed].version), "GLIBC_2.2.5");
            }
        ck_assert_uint_eq(strong, 1);
    }
    pt2_needs_free(n);
    n = read_needs(b, len, PT2_DYN_DEFS);
    pt2_rd_init_mem(&rd, b, len, "libbig.so");
    ck_assert_int_eq(pt2_elf_open(&elf, &rd, 0, len, &err), PT2_OK);
    ck_assert_int_eq(pt2_dyn_symtab_open(&t, &elf, n, &err), PT2_OK);
    ck_assert_int_eq(pt2_dyn_symtab_find(&t, "big_new", "BIG_2.0", &found, &err), PT2_OK);
    ck_assert_int_eq(found, 1);
    ck_assert_int_eq(pt2_dyn_symtab_find(&t, "big_new", "BIG_1.0", &found, &err), PT2_OK);
    ck_assert_int_eq(found, 0);
    big_name(name, BIG_NAMES - 1);
    ck_assert_int_eq(pt2_dyn_symtab_find(&t, name, "BIG_1.0", &found, &err), PT2_OK);
    ck_assert_int_eq(found, 1);
    big_name(name, BIG_NAMES);
    ck_assert_int_eq(pt2_dyn_symtab_find(&t, name, NULL, &found, &err), PT2_OK);
    ck_assert_int_eq(found, 0);
    pt2_dyn_symtab_close(&t);
    pt2_elf_close(&elf);
    pt2_needs_free(n);
    free(b);
    free(name);
    zt_rm_dir(dir);
}
END_TEST

/* The ELF header's field of `n` bytes at `off`, in the file's byte order. */
static uint64_t hdr_uint(const uint8_t *b, size_t off, size_t n)
{
    uint64_t v = 0;

    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)b[off + (b[5] == 2 ? n - 1 - i : i)] << (8 * i);
    return v;
}

static void hdr_put(uint8_t *b, size_t off, size_t n, uint64_t v)
{
    for (size_t i = 0; i < n; i++)
        b[off + (b[5] == 2 ? n - 1 - i : i)] = (uint8_t)(v >> (8 * i));
}

/* Offset of the PT_GNU_STACK program header in b. */
static size_t gnu_stack_ph(const uint8_t *b)
{
    int is64 = b[4] == 2;
    uint64_t phoff = hdr_uint(b, is64 ? 32 : 28, is64 ? 8 : 4);
    size_t ent = (size_t)hdr_uint(b, is64 ? 54 : 42, 2), n = (size_t)hdr_uint(b, is64 ? 56 : 44, 2);

    for (size_t i = 0; i < n; i++)
        if (hdr_uint(b, (size_t)phoff + i * ent, 4) == 0x6474e551u)
            return (size_t)phoff + i * ent;
    ck_abort_msg("no PT_GNU_STACK");
    return 0;
}

/*
 * The stack a library asks for (glibc 2.41's dlopen refuses an executable one): every
 * fixture's PT_GNU_STACK is RW (readelf -lW), 32- and 64-bit, both byte orders; with PF_X
 * set it asks for one; without PT_GNU_STACK only x86's ABI default is executable; program
 * headers past the file are a partial note, never a guess.
 */
START_TEST(test_exec_stack)
{
    static const struct {
        const char *file;
        int implied; /* no PT_GNU_STACK: the ABI's default stack is executable */
    } libs[] = {
        {"lib_armv7a-linux-gnueabihf.so", 0}, {"lib_i686-linux-gnu.so", PT2_STACK_IMPLIED},
        {"lib_powerpc64le-linux-gnu.so", 0},  {"lib_riscv64-linux-gnu.so", 0},
        {"lib_s390x-linux-gnu.so", 0},        {"libaarch64.so", 0},
        {"libx86_64.so", PT2_STACK_IMPLIED},
    };

    for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
        char path[256];
        size_t len = 0, ph;
        uint8_t *b;
        struct pt2_needs *n;
        int is64, flags_at;
        size_t nlibs, nimports;

        snprintf(path, sizeof(path), "tests/fixtures/bins/host_so_cpu/%s", libs[i].file);
        b = tu_read_file(path, &len);
        ck_assert_ptr_nonnull(b);
        is64 = b[4] == 2;
        flags_at = is64 ? 4 : 24;
        n = read_needs(b, len, PT2_DYN_IMPORTS);
        ck_assert_msg(n->exec_stack == 0, "%s", libs[i].file);
        ck_assert_str_eq(n->partial, "");
        nlibs = n->nlibs;
        nimports = n->nimports;
        pt2_needs_free(n);

        ph = gnu_stack_ph(b);
        hdr_put(b, ph + (size_t)flags_at, 4, hdr_uint(b, ph + (size_t)flags_at, 4) | 1u); /* PF_X */
        n = read_needs(b, len, PT2_DYN_IMPORTS);
        ck_assert_msg(n->exec_stack == PT2_STACK_EXEC, "%s", libs[i].file);
        pt2_needs_free(n);

        hdr_put(b, ph, 4, 0); /* PT_NULL: no PT_GNU_STACK left */
        n = read_needs(b, len, PT2_DYN_IMPORTS);
        ck_assert_msg(n->exec_stack == libs[i].implied, "%s: %d", libs[i].file, n->exec_stack);
        pt2_needs_free(n);

        hdr_put(b, is64 ? 32 : 28, is64 ? 8 : 4, len - 8); /* e_phoff: past the file's end */
        n = read_needs(b, len, PT2_DYN_IMPORTS);
        ck_assert_int_eq(n->exec_stack, 0);
        ck_assert_ptr_nonnull(strstr(n->partial, "program headers"));
        ck_assert_uint_eq(n->nlibs, nlibs); /* the rest is still read */
        ck_assert_uint_eq(n->nimports, nimports);
        pt2_needs_free(n);
        free(b);
    }
}
END_TEST

/* Offset of the section of `type` in the file. */
static size_t section_off(const uint8_t *b, size_t len, uint32_t type, size_t *size)
{
    struct pt2_error err = {0};
    struct pt2_elf elf;
    struct pt2_rd rd;
    size_t off = 0;

    pt2_rd_init_mem(&rd, b, len, "x");
    ck_assert_int_eq(pt2_elf_open(&elf, &rd, 0, len, &err), PT2_OK);
    ck_assert_int_eq(pt2_elf_load_sections(&elf, &err), PT2_OK);
    for (size_t i = 0; i < elf.shnum; i++)
        if (elf.sec[i].type == type) {
            off = (size_t)elf.sec[i].offset;
            *size = (size_t)elf.sec[i].size;
        }
    pt2_elf_close(&elf);
    ck_assert_uint_gt(off, 0);
    return off;
}

START_TEST(test_malformed_versions)
{
    size_t len = 0, vsz = 0;
    uint8_t *orig = tu_read_file(RDC, &len), *b = malloc(len);
    size_t vr = section_off(orig, len, PT2_DYN_SHT_VERNEED, &vsz);
    struct pt2_needs *n;

    /* 1. the first entry's vn_next runs past the section */
    memcpy(b, orig, len);
    tu_put_le32(b + vr + 12, 0x7ffffff0u);
    n = read_needs(b, len, PT2_DYN_IMPORTS);
    ck_assert_str_eq(n->partial,
                     "lib.so: .gnu.version_r entry at 2147483632 runs past the section");
    ck_assert_uint_eq(n->nvers, 1);
    pt2_needs_free(n);

    /* 2. a count past its entries (libc.so.6's 7 become 65535) */
    memcpy(b, orig, len);
    b[vr + 0x60 + 2] = 0xff;
    b[vr + 0x60 + 3] = 0xff;
    b[vr + 0xd0 + 12] = 0x10; /* the last aux no longer ends the chain */
    b[vr + 0xd0 + 13] = 0;
    n = read_needs(b, len, PT2_DYN_IMPORTS);
    ck_assert_str_eq(n->partial, "lib.so: .gnu.version_r auxiliary entry runs past the section");
    ck_assert_uint_eq(n->nvers, 10);
    pt2_needs_free(n);

    /* 3. a name outside the string table */
    memcpy(b, orig, len);
    tu_put_le32(b + vr + 0x10 + 8, 0xfffffff0u);
    n = read_needs(b, len, PT2_DYN_IMPORTS);
    ck_assert_str_eq(n->partial,
                     "lib.so: version need name at 0xfffffff0 lies outside the string table");
    ck_assert_uint_eq(n->nvers, 9); /* GCC_3.0 is unknown: said, not guessed */
    /* the symbols that required it now name an index no need defines */
    pt2_needs_free(n);

    /* 4. every byte of the section zeroed: the walk ends, nothing invented */
    memcpy(b, orig, len);
    memset(b + vr, 0, vsz);
    n = read_needs(b, len, PT2_DYN_IMPORTS);
    ck_assert_uint_eq(n->nvers, 0);
    ck_assert_ptr_nonnull(strstr(n->partial, "which no version need defines"));
    pt2_needs_free(n);
    free(b);
    free(orig);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("dynamic");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_real_library);
    tcase_add_test(tc, test_provider_lookup);
    tcase_add_test(tc, test_provider_long_name);
    tcase_add_test(tc, test_provider_big_strtab);
    tcase_add_test(tc, test_exec_stack);
    tcase_add_test(tc, test_malformed_versions);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run_suite(suite());
}
