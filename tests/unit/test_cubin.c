/*
 * test_cubin.c - cubin decoding for every reference cubin (CUDA 12.4 ABI v7,
 * CUDA 13 ABI v8, and the extra/ edge cases), the option and TLV helpers, and
 * malformed cubins. Expected values: docs/cuda-elf-facts.md §2 tables and
 * bins/README.md (how each file was built).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_cubin.h"
#include "testutil.h"

static uint8_t *load(const char *rel, size_t *n)
{
    char path[512];
    uint8_t *b = tu_read_file(tu_fixture(rel, path, sizeof(path)), n);

    ck_assert_msg(b != NULL, "missing fixture %s", rel);
    return b;
}

struct cubin_case {
    const char *file;
    unsigned sm;
    char variant;
    unsigned vsm;
    int abi;
    unsigned toolkit;
    int elf_type, debug, has_code;
};

#define V13(x, s, v)                                                                               \
    {                                                                                              \
        "bins/cubin_cuda13/sm_" x ".cubin", s, v, s, 8, 130, 2, 0, 1                               \
    }
#define V7(x, s, v)                                                                                \
    {                                                                                              \
        "bins/cubin_cuda12.4/sm_" x ".cubin", s, v, s, 7, 124, 2, 0, 1                             \
    }

static const struct cubin_case cases[] = {
    /* CUDA 13.0, ABI v8: SM in e_flags[15:8], 'a' in .nv.compat, 'f' in tkinfo. */
    V13("75", 75, 0),
    V13("80", 80, 0),
    V13("86", 86, 0),
    V13("87", 87, 0),
    V13("88", 88, 0),
    V13("89", 89, 0),
    V13("90", 90, 0),
    V13("90a", 90, 'a'),
    V13("100", 100, 0),
    V13("100a", 100, 'a'),
    V13("100f", 100, 'f'),
    V13("103", 103, 0),
    V13("103a", 103, 'a'),
    V13("103f", 103, 'f'),
    V13("110", 110, 0),
    V13("110a", 110, 'a'),
    V13("110f", 110, 'f'),
    V13("120", 120, 0),
    V13("120a", 120, 'a'),
    V13("120f", 120, 'f'),
    V13("121", 121, 0),
    V13("121a", 121, 'a'),
    V13("121f", 121, 'f'),
    /* CUDA 12.4 ptxas, ABI v7: everything in e_flags, toolkit in e_version. */
    V7("50", 50, 0),
    V7("52", 52, 0),
    V7("53", 53, 0),
    V7("60", 60, 0),
    V7("61", 61, 0),
    V7("62", 62, 0),
    V7("70", 70, 0),
    V7("72", 72, 0),
    V7("75", 75, 0),
    V7("80", 80, 0),
    V7("86", 86, 0),
    V7("87", 87, 0),
    V7("89", 89, 0),
    V7("90", 90, 0),
    V7("90a", 90, 'a'),
    V7("90_li", 90, 0),
    {"bins/cubin_cuda12.4/sm_90_rel.cubin", 90, 0, 90, 7, 124, 1, 0, 1},
    {"bins/cubin_cuda12.4/c75_sm86.cubin", 86, 0, 75, 7, 124, 2, 0, 1},
    {"bins/cubin_cuda12.4/c75_sm90.cubin", 90, 0, 75, 7, 124, 2, 0, 1},
    {"bins/cubin_cuda12.4/c75_sm90a.cubin", 90, 'a', 75, 7, 124, 2, 0, 1},
    /* extra/: virtual SM != real SM, arch-only features, -G/-lineinfo/-rdc, nvlink. */
    {"bins/extra/c75_sm90.cubin", 90, 0, 75, 8, 130, 2, 0, 1},
    {"bins/extra/c100f_sm103.cubin", 103, 'f', 100, 8, 130, 2, 0, 1}, /* tkinfo: sm_103f */
    {"bins/extra/c120f_sm121a.cubin", 121, 'a', 120, 8, 130, 2, 0, 1},
    {"bins/extra/f_sm_90a.cubin", 90, 'a', 90, 8, 130, 2, 0, 1},
    {"bins/extra/f_sm_90a_wgmma.cubin", 90, 'a', 90, 8, 130, 2, 0, 1},
    {"bins/extra/f_sm_100a.cubin", 100, 'a', 100, 8, 130, 2, 0, 1},
    {"bins/extra/f_sm_100f.cubin", 100, 'f', 100, 8, 130, 2, 0, 1},
    {"bins/extra/f_sm_103f.cubin", 103, 'f', 103, 8, 130, 2, 0, 1},
    {"bins/extra/f_sm_110f.cubin", 110, 'f', 110, 8, 130, 2, 0, 1},
    {"bins/extra/sm90_G.cubin", 90, 0, 90, 8, 130, 2, 1, 1},
    {"bins/extra/sm100_G.cubin", 100, 0, 100, 8, 130, 2, 1, 1},
    {"bins/extra/sm90_li.cubin", 90, 0, 90, 8, 130, 2, 0, 1},
    {"bins/extra/sm90_rdc.cubin", 90, 0, 90, 8, 130, 1, 0, 1},
    {"bins/extra/sm100_rdc.cubin", 100, 0, 100, 8, 130, 1, 0, 1},
    /* nvlink -arch=sm_100 clears attr 0x09: the result is a plain sm_100 cubin. */
    {"bins/extra/nvlink_sm100a_obj_linked_as_sm100.cubin", 100, 0, 100, 8, 130, 2, 0, 1},
    {"bins/extra/nvlink_sm100a_obj_linked_as_sm100a.cubin", 100, 'a', 100, 8, 130, 2, 0, 1},
    /* sm_100f re-finalized to SM 103: options say "-arch sm_103". */
    {"bins/extra/nvlink_sm100f_obj_linked_as_sm103.cubin", 103, 0, 100, 8, 130, 2, 0, 1},
};

