/*
 * test_pt2d_options.c - query arguments and JSON bodies into request
 * options: targets, driver, view, inputs in all three spellings, caps,
 * malformed input, and the fingerprint that feeds the ETag.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2d_options.h"
#include "testutil.h"

static struct pt2d_options o;
static struct pt2_error err;

static void setup(void)
{
    pt2d_options_init(&o);
    pt2_error_clear(&err);
}

static void teardown(void)
{
    pt2d_options_free(&o);
}

static char *inputs_text(void)
{
    return cJSON_PrintUnformatted(o.inputs);
}

START_TEST(test_query_basics)
{
    ck_assert_int_eq(pt2d_options_add_query(&o, "path", "a/b.pt2", &err), PT2_OK);
    ck_assert_int_eq(pt2d_options_add_query(&o, "target", "H100", &err), PT2_OK);
    ck_assert_int_eq(pt2d_options_add_query(&o, "target", "8.0", &err), PT2_OK);
    ck_assert_int_eq(pt2d_options_add_query(&o, "driver", "12.4", &err), PT2_OK);
    ck_assert_int_eq(pt2d_options_add_query(&o, "view", "oip", &err), PT2_OK);
    ck_assert_int_eq(pt2d_options_add_query(&o, "nocache", NULL, &err), PT2_OK);
    ck_assert_int_eq(pt2d_options_add_query(&o, "unknown", "x", &err), PT2_OK);
    pt2d_options_finish(&o);
    ck_assert(o.has_path);
    ck_assert_str_eq(o.path, "a/b.pt2");
    ck_assert_uint_eq(o.n_targets, 2);
    ck_assert_str_eq(o.targets[0].text, "H100");
    ck_assert_int_eq(o.targets[0].dev.cc_major, 9);
    ck_assert_int_eq(o.targets[0].dev.cc_minor, 0);
    ck_assert_int_eq(o.targets[1].dev.cc_major, 8);
    ck_assert_int_eq(o.driver_version, 12040);
    ck_assert_int_eq(o.targets[0].dev.driver_cuda_version, 12040);
    ck_assert_int_eq(o.targets[1].dev.driver_cuda_version, 12040);
    ck_assert_uint_eq(o.json_flags, PT2_JSON_OIP);
    ck_assert_int_eq(o.nocache, 1);
}
END_TEST

START_TEST(test_nocache_values)
{
    pt2d_options_add_query(&o, "nocache", "0", &err);
    ck_assert_int_eq(o.nocache, 0);
    pt2d_options_add_query(&o, "nocache", "false", &err);
    ck_assert_int_eq(o.nocache, 0);
    pt2d_options_add_query(&o, "nocache", "1", &err);
    ck_assert_int_eq(o.nocache, 1);
}
END_TEST

START_TEST(test_query_errors)
{
    char t[100];

    ck_assert_int_eq(pt2d_options_add_query(&o, "view", "x", &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "view 'x' is not 'default' or 'oip'");
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2d_options_add_query(&o, "target", "", &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "target '' is empty or too long");
    pt2_error_clear(&err);
    memset(t, 'a', 99);
    t[99] = '\0';
    ck_assert_int_eq(pt2d_options_add_query(&o, "target", t, &err), PT2_ERR_INVALID);
    pt2_error_clear(&err);
    ck_assert_int_eq(
        pt2d_options_add_query(&o, "driver", "123456789012345678901234567890123", &err),
        PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "driver version is longer than 32 bytes");
    pt2_error_clear(&err);
    pt2d_options_add_query(&o, "path", "a", &err);
    ck_assert_int_eq(pt2d_options_add_query(&o, "path", "b", &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "path given more than once");
}
END_TEST

START_TEST(test_target_cap)
{
    int i;

    for (i = 0; i < PT2D_MAX_TARGETS; i++)
        ck_assert_int_eq(pt2d_options_add_query(&o, "target", "9.0", &err), PT2_OK);
    ck_assert_int_eq(pt2d_options_add_query(&o, "target", "9.0", &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "at most 16 targets per request");
}
END_TEST

START_TEST(test_inputs_spec_and_json)
{
    char *s;

    ck_assert_int_eq(pt2d_options_add_query(&o, "input", "x=8,3,512,512", &err), PT2_OK);
    ck_assert_int_eq(pt2d_options_add_query(&o, "input", "y=-1", &err), PT2_OK);
    ck_assert_int_eq(pt2d_options_add_query(&o, "inputs", "{\"z\": [1, 2]} ", &err), PT2_OK);
    s = inputs_text();
    ck_assert_str_eq(s, "{\"x\":[8,3,512,512],\"y\":[-1],\"z\":[1,2]}");
    free(s);
    ck_assert_int_eq(pt2d_options_add_query(&o, "input", "x=1", &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "input 'x' given more than once");
}
END_TEST

START_TEST(test_inputs_scalar_and_empty)
{
    char *s;

    ck_assert_int_eq(pt2d_options_add_query(&o, "input", "s=", &err), PT2_OK);
    s = inputs_text();
    ck_assert_str_eq(s, "{\"s\":[]}");
    free(s);
}
END_TEST

START_TEST(test_inputs_malformed)
{
    static const struct {
        const char *key, *value, *message;
    } cases[] = {
        {"input", "x", "input 'x' is not NAME=D0,D1,... (e.g. x=8,3,512,512)"},
        {"input", "=1,2", "input '=1,2' is not NAME=D0,D1,... (e.g. x=8,3,512,512)"},
        {"input", "x=1,,2", "input 'x': bad dimension list '1,,2'"},
        {"input", "x=1,2,", "input 'x': trailing comma"},
        {"input", "x=1.5", "input 'x': bad dimension list '1.5'"},
        {"input", "x=99999999999999999999",
         "input 'x': bad dimension list "
         "'99999999999999999999'"},
        {"input", "x=-2", "input 'x' dimension 0 is not an integer >= -1"},
        {"inputs", "[1]", "inputs must be an object like {\"x\": [8, 3, 512, 512]}"},
        {"inputs", "{\"x\": 3}", "input 'x' must be an array of integers"},
        {"inputs", "{\"x\": [1.5]}", "input 'x' dimension 0 is not an integer >= -1"},
        {"inputs", "{\"x\": [\"B\"]}", "input 'x' dimension 0 is not an integer >= -1"},
        {"inputs", "{\"x\": [1e300]}", "input 'x' dimension 0 is not an integer >= -1"},
        {"inputs", "{\"x\": [1]} junk", "inputs is not valid JSON"},
        {"inputs", "{", "inputs is not valid JSON"},
        {"inputs", "{\"\": [1]}", "input names must be 1..256 characters"},
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        pt2d_options_free(&o);
        pt2d_options_init(&o);
        pt2_error_clear(&err);
        ck_assert_int_eq(pt2d_options_add_query(&o, cases[i].key, cases[i].value, &err),
                         PT2_ERR_INVALID);
        ck_assert_str_eq(err.message, cases[i].message);
    }
}
END_TEST

START_TEST(test_inputs_caps)
{
    char spec[1024];
    size_t n = 0;
    int i;

    n += (size_t)snprintf(spec, sizeof(spec), "x=");
    for (i = 0; i < PT2D_MAX_DIMS + 1; i++)
        n += (size_t)snprintf(spec + n, sizeof(spec) - n, "%s1", i ? "," : "");
    ck_assert_int_eq(pt2d_options_add_query(&o, "input", spec, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "input 'x' has more than 64 dimensions");
    pt2_error_clear(&err);
    for (i = 0; i < PT2D_MAX_INPUTS; i++) {
        snprintf(spec, sizeof(spec), "in%d=1", i);
        ck_assert_int_eq(pt2d_options_add_query(&o, "input", spec, &err), PT2_OK);
    }
    ck_assert_int_eq(pt2d_options_add_query(&o, "input", "last=1", &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "more than 256 inputs");
}
END_TEST

START_TEST(test_json_body)
{
    const char *body =
        "{\"path\":\"m.pt2\",\"inputs\":{\"x\":[8,3]},\"target\":[\"H100\",\"gfx90a\"],"
        "\"driver\":\"12040\",\"view\":\"oip\",\"extra\":{\"ignored\":true}}  \n";
    char *s;

    ck_assert_int_eq(pt2d_options_add_json(&o, body, strlen(body), &err), PT2_OK);
    pt2d_options_finish(&o);
    ck_assert_str_eq(o.path, "m.pt2");
    ck_assert_uint_eq(o.n_targets, 2);
    ck_assert_str_eq(o.targets[1].dev.gfx, "gfx90a");
    ck_assert_int_eq(o.driver_version, 12040);
    ck_assert_uint_eq(o.json_flags, PT2_JSON_OIP);
    s = inputs_text();
    ck_assert_str_eq(s, "{\"x\":[8,3]}");
    free(s);
}
END_TEST

START_TEST(test_json_body_errors)
{
    static const struct {
        const char *body, *message;
    } cases[] = {
        {"", "request body is not valid JSON"},
        {"[]", "request body must be a JSON object"},
        {"{\"path\": 1}", "path must be a string"},
        {"{\"target\": 9}", "target must be a string or an array"},
        {"{\"targets\": [9]}", "targets must hold strings"},
        {"{\"inputs\": []}", "inputs must be an object like {\"x\": [8, 3, 512, 512]}"},
        {"{} {}", "request body is not valid JSON"},
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        pt2d_options_free(&o);
        pt2d_options_init(&o);
        pt2_error_clear(&err);
        ck_assert_int_eq(pt2d_options_add_json(&o, cases[i].body, strlen(cases[i].body), &err),
                         PT2_ERR_INVALID);
        ck_assert_str_eq(err.message, cases[i].message);
    }
}
END_TEST

/* Deep nesting is refused by the limits before cJSON sees it, never a stack overflow. */
START_TEST(test_json_body_deep_nesting)
{
    size_t n = 200000, i;
    char *b = malloc(n);

    for (i = 0; i < n / 2; i++)
        b[i] = '[';
    for (; i < n; i++)
        b[i] = ']';
    ck_assert_int_eq(pt2d_options_add_json(&o, b, n, &err), PT2_ERR_TOO_LARGE);
    ck_assert_str_eq(err.message, "request body: JSON nested deeper than 64 levels at byte 64");
    free(b);
}
END_TEST

