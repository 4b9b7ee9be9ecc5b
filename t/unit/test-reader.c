/*
 * test-reader.c - the streaming reader, the definitions it keeps and the
 * writer: fixed fields, continuation lines, comments, CRLF, every kind of
 * malformed input (with its line and column), skip-and-go-on, raw mode,
 * alias scoping and subsets (nested, cyclic, at the depth limit, against
 * a plain reference of the rules), zstd input, and the writer's round trip.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zstd.h>

#include "picl-trace.h"
#include "tmp.h"

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

/* Read the records of s up to the first error, whose problem must be
 * exactly `problem`. */
static void expect_problem(const char *s, const char *problem)
{
	struct picl_reader *r = open_str(s, 0);
	struct picl_record rec;

	while (picl_reader_next(r, &rec) == PICL_OK)
		;
	ck_assert_str_eq(picl_reader_error(r)->problem, problem);
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
	expect_error("-3 -21 0.5 6 0 1 77 3\n", PICL_ERR_ALIAS, 1, 18, "alias 77");
	expect_error("-5 1 0.5 6 0 10 0 short\n", PICL_ERR_DATA, 1, 24, "10 characters");
	/* An error on a continued line points into that line. */
	expect_error("-101 -1 0.5 6 0 2 \"%d%lf\" -11 0.1 \\\n-21 zz\n", PICL_ERR_DATA, 2, 5, NULL);
	/* Binary garbage. */
	/* Definitions: at the value or the control string's character at
	 * fault, on the physical line it stands on. */
	expect_error("-6 -1 0 -1 -1 1 \"%d%s\" 6 \"%q\"\n", PICL_ERR_DESCRIPTOR, 1, 28, "q modifier");
	expect_error("-6 -1 0 -1 -1 1 \"%d%s\" 6 \\\n \"%d %q\"\n", PICL_ERR_DESCRIPTOR, 2, 7,
		     "q modifier");
	/* A -6 record with another count: at the count, also across a
	 * continuation. */
	expect_error("-6 -1 0 -1 -1 2 \"%d%s\" 6 \"%lf\" 7 \"%d\"\n", PICL_ERR_DATA, 1, 15,
		     "exactly 1 data field, not 2");
	expect_error("-6 -1 0 -1 -1 3 2 6 \"%lf\" 7 \"%d\" 8 \"%d\"\n", PICL_ERR_DATA, 1, 15,
		     "not 3");
	expect_error("-6 -1 0 -1 -1 \\\n 02 \\\n \"%d%s\" 6 \"%lf\" 7 \"%d\"\n", PICL_ERR_DATA,
		     2, 2, "not 2");
	/* One data field is one, not "1 data fields". */
	expect_problem("-3 -21 0.5 6 0 1 2 8 1\n", "unexpected \"1\" after 1 data field");
	expect_problem("-3 -21 0.5 6 0 1\n",
		       "the record ends early: expected a data descriptor for 1 data field");
	expect_error("-203 -1 0 -1 -1 2 \"%d\" 5 1\n", PICL_ERR_DATA, 1, 24, "below -1");
	expect_error("-201 -1 0 -1 -1 2 \"%lf\" 1.5 2.5\n", PICL_ERR_DATA, 1, 25, "32-bit");
	expect_error("-202 -1 0 -1 -1 3 \"%d\" -2 1 \\\n 99999999999\n", PICL_ERR_DATA, 2, 2,
		     "32-bit");
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
	/* n may be NULL: only whether it is defined */
	ck_assert_ptr_nonnull(picl_defs_subset_members(d, PICL_SUBSET_PROCESSORS, -2, NULL));
	ck_assert_ptr_null(picl_defs_subset_members(d, PICL_SUBSET_PROCESSORS, -99, NULL));
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
	char path[512];
	struct picl_writer_options wo = { 0 };
	struct picl_error err = { 0 };
	struct picl_reader *r = open_str(s, 0);
	struct picl_writer *w;
	struct picl_record rec;
	char *buf;
	FILE *f;
	long n;
	int fd, rc;

	ck_assert_int_lt(test_tmp_path(path, sizeof(path), "picl-test-XXXXXX"), (int)sizeof(path));
	fd = mkstemp(path);
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

/* What the writer compresses carries a content checksum (as zstd(1)
 * writes by default): a byte changed that still decodes is found. */
START_TEST(zstd_output_checksummed)
{
	size_t n;
	char *z = rewrite(table20, 1, &n);
	struct picl_reader *r;
	struct picl_record rec;
	int st;

	ck_assert_uint_gt(n, 8);
	ck_assert_msg((unsigned char)z[4] & 0x04, "no Content_Checksum_flag");
	z[n - 1] ^= 0x5a;   /* in the checksum itself */
	r = picl_reader_open_memory(z, n, "z", NULL, &st, NULL);
	ck_assert_ptr_nonnull(r);
	while ((st = picl_reader_next(r, &rec)) == PICL_OK)
		;
	ck_assert_int_eq(st, PICL_ERR_COMPRESS);
	ck_assert(strstr(picl_reader_error(r)->problem, "checksum") != NULL);
	picl_reader_free(r);
	free(z);
}
END_TEST

/* Damage in the second of two frames: the message names where that frame
 * starts in the compressed file; the first frame's records are read. */
START_TEST(zstd_damage_names_frame)
{
	static const char plain[] = "-3 -901 1.5 0 0 0\n-4 -901 2.5 0 0 0\n";
	unsigned char z[512];
	char want[96];
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	struct picl_reader *r;
	struct picl_record rec;
	size_t n1, n2;
	int st, count = 0;

	ck_assert_ptr_nonnull(cc);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
	n1 = ZSTD_compress2(cc, z, sizeof(z), plain, sizeof(plain) - 1);
	ck_assert(!ZSTD_isError(n1));
	n2 = ZSTD_compress2(cc, z + n1, sizeof(z) - n1, plain, sizeof(plain) - 1);
	ck_assert(!ZSTD_isError(n2));
	ZSTD_freeCCtx(cc);
	z[n1 + n2 - 1] ^= 0x5a;   /* the second frame's checksum */
	r = picl_reader_open_memory(z, n1 + n2, "z", NULL, &st, NULL);
	ck_assert_ptr_nonnull(r);
	while ((st = picl_reader_next(r, &rec)) == PICL_OK)
		count++;
	ck_assert_int_eq(st, PICL_ERR_COMPRESS);
	ck_assert_int_eq(count, 2);
	ck_assert_uint_eq(picl_reader_error(r)->mark.line, 3);
	snprintf(want, sizeof(want), "(in the frame at byte %zu of the compressed data)", n1);
	ck_assert_msg(strstr(picl_reader_error(r)->problem, want) != NULL, "%s",
		      picl_reader_error(r)->problem);
	picl_reader_free(r);
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
 * Well-formed frames this decoder cannot read: one that names a dictionary
 * (frame header with a dictionary id), one whose window is over zstd's
 * default limit of 128 MiB (window descriptor 2^28). Each a raw block
 * "-1 0\n". The message says what is missing, not "corrupt".
 */
START_TEST(zstd_unsupported_frames)
{
	static const unsigned char dict[] = {
		0x28, 0xb5, 0x2f, 0xfd, 0x21, 0x07, 0x05, 0x29, 0x00, 0x00, '-', '1', ' ', '0', '\n'
	};
	static const unsigned char window[] = {
		0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x90, 0x29, 0x00, 0x00, '-', '1', ' ', '0', '\n'
	};
	static const struct { const unsigned char *z; size_t n; const char *says; } cases[] = {
		{ dict, sizeof(dict), "compressed with a zstd dictionary, which is not supported" },
		{ window, sizeof(window), "compressed with a zstd window over 128 MiB" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct picl_reader *r;
		const struct picl_error *e;
		struct picl_record rec;
		int st;

		r = picl_reader_open_memory(cases[i].z, cases[i].n, "z", NULL, &st, NULL);
		ck_assert_ptr_nonnull(r);
		ck_assert_int_eq(picl_reader_next(r, &rec), PICL_ERR_COMPRESS);
		ck_assert_int_eq(picl_reader_error_is_fatal(r), 1);
		e = picl_reader_error(r);
		ck_assert_msg(strstr(e->problem, cases[i].says) != NULL, "%s", e->problem);
		ck_assert_ptr_null(strstr(e->problem, "corrupt"));
		ck_assert_uint_eq(e->mark.line, 1);
		ck_assert_uint_eq(e->mark.offset, 0);
		picl_reader_free(r);
	}
}
END_TEST

/*
 * A file truncated while it is read (rewritten by another program, say):
 * the end the reader then meets is not the end of what it was reading. It
 * is an I/O error, fatal, plain or compressed, not a clean end after the
 * records read so far (the cut here falls between frames and records).
 */
START_TEST(file_shrinks)
{
	char plain[64 * 24], path[512];
	size_t n = 0, zn, zcap, half;
	char *z;
	int i, pass;

	for (i = 0; i < 64; i++)
		n += (size_t)snprintf(plain + n, sizeof(plain) - n, "-2 -12 %d.000000 0 0 0\n", i);
	half = n / 2;
	zcap = 2 * ZSTD_compressBound(n);
	z = malloc(zcap);
	zn = ZSTD_compress(z, zcap, plain, half, 1);
	ck_assert(!ZSTD_isError(zn));
	{
		size_t k = ZSTD_compress(z + zn, zcap - zn, plain + half, n - half, 1);

		ck_assert(!ZSTD_isError(k));
		zn += k;
	}
	ck_assert_int_lt(test_tmp_path(path, sizeof(path), "picl-test-shrink.XXXXXX"), (int)sizeof(path));
	for (pass = 0; pass < 2; pass++) {
		struct picl_reader_options ro = { 0 };
		struct picl_reader *r;
		struct picl_record rec;
		const struct picl_error *e;
		int fd = mkstemp(path), st;
		const char *data = pass ? z : plain;
		size_t len = pass ? zn : n;

		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
		close(fd);
		ro.buffer_size = 62;   /* the 4 bytes peeked and 62: 3 lines */
		r = picl_reader_open(path, &ro, &st, NULL);
		ck_assert_ptr_nonnull(r);
		ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
		ck_assert_int_eq(truncate(path, 0), 0);
		while ((st = picl_reader_next(r, &rec)) == PICL_OK)
			;
		e = picl_reader_error(r);
		ck_assert_int_eq(st, PICL_ERR_IO);
		ck_assert_int_eq(picl_reader_error_is_fatal(r), 1);
		ck_assert_msg(strstr(e->problem, "the file shrank while it was read") != NULL,
			      "%s", e->problem);
		ck_assert_str_eq(e->path, path);
		ck_assert_uint_gt(e->mark.line, 1);
		ck_assert_int_eq(e->sys_errno, 0);
		ck_assert_int_eq(picl_reader_next(r, &rec), PICL_ERR_IO);   /* fatal */
		picl_reader_free(r);
		unlink(path);
		snprintf(path + strlen(path) - 6, 7, "XXXXXX");
	}
	free(z);
}
END_TEST

/* A non-blocking descriptor (a standard input some parents leave so) is
 * waited on as a blocking one, not an error when no data is there yet. */
START_TEST(nonblocking_pipe)
{
	static const char text[] = "-3 -901 1.5 0 0 0\n-4 -901 2.5 0 0 0\n";
	struct picl_reader *r;
	struct picl_record rec;
	int p[2], st, count = 0;
	pid_t pid;

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(p[0]);
		usleep(200000);   /* after the reader's first read */
		if (write(p[1], text, 10) != 10)
			_exit(1);
		usleep(100000);   /* and between its lines */
		if (write(p[1], text + 10, sizeof(text) - 11) != (ssize_t)sizeof(text) - 11)
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	r = picl_reader_open_fd(p[0], "<pipe>", NULL, &st, NULL);
	ck_assert_msg(r != NULL, "open: %d", st);
	while ((st = picl_reader_next(r, &rec)) == PICL_OK)
		count++;
	ck_assert_msg(st == PICL_END, "%s", picl_reader_error(r)->problem);
	ck_assert_int_eq(count, 2);
	picl_reader_free(r);
	close(p[0]);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}
END_TEST

/* Something appended to a zstd file (after a frame, a skippable one) is
 * said to be that, with where it starts in the compressed file; the
 * records before it are read. */
START_TEST(zstd_garbage_after_frames)
{
	static const char plain[] = "-3 -901 1.5 0 0 0\n-4 -901 2.5 0 0 0\n";
	static const unsigned char skip[11] = {
		0x5f, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 'x', 'y', 'z'
	};
	unsigned char z[256];
	char want[128];
	struct picl_reader *r;
	struct picl_record rec;
	size_t zn;
	int st, count = 0;

	zn = ZSTD_compress(z, sizeof(z), plain, sizeof(plain) - 1, 3);
	ck_assert(!ZSTD_isError(zn));
	memcpy(z + zn, skip, sizeof(skip));
	memcpy(z + zn + sizeof(skip), "garbage\n", 8);
	r = picl_reader_open_memory(z, zn + sizeof(skip) + 8, "z", NULL, &st, NULL);
	ck_assert_ptr_nonnull(r);
	while ((st = picl_reader_next(r, &rec)) == PICL_OK)
		count++;
	ck_assert_int_eq(st, PICL_ERR_COMPRESS);
	ck_assert_int_eq(count, 2);
	snprintf(want, sizeof(want), "not a zstd frame at byte %zu of the compressed data",
		 zn + sizeof(skip));
	ck_assert_msg(strstr(picl_reader_error(r)->problem, want) != NULL, "%s",
		      picl_reader_error(r)->problem);
	ck_assert_uint_eq(picl_reader_error(r)->mark.line, 3);
	picl_reader_free(r);
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
	char path[512];
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

	ck_assert_int_lt(test_tmp_path(path, sizeof(path), "picl-test-reader.XXXXXX"), (int)sizeof(path));
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
	char path[512];
	struct picl_error err = { 0 };
	struct picl_writer *w;
	struct picl_record rec;
	int fd, rc;

	ck_assert_int_lt(test_tmp_path(path, sizeof(path), "picl-test-XXXXXX"), (int)sizeof(path));
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	unlink(path);
	w = picl_writer_open(path, NULL, &rc, &err);
	ck_assert_ptr_nonnull(w);
	picl_record_init(&rec);
	rec.type = -7;
	rec.nfields = 4;
	rec.alias = 0;
	rec.data = " a\nb";
	rec.data_len = 4;
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
	/* character data of another length than the data fields declared
	 * (the reader would take nfields characters) */
	{
		struct picl_descriptor *d;
		struct picl_value v;

		ck_assert_int_eq(picl_descriptor_compile("%c", 2, &d, NULL), PICL_OK);
		memset(&v, 0, sizeof(v));
		v.kind = PICL_VAL_CHARS;
		v.v.s.ptr = "abc";
		v.v.s.len = 3;
		picl_record_init(&rec);
		rec.type = -5;
		rec.event = 7;
		rec.nfields = 5;
		rec.has_descriptor = 1;
		rec.alias = 0;
		rec.desc = d;
		rec.values = &v;
		rec.nvalues = 1;
		ck_assert_int_eq(picl_writer_write(w, &rec), PICL_ERR_UNREPRESENTABLE);
		rec.nfields = 3;
		ck_assert_int_eq(picl_writer_write(w, &rec), PICL_OK);
		picl_descriptor_free(d);
	}
	/* Nothing under the real name until close; nothing at all after abort. */
	ck_assert_int_eq(access(path, F_OK), -1);
	picl_writer_abort(w);
	ck_assert_int_eq(access(path, F_OK), -1);
}
END_TEST

/* Data that end in " \\" or a carriage return are written with a blank
 * after them, so that they read back as they were (not as a continuation,
 * nor as the end of a CRLF line). */
START_TEST(writer_pads_data_ends)
{
	static const char *const data[] = { " a \\", " \\", " a\r" };
	char path[512];
	struct picl_writer *w;
	struct picl_reader *r;
	struct picl_record rec;
	struct picl_value v;
	struct picl_descriptor *d;
	int fd, rc;
	size_t k;

	ck_assert_int_lt(test_tmp_path(path, sizeof(path), "picl-test-XXXXXX"), (int)sizeof(path));
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	w = picl_writer_open_fd(fd, path, NULL, &rc, NULL);
	ck_assert_ptr_nonnull(w);
	for (k = 0; k < 3; k++) {
		picl_record_init(&rec);
		rec.type = -5;
		rec.event = 7;
		rec.nfields = strlen(data[k]) - 1;
		rec.has_descriptor = 1;
		rec.alias = 0;
		rec.data = data[k];
		rec.data_len = strlen(data[k]);
		ck_assert_int_eq(picl_writer_write(w, &rec), PICL_OK);
	}
	/* a %s value of one backslash, from the values */
	ck_assert_int_eq(picl_descriptor_compile("%s", 2, &d, NULL), PICL_OK);
	picl_record_init(&rec);
	rec.type = 1;
	rec.nfields = 1;
	rec.has_descriptor = 1;
	rec.alias = -1;
	rec.control = "%s";
	rec.control_len = 2;
	rec.desc = d;
	memset(&v, 0, sizeof(v));
	v.kind = PICL_VAL_STRING;
	v.v.s.ptr = "\\";
	v.v.s.len = 1;
	rec.values = &v;
	rec.nvalues = 1;
	ck_assert_int_eq(picl_writer_write(w, &rec), PICL_OK);
	ck_assert_int_eq(picl_writer_close(w, NULL), PICL_OK);
	picl_descriptor_free(d);
	close(fd);

	r = picl_reader_open(path, NULL, &rc, NULL);
	ck_assert_ptr_nonnull(r);
	for (k = 0; k < 3; k++) {
		size_t n = strlen(data[k]) - 1;

		ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
		ck_assert_int_eq(rec.type, -5);
		ck_assert_uint_eq(rec.nvalues, 1);
		ck_assert_uint_eq(rec.values[0].v.s.len, n);
		ck_assert(memcmp(rec.values[0].v.s.ptr, data[k] + 1, n) == 0);
	}
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
	ck_assert_int_eq(rec.type, 1);
	ck_assert_uint_eq(rec.nvalues, 1);
	ck_assert_uint_eq(rec.values[0].v.s.len, 1);
	ck_assert_int_eq(rec.values[0].v.s.ptr[0], '\\');
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_END);
	picl_reader_free(r);
	unlink(path);
}
END_TEST

/* A %* record is written from its data, so values changed since they were
 * read must be refused, not dropped; values that are still what the data
 * hold, with their text or without, are fine. */
START_TEST(writer_suppressed_values)
{
	struct picl_reader *r = open_str("2 7 1.5 0 0 2 \"%*d%d\" 5 6 7 8\n", 0);
	struct picl_writer *w;
	struct picl_record rec;
	struct picl_value v[2];
	char path[512];
	int fd, rc;

	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
	ck_assert_uint_eq(rec.nvalues, 2);
	memcpy(v, rec.values, sizeof(v));
	rec.values = v;
	ck_assert_int_lt(test_tmp_path(path, sizeof(path), "picl-test-XXXXXX"), (int)sizeof(path));
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	w = picl_writer_open_fd(fd, path, NULL, &rc, NULL);
	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(picl_writer_write(w, &rec), PICL_OK);
	v[1].text = NULL;                      /* 8, as a number */
	ck_assert_int_eq(picl_writer_write(w, &rec), PICL_OK);
	v[1].v.i = 80;
	ck_assert_int_eq(picl_writer_write(w, &rec), PICL_ERR_UNREPRESENTABLE);
	ck_assert_ptr_nonnull(strstr(picl_writer_error(w)->problem, "value 2 is not what"));
	v[1].v.i = 8;
	rec.nvalues = 1;                       /* one value short */
	ck_assert_int_eq(picl_writer_write(w, &rec), PICL_ERR_UNREPRESENTABLE);
	ck_assert_int_eq(picl_writer_close(w, NULL), PICL_OK);
	close(fd);
	picl_reader_free(r);

	r = picl_reader_open(path, NULL, &rc, NULL);
	ck_assert_ptr_nonnull(r);
	for (rc = 0; rc < 2; rc++) {
		ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
		ck_assert_uint_eq(rec.nvalues, 2);
		ck_assert_int_eq(rec.values[0].v.i, 6);
		ck_assert_int_eq(rec.values[1].v.i, 8);
	}
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_END);
	picl_reader_free(r);
	unlink(path);
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

/* Nested subsets worked out by hand: a chain -2 -> -3 -> ... -> -12 whose
 * subset -2-k holds 100+k, so -2 reaches -10 (holding 108 and -11) at the
 * 8th level and no further; a short cut from -2 to -11 makes 109 one level
 * away; a cycle; predefined event subsets near the depth limit. */
START_TEST(subsets_nested)
{
	struct picl_defs *d = picl_defs_new();
	int32_t m[3];
	int32_t k;

	for (k = 0; k <= 10; k++) {
		m[0] = 100 + k;
		m[1] = -3 - k;
		ck_assert_int_eq(picl_defs_define_subset(d, PICL_SUBSET_PROCESSORS, -2 - k, m, 2),
				 PICL_OK);
	}
	for (k = 0; k <= 8; k++)
		ck_assert_int_eq(picl_defs_matches(d, PICL_SUBSET_PROCESSORS, -2, 100 + k), 1);
	ck_assert_int_eq(picl_defs_matches(d, PICL_SUBSET_PROCESSORS, -2, 109), 0);
	ck_assert_int_eq(picl_defs_matches(d, PICL_SUBSET_PROCESSORS, -2, 110), 0);
	ck_assert_int_eq(picl_defs_matches(d, PICL_SUBSET_PROCESSORS, -2, -11), 1); /* in -10 */
	ck_assert_int_eq(picl_defs_matches(d, PICL_SUBSET_PROCESSORS, -2, -12), 0);
	ck_assert_int_eq(picl_defs_matches(d, PICL_SUBSET_PROCESSORS, -3, 109), 1);
	ck_assert_int_eq(picl_defs_matches(d, PICL_SUBSET_PROCESSORS, -12, 110), 1);
	ck_assert_int_eq(picl_defs_matches(d, PICL_SUBSET_EVENTS, -2, 100), 0); /* other kind */
	/* A short cut: -11 one level below -2 (and reached again at the 9th). */
	m[0] = 100;
	m[1] = -3;
	m[2] = -11;
	ck_assert_int_eq(picl_defs_define_subset(d, PICL_SUBSET_PROCESSORS, -2, m, 3), PICL_OK);
	ck_assert_int_eq(picl_defs_matches(d, PICL_SUBSET_PROCESSORS, -2, 109), 1);
	ck_assert_int_eq(picl_defs_matches(d, PICL_SUBSET_PROCESSORS, -2, -12), 1);
	ck_assert_int_eq(picl_defs_matches(d, PICL_SUBSET_PROCESSORS, -2, 110), 1); /* in -12 */
	/* A cycle -20 -> -21 -> -20, each holding itself too. */
	m[0] = -21; m[1] = -20; m[2] = 1;
	ck_assert_int_eq(picl_defs_define_subset(d, PICL_SUBSET_PROCESSES, -20, m, 3), PICL_OK);
	m[0] = -20; m[1] = 2; m[2] = -21;
	ck_assert_int_eq(picl_defs_define_subset(d, PICL_SUBSET_PROCESSES, -21, m, 3), PICL_OK);
	ck_assert_int_eq(picl_defs_matches(d, PICL_SUBSET_PROCESSES, -20, 2), 1);
	ck_assert_int_eq(picl_defs_matches(d, PICL_SUBSET_PROCESSES, -21, 1), 1);
	ck_assert_int_eq(picl_defs_matches(d, PICL_SUBSET_PROCESSES, -21, 3), 0);
	ck_assert_int_eq(picl_defs_matches(d, PICL_SUBSET_PROCESSES, -20, -21), 1);
	/* Events: -2 ... -10 a chain, -10 naming the predefined -1012 (events
	 * -21 .. -50), which is then a 9th level from -2 but an 8th from -3. */
	for (k = 0; k <= 8; k++) {
		m[0] = k < 8 ? -3 - k : -1012;
		ck_assert_int_eq(picl_defs_define_subset(d, PICL_SUBSET_EVENTS, -2 - k, m, 1),
				 PICL_OK);
	}
	ck_assert_int_eq(picl_defs_matches(d, PICL_SUBSET_EVENTS, -2, -21), 0);
	ck_assert_int_eq(picl_defs_matches(d, PICL_SUBSET_EVENTS, -2, -1012), 1);
	ck_assert_int_eq(picl_defs_matches(d, PICL_SUBSET_EVENTS, -3, -21), 1);
	ck_assert_int_eq(picl_defs_matches(d, PICL_SUBSET_EVENTS, -10, -50), 1);
	ck_assert_int_eq(picl_defs_matches(d, PICL_SUBSET_EVENTS, -10, -51), 0);
	/* A defined subset hides the predefined one of its id. */
	m[0] = 7;
	ck_assert_int_eq(picl_defs_define_subset(d, PICL_SUBSET_EVENTS, -1012, m, 1), PICL_OK);
	ck_assert_int_eq(picl_defs_matches(d, PICL_SUBSET_EVENTS, -3, -21), 0);
	ck_assert_int_eq(picl_defs_matches(d, PICL_SUBSET_EVENTS, -3, 7), 1);
	picl_defs_free(d);
}
END_TEST

/* Process subsets are per processor (Table 2: "on the specified
 * processor"): the same id defined on processors 0 and 1 with other
 * members, and for every processor (-1), resolves through the record's
 * processor, nested members too; an alias scoped to the subset follows. */
START_TEST(process_subsets_per_processor)
{
	struct picl_defs *d = picl_defs_new();
	int32_t m[2];
	size_t n = 9;

	ck_assert_ptr_nonnull(d);
	m[0] = 0;
	ck_assert_int_eq(picl_defs_define_subset_on(d, PICL_SUBSET_PROCESSES, 0, -5, m, 1),
			 PICL_OK);
	m[0] = 1;
	ck_assert_int_eq(picl_defs_define_subset_on(d, PICL_SUBSET_PROCESSES, 1, -5, m, 1),
			 PICL_OK);
	ck_assert_int_eq(picl_defs_matches_on(d, PICL_SUBSET_PROCESSES, 0, -5, 0), 1);
	ck_assert_int_eq(picl_defs_matches_on(d, PICL_SUBSET_PROCESSES, 0, -5, 1), 0);
	ck_assert_int_eq(picl_defs_matches_on(d, PICL_SUBSET_PROCESSES, 1, -5, 1), 1);
	ck_assert_int_eq(picl_defs_matches_on(d, PICL_SUBSET_PROCESSES, 1, -5, 0), 0);
	/* not defined for processor 2 nor for all: nowhere there */
	ck_assert_int_eq(picl_defs_subset_exists_on(d, PICL_SUBSET_PROCESSES, 2, -5), 0);
	ck_assert_int_eq(picl_defs_matches_on(d, PICL_SUBSET_PROCESSES, 2, -5, 0), 0);
	ck_assert_int_eq(picl_defs_subset_exists(d, PICL_SUBSET_PROCESSES, -5), 1);
	ck_assert_ptr_null(picl_defs_subset_members(d, PICL_SUBSET_PROCESSES, -5, NULL));
	/* the definition for every processor fills in, the own one still wins */
	m[0] = 2;
	ck_assert_int_eq(picl_defs_define_subset_on(d, PICL_SUBSET_PROCESSES, -1, -5, m, 1),
			 PICL_OK);
	ck_assert_int_eq(picl_defs_matches_on(d, PICL_SUBSET_PROCESSES, 2, -5, 2), 1);
	ck_assert_int_eq(picl_defs_matches_on(d, PICL_SUBSET_PROCESSES, 0, -5, 2), 0);
	ck_assert_int_eq(picl_defs_matches(d, PICL_SUBSET_PROCESSES, -5, 2), 1);
	ck_assert_int_eq(picl_defs_subset_members_on(d, PICL_SUBSET_PROCESSES, 1, -5, &n)[0], 1);
	ck_assert_uint_eq(n, 1);
	/* a nested member is resolved on the same processor */
	m[0] = -5;
	ck_assert_int_eq(picl_defs_define_subset_on(d, PICL_SUBSET_PROCESSES, -1, -6, m, 1),
			 PICL_OK);
	ck_assert_int_eq(picl_defs_matches_on(d, PICL_SUBSET_PROCESSES, 0, -6, 0), 1);
	ck_assert_int_eq(picl_defs_matches_on(d, PICL_SUBSET_PROCESSES, 1, -6, 0), 0);
	ck_assert_int_eq(picl_defs_matches_on(d, PICL_SUBSET_PROCESSES, 1, -6, 1), 1);
	/* processor and event subsets ignore the processor */
	m[0] = 7;
	ck_assert_int_eq(picl_defs_define_subset_on(d, PICL_SUBSET_PROCESSORS, 3, -5, m, 1),
			 PICL_OK);
	ck_assert_int_eq(picl_defs_matches_on(d, PICL_SUBSET_PROCESSORS, 4, -5, 7), 1);
	ck_assert_int_eq(picl_defs_matches(d, PICL_SUBSET_PROCESSORS, -5, 7), 1);
	/* a processor subset as the scope is picl_defs_apply's to expand */
	ck_assert_int_eq(picl_defs_define_subset_on(d, PICL_SUBSET_PROCESSES, -5, -7, m, 1),
			 PICL_ERR_USAGE);
	/* an alias for process subset -5 on every processor */
	ck_assert_int_eq(picl_defs_define_alias(d, 9, -1, -1, -5, "%d", 2, NULL), PICL_OK);
	ck_assert_ptr_nonnull(picl_defs_lookup_alias(d, 9, 7, 0, 0));
	ck_assert_ptr_nonnull(picl_defs_lookup_alias(d, 9, 7, 1, 1));
	ck_assert_ptr_null(picl_defs_lookup_alias(d, 9, 7, 1, 0));
	ck_assert_ptr_nonnull(picl_defs_lookup_alias(d, 9, 7, 5, 2));
	picl_defs_free(d);
}
END_TEST

/* An alias looked up by scope: exact values found by their scope, wildcards,
 * subsets, the latest among equals, redefinition of the same scope. */
START_TEST(alias_scope_hash)
{
	struct picl_defs *d = picl_defs_new();
	const struct picl_descriptor *da, *db, *dc, *dd;
	int32_t m[2] = { 4, 5 };
	int32_t e;

	ck_assert_int_eq(picl_defs_control(d, "%d", 2, &da, NULL), PICL_OK);
	ck_assert_int_eq(picl_defs_control(d, "%lf", 3, &db, NULL), PICL_OK);
	ck_assert_int_eq(picl_defs_control(d, "%s", 2, &dc, NULL), PICL_OK);
	ck_assert_int_eq(picl_defs_control(d, "%d%d", 4, &dd, NULL), PICL_OK);
	for (e = 0; e < 1000; e++)
		ck_assert_int_eq(picl_defs_define_alias(d, 9, e, -1, -1, e % 2 ? "%d" : "%lf",
							e % 2 ? 2 : 3, NULL), PICL_OK);
	ck_assert_ptr_eq(picl_defs_lookup_alias(d, 9, 7, 3, 0), da);
	ck_assert_ptr_eq(picl_defs_lookup_alias(d, 9, 8, 3, 0), db);
	ck_assert_ptr_null(picl_defs_lookup_alias(d, 9, 1000, 3, 0));
	/* processor subset -2 = {4, 5}: (e, -2, -1) beats (e, -1, -1) */
	ck_assert_int_eq(picl_defs_define_subset(d, PICL_SUBSET_PROCESSORS, -2, m, 2), PICL_OK);
	ck_assert_int_eq(picl_defs_define_alias(d, 9, 7, -2, -1, "%s", 2, NULL), PICL_OK);
	ck_assert_ptr_eq(picl_defs_lookup_alias(d, 9, 7, 4, 0), dc);
	ck_assert_ptr_eq(picl_defs_lookup_alias(d, 9, 7, 3, 0), da);
	/* (-1, 4, -1) ranks as (7, -1, -1): the latest wins, whichever */
	ck_assert_int_eq(picl_defs_define_alias(d, 9, -1, 3, -1, "%d%d", 4, NULL), PICL_OK);
	ck_assert_ptr_eq(picl_defs_lookup_alias(d, 9, 7, 3, 0), dd);
	ck_assert_int_eq(picl_defs_define_alias(d, 9, 7, -1, -1, "%s", 2, NULL), PICL_OK);
	ck_assert_ptr_eq(picl_defs_lookup_alias(d, 9, 7, 3, 0), dc);
	ck_assert_ptr_eq(picl_defs_lookup_alias(d, 9, 5, 3, 0), dd);
	/* exact beats subset: (7, 4, -1) over (7, -2, -1) */
	ck_assert_int_eq(picl_defs_define_alias(d, 9, 7, 4, -1, "%lf", 3, NULL), PICL_OK);
	ck_assert_ptr_eq(picl_defs_lookup_alias(d, 9, 7, 4, 0), db);
	ck_assert_ptr_eq(picl_defs_lookup_alias(d, 9, 7, 5, 0), dc);
	/* a subset id as a record's own field matches itself exactly */
	ck_assert_ptr_eq(picl_defs_lookup_alias(d, 9, 7, -2, 0), dc);
	ck_assert_int_eq(picl_defs_define_alias(d, 9, -1, -1, -1, "%d", 2, NULL), PICL_OK);
	ck_assert_ptr_eq(picl_defs_lookup_alias(d, 9, -1, -1, -1), da);
	ck_assert_ptr_eq(picl_defs_lookup_alias(d, 9, 2000, 9, 9), da);
	picl_defs_free(d);
}
END_TEST

/*
 * The rules as the definitions first had them, kept here to compare with:
 * membership follows every path through nested subsets up to 8 levels
 * (exponential, but these cases are small), a look-up ranks every definition.
 */
#define REF_IDS 8                /* subset ids -2 .. -9 */
#define REF_DEFS 64

struct ref {
	int32_t members[3][REF_IDS][6];
	size_t n[3][REF_IDS];
	int defined[3][REF_IDS];
	struct { int64_t alias; int32_t e, p, q; int ctrl; uint64_t seq; } defs[REF_DEFS];
	size_t ndefs;
	uint64_t seq;
	struct picl_defs *empty;       /* for the predefined event subsets */
};

static int ref_matches(const struct ref *r, int kind, int32_t pattern, int32_t value, int depth)
{
	size_t i;
	int x;

	if (pattern == value || pattern == -1)
		return 1;
	if (pattern >= -1 || depth > 8)
		return 0;
	x = -2 - pattern;
	if (x >= REF_IDS || !r->defined[kind][x])
		return picl_defs_matches(r->empty, (enum picl_subset_kind)kind, pattern, value);
	for (i = 0; i < r->n[kind][x]; i++) {
		int32_t m = r->members[kind][x][i];

		if (m == value)
			return 1;
		if (m < -1 && m != pattern && ref_matches(r, kind, m, value, depth + 1))
			return 1;
	}
	return 0;
}

static int ref_rank(const struct ref *r, int kind, int32_t pattern, int32_t value)
{
	if (pattern == value)
		return 2;
	if (pattern == -1)
		return 0;
	if (pattern < -1 && ref_matches(r, kind, pattern, value, 0))
		return 1;
	return -1;
}

static const char *const ref_ctrl[] = { "%d", "%lf", "%s", "%d%d", "%c" };

static const char *ref_lookup(const struct ref *r, int64_t alias, int32_t e, int32_t p, int32_t q)
{
	const char *best = NULL;
	int best_rank = -1;
	uint64_t best_seq = 0;
	size_t i;

	for (i = 0; i < r->ndefs; i++) {
		int re, rp, rq;

		if (r->defs[i].alias != alias)
			continue;
		re = ref_rank(r, PICL_SUBSET_EVENTS, r->defs[i].e, e);
		rp = ref_rank(r, PICL_SUBSET_PROCESSORS, r->defs[i].p, p);
		rq = ref_rank(r, PICL_SUBSET_PROCESSES, r->defs[i].q, q);
		if (re < 0 || rp < 0 || rq < 0)
			continue;
		if (re + rp + rq > best_rank ||
		    (re + rp + rq == best_rank && r->defs[i].seq > best_seq)) {
			best = ref_ctrl[r->defs[i].ctrl];
			best_rank = re + rp + rq;
			best_seq = r->defs[i].seq;
		}
	}
	return best ? best : picl_predefined_alias(alias);
}

static uint32_t lcg(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

/* Random small definitions, nested and cyclic subsets, redefinitions, checked
 * against the rules above: every membership and every look-up agrees. */
START_TEST(defs_as_reference)
{
	static const int32_t vals[] = { 0, 1, 2, 3, -1, -2, -3, -4, -5, -6, -7, -8, -9,
					-21, -52, -1012, -1014 };
	static const int32_t scope[] = { -1, -1, 0, 1, 2, -2, -3, -4, -9, -52 };
	const size_t nv = sizeof(vals) / sizeof(vals[0]), ns = sizeof(scope) / sizeof(scope[0]);
	uint32_t seed = 12345;
	int round;

	for (round = 0; round < 300; round++) {
		struct picl_defs *d = picl_defs_new();
		struct ref *r = calloc(1, sizeof(*r));
		int step;

		ck_assert_ptr_nonnull(r);
		r->empty = picl_defs_new();
		for (step = 0; step < 40; step++) {
			if (lcg(&seed) % 3) {   /* a subset, maybe a redefinition */
				int kind = (int)(lcg(&seed) % 3), x = (int)(lcg(&seed) % REF_IDS);
				size_t n = lcg(&seed) % 6, i;
				int32_t *mem = r->members[kind][x];

				for (i = 0; i < n; i++)
					mem[i] = lcg(&seed) % 2 ? -2 - (int32_t)(lcg(&seed) % REF_IDS)
							      : vals[lcg(&seed) % nv];
				r->n[kind][x] = n;
				r->defined[kind][x] = 1;
				ck_assert_int_eq(picl_defs_define_subset(d, (enum picl_subset_kind)kind,
									 -2 - x, mem, n), PICL_OK);
			} else if (r->ndefs < REF_DEFS) {   /* an alias, maybe for a scope again */
				int64_t alias = 5 + lcg(&seed) % 3;
				int32_t e = scope[lcg(&seed) % ns], p = scope[lcg(&seed) % ns];
				int32_t q = scope[lcg(&seed) % ns];
				int c = (int)(lcg(&seed) % 5);
				size_t i;

				for (i = 0; i < r->ndefs; i++)
					if (r->defs[i].alias == alias && r->defs[i].e == e &&
					    r->defs[i].p == p && r->defs[i].q == q)
						break;
				if (i == r->ndefs)
					r->ndefs++;
				r->defs[i].alias = alias;
				r->defs[i].e = e;
				r->defs[i].p = p;
				r->defs[i].q = q;
				r->defs[i].ctrl = c;
				r->defs[i].seq = ++r->seq;
				ck_assert_int_eq(picl_defs_define_alias(d, alias, e, p, q, ref_ctrl[c],
									strlen(ref_ctrl[c]), NULL),
						 PICL_OK);
			}
			if (step % 8 == 7) {
				size_t a, b, c;
				int kind;
				int64_t alias;

				for (kind = 0; kind < 3; kind++)
					for (a = 0; a < nv; a++)
						for (b = 0; b < nv; b++)
							ck_assert_int_eq(
								picl_defs_matches(d, (enum picl_subset_kind)kind,
										  vals[a], vals[b]),
								ref_matches(r, kind, vals[a], vals[b], 0));
				for (alias = 5; alias < 8; alias++)
					for (a = 0; a < nv; a += 2)
						for (b = 0; b < nv; b += 3)
							for (c = 0; c < nv; c += 4) {
								const char *want = ref_lookup(r, alias, vals[a],
											      vals[b], vals[c]);
								const struct picl_descriptor *w = NULL;

								if (want)
									ck_assert_int_eq(picl_defs_control(d, want,
											strlen(want), &w, NULL), PICL_OK);
								ck_assert_ptr_eq(picl_defs_lookup_alias(d, alias,
										vals[a], vals[b], vals[c]), w);
							}
			}
		}
		picl_defs_free(r->empty);
		free(r);
		picl_defs_free(d);
	}
}
END_TEST

/* Subsets hold 16M members in all: past that a definition changes nothing. */
START_TEST(subset_member_cap)
{
	struct picl_defs *d = picl_defs_new();
	const size_t quarter = 4u * 1024 * 1024;
	int32_t *m = calloc(quarter + 1, sizeof(*m));
	size_t n;
	int32_t k;

	ck_assert_ptr_nonnull(m);
	for (k = 0; k < 4; k++)
		ck_assert_int_eq(picl_defs_define_subset(d, PICL_SUBSET_EVENTS, -2 - k, m, quarter),
				 PICL_OK);
	ck_assert_int_eq(picl_defs_define_subset(d, PICL_SUBSET_PROCESSORS, -2, m, 1),
			 PICL_ERR_DATA);
	ck_assert_int_eq(picl_defs_subset_exists(d, PICL_SUBSET_PROCESSORS, -2), 0);
	/* a redefinition counts only what it adds */
	ck_assert_int_eq(picl_defs_define_subset(d, PICL_SUBSET_EVENTS, -2, m, quarter + 1),
			 PICL_ERR_DATA);
	ck_assert_ptr_nonnull(picl_defs_subset_members(d, PICL_SUBSET_EVENTS, -2, &n));
	ck_assert_uint_eq(n, quarter);
	ck_assert_int_eq(picl_defs_define_subset(d, PICL_SUBSET_EVENTS, -2, m, 1), PICL_OK);
	ck_assert_int_eq(picl_defs_define_subset(d, PICL_SUBSET_PROCESSORS, -2, m, quarter - 1),
			 PICL_OK);
	ck_assert_int_eq(picl_defs_define_subset(d, PICL_SUBSET_PROCESSORS, -3, m, 1),
			 PICL_ERR_DATA);
	free(m);
	picl_defs_free(d);
}
END_TEST

/* Past 65536 alias definitions a new one is refused and defines nothing,
 * not even an alias for every scope. */
START_TEST(alias_cap_changes_nothing)
{
	struct picl_defs *d = picl_defs_new();
	const struct picl_descriptor *da;
	int32_t e;

	ck_assert_int_eq(picl_defs_control(d, "%d", 2, &da, NULL), PICL_OK);
	for (e = 0; e < 65536; e++)
		ck_assert_int_eq(picl_defs_define_alias(d, 9, e, -1, -1, "%d", 2, NULL), PICL_OK);
	ck_assert_int_eq(picl_defs_define_alias(d, 10, -1, -1, -1, "%d", 2, NULL), PICL_ERR_DATA);
	ck_assert_ptr_null(picl_defs_lookup_alias(d, 10, 0, 0, 0));
	ck_assert_int_eq(picl_defs_define_alias(d, 9, -1, -1, -1, "%d", 2, NULL), PICL_ERR_DATA);
	ck_assert_ptr_null(picl_defs_lookup_alias(d, 9, 70000, 0, 0));
	ck_assert_ptr_eq(picl_defs_lookup_alias(d, 9, 65535, 0, 0), da);
	/* the same scope again replaces, past the cap too */
	ck_assert_int_eq(picl_defs_define_alias(d, 9, 7, -1, -1, "%lf", 3, NULL), PICL_OK);
	ck_assert_ptr_ne(picl_defs_lookup_alias(d, 9, 7, 0, 0), da);
	picl_defs_free(d);
}
END_TEST

/* Alias definitions are taken whatever number of inline control strings
 * the cache met before (the parallel reader compiles those elsewhere, so
 * the serial and parallel readers would otherwise disagree); their own
 * distinct strings are capped at 65536, at the same definition either way. */
START_TEST(alias_strings_apart_from_cache)
{
	char ctl[32];
	int pass, k;

	for (pass = 0; pass < 2; pass++) {
		struct picl_defs *d = picl_defs_new();
		const struct picl_descriptor *da;

		if (pass == 1)
			for (k = 1; k <= 5000; k++) {
				int n = snprintf(ctl, sizeof(ctl), "%%%dd", k);

				ck_assert_int_eq(picl_defs_control(d, ctl, (size_t)n, &da, NULL),
						 PICL_OK);
			}
		ck_assert_int_eq(picl_defs_define_alias(d, 7, -1, -1, -1, "%x", 2, NULL), PICL_OK);
		da = picl_defs_lookup_alias(d, 7, 0, 0, 0);
		ck_assert_ptr_nonnull(da);
		ck_assert_str_eq(picl_descriptor_control(da), "%x");
		/* still there after more uncached look-ups */
		ck_assert_int_eq(picl_defs_control(d, "%9999d", 6, &da, NULL), PICL_OK);
		ck_assert_str_eq(picl_descriptor_control(picl_defs_lookup_alias(d, 7, 0, 0, 0)),
				 "%x");
		for (k = 2; k <= 65536; k++) {
			int n = snprintf(ctl, sizeof(ctl), "%%%dld", k);

			ck_assert_int_eq(picl_defs_define_alias(d, 7, -1, -1, -1, ctl, (size_t)n,
								NULL), PICL_OK);
		}
		ck_assert_int_eq(picl_defs_define_alias(d, 7, -1, -1, -1, "%1u", 3, NULL),
				 PICL_ERR_DATA);
		/* a string already named by a definition is still fine */
		ck_assert_int_eq(picl_defs_define_alias(d, 8, -1, -1, -1, "%x", 2, NULL), PICL_OK);
		picl_defs_free(d);
	}
}
END_TEST

/* The predefined aliases stay usable once the control-string cache is
 * full: looked up for the first time then, they were compiled into the
 * one scratch slot, each freeing the one before (and the next inline
 * control string freeing the last), so the descriptors the look-up
 * handed out were freed memory. */
START_TEST(predefined_after_full_cache)
{
	static const char *const want[] = { "%c", "%s", "%d", "%ld", "%f", "%lf" };
	struct picl_defs *d = picl_defs_new();
	const struct picl_descriptor *da;
	char ctl[32];
	int k, pass;

	for (k = 0; k < 5000; k++) {
		int n = snprintf(ctl, sizeof(ctl), "%%d x%d", k);

		ck_assert_int_eq(picl_defs_control(d, ctl, (size_t)n, &da, NULL), PICL_OK);
	}
	/* alias 3 defined for event 7 only: elsewhere the predefined "%ld" */
	ck_assert_int_eq(picl_defs_define_alias(d, 3, 7, -1, -1, "%x", 2, NULL), PICL_OK);
	for (pass = 0; pass < 2; pass++) {
		for (k = 0; k < 6; k++) {
			struct picl_value v[2];
			size_t nv = 0, cap = 2, used = 0;

			da = picl_defs_lookup_alias(d, k, 1, 1, 1);
			ck_assert_ptr_nonnull(da);
			ck_assert_str_eq(picl_descriptor_control(da), want[k]);
			ck_assert_int_eq(picl_descriptor_decode(da, 1, " 7", 2, v, &nv, &cap,
								&used, NULL), PICL_OK);
			ck_assert_uint_eq(nv, 1);
		}
		/* more uncached strings, each replacing the scratch slot */
		ck_assert_int_eq(picl_defs_control(d, "%d zz", 5, &da, NULL), PICL_OK);
		ck_assert_int_eq(picl_defs_control(d, "%d zy", 5, &da, NULL), PICL_OK);
	}
	picl_defs_free(d);
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
	tcase_add_test(tc, alias_strings_apart_from_cache);
	tcase_add_test(tc, predefined_after_full_cache);
	tcase_add_test(tc, writer_pads_data_ends);
	tcase_add_test(tc, writer_suppressed_values);
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
	tcase_add_test(tc, subsets_nested);
	tcase_add_test(tc, process_subsets_per_processor);
	tcase_add_test(tc, alias_scope_hash);
	tcase_add_test(tc, defs_as_reference);
	tcase_add_test(tc, subset_member_cap);
	tcase_add_test(tc, alias_cap_changes_nothing);
	tcase_add_test(tc, roundtrip_canonical);
	tcase_add_test(tc, roundtrip_meaning);
	tcase_add_test(tc, zstd_roundtrip);
	tcase_add_test(tc, zstd_output_checksummed);
	tcase_add_test(tc, zstd_damage_names_frame);
	tcase_add_test(tc, zstd_truncated_mark);
	tcase_add_test(tc, zstd_skippable_first);
	tcase_add_test(tc, zstd_unsupported_frames);
	tcase_add_test(tc, file_shrinks);
	tcase_add_test(tc, nonblocking_pipe);
	tcase_add_test(tc, zstd_garbage_after_frames);
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
