/*
 * test_affinity.c - the nodeAffinity of a package against the verdicts.
 *
 * The agreement test: every fixture package, a synthetic cluster of GPU
 * Feature Discovery nodes (every compute capability of the CC table x every
 * driver x amd64/arm64, GPU-less and CPU-only nodes), the selector evaluated
 * the way Kubernetes evaluates it (tests/support/k8ssel.c, written from the
 * API text) and compared node by node with pt2_k8s_compat_json: selected
 * exactly where the verdict is compatible or compatible-ptx-jit. Label sets
 * GFD does not write are checked for the safe direction only. The
 * evaluator itself is tested first, so the agreement cannot pass by a
 * broken evaluator selecting everything or nothing.
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "k8ssel.h"
#include "pt2_affinity.h"
#include "pt2_inspect.h"
#include "pt2_k8s.h"
#include "pt2_nfd.h"
#include "pt2_verdicts.h"
#include "testutil.h"

static pt2_package *open_fixture(const char *name)
{
    struct pt2_error err = {0};
    pt2_package *pkg = NULL;
    char p[512];

    ck_assert_msg(pt2_package_open_path(&pkg, tu_fixture(name, p, sizeof(p)), NULL, &err) == PT2_OK,
                  "%s: %s", name, err.message);
    return pkg;
}

static cJSON *affinity_of(const pt2_package *pkg, int *selectable)
{
    struct pt2_error err = {0};
    cJSON *aff = NULL;

    ck_assert_msg(pt2_package_node_affinity(pkg, &aff, selectable, &err) == PT2_OK, "%s",
                  err.message);
    return aff;
}

static int selects(const cJSON *aff, const char *labels_json)
{
    cJSON *labels = cJSON_Parse(labels_json);
    char why[256] = "";
    int r;

    ck_assert_ptr_nonnull(labels);
    r = ks_selects(aff, labels, why, sizeof(why));
    cJSON_Delete(labels);
    ck_assert_msg(r >= 0, "malformed selector: %s", why);
    return r;
}

/* ---- the evaluator -------------------------------------------------------------- */

START_TEST(test_evaluator_semantics)
{
    cJSON *aff = cJSON_Parse(
        "{\"requiredDuringSchedulingIgnoredDuringExecution\": {\"nodeSelectorTerms\": ["
        "{\"matchExpressions\": [{\"key\": \"a\", \"operator\": \"In\", \"values\": [\"1\", "
        "\"2\"]}, {\"key\": \"b\", \"operator\": \"Gt\", \"values\": [\"7\"]}]},"
        "{\"matchExpressions\": [{\"key\": \"c\", \"operator\": \"Exists\"}, {\"key\": \"d\", "
        "\"operator\": \"DoesNotExist\"}, {\"key\": \"e\", \"operator\": \"NotIn\", \"values\": "
        "[\"x\"]}, {\"key\": \"f\", \"operator\": \"Lt\", \"values\": [\"-2\"]}]}]}}");

    ck_assert_ptr_nonnull(aff);
    /* Term 1: a in {1, 2} and b > 7 (as integers). */
    ck_assert_int_eq(selects(aff, "{\"a\": \"2\", \"b\": \"8\"}"), 1);
    ck_assert_int_eq(selects(aff, "{\"a\": \"2\", \"b\": \"7\"}"), 0);
    ck_assert_int_eq(selects(aff, "{\"a\": \"3\", \"b\": \"80\"}"), 0);
    ck_assert_int_eq(selects(aff, "{\"a\": \"1\", \"b\": \"+10\"}"), 1);
    ck_assert_int_eq(selects(aff, "{\"a\": \"1\", \"b\": \"10x\"}"), 0);
    ck_assert_int_eq(selects(aff, "{\"a\": \"1\"}"), 0);
    /* Term 2: c there, d not, e absent or not x, f < -2. */
    ck_assert_int_eq(selects(aff, "{\"c\": \"\", \"f\": \"-3\"}"), 1);
    ck_assert_int_eq(selects(aff, "{\"c\": \"\", \"e\": \"y\", \"f\": \"-3\"}"), 1);
    ck_assert_int_eq(selects(aff, "{\"c\": \"\", \"e\": \"x\", \"f\": \"-3\"}"), 0);
    ck_assert_int_eq(selects(aff, "{\"c\": \"\", \"d\": \"1\", \"f\": \"-3\"}"), 0);
    ck_assert_int_eq(selects(aff, "{\"c\": \"\", \"f\": \"-2\"}"), 0);
    ck_assert_int_eq(selects(aff, "{\"f\": \"-3\"}"), 0);
    cJSON_Delete(aff);
}
END_TEST

