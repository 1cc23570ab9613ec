/*
 * pt2_desc.c - GPU and CPU descriptions from static tables.
 *
 * The compute capability rows follow FORMATS.md §12 (columns:
 * data center, workstation, consumer, embedded). Product names are matched
 * on a "compact" form (upper case, letters and digits only) so that
 * "A100-SXM4-80GB", "NVIDIA A100 80GB PCIe" and "a100" all meet the key
 * "A100"; where a separator stood is remembered so that "H100 80GB" still
 * ends the key "H100" while "A100" does not end the key "A10".
 */
#include <stdio.h>
#include <string.h>

#include "pt2_desc.h"
#include "pt2_sbuf.h"
#include "pt2_isa.h"
#include "pt2_needs.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* ---- bounded appender ---------------------------------------------------- */

/* ---- compute capabilities ------------------------------------------------ */

static const struct pt2_cc_desc cc_table[] = {
    {5, 0, "Maxwell", "GM107/GM108", "Tesla M10", "Quadro K620/K1200", "GTX 750/750 Ti", "", ""},
    {5, 2, "Maxwell", "GM20x", "Tesla M4/M6/M40/M60", "Quadro M4000/M6000",
     "GTX 970/980/980 Ti, Titan X (Maxwell)", "", ""},
    {5, 3, "Maxwell", "GM20B", "", "", "", "Jetson TX1, Jetson Nano", ""},
    {6, 0, "Pascal", "GP100", "Tesla P100", "Quadro GP100", "", "", ""},
    {6, 1, "Pascal", "GP10x", "Tesla P4/P40", "Quadro P4000/P5000/P6000",
     "GTX 1050-1080 Ti, Titan Xp", "", ""},
    {6, 2, "Pascal", "GP10B", "", "", "", "Jetson TX2", ""},
    {7, 0, "Volta", "GV100", "Tesla V100", "Quadro GV100", "Titan V", "", ""},
    {7, 2, "Volta", "GV10B", "", "", "", "Jetson AGX Xavier, Xavier NX", ""},
    {7, 5, "Turing", "TU10x/TU11x", "Tesla T4", "Quadro RTX 4000-8000, T400-T1000",
     "RTX 2060-2080 Ti, GTX 1650/1660, Titan RTX", "", ""},
    {8, 0, "Ampere", "GA100", "A100, A30, A800", "", "", "", ""},
    {8, 6, "Ampere", "GA10x", "A10, A10G, A16, A2, A40", "RTX A2000-A6000", "RTX 3050-3090 Ti", "",
     ""},
    {8, 7, "Ampere", "GA10B", "", "", "", "Jetson AGX Orin, Orin NX, Orin Nano", ""},
    {8, 8, "Unreleased", "sm_88 target of CUDA 13.0", "", "", "", "", ""},
    {8, 9, "Ada Lovelace", "AD10x", "L4, L40, L40S, L20", "RTX 6000 Ada, RTX 4000/4500/5000 Ada",
     "RTX 4060-4090", "", ""},
    {9, 0, "Hopper", "GH100", "H100, H200, H800, H20, GH200", "", "", "", ""},
    {10, 0, "Blackwell", "GB100", "B200, GB200, B100", "", "", "", ""},
    {10, 1, "Blackwell", "Thor", "", "", "", "Jetson AGX Thor, DRIVE AGX Thor",
     "CC 10.1 is Thor's number before CUDA 13.0, which calls it 11.0"},
    /* The B300 chip's code name is not verified (FORMATS.md §12), so none is shown. */
    {10, 3, "Blackwell Ultra", "", "B300, GB300", "", "", "", ""},
    {11, 0, "Blackwell", "Thor", "", "", "", "Jetson AGX Thor, DRIVE AGX Thor",
     "CUDA 12.8/12.9 called it 10.1 (sm_101)"},
    {12, 0, "Blackwell", "GB20x", "RTX PRO 6000 Blackwell Server Edition",
     "RTX PRO 4000-6000 Blackwell", "RTX 5050-5090", "", ""},
    {12, 1, "Blackwell", "GB10", "", "DGX Spark, other GB10 systems", "", "", ""},
};

