/*
 * test_cli_format.c - the CLI's JUnit and SARIF writer (service/cli/cli_format.c)
 * on documents of every shape the library gives or will give: verdict entries
 * with and without a "code", validation violations as strings and as objects
 * {input, axis, expected, got, code, message}, problems; the exact JUnit text,
 * SARIF's rules in the order first used with matching ruleIndex, escaping of
 * XML's special characters, control bytes and invalid UTF-8, artifact URIs,
 * and the cap on notifications.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_format.h"
#include "pt2scope.h"
#include "testutil.h"

struct capture {
    char *text;
    size_t len;
    FILE *f;
    cli_report *r;
};

static void cap_start(struct capture *c, int format, const char *command)
{
    memset(c, 0, sizeof(*c));
    c->f = open_memstream(&c->text, &c->len);
    ck_assert_ptr_nonnull(c->f);
    ck_assert_int_eq(cli_report_start(&c->r, format, command, c->f), PT2_OK);
}

/* Finish the report with `exit_code`; the text is c->text (the caller frees it). */
static void cap_finish(struct capture *c, int exit_code)
{
    ck_assert_int_eq(cli_report_finish(c->r, exit_code), PT2_OK);
    fclose(c->f);
}

static cJSON *parse(const char *text)
{
    cJSON *doc = cJSON_Parse(text);

    ck_assert_msg(doc != NULL, "not JSON: %s", text);
    return doc;
}

/* The member at a path of object keys and array indexes ("runs", "0", "results"...). */
static const cJSON *at(const cJSON *o, const char *const *path, size_t n)
{
    for (size_t i = 0; i < n && o != NULL; i++) {
        uint64_t idx;

        o = cJSON_IsArray(o) && pt2_num_u64(path[i], 10, &idx) == PT2_OK
                ? cJSON_GetArrayItem(o, (int)idx)
                : cJSON_GetObjectItemCaseSensitive(o, path[i]);
    }
    return o;
}
#define AT(o, ...)                                                                                 \
    at((o), (const char *const[]){__VA_ARGS__},                                                    \
       sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *))

static const char *ENTRIES = "[{\"target\": \"8.0\", \"kind\": \"target\", \"verdict\": "
                             "\"incompatible\", \"code\": \"arch-mismatch\", \"reason\": \"kernels "
                             "are sm_90a only\", \"advice\": \"Rebuild.\"},"
                             " {\"target\": \"H100\", \"verdict\": \"compatible\", \"code\": "
                             "\"compatible\", \"reason\": \"runs\", \"advice\": null},"
                             " {\"target\": \"local\", \"verdict\": \"unverified\", \"code\": "
                             "\"runtime\", \"reason\": \"torch unknown\", \"advice\": \"Say "
                             "torch=.\"}]";

START_TEST(test_parse)
{
    int f = -1;
    cli_report *r = (cli_report *)&f;

    ck_assert_int_eq(cli_format_parse("junit", &f), 0);
    ck_assert_int_eq(f, CLI_FORMAT_JUNIT);
    ck_assert_int_eq(cli_format_parse("sarif", &f), 0);
    ck_assert_int_eq(f, CLI_FORMAT_SARIF);
    ck_assert_int_eq(cli_format_parse("json", &f), 0);
    ck_assert_int_eq(f, CLI_FORMAT_JSON);
    ck_assert_int_eq(cli_format_parse("JUnit", &f), -1);
    ck_assert_int_eq(cli_format_parse(NULL, &f), -1);
    ck_assert_int_eq(f, CLI_FORMAT_JSON);
    ck_assert_int_eq(cli_report_start(&r, CLI_FORMAT_JSON, "check", stdout), PT2_ERR_INVALID);
    ck_assert_ptr_null(r);
    ck_assert_int_eq(cli_report_finish(NULL, 0), PT2_OK);
}
END_TEST

