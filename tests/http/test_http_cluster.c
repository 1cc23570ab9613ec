/*
 * test_http_cluster.c - compatibility across nodes: POST /v1/compatibility
 * with Kubernetes node objects, and GET /v1/cluster/compatibility fanning
 * out to peer daemons.
 *
 * The cluster tests start real pt2scoped processes ($(BUILD)/pt2scoped) on
 * 127.0.0.1 with ephemeral ports (--port-file), each with its own stand-in
 * driver device list, plus a port nothing listens on and a socket that
 * never answers; the aggregating daemon runs in this process. Children get
 * PR_SET_PDEATHSIG, are stopped with SIGTERM (SIGKILL after 5 s) and are
 * always reaped, also when an assertion ends the test early (atexit).
 */
#include "http_harness.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "pt2_cpu.h"
#include "pt2_cuda.h"
#include "pt2scope.h"

extern char **environ;

#define H100 "NVIDIA H100 80GB HBM3,9.0,132,85899345920"
#define A100 "NVIDIA A100-SXM4-40GB,8.0,108,42949672960"

/* GFD labels of three nodes, as `kubectl get nodes -o json` prints them. */
#define NODE_H100                                                                                  \
    "{\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"gpu-h100-0\", "       \
    "\"labels\": {\"kubernetes.io/arch\": \"amd64\", \"kubernetes.io/os\": \"linux\", "            \
    "\"nvidia.com/gpu.product\": \"NVIDIA-H100-80GB-HBM3\", \"nvidia.com/gpu.count\": \"8\", "     \
    "\"nvidia.com/gpu.compute.major\": \"9\", \"nvidia.com/gpu.compute.minor\": \"0\", "           \
    "\"nvidia.com/cuda.driver.major\": \"570\", \"nvidia.com/cuda.driver.minor\": \"124\", "       \
    "\"nvidia.com/cuda.driver.rev\": \"06\", \"nvidia.com/cuda.runtime.major\": \"12\", "          \
    "\"nvidia.com/cuda.runtime.minor\": \"8\"}}}"
#define NODE_A100                                                                                  \
    "{\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"gpu-a100-0\", "       \
    "\"labels\": {\"kubernetes.io/arch\": \"amd64\", \"kubernetes.io/os\": \"linux\", "            \
    "\"nvidia.com/gpu.product\": \"A100-SXM4-40GB\", \"nvidia.com/gpu.count\": \"4\", "            \
    "\"nvidia.com/gpu.compute.major\": \"8\", \"nvidia.com/gpu.compute.minor\": \"0\", "           \
    "\"nvidia.com/cuda.driver-version.full\": \"550.54.15\", "                                     \
    "\"nvidia.com/cuda.runtime-version.full\": \"12.4\"}}}"
#define NODE_ARM                                                                                   \
    "{\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"cpu-arm-0\", "        \
    "\"labels\": {\"kubernetes.io/arch\": \"arm64\", \"kubernetes.io/os\": \"linux\"}}}"
#define NODE_LIST                                                                                  \
    "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [" NODE_H100 ", " NODE_A100           \
    ", " NODE_ARM "]}"

#define CPU_AVX512_UNKNOWN                                                                         \
    "package is a Linux x86_64 shared object; this node is Linux x86_64; it needs AVX-512 "        \
    "(avx512f, avx512dq, avx512vl, avx512bw, fma), this node's CPU features are unknown; built "   \
    "with -march=native, so it may also use other instructions of the build host's CPU"

static struct th_server T;

/* ---- POST /v1/compatibility ------------------------------------------------- */

static void setup(void)
{
    th_config(&T);
    th_start(&T);
}

static void teardown(void)
{
    th_stop(&T);
}

static cJSON *post_json(const char *body, long want_status, struct th_resp *r)
{
    struct th_req rq = {.method = "POST",
                        .path = "/v1/compatibility",
                        .body = body,
                        .body_len = strlen(body),
                        .ctype = "application/json"};

    th_do(T.base, &rq, r);
    ck_assert_msg(r->status == want_status, "HTTP %ld: %s", r->status, r->body);
    return want_status == 200 ? th_json(r) : NULL;
}

static void assert_node(const cJSON *n, const char *name, const char *verdict, const char *reason)
{
    ck_assert_str_eq(th_str(n, "name"), name);
    ck_assert_str_eq(th_str(n, "verdict"), verdict);
    ck_assert_str_eq(th_str(n, "reason"), reason);
}

static void assert_summary(const cJSON *doc, int total, int ok, int jit, int bad)
{
    const cJSON *s = cJSON_GetObjectItem(doc, "summary");

    ck_assert(th_num(s, "total") == total);
    ck_assert(th_num(s, "compatible") == ok);
    ck_assert(th_num(s, "compatible-ptx-jit") == jit);
    ck_assert(th_num(s, "incompatible") == bad);
}

