/*
 * pt2scope.h - public API of libpt2scope.
 *
 * libpt2scope reads a PyTorch AOTInductor / torch.export `.pt2` package
 * without unpacking it and reports what it was compiled for. It knows
 * nothing of HTTP: the CLI and the daemon are thin layers over this header.
 *
 * Conventions (libgit2 style):
 *  - Every fallible function returns an int from enum pt2_status (PT2_OK = 0,
 *    errors negative) and fills a caller-owned struct pt2_error.
 *  - Objects returned through `T **out` are owned by the caller and released
 *    with the matching *_free(), which accepts NULL. On failure *out is NULL.
 *  - Objects returned as plain return values are borrowed from their parent.
 *  - cJSON documents returned through `cJSON **out` belong to the caller
 *    (free with cJSON_Delete).
 */
#ifndef PT2SCOPE_H
#define PT2SCOPE_H

#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PT2SCOPE_VERSION "0.1.0"
/* Bumped whenever the JSON document changes shape; part of every ETag. */
#define PT2SCOPE_SCHEMA_VERSION 2

#if defined(__GNUC__)
#define PT2_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define PT2_WARN_UNUSED __attribute__((warn_unused_result))
#else
#define PT2_PRINTF(a, b)
#define PT2_WARN_UNUSED
#endif

/*
 * Every status has one slug (pt2_status_slug), which the daemon also uses as
 * its problem+json type: the slugs are an interface and never change.
 */
enum pt2_status {
    PT2_OK = 0,
    PT2_ERR_NOMEM = -1,           /* allocation failed ("internal") */
    PT2_ERR_IO = -2,              /* the file could not be opened or read ("unreadable") */
    PT2_ERR_NOT_ZIP = -3,         /* not a zip archive at all ("not-a-zip") */
    PT2_ERR_TRUNCATED = -4,       /* a zip, but truncated or corrupt ("truncated") */
    PT2_ERR_NOT_PT2 = -5,         /* a valid zip that is not a .pt2 package ("not-a-pt2") */
    PT2_ERR_ENTRY = -6,           /* an entry inside the archive is unreadable ("truncated") */
    PT2_ERR_METADATA = -7,        /* a metadata document is malformed ("metadata-invalid") */
    PT2_ERR_TOO_LARGE = -8,       /* a hard cap was exceeded ("too-large") */
    PT2_ERR_INVALID = -9,         /* bad argument or request ("bad-request") */
    PT2_ERR_NOT_FOUND = -10,      /* a named thing does not exist ("not-found") */
    PT2_ERR_FORMAT = -11,         /* a binary is not in a recognised format ("truncated") */
    PT2_ERR_UNSUPPORTED = -12,    /* recognised but not supported ("unsupported") */
    PT2_ERR_INTERNAL = -13,       /* a bug or an unexpected library failure ("internal") */
    PT2_ERR_OUTSIDE_ROOT = -14,   /* a path leaves every allowed root ("outside-root") */
    PT2_ERR_OVERLOADED = -15,     /* no capacity now; retry later ("overloaded") */
    PT2_ERR_METHOD = -16,         /* the operation does not apply here ("method-not-allowed") */
    PT2_ERR_MEDIA_TYPE = -17,     /* input of a type not accepted ("unsupported-media-type") */
    PT2_ERR_NO_ROUTE = -18,       /* no such operation at all ("not-found") */
    PT2_ERR_DOCS_NOT_BUILT = -19, /* a document this build left out ("docs-not-built") */
    PT2_ERR_TORCH_SAVE = -20,   /* a torch.save checkpoint, not a .pt2 ("torch-save-checkpoint") */
    PT2_ERR_FORBIDDEN = -21,    /* the server may not read it; why is not said ("forbidden") */
    PT2_ERR_UNAUTHORIZED = -22, /* no valid credentials ("unauthorized") */
    PT2_ERR_HOST_NOT_ALLOWED =
        -23,                      /* a Host this server does not answer for ("host-not-allowed") */
    PT2_ERR_REMOTE_REFUSED = -24, /* a URL (or a redirect hop) not allowed ("remote-refused") */
    PT2_ERR_REMOTE_UNREACHABLE =
        -25, /* the remote server failed or answered an error ("remote-unreachable") */
    PT2_ERR_REMOTE_NO_RANGE =
        -26, /* no Range support and too large to download ("remote-no-range") */
    PT2_ERR_REMOTE_CHANGED =
        -27, /* the remote object changed during the inspection ("remote-changed") */
    PT2_ERR_REMOTE_TIMEOUT = -28 /* the remote server did not answer in time ("remote-timeout") */
};
/* The lowest status code: every code from PT2_ERR_LAST to PT2_OK has a slug. */
#define PT2_ERR_LAST PT2_ERR_REMOTE_TIMEOUT

#define PT2_ERROR_MSG_MAX 512

/* Caller-owned error object; the first error set wins until cleared. */
struct pt2_error {
    int code;                        /* enum pt2_status */
    char message[PT2_ERROR_MSG_MAX]; /* one human-readable line */
};

void pt2_error_clear(struct pt2_error *err);
/*
 * Record `code` with a printf-style message unless an error is already set
 * (a low-level cause is not overwritten by a caller's generic message).
 * Returns the code actually stored, so `return pt2_error_set(...)` works;
 * `err` may be NULL, in which case `code` is returned unchanged.
 */
int pt2_error_set(struct pt2_error *err, int code, const char *fmt, ...) PT2_PRINTF(3, 4);
/* Copy `src` into `dst` (first error wins). Returns src->code. */
int pt2_error_copy(struct pt2_error *dst, const struct pt2_error *src);
/* Stable slug for a status code, e.g. "not-a-zip"; "internal" for unknown codes; never NULL. */
const char *pt2_status_slug(int code);

/* ---- Problem documents --------------------------------------------------- */

/*
 * Every failure as an RFC 9457 problem document, the same for the daemon's
 * answers and the CLI's --json errors: {"type": PT2_PROBLEM_BASE + slug,
 * "title" (one per type), "status" (the HTTP status the API answers with:
 * 4xx for a client's mistake or an unusable package, 5xx only for our own
 * failures), "detail" (omitted when NULL/""), "instance" (omitted when
 * NULL/"")}. NULL when out of memory; the caller deletes the document.
 */
