/*
 * test_runtime.c - runtime specs, the needs document and the runtime
 * verdict on the corpus's mlcolvar package (its needs are in
 * ../shared/docs/runtime-needs.md §1: GLIBC_2.27, GLIBCXX_3.4.30,
 * CXXABI_1.3.9, 22 shims, the newest aoti_torch_new_tensor_handle 2.7-2.9).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bigzip.h"
#include "pt2scope.h"
#include "testutil.h"
#include "ziptest.h"

static cJSON *json_of(const pt2_runtime *rt)
{
    cJSON *j = pt2_runtime_json(rt);
    ck_assert_ptr_nonnull(j);
    return j;
}

START_TEST(test_parse_specs)
{
    struct pt2_error err = {0};
    pt2_runtime *rt = NULL;
    cJSON *j;

    ck_assert_int_eq(pt2_runtime_parse("ubuntu22.04,torch=2.8", &rt, &err), PT2_OK);
    j = json_of(rt);
    ck_assert_str_eq(pt2_json_str(j, "name"), "ubuntu22.04,torch=2.8");
    ck_assert_str_eq(pt2_json_str(j, "description"), "Ubuntu 22.04");
    ck_assert_str_eq(pt2_json_str(j, "glibc"), "2.35");
    ck_assert_str_eq(pt2_json_str(j, "glibcxx"), "3.4.30");
    ck_assert_str_eq(pt2_json_str(j, "cxxabi"), "1.3.13");
    ck_assert_str_eq(pt2_json_str(j, "torch"), "2.8");
    ck_assert_str_eq(pt2_json_str(j, "os"), "linux");
    cJSON_Delete(j);
    pt2_runtime_free(rt);

    ck_assert_int_eq(pt2_runtime_parse("glibc=2.36,glibcxx=3.4.32", &rt, &err), PT2_OK);
    j = json_of(rt);
    ck_assert_str_eq(pt2_json_str(j, "cxxabi"), "1.3.14");
    ck_assert_ptr_null(pt2_json_str(j, "torch"));
    cJSON_Delete(j);
    pt2_runtime_free(rt);

    ck_assert_int_eq(pt2_runtime_parse("macos=14.0", &rt, &err), PT2_OK);
    j = json_of(rt);
    ck_assert_str_eq(pt2_json_str(j, "macos"), "14.0");
    ck_assert_str_eq(pt2_json_str(j, "os"), "macos");
    cJSON_Delete(j);
    pt2_runtime_free(rt);
    /* a patch level is kept (LC_BUILD_VERSION's minos has one), a bare major is .0 */
    ck_assert_int_eq(pt2_runtime_parse("macos=14.2.1", &rt, &err), PT2_OK);
    j = json_of(rt);
    ck_assert_str_eq(pt2_json_str(j, "macos"), "14.2.1");
    cJSON_Delete(j);
    pt2_runtime_free(rt);
    ck_assert_int_eq(pt2_runtime_parse("macos=15", &rt, &err), PT2_OK);
    j = json_of(rt);
    ck_assert_str_eq(pt2_json_str(j, "macos"), "15.0");
    cJSON_Delete(j);
    pt2_runtime_free(rt);

    static const char *const bad[][2] = {
        {"debian99", "runtime base 'debian99' is unknown (bases: debian11, debian12, debian13, "
                     "ubuntu20.04, ubuntu22.04, ubuntu24.04, rhel8, rhel9, manylinux_2_28, "
                     "al2023; local = this machine)"},
        {"glibc=two", "runtime glibc=two: not a version (e.g. glibc=2.36, glibcxx=3.4.30, "
                      "torch=2.8, macos=14.0)"},
        {"cuda=12", "runtime field 'cuda' is unknown (use glibc=, glibcxx=, cxxabi=, torch=, "
                    "macos= or a base name)"},
        {"torch=2", "runtime torch=2: not a version (e.g. glibc=2.36, glibcxx=3.4.30, "
                    "torch=2.8, macos=14.0)"},
        {"macos=14.256", "runtime macos=14.256: not a version (e.g. glibc=2.36, "
                         "glibcxx=3.4.30, torch=2.8, macos=14.0)"},
        {"", "runtime: empty or longer than 256 bytes (e.g. debian12 or ubuntu22.04,torch=2.8)"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        pt2_error_clear(&err);
        ck_assert_int_eq(pt2_runtime_parse(bad[i][0], &rt, &err), PT2_ERR_INVALID);
        ck_assert_ptr_null(rt);
        ck_assert_str_eq(err.message, bad[i][1]);
    }
}
END_TEST