/* The three nodes and sm_90a v8 cubins: the H100's driver (CUDA 12.8) is too old. */
static void assert_cuda_verdicts(const cJSON *doc)
{
    const cJSON *nodes = cJSON_GetObjectItem(doc, "nodes"), *gpu;

    ck_assert_int_eq(cJSON_GetArraySize(nodes), 3);
    assert_node(cJSON_GetArrayItem(nodes, 0), "gpu-h100-0", "incompatible",
                "sm_90a cubins are built with CUDA 13 (ELF ABI v8) and need a CUDA 13.0+ "
                "driver; this driver supports CUDA 12.8");
    gpu = cJSON_GetObjectItem(cJSON_GetArrayItem(nodes, 0), "gpu");
    ck_assert_str_eq(th_str(gpu, "product"), "NVIDIA-H100-80GB-HBM3");
    ck_assert_str_eq(th_str(gpu, "compute_capability"), "9.0");
    ck_assert(th_num(gpu, "count") == 8);
    ck_assert(th_num(gpu, "driver_cuda_version") == 12080);
    ck_assert_str_eq(th_str(gpu, "driver_version"), "570.124.06");
    ck_assert_str_eq(th_str(cJSON_GetArrayItem(nodes, 0), "arch"), "amd64");
    assert_node(cJSON_GetArrayItem(nodes, 1), "gpu-a100-0", "incompatible",
                "kernels are sm_90a only; A100-SXM4-40GB is 8.0");
    assert_node(cJSON_GetArrayItem(nodes, 2), "cpu-arm-0", "incompatible",
                "the package needs an NVIDIA GPU (sm_90a); this node has none: no "
                "nvidia.com/gpu.* labels; cpu: package is a Linux x86_64 shared object; this "
                "node is Linux aarch64");
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetArrayItem(nodes, 2), "gpu")));
    ck_assert_str_eq(th_str(cJSON_GetArrayItem(nodes, 2), "arch"), "arm64");
    assert_summary(doc, 3, 0, 0, 3);
}

START_TEST(test_compat_json_cuda_package)
{
    struct th_resp r;
    cJSON *doc = post_json("{\"path\": \"cuda_sm90a_v8.pt2\", \"nodes\": " NODE_LIST "}", 200, &r);

    assert_cuda_verdicts(doc);
    cJSON_Delete(doc);
    th_resp_free(&r);
}
END_TEST

START_TEST(test_compat_json_cpu_package)
{
    struct th_resp r;
    cJSON *doc = post_json("{\"path\": \"cpu_x86_64.pt2\", \"nodes\": " NODE_LIST "}", 200, &r);
    const cJSON *nodes = cJSON_GetObjectItem(doc, "nodes");

    assert_node(cJSON_GetArrayItem(nodes, 0), "gpu-h100-0", "compatible",
                "cpu: " CPU_AVX512_UNKNOWN);
    assert_node(cJSON_GetArrayItem(nodes, 1), "gpu-a100-0", "compatible",
                "cpu: " CPU_AVX512_UNKNOWN);
    assert_node(cJSON_GetArrayItem(nodes, 2), "cpu-arm-0", "incompatible",
                "cpu: package is a Linux x86_64 shared object; this node is Linux aarch64");
    assert_summary(doc, 3, 2, 0, 1);
    cJSON_Delete(doc);
    th_resp_free(&r);
}
END_TEST

START_TEST(test_compat_json_node_array_and_targets_ignored)
{
    struct th_resp r;
    cJSON *doc = post_json("{\"nodes\": [" NODE_ARM "], \"path\": \"cpu_aarch64.pt2\"}", 200, &r);
    const cJSON *nodes = cJSON_GetObjectItem(doc, "nodes");

    ck_assert_int_eq(cJSON_GetArraySize(nodes), 1);
    ck_assert_str_eq(th_str(cJSON_GetArrayItem(nodes, 0), "verdict"), "compatible");
    assert_summary(doc, 1, 1, 0, 0);
    cJSON_Delete(doc);
    th_resp_free(&r);
}
END_TEST

/* A multipart body with parts `nodes` (JSON text) and `file` (the package). */
static void post_multipart(const char *fixture, const char *nodes, struct th_resp *r)
{
    char p[256], url[256];
    CURL *c = curl_easy_init();
    curl_mime *mime = curl_mime_init(c);
    curl_mimepart *part;

    part = curl_mime_addpart(mime);
    curl_mime_name(part, "nodes");
    curl_mime_type(part, "application/json");
    curl_mime_data(part, nodes, CURL_ZERO_TERMINATED);
    if (fixture != NULL) {
        part = curl_mime_addpart(mime);
        curl_mime_name(part, "file");
        curl_mime_filedata(part, tu_fixture(fixture, p, sizeof(p)));
    }
    memset(r, 0, sizeof(*r));
    snprintf(url, sizeof(url), "%s/v1/compatibility", T.base);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_MIMEPOST, mime);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, th_on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, th_on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
    ck_assert_int_eq(curl_easy_perform(c), CURLE_OK);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
    curl_mime_free(mime);
    curl_easy_cleanup(c);
    if (r->body == NULL)
        r->body = calloc(1, 1);
}

START_TEST(test_compat_multipart_upload)
{
    struct th_resp r;
    cJSON *doc;

    post_multipart("cuda_sm90a_v8.pt2", NODE_LIST, &r);
    ck_assert_msg(r.status == 200, "HTTP %ld: %s", r.status, r.body);
    doc = th_json(&r);
    assert_cuda_verdicts(doc);
    cJSON_Delete(doc);
    th_resp_free(&r);

    post_multipart(NULL, NODE_LIST, &r);
    th_assert_problem(&r, 400, "bad-request", "multipart/form-data body has no 'file' field");
    th_resp_free(&r);
    post_multipart("cuda_sm90a_v8.pt2", "{\"kind\": \"Pod\"}", &r);
    th_assert_problem(&r, 400, "bad-request",
                      "nodes: expected a NodeList ({\"items\": [...]}), an array of Node objects "
                      "or one Node object");
    th_resp_free(&r);
}
END_TEST

