/*
 * pt2_cubin.c - cubin decoding (see pt2_cubin.h and FORMATS.md §6).
 *
 * Decisions, each checked against bins/cubin_cuda12.4, cubin_cuda13, extra/:
 *  - 'a' comes only from the binary's own arch-specific marker: e_flags
 *    0x800 under the v7 layout, `.nv.compat` attribute 0x09 == 1 otherwise.
 *    tkinfo is not trusted for 'a': `nvlink -arch=sm_100` clears attribute
 *    0x09 on an sm_100a object and the result runs as plain sm_100 (FORMATS.md §6).
 *  - 'f' has no binary marker (an sm_100f cubin equals the sm_100 one), so it
 *    comes from the tkinfo options ("-arch sm_100f"), and only when that arch
 *    names the cubin's real SM: nvlink re-finalizing sm_100f to SM 103
 *    rewrites the options to "-arch sm_103", and a compute_100f -> sm_103
 *    compile says "-arch sm_103f" (both decode as what they say).
 *  - Debug (-G): a `.debug_info` section (absent with -lineinfo), or a "-g"
 *    option in tkinfo.
 *  - has_code: any `.text.<kernel>` section; nvcc 13 device-link stubs have none.
 *  - ABI versions other than 7 and 8: FORMATS.md §6's fallback ("low byte if it is a
 *    known SM, else byte 1"); the low-byte layout is then read as v7.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_cubin.h"

#define CUINFO_TYPE 1000u
#define TKINFO_TYPE 2000u
#define NV_OWNER "NVIDIA Corp"
#define COMPAT_ATTR_ARCH_SPECIFIC 0x09u
#define V7_ACCELERATORS 0x800u

int pt2_cubin_known_sm(unsigned sm)
{
    static const unsigned known[] = {20, 21, 30, 32, 35, 37, 50, 52,  53,  60,  61,  62,  70, 72,
                                     75, 80, 86, 87, 88, 89, 90, 100, 101, 103, 110, 120, 121};
    size_t i;

    for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
        if (known[i] == sm)
            return 1;
    return 0;
}

int pt2_cubin_compat_attr(const uint8_t *p, size_t len, unsigned attr, unsigned *value)
{
    size_t off = 0;

    /* Records: u8 format, u8 attribute, then a format-dependent value. */
    while (len - off >= 2) {
        unsigned fmt = p[off], a = p[off + 1];
        size_t rec;

        switch (fmt) {
        case 1: /* no value */
            rec = 2;
            break;
        case 2: /* u8 value, u8 pad */
        case 3: /* u16 value */
            rec = 4;
            break;
        case 4: /* u16 size, then that many bytes */
            if (len - off < 4)
                return 0;
            rec = 4 + pt2_le16(p + off + 2);
            break;
        default:
            return 0; /* unknown format: stop rather than guess */
        }
        if (rec > len - off)
            return 0;
        if (a == attr) {
            if (fmt == 2)
                *value = p[off + 2];
            else if (fmt == 3)
                *value = pt2_le16(p + off + 2);
            else
                return 0;
            return 1;
        }
        off += rec;
    }
    return 0;
}

int pt2_cubin_parse_arch_option(const char *opts, unsigned *sm, char *variant)
{
    const char *p = opts;

    while ((p = strstr(p, "-arch")) != NULL) {
        const char *q = p + 5, *end;
        uint64_t v;

        /* Accept "-arch sm_90a", "-arch=sm_90a" and "--gpu-name"-less forms. */
        if (p != opts && p[-1] != ' ' && p[-1] != '-') {
            p = q;
            continue;
        }
        while (*q == ' ' || *q == '=')
            q++;
        if (strncmp(q, "sm_", 3) != 0) {
            p = q;
            continue;
        }
        q += 3;
        if (pt2_num_u64_prefix(q, 10, &v, &end) != PT2_OK) {
            p = q; /* no digits, or too many for any sm */
            continue;
        }
        if (v == 0 || v > 999) {
            p = end;
            continue;
        }
        *sm = (unsigned)v;
        *variant = (*end == 'a' || *end == 'f') ? *end : 0;
        return 1;
    }
    return 0;
}

/* 1 when the options string holds the ptxas debug switch as its own token. */
static int has_debug_option(const char *opts)
{
    const char *p = opts;

    while ((p = strstr(p, "-g")) != NULL) {
        int starts = p == opts || p[-1] == ' ';
        int ends = p[2] == '\0' || p[2] == ' ';
        if (starts && ends)
            return 1;
        p += 2;
    }
    return strstr(opts, "--device-debug") != NULL;
}

/* Options string out of a tkinfo descriptor: header u32[6], then a string table. */
static int tkinfo_options(const uint8_t *desc, size_t len, char *out, size_t outlen)
{
    uint32_t off;
    size_t i, start;

    out[0] = '\0';
    if (len < 24)
        return 0;
    off = pt2_le32(desc + 20);
    if ((uint64_t)off >= len - 24)
        return 0;
    start = 24 + (size_t)off;
    for (i = 0; start + i < len && desc[start + i] != '\0' && i + 1 < outlen; i++)
        out[i] = (char)desc[start + i];
    out[i] = '\0';
    return 1;
}

