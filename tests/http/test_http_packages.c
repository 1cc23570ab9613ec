/*
 * test_http_packages.c - GET /v1/packages and the operator page over
 * loopback: the items and their order, pages and cursors, prefix, targets,
 * problem items, the second root (subfolders, hidden names, a symlink out,
 * a symlinked folder, a name the first root shadows), that an item's ETag
 * is /v1/inspect's, that only a page's packages are opened and through the
 * cache, 10,000 packages, bad arguments, and /, /page/app.js,
 * /page/style.css.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "http_harness.h"

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

/* GET `path`, assert 200 and JSON; the caller deletes the document. */
static cJSON *get_json(const char *path)
{
    struct th_resp r;
    cJSON *doc;

    th_get(T.base, path, &r);
    ck_assert_msg(r.status == 200, "%s: %ld %s", path, r.status, r.body);
    doc = th_json(&r);
    th_resp_free(&r);
    return doc;
}

static const cJSON *items_of(const cJSON *doc)
{
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(doc, "items");

    ck_assert(cJSON_IsArray(items));
    return items;
}

static const cJSON *item_named(const cJSON *doc, const char *name)
{
    const cJSON *it;

    cJSON_ArrayForEach(it, items_of(doc)) if (strcmp(th_str(it, "name"), name) == 0) return it;
    return NULL;
}

static int count_named(const cJSON *doc, const char *name)
{
    const cJSON *it;
    int n = 0;

    cJSON_ArrayForEach(it, items_of(doc)) n += strcmp(th_str(it, "name"), name) == 0;
    return n;
}

/* The packages in `dir` whose names start with `prefix` (hidden ones aside). */
static int count_in(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    ck_assert_ptr_nonnull(d);
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        n += e->d_name[0] != '.' && strncmp(e->d_name, prefix, strlen(prefix)) == 0 && len > 4 &&
             strcmp(e->d_name + len - 4, ".pt2") == 0;
    }
    closedir(d);
    return n;
}

static int count_prefixed(const char *prefix)
{
    return count_in("tests/fixtures", prefix);
}

/* Every package below the root: the fixtures and torch's own (tests/fixtures/torch/). */
static int fixture_packages(void)
{
    return count_prefixed("") + count_in("tests/fixtures/torch", "");
}

static unsigned long long metric(const char *series)
{
    struct th_resp r;
    const char *p;
    size_t n = strlen(series);
    unsigned long long v = (unsigned long long)-1;

    th_get(T.base, "/metrics", &r);
    for (p = r.body; (p = strstr(p, series)) != NULL; p += n) {
        if ((p == r.body || p[-1] == '\n') && p[n] == ' ') {
            v = strtoull(p + n + 1, NULL, 10);
            break;
        }
    }
    th_resp_free(&r);
    return v;
}

