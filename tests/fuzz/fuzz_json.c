/*
 * fuzz_json.c - libFuzzer harness: every JSON entry point. The first byte
 * picks the reader: the checked parse, user model_metadata.json, an
 * exported program, a Kubernetes node list, the daemon's request body and
 * its ?inputs=.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_eprog.h"
#include "pt2_meta.h"
#include "pt2d_options.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const struct pt2_json_limits lim = {1u << 20, 64, 100000, 65536};
    struct pt2_tensor_list in = {0}, out = {0};
    struct pt2_constants consts;
    struct pt2_meta_user u;
    struct pt2_error err = {0};
    struct pt2d_options o;
    pt2_k8s_nodes *kn = NULL;
    const char *text = (const char *)data + 1;
    cJSON *doc = NULL;
    char *z;

    if (size < 1)
        return 0;
    size--;
    switch (data[0] % 6) {
    case 0:
        if (pt2_json_parse(text, size, &lim, "fuzz", &doc, &err) == PT2_OK)
            cJSON_Delete(doc);
        break;
    case 1:
        memset(&u, 0, sizeof(u));
        if (pt2_meta_parse_user(text, size, "extra/model_metadata.json", &u, &err) == PT2_OK)
            pt2_meta_user_free(&u);
        break;
    case 2:
        if (pt2_eprog_parse_full(text, size, "models/model.json", &in, &out, &consts, &err) ==
            PT2_OK) {
            pt2_tensor_list_free(&in);
            pt2_tensor_list_free(&out);
        }
        break;
    case 3:
        if (pt2_k8s_nodes_parse_text(&kn, text, size, &err) == PT2_OK)
            pt2_k8s_nodes_free(kn);
        break;
    case 4:
        pt2d_options_init(&o);
        (void)pt2d_options_add_json(&o, text, size, &err);
        pt2d_options_free(&o);
        break;
    default:
        z = malloc(size + 1); /* query values arrive NUL-terminated */
        if (z == NULL)
            return 0;
        memcpy(z, text, size);
        z[size] = '\0';
        pt2d_options_init(&o);
        (void)pt2d_options_add_query(&o, "inputs", z, &err);
        pt2d_options_free(&o);
        free(z);
        break;
    }
    return 0;
}
