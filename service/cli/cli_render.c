/*
 * cli_render.c - human-readable rendering of the inspection document.
 *
 * Design: the CLI renders the same JSON document the daemon serves, so the
 * two can never disagree; this file only lays it out for a terminal.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char *str_or(const cJSON *o, const char *key, const char *dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : dflt;
}

static double num_or(const cJSON *o, const char *key, double dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

/* How people name a model's platform: "ROCm" for AMD kernels whatever the device key says. */
static const char *platform_text(const char *platform)
{
    static const struct {
        const char *key, *text;
    } names[] = {{"cuda", "CUDA"},
                 {"rocm", "ROCm"},
                 {"xpu", "Intel XPU"},
                 {"mps", "Apple MPS"},
                 {"cpu", "CPU"}};
    size_t i;

    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(platform, names[i].key) == 0)
            return names[i].text;
    return platform;
}

/* "a, b, c" from a JSON string array. */
static void join(const cJSON *arr, char *buf, size_t len)
{
    const cJSON *it;
    size_t used = 0;

    buf[0] = '\0';
    cJSON_ArrayForEach(it, arr)
    {
        int n;
        if (!cJSON_IsString(it))
            continue;
        n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", it->valuestring);
        if (n < 0 || (size_t)n >= len - used)
            break;
        used += (size_t)n;
    }
}

/* "5 constants, 10240 bytes, 2560 elements (float32: 5)" under a model. */
static void render_size(FILE *f, const cJSON *size)
{
    const cJSON *d;
    char by[512] = "";
    size_t pos = 0;

    if (!cJSON_IsObject(size))
        return;
    cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(size, "by_dtype"))
    {
        int n = snprintf(by + pos, sizeof(by) - pos, "%s%s: %.0f", pos ? ", " : "",
                         str_or(d, "dtype", "unknown"), num_or(d, "count", 0));
        if (n < 0 || (size_t)n >= sizeof(by) - pos)
            break;
        pos += (size_t)n;
    }
    fprintf(f, "  size      %.0f constants, %.0f bytes, %.0f elements%s%s%s\n",
            num_or(size, "constants", 0), num_or(size, "bytes", 0), num_or(size, "elements", 0),
            by[0] ? " (" : "", by, by[0] ? ")" : "");
}

/* "  weights   binary-blob, 1 entry, 8192 bytes stored (declares 4096)"; nothing for none. */
static void render_weights(FILE *f, const cJSON *w)
{
    const cJSON *bytes = cJSON_GetObjectItemCaseSensitive(w, "bytes");
    const cJSON *declared = cJSON_GetObjectItemCaseSensitive(w, "declared_bytes");

    if (!cJSON_IsObject(w) || strcmp(str_or(w, "where", "none"), "none") == 0)
        return;
    fprintf(f, "  weights   %s, %.0f %s", str_or(w, "where", "?"), num_or(w, "entries", 0),
            num_or(w, "entries", 0) == 1 ? "entry" : "entries");
    if (cJSON_IsNumber(bytes))
        fprintf(f, ", %.0f bytes stored", bytes->valuedouble);
    if (cJSON_IsNumber(declared))
        fprintf(f, " (declares %.0f)", declared->valuedouble);
    if (num_or(w, "missing", 0) > 0)
        fprintf(f, ", %.0f missing", num_or(w, "missing", 0));
    fputc('\n', f);
}

/* What a model needs beyond its library: a build, custom operators, Metal shaders. */
static void render_model_needs(FILE *f, const cJSON *m)
{
    char buf[512];
    const cJSON *shaders = cJSON_GetObjectItemCaseSensitive(m, "metal_shader_libraries");

    if (strcmp(str_or(m, "build", "compiled"), "cpp-only") == 0)
        fprintf(f, "  build     C++ sources only%s%s%s: compile it before it can load\n",
                str_or(m, "cmake_target", NULL) != NULL ? " (CMake target " : "",
                str_or(m, "cmake_target", ""), str_or(m, "cmake_target", NULL) != NULL ? ")" : "");
    render_weights(f, cJSON_GetObjectItemCaseSensitive(m, "weights"));
    join(cJSON_GetObjectItemCaseSensitive(m, "custom_ops"), buf, sizeof(buf));
    if (num_or(m, "proxy_nodes", 0) > 0)
        fprintf(f, "  custom    %.0f proxy-executor node%s%s%s\n", num_or(m, "proxy_nodes", 0),
                num_or(m, "proxy_nodes", 0) == 1 ? "" : "s", buf[0] ? ": " : "", buf);
    if (cJSON_IsNumber(shaders))
        fprintf(f, "  shaders   %.0f Metal shader librar%s, compiled from source at load\n",
                shaders->valuedouble, shaders->valuedouble == 1 ? "y" : "ies");
}

