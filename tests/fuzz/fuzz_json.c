/*
 * fuzz_json.c - libFuzzer harness: every JSON entry point. The first byte
 * picks the reader: the checked parse, user model_metadata.json, an
 * exported program, a Kubernetes node list, the daemon's request body and
 * its ?inputs=, and the two weights configs (pickle_weights, payload).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_eprog.h"
#include "pt2_meta.h"
#include "pt2_weights.h"
#include "pt2d_options.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every name a config gives exists, with a size from its length: the sums are exercised. */
static int any_stat(void *ctx, const char *rel, uint64_t *size)
{
    (void)ctx;
    *size = strlen(rel) % 3 == 0 ? 0 : strlen(rel) * 7;
    return strlen(rel) % 5 != 0;
}

static void no_warn(void *ctx, const char *msg)
{
    (void)ctx;
    (void)msg;
}

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
    switch (data[0] % 8) {
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
    case 6:
    case 7: {
        const struct pt2_weights_sink s = {any_stat, no_warn, NULL};
        struct pt2_weights w = {0};

        w.bytes = w.declared = -1;
        if (data[0] % 8 == 6)
            (void)pt2_weights_pickle(&w, text, size, "m/weights_config.json", &s, &err);
        else
            (void)pt2_weights_payload(&w, text, size, "c.json", "data/weights/", &s, &err);
        pt2_weights_finish(&w, 1, 2, "model", &s);
        break;
    }
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