#define PT2_PROBLEM_BASE "https://pt2scope.dev/problems/"
cJSON *pt2_problem_json(int code, const char *detail, const char *instance);
unsigned pt2_problem_status(int code);
const char *pt2_problem_title(int code);

/* ---- Numbers and text --------------------------------------------------- */

/*
 * The one checked integer parser: the whole string, digits only (no blanks,
 * no '+'), no overflow. PT2_OK with *out set, else PT2_ERR_INVALID and *out
 * untouched. Base 10 or 16 (no "0x" prefix). pt2_num_u64n parses `len` bytes.
 */
int pt2_num_u64(const char *s, int base, uint64_t *out);
int pt2_num_u64n(const char *s, size_t len, int base, uint64_t *out);
/*
 * The number at the start of `s`, for text that goes on after it: one or
 * more digits (no blanks, no sign), no overflow; *end is set past the last
 * digit. On failure *out and *end are untouched.
 */
int pt2_num_u64_prefix(const char *s, int base, uint64_t *out, const char **end);
/* Decimal with an optional leading '-'. */
int pt2_num_i64(const char *s, int64_t *out);
/* Decimal within [min, max]. */
int pt2_num_long(const char *s, long min, long max, long *out);

/* Replace, in place, every byte of s[0..len) that is not part of a valid UTF-8
 * sequence with '?'. The length never changes, so a JSON text stays JSON. */
void pt2_utf8_scrub(char *s, size_t len);

/* ---- JSON helpers ------------------------------------------------------ */

/* Add `s` as a string member, or null when `s` is NULL or empty: 1, or 0 when out of memory. */
int pt2_json_add_str_or_null(cJSON *o, const char *key, const char *s);
/* Add `v` as a number member, or null when !present: 1, or 0 when out of memory. */
int pt2_json_add_num_or_null(cJSON *o, const char *key, double v, int present);
/*
 * Add `item` as member `key` of `o` (or append it to the array `o` when key
 * is NULL): 1, or 0 when item is NULL or out of memory. Takes ownership of
 * item either way; cJSON_AddItemToObject leaves it with the caller when
 * copying the key fails, which every "if (!add(o, k, make()))" leaks.
 */
int pt2_json_add_owned(cJSON *o, const char *key, cJSON *item);
/* The string member `key` of `o`, borrowed; NULL when absent or not a string (o may be NULL). */
const char *pt2_json_str(const cJSON *o, const char *key);
/*
 * cJSON_PrintUnformatted's bytes for `doc`, printed faster (integers by
 * hand, strings by unescaped runs): malloc'd (free()), NUL-terminated, with
 * `spare` free bytes after the NUL's position (a newline); the length in
 * *len. NULL when out of memory, for an invalid item, or for a tree deeper
 * than 512 (cJSON's own printer takes those).
 */
char *pt2_json_print(const cJSON *doc, size_t spare, size_t *len);

/* Limits on a JSON text, checked before any tree is built (0 = no limit). */
struct pt2_json_limits {
    size_t max_bytes;   /* the whole text */
    unsigned max_depth; /* nesting of arrays and objects */
    size_t max_values;  /* values of any kind, keys included */
    size_t max_string;  /* bytes of one string, as written (escapes count as written) */
};

/*
 * Walk `text` once, allocating nothing: PT2_ERR_TOO_LARGE past a limit,
 * PT2_ERR_INVALID for a NUL byte, a \u0000 escape or invalid UTF-8 (the
 * message names `what` and the byte offset). It does not check the grammar.
 */
int pt2_json_check(const char *text, size_t len, const struct pt2_json_limits *lim,
                   const char *what, struct pt2_error *err);
/*
 * pt2_json_check, then exactly one JSON value (whitespace around it allowed,
 * a UTF-8 byte order mark skipped): *out is the caller's. PT2_ERR_INVALID
 * for malformed text, PT2_ERR_TOO_LARGE past a limit.
 */
int pt2_json_parse(const char *text, size_t len, const struct pt2_json_limits *lim,
                   const char *what, cJSON **out, struct pt2_error *err);

/* ---- Byte sources -------------------------------------------------------- */

/*
 * A byte source is what the inspector reads a package through: a local file,
 * a spooled upload or a remote object, all behind one read-at callback and a
 * size. The source adds a bounded block cache, read-ahead, and coalescing of
 * nearby reads; after the central directory is known the inspector plans
 * every header range it will need and fetches them in one batch
 * (pt2_source_prefetch), so a remote object costs a few round trips and a
 * local file a handful of pread()s.
 */
typedef struct pt2_source pt2_source;

struct pt2_range {
    uint64_t off, len;
};

struct pt2_source_ops {
    /*
     * Read len bytes at off into buf; *got < len only at the end of the
     * object. PT2_OK or a status (with err filled). Required.
     */
    int (*read_at)(void *ctx, uint64_t off, void *buf, size_t len, size_t *got,
                   struct pt2_error *err);
    /*
     * Read n ranges at once (bufs[i] receives ranges[i] whole; the ranges lie
     * inside the object and do not overlap), e.g. as parallel requests.
     * Optional: when NULL the source calls read_at once per range.
     */
    int (*read_many)(void *ctx, const struct pt2_range *ranges, void *const *bufs, size_t n,
                     struct pt2_error *err);
};

/* Tuning; zero fields take the defaults given. */
struct pt2_source_tuning {
    size_t block;       /* reads are aligned to this (default 4 KiB) */
    size_t readahead;   /* a miss reads at least this much (default 64 KiB) */
    size_t gap;         /* planned ranges this close are fetched as one (default 64 KiB) */
    size_t cache_bytes; /* bytes kept (default 16 MiB, 4 MiB for a descriptor: the page cache
                           is behind it); single reads over a quarter of it bypass it */
    int direct;         /* every read goes to the backend as asked, nothing cached or
                           planned: what reading costs without this layer (benchmarks) */
};

/*
 * A source over ops + ctx (both borrowed; they must outlive the source) of
 * `size` bytes. *out is freed with pt2_source_free(), which never calls the
 * ops. `tuning` may be NULL.
 */
int pt2_source_new(pt2_source **out, const struct pt2_source_ops *ops, void *ctx, uint64_t size,
                   const struct pt2_source_tuning *tuning, struct pt2_error *err);
