/*
 * fuzz_binary.c - libFuzzer harness: one archive entry's bytes through the
 * binary dispatcher (cubin, fatbin, AMD code object, host ELF with embedded
 * kernels, Mach-O, PE/COFF, PTX, SPIR-V), then the GPU and CPU rules on what it found,
 * the runtime needs' floors, and the bytes as a provider of the sysroot check.
 */
#include <stddef.h>
#include <stdint.h>

#include "pt2_binary.h"
#include "pt2_dynamic.h"
#include "pt2_runtime.h"
#include "pt2_shims.h"
#include "pt2_compat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void provider(const uint8_t *data, size_t size)
{
    struct pt2_error err = {0};
    struct pt2_needs *n = pt2_needs_new(1);
    struct pt2_dyn_symtab t;
    struct pt2_elf elf;
    struct pt2_rd rd;
    int found = 0;

    pt2_rd_init_mem(&rd, data, size, "fuzz.so");
    if (n != NULL && pt2_elf_open(&elf, &rd, 0, size, &err) == PT2_OK) {
        if (pt2_dyn_read(&elf, PT2_DYN_DEFS | PT2_DYN_IMPORTS, n, &err) == PT2_OK &&
            pt2_dyn_symtab_open(&t, &elf, n, &err) == PT2_OK) {
            (void)pt2_dyn_symtab_find(&t, "memcpy", "GLIBC_2.14", &found, &err);
            (void)pt2_dyn_symtab_find(&t, "aoti_torch_empty_strided", NULL, &found, &err);
            pt2_dyn_symtab_close(&t);
        }
        pt2_elf_close(&elf);
    }
    pt2_needs_free(n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct pt2_kernel_list ks = {0};
    struct pt2_host_list hs = {0};
    struct pt2_verdict_result r;
    struct pt2_error err = {0};
    struct pt2_device dev;
    struct pt2_rd rd;
    int recognized = 0;

    pt2_rd_init_mem(&rd, data, size, "fuzz.bin");
    (void)pt2_binary_scan(&rd, "data/aotinductor/model/fuzz.bin", &ks, &hs, &recognized, &err);
    if (pt2_target_parse("9.0", &dev, &err) == PT2_OK)
        (void)pt2_compat_gpu(&ks, "cuda", NULL, &dev, &r, &err);
    (void)pt2_compat_cpu(&hs, NULL, "x86_64", NULL, 0, &r, &err);
    /* the runtime needs: floors of what was read, and the input as a provider looked up by
     * hash as the sysroot check does (chains that loop, counts past the section) */
    for (size_t i = 0; i < hs.n; i++) {
        struct pt2_floors f = {0};
        struct pt2_torch_floor t;

        pt2_floors_add(&f, hs.v[i].needs);
        pt2_shims_floor_init(&t);
        pt2_shims_floor_add(&t, hs.v[i].needs);
    }
    provider(data, size);
    pt2_kernel_list_free(&ks);
    pt2_host_list_free(&hs);
    return 0;
}
