/*
 * fuzz_pe.c - libFuzzer harness: one file's bytes as a PE/COFF image
 * (pt2_pe_scan with a needs record: optional header, section table, import
 * and delay-load directories), within the read budget an archive entry gets, then the shim
 * classification and torch floor of what was read, and the same bytes through
 * the binary dispatcher. Traps when a cap is broken: more DLLs or functions
 * kept than pt2_needs.h allows, a DLL or function name that is empty.
 * Seeds: tests/fuzz/seeds/pe (hand-made images) and the DLLs the build
 * makes ($(BUILD)/fixtures/win/win_model.pyd by mingw-w64, win_delay.pyd by
 * lld-link with a delay-load directory; tests/fuzz/run.sh).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pt2_binary.h"
#include "pt2_needs.h"
#include "pt2_pe.h"
#include "pt2_shims.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_caps(const struct pt2_needs *n)
{
    if (n->nlibs > PT2_NEEDS_LIBS_MAX || n->nimports > PT2_NEEDS_IMPORTS_MAX ||
        n->names_len > PT2_NEEDS_NAMES_MAX)
        __builtin_trap();
    for (size_t i = 0; i < n->nlibs; i++)
        if (pt2_needs_str(n, n->libs[i])[0] == '\0')
            __builtin_trap();
    for (size_t i = 0; i < n->nimports; i++)
        if (pt2_needs_str(n, n->imports[i].name)[0] == '\0')
            __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct pt2_kernel_list ks = {0};
    struct pt2_host_list hs = {0};
    struct pt2_error err = {0};
    struct pt2_torch_floor t;
    struct pt2_host h;
    struct pt2_rd rd;
    int recognized = 0;

    memset(&h, 0, sizeof(h));
    h.needs = pt2_needs_new(PT2_HOST_PE);
    if (h.needs == NULL)
        return 0;
    pt2_rd_init_mem(&rd, data, size, "fuzz.pyd");
    pt2_rd_set_budget(&rd, PT2_RD_DEFAULT_BUDGET + PT2_NEEDS_READ_MAX);
    if (pt2_pe_scan(&rd, &h, &recognized, &err) == PT2_OK && recognized) {
        if (h.format != PT2_HOST_PE || memchr(h.description, '\0', sizeof(h.description)) == NULL)
            __builtin_trap();
        check_caps(h.needs);
        pt2_shims_classify_needs(h.needs);
        pt2_shims_floor_init(&t);
        pt2_shims_floor_add(&t, h.needs);
    }
    pt2_needs_free(h.needs);
    pt2_rd_init_mem(&rd, data, size, "fuzz.pyd");
    (void)pt2_binary_scan(&rd, "data/aotinductor/model/fuzz.pyd", &ks, &hs, &recognized, &err);
    pt2_kernel_list_free(&ks);
    pt2_host_list_free(&hs);
    return 0;
}
