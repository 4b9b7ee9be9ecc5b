/*
 * test-parallel.c - PICL_READ_PARALLEL gives exactly what the serial reader
 * gives: the same records, values, marks, errors and offsets, call by call.
 *
 * Traces are generated from a seed with everything the parsing threads must
 * hand back to the caller or get right across chunk boundaries: definitions
 * in the middle of the trace (aliases redefined, scoped aliases, subsets),
 * inline control strings, character data, continued records, comments,
 * blank and CRLF lines, malformed records, lines longer than max_record
 * and a last line without a newline. Each is read serially and in parallel
 * with small chunk sizes (so that records straddle many chunks and the
 * reader hands over to the serial code) and every flag combination.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity */
#endif
#include <check.h>
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "picl-trace.h"
#include "tmp.h"

static uint64_t rng;

static unsigned next_rand(unsigned n)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)((rng >> 33) % n);
}

static void put_record(FILE *f, int i)
{
	int p = (int)next_rand(4), k = (int)next_rand(100);
	const char *eol = next_rand(20) == 0 ? "\r\n" : "\n";

	if (k < 30)
		fprintf(f, "-3 %d %d.%06d %d 0 2 2 %u %u%s", -21 - (int)next_rand(3), i / 7, i % 1000000,
			p, next_rand(5000), next_rand(40), eol);
	else if (k < 40)
		fprintf(f, "-4 -52 %d.%03d %d 0 3 2 %u %u -%u%s", i / 9, i % 1000, p,
			next_rand(99999), next_rand(9), next_rand(3), eol);
	else if (k < 48)
		fprintf(f, "0 %u %d.%d %d 0 1 5 0.%06u%s", next_rand(9), i, i % 10, p,
			next_rand(1000000), eol);
	else if (k < 54)
		fprintf(f, "1 19 %d %d 0 1 6 %u 2.5e-3%s", i, p, next_rand(9), eol);
	else if (k < 58)
		fprintf(f, "1 %u %d %d 0 1 7 %u%s", next_rand(9), i, p, next_rand(999), eol);
	else if (k < 62)
		fprintf(f, "-5 3 %d %d 0 11 0 local solve%s", i, p, eol);
	else if (k < 66)
		fprintf(f, "2 4 %d %d 0 2 \"%%d:%%x\" 12:ff 7:a0%s", i, p, eol);
	else if (k < 68) {
		/* redefine an alias for everyone, or for one scope */
		unsigned a = 5 + next_rand(3);

		if (next_rand(2))
			fprintf(f, "-6 -1 %d -1 -1 1 \"%%d%%s\" %u \"%s\"%s", i, a,
				next_rand(2) ? "%d%lf" : "%d", eol);
		else
			fprintf(f, "-6 %u %d %d -1 1 \"%%d%%s\" %u \"%%lf\"%s", next_rand(9), i, p, a,
				eol);
	} else if (k < 69) {
		fprintf(f, "-201 -1 %d -1 -1 3 2 -%u 1 2%s", i, 2 + next_rand(3), eol);
	} else if (k < 72) {
		fprintf(f, "-102 -1 %d %d 0 3 \"%%d%%d\" -11 1 \\%s-12 1 \\\n-21 4%s", i, p, eol, eol);
	} else if (k < 75) {
		fputs(next_rand(2) ? "# a comment \\\n" : "   \n", f);
	} else if (k < 80) {
		static const char *const bad[] = {
			"-3 x 1 0 0 0", "-3 -21 1.5.2 0 0 0", "0 1 2 3 4 2 2 7",
			"0 1 2 3 4 1 9 5", "0 1 2 3 4 1 \"%q\" 5", "0 1 2 3 4 1 2 abc",
			"0 1 2 3 4 1 5 1e999", "-6 -1 0 -1 -1 1 \"%d%s\" 9", "\"",
			"0 1 2 3 4 99999999999999999999 2 1", "0  1 2 3 4 0", "\t0 1 2 3 4 0 ",
		};
		fprintf(f, "%s%s", bad[next_rand(sizeof(bad) / sizeof(bad[0]))], eol);
	} else if (k < 81) {
		unsigned n = 150 + next_rand(300), j;

		fprintf(f, "-7 -1 %d %d 0 %u 0 ", i, p, n);
		for (j = 0; j < n; j++)
			fputc('a' + (int)(j % 26), f);
		fputs(eol, f);
	} else if (k < 83) {
		/* continued records that break max_record (200 in some runs):
		 * by one long line (the first one too), or by many short ones
		 * joined */
		unsigned lines = 1 + next_rand(5), j, w = 60 + next_rand(200);
		int first = next_rand(3) == 0;

		fprintf(f, "-102 -1 %d %d 0 %u \"%%d%%d\"", i, p, lines * 2);
		for (j = 0; j < lines; j++) {
			unsigned c;

			if (j > 0 || !first)
				fputs(" \\\n", f);
			else
				fputc(' ', f);
			for (c = 0; c + 8 < w; c += 8)
				fputs("-11 1   ", f);
			fputs("-12 1", f);
		}
		if (first && lines == 1)   /* (still continued) */
			fputs(" \\\n-21 4", f);
		fputs(eol, f);
	} else if (k < 86) {
		/* at the edges of the parsing threads' one-pass parser
		 * (parse_quick): what it must take, what it must leave */
		static const char *const edge[] = {
			"-3 -21 1.5 0 0 2 2 123456789012345678 -123456789012345678",
			"-3 -21 1.5 0 0 2 2 1234567890123456789 1", "-3 -21 1.5 0 0 2 2 +7 8",
			"-3 -21 1.5 0 0 2 2 1 -9999999999999999999",
			"-3 -21 1.5 0 0 2 2 - 8", "-3 -21 1.5 0 0 2 2 -0 8",
			"-3 -21 1.5 0 0 2 2 7 8 ", "-3 -21 1.5 0 0 2 2 7\t8",
			"-3 -21 1.5 0 0 2 2 7", "-3 -21 1.5 0 0 2 2 7 8 9",
			"-3 -21 1.5 0 0 2 2 7 8x", "-3 -21 1.5 0 0 1 7 5",
			"-3 -21 1.5 0 0 16 7 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16",
			"-3 -21 1.5 0 0 17 7 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17",
			"-3 -21 1.5 2147483647 -2147483648 2 2 1 2",
			"-3 -21 1.5 2147483648 0 2 2 1 2", "-3 -21 1234567890.12345678 0 0 2 2 1 2",
			"-3 -21 1.5 0 0 2 63 1 2", "-3 -21 1.5 0 0 2 64 1 2",
			"-3 -21 1.5 0 0 2 02 1 2", "-3 -21 1.5 0 0 2 2 1 2\\",
			"-3 -21 1.5 0 0 0 ", "-3 -21 -.5 0 0 0", "-3 -21 1.5 0 0 1 4 7",
			"-3 -21 1.5 0 0 2 2 7 \\\n 8", "-3 -21 1.5 0 0 2 2 \\\n7 8",
			/* ... and of the AVX-512 one (parse_vec, linevec.h) */
			"-3 -21 1.5 0 0 1 5 0.401822", "-3 -21 1.5 0 0 2 5 -0.0 7",
			"-3 -21 1.5 0 0 1 5 90071992.54740992", "-3 -21 1.5 0 0 1 5 90071992.54740993",
			"-3 -21 1.5 0 0 1 6 3 2.25", "-3 -21 1.5 0 0 1 6 3.5 2",
			"-3 -21 1.5 0 0 2 6 3 2.25 -4 -0.5", "-3 -21 1.5 0 0 1 6 3 2.25 1",
			"-3 -21 1.5 0 0 2 2 7.5 8", "-3 -21 1.5 0 0 2 2.0 7 8", "-3 -21 15 0 0 0",
			"-3 -21.5 1 0 0 0", "-3 -21 1.123456789 0 0 0", "-3 -21 123456789.5 0 0 0",
			"-3 -21 1.5 0 0 1 5 1.2.3", "-3 -21 1.5 0 0 1 5 1.-2", "-3.1 -21 1.5 0 0 0",
			"-3 -21 1.5 0 0 1 3 12345678", "-3 -21 1.5 0 0 1 3 123456789",
			"-3 -21 1.5 0 0 2 7 -12345678 12345678", "-3 -21 1.5 0 0 0\r",
			"-3 -21 1.5 0 0 8 2 1 2 3 4 5 6 7 8",
			"-3 -21 1.5 0 0 3 2 16 900000019 38", "-3 -21 1.5 123456789 0 0",
			"-3 -21 1.5 0 0 1 2 1234567890123456", "-3 -21 1.5 0 0 1 2 -1234567890123456",
			"-3 -21 12345678.1234567890 0 0 0", "-3 -21 123456789.1234567890 0 0 0",
			"-3 -21 1.5 0 0 1 5 1234567890.123456789",
			"-3 -21 1.5 0 0 1 5 12345678901.123456789",
			"-3 -21 1.5 0 0 1 5 1.1234567890123456", "-3 -21 1.5 0 0 1 2 12345678901234567",
		};
		fprintf(f, "%s%s", edge[next_rand(sizeof(edge) / sizeof(edge[0]))], eol);
	} else {
		fprintf(f, "-3 %d %d.%03d %d 0 0%s", (int)next_rand(30), i, i % 1000, p, eol);
	}
}

