/*
 * test_jw.c - pt2_json_print writes cJSON_PrintUnformatted's
 * bytes: on every fixture's inspection document (default, OIP, affinity=0),
 * on numbers at every edge of its integer fast path, on every escaped byte,
 * and on seeded random trees.
 */
#include <check.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_jw.h"
#include "pt2scope.h"
#include "testutil.h"

static void assert_same(const cJSON *doc, const char *what)
{
    char *want = cJSON_PrintUnformatted(doc), *got;
    size_t n = 0;

    ck_assert_ptr_nonnull(want);
    got = pt2_json_print(doc, 1, &n);
    ck_assert_ptr_nonnull(got);
    ck_assert_uint_eq(n, strlen(want));
    ck_assert_msg(strcmp(got, want) == 0, "%s:\n got %.300s\nwant %.300s", what, got, want);
    free(got);
    cJSON_free(want);
}

START_TEST(test_numbers)
{
    static const double v[] = {0.0,
                               -0.0,
                               1.0,
                               -1.0,
                               3.0,
                               0.5,
                               -0.25,
                               0.1,
                               1.0 / 3.0,
                               2147483647.0,
                               2147483648.0,
                               -2147483648.0,
                               -2147483649.0,
                               8590950748.0,
                               1e14,
                               999999999999999.0,
                               1e15,
                               1e15 + 1,
                               -1e15,
                               1e16,
                               1e17,
                               9007199254740993.0,
                               1e300,
                               -1e300,
                               1e-300,
                               DBL_MIN,
                               DBL_MAX,
                               5e-324,
                               12345.678,
                               1e21,
                               123456789012345.6,
                               NAN,
                               INFINITY,
                               -INFINITY};

    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        cJSON *a = cJSON_CreateArray();
        char what[64];

        cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
        snprintf(what, sizeof(what), "number %.17g", v[i]);
        assert_same(a, what);
        cJSON_Delete(a);
    }
}
END_TEST

START_TEST(test_strings_and_kinds)
{
    cJSON *o = cJSON_CreateObject();
    char all[256];

    for (int c = 1; c < 256; c++)
        all[c - 1] = (char)c;
    all[255] = '\0';
    cJSON_AddStringToObject(o, all, all);
    cJSON_AddStringToObject(o, "", "");
    cJSON_AddStringToObject(o, "q\"b\\", "tab\there\nnew \x01\x1f\x7f\xff\xc3\xa9");
    cJSON_AddNullToObject(o, "n");
    cJSON_AddTrueToObject(o, "t");
    cJSON_AddFalseToObject(o, "f");
    cJSON_AddRawToObject(o, "raw", "[1,2]");
    cJSON_AddItemToObject(o, "ea", cJSON_CreateArray());
    cJSON_AddItemToObject(o, "eo", cJSON_CreateObject());
    assert_same(o, "kinds");
    cJSON_Delete(o);
}
END_TEST

/* Every length to 40 with one byte of each kind at every place: the word-at-a-time scan's
 * edges (a byte needing an escape in the first, a middle or the last word, or none). */
START_TEST(test_string_edges)
{
    static const unsigned char kinds[] = {0x01, 0x1f, 0x20, '"',  '\\', '!',  '#',
                                          0x5b, 0x5d, 0x7f, 0x80, 0xa2, 0xdc, 0xff};
    char s[48];

    for (size_t len = 0; len <= 40; len++)
        for (size_t k = 0; k < sizeof(kinds); k++)
            for (size_t at = 0; at < (len > 0 ? len : 1); at++) {
                cJSON *o = cJSON_CreateObject();

                memset(s, 'a', len);
                s[len] = '\0';
                if (len > 0)
                    s[at] = (char)kinds[k];
                cJSON_AddStringToObject(o, s, s);
                assert_same(o, "string edge");
                cJSON_Delete(o);
            }
}
END_TEST