START_TEST(test_evaluator_refuses_malformed)
{
    static const char *const bad[] = {
        "{}",
        "{\"requiredDuringSchedulingIgnoredDuringExecution\": {\"nodeSelectorTerms\": []}}",
        "{\"requiredDuringSchedulingIgnoredDuringExecution\": {\"nodeSelectorTerms\": "
        "[{\"matchExpressions\": [{\"key\": \"a\", \"operator\": \"In\"}]}]}}",
        "{\"requiredDuringSchedulingIgnoredDuringExecution\": {\"nodeSelectorTerms\": "
        "[{\"matchExpressions\": [{\"key\": \"a\", \"operator\": \"Exists\", \"values\": "
        "[\"1\"]}]}]}}",
        "{\"requiredDuringSchedulingIgnoredDuringExecution\": {\"nodeSelectorTerms\": "
        "[{\"matchExpressions\": [{\"key\": \"a\", \"operator\": \"Gt\", \"values\": [\"1\", "
        "\"2\"]}]}]}}",
        "{\"requiredDuringSchedulingIgnoredDuringExecution\": {\"nodeSelectorTerms\": "
        "[{\"matchExpressions\": [{\"key\": \"a\", \"operator\": \"Lt\", \"values\": "
        "[\"one\"]}]}]}}",
        "{\"requiredDuringSchedulingIgnoredDuringExecution\": {\"nodeSelectorTerms\": "
        "[{\"matchExpressions\": [{\"key\": \"a\", \"operator\": \"Near\", \"values\": "
        "[\"1\"]}]}]}}",
    };
    cJSON *labels = cJSON_Parse("{\"a\": \"1\"}"), *aff;
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        aff = cJSON_Parse(bad[i]);
        ck_assert_ptr_nonnull(aff);
        ck_assert_msg(ks_selects(aff, labels, NULL, 0) == -1, "accepted: %s", bad[i]);
        cJSON_Delete(aff);
    }
    /* A term without expressions is valid and matches nothing. */
    aff = cJSON_Parse("{\"requiredDuringSchedulingIgnoredDuringExecution\": "
                      "{\"nodeSelectorTerms\": [{\"matchExpressions\": []}]}}");
    ck_assert_int_eq(ks_selects(aff, labels, NULL, 0), 0);
    cJSON_Delete(aff);
    cJSON_Delete(labels);
}
END_TEST

/* ---- the selector's shape ------------------------------------------------------- */

static char *unformatted(const cJSON *j)
{
    char *s = cJSON_PrintUnformatted(j);

    ck_assert_ptr_nonnull(s);
    return s;
}

#define TERM_OPEN "{\"matchExpressions\":["
#define GPU_COUNT "{\"key\":\"nvidia.com/gpu.count\",\"operator\":\"NotIn\",\"values\":[\"0\"]},"
#define AMD64_LINUX                                                                                \
    "{\"key\":\"kubernetes.io/arch\",\"operator\":\"In\",\"values\":[\"amd64\"]},"                 \
    "{\"key\":\"kubernetes.io/os\",\"operator\":\"In\",\"values\":[\"linux\"]}]}"
#define CC90                                                                                       \
    "{\"key\":\"nvidia.com/gpu.compute.major\",\"operator\":\"In\",\"values\":[\"9\"]},"           \
    "{\"key\":\"nvidia.com/gpu.compute.minor\",\"operator\":\"In\",\"values\":[\"0\"]},"
#define NO_CUDA_LABEL                                                                              \
    "{\"key\":\"nvidia.com/cuda.runtime-version.full\",\"operator\":\"DoesNotExist\"},"            \
    "{\"key\":\"nvidia.com/cuda.runtime-version.major\",\"operator\":\"DoesNotExist\"},"           \
    "{\"key\":\"nvidia.com/cuda.runtime.major\",\"operator\":\"DoesNotExist\"},"                   \
    "{\"key\":\"nvidia.com/cuda.driver-version.major\",\"operator\":\"DoesNotExist\"},"            \
    "{\"key\":\"nvidia.com/cuda.driver.major\",\"operator\":\"DoesNotExist\"},"
