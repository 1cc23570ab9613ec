/*
 * pt2_runtime.h - the runtime a package is meant to load in, and the rule
 * that judges a library's needs against it.
 *
 * Design: a runtime (pt2scope.h "Runtimes") is described by a spec
 * ("debian12", "ubuntu22.04,torch=2.8", "glibc=2.36,glibcxx=3.4.30"), by a
 * mounted root of the serving image (pt2_sysroot), by a libtorch build's
 * exports, or by this machine. The verdict is a list of requirement checks
 * (platform, glibc, an executable stack glibc 2.41+ refuses, GLIBCXX, CXXABI,
 * GCC runtime, GOMP, macOS, torch shims,
 * exact-build C++ imports, custom and prefixed shims; with a sysroot:
 * libraries, versions and symbols as the loader resolves them), each one a
 * small function returning {met | unmet | unverified, reason, advice}, and
 * one combiner: the first unmet requirement decides, else the first
 * unverified one; every unverified requirement is listed. The base table
 * (glibc, newest GLIBCXX) is ../shared/docs/runtime-needs.md §3; the GCC
 * release of a GLIBCXX and the CXXABI it brings follow libstdc++'s ABI
 * history (GCC 8 = 3.4.25 / 1.3.11 ... GCC 14 = 3.4.33 / 1.3.15).
 *
 * Ownership: a runtime owns its sysroot and libtorch set; judging borrows
 * everything. A runtime is immutable once built and may be shared by
 * threads (its sysroot serialises its own reads).
 */
#ifndef PT2_RUNTIME_H
#define PT2_RUNTIME_H

#include <cJSON.h>

#include "pt2_jw.h"
#include "pt2_model.h"
#include "pt2_needs.h"

/* The floors one library (or several, merged) needs. "" = none. */
struct pt2_floor_need {
    char version[48]; /* "2.38" (without the family prefix) */
    char file[128];   /* the library that must define it: "libc.so.6" */
    unsigned nsyms;   /* symbols requiring exactly that version */
};

struct pt2_floors {
    struct pt2_floor_need glibc, glibcxx, cxxabi, gcc, gomp;
    uint32_t macos; /* Mach-O minimum macOS, xxxx.yy.zz nibbles; 0 = none */
};

void pt2_floors_add(struct pt2_floors *f, const struct pt2_needs *n);

/* 1 when host record i is the library torch's loader takes for its folder (the last in zip
 * order with a loadable suffix), else 0. */
int pt2_runtime_host_loaded(const struct pt2_host_list *hosts, size_t i);

/* The members of one library of the document (runtime.libraries[], models[].libraries[]):
 * entry, format, os, machine, bits, description, size, loaded, needs, imports, partial,
 * into the object w has open (the caller opens and closes it). */
void pt2_runtime_library_members(struct pt2_jw *w, const struct pt2_host *h, int loaded);

/* The system a library loads on: "linux" (ELF), "windows" (PE); a Mach-O's by the platforms
 * it names: "macos" (or none named), else "ios", "maccatalyst", "tvos", ... ("apple" for a
 * platform number without a name); "" for other formats. Static strings. */
const char *pt2_runtime_library_os(const struct pt2_host *h);
/* The same system as a sentence names it, with its article: "a macOS", "an iOS". */
const char *pt2_runtime_library_os_said(const struct pt2_host *h);

/* The "runtime" member's value of the inspection document: {"needs", "libraries"}. */
void pt2_runtime_needs_write(struct pt2_jw *w, const pt2_package *pkg);

/* Add to `req` the floors the package's loaded libraries set where there are any:
 * "glibc", "glibcxx", "cxxabi", "torch" (what a target's node must provide). 1, or 0 on OOM. */
int pt2_runtime_floors_json(const pt2_package *pkg, cJSON *req);

/* Judge the package's loaded libraries on `rt`: *out, and the runtime entry's extra members
 * ("requires", "unverified", "missing") added to `entry`. */
int pt2_runtime_judge(const pt2_package *pkg, const pt2_runtime *rt, cJSON *entry,
                      struct pt2_verdict_result *out, struct pt2_error *err);

#endif