START_TEST(test_first_page_items)
{
    cJSON *doc = get_json("/v1/packages");
    const cJSON *it, *prev = NULL;
    char *s;
    char etag[80], want[512];
    struct stat st;

    ck_assert_int_eq(cJSON_GetArraySize(items_of(doc)), fixture_packages());
    ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(doc, "next")));
    /* Sorted by name, each once. */
    cJSON_ArrayForEach(it, items_of(doc))
    {
        if (prev != NULL)
            ck_assert_int_lt(strcmp(th_str(prev, "name"), th_str(it, "name")), 0);
        prev = it;
    }
    /* The item, exactly: the library's members plus /v1/inspect's ETag. */
    th_etag_of(T.base, "/v1/inspect?path=cuda_sm90a_v8.pt2", etag, sizeof(etag));
    ck_assert_int_eq(stat("tests/fixtures/cuda_sm90a_v8.pt2", &st), 0);
    it = item_named(doc, "cuda_sm90a_v8.pt2");
    ck_assert_ptr_nonnull(it);
    ck_assert_uint_eq((unsigned long long)cJSON_GetObjectItem(it, "size")->valuedouble,
                      (unsigned long long)st.st_size);
    {
        char when[32];
        struct tm tm;

        gmtime_r(&st.st_mtim.tv_sec, &tm);
        strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
        snprintf(want, sizeof(want),
                 "{\"name\":\"cuda_sm90a_v8.pt2\",\"size\":%lld,\"mtime\":\"%s\",\"kind\":\"aoti\","
                 "\"device\":\"cuda\",\"targets\":\"sm_90a\",\"models\":1,"
                 "\"etag\":\"\\\"%.32s\\\"\"}",
                 (long long)st.st_size, when, etag + 1);
    }
    s = cJSON_PrintUnformatted(it);
    ck_assert_str_eq(s, want);
    cJSON_free(s);
    ck_assert_str_eq(th_str(item_named(doc, "rocm_gfx90a.pt2"), "targets"), "gfx90a:xnack-");
    ck_assert_str_eq(th_str(item_named(doc, "rocm_gfx90a.pt2"), "device"), "rocm");
    ck_assert_str_eq(th_str(item_named(doc, "cpu_x86_64.pt2"), "targets"), "cpu x86_64 AVX-512");
    ck_assert_str_eq(th_str(item_named(doc, "cuda_fatbin_multi.pt2"), "targets"),
                     "sm_75, sm_80, sm_90a, sm_100f, sm_120+PTX, compute_90");
    /* A package that does not open is an item with its problem, never a failed listing. */
    it = item_named(doc, "broken_not_zip.pt2");
    ck_assert_str_eq(th_str(it, "type"), "https://pt2scope.dev/problems/not-a-zip");
    ck_assert_int_eq(cJSON_GetObjectItem(it, "status")->valueint, 422);
    ck_assert_str_eq(th_str(it, "detail"),
                     "not a zip archive (no end-of-central-directory record)");
    ck_assert_ptr_null(cJSON_GetObjectItem(it, "etag"));
    ck_assert_ptr_null(cJSON_GetObjectItem(it, "instance"));
    it = item_named(doc, "broken_bad_aoti_json.pt2");
    ck_assert_str_eq(th_str(it, "type"), "https://pt2scope.dev/problems/metadata-invalid");
    /* bad user metadata: a warning, the package listed with its targets */
    it = item_named(doc, "broken_bad_json.pt2");
    ck_assert_ptr_null(cJSON_GetObjectItem(it, "type"));
    ck_assert_str_eq(th_str(it, "targets"), "sm_90a");
    cJSON_Delete(doc);
}
END_TEST

START_TEST(test_pages_and_cursor)
{
    cJSON *all = get_json("/v1/packages?limit=1000"), *doc;
    const cJSON *it, *next;
    char path[256], cursor[128] = "";
    int seen = 0, pages = 0;

    do {
        snprintf(path, sizeof(path), "/v1/packages?limit=5%s%s", cursor[0] ? "&cursor=" : "",
                 cursor);
        doc = get_json(path);
        ck_assert_int_le(cJSON_GetArraySize(items_of(doc)), 5);
        cJSON_ArrayForEach(it, items_of(doc))
        {
            ck_assert_str_eq(th_str(it, "name"),
                             th_str(cJSON_GetArrayItem(items_of(all), seen), "name"));
            seen++;
        }
        next = cJSON_GetObjectItemCaseSensitive(doc, "next");
        /* next is null exactly on the last page. */
        ck_assert_int_eq(cJSON_IsNull(next), seen == cJSON_GetArraySize(items_of(all)));
        if (cJSON_IsString(next))
            snprintf(cursor, sizeof(cursor), "%s", next->valuestring);
        pages++;
        cJSON_Delete(doc);
    } while (cJSON_IsString(next) && pages < 100);
    ck_assert_int_eq(seen, fixture_packages());
    ck_assert_int_eq(pages, (fixture_packages() + 4) / 5);
    /* The cursor is the base64url of the page's last name. */
    doc = get_json("/v1/packages?limit=1");
    ck_assert_str_eq(th_str(doc, "next"),
                     "YnJva2VuX2JhZF9hb3RpX2pzb24ucHQy"); /* broken_bad_aoti_json.pt2 */
    cJSON_Delete(doc);
    doc = get_json("/v1/packages?limit=1&cursor=YnJva2VuX2JhZF9hb3RpX2pzb24ucHQy");
    ck_assert_str_eq(th_str(cJSON_GetArrayItem(items_of(doc), 0), "name"), "broken_bad_elf.pt2");
    cJSON_Delete(doc);
    cJSON_Delete(all);
}
END_TEST

