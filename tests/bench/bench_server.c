/*
 * bench_server.c - the two reference servers the service benchmark measures
 * the daemon against, on the same libmicrohttpd with the daemon's settings
 * (poll, a thread pool, 128 KiB per-connection memory, 60 s idle timeout;
 * keep them in step with service/daemon/pt2d_server.c):
 *
 *   ceiling  answers every request with one fixed JSON body: the inspection
 *            document of PACKAGE, built with the library exactly as the
 *            daemon builds it, so the bytes on the wire match. Nothing is
 *            computed per request: this is the most this HTTP stack can do.
 *   sink     accepts any request body and discards it, answering with the
 *            byte count: the most an upload can get through this stack.
 *
 * THREADS polling threads: 1 is MHD's single internal thread, more is
 * MHD_OPTION_THREAD_POOL_SIZE (run.sh passes the CPU count, as the daemon
 * uses). It listens on 127.0.0.1 at an ephemeral port, writes the port to
 * PORT_FILE once ready, and runs until SIGTERM or SIGINT.
 *
 * BENCH_AFFINITY=1 in the environment: the ceiling's document is the one
 * asked with affinity=1 (PT2_JSON_AFFINITY, with `scheduling`).
 *
 * usage: bench_server ceiling PORT_FILE THREADS PACKAGE
 *        bench_server sink PORT_FILE THREADS
 */
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <microhttpd.h>

#include "pt2scope.h"

/* The daemon's values (service/daemon/pt2d_server.c). */
#define BS_MEMORY_LIMIT (128 * 1024)
#define BS_TIMEOUT_S 60u
#define BS_REPLY_MAX 64
#define BS_THREADS_MAX 64u

struct bs_state {
    struct MHD_Response *resp; /* ceiling: the one response, shared */
    int marker;                /* ceiling: *con_cls after the first call */
};

struct bs_upload {
    unsigned long long bytes;
};

/*
 * ceiling: the shared response, queued as is (MHD reference-counts it). Not
 * on the first call: libmicrohttpd 0.9.75 closes the connection after a
 * response queued before the request is complete, and keep-alive is part of
 * what the daemon is measured with.
 */
static enum MHD_Result bs_on_ceiling(void *cls, struct MHD_Connection *c, const char *url,
                                     const char *method, const char *version,
                                     const char *upload_data, size_t *upload_data_size,
                                     void **con_cls)
{
    struct bs_state *st = cls;

    if (*con_cls == NULL) {
        *con_cls = &st->marker;
        return MHD_YES;
    }
    return MHD_queue_response(c, MHD_HTTP_OK, st->resp);
}

static enum MHD_Result bs_on_sink(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls)
{
    struct bs_upload *u = *con_cls;
    struct MHD_Response *resp;
    char body[BS_REPLY_MAX];
    enum MHD_Result ret;
    int n;

    if (u == NULL) {
        u = calloc(1, sizeof(*u));
        if (u == NULL)
            return MHD_NO;
        *con_cls = u;
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        u->bytes += *upload_data_size;
        *upload_data_size = 0;
        return MHD_YES;
    }
    n = snprintf(body, sizeof(body), "{\"bytes\":%llu}\n", u->bytes);
    resp = MHD_create_response_from_buffer((size_t)n, body, MHD_RESPMEM_MUST_COPY);
    if (resp == NULL)
        return MHD_NO;
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
    ret = MHD_queue_response(c, MHD_HTTP_OK, resp);
    MHD_destroy_response(resp);
    return ret;
}

static void bs_on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                            enum MHD_RequestTerminationCode toe)
{
    struct bs_state *st = cls;

    if (*con_cls != &st->marker)
        free(*con_cls); /* a sink's struct bs_upload */
    *con_cls = NULL;
}

/* The package's inspection document, unformatted, as the daemon sends it. */
/* The daemon's affinity=1 document when BENCH_AFFINITY=1, else the default one. */
static unsigned bs_json_flags(void)
{
    const char *a = getenv("BENCH_AFFINITY");

    return a != NULL && strcmp(a, "1") == 0 ? PT2_JSON_AFFINITY : 0;
}

