/*
 * test-trace.c - Check suite for libpicl's tracing layer (picl-rt/trace.c).
 *
 * The tracing layer is linked with a stand-in communication layer
 * (stub-backend.c: open0, close0, clocksync0, send0, recv0 record the events
 * api.c records, with no transport) and libpicl-trace. The clock is
 * PICL_FAKE_CLOCK (1 us per reading), so runs are reproducible.
 *
 *  - table19: the program of the spec's Table 19, as processor 6 of 8 runs
 *    it, must give Table 20's records one by one (record and event type,
 *    number of fields, descriptor, data; timestamps only by sign, which
 *    clocksync0 decides), then its statistics records: the same records in
 *    the same order with the same pairs, counts and volumes exact, the
 *    -901 volume equal to the bytes written before the statistics;
 *  - a full buffer: flush 1 (-912 entry/exit, nothing lost), 0 (-913 and
 *    detailed tracing stops, statistics keep counting), -1 (overwrite, one
 *    -914, the -901 entry kept, the newest records kept);
 *  - tracemsg is in the file before any flush; tracedata's data types,
 *    and its data filling their buffer (flush 1, 0 and -1, and too large);
 *    pt_count is counted and never written; tracefiles truncates a file
 *    once, at its first open; levels and traceinfo; PICL
 *    events inside collectives only at level 3; zstd part files; the
 *    atexit path (a child that exits without traceexit leaves a complete
 *    part file); a killed process keeps its tracemsg records.
 *
 * Every test runs in its own directory, made in one that main() makes
 * under $TMPDIR and removes at the end. The tracing layer's
 * state is per process (tracefiles' file name, for one, lasts as long as
 * the process), so the suite needs Check's fork mode (the default; not
 * CK_FORK=no): each test starts from a fresh process.
 */
#define _XOPEN_SOURCE 700   /* nftw */
#include "picl.h"
#include "trace.h"

#include <picl-trace.h>
#include "tmp.h"

#include <check.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

/* stub-backend.c */
extern int stub_me, stub_nprocs;
extern double stub_recv_value[2];

#define MAX_RECS 4096
#define MAX_PAIRS 32

struct rec {
	int type, event;
	struct picl_time time;
	unsigned long nfields;
	long alias;            /* -1: inline control */
	char control[32];
	char data[256];        /* the data text, with its leading blank */
	unsigned long offset;  /* byte offset of the record in the file */
	int npairs;
	struct picl_stat_pair pairs[MAX_PAIRS];
};

static struct rec recs[MAX_RECS];
static int nrecs;

/* Read a part file into recs[]. */
static void read_part(const char *path)
{
	struct picl_reader *r;
	struct picl_record in;
	int rc;

	r = picl_reader_open(path, NULL, &rc, NULL);
	ck_assert_msg(r != NULL, "cannot read %s", path);
	nrecs = 0;
	while ((rc = picl_reader_next(r, &in)) == PICL_OK) {
		struct rec *o = &recs[nrecs++];

		ck_assert_int_lt(nrecs, MAX_RECS);
		memset(o, 0, sizeof(*o));
		o->type = in.type;
		o->event = in.event;
		o->time = in.time;
		o->nfields = in.nfields;
		o->alias = in.has_descriptor ? in.alias : -2;
		if (in.control)
			snprintf(o->control, sizeof(o->control), "%.*s",
				 (int)in.control_len, in.control);
		snprintf(o->data, sizeof(o->data), "%.*s", (int)in.data_len, in.data);
		o->offset = in.mark.offset;
		if (in.type <= -101 && in.type >= -103) {
			o->npairs = picl_stats_record_pairs(&in, o->pairs, MAX_PAIRS);
			ck_assert_int_ge(o->npairs, 0);
		}
	}
	ck_assert_int_eq(rc, PICL_END);
	picl_reader_free(r);
}

static void enter_tmpdir(void)
{
	char tmpl[512];

	ck_assert_int_lt(test_tmp_path(tmpl, sizeof(tmpl), "test.XXXXXX"), (int)sizeof(tmpl));
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	ck_assert_int_eq(chdir(tmpl), 0);
	setenv("PICL_FAKE_CLOCK", "1000", 1);
	unsetenv("PICL_TRACE_PART");
	unsetenv("PICL_TRACE_ZSTD");
}

static int count_recs(int type, int event)
{
	int k, n = 0;

	for (k = 0; k < nrecs; k++)
		if (recs[k].type == type && recs[k].event == event)
			n++;
	return n;
}

static const struct rec *find_rec(int type, int event)
{
	int k;

	for (k = 0; k < nrecs; k++)
		if (recs[k].type == type && recs[k].event == event)
			return &recs[k];
	return NULL;
}

/* The value of pair `event` in a statistics record, or -1. */
static double pair_value(const struct rec *r, int event)
{
	int k;

	for (k = 0; k < r->npairs; k++)
		if (r->pairs[k].event == event)
			return r->pairs[k].value;
	return -1;
}

/* ------------------------------------------------------------------------ */
/* Table 19 -> Table 20                                                      */
/* ------------------------------------------------------------------------ */

