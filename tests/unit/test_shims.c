/*
 * test_shims.c - the generated shim table against its source file, the
 * classification of undefined symbols, and the torch floor of a library.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_needs.h"
#include "pt2_shims.h"
#include "testutil.h"

/* "2.7-2.9" -> lo 207, hi 209; "2.3?" -> 203 both; "" -> 0. */
static void release(const char *s, unsigned *lo, unsigned *hi)
{
    unsigned a = 0, b = 0, c = 0, d = 0;

    *lo = *hi = 0;
    if (s[0] == '\0')
        return;
    if (sscanf(s, "%u.%u-%u.%u", &a, &b, &c, &d) == 4) {
        *lo = a * 100 + b;
        *hi = c * 100 + d;
    } else if (sscanf(s, "%u.%u", &a, &b) == 2) {
        *lo = *hi = a * 100 + b;
    }
}

/* Every row of service/lib/data/shim-versions.tsv is in the built table, as written. */
START_TEST(test_table_matches_tsv)
{
    size_t n = 0, rows = 0;
    char *text = (char *)tu_read_file("service/lib/data/shim-versions.tsv", &n);
    char *save = NULL, *line;

    ck_assert_ptr_nonnull(text);
    text = realloc(text, n + 1);
    text[n] = '\0';
    line = strtok_r(text, "\n", &save); /* header */
    ck_assert_str_eq(line, "name\tfirst_release\tlast_release\theader\tsource");
    while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
        char *f[5] = {0}, *s2 = NULL, *p = line;
        unsigned lo, hi, llo, lhi;
        const struct pt2_shim *sh;

        for (int k = 0; k < 5; k++) {
            f[k] = p;
            p = strchr(p, '\t');
            if (p == NULL)
                break;
            *p++ = '\0';
        }
        (void)s2;
        ck_assert_ptr_nonnull(f[2]);
        sh = pt2_shims_find(f[0]);
        ck_assert_msg(sh != NULL, "%s missing from the table", f[0]);
        release(f[1], &lo, &hi);
        release(f[2], &llo, &lhi);
        ck_assert_uint_eq(sh->first_lo, lo);
        ck_assert_uint_eq(sh->first_hi, hi);
        ck_assert_uint_eq(sh->last_lo, llo);
        ck_assert_uint_eq(sh->last_hi, lhi);
        ck_assert_int_eq(sh->nightly, strchr(f[1], '?') != NULL);
        rows++;
    }
    ck_assert_uint_eq(rows, pt2_shims_count());
    ck_assert_uint_eq(rows, 3243);
    ck_assert_ptr_null(pt2_shims_find("aoti_torch_not_a_shim"));
    free(text);
}
END_TEST