static char *make_trace(uint64_t seed, int n)
{
	static char path[512];
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "%s/test-parallel-%d-%llu.picl", test_tmpdir(), (int)getpid(),
		 (unsigned long long)seed);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	rng = seed;
	fputs("-6 -1 0 -1 -1 1 \"%d%s\" 6 \"%d%lf\"\n", f);
	fputs("-6 -1 0 -1 -1 1 \"%d%s\" 7 \"%d\"\n", f);
	for (i = 0; i < n; i++)
		put_record(f, i);
	fputs("-4 -901 99 0 0 0", f);   /* no newline at the end */
	ck_assert_int_eq(fclose(f), 0);
	return path;
}

static int same_str(const char *a, size_t alen, const char *b, size_t blen)
{
	return alen == blen && (alen == 0 || memcmp(a, b, alen) == 0);
}

static void compare_records(const struct picl_record *a, const struct picl_record *b,
			    unsigned long call)
{
	size_t k;

	ck_assert_msg(a->type == b->type && a->event == b->event && a->processor == b->processor &&
		      a->process == b->process && a->nfields == b->nfields,
		      "call %lu: fixed fields differ (line %llu)", call,
		      (unsigned long long)a->mark.line);
	ck_assert_msg(picl_time_cmp(a->time, b->time) == 0 && a->time.scale == b->time.scale,
		      "call %lu: time differs", call);
	ck_assert_msg(a->has_descriptor == b->has_descriptor && a->alias == b->alias &&
		      same_str(a->control, a->control_len, b->control, b->control_len),
		      "call %lu: descriptor differs", call);
	ck_assert_msg((a->desc == NULL) == (b->desc == NULL), "call %lu: desc set in one only", call);
	if (a->desc)
		ck_assert_str_eq(picl_descriptor_control(a->desc), picl_descriptor_control(b->desc));
	ck_assert_msg(same_str(a->data, a->data_len, b->data, b->data_len) &&
		      same_str(a->line, a->line_len, b->line, b->line_len),
		      "call %lu: text differs (line %llu)", call, (unsigned long long)a->mark.line);
	ck_assert_msg(a->mark.line == b->mark.line && a->mark.column == b->mark.column &&
		      a->mark.offset == b->mark.offset,
		      "call %lu: mark %llu:%llu@%llu vs %llu:%llu@%llu", call,
		      (unsigned long long)a->mark.line, (unsigned long long)a->mark.column,
		      (unsigned long long)a->mark.offset, (unsigned long long)b->mark.line,
		      (unsigned long long)b->mark.column, (unsigned long long)b->mark.offset);
	ck_assert_msg(a->nvalues == b->nvalues, "call %lu (line %llu): %zu values vs %zu", call,
		      (unsigned long long)a->mark.line, a->nvalues, b->nvalues);
	for (k = 0; k < a->nvalues; k++) {
		const struct picl_value *x = &a->values[k], *y = &b->values[k];

		ck_assert_int_eq(x->kind, y->kind);
		ck_assert_msg(same_str(x->text, x->text_len, y->text, y->text_len),
			      "call %lu: value %zu text differs", call, k);
		if (x->kind == PICL_VAL_STRING || x->kind == PICL_VAL_CHARS)
			ck_assert(same_str(x->v.s.ptr, x->v.s.len, y->v.s.ptr, y->v.s.len));
		else
			ck_assert(memcmp(&x->v, &y->v, sizeof(x->v.u)) == 0);
	}
}

