/*
 * test_pt2d_sha256.c - SHA-256 against the FIPS 180-4 / NIST example
 * vectors, streaming in odd-sized pieces, and the padding boundary cases.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "pt2d_sha256.h"
#include "testutil.h"

static void hash_hex(const void *data, size_t len, size_t step, char *hex)
{
    struct pt2d_sha256 s;
    uint8_t d[PT2D_SHA256_LEN];
    const uint8_t *p = data;
    size_t off = 0;

    pt2d_sha256_init(&s);
    while (off < len) {
        size_t n = len - off < step ? len - off : step;
        pt2d_sha256_update(&s, p + off, n);
        off += n;
    }
    pt2d_sha256_final(&s, d);
    pt2d_sha256_hex(d, PT2D_SHA256_LEN, hex);
}

START_TEST(test_nist_vectors)
{
    char hex[PT2D_SHA256_HEX_LEN];
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";

    hash_hex("", 0, 1, hex);
    ck_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    hash_hex("abc", 3, 1, hex);
    ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    hash_hex(two, strlen(two), 64, hex);
    ck_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}
END_TEST

START_TEST(test_million_a_in_odd_chunks)
{
    size_t n = 1000000;
    char *a = malloc(n);
    char hex[PT2D_SHA256_HEX_LEN];

    memset(a, 'a', n);
    hash_hex(a, n, 997, hex);
    ck_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    hash_hex(a, n, n, hex);
    ck_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    free(a);
}
END_TEST

/* 55, 56 and 64 bytes straddle the length-field boundary of the last block. */
START_TEST(test_padding_boundaries)
{
    char a[64], hex[PT2D_SHA256_HEX_LEN];

    memset(a, 'a', sizeof(a));
    hash_hex(a, 55, 7, hex);
    ck_assert_str_eq(hex, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
    hash_hex(a, 56, 3, hex);
    ck_assert_str_eq(hex, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
    hash_hex(a, 64, 1, hex);
    ck_assert_str_eq(hex, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}
END_TEST

START_TEST(test_hex_prefix)
{
    uint8_t d[3] = {0x00, 0xab, 0xff};
    char hex[7];

    pt2d_sha256_hex(d, 3, hex);
    ck_assert_str_eq(hex, "00abff");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pt2d_sha256");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_nist_vectors);
    tcase_add_test(tc, test_million_a_in_odd_chunks);
    tcase_add_test(tc, test_padding_boundaries);
    tcase_add_test(tc, test_hex_prefix);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
