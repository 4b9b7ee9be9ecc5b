/*
 * test-clock.c - the clock estimator of `picltrace sync` (sort-merge/clock.c)
 * on synthetic message sets whose true offsets and drifts are known:
 * recovery within tolerance, composition along chains, separate groups,
 * processors without messages, one-way links, synchronisations (folded a
 * round at a time, in bounded memory), the final shift, inconsistent
 * constraints and call-order errors.
 *
 * Ground truth: processor p's clock reads  T + a_p + b_p * T  at true time T
 * (processor 0: a = b = 0). The correction that brings it back is
 * offset = -a/(1+b), drift = -b/(1+b).
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "clock.h"

struct truth {
	double a[8], b[8];
};

static uint64_t rng_state;

static double uniform(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (double)(rng_state >> 11) / 9007199254740992.0;
}

/* A latency: at least `min`, exponential tail of mean `mean`. */
static double latency(double min, double mean)
{
	return min - mean * log(1.0 - uniform());
}

static double local(const struct truth *t, int p, double T)
{
	return T + t->a[p] + t->b[p] * T;
}

static void send_msg(struct clock_estimator *ce, const struct truth *t, int src, int dst,
		     double T, double lat)
{
	ck_assert_int_eq(clock_estimator_message(ce, src, local(t, src, T), dst,
						 local(t, dst, T + lat)), 0);
}

/* |corrected local time - true time| at T, for processor p. */
static double error_at(const struct clock_estimator *ce, const struct truth *t, int p, double T)
{
	const struct clock_result *r = clock_estimator_find(ce, p);
	double x = local(t, p, T);

	ck_assert_ptr_nonnull(r);
	return fabs(x + clock_result_correction(r, x) - T);
}

static struct clock_options defaults(void)
{
	struct clock_options o;

	o.min_latency = 0;
	o.max_drift = 100e-6;
	o.no_drift = 0;
	o.reference = -1;
	return o;
}

START_TEST(offset_two_processors)
{
	struct truth t = { { 0, -0.005 }, { 0, 0 } };
	struct clock_estimator *ce = clock_estimator_new();
	struct clock_options o = defaults();
	const struct clock_result *r;
	int i;

	rng_state = 42;
	for (i = 0; i < 500; i++) {
		double T = 10.0 * i / 500;

		send_msg(ce, &t, 0, 1, T, latency(20e-6, 30e-6));
		send_msg(ce, &t, 1, 0, T + 0.001, latency(20e-6, 30e-6));
	}
	ck_assert_int_eq(clock_estimator_solve(ce, &o), 0);
	ck_assert_int_eq(clock_estimator_reference(ce), 0);
	ck_assert_uint_eq(clock_estimator_messages(ce), 1000);
	r = clock_estimator_find(ce, 0);
	ck_assert_int_eq(r->status, CLOCK_REFERENCE);
	ck_assert(r->offset == 0 && r->drift == 0);
	r = clock_estimator_find(ce, 1);
	ck_assert_int_eq(r->status, CLOCK_TWO_WAY);
	ck_assert_int_eq(r->parent, 0);
	ck_assert_uint_eq(r->sent, 500);
	ck_assert_uint_eq(r->received, 500);
	ck_assert_msg(fabs(r->offset - 0.005) < 2e-6, "offset %.9f", r->offset);
	ck_assert_msg(fabs(r->drift) < 1e-6, "drift %.3g", r->drift);
	ck_assert_msg(r->uncertainty > 0 && r->uncertainty < 40e-6, "uncertainty %g",
		      r->uncertainty);
	ck_assert_uint_eq(r->flags & CLOCK_F_INCONSISTENT, 0);
	clock_estimator_free(ce);
}
END_TEST

/* Four drifting clocks, messages between random pairs over 100 s; enough
 * of them that the hulls are folded many times. */
