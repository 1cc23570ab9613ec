/*
 * test_wrapper.c - I/O facts from AOTInductor wrapper sources (pt2_wrapper).
 *
 * Fixtures under tests/fixtures/wrapper/ follow the generated code of each
 * torch generation; smaller cases are inline. Where the shared corpus is
 * present, every wrapper of every real package there is scanned too.
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

#include "pt2_wrapper.h"
#include "testutil.h"

/* ---- helpers ---- */

/* Scan `len` bytes fed in chunks of `chunk` (0 = one piece). */
static void scan(const char *text, size_t len, size_t chunk, size_t cap, const char *model,
                 struct pt2_wrapper_info *info)
{
    struct pt2_error err = {0};
    pt2_wrapper_scan *s = NULL;
    size_t off = 0, n;
    int rc;

    rc = pt2_wrapper_scan_new(&s, model, cap, &err);
    ck_assert_msg(rc == PT2_OK, "new: %s", err.message);
    if (chunk == 0)
        chunk = len > 0 ? len : 1;
    while (off < len) {
        n = len - off < chunk ? len - off : chunk;
        rc = pt2_wrapper_scan_feed(s, text + off, n, &err);
        ck_assert_msg(rc == PT2_OK, "feed: %s", err.message);
        off += n;
    }
    rc = pt2_wrapper_scan_finish(s, info, &err);
    ck_assert_msg(rc == PT2_OK, "finish: %s", err.message);
    pt2_wrapper_scan_free(s);
}

static void scan_str(const char *text, struct pt2_wrapper_info *info)
{
    scan(text, strlen(text), 0, 0, "m", info);
}

static char *load(const char *name, size_t *len)
{
    char path[256], rel[128];
    char *buf;

    snprintf(rel, sizeof(rel), "wrapper/%s", name);
    buf = (char *)tu_read_file(tu_fixture(rel, path, sizeof(path)), len);
    ck_assert_msg(buf != NULL, "cannot read %s", path);
    return buf;
}

/* "name dtype (3, s0[2..4000], ?[2..-])": exact and compact. */
static const char *desc(const struct pt2_tensor *t, char *buf, size_t len)
{
    size_t used;
    int i;

    snprintf(buf, len, "%s %s ", t->name, t->dtype[0] ? t->dtype : "-");
    if (t->ndim < 0) {
        used = strlen(buf);
        snprintf(buf + used, len - used, "unknown");
        return buf;
    }
    used = strlen(buf);
    snprintf(buf + used, len - used, "(");
    for (i = 0; i < t->ndim; i++) {
        const struct pt2_dim *d = &t->dims[i];
        char lo[24], hi[24];

        used = strlen(buf);
        if (d->size >= 0) {
            snprintf(buf + used, len - used, "%s%lld", i ? ", " : "", (long long)d->size);
            continue;
        }
        snprintf(lo, sizeof(lo), "%lld", (long long)d->min);
        snprintf(hi, sizeof(hi), "%lld", (long long)d->max);
        snprintf(buf + used, len - used, "%s%s[%s..%s]", i ? ", " : "",
                 d->symbol[0] ? d->symbol : "?", d->min >= 0 ? lo : "-", d->max >= 0 ? hi : "-");
    }
    used = strlen(buf);
    snprintf(buf + used, len - used, ")");
    return buf;
}

static const char *in_desc(const struct pt2_wrapper_info *w, size_t i, char *buf, size_t len)
{
    ck_assert_uint_lt(i, w->inputs.n);
    return desc(&w->inputs.v[i], buf, len);
}

static const char *out_desc(const struct pt2_wrapper_info *w, size_t i, char *buf, size_t len)
{
    ck_assert_uint_lt(i, w->outputs.n);
    return desc(&w->outputs.v[i], buf, len);
}

static void check_dtype_stat(const struct pt2_constants *c, size_t i, const char *dtype,
                             uint64_t count, uint64_t bytes, uint64_t elements)
{
    ck_assert_uint_lt(i, c->ndtypes);
    ck_assert_str_eq(c->dtypes[i].dtype, dtype);
    ck_assert_uint_eq(c->dtypes[i].count, count);
    ck_assert_uint_eq(c->dtypes[i].bytes, bytes);
    ck_assert_uint_eq(c->dtypes[i].elements, elements);
}

/* Everything the scan reports, as one comparable text. */
static char *render(const struct pt2_wrapper_info *w)
{
    size_t cap = 65536, used = 0, i;
    char *out = malloc(cap), line[4096], d[2048];
    const struct pt2_constants *c = &w->constants;

    ck_assert_ptr_nonnull(out);
    out[0] = '\0';
#define ADD(...)                                                                                   \
    do {                                                                                           \
        snprintf(line, sizeof(line), __VA_ARGS__);                                                 \
        ck_assert_uint_lt(used + strlen(line), cap);                                               \
        memcpy(out + used, line, strlen(line) + 1);                                                \
        used += strlen(line);                                                                      \
    } while (0)
    ADD("found=%d in=%lld out=%lld checks=%d checked=%zu spec=%d/%d bytes=%llu cut=%d\n", w->found,
        (long long)w->declared_inputs, (long long)w->declared_outputs, w->checks, w->checked_inputs,
        w->has_in_spec, w->has_out_spec, (unsigned long long)w->bytes_scanned, w->cut);
    for (i = 0; i < w->inputs.n; i++)
        ADD("in %s\n", desc(&w->inputs.v[i], d, sizeof(d)));
    for (i = 0; i < w->outputs.n; i++)
        ADD("out %s\n", desc(&w->outputs.v[i], d, sizeof(d)));
    ADD("const %lld %llu %llu %llu %llu %llu %llu %llu %llu %llu\n", (long long)c->declared,
        (unsigned long long)c->count, (unsigned long long)c->bytes, (unsigned long long)c->elements,
        (unsigned long long)c->missing_size, (unsigned long long)c->missing_shape,
        (unsigned long long)c->parameters, (unsigned long long)c->buffers,
        (unsigned long long)c->tensor_constants, (unsigned long long)c->folded);
    for (i = 0; i < c->ndtypes; i++)
        ADD("dtype [%s] %llu %llu %llu\n", c->dtypes[i].dtype,
            (unsigned long long)c->dtypes[i].count, (unsigned long long)c->dtypes[i].bytes,
            (unsigned long long)c->dtypes[i].elements);
    for (i = 0; i < w->nwarnings; i++)
        ADD("warn %s\n", w->warnings[i]);
    ADD("dropped %zu\n", w->warnings_dropped);
#undef ADD
    return out;
}

/* ---- names only (torch 2.4) ---- */

START_TEST(test_names_only_v24)
{
    struct pt2_wrapper_info w;
    char buf[256], *text;
    size_t len;

    text = load("names_only_v24.cpp", &len);
    scan(text, len, 0, 0, "model", &w);
    ck_assert_int_eq(w.found, 1);
    ck_assert_int_eq(w.declared_inputs, 2);
    ck_assert_int_eq(w.declared_outputs, 1);
    ck_assert_int_eq(w.checks, PT2_WRAPPER_CHECKS_NONE);
    ck_assert_uint_eq(w.checked_inputs, 0);
    ck_assert_uint_eq(w.inputs.n, 2);
    ck_assert_str_eq(in_desc(&w, 0, buf, sizeof(buf)), "arg3_1 - unknown");
    ck_assert_str_eq(in_desc(&w, 1, buf, sizeof(buf)), "arg4_1 - unknown");
    ck_assert_uint_eq(w.outputs.n, 1);
    ck_assert_str_eq(out_desc(&w, 0, buf, sizeof(buf)), "output0 - unknown");
    /* in_spec_ = "" records nothing */
    ck_assert_int_eq(w.has_in_spec, 0);
    ck_assert_int_eq(w.has_out_spec, 0);

    /* at::kFloat / at::kBFloat16 / at::kLong; a 0-d constant has one element */
    ck_assert_int_eq(w.constants.declared, 3);
    ck_assert_uint_eq(w.constants.count, 3);
    ck_assert_uint_eq(w.constants.bytes, 8192 + 128 + 8);
    ck_assert_uint_eq(w.constants.elements, 2048 + 64 + 1);
    ck_assert_uint_eq(w.constants.missing_size, 0);
    ck_assert_uint_eq(w.constants.missing_shape, 0);
    ck_assert_uint_eq(w.constants.parameters, 0); /* no .type lines in 2.4 */
    ck_assert_uint_eq(w.constants.ndtypes, 3);
    check_dtype_stat(&w.constants, 0, "float32", 1, 8192, 2048);
    check_dtype_stat(&w.constants, 1, "bfloat16", 1, 128, 64);
    check_dtype_stat(&w.constants, 2, "int64", 1, 8, 1);

    ck_assert_int_eq(w.cut, 0);
    ck_assert_uint_eq(w.bytes_scanned, len);
    ck_assert_uint_eq(w.nwarnings, 2);
    ck_assert_str_eq(w.warnings[0],
                     "the wrapper records input names but no dtypes or shapes for model 'model'");
    ck_assert_str_eq(w.warnings[1],
                     "the wrapper records output names but no dtypes or shapes for model 'model'");
    pt2_wrapper_info_free(&w);
    free(text);
}
END_TEST

