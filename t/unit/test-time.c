/*
 * test-time.c - the exact decimal timestamp type: parsing (signs, points,
 * exponents, limits), exact comparison across scales, canonical formatting,
 * subtraction and rescaling.
 */
#include <check.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "picl-trace.h"

static struct picl_time T(const char *s)
{
	struct picl_time t;

	ck_assert_int_eq(picl_time_parse(s, strlen(s), &t, NULL), PICL_OK);
	return t;
}

static const char *F(struct picl_time t)
{
	static char buf[PICL_TIME_BUFSIZE];

	picl_time_format(t, buf);
	return buf;
}

START_TEST(parse_plain)
{
	struct picl_time t = T("-0.715036");

	ck_assert_int_eq(t.mant, -715036);
	ck_assert_int_eq(t.scale, 6);
	t = T("12");
	ck_assert_int_eq(t.mant, 12);
	ck_assert_int_eq(t.scale, 0);
	t = T("0.00000");
	ck_assert_int_eq(t.mant, 0);
	ck_assert_int_eq(t.scale, 5);
	t = T("+3.5");
	ck_assert_int_eq(t.mant, 35);
	ck_assert_int_eq(t.scale, 1);
	t = T(".25");
	ck_assert_int_eq(t.mant, 25);
	ck_assert_int_eq(t.scale, 2);
	t = T("7.");
	ck_assert_int_eq(t.mant, 7);
	ck_assert_int_eq(t.scale, 0);
}
END_TEST

START_TEST(parse_exponent)
{
	struct picl_time t = T("1.5e-3");

	ck_assert_int_eq(t.mant, 15);
	ck_assert_int_eq(t.scale, 4);
	t = T("15E2");
	ck_assert_int_eq(t.mant, 1500);
	ck_assert_int_eq(t.scale, 0);
	t = T("-2.5e+1");
	ck_assert_int_eq(t.mant, -25);
	ck_assert_int_eq(t.scale, 0);
}
END_TEST

