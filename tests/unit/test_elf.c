/*
 * test_elf.c - generic ELF reader: headers of every host_so_cpu binary, section
 * and symbol lookup, notes, host descriptions, and malformed headers/tables.
 * Expected values come from readelf(1) and docs/cuda-elf-facts.md §1.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_elf.h"
#include "testutil.h"

static uint8_t *load(const char *rel, size_t *n)
{
    char path[512];
    uint8_t *b = tu_read_file(tu_fixture(rel, path, sizeof(path)), n);

    ck_assert_msg(b != NULL, "missing fixture %s", rel);
    return b;
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

struct host_case {
    const char *file, *name;
    size_t size;
    int bits, big_endian;
    unsigned machine, type;
    uint32_t flags;
    uint64_t shoff;
    size_t shnum;
    const char *mach, *desc;
};

static const struct host_case host_cases[] = {
    {"bins/host_so_cpu/libx86_64.so", "libx86_64.so", 15024, 64, 0, 62, 3, 0x0, 13488, 24, "x86_64",
     "ELF 64-bit LSB shared object, x86-64"},
    {"bins/host_so_cpu/libaarch64.so", "libaarch64.so", 69232, 64, 0, 183, 3, 0x0, 67696, 24,
     "aarch64", "ELF 64-bit LSB shared object, ARM aarch64"},
    {"bins/host_so_cpu/lib_powerpc64le-linux-gnu.so", "ppc", 1944, 64, 0, 21, 3, 0x2, 1112, 13,
     "ppc64le", "ELF 64-bit LSB shared object, 64-bit PowerPC, ELFv2 ABI"},
    {"bins/host_so_cpu/lib_s390x-linux-gnu.so", "s390", 5368, 64, 1, 22, 3, 0x0, 4600, 12, "s390x",
     "ELF 64-bit MSB shared object, IBM S/390"},
    {"bins/host_so_cpu/lib_riscv64-linux-gnu.so", "rv", 1808, 64, 0, 243, 3, 0x5, 1040, 12,
     "riscv64", "ELF 64-bit LSB shared object, RISC-V, RVC, double-float ABI"},
    {"bins/host_so_cpu/lib_i686-linux-gnu.so", "i686", 1224, 32, 0, 3, 3, 0x0, 744, 12, "i686",
     "ELF 32-bit LSB shared object, Intel 80386"},
    {"bins/host_so_cpu/lib_armv7a-linux-gnueabihf.so", "arm", 1352, 32, 0, 40, 3, 0x05000400, 832,
     13, "arm", "ELF 32-bit LSB shared object, ARM, EABI5, hard-float"},
};

/* Look `name` up in .symtab, then .dynsym, through the library's symbol iterator. */
static int find_symbol(struct pt2_elf *elf, const char *name, struct pt2_elf_sym *sym, int *found,
                       struct pt2_error *err)
{
    static const uint32_t order[2] = {PT2_ELF_SHT_SYMTAB, PT2_ELF_SHT_DYNSYM};
    struct pt2_elf_symiter *it;
    size_t t, i;
    int rc = PT2_OK;

