/*
 * cli_main.c - `pt2scope`: inspect, check, check-kernel, validate, gpus, scan, affinity.
 *
 * Design: argument parsing and exit codes only; every answer, every verdict
 * and every rule comes from libpt2scope's public header. Errors are one
 * line on stderr ("pt2scope: <what>: <why>"). Exit codes (enum cli_exit):
 * 0 compatible / valid, 1 incompatible / invalid, 2 usage error or no
 * package found, 3 a package could not be read or judged (3 wins over 1),
 * so pipelines tell "will not run" from "could not tell". `--format junit`
 * and `--format sarif` write reports instead of text (cli_format.h). Options are parsed by
 * getopt_long, so `--target=H100` and `--target H100` both work and may
 * come before or after the file.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <curl/curl.h>

#include "cli.h"
#include "cli_format.h"
#include "pt2_remote.h"
#include "pt2scope.h"

#define MAX_TARGETS 64
#define MAX_INPUTS 256

enum {
    OPT_JSON = 0x100,
    OPT_OIP,
    OPT_DRIVER,
    OPT_DEVICE,
    OPT_LIBCUDA,
    OPT_SYSFS,
    OPT_NODES,
    OPT_YAML,
    OPT_RUNTIME,
    OPT_SYSROOT,
    OPT_LIBTORCH,
    OPT_STRICT,
    OPT_FORMAT,
    OPT_PLATFORM,
    OPT_CONCURRENCY,
    OPT_STATE,
    OPT_SHARD,
    OPT_OUTPUT,
    OPT_MODEL
};
_Static_assert(OPT_MODEL - OPT_JSON < 24, "option bits stay below O_TARGET and O_INPUT");

/* Which options each command takes (bits of 1 << (opt - OPT_JSON)); 't' and 'i' below. */
#define O(x) (1u << ((x)-OPT_JSON))
#define O_TARGET (1u << 24)
#define O_INPUT (1u << 25)
#define O_RUNTIME (O(OPT_RUNTIME) | O(OPT_SYSROOT) | O(OPT_LIBTORCH) | O(OPT_STRICT))
#define MAX_RUNTIMES 16

struct cli_args {
    const char *cmd;
    const char *file;
    int json, oip, yaml;
    int format; /* enum cli_format; --json is CLI_FORMAT_JSON */
    const char *targets[MAX_TARGETS];
    size_t ntargets;
    const char *inputs[MAX_INPUTS];
    size_t ninputs;
    const char *driver;
    const char *platform; /* --platform OS/ARCH of every --target */
    const char *model;    /* --model NAME: judge that model of the package only */
    const char *device;
    const char *libcuda;
    const char *sysfs_root;
    const char *nodes;
    const char *runtimes[MAX_RUNTIMES]; /* --runtime SPEC, repeatable */
    size_t nruntimes;
    const char *sysroot, *libtorch;
    int strict;            /* --strict: unverified requirements are incompatible */
    const char *help_text; /* `COMMAND --help`: that command's help */
    char *const *paths;    /* scan: every path after the options */
    size_t npaths;
    struct cli_scan_opts scan; /* scan: --remote-concurrency, --state, --shard, --output */
};

/* Shared lines of the per-command help texts. */
#define H_TARGET                                                                                   \
    "  --target T       a GPU: compute capability (9.0, 90), SM (sm_90a, compute_90), name "       \
    "(H100,\n"                                                                                     \
    "                   A100-SXM4-80GB, RTX 4090, B200) or AMD target (gfx90a, gfx90a:xnack-,\n"   \
    "                   MI300X); repeatable\n"
#define H_RUNTIME                                                                                  \
    "  --runtime SPEC   where the library will load: a base (debian12, ubuntu22.04, rhel9, "       \
    "...),\n"                                                                                      \
    "                   glibc=, glibcxx=, torch=, macos= or local, joined by commas; repeatable\n" \
    "  --sysroot DIR    the serving image mounted at DIR, resolved as its loader would\n"          \
    "  --libtorch PATH  judge torch shims against this libtorch_cpu.so (or its folder)\n"
#define H_STRICT                                                                                   \
    "  --strict         a requirement the target does not settle (the driver of a --target\n"      \
    "                   without --driver, a runtime's undescribed torch) is incompatible\n"
#define H_PLATFORM                                                                                 \
    "  --platform P     the --target nodes' OS/arch: linux/amd64, linux/arm64 or windows/amd64\n"  \
    "                   (default: Linux on amd64 or arm64, where GPUs ship)\n"
#define H_MODEL                                                                                    \
    "  --model NAME     only this model of a package with several (data/aotinductor/NAME/):\n"     \
    "                   the one torch's loader is given (its model_name)\n"
#define H_DRIVER                                                                                   \
    "  --driver X.Y     the CUDA version the driver supports (12.4, or cuDriverGetVersion()'s\n"   \
    "                   12040); applies to every --target\n"
#define H_PROBE                                                                                    \
    "  --libcuda PATH   the CUDA driver library to probe (PT2SCOPE_LIBCUDA; default "              \
    "libcuda.so.1)\n"                                                                              \
    "  --sysfs-root DIR where the AMD KFD topology is read (PT2SCOPE_SYSFS_ROOT; default /sys)\n"
#define H_FORMAT                                                                                   \
    "  --format F       text, json (--json), junit (a test case per package and target) or\n"      \
    "                   sarif (SARIF 2.1.0: a result per incompatible verdict)\n"
#define H_EXIT                                                                                     \
    "2 usage error or no package found, 3 the package could not be read (3 wins over 1)\n"
#define H_URL                                                                                      \
    "FILE may be an http://, https:// or s3://bucket/key URL, read with Range requests (S3\n"      \
    "credentials from the AWS_* variables).\n"