START_TEST(parse_errors)
{
	struct picl_time t;
	size_t bad = 99;

	ck_assert_int_eq(picl_time_parse("", 0, &t, NULL), PICL_ERR_SYNTAX);
	ck_assert_int_eq(picl_time_parse("-", 1, &t, NULL), PICL_ERR_SYNTAX);
	ck_assert_int_eq(picl_time_parse(".", 1, &t, NULL), PICL_ERR_SYNTAX);
	ck_assert_int_eq(picl_time_parse("1.2.3", 5, &t, &bad), PICL_ERR_SYNTAX);
	ck_assert_uint_eq(bad, 3);
	ck_assert_int_eq(picl_time_parse("1e", 2, &t, NULL), PICL_ERR_SYNTAX);
	ck_assert_int_eq(picl_time_parse("0x10", 4, &t, NULL), PICL_ERR_SYNTAX);
	ck_assert_int_eq(picl_time_parse("nan", 3, &t, NULL), PICL_ERR_SYNTAX);
	/* 19 significant digits, or more than 18 decimals: out of range. */
	ck_assert_int_eq(picl_time_parse("1234567890123456789", 19, &t, NULL), PICL_ERR_RANGE);
	ck_assert_int_eq(picl_time_parse("0.0000000000000000001", 21, &t, NULL), PICL_ERR_RANGE);
	ck_assert_int_eq(picl_time_parse("1e30", 4, &t, NULL), PICL_ERR_RANGE);
	ck_assert_int_eq(picl_time_parse("1e-30", 5, &t, NULL), PICL_ERR_RANGE);
	ck_assert_int_eq(picl_time_parse("1e-19", 5, &t, NULL), PICL_ERR_RANGE);
	/* Past 18 decimals a value is kept when the extra digits are zeros
	 * of the value itself, whatever way the text writes them. */
	ck_assert_int_eq(picl_time_parse("10e-19", 6, &t, NULL), PICL_OK);
	ck_assert_int_eq(t.mant, 1);
	ck_assert_int_eq(t.scale, 18);
	/* 19 decimals, the last a zero: -25e-18. */
	ck_assert_int_eq(picl_time_parse("-0.0000000000000000250", 22, &t, NULL), PICL_OK);
	ck_assert_int_eq(t.mant, -25);
	ck_assert_int_eq(t.scale, 18);
	ck_assert_int_eq(picl_time_parse("-0.0000000000000000251", 22, &t, NULL), PICL_ERR_RANGE);
	ck_assert_int_eq(picl_time_parse("0.000e-20", 9, &t, NULL), PICL_OK);
	ck_assert_int_eq(t.mant, 0);
	ck_assert_int_eq(t.scale, 18);
	ck_assert_int_eq(picl_time_parse("0.0000000000000000001e1", 23, &t, NULL), PICL_OK);
	ck_assert_int_eq(t.mant, 1);
	ck_assert_int_eq(t.scale, 18);
	/* Zeros ending the decimals are not significant past 18 digits. */
	ck_assert_int_eq(picl_time_parse("123456789012345678.0", 20, &t, NULL), PICL_OK);
	ck_assert_int_eq(t.mant, 123456789012345678LL);
	ck_assert_int_eq(t.scale, 0);
	ck_assert_int_eq(picl_time_parse("1.0000000000000000000", 21, &t, NULL), PICL_OK);
	ck_assert_int_eq(t.mant, 100000000000000000LL);   /* 17 of the 19 zeros */
	ck_assert_int_eq(t.scale, 17);
	ck_assert_int_eq(picl_time_parse("-0.12345678901234567800e1", 25, &t, NULL), PICL_OK);
	ck_assert_int_eq(t.mant, -123456789012345678LL);
	ck_assert_int_eq(t.scale, 17);
	/* but held-back zeros followed by a digit are significant */
	ck_assert_int_eq(picl_time_parse("1.0000000000000000001", 21, &t, NULL), PICL_ERR_RANGE);
	ck_assert_int_eq(picl_time_parse("1.000000000000000001", 20, &t, NULL), PICL_ERR_RANGE);
	ck_assert_int_eq(picl_time_parse("1.00000000000000001", 19, &t, NULL), PICL_OK);
	ck_assert_int_eq(t.mant, 100000000000000001LL);
	/* and zeros that fit are kept as digits ("0.50000" stays) */
	ck_assert_int_eq(picl_time_parse("0.50000", 7, &t, NULL), PICL_OK);
	ck_assert_int_eq(t.mant, 50000);
	ck_assert_int_eq(t.scale, 5);
	ck_assert_int_eq(picl_time_parse("2.500e-2", 8, &t, NULL), PICL_OK);
	ck_assert_int_eq(t.mant, 2500);
	ck_assert_int_eq(t.scale, 5);
	/* 10^18 once the exponent is applied: 19 digits written back. */
	ck_assert_int_eq(picl_time_parse("1e18", 4, &t, NULL), PICL_ERR_RANGE);
	ck_assert_int_eq(picl_time_parse("-15e17", 6, &t, NULL), PICL_ERR_RANGE);
	ck_assert_int_eq(picl_time_parse("1e17", 4, &t, NULL), PICL_OK);
	/* 18 digits fit. */
	ck_assert_int_eq(picl_time_parse("123456789012345678", 18, &t, NULL), PICL_OK);
	ck_assert_int_eq(t.mant, 123456789012345678LL);
	/* Leading zeros are not significant. */
	ck_assert_int_eq(picl_time_parse("000000000000000000001.5", 23, &t, NULL), PICL_OK);
	ck_assert_int_eq(t.mant, 15);
}
END_TEST

START_TEST(compare_exact)
{
	ck_assert_int_eq(picl_time_cmp(T("0.5"), T("0.50000")), 0);
	ck_assert_int_eq(picl_time_cmp(T("0.000016"), T("0.00001")), 1);
	ck_assert_int_eq(picl_time_cmp(T("-0.715036"), T("-0.715024")), -1);
	ck_assert_int_eq(picl_time_cmp(T("1e-18"), T("0")), 1);
	/* Doubles cannot tell these apart; exact decimals can. */
	ck_assert_int_eq(picl_time_cmp(T("100000000.000000001"), T("100000000.000000002")), -1);
	ck_assert_int_eq(picl_time_cmp(T("999999999999999999"), T("0.000000000000000001")), 1);
	ck_assert_int_eq(picl_time_cmp(T("-999999999999999999"), T("0.000000000000000001")), -1);
}
END_TEST

