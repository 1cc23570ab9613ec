/*
 * test_pt2d_spool.c - anonymous spool files: nothing visible in the
 * directory, the cap, the digest, and failure on a bad directory.
 *
 * The digest (nettle's SHA-256) is checked against the FIPS 180-4 example
 * vectors, written in pieces that straddle SHA-256's 64-byte blocks, since
 * uploads arrive in whatever pieces libmicrohttpd hands over.
 */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pt2d_spool.h"
#include "testutil.h"

static char dir[64];

static int entries(void)
{
    char cmd[128];

    snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A '%s')\"", dir);
    return system(cmd) == 0 ? 0 : 1;
}

static void setup(void)
{
    snprintf(dir, sizeof(dir), "/tmp/pt2d-spool-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
    rmdir(dir);
}

/* Lower-case hex of a digest (written here, not taken from the code under test). */
static void to_hex(const uint8_t d[SHA256_DIGEST_SIZE], char hex[2 * SHA256_DIGEST_SIZE + 1])
{
    size_t i;

    for (i = 0; i < SHA256_DIGEST_SIZE; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

/* Spool `len` bytes in writes of `step` bytes; the hex digest into `hex`. */
static void spool_digest(const char *data, size_t len, size_t step, char *hex)
{
    struct pt2d_spool *s;
    uint8_t d[SHA256_DIGEST_SIZE];
    size_t off = 0;

    ck_assert_int_eq(pt2d_spool_open(&s, dir, len, NULL), PT2_OK);
    while (off < len) {
        size_t n = len - off < step ? len - off : step;
        ck_assert_int_eq(pt2d_spool_write(s, data + off, n, NULL), PT2_OK);
        off += n;
    }
    ck_assert_uint_eq(pt2d_spool_size(s), len);
    pt2d_spool_finish(s, d);
    to_hex(d, hex);
    pt2d_spool_free(s);
}

START_TEST(test_write_digest_and_read_back)
{
    struct pt2d_spool *s;
    uint8_t d[SHA256_DIGEST_SIZE];
    char hex[2 * SHA256_DIGEST_SIZE + 1], back[4];

    ck_assert_int_eq(pt2d_spool_open(&s, dir, 100, NULL), PT2_OK);
    ck_assert_int_eq(entries(), 0);
    ck_assert_int_eq(pt2d_spool_write(s, "a", 1, NULL), PT2_OK);
    ck_assert_int_eq(pt2d_spool_write(s, "bc", 2, NULL), PT2_OK);
    ck_assert_uint_eq(pt2d_spool_size(s), 3);
    pt2d_spool_finish(s, d);
    to_hex(d, hex);
    ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    ck_assert_int_eq(pread(pt2d_spool_fd(s), back, 3, 0), 3);
    ck_assert_int_eq(memcmp(back, "abc", 3), 0);
    ck_assert_int_eq(pt2d_spool_write(s, "d", 1, NULL), PT2_ERR_INTERNAL);
    ck_assert_int_eq(entries(), 0);
    pt2d_spool_free(s);
    pt2d_spool_free(NULL);
}
END_TEST

START_TEST(test_digest_vectors_in_pieces)
{
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    size_t million = 1000000;
    char *a = malloc(million), hex[2 * SHA256_DIGEST_SIZE + 1];

    ck_assert_ptr_nonnull(a);
    memset(a, 'a', million);
    spool_digest("", 0, 1, hex);
    ck_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    spool_digest(two, strlen(two), 7, hex);
    ck_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    spool_digest(a, million, 997, hex);
    ck_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    /* 55, 56 and 64 bytes straddle the length field of the last block. */
    spool_digest(a, 55, 3, hex);
    ck_assert_str_eq(hex, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
    spool_digest(a, 56, 56, hex);
    ck_assert_str_eq(hex, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
    spool_digest(a, 64, 1, hex);
    ck_assert_str_eq(hex, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
    free(a);
}
END_TEST

START_TEST(test_cap)
{
    struct pt2_error err = {0};
    struct pt2d_spool *s;

    ck_assert_int_eq(pt2d_spool_open(&s, dir, 4, NULL), PT2_OK);
    ck_assert_int_eq(pt2d_spool_write(s, "abcd", 4, &err), PT2_OK);
    ck_assert_int_eq(pt2d_spool_write(s, "e", 1, &err), PT2_ERR_TOO_LARGE);
    ck_assert_str_eq(err.message, "upload exceeds the 4-byte limit");
    ck_assert_uint_eq(pt2d_spool_size(s), 4);
    pt2d_spool_free(s);
}
END_TEST

START_TEST(test_bad_dir)
{
    struct pt2_error err = {0};
    struct pt2d_spool *s;

    ck_assert_int_eq(pt2d_spool_open(&s, "/nonexistent-spool-dir", 4, &err), PT2_ERR_IO);
    ck_assert_ptr_null(s);
    ck_assert_str_eq(err.message, "spool: cannot create a file in /nonexistent-spool-dir: No "
                                  "such file or directory");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pt2d_spool");
    TCase *tc = tcase_create("core");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_write_digest_and_read_back);
    tcase_add_test(tc, test_digest_vectors_in_pieces);
    tcase_add_test(tc, test_cap);
    tcase_add_test(tc, test_bad_dir);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