/* ---- inline checks (torch 2.5 debug_compile) ---- */

START_TEST(test_inline_checks_v25)
{
    struct pt2_wrapper_info w;
    char buf[256], *text;
    size_t len;

    text = load("inline_checks_v25.cpp", &len);
    scan(text, len, 0, 0, NULL, &w);
    ck_assert_int_eq(w.found, 1);
    /* AOTInductorModelBase(3,\n 1,\n 1,\n device_str, ...) */
    ck_assert_int_eq(w.declared_inputs, 3);
    ck_assert_int_eq(w.declared_outputs, 1);
    ck_assert_int_eq(w.constants.declared, 1);
    ck_assert_int_eq(w.checks, PT2_WRAPPER_CHECKS_INLINE);
    ck_assert_uint_eq(w.checked_inputs, 3);
    ck_assert_uint_eq(w.inputs.n, 3);
    /* the run_impl binding `auto s0 = arg1_1_size[0];` names the first dim */
    ck_assert_str_eq(in_desc(&w, 0, buf, sizeof(buf)), "arg1_1 int64 (s0[2..512])");
    ck_assert_str_eq(in_desc(&w, 1, buf, sizeof(buf)), "arg2_1 bool (?[2..512], 16)");
    /* dtype checked, but no size or stride checks: the rank is not recorded */
    ck_assert_str_eq(in_desc(&w, 2, buf, sizeof(buf)), "arg3_1 float32 unknown");
    ck_assert_int_eq(w.has_in_spec, 1);
    ck_assert_int_eq(w.has_out_spec, 1);
    ck_assert_uint_eq(w.constants.count, 1);
    check_dtype_stat(&w.constants, 0, "float32", 1, 4000, 1000);
    ck_assert_uint_eq(w.nwarnings, 2);
    ck_assert_str_eq(w.warnings[0],
                     "the wrapper records no complete shape for 1 input(s) of the model: arg3_1");
    ck_assert_str_eq(w.warnings[1],
                     "the wrapper records output names but no dtypes or shapes for the model");
    pt2_wrapper_info_free(&w);
    free(text);
}
END_TEST

/* ---- per-input check functions (torch 2.9): bf16, fp8, int64, bool, fp16 ---- */

START_TEST(test_check_functions_v29)
{
    struct pt2_wrapper_info w;
    char buf[256], *text;
    size_t len;

    text = load("check_functions_v29.wrapper.cpp", &len);
    scan(text, len, 0, 0, "model", &w);
    ck_assert_int_eq(w.checks, PT2_WRAPPER_CHECKS_FUNCTIONS);
    ck_assert_int_eq(w.declared_inputs, 5);
    ck_assert_int_eq(w.declared_outputs, 2);
    ck_assert_uint_eq(w.checked_inputs, 5);
    ck_assert_uint_eq(w.inputs.n, 5);
    ck_assert_str_eq(in_desc(&w, 0, buf, sizeof(buf)), "arg0_1 bfloat16 (s0[2..1024], 10)");
    /* s0 is bound once (from arg0_1): arg1_1's dim 0 keeps its bounds, no symbol;
     * an upper bound of 2^63-1 is torch's int_oo: unbounded */
    ck_assert_str_eq(in_desc(&w, 1, buf, sizeof(buf)),
                     "arg1_1 float8_e4m3fn (?[2..1024], s1[2..-])");
    ck_assert_str_eq(in_desc(&w, 2, buf, sizeof(buf)), "arg2_1 int64 (4)");
    ck_assert_str_eq(in_desc(&w, 3, buf, sizeof(buf)), "arg3_1 bool (8, 7)");
    /* 2*s2: `int64_t arg4_1_size_0 = arg4_1_size[0];` is no symbol */
    ck_assert_str_eq(in_desc(&w, 4, buf, sizeof(buf)), "arg4_1 float16 (?[4..2048])");
    ck_assert_uint_eq(w.outputs.n, 2);
    ck_assert_str_eq(out_desc(&w, 1, buf, sizeof(buf)), "output1 - unknown");
    ck_assert_int_eq(w.has_in_spec, 1);
    ck_assert_int_eq(w.has_out_spec, 1);

    ck_assert_int_eq(w.constants.declared, 7);
    ck_assert_uint_eq(w.constants.count, 7);
    ck_assert_uint_eq(w.constants.bytes, 10240 + 512 + 256 + 24 + 16 + 8);
    ck_assert_uint_eq(w.constants.elements, 2560 + 256 + 256 + 3 + 4 + 4 + 1);
    ck_assert_uint_eq(w.constants.missing_size, 1);
    ck_assert_uint_eq(w.constants.missing_shape, 0);
    ck_assert_uint_eq(w.constants.parameters, 3);
    ck_assert_uint_eq(w.constants.buffers, 2);
    ck_assert_uint_eq(w.constants.tensor_constants, 1);
    ck_assert_uint_eq(w.constants.folded, 1);
    ck_assert_uint_eq(w.constants.ndtypes, 5);
    check_dtype_stat(&w.constants, 0, "float32", 2, 10256, 2564);
    /* static_cast<int32_t>(15): c10 code of BFloat16 */
    check_dtype_stat(&w.constants, 1, "bfloat16", 2, 520, 260);
    check_dtype_stat(&w.constants, 2, "float8_e4m3fn", 1, 256, 256);
    check_dtype_stat(&w.constants, 3, "int64", 1, 24, 3);
    /* code 99 is no c10 dtype: counted as unknown, never guessed */
    check_dtype_stat(&w.constants, 4, "", 1, 0, 1);

    ck_assert_uint_eq(w.nwarnings, 1);
    ck_assert_str_eq(w.warnings[0],
                     "the wrapper records output names but no dtypes or shapes for model 'model'");
    pt2_wrapper_info_free(&w);
    free(text);
}
END_TEST

/* ---- dynamic bounds in every spelling ---- */

static const char *const bounds_text =
    "    : AOTInductorModelBase(4, 0, 0, device_str, cubin_dir) {\n"
    "    inputs_info_[0].name = \"x\";\n"
    "    inputs_info_[1].name = \"y\";\n"
    "    inputs_info_[2].name = \"z\";\n"
    "    inputs_info_[3].name = \"gap\";\n"
    "}\n"
    "AOTI_NOINLINE static void check_input_0(AtenTensorHandle* input_handles) {\n"
    "    ConstantHandle x = ConstantHandle(input_handles[0]);\n"
    "    int32_t x_expected_dtype = aoti_torch_dtype_float32();\n"
    "    if (x_size[0] < 1) {\n"                   /* lower bound only */
    "    if (x_size[1] > 77) {\n"                  /* upper bound only */
    "    if (2 > x_size[2]) {\n"                   /* swapped: min 2 */
    "    if (64 < x_size[2]) {\n"                  /* swapped: max 64 */
    "    if (x_size[3] <= 2) {\n"                  /* min 3 */
    "    if (x_size[3] >= 9) {\n"                  /* max 8 */
    "    if (5L != x_size[4]) {\n"                 /* fixed, with a suffix */
    "    if (x_size[5] > 9223372036854775807) {\n" /* int_oo: no bound */
    "    if (x_size[5] < 0) {\n"
    "    if (!(x_size[6] >= 3)) {\n"  /* negated requirement: min 3 */
    "    if (!(30 >= x_size[6])) {\n" /* max 30 */
    "}\n"
    "AOTI_NOINLINE static void check_input_1(AtenTensorHandle* input_handles) {\n"
    "    ConstantHandle y = ConstantHandle(input_handles[1]);\n"
    "    int32_t y_expected_dtype = aoti_torch_dtype_int32();\n"
    "    if (y_size[0] == 3) {\n" /* not a generated check: ignored */
    "    if (1 != y_stride[0]) {\n"
    "}\n"
    "AOTI_NOINLINE static void check_input_2(AtenTensorHandle* input_handles) {\n"
    "    ConstantHandle z = ConstantHandle(input_handles[2]);\n"
    "    int32_t z_expected_dtype = aoti_torch_dtype_uint8();\n"
    "    if (7 != z_size[0]) {\n"
    "    if (7 != x_size[1]) {\n" /* another input's name: not z's */
    "}\n"
    "AOTI_NOINLINE static void check_input_3(AtenTensorHandle* input_handles) {\n"
    "    ConstantHandle gap = ConstantHandle(input_handles[3]);\n"
    "    int32_t gap_expected_dtype = aoti_torch_dtype_float64();\n"
    "    if (3 != gap_size[0]) {\n"
    "    if (3 != gap_size[2]) {\n" /* dim 1 unchecked: rank at least 3 */
    "}\n";

