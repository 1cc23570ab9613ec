/*
 * pt2_inspect.h - read-only accessors over an opened package (internal).
 *
 * Design: struct pt2_package stays private to pt2_inspect.c; the report
 * builder (pt2_report.c) and tests read it through these accessors. Every
 * pointer returned is borrowed from the package and lives as long as it.
 */
#ifndef PT2_INSPECT_H
#define PT2_INSPECT_H

#include "pt2_meta.h"
#include "pt2_model.h"
#include "pt2_tensor.h"
#include "pt2_weights.h"
#include "pt2_zip_layout.h"
#include "pt2scope.h"

/*
 * 1 when an inspection may read the data of the entry named `name` (len
 * bytes, archive prefix or not): what a streamed upload must keep. Entries
 * only counted or sized (weights, constants, blobs) give 0.
 */
int pt2_package_entry_read(const char *name, size_t len);

const char *pt2_package_name(const pt2_package *pkg);
/* What pt2_package_set_source() gave (borrowed), or NULL. */
const cJSON *pt2_package_source(const pt2_package *pkg);
const struct pt2_zip_layout *pt2_package_layout(const pt2_package *pkg);
const struct pt2_kernel_list *pt2_package_kernels(const pt2_package *pkg);
const struct pt2_host_list *pt2_package_hosts(const pt2_package *pkg);
/* The custom operators of every model's <hash>.wrapper.json, distinct, as a new array
 * (the caller's); NULL when out of memory. */
cJSON *pt2_package_custom_ops_json(const pt2_package *pkg);

size_t pt2_package_model_count(const pt2_package *pkg);
const char *pt2_package_model_name(const pt2_package *pkg, size_t i);
/* The model's AOTI metadata map (or NULL) and the entry it came from. */
const cJSON *pt2_package_model_aoti(const pt2_package *pkg, size_t i, const char **entry);
const struct pt2_cpu_isa *pt2_package_model_isa(const pt2_package *pkg, size_t i);
size_t pt2_package_model_files(const pt2_package *pkg, size_t i);
/* 1 when model i ships C++ sources (a wrapper .cpp or a CMakeLists.txt): what a
 * package_cpp_only package has instead of a library. */
int pt2_package_model_has_sources(const pt2_package *pkg, size_t i);
/* 1 when host record h lies in model m's folder. */
int pt2_package_host_in_model(const pt2_package *pkg, size_t m, size_t h);
/* 1 and *host (may be NULL) = the host record torch's loader takes for model m (the last
 * loadable library of its folder in zip order); 0 when the model has none. */
int pt2_package_model_library(const pt2_package *pkg, size_t m, size_t *host);
/* 1 when model m is package_cpp_only: sources and a CMakeLists.txt, no library. */
int pt2_package_model_cpp_only(const pt2_package *pkg, size_t i);
/* Model i has no library to load: code "needs-compile" (C++ sources: torch's loader compiles
 * them when it loads the package, where g++ and torch's headers are installed) or
 * "not-loadable" (nothing), with reason and advice, into r (verdict left to the caller). One
 * wording for every verdict that meets such a model. */
void pt2_package_model_unloadable(const pt2_package *pkg, size_t i, struct pt2_verdict_result *r);
/* The CMake target its CMakeLists.txt builds, or "". */
const char *pt2_package_model_cmake_target(const pt2_package *pkg, size_t i);
/* Where model i's (program i's) weights are (pt2_weights.h). */
const struct pt2_weights *pt2_package_model_weights(const pt2_package *pkg, size_t i);
const struct pt2_weights *pt2_package_eprog_weights(const pt2_package *pkg, size_t i);
/* Custom operators of model i's <hash>.wrapper.json: their number; *op = the k-th (or NULL),
 * *nodes = the proxy-executor nodes counted. Either out pointer may be NULL. */
size_t pt2_package_model_custom_ops(const pt2_package *pkg, size_t i, size_t k, const char **op,
                                    size_t *nodes);
/* 1 when model i's k-th custom operator was made with torch.library.custom_op (its nodes say
 * torch_library_custom_op): torch's loader runs it only in a Python process that defines it. */
int pt2_package_model_custom_op_python(const pt2_package *pkg, size_t i, size_t k);
/* The GPU verdict of model m alone on dev (pt2_package_check_device is the worst of these). */
int pt2_package_check_device_model(const pt2_package *pkg, size_t m, const struct pt2_device *dev,
                                   struct pt2_verdict_result *out, struct pt2_error *err);
/* The model pt2_open_options.model selected, or NULL when every model was read. */
const char *pt2_package_selected_model(const pt2_package *pkg);
/* Metal shader libraries model i's MPS wrapper creates; -1 when not an MPS model. */
int64_t pt2_package_model_shaders(const pt2_package *pkg, size_t i);
/* ExecuTorch programs (pickles = 0) or pickled constants (1): how many are listed; the k-th's
 * entry, kind ("" / "custom_obj" / "opaque") and size when k is below it. */
size_t pt2_package_extra(const pt2_package *pkg, int pickles, size_t k, const char **entry,
                         const char **kind, uint64_t *size);
/* AOTI_DEVICE_KEY of model i, or NULL. */
const char *pt2_package_device_key(const pt2_package *pkg, size_t model);

/* The user model_metadata.json, or NULL when the package has none. */
const struct pt2_meta_user *pt2_package_user_meta(const pt2_package *pkg, const char **entry);
size_t pt2_package_eprog_count(const pt2_package *pkg);
const char *pt2_package_eprog(const pt2_package *pkg, size_t i, const char **entry,
                              const struct pt2_tensor_list **inputs,
                              const struct pt2_tensor_list **outputs);
/* Declared input/output specs, by precedence: user model_metadata.json, an
 * exported program, the first model's AOTI wrapper; NULL when none. */
const struct pt2_tensor_list *pt2_package_inputs(const pt2_package *pkg);
const struct pt2_tensor_list *pt2_package_outputs(const pt2_package *pkg);
/* The entry those specs came from, or NULL. */
const char *pt2_package_specs_source(const pt2_package *pkg);
/* Specs of model i: its exported program (same name), else its wrapper's. Returns the
 * source entry, or NULL when neither records them (the lists are then empty). */
const char *pt2_package_model_specs(const pt2_package *pkg, size_t i,
                                    const struct pt2_tensor_list **inputs,
                                    const struct pt2_tensor_list **outputs);
/* Model i's size: the wrapper's constants, else its exported program's parameters and
 * buffers; NULL (and *entry NULL) when neither records them. */
const struct pt2_constants *pt2_package_model_constants(const pt2_package *pkg, size_t i,
                                                        const char **entry);
const struct pt2_constants *pt2_package_eprog_constants(const pt2_package *pkg, size_t i);
/* "aoti", "exported-program", "aoti+exported-program", or NULL. */
const char *pt2_package_kind(const pt2_package *pkg);

/* The deferred metadata error, or NULL when all metadata parsed. */
const struct pt2_error *pt2_package_meta_error(const pt2_package *pkg);
size_t pt2_package_warning_count(const pt2_package *pkg);
const char *pt2_package_warning(const pt2_package *pkg, size_t i);

#endif