START_TEST(test_json_body_too_large)
{
    ck_assert_int_eq(pt2d_options_add_json(&o, "{}", PT2D_JSON_BODY_MAX + 1, &err),
                     PT2_ERR_TOO_LARGE);
    ck_assert_str_eq(err.message, "JSON body exceeds 1048576 bytes");
}
END_TEST

START_TEST(test_fingerprint)
{
    struct pt2d_buf b;

    pt2d_buf_init(&b, 4096);
    pt2d_options_add_query(&o, "target", "H100", &err);
    pt2d_options_add_query(&o, "target", "8.0", &err);
    pt2d_options_add_query(&o, "driver", "12.4", &err);
    pt2d_options_add_query(&o, "input", "x=1,2", &err);
    pt2d_options_add_query(&o, "path", "not-part-of-it", &err);
    pt2d_options_add_query(&o, "nocache", "1", &err);
    ck_assert_int_eq(pt2d_options_fingerprint(&o, &b), PT2_OK);
    ck_assert_str_eq(pt2d_buf_str(&b),
                     "flags=0;driver=12040;targets=4:H100,3:8.0,;inputs={\"x\":[1,2]}");
    pt2d_buf_free(&b);
}
END_TEST

/*
 * Every part at once, against the printf form the ETags were made from
 * (the fingerprint is written by hand now; an ETag must not change with it),
 * then at every cap below its length: refused whole, never cut short.
 */