static cJSON *rnd_tree(unsigned *seed, int depth)
{
    int k = (int)(rand_r(seed) % (depth > 5 ? 5 : 7));
    char s[24];
    cJSON *t;

    for (size_t i = 0; i < sizeof(s) - 1; i++)
        s[i] = (char)(1 + rand_r(seed) % 255);
    s[rand_r(seed) % sizeof(s)] = '\0';
    s[sizeof(s) - 1] = '\0';
    switch (k) {
    case 0:
        return cJSON_CreateNumber((double)(int)rand_r(seed) - RAND_MAX / 2);
    case 1:
        return cJSON_CreateNumber((double)rand_r(seed) / (1.0 + rand_r(seed) % 1000));
    case 2:
        return cJSON_CreateString(s);
    case 3:
        return cJSON_CreateBool(rand_r(seed) % 2);
    case 4:
        return cJSON_CreateNull();
    case 5:
        t = cJSON_CreateArray();
        for (int i = (int)(rand_r(seed) % 5); i > 0; i--)
            cJSON_AddItemToArray(t, rnd_tree(seed, depth + 1));
        return t;
    default:
        t = cJSON_CreateObject();
        for (int i = (int)(rand_r(seed) % 5); i > 0; i--)
            cJSON_AddItemToObject(t, s, rnd_tree(seed, depth + 1));
        return t;
    }
}

START_TEST(test_random_trees)
{
    unsigned seed = 25;

    for (int i = 0; i < 500; i++) {
        cJSON *t = rnd_tree(&seed, 0);

        assert_same(t, "random tree");
        cJSON_Delete(t);
    }
}
END_TEST

/* The same members through either sink: one text, the tree's keys kept or copied. */
static void write_members(struct pt2_jw *w, char *computed)
{
    static const char key[] = "static_key";

    pt2_jw_obj(w);
    PT2_JW_NUM(w, "n", 3);
    PT2_JW_NUM(w, "half", 0.5);
    PT2_JW_NUM(w, "big", 8590950748.0);
    PT2_JW_NUM(w, "third", 1.0 / 3.0);
    PT2_JW_STR(w, "s", "x\"\\\n\x01", 0);
    PT2_JW_STR(w, "empty_kept", "", 0);
    PT2_JW_STR(w, "empty_null", "", 1);
    PT2_JW_STR(w, "null", NULL, 0);
    PT2_JW_BOOL(w, "t", 1);
    PT2_JW_BOOL(w, "f", 0);
    PT2_JW_NULL(w, "z");
    pt2_jw_key_lit(w, key);
    pt2_jw_bool(w, 1);
    pt2_jw_key_copy(w, computed);
    pt2_jw_bool(w, 0);
    PT2_JW_ARR(w, "a");
    pt2_jw_string(w, "e", 0);
    pt2_jw_obj(w);
    pt2_jw_end(w);
    pt2_jw_arr(w);
    pt2_jw_end(w);
    pt2_jw_number(w, -2);
    pt2_jw_end(w);
    PT2_JW_TREE(w, "tree", NULL);
    PT2_JW_TAKE(w, "taken", cJSON_Parse("{\"k\":[1,2.5,\"v\"]}"));
    pt2_jw_end(w);
}

static const char members_text[] =
    "{\"n\":3,\"half\":0.5,\"big\":8590950748,\"third\":0.33333333333333331,"
    "\"s\":\"x\\\"\\\\\\n\\u0001\",\"empty_kept\":\"\",\"empty_null\":null,\"null\":null,"
    "\"t\":true,\"f\":false,\"z\":null,\"static_key\":true,\"copy\":false,"
    "\"a\":[\"e\",{},[],-2],\"tree\":null,\"taken\":{\"k\":[1,2.5,\"v\"]}}";

