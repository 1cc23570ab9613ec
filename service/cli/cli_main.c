/*
 * cli_main.c - `pt2scope`: inspect, check, validate, gpus.
 *
 * Design: argument parsing and exit codes only; every answer comes from
 * libpt2scope. Errors are one line on stderr ("pt2scope: <what>: <why>") and
 * exit 2, so pipelines can tell "incompatible" (1) from "could not tell" (2).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "pt2_binary.h"
#include "pt2_compat.h"
#include "pt2_cpu.h"
#include "pt2_cuda.h"
#include "pt2_error.h"
#include "pt2_k8s.h"
#include "pt2_rd.h"
#include "pt2_utf8.h"
#include "pt2scope.h"

#define MAX_TARGETS 64
#define MAX_INPUTS 256
#define KERNEL_FILE_MAX (256u * 1024u * 1024u)

struct cli_args {
    const char *cmd;
    const char *file;
    int json, oip;
    const char *targets[MAX_TARGETS];
    size_t ntargets;
    const char *inputs[MAX_INPUTS];
    size_t ninputs;
    const char *driver;
    const char *device;
    const char *libcuda;
    const char *nodes;
};

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: pt2scope <command> [options]\n"
        "\n"
        "  inspect FILE [--json] [--oip]           what FILE was compiled for, its metadata\n"
        "  check FILE --target T [--target T ...] [--driver X.Y] [--json]\n"
        "                                          will FILE run on T (9.0, sm_90a, H100, "
        "gfx90a)?\n"
        "  check FILE [--device cuda:N] [--json]   ... on this node's GPU and CPU?\n"
        "  check FILE --nodes NODES.json [--json]  ... on each Kubernetes node (kubectl get nodes "
        "-o json)?\n"
        "  check-kernel FILE (--target T | --device cuda:N) [--driver X.Y]\n"
        "                                          the same for a raw .cubin/.fatbin/.hsaco\n"
        "  validate FILE --input NAME=D1,D2,... [--input ...] [--json]\n"
        "                                          are these input shapes acceptable?\n"
        "  gpus [--json] [--libcuda PATH]          this node's GPUs and CPU\n"
        "  version\n"
        "\n"
        "exit status: 0 ok/compatible/valid, 1 incompatible/invalid, 2 error\n");
}

static int fail(const char *what, const char *why)
{
    fprintf(stderr, "pt2scope: %s: %s\n", what, why);
    return CLI_ERROR;
}

static int parse_args(int argc, char **argv, struct cli_args *a)
{
    memset(a, 0, sizeof(*a));
    if (argc < 2)
        return fail("usage", "no command given (try 'pt2scope --help')");
    a->cmd = argv[1];
    for (int i = 2; i < argc; i++) {
        const char *s = argv[i];
        const char *val = (i + 1 < argc) ? argv[i + 1] : NULL;
        int takes = 1;

        if (strcmp(s, "--json") == 0) {
            a->json = 1;
            takes = 0;
        } else if (strcmp(s, "--oip") == 0) {
            a->oip = 1;
            takes = 0;
        } else if (strcmp(s, "--target") == 0 || strcmp(s, "-t") == 0) {
            if (val && a->ntargets < MAX_TARGETS)
                a->targets[a->ntargets++] = val;
            else if (val)
                return fail("usage", "too many --target options");
        } else if (strcmp(s, "--input") == 0 || strcmp(s, "-i") == 0) {
            if (val && a->ninputs < MAX_INPUTS)
                a->inputs[a->ninputs++] = val;
            else if (val)
                return fail("usage", "too many --input options");
        } else if (strcmp(s, "--driver") == 0) {
            a->driver = val;
        } else if (strcmp(s, "--device") == 0) {
            a->device = val;
        } else if (strcmp(s, "--libcuda") == 0) {
            a->libcuda = val;
        } else if (strcmp(s, "--nodes") == 0) {
            a->nodes = val;
        } else if (s[0] == '-' && s[1] != '\0') {
            fprintf(stderr, "pt2scope: usage: unknown option '%s'\n", s);
            return CLI_ERROR;
        } else if (a->file == NULL) {
            a->file = s;
            takes = 0;
        } else {
            fprintf(stderr, "pt2scope: usage: unexpected argument '%s'\n", s);
            return CLI_ERROR;
        }
        if (takes) {
            if (val == NULL) {
                fprintf(stderr, "pt2scope: usage: option '%s' needs a value\n", s);
                return CLI_ERROR;
            }
            i++;
        }
    }
    return CLI_OK;
}

static void print_json(const cJSON *doc)
{
    char *s = cJSON_Print(doc);
    if (s != NULL) {
        pt2_utf8_scrub(s, strlen(s)); /* entry names need not be UTF-8 */
        fputs(s, stdout);
        fputc('\n', stdout);
        cJSON_free(s);
    }
}