#define REQUIRED "{\"requiredDuringSchedulingIgnoredDuringExecution\":{\"nodeSelectorTerms\":["
#define AMD64 "{\"key\":\"kubernetes.io/arch\",\"operator\":\"In\",\"values\":[\"amd64\"]},"
#define LINUX "{\"key\":\"kubernetes.io/os\",\"operator\":\"In\",\"values\":[\"linux\"]}]}"
#define NFD_TRUE(flag)                                                                             \
    "{\"key\":\"feature.node.kubernetes.io/cpu-cpuid." flag                                        \
    "\",\"operator\":\"In\",\"values\":[\"true\"]},"
/* What an AVX-512 build of torch's CPU code needs (pt2_isa: avx512f, avx512dq, avx512vl,
 * avx512bw, fma), as NFD labels it. */
#define NFD_AVX512                                                                                 \
    NFD_TRUE("AVX512F")                                                                            \
    NFD_TRUE("AVX512DQ") NFD_TRUE("AVX512VL") NFD_TRUE("AVX512BW") NFD_TRUE("FMA3")

/*
 * The expressions of a node NFD does not describe: none of the labels NFD writes by default
 * for `machine`. Built from the table, so its size and a few names are asserted here too.
 */
static const char *nfd_unknown(const char *machine, size_t expect)
{
    static char buf[8192];
    const struct pt2_nfd_flag *f;
    size_t i, n = 0, len = 0;

    buf[0] = '\0';
    for (i = 0; (f = pt2_nfd_at(i)) != NULL; i++) {
        if (!f->by_default || strcmp(f->machine, machine) != 0)
            continue;
        len += (size_t)snprintf(buf + len, sizeof(buf) - len,
                                "{\"key\":\"feature.node.kubernetes.io/cpu-cpuid.%s\","
                                "\"operator\":\"DoesNotExist\"},",
                                f->flag);
        n++;
    }
    ck_assert_uint_lt(len, sizeof(buf));
    ck_assert_uint_eq(n, expect);
    return buf;
}

static void assert_selector(const char *got, const char *const *parts, size_t nparts)
{
    static char want[65536];
    size_t i, len = 0;

    for (i = 0; i < nparts; i++)
        len += (size_t)snprintf(want + len, sizeof(want) - len, "%s", parts[i]);
    ck_assert_uint_lt(len, sizeof(want));
    for (i = 0; got[i] != '\0' && got[i] == want[i]; i++)
        ;
    /* Check's messages are short: show where they part, not both whole. */
    ck_assert_msg(got[i] == want[i], "selector differs at byte %zu: got '%.120s', want '%.120s'", i,
                  got + i, want + i);
}

START_TEST(test_selector_sm90a_cuda13)
{
    /* sm_90a cubins from CUDA 13: exactly 9.0, with a CUDA 13 driver or an unknown one; its
     * AVX-512 host code on an amd64 node NFD labels with AVX-512, or one NFD does not label. */
    pt2_package *pkg = open_fixture("cuda_sm90a_v8.pt2");
    int selectable = -1;
    cJSON *aff = affinity_of(pkg, &selectable);
    char *s = unformatted(aff);
    const char *unknown = nfd_unknown("x86_64", 32);
    const char *const parts[] = {
        REQUIRED TERM_OPEN GPU_COUNT CC90
        "{\"key\":\"nvidia.com/cuda.runtime-version.major\",\"operator\":\"Gt\","
        "\"values\":[\"12\"]}," AMD64 NFD_AVX512 LINUX "," TERM_OPEN GPU_COUNT CC90
        "{\"key\":\"nvidia.com/cuda.runtime-version.major\",\"operator\":\"Gt\","
        "\"values\":[\"12\"]}," AMD64,
        unknown,
        LINUX "," TERM_OPEN GPU_COUNT CC90 NO_CUDA_LABEL AMD64 NFD_AVX512 LINUX
              "," TERM_OPEN GPU_COUNT CC90 NO_CUDA_LABEL AMD64,
        unknown, LINUX "]}}"};

    ck_assert_int_eq(selectable, 1);
    assert_selector(s, parts, sizeof(parts) / sizeof(parts[0]));
    cJSON_free(s);
    cJSON_Delete(aff);
    pt2_package_free(pkg);
}
END_TEST

