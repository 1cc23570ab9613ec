/*
 * test_http_api.c - pt2scoped endpoints end to end over loopback: every
 * endpoint, each input form, ETag/304, CORS, request ids, problem types,
 * metrics and the access log. Expected documents come from libpt2scope
 * itself (same fixture, same options), so the HTTP layer must pass them
 * through exactly.
 */
#include "http_harness.h"

#include <microhttpd.h>
#include <zip.h>

#include "pt2scope.h"

static struct th_server T;

static void setup(void)
{
    th_config(&T);
    th_start(&T);
}

static void setup_cors(void)
{
    th_config(&T);
    snprintf(T.cfg.origins[0], PT2D_ORIGIN_MAX, "https://ui.example");
    snprintf(T.cfg.origins[1], PT2D_ORIGIN_MAX, "http://localhost:3000");
    T.cfg.n_origins = 2;
    th_start(&T);
}

static void setup_cors_any(void)
{
    th_config(&T);
    snprintf(T.cfg.origins[0], PT2D_ORIGIN_MAX, "*");
    T.cfg.n_origins = 1;
    th_start(&T);
}

static void teardown(void)
{
    th_stop(&T);
}

static uint8_t *fixture_bytes(const char *name, size_t *len)
{
    char p[256];
    uint8_t *b = tu_read_file(tu_fixture(name, p, sizeof(p)), len);

    ck_assert_msg(b != NULL, "fixture %s missing", name);
    return b;
}

/* What libpt2scope says for a fixture, rendered by `which` ("arch", "metadata", "doc"). */
static cJSON *lib_doc(const char *name, const char *which)
{
    struct pt2_error err = {0};
    pt2_package *pkg = NULL;
    cJSON *doc = NULL;
    char p[256];

    ck_assert_int_eq(pt2_package_open_path(&pkg, tu_fixture(name, p, sizeof(p)), NULL, &err),
                     PT2_OK);
    if (strcmp(which, "arch") == 0)
        ck_assert_int_eq(pt2_package_arch_json(pkg, 0, &doc, &err), PT2_OK);
    else if (strcmp(which, "metadata") == 0)
        ck_assert_int_eq(pt2_package_metadata_json(pkg, 0, &doc, &err), PT2_OK);
    else if (strcmp(which, "oip") == 0)
        ck_assert_int_eq(pt2_package_metadata_json(pkg, PT2_JSON_OIP, &doc, &err), PT2_OK);
    else
        ck_assert_int_eq(pt2_package_to_json(pkg, 0, &doc, &err), PT2_OK);
    pt2_package_free(pkg);
    return doc;
}

/* The library's own verdict reason for a fixture and target (static copy). */
static const char *lib_reason(const char *name, const char *target)
{
    static struct pt2_verdict_result v;
    struct pt2_error err = {0};
    struct pt2_device dev = {0};
    pt2_package *pkg = NULL;
    char p[256];

    ck_assert_int_eq(pt2_target_parse(target, &dev, &err), PT2_OK);
    ck_assert_int_eq(pt2_package_open_path(&pkg, tu_fixture(name, p, sizeof(p)), NULL, &err),
                     PT2_OK);
    ck_assert_int_eq(pt2_package_check_device(pkg, &dev, &v, &err), PT2_OK);
    pt2_package_free(pkg);
    return v.reason;
}

/* The library's validation answer, as the daemon sends it (with a newline). */
static char *lib_invalid_body(const char *name, const char *inputs)
{
    struct pt2_error err = {0};
    pt2_package *pkg = NULL;
    cJSON *in = cJSON_Parse(inputs), *doc = NULL;
    char *text, *out, p[256];

    ck_assert_int_eq(pt2_package_open_path(&pkg, tu_fixture(name, p, sizeof(p)), NULL, &err),
                     PT2_OK);
    ck_assert_int_eq(pt2_package_validate(pkg, in, &doc, &err), PT2_OK);
    ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(doc, "valid")));
    text = cJSON_PrintUnformatted(doc);
    out = malloc(strlen(text) + 2);
    snprintf(out, strlen(text) + 2, "%s\n", text);
    cJSON_free(text);
    cJSON_Delete(doc);
    cJSON_Delete(in);
    pt2_package_free(pkg);
    return out;
}

static void assert_json_eq(const cJSON *got, const cJSON *want)
{
    if (!cJSON_Compare(got, want, 1)) {
        char *g = cJSON_PrintUnformatted(got), *w = cJSON_PrintUnformatted(want);
        ck_abort_msg("JSON differs:\n got  %.400s\n want %.400s", g, w);
    }
}

/* package.source is `want` (JSON text); then it is removed, the rest compares with the file's. */
static void assert_source(cJSON *pkg, const char *want)
{
    cJSON *src = cJSON_DetachItemFromObject(pkg, "source");
    char *got = cJSON_PrintUnformatted(src);

    ck_assert_str_eq(got, want);
    cJSON_free(got);
    cJSON_Delete(src);
}

static void assert_ctype(const struct th_resp *r, const char *want)
{
    char ct[128];

    ck_assert(th_header(r, "Content-Type", ct, sizeof(ct)));
    ck_assert_str_eq(ct, want);
}

/* ---- probes and version ------------------------------------------------ */

START_TEST(test_livez_readyz)
{
    struct th_resp r;

    th_get(T.base, "/livez", &r);
    ck_assert_int_eq(r.status, 200);
    assert_ctype(&r, "text/plain; charset=utf-8");
    ck_assert_str_eq(r.body, "ok\n");
    th_resp_free(&r);
    th_get(T.base, "/readyz", &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.body, "ok\n");
    th_resp_free(&r);
}
END_TEST

START_TEST(test_version)
{
    struct th_resp r;
    cJSON *doc;

    th_get(T.base, "/v1/version", &r);
    ck_assert_int_eq(r.status, 200);
    assert_ctype(&r, "application/json");
    doc = th_json(&r);
    ck_assert_str_eq(th_str(doc, "version"), PT2SCOPE_VERSION);
    ck_assert_int_eq(cJSON_GetObjectItem(doc, "schema_version")->valueint, PT2SCOPE_SCHEMA_VERSION);
    ck_assert_str_eq(th_str(doc, "api"), "v1");
    ck_assert_str_eq(th_str(doc, "libmicrohttpd"), MHD_get_version());
    ck_assert_str_eq(th_str(doc, "libzip"), zip_libzip_version());
    ck_assert_str_eq(th_str(doc, "cjson"), cJSON_Version());
    ck_assert_int_eq(cJSON_GetArraySize(doc), 6);
    ck_assert_int_eq(r.body[r.len - 1], '\n');
    cJSON_Delete(doc);
    th_resp_free(&r);
}
END_TEST