/* Table 20's event records, timestamps aside (alias -2: no descriptor). */
static const struct {
	int type, event;
	unsigned long nfields;
	long alias;
	const char *data;
	int line;                  /* Table 19's line */
} table20[] = {
	{ -3, -901, 0, -2, "", 6 },
	{ -2, -904, 3, 2, " 1 1 1", 7 },
	{ -3, -902, 1, 2, " 2", 8 },
	{ -4, -902, 0, -2, "", 8 },
	{ -3, -11, 0, -2, "", 9 },
	{ -4, -11, 0, -2, "", 9 },
	{ -3, -903, 0, -2, "", 11 },
	{ -4, -903, 0, -2, "", 11 },
	{ -3, -401, 0, -2, "", 13 },
	{ -4, -401, 0, -2, "", 13 },
	{ -3, 0, 2, 2, " 0 0", 14 },
	{ -3, -52, 1, 2, " 0", 19 },
	{ -4, -52, 3, 2, " 8 0 0", 19 },
	{ -4, 0, 2, 2, " 0 0", 20 },
	{ 0, 0, 1, 5, " 0.000124", 21 },
	{ -3, 1, 2, 2, " 0 0", 23 },
	{ -3, -52, 1, 2, " 1", 29 },
	{ -4, -52, 3, 2, " 8 1 5", 29 },
	{ -3, -21, 3, 2, " 8 1 7", 31 },
	{ -4, -21, 0, -2, "", 31 },
	{ -4, 1, 2, 2, " 0 0", 33 },
	{ 0, 1, 1, 5, " 0.00041", 34 },   /* Table 20: 0.000410 */
	{ -2, -12, 0, -2, "", 36 },
	{ -4, -901, 0, -2, "", 36 },
};

/* Table 20's statistics records: type, event, pairs (event, value; value
 * -1: any positive time). -901's volume is checked separately. */
static const struct {
	int type, event, npairs;
	int pairs[10][2];
} table20_stats[] = {
	{ -101, -1, 7, { { -11, -1 }, { -21, -1 }, { -52, -1 }, { -401, -1 },
			 { -901, -1 }, { -902, -1 }, { -903, -1 } } },
	{ -102, -1, 9, { { -11, 1 }, { -12, 1 }, { -21, 1 }, { -52, 2 }, { -401, 1 },
			 { -901, 1 }, { -902, 1 }, { -903, 1 }, { -904, 1 } } },
	{ -103, -1, 3, { { -21, 8 }, { -52, 16 }, { -901, -1 } } },
	{ -101, -1, 2, { { 0, -1 }, { 1, -1 } } },
	{ -102, -1, 2, { { 0, 1 }, { 1, 1 } } },
	{ -101, 0, 1, { { -52, -1 } } },
	{ -102, 0, 1, { { -52, 1 } } },
	{ -103, 0, 1, { { -52, 8 } } },
	{ -101, 1, 2, { { -21, -1 }, { -52, -1 } } },
	{ -102, 1, 2, { { -21, 1 }, { -52, 1 } } },
	{ -103, 1, 2, { { -21, 8 }, { -52, 8 } } },
};

/* Table 19, lines 6-36, as processor 6 runs it. */
static void run_table19(void)
{
	int numproc, me, host;
	double x;

	tracenode(10000, 0, 0);
	tracelevel(1, 1, 1);
	traceevents(2, 1, 1, 1, 1);
	open0(&numproc, &me, &host);
	if (me == numproc - 2)
		tracefiles("", "trace", 0);

	clocksync0();
	traceblockbegin(0, 0, 0);
	if (me == 0) {
		x = clock0();
		send0((char *)&x, sizeof(double), 0, -1);
	} else {
		recv0((char *)&x, sizeof(double), 0);
	}
	traceblockend(0, 0, 0);
	tracedata(0, 0, "double", 1, &x);

	traceblockbegin(1, 0, 0);
	if (me == 0) {
		x = clock0();
		send0((char *)&x, sizeof(double), 1, me + 1);
	} else {
		recv0((char *)&x, sizeof(double), 1);
		if (me + 1 < numproc)
			send0((char *)&x, sizeof(double), 1, me + 1);
	}
	traceblockend(1, 0, 0);
	tracedata(1, 0, "double", 1, &x);

	close0(0);
}