START_TEST(test_junit_codes)
{
    struct capture c;
    cJSON *e = parse(ENTRIES);

    cap_start(&c, CLI_FORMAT_JUNIT, "check");
    cli_report_verdicts(c.r, "m.pt2", e, "target");
    cap_finish(&c, 1);
    ck_assert_str_eq(c.text,
                     "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                     "<testsuites name=\"pt2scope check\">\n"
                     "  <testsuite name=\"m.pt2\" tests=\"3\" failures=\"1\" errors=\"0\" "
                     "skipped=\"0\">\n"
                     "    <testcase classname=\"m.pt2\" name=\"8.0\">\n"
                     "      <failure type=\"arch-mismatch\" message=\"kernels are sm_90a only\">"
                     "kernels are sm_90a only\nadvice: Rebuild.</failure>\n"
                     "    </testcase>\n"
                     "    <testcase classname=\"m.pt2\" name=\"H100\">\n"
                     "      <system-out>compatible: runs</system-out>\n"
                     "    </testcase>\n"
                     "    <testcase classname=\"m.pt2\" name=\"local\">\n"
                     "      <system-out>unverified: torch unknown\nadvice: Say "
                     "torch=.</system-out>\n"
                     "    </testcase>\n"
                     "  </testsuite>\n"
                     "</testsuites>\n");
    free(c.text);
    cJSON_Delete(e);
}
END_TEST

/* Without "code" (the library before it gave one), the verdict's name is the type. */
START_TEST(test_junit_no_code)
{
    struct capture c;
    cJSON *e = parse("[{\"name\": \"node-a\", \"verdict\": \"incompatible\", \"reason\": \"old\", "
                     "\"advice\": null}]");

    cap_start(&c, CLI_FORMAT_JUNIT, "check");
    cli_report_verdicts(c.r, "m.pt2", e, "name");
    cap_finish(&c, 1);
    ck_assert_ptr_nonnull(strstr(c.text, "    <testcase classname=\"m.pt2\" name=\"node-a\">\n"
                                         "      <failure type=\"incompatible\" message=\"old\">"
                                         "old</failure>\n"));
    free(c.text);
    cJSON_Delete(e);
}
END_TEST

START_TEST(test_junit_problem_and_readable)
{
    struct capture c;
    cJSON *p = pt2_problem_json(PT2_ERR_NOT_ZIP, "not a zip archive", NULL);

    cap_start(&c, CLI_FORMAT_JUNIT, "scan");
    cli_report_problem(c.r, "b.pt2", p);
    cli_report_readable(c.r, "a.pt2");
    cap_finish(&c, 3);
    ck_assert_str_eq(c.text,
                     "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                     "<testsuites name=\"pt2scope scan\">\n"
                     "  <testsuite name=\"b.pt2\" tests=\"1\" failures=\"0\" errors=\"1\" "
                     "skipped=\"0\">\n"
                     "    <testcase classname=\"b.pt2\" name=\"read\">\n"
                     "      <error type=\"not-a-zip\" message=\"not a zip archive\">The file is "
                     "not a zip archive: not a zip archive</error>\n"
                     "    </testcase>\n"
                     "  </testsuite>\n"
                     "  <testsuite name=\"a.pt2\" tests=\"1\" failures=\"0\" errors=\"0\" "
                     "skipped=\"0\">\n"
                     "    <testcase classname=\"a.pt2\" name=\"read\"/>\n"
                     "  </testsuite>\n"
                     "</testsuites>\n");
    free(c.text);
    cJSON_Delete(p);
}
END_TEST

static const char *VIOLATIONS =
    "{\"valid\": false, \"errors\": [{\"input\": \"image\", \"axis\": 1, \"expected\": 3, "
    "\"got\": 4, \"code\": \"dim-mismatch\", \"message\": \"input 'image' axis 1: expected 3, got "
    "4\"}, {\"input\": \"scale\", \"code\": \"missing-input\", \"message\": \"missing input "
    "'scale'\"}], \"warnings\": [\"only names\"]}";

START_TEST(test_validation_objects)
{
    struct capture c;
    cJSON *v = parse(VIOLATIONS), *doc;

    cap_start(&c, CLI_FORMAT_JUNIT, "validate");
    cli_report_validation(c.r, "m.pt2", v);
    cap_finish(&c, 1);
    ck_assert_ptr_nonnull(strstr(c.text, "  <testsuite name=\"m.pt2\" tests=\"1\" failures=\"1\" "
                                         "errors=\"0\" skipped=\"0\">\n"
                                         "    <testcase classname=\"m.pt2\" name=\"inputs\">\n"
                                         "      <failure type=\"dim-mismatch\" message=\"input "
                                         "'image' axis 1: expected 3, got 4\">input 'image' axis "
                                         "1: expected 3, got 4\nmissing input 'scale'\nnote: "
                                         "only names</failure>\n"));
    free(c.text);

    cap_start(&c, CLI_FORMAT_SARIF, "validate");
    cli_report_validation(c.r, "m.pt2", v);
    cap_finish(&c, 1);
    doc = parse(c.text);
    ck_assert_int_eq(cJSON_GetArraySize(AT(doc, "runs", "0", "results")), 2);
    ck_assert_str_eq(AT(doc, "runs", "0", "results", "0", "ruleId")->valuestring, "dim-mismatch");
    ck_assert_str_eq(AT(doc, "runs", "0", "results", "0", "message", "text")->valuestring,
                     "input 'image' axis 1: expected 3, got 4");
    ck_assert_str_eq(AT(doc, "runs", "0", "results", "0", "properties", "input")->valuestring,
                     "image");
    ck_assert_int_eq(AT(doc, "runs", "0", "results", "0", "properties", "axis")->valueint, 1);
    ck_assert_str_eq(AT(doc, "runs", "0", "results", "1", "ruleId")->valuestring, "missing-input");
    ck_assert_int_eq(AT(doc, "runs", "0", "results", "1", "ruleIndex")->valueint, 1);
    ck_assert_str_eq(AT(doc, "runs", "0", "tool", "driver", "rules", "1", "id")->valuestring,
                     "missing-input");
    free(c.text);
    cJSON_Delete(doc);
    cJSON_Delete(v);
}
END_TEST

