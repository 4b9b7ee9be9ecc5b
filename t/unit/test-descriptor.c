/*
 * test-descriptor.c - Check tests of the data-descriptor compiler
 * (libpicl-trace/descriptor.c): compiling control strings, rejecting the
 * ones we do not support (with their column), decoding data the scanf way,
 * the NOMEM capacity protocol, hostile counts, and encode/decode round trips
 * on the statistics data of the spec's Table 20.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "picl-trace.h"

#define MAXV 64

static struct picl_descriptor *compile_ok(const char *control)
{
	struct picl_descriptor *d = NULL;
	struct picl_error err;
	int rc;

	memset(&err, 0, sizeof(err));
	rc = picl_descriptor_compile(control, strlen(control), &d, &err);
	ck_assert_msg(rc == PICL_OK, "compile \"%s\": %d %s", control, rc, err.problem);
	ck_assert_ptr_nonnull(d);
	return d;
}

static void compile_bad(const char *control, size_t len, uint64_t column, const char *words)
{
	struct picl_descriptor *d = (struct picl_descriptor *)1;
	struct picl_error err;
	int rc;

	memset(&err, 0, sizeof(err));
	rc = picl_descriptor_compile(control, len, &d, &err);
	ck_assert_msg(rc == PICL_ERR_DESCRIPTOR, "\"%.40s\" compiled (%d)", control, rc);
	ck_assert_ptr_null(d);
	ck_assert_int_eq(err.code, PICL_ERR_DESCRIPTOR);
	ck_assert_msg(err.mark.column == column, "\"%.40s\": column %llu, expected %llu (%s)",
		      control, (unsigned long long)err.mark.column,
		      (unsigned long long)column, err.problem);
	ck_assert_msg(strstr(err.problem, words) != NULL, "\"%.40s\": problem \"%s\" lacks \"%s\"",
		      control, err.problem, words);
}

/* Decode text with n fields into vals[MAXV]; returns the status. */
static int decode(const struct picl_descriptor *d, uint64_t n, const char *text,
		  struct picl_value *vals, size_t *nv, size_t *used, struct picl_error *err)
{
	size_t cap = MAXV;

	memset(err, 0, sizeof(*err));
	*nv = 0;
	*used = 0;
	return picl_descriptor_decode(d, n, text, strlen(text), vals, nv, &cap, used, err);
}

static void decode_ok(const struct picl_descriptor *d, uint64_t n, const char *text,
		      struct picl_value *vals, size_t expect_nv)
{
	struct picl_error err;
	size_t nv, used;
	int rc = decode(d, n, text, vals, &nv, &used, &err);

	ck_assert_msg(rc == PICL_OK, "decode \"%s\" n=%llu: %d %s (column %llu)", text,
		      (unsigned long long)n, rc, err.problem, (unsigned long long)err.mark.column);
	ck_assert_uint_eq(nv, expect_nv);
}

static void decode_bad(const char *control, uint64_t n, const char *text, int code,
		       uint64_t column, const char *words)
{
	struct picl_descriptor *d = compile_ok(control);
	struct picl_value vals[MAXV];
	struct picl_error err;
	size_t nv, used;
	int rc = decode(d, n, text, vals, &nv, &used, &err);

	ck_assert_msg(rc == code, "\"%s\" on \"%s\": %d, expected %d (%s)", control, text, rc,
		      code, err.problem);
	ck_assert_int_eq(err.code, code);
	if (column)
		ck_assert_msg(err.mark.column == column, "\"%s\" on \"%s\": column %llu, expected %llu (%s)",
			      control, text, (unsigned long long)err.mark.column,
			      (unsigned long long)column, err.problem);
	if (words)
		ck_assert_msg(strstr(err.problem, words) != NULL, "problem \"%s\" lacks \"%s\"",
			      err.problem, words);
	picl_descriptor_free(d);
}

static void assert_text(const struct picl_value *v, const char *want)
{
	ck_assert_ptr_nonnull(v->text);
	ck_assert_msg(v->text_len == strlen(want) && memcmp(v->text, want, v->text_len) == 0,
		      "text \"%.*s\", expected \"%s\"", (int)v->text_len, v->text, want);
}

static void assert_str(const struct picl_value *v, enum picl_value_kind kind, const char *want)
{
	ck_assert_int_eq(v->kind, kind);
	ck_assert_msg(v->v.s.len == strlen(want) && memcmp(v->v.s.ptr, want, v->v.s.len) == 0,
		      "string \"%.*s\", expected \"%s\"", (int)v->v.s.len, v->v.s.ptr, want);
	assert_text(v, want);
}

/* Encode values with control; the result (NUL-terminated, caller frees) or
 * NULL with *rc set. */
static char *encode(const char *control, const struct picl_value *vals, size_t nv, int *rc,
		    struct picl_error *err)
{
	struct picl_descriptor *d = compile_ok(control);
	char *buf = NULL;
	size_t len = 0, cap = 0;

	memset(err, 0, sizeof(*err));
	*rc = picl_descriptor_encode(d, vals, nv, &buf, &len, &cap, err);
	picl_descriptor_free(d);
	if (*rc != PICL_OK) {
		ck_assert_uint_eq(len, 0);
		free(buf);
		return NULL;
	}
	if (!buf)
		return strdup("");
	ck_assert_uint_eq(strlen(buf), len);
	return buf;
}

static void encode_is(const char *control, const struct picl_value *vals, size_t nv,
		      const char *want)
{
	struct picl_error err;
	int rc;
	char *s = encode(control, vals, nv, &rc, &err);

	ck_assert_msg(rc == PICL_OK, "encode with \"%s\": %d %s", control, rc, err.problem);
	ck_assert_str_eq(s, want);
	free(s);
}

static void encode_fails(const char *control, const struct picl_value *vals, size_t nv, int code)
{
	struct picl_error err;
	int rc;
	char *s = encode(control, vals, nv, &rc, &err);

	ck_assert_msg(rc == code, "encode with \"%s\": %d, expected %d (%s)", control, rc, code,
		      s ? s : err.problem);
	ck_assert_int_eq(err.code, code);
	ck_assert(err.problem[0] != '\0');
}

static struct picl_value v_int(int64_t i)
{
	struct picl_value v;

	memset(&v, 0, sizeof(v));
	v.kind = PICL_VAL_INT;
	v.v.i = i;
	return v;
}

static struct picl_value v_uint(uint64_t u)
{
	struct picl_value v;

	memset(&v, 0, sizeof(v));
	v.kind = PICL_VAL_UINT;
	v.v.u = u;
	return v;
}

static struct picl_value v_double(double d)
{
	struct picl_value v;

	memset(&v, 0, sizeof(v));
	v.kind = PICL_VAL_DOUBLE;
	v.v.d = d;
	return v;
}

