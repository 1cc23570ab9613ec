/*
 * test_tensor.c - tensor specs: dtype names, shape text, JSON views, validation.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_tensor.h"
#include "testutil.h"

/*
 * Build a spec from compact text: "B,3,512,512"; "?" is an unnamed dynamic
 * dim, "s0[1:64]" a symbol with a range ("-" for an unknown bound), ""
 * a scalar and NULL an unknown rank.
 */
static struct pt2_tensor mk(const char *name, const char *dtype, const char *shape)
{
    struct pt2_tensor t;
    char buf[512], *tok, *next, *br;
    int i = 0;

    pt2_tensor_init(&t);
    snprintf(t.name, sizeof(t.name), "%s", name);
    snprintf(t.dtype, sizeof(t.dtype), "%s", dtype);
    if (shape == NULL)
        return t;
    snprintf(buf, sizeof(buf), "%s", shape);
    for (tok = buf; shape[0] != '\0' && tok != NULL; tok = next, i++) {
        struct pt2_dim *d = &t.dims[i];
        char *end;
        long v;

        next = strchr(tok, ',');
        if (next != NULL)
            *next++ = '\0';
        v = strtol(tok, &end, 10);
        if (end != tok && *end == '\0') {
            d->size = v;
            continue;
        }
        d->size = -1;
        if (strcmp(tok, "?") == 0)
            continue;
        br = strchr(tok, '[');
        if (br != NULL) {
            *br++ = '\0';
            d->min = br[0] == '-' ? -1 : strtol(br, &end, 10);
            br = strchr(br, ':') + 1;
            d->max = br[0] == '-' ? -1 : strtol(br, &end, 10);
        }
        snprintf(d->symbol, sizeof(d->symbol), "%.63s", tok);
    }
    t.ndim = i;
    return t;
}

static void push(struct pt2_tensor_list *l, struct pt2_tensor t)
{
    struct pt2_error err = {0};
    ck_assert_int_eq(pt2_tensor_list_push(l, &t, &err), PT2_OK);
}

/* Render a view with cJSON_PrintUnformatted into a static-per-test buffer. */
static const char *view(const struct pt2_tensor *t, unsigned flags, char *buf, size_t len)
{
    struct pt2_error err = {0};
    cJSON *j = NULL;
    char *s;

    ck_assert_int_eq(pt2_tensor_to_json(t, flags, &j, &err), PT2_OK);
    s = cJSON_PrintUnformatted(j);
    snprintf(buf, len, "%s", s);
    cJSON_free(s);
    cJSON_Delete(j);
    return buf;
}

/* Run validation of `json` against `l`; returns every violation joined by " | ",
 * or "OK" / "ERR <msg>". */
static const char *check(const struct pt2_tensor_list *l, const char *json, char *buf, size_t len)
{
    struct pt2_error err = {0};
    cJSON *p = cJSON_Parse(json), *errors = cJSON_CreateArray();
    const cJSON *e;
    size_t pos = 0;
    int rc;

    ck_assert_ptr_nonnull(p);
    rc = pt2_tensor_validate(l, p, errors, &err);
    cJSON_Delete(p);
    buf[0] = '\0';
    if (rc != PT2_OK) {
        ck_assert_int_eq(cJSON_GetArraySize(errors), 0);
        ck_assert_int_eq(rc, PT2_ERR_INVALID);
        snprintf(buf, len, "ERR %s", err.message);
    } else if (cJSON_GetArraySize(errors) == 0) {
        snprintf(buf, len, "OK");
    } else {
        cJSON_ArrayForEach(e, errors)
        {
            int n = snprintf(buf + pos, len - pos, "%s%s", pos > 0 ? " | " : "",
                             pt2_json_str(e, "message"));
            if (n < 0 || (size_t)n >= len - pos)
                break;
            pos += (size_t)n;
        }
    }
    cJSON_Delete(errors);
    return buf;
}

START_TEST(test_init_unknown_rank)
{
    struct pt2_tensor t;

    memset(&t, 0x55, sizeof(t));
    pt2_tensor_init(&t);
    ck_assert_int_eq(t.ndim, -1);
    ck_assert_str_eq(t.name, "");
    ck_assert_str_eq(t.dtype, "");
    ck_assert_int_eq(t.dims[0].min, -1);
    ck_assert_int_eq(t.dims[PT2_DIMS_MAX - 1].max, -1);
}
END_TEST