/* ExecuTorch programs and pickles the package carries besides its models. */
static void render_extras(FILE *f, const cJSON *pkg)
{
    const cJSON *e;

    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(pkg, "executorch"))
        fprintf(f, "ExecuTorch  %s (%.0f bytes)\n", str_or(e, "name", "?"), num_or(e, "size", 0));
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(pkg, "pickles"))
        fprintf(f, "Pickle      %s (%s, %.0f bytes; loading it executes code)\n",
                str_or(e, "entry", "?"), str_or(e, "kind", "?"), num_or(e, "size", 0));
}

static void render_tensors(FILE *f, const char *title, const cJSON *arr)
{
    const cJSON *t;

    if (cJSON_GetArraySize(arr) == 0)
        return;
    fprintf(f, "%s\n", title);
    cJSON_ArrayForEach(t, arr)
    {
        const char *desc = str_or(t, "description", "");
        const cJSON *shape = cJSON_GetObjectItemCaseSensitive(t, "shape");
        char oip[256] = "";

        /* The OIP view has a datatype and a shape of numbers (-1 dynamic) instead. */
        if (str_or(t, "shape_description", NULL) == NULL && cJSON_IsArray(shape)) {
            const cJSON *d;
            size_t n = 0;

            n += (size_t)snprintf(oip, sizeof(oip), "(");
            cJSON_ArrayForEach(d, shape)
            {
                if (n < sizeof(oip))
                    n += (size_t)snprintf(oip + n, sizeof(oip) - n, "%s%.0f",
                                          d != shape->child ? ", " : "",
                                          cJSON_IsNumber(d) ? d->valuedouble : 0);
            }
            if (n < sizeof(oip))
                snprintf(oip + n, sizeof(oip) - n, ")");
        }
        fprintf(f, "  %-16s %-10s %s%s%s\n", str_or(t, "name", "?"),
                str_or(t, "dtype", str_or(t, "datatype", "?")),
                str_or(t, "shape_description", oip[0] ? oip : "?"), desc[0] ? "  " : "", desc);
    }
}

/* What a kernel line says besides its target, kind and container. */
static void kernel_extra(const cJSON *k, const char *kind, char *extra, size_t len)
{
    extra[0] = '\0';
    if (strcmp(kind, "sass") == 0) {
        const cJSON *abi = cJSON_GetObjectItemCaseSensitive(k, "abi_version");
        const cJSON *stub = cJSON_GetObjectItemCaseSensitive(k, "link_stub");
        snprintf(extra, len, "ELF ABI v%d, CUDA %s%s", cJSON_IsNumber(abi) ? abi->valueint : 0,
                 str_or(k, "toolkit", "?"), cJSON_IsTrue(stub) ? ", device-link stub" : "");
    } else if (strcmp(kind, "ptx") == 0) {
        snprintf(extra, len, "PTX ISA %s", str_or(k, "ptx_isa", "?"));
    } else if (strcmp(kind, "hsaco") == 0) {
        snprintf(extra, len, "%s", str_or(k, "gpu_description", ""));
    }
}

/* The line of kernel `k` without its source: kernels that share it are grouped. */
static void kernel_line(const cJSON *k, char *buf, size_t len)
{
    const char *kind = str_or(k, "kind", "?");
    char extra[160];

    kernel_extra(k, kind, extra, sizeof(extra));
    snprintf(buf, len, "  %-14s %-6s %-10s %s", str_or(k, "target", "?"), kind,
             str_or(k, "container", "?"), extra);
}

/*
 * One line per distinct kernel (78 identical gfx90a code objects are one line
 * with a count); a kernel alone keeps its source and symbol. Quadratic in the
 * number of distinct lines only, which a package has a handful of.
 */