/* A source over a descriptor, read with pread() (the descriptor stays the caller's). */
int pt2_source_new_fd(pt2_source **out, int fd, const struct pt2_source_tuning *tuning,
                      struct pt2_error *err);
void pt2_source_free(pt2_source *src);

uint64_t pt2_source_size(const pt2_source *src);
/* Read through the cache: like read_at, and counted. */
int pt2_source_read(pt2_source *src, uint64_t off, void *buf, size_t len, size_t *got,
                    struct pt2_error *err);
/* Fetch the missing parts of these ranges (clamped to the object) in one batch. */
int pt2_source_prefetch(pt2_source *src, const struct pt2_range *ranges, size_t n,
                        struct pt2_error *err);
/* Put bytes already known (a first response's body) in the cache, as if read at `off`. */
int pt2_source_seed(pt2_source *src, uint64_t off, const void *data, size_t len,
                    struct pt2_error *err);

/*
 * PT2_OK, or the backend's first failure (copied into err): once a backend
 * read fails, every later read through the source fails the same way.
 */
int pt2_source_failed(const pt2_source *src, struct pt2_error *err);

/* What reached the backend: read_at/read_many ranges, bytes, and sequential batches. */
uint64_t pt2_source_requests(const pt2_source *src);
uint64_t pt2_source_bytes(const pt2_source *src);
uint64_t pt2_source_rounds(const pt2_source *src);

/*
 * Start recording a digest of every byte the backend delivers from now on,
 * with its offset, in the order asked for. Two objects of equal size whose
 * inspections read the same bytes at the same offsets get the same answer
 * from this deterministic library, and the same digest; any difference in
 * what was read changes it. So it can key a cache or an ETag without
 * hashing bytes the inspection never needed (an upload's weights).
 */
void pt2_source_record_digest(pt2_source *src);
/* The SHA-256 recorded so far (32 bytes; zeros when never started). */
void pt2_source_digest(const pt2_source *src, uint8_t out[32]);

/* ---- Uploads inspected as they stream ------------------------------------- */

/*
 * An upload fed as it arrives. Entries are recognised from their local
 * headers as they stream past; what an inspection reads (headers, libraries,
 * kernels, wrapper sources, metadata, the central directory) is kept — in
 * memory up to memory_cap, past it in a spill file the caller provides —
 * and the data of every other entry (weights, constants, blobs) is counted,
 * its CRC-32 checked, and dropped. At the end the central directory is
 * checked against what streamed past. Where the stream cannot be followed
 * the upload keeps every later byte, so one that was never followed is kept
 * whole ("streamed": false, with the reason); one that stops being followed
 * after something was dropped cannot be inspected (pt2_upload_source fails
 * with PT2_ERR_UNSUPPORTED and says to send it again unstreamed). The
 * source then reads the kept bytes at their offsets (what was dropped reads
 * as zeros; no inspection reads it). Ownership: *out is freed with
 * pt2_upload_free(), which frees the source too; the spill descriptor
 * stays the caller's. One thread at a time.
 */
typedef struct pt2_upload pt2_upload;

struct pt2_upload_options {
    size_t memory_cap; /* kept bytes held in memory (0 = 8 MiB); the rest go to the spill file */
    /* A file for kept bytes past memory_cap, asked for once, when first needed; the
     * descriptor stays the caller's. PT2_OK and *fd, or a status with err filled. */
    int (*spill)(void *ctx, int *fd, struct pt2_error *err);
    void *spill_ctx;
    int keep_all; /* keep every byte (the upload is not streamed) */
    /* Optional: asked before memory for `more` kept bytes is allocated; 0 refuses, and
     * those bytes and all later ones go to the spill file. Called with spill_ctx. */
    int (*reserve)(void *ctx, size_t more);
};

int pt2_upload_new(pt2_upload **out, const struct pt2_upload_options *o, struct pt2_error *err);
/* The next bytes of the body. Fails only when keeping fails (memory, the spill file). */
int pt2_upload_feed(pt2_upload *u, const void *data, size_t len, struct pt2_error *err);
/* The body ended. */
int pt2_upload_finish(pt2_upload *u, struct pt2_error *err);
/*
 * After finish: a byte source over the upload (borrowed from u). PT2_ERR_UNSUPPORTED when
 * it was not followed after bytes were dropped; PT2_ERR_ENTRY when a dropped entry's data
 * does not match its CRC-32 (the package is corrupt).
 */
int pt2_upload_source(pt2_upload *u, pt2_source **out, struct pt2_error *err);
/*
 * package.source of an upload (new object, the caller's): {"upload": true, "streamed",
 * "streamed_reason" (only when not streamed), "bytes_received", "bytes_kept",
 * "bytes_spilled", "entries_dropped"}. NULL on allocation failure.
 */
cJSON *pt2_upload_source_json(const pt2_upload *u);
uint64_t pt2_upload_size(const pt2_upload *u);    /* bytes fed */
uint64_t pt2_upload_kept(const pt2_upload *u);    /* of them kept */
uint64_t pt2_upload_spilled(const pt2_upload *u); /* of them in the spill file */
void pt2_upload_free(pt2_upload *u);

/* ---- Package inspection ------------------------------------------------- */

typedef struct pt2_package pt2_package;

struct pt2_open_options {
    /* Name shown in reports (defaults to the path's basename). May be NULL. */
    const char *display_name;
    /* Cap on any single small JSON entry read (0 = default 1 MiB). */
    size_t json_cap;
    /*
     * Judge one model (NULL or "" = all): only data/aotinductor/<model>/ and
     * models/<model>.json are read, so every document, verdict and listing
     * item is that model's, as torch's loader given model_name loads only it.
     * PT2_ERR_NOT_FOUND, naming the models the package has, when absent.
     */
    const char *model;
};

/*
 * Inspect the package at `path` (or an open descriptor; the descriptor is
 * only read with pread and stays owned by the caller). All reads are
 * bounded: weights and large binaries are never read whole.
 */
int pt2_package_open_path(pt2_package **out, const char *path, const struct pt2_open_options *opts,
                          struct pt2_error *err);
int pt2_package_open_fd(pt2_package **out, int fd, const struct pt2_open_options *opts,
                        struct pt2_error *err);
/*
 * Inspect the package behind a byte source (borrowed for the call only; the
 * package keeps nothing of it). The name shown defaults to "package.pt2".
 */
