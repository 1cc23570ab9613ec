/*
 * test_pt2d_jsonout.c - pt2d_jsonout_print writes cJSON_PrintUnformatted's
 * bytes: on every fixture's inspection document (default, OIP, affinity=0),
 * on numbers at every edge of its integer fast path, on every escaped byte,
 * and on seeded random trees.
 */
#include <check.h>
#include <dirent.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2d_jsonout.h"
#include "pt2scope.h"
#include "testutil.h"

static void assert_same(const cJSON *doc, const char *what)
{
    char *want = cJSON_PrintUnformatted(doc), *got;
    size_t n = 0;

    ck_assert_ptr_nonnull(want);
    got = pt2d_jsonout_print(doc, 1, &n);
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

/* Every fixture package's documents: the bytes the daemon used to send. */
START_TEST(test_fixture_documents)
{
    static const unsigned flags[] = {PT2_JSON_DEFAULT, PT2_JSON_OIP, PT2_JSON_AFFINITY};
    char dir[512], path[1024];
    struct dirent *e;
    DIR *d = opendir(tu_fixture("", dir, sizeof(dir)));
    int docs = 0;

    ck_assert_ptr_nonnull(d);
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        struct pt2_error err = {0};
        pt2_package *pkg = NULL;

        if (n < 4 || strcmp(e->d_name + n - 4, ".pt2") != 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        if (pt2_package_open_path(&pkg, path, NULL, &err) != PT2_OK)
            continue; /* the hostile fixtures: no document to print */
        for (size_t f = 0; f < sizeof(flags) / sizeof(flags[0]); f++) {
            cJSON *doc = NULL;

            if (pt2_package_to_json(pkg, flags[f], &doc, &err) == PT2_OK) {
                assert_same(doc, e->d_name);
                docs++;
            }
            cJSON_Delete(doc);
        }
        pt2_package_free(pkg);
    }
    closedir(d);
    ck_assert_int_gt(docs, 60);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pt2d_jsonout");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_numbers);
    tcase_add_test(tc, test_strings_and_kinds);
    tcase_add_test(tc, test_random_trees);
    tcase_add_test(tc, test_fixture_documents);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
