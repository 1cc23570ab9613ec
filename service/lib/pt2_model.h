/*
 * pt2_model.h - the in-memory description of what a package was built for.
 *
 * Design: parsers (pt2_elf, pt2_cubin, pt2_fatbin, pt2_amdgpu, pt2_macho,
 * pt2_meta, pt2_eprog) fill these plain structs; pt2_compat decides from
 * them; pt2_inspect turns them into the JSON document. Keeping the facts in
 * structs (not JSON) keeps the parsers testable with exact values and lets
 * the compatibility rules work on typed data.
 *
 * Every list has a hard cap on its length so a hostile package cannot make
 * the inspector allocate without bound. Strings are fixed-size and always
 * NUL-terminated (truncated if longer). Ownership: a list owns its array;
 * pt2_*_list_free() accepts NULL and zeroed lists.
 */
#ifndef PT2_MODEL_H
#define PT2_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "pt2_error.h"

struct pt2_needs;

#define PT2_PATH_MAX 512
#define PT2_NAME_MAX 128
#define PT2_KERNELS_MAX 65536 /* kernel records per package */
#define PT2_HOSTS_MAX 256     /* host binaries per package */

/* ---- GPU kernels -------------------------------------------------------- */

enum pt2_kernel_kind {
    PT2_KERNEL_SASS = 1,  /* NVIDIA cubin (machine code for one SM) */
    PT2_KERNEL_PTX = 2,   /* NVIDIA PTX (JIT-compiled by the driver) */
    PT2_KERNEL_HSACO = 3, /* AMD GPU code object */
    PT2_KERNEL_SPIRV = 4, /* Intel XPU SPIR-V (presence only) */
    PT2_KERNEL_ZEBIN = 5  /* Intel XPU zebin (the GPU it targets from its notes) */
};

/* Where the kernel was found. */
enum pt2_kernel_container {
    PT2_CONT_FILE = 1,      /* a standalone .cubin/.hsaco/.spv/.zebin/.ptx entry */
    PT2_CONT_FATBIN = 2,    /* an entry inside a standalone .fatbin entry */
    PT2_CONT_SO_FATBIN = 3, /* inside a fatbin in the .so's .nv_fatbin / __nv_relfatbin */
    PT2_CONT_SO_SYMBOL = 4  /* a cubin/fatbin blob in the .so's .rodata (__<k>_start) */
};

/* AMD xnack / sramecc setting of a code object. */
enum pt2_amd_feature { PT2_AMD_UNSUPPORTED = 0, PT2_AMD_ANY = 1, PT2_AMD_OFF = 2, PT2_AMD_ON = 3 };

struct pt2_kernel {
    int kind;      /* enum pt2_kernel_kind */
    int container; /* enum pt2_kernel_container */
    /*
     * Archive entry path (prefix stripped). In a list, owned by the list (one
     * copy per entry, however many kernels it holds: 65,536 kernels of one
     * fatbin cost one path, not 65,536); NULL reads as "".
     */
    const char *source;
    char symbol[PT2_NAME_MAX]; /* kernel name for PT2_CONT_SO_SYMBOL, else "" */

    /* NVIDIA (SASS and PTX) */
    unsigned sm;                   /* real SM for SASS, target SM for PTX: 90, 100, 121 */
    char variant;                  /* 0, 'a' or 'f' */
    unsigned virtual_sm;           /* SASS: PTX target it came from; 0 = unknown */
    int abi_version;               /* SASS: cubin EI_ABIVERSION (7, 8); 0 = unknown */
    int elf_type;                  /* SASS: 1 = relocatable, 2 = executable */
    unsigned toolkit;              /* building toolkit as 124 / 130; 0 = unknown */
    unsigned ptx_major, ptx_minor; /* PTX ISA version; 0.0 = unknown */
    char compression[8];           /* "", "lz4", "zstd" */
    int debug;                     /* built with -G */
    int has_code; /* SASS: 1 if .text.* kernels present, 0 if a link stub, -1 unknown */

    /* AMD */
    char gfx[32];            /* "gfx90a" */
    char target_id[64];      /* "gfx90a:sramecc+:xnack-" */
    int xnack, sramecc;      /* enum pt2_amd_feature */
    int code_object_version; /* 3, 4, 5, 6; 0 = unknown */

    /* Intel (zebin .note.intelgt.compat) */
    unsigned intel_product; /* PRODUCT_FAMILY: 1271 = PVC; 0 = unknown */
    unsigned intel_gfxcore; /* GFXCORE_FAMILY; 0 = unknown */
};

struct pt2_kernel_list {
    struct pt2_kernel *v;
    size_t n, cap;
    char **sources; /* the distinct source paths of v[] (owned) */
    size_t nsources, sources_cap;
};