int pt2_desc_cc(int major, int minor, struct pt2_cc_desc *out)
{
    size_t i;

    for (i = 0; i < NELEM(cc_table); i++) {
        if (cc_table[i].major == major && cc_table[i].minor == minor) {
            if (out != NULL)
                *out = cc_table[i];
            return PT2_OK;
        }
    }
    return PT2_ERR_NOT_FOUND;
}

const char *pt2_desc_cc_text(int major, int minor, char *buf, size_t len)
{
    struct pt2_cc_desc d;
    struct pt2_sbuf b;
    const char *cols[4];
    const char *sep = "";
    size_t i;

    pt2_sbuf_init(&b, buf, len);
    if (pt2_desc_cc(major, minor, &d) != PT2_OK) {
        pt2_sbuf_add(&b, "unknown compute capability %d.%d", major, minor);
        return buf;
    }
    /* pieces, not printf: this runs for every kernel of every document */
    pt2_sbuf_puts(&b, d.arch);
    if (d.chip[0] != '\0') {
        pt2_sbuf_puts(&b, " (");
        pt2_sbuf_puts(&b, d.chip);
        pt2_sbuf_puts(&b, ")");
    }
    pt2_sbuf_puts(&b, ": ");
    cols[0] = d.datacenter;
    cols[1] = d.workstation;
    cols[2] = d.consumer;
    cols[3] = d.embedded;
    for (i = 0; i < 4; i++) {
        if (cols[i][0] == '\0')
            continue;
        pt2_sbuf_puts(&b, sep);
        pt2_sbuf_puts(&b, cols[i]);
        sep = ", ";
    }
    if (sep[0] == '\0')
        pt2_sbuf_puts(&b, "no public product known");
    if (d.note[0] != '\0') {
        pt2_sbuf_puts(&b, "; ");
        pt2_sbuf_puts(&b, d.note);
    }
    return buf;
}

/* ---- product names -------------------------------------------------------- */

struct product {
    const char *key;     /* matched in compact form */
    const char *display; /* canonical name */
    int vendor;
    int major, minor;
    const char *gfx;
};

#define NV(key, disp, ma, mi)                                                                      \
    {                                                                                              \
        key, disp, PT2_VENDOR_NVIDIA, ma, mi, ""                                                   \
    }
#define AMD(key, disp, gfx)                                                                        \
    {                                                                                              \
        key, disp, PT2_VENDOR_AMD, 0, 0, gfx                                                       \
    }

