/*
 * test_inspect.c - whole-package inspection: the JSON document, verdicts,
 * validation and error codes, on the committed fixtures, a 5 GiB sparse
 * package, and the real packages of the shared corpus (skipped if absent).
 */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zip.h>

#include "bigzip.h"
#include "pt2_wrapper.h" /* PT2_WRAPPER_BYTES_MAX */
#include "pt2scope.h"
#include "testutil.h"

/* Walk "a.b.0.c" through objects and arrays; NULL when absent. */
static const cJSON *jp(const cJSON *doc, const char *path)
{
    char buf[256], *save = NULL, *tok;
    const cJSON *cur = doc;

    snprintf(buf, sizeof(buf), "%s", path);
    for (tok = strtok_r(buf, ".", &save); tok && cur; tok = strtok_r(NULL, ".", &save)) {
        if (cJSON_IsArray(cur)) {
            char *end;
            long i = strtol(tok, &end, 10);
            cur = (*end == '\0') ? cJSON_GetArrayItem(cur, (int)i) : NULL;
        } else {
            cur = cJSON_GetObjectItemCaseSensitive(cur, tok);
        }
    }
    return cur;
}

static const char *js(const cJSON *doc, const char *path)
{
    const cJSON *v = jp(doc, path);
    return cJSON_IsString(v) ? v->valuestring : "<absent or not a string>";
}

static double jnum(const cJSON *doc, const char *path)
{
    const cJSON *v = jp(doc, path);
    return cJSON_IsNumber(v) ? v->valuedouble : -12345.0;
}

static pt2_package *open_fixture(const char *name)
{
    char path[256];
    pt2_package *pkg = NULL;
    struct pt2_error err = {0};
    int rc = pt2_package_open_path(&pkg, tu_fixture(name, path, sizeof(path)), NULL, &err);

    ck_assert_msg(rc == PT2_OK, "%s: %s", name, err.message);
    return pkg;
}

static cJSON *doc_of(const char *name, unsigned flags)
{
    pt2_package *pkg = open_fixture(name);
    struct pt2_error err = {0};
    cJSON *doc = NULL;

    ck_assert_int_eq(pt2_package_to_json(pkg, flags, &doc, &err), PT2_OK);
    pt2_package_free(pkg);
    return doc;
}

static int verdict(const char *fixture, const char *target, const char *driver, char *reason,
                   size_t len)
{
    pt2_package *pkg = open_fixture(fixture);
    struct pt2_error err = {0};
    struct pt2_device dev;
    struct pt2_verdict_result r;

    ck_assert_int_eq(pt2_target_parse(target, &dev, &err), PT2_OK);
    if (driver != NULL)
        ck_assert_int_eq(pt2_driver_version_parse(driver, &dev.driver_cuda_version, &err), PT2_OK);
    ck_assert_int_eq(pt2_package_check_device(pkg, &dev, &r, &err), PT2_OK);
    if (reason != NULL)
        snprintf(reason, len, "%s", r.reason);
    pt2_package_free(pkg);
    return r.verdict;
}

/* ---- 2025-2026 layouts (../shared/docs/pt2-layouts-2026.md) -------------- */

static int warned(const cJSON *doc, const char *needle)
{
    const cJSON *w;

    cJSON_ArrayForEach(w, jp(doc, "warnings")) if (strstr(w->valuestring, needle) != NULL) return 1;
    return 0;
}

START_TEST(test_layout_two_libraries)
{
    cJSON *doc = doc_of("two_libraries.pt2", PT2_JSON_DEFAULT);
    const char *x86 = "data/aotinductor/model/c4pyf6qjjvtmwgywr7t4sytqlxbodzvg3omrtyzac7l5nozg5nqr"
                      ".wrapper.so";
    char reason[512];

    ck_assert_int_eq(cJSON_GetArraySize(jp(doc, "models.0.libraries")), 2);
    ck_assert_str_eq(js(doc, "models.0.libraries.0.entry"), x86);
    ck_assert(cJSON_IsFalse(jp(doc, "models.0.libraries.0.loaded")));
    ck_assert_str_eq(js(doc, "models.0.libraries.0.machine"), "x86_64");
    ck_assert_str_eq(js(doc, "models.0.libraries.1.machine"), "aarch64");
    ck_assert_str_eq(js(doc, "models.0.libraries.1.format"), "elf");
    ck_assert_str_eq(js(doc, "models.0.libraries.1.os"), "linux");
    ck_assert(cJSON_IsTrue(jp(doc, "models.0.libraries.1.loaded")));
    ck_assert_str_eq(js(doc, "models.0.libraries.1.cpu_features.0"), "avx512f");
    /* one CPU line: the library that loads, not "x86-64 ... + AArch64 ..." */
    ck_assert_ptr_null(strstr(js(doc, "arch.cpu_description"), " + "));
    ck_assert_ptr_nonnull(strstr(js(doc, "arch.cpu_description"), "AArch64"));
    ck_assert(warned(doc, "the last library in zip order"));
    cJSON_Delete(doc);
    /* the verdict is the loaded library's: an x86-64 node cannot load the aarch64 one */
    {
        pt2_package *pkg = open_fixture("two_libraries.pt2");
        struct pt2_verdict_result r;
        struct pt2_error err = {0};
        const char *feat[] = {"avx512f", "avx512dq", "avx512vl", "avx512bw", "fma"};

        ck_assert_int_eq(pt2_package_check_cpu(pkg, "x86_64", feat, 5, &r, &err), PT2_OK);
        snprintf(reason, sizeof(reason), "%s", r.reason);
        ck_assert_int_eq(r.verdict, PT2_INCOMPATIBLE);
        ck_assert_str_eq(r.code, "host-platform");
        ck_assert_int_eq(pt2_package_check_cpu(pkg, "aarch64", NULL, 0, &r, &err), PT2_OK);
        ck_assert_str_ne(r.code, "host-platform");
        pt2_package_free(pkg);
    }
}
END_TEST

START_TEST(test_layout_weights)
{
    cJSON *doc = doc_of("weights_pickle.pt2", PT2_JSON_DEFAULT);

    ck_assert_str_eq(js(doc, "models.0.weights.where"), "pickle-files");
    ck_assert_int_eq((int)jnum(doc, "models.0.weights.entries"), 2);
    ck_assert_int_eq((int)jnum(doc, "models.0.weights.bytes"), 1840);
    ck_assert_int_eq((int)jnum(doc, "models.0.weights.missing"), 1);
    ck_assert(cJSON_IsNull(jp(doc, "models.0.weights.declared_bytes")));
    ck_assert(warned(doc, "weights_config.json names data/weights/weight_1, which the package "
                          "does not contain"));
    cJSON_Delete(doc);

    doc = doc_of("weights_blob.pt2", PT2_JSON_DEFAULT);
    ck_assert_str_eq(js(doc, "models.0.weights.where"), "binary-blob");
    ck_assert_int_eq((int)jnum(doc, "models.0.weights.entries"), 1);
    ck_assert_int_eq((int)jnum(doc, "models.0.weights.bytes"), 8192);
    ck_assert(!warned(doc, "is empty"));
    cJSON_Delete(doc);

    doc = doc_of("weights_blob_empty.pt2", PT2_JSON_DEFAULT);
    ck_assert_str_eq(js(doc, "models.0.weights.where"), "binary-blob");
    ck_assert_int_eq((int)jnum(doc, "models.0.weights.bytes"), 0);
    ck_assert(warned(doc, "wrapper_weights.blob is empty"));
    cJSON_Delete(doc);

    doc = doc_of("cpu_inline_checks_v8.pt2", PT2_JSON_DEFAULT);
    ck_assert_str_eq(js(doc, "models.0.weights.where"), "in-library");
    ck_assert(cJSON_IsNull(jp(doc, "models.0.weights.bytes")));
    cJSON_Delete(doc);

    doc = doc_of("export_program.pt2", PT2_JSON_DEFAULT);
    ck_assert_str_eq(js(doc, "metadata.exported_programs.0.weights.where"), "payload-files");
    ck_assert_int_eq((int)jnum(doc, "metadata.exported_programs.0.weights.entries"), 1);
    ck_assert_int_eq((int)jnum(doc, "metadata.exported_programs.0.weights.bytes"), 120);
    ck_assert_int_eq((int)jnum(doc, "metadata.exported_programs.0.weights.declared_bytes"), 120);
    cJSON_Delete(doc);
}
END_TEST

START_TEST(test_layout_cpp_only_unhashed)
{
    cJSON *doc = doc_of("cpp_only.pt2", PT2_JSON_DEFAULT);
    pt2_package *pkg = open_fixture("cpp_only.pt2");
    struct pt2_verdict_result r;
    struct pt2_error err = {0};

    ck_assert_str_eq(js(doc, "models.0.build"), "cpp-only");
    ck_assert_str_eq(js(doc, "models.0.cmake_target"), "aoti_model");
    ck_assert_int_eq(cJSON_GetArraySize(jp(doc, "models.0.libraries")), 0);
    /* a name without the hash is read like a hashed one */
    ck_assert_str_eq(js(doc, "models.0.aoti_metadata_source"),
                     "data/aotinductor/model/my_model.wrapper_metadata.json");
    ck_assert(warned(doc, "is C++ sources only (aot_inductor.package_cpp_only, CMake target "
                          "aoti_model)"));
    ck_assert_int_eq(pt2_package_check_cpu(pkg, "x86_64", NULL, 0, &r, &err), PT2_OK);
    ck_assert_str_eq(r.code, "needs-compile");
    pt2_package_free(pkg);
    /* torch 2.14.1's own cpp-only package carries its constants as <hash>.weights.o, an
     * object file: still no library (it was judged as one: "compatible") */
    pkg = open_fixture("torch/t214_cpp_only.pt2");
    ck_assert_int_eq(pt2_package_check_cpu(pkg, "x86_64", NULL, 0, &r, &err), PT2_OK);
    ck_assert_int_eq(r.verdict, PT2_INCOMPATIBLE);
    ck_assert_str_eq(r.code, "needs-compile");
    ck_assert_str_eq(r.reason,
                     "model 'model' ships C++ sources and no compiled library "
                     "(aot_inductor.package_cpp_only): torch's loader compiles it when it loads "
                     "it, so it loads only where a C++ compiler and torch's headers are installed");
    pt2_package_free(pkg);
    cJSON_Delete(doc);
    doc = doc_of("cpu_x86_64.pt2", PT2_JSON_DEFAULT);
    ck_assert_str_eq(js(doc, "models.0.build"), "compiled");
    ck_assert(cJSON_IsNull(jp(doc, "models.0.cmake_target")));
    cJSON_Delete(doc);
}
END_TEST

START_TEST(test_layout_mps_and_entries)
{
    cJSON *doc = doc_of("mps_macos.pt2", PT2_JSON_DEFAULT);

    ck_assert_str_eq(js(doc, "models.0.libraries.0.format"), "mach-o");
    ck_assert_str_eq(js(doc, "models.0.libraries.0.os"), "macos");
    ck_assert_str_eq(js(doc, "models.0.libraries.0.machine"), "arm64");
    ck_assert_str_eq(js(doc, "models.0.libraries.0.needs.macos"), "14.0");
    ck_assert_int_eq((int)jnum(doc, "models.0.metal_shader_libraries"), 2);
    cJSON_Delete(doc);
    doc = doc_of("cpu_x86_64.pt2", PT2_JSON_DEFAULT);
    ck_assert(cJSON_IsNull(jp(doc, "models.0.metal_shader_libraries")));
    cJSON_Delete(doc);

    doc = doc_of("xpu_zebin.pt2", PT2_JSON_DEFAULT);
    ck_assert_str_eq(js(doc, "arch.kernels.0.kind"), "zebin");
    ck_assert_str_eq(js(doc, "arch.kernels.0.target"), "zebin:pvc");
    ck_assert_int_eq((int)jnum(doc, "arch.kernels.0.intel_product_family"), 1271);
    ck_assert_int_eq((int)jnum(doc, "arch.kernels.0.intel_gfxcore_family"), 0x0c08);
    ck_assert_str_eq(js(doc, "arch.kernels.0.gpu_description"),
                     "Intel Data Center GPU Max (Ponte Vecchio)");
    ck_assert_str_eq(js(doc, "models.0.targets.0"), "zebin:pvc");
    cJSON_Delete(doc);
    doc = doc_of("xpu_spv.pt2", PT2_JSON_DEFAULT);
    ck_assert_str_eq(js(doc, "arch.kernels.0.target"), "spirv");
    cJSON_Delete(doc);

    doc = doc_of("executorch_pickles.pt2", PT2_JSON_DEFAULT);
    ck_assert_int_eq(cJSON_GetArraySize(jp(doc, "package.executorch")), 1);
    ck_assert_str_eq(js(doc, "package.executorch.0.name"), "model.pte");
    ck_assert_int_eq((int)jnum(doc, "package.executorch.0.size"), 64);
    ck_assert_int_eq(cJSON_GetArraySize(jp(doc, "package.pickles")), 1);
    ck_assert_str_eq(js(doc, "package.pickles.0.entry"), "data/constants/custom_obj_0");
    ck_assert_str_eq(js(doc, "package.pickles.0.kind"), "custom_obj");
    ck_assert(warned(doc, "loading them executes code"));
    ck_assert_int_eq((int)jnum(doc, "models.0.proxy_nodes"), 3);
    ck_assert_int_eq(cJSON_GetArraySize(jp(doc, "models.0.custom_ops")), 2);
    ck_assert_str_eq(js(doc, "models.0.custom_ops.0"), "preprocess::tile_crop");
    ck_assert_str_eq(js(doc, "models.0.custom_ops.1"), "mylib::fused_op");
    cJSON_Delete(doc);
}
END_TEST

