/*
 * test_meta.c - strict JSON parsing, AOTI metadata map, model_metadata.json.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_meta.h"
#include "testutil.h"

#define ENTRY "extra/model_metadata.json"

static char *load(const char *name, size_t *len)
{
    char path[256];
    char *buf;

    buf = (char *)tu_read_file(tu_fixture(name, path, sizeof(path)), len);
    ck_assert_msg(buf != NULL, "cannot read %s", path);
    return buf;
}

/* Parse `text` strictly; "OK" or "<code> <message>". */
static const char *parse(const char *text, char *buf, size_t len)
{
    struct pt2_error err = {0};
    cJSON *doc = (cJSON *)1;
    int rc = pt2_meta_json_parse(text, strlen(text), "doc.json", &doc, &err);

    if (rc == PT2_OK) {
        ck_assert_ptr_nonnull(doc);
        cJSON_Delete(doc);
        snprintf(buf, len, "OK");
    } else {
        ck_assert_ptr_null(doc);
        snprintf(buf, len, "%d %s", rc, err.message);
    }
    return buf;
}

/* Parse user metadata from text; returns the error message or "OK". */
static const char *user(const char *text, char *buf, size_t len)
{
    struct pt2_meta_user m;
    struct pt2_error err = {0};
    int rc;

    memset(&m, 0x5a, sizeof(m));
    rc = pt2_meta_parse_user(text, strlen(text), ENTRY, &m, &err);
    if (rc == PT2_OK) {
        snprintf(buf, len, "OK");
        pt2_meta_user_free(&m);
    } else {
        /* Nothing is left to free on failure. */
        ck_assert_ptr_null(m.raw);
        ck_assert_ptr_null(m.inputs.v);
        ck_assert_ptr_null(m.outputs.v);
        snprintf(buf, len, "%d %s", rc, err.message);
    }
    return buf;
}

/* ---- strict JSON ---- */

START_TEST(test_json_valid_forms)
{
    char buf[1024];

    ck_assert_str_eq(parse("{\"a\":1}", buf, sizeof(buf)), "OK");
    ck_assert_str_eq(parse(" \n\t{\"a\":[1,2]}\r\n ", buf, sizeof(buf)), "OK");
    ck_assert_str_eq(parse("\xEF\xBB\xBF{\"a\":1}", buf, sizeof(buf)), "OK");
    ck_assert_str_eq(parse("[\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\"]", buf, sizeof(buf)), "OK");
    ck_assert_str_eq(parse("\"brackets in strings [[[{{{ \\\" ]]]\"", buf, sizeof(buf)), "OK");
    ck_assert_str_eq(parse("42", buf, sizeof(buf)), "OK");
}
END_TEST

START_TEST(test_json_errors)
{
    char buf[1024];

    ck_assert_str_eq(parse("", buf, sizeof(buf)), "-7 doc.json: empty document");
    ck_assert_str_eq(parse(" \n ", buf, sizeof(buf)), "-7 doc.json: empty document");
    ck_assert_str_eq(parse("{\"a\": tru}", buf, sizeof(buf)),
                     "-7 doc.json: invalid JSON near byte 6");
    ck_assert_str_eq(parse("{\"a\": 1", buf, sizeof(buf)), "-7 doc.json: invalid JSON near byte 6");
    ck_assert_str_eq(parse("{\"a\": 1} x", buf, sizeof(buf)),
                     "-7 doc.json: unexpected data after the JSON value at byte 9");
    ck_assert_str_eq(parse("{} {}", buf, sizeof(buf)),
                     "-7 doc.json: unexpected data after the JSON value at byte 3");
    ck_assert_str_eq(parse("[\"\xC3\"]", buf, sizeof(buf)), "-7 doc.json: invalid UTF-8 at byte 2");
    ck_assert_str_eq(parse("[\"\xC0\xAF\"]", buf, sizeof(buf)),
                     "-7 doc.json: invalid UTF-8 at byte 2");
    ck_assert_str_eq(parse("[\"\xED\xA0\x80\"]", buf, sizeof(buf)),
                     "-7 doc.json: invalid UTF-8 at byte 2");
    ck_assert_str_eq(parse("[\"\xF4\x90\x80\x80\"]", buf, sizeof(buf)),
                     "-7 doc.json: invalid UTF-8 at byte 2");
    ck_assert_str_eq(parse("[1,\xFF]", buf, sizeof(buf)), "-7 doc.json: invalid UTF-8 at byte 3");
}
END_TEST