static const struct product products[] = {
    NV("M10", "Tesla M10", 5, 0),
    NV("GTX 750", "GTX 750", 5, 0),
    NV("M4", "Tesla M4", 5, 2),
    NV("M6", "Tesla M6", 5, 2),
    NV("M40", "Tesla M40", 5, 2),
    NV("M60", "Tesla M60", 5, 2),
    NV("M4000", "Quadro M4000", 5, 2),
    NV("M6000", "Quadro M6000", 5, 2),
    NV("GTX 970", "GTX 970", 5, 2),
    NV("GTX 980", "GTX 980", 5, 2),
    NV("NANO", "Jetson Nano", 5, 3),
    NV("TX1", "Jetson TX1", 5, 3),
    NV("P100", "P100", 6, 0),
    NV("GP100", "Quadro GP100", 6, 0),
    NV("P4", "Tesla P4", 6, 1),
    NV("P40", "Tesla P40", 6, 1),
    NV("P4000", "Quadro P4000", 6, 1),
    NV("P5000", "Quadro P5000", 6, 1),
    NV("P6000", "Quadro P6000", 6, 1),
    NV("GTX 1050", "GTX 1050", 6, 1),
    NV("GTX 1060", "GTX 1060", 6, 1),
    NV("GTX 1070", "GTX 1070", 6, 1),
    NV("GTX 1080", "GTX 1080", 6, 1),
    NV("TITAN XP", "Titan Xp", 6, 1),
    NV("TX2", "Jetson TX2", 6, 2),
    NV("V100", "V100", 7, 0),
    NV("GV100", "Quadro GV100", 7, 0),
    NV("TITAN V", "Titan V", 7, 0),
    NV("XAVIER", "Jetson Xavier", 7, 2),
    NV("T4", "T4", 7, 5),
    NV("T400", "T400", 7, 5),
    NV("T600", "T600", 7, 5),
    NV("T1000", "T1000", 7, 5),
    NV("RTX 2060", "RTX 2060", 7, 5),
    NV("RTX 2070", "RTX 2070", 7, 5),
    NV("RTX 2080", "RTX 2080", 7, 5),
    NV("TITAN RTX", "Titan RTX", 7, 5),
    NV("GTX 1650", "GTX 1650", 7, 5),
    NV("GTX 1660", "GTX 1660", 7, 5),
    NV("RTX 4000", "Quadro RTX 4000", 7, 5),
    NV("RTX 5000", "Quadro RTX 5000", 7, 5),
    NV("RTX 6000", "Quadro RTX 6000", 7, 5),
    NV("RTX 8000", "Quadro RTX 8000", 7, 5),
    NV("A100", "A100", 8, 0),
    NV("A30", "A30", 8, 0),
    NV("A800", "A800", 8, 0),
    NV("A10", "A10", 8, 6),
    NV("A10G", "A10G", 8, 6),
    NV("A16", "A16", 8, 6),
    NV("A2", "A2", 8, 6),
    NV("A40", "A40", 8, 6),
    NV("RTX A2000", "RTX A2000", 8, 6),
    NV("RTX A4000", "RTX A4000", 8, 6),
    NV("RTX A4500", "RTX A4500", 8, 6),
    NV("RTX A5000", "RTX A5000", 8, 6),
    NV("RTX A6000", "RTX A6000", 8, 6),
    NV("RTX 3050", "RTX 3050", 8, 6),
    NV("RTX 3060", "RTX 3060", 8, 6),
    NV("RTX 3070", "RTX 3070", 8, 6),
    NV("RTX 3080", "RTX 3080", 8, 6),
    NV("RTX 3090", "RTX 3090", 8, 6),
    NV("ORIN", "Jetson Orin", 8, 7),
    NV("L4", "L4", 8, 9),
    NV("L40", "L40", 8, 9),
    NV("L40S", "L40S", 8, 9),
    NV("L20", "L20", 8, 9),
    NV("RTX 4060", "RTX 4060", 8, 9),
    NV("RTX 4070", "RTX 4070", 8, 9),
    NV("RTX 4080", "RTX 4080", 8, 9),
    NV("RTX 4090", "RTX 4090", 8, 9),
    NV("RTX 2000 Ada", "RTX 2000 Ada", 8, 9),
    NV("RTX 4000 Ada", "RTX 4000 Ada", 8, 9),
    NV("RTX 4000 SFF Ada", "RTX 4000 SFF Ada", 8, 9),
    NV("RTX 4500 Ada", "RTX 4500 Ada", 8, 9),
    NV("RTX 5000 Ada", "RTX 5000 Ada", 8, 9),
    NV("RTX 6000 Ada", "RTX 6000 Ada", 8, 9),
    NV("H100", "H100", 9, 0),
    NV("H200", "H200", 9, 0),
    NV("H800", "H800", 9, 0),
    NV("H20", "H20", 9, 0),
    NV("GH200", "GH200", 9, 0),
    NV("B100", "B100", 10, 0),
    NV("B200", "B200", 10, 0),
    NV("GB200", "GB200", 10, 0),
    NV("B300", "B300", 10, 3),
    NV("GB300", "GB300", 10, 3),
    NV("THOR", "Jetson Thor", 11, 0),
    NV("RTX 5050", "RTX 5050", 12, 0),
    NV("RTX 5060", "RTX 5060", 12, 0),
    NV("RTX 5070", "RTX 5070", 12, 0),
    NV("RTX 5080", "RTX 5080", 12, 0),
    NV("RTX 5090", "RTX 5090", 12, 0),
    NV("RTX PRO 2000", "RTX PRO 2000", 12, 0),
    NV("RTX PRO 4000", "RTX PRO 4000", 12, 0),
    NV("RTX PRO 4500", "RTX PRO 4500", 12, 0),
    NV("RTX PRO 5000", "RTX PRO 5000", 12, 0),
    NV("RTX PRO 6000", "RTX PRO 6000", 12, 0),
    NV("GB10", "GB10", 12, 1),
    NV("DGX SPARK", "DGX Spark", 12, 1),
    AMD("MI25", "MI25", "gfx900"),
    AMD("RX VEGA", "RX Vega", "gfx900"),
    AMD("VEGA", "RX Vega", "gfx900"),
    AMD("MI50", "MI50", "gfx906"),
    AMD("MI60", "MI60", "gfx906"),
    AMD("VII", "Radeon VII", "gfx906"),
    AMD("PRO VII", "Radeon PRO VII", "gfx906"),
    AMD("MI100", "MI100", "gfx908"),
    AMD("MI210", "MI210", "gfx90a"),
    AMD("MI250", "MI250", "gfx90a"),
    AMD("MI250X", "MI250X", "gfx90a"),
    AMD("MI300", "MI300", "gfx942"),
    AMD("MI300X", "MI300X", "gfx942"),
    AMD("MI300A", "MI300A", "gfx942"),
    AMD("MI325X", "MI325X", "gfx942"),
    AMD("MI350X", "MI350X", "gfx950"),
    AMD("MI355X", "MI355X", "gfx950"),
    AMD("RX 6800", "RX 6800", "gfx1030"),
    AMD("RX 6900", "RX 6900", "gfx1030"),
    AMD("RX 6950", "RX 6950", "gfx1030"),
    AMD("PRO W6800", "Radeon PRO W6800", "gfx1030"),
    AMD("RX 6700", "RX 6700", "gfx1031"),
    AMD("RX 6600", "RX 6600", "gfx1032"),
    AMD("RX 7900", "RX 7900", "gfx1100"),
    AMD("PRO W7800", "Radeon PRO W7800", "gfx1100"),
    AMD("PRO W7900", "Radeon PRO W7900", "gfx1100"),
    AMD("RX 7700", "RX 7700", "gfx1101"),
    AMD("RX 7800", "RX 7800", "gfx1101"),
    AMD("RX 7600", "RX 7600", "gfx1102"),
    AMD("RX 9060", "RX 9060", "gfx1200"),
    AMD("RX 9070", "RX 9070", "gfx1201"),
};

