/*
 * test-stats.c - Check suite for the statistics accumulator (stats.c).
 *
 * Part one feeds hand-built event records (nesting, marks, volumes,
 * relative windows, nested windows, unmatched exits, also on a deep stack,
 * several processes)
 * and checks picl_stats_get and picl_stats_emit. Part two recomputes the
 * statistics records of the spec's Appendix A (Table 20, in
 * ../shared/spec/table20-example.picl) from its event records and compares
 * them with the file's own, pair by pair and in order.
 *
 * The spec directory lives outside the repository: $PICL_SHARED, else
 * PICL_TESTDATA/../../shared. Without it the hand-built cases still run and
 * the program exits 77 (automake: skipped) if they pass.
 */
#include "picl-trace.h"

#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef PICL_TESTDATA
#define PICL_TESTDATA "testdata"
#endif

#define T20_NAME "/spec/table20-example.picl"

static char table20_path[4096];

/* ------------------------------------------------------------------------ */
/* Building records by hand                                                  */
/* ------------------------------------------------------------------------ */

static int32_t cur_processor;
static int32_t cur_process;

static struct picl_time tm(const char *s)
{
	struct picl_time t;

	ck_assert_int_eq(picl_time_parse(s, strlen(s), &t, NULL), PICL_OK);
	return t;
}

/* Feed one event record of the current process with nv integer values. */
static int feed(struct picl_stats *s, int type, int event, const char *time,
		int nv, ...)
{
	struct picl_value vals[16];
	struct picl_record rec;
	struct picl_error err;
	va_list ap;
	int i, rc;

	ck_assert_int_le(nv, 16);
	memset(vals, 0, sizeof(vals));
	memset(&err, 0, sizeof(err));
	va_start(ap, nv);
	for (i = 0; i < nv; i++) {
		vals[i].kind = PICL_VAL_INT;
		vals[i].v.i = va_arg(ap, int);
	}
	va_end(ap);
	picl_record_init(&rec);
	rec.type = type;
	rec.event = event;
	rec.time = tm(time);
	rec.processor = cur_processor;
	rec.process = cur_process;
	rec.nfields = (uint64_t)nv;
	rec.has_descriptor = nv > 0;
	rec.alias = nv > 0 ? 2 : -1;
	rec.values = nv > 0 ? vals : NULL;
	rec.nvalues = (size_t)nv;
	rc = picl_stats_add(s, &rec, &err);
	if (rc != PICL_OK)
		ck_assert_int_eq(err.code, rc);
	return rc;
}

#define ENTRY(s, e, t, ...) ck_assert_int_eq(feed(s, PICL_REC_ENTRY, e, t, __VA_ARGS__), PICL_OK)
#define EXIT(s, e, t, ...) ck_assert_int_eq(feed(s, PICL_REC_EXIT, e, t, __VA_ARGS__), PICL_OK)
#define MARK(s, e, t, ...) ck_assert_int_eq(feed(s, PICL_REC_MARK, e, t, __VA_ARGS__), PICL_OK)

/* Assert the statistics of E relative to R on the current process. */
static void expect(const struct picl_stats *s, int rel, int event,
		   double time, int64_t count, int64_t volume)
{
	double t = 12345;
	int64_t c = 12345, v = 12345;

	ck_assert_msg(picl_stats_get(s, cur_processor, cur_process, rel, event,
				     &t, &c, &v) == 1,
		      "no statistics for event %d relative to %d", event, rel);
	ck_assert_msg(fabs(t - time) < 1e-9, "time of %d rel %d: %.17g, expected %.17g",
		      event, rel, t, time);
	ck_assert_msg(c == count, "count of %d rel %d: %lld, expected %lld",
		      event, rel, (long long)c, (long long)count);
	ck_assert_msg(v == volume, "volume of %d rel %d: %lld, expected %lld",
		      event, rel, (long long)v, (long long)volume);
}

static void expect_none(const struct picl_stats *s, int rel, int event)
{
	ck_assert_msg(picl_stats_get(s, cur_processor, cur_process, rel, event,
				     NULL, NULL, NULL) == 0,
		      "unexpected statistics for event %d relative to %d", event, rel);
}

/* ------------------------------------------------------------------------ */
/* Collecting emitted records                                                */
/* ------------------------------------------------------------------------ */

#define MAX_PAIRS 64

struct srec {
	int32_t type, rel, processor, process;
	struct picl_time time;
	int npairs;
	struct picl_stat_pair pairs[MAX_PAIRS];
	char texts[MAX_PAIRS][PICL_TIME_BUFSIZE];   /* copies of pairs[].text */
};

struct collect {
	struct srec recs[256];
	int n;
	int stop_after;   /* return 99 after this many records (0: never) */
};

/* Keep a statistics record (its pairs and their texts are copied). */
static void keep(struct collect *col, const struct picl_record *rec)
{
	struct srec *r;
	int n;

	ck_assert_int_lt(col->n, 256);
	r = &col->recs[col->n++];
	r->type = rec->type;
	r->rel = rec->event;
	r->processor = rec->processor;
	r->process = rec->process;
	r->time = rec->time;
	n = picl_stats_record_pairs(rec, r->pairs, MAX_PAIRS);
	ck_assert_int_ge(n, 0);
	ck_assert_int_le(n, MAX_PAIRS);
	ck_assert_uint_eq((uint64_t)n, rec->nfields);
	r->npairs = n;
	for (n = 0; n < r->npairs; n++) {
		struct picl_stat_pair *p = &r->pairs[n];

		if (p->text) {
			ck_assert_uint_lt(p->text_len, PICL_TIME_BUFSIZE);
			memcpy(r->texts[n], p->text, p->text_len);
			p->text = r->texts[n];
		}
		r->texts[n][p->text_len] = '\0';
	}
}

static int on_emit(void *ctx, const struct picl_record *rec)
{
	struct collect *col = ctx;

	ck_assert_int_eq(rec->has_descriptor, 1);
	ck_assert_int_eq(rec->alias, -1);
	ck_assert_ptr_nonnull(rec->desc);
	ck_assert_ptr_nonnull(rec->control);
	if (rec->type == PICL_REC_STAT_TIME)
		ck_assert(rec->control_len == 5 && memcmp(rec->control, "%d%lf", 5) == 0);
	else
		ck_assert(rec->control_len == 4 && memcmp(rec->control, "%d%d", 4) == 0);
	ck_assert_str_eq(picl_descriptor_control(rec->desc),
			 rec->type == PICL_REC_STAT_TIME ? "%d%lf" : "%d%d");
	ck_assert_uint_eq(rec->nvalues, 2 * rec->nfields);
	if (rec->type == PICL_REC_STAT_TIME) {
		size_t i;

		/* Time texts are exact decimals equal to the doubles. */
		for (i = 1; i < rec->nvalues; i += 2) {
			const struct picl_value *v = &rec->values[i];
			struct picl_time t;

			ck_assert_int_eq(v->kind, PICL_VAL_DOUBLE);
			ck_assert_ptr_nonnull(v->text);
			ck_assert_int_eq(picl_time_parse(v->text, v->text_len, &t, NULL), PICL_OK);
			ck_assert(picl_time_to_double(t) == v->v.d);
		}
	}
	keep(col, rec);
	if (col->stop_after && col->n == col->stop_after)
		return 99;
	return 0;
}