START_TEST(test_every_reference_cubin)
{
    const struct cubin_case *c = &cases[_i];
    struct pt2_rd rd;
    struct pt2_error err = {0};
    struct pt2_kernel k;
    size_t n = 0;
    uint8_t *b = load(c->file, &n);

    memset(&k, 0x5a, sizeof(k)); /* every decoded field must be written */
    k.container = PT2_CONT_FILE;
    pt2_rd_init_mem(&rd, b, n, c->file);
    pt2_rd_set_budget(&rd, PT2_RD_DEFAULT_BUDGET);
    ck_assert_int_eq(pt2_cubin_scan(&rd, 0, n, &k, &err), PT2_OK);
    ck_assert_int_eq(k.kind, PT2_KERNEL_SASS);
    ck_assert_int_eq(k.container, PT2_CONT_FILE); /* left alone */
    ck_assert_uint_eq(k.sm, c->sm);
    ck_assert_int_eq(k.variant, c->variant);
    ck_assert_uint_eq(k.virtual_sm, c->vsm);
    ck_assert_int_eq(k.abi_version, c->abi);
    ck_assert_uint_eq(k.toolkit, c->toolkit);
    ck_assert_int_eq(k.elf_type, c->elf_type);
    ck_assert_int_eq(k.debug, c->debug);
    ck_assert_int_eq(k.has_code, c->has_code);
    /* Headers, section table and three small sections: never the code. */
    ck_assert_uint_lt(rd.bytes_read, 5000);
    ck_assert_uint_lt(rd.bytes_read, n);
    free(b);
}
END_TEST

START_TEST(test_arch_option_parsing)
{
    unsigned sm = 0;
    char v = 1;

    ck_assert_int_eq(pt2_cubin_parse_arch_option("-arch sm_100f -m 64 ", &sm, &v), 1);
    ck_assert_uint_eq(sm, 100);
    ck_assert_int_eq(v, 'f');
    ck_assert_int_eq(pt2_cubin_parse_arch_option("-lineinfo  -arch sm_90 -m 64", &sm, &v), 1);
    ck_assert_uint_eq(sm, 90);
    ck_assert_int_eq(v, 0);
    ck_assert_int_eq(pt2_cubin_parse_arch_option("-arch=sm_121a", &sm, &v), 1);
    ck_assert_uint_eq(sm, 121);
    ck_assert_int_eq(v, 'a');
    ck_assert_int_eq(pt2_cubin_parse_arch_option("-arch compute_90 -m 64", &sm, &v), 0);
    ck_assert_int_eq(pt2_cubin_parse_arch_option("x-arch sm_90", &sm, &v), 0);
    ck_assert_int_eq(pt2_cubin_parse_arch_option("-arch sm_", &sm, &v), 0);
    ck_assert_int_eq(pt2_cubin_parse_arch_option("-arch sm_99999", &sm, &v), 0);
    ck_assert_int_eq(pt2_cubin_parse_arch_option("", &sm, &v), 0);
}
END_TEST