START_TEST(format_roundtrip)
{
	static const char *canon[] = {
		"-0.715036", "0.000005", "0.00000", "12", "-3", "0.1", "123.456000",
		"-0.000001", "999999999999999999", "0.000000000000000001"
	};
	size_t i;

	for (i = 0; i < sizeof(canon) / sizeof(canon[0]); i++)
		ck_assert_str_eq(F(T(canon[i])), canon[i]);
	ck_assert_str_eq(F(T("1.5e-3")), "0.0015");
	ck_assert_str_eq(F(T("+07.50")), "7.50");
	ck_assert_str_eq(F(T("-0.0")), "0.0");
}
END_TEST

/* Every digit count, and the numbers around each power of ten, format as
 * printf formats them (scale 0: the mantissa itself; the library's
 * integer formatter is under it). */
START_TEST(format_integers)
{
	char want[32];
	int64_t p10 = 1;
	int k, d;

	for (k = 0; k <= 18; k++) {
		for (d = -2; d <= 2; d++) {
			struct picl_time pos = { p10 + d, 0 }, neg = { -(p10 + d), 0 };

			snprintf(want, sizeof(want), "%lld", (long long)pos.mant);
			ck_assert_str_eq(F(pos), want);
			snprintf(want, sizeof(want), "%lld", (long long)neg.mant);
			ck_assert_str_eq(F(neg), want);
		}
		if (k < 18)
			p10 *= 10;
	}
	{
		struct picl_time hi = { INT64_MAX, 0 }, lo = { INT64_MIN, 0 };
		unsigned long long x = 1;

		ck_assert_str_eq(F(hi), "9223372036854775807");
		ck_assert_str_eq(F(lo), "-9223372036854775808");
		/* and a spread of values of every length */
		for (k = 0; k < 2000; k++) {
			struct picl_time t;

			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			t.mant = (int64_t)(x >> (k % 64));
			t.scale = 0;
			snprintf(want, sizeof(want), "%lld", (long long)t.mant);
			ck_assert_str_eq(F(t), want);
		}
	}
}
END_TEST