START_TEST(test_json_nul_byte)
{
    struct pt2_error err = {0};
    cJSON *doc = NULL;

    ck_assert_int_eq(pt2_meta_json_parse("{\"a\":\"x\0y\"}", 11, "doc.json", &doc, &err),
                     PT2_ERR_METADATA);
    ck_assert_str_eq(err.message, "doc.json: NUL byte at byte 7");
    ck_assert_ptr_null(doc);
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_meta_json_parse(NULL, 10, NULL, &doc, &err), PT2_ERR_METADATA);
    ck_assert_str_eq(err.message, "document: empty document");
    /* Bytes past `len` are never looked at. */
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_meta_json_parse("[1] garbage", 3, "doc.json", &doc, &err), PT2_OK);
    cJSON_Delete(doc);
}
END_TEST

static char *nested(size_t depth, const char *open, const char *close)
{
    char *s = malloc(depth * 2 + 1);
    size_t i;

    ck_assert_ptr_nonnull(s);
    for (i = 0; i < depth; i++) {
        s[i] = open[i % strlen(open)];
        s[depth * 2 - 1 - i] = close[i % strlen(close)];
    }
    s[depth * 2] = '\0';
    return s;
}

START_TEST(test_json_depth)
{
    char buf[1024], *s;

    s = nested(PT2_META_DEPTH_MAX, "[", "]");
    ck_assert_str_eq(parse(s, buf, sizeof(buf)), "OK");
    free(s);
    s = nested(PT2_META_DEPTH_MAX + 1, "[", "]");
    ck_assert_str_eq(parse(s, buf, sizeof(buf)),
                     "-7 doc.json: JSON nested deeper than 256 levels at byte 256");
    free(s);
    /* 100k levels: rejected cleanly, no recursion into cJSON. */
    s = nested(100000, "[", "]");
    ck_assert_str_eq(parse(s, buf, sizeof(buf)),
                     "-7 doc.json: JSON nested deeper than 256 levels at byte 256");
    free(s);
}
END_TEST

START_TEST(test_json_too_large)
{
    struct pt2_error err = {0};
    size_t len = PT2_META_JSON_MAX + 1;
    char *big = malloc(len);
    cJSON *doc = NULL;

    ck_assert_ptr_nonnull(big);
    memset(big, ' ', len);
    big[0] = '1';
    ck_assert_int_eq(pt2_meta_json_parse(big, len, "big.json", &doc, &err), PT2_ERR_TOO_LARGE);
    ck_assert_str_eq(err.message, "big.json: 16777217 bytes of JSON (max 16777216)");
    ck_assert_ptr_null(doc);
    /* One byte less is fine. */
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_meta_json_parse(big, len - 1, "big.json", &doc, &err), PT2_OK);
    ck_assert_int_eq(cJSON_IsNumber(doc), 1);
    cJSON_Delete(doc);
    free(big);
}
END_TEST

START_TEST(test_json_type_names)
{
    static const char *const texts[] = {"{}", "[]", "\"s\"", "1", "true", "null"};
    static const char *const names[] = {"an object", "an array",  "a string",
                                        "a number",  "a boolean", "null"};
    size_t i;

    for (i = 0; i < 6; i++) {
        cJSON *j = cJSON_Parse(texts[i]);
        ck_assert_str_eq(pt2_meta_json_type(j), names[i]);
        cJSON_Delete(j);
    }
}
END_TEST

