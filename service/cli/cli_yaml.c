/*
 * cli_yaml.c - `pt2scope affinity --yaml`: the nodeAffinity as a manifest
 * snippet to paste under a pod template's `spec:`.
 *
 * Design: a tiny YAML writer for JSON trees of the shape the library
 * answers (mappings, sequences, strings, numbers), in the block style
 * `kubectl get -o yaml` prints: sequences of mappings as "- key: ..." at the
 * parent key's indentation, sequences of scalars in flow style. Every string
 * is written as a JSON string literal, which is a valid YAML double-quoted
 * scalar, so "9" stays a string (label values must be) and nothing in a
 * value can start a comment or a new node. Keys are the library's own
 * ASCII words. Depth is capped; the library's documents are four deep.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

#define YAML_DEPTH_MAX 32

static void scalar(FILE *f, const cJSON *v)
{
    char *s = cJSON_PrintUnformatted(v);

    fputs(s != NULL ? s : "null", f);
    cJSON_free(s);
}

static int is_scalar(const cJSON *v)
{
    return !cJSON_IsObject(v) && !cJSON_IsArray(v);
}

static void emit_map(FILE *f, const cJSON *obj, int indent, int dash, int depth);

/* A sequence under a key at column `col`: flow style for scalars, else "- " items. */
static void emit_seq(FILE *f, const cJSON *arr, int col, int depth)
{
    const cJSON *it;
    int all_scalar = 1;

    cJSON_ArrayForEach(it, arr) all_scalar = all_scalar && is_scalar(it);
    if (arr->child == NULL || all_scalar) {
        fputs(" [", f);
        cJSON_ArrayForEach(it, arr)
        {
            scalar(f, it);
            if (it->next != NULL)
                fputs(", ", f);
        }
        fputs("]\n", f);
        return;
    }
    fputc('\n', f);
    cJSON_ArrayForEach(it, arr)
    {
        if (cJSON_IsObject(it) && it->child != NULL) {
            emit_map(f, it, col, 1, depth + 1);
        } else {
            fprintf(f, "%*s- ", col, "");
            if (is_scalar(it))
                scalar(f, it);
            else
                fputs(cJSON_IsArray(it) ? "[]" : "{}", f);
            fputc('\n', f);
        }
    }
}

/* The members of `obj`, keys at column `indent` (after "- " for the first when `dash`). */
static void emit_map(FILE *f, const cJSON *obj, int indent, int dash, int depth)
{
    const cJSON *c;
    int col = indent + (dash ? 2 : 0);

    if (depth > YAML_DEPTH_MAX)
        return;
    cJSON_ArrayForEach(c, obj)
    {
        if (dash && c == obj->child)
            fprintf(f, "%*s- %s:", indent, "", c->string);
        else
            fprintf(f, "%*s%s:", col, "", c->string);
        if (cJSON_IsObject(c) && c->child != NULL) {
            fputc('\n', f);
            emit_map(f, c, col + 2, 0, depth + 1);
        } else if (cJSON_IsObject(c)) {
            fputs(" {}\n", f);
        } else if (cJSON_IsArray(c)) {
            emit_seq(f, c, col, depth);
        } else {
            fputc(' ', f);
            scalar(f, c);
            fputc('\n', f);
        }
    }
}

void cli_yaml_affinity(FILE *f, const cJSON *node_affinity, const char *file, const char *note)
{
    char name[512], line[1024];

    snprintf(name, sizeof(name), "%s", file != NULL ? file : "");
    cli_defang(name);
    fprintf(f,
            "# pt2scope affinity %s: the nodes it runs on, by their GPU Feature Discovery "
            "labels\n",
            name);
    if (note != NULL && note[0] != '\0') {
        snprintf(line, sizeof(line), "%s", note);
        cli_defang(line);
        fprintf(f, "# %s\n", line);
    }
    fputs("affinity:\n  nodeAffinity:\n", f);
    emit_map(f, node_affinity, 4, 0, 0);
}