START_TEST(test_table19)
{
	size_t nev = sizeof(table20) / sizeof(table20[0]);
	size_t nst = sizeof(table20_stats) / sizeof(table20_stats[0]);
	const struct rec *vol;
	size_t k;
	int j, after_sync = 0;

	enter_tmpdir();
	stub_me = 6;
	stub_nprocs = 8;
	stub_recv_value[0] = 0.000124;
	stub_recv_value[1] = 0.00041;
	run_table19();
	ck_assert_int_ne(access("picltrace.6.picl", F_OK), 0);
	read_part("trace");
	ck_assert_int_eq(nrecs, (int)(nev + nst));

	for (k = 0; k < nev; k++) {
		const struct rec *r = &recs[k];

		ck_assert_msg(r->type == table20[k].type && r->event == table20[k].event,
			      "record %zu (line %d): %d %d, expected %d %d", k,
			      table20[k].line, r->type, r->event,
			      table20[k].type, table20[k].event);
		ck_assert_uint_eq(r->nfields, table20[k].nfields);
		ck_assert_int_eq(r->alias, table20[k].alias);
		ck_assert_str_eq(r->data, table20[k].data);
		ck_assert_int_eq(r->time.scale, 6);
		/* Appendix A: everything before the -401 exit is negative. */
		if (after_sync)
			ck_assert_int_ge(r->time.mant, 0);
		else if (!(r->type == -4 && r->event == -401))
			ck_assert_int_lt(r->time.mant, 0);
		if (r->type == -4 && r->event == -401)
			after_sync = 1;
	}

	for (k = 0; k < nst; k++) {
		const struct rec *r = &recs[nev + k];

		ck_assert_msg(r->type == table20_stats[k].type &&
			      r->event == table20_stats[k].event,
			      "statistics record %zu: %d %d, expected %d %d", k,
			      r->type, r->event, table20_stats[k].type,
			      table20_stats[k].event);
		ck_assert_int_eq(r->alias, -1);
		ck_assert_str_eq(r->control, r->type == -101 ? "%d%lf" : "%d%d");
		ck_assert_int_eq(r->npairs, table20_stats[k].npairs);
		ck_assert_uint_eq(r->nfields, (unsigned long)r->npairs);
		ck_assert_int_eq(picl_time_cmp(r->time, recs[nev - 1].time), 0);
		for (j = 0; j < r->npairs; j++) {
			double want = table20_stats[k].pairs[j][1];

			ck_assert_int_eq(r->pairs[j].event, table20_stats[k].pairs[j][0]);
			if (want >= 0)
				ck_assert_double_eq(r->pairs[j].value, want);
			else
				ck_assert_double_gt(r->pairs[j].value, 0);
		}
	}

	/* -901's volume: the bytes written before the statistics. */
	vol = &recs[nev + 2];
	ck_assert_double_eq(pair_value(vol, -901), (double)recs[nev].offset);
	/* -901's time: from its entry to its exit. */
	{
		struct picl_time d;

		ck_assert_int_eq(picl_time_sub(recs[nev - 1].time, recs[0].time, &d), 0);
		ck_assert_double_eq_tol(pair_value(&recs[nev], -901),
					picl_time_to_double(d), 1e-9);
	}
}
END_TEST

/* ------------------------------------------------------------------------ */
/* A full buffer                                                             */
/* ------------------------------------------------------------------------ */

#define SMALL (64 * 72)  /* the smallest buffer: 64 records */

static void blocks(int n)
{
	int k;

	for (k = 0; k < n; k++) {
		traceblockbegin(0, k, 0);
		traceblockend(0, k, 0);
	}
}

/* The -102 -1 record of the user events. */
static const struct rec *user_counts(void)
{
	int k;

	for (k = 0; k < nrecs; k++)
		if (recs[k].type == -102 && recs[k].event == -1 &&
		    recs[k].npairs > 0 && recs[k].pairs[0].event >= 0)
			return &recs[k];
	return NULL;
}

START_TEST(test_full_flush)
{
	const struct rec *r;
	int k, flushes;

	enter_tmpdir();
	setenv("PICL_TRACE_PART", "part.picl", 1);
	tracenode(SMALL, 1, 0);
	pt_attach(3, 4, -1);
	blocks(200);
	traceexit();
	read_part("part.picl");
	ck_assert_int_eq(count_recs(-3, 0), 200);
	ck_assert_int_eq(count_recs(-4, 0), 200);
	flushes = count_recs(-3, -912);
	ck_assert_int_ge(flushes, 6);
	ck_assert_int_eq(count_recs(-4, -912), flushes);
	/* Every -912 exit carries the bytes of its flush, which end with
	 * its entry, and the records are in time order. */
	for (k = 0; k < nrecs; k++) {
		if (k > 0 && recs[k].type > -100)
			ck_assert_int_le(picl_time_cmp(recs[k - 1].time, recs[k].time), 0);
		if (recs[k].type == -4 && recs[k].event == -912)
			ck_assert_int_gt(atol(recs[k].data), 100);
	}
	ck_assert_int_eq(recs[0].type, -3);
	ck_assert_int_eq(recs[0].event, -901);
	r = user_counts();
	ck_assert_ptr_nonnull(r);
	ck_assert_double_eq(pair_value(r, 0), 200);
	r = find_rec(-102, -1);
	ck_assert_double_eq(pair_value(r, -912), flushes);
	r = find_rec(-103, -1);
	ck_assert_double_gt(pair_value(r, -912), 0);
}
END_TEST

START_TEST(test_full_stop)
{
	const struct rec *r;
	int entries, remaining;

	enter_tmpdir();
	setenv("PICL_TRACE_PART", "part.picl", 1);
	tracenode(SMALL, 0, 0);
	pt_attach(3, 4, -1);
	blocks(200);
	traceinfo(&remaining, NULL, NULL, NULL);
	ck_assert_int_eq(remaining, 0);
	traceexit();
	read_part("part.picl");
	entries = count_recs(-3, 0);
	ck_assert_int_lt(entries, 40);
	ck_assert_int_gt(entries, 25);
	ck_assert_int_eq(count_recs(-2, -913), 1);
	ck_assert_int_eq(count_recs(-3, -912), 0);
	/* The mark follows the last buffered record; then the -901 exit. */
	r = find_rec(-2, -913);
	ck_assert_int_eq((r + 1)->type, -4);
	ck_assert_int_eq((r + 1)->event, -901);
	/* The statistics kept counting. */
	r = user_counts();
	ck_assert_double_eq(pair_value(r, 0), 200);
	r = find_rec(-102, -1);
	ck_assert_double_eq(pair_value(r, -913), 1);
}
END_TEST