/* The page's item names are exactly want[0..n). */
static void assert_names(const cJSON *doc, const char *const *want, int n)
{
    int i;

    ck_assert_int_eq(cJSON_GetArraySize(items_of(doc)), n);
    for (i = 0; i < n; i++)
        ck_assert_str_eq(th_str(cJSON_GetArrayItem(items_of(doc), i), "name"), want[i]);
}

/* GET `path` answers n items and no next page. */
static void assert_last_page(const char *path, int n)
{
    cJSON *doc = get_json(path);

    ck_assert_int_eq(cJSON_GetArraySize(items_of(doc)), n);
    ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(doc, "next")));
    cJSON_Delete(doc);
}

START_TEST(test_prefix)
{
    cJSON *doc = get_json("/v1/packages?prefix=cuda_sm");
    const char *want[] = {"cuda_sm100f_v8.pt2", "cuda_sm80_v7_legacy.pt2", "cuda_sm90a_v8.pt2"};

    assert_names(doc, want, 3);
    cJSON_Delete(doc);
    assert_last_page("/v1/packages?prefix=zzz", 0);
}
END_TEST

/* contains: the text anywhere in the name, subfolders included; with prefix, both. */
START_TEST(test_contains)
{
    const char *want[] = {"cpu_names_only_v7.pt2", "cuda_fatbin_v7_lz4.pt2",
                          "cuda_sm80_v7_legacy.pt2", "team/x_v7.pt2"};
    char p[512];
    cJSON *doc;

    snprintf(p, sizeof(p), "%s/team", T.root2);
    ck_assert_int_eq(mkdir(p, 0755), 0);
    snprintf(p, sizeof(p), "%s/team/x_v7.pt2", T.root2);
    th_copy_file("tests/fixtures/cpu_x86_64.pt2", p);
    doc = get_json("/v1/packages?contains=_v7");
    assert_names(doc, want, 4);
    ck_assert(th_num(doc, "total") == 4);
    cJSON_Delete(doc);
    doc = get_json("/v1/packages?contains=_v7&prefix=cuda_sm");
    assert_names(doc, want + 2, 1);
    cJSON_Delete(doc);
    assert_last_page("/v1/packages?contains=legacy&limit=1", 1);
}
END_TEST

START_TEST(test_targets)
{
    cJSON *doc = get_json("/v1/packages?prefix=cuda_sm90a&target=B200&target=H100&driver=13.0");
    const cJSON *it = item_named(doc, "cuda_sm90a_v8.pt2"), *v, *ov;
    char etag[80], plain[80];

    ck_assert_ptr_nonnull(it);
    v = cJSON_GetObjectItemCaseSensitive(it, "verdicts");
    ck_assert_int_eq(cJSON_GetArraySize(v), 2);
    ck_assert_str_eq(th_str(cJSON_GetArrayItem(v, 0), "target"), "B200");
    ck_assert_str_eq(th_str(cJSON_GetArrayItem(v, 0), "verdict"), "incompatible");
    ck_assert_str_eq(th_str(cJSON_GetArrayItem(v, 1), "target"), "H100");
    ck_assert_str_eq(th_str(cJSON_GetArrayItem(v, 1), "verdict"), "compatible");
    /* The driver applies to every target, as on /v1/inspect (without it the reason ends
     * "driver version unknown"). */
    ck_assert_str_eq(th_str(cJSON_GetArrayItem(v, 1), "reason"),
                     "sm_90a cubin runs on NVIDIA H100; compatible if the node's CPU has avx512f, "
                     "avx512dq, avx512vl, avx512bw, fma (a target names no CPU)");
    ov = cJSON_GetObjectItemCaseSensitive(it, "overall");
    ck_assert_str_eq(th_str(ov, "verdict"), "incompatible");
    ck_assert_str_eq(th_str(ov, "reason"), "B200: kernels are sm_90a only; NVIDIA B200 is 10.0");
    /* The ETag is the one /v1/inspect answers with for the same targets and driver. */
    th_etag_of(T.base, "/v1/inspect?path=cuda_sm90a_v8.pt2&target=B200&target=H100&driver=13.0",
               etag, sizeof(etag));
    th_etag_of(T.base, "/v1/inspect?path=cuda_sm90a_v8.pt2", plain, sizeof(plain));
    ck_assert_str_eq(th_str(it, "etag"), etag);
    ck_assert_str_ne(etag, plain);
    cJSON_Delete(doc);
}
END_TEST