static struct collect *emit_all(struct picl_stats *s)
{
	struct collect *col = calloc(1, sizeof(*col));

	ck_assert_ptr_nonnull(col);
	ck_assert_int_eq(picl_stats_emit(s, on_emit, col), PICL_OK);
	return col;
}

static void expect_rec(const struct srec *r, int type, int rel, int npairs, ...)
{
	va_list ap;
	int i;

	ck_assert_int_eq(r->type, type);
	ck_assert_int_eq(r->rel, rel);
	ck_assert_int_eq(r->npairs, npairs);
	va_start(ap, npairs);
	for (i = 0; i < npairs; i++) {
		int e = va_arg(ap, int);
		double v = va_arg(ap, double);

		ck_assert_int_eq(r->pairs[i].event, e);
		ck_assert_msg(r->pairs[i].value == v,
			      "record %d rel %d pair %d: %.17g, expected %.17g",
			      type, rel, i, r->pairs[i].value, v);
	}
	va_end(ap);
}

/* ------------------------------------------------------------------------ */
/* Hand-built cases                                                          */
/* ------------------------------------------------------------------------ */

START_TEST(test_nesting_and_volumes)
{
	struct picl_stats *s = picl_stats_new();

	cur_processor = 3;
	cur_process = 0;
	ENTRY(s, -901, "0", 0);
	ENTRY(s, -21, "1", 4, 8, 1, 7);       /* send0: length 8 */
	EXIT(s, -21, "1.5", 0);
	ENTRY(s, -52, "2", 1, 0);
	EXIT(s, -52, "3.25", 3, 16, 0, 0);    /* recv0: received 16 */
	ENTRY(s, -52, "4", 1, 0);
	EXIT(s, -52, "4.5", 3, 24, 0, 0);
	ENTRY(s, -221, "5", 2, 100, 3);       /* file write 100 */
	EXIT(s, -221, "5.5", 0);
	ENTRY(s, -251, "6", 0);
	EXIT(s, -251, "6.25", 2, 50, 3);      /* file read 50 */
	ENTRY(s, -911, "7", 1, 30);           /* tracemsg */
	EXIT(s, -911, "7.5", 0);
	ENTRY(s, -912, "8", 0);
	EXIT(s, -912, "8.5", 1, 40);          /* traceflush */
	ENTRY(s, -503, "9", 0);
	EXIT(s, -503, "9.5", 2, 1, 0);        /* load0: one process */
	ENTRY(s, -503, "10", 0);
	EXIT(s, -503, "10.5", 2, 2, 0);
	ENTRY(s, -27, "11", 0);               /* sendbegin0, no data: no volume */
	EXIT(s, -27, "11.5", 0);
	ENTRY(s, -11, "12", 0);               /* open0: no volume at all */
	EXIT(s, -11, "12.125", 0);
	ENTRY(s, -51, "13", 1, 0);            /* recv0 with length -1 (unknown) */
	EXIT(s, -51, "13.5", 3, -1, 0, 0);
	MARK(s, -12, "14", 0);
	EXIT(s, -901, "15", 0);

	expect(s, -1, -901, 15.0, 1, -1);
	expect(s, -1, -21, 0.5, 1, 8);
	expect(s, -1, -52, 1.75, 2, 40);
	expect(s, -1, -221, 0.5, 1, 100);
	expect(s, -1, -251, 0.25, 1, 50);
	expect(s, -1, -911, 0.5, 1, 30);
	expect(s, -1, -912, 0.5, 1, 40);
	expect(s, -1, -503, 1.0, 2, 2);
	expect(s, -1, -27, 0.5, 1, -1);
	expect(s, -1, -11, 0.125, 1, -1);
	expect(s, -1, -51, 0.5, 1, -1);
	expect(s, -1, -12, -1.0, 1, -1);      /* marks have no time */
	expect_none(s, -1, -1);
	expect_none(s, -1, -902);
	expect_none(s, 0, -21);
	ck_assert_int_eq(picl_stats_get(s, 3, 1, -1, -21, NULL, NULL, NULL), 0);
	picl_stats_free(s);
}
END_TEST

START_TEST(test_nested_same_event)
{
	struct picl_stats *s = picl_stats_new();

	/* -603 inside -603: both counted, the time spent in -603 once (the
	 * outer duration, not the sum 3.5 that counts 1.5 .. 2.0 twice). */
	cur_processor = 0;
	cur_process = 0;
	ENTRY(s, -603, "1.0", 0);
	ENTRY(s, -603, "1.5", 0);
	EXIT(s, -603, "2.0", 0);
	EXIT(s, -603, "4.0", 0);
	expect(s, -1, -603, 3.0, 2, -1);
	{
		int64_t n;

		ck_assert_int_eq(picl_stats_get_intervals(s, 0, 0, -1, -603, &n), 1);
		ck_assert_int_eq(n, 1);       /* one interval summed */
	}
	/* Again, after the outer exit: a new outermost instance adds. */
	ENTRY(s, -603, "5.0", 0);
	ENTRY(s, -603, "5.25", 0);
	ENTRY(s, -603, "5.5", 0);
	EXIT(s, -603, "5.75", 0);
	EXIT(s, -603, "6.0", 0);
	EXIT(s, -603, "7.0", 0);
	expect(s, -1, -603, 5.0, 5, -1);
	picl_stats_free(s);
}
END_TEST

START_TEST(test_entry_never_exited)
{
	struct picl_stats *s = picl_stats_new();

	/* An entry without its exit is counted but measured nothing: no
	 * time statistic (-1, spec 2.3.7), not a time of 0. One exited entry
	 * of the type defines it, the open ones adding nothing. */
	cur_processor = 0;
	cur_process = 0;
	ENTRY(s, -901, "0.0", 0);
	ENTRY(s, 5, "1.0", 0);
	EXIT(s, 5, "2.0", 0);
	ENTRY(s, 7, "3.0", 0);
	ENTRY(s, 5, "4.0", 0);
	expect(s, -1, 7, -1.0, 1, -1);
	expect(s, -1, -901, -1.0, 1, -1);
	expect(s, -1, 5, 1.0, 2, -1);
	expect(s, 7, 5, -1.0, 1, -1);
	picl_stats_free(s);
}
END_TEST