static unsigned long ahead;  /* records decoded ahead (PICL_READ_DECODE_AHEAD) */
static unsigned serial_extra; /* flags for the serial reader only */

/* Read path both ways with these options, the parallel reader with `extra`
 * flags too; returns the number of records. A record the parallel reader
 * decoded ahead must be what picl_reader_decode makes of the serial one. */
static unsigned long differential_with(const char *path, unsigned flags, unsigned extra,
				       size_t buffer, size_t max_record, unsigned long *errors)
{
	struct picl_reader_options o1 = { 0 }, o2;
	struct picl_reader *a, *b;
	struct picl_record ra, rb;
	unsigned long call = 0, records = 0;
	int st;

	o1.flags = flags;
	o1.buffer_size = buffer;
	o1.max_record = max_record;
	o2 = o1;
	o2.flags |= PICL_READ_PARALLEL | extra;
	o1.flags |= serial_extra;
	ahead = 0;
	a = picl_reader_open(path, &o1, &st, NULL);
	b = picl_reader_open(path, &o2, &st, NULL);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	*errors = 0;
	for (;;) {
		int x = picl_reader_next(a, &ra);
		int y = picl_reader_next(b, &rb);

		call++;
		ck_assert_msg(x == y, "call %lu: serial %d, parallel %d (flags %u buffer %zu max %zu)",
			      call, x, y, flags, buffer, max_record);
		ck_assert_msg(picl_reader_offset(a) == picl_reader_offset(b),
			      "call %lu: offset %llu vs %llu", call,
			      (unsigned long long)picl_reader_offset(a),
			      (unsigned long long)picl_reader_offset(b));
		if (x == PICL_END)
			break;
		if (x < 0) {
			const struct picl_error *ea = picl_reader_error(a), *eb = picl_reader_error(b);

			ck_assert_msg(ea->mark.line == eb->mark.line &&
				      ea->mark.column == eb->mark.column &&
				      ea->mark.offset == eb->mark.offset,
				      "call %lu: error at %llu:%llu vs %llu:%llu", call,
				      (unsigned long long)ea->mark.line,
				      (unsigned long long)ea->mark.column,
				      (unsigned long long)eb->mark.line,
				      (unsigned long long)eb->mark.column);
			ck_assert_str_eq(ea->problem, eb->problem);
			ck_assert_int_eq(picl_reader_error_is_fatal(a), picl_reader_error_is_fatal(b));
			(*errors)++;
			if (picl_reader_error_is_fatal(a))
				break;
			continue;
		}
		if (rb.desc && !ra.desc) {
			ck_assert_msg(extra & PICL_READ_DECODE_AHEAD,
				      "call %lu: decoded in parallel only", call);
			ck_assert_msg(picl_reader_decode(a, &ra) == PICL_OK,
				      "call %lu: decoded in parallel, not serially: \"%.*s\"",
				      call, (int)ra.line_len, ra.line);
			ahead++;
		}
		compare_records(&ra, &rb, call);
		records++;
	}
	/* the end repeats */
	ck_assert_int_eq(picl_reader_next(b, &rb), PICL_END);
	picl_reader_free(a);
	picl_reader_free(b);
	return records;
}