START_TEST(test_compat_bad_requests)
{
    struct th_req rq = {.method = "POST", .path = "/v1/compatibility"};
    struct th_resp r;

    post_json("{\"path\": \"cuda_sm90a_v8.pt2\"}", 400, &r);
    th_assert_problem(&r, 400, "bad-request",
                      "name the nodes with a \"nodes\" member (a NodeList or an array of Node "
                      "objects)");
    th_resp_free(&r);
    post_json("{\"nodes\": []}", 400, &r);
    th_assert_problem(&r, 400, "bad-request",
                      "name a package with a JSON body {\"path\": ..., \"nodes\": ...} or upload "
                      "it as multipart/form-data with parts 'file' and 'nodes'");
    th_resp_free(&r);
    post_json("{\"path\": \"cuda_sm90a_v8.pt2\", \"nodes\": [{\"metadata\": {}}]}", 400, &r);
    th_assert_problem(&r, 400, "bad-request", "nodes[0]: metadata.name missing");
    th_resp_free(&r);
    post_json("{\"path\": \"missing.pt2\", \"nodes\": []}", 404, &r);
    th_resp_free(&r);

    /* Uploads come as multipart only: there is nowhere to put the nodes otherwise. */
    rq.body = "PK";
    rq.body_len = 2;
    rq.ctype = "application/octet-stream";
    th_do(T.base, &rq, &r);
    th_assert_problem(&r, 415, "unsupported-media-type",
                      "POST /v1/compatibility takes application/json {\"path\", \"nodes\"} or "
                      "multipart/form-data with parts 'file' and 'nodes'");
    th_resp_free(&r);

    th_get(T.base, "/v1/compatibility?path=cuda_sm90a_v8.pt2", &r);
    th_assert_problem(&r, 405, "method-not-allowed", "see the Allow header");
    th_resp_free(&r);
}
END_TEST

/* JSON text of `n` small nodes (caller frees). */
static char *many_nodes(size_t n, size_t *len)
{
    static const char node[] = "{\"metadata\": {\"name\": \"n\"}}";
    size_t cap = n * sizeof(node) + 64, off, i;
    char *t = malloc(cap);

    ck_assert_ptr_nonnull(t);
    off = (size_t)snprintf(t, cap, "{\"path\": \"cpu_x86_64.pt2\", \"nodes\": [");
    for (i = 0; i < n; i++) {
        memcpy(t + off, node, sizeof(node) - 1);
        off += sizeof(node) - 1;
        t[off++] = i + 1 < n ? ',' : ']';
    }
    t[off++] = '}';
    t[off] = '\0';
    *len = off;
    return t;
}

START_TEST(test_compat_caps)
{
    struct th_req rq = {.method = "POST", .path = "/v1/compatibility", .ctype = "application/json"};
    struct th_resp r;
    size_t len;
    char *body = many_nodes(10000, &len);
    cJSON *doc;

    /* 10,000 nodes are fine (one check per kind of node); without labels their
     * architecture is unknown, so the CPU package is not ruled out. */
    rq.body = body;
    rq.body_len = len;
    th_do(T.base, &rq, &r);
    ck_assert_msg(r.status == 200, "HTTP %ld: %.300s", r.status, r.body);
    doc = th_json(&r);
    assert_summary(doc, 10000, 10000, 0, 0);
    cJSON_Delete(doc);
    th_resp_free(&r);
    free(body);

    /* ...10,001 are not. */
    body = many_nodes(10001, &len);
    rq.body = body;
    rq.body_len = len;
    th_do(T.base, &rq, &r);
    th_assert_problem(&r, 413, "too-large", "nodes: more than 10000 nodes");
    th_resp_free(&r);
    free(body);

    /* A body over 16 MiB is refused from its Content-Length. */
    len = (16u << 20) + 1;
    body = malloc(len);
    ck_assert_ptr_nonnull(body);
    memset(body, ' ', len);
    rq.body = body;
    rq.body_len = len;
    th_do(T.base, &rq, &r);
    th_assert_problem(&r, 413, "too-large",
                      "request body of 16777217 bytes exceeds the 16777216-byte limit");
    th_resp_free(&r);
    free(body);
}
END_TEST

/* ---- GET /v1/cluster/compatibility -------------------------------------------- */

#define MAX_CHILDREN 4

struct child {
    pid_t pid;
    unsigned port;
    char dir[64];
};

static struct child kids[MAX_CHILDREN];
static size_t nkids;

/* SIGTERM, then SIGKILL after 5 s; returns the wait status (-1 when nothing ran). */
static int stop_child(struct child *c)
{
    int i, st = -1;

    if (c->pid <= 0)
        return -1;
    kill(c->pid, SIGTERM);
    for (i = 0; i < 50; i++) {
        if (waitpid(c->pid, &st, WNOHANG) == c->pid) {
            c->pid = 0;
            break;
        }
        th_sleep_ms(100);
    }
    if (c->pid > 0) {
        kill(c->pid, SIGKILL);
        waitpid(c->pid, &st, 0);
        c->pid = 0;
    }
    return st;
}