START_TEST(test_full_ring)
{
	const struct rec *r;
	int k;

	enter_tmpdir();
	setenv("PICL_TRACE_PART", "part.picl", 1);
	tracenode(SMALL, -1, 0);
	pt_attach(3, 4, -1);
	blocks(200);
	traceexit();
	read_part("part.picl");
	ck_assert_int_eq(recs[0].type, -3);
	ck_assert_int_eq(recs[0].event, -901);
	ck_assert_int_eq(count_recs(-2, -914), 1);
	ck_assert_int_eq(count_recs(-3, 0), 32);
	/* The newest blocks are there, in order. */
	for (k = 0; k < nrecs; k++)
		if (recs[k].type == -4 && recs[k].event == -901)
			break;
	ck_assert_int_lt(k, nrecs);
	ck_assert_str_eq(recs[k - 1].data, " 199 0");
	ck_assert_int_eq(recs[k - 1].type, -4);
	for (k = 1; recs[k].type > -100; k++)
		ck_assert_int_le(picl_time_cmp(recs[k - 1].time, recs[k].time), 0);
	r = user_counts();
	ck_assert_double_eq(pair_value(r, 0), 200);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* tracemsg, tracedata, pt_count, traceinfo                                  */
/* ------------------------------------------------------------------------ */

START_TEST(test_tracemsg_at_once)
{
	const struct rec *r;
	int k;

	enter_tmpdir();
	setenv("PICL_TRACE_PART", "part.picl", 1);
	tracenode(100000, 1, 0);
	pt_attach(2, 4, -1);
	blocks(3);
	tracemsg("hello,  world\n");
	/* On disk now, before any flush, after what was buffered (the -901
	 * entry and three blocks), so the part stays in time order. */
	read_part("part.picl");
	ck_assert_int_eq(nrecs, 1 + 6 + 3);
	ck_assert_int_eq(recs[0].event, -901);
	ck_assert_int_eq(count_recs(-3, 0), 3);
	ck_assert_int_eq(recs[7].type, -3);
	ck_assert_int_eq(recs[7].event, -911);
	ck_assert_str_eq(recs[7].data, " 14");
	ck_assert_int_eq(recs[8].type, -7);
	ck_assert_int_eq(recs[8].event, -911);
	ck_assert_int_eq(recs[8].alias, 0);
	ck_assert_uint_eq(recs[8].nfields, 14);
	ck_assert_str_eq(recs[8].data, " hello,  world ");
	ck_assert_int_eq(recs[9].type, -4);
	ck_assert_int_eq(recs[9].event, -911);
	for (k = 1; k < nrecs; k++)
		ck_assert_int_le(picl_time_cmp(recs[k - 1].time, recs[k].time), 0);
	traceexit();
	read_part("part.picl");
	ck_assert_int_eq(count_recs(-3, -911), 1);
	ck_assert_int_eq(count_recs(-3, 0), 3);
	r = find_rec(-102, -1);
	ck_assert_double_eq(pair_value(r, -911), 1);
	r = find_rec(-103, -1);
	ck_assert_double_eq(pair_value(r, -911), 14);
	ck_assert_double_eq(pair_value(r, -901), (double)find_rec(-101, -1)->offset);
}
END_TEST

START_TEST(test_tracedata_types)
{
	char chars[] = "a b";
	short s[2] = { -3, 4 };
	int i[3] = { 1, -2, 3 };
	long l = 1L << 40;
	float f[2] = { 0.1f, 2.5f };
	double d = -1.25;

	enter_tmpdir();
	setenv("PICL_TRACE_PART", "part.picl", 1);
	tracenode(100000, 1, 0);
	pt_attach(2, 4, -1);
	tracedata(1, 5, "char", 3, chars);
	tracedata(2, 5, "short", 2, s);
	tracedata(3, 5, "int", 3, i);
	tracedata(4, 5, "long", 1, &l);
	tracedata(5, 5, "float", 2, f);
	tracedata(6, 5, "double", 1, &d);
	tracedata(7, 5, "2", 1, i);
	tracedata(8, 5, "complex", 1, &d);  /* not a type: ignored */
	traceexit();
	read_part("part.picl");
	ck_assert_int_eq(count_recs(5, 8), 0);
	ck_assert_int_eq(find_rec(5, 1)->alias, 0);
	ck_assert_str_eq(find_rec(5, 1)->data, " a b");
	ck_assert_int_eq(find_rec(5, 2)->alias, 2);
	ck_assert_str_eq(find_rec(5, 2)->data, " -3 4");
	ck_assert_str_eq(find_rec(5, 3)->data, " 1 -2 3");
	ck_assert_int_eq(find_rec(5, 4)->alias, 3);
	ck_assert_str_eq(find_rec(5, 4)->data, " 1099511627776");
	ck_assert_int_eq(find_rec(5, 5)->alias, 4);
	ck_assert_str_eq(find_rec(5, 5)->data, " 0.1 2.5");
	ck_assert_int_eq(find_rec(5, 6)->alias, 5);
	ck_assert_str_eq(find_rec(5, 6)->data, " -1.25");
	ck_assert_str_eq(find_rec(5, 7)->data, " 1");
	ck_assert_uint_eq(find_rec(5, 3)->nfields, 3);
}
END_TEST

/* No data: a record without values, also with no buffer (NULL) and no
 * data area yet (it once passed NULL to memcpy, which UBSan stops). */
START_TEST(test_tracedata_empty)
{
	int i = 7;

	enter_tmpdir();
	setenv("PICL_TRACE_PART", "part.picl", 1);
	tracenode(100000, 1, 0);
	pt_attach(2, 4, -1);
	tracedata(1, 5, "char", 0, NULL);
	tracedata(2, 5, "int", 0, NULL);
	tracedata(3, 5, "int", 1, &i);
	tracedata(4, 5, "double", 0, NULL);
	traceexit();
	read_part("part.picl");
	ck_assert_uint_eq(find_rec(5, 1)->nfields, 0);
	ck_assert_uint_eq(find_rec(5, 2)->nfields, 0);
	ck_assert_str_eq(find_rec(5, 3)->data, " 7");
	ck_assert_uint_eq(find_rec(5, 4)->nfields, 0);
}
END_TEST

/* tracedata's data has a buffer of its own (at least 64 KiB): when it is
 * full, the data are flushed with the records (flush 1), or detailed
 * tracing stops (flush 0); data larger than the whole buffer are kept,
 * alone in it (they were left out without a word). */
static void data_blocks(int nblocks)
{
	static int v[2000];
	int k, i;

	for (k = 0; k < nblocks; k++) {
		for (i = 0; i < 2000; i++)
			v[i] = k * 10000 + i;
		tracedata(9, 5, "int", 2000, v);   /* 8000 bytes */
	}
}

START_TEST(test_tracedata_full_flush)
{
	static int big[20000];
	char want[64];
	int k, n = 0;

	enter_tmpdir();
	setenv("PICL_TRACE_PART", "part.picl", 1);
	tracenode(SMALL, 1, 0);
	pt_attach(3, 4, -1);
	data_blocks(40);                        /* 320,000 bytes of data */
	tracedata(10, 5, "int", 20000, big);    /* 80,000: more than the buffer */
	traceexit();
	read_part("part.picl");
	ck_assert_int_ge(count_recs(-3, -912), 2);
	ck_assert_int_eq(count_recs(5, 10), 1);
	ck_assert_uint_eq(find_rec(5, 10)->nfields, 20000);
	for (k = 0; k < nrecs; k++) {
		if (recs[k].type != 5 || recs[k].event != 9)
			continue;
		ck_assert_uint_eq(recs[k].nfields, 2000);
		snprintf(want, sizeof(want), " %d %d ", n * 10000, n * 10000 + 1);
		ck_assert_msg(strncmp(recs[k].data, want, strlen(want)) == 0,
			      "data block %d: %.40s", n, recs[k].data);
		n++;
	}
	ck_assert_int_eq(n, 40);
}
END_TEST

START_TEST(test_tracedata_full_stop)
{
	int n;

	enter_tmpdir();
	setenv("PICL_TRACE_PART", "part.picl", 1);
	tracenode(SMALL, 0, 0);
	pt_attach(3, 4, -1);
	data_blocks(40);
	traceexit();
	read_part("part.picl");
	n = count_recs(5, 9);
	ck_assert_int_gt(n, 0);
	ck_assert_int_lt(n, 40);
	ck_assert_int_eq(count_recs(-2, -913), 1);
	ck_assert_int_eq(count_recs(-3, -912), 0);
}
END_TEST

/* A ring (flush -1) overwrites the oldest records, data and all: the
 * newest tracedata records are kept when the data fill their buffer (it
 * once stopped taking data there, the newest records were lost). */
START_TEST(test_tracedata_full_ring)
{
	char want[64];
	int k, n = 0, first = -1;

	enter_tmpdir();
	setenv("PICL_TRACE_PART", "part.picl", 1);
	tracenode(SMALL, -1, 0);
	pt_attach(3, 4, -1);
	data_blocks(40);                        /* 320,000 bytes of data */
	traceexit();
	read_part("part.picl");
	ck_assert_int_eq(count_recs(-2, -914), 1);
	for (k = 0; k < nrecs; k++) {
		if (recs[k].type != 5 || recs[k].event != 9)
			continue;
		if (first < 0)
			first = atoi(recs[k].data) / 10000;
		ck_assert_uint_eq(recs[k].nfields, 2000);
		snprintf(want, sizeof(want), " %d %d ", (first + n) * 10000,
			 (first + n) * 10000 + 1);
		ck_assert_msg(strncmp(recs[k].data, want, strlen(want)) == 0,
			      "data block %d: %.40s", first + n, recs[k].data);
		n++;
	}
	/* 64 KiB of data hold 8 blocks: the newest ones, up to the last. */
	ck_assert_int_ge(n, 7);
	ck_assert_int_eq(first + n, 40);
}
END_TEST

/* tracefiles to a, to b, back to a: a is truncated once, on its first
 * open (a file left from before is emptied), and then appended to (the
 * way back once truncated a again, losing its -901 entry). */
START_TEST(test_tracefiles_back)
{
	FILE *f;

	enter_tmpdir();
	f = fopen("a.picl", "w");
	ck_assert_ptr_nonnull(f);
	fputs("-2 77 1.0 2 0 0\n", f);
	fclose(f);
	tracenode(100000, 1, 0);
	pt_attach(2, 4, -1);
	tracefiles("", "a.picl", 0);
	tracemark(1);
	traceflush();
	tracefiles("", "b.picl", 0);
	tracemark(2);
	traceflush();
	tracefiles("", "a.picl", 0);
	tracemark(3);
	traceflush();
	tracefiles("", "b.picl", 0);
	traceexit();
	read_part("a.picl");
	ck_assert_int_eq(recs[0].type, -3);
	ck_assert_int_eq(recs[0].event, -901);
	ck_assert_int_eq(count_recs(-2, 77), 0);
	ck_assert_int_eq(count_recs(-2, 1), 1);
	ck_assert_int_eq(count_recs(-2, 3), 1);
	read_part("b.picl");
	ck_assert_int_eq(count_recs(-2, 2), 1);
	ck_assert_int_eq(count_recs(-4, -901), 1);
}
END_TEST

START_TEST(test_count_only)
{
	const struct rec *r;
	int k;

	enter_tmpdir();
	setenv("PICL_TRACE_PART", "part.picl", 1);
	tracenode(SMALL, 1, 0);
	pt_attach(2, 4, -1);
	traceblockbegin(4, 0, 0);
	for (k = 0; k < 1000; k++)
		pt_count(-54);
	pt_count(-53);
	traceblockend(4, 0, 0);
	traceexit();
	read_part("part.picl");
	ck_assert_int_eq(count_recs(-2, -54), 0);
	ck_assert_int_eq(count_recs(-3, -912), 0); /* merged: no flush */
	r = find_rec(-102, -1);
	ck_assert_double_eq(pair_value(r, -54), 1000);
	ck_assert_double_eq(pair_value(r, -53), 1);
	r = find_rec(-102, 4);
	ck_assert_ptr_nonnull(r);
	ck_assert_double_eq(pair_value(r, -54), 1000);
}
END_TEST

START_TEST(test_levels_and_info)
{
	int rem, p, u, t, rem2;

	enter_tmpdir();
	setenv("PICL_TRACE_PART", "part.picl", 1);
	tracelevel(2, 0, 1);           /* before tracenode: no record */
	ck_assert_int_eq(pt_on(PT_PICL), 0);
	tracenode(SMALL, 1, 0);
	pt_attach(1, 4, -1);
	traceinfo(&rem, &p, &u, &t);
	ck_assert_int_eq(p, 2);
	ck_assert_int_eq(u, 0);
	ck_assert_int_eq(t, 1);
	ck_assert_int_eq(pt_on(PT_PICL), 1);
	ck_assert_int_eq(pt_on(PT_USER), 0);
	blocks(5);                     /* user level 0: not recorded */
	pt_mark(PT_PICL, -12, 0, NULL);
	traceinfo(&rem2, NULL, NULL, NULL);
	/* the mark, and the first traceinfo's -905 count (a record each) */
	ck_assert_int_eq(rem - rem2, 2 * 72);
	traceexit();
	ck_assert_int_eq(pt_on(PT_PICL), 0);
	read_part("part.picl");
	ck_assert_int_eq(count_recs(-3, 0), 0);
	ck_assert_int_eq(count_recs(-2, -12), 1);
	ck_assert_int_eq(count_recs(-2, -904), 0);
	ck_assert_int_eq(count_recs(-2, -905), 0);      /* counted only */
	ck_assert_double_eq(pair_value(find_rec(-102, -1), -905), 2);
}
END_TEST

START_TEST(test_collective_insides)
{
	int64_t v[3] = { 8, 5, 1 };

	enter_tmpdir();
	setenv("PICL_TRACE_PART", "part.picl", 1);
	tracenode(SMALL, 1, 0);
	pt_attach(0, 2, -1);
	pt_collective_depth = 1;       /* inside a collective, level 1 */
	ck_assert_int_eq(pt_on(PT_PICL), 0);
	pt_entry(PT_PICL, -21, 3, v);
	pt_exit(PT_PICL, -21, 0, NULL);
	pt_count(-55);
	tracelevel(3, 1, 1);           /* level 3: recorded */
	ck_assert_int_eq(pt_on(PT_PICL), 1);
	pt_entry(PT_PICL, -21, 3, v);
	pt_exit(PT_PICL, -21, 0, NULL);
	pt_collective_depth = 0;
	tracelevel(1, 1, 1);
	pt_entry(PT_PICL, -21, 3, v);
	pt_exit(PT_PICL, -21, 0, NULL);
	traceexit();
	read_part("part.picl");
	ck_assert_int_eq(count_recs(-3, -21), 2);
	ck_assert_double_eq(pair_value(find_rec(-102, -1), -55), -1);
}
END_TEST

START_TEST(test_zstd)
{
	enter_tmpdir();
	setenv("PICL_TRACE_PART", "part.picl.zst", 1);
	setenv("PICL_TRACE_ZSTD", "1", 1);
	tracenode(SMALL, 1, 0);
	pt_attach(1, 4, -1);
	blocks(100);
	tracemsg("compressed");
	traceexit();
	read_part("part.picl.zst");
	ck_assert_int_eq(count_recs(-3, 0), 100);
	ck_assert_int_eq(count_recs(-7, -911), 1);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* A process that exits without traceexit                                    */
/* ------------------------------------------------------------------------ */

START_TEST(test_atexit)
{
	int status;
	pid_t pid;

	enter_tmpdir();
	setenv("PICL_TRACE_PART", "child.picl", 1);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		tracenode(100000, 1, 0);
		pt_attach(5, 8, -1);
		blocks(10);
		exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	read_part("child.picl");
	ck_assert_int_eq(recs[0].event, -901);
	ck_assert_int_eq(count_recs(-3, 0), 10);
	ck_assert_int_eq(count_recs(-4, -901), 1);
	ck_assert_ptr_nonnull(find_rec(-101, -1));
	/* The statistics end with the user events' counts. */
	ck_assert_int_eq(recs[nrecs - 1].type, -102);
	ck_assert_int_eq(recs[nrecs - 1].event, -1);
	ck_assert_double_eq(pair_value(&recs[nrecs - 1], 0), 10);
}
END_TEST

START_TEST(test_killed_keeps_messages)
{
	int status;
	pid_t pid;

	enter_tmpdir();
	setenv("PICL_TRACE_PART", "child.picl", 1);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		tracenode(100000, 1, 0);
		pt_attach(5, 8, -1);
		blocks(10);
		tracemsg("about to die");
		kill(getpid(), SIGKILL);
		_exit(1);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFSIGNALED(status));
	/* the message survives, and what came before it (the buffer is
	 * written first): the -901 entry, 10 blocks, the message */
	read_part("child.picl");
	ck_assert_int_eq(nrecs, 1 + 20 + 3);
	ck_assert_int_eq(count_recs(-3, 0), 10);
	ck_assert_str_eq(recs[nrecs - 2].data, " about to die");
}
END_TEST

/* ------------------------------------------------------------------------ */
/* The clock                                                                 */
/* ------------------------------------------------------------------------ */

/* PICL_FAKE_CLOCK as the process started: trace.c's constructor read it. */
static int fake_at_start;

/* 1 if trace.c stamps with the TSC (its tsc_usable), unfaked. */
static int tsc_path(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	const char *env = getenv("PICL_TRACE_CLOCK");

	if (fake_at_start || (env && strcmp(env, "monotonic") == 0))
		return 0;
	if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007)
		return 0;
	__get_cpuid(0x80000007, &a, &b, &c, &d);
	return (d >> 8) & 1;
#else
	return 0;
#endif
}

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	ck_assert_int_eq(clock_gettime(id, &ts), 0);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sleep_ns(long ns)
{
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };

	while (nanosleep(&ts, &ts) < 0)
		;
}

