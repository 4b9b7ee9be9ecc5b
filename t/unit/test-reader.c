/*
 * test-reader.c - the streaming reader, the definitions it keeps and the
 * writer: fixed fields, continuation lines, comments, CRLF, every kind of
 * malformed input (with its line and column), skip-and-go-on, raw mode,
 * alias scoping and subsets, zstd input, and the writer's round trip.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "picl-trace.h"

/* The spec's Table 20 as printed: two statistics records are continued. */
static const char table20[] =
	"-3 -901 -0.715036 6 0 0\n"
	"-2 -904 -0.715024 6 0 3 2 1 1 1\n"
	"-3 -902 -0.715017 6 0 1 2 2\n"
	"-4 -902 -0.713847 6 0 0\n"
	"-3 -52 0.000128 6 0 1 2 0\n"
	"-4 -52 0.000516 6 0 3 2 8 0 0\n"
	"0 0 0.000635 6 0 1 5 0.000124\n"
	"-101 -1 0.001982 6 0 7 \"%d%lf\" -11 0.000098 -21 0.000046 -52 0.001212 \\\n"
	"-401 0.008083 -901 0.717018 -902 0.001170 -903 0.705632\n"
	"-102 -1 0.001982 6 0 9 \"%d%d\" -11 1 -12 1 -21 1 -52 2 -401 1 -901 1 \\\n"
	"-902 1 -903 1 -904 1\n";

static struct picl_reader *open_str(const char *s, unsigned flags)
{
	struct picl_reader_options o = { 0 };
	struct picl_reader *r;
	int st;

	o.flags = flags;
	r = picl_reader_open_memory(s, strlen(s), "mem.picl", &o, &st, NULL);
	ck_assert_ptr_nonnull(r);
	return r;
}

/* Read the one record of s and expect error `code` at line:column. */
static void expect_error(const char *s, int code, unsigned line, unsigned column,
			 const char *needle)
{
	struct picl_reader *r = open_str(s, 0);
	struct picl_record rec;
	int rc;

	do
		rc = picl_reader_next(r, &rec);
	while (rc == PICL_OK);
	if (rc != code || picl_reader_error(r)->mark.line != line ||
	    picl_reader_error(r)->mark.column != column ||
	    (needle && !strstr(picl_reader_error(r)->problem, needle))) {
		char buf[512];

		picl_error_format(picl_reader_error(r), buf, sizeof(buf));
		ck_abort_msg("input <%.60s>: got %d \"%s\", want %d at %u:%u with \"%s\"",
			     s, rc, buf, code, line, column, needle ? needle : "");
	}
	picl_reader_free(r);
}

START_TEST(fixed_fields)
{
	struct picl_reader *r = open_str(table20, 0);
	struct picl_record rec;
	char tbuf[PICL_TIME_BUFSIZE];

	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
	ck_assert_int_eq(rec.type, -3);
	ck_assert_int_eq(rec.event, -901);
	picl_time_format(rec.time, tbuf);
	ck_assert_str_eq(tbuf, "-0.715036");
	ck_assert_int_eq(rec.processor, 6);
	ck_assert_int_eq(rec.process, 0);
	ck_assert_uint_eq(rec.nfields, 0);
	ck_assert_int_eq(rec.has_descriptor, 0);
	ck_assert_uint_eq(rec.mark.line, 1);

	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
	ck_assert_int_eq(rec.type, -2);
	ck_assert_uint_eq(rec.nfields, 3);
	ck_assert_int_eq(rec.alias, 2);
	ck_assert_uint_eq(rec.nvalues, 3);
	ck_assert_int_eq(rec.values[0].kind, PICL_VAL_INT);
	ck_assert_int_eq(rec.values[0].v.i, 1);
	ck_assert_int_eq(rec.values[2].v.i, 1);
	ck_assert_uint_eq(rec.mark.offset, strlen("-3 -901 -0.715036 6 0 0\n"));
	picl_reader_free(r);
}
END_TEST

START_TEST(continuation_and_user_record)
{
	struct picl_reader *r = open_str(table20, 0);
	struct picl_record rec;
	int n = 0;

	while (picl_reader_next(r, &rec) == PICL_OK) {
		n++;
		if (rec.type == 0) {
			ck_assert_int_eq(rec.alias, 5);
			ck_assert_int_eq(rec.values[0].kind, PICL_VAL_DOUBLE);
			ck_assert(rec.values[0].v.d == 0.000124);
			ck_assert_uint_eq(rec.values[0].text_len, 8);
			ck_assert(memcmp(rec.values[0].text, "0.000124", 8) == 0);
		}
		if (rec.type == -101) {
			ck_assert_uint_eq(rec.mark.line, 8);
			ck_assert_uint_eq(rec.nfields, 7);
			ck_assert_uint_eq(rec.nvalues, 14);
			ck_assert_int_eq(rec.values[8].v.i, -901);
			ck_assert(rec.values[9].v.d == 0.717018);
			ck_assert_uint_eq(rec.control_len, 5);
			ck_assert(memcmp(rec.control, "%d%lf", 5) == 0);
			ck_assert(strstr(rec.line, "\\") == NULL);
		}
		if (rec.type == -102) {
			ck_assert_uint_eq(rec.mark.line, 10);
			ck_assert_uint_eq(rec.nvalues, 18);
			ck_assert_int_eq(rec.values[17].v.i, 1);
		}
	}
	ck_assert_int_eq(n, 9);
	picl_reader_free(r);
}
END_TEST

