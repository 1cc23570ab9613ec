/*
 * test_pt2d_job.c - inspection jobs without HTTP: path and upload inputs,
 * the ETag and 304, cache hits and bypass, each endpoint's document and
 * the problems for bad input.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nettle/sha2.h>

#include "pt2d_etag.h"
#include "pt2d_job.h"
#include "pt2d_path.h"
#include "testutil.h"

static char root[4096];
static const char *roots[1];
static struct pt2d_cache *cache;
static struct pt2d_job_env env;
static struct pt2d_options opts;
static struct pt2d_reply reply;

static void setup(void)
{
    ck_assert_ptr_nonnull(realpath("tests/fixtures", root));
    roots[0] = root;
    ck_assert_int_eq(pt2d_cache_create(&cache, 8, 0, NULL), PT2_OK);
    env.roots = roots;
    env.n_roots = 1;
    env.cache = cache;
    env.metrics = NULL;
    pt2d_options_init(&opts);
    pt2d_reply_init(&reply);
}

static void teardown(void)
{
    pt2d_options_free(&opts);
    pt2d_reply_free(&reply);
    pt2d_cache_free(cache);
}

/* The fixture as the daemon receives an upload: streamed through pt2_upload, finished. */
static pt2_upload *upload_of(const char *fixture)
{
    struct pt2_upload_options o = {0, NULL, NULL, 0, NULL};
    struct pt2_error err = {0};
    pt2_upload *u = NULL;
    char p[256];
    size_t len = 0;
    uint8_t *buf = tu_read_file(tu_fixture(fixture, p, sizeof(p)), &len);

    ck_assert_ptr_nonnull(buf);
    ck_assert_int_eq(pt2_upload_new(&u, &o, &err), PT2_OK);
    ck_assert_int_eq(pt2_upload_feed(u, buf, len, &err), PT2_OK);
    ck_assert_int_eq(pt2_upload_finish(u, &err), PT2_OK);
    free(buf);
    return u;
}

static void run_body(enum pt2d_route route, pt2_upload *u, const char *inm, int nocache,
                     const char *json, const char *nodes)
{
    struct pt2d_job job;

    memset(&job, 0, sizeof(job));
    job.body = json;
    job.body_len = json != NULL ? strlen(json) : 0;
    job.nodes_text = nodes;
    job.nodes_len = nodes != NULL ? strlen(nodes) : 0;
    job.env = &env;
    job.route = route;
    job.opts = &opts;
    job.upload = u;
    job.if_none_match = inm;
    job.nocache = nocache;
    job.request_id = "rid";
    job.reply = &reply;
    pt2d_reply_free(&reply);
    pt2d_reply_init(&reply);
    pt2d_job_run(&job);
}

static void run(enum pt2d_route route, pt2_upload *u, const char *inm, int nocache)
{
    run_body(route, u, inm, nocache, NULL, NULL);
}

static const char *body(void)
{
    return reply.body != NULL ? reply.body : "";
}

START_TEST(test_path_inspect_and_304)
{
    char etag[PT2D_ETAG_MAX];
    struct pt2d_cache_stats st;
    cJSON *doc;

    pt2d_options_add_query(&opts, "path", "cpu_x86_64.pt2", NULL);
    run(PT2D_ROUTE_INSPECT, NULL, NULL, 0);
    ck_assert_uint_eq(reply.status, 200);
    ck_assert_str_eq(reply.content_type, "application/json");
    ck_assert_int_eq(reply.body[reply.len - 1], '\n');
    doc = cJSON_Parse(body());
    ck_assert_ptr_nonnull(doc);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "compatibility")), 0);
    ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "package"), "name")->valuestring,
                     "cpu_x86_64.pt2");
    cJSON_Delete(doc);
    snprintf(etag, sizeof(etag), "%s", reply.etag);
    ck_assert_uint_eq(strlen(etag), 34);

    run(PT2D_ROUTE_INSPECT, NULL, etag, 0);
    ck_assert_uint_eq(reply.status, 304);
    ck_assert_ptr_null(reply.body);
    ck_assert_str_eq(reply.etag, etag);

    run(PT2D_ROUTE_ARCH, NULL, etag, 0); /* another endpoint, another tag */
    ck_assert_uint_eq(reply.status, 200);
    ck_assert_str_ne(reply.etag, etag);
    pt2d_cache_stats(cache, &st);
    ck_assert_uint_eq(st.misses, 1);
    ck_assert_uint_eq(st.hits, 1);
}
END_TEST