/*
 * Make room for element `n` of the array `*v` (elements of `size` bytes, `*cap`
 * allocated), doubling up to `max`. Past `max`: PT2_ERR_TOO_LARGE with
 * "more than <max> <what>" (e.g. what = "kernels in one package"). Every
 * capped list of the library grows through here.
 */
int pt2_model_grow(void **v, size_t *cap, size_t n, size_t size, size_t max, const char *what,
                   struct pt2_error *err) PT2_WARN_UNUSED;

/* Append a copy of *k. PT2_ERR_TOO_LARGE past PT2_KERNELS_MAX. */
int pt2_kernel_list_push(struct pt2_kernel_list *l, const struct pt2_kernel *k,
                         struct pt2_error *err) PT2_WARN_UNUSED;
void pt2_kernel_list_free(struct pt2_kernel_list *l);

/* "sm_90a" / "compute_90" / "gfx90a:xnack-" into buf. Returns buf. */
const char *pt2_kernel_target_name(const struct pt2_kernel *k, char *buf, size_t len);

/* ---- Host binaries ------------------------------------------------------ */

enum pt2_host_format {
    PT2_HOST_ELF = 1,
    PT2_HOST_MACHO = 2,
    PT2_HOST_MACHO_FAT = 3, /* universal binary; arch list in `machines` */
    PT2_HOST_PE = 4
};

struct pt2_host {
    char source[PT2_PATH_MAX]; /* archive entry path (prefix stripped) */
    int format;                /* enum pt2_host_format */
    int bits;                  /* 32 or 64 */
    int big_endian;            /* 0 little, 1 big */
    unsigned e_machine;        /* ELF e_machine or Mach-O cputype */
    char machine[32];          /* "x86_64", "aarch64", "ppc64le", "s390x", "riscv64",
                                  "i686", "arm", "arm64" (Mach-O), "em_<n>" if unknown */
    char description[96];      /* "ELF 64-bit LSB shared object, x86-64" */
    int elf_type;              /* ET_DYN = 3 etc.; 0 for Mach-O */
    uint64_t size;             /* entry size */
    /* What it needs to load (pt2_needs.h), or NULL when not read (object files, formats
     * without a reader). Owned by the host list once pushed. */
    struct pt2_needs *needs;
};

struct pt2_host_list {
    struct pt2_host *v;
    size_t n, cap;
};

/* Append a copy of *h; the list takes h->needs (freed here when the push fails). */
int pt2_host_list_push(struct pt2_host_list *l, const struct pt2_host *h,
                       struct pt2_error *err) PT2_WARN_UNUSED;
void pt2_host_list_free(struct pt2_host_list *l);

/* ---- Model size ------------------------------------------------------- */

#define PT2_CONST_DTYPES_MAX 48 /* distinct dtypes in the breakdown, unknown included */

/* One dtype of the constants breakdown. */
struct pt2_dtype_stat {
    char dtype[32];    /* canonical torch name ("float32"); "" = not recorded or unknown code */
    uint64_t count;    /* constants of this dtype */
    uint64_t bytes;    /* sum of their bytes */
    uint64_t elements; /* sum of their shape products (constants with a shape) */
};

/*
 * A model's constants (weights, buffers, folded constants): from the AOTI
 * wrapper's constants_info_ (bytes as its data_size records them) or from an
 * exported program's parameters, buffers and tensor constants (bytes =
 * elements x dtype size).
 */
struct pt2_constants {
    int64_t declared;       /* the count the wrapper's base constructor gives; -1 = not seen */
    uint64_t count;         /* distinct constants described */
    uint64_t bytes;         /* total storage bytes */
    uint64_t elements;      /* sum of shape products */
    uint64_t missing_size;  /* constants whose size is not recorded */
    uint64_t missing_shape; /* constants whose shape is not recorded */
    uint64_t parameters;    /* by kind, where the source records it */
    uint64_t buffers;
    uint64_t tensor_constants;
    uint64_t folded; /* folded constants (the wrapper's FoldedConstant / from_folded) */
    size_t ndtypes;  /* in first-seen order; dtype "" collects the unknown */
    struct pt2_dtype_stat dtypes[PT2_CONST_DTYPES_MAX];
};

/* ---- CPU ISA ------------------------------------------------------------ */

#define PT2_ISA_FLAGS_MAX 32

struct pt2_cpu_isa {
    char isa[32];    /* "AVX512", "AVX2", "NEON", "SVE256", "" if unknown */
    int novec;       /* AOTI_CPU_ISA INVALID_VEC_ISA or DEFAULT: torch vectorised nothing */
    char source[32]; /* "metadata" (AOTI_CPU_ISA) or "compile_cmd" or "" */
    char march[64];  /* value of -march= ("native", "x86-64-v3"), "" if none */
    size_t nflags;
    char flags[PT2_ISA_FLAGS_MAX][24]; /* "avx512f", "avx2", "fma", ... in command order */
};

#endif
