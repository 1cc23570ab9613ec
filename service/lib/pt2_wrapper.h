/*
 * pt2_wrapper.h - model inputs, outputs and constants from the AOTInductor
 * wrapper C++ source.
 *
 * Design: every AOTI package carries the generated wrapper source
 * (`data/aotinductor/<model>/<hash>.cpp` up to torch 2.6,
 * `<hash>.wrapper.cpp` from 2.7). It is the one place torch itself records
 * the I/O of a model: input and output names and the constants table in the
 * model constructor, and (torch >= ~2.5) each input's dtype, fixed sizes and
 * dynamic bounds in the generated runtime checks, inline in
 * `__check_inputs_outputs` or one `check_input_N` function per input; the
 * `run_impl` prologue binds size symbols (`int64_t s0 = arg0_1_size[1];`).
 * Facts are taken only from those generated forms, never guessed: a dtype the
 * wrapper does not record stays "", a rank that is not fully checked stays -1,
 * and a warning says what is missing (older wrappers record names only).
 * The torch 2.1 constructor form (`inputs_info_[i].dtype = "torch.float16"`,
 * `.shape.push_back(make_static_dim(10))`, `make_dynamic_dim("s0", 2, 2048)`)
 * is read as well.
 *
 * The wrapper can be several MB and is read as it is inflated: the scanner is
 * pushed chunks of any size, keeps one line at a time in a fixed window
 * (longer lines are skipped, only their start is looked at), and stops
 * consuming past a hard byte cap, saying so in a warning. Work is linear in
 * the bytes fed; every table it builds is capped. Typical use: for each entry
 * where pt2_wrapper_is_wrapper_name() holds, scan_new, feed inflated chunks
 * while pt2_wrapper_scan_wants_more(), then scan_finish. A model folder holds
 * one wrapper; should several `.cpp` match, the one with found == 1 is it.
 *
 * Ownership: a scan is owned by its creator and released with
 * pt2_wrapper_scan_free() (NULL is fine). pt2_wrapper_scan_finish() fills a
 * caller-owned struct pt2_wrapper_info whose lists belong to it; release them
 * with pt2_wrapper_info_free(), which accepts NULL and zeroed structs.
 * Threads: separate scans are independent; one scan is used by one thread.
 */
#ifndef PT2_WRAPPER_H
#define PT2_WRAPPER_H

#include <stddef.h>
#include <stdint.h>

#include "pt2_error.h"
#include "pt2_model.h"
#include "pt2_tensor.h"

#define PT2_WRAPPER_BYTES_MAX (64u * 1024u * 1024u) /* hard cap on bytes consumed */
#define PT2_WRAPPER_LINE_MAX 8192                   /* window: longer lines are skipped */
#define PT2_WRAPPER_CONSTANTS_MAX (1u << 20)        /* constants counted per wrapper */
#define PT2_WRAPPER_WARNINGS_MAX 16
#define PT2_WRAPPER_WARNING_LEN 256

/* Where the wrapper's input checks live. */
enum pt2_wrapper_checks {
    PT2_WRAPPER_CHECKS_NONE = 0,     /* no checks generated (older torch): names only */
    PT2_WRAPPER_CHECKS_INLINE = 1,   /* all inside __check_inputs_outputs */
    PT2_WRAPPER_CHECKS_FUNCTIONS = 2 /* one check_input_N function per input */
};

/* The constants summary is the model's size (struct pt2_constants, pt2_model.h). */

