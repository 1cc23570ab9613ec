/*
 * test_pt2d_config.c - flags, PT2SCOPE_* variables, precedence, validation
 * messages (they are what an operator sees on stderr), sizes, listen text.
 */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pt2d_config.h"
#include "testutil.h"

static int load(struct pt2d_config *c, char *const *argv, char *const *envp, struct pt2_error *err)
{
    int argc = 0;

    while (argv[argc] != NULL)
        argc++;
    pt2d_config_defaults(c);
    pt2_error_clear(err);
    return pt2d_config_load(c, argc, argv, envp, err);
}

START_TEST(test_defaults)
{
    struct pt2d_config c;

    pt2d_config_defaults(&c);
    ck_assert_str_eq(c.host, "127.0.0.1");
    ck_assert_uint_eq(c.port, 8080);
    ck_assert_uint_eq(c.queue, 64);
    ck_assert_uint_ge(c.workers, 2);
    ck_assert_uint_le(c.workers, 64);
    ck_assert_uint_eq(c.max_upload, 16ull << 30);
    ck_assert_uint_eq(c.request_timeout, 60);
    ck_assert_uint_eq(c.cache_entries, 256);
    ck_assert_uint_eq(c.n_roots, 0);
    ck_assert_uint_eq(c.n_origins, 0);
    ck_assert_str_eq(c.port_file, "");
    ck_assert_str_eq(c.libcuda, "");
    ck_assert_str_eq(c.node_name, "");
    ck_assert_uint_eq(c.n_peers, 0);
    ck_assert_str_eq(c.peers_dns, "");
    ck_assert_uint_eq(c.peers_port, 0);
    ck_assert_uint_eq(c.peer_timeout, 5);
    ck_assert_uint_eq(c.peer_connect_timeout, 2);
    ck_assert_uint_eq(c.access_log_flush_ms, 100);
}
END_TEST

/* The access log's flush interval: 0 (each line at once) up to 10 s, flag or variable. */
START_TEST(test_access_log_flush)
{
    char *const flag[] = {"pt2scoped", "--access-log-flush-ms", "0", NULL};
    char *const none[] = {"pt2scoped", NULL};
    char *const env[] = {"PT2SCOPE_ACCESS_LOG_FLUSH_MS=10000", NULL};
    struct pt2d_config c;
    struct pt2_error err;

    ck_assert_int_eq(load(&c, flag, NULL, &err), PT2_OK);
    ck_assert_uint_eq(c.access_log_flush_ms, 0);
    ck_assert_int_eq(load(&c, none, env, &err), PT2_OK);
    ck_assert_uint_eq(c.access_log_flush_ms, 10000);
}
END_TEST

START_TEST(test_node_and_peer_settings)
{
    struct pt2d_config c;
    struct pt2_error err;
    char *const argv[] = {"pt2scoped",
                          "--libcuda",
                          "/opt/driver/libcuda.so.1",
                          "--node-name=gpu-7",
                          "--peer",
                          "http://10.0.0.7:8080/",
                          "--peer",
                          "https://[fd00::1]:8443",
                          "--peers-dns",
                          "pt2scope-peers.ml.svc.cluster.local",
                          "--peers-port",
                          "9090",
                          "--peer-timeout",
                          "9",
                          "--peer-connect-timeout=3",
                          NULL};
    char *const envp[] = {"PT2SCOPE_PEERS=http://a:1,http://b:2", "PT2SCOPE_NODE_NAME=env-node",
                          NULL};

    ck_assert_int_eq(load(&c, argv, NULL, &err), PT2_OK);
    ck_assert_str_eq(c.libcuda, "/opt/driver/libcuda.so.1");
    ck_assert_str_eq(c.node_name, "gpu-7");
    ck_assert_uint_eq(c.n_peers, 2);
    ck_assert_str_eq(c.peers[0], "http://10.0.0.7:8080");
    ck_assert_str_eq(c.peers[1], "https://[fd00::1]:8443");
    ck_assert_str_eq(c.peers_dns, "pt2scope-peers.ml.svc.cluster.local");
    ck_assert_uint_eq(c.peers_port, 9090);
    ck_assert_uint_eq(c.peer_timeout, 9);
    ck_assert_uint_eq(c.peer_connect_timeout, 3);

    /* The variable's comma list is the whole list unless --peer is given. */
    ck_assert_int_eq(load(&c, (char *const[]){"pt2scoped", NULL}, envp, &err), PT2_OK);
    ck_assert_uint_eq(c.n_peers, 2);
    ck_assert_str_eq(c.peers[0], "http://a:1");
    ck_assert_str_eq(c.peers[1], "http://b:2");
    ck_assert_str_eq(c.node_name, "env-node");
}
END_TEST

