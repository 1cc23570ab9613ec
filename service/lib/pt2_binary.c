/*
 * pt2_binary.c - entry dispatcher and host-ELF kernel discovery (see pt2_binary.h).
 *
 * Bounded work for host ELF files:
 *  - `.nv_fatbin` / `__nv_relfatbin`: fatbin and entry headers only; padding
 *    between fatbins is skipped for at most PT2_BINARY_SECTION_GAP_MAX bytes.
 *  - No section headers at all (sstrip'ed files): the whole file is scanned
 *    for fatbin magic only when it is at most PT2_BINARY_RAW_SCAN_MAX bytes;
 *    larger files are reported as a host without kernels. Ordinary `strip`
 *    keeps section headers, so this only matters for hand-crafted files.
 *  - Embedded-kernel symbols: the objcopy-made `__<k>_start/_end/_size`
 *    symbols are global (`ld -r -b binary` makes them so and nothing in the
 *    AOTI link hides them), so only the global part of a table is walked:
 *    `.dynsym` first, then `.symtab` from its sh_info (first non-local) when
 *    `.dynsym` yields no kernel (relocatable `.o` files have only `.symtab`).
 *    Local symbols are skipped on purpose: a static cudart alone puts about
 *    a thousand local `.rodata` symbols in `.symtab`, and reading their names
 *    would cost more than the rest of the scan. Kernels hidden by a version
 *    script are therefore not found. Each walk stops after
 *    PT2_BINARY_SYMTAB_BYTES_MAX bytes of symbol entries (about 10,900 ELF64
 *    symbols), so a table larger than the read budget is never loaded; names
 *    are read only for NOTYPE/OBJECT symbols in `.rodata*` / `.lrodata*` or
 *    absolute ones. Symbol names of 256 bytes or more are skipped (the
 *    kernel name in a record is further cut to PT2_NAME_MAX - 1). Candidates
 *    past PT2_BINARY_EMBED_SYMS_MAX give PT2_ERR_TOO_LARGE.
 * Each blob costs roughly 2-3 KiB of reads (ELF header, section table and
 * three small sections), so a .so with a few hundred embedded kernels can
 * exhaust the caller's budget; that surfaces as PT2_ERR_TOO_LARGE from the
 * reader, with the kernels decoded until then left in the list.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_amdgpu.h"
#include "pt2_binary.h"
#include "pt2_cubin.h"
#include "pt2_dynamic.h"
#include "pt2_elf.h"
#include "pt2_fatbin.h"
#include "pt2_macho.h"
#include "pt2_pe.h"
#include "pt2_zebin.h"
#include "pt2_ptx.h"
#include "pt2_shims.h"

#define HEAD_SIZE 64u

enum { SYM_START = 0, SYM_END = 1, SYM_SIZE = 2 };

struct emb_sym {
    char key[PT2_ELF_SYMNAME_MAX]; /* kernel name: symbol minus "__" and suffix */
    int what;                      /* SYM_* */
    uint32_t shndx;
    uint64_t value;
};

struct emb_list {
    struct emb_sym *v;
    size_t n, cap;
};

static void kernel_template(struct pt2_kernel *k, int container, const char *source,
                            const char *symbol)
{
    memset(k, 0, sizeof(*k));
    k->container = container;
    k->has_code = -1;
    k->source = source != NULL ? source : ""; /* the list keeps its own copy */
    snprintf(k->symbol, sizeof(k->symbol), "%s", symbol != NULL ? symbol : "");
}