START_TEST(test_marks)
{
	struct picl_stats *s = picl_stats_new();

	cur_processor = 1;
	cur_process = 2;
	MARK(s, -904, "0.1", 3, 1, 1, 1);     /* tracelevel: no volume */
	MARK(s, -904, "0.2", 3, 1, 1, 1);
	MARK(s, -21, "0.3", 4, 64, 1, 2, 0);  /* send0 as a mark: length first */
	MARK(s, -52, "0.4", 7, 1, 0, 0, 32, 1, 0, 0);   /* entry 3 + exit 4 */
	MARK(s, -52, "0.5", 4, 1, 16, 1, 0);  /* entry 1 + exit 3 */
	MARK(s, -52, "0.6", 1, 1);            /* entry fields only: no length */
	MARK(s, -503, "0.7", 0);              /* load0 as a mark: one spawned */
	MARK(s, -60, "0.8", 5, 9, 12, 1, 0, 0);  /* recvend0: request id, length */
	expect(s, -1, -904, -1.0, 2, -1);
	expect(s, -1, -21, -1.0, 1, 64);
	expect(s, -1, -52, -1.0, 3, 48);
	expect(s, -1, -503, -1.0, 1, 1);
	expect(s, -1, -60, -1.0, 1, 12);
	picl_stats_free(s);
}
END_TEST

START_TEST(test_relative_windows)
{
	struct picl_stats *s = picl_stats_new();

	cur_processor = 0;
	cur_process = 0;
	ENTRY(s, -901, "0", 0);
	ENTRY(s, -21, "1", 1, 100);           /* entered before window 0 ... */
	ENTRY(s, 0, "2", 0);
	EXIT(s, -21, "3", 0);                 /* ... so not inside it */
	ENTRY(s, -52, "4", 1, 0);
	EXIT(s, -52, "5", 3, 8, 0, 0);
	MARK(s, -12, "5.5", 0);
	ENTRY(s, -11, "6", 0);                /* entered inside, exits after */
	EXIT(s, 0, "7", 0);                   /* window closes (out of order) */
	EXIT(s, -11, "9", 0);                 /* full duration 3 counts in 0 */
	ENTRY(s, -52, "10", 1, 0);            /* outside every window */
	EXIT(s, -52, "10.5", 3, 4, 0, 0);
	MARK(s, 5, "11", 0);                  /* a user mark opens no window */
	ENTRY(s, -21, "12", 1, 1);
	EXIT(s, -21, "13", 0);
	EXIT(s, -901, "20", 0);

	expect(s, -1, 0, 5.0, 1, -1);
	expect(s, -1, 5, -1.0, 1, -1);
	expect(s, -1, -21, 3.0, 2, 101);
	expect(s, -1, -52, 1.5, 2, 12);
	expect(s, 0, -52, 1.0, 1, 8);
	expect(s, 0, -12, -1.0, 1, -1);
	expect(s, 0, -11, 3.0, 1, -1);
	expect_none(s, 0, -21);
	expect_none(s, 0, 0);
	expect_none(s, 0, -901);
	expect_none(s, 5, -21);
	picl_stats_free(s);
}
END_TEST

START_TEST(test_nested_relative)
{
	struct picl_stats *s = picl_stats_new();

	cur_processor = 0;
	cur_process = 0;
	ENTRY(s, 0, "0", 0);
	ENTRY(s, -21, "1", 1, 10);
	EXIT(s, -21, "2", 0);
	ENTRY(s, 0, "3", 0);                  /* 0 inside 0: one window */
	ENTRY(s, -21, "4", 1, 20);
	EXIT(s, -21, "4.5", 0);
	ENTRY(s, 1, "5", 0);                  /* 1 inside 0 */
	ENTRY(s, -52, "6", 1, 0);
	EXIT(s, -52, "6.25", 3, 5, 0, 0);
	ENTRY(s, 1, "6.5", 0);                /* 1 inside 1 */
	EXIT(s, 1, "6.75", 0);
	EXIT(s, 1, "7", 0);
	EXIT(s, 0, "8", 0);                   /* inner 0 closes, window stays */
	ENTRY(s, -21, "9", 1, 40);
	EXIT(s, -21, "10", 0);
	EXIT(s, 0, "11", 0);                  /* outer 0 closes the window */
	ENTRY(s, -21, "12", 1, 80);
	EXIT(s, -21, "13", 0);

	expect(s, -1, 0, 11.0, 2, -1);     /* 0 .. 11 once: 3 .. 8 is inside */
	expect(s, -1, 1, 2.0, 2, -1);
	expect(s, -1, -21, 3.5, 4, 150);
	expect(s, 0, -21, 2.5, 3, 70);        /* counted once, not per level */
	expect(s, 0, -52, 0.25, 1, 5);
	expect(s, 0, 1, 2.0, 2, -1);
	expect_none(s, 0, 0);
	expect(s, 1, -52, 0.25, 1, 5);
	expect_none(s, 1, 1);
	expect_none(s, 1, -21);
	picl_stats_free(s);
}
END_TEST

START_TEST(test_unmatched_exit)
{
	struct picl_stats *s = picl_stats_new();
	struct picl_record rec;
	struct picl_error err;

	cur_processor = 0;
	cur_process = 0;
	ENTRY(s, -901, "0", 0);
	/* Overlapping (not nested) events: the exits are matched by type. */
	ENTRY(s, -27, "1", 1, 8);
	ENTRY(s, -57, "2", 1, 0);
	EXIT(s, -27, "3", 1, 0);
	EXIT(s, -57, "5", 1, 0);

	picl_record_init(&rec);
	rec.type = PICL_REC_EXIT;
	rec.event = -52;
	rec.time = tm("6.5");
	rec.mark.line = 42;
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(picl_stats_add(s, &rec, &err), PICL_ERR_DATA);
	ck_assert_int_eq(err.code, PICL_ERR_DATA);
	ck_assert_str_eq(err.problem, "exit of event -52 at 6.5 has no matching entry");
	ck_assert_uint_eq(err.mark.line, 42);
	/* NULL err is fine too. */
	ck_assert_int_eq(picl_stats_add(s, &rec, NULL), PICL_ERR_DATA);

	EXIT(s, -901, "10", 0);
	expect(s, -1, -27, 2.0, 1, 8);
	expect(s, -1, -57, 3.0, 1, -1);
	expect(s, -1, -901, 10.0, 1, -1);
	expect_none(s, -1, -52);

	/* Other record types are ignored. */
	rec.type = PICL_REC_LABEL;
	ck_assert_int_eq(picl_stats_add(s, &rec, NULL), PICL_OK);
	rec.type = PICL_REC_STAT_TIME;
	ck_assert_int_eq(picl_stats_add(s, &rec, NULL), PICL_OK);
	picl_stats_free(s);
}
END_TEST

