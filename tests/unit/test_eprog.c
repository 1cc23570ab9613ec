/*
 * test_eprog.c - exported program specs: dtype codes, SymInt forms, ranges,
 * old-schema unions, malformed programs and the real executorch package.
 * The expression text itself has its own suite (test_sympy).
 */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

#include "pt2_eprog.h"
#include "testutil.h"

#define ENTRY "linear_3/models/model.json"

static char *load(const char *name, size_t *len)
{
    char path[256];
    char *buf = (char *)tu_read_file(tu_fixture(name, path, sizeof(path)), len);

    ck_assert_msg(buf != NULL, "cannot read %s", path);
    return buf;
}

static void assert_dim(const struct pt2_dim *d, int64_t size, const char *sym, int64_t min,
                       int64_t max)
{
    ck_assert_int_eq(d->size, size);
    ck_assert_str_eq(d->symbol, sym);
    ck_assert_int_eq(d->min, min);
    ck_assert_int_eq(d->max, max);
}

/* A one-input program whose tensor meta is `meta` (a JSON object text). */
static int parse_one(const char *meta, const char *ranges, struct pt2_tensor_list *in,
                     struct pt2_error *err)
{
    struct pt2_tensor_list out = {0};
    char doc[4096];
    int rc;

    snprintf(doc, sizeof(doc),
             "{\"graph_module\":{\"graph\":{\"tensor_values\":{\"x\":%s}},"
             "\"signature\":{\"input_specs\":[{\"user_input\":{\"arg\":{\"as_tensor\":"
             "{\"name\":\"x\"}}}}],\"output_specs\":[]}},\"range_constraints\":%s}",
             meta, ranges);
    rc = pt2_eprog_parse(doc, strlen(doc), "models/m.json", in, &out, err);
    ck_assert_uint_eq(out.n, 0);
    pt2_tensor_list_free(&out);
    return rc;
}

/* Error message of a program built from a whole document text. */
static const char *prog_error(const char *doc, char *buf, size_t len)
{
    struct pt2_tensor_list in = {0}, out = {0};
    struct pt2_error err = {0};
    int rc = pt2_eprog_parse(doc, strlen(doc), "models/m.json", &in, &out, &err);

    ck_assert_int_ne(rc, PT2_OK);
    ck_assert_ptr_null(in.v);
    ck_assert_ptr_null(out.v);
    snprintf(buf, len, "%d %s", rc, err.message);
    return buf;
}

static const char *meta_error(const char *meta, const char *ranges, char *buf, size_t len)
{
    struct pt2_tensor_list in = {0};
    struct pt2_error err = {0};
    int rc = parse_one(meta, ranges, &in, &err);

    ck_assert_int_ne(rc, PT2_OK);
    ck_assert_ptr_null(in.v);
    snprintf(buf, len, "%d %s", rc, err.message);
    return buf;
}

START_TEST(test_dtype_codes)
{
    static const char *const names[] = {
        "unknown", "uint8",   "int8",      "int16",     "int32",      "int64", "float16",
        "float32", "float64", "complex32", "complex64", "complex128", "bool",  "bfloat16"};
    static const char *const f8[] = {"uint16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz",
                                     "float8_e5m2fnuz"};
    char buf[32];
    int i;

    for (i = 0; i <= 13; i++)
        ck_assert_str_eq(pt2_eprog_dtype_name(i, buf, sizeof(buf)), names[i]);
    for (i = 28; i <= 32; i++)
        ck_assert_str_eq(pt2_eprog_dtype_name(i, buf, sizeof(buf)), f8[i - 28]);
    ck_assert_str_eq(pt2_eprog_dtype_name(33, buf, sizeof(buf)), "float8_e8m0fnu");
    ck_assert_str_eq(pt2_eprog_dtype_name(34, buf, sizeof(buf)), "uint32");
    ck_assert_str_eq(pt2_eprog_dtype_name(35, buf, sizeof(buf)), "uint64");
    ck_assert_str_eq(pt2_eprog_dtype_name(14, buf, sizeof(buf)), "");
    ck_assert_str_eq(pt2_eprog_dtype_name(27, buf, sizeof(buf)), "");
    ck_assert_str_eq(pt2_eprog_dtype_name(36, buf, sizeof(buf)), "");
    ck_assert_str_eq(pt2_eprog_dtype_name(-1, buf, sizeof(buf)), "");
}
END_TEST