START_TEST(test_compat_tlv)
{
    /* The sm_100a record sequence from the doc (§2.4). */
    static const uint8_t rec[] = {0x02, 0x09, 0x01, 0x00, 0x02, 0x02, 0x01, 0x00, 0x02,
                                  0x05, 0x05, 0x00, 0x03, 0x07, 0x01, 0x01, 0x02, 0x03,
                                  0x00, 0x00, 0x02, 0x06, 0x01, 0x00, 0x04, 0x0b, 0x08,
                                  0x00, 0x09, 0,    0,    0,    0,    0,    0,    0};
    static const uint8_t flagonly[] = {0x01, 0x04, 0x02, 0x09, 0x01, 0x00};
    static const uint8_t unknown_fmt[] = {0x07, 0x01, 0x02, 0x09, 0x01, 0x00};
    static const uint8_t cut[] = {0x04, 0x0b, 0xff, 0x00, 0x02, 0x09, 0x01, 0x00};
    unsigned v = 0;

    ck_assert_int_eq(pt2_cubin_compat_attr(rec, sizeof(rec), 0x09, &v), 1);
    ck_assert_uint_eq(v, 1);
    ck_assert_int_eq(pt2_cubin_compat_attr(rec, sizeof(rec), 0x07, &v), 1);
    ck_assert_uint_eq(v, 0x0101);
    ck_assert_int_eq(pt2_cubin_compat_attr(rec, sizeof(rec), 0x02, &v), 1);
    ck_assert_uint_eq(v, 1);
    ck_assert_int_eq(pt2_cubin_compat_attr(rec, sizeof(rec), 0x0b, &v), 0); /* not scalar */
    ck_assert_int_eq(pt2_cubin_compat_attr(rec, sizeof(rec), 0x42, &v), 0);
    ck_assert_int_eq(pt2_cubin_compat_attr(flagonly, sizeof(flagonly), 0x09, &v), 1);
    ck_assert_int_eq(pt2_cubin_compat_attr(unknown_fmt, sizeof(unknown_fmt), 0x09, &v), 0);
    ck_assert_int_eq(pt2_cubin_compat_attr(cut, sizeof(cut), 0x09, &v), 0);
    ck_assert_int_eq(pt2_cubin_compat_attr(rec, 3, 0x09, &v), 0);
    ck_assert_int_eq(pt2_cubin_compat_attr(rec, 0, 0x09, &v), 0);
}
END_TEST

START_TEST(test_known_sm)
{
    ck_assert_int_eq(pt2_cubin_known_sm(90), 1);
    ck_assert_int_eq(pt2_cubin_known_sm(121), 1);
    ck_assert_int_eq(pt2_cubin_known_sm(101), 1);
    ck_assert_int_eq(pt2_cubin_known_sm(4), 0);
    ck_assert_int_eq(pt2_cubin_known_sm(2), 0);
    ck_assert_int_eq(pt2_cubin_known_sm(91), 0);
}
END_TEST

/* Decode `file` after setting EI_ABIVERSION to `abi`. */
static void decode_with_abi(const char *file, uint8_t abi, struct pt2_kernel *k)
{
    struct pt2_rd rd;
    struct pt2_error err = {0};
    size_t n = 0;
    uint8_t *b = load(file, &n);

    b[8] = abi;
    memset(k, 0, sizeof(*k));
    pt2_rd_init_mem(&rd, b, n, file);
    ck_assert_int_eq(pt2_cubin_scan(&rd, 0, n, k, &err), PT2_OK);
    free(b);
}

START_TEST(test_unknown_abi_fallback)
{
    struct pt2_kernel k;

    /* v8 layout (low byte 0x02 is no SM): SM from byte 1, 'a' and vsm from sections. */
    decode_with_abi("bins/cubin_cuda13/sm_100a.cubin", 9, &k);
    ck_assert_uint_eq(k.sm, 100);
    ck_assert_int_eq(k.variant, 'a');
    ck_assert_uint_eq(k.virtual_sm, 100);
    ck_assert_uint_eq(k.toolkit, 130);
    ck_assert_int_eq(k.abi_version, 9);
    /* v7 layout (low byte 0x5a = 90 is an SM): everything from e_flags/e_version. */
    decode_with_abi("bins/cubin_cuda12.4/c75_sm90a.cubin", 6, &k);
    ck_assert_uint_eq(k.sm, 90);
    ck_assert_int_eq(k.variant, 'a');
    ck_assert_uint_eq(k.virtual_sm, 75);
    ck_assert_uint_eq(k.toolkit, 124);
    ck_assert_int_eq(k.abi_version, 6);
}
END_TEST