static char *bs_build_body(const char *package)
{
    struct pt2_error err = {0};
    pt2_package *pkg = NULL;
    cJSON *doc = NULL;
    char *text = NULL;

    if (pt2_package_open_path(&pkg, package, NULL, &err) != PT2_OK ||
        pt2_package_to_json(pkg, bs_json_flags(), &doc, &err) != PT2_OK) {
        fprintf(stderr, "bench_server: %s: %s\n", package, err.message);
        goto cleanup;
    }
    text = cJSON_PrintUnformatted(doc);
    if (text == NULL)
        fprintf(stderr, "bench_server: out of memory\n");
cleanup:
    cJSON_Delete(doc);
    pt2_package_free(pkg);
    return text;
}

static int bs_write_port(const char *path, unsigned port)
{
    char tmp[4096];
    FILE *f;

    /* Write then rename, so a reader polling for the file never sees it half-written. */
    if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
        return -1;
    f = fopen(tmp, "w");
    if (f == NULL)
        return -1;
    if (fprintf(f, "%u\n", port) < 0) {
        fclose(f);
        return -1;
    }
    if (fclose(f) != 0)
        return -1;
    return rename(tmp, path);
}

static int bs_parse_threads(const char *s, unsigned *out)
{
    unsigned long v;
    char *end = NULL;

    if (s[0] < '0' || s[0] > '9')
        return -1;
    errno = 0;
    v = strtoul(s, &end, 10);
    if (errno == ERANGE || end == s || *end != '\0' || v == 0 || v > BS_THREADS_MAX)
        return -1;
    *out = (unsigned)v;
    return 0;
}

int main(int argc, char **argv)
{
    struct bs_state st = {NULL, 0};
    struct MHD_Daemon *d = NULL;
    const union MHD_DaemonInfo *info;
    struct sockaddr_in sa;
    MHD_AccessHandlerCallback handler;
    char *body = NULL;
    sigset_t set;
    unsigned threads = 0;
    int ceiling, sig, rc = 1;

    ceiling = argc == 5 && strcmp(argv[1], "ceiling") == 0;
    if ((!ceiling && !(argc == 4 && strcmp(argv[1], "sink") == 0)) ||
        bs_parse_threads(argv[3], &threads) < 0) {
        fprintf(stderr,
                "usage: %s ceiling PORT_FILE THREADS PACKAGE\n       %s sink PORT_FILE THREADS\n",
                argv[0], argv[0]);
        return 2;
    }
    /* Block the stop signals before MHD starts its threads, which inherit the mask. */
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    handler = bs_on_sink;
    if (ceiling) {
        body = bs_build_body(argv[4]);
        if (body == NULL)
            goto cleanup;
        st.resp = MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_PERSISTENT);
        if (st.resp == NULL)
            goto cleanup;
        MHD_add_response_header(st.resp, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
        handler = bs_on_ceiling;
    }
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = 0;
    /* A pool size of 1 is refused by MHD, so a single thread is simply no pool option. */
    d = MHD_start_daemon(
        MHD_USE_POLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL, handler, &st,
        MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)&sa, MHD_OPTION_NOTIFY_COMPLETED,
        bs_on_completed, &st, MHD_OPTION_CONNECTION_TIMEOUT, BS_TIMEOUT_S,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)BS_MEMORY_LIMIT,
        threads > 1 ? MHD_OPTION_THREAD_POOL_SIZE : MHD_OPTION_END, threads, MHD_OPTION_END);
    if (d == NULL) {
        fprintf(stderr, "bench_server: libmicrohttpd failed to start\n");
        goto cleanup;
    }
    info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    if (info == NULL || bs_write_port(argv[2], info->port) != 0) {
        fprintf(stderr, "bench_server: cannot publish the port in %s\n", argv[2]);
        goto cleanup;
    }
    while (sigwait(&set, &sig) != 0)
        ;
    rc = 0;
cleanup:
    if (d != NULL)
        MHD_stop_daemon(d);
    if (st.resp != NULL)
        MHD_destroy_response(st.resp);
    free(body);
    return rc;
}
