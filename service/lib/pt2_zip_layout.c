/*
 * pt2_zip_layout.c - .pt2 layout rules and facts (see pt2_zip_layout.h).
 *
 * Why the prefix needs a package root below it: a torch >= 2.8 writer puts
 * every record under one folder, but so does any zip of a single folder, and
 * torch <= 2.7 packages have no folder at all (a first entry "version" or
 * "archive_format"); taking the folder only when a root marker sits below it
 * handles all three (FORMATS.md §2). Why model folders are matched with
 * their slash: torch's loader matches "data/aotinductor/model" as a string
 * prefix, so "model2/" would also match it; a file directly in
 * data/aotinductor/ is not a folder.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_zip_layout.h"

static const char AOTI_DIR[] = "data/aotinductor/";

/* ---- names --------------------------------------------------------------- */

int pt2_zip_layout_model_of(const char *rel, char *out, size_t len, struct pt2_error *err)
{
    const char *m, *slash;
    size_t n;

    if (len > 0)
        out[0] = '\0';
    if (strncmp(rel, AOTI_DIR, sizeof(AOTI_DIR) - 1) != 0)
        return PT2_ERR_NOT_FOUND;
    m = rel + sizeof(AOTI_DIR) - 1;
    slash = strchr(m, '/');
    if (slash == NULL || slash == m)
        return PT2_ERR_NOT_FOUND;
    n = (size_t)(slash - m);
    if (n >= len)
        return pt2_error_set(err, PT2_ERR_TOO_LARGE, "%s: model folder name is %zu bytes (cap %zu)",
                             rel, n, len > 0 ? len - 1 : 0);
    memcpy(out, m, n);
    out[n] = '\0';
    return PT2_OK;
}

/* Does `rel` (relative to a candidate prefix) look like something at a package root? */
static int layout_is_root_marker(const char *rel)
{
    static const char *const files[] = {"archive_format", "archive_version", "version",
                                        ".data/version", "byteorder"};
    static const char *const dirs[] = {"data/", "models/", "extra/"};
    size_t k;

    for (k = 0; k < sizeof(files) / sizeof(files[0]); k++)
        if (strcmp(rel, files[k]) == 0)
            return 1;
    for (k = 0; k < sizeof(dirs) / sizeof(dirs[0]); k++)
        if (strncmp(rel, dirs[k], strlen(dirs[k])) == 0)
            return 1;
    return 0;
}

size_t pt2_zip_layout_prefix_len(const pt2_zip *z)
{
    size_t i, n = pt2_zip_count(z), plen;
    const char *first, *slash;

    if (n == 0)
        return 0;
    first = pt2_zip_name(z, 0);
    slash = strchr(first, '/');
    if (slash == NULL || slash == first)
        return 0;
    plen = (size_t)(slash - first) + 1;
    if (plen >= PT2_NAME_MAX)
        return 0;
    for (i = 0; i < n; i++)
        if (strncmp(pt2_zip_name(z, i), first, plen) != 0)
            return 0;
    for (i = 0; i < n; i++)
        if (layout_is_root_marker(pt2_zip_name(z, i) + plen))
            return plen;
    return 0;
}

int pt2_zip_layout_check_models(const pt2_zip *z, struct pt2_error *err)
{
    char(*seen)[PT2_NAME_MAX] = NULL, name[PT2_NAME_MAX];
    size_t i, k, nseen = 0, cap = 0, n = pt2_zip_count(z);
    int rc = PT2_OK;

    for (i = 0; i < n; i++) {
        rc = pt2_zip_layout_model_of(pt2_zip_relname(z, i), name, sizeof(name), err);
        if (rc == PT2_ERR_NOT_FOUND) {
            rc = PT2_OK;
            continue;
        }
        if (rc != PT2_OK)
            goto cleanup;
        for (k = 0; k < nseen; k++)
            if (strcmp(seen[k], name) == 0)
                break;
        if (k < nseen)
            continue;
        rc = pt2_model_grow((void **)&seen, &cap, nseen, sizeof(*seen), PT2_ZIP_LAYOUT_MODELS_MAX,
                            "model folders under data/aotinductor/", err);
        if (rc != PT2_OK)
            goto cleanup;
        memcpy(seen[nseen++], name, sizeof(name));
    }
cleanup:
    free(seen);
    return rc;
}

/* ---- facts --------------------------------------------------------------- */

/* Copy the trimmed, printable content of small entry `rel` into dst; "" when absent. */
static int layout_field(pt2_zip *z, const char *rel, char *dst, size_t dstlen, int *found,
                        struct pt2_error *err)
{
    char *buf = NULL;
    size_t idx, len = 0, b, e, k;
    int rc;