START_TEST(test_classify)
{
    static const struct {
        const char *name;
        int kind;
        size_t prefix;
    } cases[] = {
        {"aoti_torch_empty_strided", PT2_IMP_SHIM, 0},
        {"torch_new_list_reserve_size", PT2_IMP_SHIM, 0},
        {"aoti_torch_cuda_int4_plain_mm", PT2_IMP_CUSTOM_SHIM, 0},
        {"torch_something_else", PT2_IMP_OTHER, 0},
        {"slim_aoti_torch_empty_strided", PT2_IMP_PREFIXED_SHIM, 5},
        {"_ZN5torch12aot_inductor31tensor_handle_to_tensor_pointerEP16AtenTensorOpaque",
         PT2_IMP_LIBTORCH_CXX, 0},
        {"_ZN3c107WarningC1ESt7variantIJNS0_11UserWarningENS0_18DeprecationWarningEEE",
         PT2_IMP_LIBTORCH_CXX, 0},
        {"_Z16aoti_torch_dtypeIN3c104HalfEEiv", PT2_IMP_LIBTORCH_CXX, 0},
        {"_ZNK2at10TensorBase4sizeEl", PT2_IMP_LIBTORCH_CXX, 0},
        {"_ZNSt6localeC1Ev", PT2_IMP_OTHER, 0},
        {"_ZN2atomicFoo", PT2_IMP_OTHER, 0},
        /* MSVC names (clang --target=x86_64-pc-windows-msvc): the outermost scope decides */
        {"?empty@at@@YA?AUTensor@1@_J@Z", PT2_IMP_LIBTORCH_CXX, 0},
        {"??1Tensor@at@@QEAA@XZ", PT2_IMP_LIBTORCH_CXX, 0},
        {"?torchCheckFail@detail@c10@@YAXPEBD@Z", PT2_IMP_LIBTORCH_CXX, 0},
        {"?tensor_handle_to_tensor_pointer@aot_inductor@torch@@YAPEAXPEAX@Z", PT2_IMP_LIBTORCH_CXX,
         0},
        {"?at@vec@std2@@QEAAHH@Z", PT2_IMP_OTHER, 0},
        {"?x@at@std@@YAXXZ", PT2_IMP_OTHER, 0},
        {"cudaLaunchKernel", PT2_IMP_CUDA, 0},
        {"cuModuleLoadData", PT2_IMP_CUDA, 0},
        {"__cudaRegisterFatBinary", PT2_IMP_CUDA, 0},
        {"curand", PT2_IMP_OTHER, 0},
        {"hipModuleLaunchKernel", PT2_IMP_HIP, 0},
        {"memcpy", PT2_IMP_OTHER, 0},
        {"Sleef_tanhf16_u10", PT2_IMP_OTHER, 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct pt2_shim *s;
        size_t plen = 99;
        int kind = pt2_shims_classify(cases[i].name, &s, &plen);

        ck_assert_msg(kind == cases[i].kind, "%s: kind %d, want %d", cases[i].name, kind,
                      cases[i].kind);
        ck_assert_uint_eq(plen, cases[i].prefix);
        ck_assert_int_eq(s != NULL, kind == PT2_IMP_SHIM || (kind == PT2_IMP_PREFIXED_SHIM));
    }
}
END_TEST

START_TEST(test_release_parse)
{
    unsigned r = 0;
    char buf[16];

    ck_assert_int_eq(pt2_shims_release_parse("2.8", &r), PT2_OK);
    ck_assert_uint_eq(r, 208);
    ck_assert_int_eq(pt2_shims_release_parse("2.10.1", &r), PT2_OK);
    ck_assert_uint_eq(r, 210);
    ck_assert_int_eq(pt2_shims_release_parse("2.8.0+cu128", &r), PT2_OK);
    ck_assert_uint_eq(r, 208);
    ck_assert_int_eq(pt2_shims_release_parse("2", &r), PT2_ERR_INVALID);
    ck_assert_int_eq(pt2_shims_release_parse("2.x", &r), PT2_ERR_INVALID);
    ck_assert_int_eq(pt2_shims_release_parse("", &r), PT2_ERR_INVALID);
    ck_assert_int_eq(pt2_shims_release_parse("2.8x", &r), PT2_ERR_INVALID);
    ck_assert_int_eq(pt2_shims_release_parse("200.1", &r), PT2_ERR_INVALID);
    ck_assert_str_eq(pt2_shims_release_text(214, buf, sizeof(buf)), "2.14");
    ck_assert_str_eq(pt2_shims_release_text(0, buf, sizeof(buf)), "");
}
END_TEST

static void add(struct pt2_needs *n, const char *name, int weak)
{
    struct pt2_error err = {0};
    ck_assert_int_eq(pt2_needs_add_import(n, name, -1, weak, &err), PT2_OK);
}

/* The floor of mlcolvar's imports (runtime-needs.md §1) and the notation's cases. */
START_TEST(test_floor)
{
    struct pt2_needs *n = pt2_needs_new(1);
    struct pt2_torch_floor f;

    add(n, "aoti_torch_empty_strided", 0);      /* 2.2 */
    add(n, "aoti_torch_new_tensor_handle", 0);  /* 2.7-2.9 */
    add(n, "aoti_torch_abi_version", 1);        /* weak: not a need */
    add(n, "aoti_torch_cuda_int4_plain_mm", 0); /* custom */
    add(n, "_ZN3c106detail14torchCheckFailEPKcS2_jS2_", 0);
    pt2_shims_classify_needs(n);
    pt2_shims_floor_init(&f);
    pt2_shims_floor_add(&f, n);
    ck_assert_uint_eq(f.min, 207);
    ck_assert_uint_eq(f.sure_from, 209);
    ck_assert_str_eq(f.because, "aoti_torch_new_tensor_handle");
    ck_assert_uint_eq(f.shims, 2);
    ck_assert_uint_eq(f.custom, 1);
    ck_assert_str_eq(f.unknown[0], "aoti_torch_cuda_int4_plain_mm");
    ck_assert_uint_eq(f.cxx, 1);
    ck_assert_uint_eq(f.max_hi, 0);
    ck_assert_int_eq(f.nightly, 0);
    pt2_needs_free(n);

    /* a name removed after 2.6-2.8, and a nightly-only one */
    n = pt2_needs_new(1);
    add(n, "aoti_torch_cpu__qconv2d_pointwise_tensor", 0);
    pt2_shims_classify_needs(n);
    pt2_shims_floor_init(&f);
    pt2_shims_floor_add(&f, n);
    ck_assert_uint_eq(f.min, 206);
    ck_assert_uint_eq(f.max_lo, 206);
    ck_assert_uint_eq(f.max_hi, 208);
    pt2_needs_free(n);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("shims");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_table_matches_tsv);
    tcase_add_test(tc, test_classify);
    tcase_add_test(tc, test_release_parse);
    tcase_add_test(tc, test_floor);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run_suite(suite());
}