/* A record refused (an exit with no entry) is not taken: neither its time,
 * which emitted records carry as the process's last, nor its decimals,
 * which the emitted times are written with, count. */
START_TEST(test_refused_not_taken)
{
	struct picl_stats *s = picl_stats_new();
	struct collect *col;
	char buf[PICL_TIME_BUFSIZE];
	int i;

	cur_processor = 0;
	cur_process = 0;
	ENTRY(s, -901, "0.1", 0);
	EXIT(s, -901, "0.3", 0);
	ck_assert_int_eq(feed(s, PICL_REC_EXIT, -52, "0.900000000", 0), PICL_ERR_DATA);
	col = emit_all(s);
	ck_assert_int_ge(col->n, 1);
	for (i = 0; i < col->n; i++) {
		picl_time_format(col->recs[i].time, buf);
		ck_assert_str_eq(buf, "0.3");
	}
	ck_assert_int_eq(col->recs[0].type, PICL_REC_STAT_TIME);
	ck_assert_str_eq(col->recs[0].texts[0], "0.2");
	free(col);
	picl_stats_free(s);
}
END_TEST

/* Exits matched below the top of the stack, and exits of no open entry
 * (known so from the per-event counts, without a scan), among entries
 * pushed before and after the counts were made. */
START_TEST(test_unmatched_deep)
{
	struct picl_stats *s = picl_stats_new();
	char t[32];
	int k;

	cur_processor = 0;
	cur_process = 0;
	ENTRY(s, -901, "0", 0);
	ENTRY(s, 5, "1", 0);
	ENTRY(s, 7, "2", 0);
	ENTRY(s, 5, "3", 0);
	ck_assert_int_eq(feed(s, PICL_REC_EXIT, 6, "4", 0), PICL_ERR_DATA);
	EXIT(s, 7, "5", 0);          /* below the top (5) */
	ck_assert_int_eq(feed(s, PICL_REC_EXIT, 7, "6", 0), PICL_ERR_DATA);
	ENTRY(s, 8, "7", 0);
	EXIT(s, 5, "8", 0);          /* the 5 of 3, below 8 */
	EXIT(s, 8, "9", 0);
	EXIT(s, 5, "10", 0);         /* the 5 of 1 */
	ck_assert_int_eq(feed(s, PICL_REC_EXIT, 5, "11", 0), PICL_ERR_DATA);
	expect(s, -1, 5, 9.0, 2, -1);      /* 1 .. 10, 3 .. 8 inside it */
	expect(s, -1, 7, 3.0, 1, -1);
	expect(s, -1, 8, 2.0, 1, -1);
	expect_none(s, -1, 6);

	/* Deep: 3000 entries of 9, 3000 exits of 6 (none match), then the
	 * 3000 exits of 9, innermost first. */
	for (k = 0; k < 3000; k++) {
		snprintf(t, sizeof(t), "%d", 100 + k);
		ENTRY(s, 9, t, 0);
	}
	for (k = 0; k < 3000; k++) {
		snprintf(t, sizeof(t), "%d", 3100 + k);
		ck_assert_int_eq(feed(s, PICL_REC_EXIT, 6, t, 0), PICL_ERR_DATA);
	}
	for (k = 0; k < 3000; k++) {
		snprintf(t, sizeof(t), "%d", 6100 + k);
		EXIT(s, 9, t, 0);
	}
	/* the k-th exit (6100 + k) closes the entry at 100 + 2999 - k: the
	 * last, at 9099, the outermost, at 100 */
	expect(s, -1, 9, 9099.0 - 100.0, 3000, -1);
	EXIT(s, -901, "10000", 0);
	expect(s, -1, -901, 10000.0, 1, -1);
	picl_stats_free(s);
}
END_TEST

/* Hostile nesting: at most 256 distinct user events open at once; the
 * 257th entry is refused (and its exit then has no entry), the rest goes
 * on, and a 257th entry of an event already open still counts. */
START_TEST(test_window_limit)
{
	struct picl_stats *s = picl_stats_new();
	struct picl_record rec;
	struct picl_error err;
	char t[32];
	int e;

	cur_processor = 0;
	cur_process = 0;
	ENTRY(s, -901, "0", 0);
	for (e = 0; e < 256; e++) {
		snprintf(t, sizeof(t), "%d", e + 1);
		ENTRY(s, e, t, 0);
	}
	picl_record_init(&rec);
	rec.type = PICL_REC_ENTRY;
	rec.event = 256;
	rec.time = tm("300");
	rec.mark.line = 7;
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(picl_stats_add(s, &rec, &err), PICL_ERR_DATA);
	ck_assert_str_eq(err.problem,
			 "entry of event 256: more than 256 user events open at once on one process");
	ck_assert_uint_eq(err.mark.line, 7);
	ck_assert_int_eq(feed(s, PICL_REC_EXIT, 256, "301", 0), PICL_ERR_DATA);
	ENTRY(s, 5, "302", 0);          /* open already: nests */
	EXIT(s, 5, "303", 0);
	ENTRY(s, -21, "304", 0);        /* system events are not windows */
	EXIT(s, -21, "305", 0);
	for (e = 255; e >= 0; e--) {
		snprintf(t, sizeof(t), "%d", 400 + 255 - e);
		EXIT(s, e, t, 0);
	}
	EXIT(s, -901, "1000", 0);
	expect_none(s, -1, 256);
	/* 5: entered at 6, again at 302-303 (nested: inside), left at 650 */
	expect(s, -1, 5, 650.0 - 6.0, 2, -1);
	expect(s, 255, -21, 1.0, 1, -1);
	picl_stats_free(s);
}
END_TEST