int pt2_package_open_source(pt2_package **out, pt2_source *src, const struct pt2_open_options *opts,
                            struct pt2_error *err);
void pt2_package_free(pt2_package *pkg);

/*
 * An estimate of the heap bytes an opened package holds (its tables of
 * kernels, binaries, models and programs, the metadata it kept), for caches
 * bounded in bytes; 0 for NULL.
 */
uint64_t pt2_package_memory(const pt2_package *pkg);

/*
 * Say where the package came from: `source` (ownership moves in, also on
 * failure; NULL clears) is reported as the document's package.source, e.g.
 * {"url", "validator", "requests", "bytes_transferred"} for a remote
 * object. Call it before the package is shared between threads.
 */
void pt2_package_set_source(pt2_package *pkg, cJSON *source);

/* Bytes and read calls the inspection issued against the file. */
uint64_t pt2_package_bytes_read(const pt2_package *pkg);
uint64_t pt2_package_read_calls(const pt2_package *pkg);

enum pt2_json_flags {
    PT2_JSON_DEFAULT = 0,
    /*
     * The Open Inference Protocol (KServe v2) view: `metadata` is the protocol's
     * model metadata response {"name", "versions" (only when the user metadata
     * records a "version"), "platform" ("pytorch_aoti", or "pytorch_export" for
     * exported programs only), "inputs", "outputs"} and every tensor spec its
     * {"name", "datatype", "shape"} with -1 for dynamic dims. Only the protocol's
     * datatypes (BOOL, UINT8-64, INT8-64, FP16, FP32, FP64, BYTES): a tensor it
     * cannot type, or of unknown rank, is left out and "warnings" (in the
     * metadata, and in the document's) says which and why.
     */
    PT2_JSON_OIP = 1 << 0,
    /*
     * Add `scheduling` ({"node_affinity": pt2_package_node_affinity's}): asked
     * for, not computed for every document, because it is most of the
     * document's bytes and half of an uncached inspection's work; the daemon's
     * `affinity=1`. The CLI's `inspect --json` and the bindings ask for it.
     */
    PT2_JSON_AFFINITY = 1 << 2
};

/* Kernel records listed in arch.kernels at most; arch.kernels_total counts them all. */
#define PT2_REPORT_KERNELS_MAX 4096u

/* The full inspection document: arch, metadata, package, models, scheduling
 * (with PT2_JSON_AFFINITY only: {"node_affinity": pt2_package_node_affinity's,
 * or null past its term cap with a warning}), warnings, bytes_read. */
int pt2_package_to_json(const pt2_package *pkg, unsigned flags, cJSON **out, struct pt2_error *err);
/* PT2_OK when the package's document can be written, else the error pt2_package_to_json
 * and pt2_package_print_json return (its metadata could not be read), to check first. */
int pt2_package_document_check(const pt2_package *pkg, struct pt2_error *err);
/*
 * The same document as text, without building its tree: the bytes
 * cJSON_PrintUnformatted prints for pt2_package_to_json's document, with
 * the members of the object `extra` (borrowed; NULL for none) appended
 * after bytes_read, as cJSON_AddItemToObject would (their names must not be
 * the document's). *out is malloc'd (free()), NUL-terminated, with `spare`
 * free bytes after the NUL's position (a newline); its length in *len.
 */
int pt2_package_print_json(const pt2_package *pkg, unsigned flags, const cJSON *extra, size_t spare,
                           char **out, size_t *len, struct pt2_error *err);
/* The `arch` or `metadata` member alone. */
int pt2_package_arch_json(const pt2_package *pkg, unsigned flags, cJSON **out,
                          struct pt2_error *err);
int pt2_package_metadata_json(const pt2_package *pkg, unsigned flags, cJSON **out,
                              struct pt2_error *err);

/*
 * Validate proposed input shapes: `inputs` is a JSON object {name: [d0, d1, ...]}.
 * Checks against the specs the package records (model_metadata.json, else
 * the exported program, else the AOTI wrapper): names, rank, fixed sizes,
 * dynamic bounds (inclusive) and one size per shared symbol across inputs.
 * On PT2_OK *out is the answer {"valid": bool, "errors": ["..."] (every
 * violation, in order), "warnings": ["..."] (e.g. shapes not recorded, so
 * only names were checked)}; the caller deletes it. PT2_ERR_INVALID when
 * `inputs` is not of that form, PT2_ERR_NOT_FOUND when the package records
 * no inputs at all.
 */
int pt2_package_validate(const pt2_package *pkg, const cJSON *inputs, cJSON **out,
                         struct pt2_error *err);

/* ---- Compatibility ------------------------------------------------------ */

/* A device to check against. Zero fields mean "unknown". */
struct pt2_device {
    int cc_major, cc_minor;  /* compute capability; 0.0 = no NVIDIA GPU */
    int driver_cuda_version; /* cuDriverGetVersion() form, e.g. 12040; 0 = unknown */
    char name[128];          /* "NVIDIA H100", or the target text */
    char gfx[32];            /* AMD target ("gfx90a"), empty for NVIDIA */
    /* The node's OS/arch (pt2_platform_parse: "linux/amd64", "linux/arm64",
     * "windows/amd64"); "" = Linux on the architectures GPUs ship in (amd64, arm64). */
    char platform[16];
};

/* Ordered from best to worst: the worse of two verdicts is the larger. */
/* PT2_UNVERIFIED: a requirement the facts cannot settle either way (a runtime whose torch
 * lies inside a shim's release range, an exact-build C++ import): neither compatible nor not. */
enum pt2_verdict {
    PT2_COMPATIBLE = 0,
    PT2_COMPATIBLE_PTX_JIT = 1,
    PT2_UNVERIFIED = 2,
    PT2_INCOMPATIBLE = 3
};
#define PT2_VERDICT_COUNT 4