START_TEST(test_dtype_normalize)
{
    static const struct {
        const char *in, *out;
        int known;
    } cases[] = {
        {"float32", "float32", 1},
        {"torch.float32", "float32", 1},
        {"float", "float32", 1},
        {"fp32", "float32", 1},
        {"FP32", "float32", 1},
        {"f32", "float32", 1},
        {" Float32 ", "float32", 1},
        {"half", "float16", 1},
        {"torch.float16", "float16", 1},
        {"FP16", "float16", 1},
        {"bf16", "bfloat16", 1},
        {"BF16", "bfloat16", 1},
        {"torch.bfloat16", "bfloat16", 1},
        {"double", "float64", 1},
        {"FP64", "float64", 1},
        {"int8", "int8", 1},
        {"INT16", "int16", 1},
        {"short", "int16", 1},
        {"int", "int32", 1},
        {"int32", "int32", 1},
        {"int64", "int64", 1},
        {"long", "int64", 1},
        {"torch.long", "int64", 1},
        {"uint8", "uint8", 1},
        {"UINT8", "uint8", 1},
        {"byte", "uint8", 1},
        {"uint16", "uint16", 1},
        {"uint32", "uint32", 1},
        {"UINT64", "uint64", 1},
        {"bool", "bool", 1},
        {"BOOL", "bool", 1},
        {"complex64", "complex64", 1},
        {"cfloat", "complex64", 1},
        {"complex128", "complex128", 1},
        {"chalf", "complex32", 1},
        {"float8_e4m3fn", "float8_e4m3fn", 1},
        {"torch.float8_e5m2", "float8_e5m2", 1},
        {"float8_e4m3fnuz", "float8_e4m3fnuz", 1},
        {"FLOAT8_E5M2FNUZ", "float8_e5m2fnuz", 1},
        {"BYTES", "bytes", 0},
        {"MyType", "mytype", 0},
        {"", "", 0},
    };
    char out[32];
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        ck_assert_int_eq(pt2_tensor_dtype_normalize(cases[i].in, out, sizeof(out)), cases[i].known);
        ck_assert_str_eq(out, cases[i].out);
    }
    /* Output is bounded by its buffer. */
    ck_assert_int_eq(pt2_tensor_dtype_normalize("ABCDEFGHIJ", out, 5), 0);
    ck_assert_str_eq(out, "abcd");
}
END_TEST

START_TEST(test_dtype_oip)
{
    static const char *const pairs[][2] = {
        {"bool", "BOOL"},     {"uint8", "UINT8"},  {"uint16", "UINT16"}, {"uint32", "UINT32"},
        {"uint64", "UINT64"}, {"int8", "INT8"},    {"int16", "INT16"},   {"int32", "INT32"},
        {"int64", "INT64"},   {"float16", "FP16"}, {"float32", "FP32"},  {"float64", "FP64"},
        {"bytes", "BYTES"},   {"string", "BYTES"},
    };
    /* Not in the protocol's table: never given a type, invented or borrowed. */
    static const char *const untyped[] = {
        "bfloat16",    "complex64",   "complex128", "complex32", "float8_e4m3fn",
        "float8_e5m2", "unknown(77)", "",           "FP32"};
    char out[32];
    size_t i;

    for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
        ck_assert_str_eq(pt2_tensor_dtype_oip(pairs[i][0], out, sizeof(out)), pairs[i][1]);
    for (i = 0; i < sizeof(untyped) / sizeof(untyped[0]); i++)
        ck_assert_msg(pt2_tensor_dtype_oip(untyped[i], out, sizeof(out)) == NULL, "%s typed",
                      untyped[i]);
    ck_assert_ptr_null(pt2_tensor_dtype_oip(NULL, out, sizeof(out)));
}
END_TEST

START_TEST(test_shape_description)
{
    struct pt2_tensor t;
    char buf[128];

    t = mk("image", "float32", "B,3,512,512");
    ck_assert_str_eq(pt2_tensor_shape_description(&t, buf, sizeof(buf)), "(B, 3, 512, 512)");
    t = mk("m", "bool", "?,?,7");
    ck_assert_str_eq(pt2_tensor_shape_description(&t, buf, sizeof(buf)), "(?, ?, 7)");
    t = mk("s", "float32", "");
    ck_assert_str_eq(pt2_tensor_shape_description(&t, buf, sizeof(buf)), "()");
    t = mk("u", "float32", NULL);
    ck_assert_str_eq(pt2_tensor_shape_description(&t, buf, sizeof(buf)), "unknown");
    t = mk("one", "float32", "5");
    ck_assert_str_eq(pt2_tensor_shape_description(&t, buf, sizeof(buf)), "(5)");
    t = mk("image", "float32", "B,3,512,512");
    ck_assert_str_eq(pt2_tensor_shape_description(&t, buf, 8), "(B, 3, ");
}
END_TEST

START_TEST(test_default_view)
{
    struct pt2_tensor t = mk("image", "float32", "B[1:64],3,512,512");
    char buf[1024];

    snprintf(t.description, sizeof(t.description), "RGB image");
    ck_assert_str_eq(view(&t, PT2_JSON_DEFAULT, buf, sizeof(buf)),
                     "{\"name\":\"image\",\"shape\":[\"B\",3,512,512],\"dtype\":\"float32\","
                     "\"description\":\"RGB image\",\"ndim\":4,"
                     "\"fixed_shape\":{\"1\":3,\"2\":512,\"3\":512},"
                     "\"shape_description\":\"(B, 3, 512, 512)\","
                     "\"dynamic_dims\":[{\"axis\":0,\"symbol\":\"B\",\"min\":1,\"max\":64}]}");

    t = mk("mask", "", "?,s1[2:-],7");
    ck_assert_str_eq(view(&t, PT2_JSON_DEFAULT, buf, sizeof(buf)),
                     "{\"name\":\"mask\",\"shape\":[null,\"s1\",7],\"dtype\":null,"
                     "\"description\":null,\"ndim\":3,\"fixed_shape\":{\"2\":7},"
                     "\"shape_description\":\"(?, s1, 7)\","
                     "\"dynamic_dims\":[{\"axis\":0,\"symbol\":null,\"min\":null,\"max\":null},"
                     "{\"axis\":1,\"symbol\":\"s1\",\"min\":2,\"max\":null}]}");
}
END_TEST

