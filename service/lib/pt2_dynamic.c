/*
 * pt2_dynamic.c - ELF dynamic needs and provider lookups (see pt2_dynamic.h).
 *
 * Layouts (System V gABI, GNU symbol versioning):
 *   Dyn      {tag, val}                      (2 x 8 bytes, or 2 x 4 in ELF32)
 *   Verneed  {u16 version, u16 cnt, u32 file, u32 aux, u32 next}
 *   Vernaux  {u32 hash, u16 flags, u16 other, u32 name, u32 next}
 *   Verdef   {u16 version, u16 flags, u16 ndx, u16 cnt, u32 hash, u32 aux, u32 next}
 *   Verdaux  {u32 name, u32 next}
 *   .gnu.hash {u32 nbuckets, symoffset, bloom_size, bloom_shift; bloom words;
 *              u32 buckets[nbuckets]; u32 chain[] from symoffset}
 *   .hash     {u32 nbucket, nchain; u32 bucket[nbucket]; u32 chain[nchain]}
 * Every chain is walked with a step cap and every offset checked against
 * the section that holds it.
 *
 * The string table of .dynamic is held whole when it fits STRTAB_MAX (the
 * package's own library: its imports' names cost no read). A larger one (a
 * provider such as a release libtorch_cpu.so, whose C++ names run to many
 * MiB) is not held at all: the few names .dynamic and the version sections
 * point at are read one by one, each up to STR_ONE_MAX bytes, so a big
 * provider is read exactly, never in part, at a bounded cost.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_dynamic.h"
#include "pt2_model.h"

#define DT_NULL 0
#define DT_NEEDED 1
#define DT_SONAME 14
#define DT_RPATH 15
#define DT_RUNPATH 29
#define DT_FLAGS 30
#define DT_FLAGS_1 0x6ffffffb
#define DF_BIND_NOW 0x8
#define DF_1_NOW 0x1
#define DF_1_PIE 0x08000000
#define VER_FLG_WEAK 0x2
#define STB_GLOBAL 1
#define STB_WEAK 2
#define STB_GNU_UNIQUE 10
#define SECTION_MAX (1u * 1024u * 1024u) /* .dynamic, version sections */
#define STRTAB_MAX (8u * 1024u * 1024u)
#define STR_ONE_MAX 4096u /* one name read from a table too large to hold */
#define HASH_MAX (16u * 1024u * 1024u)
#define CHAIN_STEPS_MAX 65536u

struct dynctx {
    struct pt2_elf *elf;
    struct pt2_needs *out;
    const struct pt2_elf_section *str_sec; /* the string table of .dynamic */
    uint8_t *str;                          /* its contents, or NULL when read by name */
    size_t str_len;
    char *one[2]; /* names read one by one (STR_ONE_MAX each); a need's file and version */
};

static const struct pt2_elf_section *section_of_type(const struct pt2_elf *elf, uint32_t type)
{
    for (size_t i = 0; i < elf->shnum; i++)
        if (elf->sec[i].type == type)
            return &elf->sec[i];
    return NULL;
}

