/*
 * pt2_pe.c - PE/COFF headers and imports (see pt2_pe.h).
 *
 * Layout (Microsoft "PE Format"; all little-endian):
 *  - DOS header: e_lfanew (u32) at 0x3c; at it "PE\0\0", then the COFF header
 *    {u16 Machine, u16 NumberOfSections, u32 TimeDateStamp, u32
 *    PointerToSymbolTable, u32 NumberOfSymbols, u16 SizeOfOptionalHeader,
 *    u16 Characteristics}.
 *  - Optional header: u16 magic 0x10b (PE32) or 0x20b (PE32+); SizeOfHeaders
 *    at 60, Subsystem at 68, DllCharacteristics at 70, NumberOfRvaAndSizes
 *    at 92 (PE32) / 108 (PE32+), then the data directories {u32 RVA, u32
 *    Size}; directory 1 is the import table.
 *  - Section table, right after the optional header: 40-byte entries {name[8],
 *    u32 VirtualSize, u32 VirtualAddress, u32 SizeOfRawData, u32
 *    PointerToRawData, ...}. An RVA is file offset PointerToRawData + (rva -
 *    VirtualAddress) while it lies in the section's file bytes (the smaller
 *    of VirtualSize and SizeOfRawData: past that the loader zero-fills).
 *    RVAs below SizeOfHeaders are the headers themselves (offset = RVA).
 *  - Import directory: 20-byte descriptors {u32 OriginalFirstThunk, u32
 *    TimeDateStamp, u32 ForwarderChain, u32 Name, u32 FirstThunk}. The
 *    linker ends the list with an all-zero one; the loaders stop at the
 *    first with no Name or no FirstThunk (ReactOS's LdrpWalkImportDescriptor,
 *    Wine's import_dlls), so that is where the walk stops too. A lookup
 *    table holds u32 (PE32) / u64 (PE32+) entries ended by 0: the top bit
 *    set is an ordinal (low 16 bits), else the RVA (low 31 bits) of {u16
 *    hint, NUL-terminated name}.
 *  - Delay-load directory (data directory 13): 32-byte descriptors {u32
 *    Attributes, u32 DllNameRVA, u32 ModuleHandleRVA, u32
 *    ImportAddressTableRVA, u32 ImportNameTableRVA, u32 BoundIAT, u32
 *    UnloadIAT, u32 TimeDateStamp}; the delay helper (delayhlp.cpp) stops at
 *    the first with no DllNameRVA, and so does the walk. Attributes bit
 *    0 says the fields are RVAs (every linker since 2002 writes that); the
 *    name table has the lookup table's form. The loader does not bind these
 *    DLLs: the first call of one of their functions loads it, so they are
 *    needs of running, not of loading (pt2_needs.libs_delay).
 *  - A DLL is loaded once, whatever its descriptors and however its name is
 *    cased (Windows matches module names without regard to ASCII case): it
 *    is listed once, at its first descriptor, and is delay-loaded only when
 *    no import descriptor names it. Its functions come from all of them.
 *
 * Errors after the PE signature are split in two: the reader failing (I/O,
 * out of memory) fails the scan; anything about the file itself (a bound, a
 * cap, the read budget) becomes the needs' `partial` note.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pt2_needs.h"
#include "pt2_pe.h"

#define DOS_LFANEW 0x3cu
#define COFF_SIZE 20u
#define LFANEW_MAX (64u * 1024u * 1024u)
#define MAGIC_PE32 0x10bu
#define MAGIC_PE32PLUS 0x20bu
#define FIXED_PE32 96u      /* optional header up to the data directories */
#define FIXED_PE32PLUS 112u /* the same, PE32+ */
#define DIRS_MAX 16u
#define OPT_MAX (FIXED_PE32PLUS + DIRS_MAX * 8u)
#define DIR_IMPORT 1u
#define DIR_DELAY_IMPORT 13u
#define SECTION_SIZE 40u
#define DESC_SIZE 20u
#define DELAY_DESC_SIZE 32u
#define DELAY_RVA_BASED 1u /* Attributes bit 0 */

struct pe_sec {
    uint32_t va, len, raw_off; /* len: the section's bytes present in the file */
};

/* Bytes [off, off + len) of the file, read at once. */
struct pe_win {
    uint64_t off;
    size_t len;
    uint8_t buf[PT2_PE_WINDOW];
};

/*
 * One image being read; on the heap (~10 KiB). Two windows, because the lookup
 * tables and the names they point to lie apart: one window each keeps both walks
 * sequential (a DLL with 10,000 imports costs about 100 reads, not 20,000).
 */
