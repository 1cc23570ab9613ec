/*
 * pt2_macho.c - Mach-O header reading (see pt2_macho.h).
 *
 * Layouts (Apple <mach-o/loader.h>, <mach-o/fat.h>): mach_header is
 * magic, cputype, cpusubtype, filetype, ncmds, sizeofcmds, flags (+ reserved
 * in 64-bit files), in the file's own byte order; the fat header and its
 * fat_arch / fat_arch_64 records are always big-endian.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_macho.h"
#include "pt2_needs.h"

#define MH_MAGIC 0xfeedfaceu
#define MH_MAGIC_64 0xfeedfacfu
#define MH_CIGAM 0xcefaedfeu
#define MH_CIGAM_64 0xcffaedfeu
#define FAT_MAGIC 0xcafebabeu
#define FAT_MAGIC_64 0xcafebabfu
#define CPU_ARCH_ABI64 0x01000000u
#define CPU_ARCH_ABI64_32 0x02000000u
#define CPU_TYPE_X86 7u
#define CPU_TYPE_ARM 12u
#define CPU_TYPE_POWERPC 18u
#define CPU_SUBTYPE_MASK 0xff000000u
#define CPU_SUBTYPE_ARM64E 2u
#define CPU_SUBTYPE_X86_64_H 8u
#define MACH_HEADER_SIZE 28u

int pt2_macho_probe(const uint8_t *p, size_t len)
{
    uint32_t le, be;

    if (len < 4)
        return PT2_MACHO_NONE;
    le = pt2_le32(p);
    be = pt2_be32(p);
    if (le == MH_MAGIC || le == MH_MAGIC_64 || le == MH_CIGAM || le == MH_CIGAM_64)
        return PT2_MACHO_THIN;
    if (len >= 8 && be == FAT_MAGIC) {
        uint32_t n = pt2_be32(p + 4);
        return n >= 1 && n <= PT2_MACHO_FAT32_MAX ? PT2_MACHO_FAT : PT2_MACHO_NONE;
    }
    if (len >= 8 && be == FAT_MAGIC_64)
        return PT2_MACHO_FAT;
    return PT2_MACHO_NONE;
}

const char *pt2_macho_cpu_name(uint32_t cputype, uint32_t cpusubtype, char *buf, size_t len)
{
    uint32_t sub = cpusubtype & ~CPU_SUBTYPE_MASK;
    const char *s = NULL;

    switch (cputype) {
    case CPU_TYPE_X86:
        s = "i386";
        break;
    case CPU_TYPE_X86 | CPU_ARCH_ABI64:
        s = sub == CPU_SUBTYPE_X86_64_H ? "x86_64h" : "x86_64";
        break;
    case CPU_TYPE_ARM:
        s = "arm";
        break;
    case CPU_TYPE_ARM | CPU_ARCH_ABI64:
        s = sub == CPU_SUBTYPE_ARM64E ? "arm64e" : "arm64";
        break;
    case CPU_TYPE_ARM | CPU_ARCH_ABI64_32:
        s = "arm64_32";
        break;
    case CPU_TYPE_POWERPC:
        s = "ppc";
        break;
    case CPU_TYPE_POWERPC | CPU_ARCH_ABI64:
        s = "ppc64";
        break;
    default:
        break;
    }
    if (s != NULL)
        snprintf(buf, len, "%s", s);
    else
        snprintf(buf, len, "cpu_0x%x", cputype);
    return buf;
}

static const char *filetype_name(uint32_t t)
{
    static const char *const names[] = {
        "file",     "object", "executable", "fvmlib", "core",        "preload", "dylib",
        "dylinker", "bundle", "dylib stub", "dSYM",   "kext bundle", "fileset"};
    return t < sizeof(names) / sizeof(names[0]) ? names[t] : "file";
}

/* One thin mach header at `off`: cputype, subtype, filetype, bits, byte order. */
struct thin {
    uint32_t cputype, cpusubtype, filetype, ncmds, sizeofcmds;
    int bits, big_endian;
};

static int read_thin(struct pt2_rd *rd, uint64_t off, uint64_t size, struct thin *t,
                     struct pt2_error *err)
{
    uint8_t h[MACH_HEADER_SIZE];
    uint32_t magic;
    int rc;

