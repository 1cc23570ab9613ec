/*
 * pt2_isa.c - CPU ISA from AOTI_CPU_ISA or from the wrapper's compile command.
 *
 * The compile command is attacker-controlled text of unknown size, so it is
 * never copied: tokens are (pointer, length) views into the caller's buffer,
 * tokens longer than PT2_ISA_TOKEN_MAX are skipped (they are paths), at most
 * PT2_ISA_CMD_LINES_MAX continuation lines are read and at most
 * PT2_ISA_FLAGS_MAX flags kept. Only the names in the tables below count as
 * ISA flags, so "-m64" or "-mtune=" never pose as requirements.
 */
#include <stdio.h>
#include <string.h>

#include "pt2_isa.h"

/* ---- small text helpers ------------------------------------------------- */

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c == '\0';
}

static char up(char c)
{
    return (c >= 'a' && c <= 'z') ? (char)(c - 'a' + 'A') : c;
}

static char low(char c)
{
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

static int has_prefix(const char *s, size_t n, const char *prefix)
{
    size_t pn = strlen(prefix);
    return n >= pn && memcmp(s, prefix, pn) == 0;
}

static int has_prefix_nocase(const char *s, size_t n, const char *prefix)
{
    size_t i, pn = strlen(prefix);

    if (n < pn)
        return 0;
    for (i = 0; i < pn; i++)
        if (low(s[i]) != low(prefix[i]))
            return 0;
    return 1;
}

static int eq(const char *s, size_t n, const char *word)
{
    return strlen(word) == n && memcmp(s, word, n) == 0;
}

static int eq_nocase(const char *s, size_t n, const char *word)
{
    return strlen(word) == n && has_prefix_nocase(s, n, word);
}

/* Letters, digits and '_' only: what a VecISA name can be. */
static int is_word(const char *s, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        char c = up(s[i]);
        if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
            return 0;
    }
    return 1;
}

/* Copy s[0..n) into dst (size cap) upper-cased; 0 if it does not fit. */
static int copy_upper(char *dst, size_t cap, const char *s, size_t n)
{
    size_t i;

    if (n >= cap)
        return 0;
    for (i = 0; i < n; i++)
        dst[i] = up(s[i]);
    dst[n] = '\0';
    return 1;
}

/* ---- flags -------------------------------------------------------------- */

static int flag_index(const struct pt2_cpu_isa *isa, const char *f, size_t n)
{
    size_t i;

    for (i = 0; i < isa->nflags; i++)
        if (eq(f, n, isa->flags[i]))
            return (int)i;
    return -1;
}

/* Append a flag unless present; silently stop at the caps (they are advisory). */
static void flag_add(struct pt2_cpu_isa *isa, const char *f, size_t n)
{
    if (n == 0 || n >= sizeof(isa->flags[0]) || isa->nflags >= PT2_ISA_FLAGS_MAX)
        return;
    if (flag_index(isa, f, n) >= 0)
        return;
    memcpy(isa->flags[isa->nflags], f, n);
    isa->flags[isa->nflags][n] = '\0';
    isa->nflags++;
}

static void flag_add_str(struct pt2_cpu_isa *isa, const char *f)
{
    flag_add(isa, f, strlen(f));
}

static void flag_remove(struct pt2_cpu_isa *isa, const char *f, size_t n)
{
    int i = flag_index(isa, f, n);

    if (i < 0)
        return;
    memmove(isa->flags[i], isa->flags[i + 1],
            (isa->nflags - (size_t)i - 1) * sizeof(isa->flags[0]));
    isa->nflags--;
}

/* -m<name> options that select instruction set extensions (gcc/clang names). */
static const char *const isa_flag_prefixes[] = {"avx", "sse", "amx-", "sve", "bmi", "fma"};
static const char *const isa_flag_names[] = {
    "ssse3", "f16c",       "lzcnt", "popcnt",  "aes",   "pclmul",  "sha",  "gfni",
    "vaes",  "vpclmulqdq", "movbe", "adx",     "rdrnd", "rdseed",  "cx16", "xsave",
    "mmx",   "neon",       "vsx",   "altivec", "vx",    "zvector", "crc32"};

