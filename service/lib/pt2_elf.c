/*
 * pt2_elf.c - bounded ELF32/ELF64 reader (see pt2_elf.h for the design).
 *
 * Validation policy: header fields are range-checked when they are first
 * used, with one message per problem that names the image and the offending
 * value. e_version and EI_VERSION are not checked: CUDA ABI v7 cubins keep
 * the toolkit version in e_version (124 for 12.4).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_elf.h"
#include "pt2_sbuf.h"

#define EHDR32_SIZE 52u
#define EHDR64_SIZE 64u
#define SHDR32_SIZE 40u
#define SHDR64_SIZE 64u
#define SYM32_SIZE 16u
#define SYM64_SIZE 24u
#define NOTE_NAME_MAX 64u

_Static_assert(PT2_ELF_STRWIN >= PT2_ELF_SYMNAME_MAX, "a whole name must fit the window");

int pt2_elf_probe(const uint8_t *buf, size_t len)
{
    if (len < 6 || memcmp(buf, "\177ELF", 4) != 0)
        return 0;
    return (buf[4] == 1 || buf[4] == 2) && (buf[5] == 1 || buf[5] == 2);
}

uint16_t pt2_elf_u16(const struct pt2_elf *elf, const uint8_t *p)
{
    return elf->big_endian ? pt2_be16(p) : pt2_le16(p);
}

uint32_t pt2_elf_u32(const struct pt2_elf *elf, const uint8_t *p)
{
    return elf->big_endian ? pt2_be32(p) : pt2_le32(p);
}

uint64_t pt2_elf_u64(const struct pt2_elf *elf, const uint8_t *p)
{
    return elf->big_endian ? pt2_be64(p) : pt2_le64(p);
}

/* 1 when [off, off+len) lies inside the image (overflow-safe). */
static int in_image(const struct pt2_elf *elf, uint64_t off, uint64_t len)
{
    return off <= elf->size && len <= elf->size - off;
}

int pt2_elf_open(struct pt2_elf *elf, struct pt2_rd *rd, uint64_t base, uint64_t size,
                 struct pt2_error *err)
{
    uint8_t h[EHDR64_SIZE];
    size_t need;
    int rc;

    memset(elf, 0, sizeof(*elf));
    elf->rd = rd;
    elf->base = base;
    elf->size = size;
    if (base == 0)
        pt2_sbuf_copy(elf->label, sizeof(elf->label), rd->name);
    else
        snprintf(elf->label, sizeof(elf->label), "%s@0x%llx", rd->name, (unsigned long long)base);
    if (base > rd->size || size > rd->size - base)
        return pt2_error_set(err, PT2_ERR_FORMAT,
                             "%s: ELF image (%llu bytes) extends past the end of the input",
                             elf->label, (unsigned long long)size);
    if (size < 16)
        return pt2_error_set(err, PT2_ERR_FORMAT,
                             "%s: ELF header truncated (%llu bytes, needs at least 52)", elf->label,
                             (unsigned long long)size);
    rc = pt2_rd_read(rd, base, h, 16, err);
    if (rc != PT2_OK)
        return rc;
    if (!pt2_elf_probe(h, 16))
        return pt2_error_set(err, PT2_ERR_FORMAT,
                             "%s: not an ELF file (bad magic, class or data encoding)", elf->label);
    elf->bits = h[4] == 2 ? 64 : 32;
    elf->big_endian = h[5] == 2;
    elf->osabi = h[7];
    elf->abiversion = h[8];
    need = elf->bits == 64 ? EHDR64_SIZE : EHDR32_SIZE;
    if (size < need)
        return pt2_error_set(err, PT2_ERR_FORMAT,
                             "%s: ELF header truncated (%llu bytes, needs %zu)", elf->label,
                             (unsigned long long)size, need);
    rc = pt2_rd_read(rd, base + 16, h + 16, need - 16, err);
    if (rc != PT2_OK)
        return rc;
    elf->type = pt2_elf_u16(elf, h + 16);
    elf->machine = pt2_elf_u16(elf, h + 18);
    elf->version = pt2_elf_u32(elf, h + 20);
    if (elf->bits == 64) {
        elf->phoff = pt2_elf_u64(elf, h + 32);
        elf->phentsize = pt2_elf_u16(elf, h + 54);
        elf->phnum = pt2_elf_u16(elf, h + 56);
        elf->shoff = pt2_elf_u64(elf, h + 40);
        elf->flags = pt2_elf_u32(elf, h + 48);
        elf->shentsize = pt2_elf_u16(elf, h + 58);
        elf->shnum_raw = pt2_elf_u16(elf, h + 60);
        elf->shstrndx_raw = pt2_elf_u16(elf, h + 62);
    } else {
        elf->phoff = pt2_elf_u32(elf, h + 28);
        elf->phentsize = pt2_elf_u16(elf, h + 42);
        elf->phnum = pt2_elf_u16(elf, h + 44);
        elf->shoff = pt2_elf_u32(elf, h + 32);
        elf->flags = pt2_elf_u32(elf, h + 36);
        elf->shentsize = pt2_elf_u16(elf, h + 46);
        elf->shnum_raw = pt2_elf_u16(elf, h + 48);
        elf->shstrndx_raw = pt2_elf_u16(elf, h + 50);
    }
    return PT2_OK;
}

