/*
 * test_rd.c - the bounded reader: exact reads, truncation, budget, counting.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_rd.h"
#include "testutil.h"

static const uint8_t data[8] = {1, 2, 3, 4, 5, 6, 7, 8};

START_TEST(test_read_exact_and_endian)
{
    struct pt2_rd rd;
    struct pt2_error err = {0};
    uint8_t b[4];

    pt2_rd_init_mem(&rd, data, sizeof(data), "mem");
    ck_assert_int_eq(pt2_rd_read(&rd, 4, b, 4, &err), PT2_OK);
    ck_assert_uint_eq(pt2_le32(b), 0x08070605u);
    ck_assert_uint_eq(pt2_be32(b), 0x05060708u);
    ck_assert_uint_eq(pt2_le16(b), 0x0605u);
    ck_assert_uint_eq(pt2_be16(b), 0x0506u);
    ck_assert_uint_eq(rd.bytes_read, 4);
}
END_TEST

START_TEST(test_read_past_end_is_truncated)
{
    struct pt2_rd rd;
    struct pt2_error err = {0};
    uint8_t b[4];

    pt2_rd_init_mem(&rd, data, sizeof(data), "mem");
    ck_assert_int_eq(pt2_rd_read(&rd, 6, b, 4, &err), PT2_ERR_FORMAT);
    ck_assert_str_eq(err.message, "mem: truncated (needs 4 bytes at offset 6, size 8)");
    ck_assert_uint_eq(rd.bytes_read, 0);
}
END_TEST

START_TEST(test_budget_enforced)
{
    struct pt2_rd rd;
    struct pt2_error err = {0};
    uint8_t b[8];

    pt2_rd_init_mem(&rd, data, sizeof(data), "mem");
    pt2_rd_set_budget(&rd, 5);
    ck_assert_int_eq(pt2_rd_read(&rd, 0, b, 4, &err), PT2_OK);
    ck_assert_int_eq(pt2_rd_read(&rd, 0, b, 4, &err), PT2_ERR_TOO_LARGE);
    ck_assert_uint_eq(rd.bytes_read, 4);
}
END_TEST

static int cb(void *ctx, uint64_t off, void *buf, size_t len, size_t *got, struct pt2_error *e)
{
    (void)ctx;
    (void)e;
    /* Deliver at most 3 bytes per call to exercise the retry loop. */
    *got = len > 3 ? 3 : len;
    memcpy(buf, data + off, *got);
    return PT2_OK;
}

START_TEST(test_callback_backend_counts_calls)
{
    struct pt2_rd rd;
    struct pt2_error err = {0};
    uint8_t b[8];

    pt2_rd_init_fn(&rd, cb, NULL, sizeof(data), "cb");
    ck_assert_int_eq(pt2_rd_read(&rd, 0, b, 8, &err), PT2_OK);
    ck_assert_int_eq(memcmp(b, data, 8), 0);
    ck_assert_uint_eq(rd.calls, 3);
    ck_assert_uint_eq(rd.bytes_read, 8);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("rd");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_read_exact_and_endian);
    tcase_add_test(tc, test_read_past_end_is_truncated);
    tcase_add_test(tc, test_budget_enforced);
    tcase_add_test(tc, test_callback_backend_counts_calls);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