START_TEST(test_dtype_codes_through_parse)
{
    static const int codes[] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11,
                                12, 13, 28, 29, 30, 31, 32, 33, 34, 35, 99};
    static const char *const want[] = {"unknown",
                                       "uint8",
                                       "int8",
                                       "int16",
                                       "int32",
                                       "int64",
                                       "float16",
                                       "float32",
                                       "float64",
                                       "complex32",
                                       "complex64",
                                       "complex128",
                                       "bool",
                                       "bfloat16",
                                       "uint16",
                                       "float8_e4m3fn",
                                       "float8_e5m2",
                                       "float8_e4m3fnuz",
                                       "float8_e5m2fnuz",
                                       "float8_e8m0fnu",
                                       "uint32",
                                       "uint64",
                                       ""};
    struct pt2_tensor_list in = {0};
    struct pt2_error err = {0};
    char meta[128];
    size_t i;

    for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
        snprintf(meta, sizeof(meta), "{\"dtype\":%d,\"sizes\":[{\"as_int\":2}]}", codes[i]);
        ck_assert_int_eq(parse_one(meta, "{}", &in, &err), PT2_OK);
        ck_assert_uint_eq(in.n, 1);
        ck_assert_str_eq(in.v[0].dtype, want[i]);
        /* an unknown code is kept as a number, never named */
        ck_assert_int_eq(in.v[0].has_dtype_code, want[i][0] == '\0');
        if (in.v[0].has_dtype_code)
            ck_assert_int_eq(in.v[0].dtype_code, 99);
        pt2_tensor_list_free(&in);
    }
}
END_TEST

START_TEST(test_dynamic_program)
{
    struct pt2_tensor_list in = {0}, out = {0};
    struct pt2_error err = {0};
    const struct pt2_tensor *t;
    size_t len;
    char *buf = load("json/eprog_dynamic.json", &len);

    ck_assert_int_eq(pt2_eprog_parse(buf, len, "m/models/model.json", &in, &out, &err), PT2_OK);
    /* Parameters, buffers and the int input are not user tensor inputs. */
    ck_assert_uint_eq(in.n, 2);
    t = &in.v[0];
    ck_assert_str_eq(t->name, "x");
    ck_assert_str_eq(t->dtype, "bfloat16");
    ck_assert_str_eq(t->description, "");
    ck_assert_int_eq(t->ndim, 4);
    assert_dim(&t->dims[0], -1, "s0", 1, 64);
    assert_dim(&t->dims[1], 3, "", -1, -1);
    /* max_val 9223372036854775806 is torch's int_oo: unbounded. */
    assert_dim(&t->dims[2], -1, "s1", 2, -1);
    assert_dim(&t->dims[3], -1, "s1", 2, -1);
    t = &in.v[1];
    ck_assert_str_eq(t->name, "y");
    ck_assert_str_eq(t->dtype, "int64");
    ck_assert_int_eq(t->ndim, 2);
    assert_dim(&t->dims[0], -1, "s0", 1, 64);
    assert_dim(&t->dims[1], -1, "2*s1", -1, -1);

    /* The buffer mutation and the None output are skipped. */
    ck_assert_uint_eq(out.n, 2);
    t = &out.v[0];
    ck_assert_str_eq(t->name, "add");
    ck_assert_str_eq(t->dtype, "float32");
    ck_assert_int_eq(t->ndim, 2);
    assert_dim(&t->dims[0], -1, "s0", 1, 64);
    assert_dim(&t->dims[1], 8, "", -1, -1);
    t = &out.v[1];
    ck_assert_str_eq(t->name, "cat");
    ck_assert_str_eq(t->dtype, "bool");
    assert_dim(&t->dims[0], -1, "s0 + 1", -1, -1);
    assert_dim(&t->dims[1], 4, "", -1, -1); /* Integer(4) is a fixed size */

    pt2_tensor_list_free(&in);
    pt2_tensor_list_free(&out);
    free(buf);
}
END_TEST

/* The first violation of a validation (malloc'd), or NULL when the shapes are fine. */
static char *first_violation(const struct pt2_tensor_list *in, const cJSON *proposed)
{
    struct pt2_error err = {0};
    cJSON *errors = cJSON_CreateArray();
    char *msg = NULL;

    ck_assert_int_eq(pt2_tensor_validate(in, proposed, errors, &err), PT2_OK);
    if (cJSON_GetArraySize(errors) > 0)
        msg = strdup(pt2_json_str(cJSON_GetArrayItem(errors, 0), "message"));
    cJSON_Delete(errors);
    return msg;
}

