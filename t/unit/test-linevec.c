/*
 * test-linevec.c - linevec_scan, the AVX-512 reader of canonical lines
 * (libpicl-trace/linevec.h), against the byte-by-byte reference of
 * fuzz/linevec-ref.h: the lines of real traces, each rule's edge, and a
 * few million random lines near the shape, with whatever bytes after the
 * newline. Skipped (exit 77) on a processor without AVX-512 VBMI2, where
 * the library never calls it.
 */
#include "../../fuzz/linevec-ref.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Scan `line` (at most 64 bytes, newline included if any) both ways, with
 * `junk` after it; return what the reference says. */
static int both(const char *line, char junk)
{
	char buf[64];
	struct linevec a, b;
	size_t n = strlen(line);
	int x, y;

	ck_assert_uint_le(n, sizeof(buf));
	memset(buf, junk, sizeof(buf));
	memcpy(buf, line, n);
	x = linevec_scan(buf, &a);
	y = linevec_ref(buf, &b);
	ck_assert_msg(x == y, "\"%.*s\": scan %d, reference %d", (int)n, line, x, y);
	ck_assert_msg(!x || !linevec_differ(&a, &b), "\"%.*s\": fields differ", (int)n, line);
	return y;
}

START_TEST(canonical_lines)
{
	struct linevec lv;
	char buf[64];
	static const char line[] = "-3 -21 15.608520 38 0 3 2 256 103 32\n";

	ck_assert_int_eq(both(line, 0), 1);
	ck_assert_int_eq(both("-4 -21 15.608519 14 0 0\n", '7'), 1);
	ck_assert_int_eq(both("0 2 15.608524 7 0 1 5 0.401822\n", ' '), 1);
	ck_assert_int_eq(both("-3 -901 -0.717951 1 0 0\n", '\n'), 1);
	/* what the fields are, worked out by hand */
	memset(buf, 0, sizeof(buf));
	memcpy(buf, line, sizeof(line) - 1);
	ck_assert_int_eq(linevec_scan(buf, &lv), 1);
	ck_assert_uint_eq(lv.nfields, 11);
	ck_assert_uint_eq(lv.len, sizeof(line) - 2);
	ck_assert_uint_eq(lv.v[0], 3);
	ck_assert_uint_eq(lv.v[1], 21);
	ck_assert_uint_eq(lv.v[2], 15);
	ck_assert_uint_eq(lv.v[3], 608520);
	ck_assert_uint_eq(lv.v[8], 256);
	ck_assert_uint_eq(lv.v[10], 32);
	ck_assert_uint_eq(lv.neg, 0x3);
	ck_assert_uint_eq(lv.dots, 0x4);
	ck_assert_uint_eq(lv.ndots, 1);
	ck_assert_uint_eq(lv.start[3], 10);
	ck_assert_uint_eq(lv.end[3], 16);
	ck_assert_uint_eq(lv.over8, 0);
	/* a message type of 9 digits, and a value of 16 */
	memset(buf, 0, sizeof(buf));
	strcpy(buf, "-3 -21 0.016291 39 0 3 2 16 900000019 -1234567890123456\n");
	ck_assert_int_eq(linevec_scan(buf, &lv), 1);
	ck_assert_uint_eq(lv.v[9], 900000019);
	ck_assert_uint_eq(lv.v[10], 1234567890123456ULL);
	ck_assert_uint_eq(lv.over8, (1u << 9) | (1u << 10));
	ck_assert_uint_eq(lv.neg, 0x3 | (1u << 10));
}
END_TEST

START_TEST(each_rule)
{
	static const char *const no[] = {
		"\n", "1", " 1\n", "1 \n", "1  2\n", ".5\n", "5.\n", "1..2\n", "1 .2\n",
		"-\n", "1 -\n", "--1\n", "1-2\n", "1.-2\n", "+1\n", "1\t2\n", "1 2\r\n",
		"12345678901234567\n", "-12345678901234567 1\n", "1 2.12345678901234567\n",
		"1 a\n", "1,2\n",
		"1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n", "1 2 3 4 5 6 7 8.1 2 3 4 5 6 7 8 9\n"
	};
	static const char *const yes[] = {
		"1\n", "-1\n", "0\n", "-0\n", "12345678\n", "-12345678 -87654321\n", "1.2\n",
		"1.2.3\n", "-1.2 -3.4\n", "00000000.00000001\n", "123456789\n",
		"-1234567890123456 1\n", "1 2.1234567890123456\n", "9999999999999999.9999999999999999\n",
		"1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n", "1 2 3 4 5 6 7 8.1 2 3 4 5 6 7\n"
	};
	char line[65];
	size_t i;

	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		ck_assert_msg(both(no[i], 'x') == 0, "\"%s\" taken", no[i]);
	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		ck_assert_msg(both(yes[i], '\n') == 1, "\"%s\" refused", yes[i]);
	/* the newline at the last byte of the window, and just past it */
	memset(line, 0, sizeof(line));
	for (i = 0; i < 63; i++)
		line[i] = i % 2 ? ' ' : '1';
	line[62] = '1';
	line[63] = '\n';
	ck_assert_int_eq(both(line, 0), 0);   /* 32 fields: too many */
	for (i = 0; i < 63; i++)
		line[i] = i % 8 == 7 ? ' ' : '9';
	line[62] = '9';
	ck_assert_int_eq(both(line, 0), 1);
	line[63] = '9';
	ck_assert_int_eq(both(line, '\n'), 0);   /* no newline within 64 bytes */
}
END_TEST

/* Lines near the shape: mostly digits, blanks, signs and dots, now and
 * then anything; reproducible from the loop index. */
START_TEST(random_lines)
{
	static const char alphabet[] = "0123456789012345678901234567890123456789    --..\n";
	uint64_t x = 0x9e3779b97f4a7c15ULL * (uint64_t)(_i + 1);
	unsigned long taken = 0, n;

	for (n = 0; n < 1000000; n++) {
		char buf[64];
		struct linevec a, b;
		size_t len, k;
		int p, q;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		len = 1 + (size_t)(x % 64);
		for (k = 0; k < sizeof(buf); k++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			if (x % 97 == 0)
				buf[k] = (char)(x >> 24);
			else
				buf[k] = alphabet[(x >> 8) % (sizeof(alphabet) - 2)];
		}
		if (len < sizeof(buf))
			buf[len - 1] = '\n';
		p = linevec_scan(buf, &a);
		q = linevec_ref(buf, &b);
		ck_assert_msg(p == q, "case %lu: scan %d, reference %d: \"%.64s\"", n, p, q, buf);
		ck_assert_msg(!p || !linevec_differ(&a, &b), "case %lu: fields differ", n);
		taken += (unsigned long)q;
	}
	/* the generator does reach the shape, often */
	ck_assert_uint_gt(taken, 1000);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("linevec");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	if (!linevec_available()) {
		puts("SKIP: no AVX-512 VBMI2 here (or PICL_SIMD=0): the library never calls linevec_scan");
		return 77;
	}
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, canonical_lines);
	tcase_add_test(tc, each_rule);
	tcase_add_loop_test(tc, random_lines, 0, 3);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
