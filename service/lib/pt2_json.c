/*
 * pt2_json.c - the small cJSON helpers every layer uses (see pt2scope.h,
 * "JSON helpers"): one copy, so "absent" is null the same way everywhere.
 */
#include <cJSON.h>

#include "pt2_error.h"

int pt2_json_add_str_or_null(cJSON *o, const char *key, const char *s)
{
    if (s == NULL || s[0] == '\0')
        return cJSON_AddNullToObject(o, key) != NULL;
    return cJSON_AddStringToObject(o, key, s) != NULL;
}

int pt2_json_add_num_or_null(cJSON *o, const char *key, double v, int present)
{
    if (!present)
        return cJSON_AddNullToObject(o, key) != NULL;
    return cJSON_AddNumberToObject(o, key, v) != NULL;
}

const char *pt2_json_str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    return cJSON_IsString(v) ? v->valuestring : NULL;
}