    if (size < sizeof(h))
        return pt2_error_set(err, PT2_ERR_FORMAT,
                             "%s: Mach-O header at 0x%llx truncated (%llu bytes, needs 28)",
                             rd->name, (unsigned long long)off, (unsigned long long)size);
    rc = pt2_rd_read(rd, off, h, sizeof(h), err);
    if (rc != PT2_OK)
        return rc;
    magic = pt2_le32(h);
    if (magic == MH_MAGIC || magic == MH_MAGIC_64) {
        t->big_endian = 0;
    } else if (magic == MH_CIGAM || magic == MH_CIGAM_64) {
        t->big_endian = 1;
    } else {
        return pt2_error_set(err, PT2_ERR_FORMAT,
                             "%s: Mach-O slice at 0x%llx has no mach header (magic 0x%08x)",
                             rd->name, (unsigned long long)off, magic);
    }
    t->bits = (magic == MH_MAGIC_64 || magic == MH_CIGAM_64) ? 64 : 32;
    t->cputype = t->big_endian ? pt2_be32(h + 4) : pt2_le32(h + 4);
    t->cpusubtype = t->big_endian ? pt2_be32(h + 8) : pt2_le32(h + 8);
    t->filetype = t->big_endian ? pt2_be32(h + 12) : pt2_le32(h + 12);
    t->ncmds = t->big_endian ? pt2_be32(h + 16) : pt2_le32(h + 16);
    t->sizeofcmds = t->big_endian ? pt2_be32(h + 20) : pt2_le32(h + 20);
    return PT2_OK;
}

/* ---- load commands: the libraries, the minimum macOS, the undefined externals ----------- */

#define LC_SYMTAB 0x2u
#define LC_LOAD_DYLIB 0xcu
#define LC_ID_DYLIB 0xdu
#define LC_RPATH 0x8000001cu
#define LC_VERSION_MIN_MACOSX 0x24u
#define LC_VERSION_MIN_IPHONEOS 0x25u
#define LC_VERSION_MIN_TVOS 0x2fu
#define LC_VERSION_MIN_WATCHOS 0x30u
#define LC_LOAD_WEAK_DYLIB 0x80000018u
#define LC_REEXPORT_DYLIB 0x8000001fu
#define LC_LAZY_LOAD_DYLIB 0x20u
#define LC_LOAD_UPWARD_DYLIB 0x80000023u
#define LC_BUILD_VERSION 0x32u
#define PLATFORM_MACOS 1u
#define PLATFORM_IOS 2u
#define PLATFORM_TVOS 3u
#define PLATFORM_WATCHOS 4u
#define CMDS_MAX (1u * 1024u * 1024u)
#define RPATHS_MAX 4096u /* LC_RPATH paths joined with ':' */
#define N_STAB 0xe0u
#define N_TYPE 0x0eu
#define N_EXT 0x01u
#define N_UNDF 0x0u
#define N_WEAK_REF 0x40u

static uint32_t u32(const struct thin *t, const uint8_t *p)
{
    return t->big_endian ? pt2_be32(p) : pt2_le32(p);
}

/* dyld loads a Mach-O only into a process of a platform it names, so each is kept. */
static void add_platform(struct pt2_needs *n, uint32_t platform)
{
    n->macho_platforms |= platform >= 1 && platform < 32 ? 1u << platform : 1u;
}

/* The platform an LC_VERSION_MIN_* command stands for; 0 for any other command. */
static uint32_t version_min_platform(uint32_t cmd)
{
    switch (cmd) {
    case LC_VERSION_MIN_MACOSX:
        return PLATFORM_MACOS;
    case LC_VERSION_MIN_IPHONEOS:
        return PLATFORM_IOS;
    case LC_VERSION_MIN_TVOS:
        return PLATFORM_TVOS;
    case LC_VERSION_MIN_WATCHOS:
        return PLATFORM_WATCHOS;
    default:
        return 0;
    }
}

static int dylib_cmd(uint32_t cmd)
{
    return cmd == LC_LOAD_DYLIB || cmd == LC_LOAD_WEAK_DYLIB || cmd == LC_REEXPORT_DYLIB ||
           cmd == LC_LAZY_LOAD_DYLIB || cmd == LC_LOAD_UPWARD_DYLIB;
}

