/*
 * test_budget.c - the per-inspection JSON budget (pt2_budget) through whole
 * inspections: the attack run's packages, a few KB deflated and millions of
 * values inflated, are answered with exact warnings, the first document over
 * the budget stops the rest, and the process's peak RSS (VmHWM, reset through
 * /proc/self/clear_refs) stays within 64 MiB of what it was before.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zip.h>

#include "pt2_inspect.h"
#include "pt2scope.h"
#include "testutil.h"

#define MIB (1024u * 1024u)

/* {"a":[0,0,...]} of at most `size` bytes: (size - 7) / 2 zeros. */
static char *zeros_doc(size_t size)
{
    char *t = malloc(size + 16), *p = t;
    size_t n = (size - 7) / 2;

    ck_assert_ptr_nonnull(t);
    p += snprintf(p, size, "{\"a\":[");
    for (size_t i = 0; i < n; i++) {
        *p++ = '0';
        *p++ = i + 1 < n ? ',' : ']';
    }
    *p++ = '}';
    *p = '\0';
    return t;
}

/* A deflated zip of (name, text) pairs in a fresh folder; returns its path. */
static const char *make_zip(char *dir, char *path, size_t len, const char *const *pairs, size_t n)
{
    zip_t *za;
    int zerr = 0;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, len, "%s/t.pt2", dir);
    za = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &zerr);
    ck_assert_ptr_nonnull(za);
    for (size_t i = 0; i < n; i++) {
        const char *text = pairs[2 * i + 1];
        zip_source_t *src = zip_source_buffer(za, text, strlen(text), 0);
        zip_int64_t idx = zip_file_add(za, pairs[2 * i], src, ZIP_FL_ENC_UTF_8);
        ck_assert_int_ge(idx, 0);
        zip_set_file_compression(za, (zip_uint64_t)idx, ZIP_CM_DEFLATE, 9);
    }
    ck_assert_int_eq(zip_close(za), 0);
    return path;
}

static void remove_zip(const char *dir, const char *path)
{
    unlink(path);
    rmdir(dir);
}

/* A /proc/self/status field in KiB, -1 when absent. */
static long status_kib(const char *field)
{
    char line[256];
    long v = -1;
    FILE *f = fopen("/proc/self/status", "r");

    while (f != NULL && fgets(line, sizeof(line), f) != NULL)
        if (strncmp(line, field, strlen(field)) == 0 && line[strlen(field)] == ':') {
            const char *p = line + strlen(field) + 1, *end;
            uint64_t kib;

            while (*p == ' ' || *p == '\t')
                p++;
            if (pt2_num_u64_prefix(p, 10, &kib, &end) == PT2_OK)
                v = (long)kib;
        }
    if (f != NULL)
        fclose(f);
    return v;
}

/* Reset VmHWM to the current RSS: 1, or 0 where the kernel does not let us. */
static int reset_peak(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    int ok = f != NULL && fputs("5", f) >= 0;

    if (f != NULL && fclose(f) != 0)
        ok = 0;
    return ok;
}

/* The package's warnings, one per line. */
static const char *warnings(const pt2_package *pkg, char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < pt2_package_warning_count(pkg) && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? "\n" : "",
                                 pt2_package_warning(pkg, i));
    return buf;
}

/*
 * 8 MiB of {"a":[0,0,...]} deflates to a few KB. The scan stops where the tree would pass
 * 32 MiB: 266 bytes for the object, "a" and the array, then 80 a zero, so zero number
 * 419,428 (at byte 6 + 2 * 419427) is refused.
 */
START_TEST(test_big_program)
{
    char dir[] = "/tmp/pt2budXXXXXX", path[256], got[4096];
    char *doc = zeros_doc(8 * MIB);
    const char *pairs[] = {"archive_format", "pt2", "models/model.json", doc};
    struct pt2_error err = {0};
    pt2_package *pkg = NULL;
    long before, peak;
    int measured;

    make_zip(dir, path, sizeof(path), pairs, 2);
    free(doc);
    before = status_kib("VmRSS");
    measured = reset_peak();
    ck_assert_int_eq(pt2_package_open_path(&pkg, path, NULL, &err), PT2_OK);
    peak = status_kib("VmHWM");
    ck_assert_str_eq(warnings(pkg, got, sizeof(got)),
                     "models/model.json: not parsed, over the inspection's JSON budget (500000 "
                     "values, 32 MiB of parse tree) at byte 838860");
    ck_assert_ptr_null(pt2_package_meta_error(pkg));
    ck_assert_uint_eq(pt2_package_eprog_count(pkg), 0);
    pt2_package_free(pkg);
    remove_zip(dir, path);
    if (measured) /* the 8 MiB text and the scan; without the budget, over 300 MiB */
        ck_assert_int_le(peak - before, 64 * 1024);
    else
        tu_skip("budget", "no /proc/self/clear_refs: peak RSS not measured");
}
END_TEST

