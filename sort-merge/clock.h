/*
 * clock.h - the clock estimator behind `picltrace sync`: from the messages
 * processors exchanged (and their clock synchronisations) it estimates, for
 * every processor p, the correction
 *
 *     t_corrected = t + offset_p + drift_p * (t - t0)
 *
 * that brings p's clock onto the reference processor's. It knows nothing of
 * trace files: the caller feeds it numbers (times in seconds relative to a
 * t0 of its choice, as doubles) and reads the corrections back. clock.c
 * explains the method; picltrace-sync(1) its limits.
 *
 * Call order: clock_estimator_new; any number of clock_estimator_processor,
 * clock_estimator_message, clock_estimator_sync_entry/_exit; one
 * clock_estimator_solve; then the read-only queries; clock_estimator_free.
 * Functions returning int give 0 on success or a negative enum clock_error.
 */
#ifndef PICL_SORT_MERGE_CLOCK_H
#define PICL_SORT_MERGE_CLOCK_H

#include <stddef.h>
#include <stdint.h>

enum clock_error {
	CLOCK_ERR_NOMEM = -1,       /* out of memory */
	CLOCK_ERR_REFERENCE = -2,   /* the reference asked for exchanged no message */
	CLOCK_ERR_USAGE = -3        /* called out of order (solve twice, add after solve) */
};

/* How a processor's correction was obtained. */
enum clock_status {
	CLOCK_REFERENCE = 0,   /* the reference: offset 0, drift 0 */
	CLOCK_ROOT,            /* exchanged messages, but none that lead to the
			          reference: it is the reference of its own group
			          (the lowest processor of the group), kept */
	CLOCK_TWO_WAY,         /* fitted to its parent from messages both ways */
	CLOCK_ONE_WAY,         /* only messages one way with its parent: the least
			          offset that makes them arrive after they left */
	CLOCK_ALONE            /* no messages at all: kept */
};

/* Flags on a result (bits). */
#define CLOCK_F_DRIFT_UNDETERMINED 1u  /* the messages do not bound the drift:
					  0, or the least that makes them causal
					  (the bound if none does) */
#define CLOCK_F_INCONSISTENT 2u        /* no line satisfies every constraint with
					  the parent: the least-violating one */
#define CLOCK_F_SHIFTED 4u             /* the final pass moved it (`shift`) */

struct clock_result {
	int32_t processor;
	enum clock_status status;
	unsigned flags;
	int32_t parent;          /* processor it was fitted against, -1 if none */
	double offset;           /* seconds, at t0 (shift included) */
	double drift;            /* seconds per second; 1e-6 is 1 ppm */
	double shift;            /* the constant the final pass added */
	double uncertainty;      /* half-width of the offset's feasible interval,
				    summed along the path to the root (seconds);
				    -1 when a one-way link leaves it unbounded */
	uint64_t sent, received; /* messages with other processors */
	uint64_t syncs;          /* synchronisations it took part in */
};

struct clock_options {
	double min_latency;      /* seconds a message takes at least (>= 0) */
	double max_drift;        /* bound on |drift| of one link, e.g. 100e-6 */
	int no_drift;            /* 1: offsets only */
	int32_t reference;       /* -1: processor 0 if it exchanged messages,
				    else the lowest processor that did */
};

struct clock_estimator;

struct clock_estimator *clock_estimator_new(void);
void clock_estimator_free(struct clock_estimator *ce);

/* Note a processor that appears in the trace (so one without messages is
 * reported). Processors named by the calls below are noted too. */
int clock_estimator_processor(struct clock_estimator *ce, int32_t processor);

/*
 * A message sent by `src` at its time `send` and received by `dst` at its
 * time `recv` (seconds from t0, each on its own clock). Messages within one
 * processor, negative processor ids and non-finite times are ignored.
 */
int clock_estimator_message(struct clock_estimator *ce, int32_t src, double send,
			    int32_t dst, double recv);

/*
 * A collective synchronisation (clocksync0 -401, sync0 -402): the entry and
 * the exit of `event` by one process. The k-th instance of (event, group)
 * on every process is one collective call in which every participant's
 * exit follows every participant's entry; `group` tells separate
 * collectives apart (the processor subset synchronised, -1 for all). An
 * exit without entry is ignored.
 *
 * Calls are folded into constraints a round at a time and not kept: a
 * process holds at most 4096 calls waiting for their rounds. When one more
 * comes, the round of its oldest is taken as complete with the calls that
 * came; a call that comes after its round was taken (more than 4096 calls
 * behind another participant's in the order they are given, as in a trace
 * not sorted by time) is counted as late and left out. With calls given in
 * time order, as a sorted trace has them, the rounds are those of the
 * whole trace.
 */
int clock_estimator_sync_entry(struct clock_estimator *ce, int32_t processor,
			       int32_t process, int32_t event, int32_t group, double t);
int clock_estimator_sync_exit(struct clock_estimator *ce, int32_t processor,
			      int32_t process, int32_t event, double t);

/* Estimate every correction. Call once. */
int clock_estimator_solve(struct clock_estimator *ce, const struct clock_options *opt);

/* After solve: the results, one per processor, by increasing processor. */
size_t clock_estimator_count(const struct clock_estimator *ce);
const struct clock_result *clock_estimator_result(const struct clock_estimator *ce, size_t i);
/* The result for one processor, or NULL if it was never named. */
const struct clock_result *clock_estimator_find(const struct clock_estimator *ce,
						int32_t processor);
/* The reference used (-1 if no processor exchanged messages). */
int32_t clock_estimator_reference(const struct clock_estimator *ce);
/* Messages taken in (within one processor excluded), and the virtual
 * constraints the synchronisations gave. */
uint64_t clock_estimator_messages(const struct clock_estimator *ce);
uint64_t clock_estimator_sync_constraints(const struct clock_estimator *ce);
/* Synchronisation calls held now, waiting for their round's other
 * participants (at most 4096 per process), and calls that came after their
 * round was folded without them, so took no part (see the sync calls above). */
uint64_t clock_estimator_sync_waiting(const struct clock_estimator *ce);
uint64_t clock_estimator_sync_late(const struct clock_estimator *ce);

/* offset + drift * t: what to add to a time t (seconds from t0). */
double clock_result_correction(const struct clock_result *r, double t);

#endif
