/*
 * pt2_error.h - error reporting shared by every libpt2scope module.
 *
 * Design: functions return an enum pt2_status and describe the failure in a
 * caller-owned struct pt2_error. The first error set wins, like curl's
 * error buffer, so a low-level cause is not overwritten by the generic
 * message of a caller further up. Everything here is public (pt2scope.h);
 * this header only lets library modules say what they use.
 */
#ifndef PT2_ERROR_H
#define PT2_ERROR_H

#include "pt2scope.h"

#endif
