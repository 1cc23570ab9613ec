/*
 * cli_format.c - JUnit XML and SARIF 2.1.0 reports of verdicts (cli_format.h).
 *
 * Design: the verdicts, violations and problems are the library's documents,
 * read here member by member; nothing is judged again. Both formats are
 * streamed: JUnit's counts are per <testsuite> (one package, known when it is
 * added), the top <testsuites> carries none; SARIF's results are written as
 * they come and the run's "tool" (its rules, in the order first used, so a
 * result's ruleIndex is known when it is written) and "invocations" (the exit
 * status, the unreadable packages as notifications, at most
 * REPORT_NOTES_MAX of them and one saying how many more) follow them, as
 * JSON allows. Text is scrubbed to UTF-8; XML also loses the control
 * characters XML 1.0 cannot carry (as '?'). A package's name becomes the
 * artifact's URI: a URL as shown, an absolute path as file://, a relative
 * path as a relative reference, bytes outside the URI syntax %-encoded.
 */
#include <stdlib.h>
#include <string.h>

#include "cli_format.h"
#include "pt2_remote.h"
#include "pt2scope.h"

#define REPORT_RULES_MAX 128
#define REPORT_RULE_ID_MAX 64
#define REPORT_NOTES_MAX 1000
#define REPORT_TEXT_MAX 4096 /* one SARIF message */
#define SARIF_SCHEMA                                                                               \
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/os/schemas/sarif-schema-2.1.0.json"

enum { CASE_PASS, CASE_FAIL, CASE_ERROR };

struct cli_report {
    int format;
    const char *command;
    FILE *f;
    int nomem;              /* a part of the report could not be built */
    unsigned long nresults; /* SARIF results written */
    char rules[REPORT_RULES_MAX][REPORT_RULE_ID_MAX];
    size_t nrules;
    cJSON *notes; /* SARIF toolExecutionNotifications */
    unsigned long notes_dropped;
};

/* One line of a JUnit body: "LABEL: TEXT", or TEXT alone when label is "" or NULL. */
struct jline {
    const char *label, *text;
};

int cli_format_parse(const char *name, int *out)
{
    static const char *const names[] = {"text", "json", "junit", "sarif"};

    for (size_t i = 0; name != NULL && i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(name, names[i]) == 0) {
            *out = (int)i;
            return 0;
        }
    return -1;
}

static const char *or_empty(const char *s)
{
    return s != NULL ? s : "";
}

/* The last segment of a problem type URI: "not-a-zip". */
static const char *problem_slug(const cJSON *problem)
{
    const char *type = pt2_json_str(problem, "type"), *slash;

    if (type == NULL)
        return "unreadable";
    slash = strrchr(type, '/');
    return slash != NULL && slash[1] != '\0' ? slash + 1 : type;
}

/* ---- XML ------------------------------------------------------------------ */

/* `s` as XML character data, or an attribute value when `attr` (newlines as &#10;). */
static void xml_put(cli_report *r, const char *s, int attr)
{
    char *t = strdup(or_empty(s));
    size_t n, i;

    if (t == NULL) {
        r->nomem = 1;
        return;
    }
    n = strlen(t);
    pt2_utf8_scrub(t, n);
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)t[i];

        /* U+FFFE and U+FFFF are not XML characters either. */
        if (c == 0xEF && i + 2 < n && (unsigned char)t[i + 1] == 0xBF &&
            ((unsigned char)t[i + 2] & 0xFE) == 0xBE) {
            fputs("???", r->f);
            i += 2;
        } else if (c == '&') {
            fputs("&amp;", r->f);
        } else if (c == '<') {
            fputs("&lt;", r->f);
        } else if (c == '>') {
            fputs("&gt;", r->f);
        } else if (c == '"' && attr) {
            fputs("&quot;", r->f);
        } else if ((c == '\n' || c == '\t' || c == '\r') && attr) {
            fprintf(r->f, "&#%u;", c);
        } else if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F) {
            fputc('?', r->f);
        } else {
            fputc(c, r->f);
        }
    }
    free(t);
}

static void junit_suite_begin(cli_report *r, const char *package, size_t tests, size_t failures,
                              size_t errors)
{
    fputs("  <testsuite name=\"", r->f);
    xml_put(r, package, 1);
    fprintf(r->f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"0\">\n", tests,
            failures, errors);
}

/*
 * One <testcase>: a pass with its body (if any) as <system-out>, or a
 * <failure>/<error> of `type` whose message is `message` and whose text is
 * the body, one line each.
 */