START_TEST(offset_and_drift_four_processors)
{
	struct truth t = { { 0, 0.003, -0.002, 0.010 }, { 0, 50e-6, -30e-6, 10e-6 } };
	struct clock_estimator *ce = clock_estimator_new();
	struct clock_options o = defaults();
	int i, p;

	rng_state = 7;
	for (i = 0; i < 40000; i++) {
		int src = (int)(uniform() * 4), dst = (int)(uniform() * 4);

		if (src == dst)
			continue;
		send_msg(ce, &t, src, dst, 100.0 * uniform(), latency(10e-6, 50e-6));
	}
	ck_assert_int_eq(clock_estimator_solve(ce, &o), 0);
	for (p = 1; p < 4; p++) {
		const struct clock_result *r = clock_estimator_find(ce, p);
		double want_o = -t.a[p] / (1 + t.b[p]), want_d = -t.b[p] / (1 + t.b[p]);

		ck_assert_msg(fabs(r->offset - want_o) < 3e-6, "p%d offset %.9f want %.9f", p,
			      r->offset, want_o);
		ck_assert_msg(fabs(r->drift - want_d) < 0.2e-6, "p%d drift %.4g want %.4g", p,
			      r->drift, want_d);
		ck_assert(error_at(ce, &t, p, 0) < 5e-6);
		ck_assert(error_at(ce, &t, p, 50) < 5e-6);
		ck_assert(error_at(ce, &t, p, 100) < 5e-6);
		ck_assert_uint_eq(r->flags & (CLOCK_F_DRIFT_UNDETERMINED | CLOCK_F_INCONSISTENT), 0);
	}
	clock_estimator_free(ce);
}
END_TEST

START_TEST(no_drift_option)
{
	struct truth t = { { 0, 0.001 }, { 0, 20e-6 } };
	struct clock_estimator *ce = clock_estimator_new();
	struct clock_options o = defaults();
	const struct clock_result *r;
	int i;

	rng_state = 3;
	for (i = 0; i < 200; i++) {
		send_msg(ce, &t, 0, 1, i * 0.01, latency(10e-6, 10e-6));
		send_msg(ce, &t, 1, 0, i * 0.01 + 0.005, latency(10e-6, 10e-6));
	}
	o.no_drift = 1;
	ck_assert_int_eq(clock_estimator_solve(ce, &o), 0);
	r = clock_estimator_find(ce, 1);
	ck_assert(r->drift == 0);
	/* the middle of the 2 s, where a constant fits best */
	ck_assert_msg(error_at(ce, &t, 1, 1.0) < 30e-6, "error %g", error_at(ce, &t, 1, 1.0));
	clock_estimator_free(ce);
}
END_TEST

/* One message each way bounds no drift: offset only, flagged. The same
 * numbers as the hand-made trace of t/e2e/0400-sync.sh. */
START_TEST(drift_undetermined_by_two_messages)
{
	struct clock_estimator *ce = clock_estimator_new();
	struct clock_options o = defaults();
	const struct clock_result *r;

	ck_assert_int_eq(clock_estimator_message(ce, 0, 0.010, 2, 0.0051), 0);
	ck_assert_int_eq(clock_estimator_message(ce, 2, 0.015, 0, 0.0201), 0);
	ck_assert_int_eq(clock_estimator_solve(ce, &o), 0);
	r = clock_estimator_find(ce, 2);
	ck_assert(r->drift == 0);
	ck_assert_msg(fabs(r->offset - 0.005) < 1e-12, "offset %.12f", r->offset);
	/* half the room (0.1 ms), plus what drifts within +-100 ppm could add
	 * over the 9.9 ms the points span: 100e-6 * 9.9e-3 / 2 */
	ck_assert_msg(fabs(r->uncertainty - 0.000100495) < 1e-12, "uncertainty %.12g",
		      r->uncertainty);
	ck_assert_uint_eq(r->flags, CLOCK_F_DRIFT_UNDETERMINED);
	clock_estimator_free(ce);
}
END_TEST

