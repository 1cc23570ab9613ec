/*
 * test_http_affinity.c - the scheduling answer over HTTP: the nodeAffinity in
 * /v1/inspect's `scheduling.node_affinity` selects, node by node, exactly the
 * nodes POST /v1/compatibility finds the package compatible with, on the
 * synthetic GPU Feature Discovery and Node Feature Discovery cluster of
 * tests/support/k8ssel.c (the
 * unit suite test_affinity checks every fixture in process; this checks the
 * daemon's answers agree the same way). Advice travels with every verdict.
 */
#include "http_harness.h"

#include "k8ssel.h"
#include "pt2scope.h"

static struct th_server T;

static void setup(void)
{
    th_config(&T);
    th_start(&T);
}

static void teardown(void)
{
    th_stop(&T);
}

static cJSON *get_json(const char *path)
{
    struct th_resp r = {0};
    cJSON *doc;

    th_get(T.base, path, &r);
    ck_assert_msg(r.status == 200, "%s: HTTP %ld: %.300s", path, r.status, r.body);
    doc = th_json(&r);
    th_resp_free(&r);
    return doc;
}

/* POST /v1/compatibility {"path": fixture, "nodes": items}. */
static cJSON *compatibility(const char *fixture, const cJSON *items)
{
    struct th_req rq = {.method = "POST", .path = "/v1/compatibility", .ctype = "application/json"};
    struct th_resp r = {0};
    cJSON *body = cJSON_CreateObject(), *doc;
    char *text;

    ck_assert_ptr_nonnull(body);
    cJSON_AddStringToObject(body, "path", fixture);
    cJSON_AddItemToObject(body, "nodes", cJSON_Duplicate(items, 1));
    text = cJSON_PrintUnformatted(body);
    ck_assert_ptr_nonnull(text);
    rq.body = text;
    rq.body_len = strlen(text);
    th_do(T.base, &rq, &r);
    ck_assert_msg(r.status == 200, "HTTP %ld: %.300s", r.status, r.body);
    doc = th_json(&r);
    th_resp_free(&r);
    cJSON_free(text);
    cJSON_Delete(body);
    return doc;
}

/* The selector the daemon answers and the library's own are one. */
static void assert_library_affinity(const char *fixture, const cJSON *aff)
{
    struct pt2_error err = {0};
    pt2_package *pkg = NULL;
    cJSON *lib = NULL;
    char p[512];

    ck_assert_int_eq(pt2_package_open_path(&pkg, tu_fixture(fixture, p, sizeof(p)), NULL, &err),
                     PT2_OK);
    ck_assert_int_eq(pt2_package_node_affinity(pkg, &lib, NULL, &err), PT2_OK);
    ck_assert_msg(cJSON_Compare(aff, lib, 1), "%s: the daemon's affinity differs", fixture);
    cJSON_Delete(lib);
    pt2_package_free(pkg);
}

START_TEST(test_affinity_agrees_with_compatibility)
{
    static const struct {
        const char *fixture;
        size_t selected; /* nodes of the synthetic cluster the package runs on */
    } cases[] = {
        /* 9.0 with CUDA 13 or an unknown driver (5), and the two H100 nodes whose NFD labels
         * show AVX-512 or no flag pt2scope reads: its host code is AVX-512. */
        {"cuda_sm90a_v8.pt2", 5 + 2},
        {"cuda_sm80_v7_legacy.pt2", 5 * 23},
        /* sm_75, sm_90 cubins: 7.5 and 9.0 with any driver (23 nodes each); compute_90 PTX
         * (CUDA 12.4) JIT: 13.0 from 12.4 (17), 10.0, 10.1, 12.0 from 12.8 (9 each), 10.3,
         * 12.1 from 12.9 (7 each), 11.0 from 13.0 (5); amd64 only. */
        {"cuda_fatbin_v7_lz4.pt2", 23 + 23 + 17 + 3 * 9 + 2 * 7 + 5 + 2},
        /* Every arm64 Linux node; both NFD-labelled arm64 CPUs have NEON (ASIMD). */
        {"cpu_aarch64.pt2", 23 * 23 + 2 + 2 * 2},
        /* AVX-512 -march=native host code: not on the AVX2-only or AVX512F-only NFD nodes. */
        {"cpu_x86_64.pt2", 23 * 23 + 2 + 2 * 2},
        {"rocm_gfx90a.pt2", 0},
    };
    size_t n = 0, i;
    char *text = ks_gfd_nodes(0, &n), path[256], why[256];
    cJSON *cluster = cJSON_Parse(text);
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(cluster, "items");

    ck_assert_ptr_nonnull(items);
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cJSON *doc, *verdicts;
        const cJSON *aff, *item, *v;
        size_t nsel = 0, nrun = 0;

        snprintf(path, sizeof(path), "/v1/inspect?path=%s&affinity=1", cases[i].fixture);
        doc = get_json(path);
        aff = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "scheduling"),
                                               "node_affinity");
        ck_assert_ptr_nonnull(aff);
        assert_library_affinity(cases[i].fixture, aff);
        verdicts = compatibility(cases[i].fixture, items);
        v = cJSON_GetObjectItemCaseSensitive(verdicts, "nodes")->child;
        cJSON_ArrayForEach(item, items)
        {
            const cJSON *labels = cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(item, "metadata"), "labels");
            const char *verdict = th_str(v, "verdict");
            int sel = ks_selects(aff, labels, why, sizeof(why));
            int runs = strcmp(verdict, "incompatible") != 0;

            ck_assert_msg(sel >= 0, "malformed selector: %s", why);
            ck_assert_msg(sel == runs, "%s on %s: selector %d, verdict %s (%s)", cases[i].fixture,
                          th_str(v, "name"), sel, verdict, th_str(v, "reason"));
            /* Advice exactly where the node is not simply compatible. */
            ck_assert_msg(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(v, "advice")) ==
                              (strcmp(verdict, "compatible") != 0),
                          "%s on %s: advice", cases[i].fixture, th_str(v, "name"));
            nsel += (size_t)sel;
            nrun += (size_t)runs;
            v = v->next;
        }
        ck_assert_ptr_null(v);
        ck_assert_msg(nsel == cases[i].selected, "%s selects %zu nodes", cases[i].fixture, nsel);
        ck_assert_uint_eq(nsel, nrun);
        cJSON_Delete(verdicts);
        cJSON_Delete(doc);
    }
    cJSON_Delete(cluster);
    free(text);
}
END_TEST