/* The help of one command: `pt2scope COMMAND --help`. Each names every option the command takes. */
static const struct command {
    const char *name;
    unsigned opts;
    int needs_file;
    const char *help;
} commands[] = {
    {"inspect", O(OPT_JSON) | O(OPT_OIP) | O(OPT_MODEL), 1,
     "usage: pt2scope inspect FILE [--json] [--oip] [--model NAME]\n\n"
     "What FILE was compiled for (targets, host code, CPU ISA), its models' inputs and outputs,\n"
     "its metadata and warnings.\n\n"
     "  --json           the document GET /v1/inspect returns\n"
     "  --oip            with --json: the metadata as the Open Inference Protocol's model "
     "metadata\n" H_MODEL "\n" H_URL "\nexit status: 0 inspected, " H_EXIT},
    {"check",
     O(OPT_JSON) | O(OPT_DRIVER) | O(OPT_DEVICE) | O(OPT_LIBCUDA) | O(OPT_SYSFS) | O(OPT_NODES) |
         O_TARGET | O_RUNTIME | O(OPT_FORMAT) | O(OPT_PLATFORM) | O(OPT_MODEL),
     1,
     "usage: pt2scope check FILE --target T [--target T ...] [--driver X.Y] [--json]\n"
     "       pt2scope check FILE [--device cuda:N] [--json]\n"
     "       pt2scope check FILE --nodes NODES.json [--json]\n"
     "       pt2scope check FILE [--runtime SPEC]... [--sysroot DIR] [--libtorch PATH]\n\n"
     "Will FILE run on these GPUs; without --target, on this node's GPUs and CPU and this\n"
     "machine's runtime (then an \"overall:\" line: the one answer); with --nodes, on each\n"
     "Kubernetes node. Runtimes: does its library load there (README, \"Runtime "
     "needs\").\n\n" H_TARGET H_PLATFORM H_RUNTIME H_STRICT H_DRIVER H_MODEL
     "  --device D       keep one GPU of this node: cuda:N (rocm:N for AMD)\n"
     "  --nodes FILE     Kubernetes nodes with GPU Feature Discovery labels (kubectl get nodes\n"
     "                   -o json); no --target or --device with it\n"
     "  --json           the {\"compatibility\", \"overall\"} object /v1/inspect carries\n" H_FORMAT
         H_PROBE "\n" H_URL
     "\nexit status: 0 compatible (PTX JIT included), 1 incompatible (any node),\n" H_EXIT},
    {"check-kernel", O(OPT_DRIVER) | O(OPT_DEVICE) | O(OPT_LIBCUDA) | O(OPT_SYSFS) | O_TARGET, 1,
     "usage: pt2scope check-kernel FILE (--target T | --device cuda:N) [--driver X.Y]\n\n"
     "Will a raw kernel file (.cubin, .fatbin, .ptx, .hsaco) run on T, or on one GPU of this\n"
     "node? FILE is a local file.\n\n" H_TARGET H_DRIVER
     "  --device D       one GPU of this node: cuda:N (rocm:N for AMD)\n" H_PROBE
     "\nexit status: 0 compatible, 1 incompatible, " H_EXIT},
    {"validate", O(OPT_JSON) | O_INPUT | O(OPT_FORMAT) | O(OPT_MODEL), 1,
     "usage: pt2scope validate FILE --input NAME=D1,D2,... [--input ...] [--json]\n\n"
     "Are these input shapes acceptable to FILE's models (fixed dimensions, dynamic bounds,\n"
     "shared size symbols)? Every violation is printed.\n\n"
     "  --input N=D,...  one input's proposed shape; repeatable\n"
     "  --json           the document POST /v1/validate returns\n" H_FORMAT H_MODEL "\n" H_URL
     "\nexit status: 0 valid, 1 invalid, " H_EXIT},
    {"gpus", O(OPT_JSON) | O(OPT_LIBCUDA) | O(OPT_SYSFS), 0,
     "usage: pt2scope gpus [--json]\n\n"
     "This node's GPUs (NVIDIA through the CUDA Driver API, AMD from the KFD topology) and CPU.\n\n"
     "  --json           the document GET /v1/node returns\n" H_PROBE
     "\nexit status: 0, 2 error\n"},
    {"affinity", O(OPT_JSON) | O(OPT_YAML) | O(OPT_MODEL), 1,
     "usage: pt2scope affinity FILE [--json | --yaml]\n\n"
     "The Kubernetes nodeAffinity that selects the nodes FILE runs on, over GPU Feature\n"
     "Discovery labels (JSON by default).\n\n"
     "  --json           the same JSON (the default)\n"
     "  --yaml           a snippet to paste under a pod template's spec:\n" H_MODEL "\n" H_URL
     "\nexit status: 0, 1 no node can run it, " H_EXIT},
    {"scan",
     O(OPT_JSON) | O(OPT_DRIVER) | O_TARGET | O_RUNTIME | O(OPT_FORMAT) | O(OPT_PLATFORM) |
         O(OPT_CONCURRENCY) | O(OPT_STATE) | O(OPT_SHARD) | O(OPT_OUTPUT),
     2, /* 2: one or more paths */
     "usage: pt2scope scan PATH... [--target T]... [--runtime SPEC]... [--sysroot DIR]\n"
     "                     [--libtorch PATH] [--driver X.Y] [--json | --format F]\n"
     "                     [--remote-concurrency N] [--state FILE] [--shard I/N]\n"
     "                     [--output s3://BUCKET/PREFIX/]\n\n"
     "Every package under the files and folders given (a folder recursively: its *.pt2 files),\n"
     "URLs, and every *.pt2 object under an s3://BUCKET/PREFIX/ (a URL ending in '/', listed\n"
     "with ListObjectsV2), one line each: name, kind, targets, and with --target / --runtime\n"
     "the verdict per target and runtime; then \"N packages: N compatible, N incompatible, N "
     "unreadable\".\n\n" H_TARGET H_PLATFORM H_RUNTIME H_DRIVER
     "  --json           one JSON array of the items GET /v1/packages lists\n" H_FORMAT
     "  --format jsonl   one item per line, printed as each completes (not in order)\n"
     "  --remote-concurrency N\n"
     "                   remote packages in flight at once (1..256, default 16)\n"
     "  --state FILE     incremental: read only the listed objects whose ETag or size changed\n"
     "                   since the scan that wrote FILE (JSON Lines; rewritten at the end)\n"
     "  --shard I/N      only the packages whose key hashes to shard I of N (0 <= I < N; FNV-1a\n"
     "                   64 of the object key, or of the path as given, modulo N)\n"
     "  --output URL     also upload the items as JSON Lines with one PUT: to s3://BUCKET/KEY,\n"
     "                   or under s3://BUCKET/PREFIX/ as scan.jsonl (scan-I-of-N.jsonl with "
     "--shard)\n"
     "\nexit status: 0 all compatible, 1 any incompatible, 2 a path that does not exist, no\n"
     "package found or a usage error, 3 any package could not be read (3 wins over 1)\n"},
    {"version", 0, 0, "usage: pt2scope version\n\nThe version and the JSON schema version.\n"},
};