/* ---- AOTI metadata ---- */

START_TEST(test_aoti_fixture)
{
    struct pt2_error err = {0};
    cJSON *map = NULL;
    size_t len;
    char *buf = load("json/aoti_metadata.json", &len), *s;

    ck_assert_int_eq(
        pt2_meta_parse_aoti(buf, len, "data/aotinductor/model/x_metadata.json", &map, &err),
        PT2_OK);
    s = cJSON_PrintUnformatted(map);
    ck_assert_str_eq(s, "{\"AOTI_DEVICE_KEY\":\"cuda\",\"AOTI_COMPUTE_CAPABILITY\":\"90\","
                        "\"n_cvs\":\"2\",\"epsilon\":\"1.5\",\"calculate_gradients\":\"true\","
                        "\"note\":\"null\",\"nested\":{\"a\":[1,2]},\"list\":[\"x\"]}");
    cJSON_free(s);
    cJSON_Delete(map);
    free(buf);
}
END_TEST

START_TEST(test_aoti_repeated_keys_last_wins)
{
    static const char text[] =
        "{\"AOTI_DEVICE_KEY\":\"cpu\",\"a\":\"1\",\"AOTI_DEVICE_KEY\":\"cuda\",\"b\":false,"
        "\"a\":\"2\",\"a\":\"3\"}";
    struct pt2_error err = {0};
    cJSON *map = NULL;
    char *s;

    ck_assert_int_eq(pt2_meta_parse_aoti(text, strlen(text), "m.json", &map, &err), PT2_OK);
    s = cJSON_PrintUnformatted(map);
    ck_assert_str_eq(s, "{\"AOTI_DEVICE_KEY\":\"cuda\",\"b\":\"false\",\"a\":\"3\"}");
    cJSON_free(s);
    cJSON_Delete(map);
}
END_TEST

START_TEST(test_aoti_errors)
{
    struct pt2_error err = {0};
    cJSON *map = (cJSON *)1;

    ck_assert_int_eq(pt2_meta_parse_aoti("[1]", 3, "m.json", &map, &err), PT2_ERR_METADATA);
    ck_assert_str_eq(err.message, "m.json: must be a JSON object, got an array");
    ck_assert_ptr_null(map);
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_meta_parse_aoti("\"cpu\"", 5, "m.json", &map, &err), PT2_ERR_METADATA);
    ck_assert_str_eq(err.message, "m.json: must be a JSON object, got a string");
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_meta_parse_aoti("{\"a\":", 5, "m.json", &map, &err), PT2_ERR_METADATA);
    ck_assert_str_eq(err.message, "m.json: invalid JSON near byte 4");
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_meta_parse_aoti("{}", 2, "m.json", &map, &err), PT2_OK);
    ck_assert_int_eq(cJSON_GetArraySize(map), 0);
    cJSON_Delete(map);
}
END_TEST

START_TEST(test_aoti_deep_nesting)
{
    /* {"a":{"a":...1...}} 100k levels deep. */
    struct pt2_error err = {0};
    size_t depth = 100000, pos = 0, i;
    char *s = malloc(depth * 6 + 2);
    cJSON *map = NULL;

    ck_assert_ptr_nonnull(s);
    for (i = 0; i < depth; i++, pos += 5)
        memcpy(s + pos, "{\"a\":", 5);
    s[pos++] = '1';
    memset(s + pos, '}', depth);
    pos += depth;
    ck_assert_int_eq(pt2_meta_parse_aoti(s, pos, "m.json", &map, &err), PT2_ERR_METADATA);
    ck_assert_str_eq(err.message, "m.json: JSON nested deeper than 256 levels at byte 1280");
    ck_assert_ptr_null(map);
    free(s);
}
END_TEST

/* ---- model_metadata.json ---- */