START_TEST(test_default_view_unknown_rank_and_scalar)
{
    struct pt2_tensor t = mk("extra", "int64", NULL);
    char buf[1024];

    ck_assert_str_eq(view(&t, PT2_JSON_DEFAULT, buf, sizeof(buf)),
                     "{\"name\":\"extra\",\"shape\":null,\"dtype\":\"int64\","
                     "\"description\":null,\"ndim\":null,\"fixed_shape\":{},"
                     "\"shape_description\":\"unknown\",\"dynamic_dims\":[]}");
    t = mk("s", "float64", "");
    ck_assert_str_eq(view(&t, PT2_JSON_DEFAULT, buf, sizeof(buf)),
                     "{\"name\":\"s\",\"shape\":[],\"dtype\":\"float64\","
                     "\"description\":null,\"ndim\":0,\"fixed_shape\":{},"
                     "\"shape_description\":\"()\",\"dynamic_dims\":[]}");
}
END_TEST

/* The message of the OIP view's refusal of `t`. */
static const char *oip_refusal(const struct pt2_tensor *t)
{
    static char msg[PT2_ERROR_MSG_MAX];
    struct pt2_error err = {0};
    cJSON *j = (cJSON *)1;

    ck_assert_int_eq(pt2_tensor_to_json(t, PT2_JSON_OIP, &j, &err), PT2_ERR_UNSUPPORTED);
    ck_assert_ptr_null(j);
    snprintf(msg, sizeof(msg), "%s", err.message);
    return msg;
}

START_TEST(test_oip_view)
{
    struct pt2_tensor t = mk("image", "float32", "B,3,512,512");
    char buf[512];

    ck_assert_str_eq(view(&t, PT2_JSON_OIP, buf, sizeof(buf)),
                     "{\"name\":\"image\",\"datatype\":\"FP32\",\"shape\":[-1,3,512,512]}");
    t = mk("ids", "int64", "?,?");
    ck_assert_str_eq(view(&t, PT2_JSON_OIP, buf, sizeof(buf)),
                     "{\"name\":\"ids\",\"datatype\":\"INT64\",\"shape\":[-1,-1]}");
    t = mk("s", "bool", "");
    ck_assert_str_eq(view(&t, PT2_JSON_OIP, buf, sizeof(buf)),
                     "{\"name\":\"s\",\"datatype\":\"BOOL\",\"shape\":[]}");
    /* What the protocol cannot describe is refused, saying why. */
    t = mk("w", "bfloat16", "");
    ck_assert_str_eq(oip_refusal(&t), "tensor 'w': dtype bfloat16 has no Open Inference Protocol "
                                      "datatype");
    t = mk("u", "", NULL);
    ck_assert_str_eq(oip_refusal(&t),
                     "tensor 'u': its dtype is not recorded and its shape is not recorded");
    t = mk("r", "int32", NULL);
    ck_assert_str_eq(oip_refusal(&t), "tensor 'r': its shape is not recorded");
}
END_TEST

START_TEST(test_list_to_json_and_find)
{
    struct pt2_tensor_list l = {0};
    struct pt2_error err = {0};
    cJSON *j = NULL, *w;
    char *s;

    push(&l, mk("a", "bool", "2"));
    push(&l, mk("c", "complex64", "2"));
    push(&l, mk("b", "uint8", "?"));
    push(&l, mk("d", "float32", NULL));
    ck_assert_int_eq(pt2_tensor_list_to_json(&l, PT2_JSON_OIP, &j, &err), PT2_OK);
    s = cJSON_PrintUnformatted(j);
    ck_assert_str_eq(s, "[{\"name\":\"a\",\"datatype\":\"BOOL\",\"shape\":[2]},"
                        "{\"name\":\"b\",\"datatype\":\"UINT8\",\"shape\":[-1]}]");
    cJSON_free(s);
    cJSON_Delete(j);
    /* The same with the warnings kept: one line per tensor left out, in order. */
    w = cJSON_CreateArray();
    ck_assert_int_eq(pt2_tensor_list_oip_json(&l, "input", &j, w, &err), PT2_OK);
    ck_assert_int_eq(cJSON_GetArraySize(j), 2);
    s = cJSON_PrintUnformatted(w);
    ck_assert_str_eq(s, "[\"input 'c' is left out of the OIP view: dtype complex64 has no Open "
                        "Inference Protocol datatype\",\"input 'd' is left out of the OIP view: "
                        "its shape is not recorded\"]");
    cJSON_free(s);
    cJSON_Delete(w);
    cJSON_Delete(j);
    ck_assert_ptr_eq(pt2_tensor_list_find(&l, "b"), &l.v[2]);
    pt2_tensor_list_free(&l);
    push(&l, mk("a", "bool", "2"));
    push(&l, mk("b", "uint8", "?"));
    ck_assert_ptr_eq(pt2_tensor_list_find(&l, "b"), &l.v[1]);
    ck_assert_ptr_null(pt2_tensor_list_find(&l, "c"));
    pt2_tensor_list_free(&l);
    ck_assert_ptr_null(l.v);
    ck_assert_uint_eq(l.n, 0);
    pt2_tensor_list_free(&l);
    pt2_tensor_list_free(NULL);

    ck_assert_int_eq(pt2_tensor_list_to_json(&l, PT2_JSON_DEFAULT, &j, &err), PT2_OK);
    s = cJSON_PrintUnformatted(j);
    ck_assert_str_eq(s, "[]");
    cJSON_free(s);
    cJSON_Delete(j);
}
END_TEST