static const struct option long_opts[] = {
    {"json", no_argument, NULL, OPT_JSON},
    {"oip", no_argument, NULL, OPT_OIP},
    {"target", required_argument, NULL, 't'},
    {"input", required_argument, NULL, 'i'},
    {"driver", required_argument, NULL, OPT_DRIVER},
    {"device", required_argument, NULL, OPT_DEVICE},
    {"libcuda", required_argument, NULL, OPT_LIBCUDA},
    {"sysfs-root", required_argument, NULL, OPT_SYSFS},
    {"nodes", required_argument, NULL, OPT_NODES},
    {"yaml", no_argument, NULL, OPT_YAML},
    {"runtime", required_argument, NULL, OPT_RUNTIME},
    {"sysroot", required_argument, NULL, OPT_SYSROOT},
    {"libtorch", required_argument, NULL, OPT_LIBTORCH},
    {"strict", no_argument, NULL, OPT_STRICT},
    {"platform", required_argument, NULL, OPT_PLATFORM},
    {"model", required_argument, NULL, OPT_MODEL},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"remote-concurrency", required_argument, NULL, OPT_CONCURRENCY},
    {"state", required_argument, NULL, OPT_STATE},
    {"shard", required_argument, NULL, OPT_SHARD},
    {"output", required_argument, NULL, OPT_OUTPUT},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

int cli_target(const char *text, int driver, const char *platform, struct pt2_device *dev)
{
    struct pt2_error err = {0};

    if (pt2_target_parse(text, dev, &err) != PT2_OK)
        return cli_fail(err.code, "--target", err.message);
    dev->driver_cuda_version = driver;
    if (platform != NULL && pt2_platform_parse(platform, dev, &err) != PT2_OK)
        return cli_fail(err.code, "--platform", err.message);
    return CLI_OK;
}

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: pt2scope <command> [options]\n"
        "\n"
        "  inspect FILE [--json] [--oip]           what FILE was compiled for, its metadata\n"
        "                                          (FILE may be an http://, https:// or s3:// "
        "URL,\n"
        "                                          read with Range requests; S3 from AWS_* "
        "variables)\n"
        "  check FILE --target T [--target T ...] [--driver X.Y] [--json]\n"
        "                                          will FILE run on T (9.0, sm_90a, H100, "
        "gfx90a)?\n"
        "  check FILE [--device cuda:N] [--json]   ... on this node's GPUs and CPU?\n"
        "  check FILE --nodes NODES.json [--json]  ... on each Kubernetes node (kubectl get nodes "
        "-o json)?\n"
        "  check-kernel FILE (--target T | --device cuda:N) [--driver X.Y]\n"
        "                                          the same for a raw .cubin/.fatbin/.hsaco\n"
        "  validate FILE --input NAME=D1,D2,... [--input ...] [--json]\n"
        "                                          are these input shapes acceptable?\n"
        "  gpus [--json]                           this node's GPUs (NVIDIA, AMD) and CPU\n"
        "  affinity FILE [--json | --yaml]         a Kubernetes nodeAffinity selecting the nodes "
        "FILE runs on\n"
        "  scan PATH... [--target T]... [--driver X.Y] [--json]\n"
        "                                          every package under files and folders (and "
        "URLs), one line each\n"
        "                                          (s3://BUCKET/PREFIX/: every *.pt2 object "
        "listed there)\n"
        "  version\n"
        "\n"
        "  --libcuda PATH, --sysfs-root DIR        where to probe this node's GPUs\n"
        "  --format text|json|junit|sarif          check, validate, scan: the output (json is "
        "--json;\n"
        "                                          junit: a test case per package and target; "
        "sarif:\n"
        "                                          SARIF 2.1.0, a result per incompatible "
        "verdict)\n"
        "\n"
        "'pt2scope COMMAND --help' describes one command and every option it takes.\n"
        "\n"
        "exit status: 0 ok/compatible/valid, 1 incompatible/invalid, 2 usage error or no "
        "package\n"
        "             found, 3 a package could not be read (3 wins over 1)\n");
}