/*
 * A path's ETag is made from "f:<dev>:<ino>:<size>:<mtime>:<ctime>|<name>" (formatted
 * by hand in the job) and is the same through the roots' descriptors
 * (openat2); a memoised hit is answered from memory with the shared body.
 */
START_TEST(test_file_key_fast_path_and_memo)
{
    char p[4200], key[PT2D_CACHE_KEY_MAX], want[PT2D_ETAG_MAX], first[PT2D_ETAG_MAX];
    struct pt2d_buf fp;
    struct pt2d_job job;
    struct stat st;
    int fds[1];
    char *memo;

    snprintf(p, sizeof(p), "%s/cpu_x86_64.pt2", root);
    ck_assert_int_eq(stat(p, &st), 0);
    snprintf(key, sizeof(key), "f:%llu:%llu:%lld:%lld.%09ld:%lld.%09ld|%s",
             (unsigned long long)st.st_dev, (unsigned long long)st.st_ino, (long long)st.st_size,
             (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, (long long)st.st_ctim.tv_sec,
             st.st_ctim.tv_nsec, "cpu_x86_64.pt2");
    pt2d_options_add_query(&opts, "path", "cpu_x86_64.pt2", NULL);
    pt2d_buf_init(&fp, 4096);
    ck_assert_int_eq(pt2d_options_fingerprint(&opts, &fp), PT2_OK);
    pt2d_etag_make(pt2d_router_label(PT2D_ROUTE_INSPECT), key, pt2d_buf_str(&fp), want,
                   sizeof(want));
    pt2d_buf_free(&fp);

    run(PT2D_ROUTE_INSPECT, NULL, NULL, 0);
    ck_assert_uint_eq(reply.status, 200);
    ck_assert_str_eq(reply.etag, want);
    ck_assert_ptr_null(reply.body_release); /* rendered: a malloc'd body */
    snprintf(first, sizeof(first), "%s", reply.etag);

    pt2d_path_roots_open(fds, roots, 1);
    env.root_fds = fds;
    run(PT2D_ROUTE_INSPECT, NULL, NULL, 0);
    ck_assert_uint_eq(reply.status, 200);
    ck_assert_str_eq(reply.etag, first);
    ck_assert_ptr_nonnull(reply.body_release); /* the memo, shared */

    /* On the HTTP thread: answered from memory, the very bytes of the memo. */
    memset(&job, 0, sizeof(job));
    job.env = &env;
    job.route = PT2D_ROUTE_INSPECT;
    job.opts = &opts;
    job.request_id = "rid";
    job.reply = &reply;
    memo = reply.body;
    pt2d_reply_free(&reply);
    pt2d_reply_init(&reply);
    ck_assert_int_eq(pt2d_job_run_cached(&job), 1);
    ck_assert_uint_eq(reply.status, 200);
    ck_assert_ptr_eq(reply.body, memo);
    ck_assert_str_eq(reply.etag, first);
    job.nocache = 1; /* never from memory without the cache */
    ck_assert_int_eq(pt2d_job_run_cached(&job), 0);

    /* Another question about the same package (strict=1): its own ETag, never the first
     * question's memo; nothing in memory for it until a worker renders it. Then the first
     * question again: the first ETag. */
    job.nocache = 0;
    pt2d_options_add_query(&opts, "strict", "1", NULL);
    pt2d_buf_init(&fp, 4096);
    ck_assert_int_eq(pt2d_options_fingerprint(&opts, &fp), PT2_OK);
    pt2d_etag_make(pt2d_router_label(PT2D_ROUTE_INSPECT), key, pt2d_buf_str(&fp), want,
                   sizeof(want));
    pt2d_buf_free(&fp);
    ck_assert_str_ne(want, first);
    pt2d_reply_free(&reply);
    pt2d_reply_init(&reply);
    ck_assert_int_eq(pt2d_job_run_cached(&job), 0);
    run(PT2D_ROUTE_INSPECT, NULL, NULL, 0);
    ck_assert_uint_eq(reply.status, 200);
    ck_assert_str_eq(reply.etag, want);
    pt2d_reply_free(&reply);
    pt2d_reply_init(&reply);
    ck_assert_int_eq(pt2d_job_run_cached(&job), 1);
    ck_assert_str_eq(reply.etag, want);
    /* one body is memoised per package: the first question's is rendered again */
    pt2d_options_add_query(&opts, "strict", "0", NULL);
    pt2d_reply_free(&reply);
    pt2d_reply_init(&reply);
    ck_assert_int_eq(pt2d_job_run_cached(&job), 0);
    run(PT2D_ROUTE_INSPECT, NULL, NULL, 0);
    ck_assert_str_eq(reply.etag, first);
    pt2d_reply_free(&reply);
    pt2d_reply_init(&reply);
    ck_assert_int_eq(pt2d_job_run_cached(&job), 1);
    ck_assert_str_eq(reply.etag, first);
    env.root_fds = NULL;
    pt2d_path_roots_close(fds, 1);
}
END_TEST

/* Uploads are never cached (their key is known only once they are read), same tag each time. */
START_TEST(test_upload_digest_keys_and_bypass)
{
    char etag1[PT2D_ETAG_MAX];
    struct pt2d_cache_stats st;
    pt2_upload *u = upload_of("cpu_x86_64.pt2");

    run(PT2D_ROUTE_METADATA, u, NULL, 1);
    ck_assert_uint_eq(reply.status, 200);
    snprintf(etag1, sizeof(etag1), "%s", reply.etag);
    run(PT2D_ROUTE_METADATA, u, NULL, 0);
    ck_assert_uint_eq(reply.status, 200);
    ck_assert_str_eq(reply.etag, etag1);
    pt2d_cache_stats(cache, &st);
    ck_assert_uint_eq(st.hits + st.misses + st.entries, 0);
    /* the tag is the client's: 304 */
    run(PT2D_ROUTE_METADATA, u, etag1, 0);
    ck_assert_uint_eq(reply.status, 304);
    pt2_upload_free(u);
}
END_TEST

/*
 * An upload is keyed "u:<hex SHA-256>:<size>|<name>", the SHA-256 over the
 * digest its byte source recorded of what the inspection read (pt2scope.h)
 * and then package.source as printed (how it was kept): computed here from
 * the library directly and turned into hex by hand.
 */
START_TEST(test_upload_key_is_hex_digest)
{
    char want[PT2D_ETAG_MAX], key[256], hex[65], *text;
    struct pt2_error err = {0};
    struct sha256_ctx sha;
    struct pt2d_buf fp;
    struct pt2d_job job;
    pt2_upload *ref = upload_of("cpu_x86_64.pt2"), *u = upload_of("cpu_x86_64.pt2");
    pt2_source *src = NULL;
    pt2_package *pkg = NULL;
    cJSON *source;
    uint8_t d[32];

    ck_assert_int_eq(pt2_upload_source(ref, &src, &err), PT2_OK);
    pt2_source_record_digest(src);
    ck_assert_int_eq(pt2_package_open_source(&pkg, src, NULL, &err), PT2_OK);
    pt2_source_digest(src, d);
    source = pt2_upload_source_json(ref);
    text = cJSON_PrintUnformatted(source);
    sha256_init(&sha);
    sha256_update(&sha, sizeof(d), d);
    sha256_update(&sha, strlen(text), (const uint8_t *)text);
    sha256_digest(&sha, sizeof(d), d);
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
    snprintf(key, sizeof(key), "u:%s:%llu|model.pt2", hex,
             (unsigned long long)pt2_source_size(src));
    cJSON_free(text);
    cJSON_Delete(source);
    pt2_package_free(pkg);
    pt2_upload_free(ref);

    pt2d_buf_init(&fp, 4096);
    ck_assert_int_eq(pt2d_options_fingerprint(&opts, &fp), PT2_OK);
    pt2d_etag_make(pt2d_router_label(PT2D_ROUTE_ARCH), key, pt2d_buf_str(&fp), want, sizeof(want));
    pt2d_buf_free(&fp);
    memset(&job, 0, sizeof(job));
    job.env = &env;
    job.route = PT2D_ROUTE_ARCH;
    job.opts = &opts;
    job.upload = u;
    job.upload_name = "model.pt2";
    job.request_id = "rid";
    job.reply = &reply;
    pt2d_job_run(&job);
    ck_assert_uint_eq(reply.status, 200);
    ck_assert_str_eq(reply.etag, want);
    pt2_upload_free(u);
}
END_TEST

START_TEST(test_validate)
{
    pt2d_options_add_query(&opts, "path", "cuda_sm90a_v8.pt2", NULL);
    run(PT2D_ROUTE_VALIDATE, NULL, NULL, 0);
    ck_assert_uint_eq(reply.status, 400);
    ck_assert_str_eq(reply.content_type, "application/problem+json");
    ck_assert(strstr(body(), "\"detail\":\"inputs are required, e.g. {\\\"x\\\": [8, 3, 512, "
                             "512]}\"") != NULL);
    ck_assert_str_eq(reply.etag, "");
    pt2d_options_add_query(&opts, "input", "image=1,3,512,512", NULL);
    pt2d_options_add_query(&opts, "input", "scale=1", NULL);
    run(PT2D_ROUTE_VALIDATE, NULL, NULL, 0);
    ck_assert_uint_eq(reply.status, 200);
    ck_assert_str_eq(body(), "{\"valid\":true,\"errors\":[],\"warnings\":[]}\n");
}
END_TEST

START_TEST(test_problems)
{
    pt2d_options_add_query(&opts, "path", "broken_not_zip.pt2", NULL);
    run(PT2D_ROUTE_INSPECT, NULL, NULL, 0);
    ck_assert_uint_eq(reply.status, 422);
    ck_assert(strstr(body(), "\"type\":\"https://pt2scope.dev/problems/not-a-zip\"") != NULL);
    ck_assert(strstr(body(), "\"instance\":\"urn:request:rid\"") != NULL);
    pt2d_options_free(&opts);
    pt2d_options_init(&opts);
    run(PT2D_ROUTE_INSPECT, NULL, NULL, 0);
    ck_assert_uint_eq(reply.status, 400);
    pt2d_options_add_query(&opts, "path", "../x.pt2", NULL);
    run(PT2D_ROUTE_INSPECT, NULL, NULL, 0);
    ck_assert_uint_eq(reply.status, 403);
}
END_TEST

START_TEST(test_compat_targets_in_document)
{
    cJSON *doc, *c;

    pt2d_options_add_query(&opts, "path", "cuda_sm90a_v8.pt2", NULL);
    pt2d_options_add_query(&opts, "target", "9.0", NULL);
    pt2d_options_add_query(&opts, "target", "gfx90a", NULL);
    pt2d_options_finish(&opts);
    run(PT2D_ROUTE_INSPECT, NULL, NULL, 0);
    ck_assert_uint_eq(reply.status, 200);
    doc = cJSON_Parse(body());
    c = cJSON_GetObjectItem(doc, "compatibility");
    ck_assert_int_eq(cJSON_GetArraySize(c), 2);
    ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(c, 0), "verdict")->valuestring,
                     "compatible");
    ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(c, 1), "verdict")->valuestring,
                     "incompatible");
    ck_assert_str_eq(
        cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(c, 1), "device"), "gfx")
            ->valuestring,
        "gfx90a");
    cJSON_Delete(doc);
}
END_TEST