static int open_pkg(const char *file, pt2_package **pkg)
{
    struct pt2_error err = {0};

    if (file == NULL)
        return fail("usage", "no package file given");
    if (pt2_package_open_path(pkg, file, NULL, &err) != PT2_OK)
        return fail(file, err.message);
    return CLI_OK;
}

static int cmd_inspect(const struct cli_args *a)
{
    pt2_package *pkg = NULL;
    struct pt2_error err = {0};
    cJSON *doc = NULL;
    int rc = open_pkg(a->file, &pkg);

    if (rc != CLI_OK)
        return rc;
    if (pt2_package_to_json(pkg, a->oip ? PT2_JSON_OIP : PT2_JSON_DEFAULT, &doc, &err) != PT2_OK) {
        rc = fail(a->file, err.message);
        goto cleanup;
    }
    if (a->json) {
        print_json(doc); /* JSON escapes control characters itself */
    } else {
        cli_sanitize(doc);
        cli_render_inspect(stdout, doc);
    }
cleanup:
    cJSON_Delete(doc);
    pt2_package_free(pkg);
    return rc;
}

/* One verdict line (or JSON object) for a check. */
static void report(cJSON *arr, const char *target, const struct pt2_verdict_result *r)
{
    if (arr != NULL) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "target", target);
        cJSON_AddStringToObject(o, "verdict", pt2_verdict_name(r->verdict));
        cJSON_AddStringToObject(o, "reason", r->reason);
        cJSON_AddItemToArray(arr, o);
    } else {
        char reason[sizeof(r->reason)];
        snprintf(reason, sizeof(reason), "%s", r->reason);
        cli_defang(reason);
        printf("%s: %s: %s\n", target, pt2_verdict_name(r->verdict), reason);
    }
}

/* Check against this node: the selected GPU (if any) and the host CPU. */
static int check_node(const struct cli_args *a, pt2_package *pkg, int driver, cJSON *arr,
                      int *worst)
{
    struct pt2_node_gpus *g = calloc(1, sizeof(*g));
    struct pt2_cpu_info cpu;
    struct pt2_error err = {0};
    struct pt2_verdict_result r;
    const struct pt2_gpu *gpu = NULL;
    const char *feats[PT2_CPU_FEATURES_MAX];
    int rc = CLI_OK;

    if (g == NULL)
        return fail("check", "out of memory");
    if (pt2_cuda_probe(a->libcuda, g, &err) != PT2_OK) {
        rc = fail("gpus", err.message);
        goto cleanup;
    }
    if (g->n > 0 || a->device != NULL) {
        struct pt2_device dev;
        char label[64];

        if (pt2_cuda_select(g, a->device, &gpu, &err) != PT2_OK) {
            rc = fail(a->device ? a->device : "cuda", err.message);
            goto cleanup;
        }
        pt2_cuda_device(g, gpu, &dev);
        if (driver)
            dev.driver_cuda_version = driver;
        if (pt2_package_check_device(pkg, &dev, &r, &err) != PT2_OK) {
            rc = fail("check", err.message);
            goto cleanup;
        }
        snprintf(label, sizeof(label), "cuda:%d", gpu->index);
        report(arr, label, &r);
        if (r.verdict == PT2_INCOMPATIBLE)
            *worst = 1;
    } else {
        /* No GPU here: a package with GPU code cannot run; a CPU-only one can. */
        struct pt2_device none;
        memset(&none, 0, sizeof(none));
        snprintf(none.name, sizeof(none.name), "no GPU");
        if (pt2_package_check_device(pkg, &none, &r, &err) != PT2_OK) {
            rc = fail("check", err.message);
            goto cleanup;
        }
        if (r.verdict != PT2_COMPATIBLE) {
            r.verdict = PT2_INCOMPATIBLE;
            snprintf(r.reason, sizeof(r.reason),
                     "package has GPU code but this node has no "
                     "usable GPU: %s",
                     g->reason);
        }
        report(arr, "gpu", &r);
        if (r.verdict == PT2_INCOMPATIBLE)
            *worst = 1;
    }
    if (pt2_cpu_probe(&cpu, &err) != PT2_OK) {
        rc = fail("cpu", err.message);
        goto cleanup;
    }
    for (size_t i = 0; i < cpu.nfeatures && i < PT2_CPU_FEATURES_MAX; i++)
        feats[i] = cpu.features[i];
    if (pt2_package_check_cpu(pkg, cpu.machine, feats, cpu.nfeatures, &r, &err) != PT2_OK) {
        rc = fail("check", err.message);
        goto cleanup;
    }
    report(arr, "cpu", &r);
    if (r.verdict == PT2_INCOMPATIBLE)
        *worst = 1;
cleanup:
    free(g);
    return rc;
}