/* pt2_open_options.model: one model read, as torch's loader given a model_name loads it. */
START_TEST(test_layout_model_selection)
{
    char path[256];
    struct pt2_open_options oo = {0};
    struct pt2_error err = {0};
    pt2_package *pkg = NULL;
    cJSON *doc = NULL;

    oo.model = "model2";
    ck_assert_int_eq(
        pt2_package_open_path(&pkg, tu_fixture("multi_model.pt2", path, sizeof(path)), &oo, &err),
        PT2_OK);
    ck_assert_int_eq(pt2_package_to_json(pkg, PT2_JSON_DEFAULT, &doc, &err), PT2_OK);
    ck_assert_str_eq(js(doc, "package.model"), "model2");
    ck_assert_int_eq(cJSON_GetArraySize(jp(doc, "models")), 1);
    ck_assert_str_eq(js(doc, "models.0.name"), "model2");
    ck_assert_int_eq(cJSON_GetArraySize(jp(doc, "runtime.libraries")), 1);
    ck_assert_int_eq((int)jnum(doc, "arch.kernels_total"), 1);
    ck_assert_int_eq(cJSON_GetArraySize(jp(doc, "warnings")), 1); /* model2's wrapper only */
    cJSON_Delete(doc);
    pt2_package_free(pkg);

    oo.model = "model3";
    ck_assert_int_eq(
        pt2_package_open_path(&pkg, tu_fixture("multi_model.pt2", path, sizeof(path)), &oo, &err),
        PT2_ERR_NOT_FOUND);
    ck_assert_ptr_null(pkg);
    ck_assert_str_eq(err.message,
                     "no model 'model3' in the package; available models: model, model2");
    /* an exported program is a model by its name too */
    oo.model = "model";
    ck_assert_int_eq(pt2_package_open_path(
                         &pkg, tu_fixture("export_program.pt2", path, sizeof(path)), &oo, &err),
                     PT2_OK);
    ck_assert_int_eq(pt2_package_to_json(pkg, PT2_JSON_DEFAULT, &doc, &err), PT2_OK);
    ck_assert_int_eq(cJSON_GetArraySize(jp(doc, "metadata.exported_programs")), 1);
    cJSON_Delete(doc);
    pt2_package_free(pkg);
    oo.model = "mod";
    memset(&err, 0, sizeof(err));
    ck_assert_int_eq(pt2_package_open_path(
                         &pkg, tu_fixture("export_program.pt2", path, sizeof(path)), &oo, &err),
                     PT2_ERR_NOT_FOUND);
    ck_assert_str_eq(err.message, "no model 'mod' in the package; available models: model");
}
END_TEST

START_TEST(test_layout_schema_820_dtypes)
{
    cJSON *doc = doc_of("export_program_v820.pt2", PT2_JSON_DEFAULT);

    ck_assert_str_eq(js(doc, "metadata.exported_programs.0.inputs.0.dtype"), "float8_e8m0fnu");
    ck_assert_str_eq(js(doc, "metadata.exported_programs.0.inputs.1.dtype"), "uint64");
    ck_assert(cJSON_IsNull(jp(doc, "metadata.exported_programs.0.outputs.0.dtype")));
    ck_assert_int_eq((int)jnum(doc, "metadata.exported_programs.0.outputs.0.dtype_code"), 36);
    ck_assert_ptr_null(jp(doc, "metadata.exported_programs.0.inputs.0.dtype_code"));
    ck_assert(warned(doc, "output 'linear' has dtype code 36, which no export schema this "
                          "reader knows names"));
    cJSON_Delete(doc);
}
END_TEST

/* What the stub wrappers of the older fixtures (build.py wrapper_cpp()) give. */
#define STUB_WRAPPER_WARNING                                                                       \
    "no AOTInductor model constructor or I/O table found in the wrapper source of model 'model'"

START_TEST(test_cuda_v8_document)
{
    cJSON *doc = doc_of("cuda_sm90a_v8.pt2", PT2_JSON_DEFAULT);

    ck_assert_str_eq(js(doc, "arch.cuda_compute_capability"), "9.0");
    ck_assert_str_eq(js(doc, "arch.cuda_gpu_description"),
                     "Hopper (GH100): H100, H200, H800, H20, GH200");
    ck_assert_str_eq(js(doc, "arch.cpu_description"),
                     "x86-64 Linux shared object, AVX-512 (avx512f, avx512dq, avx512vl, "
                     "avx512bw, fma), -march=native");
    ck_assert_str_eq(js(doc, "arch.device_key"), "cuda");
    ck_assert_int_eq(cJSON_GetArraySize(jp(doc, "arch.cuda_targets")), 1);
    ck_assert_str_eq(js(doc, "arch.cuda_targets.0"), "sm_90a");
    ck_assert_int_eq(cJSON_GetArraySize(jp(doc, "arch.kernels")), 2);
    ck_assert_str_eq(js(doc, "arch.kernels.0.variant"), "a");
    ck_assert_int_eq((int)jnum(doc, "arch.kernels.0.abi_version"), 8);
    ck_assert_str_eq(js(doc, "arch.kernels.0.toolkit"), "13.0");
    ck_assert_str_eq(js(doc, "arch.hosts.0.machine"), "x86_64");
    ck_assert_str_eq(js(doc, "arch.cpu_isa.isa"), "AVX512");
    ck_assert_str_eq(js(doc, "arch.cpu_isa.source"), "metadata");
    ck_assert_str_eq(js(doc, "arch.cpu_isa.march"), "native");
    ck_assert_str_eq(js(doc, "metadata.model"), "SegmentationNet");
    ck_assert_str_eq(js(doc, "metadata.source"), "extra/model_metadata.json");
    ck_assert_str_eq(js(doc, "metadata.inputs.0.name"), "image");
    ck_assert_str_eq(js(doc, "metadata.inputs.0.shape.0"), "B");
    ck_assert_int_eq((int)jnum(doc, "metadata.inputs.0.shape.1"), 3);
    ck_assert_str_eq(js(doc, "metadata.inputs.0.shape_description"), "(B, 3, 512, 512)");
    ck_assert_int_eq((int)jnum(doc, "metadata.inputs.0.ndim"), 4);
    ck_assert_int_eq((int)jnum(doc, "metadata.inputs.0.fixed_shape.2"), 512);
    ck_assert_str_eq(js(doc, "metadata.outputs.0.name"), "mask");
    ck_assert_str_eq(js(doc, "metadata.raw.framework"), "torch 2.9");
    ck_assert_str_eq(js(doc, "metadata.aoti.AOTI_COMPUTE_CAPABILITY"), "90");
    ck_assert_str_eq(js(doc, "package.prefix"), "cuda_sm90a_v8/");
    ck_assert_str_eq(js(doc, "package.layout"), "torch>=2.8");
    ck_assert_str_eq(js(doc, "package.archive_format"), "pt2");
    ck_assert_str_eq(js(doc, "package.data_version"), "6");
    ck_assert_str_eq(js(doc, "package.byteorder"), "little");
    ck_assert(cJSON_IsTrue(jp(doc, "package.zip64")));
    ck_assert_int_eq((int)jnum(doc, "package.entries"), 12);
    ck_assert_int_eq(cJSON_GetArraySize(jp(doc, "models")), 1);
    ck_assert_str_eq(js(doc, "models.0.name"), "model");
    /* the fixture's wrapper is a stub without a model constructor: said, not guessed */
    ck_assert_int_eq(cJSON_GetArraySize(jp(doc, "warnings")), 1);
    ck_assert_str_eq(js(doc, "warnings.0"), STUB_WRAPPER_WARNING);
    ck_assert(cJSON_IsNull(jp(doc, "models.0.specs_source")));
    ck_assert(jnum(doc, "bytes_read") > 0 && jnum(doc, "bytes_read") < 1024 * 1024);
    cJSON_Delete(doc);
}
END_TEST

START_TEST(test_legacy_v7_document)
{
    cJSON *doc = doc_of("cuda_sm80_v7_legacy.pt2", PT2_JSON_DEFAULT);

    ck_assert_str_eq(js(doc, "arch.cuda_compute_capability"), "8.0");
    ck_assert_str_eq(js(doc, "arch.cuda_targets.0"), "sm_80");
    ck_assert_int_eq((int)jnum(doc, "arch.kernels.0.abi_version"), 7);
    ck_assert_str_eq(js(doc, "arch.kernels.0.toolkit"), "12.4");
    ck_assert_str_eq(js(doc, "package.layout"), "torch<=2.7");
    ck_assert(cJSON_IsNull(jp(doc, "package.prefix")));
    ck_assert_str_eq(js(doc, "package.version"), "0");
    ck_assert(cJSON_IsFalse(jp(doc, "package.zip64")));
    ck_assert_str_eq(js(doc, "metadata.source"), "extra_files/model_metadata.json");
    /* null and -1 both mean a dynamic dim without a name */
    ck_assert(cJSON_IsNull(jp(doc, "metadata.inputs.0.shape.0")));
    ck_assert_str_eq(js(doc, "metadata.inputs.0.shape_description"), "(?, 3, 512, 512)");
    cJSON_Delete(doc);
}
END_TEST

START_TEST(test_oip_view)
{
    cJSON *doc = doc_of("cuda_sm90a_v8.pt2", PT2_JSON_OIP);

    ck_assert_str_eq(js(doc, "metadata.inputs.0.datatype"), "FP32");
    ck_assert_int_eq((int)jnum(doc, "metadata.inputs.0.shape.0"), -1);
    ck_assert_int_eq((int)jnum(doc, "metadata.inputs.0.shape.3"), 512);
    /* The protocol's $metadata_model_response: a compiled package is pytorch_aoti. */
    ck_assert_str_eq(js(doc, "metadata.name"), "SegmentationNet");
    ck_assert_str_eq(js(doc, "metadata.platform"), "pytorch_aoti");
    ck_assert_ptr_null(jp(doc, "metadata.model"));
    ck_assert_ptr_null(jp(doc, "metadata.raw"));
    cJSON_Delete(doc);
}
END_TEST

/* The metadata member alone in the OIP view (GET /v1/metadata?view=oip) as a string. */
static char *oip_metadata(const char *fixture)
{
    struct pt2_error err = {0};
    pt2_package *pkg = open_fixture(fixture);
    cJSON *doc = NULL;
    char *s;

    ck_assert_int_eq(pt2_package_metadata_json(pkg, PT2_JSON_OIP, &doc, &err), PT2_OK);
    s = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    pt2_package_free(pkg);
    return s;
}