void pt2_elf_close(struct pt2_elf *elf)
{
    if (elf == NULL)
        return;
    free(elf->sec);
    free(elf->shstr);
    elf->sec = NULL;
    elf->shstr = NULL;
    elf->shnum = 0;
    elf->shstr_len = 0;
    elf->sections_loaded = 0;
}

int pt2_elf_read(struct pt2_elf *elf, uint64_t off, void *buf, size_t len, struct pt2_error *err)
{
    if (!in_image(elf, off, len))
        return pt2_error_set(err, PT2_ERR_FORMAT,
                             "%s: read of %zu bytes at offset 0x%llx lies beyond the end of the "
                             "ELF image (%llu bytes)",
                             elf->label, len, (unsigned long long)off,
                             (unsigned long long)elf->size);
    return pt2_rd_read(elf->rd, elf->base + off, buf, len, err);
}

static void parse_shdr(const struct pt2_elf *elf, const uint8_t *p, struct pt2_elf_section *s,
                       uint32_t *name_off)
{
    *name_off = pt2_elf_u32(elf, p);
    s->type = pt2_elf_u32(elf, p + 4);
    if (elf->bits == 64) {
        s->flags = pt2_elf_u64(elf, p + 8);
        s->addr = pt2_elf_u64(elf, p + 16);
        s->offset = pt2_elf_u64(elf, p + 24);
        s->size = pt2_elf_u64(elf, p + 32);
        s->link = pt2_elf_u32(elf, p + 40);
        s->info = pt2_elf_u32(elf, p + 44);
        s->entsize = pt2_elf_u64(elf, p + 56);
    } else {
        s->flags = pt2_elf_u32(elf, p + 8);
        s->addr = pt2_elf_u32(elf, p + 12);
        s->offset = pt2_elf_u32(elf, p + 16);
        s->size = pt2_elf_u32(elf, p + 20);
        s->link = pt2_elf_u32(elf, p + 24);
        s->info = pt2_elf_u32(elf, p + 28);
        s->entsize = pt2_elf_u32(elf, p + 36);
    }
}

/*
 * Resolve extended numbering (e_shnum == 0 / e_shstrndx == SHN_XINDEX keep
 * the real values in section 0) and check the table fits in the image.
 */
static int table_geometry(struct pt2_elf *elf, size_t *shnum, size_t *shstrndx,
                          struct pt2_error *err)
{
    size_t minent = elf->bits == 64 ? SHDR64_SIZE : SHDR32_SIZE;
    uint64_t n = elf->shnum_raw, idx = elf->shstrndx_raw;
    int rc;