/* Without a target the node answers: its CPU entry (no driver: no GPU entry); a target
 * names where the package goes, so the node is not asked then. */
START_TEST(test_node_entries_and_etag)
{
    char e1[PT2D_ETAG_MAX];
    struct pt2d_node *node = NULL;
    cJSON *doc, *c;

    struct pt2_node_options no = {"/nonexistent/pt2scope/libcuda.so.1", "/nonexistent/pt2scope",
                                  "n1"};

    ck_assert_int_eq(pt2d_node_create(&node, &no, NULL), PT2_OK);
    env.node = node;
    pt2d_options_add_query(&opts, "path", "cpu_x86_64.pt2", NULL);
    run(PT2D_ROUTE_INSPECT, NULL, NULL, 0);
    ck_assert_uint_eq(reply.status, 200);
    snprintf(e1, sizeof(e1), "%s", reply.etag);
    doc = cJSON_Parse(body());
    c = cJSON_GetObjectItem(doc, "compatibility");
    ck_assert_int_eq(cJSON_GetArraySize(c), 1);
    ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(c, 0), "kind")->valuestring, "cpu");
    cJSON_Delete(doc);

    /* Same probe, same ETag: 304; a new probe that finds the same node too. */
    run(PT2D_ROUTE_INSPECT, NULL, e1, 0);
    ck_assert_uint_eq(reply.status, 304);
    ck_assert_int_eq(pt2d_node_refresh(node, NULL), PT2_OK);
    run(PT2D_ROUTE_INSPECT, NULL, e1, 0);
    ck_assert_uint_eq(reply.status, 304);
    ck_assert_str_eq(reply.etag, e1);

    /* A device on a node without GPUs is a bad request, answered without an ETag. */
    pt2d_options_add_query(&opts, "device", "cuda", NULL);
    run(PT2D_ROUTE_INSPECT, NULL, NULL, 0);
    ck_assert_uint_eq(reply.status, 400);
    ck_assert_str_eq(reply.etag, "");
    ck_assert(strstr(body(), "\"detail\":\"device cuda:0 not found: no NVIDIA driver installed "
                             "(/nonexistent/pt2scope/libcuda.so.1 not found)\"") != NULL);
    /* ... and with a target as well, the two are a contradiction. */
    pt2d_options_add_query(&opts, "target", "9.0", NULL);
    run(PT2D_ROUTE_INSPECT, NULL, NULL, 0);
    ck_assert_uint_eq(reply.status, 400);
    ck_assert(strstr(body(), "\"detail\":\"a device picks one of this node's GPUs and a target "
                             "names other GPUs: give one or the other\"") != NULL);
    env.node = NULL;
    pt2d_node_free(node);
}
END_TEST