/* The second root: folders, hidden names, other files, a symlink out, a folder link, a
 * name the first root shadows. */
START_TEST(test_second_root)
{
    char p[512], q[512], etag[80];
    cJSON *doc;
    const cJSON *it;

    snprintf(p, sizeof(p), "%s/team", T.root2);
    ck_assert_int_eq(mkdir(p, 0755), 0);
    snprintf(p, sizeof(p), "%s/team/a.pt2", T.root2);
    th_copy_file("tests/fixtures/cpu_x86_64.pt2", p);
    snprintf(p, sizeof(p), "%s/team/.hidden.pt2", T.root2);
    th_copy_file("tests/fixtures/cpu_x86_64.pt2", p);
    snprintf(p, sizeof(p), "%s/team/notes.txt", T.root2);
    th_copy_file("tests/fixtures/cpu_x86_64.pt2", p);
    snprintf(p, sizeof(p), "%s/cuda_sm90a_v8.pt2", T.root2);
    th_copy_file("tests/fixtures/cpu_x86_64.pt2", p);
    snprintf(p, sizeof(p), "%s/out.pt2", T.root2);
    ck_assert_int_eq(symlink("/etc/hostname", p), 0);
    snprintf(p, sizeof(p), "%s/team/loop", T.root2);
    snprintf(q, sizeof(q), "%s/team", T.root2);
    ck_assert_int_eq(symlink(q, p), 0);

    doc = get_json("/v1/packages?prefix=team/");
    ck_assert_int_eq(cJSON_GetArraySize(items_of(doc)), 1);
    it = cJSON_GetArrayItem(items_of(doc), 0);
    ck_assert_str_eq(th_str(it, "name"), "team/a.pt2");
    ck_assert_str_eq(th_str(it, "targets"), "cpu x86_64 AVX-512");
    th_etag_of(T.base, "/v1/inspect?path=team/a.pt2", etag, sizeof(etag));
    ck_assert_str_eq(th_str(it, "etag"), etag);
    cJSON_Delete(doc);

    doc = get_json("/v1/packages?limit=1000");
    /* Shadowed by the first root, as ?path= resolves it: listed once, as the first root's. */
    ck_assert_int_eq(count_named(doc, "cuda_sm90a_v8.pt2"), 1);
    ck_assert_str_eq(th_str(item_named(doc, "cuda_sm90a_v8.pt2"), "device"), "cuda");
    it = item_named(doc, "out.pt2");
    ck_assert_ptr_nonnull(it);
    ck_assert_str_eq(th_str(it, "type"), "https://pt2scope.dev/problems/outside-root");
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(it, "size")));
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(it, "mtime")));
    ck_assert_int_eq(cJSON_GetArraySize(items_of(doc)), fixture_packages() + 2);
    cJSON_Delete(doc);
}
END_TEST

