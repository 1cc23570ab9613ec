/*
 * pt2_crc32.h - CRC-32 of the zip/gzip polynomial (reflected 0xEDB88320),
 * the same values as zlib's crc32(), at memory speed on x86-64.
 *
 * pt2_crc32() folds 64-byte (or, with VPCLMULQDQ, 256-byte) strides with
 * carry-less multiplication where the CPU has it and is zlib's crc32()
 * elsewhere and for inputs under 64 bytes (the design is atop pt2_crc32.c).
 *
 * Ownership and threads: both functions are pure over the caller's bytes,
 * which they only read; nothing is allocated or kept. Any number of threads
 * may call them at once: the one piece of state, the implementation chosen
 * for this CPU and its folding constants, is set once under pthread_once on
 * the first call that can use it.
 */
#ifndef PT2_CRC32_H
#define PT2_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* CRC-32 of len bytes continuing from `crc` (0 to start), as zlib's crc32(crc, buf, len).
 * len 0 returns crc as it is (buf may then be NULL; zlib's crc32 answers 0 for a NULL buf). */
uint32_t pt2_crc32(uint32_t crc, const void *buf, size_t len);

/* The fallback pt2_crc32() uses on CPUs without PCLMULQDQ, for inputs under
 * 64 bytes and for the last bytes of every input: zlib's crc32 (crc32_z, so
 * any size_t length), with the same len 0 rule. Same results; tests compare both. */
uint32_t pt2_crc32_portable(uint32_t crc, const void *buf, size_t len);

#endif