START_TEST(test_emit_order)
{
	struct picl_stats *s = picl_stats_new();
	struct collect *col;
	const struct srec *r;

	/* The host and a node, fed interleaved; emitted by (processor, process). */
	cur_processor = PICL_HOST_PROCESSOR;
	cur_process = 0;
	ENTRY(s, -901, "0.000001", 0);
	cur_processor = 2;
	cur_process = 1;
	ENTRY(s, -901, "-0.5", 0);
	MARK(s, -904, "-0.4", 3, 1, 1, 1);
	ENTRY(s, 1, "0.000010", 0);
	ENTRY(s, -52, "0.000128", 1, 0);
	EXIT(s, -52, "0.000516", 3, 8, 0, 0); /* 0.000388 after rounding */
	ENTRY(s, 0, "0.000600", 0);
	ENTRY(s, -21, "0.000700", 1, 8);
	EXIT(s, -21, "0.000746", 0);
	EXIT(s, 0, "0.000800", 0);
	EXIT(s, 1, "0.001", 0);
	ENTRY(s, 2, "0.002", 0);              /* a user event with nothing inside */
	EXIT(s, 2, "0.0025", 0);
	MARK(s, 3, "0.003", 0);               /* a user mark: count only */
	MARK(s, -12, "0.004", 0);
	EXIT(s, -901, "0.005", 0);
	cur_processor = PICL_HOST_PROCESSOR;
	cur_process = 0;
	ENTRY(s, -503, "0.1", 0);
	EXIT(s, -503, "0.2", 2, 0, 0);
	EXIT(s, -901, "0.3", 0);

	col = emit_all(s);
	ck_assert_int_eq(col->n, 14);
	r = col->recs;
	ck_assert_int_eq(r[0].processor, 2);
	ck_assert_int_eq(r[0].process, 1);
	ck_assert_int_eq(picl_time_cmp(r[0].time, tm("0.005")), 0);
	expect_rec(&r[0], -101, -1, 3, -21, 0.000046, -52, 0.000388, -901, 0.505);
	ck_assert_str_eq(r[0].texts[0], "0.000046");
	ck_assert_str_eq(r[0].texts[2], "0.505000");
	expect_rec(&r[1], -102, -1, 5, -12, 1.0, -21, 1.0, -52, 1.0, -901, 1.0,
		   -904, 1.0);
	expect_rec(&r[2], -103, -1, 2, -21, 8.0, -52, 8.0);
	expect_rec(&r[3], -101, -1, 3, 0, 0.0002, 1, 0.00099, 2, 0.0005);
	expect_rec(&r[4], -102, -1, 4, 0, 1.0, 1, 1.0, 2, 1.0, 3, 1.0);
	/* no -103 for the user events: none has a volume */
	expect_rec(&r[5], -101, 0, 1, -21, 0.000046);
	expect_rec(&r[6], -102, 0, 1, -21, 1.0);
	expect_rec(&r[7], -103, 0, 1, -21, 8.0);
	expect_rec(&r[8], -101, 1, 3, -21, 0.000046, -52, 0.000388, 0, 0.0002);
	expect_rec(&r[9], -102, 1, 3, -21, 1.0, -52, 1.0, 0, 1.0);
	expect_rec(&r[10], -103, 1, 2, -21, 8.0, -52, 8.0);
	/* R = 2 had nothing inside: no records. The host comes last. */
	for (int i = 11; i < 14; i++) {
		ck_assert_int_eq(r[i].processor, PICL_HOST_PROCESSOR);
		ck_assert_int_eq(r[i].process, 0);
		ck_assert_int_eq(picl_time_cmp(r[i].time, tm("0.3")), 0);
	}
	expect_rec(&r[11], -101, -1, 2, -503, 0.1, -901, 0.299999);
	expect_rec(&r[12], -102, -1, 2, -503, 1.0, -901, 1.0);
	expect_rec(&r[13], -103, -1, 1, -503, 1.0);
	free(col);
	picl_stats_free(s);
}
END_TEST

START_TEST(test_emit_host_and_stop)
{
	struct picl_stats *s = picl_stats_new();
	struct collect *col;

	ck_assert_int_eq(picl_stats_emit(s, on_emit, NULL), PICL_OK); /* nothing */
	cur_processor = PICL_HOST_PROCESSOR;
	cur_process = 0;
	ENTRY(s, -901, "0.000001", 0);
	ENTRY(s, -503, "0.1", 0);
	EXIT(s, -503, "0.2", 2, 0, 0);
	ENTRY(s, -503, "0.25", 0);
	EXIT(s, -503, "0.26", 2, 1, 0);
	EXIT(s, -901, "0.3", 0);
	col = emit_all(s);
	ck_assert_int_eq(col->n, 3);
	expect_rec(&col->recs[0], -101, -1, 2, -503, 0.11, -901, 0.299999);
	expect_rec(&col->recs[1], -102, -1, 2, -503, 2.0, -901, 1.0);
	expect_rec(&col->recs[2], -103, -1, 1, -503, 2.0);
	free(col);

	/* A non-zero return from the callback stops and is returned. */
	col = calloc(1, sizeof(*col));
	col->stop_after = 2;
	ck_assert_int_eq(picl_stats_emit(s, on_emit, col), 99);
	ck_assert_int_eq(col->n, 2);
	free(col);
	picl_stats_free(s);
}
END_TEST

START_TEST(test_rounding_scale)
{
	struct picl_stats *s = picl_stats_new();
	double t;

	cur_processor = 0;
	cur_process = 0;
	/* Mixed scales: the finest (9) is used for rounding. */
	ENTRY(s, -21, "0.1", 0);
	EXIT(s, -21, "0.300000001", 0);
	ck_assert_int_eq(picl_stats_get(s, 0, 0, -1, -21, &t, NULL, NULL), 1);
	ck_assert(t == 0.200000001);
	/* Sums of many six-decimal durations stay exact decimals. */
	ENTRY(s, -52, "0.000128", 0);
	EXIT(s, -52, "0.000516", 0);
	ENTRY(s, -52, "0.000818", 0);
	EXIT(s, -52, "0.001643", 0);
	ck_assert_int_eq(picl_stats_get(s, 0, 0, -1, -52, &t, NULL, NULL), 1);
	ck_assert(t == 0.001213);
	picl_stats_free(s);
}
END_TEST

/* Sums are exact decimals, also where a double's 53 bits are not enough:
 * 14 decimals and thousands of seconds; mixed scales; and past 18 digits a
 * double that picl_stats_get_time does not pass off as exact. */