/* One verdict per Kubernetes node described by GPU Feature Discovery labels. */
static int check_nodes(const struct cli_args *a, pt2_package *pkg, cJSON *arr, int *worst)
{
    struct pt2_k8s_nodes nodes = {0};
    struct pt2_error err = {0};
    cJSON *doc = NULL;
    const cJSON *it;
    char *text = NULL;
    size_t len = 0;
    FILE *f = fopen(a->nodes, "rb");
    int rc = CLI_OK;

    if (f == NULL)
        return fail(a->nodes, strerror(errno));
    text = malloc(PT2_K8S_TEXT_MAX + 1);
    if (text == NULL) {
        rc = fail(a->nodes, "out of memory");
        goto cleanup;
    }
    len = fread(text, 1, PT2_K8S_TEXT_MAX + 1, f);
    if (ferror(f) || len > PT2_K8S_TEXT_MAX) {
        rc = fail(a->nodes, ferror(f) ? "cannot read" : "larger than 16 MiB");
        goto cleanup;
    }
    if (pt2_k8s_parse_text(text, len, &nodes, &err) != PT2_OK ||
        pt2_k8s_compat_json(pkg, &nodes, &doc, &err) != PT2_OK) {
        rc = fail(a->nodes, err.message);
        goto cleanup;
    }
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(doc, "nodes"))
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(it, "name");
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(it, "verdict");
        const cJSON *why = cJSON_GetObjectItemCaseSensitive(it, "reason");
        char reason[512];

        if (!cJSON_IsString(name) || !cJSON_IsString(v))
            continue;
        if (strcmp(v->valuestring, "incompatible") == 0)
            *worst = 1;
        if (arr != NULL) {
            cJSON_AddItemToArray(arr, cJSON_Duplicate(it, 1));
            continue;
        }
        snprintf(reason, sizeof(reason), "%s", cJSON_IsString(why) ? why->valuestring : "");
        cli_defang(reason);
        cli_defang(name->valuestring);
        printf("%s: %s: %s\n", name->valuestring, v->valuestring, reason);
    }
cleanup:
    cJSON_Delete(doc);
    pt2_k8s_nodes_free(&nodes);
    free(text);
    fclose(f);
    return rc;
}

static int cmd_check(const struct cli_args *a)
{
    pt2_package *pkg = NULL;
    struct pt2_error err = {0};
    cJSON *arr = NULL;
    int rc, worst = 0, driver = 0;

    if (a->driver != NULL && pt2_driver_version_parse(a->driver, &driver, &err) != PT2_OK)
        return fail("--driver", err.message);
    if (a->json && (arr = cJSON_CreateArray()) == NULL)
        return fail("check", "out of memory");
    rc = open_pkg(a->file, &pkg);
    if (rc != CLI_OK)
        goto cleanup;
    if (a->nodes != NULL) {
        rc = check_nodes(a, pkg, arr, &worst);
    } else if (a->ntargets == 0) {
        rc = check_node(a, pkg, driver, arr, &worst);
    } else {
        for (size_t i = 0; i < a->ntargets && rc == CLI_OK; i++) {
            struct pt2_device dev;
            struct pt2_verdict_result r;

            pt2_error_clear(&err);
            if (pt2_target_parse(a->targets[i], &dev, &err) != PT2_OK) {
                rc = fail("--target", err.message);
                break;
            }
            dev.driver_cuda_version = driver;
            if (pt2_package_check_device(pkg, &dev, &r, &err) != PT2_OK) {
                rc = fail("check", err.message);
                break;
            }
            report(arr, a->targets[i], &r);
            if (r.verdict == PT2_INCOMPATIBLE)
                worst = 1;
        }
    }
    if (rc == CLI_OK) {
        if (arr != NULL)
            print_json(arr);
        rc = worst ? CLI_NEGATIVE : CLI_OK;
    }
cleanup:
    cJSON_Delete(arr);
    pt2_package_free(pkg);
    return rc;
}