START_TEST(test_dynamic_bounds)
{
    struct pt2_wrapper_info w;
    char buf[256];

    scan_str(bounds_text, &w);
    ck_assert_uint_eq(w.inputs.n, 4);
    ck_assert_str_eq(in_desc(&w, 0, buf, sizeof(buf)),
                     "x float32 (?[1..-], ?[-..77], ?[2..64], ?[3..8], 5, ?[0..-], ?[3..30])");
    ck_assert_int_eq(w.inputs.v[0].dims[4].min, -1);
    ck_assert_int_eq(w.inputs.v[0].dims[4].max, -1);
    /* a stride check proves dim 0 exists, but its size is unchecked */
    ck_assert_str_eq(in_desc(&w, 1, buf, sizeof(buf)), "y int32 unknown");
    ck_assert_str_eq(in_desc(&w, 2, buf, sizeof(buf)), "z uint8 (7)");
    ck_assert_str_eq(in_desc(&w, 3, buf, sizeof(buf)), "gap float64 unknown");
    ck_assert_uint_eq(w.nwarnings, 1);
    ck_assert_str_eq(w.warnings[0],
                     "the wrapper records no complete shape for 2 input(s) of model 'm': y, gap");
    pt2_wrapper_info_free(&w);
}
END_TEST

/* ---- symbols shared between inputs ---- */

/* torch 2.1 constructor form: dtype strings, pushed dims, make_dynamic_dim. */
static const char *const v21_text =
    "AOTInductorModel::AOTInductorModel(std::shared_ptr<ConstantMap> constants_map, "
    "std::optional<std::string> cubin_dir)\n"
    "    : AOTInductorModelBase(2, 1, 0, cubin_dir) {\n"
    "    auto s0 = make_dynamic_dim(\"s0\", 2, 2048);\n"
    "    auto s1 = make_dynamic_dim(\"s1\", 1, 9223372036854775806);\n"
    "    inputs_info_[0].name = \"input0\";\n"
    "    inputs_info_[0].dtype = \"torch.float16\";\n"
    "    inputs_info_[0].shape.reserve(2);\n"
    "    inputs_info_[0].shape.push_back(s0);\n"
    "    inputs_info_[0].shape.push_back(make_static_dim(64));\n"
    "    inputs_info_[1].name = \"input1\";\n"
    "    inputs_info_[1].dtype = \"torch.int64\";\n"
    "    inputs_info_[1].shape.reserve(3);\n"
    "    inputs_info_[1].shape.push_back(s1);\n"
    "    inputs_info_[1].shape.push_back(s0);\n"
    "    inputs_info_[1].shape.push_back(make_static_dim(3));\n"
    "    constants_ = constants_map;\n"
    "    outputs_info_[0].name = \"output0\";\n"
    "    outputs_info_[0].dtype = \"torch.float16\";\n"
    "    outputs_info_[0].shape.reserve(2);\n"
    "    outputs_info_[0].shape.push_back(s0);\n"
    "    outputs_info_[0].shape.push_back(make_static_dim(10));\n"
    "}\n";

/* Checks plus bindings: the bounds of a symbol reach every dim bound to it. */
static const char *const shared_text =
    "    : AOTInductorModelBase(2, 1, 0, device_str, cubin_dir) {\n"
    "    inputs_info_[0].name = \"tokens\";\n"
    "    inputs_info_[1].name = \"mask\";\n"
    "    outputs_info_[0].name = \"logits\";\n"
    "}\n"
    "AOTI_NOINLINE static void __check_inputs_outputs(\n"
    "    ConstantHandle tokens = ConstantHandle(input_handles[0]);\n"
    "    int32_t tokens_expected_dtype = aoti_torch_dtype_int64();\n"
    "    if (tokens_size[0] < 2) {\n"
    "    if (tokens_size[0] > 32) {\n"
    "    if (tokens_size[1] < 1) {\n"
    "    if (tokens_size[1] > 4096) {\n"
    "    ConstantHandle mask = ConstantHandle(input_handles[1]);\n"
    "    int32_t mask_expected_dtype = aoti_torch_dtype_bool();\n"
    "    if (mask_size[0] < 0) {\n"
    "    if (mask_size[1] < 0) {\n"
    "}\n"
    "void AOTInductorModel::run_impl(\n"
    "    auto tokens_size = tokens.sizes();\n"
    "    int64_t s0 = tokens_size[0];\n"
    "    int64_t s1 = tokens_size[1];\n"
    "    auto mask_size = mask.sizes();\n"
    "    s0 = mask_size[0];\n"
    "    int64_t s1 = mask_size[1];\n"
    "    inputs.clear();\n";

START_TEST(test_shared_symbols)
{
    struct pt2_wrapper_info w;
    char buf[256];

    scan_str(v21_text, &w);
    ck_assert_int_eq(w.checks, PT2_WRAPPER_CHECKS_NONE);
    ck_assert_uint_eq(w.checked_inputs, 2);
    ck_assert_str_eq(in_desc(&w, 0, buf, sizeof(buf)), "input0 float16 (s0[2..2048], 64)");
    /* s1's upper bound is beyond 2^53: unbounded */
    ck_assert_str_eq(in_desc(&w, 1, buf, sizeof(buf)), "input1 int64 (s1[1..-], s0[2..2048], 3)");
    ck_assert_str_eq(out_desc(&w, 0, buf, sizeof(buf)), "output0 float16 (s0[2..2048], 10)");
    ck_assert_uint_eq(w.nwarnings, 0);
    pt2_wrapper_info_free(&w);

    scan_str(shared_text, &w);
    ck_assert_int_eq(w.checks, PT2_WRAPPER_CHECKS_INLINE);
    ck_assert_str_eq(in_desc(&w, 0, buf, sizeof(buf)), "tokens int64 (s0[2..32], s1[1..4096])");
    ck_assert_str_eq(in_desc(&w, 1, buf, sizeof(buf)), "mask bool (s0[2..32], s1[1..4096])");
    ck_assert_str_eq(out_desc(&w, 0, buf, sizeof(buf)), "logits - unknown");
    pt2_wrapper_info_free(&w);
}
END_TEST

/* torch >= 2.8: a second input sharing a dim is bound only by run_impl's assert_size_stride
 * line (AOTI_RUNTIME_CHECK_INPUTS), which comes after the prologue, at the input's first use
 * (as torch 2.14.1 writes it: tests/fixtures/torch/t214_two_models.pt2, model 'embed'). */
static const char *const assert_text =
    "    : AOTInductorModelBase(2, 1, 2, \"cpu\", std::nullopt, true) {\n"
    "    inputs_info_[0].name = \"arg2_1\";\n"
    "    inputs_info_[1].name = \"arg3_1\";\n"
    "    outputs_info_[0].name = \"output0\";\n"
    "}\n"
    "AOTI_NOINLINE static void check_input_0(\n"
    "    ConstantHandle arg2_1 = ConstantHandle(input_handles[0]);\n"
    "    int32_t arg2_1_expected_dtype = aoti_torch_dtype_int64();\n"
    "    if (2 != arg2_1_size[0]) {\n"
    "    if (arg2_1_size[1] < 2) {\n"
    "    if (arg2_1_size[1] > 512) {\n"
    "}\n"
    "AOTI_NOINLINE static void check_input_1(\n"
    "    ConstantHandle arg3_1 = ConstantHandle(input_handles[1]);\n"
    "    int32_t arg3_1_expected_dtype = aoti_torch_dtype_float32();\n"
    "    if (2 != arg3_1_size[0]) {\n"
    "    if (arg3_1_size[1] < 2) {\n"
    "    if (arg3_1_size[1] > 512) {\n"
    "}\n"
    "void AOTInductorModel::run_impl(\n"
    "    auto arg2_1_size = arg2_1.sizes();\n"
    "    int64_t s27 = arg2_1_size[1];\n"
    "    int64_t s64 = s27;\n"
    "    inputs.clear();\n"
    "    [[maybe_unused]] auto& kernels = "
    "static_cast<AOTInductorModelKernels&>(*this->kernels_.get());\n"
    "    if (_check_aoti_runtime_check_inputs_env()) { assert_size_stride(arg2_1, {2L, s27}, {s27, "
    "1L}, \"input\"); }\n"
    "    const int64_t int_array_0[] = {2L, s27, 32L};\n"
    "    if (_check_aoti_runtime_check_inputs_env()) { assert_size_stride(arg3_1, {2L, s27}, {s27, "
    "1L}, \"input\"); }\n"
    "    inputs_info_[1].name = \"late\";\n";

