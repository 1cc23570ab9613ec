/*
 * pt2_jb.h - building a JSON document with one sticky failure flag, keys
 * kept by cJSON without a copy.
 *
 * Design: a builder adds many values and checks once, at the end (curl's
 * dynbuf habit): the first allocation failure sets `failed`, every later add
 * is still safe, and each add frees its item when it cannot be attached.
 * Object keys are string literals: the macros paste "" before them, so
 * anything else does not compile, and cJSON keeps the literal's pointer
 * (cJSON_AddItemToObjectCS, flagged cJSON_StringIsConst, never freed)
 * instead of a copy: one malloc and one free less per member, most of the
 * members of an inspection document. Array elements go in with
 * PT2_JB_PUSH; a key computed at run time with pt2_jb_add_copy.
 *
 * Ownership: every add takes `item` (attached or freed). The documents these
 * build must not have their literal keys handed to code that frees them
 * (cJSON's own functions honour the flag).
 */
#ifndef PT2_JB_H
#define PT2_JB_H

#include <cJSON.h>

struct pt2_jb {
    int failed;
};

/* Attach item to object o under `lit` (a string literal, not copied): item, or NULL. */
cJSON *pt2_jb_add_lit(struct pt2_jb *b, cJSON *o, const char *lit, cJSON *item);
/* The same under a key cJSON copies (for keys computed at run time). */
cJSON *pt2_jb_add_copy(struct pt2_jb *b, cJSON *o, const char *key, cJSON *item);
/* Append item to array a: item, or NULL. */
cJSON *pt2_jb_push(struct pt2_jb *b, cJSON *a, cJSON *item);
/* A string member; null when v is NULL, or "" and `empty_null`. */
void pt2_jb_str_lit(struct pt2_jb *b, cJSON *o, const char *lit, const char *v, int empty_null);

#define PT2_JB_ADD(b, o, key, item) pt2_jb_add_lit((b), (o), "" key, (item))
#define PT2_JB_PUSH(b, a, item) pt2_jb_push((b), (a), (item))
#define PT2_JB_STR(b, o, key, v, empty_null) pt2_jb_str_lit((b), (o), "" key, (v), (empty_null))
#define PT2_JB_NUM(b, o, key, v) PT2_JB_ADD((b), (o), key, cJSON_CreateNumber(v))
#define PT2_JB_BOOL(b, o, key, v) PT2_JB_ADD((b), (o), key, cJSON_CreateBool(v))
#define PT2_JB_NULL(b, o, key) PT2_JB_ADD((b), (o), key, cJSON_CreateNull())

#endif