    dst[0] = '\0';
    if (found != NULL)
        *found = 0;
    if (pt2_zip_find(z, rel, &idx) != PT2_OK)
        return PT2_OK;
    if (found != NULL)
        *found = 1;
    rc = pt2_zip_read_small(z, idx, PT2_ZIP_LAYOUT_FIELD_CAP, &buf, &len, err);
    if (rc != PT2_OK)
        return rc;
    for (b = 0; b < len && strchr(" \t\r\n", buf[b]) != NULL && buf[b] != '\0'; b++)
        ;
    for (e = len; e > b && buf[e - 1] != '\0' && strchr(" \t\r\n", buf[e - 1]) != NULL; e--)
        ;
    /* These strings end up in messages and JSON: keep them printable ASCII. */
    for (k = b; k < e; k++)
        if ((unsigned char)buf[k] < 0x20 || (unsigned char)buf[k] >= 0x7f)
            buf[k] = '?';
    snprintf(dst, dstlen, "%.*s", (int)(e - b), buf + b);
    free(buf);
    return PT2_OK;
}

/* Content only a package has: AOTI files, an exported program, the legacy program. */
static int layout_has_pt2_content(const pt2_zip *z)
{
    size_t i, len, n = pt2_zip_count(z);

    for (i = 0; i < n; i++) {
        const char *rel = pt2_zip_relname(z, i);

        len = strlen(rel);
        if (strncmp(rel, AOTI_DIR, sizeof(AOTI_DIR) - 1) == 0 ||
            strcmp(rel, "serialized_exported_program.json") == 0 ||
            (strncmp(rel, "models/", 7) == 0 && len > 12 && strcmp(rel + len - 5, ".json") == 0))
            return 1;
    }
    return 0;
}

int pt2_zip_layout_reads(const char *rel)
{
    /* The layout_field() names below: keep the two in step. */
    static const char *const f[] = {"archive_format", "archive_version", ".data/version", "version",
                                    "byteorder"};

    for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
        if (strcmp(rel, f[i]) == 0)
            return 1;
    return 0;
}

int pt2_zip_layout(pt2_zip *z, struct pt2_zip_layout *out, struct pt2_error *err)
{
    int rc, has_format = 0;

    memset(out, 0, sizeof(*out));
    snprintf(out->prefix, sizeof(out->prefix), "%s", pt2_zip_prefix(z));
    out->zip64 = pt2_zip_zip64(z);
    out->generation = out->prefix[0] != '\0' ? 2 : 1;
    out->entries = pt2_zip_count(z);
    out->file_size = pt2_zip_file_size(z);

    rc = layout_field(z, "archive_format", out->archive_format, sizeof(out->archive_format),
                      &has_format, err);
    if (rc == PT2_OK)
        rc = layout_field(z, "archive_version", out->archive_version, sizeof(out->archive_version),
                          NULL, err);
    if (rc == PT2_OK)
        rc = layout_field(z, ".data/version", out->data_version, sizeof(out->data_version), NULL,
                          err);
    if (rc == PT2_OK)
        rc =
            layout_field(z, "version", out->legacy_version, sizeof(out->legacy_version), NULL, err);
    if (rc == PT2_OK)
        rc = layout_field(z, "byteorder", out->byteorder, sizeof(out->byteorder), NULL, err);
    if (rc != PT2_OK)
        return rc;

    if (has_format) {
        if (strcmp(out->archive_format, "pt2") != 0)
            return pt2_error_set(err, PT2_ERR_NOT_PT2, "archive_format is '%s', expected 'pt2'",
                                 out->archive_format);
        return PT2_OK;
    }
    if (!layout_has_pt2_content(z)) {
        size_t idx;
        /* torch.save zips: one top folder (the prefix) with data.pkl and version. */
        if (pt2_zip_find(z, "data.pkl", &idx) == PT2_OK &&
            (pt2_zip_find(z, "version", &idx) == PT2_OK ||
             pt2_zip_find(z, ".format_version", &idx) == PT2_OK))
            return pt2_error_set(err, PT2_ERR_TORCH_SAVE,
                                 "a torch.save checkpoint (%sdata.pkl), not a .pt2 package; load "
                                 "it with torch.load",
                                 out->prefix);
        return pt2_error_set(err, PT2_ERR_NOT_PT2,
                             "no archive_format entry and no data/aotinductor/ or models/ "
                             "folder");
    }
    return PT2_OK;
}