START_TEST(test_assert_size_stride)
{
    struct pt2_error err = {0};
    struct pt2_wrapper_info w;
    pt2_wrapper_scan *s = NULL;
    const char *at, *late;
    char buf[256], *text;
    size_t len, cap, pad = 70 * 1024;

    scan_str(assert_text, &w);
    ck_assert_str_eq(in_desc(&w, 0, buf, sizeof(buf)), "arg2_1 int64 (2, s27[2..512])");
    ck_assert_str_eq(in_desc(&w, 1, buf, sizeof(buf)), "arg3_1 float32 (2, s27[2..512])");
    pt2_wrapper_info_free(&w);

    /* read on past the prologue while a dim is unnamed, and no further than every input's
     * assert: the line after the last one is never looked at */
    ck_assert_int_eq(pt2_wrapper_scan_new(&s, "m", 0, &err), PT2_OK);
    at = strstr(assert_text, "    [[maybe_unused]]");
    ck_assert_int_eq(pt2_wrapper_scan_feed(s, assert_text, (size_t)(at - assert_text), &err),
                     PT2_OK);
    ck_assert_int_eq(pt2_wrapper_scan_wants_more(s), 1);
    late = strstr(assert_text, "    inputs_info_[1].name = \"late\"");
    ck_assert_int_eq(pt2_wrapper_scan_feed(s, at, (size_t)(late - at), &err), PT2_OK);
    ck_assert_int_eq(pt2_wrapper_scan_wants_more(s), 0);
    ck_assert_int_eq(pt2_wrapper_scan_feed(s, late, strlen(late), &err), PT2_OK);
    ck_assert_int_eq(pt2_wrapper_scan_finish(s, &w, &err), PT2_OK);
    ck_assert_str_eq(in_desc(&w, 1, buf, sizeof(buf)), "arg3_1 float32 (2, s27[2..512])");
    pt2_wrapper_info_free(&w);
    pt2_wrapper_scan_free(s);

    /* a derived dim (torch.export's 2*b: tests/fixtures/torch/t214_derived.pt2) is named as
     * sympy prints it; other expressions name nothing */
    {
        static const struct {
            const char *size, *want;
        } forms[] = {{"2L*s27", "2*s27"},   {"s27 + 1L", "s27 + 1"}, {"2L*s27 - 3L", "2*s27 - 3"},
                     {"2L * s27", "2*s27"}, {"s27*2L", "?"},         {"(s27 + 1L)", "?"},
                     {"s27 + s28", "?"},    {"0L*s27", "?"},         {"2L*s27 + 0L", "?"}};
        char line[256], *t;
        size_t tl;

        for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
            const char *cut = strstr(assert_text, "    if (_check");
            char want[64];

            tl = (size_t)(cut - assert_text);
            snprintf(line, sizeof(line), "    assert_size_stride(arg3_1, {2L, %s}, {1L});\n",
                     forms[i].size);
            t = malloc(tl + strlen(line) + 1);
            ck_assert_ptr_nonnull(t);
            memcpy(t, assert_text, tl);
            memcpy(t + tl, line, strlen(line) + 1);
            scan_str(t, &w);
            snprintf(want, sizeof(want), "arg3_1 float32 (2, %s[2..512])", forms[i].want);
            ck_assert_str_eq(in_desc(&w, 1, buf, sizeof(buf)), want);
            pt2_wrapper_info_free(&w);
            free(t);
        }
    }

    /* every dim named in the prologue: done at inputs.clear(), as before */
    scan_str(shared_text, &w);
    ck_assert_str_eq(in_desc(&w, 1, buf, sizeof(buf)), "mask bool (s0[2..32], s1[1..4096])");
    pt2_wrapper_info_free(&w);

    /* an expression is not a symbol; the end of run_impl ends the search */
    cap = strlen(assert_text) + 2 * pad + 256;
    text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    len = (size_t)(strstr(assert_text, "    if (_check") - assert_text);
    memcpy(text, assert_text, len);
    len += (size_t)snprintf(text + len, cap - len,
                            "    assert_size_stride(arg3_1, {2L*s27, s27}, {1L});\n");
    scan(text, len, 7, 0, "m", &w);
    ck_assert_str_eq(in_desc(&w, 1, buf, sizeof(buf)), "arg3_1 float32 (2, s27[2..512])");
    pt2_wrapper_info_free(&w);
    len = (size_t)(strstr(assert_text, "    if (_check") - assert_text);
    len += (size_t)snprintf(text + len, cap - len,
                            "}\n    assert_size_stride(arg3_1, {2L, s27}, {1L});\n");
    scan(text, len, 0, 0, "m", &w);
    ck_assert_str_eq(in_desc(&w, 1, buf, sizeof(buf)), "arg3_1 float32 (2, ?[2..512])");
    pt2_wrapper_info_free(&w);

    /* no further than 64 KiB past the prologue: an assert after that leaves the dim unnamed */
    len = (size_t)(strstr(assert_text, "    [[maybe_unused]]") - assert_text);
    for (size_t i = 0; i < pad / 32; i++)
        len += (size_t)snprintf(text + len, cap - len, "    int64_t pad_%08zu = 0;     \n", i);
    len += (size_t)snprintf(text + len, cap - len,
                            "    assert_size_stride(arg3_1, {2L, s27}, {1L});\n");
    scan(text, len, 4096, 0, "m", &w);
    ck_assert_str_eq(in_desc(&w, 1, buf, sizeof(buf)), "arg3_1 float32 (2, ?[2..512])");
    pt2_wrapper_info_free(&w);
    free(text);
}
END_TEST

/* ---- inputs passed by keyword: named by the pytree spec ---- */

/* A wrapper of two inputs with this in_spec_ line. */
static void kwargs_case(const char *spec_line, const char *name0, const char *name1)
{
    struct pt2_wrapper_info w;
    char text[4096];

    snprintf(text, sizeof(text),
             "    : AOTInductorModelBase(2, 1, 0, \"cpu\", std::nullopt, true) {\n"
             "    inputs_info_[0].name = \"arg0_1\";\n"
             "    inputs_info_[1].name = \"arg1_1\";\n"
             "%s\n"
             "    outputs_info_[0].name = \"output0\";\n"
             "}\n",
             spec_line);
    scan_str(text, &w);
    ck_assert_uint_eq(w.inputs.n, 2);
    ck_assert_str_eq(w.inputs.v[0].name, name0);
    ck_assert_str_eq(w.inputs.v[1].name, name1);
    pt2_wrapper_info_free(&w);
}