/* Raw kernel files (no package): read whole, bounded, then decide. */
static int cmd_check_kernel(const struct cli_args *a)
{
    struct pt2_error err = {0};
    struct pt2_kernel_list ks = {0};
    struct pt2_host_list hs = {0};
    struct pt2_device dev;
    struct pt2_verdict_result r;
    struct pt2_rd rd;
    struct pt2_node_gpus *g = NULL;
    struct stat st;
    unsigned char *buf = NULL;
    int fd = -1, rc = CLI_ERROR, recognized = 0, driver = 0;

    if (a->file == NULL)
        return fail("usage", "no kernel file given");
    if (a->driver != NULL && pt2_driver_version_parse(a->driver, &driver, &err) != PT2_OK)
        return fail("--driver", err.message);
    memset(&dev, 0, sizeof(dev));
    if (a->ntargets > 0) {
        if (pt2_target_parse(a->targets[0], &dev, &err) != PT2_OK)
            return fail("--target", err.message);
    } else {
        const struct pt2_gpu *gpu = NULL;
        g = calloc(1, sizeof(*g));
        if (g == NULL)
            return fail("check-kernel", "out of memory");
        if (pt2_cuda_probe(a->libcuda, g, &err) != PT2_OK ||
            pt2_cuda_select(g, a->device, &gpu, &err) != PT2_OK) {
            rc = fail(a->device ? a->device : "cuda", err.message);
            goto cleanup;
        }
        pt2_cuda_device(g, gpu, &dev);
    }
    if (driver)
        dev.driver_cuda_version = driver;
    fd = open(a->file, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0) {
        rc = fail(a->file, strerror(errno));
        goto cleanup;
    }
    if (st.st_size <= 0 || (uint64_t)st.st_size > KERNEL_FILE_MAX) {
        rc = fail(a->file, "empty or larger than 256 MiB");
        goto cleanup;
    }
    buf = malloc((size_t)st.st_size);
    if (buf == NULL || pread(fd, buf, (size_t)st.st_size, 0) != st.st_size) {
        rc = fail(a->file, "cannot read");
        goto cleanup;
    }
    pt2_rd_init_mem(&rd, buf, (size_t)st.st_size, a->file);
    if (pt2_binary_scan(&rd, a->file, &ks, &hs, &recognized, &err) != PT2_OK) {
        rc = fail(a->file, err.message);
        goto cleanup;
    }
    if (!recognized || ks.n == 0) {
        rc = fail(a->file, "no GPU kernels recognised");
        goto cleanup;
    }
    if (pt2_compat_gpu(&ks, "cuda", NULL, &dev, &r, &err) != PT2_OK) {
        rc = fail("check-kernel", err.message);
        goto cleanup;
    }
    printf("%s: %s: %s\n", a->file, pt2_verdict_name(r.verdict), r.reason);
    rc = r.verdict == PT2_INCOMPATIBLE ? CLI_NEGATIVE : CLI_OK;
cleanup:
    if (fd >= 0)
        close(fd);
    free(buf);
    free(g);
    pt2_kernel_list_free(&ks);
    pt2_host_list_free(&hs);
    return rc;
}

/* "image=8,3,512,512" into inputs["image"] = [8, 3, 512, 512]. */
static int parse_input(const char *spec, cJSON *inputs)
{
    const char *eq = strchr(spec, '=');
    char name[256];
    cJSON *dims;
    const char *p;

    if (eq == NULL || eq == spec || (size_t)(eq - spec) >= sizeof(name))
        return fail("--input", "expected NAME=D1,D2,... (e.g. image=8,3,512,512)");
    snprintf(name, sizeof(name), "%.*s", (int)(eq - spec), spec);
    dims = cJSON_AddArrayToObject(inputs, name);
    if (dims == NULL)
        return fail("--input", "out of memory");
    p = eq + 1;
    if (*p == '\0')
        return CLI_OK; /* a scalar: no dims */
    for (;;) {
        char *end;
        long long v;

        errno = 0;
        v = strtoll(p, &end, 10);
        if (end == p || errno == ERANGE || v < 0 || (*end != ',' && *end != '\0')) {
            fprintf(stderr, "pt2scope: --input: '%s': dimensions must be integers >= 0\n", spec);
            return CLI_ERROR;
        }
        cJSON_AddItemToArray(dims, cJSON_CreateNumber((double)v));
        if (*end == '\0')
            break;
        p = end + 1;
    }
    return CLI_OK;
}