START_TEST(test_selector_cpu_and_nowhere)
{
    pt2_package *cpu = open_fixture("cpu_aarch64.pt2"), *rocm = open_fixture("rocm_gfx90a.pt2"),
                *ep = open_fixture("export_program.pt2");
    int selectable = -1;
    cJSON *aff = affinity_of(cpu, &selectable);
    char *s = unformatted(aff);

    /* NEON host code for arm64: any arm64 Linux node, GPU or not, that NFD labels with
     * ASIMD or that NFD does not label. */
    {
        const char *const parts[] = {
            REQUIRED TERM_OPEN
            "{\"key\":\"kubernetes.io/arch\",\"operator\":\"In\",\"values\":[\"arm64\"]}," NFD_TRUE(
                "ASIMD") LINUX
            "," TERM_OPEN
            "{\"key\":\"kubernetes.io/arch\",\"operator\":\"In\",\"values\":[\"arm64\"]},",
            nfd_unknown("aarch64", 19), LINUX "]}}"};

        ck_assert_int_eq(selectable, 1);
        assert_selector(s, parts, sizeof(parts) / sizeof(parts[0]));
    }
    cJSON_free(s);
    cJSON_Delete(aff);

    /* No compiled code: any Linux node. */
    aff = affinity_of(ep, &selectable);
    s = unformatted(aff);
    ck_assert_int_eq(selectable, 1);
    ck_assert_str_eq(s, REQUIRED TERM_OPEN
                     "{\"key\":\"kubernetes.io/os\",\"operator\":\"In\",\"values\":[\"linux\"]}]}"
                     "]}}");
    cJSON_free(s);
    cJSON_Delete(aff);

    /* An AMD package runs on no node GFD describes: the one term selects nothing. */
    aff = affinity_of(rocm, &selectable);
    s = unformatted(aff);
    ck_assert_int_eq(selectable, 0);
    ck_assert_str_eq(s, REQUIRED TERM_OPEN
                     "{\"key\":\"" PT2_AFFINITY_NONE_KEY
                     "\",\"operator\":\"Exists\"},{\"key\":\"" PT2_AFFINITY_NONE_KEY
                     "\",\"operator\":\"DoesNotExist\"}]}]}}");
    ck_assert_int_eq(selects(aff, "{\"kubernetes.io/os\": \"linux\"}"), 0);
    ck_assert_int_eq(selects(aff, "{\"" PT2_AFFINITY_NONE_KEY "\": \"\"}"), 0);
    cJSON_free(s);
    cJSON_Delete(aff);
    pt2_package_free(cpu);
    pt2_package_free(rocm);
    pt2_package_free(ep);
}
END_TEST

#define NODE_LABELS(major, minor, extra)                                                           \
    "{\"kubernetes.io/os\": \"linux\", \"kubernetes.io/arch\": \"amd64\", "                        \
    "\"nvidia.com/gpu.compute.major\": \"" major "\", \"nvidia.com/gpu.compute.minor\": \"" minor  \
    "\"" extra "}"
#define CUDA(major, minor)                                                                         \
    ", \"nvidia.com/cuda.runtime-version.major\": \"" major                                        \
    "\", \"nvidia.com/cuda.runtime-version.minor\": \"" minor "\""

START_TEST(test_selector_ptx_minimum_driver)
{
    /* sm_75, sm_90, sm_90a cubins and compute_90 PTX of ISA 8.4 (CUDA 12.4): 7.5 and 9.0 by
     * cubin, every later GPU by JIT with a driver for CUDA 12.4 or newer. */
    pt2_package *pkg = open_fixture("cuda_fatbin_v7_lz4.pt2");
    cJSON *aff = affinity_of(pkg, NULL);

    ck_assert_int_eq(selects(aff, NODE_LABELS("7", "5", "")), 1);
    ck_assert_int_eq(selects(aff, NODE_LABELS("7", "5", CUDA("11", "4"))), 1);
    ck_assert_int_eq(selects(aff, NODE_LABELS("8", "6", "")), 0);
    ck_assert_int_eq(selects(aff, NODE_LABELS("9", "0", CUDA("12", "0"))), 1);
    /* A GPU no table lists yet, served through the PTX: Gt over majors, and the minimum
     * driver as "a later major, or this major and at least this minor". */
    ck_assert_int_eq(selects(aff, NODE_LABELS("15", "2", CUDA("14", "0"))), 1);
    ck_assert_int_eq(selects(aff, NODE_LABELS("15", "2", CUDA("12", "4"))), 1);
    ck_assert_int_eq(selects(aff, NODE_LABELS("15", "2", CUDA("12", "3"))), 0);
    ck_assert_int_eq(selects(aff, NODE_LABELS("15", "2", "")), 1);
    /* A Blackwell GPU needs CUDA 12.8 whatever the PTX needs. */
    ck_assert_int_eq(selects(aff, NODE_LABELS("10", "0", CUDA("12", "7"))), 0);
    ck_assert_int_eq(selects(aff, NODE_LABELS("10", "0", CUDA("12", "8"))), 1);
    /* Past what the labels can say: never. */
    ck_assert_int_eq(selects(aff, NODE_LABELS("100", "0", "")), 0);
    cJSON_Delete(aff);
    pt2_package_free(pkg);
}
END_TEST