START_TEST(test_dynamic_program_views_and_validation)
{
    struct pt2_tensor_list in = {0}, out = {0};
    struct pt2_error err = {0};
    cJSON *j = NULL, *p;
    size_t len;
    char *buf = load("json/eprog_dynamic.json", &len), *s, *msg = NULL;

    ck_assert_int_eq(pt2_eprog_parse(buf, len, "m/models/model.json", &in, &out, &err), PT2_OK);
    ck_assert_int_eq(pt2_tensor_to_json(&in.v[0], PT2_JSON_DEFAULT, &j, &err), PT2_OK);
    s = cJSON_PrintUnformatted(j);
    ck_assert_str_eq(s, "{\"name\":\"x\",\"shape\":[\"s0\",3,\"s1\",\"s1\"],\"dtype\":\"bfloat16\","
                        "\"description\":null,\"ndim\":4,\"fixed_shape\":{\"1\":3},"
                        "\"shape_description\":\"(s0, 3, s1, s1)\",\"dynamic_dims\":["
                        "{\"axis\":0,\"symbol\":\"s0\",\"min\":1,\"max\":64},"
                        "{\"axis\":2,\"symbol\":\"s1\",\"min\":2,\"max\":null},"
                        "{\"axis\":3,\"symbol\":\"s1\",\"min\":2,\"max\":null}]}");
    cJSON_free(s);
    cJSON_Delete(j);
    ck_assert_int_eq(pt2_tensor_list_to_json(&in, PT2_JSON_OIP, &j, &err), PT2_OK);
    s = cJSON_PrintUnformatted(j);
    /* x is bfloat16, which the Open Inference Protocol has no datatype for: left out. */
    ck_assert_str_eq(s, "[{\"name\":\"y\",\"datatype\":\"INT64\",\"shape\":[-1,-1]}]");
    cJSON_free(s);
    cJSON_Delete(j);

    p = cJSON_Parse("{\"x\":[4,3,5,5],\"y\":[4,10]}");
    msg = first_violation(&in, p);
    ck_assert_ptr_null(msg);
    cJSON_Delete(p);
    p = cJSON_Parse("{\"x\":[4,3,5,5],\"y\":[8,10]}");
    msg = first_violation(&in, p);
    ck_assert_str_eq(msg, "input 'y' axis 0: dynamic dim 's0' is 4 in input 'x' but 8 here");
    free(msg);
    cJSON_Delete(p);
    p = cJSON_Parse("{\"x\":[100,3,5,5],\"y\":[100,10]}");
    msg = first_violation(&in, p);
    ck_assert_str_eq(msg, "input 'x' axis 0: dynamic dim 's0' must be in [1, 64], got 100");
    free(msg);
    cJSON_Delete(p);
    p = cJSON_Parse("{\"x\":[4,3,1,1],\"y\":[4,10]}");
    msg = first_violation(&in, p);
    ck_assert_str_eq(msg, "input 'x' axis 2: dynamic dim 's1' must be >= 2, got 1");
    free(msg);
    cJSON_Delete(p);

    pt2_tensor_list_free(&in);
    pt2_tensor_list_free(&out);
    free(buf);
}
END_TEST

START_TEST(test_old_schema_unions)
{
    struct pt2_tensor_list in = {0}, out = {0};
    struct pt2_error err = {0};
    size_t len;
    char *buf = load("json/eprog_old_schema.json", &len);

    ck_assert_int_eq(pt2_eprog_parse(buf, len, "serialized_exported_program.json", &in, &out, &err),
                     PT2_OK);
    ck_assert_uint_eq(in.n, 1);
    ck_assert_str_eq(in.v[0].name, "x");
    ck_assert_str_eq(in.v[0].dtype, "float32");
    ck_assert_int_eq(in.v[0].ndim, 2);
    assert_dim(&in.v[0].dims[0], -1, "s0", 2, -1);
    assert_dim(&in.v[0].dims[1], 10, "", -1, -1);
    ck_assert_uint_eq(out.n, 1);
    ck_assert_str_eq(out.v[0].name, "out");
    ck_assert_str_eq(out.v[0].dtype, "float16");
    assert_dim(&out.v[0].dims[0], -1, "s0", 2, -1);
    assert_dim(&out.v[0].dims[1], 4, "", -1, -1);
    pt2_tensor_list_free(&in);
    pt2_tensor_list_free(&out);
    free(buf);
}
END_TEST