static void assert_dim(const struct pt2_dim *d, int64_t size, const char *sym)
{
    ck_assert_int_eq(d->size, size);
    ck_assert_str_eq(d->symbol, sym);
    ck_assert_int_eq(d->min, -1);
    ck_assert_int_eq(d->max, -1);
}

START_TEST(test_user_array_form)
{
    struct pt2_meta_user m;
    struct pt2_error err = {0};
    const struct pt2_tensor *t;
    size_t len;
    char *buf = load("json/user_meta_array.json", &len);

    ck_assert_int_eq(pt2_meta_parse_user(buf, len, ENTRY, &m, &err), PT2_OK);
    ck_assert_str_eq(m.model, "SegFormerB2");
    ck_assert_uint_eq(m.inputs.n, 4);
    ck_assert_uint_eq(m.outputs.n, 1);

    t = &m.inputs.v[0];
    ck_assert_str_eq(t->name, "image");
    ck_assert_str_eq(t->dtype, "float32");
    ck_assert_str_eq(t->description, "RGB image, normalised");
    ck_assert_int_eq(t->ndim, 4);
    assert_dim(&t->dims[0], -1, "B");
    assert_dim(&t->dims[1], 3, "");
    assert_dim(&t->dims[2], 512, "");
    assert_dim(&t->dims[3], 512, "");

    t = &m.inputs.v[1];
    ck_assert_str_eq(t->name, "scale");
    ck_assert_str_eq(t->dtype, "float16");
    ck_assert_str_eq(t->description, "");
    ck_assert_int_eq(t->ndim, 1);
    assert_dim(&t->dims[0], -1, "B");

    t = &m.inputs.v[2];
    ck_assert_str_eq(t->name, "mask");
    ck_assert_str_eq(t->dtype, "bool");
    ck_assert_int_eq(t->ndim, 3);
    assert_dim(&t->dims[0], -1, "");
    assert_dim(&t->dims[1], -1, "");
    assert_dim(&t->dims[2], 7, "");

    t = &m.inputs.v[3];
    ck_assert_str_eq(t->name, "extra");
    ck_assert_str_eq(t->dtype, "int64");
    ck_assert_int_eq(t->ndim, -1);

    t = &m.outputs.v[0];
    ck_assert_str_eq(t->name, "logits");
    ck_assert_str_eq(t->dtype, "bfloat16");
    ck_assert_str_eq(t->description, "class scores");
    ck_assert_int_eq(t->ndim, 4);
    assert_dim(&t->dims[0], -1, "B");
    assert_dim(&t->dims[1], 19, "");

    /* The raw document keeps keys the parser does not interpret. */
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(m.raw, "version")->valuestring, "1.4.0");
    pt2_meta_user_free(&m);
    ck_assert_ptr_null(m.raw);
    ck_assert_ptr_null(m.inputs.v);
    pt2_meta_user_free(&m);
    pt2_meta_user_free(NULL);
    free(buf);
}
END_TEST

START_TEST(test_user_object_form)
{
    struct pt2_meta_user m;
    struct pt2_error err = {0};
    size_t len;
    char *buf = load("json/user_meta_object.json", &len);

    ck_assert_int_eq(pt2_meta_parse_user(buf, len, ENTRY, &m, &err), PT2_OK);
    ck_assert_str_eq(m.model, "Encoder");
    ck_assert_uint_eq(m.inputs.n, 2);
    ck_assert_str_eq(m.inputs.v[0].name, "tokens");
    ck_assert_str_eq(m.inputs.v[0].dtype, "int64");
    ck_assert_int_eq(m.inputs.v[0].ndim, 2);
    assert_dim(&m.inputs.v[0].dims[0], -1, "batch");
    assert_dim(&m.inputs.v[0].dims[1], -1, "seq");
    ck_assert_str_eq(m.inputs.v[1].name, "lengths");
    ck_assert_str_eq(m.inputs.v[1].dtype, "");
    ck_assert_int_eq(m.inputs.v[1].ndim, 1);
    assert_dim(&m.inputs.v[1].dims[0], -1, "batch");
    ck_assert_uint_eq(m.outputs.n, 1);
    ck_assert_str_eq(m.outputs.v[0].name, "embedding");
    ck_assert_str_eq(m.outputs.v[0].dtype, "float32");
    assert_dim(&m.outputs.v[0].dims[1], 768, "");
    pt2_meta_user_free(&m);
    free(buf);
}
END_TEST