START_TEST(test_node_and_peer_errors)
{
    struct pt2d_config c;
    struct pt2_error err;

    ck_assert_int_eq(load(&c, (char *const[]){"pt2scoped", "--peer", "ftp://x", NULL}, NULL, &err),
                     PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "--peer: 'ftp://x' is not a peer URL (http[s]://host[:port])");
    ck_assert_int_eq(
        load(&c, (char *const[]){"pt2scoped", "--peer", "http://a b", NULL}, NULL, &err),
        PT2_ERR_INVALID);
    ck_assert_int_eq(
        load(&c, (char *const[]){"pt2scoped", "--peer", "http://a/?x", NULL}, NULL, &err),
        PT2_ERR_INVALID);
    ck_assert_int_eq(load(&c, (char *const[]){"pt2scoped", "--peer", "///", NULL}, NULL, &err),
                     PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "--peer: '///' is not a peer URL");
    ck_assert_int_eq(load(&c, (char *const[]){"pt2scoped", "--peers-dns", "a;b", NULL}, NULL, &err),
                     PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "--peers-dns: 'a;b' is not a DNS name");
    ck_assert_int_eq(load(&c, (char *const[]){"pt2scoped", "--peers-port", "0", NULL}, NULL, &err),
                     PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "--peers-port: '0' is not an integer in 1..65535");
    ck_assert_int_eq(
        load(&c, (char *const[]){"pt2scoped", "--peer-timeout", "301", NULL}, NULL, &err),
        PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "--peer-timeout: '301' is not an integer in 1..300");
    ck_assert_int_eq(load(&c, (char *const[]){"pt2scoped", "--node-name", "a b", NULL}, NULL, &err),
                     PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "--node-name: 'a b' is not a node name (printable, no spaces)");
    ck_assert_int_eq(load(&c, (char *const[]){"pt2scoped", "--libcuda", "", NULL}, NULL, &err),
                     PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "--libcuda: bad library path ''");
    {
        char lib[300], want[128];

        /* pt2_cuda keeps library names under 256 bytes; refused here, not at start. */
        memset(lib, 'l', sizeof(lib) - 1);
        lib[sizeof(lib) - 1] = '\0';
        ck_assert_int_eq(load(&c, (char *const[]){"pt2scoped", "--libcuda", lib, NULL}, NULL, &err),
                         PT2_ERR_INVALID);
        snprintf(want, sizeof(want), "--libcuda: bad library path '%.64s'", lib);
        ck_assert_str_eq(err.message, want);
    }
}
END_TEST