START_TEST(test_exact_sums)
{
	struct picl_stats *s = picl_stats_new();
	struct picl_time t;
	struct collect *col;
	char buf[PICL_TIME_BUFSIZE];
	double d;
	int i;

	cur_processor = 0;
	cur_process = 0;
	for (i = 0; i < 2; i++) {
		ENTRY(s, -21, "0.00000000000001", 0);
		EXIT(s, -21, "3000.00000000000002", 0);
	}
	ck_assert_int_eq(picl_stats_get_time(s, 0, 0, -1, -21, &t), 1);
	picl_time_format(t, buf);
	ck_assert_str_eq(buf, "6000.00000000000002");
	ck_assert_int_eq(picl_stats_get(s, 0, 0, -1, -21, &d, NULL, NULL), 1);
	ck_assert(d == 6000.0);
	/* Emitted with that text. */
	col = emit_all(s);
	ck_assert_int_ge(col->n, 1);
	ck_assert_int_eq(col->recs[0].type, PICL_REC_STAT_TIME);
	ck_assert_str_eq(col->recs[0].texts[0], "6000.00000000000002");
	free(col);

	/* A coarser duration after a finer one, and the reverse. */
	ENTRY(s, -52, "1.5", 0);
	EXIT(s, -52, "2.25", 0);
	ENTRY(s, -52, "3.000000001", 0);
	EXIT(s, -52, "3.000000003", 0);
	ENTRY(s, -52, "4", 0);
	EXIT(s, -52, "5", 0);
	ck_assert_int_eq(picl_stats_get_time(s, 0, 0, -1, -52, &t), 1);
	picl_time_format(t, buf);
	/* the process's finest scale is 14 (the -21 records) */
	ck_assert_str_eq(buf, "1.75000000200000");

	/* Past 18 digits (1 s at 18 decimals): a double from then on. */
	cur_processor = 1;
	ENTRY(s, -11, "0", 0);
	EXIT(s, -11, "0.600000000000000001", 0);
	ck_assert_int_eq(picl_stats_get_time(s, 1, 0, -1, -11, &t), 1);
	ck_assert(t.mant == 600000000000000001LL && t.scale == 18);
	ENTRY(s, -11, "0.1", 0);
	EXIT(s, -11, "0.700000000000000001", 0);
	ck_assert_int_eq(picl_stats_get_time(s, 1, 0, -1, -11, &t), 0);
	ck_assert_int_eq(picl_stats_get(s, 1, 0, -1, -11, &d, NULL, NULL), 1);
	ck_assert(d == 1.2);
	/* Marks only: no time. */
	MARK(s, -12, "16", 0);
	ck_assert_int_eq(picl_stats_get_time(s, 1, 0, -1, -12, &t), 0);
	ck_assert_int_eq(picl_stats_get_time(s, 1, 0, -1, -99, &t), 0);
	ck_assert_int_eq(picl_stats_get_time(s, 7, 0, -1, -11, &t), 0);
	picl_stats_free(s);
}
END_TEST

START_TEST(test_record_pairs)
{
	struct picl_value v[6];
	struct picl_stat_pair pairs[2];
	struct picl_record rec;

	memset(v, 0, sizeof(v));
	v[0].kind = PICL_VAL_INT;
	v[0].v.i = -11;
	v[1].kind = PICL_VAL_DOUBLE;
	v[1].v.d = 0.000098;
	v[1].text = "0.000098";
	v[1].text_len = 8;
	v[2].kind = PICL_VAL_INT;
	v[2].v.i = -21;
	v[3].kind = PICL_VAL_DOUBLE;
	v[3].v.d = 0.000046;
	v[4].kind = PICL_VAL_INT;
	v[4].v.i = 7;
	v[5].kind = PICL_VAL_INT;
	v[5].v.i = -1;

	picl_record_init(&rec);
	rec.type = PICL_REC_STAT_TIME;
	rec.nfields = 3;
	rec.values = v;
	rec.nvalues = 6;
	ck_assert_int_eq(picl_stats_record_pairs(&rec, pairs, 2), 3); /* only 2 stored */
	ck_assert_int_eq(pairs[0].event, -11);
	ck_assert(pairs[0].value == 0.000098);
	ck_assert_ptr_eq(pairs[0].text, v[1].text);
	ck_assert_uint_eq(pairs[0].text_len, 8);
	ck_assert_int_eq(pairs[1].event, -21);
	ck_assert_ptr_null(pairs[1].text);
	ck_assert_uint_eq(pairs[1].text_len, 0);
	ck_assert_int_eq(picl_stats_record_pairs(&rec, NULL, 0), 3);

	rec.type = PICL_REC_STAT_COUNT;
	rec.values = v + 4;
	rec.nvalues = 2;
	rec.nfields = 1;
	ck_assert_int_eq(picl_stats_record_pairs(&rec, pairs, 2), 1);
	ck_assert_int_eq(pairs[0].event, 7);
	ck_assert(pairs[0].value == -1.0);

	/* Wrong shapes. */
	rec.values = v;
	rec.nvalues = 5;
	ck_assert_int_eq(picl_stats_record_pairs(&rec, pairs, 2), PICL_ERR_DATA);
	rec.values = v + 1;                   /* (double, int) */
	rec.nvalues = 2;
	ck_assert_int_eq(picl_stats_record_pairs(&rec, pairs, 2), PICL_ERR_DATA);
	v[5].kind = PICL_VAL_STRING;
	rec.values = v + 4;
	ck_assert_int_eq(picl_stats_record_pairs(&rec, pairs, 2), PICL_ERR_DATA);
	rec.values = NULL;                    /* not decoded */
	rec.nvalues = 0;
	ck_assert_int_eq(picl_stats_record_pairs(&rec, pairs, 2), PICL_ERR_DATA);
	rec.nfields = 0;                      /* an empty record */
	ck_assert_int_eq(picl_stats_record_pairs(&rec, pairs, 2), 0);
	rec.type = PICL_REC_ENTRY;
	ck_assert_int_eq(picl_stats_record_pairs(&rec, pairs, 2), PICL_ERR_DATA);
}
END_TEST

START_TEST(test_many)
{
	struct picl_stats *s = picl_stats_new();
	int p, e;
	char t[32];

	/* Enough processes and event types to grow every table. */
	for (p = 0; p < 100; p++) {
		cur_processor = p % 10;
		cur_process = p / 10;
		for (e = 0; e < 50; e++) {
			snprintf(t, sizeof(t), "%d", 2 * e);
			ENTRY(s, e, t, 0);
			ENTRY(s, -1000 - e, t, 0);
			snprintf(t, sizeof(t), "%d", 2 * e + 1);
			EXIT(s, -1000 - e, t, 0);
		}
		for (e = 49; e >= 0; e--) {
			snprintf(t, sizeof(t), "%d", 200 - e);
			EXIT(s, e, t, 0);
		}
	}
	for (p = 0; p < 100; p++) {
		cur_processor = p % 10;
		cur_process = p / 10;
		expect(s, -1, 0, 200.0, 1, -1);
		expect(s, -1, -1049, 1.0, 1, -1);
		expect(s, 0, -1049, 1.0, 1, -1);
		expect(s, 0, 49, 53.0, 1, -1);
		expect(s, 49, -1049, 1.0, 1, -1);
		expect_none(s, 49, 0);
	}
	picl_stats_free(s);
}
END_TEST