START_TEST(test_user_model_name_fallbacks)
{
    static const char *const docs[] = {
        "{\"model_name\":\"A\",\"class_name\":\"B\"}",
        "{\"class_name\":\"B\"}",
        "{\"model\":\"M\",\"model_class\":\"C\"}",
        "{\"model\":null,\"model_class\":\"C\"}",
        "{}",
    };
    static const char *const want[] = {"A", "B", "M", "C", ""};
    struct pt2_meta_user m;
    struct pt2_error err = {0};
    size_t i;

    for (i = 0; i < 5; i++) {
        ck_assert_int_eq(pt2_meta_parse_user(docs[i], strlen(docs[i]), ENTRY, &m, &err), PT2_OK);
        ck_assert_str_eq(m.model, want[i]);
        ck_assert_uint_eq(m.inputs.n, 0);
        ck_assert_uint_eq(m.outputs.n, 0);
        pt2_meta_user_free(&m);
    }
}
END_TEST

START_TEST(test_user_shape_errors)
{
    char buf[1024];

    ck_assert_str_eq(user("{\"inputs\":[{\"name\":\"a\",\"shape\":[1]},"
                          "{\"name\":\"b\",\"shape\":[1,2,true]}]}",
                          buf, sizeof(buf)),
                     "-7 extra/model_metadata.json: inputs[1].shape[2] must be an integer, a "
                     "symbol string, null or -1");
    ck_assert_str_eq(user("{\"inputs\":[{\"name\":\"a\",\"shape\":[-2]}]}", buf, sizeof(buf)),
                     "-7 extra/model_metadata.json: inputs[0].shape[0] must be an integer, a "
                     "symbol string, null or -1");
    ck_assert_str_eq(user("{\"inputs\":[{\"name\":\"a\",\"shape\":[2.5]}]}", buf, sizeof(buf)),
                     "-7 extra/model_metadata.json: inputs[0].shape[0] must be an integer, a "
                     "symbol string, null or -1");
    ck_assert_str_eq(user("{\"inputs\":[{\"name\":\"a\",\"shape\":[\"\"]}]}", buf, sizeof(buf)),
                     "-7 extra/model_metadata.json: inputs[0].shape[0] must be an integer, a "
                     "symbol string, null or -1");
    ck_assert_str_eq(user("{\"inputs\":[{\"name\":\"a\",\"shape\":[[1]]}]}", buf, sizeof(buf)),
                     "-7 extra/model_metadata.json: inputs[0].shape[0] must be an integer, a "
                     "symbol string, null or -1");
    ck_assert_str_eq(user("{\"inputs\":[{\"name\":\"a\",\"shape\":[1e300]}]}", buf, sizeof(buf)),
                     "-7 extra/model_metadata.json: inputs[0].shape[0] must be an integer, a "
                     "symbol string, null or -1");
    ck_assert_str_eq(user("{\"inputs\":[{\"name\":\"a\",\"shape\":[\"abcdefghijabcdefghijabcdefghij"
                          "abcdefghijabcdefghijabcdefghijabcd\"]}]}",
                          buf, sizeof(buf)),
                     "-7 extra/model_metadata.json: inputs[0].shape[0] symbol is longer than 63 "
                     "bytes");
    ck_assert_str_eq(user("{\"inputs\":[{\"name\":\"a\",\"shape\":\"1x2\"}]}", buf, sizeof(buf)),
                     "-7 extra/model_metadata.json: inputs[0].shape must be an array or null, got "
                     "a string");
    ck_assert_str_eq(user("{\"outputs\":{\"y\":{\"shape\":{}}}}", buf, sizeof(buf)),
                     "-7 extra/model_metadata.json: outputs.y.shape must be an array or null, got "
                     "an object");
    ck_assert_str_eq(user("{\"inputs\":[{\"name\":\"a\",\"shape\":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,"
                          "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]}]}",
                          buf, sizeof(buf)),
                     "-7 extra/model_metadata.json: inputs[0].shape has 33 dimensions (max 32)");
    /* Exactly 32 is fine; 63-byte symbols are fine. */
    ck_assert_str_eq(user("{\"inputs\":[{\"name\":\"a\",\"shape\":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,"
                          "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]}]}",
                          buf, sizeof(buf)),
                     "OK");
    ck_assert_str_eq(user("{\"inputs\":[{\"name\":\"a\",\"shape\":[\"abcdefghijabcdefghijabcdefghij"
                          "abcdefghijabcdefghijabcdefghijabc\"]}]}",
                          buf, sizeof(buf)),
                     "OK");
}
END_TEST

