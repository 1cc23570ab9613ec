/*
 * pt2_amdgpu.c - AMD code object header decoding (see pt2_amdgpu.h).
 *
 * The MACH table follows LLVM's BinaryFormat/ELF.h and AMDGPUUsage (values
 * marked [V] in FORMATS.md §8 were built with clang-16; 0x40 gfx940 and 0x4b gfx941
 * are kept although LLVM now lists them as reserved, because old code objects
 * still carry them). The per-processor "supports xnack / sramecc" bits are
 * only needed for code object v2/v3, whose single "on" bit cannot tell "off"
 * from "not supported by this processor"; such a bit clear on a chip that
 * has the feature is reported as "off".
 */
#include <stdio.h>
#include <string.h>

#include "pt2_amdgpu.h"

#define SUP_XNACK 1u
#define SUP_SRAMECC 2u

struct mach_entry {
    unsigned mach;
    const char *name;
    unsigned supports; /* SUP_* */
};

static const struct mach_entry mach_table[] = {
    {0x020, "gfx600", 0},
    {0x021, "gfx601", 0},
    {0x022, "gfx700", 0},
    {0x023, "gfx701", 0},
    {0x024, "gfx702", 0},
    {0x025, "gfx703", 0},
    {0x026, "gfx704", 0},
    {0x028, "gfx801", SUP_XNACK},
    {0x029, "gfx802", 0},
    {0x02a, "gfx803", 0},
    {0x02b, "gfx810", SUP_XNACK},
    {0x02c, "gfx900", SUP_XNACK},
    {0x02d, "gfx902", SUP_XNACK},
    {0x02e, "gfx904", SUP_XNACK},
    {0x02f, "gfx906", SUP_XNACK | SUP_SRAMECC},
    {0x030, "gfx908", SUP_XNACK | SUP_SRAMECC},
    {0x031, "gfx909", SUP_XNACK},
    {0x032, "gfx90c", SUP_XNACK},
    {0x033, "gfx1010", SUP_XNACK},
    {0x034, "gfx1011", SUP_XNACK},
    {0x035, "gfx1012", SUP_XNACK},
    {0x036, "gfx1030", 0},
    {0x037, "gfx1031", 0},
    {0x038, "gfx1032", 0},
    {0x039, "gfx1033", 0},
    {0x03a, "gfx602", 0},
    {0x03b, "gfx705", 0},
    {0x03c, "gfx805", 0},
    {0x03d, "gfx1035", 0},
    {0x03e, "gfx1034", 0},
    {0x03f, "gfx90a", SUP_XNACK | SUP_SRAMECC},
    {0x040, "gfx940", SUP_XNACK | SUP_SRAMECC},
    {0x041, "gfx1100", 0},
    {0x042, "gfx1013", SUP_XNACK},
    {0x043, "gfx1150", 0},
    {0x044, "gfx1103", 0},
    {0x045, "gfx1036", 0},
    {0x046, "gfx1101", 0},
    {0x047, "gfx1102", 0},
    {0x048, "gfx1200", 0},
    {0x049, "gfx1250", 0},
    {0x04a, "gfx1151", 0},
    {0x04b, "gfx941", SUP_XNACK | SUP_SRAMECC},
    {0x04c, "gfx942", SUP_XNACK | SUP_SRAMECC},
    {0x04e, "gfx1201", 0},
    {0x04f, "gfx950", SUP_XNACK | SUP_SRAMECC},
    {0x050, "gfx1310", 0},
    {0x051, "gfx9-generic", SUP_XNACK},
    {0x052, "gfx10-1-generic", SUP_XNACK},
    {0x053, "gfx10-3-generic", 0},
    {0x054, "gfx11-generic", 0},
    {0x055, "gfx1152", 0},
    {0x057, "gfx1154", 0},
    {0x058, "gfx1153", 0},
    {0x059, "gfx12-generic", 0},
    {0x05a, "gfx1251", 0},
    {0x05b, "gfx12-5-generic", 0},
    {0x05c, "gfx1172", 0},
    {0x05d, "gfx1170", 0},
    {0x05e, "gfx1171", 0},
    {0x05f, "gfx9-4-generic", SUP_XNACK | SUP_SRAMECC},
};