static int has_prefix(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

static int emb_push(struct emb_list *l, const struct emb_sym *s, const char *label,
                    struct pt2_error *err)
{
    if (l->n >= PT2_BINARY_EMBED_SYMS_MAX)
        return pt2_error_set(err, PT2_ERR_TOO_LARGE, "%s: more than %u embedded-kernel symbols",
                             label, PT2_BINARY_EMBED_SYMS_MAX);
    if (l->n == l->cap) {
        size_t ncap = l->cap ? l->cap * 2 : 16;
        struct emb_sym *nv;

        if (ncap > PT2_BINARY_EMBED_SYMS_MAX)
            ncap = PT2_BINARY_EMBED_SYMS_MAX;
        nv = realloc(l->v, ncap * sizeof(*nv));
        if (nv == NULL)
            return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
        l->v = nv;
        l->cap = ncap;
    }
    l->v[l->n++] = *s;
    return PT2_OK;
}

/* 1 when section index `shndx` is a data section AOTI puts kernel blobs in. */
static int blob_section(const struct pt2_elf *elf, uint32_t shndx)
{
    const struct pt2_elf_section *s = pt2_elf_section_at(elf, shndx);

    if (s == NULL || shndx == PT2_ELF_SHN_UNDEF)
        return 0;
    return has_prefix(s->name, ".rodata") || has_prefix(s->name, ".lrodata");
}

/* Split "__<key><suffix>" for the suffix allowed by the symbol's section. */
static int split_name(const char *name, int absolute, struct emb_sym *out)
{
    static const char *const suffix[3] = {"_start", "_end", "_size"};
    size_t len = strlen(name);
    int w;

    if (len < 3 || name[0] != '_' || name[1] != '_')
        return 0;
    for (w = 0; w < 3; w++) {
        size_t sl = strlen(suffix[w]);

        if ((w == SYM_SIZE) != absolute)
            continue; /* _size is absolute; _start/_end live in the data section */
        if (len > 2 + sl && strcmp(name + len - sl, suffix[w]) == 0) {
            size_t kl = len - 2 - sl;

            memcpy(out->key, name + 2, kl);
            out->key[kl] = '\0';
            out->what = w;
            return 1;
        }
    }
    return 0;
}

static int collect_symbols(struct pt2_elf *elf, const struct pt2_elf_section *tab,
                           struct emb_list *l, struct pt2_error *err)
{
    struct pt2_elf_symiter *it;
    struct pt2_elf_sym sym;
    size_t limit;
    int more, rc = PT2_OK;

    it = malloc(sizeof(*it)); /* ~5 KiB: keep it off small worker stacks */
    if (it == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    limit = PT2_BINARY_SYMTAB_BYTES_MAX / (elf->bits == 64 ? 24u : 16u);
    /* sh_info of a symbol table is the index of its first non-local symbol. */
    rc = pt2_elf_symiter_init(it, elf, tab, tab->info > 0 ? tab->info : 1, limit, err);
    if (rc != PT2_OK)
        goto cleanup;
    while ((more = pt2_elf_symiter_next(it, &sym, err)) == 1) {
        int absolute = sym.shndx == PT2_ELF_SHN_ABS;
        struct emb_sym e;
        const char *name;

        /* Globals only; objcopy / .incbin labels are NOTYPE (or OBJECT). */
        if ((sym.info >> 4) == 0 || (sym.info & 0xf) > 1 ||
            (!absolute && !blob_section(elf, sym.shndx)))
            continue;
        rc = pt2_elf_symiter_name(it, &sym, &name, err);
        if (rc != PT2_OK)
            goto cleanup;
        if (!split_name(name, absolute, &e))
            continue;
        e.shndx = sym.shndx;
        e.value = sym.value;
        rc = emb_push(l, &e, elf->label, err);
        if (rc != PT2_OK)
            goto cleanup;
    }
    rc = more < 0 ? more : PT2_OK;
cleanup:
    free(it);
    return rc;
}

static int cmp_key(const void *a, const void *b)
{
    const struct emb_sym *x = *(const struct emb_sym *const *)a;
    const struct emb_sym *y = *(const struct emb_sym *const *)b;
    int c = strcmp(x->key, y->key);

    return c != 0 ? c : x->what - y->what;
}

static const struct emb_sym *lookup(struct emb_sym **sorted, size_t n, const char *key, int what)
{
    struct emb_sym probe;
    const struct emb_sym *pp = &probe, *const * hit;

    snprintf(probe.key, sizeof(probe.key), "%s", key);
    probe.what = what;
    hit = bsearch(&pp, sorted, n, sizeof(*sorted), cmp_key);
    return hit != NULL ? *hit : NULL;
}

/* Decode the blob of kernel `key` at file offset `off` (size bytes). */
static int scan_blob(struct pt2_elf *elf, uint64_t off, uint64_t size, const char *key,
                     const char *source, struct pt2_kernel_list *kernels, struct pt2_error *err)
{
    struct pt2_rd *rd = elf->rd;
    uint8_t h[20];
    struct pt2_kernel k;
    int rc;

    if (size < sizeof(h))
        return PT2_OK;
    rc = pt2_rd_read(rd, off, h, sizeof(h), err);
    if (rc != PT2_OK)
        return rc;
    kernel_template(&k, PT2_CONT_SO_SYMBOL, source, key);
    if (pt2_fatbin_probe(h, sizeof(h)))
        return pt2_fatbin_scan(rd, off, size, 0, &k, kernels, NULL, err);
    if (!pt2_elf_probe(h, sizeof(h)))
        return PT2_OK; /* some other data behind a look-alike symbol */
    {
        struct pt2_elf blob;

        rc = pt2_elf_open(&blob, rd, off, size, err);
        if (rc == PT2_OK && blob.machine == PT2_ELF_EM_CUDA)
            rc = pt2_cubin_from_elf(&blob, &k, err);
        else if (rc == PT2_OK && blob.machine == PT2_ELF_EM_AMDGPU)
            rc = pt2_amdgpu_from_elf(&blob, &k, err);
        else if (rc == PT2_OK)
            k.kind = 0; /* an ELF, but not GPU code */
        pt2_elf_close(&blob);
        if (rc != PT2_OK || k.kind == 0)
            return rc;
    }
    return pt2_kernel_list_push(kernels, &k, err);
}

struct emb_blob {
    uint64_t off, size;
    const char *key;
};

static int cmp_blob(const void *a, const void *b)
{
    const struct emb_blob *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* Match starts with ends/sizes and decode each blob; *nfound counts kernels added. */
static int scan_embedded_in(struct pt2_elf *elf, const struct pt2_elf_section *tab,
                            const char *source, struct pt2_kernel_list *kernels, size_t *nfound,
                            struct pt2_error *err)
{
    struct emb_list l = {0};
    struct emb_sym **sorted = NULL;
    struct emb_blob *blobs = NULL;
    size_t i, nblobs = 0, before = kernels->n;
    int rc;

    *nfound = 0;
    rc = collect_symbols(elf, tab, &l, err);
    if (rc != PT2_OK || l.n == 0)
        goto cleanup;
    sorted = malloc(l.n * sizeof(*sorted));
    blobs = malloc(l.n * sizeof(*blobs));
    if (sorted == NULL || blobs == NULL) {
        rc = pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    for (i = 0; i < l.n; i++)
        sorted[i] = &l.v[i];
    qsort(sorted, l.n, sizeof(*sorted), cmp_key);

    for (i = 0; i < l.n; i++) {
        const struct emb_sym *st = &l.v[i], *en, *sz;
        const struct pt2_elf_section *sec;
        uint64_t rel, size;

        if (st->what != SYM_START)
            continue;
        en = lookup(sorted, l.n, st->key, SYM_END);
        sz = lookup(sorted, l.n, st->key, SYM_SIZE);
        if (en != NULL && en->shndx == st->shndx && en->value >= st->value)
            size = en->value - st->value;
        else if (sz != NULL)
            size = sz->value;
        else
            continue; /* a lone _start is not the objcopy pattern */
        sec = pt2_elf_section_at(elf, st->shndx);
        if (sec == NULL || sec->type == PT2_ELF_SHT_NOBITS)
            continue;
        if (sec->offset > elf->size || sec->size > elf->size - sec->offset) {
            rc = pt2_error_set(err, PT2_ERR_FORMAT,
                               "%s: ELF section %s (offset 0x%llx, size %llu) lies beyond the "
                               "end of the file",
                               elf->label, sec->name, (unsigned long long)sec->offset,
                               (unsigned long long)sec->size);
            goto cleanup;
        }
        /* st_value is an address in a .so and a section offset in a .o (sh_addr 0). */
        if (st->value < sec->addr || st->value - sec->addr > sec->size)
            continue;
        rel = st->value - sec->addr;
        if (size > sec->size - rel)
            continue;
        blobs[nblobs].off = sec->offset + rel;
        blobs[nblobs].size = size;
        blobs[nblobs].key = st->key;
        nblobs++;
    }
    /* Records follow the file layout, not the symbol table's hash order. */
    qsort(blobs, nblobs, sizeof(*blobs), cmp_blob);
    for (i = 0; i < nblobs; i++) {
        rc = scan_blob(elf, blobs[i].off, blobs[i].size, blobs[i].key, source, kernels, err);
        if (rc != PT2_OK)
            goto cleanup;
    }
    *nfound = kernels->n - before;
    rc = PT2_OK;
cleanup:
    free(blobs);
    free(sorted);
    free(l.v);
    return rc;
}

static int scan_embedded(struct pt2_elf *elf, const char *source, struct pt2_kernel_list *kernels,
                         struct pt2_error *err)
{
    static const uint32_t order[2] = {PT2_ELF_SHT_DYNSYM, PT2_ELF_SHT_SYMTAB};
    size_t t, i, found = 0;
    int rc;

    for (t = 0; t < 2 && found == 0; t++) {
        for (i = 0; i < elf->shnum; i++) {
            size_t n = 0;

            if (elf->sec[i].type != order[t])
                continue;
            rc = scan_embedded_in(elf, &elf->sec[i], source, kernels, &n, err);
            if (rc != PT2_OK)
                return rc;
            found += n;
            break; /* one table of each type */
        }
    }
    return PT2_OK;
}

/*
 * The library's runtime needs (pt2_dynamic), read within the reader's
 * budget (pt2_inspect gives a binary PT2_NEEDS_READ_MAX more for them): a
 * library whose dynamic sections do not fit is a `partial` note, and what
 * was read stays.
 */
static int read_needs(struct pt2_rd *rd, struct pt2_elf *elf, struct pt2_needs **out,
                      struct pt2_error *err)
{
    struct pt2_error local = {0};
    int rc;

    *out = pt2_needs_new(PT2_HOST_ELF);
    if (*out == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory reading %s", rd->name);
    rc = pt2_dyn_read(elf, PT2_DYN_IMPORTS, *out, &local);
    if (rc == PT2_ERR_TOO_LARGE) {
        pt2_needs_set_partial(*out, "%s", local.message);
        rc = PT2_OK;
    } else if (rc != PT2_OK) {
        pt2_error_copy(err, &local);
    }
    if (rc == PT2_OK)
        pt2_shims_classify_needs(*out);
    return rc;
}

static int scan_host_elf(struct pt2_rd *rd, struct pt2_elf *elf, const char *source,
                         struct pt2_kernel_list *kernels, struct pt2_host_list *hosts,
                         struct pt2_error *err)
{
    struct pt2_host h;
    struct pt2_kernel tmpl;
    size_t i;
    int rc;

    memset(&h, 0, sizeof(h));
    snprintf(h.source, sizeof(h.source), "%s", source != NULL ? source : "");
    pt2_elf_describe_host(elf, &h);
    rc = pt2_host_list_push(hosts, &h, err);
    if (rc != PT2_OK)
        return rc;
    rc = pt2_elf_load_sections(elf, err);
    if (rc != PT2_OK)
        return rc;

    kernel_template(&tmpl, PT2_CONT_SO_FATBIN, source, NULL);
    if (elf->shnum == 0) {
        if (rd->size > PT2_BINARY_RAW_SCAN_MAX)
            return PT2_OK;
        return pt2_fatbin_scan(rd, 0, rd->size, rd->size, &tmpl, kernels, NULL, err);
    }
    for (i = 0; i < elf->shnum; i++) {
        const struct pt2_elf_section *s = &elf->sec[i];

        if (s->type == PT2_ELF_SHT_NOBITS ||
            (strcmp(s->name, ".nv_fatbin") != 0 && strcmp(s->name, "__nv_relfatbin") != 0))
            continue;
        if (s->offset > rd->size || s->size > rd->size - s->offset)
            return pt2_error_set(err, PT2_ERR_FORMAT,
                                 "%s: ELF section %s (offset 0x%llx, size %llu) lies beyond the "
                                 "end of the file (%llu bytes)",
                                 rd->name, s->name, (unsigned long long)s->offset,
                                 (unsigned long long)s->size, (unsigned long long)rd->size);
        rc = pt2_fatbin_scan(rd, s->offset, s->size, PT2_BINARY_SECTION_GAP_MAX, &tmpl, kernels,
                             NULL, err);
        if (rc != PT2_OK)
            return rc;
    }
    rc = scan_embedded(elf, source, kernels, err);
    /* The kernels first: they are what the budget is for; the needs come after. */
    if (rc == PT2_OK && elf->type != PT2_ELF_ET_REL)
        rc = read_needs(rd, elf, &hosts->v[hosts->n - 1].needs, err);
    return rc;
}

static int scan_elf(struct pt2_rd *rd, const char *source, struct pt2_kernel_list *kernels,
                    struct pt2_host_list *hosts, struct pt2_error *err)
{
    struct pt2_elf elf;
    struct pt2_kernel k;
    int rc;

    rc = pt2_elf_open(&elf, rd, 0, rd->size, err);
    if (rc != PT2_OK)
        goto cleanup;
    kernel_template(&k, PT2_CONT_FILE, source, NULL);
    switch (elf.machine) {
    case PT2_ELF_EM_CUDA:
        rc = pt2_cubin_from_elf(&elf, &k, err);
        if (rc == PT2_OK)
            rc = pt2_kernel_list_push(kernels, &k, err);
        break;
    case PT2_ELF_EM_AMDGPU:
        rc = pt2_amdgpu_from_elf(&elf, &k, err);
        if (rc == PT2_OK)
            rc = pt2_kernel_list_push(kernels, &k, err);
        break;
    case PT2_ELF_EM_INTELGT:
        rc = pt2_zebin_from_elf(&elf, &k, err);
        if (rc == PT2_OK)
            rc = pt2_kernel_list_push(kernels, &k, err);
        break;
    default:
        rc = scan_host_elf(rd, &elf, source, kernels, hosts, err);
        break;
    }
cleanup:
    pt2_elf_close(&elf);
    return rc;
}

void pt2_binary_plan(struct pt2_rd *rd, struct pt2_range *out, size_t *n)
{
    struct pt2_error ignored = {0};
    uint8_t head[HEAD_SIZE];
    struct pt2_elf elf;
    size_t got = 0, i;

    *n = 0;
    if (pt2_rd_read_some(rd, 0, head, sizeof(head), &got, &ignored) != PT2_OK ||
        !pt2_elf_probe(head, got))
        return;
    if (pt2_elf_open(&elf, rd, 0, rd->size, &ignored) != PT2_OK)
        goto cleanup;
    /* GPU code objects are small and come whole with the first plan. */
    if (elf.machine == PT2_ELF_EM_CUDA || elf.machine == PT2_ELF_EM_AMDGPU ||
        elf.machine == PT2_ELF_EM_INTELGT || pt2_elf_load_sections(&elf, &ignored) != PT2_OK)
        goto cleanup;
    for (i = 0; i < elf.shnum && *n + 2 <= PT2_BINARY_PLAN_MAX; i++) {
        const struct pt2_elf_section *s = &elf.sec[i];
        uint64_t skip;

        if (s->type == PT2_ELF_SHT_NOBITS)
            continue;
        if (strcmp(s->name, ".nv_fatbin") == 0 || strcmp(s->name, "__nv_relfatbin") == 0) {
            out[(*n)++] = (struct pt2_range){
                s->offset, s->size < PT2_BINARY_PLAN_SECTION ? s->size : PT2_BINARY_PLAN_SECTION};
        } else if (s->type == PT2_ELF_SHT_DYNSYM || s->type == PT2_ELF_SHT_SYMTAB) {
            /* What scan_embedded() walks: the global symbols (.symtab's when .dynsym has no
             * kernel), then the names of a few; .dynstr is small, .strtab is not. */
            const struct pt2_elf_section *str =
                s->type == PT2_ELF_SHT_DYNSYM ? pt2_elf_section_at(&elf, s->link) : NULL;

            skip = s->info > 0 && s->entsize > 0 ? (uint64_t)s->info * s->entsize : 0;
            if (skip < s->size)
                out[(*n)++] = (struct pt2_range){s->offset + skip,
                                                 s->size - skip < PT2_BINARY_SYMTAB_BYTES_MAX
                                                     ? s->size - skip
                                                     : PT2_BINARY_SYMTAB_BYTES_MAX};
            if (str != NULL && str->type != PT2_ELF_SHT_NOBITS)
                out[(*n)++] = (struct pt2_range){str->offset, str->size < PT2_BINARY_PLAN_STRTAB
                                                                  ? str->size
                                                                  : PT2_BINARY_PLAN_STRTAB};
        } else if (s->type == PT2_DYN_SHT_DYNAMIC || s->type == PT2_DYN_SHT_VERNEED ||
                   s->type == PT2_DYN_SHT_VERSYM) {
            /* What pt2_dyn_read() reads for the runtime needs. */
            out[(*n)++] = (struct pt2_range){
                s->offset, s->size < PT2_BINARY_PLAN_SECTION ? s->size : PT2_BINARY_PLAN_SECTION};
        }
    }
cleanup:
    pt2_elf_close(&elf);
}

int pt2_binary_scan(struct pt2_rd *rd, const char *source, struct pt2_kernel_list *kernels,
                    struct pt2_host_list *hosts, int *recognized, struct pt2_error *err)
{
    uint8_t head[HEAD_SIZE];
    size_t got = 0;
    struct pt2_kernel k;
    int rc;

    *recognized = 0;
    rc = pt2_rd_read_some(rd, 0, head, sizeof(head), &got, err);
    if (rc != PT2_OK)
        return rc;
    if (got == 0)
        return PT2_OK;

    if (pt2_elf_probe(head, got)) {
        *recognized = 1;
        return scan_elf(rd, source, kernels, hosts, err);
    }
    if (pt2_macho_probe(head, got) != PT2_MACHO_NONE) {
        struct pt2_host h;

        memset(&h, 0, sizeof(h));
        snprintf(h.source, sizeof(h.source), "%s", source != NULL ? source : "");
        h.needs = pt2_needs_new(PT2_HOST_MACHO);
        if (h.needs == NULL)
            return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory reading %s", rd->name);
        rc = pt2_macho_scan(rd, &h, recognized, err);
        if (rc == PT2_OK && *recognized) {
            pt2_shims_classify_needs(h.needs);
            return pt2_host_list_push(hosts, &h, err);
        }
        pt2_needs_free(h.needs);
        return rc;
    }
    if (pt2_pe_probe(head, got)) {
        struct pt2_host h;

        memset(&h, 0, sizeof(h));
        snprintf(h.source, sizeof(h.source), "%s", source != NULL ? source : "");
        h.needs = pt2_needs_new(PT2_HOST_PE);
        if (h.needs == NULL)
            return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory reading %s", rd->name);
        rc = pt2_pe_scan(rd, &h, recognized, err);
        if (rc == PT2_OK && *recognized) {
            pt2_shims_classify_needs(h.needs); /* the same torch floor as an ELF library's */
            return pt2_host_list_push(hosts, &h, err);
        }
        pt2_needs_free(h.needs);
        return rc;
    }
    if (pt2_fatbin_probe(head, got)) {
        size_t n = 0;

        *recognized = 1;
        kernel_template(&k, PT2_CONT_FATBIN, source, NULL);
        return pt2_fatbin_scan(rd, 0, rd->size, 0, &k, kernels, &n, err);
    }
    if (got >= 4 &&
        (pt2_le32(head) == PT2_BINARY_SPIRV_MAGIC || pt2_be32(head) == PT2_BINARY_SPIRV_MAGIC)) {
        *recognized = 1;
        kernel_template(&k, PT2_CONT_FILE, source, NULL);
        k.kind = PT2_KERNEL_SPIRV; /* presence only */
        return pt2_kernel_list_push(kernels, &k, err);
    }
    if (pt2_ptx_probe(head, got)) {
        int found = 0;

        kernel_template(&k, PT2_CONT_FILE, source, NULL);
        rc = pt2_ptx_scan(rd, 0, rd->size, &k, &found, err);
        if (rc != PT2_OK || !found)
            return rc;
        *recognized = 1;
        return pt2_kernel_list_push(kernels, &k, err);
    }
    return PT2_OK;
}