static int is_isa_flag(const char *f, size_t n)
{
    size_t i;

    if (n == 0 || memchr(f, '=', n) != NULL) {
        /* The one valued option that is an ISA statement. */
        return has_prefix(f, n, "sve-vector-bits=");
    }
    /* Tuning options that merely share a prefix. */
    if (has_prefix(f, n, "sseregparm") || has_prefix(f, n, "avx256-split") ||
        has_prefix(f, n, "avx128-fma"))
        return 0;
    for (i = 0; i < sizeof(isa_flag_prefixes) / sizeof(isa_flag_prefixes[0]); i++)
        if (has_prefix(f, n, isa_flag_prefixes[i]))
            return 1;
    for (i = 0; i < sizeof(isa_flag_names) / sizeof(isa_flag_names[0]); i++)
        if (eq(f, n, isa_flag_names[i]))
            return 1;
    return 0;
}

/* ---- AOTI_CPU_ISA ------------------------------------------------------- */

int pt2_isa_from_metadata(const char *value, struct pt2_cpu_isa *out)
{
    const char *p, *w;
    size_t n;
    int first = 1;

    if (value == NULL || out == NULL)
        return PT2_ERR_INVALID;
    memset(out, 0, sizeof(*out));
    snprintf(out->source, sizeof(out->source), "metadata");

    for (p = value; *p != '\0';) {
        while (*p != '\0' && is_blank(*p))
            p++;
        w = p;
        while (*p != '\0' && !is_blank(*p))
            p++;
        n = (size_t)(p - w);
        if (n == 0)
            break;
        if (first) {
            first = 0;
            if (eq_nocase(w, n, "asimd"))
                snprintf(out->isa, sizeof(out->isa), "NEON");
            else if (eq_nocase(w, n, "default") || eq_nocase(w, n, "invalid_vec_isa"))
                out->novec = 1; /* no vector ISA: torch found none (or was told so) */
            else if (!is_word(w, n) || !copy_upper(out->isa, sizeof(out->isa), w, n))
                out->isa[0] = '\0';
            continue;
        }
        /* Later words name the VecISA subclasses' extra -m flags. */
        if (eq_nocase(w, n, "avx512_vnni")) {
            flag_add_str(out, "avx512vnni");
        } else if (eq_nocase(w, n, "amx_tile")) {
            flag_add_str(out, "amx-tile");
            flag_add_str(out, "amx-bf16");
            flag_add_str(out, "amx-int8");
        } else if (eq_nocase(w, n, "avx512_bf16")) {
            flag_add_str(out, "avx512bf16");
        }
    }
    return PT2_OK;
}

/* ---- "// Compile cmd" ----------------------------------------------------- */

struct cmd_state {
    struct pt2_cpu_isa *isa;
    int pending_define; /* previous token was a bare -D */
    int have_march;
    int have_capability;
    char mcpu[64];
};

/* A -D macro: CPU_CAPABILITY_<X>[=..] or CPU_CAPABILITY=<X>. */
static void take_define(struct cmd_state *st, const char *m, size_t n)
{
    const char *v;
    size_t vn = 0, cur;
    char cand[sizeof(st->isa->isa)];

    if (has_prefix(m, n, "CPU_CAPABILITY_"))
        v = m + 15;
    else if (has_prefix(m, n, "CPU_CAPABILITY="))
        v = m + 15;
    else
        return;
    while (v + vn < m + n && v[vn] != '=')
        vn++;
    if (vn == 0 || !is_word(v, vn) || !copy_upper(cand, sizeof(cand), v, vn))
        return;
    /* The most specific macro wins: SVE256 over SVE, whatever the order. */
    cur = strlen(st->isa->isa);
    if (st->have_capability && cur > vn && strncmp(st->isa->isa, cand, vn) == 0)
        return;
    snprintf(st->isa->isa, sizeof(st->isa->isa), "%s", cand);
    st->have_capability = 1;
}