struct pe_img {
    struct pt2_rd *rd;
    struct pt2_needs *n;
    int plus;         /* PE32+ */
    uint32_t headers; /* SizeOfHeaders */
    uint32_t ndirs, dir_rva[DIRS_MAX];
    size_t nsec;
    struct pe_sec sec[PT2_PE_SECTIONS_MAX];
    uint64_t entries;       /* non-zero lookup-table entries visited, all DLLs */
    struct pe_win tab, str; /* descriptors and lookup tables; names */
};

int pt2_pe_probe(const uint8_t *p, size_t len)
{
    return len >= 2 && p[0] == 'M' && p[1] == 'Z';
}

static const char *machine_name(unsigned m, char *buf, size_t len)
{
    switch (m) {
    case PT2_PE_MACHINE_AMD64:
        return "x86_64";
    case PT2_PE_MACHINE_ARM64:
        return "arm64";
    case PT2_PE_MACHINE_I386:
        return "i686";
    default:
        snprintf(buf, len, "pe_%04x", m);
        return buf;
    }
}

const char *pt2_pe_subsystem_name(unsigned subsystem, char *buf, size_t len)
{
    /* PE Format, "Windows Subsystem" (4, 6 and 15 are not defined) */
    static const char *const names[] = {"",
                                        "native",
                                        "windows-gui",
                                        "windows-cui",
                                        NULL,
                                        "os2-cui",
                                        NULL,
                                        "posix-cui",
                                        "native-windows",
                                        "windows-ce-gui",
                                        "efi-application",
                                        "efi-boot-service-driver",
                                        "efi-runtime-driver",
                                        "efi-rom",
                                        "xbox",
                                        NULL,
                                        "windows-boot-application"};

    if (subsystem < sizeof(names) / sizeof(names[0]) && names[subsystem] != NULL)
        snprintf(buf, len, "%s", names[subsystem]);
    else
        snprintf(buf, len, "subsystem-%u", subsystem);
    return buf;
}

const char *pt2_pe_dll_characteristic_name(unsigned bit)
{
    /* PE Format, "DLL Characteristics": bits 0x20 to 0x8000 (the lower ones are reserved) */
    static const char *const names[] = {
        "high-entropy-va", "dynamic-base",         "force-integrity",
        "nx-compat",       "no-isolation",         "no-seh",
        "no-bind",         "appcontainer",         "wdm-driver",
        "guard-cf",        "terminal-server-aware"};

    for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (bit == (0x20u << i))
            return names[i];
    return NULL;
}

/* ---- bounded reads ---------------------------------------------------------------------- */

/* Point *p at [off, off + need) of the file, refilling window w from off when it does not
 * hold that range. Callers check need <= PT2_PE_WINDOW and off + need <= the file size. */
static int win_get(struct pt2_rd *rd, struct pe_win *w, uint64_t off, size_t need,
                   const uint8_t **p, struct pt2_error *err)
{
    if (w->len == 0 || off < w->off || off - w->off + need > w->len) {
        uint64_t left = rd->size - off;
        size_t len = left < PT2_PE_WINDOW ? (size_t)left : PT2_PE_WINDOW;
        int rc;

        w->len = 0;
        rc = pt2_rd_read(rd, off, w->buf, len, err);
        if (rc != PT2_OK)
            return rc;
        w->off = off;
        w->len = len;
    }
    *p = w->buf + (off - w->off);
    return PT2_OK;
}

/* The file offset of `rva` and the bytes from it to the end of the file data holding it
 * (its section's, or the headers'); 0 when none holds it. */
static int rva_map(const struct pe_img *m, uint32_t rva, uint64_t *off, uint64_t *avail)
{
    uint64_t end;

    for (size_t i = 0; i < m->nsec; i++) {
        const struct pe_sec *s = &m->sec[i];

        if (rva < s->va || rva - s->va >= s->len)
            continue;
        *off = (uint64_t)s->raw_off + (rva - s->va);
        end = (uint64_t)s->raw_off + s->len;
        if (end > m->rd->size)
            end = m->rd->size; /* a truncated file: its section ends early */
        if (*off >= end)
            return 0;
        *avail = end - *off;
        return 1;
    }
    end = m->headers < m->rd->size ? m->headers : m->rd->size;
    if (rva >= end)
        return 0;
    *off = rva;
    *avail = end - rva;
    return 1;
}