/* A written time in microseconds (the writer's 6 decimals). */
static int64_t time_us(const struct rec *r)
{
	ck_assert_int_eq(r->time.scale, 6);
	return r->time.mant;
}

/* Starting to trace costs no spin: with the TSC, a first calibration point
 * only (it spun 1 ms of CPU to measure a rate, in every process). Thread
 * CPU time does not count waiting for a loaded machine; the bound is half
 * that ms: tracenode took ~60 us here, ~180 us with AddressSanitizer (the
 * buffer's mapping, the descriptors, the accumulator). */
START_TEST(test_clock_start_cheap)
{
	int64_t cpu;
	int k;

	enter_tmpdir();
	unsetenv("PICL_FAKE_CLOCK");
	setenv("PICL_TRACE_PART", "part.picl", 1);
	cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	tracenode(SMALL, 1, 0);
	blocks(1);
	cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu;
	if (tsc_path())
		ck_assert_msg(cpu < 500000, "tracenode and a first record took %lld ns"
			      " of CPU", (long long)cpu);
	else
		fprintf(stderr, "test_clock_start_cheap: no TSC stamps here (%lld ns"
			" of CPU), the bound is not checked\n", (long long)cpu);
	traceexit();
	read_part("part.picl");
	ck_assert_int_eq(count_recs(-3, 0), 1);
	for (k = 1; k < nrecs; k++)
		ck_assert_int_le(picl_time_cmp(recs[k - 1].time, recs[k].time), 0);
}
END_TEST