/* "glibc 2.27, GLIBCXX 3.4.30, CXXABI 1.3.9, torch >= 2.7 (aoti_torch_…, surely from 2.9)" */
static void needs_line(const cJSON *needs, char *buf, size_t len)
{
    static const char *const keys[][2] = {{"glibc", "glibc"},   {"glibcxx", "GLIBCXX"},
                                          {"cxxabi", "CXXABI"}, {"gcc", "GCC"},
                                          {"gomp", "GOMP"},     {"macos", "macOS"}};
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(needs, "torch");
    size_t n = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        if (str_or(needs, keys[i][0], NULL) != NULL && n < len)
            n += (size_t)snprintf(buf + n, len - n, "%s%s %s", n ? ", " : "", keys[i][1],
                                  str_or(needs, keys[i][0], ""));
    if (str_or(t, "min", NULL) != NULL && n < len)
        n += (size_t)snprintf(
            buf + n, len - n, "%storch >= %s%s (%s%s%s)", n ? ", " : "", str_or(t, "min", ""),
            cJSON_IsTrue(cJSON_GetObjectItem(t, "lower_bound")) ? " at least" : "",
            str_or(t, "because", ""), str_or(t, "sure_from", NULL) ? ", surely from " : "",
            str_or(t, "sure_from", ""));
    if (cJSON_IsTrue(cJSON_GetObjectItem(t, "exact_build")) && n < len)
        n += (size_t)snprintf(buf + n, len - n, "%sone exact libtorch build (C++ imports)",
                              n ? ", " : "");
    if (str_or(t, "prefix", NULL) != NULL && n < len)
        snprintf(buf + n, len - n, "%sshims under the prefix %s", n ? ", " : "",
                 str_or(t, "prefix", ""));
}

/* One block per host library: format, machine, which one torch loads, what it needs. */
static void render_runtime(FILE *f, const cJSON *rt)
{
    const cJSON *lib;
    char buf[1024];

    cJSON_ArrayForEach(lib, cJSON_GetObjectItemCaseSensitive(rt, "libraries"))
    {
        const cJSON *needs = cJSON_GetObjectItemCaseSensitive(lib, "needs");
        const cJSON *imp = cJSON_GetObjectItemCaseSensitive(lib, "imports");

        fprintf(f, "Library     %s (%s %s%s)\n", str_or(lib, "entry", "?"),
                str_or(lib, "format", "?"), str_or(lib, "machine", "?"),
                cJSON_IsTrue(cJSON_GetObjectItem(lib, "loaded")) ? ", the one torch loads" : "");
        needs_line(needs, buf, sizeof(buf));
        if (buf[0] != '\0')
            fprintf(f, "  needs     %s\n", buf);
        join(cJSON_GetObjectItemCaseSensitive(needs, "libraries"), buf, sizeof(buf));
        if (buf[0] != '\0')
            fprintf(f, "  links     %s\n", buf);
        join(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(lib, "pe"),
                                              "delay_loaded"),
             buf, sizeof(buf));
        if (buf[0] != '\0')
            fprintf(f, "  delayed   %s (loaded at the first call into each)\n", buf);
        if (cJSON_IsObject(imp))
            fprintf(f,
                    "  imports   %.0f symbols: %.0f torch shims, %.0f custom, %.0f prefixed, "
                    "%.0f libtorch C++, %.0f CUDA, %.0f HIP\n",
                    num_or(imp, "total", 0), num_or(imp, "shims", 0),
                    num_or(imp, "custom_shims", 0), num_or(imp, "prefixed_shims", 0),
                    num_or(imp, "libtorch_cxx", 0), num_or(imp, "cuda", 0), num_or(imp, "hip", 0));
    }
}

static void render_kernels(FILE *f, const cJSON *arr)
{
    const cJSON *k, *j;

    if (cJSON_GetArraySize(arr) == 0)
        return;
    fprintf(f, "Kernels\n");
    cJSON_ArrayForEach(k, arr)
    {
        char line[320], other[320];
        int seen = 0, count = 0;

        kernel_line(k, line, sizeof(line));
        for (j = arr->child; j != NULL && j != k && !seen; j = j->next) {
            kernel_line(j, other, sizeof(other));
            seen = strcmp(line, other) == 0;
        }
        if (seen)
            continue; /* printed with the first of its group */
        for (j = k; j != NULL; j = j->next) {
            kernel_line(j, other, sizeof(other));
            count += strcmp(line, other) == 0;
        }
        if (count > 1)
            fprintf(f, "%s  (%d kernels)\n", line, count);
        else
            fprintf(f, "%s  [%s%s%s]\n", line, str_or(k, "source", "?"),
                    str_or(k, "symbol", NULL) ? " " : "", str_or(k, "symbol", ""));
    }
}