/* affinity=1 (query) or "affinity": true (body) adds `scheduling`, and only it; affinity=0
 * is the default document; anything else is a 400 naming the flag. */
START_TEST(test_affinity_flag)
{
    struct th_req rq = {
        .method = "POST", .path = "/v1/inspect?nocache=1", .ctype = "application/json"};
    static const char body[] = "{\"path\":\"cuda_sm90a_v8.pt2\",\"affinity\":true}";
    struct th_resp r = {0};
    cJSON *lean = get_json("/v1/inspect?path=cuda_sm90a_v8.pt2&nocache=1");
    cJSON *zero = get_json("/v1/inspect?path=cuda_sm90a_v8.pt2&nocache=1&affinity=0");
    cJSON *full = get_json("/v1/inspect?path=cuda_sm90a_v8.pt2&affinity=1");
    cJSON *posted;

    ck_assert_ptr_nonnull(cJSON_GetObjectItemCaseSensitive(full, "scheduling"));
    ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(lean, "scheduling"));
    /* package.source differs between a fresh and a cached answer: compare the rest. */
    cJSON_DeleteItemFromObjectCaseSensitive(zero, "package");
    cJSON_DeleteItemFromObjectCaseSensitive(lean, "package");
    ck_assert(cJSON_Compare(lean, zero, 1));
    cJSON_DeleteItemFromObjectCaseSensitive(full, "scheduling");
    cJSON_DeleteItemFromObjectCaseSensitive(full, "package");
    ck_assert(cJSON_Compare(full, lean, 1));

    rq.body = body;
    rq.body_len = sizeof(body) - 1;
    th_do(T.base, &rq, &r);
    ck_assert_int_eq(r.status, 200);
    posted = th_json(&r);
    ck_assert_ptr_nonnull(cJSON_GetObjectItemCaseSensitive(posted, "scheduling"));
    ck_assert_ptr_nonnull(cJSON_GetObjectItemCaseSensitive(posted, "arch"));
    th_resp_free(&r);

    th_get(T.base, "/v1/inspect?path=cuda_sm90a_v8.pt2&affinity=maybe", &r);
    ck_assert_int_eq(r.status, 400);
    ck_assert_ptr_nonnull(strstr(r.body, "affinity 'maybe' is not 0, 1, false or true"));
    th_resp_free(&r);
    cJSON_Delete(posted);
    cJSON_Delete(lean);
    cJSON_Delete(zero);
    cJSON_Delete(full);
}
END_TEST

START_TEST(test_advice_in_inspect)
{
    cJSON *doc = get_json("/v1/inspect?path=cuda_sm90a_v8.pt2&target=8.0&target=H100");
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(doc, "compatibility");
    const char *advice80 =
        "Rebuild with TORCH_CUDA_ARCH_LIST=\"8.0;9.0a\" (or \"8.0+PTX;9.0a\", adding PTX for "
        "forward compatibility) and aot_inductor.emit_multi_arch_kernel=True, so the package "
        "carries code for 8.0.";

    ck_assert_str_eq(th_str(cJSON_GetArrayItem(c, 0), "advice"), advice80);
    ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(c, 1), "advice")));
    ck_assert_str_eq(th_str(cJSON_GetObjectItemCaseSensitive(doc, "overall"), "advice"), advice80);
    cJSON_Delete(doc);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("http_affinity");
    TCase *tc = tcase_create("affinity");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_affinity_agrees_with_compatibility);
    tcase_add_test(tc, test_advice_in_inspect);
    tcase_add_test(tc, test_affinity_flag);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return th_main("http_affinity", "cuda_sm90a_v8.pt2", suite);
}