/* atexit: a test that ended early still leaves no process behind. */
static void stop_children(void)
{
    size_t i;

    for (i = 0; i < nkids; i++) {
        stop_child(&kids[i]);
        th_rm_tree(kids[i].dir);
    }
    nkids = 0;
}

/* Teardown: each daemon must drain and exit 0 (a sanitizer report makes it fail). */
static void stop_children_checked(void)
{
    char log[128], msg[512];
    size_t i, n = nkids;
    int st[MAX_CHILDREN];

    for (i = 0; i < n; i++)
        st[i] = stop_child(&kids[i]);
    for (i = 0; i < n; i++) {
        if (!(WIFEXITED(st[i]) && WEXITSTATUS(st[i]) == 0)) {
            size_t len = 0;
            char *text;

            snprintf(log, sizeof(log), "%s/log", kids[i].dir);
            text = (char *)tu_read_file(log, &len);
            snprintf(msg, sizeof(msg), "%.400s", text != NULL ? text : "(no log)");
            free(text);
            stop_children();
            ck_abort_msg("peer daemon %zu ended with status 0x%x: %s", i, (unsigned)st[i], msg);
        }
    }
    stop_children();
}

/* Start pt2scoped with the stand-in driver showing `devices`; wait for its port. */
static unsigned spawn_daemon(const char *node_name, const char *devices, const char *driver)
{
    struct child *c = &kids[nkids];
    char bin[512], lib[512], portfile[128], logfile[128], envbuf[5][600];
    char *argv[12], *envp[256];
    size_t i, ne = 0;
    int k;

    ck_assert_uint_lt(nkids, MAX_CHILDREN);
    th_daemon_bin(bin, sizeof(bin), 1); /* records its answers during the contract stage */
    snprintf(lib, sizeof(lib), "%s/fakecuda/libcuda.so.1", tu_build_dir());
    if (!tu_exists(bin) || !tu_exists(lib))
        ck_abort_msg("run make %s %s first", bin, lib);
    snprintf(c->dir, sizeof(c->dir), "/tmp/pt2d-peer-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(c->dir));
    snprintf(portfile, sizeof(portfile), "%s/port", c->dir);
    snprintf(logfile, sizeof(logfile), "%s/log", c->dir);

    /* Our environment minus anything that would configure the child, plus its own. */
    for (i = 0; environ[i] != NULL && ne < 240; i++)
        if ((strncmp(environ[i], "PT2SCOPE_", 9) != 0 &&
             strncmp(environ[i], "CUDA_VISIBLE_DEVICES=", 21) != 0) ||
            strncmp(environ[i], "PT2SCOPE_RECORD_DIR=", 20) == 0) /* contract recording */
            envp[ne++] = environ[i];
    snprintf(envbuf[0], sizeof(envbuf[0]), "PT2SCOPE_LIBCUDA=%s", lib);
    snprintf(envbuf[1], sizeof(envbuf[1]), "PT2SCOPE_FAKECUDA_DEVICES=%s", devices);
    snprintf(envbuf[2], sizeof(envbuf[2]), "PT2SCOPE_FAKECUDA_DRIVER=%s", driver);
    snprintf(envbuf[3], sizeof(envbuf[3]), "PT2SCOPE_NODE_NAME=%s", node_name);
    snprintf(envbuf[4], sizeof(envbuf[4]), "ASAN_OPTIONS=detect_leaks=1");
    for (k = 0; k < 5; k++)
        envp[ne++] = envbuf[k];
    envp[ne] = NULL;
    argv[0] = bin;
    argv[1] = "--listen";
    argv[2] = "127.0.0.1:0";
    argv[3] = "--port-file";
    argv[4] = portfile;
    argv[5] = "--model-root";
    argv[6] = "tests/fixtures";
    argv[7] = "--workers";
    argv[8] = "2";
    argv[9] = NULL;

    c->pid = fork();
    ck_assert_int_ge(c->pid, 0);
    if (c->pid == 0) {
        int fd = open(logfile, O_WRONLY | O_CREAT | O_TRUNC, 0600);

        /* Never outlive the test process, whatever happens to it. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execve(bin, argv, envp);
        _exit(127);
    }
    nkids++;
    for (k = 0; k < 200; k++) {
        size_t len;
        char *text = (char *)tu_read_file(portfile, &len);
        int st;

        if (text != NULL) {
            c->port = (unsigned)strtoul(text, NULL, 10);
            free(text);
            if (c->port > 0)
                return c->port;
        }
        if (waitpid(c->pid, &st, WNOHANG) == c->pid) {
            c->pid = 0;
            ck_abort_msg("pt2scoped exited early (see %s)", logfile);
        }
        th_sleep_ms(50);
    }
    ck_abort_msg("pt2scoped did not write %s within 10 s", portfile);
    return 0;
}

/* A loopback port with nothing listening on it. */
static unsigned dead_port(void)
{
    struct sockaddr_in a = {0};
    socklen_t len = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    unsigned port;

    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    port = ntohs(a.sin_port);
    close(fd);
    return port;
}

/* A loopback socket that accepts connections (in the kernel) and never answers. */
static int silent_listener(unsigned *port)
{
    struct sockaddr_in a = {0};
    socklen_t len = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    ck_assert_int_eq(listen(fd, 8), 0);
    ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    *port = ntohs(a.sin_port);
    return fd;
}

static void cluster_teardown(void)
{
    if (T.srv != NULL)
        th_stop(&T);
    stop_children_checked();
}

/* Start the aggregating daemon in-process with extra flags. */
static void start_aggregator(int argc, char **argv)
{
    struct pt2_error err = {0};

    th_config(&T);
    if (pt2d_config_load(&T.cfg, argc, argv, NULL, &err) != PT2_OK)
        ck_abort_msg("config: %s", err.message);
    th_start(&T);
}

/*
 * The CPU verdict a peer on this machine gives `name` (the peers run here):
 * the package's AVX-512 host code may or may not run on the test machine.
 */
static int host_cpu_verdict(const char *name, char *reason, size_t len)
{
    const char *feats[PT2_CPU_FEATURES_MAX];
    struct pt2_verdict_result v;
    struct pt2_cpu_info cpu;
    struct pt2_error err = {0};
    pt2_package *pkg = NULL;
    char p[256];
    size_t i;

    ck_assert_int_eq(pt2_cpu_probe(&cpu, &err), PT2_OK);
    for (i = 0; i < cpu.nfeatures; i++)
        feats[i] = cpu.features[i];
    ck_assert_int_eq(pt2_package_open_path(&pkg, tu_fixture(name, p, sizeof(p)), NULL, &err),
                     PT2_OK);
    ck_assert_int_eq(pt2_package_check_cpu(pkg, cpu.machine, feats, cpu.nfeatures, &v, &err),
                     PT2_OK);
    pt2_package_free(pkg);
    snprintf(reason, len, "cpu: %s", v.reason);
    return v.verdict;
}

/* A GPU-verdict peer: the worse of the GPU's and this machine's CPU verdict decides. */
static void assert_peer_verdict(const cJSON *p, int gpu, const char *gpu_reason)
{
    char cpu_reason[600];
    int cpu = host_cpu_verdict("cuda_sm90a_v8.pt2", cpu_reason, sizeof(cpu_reason));

    if (cpu > gpu) {
        ck_assert_str_eq(th_str(p, "verdict"), pt2_verdict_name(cpu));
        ck_assert_str_eq(th_str(p, "reason"), cpu_reason);
    } else if (gpu > cpu) {
        ck_assert_str_eq(th_str(p, "verdict"), pt2_verdict_name(gpu));
        ck_assert_str_eq(th_str(p, "reason"), gpu_reason);
    } else { /* a tie names both */
        char both[1200];
        snprintf(both, sizeof(both), "%s; %s", gpu_reason, cpu_reason);
        ck_assert_str_eq(th_str(p, "verdict"), pt2_verdict_name(gpu));
        ck_assert_str_eq(th_str(p, "reason"), both);
    }
}

static const cJSON *peer_at(const cJSON *doc, int i)
{
    return cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "peers"), i);
}

static cJSON *cluster_get(const char *query)
{
    char path[512];
    struct th_resp r;
    cJSON *doc;

    snprintf(path, sizeof(path), "/v1/cluster/compatibility?%s", query);
    th_get(T.base, path, &r);
    ck_assert_msg(r.status == 200, "HTTP %ld: %s", r.status, r.body);
    doc = th_json(&r);
    th_resp_free(&r);
    return doc;
}

START_TEST(test_cluster_three_peers_and_a_dead_one)
{
    char u[4][64], *argv[12], reason[600];
    const cJSON *p, *compat, *node, *sum;
    cJSON *doc;
    unsigned pa, pb, pc, pd;
    int cpu;

    pa = spawn_daemon("node-h100", H100, "13000");
    pb = spawn_daemon("node-a100", A100, "13000");
    pc = spawn_daemon("node-cpu", "", "13000");
    pd = dead_port();
    snprintf(u[0], sizeof(u[0]), "http://127.0.0.1:%u", pa);
    snprintf(u[1], sizeof(u[1]), "http://127.0.0.1:%u/", pb); /* a trailing slash is dropped */
    snprintf(u[2], sizeof(u[2]), "http://127.0.0.1:%u", pc);
    snprintf(u[3], sizeof(u[3]), "http://127.0.0.1:%u", pd);
    argv[0] = "pt2scoped";
    argv[1] = "--peer";
    argv[2] = u[0];
    argv[3] = "--peer";
    argv[4] = u[1];
    argv[5] = "--peer";
    argv[6] = u[2];
    argv[7] = "--peer";
    argv[8] = u[3];
    argv[9] = "--peer-timeout";
    argv[10] = "5";
    argv[11] = NULL;
    start_aggregator(11, argv);

    doc = cluster_get("path=cuda_sm90a_v8.pt2");
    ck_assert_str_eq(th_str(doc, "path"), "cuda_sm90a_v8.pt2");
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(doc, "dns")));
    ck_assert_ptr_null(cJSON_GetObjectItem(doc, "warnings")); /* peers: nothing to explain */
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "peers")), 4);

    /* H100 with a CUDA 13 driver: runs. */
    p = peer_at(doc, 0);
    ck_assert_str_eq(th_str(p, "peer"), u[0]);
    ck_assert_str_eq(th_str(p, "status"), "ok");
    ck_assert(th_num(p, "http_status") == 200);
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(p, "error")));
    node = cJSON_GetObjectItem(p, "node");
    ck_assert_str_eq(th_str(node, "node"), "node-h100");
    ck_assert(th_num(node, "count") == 1);
    ck_assert_str_eq(th_str(cJSON_GetArrayItem(cJSON_GetObjectItem(node, "gpus"), 0), "name"),
                     "NVIDIA H100 80GB HBM3");
    compat = cJSON_GetObjectItem(p, "compatibility");
    ck_assert_int_eq(cJSON_GetArraySize(compat), 2);
    ck_assert_str_eq(th_str(cJSON_GetArrayItem(compat, 0), "target"), "cuda:0");
    ck_assert_str_eq(th_str(cJSON_GetArrayItem(compat, 0), "verdict"), "compatible");
    ck_assert_str_eq(th_str(cJSON_GetArrayItem(compat, 1), "kind"), "cpu");
    assert_peer_verdict(p, PT2_COMPATIBLE,
                        "cuda:0: sm_90a cubin runs on NVIDIA H100 80GB HBM3 (cuda:0)");

    /* A100: the GPU cannot run sm_90a. */
    p = peer_at(doc, 1);
    u[1][strlen(u[1]) - 1] = '\0';
    ck_assert_str_eq(th_str(p, "peer"), u[1]);
    ck_assert_str_eq(th_str(p, "status"), "ok");
    assert_peer_verdict(p, PT2_INCOMPATIBLE,
                        "cuda:0: kernels are sm_90a only; NVIDIA A100-SXM4-40GB (cuda:0) is 8.0");
    ck_assert_str_eq(th_str(cJSON_GetObjectItem(p, "node"), "node"), "node-a100");

    /* No GPU at all. */
    p = peer_at(doc, 2);
    ck_assert_str_eq(th_str(p, "status"), "ok");
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(p, "compatibility")), 1);
    ck_assert_str_eq(th_str(p, "verdict"), "incompatible");
    ck_assert_str_eq(
        th_str(p, "reason"),
        "the package needs an NVIDIA GPU (sm_90a); this node has none: no CUDA devices visible "
        "(CUDA_ERROR_NO_DEVICE)");

    /* Nothing listens there. */
    p = peer_at(doc, 3);
    ck_assert_str_eq(th_str(p, "peer"), u[3]);
    ck_assert_str_eq(th_str(p, "status"), "unreachable");
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(p, "http_status")));
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(p, "node")));
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(p, "compatibility")));
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(p, "verdict")));
    ck_assert_ptr_nonnull(strstr(th_str(p, "error"), "onnect"));

    sum = cJSON_GetObjectItem(doc, "summary");
    ck_assert(th_num(sum, "peers") == 4);
    ck_assert(th_num(sum, "ok") == 3);
    ck_assert(th_num(sum, "unreachable") == 1);
    ck_assert(th_num(sum, "error") == 0);
    cpu = host_cpu_verdict("cuda_sm90a_v8.pt2", reason, sizeof(reason));
    ck_assert(th_num(sum, "compatible") == (cpu == PT2_COMPATIBLE));
    ck_assert(th_num(sum, "compatible-ptx-jit") == (cpu == PT2_COMPATIBLE_PTX_JIT));
    ck_assert(th_num(sum, "incompatible") == 2 + (cpu == PT2_INCOMPATIBLE));
    cJSON_Delete(doc);

    /* Arguments are forwarded: one GPU each, so cuda:1 is a bad device everywhere. */
    doc = cluster_get("path=cuda_sm90a_v8.pt2&device=cuda:1&driver=13.0");
    p = peer_at(doc, 0);
    ck_assert_str_eq(th_str(p, "status"), "error");
    ck_assert(th_num(p, "http_status") == 400);
    ck_assert_str_eq(th_str(p, "error"),
                     "HTTP 400: device cuda:1 not found: 1 CUDA device visible");
    ck_assert_str_eq(th_str(cJSON_GetObjectItem(p, "node"), "node"), "node-h100");
    sum = cJSON_GetObjectItem(doc, "summary");
    ck_assert(th_num(sum, "ok") == 0);
    ck_assert(th_num(sum, "error") == 3);
    cJSON_Delete(doc);

    doc = cluster_get("path=cuda_sm90a_v8.pt2&device=cuda:0");
    p = peer_at(doc, 0);
    compat = cJSON_GetObjectItem(p, "compatibility");
    ck_assert_int_eq(cJSON_GetArraySize(compat), 2); /* the one GPU, then the CPU */
    ck_assert_str_eq(th_str(cJSON_GetArrayItem(compat, 0), "target"), "cuda:0");
    cJSON_Delete(doc);
    doc = cluster_get("path=cuda_sm90a_v8.pt2&target=H100&driver=13.0&platform=linux/arm64");
    p = peer_at(doc, 0);
    compat = cJSON_GetObjectItem(p, "compatibility");
    ck_assert_int_eq(cJSON_GetArraySize(compat), 1);
    ck_assert_str_eq(th_str(cJSON_GetArrayItem(compat, 0), "kind"), "target");
    ck_assert(th_num(cJSON_GetObjectItem(cJSON_GetArrayItem(compat, 0), "device"),
                     "driver_cuda_version") == 13000);
    ck_assert_str_eq(
        th_str(cJSON_GetObjectItem(cJSON_GetArrayItem(compat, 0), "device"), "platform"),
        "linux/arm64");
    cJSON_Delete(doc);

    /* A package the peers do not have. */
    doc = cluster_get("path=missing.pt2");
    p = peer_at(doc, 0);
    ck_assert_str_eq(th_str(p, "status"), "error");
    ck_assert(th_num(p, "http_status") == 404);
    cJSON_Delete(doc);
}
END_TEST