START_TEST(test_oip_metadata_response)
{
    char *s = oip_metadata("export_program.pt2");
    cJSON *doc;

    /* Exactly the protocol's members; an exported program only runs through torch.export. */
    ck_assert_str_eq(s, "{\"name\":\"SegmentationNet\",\"platform\":\"pytorch_export\","
                        "\"inputs\":[{\"name\":\"image\",\"datatype\":\"FP32\",\"shape\":[-1,3,512,"
                        "512]},{\"name\":\"scale\",\"datatype\":\"FP32\",\"shape\":[-1]}],"
                        "\"outputs\":[{\"name\":\"mask\",\"datatype\":\"FP32\",\"shape\":[-1,1,"
                        "512,512]}]}");
    cJSON_free(s);

    /* bfloat16 and float8 inputs and an output of unknown dtype are left out, each said. */
    s = oip_metadata("cuda_check_functions_v8.pt2");
    ck_assert_str_eq(s,
                     "{\"name\":\"cuda_check_functions_v8\",\"platform\":\"pytorch_aoti\","
                     "\"inputs\":[{\"name\":\"arg2_1\",\"datatype\":\"INT64\",\"shape\":[4]},"
                     "{\"name\":\"arg3_1\",\"datatype\":\"BOOL\",\"shape\":[8,7]},{\"name\":"
                     "\"arg4_1\",\"datatype\":\"FP16\",\"shape\":[-1]}],\"outputs\":[],"
                     "\"warnings\":[\"input 'arg0_1' is left out of the OIP view: dtype bfloat16 "
                     "has no Open Inference Protocol datatype\",\"input 'arg1_1' is left out of "
                     "the OIP view: dtype float8_e4m3fn has no Open Inference Protocol "
                     "datatype\",\"output 'output0' is left out of the OIP view: its dtype is "
                     "not recorded and its shape is not recorded\",\"output 'output1' is left "
                     "out of the OIP view: its dtype is not recorded and its shape is not "
                     "recorded\"]}");
    cJSON_free(s);
    /* ... and in the whole document, its warnings carry them too. */
    doc = doc_of("cuda_check_functions_v8.pt2", PT2_JSON_OIP);
    ck_assert_int_eq(cJSON_GetArraySize(jp(doc, "warnings")), 9);
    ck_assert_str_eq(js(doc, "warnings.1"), "input 'arg0_1' is left out of the OIP view: dtype "
                                            "bfloat16 has no Open Inference Protocol datatype");
    /* A model's own specs in the OIP view: left out the same way, said per model. */
    ck_assert_int_eq(cJSON_GetArraySize(jp(doc, "models.0.inputs")), 3);
    ck_assert_str_eq(js(doc, "models.0.inputs.2.datatype"), "FP16");
    ck_assert_str_eq(js(doc, "warnings.5"), "model 'model' input 'arg0_1' is left out of the OIP "
                                            "view: dtype bfloat16 has no Open Inference Protocol "
                                            "datatype");
    cJSON_Delete(doc);
}
END_TEST

START_TEST(test_scheduling_member)
{
    static const char *const fixtures[] = {"cuda_sm90a_v8.pt2", "cpu_x86_64.pt2", "rocm_gfx90a.pt2",
                                           "export_program.pt2"};
    struct pt2_error err = {0};
    size_t i;

    /* Asked for, the node affinity is the one pt2_package_node_affinity gives. */
    for (i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
        pt2_package *pkg = open_fixture(fixtures[i]);
        cJSON *doc = doc_of(fixtures[i], PT2_JSON_AFFINITY), *aff = NULL;

        ck_assert_int_eq(pt2_package_node_affinity(pkg, &aff, NULL, &err), PT2_OK);
        ck_assert_msg(cJSON_Compare(jp(doc, "scheduling.node_affinity"), aff, 1), "%s",
                      fixtures[i]);
        ck_assert_int_eq(cJSON_GetArraySize(jp(doc, "scheduling")), 1);
        cJSON_Delete(aff);
        cJSON_Delete(doc);
        pt2_package_free(pkg);
    }
}
END_TEST

/* Without PT2_JSON_AFFINITY (the default): the same document less `scheduling`, also in
 * the OIP view. */
START_TEST(test_no_affinity_flag)
{
    static const char *const fixtures[] = {"cuda_sm90a_v8.pt2", "cpu_x86_64.pt2", "rocm_gfx90a.pt2",
                                           "export_program.pt2"};
    static const unsigned views[] = {PT2_JSON_DEFAULT, PT2_JSON_OIP};

    for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++)
        for (size_t v = 0; v < 2; v++) {
            cJSON *full = doc_of(fixtures[i], views[v] | PT2_JSON_AFFINITY);
            cJSON *lean = doc_of(fixtures[i], views[v]);

            ck_assert_ptr_nonnull(cJSON_GetObjectItemCaseSensitive(full, "scheduling"));
            ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(lean, "scheduling"));
            ck_assert_int_eq(cJSON_GetArraySize(lean), cJSON_GetArraySize(full) - 1);
            cJSON_DeleteItemFromObjectCaseSensitive(full, "scheduling");
            ck_assert_msg(cJSON_Compare(full, lean, 1), "%s view %u", fixtures[i], views[v]);
            cJSON_Delete(full);
            cJSON_Delete(lean);
        }
}
END_TEST

START_TEST(test_fatbin_targets_and_verdicts)
{
    cJSON *doc = doc_of("cuda_fatbin_multi.pt2", PT2_JSON_DEFAULT);
    const char *want[] = {"sm_75",  "sm_80",       "sm_90a",    "sm_100f",
                          "sm_120", "compute_120", "compute_90"};
    char reason[512];

    ck_assert_int_eq(cJSON_GetArraySize(jp(doc, "arch.cuda_targets")), 7);
    for (int i = 0; i < 7; i++) {
        char path[64];
        snprintf(path, sizeof(path), "arch.cuda_targets.%d", i);
        ck_assert_str_eq(js(doc, path), want[i]);
    }
    ck_assert_str_eq(js(doc, "arch.kernels.3.variant"), "f");
    ck_assert_str_eq(js(doc, "arch.kernels.5.kind"), "ptx");
    ck_assert_str_eq(js(doc, "arch.kernels.5.ptx_isa"), "9.0");
    ck_assert_str_eq(js(doc, "arch.kernels.5.compression"), "zstd");
    cJSON_Delete(doc);

    ck_assert_int_eq(verdict("cuda_fatbin_multi.pt2", "L4", NULL, NULL, 0), PT2_COMPATIBLE);
    ck_assert_int_eq(verdict("cuda_fatbin_multi.pt2", "H100", NULL, NULL, 0), PT2_COMPATIBLE);
    ck_assert_int_eq(verdict("cuda_fatbin_multi.pt2", "B300", NULL, NULL, 0), PT2_COMPATIBLE);
    ck_assert_int_eq(verdict("cuda_fatbin_multi.pt2", "11.0", NULL, reason, sizeof(reason)),
                     PT2_COMPATIBLE_PTX_JIT);
    /* CUDA 13 cubins and PTX 9.0 need a CUDA 13 driver */
    ck_assert_int_eq(verdict("cuda_fatbin_multi.pt2", "H100", "12.4", NULL, 0), PT2_INCOMPATIBLE);
}
END_TEST

START_TEST(test_sm90a_verdict_messages)
{
    char reason[512];

    ck_assert_int_eq(verdict("cuda_sm90a_v8.pt2", "H100", NULL, reason, sizeof(reason)),
                     PT2_COMPATIBLE);
    ck_assert_int_eq(verdict("cuda_sm90a_v8.pt2", "A100", NULL, reason, sizeof(reason)),
                     PT2_INCOMPATIBLE);
    ck_assert_str_eq(reason, "kernels are sm_90a only; NVIDIA A100 is 8.0");
    ck_assert_int_eq(verdict("cuda_sm90a_v8.pt2", "sm_100", NULL, NULL, 0), PT2_INCOMPATIBLE);
    ck_assert_int_eq(verdict("cuda_sm80_v7_legacy.pt2", "8.6", NULL, NULL, 0), PT2_COMPATIBLE);
    ck_assert_int_eq(verdict("cuda_sm80_v7_legacy.pt2", "9.0", NULL, NULL, 0), PT2_INCOMPATIBLE);
}
END_TEST

START_TEST(test_multi_model_worst_verdict)
{
    cJSON *doc = doc_of("multi_model.pt2", PT2_JSON_DEFAULT);
    char reason[512];

    ck_assert_int_eq(cJSON_GetArraySize(jp(doc, "models")), 2);
    ck_assert_str_eq(js(doc, "models.0.name"), "model");
    ck_assert_str_eq(js(doc, "models.1.name"), "model2");
    ck_assert_str_eq(js(doc, "models.1.targets.0"), "sm_80");
    cJSON_Delete(doc);
    ck_assert_int_eq(verdict("multi_model.pt2", "H100", NULL, reason, sizeof(reason)),
                     PT2_INCOMPATIBLE);
    ck_assert_str_eq(reason, "model 'model2': kernels are sm_80 only; NVIDIA H100 is 9.0");
}
END_TEST

START_TEST(test_embedded_kernels)
{
    cJSON *doc = doc_of("cuda_embedded_symbols.pt2", PT2_JSON_DEFAULT);

    ck_assert_str_eq(js(doc, "arch.kernels.0.container"), "so-symbol");
    ck_assert_str_eq(js(doc, "arch.kernels.0.symbol"), "triton_poi_fused_0");
    ck_assert_str_eq(js(doc, "arch.kernels.0.target"), "sm_90a");
    ck_assert_str_eq(js(doc, "arch.kernels.1.target"), "sm_100a");
    cJSON_Delete(doc);

    doc = doc_of("cuda_embedded.pt2", PT2_JSON_DEFAULT);
    ck_assert_str_eq(js(doc, "arch.kernels.0.container"), "so-fatbin");
    ck_assert_str_eq(js(doc, "arch.cuda_targets.0"), "sm_80");
    cJSON_Delete(doc);
}
END_TEST

START_TEST(test_rocm_and_xpu)
{
    cJSON *doc = doc_of("rocm_gfx90a.pt2", PT2_JSON_DEFAULT);

    ck_assert(cJSON_IsNull(jp(doc, "arch.cuda_compute_capability")));
    ck_assert_str_eq(js(doc, "arch.amd_targets.0"), "gfx90a:xnack-");
    ck_assert_str_eq(js(doc, "arch.kernels.0.gfx"), "gfx90a");
    cJSON_Delete(doc);
    ck_assert_int_eq(verdict("rocm_gfx90a.pt2", "gfx90a", NULL, NULL, 0), PT2_COMPATIBLE);
    ck_assert_int_eq(verdict("rocm_gfx90a.pt2", "H100", NULL, NULL, 0), PT2_INCOMPATIBLE);
    ck_assert_int_eq(verdict("xpu_spv.pt2", "H100", NULL, NULL, 0), PT2_INCOMPATIBLE);
}
END_TEST

START_TEST(test_cpu_packages)
{
    pt2_package *pkg = open_fixture("cpu_x86_64.pt2");
    struct pt2_error err = {0};
    struct pt2_verdict_result r;
    const char *avx2[] = {"sse4_2", "avx", "avx2", "fma"};
    const char *avx512[] = {"avx2", "fma", "avx512f", "avx512dq", "avx512vl", "avx512bw"};
    cJSON *doc;

    ck_assert_int_eq(pt2_package_check_cpu(pkg, "x86_64", avx2, 4, &r, &err), PT2_OK);
    ck_assert_int_eq(r.verdict, PT2_INCOMPATIBLE);
    ck_assert_int_eq(pt2_package_check_cpu(pkg, "x86_64", avx512, 6, &r, &err), PT2_OK);
    ck_assert_int_eq(r.verdict, PT2_COMPATIBLE);
    ck_assert_int_eq(pt2_package_check_cpu(pkg, "aarch64", avx512, 6, &r, &err), PT2_OK);
    ck_assert_int_eq(r.verdict, PT2_INCOMPATIBLE);
    /* A CPU-only package needs no GPU. */
    ck_assert_int_eq(verdict("cpu_x86_64.pt2", "H100", NULL, NULL, 0), PT2_COMPATIBLE);
    pt2_package_free(pkg);

    doc = doc_of("cpu_avx2_cmd.pt2", PT2_JSON_DEFAULT);
    ck_assert_str_eq(js(doc, "arch.cpu_isa.isa"), "AVX2");
    ck_assert_str_eq(js(doc, "arch.cpu_isa.source"), "compile_cmd");
    ck_assert_str_eq(js(doc, "arch.cpu_isa.march"), "haswell");
    cJSON_Delete(doc);
    doc = doc_of("cpu_aarch64.pt2", PT2_JSON_DEFAULT);
    ck_assert_str_eq(js(doc, "arch.hosts.0.machine"), "aarch64");
    cJSON_Delete(doc);
    doc = doc_of("cpu_s390x.pt2", PT2_JSON_DEFAULT);
    ck_assert_str_eq(js(doc, "arch.hosts.0.machine"), "s390x");
    ck_assert_str_eq(js(doc, "arch.hosts.0.endianness"), "big");
    cJSON_Delete(doc);
}
END_TEST