START_TEST(test_sysroot_errors)
{
    struct pt2_error err = {0};
    pt2_runtime *rt = NULL;

    ck_assert_int_eq(pt2_runtime_sysroot("/nonexistent/root", &rt, &err), PT2_ERR_NOT_FOUND);
    ck_assert_str_eq(err.message, "/nonexistent/root: No such file or directory");
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_runtime_sysroot("tests/fixtures", &rt, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message,
                     "tests/fixtures is not a root filesystem: it has no lib, lib64 or usr/lib "
                     "folder");
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_runtime_libtorch("tests/fixtures", &rt, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "tests/fixtures: no libtorch_cpu.so shared object there");
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_runtime_libtorch("/nonexistent/libtorch_cpu.so", &rt, &err),
                     PT2_ERR_NOT_FOUND);
    ck_assert_str_eq(err.message, "/nonexistent/libtorch_cpu.so: no such file or folder");
    ck_assert_ptr_null(rt);
}
END_TEST

/* The runtime entry of `spec` for the corpus package: verdict and reason. */
static void judge(const pt2_package *pkg, const char *spec, const char *verdict, const char *reason,
                  const char *advice)
{
    struct pt2_error err = {0};
    pt2_runtime *rt = NULL;
    pt2_verdicts *v = NULL;
    cJSON *doc = NULL, *e;

    ck_assert_int_eq(pt2_runtime_parse(spec, &rt, &err), PT2_OK);
    ck_assert_int_eq(pt2_verdicts_new(&v, &err), PT2_OK);
    ck_assert_int_eq(pt2_verdicts_add_runtime(v, pkg, rt, &err), PT2_OK);
    ck_assert_int_eq(pt2_verdicts_to_json(v, &doc, &err), PT2_OK);
    e = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "compatibility"), 0);
    ck_assert_str_eq(pt2_json_str(e, "kind"), "runtime");
    ck_assert_str_eq(pt2_json_str(e, "target"), spec);
    ck_assert_str_eq(pt2_json_str(e, "verdict"), verdict);
    ck_assert_str_eq(pt2_json_str(e, "reason"), reason);
    if (advice != NULL)
        ck_assert_str_eq(pt2_json_str(e, "advice"), advice);
    else
        ck_assert(cJSON_IsNull(cJSON_GetObjectItem(e, "advice")));
    ck_assert_str_eq(pt2_json_str(cJSON_GetObjectItem(e, "requires"), "glibc"), "2.27");
    ck_assert_str_eq(pt2_json_str(cJSON_GetObjectItem(e, "requires"), "torch"), "2.7");
    /* the overall verdict is the runtime's when nothing else was added */
    ck_assert_str_eq(pt2_json_str(cJSON_GetObjectItem(doc, "overall"), "verdict"), verdict);
    cJSON_Delete(doc);
    pt2_verdicts_free(v);
    pt2_runtime_free(rt);
}