struct pt2_verdict_result {
    int verdict;      /* enum pt2_verdict */
    char reason[512]; /* one sentence naming the package targets and the device */
    /*
     * What a person can do about it, one or two sentences, decided by the same
     * rule as the verdict: "" when compatible, never "" otherwise. E.g. for
     * sm_90a-only kernels on 8.0: rebuild with TORCH_CUDA_ARCH_LIST="8.0;9.0a"
     * and aot_inductor.emit_multi_arch_kernel=True; for CUDA 13 cubins on a
     * CUDA 12.4 driver: upgrade the driver to branch 580 or newer.
     */
    char advice[512];
    /*
     * The machine-readable reason, one of a fixed set a pipeline can match:
     * "compatible", "ptx-jit", "arch-mismatch", "variant-mismatch",
     * "driver-too-old", "driver-unknown" (--strict), "no-gpu", "wrong-vendor",
     * "no-kernels", "host-platform", "cpu-isa", "cpu-unknown" (--strict),
     * "not-loadable", "needs-compile", "runtime".
     */
    char code[24];
    /* What the verdict requires of the device, as data: the CUDA driver (12080 form) the
     * kernels it runs need (0 = none), the CPU features the host code needs ("a,b"). */
    int requires_driver;
    char requires_cpu[192];
    /* Requirements the device does not settle (PT2_UNVERIFIED_* bits): a driver or CPU
     * features that are not known. --strict makes each of them incompatible. */
    unsigned unverified;
};
#define PT2_UNVERIFIED_CUDA_DRIVER 1u
#define PT2_UNVERIFIED_CPU_FEATURES 2u
#define PT2_UNVERIFIED_RUNTIME 4u /* a runtime entry's "unverified" list is not empty */

/* Parse "9.0", "sm_90a", "90", "H100", "A100", "gfx90a"... into a device. */
int pt2_target_parse(const char *text, struct pt2_device *out, struct pt2_error *err);
/* Set dev->platform from "linux/amd64", "linux/arm64" or "windows/amd64" (--platform). */
int pt2_platform_parse(const char *text, struct pt2_device *dev, struct pt2_error *err);
/* Parse "12.4" / "12040" into the cuDriverGetVersion() form. */
int pt2_driver_version_parse(const char *text, int *out, struct pt2_error *err);

int pt2_package_check_device(const pt2_package *pkg, const struct pt2_device *dev,
                             struct pt2_verdict_result *out, struct pt2_error *err);

/*
 * Host CPU verdict: `machine` as uname reports it ("x86_64", "aarch64") and the
 * node's CPU features in /proc/cpuinfo spelling ("avx2", "avx512f", "asimd").
 */
int pt2_package_check_cpu(const pt2_package *pkg, const char *machine, const char *const *features,
                          size_t nfeatures, struct pt2_verdict_result *out, struct pt2_error *err);

/* "compatible", "compatible-ptx-jit", "unverified", "incompatible". */
const char *pt2_verdict_name(int verdict);
/* The enum pt2_verdict for such a name; -1 for NULL or anything else. */
int pt2_verdict_from_name(const char *name);

/*
 * A raw kernel file (.cubin, .fatbin, .hsaco, .ptx; no package) against
 * `dev`. The file is read whole through a cap of PT2_KERNEL_FILE_MAX bytes.
 * PT2_ERR_IO when it cannot be read, PT2_ERR_TOO_LARGE past the cap,
 * PT2_ERR_FORMAT when no GPU kernel is recognised in it.
 */
#define PT2_KERNEL_FILE_MAX (256u * 1024u * 1024u)
int pt2_kernel_file_check(const char *path, const struct pt2_device *dev,
                          struct pt2_verdict_result *out, struct pt2_error *err);

/* ---- This node ---------------------------------------------------------- */

/*
 * What this machine has: NVIDIA GPUs through the CUDA Driver API (libcuda.so.1
 * opened with dlopen, never linked), AMD GPUs from the KFD topology in sysfs
 * (no ROCm libraries), and the CPU (machine, model, SIMD features). A node
 * without a driver or GPUs is a fact, not an error: it probes fine and says why
 * in its document. A probe is immutable; probe again to see changes.
 */
typedef struct pt2_node pt2_node;

struct pt2_node_options {
    const char *libcuda;    /* NULL or "": $PT2SCOPE_LIBCUDA, else "libcuda.so.1" */
    const char *sysfs_root; /* NULL or "": $PT2SCOPE_SYSFS_ROOT, else "/sys" */
    const char *name;       /* the node's name; NULL or "": gethostname() */
};

/* Probe this node. Fails only for invalid options (over-long paths) or out of memory. */
int pt2_node_probe(pt2_node **out, const struct pt2_node_options *opts, struct pt2_error *err);
void pt2_node_free(pt2_node *node);
/* GPUs found, NVIDIA and AMD together. */
size_t pt2_node_gpu_count(const pt2_node *node);
/* The node's name and the probe time (RFC 3339 UTC), borrowed from the node. */
const char *pt2_node_name(const pt2_node *node);
const char *pt2_node_probed_at(const pt2_node *node);
/* One line for logs: "2 NVIDIA GPUs (CUDA 12.4 driver, libcuda.so.1), no AMD GPU: ...". */
const char *pt2_node_summary(const pt2_node *node, char *buf, size_t len);
/*
 * The node document:
 * {"node", "probed_at",
 *  "driver_cuda_version": 12040 | null, "driver_cuda": "12.4" | null, "library",
 *  "count", "cu_error", "cu_error_name", "reason", "gpus": [NVIDIA GPUs],
 *  "amd_gpus": [{"index", "target": "rocm:0", "name", "gfx": "gfx90a",
 *                "gfx_target_version": 90010, "kfd_node", "vendor_id", "device_id",
 *                "pci_bus_id", "compute_units", "unique_id"}],
 *  "amd_reason": null | "...", "cpu": {...}}
 */
int pt2_node_to_json(const pt2_node *node, cJSON **out, struct pt2_error *err);
/*
 * The device `device` names, as torch spells it: "cuda" or NULL or "" = the
 * first GPU, "cuda:N" or "N" = GPU N (NVIDIA GPUs when the node has any,
 * else AMD GPUs, as torch on ROCm numbers them), "rocm:N" = AMD GPU N.
 * Fills *dev (name "NVIDIA H100 80GB HBM3 (cuda:0)") and `label` ("cuda:0",
 * "rocm:0"). PT2_ERR_INVALID for another spelling ("cpu", "cuda:x"),
 * PT2_ERR_NOT_FOUND when that GPU is not there (the message says why).
 */
int pt2_node_device(const pt2_node *node, const char *device, struct pt2_device *dev, char *label,
                    size_t label_len, struct pt2_error *err);
/* Whether `device` is one of those spellings (no node needed): PT2_OK or PT2_ERR_INVALID. */
int pt2_device_check(const char *device, struct pt2_error *err);