START_TEST(test_list_cap)
{
    struct pt2_tensor_list l = {0};
    struct pt2_error err = {0};
    struct pt2_tensor t = mk("x", "float32", "1");
    int i;

    for (i = 0; i < PT2_TENSORS_MAX; i++)
        ck_assert_int_eq(pt2_tensor_list_push(&l, &t, &err), PT2_OK);
    ck_assert_int_eq(pt2_tensor_list_push(&l, &t, &err), PT2_ERR_TOO_LARGE);
    ck_assert_str_eq(err.message, "more than 4096 tensors in one list");
    ck_assert_uint_eq(l.n, PT2_TENSORS_MAX);
    pt2_tensor_list_free(&l);
}
END_TEST

START_TEST(test_json_int)
{
    static const char *const good[] = {"3",   "0",  "-5", "9007199254740992", "-9007199254740992",
                                       "1e3", "3.0"};
    static const int64_t want[] = {3, 0, -5, 9007199254740992LL, -9007199254740992LL, 1000, 3};
    static const char *const bad[] = {
        "3.5", "9007199254740994", "1e300", "-1e300", "\"3\"", "true", "null", "[3]"};
    size_t i;
    int64_t v;
    cJSON *j;

    for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        j = cJSON_Parse(good[i]);
        v = 12345;
        ck_assert_int_eq(pt2_tensor_json_int(j, &v), 1);
        ck_assert_int_eq(v, want[i]);
        cJSON_Delete(j);
    }
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        j = cJSON_Parse(bad[i]);
        ck_assert_int_eq(pt2_tensor_json_int(j, &v), 0);
        cJSON_Delete(j);
    }
    ck_assert_int_eq(pt2_tensor_json_int(NULL, &v), 0);
}
END_TEST

/* ---- validation ---- */

static struct pt2_tensor_list image_scale(void)
{
    struct pt2_tensor_list l = {0};

    push(&l, mk("image", "float32", "B,3,512,512"));
    push(&l, mk("scale", "float32", "B"));
    return l;
}

/* ---- narrowing an exported program's specs to its compiled model ---- */

static const char *dims(const struct pt2_tensor *t, char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (int i = 0; i < t->ndim && used < len; i++) {
        const struct pt2_dim *d = &t->dims[i];
        int n =
            d->size >= 0
                ? snprintf(buf + used, len - used, "%s%lld", i ? "," : "", (long long)d->size)
                : snprintf(buf + used, len - used, "%s%s[%lld:%lld]", i ? "," : "",
                           d->symbol[0] ? d->symbol : "?", (long long)d->min, (long long)d->max);
        used += n > 0 ? (size_t)n : 0;
    }
    return buf;
}

START_TEST(test_narrow_to_compiled)
{
    struct pt2_tensor_list in = {0}, out = {0}, compiled = {0};
    struct pt2_error err = {0};
    char buf[256];

    /* torch 2.14's export of Dim("seq", min=1, max=512) compiled with seq >= 2 (its 0/1
     * specialisation), a second input's bound tighter, and one dim the compiled code fixed */
    push(&in, mk("ids", "int64", "2,s27[1:512]"));
    push(&in, mk("mask", "float32", "2,s27[1:512]"));
    push(&in, mk("extra", "float32", "s3[1:8]"));
    push(&out, mk("to", "bfloat16", "2,s27[1:512],32"));
    push(&out, mk("other", "float32", "s9[1:4]"));
    push(&compiled, mk("arg2_1", "int64", "2,?[2:512]"));
    push(&compiled, mk("arg3_1", "float32", "2,s27[2:300]"));
    push(&compiled, mk("arg4_1", "float32", "4"));
    ck_assert_int_eq(pt2_tensor_list_narrow(&in, &out, &compiled, &err), 1);
    ck_assert_str_eq(dims(&in.v[0], buf, sizeof(buf)), "2,s27[2:300]");
    ck_assert_str_eq(dims(&in.v[1], buf, sizeof(buf)), "2,s27[2:300]");
    ck_assert_str_eq(dims(&in.v[2], buf, sizeof(buf)), "4");
    ck_assert_str_eq(dims(&out.v[0], buf, sizeof(buf)), "2,s27[2:300],32");
    ck_assert_str_eq(dims(&out.v[1], buf, sizeof(buf)), "s9[1:4]");
    ck_assert_str_eq(in.v[0].name, "ids"); /* the program's names and dtypes stay */
    ck_assert_str_eq(
        check(&in, "{\"ids\": [2, 1], \"mask\": [2, 1], \"extra\": [4]}", buf, sizeof(buf)),
        "input 'ids' axis 1: dynamic dim 's27' must be in [2, 300], got 1 | "
        "input 'mask' axis 1: dynamic dim 's27' must be in [2, 300], got 1");

    /* lists that do not line up are left as they are */
    pt2_tensor_list_free(&compiled);
    push(&compiled, mk("arg2_1", "int64", "2,?[5:6]"));
    ck_assert_int_eq(pt2_tensor_list_narrow(&in, &out, &compiled, &err), 0);
    push(&compiled, mk("arg3_1", "float32", "2,?[5:6]"));
    push(&compiled, mk("arg4_1", "float32", "4,4"));
    ck_assert_int_eq(pt2_tensor_list_narrow(&in, &out, &compiled, &err), 0);
    ck_assert_str_eq(dims(&in.v[0], buf, sizeof(buf)), "2,s27[2:300]");
    pt2_tensor_list_free(&in);
    pt2_tensor_list_free(&out);
    pt2_tensor_list_free(&compiled);
}
END_TEST