START_TEST(test_mlcolvar_verdicts)
{
    char path[512];
    struct pt2_error err = {0};
    pt2_package *pkg = NULL;
    cJSON *doc = NULL, *needs, *torch;

    if (tu_shared("corpus/pt2/mlcolvar__descriptor_based_inputs_model.pt2", path, sizeof(path)) ==
        NULL) {
        tu_skip("runtime mlcolvar", "shared corpus absent");
        return;
    }
    ck_assert_int_eq(pt2_package_open_path(&pkg, path, NULL, &err), PT2_OK);
    ck_assert_int_eq(pt2_package_to_json(pkg, 0, &doc, &err), PT2_OK);
    needs = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "runtime"), "needs");
    ck_assert_str_eq(pt2_json_str(needs, "glibc"), "2.27");
    ck_assert_str_eq(pt2_json_str(needs, "glibcxx"), "3.4.30");
    ck_assert_str_eq(pt2_json_str(needs, "cxxabi"), "1.3.9");
    torch = cJSON_GetObjectItem(needs, "torch");
    ck_assert_str_eq(pt2_json_str(torch, "min"), "2.7");
    ck_assert_str_eq(pt2_json_str(torch, "sure_from"), "2.9");
    ck_assert_str_eq(pt2_json_str(torch, "because"), "aoti_torch_new_tensor_handle");
    ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(torch, "exact_build")));
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(needs, "libraries")), 8);
    ck_assert_int_eq(
        cJSON_GetObjectItem(
            cJSON_GetObjectItem(
                cJSON_GetArrayItem(
                    cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "runtime"), "libraries"), 0),
                "imports"),
            "shims")
            ->valueint,
        22);
    cJSON_Delete(doc);

    judge(pkg, "debian12,torch=2.9", "compatible",
          "Debian 12 can load "
          "data/aotinductor/model/c6nxnf744h37kq6qki443m2qvavf5dvnuh2dhxlsqbf5z2uobx7v.wrapper.so",
          NULL);
    judge(pkg, "rhel8,torch=2.9", "incompatible",
          "needs GLIBCXX_3.4.30 from libstdc++.so.6 (1 symbol); RHEL 8 has GLIBCXX 3.4.25",
          "Serve it from a base with GLIBCXX 3.4.30 or newer (Debian 12, Debian 13, Ubuntu 22.04, "
          "Ubuntu 24.04), or rebuild the package in a base no newer than the runtime's (e.g. "
          "RHEL 8).");
    judge(pkg, "debian12,torch=2.6", "incompatible",
          "needs torch 2.7 or newer (it imports aoti_torch_new_tensor_handle); Debian 12 has "
          "torch 2.6",
          "Serve it with torch 2.7 or newer, or re-export the package with torch 2.6.");
    judge(pkg, "debian12,torch=2.8", "unverified",
          "imports aoti_torch_new_tensor_handle, first declared by a torch between 2.7 and 2.9; "
          "Debian 12 has torch 2.8",
          "Check with --libtorch against the serving build, or serve it with torch 2.9 or "
          "newer.");
    judge(pkg, "debian12", "compatible",
          "compatible as far as Debian 12 is described; needs torch 2.7 or newer "
          "(aoti_torch_new_tensor_handle); Debian 12 does not say which torch it has",
          NULL);
    /* its PT_GNU_STACK is RWE (readelf -lW): glibc 2.41's dlopen refuses it */
    judge(pkg, "debian13,torch=2.9", "incompatible",
          "data/aotinductor/model/c6nxnf744h37kq6qki443m2qvavf5dvnuh2dhxlsqbf5z2uobx7v.wrapper.so "
          "asks for an executable stack (its PT_GNU_STACK has PF_X), which glibc 2.41 and newer "
          "refuse to dlopen; Debian 13 has glibc 2.41",
          "Relink it with -Wl,-z,noexecstack (an object without a .note.GNU-stack section, such "
          "as one made with ld -r -b binary, makes the linker ask for it), or clear the flag with "
          "execstack -c before packaging; serving it with glibc 2.40 or older loads it as it is.");
    judge(pkg, "macos=14.0", "incompatible",
          "data/aotinductor/model/c6nxnf744h37kq6qki443m2qvavf5dvnuh2dhxlsqbf5z2uobx7v.wrapper.so "
          "is a Linux ELF library; the runtime macos=14.0 runs macOS",
          "Re-export the package on macOS with the torch you serve with: AOTInductor compiles "
          "for the platform it runs on.");
    pt2_package_free(pkg);
}
END_TEST

/* The package at `path` judged on `spec` alone: the first runtime entry's verdict and reason
 * into the caller's buffers, and its unverified keys joined with ',' where `unverified` is
 * not NULL; the package, open, into *pkg (the caller frees it). */
static void runtime_entry(const char *path, const char *spec, char *verdict, char *reason,
                          char *unverified, size_t cap, pt2_package **pkg)
{
    struct pt2_error err = {0};
    pt2_runtime *rt = NULL;
    pt2_verdicts *v = NULL;
    cJSON *doc = NULL, *e, *u;

    ck_assert_int_eq(pt2_package_open_path(pkg, path, NULL, &err), PT2_OK);
    ck_assert_int_eq(pt2_runtime_parse(spec, &rt, &err), PT2_OK);
    ck_assert_int_eq(pt2_verdicts_new(&v, &err), PT2_OK);
    ck_assert_int_eq(pt2_verdicts_add_runtime(v, *pkg, rt, &err), PT2_OK);
    ck_assert_int_eq(pt2_verdicts_to_json(v, &doc, &err), PT2_OK);
    e = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "compatibility"), 0);
    snprintf(verdict, cap, "%s", pt2_json_str(e, "verdict"));
    snprintf(reason, cap, "%s", pt2_json_str(e, "reason"));
    if (unverified != NULL) {
        unverified[0] = '\0';
        cJSON_ArrayForEach(u, cJSON_GetObjectItem(e, "unverified"))
        {
            size_t n = strlen(unverified);
            snprintf(unverified + n, cap - n, "%s%s", n ? "," : "", u->valuestring);
        }
    }
    cJSON_Delete(doc);
    pt2_verdicts_free(v);
    pt2_runtime_free(rt);
}