START_TEST(test_exported_program)
{
    cJSON *doc = doc_of("export_program.pt2", PT2_JSON_DEFAULT);

    ck_assert_int_eq(cJSON_GetArraySize(jp(doc, "models")), 0);
    ck_assert_str_eq(js(doc, "metadata.exported_programs.0.name"), "model");
    ck_assert_str_eq(js(doc, "metadata.exported_programs.0.inputs.0.name"), "x");
    ck_assert_str_eq(js(doc, "metadata.exported_programs.0.inputs.0.shape.0"), "s0");
    ck_assert_int_eq((int)jnum(doc, "metadata.exported_programs.0.inputs.0.dynamic_dims.0.min"), 1);
    ck_assert_int_eq((int)jnum(doc, "metadata.exported_programs.0.inputs.0.dynamic_dims.0.max"),
                     64);
    ck_assert_str_eq(js(doc, "metadata.exported_programs.0.inputs.1.dtype"), "bool");
    ck_assert_str_eq(js(doc, "metadata.exported_programs.0.outputs.0.shape_description"),
                     "(s0, 10)");
    cJSON_Delete(doc);
    ck_assert_int_eq(verdict("export_program.pt2", "H100", NULL, NULL, 0), PT2_COMPATIBLE);
}
END_TEST

/*
 * pt2_package_validate on `inputs_json` ({name: [dims]}), as one comparable text:
 * "valid" or "invalid", then one line per error ("E ...") and per warning ("W ...").
 * Fails the test when the call fails or the answer is not of the documented shape.
 */
static void validation(const pt2_package *pkg, const char *inputs_json, char *buf, size_t len)
{
    struct pt2_error err = {0};
    cJSON *inputs = cJSON_Parse(inputs_json), *doc = NULL;
    const cJSON *it, *valid, *errors, *warnings;
    size_t used;
    int rc;

    ck_assert_ptr_nonnull(inputs);
    rc = pt2_package_validate(pkg, inputs, &doc, &err);
    ck_assert_msg(rc == PT2_OK, "validate %s: %d %s", inputs_json, rc, err.message);
    valid = cJSON_GetObjectItemCaseSensitive(doc, "valid");
    errors = cJSON_GetObjectItemCaseSensitive(doc, "errors");
    warnings = cJSON_GetObjectItemCaseSensitive(doc, "warnings");
    ck_assert(cJSON_IsBool(valid) && cJSON_IsArray(errors) && cJSON_IsArray(warnings));
    /* valid exactly when there is no error */
    ck_assert_int_eq(cJSON_IsTrue(valid), cJSON_GetArraySize(errors) == 0);
    snprintf(buf, len, "%s", cJSON_IsTrue(valid) ? "valid" : "invalid");
    cJSON_ArrayForEach(it, errors)
    {
        ck_assert(cJSON_IsObject(it));
        used = strlen(buf);
        snprintf(buf + used, len - used, "\nE %s", pt2_json_str(it, "message"));
    }
    cJSON_ArrayForEach(it, warnings)
    {
        ck_assert(cJSON_IsString(it));
        used = strlen(buf);
        snprintf(buf + used, len - used, "\nW %s", it->valuestring);
    }
    ck_assert_uint_lt(strlen(buf), len - 1);
    cJSON_Delete(doc);
    cJSON_Delete(inputs);
}

START_TEST(test_validate)
{
    pt2_package *pkg = open_fixture("cuda_sm90a_v8.pt2");
    struct pt2_error err = {0};
    cJSON *notobj = cJSON_Parse("[1, 2]"), *doc = NULL;
    char got[2048];

    validation(pkg, "{\"image\": [8, 3, 512, 512], \"scale\": [8]}", got, sizeof(got));
    ck_assert_str_eq(got, "valid");
    validation(pkg, "{\"image\": [8, 4, 512, 512], \"scale\": [8]}", got, sizeof(got));
    ck_assert_str_eq(got, "invalid\nE input 'image' axis 1: expected 3, got 4");
    validation(pkg, "{\"image\": [8, 3, 512, 512], \"scale\": [4]}", got, sizeof(got));
    ck_assert_str_eq(got, "invalid\nE input 'scale' axis 0: dynamic dim 'B' is 8 in input 'image' "
                          "but 4 here");
    /* every violation, in order */
    validation(pkg, "{\"image\": [8, 4, 512, 511], \"scale\": [4]}", got, sizeof(got));
    ck_assert_str_eq(got, "invalid\nE input 'image' axis 1: expected 3, got 4"
                          "\nE input 'image' axis 3: expected 512, got 511"
                          "\nE input 'scale' axis 0: dynamic dim 'B' is 8 in input 'image' but 4 "
                          "here");
    ck_assert_int_eq(pt2_package_validate(pkg, notobj, &doc, &err), PT2_ERR_INVALID);
    ck_assert_ptr_null(doc);
    cJSON_Delete(notobj);
    pt2_package_free(pkg);
}
END_TEST

static int open_code(const char *name, char *msg, size_t len)
{
    char path[256];
    pt2_package *pkg = NULL;
    struct pt2_error err = {0};
    int rc = pt2_package_open_path(&pkg, tu_fixture(name, path, sizeof(path)), NULL, &err);

    snprintf(msg, len, "%s", err.message);
    pt2_package_free(pkg);
    return rc;
}

START_TEST(test_broken_packages)
{
    char msg[PT2_ERROR_MSG_MAX];
    pt2_package *pkg;
    struct pt2_error err = {0};
    cJSON *doc = NULL;

    ck_assert_int_eq(open_code("broken_not_zip.pt2", msg, sizeof(msg)), PT2_ERR_NOT_ZIP);
    ck_assert_int_eq(open_code("broken_truncated.pt2", msg, sizeof(msg)), PT2_ERR_TRUNCATED);
    ck_assert_int_eq(open_code("broken_cd_corrupt.pt2", msg, sizeof(msg)), PT2_ERR_TRUNCATED);
    ck_assert_int_eq(open_code("broken_no_archive_format.pt2", msg, sizeof(msg)), PT2_ERR_NOT_PT2);
    ck_assert_str_eq(msg, "no archive_format entry and no data/aotinductor/ or models/ folder");
    ck_assert_int_eq(open_code("does_not_exist.pt2", msg, sizeof(msg)), PT2_ERR_NOT_FOUND);

    /* Bad user metadata is a warning: kernels, library and verdicts are still answered. */
    pkg = open_fixture("broken_bad_json.pt2");
    ck_assert_int_eq(pt2_package_to_json(pkg, 0, &doc, &err), PT2_OK);
    ck_assert_str_eq(js(doc, "arch.cuda_targets.0"), "sm_90a");
    ck_assert_str_eq(js(doc, "warnings.1"), "extra/model_metadata.json: invalid JSON near byte 25 "
                                            "(ignored: kernels, libraries and verdicts do not "
                                            "depend on it)");
    cJSON_Delete(doc);
    doc = NULL;
    pt2_package_free(pkg);

    pkg = open_fixture("broken_deep_json.pt2");
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_package_metadata_json(pkg, 0, &doc, &err), PT2_OK);
    cJSON_Delete(doc);
    doc = NULL;
    pt2_package_free(pkg);

    /* Bad AOTI metadata (what the code runs on): arch still answers, the rest fails. */
    pkg = open_fixture("broken_bad_aoti_json.pt2");
    ck_assert_int_eq(pt2_package_arch_json(pkg, 0, &doc, &err), PT2_OK);
    ck_assert_str_eq(js(doc, "cuda_targets.0"), "sm_90a");
    cJSON_Delete(doc);
    doc = NULL;
    ck_assert_int_eq(pt2_package_to_json(pkg, 0, &doc, &err), PT2_ERR_METADATA);
    ck_assert_str_eq(err.message, "data/aotinductor/model/"
                                  "cxtjlyo2lrgvtosbhc2v5pkfqhu2nl63qw7ldqnjdke6sregj6yv."
                                  "wrapper_metadata.json: invalid JSON near byte 54");
    ck_assert_ptr_null(doc);
    pt2_package_free(pkg);

    /* A corrupt .so is a warning, not a failure. */
    doc = doc_of("broken_bad_elf.pt2", 0);
    ck_assert_int_eq(cJSON_GetArraySize(jp(doc, "warnings")), 2);
    ck_assert_ptr_nonnull(strstr(js(doc, "warnings.0"), ".wrapper.so: ELF section header table"));
    ck_assert_str_eq(js(doc, "warnings.1"), STUB_WRAPPER_WARNING);
    ck_assert_str_eq(js(doc, "arch.cuda_targets.0"), "sm_90a");
    cJSON_Delete(doc);
}
END_TEST

START_TEST(test_rezipped_deflate_matches_original)
{
    cJSON *doc = doc_of("rezipped_deflate.pt2", PT2_JSON_DEFAULT);

    ck_assert_str_eq(js(doc, "arch.cuda_compute_capability"), "9.0");
    ck_assert_str_eq(js(doc, "arch.cuda_targets.0"), "sm_90a");
    ck_assert_str_eq(js(doc, "arch.hosts.0.machine"), "x86_64");
    ck_assert_str_eq(js(doc, "package.prefix"), "model/");
    ck_assert_str_eq(js(doc, "metadata.model"), "SegmentationNet");
    ck_assert_int_eq(cJSON_GetArraySize(jp(doc, "warnings")), 1);
    ck_assert_str_eq(js(doc, "warnings.0"), STUB_WRAPPER_WARNING);
    cJSON_Delete(doc);
}
END_TEST

START_TEST(test_open_fd)
{
    char path[256];
    int fd = open(tu_fixture("cuda_sm90a_v8.pt2", path, sizeof(path)), O_RDONLY);
    pt2_package *pkg = NULL;
    struct pt2_error err = {0};
    struct pt2_open_options opts = {.display_name = "upload.pt2"};
    cJSON *doc = NULL;

    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(pt2_package_open_fd(&pkg, fd, &opts, &err), PT2_OK);
    ck_assert_int_eq(pt2_package_to_json(pkg, 0, &doc, &err), PT2_OK);
    ck_assert_str_eq(js(doc, "package.name"), "upload.pt2");
    ck_assert_str_eq(js(doc, "arch.cuda_targets.0"), "sm_90a");
    /* the descriptor stays open and usable: it is borrowed */
    ck_assert_int_eq((int)lseek(fd, 0, SEEK_SET), 0);
    close(fd);
    cJSON_Delete(doc);
    pt2_package_free(pkg);
}
END_TEST

START_TEST(test_sparse_5gib_reads_under_1mib)
{
    char dir[] = "/tmp/pt2inspXXXXXX", path[512];
    pt2_package *pkg = NULL;
    struct pt2_error err = {0};
    cJSON *doc = NULL;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/huge.pt2", dir);
    ck_assert_int_eq(bigzip_write(path, 5ull << 30, "tests/fixtures/bins/host_so_cpu/libx86_64.so",
                                  "tests/fixtures/bins/cubin_cuda13/sm_90a.cubin"),
                     0);
    ck_assert_int_eq(pt2_package_open_path(&pkg, path, NULL, &err), PT2_OK);
    ck_assert_int_eq(pt2_package_to_json(pkg, 0, &doc, &err), PT2_OK);
    ck_assert_str_eq(js(doc, "arch.cuda_targets.0"), "sm_90a");
    ck_assert(jnum(doc, "package.size") > 5.0 * 1024 * 1024 * 1024);
    ck_assert_uint_lt(pt2_package_bytes_read(pkg), 1024 * 1024);
    cJSON_Delete(doc);
    pt2_package_free(pkg);
    unlink(path);
    rmdir(dir);
}
END_TEST

/* Write a stored zip of (name, text) pairs with libzip; returns the path. */
static const char *make_zip(char *dir, char *path, size_t len, const char *const *pairs, size_t n)
{
    zip_t *za;
    int zerr = 0;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, len, "%s/t.pt2", dir);
    za = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &zerr);
    ck_assert_ptr_nonnull(za);
    for (size_t i = 0; i < n; i++) {
        const char *text = pairs[2 * i + 1];
        zip_source_t *src = zip_source_buffer(za, text, strlen(text), 0);
        zip_int64_t idx = zip_file_add(za, pairs[2 * i], src, ZIP_FL_ENC_UTF_8);
        ck_assert_int_ge(idx, 0);
        zip_set_file_compression(za, (zip_uint64_t)idx, ZIP_CM_STORE, 0);
    }
    ck_assert_int_eq(zip_close(za), 0);
    return path;
}

static void remove_zip(const char *dir, const char *path)
{
    unlink(path);
    rmdir(dir);
}

static const char GOOD_META[] =
    "{\"model\": \"Net\", \"inputs\": [{\"name\": \"x\", \"shape\": [\"B\", 3]}]}";