START_TEST(test_note_for_the_comment)
{
    static const struct {
        const char *fixture, *note;
    } cases[] = {
        {"cpu_aarch64.pt2",
         "CPU: a node with Node Feature Discovery labels must have "
         "feature.node.kubernetes.io/cpu-cpuid.ASIMD=true (arm64); a node without NFD CPU labels "
         "is selected too, its CPU features unknown"},
        {"cpu_avx2_cmd.pt2",
         "CPU: a node with Node Feature Discovery labels must have "
         "feature.node.kubernetes.io/cpu-cpuid.AVX2, FMA3, AVX, MOVBE=true (amd64); a node "
         "without NFD CPU labels is selected too, its CPU features unknown; not checked (NFD "
         "does not label them by default): f16c, pni, ssse3, sse4_1, sse4_2, popcnt, cx16, bmi1, "
         "bmi2, abm"},
        /* No compiled code, or no node at all: nothing to say. */
        {"export_program.pt2", ""},
        {"rocm_gfx90a.pt2", ""},
        {"cuda_sm90a_v8.pt2",
         "CPU: a node with Node Feature Discovery labels must have "
         "feature.node.kubernetes.io/cpu-cpuid.AVX512F, AVX512DQ, AVX512VL, AVX512BW, "
         "FMA3=true (amd64); a node without NFD CPU labels is selected too, its CPU features "
         "unknown"},
    };
    struct pt2_error err = {0};
    char note[1024], small[24];
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        pt2_package *pkg = open_fixture(cases[i].fixture);

        ck_assert_int_eq(pt2_package_node_affinity_note(pkg, note, sizeof(note), &err), PT2_OK);
        ck_assert_str_eq(note, cases[i].note);
        if (i == 0) {
            /* Cut to fit, never past the buffer. */
            ck_assert_int_eq(pt2_package_node_affinity_note(pkg, small, sizeof(small), &err),
                             PT2_OK);
            ck_assert_str_eq(small, "CPU: a node with Node F");
            ck_assert_int_eq(pt2_package_node_affinity_note(pkg, NULL, 8, &err), PT2_ERR_INVALID);
            ck_assert_int_eq(pt2_package_node_affinity_note(pkg, note, 0, &err), PT2_ERR_INVALID);
        }
        pt2_package_free(pkg);
    }
    ck_assert_int_eq(pt2_package_node_affinity_note(NULL, note, sizeof(note), &err),
                     PT2_ERR_INVALID);
}
END_TEST

START_TEST(test_null_arguments_and_invalid_metadata)
{
    struct pt2_error err = {0};
    pt2_package *pkg = NULL;
    cJSON *aff = (cJSON *)1;
    char p[512];
    int sel = 7;

    ck_assert_int_eq(pt2_package_node_affinity(NULL, &aff, &sel, &err), PT2_ERR_INVALID);
    ck_assert_ptr_null(aff);
    ck_assert_int_eq(sel, 0);
    ck_assert_str_eq(err.message, "pt2_package_node_affinity: missing argument");
    /* AOTI metadata that cannot be read leaves the verdicts, and so the selector, undecided. */
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_package_open_path(
                         &pkg, tu_fixture("broken_bad_aoti_json.pt2", p, sizeof(p)), NULL, &err),
                     PT2_OK);
    ck_assert_int_eq(pt2_package_node_affinity(pkg, &aff, NULL, &err), PT2_ERR_METADATA);
    ck_assert_ptr_null(aff);
    pt2_package_free(pkg);
}
END_TEST