START_TEST(test_symint_forms)
{
    struct pt2_tensor_list in = {0};
    struct pt2_error err = {0};

    /* str() form, srepr form, bare-string as_expr, scalar and range bounds. */
    ck_assert_int_eq(
        parse_one("{\"dtype\":7,\"sizes\":[{\"as_expr\":{\"expr_str\":\"s0\"}},"
                  "{\"as_expr\":{\"expr_str\":\"Symbol('s1', integer=True, positive=True)\","
                  "\"hint\":{\"as_int\":4}}},{\"as_expr\":\"s2\"},{\"as_int\":0}]}",
                  "{\"s0\":{\"min_val\":0,\"max_val\":null},\"s1\":{\"min_val\":null,"
                  "\"max_val\":16},\"s2\":{\"min_val\":-5,\"max_val\":\"Infinity\"}}",
                  &in, &err),
        PT2_OK);
    ck_assert_int_eq(in.v[0].ndim, 4);
    assert_dim(&in.v[0].dims[0], -1, "s0", 0, -1);
    assert_dim(&in.v[0].dims[1], -1, "s1", -1, 16);
    assert_dim(&in.v[0].dims[2], -1, "s2", -1, -1);
    assert_dim(&in.v[0].dims[3], 0, "", -1, -1);
    pt2_tensor_list_free(&in);

    /* A scalar tensor; range_constraints may be null or absent. */
    ck_assert_int_eq(parse_one("{\"dtype\":12,\"sizes\":[]}", "null", &in, &err), PT2_OK);
    ck_assert_int_eq(in.v[0].ndim, 0);
    pt2_tensor_list_free(&in);

    /* A bound of 2^62 (beyond exact doubles) is unbounded. */
    ck_assert_int_eq(parse_one("{\"dtype\":7,\"sizes\":[{\"as_expr\":{\"expr_str\":\"s0\"}}]}",
                               "{\"s0\":{\"min_val\":2,\"max_val\":4611686018427387904}}", &in,
                               &err),
                     PT2_OK);
    assert_dim(&in.v[0].dims[0], -1, "s0", 2, -1);
    pt2_tensor_list_free(&in);
}
END_TEST

START_TEST(test_non_tensor_user_io_skipped)
{
    static const char doc[] = "{\"graph_module\":{\"graph\":{\"tensor_values\":{}},\"signature\":{"
                              "\"input_specs\":[{\"user_input\":{\"arg\":{\"as_int\":3}}},"
                              "{\"user_input\":{\"arg\":{\"as_float\":0.5}}},"
                              "{\"user_input\":{\"arg\":{\"as_sym_int\":{\"as_name\":\"s0\"}}}},"
                              "{\"user_input\":{\"arg\":{\"as_none\":true}}},"
                              "{\"token\":{\"arg\":{\"name\":\"tok\"}}}],"
                              "\"output_specs\":[{\"user_output\":{\"arg\":{\"as_int\":1}}}]}}}";
    struct pt2_tensor_list in = {0}, out = {0};
    struct pt2_error err = {0};

    ck_assert_int_eq(pt2_eprog_parse(doc, strlen(doc), "m.json", &in, &out, &err), PT2_OK);
    ck_assert_uint_eq(in.n, 0);
    ck_assert_uint_eq(out.n, 0);
}
END_TEST

/* Repeated keys: the first one counts, as cJSON_GetObjectItemCaseSensitive has it. */
START_TEST(test_repeated_keys_first_wins)
{
    static const char doc[] =
        "{\"graph_module\":{\"graph\":{\"tensor_values\":{"
        "\"x\":{\"dtype\":7,\"sizes\":[{\"as_expr\":{\"expr_str\":\"s0\"}}]},"
        "\"y\":{\"dtype\":5,\"sizes\":[{\"as_expr\":{\"expr_str\":\"s0\"}},{\"as_int\":3}]},"
        "\"x\":{\"dtype\":6,\"sizes\":[]}}},"
        "\"signature\":{\"input_specs\":["
        "{\"user_input\":{\"arg\":{\"as_tensor\":{\"name\":\"x\"}}}},"
        "{\"user_input\":{\"arg\":{\"as_tensor\":{\"name\":\"y\"}}}},"
        "{\"user_input\":{\"arg\":{\"as_tensor\":{\"name\":\"x\"}}}}],"
        "\"output_specs\":[{\"user_output\":{\"arg\":{\"as_tensor\":{\"name\":\"y\"}}}}]}},"
        "\"range_constraints\":{\"s0\":{\"min_val\":2,\"max_val\":8},"
        "\"s0\":{\"min_val\":3,\"max_val\":9}}}";
    struct pt2_tensor_list in = {0}, out = {0};
    struct pt2_error err = {0};
    size_t k;

    ck_assert_int_eq(pt2_eprog_parse(doc, strlen(doc), "m.json", &in, &out, &err), PT2_OK);
    ck_assert_uint_eq(in.n, 3);
    ck_assert_uint_eq(out.n, 1);
    for (k = 0; k < 3; k += 2) {
        ck_assert_str_eq(in.v[k].name, "x");
        ck_assert_str_eq(in.v[k].dtype, "float32");
        ck_assert_int_eq(in.v[k].ndim, 1);
        assert_dim(&in.v[k].dims[0], -1, "s0", 2, 8);
    }
    ck_assert_str_eq(in.v[1].name, "y");
    ck_assert_str_eq(in.v[1].dtype, "int64");
    ck_assert_int_eq(in.v[1].ndim, 2);
    assert_dim(&in.v[1].dims[0], -1, "s0", 2, 8);
    assert_dim(&in.v[1].dims[1], 3, "", -1, -1);
    ck_assert_str_eq(out.v[0].name, "y");
    ck_assert_int_eq(out.v[0].ndim, 2);
    assert_dim(&out.v[0].dims[0], -1, "s0", 2, 8);
    pt2_tensor_list_free(&in);
    pt2_tensor_list_free(&out);
}
END_TEST