/* A broken lower-ranked copy must not hide a good extra/ one, whatever the order. */
START_TEST(test_metadata_rank_not_order)
{
    const char *before[] = {"archive_format",
                            "pt2",
                            "extra_files/model_metadata.json",
                            "{\"model\": [",
                            "extra/model_metadata.json",
                            GOOD_META};
    const char *after[] = {"archive_format",
                           "pt2",
                           "extra/model_metadata.json",
                           GOOD_META,
                           "extra_files/model_metadata.json",
                           "{\"model\": ["};
    const char *const *cases[] = {before, after};

    for (int c = 0; c < 2; c++) {
        char dir[] = "/tmp/pt2rankXXXXXX", path[256];
        pt2_package *pkg = NULL;
        struct pt2_error err = {0};
        cJSON *doc = NULL;

        make_zip(dir, path, sizeof(path), cases[c], 3);
        ck_assert_int_eq(pt2_package_open_path(&pkg, path, NULL, &err), PT2_OK);
        ck_assert_msg(pt2_package_metadata_json(pkg, 0, &doc, &err) == PT2_OK, "%s", err.message);
        ck_assert_str_eq(js(doc, "model"), "Net");
        ck_assert_str_eq(js(doc, "source"), "extra/model_metadata.json");
        cJSON_Delete(doc);
        pt2_package_free(pkg);
        remove_zip(dir, path);
    }
}
END_TEST

/* The only copy being broken is a warning, and model_metadata.json counts anywhere. */
START_TEST(test_metadata_anywhere_and_sole_copy_errors)
{
    const char *inmodel[] = {"archive_format", "pt2", "data/aotinductor/model/model_metadata.json",
                             GOOD_META};
    const char *broken[] = {"archive_format", "pt2", "extra_files/model_metadata.json",
                            "{\"model\": ["};
    char dir[] = "/tmp/pt2anyXXXXXX", dir2[] = "/tmp/pt2anyXXXXXX", path[256], path2[256];
    pt2_package *pkg = NULL;
    struct pt2_error err = {0};
    cJSON *doc = NULL;

    make_zip(dir, path, sizeof(path), inmodel, 2);
    ck_assert_int_eq(pt2_package_open_path(&pkg, path, NULL, &err), PT2_OK);
    ck_assert_int_eq(pt2_package_metadata_json(pkg, 0, &doc, &err), PT2_OK);
    ck_assert_str_eq(js(doc, "model"), "Net");
    ck_assert_str_eq(js(doc, "source"), "data/aotinductor/model/model_metadata.json");
    cJSON_Delete(doc);
    doc = NULL;
    pt2_package_free(pkg);
    pkg = NULL;
    remove_zip(dir, path);

    /* the only copy broken: a warning, and no user specs */
    make_zip(dir2, path2, sizeof(path2), broken, 2);
    ck_assert_int_eq(pt2_package_open_path(&pkg, path2, NULL, &err), PT2_OK);
    ck_assert_int_eq(pt2_package_to_json(pkg, 0, &doc, &err), PT2_OK);
    ck_assert_ptr_nonnull(strstr(js(doc, "warnings.0"), "extra_files/model_metadata.json: "));
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(jp(doc, "metadata"), "model")));
    cJSON_Delete(doc);
    pt2_package_free(pkg);
    remove_zip(dir2, path2);
}
END_TEST

/* Many capped metadata documents: what the package retains stays bounded. */
START_TEST(test_many_metadata_documents_are_budgeted)
{
    enum { N = 220, PAD = 45000 };
    static char names[N][96], text[PAD + 64];
    const char *pairs[2 * (N + 1)];
    char dir[] = "/tmp/pt2budXXXXXX", path[256];
    pt2_package *pkg = NULL;
    struct pt2_error err = {0};
    cJSON *doc = NULL;

    /* 220 models x 45 KB of metadata = 9.9 MB, over the 8 MiB retention budget */
    snprintf(text, sizeof(text), "{\"AOTI_DEVICE_KEY\": \"cpu\", \"pad\": \"%0*d\"}", PAD, 0);
    pairs[0] = "archive_format";
    pairs[1] = "pt2";
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof(names[i]), "data/aotinductor/m%d/x.wrapper_metadata.json", i);
        pairs[2 * (i + 1)] = names[i];
        pairs[2 * (i + 1) + 1] = text;
    }
    make_zip(dir, path, sizeof(path), pairs, N + 1);
    ck_assert_msg(pt2_package_open_path(&pkg, path, NULL, &err) == PT2_OK, "%s", err.message);
    ck_assert_int_eq(pt2_package_to_json(pkg, 0, &doc, &err), PT2_OK);
    ck_assert_int_eq(cJSON_GetArraySize(jp(doc, "models")), N);
    ck_assert_int_ge(cJSON_GetArraySize(jp(doc, "warnings")), 1);
    ck_assert_ptr_nonnull(strstr(js(doc, "warnings.0"),
                                 "skipped, the package's metadata exceeds 8388608 bytes in total"));
    cJSON_Delete(doc);
    pt2_package_free(pkg);
    remove_zip(dir, path);
}
END_TEST

/* ---- I/O from the AOTI wrapper, legacy torch.export.save, torch.save ---------- */

/*
 * One tensor spec of the document as "name dtype (3, s0[2..512], ?[4..-])":
 * dtype null prints "-", ndim null "unknown"; a dynamic dim is its symbol
 * ("?" when null) and, when it has any, its bounds ("-" for an open end).
 * Fails the test when the fields disagree with each other (ndim vs shape,
 * fixed_shape vs the numbers, dynamic_dims vs the symbols).
 */
static void add(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add(char *buf, size_t len, const char *fmt, ...)
{
    size_t used = strlen(buf);
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
    ck_assert_uint_lt(strlen(buf), len - 1);
}

static void add_bound(char *buf, size_t len, const cJSON *v)
{
    if (cJSON_IsNull(v)) {
        add(buf, len, "-");
        return;
    }
    ck_assert(cJSON_IsNumber(v));
    add(buf, len, "%.0f", v->valuedouble);
}

static void tdesc(const cJSON *t, char *buf, size_t len)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(t, "name");
    const cJSON *dtype = cJSON_GetObjectItemCaseSensitive(t, "dtype");
    const cJSON *ndim = cJSON_GetObjectItemCaseSensitive(t, "ndim");
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(t, "shape");
    const cJSON *dyn = cJSON_GetObjectItemCaseSensitive(t, "dynamic_dims");
    const cJSON *fixed = cJSON_GetObjectItemCaseSensitive(t, "fixed_shape");
    const cJSON *d, *e;
    int i = 0, ndyn = 0;
    char key[16];

    ck_assert(cJSON_IsString(name));
    ck_assert(cJSON_IsString(dtype) || cJSON_IsNull(dtype));
    ck_assert(cJSON_IsArray(dyn) && cJSON_IsObject(fixed));
    add(buf, len, "%s %s", name->valuestring, cJSON_IsString(dtype) ? dtype->valuestring : "-");
    if (cJSON_IsNull(ndim)) {
        ck_assert(cJSON_IsNull(shape));
        ck_assert_int_eq(cJSON_GetArraySize(dyn), 0);
        add(buf, len, " unknown");
        return;
    }
    ck_assert(cJSON_IsNumber(ndim) && cJSON_IsArray(shape));
    ck_assert_int_eq(cJSON_GetArraySize(shape), (int)ndim->valuedouble);
    add(buf, len, " (");
    cJSON_ArrayForEach(d, shape)
    {
        const cJSON *sym = NULL;

        snprintf(key, sizeof(key), "%d", i);
        add(buf, len, "%s", i > 0 ? ", " : "");
        if (cJSON_IsNumber(d)) {
            const cJSON *f = cJSON_GetObjectItemCaseSensitive(fixed, key);
            ck_assert(cJSON_IsNumber(f) && f->valuedouble == d->valuedouble);
            add(buf, len, "%.0f", d->valuedouble);
            i++;
            continue;
        }
        ck_assert(cJSON_IsString(d) || cJSON_IsNull(d));
        ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(fixed, key));
        cJSON_ArrayForEach(e, dyn)
        {
            if ((int)jnum(e, "axis") == i)
                sym = e;
        }
        ck_assert_msg(sym != NULL, "%s: no dynamic_dims entry for axis %d", name->valuestring, i);
        ndyn++;
        if (cJSON_IsString(d))
            ck_assert_str_eq(js(sym, "symbol"), d->valuestring);
        else
            ck_assert(cJSON_IsNull(jp(sym, "symbol")));
        add(buf, len, "%s", cJSON_IsString(d) ? d->valuestring : "?");
        if (!cJSON_IsNull(jp(sym, "min")) || !cJSON_IsNull(jp(sym, "max"))) {
            add(buf, len, "[");
            add_bound(buf, len, jp(sym, "min"));
            add(buf, len, "..");
            add_bound(buf, len, jp(sym, "max"));
            add(buf, len, "]");
        }
        i++;
    }
    ck_assert_int_eq(cJSON_GetArraySize(dyn), ndyn);
    add(buf, len, ")");
}

/* The tensor list at `path`, one tdesc() per line. */
static const char *tlist(const cJSON *doc, const char *path, char *buf, size_t len)
{
    const cJSON *l = jp(doc, path), *t;

    ck_assert_msg(cJSON_IsArray(l), "%s is not an array", path);
    buf[0] = '\0';
    cJSON_ArrayForEach(t, l)
    {
        if (buf[0] != '\0')
            add(buf, len, "\n");
        tdesc(t, buf, len);
    }
    return buf;
}

/* A model size object ("size" of models[i] or exported_programs[i]) as one line. */
static const char *size_desc(const cJSON *doc, const char *path, char *buf, size_t len)
{
    const cJSON *s = jp(doc, path), *row;

    ck_assert_msg(cJSON_IsObject(s), "%s is not an object", path);
    buf[0] = '\0';
    add(buf, len, "%s: constants %.0f declared ", js(s, "source"), jnum(s, "constants"));
    if (cJSON_IsNull(jp(s, "declared")))
        add(buf, len, "-");
    else
        add(buf, len, "%.0f", jnum(s, "declared"));
    add(buf, len, " bytes %.0f elements %.0f p/b/t/f %.0f/%.0f/%.0f/%.0f missing %.0f/%.0f",
        jnum(s, "bytes"), jnum(s, "elements"), jnum(s, "parameters"), jnum(s, "buffers"),
        jnum(s, "tensor_constants"), jnum(s, "folded"), jnum(s, "missing_size"),
        jnum(s, "missing_shape"));
    cJSON_ArrayForEach(row, jp(s, "by_dtype"))
    {
        const cJSON *dt = jp(row, "dtype");
        ck_assert(cJSON_IsString(dt) || cJSON_IsNull(dt));
        add(buf, len, "; %s %.0f %.0f %.0f", cJSON_IsString(dt) ? dt->valuestring : "-",
            jnum(row, "count"), jnum(row, "bytes"), jnum(row, "elements"));
    }
    return buf;
}

/* The document's warnings, one per line. */
static const char *warnings_text(const cJSON *doc, char *buf, size_t len)
{
    const cJSON *w;

    ck_assert(cJSON_IsArray(jp(doc, "warnings")));
    buf[0] = '\0';
    cJSON_ArrayForEach(w, jp(doc, "warnings"))
    {
        ck_assert(cJSON_IsString(w));
        add(buf, len, "%s%s", buf[0] != '\0' ? "\n" : "", w->valuestring);
    }
    return buf;
}

/* Uncompressed size of entry `name` of the zip at `path`, by libzip (not by pt2scope). */
static uint64_t entry_size(const char *path, const char *name)
{
    zip_t *za;
    zip_stat_t st;
    int zerr = 0;

    za = zip_open(path, ZIP_RDONLY, &zerr);
    ck_assert_ptr_nonnull(za);
    zip_stat_init(&st);
    ck_assert_int_eq(zip_stat(za, name, 0, &st), 0);
    zip_discard(za);
    return st.size;
}

#define NAMES_ONLY_CPP                                                                             \
    "data/aotinductor/model/c53zyiuntr2kgkfbagzivbbxvgvxsk35mu2wehk2mirez37bcg3d.cpp"
#define INLINE_CPP                                                                                 \
    "data/aotinductor/model/cbu5ucq6tfuqxoitx6bkcxm365ccjgwzeeijtm5lig5jfmjridcs.wrapper.cpp"
#define CHECKFN_CPP                                                                                \
    "data/aotinductor/model/citknab5ryipynjdfrhjo6p4b4gcn5b3jqzcsrwid3sr2qursqxa.wrapper.cpp"
#define MULTI_CPP                                                                                  \
    "data/aotinductor/model/cgpkqxrdx7j2g4545ua4hrdngw7f3iu2l5g35z7cb5papv7hozrk.wrapper.cpp"
