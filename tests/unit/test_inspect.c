/*
 * test_inspect.c - whole-package inspection: the JSON document, verdicts,
 * validation and error codes, on the committed fixtures, a 5 GiB sparse
 * package, and the real packages of the shared corpus (skipped if absent).
 */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zip.h>

#include "bigzip.h"
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
    ck_assert_int_eq(cJSON_GetArraySize(jp(doc, "warnings")), 0);
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
    cJSON_Delete(doc);
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

START_TEST(test_validate)
{
    pt2_package *pkg = open_fixture("cuda_sm90a_v8.pt2");
    struct pt2_error err = {0};
    char *msg = NULL;
    cJSON *ok = cJSON_Parse("{\"image\": [8, 3, 512, 512], \"scale\": [8]}");
    cJSON *bad = cJSON_Parse("{\"image\": [8, 4, 512, 512], \"scale\": [8]}");
    cJSON *batch = cJSON_Parse("{\"image\": [8, 3, 512, 512], \"scale\": [4]}");
    cJSON *notobj = cJSON_Parse("[1, 2]");

    ck_assert_int_eq(pt2_package_validate(pkg, ok, &msg, &err), PT2_OK);
    ck_assert_ptr_null(msg);
    ck_assert_int_eq(pt2_package_validate(pkg, bad, &msg, &err), PT2_OK);
    ck_assert_str_eq(msg, "input 'image' axis 1: expected 3, got 4");
    free(msg);
    ck_assert_int_eq(pt2_package_validate(pkg, batch, &msg, &err), PT2_OK);
    ck_assert_str_eq(msg, "input 'scale' axis 0: dynamic dim 'B' is 8 in input 'image' but 4 here");
    free(msg);
    ck_assert_int_eq(pt2_package_validate(pkg, notobj, &msg, &err), PT2_ERR_INVALID);
    cJSON_Delete(ok);
    cJSON_Delete(bad);
    cJSON_Delete(batch);
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
    ck_assert_int_eq(open_code("does_not_exist.pt2", msg, sizeof(msg)), PT2_ERR_IO);

    /* Bad metadata: arch still answers, the metadata calls fail. */
    pkg = open_fixture("broken_bad_json.pt2");
    ck_assert_int_eq(pt2_package_arch_json(pkg, 0, &doc, &err), PT2_OK);
    ck_assert_str_eq(js(doc, "cuda_targets.0"), "sm_90a");
    cJSON_Delete(doc);
    doc = NULL;
    ck_assert_int_eq(pt2_package_to_json(pkg, 0, &doc, &err), PT2_ERR_METADATA);
    ck_assert_str_eq(err.message, "extra/model_metadata.json: invalid JSON near byte 25");
    ck_assert_ptr_null(doc);
    pt2_package_free(pkg);

    pkg = open_fixture("broken_deep_json.pt2");
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_package_metadata_json(pkg, 0, &doc, &err), PT2_ERR_METADATA);
    pt2_package_free(pkg);

    /* A corrupt .so is a warning, not a failure. */
    doc = doc_of("broken_bad_elf.pt2", 0);
    ck_assert_int_eq(cJSON_GetArraySize(jp(doc, "warnings")), 1);
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
    ck_assert_int_eq(cJSON_GetArraySize(jp(doc, "warnings")), 0);
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

/* The only copy being broken is an error, and model_metadata.json counts anywhere. */
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

    make_zip(dir2, path2, sizeof(path2), broken, 2);
    ck_assert_int_eq(pt2_package_open_path(&pkg, path2, NULL, &err), PT2_OK);
    ck_assert_int_eq(pt2_package_metadata_json(pkg, 0, &doc, &err), PT2_ERR_METADATA);
    ck_assert_ptr_null(doc);
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

/* ---- the shared corpus (real packages), skipped when absent ---------------- */

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
    if (doc == NULL)
        return;
    ck_assert_str_eq(js(doc, "package.prefix"), "linear_3/");
    ck_assert_str_eq(js(doc, "package.archive_format"), "pt2");
    ck_assert_str_eq(js(doc, "metadata.inputs.0.name"), "x");
    ck_assert_str_eq(js(doc, "metadata.inputs.0.shape_description"), "(3)");
    ck_assert_str_eq(js(doc, "metadata.outputs.0.name"), "linear");
    ck_assert_int_eq(cJSON_GetArraySize(jp(doc, "models")), 0);
    cJSON_Delete(doc);
}
END_TEST

START_TEST(test_corpus_executorch_preprocess_macho)
{
    cJSON *doc = corpus_doc("executorch__preprocess_2025-05-23.pt2");
    if (doc == NULL)
        return;
    ck_assert(cJSON_IsNull(jp(doc, "package.prefix")));
    ck_assert_str_eq(js(doc, "package.layout"), "torch<=2.7");
    ck_assert_str_eq(js(doc, "arch.device_key"), "cpu");
    ck_assert_str_eq(js(doc, "arch.hosts.0.format"), "macho");
    ck_assert_str_eq(js(doc, "arch.hosts.0.machine"), "arm64");
    cJSON_Delete(doc);
}
END_TEST

START_TEST(test_corpus_mlcolvar)
{
    cJSON *doc = corpus_doc("mlcolvar__descriptor_based_inputs_model.pt2");
    if (doc == NULL)
        return;
    ck_assert_str_eq(js(doc, "package.prefix"), "model/");
    ck_assert_str_eq(js(doc, "arch.device_key"), "cpu");
    ck_assert_str_eq(js(doc, "arch.hosts.0.machine"), "x86_64");
    ck_assert_str_eq(js(doc, "arch.cpu_isa.isa"), "AVX512");
    ck_assert_str_eq(js(doc, "arch.cpu_isa.source"), "compile_cmd");
    ck_assert_str_eq(js(doc, "metadata.aoti.n_cvs"), "2");
    cJSON_Delete(doc);
}
END_TEST

/* Every package in the corpus folder, whatever is added to it later. */
START_TEST(test_corpus_every_package)
{
    char dir[1024], path[2048];
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
        ck_assert_int_eq(cJSON_GetArraySize(jp(doc, "warnings")), 0);
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