START_TEST(test_fingerprint_every_part)
{
    char want[1024];
    struct pt2d_buf b;
    size_t cap, len;

    ck_assert_int_eq(pt2d_options_add_query(&o, "target", "H100", &err), PT2_OK);
    ck_assert_int_eq(pt2d_options_add_query(&o, "target", "sm_90a", &err), PT2_OK);
    ck_assert_int_eq(pt2d_options_add_query(&o, "driver", "12.4", &err), PT2_OK);
    ck_assert_int_eq(pt2d_options_add_query(&o, "view", "oip", &err), PT2_OK);
    ck_assert_int_eq(pt2d_options_add_query(&o, "affinity", "1", &err), PT2_OK);
    ck_assert_int_eq(pt2d_options_add_query(&o, "device", "cuda:12", &err), PT2_OK);
    ck_assert_int_eq(pt2d_options_add_query(&o, "strict", "1", &err), PT2_OK);
    ck_assert_int_eq(pt2d_options_add_query(&o, "platform", "linux/arm64", &err), PT2_OK);
    ck_assert_int_eq(pt2d_options_add_query(&o, "model", "model_a", &err), PT2_OK);
    ck_assert_int_eq(pt2d_options_add_query(&o, "runtime", "debian12", &err), PT2_OK);
    ck_assert_int_eq(pt2d_options_add_query(&o, "runtime", "ubuntu22.04,torch=2.8", &err), PT2_OK);
    ck_assert_int_eq(pt2d_options_add_query(&o, "input", "x=1,2", &err), PT2_OK);
    ck_assert_uint_ne(o.json_flags, 0);
    snprintf(want, sizeof(want),
             "flags=%u;driver=%d;targets=%zu:%s,%zu:%s,;device=%zu:%s;strict;platform=%s;"
             "model=%zu:%s;runtime=%zu:%s;runtime=%zu:%s;inputs={\"x\":[1,2]}",
             o.json_flags, 12040, strlen("H100"), "H100", strlen("sm_90a"), "sm_90a",
             strlen("cuda:12"), "cuda:12", "linux/arm64", strlen("model_a"), "model_a",
             strlen("debian12"), "debian12", strlen("ubuntu22.04,torch=2.8"),
             "ubuntu22.04,torch=2.8");
    pt2d_buf_init(&b, 4096);
    ck_assert_int_eq(pt2d_options_fingerprint(&o, &b), PT2_OK);
    ck_assert_str_eq(pt2d_buf_str(&b), want);
    pt2d_buf_free(&b);

    len = strlen(want);
    for (cap = 0; cap <= len; cap++) {
        pt2d_buf_init(&b, cap);
        ck_assert_int_eq(pt2d_options_fingerprint(&o, &b), cap < len ? PT2_ERR_TOO_LARGE : PT2_OK);
        if (cap == len)
            ck_assert_str_eq(pt2d_buf_str(&b), want);
        pt2d_buf_free(&b);
    }

    /* a negative driver number is written with its sign, as %d did */
    pt2d_options_free(&o);
    pt2d_options_init(&o);
    o.driver_version = -5;
    pt2d_buf_init(&b, 64);
    ck_assert_int_eq(pt2d_options_fingerprint(&o, &b), PT2_OK);
    ck_assert_str_eq(pt2d_buf_str(&b), "flags=0;driver=-5;targets=");
    pt2d_buf_free(&b);
}
END_TEST

