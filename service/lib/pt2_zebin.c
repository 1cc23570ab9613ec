/*
 * pt2_zebin.c - Intel GPU zebin targets (see pt2_zebin.h).
 *
 * Values: intel-graphics-compiler's PRODUCT_FAMILY enum (the compiler that
 * writes zebins); families before Xe are left out, torch's XPU backend does
 * not build for them.
 */
#include <stdio.h>

#include "pt2_zebin.h"

#define NOTE_SECTION ".note.intelgt.compat"
#define NT_INTELGT_PRODUCT_FAMILY 1u
#define NT_INTELGT_GFXCORE_FAMILY 2u

static const struct {
    unsigned product;
    const char *shortname, *text;
} PRODUCTS[] = {
    {1210, "dg1", "Intel Iris Xe MAX (DG1)"},
    {1250, "xe-hp-sdv", "Intel Xe-HP software development vehicle"},
    {1270, "dg2", "Intel Arc A-series / Data Center GPU Flex (DG2, Alchemist)"},
    {1271, "pvc", "Intel Data Center GPU Max (Ponte Vecchio)"},
    {1272, "mtl", "Intel Core Ultra (Meteor Lake) integrated Arc GPU"},
    {1273, "arl", "Intel Core Ultra 200 (Arrow Lake) integrated Arc GPU"},
    {1274, "bmg", "Intel Arc B-series (Battlemage)"},
    {1275, "lnl", "Intel Core Ultra 200V (Lunar Lake) integrated Arc GPU"},
    {1300, "ptl", "Intel Core Ultra (Panther Lake) integrated Arc GPU"},
};

static int product_index(unsigned product)
{
    for (size_t i = 0; i < sizeof(PRODUCTS) / sizeof(PRODUCTS[0]); i++)
        if (PRODUCTS[i].product == product)
            return (int)i;
    return -1;
}

const char *pt2_zebin_product_short(unsigned product)
{
    int i = product_index(product);
    return i >= 0 ? PRODUCTS[i].shortname : NULL;
}

const char *pt2_zebin_product_text(unsigned product)
{
    int i = product_index(product);
    return i >= 0 ? PRODUCTS[i].text : NULL;
}

static int note_word(struct pt2_elf *elf, const struct pt2_elf_section *s, uint32_t type,
                     unsigned *out, struct pt2_error *err)
{
    uint8_t desc[4];
    size_t len = 0;
    int found = 0;
    int rc = pt2_elf_find_note(elf, s, "IntelGT", type, desc, sizeof(desc), &len, &found, err);

    if (rc == PT2_OK && found && len == 4)
        *out = pt2_elf_u32(elf, desc);
    return rc;
}

int pt2_zebin_from_elf(struct pt2_elf *elf, struct pt2_kernel *k, struct pt2_error *err)
{
    const struct pt2_elf_section *s;
    int rc;

    k->kind = PT2_KERNEL_ZEBIN;
    k->intel_product = k->intel_gfxcore = 0;
    rc = pt2_elf_load_sections(elf, err);
    if (rc != PT2_OK)
        return rc;
    s = pt2_elf_section_by_name(elf, NOTE_SECTION);
    if (s == NULL)
        return PT2_OK; /* a zebin all the same; its target is unknown */
    rc = note_word(elf, s, NT_INTELGT_PRODUCT_FAMILY, &k->intel_product, err);
    if (rc == PT2_OK)
        rc = note_word(elf, s, NT_INTELGT_GFXCORE_FAMILY, &k->intel_gfxcore, err);
    return rc;
}