START_TEST(comments_blank_crlf)
{
	struct picl_reader *r = open_str("# a comment\n\n   \r\n-3 -901 1.5 0 0 0\r\n"
					 "  # indented comment\n-4 -901 2 0 0 0", 0);
	struct picl_record rec;

	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
	ck_assert_uint_eq(rec.mark.line, 4);
	ck_assert_uint_eq(rec.line_len, strlen("-3 -901 1.5 0 0 0"));
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
	ck_assert_int_eq(rec.type, -4);
	ck_assert_uint_eq(rec.mark.line, 6);
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_END);
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_END);
	picl_reader_free(r);
}
END_TEST

START_TEST(empty_input)
{
	struct picl_reader *r = open_str("", 0);
	struct picl_record rec;

	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_END);
	picl_reader_free(r);
}
END_TEST

START_TEST(char_data)
{
	struct picl_reader *r = open_str(
		"-5 3 0.5 -1 -1 13 0  solver step \n"
		"-7 -1 0.6 0 0 5 \"%c\" a b c\n", 0);
	struct picl_record rec;

	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
	ck_assert_uint_eq(rec.nvalues, 1);
	ck_assert_int_eq(rec.values[0].kind, PICL_VAL_CHARS);
	ck_assert_uint_eq(rec.values[0].v.s.len, 13);
	ck_assert(memcmp(rec.values[0].v.s.ptr, " solver step ", 13) == 0);
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
	ck_assert_uint_eq(rec.values[0].v.s.len, 5);
	ck_assert(memcmp(rec.values[0].v.s.ptr, "a b c", 5) == 0);
	picl_reader_free(r);
}
END_TEST

START_TEST(malformed)
{
	expect_error("-3 -901\n", PICL_ERR_SYNTAX, 1, 8, "timestamp");
	expect_error("-3 -901 0.5 6 0\n", PICL_ERR_SYNTAX, 1, 16, "number of data fields");
	expect_error("-3 x -0.5 6 0 0\n", PICL_ERR_SYNTAX, 1, 4, "event type");
	expect_error("-3 -901 0.5.1 6 0 0\n", PICL_ERR_SYNTAX, 1, 9, "timestamp");
	expect_error("-3 -901 0.5 6 0 -2\n", PICL_ERR_RANGE, 1, 17, "number of data fields");
	expect_error("-3 -901 0.5 99999999999 0 0\n", PICL_ERR_RANGE, 1, 13, "processor");
	expect_error("-3 -901 0.5 6 0 99999999999999999999999 2 1\n", PICL_ERR_RANGE, 1, 17, NULL);
	expect_error("-3 -901 12345678901234567890.5 6 0 0\n", PICL_ERR_RANGE, 1, 9, "timestamp");
	expect_error("-3 -901 0.5 6 0 0 7\n", PICL_ERR_SYNTAX, 1, 19, "no data fields");
	expect_error("-3 -21 0.5 6 0 3\n", PICL_ERR_SYNTAX, 1, 17, "descriptor");
	expect_error("-3 -21 0.5 6 0 3 \"%d 8 1 7\n", PICL_ERR_SYNTAX, 1, 18, "unterminated");
	expect_error("-3 -21 0.5 6 0 3 2 8 1\n", PICL_ERR_DATA, 1, 23, NULL);
	expect_error("-3 -21 0.5 6 0 3 2 8 1 7 9\n", PICL_ERR_DATA, 1, 26, "after 3 data fields");
	expect_error("-3 -21 0.5 6 0 1 2 x\n", PICL_ERR_DATA, 1, 20, NULL);
	expect_error("-3 -21 0.5 6 0 1 \"%n\" 3\n", PICL_ERR_DESCRIPTOR, 1, 20, "%n");
	expect_error("-3 -21 0.5 6 0 1 77 3\n", PICL_ERR_ALIAS, 1, 19, "alias 77");
	expect_error("-5 1 0.5 6 0 10 0 short\n", PICL_ERR_DATA, 1, 24, "10 characters");
	/* An error on a continued line points into that line. */
	expect_error("-101 -1 0.5 6 0 2 \"%d%lf\" -11 0.1 \\\n-21 zz\n", PICL_ERR_DATA, 2, 5, NULL);
	/* Binary garbage. */
	expect_error("\x01\x02\xff\xfe garbage\x00 here\n", PICL_ERR_SYNTAX, 1, 1, "record type");
}
END_TEST