    *found = 0;
    rc = pt2_elf_load_sections(elf, err);
    if (rc != PT2_OK)
        return rc;
    it = malloc(sizeof(*it)); /* ~5 KiB: keep it off small worker stacks */
    if (it == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    for (t = 0; t < 2 && !*found; t++) {
        for (i = 0; i < elf->shnum && !*found; i++) {
            struct pt2_elf_sym s;
            int more;

            if (elf->sec[i].type != order[t])
                continue;
            rc = pt2_elf_symiter_init(it, elf, &elf->sec[i], 0, 0, err);
            if (rc != PT2_OK)
                goto cleanup;
            while ((more = pt2_elf_symiter_next(it, &s, err)) == 1) {
                const char *nm;

                rc = pt2_elf_symiter_name(it, &s, &nm, err);
                if (rc != PT2_OK)
                    goto cleanup;
                if (strcmp(nm, name) == 0) {
                    *sym = s;
                    *found = 1;
                    break;
                }
            }
            if (more < 0) {
                rc = more;
                goto cleanup;
            }
        }
    }
    rc = PT2_OK;
cleanup:
    free(it);
    return rc;
}

START_TEST(test_host_headers_and_descriptions)
{
    const struct host_case *c = &host_cases[_i];
    struct pt2_rd rd;
    struct pt2_elf elf;
    struct pt2_error err = {0};
    struct pt2_host h;
    size_t n = 0;
    uint8_t *b = load(c->file, &n);

    ck_assert_uint_eq(n, c->size);
    pt2_rd_init_mem(&rd, b, n, c->name);
    ck_assert_int_eq(pt2_elf_open(&elf, &rd, 0, n, &err), PT2_OK);
    ck_assert_int_eq(elf.bits, c->bits);
    ck_assert_int_eq(elf.big_endian, c->big_endian);
    ck_assert_uint_eq(elf.machine, c->machine);
    ck_assert_uint_eq(elf.type, c->type);
    ck_assert_uint_eq(elf.flags, c->flags);
    ck_assert_uint_eq(elf.version, 1);
    ck_assert_uint_eq(elf.shoff, c->shoff);
    ck_assert_str_eq(elf.label, c->name);
    ck_assert_int_eq(pt2_elf_load_sections(&elf, &err), PT2_OK);
    ck_assert_uint_eq(elf.shnum, c->shnum);
    ck_assert_str_eq(elf.sec[0].name, "");
    ck_assert_ptr_nonnull(pt2_elf_section_by_name(&elf, ".dynsym"));
    ck_assert_ptr_nonnull(pt2_elf_section_by_name(&elf, ".shstrtab"));
    ck_assert_ptr_null(pt2_elf_section_by_name(&elf, ".nv_fatbin"));

    memset(&h, 0, sizeof(h));
    pt2_elf_describe_host(&elf, &h);
    ck_assert_int_eq(h.format, PT2_HOST_ELF);
    ck_assert_int_eq(h.bits, c->bits);
    ck_assert_int_eq(h.big_endian, c->big_endian);
    ck_assert_uint_eq(h.e_machine, c->machine);
    ck_assert_int_eq(h.elf_type, 3);
    ck_assert_uint_eq(h.size, c->size);
    ck_assert_str_eq(h.machine, c->mach);
    ck_assert_str_eq(h.description, c->desc);
    ck_assert_int_eq(err.code, PT2_OK);
    pt2_elf_close(&elf);
    free(b);
}
END_TEST

START_TEST(test_sections_symbols_notes)
{
    struct pt2_rd rd;
    struct pt2_elf elf;
    struct pt2_error err = {0};
    const struct pt2_elf_section *s;
    struct pt2_elf_sym sym;
    int found = -1;
    size_t n = 0;
    uint8_t *b = load("bins/host_so_cpu/libx86_64.so", &n);

    pt2_rd_init_mem(&rd, b, n, "libx86_64.so");
    ck_assert_int_eq(pt2_elf_open(&elf, &rd, 0, n, &err), PT2_OK);
    ck_assert_int_eq(pt2_elf_load_sections(&elf, &err), PT2_OK);
    ck_assert_int_eq(pt2_elf_load_sections(&elf, &err), PT2_OK); /* idempotent */
    s = pt2_elf_section_by_name(&elf, ".dynsym");
    ck_assert_uint_eq(s->type, PT2_ELF_SHT_DYNSYM);
    ck_assert_uint_eq(s->offset, 0x288);
    ck_assert_uint_eq(s->size, 0x90);
    ck_assert_uint_eq(s->entsize, 0x18);
    ck_assert_uint_eq(s->link, 4);
    ck_assert_ptr_eq(pt2_elf_section_at(&elf, 3), s);
    ck_assert_ptr_null(pt2_elf_section_at(&elf, 24));

    s = pt2_elf_section_by_name(&elf, ".symtab");
    ck_assert_uint_eq(s->offset, 0x3030);
    ck_assert_uint_eq(s->info, 20);

    ck_assert_int_eq(find_symbol(&elf, "aoti_dummy_add", &sym, &found, &err), PT2_OK);
    ck_assert_int_eq(found, 1);
    ck_assert_uint_eq(sym.value, 0x1100);
    ck_assert_uint_eq(sym.size, 4);
    ck_assert_uint_eq(sym.shndx, 9);
    ck_assert_uint_eq(sym.info, 0x12); /* GLOBAL FUNC */
    ck_assert_int_eq(find_symbol(&elf, "no_such_symbol", &sym, &found, &err), PT2_OK);
    ck_assert_int_eq(found, 0);

    /* The GNU build-id note: owner "GNU", type 3, 20-byte descriptor. */
    {
        uint8_t desc[64];
        size_t dl = 0;

        s = pt2_elf_section_by_name(&elf, ".note.gnu.build-id");
        ck_assert_int_eq(
            pt2_elf_find_note(&elf, s, "GNU", 3, desc, sizeof(desc), &dl, &found, &err), PT2_OK);
        ck_assert_int_eq(found, 1);
        ck_assert_uint_eq(dl, 20);
        ck_assert_uint_eq(desc[0], 0x6c); /* BuildID 6c5318c3... */
        ck_assert_uint_eq(desc[19], 0x22);
        ck_assert_int_eq(
            pt2_elf_find_note(&elf, s, "GNU", 4, desc, sizeof(desc), &dl, &found, &err), PT2_OK);
        ck_assert_int_eq(found, 0);
        /* Clipped to the caller's capacity. */
        ck_assert_int_eq(pt2_elf_find_note(&elf, s, "GNU", 3, desc, 8, &dl, &found, &err), PT2_OK);
        ck_assert_uint_eq(dl, 8);
    }
    ck_assert_int_eq(err.code, PT2_OK);
    pt2_elf_close(&elf);
    pt2_elf_close(&elf); /* twice is fine */
    pt2_elf_close(NULL);
    free(b);
}
END_TEST

START_TEST(test_absolute_symbol_and_cubin_notes)
{
    struct pt2_rd rd;
    struct pt2_elf elf;
    struct pt2_error err = {0};
    struct pt2_elf_sym sym;
    int found = 0;
    size_t n = 0, dl = 0;
    uint8_t desc[256];
    uint8_t *b = load("bins/host/libembedded_symbols.so", &n);

    pt2_rd_init_mem(&rd, b, n, "libembedded_symbols.so");
    ck_assert_int_eq(pt2_elf_open(&elf, &rd, 0, n, &err), PT2_OK);
    ck_assert_int_eq(find_symbol(&elf, "__triton_poi_fused_0_size", &sym, &found, &err), PT2_OK);
    ck_assert_int_eq(found, 1);
    ck_assert_uint_eq(sym.shndx, PT2_ELF_SHN_ABS);
    ck_assert_uint_eq(sym.value, 3840); /* size of cubin_cuda13/sm_90a.cubin */
    pt2_elf_close(&elf);
    free(b);

    /* A cubin: e_version stays as stored, notes are found by owner and type. */
    b = load("bins/cubin_cuda13/sm_90a.cubin", &n);
    pt2_rd_init_mem(&rd, b, n, "sm_90a.cubin");
    ck_assert_int_eq(pt2_elf_open(&elf, &rd, 0, n, &err), PT2_OK);
    ck_assert_uint_eq(elf.osabi, 0x41);
    ck_assert_uint_eq(elf.abiversion, 8);
    ck_assert_uint_eq(elf.flags, 0x06005a04);
    ck_assert_int_eq(pt2_elf_load_sections(&elf, &err), PT2_OK);
    ck_assert_int_eq(pt2_elf_find_note(&elf, pt2_elf_section_by_name(&elf, ".note.nv.cuinfo"),
                                       "NVIDIA Corp", 1000, desc, sizeof(desc), &dl, &found, &err),
                     PT2_OK);
    ck_assert_int_eq(found, 1);
    ck_assert_uint_eq(dl, 8);
    ck_assert_uint_eq(pt2_le16(desc + 2), 90);
    ck_assert_uint_eq(pt2_le32(desc + 4), 130);
    /* Owner must match exactly, NUL included. */
    ck_assert_int_eq(pt2_elf_find_note(&elf, pt2_elf_section_by_name(&elf, ".note.nv.cuinfo"),
                                       "NVIDIA", 1000, desc, sizeof(desc), &dl, &found, &err),
                     PT2_OK);
    ck_assert_int_eq(found, 0);
    pt2_elf_close(&elf);
    free(b);

    b = load("bins/cubin_cuda12.4/sm_90.cubin", &n);
    pt2_rd_init_mem(&rd, b, n, "sm_90.cubin");
    ck_assert_int_eq(pt2_elf_open(&elf, &rd, 0, n, &err), PT2_OK);
    ck_assert_uint_eq(elf.version, 124); /* e_version != 1 is accepted */
    pt2_elf_close(&elf);
    free(b);
    ck_assert_int_eq(err.code, PT2_OK);
}
END_TEST

START_TEST(test_image_inside_a_larger_reader)
{
    struct pt2_rd rd;
    struct pt2_elf elf;
    struct pt2_error err = {0};
    size_t n = 0;
    uint8_t *b = load("bins/host/libembedded_symbols.so", &n);

    /* The sm_90a cubin blob sits at file offset 0x2000 of this .so. */
    pt2_rd_init_mem(&rd, b, n, "libembedded_symbols.so");
    ck_assert_int_eq(pt2_elf_open(&elf, &rd, 0x2000, 3840, &err), PT2_OK);
    ck_assert_str_eq(elf.label, "libembedded_symbols.so@0x2000");
    ck_assert_uint_eq(elf.machine, PT2_ELF_EM_CUDA);
    ck_assert_int_eq(pt2_elf_load_sections(&elf, &err), PT2_OK);
    ck_assert_ptr_nonnull(pt2_elf_section_by_name(&elf, ".nv.compat"));
    pt2_elf_close(&elf);

    /* The same image claimed one byte too long for the reader. */
    ck_assert_int_eq(pt2_elf_open(&elf, &rd, 0x2000, n - 0x2000 + 1, &err), PT2_ERR_FORMAT);
    ck_assert_str_eq(err.message, "libembedded_symbols.so@0x2000: ELF image (15321 bytes) "
                                  "extends past the end of the input");
    pt2_elf_close(&elf);
    free(b);
}
END_TEST

START_TEST(test_machine_names)
{
    char buf[32];

    ck_assert_str_eq(pt2_elf_machine_name(62, 64, 0, buf, sizeof(buf)), "x86_64");
    ck_assert_str_eq(pt2_elf_machine_name(21, 64, 1, buf, sizeof(buf)), "ppc64");
    ck_assert_str_eq(pt2_elf_machine_name(21, 64, 0, buf, sizeof(buf)), "ppc64le");
    ck_assert_str_eq(pt2_elf_machine_name(22, 32, 1, buf, sizeof(buf)), "s390");
    ck_assert_str_eq(pt2_elf_machine_name(243, 32, 0, buf, sizeof(buf)), "riscv32");
    ck_assert_str_eq(pt2_elf_machine_name(258, 64, 0, buf, sizeof(buf)), "loongarch64");
    ck_assert_str_eq(pt2_elf_machine_name(3, 32, 0, buf, sizeof(buf)), "i686");
    ck_assert_str_eq(pt2_elf_machine_name(40, 32, 0, buf, sizeof(buf)), "arm");
    ck_assert_str_eq(pt2_elf_machine_name(9999, 64, 0, buf, sizeof(buf)), "em_9999");
}
END_TEST

START_TEST(test_describe_synthetic_machines)
{
    struct pt2_elf elf;
    struct pt2_host h;

    memset(&elf, 0, sizeof(elf));
    elf.bits = 64;
    elf.type = PT2_ELF_ET_EXEC;
    elf.machine = PT2_ELF_EM_LOONGARCH;
    pt2_elf_describe_host(&elf, &h);
    ck_assert_str_eq(h.machine, "loongarch64");
    ck_assert_str_eq(h.description, "ELF 64-bit LSB executable, LoongArch");

    elf.machine = PT2_ELF_EM_RISCV;
    elf.flags = 0x0; /* no RVC, soft-float */
    elf.type = PT2_ELF_ET_REL;
    pt2_elf_describe_host(&elf, &h);
    ck_assert_str_eq(h.description, "ELF 64-bit LSB relocatable, RISC-V, soft-float ABI");

    elf.machine = 4242;
    elf.type = 0xfe00;
    elf.big_endian = 1;
    elf.bits = 32;
    pt2_elf_describe_host(&elf, &h);
    ck_assert_str_eq(h.machine, "em_4242");
    ck_assert_str_eq(h.description, "ELF 32-bit MSB file, machine 4242");
}
END_TEST

/* Patch a copy of libx86_64.so and expect `msg` from open+load. */
static void expect_bad(void (*patch)(uint8_t *b), int code, const char *msg)
{
    struct pt2_rd rd;
    struct pt2_elf elf;
    struct pt2_error err = {0};
    size_t n = 0;
    uint8_t *b = load("bins/host_so_cpu/libx86_64.so", &n);
    int rc;

    patch(b);
    pt2_rd_init_mem(&rd, b, n, "libx86_64.so");
    rc = pt2_elf_open(&elf, &rd, 0, n, &err);
    if (rc == PT2_OK)
        rc = pt2_elf_load_sections(&elf, &err);
    ck_assert_int_eq(rc, code);
    ck_assert_int_eq(err.code, code);
    ck_assert_str_eq(err.message, msg);
    ck_assert_ptr_null(elf.sec); /* nothing leaks on failure */
    pt2_elf_close(&elf);
    free(b);
}

static void shoff_beyond(uint8_t *b)
{
    put64(b + 40, 0x100000);
}

static void shnum_huge(uint8_t *b)
{
    put16(b + 60, 65535);
}

static void shstrndx_out(uint8_t *b)
{
    put16(b + 62, 24);
}

static void name_out(uint8_t *b)
{
    /* Section 5's sh_name (table at 13488, 64-byte entries). */
    put32(b + 13488 + 5 * 64, 0x7777);
}

static void shentsize_small(uint8_t *b)
{
    put16(b + 58, 40);
}

static void bad_magic(uint8_t *b)
{
    b[1] = 'X';
}

static void bad_class(uint8_t *b)
{
    b[4] = 3;
}

static void extended_count_huge(uint8_t *b)
{
    put16(b + 60, 0);             /* e_shnum 0: real count in section 0's sh_size */
    put64(b + 13488 + 32, 70000); /* > 65535 */
}

static void extended_count_ok(uint8_t *b)
{
    put16(b + 60, 0);
    put64(b + 13488 + 32, 24);
    put16(b + 62, 0xffff); /* SHN_XINDEX: index in section 0's sh_link */
    put32(b + 13488 + 40, 23);
}

static void shstrtab_beyond(uint8_t *b)
{
    put64(b + 13488 + 23 * 64 + 24, 0x10000); /* .shstrtab sh_offset */
}

START_TEST(test_malformed_headers)
{
    expect_bad(shoff_beyond, PT2_ERR_FORMAT,
               "libx86_64.so: ELF section header table (offset 0x100000) lies beyond the end of "
               "the file (15024 bytes)");
    expect_bad(shnum_huge, PT2_ERR_FORMAT,
               "libx86_64.so: ELF section header table (offset 0x34b0, 65535 entries) lies beyond "
               "the end of the file (15024 bytes)");
    expect_bad(shstrndx_out, PT2_ERR_FORMAT,
               "libx86_64.so: ELF section name table index 24 is out of range (24 sections)");
    expect_bad(name_out, PT2_ERR_FORMAT,
               "libx86_64.so: ELF section 5 name offset 0x7777 is outside the section name table "
               "(195 bytes)");
    expect_bad(shentsize_small, PT2_ERR_FORMAT,
               "libx86_64.so: ELF section header entry size 40 is smaller than 64");
    expect_bad(bad_magic, PT2_ERR_FORMAT,
               "libx86_64.so: not an ELF file (bad magic, class or data encoding)");
    expect_bad(bad_class, PT2_ERR_FORMAT,
               "libx86_64.so: not an ELF file (bad magic, class or data encoding)");
    expect_bad(extended_count_huge, PT2_ERR_FORMAT,
               "libx86_64.so: ELF claims 70000 sections (limit 65535)");
    expect_bad(shstrtab_beyond, PT2_ERR_FORMAT,
               "libx86_64.so: ELF section name table (section 23, offset 0x10000, size 195) lies "
               "beyond the end of the file");
}
END_TEST

START_TEST(test_extended_numbering)
{
    struct pt2_rd rd;
    struct pt2_elf elf;
    struct pt2_error err = {0};
    size_t n = 0;
    uint8_t *b = load("bins/host_so_cpu/libx86_64.so", &n);

    extended_count_ok(b);
    pt2_rd_init_mem(&rd, b, n, "libx86_64.so");
    ck_assert_int_eq(pt2_elf_open(&elf, &rd, 0, n, &err), PT2_OK);
    ck_assert_int_eq(pt2_elf_load_sections(&elf, &err), PT2_OK);
    ck_assert_uint_eq(elf.shnum, 24);
    ck_assert_ptr_nonnull(pt2_elf_section_by_name(&elf, ".symtab"));
    pt2_elf_close(&elf);
    free(b);
}
END_TEST

START_TEST(test_truncated_and_empty)
{
    struct pt2_rd rd;
    struct pt2_elf elf;
    struct pt2_error err = {0};
    size_t n = 0;
    uint8_t *b = load("bins/host_so_cpu/libx86_64.so", &n);

    pt2_rd_init_mem(&rd, b, 40, "short.so");
    ck_assert_int_eq(pt2_elf_open(&elf, &rd, 0, 40, &err), PT2_ERR_FORMAT);
    ck_assert_str_eq(err.message, "short.so: ELF header truncated (40 bytes, needs 64)");
    pt2_elf_close(&elf);

    pt2_error_clear(&err);
    pt2_rd_init_mem(&rd, b, 0, "empty.so");
    ck_assert_int_eq(pt2_elf_open(&elf, &rd, 0, 0, &err), PT2_ERR_FORMAT);
    ck_assert_str_eq(err.message, "empty.so: ELF header truncated (0 bytes, needs at least 52)");
    pt2_elf_close(&elf);

    /* Header intact, section table cut off by truncation. */
    pt2_error_clear(&err);
    pt2_rd_init_mem(&rd, b, 14000, "cut.so");
    ck_assert_int_eq(pt2_elf_open(&elf, &rd, 0, 14000, &err), PT2_OK);
    ck_assert_int_eq(pt2_elf_load_sections(&elf, &err), PT2_ERR_FORMAT);
    ck_assert_str_eq(err.message, "cut.so: ELF section header table (offset 0x34b0, 24 entries) "
                                  "lies beyond the end of the file (14000 bytes)");
    pt2_elf_close(&elf);

    /* Reads outside the image are refused with the image's name. */
    pt2_error_clear(&err);
    pt2_rd_init_mem(&rd, b, n, "libx86_64.so");
    ck_assert_int_eq(pt2_elf_open(&elf, &rd, 0, n, &err), PT2_OK);
    {
        uint8_t x[8];
        ck_assert_int_eq(pt2_elf_read(&elf, n - 4, x, 8, &err), PT2_ERR_FORMAT);
        ck_assert_str_eq(err.message, "libx86_64.so: read of 8 bytes at offset 0x3aac lies "
                                      "beyond the end of the ELF image (15024 bytes)");
    }
    pt2_elf_close(&elf);
    free(b);
}
END_TEST

START_TEST(test_no_section_headers)
{
    struct pt2_rd rd;
    struct pt2_elf elf;
    struct pt2_error err = {0};
    size_t n = 0;
    uint8_t *b = load("bins/host_so_cpu/libx86_64.so", &n);

    put64(b + 40, 0);
    put16(b + 60, 0);
    put16(b + 62, 0);
    pt2_rd_init_mem(&rd, b, n, "stripped.so");
    ck_assert_int_eq(pt2_elf_open(&elf, &rd, 0, n, &err), PT2_OK);
    ck_assert_int_eq(pt2_elf_load_sections(&elf, &err), PT2_OK);
    ck_assert_uint_eq(elf.shnum, 0);
    ck_assert_ptr_null(pt2_elf_section_by_name(&elf, ".text"));
    pt2_elf_close(&elf);
    free(b);
}
END_TEST

START_TEST(test_symbol_table_out_of_range)
{
    struct pt2_rd rd;
    struct pt2_elf elf;
    struct pt2_error err = {0};
    struct pt2_elf_sym sym;
    int found = 0;
    size_t n = 0;
    uint8_t *b = load("bins/host_so_cpu/libx86_64.so", &n);

    /* .symtab (section 21) sh_size grown past the end of the file. */
    put64(b + 13488 + 21 * 64 + 32, 0x100000);
    pt2_rd_init_mem(&rd, b, n, "libx86_64.so");
    ck_assert_int_eq(pt2_elf_open(&elf, &rd, 0, n, &err), PT2_OK);
    ck_assert_int_eq(find_symbol(&elf, "aoti_dummy_add", &sym, &found, &err), PT2_ERR_FORMAT);
    ck_assert_str_eq(err.message, "libx86_64.so: ELF symbol table .symtab (offset 0x3030, size "
                                  "1048576) lies beyond the end of the file (15024 bytes)");
    pt2_elf_close(&elf);
    free(b);
}
END_TEST

START_TEST(test_symiter_limit_and_names)
{
    struct pt2_rd rd;
    struct pt2_elf elf;
    struct pt2_error err = {0};
    struct pt2_elf_symiter *it = malloc(sizeof(*it));
    struct pt2_elf_sym sym;
    const char *name;
    size_t n = 0, count = 0;
    uint8_t *b = load("bins/host_so_cpu/libx86_64.so", &n);

    pt2_rd_init_mem(&rd, b, n, "libx86_64.so");
    ck_assert_int_eq(pt2_elf_open(&elf, &rd, 0, n, &err), PT2_OK);
    ck_assert_int_eq(pt2_elf_load_sections(&elf, &err), PT2_OK);
    /* .symtab has 25 entries (0x258 / 24); start at the first global (20), visit 3. */
    ck_assert_int_eq(
        pt2_elf_symiter_init(it, &elf, pt2_elf_section_by_name(&elf, ".symtab"), 20, 3, &err),
        PT2_OK);
    while (pt2_elf_symiter_next(it, &sym, &err) == 1) {
        ck_assert_int_eq(pt2_elf_symiter_name(it, &sym, &name, &err), PT2_OK);
        if (count == 0)
            ck_assert_str_eq(name, "__cxa_finalize");
        count++;
    }
    ck_assert_uint_eq(count, 3);
    pt2_elf_close(&elf);
    free(it);
    free(b);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("elf");
    TCase *tc = tcase_create("core");

    tcase_add_loop_test(tc, test_host_headers_and_descriptions, 0,
                        (int)(sizeof(host_cases) / sizeof(host_cases[0])));
    tcase_add_test(tc, test_sections_symbols_notes);
    tcase_add_test(tc, test_absolute_symbol_and_cubin_notes);
    tcase_add_test(tc, test_image_inside_a_larger_reader);
    tcase_add_test(tc, test_machine_names);
    tcase_add_test(tc, test_describe_synthetic_machines);
    tcase_add_test(tc, test_malformed_headers);
    tcase_add_test(tc, test_extended_numbering);
    tcase_add_test(tc, test_truncated_and_empty);
    tcase_add_test(tc, test_no_section_headers);
    tcase_add_test(tc, test_symbol_table_out_of_range);
    tcase_add_test(tc, test_symiter_limit_and_names);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