    *shnum = 0;
    *shstrndx = 0;
    if (elf->shoff == 0)
        return PT2_OK; /* no section headers (stripped or never written) */
    if (elf->shentsize < minent)
        return pt2_error_set(err, PT2_ERR_FORMAT,
                             "%s: ELF section header entry size %u is smaller than %zu", elf->label,
                             elf->shentsize, minent);
    if (!in_image(elf, elf->shoff, elf->shentsize))
        return pt2_error_set(err, PT2_ERR_FORMAT,
                             "%s: ELF section header table (offset 0x%llx) lies beyond the end "
                             "of the file (%llu bytes)",
                             elf->label, (unsigned long long)elf->shoff,
                             (unsigned long long)elf->size);
    if (n == 0 || idx == PT2_ELF_SHN_XINDEX) {
        uint8_t s0[SHDR64_SIZE];
        struct pt2_elf_section sec0;
        uint32_t name0;

        rc = pt2_elf_read(elf, elf->shoff, s0, minent, err);
        if (rc != PT2_OK)
            return rc;
        parse_shdr(elf, s0, &sec0, &name0);
        if (n == 0)
            n = sec0.size;
        if (idx == PT2_ELF_SHN_XINDEX)
            idx = sec0.link;
    }
    if (n > PT2_ELF_SECTIONS_MAX)
        return pt2_error_set(err, PT2_ERR_FORMAT, "%s: ELF claims %llu sections (limit %u)",
                             elf->label, (unsigned long long)n, PT2_ELF_SECTIONS_MAX);
    if (!in_image(elf, elf->shoff, n * elf->shentsize))
        return pt2_error_set(err, PT2_ERR_FORMAT,
                             "%s: ELF section header table (offset 0x%llx, %llu entries) lies "
                             "beyond the end of the file (%llu bytes)",
                             elf->label, (unsigned long long)elf->shoff, (unsigned long long)n,
                             (unsigned long long)elf->size);
    if (idx != PT2_ELF_SHN_UNDEF && idx >= n)
        return pt2_error_set(err, PT2_ERR_FORMAT,
                             "%s: ELF section name table index %llu is out of range (%llu "
                             "sections)",
                             elf->label, (unsigned long long)idx, (unsigned long long)n);
    *shnum = (size_t)n;
    *shstrndx = (size_t)idx;
    return PT2_OK;
}