START_TEST(alone_and_one_way)
{
	struct clock_estimator *ce = clock_estimator_new();
	struct clock_options o = defaults();
	const struct clock_result *r;

	ck_assert_int_eq(clock_estimator_processor(ce, 5), 0);
	ck_assert_int_eq(clock_estimator_processor(ce, -1), 0);   /* ignored */
	/* 0 <-> 1 both ways, consistent clocks */
	ck_assert_int_eq(clock_estimator_message(ce, 0, 1.0, 1, 1.1), 0);
	ck_assert_int_eq(clock_estimator_message(ce, 1, 2.0, 0, 2.1), 0);
	/* 3 only receives from 1, 2 ms too early; 4 only sends, in order */
	ck_assert_int_eq(clock_estimator_message(ce, 1, 3.0, 3, 2.998), 0);
	ck_assert_int_eq(clock_estimator_message(ce, 4, 3.0, 1, 3.5), 0);
	/* within one processor: ignored */
	ck_assert_int_eq(clock_estimator_message(ce, 1, 3.0, 1, 2.0), 0);
	ck_assert_int_eq(clock_estimator_solve(ce, &o), 0);
	ck_assert_uint_eq(clock_estimator_count(ce), 5);
	r = clock_estimator_find(ce, 5);
	ck_assert_int_eq(r->status, CLOCK_ALONE);
	ck_assert(r->offset == 0 && r->drift == 0 && r->parent == -1);
	r = clock_estimator_find(ce, 3);
	ck_assert_int_eq(r->status, CLOCK_ONE_WAY);
	ck_assert_int_eq(r->parent, 1);
	ck_assert(r->uncertainty < 0);
	ck_assert_msg(fabs(r->offset - 0.002) < 1e-12, "offset %.12f", r->offset);
	r = clock_estimator_find(ce, 4);
	ck_assert_int_eq(r->status, CLOCK_ONE_WAY);
	ck_assert(r->offset == 0);
	ck_assert_ptr_null(clock_estimator_find(ce, 6));
	ck_assert_uint_eq(clock_estimator_messages(ce), 4);
	/* results come by increasing processor */
	ck_assert_int_eq(clock_estimator_result(ce, 0)->processor, 0);
	ck_assert_int_eq(clock_estimator_result(ce, 4)->processor, 5);
	ck_assert_ptr_null(clock_estimator_result(ce, 5));
	clock_estimator_free(ce);
}
END_TEST

/* 0 - 1 - 2 in a chain: 2 is reached through 1 and its corrections are
 * composed; a longer direct link of poor quality is not preferred. */
START_TEST(chain_composition)
{
	struct truth t = { { 0, 0.004, -0.007 }, { 0, 40e-6, -25e-6 } };
	struct clock_estimator *ce = clock_estimator_new();
	struct clock_options o = defaults();
	const struct clock_result *r;
	int i;

	rng_state = 11;
	for (i = 0; i < 2000; i++) {
		double T = 50.0 * uniform();

		send_msg(ce, &t, 0, 1, T, latency(5e-6, 5e-6));
		send_msg(ce, &t, 1, 0, T, latency(5e-6, 5e-6));
		send_msg(ce, &t, 1, 2, T, latency(5e-6, 5e-6));
		send_msg(ce, &t, 2, 1, T, latency(5e-6, 5e-6));
	}
	/* a slow direct link: 1 ms latency at least */
	send_msg(ce, &t, 0, 2, 10, latency(1e-3, 1e-3));
	send_msg(ce, &t, 2, 0, 20, latency(1e-3, 1e-3));
	ck_assert_int_eq(clock_estimator_solve(ce, &o), 0);
	r = clock_estimator_find(ce, 2);
	ck_assert_int_eq(r->parent, 1);
	ck_assert_int_eq(r->status, CLOCK_TWO_WAY);
	for (i = 1; i < 3; i++) {
		ck_assert_msg(error_at(ce, &t, i, 0) < 3e-6, "p%d at 0: %g", i, error_at(ce, &t, i, 0));
		ck_assert_msg(error_at(ce, &t, i, 50) < 3e-6, "p%d at 50: %g", i, error_at(ce, &t, i, 50));
	}
	clock_estimator_free(ce);
}
END_TEST