START_TEST(huge_line)
{
	size_t n = 10u << 20, i;
	char *s = malloc(n + 64);
	struct picl_reader *r;
	struct picl_record rec;

	/* A 10 MB line, then a good record: the first is refused, the second read. */
	memcpy(s, "-5 1 0.5 6 0 10485000 0 ", 24);
	for (i = 24; i < n; i++)
		s[i] = 'x';
	strcpy(s + n, "\n-3 -901 1 0 0 0\n");
	r = open_str(s, 0);
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_ERR_TOOLONG);
	ck_assert_uint_eq(picl_reader_error(r)->mark.line, 1);
	ck_assert_int_eq(picl_reader_error_is_fatal(r), 0);
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
	ck_assert_int_eq(rec.type, -3);
	ck_assert_uint_eq(rec.mark.line, 2);
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_END);
	picl_reader_free(r);
	/* The same without a newline anywhere. */
	s[n] = '\0';
	r = open_str(s, 0);
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_ERR_TOOLONG);
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_END);
	picl_reader_free(r);
	free(s);
}
END_TEST

/* A continued record over max_record is reported at its first line, even
 * when skipping its rest stops at a line over the limit (whose own report
 * once replaced it; the parsing threads always said the first line). */
START_TEST(joined_over_limit_then_long_line)
{
	static const char s[] =
		"-102 -1 1 0 0 4 \"%d%d\" -11 1 \\\n"        /* 1: 32 bytes kept */
		"-12 1 -12 1 \\\n"                          /* 2: 43 > 40 */
		"-21 4 -21 4 -21 4 -21 4 -21 4 -21 4 -21 4 -21 4 -21 4 -21 4 \\\n"
		"-3 -901 1.5 0 0 0\n"                     /* 4: still the record */
		"-3 -901 2 0 0 0\n";
	struct picl_reader_options o = { 0 };
	struct picl_reader *r;
	struct picl_record rec;
	int st;

	o.max_record = 40;
	r = picl_reader_open_memory(s, strlen(s), "mem.picl", &o, &st, NULL);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_ERR_TOOLONG);
	ck_assert_uint_eq(picl_reader_error(r)->mark.line, 1);
	ck_assert_uint_eq(picl_reader_error(r)->mark.column, 1);
	ck_assert_uint_eq(picl_reader_error(r)->mark.offset, 0);
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
	ck_assert_int_eq(rec.event, -901);
	ck_assert_uint_eq(rec.mark.line, 5);
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_END);
	picl_reader_free(r);
}
END_TEST

/* A line over max_record that ends in " \\" is the start (or the middle)
 * of a record continued on the next lines: all of them are skipped with
 * it, reported once, at the long line; what follows is read as usual.
 * (They were once read as records of their own.) Over the buffer, the
 * long line is skipped as it is read, its last bytes kept. The parsing
 * threads agree. */
START_TEST(long_line_continued)
{
	static const char *const heads[] = {
		"",                                        /* the long line first */
		"-102 -1 1 0 0 4 \"%d%d\" -11 1 \\\n",     /* ... second */
	};
	size_t i;

	for (i = 0; i < 12; i++) {
		/* k: fits the buffer; longer than it; "\r\n" ends */
		size_t par = i / 6, h = i / 3 % 2, k = i % 3;
		size_t n = k == 0 ? 60 : 200000, len;
		char *s = malloc(n + 256);
		struct picl_reader_options o = { 0 };
		struct picl_reader *r;
		struct picl_record rec;
		int st;

		strcpy(s, heads[h]);
		len = strlen(s);
		memset(s + len, '7', n);
		len += n;
		len += (size_t)sprintf(s + len, " \\%s-3 -901 1.5 0 0 0 \\\n"
				       "-3 -901 1.6 0 0 0\n-3 -901 2 0 0 0\n",
				       k == 2 ? "\r\n" : "\n");
		o.max_record = 50;
		o.buffer_size = 4096;
		o.flags = par ? PICL_READ_PARALLEL : 0;
		r = picl_reader_open_memory(s, len, "mem.picl", &o, &st, NULL);
		ck_assert_ptr_nonnull(r);
		ck_assert_int_eq(picl_reader_next(r, &rec), PICL_ERR_TOOLONG);
		ck_assert_uint_eq(picl_reader_error(r)->mark.line, 1 + h);
		ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
		ck_assert_int_eq(rec.event, -901);
		ck_assert_uint_eq(rec.mark.line, 4 + h);
		ck_assert_int_eq(picl_reader_next(r, &rec), PICL_END);
		picl_reader_free(r);
		free(s);
	}
}
END_TEST

