/*
 * zipdiff.h - one file through pt2_zip's direct reader and through libzip
 * alone (PT2_ZIP_OPEN_LIBZIP), compared: the differential oracle of
 * test_zip and fuzz_zip.
 *
 * The two must give the same open status and message, the same listing
 * (names, relnames, sizes, methods, data offsets, prefix, zip64), and the
 * same bytes or the same status and message from every whole read, tail
 * read, entry open and random read (start, middle, across the end) of every
 * entry. Out of memory on one side only is not a difference (the fuzzer's
 * allocator limits make it happen). No test framework inside: the caller
 * decides what a difference does.
 */
#ifndef PT2_ZIPDIFF_H
#define PT2_ZIPDIFF_H

#include <stddef.h>

struct zipdiff_opts {
    size_t max_entries; /* entries compared; 0 = all */
    size_t small_cap;   /* the cap given to pt2_zip_read_small */
};

/*
 * Compare the two readers on the regular file behind fd (read with pread
 * only). 0 when they agree, with *direct = 1 when the direct reader listed
 * the entries, 0 when it left them to libzip, -1 when the open failed
 * alike; 1 at the first difference, described in why (len bytes), or when
 * the sources cannot be made.
 */
int zipdiff_fd(int fd, const struct zipdiff_opts *o, int *direct, char *why, size_t len);

#endif