#define MULTI2_CPP                                                                                 \
    "data/aotinductor/model2/cfab7ef742glkagytayb2jj6bhly2tgys4sdvepvawgizbn62m22.wrapper.cpp"
#define OVERCAP_CPP                                                                                \
    "data/aotinductor/model/caealzpet7lbtrtnekkdcbrafu7vf7rixupjerjhbba2htdxuz2w.wrapper.cpp"

#define NAMES_ONLY_IN "arg3_1 - unknown\narg4_1 - unknown"
#define NAMES_ONLY_SIZE                                                                            \
    ": constants 3 declared 3 bytes 8328 elements 2113 p/b/t/f 0/0/0/0 missing 0/0; "              \
    "float32 1 8192 2048; bfloat16 1 128 64; int64 1 8 1"
#define NAMES_ONLY_NOTE                                                                            \
    "W the package records input names but not their shapes: only the names were checked"
#define INLINE_IN "arg1_1 int64 (s0[2..512])\narg2_1 bool (?[2..512], 16)\narg3_1 float32 unknown"
#define INLINE_SIZE                                                                                \
    ": constants 1 declared 1 bytes 4000 elements 1000 p/b/t/f 0/0/0/0 missing 0/0; "              \
    "float32 1 4000 1000"
#define INLINE_NOTE "W the package does not record the shape of 'arg3_1': only its name was checked"

/* torch 2.4: names and constants only, <hash>.cpp in a torch <= 2.7 zip, no user metadata. */
START_TEST(test_wrapper_names_only)
{
    pt2_package *pkg = open_fixture("cpu_names_only_v7.pt2");
    struct pt2_error err = {0};
    cJSON *doc = NULL;
    char got[4096];

    ck_assert_int_eq(pt2_package_to_json(pkg, 0, &doc, &err), PT2_OK);
    ck_assert_str_eq(js(doc, "package.kind"), "aoti");
    ck_assert_str_eq(js(doc, "package.layout"), "torch<=2.7");
    ck_assert_str_eq(js(doc, "metadata.source"), NAMES_ONLY_CPP);
    ck_assert_str_eq(tlist(doc, "metadata.inputs", got, sizeof(got)), NAMES_ONLY_IN);
    ck_assert_str_eq(tlist(doc, "metadata.outputs", got, sizeof(got)), "output0 - unknown");
    ck_assert_int_eq(cJSON_GetArraySize(jp(doc, "models")), 1);
    ck_assert_str_eq(js(doc, "models.0.specs_source"), NAMES_ONLY_CPP);
    ck_assert_str_eq(tlist(doc, "models.0.inputs", got, sizeof(got)), NAMES_ONLY_IN);
    ck_assert_str_eq(size_desc(doc, "models.0.size", got, sizeof(got)),
                     NAMES_ONLY_CPP NAMES_ONLY_SIZE);
    /* the compile command appended to the wrapper is still found at its end */
    ck_assert_str_eq(js(doc, "arch.cpu_isa.isa"), "AVX2");
    ck_assert_str_eq(js(doc, "arch.cpu_isa.source"), "compile_cmd");
    ck_assert_str_eq(warnings_text(doc, got, sizeof(got)),
                     "the wrapper records input names but no dtypes or shapes for model 'model'\n"
                     "the wrapper records output names but no dtypes or shapes for model 'model'");
    cJSON_Delete(doc);

    /* names only: any shape passes, a missing or unknown name does not; said in warnings */
    validation(pkg, "{\"arg3_1\": [8, 32], \"arg4_1\": [1]}", got, sizeof(got));
    ck_assert_str_eq(got, "valid\n" NAMES_ONLY_NOTE);
    validation(pkg, "{\"arg3_1\": [8, 32]}", got, sizeof(got));
    ck_assert_str_eq(got, "invalid\nE missing input 'arg4_1'\n" NAMES_ONLY_NOTE);
    validation(pkg, "{\"arg3_1\": [], \"arg4_1\": [1], \"x\": [2]}", got, sizeof(got));
    ck_assert_str_eq(got,
                     "invalid\nE unknown input 'x' (expected: arg3_1, arg4_1)\n" NAMES_ONLY_NOTE);
    pt2_package_free(pkg);
}
END_TEST

/* The inline-checks package and its deflated re-zip give the same answers. */
static void check_inline_checks(const char *fixture, const char *prefix)
{
    pt2_package *pkg = open_fixture(fixture);
    struct pt2_error err = {0};
    cJSON *doc = NULL;
    char got[4096];

    ck_assert_int_eq(pt2_package_to_json(pkg, 0, &doc, &err), PT2_OK);
    ck_assert_str_eq(js(doc, "package.prefix"), prefix);
    ck_assert_str_eq(js(doc, "package.kind"), "aoti");
    /* the wrapper, never the .kernel.cpp beside it */
    ck_assert_str_eq(js(doc, "metadata.source"), INLINE_CPP);
    ck_assert_str_eq(tlist(doc, "metadata.inputs", got, sizeof(got)), INLINE_IN);
    ck_assert_str_eq(tlist(doc, "metadata.outputs", got, sizeof(got)), "output0 - unknown");
    ck_assert_int_eq(cJSON_GetArraySize(jp(doc, "models")), 1);
    ck_assert_int_eq((int)jnum(doc, "models.0.files"), 5);
    ck_assert_str_eq(js(doc, "models.0.specs_source"), INLINE_CPP);
    ck_assert_str_eq(tlist(doc, "models.0.inputs", got, sizeof(got)), INLINE_IN);
    ck_assert_str_eq(tlist(doc, "models.0.outputs", got, sizeof(got)), "output0 - unknown");
    ck_assert_str_eq(size_desc(doc, "models.0.size", got, sizeof(got)), INLINE_CPP INLINE_SIZE);
    ck_assert_str_eq(js(doc, "arch.cpu_isa.isa"), "AVX512");
    ck_assert_str_eq(js(doc, "arch.cpu_isa.march"), "native");
    ck_assert_str_eq(warnings_text(doc, got, sizeof(got)),
                     "the wrapper records no complete shape for 1 input(s) of model 'model': "
                     "arg3_1\n"
                     "the wrapper records output names but no dtypes or shapes for model 'model'");
    cJSON_Delete(doc);

    validation(pkg, "{\"arg1_1\": [8], \"arg2_1\": [512, 16], \"arg3_1\": [3, 3]}", got,
               sizeof(got));
    ck_assert_str_eq(got, "valid\n" INLINE_NOTE);
    /* every violation: a bound, a bound of an unnamed dim, a fixed size */
    validation(pkg, "{\"arg1_1\": [600], \"arg2_1\": [1, 15], \"arg3_1\": [3]}", got, sizeof(got));
    ck_assert_str_eq(got, "invalid\n"
                          "E input 'arg1_1' axis 0: dynamic dim 's0' must be in [2, 512], got 600\n"
                          "E input 'arg2_1' axis 0: dynamic dim '?' must be in [2, 512], got 1\n"
                          "E input 'arg2_1' axis 1: expected 16, got 15\n" INLINE_NOTE);
    /* an unnamed bounded dim is not tied to s0 */
    validation(pkg, "{\"arg1_1\": [8], \"arg2_1\": [9, 16], \"arg3_1\": []}", got, sizeof(got));
    ck_assert_str_eq(got, "valid\n" INLINE_NOTE);
    validation(pkg, "{\"arg1_1\": [8, 1], \"arg3_1\": []}", got, sizeof(got));
    ck_assert_str_eq(got, "invalid\nE input 'arg1_1': expected 1 dimension (s0), got 2\n"
                          "E missing input 'arg2_1'\n" INLINE_NOTE);
    pt2_package_free(pkg);
}

START_TEST(test_wrapper_inline_checks)
{
    check_inline_checks("cpu_inline_checks_v8.pt2", "cpu_inline_checks_v8/");
}
END_TEST

START_TEST(test_wrapper_inline_checks_rezipped)
{
    check_inline_checks("rezipped_inline_checks.pt2", "model/");
}
END_TEST

/* torch 2.9: one check_input_N function per input; bf16, fp8, int64, bool, fp16. */
START_TEST(test_wrapper_check_functions)
{
    pt2_package *pkg = open_fixture("cuda_check_functions_v8.pt2");
    struct pt2_error err = {0};
    cJSON *doc = NULL;
    char got[4096];
    const char *in = "arg0_1 bfloat16 (s0[2..1024], 10)\n"
                     "arg1_1 float8_e4m3fn (?[2..1024], s1[2..-])\n"
                     "arg2_1 int64 (4)\n"
                     "arg3_1 bool (8, 7)\n"
                     "arg4_1 float16 (?[4..2048])";

    ck_assert_int_eq(pt2_package_to_json(pkg, 0, &doc, &err), PT2_OK);
    ck_assert_str_eq(js(doc, "package.kind"), "aoti");
    ck_assert_str_eq(js(doc, "arch.cuda_targets.0"), "sm_90a");
    ck_assert_str_eq(js(doc, "metadata.source"), CHECKFN_CPP);
    ck_assert_str_eq(tlist(doc, "metadata.inputs", got, sizeof(got)), in);
    ck_assert_str_eq(tlist(doc, "metadata.outputs", got, sizeof(got)),
                     "output0 - unknown\noutput1 - unknown");
    ck_assert_str_eq(js(doc, "models.0.specs_source"), CHECKFN_CPP);
    ck_assert_str_eq(tlist(doc, "models.0.inputs", got, sizeof(got)), in);
    /* dtype 15 is c10's BFloat16; 99 is no dtype and has no data_size: counted, never guessed */
    ck_assert_str_eq(size_desc(doc, "models.0.size", got, sizeof(got)),
                     CHECKFN_CPP ": constants 7 declared 7 bytes 11056 elements 3084 p/b/t/f "
                                 "3/2/1/1 missing 1/0; float32 2 10256 2564; bfloat16 2 520 260; "
                                 "float8_e4m3fn 1 256 256; int64 1 24 3; - 1 0 1");
    ck_assert_str_eq(warnings_text(doc, got, sizeof(got)),
                     "the wrapper records output names but no dtypes or shapes for model 'model'");
    cJSON_Delete(doc);

    /* every shape recorded: no note */
    validation(pkg,
               "{\"arg0_1\": [4, 10], \"arg1_1\": [3, 99], \"arg2_1\": [4], \"arg3_1\": [8, 7], "
               "\"arg4_1\": [8]}",
               got, sizeof(got));
    ck_assert_str_eq(got, "valid");
    validation(pkg,
               "{\"arg0_1\": [1, 11], \"arg1_1\": [1025, 1], \"arg2_1\": [4, 1], \"arg3_1\": [7, "
               "8], \"arg4_1\": [2049]}",
               got, sizeof(got));
    ck_assert_str_eq(got,
                     "invalid\n"
                     "E input 'arg0_1' axis 0: dynamic dim 's0' must be in [2, 1024], got 1\n"
                     "E input 'arg0_1' axis 1: expected 10, got 11\n"
                     "E input 'arg1_1' axis 0: dynamic dim '?' must be in [2, 1024], got 1025\n"
                     "E input 'arg1_1' axis 1: dynamic dim 's1' must be >= 2, got 1\n"
                     "E input 'arg2_1': expected 1 dimension (4), got 2\n"
                     "E input 'arg3_1' axis 0: expected 8, got 7\n"
                     "E input 'arg3_1' axis 1: expected 7, got 8\n"
                     "E input 'arg4_1' axis 0: dynamic dim '?' must be in [4, 2048], got 2049");
    pt2_package_free(pkg);
}
END_TEST