/* Read a whole section (capped): NULL buffer and a partial note when it cannot be. */
static int load(struct dynctx *c, const struct pt2_elf_section *s, size_t cap, uint8_t **buf,
                size_t *len, struct pt2_error *err)
{
    struct pt2_error local = {0};
    int clipped = 0, rc;

    *buf = NULL;
    *len = 0;
    if (s == NULL || s->type == PT2_ELF_SHT_NOBITS || s->size == 0)
        return PT2_OK;
    *buf = malloc(s->size < cap ? (size_t)s->size : cap);
    if (*buf == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory reading %s", c->elf->label);
    rc = pt2_elf_read_section(c->elf, s, *buf, s->size < cap ? (size_t)s->size : cap, len, &clipped,
                              &local);
    if (rc == PT2_ERR_NOMEM || rc == PT2_ERR_IO)
        return pt2_error_copy(err, &local);
    if (rc != PT2_OK) {
        pt2_needs_set_partial(c->out, "%s", local.message);
        free(*buf);
        *buf = NULL;
        *len = 0;
    } else if (clipped) {
        pt2_needs_set_partial(c->out, "%s: section %s is larger than %zu bytes: read in part",
                              c->elf->label, s->name, cap);
    }
    return PT2_OK;
}

/* The NUL-terminated string at `off` of the string table in memory, or NULL. */
static const char *str_at(const struct dynctx *c, uint64_t off)
{
    if (c->str == NULL || off >= c->str_len)
        return NULL;
    if (memchr(c->str + off, '\0', c->str_len - off) == NULL)
        return NULL;
    return (const char *)c->str + off;
}

/*
 * The name at `off` of a table not held in memory, read into c->one[slot]: *s is NULL
 * (a partial note) when it lies outside the table, runs past it or past STR_ONE_MAX.
 * Fails only when the reader does (I/O) or memory runs out.
 */
static int str_read(struct dynctx *c, uint64_t off, const char *what, unsigned slot, const char **s,
                    struct pt2_error *err)
{
    const struct pt2_elf_section *t = c->str_sec;
    struct pt2_error local = {0};
    size_t n;
    int rc;

    *s = NULL;
    if (off >= t->size) {
        pt2_needs_set_partial(c->out, "%s: %s name at 0x%llx lies outside the string table",
                              c->elf->label, what, (unsigned long long)off);
        return PT2_OK;
    }
    if (t->offset > c->elf->size || t->size > c->elf->size - t->offset) {
        pt2_needs_set_partial(c->out, "%s: string table %s lies beyond the end of the file",
                              c->elf->label, t->name);
        return PT2_OK;
    }
    if (c->one[slot] == NULL && (c->one[slot] = malloc(STR_ONE_MAX)) == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory reading %s", c->elf->label);
    n = t->size - off < STR_ONE_MAX ? (size_t)(t->size - off) : STR_ONE_MAX;
    rc = pt2_elf_read(c->elf, t->offset + off, c->one[slot], n, &local);
    if (rc == PT2_ERR_NOMEM || rc == PT2_ERR_IO) /* as load(): only these fail the reading */
        return pt2_error_copy(err, &local);
    if (rc != PT2_OK) {
        pt2_needs_set_partial(c->out, "%s", local.message);
        return PT2_OK;
    }
    if (memchr(c->one[slot], '\0', n) != NULL)
        *s = c->one[slot];
    else if (n == STR_ONE_MAX)
        pt2_needs_set_partial(c->out, "%s: %s name at 0x%llx is longer than %u bytes",
                              c->elf->label, what, (unsigned long long)off, STR_ONE_MAX - 1);
    else
        pt2_needs_set_partial(c->out, "%s: %s name at 0x%llx runs past the string table",
                              c->elf->label, what, (unsigned long long)off);
    return PT2_OK;
}

/*
 * The name at `off` for `what`, in *s (valid until the next call with the same slot),
 * or NULL with a partial note saying why.
 */
static int need_str(struct dynctx *c, uint64_t off, const char *what, unsigned slot, const char **s,
                    struct pt2_error *err)
{
    if (c->str == NULL)
        return str_read(c, off, what, slot, s, err);
    if ((*s = str_at(c, off)) == NULL)
        pt2_needs_set_partial(c->out, "%s: %s name at 0x%llx lies outside the string table",
                              c->elf->label, what, (unsigned long long)off);
    return PT2_OK;
}

static int read_dynamic(struct dynctx *c, const struct pt2_elf_section *dyn, struct pt2_error *err)
{
    size_t ent = c->elf->bits == 64 ? 16 : 8, len = 0;
    uint8_t *buf = NULL;
    int rc = load(c, dyn, SECTION_MAX, &buf, &len, err);

    for (size_t off = 0; rc == PT2_OK && buf != NULL && off + ent <= len; off += ent) {
        uint64_t tag =
            c->elf->bits == 64 ? pt2_elf_u64(c->elf, buf + off) : pt2_elf_u32(c->elf, buf + off);
        uint64_t val = c->elf->bits == 64 ? pt2_elf_u64(c->elf, buf + off + 8)
                                          : pt2_elf_u32(c->elf, buf + off + 4);
        const char *s;

        if (tag == DT_NULL)
            break;
        switch (tag) {
        case DT_NEEDED:
            rc = need_str(c, val, "DT_NEEDED", 0, &s, err);
            if (rc == PT2_OK && s != NULL)
                rc = pt2_needs_add_lib(c->out, s, 0, err);
            break;
        case DT_SONAME:
        case DT_RPATH:
        case DT_RUNPATH:
            rc = need_str(c, val, "DT_SONAME/DT_RPATH/DT_RUNPATH", 0, &s, err);
            if (rc == PT2_OK && s != NULL)
                rc = pt2_needs_intern(c->out, s, strlen(s),
                                      tag == DT_SONAME  ? &c->out->soname
                                      : tag == DT_RPATH ? &c->out->rpath
                                                        : &c->out->runpath,
                                      err);
            break;
        case DT_FLAGS:
            c->out->bind_now |= (val & DF_BIND_NOW) != 0;
            break;
        case DT_FLAGS_1:
            c->out->bind_now |= (val & DF_1_NOW) != 0;
            c->out->pie |= (val & DF_1_PIE) != 0;
            break;
        default:
            break;
        }
    }
    if (rc == PT2_ERR_TOO_LARGE) {
        pt2_needs_set_partial(c->out, "%s: run path or name too long", c->elf->label);
        rc = PT2_OK;
    }
    free(buf);
    return rc;
}

static int read_verneed(struct dynctx *c, struct pt2_error *err)
{
    const struct pt2_elf_section *s = section_of_type(c->elf, PT2_DYN_SHT_VERNEED);
    uint8_t *b = NULL;
    size_t len = 0, off = 0, steps = 0;
    int rc = load(c, s, SECTION_MAX, &b, &len, err);

    while (rc == PT2_OK && b != NULL && steps++ < CHAIN_STEPS_MAX) {
        uint16_t cnt;
        uint32_t file, aux, next;
        const char *fname = NULL;
        size_t a;

        if (off + 16 > len) {
            pt2_needs_set_partial(c->out, "%s: .gnu.version_r entry at %zu runs past the section",
                                  c->elf->label, off);
            break;
        }
        cnt = pt2_elf_u16(c->elf, b + off + 2);
        file = pt2_elf_u32(c->elf, b + off + 4);
        aux = pt2_elf_u32(c->elf, b + off + 8);
        next = pt2_elf_u32(c->elf, b + off + 12);
        rc = need_str(c, file, "version need file", 0, &fname, err);
        a = off + aux;
        for (uint16_t j = 0; rc == PT2_OK && j < cnt && fname != NULL; j++) {
            const char *vname = NULL;

            if (a < off || a + 16 > len) {
                pt2_needs_set_partial(c->out,
                                      "%s: .gnu.version_r auxiliary entry runs past the section",
                                      c->elf->label);
                break;
            }
            rc = need_str(c, pt2_elf_u32(c->elf, b + a + 8), "version need", 1, &vname, err);
            if (rc == PT2_OK && vname != NULL)
                rc = pt2_needs_add_vneed(c->out, fname, vname, pt2_elf_u16(c->elf, b + a + 6),
                                         (pt2_elf_u16(c->elf, b + a + 4) & VER_FLG_WEAK) != 0, err);
            if (pt2_elf_u32(c->elf, b + a + 12) == 0)
                break;
            a += pt2_elf_u32(c->elf, b + a + 12);
        }
        if (next == 0)
            break;
        off += next;
    }
    if (steps >= CHAIN_STEPS_MAX)
        pt2_needs_set_partial(c->out, "%s: .gnu.version_r chain does not end", c->elf->label);
    free(b);
    return rc;
}

static int read_verdef(struct dynctx *c, struct pt2_error *err)
{
    const struct pt2_elf_section *s = section_of_type(c->elf, PT2_DYN_SHT_VERDEF);
    uint8_t *b = NULL;
    size_t len = 0, off = 0, steps = 0;
    int rc = load(c, s, SECTION_MAX, &b, &len, err), whole = 1, ended = 0;

    while (rc == PT2_OK && b != NULL && steps++ < CHAIN_STEPS_MAX) {
        uint32_t aux, next;
        const char *name = NULL;

        if (off + 20 > len) {
            pt2_needs_set_partial(c->out, "%s: .gnu.version_d entry at %zu runs past the section",
                                  c->elf->label, off);
            break;
        }
        aux = pt2_elf_u32(c->elf, b + off + 12);
        next = pt2_elf_u32(c->elf, b + off + 16);
        if (off + aux < off || off + aux + 8 > len) {
            pt2_needs_set_partial(c->out, "%s: .gnu.version_d name runs past the section",
                                  c->elf->label);
            break;
        }
        rc = need_str(c, pt2_elf_u32(c->elf, b + off + aux), "version definition", 0, &name, err);
        if (rc == PT2_OK && name != NULL)
            rc = pt2_needs_add_def(c->out, name, pt2_elf_u16(c->elf, b + off + 4), err);
        whole &= name != NULL;
        if (next == 0) {
            ended = 1;
            break;
        }
        off += next;
    }
    if (steps >= CHAIN_STEPS_MAX)
        pt2_needs_set_partial(c->out, "%s: .gnu.version_d chain does not end", c->elf->label);
    /* what a version lookup in this provider may not conclude from (pt2_sysroot) */
    if (s != NULL && s->size != 0 && (!ended || !whole))
        c->out->defs_partial = 1;
    free(b);
    return rc;
}

static int read_imports(struct dynctx *c, struct pt2_error *err)
{
    const struct pt2_elf_section *sym = section_of_type(c->elf, PT2_ELF_SHT_DYNSYM);
    const struct pt2_elf_section *vs = section_of_type(c->elf, PT2_DYN_SHT_VERSYM);
    struct pt2_elf_symiter *it = NULL;
    struct pt2_elf_sym s;
    struct pt2_error local = {0};
    uint8_t *ver = NULL;
    size_t vlen = 0, idx = 0;
    int rc, more, dynstr;

    if (sym == NULL)
        return PT2_OK;
    dynstr = sym->link == (uint32_t)(c->str_sec - c->elf->sec); /* names in .dynamic's table */
    rc = load(c, vs, SECTION_MAX * 4, &ver, &vlen, err);
    if (rc != PT2_OK)
        return rc;
    it = malloc(sizeof(*it));
    if (it == NULL) {
        free(ver);
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory reading %s", c->elf->label);
    }
    rc = pt2_elf_symiter_init(it, c->elf, sym, 0, 0, &local);
    while (rc == PT2_OK && (more = pt2_elf_symiter_next(it, &s, &local)) == 1) {
        unsigned bind = s.info >> 4;
        const char *name = NULL;
        int32_t vn = -1;

        idx++;
        if (s.shndx != PT2_ELF_SHN_UNDEF || (bind != STB_GLOBAL && bind != STB_WEAK) || s.name == 0)
            continue;
        /* the string table is in memory already: its names cost no read */
        if (dynstr && c->str != NULL) {
            name = str_at(c, s.name) != NULL ? str_at(c, s.name) : "";
        } else if (dynstr) {
            /* too large to hold: the name alone, of any length up to STR_ONE_MAX */
            if ((rc = str_read(c, s.name, "undefined symbol", 0, &name, &local)) != PT2_OK)
                break;
            name = name != NULL ? name : "";
        } else if ((rc = pt2_elf_symiter_name(it, &s, &name, &local)) != PT2_OK)
            break;
        if (name[0] == '\0') {
            pt2_needs_set_partial(c->out, "%s: an undefined symbol's name is unreadable",
                                  c->elf->label);
            continue;
        }
        if (ver != NULL && (idx - 1) * 2 + 2 <= vlen) {
            uint16_t v = pt2_elf_u16(c->elf, ver + (idx - 1) * 2) & 0x7fff;
            if (v >= 2 && (vn = pt2_needs_vneed_by_index(c->out, v)) < 0)
                pt2_needs_set_partial(c->out,
                                      "%s: %s refers to version index %u, which no "
                                      "version need defines",
                                      c->elf->label, name, v);
        }
        rc = pt2_needs_add_import(c->out, name, vn, bind == STB_WEAK, &local);
    }
    if (rc == PT2_OK && more < 0)
        rc = more;
    if (rc == PT2_ERR_FORMAT || rc == PT2_ERR_TOO_LARGE) {
        pt2_needs_set_partial(c->out, "%s", local.message);
        rc = PT2_OK;
    } else if (rc != PT2_OK) {
        pt2_error_copy(err, &local);
    }
    free(it);
    free(ver);
    return rc;
}

#define PT_GNU_STACK 0x6474e551u
#define PF_X 1u
#define PHNUM_MAX 4096u
#define EM_386 3u
#define EM_X86_64 62u

/* The stack PT_GNU_STACK asks for (glibc's _dl_map_object_from_fd reads only this): the
 * program headers, capped and bounded; no PT_GNU_STACK means the ABI's default, executable
 * on x86 (DEFAULT_STACK_PERMS), not said elsewhere. */
static int read_stack(struct pt2_elf *elf, struct pt2_needs *out, struct pt2_error *err)
{
    size_t ent = elf->bits == 64 ? 56 : 32;
    uint8_t ph[56];

    if (elf->phnum == 0)
        return PT2_OK;
    if (elf->phnum == 0xffffu || elf->phnum > PHNUM_MAX || elf->phentsize < ent ||
        elf->phoff > elf->size || (uint64_t)elf->phnum * elf->phentsize > elf->size - elf->phoff) {
        pt2_needs_set_partial(out, "%s: program headers (%u at 0x%llx) not readable", elf->label,
                              elf->phnum, (unsigned long long)elf->phoff);
        return PT2_OK;
    }
    for (unsigned i = 0; i < elf->phnum; i++) {
        int rc = pt2_elf_read(elf, elf->phoff + (uint64_t)i * elf->phentsize, ph, ent, err);

        if (rc != PT2_OK)
            return rc;
        if (pt2_elf_u32(elf, ph) == PT_GNU_STACK) {
            uint32_t flags = pt2_elf_u32(elf, ph + (elf->bits == 64 ? 4 : 24));

            out->exec_stack = (flags & PF_X) != 0 ? PT2_STACK_EXEC : 0;
            return PT2_OK;
        }
    }
    out->exec_stack = elf->machine == EM_386 || elf->machine == EM_X86_64 ? PT2_STACK_IMPLIED : 0;
    return PT2_OK;
}

int pt2_dyn_read(struct pt2_elf *elf, unsigned what, struct pt2_needs *out, struct pt2_error *err)
{
    struct dynctx c = {elf, out, NULL, NULL, 0, {NULL, NULL}};
    const struct pt2_elf_section *dyn, *str;
    int rc;

    rc = read_stack(elf, out, err);
    if (rc == PT2_OK)
        rc = pt2_elf_load_sections(elf, err);
    if (rc != PT2_OK)
        return rc;
    dyn = section_of_type(elf, PT2_DYN_SHT_DYNAMIC);
    if (dyn == NULL) {
        pt2_needs_set_partial(out, "%s: no .dynamic section%s", elf->label,
                              elf->shnum == 0 ? " (no section headers)" : "");
        return PT2_OK;
    }
    str = pt2_elf_section_at(elf, dyn->link);
    if (str == NULL || str->type != PT2_ELF_SHT_STRTAB) {
        pt2_needs_set_partial(out, "%s: .dynamic names no string table", elf->label);
        return PT2_OK;
    }
    c.str_sec = str;
    rc = str->size <= STRTAB_MAX ? load(&c, str, STRTAB_MAX, &c.str, &c.str_len, err) : PT2_OK;
    if (rc == PT2_OK)
        rc = read_dynamic(&c, dyn, err);
    if (rc == PT2_OK)
        rc = read_verneed(&c, err);
    if (rc == PT2_OK && (what & PT2_DYN_DEFS))
        rc = read_verdef(&c, err);
    if (rc == PT2_OK && (what & PT2_DYN_IMPORTS))
        rc = read_imports(&c, err);
    free(c.str);
    free(c.one[0]);
    free(c.one[1]);
    return rc;
}

/* ---- provider lookups ------------------------------------------------------------------ */

static uint32_t gnu_hash(const char *s)
{
    uint32_t h = 5381;

    for (; *s != '\0'; s++)
        h = h * 33u + (uint8_t)*s;
    return h;
}

static uint32_t sysv_hash(const char *s)
{
    uint32_t h = 0, g;

    for (; *s != '\0'; s++) {
        h = (h << 4) + (uint8_t)*s;
        g = h & 0xf0000000u;
        if (g != 0)
            h ^= g >> 24;
        h &= ~g;
    }
    return h;
}

int pt2_dyn_symtab_open(struct pt2_dyn_symtab *t, struct pt2_elf *elf, const struct pt2_needs *defs,
                        struct pt2_error *err)
{
    const struct pt2_elf_section *h;
    int clipped = 0, rc;

    memset(t, 0, sizeof(*t));
    t->elf = elf;
    t->defs = defs;
    rc = pt2_elf_load_sections(elf, err);
    if (rc != PT2_OK)
        return rc;
    t->dynsym = section_of_type(elf, PT2_ELF_SHT_DYNSYM);
    t->versym = section_of_type(elf, PT2_DYN_SHT_VERSYM);
    t->dynstr = t->dynsym != NULL ? pt2_elf_section_at(elf, t->dynsym->link) : NULL;
    h = section_of_type(elf, PT2_DYN_SHT_GNU_HASH);
    t->gnu = h != NULL;
    if (h == NULL)
        h = section_of_type(elf, PT2_DYN_SHT_HASH);
    if (t->dynsym == NULL || t->dynstr == NULL || h == NULL || h->size < 16 || h->size > HASH_MAX ||
        t->dynsym->entsize < (elf->bits == 64 ? 24u : 16u))
        return pt2_error_set(err, PT2_ERR_FORMAT, "%s: no usable dynamic symbol hash table",
                             elf->label);
    t->hash = malloc((size_t)h->size);
    if (t->hash == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory reading %s", elf->label);
    rc = pt2_elf_read_section(elf, h, t->hash, (size_t)h->size, &t->hash_len, &clipped, err);
    if (rc != PT2_OK) {
        pt2_dyn_symtab_close(t);
        return rc;
    }
    return PT2_OK;
}

void pt2_dyn_symtab_close(struct pt2_dyn_symtab *t)
{
    if (t == NULL)
        return;
    free(t->hash);
    t->hash = NULL;
    t->hash_len = 0;
}

static uint32_t hword(const struct pt2_dyn_symtab *t, size_t i, int *ok)
{
    if ((i + 1) * 4 > t->hash_len) {
        *ok = 0;
        return 0;
    }
    return pt2_elf_u32(t->elf, t->hash + i * 4);
}

static const char *def_name(const struct pt2_dyn_symtab *t, uint16_t ndx)
{
    for (size_t i = 0; t->defs != NULL && i < t->defs->ndefs; i++)
        if (t->defs->defs_ndx[i] == ndx)
            return pt2_needs_str(t->defs, t->defs->defs[i]);
    return NULL;
}

/* 1 when the string table holds `name` (nlen bytes, its NUL included) at `off`, 0 when not,
 * -1 on a read error: read a window at a time, so a name of any length compares (the
 * loader's strcmp has no limit; mangled C++ names run past 256 bytes). */
static int dynstr_equals(struct pt2_dyn_symtab *t, uint32_t off, const char *name, size_t nlen,
                         struct pt2_error *err)
{
    char got[PT2_ELF_SYMNAME_MAX];

    for (size_t done = 0; done < nlen;) {
        size_t k = nlen - done < sizeof(got) ? nlen - done : sizeof(got);

        if (pt2_elf_read(t->elf, t->dynstr->offset + off + done, got, k, err) != PT2_OK)
            return -1;
        if (memcmp(got, name + done, k) != 0)
            return 0;
        done += k;
    }
    return 1;
}

/* Symbol `idx`: 1 when it is a definition of `name` the loader binds `version` to. */
static int match(struct pt2_dyn_symtab *t, size_t idx, const char *name, const char *version,
                 struct pt2_error *err)
{
    struct pt2_elf *elf = t->elf;
    size_t ent = (size_t)t->dynsym->entsize, nlen = strlen(name) + 1;
    uint8_t e[24], vb[2];
    uint32_t noff;
    unsigned bind, shndx;
    uint16_t v, ndx;
    const char *dn;
    int eq;

    if ((uint64_t)(idx + 1) * ent > t->dynsym->size)
        return 0;
    if (pt2_elf_read(elf, t->dynsym->offset + idx * ent, e, elf->bits == 64 ? 24 : 16, err) !=
        PT2_OK)
        return -1;
    noff = pt2_elf_u32(elf, e);
    bind = (elf->bits == 64 ? e[4] : e[12]) >> 4;
    shndx = elf->bits == 64 ? pt2_elf_u16(elf, e + 6) : pt2_elf_u16(elf, e + 14);
    if (shndx == PT2_ELF_SHN_UNDEF ||
        (bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_GNU_UNIQUE) ||
        noff >= t->dynstr->size || nlen > t->dynstr->size - noff)
        return 0;
    if ((eq = dynstr_equals(t, noff, name, nlen, err)) != 1)
        return eq;
    if (t->versym == NULL || (uint64_t)(idx + 1) * 2 > t->versym->size)
        return 1;
    if (pt2_elf_read(elf, t->versym->offset + idx * 2, vb, 2, err) != PT2_OK)
        return -1;
    v = pt2_elf_u16(elf, vb);
    ndx = v & 0x7fff;
    if (version == NULL)
        return ndx < 3 || !(v & 0x8000);
    dn = def_name(t, ndx);
    if (dn != NULL && strcmp(dn, version) == 0)
        return 1;
    return ndx == 1 && !(v & 0x8000);
}

static int find_gnu(struct pt2_dyn_symtab *t, const char *name, const char *version, int *found,
                    struct pt2_error *err)
{
    int ok = 1, m;
    uint32_t nb = hword(t, 0, &ok), symoff = hword(t, 1, &ok), bloom = hword(t, 2, &ok);
    uint32_t h = gnu_hash(name), idx;
    size_t words = (size_t)bloom * (t->elf->bits == 64 ? 2 : 1), base, steps = 0;

    if (!ok || nb == 0)
        return PT2_OK;
    base = 4 + words;
    idx = hword(t, base + h % nb, &ok);
    if (!ok || idx < symoff)
        return PT2_OK;
    for (; steps < CHAIN_STEPS_MAX; idx++, steps++) {
        uint32_t h2 = hword(t, base + nb + (idx - symoff), &ok);

        if (!ok)
            return PT2_OK;
        if ((h | 1u) == (h2 | 1u)) {
            m = match(t, idx, name, version, err);
            if (m < 0)
                return PT2_ERR_IO;
            if (m == 1) {
                *found = 1;
                return PT2_OK;
            }
        }
        if (h2 & 1u)
            break;
    }
    return PT2_OK;
}

static int find_sysv(struct pt2_dyn_symtab *t, const char *name, const char *version, int *found,
                     struct pt2_error *err)
{
    int ok = 1, m;
    uint32_t nb = hword(t, 0, &ok), nc = hword(t, 1, &ok), idx;
    size_t steps = 0;

    if (!ok || nb == 0)
        return PT2_OK;
    idx = hword(t, 2 + sysv_hash(name) % nb, &ok);
    while (ok && idx != 0 && idx < nc && steps++ < CHAIN_STEPS_MAX) {
        m = match(t, idx, name, version, err);
        if (m < 0)
            return PT2_ERR_IO;
        if (m == 1) {
            *found = 1;
            return PT2_OK;
        }
        idx = hword(t, 2 + (size_t)nb + idx, &ok);
    }
    return PT2_OK;
}

int pt2_dyn_symtab_find(struct pt2_dyn_symtab *t, const char *name, const char *version, int *found,
                        struct pt2_error *err)
{
    int rc;

    *found = 0;
    if (t->hash == NULL)
        return PT2_OK;
    rc = t->gnu ? find_gnu(t, name, version, found, err) : find_sysv(t, name, version, found, err);
    return rc == PT2_ERR_IO && err != NULL && err->code != 0 ? err->code : rc;
}