/* Stamps converted early (a calibration segment of microseconds): the
 * -911 records tracemsg writes at once in a ring (after the ring's
 * records), 0 to 30 ms after the start, each within CLOCK_MONOTONIC's readings
 * around its call (1 us rounding, 1 us of slack), in order; and the time
 * a stopped buffer's statistics give a block of 5 ms. */
/* tracemsg in a ring after each of gap[0..n) ns, the part holding
 * `first` records before: each -911 entry lies within the clock readings
 * around its call, in order, before its exit. The first tracemsg also
 * writes what the ring holds (its -901 entry, or the -912 exit of a
 * flush before), the others only their own three records. */
static void tracemsgs_in_time(const long *gap, size_t n, int first)
{
	int64_t before, after, prev = INT64_MIN, t;
	const struct rec *r;
	size_t k;

	for (k = 0; k < n; k++) {
		sleep_ns(gap[k]);
		before = clock_ns(CLOCK_MONOTONIC);
		tracemsg("m");
		after = clock_ns(CLOCK_MONOTONIC);
		read_part("part.picl");
		ck_assert_int_eq(nrecs, first + 1 + 3 * ((int)k + 1));
		r = &recs[nrecs - 3];
		ck_assert_int_eq(r->type, -3);
		ck_assert_int_eq(r->event, -911);
		t = time_us(r);
		ck_assert_msg(t >= before / 1000 - 1 && t <= (after + 999) / 1000 + 1,
			      "tracemsg %zu: %lld us, not in [%lld, %lld]", k, (long long)t,
			      (long long)(before / 1000), (long long)(after / 1000));
		ck_assert_int_ge(t, prev);
		ck_assert_int_le(t, time_us(&recs[nrecs - 1]));
		prev = t;
	}
}

