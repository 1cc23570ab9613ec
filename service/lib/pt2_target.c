/*
 * pt2_target.c - what a user names: targets, driver versions, verdict names,
 * and the JSON form of a device (see pt2_target.h).
 *
 * Parsing is strict and never guesses: "9.0", "90", "sm_90a", "compute_120f",
 * a GPU name from the table of pt2_desc, an AMD gfx target with its
 * features, or the full AMD target ID "amdgcn-amd-amdhsa--gfx90a:xnack-".
 * User text echoed into an error message is cut short and stripped of
 * control characters so a message stays one line.
 */
#include <stdio.h>
#include <string.h>

#include "pt2_desc.h"
#include "pt2_model.h"
#include "pt2_sbuf.h"
#include "pt2_target.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define ECHO_MAX 48 /* bytes of user text echoed in messages */

#define TARGET_HINT                                                                                \
    "use a compute capability (9.0), an SM (sm_90a), a GPU name (H100) or an AMD gfx target "      \
    "(gfx90a)"

static char lower(char c)
{
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Decimal digits only, no sign; -1 if not a number in [0, max]. */
static long parse_uint(const char *s, const char **end, long max)
{
    uint64_t v;

    if (pt2_num_u64_prefix(s, 10, &v, end) != PT2_OK || v > (uint64_t)max)
        return -1;
    return (long)v;
}

const char *pt2_verdict_name(int verdict)
{
    switch (verdict) {
    case PT2_COMPATIBLE:
        return "compatible";
    case PT2_COMPATIBLE_PTX_JIT:
        return "compatible-ptx-jit";
    case PT2_UNVERIFIED:
        return "unverified";
    case PT2_INCOMPATIBLE:
        return "incompatible";
    default:
        return "unknown";
    }
}

int pt2_verdict_from_name(const char *name)
{
    int v;

    for (v = PT2_COMPATIBLE; name != NULL && v <= PT2_INCOMPATIBLE; v++)
        if (strcmp(name, pt2_verdict_name(v)) == 0)
            return v;
    return -1;
}

int pt2_driver_version_parse(const char *text, int *out, struct pt2_error *err)
{
    char t[32], shown[ECHO_MAX + 1];
    const char *p;
    long major, minor = 0, v;

    if (out != NULL)
        *out = 0;
    if (text == NULL || out == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "no CUDA driver version given");
    pt2_sbuf_echo(shown, sizeof(shown), text, ECHO_MAX);
    if (!pt2_sbuf_trim(t, sizeof(t), text) || (v = parse_uint(t, &p, 99999)) < 0)
        goto bad;
    if (*p == '.') {
        /* "12.4" or "12.4.1" (the patch level does not matter). */
        major = v;
        if ((minor = parse_uint(p + 1, &p, 99)) < 0)
            goto bad;
        if (*p == '.' && parse_uint(p + 1, &p, 9999) < 0)
            goto bad;
        if (*p != '\0' || major < 1 || major > 99)
            goto bad;
        *out = (int)(major * 1000 + minor * 10);
        return PT2_OK;
    }
    if (*p != '\0')
        goto bad;
    if (v >= 1 && v <= 99) {
        *out = (int)(v * 1000);
        return PT2_OK;
    }
    if (v >= 1000) {
        *out = (int)v;
        return PT2_OK;
    }
bad:
    return pt2_error_set(err, PT2_ERR_INVALID,
                         "invalid CUDA driver version '%s': use a CUDA version (12.4) or the "
                         "cuDriverGetVersion() form (12040)",
                         shown);
}

/* "9.0" -> 9, 0. */
static int parse_cc_dotted(const char *t, int *major, int *minor)
{
    const char *p;
    long ma = parse_uint(t, &p, 99), mi;

    if (ma < 1 || *p != '.' || !is_digit(p[1]) || p[2] != '\0')
        return 0;
    mi = p[1] - '0';
    *major = (int)ma;
    *minor = (int)mi;
    return 1;
}

/* "90", "sm_90a", "SM90", "compute_120f" -> 9, 0 / 12, 0. */
static int parse_sm(const char *t, int *major, int *minor)
{
    static const char *const prefixes[] = {"sm_", "sm", "compute_", "compute"};
    const char *p = t;
    size_t i, n;
    int v;

    for (i = 0; i < NELEM(prefixes); i++) {
        n = strlen(prefixes[i]);
        if (strlen(t) > n && strncmp(t, prefixes[i], n) == 0 && is_digit(t[n])) {
            p = t + n;
            break;
        }
    }
    if (!is_digit(p[0]) || !is_digit(p[1]))
        return 0;
    n = is_digit(p[2]) ? 3 : 2;
    if (is_digit(p[n]))
        return 0;
    if (p[n] != '\0' && !((p[n] == 'a' || p[n] == 'f') && p[n + 1] == '\0'))
        return 0;
    /* Two or three digits checked above: no overflow possible. */
    v = (p[0] - '0') * 10 + (p[1] - '0');
    if (n == 3)
        v = v * 10 + (p[2] - '0');
    if (v < 10)
        return 0;
    *major = v / 10;
    *minor = v % 10;
    return 1;
}

/* "gfx90a", "gfx90a:xnack-", "gfx942:sramecc+:xnack-" (already lower-case). */
/* "amdgcn-amd-amdhsa--gfx90a:xnack-" (the full target ID of clang and ROCm tools) is
 * "gfx90a:xnack-": the part from the gfx name on; other text is returned as is. */
const char *pt2_target_amd_tail(const char *t)
{
    const char *g;

    if (strncmp(t, "amdgcn-amd-amdhsa-", 18) != 0)
        return t;
    g = strstr(t + 17, "-gfx");
    return g != NULL ? g + 1 : t;
}

int pt2_target_is_gfx(const char *t)
{
    const char *p, *f;
    size_t n;

    if (strncmp(t, "gfx", 3) != 0 || !is_digit(t[3]))
        return 0;
    for (p = t + 3; *p != '\0' && *p != ':'; p++)
        if (!is_digit(*p) && !(*p >= 'a' && *p <= 'z') && *p != '-')
            return 0;
    while (*p == ':') {
        f = p + 1;
        n = strcspn(f, ":");
        if (!((n == 6 && strncmp(f, "xnack", 5) == 0) || (n == 8 && strncmp(f, "sramecc", 7) == 0)))
            return 0;
        if (f[n - 1] != '+' && f[n - 1] != '-')
            return 0;
        p = f + n;
    }
    return 1;
}

int pt2_target_parse(const char *text, struct pt2_device *out, struct pt2_error *err)
{
    char t[128], low[128], shown[ECHO_MAX + 1];
    struct pt2_gpu_match m;
    size_t n;
    int major, minor;

    if (out == NULL || text == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "no target given");
    memset(out, 0, sizeof(*out));
    pt2_sbuf_echo(shown, sizeof(shown), text, ECHO_MAX);
    if (!pt2_sbuf_trim(t, sizeof(t), text))
        return pt2_error_set(err, PT2_ERR_INVALID, "target '%s...' is too long (at most %zu bytes)",
                             shown, sizeof(t) - 1);
    if (t[0] == '\0')
        return pt2_error_set(err, PT2_ERR_INVALID, "empty target: %s", TARGET_HINT);
    for (n = 0; t[n] != '\0'; n++)
        low[n] = lower(t[n]);
    low[n] = '\0';

    if (parse_cc_dotted(low, &major, &minor) || parse_sm(low, &major, &minor)) {
        out->cc_major = major;
        out->cc_minor = minor;
        snprintf(out->name, sizeof(out->name), "compute capability %d.%d", major, minor);
        return PT2_OK;
    }
    if (pt2_target_is_gfx(pt2_target_amd_tail(low))) {
        const char *g = pt2_target_amd_tail(low);
        if (strlen(g) >= sizeof(out->gfx))
            return pt2_error_set(err, PT2_ERR_INVALID, "AMD target '%s' is too long", shown);
        snprintf(out->gfx, sizeof(out->gfx), "%s", g);
        snprintf(out->name, sizeof(out->name), "AMD %s", out->gfx);
        return PT2_OK;
    }
    if (pt2_desc_gpu_lookup(t, &m) == PT2_OK) {
        if (m.vendor == PT2_VENDOR_AMD) {
            snprintf(out->gfx, sizeof(out->gfx), "%s", m.gfx);
            snprintf(out->name, sizeof(out->name), "AMD %s (%s)", m.product, m.gfx);
        } else {
            out->cc_major = m.cc_major;
            out->cc_minor = m.cc_minor;
            /* "NVIDIA A100": reasons add "is 8.0" themselves. */
            snprintf(out->name, sizeof(out->name), "NVIDIA %s", m.product);
        }
        return PT2_OK;
    }
    return pt2_error_set(err, PT2_ERR_INVALID, "unknown target '%s': %s", shown, TARGET_HINT);
}

cJSON *pt2_target_device_json(const struct pt2_device *dev)
{
    cJSON *d = cJSON_CreateObject();
    char cc[32] = "";

    if (d == NULL)
        return NULL;
    if (dev->cc_major > 0)
        snprintf(cc, sizeof(cc), "%d.%d", dev->cc_major, dev->cc_minor);
    if (cJSON_AddStringToObject(d, "name", dev->name) == NULL ||
        !pt2_json_add_str_or_null(d, "compute_capability", cc) ||
        !pt2_json_add_str_or_null(d, "gfx", dev->gfx) ||
        !pt2_json_add_num_or_null(d, "driver_cuda_version", dev->driver_cuda_version,
                                  dev->driver_cuda_version > 0)) {
        cJSON_Delete(d);
        return NULL;
    }
    return d;
}

/* ---- platforms ------------------------------------------------------------------------ */

/* The node platforms --platform names, and the host library each one loads. */
static const struct platform {
    const char *name;
    int format;          /* enum pt2_host_format */
    const char *machine; /* pt2_host.machine */
    const char *os;
    const char *arch;
} PLATFORMS[] = {
    {"linux/amd64", PT2_HOST_ELF, "x86_64", "Linux", "amd64"},
    {"linux/arm64", PT2_HOST_ELF, "aarch64", "Linux", "arm64"},
    {"windows/amd64", PT2_HOST_PE, "x86_64", "Windows", "amd64"},
};
#define NPLATFORMS (sizeof(PLATFORMS) / sizeof(PLATFORMS[0]))

cJSON *pt2_target_json(const struct pt2_device *dev)
{
    cJSON *d = pt2_target_device_json(dev);

    if (d != NULL && !pt2_json_add_str_or_null(d, "platform", dev->platform)) {
        cJSON_Delete(d);
        return NULL;
    }
    return d;
}

int pt2_platform_parse(const char *text, struct pt2_device *dev, struct pt2_error *err)
{
    char shown[ECHO_MAX + 1];

    if (text == NULL || dev == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "no platform given");
    for (size_t i = 0; i < NPLATFORMS; i++)
        if (strcmp(text, PLATFORMS[i].name) == 0) {
            snprintf(dev->platform, sizeof(dev->platform), "%s", PLATFORMS[i].name);
            return PT2_OK;
        }
    pt2_sbuf_echo(shown, sizeof(shown), text, ECHO_MAX);
    return pt2_error_set(err, PT2_ERR_INVALID,
                         "unknown platform '%s': use linux/amd64, linux/arm64 or windows/amd64",
                         shown);
}

int pt2_target_platform_runs(const struct pt2_device *dev, int format, const char *machine,
                             const char **os, const char **arches)
{
    int any = dev->platform[0] == '\0', runs = 0;

    *os = "Linux";
    *arches = "amd64 or arm64";
    for (size_t i = 0; i < NPLATFORMS; i++) {
        const struct platform *p = &PLATFORMS[i];

        if (any ? p->format != PT2_HOST_ELF : strcmp(p->name, dev->platform) != 0)
            continue;
        if (!any) {
            *os = p->os;
            *arches = p->arch;
        }
        runs |= format == p->format && strcmp(machine, p->machine) == 0;
    }
    return runs;
}
