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
#define PT2SCOPE_SCHEMA_VERSION 1

enum pt2_status {
    PT2_OK = 0,
    PT2_ERR_NOMEM = -1,        /* allocation failed */
    PT2_ERR_IO = -2,           /* the file could not be opened or read */
    PT2_ERR_NOT_ZIP = -3,      /* not a zip archive at all */
    PT2_ERR_TRUNCATED = -4,    /* a zip, but truncated or corrupt */
    PT2_ERR_NOT_PT2 = -5,      /* a valid zip that is not a .pt2 package */
    PT2_ERR_ENTRY = -6,        /* an entry inside the archive is unreadable */
    PT2_ERR_METADATA = -7,     /* a metadata document is malformed */
    PT2_ERR_TOO_LARGE = -8,    /* a hard cap was exceeded */
    PT2_ERR_INVALID = -9,      /* bad argument or request */
    PT2_ERR_NOT_FOUND = -10,   /* a named thing does not exist */
    PT2_ERR_FORMAT = -11,      /* a binary is not in a recognised format */
    PT2_ERR_UNSUPPORTED = -12, /* recognised but not supported */
    PT2_ERR_INTERNAL = -13     /* a bug or an unexpected library failure */
};

#define PT2_ERROR_MSG_MAX 512

/* Caller-owned error object; the first error set wins until cleared. */
struct pt2_error {
    int code;                        /* enum pt2_status */
    char message[PT2_ERROR_MSG_MAX]; /* one human-readable line */
};

void pt2_error_clear(struct pt2_error *err);
/* Stable slug for a status code, e.g. "not-a-zip"; never NULL. */
const char *pt2_status_slug(int code);

/* ---- Package inspection ------------------------------------------------- */

typedef struct pt2_package pt2_package;

struct pt2_open_options {
    /* Name shown in reports (defaults to the path's basename). May be NULL. */
    const char *display_name;
    /* Cap on any single small JSON entry read (0 = default 1 MiB). */
    size_t json_cap;
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
void pt2_package_free(pt2_package *pkg);

/* Bytes and read calls the inspection issued against the file. */
uint64_t pt2_package_bytes_read(const pt2_package *pkg);
uint64_t pt2_package_read_calls(const pt2_package *pkg);

enum pt2_json_flags {
    PT2_JSON_DEFAULT = 0,
    PT2_JSON_OIP = 1 << 0 /* tensor specs in Open Inference Protocol shape */
};

/* The full inspection document: arch, metadata, package, models, bytes_read. */
int pt2_package_to_json(const pt2_package *pkg, unsigned flags, cJSON **out, struct pt2_error *err);
/* The `arch` or `metadata` member alone. */
int pt2_package_arch_json(const pt2_package *pkg, unsigned flags, cJSON **out,
                          struct pt2_error *err);
int pt2_package_metadata_json(const pt2_package *pkg, unsigned flags, cJSON **out,
                              struct pt2_error *err);

/*
 * Validate proposed input shapes: `inputs` is a JSON object {name: [d0, d1, ...]}.
 * Returns PT2_OK when the check ran; *message_out is then NULL (valid) or a
 * malloc'd message naming input, axis, expected and got (caller frees).
 * PT2_ERR_INVALID when `inputs` is not of that form.
 */
int pt2_package_validate(const pt2_package *pkg, const cJSON *inputs, char **message_out,
                         struct pt2_error *err);

/* ---- Compatibility ------------------------------------------------------ */

/* A device to check against. Zero fields mean "unknown". */
struct pt2_device {
    int cc_major, cc_minor;  /* compute capability; 0.0 = no NVIDIA GPU */
    int driver_cuda_version; /* cuDriverGetVersion() form, e.g. 12040; 0 = unknown */
    char name[128];          /* "NVIDIA H100", or the target text */
    char gfx[32];            /* AMD target ("gfx90a"), empty for NVIDIA */
};

enum pt2_verdict { PT2_COMPATIBLE = 0, PT2_COMPATIBLE_PTX_JIT = 1, PT2_INCOMPATIBLE = 2 };

struct pt2_verdict_result {
    int verdict;      /* enum pt2_verdict */
    char reason[512]; /* one sentence naming the package targets and the device */
};

/* Parse "9.0", "sm_90a", "90", "H100", "A100", "gfx90a"... into a device. */
int pt2_target_parse(const char *text, struct pt2_device *out, struct pt2_error *err);
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

/* "compatible", "compatible-ptx-jit", "incompatible". */
const char *pt2_verdict_name(int verdict);

#ifdef __cplusplus
}
#endif

#endif /* PT2SCOPE_H */