static void junit_case(cli_report *r, const char *package, const char *name, int outcome,
                       const char *type, const char *message, const struct jline *body,
                       size_t nbody)
{
    const char *elem = outcome == CASE_FAIL ? "failure" : outcome == CASE_ERROR ? "error" : NULL;

    fputs("    <testcase classname=\"", r->f);
    xml_put(r, package, 1);
    fputs("\" name=\"", r->f);
    xml_put(r, name, 1);
    if (elem == NULL && nbody == 0) {
        fputs("\"/>\n", r->f);
        return;
    }
    fputs("\">\n", r->f);
    if (elem != NULL) {
        fprintf(r->f, "      <%s type=\"", elem);
        xml_put(r, type, 1);
        fputs("\" message=\"", r->f);
        xml_put(r, message, 1);
        fputs("\">", r->f);
    } else {
        fputs("      <system-out>", r->f);
    }
    for (size_t i = 0; i < nbody; i++) {
        if (i > 0)
            fputc('\n', r->f);
        if (body[i].label != NULL && body[i].label[0] != '\0') {
            xml_put(r, body[i].label, 0);
            fputs(": ", r->f);
        }
        xml_put(r, body[i].text, 0);
    }
    fprintf(r->f, "</%s>\n    </testcase>\n", elem != NULL ? elem : "system-out");
}

static void junit_suite_end(cli_report *r)
{
    fputs("  </testsuite>\n", r->f);
}

/* ---- SARIF ---------------------------------------------------------------- */

static int uri_keeps(unsigned char c, int url)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
        strchr("-._~/", c) != NULL)
        return c != '\0';
    return url && c != '\0' && strchr(":@!$&'()*+,;=?#[]%", c) != NULL;
}

/* The artifact URI of a package name (see the design note); NULL when out of memory. */
static char *uri_of(const char *name)
{
    static const char hex[] = "0123456789ABCDEF";
    int url = pt2_remote_is_url(name);
    size_t n = strlen(name), o = 0;
    char *out = malloc(3 * n + sizeof("file://"));

    if (out == NULL)
        return NULL;
    if (!url && name[0] == '/') {
        memcpy(out, "file://", 7);
        o = 7;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)name[i];

        if (uri_keeps(c, url)) {
            out[o++] = (char)c;
        } else {
            out[o++] = '%';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        }
    }
    out[o] = '\0';
    return out;
}

/* [{"physicalLocation": {"artifactLocation": {"uri"}}}]; NULL when out of memory. */
static cJSON *sarif_locations(const char *package)
{
    cJSON *locs = cJSON_CreateArray(), *loc = cJSON_CreateObject(), *phys = cJSON_CreateObject(),
          *art = cJSON_CreateObject();
    char *uri = uri_of(package);
    int ok = uri != NULL && cJSON_AddStringToObject(art, "uri", uri) != NULL;

    free(uri);
    /* pt2_json_add_owned takes each part, so nothing leaks whichever failed. */
    ok = pt2_json_add_owned(phys, "artifactLocation", art) && ok;
    ok = pt2_json_add_owned(loc, "physicalLocation", phys) && ok;
    ok = pt2_json_add_owned(locs, NULL, loc) && ok;
    if (!ok) {
        cJSON_Delete(locs);
        return NULL;
    }
    return locs;
}

/* {"text": text}; NULL when out of memory. */
static cJSON *sarif_message(const char *text)
{
    cJSON *m = cJSON_CreateObject();

    if (m == NULL || cJSON_AddStringToObject(m, "text", text) == NULL) {
        cJSON_Delete(m);
        return NULL;
    }
    return m;
}

/* The index of rule `id` in the run's rules, added when new; -1 past the table. */
static int sarif_rule(cli_report *r, const char *id)
{
    size_t i;

    for (i = 0; i < r->nrules; i++)
        if (strcmp(r->rules[i], id) == 0)
            return (int)i;
    if (r->nrules == REPORT_RULES_MAX || strlen(id) >= REPORT_RULE_ID_MAX)
        return -1;
    memcpy(r->rules[r->nrules], id, strlen(id) + 1);
    return (int)r->nrules++;
}

/* Write one object of an array opened on the stream (",\n" between items). */
static void sarif_emit(cli_report *r, const cJSON *o, unsigned long index)
{
    char *s = cJSON_PrintUnformatted(o);

    if (s == NULL) {
        r->nomem = 1;
        return;
    }
    pt2_utf8_scrub(s, strlen(s)); /* names need not be UTF-8 */
    fprintf(r->f, "%s        %s", index > 0 ? ",\n" : "", s);
    cJSON_free(s);
}