/* Append to a growing heap buffer (the test fails on overflow of `cap`). */
static void app(char *buf, size_t cap, size_t *pos, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(buf + *pos, cap - *pos, fmt, ap);
    va_end(ap);
    ck_assert_int_ge(n, 0);
    ck_assert_uint_lt((size_t)n, cap - *pos);
    *pos += (size_t)n;
}

/*
 * 4000 inputs and an output all naming one tensor of 32 symbolic dims, in a
 * tensor_values of 20,000 members and a range_constraints of 100,000, the
 * ones used last. Looking each name up by walking the object took
 * 4001 x 32 x 100,000 steps (48 s for a 135 KB package); with the sorted
 * index, and each member decoded once, this parses in milliseconds.
 */
START_TEST(test_many_lookups_in_big_objects)
{
    const size_t cap = 8u * 1024u * 1024u;
    char *doc = malloc(cap);
    struct pt2_tensor_list in = {0}, out = {0};
    struct pt2_error err = {0};
    size_t pos = 0, i;
    int d;

    ck_assert_ptr_nonnull(doc);
    app(doc, cap, &pos, "{\"graph_module\":{\"graph\":{\"tensor_values\":{");
    for (i = 0; i < 20000; i++)
        app(doc, cap, &pos, "\"t%zu\":{\"dtype\":7,\"sizes\":[]},", i);
    app(doc, cap, &pos, "\"x\":{\"dtype\":7,\"sizes\":[");
    for (d = 0; d < PT2_DIMS_MAX; d++)
        app(doc, cap, &pos, "%s{\"as_expr\":{\"expr_str\":\"s%d\"}}", d ? "," : "", d);
    app(doc, cap, &pos, "]}}},\"signature\":{\"input_specs\":[");
    for (i = 0; i < 4000; i++)
        app(doc, cap, &pos, "%s{\"user_input\":{\"arg\":{\"as_tensor\":{\"name\":\"x\"}}}}",
            i ? "," : "");
    app(doc, cap, &pos,
        "],\"output_specs\":[{\"user_output\":{\"arg\":{\"as_tensor\":{\"name\":\"x\"}}}}]}},"
        "\"range_constraints\":{");
    for (i = 0; i < 100000; i++)
        app(doc, cap, &pos, "\"r%zu\":null,", i);
    for (d = 0; d < PT2_DIMS_MAX; d++)
        app(doc, cap, &pos, "%s\"s%d\":{\"min_val\":%d,\"max_val\":%d}", d ? "," : "", d, d + 2,
            1000 + d);
    app(doc, cap, &pos, "}}");

    ck_assert_int_eq(pt2_eprog_parse(doc, pos, "m.json", &in, &out, &err), PT2_OK);
    ck_assert_uint_eq(in.n, 4000);
    ck_assert_uint_eq(out.n, 1);
    for (i = 0; i < in.n; i += 3999) {
        ck_assert_str_eq(in.v[i].name, "x");
        ck_assert_int_eq(in.v[i].ndim, PT2_DIMS_MAX);
        assert_dim(&in.v[i].dims[0], -1, "s0", 2, 1000);
        assert_dim(&in.v[i].dims[31], -1, "s31", 33, 1031);
    }
    assert_dim(&out.v[0].dims[17], -1, "s17", 19, 1017);
    pt2_tensor_list_free(&in);
    pt2_tensor_list_free(&out);
    free(doc);
}
END_TEST