static unsigned long differential(const char *path, unsigned flags, size_t buffer,
				  size_t max_record, unsigned long *errors)
{
	return differential_with(path, flags, 0, buffer, max_record, errors);
}

START_TEST(same_as_serial)
{
	static const size_t buffers[] = { 0, 61, 700, 5000 };
	static const size_t maxes[] = { 0, 200 };
	static const unsigned flags[] = {
		0, PICL_READ_RAW, PICL_READ_NO_DEFS, PICL_READ_RAW | PICL_READ_NO_DEFS,
		PICL_READ_NO_FAST_PATH
	};
	char *path = make_trace(1000 + (uint64_t)_i, 6000);
	size_t i, j, k;

	setenv("PICL_THREADS", _i % 2 ? "3" : "2", 1);
	for (i = 0; i < sizeof(buffers) / sizeof(buffers[0]); i++)
		for (j = 0; j < sizeof(maxes) / sizeof(maxes[0]); j++)
			for (k = 0; k < sizeof(flags) / sizeof(flags[0]); k++) {
				unsigned long errors, n;

				n = differential(path, flags[k], buffers[i], maxes[j], &errors);
				/* the trace has plenty of both */
				ck_assert_uint_gt(n, 4000);
				ck_assert_uint_gt(errors, 50);
			}
	unlink(path);
}
END_TEST

