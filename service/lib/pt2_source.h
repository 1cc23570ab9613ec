/*
 * pt2_source.h - the library's own uses of a byte source, beyond the public
 * API in pt2scope.h ("Byte sources").
 *
 * Design: planning reads must never cause reads. While a source is in
 * cached-only mode, a read that the cache does not fully hold fails with
 * PT2_ERR_NOT_FOUND and reaches no backend; that failure is not kept (it is
 * not the backend's), so the walk afterwards reads normally.
 *
 * Ownership and threads: as for pt2_source.
 */
#ifndef PT2_SOURCE_H
#define PT2_SOURCE_H

#include "pt2scope.h"

/* Turn cached-only mode on (1) or off (0). */
void pt2_source_cached_only(pt2_source *src, int on);

#endif
