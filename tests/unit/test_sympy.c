/*
 * test_sympy.c - pt2_sympy: srepr and str() forms of symbolic sizes, the
 * kinds reported, integer limits, text cut to fit, and the depth and node
 * caps (raw text kept).
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "pt2_sympy.h"
#include "pt2_tensor.h"
#include "testutil.h"

START_TEST(test_expr_readable)
{
    static const struct {
        const char *in, *out;
        int kind;
    } cases[] = {
        {"s0", "s0", PT2_SYMPY_SYMBOL},
        {"Symbol('s0', integer=True, positive=True)", "s0", PT2_SYMPY_SYMBOL},
        {"Symbol('s77', positive=True, integer=True)", "s77", PT2_SYMPY_SYMBOL},
        {"Symbol(\"u1\")", "u1", PT2_SYMPY_SYMBOL},
        {"Integer(4)", "4", PT2_SYMPY_INTEGER},
        {"Mul(Integer(2), Symbol('s0', integer=True, positive=True))", "2*s0", PT2_SYMPY_COMPOUND},
        {"Add(Integer(1), Symbol('s0', integer=True, positive=True))", "s0 + 1",
         PT2_SYMPY_COMPOUND},
        {"Add(Symbol('s0'), Integer(-1))", "s0 - 1", PT2_SYMPY_COMPOUND},
        {"Add(Symbol('s0'), Mul(Integer(-1), Symbol('s1')))", "s0 - s1", PT2_SYMPY_COMPOUND},
        {"Add(Symbol('s0'), Mul(Integer(-2), Symbol('s1')))", "s0 - 2*s1", PT2_SYMPY_COMPOUND},
        {"Mul(Integer(2), Add(Symbol('s0'), Integer(1)))", "2*(s0 + 1)", PT2_SYMPY_COMPOUND},
        {"Mul(Integer(-1), Symbol('s0'))", "-s0", PT2_SYMPY_COMPOUND},
        {"Mul(Symbol('s0'), Symbol('s1'))", "s0*s1", PT2_SYMPY_COMPOUND},
        {"Pow(Symbol('s0'), Integer(2))", "s0**2", PT2_SYMPY_COMPOUND},
        {"Pow(Add(Symbol('s0'), Integer(1)), Integer(-1))", "(s0 + 1)**(-1)", PT2_SYMPY_COMPOUND},
        {"FloorDiv(Symbol('s0'), Integer(2))", "(s0//2)", PT2_SYMPY_COMPOUND},
        {"Max(Integer(1), Symbol('s0'))", "Max(1, s0)", PT2_SYMPY_COMPOUND},
        {"Mod(Symbol('s0'), Integer(8))", "Mod(s0, 8)", PT2_SYMPY_COMPOUND},
        /* str() forms are already readable and kept. */
        {"2*s0", "2*s0", PT2_SYMPY_COMPOUND},
        {"s0 + 1", "s0 + 1", PT2_SYMPY_COMPOUND},
        /* Broken srepr falls back to the raw text. */
        {"Mul(", "Mul(", PT2_SYMPY_COMPOUND},
        {"Symbol('s0'", "Symbol('s0'", PT2_SYMPY_COMPOUND},
        {"Symbol('a b')", "a b", PT2_SYMPY_COMPOUND},
        {"Integer(99999999999999999999)", "Integer(99999999999999999999)", PT2_SYMPY_COMPOUND},
        {"Add(Symbol('s0'), Integer(1)) junk", "Add(Symbol('s0'), Integer(1)) junk",
         PT2_SYMPY_COMPOUND},
    };
    char out[PT2_SYMBOL_MAX];
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        ck_assert_int_eq(pt2_sympy_readable(cases[i].in, out, sizeof(out)), cases[i].kind);
        ck_assert_str_eq(out, cases[i].out);
    }
}
END_TEST

/*
 * Integers past 2^53 are not sizes and fall back to the raw text: render()
 * negates them, and -LLONG_MIN overflowed (UB) into "s0 - -9223372036854775808".
 */