static struct picl_value v_str(enum picl_value_kind kind, const char *s)
{
	struct picl_value v;

	memset(&v, 0, sizeof(v));
	v.kind = kind;
	v.v.s.ptr = s;
	v.v.s.len = strlen(s);
	return v;
}

/* Decode, encode, compare bytes with the input (canonical text), decode the
 * output again and compare the values. */
static void round_trip_canonical(const char *control, uint64_t n, const char *text)
{
	struct picl_descriptor *d = compile_ok(control);
	struct picl_value a[MAXV], b[MAXV];
	struct picl_error err;
	size_t na, nb, used, i, len = 0, cap = 0;
	char *buf = NULL;
	int rc;

	rc = decode(d, n, text, a, &na, &used, &err);
	ck_assert_msg(rc == PICL_OK, "decode: %s", err.problem);
	ck_assert_uint_eq(used, strlen(text));
	rc = picl_descriptor_encode(d, a, na, &buf, &len, &cap, &err);
	ck_assert_msg(rc == PICL_OK, "encode: %s", err.problem);
	ck_assert_str_eq(buf, text);
	rc = decode(d, n, buf, b, &nb, &used, &err);
	ck_assert_msg(rc == PICL_OK, "decode again: %s", err.problem);
	ck_assert_uint_eq(na, nb);
	for (i = 0; i < na; i++) {
		ck_assert_int_eq(a[i].kind, b[i].kind);
		ck_assert_uint_eq(a[i].text_len, b[i].text_len);
		ck_assert(memcmp(a[i].text, b[i].text, a[i].text_len) == 0);
		ck_assert(memcmp(&a[i].v, &b[i].v, sizeof(a[i].v.i)) == 0 ||
			  a[i].kind == PICL_VAL_CHARS || a[i].kind == PICL_VAL_STRING);
	}
	free(buf);
	picl_descriptor_free(d);
}

/* ------------------------------------------------------------------------ */
/* Compiling                                                                 */
/* ------------------------------------------------------------------------ */

START_TEST(test_predefined_aliases)
{
	ck_assert_str_eq(picl_predefined_alias(0), "%c");
	ck_assert_str_eq(picl_predefined_alias(1), "%s");
	ck_assert_str_eq(picl_predefined_alias(2), "%d");
	ck_assert_str_eq(picl_predefined_alias(3), "%ld");
	ck_assert_str_eq(picl_predefined_alias(4), "%f");
	ck_assert_str_eq(picl_predefined_alias(5), "%lf");
	ck_assert_ptr_null(picl_predefined_alias(6));
	ck_assert_ptr_null(picl_predefined_alias(-1));
	ck_assert_ptr_null(picl_predefined_alias(INT64_MAX));
}
END_TEST

START_TEST(test_compile_kinds)
{
	static const struct {
		const char *control;
		size_t n;
		enum picl_value_kind kinds[8];
	} cases[] = {
		{ "%d", 1, { PICL_VAL_INT } },
		{ "%i%ld%li", 3, { PICL_VAL_INT, PICL_VAL_INT, PICL_VAL_INT } },
		{ "%u%x%X%o%lu%lx", 6, { PICL_VAL_UINT, PICL_VAL_UINT, PICL_VAL_UINT, PICL_VAL_UINT,
					 PICL_VAL_UINT, PICL_VAL_UINT } },
		{ "%f%e%g%E%G", 5, { PICL_VAL_FLOAT, PICL_VAL_FLOAT, PICL_VAL_FLOAT, PICL_VAL_FLOAT,
				     PICL_VAL_FLOAT } },
		{ "%lf%le%lg", 3, { PICL_VAL_DOUBLE, PICL_VAL_DOUBLE, PICL_VAL_DOUBLE } },
		{ "%c%5c%s%10s", 4, { PICL_VAL_CHARS, PICL_VAL_CHARS, PICL_VAL_STRING, PICL_VAL_STRING } },
		{ "%d%lf", 2, { PICL_VAL_INT, PICL_VAL_DOUBLE } },
		{ "%*d%s %*lf", 1, { PICL_VAL_STRING } },
		{ "x=%d, y=%%%lf", 2, { PICL_VAL_INT, PICL_VAL_DOUBLE } },
		{ "%*d", 0, { 0 } },
	};
	size_t i, k;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct picl_descriptor *d = compile_ok(cases[i].control);

		ck_assert_msg(picl_descriptor_values_per_field(d) == cases[i].n, "%s: %zu values",
			      cases[i].control, picl_descriptor_values_per_field(d));
		for (k = 0; k < cases[i].n; k++)
			ck_assert_msg(picl_descriptor_value_kind(d, k) == cases[i].kinds[k],
				      "%s: value %zu has kind %d", cases[i].control, k,
				      picl_descriptor_value_kind(d, k));
		ck_assert_int_eq(picl_descriptor_value_kind(d, cases[i].n), 0);
		ck_assert_str_eq(picl_descriptor_control(d), cases[i].control);
		ck_assert_int_eq(picl_descriptor_is_chars(d), 0);
		/* suppressed conversions: a '*' after a '%' (no "%%*") */
		ck_assert_int_eq(picl_descriptor_has_suppressed(d),
				 strstr(cases[i].control, "%*") != NULL);
		/* literal text: only "x=%d, y=%%%lf" has any ("%%" is one) */
		ck_assert_int_eq(picl_descriptor_has_literals(d),
				 strchr(cases[i].control, '=') != NULL);
		picl_descriptor_free(d);
	}
	{
		static const char *const lit[] = { "%d,%d", "x%d", "%d;", "%%%d", "%d %%" };
		static const char *const none[] = { "%d", " %d  %lf ", "%5d%s", "%*d%c" };

		for (i = 0; i < sizeof(lit) / sizeof(lit[0]); i++) {
			struct picl_descriptor *d = compile_ok(lit[i]);

			ck_assert_msg(picl_descriptor_has_literals(d) == 1, "%s", lit[i]);
			picl_descriptor_free(d);
		}
		for (i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
			struct picl_descriptor *d = compile_ok(none[i]);

			ck_assert_msg(picl_descriptor_has_literals(d) == 0, "%s", none[i]);
			picl_descriptor_free(d);
		}
		ck_assert_int_eq(picl_descriptor_has_literals(NULL), 0);
	}
}
END_TEST