/* torch 2.14.1 writes a raw literal, 2.6.0 an escaped one (t214_keywords, t26_keywords). */
START_TEST(test_kwargs_names)
{
#define LEAF "{\"type\": null, \"context\": null, \"children_spec\": []}"
#define LEAF_E "{\\\"type\\\": null, \\\"context\\\": null, \\\"children_spec\\\": []}"
    kwargs_case("    in_spec_ = R\"([1, {\"type\": \"builtins.tuple\", \"context\": \"null\", "
                "\"children_spec\": [{\"type\": \"builtins.tuple\", \"context\": \"null\", "
                "\"children_spec\": []}, {\"type\": \"builtins.dict\", \"context\": "
                "\"[\\\"image\\\", \\\"scale\\\"]\", \"children_spec\": [" LEAF ", " LEAF
                "]}]}])\";",
                "image", "scale");
    kwargs_case("    in_spec_ = \"[1, {\\\"type\\\": \\\"builtins.tuple\\\", \\\"context\\\": "
                "\\\"null\\\", \\\"children_spec\\\": [{\\\"type\\\": \\\"builtins.tuple\\\", "
                "\\\"context\\\": \\\"null\\\", \\\"children_spec\\\": []}, {\\\"type\\\": "
                "\\\"builtins.dict\\\", \\\"context\\\": \\\"[\\\\\\\"image\\\\\\\", "
                "\\\\\\\"scale\\\\\\\"]\\\", \\\"children_spec\\\": [" LEAF_E ", " LEAF_E
                "]}]}]\";",
                "image", "scale");
    /* one positional, one keyword */
    kwargs_case("    in_spec_ = R\"([1, {\"type\": \"builtins.tuple\", \"context\": \"null\", "
                "\"children_spec\": [{\"type\": \"builtins.tuple\", \"context\": \"null\", "
                "\"children_spec\": [" LEAF "]}, {\"type\": \"builtins.dict\", \"context\": "
                "\"[\\\"mask\\\"]\", \"children_spec\": [" LEAF "]}]}])\";",
                "arg0_1", "mask");
    /* positional only, a nested keyword, a count that does not match, a repeated key: as is */
    kwargs_case("    in_spec_ = R\"([1, {\"type\": \"builtins.tuple\", \"context\": \"null\", "
                "\"children_spec\": [{\"type\": \"builtins.tuple\", \"context\": \"null\", "
                "\"children_spec\": [" LEAF ", " LEAF "]}, {\"type\": \"builtins.dict\", "
                "\"context\": \"[]\", \"children_spec\": []}]}])\";",
                "arg0_1", "arg1_1");
    kwargs_case("    in_spec_ = R\"([1, {\"type\": \"builtins.tuple\", \"context\": \"null\", "
                "\"children_spec\": [{\"type\": \"builtins.tuple\", \"context\": \"null\", "
                "\"children_spec\": []}, {\"type\": \"builtins.dict\", \"context\": "
                "\"[\\\"batch\\\"]\", \"children_spec\": [{\"type\": \"builtins.dict\", "
                "\"context\": \"[\\\"a\\\", \\\"b\\\"]\", \"children_spec\": [" LEAF ", " LEAF
                "]}]}]}])\";",
                "arg0_1", "arg1_1");
    kwargs_case("    in_spec_ = R\"([1, {\"type\": \"builtins.tuple\", \"context\": \"null\", "
                "\"children_spec\": [{\"type\": \"builtins.tuple\", \"context\": \"null\", "
                "\"children_spec\": []}, {\"type\": \"builtins.dict\", \"context\": "
                "\"[\\\"image\\\"]\", \"children_spec\": [" LEAF "]}]}])\";",
                "arg0_1", "arg1_1");
    kwargs_case("    in_spec_ = R\"([1, {\"type\": \"builtins.tuple\", \"context\": \"null\", "
                "\"children_spec\": [{\"type\": \"builtins.tuple\", \"context\": \"null\", "
                "\"children_spec\": []}, {\"type\": \"builtins.dict\", \"context\": "
                "\"[\\\"x\\\", \\\"x\\\"]\", \"children_spec\": [" LEAF ", " LEAF "]}]}])\";",
                "arg0_1", "arg1_1");
    kwargs_case("    in_spec_ = R\"(not json)\";", "arg0_1", "arg1_1");
#undef LEAF
#undef LEAF_E
}
END_TEST

/* ---- constants: every dtype spelling ---- */

START_TEST(test_constant_dtype_spellings)
{
    static const char *const text =
        "constants_info_[0].dtype = static_cast<int32_t>(cached_torch_dtype_float16);\n"
        "constants_info_[0].data_size = 2;\n"
        "constants_info_[0].shape = {1};\n"
        "constants_info_[1].dtype = cached_torch_dtype_float16;\n"
        "constants_info_[2].dtype = static_cast<int32_t>(at::ScalarType::Half);\n"
        "constants_info_[3].dtype = c10::kHalf;\n"
        "constants_info_[4].dtype = static_cast<int32_t>(5);\n"
        "constants_info_[5].dtype = torch::kFloat16;\n"
        "constants_info_[6].dtype = aoti_torch_dtype_float16();\n"
        "constants_info_[7].dtype = static_cast<int32_t>(at::kFloat8_e5m2);\n"
        "constants_info_[8].dtype = static_cast<int32_t>(24);\n"
        "constants_info_[9].dtype = static_cast<int32_t>(cached_torch_dtype_uint16);\n"
        "constants_info_[10].dtype = static_cast<int32_t>(cached_torch_dtype_complex64);\n"
        "constants_info_[11].dtype = Half;\n"                    /* no namespace: unknown */
        "constants_info_[12].dtype = cached_torch_dtype_fp99;\n" /* unknown name */
        "constants_info_[13].dtype = static_cast<int32_t>(-1);\n"
        "constants_info_[14].dtype = static_cast<int32_t>(46);\n"
        "constants_info_[15].name = \"no_dtype_line\";\n"
        "constants_info_[16].dtype = static_cast<int32_t>(44);\n"
        "constants_info_[17].dtype = static_cast<int32_t>(at::kBool);\n"
        "constants_info_[18].dtype = static_cast<int32_t>(11);\n";
    struct pt2_wrapper_info w;

    scan_str(text, &w);
    ck_assert_int_eq(w.found, 1);
    ck_assert_uint_eq(w.constants.count, 19);
    ck_assert_uint_eq(w.constants.bytes, 2);
    ck_assert_uint_eq(w.constants.elements, 1);
    ck_assert_uint_eq(w.constants.missing_size, 18);
    ck_assert_uint_eq(w.constants.missing_shape, 18);
    ck_assert_int_eq(w.constants.declared, -1);
    ck_assert_uint_eq(w.constants.ndtypes, 8);
    check_dtype_stat(&w.constants, 0, "float16", 7, 2, 1);
    check_dtype_stat(&w.constants, 1, "float8_e5m2", 1, 0, 0);
    check_dtype_stat(&w.constants, 2, "float8_e4m3fn", 1, 0, 0);
    check_dtype_stat(&w.constants, 3, "uint16", 1, 0, 0);
    check_dtype_stat(&w.constants, 4, "complex64", 1, 0, 0);
    check_dtype_stat(&w.constants, 5, "", 5, 0, 0);
    check_dtype_stat(&w.constants, 6, "float8_e8m0fnu", 1, 0, 0);
    check_dtype_stat(&w.constants, 7, "bool", 2, 0, 0);
    ck_assert_str_eq(pt2_wrapper_c10_dtype_name(6), "float32");
    ck_assert_str_eq(pt2_wrapper_c10_dtype_name(15), "bfloat16");
    ck_assert_str_eq(pt2_wrapper_c10_dtype_name(24), "float8_e4m3fn");
    ck_assert_str_eq(pt2_wrapper_c10_dtype_name(4), "int64");
    ck_assert_str_eq(pt2_wrapper_c10_dtype_name(11), "bool");
    ck_assert_ptr_null(pt2_wrapper_c10_dtype_name(46));
    ck_assert_ptr_null(pt2_wrapper_c10_dtype_name(-1));
    pt2_wrapper_info_free(&w);
}
END_TEST

START_TEST(test_constants_repeated_and_declared)
{
    static const char *const text =
        "    : AOTInductorModelBase(0, 0, 3, device_str) {\n"
        "constants_info_[0].dtype = static_cast<int32_t>(cached_torch_dtype_float32);\n"
        "constants_info_[0].data_size = 16;\n"
        "constants_info_[0].shape = {2, 2};\n"
        "constants_info_[1].dtype = static_cast<int32_t>(cached_torch_dtype_float32);\n"
        "constants_info_[1].data_size = 4;\n"
        "constants_info_[1].shape = {1,};\n"
        "constants_info_[0].dtype = static_cast<int32_t>(cached_torch_dtype_int8);\n"
        "constants_info_[0].data_size = 999;\n"
        "constants_info_[2].shape = {3037000500, 3037000500};\n" /* product past 2^53 */
        "constants_info_[2].data_size = -5;\n";
    struct pt2_wrapper_info w;

    scan_str(text, &w);
    ck_assert_int_eq(w.constants.declared, 3);
    ck_assert_uint_eq(w.constants.count, 3);
    ck_assert_uint_eq(w.constants.bytes, 20);
    ck_assert_uint_eq(w.constants.elements, 5);
    ck_assert_uint_eq(w.constants.missing_size, 1);
    ck_assert_uint_eq(w.constants.missing_shape, 1);
    ck_assert_uint_eq(w.constants.ndtypes, 2);
    check_dtype_stat(&w.constants, 0, "float32", 2, 20, 5);
    check_dtype_stat(&w.constants, 1, "", 1, 0, 0);
    ck_assert_uint_eq(w.nwarnings, 1);
    ck_assert_str_eq(w.warnings[0],
                     "the wrapper of model 'm' describes 1 constant(s) twice; counted once");
    pt2_wrapper_info_free(&w);
}
END_TEST

/* ---- chunking ---- */