START_TEST(groups_and_reference)
{
	struct clock_estimator *ce = clock_estimator_new();
	struct clock_options o = defaults();
	const struct clock_result *r;

	/* {0, 1}: 1 is 3 s behind; {2, 3}: 3 is 1 s ahead of 2 */
	ck_assert_int_eq(clock_estimator_message(ce, 0, 10.0, 1, 7.5), 0);
	ck_assert_int_eq(clock_estimator_message(ce, 1, 8.0, 0, 11.5), 0);
	ck_assert_int_eq(clock_estimator_message(ce, 2, 10.0, 3, 11.5), 0);
	ck_assert_int_eq(clock_estimator_message(ce, 3, 12.0, 2, 11.5), 0);
	o.reference = 1;
	ck_assert_int_eq(clock_estimator_solve(ce, &o), 0);
	ck_assert_int_eq(clock_estimator_reference(ce), 1);
	r = clock_estimator_find(ce, 1);
	ck_assert_int_eq(r->status, CLOCK_REFERENCE);
	ck_assert(r->offset == 0);
	r = clock_estimator_find(ce, 0);
	ck_assert_msg(fabs(r->offset + 3.0) < 1e-12, "offset %.12f", r->offset);
	r = clock_estimator_find(ce, 2);
	ck_assert_int_eq(r->status, CLOCK_ROOT);
	ck_assert(r->offset == 0);
	r = clock_estimator_find(ce, 3);
	ck_assert_int_eq(r->parent, 2);
	ck_assert_msg(fabs(r->offset + 1.0) < 1e-12, "offset %.12f", r->offset);
	clock_estimator_free(ce);

	/* a reference that exchanged nothing is refused */
	ce = clock_estimator_new();
	ck_assert_int_eq(clock_estimator_processor(ce, 7), 0);
	ck_assert_int_eq(clock_estimator_message(ce, 0, 1.0, 1, 1.5), 0);
	o.reference = 7;
	ck_assert_int_eq(clock_estimator_solve(ce, &o), CLOCK_ERR_REFERENCE);
	clock_estimator_free(ce);

	/* without processor 0, the lowest that exchanged messages */
	ce = clock_estimator_new();
	ck_assert_int_eq(clock_estimator_processor(ce, 0), 0);
	ck_assert_int_eq(clock_estimator_message(ce, 4, 1.0, 3, 1.5), 0);
	o.reference = -1;
	ck_assert_int_eq(clock_estimator_solve(ce, &o), 0);
	ck_assert_int_eq(clock_estimator_reference(ce), 3);
	ck_assert_int_eq(clock_estimator_find(ce, 0)->status, CLOCK_ALONE);
	clock_estimator_free(ce);
}
END_TEST

/* Only clocksync0 calls: every exit after every entry. */
START_TEST(clocksync_only)
{
	double a[3] = { 0, 0.002, -0.004 };
	struct clock_estimator *ce = clock_estimator_new();
	struct clock_options o = defaults();
	int p, k;

	for (k = 0; k < 2; k++)
		for (p = 0; p < 3; p++) {
			double T = k * 5.0;

			ck_assert_int_eq(clock_estimator_sync_entry(ce, p, 0, -401, -1,
								    T - 0.001 + a[p]), 0);
			ck_assert_int_eq(clock_estimator_sync_exit(ce, p, 0, -401, T + a[p]), 0);
		}
	/* an exit with no entry, and a barrier of another group: ignored or apart */
	ck_assert_int_eq(clock_estimator_sync_exit(ce, 0, 0, -402, 1.0), 0);
	ck_assert_int_eq(clock_estimator_sync_exit(ce, 9, 0, -401, 1.0), 0);
	ck_assert_int_eq(clock_estimator_solve(ce, &o), 0);
	ck_assert_uint_eq(clock_estimator_messages(ce), 0);
	ck_assert_uint_eq(clock_estimator_sync_constraints(ce), 12);
	for (p = 1; p < 3; p++) {
		const struct clock_result *r = clock_estimator_find(ce, p);

		ck_assert_msg(fabs(r->offset + a[p]) < 1e-9, "p%d offset %.9f", p, r->offset);
		ck_assert_uint_eq(r->syncs, 2);
		ck_assert_uint_eq(r->sent + r->received, 0);
	}
	clock_estimator_free(ce);
}
END_TEST

/* A round of sync0 at true time T by processes 0 .. nq-1 of processors
 * 0 .. np-1: entries in the 10 us before T, exits in the 5 us after, on
 * clocks a[p] ahead. */
static void barrier_round(struct clock_estimator *ce, const double *a, int np, int nq, double T)
{
	int p, q;

	for (p = 0; p < np; p++)
		for (q = 0; q < nq; q++)
			ck_assert_int_eq(clock_estimator_sync_entry(ce, p, q, -402, -1,
								    T - 10e-6 * uniform() + a[p]), 0);
	for (p = 0; p < np; p++)
		for (q = 0; q < nq; q++)
			ck_assert_int_eq(clock_estimator_sync_exit(ce, p, q, -402,
								   T + 5e-6 * uniform() + a[p]), 0);
}