/* Only a page's packages are opened, and through the cache /v1/inspect uses. */
START_TEST(test_opens_only_the_page)
{
    cJSON *doc = get_json("/v1/packages?limit=3");
    struct th_resp r;
    char path[256];

    ck_assert_uint_eq(metric("pt2scope_cache_misses_total"), 3);
    /* broken_bad_aoti_json, broken_bad_elf and broken_bad_json all open as archives and are
     * kept; the first is refused afterwards, when its wrapper metadata is read */
    ck_assert_uint_eq(metric("pt2scope_cache_entries"), 3);
    snprintf(path, sizeof(path), "/v1/arch?path=%s",
             th_str(cJSON_GetArrayItem(items_of(doc), 0), "name"));
    th_get(T.base, path, &r);
    ck_assert_int_eq(r.status, 200);
    th_resp_free(&r);
    ck_assert_uint_eq(metric("pt2scope_cache_hits_total"), 1);
    cJSON_Delete(doc);
    /* nocache: nothing looked up, nothing kept. */
    doc = get_json("/v1/packages?limit=3&nocache=1&prefix=cpu");
    ck_assert_uint_eq(metric("pt2scope_cache_misses_total"), 3);
    ck_assert_uint_eq(metric("pt2scope_cache_entries"), 3);
    cJSON_Delete(doc);
}
END_TEST

/* 10,000 packages: every one listed once, page by page; a page opens only its own. */
START_TEST(test_ten_thousand)
{
    static const uint8_t empty_zip[22] = {0x50, 0x4b, 0x05, 0x06};
    char p[512], path[256], cursor[128] = "";
    cJSON *doc;
    const cJSON *next;
    int i, seen = 0, pages = 0;
    unsigned long long opened;

    snprintf(p, sizeof(p), "%s/big", T.root2);
    ck_assert_int_eq(mkdir(p, 0755), 0);
    for (i = 0; i < 10000; i++) {
        int fd;

        snprintf(p, sizeof(p), "%s/big/m%05d.pt2", T.root2, i);
        fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(write(fd, empty_zip, sizeof(empty_zip)), (int)sizeof(empty_zip));
        close(fd);
    }
    doc = get_json("/v1/packages?limit=10&prefix=big/&nocache=1");
    ck_assert_int_eq(cJSON_GetArraySize(items_of(doc)), 10);
    ck_assert_str_eq(th_str(cJSON_GetArrayItem(items_of(doc), 9), "name"), "big/m00009.pt2");
    ck_assert_str_eq(th_str(cJSON_GetArrayItem(items_of(doc), 9), "type"),
                     "https://pt2scope.dev/problems/not-a-pt2");
    cJSON_Delete(doc);
    opened = metric("pt2scope_inspect_duration_seconds_count");
    ck_assert_uint_eq(opened, 0); /* none of them is a package: nothing opened completely */
    do {
        snprintf(path, sizeof(path), "/v1/packages?limit=1000&prefix=big/&nocache=1%s%s",
                 cursor[0] ? "&cursor=" : "", cursor);
        doc = get_json(path);
        snprintf(p, sizeof(p), "big/m%05d.pt2", seen);
        ck_assert_str_eq(th_str(cJSON_GetArrayItem(items_of(doc), 0), "name"), p);
        seen += cJSON_GetArraySize(items_of(doc));
        next = cJSON_GetObjectItemCaseSensitive(doc, "next");
        if (cJSON_IsString(next))
            snprintf(cursor, sizeof(cursor), "%s", next->valuestring);
        pages++;
        cJSON_Delete(doc);
    } while (cJSON_IsString(next) && pages < 20);
    ck_assert_int_eq(seen, 10000);
    ck_assert_int_eq(pages, 10);
}
END_TEST