START_TEST(test_chunking_is_invisible)
{
    static const char *const names[] = {"names_only_v24.cpp", "inline_checks_v25.cpp",
                                        "check_functions_v29.wrapper.cpp"};
    static const size_t chunks[] = {1, 2, 3, 7, 64, 4095, 4096, 4097, 100000};
    struct pt2_wrapper_info w;
    char *text, *whole, *other;
    size_t len, i, k;

    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        text = load(names[i], &len);
        scan(text, len, 0, 0, "model", &w);
        whole = render(&w);
        pt2_wrapper_info_free(&w);
        for (k = 0; k < sizeof(chunks) / sizeof(chunks[0]); k++) {
            scan(text, len, chunks[k], 0, "model", &w);
            other = render(&w);
            ck_assert_msg(strcmp(whole, other) == 0, "%s in chunks of %zu:\n%s\nvs\n%s", names[i],
                          chunks[k], other, whole);
            pt2_wrapper_info_free(&w);
            free(other);
        }
        free(whole);
        free(text);
    }
    /* CRLF line ends and a last line without a newline */
    scan_str("inputs_info_[0].name = \"a\";\r\ninputs_info_[1].name = \"b\";", &w);
    ck_assert_uint_eq(w.inputs.n, 2);
    ck_assert_str_eq(w.inputs.v[0].name, "a");
    ck_assert_str_eq(w.inputs.v[1].name, "b");
    pt2_wrapper_info_free(&w);
}
END_TEST

/* ---- a line longer than the window ---- */

START_TEST(test_long_lines)
{
    size_t n = 3 * PT2_WRAPPER_LINE_MAX, used = 0, i, chunks[] = {0, 1, 1000};
    char *text = malloc(n + 4096);
    struct pt2_wrapper_info w;
    char buf[256];

    ck_assert_ptr_nonnull(text);
#define PUT(s)                                                                                     \
    do {                                                                                           \
        memcpy(text + used, s, strlen(s));                                                         \
        used += strlen(s);                                                                         \
    } while (0)
    PUT("    : AOTInductorModelBase(2, 1, 0, device_str) {\n");
    PUT("    inputs_info_[0].name = \"a\";\n");
    /* a pytree spec longer than the window: its start is enough */
    PUT("    in_spec_ = \"[1, {");
    memset(text + used, 'x', PT2_WRAPPER_LINE_MAX);
    used += PT2_WRAPPER_LINE_MAX;
    PUT("}]\";\n");
    /* a name line longer than the window: skipped and said */
    PUT("    inputs_info_[1].name = \"");
    memset(text + used, 'y', PT2_WRAPPER_LINE_MAX);
    used += PT2_WRAPPER_LINE_MAX;
    PUT("\";\n");
    PUT("    outputs_info_[0].name = \"after\";\n");
#undef PUT
    for (i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
        scan(text, used, chunks[i], 0, "m", &w);
        ck_assert_int_eq(w.has_in_spec, 1);
        ck_assert_int_eq(w.has_out_spec, 0);
        ck_assert_uint_eq(w.inputs.n, 1);
        ck_assert_str_eq(in_desc(&w, 0, buf, sizeof(buf)), "a - unknown");
        ck_assert_uint_eq(w.outputs.n, 1);
        ck_assert_str_eq(w.outputs.v[0].name, "after");
        ck_assert_uint_eq(w.bytes_scanned, used);
        ck_assert_uint_eq(w.nwarnings, 4);
        ck_assert_str_eq(w.warnings[0], "the wrapper of model 'm' declares 2 inputs but names 1");
        ck_assert_str_eq(w.warnings[1],
                         "the wrapper records input names but no dtypes or shapes for model 'm'");
        ck_assert_str_eq(w.warnings[3], "1 line(s) of the wrapper of model 'm' longer than 8192 "
                                        "bytes that looked like I/O facts were skipped");
        pt2_wrapper_info_free(&w);
    }
    /* a line of exactly the window is read, not skipped */
    memcpy(text, "inputs_info_[0].name = \"", 24);
    memset(text + 24, 'z', PT2_WRAPPER_LINE_MAX - 2 - 24);
    memcpy(text + PT2_WRAPPER_LINE_MAX - 2, "\";\n", 3);
    used = PT2_WRAPPER_LINE_MAX + 1;
    for (i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
        scan(text, used, chunks[i], 0, "m", &w);
        ck_assert_uint_eq(w.inputs.n, 0); /* the name is longer than 127 bytes */
        ck_assert_uint_eq(w.nwarnings, 1);
        ck_assert_str_eq(w.warnings[0],
                         "1 input name(s) of model 'm' are longer than 127 bytes and are left out");
        pt2_wrapper_info_free(&w);
    }
    free(text);
}
END_TEST

/* ---- the byte cap ---- */

START_TEST(test_cap)
{
    static const char *const text = "    : AOTInductorModelBase(2, 0, 0, device_str) {\n"
                                    "    inputs_info_[0].name = \"first\";\n"
                                    "    inputs_info_[1].name = \"second\";\n";
    size_t cap = strlen(text) - 10, chunks[] = {0, 1, 5}, i;
    struct pt2_wrapper_info w;
    char *big, expect[256];
    pt2_wrapper_scan *s = NULL;
    struct pt2_error err = {0};

    for (i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
        scan(text, strlen(text), chunks[i], cap, "m", &w);
        ck_assert_int_eq(w.cut, 1);
        ck_assert_uint_eq(w.bytes_scanned, cap);
        ck_assert_uint_eq(w.inputs.n, 1);
        ck_assert_str_eq(w.inputs.v[0].name, "first");
        snprintf(expect, sizeof(expect),
                 "the wrapper source of model 'm' was cut at %zu bytes (the cap): I/O facts "
                 "after that point are missing",
                 cap);
        ck_assert_str_eq(w.warnings[0], expect);
        pt2_wrapper_info_free(&w);
    }
    /* exactly at the cap: nothing is cut */
    scan(text, strlen(text), 0, strlen(text), "m", &w);
    ck_assert_int_eq(w.cut, 0);
    ck_assert_uint_eq(w.inputs.n, 2);
    pt2_wrapper_info_free(&w);

    /* the default cap: 64 MiB is consumed, then the scan stops asking */
    big = malloc(1u << 20);
    ck_assert_ptr_nonnull(big);
    memset(big, 'a', 1u << 20);
    ck_assert_int_eq(pt2_wrapper_scan_new(&s, "m", 0, &err), PT2_OK);
    for (i = 0; i < 65; i++) {
        ck_assert_int_eq(pt2_wrapper_scan_wants_more(s), i < 64);
        ck_assert_int_eq(pt2_wrapper_scan_feed(s, big, 1u << 20, &err), PT2_OK);
    }
    ck_assert_int_eq(pt2_wrapper_scan_finish(s, &w, &err), PT2_OK);
    ck_assert_int_eq(w.cut, 1);
    ck_assert_uint_eq(w.bytes_scanned, PT2_WRAPPER_BYTES_MAX);
    ck_assert_int_eq(w.found, 0);
    pt2_wrapper_info_free(&w);
    pt2_wrapper_scan_free(s);
    /* a cap above the hard one is clamped */
    ck_assert_int_eq(pt2_wrapper_scan_new(&s, "m", (size_t)-1, &err), PT2_OK);
    for (i = 0; i < 65; i++)
        ck_assert_int_eq(pt2_wrapper_scan_feed(s, big, 1u << 20, &err), PT2_OK);
    ck_assert_int_eq(pt2_wrapper_scan_finish(s, &w, &err), PT2_OK);
    ck_assert_uint_eq(w.bytes_scanned, PT2_WRAPPER_BYTES_MAX);
    pt2_wrapper_info_free(&w);
    pt2_wrapper_scan_free(s);
    free(big);
}
END_TEST

START_TEST(test_wants_more_stops_after_prologue)
{
    struct pt2_error err = {0};
    struct pt2_wrapper_info w;
    pt2_wrapper_scan *s = NULL;
    char *text, *cut, *end;
    size_t len;

    text = load("check_functions_v29.wrapper.cpp", &len);
    cut = strstr(text, "inputs.clear();");
    ck_assert_ptr_nonnull(cut);
    end = strstr(cut, "} // AOTInductorModel::run_impl");
    ck_assert_ptr_nonnull(end);
    end = strchr(end, '\n') + 1; /* the line is whole at its newline */
    ck_assert_int_eq(pt2_wrapper_scan_new(&s, "model", 0, &err), PT2_OK);
    ck_assert_int_eq(pt2_wrapper_scan_feed(s, text, (size_t)(cut - text), &err), PT2_OK);
    ck_assert_int_eq(pt2_wrapper_scan_wants_more(s), 1);
    /* arg4_1's dim 0 is an expression of its size, no symbol: run_impl is read on for an
     * assert_size_stride line naming it, to its end */
    ck_assert_int_eq(pt2_wrapper_scan_feed(s, cut, 16, &err), PT2_OK);
    ck_assert_int_eq(pt2_wrapper_scan_wants_more(s), 1);
    ck_assert_int_eq(pt2_wrapper_scan_feed(s, cut + 16, (size_t)(end - cut) - 16, &err), PT2_OK);
    ck_assert_int_eq(pt2_wrapper_scan_wants_more(s), 0);
    /* anything after is ignored */
    ck_assert_int_eq(pt2_wrapper_scan_feed(s, "inputs_info_[9].name = \"late\";\n", 31, &err),
                     PT2_OK);
    ck_assert_int_eq(pt2_wrapper_scan_finish(s, &w, &err), PT2_OK);
    ck_assert_uint_eq(w.inputs.n, 5);
    ck_assert_uint_eq(w.bytes_scanned, (size_t)(end - text) + 31);
    pt2_wrapper_info_free(&w);
    pt2_wrapper_scan_free(s);
    free(text);
}
END_TEST