START_TEST(test_user_field_errors)
{
    char buf[1024];

    ck_assert_str_eq(user("[]", buf, sizeof(buf)),
                     "-7 extra/model_metadata.json: must be a JSON object, got an array");
    ck_assert_str_eq(user("{\"model\":3}", buf, sizeof(buf)),
                     "-7 extra/model_metadata.json: model must be a string, got a number");
    ck_assert_str_eq(user("{\"model_class\":[\"x\"]}", buf, sizeof(buf)),
                     "-7 extra/model_metadata.json: model_class must be a string, got an array");
    ck_assert_str_eq(user("{\"inputs\":\"image\"}", buf, sizeof(buf)),
                     "-7 extra/model_metadata.json: inputs must be an array or an object, got a "
                     "string");
    ck_assert_str_eq(user("{\"outputs\":7}", buf, sizeof(buf)),
                     "-7 extra/model_metadata.json: outputs must be an array or an object, got a "
                     "number");
    ck_assert_str_eq(user("{\"inputs\":[\"image\"]}", buf, sizeof(buf)),
                     "-7 extra/model_metadata.json: inputs[0] must be an object, got a string");
    ck_assert_str_eq(user("{\"inputs\":{\"x\":5}}", buf, sizeof(buf)),
                     "-7 extra/model_metadata.json: inputs.x must be an object, got a number");
    ck_assert_str_eq(user("{\"inputs\":[{\"shape\":[1]}]}", buf, sizeof(buf)),
                     "-7 extra/model_metadata.json: inputs[0].name is missing");
    ck_assert_str_eq(user("{\"inputs\":[{\"name\":5}]}", buf, sizeof(buf)),
                     "-7 extra/model_metadata.json: inputs[0].name must be a string, got a number");
    ck_assert_str_eq(user("{\"inputs\":[{\"name\":\"\"}]}", buf, sizeof(buf)),
                     "-7 extra/model_metadata.json: inputs[0].name is empty");
    ck_assert_str_eq(user("{\"inputs\":{\"\":[1]}}", buf, sizeof(buf)),
                     "-7 extra/model_metadata.json: inputs has a member with an empty name");
    ck_assert_str_eq(user("{\"inputs\":[{\"name\":\"a\",\"dtype\":32}]}", buf, sizeof(buf)),
                     "-7 extra/model_metadata.json: inputs[0].dtype must be a string, got a "
                     "number");
    ck_assert_str_eq(user("{\"inputs\":[{\"name\":\"a\",\"dtype\":\"float32\","
                          "\"description\":{}}]}",
                          buf, sizeof(buf)),
                     "-7 extra/model_metadata.json: inputs[0].description must be a string, got "
                     "an object");
    ck_assert_str_eq(user("{\"inputs\":[{\"name\":\"a\"},{\"name\":\"a\"}]}", buf, sizeof(buf)),
                     "-7 extra/model_metadata.json: inputs[1]: name 'a' is used twice");
    ck_assert_str_eq(user("{\"inputs\":{\"a\":[1],\"a\":[2]}}", buf, sizeof(buf)),
                     "-7 extra/model_metadata.json: inputs.a: name 'a' is used twice");
    /* Inputs and outputs are separate namespaces. */
    ck_assert_str_eq(
        user("{\"inputs\":[{\"name\":\"a\"}],\"outputs\":[{\"name\":\"a\"}]}", buf, sizeof(buf)),
        "OK");
}
END_TEST