int pt2_elf_load_sections(struct pt2_elf *elf, struct pt2_error *err)
{
    uint8_t chunk[64 * SHDR64_SIZE];
    uint32_t *name_offs = NULL;
    size_t shnum, shstrndx, i, per_chunk;
    int rc;

    if (elf->sections_loaded)
        return PT2_OK;
    rc = table_geometry(elf, &shnum, &shstrndx, err);
    if (rc != PT2_OK)
        return rc;
    if (shnum == 0) {
        elf->sections_loaded = 1;
        return PT2_OK;
    }
    elf->sec = calloc(shnum, sizeof(*elf->sec));
    name_offs = calloc(shnum, sizeof(*name_offs));
    if (elf->sec == NULL || name_offs == NULL) {
        rc = pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    /* Read the table in chunks so no buffer grows with e_shnum. */
    per_chunk = sizeof(chunk) / elf->shentsize;
    if (per_chunk == 0)
        per_chunk = 1;
    for (i = 0; i < shnum;) {
        size_t n = shnum - i < per_chunk ? shnum - i : per_chunk, j;
        size_t ent = elf->shentsize;

        if (ent > sizeof(chunk)) {
            /* Absurd entry size: read the fixed part of each entry alone. */
            rc = pt2_elf_read(elf, elf->shoff + (uint64_t)i * ent, chunk,
                              elf->bits == 64 ? SHDR64_SIZE : SHDR32_SIZE, err);
            if (rc != PT2_OK)
                goto cleanup;
            parse_shdr(elf, chunk, &elf->sec[i], &name_offs[i]);
            i++;
            continue;
        }
        rc = pt2_elf_read(elf, elf->shoff + (uint64_t)i * ent, chunk, n * ent, err);
        if (rc != PT2_OK)
            goto cleanup;
        for (j = 0; j < n; j++)
            parse_shdr(elf, chunk + j * ent, &elf->sec[i + j], &name_offs[i + j]);
        i += n;
    }
    elf->shnum = shnum;

    if (shstrndx != PT2_ELF_SHN_UNDEF) {
        const struct pt2_elf_section *st = &elf->sec[shstrndx];
        uint64_t len = st->type == PT2_ELF_SHT_NOBITS ? 0 : st->size;

        if (!in_image(elf, st->offset, len)) {
            rc = pt2_error_set(err, PT2_ERR_FORMAT,
                               "%s: ELF section name table (section %zu, offset 0x%llx, size "
                               "%llu) lies beyond the end of the file",
                               elf->label, shstrndx, (unsigned long long)st->offset,
                               (unsigned long long)st->size);
            goto cleanup;
        }
        if (len > PT2_ELF_SHSTRTAB_MAX) {
            rc = pt2_error_set(err, PT2_ERR_TOO_LARGE,
                               "%s: ELF section name table is %llu bytes (limit %u)", elf->label,
                               (unsigned long long)len, PT2_ELF_SHSTRTAB_MAX);
            goto cleanup;
        }
        elf->shstr = malloc((size_t)len + 1);
        if (elf->shstr == NULL) {
            rc = pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
            goto cleanup;
        }
        rc = pt2_elf_read(elf, st->offset, elf->shstr, (size_t)len, err);
        if (rc != PT2_OK)
            goto cleanup;
        elf->shstr[len] = '\0'; /* a name running off the end stops here */
        elf->shstr_len = (size_t)len;
    }
    for (i = 0; i < shnum; i++) {
        if (elf->shstr == NULL) {
            elf->sec[i].name = "";
            continue;
        }
        if (name_offs[i] >= elf->shstr_len && !(name_offs[i] == 0 && elf->shstr_len == 0)) {
            rc = pt2_error_set(err, PT2_ERR_FORMAT,
                               "%s: ELF section %zu name offset 0x%x is outside the section "
                               "name table (%zu bytes)",
                               elf->label, i, name_offs[i], elf->shstr_len);
            goto cleanup;
        }
        elf->sec[i].name = elf->shstr + name_offs[i];
    }
    elf->sections_loaded = 1;
    rc = PT2_OK;
cleanup:
    free(name_offs);
    if (rc != PT2_OK) {
        free(elf->sec);
        free(elf->shstr);
        elf->sec = NULL;
        elf->shstr = NULL;
        elf->shnum = 0;
        elf->shstr_len = 0;
    }
    return rc;
}

const struct pt2_elf_section *pt2_elf_section_by_name(const struct pt2_elf *elf, const char *name)
{
    size_t i;

    for (i = 0; i < elf->shnum; i++)
        if (strcmp(elf->sec[i].name, name) == 0)
            return &elf->sec[i];
    return NULL;
}

const struct pt2_elf_section *pt2_elf_section_at(const struct pt2_elf *elf, size_t i)
{
    return i < elf->shnum ? &elf->sec[i] : NULL;
}

int pt2_elf_read_section(struct pt2_elf *elf, const struct pt2_elf_section *s, uint8_t *buf,
                         size_t cap, size_t *len, int *clipped, struct pt2_error *err)
{
    uint64_t n;

    *len = 0;
    if (clipped != NULL)
        *clipped = 0;
    if (s->type == PT2_ELF_SHT_NOBITS)
        return PT2_OK;
    if (!in_image(elf, s->offset, s->size))
        return pt2_error_set(err, PT2_ERR_FORMAT,
                             "%s: ELF section %s (offset 0x%llx, size %llu) lies beyond the end "
                             "of the file (%llu bytes)",
                             elf->label, s->name, (unsigned long long)s->offset,
                             (unsigned long long)s->size, (unsigned long long)elf->size);
    n = s->size;
    if (n > cap) {
        n = cap;
        if (clipped != NULL)
            *clipped = 1;
    }
    *len = (size_t)n;
    return pt2_elf_read(elf, s->offset, buf, (size_t)n, err);
}

int pt2_elf_find_note(struct pt2_elf *elf, const struct pt2_elf_section *s, const char *owner,
                      uint32_t type, uint8_t *desc, size_t cap, size_t *desc_len, int *found,
                      struct pt2_error *err)
{
    size_t bufcap = cap + 256, len = 0, off = 0, olen = strlen(owner);
    uint8_t *buf;
    int rc;

    *found = 0;
    *desc_len = 0;
    buf = malloc(bufcap);
    if (buf == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    rc = pt2_elf_read_section(elf, s, buf, bufcap, &len, NULL, err);
    if (rc != PT2_OK)
        goto cleanup;
    /* Note entries: u32 namesz, u32 descsz, u32 type, name, desc (4-aligned). */
    while (len - off >= 12) {
        uint32_t namesz = pt2_elf_u32(elf, buf + off);
        uint32_t descsz = pt2_elf_u32(elf, buf + off + 4);
        uint32_t ntype = pt2_elf_u32(elf, buf + off + 8);
        uint64_t name_at = off + 12;
        uint64_t desc_at = name_at + (((uint64_t)namesz + 3) & ~(uint64_t)3);
        uint64_t next = desc_at + (((uint64_t)descsz + 3) & ~(uint64_t)3);

        if (namesz > NOTE_NAME_MAX || desc_at > len)
            break; /* malformed or clipped: nothing more we can trust */
        if (ntype == type && namesz == olen + 1 && memcmp(buf + name_at, owner, olen) == 0 &&
            buf[name_at + olen] == '\0') {
            uint64_t avail = len - desc_at;
            uint64_t n = descsz < avail ? descsz : avail;

            if (n > cap)
                n = cap;
            memcpy(desc, buf + desc_at, (size_t)n);
            *desc_len = (size_t)n;
            *found = 1;
            break;
        }
        if (next > len)
            break;
        off = (size_t)next;
    }
    rc = PT2_OK;
cleanup:
    free(buf);
    return rc;
}

/* ---- symbols ----------------------------------------------------------- */

int pt2_elf_symiter_init(struct pt2_elf_symiter *it, struct pt2_elf *elf,
                         const struct pt2_elf_section *symtab, size_t first, size_t limit,
                         struct pt2_error *err)
{
    size_t minent = elf->bits == 64 ? SYM64_SIZE : SYM32_SIZE;
    const struct pt2_elf_section *st;

    memset(it, 0, sizeof(*it));
    it->elf = elf;
    it->symtab = symtab;
    if (symtab->type == PT2_ELF_SHT_NOBITS || symtab->size == 0)
        return PT2_OK; /* empty walk */
    if (!in_image(elf, symtab->offset, symtab->size))
        return pt2_error_set(err, PT2_ERR_FORMAT,
                             "%s: ELF symbol table %s (offset 0x%llx, size %llu) lies beyond "
                             "the end of the file (%llu bytes)",
                             elf->label, symtab->name, (unsigned long long)symtab->offset,
                             (unsigned long long)symtab->size, (unsigned long long)elf->size);
    it->entsize = symtab->entsize != 0 ? (size_t)symtab->entsize : minent;
    if (it->entsize < minent || it->entsize > PT2_ELF_SYMCHUNK)
        return pt2_error_set(err, PT2_ERR_FORMAT,
                             "%s: ELF symbol table %s has entry size %zu (expected %zu)",
                             elf->label, symtab->name, it->entsize, minent);
    it->count = (size_t)(symtab->size / it->entsize);
    it->next = first;
    it->limit = limit == 0 || limit > it->count ? it->count : limit;
    st = pt2_elf_section_at(elf, symtab->link);
    if (st != NULL && st->type == PT2_ELF_SHT_STRTAB)
        it->strtab = st;
    return PT2_OK;
}

int pt2_elf_symiter_next(struct pt2_elf_symiter *it, struct pt2_elf_sym *sym, struct pt2_error *err)
{
    const struct pt2_elf *elf = it->elf;
    const uint8_t *p;
    int rc;

    if (it->next >= it->count || it->limit == 0)
        return 0;
    if (it->next < it->chunk_first || it->next >= it->chunk_first + it->chunk_n) {
        size_t per = PT2_ELF_SYMCHUNK / it->entsize;
        size_t n = it->count - it->next < per ? it->count - it->next : per;

        if (n > it->limit)
            n = it->limit;
        rc = pt2_elf_read(it->elf, it->symtab->offset + (uint64_t)it->next * it->entsize, it->chunk,
                          n * it->entsize, err);
        if (rc != PT2_OK)
            return rc;
        it->chunk_first = it->next;
        it->chunk_n = n;
    }
    p = it->chunk + (it->next - it->chunk_first) * it->entsize;
    sym->name = pt2_elf_u32(elf, p);
    if (elf->bits == 64) {
        sym->info = p[4];
        sym->other = p[5];
        sym->shndx = pt2_elf_u16(elf, p + 6);
        sym->value = pt2_elf_u64(elf, p + 8);
        sym->size = pt2_elf_u64(elf, p + 16);
    } else {
        sym->value = pt2_elf_u32(elf, p + 4);
        sym->size = pt2_elf_u32(elf, p + 8);
        sym->info = p[12];
        sym->other = p[13];
        sym->shndx = pt2_elf_u16(elf, p + 14);
    }
    it->next++;
    it->limit--;
    return 1;
}

/* Copy the name at window position `at` if its NUL is inside the window. */
static int name_from_window(struct pt2_elf_symiter *it, size_t at)
{
    size_t i;

    for (i = 0; at + i < it->win_len; i++) {
        if (it->win[at + i] == '\0') {
            if (i + 1 > sizeof(it->name))
                return -1; /* longer than we compare */
            memcpy(it->name, it->win + at, i + 1);
            return 1;
        }
    }
    return 0;
}

int pt2_elf_symiter_name(struct pt2_elf_symiter *it, const struct pt2_elf_sym *sym,
                         const char **name, struct pt2_error *err)
{
    const struct pt2_elf_section *st = it->strtab;
    uint64_t rel;
    size_t w;
    int rc, got;

    it->name[0] = '\0';
    *name = it->name;
    if (st == NULL || sym->name == 0 || sym->name >= st->size)
        return PT2_OK;
    if (!in_image(it->elf, st->offset, st->size))
        return pt2_error_set(err, PT2_ERR_FORMAT,
                             "%s: ELF string table %s (offset 0x%llx, size %llu) lies beyond "
                             "the end of the file",
                             it->elf->label, st->name, (unsigned long long)st->offset,
                             (unsigned long long)st->size);
    rel = sym->name;
    /* Linkers lay names out in symbol order, so the next name is often cached. */
    if (it->win_len != 0 && rel >= it->win_off && rel < it->win_off + it->win_len) {
        got = name_from_window(it, (size_t)(rel - it->win_off));
        if (got != 0) {
            if (got < 0)
                it->name[0] = '\0';
            return PT2_OK;
        }
    }
    w = st->size - rel < PT2_ELF_STRWIN ? (size_t)(st->size - rel) : PT2_ELF_STRWIN;
    rc = pt2_elf_read(it->elf, st->offset + rel, it->win, w, err);
    if (rc != PT2_OK)
        return rc;
    it->win_off = rel;
    it->win_len = w;
    /* Too long to compare, or running off the table: treat as unnamed. */
    if (name_from_window(it, 0) != 1)
        it->name[0] = '\0';
    return PT2_OK;
}

/* ---- host identification ----------------------------------------------- */

const char *pt2_elf_machine_name(unsigned machine, int bits, int big_endian, char *buf, size_t len)
{
    const char *s = NULL;

    switch (machine) {
    case PT2_ELF_EM_X86_64:
        s = "x86_64";
        break;
    case PT2_ELF_EM_AARCH64:
        s = "aarch64";
        break;
    case PT2_ELF_EM_PPC64:
        s = big_endian ? "ppc64" : "ppc64le";
        break;
    case PT2_ELF_EM_PPC:
        s = big_endian ? "ppc" : "ppcle";
        break;
    case PT2_ELF_EM_S390:
        s = bits == 64 ? "s390x" : "s390";
        break;
    case PT2_ELF_EM_RISCV:
        s = bits == 64 ? "riscv64" : "riscv32";
        break;
    case PT2_ELF_EM_386:
        s = "i686";
        break;
    case PT2_ELF_EM_ARM:
        s = "arm";
        break;
    case PT2_ELF_EM_LOONGARCH:
        s = bits == 64 ? "loongarch64" : "loongarch32";
        break;
    case PT2_ELF_EM_CUDA:
        s = "cuda";
        break;
    case PT2_ELF_EM_AMDGPU:
        s = "amdgpu";
        break;
    case PT2_ELF_EM_INTELGT:
        s = "intelgt";
        break;
    default:
        break;
    }
    if (s != NULL)
        snprintf(buf, len, "%s", s);
    else
        snprintf(buf, len, "em_%u", machine);
    return buf;
}

/* The machine part of the description, in the spirit of file(1). */
static void machine_text(const struct pt2_elf *elf, char *buf, size_t len)
{
    static const char *const rv_float[4] = {"soft-float", "single-float", "double-float",
                                            "quad-float"};
    uint32_t f = elf->flags;

    switch (elf->machine) {
    case PT2_ELF_EM_X86_64:
        snprintf(buf, len, "x86-64");
        break;
    case PT2_ELF_EM_AARCH64:
        snprintf(buf, len, "ARM aarch64");
        break;
    case PT2_ELF_EM_PPC64:
        /* e_flags & 3: 1 = ELFv1 (function descriptors), 2 = ELFv2 (ppc64le). */
        snprintf(buf, len, "64-bit PowerPC%s",
                 (f & 3) == 2   ? ", ELFv2 ABI"
                 : (f & 3) == 1 ? ", ELFv1 ABI"
                                : "");
        break;
    case PT2_ELF_EM_PPC:
        snprintf(buf, len, "PowerPC");
        break;
    case PT2_ELF_EM_S390:
        snprintf(buf, len, "IBM S/390");
        break;
    case PT2_ELF_EM_RISCV:
        /* EF_RISCV_RVC = 0x1, EF_RISCV_FLOAT_ABI = 0x6. */
        snprintf(buf, len, "RISC-V%s, %s ABI", (f & 1) ? ", RVC" : "", rv_float[(f >> 1) & 3]);
        break;
    case PT2_ELF_EM_386:
        snprintf(buf, len, "Intel 80386");
        break;
    case PT2_ELF_EM_ARM:
        /* EABI version in bits 31:24; EF_ARM_ABI_FLOAT_HARD 0x400, _SOFT 0x200. */
        if ((f >> 24) != 0)
            snprintf(buf, len, "ARM, EABI%u%s", f >> 24,
                     (f & 0x400)   ? ", hard-float"
                     : (f & 0x200) ? ", soft-float"
                                   : "");
        else
            snprintf(buf, len, "ARM");
        break;
    case PT2_ELF_EM_LOONGARCH:
        snprintf(buf, len, "LoongArch");
        break;
    case PT2_ELF_EM_CUDA:
        snprintf(buf, len, "NVIDIA CUDA");
        break;
    case PT2_ELF_EM_AMDGPU:
        snprintf(buf, len, "AMD GPU");
        break;
    case PT2_ELF_EM_INTELGT:
        snprintf(buf, len, "Intel GPU");
        break;
    default:
        snprintf(buf, len, "machine %u", elf->machine);
        break;
    }
}

static const char *type_text(unsigned type)
{
    switch (type) {
    case PT2_ELF_ET_REL:
        return "relocatable";
    case PT2_ELF_ET_EXEC:
        return "executable";
    case PT2_ELF_ET_DYN:
        return "shared object";
    case PT2_ELF_ET_CORE:
        return "core file";
    default:
        return "file";
    }
}

void pt2_elf_describe_host(const struct pt2_elf *elf, struct pt2_host *h)
{
    char mach[64];

    h->format = PT2_HOST_ELF;
    h->bits = elf->bits;
    h->big_endian = elf->big_endian;
    h->e_machine = elf->machine;
    h->elf_type = elf->type;
    h->size = elf->size;
    pt2_elf_machine_name(elf->machine, elf->bits, elf->big_endian, h->machine, sizeof(h->machine));
    machine_text(elf, mach, sizeof(mach));
    snprintf(h->description, sizeof(h->description), "ELF %d-bit %s %s, %s", elf->bits,
             elf->big_endian ? "MSB" : "LSB", type_text(elf->type), mach);
}