/* ---- inspection: each input form -------------------------------------- */

START_TEST(test_inspect_get_path)
{
    struct th_resp r;
    cJSON *doc, *want, *compat;
    char etag[80];

    th_get(T.base, "/v1/inspect?path=cuda_sm90a_v8.pt2", &r);
    ck_assert_int_eq(r.status, 200);
    assert_ctype(&r, "application/json");
    ck_assert(th_header(&r, "ETag", etag, sizeof(etag)));
    ck_assert_int_eq(strlen(etag), 34);
    ck_assert_int_eq(etag[0], '"');
    ck_assert_int_eq(etag[33], '"');
    doc = th_json(&r);
    compat = cJSON_DetachItemFromObject(doc, "compatibility");
    ck_assert(cJSON_IsArray(compat));
    /* No targets and a node without a driver (the harness): only the CPU's verdict, and
     * the overall says the CUDA package cannot run here. */
    ck_assert_int_eq(cJSON_GetArraySize(compat), 1);
    ck_assert_str_eq(th_str(cJSON_GetArrayItem(compat, 0), "kind"), "cpu");
    {
        cJSON *ov = cJSON_DetachItemFromObject(doc, "overall");
        ck_assert_str_eq(th_str(ov, "verdict"), "incompatible");
        ck_assert(strncmp(th_str(ov, "reason"),
                          "the package needs an NVIDIA GPU (sm_90a); this node has none: ", 62) ==
                  0);
        cJSON_Delete(ov);
    }
    want = lib_doc("cuda_sm90a_v8.pt2", "doc");
    assert_json_eq(doc, want);
    ck_assert_str_eq(
        cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "arch"), "cuda_targets"), 0)
            ->valuestring,
        "sm_90a");
    cJSON_Delete(compat);
    cJSON_Delete(want);
    cJSON_Delete(doc);
    th_resp_free(&r);
}
END_TEST

START_TEST(test_inspect_compatibility)
{
    struct th_resp r;
    cJSON *doc, *compat, *e, *dev;

    th_get(T.base, "/v1/inspect?path=cuda_sm90a_v8.pt2&target=H100&target=8.0", &r);
    ck_assert_int_eq(r.status, 200);
    doc = th_json(&r);
    compat = cJSON_GetObjectItem(doc, "compatibility");
    ck_assert_int_eq(cJSON_GetArraySize(compat), 2); /* two targets; this node is not asked */
    e = cJSON_GetArrayItem(compat, 0);
    ck_assert_str_eq(th_str(e, "target"), "H100");
    ck_assert_str_eq(th_str(e, "kind"), "target");
    ck_assert_str_eq(th_str(e, "verdict"), "compatible");
    dev = cJSON_GetObjectItem(e, "device");
    ck_assert_str_eq(th_str(dev, "compute_capability"), "9.0");
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(dev, "gfx")));
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(dev, "driver_cuda_version")));
    e = cJSON_GetArrayItem(compat, 1);
    ck_assert_str_eq(th_str(e, "target"), "8.0");
    ck_assert_str_eq(th_str(e, "verdict"), "incompatible");
    ck_assert_str_eq(th_str(e, "reason"), lib_reason("cuda_sm90a_v8.pt2", "8.0"));
    cJSON_Delete(doc);
    th_resp_free(&r);

    /* platform=: an x86_64 library on an arm64 node does not load, whatever the kernels say. */
    th_get(T.base, "/v1/inspect?path=cuda_sm90a_v8.pt2&target=H100&platform=linux/arm64", &r);
    ck_assert_int_eq(r.status, 200);
    doc = th_json(&r);
    e = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "compatibility"), 0);
    ck_assert_str_eq(th_str(e, "verdict"), "incompatible");
    ck_assert_str_eq(th_str(e, "code"), "host-platform");
    ck_assert_str_eq(th_str(e, "reason"),
                     "the model library "
                     "data/aotinductor/model/czqbiwbc5ruvbr4zkawxjx7advwcp5f3dw36ortm6fg3dzsvbmy3"
                     ".wrapper.so is a Linux x86_64 library; a node with NVIDIA H100 runs Linux on "
                     "arm64");
    ck_assert_str_eq(th_str(cJSON_GetObjectItem(e, "device"), "platform"), "linux/arm64");
    cJSON_Delete(doc);
    th_resp_free(&r);
    th_get(T.base, "/v1/inspect?path=cuda_sm90a_v8.pt2&target=H100&platform=linux/riscv64", &r);
    ck_assert_int_eq(r.status, 400);
    ck_assert(strstr(r.body, "unknown platform 'linux/riscv64': use linux/amd64, linux/arm64 or "
                             "windows/amd64") != NULL);
    th_resp_free(&r);
}
END_TEST