START_TEST(test_user_long_strings)
{
    char doc[2048], name[200], buf[1024];

    memset(name, 'n', 128);
    name[128] = '\0';
    snprintf(doc, sizeof(doc), "{\"inputs\":[{\"name\":\"%s\"}]}", name);
    ck_assert_str_eq(user(doc, buf, sizeof(buf)),
                     "-7 extra/model_metadata.json: inputs[0].name is longer than 127 bytes");
    name[127] = '\0';
    snprintf(doc, sizeof(doc), "{\"inputs\":[{\"name\":\"%s\"}]}", name);
    ck_assert_str_eq(user(doc, buf, sizeof(buf)), "OK");

    snprintf(doc, sizeof(doc),
             "{\"inputs\":[{\"name\":\"a\",\"dtype\":\"a_very_long_custom_dtype_name_xyz\"}]}");
    ck_assert_str_eq(user(doc, buf, sizeof(buf)),
                     "-7 extra/model_metadata.json: inputs[0].dtype is longer than 31 bytes");
}
END_TEST

START_TEST(test_user_long_model_and_description_are_cut)
{
    struct pt2_meta_user m;
    struct pt2_error err = {0};
    char doc[4096], longs[600];

    memset(longs, 'd', 599);
    longs[599] = '\0';
    snprintf(doc, sizeof(doc),
             "{\"model\":\"%s\",\"inputs\":[{\"name\":\"a\",\"dtype\":\"MyType\","
             "\"description\":\"%s\"}]}",
             longs, longs);
    ck_assert_int_eq(pt2_meta_parse_user(doc, strlen(doc), ENTRY, &m, &err), PT2_OK);
    ck_assert_uint_eq(strlen(m.model), 127);
    ck_assert_uint_eq(strlen(m.inputs.v[0].description), 255);
    ck_assert_str_eq(m.inputs.v[0].dtype, "mytype");
    pt2_meta_user_free(&m);
}
END_TEST

START_TEST(test_user_too_many_inputs)
{
    struct pt2_meta_user m;
    struct pt2_error err = {0};
    size_t cap = 64 + (PT2_TENSORS_MAX + 1) * 16, pos = 0;
    char *doc = malloc(cap);
    int i;

    ck_assert_ptr_nonnull(doc);
    pos += (size_t)snprintf(doc + pos, cap - pos, "{\"inputs\":{");
    for (i = 0; i <= PT2_TENSORS_MAX; i++)
        pos += (size_t)snprintf(doc + pos, cap - pos, "%s\"t%d\":[1]", i ? "," : "", i);
    pos += (size_t)snprintf(doc + pos, cap - pos, "}}");
    ck_assert_int_eq(pt2_meta_parse_user(doc, pos, ENTRY, &m, &err), PT2_ERR_TOO_LARGE);
    ck_assert_str_eq(err.message, "extra/model_metadata.json: inputs has more than 4096 entries");
    ck_assert_ptr_null(m.raw);
    free(doc);
}
END_TEST