/* "key = value", continuation lines of a multi-line value indented under the value. */
static void render_value(FILE *f, const char *key, const char *value)
{
    const char *p = value, *nl;
    int indent = (int)strlen(key) + 5;

    fprintf(f, "  %s = ", key);
    while ((nl = strchr(p, '\n')) != NULL) {
        fprintf(f, "%.*s\n%*s", (int)(nl - p), p, indent, "");
        p = nl + 1;
    }
    fprintf(f, "%s\n", p);
}

/* Replace control bytes with '?' (newlines too unless `keep_nl`): package contents must
 * never drive the terminal. */
static void defang(char *s, int keep_nl)
{
    for (; s != NULL && *s != '\0'; s++)
        if (((unsigned char)*s < 0x20 && !(keep_nl && *s == '\n')) || *s == 0x7f)
            *s = '?';
}

void cli_defang(char *s)
{
    defang(s, 0);
}

/* Metadata maps print multi-line values line by line (render_value); elsewhere a
 * newline would let package text fake a line of the report. */
static void sanitize(cJSON *node, int keep_nl)
{
    cJSON *it;

    for (it = node; it != NULL; it = it->next) {
        defang(it->string, 0);
        if (cJSON_IsString(it))
            defang(it->valuestring, keep_nl);
        if (it->child != NULL)
            sanitize(it->child, it->string != NULL && (strcmp(it->string, "aoti") == 0 ||
                                                       strcmp(it->string, "aoti_metadata") == 0));
    }
}

void cli_sanitize(cJSON *doc)
{
    sanitize(doc, 0);
}