/* Undefined externals of LC_SYMTAB (names without the leading '_'), capped and bounded. */
static int read_symtab(struct pt2_rd *rd, uint64_t base, uint64_t size, const struct thin *t,
                       const uint8_t *c, struct pt2_needs *n, struct pt2_error *err)
{
    uint32_t symoff = u32(t, c + 8), nsyms = u32(t, c + 12), stroff = u32(t, c + 16),
             strsize = u32(t, c + 20);
    size_t ent = t->bits == 64 ? 16 : 12;
    uint8_t *str = NULL, e[16];
    int rc = PT2_OK;

    if ((uint64_t)symoff + (uint64_t)nsyms * ent > size || (uint64_t)stroff + strsize > size ||
        strsize > PT2_NEEDS_NAMES_MAX * 2u || nsyms > 4u * PT2_NEEDS_IMPORTS_MAX) {
        pt2_needs_set_partial(n,
                              "%s: LC_SYMTAB (%u symbols) lies outside the file or past its "
                              "caps",
                              rd->name, nsyms);
        return PT2_OK;
    }
    str = malloc(strsize + 1u);
    if (str == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory reading %s", rd->name);
    rc = pt2_rd_read(rd, base + stroff, str, strsize, err);
    str[strsize] = '\0';
    for (uint32_t i = 0; rc == PT2_OK && i < nsyms; i++) {
        uint32_t strx;
        uint8_t type;
        uint16_t desc;
        const char *name;

        rc = pt2_rd_read(rd, base + symoff + (uint64_t)i * ent, e, ent, err);
        if (rc != PT2_OK)
            break;
        strx = u32(t, e);
        type = e[4];
        desc = t->big_endian ? pt2_be16(e + 6) : pt2_le16(e + 6);
        if ((type & N_STAB) != 0 || (type & N_TYPE) != N_UNDF || (type & N_EXT) == 0)
            continue;
        if (strx >= strsize) {
            pt2_needs_set_partial(n, "%s: a symbol name lies outside the string table", rd->name);
            continue;
        }
        name = (const char *)str + strx;
        if (name[0] == '_')
            name++;
        if (name[0] != '\0')
            rc = pt2_needs_add_import(n, name, -1, (desc & N_WEAK_REF) != 0, err);
    }
    free(str);
    return rc;
}

/* The NUL-terminated string a load command at `c` (cmdsize bytes) names at its offset field
 * +8 (dylib_command, rpath_command), or NULL when it lies outside the command. */
static const char *cmd_str(const struct thin *t, const uint8_t *c, uint32_t cmdsize, uint32_t min)
{
    uint32_t at = u32(t, c + 8);

    if (at < min || at >= cmdsize || memchr(c + at, '\0', cmdsize - at) == NULL)
        return NULL;
    return (const char *)c + at;
}

/* LC_RPATH `path` appended to the ':'-joined list in rp (RPATHS_MAX); 0 when it does not fit. */
static int rpath_add(char *rp, size_t *len, const char *path)
{
    size_t n = strlen(path), sep = *len != 0;

    if (*len + sep + n + 1 > RPATHS_MAX)
        return 0;
    if (sep)
        rp[(*len)++] = ':';
    memcpy(rp + *len, path, n + 1);
    *len += n;
    return 1;
}

/* The needs of the thin image at [base, base+size) into n (libraries, install name, run
 * paths, minimum macOS, imports); what does not fit or parse is a `partial` note. */
static int read_needs(struct pt2_rd *rd, uint64_t base, uint64_t size, const struct thin *t,
                      struct pt2_needs *n, struct pt2_error *err)
{
    size_t hdr = t->bits == 64 ? 32 : 28, off = 0, rplen = 0;
    char rp[RPATHS_MAX];
    const char *str;
    uint8_t *c;
    int rc = PT2_OK;

    n->macho_filetype = t->filetype; /* from the header, whatever its commands are */
    if (t->sizeofcmds > CMDS_MAX || hdr + (uint64_t)t->sizeofcmds > size) {
        pt2_needs_set_partial(n,
                              "%s: load commands (%u bytes) lie outside the file or past %u "
                              "bytes",
                              rd->name, t->sizeofcmds, CMDS_MAX);
        return PT2_OK;
    }
    c = malloc(t->sizeofcmds + 1u);
    if (c == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory reading %s", rd->name);
    rc = pt2_rd_read(rd, base + hdr, c, t->sizeofcmds, err);
    for (uint32_t i = 0; rc == PT2_OK && i < t->ncmds; i++) {
        uint32_t cmd, cmdsize;

        if (off + 8 > t->sizeofcmds) {
            pt2_needs_set_partial(n, "%s: load command %u runs past sizeofcmds", rd->name, i);
            break;
        }
        cmd = u32(t, c + off);
        cmdsize = u32(t, c + off + 4);
        if (cmdsize < 8 || cmdsize > t->sizeofcmds - off || cmdsize % 4 != 0) {
            /* dyld refuses a command whose size is not a multiple of 4 */
            pt2_needs_set_partial(n, "%s: load command %u has size %u", rd->name, i, cmdsize);
            break;
        }
        if (dylib_cmd(cmd) && cmdsize >= 24) {
            if ((str = cmd_str(t, c + off, cmdsize, 24)) != NULL)
                rc = pt2_needs_add_lib(n, str, cmd == LC_LOAD_WEAK_DYLIB, err);
            else
                pt2_needs_set_partial(n, "%s: a dylib load command names no library", rd->name);
        } else if (cmd == LC_ID_DYLIB && cmdsize >= 24 && n->soname == 0) {
            if ((str = cmd_str(t, c + off, cmdsize, 24)) != NULL)
                rc = pt2_needs_intern(n, str, strlen(str), &n->soname, err);
            else
                pt2_needs_set_partial(n, "%s: LC_ID_DYLIB names no install name", rd->name);
        } else if (cmd == LC_RPATH && cmdsize >= 12) {
            if ((str = cmd_str(t, c + off, cmdsize, 12)) == NULL)
                pt2_needs_set_partial(n, "%s: LC_RPATH names no path", rd->name);
            else if (!rpath_add(rp, &rplen, str))
                pt2_needs_set_partial(n, "%s: run paths longer than %u bytes", rd->name,
                                      RPATHS_MAX - 1);
        } else if (cmd == LC_BUILD_VERSION && cmdsize >= 24) {
            add_platform(n, u32(t, c + off + 8));
            if (u32(t, c + off + 8) == PLATFORM_MACOS && u32(t, c + off + 12) > n->macos_min)
                n->macos_min = u32(t, c + off + 12);
        } else if (version_min_platform(cmd) != 0 && cmdsize >= 16) {
            add_platform(n, version_min_platform(cmd));
            if (cmd == LC_VERSION_MIN_MACOSX && u32(t, c + off + 8) > n->macos_min)
                n->macos_min = u32(t, c + off + 8);
        } else if (cmd == LC_SYMTAB && cmdsize >= 24) {
            rc = read_symtab(rd, base, size, t, c + off, n, err);
        }
        off += cmdsize;
    }
    free(c);
    if (rc == PT2_OK && rplen != 0)
        rc = pt2_needs_intern(n, rp, rplen, &n->runpath, err);
    if (rc == PT2_ERR_TOO_LARGE) { /* the reader's budget: what was read stays */
        pt2_needs_set_partial(n, "%s: load commands or symbols past the read budget", rd->name);
        rc = PT2_OK;
    }
    return rc;
}

static int scan_fat(struct pt2_rd *rd, const uint8_t *hdr, struct pt2_host *h,
                    struct pt2_error *err)
{
    int is64 = pt2_be32(hdr) == FAT_MAGIC_64;
    uint32_t n = pt2_be32(hdr + 4), i;
    size_t recsz = is64 ? 32 : 20, used = 0;
    struct thin first = {0};
    int rc;

    if (n == 0 || n > (is64 ? PT2_MACHO_FAT64_MAX : PT2_MACHO_FAT32_MAX))
        return pt2_error_set(err, PT2_ERR_FORMAT,
                             "%s: Mach-O universal header claims %u architectures (limit %u)",
                             rd->name, n, is64 ? PT2_MACHO_FAT64_MAX : PT2_MACHO_FAT32_MAX);
    if ((uint64_t)8 + (uint64_t)n * recsz > rd->size)
        return pt2_error_set(err, PT2_ERR_FORMAT,
                             "%s: Mach-O universal header (%u architectures) is truncated",
                             rd->name, n);
    h->machine[0] = '\0';
    for (i = 0; i < n; i++) {
        uint8_t r[32];
        uint64_t off, size;
        uint32_t cpu, sub;
        struct thin t;
        char name[32];
        int w;

        rc = pt2_rd_read(rd, 8 + (uint64_t)i * recsz, r, recsz, err);
        if (rc != PT2_OK)
            return rc;
        cpu = pt2_be32(r);
        sub = pt2_be32(r + 4);
        off = is64 ? pt2_be64(r + 8) : pt2_be32(r + 8);
        size = is64 ? pt2_be64(r + 16) : pt2_be32(r + 12);
        if (off > rd->size || size > rd->size - off)
            return pt2_error_set(err, PT2_ERR_FORMAT,
                                 "%s: Mach-O universal architecture %u (offset 0x%llx, size "
                                 "%llu) lies beyond the end of the file (%llu bytes)",
                                 rd->name, i, (unsigned long long)off, (unsigned long long)size,
                                 (unsigned long long)rd->size);
        rc = read_thin(rd, off, size, &t, err);
        if (rc != PT2_OK)
            return rc;
        if (i == 0) {
            first = t;
            /* the first slice's needs (the slices of one build need the same) */
            if (h->needs != NULL)
                rc = read_needs(rd, off, size, &t, h->needs, err);
            if (rc != PT2_OK)
                return rc;
        }
        pt2_macho_cpu_name(cpu, sub, name, sizeof(name));
        /* Comma-joined list, truncated at the field size. */
        w = snprintf(h->machine + used, sizeof(h->machine) - used, "%s%s", i ? "," : "", name);
        if (w > 0)
            used =
                used + (size_t)w < sizeof(h->machine) ? used + (size_t)w : sizeof(h->machine) - 1;
    }
    h->format = PT2_HOST_MACHO_FAT;
    h->bits = first.bits;
    h->big_endian = first.big_endian;
    h->e_machine = first.cputype;
    h->elf_type = 0;
    h->size = rd->size;
    {
        char list[sizeof(h->machine)];
        size_t k;

        snprintf(list, sizeof(list), "%s", h->machine);
        for (k = 0; list[k] != '\0'; k++)
            if (list[k] == ',')
                list[k] = ' ';
        snprintf(h->description, sizeof(h->description),
                 "Mach-O universal binary with %u architecture%s: %s", n, n == 1 ? "" : "s", list);
    }
    return PT2_OK;
}

int pt2_macho_scan(struct pt2_rd *rd, struct pt2_host *h, int *recognized, struct pt2_error *err)
{
    uint8_t p[8];
    size_t got = 0;
    struct thin t;
    int kind, rc;

    *recognized = 0;
    rc = pt2_rd_read_some(rd, 0, p, sizeof(p), &got, err);
    if (rc != PT2_OK)
        return rc;
    kind = pt2_macho_probe(p, got);
    if (kind == PT2_MACHO_NONE)
        return PT2_OK;
    *recognized = 1;
    if (kind == PT2_MACHO_FAT)
        return scan_fat(rd, p, h, err);
    rc = read_thin(rd, 0, rd->size, &t, err);
    if (rc != PT2_OK)
        return rc;
    if (h->needs != NULL) {
        rc = read_needs(rd, 0, rd->size, &t, h->needs, err);
        if (rc != PT2_OK)
            return rc;
    }
    h->format = PT2_HOST_MACHO;
    h->bits = t.bits;
    h->big_endian = t.big_endian;
    h->e_machine = t.cputype;
    h->elf_type = 0;
    h->size = rd->size;
    pt2_macho_cpu_name(t.cputype, t.cpusubtype, h->machine, sizeof(h->machine));
    snprintf(h->description, sizeof(h->description), "Mach-O %d-bit %s, %s", t.bits,
             filetype_name(t.filetype), h->machine);
    return PT2_OK;
}