/* A record of exactly max_record bytes whose "\r\n" (or final "\r") comes
 * after a read that ends on the '\r' is not too long. */
START_TEST(record_at_limit_then_cr)
{
	static const char *const inputs[] = {
		"-3 -9 1 0 0 0\r",                    /* the end: no newline */
		"-3 -9 1 0 0 0\r\n-3 -9 2 0 0 0\r\n", /* the 14th byte, a read apart */
	};
	size_t i;

	for (i = 0; i < 2; i++) {
		struct picl_reader_options o = { 0 };
		struct picl_reader *r;
		struct picl_record rec;
		int st;

		o.max_record = 13;
		o.buffer_size = 14;
		r = picl_reader_open_memory(inputs[i], strlen(inputs[i]), "mem.picl", &o, &st,
					    NULL);
		ck_assert_ptr_nonnull(r);
		ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
		ck_assert_uint_eq(rec.line_len, 13);
		if (i == 1) {
			ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
			ck_assert_uint_eq(rec.mark.line, 2);
		}
		ck_assert_int_eq(picl_reader_next(r, &rec), PICL_END);
		picl_reader_free(r);
	}
}
END_TEST

START_TEST(skip_and_go_on)
{
	struct picl_reader *r = open_str("-3 -901 0 0 0 0\nbad record\n-3 -21 1 0 0 1 2 x\n"
					 "-4 -901 2 0 0 0\n", 0);
	struct picl_record rec;

	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_ERR_SYNTAX);
	ck_assert_uint_eq(picl_reader_error(r)->mark.line, 2);
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_ERR_DATA);
	ck_assert_uint_eq(picl_reader_error(r)->mark.line, 3);
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
	ck_assert_int_eq(rec.type, -4);
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_END);
	picl_reader_free(r);
}
END_TEST

START_TEST(raw_mode)
{
	struct picl_reader *r = open_str(
		"-6 -1 0 -1 -1 1 \"%d%s\" 6 \"%d %lf\"\n"
		"-3 -21 1 0 0 1 6 1 zz\n", PICL_READ_RAW);
	struct picl_record rec;

	/* Definitions are applied even in raw mode... */
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
	ck_assert_uint_eq(rec.nvalues, 2);
	ck_assert_int_eq(rec.values[0].v.i, 6);
	ck_assert_uint_eq(rec.values[1].v.s.len, 6);
	ck_assert(memcmp(rec.values[1].v.s.ptr, "%d %lf", 6) == 0);
	/* ...other data are left alone (a bad double is not noticed)... */
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
	ck_assert_ptr_null(rec.values);
	ck_assert_uint_eq(rec.data_len, 5);
	/* ...until asked for. */
	ck_assert_int_eq(picl_reader_decode(r, &rec), PICL_ERR_DATA);
	ck_assert_uint_eq(picl_reader_error(r)->mark.line, 2);
	picl_reader_free(r);
	/* A data error found later in a continued record points into the
	 * physical line where it is. */
	r = open_str("-101 -1 0.5 6 0 2 \"%d%lf\" -11 0.1 \\\n-21 zz\n", PICL_READ_RAW);
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
	ck_assert_int_eq(picl_reader_decode(r, &rec), PICL_ERR_DATA);
	ck_assert_uint_eq(picl_reader_error(r)->mark.line, 2);
	ck_assert_uint_eq(picl_reader_error(r)->mark.column, 5);
	picl_reader_free(r);
}
END_TEST

START_TEST(alias_scope)
{
	struct picl_reader *r = open_str(
		"-6 -1 0 -1 -1 1 \"%d%s\" 7 \"%d\"\n"
		"-6 -1 0 3 -1 1 \"%d%s\" 7 \"%lf\"\n"
		"-6 5 0 -1 -1 1 \"%d%s\" 7 \"%s\"\n"
		"-6 -1 0 -1 -1 1 \"%d%s\" 2 \"%lf\"\n"
		"-1 -1 1 0 0 1 7 12\n"        /* global: %d */
		"-1 -1 1 3 0 1 7 1.5\n"       /* processor 3: %lf */
		"-1 5 1 0 0 1 7 word\n"       /* event 5: %s */
		"-1 5 1 3 0 1 7 2.5\n"        /* tie (1 exact each): the latest, %s */
		"-1 -1 1 0 0 1 2 0.25\n",     /* predefined 2 redefined as %lf */
		0);
	struct picl_record rec;

	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
	ck_assert_int_eq(rec.values[0].kind, PICL_VAL_INT);
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
	ck_assert_int_eq(rec.values[0].kind, PICL_VAL_DOUBLE);
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
	ck_assert_int_eq(rec.values[0].kind, PICL_VAL_STRING);
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
	ck_assert_int_eq(rec.values[0].kind, PICL_VAL_STRING);
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
	ck_assert_int_eq(rec.values[0].kind, PICL_VAL_DOUBLE);
	picl_reader_free(r);
}
END_TEST

