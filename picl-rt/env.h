/*
 * env.h - the settings a user gives the runtime in the environment: the
 * PICL_* variables picl(3), piclrun(1) and picl-mpi(7) document as chosen
 * by the user (the ones piclrun sets for its processes are read with
 * backend.h's picl_env_int). Not installed; shared by the libraries
 * (trace.c, local.c, mpi.c) and piclrun.c.
 *
 * A value the page does not allow is said on standard error, in the
 * words piclrun has for PICL_RING_SIZE ("picl: PICL_CMA_MIN must be a
 * number of bytes from 0 to 2147483647, in decimal; using the default"),
 * and the default is used. Such values were taken as unset without a
 * word (PICL_TRACE_CLOCK=bogus, PICL_MPI_HOST=yes) or read by atoi as a
 * number they are not (PICL_CMA_MIN=-5, PICL_MPI_SEND_NOW=1k), and a run
 * silently went another way than the user asked.
 *
 * The settings libpicl's processes read are each read by one function
 * below, which piclrun calls too before it starts them: it says a bad
 * value once for the run and takes it out of their environment, rather
 * than have every process say it.
 */
#ifndef PICL_RT_ENV_H
#define PICL_RT_ENV_H

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * name's value as a whole number in decimal from lo to hi (lo >= 0), into
 * *v: 1. Unset or empty: 0, *v untouched. Anything else: -1, *v untouched,
 * said as "prog: NAME must be a number of UNIT from LO to HI, in decimal;
 * using the default" ("0 or 1" for a switch, lo 0 and hi 1; "from LO up"
 * when hi is LLONG_MAX; no "of UNIT" without a unit), unless prog is NULL
 * (said already: a setting read again).
 */
static inline int picl_env_number(const char *prog, const char *name,
				  long long lo, long long hi, const char *unit,
				  long long *v)
{
	const char *s = getenv(name);
	char *end;
	long long x;

	if (!s || !*s)
		return 0;
	if (*s >= '0' && *s <= '9') {   /* (strtoll takes spaces and signs) */
		errno = 0;
		x = strtoll(s, &end, 10);
		if (!*end && !errno && x >= lo && x <= hi) {
			*v = x;
			return 1;
		}
	}
	if (!prog)
		return -1;
	if (lo == 0 && hi == 1)
		fprintf(stderr, "%s: %s must be 0 or 1; using the default\n",
			prog, name);
	else if (hi == LLONG_MAX)
		fprintf(stderr, "%s: %s must be a number%s%s from %lld up, in "
			"decimal; using the default\n", prog, name,
			unit ? " of " : "", unit ? unit : "", lo);
	else
		fprintf(stderr, "%s: %s must be a number%s%s from %lld to %lld, "
			"in decimal; using the default\n", prog, name,
			unit ? " of " : "", unit ? unit : "", lo, hi);
	return -1;
}

/* name's value is word: 1; unset or empty: 0; anything else: -1, said as
 * "prog: NAME must be WORD; using the default" (prog not NULL). */
static inline int picl_env_word(const char *prog, const char *name,
				const char *word)
{
	const char *s = getenv(name);

	if (!s || !*s)
		return 0;
	if (strcmp(s, word) == 0)
		return 1;
	if (prog)
		fprintf(stderr, "%s: %s must be %s; using the default\n", prog, name, word);
	return -1;
}

/*
 * What libpicl's processes read, each by one function here, which piclrun
 * calls too: each returns as picl_env_number (or picl_env_word) does, 1
 * when set and valid, 0 unset, -1 bad (said).
 */

/* PICL_CMA (local.c): 1 copies large messages straight from the sender. */
static inline int picl_env_cma(const char *prog, long long *on)
{
	return picl_env_number(prog, "PICL_CMA", 0, 1, NULL, on);
}

/* PICL_CMA_MIN (local.c): the smallest message PICL_CMA copies so. */
static inline int picl_env_cma_min(const char *prog, long long *bytes)
{
	return picl_env_number(prog, "PICL_CMA_MIN", 0, INT_MAX, "bytes", bytes);
}

/* PICL_CMA_BROKEN (local.c, tests): 1 behaves as if CMA were refused. */
static inline int picl_env_cma_broken(const char *prog, long long *on)
{
	return picl_env_number(prog, "PICL_CMA_BROKEN", 0, 1, NULL, on);
}

/* PICL_CHUNK (local.c, tests): every streamed frame's payload, up to max
 * bytes (a quarter of a ring, less a frame's header: the ring's size). */
static inline int picl_env_chunk(const char *prog, long long max,
				 long long *bytes)
{
	return picl_env_number(prog, "PICL_CHUNK", 64, max, "bytes", bytes);
}

/* PICL_TRACE_CLOCK (trace.c): monotonic stamps records with
 * CLOCK_MONOTONIC rather than the time stamp counter. */
static inline int picl_env_trace_clock(const char *prog)
{
	return picl_env_word(prog, "PICL_TRACE_CLOCK", "monotonic");
}

/* PICL_TRACE_ZSTD (trace.c): 1 writes the trace part zstd-compressed. */
static inline int picl_env_trace_zstd(const char *prog, long long *on)
{
	return picl_env_number(prog, "PICL_TRACE_ZSTD", 0, 1, NULL, on);
}

/* PICL_FAKE_CLOCK (trace.c, tests): a clock advancing this many ns a
 * reading. */
static inline int picl_env_fake_clock(const char *prog, long long *step)
{
	return picl_env_number(prog, "PICL_FAKE_CLOCK", 1, LLONG_MAX,
			       "nanoseconds", step);
}

#endif /* PICL_RT_ENV_H */