/* ---- Verdicts: "does it run here?" ---------------------------------------- */

/*
 * One answer for the CLI, the daemon, the cluster fan-out and Kubernetes
 * node lists. Entries come from targets (kind "target": a named GPU or
 * compute capability) and from a node (kind "gpu", one per GPU of the node
 * or only the selected one, then kind "cpu"). The overall verdict is the
 * worst over the targets when any target was added, else the node's
 * verdict: the best of its GPUs (or incompatible when the package needs a
 * kind of GPU the node lacks, naming what is missing), combined with the
 * CPU, the worse of the two winning. A package whose metadata is invalid
 * cannot be judged: adding it fails with that metadata error.
 */
typedef struct pt2_verdicts pt2_verdicts;

int pt2_verdicts_new(pt2_verdicts **out, struct pt2_error *err);
void pt2_verdicts_free(pt2_verdicts *v);
/* --strict: every requirement a device or runtime does not settle (an unknown driver, unknown
 * CPU features, a runtime's unverified needs) is incompatible, code "driver-unknown",
 * "cpu-unknown" or "runtime". Set before adding entries. */
void pt2_verdicts_set_strict(pt2_verdicts *v, int strict);
/* Check `pkg` on `dev` (from pt2_target_parse) and add a "target" entry labelled `label`. */
int pt2_verdicts_add_target(pt2_verdicts *v, const pt2_package *pkg, const char *label,
                            const struct pt2_device *dev, struct pt2_error *err);
/*
 * Add this node's entries and decide its verdict: every GPU, or only the one
 * `device` selects (see pt2_node_device; NULL = every GPU), then the CPU.
 * `driver_cuda_version` > 0 replaces the probed driver version (what-if).
 * PT2_ERR_INVALID / PT2_ERR_NOT_FOUND for a bad `device`, as pt2_node_device.
 * Once a target is added this adds nothing (a target names where the package
 * goes, so the node is not asked), and a `device` then is PT2_ERR_INVALID.
 */
int pt2_verdicts_add_node(pt2_verdicts *v, const pt2_package *pkg, const pt2_node *node,
                          const char *device, int driver_cuda_version, struct pt2_error *err);
/* The overall verdict; PT2_ERR_INVALID when nothing was added. */
int pt2_verdicts_overall(const pt2_verdicts *v, struct pt2_verdict_result *out,
                         struct pt2_error *err);
/*
 * {"compatibility": [{"target", "kind": "target" | "gpu" | "cpu",
 *                     "device": {"name", "compute_capability", "gfx",
 *                                "driver_cuda_version", ...}, "verdict", "reason",
 *                     "advice"}],
 *  "overall": {"verdict", "reason", "advice"}}
 * "advice" is the verdict's advice (struct pt2_verdict_result), null when
 * the verdict is compatible; the overall's is that of the entry or node
 * side that decided it.
 * GPU entries add the GPU's index, uuid, pci_bus_id, ... to the device; the
 * CPU entry's device is {"name", "machine", "vendor", "vec_isa"}.
 */
int pt2_verdicts_to_json(const pt2_verdicts *v, cJSON **out, struct pt2_error *err);

/* ---- Runtimes: "does it load there?" --------------------------------------- */
/*
 * torch opens a model library with dlopen(RTLD_NOW): every library it needs,
 * every symbol version and every non-weak undefined symbol must resolve
 * there. A runtime describes where it will be loaded:
 *  - pt2_runtime_parse: a spec, items joined by ',': a base (debian11,
 *    debian12, debian13, ubuntu20.04, ubuntu22.04, ubuntu24.04, rhel8, rhel9,
 *    manylinux_2_28, al2023) and/or glibc=2.36, glibcxx=3.4.30, cxxabi=1.3.13,
 *    torch=2.8, macos=14.0 ("ubuntu22.04,torch=2.8"), or local (this machine, as
 *    pt2_runtime_local); PT2_ERR_INVALID with
 *    a message naming the bad item;
 *  - pt2_runtime_sysroot: a mounted root of the serving image, resolved as the
 *    loader would (an `ldd -r` that executes nothing); PT2_ERR_NOT_FOUND for
 *    a missing folder, PT2_ERR_INVALID when it is not a root filesystem;
 *  - pt2_runtime_libtorch: a torch build's libtorch_cpu.so (or its folder):
 *    shims and libtorch C++ imports are judged against its exports exactly;
 *    pt2_runtime_use_libtorch adds that to another runtime;
 *  - pt2_runtime_local: this machine (its glibc, the libstdc++ the loader finds),
 *    labelled "local".
 * A runtime is immutable and may be shared by threads.
 */
typedef struct pt2_runtime pt2_runtime;
int pt2_runtime_parse(const char *spec, pt2_runtime **out, struct pt2_error *err);
int pt2_runtime_sysroot(const char *dir, pt2_runtime **out, struct pt2_error *err);
int pt2_runtime_libtorch(const char *path, pt2_runtime **out, struct pt2_error *err);
int pt2_runtime_use_libtorch(pt2_runtime *rt, const char *path, struct pt2_error *err);
int pt2_runtime_local(pt2_runtime **out, struct pt2_error *err);
void pt2_runtime_free(pt2_runtime *rt);
/*
 * The runtimes one check judges, built the one way the CLI, the daemon and
 * the bindings all use: one per spec, the sysroot, and `libtorch` applied to
 * each (a runtime of its own when alone); with `local` and none of those,
 * this machine. rts has room for nspecs + 2; on failure nothing is left to
 * free and *which (may be NULL) names the input: "runtime", "sysroot" or
 * "libtorch".
 */
int pt2_runtimes_build(const char *const *specs, size_t nspecs, const char *sysroot,
                       const char *libtorch, int local, pt2_runtime **rts, size_t *n,
                       const char **which, struct pt2_error *err);
/* The spec as given, "sysroot:DIR", "libtorch:PATH" or "local"; borrowed. */
const char *pt2_runtime_label(const pt2_runtime *rt);
/* {"name", "description", "os", "glibc", "glibcxx", "cxxabi", "torch", "macos", "sysroot",
 *  "libtorch"} (null where not described); NULL when out of memory. */
