/*
 * test_kernelfile.c - a raw kernel file against a device: verdicts, and a
 * clear error for what is not a kernel, too large or unreadable.
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "pt2scope.h"
#include "testutil.h"

START_TEST(test_verdicts)
{
    struct pt2_error err = {0};
    struct pt2_device dev;
    struct pt2_verdict_result r;

    ck_assert_int_eq(pt2_target_parse("H100", &dev, &err), PT2_OK);
    ck_assert_int_eq(
        pt2_kernel_file_check("tests/fixtures/bins/cubin_cuda13/sm_90a.cubin", &dev, &r, &err),
        PT2_OK);
    ck_assert_int_eq(r.verdict, PT2_COMPATIBLE);
    ck_assert_int_eq(pt2_target_parse("10.0", &dev, &err), PT2_OK);
    ck_assert_int_eq(
        pt2_kernel_file_check("tests/fixtures/bins/cubin_cuda13/sm_90a.cubin", &dev, &r, &err),
        PT2_OK);
    ck_assert_int_eq(r.verdict, PT2_INCOMPATIBLE);
    ck_assert_str_eq(r.reason, "kernels are sm_90a only; the target is compute capability 10.0");
    ck_assert_int_eq(pt2_target_parse("gfx1100", &dev, &err), PT2_OK);
    ck_assert_int_eq(
        pt2_kernel_file_check("tests/fixtures/bins/amdgpu/gfx1100.hsaco", &dev, &r, &err), PT2_OK);
    ck_assert_int_eq(r.verdict, PT2_COMPATIBLE);
}
END_TEST

START_TEST(test_errors)
{
    struct pt2_error err = {0};
    struct pt2_device dev;
    struct pt2_verdict_result r;
    char big[] = "/tmp/pt2scope-kfile-XXXXXX";
    int fd;

    ck_assert_int_eq(pt2_target_parse("H100", &dev, &err), PT2_OK);
    ck_assert_int_eq(pt2_kernel_file_check("tests/fixtures/README.md", &dev, &r, &err),
                     PT2_ERR_FORMAT);
    ck_assert_str_eq(err.message, "no GPU kernels recognised");
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_kernel_file_check("/nonexistent/k.cubin", &dev, &r, &err), PT2_ERR_IO);
    ck_assert_str_eq(err.message, "No such file or directory");
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_kernel_file_check("tests", &dev, &r, &err), PT2_ERR_FORMAT);
    pt2_error_clear(&err);
    /* A sparse file over the cap is refused before anything is read. */
    fd = mkstemp(big);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(ftruncate(fd, (off_t)PT2_KERNEL_FILE_MAX + 1), 0);
    close(fd);
    ck_assert_int_eq(pt2_kernel_file_check(big, &dev, &r, &err), PT2_ERR_TOO_LARGE);
    ck_assert_str_eq(err.message, "larger than 256 MiB");
    unlink(big);
    ck_assert_int_eq(pt2_kernel_file_check(NULL, &dev, &r, NULL), PT2_ERR_INVALID);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("kernelfile");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_verdicts);
    tcase_add_test(tc, test_errors);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run_suite(suite());
}