START_TEST(test_compile_chars)
{
	struct picl_descriptor *d = compile_ok("%c");

	ck_assert_int_eq(picl_descriptor_is_chars(d), 1);
	ck_assert_uint_eq(picl_descriptor_values_per_field(d), 1);
	ck_assert_int_eq(picl_descriptor_value_kind(d, 0), PICL_VAL_CHARS);
	picl_descriptor_free(d);
	d = compile_ok(picl_predefined_alias(0));
	ck_assert_int_eq(picl_descriptor_is_chars(d), 1);
	picl_descriptor_free(d);
	/* Only exactly "%c" is character data. */
	d = compile_ok("%1c");
	ck_assert_int_eq(picl_descriptor_is_chars(d), 0);
	picl_descriptor_free(d);
	d = compile_ok(" %c");
	ck_assert_int_eq(picl_descriptor_is_chars(d), 0);
	picl_descriptor_free(d);
	/* The control string is copied: the caller's buffer may go. */
	{
		char tmp[8] = "%d;%lf";
		struct picl_descriptor *d2 = NULL;

		ck_assert_int_eq(picl_descriptor_compile(tmp, 3, &d2, NULL), PICL_OK);
		memset(tmp, 'x', sizeof(tmp));
		ck_assert_str_eq(picl_descriptor_control(d2), "%d;");
		ck_assert_uint_eq(picl_descriptor_values_per_field(d2), 1);
		picl_descriptor_free(d2);
	}
}
END_TEST