/* One result: rule `rule`, level error, `text`, the package as its location, `props` (owned). */
static void sarif_result(cli_report *r, const char *package, const char *rule, const char *text,
                         cJSON *props)
{
    cJSON *res = cJSON_CreateObject();
    int idx = sarif_rule(r, rule);
    int ok = res != NULL && cJSON_AddStringToObject(res, "ruleId", rule) != NULL &&
             (idx < 0 || cJSON_AddNumberToObject(res, "ruleIndex", idx) != NULL) &&
             cJSON_AddStringToObject(res, "level", "error") != NULL &&
             pt2_json_add_owned(res, "message", sarif_message(text)) &&
             pt2_json_add_owned(res, "locations", sarif_locations(package));

    if (ok && props != NULL) {
        ok = pt2_json_add_owned(res, "properties", props);
        props = NULL;
    }
    if (ok)
        sarif_emit(r, res, r->nresults++);
    else
        r->nomem = 1;
    cJSON_Delete(props);
    cJSON_Delete(res);
}

/* The properties bag of a verdict result: the entry's members a pipeline filters on. */
static cJSON *sarif_verdict_props(const cJSON *entry, const char *label_key)
{
    const char *keys[] = {label_key, "kind",   "verdict",  "code",
                          "reason",  "advice", "requires", "unverified"};
    cJSON *props = cJSON_CreateObject();

    for (size_t i = 0; props != NULL && i < sizeof(keys) / sizeof(keys[0]); i++) {
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(entry, keys[i]);

        if (m != NULL && !cJSON_IsNull(m) &&
            !pt2_json_add_owned(props, keys[i], cJSON_Duplicate(m, 1))) {
            cJSON_Delete(props);
            return NULL;
        }
    }
    return props;
}

/* An unreadable package: a notification of the run's invocation. */
static void sarif_note(cli_report *r, const char *package, const cJSON *problem)
{
    const char *detail = pt2_json_str(problem, "detail");
    char text[REPORT_TEXT_MAX];
    cJSON *note, *desc;
    int ok;

    if (cJSON_GetArraySize(r->notes) >= REPORT_NOTES_MAX) {
        r->notes_dropped++;
        return;
    }
    snprintf(text, sizeof(text), "%s: %s", package,
             detail != NULL ? detail : or_empty(pt2_json_str(problem, "title")));
    note = cJSON_CreateObject();
    desc = cJSON_CreateObject();
    ok = cJSON_AddStringToObject(desc, "id", problem_slug(problem)) != NULL;
    ok = pt2_json_add_owned(note, "descriptor", desc) && ok;
    ok = ok && cJSON_AddStringToObject(note, "level", "error") != NULL &&
         pt2_json_add_owned(note, "message", sarif_message(text)) &&
         pt2_json_add_owned(note, "locations", sarif_locations(package)) &&
         pt2_json_add_owned(note, "properties", cJSON_Duplicate(problem, 1));
    if (!ok) {
        cJSON_Delete(note);
        r->nomem = 1;
        return;
    }
    if (!pt2_json_add_owned(r->notes, NULL, note))
        r->nomem = 1;
}

/* ---- reports -------------------------------------------------------------- */

int cli_report_start(cli_report **out, int format, const char *command, FILE *f)
{
    cli_report *r;

    *out = NULL;
    if (format != CLI_FORMAT_JUNIT && format != CLI_FORMAT_SARIF)
        return PT2_ERR_INVALID;
    r = calloc(1, sizeof(*r));
    if (r == NULL)
        return PT2_ERR_NOMEM;
    r->format = format;
    r->command = command;
    r->f = f;
    if (format == CLI_FORMAT_SARIF) {
        r->notes = cJSON_CreateArray();
        if (r->notes == NULL) {
            free(r);
            return PT2_ERR_NOMEM;
        }
        fprintf(f,
                "{\n  \"$schema\": \"%s\",\n  \"version\": \"2.1.0\",\n  \"runs\": [\n    {\n"
                "      \"results\": [\n",
                SARIF_SCHEMA);
    } else {
        fprintf(f,
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"pt2scope %s\">\n",
                command);
    }
    *out = r;
    return PT2_OK;
}

/* Whether an entry's verdict fails: incompatible (ptx-jit and unverified run). */
static int entry_fails(const cJSON *e)
{
    return pt2_verdict_from_name(pt2_json_str(e, "verdict")) == PT2_INCOMPATIBLE;
}

