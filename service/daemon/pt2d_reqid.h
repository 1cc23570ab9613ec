/*
 * pt2d_reqid.h - X-Request-Id: accept a client's if sane, else make one.
 *
 * A client-supplied id ends up in logs and in problem `instance` URNs, so
 * only a short, conservative alphabet is accepted.
 */
#ifndef PT2D_REQID_H
#define PT2D_REQID_H

#include <stddef.h>

#define PT2D_REQID_MAX 129 /* 128 characters + NUL */

/* 1 when `s` is 1..128 characters of [A-Za-z0-9._:-]. */
int pt2d_reqid_is_sane(const char *s);

/* Write a fresh random id (32 lower-case hex digits) into out[PT2D_REQID_MAX]. */
void pt2d_reqid_generate(char *out);

#endif