START_TEST(test_cluster_dns_and_timeout)
{
    char port[16], timeout_peer[64], u[64], *argv[12];
    const cJSON *p, *dns;
    unsigned pa, ps;
    int silent;
    cJSON *doc;

    pa = spawn_daemon("node-h100", H100, "13000");
    silent = silent_listener(&ps);
    snprintf(port, sizeof(port), "%u", pa);
    snprintf(timeout_peer, sizeof(timeout_peer), "http://127.0.0.1:%u", ps);
    snprintf(u, sizeof(u), "http://127.0.0.1:%u", pa);
    argv[0] = "pt2scoped";
    argv[1] = "--peers-dns";
    argv[2] = "127.0.0.1"; /* a numeric name: getaddrinfo without a DNS server */
    argv[3] = "--peers-port";
    argv[4] = port;
    argv[5] = "--peer";
    argv[6] = timeout_peer;
    argv[7] = "--peer-timeout";
    argv[8] = "1";
    argv[9] = NULL;
    start_aggregator(9, argv);

    doc = cluster_get("path=cuda_sm90a_v8.pt2");
    dns = cJSON_GetObjectItem(doc, "dns");
    ck_assert_str_eq(th_str(dns, "name"), "127.0.0.1");
    ck_assert(th_num(dns, "port") == pa);
    ck_assert(th_num(dns, "addresses") == 1);
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(dns, "error")));
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "peers")), 2);
    /* Listed peers first, then the resolved ones. */
    p = peer_at(doc, 0);
    ck_assert_str_eq(th_str(p, "peer"), timeout_peer);
    ck_assert_str_eq(th_str(p, "status"), "unreachable");
    ck_assert_ptr_nonnull(strstr(th_str(p, "error"), "timed out"));
    p = peer_at(doc, 1);
    ck_assert_str_eq(th_str(p, "status"), "ok");
    ck_assert_str_eq(th_str(p, "peer"), u);
    assert_peer_verdict(p, PT2_COMPATIBLE,
                        "cuda:0: sm_90a cubin runs on NVIDIA H100 80GB HBM3 (cuda:0)");
    cJSON_Delete(doc);
    close(silent);
}
END_TEST