cJSON *pt2_runtime_json(const pt2_runtime *rt);
/*
 * Judge the package's loaded libraries (the last library of each model
 * folder in zip order, as torch's loader takes it) on `rt` and add a
 * "runtime" entry: {"target": label, "kind": "runtime", "device":
 * pt2_runtime_json, "verdict", "reason" (the first unmet need, naming the
 * provider: "needs GLIBC_2.38 from libc.so.6 (4 symbols); Debian 12 has
 * glibc 2.36"), "advice", "requires": {"glibc", "glibcxx", "cxxabi",
 * "torch"}, "unverified": [requirements the runtime does not settle],
 * "missing" (sysroot and libtorch checks: {"libraries", "versions",
 * "symbols", "*_total"})}. The verdict is "unverified" when a described
 * requirement cannot be settled (a torch inside a shim's release range,
 * exact-build C++ imports, custom shims); it feeds the overall verdict,
 * the worse winning.
 */
int pt2_verdicts_add_runtime(pt2_verdicts *v, const pt2_package *pkg, const pt2_runtime *rt,
                             struct pt2_error *err);

/* ---- Listings: one item per package --------------------------------------- */

/*
 * One package as GET /v1/packages and `pt2scope scan --json` list it: the
 * daemon and the CLI find and open the files, and build each item here, so
 * the item, the targets short form and the verdicts are decided once.
 *
 * An item for a package that opened:
 *   {"name", "size", "mtime" (RFC 3339 UTC, "2025-06-01T12:00:00Z"),
 *    "kind" ("aoti", "exported-program", "aoti+exported-program"),
 *    "device" ("cuda", "rocm", "cpu", "xpu", "cuda+cpu": what the models run on;
 *              null without compiled models),
 *    "targets" (pt2_listing_targets; null without compiled code), "models" (count)}
 * and with targets also
 *   "verdicts": [{"target", "verdict", "code", "reason"}] (one per target, in order),
 *   "overall": {"verdict", "code", "reason", "advice"} (the worst, as pt2_verdicts decides).
 * An item for a package that /v1/inspect refuses (it did not open, or its
 * metadata is invalid): {"name", "size", "mtime", "type", "title", "status",
 * "detail"}, the problem document of that refusal without "instance".
 * "size" and "mtime" are null when the file could not be stat'ed.
 */
struct pt2_listing_file {
    const char *name; /* as listed: relative to the model root, or the path scanned */
    int has_stat;     /* 0: size and mtime unknown (null) */
    uint64_t size;    /* bytes */
    int64_t mtime;    /* modification time, seconds since the epoch */
};

struct pt2_listing_target {
    const char *label;     /* as the user wrote it ("B200"); borrowed */
    struct pt2_device dev; /* pt2_target_parse(label), with any driver version set */
    /* When set, the entry is this runtime's verdict (pt2_verdicts_add_runtime) and dev is
     * not used; borrowed. */
    const pt2_runtime *runtime;
};

/* The targets short form fits in this many bytes (longer lists end in ", more"). */
#define PT2_LISTING_TARGETS_TEXT_MAX 512

/*
 * The item for `file`: from `pkg` when it opened, else (pkg NULL) from
 * `problem`, the error opening it gave. Fails only for missing arguments or
 * out of memory; a package's own trouble is an item, never a failure.
 */
int pt2_listing_item(const struct pt2_listing_file *file, const pt2_package *pkg,
                     const struct pt2_error *problem, const struct pt2_listing_target *targets,
                     size_t n_targets, cJSON **out, struct pt2_error *err);

/*
 * Set an item's "size" and "mtime" from `file` (its has_stat, size, mtime),
 * replacing what it had, name and the rest untouched: an item kept from an
 * earlier scan of unchanged bytes, shown with what a new listing says of them.
 */
int pt2_listing_item_stat(cJSON *item, const struct pt2_listing_file *file, struct pt2_error *err);

/*
 * The package's GPU or CPU targets in one short form, into buf (returned):
 * each distinct GPU target once, in the order found: "sm_90a, sm_80+PTX"
 * (SASS, "+PTX" when PTX for the same architecture is there too; lone PTX
 * as "compute_90"), "gfx90a:xnack-" (AMD target ids), "spirv"; without GPU
 * kernels the host code: "cpu x86_64 AVX-512"; "" with no compiled code.
 */
const char *pt2_listing_targets(const pt2_package *pkg, char *buf, size_t len);

/* 1 for an item that is neither a problem nor incompatible overall with its targets
 * (`pt2scope scan` exits 1 when any item is not). */
int pt2_listing_item_ok(const cJSON *item);

/* ---- Kubernetes nodes -------------------------------------------------- */

/*
 * Nodes as NVIDIA GPU Feature Discovery labels them (`kubectl get nodes -o
 * json`: a List, a bare array of Node objects, or one Node), and the verdict
 * of a package on each, by the node rule of pt2_verdicts.
 */
typedef struct pt2_k8s_nodes pt2_k8s_nodes;

#define PT2_K8S_NODES_MAX 10000                /* nodes per request */
#define PT2_K8S_TEXT_MAX (16u * 1024u * 1024u) /* a nodes document as text */
/* JSON values in a nodes document: about 50 MB of parse tree at most. A full
 * `kubectl get nodes -o json` Node has a few hundred values; trim large
 * clusters' lists to metadata.name, metadata.labels and status.nodeInfo. */
#define PT2_K8S_VALUES_MAX 500000u
/* The limits a nodes document is checked against before it is parsed (pt2_json_check). */
extern const struct pt2_json_limits pt2_k8s_json_limits;

/* PT2_ERR_INVALID for a document of another shape (the message names the node),
 * PT2_ERR_TOO_LARGE past PT2_K8S_NODES_MAX nodes or PT2_K8S_TEXT_MAX bytes. */
int pt2_k8s_nodes_parse(pt2_k8s_nodes **out, const cJSON *doc, struct pt2_error *err);
int pt2_k8s_nodes_parse_text(pt2_k8s_nodes **out, const char *text, size_t len,
                             struct pt2_error *err);
void pt2_k8s_nodes_free(pt2_k8s_nodes *nodes);
/*
 * {"nodes": [{"name", "gpu": {...} | null, "arch", "machine", "os", "verdict",
 *             "reason", "advice" (null when compatible),
 *             "checks": {"gpu": {...}, "cpu": {...}}, "note"}],
 *  "summary": {"total", "compatible", "compatible-ptx-jit", "incompatible"}}
 */