/* Set once the arguments are read: failures then also print a problem document. */
static int json_errors;

/*
 * One line on stderr; with --json also, on stdout, the problem document the
 * HTTP API answers for the same failure (pt2_problem_json), so a pipeline
 * reads the same `type` whichever way it asked.
 */
static int fail_code(int code, const char *what, const char *why)
{
    fprintf(stderr, "pt2scope: %s: %s\n", what, why);
    if (json_errors) {
        char detail[PT2_ERROR_MSG_MAX + 256];
        cJSON *doc;
        char *s;

        snprintf(detail, sizeof(detail), "%s: %s", what, why);
        doc = pt2_problem_json(code, detail, NULL);
        s = doc != NULL ? cJSON_Print(doc) : NULL;
        if (s != NULL) {
            pt2_utf8_scrub(s, strlen(s));
            printf("%s\n", s);
        }
        cJSON_free(s);
        cJSON_Delete(doc);
    }
    return CLI_ERROR;
}

int cli_fail(int code, const char *what, const char *why)
{
    return fail_code(code, what, why);
}

/* A usage mistake or a local failure without a library status. */
static int fail(const char *what, const char *why)
{
    return fail_code(PT2_ERR_INVALID, what, why);
}

/* A library failure: its status decides the problem type. */
static int fail_err(const char *what, const struct pt2_error *err)
{
    return fail_code(err->code, what, err->message);
}

/* --remote-concurrency N (1..256) or --shard I/N (0 <= I < N <= 65536) into so. */
static int parse_scan_number(int opt, const char *v, struct cli_scan_opts *so)
{
    const char *slash = strchr(v, '/');
    uint64_t a = 0, b = 0;

    if (opt == OPT_CONCURRENCY) {
        if (pt2_num_u64n(v, strlen(v), 10, &a) != PT2_OK || a < 1 || a > 256)
            return fail("--remote-concurrency", "takes a number from 1 to 256");
        so->concurrency = (unsigned)a;
        return CLI_OK;
    }
    if (slash == NULL || pt2_num_u64n(v, (size_t)(slash - v), 10, &a) != PT2_OK ||
        pt2_num_u64n(slash + 1, strlen(slash + 1), 10, &b) != PT2_OK || b < 1 || b > 65536 ||
        a >= b)
        return fail("--shard", "takes I/N: shard I (0 to N-1) of N (1 to 65536)");
    so->shard = (unsigned)a;
    so->shards = (unsigned)b;
    return CLI_OK;
}