static void take_token(struct cmd_state *st, const char *t, size_t n)
{
    struct pt2_cpu_isa *isa = st->isa;

    if (n >= 2 && (t[0] == '"' || t[0] == '\'') && t[n - 1] == t[0]) {
        t++;
        n -= 2;
    }
    if (n == 0)
        return;
    if (st->pending_define) {
        st->pending_define = 0;
        take_define(st, t, n);
        return;
    }
    if (n > PT2_ISA_TOKEN_MAX)
        return;
    if (eq(t, n, "-D") || eq(t, n, "/D")) {
        st->pending_define = 1;
    } else if (has_prefix(t, n, "-D") || has_prefix(t, n, "/D")) {
        take_define(st, t + 2, n - 2);
    } else if (has_prefix(t, n, "-march=")) {
        if (n - 7 < sizeof(isa->march)) {
            memcpy(isa->march, t + 7, n - 7);
            isa->march[n - 7] = '\0';
            st->have_march = 1;
        }
    } else if (has_prefix(t, n, "-mcpu=")) {
        if (n - 6 < sizeof(st->mcpu)) {
            memcpy(st->mcpu, t + 6, n - 6);
            st->mcpu[n - 6] = '\0';
        }
    } else if (has_prefix(t, n, "-mno-")) {
        flag_remove(isa, t + 5, n - 5);
    } else if (has_prefix(t, n, "-m")) {
        if (is_isa_flag(t + 2, n - 2))
            flag_add(isa, t + 2, n - 2);
    } else if (eq(t, n, "/arch:AVX512")) {
        flag_add_str(isa, "avx512f");
        flag_add_str(isa, "avx512cd");
        flag_add_str(isa, "avx512bw");
        flag_add_str(isa, "avx512dq");
        flag_add_str(isa, "avx512vl");
    } else if (eq(t, n, "/arch:AVX2")) {
        flag_add_str(isa, "avx2");
        flag_add_str(isa, "fma");
    } else if (eq(t, n, "/arch:AVX")) {
        flag_add_str(isa, "avx");
    }
}

/* Tokenize one line segment [p, end) on blanks. */
static void take_segment(struct cmd_state *st, const char *p, const char *end)
{
    const char *t;

    while (p < end) {
        while (p < end && is_blank(*p))
            p++;
        t = p;
        while (p < end && !is_blank(*p))
            p++;
        if (p > t)
            take_token(st, t, (size_t)(p - t));
    }
}

/* Skip blanks; return the position of "//" at the start of [p, end) or NULL. */
static const char *comment_start(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (end - p >= 2 && p[0] == '/' && p[1] == '/')
        return p;
    return NULL;
}

/* p points at "//": is the comment "// <word>" (blanks optional)? Returns the end of word. */
static const char *comment_word(const char *p, const char *end, const char *word)
{
    size_t wn = strlen(word);

    p += 2;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if ((size_t)(end - p) >= wn && has_prefix_nocase(p, wn, word))
        return p + wn;
    return NULL;
}

static const char *line_end(const char *p, const char *end)
{
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    return nl != NULL ? nl : end;
}