/* model=: one model of several, cached apart from the whole package; an absent one is 404. */
START_TEST(test_inspect_model)
{
    static const char body[] = "{\"path\": \"multi_model.pt2\", \"model\": \"model2\"}";
    struct th_req rq = {.path = "/v1/metadata",
                        .body = body,
                        .body_len = sizeof(body) - 1,
                        .ctype = "application/json"};
    struct th_resp r, all;
    cJSON *doc, *e;
    char etag_all[128], etag[128];

    th_get(T.base, "/v1/inspect?path=multi_model.pt2&target=H100", &all);
    ck_assert_int_eq(all.status, 200);
    doc = th_json(&all);
    e = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "compatibility"), 0);
    ck_assert_str_eq(th_str(e, "verdict"), "incompatible");
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(e, "models")), 2);
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "package"), "model")));
    ck_assert(th_header(&all, "ETag", etag_all, sizeof(etag_all)));
    cJSON_Delete(doc);
    th_resp_free(&all);

    th_get(T.base, "/v1/inspect?path=multi_model.pt2&target=H100&model=model", &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert(th_header(&r, "ETag", etag, sizeof(etag)));
    ck_assert_str_ne(etag, etag_all);
    doc = th_json(&r);
    e = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "compatibility"), 0);
    ck_assert_str_eq(th_str(e, "verdict"), "compatible");
    ck_assert_ptr_null(cJSON_GetObjectItem(e, "models"));
    ck_assert_str_eq(th_str(cJSON_GetObjectItem(doc, "package"), "model"), "model");
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "models")), 1);
    cJSON_Delete(doc);
    th_resp_free(&r);

    /* the whole package is still answered whole after the one-model read was cached */
    th_get(T.base, "/v1/inspect?path=multi_model.pt2&target=H100", &r);
    doc = th_json(&r);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "models")), 2);
    cJSON_Delete(doc);
    th_resp_free(&r);

    th_do(T.base, &rq, &r);
    ck_assert_int_eq(r.status, 200);
    th_resp_free(&r);
    th_get(T.base, "/v1/inspect?path=multi_model.pt2&model=nope", &r);
    ck_assert_int_eq(r.status, 404);
    ck_assert(strstr(r.body, "no model 'nope' in the package; available models: model, model2") !=
              NULL);
    th_resp_free(&r);
    th_get(T.base, "/v1/inspect?path=multi_model.pt2&model=a/b", &r);
    ck_assert_int_eq(r.status, 400);
    th_resp_free(&r);
}
END_TEST

/* The verdict through HTTP equals the library's own for the same device. */
START_TEST(test_inspect_compatibility_driver_matches_library)
{
    struct pt2_error err = {0};
    struct pt2_device dev = {0};
    struct pt2_verdict_result v = {0};
    pt2_package *pkg = NULL;
    struct th_resp r;
    cJSON *doc, *e, *devj;
    char p[256];

    ck_assert_int_eq(pt2_target_parse("sm_90a", &dev, &err), PT2_OK);
    ck_assert_int_eq(pt2_driver_version_parse("12.4", &dev.driver_cuda_version, &err), PT2_OK);
    ck_assert_int_eq(
        pt2_package_open_path(&pkg, tu_fixture("cuda_sm90a_v8.pt2", p, sizeof(p)), NULL, &err),
        PT2_OK);
    ck_assert_int_eq(pt2_package_check_device(pkg, &dev, &v, &err), PT2_OK);
    pt2_package_free(pkg);

    th_get(T.base, "/v1/inspect?path=cuda_sm90a_v8.pt2&target=sm_90a&driver=12.4", &r);
    ck_assert_int_eq(r.status, 200);
    doc = th_json(&r);
    e = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "compatibility"), 0);
    ck_assert_str_eq(th_str(e, "target"), "sm_90a");
    ck_assert_str_eq(th_str(e, "verdict"), pt2_verdict_name(v.verdict));
    ck_assert_str_eq(th_str(e, "reason"), v.reason);
    devj = cJSON_GetObjectItem(e, "device");
    ck_assert_str_eq(th_str(devj, "name"), dev.name);
    ck_assert_int_eq(cJSON_GetObjectItem(devj, "driver_cuda_version")->valueint, 12040);
    cJSON_Delete(doc);
    th_resp_free(&r);
}
END_TEST

START_TEST(test_inspect_post_octet_stream)
{
    size_t len;
    uint8_t *body = fixture_bytes("cpu_x86_64.pt2", &len);
    struct th_req rq = {
        .path = "/v1/arch", .body = body, .body_len = len, .ctype = "application/octet-stream"};
    struct th_resp r;
    cJSON *doc, *want;
    char etag[80];

    th_do(T.base, &rq, &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert(th_header(&r, "ETag", etag, sizeof(etag)));
    doc = th_json(&r);
    want = lib_doc("cpu_x86_64.pt2", "arch");
    assert_json_eq(doc, want);
    ck_assert_str_eq(th_str(doc, "device_key"), "cpu");
    cJSON_Delete(want);
    cJSON_Delete(doc);
    th_resp_free(&r);
    free(body);
}
END_TEST

START_TEST(test_inspect_post_multipart)
{
    char p[256], url[256];
    struct th_resp r;
    struct curl_slist *hl = NULL;
    CURL *c = curl_easy_init();
    curl_mime *mime = curl_mime_init(c);
    curl_mimepart *part;
    cJSON *doc, *want, *pkg;

    part = curl_mime_addpart(mime);
    curl_mime_name(part, "comment");
    curl_mime_data(part, "ignored", CURL_ZERO_TERMINATED);
    part = curl_mime_addpart(mime);
    curl_mime_name(part, "file");
    curl_mime_filedata(part, tu_fixture("cuda_sm90a_v8.pt2", p, sizeof(p)));
    memset(&r, 0, sizeof(r));
    snprintf(url, sizeof(url), "%s/v1/inspect", T.base);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_MIMEPOST, mime);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, th_on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &r);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, th_on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &r);
    ck_assert_int_eq(curl_easy_perform(c), CURLE_OK);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
    curl_mime_free(mime);
    curl_easy_cleanup(c);
    curl_slist_free_all(hl);

    ck_assert_int_eq(r.status, 200);
    doc = th_json(&r);
    want = lib_doc("cuda_sm90a_v8.pt2", "doc");
    /* The upload keeps its multipart file name. */
    pkg = cJSON_GetObjectItem(doc, "package");
    ck_assert_str_eq(th_str(pkg, "name"), "cuda_sm90a_v8.pt2");
    /* It was inspected as it streamed; nothing was big enough to drop. */
    assert_source(pkg, "{\"upload\":true,\"streamed\":true,\"bytes_received\":34001,"
                       "\"bytes_kept\":34001,\"bytes_spilled\":0,\"entries_dropped\":0}");
    cJSON_DeleteItemFromObject(doc, "compatibility");
    cJSON_DeleteItemFromObject(doc, "overall");
    assert_json_eq(doc, want);
    cJSON_Delete(want);
    cJSON_Delete(doc);
    th_resp_free(&r);
}
END_TEST