/*
 * picl_stats_event_of + picl_stats_add_event against picl_stats_add: the
 * events are made while reading, kept, and taken in only after the reader
 * is gone (they must hold nothing of the record); every statistic and
 * every refusal comes out the same. Volumes from entries (-21), exits
 * (-52, -912), marks of either kind and processes spawned (-503).
 */
static const char events_trace[] =
	"-3 -901 0 0 0 0\n"
	"-3 3 1 0 0 0\n"
	"-3 -21 2 0 0 3 2 40 7 1\n"
	"-4 -21 3 0 0 0\n"
	"-3 -52 4 0 0 1 2 7\n"
	"-4 -52 6 0 0 3 2 24 7 1\n"
	"-2 -21 7 0 0 3 2 16 7 1\n"
	"-2 -52 8 0 0 6 2 1 7 1 12 7 1\n"
	"-4 9 9 0 0 0\n"                      /* refused: no entry */
	"-3 -503 10 0 0 0\n"
	"-4 -503 11 0 0 0\n"
	"-2 -503 12 0 0 0\n"
	"-3 -912 13 0 0 0\n"
	"-4 -912 14 0 0 1 2 4096\n"
	"-4 3 15 0 0 0\n"
	"-3 -21 16 1 0 3 2 -1 7 0\n"          /* length -1: undefined */
	"-4 -21 17 1 0 0\n"
	"-4 -901 18 0 0 0\n";