START_TEST(test_user_malformed_json)
{
    char buf[1024], *s;

    ck_assert_str_eq(user("{\"model\": \"x\", \"inputs\": [{\"name\": \"a\", \"shape\": [1,]}]}",
                          buf, sizeof(buf)),
                     "-7 extra/model_metadata.json: invalid JSON near byte 52");
    ck_assert_str_eq(user("", buf, sizeof(buf)), "-7 extra/model_metadata.json: empty document");
    s = nested(100000, "[", "]");
    ck_assert_str_eq(user(s, buf, sizeof(buf)),
                     "-7 extra/model_metadata.json: JSON nested deeper than 256 levels at byte "
                     "256");
    free(s);
}
END_TEST

START_TEST(test_user_truncated_inputs_never_crash)
{
    /* Every prefix of a valid document either parses or fails cleanly. */
    struct pt2_meta_user m;
    struct pt2_error err;
    size_t len, n;
    char *buf = load("json/user_meta_array.json", &len);
    int rc;

    /* The last byte is a newline: the prefix without it is the whole document. */
    for (n = 0; n + 1 < len; n++) {
        pt2_error_clear(&err);
        rc = pt2_meta_parse_user(buf, n, ENTRY, &m, &err);
        ck_assert_int_eq(rc, PT2_ERR_METADATA);
        ck_assert_int_eq(strncmp(err.message, ENTRY ": ", strlen(ENTRY) + 2), 0);
    }
    free(buf);
}
END_TEST

/* Deterministic byte mutations of the fixtures never crash either parser. */
START_TEST(test_mutations_never_crash)
{
    static const char *const fixtures[] = {"json/user_meta_array.json",
                                           "json/user_meta_object.json", "json/aoti_metadata.json"};
    static const char alphabet[] = "{}[]\",:0123456789-enulltrue\\\x80\xff";
    uint64_t x = 0x2545F4914F6CDD1DULL;
    struct pt2_meta_user m;
    struct pt2_error err;
    size_t f, len, k;
    char *orig, *buf;
    cJSON *map;
    int iter, rc;

    for (f = 0; f < 3; f++) {
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
            rc = pt2_meta_parse_user(buf, len, ENTRY, &m, &err);
            ck_assert_msg(rc == PT2_OK || rc == PT2_ERR_METADATA, "rc %d: %s", rc, err.message);
            pt2_meta_user_free(&m);
            pt2_error_clear(&err);
            rc = pt2_meta_parse_aoti(buf, len, "m.json", &map, &err);
            ck_assert_msg(rc == PT2_OK || rc == PT2_ERR_METADATA, "rc %d: %s", rc, err.message);
            cJSON_Delete(map);
        }
        free(buf);
        free(orig);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("meta");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_json_valid_forms);
    tcase_add_test(tc, test_json_errors);
    tcase_add_test(tc, test_json_nul_byte);
    tcase_add_test(tc, test_json_depth);
    tcase_add_test(tc, test_json_too_large);
    tcase_add_test(tc, test_json_type_names);
    tcase_add_test(tc, test_aoti_fixture);
    tcase_add_test(tc, test_aoti_repeated_keys_last_wins);
    tcase_add_test(tc, test_aoti_errors);
    tcase_add_test(tc, test_aoti_deep_nesting);
    tcase_add_test(tc, test_user_array_form);
    tcase_add_test(tc, test_user_object_form);
    tcase_add_test(tc, test_user_model_name_fallbacks);
    tcase_add_test(tc, test_user_shape_errors);
    tcase_add_test(tc, test_user_field_errors);
    tcase_add_test(tc, test_user_long_strings);
    tcase_add_test(tc, test_user_long_model_and_description_are_cut);
    tcase_add_test(tc, test_user_too_many_inputs);
    tcase_add_test(tc, test_user_malformed_json);
    tcase_add_test(tc, test_user_truncated_inputs_never_crash);
    tcase_add_test(tc, test_mutations_never_crash);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
