/*
 * fuzz_binary.c - libFuzzer harness: one archive entry's bytes through the
 * binary dispatcher (cubin, fatbin, AMD code object, host ELF with embedded
 * kernels, Mach-O, PTX, SPIR-V), then the GPU and CPU rules on what it found.
 */
#include <stddef.h>
#include <stdint.h>

#include "pt2_binary.h"
#include "pt2_compat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
    pt2_kernel_list_free(&ks);
    pt2_host_list_free(&hs);
    return 0;
}