/* Two models, two wrapper forms: the package's specs are the first model's. */
START_TEST(test_wrapper_two_models)
{
    pt2_package *pkg = open_fixture("multi_wrapper.pt2");
    struct pt2_error err = {0};
    cJSON *doc = NULL;
    char got[4096];

    ck_assert_int_eq(pt2_package_to_json(pkg, 0, &doc, &err), PT2_OK);
    ck_assert_str_eq(js(doc, "package.kind"), "aoti");
    ck_assert_int_eq(cJSON_GetArraySize(jp(doc, "models")), 2);
    ck_assert_str_eq(js(doc, "metadata.source"), MULTI_CPP);
    ck_assert_str_eq(tlist(doc, "metadata.inputs", got, sizeof(got)), INLINE_IN);
    ck_assert_str_eq(js(doc, "models.0.name"), "model");
    ck_assert_str_eq(js(doc, "models.0.specs_source"), MULTI_CPP);
    ck_assert_str_eq(tlist(doc, "models.0.inputs", got, sizeof(got)), INLINE_IN);
    ck_assert_str_eq(size_desc(doc, "models.0.size", got, sizeof(got)), MULTI_CPP INLINE_SIZE);
    ck_assert_str_eq(js(doc, "models.1.name"), "model2");
    ck_assert_str_eq(js(doc, "models.1.specs_source"), MULTI2_CPP);
    ck_assert_str_eq(tlist(doc, "models.1.inputs", got, sizeof(got)), NAMES_ONLY_IN);
    ck_assert_str_eq(tlist(doc, "models.1.outputs", got, sizeof(got)), "output0 - unknown");
    ck_assert_str_eq(size_desc(doc, "models.1.size", got, sizeof(got)), MULTI2_CPP NAMES_ONLY_SIZE);
    ck_assert_str_eq(warnings_text(doc, got, sizeof(got)),
                     "the wrapper records no complete shape for 1 input(s) of model 'model': "
                     "arg3_1\n"
                     "the wrapper records output names but no dtypes or shapes for model 'model'\n"
                     "the wrapper records input names but no dtypes or shapes for model 'model2'\n"
                     "the wrapper records output names but no dtypes or shapes for model 'model2'");
    cJSON_Delete(doc);
    validation(pkg, "{\"arg1_1\": [8], \"arg2_1\": [8, 16], \"arg3_1\": [1]}", got, sizeof(got));
    ck_assert_str_eq(got, "valid\n" INLINE_NOTE);
    pt2_package_free(pkg);
}
END_TEST

/* The model's I/O starts past the 64 MiB scan cap, in a deflated entry: said, and bounded. */
START_TEST(test_wrapper_over_cap)
{
    char path[256];
    pt2_package *pkg = open_fixture("wrapper_over_cap.pt2");
    struct pt2_error err = {0};
    cJSON *doc = NULL, *inputs = cJSON_Parse("{\"arg1_1\": [8]}");
    uint64_t size =
        entry_size(tu_fixture("wrapper_over_cap.pt2", path, sizeof(path)), "model/" OVERCAP_CPP);
    char got[4096];

    ck_assert_uint_gt(size, PT2_WRAPPER_BYTES_MAX);
    ck_assert_int_eq(pt2_package_to_json(pkg, 0, &doc, &err), PT2_OK);
    ck_assert_str_eq(js(doc, "package.kind"), "aoti");
    ck_assert(cJSON_IsNull(jp(doc, "metadata.source")));
    ck_assert_int_eq(cJSON_GetArraySize(jp(doc, "metadata.inputs")), 0);
    ck_assert(cJSON_IsNull(jp(doc, "models.0.specs_source")));
    ck_assert(cJSON_IsNull(jp(doc, "models.0.size")));
    warnings_text(doc, got, sizeof(got));
    ck_assert_msg(strstr(got, "the wrapper source of model 'model' was cut at 67108864 bytes (the "
                              "cap): I/O facts after that point are missing") != NULL,
                  "no cut warning in:\n%s", got);
    ck_assert_msg(strstr(got, STUB_WRAPPER_WARNING) != NULL, "warnings:\n%s", got);
    /* 64 MiB of wrapper inflated, far fewer bytes read from the file */
    ck_assert_uint_lt(pt2_package_bytes_read(pkg), 1024 * 1024);
    ck_assert_uint_lt(pt2_package_bytes_read(pkg), size);
    cJSON_Delete(doc);
    doc = NULL;
    ck_assert_int_eq(pt2_package_validate(pkg, inputs, &doc, &err), PT2_ERR_NOT_FOUND);
    ck_assert_str_eq(err.message, "the package records no inputs (no model_metadata.json, no "
                                  "exported program and no AOTI wrapper with input names)");
    ck_assert_ptr_null(doc);
    cJSON_Delete(inputs);
    pt2_package_free(pkg);
}
END_TEST

/* torch.export.save, compact unions (torch ~2.4): user inputs, parameters, buffers, a constant. */
START_TEST(test_legacy_export_compact)
{
    pt2_package *pkg = open_fixture("export_save_compact.pt2");
    struct pt2_error err = {0};
    cJSON *doc = NULL;
    char got[4096];

    ck_assert_int_eq(pt2_package_to_json(pkg, 0, &doc, &err), PT2_OK);
    ck_assert_str_eq(js(doc, "package.kind"), "exported-program");
    ck_assert(cJSON_IsNull(jp(doc, "package.archive_format")));
    ck_assert(cJSON_IsNull(jp(doc, "package.prefix")));
    ck_assert_str_eq(js(doc, "package.version"), "5.3");
    ck_assert_int_eq(cJSON_GetArraySize(jp(doc, "models")), 0);
    ck_assert_str_eq(js(doc, "metadata.source"), "serialized_exported_program.json");
    /* s1's max_val 2^63 - 2 is torch's int_oo: no upper bound */
    ck_assert_str_eq(tlist(doc, "metadata.inputs", got, sizeof(got)),
                     "x float32 (s0[1..32], 3, s1[16..-], s1[16..-])\n"
                     "lengths int64 (s0[1..32])\n"
                     "mask bool (s0[1..32], s1[16..-])");
    /* the buffer mutation is no user output */
    ck_assert_str_eq(tlist(doc, "metadata.outputs", got, sizeof(got)),
                     "mean float32 (s0[1..32], 8)");
    ck_assert_int_eq(cJSON_GetArraySize(jp(doc, "metadata.exported_programs")), 1);
    ck_assert_str_eq(js(doc, "metadata.exported_programs.0.name"), "model");
    ck_assert_str_eq(js(doc, "metadata.exported_programs.0.source"),
                     "serialized_exported_program.json");
    ck_assert_str_eq(size_desc(doc, "metadata.exported_programs.0.size", got, sizeof(got)),
                     "serialized_exported_program.json: constants 5 declared - bytes 944 "
                     "elements 237 p/b/t/f 2/2/1/0 missing 0/0; float32 3 928 232; int64 1 8 1; "
                     "float16 1 8 4");
    ck_assert_int_eq(cJSON_GetArraySize(jp(doc, "warnings")), 0);
    cJSON_Delete(doc);

    validation(pkg, "{\"x\": [4, 3, 64, 64], \"lengths\": [4], \"mask\": [4, 64]}", got,
               sizeof(got));
    ck_assert_str_eq(got, "valid");
    validation(pkg, "{\"x\": [4, 3, 64, 32], \"lengths\": [5], \"mask\": [4, 15]}", got,
               sizeof(got));
    ck_assert_str_eq(got,
                     "invalid\n"
                     "E input 'x' axis 3: dynamic dim 's1' is 64 in input 'x' but 32 here\n"
                     "E input 'lengths' axis 0: dynamic dim 's0' is 4 in input 'x' but 5 here\n"
                     "E input 'mask' axis 1: dynamic dim 's1' must be >= 16, got 15");
    pt2_package_free(pkg);
}
END_TEST

/* torch.export.save, every union member written with nulls (torch ~2.2). */
START_TEST(test_legacy_export_nulls)
{
    pt2_package *pkg = open_fixture("export_save_nulls.pt2");
    struct pt2_error err = {0};
    cJSON *doc = NULL;
    char got[4096];

    ck_assert_int_eq(pt2_package_to_json(pkg, 0, &doc, &err), PT2_OK);
    ck_assert_str_eq(js(doc, "package.kind"), "exported-program");
    ck_assert_str_eq(js(doc, "package.version"), "2");
    ck_assert_int_eq(cJSON_GetArraySize(jp(doc, "models")), 0);
    ck_assert_str_eq(js(doc, "metadata.source"), "serialized_exported_program.json");
    ck_assert_str_eq(tlist(doc, "metadata.inputs", got, sizeof(got)),
                     "l_tokens_ int64 (s0[2..1024], 16)\n"
                     "l_weights_ bfloat16 (s0[2..1024], 16)\n"
                     "l_x_ float16 (s0[2..1024], 16)");
    ck_assert_str_eq(tlist(doc, "metadata.outputs", got, sizeof(got)),
                     "addmm float32 (s0[2..1024], 4)");
    ck_assert_str_eq(js(doc, "metadata.exported_programs.0.name"), "model");
    ck_assert_str_eq(size_desc(doc, "metadata.exported_programs.0.size", got, sizeof(got)),
                     "serialized_exported_program.json: constants 4 declared - bytes 536 "
                     "elements 197 p/b/t/f 2/2/0/0 missing 0/0; float32 2 272 68; "
                     "bfloat16 1 256 128; int64 1 8 1");
    ck_assert_int_eq(cJSON_GetArraySize(jp(doc, "warnings")), 0);
    cJSON_Delete(doc);

    validation(pkg, "{\"l_tokens_\": [4, 16], \"l_weights_\": [4, 16], \"l_x_\": [4, 16]}", got,
               sizeof(got));
    ck_assert_str_eq(got, "valid");
    validation(pkg, "{\"l_tokens_\": [4, 16], \"l_weights_\": [8, 16], \"l_x_\": [4, 17]}", got,
               sizeof(got));
    ck_assert_str_eq(got,
                     "invalid\n"
                     "E input 'l_weights_' axis 0: dynamic dim 's0' is 4 in input 'l_tokens_' but "
                     "8 here\n"
                     "E input 'l_x_' axis 1: expected 16, got 17");
    pt2_package_free(pkg);
}
END_TEST

START_TEST(test_torch_save_checkpoint)
{
    char msg[PT2_ERROR_MSG_MAX];

    ck_assert_int_eq(open_code("torch_save_checkpoint.pt2", msg, sizeof(msg)), PT2_ERR_TORCH_SAVE);
    ck_assert_str_eq(msg, "a torch.save checkpoint (archive/data.pkl), not a .pt2 package; load "
                          "it with torch.load");
    ck_assert_str_eq(pt2_status_slug(PT2_ERR_TORCH_SAVE), "torch-save-checkpoint");
}
END_TEST

/* Precedence of the package's specs: user metadata, then an exported program, then the wrapper. */
START_TEST(test_specs_precedence)
{
    size_t len = 0;
    char *wrapper = (char *)tu_read_file("tests/fixtures/wrapper/inline_checks_v25.cpp", &len);
    const char *user[] = {"archive_format",
                          "pt2",
                          "data/aotinductor/model/x.wrapper.cpp",
                          wrapper,
                          "extra/model_metadata.json",
                          "{\"inputs\": [{\"name\": \"tokens\", \"shape\": [\"B\"], \"dtype\": "
                          "\"int64\"}]}"};
    const char *eprog[] = {
        "archive_format",
        "pt2",
        "data/aotinductor/model/x.wrapper.cpp",
        wrapper,
        "models/model.json",
        "{\"graph_module\": {\"graph\": {\"tensor_values\": {\"ids\": {\"dtype\": 5, \"sizes\": "
        "[{\"as_int\": 2}, {\"as_expr\": {\"expr_str\": \"s3\"}}]}}}, \"signature\": "
        "{\"input_specs\": [{\"user_input\": {\"arg\": {\"as_tensor\": {\"name\": \"ids\"}}}}], "
        "\"output_specs\": []}}, \"range_constraints\": {\"s3\": {\"min_val\": 1, \"max_val\": "
        "8}}}"};
    char dir[] = "/tmp/pt2precXXXXXX", dir2[] = "/tmp/pt2precXXXXXX", path[256], path2[256];
    char got[4096];
    pt2_package *pkg = NULL;
    struct pt2_error err = {0};
    cJSON *doc = NULL;

    ck_assert_ptr_nonnull(wrapper);
    make_zip(dir, path, sizeof(path), user, 3);
    ck_assert_int_eq(pt2_package_open_path(&pkg, path, NULL, &err), PT2_OK);
    ck_assert_int_eq(pt2_package_to_json(pkg, 0, &doc, &err), PT2_OK);
    ck_assert_str_eq(js(doc, "package.kind"), "aoti");
    ck_assert_str_eq(js(doc, "metadata.source"), "extra/model_metadata.json");
    ck_assert_str_eq(tlist(doc, "metadata.inputs", got, sizeof(got)), "tokens int64 (B)");
    ck_assert_str_eq(js(doc, "models.0.specs_source"), "data/aotinductor/model/x.wrapper.cpp");
    ck_assert_str_eq(tlist(doc, "models.0.inputs", got, sizeof(got)), INLINE_IN);
    cJSON_Delete(doc);
    doc = NULL;
    validation(pkg, "{\"tokens\": [3]}", got, sizeof(got));
    ck_assert_str_eq(got, "valid");
    pt2_package_free(pkg);
    pkg = NULL;
    remove_zip(dir, path);

    make_zip(dir2, path2, sizeof(path2), eprog, 3);
    ck_assert_int_eq(pt2_package_open_path(&pkg, path2, NULL, &err), PT2_OK);
    ck_assert_int_eq(pt2_package_to_json(pkg, 0, &doc, &err), PT2_OK);
    ck_assert_str_eq(js(doc, "package.kind"), "aoti+exported-program");
    ck_assert_str_eq(js(doc, "metadata.source"), "models/model.json");
    ck_assert_str_eq(tlist(doc, "metadata.inputs", got, sizeof(got)), "ids int64 (2, s3[1..8])");
    cJSON_Delete(doc);
    validation(pkg, "{\"ids\": [2, 9]}", got, sizeof(got));
    ck_assert_str_eq(got,
                     "invalid\nE input 'ids' axis 1: dynamic dim 's3' must be in [1, 8], got 9");
    pt2_package_free(pkg);
    remove_zip(dir2, path2);
    free(wrapper);
}
END_TEST