START_TEST(test_too_many_peers)
{
    struct pt2d_config c;
    struct pt2_error err;
    char *argv[2 * PT2D_MAX_PEERS + 4], urls[PT2D_MAX_PEERS + 1][32];
    int i, n = 1;

    argv[0] = "pt2scoped";
    for (i = 0; i <= PT2D_MAX_PEERS; i++) {
        snprintf(urls[i], sizeof(urls[i]), "http://p%d:80", i);
        argv[n++] = "--peer";
        argv[n++] = urls[i];
    }
    argv[n] = NULL;
    ck_assert_int_eq(load(&c, argv, NULL, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "--peer: more than 64 peers");
}
END_TEST

START_TEST(test_flags_both_forms)
{
    char *const argv[] = {"pt2scoped",
                          "--listen=[::1]:0",
                          "--workers",
                          "3",
                          "--queue=7",
                          "--max-upload",
                          "512M",
                          "--request-timeout",
                          "5",
                          "--cors-origin",
                          "https://a.example,http://b.example:8080",
                          "--cors-origin",
                          "*",
                          "--model-root",
                          "tests",
                          "--model-root=.",
                          "--port-file",
                          "/tmp/p",
                          "--cache-entries",
                          "0",
                          NULL};
    struct pt2d_config c;
    struct pt2_error err;
    char cwd[PATH_MAX], tests[PATH_MAX];

    ck_assert_int_eq(load(&c, argv, NULL, &err), PT2_OK);
    ck_assert_int_eq(c.action, PT2D_RUN);
    ck_assert_str_eq(c.host, "::1");
    ck_assert_uint_eq(c.port, 0);
    ck_assert_uint_eq(c.workers, 3);
    ck_assert_uint_eq(c.queue, 7);
    ck_assert_uint_eq(c.max_upload, 512ull << 20);
    ck_assert_uint_eq(c.request_timeout, 5);
    ck_assert_uint_eq(c.n_origins, 3);
    ck_assert_str_eq(c.origins[0], "https://a.example");
    ck_assert_str_eq(c.origins[1], "http://b.example:8080");
    ck_assert_str_eq(c.origins[2], "*");
    ck_assert_uint_eq(c.n_roots, 2);
    ck_assert_ptr_nonnull(realpath("tests", tests));
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
    ck_assert_str_eq(c.roots[0], tests);
    ck_assert_str_eq(c.roots[1], cwd);
    ck_assert_str_eq(c.port_file, "/tmp/p");
    ck_assert_uint_eq(c.cache_entries, 0);
}
END_TEST

START_TEST(test_env_and_precedence)
{
    char *const envp[] = {"PT2SCOPE_WORKERS=9",
                          "PT2SCOPE_QUEUE=11",
                          "PT2SCOPE_MODEL_ROOT=tests:service",
                          "PT2SCOPE_LISTEN=0.0.0.0:9000",
                          "PT2SCOPE_CORS_ORIGIN=https://x.example,",
                          "OTHER=1",
                          "PT2SCOPE_MAX_UPLOAD=1024",
                          NULL};
    char *const none[] = {"pt2scoped", NULL};
    char *const flags[] = {"pt2scoped", "--workers", "2", "--model-root", "tests", NULL};
    struct pt2d_config c;
    struct pt2_error err;

    ck_assert_int_eq(load(&c, none, envp, &err), PT2_OK);
    ck_assert_uint_eq(c.workers, 9);
    ck_assert_uint_eq(c.queue, 11);
    ck_assert_uint_eq(c.n_roots, 2);
    ck_assert_str_eq(c.host, "0.0.0.0");
    ck_assert_uint_eq(c.port, 9000);
    ck_assert_uint_eq(c.n_origins, 1);
    ck_assert_uint_eq(c.max_upload, 1024);
    /* A flag wins; a repeatable flag replaces the whole list. */
    ck_assert_int_eq(load(&c, flags, envp, &err), PT2_OK);
    ck_assert_uint_eq(c.workers, 2);
    ck_assert_uint_eq(c.queue, 11);
    ck_assert_uint_eq(c.n_roots, 1);
}
END_TEST

/* The environment form of every remaining setting. */
START_TEST(test_env_remaining_settings)
{
    char *const envp[] = {"PT2SCOPE_SPOOL_DIR=tests/fixtures",
                          "PT2SCOPE_REQUEST_TIMEOUT=17",
                          "PT2SCOPE_CACHE_ENTRIES=0",
                          "PT2SCOPE_LIBCUDA=/opt/fake/libcuda.so.1",
                          "PT2SCOPE_NODE_NAME=gpu-7",
                          "PT2SCOPE_PEERS_DNS=pt2scope-node.default.svc",
                          "PT2SCOPE_PEERS_PORT=8081",
                          "PT2SCOPE_PEER_TIMEOUT=9",
                          NULL};
    char *const none[] = {"pt2scoped", NULL};
    struct pt2d_config c;
    struct pt2_error err;

    ck_assert_int_eq(load(&c, none, envp, &err), PT2_OK);
    /* resolved to an absolute path once, at start */
    ck_assert_int_eq(c.spool_dir[0], '/');
    ck_assert_str_eq(c.spool_dir + strlen(c.spool_dir) - strlen("/tests/fixtures"),
                     "/tests/fixtures");
    ck_assert_uint_eq(c.request_timeout, 17);
    ck_assert_uint_eq(c.cache_entries, 0);
    ck_assert_str_eq(c.libcuda, "/opt/fake/libcuda.so.1");
    ck_assert_str_eq(c.node_name, "gpu-7");
    ck_assert_str_eq(c.peers_dns, "pt2scope-node.default.svc");
    ck_assert_uint_eq(c.peers_port, 8081);
    ck_assert_uint_eq(c.peer_timeout, 9);
}
END_TEST

START_TEST(test_flag_hides_invalid_env)
{
    char *const envp[] = {"PT2SCOPE_WORKERS=lots", NULL};
    char *const flags[] = {"pt2scoped", "--workers", "4", NULL};
    char *const none[] = {"pt2scoped", NULL};
    struct pt2d_config c;
    struct pt2_error err;

    ck_assert_int_eq(load(&c, flags, envp, &err), PT2_OK);
    ck_assert_uint_eq(c.workers, 4);
    ck_assert_int_eq(load(&c, none, envp, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "PT2SCOPE_WORKERS: 'lots' is not an integer in 1..1024");
}
END_TEST

START_TEST(test_invalid_values)
{
    static const struct {
        const char *flag, *value, *message;
    } cases[] = {
        {"--workers", "0", "--workers: '0' is not an integer in 1..1024"},
        {"--workers", "1025", "--workers: '1025' is not an integer in 1..1024"},
        {"--workers", "-1", "--workers: '-1' is not an integer in 1..1024"},
        {"--workers", "3x", "--workers: '3x' is not an integer in 1..1024"},
        {"--queue", "99999999999999999999",
         "--queue: '99999999999999999999' is not an integer "
         "in 1..65536"},
        {"--request-timeout", " 5", "--request-timeout: ' 5' is not an integer in 1..86400"},
        {"--request-timeout", "0", "--request-timeout: '0' is not an integer in 1..86400"},
        {"--max-upload", "0",
         "--max-upload: '0' is not a size (a positive number, optionally "
         "with K, M, G or T)"},
        {"--max-upload", "16X",
         "--max-upload: '16X' is not a size (a positive number, "
         "optionally with K, M, G or T)"},
        {"--max-upload", "99999999999T",
         "--max-upload: '99999999999T' is not a size (a positive "
         "number, optionally with K, M, G or T)"},
        {"--listen", "::1:80",
         "--listen: '::1:80' is not HOST:PORT (e.g. 127.0.0.1:8080 or "
         "[::1]:8080)"},
        {"--listen", "127.0.0.1:65536",
         "--listen: '127.0.0.1:65536' is not HOST:PORT (e.g. "
         "127.0.0.1:8080 or [::1]:8080)"},
        {"--listen", ":80",
         "--listen: ':80' is not HOST:PORT (e.g. 127.0.0.1:8080 or "
         "[::1]:8080)"},
        {"--model-root", "Makefile", "--model-root: 'Makefile' is not a directory"},
        {"--spool-dir", "/nonexistent-spool",
         "--spool-dir: '/nonexistent-spool': No such file "
         "or directory"},
        {"--cors-origin", "https://a.example/path",
         "--cors-origin: 'https://a.example/path' is "
         "not an origin (* or http[s]://host[:port])"},
        {"--port-file", "", "--port-file: bad file name ''"},
        {"--access-log-flush-ms", "10001",
         "--access-log-flush-ms: '10001' is not an integer in 0..10000"},
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *const argv[] = {"pt2scoped", (char *)cases[i].flag, (char *)cases[i].value, NULL};
        struct pt2d_config c;
        struct pt2_error err;

        ck_assert_int_eq(load(&c, argv, NULL, &err), PT2_ERR_INVALID);
        ck_assert_str_eq(err.message, cases[i].message);
    }
}
END_TEST

START_TEST(test_unknown_and_missing)
{
    char *const a[] = {"pt2scoped", "--nope", NULL};
    char *const b[] = {"pt2scoped", "--queue", NULL};
    char *const c1[] = {"pt2scoped", "positional", NULL};
    char *const h[] = {"pt2scoped", "--workers", "2", "--help", NULL};
    char *const v[] = {"pt2scoped", "--version", NULL};
    struct pt2d_config c;
    struct pt2_error err;

    ck_assert_int_eq(load(&c, a, NULL, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "unknown option '--nope' (see --help)");
    ck_assert_int_eq(load(&c, b, NULL, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "--queue needs a value");
    ck_assert_int_eq(load(&c, c1, NULL, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "unexpected argument 'positional' (see --help)");
    ck_assert_int_eq(load(&c, h, NULL, &err), PT2_OK);
    ck_assert_int_eq(c.action, PT2D_SHOW_HELP);
    ck_assert_int_eq(load(&c, v, NULL, &err), PT2_OK);
    ck_assert_int_eq(c.action, PT2D_SHOW_VERSION);
}
END_TEST

START_TEST(test_too_many_roots)
{
    char *argv[40];
    struct pt2d_config c;
    struct pt2_error err;
    int i, n = 0;

    argv[n++] = "pt2scoped";
    for (i = 0; i < 17; i++) {
        argv[n++] = "--model-root";
        argv[n++] = "tests";
    }
    argv[n] = NULL;
    ck_assert_int_eq(load(&c, argv, NULL, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "--model-root: more than 16 model roots");
}
END_TEST

START_TEST(test_sizes)
{
    struct pt2_error err = {0};
    uint64_t v;

    ck_assert_int_eq(pt2d_config_parse_size("16G", &v, &err), PT2_OK);
    ck_assert_uint_eq(v, 17179869184ull);
    ck_assert_int_eq(pt2d_config_parse_size("512M", &v, &err), PT2_OK);
    ck_assert_uint_eq(v, 536870912ull);
    ck_assert_int_eq(pt2d_config_parse_size("1024", &v, &err), PT2_OK);
    ck_assert_uint_eq(v, 1024);
    ck_assert_int_eq(pt2d_config_parse_size("64k", &v, &err), PT2_OK);
    ck_assert_uint_eq(v, 65536);
    ck_assert_int_eq(pt2d_config_parse_size("2GiB", &v, &err), PT2_OK);
    ck_assert_uint_eq(v, 2147483648ull);
    ck_assert_int_eq(pt2d_config_parse_size("1TB", &v, &err), PT2_OK);
    ck_assert_uint_eq(v, 1099511627776ull);
    ck_assert_int_eq(pt2d_config_parse_size("1.5G", &v, &err), PT2_ERR_INVALID);
    ck_assert_int_eq(pt2d_config_parse_size("G", &v, &err), PT2_ERR_INVALID);
    ck_assert_int_eq(pt2d_config_parse_size("-1", &v, &err), PT2_ERR_INVALID);
    ck_assert_int_eq(pt2d_config_parse_size("16777216T", &v, &err), PT2_ERR_INVALID);
}
END_TEST

START_TEST(test_listen_forms)
{
    struct pt2_error err = {0};
    char host[64];
    uint16_t port;

    ck_assert_int_eq(pt2d_config_parse_listen("[::1]:8080", host, sizeof(host), &port, &err),
                     PT2_OK);
    ck_assert_str_eq(host, "::1");
    ck_assert_uint_eq(port, 8080);
    ck_assert_int_eq(pt2d_config_parse_listen("localhost:0", host, sizeof(host), &port, &err),
                     PT2_OK);
    ck_assert_str_eq(host, "localhost");
    ck_assert_uint_eq(port, 0);
    ck_assert_int_eq(pt2d_config_parse_listen("[::1]8080", host, sizeof(host), &port, &err),
                     PT2_ERR_INVALID);
    ck_assert_int_eq(pt2d_config_parse_listen("[]:80", host, sizeof(host), &port, &err),
                     PT2_ERR_INVALID);
    ck_assert_int_eq(pt2d_config_parse_listen("a:", host, sizeof(host), &port, &err),
                     PT2_ERR_INVALID);
    ck_assert_int_eq(pt2d_config_parse_listen("averyveryverylonghostname:1", host, 8, &port, &err),
                     PT2_ERR_INVALID);
}
END_TEST

START_TEST(test_usage_lists_every_flag)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);

    pt2d_config_usage(f);
    fclose(f);
    ck_assert(strstr(text, "  --listen HOST:PORT\n") != NULL);
    ck_assert(strstr(text, "  --cors-origin ORIGIN\n") != NULL);
    ck_assert(strstr(text, "[PT2SCOPE_REQUEST_TIMEOUT]") != NULL);
    ck_assert(strstr(text, "  --spool-dir DIR\n") != NULL);
    ck_assert(strstr(text, "  --peer URL\n") != NULL);
    ck_assert(strstr(text, "[PT2SCOPE_LIBCUDA]") != NULL);
    ck_assert(strstr(text, "  --token-file FILE\n") != NULL);
    ck_assert(strstr(text, "  --metrics-public\n") != NULL); /* a flag without a value */
    ck_assert(strstr(text, "  --allowed-host NAME\n") != NULL);
    free(text);
}
END_TEST

/* The text between a topic's heading and the next blank line. */
static char *usage_section(const char *text, const char *heading)
{
    const char *a = strstr(text, heading), *b;

    ck_assert_msg(a != NULL, "no section '%s'", heading);
    b = strstr(a, "\n\n");
    return strndup(a, b != NULL ? (size_t)(b - a) : strlen(a));
}

START_TEST(test_usage_grouped_by_topic)
{
    static const char *const order[] = {"\nlistening (",
                                        "\npackages (",
                                        "\nremote packages (",
                                        "\nlimits (",
                                        "\nthis node and the cluster (",
                                        "\nauth and browsers (",
                                        "\nlogging: ",
                                        "\nother\n"};
    static const struct {
        const char *heading, *flag;
    } in[] = {
        {"\nlistening (", "  --listen HOST:PORT\n"},
        {"\nlistening (", "  --drain-timeout SECONDS\n"},
        {"\npackages (", "  --model-root DIR\n"},
        {"\npackages (", "  --cache-entries N\n"},
        {"\npackages (", "  --cache-bytes SIZE\n"}, /* the two cache options side by side */
        {"\nremote packages (", "  --remote-max-bytes SIZE\n"},
        {"\nlimits (", "  --header-timeout SECONDS\n"},
        {"\nlimits (", "  --max-connections-per-ip N\n"},
        {"\nthis node and the cluster (", "  --libcuda PATH\n"},
        {"\nthis node and the cluster (", "  --peers-dns NAME\n"},
        {"\nauth and browsers (", "  --token-file FILE\n"},
        {"\nauth and browsers (", "  --cors-origin ORIGIN\n"},
        {"\nlogging: ", "  --access-log-flush-ms MS\n"},
    };
    char *text = NULL;
    size_t len = 0, i;
    FILE *f = open_memstream(&text, &len);
    const char *at = text;

    pt2d_config_usage(f);
    fclose(f);
    for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
        const char *next = strstr(text, order[i]);
        ck_assert_msg(next != NULL && next > at, "'%s' missing or out of order", order[i]);
        at = next;
    }
    for (i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
        char *sec = usage_section(text, in[i].heading);
        ck_assert_msg(strstr(sec, in[i].flag) != NULL, "%s not under %s", in[i].flag,
                      in[i].heading + 1);
        free(sec);
    }
    /* Every option line has its variable; only "other" has the two without (--healthcheck, --help).
     */
    {
        size_t lines = 0, vars = 0;
        for (const char *p = text; (p = strstr(p, "\n  --")) != NULL; p++)
            lines++;
        for (const char *p = text; (p = strstr(p, " [PT2SCOPE_")) != NULL; p++)
            vars++;
        ck_assert_uint_eq(lines, vars + 2);
        ck_assert_uint_ge(vars, 30);
    }
    free(text);
}
END_TEST

START_TEST(test_access_settings)
{
    struct pt2d_config c;
    struct pt2_error err;
    char tokens[] = "/tmp/pt2d-cfg-tokens-XXXXXX";
    int fd = mkstemp(tokens);
    char *const argv[] = {"pt2scoped",        "--token-file",   tokens,
                          "--metrics-public", "--allowed-host", "UI.Example:8443",
                          "--allowed-host",   "[::2]",          NULL};
    char *const env[] = {"PT2SCOPE_ALLOWED_HOSTS=a.example,,b.example",
                         "PT2SCOPE_METRICS_PUBLIC=yes", NULL};
    char *const env_off[] = {"PT2SCOPE_METRICS_PUBLIC=0", NULL};
    char *const env_bad[] = {"PT2SCOPE_METRICS_PUBLIC=maybe", NULL};
    char *const bad_host[] = {"pt2scoped", "--allowed-host", "a/b", NULL};
    char *const bad_file[] = {"pt2scoped", "--token-file", "/nonexistent/pt2scope/t", NULL};
    char *const none[] = {"pt2scoped", NULL};

    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, "# c\nsecret\n", 11), 11);
    close(fd);
    ck_assert_int_eq(load(&c, argv, env, &err), PT2_OK);
    ck_assert_str_eq(c.token_file, tokens);
    ck_assert_int_eq(c.metrics_public, 1);
    /* The flag replaces the variable's list; names are stored as a Host header is compared. */
    ck_assert_uint_eq(c.n_allowed_hosts, 2);
    ck_assert_str_eq(c.allowed_hosts[0], "ui.example");
    ck_assert_str_eq(c.allowed_hosts[1], "::2");
    ck_assert_int_eq(load(&c, none, env, &err), PT2_OK);
    ck_assert_uint_eq(c.n_allowed_hosts, 2);
    ck_assert_str_eq(c.allowed_hosts[0], "a.example");
    ck_assert_str_eq(c.allowed_hosts[1], "b.example");
    ck_assert_int_eq(c.metrics_public, 1);
    ck_assert_str_eq(c.token_file, "");
    ck_assert_int_eq(load(&c, none, env_off, &err), PT2_OK);
    ck_assert_int_eq(c.metrics_public, 0);
    ck_assert_int_eq(load(&c, none, env_bad, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message,
                     "PT2SCOPE_METRICS_PUBLIC: 'maybe' is not a boolean (1/0, true/false)");
    ck_assert_int_eq(load(&c, bad_host, NULL, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message,
                     "--allowed-host: 'a/b' is not a host name (NAME, IPv4 or [IPv6])");
    ck_assert_int_eq(load(&c, bad_file, NULL, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "--token-file: token file '/nonexistent/pt2scope/t': No such "
                                  "file or directory");
    unlink(tokens);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pt2d_config");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_defaults);
    tcase_add_test(tc, test_access_log_flush);
    tcase_add_test(tc, test_flags_both_forms);
    tcase_add_test(tc, test_env_and_precedence);
    tcase_add_test(tc, test_env_remaining_settings);
    tcase_add_test(tc, test_flag_hides_invalid_env);
    tcase_add_test(tc, test_invalid_values);
    tcase_add_test(tc, test_unknown_and_missing);
    tcase_add_test(tc, test_too_many_roots);
    tcase_add_test(tc, test_sizes);
    tcase_add_test(tc, test_listen_forms);
    tcase_add_test(tc, test_usage_lists_every_flag);
    tcase_add_test(tc, test_usage_grouped_by_topic);
    tcase_add_test(tc, test_node_and_peer_settings);
    tcase_add_test(tc, test_node_and_peer_errors);
    tcase_add_test(tc, test_too_many_peers);
    tcase_add_test(tc, test_access_settings);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