START_TEST(subsets)
{
	struct picl_reader *r = open_str(
		"-201 -1 0 -1 -1 4 2 -2 0 1 2\n"
		"-201 -1 0 -1 -1 3 2 -3 -2 5\n"
		"-203 -1 0 -1 -1 3 2 -5 -21 -52\n"
		"-6 -1 0 -2 -1 1 \"%d%s\" 9 \"%lf\"\n"
		"-1 -1 1 1 0 1 9 1.5\n"
		"-1 -1 1 4 0 1 9 1.5\n", 0);
	struct picl_record rec;
	struct picl_defs *d;
	size_t n;

	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
	d = picl_reader_defs(r);
	ck_assert_int_eq(picl_defs_subset_exists(d, PICL_SUBSET_PROCESSORS, -2), 1);
	ck_assert_int_eq(picl_defs_subset_exists(d, PICL_SUBSET_PROCESSORS, -4), 0);
	ck_assert_int_eq(picl_defs_subset_exists(d, PICL_SUBSET_EVENTS, -1012), 1);
	ck_assert_int_eq(picl_defs_matches(d, PICL_SUBSET_PROCESSORS, -2, 1), 1);
	ck_assert_int_eq(picl_defs_matches(d, PICL_SUBSET_PROCESSORS, -2, 3), 0);
	ck_assert_int_eq(picl_defs_matches(d, PICL_SUBSET_PROCESSORS, -3, 2), 1); /* nested */
	ck_assert_int_eq(picl_defs_matches(d, PICL_SUBSET_PROCESSORS, -3, 5), 1);
	ck_assert_int_eq(picl_defs_matches(d, PICL_SUBSET_PROCESSORS, -1, 77), 1);
	ck_assert_int_eq(picl_defs_matches(d, PICL_SUBSET_EVENTS, -5, -52), 1);
	ck_assert_int_eq(picl_defs_matches(d, PICL_SUBSET_EVENTS, -1012, -21), 1);
	ck_assert_int_eq(picl_defs_matches(d, PICL_SUBSET_EVENTS, -1012, -52), 0);
	ck_assert_int_eq(picl_defs_matches(d, PICL_SUBSET_EVENTS, -1014, -61), 1);
	ck_assert_int_eq(picl_defs_matches(d, PICL_SUBSET_EVENTS, -1001, 7), 1);
	ck_assert_int_eq(picl_defs_matches(d, PICL_SUBSET_EVENTS, -1002, 7), 0);
	ck_assert_ptr_nonnull(picl_defs_subset_members(d, PICL_SUBSET_PROCESSORS, -2, &n));
	ck_assert_uint_eq(n, 3);
	/* An alias scoped to a processor subset. */
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
	ck_assert(rec.values[0].v.d == 1.5);
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_ERR_ALIAS);
	picl_reader_free(r);
}
END_TEST

/* Read s, write every record to a temporary file, return its contents. */
static char *rewrite(const char *s, int compress, size_t *outlen)
{
	char path[] = "/tmp/picl-test-XXXXXX";
	struct picl_writer_options wo = { 0 };
	struct picl_error err = { 0 };
	struct picl_reader *r = open_str(s, 0);
	struct picl_writer *w;
	struct picl_record rec;
	char *buf;
	FILE *f;
	long n;
	int fd = mkstemp(path), rc;

	ck_assert_int_ge(fd, 0);
	close(fd);
	wo.compress = compress;
	w = picl_writer_open(path, &wo, &rc, &err);
	ck_assert_ptr_nonnull(w);
	while ((rc = picl_reader_next(r, &rec)) == PICL_OK)
		ck_assert_int_eq(picl_writer_write(w, &rec), PICL_OK);
	ck_assert_int_eq(rc, PICL_END);
	ck_assert_int_eq(picl_writer_close(w, &err), PICL_OK);
	picl_reader_free(r);
	f = fopen(path, "rb");
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	unlink(path);
	*outlen = (size_t)n;
	return buf;
}