/* The rule of an entry or violation: its "code", else `fallback`. */
static const char *rule_of(const cJSON *o, const char *fallback)
{
    const char *code = pt2_json_str(o, "code");

    return code != NULL && code[0] != '\0' ? code : fallback;
}

static void junit_verdicts(cli_report *r, const char *package, const cJSON *entries,
                           const char *label_key)
{
    const cJSON *e;
    size_t n = 0, failures = 0;

    cJSON_ArrayForEach(e, entries)
    {
        n++;
        failures += entry_fails(e) != 0;
    }
    junit_suite_begin(r, package, n, failures, 0);
    cJSON_ArrayForEach(e, entries)
    {
        const char *verdict = or_empty(pt2_json_str(e, "verdict"));
        const char *reason = or_empty(pt2_json_str(e, "reason"));
        const char *advice = pt2_json_str(e, "advice");
        int fails = entry_fails(e);
        /* A failure's type is the verdict already; a pass says which one in its output. */
        struct jline body[2] = {{fails ? NULL : verdict, reason}, {"advice", advice}};

        junit_case(r, package, pt2_json_str(e, label_key), fails ? CASE_FAIL : CASE_PASS,
                   rule_of(e, verdict), reason, body, advice != NULL && advice[0] ? 2 : 1);
    }
    junit_suite_end(r);
}

void cli_report_verdicts(cli_report *r, const char *package, const cJSON *entries,
                         const char *label_key)
{
    const cJSON *e;

    if (r == NULL)
        return;
    if (r->format == CLI_FORMAT_JUNIT) {
        junit_verdicts(r, package, entries, label_key);
        return;
    }
    cJSON_ArrayForEach(e, entries)
    {
        const char *advice = pt2_json_str(e, "advice");
        char text[REPORT_TEXT_MAX];

        if (!entry_fails(e))
            continue;
        snprintf(text, sizeof(text), "%s: %s: %s%s%s", or_empty(pt2_json_str(e, label_key)),
                 or_empty(pt2_json_str(e, "verdict")), or_empty(pt2_json_str(e, "reason")),
                 advice != NULL && advice[0] ? "\nadvice: " : "", or_empty(advice));
        sarif_result(r, package, rule_of(e, pt2_json_str(e, "verdict")), text,
                     sarif_verdict_props(e, label_key));
    }
}

void cli_report_problem(cli_report *r, const char *package, const cJSON *problem)
{
    const char *title = or_empty(pt2_json_str(problem, "title"));
    const char *detail = pt2_json_str(problem, "detail");
    struct jline body[1] = {{title, detail != NULL ? detail : ""}};

    if (r == NULL)
        return;
    if (r->format == CLI_FORMAT_SARIF) {
        sarif_note(r, package, problem);
        return;
    }
    junit_suite_begin(r, package, 1, 0, 1);
    junit_case(r, package, "read", CASE_ERROR, problem_slug(problem),
               detail != NULL ? detail : title, body, 1);
    junit_suite_end(r);
}

void cli_report_readable(cli_report *r, const char *package)
{
    if (r == NULL || r->format != CLI_FORMAT_JUNIT)
        return;
    junit_suite_begin(r, package, 1, 0, 0);
    junit_case(r, package, "read", CASE_PASS, NULL, NULL, NULL, 0);
    junit_suite_end(r);
}

/* A violation's text: the string, or the object's "message". */
static const char *violation_text(const cJSON *v)
{
    return cJSON_IsString(v) ? v->valuestring : or_empty(pt2_json_str(v, "message"));
}

static void junit_validation(cli_report *r, const char *package, const cJSON *answer)
{
    const cJSON *errors = cJSON_GetObjectItemCaseSensitive(answer, "errors");
    const cJSON *warnings = cJSON_GetObjectItemCaseSensitive(answer, "warnings");
    int valid = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(answer, "valid"));
    size_t nerr = (size_t)cJSON_GetArraySize(errors), n = 0;
    struct jline *body = calloc(nerr + (size_t)cJSON_GetArraySize(warnings) + 1, sizeof(*body));
    const cJSON *v;

    if (body == NULL) {
        r->nomem = 1;
        return;
    }
    cJSON_ArrayForEach(v, errors) body[n++] = (struct jline){NULL, violation_text(v)};
    cJSON_ArrayForEach(v, warnings) body[n++] = (struct jline){"note", violation_text(v)};
    junit_suite_begin(r, package, 1, valid ? 0 : 1, 0);
    junit_case(r, package, "inputs", valid ? CASE_PASS : CASE_FAIL,
               errors != NULL && errors->child != NULL ? rule_of(errors->child, "invalid")
                                                       : "invalid",
               nerr > 0 ? violation_text(errors->child) : "invalid inputs", body, n);
    junit_suite_end(r);
    free(body);
}