START_TEST(test_device_and_refresh)
{
    static const char *const good[] = {"", "cuda", "cuda:0", "cuda:12", "3"};
    static const char *const bad[] = {"cpu",     "cuda:", "cuda:x", "-1",
                                      "cuda:-1", "1 ",    "GPU-a0", "cuda:1234567890"};
    struct pt2d_buf b;
    size_t i;

    for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        struct pt2d_options x;

        pt2d_options_init(&x);
        ck_assert_int_eq(pt2d_options_add_query(&x, "device", good[i], &err), PT2_OK);
        ck_assert(x.has_device);
        ck_assert_str_eq(x.device, good[i]);
    }
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct pt2d_options x;
        char want[128];

        pt2d_options_init(&x);
        pt2_error_clear(&err);
        ck_assert_int_eq(pt2d_options_add_query(&x, "device", bad[i], &err), PT2_ERR_INVALID);
        snprintf(want, sizeof(want), "invalid device '%s': expected cuda, cuda:N, N or rocm:N",
                 bad[i]);
        ck_assert_str_eq(err.message, want);
        ck_assert(!x.has_device);
    }
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2d_options_add_query(&o, "device", "cuda:1", &err), PT2_OK);
    ck_assert_int_eq(pt2d_options_add_query(&o, "device", "cuda:1", &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "device given more than once");

    /* The device shapes the document: it is part of the fingerprint. */
    pt2d_buf_init(&b, 256);
    ck_assert_int_eq(pt2d_options_fingerprint(&o, &b), PT2_OK);
    ck_assert_str_eq(pt2d_buf_str(&b), "flags=0;driver=0;targets=;device=6:cuda:1");
    pt2d_buf_free(&b);

    ck_assert_int_eq(o.refresh, 0);
    pt2d_options_add_query(&o, "refresh", "1", &err);
    ck_assert_int_eq(o.refresh, 1);
    pt2d_options_add_query(&o, "refresh", "false", &err);
    ck_assert_int_eq(o.refresh, 0);
}
END_TEST