START_TEST(roundtrip_canonical)
{
	static const char canon[] =
		"-3 -901 -0.715036 6 0 0\n"
		"-2 -904 -0.715024 6 0 3 2 1 1 1\n"
		"-6 -1 -1 -1 -1 1 \"%d%s\" 6 \"%d %lf\"\n"
		"-5 3 0.5 -1 -1 13 0  solver step \n"
		"-101 -1 0.001982 6 0 2 \"%d%lf\" -11 0.000098 -21 0.0000460\n"
		"0 1 0.001971 6 0 2 6 4 0.000410 -7 1e-3\n"
		"-1 -1 7 6 0 0\n";
	size_t n;
	char *out = rewrite(canon, 0, &n);

	ck_assert_uint_eq(n, strlen(canon));
	ck_assert_str_eq(out, canon);
	free(out);
}
END_TEST

START_TEST(roundtrip_meaning)
{
	size_t n, n2;
	char *out = rewrite(table20, 0, &n), *out2;

	/* Continuations are joined; the rewrite of the rewrite is identical. */
	ck_assert(strstr(out, "\\") == NULL);
	ck_assert(strstr(out, "-52 0.001212 -401 0.008083") != NULL);
	out2 = rewrite(out, 0, &n2);
	ck_assert_str_eq(out, out2);
	free(out2);
	free(out);
	/* Non-canonical spacing becomes canonical. */
	out = rewrite("  -3\t-21   +0.50  6 0 3  \"%d\"   8\t1  7   \n", 0, &n);
	ck_assert_str_eq(out, "-3 -21 0.50 6 0 3 \"%d\" 8 1 7\n");
	free(out);
}
END_TEST

START_TEST(zstd_roundtrip)
{
	size_t n, plain_n;
	char *z = rewrite(table20, 1, &n), *plain = rewrite(table20, 0, &plain_n);
	struct picl_reader *r;
	struct picl_record rec;
	size_t count = 0;
	int st;

	/* The file starts with the zstd magic and reads back the same. */
	ck_assert((unsigned char)z[0] == 0x28 && (unsigned char)z[1] == 0xb5);
	r = picl_reader_open_memory(z, n, "z", NULL, &st, NULL);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(picl_reader_is_compressed(r), 1);
	while ((st = picl_reader_next(r, &rec)) == PICL_OK)
		count++;
	ck_assert_int_eq(st, PICL_END);
	ck_assert_uint_eq(count, 9);
	picl_reader_free(r);
	/* Truncated compressed input is a fatal, clear error. */
	r = picl_reader_open_memory(z, n - 5, "z", NULL, &st, NULL);
	while ((st = picl_reader_next(r, &rec)) == PICL_OK)
		;
	ck_assert_int_eq(st, PICL_ERR_COMPRESS);
	ck_assert_int_eq(picl_reader_error_is_fatal(r), 1);
	ck_assert(strstr(picl_reader_error(r)->problem, "truncated") != NULL);
	picl_reader_free(r);
	free(z);
	free(plain);
}
END_TEST

/* A zstd stream may start with a skippable frame (zstd -d reads it). */
START_TEST(zstd_skippable_first)
{
	size_t n, zn, count = 0;
	char *plain = rewrite(table20, 0, &n);
	size_t cap = 16 + ZSTD_compressBound(n);
	unsigned char *z = malloc(cap);
	static const unsigned char skip[16] = {
		0x50, 0x2a, 0x4d, 0x18, 8, 0, 0, 0, 'm', 'e', 't', 'a', 'd', 'a', 't', 'a'
	};
	struct picl_reader *r;
	struct picl_record rec;
	int st;

	memcpy(z, skip, sizeof(skip));
	zn = ZSTD_compress(z + sizeof(skip), cap - sizeof(skip), plain, n, 1);
	ck_assert(!ZSTD_isError(zn));
	r = picl_reader_open_memory(z, sizeof(skip) + zn, "z", NULL, &st, NULL);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(picl_reader_is_compressed(r), 1);
	while ((st = picl_reader_next(r, &rec)) == PICL_OK)
		count++;
	ck_assert_int_eq(st, PICL_END);
	ck_assert_uint_eq(count, 9);
	picl_reader_free(r);
	free(z);
	free(plain);
}
END_TEST

/*
 * Compressed input cut in the middle: the error is placed where the data
 * ran out (line, column, offset), as a decompressor on its own says, by
 * the serial reader and the parallel one alike.
 */