/* *help: 1 when the arguments ask for help (a->help_text: the command's, or NULL). */
static int parse_args(int argc, char **argv, struct cli_args *a, int *help)
{
    const struct command *cmd = NULL;
    int c;

    memset(a, 0, sizeof(*a));
    *help = 0;
    if (argc < 2)
        return fail("usage", "no command given (try 'pt2scope --help')");
    a->cmd = argv[1];
    if (strcmp(a->cmd, "help") == 0 && argc > 2) /* `pt2scope help check` */
        for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
            if (strcmp(commands[i].name, argv[2]) == 0) {
                *help = 1;
                a->help_text = commands[i].help;
                return CLI_OK;
            }
    if (strcmp(a->cmd, "--help") == 0 || strcmp(a->cmd, "-h") == 0 || strcmp(a->cmd, "help") == 0) {
        *help = 1;
        return CLI_OK;
    }
    if (strcmp(a->cmd, "--version") == 0)
        a->cmd = "version";
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(commands[i].name, a->cmd) == 0)
            cmd = &commands[i];
    if (cmd == NULL) {
        fprintf(stderr, "pt2scope: usage: unknown command '%s' (try 'pt2scope --help')\n", a->cmd);
        return CLI_ERROR;
    }
    optind = 1;
    opterr = 0;
    /* argv[1] (the command) stands in for the program name. */
    while ((c = getopt_long(argc - 1, argv + 1, ":t:i:h", long_opts, NULL)) != -1) {
        unsigned bit = c == 't' ? O_TARGET : c == 'i' ? O_INPUT : c >= OPT_JSON ? O(c) : 0;
        /* The word just read (argv is shifted by one for getopt). */
        const char *word = argv[optind < argc ? optind : argc - 1];

        if (c == 'h') {
            *help = 1;
            a->help_text = cmd->help;
            return CLI_OK;
        }
        if (c == '?' || c == ':') {
            fprintf(stderr,
                    c == '?' ? "pt2scope: usage: unknown option '%s'\n"
                             : "pt2scope: usage: option '%s' needs a value\n",
                    word);
            return CLI_ERROR;
        }
        if ((cmd->opts & bit) == 0) {
            const char *name = "";
            for (const struct option *o = long_opts; o->name != NULL; o++)
                if (o->val == c)
                    name = o->name;
            fprintf(stderr, "pt2scope: usage: %s does not take --%s\n", cmd->name, name);
            return CLI_ERROR;
        }
        switch (c) {
        case OPT_JSON:
            a->json = json_errors = 1;
            break;
        case OPT_OIP:
            a->oip = 1;
            break;
        case 't':
            if (a->ntargets == MAX_TARGETS)
                return fail("usage", "too many --target options");
            a->targets[a->ntargets++] = optarg;
            break;
        case 'i':
            if (a->ninputs == MAX_INPUTS)
                return fail("usage", "too many --input options");
            a->inputs[a->ninputs++] = optarg;
            break;
        case OPT_DRIVER:
            a->driver = optarg;
            break;
        case OPT_DEVICE:
            a->device = optarg;
            break;
        case OPT_LIBCUDA:
            a->libcuda = optarg;
            break;
        case OPT_SYSFS:
            a->sysfs_root = optarg;
            break;
        case OPT_YAML:
            a->yaml = 1;
            break;
        case OPT_NODES:
            a->nodes = optarg;
            break;
        case OPT_RUNTIME:
            if (a->nruntimes == MAX_RUNTIMES)
                return fail("usage", "too many --runtime options");
            a->runtimes[a->nruntimes++] = optarg;
            break;
        case OPT_SYSROOT:
            a->sysroot = optarg;
            break;
        case OPT_LIBTORCH:
            a->libtorch = optarg;
            break;
        case OPT_STRICT:
            a->strict = 1;
            break;
        case OPT_PLATFORM:
            a->platform = optarg;
            break;
        case OPT_MODEL:
            if (optarg[0] == '\0')
                return fail("usage", "--model takes a model name (data/aotinductor/NAME/)");
            a->model = optarg;
            break;
        case OPT_CONCURRENCY:
        case OPT_SHARD:
            if (parse_scan_number(c, optarg, &a->scan) != CLI_OK)
                return CLI_ERROR;
            break;
        case OPT_STATE:
            a->scan.state = optarg;
            break;
        case OPT_OUTPUT:
            a->scan.output = optarg;
            break;
        case OPT_FORMAT:
            if (strcmp(optarg, "jsonl") == 0 && strcmp(cmd->name, "scan") == 0) {
                a->format = CLI_FORMAT_JSONL;
                break;
            }
            if (cli_format_parse(optarg, &a->format) != 0)
                return fail("usage", "--format takes text, json, junit or sarif");
            if (a->format == CLI_FORMAT_JSON)
                a->json = json_errors = 1;
            break;
        }
    }
    if (a->json && a->format == CLI_FORMAT_JSONL)
        return fail("usage", "--json and --format jsonl exclude each other");
    if (a->json && a->format > CLI_FORMAT_JSON)
        return fail("usage", "--json and --format junit/sarif exclude each other");
    for (int i = optind + 1; i < argc; i++) {
        if (cmd->needs_file == 2) {
            a->paths = argv + i;
            a->npaths = (size_t)(argc - i);
            break;
        }
        if (a->file == NULL && cmd->needs_file) {
            a->file = argv[i];
            continue;
        }
        fprintf(stderr, "pt2scope: usage: unexpected argument '%s'\n", argv[i]);
        return CLI_ERROR;
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

/*
 * A URL (http, https, s3) is read with Range requests (pt2_remote.h); the
 * CLI's user chose it, so no allow list applies (the daemon's do).
 * package.source then says where it came from and what reading it cost.
 */
int cli_open_url_opts(const char *url, const struct pt2_remote_opts *ro, const char *model,
                      pt2_package **pkg, struct pt2_error *err)
{
    struct pt2_open_options oo = {0};
    pt2_remote *r = NULL;
    int rc;

    *pkg = NULL;
    rc = pt2_remote_open(&r, url, ro, err);
    if (rc == PT2_OK) {
        oo.display_name = pt2_remote_name(r);
        oo.model = model;
        rc = pt2_package_open_source(pkg, pt2_remote_source(r), &oo, err);
    }
    if (rc == PT2_OK)
        pt2_package_set_source(*pkg, pt2_remote_source_json(r));
    pt2_remote_free(r);
    return rc;
}

int cli_open_url_model(const char *url, const char *model, pt2_package **pkg, struct pt2_error *err)
{
    struct pt2_remote_opts ro = {0};
    int rc;

    *pkg = NULL;
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        return pt2_error_set(err, PT2_ERR_INTERNAL, "cannot initialise libcurl");
    rc = cli_open_url_opts(url, &ro, model, pkg, err);
    curl_global_cleanup();
    return rc;
}

int cli_open_url(const char *url, pt2_package **pkg, struct pt2_error *err)
{
    return cli_open_url_model(url, NULL, pkg, err);
}

enum { REPORT_VERDICTS, REPORT_PROBLEM, REPORT_VALIDATION };

/* --format junit|sarif: the report on this one package (`doc`, as cli_format.h's `kind`
 * takes it) on stdout, with the exit status `rc`; rc, or 2 when it cannot be written. */
static int report_one(const struct cli_args *a, int kind, const cJSON *doc, const char *key, int rc)
{
    char shown[PT2_REMOTE_URL_MAX + 1];
    const char *name = a->file;
    cli_report *r = NULL;

    /* Never the credentials or query a URL may carry. */
    if (pt2_remote_is_url(a->file))
        name = pt2_remote_shown_url(a->file, shown, sizeof(shown)) == PT2_OK ? shown : "URL";
    if (cli_report_start(&r, a->format, a->cmd, stdout) != PT2_OK)
        return fail_code(PT2_ERR_NOMEM, "report", "out of memory");
    if (kind == REPORT_VERDICTS)
        cli_report_verdicts(r, name, doc, key);
    else if (kind == REPORT_PROBLEM)
        cli_report_problem(r, name, doc);
    else
        cli_report_validation(r, name, doc);
    if (cli_report_finish(r, rc) != PT2_OK)
        return fail("stdout", "cannot write the report");
    return rc;
}

/*
 * The exit status for a package that could not be opened or judged: 2 when
 * there is none (a missing file, a URL that answers 404), for a wrong
 * request and for our own failures; else 3, "unreadable".
 */
static int unreadable_exit(const char *file, int code)
{
    struct stat st;

    if (code == PT2_ERR_NOT_FOUND || code == PT2_ERR_INVALID || code == PT2_ERR_NOMEM ||
        code == PT2_ERR_INTERNAL)
        return CLI_ERROR;
    if (code == PT2_ERR_IO && file != NULL && !pt2_remote_is_url(file) && stat(file, &st) != 0 &&
        (errno == ENOENT || errno == ENOTDIR))
        return CLI_ERROR;
    return CLI_UNREADABLE;
}

/* The package's failure: said as fail_err says it, reported when unreadable, and its status. */
static int pkg_fail(const struct cli_args *a, const char *what, const struct pt2_error *err)
{
    int rc = unreadable_exit(a->file, err->code);
    cJSON *problem;

    fail_err(what, err);
    if (rc != CLI_UNREADABLE || a->format < CLI_FORMAT_JUNIT)
        return rc;
    problem = pt2_problem_json(err->code, err->message, NULL);
    rc = problem != NULL ? report_one(a, REPORT_PROBLEM, problem, NULL, rc)
                         : fail_code(PT2_ERR_NOMEM, "report", "out of memory");
    cJSON_Delete(problem);
    return rc;
}

static int open_pkg(const struct cli_args *a, pt2_package **pkg)
{
    struct pt2_error err = {0};
    struct pt2_open_options oo = {0};

    if (a->file == NULL)
        return fail("usage", "no package file given");
    /* The remote layer's messages start with the URL, without credentials or query. */
    if (pt2_remote_is_url(a->file))
        return cli_open_url_model(a->file, a->model, pkg, &err) == PT2_OK
                   ? CLI_OK
                   : pkg_fail(a, "remote", &err);
    oo.model = a->model;
    if (pt2_package_open_path(pkg, a->file, &oo, &err) != PT2_OK)
        return pkg_fail(a, a->file, &err);
    return CLI_OK;
}

static int probe_node(const struct cli_args *a, pt2_node **node)
{
    struct pt2_node_options no = {a->libcuda, a->sysfs_root, NULL};
    struct pt2_error err = {0};

    if (pt2_node_probe(node, &no, &err) != PT2_OK)
        return fail_err("gpus", &err);
    return CLI_OK;
}

static int cmd_inspect(const struct cli_args *a)
{
    pt2_package *pkg = NULL;
    struct pt2_error err = {0};
    cJSON *doc = NULL;
    int rc = open_pkg(a, &pkg);

    if (rc != CLI_OK)
        return rc;
    /* `inspect --json` is the whole document, scheduling included. */
    if (pt2_package_to_json(pkg, PT2_JSON_AFFINITY | (a->oip ? PT2_JSON_OIP : 0), &doc, &err) !=
        PT2_OK) {
        rc = pkg_fail(a, a->file, &err);
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

/* `prefix` and one line of package-derived text, terminal escapes defanged. */
static void print_line(const char *prefix, const char *text)
{
    char t[1024];

    snprintf(t, sizeof(t), "%s", text != NULL ? text : "");
    cli_defang(t);
    printf("%s%s\n", prefix, t);
}

/* One "label: verdict: reason" line, then "  advice: ..." when there is advice (a verdict
 * other than compatible), terminal escapes defanged. */
static void print_verdict(const char *label, const char *verdict, const char *why,
                          const char *advice)
{
    char l[256], r[1024];

    snprintf(l, sizeof(l), "%s", label != NULL ? label : "");
    snprintf(r, sizeof(r), "%s", why != NULL ? why : "");
    cli_defang(l);
    cli_defang(r);
    printf("%s: %s: %s\n", l, verdict != NULL ? verdict : "", r);
    if (advice != NULL && advice[0] != '\0')
        print_line("  advice: ", advice);
}

/* One verdict per Kubernetes node described by GPU Feature Discovery labels. */
static int check_nodes(const struct cli_args *a, pt2_package *pkg)
{
    pt2_k8s_nodes *nodes = NULL;
    struct pt2_error err = {0};
    cJSON *doc = NULL;
    const cJSON *it;
    char *text = NULL;
    size_t len = 0;
    FILE *f = fopen(a->nodes, "rb");
    int rc = CLI_OK, worst = 0;

    if (f == NULL)
        return fail_code(PT2_ERR_IO, a->nodes, strerror(errno));
    text = malloc(PT2_K8S_TEXT_MAX + 1);
    if (text == NULL) {
        rc = fail_code(PT2_ERR_NOMEM, a->nodes, "out of memory");
        goto cleanup;
    }
    len = fread(text, 1, PT2_K8S_TEXT_MAX + 1, f);
    if (ferror(f) || len > PT2_K8S_TEXT_MAX) {
        rc = ferror(f) ? fail_code(PT2_ERR_IO, a->nodes, "cannot read")
                       : fail_code(PT2_ERR_TOO_LARGE, a->nodes, "larger than 16 MiB");
        goto cleanup;
    }
    if (pt2_k8s_nodes_parse_text(&nodes, text, len, &err) != PT2_OK) {
        rc = fail_err(a->nodes, &err);
        goto cleanup;
    }
    if (pt2_k8s_compat_json(pkg, nodes, &doc, &err) != PT2_OK) {
        rc = pkg_fail(a, a->file, &err);
        goto cleanup;
    }
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(doc, "nodes"))
    {
        const char *v = pt2_json_str(it, "verdict");

        if (v != NULL && strcmp(v, "incompatible") == 0)
            worst = 1;
        if (!a->json && a->format < CLI_FORMAT_JUNIT)
            print_verdict(pt2_json_str(it, "name"), v, pt2_json_str(it, "reason"),
                          pt2_json_str(it, "advice"));
    }
    rc = worst ? CLI_NEGATIVE : CLI_OK;
    if (a->json)
        print_json(doc);
    else if (a->format >= CLI_FORMAT_JUNIT)
        rc = report_one(a, REPORT_VERDICTS, cJSON_GetObjectItemCaseSensitive(doc, "nodes"), "name",
                        rc);
cleanup:
    cJSON_Delete(doc);
    pt2_k8s_nodes_free(nodes);
    free(text);
    fclose(f);
    return rc;
}

static int cmd_check(const struct cli_args *a)
{
    pt2_package *pkg = NULL;
    pt2_verdicts *v = NULL;
    pt2_node *node = NULL;
    struct pt2_error err = {0};
    struct pt2_verdict_result overall;
    cJSON *doc = NULL;
    const cJSON *e, *arr;
    pt2_runtime *rts[MAX_RUNTIMES + 2];
    size_t nrts = 0;
    int rc, driver = 0;

    if (a->driver != NULL && pt2_driver_version_parse(a->driver, &driver, &err) != PT2_OK)
        return fail_err("--driver", &err);
    if (a->nodes != NULL && (a->ntargets > 0 || a->device != NULL))
        return fail("usage", "--nodes checks Kubernetes nodes; it takes no --target or --device");
    if (a->device != NULL && a->ntargets > 0)
        return fail("usage", "--device picks one of this node's GPUs; it takes no --target");
    if (a->platform != NULL && a->ntargets == 0)
        return fail("usage", "--platform is the platform of the --target nodes; give a --target");
    /* Without targets the question is "here": this machine's runtime too. */
    rc = cli_runtimes(a->runtimes, a->nruntimes, a->sysroot, a->libtorch, a->ntargets == 0, rts,
                      &nrts);
    if (rc != CLI_OK)
        return rc;
    rc = open_pkg(a, &pkg);
    if (rc != CLI_OK)
        return rc;
    if (a->nodes != NULL) {
        rc = check_nodes(a, pkg);
        goto cleanup;
    }
    if (pt2_verdicts_new(&v, &err) != PT2_OK) {
        rc = fail_err("check", &err);
        goto cleanup;
    }
    pt2_verdicts_set_strict(v, a->strict);
    for (size_t i = 0; i < a->ntargets; i++) {
        struct pt2_device dev;

        if ((rc = cli_target(a->targets[i], driver, a->platform, &dev)) != CLI_OK)
            goto cleanup;
        if (pt2_verdicts_add_target(v, pkg, a->targets[i], &dev, &err) != PT2_OK) {
            rc = pkg_fail(a, "check", &err);
            goto cleanup;
        }
    }
    if (a->ntargets == 0) {
        rc = probe_node(a, &node);
        if (rc != CLI_OK)
            goto cleanup;
        if (pt2_verdicts_add_node(v, pkg, node, a->device, driver, &err) != PT2_OK) {
            rc = pkg_fail(a, a->device != NULL ? a->device : "check", &err);
            goto cleanup;
        }
    }
    for (size_t i = 0; i < nrts; i++)
        if (pt2_verdicts_add_runtime(v, pkg, rts[i], &err) != PT2_OK) {
            rc = pkg_fail(a, a->file, &err);
            goto cleanup;
        }
    if (pt2_verdicts_to_json(v, &doc, &err) != PT2_OK ||
        pt2_verdicts_overall(v, &overall, &err) != PT2_OK) {
        rc = fail_err("check", &err);
        goto cleanup;
    }
    rc = overall.verdict == PT2_INCOMPATIBLE ? CLI_NEGATIVE : CLI_OK;
    arr = cJSON_GetObjectItemCaseSensitive(doc, "compatibility");
    if (a->json) {
        print_json(doc);
    } else if (a->format >= CLI_FORMAT_JUNIT) {
        rc = report_one(a, REPORT_VERDICTS, arr, "target", rc);
    } else {
        cJSON_ArrayForEach(e, arr)
            print_verdict(pt2_json_str(e, "target"), pt2_json_str(e, "verdict"),
                          pt2_json_str(e, "reason"), pt2_json_str(e, "advice"));
        /* One target: its line is the overall answer already. */
        if (!(a->ntargets == 1 && cJSON_GetArraySize(arr) == 1))
            print_verdict("overall", pt2_verdict_name(overall.verdict), overall.reason,
                          overall.verdict != PT2_COMPATIBLE ? overall.advice : NULL);
    }
cleanup:
    cJSON_Delete(doc);
    pt2_verdicts_free(v);
    pt2_node_free(node);
    pt2_package_free(pkg);
    for (size_t i = 0; i < nrts; i++)
        pt2_runtime_free(rts[i]);
    return rc;
}

/* Raw kernel files (no package), against a target or one of this node's GPUs. */
static int cmd_check_kernel(const struct cli_args *a)
{
    struct pt2_error err = {0};
    struct pt2_device dev;
    struct pt2_verdict_result r;
    pt2_node *node = NULL;
    char label[64];
    int rc = CLI_ERROR, driver = 0;

    if (a->file == NULL)
        return fail("usage", "no kernel file given");
    if (a->driver != NULL && pt2_driver_version_parse(a->driver, &driver, &err) != PT2_OK)
        return fail_err("--driver", &err);
    if (a->ntargets > 1 || (a->ntargets == 1 && a->device != NULL))
        return fail("usage", "check-kernel takes one --target or one --device");
    if (a->ntargets == 1) {
        if (pt2_target_parse(a->targets[0], &dev, &err) != PT2_OK)
            return fail_err("--target", &err);
    } else {
        rc = probe_node(a, &node);
        if (rc != CLI_OK)
            return rc;
        if (pt2_node_device(node, a->device, &dev, label, sizeof(label), &err) != PT2_OK) {
            rc = fail_err(a->device != NULL ? a->device : "cuda", &err);
            goto cleanup;
        }
    }
    if (driver)
        dev.driver_cuda_version = driver;
    if (pt2_kernel_file_check(a->file, &dev, &r, &err) != PT2_OK) {
        rc = pkg_fail(a, a->file, &err);
        goto cleanup;
    }
    print_verdict(a->file, pt2_verdict_name(r.verdict), r.reason,
                  r.verdict != PT2_COMPATIBLE ? r.advice : NULL);
    rc = r.verdict == PT2_INCOMPATIBLE ? CLI_NEGATIVE : CLI_OK;
cleanup:
    pt2_node_free(node);
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
        const char *comma = strchr(p, ',');
        size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
        uint64_t v;

        if (pt2_num_u64n(p, len, 10, &v) != PT2_OK || v > (1ull << 53)) {
            fprintf(stderr, "pt2scope: --input: '%s': dimensions must be integers >= 0\n", spec);
            return CLI_ERROR;
        }
        cJSON_AddItemToArray(dims, cJSON_CreateNumber((double)v));
        if (comma == NULL)
            break;
        p = comma + 1;
    }
    return CLI_OK;
}

static int cmd_validate(const struct cli_args *a)
{
    pt2_package *pkg = NULL;
    struct pt2_error err = {0};
    cJSON *inputs = cJSON_CreateObject(), *doc = NULL;
    const cJSON *it;
    int rc = CLI_OK;

    if (inputs == NULL)
        return fail_code(PT2_ERR_NOMEM, "validate", "out of memory");
    if (a->ninputs == 0) {
        rc = fail("usage", "validate needs at least one --input NAME=D1,D2,...");
        goto cleanup;
    }
    for (size_t i = 0; i < a->ninputs && rc == CLI_OK; i++)
        rc = parse_input(a->inputs[i], inputs);
    if (rc != CLI_OK)
        goto cleanup;
    rc = open_pkg(a, &pkg);
    if (rc != CLI_OK)
        goto cleanup;
    if (pt2_package_validate(pkg, inputs, &doc, &err) != PT2_OK) {
        rc = pkg_fail(a, a->file, &err);
        goto cleanup;
    }
    rc = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc, "valid")) ? CLI_OK : CLI_NEGATIVE;
    if (a->json) {
        print_json(doc);
    } else if (a->format >= CLI_FORMAT_JUNIT) {
        rc = report_one(a, REPORT_VALIDATION, doc, NULL, rc);
    } else {
        /* Every violation on its own line; "valid" when there is none. */
        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(doc, "errors"))
            print_line("", cJSON_IsString(it) ? it->valuestring : pt2_json_str(it, "message"));
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc, "valid")))
            printf("valid\n");
        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(doc, "warnings"))
            print_line("note: ", it->valuestring);
    }