START_TEST(test_events_kept)
{
	struct picl_stats *direct = picl_stats_new(), *kept = picl_stats_new();
	struct picl_stats_event ev[64], untouched;
	struct collect *a, *b;
	struct picl_reader *r;
	struct picl_record rec;
	struct picl_error err;
	int status = 0, rc, n = 0, i, j, refused_direct = 0, refused_kept = 0;
	int64_t c, v;
	double t;

	memset(&err, 0, sizeof(err));
	r = picl_reader_open_memory(events_trace, sizeof(events_trace) - 1, "events",
				    NULL, &status, &err);
	ck_assert_ptr_nonnull(r);
	while ((rc = picl_reader_next(r, &rec)) == PICL_OK) {
		ck_assert_int_lt(n, 64);
		if (picl_stats_event_of(&rec, &ev[n]))
			n++;
		if (picl_stats_add(direct, &rec, &err) != PICL_OK) {
			refused_direct++;
			ck_assert_uint_eq(err.mark.line, 9);
		}
	}
	ck_assert_int_eq(rc, PICL_END);
	/* A record other than an event: 0, the event untouched. */
	memset(&untouched, 0x5a, sizeof(untouched));
	rec.type = PICL_REC_STAT_TIME;
	ck_assert_int_eq(picl_stats_event_of(&rec, &untouched), 0);
	for (i = 0; i < (int)sizeof(untouched); i++)
		ck_assert_int_eq(((unsigned char *)&untouched)[i], 0x5a);
	picl_reader_free(r);
	ck_assert_int_eq(n, 18);
	ck_assert_int_eq(refused_direct, 1);

	/* What each event carries. */
	ck_assert(ev[2].has_volume && ev[2].volume == 40);   /* -21 entry */
	ck_assert(!ev[3].has_volume);                         /* -21 exit */
	ck_assert(!ev[4].has_volume);                         /* -52 entry */
	ck_assert(ev[5].has_volume && ev[5].volume == 24);   /* -52 exit */
	ck_assert(ev[6].has_volume && ev[6].volume == 16);   /* -21 mark */
	ck_assert(ev[7].has_volume && ev[7].volume == 12);   /* -52 mark, 6 values */
	ck_assert(!ev[9].has_volume);                         /* -503 entry */
	ck_assert(ev[10].has_volume && ev[10].volume == 1);  /* -503 exit */
	ck_assert(ev[11].has_volume && ev[11].volume == 1);  /* -503 mark */
	ck_assert(ev[13].has_volume && ev[13].volume == 4096);
	ck_assert(!ev[15].has_volume);                        /* length -1 */
	ck_assert_int_eq(ev[8].type, PICL_REC_EXIT);
	ck_assert_int_eq(ev[8].event, 9);
	ck_assert_uint_eq(ev[8].mark.line, 9);
	ck_assert_int_eq(ev[15].processor, 1);
	ck_assert_int_eq(picl_time_cmp(ev[14].time, tm("15")), 0);

	for (i = 0; i < n; i++) {
		if (picl_stats_add_event(kept, &ev[i], &err) != PICL_OK) {
			refused_kept++;
			ck_assert_int_eq(err.code, PICL_ERR_DATA);
			ck_assert_uint_eq(err.mark.line, 9);
		}
	}
	ck_assert_int_eq(refused_kept, 1);
	cur_processor = 0;
	cur_process = 0;
	expect(kept, -1, -21, 1.0, 2, 56);
	expect(kept, -1, -52, 2.0, 2, 36);
	expect(kept, 3, -503, 1.0, 2, 2);
	ck_assert_int_eq(picl_stats_get(kept, 1, 0, -1, -21, &t, &c, &v), 1);
	ck_assert(c == 1 && v == -1);

	a = emit_all(direct);
	b = emit_all(kept);
	ck_assert_int_gt(a->n, 0);
	ck_assert_int_eq(a->n, b->n);
	for (i = 0; i < a->n; i++) {
		ck_assert_int_eq(a->recs[i].type, b->recs[i].type);
		ck_assert_int_eq(a->recs[i].rel, b->recs[i].rel);
		ck_assert_int_eq(a->recs[i].processor, b->recs[i].processor);
		ck_assert_int_eq(a->recs[i].npairs, b->recs[i].npairs);
		ck_assert_int_eq(picl_time_cmp(a->recs[i].time, b->recs[i].time), 0);
		for (j = 0; j < a->recs[i].npairs; j++) {
			ck_assert_int_eq(a->recs[i].pairs[j].event, b->recs[i].pairs[j].event);
			ck_assert_str_eq(a->recs[i].texts[j], b->recs[i].texts[j]);
		}
	}
	ck_assert_int_eq(picl_stats_add_event(NULL, &ev[0], &err), PICL_ERR_USAGE);
	free(a);
	free(b);
	picl_stats_free(direct);
	picl_stats_free(kept);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Table 20                                                                  */
/* ------------------------------------------------------------------------ */

START_TEST(test_table20)
{
	struct picl_reader *r;
	struct picl_record rec;
	struct picl_error err;
	struct picl_stats *s = picl_stats_new();
	struct collect *file = calloc(1, sizeof(*file));
	struct collect *mine;
	double max_diff = 0.0;
	int status = 0, rc, i, j, nevents = 0;

	ck_assert_ptr_nonnull(file);
	memset(&err, 0, sizeof(err));
	r = picl_reader_open(table20_path, NULL, &status, &err);
	ck_assert_msg(r != NULL, "cannot open %s: %s", table20_path, err.problem);
	while ((rc = picl_reader_next(r, &rec)) == PICL_OK) {
		if (rec.type == PICL_REC_STAT_TIME || rec.type == PICL_REC_STAT_COUNT ||
		    rec.type == PICL_REC_STAT_VOLUME) {
			if (file->n == 0) {
				struct picl_stat_pair first;

				/* The texts are the input's digits. */
				ck_assert_int_eq(picl_stats_record_pairs(&rec, &first, 1), 7);
				ck_assert_int_eq(first.event, -11);
				ck_assert_uint_eq(first.text_len, 8);
				ck_assert(memcmp(first.text, "0.000098", 8) == 0);
			}
			keep(file, &rec);
			continue;
		}
		if (rec.type == PICL_REC_MARK || rec.type == PICL_REC_ENTRY ||
		    rec.type == PICL_REC_EXIT)
			nevents++;
		ck_assert_int_eq(picl_stats_add(s, &rec, &err), PICL_OK);
	}
	ck_assert_msg(rc == PICL_END, "reading %s: %s", table20_path,
		      picl_reader_error(r)->problem);
	picl_reader_free(r);
	ck_assert_int_eq(nevents, 22);
	ck_assert_int_eq(file->n, 11);

	/* Every pair of the file's records, recomputed. */
	for (i = 0; i < file->n; i++) {
		const struct srec *f = &file->recs[i];

		for (j = 0; j < f->npairs; j++) {
			const struct picl_stat_pair *fp = &f->pairs[j];
			double t;
			int64_t c, v;

			if (f->type == PICL_REC_STAT_VOLUME && fp->event == -901)
				continue; /* bytes of trace data: not in the events */
			ck_assert_msg(picl_stats_get(s, f->processor, f->process, f->rel,
						     fp->event, &t, &c, &v) == 1,
				      "record %d rel %d: event %d not recomputed",
				      f->type, f->rel, fp->event);
			if (f->type == PICL_REC_STAT_TIME) {
				double d = fabs(t - fp->value);

				if (d > max_diff)
					max_diff = d;
				ck_assert_msg(d <= 2e-6 + 1e-12,
					      "time of %d rel %d: %.9f, file %.9f",
					      fp->event, f->rel, t, fp->value);
			} else if (f->type == PICL_REC_STAT_COUNT) {
				ck_assert_msg((double)c == fp->value,
					      "count of %d rel %d: %lld, file %g",
					      fp->event, f->rel, (long long)c, fp->value);
			} else {
				ck_assert_msg((double)v == fp->value,
					      "volume of %d rel %d: %lld, file %g",
					      fp->event, f->rel, (long long)v, fp->value);
			}
		}
	}

	/* The emitted records: same sequence, no pair the file lacks. */
	mine = emit_all(s);
	ck_assert_int_eq(mine->n, file->n);
	for (i = 0; i < file->n; i++) {
		const struct srec *f = &file->recs[i], *m = &mine->recs[i];
		int k = 0;

		ck_assert_int_eq(m->type, f->type);
		ck_assert_int_eq(m->rel, f->rel);
		ck_assert_int_eq(m->processor, f->processor);
		ck_assert_int_eq(m->process, f->process);
		ck_assert_int_eq(picl_time_cmp(m->time, f->time), 0);
		for (j = 0; j < f->npairs; j++) {
			const struct picl_stat_pair *fp = &f->pairs[j];

			if (f->type == PICL_REC_STAT_VOLUME && fp->event == -901)
				continue;
			ck_assert_msg(k < m->npairs && m->pairs[k].event == fp->event,
				      "record %d: emitted pairs differ at event %d", i,
				      fp->event);
			if (f->type == PICL_REC_STAT_TIME) {
				ck_assert(fabs(m->pairs[k].value - fp->value) <= 2e-6 + 1e-12);
				/* Equal times are written with the file's digits. */
				if (m->pairs[k].value == fp->value)
					ck_assert_str_eq(m->texts[k], f->texts[j]);
			} else
				ck_assert(m->pairs[k].value == fp->value);
			k++;
		}
		ck_assert_msg(k == m->npairs, "record %d: %d emitted pairs, file has %d",
			      i, m->npairs, k);
	}
	printf("table20: %d statistics records agree, max time difference %.3g s\n",
	       file->n, max_diff);
	free(mine);
	free(file);
	picl_stats_free(s);
}
END_TEST

/* ------------------------------------------------------------------------ */

static int find_table20(void)
{
	const char *shared = getenv("PICL_SHARED");

	if (shared && *shared)
		snprintf(table20_path, sizeof(table20_path), "%s%s", shared, T20_NAME);
	else
		snprintf(table20_path, sizeof(table20_path), "%s%s",
			 PICL_TESTDATA "/../../shared", T20_NAME);
	return access(table20_path, R_OK) == 0;
}

static Suite *stats_suite(int with_table20)
{
	Suite *s = suite_create("stats");
	TCase *tc = tcase_create("accumulate");

	tcase_add_test(tc, test_nesting_and_volumes);
	tcase_add_test(tc, test_nested_same_event);
	tcase_add_test(tc, test_entry_never_exited);
	tcase_add_test(tc, test_marks);
	tcase_add_test(tc, test_relative_windows);
	tcase_add_test(tc, test_nested_relative);
	tcase_add_test(tc, test_unmatched_exit);
	tcase_add_test(tc, test_refused_not_taken);
	tcase_add_test(tc, test_unmatched_deep);
	tcase_add_test(tc, test_window_limit);
	tcase_add_test(tc, test_rounding_scale);
	tcase_add_test(tc, test_exact_sums);
	tcase_add_test(tc, test_many);
	tcase_add_test(tc, test_events_kept);
	suite_add_tcase(s, tc);

	tc = tcase_create("emit");
	tcase_add_test(tc, test_emit_order);
	tcase_add_test(tc, test_emit_host_and_stop);
	tcase_add_test(tc, test_record_pairs);
	suite_add_tcase(s, tc);

	if (with_table20) {
		tc = tcase_create("table20");
		tcase_add_test(tc, test_table20);
		suite_add_tcase(s, tc);
	}
	return s;
}

int main(void)
{
	int have = find_table20();
	SRunner *sr = srunner_create(stats_suite(have));
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	if (failed)
		return EXIT_FAILURE;
	if (!have) {
		printf("SKIP: ../shared absent (%s)\n", table20_path);
		return 77;
	}
	return EXIT_SUCCESS;
}