/* ---- derived dims (torch.export's Dim arithmetic, "2*s0") ---- */

START_TEST(test_linear_forms)
{
    static const struct {
        const char *text, *sym;
        int64_t a, b;
    } yes[] = {{"2*s77", "s77", 2, 0}, {"2*s77 + 1", "s77", 2, 1}, {"3*b - 2", "b", 3, -2},
               {"s0 + 1", "s0", 1, 1}, {"s0 - 4", "s0", 1, -4},    {"10*_x9", "_x9", 10, 0}};
    static const char *const no[] = {"s0",     "2",      "2*s0*s1", "s0 + s1",
                                     "2 * s0", "2*s0+1", "0*s0",    "s0 + 0",
                                     "-2*s0",  "(2*s0)", "2*s0 + ", "9007199254740993*s0",
                                     ""};
    char sym[PT2_SYMBOL_MAX];
    int64_t a, b;

    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        ck_assert_msg(pt2_tensor_linear(yes[i].text, sym, sizeof(sym), &a, &b) == 1, "%s",
                      yes[i].text);
        ck_assert_str_eq(sym, yes[i].sym);
        ck_assert_int_eq(a, yes[i].a);
        ck_assert_int_eq(b, yes[i].b);
    }
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
        ck_assert_msg(pt2_tensor_linear(no[i], sym, sizeof(sym), &a, &b) == 0, "%s", no[i]);
}
END_TEST

START_TEST(test_validate_derived)
{
    struct pt2_tensor_list l = {0};
    char buf[1024];

    /* tests/fixtures/torch/t214_derived.pt2: x (b, 4), y (2*b, 4), b in [2, 32] */
    push(&l, mk("x", "float32", "s77[2:32],4"));
    push(&l, mk("y", "float32", "2*s77[4:64],4"));
    push(&l, mk("z", "float32", "s77 + 1[3:33]"));
    ck_assert_str_eq(check(&l, "{\"x\": [3, 4], \"y\": [6, 4], \"z\": [4]}", buf, sizeof(buf)),
                     "OK");
    ck_assert_str_eq(check(&l, "{\"x\": [3, 4], \"y\": [8, 4], \"z\": [5]}", buf, sizeof(buf)),
                     "input 'y' axis 0: dynamic dim '2*s77' must be 6 ('s77' is 3 in input 'x'), "
                     "got 8 | input 'z' axis 0: dynamic dim 's77 + 1' must be 4 ('s77' is 3 in "
                     "input 'x'), got 5");
    /* the range is said once, and the derivation still checked */
    ck_assert_str_eq(check(&l, "{\"x\": [40, 4], \"y\": [80, 4], \"z\": [41]}", buf, sizeof(buf)),
                     "input 'x' axis 0: dynamic dim 's77' must be in [2, 32], got 40 | input 'y' "
                     "axis 0: dynamic dim '2*s77' must be in [4, 64], got 80 | input 'z' axis 0: "
                     "dynamic dim 's77 + 1' must be in [3, 33], got 41");
    pt2_tensor_list_free(&l);

    /* a symbol no dim names alone relates nothing; a size past int64 is never equal */
    push(&l, mk("y", "float32", "2*s5"));
    push(&l, mk("w", "float32", "9007199254740992*s6"));
    push(&l, mk("v", "float32", "s6"));
    ck_assert_str_eq(
        check(&l, "{\"y\": [7], \"w\": [1], \"v\": [9007199254740992]}", buf, sizeof(buf)),
        "input 'w' axis 0: dynamic dim '9007199254740992*s6' must be "
        "9007199254740992*s6 ('s6' is 9007199254740992 in input 'v'), got 1");
    pt2_tensor_list_free(&l);
}
END_TEST

START_TEST(test_validate_valid)
{
    struct pt2_tensor_list l = image_scale();
    char buf[1024];

    ck_assert_str_eq(check(&l, "{\"image\":[8,3,512,512],\"scale\":[8]}", buf, sizeof(buf)), "OK");
    /* Member order does not matter. */
    ck_assert_str_eq(check(&l, "{\"scale\":[1],\"image\":[1,3,512,512]}", buf, sizeof(buf)), "OK");
    pt2_tensor_list_free(&l);
}
END_TEST

START_TEST(test_validate_missing)
{
    struct pt2_tensor_list l = image_scale();
    char buf[1024];

    ck_assert_str_eq(check(&l, "{\"image\":[8,3,512,512]}", buf, sizeof(buf)),
                     "missing input 'scale'");
    ck_assert_str_eq(check(&l, "{}", buf, sizeof(buf)),
                     "missing input 'image' | missing input 'scale'");
    pt2_tensor_list_free(&l);
}
END_TEST