cleanup:
    cJSON_Delete(doc);
    cJSON_Delete(inputs);
    pt2_package_free(pkg);
    return rc;
}

/* The nodeAffinity that selects the nodes the package runs on: JSON, or a YAML snippet. */
static int cmd_affinity(const struct cli_args *a)
{
    pt2_package *pkg = NULL;
    struct pt2_error err = {0};
    cJSON *aff = NULL;
    char note[1024];
    int rc, selectable = 0;

    if (a->json && a->yaml)
        return fail("usage", "--json and --yaml exclude each other");
    rc = open_pkg(a, &pkg);
    if (rc != CLI_OK)
        return rc;
    if (pt2_package_node_affinity(pkg, &aff, &selectable, &err) != PT2_OK) {
        rc = pkg_fail(a, a->file, &err);
        goto cleanup;
    }
    if (a->yaml && pt2_package_node_affinity_note(pkg, note, sizeof(note), &err) != PT2_OK) {
        rc = fail_err(a->file, &err);
        goto cleanup;
    }
    if (a->yaml)
        cli_yaml_affinity(stdout, aff, a->file, note);
    else
        print_json(aff);
    /* No node can run it: the selector matches nothing, say so in the status too. */
    rc = selectable ? CLI_OK : CLI_NEGATIVE;
cleanup:
    cJSON_Delete(aff);
    pt2_package_free(pkg);
    return rc;
}