/* A peer that answers every request with a 9 MiB body (two requests: inspect and node). */
struct big_peer {
    int fd;
    unsigned port;
    pthread_t thread;
};

static void *big_peer_main(void *arg)
{
    static const char head[] = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                               "Content-Length: 9437184\r\nConnection: close\r\n\r\n";
    struct big_peer *bp = arg;
    char buf[16384];
    int served;

    memset(buf, ' ', sizeof(buf));
    for (served = 0; served < 2; served++) {
        struct pollfd pfd = {bp->fd, POLLIN, 0};
        size_t sent = 0;
        int c;

        if (poll(&pfd, 1, 10000) <= 0 || (c = accept(bp->fd, NULL, NULL)) < 0)
            break;
        (void)recv(c, buf, sizeof(buf), 0); /* the request; its content does not matter */
        memset(buf, ' ', sizeof(buf));
        if (send(c, head, sizeof(head) - 1, MSG_NOSIGNAL) > 0)
            while (sent < 9437184u && send(c, buf, sizeof(buf), MSG_NOSIGNAL) > 0)
                sent += sizeof(buf);
        close(c);
    }
    return NULL;
}

START_TEST(test_cluster_peer_body_cap)
{
    struct big_peer bp;
    char url[64], *argv[4];
    const cJSON *p;
    cJSON *doc;

    bp.fd = silent_listener(&bp.port);
    ck_assert_int_eq(pthread_create(&bp.thread, NULL, big_peer_main, &bp), 0);
    snprintf(url, sizeof(url), "http://127.0.0.1:%u", bp.port);
    argv[0] = "pt2scoped";
    argv[1] = "--peer";
    argv[2] = url;
    argv[3] = NULL;
    start_aggregator(3, argv);
    doc = cluster_get("path=cuda_sm90a_v8.pt2");
    p = peer_at(doc, 0);
    ck_assert_str_eq(th_str(p, "status"), "error");
    ck_assert_str_eq(th_str(p, "error"), "response larger than 8388608 bytes");
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(p, "node")));
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(p, "compatibility")));
    ck_assert(th_num(cJSON_GetObjectItem(doc, "summary"), "error") == 1);
    cJSON_Delete(doc);
    pthread_join(bp.thread, NULL);
    close(bp.fd);
}
END_TEST