START_TEST(test_writer_sinks_agree)
{
    struct pt2_error err = {0};
    struct pt2_jw w;
    char computed[8] = "copy", *text = NULL, *tt;
    cJSON *doc = NULL;
    size_t n = 0;

    pt2_jw_init_text(&w);
    write_members(&w, computed);
    ck_assert_int_eq(pt2_jw_finish_text(&w, 3, &text, &n, &err), PT2_OK);
    ck_assert_str_eq(text, members_text);
    ck_assert_uint_eq(n, strlen(members_text));
    free(text);

    pt2_jw_init_tree(&w);
    write_members(&w, computed);
    ck_assert_int_eq(pt2_jw_finish_tree(&w, &doc, &err), PT2_OK);
    computed[0] = 'C'; /* the tree copied it */
    tt = cJSON_PrintUnformatted(doc);
    ck_assert_str_eq(tt, members_text);
    cJSON_free(tt);
    /* a literal key is the literal itself, flagged so that cJSON never frees it */
    ck_assert_ptr_eq(cJSON_GetObjectItemCaseSensitive(doc, "n")->string, (char *)"n");
    ck_assert(cJSON_GetObjectItemCaseSensitive(doc, "n")->type & cJSON_StringIsConst);
    ck_assert_ptr_ne(cJSON_GetObjectItemCaseSensitive(doc, "copy")->string, computed);
    cJSON_Delete(doc);
}
END_TEST

/* Each misuse fails the writer, in either sink; what it held is freed (ASan). */
static void misuse(int text, int how)
{
    struct pt2_error err = {0};
    struct pt2_jw w;
    cJSON *doc = (cJSON *)&w;
    char *out = (char *)&w;
    size_t n = 9;
    int rc;

    if (text)
        pt2_jw_init_text(&w);
    else
        pt2_jw_init_tree(&w);
    pt2_jw_obj(&w);
    switch (how) {
    case 0: /* a value without its key */
        pt2_jw_number(&w, 1);
        break;
    case 1: /* a key in an array */
        PT2_JW_ARR(&w, "a");
        PT2_JW_NUM(&w, "k", 1);
        pt2_jw_end(&w);
        break;
    case 2: /* a key without its value */
        PT2_JW_KEY(&w, "k");
        break;
    case 3: /* a second root */
        pt2_jw_end(&w);
        pt2_jw_obj(&w);
        break;
    case 4: /* an end too many */
        pt2_jw_end(&w);
        pt2_jw_end(&w);
        pt2_jw_obj(&w);
        break;
    case 5: /* deeper than PT2_JW_DEPTH */
        PT2_JW_ARR(&w, "deep");
        for (int i = 0; i < PT2_JW_DEPTH + 2; i++)
            pt2_jw_arr(&w);
        for (int i = 0; i < PT2_JW_DEPTH + 2; i++)
            pt2_jw_end(&w);
        pt2_jw_end(&w);
        break;
    case 6: /* an unclosed container */
        PT2_JW_OBJ(&w, "open");
        break;
    case 7: /* a taken tree that was never made (out of memory) */
        PT2_JW_TAKE(&w, "t", NULL);
        break;
    default: /* a NULL key */
        pt2_jw_key_copy(&w, NULL);
        pt2_jw_null(&w);
    }
    PT2_JW_STR(&w, "after", "still safe", 0);
    if (how != 3 && how != 4)
        pt2_jw_end(&w);
    rc = text ? pt2_jw_finish_text(&w, 0, &out, &n, &err) : pt2_jw_finish_tree(&w, &doc, &err);
    ck_assert_int_eq(rc, PT2_ERR_NOMEM);
    ck_assert_str_eq(err.message, "out of memory building the JSON document");
    if (text) {
        ck_assert_ptr_null(out);
        ck_assert_uint_eq(n, 0);
    } else {
        ck_assert_ptr_null(doc);
    }
    pt2_jw_discard(&w); /* twice is nothing */
}

START_TEST(test_writer_misuse_fails)
{
    misuse(_i & 1, _i >> 1);
}
END_TEST

/*
 * One package's documents in every view: pt2_json_print writes what cJSON
 * prints for the tree, and pt2_package_print_json writes the same bytes
 * without the tree, alone and with members appended (the daemon's verdicts).
 */