/* A package whose model library is a hand-made arm64 Mach-O of `filetype` naming `c`, judged
 * on `spec`: the first runtime entry's verdict and reason into the caller's buffers, the
 * library's os. */
static void judge_macho_as(uint32_t filetype, const struct tu_macho_cmd *c, size_t n,
                           const char *spec, char *verdict, char *reason, size_t cap, char *os)
{
    char dir[256], path[512];
    uint8_t so[TU_MACHO_MAX];
    size_t len = tu_macho_dylib(so, c, n);
    struct bigzip_writer *w;
    struct pt2_error err = {0};
    pt2_package *pkg = NULL;
    cJSON *doc = NULL, *lib;

    tu_put_le32(so + 12, filetype);
    zt_tmp_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/apple.pt2", dir);
    w = bigzip_open(path, 8);
    ck_assert_ptr_nonnull(w);
    ck_assert_int_eq(bigzip_add(w, "data/aotinductor/model/capple.wrapper.so", so, len), 0);
    ck_assert_int_eq(bigzip_add_trailer(w), 0);
    ck_assert_int_eq(bigzip_close(w), 0);
    runtime_entry(path, spec, verdict, reason, NULL, cap, &pkg);
    ck_assert_int_eq(pt2_package_to_json(pkg, PT2_JSON_DEFAULT, &doc, &err), PT2_OK);
    lib = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "runtime"), "libraries"),
                             0);
    snprintf(os, 32, "%s", pt2_json_str(lib, "os"));
    cJSON_Delete(doc);
    pt2_package_free(pkg);
    zt_rm_dir(dir);
}

static void judge_macho(const struct tu_macho_cmd *c, size_t n, const char *spec, char *verdict,
                        char *reason, size_t cap, char *os)
{
    judge_macho_as(6 /* MH_DYLIB */, c, n, spec, verdict, reason, cap, os);
}

/* dyld loads a Mach-O only into a process of a platform it names: an iOS build is no
 * macOS library, a zippered one (macOS and Mac Catalyst) is. */
START_TEST(test_macho_platform)
{
    static const struct tu_macho_cmd ios[] = {{0x32, 2, 0x00110000}},
                                     zippered[] = {{0x32, 1, 0x000e0000}, {0x32, 6, 0x00110000}},
                                     patch[] = {{0x32, 1, 0x000e0201}};
    char verdict[256], reason[256], os[32];

    judge_macho(ios, 1, "macos=14.0", verdict, reason, sizeof(verdict), os);
    ck_assert_str_eq(os, "ios");
    ck_assert_str_eq(verdict, "incompatible");
    ck_assert_str_eq(reason, "data/aotinductor/model/capple.wrapper.so is an iOS Mach-O "
                             "library; the runtime macos=14.0 runs macOS");
    judge_macho(zippered, 2, "macos=14.0", verdict, reason, sizeof(verdict), os);
    ck_assert_str_eq(os, "macos");
    ck_assert_str_eq(verdict, "compatible");
    ck_assert_str_eq(reason, "the runtime macos=14.0 can load "
                             "data/aotinductor/model/capple.wrapper.so");
    judge_macho(zippered, 2, "macos=13.5", verdict, reason, sizeof(verdict), os);
    ck_assert_str_eq(verdict, "incompatible");
    ck_assert_str_eq(reason, "needs macOS 14.0; the runtime macos=13.5 is macOS 13.5");
    /* the patch level counts: 14.2 is older than a minimum of 14.2.1 */
    judge_macho(patch, 1, "macos=14.2", verdict, reason, sizeof(verdict), os);
    ck_assert_str_eq(verdict, "incompatible");
    ck_assert_str_eq(reason, "needs macOS 14.2.1; the runtime macos=14.2 is macOS 14.2");
    judge_macho(patch, 1, "macos=14.2.1", verdict, reason, sizeof(verdict), os);
    ck_assert_str_eq(verdict, "compatible");
    judge_macho(patch, 1, "macos=14.3", verdict, reason, sizeof(verdict), os);
    ck_assert_str_eq(verdict, "compatible");
}
END_TEST

/* dyld does not dlopen an executable (MH_EXECUTE); a bundle (MH_BUNDLE) it does. */
START_TEST(test_macho_executable)
{
    static const struct tu_macho_cmd mac[] = {{0x32, 1, 0x000e0000}};
    char verdict[256], reason[256], os[32];

    judge_macho_as(2, mac, 1, "macos=14.0", verdict, reason, sizeof(verdict), os);
    ck_assert_str_eq(verdict, "incompatible");
    ck_assert_str_eq(reason, "data/aotinductor/model/capple.wrapper.so is an executable "
                             "(MH_EXECUTE), which dyld does not dlopen");
    judge_macho_as(8, mac, 1, "macos=14.0", verdict, reason, sizeof(verdict), os);
    ck_assert_str_eq(verdict, "compatible");
}
END_TEST