START_TEST(test_expr_int_limits)
{
    static const struct {
        const char *in, *out;
        int kind;
    } cases[] = {
        {"Add(Symbol('s0'), Integer(-9223372036854775808))",
         "Add(Symbol('s0'), Integer(-9223372036854775808))", PT2_SYMPY_COMPOUND},
        {"Mul(Integer(-9223372036854775808), Symbol('s1'))",
         "Mul(Integer(-9223372036854775808), Symbol('s1'))", PT2_SYMPY_COMPOUND},
        {"Add(Symbol('s0'), Mul(Integer(-9223372036854775808), Symbol('s1')))",
         "Add(Symbol('s0'), Mul(Integer(-9223372036854775808), Symbol(...", PT2_SYMPY_COMPOUND},
        {"Integer(-9223372036854775808)", "Integer(-9223372036854775808)", PT2_SYMPY_COMPOUND},
        {"Integer(9007199254740993)", "Integer(9007199254740993)", PT2_SYMPY_COMPOUND},
        {"Add(Symbol('s0'), Integer(-9007199254740993))",
         "Add(Symbol('s0'), Integer(-9007199254740993))", PT2_SYMPY_COMPOUND},
        /* 2^53 itself is still a number */
        {"Integer(9007199254740992)", "9007199254740992", PT2_SYMPY_INTEGER},
        {"Integer(-9007199254740992)", "-9007199254740992", PT2_SYMPY_INTEGER},
        {"Add(Symbol('s0'), Integer(-9007199254740992))", "s0 - 9007199254740992",
         PT2_SYMPY_COMPOUND},
        {"Mul(Integer(-9007199254740992), Symbol('s1'))", "-9007199254740992*s1",
         PT2_SYMPY_COMPOUND},
        {"Add(Symbol('s0'), Mul(Integer(-9007199254740992), Symbol('s1')))",
         "s0 - 9007199254740992*s1", PT2_SYMPY_COMPOUND},
    };
    char out[PT2_SYMBOL_MAX];
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        ck_assert_int_eq(pt2_sympy_readable(cases[i].in, out, sizeof(out)), cases[i].kind);
        ck_assert_str_eq(out, cases[i].out);
    }
}
END_TEST

START_TEST(test_expr_long_and_deep)
{
    char in[4096], out[PT2_SYMBOL_MAX];
    size_t pos = 0;
    int i;

    /* Too long for a symbol: cut with "...", never a SYMBOL. */
    ck_assert_int_eq(pt2_sympy_readable("Symbol('abcdefghijabcdefghijabcdefghijabcdefghij"
                                        "abcdefghijabcdefghijabcdefghij')",
                                        out, sizeof(out)),
                     PT2_SYMPY_COMPOUND);
    ck_assert_str_eq(out, "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij...");
    ck_assert_uint_eq(strlen(out), PT2_SYMBOL_MAX - 1);

    /* 100 nested Max(...): beyond the depth cap, the raw text (cut) is kept. */
    for (i = 0; i < 100; i++)
        pos += (size_t)snprintf(in + pos, sizeof(in) - pos, "Max(");
    pos += (size_t)snprintf(in + pos, sizeof(in) - pos, "Integer(1)");
    for (i = 0; i < 100; i++)
        pos += (size_t)snprintf(in + pos, sizeof(in) - pos, ")");
    ck_assert_int_eq(pt2_sympy_readable(in, out, sizeof(out)), PT2_SYMPY_COMPOUND);
    ck_assert_str_eq(out, "Max(Max(Max(Max(Max(Max(Max(Max(Max(Max(Max(Max(Max(Max(Max(...");

    /* More nodes than the pool holds: raw text. */
    pos = (size_t)snprintf(in, sizeof(in), "Add(");
    for (i = 0; i < 200; i++)
        pos += (size_t)snprintf(in + pos, sizeof(in) - pos, "%sInteger(%d)", i ? ", " : "", i);
    snprintf(in + pos, sizeof(in) - pos, ")");
    ck_assert_int_eq(pt2_sympy_readable(in, out, sizeof(out)), PT2_SYMPY_COMPOUND);
    ck_assert_str_eq(out, "Add(Integer(0), Integer(1), Integer(2), Integer(3), Integer(...");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sympy");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_expr_readable);
    tcase_add_test(tc, test_expr_int_limits);
    tcase_add_test(tc, test_expr_long_and_deep);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
