/*
 * bigzip.h - write a torch >= 2.8 style .pt2 with a huge sparse weight entry.
 *
 * For tests and benchmarks that must show the inspector reads only headers:
 * the first record, data/weights/weight_0, is `weight_size` zero bytes that
 * are skipped with lseek (the file system keeps them as a hole), so a 5 GiB
 * package costs no disk and no time. Everything after it sits past 4 GiB and
 * uses zip64 extra fields, like PyTorchStreamWriter (FB padding to 64 bytes,
 * data descriptors, zip64 end records). Never commit the output.
 */
#ifndef PT2_BIGZIP_H
#define PT2_BIGZIP_H

#include <stddef.h>
#include <stdint.h>

/*
 * Write `path` (its basename without extension becomes the prefix folder) with
 * records, in order: data/weights/weight_0 (sparse), then model `model`:
 * BIGZIP_SO_NAME (the bytes of `so_path`), BIGZIP_META_NAME (CUDA metadata),
 * BIGZIP_CUBIN_NAME (the bytes of `cubin_path`), then archive_format,
 * archive_version, .data/version, byteorder, .data/serialization_id.
 * Returns 0, or -1 with errno set.
 */
int bigzip_write(const char *path, uint64_t weight_size, const char *so_path,
                 const char *cubin_path);

#define BIGZIP_SO_NAME "data/aotinductor/model/cbigzipwrapper.wrapper.so"
#define BIGZIP_META_NAME "data/aotinductor/model/cbigzipwrapper.wrapper_metadata.json"
#define BIGZIP_CUBIN_NAME "data/aotinductor/model/cbigzipkernel0.cubin"
#define BIGZIP_ENTRIES 9

/*
 * The general writer behind bigzip_write(), for packages of any shape (the
 * benchmark's 10 to 20,000 entries). bigzip_open() takes the prefix folder
 * from the file name and allows up to `max_entries` records; bigzip_add()
 * writes one stored record `rel` under it (data NULL: a hole of `size` zero
 * bytes); bigzip_add_trailer() writes the five records torch writes last;
 * bigzip_close() writes the central directory and end records and frees the
 * writer, bigzip_abort() frees it without finishing. 0 / non-NULL, or -1 /
 * NULL with errno set.
 */
struct bigzip_writer;
struct bigzip_writer *bigzip_open(const char *path, size_t max_entries);
int bigzip_add(struct bigzip_writer *w, const char *rel, const void *data, uint64_t size);
int bigzip_add_trailer(struct bigzip_writer *w);
int bigzip_close(struct bigzip_writer *w);
void bigzip_abort(struct bigzip_writer *w);

/* A whole small input file (at most 64 MiB), malloc'd; NULL with errno set. */
uint8_t *bigzip_slurp(const char *path, size_t *len);

/* CRC-32 (zip/zlib polynomial) of `len` bytes, continuing from `crc` (0 to start). */
uint32_t bigzip_crc32(uint32_t crc, const void *data, uint64_t len);
/* CRC-32 of `n` zero bytes, computed in O(log n) without touching them. */
uint32_t bigzip_crc32_zeros(uint64_t n);

#endif