int pt2_k8s_compat_json(const pt2_package *pkg, const pt2_k8s_nodes *nodes, cJSON **out,
                        struct pt2_error *err);

/*
 * Where the package can be scheduled: a Kubernetes nodeAffinity that selects
 * exactly the nodes on which pt2_k8s_compat_json's verdict is compatible or
 * compatible-ptx-jit, written over the labels GPU Feature Discovery and the
 * kubelet put on nodes (nvidia.com/gpu.count, nvidia.com/gpu.compute.major
 * and .minor, nvidia.com/cuda.runtime-version.major and .minor when the
 * package needs a minimum driver, kubernetes.io/arch, kubernetes.io/os, and
 * Node Feature Discovery's feature.node.kubernetes.io/cpu-cpuid.<FLAG> for
 * the CPU features its host code needs: a node NFD labels must have them,
 * a node without NFD CPU labels is selected, its CPU features unknown):
 *   {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
 *      {"matchExpressions": [{"key", "operator": "In" | "NotIn" | "Exists" |
 *                             "DoesNotExist" | "Gt" | "Lt", "values": [...]}]}]}}
 * ("values" is absent for Exists and DoesNotExist, one integer for Gt and Lt).
 * Terms are ORed, expressions ANDed, as Kubernetes reads them. A node
 * without the compute-capability labels is never selected. When no node can
 * run the package the one term requires and forbids the label
 * "pt2scope.dev/no-compatible-node", so it selects nothing, and *selectable
 * (may be NULL) is 0; otherwise 1. The same object is the inspection
 * document's scheduling.node_affinity. PT2_ERR_METADATA (the metadata
 * error) when the package cannot be judged, PT2_ERR_TOO_LARGE past 512 terms.
 */
int pt2_package_node_affinity(const pt2_package *pkg, cJSON **out, int *selectable,
                              struct pt2_error *err);

/*
 * What that selector cannot check about the node's CPU, one line for a
 * comment beside it (`pt2scope affinity --yaml` prints it), into buf (`len`
 * bytes, cut to fit): which Node Feature Discovery labels it requires, that
 * nodes without NFD CPU labels are selected with their CPU features unknown,
 * and the needed features NFD does not label by default. "" when the host
 * code needs no CPU feature NFD labels. PT2_ERR_INVALID for NULL arguments,
 * otherwise the errors of pt2_package_node_affinity.
 */
int pt2_package_node_affinity_note(const pt2_package *pkg, char *buf, size_t len,
                                   struct pt2_error *err);

/* ---- Bindings: the stable entry points of libpt2scope.so ------------------ */

/*
 * The device of the calling thread's current CUDA context, as an ordinal,
 * into *ordinal; -1 when the thread has none (a driver never initialised, no
 * driver at all). `libcuda` as in pt2_node_options. Never calls cuInit or
 * creates a context. Fails only for a NULL `ordinal`. (libpt2scope.a; the
 * shared library exports only the pt2scope_* functions below, which use it
 * for the "current" device.)
 */
int pt2_cuda_current_device(const char *libcuda, int *ordinal, struct pt2_error *err);

/*
 * A small set for language bindings (the Python package, over ctypes):
 * plain C types only, JSON text in and out, each answer a document the CLI
 * and the daemon give too. libpt2scope.so exports these functions and
 * nothing else (service/abi/libpt2scope.map); the rest of this header is
 * libpt2scope.a's. PT2SCOPE_ABI_VERSION changes whenever one of them does.
 *
 * Each function that can fail returns PT2_OK or a negative enum pt2_status
 * and sets *out (or *problem) to text the caller frees with pt2scope_free:
 * the answer, or on failure that failure's problem document
 * (pt2_problem_json: "type", "title", "status", "detail"), NULL only when
 * out of memory. A handle (pt2_package) is the caller's until
 * pt2scope_close; an opened package is immutable, so one handle may be read
 * by many threads at once.
 */
#define PT2SCOPE_ABI_VERSION 2
int pt2scope_abi_version(void);
/* PT2SCOPE_VERSION, static. */
const char *pt2scope_version(void);
/* Open a package file, an http(s):// or s3:// URL (no allow list: the caller chose it, as in
 * the CLI), or `len` bytes at `data` (read during the call only; `name` is the name shown, NULL
 * for "package.pt2"). On failure *pkg is NULL and *problem (when not NULL) the problem. */
int pt2scope_open_path(const char *path, pt2_package **pkg, char **problem);
int pt2scope_open_url(const char *url, pt2_package **pkg, char **problem);
int pt2scope_open_buffer(const void *data, size_t len, const char *name, pt2_package **pkg,
                         char **problem);
/* (ABI 2) The same, reading only model `model` of the package (NULL or "" = all; see
 * pt2_open_options.model): `len` bytes at `data` when data is not NULL (`ref` the name shown),
 * else `ref` as a URL or a path. */
int pt2scope_open_model(const char *ref, const void *data, size_t len, const char *model,
                        pt2_package **pkg, char **problem);
void pt2scope_close(pt2_package *pkg);
/*
 * `request` is NULL, "" or a JSON object {"targets": ["H100", "8.0"], "driver": "12.4",
 * "device": "cuda:1" | "rocm:0" | "current", "node": bool, "view": "oip"}.
 *
 * pt2scope_inspect: what GET /v1/inspect answers: the full document
 * (pt2_package_to_json), plus "compatibility" and "overall" (pt2_verdicts)
 * for the targets (the driver applies to them) and, unless "node" is false,
 * this node's GPUs (or only `device`) and CPU.
 *
 * pt2scope_check: what `pt2scope check --json` prints: the targets' verdicts, or without
 * targets this node's (the driver a what-if).
 *
 * "device": "current" is the GPU of the calling thread's CUDA context
 * (pt2_cuda_current_device), else the first visible GPU, else (no GPU) the
 * whole node. A device the node lacks is PT2_ERR_INVALID, as the daemon
 * answers ?device=.
 */
int pt2scope_inspect(const pt2_package *pkg, const char *request, char **out);
int pt2scope_check(const pt2_package *pkg, const char *request, char **out);
/* `inputs` is the JSON object pt2_package_validate takes; *out its answer. */
int pt2scope_validate(const pt2_package *pkg, const char *inputs, char **out);
void pt2scope_free(char *text);

#ifdef __cplusplus
}
#endif

#endif /* PT2SCOPE_H */