/* ---- agreement with the verdicts ------------------------------------------------ */

struct cluster {
    char *text;
    size_t n;
    cJSON *doc;           /* the node list, for the labels */
    pt2_k8s_nodes *nodes; /* the same, for the verdicts */
};

static void cluster_load(struct cluster *c, int odd)
{
    struct pt2_error err = {0};

    c->text = ks_gfd_nodes(odd, &c->n);
    ck_assert_ptr_nonnull(c->text);
    c->doc = cJSON_Parse(c->text);
    ck_assert_ptr_nonnull(c->doc);
    ck_assert_msg(pt2_k8s_nodes_parse_text(&c->nodes, c->text, strlen(c->text), &err) == PT2_OK,
                  "%s", err.message);
}

static void cluster_free(struct cluster *c)
{
    cJSON_Delete(c->doc);
    pt2_k8s_nodes_free(c->nodes);
    free(c->text);
}

static const cJSON *node_labels(const cJSON *item)
{
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(item, "metadata"),
                                            "labels");
}

/*
 * Compare selector and verdicts on every node of `c`. `exact`: selected iff not
 * incompatible; otherwise only selected => not incompatible. Returns the number
 * selected; `first` gets the first selected node's name.
 */
static size_t agree(const char *fixture, const struct cluster *c, int exact, char *first,
                    size_t first_len)
{
    struct pt2_error err = {0};
    pt2_package *pkg = open_fixture(fixture);
    cJSON *aff = affinity_of(pkg, NULL), *verdicts = NULL;
    const cJSON *item, *v;
    char why[256] = "";
    size_t i = 0, nsel = 0;

    if (first != NULL)
        first[0] = '\0';
    ck_assert_msg(pt2_k8s_compat_json(pkg, c->nodes, &verdicts, &err) == PT2_OK, "%s", err.message);
    v = cJSON_GetObjectItemCaseSensitive(verdicts, "nodes")->child;
    cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(c->doc, "items"))
    {
        const char *verdict = pt2_json_str(v, "verdict");
        int sel = ks_selects(aff, node_labels(item), why, sizeof(why));
        int runs = strcmp(verdict, "incompatible") != 0;

        ck_assert_msg(sel >= 0, "%s: malformed selector: %s", fixture, why);
        ck_assert_str_eq(pt2_json_str(v, "name"),
                         pt2_json_str(cJSON_GetObjectItemCaseSensitive(item, "metadata"), "name"));
        ck_assert_msg(exact ? sel == runs : (!sel || runs),
                      "%s on node %s: selector %s, verdict %s (%s)", fixture,
                      pt2_json_str(v, "name"), sel ? "selects it" : "skips it", verdict,
                      pt2_json_str(v, "reason"));
        if (sel && nsel++ == 0 && first != NULL)
            snprintf(first, first_len, "%s", pt2_json_str(v, "name"));
        v = v->next;
        i++;
    }
    ck_assert_uint_eq(i, c->n);
    cJSON_Delete(verdicts);
    cJSON_Delete(aff);
    pt2_package_free(pkg);
    return nsel;
}

START_TEST(test_agreement_every_fixture)
{
    struct cluster c;
    struct pt2_error err = {0};
    struct dirent *de;
    DIR *dir = opendir("tests/fixtures");
    size_t checked = 0, gpu_packages = 0;

    cluster_load(&c, 0);
    ck_assert_uint_gt(c.n, 1000);
    ck_assert_ptr_nonnull(dir);
    while ((de = readdir(dir)) != NULL) {
        size_t len = strlen(de->d_name);
        pt2_package *pkg = NULL;
        char p[512];
        char what[256];
        int judgeable;

        if (len < 5 || strcmp(de->d_name + len - 4, ".pt2") != 0)
            continue;
        pt2_error_clear(&err);
        if (pt2_package_open_path(&pkg, tu_fixture(de->d_name, p, sizeof(p)), NULL, &err) != PT2_OK)
            continue; /* not a package: refused before any verdict */
        judgeable = pt2_package_meta_error(pkg) == NULL;
        if (judgeable && pt2_verdicts_need(pkg, what, sizeof(what)) != 0)
            gpu_packages++;
        pt2_package_free(pkg);
        if (!judgeable)
            continue;
        agree(de->d_name, &c, 1, NULL, 0);
        checked++;
    }
    closedir(dir);
    /* Every committed package that opens: GPU packages and CPU-only ones. */
    ck_assert_uint_ge(checked, 24);
    ck_assert_uint_ge(gpu_packages, 12);
    cluster_free(&c);
}
END_TEST