START_TEST(zstd_truncated_mark)
{
	size_t cap = 20000 * 40, n = 0, zcap, zn, cut, outn = 0, k, line = 1, col = 1;
	char *plain = malloc(cap), *z, *out;
	char path[] = "/tmp/picl-test-reader.XXXXXX";
	struct picl_reader_options ro = { 0 };
	struct picl_record rec;
	ZSTD_inBuffer in;
	ZSTD_DStream *ds;
	int i, st, pass, fd;

	for (i = 0; i < 20000; i++)
		n += (size_t)snprintf(plain + n, cap - n, "-2 -12 %d.%06d %d 0 0\n",
				      i / 1000, (i * 7919) % 1000000, i % 64);
	zcap = ZSTD_compressBound(n);
	z = malloc(zcap);
	zn = ZSTD_compress(z, zcap, plain, n, 1);
	ck_assert(!ZSTD_isError(zn));
	cut = zn / 2;

	/* What zstd itself gives from the first half of the frame. */
	out = malloc(n);
	ds = ZSTD_createDStream();
	in.src = z;
	in.size = cut;
	in.pos = 0;
	while (in.pos < in.size) {
		ZSTD_outBuffer ob = { out + outn, n - outn, 0 };

		ck_assert(!ZSTD_isError(ZSTD_decompressStream(ds, &ob, &in)));
		outn += ob.pos;
		if (ob.pos == 0 && in.pos == in.size)
			break;
	}
	ZSTD_freeDStream(ds);
	ck_assert_uint_gt(outn, 0);
	ck_assert_uint_lt(outn, n);
	ck_assert(memcmp(out, plain, outn) == 0);
	for (k = 0; k < outn; k++, col++)
		if (out[k] == '\n')
			line++, col = 0;

	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, z, cut), (ssize_t)cut);
	close(fd);
	for (pass = 0; pass < 2; pass++) {
		struct picl_reader *r;
		const struct picl_error *e;
		size_t records = 0;

		if (pass == 0) {
			r = picl_reader_open_memory(z, cut, "z", NULL, &st, NULL);
		} else {
			setenv("PICL_THREADS", "2", 1);
			ro.flags = PICL_READ_PARALLEL;
			r = picl_reader_open(path, &ro, &st, NULL);
		}
		ck_assert_ptr_nonnull(r);
		while ((st = picl_reader_next(r, &rec)) == PICL_OK)
			records++;
		e = picl_reader_error(r);
		ck_assert_int_eq(st, PICL_ERR_COMPRESS);
		ck_assert_uint_eq(records, line - 1);
		ck_assert_uint_eq(e->mark.line, line);
		ck_assert_uint_eq(e->mark.column, col);
		ck_assert_uint_eq(e->mark.offset, outn);
		picl_reader_free(r);
	}
	unsetenv("PICL_THREADS");
	unlink(path);
	free(out);
	free(z);
	free(plain);
}
END_TEST

START_TEST(writer_refuses)
{
	char path[] = "/tmp/picl-test-XXXXXX";
	struct picl_error err = { 0 };
	struct picl_writer *w;
	struct picl_record rec;
	int fd = mkstemp(path), rc;

	close(fd);
	unlink(path);
	w = picl_writer_open(path, NULL, &rc, &err);
	ck_assert_ptr_nonnull(w);
	picl_record_init(&rec);
	rec.type = -7;
	rec.nfields = 4;
	rec.alias = 0;
	rec.data = " a \\";
	rec.data_len = 4;
	ck_assert_int_eq(picl_writer_write(w, &rec), PICL_ERR_UNREPRESENTABLE);
	rec.data = " a\nb";
	ck_assert_int_eq(picl_writer_write(w, &rec), PICL_ERR_UNREPRESENTABLE);
	/* times the text form cannot carry (the reader would refuse them) */
	rec.type = -2;
	rec.nfields = 0;
	rec.alias = -1;
	rec.data = NULL;
	rec.data_len = 0;
	rec.time.mant = 1000000000000000000LL;
	ck_assert_int_eq(picl_writer_write(w, &rec), PICL_ERR_UNREPRESENTABLE);
	rec.time.mant = 5;
	rec.time.scale = 19;
	ck_assert_int_eq(picl_writer_write(w, &rec), PICL_ERR_UNREPRESENTABLE);
	/* fewer values than the data fields declared */
	{
		struct picl_descriptor *d;
		struct picl_value v[2];

		ck_assert_int_eq(picl_descriptor_compile("%d", 2, &d, NULL), PICL_OK);
		memset(v, 0, sizeof(v));
		v[0].kind = v[1].kind = PICL_VAL_INT;
		rec.time.scale = 0;
		rec.type = -3;
		rec.nfields = 3;
		rec.has_descriptor = 1;
		rec.alias = 2;
		rec.desc = d;
		rec.values = v;
		rec.nvalues = 2;
		ck_assert_int_eq(picl_writer_write(w, &rec), PICL_ERR_UNREPRESENTABLE);
		rec.nfields = 2;
		ck_assert_int_eq(picl_writer_write(w, &rec), PICL_OK);
		picl_descriptor_free(d);
	}
	/* Nothing under the real name until close; nothing at all after abort. */
	ck_assert_int_eq(access(path, F_OK), -1);
	picl_writer_abort(w);
	ck_assert_int_eq(access(path, F_OK), -1);
}
END_TEST

