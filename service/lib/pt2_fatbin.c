/*
 * pt2_fatbin.c - fatbin walking (see pt2_fatbin.h and FORMATS.md §7).
 *
 * Per entry record:
 *  - sm from the header's arch field (+0x1C): the CUDA runtime picks images
 *    by it; 'a'/'f' from the entry flags, because nvcc records the -arch text
 *    there and they are the only place 'f' survives for compressed payloads.
 *  - For an uncompressed cubin payload the inner cubin is decoded too; its own
 *    arch-specific marker ('a' in .nv.compat / e_flags) wins over the flags,
 *    since a cubin packed as sm=90 that is really sm_90a still only runs on
 *    9.0. Virtual SM, toolkit, ELF type and has_code come only from there.
 *  - Compressed payloads (LZ4 in 12.x, zstd in 13.x) are not decompressed:
 *    those fields stay unknown (0 / has_code -1).
 * Alignment of consecutive fatbins is taken relative to the region start,
 * which callers place on section or blob starts (themselves 8-aligned).
 */
#include <stdio.h>
#include <string.h>

#include "pt2_cubin.h"
#include "pt2_elf.h"
#include "pt2_fatbin.h"

#define GAP_CHUNK 4096u

int pt2_fatbin_probe(const uint8_t *p, size_t len)
{
    return len >= 4 && pt2_le32(p) == PT2_FATBIN_MAGIC;
}

static uint64_t align8(uint64_t base, uint64_t pos)
{
    uint64_t rel = pos - base;
    return base + ((rel + 7) & ~(uint64_t)7);
}

/* Decode an uncompressed ELF payload and fold what it says into k. */
static int merge_inner_cubin(struct pt2_rd *rd, uint64_t off, uint64_t size, struct pt2_kernel *k,
                             struct pt2_error *err)
{
    uint8_t h[20];
    struct pt2_kernel inner;
    int rc;

    if (size < sizeof(h))
        return PT2_OK;
    rc = pt2_rd_read(rd, off, h, sizeof(h), err);
    if (rc != PT2_OK)
        return rc;
    if (!pt2_elf_probe(h, sizeof(h)) || h[5] != 1 || pt2_le16(h + 18) != PT2_ELF_EM_CUDA)
        return PT2_OK; /* not a little-endian cubin: keep the header facts only */
    memset(&inner, 0, sizeof(inner));
    rc = pt2_cubin_scan(rd, off, size, &inner, err);
    if (rc != PT2_OK)
        return rc;
    k->virtual_sm = inner.virtual_sm;
    k->toolkit = inner.toolkit;
    k->elf_type = inner.elf_type;
    k->has_code = inner.has_code;
    k->abi_version = inner.abi_version;
    if (inner.debug)
        k->debug = 1;
    if (inner.variant == 'a' || k->variant == 0)
        k->variant = inner.variant;
    return PT2_OK;
}

/* Walk the entries of one fatbin whose entries span [start, fend). */
static int walk_entries(struct pt2_rd *rd, uint64_t fat_off, uint64_t start, uint64_t fend,
                        const struct pt2_kernel *tmpl, struct pt2_kernel_list *out,
                        struct pt2_error *err)
{
    uint8_t h[PT2_FATBIN_ENTRY_MIN];
    uint64_t e = start;
    size_t idx = 0;
    int rc;