/* Violations as strings (the library before objects): rule "invalid", no properties. */
START_TEST(test_validation_strings)
{
    struct capture c;
    cJSON *v = parse("{\"valid\": false, \"errors\": [\"missing input 'x'\"], \"warnings\": []}");
    cJSON *doc;

    cap_start(&c, CLI_FORMAT_JUNIT, "validate");
    cli_report_validation(c.r, "m.pt2", v);
    cap_finish(&c, 1);
    ck_assert_ptr_nonnull(strstr(c.text, "<failure type=\"invalid\" message=\"missing input "
                                         "'x'\">missing input 'x'</failure>"));
    free(c.text);
    cap_start(&c, CLI_FORMAT_SARIF, "validate");
    cli_report_validation(c.r, "m.pt2", v);
    cap_finish(&c, 1);
    doc = parse(c.text);
    ck_assert_str_eq(AT(doc, "runs", "0", "results", "0", "ruleId")->valuestring, "invalid");
    ck_assert_ptr_null(AT(doc, "runs", "0", "results", "0", "properties"));
    free(c.text);
    cJSON_Delete(doc);
    cJSON_Delete(v);
}
END_TEST

START_TEST(test_sarif_rules)
{
    struct capture c;
    cJSON *a = parse(ENTRIES), *doc;
    cJSON *b = parse("[{\"target\": \"B200\", \"verdict\": \"incompatible\", \"code\": "
                     "\"driver-too-old\", \"reason\": \"12.4\", \"advice\": \"Upgrade.\"}, "
                     "{\"target\": \"8.0\", \"verdict\": \"incompatible\", \"code\": "
                     "\"arch-mismatch\", \"reason\": \"sm_90a\", \"advice\": \"Rebuild.\"}]");
    const char *rules[] = {"arch-mismatch", "driver-too-old", "arch-mismatch"};
    const int index[] = {0, 1, 0};

    cap_start(&c, CLI_FORMAT_SARIF, "scan");
    cli_report_verdicts(c.r, "a.pt2", a, "target");
    cli_report_verdicts(c.r, "b.pt2", b, "target");
    cli_report_readable(c.r, "c.pt2"); /* nothing to say */
    cap_finish(&c, 1);
    doc = parse(c.text);
    ck_assert_str_eq(AT(doc, "version")->valuestring, "2.1.0");
    ck_assert_int_eq(cJSON_GetArraySize(AT(doc, "runs", "0", "results")), 3);
    for (int i = 0; i < 3; i++) {
        char n[16];

        snprintf(n, sizeof(n), "%d", i);
        ck_assert_str_eq(AT(doc, "runs", "0", "results", n, "ruleId")->valuestring, rules[i]);
        ck_assert_int_eq(AT(doc, "runs", "0", "results", n, "ruleIndex")->valueint, index[i]);
        ck_assert_str_eq(AT(doc, "runs", "0", "results", n, "level")->valuestring, "error");
    }
    ck_assert_int_eq(cJSON_GetArraySize(AT(doc, "runs", "0", "tool", "driver", "rules")), 2);
    ck_assert_str_eq(AT(doc, "runs", "0", "results", "1", "message", "text")->valuestring,
                     "B200: incompatible: 12.4\nadvice: Upgrade.");
    ck_assert_str_eq(AT(doc, "runs", "0", "results", "1", "properties", "code")->valuestring,
                     "driver-too-old");
    ck_assert_str_eq(AT(doc, "runs", "0", "results", "2", "locations", "0", "physicalLocation",
                        "artifactLocation", "uri")
                         ->valuestring,
                     "b.pt2");
    ck_assert(cJSON_IsTrue(AT(doc, "runs", "0", "invocations", "0", "executionSuccessful")));
    ck_assert_int_eq(AT(doc, "runs", "0", "invocations", "0", "exitCode")->valueint, 1);
    ck_assert_ptr_null(AT(doc, "runs", "0", "invocations", "0", "toolExecutionNotifications"));
    free(c.text);
    cJSON_Delete(doc);
    cJSON_Delete(a);
    cJSON_Delete(b);
}
END_TEST

