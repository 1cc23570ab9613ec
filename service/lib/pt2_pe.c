/*
 * pt2_pe.c - PE/COFF headers (see pt2_pe.h).
 *
 * Layout (Microsoft PE Format): e_lfanew at 0x3c of the DOS header; at it
 * "PE\0\0", then the COFF header {u16 Machine, u16 NumberOfSections,
 * u32 TimeDateStamp, u32 PointerToSymbolTable, u32 NumberOfSymbols,
 * u16 SizeOfOptionalHeader, u16 Characteristics}, then the optional header
 * whose u16 magic is 0x10b (PE32) or 0x20b (PE32+). Little-endian.
 */
#include <stdio.h>
#include <string.h>

#include "pt2_pe.h"

#define DOS_LFANEW 0x3cu
#define COFF_SIZE 20u
#define IMAGE_FILE_DLL 0x2000u
#define LFANEW_MAX (64u * 1024u * 1024u)

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

int pt2_pe_scan(struct pt2_rd *rd, struct pt2_host *h, int *recognized, struct pt2_error *err)
{
    uint8_t dos[64], pe[4 + COFF_SIZE + 2];
    char mbuf[16];
    uint32_t lfanew;
    unsigned machine, chars, optsize, magic = 0;
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
    rc = pt2_rd_read(rd, lfanew, pe, 4 + COFF_SIZE, err);
    if (rc != PT2_OK)
        return rc;
    if (memcmp(pe, "PE\0\0", 4) != 0)
        return PT2_OK;
    *recognized = 1;
    machine = pt2_le16(pe + 4);
    optsize = pt2_le16(pe + 4 + 16);
    chars = pt2_le16(pe + 4 + 18);
    if (optsize >= 2) {
        if ((uint64_t)lfanew + 4 + COFF_SIZE + 2 > rd->size)
            return pt2_error_set(err, PT2_ERR_FORMAT, "%s: PE optional header is truncated",
                                 rd->name);
        rc = pt2_rd_read(rd, (uint64_t)lfanew + 4 + COFF_SIZE, pe + 4 + COFF_SIZE, 2, err);
        if (rc != PT2_OK)
            return rc;
        magic = pt2_le16(pe + 4 + COFF_SIZE);
    }
    h->format = PT2_HOST_PE;
    h->bits = magic == 0x20b ? 64 : 32;
    h->big_endian = 0;
    h->e_machine = machine;
    h->elf_type = 0;
    h->size = rd->size;
    snprintf(h->machine, sizeof(h->machine), "%s", machine_name(machine, mbuf, sizeof(mbuf)));
    snprintf(h->description, sizeof(h->description), "PE32%s %s, %s", magic == 0x20b ? "+" : "",
             (chars & IMAGE_FILE_DLL) ? "DLL" : "executable", h->machine);
    return PT2_OK;
}