START_TEST(open_errors)
{
	struct picl_error err = { 0 };
	int st = 0;
	char buf[256];

	ck_assert_ptr_null(picl_reader_open("/nonexistent/x.picl", NULL, &st, &err));
	ck_assert_int_eq(st, PICL_ERR_IO);
	picl_error_format(&err, buf, sizeof(buf));
	ck_assert_str_eq(buf, "/nonexistent/x.picl: cannot open: No such file or directory");
	ck_assert_ptr_null(picl_writer_open("/nonexistent/dir/out.picl", NULL, &st, &err));
	ck_assert_int_eq(st, PICL_ERR_IO);
	/* a descriptor of -1 is not an empty input */
	ck_assert_ptr_null(picl_reader_open_fd(-1, "minus-one", NULL, &st, &err));
	ck_assert_int_eq(st, PICL_ERR_IO);
	ck_assert_int_eq(err.sys_errno, EBADF);
	picl_error_format(&err, buf, sizeof(buf));
	ck_assert_str_eq(buf, "minus-one: cannot read: Bad file descriptor");
}
END_TEST

/* Misuse the header names: a subset id of -1 or more; decoding a record a
 * program built, whose marks then count in its data alone. */
START_TEST(api_misuse)
{
	static const char text[] = "1 2\n";
	struct picl_defs *defs = picl_defs_new();
	struct picl_reader *r;
	struct picl_record rec;
	int32_t m = 3;
	int st;

	ck_assert_int_eq(picl_defs_define_subset(defs, PICL_SUBSET_PROCESSORS, -1, &m, 1),
			 PICL_ERR_USAGE);
	ck_assert_int_eq(picl_defs_define_subset(defs, PICL_SUBSET_PROCESSORS, 3, &m, 1),
			 PICL_ERR_USAGE);
	ck_assert_int_eq(picl_defs_define_subset(defs, PICL_SUBSET_PROCESSORS, -5, &m, 1),
			 PICL_OK);
	picl_defs_free(defs);

	r = picl_reader_open_memory(text, sizeof(text) - 1, "t", NULL, &st, NULL);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_ERR_SYNTAX);
	picl_record_init(&rec);
	rec.type = -3;
	rec.event = 1;
	rec.nfields = 2;
	rec.has_descriptor = 1;
	rec.alias = 2;                  /* "%d" */
	rec.data = " 7 x";
	rec.data_len = 4;
	ck_assert_int_eq(picl_reader_decode(r, &rec), PICL_ERR_DATA);
	ck_assert_uint_eq(picl_reader_error(r)->mark.line, 0);
	ck_assert_uint_le(picl_reader_error(r)->mark.column, 5);
	ck_assert_uint_le(picl_reader_error(r)->mark.offset, 4);
	picl_reader_free(r);
}
END_TEST

/* Every status has a text of its own; others are "unknown status". */
START_TEST(status_texts)
{
	const char *seen[16];
	int st, k, n = 0;

	for (st = PICL_END; st >= PICL_ERR_UNREPRESENTABLE; st--) {
		const char *t = picl_status_text(st);

		ck_assert_ptr_nonnull(t);
		ck_assert_str_ne(t, "unknown status");
		for (k = 0; k < n; k++)
			ck_assert_str_ne(t, seen[k]);
		seen[n++] = t;
	}
	ck_assert_str_eq(picl_status_text(PICL_OK), "success");
	ck_assert_str_eq(picl_status_text(PICL_ERR_IO), "input/output error");
	ck_assert_str_eq(picl_status_text(PICL_ERR_UNREPRESENTABLE - 1), "unknown status");
	ck_assert_str_eq(picl_status_text(1000), "unknown status");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("reader");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, fixed_fields);
	tcase_add_test(tc, joined_over_limit_then_long_line);
	tcase_add_test(tc, long_line_continued);
	tcase_add_test(tc, record_at_limit_then_cr);
	tcase_add_test(tc, continuation_and_user_record);
	tcase_add_test(tc, comments_blank_crlf);
	tcase_add_test(tc, empty_input);
	tcase_add_test(tc, char_data);
	tcase_add_test(tc, malformed);
	tcase_add_test(tc, huge_line);
	tcase_add_test(tc, skip_and_go_on);
	tcase_add_test(tc, raw_mode);
	tcase_add_test(tc, alias_scope);
	tcase_add_test(tc, subsets);
	tcase_add_test(tc, roundtrip_canonical);
	tcase_add_test(tc, roundtrip_meaning);
	tcase_add_test(tc, zstd_roundtrip);
	tcase_add_test(tc, zstd_truncated_mark);
	tcase_add_test(tc, zstd_skippable_first);
	tcase_add_test(tc, writer_refuses);
	tcase_add_test(tc, api_misuse);
	tcase_add_test(tc, open_errors);
	tcase_add_test(tc, status_texts);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