/* Rounds are folded into constraints as they go: however many there are,
 * a process holds at most 4096 calls (keeping them all to the end took 40
 * bytes a call). Two processes on each of three processors: 24 constraints
 * a round, between processes of different processors. */
START_TEST(sync_rounds_bounded)
{
	double a[3] = { 0, 0.002, -0.001 };
	struct clock_estimator *ce = clock_estimator_new();
	struct clock_options o = defaults();
	uint64_t most = 0;
	int k, p;

	rng_state = 7;
	for (k = 0; k < 50000; k++) {
		barrier_round(ce, a, 3, 2, k * 1e-4);
		if (clock_estimator_sync_waiting(ce) > most)
			most = clock_estimator_sync_waiting(ce);
	}
	ck_assert_msg(most > 0 && most <= 6 * 4096, "%llu calls held", (unsigned long long)most);
	ck_assert_int_eq(clock_estimator_solve(ce, &o), 0);
	ck_assert_uint_eq(clock_estimator_sync_waiting(ce), 0);
	ck_assert_uint_eq(clock_estimator_sync_late(ce), 0);
	ck_assert_uint_eq(clock_estimator_sync_constraints(ce), 50000 * 24);
	for (p = 0; p < 3; p++) {
		const struct clock_result *r = clock_estimator_find(ce, p);

		ck_assert_uint_eq(r->syncs, 2 * 50000);
		ck_assert_msg(fabs(r->offset + a[p]) < 5e-6, "p%d offset %.9f", p, r->offset);
	}
	clock_estimator_free(ce);
}
END_TEST

/* A processor that stops taking part (its process died): the rounds it
 * never joins are taken with the others once they hold 4096 calls, and
 * memory stays bounded. */
START_TEST(sync_round_without_a_processor)
{
	double a[3] = { 0, 0.002, -0.001 };
	struct clock_estimator *ce = clock_estimator_new();
	struct clock_options o = defaults();
	uint64_t most = 0;
	int k;

	rng_state = 8;
	for (k = 0; k < 20000; k++) {
		barrier_round(ce, a, k < 10 ? 3 : 2, 1, k * 1e-4);
		if (clock_estimator_sync_waiting(ce) > most)
			most = clock_estimator_sync_waiting(ce);
	}
	ck_assert_msg(most <= 3 * 4096, "%llu calls held", (unsigned long long)most);
	ck_assert_int_eq(clock_estimator_solve(ce, &o), 0);
	ck_assert_uint_eq(clock_estimator_sync_late(ce), 0);
	ck_assert_uint_eq(clock_estimator_sync_constraints(ce), 10 * 6 + 19990 * 2);
	ck_assert_uint_eq(clock_estimator_find(ce, 0)->syncs, 20000);
	ck_assert_uint_eq(clock_estimator_find(ce, 2)->syncs, 10);
	clock_estimator_free(ce);
}
END_TEST

/* Calls given per process rather than in time order (processor 0's 5000,
 * then processor 1's): processor 0's first 904 rounds are taken alone to
 * keep it within 4096 calls, processor 1's calls of them come late and are
 * left out (counted); the last 4096 rounds pair up. */
START_TEST(sync_late_calls)
{
	struct clock_estimator *ce = clock_estimator_new();
	struct clock_options o = defaults();
	const struct clock_result *r;
	int k, p;

	for (p = 0; p < 2; p++)
		for (k = 0; k < 5000; k++) {
			double T = k * 1e-3 + (p ? 0.004 : 0);

			ck_assert_int_eq(clock_estimator_sync_entry(ce, p, 0, -402, -1, T - 5e-6), 0);
			ck_assert_int_eq(clock_estimator_sync_exit(ce, p, 0, -402, T), 0);
			ck_assert_uint_le(clock_estimator_sync_waiting(ce), 2 * 4096);
		}
	ck_assert_uint_eq(clock_estimator_sync_late(ce), 904);
	ck_assert_int_eq(clock_estimator_solve(ce, &o), 0);
	ck_assert_uint_eq(clock_estimator_sync_constraints(ce), 2 * 4096);
	r = clock_estimator_find(ce, 1);
	ck_assert_uint_eq(r->syncs, 4096);
	ck_assert_msg(fabs(r->offset + 0.004) < 1e-5, "offset %.9f", r->offset);
	clock_estimator_free(ce);
}
END_TEST