START_TEST(test_validate_unknown)
{
    struct pt2_tensor_list l = image_scale(), none = {0};
    char buf[1024];

    ck_assert_str_eq(
        check(&l, "{\"image\":[8,3,512,512],\"scale\":[8],\"foo\":[1]}", buf, sizeof(buf)),
        "unknown input 'foo' (expected: image, scale)");
    /* An unknown name is reported before a missing one (it is likely a typo). */
    ck_assert_str_eq(check(&l, "{\"imgae\":[8,3,512,512],\"scale\":[8]}", buf, sizeof(buf)),
                     "unknown input 'imgae' (expected: image, scale) | missing input 'image'");
    ck_assert_str_eq(check(&none, "{\"x\":[1]}", buf, sizeof(buf)),
                     "unknown input 'x' (expected: no inputs)");
    ck_assert_str_eq(check(&none, "{}", buf, sizeof(buf)), "OK");
    ck_assert_str_eq(check(NULL, "{\"x\":[1]}", buf, sizeof(buf)),
                     "unknown input 'x' (expected: no inputs)");
    pt2_tensor_list_free(&l);
}
END_TEST

START_TEST(test_validate_expected_list_is_cut)
{
    struct pt2_tensor_list l = {0};
    char name[32], buf[1024];
    const char *m;
    int i;

    for (i = 0; i < 200; i++) {
        snprintf(name, sizeof(name), "input_%03d", i);
        push(&l, mk(name, "float32", "1"));
    }
    m = check(&l, "{\"nope\":[1]}", buf, sizeof(buf));
    ck_assert_int_eq(strncmp(m, "unknown input 'nope' (expected: input_000, input_001, ", 54), 0);
    /* The first violation's list is cut; the missing inputs follow it. */
    ck_assert(strstr(m, "input_034, input_035, ...) | missing input 'input_000' | ") != NULL);
    pt2_tensor_list_free(&l);
}
END_TEST

START_TEST(test_validate_rank)
{
    struct pt2_tensor_list l = image_scale();
    char buf[1024];

    ck_assert_str_eq(check(&l, "{\"image\":[3,512,512],\"scale\":[8]}", buf, sizeof(buf)),
                     "input 'image': expected 4 dimensions (B, 3, 512, 512), got 3");
    ck_assert_str_eq(check(&l, "{\"image\":[8,3,512,512],\"scale\":[8,1]}", buf, sizeof(buf)),
                     "input 'scale': expected 1 dimension (B), got 2");
    pt2_tensor_list_free(&l);

    push(&l, mk("s", "float32", ""));
    ck_assert_str_eq(check(&l, "{\"s\":[]}", buf, sizeof(buf)), "OK");
    ck_assert_str_eq(check(&l, "{\"s\":[1]}", buf, sizeof(buf)),
                     "input 's': expected 0 dimensions (), got 1");
    pt2_tensor_list_free(&l);
}
END_TEST

START_TEST(test_validate_fixed)
{
    struct pt2_tensor_list l = image_scale();
    char buf[1024];

    ck_assert_str_eq(check(&l, "{\"image\":[8,4,512,512],\"scale\":[8]}", buf, sizeof(buf)),
                     "input 'image' axis 1: expected 3, got 4");
    ck_assert_str_eq(check(&l, "{\"image\":[8,3,512,0],\"scale\":[8]}", buf, sizeof(buf)),
                     "input 'image' axis 3: expected 512, got 0");
    pt2_tensor_list_free(&l);
}
END_TEST

START_TEST(test_validate_symbol_consistency)
{
    struct pt2_tensor_list l = image_scale();
    char buf[1024];

    ck_assert_str_eq(check(&l, "{\"image\":[8,3,512,512],\"scale\":[4]}", buf, sizeof(buf)),
                     "input 'scale' axis 0: dynamic dim 'B' is 8 in input 'image' but 4 here");
    pt2_tensor_list_free(&l);

    /* Same symbol twice in one input. */
    push(&l, mk("sq", "float32", "n,n"));
    ck_assert_str_eq(check(&l, "{\"sq\":[5,5]}", buf, sizeof(buf)), "OK");
    ck_assert_str_eq(check(&l, "{\"sq\":[5,6]}", buf, sizeof(buf)),
                     "input 'sq' axis 1: dynamic dim 'n' is 5 in input 'sq' but 6 here");
    pt2_tensor_list_free(&l);

    /* Different symbols are independent. */
    push(&l, mk("a", "float32", "s0"));
    push(&l, mk("b", "float32", "s1"));
    ck_assert_str_eq(check(&l, "{\"a\":[2],\"b\":[9]}", buf, sizeof(buf)), "OK");
    pt2_tensor_list_free(&l);
}
END_TEST

START_TEST(test_validate_unnamed_share_batch)
{
    struct pt2_tensor_list l = {0};
    char buf[1024];

    push(&l, mk("a", "float32", "?,3"));
    push(&l, mk("b", "float32", "?"));
    push(&l, mk("c", "float32", "batch"));
    ck_assert_str_eq(check(&l, "{\"a\":[2,3],\"b\":[2],\"c\":[2]}", buf, sizeof(buf)), "OK");
    ck_assert_str_eq(check(&l, "{\"a\":[2,3],\"b\":[5],\"c\":[2]}", buf, sizeof(buf)),
                     "input 'b' axis 0: dynamic dim 'batch' is 2 in input 'a' but 5 here");
    ck_assert_str_eq(check(&l, "{\"a\":[2,3],\"b\":[2],\"c\":[7]}", buf, sizeof(buf)),
                     "input 'c' axis 0: dynamic dim 'batch' is 2 in input 'a' but 7 here");
    pt2_tensor_list_free(&l);
}
END_TEST