    while (e < fend) {
        uint32_t kind, hs, arch;
        uint64_t psz, flags;
        unsigned vmin, vmaj;
        struct pt2_kernel k;

        if (idx >= PT2_FATBIN_ENTRIES_MAX)
            return pt2_error_set(err, PT2_ERR_TOO_LARGE,
                                 "%s: fatbin at 0x%llx has more than %u entries", rd->name,
                                 (unsigned long long)fat_off, PT2_FATBIN_ENTRIES_MAX);
        if (fend - e < PT2_FATBIN_ENTRY_MIN)
            return pt2_error_set(err, PT2_ERR_FORMAT,
                                 "%s: fatbin at 0x%llx: entry %zu (offset 0x%llx) header is "
                                 "truncated (%llu bytes left)",
                                 rd->name, (unsigned long long)fat_off, idx, (unsigned long long)e,
                                 (unsigned long long)(fend - e));
        rc = pt2_rd_read(rd, e, h, sizeof(h), err);
        if (rc != PT2_OK)
            return rc;
        kind = pt2_le16(h);
        hs = pt2_le32(h + 0x04);
        psz = pt2_le64(h + 0x08);
        vmin = pt2_le16(h + 0x18);
        vmaj = pt2_le16(h + 0x1a);
        arch = pt2_le32(h + 0x1c);
        flags = pt2_le64(h + 0x28);
        if (hs < PT2_FATBIN_ENTRY_MIN || hs > PT2_FATBIN_ENTRY_HDR_MAX)
            return pt2_error_set(err, PT2_ERR_FORMAT,
                                 "%s: fatbin at 0x%llx: entry %zu (offset 0x%llx) has an invalid "
                                 "header size %u",
                                 rd->name, (unsigned long long)fat_off, idx, (unsigned long long)e,
                                 hs);
        if (hs > fend - e || psz > fend - e - hs)
            return pt2_error_set(err, PT2_ERR_FORMAT,
                                 "%s: fatbin at 0x%llx: entry %zu (offset 0x%llx, header %u + "
                                 "payload %llu bytes) overflows the fatbin (%llu bytes left)",
                                 rd->name, (unsigned long long)fat_off, idx, (unsigned long long)e,
                                 hs, (unsigned long long)psz, (unsigned long long)(fend - e));

        if ((kind == PT2_FATBIN_KIND_PTX || kind == PT2_FATBIN_KIND_ELF) &&
            (arch < PT2_FATBIN_ARCH_MIN || arch > PT2_FATBIN_ARCH_MAX))
            return pt2_error_set(err, PT2_ERR_FORMAT,
                                 "%s: fatbin at 0x%llx: entry %zu (offset 0x%llx) has an "
                                 "implausible arch %u (expected %u..%u)",
                                 rd->name, (unsigned long long)fat_off, idx, (unsigned long long)e,
                                 arch, PT2_FATBIN_ARCH_MIN, PT2_FATBIN_ARCH_MAX);

        if (kind == PT2_FATBIN_KIND_PTX || kind == PT2_FATBIN_KIND_ELF) {
            k = *tmpl;
            k.kind = kind == PT2_FATBIN_KIND_PTX ? PT2_KERNEL_PTX : PT2_KERNEL_SASS;
            k.sm = arch;
            k.variant = (flags & PT2_FATBIN_FLAG_ARCH_A)   ? 'a'
                        : (flags & PT2_FATBIN_FLAG_ARCH_F) ? 'f'
                                                           : 0;
            if (flags & PT2_FATBIN_FLAG_ZSTD)
                snprintf(k.compression, sizeof(k.compression), "zstd");
            else if (flags & PT2_FATBIN_FLAG_LZ4)
                snprintf(k.compression, sizeof(k.compression), "lz4");
            else
                k.compression[0] = '\0';
            k.debug = (flags & PT2_FATBIN_FLAG_DEBUG) != 0;
            k.has_code = -1;
            k.virtual_sm = 0;
            k.toolkit = 0;
            k.elf_type = 0;
            k.abi_version = 0;
            k.ptx_major = k.ptx_minor = 0;
            if (kind == PT2_FATBIN_KIND_PTX) {
                k.ptx_major = vmaj;
                k.ptx_minor = vmin;
            } else {
                k.abi_version = (int)vmin; /* the cubin's EI_ABIVERSION (7 or 8) */
                if (k.compression[0] == '\0') {
                    rc = merge_inner_cubin(rd, e + hs, psz, &k, err);
                    if (rc != PT2_OK)
                        return rc;
                }
            }
            rc = pt2_kernel_list_push(out, &k, err);
            if (rc != PT2_OK)
                return rc;
        }
        /* Other kinds (e.g. LTO IR) carry no loadable code: skipped. */
        e += hs + psz;
        idx++;
    }
    return PT2_OK;
}