void cli_report_validation(cli_report *r, const char *package, const cJSON *answer)
{
    const cJSON *v;

    if (r == NULL)
        return;
    if (r->format == CLI_FORMAT_JUNIT) {
        junit_validation(r, package, answer);
        return;
    }
    cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(answer, "errors"))
    {
        cJSON *props = cJSON_IsObject(v) ? cJSON_Duplicate(v, 1) : NULL;

        if (cJSON_IsObject(v) && props == NULL) {
            r->nomem = 1;
            continue;
        }
        sarif_result(r, package, rule_of(v, "invalid"), violation_text(v), props);
    }
}

/* "tool": the driver and the rules the results name. */
static cJSON *sarif_tool(const cli_report *r)
{
    cJSON *tool = cJSON_CreateObject(), *driver = cJSON_CreateObject(),
          *rules = cJSON_CreateArray();
    int ok = cJSON_AddStringToObject(driver, "name", "pt2scope") != NULL &&
             cJSON_AddStringToObject(driver, "version", PT2SCOPE_VERSION) != NULL &&
             cJSON_AddStringToObject(driver, "informationUri", "https://pt2scope.dev/") != NULL;

    for (size_t i = 0; ok && i < r->nrules; i++) {
        cJSON *rule = cJSON_CreateObject();

        ok = cJSON_AddStringToObject(rule, "id", r->rules[i]) != NULL;
        ok = pt2_json_add_owned(rules, NULL, rule) && ok;
    }
    ok = pt2_json_add_owned(driver, "rules", rules) && ok;
    ok = pt2_json_add_owned(tool, "driver", driver) && ok;
    if (!ok) {
        cJSON_Delete(tool);
        return NULL;
    }
    return tool;
}

/* "invocations": one, with the exit status and the notifications (taken from r). */
static cJSON *sarif_invocations(cli_report *r, int exit_code)
{
    cJSON *invs = cJSON_CreateArray(), *inv = cJSON_CreateObject();
    int ok = cJSON_AddBoolToObject(inv, "executionSuccessful", exit_code == 0 || exit_code == 1) !=
                 NULL &&
             cJSON_AddNumberToObject(inv, "exitCode", exit_code) != NULL;

    if (ok && r->notes_dropped > 0) {
        char text[128];
        cJSON *more = cJSON_CreateObject();

        snprintf(text, sizeof(text), "%lu more packages could not be read", r->notes_dropped);
        ok = cJSON_AddStringToObject(more, "level", "error") != NULL &&
             pt2_json_add_owned(more, "message", sarif_message(text));
        ok = pt2_json_add_owned(r->notes, NULL, more) && ok;
    }
    if (ok && cJSON_GetArraySize(r->notes) > 0) {
        ok = pt2_json_add_owned(inv, "toolExecutionNotifications", r->notes);
        r->notes = NULL;
    }
    ok = pt2_json_add_owned(invs, NULL, inv) && ok;
    if (!ok) {
        cJSON_Delete(invs);
        return NULL;
    }
    return invs;
}

static void sarif_finish(cli_report *r, int exit_code)
{
    cJSON *tool = sarif_tool(r), *invs = sarif_invocations(r, exit_code);
    char *t = tool != NULL ? cJSON_PrintUnformatted(tool) : NULL;
    char *i = invs != NULL ? cJSON_PrintUnformatted(invs) : NULL;

    if (t != NULL && i != NULL) {
        pt2_utf8_scrub(i, strlen(i));
        fprintf(r->f, "%s      ],\n      \"tool\": %s,\n      \"invocations\": %s\n    }\n  ]\n}\n",
                r->nresults > 0 ? "\n" : "", t, i);
    } else {
        r->nomem = 1;
    }
    cJSON_free(t);
    cJSON_free(i);
    cJSON_Delete(tool);
    cJSON_Delete(invs);
}

int cli_report_finish(cli_report *r, int exit_code)
{
    int rc;

    if (r == NULL)
        return PT2_OK;
    if (r->format == CLI_FORMAT_SARIF)
        sarif_finish(r, exit_code);
    else
        fputs("</testsuites>\n", r->f);
    rc = r->nomem ? PT2_ERR_NOMEM : fflush(r->f) != 0 || ferror(r->f) ? PT2_ERR_IO : PT2_OK;
    cJSON_Delete(r->notes);
    free(r);
    return rc;
}