START_TEST(test_program_errors)
{
    char buf[1024];

    ck_assert_str_eq(prog_error("[]", buf, sizeof(buf)),
                     "-7 models/m.json: must be a JSON object, got an array");
    ck_assert_str_eq(prog_error("{}", buf, sizeof(buf)),
                     "-7 models/m.json: graph_module with graph and signature objects is missing");
    ck_assert_str_eq(
        prog_error("{\"graph_module\":{\"graph\":{},\"signature\":{}}}", buf, sizeof(buf)),
        "-7 models/m.json: graph_module.graph.tensor_values must be an object");
    ck_assert_str_eq(
        prog_error("{\"graph_module\":{\"graph\":{\"tensor_values\":{}},\"signature\":{}}}", buf,
                   sizeof(buf)),
        "-7 models/m.json: graph_module.signature.input_specs must be an array");
    ck_assert_str_eq(prog_error("{\"graph_module\":{\"graph\":{\"tensor_values\":{}},\"signature\":"
                                "{\"input_specs\":[]}}}",
                                buf, sizeof(buf)),
                     "-7 models/m.json: graph_module.signature.output_specs must be an array");
    ck_assert_str_eq(prog_error("{\"graph_module\":{\"graph\":{\"tensor_values\":{}},\"signature\":"
                                "{\"input_specs\":[{\"parameter\":{}},{\"user_input\":null}],"
                                "\"output_specs\":[]}}}",
                                buf, sizeof(buf)),
                     "-7 models/m.json: graph_module.signature.input_specs[1] has no variant");
    ck_assert_str_eq(prog_error("{\"graph_module\":{\"graph\":{\"tensor_values\":{}},\"signature\":"
                                "{\"input_specs\":[7],\"output_specs\":[]}}}",
                                buf, sizeof(buf)),
                     "-7 models/m.json: graph_module.signature.input_specs[0] has no variant");
    ck_assert_str_eq(
        prog_error("{\"graph_module\":{\"graph\":{\"tensor_values\":{}},\"signature\":"
                   "{\"input_specs\":[{\"user_input\":{\"arg\":{}}}],\"output_specs\":[]}}}",
                   buf, sizeof(buf)),
        "-7 models/m.json: graph_module.signature.input_specs[0].user_input.arg has "
        "no variant");
    ck_assert_str_eq(prog_error("{\"graph_module\":{\"graph\":{\"tensor_values\":{}},\"signature\":"
                                "{\"input_specs\":[{\"user_input\":{\"arg\":{\"as_tensor\":{}}}}],"
                                "\"output_specs\":[]}}}",
                                buf, sizeof(buf)),
                     "-7 models/m.json: graph_module.signature.input_specs[0].user_input.arg."
                     "as_tensor.name must be a non-empty string");
    ck_assert_str_eq(prog_error("{\"graph_module\":{\"graph\":{\"tensor_values\":{}},\"signature\":"
                                "{\"input_specs\":[{\"user_input\":{\"arg\":{\"as_tensor\":"
                                "{\"name\":\"x\"}}}}],\"output_specs\":[]}}}",
                                buf, sizeof(buf)),
                     "-7 models/m.json: graph_module.graph.tensor_values has no entry for user "
                     "input 'x'");
    ck_assert_str_eq(prog_error("{\"graph_module\":{\"graph\":{\"tensor_values\":{}},\"signature\":"
                                "{\"input_specs\":[],\"output_specs\":[{\"user_output\":{\"arg\":"
                                "{\"as_tensor\":{\"name\":\"y\"}}}}]}}}",
                                buf, sizeof(buf)),
                     "-7 models/m.json: graph_module.graph.tensor_values has no entry for user "
                     "output 'y'");
    ck_assert_str_eq(
        prog_error("{\"graph_module\":{\"graph\":{\"tensor_values\":{}},\"signature\":"
                   "{\"input_specs\":[],\"output_specs\":[]}},\"range_constraints\":[]}",
                   buf, sizeof(buf)),
        "-7 models/m.json: range_constraints must be an object, got an array");
    ck_assert_str_eq(prog_error("{\"graph_module\":", buf, sizeof(buf)),
                     "-7 models/m.json: invalid JSON near byte 15");
}
END_TEST

