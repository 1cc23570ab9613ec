/*
 * pt2_jw.h - one JSON document written in order, into a cJSON tree or
 * straight to text.
 *
 * Design: the inspection document's builders (pt2_report.c, pt2_runtime.c)
 * say each member once, in document order, to a writer; the writer either
 * builds the cJSON tree (the CLI renders from it, the library API returns
 * it) or prints the bytes cJSON_PrintUnformatted would print for that tree
 * without building it (the daemon's answer: no node allocated, attached,
 * walked and freed per value). One builder, two sinks, so the two cannot
 * disagree; test_jw checks the bytes on every fixture.
 *
 * A member is a key, then a value: PT2_JW_KEY(w, "lit") (a string literal,
 * which the tree keeps by pointer, cJSON_AddItemToObjectCS, flagged
 * cJSON_StringIsConst and never freed: one malloc and one free less per
 * member) or pt2_jw_key_copy (a key made at run time), then
 * one value call; array elements take no key. pt2_jw_obj/pt2_jw_arr open a
 * container that pt2_jw_end closes. Failures are sticky (curl's dynbuf
 * habit): out of memory, a container too deep, a value without its key or a
 * key without its value set `failed`, every later call is safe, and
 * pt2_jw_finish_* reports it once.
 *
 * Ownership: the writer owns what it has written until a finish call hands
 * it over; pt2_jw_discard frees it (free(NULL)-safe shape: a writer that
 * failed or was finished discards to nothing). pt2_jw_tree copies its item
 * (text: prints it); pt2_jw_tree_take takes it.
 */
#ifndef PT2_JW_H
#define PT2_JW_H

#include <stddef.h>

#include <cJSON.h>

#include "pt2_error.h"

#define PT2_JW_DEPTH 32 /* containers open at once; the documents are ~8 deep */

struct pt2_jw {
    int text;   /* 1: text sink, 0: tree sink */
    int failed; /* sticky */
    size_t depth;
    const char *key;                        /* the pending member's key */
    int key_lit;                            /* tree: the key is a literal (kept, not copied) */
    int keyed;                              /* text: the pending key is written */
    unsigned char is_obj[PT2_JW_DEPTH + 1]; /* an object at this depth (both sinks) */
    /* text sink */
    char *buf;
    size_t len, cap;
    unsigned char nonempty[PT2_JW_DEPTH + 1]; /* a value is written at this depth */
    /* tree sink */
    cJSON *root, *stack[PT2_JW_DEPTH + 1];
};

void pt2_jw_init_text(struct pt2_jw *w);
void pt2_jw_init_tree(struct pt2_jw *w);

/* The next value's key: a string literal (PT2_JW_KEY pastes "" to insist), or copied. */
void pt2_jw_key_lit(struct pt2_jw *w, const char *lit);
void pt2_jw_key_copy(struct pt2_jw *w, const char *key);
#define PT2_JW_KEY(w, key) pt2_jw_key_lit((w), "" key)

void pt2_jw_obj(struct pt2_jw *w);
void pt2_jw_arr(struct pt2_jw *w);
void pt2_jw_end(struct pt2_jw *w);
/* A string; null when v is NULL, or "" and `empty_null`. */
void pt2_jw_string(struct pt2_jw *w, const char *v, int empty_null);
void pt2_jw_number(struct pt2_jw *w, double v);
void pt2_jw_bool(struct pt2_jw *w, int v);
void pt2_jw_null(struct pt2_jw *w);
/* A whole cJSON value: copied (tree) or printed (text); NULL is null. */
void pt2_jw_tree(struct pt2_jw *w, const cJSON *item);
/* The same, taking item (NULL: out of memory, as the cJSON_Create* that made it said). */
void pt2_jw_tree_take(struct pt2_jw *w, cJSON *item);

/* Members: a key and its value in one call. */
#define PT2_JW_STR(w, key, v, empty_null)                                                          \
    (PT2_JW_KEY(w, key), pt2_jw_string((w), (v), (empty_null)))
#define PT2_JW_NUM(w, key, v) (PT2_JW_KEY(w, key), pt2_jw_number((w), (v)))
#define PT2_JW_BOOL(w, key, v) (PT2_JW_KEY(w, key), pt2_jw_bool((w), (v)))
#define PT2_JW_NULL(w, key) (PT2_JW_KEY(w, key), pt2_jw_null(w))
#define PT2_JW_OBJ(w, key) (PT2_JW_KEY(w, key), pt2_jw_obj(w))
#define PT2_JW_ARR(w, key) (PT2_JW_KEY(w, key), pt2_jw_arr(w))
#define PT2_JW_TREE(w, key, item) (PT2_JW_KEY(w, key), pt2_jw_tree((w), (item)))
#define PT2_JW_TAKE(w, key, item) (PT2_JW_KEY(w, key), pt2_jw_tree_take((w), (item)))

/*
 * The document: a tree sink's root into *out, a text sink's bytes (NUL
 * after them, `spare` more bytes free after the NUL's position) into *out
 * and *len. PT2_ERR_NOMEM ("out of memory building the JSON document") when
 * anything failed or the document is not one whole value; the writer is
 * emptied either way.
 */
int pt2_jw_finish_tree(struct pt2_jw *w, cJSON **out, struct pt2_error *err);
int pt2_jw_finish_text(struct pt2_jw *w, size_t spare, char **out, size_t *len,
                       struct pt2_error *err);
void pt2_jw_discard(struct pt2_jw *w);

#endif