START_TEST(test_agreement_counts)
{
    struct cluster c;
    char first[128];

    cluster_load(&c, 0);
    /* 9.0 on amd64 with CUDA 13.0 or 13.1 (all GFD labels, or the runtime labels alone), or
     * no CUDA label: 5 nodes; with NFD labels, the AVX-512 one and the one with no flag
     * pt2scope reads, not the AVX2 one nor the one without AVX512BW: 7. */
    ck_assert_uint_eq(agree("cuda_sm90a_v8.pt2", &c, 1, first, sizeof(first)), 7);
    ck_assert_str_eq(first, "gpu-amd64-cc90-r580");
    /* sm_80 v7 cubins: 8.0, 8.6, 8.7, 8.8, 8.9 on amd64, every driver (23 nodes each). */
    ck_assert_uint_eq(agree("cuda_sm80_v7_legacy.pt2", &c, 1, first, sizeof(first)), 5 * 23);
    ck_assert_str_eq(first, "gpu-amd64-cc80-r470");
    /* x86-64 AVX-512 host code: every Linux amd64 node, GPUs or not (not the Windows one),
     * NFD-labelled ones only with AVX-512 (2 of 4 kinds, CPU-only and H100 each). */
    ck_assert_uint_eq(agree("cpu_x86_64.pt2", &c, 1, first, sizeof(first)),
                      23 * 23 + 1 + 1 + 2 * 2);
    /* AVX2 code: the AVX2 and AVX-512 CPUs too (f16c, sse4_2... are not labelled by NFD). */
    ck_assert_uint_eq(agree("cpu_avx2_cmd.pt2", &c, 1, first, sizeof(first)),
                      23 * 23 + 1 + 1 + 4 * 2);
    /* NEON arm64 code: every arm64 Linux node, both NFD-labelled CPUs have ASIMD. */
    ck_assert_uint_eq(agree("cpu_aarch64.pt2", &c, 1, first, sizeof(first)),
                      23 * 23 + 1 + 1 + 2 * 2);
    ck_assert_uint_eq(agree("rocm_gfx90a.pt2", &c, 1, NULL, 0), 0);
    ck_assert_uint_eq(agree("xpu_spv.pt2", &c, 1, NULL, 0), 0);
    cluster_free(&c);
}
END_TEST

START_TEST(test_odd_labels_are_never_wrongly_selected)
{
    static const char *const fixtures[] = {"cuda_sm90a_v8.pt2", "cuda_fatbin_v7_lz4.pt2",
                                           "cuda_fatbin_multi.pt2", "cuda_sm80_v7_legacy.pt2",
                                           "cpu_x86_64.pt2"};
    struct cluster c;
    size_t i;

    cluster_load(&c, 1);
    for (i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++)
        agree(fixtures[i], &c, 0, NULL, 0);
    /* A GPU known only by its product name, or not at all, is never selected. */
    ck_assert_uint_eq(agree("cuda_sm80_v7_legacy.pt2", &c, 0, NULL, 0), 0);
    cluster_free(&c);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("affinity");
    TCase *ev = tcase_create("evaluator");
    TCase *shape = tcase_create("shape");
    TCase *agreement = tcase_create("agreement");

    tcase_add_test(ev, test_evaluator_semantics);
    tcase_add_test(ev, test_evaluator_refuses_malformed);
    suite_add_tcase(s, ev);
    tcase_add_test(shape, test_selector_sm90a_cuda13);
    tcase_add_test(shape, test_selector_cpu_and_nowhere);
    tcase_add_test(shape, test_selector_ptx_minimum_driver);
    tcase_add_test(shape, test_note_for_the_comment);
    tcase_add_test(shape, test_null_arguments_and_invalid_metadata);
    suite_add_tcase(s, shape);
    tcase_add_test(agreement, test_agreement_every_fixture);
    tcase_add_test(agreement, test_agreement_counts);
    tcase_add_test(agreement, test_odd_labels_are_never_wrongly_selected);
    tcase_set_timeout(agreement, 120);
    suite_add_tcase(s, agreement);
    return s;
}

int main(void)
{
    return tu_run_suite(suite());
}