/* *p = the `len` bytes at `rva` (<= PT2_PE_WINDOW), NULL when no file data holds them all. */
static int rva_bytes(struct pe_img *m, uint64_t rva, size_t len, const uint8_t **p,
                     struct pt2_error *err)
{
    uint64_t off, avail;

    *p = NULL;
    if (rva > UINT32_MAX || !rva_map(m, (uint32_t)rva, &off, &avail) || avail < len)
        return PT2_OK;
    return win_get(m->rd, &m->tab, off, len, p, err);
}

/* *s = the NUL-terminated string at `rva`, shorter than `max` bytes and inside the file data
 * holding it; NULL (and *why) otherwise. *s lives in the window until the next read. */
static int rva_str(struct pe_img *m, uint64_t rva, size_t max, const char **s, const char **why,
                   struct pt2_error *err)
{
    uint64_t off, avail;
    const uint8_t *p;
    size_t len;
    int rc;

    *s = NULL;
    if (rva > UINT32_MAX || !rva_map(m, (uint32_t)rva, &off, &avail)) {
        *why = "lies in no section";
        return PT2_OK;
    }
    len = avail < max ? (size_t)avail : max;
    rc = win_get(m->rd, &m->str, off, len, &p, err);
    if (rc != PT2_OK)
        return rc;
    if (memchr(p, '\0', len) == NULL) {
        *why = avail < max ? "has no NUL before its section ends" : "is too long";
        return PT2_OK;
    }
    if (p[0] == '\0') {
        *why = "is empty";
        return PT2_OK;
    }
    *s = (const char *)p;
    return PT2_OK;
}

/* ---- the import directory --------------------------------------------------------------- */

/* One lookup-table entry `v` of DLL `dll`: "#<ordinal>" or the hint/name table's name. */
static int read_entry(struct pe_img *m, const char *dll, uint64_t v, struct pt2_error *err)
{
    const char *name, *why = "";
    char ord[16];
    int rc;

    if ((v >> (m->plus ? 63 : 31)) != 0) {
        snprintf(ord, sizeof(ord), "#%u", (unsigned)(v & 0xffffu));
        return pt2_needs_add_import(m->n, ord, -1, 0, err);
    }
    rc = rva_str(m, (v & 0x7fffffffu) + 2u, PT2_PE_FUNCNAME_MAX, &name, &why, err);
    if (rc != PT2_OK)
        return rc;
    if (name == NULL) {
        pt2_needs_set_partial(m->n, "%s: the name of a function imported from %s %s", m->rd->name,
                              dll, why);
        return PT2_OK;
    }
    return pt2_needs_add_import(m->n, name, -1, 0, err);
}

/* The functions of DLL `dll` from its lookup table at `rva`. */
static int read_thunks(struct pe_img *m, const char *dll, uint32_t rva, struct pt2_error *err)
{
    size_t es = m->plus ? 8 : 4;

    for (uint64_t j = 0;; j++) {
        const uint8_t *p;
        uint64_t v;
        int rc;

        rc = rva_bytes(m, rva + j * es, es, &p, err);
        if (rc != PT2_OK)
            return rc;
        if (p == NULL) {
            pt2_needs_set_partial(m->n,
                                  "%s: the import lookup table of %s (RVA 0x%x) runs out of "
                                  "its section",
                                  m->rd->name, dll, rva);
            return PT2_OK;
        }
        v = m->plus ? pt2_le64(p) : pt2_le32(p);
        if (v == 0)
            return PT2_OK;
        if (m->entries++ >= PT2_NEEDS_IMPORTS_MAX) { /* every entry counts, kept or not */
            pt2_needs_set_partial(m->n, "%s: more than %u imported functions", m->rd->name,
                                  PT2_NEEDS_IMPORTS_MAX);
            return PT2_OK;
        }
        rc = read_entry(m, dll, v, err);
        if (rc != PT2_OK)
            return rc;
    }
}

/* List DLL `dll` once (see the design note): a plain import clears the delay flag of a
 * delay-loaded entry of the same name. */
static int add_dll(struct pt2_needs *n, const char *dll, int delay, struct pt2_error *err)
{
    size_t before = n->nlibs;
    int rc;

    for (size_t i = 0; i < n->nlibs; i++)
        if (strcasecmp(pt2_needs_str(n, n->libs[i]), dll) == 0) {
            if (!delay)
                n->libs_delay[i] = 0;
            return PT2_OK;
        }
    rc = pt2_needs_add_lib(n, dll, 0, err);
    if (rc == PT2_OK && n->nlibs > before)
        n->libs_delay[before] = (uint8_t)(delay != 0);
    return rc;
}