START_TEST(test_tensor_meta_errors)
{
    char buf[1024];

    ck_assert_str_eq(meta_error("{\"sizes\":[]}", "{}", buf, sizeof(buf)),
                     "-7 models/m.json: tensor_values.x.dtype must be an integer");
    ck_assert_str_eq(meta_error("{\"dtype\":7.5,\"sizes\":[]}", "{}", buf, sizeof(buf)),
                     "-7 models/m.json: tensor_values.x.dtype must be an integer");
    ck_assert_str_eq(meta_error("{\"dtype\":7}", "{}", buf, sizeof(buf)),
                     "-7 models/m.json: tensor_values.x.sizes must be an array");
    ck_assert_str_eq(meta_error("{\"dtype\":7,\"sizes\":[3]}", "{}", buf, sizeof(buf)),
                     "-7 models/m.json: tensor_values.x.sizes[0] must be a SymInt object");
    ck_assert_str_eq(
        meta_error("{\"dtype\":7,\"sizes\":[{\"as_int\":-3}]}", "{}", buf, sizeof(buf)),
        "-7 models/m.json: tensor_values.x.sizes[0].as_int must be a non-negative "
        "integer");
    ck_assert_str_eq(meta_error("{\"dtype\":7,\"sizes\":[{\"as_int\":1},{\"as_sym\":\"s0\"}]}",
                                "{}", buf, sizeof(buf)),
                     "-7 models/m.json: tensor_values.x.sizes[1]: unsupported SymInt form "
                     "'as_sym'");
    ck_assert_str_eq(meta_error("{\"dtype\":7,\"sizes\":[{\"as_expr\":{\"expr_str\":\"\"}}]}", "{}",
                                buf, sizeof(buf)),
                     "-7 models/m.json: tensor_values.x.sizes[0].as_expr.expr_str must be a "
                     "non-empty string");
    ck_assert_str_eq(
        meta_error("{\"dtype\":7,\"sizes\":[{\"as_expr\":{\"hint\":3}}]}", "{}", buf, sizeof(buf)),
        "-7 models/m.json: tensor_values.x.sizes[0].as_expr.expr_str must be a "
        "non-empty string");
    ck_assert_str_eq(meta_error("{\"dtype\":7,\"sizes\":[{\"as_expr\":{\"expr_str\":\"s0\"}}]}",
                                "{\"s0\":[2,8]}", buf, sizeof(buf)),
                     "-7 models/m.json: range_constraints.s0 must be an object, got an array");
    ck_assert_str_eq(meta_error("{\"dtype\":7,\"sizes\":[{\"as_expr\":{\"expr_str\":\"s0\"}}]}",
                                "{\"s0\":{\"min_val\":true}}", buf, sizeof(buf)),
                     "-7 models/m.json: range_constraints.s0.min_val must be a number or null, "
                     "got a boolean");
    ck_assert_str_eq(meta_error("{\"dtype\":7,\"sizes\":[{\"as_expr\":{\"expr_str\":\"s0\"}}]}",
                                "{\"s0\":{\"min_val\":1,\"max_val\":{}}}", buf, sizeof(buf)),
                     "-7 models/m.json: range_constraints.s0.max_val must be a number or null, "
                     "got an object");
}
END_TEST

START_TEST(test_too_many_dims)
{
    char meta[2048], buf[1024];
    size_t pos;
    int i;

    pos = (size_t)snprintf(meta, sizeof(meta), "{\"dtype\":7,\"sizes\":[");
    for (i = 0; i < 33; i++)
        pos += (size_t)snprintf(meta + pos, sizeof(meta) - pos, "%s{\"as_int\":1}", i ? "," : "");
    snprintf(meta + pos, sizeof(meta) - pos, "]}");
    ck_assert_str_eq(meta_error(meta, "{}", buf, sizeof(buf)),
                     "-7 models/m.json: tensor_values.x.sizes has 33 dimensions (max 32)");
}
END_TEST

START_TEST(test_deep_nesting_and_prefixes)
{
    struct pt2_tensor_list in = {0}, out = {0};
    struct pt2_error err;
    size_t depth = 100000, len, n;
    char *s = malloc(depth * 2), *buf;

    ck_assert_ptr_nonnull(s);
    memset(s, '[', depth);
    memset(s + depth, ']', depth);
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_eprog_parse(s, depth * 2, "m.json", &in, &out, &err), PT2_ERR_METADATA);
    ck_assert_str_eq(err.message, "m.json: JSON nested deeper than 256 levels at byte 256");
    free(s);

    /* Every truncation of a real-looking program fails cleanly. */
    buf = load("json/eprog_dynamic.json", &len);
    for (n = 0; n + 1 < len; n++) {
        pt2_error_clear(&err);
        ck_assert_int_eq(pt2_eprog_parse(buf, n, "m.json", &in, &out, &err), PT2_ERR_METADATA);
        ck_assert_ptr_null(in.v);
        ck_assert_ptr_null(out.v);
    }
    free(buf);
}
END_TEST

/* Deterministic byte mutations of the fixtures: every result is a clean
 * PT2_OK or PT2_ERR_METADATA, and what parses can be viewed and validated. */