START_TEST(test_early_stamps)
{
	static const long gap[] = { 0, 0, 20000, 300000, 3000000, 30000000 };
	int i;
	double v = -1;

	enter_tmpdir();
	unsetenv("PICL_FAKE_CLOCK");
	setenv("PICL_TRACE_PART", "part.picl", 1);
	tracenode(SMALL, -1, 0);
	pt_attach(1, 4, -1);
	tracemsgs_in_time(gap, sizeof(gap) / sizeof(gap[0]), 0);
	traceexit();

	/* flush 0: the 64 records fill, the blocks after are converted for
	 * the statistics only, before any flush */
	tracenode(SMALL, 0, 0);
	blocks(40);
	traceblockbegin(7, 0, 0);
	sleep_ns(5000000);
	traceblockend(7, 0, 0);
	traceexit();
	read_part("part.picl");
	ck_assert_int_eq(count_recs(-2, -913), 1);
	ck_assert_int_eq(count_recs(-3, 7), 0);
	for (i = 0; i < nrecs; i++)
		if (recs[i].type == -101 && (v = pair_value(&recs[i], 7)) >= 0)
			break;
	ck_assert_msg(v >= 0.005 && v < 0.5, "block of 5 ms: %g s", v);
}
END_TEST

/*
 * The same after a flush right at the start: its calibration segment is
 * a few microseconds long, and the records converted before the next
 * flush (tracemsg in a ring) lie up to 30 ms past it. Extrapolated with
 * that short segment's rate they drifted by its error times the distance
 * (hundreds of microseconds); measured again as the distance doubles,
 * each stays within the clock readings around its call.
 */
