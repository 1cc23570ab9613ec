/*
 * pt2_amdkfd.c - AMD GPUs from the KFD topology (see pt2_amdkfd.h).
 *
 * The properties file is small text the kernel writes; it is still read
 * through a hard cap and parsed without trusting its shape, because the
 * root can be pointed anywhere (tests, --sysfs-root).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pt2_amdkfd.h"
#include "pt2_desc.h"

#define TOPOLOGY "class/kfd/kfd/topology/nodes"

static const char hexdig[] = "0123456789abcdef";

int pt2_amdkfd_gfx_name(unsigned version, char *buf, size_t len, struct pt2_error *err)
{
    unsigned major = version / 10000, minor = (version / 100) % 100, step = version % 100;

    if (len > 0)
        buf[0] = '\0';
    if (version == 0 || major == 0 || minor > 15 || step > 15)
        return pt2_error_set(err, PT2_ERR_INVALID, "gfx_target_version %u is not a gfx target",
                             version);
    snprintf(buf, len, "gfx%u%c%c", major, hexdig[minor], hexdig[step]);
    return PT2_OK;
}

/* The file at `path`, NUL-terminated, at most PT2_AMDKFD_PROPS_MAX bytes; -1 if unreadable. */
static ssize_t read_small(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    size_t n = 0;

    if (fd < 0)
        return -1;
    while (n + 1 < cap) {
        ssize_t got = read(fd, buf + n, cap - 1 - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        n += (size_t)got;
    }
    close(fd);
    buf[n] = '\0';
    return (ssize_t)n;
}

/* Value of "key <number>" in a properties text; 0 and *found = 0 when absent or malformed. */
static uint64_t prop(const char *text, const char *key, int *found)
{
    size_t klen = strlen(key);
    const char *p = text;

    *found = 0;
    while (p != NULL && *p != '\0') {
        const char *eol = strchr(p, '\n');
        size_t llen = eol != NULL ? (size_t)(eol - p) : strlen(p);

        if (llen > klen + 1 && strncmp(p, key, klen) == 0 && p[klen] == ' ') {
            char num[32];
            uint64_t v;
            size_t vlen = llen - klen - 1;

            if (vlen < sizeof(num)) {
                memcpy(num, p + klen + 1, vlen);
                num[vlen] = '\0';
                if (pt2_num_u64(num, 10, &v) == PT2_OK) {
                    *found = 1;
                    return v;
                }
            }
            return 0;
        }
        p = eol != NULL ? eol + 1 : NULL;
    }
    return 0;
}

static int cmp_uint(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

    return x < y ? -1 : x > y;
}

int pt2_amdkfd_probe(const char *sysfs_root, struct pt2_amd_gpus *out, struct pt2_error *err)
{
    unsigned *ids = NULL;
    size_t nids = 0, i;
    char *text = NULL;
    DIR *d = NULL;
    struct dirent *de;
    int rc = PT2_OK;

    if (out == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "pt2_amdkfd_probe: missing argument");
    memset(out, 0, sizeof(*out));
    if (sysfs_root == NULL || sysfs_root[0] == '\0')
        sysfs_root = getenv(PT2_SYSFS_ROOT_ENV);
    if (sysfs_root == NULL || sysfs_root[0] == '\0')
        sysfs_root = "/sys";
    if (strlen(sysfs_root) + sizeof(TOPOLOGY) + 1 >= sizeof(out->topology))
        return pt2_error_set(err, PT2_ERR_INVALID, "sysfs root is longer than %zu bytes",
                             sizeof(out->topology) - sizeof(TOPOLOGY) - 2);
    snprintf(out->topology, sizeof(out->topology), "%s/" TOPOLOGY, sysfs_root);

    d = opendir(out->topology);
    if (d == NULL) {
        snprintf(out->reason, sizeof(out->reason),
                 "no AMD GPU driver (amdgpu/KFD): %.180s is absent", out->topology);
        goto cleanup;
    }
    ids = malloc(PT2_AMDKFD_NODES_MAX * sizeof(*ids));
    text = malloc(PT2_AMDKFD_PROPS_MAX);
    if (ids == NULL || text == NULL) {
        rc = pt2_error_set(err, PT2_ERR_NOMEM, "AMD GPU probe: out of memory");
        goto cleanup;
    }
    while ((de = readdir(d)) != NULL && nids < PT2_AMDKFD_NODES_MAX) {
        uint64_t v;
        if (de->d_name[0] == '.' || pt2_num_u64(de->d_name, 10, &v) != PT2_OK || v > 1000000)
            continue;
        ids[nids++] = (unsigned)v;
    }
    qsort(ids, nids, sizeof(*ids), cmp_uint);
    for (i = 0; i < nids && out->n < PT2_AMD_GPUS_MAX; i++) {
        char path[sizeof(out->topology) + 64];
        struct pt2_amd_gpu *g = &out->gpus[out->n];
        uint64_t ver, simd, per_cu, loc, dom;
        int f_ver, f_simd, f_cu, f_loc, f_dom, f;

        snprintf(path, sizeof(path), "%s/%u/properties", out->topology, ids[i]);
        if (read_small(path, text, PT2_AMDKFD_PROPS_MAX) < 0)
            continue;
        ver = prop(text, "gfx_target_version", &f_ver);
        simd = prop(text, "simd_count", &f_simd);
        if (!f_ver || ver == 0 || ver > 999999 || simd == 0)
            continue; /* a CPU agent, or not a GPU we can name */
        memset(g, 0, sizeof(*g));
        if (pt2_amdkfd_gfx_name((unsigned)ver, g->gfx, sizeof(g->gfx), NULL) != PT2_OK)
            continue;
        g->index = (int)out->n;
        g->kfd_node = (int)ids[i];
        g->gfx_target_version = (unsigned)ver;
        pt2_desc_gfx_text(g->gfx, g->name, sizeof(g->name));
        g->vendor_id = (unsigned)prop(text, "vendor_id", &f);
        g->device_id = (unsigned)prop(text, "device_id", &f);
        g->unique_id = prop(text, "unique_id", &f);
        per_cu = prop(text, "simd_per_cu", &f_cu);
        g->compute_units = f_cu && per_cu > 0 ? (unsigned)(simd / per_cu) : 0;
        /* location_id is the PCI bus/device/function as bus << 8 | dev << 3 | fn. */
        loc = prop(text, "location_id", &f_loc);
        dom = prop(text, "domain", &f_dom);
        if (f_loc && loc > 0 && loc <= 0xffff && dom <= 0xffff)
            snprintf(g->pci_bus_id, sizeof(g->pci_bus_id), "%04x:%02x:%02x.%x", (unsigned)dom,
                     (unsigned)(loc >> 8), (unsigned)((loc >> 3) & 0x1f), (unsigned)(loc & 7));
        out->n++;
    }
    if (out->n == 0)
        snprintf(out->reason, sizeof(out->reason), "the KFD topology lists no GPU agents");
cleanup:
    if (d != NULL)
        closedir(d);
    free(ids);
    free(text);
    return rc;
}