int pt2_cubin_from_elf(struct pt2_elf *elf, struct pt2_kernel *k, struct pt2_error *err)
{
    uint8_t *note = NULL, compat[PT2_CUBIN_COMPAT_MAX];
    char *opts = NULL;
    const struct pt2_elf_section *s;
    unsigned lo = elf->flags & 0xffu, val = 0, opt_sm = 0;
    char opt_variant = 0;
    int v7_layout, arch_specific = 0, rc, found, have_opts = 0;
    size_t i, len;

    if (elf->machine != PT2_ELF_EM_CUDA)
        return pt2_error_set(err, PT2_ERR_FORMAT, "%s: not a cubin (e_machine %u, expected 190)",
                             elf->label, elf->machine);
    rc = pt2_elf_load_sections(elf, err);
    if (rc != PT2_OK)
        return rc;

    k->kind = PT2_KERNEL_SASS;
    k->abi_version = elf->abiversion;
    k->elf_type = elf->type;
    k->variant = 0;
    k->virtual_sm = 0;
    k->toolkit = 0;
    k->debug = 0;
    k->has_code = 0;

    if (elf->abiversion == 7)
        v7_layout = 1;
    else if (elf->abiversion == 8)
        v7_layout = 0;
    else
        v7_layout = pt2_cubin_known_sm(lo);
    if (v7_layout) {
        k->sm = lo;
        k->virtual_sm = (elf->flags >> 16) & 0xffu;
        arch_specific = (elf->flags & V7_ACCELERATORS) != 0;
        /* v7 keeps the toolkit (124 = 12.4) in e_version; 0/1 mean "not recorded". */
        k->toolkit = elf->version > 1 ? elf->version : 0;
    } else {
        k->sm = (elf->flags >> 8) & 0xffu;
    }

    for (i = 0; i < elf->shnum; i++) {
        const char *nm = elf->sec[i].name;
        if (strncmp(nm, ".text.", 6) == 0)
            k->has_code = 1;
        else if (strcmp(nm, ".debug_info") == 0)
            k->debug = 1;
    }

    s = pt2_elf_section_by_name(elf, ".nv.compat");
    if (s != NULL) {
        rc = pt2_elf_read_section(elf, s, compat, sizeof(compat), &len, NULL, err);
        if (rc != PT2_OK)
            goto cleanup;
        if (pt2_cubin_compat_attr(compat, len, COMPAT_ATTR_ARCH_SPECIFIC, &val) && val == 1)
            arch_specific = 1;
    }

    /* One block for the descriptor and the options text copied out of it. */
    note = malloc(2 * PT2_CUBIN_NOTE_MAX);
    if (note == NULL) {
        rc = pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    opts = (char *)note + PT2_CUBIN_NOTE_MAX;
    s = pt2_elf_section_by_name(elf, ".note.nv.cuinfo");
    if (s != NULL) {
        rc = pt2_elf_find_note(elf, s, NV_OWNER, CUINFO_TYPE, note, PT2_CUBIN_NOTE_MAX, &len,
                               &found, err);
        if (rc != PT2_OK)
            goto cleanup;
        /* desc: u16 version (2), u16 virtual SM, u32 toolkit (130 = 13.0). */
        if (found && len >= 8) {
            k->virtual_sm = pt2_le16(note + 2);
            k->toolkit = pt2_le32(note + 4);
        }
    }
    s = pt2_elf_section_by_name(elf, ".note.nv.tkinfo");
    if (s != NULL) {
        rc = pt2_elf_find_note(elf, s, NV_OWNER, TKINFO_TYPE, note, PT2_CUBIN_NOTE_MAX, &len,
                               &found, err);
        if (rc != PT2_OK)
            goto cleanup;
        if (found)
            have_opts = tkinfo_options(note, len, opts, PT2_CUBIN_NOTE_MAX);
    }
    if (have_opts) {
        if (has_debug_option(opts))
            k->debug = 1;
        if (pt2_cubin_parse_arch_option(opts, &opt_sm, &opt_variant) && opt_sm == k->sm &&
            opt_variant == 'f')
            k->variant = 'f';
    }
    if (arch_specific)
        k->variant = 'a';
    rc = PT2_OK;
cleanup:
    free(note);
    return rc;
}

int pt2_cubin_scan(struct pt2_rd *rd, uint64_t off, uint64_t size, struct pt2_kernel *k,
                   struct pt2_error *err)
{
    struct pt2_elf elf;
    int rc;

    rc = pt2_elf_open(&elf, rd, off, size, err);
    if (rc == PT2_OK)
        rc = pt2_cubin_from_elf(&elf, k, err);
    pt2_elf_close(&elf);
    return rc;
}