START_TEST(test_inspect_post_json_path)
{
    const char *body =
        "{\"path\": \"cuda_sm90a_v8.pt2\", \"target\": [\"H100\"], \"platform\": \"linux/amd64\"}";
    struct th_req rq = {.path = "/v1/inspect",
                        .body = body,
                        .body_len = strlen(body),
                        .ctype = "application/json; charset=utf-8"};
    struct th_resp r;
    cJSON *doc, *compat;

    th_do(T.base, &rq, &r);
    ck_assert_int_eq(r.status, 200);
    doc = th_json(&r);
    compat = cJSON_GetObjectItem(doc, "compatibility");
    ck_assert_int_eq(cJSON_GetArraySize(compat), 1);
    ck_assert_str_eq(th_str(cJSON_GetArrayItem(compat, 0), "target"), "H100");
    ck_assert_str_eq(th_str(cJSON_GetArrayItem(compat, 0), "verdict"), "compatible");
    ck_assert_str_eq(
        th_str(cJSON_GetObjectItem(cJSON_GetArrayItem(compat, 0), "device"), "platform"),
        "linux/amd64");
    ck_assert_str_eq(th_str(cJSON_GetObjectItem(doc, "package"), "name"), "cuda_sm90a_v8.pt2");
    cJSON_Delete(doc);
    th_resp_free(&r);
}
END_TEST

START_TEST(test_metadata_get_and_oip_view)
{
    struct th_resp r;
    cJSON *doc, *want;

    th_get(T.base, "/v1/metadata?path=cuda_sm90a_v8.pt2", &r);
    ck_assert_int_eq(r.status, 200);
    doc = th_json(&r);
    want = lib_doc("cuda_sm90a_v8.pt2", "metadata");
    assert_json_eq(doc, want);
    cJSON_Delete(want);
    cJSON_Delete(doc);
    th_resp_free(&r);

    th_get(T.base, "/v1/metadata?path=cuda_sm90a_v8.pt2&view=oip", &r);
    ck_assert_int_eq(r.status, 200);
    doc = th_json(&r);
    want = lib_doc("cuda_sm90a_v8.pt2", "oip");
    assert_json_eq(doc, want);
    cJSON_Delete(want);
    cJSON_Delete(doc);
    th_resp_free(&r);
}
END_TEST