static void derive_isa(struct pt2_cpu_isa *isa)
{
    size_t i;
    int avx512 = 0, avx2 = 0, sve = 0, sve256 = 0, neon = 0, vsx = 0, zvec = 0;
    const char *name = "";

    for (i = 0; i < isa->nflags; i++) {
        const char *f = isa->flags[i];
        avx512 |= strncmp(f, "avx512", 6) == 0;
        avx2 |= strcmp(f, "avx2") == 0;
        sve |= strncmp(f, "sve", 3) == 0;
        sve256 |= strcmp(f, "sve-vector-bits=256") == 0;
        neon |= strcmp(f, "neon") == 0;
        vsx |= strcmp(f, "vsx") == 0;
        zvec |= strcmp(f, "zvector") == 0 || strcmp(f, "vx") == 0;
    }
    if (avx512 || strcmp(isa->march, "x86-64-v4") == 0)
        name = "AVX512";
    else if (avx2 || strcmp(isa->march, "x86-64-v3") == 0)
        name = "AVX2";
    else if (sve)
        name = sve256 ? "SVE256" : "SVE";
    else if (neon)
        name = "NEON";
    else if (vsx)
        name = "VSX";
    else if (zvec)
        name = "ZVECTOR";
    snprintf(isa->isa, sizeof(isa->isa), "%s", name);
}

int pt2_isa_from_compile_cmd(const char *text, size_t len, struct pt2_cpu_isa *out)
{
    const char *end, *p, *le, *c, *found = NULL, *found_end = NULL, *rest;
    struct cmd_state st;
    int lines;

    if (out == NULL || (text == NULL && len > 0))
        return PT2_ERR_INVALID;
    memset(out, 0, sizeof(*out));
    if (text == NULL)
        return PT2_ERR_NOT_FOUND;
    end = text + len;

    /* The last "// Compile cmd" line wins: earlier ones may be kernel code. */
    for (p = text; p < end; p = le + 1) {
        le = line_end(p, end);
        c = comment_start(p, le);
        if (c != NULL && (rest = comment_word(c, le, "compile cmd")) != NULL) {
            found = rest;
            found_end = le;
        }
        if (le == end)
            break;
    }
    if (found == NULL)
        return PT2_ERR_NOT_FOUND;

    memset(&st, 0, sizeof(st));
    st.isa = out;
    snprintf(out->source, sizeof(out->source), "compile_cmd");
    if (found < found_end && *found == ':')
        found++;
    take_segment(&st, found, found_end);

    /* Continuation lines: "// <more of the command>" up to "// Link cmd". */
    p = found_end < end ? found_end + 1 : end;
    for (lines = 0; p < end && lines < PT2_ISA_CMD_LINES_MAX; lines++, p = le + 1) {
        le = line_end(p, end);
        c = comment_start(p, le);
        if (c == NULL || comment_word(c, le, "link cmd") != NULL)
            break;
        take_segment(&st, c + 2, le);
        if (le == end)
            break;
    }

    if (!st.have_march && st.mcpu[0] != '\0')
        snprintf(out->march, sizeof(out->march), "%s", st.mcpu);
    if (!st.have_capability)
        derive_isa(out);
    return PT2_OK;
}

/* ---- required features -------------------------------------------------- */

struct feat_list {
    const char **v;
    size_t max, n;
    int overflow;
};

static void feat_add(struct feat_list *fl, const char *f)
{
    size_t i;

    for (i = 0; i < fl->n; i++)
        if (strcmp(fl->v[i], f) == 0)
            return;
    if (fl->n >= fl->max) {
        fl->overflow = 1;
        return;
    }
    fl->v[fl->n++] = f;
}