/* Refitting against every partner: the tree fits 1 and 2 to 0 alone
 * (offsets 0), which leaves the message 1 -> 2 arriving 5 us early. The
 * refits settle where the least room is largest: 1 at -5 us, 2 at +5 us,
 * every message then 5 us or more after its send (the most possible:
 * 10 - o2 = o2 - o1 - 5 with o1 = -o2). */
START_TEST(refit_against_all_partners)
{
	struct clock_estimator *ce = clock_estimator_new();
	struct clock_options o = defaults();
	const struct clock_result *r;

	o.no_drift = 1;
	ck_assert_int_eq(clock_estimator_message(ce, 0, 1.0, 1, 1.00001), 0);
	ck_assert_int_eq(clock_estimator_message(ce, 1, 2.0, 0, 2.00001), 0);
	ck_assert_int_eq(clock_estimator_message(ce, 0, 1.0, 2, 1.00001), 0);
	ck_assert_int_eq(clock_estimator_message(ce, 2, 2.0, 0, 2.00001), 0);
	ck_assert_int_eq(clock_estimator_message(ce, 1, 3.0, 2, 2.999995), 0);
	ck_assert_int_eq(clock_estimator_solve(ce, &o), 0);
	r = clock_estimator_find(ce, 2);
	ck_assert_int_eq(r->parent, 0);
	ck_assert_msg(fabs(r->offset - 5e-6) < 1e-11, "offset %g", r->offset);
	ck_assert(!(r->flags & CLOCK_F_SHIFTED));
	r = clock_estimator_find(ce, 1);
	ck_assert_msg(fabs(r->offset + 5e-6) < 1e-11, "offset %g", r->offset);
	clock_estimator_free(ce);
}
END_TEST

/* Processor 3 only receives: from 0 (1 ms early by its clock) and from 1
 * (2 ms early). The tree fits it to 0 (+1 ms); the final shift adds what
 * the message from 1 still lacks. */
START_TEST(final_shift)
{
	struct clock_estimator *ce = clock_estimator_new();
	struct clock_options o = defaults();
	const struct clock_result *r;

	ck_assert_int_eq(clock_estimator_message(ce, 0, 1.0, 1, 1.00001), 0);
	ck_assert_int_eq(clock_estimator_message(ce, 1, 2.0, 0, 2.00001), 0);
	ck_assert_int_eq(clock_estimator_message(ce, 0, 1.0, 3, 0.999), 0);
	ck_assert_int_eq(clock_estimator_message(ce, 1, 2.0, 3, 1.998), 0);
	ck_assert_int_eq(clock_estimator_solve(ce, &o), 0);
	r = clock_estimator_find(ce, 3);
	ck_assert_int_eq(r->status, CLOCK_ONE_WAY);
	ck_assert_int_eq(r->parent, 0);
	ck_assert(r->flags & CLOCK_F_SHIFTED);
	ck_assert_msg(fabs(r->shift - 0.001) < 1e-9, "shift %g", r->shift);
	ck_assert_msg(fabs(r->offset - 0.002) < 1e-9, "offset %g", r->offset);
	clock_estimator_free(ce);
}
END_TEST

/* A round trip shorter than the time the other side held the message: no
 * line satisfies both; the least-violating one, flagged. The margin
 * (-1.5 - 3d) - (-1.0 - 2d) = -0.5 - d is largest at the drift bound
 * d = -D, where the offset is midway between -1 + 2D and -1.5 + 3D. */
START_TEST(inconsistent_constraints)
{
	struct clock_estimator *ce = clock_estimator_new();
	struct clock_options o = defaults();
	const struct clock_result *r;

	ck_assert_int_eq(clock_estimator_message(ce, 0, 1.0, 1, 2.0), 0);
	ck_assert_int_eq(clock_estimator_message(ce, 1, 3.0, 0, 1.5), 0);
	ck_assert_int_eq(clock_estimator_solve(ce, &o), 0);
	r = clock_estimator_find(ce, 1);
	ck_assert(r->flags & CLOCK_F_INCONSISTENT);
	ck_assert(r->flags & CLOCK_F_DRIFT_UNDETERMINED);
	ck_assert_msg(r->drift == -o.max_drift, "drift %g", r->drift);
	ck_assert_msg(fabs(r->offset - (-1 + 2 * o.max_drift - 1.5 + 3 * o.max_drift) / 2) < 1e-12,
		      "offset %.12f", r->offset);
	ck_assert(!(r->flags & CLOCK_F_SHIFTED));
	clock_estimator_free(ce);
}
END_TEST