START_TEST(test_arch_get_head)
{
    struct th_req rq = {.method = "HEAD", .path = "/v1/arch?path=cuda_sm90a_v8.pt2"};
    struct th_resp r;
    char etag[80], etag2[80];

    th_do(T.base, &rq, &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_uint_eq(r.len, 0);
    ck_assert(th_header(&r, "ETag", etag, sizeof(etag)));
    th_resp_free(&r);
    th_get(T.base, "/v1/arch?path=cuda_sm90a_v8.pt2", &r);
    ck_assert(th_header(&r, "ETag", etag2, sizeof(etag2)));
    ck_assert_str_eq(etag, etag2);
    th_resp_free(&r);
}
END_TEST

/* ---- validate ---------------------------------------------------------- */

START_TEST(test_validate_json_valid_and_invalid)
{
    const char *ok = "{\"path\":\"cuda_sm90a_v8.pt2\",\"inputs\":{\"image\":[8,3,512,512],"
                     "\"scale\":[8]}}";
    const char *bad = "{\"path\":\"cuda_sm90a_v8.pt2\",\"inputs\":{\"image\":[8,3,256,512],"
                      "\"scale\":[8]}}";
    struct th_req rq = {
        .path = "/v1/validate", .body = ok, .body_len = strlen(ok), .ctype = "application/json"};
    struct th_resp r;
    char etag[80], *want;

    th_do(T.base, &rq, &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.body, "{\"valid\":true,\"errors\":[],\"warnings\":[]}\n");
    ck_assert(th_header(&r, "ETag", etag, sizeof(etag)));
    th_resp_free(&r);
    rq.body = bad;
    rq.body_len = strlen(bad);
    th_do(T.base, &rq, &r);
    ck_assert_int_eq(r.status, 200);
    want = lib_invalid_body("cuda_sm90a_v8.pt2", "{\"image\":[8,3,256,512],\"scale\":[8]}");
    ck_assert_str_eq(r.body, want);
    ck_assert(strstr(want, "image") != NULL);
    free(want);
    th_resp_free(&r);
}
END_TEST

START_TEST(test_validate_upload_with_query_inputs)
{
    size_t len;
    uint8_t *body = fixture_bytes("cuda_sm90a_v8.pt2", &len);
    struct th_req rq = {.path = "/v1/validate?input=image=8,3,512,512&input=scale=8",
                        .body = body,
                        .body_len = len,
                        .ctype = "application/octet-stream"};
    struct th_resp r;
    char *want;

    th_do(T.base, &rq, &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.body, "{\"valid\":true,\"errors\":[],\"warnings\":[]}\n");
    th_resp_free(&r);
    /* inputs= as URL-encoded JSON; scale is missing. */
    rq.path = "/v1/validate?inputs=%7B%22image%22%3A%5B8%2C3%2C512%2C512%5D%7D";
    th_do(T.base, &rq, &r);
    ck_assert_int_eq(r.status, 200);
    want = lib_invalid_body("cuda_sm90a_v8.pt2", "{\"image\":[8,3,512,512]}");
    ck_assert_str_eq(r.body, want);
    ck_assert(strstr(want, "scale") != NULL);
    free(want);
    th_resp_free(&r);
    free(body);
}
END_TEST

START_TEST(test_validate_needs_inputs)
{
    struct th_resp r;

    th_get(T.base, "/v1/validate?path=cuda_sm90a_v8.pt2", &r);
    th_assert_problem(&r, 400, "bad-request",
                      "inputs are required, e.g. {\"x\": [8, 3, 512, 512]}");
    th_resp_free(&r);
    th_get(T.base, "/v1/validate?path=cuda_sm90a_v8.pt2&input=image=8,x", &r);
    th_assert_problem(&r, 400, "bad-request", "input 'image': bad dimension list '8,x'");
    th_resp_free(&r);
}
END_TEST

/* ---- problems ---------------------------------------------------------- */

START_TEST(test_problem_package_errors)
{
    static const struct {
        const char *file, *slug;
    } cases[] = {
        {"broken_not_zip.pt2", "not-a-zip"},
        {"broken_truncated.pt2", "truncated"},
        {"broken_no_archive_format.pt2", "not-a-pt2"},
        {"broken_bad_aoti_json.pt2", "metadata-invalid"},
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct pt2_error err = {0}, err2 = {0};
        pt2_package *pkg = NULL;
        cJSON *doc = NULL;
        struct th_resp r;
        char url[256], p[256];
        int rc;

        /* The detail is the library's own message for the same file. */
        rc = pt2_package_open_path(&pkg, tu_fixture(cases[i].file, p, sizeof(p)), NULL, &err);
        if (rc == PT2_OK) {
            rc = pt2_package_to_json(pkg, 0, &doc, &err2);
            pt2_error_copy(&err, &err2);
        }
        ck_assert_int_ne(rc, PT2_OK);
        pt2_package_free(pkg);
        snprintf(url, sizeof(url), "/v1/inspect?path=%s", cases[i].file);
        th_get(T.base, url, &r);
        th_assert_problem(&r, 422, cases[i].slug, err.message);
        th_resp_free(&r);
    }
}
END_TEST

START_TEST(test_problem_not_found_and_outside_root)
{
    struct th_resp r;

    th_get(T.base, "/v1/inspect?path=missing.pt2", &r);
    th_assert_problem(&r, 404, "not-found", "no package 'missing.pt2' under any model root");
    th_resp_free(&r);
    /* Request bytes that are not UTF-8 never make the problem document invalid JSON. */
    th_get(T.base, "/v1/inspect?path=%ff%fe.pt2", &r);
    th_assert_problem(&r, 404, "not-found", "no package '??.pt2' under any model root");
    th_resp_free(&r);
    th_get(T.base, "/v1/inspect?path=../Makefile", &r);
    th_assert_problem(&r, 403, "outside-root",
                      "path '../Makefile' contains '..'; it must stay inside a model root");
    th_resp_free(&r);
    th_get(T.base, "/v1/inspect?path=/etc/passwd", &r);
    th_assert_problem(&r, 403, "outside-root",
                      "path '/etc/passwd' is absolute; name a file relative to a model root");
    th_resp_free(&r);
}
END_TEST

START_TEST(test_problem_bad_requests)
{
    struct th_req rq = {
        .path = "/v1/inspect", .body = "{\"path\": 3", .body_len = 10, .ctype = "application/json"};
    struct th_resp r;

    th_get(T.base, "/v1/inspect", &r);
    th_assert_problem(&r, 400, "bad-request",
                      "name a package with ?path=, ?url=, a JSON body {\"path\": ...} or upload "
                      "it as application/octet-stream or multipart/form-data");
    th_resp_free(&r);
    th_do(T.base, &rq, &r);
    th_assert_problem(&r, 400, "bad-request", "request body is not valid JSON");
    th_resp_free(&r);
    th_get(T.base, "/v1/inspect?path=cuda_sm90a_v8.pt2&view=raw", &r);
    th_assert_problem(&r, 400, "bad-request", "view 'raw' is not 'default' or 'oip'");
    th_resp_free(&r);
    th_get(T.base, "/v1/inspect?path=a.pt2&path=b.pt2", &r);
    th_assert_problem(&r, 400, "bad-request", "path given more than once");
    th_resp_free(&r);
}
END_TEST

START_TEST(test_problem_bad_target_uses_library_message)
{
    struct pt2_error err = {0};
    struct pt2_device dev;
    struct th_resp r;

    ck_assert_int_ne(pt2_target_parse("sm_xyz", &dev, &err), PT2_OK);
    th_get(T.base, "/v1/inspect?path=cuda_sm90a_v8.pt2&target=sm_xyz", &r);
    th_assert_problem(&r, 400, "bad-request", err.message);
    th_resp_free(&r);
}
END_TEST

START_TEST(test_problem_unknown_route_and_method)
{
    struct th_req del = {.method = "DELETE", .path = "/v1/inspect"};
    struct th_req post = {.method = "POST", .path = "/livez"};
    struct th_resp r;
    char allow[128];

    th_get(T.base, "/v2/nothing", &r);
    th_assert_problem(&r, 404, "not-found", "no such endpoint");
    th_resp_free(&r);
    th_do(T.base, &del, &r);
    th_assert_problem(&r, 405, "method-not-allowed", "see the Allow header");
    ck_assert(th_header(&r, "Allow", allow, sizeof(allow)));
    ck_assert_str_eq(allow, "GET, HEAD, POST, OPTIONS");
    th_resp_free(&r);
    th_do(T.base, &post, &r);
    th_assert_problem(&r, 405, "method-not-allowed", "see the Allow header");
    ck_assert(th_header(&r, "Allow", allow, sizeof(allow)));
    ck_assert_str_eq(allow, "GET, HEAD, OPTIONS");
    th_resp_free(&r);
}
END_TEST

START_TEST(test_problem_unsupported_media_type)
{
    struct th_req rq = {
        .path = "/v1/inspect", .body = "hello", .body_len = 5, .ctype = "text/plain"};
    struct th_resp r;

    th_do(T.base, &rq, &r);
    th_assert_problem(&r, 415, "unsupported-media-type",
                      "Content-Type 'text/plain' is not supported; send "
                      "application/octet-stream, multipart/form-data or application/json");
    th_resp_free(&r);
}
END_TEST

START_TEST(test_problem_upload_and_path_together)
{
    struct th_req rq = {.path = "/v1/inspect?path=cpu_x86_64.pt2",
                        .body = "PK",
                        .body_len = 2,
                        .ctype = "application/octet-stream"};
    struct th_resp r;

    th_do(T.base, &rq, &r);
    th_assert_problem(&r, 400, "bad-request", "send either an upload or a path, not both");
    th_resp_free(&r);
}
END_TEST

/* ---- ETag / 304 / cache ------------------------------------------------ */

START_TEST(test_etag_304_get)
{
    struct th_resp r;
    char etag[80], hdr[128], etag2[80], cc[64];
    const char *hs[2] = {hdr, NULL};
    struct th_req rq = {.path = "/v1/inspect?path=cuda_sm90a_v8.pt2", .headers = hs};

    th_get(T.base, rq.path, &r);
    ck_assert(th_header(&r, "ETag", etag, sizeof(etag)));
    ck_assert(th_header(&r, "Cache-Control", cc, sizeof(cc)));
    ck_assert_str_eq(cc, "no-cache");
    th_resp_free(&r);

    snprintf(hdr, sizeof(hdr), "If-None-Match: %s", etag);
    th_do(T.base, &rq, &r);
    ck_assert_int_eq(r.status, 304);
    ck_assert_uint_eq(r.len, 0);
    ck_assert(th_header(&r, "ETag", etag2, sizeof(etag2)));
    ck_assert_str_eq(etag2, etag);
    th_resp_free(&r);

    /* Weak comparison, lists, and "*". */
    snprintf(hdr, sizeof(hdr), "If-None-Match: \"nope\", W/%s", etag);
    th_do(T.base, &rq, &r);
    ck_assert_int_eq(r.status, 304);
    th_resp_free(&r);
    snprintf(hdr, sizeof(hdr), "If-None-Match: \"0000\"");
    th_do(T.base, &rq, &r);
    ck_assert_int_eq(r.status, 200);
    th_resp_free(&r);

    /* Different options shape a different body, hence a different tag. */
    rq.path = "/v1/inspect?path=cuda_sm90a_v8.pt2&target=H100";
    snprintf(hdr, sizeof(hdr), "If-None-Match: %s", etag);
    th_do(T.base, &rq, &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert(th_header(&r, "ETag", etag2, sizeof(etag2)));
    ck_assert_str_ne(etag2, etag);
    th_resp_free(&r);

    /* The package remembers one tag at a time: alternating questions each keep their own. */
    for (int round = 0; round < 2; round++) {
        char again[80];

        th_etag_of(T.base, "/v1/inspect?path=cuda_sm90a_v8.pt2", again, sizeof(again));
        ck_assert_str_eq(again, etag);
        th_etag_of(T.base, "/v1/arch?path=cuda_sm90a_v8.pt2", again, sizeof(again));
        ck_assert_str_ne(again, etag);
        ck_assert_str_ne(again, etag2);
        th_etag_of(T.base, "/v1/inspect?path=cuda_sm90a_v8.pt2&target=H100", again, sizeof(again));
        ck_assert_str_eq(again, etag2);
    }
}
END_TEST

START_TEST(test_etag_304_post_upload)
{
    size_t len;
    uint8_t *body = fixture_bytes("cpu_x86_64.pt2", &len);
    char hdr[128], etag[80];
    const char *hs[2] = {hdr, NULL};
    struct th_req rq = {
        .path = "/v1/inspect", .body = body, .body_len = len, .ctype = "application/octet-stream"};
    struct th_resp r;

    th_do(T.base, &rq, &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert(th_header(&r, "ETag", etag, sizeof(etag)));
    th_resp_free(&r);
    snprintf(hdr, sizeof(hdr), "If-None-Match: %s", etag);
    rq.headers = hs;
    th_do(T.base, &rq, &r);
    ck_assert_int_eq(r.status, 304);
    ck_assert_uint_eq(r.len, 0);
    th_resp_free(&r);
    /* One byte changed: another digest, another tag. */
    body[len - 1] ^= 1;
    th_do(T.base, &rq, &r);
    ck_assert_int_ne(r.status, 304);
    th_resp_free(&r);
    free(body);
}
END_TEST

static unsigned long long metric(const char *text, const char *series)
{
    const char *p = text;
    size_t n = strlen(series);

    while ((p = strstr(p, series)) != NULL) {
        if ((p == text || p[-1] == '\n') && p[n] == ' ')
            return strtoull(p + n + 1, NULL, 10);
        p += n;
    }
    return (unsigned long long)-1;
}

START_TEST(test_cache_hits_and_nocache)
{
    const char *hs[] = {"Cache-Control: no-cache", NULL};
    struct th_req rq = {.path = "/v1/arch?path=cpu_x86_64.pt2", .headers = hs};
    struct th_resp r;

    th_get(T.base, "/v1/arch?path=cpu_x86_64.pt2", &r);
    th_resp_free(&r);
    th_get(T.base, "/v1/metadata?path=cpu_x86_64.pt2", &r);
    th_resp_free(&r);
    th_get(T.base, "/v1/arch?path=cpu_x86_64.pt2&nocache=1", &r);
    ck_assert_int_eq(r.status, 200);
    th_resp_free(&r);
    th_do(T.base, &rq, &r);
    ck_assert_int_eq(r.status, 200);
    th_resp_free(&r);
    th_get(T.base, "/metrics", &r);
    ck_assert_uint_eq(metric(r.body, "pt2scope_cache_hits_total"), 1);
    ck_assert_uint_eq(metric(r.body, "pt2scope_cache_misses_total"), 1);
    ck_assert_uint_eq(metric(r.body, "pt2scope_cache_entries"), 1);
    /* Three real inspections: the miss and the two bypasses. */
    ck_assert_uint_eq(metric(r.body, "pt2scope_inspect_duration_seconds_count"), 3);
    th_resp_free(&r);
}
END_TEST

/* ---- CORS, request ids ------------------------------------------------- */

START_TEST(test_cors_preflight_and_simple)
{
    const char *pre[] = {"Origin: https://ui.example", "Access-Control-Request-Method: POST",
                         "Access-Control-Request-Headers: content-type", NULL};
    const char *other[] = {"Origin: https://evil.example", NULL};
    struct th_req rq = {.method = "OPTIONS", .path = "/v1/inspect", .headers = pre};
    struct th_resp r;
    char v[256];

    th_do(T.base, &rq, &r);
    ck_assert_int_eq(r.status, 204);
    ck_assert(th_header(&r, "Access-Control-Allow-Origin", v, sizeof(v)));
    ck_assert_str_eq(v, "https://ui.example");
    ck_assert(th_header(&r, "Access-Control-Allow-Methods", v, sizeof(v)));
    ck_assert_str_eq(v, "GET, HEAD, POST, OPTIONS");
    ck_assert(th_header(&r, "Access-Control-Allow-Headers", v, sizeof(v)));
    ck_assert_str_eq(v, "Authorization, Content-Type, If-None-Match, X-Request-Id, Cache-Control");
    ck_assert(th_header(&r, "Access-Control-Max-Age", v, sizeof(v)));
    ck_assert_str_eq(v, "7200");
    ck_assert(th_header(&r, "Vary", v, sizeof(v)));
    ck_assert_str_eq(v, "Origin");
    th_resp_free(&r);

    rq.method = NULL;
    rq.path = "/v1/arch?path=cpu_x86_64.pt2";
    rq.headers = pre;
    th_do(T.base, &rq, &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert(th_header(&r, "Access-Control-Allow-Origin", v, sizeof(v)));
    ck_assert_str_eq(v, "https://ui.example");
    ck_assert(th_header(&r, "Access-Control-Expose-Headers", v, sizeof(v)));
    ck_assert_str_eq(v, "ETag, Retry-After, X-Request-Id");
    ck_assert(!th_header(&r, "Access-Control-Allow-Methods", v, sizeof(v)));
    th_resp_free(&r);

    rq.headers = other;
    th_do(T.base, &rq, &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert(!th_header(&r, "Access-Control-Allow-Origin", v, sizeof(v)));
    ck_assert(th_header(&r, "Vary", v, sizeof(v)));
    ck_assert_str_eq(v, "Origin");
    th_resp_free(&r);
}
END_TEST

START_TEST(test_cors_any_origin)
{
    const char *hs[] = {"Origin: https://anything.example", NULL};
    struct th_req rq = {.path = "/v1/version", .headers = hs};
    struct th_resp r;
    char v[256];

    th_do(T.base, &rq, &r);
    ck_assert(th_header(&r, "Access-Control-Allow-Origin", v, sizeof(v)));
    ck_assert_str_eq(v, "*");
    ck_assert(!th_header(&r, "Vary", v, sizeof(v)));
    th_resp_free(&r);
}
END_TEST

START_TEST(test_no_cors_headers_without_config)
{
    const char *hs[] = {"Origin: https://ui.example", "Access-Control-Request-Method: POST", NULL};
    struct th_req rq = {.method = "OPTIONS", .path = "/v1/inspect", .headers = hs};
    struct th_resp r;
    char v[256];

    th_do(T.base, &rq, &r);
    ck_assert_int_eq(r.status, 204);
    ck_assert(th_header(&r, "Allow", v, sizeof(v)));
    ck_assert_str_eq(v, "GET, HEAD, POST, OPTIONS");
    ck_assert(!th_header(&r, "Access-Control-Allow-Origin", v, sizeof(v)));
    th_resp_free(&r);
}
END_TEST

START_TEST(test_request_id_echo_and_replace)
{
    const char *good[] = {"X-Request-Id: client-42.a_b:c", NULL};
    const char *bad[] = {"X-Request-Id: has space{}", NULL};
    struct th_req rq = {.path = "/v1/inspect?path=missing.pt2", .headers = good};
    struct th_resp r;
    char id[160];
    cJSON *doc;
    size_t i;

    th_do(T.base, &rq, &r);
    ck_assert(th_header(&r, "X-Request-Id", id, sizeof(id)));
    ck_assert_str_eq(id, "client-42.a_b:c");
    doc = th_json(&r);
    ck_assert_str_eq(th_str(doc, "instance"), "urn:request:client-42.a_b:c");
    cJSON_Delete(doc);
    th_resp_free(&r);

    rq.headers = bad;
    th_do(T.base, &rq, &r);
    ck_assert(th_header(&r, "X-Request-Id", id, sizeof(id)));
    ck_assert_uint_eq(strlen(id), 32);
    for (i = 0; i < 32; i++)
        ck_assert(strchr("0123456789abcdef", id[i]) != NULL);
    th_resp_free(&r);
}
END_TEST

/* ---- metrics and the access log ---------------------------------------- */

START_TEST(test_metrics_exact_counters)
{
    struct th_resp r;
    char ct[128];
    unsigned long long scrapes = 0;

    th_get(T.base, "/livez", &r);
    th_resp_free(&r);
    th_get(T.base, "/livez", &r);
    th_resp_free(&r);
    th_get(T.base, "/nope", &r);
    th_resp_free(&r);
    th_get(T.base, "/v1/inspect?path=cpu_x86_64.pt2", &r);
    th_resp_free(&r);
    th_get(T.base, "/v1/inspect?path=missing.pt2", &r);
    th_resp_free(&r);

    /*
     * A request is counted when libmicrohttpd reports it complete, which can
     * be just after the client has its answer. Scrape until the scrape is the
     * only request in flight: then every earlier request is counted, and the
     * values below are exact (earlier scrapes included).
     */
    for (;;) {
        th_get(T.base, "/metrics", &r);
        scrapes++;
        if (metric(r.body, "pt2scope_inflight_requests") == 1 || scrapes == 200)
            break;
        th_resp_free(&r);
        usleep(10 * 1000);
    }
    ck_assert_int_eq(r.status, 200);
    th_header(&r, "Content-Type", ct, sizeof(ct));
    ck_assert_str_eq(ct, "text/plain; version=0.0.4; charset=utf-8");
    ck_assert_uint_eq(
        metric(r.body,
               "pt2scope_http_requests_total{route=\"/livez\",method=\"GET\",status=\"200\"}"),
        2);
    ck_assert_uint_eq(
        metric(r.body,
               "pt2scope_http_requests_total{route=\"other\",method=\"GET\",status=\"404\"}"),
        1);
    ck_assert_uint_eq(
        metric(r.body,
               "pt2scope_http_requests_total{route=\"/v1/inspect\",method=\"GET\",status=\"200\"}"),
        1);
    ck_assert_uint_eq(
        metric(r.body,
               "pt2scope_http_requests_total{route=\"/v1/inspect\",method=\"GET\",status=\"404\"}"),
        1);
    /* A scrape is counted once answered, not in its own output. */
    ck_assert_uint_eq(
        metric(r.body,
               "pt2scope_http_requests_total{route=\"/metrics\",method=\"GET\",status=\"200\"}"),
        scrapes == 1 ? (unsigned long long)-1 : scrapes - 1);
    ck_assert_uint_eq(
        metric(r.body, "pt2scope_http_request_duration_seconds_count{route=\"/livez\"}"), 2);
    ck_assert_uint_eq(
        metric(r.body,
               "pt2scope_http_request_duration_seconds_bucket{route=\"/v1/inspect\",le=\"+Inf\"}"),
        2);
    ck_assert_uint_eq(metric(r.body, "pt2scope_workers"), 2);
    /* workers_busy is not checked: a worker resumes the connection before it counts itself
     * idle, so a fast client can scrape in between (test_http_limits waits for it instead). */
    ck_assert_uint_eq(metric(r.body, "pt2scope_queue_depth"), 0);
    ck_assert_uint_eq(metric(r.body, "pt2scope_queue_capacity"), 8);
    ck_assert_uint_eq(metric(r.body, "pt2scope_inflight_requests"), 1);
    ck_assert_uint_eq(metric(r.body, "pt2scope_ready"), 1);
    ck_assert_uint_eq(metric(r.body, "pt2scope_inspect_duration_seconds_count"), 1);
    ck_assert_uint_gt(metric(r.body, "pt2scope_bytes_read_total"), 0);
    ck_assert(strstr(r.body, "# TYPE pt2scope_http_requests_total counter\n") != NULL);
    ck_assert(strstr(r.body, "# TYPE pt2scope_http_request_duration_seconds histogram\n") != NULL);
    ck_assert_int_eq(r.body[r.len - 1], '\n');
    th_resp_free(&r);
}
END_TEST

START_TEST(test_access_log_line)
{
    const char *hs[] = {"X-Request-Id: log-test-1", NULL};
    struct th_req rq = {.path = "/v1/arch?path=cpu_x86_64.pt2", .headers = hs};
    struct th_resp r;
    char line[4096];
    cJSON *doc = NULL;
    int tries;

    th_do(T.base, &rq, &r);
    ck_assert_int_eq(r.status, 200);
    /* The line is written when MHD reports completion; allow it a moment. */
    for (tries = 0; tries < 200 && doc == NULL; tries++) {
        rewind(T.log);
        while (fgets(line, sizeof(line), T.log) != NULL)
            if (strstr(line, "\"id\":\"log-test-1\"") != NULL)
                doc = cJSON_Parse(line);
        if (doc == NULL)
            th_sleep_ms(5);
    }
    ck_assert_ptr_nonnull(doc);
    ck_assert_str_eq(th_str(doc, "method"), "GET");
    ck_assert_str_eq(th_str(doc, "route"), "/v1/arch");
    ck_assert_str_eq(th_str(doc, "path"), "/v1/arch");
    ck_assert_str_eq(th_str(doc, "remote"), "127.0.0.1");
    ck_assert_int_eq(cJSON_GetObjectItem(doc, "status")->valueint, 200);
    ck_assert_int_eq(cJSON_GetObjectItem(doc, "bytes")->valueint, (int)r.len);
    ck_assert(cJSON_IsNumber(cJSON_GetObjectItem(doc, "duration_ms")));
    ck_assert_ptr_nonnull(th_str(doc, "ts"));
    ck_assert_ptr_null(cJSON_GetObjectItem(doc, "error"));
    cJSON_Delete(doc);
    th_resp_free(&r);
}
END_TEST

/*
 * More query arguments than MHD's connection pool can split are a 400 too, not a
 * hang-up; a request line longer than MHD's buffer is MHD's own 414 (not problem+json:
 * 0.9.75 gives no hook there), but an answer all the same.
 */
START_TEST(test_too_many_query_arguments)
{
    static const unsigned counts[] = {257, 2000, 9000, 20000};
    struct th_resp r;
    size_t i;

    for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
        size_t cap = 64 + (size_t)counts[i] * 8, n;
        char *path = malloc(cap);

        ck_assert_ptr_nonnull(path);
        n = (size_t)snprintf(path, cap, "/v1/inspect?path=cpu_x86_64.pt2");
        for (unsigned k = 1; k < counts[i]; k++)
            n += (size_t)snprintf(path + n, cap - n, "&a%u=1", k % 1000);
        th_get(T.base, path, &r);
        if (n < 64 * 1024)
            th_assert_problem(&r, 400, "bad-request", "more than 256 query arguments");
        else
            ck_assert_int_eq(r.status, 414);
        th_resp_free(&r);
        free(path);
    }
    /* the server is still there */
    th_get(T.base, "/livez", &r);
    ck_assert_int_eq(r.status, 200);
    th_resp_free(&r);
}
END_TEST

static Suite *api_suite(void)
{
    Suite *s = suite_create("http_api");
    TCase *tc = tcase_create("api");
    TCase *cors = tcase_create("cors");
    TCase *any = tcase_create("cors_any");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_livez_readyz);
    tcase_add_test(tc, test_version);
    tcase_add_test(tc, test_inspect_get_path);
    tcase_add_test(tc, test_inspect_compatibility);
    tcase_add_test(tc, test_inspect_compatibility_driver_matches_library);
    tcase_add_test(tc, test_inspect_model);
    tcase_add_test(tc, test_inspect_post_octet_stream);
    tcase_add_test(tc, test_inspect_post_multipart);
    tcase_add_test(tc, test_inspect_post_json_path);
    tcase_add_test(tc, test_metadata_get_and_oip_view);
    tcase_add_test(tc, test_arch_get_head);
    tcase_add_test(tc, test_validate_json_valid_and_invalid);
    tcase_add_test(tc, test_validate_upload_with_query_inputs);
    tcase_add_test(tc, test_validate_needs_inputs);
    tcase_add_test(tc, test_problem_package_errors);
    tcase_add_test(tc, test_problem_not_found_and_outside_root);
    tcase_add_test(tc, test_problem_bad_requests);
    tcase_add_test(tc, test_problem_bad_target_uses_library_message);
    tcase_add_test(tc, test_problem_unknown_route_and_method);
    tcase_add_test(tc, test_problem_unsupported_media_type);
    tcase_add_test(tc, test_problem_upload_and_path_together);
    tcase_add_test(tc, test_etag_304_get);
    tcase_add_test(tc, test_etag_304_post_upload);
    tcase_add_test(tc, test_cache_hits_and_nocache);
    tcase_add_test(tc, test_no_cors_headers_without_config);
    tcase_add_test(tc, test_request_id_echo_and_replace);
    tcase_add_test(tc, test_metrics_exact_counters);
    tcase_add_test(tc, test_access_log_line);
    tcase_add_test(tc, test_too_many_query_arguments);
    suite_add_tcase(s, tc);

    tcase_add_checked_fixture(cors, setup_cors, teardown);
    tcase_add_test(cors, test_cors_preflight_and_simple);
    suite_add_tcase(s, cors);
    tcase_add_checked_fixture(any, setup_cors_any, teardown);
    tcase_add_test(any, test_cors_any_origin);
    suite_add_tcase(s, any);
    return s;
}

int main(void)
{
    return th_main("http_api", "cuda_sm90a_v8.pt2", api_suite);
}