/* A peer answering both of its requests with a document whose GPU entry lacks a target. */
static void *odd_peer_main(void *arg)
{
    static const char body[] =
        "{\"compatibility\": [{\"kind\": \"gpu\", \"verdict\": \"incompatible\", "
        "\"target\": null, \"reason\": \"made up\"}], \"gpus\": []}";
    struct big_peer *bp = arg;
    char head[256], buf[16384];

    snprintf(head, sizeof(head),
             "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n"
             "Connection: close\r\n\r\n",
             sizeof(body) - 1);
    for (int served = 0; served < 2; served++) {
        struct pollfd pfd = {bp->fd, POLLIN, 0};
        int c;

        if (poll(&pfd, 1, 10000) <= 0 || (c = accept(bp->fd, NULL, NULL)) < 0)
            break;
        (void)recv(c, buf, sizeof(buf), 0);
        if (send(c, head, strlen(head), MSG_NOSIGNAL) > 0)
            (void)send(c, body, sizeof(body) - 1, MSG_NOSIGNAL);
        close(c);
    }
    return NULL;
}

START_TEST(test_cluster_peer_entry_without_target)
{
    struct big_peer bp;
    char url[64], *argv[4];
    const cJSON *p;
    cJSON *doc;

    bp.fd = silent_listener(&bp.port);
    ck_assert_int_eq(pthread_create(&bp.thread, NULL, odd_peer_main, &bp), 0);
    snprintf(url, sizeof(url), "http://127.0.0.1:%u", bp.port);
    argv[0] = "pt2scoped";
    argv[1] = "--peer";
    argv[2] = url;
    argv[3] = NULL;
    start_aggregator(3, argv);
    doc = cluster_get("path=cuda_sm90a_v8.pt2");
    p = peer_at(doc, 0);
    /* Entries that are not our verdicts are dropped; none is left: an error. */
    ck_assert_str_eq(th_str(p, "status"), "error");
    ck_assert_str_eq(th_str(p, "error"), "answer has no valid compatibility entries");
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(p, "compatibility")));
    /* its /v1/node answer is not a node document: not passed on */
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(p, "node")));
    cJSON_Delete(doc);
    pthread_join(bp.thread, NULL);
    close(bp.fd);
}
END_TEST