static const struct mach_entry *mach_lookup(unsigned mach)
{
    size_t i;

    for (i = 0; i < sizeof(mach_table) / sizeof(mach_table[0]); i++)
        if (mach_table[i].mach == mach)
            return &mach_table[i];
    return NULL;
}

const char *pt2_amdgpu_mach_name(unsigned mach)
{
    const struct mach_entry *m = mach_lookup(mach);
    return m != NULL ? m->name : NULL;
}

/* Two-bit v4+ selector (0 unsupported, 1 any, 2 off, 3 on) to the model enum. */
static int v4_feature(unsigned sel)
{
    static const int map[4] = {PT2_AMD_UNSUPPORTED, PT2_AMD_ANY, PT2_AMD_OFF, PT2_AMD_ON};
    return map[sel & 3u];
}

/* v2/v3 single bit: on, else off where the processor has the feature. */
static int v3_feature(int bit, int supported)
{
    if (bit)
        return PT2_AMD_ON;
    return supported ? PT2_AMD_OFF : PT2_AMD_UNSUPPORTED;
}

static const char *feature_suffix(int f)
{
    return f == PT2_AMD_ON ? "+" : f == PT2_AMD_OFF ? "-" : NULL;
}

void pt2_amdgpu_decode(unsigned osabi, unsigned abiversion, uint32_t e_flags, struct pt2_kernel *k)
{
    const struct mach_entry *m = mach_lookup(e_flags & 0xffu);
    unsigned sup = m != NULL ? m->supports : 0;
    const char *xs, *ss;

    k->kind = PT2_KERNEL_HSACO;
    if (m != NULL)
        snprintf(k->gfx, sizeof(k->gfx), "%s", m->name);
    else
        snprintf(k->gfx, sizeof(k->gfx), "gfx_mach_0x%02x", e_flags & 0xffu);

    /* EI_ABIVERSION 0..4 = code object v2..v6 under the HSA OS ABI only. */
    k->code_object_version = osabi == PT2_AMDGPU_OSABI_HSA ? (int)abiversion + 2 : 0;
    if (k->code_object_version >= 4) {
        k->xnack = v4_feature((e_flags >> 8) & 3u);
        k->sramecc = v4_feature((e_flags >> 10) & 3u);
    } else if (k->code_object_version == 2 || k->code_object_version == 3) {
        /* LLVM writes v2 objects with the v3 flag layout (getEFlagsV3); the old
         * v2-only bits 0x1/0x2 would collide with the MACH byte and are ignored. */
        k->xnack = v3_feature((e_flags & 0x100u) != 0, (sup & SUP_XNACK) != 0);
        k->sramecc = v3_feature((e_flags & 0x200u) != 0, (sup & SUP_SRAMECC) != 0);
    } else {
        k->xnack = PT2_AMD_UNSUPPORTED;
        k->sramecc = PT2_AMD_UNSUPPORTED;
    }
    /* Target-id order as LLVM prints it: sramecc before xnack. */
    xs = feature_suffix(k->xnack);
    ss = feature_suffix(k->sramecc);
    snprintf(k->target_id, sizeof(k->target_id), "%s%s%s%s%s", k->gfx, ss ? ":sramecc" : "",
             ss ? ss : "", xs ? ":xnack" : "", xs ? xs : "");
}

int pt2_amdgpu_from_elf(const struct pt2_elf *elf, struct pt2_kernel *k, struct pt2_error *err)
{
    if (elf->machine != PT2_ELF_EM_AMDGPU)
        return pt2_error_set(err, PT2_ERR_FORMAT,
                             "%s: not an AMD GPU code object (e_machine %u, expected 224)",
                             elf->label, elf->machine);
    pt2_amdgpu_decode(elf->osabi, elf->abiversion, elf->flags, k);
    k->has_code = -1;
    return PT2_OK;
}