/* Brand words skipped before matching, per vendor. */
static const char *const nv_words[] = {"NVIDIA", "GEFORCE", "TESLA", "QUADRO",
                                       "JETSON", "AGX",     "DRIVE"};
static const char *const amd_words[] = {"AMD", "INSTINCT", "RADEON"};

#define COMPACT_MAX 128

struct compact {
    char s[COMPACT_MAX];            /* upper-case letters and digits */
    unsigned char brk[COMPACT_MAX]; /* 1: a separator stood before s[i] */
    size_t n;
};

static int is_alnum(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static char upper(char c)
{
    return (c >= 'a' && c <= 'z') ? (char)(c - 'a' + 'A') : c;
}

/* 0 if text does not fit. */
static int compact_make(struct compact *c, const char *text)
{
    int pending = 0;

    memset(c, 0, sizeof(*c));
    for (; *text != '\0'; text++) {
        if (!is_alnum(*text)) {
            pending = 1;
            continue;
        }
        if (c->n + 1 >= COMPACT_MAX)
            return 0;
        c->brk[c->n] = (unsigned char)(pending && c->n > 0);
        c->s[c->n++] = upper(*text);
        pending = 0;
    }
    c->s[c->n] = '\0';
    c->brk[c->n] = 1;
    return 1;
}

/* Length of key's compact form if it matches c at offset off and ends cleanly; else 0. */
static size_t compact_match(const struct compact *c, size_t off, const char *key)
{
    size_t i = off;

    for (; *key != '\0'; key++) {
        if (!is_alnum(*key))
            continue;
        if (i >= c->n || c->s[i] != upper(*key))
            return 0;
        i++;
    }
    if (i == off)
        return 0;
    /* "A10" must not match "A100", but "H100 80GB" and "A10G" are fine. */
    if (i < c->n && !c->brk[i] && is_digit(c->s[i - 1]) && is_digit(c->s[i]))
        return 0;
    return i - off;
}

/* Skip brand words at the front; returns the new offset. */
static size_t skip_words(const struct compact *c, size_t off, const char *const *words, size_t n)
{
    size_t i, m;
    int again = 1;

    while (again) {
        again = 0;
        for (i = 0; i < n; i++) {
            m = strlen(words[i]);
            if (off + m < c->n && memcmp(c->s + off, words[i], m) == 0) {
                off += m;
                again = 1;
            }
        }
    }
    return off;
}

int pt2_desc_gpu_lookup(const char *text, struct pt2_gpu_match *out)
{
    struct compact c;
    size_t i, off_nv, off_amd, off, m, best_len = 0;
    const struct product *best = NULL;

    if (text == NULL || out == NULL || !compact_make(&c, text))
        return PT2_ERR_INVALID;
    memset(out, 0, sizeof(*out));
    off_nv = skip_words(&c, 0, nv_words, NELEM(nv_words));
    off_amd = skip_words(&c, 0, amd_words, NELEM(amd_words));
    for (i = 0; i < NELEM(products); i++) {
        off = products[i].vendor == PT2_VENDOR_NVIDIA ? off_nv : off_amd;
        m = compact_match(&c, off, products[i].key);
        if (m > best_len) {
            best_len = m;
            best = &products[i];
        }
    }
    if (best == NULL)
        return PT2_ERR_NOT_FOUND;
    out->vendor = best->vendor;
    out->product = best->display;
    out->cc_major = best->major;
    out->cc_minor = best->minor;
    out->gfx = best->gfx;
    return PT2_OK;
}

/* ---- AMD targets ----------------------------------------------------------- */

static const struct {
    const char *gfx;
    const char *text;
} gfx_table[] = {
    {"gfx900", "AMD Radeon Instinct MI25 / Radeon RX Vega (Vega 10, GCN5)"},
    {"gfx906", "AMD Instinct MI50/MI60 / Radeon VII (Vega 20, GCN5)"},
    {"gfx908", "AMD Instinct MI100 (CDNA)"},
    {"gfx90a", "AMD Instinct MI210/MI250/MI250X (CDNA2)"},
    {"gfx940", "AMD Instinct MI300A (CDNA3, early gfx940 target)"},
    {"gfx941", "AMD Instinct MI300X (CDNA3, early gfx941 target)"},
    {"gfx942", "AMD Instinct MI300X/MI300A/MI325X (CDNA3)"},
    {"gfx950", "AMD Instinct MI350X/MI355X (CDNA4)"},
    {"gfx1030", "AMD Radeon RX 6800/6900, Radeon PRO W6800 (RDNA2)"},
    {"gfx1031", "AMD Radeon RX 6700 (RDNA2)"},
    {"gfx1032", "AMD Radeon RX 6600 (RDNA2)"},
    {"gfx1100", "AMD Radeon RX 7900, Radeon PRO W7800/W7900 (RDNA3)"},
    {"gfx1101", "AMD Radeon RX 7700/7800 (RDNA3)"},
    {"gfx1102", "AMD Radeon RX 7600 (RDNA3)"},
    {"gfx1103", "AMD Radeon 760M/780M integrated (RDNA3)"},
    {"gfx1150", "AMD Radeon 880M/890M integrated (RDNA3.5)"},
    {"gfx1151", "AMD Radeon 8060S integrated, Ryzen AI Max (RDNA3.5)"},
    {"gfx1200", "AMD Radeon RX 9060 (RDNA4)"},
    {"gfx1201", "AMD Radeon RX 9070 (RDNA4)"},
};

const char *pt2_desc_gfx_text(const char *gfx, char *buf, size_t len)
{
    struct pt2_sbuf b;
    size_t i, n;

    pt2_sbuf_init(&b, buf, len);
    if (gfx == NULL)
        gfx = "";
    n = strcspn(gfx, ":");
    for (i = 0; i < NELEM(gfx_table); i++) {
        if (strlen(gfx_table[i].gfx) == n && strncmp(gfx_table[i].gfx, gfx, n) == 0) {
            pt2_sbuf_add(&b, "%s", gfx_table[i].text);
            return buf;
        }
    }
    pt2_sbuf_add(&b, "unknown AMD GPU target %.*s", (int)(n > 32 ? 32 : n), gfx);
    return buf;
}

/* ---- CPU ------------------------------------------------------------------- */

static const char *machine_display(const char *m)
{
    static const struct {
        const char *machine, *display;
    } names[] = {
        {"x86_64", "x86-64"},     {"aarch64", "AArch64"},   {"arm64", "arm64"},
        {"ppc64le", "ppc64le"},   {"ppc64", "ppc64"},       {"s390x", "s390x"},
        {"riscv64", "RISC-V 64"}, {"i686", "x86 (32-bit)"}, {"i386", "x86 (32-bit)"},
        {"arm", "ARM (32-bit)"},
    };
    size_t i;

    for (i = 0; i < NELEM(names); i++)
        if (strcmp(m, names[i].machine) == 0)
            return names[i].display;
    return m;
}

const char *pt2_desc_elf_kind(const struct pt2_host *h)
{
    switch (h->elf_type) {
    case 1:
        return "relocatable object";
    case 2:
        return "executable";
    case 3: /* a PIE is ET_DYN too: DF_1_PIE tells it apart */
        return h->needs != NULL && h->needs->pie ? "position-independent executable"
                                                 : "shared object";
    default:
        return "ELF file";
    }
}

static void host_text(const struct pt2_host *h, char *buf, size_t len)
{
    struct pt2_sbuf b;

    pt2_sbuf_init(&b, buf, len);
    switch (h->format) {
    case PT2_HOST_ELF:
        pt2_sbuf_add(&b, "%s%s Linux %s", machine_display(h->machine),
                     h->big_endian ? " (big-endian)" : "", pt2_desc_elf_kind(h));
        break;
    case PT2_HOST_MACHO:
        if (strcmp(h->machine, "arm64") == 0 || strcmp(h->machine, "aarch64") == 0)
            pt2_sbuf_add(&b, "macOS arm64 (Apple silicon) dylib");
        else if (strcmp(h->machine, "x86_64") == 0)
            pt2_sbuf_add(&b, "macOS x86-64 (Intel) dylib");
        else
            pt2_sbuf_add(&b, "macOS %s dylib", h->machine);
        break;
    case PT2_HOST_MACHO_FAT:
        pt2_sbuf_add(&b, "macOS universal dylib (%s)", h->machine);
        break;
    case PT2_HOST_PE:
        pt2_sbuf_add(&b, "Windows %s DLL", machine_display(h->machine));
        break;
    default:
        pt2_sbuf_add(&b, "unrecognised host binary (%s)", h->machine);
        break;
    }
}

#define CPU_HOST_KINDS_MAX 4

const char *pt2_desc_cpu_text(const struct pt2_host_list *hosts, const struct pt2_cpu_isa *isa,
                              char *buf, size_t len)
{
    char seen[CPU_HOST_KINDS_MAX][128];
    size_t nseen = 0, i, j, nfeat = 0;
    const char *feat[PT2_ISA_FEATURES_MAX];
    const char *name;
    struct pt2_sbuf b;
    int cut;

    pt2_sbuf_init(&b, buf, len);
    for (i = 0; hosts != NULL && i < hosts->n; i++) {
        char t[128];
        host_text(&hosts->v[i], t, sizeof(t));
        for (j = 0; j < nseen; j++)
            if (strcmp(seen[j], t) == 0)
                break;
        if (j < nseen)
            continue;
        if (nseen == CPU_HOST_KINDS_MAX) {
            pt2_sbuf_add(&b, " + more");
            break;
        }
        memcpy(seen[nseen++], t, sizeof(t));
        pt2_sbuf_add(&b, "%s%s", nseen > 1 ? " + " : "", t);
    }
    if (nseen == 0)
        pt2_sbuf_add(&b, "no host binary");
    if (isa == NULL)
        return buf;

    /* A too-long list (impossible with PT2_ISA_FEATURES_MAX) is shown cut, and says so. */
    cut = pt2_isa_required_features(isa, feat, NELEM(feat), &nfeat) == PT2_ERR_TOO_LARGE;
    name = pt2_isa_display_name(isa->isa);
    if (name[0] != '\0' || nfeat > 0) {
        pt2_sbuf_add(&b, ", %s", name[0] != '\0' ? name : "CPU features");
        for (i = 0; i < nfeat; i++)
            pt2_sbuf_add(&b, "%s%s", i == 0 ? " (" : ", ", feat[i]);
        if (nfeat > 0)
            pt2_sbuf_add(&b, "%s)", cut ? ", ..." : "");
    }
    if (pt2_isa_is_native(isa))
        pt2_sbuf_add(&b, ", -march=native");
    return buf;
}
