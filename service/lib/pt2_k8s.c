/*
 * pt2_k8s.c - Kubernetes node documents and per-node verdicts (see pt2_k8s.h).
 *
 * Label values come from whoever wrote the node objects, so every value is
 * validated (digits only, ranges, printable ASCII, bounded) and echoed into
 * notes only in a sanitised, truncated form. Structure errors stop the
 * parse; value errors only make a label count as absent.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_compat.h"
#include "pt2_desc.h"
#include "pt2_inspect.h"
#include "pt2_isa.h"
#include "pt2_k8s.h"
#include "pt2_verdicts.h"
#include "pt2_sbuf.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define LABEL_ECHO_MAX 40 /* characters of a bad label value shown in a note */
#define MEMO_MAX 64       /* distinct node kinds whose verdict is remembered */

#define L_CC_MAJOR "nvidia.com/gpu.compute.major"
#define L_CC_MINOR "nvidia.com/gpu.compute.minor"
#define L_PRODUCT "nvidia.com/gpu.product"
#define L_COUNT "nvidia.com/gpu.count"

/* ---- label values ---------------------------------------------------------- */

/* Printable, bounded copy of an outside string for messages. */
static void echo(char *buf, size_t len, const char *s)
{
    size_t i, o = 0;

    for (i = 0; s[i] != '\0' && o + 4 < len && i < LABEL_ECHO_MAX; i++)
        buf[o++] = (s[i] >= 0x20 && s[i] < 0x7f && s[i] != '\'') ? s[i] : '?';
    if (s[i] != '\0') {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = '\0';
}

static int printable(const char *s)
{
    for (; *s != '\0'; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
            return 0;
    return 1;
}

/* A decimal label value in [lo, hi]: digits only, no sign or blanks. */
static int parse_int(const char *s, long lo, long hi, long *out)
{
    if (s[0] < '0' || s[0] > '9' || strlen(s) > 10)
        return -1;
    return pt2_num_long(s, lo, hi, out) == PT2_OK ? 0 : -1;
}

/* The label's string value, NULL when absent; a non-string value is noted. */
static const char *label(const cJSON *labels, const char *key, struct pt2_sbuf *note)
{
    const cJSON *v = labels != NULL ? cJSON_GetObjectItemCaseSensitive(labels, key) : NULL;

    if (v == NULL)
        return NULL;
    if (!cJSON_IsString(v) || v->valuestring == NULL) {
        pt2_sbuf_add(note, "%s%s is not a string, ignored", note->len ? "; " : "", key);
        return NULL;
    }
    return v->valuestring;
}

/* An integer label in [lo, hi]: 1 found, 0 absent, -1 malformed (noted). */
static int label_int(const cJSON *labels, const char *key, long lo, long hi, long *out,
                     struct pt2_sbuf *note)
{
    const char *s = label(labels, key, note);
    char shown[LABEL_ECHO_MAX + 8];

    if (s == NULL)
        return 0;
    if (parse_int(s, lo, hi, out) == 0)
        return 1;
    echo(shown, sizeof(shown), s);
    pt2_sbuf_add(note, "%s%s '%s' is not a number in %ld-%ld, ignored", note->len ? "; " : "", key,
                 shown, lo, hi);
    return -1;
}

/* A major/minor label pair: 1 with both valid, 0 when neither is there, -1 otherwise. */
static int label_pair(const cJSON *labels, const char *kmaj, const char *kmin, long max_major,
                      long max_minor, long *major, long *minor, struct pt2_sbuf *note)
{
    int a = label_int(labels, kmaj, 0, max_major, major, note);
    int b = label_int(labels, kmin, 0, max_minor, minor, note);

    if (a == 1 && b == 1)
        return 1;
    if (a == 0 && b == 0)
        return 0;
    if (a == 0 || b == 0)
        pt2_sbuf_add(note, "%s%s without %s, ignored", note->len ? "; " : "", a ? kmaj : kmin,
                     a ? kmin : kmaj);
    return -1;
}

/* A short token ([a-z0-9._-], under `len`) copied to buf; noted otherwise. */
static int label_token(const cJSON *labels, const char *key, char *buf, size_t len,
                       struct pt2_sbuf *note)
{
    const char *s = label(labels, key, note);
    char shown[LABEL_ECHO_MAX + 8];
    size_t i;

    if (s == NULL)
        return 0;
    for (i = 0; s[i] != '\0' && i + 1 < len; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
            break;
    }
    if (s[i] != '\0' || i == 0) {
        echo(shown, sizeof(shown), s);
        pt2_sbuf_add(note, "%s%s '%s' is not a valid value, ignored", note->len ? "; " : "", key,
                     shown);
        return -1;
    }
    memcpy(buf, s, i);
    buf[i] = '\0';
    return 1;
}

/* ---- architecture and driver tables ---------------------------------------- */

static const struct {
    const char *arch, *machine;
} arch_map[] = {
    {"amd64", "x86_64"}, {"arm64", "aarch64"}, {"ppc64le", "ppc64le"}, {"s390x", "s390x"},
    {"386", "i686"},     {"arm", "arm"},       {"riscv64", "riscv64"},
};

const char *pt2_k8s_arch_machine(const char *arch)
{
    size_t i;

    for (i = 0; arch != NULL && i < NELEM(arch_map); i++)
        if (strcmp(arch, arch_map[i].arch) == 0)
            return arch_map[i].machine;
    return NULL;
}

const char *pt2_k8s_arch_at(size_t i)
{
    return i < NELEM(arch_map) ? arch_map[i].arch : NULL;
}

/* The branch table lives with the other driver facts, in pt2_compat. */
int pt2_k8s_driver_branch_cuda(int branch)
{
    return pt2_compat_branch_cuda(branch);
}

/* ---- one node ---------------------------------------------------------------- */

static void parse_driver(const cJSON *labels, struct pt2_k8s_node *n, struct pt2_sbuf *note)
{
    static const char *const runtime_pairs[][2] = {
        {"nvidia.com/cuda.runtime-version.major", "nvidia.com/cuda.runtime-version.minor"},
        {"nvidia.com/cuda.runtime.major", "nvidia.com/cuda.runtime.minor"},
    };
    static const char *const driver_sets[][3] = {
        {"nvidia.com/cuda.driver-version.major", "nvidia.com/cuda.driver-version.minor",
         "nvidia.com/cuda.driver-version.revision"},
        {"nvidia.com/cuda.driver.major", "nvidia.com/cuda.driver.minor",
         "nvidia.com/cuda.driver.rev"},
    };
    struct pt2_error perr = {0};
    const char *full;
    char rev[16];
    long major, minor;
    size_t i;
    int v = 0;

    full = label(labels, "nvidia.com/cuda.runtime-version.full", note);
    if (full != NULL && pt2_driver_version_parse(full, &v, &perr) != PT2_OK) {
        char shown[LABEL_ECHO_MAX + 8];

        echo(shown, sizeof(shown), full);
        pt2_sbuf_add(note,
                     "%snvidia.com/cuda.runtime-version.full '%s' is not a CUDA version, "
                     "ignored",
                     note->len ? "; " : "", shown);
        v = 0;
    }
    for (i = 0; v == 0 && i < NELEM(runtime_pairs); i++)
        if (label_pair(labels, runtime_pairs[i][0], runtime_pairs[i][1], 99, 9, &major, &minor,
                       note) == 1 &&
            major >= 1)
            v = (int)(major * 1000 + minor * 10);

    /* The driver's own version: its text, and the CUDA version as a last resort. */
    full = label(labels, "nvidia.com/cuda.driver-version.full", note);
    if (full != NULL && strlen(full) < sizeof(n->driver_version) &&
        strspn(full, "0123456789.") == strlen(full) && full[0] != '\0')
        snprintf(n->driver_version, sizeof(n->driver_version), "%s", full);
    for (i = 0; i < NELEM(driver_sets); i++) {
        if (label_pair(labels, driver_sets[i][0], driver_sets[i][1], 9999, 9999, &major, &minor,
                       note) != 1)
            continue;
        if (major > 0 && major < 100) {
            /* A CUDA version in the driver labels, as hand-written node lists have. */
            if (v == 0 && minor <= 9)
                v = (int)(major * 1000 + minor * 10);
            break;
        }
        if (v == 0)
            v = pt2_k8s_driver_branch_cuda((int)major);
        if (n->driver_version[0] == '\0') {
            if (label_token(labels, driver_sets[i][2], rev, sizeof(rev), note) == 1)
                snprintf(n->driver_version, sizeof(n->driver_version), "%ld.%ld.%s", major, minor,
                         rev);
            else
                snprintf(n->driver_version, sizeof(n->driver_version), "%ld.%ld", major, minor);
        }
        break;
    }
    n->dev.driver_cuda_version = v;
}

static void parse_gpu(const cJSON *labels, struct pt2_k8s_node *n, struct pt2_sbuf *note)
{
    struct pt2_gpu_match m;
    const char *product;
    long major = 0, minor = 0, count = 0;
    int cc, gpu_labels;

    n->count = -1;
    if (label_int(labels, L_COUNT, 0, 1000000, &count, note) == 1)
        n->count = (int)count;
    product = label(labels, L_PRODUCT, note);
    if (product != NULL) {
        char shown[sizeof(n->product)];

        /* GFD products are short ASCII words; keep anything printable. */
        echo(shown, sizeof(shown), product);
        snprintf(n->product, sizeof(n->product), "%s", shown);
    }
    cc = label_pair(labels, L_CC_MAJOR, L_CC_MINOR, 99, 9, &major, &minor, note);
    if (cc == 1 && major >= 1) {
        n->dev.cc_major = (int)major;
        n->dev.cc_minor = (int)minor;
    } else if (n->product[0] != '\0' && pt2_desc_gpu_lookup(n->product, &m) == PT2_OK &&
               m.vendor == PT2_VENDOR_NVIDIA && m.cc_major > 0) {
        n->dev.cc_major = m.cc_major;
        n->dev.cc_minor = m.cc_minor;
    }
    gpu_labels = cc != 0 || product != NULL;
    if (gpu_labels && n->count == 0) {
        pt2_sbuf_add(note, "%s%s is 0: treated as a node without GPUs", note->len ? "; " : "",
                     L_COUNT);
        memset(&n->dev, 0, sizeof(n->dev));
        return;
    }
    if (!gpu_labels)
        return;
    n->has_gpu = 1;
    parse_driver(labels, n, note);
    if (n->product[0] != '\0')
        snprintf(n->dev.name, sizeof(n->dev.name), "%.100s", n->product);
}

/* status.nodeInfo.<key> as a token, for nodes without the well-known labels. */
static void node_info(const cJSON *item, const char *key, char *buf, size_t len,
                      struct pt2_sbuf *note)
{
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(item, "status");
    const cJSON *info =
        cJSON_IsObject(status) ? cJSON_GetObjectItemCaseSensitive(status, "nodeInfo") : NULL;

    if (cJSON_IsObject(info))
        (void)label_token(info, key, buf, len, note);
}

/* Node Feature Discovery's CPU labels of the node's architecture (pt2_nfd): a label NFD writes
 * by default makes the features known; "true" is the only value NFD writes. */
static void parse_cpuid(const cJSON *labels, struct pt2_k8s_node *n, struct pt2_sbuf *note)
{
    const struct pt2_nfd_flag *f;
    char key[PT2_NFD_LABEL_MAX], shown[LABEL_ECHO_MAX + 8];
    const char *v;
    size_t i;

    for (i = 0; (f = pt2_nfd_at(i)) != NULL; i++) {
        if (strcmp(f->machine, n->machine) != 0 ||
            (v = label(labels, pt2_nfd_label(f, key, sizeof(key)), note)) == NULL)
            continue;
        n->cpu_known |= f->by_default;
        if (strcmp(v, "true") == 0) {
            n->cpu_flags[i / 64] |= (uint64_t)1 << (i % 64);
            continue;
        }
        echo(shown, sizeof(shown), v);
        pt2_sbuf_add(note, "%s%s '%s' is not \"true\", ignored", note->len ? "; " : "", key, shown);
    }
}

static int parse_node(const cJSON *item, size_t idx, struct pt2_k8s_node *n, struct pt2_error *err)
{
    const cJSON *meta, *name, *labels;
    const char *m;
    struct pt2_sbuf note;
    size_t len;

    memset(n, 0, sizeof(*n));
    if (!cJSON_IsObject(item))
        return pt2_error_set(err, PT2_ERR_INVALID, "nodes[%zu]: not a Node object", idx);
    meta = cJSON_GetObjectItemCaseSensitive(item, "metadata");
    name = cJSON_IsObject(meta) ? cJSON_GetObjectItemCaseSensitive(meta, "name") : NULL;
    if (!cJSON_IsString(name) || name->valuestring == NULL || name->valuestring[0] == '\0')
        return pt2_error_set(err, PT2_ERR_INVALID, "nodes[%zu]: metadata.name missing", idx);
    len = strlen(name->valuestring);
    if (len >= sizeof(n->name))
        return pt2_error_set(err, PT2_ERR_INVALID,
                             "nodes[%zu]: metadata.name is longer than %zu characters", idx,
                             sizeof(n->name) - 1);
    if (!printable(name->valuestring))
        return pt2_error_set(err, PT2_ERR_INVALID,
                             "nodes[%zu]: metadata.name has a character outside printable ASCII",
                             idx);
    memcpy(n->name, name->valuestring, len + 1);

    pt2_sbuf_init(&note, n->note, sizeof(n->note));
    labels = cJSON_GetObjectItemCaseSensitive(meta, "labels");
    if (labels != NULL && !cJSON_IsObject(labels)) {
        pt2_sbuf_add(&note, "metadata.labels is not an object, ignored");
        labels = NULL;
    }
    parse_gpu(labels, n, &note);
    if (label_token(labels, "kubernetes.io/arch", n->arch, sizeof(n->arch), &note) == 0 &&
        label_token(labels, "beta.kubernetes.io/arch", n->arch, sizeof(n->arch), &note) == 0)
        node_info(item, "architecture", n->arch, sizeof(n->arch), &note);
    if (label_token(labels, "kubernetes.io/os", n->os, sizeof(n->os), &note) == 0 &&
        label_token(labels, "beta.kubernetes.io/os", n->os, sizeof(n->os), &note) == 0)
        node_info(item, "operatingSystem", n->os, sizeof(n->os), &note);
    m = pt2_k8s_arch_machine(n->arch);
    snprintf(n->machine, sizeof(n->machine), "%s", m != NULL ? m : n->arch);
    parse_cpuid(labels, n, &note);
    return PT2_OK;
}

/* ---- documents ------------------------------------------------------------------ */

int pt2_k8s_parse(const cJSON *doc, struct pt2_k8s_nodes *out, struct pt2_error *err)
{
    const cJSON *items, *item;
    size_t n, i = 0;
    int rc;

    if (out == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_k8s_parse: no output");
    memset(out, 0, sizeof(*out));
    if (cJSON_IsArray(doc)) {
        items = doc;
    } else if (cJSON_IsObject(doc) && cJSON_GetObjectItemCaseSensitive(doc, "items") != NULL) {
        items = cJSON_GetObjectItemCaseSensitive(doc, "items");
        if (!cJSON_IsArray(items))
            return pt2_error_set(err, PT2_ERR_INVALID, "nodes: \"items\" is not an array");
    } else if (cJSON_IsObject(doc) && cJSON_GetObjectItemCaseSensitive(doc, "metadata") != NULL) {
        items = NULL; /* a single Node */
    } else {
        return pt2_error_set(err, PT2_ERR_INVALID,
                             "nodes: expected a NodeList ({\"items\": [...]}), an array of Node "
                             "objects or one Node object");
    }

    n = 1;
    if (items != NULL) {
        /* Count without cJSON_GetArraySize's int: stop one past the cap. */
        n = 0;
        cJSON_ArrayForEach(item, items)
        {
            if (++n > PT2_K8S_NODES_MAX)
                return pt2_error_set(err, PT2_ERR_TOO_LARGE, "nodes: more than %d nodes",
                                     PT2_K8S_NODES_MAX);
        }
    }
    if (n == 0)
        return PT2_OK;
    out->v = calloc(n, sizeof(*out->v));
    if (out->v == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "nodes: out of memory for %zu nodes", n);
    if (items == NULL) {
        rc = parse_node(doc, 0, &out->v[0], err);
        i = 1;
    } else {
        rc = PT2_OK;
        cJSON_ArrayForEach(item, items)
        {
            rc = parse_node(item, i, &out->v[i], err);
            if (rc != PT2_OK)
                break;
            i++;
        }
    }
    if (rc != PT2_OK) {
        pt2_k8s_nodes_clear(out);
        return rc;
    }
    out->n = i;
    return PT2_OK;
}

int pt2_k8s_parse_text(const char *text, size_t len, struct pt2_k8s_nodes *out,
                       struct pt2_error *err)
{
    cJSON *doc = NULL;
    int rc;

    if (out != NULL)
        memset(out, 0, sizeof(*out));
    if (text == NULL || out == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_k8s_parse_text: missing argument");
    if (len > PT2_K8S_TEXT_MAX)
        return pt2_error_set(err, PT2_ERR_TOO_LARGE, "nodes: document is %zu bytes, at most %u",
                             len, PT2_K8S_TEXT_MAX);
    /* Checked before any tree is built: a 16 MiB "[0,0,...]" is refused, not parsed. */
    rc = pt2_json_parse(text, len, &pt2_k8s_json_limits, "nodes", &doc, err);
    if (rc != PT2_OK)
        return rc;
    rc = pt2_k8s_parse(doc, out, err);
    cJSON_Delete(doc);
    return rc;
}

const struct pt2_json_limits pt2_k8s_json_limits = {PT2_K8S_TEXT_MAX, 64, PT2_K8S_VALUES_MAX,
                                                    64u * 1024u};

/* ---- public: owned node lists ------------------------------------------------ */

static int nodes_new(pt2_k8s_nodes **out, const cJSON *doc, const char *text, size_t len,
                     struct pt2_error *err)
{
    struct pt2_k8s_nodes *l;
    int rc;

    if (out == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_k8s_nodes_parse: missing argument");
    *out = NULL;
    l = calloc(1, sizeof(*l));
    if (l == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "nodes: out of memory");
    rc = text != NULL ? pt2_k8s_parse_text(text, len, l, err) : pt2_k8s_parse(doc, l, err);
    if (rc != PT2_OK) {
        free(l);
        return rc;
    }
    *out = l;
    return PT2_OK;
}

int pt2_k8s_nodes_parse(pt2_k8s_nodes **out, const cJSON *doc, struct pt2_error *err)
{
    return nodes_new(out, doc, NULL, 0, err);
}

int pt2_k8s_nodes_parse_text(pt2_k8s_nodes **out, const char *text, size_t len,
                             struct pt2_error *err)
{
    if (text == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_k8s_nodes_parse_text: missing argument");
    return nodes_new(out, NULL, text, len, err);
}

void pt2_k8s_nodes_free(pt2_k8s_nodes *nodes)
{
    if (nodes == NULL)
        return;
    pt2_k8s_nodes_clear(nodes);
    free(nodes);
}

void pt2_k8s_nodes_clear(struct pt2_k8s_nodes *l)
{
    if (l == NULL)
        return;
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

/* ---- verdicts --------------------------------------------------------------------- */

int pt2_k8s_cpu_required(const pt2_package *pkg, const char **out, size_t max, size_t *n,
                         struct pt2_error *err)
{
    const char *one[PT2_ISA_FEATURES_MAX];
    size_t nm, m, k, i, j;

    if (n != NULL)
        *n = 0;
    if (pkg == NULL || (out == NULL && max > 0) || n == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_k8s_cpu_required: missing argument");
    nm = pt2_package_model_count(pkg);
    /* As pt2_package_check_cpu: no model or no host binary, no feature checked. */
    if (nm == 0 || pt2_package_hosts(pkg)->n == 0)
        return PT2_OK;
    for (m = 0; m < nm; m++) {
        if (pt2_isa_required_features(pt2_package_model_isa(pkg, m), one, NELEM(one), &k) != PT2_OK)
            return pt2_error_set(err, PT2_ERR_TOO_LARGE,
                                 "CPU check: the package needs more than %zu CPU features",
                                 NELEM(one));
        for (i = 0; i < k; i++) {
            for (j = 0; j < *n && strcmp(out[j], one[i]) != 0; j++)
                ;
            if (j < *n)
                continue;
            if (*n == max)
                return pt2_error_set(err, PT2_ERR_TOO_LARGE,
                                     "CPU check: the package needs more than %zu CPU features",
                                     max);
            out[(*n)++] = one[i];
        }
    }
    return PT2_OK;
}

static int has_flag(const struct pt2_k8s_node *node, size_t i)
{
    return (node->cpu_flags[i / 64] >> (i % 64)) & 1u;
}

#define REQUIRED_MAX (4 * PT2_ISA_FEATURES_MAX)

/*
 * The host check on a node NFD describes: its labelled features, and those the package
 * needs that NFD's default labels cannot show (counted as present, named in the reason).
 */
static int check_cpu_nfd(const pt2_package *pkg, const struct pt2_k8s_node *node,
                         struct pt2_verdict_result *out, struct pt2_error *err)
{
    const char *req[REQUIRED_MAX], *feats[PT2_NFD_FLAGS_MAX + REQUIRED_MAX];
    const struct pt2_nfd_flag *f;
    struct pt2_sbuf b;
    char note[384];
    size_t nreq, nf = 0, na = 0, i, j;
    int rc;

    if ((rc = pt2_k8s_cpu_required(pkg, req, NELEM(req), &nreq, err)) != PT2_OK)
        return rc;
    for (i = 0; (f = pt2_nfd_at(i)) != NULL; i++)
        if (has_flag(node, i))
            feats[nf++] = f->feature;
    for (i = 0; i < nreq; i++) {
        for (j = 0; j < nf && strcmp(feats[j], req[i]) != 0; j++)
            ;
        if (j == nf && !pt2_nfd_decides(node->machine, req[i])) {
            feats[nf++] = req[i];
            req[na++] = req[i]; /* na <= i: the assumed ones, in order */
        }
    }
    /* Known features, none of them present: a list that matches nothing, not "unknown". */
    if (nf == 0)
        feats[nf++] = "";
    rc = pt2_package_check_cpu(pkg, node->machine, feats, nf, out, err);
    if (rc != PT2_OK || na == 0 || out->verdict == PT2_INCOMPATIBLE)
        return rc;
    pt2_sbuf_init(&b, note, sizeof(note));
    for (i = 0; i < na; i++)
        pt2_sbuf_add(&b, "%s%s", i ? ", " : "; ", req[i]);
    pt2_sbuf_add(&b, " not checked: Node Feature Discovery does not label %s by default",
                 na > 1 ? "them" : "it");
    j = strlen(out->reason);
    snprintf(out->reason + j, sizeof(out->reason) - j, "%s", note);
    return PT2_OK;
}

int pt2_k8s_check_cpu(const pt2_package *pkg, const struct pt2_k8s_node *node,
                      struct pt2_verdict_result *out, struct pt2_error *err)
{
    if (out != NULL)
        memset(out, 0, sizeof(*out));
    if (pkg == NULL || node == NULL || out == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_k8s_check_cpu: missing argument");
    if (node->os[0] != '\0' && strcmp(node->os, "linux") != 0) {
        out->verdict = PT2_INCOMPATIBLE;
        snprintf(out->code, sizeof(out->code), "host-platform");
        snprintf(out->reason, sizeof(out->reason),
                 "node runs %s; AOTInductor host code is checked for Linux nodes only", node->os);
        snprintf(out->advice, sizeof(out->advice),
                 "Schedule it on Linux nodes (kubernetes.io/os=linux).");
        return PT2_OK;
    }
    if (node->cpu_known)
        return check_cpu_nfd(pkg, node, out, err);
    return pt2_package_check_cpu(pkg, node->machine[0] != '\0' ? node->machine : NULL, NULL, 0, out,
                                 err);
}

int pt2_k8s_check(const pt2_package *pkg, const struct pt2_k8s_node *node,
                  struct pt2_k8s_verdict *out, struct pt2_error *err)
{
    struct pt2_gpu_check gpu;
    size_t ngpu = 0;
    int rc;

    if (out != NULL)
        memset(out, 0, sizeof(*out));
    if (pkg == NULL || node == NULL || out == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_k8s_check: missing argument");

    memset(&gpu, 0, sizeof(gpu));
    gpu.vendor = PT2_VENDOR_NVIDIA; /* GFD labels describe NVIDIA GPUs only */
    if (node->has_gpu && node->dev.cc_major > 0) {
        rc = pt2_package_check_device(pkg, &node->dev, &gpu.r, err);
        if (rc != PT2_OK)
            return rc;
        ngpu = 1;
    } else if (node->has_gpu) {
        /* A GPU is there but nothing says which: do not guess. */
        gpu.r.verdict = PT2_INCOMPATIBLE;
        snprintf(gpu.r.code, sizeof(gpu.r.code), "gpu-unknown");
        snprintf(gpu.r.reason, sizeof(gpu.r.reason),
                 "cannot tell: the node has no valid %s/.minor labels and its %s '%.100s' is "
                 "not a known GPU",
                 L_CC_MAJOR, L_PRODUCT, node->product);
        snprintf(gpu.r.advice, sizeof(gpu.r.advice),
                 "Label the node with %s and nvidia.com/gpu.compute.minor (GPU Feature Discovery "
                 "does), or name a known GPU in %s.",
                 L_CC_MAJOR, L_PRODUCT);
        ngpu = 1;
    }

    rc = pt2_k8s_check_cpu(pkg, node, &out->cpu, err);
    if (rc != PT2_OK)
        return rc;
    {
        struct pt2_verdict_result overall;

        pt2_verdicts_node_rule(pkg, &gpu, ngpu, "no nvidia.com/gpu.* labels", &out->cpu, &out->gpu,
                               &overall);
        out->verdict = overall.verdict;
        snprintf(out->reason, sizeof(out->reason), "%s", overall.reason);
        snprintf(out->advice, sizeof(out->advice), "%s", overall.advice);
        snprintf(out->code, sizeof(out->code), "%s", overall.code);
    }
    return PT2_OK;
}

/* ---- the cluster document --------------------------------------------------------- */

struct memo {
    const struct pt2_k8s_node *node; /* the first node of this kind */
    struct pt2_k8s_verdict v;
};

/* Nodes whose verdicts cannot differ: same GPU facts, machine and OS. */
static int same_kind(const struct pt2_k8s_node *a, const struct pt2_k8s_node *b)
{
    return a->has_gpu == b->has_gpu && a->dev.cc_major == b->dev.cc_major &&
           a->dev.cc_minor == b->dev.cc_minor &&
           a->dev.driver_cuda_version == b->dev.driver_cuda_version &&
           strcmp(a->dev.name, b->dev.name) == 0 && strcmp(a->product, b->product) == 0 &&
           strcmp(a->machine, b->machine) == 0 && strcmp(a->os, b->os) == 0 &&
           a->cpu_known == b->cpu_known &&
           memcmp(a->cpu_flags, b->cpu_flags, sizeof(a->cpu_flags)) == 0;
}

/* ["avx2", "fma", ...]: the NFD-labelled features; null when unknown. */
static int add_cpu_features(cJSON *o, const struct pt2_k8s_node *n)
{
    const struct pt2_nfd_flag *f;
    cJSON *arr;
    size_t i;

    if (!n->cpu_known)
        return cJSON_AddNullToObject(o, "cpu_features") != NULL;
    if ((arr = cJSON_AddArrayToObject(o, "cpu_features")) == NULL)
        return 0;
    for (i = 0; (f = pt2_nfd_at(i)) != NULL; i++)
        if (has_flag(n, i) && !cJSON_AddItemToArray(arr, cJSON_CreateString(f->feature)))
            return 0;
    return 1;
}

static cJSON *check_json(const struct pt2_verdict_result *r)
{
    cJSON *o = cJSON_CreateObject();

    if (o == NULL || cJSON_AddStringToObject(o, "verdict", pt2_verdict_name(r->verdict)) == NULL ||
        cJSON_AddStringToObject(o, "code", pt2_verdicts_code(r->code, r->verdict)) == NULL ||
        cJSON_AddStringToObject(o, "reason", r->reason) == NULL || !pt2_verdicts_add_advice(o, r)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static cJSON *gpu_json(const struct pt2_k8s_node *n)
{
    cJSON *g = cJSON_CreateObject();
    char cc[16] = "";

    if (n->dev.cc_major > 0)
        snprintf(cc, sizeof(cc), "%d.%d", n->dev.cc_major, n->dev.cc_minor);
    if (g == NULL || !pt2_json_add_str_or_null(g, "product", n->product) ||
        !pt2_json_add_num_or_null(g, "count", n->count, n->count >= 0) ||
        !pt2_json_add_str_or_null(g, "compute_capability", cc) ||
        !pt2_json_add_num_or_null(g, "driver_cuda_version", n->dev.driver_cuda_version,
                                  n->dev.driver_cuda_version > 0) ||
        !pt2_json_add_str_or_null(g, "driver_version", n->driver_version)) {
        cJSON_Delete(g);
        return NULL;
    }
    return g;
}

static cJSON *node_json(const struct pt2_k8s_node *n, const struct pt2_k8s_verdict *v)
{
    cJSON *o = cJSON_CreateObject(), *gpu = NULL, *checks;

    if (o == NULL || cJSON_AddStringToObject(o, "name", n->name) == NULL)
        goto nomem;
    if (n->has_gpu) {
        if ((gpu = gpu_json(n)) == NULL || !cJSON_AddItemToObject(o, "gpu", gpu))
            goto nomem;
        gpu = NULL;
    } else if (cJSON_AddNullToObject(o, "gpu") == NULL) {
        goto nomem;
    }
    if (!pt2_json_add_str_or_null(o, "arch", n->arch) ||
        !pt2_json_add_str_or_null(o, "machine", n->machine) ||
        !pt2_json_add_str_or_null(o, "os", n->os) || !add_cpu_features(o, n) ||
        cJSON_AddStringToObject(o, "verdict", pt2_verdict_name(v->verdict)) == NULL ||
        cJSON_AddStringToObject(o, "code", pt2_verdicts_code(v->code, v->verdict)) == NULL ||
        cJSON_AddStringToObject(o, "reason", v->reason) == NULL)
        goto nomem;
    if (!pt2_json_add_str_or_null(o, "advice", v->verdict != PT2_COMPATIBLE ? v->advice : NULL))
        goto nomem;
    if ((checks = cJSON_AddObjectToObject(o, "checks")) == NULL)
        goto nomem;
    if (!pt2_json_add_owned(checks, "gpu", check_json(&v->gpu)) ||
        !pt2_json_add_owned(checks, "cpu", check_json(&v->cpu)))
        goto nomem;
    if (!pt2_json_add_str_or_null(o, "note", n->note))
        goto nomem;
    return o;
nomem:
    cJSON_Delete(gpu);
    cJSON_Delete(o);
    return NULL;
}

int pt2_k8s_compat_json(const pt2_package *pkg, const struct pt2_k8s_nodes *nodes, cJSON **out,
                        struct pt2_error *err)
{
    struct memo *memo = NULL;
    struct pt2_k8s_verdict one;
    const struct pt2_k8s_verdict *v;
    cJSON *doc = NULL, *arr, *item, *sum;
    size_t i, j, nmemo = 0, counts[PT2_VERDICT_COUNT] = {0};
    int rc = PT2_OK;

    if (out != NULL)
        *out = NULL;
    if (pkg == NULL || nodes == NULL || out == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_k8s_compat_json: missing argument");
    memo = calloc(MEMO_MAX, sizeof(*memo));
    doc = cJSON_CreateObject();
    if (memo == NULL || doc == NULL || (arr = cJSON_AddArrayToObject(doc, "nodes")) == NULL)
        goto nomem;
    for (i = 0; i < nodes->n; i++) {
        const struct pt2_k8s_node *n = &nodes->v[i];

        v = NULL;
        for (j = 0; j < nmemo && v == NULL; j++)
            if (same_kind(memo[j].node, n))
                v = &memo[j].v;
        if (v == NULL) {
            rc = pt2_k8s_check(pkg, n, &one, err);
            if (rc != PT2_OK)
                goto fail;
            v = &one;
            if (nmemo < MEMO_MAX) {
                memo[nmemo].node = n;
                memo[nmemo].v = one;
                v = &memo[nmemo++].v;
            }
        }
        counts[v->verdict]++; /* enum pt2_verdict, best to worst */
        if ((item = node_json(n, v)) == NULL)
            goto nomem;
        cJSON_AddItemToArray(arr, item);
    }
    if ((sum = cJSON_AddObjectToObject(doc, "summary")) == NULL ||
        cJSON_AddNumberToObject(sum, "total", (double)nodes->n) == NULL ||
        cJSON_AddNumberToObject(sum, "compatible", (double)counts[0]) == NULL ||
        cJSON_AddNumberToObject(sum, "compatible-ptx-jit", (double)counts[1]) == NULL ||
        cJSON_AddNumberToObject(sum, "unverified", (double)counts[PT2_UNVERIFIED]) == NULL ||
        cJSON_AddNumberToObject(sum, "incompatible", (double)counts[PT2_INCOMPATIBLE]) == NULL)
        goto nomem;
    free(memo);
    *out = doc;
    return PT2_OK;

nomem:
    rc = pt2_error_set(err, PT2_ERR_NOMEM, "out of memory building the node verdicts");
fail:
    free(memo);
    cJSON_Delete(doc);
    return rc;
}