/* A trace big enough for many default-sized chunks, read in parallel: the
 * same checksum of every value as the serial reader. */
START_TEST(many_chunks)
{
	char *path = make_trace(7, 200000);
	unsigned long errors;

	setenv("PICL_THREADS", "4", 1);
	ck_assert_uint_gt(differential(path, 0, 0, 0, &errors), 150000);
	unlink(path);
}
END_TEST

/*
 * Raw records decoded ahead: the same records, errors and offsets as the
 * serial raw reader; most records with data come decoded (as the serial
 * reader decodes them on demand), the rest raw: bad data, scoped aliases,
 * records read by the caller. Without PICL_READ_RAW the flag changes
 * nothing.
 */
START_TEST(decode_ahead)
{
	static const size_t buffers[] = { 0, 61, 5000 };
	char *path = make_trace(77, 20000);
	unsigned long errors, n;
	size_t i;

	setenv("PICL_THREADS", "3", 1);
	for (i = 0; i < sizeof(buffers) / sizeof(buffers[0]); i++) {
		n = differential_with(path, PICL_READ_RAW, PICL_READ_DECODE_AHEAD, buffers[i], 0,
				      &errors);
		/* 70% of the records have data, a few bad, some with
		 * scoped aliases */
		ck_assert_uint_gt(n, 15000);
		ck_assert_uint_gt(ahead, n / 2);
		ck_assert_uint_lt(ahead, n);
		n = differential_with(path, PICL_READ_RAW | PICL_READ_NO_DEFS,
				      PICL_READ_DECODE_AHEAD, buffers[i], 0, &errors);
		ck_assert_uint_gt(ahead, 0);
		differential_with(path, 0, PICL_READ_DECODE_AHEAD, buffers[i], 0, &errors);
		ck_assert_uint_eq(ahead, 0);
	}
	unlink(path);
}
END_TEST

/*
 * The one-pass parsers against the careful one: the serial reader without
 * its fast paths, against the serial reader with them (quick_decode; one
 * thread) and against the parsing threads (parse_vec where the processor
 * has AVX-512 VBMI2, and parse_quick; PICL_SIMD=0 leaves out the first);
 * the same records, values, marks and errors, raw and decoded.
 */