/* ---- the shared corpus (real packages), skipped when absent ---------------- */

#define PREPROCESS_CPP                                                                             \
    "data/aotinductor/model/cw6i5kuukokhhl6upvnmncq5t6nnmtdfhtfxo46vzc7t46zchepo.wrapper.cpp"
#define MLCOLVAR_CPP                                                                               \
    "data/aotinductor/model/c6nxnf744h37kq6qki443m2qvavf5dvnuh2dhxlsqbf5z2uobx7v.wrapper.cpp"

static cJSON *corpus_doc(const char *name)
{
    char rel[256], path[1024];
    pt2_package *pkg = NULL;
    struct pt2_error err = {0};
    cJSON *doc = NULL;

    snprintf(rel, sizeof(rel), "corpus/pt2/%s", name);
    if (tu_shared(rel, path, sizeof(path)) == NULL) {
        tu_skip(name, "shared corpus not present");
        return NULL;
    }
    ck_assert_msg(pt2_package_open_path(&pkg, path, NULL, &err) == PT2_OK, "%s", err.message);
    ck_assert_int_eq(pt2_package_to_json(pkg, 0, &doc, &err), PT2_OK);
    ck_assert_uint_lt(pt2_package_bytes_read(pkg), 1024 * 1024);
    pt2_package_free(pkg);
    return doc;
}

START_TEST(test_corpus_executorch_linear)
{
    cJSON *doc = corpus_doc("executorch__linear.pt2");
    char got[1024];

    if (doc == NULL)
        return;
    ck_assert_str_eq(js(doc, "package.prefix"), "linear_3/");
    ck_assert_str_eq(js(doc, "package.archive_format"), "pt2");
    ck_assert_str_eq(js(doc, "metadata.inputs.0.name"), "x");
    ck_assert_str_eq(js(doc, "metadata.inputs.0.shape_description"), "(3)");
    ck_assert_str_eq(js(doc, "metadata.outputs.0.name"), "linear");
    ck_assert_int_eq(cJSON_GetArraySize(jp(doc, "models")), 0);
    ck_assert_str_eq(js(doc, "package.kind"), "exported-program");
    ck_assert_str_eq(js(doc, "metadata.source"), "models/model.json");
    ck_assert_str_eq(tlist(doc, "metadata.inputs", got, sizeof(got)), "x float32 (3)");
    ck_assert_str_eq(tlist(doc, "metadata.outputs", got, sizeof(got)), "linear float32 (3)");
    cJSON_Delete(doc);
}
END_TEST

START_TEST(test_corpus_executorch_preprocess_macho)
{
    char path[1024], got[2048];
    cJSON *doc = corpus_doc("executorch__preprocess_2025-05-23.pt2");

    if (doc == NULL)
        return;
    ck_assert_ptr_nonnull(
        tu_shared("corpus/pt2/executorch__preprocess_2025-05-23.pt2", path, sizeof(path)));
    ck_assert(cJSON_IsNull(jp(doc, "package.prefix")));
    ck_assert_str_eq(js(doc, "package.layout"), "torch<=2.7");
    ck_assert_str_eq(js(doc, "arch.device_key"), "cpu");
    ck_assert_str_eq(js(doc, "arch.hosts.0.format"), "macho");
    ck_assert_str_eq(js(doc, "arch.hosts.0.machine"), "arm64");
    /* no model_metadata.json: the wrapper's inline checks (torch 2.7) say it all */
    ck_assert_str_eq(js(doc, "package.kind"), "aoti");
    ck_assert_str_eq(js(doc, "metadata.source"), PREPROCESS_CPP);
    ck_assert_str_eq(tlist(doc, "metadata.inputs", got, sizeof(got)),
                     "arg0_1 float32 (3, s0[2..4000], s1[2..4000])\n"
                     "arg1_1 int64 (2)\n"
                     "arg2_1 int64 (2)");
    ck_assert_str_eq(tlist(doc, "metadata.outputs", got, sizeof(got)),
                     "output0 - unknown\noutput1 - unknown");
    ck_assert_str_eq(js(doc, "models.0.specs_source"), PREPROCESS_CPP);
    ck_assert_str_eq(size_desc(doc, "models.0.size", got, sizeof(got)),
                     PREPROCESS_CPP ": constants 0 declared 0 bytes 0 elements 0 p/b/t/f 0/0/0/0 "
                                    "missing 0/0");
    ck_assert_str_eq(warnings_text(doc, got, sizeof(got)),
                     "the wrapper records output names but no dtypes or shapes for model 'model'");
    /* the 552 KB wrapper is not read to its end: the scanner stops after run_impl */
    ck_assert_uint_eq(entry_size(path, PREPROCESS_CPP), 552530);
    ck_assert_uint_lt(jnum(doc, "bytes_read"), 552530);
    cJSON_Delete(doc);
}
END_TEST

START_TEST(test_corpus_mlcolvar)
{
    cJSON *doc = corpus_doc("mlcolvar__descriptor_based_inputs_model.pt2");
    char got[2048];

    if (doc == NULL)
        return;
    ck_assert_str_eq(js(doc, "package.prefix"), "model/");
    ck_assert_str_eq(js(doc, "arch.device_key"), "cpu");
    ck_assert_str_eq(js(doc, "arch.hosts.0.machine"), "x86_64");
    ck_assert_str_eq(js(doc, "arch.cpu_isa.isa"), "AVX512");
    ck_assert_str_eq(js(doc, "arch.cpu_isa.source"), "compile_cmd");
    ck_assert_str_eq(js(doc, "metadata.aoti.n_cvs"), "2");
    ck_assert_str_eq(js(doc, "package.kind"), "aoti");
    ck_assert_str_eq(js(doc, "metadata.source"), MLCOLVAR_CPP);
    ck_assert_str_eq(tlist(doc, "metadata.inputs", got, sizeof(got)), "arg10_1 float32 (1, 45)");
    ck_assert_str_eq(tlist(doc, "metadata.outputs", got, sizeof(got)),
                     "output0 - unknown\noutput1 - unknown\noutput2 - unknown\noutput3 - unknown");
    ck_assert_str_eq(js(doc, "models.0.specs_source"), MLCOLVAR_CPP);
    /* 32x45 + 32 + 32x32 + 32 + 1x32 float32 parameters */
    ck_assert_str_eq(size_desc(doc, "models.0.size", got, sizeof(got)),
                     MLCOLVAR_CPP ": constants 5 declared 5 bytes 10240 elements 2560 p/b/t/f "
                                  "5/0/0/0 missing 0/0; float32 5 10240 2560");
    ck_assert_str_eq(warnings_text(doc, got, sizeof(got)),
                     "the wrapper records output names but no dtypes or shapes for model 'model'");
    cJSON_Delete(doc);
}
END_TEST

/* Every package in the corpus folder, whatever is added to it later. */
START_TEST(test_corpus_every_package)
{
    char dir[1024], path[2048], warnings[8192];
    struct dirent *de;
    DIR *d;
    int n = 0;

    if (tu_shared("corpus/pt2", dir, sizeof(dir)) == NULL) {
        tu_skip("corpus", "shared corpus not present");
        return;
    }
    d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        pt2_package *pkg = NULL;
        struct pt2_error err = {0};
        cJSON *doc = NULL;

        if (len < 5 || strcmp(de->d_name + len - 4, ".pt2") != 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        ck_assert_msg(pt2_package_open_path(&pkg, path, NULL, &err) == PT2_OK, "%s: %s", de->d_name,
                      err.message);
        ck_assert_msg(pt2_package_to_json(pkg, 0, &doc, &err) == PT2_OK, "%s: %s", de->d_name,
                      err.message);
        ck_assert_str_eq(js(doc, "package.archive_format"), "pt2");
        /* every real package records its inputs somewhere torch writes them */
        ck_assert_msg(cJSON_GetArraySize(jp(doc, "metadata.inputs")) > 0, "%s: no inputs",
                      de->d_name);
        ck_assert_msg(js(doc, "metadata.source")[0] != '\0' &&
                          strcmp(js(doc, "metadata.source"), "<absent or not a string>") != 0,
                      "%s: no metadata.source", de->d_name);
        /* a real package is read whole: nothing unreadable, nothing cut */
        warnings_text(doc, warnings, sizeof(warnings));
        ck_assert_msg(strstr(warnings, "could not be read") == NULL &&
                          strstr(warnings, "was cut at") == NULL &&
                          strstr(warnings, "skipping") == NULL,
                      "%s: %s", de->d_name, warnings);
        ck_assert_uint_lt(pt2_package_bytes_read(pkg), 1024 * 1024);
        cJSON_Delete(doc);
        pt2_package_free(pkg);
        n++;
    }
    closedir(d);
    ck_assert_int_ge(n, 1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("inspect");
    TCase *tc = tcase_create("fixtures");
    TCase *big = tcase_create("big");
    TCase *corpus = tcase_create("corpus");

    tcase_add_test(tc, test_cuda_v8_document);
    tcase_add_test(tc, test_legacy_v7_document);
    tcase_add_test(tc, test_oip_view);
    tcase_add_test(tc, test_oip_metadata_response);
    tcase_add_test(tc, test_scheduling_member);
    tcase_add_test(tc, test_no_affinity_flag);
    tcase_add_test(tc, test_fatbin_targets_and_verdicts);
    tcase_add_test(tc, test_sm90a_verdict_messages);
    tcase_add_test(tc, test_multi_model_worst_verdict);
    tcase_add_test(tc, test_embedded_kernels);
    tcase_add_test(tc, test_rocm_and_xpu);
    tcase_add_test(tc, test_cpu_packages);
    tcase_add_test(tc, test_exported_program);
    tcase_add_test(tc, test_validate);
    tcase_add_test(tc, test_broken_packages);
    tcase_add_test(tc, test_rezipped_deflate_matches_original);
    tcase_add_test(tc, test_open_fd);
    tcase_add_test(tc, test_metadata_rank_not_order);
    tcase_add_test(tc, test_metadata_anywhere_and_sole_copy_errors);
    tcase_add_test(tc, test_many_metadata_documents_are_budgeted);
    tcase_add_test(tc, test_wrapper_names_only);
    tcase_add_test(tc, test_wrapper_inline_checks);
    tcase_add_test(tc, test_wrapper_inline_checks_rezipped);
    tcase_add_test(tc, test_wrapper_check_functions);
    tcase_add_test(tc, test_wrapper_two_models);
    tcase_add_test(tc, test_legacy_export_compact);
    tcase_add_test(tc, test_legacy_export_nulls);
    tcase_add_test(tc, test_torch_save_checkpoint);
    tcase_add_test(tc, test_specs_precedence);
    tcase_add_test(tc, test_layout_two_libraries);
    tcase_add_test(tc, test_layout_weights);
    tcase_add_test(tc, test_layout_cpp_only_unhashed);
    tcase_add_test(tc, test_layout_mps_and_entries);
    tcase_add_test(tc, test_layout_schema_820_dtypes);
    tcase_add_test(tc, test_layout_model_selection);
    tcase_add_test(big, test_wrapper_over_cap);
    tcase_add_test(big, test_sparse_5gib_reads_under_1mib);
    tcase_set_timeout(big, 60);
    tcase_add_test(corpus, test_corpus_executorch_linear);
    tcase_add_test(corpus, test_corpus_executorch_preprocess_macho);
    tcase_add_test(corpus, test_corpus_mlcolvar);
    tcase_add_test(corpus, test_corpus_every_package);
    suite_add_tcase(s, tc);
    suite_add_tcase(s, big);
    suite_add_tcase(s, corpus);
    return tu_run_suite(s);
}