/* gcc -m name -> /proc/cpuinfo name(s). */
static const struct {
    const char *flag;
    const char *feat;
} flag_feats[] = {
    {"avx", "avx"},
    {"avx2", "avx2"},
    {"avx512f", "avx512f"},
    {"avx512cd", "avx512cd"},
    {"avx512dq", "avx512dq"},
    {"avx512bw", "avx512bw"},
    {"avx512vl", "avx512vl"},
    {"avx512ifma", "avx512ifma"},
    {"avx512vbmi", "avx512vbmi"},
    {"avx512vbmi2", "avx512_vbmi2"},
    {"avx512vnni", "avx512_vnni"},
    {"avx512bitalg", "avx512_bitalg"},
    {"avx512vpopcntdq", "avx512_vpopcntdq"},
    {"avx512bf16", "avx512_bf16"},
    {"avx512fp16", "avx512_fp16"},
    {"avx512vp2intersect", "avx512_vp2intersect"},
    {"avxvnni", "avx_vnni"},
    {"fma", "fma"},
    {"fma4", "fma4"},
    {"f16c", "f16c"},
    {"sse", "sse"},
    {"sse2", "sse2"},
    {"sse3", "pni"},
    {"ssse3", "ssse3"},
    {"sse4.1", "sse4_1"},
    {"sse4.2", "sse4_2"},
    {"sse4", "sse4_2"},
    {"sse4a", "sse4a"},
    {"popcnt", "popcnt"},
    {"lzcnt", "abm"},
    {"bmi", "bmi1"},
    {"bmi2", "bmi2"},
    {"amx-tile", "amx_tile"},
    {"amx-bf16", "amx_bf16"},
    {"amx-int8", "amx_int8"},
    {"amx-fp16", "amx_fp16"},
    {"aes", "aes"},
    {"pclmul", "pclmulqdq"},
    {"sha", "sha_ni"},
    {"gfni", "gfni"},
    {"vaes", "vaes"},
    {"vpclmulqdq", "vpclmulqdq"},
    {"movbe", "movbe"},
    {"adx", "adx"},
    {"rdrnd", "rdrand"},
    {"rdseed", "rdseed"},
    {"cx16", "cx16"},
    {"xsave", "xsave"},
    {"mmx", "mmx"},
    {"neon", "asimd"},
    {"sve", "sve"},
    {"sve2", "sve2"},
    {"vx", "vx"},
};

/* What the ATen vector code of each CPU_CAPABILITY is compiled with. */
static const char *const isa_avx512[] = {"avx512f", "avx512dq", "avx512vl", "avx512bw", "fma"};
static const char *const isa_avx2[] = {"avx2", "fma", "f16c"};