START_TEST(test_stamps_after_early_flush)
{
	static const long gap[] = { 0, 20000, 300000, 3000000, 30000000 };

	enter_tmpdir();
	unsetenv("PICL_FAKE_CLOCK");
	setenv("PICL_TRACE_PART", "part.picl", 1);
	tracenode(SMALL, -1, 0);
	pt_attach(1, 4, -1);
	traceflush();
	read_part("part.picl");
	tracemsgs_in_time(gap, sizeof(gap) / sizeof(gap[0]), nrecs);
	traceexit();
}
END_TEST

static Suite *trace_suite(void)
{
	Suite *s = suite_create("trace");
	TCase *tc;

	tc = tcase_create("table19");
	tcase_add_test(tc, test_table19);
	suite_add_tcase(s, tc);

	tc = tcase_create("full");
	tcase_add_test(tc, test_full_flush);
	tcase_add_test(tc, test_full_stop);
	tcase_add_test(tc, test_full_ring);
	suite_add_tcase(s, tc);

	tc = tcase_create("calls");
	tcase_add_test(tc, test_tracemsg_at_once);
	tcase_add_test(tc, test_tracedata_types);
	tcase_add_test(tc, test_tracedata_empty);
	tcase_add_test(tc, test_tracedata_full_flush);
	tcase_add_test(tc, test_tracedata_full_stop);
	tcase_add_test(tc, test_tracedata_full_ring);
	tcase_add_test(tc, test_tracefiles_back);
	tcase_add_test(tc, test_count_only);
	tcase_add_test(tc, test_levels_and_info);
	tcase_add_test(tc, test_collective_insides);
	tcase_add_test(tc, test_zstd);
	suite_add_tcase(s, tc);

	tc = tcase_create("clock");
	tcase_add_test(tc, test_clock_start_cheap);
	tcase_add_test(tc, test_early_stamps);
	tcase_add_test(tc, test_stamps_after_early_flush);
	suite_add_tcase(s, tc);

	tc = tcase_create("exit");
	tcase_add_test(tc, test_atexit);
	tcase_add_test(tc, test_killed_keeps_messages);
	suite_add_tcase(s, tc);
	return s;
}

static int remove_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) < 0 ? -1 : 0;
}

/* Every test works in a directory of its own (enter_tmpdir), made in one
 * directory that goes away with all it holds once the tests have run,
 * whether they passed or not. */
int main(void)
{
	char top[400];
	SRunner *sr = srunner_create(trace_suite());
	int failed;

	if (test_tmp_path(top, sizeof(top), "test-trace.XXXXXX") >= (int)sizeof(top) ||
	    !mkdtemp(top)) {
		perror(top);
		return EXIT_FAILURE;
	}
	setenv("TMPDIR", top, 1);
	fake_at_start = getenv("PICL_FAKE_CLOCK") && atoll(getenv("PICL_FAKE_CLOCK")) > 0;
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	if (chdir("/") < 0 ||
	    nftw(top, remove_one, 16, FTW_DEPTH | FTW_PHYS) < 0) {
		perror(top);
		failed = 1;
	}
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