/* ---- garbage and hostile input ---- */

static uint32_t lcg(uint32_t *x)
{
    *x = *x * 1664525u + 1013904223u;
    return *x >> 8;
}

START_TEST(test_garbage)
{
    static const char *const hostile[] = {
        "inputs_info_[4095].name = \"last\";\n",
        "inputs_info_[4096].name = \"over\";\n",
        "inputs_info_[99999999999999999999].name = \"x\";\n",
        "inputs_info_[-1].name = \"x\";\n",
        "inputs_info_[0].name = \"unterminated;\n",
        "inputs_info_[0].name = \"a\\\"b\\\\c\";\n",
        "constants_info_[1048576].dtype = 6;\n",
        "constants_info_[1048575].data_size = 9223372036854775807;\n"
        "constants_info_[1048574].data_size = 9223372036854775807;\n",
        "AOTInductorModelBase(\n\n\n\n\n\n\n\n\n\n\n1, 2, 3)\n",
        "AOTInductorModelBase(1,\n2\n",
        "ConstantHandle x = ConstantHandle(input_handles[5000]);\nif (1 != x_size[0]) {\n",
        "ConstantHandle x = ConstantHandle(input_handles[0]);\nif (1 != x_size[99]) {\n"
        "if (x_size[63] < 1) {\nif (x_size[64] < 1) {\n",
        "ConstantHandle x = ConstantHandle(input_handles[0]);\nif (-5 != x_size[0]) {\n",
        "int64_t s0 = nobody_size[0];\nint64_t s0 = x_size[999];\n",
        "inputs_info_[0].shape.reserve(1000);\ninputs_info_[0].shape.push_back(s0);\n",
        "= = = ;;; [[[ ]]] (((\n if if ( if (x_size[\n",
    };
    static const char nul_text[] = "\x00\x01\x02inputs_info_[0].name = \"a\";\n";
    struct pt2_wrapper_info w;
    uint32_t seed = 12345;
    size_t i, j, n, len;
    char *buf, *text;

    for (i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
        scan(hostile[i], strlen(hostile[i]), 0, 0, "m", &w);
        pt2_wrapper_info_free(&w);
        scan(hostile[i], strlen(hostile[i]), 1, 0, "m", &w);
        pt2_wrapper_info_free(&w);
    }
    scan_str(hostile[0], &w);
    ck_assert_uint_eq(w.inputs.n, 1);
    ck_assert_str_eq(w.inputs.v[0].name, "last");
    ck_assert_str_eq(w.warnings[0], "the wrapper of model 'm' gives no name for 4095 input(s); "
                                    "they are left out");
    pt2_wrapper_info_free(&w);
    scan_str(hostile[1], &w);
    ck_assert_uint_eq(w.inputs.n, 0);
    ck_assert_str_eq(w.warnings[0],
                     "no AOTInductor model constructor or I/O table found in the wrapper "
                     "source of model 'm'");
    pt2_wrapper_info_free(&w);
    scan_str(hostile[5], &w);
    ck_assert_str_eq(w.inputs.v[0].name, "a\"b\\c");
    pt2_wrapper_info_free(&w);
    scan_str(hostile[7], &w);
    ck_assert_uint_eq(w.constants.count, 2);
    ck_assert_uint_eq(w.constants.bytes, UINT64_MAX - 1); /* 2 * (2^63 - 1) */
    pt2_wrapper_info_free(&w);
    scan_str(hostile[9], &w);
    ck_assert_int_eq(w.declared_inputs, 1);
    ck_assert_int_eq(w.declared_outputs, 2);
    ck_assert_int_eq(w.constants.declared, -1);
    pt2_wrapper_info_free(&w);

    /* names go to JSON: invalid UTF-8 is scrubbed, valid UTF-8 kept */
    scan_str("inputs_info_[0].name = \"caf\xC3\xA9\";\ninputs_info_[1].name = \"b\xFF\xFE"
             "d\";\n",
             &w);
    ck_assert_str_eq(w.inputs.v[0].name, "caf\xC3\xA9");
    ck_assert_str_eq(w.inputs.v[1].name, "b??d");
    pt2_wrapper_info_free(&w);

    /* a NUL ends what the line matchers see */
    scan(nul_text, sizeof(nul_text) - 1, 0, 0, "m", &w);
    ck_assert_uint_eq(w.inputs.n, 0);
    pt2_wrapper_info_free(&w);

    /* random bytes, with and without newlines */
    buf = malloc(1u << 16);
    ck_assert_ptr_nonnull(buf);
    for (i = 0; i < 40; i++) {
        n = 1 + lcg(&seed) % (1u << 16);
        for (j = 0; j < n; j++)
            buf[j] = i % 2 ? (char)lcg(&seed) : "\n;=[]{}()<>\"_ ax0s"[lcg(&seed) % 19];
        scan(buf, n, 1 + lcg(&seed) % 5000, 0, "m", &w);
        pt2_wrapper_info_free(&w);
    }
    /* every fixture, cut short and with bytes flipped */
    text = load("check_functions_v29.wrapper.cpp", &len);
    for (i = 0; i < 200; i++) {
        char *copy = malloc(len);

        ck_assert_ptr_nonnull(copy);
        memcpy(copy, text, len);
        for (j = 0; j < 20; j++)
            copy[lcg(&seed) % len] = (char)lcg(&seed);
        scan(copy, lcg(&seed) % (len + 1), 1 + lcg(&seed) % 300, 0, "m", &w);
        pt2_wrapper_info_free(&w);
        free(copy);
    }
    free(text);
    free(buf);
}
END_TEST

START_TEST(test_api_misuse)
{
    struct pt2_error err = {0};
    struct pt2_wrapper_info w;
    pt2_wrapper_scan *s = NULL;

    ck_assert_int_eq(pt2_wrapper_scan_new(NULL, "m", 0, &err), PT2_ERR_INVALID);
    ck_assert_int_eq(pt2_wrapper_scan_new(&s, NULL, 0, &err), PT2_OK);
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_wrapper_scan_feed(s, NULL, 1, &err), PT2_ERR_INVALID);
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_wrapper_scan_feed(s, NULL, 0, &err), PT2_OK);
    ck_assert_int_eq(pt2_wrapper_scan_finish(s, &w, &err), PT2_OK);
    ck_assert_int_eq(w.found, 0);
    ck_assert_uint_eq(w.nwarnings, 1);
    ck_assert_str_eq(w.warnings[0], "no AOTInductor model constructor or I/O table found in the "
                                    "wrapper source of the model");
    pt2_wrapper_info_free(&w);
    pt2_wrapper_info_free(&w); /* twice is fine */
    ck_assert_int_eq(pt2_wrapper_scan_finish(s, &w, &err), PT2_ERR_INVALID);
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_wrapper_scan_feed(s, "x", 1, &err), PT2_ERR_INVALID);
    ck_assert_int_eq(pt2_wrapper_scan_wants_more(s), 0);
    ck_assert_int_eq(pt2_wrapper_scan_wants_more(NULL), 0);
    pt2_wrapper_scan_free(s);
    pt2_wrapper_scan_free(NULL);
    pt2_wrapper_info_free(NULL);
}
END_TEST

/* ---- entry names ---- */