START_TEST(test_mutations_never_crash)
{
    static const char *const fixtures[] = {"json/eprog_dynamic.json", "json/eprog_old_schema.json"};
    static const char alphabet[] = "{}[]\",:0123456789-enulltrueas_int\\\x80\xff";
    uint64_t x = 0x9E3779B97F4A7C15ULL;
    struct pt2_tensor_list in = {0}, out = {0};
    struct pt2_error err;
    size_t f, len, k;
    char *orig, *buf, *msg;
    cJSON *j, *prop;
    int iter, rc, nok = 0;

    prop = cJSON_Parse("{\"x\":[4,3,5,5],\"y\":[4,10]}");
    for (f = 0; f < 2; f++) {
        orig = load(fixtures[f], &len);
        buf = malloc(len);
        ck_assert_ptr_nonnull(buf);
        for (iter = 0; iter < 3000; iter++) {
            memcpy(buf, orig, len);
            for (k = 0; k < 1 + (size_t)(iter % 4); k++) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                buf[(x >> 8) % len] = alphabet[(x >> 40) % (sizeof(alphabet) - 1)];
            }
            pt2_error_clear(&err);
            rc = pt2_eprog_parse(buf, len, "m.json", &in, &out, &err);
            ck_assert_msg(rc == PT2_OK || rc == PT2_ERR_METADATA, "rc %d: %s", rc, err.message);
            if (rc != PT2_OK)
                continue;
            nok++;
            ck_assert_int_eq(pt2_tensor_list_to_json(&in, PT2_JSON_DEFAULT, &j, &err), PT2_OK);
            cJSON_Delete(j);
            ck_assert_int_eq(pt2_tensor_list_to_json(&out, PT2_JSON_OIP, &j, &err), PT2_OK);
            cJSON_Delete(j);
            msg = first_violation(&in, prop);
            free(msg);
            pt2_tensor_list_free(&in);
            pt2_tensor_list_free(&out);
        }
        free(buf);
        free(orig);
    }
    /* Some mutations land in ignored text and still parse. */
    ck_assert_int_gt(nok, 0);
    cJSON_Delete(prop);
}
END_TEST

/* The exported program inside pytorch/executorch's extension/pt2_archive/test/linear.pt2. */
START_TEST(test_real_executorch_linear)
{
    struct pt2_tensor_list in = {0}, out = {0};
    struct pt2_error err = {0};
    char path[1024], *buf = NULL;
    const char *p = tu_shared("corpus/pt2/executorch__linear.pt2", path, sizeof(path));
    struct zip_stat st;
    zip_file_t *zf;
    zip_t *za;
    int zerr = 0;

    if (p == NULL) {
        tu_skip("eprog real package", "corpus/pt2/executorch__linear.pt2 not available");
        return;
    }
    za = zip_open(p, ZIP_RDONLY, &zerr);
    ck_assert_ptr_nonnull(za);
    ck_assert_int_eq(zip_stat(za, ENTRY, 0, &st), 0);
    ck_assert_uint_lt(st.size, 1024 * 1024);
    buf = malloc(st.size);
    zf = zip_fopen(za, ENTRY, 0);
    ck_assert_ptr_nonnull(zf);
    ck_assert_int_eq(zip_fread(zf, buf, st.size), (zip_int64_t)st.size);
    zip_fclose(zf);
    zip_close(za);

    ck_assert_int_eq(pt2_eprog_parse(buf, st.size, ENTRY, &in, &out, &err), PT2_OK);
    /* p_linear_weight and p_linear_bias are parameters, not inputs. */
    ck_assert_uint_eq(in.n, 1);
    ck_assert_str_eq(in.v[0].name, "x");
    ck_assert_str_eq(in.v[0].dtype, "float32");
    ck_assert_int_eq(in.v[0].ndim, 1);
    assert_dim(&in.v[0].dims[0], 3, "", -1, -1);
    ck_assert_uint_eq(out.n, 1);
    ck_assert_str_eq(out.v[0].name, "linear");
    ck_assert_str_eq(out.v[0].dtype, "float32");
    ck_assert_int_eq(out.v[0].ndim, 1);
    assert_dim(&out.v[0].dims[0], 3, "", -1, -1);
    pt2_tensor_list_free(&in);
    pt2_tensor_list_free(&out);
    free(buf);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("eprog");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_dtype_codes);
    tcase_add_test(tc, test_dtype_codes_through_parse);
    tcase_add_test(tc, test_dynamic_program);
    tcase_add_test(tc, test_dynamic_program_views_and_validation);
    tcase_add_test(tc, test_old_schema_unions);
    tcase_add_test(tc, test_symint_forms);
    tcase_add_test(tc, test_non_tensor_user_io_skipped);
    tcase_add_test(tc, test_repeated_keys_first_wins);
    tcase_add_test(tc, test_many_lookups_in_big_objects);
    tcase_add_test(tc, test_program_errors);
    tcase_add_test(tc, test_tensor_meta_errors);
    tcase_add_test(tc, test_too_many_dims);
    tcase_add_test(tc, test_deep_nesting_and_prefixes);
    tcase_add_test(tc, test_mutations_never_crash);
    tcase_add_test(tc, test_real_executorch_linear);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