/* Every violation as data: {input, axis, expected, got, code, message}, exactly. */
static char *violations(const struct pt2_tensor_list *l, const char *proposed)
{
    struct pt2_error err = {0};
    cJSON *p = cJSON_Parse(proposed), *errors = cJSON_CreateArray();
    char *s;

    ck_assert_int_eq(pt2_tensor_validate(l, p, errors, &err), PT2_OK);
    s = cJSON_PrintUnformatted(errors);
    cJSON_Delete(errors);
    cJSON_Delete(p);
    return s;
}

START_TEST(test_validate_violation_objects)
{
    struct pt2_tensor_list l = {0};
    char *s;

    push(&l, mk("image", "float32", "B,3,s1[2:8]"));
    push(&l, mk("scale", "float32", "B"));
    s = violations(&l, "{\"image\":[4,5,9],\"scale\":[2],\"foo\":[1]}");
    ck_assert_str_eq(
        s, "[{\"input\":\"foo\",\"axis\":null,\"expected\":\"image, scale\",\"got\":null,"
           "\"code\":\"unknown-input\",\"message\":\"unknown input 'foo' (expected: image, "
           "scale)\"},"
           "{\"input\":\"image\",\"axis\":1,\"expected\":\"3\",\"got\":5,\"code\":\"size\","
           "\"message\":\"input 'image' axis 1: expected 3, got 5\"},"
           "{\"input\":\"image\",\"axis\":2,\"expected\":\"[2, 8]\",\"got\":9,\"code\":\"range\","
           "\"message\":\"input 'image' axis 2: dynamic dim 's1' must be in [2, 8], got 9\"},"
           "{\"input\":\"scale\",\"axis\":0,\"expected\":\"4\",\"got\":2,"
           "\"code\":\"symbol-mismatch\",\"message\":\"input 'scale' axis 0: dynamic dim 'B' is 4 "
           "in input 'image' but 2 here\"}]");
    free(s);
    s = violations(&l, "{\"image\":[4,3]}");
    ck_assert_str_eq(
        s, "[{\"input\":\"image\",\"axis\":null,\"expected\":\"(B, 3, s1)\",\"got\":2,"
           "\"code\":\"rank\",\"message\":\"input 'image': expected 3 dimensions (B, 3, s1), got "
           "2\"},"
           "{\"input\":\"scale\",\"axis\":null,\"expected\":null,\"got\":null,"
           "\"code\":\"missing-input\",\"message\":\"missing input 'scale'\"}]");
    free(s);
    pt2_tensor_list_free(&l);
}
END_TEST

START_TEST(test_validate_ranges)
{
    struct pt2_tensor_list l = {0};
    char buf[1024];

    push(&l, mk("x", "float32", "s0[1:64]"));
    ck_assert_str_eq(check(&l, "{\"x\":[1]}", buf, sizeof(buf)), "OK");
    ck_assert_str_eq(check(&l, "{\"x\":[64]}", buf, sizeof(buf)), "OK");
    ck_assert_str_eq(check(&l, "{\"x\":[100]}", buf, sizeof(buf)),
                     "input 'x' axis 0: dynamic dim 's0' must be in [1, 64], got 100");
    ck_assert_str_eq(check(&l, "{\"x\":[0]}", buf, sizeof(buf)),
                     "input 'x' axis 0: dynamic dim 's0' must be in [1, 64], got 0");
    pt2_tensor_list_free(&l);

    push(&l, mk("y", "float32", "s1[2:-]"));
    ck_assert_str_eq(check(&l, "{\"y\":[1000000]}", buf, sizeof(buf)), "OK");
    ck_assert_str_eq(check(&l, "{\"y\":[1]}", buf, sizeof(buf)),
                     "input 'y' axis 0: dynamic dim 's1' must be >= 2, got 1");
    pt2_tensor_list_free(&l);

    push(&l, mk("z", "float32", "s2[-:8]"));
    ck_assert_str_eq(check(&l, "{\"z\":[0]}", buf, sizeof(buf)), "OK");
    ck_assert_str_eq(check(&l, "{\"z\":[9]}", buf, sizeof(buf)),
                     "input 'z' axis 0: dynamic dim 's2' must be <= 8, got 9");
    pt2_tensor_list_free(&l);
}
END_TEST

START_TEST(test_validate_unknown_rank_accepts_anything)
{
    struct pt2_tensor_list l = {0};
    char buf[1024];

    push(&l, mk("any", "float32", NULL));
    ck_assert_str_eq(check(&l, "{\"any\":[]}", buf, sizeof(buf)), "OK");
    ck_assert_str_eq(check(&l,
                           "{\"any\":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,"
                           "21,22,23,24,25,26,27,28,29,30,31,32,33,34]}",
                           buf, sizeof(buf)),
                     "OK");
    pt2_tensor_list_free(&l);
}
END_TEST