/* A package of one small ELF library (a fixture's) and a <hash>.wrapper.json naming `targets`
 * (NULL-terminated): the first runtime entry's verdict, reason and unverified list on `spec`. */
static void judge_ops(const char *const *targets, int python, const char *spec, char *verdict,
                      char *reason, char *unverified, size_t cap)
{
    char dir[256], path[512], lib[512], json[1024];
    size_t len, used = 0;
    uint8_t *so;
    struct bigzip_writer *w;
    pt2_package *pkg = NULL;

    so = bigzip_slurp(tu_fixture("bins/host/libembedded_symbols.so", lib, sizeof(lib)), &len);
    ck_assert_ptr_nonnull(so);
    used += (size_t)snprintf(json + used, sizeof(json) - used, "{\"nodes\": [");
    for (size_t i = 0; targets[i] != NULL; i++)
        used += (size_t)snprintf(
            json + used, sizeof(json) - used,
            "%s{\"name\": \"buf%zu\", \"node\": {\"target\": \"%s\"%s}}", i ? ", " : "", i,
            targets[i], python ? ", \"metadata\": {\"torch_library_custom_op\": \"1\"}" : "");
    used += (size_t)snprintf(json + used, sizeof(json) - used, "]}");
    zt_tmp_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/ops.pt2", dir);
    w = bigzip_open(path, 8);
    ck_assert_ptr_nonnull(w);
    ck_assert_int_eq(bigzip_add(w, "data/aotinductor/model/cops.wrapper.json", json, used), 0);
    ck_assert_int_eq(bigzip_add(w, "data/aotinductor/model/cops.wrapper.so", so, len), 0);
    ck_assert_int_eq(bigzip_add_trailer(w), 0);
    ck_assert_int_eq(bigzip_close(w), 0);
    free(so);
    runtime_entry(path, spec, verdict, reason, unverified, cap, &pkg);
    pt2_package_free(pkg);
    zt_rm_dir(dir);
}

/* Operators the proxy executor runs must be registered in the loading process, or torch's
 * loader refuses the package (torch 2.14.1: "Could not find schema for
 * pt2scope_test::scale_add", tests/fixtures/torch/t214_custom_op.pt2): no runtime says
 * whether they are, so the requirement is unverified and said; libtorch's own are not. */
START_TEST(test_custom_ops)
{
    static const char *const mine[] = {"pt2scope_test::scale_add", NULL};
    static const char *const two[] = {"aten::nonzero", "preprocess::tile_crop", "mylib::fused_op",
                                      NULL};
    static const char *const builtin[] = {"aten::nonzero", "_c10d_functional::all_reduce", NULL};
    char verdict[1024], reason[1024], unv[1024];

    judge_ops(mine, 1, "glibc=2.40", verdict, reason, unv, sizeof(reason));
    ck_assert_str_eq(verdict, "compatible");
    ck_assert_str_eq(reason, "compatible as far as the runtime glibc=2.40 is described; needs the "
                             "operator pt2scope_test::scale_add registered in the loading process "
                             "(torch's proxy executor runs it; torch's loader refuses the package "
                             "without it); made with torch.library.custom_op, it runs only in a "
                             "Python process that defines it");
    ck_assert_ptr_nonnull(strstr(unv, "custom_ops"));
    judge_ops(two, 0, "glibc=2.40", verdict, reason, unv, sizeof(reason));
    ck_assert_str_eq(reason, "compatible as far as the runtime glibc=2.40 is described; needs the "
                             "operator preprocess::tile_crop and others registered in the loading "
                             "process (torch's proxy executor runs it; torch's loader refuses the "
                             "package without it)");
    judge_ops(builtin, 0, "glibc=2.40", verdict, reason, unv, sizeof(reason));
    ck_assert_ptr_null(strstr(unv, "custom_ops"));
    ck_assert_ptr_null(strstr(reason, "operator"));
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("runtime");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_parse_specs);
    tcase_add_test(tc, test_sysroot_errors);
    tcase_add_test(tc, test_macho_platform);
    tcase_add_test(tc, test_macho_executable);
    tcase_add_test(tc, test_mlcolvar_verdicts);
    tcase_add_test(tc, test_custom_ops);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run_suite(suite());
}