/*
 * A headless Service lists this pod too: --peers-dns localhost makes the daemon
 * its own peer. With one job worker, the fan-out must not hold that worker, or
 * the daemon cannot answer itself and reports itself unreachable.
 */
START_TEST(test_cluster_self_peer_one_worker)
{
    char *argv[] = {"pt2scoped", "--workers",      "1", "--peers-dns",
                    "localhost", "--peer-timeout", "3", NULL};
    const cJSON *p, *peers;
    char want[64];
    cJSON *doc;
    int found = 0;

    start_aggregator(7, argv);
    snprintf(want, sizeof(want), "http://127.0.0.1:%u", (unsigned)pt2d_server_port(T.srv));
    doc = cluster_get("path=cuda_sm90a_v8.pt2");
    peers = cJSON_GetObjectItem(doc, "peers");
    cJSON_ArrayForEach(p, peers)
    {
        if (strcmp(th_str(p, "peer"), want) != 0)
            continue;
        found = 1;
        ck_assert_str_eq(th_str(p, "status"), "ok");
        ck_assert(!cJSON_IsNull(cJSON_GetObjectItem(p, "node")));
    }
    ck_assert_msg(found, "no peer %s in the answer", want);
    cJSON_Delete(doc);
}
END_TEST

/* Without --peer or --peers-dns the answer is an empty cluster, not an error. */
START_TEST(test_cluster_without_peers_and_without_path)
{
    char *argv[] = {"pt2scoped", NULL};
    struct th_resp r;
    cJSON *doc;

    start_aggregator(1, argv);
    doc = cluster_get("path=cuda_sm90a_v8.pt2");
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(doc, "dns")));
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "peers")), 0);
    ck_assert(th_num(cJSON_GetObjectItem(doc, "summary"), "peers") == 0);
    /* An empty answer says why. */
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "warnings")), 1);
    ck_assert_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "warnings"), 0)->valuestring,
                     "no peers configured: start pt2scoped with --peer URL (PT2SCOPE_PEERS) or "
                     "--peers-dns NAME (PT2SCOPE_PEERS_DNS) to ask other nodes");
    cJSON_Delete(doc);

    th_get(T.base, "/v1/cluster/compatibility", &r);
    th_assert_problem(
        &r, 400, "bad-request",
        "name the package with ?path= (a path under the peers' model roots) or ?url=");
    th_resp_free(&r);
}
END_TEST

static Suite *cluster_suite(void)
{
    Suite *s = suite_create("http_cluster");
    TCase *compat = tcase_create("compatibility");
    TCase *cluster = tcase_create("cluster");

    tcase_add_checked_fixture(compat, setup, teardown);
    tcase_set_timeout(compat, 60);
    tcase_add_test(compat, test_compat_json_cuda_package);
    tcase_add_test(compat, test_compat_json_cpu_package);
    tcase_add_test(compat, test_compat_json_node_array_and_targets_ignored);
    tcase_add_test(compat, test_compat_multipart_upload);
    tcase_add_test(compat, test_compat_bad_requests);
    tcase_add_test(compat, test_compat_caps);
    suite_add_tcase(s, compat);

    tcase_add_checked_fixture(cluster, NULL, cluster_teardown);
    tcase_set_timeout(cluster, 60);
    tcase_add_test(cluster, test_cluster_three_peers_and_a_dead_one);
    tcase_add_test(cluster, test_cluster_dns_and_timeout);
    tcase_add_test(cluster, test_cluster_peer_body_cap);
    tcase_add_test(cluster, test_cluster_peer_entry_without_target);
    tcase_add_test(cluster, test_cluster_self_peer_one_worker);
    tcase_add_test(cluster, test_cluster_without_peers_and_without_path);
    suite_add_tcase(s, cluster);
    return s;
}

int main(void)
{
    /* Children die with a test process that ends early; reap them too. */
    atexit(stop_children);
    return th_main("http_cluster", "cuda_sm90a_v8.pt2", cluster_suite);
}