START_TEST(test_validate_cut_symbols_not_compared)
{
    struct pt2_tensor_list l = {0};
    char buf[1024];

    push(&l, mk("a", "float32", "Max(s0 s1..."));
    push(&l, mk("b", "float32", "Max(s0 s1..."));
    ck_assert_str_eq(check(&l, "{\"a\":[2],\"b\":[3]}", buf, sizeof(buf)), "OK");
    pt2_tensor_list_free(&l);
}
END_TEST

START_TEST(test_validate_malformed)
{
    struct pt2_tensor_list l = image_scale();
    char buf[1024];

    ck_assert_str_eq(check(&l, "[1,2]", buf, sizeof(buf)),
                     "ERR inputs must be a JSON object mapping input names to shapes");
    ck_assert_str_eq(check(&l, "{\"image\":\"8x3\"}", buf, sizeof(buf)),
                     "ERR input 'image': shape must be an array of integers");
    ck_assert_str_eq(check(&l, "{\"image\":[8,3,-1,512]}", buf, sizeof(buf)),
                     "ERR input 'image' axis 2: size must be a non-negative integer");
    ck_assert_str_eq(check(&l, "{\"image\":[8,3.5,512,512]}", buf, sizeof(buf)),
                     "ERR input 'image' axis 1: size must be a non-negative integer");
    ck_assert_str_eq(check(&l, "{\"image\":[8,null,512,512]}", buf, sizeof(buf)),
                     "ERR input 'image' axis 1: size must be a non-negative integer");
    ck_assert_str_eq(check(&l, "{\"image\":[1e300]}", buf, sizeof(buf)),
                     "ERR input 'image' axis 0: size must be a non-negative integer");
    /* Malformed wins over unknown names. */
    ck_assert_str_eq(check(&l, "{\"foo\":[1],\"image\":{}}", buf, sizeof(buf)),
                     "ERR input 'image': shape must be an array of integers");
    ck_assert_str_eq(check(&l, "{\"scale\":[1],\"scale\":[2]}", buf, sizeof(buf)),
                     "ERR input 'scale' is given more than once");
    pt2_tensor_list_free(&l);
}
END_TEST

START_TEST(test_validate_many_proposed_names)
{
    /* A large proposal is linear work: 50k unknown names, one verdict. */
    struct pt2_tensor_list l = image_scale();
    struct pt2_error err = {0};
    cJSON *p = cJSON_CreateObject(), *errors = cJSON_CreateArray();
    char name[32];
    int i;

    for (i = 0; i < 50000; i++) {
        snprintf(name, sizeof(name), "n%d", i);
        cJSON_AddItemToObject(p, name, cJSON_CreateIntArray((const int[]){1}, 1));
    }
    ck_assert_int_eq(pt2_tensor_validate(&l, p, errors, &err), PT2_OK);
    /* Every violation up to the cap, then one line saying there are more. */
    ck_assert_int_eq(cJSON_GetArraySize(errors), PT2_VALIDATE_ERRORS_MAX + 1);
    ck_assert_str_eq(pt2_json_str(cJSON_GetArrayItem(errors, 0), "message"),
                     "unknown input 'n0' (expected: image, scale)");
    ck_assert_str_eq(pt2_json_str(cJSON_GetArrayItem(errors, PT2_VALIDATE_ERRORS_MAX), "message"),
                     "... and more violations");
    ck_assert_str_eq(pt2_json_str(cJSON_GetArrayItem(errors, PT2_VALIDATE_ERRORS_MAX), "code"),
                     "more");
    /* 50,000 unknown names, 2 missing inputs: all but the 64 listed are counted */
    ck_assert(cJSON_GetObjectItem(cJSON_GetArrayItem(errors, PT2_VALIDATE_ERRORS_MAX), "got")
                  ->valuedouble == 50002 - PT2_VALIDATE_ERRORS_MAX);
    cJSON_Delete(errors);
    cJSON_Delete(p);
    pt2_tensor_list_free(&l);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("tensor");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_init_unknown_rank);
    tcase_add_test(tc, test_dtype_normalize);
    tcase_add_test(tc, test_dtype_oip);
    tcase_add_test(tc, test_shape_description);
    tcase_add_test(tc, test_default_view);
    tcase_add_test(tc, test_default_view_unknown_rank_and_scalar);
    tcase_add_test(tc, test_oip_view);
    tcase_add_test(tc, test_list_to_json_and_find);
    tcase_add_test(tc, test_list_cap);
    tcase_add_test(tc, test_json_int);
    tcase_add_test(tc, test_narrow_to_compiled);
    tcase_add_test(tc, test_linear_forms);
    tcase_add_test(tc, test_validate_derived);
    tcase_add_test(tc, test_validate_valid);
    tcase_add_test(tc, test_validate_missing);
    tcase_add_test(tc, test_validate_unknown);
    tcase_add_test(tc, test_validate_expected_list_is_cut);
    tcase_add_test(tc, test_validate_rank);
    tcase_add_test(tc, test_validate_fixed);
    tcase_add_test(tc, test_validate_symbol_consistency);
    tcase_add_test(tc, test_validate_unnamed_share_batch);
    tcase_add_test(tc, test_validate_ranges);
    tcase_add_test(tc, test_validate_violation_objects);
    tcase_add_test(tc, test_validate_unknown_rank_accepts_anything);
    tcase_add_test(tc, test_validate_cut_symbols_not_compared);
    tcase_add_test(tc, test_validate_malformed);
    tcase_add_test(tc, test_validate_many_proposed_names);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