START_TEST(test_wrapper_names)
{
    char buf[64];

    ck_assert_int_eq(pt2_wrapper_is_wrapper_name("data/aotinductor/model/cabc.cpp"), 1);
    ck_assert_int_eq(pt2_wrapper_is_wrapper_name("data/aotinductor/model/cabc.wrapper.cpp"), 1);
    ck_assert_int_eq(pt2_wrapper_is_wrapper_name("model/data/aotinductor/model/c6.wrapper.cpp"), 1);
    ck_assert_int_eq(pt2_wrapper_is_wrapper_name("data/aotinductor/cabc.cpp"), 1);
    ck_assert_int_eq(pt2_wrapper_is_wrapper_name("data/aotinductor/model/cabc.kernel.cpp"), 0);
    ck_assert_int_eq(pt2_wrapper_is_wrapper_name("data/aotinductor/model/cabc.wrapper.so"), 0);
    ck_assert_int_eq(pt2_wrapper_is_wrapper_name("data/aotinductor/model/c.wrapper_metadata.json"),
                     0);
    ck_assert_int_eq(pt2_wrapper_is_wrapper_name("data/aotinductor/model/.cpp"), 0);
    ck_assert_int_eq(pt2_wrapper_is_wrapper_name("data/aotinductor/model/._c.wrapper.cpp"), 0);
    ck_assert_int_eq(pt2_wrapper_is_wrapper_name("__MACOSX/data/aotinductor/model/c.cpp"), 0);
    ck_assert_int_eq(pt2_wrapper_is_wrapper_name("extra/data/aotinductorx/model/c.cpp"), 0);
    ck_assert_int_eq(pt2_wrapper_is_wrapper_name("mydata/aotinductor/model/c.cpp"), 0);
    ck_assert_int_eq(pt2_wrapper_is_wrapper_name("src/model.cpp"), 0);
    ck_assert_int_eq(pt2_wrapper_is_wrapper_name("data/aotinductor/model/"), 0);
    ck_assert_int_eq(pt2_wrapper_is_wrapper_name(""), 0);
    ck_assert_int_eq(pt2_wrapper_is_wrapper_name(NULL), 0);

    ck_assert_str_eq(pt2_wrapper_model_name("m/data/aotinductor/enc/c.wrapper.cpp", buf, 64),
                     "enc");
    ck_assert_str_eq(pt2_wrapper_model_name("data/aotinductor/c.cpp", buf, 64), "");
    ck_assert_str_eq(pt2_wrapper_model_name("other/c.cpp", buf, 64), "");
    ck_assert_str_eq(pt2_wrapper_model_name("data/aotinductor/averyveryverylongname/c.cpp", buf, 8),
                     "averyve");
}
END_TEST

/* ---- real packages from the shared corpus ---- */

/* Scan every wrapper entry of one package; returns the number of wrappers. */
static int scan_package(const char *path, const char *base, size_t chunk)
{
    struct pt2_error err = {0};
    struct pt2_wrapper_info w;
    zip_t *z;
    zip_int64_t n, i, got;
    int zerr = 0, wrappers = 0;
    char *buf = malloc(chunk), model[128], b[256];

    ck_assert_ptr_nonnull(buf);
    z = zip_open(path, ZIP_RDONLY, &zerr);
    ck_assert_msg(z != NULL, "zip_open %s: %d", path, zerr);
    n = zip_get_num_entries(z, 0);
    for (i = 0; i < n; i++) {
        const char *name = zip_get_name(z, (zip_uint64_t)i, 0);
        pt2_wrapper_scan *s = NULL;
        zip_file_t *f;

        if (name == NULL || !pt2_wrapper_is_wrapper_name(name))
            continue;
        wrappers++;
        f = zip_fopen_index(z, (zip_uint64_t)i, 0);
        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(
            pt2_wrapper_scan_new(&s, pt2_wrapper_model_name(name, model, 128), 0, &err), PT2_OK);
        while ((got = zip_fread(f, buf, chunk)) > 0)
            ck_assert_int_eq(pt2_wrapper_scan_feed(s, buf, (size_t)got, &err), PT2_OK);
        ck_assert_int_eq(got, 0);
        zip_fclose(f);
        ck_assert_int_eq(pt2_wrapper_scan_finish(s, &w, &err), PT2_OK);
        pt2_wrapper_scan_free(s);
        ck_assert_msg(w.inputs.n >= 1, "%s: %s gave no input name", base, name);
        ck_assert_int_eq(w.found, 1);
        ck_assert_int_eq(w.cut, 0);

        if (strcmp(base, "executorch__preprocess_2025-05-23.pt2") == 0) {
            /* torch 2.7 era, inline checks, dynamic image size */
            ck_assert_int_eq(w.checks, PT2_WRAPPER_CHECKS_INLINE);
            ck_assert_uint_eq(w.inputs.n, 3);
            ck_assert_str_eq(in_desc(&w, 0, b, sizeof(b)),
                             "arg0_1 float32 (3, s0[2..4000], s1[2..4000])");
            ck_assert_str_eq(in_desc(&w, 1, b, sizeof(b)), "arg1_1 int64 (2)");
            ck_assert_str_eq(in_desc(&w, 2, b, sizeof(b)), "arg2_1 int64 (2)");
            ck_assert_uint_eq(w.outputs.n, 2);
            ck_assert_str_eq(w.outputs.v[1].name, "output1");
            ck_assert_int_eq(w.constants.declared, 0);
            ck_assert_uint_eq(w.constants.count, 0);
            ck_assert_int_eq(w.has_in_spec, 1);
            ck_assert_int_eq(w.has_out_spec, 1);
        } else if (strcmp(base, "mlcolvar__descriptor_based_inputs_model.pt2") == 0) {
            /* torch >= 2.8, one check function per input, five weights */
            ck_assert_int_eq(w.checks, PT2_WRAPPER_CHECKS_FUNCTIONS);
            ck_assert_uint_eq(w.inputs.n, 1);
            ck_assert_str_eq(in_desc(&w, 0, b, sizeof(b)), "arg10_1 float32 (1, 45)");
            ck_assert_uint_eq(w.outputs.n, 4);
            ck_assert_int_eq(w.constants.declared, 5);
            ck_assert_uint_eq(w.constants.count, 5);
            ck_assert_uint_eq(w.constants.bytes, 10240);
            ck_assert_uint_eq(w.constants.elements, 2560);
            ck_assert_uint_eq(w.constants.parameters, 5);
            ck_assert_uint_eq(w.constants.ndtypes, 1);
            check_dtype_stat(&w.constants, 0, "float32", 5, 10240, 2560);
        }
        pt2_wrapper_info_free(&w);
    }
    zip_close(z);
    free(buf);
    return wrappers;
}

START_TEST(test_corpus_packages)
{
    char dir[512], path[1024];
    struct dirent *de;
    DIR *d;
    int packages = 0, with_wrapper = 0;

    if (tu_shared("corpus/pt2", dir, sizeof(dir)) == NULL) {
        tu_skip("wrapper corpus", "no shared corpus/pt2 folder");
        return;
    }
    d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    while ((de = readdir(d)) != NULL) {
        size_t n = strlen(de->d_name);

        if (n < 5 || strcmp(de->d_name + n - 4, ".pt2") != 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        packages++;
        if (scan_package(path, de->d_name, 4099) > 0)
            with_wrapper++;
        scan_package(path, de->d_name, 1 << 16);
    }
    closedir(d);
    ck_assert_int_gt(packages, 0);
    fprintf(stderr, "wrapper corpus: %d package(s), %d with a wrapper\n", packages, with_wrapper);
}
END_TEST

/* Shader calls counted the same however the wrapper is cut into chunks. */
START_TEST(test_shader_count_any_chunking)
{
    static const char text[] = "x aoti_torch_mps_create_shader_library(R\"(a)\"); "
                               "aoti_torch_mps_create_shader_library aoti_torch_mps_create_"
                               "shader_library(b);aoti_torch_mps_create_shader_library(";
    size_t len = sizeof(text) - 1;

    for (size_t chunk = 1; chunk <= len; chunk++) {
        struct pt2_shader_count c = {0};

        for (size_t off = 0; off < len; off += chunk)
            pt2_wrapper_count_shaders(&c, text + off, off + chunk <= len ? chunk : len - off);
        ck_assert_msg(c.n == 3, "chunk %zu: %llu", chunk, (unsigned long long)c.n);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("wrapper");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_names_only_v24);
    tcase_add_test(tc, test_inline_checks_v25);
    tcase_add_test(tc, test_check_functions_v29);
    tcase_add_test(tc, test_dynamic_bounds);
    tcase_add_test(tc, test_shared_symbols);
    tcase_add_test(tc, test_assert_size_stride);
    tcase_add_test(tc, test_kwargs_names);
    tcase_add_test(tc, test_constant_dtype_spellings);
    tcase_add_test(tc, test_constants_repeated_and_declared);
    tcase_add_test(tc, test_chunking_is_invisible);
    tcase_add_test(tc, test_long_lines);
    tcase_add_test(tc, test_cap);
    tcase_add_test(tc, test_wants_more_stops_after_prologue);
    tcase_add_test(tc, test_garbage);
    tcase_add_test(tc, test_api_misuse);
    tcase_add_test(tc, test_wrapper_names);
    tcase_add_test(tc, test_shader_count_any_chunking);
    tcase_add_test(tc, test_corpus_packages);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