#define ONE_NODE                                                                                   \
    "[{\"metadata\": {\"name\": \"arm\", \"labels\": {\"kubernetes.io/arch\": \"arm64\"}}}]"

START_TEST(test_compatibility_route)
{
    pt2_upload *u;
    cJSON *doc;

    run_body(PT2D_ROUTE_COMPATIBILITY, NULL, NULL, 0,
             "{\"path\": \"cpu_aarch64.pt2\", \"nodes\": " ONE_NODE "}", NULL);
    ck_assert_uint_eq(reply.status, 200);
    ck_assert_str_eq(reply.etag, ""); /* a POST answer about a body: no ETag */
    doc = cJSON_Parse(body());
    ck_assert_str_eq(
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "nodes"), 0), "verdict")
            ->valuestring,
        "compatible");
    cJSON_Delete(doc);

    /* Multipart: the upload plus the 'nodes' field. */
    u = upload_of("cpu_x86_64.pt2");
    run_body(PT2D_ROUTE_COMPATIBILITY, u, NULL, 0, NULL, ONE_NODE);
    ck_assert_uint_eq(reply.status, 200);
    ck_assert(strstr(body(), "\"verdict\":\"incompatible\"") != NULL);
    run_body(PT2D_ROUTE_COMPATIBILITY, u, NULL, 0, NULL, NULL);
    ck_assert_uint_eq(reply.status, 400);
    ck_assert(strstr(body(), "multipart/form-data body has no 'nodes' field") != NULL);
    run_body(PT2D_ROUTE_COMPATIBILITY, u, NULL, 0, NULL, "{\"items\": 1}");
    ck_assert_uint_eq(reply.status, 400);
    ck_assert(strstr(body(), "nodes: \\\"items\\\" is not an array") != NULL);
    pt2_upload_free(u);

    run_body(PT2D_ROUTE_COMPATIBILITY, NULL, NULL, 0, "{\"path\": \"cpu_x86_64.pt2\"", NULL);
    ck_assert_uint_eq(reply.status, 400);
    ck_assert(strstr(body(), "request body is not valid JSON") != NULL);
    run_body(PT2D_ROUTE_COMPATIBILITY, NULL, NULL, 0,
             "{\"path\": \"cpu_x86_64.pt2\", \"path\": \"x\", \"nodes\": []}", NULL);
    ck_assert_uint_eq(reply.status, 400);
    ck_assert(strstr(body(), "path given more than once") != NULL);
    run_body(PT2D_ROUTE_COMPATIBILITY, NULL, NULL, 0, NULL, NULL);
    ck_assert_uint_eq(reply.status, 400);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pt2d_job");
    TCase *tc = tcase_create("core");
    char p[256];

    if (!tu_exists(tu_fixture("cuda_sm90a_v8.pt2", p, sizeof(p)))) {
        tu_skip("pt2d_job", "tests/fixtures/*.pt2 not generated");
        return 0;
    }
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_path_inspect_and_304);
    tcase_add_test(tc, test_file_key_fast_path_and_memo);
    tcase_add_test(tc, test_upload_digest_keys_and_bypass);
    tcase_add_test(tc, test_upload_key_is_hex_digest);
    tcase_add_test(tc, test_validate);
    tcase_add_test(tc, test_problems);
    tcase_add_test(tc, test_compat_targets_in_document);
    tcase_add_test(tc, test_node_entries_and_etag);
    tcase_add_test(tc, test_compatibility_route);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
