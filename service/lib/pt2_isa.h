/*
 * pt2_isa.h - which CPU vector ISA an AOTInductor host binary was built for.
 *
 * Design: the ISA is never read from machine code. Two textual sources
 * exist: the AOTI_CPU_ISA metadata key (torch >= 2.10, the upper-cased
 * name of Inductor's picked VecISA: "AVX512", "AVX2", "AVX512 AVX512_VNNI
 * AMX_TILE", "ASIMD", "VSX", "ZVECTOR", "INVALID_VEC_ISA") and the
 * "// Compile cmd" comment Inductor appends to the wrapper .cpp, whose -m
 * flags, -march= and -D CPU_CAPABILITY_<X> say the same thing for every
 * torch version since the wrapper/kernel split. Both fill a struct
 * pt2_cpu_isa (pt2_model.h); pt2_isa_required_features() then turns it into
 * the /proc/cpuinfo flags a node must have, which is what catches the
 * "SIGILL on a host without AVX-512" failure (pytorch#121516).
 *
 * Everything here is pure text processing on caller buffers: no allocation,
 * no global state. Strings returned are static.
 */
#ifndef PT2_ISA_H
#define PT2_ISA_H

#include <stddef.h>

#include "pt2_model.h"

/* Longest compile-command token examined; longer ones (paths) are skipped. */
#define PT2_ISA_TOKEN_MAX 256
/* Compile-command continuation lines read after "// Compile cmd". */
#define PT2_ISA_CMD_LINES_MAX 64
/*
 * Room for every feature list pt2_isa_required_features() can produce: the
 * longest is 5 (AVX512) + one per -m flag (PT2_ISA_FLAGS_MAX = 32) + 19
 * (-march=x86-64-v4) = 56; a static assertion in pt2_isa.c keeps it so.
 * Callers sizing out[] with this never see PT2_ERR_TOO_LARGE.
 */
#define PT2_ISA_FEATURES_MAX 128

/*
 * Fill *out from an AOTI_CPU_ISA value. The first word gives out->isa
 * ("AVX512", "AVX2", "NEON" for ASIMD/NEON, "SVE256"/"SVE", "VSX",
 * "ZVECTOR"; "" for "", "DEFAULT" and "INVALID_VEC_ISA"; any other word of
 * letters, digits and '_' that fits is kept upper-cased, anything else gives
 * ""); later words add the -m flags they imply
 * ("AVX512_VNNI" -> avx512vnni, "AMX_TILE" -> amx-tile, amx-bf16, amx-int8).
 * out->source = "metadata". PT2_ERR_INVALID if value or out is NULL.
 */
int pt2_isa_from_metadata(const char *value, struct pt2_cpu_isa *out);

/*
 * Fill *out from the tail of a wrapper .cpp (`text`, `len` bytes, need not
 * be NUL-terminated and may start mid-line). Uses the LAST line that starts
 * with "// Compile cmd" (an optional ':' and the command on the same line
 * are accepted, as are continuation lines starting with "//" up to "// Link
 * cmd"). Tokens are split on blanks (no shell), surrounding quotes dropped.
 * Extracted: -march= (last wins; -mcpu= is stored there when no -march is
 * given), every ISA -m<flag> in command order without duplicates (a later
 * -mno-<flag> removes it; at most PT2_ISA_FLAGS_MAX), MSVC /arch:AVX2 and
 * /arch:AVX512 (as the flags they imply), and -D CPU_CAPABILITY_<X>,
 * -DCPU_CAPABILITY_<X> or -DCPU_CAPABILITY=<X> as out->isa (the most
 * specific one wins: SVE256 over SVE). Without a CPU_CAPABILITY macro the
 * ISA is derived from the flags (any avx512* -> "AVX512", avx2 -> "AVX2",
 * sve -> "SVE", neon -> "NEON", vsx -> "VSX", zvector/vx -> "ZVECTOR").
 * out->source = "compile_cmd". PT2_ERR_NOT_FOUND (out zeroed) when there is
 * no compile command; PT2_ERR_INVALID for NULL arguments.
 */
int pt2_isa_from_compile_cmd(const char *text, size_t len, struct pt2_cpu_isa *out);

/*
 * The CPU features (lower-case /proc/cpuinfo names, static strings) a node
 * needs to run code built for *isa: first those implied by the ISA name
 * ("AVX512" -> avx512f, avx512dq, avx512vl, avx512bw, fma; "AVX2" -> avx2,
 * fma, f16c; "NEON" -> asimd; "SVE*" -> sve; "ZVECTOR" -> vxe; "VSX" ->
 * none, every ppc64le CPU has it), then those of each -m flag in order
 * (avx512bf16 -> avx512_bf16, sse4.2 -> sse4_2, amx-tile -> amx_tile,
 * neon -> asimd, ...), then those of an -march level (x86-64-v2/v3/v4,
 * "+sve"/"+sve2" extensions); duplicates dropped. "-march=native" adds
 * nothing: the caller reports it as a warning. Stores at most `max` names
 * in out[] and the count in *n; PT2_ERR_TOO_LARGE if more would follow.
 */
int pt2_isa_required_features(const struct pt2_cpu_isa *isa, const char **out, size_t max,
                              size_t *n);

/* Display name of an ISA: "AVX-512", "AVX2", "NEON", "SVE", "VSX",
 * "z/Architecture vector"; `isa` itself (borrowed) if unknown; "" for NULL. */
const char *pt2_isa_display_name(const char *isa);
/* The document's display of *isa: its name's, or "none (no vector ISA: baseline code)" where
 * AOTI_CPU_ISA says torch vectorised nothing (INVALID_VEC_ISA, DEFAULT); static strings. */
const char *pt2_isa_display(const struct pt2_cpu_isa *isa);

/* 1 when the package was built with -march=native (or -mcpu=native). */
int pt2_isa_is_native(const struct pt2_cpu_isa *isa);

#endif