/* Look for the next magic at 8-aligned offsets in [*pos, end) within `budget` bytes. */
static int find_next(struct pt2_rd *rd, uint64_t *pos, uint64_t end, uint64_t budget, int *found,
                     struct pt2_error *err)
{
    uint8_t buf[GAP_CHUNK];
    uint64_t scanned = 0;
    int rc;

    *found = 0;
    while (*pos < end && end - *pos >= PT2_FATBIN_HEADER_SIZE && scanned < budget) {
        size_t n = end - *pos < sizeof(buf) ? (size_t)(end - *pos) : sizeof(buf), i;

        if (n > budget - scanned)
            n = (size_t)(budget - scanned);
        n &= ~(size_t)7;
        if (n < 8)
            break;
        rc = pt2_rd_read(rd, *pos, buf, n, err);
        if (rc != PT2_OK)
            return rc;
        for (i = 0; i + 4 <= n; i += 8) {
            if (pt2_le32(buf + i) == PT2_FATBIN_MAGIC) {
                *pos += i;
                *found = 1;
                return PT2_OK;
            }
        }
        *pos += n;
        scanned += n;
    }
    return PT2_OK;
}

int pt2_fatbin_scan(struct pt2_rd *rd, uint64_t off, uint64_t size, uint64_t gap_max,
                    const struct pt2_kernel *tmpl, struct pt2_kernel_list *out, size_t *nfatbins,
                    struct pt2_error *err)
{
    uint64_t pos = off, end;
    size_t count = 0;
    int rc;

    if (nfatbins != NULL)
        *nfatbins = 0;
    if (off > rd->size || size > rd->size - off)
        return pt2_error_set(err, PT2_ERR_FORMAT,
                             "%s: fatbin region at 0x%llx (%llu bytes) lies beyond the end (%llu "
                             "bytes)",
                             rd->name, (unsigned long long)off, (unsigned long long)size,
                             (unsigned long long)rd->size);
    end = off + size;
    while (end - pos >= PT2_FATBIN_HEADER_SIZE) {
        uint8_t h[PT2_FATBIN_HEADER_SIZE];
        uint64_t fat_size, total;
        unsigned hs;

        rc = pt2_rd_read(rd, pos, h, sizeof(h), err);
        if (rc != PT2_OK)
            return rc;
        if (pt2_le32(h) != PT2_FATBIN_MAGIC) {
            int found = 0;

            if (gap_max == 0)
                break;
            rc = find_next(rd, &pos, end, gap_max, &found, err);
            if (rc != PT2_OK)
                return rc;
            if (!found)
                break;
            continue;
        }
        hs = pt2_le16(h + 6);
        fat_size = pt2_le64(h + 8);
        if (hs < PT2_FATBIN_HEADER_SIZE || hs > end - pos)
            return pt2_error_set(err, PT2_ERR_FORMAT,
                                 "%s: fatbin at 0x%llx has an invalid header size %u", rd->name,
                                 (unsigned long long)pos, hs);
        if (fat_size > end - pos - hs)
            return pt2_error_set(err, PT2_ERR_FORMAT,
                                 "%s: fatbin at 0x%llx claims %llu bytes of entries but only %llu "
                                 "remain",
                                 rd->name, (unsigned long long)pos, (unsigned long long)fat_size,
                                 (unsigned long long)(end - pos - hs));
        total = hs + fat_size;
        rc = walk_entries(rd, pos, pos + hs, pos + total, tmpl, out, err);
        if (rc != PT2_OK)
            return rc;
        count++;
        pos = align8(off, pos + total);
        if (pos > end)
            break;
    }
    if (nfatbins != NULL)
        *nfatbins = count;
    return PT2_OK;
}