struct pt2_wrapper_info {
    int found; /* 1 when the model constructor or an *_info_ line was seen */
    /* In input order. dtype "" unless checked; ndim -1 unless every dim up to
     * the highest index the checks mention is checked (fixed or bounded). */
    struct pt2_tensor_list inputs;
    struct pt2_tensor_list outputs; /* names in order; shapes only in the torch 2.1 form */
    int64_t declared_inputs;        /* AOTInductorModelBase(inputs, outputs, constants, ...) */
    int64_t declared_outputs;       /* -1 = not seen */
    int checks;                     /* enum pt2_wrapper_checks */
    size_t checked_inputs;          /* inputs with a check block (dtype and/or shape) */
    int has_in_spec, has_out_spec;  /* non-empty pytree in_spec_ / out_spec_ strings */
    struct pt2_constants constants;
    uint64_t bytes_scanned; /* bytes accepted by feed (at most the cap) */
    int cut;                /* 1 when bytes past the cap were dropped */
    size_t nwarnings;       /* what the wrapper did not record, one sentence each */
    size_t warnings_dropped;
    char warnings[PT2_WRAPPER_WARNINGS_MAX][PT2_WRAPPER_WARNING_LEN];
};

typedef struct pt2_wrapper_scan pt2_wrapper_scan;

/*
 * 1 when an archive entry name (with or without the archive prefix) is an AOTI
 * wrapper source: a `.cpp` under a `data/aotinductor/` folder that is not a
 * `.kernel.cpp` (torch >= 2.7 keeps kernels apart; they hold no I/O facts).
 */
int pt2_wrapper_is_wrapper_name(const char *entry_path);

/* The <model> of ".../data/aotinductor/<model>/..." into out ("" when the
 * entry sits directly in data/aotinductor/). Returns out. */
const char *pt2_wrapper_model_name(const char *entry_path, char *out, size_t len);

/*
 * New scan. `model` names the model in warnings (NULL or "" = "the model");
 * `max_bytes` caps the bytes consumed (0 = PT2_WRAPPER_BYTES_MAX, which is also
 * the most allowed). *out is NULL on failure.
 */
int pt2_wrapper_scan_new(pt2_wrapper_scan **out, const char *model, size_t max_bytes,
                         struct pt2_error *err) PT2_WARN_UNUSED;

/*
 * Push the next `len` bytes of the wrapper (any chunking gives the same
 * result). Bytes past the cap are dropped and the result says it was cut;
 * this is not an error. Fails only on allocation failure or bad arguments.
 */
int pt2_wrapper_scan_feed(pt2_wrapper_scan *s, const void *data, size_t len,
                          struct pt2_error *err) PT2_WARN_UNUSED;

/*
 * 0 once more bytes cannot change the result (the cap was reached, or the
 * constructor, the checks and the run_impl prologue have all been seen), so
 * the caller may stop inflating; 1 otherwise. Advisory: feeding on is harmless.
 */
int pt2_wrapper_scan_wants_more(const pt2_wrapper_scan *s);

/*
 * End of input: fill *out (zeroed first; nothing to free on failure). The
 * scan is spent afterwards (finish again is PT2_ERR_INVALID). A text that is
 * no wrapper gives PT2_OK with out->found == 0 and a warning.
 */
int pt2_wrapper_scan_finish(pt2_wrapper_scan *s, struct pt2_wrapper_info *out,
                            struct pt2_error *err) PT2_WARN_UNUSED;

void pt2_wrapper_scan_free(pt2_wrapper_scan *s);
void pt2_wrapper_info_free(struct pt2_wrapper_info *info);

/* Canonical torch name of a c10::ScalarType code (6 -> "float32", 15 ->
 * "bfloat16", 24 -> "float8_e4m3fn"); NULL for a code torch does not assign. */
const char *pt2_wrapper_c10_dtype_name(int64_t code);

/*
 * Metal shader libraries an MPS wrapper creates: MPS packages carry no
 * .metallib, the shader source is text in the wrapper handed to
 * aoti_torch_mps_create_shader_library at load time (pt2-layouts-2026 §5).
 * Counted over the wrapper fed in order, in chunks of any size.
 */
#define PT2_WRAPPER_SHADER_CALL "aoti_torch_mps_create_shader_library("
struct pt2_shader_count {
    uint64_t n;
    size_t ntail;
    char tail[sizeof(PT2_WRAPPER_SHADER_CALL)];
};
void pt2_wrapper_count_shaders(struct pt2_shader_count *c, const char *buf, size_t len);

#endif
