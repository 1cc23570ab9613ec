/*
 * fuzz_text.c - libFuzzer harness: the text fields users and packages give:
 * targets, driver versions, devices, numbers, ?input= shape specs and other
 * query arguments, URLs (the remote layer's rules: check, allow prefixes,
 * display, redirects, S3 mapping, Content-Range), and the AOTI wrapper .cpp
 * scanner, fed in pieces.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_remote_url.h"
#include "pt2_wrapper.h"
#include "pt2d_options.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const keys[] = {"path", "url", "target", "driver", "device", "input",
                                       "view", "refresh", "nocache", "runtime"};
    static const char *const allow[] = {"https://", "http://127.0.0.1:8080/m/", "s3://b/p/"};
    const struct pt2_remote_opts ro = {.restricted = 1, .allow = allow, .n_allow = 3};
    const struct pt2_remote_s3_env s3env = {NULL, NULL};
    struct pt2_remote_s3 *s3 = malloc(sizeof(*s3));
    struct pt2_remote_crange cr;
    char out[PT2_REMOTE_URL_MAX + 1];
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
    /* URLs: every network-free rule of the remote layer */
    (void)pt2_remote_check_url(z, &ro, &err);
    (void)pt2_remote_check_allow(z, &err);
    (void)pt2_remote_url_allowed(z, &ro);
    (void)pt2_remote_url_allow_match(z, "https://h.example.com/p/");
    (void)pt2_remote_url_allow_match("s3://b/p/", z);
    if (pt2_remote_url_display(z, out, sizeof(out)) == PT2_OK) {
        char name[PT2_REMOTE_NAME_MAX];

        pt2_remote_url_name(out, name, sizeof(name));
    }
    (void)pt2_remote_url_resolve("http://h.example.com/a/b.pt2", z, out, sizeof(out));
    if (s3 != NULL)
        (void)pt2_remote_s3_map(z, &s3env, s3, &err);
    (void)pt2_remote_content_range(z, size, &cr);
    (void)pt2_remote_url_host_named(z, &ro);
    free(s3);
    /* The wrapper scanner, fed in pieces whose size the first byte chooses. */
    if (pt2_wrapper_scan_new(&scan, "fuzz", 1u << 20, &err) == PT2_OK) {
        struct pt2_shader_count shaders = {0};

        step = size > 0 ? (size_t)(data[0] % 61) + 1 : 1;
        for (k = 0; k < size; k += step)
            pt2_wrapper_count_shaders(&shaders, (const char *)data + k,
                                      size - k < step ? size - k : step);
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