START_TEST(test_xml_escaping)
{
    struct capture c;
    cJSON *e = parse("[{\"target\": \"t\\n1\", \"verdict\": \"incompatible\", \"reason\": \"a < b "
                     "& \\\"c\\\"\", \"advice\": \"x\\u0007y\"}]");

    cap_start(&c, CLI_FORMAT_JUNIT, "check");
    cli_report_verdicts(c.r, "a&b<c>\"d\x01\xff\xef\xbf\xbe.pt2", e, "target");
    cap_finish(&c, 1);
    ck_assert_ptr_nonnull(strstr(c.text, "<testsuite name=\"a&amp;b&lt;c&gt;&quot;d?????.pt2\""));
    ck_assert_ptr_nonnull(strstr(c.text, " name=\"t&#10;1\">"));
    ck_assert_ptr_nonnull(strstr(c.text, "message=\"a &lt; b &amp; &quot;c&quot;\">a &lt; b &amp; "
                                         "\"c\"\nadvice: x?y</failure>"));
    free(c.text);
    cJSON_Delete(e);
}
END_TEST

START_TEST(test_uris_and_notes)
{
    const char *names[] = {"rel:dir/a b.pt2", "/abs/x#y.pt2", "https://h.example/m/a.pt2",
                           "s3://bucket/k%20x.pt2", "caf\xc3\xa9.pt2"};
    const char *uris[] = {"rel%3Adir/a%20b.pt2", "file:///abs/x%23y.pt2",
                          "https://h.example/m/a.pt2", "s3://bucket/k%20x.pt2", "caf%C3%A9.pt2"};
    struct capture c;
    cJSON *p = pt2_problem_json(PT2_ERR_TRUNCATED, "truncated", NULL), *doc;
    const cJSON *notes;
    size_t i;

    cap_start(&c, CLI_FORMAT_SARIF, "scan");
    for (i = 0; i < 5; i++)
        cli_report_problem(c.r, names[i], p);
    for (; i < 1001; i++)
        cli_report_problem(c.r, "more.pt2", p);
    cap_finish(&c, 3);
    doc = parse(c.text);
    notes = AT(doc, "runs", "0", "invocations", "0", "toolExecutionNotifications");
    ck_assert_int_eq(cJSON_GetArraySize(notes), 1001); /* 1000 and one for the rest */
    for (i = 0; i < 5; i++) {
        const cJSON *n = cJSON_GetArrayItem(notes, (int)i);

        ck_assert_str_eq(
            AT(n, "locations", "0", "physicalLocation", "artifactLocation", "uri")->valuestring,
            uris[i]);
        ck_assert_str_eq(AT(n, "descriptor", "id")->valuestring, "truncated");
        ck_assert_str_eq(AT(n, "level")->valuestring, "error");
    }
    ck_assert_str_eq(AT(notes, "1000", "message", "text")->valuestring,
                     "1 more packages could not be read");
    ck_assert(cJSON_IsFalse(AT(doc, "runs", "0", "invocations", "0", "executionSuccessful")));
    ck_assert_int_eq(AT(doc, "runs", "0", "invocations", "0", "exitCode")->valueint, 3);
    ck_assert_int_eq(cJSON_GetArraySize(AT(doc, "runs", "0", "results")), 0);
    free(c.text);
    cJSON_Delete(doc);
    cJSON_Delete(p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cli_format");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_parse);
    tcase_add_test(tc, test_junit_codes);
    tcase_add_test(tc, test_junit_no_code);
    tcase_add_test(tc, test_junit_problem_and_readable);
    tcase_add_test(tc, test_validation_objects);
    tcase_add_test(tc, test_validation_strings);
    tcase_add_test(tc, test_sarif_rules);
    tcase_add_test(tc, test_xml_escaping);
    tcase_add_test(tc, test_uris_and_notes);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