START_TEST(test_apply_json_keeps_other_members)
{
    static const char body[] = "{\"path\": \"a.pt2\", \"device\": \"cuda:0\", \"nodes\": []}  \n";
    cJSON *doc = NULL;

    ck_assert_int_eq(
        pt2d_options_parse_json(body, strlen(body), &pt2d_json_body_limits, "body", &doc, &err),
        PT2_OK);
    ck_assert_int_eq(pt2d_options_apply_json(&o, doc, &err), PT2_OK);
    ck_assert_str_eq(o.path, "a.pt2");
    ck_assert_str_eq(o.device, "cuda:0");
    ck_assert(cJSON_IsArray(cJSON_GetObjectItem(doc, "nodes")));
    cJSON_Delete(doc);
    ck_assert_int_eq(
        pt2d_options_parse_json("{} []", 5, &pt2d_json_body_limits, "body", &doc, &err),
        PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "body is not valid JSON");
    ck_assert_ptr_null(doc);
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2d_options_parse_json("[1]", 3, &pt2d_json_body_limits, "body", &doc, &err),
                     PT2_OK);
    ck_assert_int_eq(pt2d_options_apply_json(&o, doc, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "request body must be a JSON object");
    cJSON_Delete(doc);
}
END_TEST

/* A NUL inside a JSON string would cut it short once parsed: refused, never truncated. */
START_TEST(test_json_nul_and_limits)
{
    struct pt2_json_limits tiny = {0, 0, 3, 0};
    cJSON *doc = NULL;

    ck_assert_int_eq(pt2d_options_add_json(&o, "{\"path\": \"a.pt2\\u0000.txt\"}", 28, &err),
                     PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "request body: \\u0000 (a NUL character) in a string at byte 15");
    ck_assert_int_eq(o.has_path, 0);
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2d_options_add_query(&o, "inputs", "{\"x\\u0000y\": [1]}", &err),
                     PT2_ERR_INVALID);
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2d_options_parse_json("[1,2,3]", 7, &tiny, "body", &doc, &err),
                     PT2_ERR_TOO_LARGE);
    ck_assert_str_eq(err.message, "body: more than 3 JSON values at byte 5");
    ck_assert_ptr_null(doc);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pt2d_options");
    TCase *tc = tcase_create("core");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_query_basics);
    tcase_add_test(tc, test_nocache_values);
    tcase_add_test(tc, test_query_errors);
    tcase_add_test(tc, test_target_cap);
    tcase_add_test(tc, test_inputs_spec_and_json);
    tcase_add_test(tc, test_inputs_scalar_and_empty);
    tcase_add_test(tc, test_inputs_malformed);
    tcase_add_test(tc, test_inputs_caps);
    tcase_add_test(tc, test_json_body);
    tcase_add_test(tc, test_json_body_errors);
    tcase_add_test(tc, test_json_body_deep_nesting);
    tcase_add_test(tc, test_json_body_too_large);
    tcase_add_test(tc, test_fingerprint);
    tcase_add_test(tc, test_fingerprint_every_part);
    tcase_add_test(tc, test_device_and_refresh);
    tcase_add_test(tc, test_apply_json_keeps_other_members);
    tcase_add_test(tc, test_json_nul_and_limits);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