static int cmd_gpus(const struct cli_args *a)
{
    pt2_node *node = NULL;
    struct pt2_error err = {0};
    cJSON *doc = NULL;
    int rc = probe_node(a, &node);

    if (rc != CLI_OK)
        return rc;
    if (pt2_node_to_json(node, &doc, &err) != PT2_OK) {
        rc = fail_err("gpus", &err);
        goto cleanup;
    }
    if (a->json) {
        print_json(doc);
    } else {
        cli_sanitize(doc);
        cli_render_node(stdout, doc);
    }
cleanup:
    cJSON_Delete(doc);
    pt2_node_free(node);
    return rc;
}

int main(int argc, char **argv)
{
    struct cli_args a;
    int rc, help;

    rc = parse_args(argc, argv, &a, &help);
    if (rc != CLI_OK)
        return rc;
    json_errors = a.json;
    if (help) {
        if (a.help_text != NULL)
            fputs(a.help_text, stdout);
        else
            usage(stdout);
        return CLI_OK;
    }
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
    if (strcmp(a.cmd, "affinity") == 0)
        return cmd_affinity(&a);
    if (strcmp(a.cmd, "scan") == 0)
        return cli_scan(a.paths, a.npaths, a.targets, a.ntargets, a.driver, a.platform,
                        a.json ? CLI_FORMAT_JSON : a.format, a.runtimes, a.nruntimes, a.sysroot,
                        a.libtorch, &a.scan);
    printf("pt2scope %s (schema %d)\n", PT2SCOPE_VERSION, PT2SCOPE_SCHEMA_VERSION);
    return CLI_OK;
}