/* total counts every package with the prefix, whatever the page; the page has a strong ETag. */
START_TEST(test_total_and_etag)
{
    const char *inm[2] = {NULL, NULL};
    char e1[80], e2[80], e3[80], hdr[120], p[512];
    struct th_req rq = {.method = "GET", .path = "/v1/packages?limit=2"};
    struct th_resp r;
    cJSON *doc;

    doc = get_json("/v1/packages?limit=2");
    ck_assert_int_eq(cJSON_GetArraySize(items_of(doc)), 2);
    ck_assert(th_num(doc, "total") == fixture_packages());
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "warnings")), 0);
    snprintf(p, sizeof(p), "/v1/packages?limit=2&cursor=%s", th_str(doc, "next"));
    cJSON_Delete(doc);
    doc = get_json(p); /* the second page: the same total */
    ck_assert(th_num(doc, "total") == fixture_packages());
    cJSON_Delete(doc);
    doc = get_json("/v1/packages?prefix=cuda_");
    ck_assert(th_num(doc, "total") == count_prefixed("cuda_"));
    ck_assert_int_eq(cJSON_GetArraySize(items_of(doc)), count_prefixed("cuda_"));
    cJSON_Delete(doc);

    th_etag_of(T.base, "/v1/packages?limit=2", e1, sizeof(e1));
    th_etag_of(T.base, "/v1/packages?limit=2", e2, sizeof(e2));
    ck_assert_str_eq(e1, e2); /* the same page, the same tag */
    th_etag_of(T.base, "/v1/packages?limit=3", e3, sizeof(e3));
    ck_assert_str_ne(e1, e3);
    snprintf(hdr, sizeof(hdr), "If-None-Match: %s", e1);
    inm[0] = hdr;
    rq.headers = inm;
    th_do(T.base, &rq, &r);
    ck_assert_int_eq(r.status, 304);
    ck_assert_uint_eq(r.len, 0);
    ck_assert(th_header(&r, "ETag", e2, sizeof(e2)));
    ck_assert_str_eq(e2, e1);
    th_resp_free(&r);

    /* A package more (even past the page) changes the total, so the tag. */
    snprintf(p, sizeof(p), "%s/zz_new.pt2", T.root2);
    th_copy_file("tests/fixtures/cpu_x86_64.pt2", p);
    th_do(T.base, &rq, &r);
    ck_assert_int_eq(r.status, 200);
    doc = th_json(&r);
    ck_assert(th_num(doc, "total") == fixture_packages() + 1);
    cJSON_Delete(doc);
    ck_assert(th_header(&r, "ETag", e3, sizeof(e3)));
    ck_assert_str_ne(e3, e1);
    th_resp_free(&r);
}
END_TEST

/* Without a model root the empty listing says why; a root that does not open, too. */
START_TEST(test_listing_warnings)
{
    cJSON *doc;

    th_stop(&T);
    th_config(&T);
    T.cfg.n_roots = 0;
    th_start(&T);
    doc = get_json("/v1/packages");
    ck_assert_int_eq(cJSON_GetArraySize(items_of(doc)), 0);
    ck_assert(th_num(doc, "total") == 0);
    ck_assert_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "warnings"), 0)->valuestring,
                     "no model root configured: start pt2scoped with --model-root DIR "
                     "(PT2SCOPE_MODEL_ROOT) to list packages");
    cJSON_Delete(doc);

    th_stop(&T);
    th_config(&T);
    th_rm_tree(T.root2); /* gone after the start's check */
    th_start(&T);
    doc = get_json("/v1/packages?limit=1");
    ck_assert(th_num(doc, "total") == fixture_packages());
    ck_assert_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "warnings"), 0)->valuestring,
                     "1 of 2 model roots cannot be opened (missing or not readable); their "
                     "packages are not listed");
    cJSON_Delete(doc);
}
END_TEST