/* DLL `i` of a descriptor (delay-loaded or not): its name at `name_rva`, then its functions
 * from the lookup table at `lookup`. */
static int read_dll(struct pe_img *m, uint32_t i, uint32_t name_rva, uint32_t lookup, int delay,
                    struct pt2_error *err)
{
    char dll[PT2_PE_DLLNAME_MAX];
    const char *name, *why = "";
    int rc;

    rc = rva_str(m, name_rva, sizeof(dll), &name, &why, err);
    if (rc != PT2_OK)
        return rc;
    if (name == NULL) {
        pt2_needs_set_partial(m->n, "%s: the name of %s DLL %u %s", m->rd->name,
                              delay ? "delay-loaded" : "imported", i, why);
        return PT2_OK;
    }
    snprintf(dll, sizeof(dll), "%s", name); /* the window moves on */
    rc = add_dll(m->n, dll, delay, err);
    if (rc != PT2_OK)
        return rc;
    if (lookup == 0) {
        pt2_needs_set_partial(m->n, "%s: %s has no import %s table", m->rd->name, dll,
                              delay ? "name" : "lookup");
        return PT2_OK;
    }
    return read_thunks(m, dll, lookup, err);
}

/* One import descriptor `d`: its DLL name, then its functions. */
static int read_descriptor(struct pe_img *m, uint32_t i, const uint8_t *d, struct pt2_error *err)
{
    uint32_t lookup = pt2_le32(d) != 0 ? pt2_le32(d) : pt2_le32(d + 16);

    return read_dll(m, i, pt2_le32(d + 12), lookup, 0, err);
}

/* One delay-load descriptor `d` (DELAY_DESC_SIZE bytes). */
static int read_delay_descriptor(struct pe_img *m, uint32_t i, const uint8_t *d,
                                 struct pt2_error *err)
{
    if ((pt2_le32(d) & DELAY_RVA_BASED) == 0) {
        /* The pre-2002 form holds addresses, not RVAs: not read, and said. */
        pt2_needs_set_partial(m->n, "%s: delay-load descriptor %u is in the old address form",
                              m->rd->name, i);
        return PT2_OK;
    }
    return read_dll(m, i, pt2_le32(d + 4), pt2_le32(d + 16), 1, err);
}

/* An import descriptor with no Name or no FirstThunk ends the list. */
static int import_ends(const uint8_t *d)
{
    return pt2_le32(d + 12) == 0 || pt2_le32(d + 16) == 0;
}

/* A delay-load descriptor with no DllNameRVA ends the list. */
static int delay_ends(const uint8_t *d)
{
    return pt2_le32(d + 4) == 0;
}

/* How one directory of DLL descriptors is walked: the import or the delay-load one. */
struct pe_dir {
    uint32_t index;   /* data directory */
    size_t desc;      /* descriptor size (at most DELAY_DESC_SIZE) */
    const char *what; /* the directory, in messages */
    const char *dlls; /* its DLLs, in messages */
    int (*one)(struct pe_img *m, uint32_t i, const uint8_t *d, struct pt2_error *err);
    int (*ends)(const uint8_t *d); /* the descriptor ending the list, as the loader reads it */
};

static const struct pe_dir IMPORTS = {DIR_IMPORT, DESC_SIZE,       "import",
                                      "imported", read_descriptor, import_ends};
static const struct pe_dir DELAY_IMPORTS = {DIR_DELAY_IMPORT,      DELAY_DESC_SIZE,
                                            "delay-load import",   "delay-loaded",
                                            read_delay_descriptor, delay_ends};

/* Each descriptor of directory `dir` up to the one ending it. */
static int read_directory(struct pe_img *m, const struct pe_dir *dir, struct pt2_error *err)
{
    uint32_t rva = m->dir_rva[dir->index];

    if (m->ndirs <= dir->index || rva == 0)
        return PT2_OK;
    for (uint32_t i = 0;; i++) {
        uint8_t d[DELAY_DESC_SIZE];
        const uint8_t *p;
        int rc;

        if (i >= PT2_NEEDS_LIBS_MAX) {
            pt2_needs_set_partial(m->n, "%s: more than %u %s DLLs", m->rd->name, PT2_NEEDS_LIBS_MAX,
                                  dir->dlls);
            return PT2_OK;
        }
        rc = rva_bytes(m, (uint64_t)rva + (uint64_t)i * dir->desc, dir->desc, &p, err);
        if (rc != PT2_OK)
            return rc;
        if (p == NULL) {
            pt2_needs_set_partial(m->n, "%s: the %s directory (RVA 0x%x) %s", m->rd->name,
                                  dir->what, rva,
                                  i == 0 ? "lies in no section" : "runs out of its section");
            return PT2_OK;
        }
        memcpy(d, p, dir->desc);
        if (dir->ends(d))
            return PT2_OK;
        rc = dir->one(m, i, d, err);
        if (rc != PT2_OK)
            return rc;
    }
}