/* Minimum latency: the lines keep L clear of both point sets. */
START_TEST(min_latency)
{
	struct clock_estimator *ce = clock_estimator_new();
	struct clock_options o = defaults();
	const struct clock_result *r;

	/* true offset 0, latencies 30 us one way and 10 us the other */
	ck_assert_int_eq(clock_estimator_message(ce, 0, 1.0, 1, 1.00003), 0);
	ck_assert_int_eq(clock_estimator_message(ce, 1, 2.0, 0, 2.00001), 0);
	o.min_latency = 10e-6;
	o.no_drift = 1;
	ck_assert_int_eq(clock_estimator_solve(ce, &o), 0);
	r = clock_estimator_find(ce, 1);
	/* midway: both apparent latencies 20 us, so 10 us of room each side */
	ck_assert_msg(fabs(r->offset + 10e-6) < 1e-12, "offset %.12g", r->offset);
	ck_assert_msg(fabs(r->uncertainty - 10e-6) < 1e-12, "uncertainty %.12g", r->uncertainty);
	clock_estimator_free(ce);

	/* With drift free within +-100 ppm the same offset, but the band is
	 * wider at the ends of the second the points span: drifts from
	 * -100 ppm to +20 ppm (where the room closes) keep every constraint. */
	ce = clock_estimator_new();
	ck_assert_int_eq(clock_estimator_message(ce, 0, 1.0, 1, 1.00003), 0);
	ck_assert_int_eq(clock_estimator_message(ce, 1, 2.0, 0, 2.00001), 0);
	o.no_drift = 0;
	ck_assert_int_eq(clock_estimator_solve(ce, &o), 0);
	r = clock_estimator_find(ce, 1);
	ck_assert_msg(fabs(r->offset + 10e-6) < 1e-12, "offset %.12g", r->offset);
	ck_assert(r->drift == 0);
	ck_assert_msg(fabs(r->uncertainty - 59.9985e-6) < 1e-10, "uncertainty %.12g",
		      r->uncertainty);
	clock_estimator_free(ce);
}
END_TEST

START_TEST(call_order)
{
	struct clock_estimator *ce = clock_estimator_new();
	struct clock_options o = defaults();

	ck_assert_uint_eq(clock_estimator_count(ce), 0);
	ck_assert_int_eq(clock_estimator_solve(ce, &o), 0);   /* empty: fine */
	ck_assert_int_eq(clock_estimator_reference(ce), -1);
	ck_assert_int_eq(clock_estimator_solve(ce, &o), CLOCK_ERR_USAGE);
	ck_assert_int_eq(clock_estimator_message(ce, 0, 1, 1, 2), CLOCK_ERR_USAGE);
	ck_assert_int_eq(clock_estimator_processor(ce, 0), CLOCK_ERR_USAGE);
	clock_estimator_free(ce);
	clock_estimator_free(NULL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("clock");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, offset_two_processors);
	tcase_add_test(tc, offset_and_drift_four_processors);
	tcase_add_test(tc, no_drift_option);
	tcase_add_test(tc, drift_undetermined_by_two_messages);
	tcase_add_test(tc, alone_and_one_way);
	tcase_add_test(tc, chain_composition);
	tcase_add_test(tc, groups_and_reference);
	tcase_add_test(tc, clocksync_only);
	tcase_add_test(tc, sync_rounds_bounded);
	tcase_add_test(tc, sync_round_without_a_processor);
	tcase_add_test(tc, sync_late_calls);
	tcase_add_test(tc, refit_against_all_partners);
	tcase_add_test(tc, final_shift);
	tcase_add_test(tc, inconsistent_constraints);
	tcase_add_test(tc, min_latency);
	tcase_add_test(tc, call_order);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