static int package_documents(pt2_package *pkg, const char *what)
{
    static const unsigned flags[] = {PT2_JSON_DEFAULT, PT2_JSON_OIP, PT2_JSON_AFFINITY,
                                     PT2_JSON_OIP | PT2_JSON_AFFINITY};
    cJSON *extra = cJSON_Parse("{\"compatibility\":[{\"target\":\"sm_90\",\"ok\":true,"
                               "\"why\":\"a\\u0001\\\"b\"}],\"overall\":\"compatible\"}");
    int docs = 0;

    ck_assert_ptr_nonnull(extra);
    for (size_t f = 0; f < sizeof(flags) / sizeof(flags[0]); f++) {
        struct pt2_error err = {0}, terr = {0};
        cJSON *doc = NULL, *c;
        char *want, *got = NULL;
        size_t n = 0;
        int rc = pt2_package_to_json(pkg, flags[f], &doc, &err);
        int trc = pt2_package_print_json(pkg, flags[f], NULL, 1, &got, &n, &terr);

        ck_assert_int_eq(trc, rc);
        ck_assert_str_eq(terr.message, err.message);
        if (rc != PT2_OK) {
            ck_assert_ptr_null(got);
            continue;
        }
        assert_same(doc, what);
        want = cJSON_PrintUnformatted(doc);
        ck_assert_uint_eq(n, strlen(want));
        ck_assert_msg(strcmp(got, want) == 0, "%s (flags %u):\n got %.300s\nwant %.300s", what,
                      flags[f], got, want);
        free(got);
        cJSON_free(want);
        /* with the verdicts' members after bytes_read */
        for (c = extra->child; c != NULL; c = c->next)
            cJSON_AddItemToObject(doc, c->string, cJSON_Duplicate(c, 1));
        want = cJSON_PrintUnformatted(doc);
        ck_assert_int_eq(pt2_package_print_json(pkg, flags[f], extra, 0, &got, &n, &terr), PT2_OK);
        ck_assert_msg(strcmp(got, want) == 0, "%s (flags %u, extra):\n got %.300s\nwant %.300s",
                      what, flags[f], got, want);
        free(got);
        cJSON_free(want);
        cJSON_Delete(doc);
        docs++;
    }
    cJSON_Delete(extra);
    return docs;
}

/* tu_each_file's step: a package's document count (0 for one that does not open). */
static int file_documents(const char *path, const char *name, void *ctx)
{
    struct pt2_error err = {0};
    pt2_package *pkg = NULL;
    int docs = 0;

    (void)ctx;
    if (pt2_package_open_path(&pkg, path, NULL, &err) == PT2_OK)
        docs = package_documents(pkg, name);
    pt2_package_free(pkg);
    return docs;
}

/* Every package in `dir` that opens (the hostile fixtures do not): its document count. */
static int dir_documents(const char *dir)
{
    return tu_each_file(dir, ".pt2", file_documents, NULL);
}

/* Every fixture package's documents, and the corpus packages' where present. */
START_TEST(test_fixture_documents)
{
    char dir[512];

    ck_assert_int_gt(dir_documents(tu_fixture("", dir, sizeof(dir))), 120);
    ck_assert_int_ge(dir_documents(tu_fixture("torch", dir, sizeof(dir))), 8 * 3);
    if (tu_shared("corpus/pt2", dir, sizeof(dir)) != NULL)
        ck_assert_int_ge(dir_documents(dir), 4);
}
END_TEST

/* A package whose metadata cannot be read: the same error from both, nothing printed. */
START_TEST(test_print_error_is_the_trees)
{
    char path[512];
    struct pt2_error err = {0};
    pt2_package *pkg = NULL;
    char *got = (char *)"x";
    size_t n = 7;

    ck_assert_int_eq(
        pt2_package_open_path(&pkg, tu_fixture("broken_bad_aoti_json.pt2", path, sizeof(path)),
                              NULL, &err),
        PT2_OK);
    ck_assert_int_eq(package_documents(pkg, "bad metadata"), 0);
    ck_assert_int_ne(pt2_package_print_json(pkg, 0, NULL, 0, &got, &n, &err), PT2_OK);
    ck_assert_ptr_null(got);
    ck_assert_uint_eq(n, 0);
    pt2_package_free(pkg);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("jw");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_numbers);
    tcase_add_test(tc, test_strings_and_kinds);
    tcase_add_test(tc, test_string_edges);
    tcase_add_test(tc, test_random_trees);
    tcase_add_test(tc, test_writer_sinks_agree);
    tcase_add_loop_test(tc, test_writer_misuse_fails, 0, 18);
    tcase_add_test(tc, test_fixture_documents);
    tcase_add_test(tc, test_print_error_is_the_trees);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