START_TEST(test_bad_arguments)
{
    struct th_resp r;

    th_get(T.base, "/v1/packages?limit=0", &r);
    th_assert_problem(&r, 400, "bad-request", "limit '0' is not a whole number from 1 to 1000");
    th_resp_free(&r);
    th_get(T.base, "/v1/packages?limit=1001", &r);
    th_assert_problem(&r, 400, "bad-request", "limit '1001' is not a whole number from 1 to 1000");
    th_resp_free(&r);
    th_get(T.base, "/v1/packages?limit=5&limit=6", &r);
    th_assert_problem(&r, 400, "bad-request", "limit given more than once");
    th_resp_free(&r);
    th_get(T.base, "/v1/packages?cursor=not*base64", &r);
    th_assert_problem(&r, 400, "bad-request",
                      "cursor is not one this server gave out (use the \"next\" of a page)");
    th_resp_free(&r);
    /* Leftover bits: "Yr" and "Yq" would both be "b". */
    th_get(T.base, "/v1/packages?cursor=Yr", &r);
    ck_assert_int_eq(r.status, 400);
    th_resp_free(&r);
    th_get(T.base, "/v1/packages?cursor=AA", &r); /* a NUL byte */
    ck_assert_int_eq(r.status, 400);
    th_resp_free(&r);
    th_get(T.base, "/v1/packages?target=H999", &r);
    ck_assert_int_eq(r.status, 400);
    th_resp_free(&r);
    th_get(T.base, "/v1/packages?cursor=Yg", &r); /* "b": valid, the page after "b" */
    ck_assert_int_eq(r.status, 200);
    th_resp_free(&r);
}
END_TEST

START_TEST(test_methods)
{
    struct th_req head = {.method = "HEAD", .path = "/v1/packages"};
    struct th_req post = {.method = "POST", .path = "/v1/packages"};
    struct th_resp r;
    char allow[64];

    th_do(T.base, &head, &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_uint_eq(r.len, 0);
    th_resp_free(&r);
    th_do(T.base, &post, &r);
    th_assert_problem(&r, 405, "method-not-allowed", "see the Allow header");
    ck_assert(th_header(&r, "Allow", allow, sizeof(allow)));
    ck_assert_str_eq(allow, "GET, HEAD, OPTIONS");
    th_resp_free(&r);
}
END_TEST

START_TEST(test_page)
{
    struct th_resp r;
    char ct[128];
    size_t len = 0;
    uint8_t *want = tu_read_file("service/daemon/page/index.html", &len);

    ck_assert_ptr_nonnull(want);
    th_get(T.base, "/", &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert(th_header(&r, "Content-Type", ct, sizeof(ct)));
    ck_assert_str_eq(ct, "text/html; charset=utf-8");
    ck_assert_uint_eq(r.len, len);
    ck_assert_int_eq(memcmp(r.body, want, len), 0);
    th_resp_free(&r);
    free(want);
    /* The page's state is in its query; the server ignores it. */
    th_get(T.base, "/?path=cuda_sm90a_v8.pt2&target=H100", &r);
    ck_assert_int_eq(r.status, 200);
    th_resp_free(&r);

    want = tu_read_file("service/daemon/page/app.js", &len);
    th_get(T.base, "/page/app.js", &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert(th_header(&r, "Content-Type", ct, sizeof(ct)));
    ck_assert_str_eq(ct, "text/javascript; charset=utf-8");
    ck_assert_uint_eq(r.len, len);
    th_resp_free(&r);
    free(want);
    th_get(T.base, "/page/style.css", &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert(th_header(&r, "Content-Type", ct, sizeof(ct)));
    ck_assert_str_eq(ct, "text/css; charset=utf-8");
    th_resp_free(&r);
    th_get(T.base, "/page/missing.js", &r);
    th_assert_problem(&r, 404, "not-found", "no such endpoint");
    th_resp_free(&r);
    th_get(T.base, "/index.html", &r);
    th_assert_problem(&r, 404, "not-found", "no such endpoint");
    th_resp_free(&r);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("http_packages");
    TCase *tc = tcase_create("packages");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_first_page_items);
    tcase_add_test(tc, test_pages_and_cursor);
    tcase_add_test(tc, test_prefix);
    tcase_add_test(tc, test_contains);
    tcase_add_test(tc, test_targets);
    tcase_add_test(tc, test_second_root);
    tcase_add_test(tc, test_opens_only_the_page);
    tcase_add_test(tc, test_ten_thousand);
    tcase_add_test(tc, test_total_and_etag);
    tcase_add_test(tc, test_listing_warnings);
    tcase_add_test(tc, test_bad_arguments);
    tcase_add_test(tc, test_methods);
    tcase_add_test(tc, test_page);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return th_main("http_packages", "cuda_sm90a_v8.pt2", suite);
}