/* ---- headers ------------------------------------------------------------------------------ */

/* Subsystem, DllCharacteristics, SizeOfHeaders and the directories from the optional header
 * at `off` (SizeOfOptionalHeader `optsize`); *magic its magic (0 when it has none). */
static int read_optional(struct pe_img *m, uint64_t off, unsigned optsize, unsigned *magic,
                         struct pt2_error *err)
{
    uint8_t o[OPT_MAX];
    uint64_t left = m->rd->size > off ? m->rd->size - off : 0;
    size_t want = optsize < OPT_MAX ? optsize : OPT_MAX, got, fixed;
    uint32_t nrva;
    int rc;

    *magic = 0;
    got = want < left ? want : (size_t)left;
    if (got >= 2) {
        rc = pt2_rd_read(m->rd, off, o, got, err);
        if (rc != PT2_OK)
            return rc;
        *magic = pt2_le16(o);
    }
    if (*magic != MAGIC_PE32 && *magic != MAGIC_PE32PLUS) {
        pt2_needs_set_partial(m->n, "%s: %s", m->rd->name,
                              got < 2 ? "the PE optional header is missing or truncated"
                                      : "the PE optional header has an unknown magic");
        return PT2_OK;
    }
    m->plus = *magic == MAGIC_PE32PLUS;
    fixed = m->plus ? FIXED_PE32PLUS : FIXED_PE32;
    if (got < fixed) {
        pt2_needs_set_partial(m->n, "%s: the PE optional header is truncated (%zu of %zu bytes)",
                              m->rd->name, got, fixed);
        return PT2_OK;
    }
    m->headers = pt2_le32(o + 60);
    m->n->pe_subsystem = pt2_le16(o + 68);
    m->n->pe_dll_characteristics = pt2_le16(o + 70);
    nrva = pt2_le32(o + fixed - 4);
    m->ndirs = (uint32_t)((got - fixed) / 8u);
    if (nrva < m->ndirs)
        m->ndirs = nrva;
    if (m->ndirs > DIRS_MAX) /* an optional header longer than the 16 directories it may hold */
        m->ndirs = DIRS_MAX;
    for (uint32_t i = 0; i < m->ndirs; i++)
        m->dir_rva[i] = pt2_le32(o + fixed + 8u * i);
    return PT2_OK;
}

/* The section table at `off` (`count` entries), as many as the file and the cap allow. */
static int read_sections(struct pe_img *m, uint64_t off, unsigned count, struct pt2_error *err)
{
    uint64_t fit = m->rd->size > off ? (m->rd->size - off) / SECTION_SIZE : 0;
    size_t n = count;
    int rc;

    if (n > PT2_PE_SECTIONS_MAX) {
        pt2_needs_set_partial(m->n, "%s: more than %u sections", m->rd->name, PT2_PE_SECTIONS_MAX);
        n = PT2_PE_SECTIONS_MAX;
    }
    if (n > fit) {
        pt2_needs_set_partial(m->n, "%s: the section table runs past the end of the file",
                              m->rd->name);
        n = (size_t)fit;
    }
    if (n == 0)
        return PT2_OK;
    m->tab.len = 0; /* the table is read into a window's buffer, then copied out */
    rc = pt2_rd_read(m->rd, off, m->tab.buf, n * SECTION_SIZE, err);
    if (rc != PT2_OK)
        return rc;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *s = m->tab.buf + i * SECTION_SIZE;
        uint32_t vsize = pt2_le32(s + 8), raw = pt2_le32(s + 16);

        m->sec[i].va = pt2_le32(s + 12);
        m->sec[i].len = vsize != 0 && vsize < raw ? vsize : raw;
        m->sec[i].raw_off = pt2_le32(s + 20);
    }
    m->nsec = n;
    return PT2_OK;
}