void cli_render_inspect(FILE *f, const cJSON *doc)
{
    const cJSON *pkg = cJSON_GetObjectItemCaseSensitive(doc, "package");
    const cJSON *arch = cJSON_GetObjectItemCaseSensitive(doc, "arch");
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(doc, "metadata");
    const cJSON *models = cJSON_GetObjectItemCaseSensitive(doc, "models");
    const cJSON *warn = cJSON_GetObjectItemCaseSensitive(doc, "warnings");
    const cJSON *isa = cJSON_GetObjectItemCaseSensitive(arch, "cpu_isa");
    const cJSON *aoti = cJSON_GetObjectItemCaseSensitive(meta, "aoti");
    const cJSON *m, *it;
    char buf[1024];

    fprintf(f, "Package     %s (%.0f bytes, %s layout%s%s%s)\n", str_or(pkg, "name", "?"),
            num_or(pkg, "size", 0), str_or(pkg, "layout", "?"),
            str_or(pkg, "prefix", NULL) ? ", prefix " : "", str_or(pkg, "prefix", ""),
            cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pkg, "zip64")) ? ", zip64" : "");
    fprintf(f, "Format      archive_format %s, %.0f entries\n", str_or(pkg, "archive_format", "-"),
            num_or(pkg, "entries", 0));
    if (str_or(pkg, "kind", NULL) != NULL)
        fprintf(f, "Kind        %s\n", str_or(pkg, "kind", ""));
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(meta, "exported_programs"))
    {
        fprintf(f, "Program     %s (%s)\n", str_or(m, "name", "?"), str_or(m, "source", "?"));
        render_size(f, cJSON_GetObjectItemCaseSensitive(m, "size"));
        render_weights(f, cJSON_GetObjectItemCaseSensitive(m, "weights"));
    }
    cJSON_ArrayForEach(m, models)
    {
        join(cJSON_GetObjectItemCaseSensitive(m, "targets"), buf, sizeof(buf));
        fprintf(f, "Model dir   %s (%s, device key %s%s%s)\n", str_or(m, "name", "?"),
                platform_text(str_or(m, "platform", "?")), str_or(m, "device_key", "none"),
                buf[0] ? ", targets " : "", buf);
        render_size(f, cJSON_GetObjectItemCaseSensitive(m, "size"));
        render_model_needs(f, m);
    }
    render_extras(f, pkg);
    if (str_or(arch, "cuda_compute_capability", NULL) != NULL)
        fprintf(f, "GPU         compute capability %s: %s\n",
                str_or(arch, "cuda_compute_capability", ""),
                str_or(arch, "cuda_gpu_description", ""));
    join(cJSON_GetObjectItemCaseSensitive(arch, "cuda_targets"), buf, sizeof(buf));
    if (buf[0])
        fprintf(f, "CUDA        %s\n", buf);
    join(cJSON_GetObjectItemCaseSensitive(arch, "amd_targets"), buf, sizeof(buf));
    if (buf[0])
        fprintf(f, "AMD         %s\n", buf);
    if (str_or(arch, "cpu_description", NULL) != NULL)
        fprintf(f, "CPU         %s\n", str_or(arch, "cpu_description", ""));
    if (cJSON_IsObject(isa)) {
        join(cJSON_GetObjectItemCaseSensitive(isa, "required_features"), buf, sizeof(buf));
        fprintf(f, "CPU ISA     %s (from %s)%s%s%s%s\n", str_or(isa, "display", "unknown"),
                str_or(isa, "source", "?"), str_or(isa, "march", NULL) ? ", -march=" : "",
                str_or(isa, "march", ""), buf[0] ? "; needs " : "", buf);
    }
    render_kernels(f, cJSON_GetObjectItemCaseSensitive(arch, "kernels"));
    if (str_or(meta, "model", NULL) != NULL)
        fprintf(f, "Model       %s\n", str_or(meta, "model", ""));
    else if (str_or(meta, "platform", NULL) != NULL) /* the OIP view */
        fprintf(f, "Model       %s (%s)\n", str_or(meta, "name", ""), str_or(meta, "platform", ""));
    render_tensors(f, "Inputs", cJSON_GetObjectItemCaseSensitive(meta, "inputs"));
    render_tensors(f, "Outputs", cJSON_GetObjectItemCaseSensitive(meta, "outputs"));
    if (cJSON_IsObject(aoti)) {
        fprintf(f, "AOTI metadata\n");
        cJSON_ArrayForEach(it, aoti)
        {
            if (cJSON_IsString(it))
                render_value(f, it->string, it->valuestring);
        }
    }
    cJSON_ArrayForEach(it, warn)
    {
        if (cJSON_IsString(it))
            fprintf(f, "Warning     %s\n", it->valuestring);
    }
    render_runtime(f, cJSON_GetObjectItemCaseSensitive(doc, "runtime"));
    fprintf(f, "Bytes read  %.0f\n", num_or(doc, "bytes_read", 0));
}

void cli_render_node(FILE *f, const cJSON *doc)
{
    const cJSON *g, *cpu = cJSON_GetObjectItemCaseSensitive(doc, "cpu");

    if (str_or(doc, "driver_cuda", NULL) != NULL)
        fprintf(f, "Driver      CUDA %s\n", str_or(doc, "driver_cuda", ""));
    cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(doc, "gpus"))
        fprintf(f, "cuda:%-6.0f %s, compute capability %s, %.0f SMs, %.1f GiB, %s, %s\n",
                num_or(g, "index", 0), str_or(g, "name", "?"), str_or(g, "compute_capability", "?"),
                num_or(g, "sm_count", 0), num_or(g, "total_memory", 0) / (1024.0 * 1024 * 1024),
                str_or(g, "uuid", "?"), str_or(g, "pci_bus_id", "?"));
    if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "gpus")) == 0)
        fprintf(f, "NVIDIA      none: %s\n", str_or(doc, "reason", "?"));
    cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(doc, "amd_gpus"))
        fprintf(f, "%-11s %s, %s, %.0f compute units, %s\n", str_or(g, "target", "?"),
                str_or(g, "name", "?"), str_or(g, "gfx", "?"), num_or(g, "compute_units", 0),
                str_or(g, "pci_bus_id", "?"));
    if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "amd_gpus")) == 0)
        fprintf(f, "AMD         none: %s\n", str_or(doc, "amd_reason", "?"));
    fprintf(f, "CPU         %s, %s (%d features)\n", str_or(cpu, "machine", "?"),
            str_or(cpu, "model", "unknown model"),
            cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(cpu, "features")));
}