/* Sixteen such programs: the first spends the budget, the other fifteen are not read. */
START_TEST(test_sixteen_programs)
{
    char dir[] = "/tmp/pt2budXXXXXX", path[256], got[8192], want[8192], names[16][32];
    char *doc = zeros_doc(8 * MIB);
    const char *pairs[34] = {"archive_format", "pt2"};
    struct pt2_error err = {0};
    pt2_package *pkg = NULL;
    size_t used;

    for (int i = 0; i < 16; i++) {
        snprintf(names[i], sizeof(names[i]), "models/m%02d.json", i);
        pairs[2 + 2 * i] = names[i];
        pairs[3 + 2 * i] = doc;
    }
    make_zip(dir, path, sizeof(path), pairs, 17);
    free(doc);
    ck_assert_int_eq(pt2_package_open_path(&pkg, path, NULL, &err), PT2_OK);
    used = (size_t)snprintf(want, sizeof(want),
                            "models/m00.json: not parsed, over the inspection's JSON budget "
                            "(500000 values, 32 MiB of parse tree) at byte 838860");
    for (int i = 1; i < 16; i++)
        used += (size_t)snprintf(want + used, sizeof(want) - used,
                                 "\nmodels/m%02d.json: not parsed, the inspection's JSON budget "
                                 "was spent by models/m00.json",
                                 i);
    ck_assert_str_eq(warnings(pkg, got, sizeof(got)), want);
    pt2_package_free(pkg);
    remove_zip(dir, path);
}
END_TEST

/*
 * User metadata over the budget is a warning like any unusable user metadata, and the
 * program after it is refused unread; the next inspection has a budget of its own.
 */
START_TEST(test_user_metadata_first)
{
    char dir[] = "/tmp/pt2budXXXXXX", dir2[] = "/tmp/pt2budXXXXXX", path[256], got[4096];
    char *doc = zeros_doc(MIB); /* the cap on user metadata; 52 MiB of tree before */
    const char *eprog = "{\"graph_module\": {\"graph\": {\"tensor_values\": {}}, \"signature\": "
                        "{\"input_specs\": [], \"output_specs\": []}}}";
    const char *pairs[] = {"archive_format",    "pt2", "extra/model_metadata.json", doc,
                           "models/model.json", eprog};
    const char *good[] = {"archive_format", "pt2", "models/model.json", eprog};
    struct pt2_error err = {0};
    pt2_package *pkg = NULL;

    make_zip(dir, path, sizeof(path), pairs, 3);
    free(doc);
    ck_assert_int_eq(pt2_package_open_path(&pkg, path, NULL, &err), PT2_OK);
    ck_assert_str_eq(warnings(pkg, got, sizeof(got)),
                     "models/model.json: not parsed, the inspection's JSON budget was spent by "
                     "extra/model_metadata.json\n"
                     "extra/model_metadata.json: not parsed, over the inspection's JSON budget "
                     "(500000 values, 32 MiB of parse tree) at byte 838860 (ignored: kernels, "
                     "libraries and verdicts do not depend on it)");
    ck_assert_uint_eq(pt2_package_eprog_count(pkg), 0);
    pt2_package_free(pkg);
    remove_zip(dir, path);

    make_zip(dir2, path, sizeof(path), good, 2);
    ck_assert_int_eq(pt2_package_open_path(&pkg, path, NULL, &err), PT2_OK);
    ck_assert_uint_eq(pt2_package_warning_count(pkg), 0);
    ck_assert_uint_eq(pt2_package_eprog_count(pkg), 1);
    pt2_package_free(pkg);
    remove_zip(dir2, path);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("budget");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_big_program);
    tcase_add_test(tc, test_sixteen_programs);
    tcase_add_test(tc, test_user_metadata_first);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run_suite(suite());
}