START_TEST(test_compile_errors)
{
	static const struct {
		const char *control;
		uint64_t column;
		const char *words;
	} cases[] = {
		{ "%n", 2, "%n is not allowed in a data descriptor" },
		{ "%d %n", 5, "%n is not allowed" },
		{ "%p", 2, "%p is not allowed" },
		{ "%[abc]", 2, "%[" },
		{ "%hd", 2, "h modifier" },
		{ "%hhd", 2, "hh modifier" },
		{ "%Lf", 2, "L modifier" },
		{ "%lld", 2, "ll modifier" },
		{ "%qd", 2, "q modifier" },
		{ "%jd", 2, "j modifier" },
		{ "%zd", 2, "z modifier" },
		{ "%td", 2, "t modifier" },
		{ "%5hd", 3, "h modifier" },
		{ "%y", 2, "unknown conversion \"%y\"" },
		{ "%d%a", 4, "unknown conversion" },
		{ "%lc", 3, "wide characters" },
		{ "%ls", 3, "wide characters" },
		{ "%d%", 3, "lone %" },
		{ "%", 1, "lone %" },
		{ "%5", 1, "incomplete conversion" },
		{ "%l", 1, "incomplete conversion" },
		{ "%*", 1, "incomplete conversion" },
		{ "%0d", 2, "width must not be 0" },
		{ "%1000001d", 2, "width must not exceed 1000000" },
		{ "%99999999999999999999999c", 2, "width must not exceed" },
		{ "%*%", 3, "%% cannot take" },
		{ "%5%", 3, "%% cannot take" },
		{ "abc", 1, "no conversion" },
		{ "%%", 1, "no conversion" },
		{ "", 1, "no conversion" },
		{ "   ", 1, "no conversion" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		compile_bad(cases[i].control, strlen(cases[i].control), cases[i].column,
			    cases[i].words);
	compile_bad("%d\0%d", 5, 3, "NUL");
	compile_bad("%\0", 2, 2, "NUL");
}
END_TEST

START_TEST(test_compile_limits)
{
	char big[4200];
	struct picl_descriptor *d = NULL;

	/* 4096 bytes are fine, 4097 are not. */
	memset(big, ' ', sizeof(big));
	memcpy(big, "%d", 2);
	ck_assert_int_eq(picl_descriptor_compile(big, 4096, &d, NULL), PICL_OK);
	ck_assert_uint_eq(strlen(picl_descriptor_control(d)), 4096);
	picl_descriptor_free(d);
	compile_bad(big, 4097, 4097, "longer than 4096 bytes");
	/* Widths up to 1000000, and long programs. */
	d = compile_ok("%1000000c");
	picl_descriptor_free(d);
	for (size_t i = 0; i + 2 <= 4096; i += 2)
		memcpy(big + i, "%d", 2);
	ck_assert_int_eq(picl_descriptor_compile(big, 4096, &d, NULL), PICL_OK);
	ck_assert_uint_eq(picl_descriptor_values_per_field(d), 2048);
	picl_descriptor_free(d);
	/* A NULL err is allowed. */
	ck_assert_int_eq(picl_descriptor_compile("%n", 2, &d, NULL), PICL_ERR_DESCRIPTOR);
	ck_assert_ptr_null(d);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Decoding                                                                  */
/* ------------------------------------------------------------------------ */

START_TEST(test_decode_integers)
{
	struct picl_value v[MAXV];
	struct picl_descriptor *d;

	d = compile_ok("%d");
	decode_ok(d, 3, " 1 -2\t+3", v, 3);
	ck_assert_int_eq(v[0].kind, PICL_VAL_INT);
	ck_assert_int_eq(v[0].v.i, 1);
	ck_assert_int_eq(v[1].v.i, -2);
	ck_assert_int_eq(v[2].v.i, 3);
	assert_text(&v[1], "-2");
	assert_text(&v[2], "+3");
	decode_ok(d, 2, " 9223372036854775807 -9223372036854775808", v, 2);
	ck_assert(v[0].v.i == INT64_MAX);
	ck_assert(v[1].v.i == INT64_MIN);
	/* %d widens to 64 bits. */
	decode_ok(d, 1, " 4294967296", v, 1);
	ck_assert(v[0].v.i == 4294967296LL);
	picl_descriptor_free(d);

	d = compile_ok("%ld%li");
	decode_ok(d, 1, " -7 -0x10", v, 2);
	ck_assert_int_eq(v[0].v.i, -7);
	ck_assert_int_eq(v[1].v.i, -16);
	picl_descriptor_free(d);

	d = compile_ok("%u");
	decode_ok(d, 2, " 18446744073709551615 +0", v, 2);
	ck_assert_int_eq(v[0].kind, PICL_VAL_UINT);
	ck_assert(v[0].v.u == UINT64_MAX);
	ck_assert(v[1].v.u == 0);
	picl_descriptor_free(d);

	d = compile_ok("%x");
	decode_ok(d, 4, " ff 0x10 DEADbeef 0XA", v, 4);
	ck_assert(v[0].v.u == 0xff);
	ck_assert(v[1].v.u == 0x10);
	ck_assert(v[2].v.u == 0xdeadbeef);
	ck_assert(v[3].v.u == 10);
	assert_text(&v[1], "0x10");
	picl_descriptor_free(d);

	d = compile_ok("%X%lx");
	decode_ok(d, 1, " FFFFFFFFFFFFFFFF 0", v, 2);
	ck_assert(v[0].v.u == UINT64_MAX);
	picl_descriptor_free(d);

	d = compile_ok("%o");
	decode_ok(d, 3, " 17 0 777", v, 3);
	ck_assert(v[0].v.u == 15);
	ck_assert(v[1].v.u == 0);
	ck_assert(v[2].v.u == 511);
	picl_descriptor_free(d);

	/* %i: base from the prefix. */
	d = compile_ok("%i");
	decode_ok(d, 6, " 0x1f 017 -10 0 +0X7fffffffffffffff 010", v, 6);
	ck_assert_int_eq(v[0].v.i, 31);
	ck_assert_int_eq(v[1].v.i, 15);
	ck_assert_int_eq(v[2].v.i, -10);
	ck_assert_int_eq(v[3].v.i, 0);
	ck_assert(v[4].v.i == INT64_MAX);
	ck_assert_int_eq(v[5].v.i, 8);
	assert_text(&v[0], "0x1f");
	picl_descriptor_free(d);

	decode_bad("%i", 1, " 08", PICL_ERR_DATA, 2, "expected an integer, found \"08\"");
	decode_bad("%i", 1, " 0x8000000000000000", PICL_ERR_RANGE, 2, "out of range");
	decode_bad("%o", 1, " 8", PICL_ERR_DATA, 2, "expected an octal integer");
	decode_bad("%x", 1, " g", PICL_ERR_DATA, 2, "expected a hexadecimal integer");
	decode_bad("%u", 1, " -1", PICL_ERR_DATA, 2, "expected an unsigned integer, found \"-1\"");
	decode_bad("%x", 1, " -1", PICL_ERR_DATA, 2, NULL);
	decode_bad("%o", 1, " -1", PICL_ERR_DATA, 2, NULL);
	decode_bad("%d", 1, " 99999999999999999999", PICL_ERR_RANGE, 2, "99999999999999999999");
	decode_bad("%d", 1, " 9223372036854775808", PICL_ERR_RANGE, 2, NULL);
	decode_bad("%d", 1, " -9223372036854775809", PICL_ERR_RANGE, 2, NULL);
	decode_bad("%u", 1, " 18446744073709551616", PICL_ERR_RANGE, 2, NULL);
	decode_bad("%x", 1, " 10000000000000000", PICL_ERR_RANGE, 2, NULL);
	decode_bad("%d", 1, " abc", PICL_ERR_DATA, 2, "expected an integer, found \"abc\"");
	decode_bad("%d", 1, " 12abc", PICL_ERR_DATA, 2, "expected an integer, found \"12abc\"");
	decode_bad("%d", 1, " -", PICL_ERR_DATA, 2, "expected an integer");
	decode_bad("%d", 1, " 1.5", PICL_ERR_DATA, 2, "found \"1.5\"");
	decode_bad("%d", 2, " 1   2x", PICL_ERR_DATA, 6, "found \"2x\"");
}
END_TEST

START_TEST(test_decode_floats)
{
	struct picl_value v[MAXV];
	struct picl_descriptor *d;

	d = compile_ok("%lf");
	decode_ok(d, 7, " 0.5 -1e3 .25 3. +2E-2 7 -0.0", v, 7);
	ck_assert_int_eq(v[0].kind, PICL_VAL_DOUBLE);
	ck_assert(v[0].v.d == 0.5);
	ck_assert(v[1].v.d == -1000.0);
	ck_assert(v[2].v.d == 0.25);
	ck_assert(v[3].v.d == 3.0);
	ck_assert(v[4].v.d == 0.02);
	ck_assert(v[5].v.d == 7.0);
	ck_assert(v[6].v.d == 0.0 && signbit(v[6].v.d));
	assert_text(&v[1], "-1e3");
	assert_text(&v[3], "3.");
	/* Tiny values underflow quietly to denormals or zero. */
	decode_ok(d, 2, " 1e-400 4.9e-324", v, 2);
	ck_assert(v[0].v.d == 0.0);
	ck_assert(v[1].v.d > 0.0);
	picl_descriptor_free(d);

	d = compile_ok("%f%e%g%E%G");
	decode_ok(d, 1, " 1 2 3 4 5", v, 5);
	ck_assert_int_eq(v[0].kind, PICL_VAL_FLOAT);
	ck_assert(v[4].v.d == 5.0);
	picl_descriptor_free(d);

	/* Short numbers are converted by hand, the rest by strtod: either way
	 * the nearest double, as strtod gives it. */
	{
		static const char *const tricky[] = {
			"0.1", "0.3", "4.35", "-2.675", "1e22", "1e23", "9007199254740992",
			"9007199254740993", "123456789012345678901234567890", "1.7976931348623157e308",
			"2.2250738585072014e-308", "0.000000000000000000001", "5e-324",
			"0.30000000000000004", "1234567890123456789", "12345678901234567890",
			"00000000000000000000000001.5", "0.0000000000000000000000000000015", "8.5e-5",
			"0.000098", "0.717018", "-0", "1.", ".5e+1", "7E-10"
		};
		size_t i;

		d = compile_ok("%lf");
		for (i = 0; i < sizeof(tricky) / sizeof(tricky[0]); i++) {
			char text[64];

			snprintf(text, sizeof(text), " %s", tricky[i]);
			decode_ok(d, 1, text, v, 1);
			ck_assert_msg(memcmp(&v[0].v.d, &(double){ strtod(tricky[i], NULL) },
					     sizeof(double)) == 0,
				      "%s read as %.17g", tricky[i], v[0].v.d);
		}
		picl_descriptor_free(d);
	}

	decode_bad("%lf", 1, " inf", PICL_ERR_DATA, 2, "expected a number, found \"inf\"");
	decode_bad("%lf", 1, " nan", PICL_ERR_DATA, 2, NULL);
	decode_bad("%lf", 1, " -infinity", PICL_ERR_DATA, 2, NULL);
	decode_bad("%lf", 1, " 0x1p3", PICL_ERR_DATA, 2, NULL);
	decode_bad("%lf", 1, " 1e", PICL_ERR_DATA, 2, NULL);
	decode_bad("%lf", 1, " .", PICL_ERR_DATA, 2, NULL);
	decode_bad("%lf", 1, " 1,5", PICL_ERR_DATA, 2, NULL);
	decode_bad("%lf", 1, " 1e999", PICL_ERR_RANGE, 2, "out of range");
	decode_bad("%f", 1, " -1e400", PICL_ERR_RANGE, 2, NULL);
}
END_TEST

START_TEST(test_decode_widths)
{
	struct picl_value v[MAXV];
	struct picl_descriptor *d;

	/* A width cuts a number: "%2d" reads 12 34 56 from 123456. */
	d = compile_ok("%2d");
	decode_ok(d, 3, " 123456", v, 3);
	ck_assert_int_eq(v[0].v.i, 12);
	ck_assert_int_eq(v[1].v.i, 34);
	ck_assert_int_eq(v[2].v.i, 56);
	decode_ok(d, 2, " 1 -5", v, 2);
	ck_assert_int_eq(v[0].v.i, 1);
	ck_assert_int_eq(v[1].v.i, -5);
	picl_descriptor_free(d);

	d = compile_ok("%3lf");
	decode_ok(d, 2, " 1.25", v, 2);
	ck_assert(v[0].v.d == 1.2);
	ck_assert(v[1].v.d == 5.0);
	picl_descriptor_free(d);

	/* %Ns reads at most N bytes of a word. */
	d = compile_ok("%3s");
	decode_ok(d, 3, " abcdef gh", v, 3);
	assert_str(&v[0], PICL_VAL_STRING, "abc");
	assert_str(&v[1], PICL_VAL_STRING, "def");
	assert_str(&v[2], PICL_VAL_STRING, "gh");
	picl_descriptor_free(d);

	/* %5c inside a bigger string: one separating blank, then 5 bytes,
	 * blanks included. */
	d = compile_ok("%d%5c%d");
	decode_ok(d, 2, " 7 ab cd 9 8  x   10", v, 6);
	ck_assert_int_eq(v[0].v.i, 7);
	assert_str(&v[1], PICL_VAL_CHARS, "ab cd");
	ck_assert_int_eq(v[2].v.i, 9);
	ck_assert_int_eq(v[3].v.i, 8);
	assert_str(&v[4], PICL_VAL_CHARS, " x   ");
	ck_assert_int_eq(v[5].v.i, 10);
	picl_descriptor_free(d);
	decode_bad("%d%5c%d", 1, " 7 abcd", PICL_ERR_DATA, 4, "expected 5 characters, found only 4");

	/* %c in a bigger string takes the separating blank only if there. */
	d = compile_ok("%d,%c%c");
	decode_ok(d, 2, " 1,x y 2, ab", v, 6);
	ck_assert_int_eq(v[0].v.i, 1);
	assert_str(&v[1], PICL_VAL_CHARS, "x");
	assert_str(&v[2], PICL_VAL_CHARS, "y");
	ck_assert_int_eq(v[3].v.i, 2);
	assert_str(&v[4], PICL_VAL_CHARS, "a");
	assert_str(&v[5], PICL_VAL_CHARS, "b");
	picl_descriptor_free(d);
}
END_TEST

START_TEST(test_decode_char_data)
{
	struct picl_value v[MAXV];
	struct picl_descriptor *d = compile_ok("%c");
	struct picl_error err;
	size_t nv, used;

	/* A label with blanks inside: n counts characters after the one blank. */
	ck_assert_int_eq(decode(d, 14, " hello world  x", v, &nv, &used, &err), PICL_OK);
	ck_assert_uint_eq(nv, 1);
	ck_assert_uint_eq(used, 15);
	assert_str(&v[0], PICL_VAL_CHARS, "hello world  x");

	/* Leading and trailing blanks belong to the data when counted. */
	ck_assert_int_eq(decode(d, 4, "  ab   ", v, &nv, &used, &err), PICL_OK);
	assert_str(&v[0], PICL_VAL_CHARS, " ab ");
	ck_assert_uint_eq(used, 5);
	ck_assert_int_eq(decode(d, 2, " hi  ", v, &nv, &used, &err), PICL_OK);
	assert_str(&v[0], PICL_VAL_CHARS, "hi");
	ck_assert_uint_eq(used, 3);
	picl_descriptor_free(d);

	decode_bad("%c", 14, " hello world", PICL_ERR_DATA, 0, "declares 14 characters but has only 11");
	decode_bad("%c", 3, "", PICL_ERR_DATA, 1, NULL);
	decode_bad("%c", 1, "x", PICL_ERR_DATA, 1, "blank");
}
END_TEST

START_TEST(test_decode_words_and_literals)
{
	struct picl_value v[MAXV];
	struct picl_descriptor *d;
	struct picl_error err;
	size_t nv, used;

	d = compile_ok("%s");
	decode_ok(d, 2, "  foo\tbar!  ", v, 2);
	assert_str(&v[0], PICL_VAL_STRING, "foo");
	assert_str(&v[1], PICL_VAL_STRING, "bar!");
	picl_descriptor_free(d);

	/* Literal text must match exactly; it may end a number. */
	d = compile_ok("x=%d;");
	ck_assert_int_eq(decode(d, 2, " x=1;x=-2;  ", v, &nv, &used, &err), PICL_OK);
	ck_assert_uint_eq(nv, 2);
	ck_assert_int_eq(v[0].v.i, 1);
	ck_assert_int_eq(v[1].v.i, -2);
	ck_assert_uint_eq(used, 10);
	picl_descriptor_free(d);
	decode_bad("x=%d;", 2, " x=1;y=2;", PICL_ERR_DATA, 6, "expected \"x=\", found \"y=\"");
	decode_bad("x=%d;", 2, " x=1;x=2", PICL_ERR_DATA, 9, "expected \";\", found the end of the data");

	d = compile_ok("%dabc");
	decode_ok(d, 1, " 12abc", v, 1);
	ck_assert_int_eq(v[0].v.i, 12);
	picl_descriptor_free(d);

	/* %% matches a '%'. */
	d = compile_ok("%d%%");
	decode_ok(d, 2, " 5% 60%", v, 2);
	ck_assert_int_eq(v[0].v.i, 5);
	ck_assert_int_eq(v[1].v.i, 60);
	picl_descriptor_free(d);
	decode_bad("%d%%", 1, " 5", PICL_ERR_DATA, 3, "expected \"%\"");

	/* White space in the control string matches any amount, or none. */
	d = compile_ok("%d , %d");
	decode_ok(d, 1, " 1,2", v, 2);
	ck_assert_int_eq(v[1].v.i, 2);
	decode_ok(d, 1, " 1 \t,   2", v, 2);
	ck_assert_int_eq(v[1].v.i, 2);
	picl_descriptor_free(d);

	/* A word stops at the literal that follows it (our extension). */
	d = compile_ok("%s=%d");
	decode_ok(d, 2, " a=1 bc=2", v, 4);
	assert_str(&v[0], PICL_VAL_STRING, "a");
	ck_assert_int_eq(v[1].v.i, 1);
	assert_str(&v[2], PICL_VAL_STRING, "bc");
	ck_assert_int_eq(v[3].v.i, 2);
	picl_descriptor_free(d);

	/* A number may run up to the literal of the next application. */
	d = compile_ok("#%d");
	decode_ok(d, 3, " #1#2# 3", v, 3);
	ck_assert_int_eq(v[0].v.i, 1);
	ck_assert_int_eq(v[2].v.i, 3);
	picl_descriptor_free(d);
	d = compile_ok("(%d)");
	decode_ok(d, 2, " (1)( 2)", v, 2);
	/* Data fields are separated by white space (spec 2.2.1), also
	 * those that begin with literal text. */
	decode_ok(d, 2, " (1) (2)", v, 2);
	ck_assert_int_eq(v[1].v.i, 2);
	decode_ok(d, 3, " (1)\t\t(2)  ( 3)", v, 3);
	ck_assert_int_eq(v[2].v.i, 3);
	picl_descriptor_free(d);
	decode_bad("(%d)", 2, " (1) x(2)", PICL_ERR_DATA, 6, "expected \"(\", found \"x\"");
	d = compile_ok("x=%d,y=%lf");
	decode_ok(d, 2, " x=5,y=2.5 x=-1,y=1e-3", v, 4);
	ck_assert_int_eq(v[2].v.i, -1);
	ck_assert(v[3].v.d == 1e-3);
	picl_descriptor_free(d);
	d = compile_ok("%d;");
	decode_ok(d, 2, " 1; 2;", v, 2);
	picl_descriptor_free(d);
}
END_TEST

START_TEST(test_decode_suppression)
{
	struct picl_value v[MAXV];
	struct picl_descriptor *d;
	struct picl_error err;
	size_t nv, used, cap = 0;

	d = compile_ok("%*d%d");
	decode_ok(d, 2, " 1 2 3 4", v, 2);
	ck_assert_int_eq(v[0].v.i, 2);
	ck_assert_int_eq(v[1].v.i, 4);
	picl_descriptor_free(d);
	decode_bad("%*d%d", 1, " x 2", PICL_ERR_DATA, 2, "expected an integer");
	decode_bad("%*d%d", 1, " 99999999999999999999 2", PICL_ERR_RANGE, 2, NULL);

	/* Nothing stored at all: no capacity needed. */
	d = compile_ok("%*d %*s");
	nv = 99;
	ck_assert_int_eq(picl_descriptor_decode(d, 2, " 1 a 2 b", 8, NULL, &nv, &cap, &used, &err),
			 PICL_OK);
	ck_assert_uint_eq(nv, 0);
	ck_assert_uint_eq(used, 8);
	picl_descriptor_free(d);
}
END_TEST

START_TEST(test_decode_count_errors)
{
	struct picl_value v[MAXV];
	struct picl_descriptor *d;
	struct picl_error err;
	size_t nv, used, cap;

	/* Too few fields. */
	decode_bad("%d", 3, " 1 2", PICL_ERR_DATA, 5, "field 3 of 3");
	decode_bad("%d%lf", 2, " 1 0.5 2", PICL_ERR_DATA, 9, "expected a number, found the end of the data");
	decode_bad("%d", 3, "", PICL_ERR_DATA, 1, "declares 3 data fields, more than its 0 bytes");
	decode_bad("%d", 1, "", PICL_ERR_DATA, 1, "declares 1 data field, more than its 0 bytes of");
	decode_bad("%d", 3, " 1", PICL_ERR_DATA, 1, "more than its 2 bytes of");

	/* nfields = 0: nothing to decode. */
	d = compile_ok("%d");
	ck_assert_int_eq(decode(d, 0, "", v, &nv, &used, &err), PICL_OK);
	ck_assert_uint_eq(nv, 0);
	ck_assert_uint_eq(used, 0);

	/* A hostile count fails before asking for capacity: cap stays 0 and
	 * the values array is never touched (NULL here). */
	cap = 0;
	nv = 77;
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(picl_descriptor_decode(d, 1000000000000000000ULL, " 1 2 3", 6, NULL, &nv,
						&cap, &used, &err),
			 PICL_ERR_DATA);
	ck_assert_uint_eq(cap, 0);
	ck_assert_str_eq(err.problem,
			 "the record declares 1000000000000000000 data fields, "
			 "more than its 6 bytes of data can hold");
	ck_assert_int_eq(picl_descriptor_decode(d, UINT64_MAX, " 1", 2, NULL, &nv, &cap, &used, &err),
			 PICL_ERR_DATA);
	ck_assert_uint_eq(cap, 0);
	picl_descriptor_free(d);

	/* The same for multi-value and character descriptors. */
	d = compile_ok("%d%lf%5c");
	cap = 0;
	ck_assert_int_eq(picl_descriptor_decode(d, 1000000000000000000ULL, " 1 2", 4, NULL, &nv,
						&cap, &used, &err),
			 PICL_ERR_DATA);
	ck_assert_uint_eq(cap, 0);
	/* 7 bytes per application at least: 2 applications need 14. */
	ck_assert_int_eq(picl_descriptor_decode(d, 2, " 1 2 abcde", 10, NULL, &nv, &cap, &used, &err),
			 PICL_ERR_DATA);
	ck_assert_uint_eq(cap, 0);
	picl_descriptor_free(d);
	d = compile_ok("%c");
	cap = 0;
	ck_assert_int_eq(picl_descriptor_decode(d, 1000000000000000000ULL, " abc", 4, NULL, &nv,
						&cap, &used, &err),
			 PICL_ERR_DATA);
	ck_assert_uint_eq(cap, 0);
	picl_descriptor_free(d);
}
END_TEST

START_TEST(test_decode_nomem_protocol)
{
	static const char text[] = " -11 0.000098 -21 0.000046 -52 0.001212 -401 0.008083"
				   " -901 0.717018 -902 0.001170 -903 0.705632";
	struct picl_descriptor *d = compile_ok("%d%lf");
	struct picl_value v[14];
	struct picl_error err;
	size_t nv = 12345, used = 6789, cap = 4;

	memset(&err, 0, sizeof(err));
	memset(v, 0xab, sizeof(v));
	ck_assert_int_eq(picl_descriptor_decode(d, 7, text, strlen(text), v, &nv, &cap, &used, &err),
			 PICL_ERR_NOMEM);
	ck_assert_uint_eq(cap, 14);
	ck_assert_uint_eq(nv, 12345);
	ck_assert_uint_eq(used, 6789);
	ck_assert_int_eq(err.code, 0);
	ck_assert_uint_eq(((unsigned char *)v)[0], 0xab);
	ck_assert_uint_eq(((unsigned char *)v)[sizeof(v) - 1], 0xab);
	ck_assert_int_eq(picl_descriptor_decode(d, 7, text, strlen(text), v, &nv, &cap, &used, &err),
			 PICL_OK);
	ck_assert_uint_eq(nv, 14);
	ck_assert_uint_eq(used, strlen(text));
	ck_assert_int_eq(v[12].v.i, -903);
	ck_assert(v[13].v.d == 0.705632);
	picl_descriptor_free(d);

	d = compile_ok("%c");
	cap = 0;
	ck_assert_int_eq(picl_descriptor_decode(d, 3, " abc", 4, NULL, &nv, &cap, &used, &err),
			 PICL_ERR_NOMEM);
	ck_assert_uint_eq(cap, 1);
	picl_descriptor_free(d);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Encoding and round trips                                                  */
/* ------------------------------------------------------------------------ */

START_TEST(test_round_trip_table20)
{
	static const char t101[] = " -11 0.000098 -21 0.000046 -52 0.001212 -401 0.008083"
				   " -901 0.717018 -902 0.001170 -903 0.705632";
	static const char t102[] = " -11 1 -12 1 -21 1 -52 2 -401 1 -901 1 -902 1 -903 1 -904 1";
	struct picl_descriptor *d = compile_ok("%d%lf");
	struct picl_value v[MAXV];

	decode_ok(d, 7, t101, v, 14);
	ck_assert_int_eq(v[0].kind, PICL_VAL_INT);
	ck_assert_int_eq(v[0].v.i, -11);
	ck_assert_int_eq(v[1].kind, PICL_VAL_DOUBLE);
	ck_assert(v[1].v.d == 0.000098);
	ck_assert_int_eq(v[10].v.i, -902);
	ck_assert(v[11].v.d == 0.00117);
	assert_text(&v[11], "0.001170");
	picl_descriptor_free(d);

	round_trip_canonical("%d%lf", 7, t101);
	round_trip_canonical("%d%d", 9, t102);
	round_trip_canonical("%d%d", 3, " -21 8 -52 16 -901 428");
	round_trip_canonical("%d", 3, " 2 1 1");
	round_trip_canonical("%lf", 1, " 0.000124");
	round_trip_canonical("%c", 14, " hello world  x");
	round_trip_canonical("%d%5c%s", 2, " 1 ab cd word -2    x  w");
	round_trip_canonical("x=%d;", 2, " x= 1; x= -2;");
	round_trip_canonical("(%d) ", 2, " ( 1) ( 2)");
	round_trip_canonical("%i%x%X%o%u", 1, " 0x1f ff FF 017 +5");
	round_trip_canonical("%s=%d", 2, " a= 1 bc= 2");
	round_trip_canonical("%2d", 3, " 12 34 5");
}
END_TEST

START_TEST(test_encode_program_values)
{
	struct picl_value v[8];
	struct picl_descriptor *d;
	struct picl_value back[MAXV];
	struct picl_error err;
	size_t nv, used;
	char *s;
	int rc;

	/* Doubles: the shortest text that reads back the same. */
	v[0] = v_double(0.1);
	encode_is("%lf", v, 1, " 0.1");
	v[0] = v_double(1e300);
	v[1] = v_double(-0.0);
	v[2] = v_double(0.000098);
	v[3] = v_double(123456789.125);
	s = encode("%lf", v, 4, &rc, &err);
	ck_assert_int_eq(rc, PICL_OK);
	d = compile_ok("%lf");
	ck_assert_int_eq(decode(d, 4, s, back, &nv, &used, &err), PICL_OK);
	ck_assert(back[0].v.d == 1e300);
	ck_assert(back[1].v.d == 0.0 && signbit(back[1].v.d));
	ck_assert(back[2].v.d == 0.000098);
	ck_assert(back[3].v.d == 123456789.125);
	ck_assert_ptr_null(strstr(s, "  "));
	picl_descriptor_free(d);
	free(s);
	v[0] = v_double(-0.0);
	encode_is("%f", v, 1, " -0");
	v[0] = v_double(INFINITY);
	encode_fails("%lf", v, 1, PICL_ERR_UNREPRESENTABLE);
	v[0] = v_double(NAN);
	encode_fails("%lf", v, 1, PICL_ERR_UNREPRESENTABLE);
	/* FLOAT and DOUBLE are interchangeable. */
	v[0] = v_double(2.5);
	v[0].kind = PICL_VAL_FLOAT;
	encode_is("%lf", v, 1, " 2.5");

	/* Integers. */
	v[0] = v_int(-11);
	v[1] = v_double(0.000098);
	v[2] = v_int(INT64_MIN);
	v[3] = v_double(5);
	encode_is("%d%lf", v, 4, " -11 9.8e-05 -9223372036854775808 5");
	v[0] = v_uint(255);
	encode_is("%x", v, 1, " ff");
	encode_is("%X", v, 1, " FF");
	encode_is("%o", v, 1, " 377");
	encode_is("%u", v, 1, " 255");
	encode_is("%d", v, 1, " 255");
	encode_is("%i", v, 1, " 255");
	v[0] = v_int(-31);
	encode_is("%i", v, 1, " -31");
	v[0] = v_uint(UINT64_MAX);
	encode_is("%lu", v, 1, " 18446744073709551615");
	encode_fails("%d", v, 1, PICL_ERR_DATA);
	v[0] = v_int(7);
	encode_is("%x", v, 1, " 7");
	v[0] = v_int(-1);
	encode_fails("%u", v, 1, PICL_ERR_DATA);
	v[0] = v_double(1.0);
	encode_fails("%d", v, 1, PICL_ERR_DATA);
	v[0] = v_int(1);
	encode_fails("%lf", v, 1, PICL_ERR_DATA);
	encode_fails("%s", v, 1, PICL_ERR_DATA);

	/* Widths and literals the numbers must not run into. */
	v[0] = v_int(123);
	encode_fails("%2d", v, 1, PICL_ERR_UNREPRESENTABLE);
	encode_is("%3d", v, 1, " 123");
	v[0] = v_int(12);
	encode_fails("%d5", v, 1, PICL_ERR_UNREPRESENTABLE);
	encode_is("%d,", v, 1, " 12,");
	v[0] = v_double(1.0);
	encode_fails("%lfe5", v, 1, PICL_ERR_UNREPRESENTABLE);
	encode_is("%lfe", v, 1, " 1e");
	v[0] = v_int(0);
	encode_fails("%ixa", v, 1, PICL_ERR_UNREPRESENTABLE);
	/* ... also into the literal that starts the next application. */
	v[0] = v_int(1);
	v[1] = v_int(2);
	encode_is("1%d", v, 2, " 1 1 1 2");
	encode_is("1%d", v, 1, " 1 1");
	/* Data fields are separated by white space (spec 2.2.1). */
	encode_is("(%d)", v, 2, " ( 1) ( 2)");
	encode_is("(%d) ", v, 2, " ( 1) ( 2)");

	/* Text values. */
	v[0] = v_str(PICL_VAL_STRING, "word");
	v[1] = v_str(PICL_VAL_CHARS, "a b");
	encode_is("%s%3c", v, 2, " word a b");
	v[1] = v_str(PICL_VAL_CHARS, "ab");
	encode_fails("%s%3c", v, 2, PICL_ERR_DATA);
	v[0] = v_str(PICL_VAL_STRING, "two words");
	encode_fails("%s", v, 1, PICL_ERR_UNREPRESENTABLE);
	v[0] = v_str(PICL_VAL_STRING, "");
	encode_fails("%s", v, 1, PICL_ERR_UNREPRESENTABLE);
	v[0] = v_str(PICL_VAL_STRING, "toolong");
	encode_fails("%3s", v, 1, PICL_ERR_UNREPRESENTABLE);
	v[0] = v_str(PICL_VAL_STRING, "a=b");
	v[1] = v_int(1);
	encode_fails("%s=%d", v, 2, PICL_ERR_UNREPRESENTABLE);
	v[0] = v_str(PICL_VAL_CHARS, "hello world  x");
	encode_is("%c", v, 1, " hello world  x");
	v[0] = v_str(PICL_VAL_CHARS, "line\nbreak");
	encode_fails("%c", v, 1, PICL_ERR_UNREPRESENTABLE);
	v[0] = v_str(PICL_VAL_CHARS, "x");
	encode_fails("%c", v, 2, PICL_ERR_DATA);
	/* A %c after control-string white space cannot start with a blank. */
	v[0] = v_int(5);
	v[1] = v_str(PICL_VAL_CHARS, " ");
	encode_fails("%d %c", v, 2, PICL_ERR_UNREPRESENTABLE);
	encode_is("%d%c", v, 2, " 5  ");

	/* Counts, suppression, empty input. */
	v[0] = v_int(1);
	encode_fails("%d%d", v, 3, PICL_ERR_DATA);
	encode_fails("%*d%d", v, 1, PICL_ERR_UNREPRESENTABLE);
	encode_is("%d", v, 0, "");
}
END_TEST

START_TEST(test_encode_text_reuse)
{
	struct picl_value v[2];
	struct picl_descriptor *d = compile_ok("%d%lf");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	struct picl_error err;

	/* Texts that read back as the value are copied verbatim ... */
	v[0] = v_int(8);
	v[0].text = "010x";
	v[0].text_len = 3; /* "010" is 10 for %d, not 8: formatted */
	v[1] = v_double(0.00117);
	v[1].text = "0.001170";
	v[1].text_len = 8;
	ck_assert_int_eq(picl_descriptor_encode(d, v, 2, &buf, &len, &cap, &err), PICL_OK);
	ck_assert_str_eq(buf, " 8 0.001170");
	/* ... and appended to what the buffer holds. */
	v[0].text = "+8";
	v[0].text_len = 2;
	v[1].v.d = 0.5; /* stale text: the number wins */
	ck_assert_int_eq(picl_descriptor_encode(d, v, 2, &buf, &len, &cap, &err), PICL_OK);
	ck_assert_str_eq(buf, " 8 0.001170 +8 0.5");
	/* A failure leaves the buffer as it was. */
	v[1].kind = PICL_VAL_STRING;
	ck_assert_int_eq(picl_descriptor_encode(d, v, 2, &buf, &len, &cap, &err), PICL_ERR_DATA);
	ck_assert_uint_eq(len, strlen(" 8 0.001170 +8 0.5"));
	ck_assert_str_eq(buf, " 8 0.001170 +8 0.5");
	free(buf);
	picl_descriptor_free(d);

	/* A %i text keeps its base. */
	d = compile_ok("%i");
	buf = NULL;
	len = cap = 0;
	v[0] = v_int(31);
	v[0].text = "0x1F";
	v[0].text_len = 4;
	ck_assert_int_eq(picl_descriptor_encode(d, v, 1, &buf, &len, &cap, &err), PICL_OK);
	ck_assert_str_eq(buf, " 0x1F");
	free(buf);
	picl_descriptor_free(d);
}
END_TEST

START_TEST(test_regressions)
{
	/* Cases the fuzzer found. */
	struct picl_value v[MAXV];
	struct picl_descriptor *d = compile_ok("%6d 1%3lf");

	/* White space before a literal is written as a blank, or 12 would
	 * run into the literal "1". */
	decode_ok(d, 1, " 12 13.21", v, 2);
	ck_assert_int_eq(v[0].v.i, 12);
	ck_assert(v[1].v.d == 3.2);
	picl_descriptor_free(d);
	encode_is("%6d 1%3lf", v, 2, " 12 1 3.2");
	round_trip_canonical("%6d 1%3lf", 1, " 12 1 3.2");

	/* Numeric-only strings take a fast path; a trailing blank in the
	 * control string sends the same data down the general one. Both must
	 * give the same values and the same errors. */
	decode_bad("%d%lf", 2, " 1 2.5 3 x", PICL_ERR_DATA, 10, "expected a number, found \"x\"");
	decode_bad("%d%lf ", 2, " 1 2.5 3 x", PICL_ERR_DATA, 10, "expected a number, found \"x\"");
	decode_bad("%d%lf", 2, " 1 2.5 3", PICL_ERR_DATA, 9, "found the end of the data (data field 2 of 2)");
	decode_bad("%d%lf ", 2, " 1 2.5 3", PICL_ERR_DATA, 9, "found the end of the data (data field 2 of 2)");
	decode_bad("%x%d", 1, " 1 99999999999999999999", PICL_ERR_RANGE, 4, NULL);
	decode_bad("%x%d ", 1, " 1 99999999999999999999", PICL_ERR_RANGE, 4, NULL);
	d = compile_ok("%d%lf ");
	decode_ok(d, 2, " 1 2.5 3 4e1  ", v, 4);
	ck_assert_int_eq(v[2].v.i, 3);
	ck_assert(v[3].v.d == 40.0);
	picl_descriptor_free(d);
}
END_TEST

static Suite *descriptor_suite(void)
{
	Suite *s = suite_create("descriptor");
	TCase *tc;

	tc = tcase_create("compile");
	tcase_add_test(tc, test_predefined_aliases);
	tcase_add_test(tc, test_compile_kinds);
	tcase_add_test(tc, test_compile_chars);
	tcase_add_test(tc, test_compile_errors);
	tcase_add_test(tc, test_compile_limits);
	suite_add_tcase(s, tc);

	tc = tcase_create("decode");
	tcase_add_test(tc, test_decode_integers);
	tcase_add_test(tc, test_decode_floats);
	tcase_add_test(tc, test_decode_widths);
	tcase_add_test(tc, test_decode_char_data);
	tcase_add_test(tc, test_decode_words_and_literals);
	tcase_add_test(tc, test_decode_suppression);
	tcase_add_test(tc, test_decode_count_errors);
	tcase_add_test(tc, test_decode_nomem_protocol);
	suite_add_tcase(s, tc);

	tc = tcase_create("encode");
	tcase_add_test(tc, test_round_trip_table20);
	tcase_add_test(tc, test_encode_program_values);
	tcase_add_test(tc, test_encode_text_reuse);
	tcase_add_test(tc, test_regressions);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(descriptor_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