/* Everything past the COFF header into h->needs; only a failing reader fails. */
static int read_needs(struct pt2_rd *rd, uint64_t opt_off, unsigned optsize, unsigned nsections,
                      struct pt2_needs *n, unsigned *magic, struct pt2_error *err)
{
    struct pt2_error local = {0};
    struct pe_img *m = calloc(1, sizeof(*m));
    int rc;

    if (m == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory reading %s", rd->name);
    m->rd = rd;
    m->n = n;
    rc = read_optional(m, opt_off, optsize, magic, &local);
    if (rc == PT2_OK && m->ndirs > 0)
        rc = read_sections(m, opt_off + optsize, nsections, &local);
    if (rc == PT2_OK && m->ndirs > 0)
        rc = read_directory(m, &IMPORTS, &local);
    if (rc == PT2_OK && m->ndirs > 0)
        rc = read_directory(m, &DELAY_IMPORTS, &local);
    free(m);
    if (rc == PT2_ERR_TOO_LARGE || rc == PT2_ERR_FORMAT) {
        pt2_needs_set_partial(n, "%s", local.message); /* the budget: what was read stays */
        return PT2_OK;
    }
    return rc == PT2_OK ? PT2_OK : pt2_error_copy(err, &local);
}

/* The magic alone, when there are no needs to fill (h->needs == NULL). */
static int read_magic(struct pt2_rd *rd, uint64_t off, unsigned optsize, unsigned *magic,
                      struct pt2_error *err)
{
    uint8_t b[2];
    int rc;

    *magic = 0;
    if (optsize < 2 || off + 2 > rd->size)
        return PT2_OK;
    rc = pt2_rd_read(rd, off, b, 2, err);
    if (rc == PT2_OK)
        *magic = pt2_le16(b);
    return rc;
}

static void describe(struct pt2_rd *rd, struct pt2_host *h, unsigned machine, unsigned chars,
                     unsigned magic)
{
    char mbuf[16], sub[32] = "";

    h->format = PT2_HOST_PE;
    h->bits = magic == MAGIC_PE32PLUS ? 64 : 32;
    h->big_endian = 0;
    h->e_machine = machine;
    h->elf_type = 0;
    h->size = rd->size;
    snprintf(h->machine, sizeof(h->machine), "%s", machine_name(machine, mbuf, sizeof(mbuf)));
    if (h->needs != NULL && h->needs->pe_subsystem != 0)
        pt2_pe_subsystem_name(h->needs->pe_subsystem, sub, sizeof(sub));
    snprintf(h->description, sizeof(h->description), "PE32%s %s, %s%s%s",
             magic == MAGIC_PE32PLUS ? "+" : "", (chars & PT2_PE_FILE_DLL) ? "DLL" : "executable",
             h->machine, sub[0] != '\0' ? ", " : "", sub);
}

int pt2_pe_scan(struct pt2_rd *rd, struct pt2_host *h, int *recognized, struct pt2_error *err)
{
    uint8_t dos[64], pe[4 + COFF_SIZE];
    uint32_t lfanew;
    unsigned machine, nsections, chars, optsize, magic = 0;
    uint64_t opt_off;
    int rc;

    *recognized = 0;
    if (rd->size < sizeof(dos))
        return PT2_OK;
    rc = pt2_rd_read(rd, 0, dos, sizeof(dos), err);
    if (rc != PT2_OK || !pt2_pe_probe(dos, sizeof(dos)))
        return rc;
    lfanew = pt2_le32(dos + DOS_LFANEW);
    if (lfanew > LFANEW_MAX || (uint64_t)lfanew + 4 + COFF_SIZE > rd->size)
        return PT2_OK; /* "MZ" alone: not a PE image (a DOS program, or text) */
    rc = pt2_rd_read(rd, lfanew, pe, sizeof(pe), err);
    if (rc != PT2_OK)
        return rc;
    if (memcmp(pe, "PE\0\0", 4) != 0)
        return PT2_OK;
    *recognized = 1;
    machine = pt2_le16(pe + 4);
    nsections = pt2_le16(pe + 4 + 2);
    optsize = pt2_le16(pe + 4 + 16);
    chars = pt2_le16(pe + 4 + 18);
    opt_off = (uint64_t)lfanew + 4 + COFF_SIZE;
    if (h->needs != NULL) {
        h->needs->pe_characteristics = (uint16_t)chars;
        rc = read_needs(rd, opt_off, optsize, nsections, h->needs, &magic, err);
    } else {
        rc = read_magic(rd, opt_off, optsize, &magic, err);
    }
    if (rc != PT2_OK)
        return rc;
    describe(rd, h, machine, chars, magic);
    return PT2_OK;
}