START_TEST(fast_as_careful)
{
	static const char *const threads[] = { "1", "3" };
	static const unsigned flags[] = { 0, PICL_READ_RAW };
	char *path = make_trace(4242, 20000);
	unsigned long errors, n;
	size_t i, k;

	serial_extra = PICL_READ_NO_FAST_PATH;
	setenv("PICL_SIMD", _i ? "0" : "1", 1);
	for (i = 0; i < 2; i++)
		for (k = 0; k < 2; k++) {
			setenv("PICL_THREADS", threads[i], 1);
			n = differential(path, flags[k], 0, 0, &errors);
			ck_assert_uint_gt(n, 15000);
			ck_assert_uint_gt(errors, 100);
		}
	serial_extra = 0;
	unsetenv("PICL_SIMD");
	unlink(path);
}
END_TEST

/* One thread allowed: the flag is accepted and reading is serial. */
START_TEST(one_thread)
{
	char *path = make_trace(3, 3000);
	unsigned long errors;

	setenv("PICL_THREADS", "1", 1);
	ck_assert_uint_gt(differential(path, 0, 100, 0, &errors), 2000);
	unlink(path);
}
END_TEST

/* Threads of this process now (the entries of /proc/self/task). */
static int tasks(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* Threads of a parallel reader of path once it has handed out a record. */
static int reader_tasks(const char *path)
{
	struct picl_reader_options o = { .flags = PICL_READ_PARALLEL };
	struct picl_record rec;
	struct picl_reader *r;
	int rc, n;

	r = picl_reader_open(path, &o, &rc, NULL);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_ge(picl_reader_next(r, &rec), 0);
	n = tasks();
	while (picl_reader_next(r, &rec) != PICL_END)
		;
	picl_reader_free(r);
	return n;
}

/*
 * The threads: PICL_THREADS when set to a whole number from 1 up (at most
 * 8; anything else counts as unset: "x" read serially without a word),
 * else one per CPU of the affinity mask, not one per CPU online: held to
 * one CPU (taskset -c 0, a batch job's one core) a reader reads alone.
 */
START_TEST(threads_from_affinity)
{
	static const char *const bad[] = { "x", "0", "-2", "2x", " 3", "+3",
					   "99999999999999999999" };
	char *path = make_trace(11, 20000);
	cpu_set_t all, one;
	int cpus, first, expect;
	size_t i;

	ck_assert_int_eq(sched_getaffinity(0, sizeof(all), &all), 0);
	cpus = CPU_COUNT(&all);
	expect = cpus > 8 ? 8 : cpus;
	setenv("PICL_THREADS", "3", 1);
	ck_assert_uint_eq(picl_reader_threads(), 3);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv("PICL_THREADS", bad[i], 1);
		ck_assert_msg(picl_reader_threads() == (size_t)expect, "PICL_THREADS='%s': %zu",
			      bad[i], picl_reader_threads());
	}
	setenv("PICL_THREADS", "20", 1);
	ck_assert_uint_eq(picl_reader_threads(), 8);
	unsetenv("PICL_THREADS");

	ck_assert_uint_eq(picl_reader_threads(), (size_t)expect);
	ck_assert_int_eq(tasks(), 1);
	if (cpus >= 2)
		ck_assert_int_eq(reader_tasks(path), expect);

	for (first = 0; !CPU_ISSET(first, &all); first++)
		;
	CPU_ZERO(&one);
	CPU_SET(first, &one);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(one), &one), 0);
	ck_assert_uint_eq(picl_reader_threads(), 1);
	ck_assert_int_eq(reader_tasks(path), 1);
	sched_setaffinity(0, sizeof(all), &all);
	unlink(path);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("parallel");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, same_as_serial, 0, 4);
	tcase_add_test(tc, many_chunks);
	tcase_add_test(tc, decode_ahead);
	tcase_add_loop_test(tc, fast_as_careful, 0, 2);
	tcase_add_test(tc, one_thread);
	tcase_add_test(tc, threads_from_affinity);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