START_TEST(arithmetic)
{
	struct picl_time d, bad = { 5, 100 };
	char buf[PICL_TIME_BUFSIZE];

	/* Results that would need 19 digits are out of range, as in text. */
	ck_assert_int_eq(picl_time_sub(T("10"), T("0.000000000000000001"), &d), PICL_ERR_RANGE);
	ck_assert_int_eq(picl_time_sub(T("1"), T("0.000000000000000001"), &d), PICL_OK);
	ck_assert_int_eq(picl_time_rescale(T("1"), 18, &d), PICL_ERR_RANGE);
	ck_assert_int_eq(picl_time_rescale(T("0.5"), 18, &d), PICL_OK);
	/* An invalid scale never overruns the buffer (the nearest bound). */
	ck_assert_uint_le(picl_time_format(bad, buf), PICL_TIME_BUFSIZE - 1);
	ck_assert_str_eq(buf, "0.000000000000000005");
	bad.scale = -1;
	ck_assert_str_eq((picl_time_format(bad, buf), buf), "5");
	/* ... nor the powers of ten, nor loops for ever (scale 2^31 - 1):
	 * arithmetic refuses it, comparison takes the nearest bound */
	{
		struct picl_time huge = { 5, INT32_MAX }, neg = { 5, -7 }, five = { 5, 0 };

		ck_assert_int_eq(picl_time_sub(T("1"), huge, &d), PICL_ERR_RANGE);
		ck_assert_int_eq(picl_time_sub(neg, T("0.5"), &d), PICL_ERR_RANGE);
		ck_assert_int_eq(picl_time_rescale(neg, 3, &d), PICL_ERR_RANGE);
		ck_assert_int_eq(picl_time_rescale(huge, 3, &d), PICL_ERR_RANGE);
		ck_assert_int_eq(picl_time_cmp(T("1"), huge), 1);
		ck_assert_int_eq(picl_time_cmp(huge, T("0.000000000000000005")), 0);
		ck_assert_int_eq(picl_time_cmp(neg, five), 0);
		ck_assert_int_eq(picl_time_cmp(T("5.5"), neg), 1);
	}

	ck_assert_int_eq(picl_time_sub(T("-0.713735"), T("-0.713833"), &d), PICL_OK);
	ck_assert_str_eq(F(d), "0.000098");
	ck_assert_int_eq(picl_time_sub(T("0.001982"), T("-0.715036"), &d), PICL_OK);
	ck_assert_str_eq(F(d), "0.717018");
	ck_assert_int_eq(picl_time_sub(T("1.5"), T("0.25"), &d), PICL_OK);
	ck_assert_str_eq(F(d), "1.25");
	ck_assert_int_eq(picl_time_rescale(T("1.5"), 4, &d), PICL_OK);
	ck_assert_str_eq(F(d), "1.5000");
	ck_assert_int_eq(picl_time_rescale(T("1.5000"), 1, &d), PICL_OK);
	ck_assert_str_eq(F(d), "1.5");
	ck_assert_int_eq(picl_time_rescale(T("1.55"), 1, &d), PICL_ERR_DATA);
	ck_assert_int_eq(picl_time_rescale(T("999999999999999999"), 2, &d), PICL_ERR_RANGE);
	ck_assert(picl_time_to_double(T("-0.715036")) == -0.715036);
}
END_TEST

/* picl_time_to_double is the nearest double, as the C library's correctly
 * rounded strtod reads the same digits, for mantissas beyond 2^53 too
 * (where (double)mant / 10^scale was 1 ULP off for ~3% of them), halfway
 * cases of the long double division included. */
START_TEST(to_double_nearest)
{
	static const char *const fixed[] = {
		"9007199254740993e-3",    /* 2^53 + 1 */
		"1234567890123456789e-9", "-1234567890123456789e-18",
		"9223372036854775807e-18", "-9223372036854775807e-1",
		"9007199254740993e0",
	};
	uint64_t x = 88172645463325252ULL;
	size_t i;
	unsigned bad = 0;

	for (i = 0; i < 200000 + sizeof(fixed) / sizeof(fixed[0]); i++) {
		char buf[64], *e;
		struct picl_time t;
		double want;

		if (i < sizeof(fixed) / sizeof(fixed[0])) {
			snprintf(buf, sizeof(buf), "%s", fixed[i]);
			t.mant = strtoll(buf, &e, 10);
			t.scale = -(int32_t)strtol(e + 1, NULL, 10);
		} else {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			/* 16 to 18 digits (a time's most), either sign,
			 * scale 0..18 */
			{
				int64_t lo = 1000000000000000;   /* 10^15 */
				unsigned d = (unsigned)(x >> 50) % 3;

				while (d--)
					lo *= 10;
				t.mant = lo + (int64_t)(x % (9 * (uint64_t)lo));
			}
			if (x >> 63)
				t.mant = -t.mant;
			t.scale = (int32_t)((x >> 40) % 19);
			snprintf(buf, sizeof(buf), "%" PRId64 "e-%d", t.mant, (int)t.scale);
		}
		want = strtod(buf, NULL);
		if (picl_time_to_double(t) != want && bad++ < 5)
			fprintf(stderr, "%s: %.17g, not %.17g\n", buf, picl_time_to_double(t), want);
	}
	ck_assert_uint_eq(bad, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("time");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, parse_plain);
	tcase_add_test(tc, parse_exponent);
	tcase_add_test(tc, parse_errors);
	tcase_add_test(tc, compare_exact);
	tcase_add_test(tc, format_roundtrip);
	tcase_add_test(tc, format_integers);
	tcase_add_test(tc, arithmetic);
	tcase_add_test(tc, to_double_nearest);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