START_TEST(test_not_a_cubin_and_malformed)
{
    struct pt2_rd rd;
    struct pt2_error err = {0};
    struct pt2_kernel k;
    size_t n = 0;
    uint8_t *b = load("bins/host_so_cpu/libx86_64.so", &n);

    pt2_rd_init_mem(&rd, b, n, "libx86_64.so");
    ck_assert_int_eq(pt2_cubin_scan(&rd, 0, n, &k, &err), PT2_ERR_FORMAT);
    ck_assert_str_eq(err.message, "libx86_64.so: not a cubin (e_machine 62, expected 190)");
    free(b);

    /* .nv.compat (section 8 of sm_90a.cubin) moved past the end of the file. */
    pt2_error_clear(&err);
    b = load("bins/cubin_cuda13/sm_90a.cubin", &n);
    {
        uint64_t shoff = pt2_le64(b + 40);
        uint8_t *sh = b + shoff + 8 * 64;
        sh[24] = 0x00;
        sh[25] = 0x00;
        sh[26] = 0x10; /* sh_offset = 0x100000 */
    }
    pt2_rd_init_mem(&rd, b, n, "sm_90a.cubin");
    ck_assert_int_eq(pt2_cubin_scan(&rd, 0, n, &k, &err), PT2_ERR_FORMAT);
    ck_assert_str_eq(err.message, "sm_90a.cubin: ELF section .nv.compat (offset 0x100000, size "
                                  "36) lies beyond the end of the file (3840 bytes)");
    free(b);

    /* A truncated cubin: the section header table is cut off. */
    pt2_error_clear(&err);
    b = load("bins/cubin_cuda13/sm_90a.cubin", &n);
    pt2_rd_init_mem(&rd, b, 2700, "cut.cubin");
    ck_assert_int_eq(pt2_cubin_scan(&rd, 0, 2700, &k, &err), PT2_ERR_FORMAT);
    ck_assert_str_eq(err.message, "cut.cubin: ELF section header table (offset 0xa28, 15 "
                                  "entries) lies beyond the end of the file (2700 bytes)");
    free(b);
}
END_TEST

START_TEST(test_garbage_notes_are_ignored)
{
    struct pt2_rd rd;
    struct pt2_error err = {0};
    struct pt2_kernel k;
    size_t n = 0;
    uint8_t *b = load("bins/cubin_cuda13/sm_100f.cubin", &n);
    uint64_t shoff = pt2_le64(b + 40);
    uint16_t shnum = pt2_le16(b + 60), i;

    /* Corrupt the namesz of both NVIDIA notes: decoding must not crash and
     * must fall back to "unknown" for what they carried. */
    for (i = 0; i < shnum; i++) {
        const uint8_t *sh = b + shoff + (uint64_t)i * 64;
        if (pt2_le32(sh + 4) == 7 /* SHT_NOTE */) {
            uint64_t off = pt2_le64(sh + 24);
            b[off] = 0xff;
            b[off + 1] = 0xff;
        }
    }
    memset(&k, 0, sizeof(k));
    pt2_rd_init_mem(&rd, b, n, "sm_100f.cubin");
    ck_assert_int_eq(pt2_cubin_scan(&rd, 0, n, &k, &err), PT2_OK);
    ck_assert_uint_eq(k.sm, 100);
    ck_assert_int_eq(k.variant, 0); /* 'f' lived only in tkinfo */
    ck_assert_uint_eq(k.virtual_sm, 0);
    ck_assert_uint_eq(k.toolkit, 0);
    free(b);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cubin");
    TCase *tc = tcase_create("core");

    tcase_add_loop_test(tc, test_every_reference_cubin, 0, (int)(sizeof(cases) / sizeof(cases[0])));
    tcase_add_test(tc, test_arch_option_parsing);
    tcase_add_test(tc, test_compat_tlv);
    tcase_add_test(tc, test_known_sm);
    tcase_add_test(tc, test_unknown_abi_fallback);
    tcase_add_test(tc, test_not_a_cubin_and_malformed);
    tcase_add_test(tc, test_garbage_notes_are_ignored);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