static int cmd_validate(const struct cli_args *a)
{
    pt2_package *pkg = NULL;
    struct pt2_error err = {0};
    cJSON *inputs = cJSON_CreateObject();
    char *msg = NULL;
    int rc = CLI_OK;

    if (inputs == NULL)
        return fail("validate", "out of memory");
    if (a->ninputs == 0) {
        rc = fail("usage", "validate needs at least one --input NAME=D1,D2,...");
        goto cleanup;
    }
    for (size_t i = 0; i < a->ninputs && rc == CLI_OK; i++)
        rc = parse_input(a->inputs[i], inputs);
    if (rc != CLI_OK)
        goto cleanup;
    rc = open_pkg(a->file, &pkg);
    if (rc != CLI_OK)
        goto cleanup;
    if (pt2_package_validate(pkg, inputs, &msg, &err) != PT2_OK) {
        rc = fail(a->file, err.message);
        goto cleanup;
    }
    if (a->json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddBoolToObject(o, "valid", msg == NULL);
        if (msg != NULL) {
            cJSON *e = cJSON_AddArrayToObject(o, "errors");
            cJSON_AddItemToArray(e, cJSON_CreateString(msg));
        }
        print_json(o);
        cJSON_Delete(o);
    } else {
        cli_defang(msg);
        printf("%s\n", msg == NULL ? "valid" : msg);
    }
    rc = msg == NULL ? CLI_OK : CLI_NEGATIVE;
cleanup:
    free(msg);
    cJSON_Delete(inputs);
    pt2_package_free(pkg);
    return rc;
}

static int cmd_gpus(const struct cli_args *a)
{
    struct pt2_node_gpus *g = calloc(1, sizeof(*g));
    struct pt2_cpu_info cpu;
    struct pt2_error err = {0};
    cJSON *doc = NULL, *cj = NULL;
    int rc = CLI_OK;

    if (g == NULL)
        return fail("gpus", "out of memory");
    if (pt2_cuda_probe(a->libcuda, g, &err) != PT2_OK || pt2_cpu_probe(&cpu, &err) != PT2_OK) {
        rc = fail("gpus", err.message);
        goto cleanup;
    }
    if (pt2_cuda_to_json(g, &doc, &err) != PT2_OK || pt2_cpu_to_json(&cpu, &cj, &err) != PT2_OK) {
        rc = fail("gpus", err.message);
        goto cleanup;
    }
    cJSON_AddItemToObject(doc, "cpu", cj);
    cj = NULL;
    if (a->json) {
        print_json(doc);
    } else {
        if (g->driver_cuda_version)
            printf("Driver      CUDA %d.%d\n", g->driver_cuda_version / 1000,
                   (g->driver_cuda_version % 1000) / 10);
        for (size_t i = 0; i < g->n; i++)
            printf("cuda:%-6d %s, compute capability %d.%d, %d SMs, %.1f GiB, %s, %s\n",
                   g->gpus[i].index, g->gpus[i].name, g->gpus[i].cc_major, g->gpus[i].cc_minor,
                   g->gpus[i].sm_count, (double)g->gpus[i].total_memory / (1024.0 * 1024 * 1024),
                   g->gpus[i].uuid, g->gpus[i].pci_bus_id);
        if (g->n == 0)
            printf("GPUs        none: %s\n", g->reason);
        printf("CPU         %s, %s", cpu.machine, cpu.model[0] ? cpu.model : "unknown model");
        printf(" (%zu features)\n", cpu.nfeatures);
    }
cleanup:
    cJSON_Delete(cj);
    cJSON_Delete(doc);
    free(g);
    return rc;
}

int main(int argc, char **argv)
{
    struct cli_args a;
    int rc;

    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
                      strcmp(argv[1], "help") == 0)) {
        usage(stdout);
        return CLI_OK;
    }
    rc = parse_args(argc, argv, &a);
    if (rc != CLI_OK)
        return rc;
    if (strcmp(a.cmd, "inspect") == 0)
        return cmd_inspect(&a);
    if (strcmp(a.cmd, "check") == 0)
        return cmd_check(&a);
    if (strcmp(a.cmd, "check-kernel") == 0)
        return cmd_check_kernel(&a);
    if (strcmp(a.cmd, "validate") == 0)
        return cmd_validate(&a);
    if (strcmp(a.cmd, "gpus") == 0)
        return cmd_gpus(&a);
    if (strcmp(a.cmd, "version") == 0 || strcmp(a.cmd, "--version") == 0) {
        printf("pt2scope %s (schema %d)\n", PT2SCOPE_VERSION, PT2SCOPE_SCHEMA_VERSION);
        return CLI_OK;
    }
    fprintf(stderr, "pt2scope: usage: unknown command '%s' (try 'pt2scope --help')\n", a.cmd);
    return CLI_ERROR;
}