static const char *const x86_v2[] = {"pni", "ssse3", "sse4_1", "sse4_2", "popcnt", "cx16"};
static const char *const x86_v3[] = {"avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "movbe", "abm"};
static const char *const x86_v4[] = {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"};
static const char *const march_v3[] = {"haswell", "broadwell", "skylake", "alderlake",
                                       "znver1",  "znver2",    "znver3"};
static const char *const march_v4[] = {"skylake-avx512", "cascadelake",    "cooperlake",
                                       "icelake-server", "icelake-client", "tigerlake",
                                       "sapphirerapids", "emeraldrapids",  "graniterapids",
                                       "znver4",         "znver5"};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Every name pt2_isa_required_features() can report fits: at most the
 * AVX512 list for the ISA name, one per -m flag, and the x86-64-v4 level's
 * three lists for -march (the AArch64 "+ext" names are fewer: five).
 */
_Static_assert(PT2_ISA_FEATURES_MAX >= NELEM(isa_avx512) + PT2_ISA_FLAGS_MAX + NELEM(x86_v2) +
                                           NELEM(x86_v3) + NELEM(x86_v4),
               "PT2_ISA_FEATURES_MAX is below the longest possible feature list");

static void feat_add_all(struct feat_list *fl, const char *const *v, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        feat_add(fl, v[i]);
}

static int in_list(const char *s, const char *const *v, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (strcmp(s, v[i]) == 0)
            return 1;
    return 0;
}

static void march_features(struct feat_list *fl, const char *march)
{
    const char *p, *e;
    int level = 0;

    if (strcmp(march, "x86-64-v2") == 0)
        level = 2;
    else if (strcmp(march, "x86-64-v3") == 0 || in_list(march, march_v3, NELEM(march_v3)))
        level = 3;
    else if (strcmp(march, "x86-64-v4") == 0 || in_list(march, march_v4, NELEM(march_v4)))
        level = 4;
    if (level >= 2)
        feat_add_all(fl, x86_v2, NELEM(x86_v2));
    if (level >= 3)
        feat_add_all(fl, x86_v3, NELEM(x86_v3));
    if (level >= 4)
        feat_add_all(fl, x86_v4, NELEM(x86_v4));
    if (level > 0)
        return;

    /* AArch64: armv9-a implies SVE2; "+ext" suffixes name features. */
    if (strncmp(march, "armv9", 5) == 0) {
        feat_add(fl, "sve");
        feat_add(fl, "sve2");
    }
    for (p = strchr(march, '+'); p != NULL; p = e) {
        size_t n;
        p++;
        e = strchr(p, '+');
        n = e != NULL ? (size_t)(e - p) : strlen(p);
        if (eq(p, n, "sve"))
            feat_add(fl, "sve");
        else if (eq(p, n, "sve2"))
            feat_add(fl, "sve2");
        else if (eq(p, n, "bf16"))
            feat_add(fl, "bf16");
        else if (eq(p, n, "i8mm"))
            feat_add(fl, "i8mm");
        else if (eq(p, n, "dotprod"))
            feat_add(fl, "asimddp");
    }
}

int pt2_isa_required_features(const struct pt2_cpu_isa *isa, const char **out, size_t max,
                              size_t *n)
{
    struct feat_list fl = {out, max, 0, 0};
    size_t i, j;

    if (n != NULL)
        *n = 0;
    if (isa == NULL || (out == NULL && max > 0) || n == NULL)
        return PT2_ERR_INVALID;

    if (strcmp(isa->isa, "AVX512") == 0) {
        feat_add_all(&fl, isa_avx512, NELEM(isa_avx512));
    } else if (strcmp(isa->isa, "AVX2") == 0) {
        feat_add_all(&fl, isa_avx2, NELEM(isa_avx2));
    } else if (strcmp(isa->isa, "NEON") == 0 || strcmp(isa->isa, "ASIMD") == 0) {
        feat_add(&fl, "asimd");
    } else if (strncmp(isa->isa, "SVE", 3) == 0) {
        feat_add(&fl, "sve");
    } else if (strcmp(isa->isa, "ZVECTOR") == 0) {
        feat_add(&fl, "vxe");
    }

    for (i = 0; i < isa->nflags && i < PT2_ISA_FLAGS_MAX; i++) {
        const char *f = isa->flags[i];
        if (strncmp(f, "sve-vector-bits=", 16) == 0) {
            feat_add(&fl, "sve");
            continue;
        }
        for (j = 0; j < NELEM(flag_feats); j++) {
            if (strcmp(f, flag_feats[j].flag) == 0) {
                feat_add(&fl, flag_feats[j].feat);
                break;
            }
        }
    }

    if (isa->march[0] != '\0' && !pt2_isa_is_native(isa))
        march_features(&fl, isa->march);

    *n = fl.n;
    return fl.overflow ? PT2_ERR_TOO_LARGE : PT2_OK;
}

const char *pt2_isa_display(const struct pt2_cpu_isa *isa)
{
    if (isa->isa[0] == '\0' && isa->novec)
        return "none (no vector ISA: baseline code)";
    return pt2_isa_display_name(isa->isa);
}

const char *pt2_isa_display_name(const char *isa)
{
    if (isa == NULL)
        return "";
    if (strcmp(isa, "AVX512") == 0)
        return "AVX-512";
    if (strcmp(isa, "NEON") == 0 || strcmp(isa, "ASIMD") == 0)
        return "NEON";
    if (strncmp(isa, "SVE", 3) == 0)
        return "SVE";
    if (strcmp(isa, "ZVECTOR") == 0)
        return "z/Architecture vector";
    return isa;
}

int pt2_isa_is_native(const struct pt2_cpu_isa *isa)
{
    return isa != NULL && strcmp(isa->march, "native") == 0;
}
