/*
 * fuzz_text.c - libFuzzer harness: the text fields users and packages give:
 * targets, driver versions, devices, numbers, ?input= shape specs and other
 * query arguments, and the AOTI wrapper .cpp scanner, fed in pieces.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_wrapper.h"
#include "pt2d_options.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const keys[] = {"path", "target", "driver", "device", "input", "view",
                                       "refresh", "nocache"};
    struct pt2_wrapper_info info;
    struct pt2_error err = {0};
    struct pt2d_options o;
    struct pt2_device dev;
    pt2_wrapper_scan *scan = NULL;
    uint64_t u;
    int64_t i;
    int drv;
    size_t k, step;
    char *z = malloc(size + 1);

    if (z == NULL)
        return 0;
    memcpy(z, data, size);
    z[size] = '\0';
    (void)pt2_target_parse(z, &dev, &err);
    (void)pt2_driver_version_parse(z, &drv, &err);
    (void)pt2_device_check(z, &err);
    (void)pt2_num_u64(z, 10, &u);
    (void)pt2_num_u64(z, 16, &u);
    (void)pt2_num_i64(z, &i);
    pt2d_options_init(&o);
    for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
        (void)pt2d_options_add_query(&o, keys[k], z, &err);
    pt2d_options_finish(&o);
    pt2d_options_free(&o);
    /* The wrapper scanner, fed in pieces whose size the first byte chooses. */
    if (pt2_wrapper_scan_new(&scan, "fuzz", 1u << 20, &err) == PT2_OK) {
        step = size > 0 ? (size_t)(data[0] % 61) + 1 : 1;
        for (k = 0; k < size; k += step)
            if (pt2_wrapper_scan_feed(scan, data + k, size - k < step ? size - k : step, &err) !=
                PT2_OK)
                break;
        if (pt2_wrapper_scan_finish(scan, &info, &err) == PT2_OK)
            pt2_wrapper_info_free(&info);
        pt2_wrapper_scan_free(scan);
    }
    free(z);
    return 0;
}
