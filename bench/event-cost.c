/*
 * event-cost.c - the cost of one traced event: N traceblockbegin +
 * traceblockend pairs (2N records) in a tight loop, timed with
 * CLOCK_MONOTONIC around the loop only (set-up and the final flush are
 * outside). One source, three builds (bench/run-event-cost.sh):
 *
 *   event-cost        modes "picl" (tracenode with a buffer for every
 *                     record: no flush in the loop) and "off" (no
 *                     tracenode: the same calls with tracing off)
 *   event-cost-otf    -DWITH_OTF: mode "otf", OTF_Writer_writeEnter/Leave
 *                     (time from clock_gettime(CLOCK_MONOTONIC), as a tool
 *                     would stamp them) into a writer whose buffer holds
 *                     every event (no flush in the loop)
 *   event-cost-lttng  -DWITH_LTTNG: mode "lttng", two tracepoint() calls of
 *                     picl_bench:ev (3 ints) per pair
 *
 * usage: event-cost MODE [PAIRS [REPS]]   (defaults 1000000, 5)
 * Prints, for the best of REPS loops: "MODE pairs N ns/pair X ns/event Y".
 * picl: REPS loops in one traced run (buffer sized for all of them), so
 * every loop is recorded into the buffer; the trace is written at close0,
 * in the current directory (picltrace.0.picl).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stdint.h>

#ifdef WITH_OTF
#include <open-trace-format/otf.h>
#elif defined(WITH_LTTNG)
#include "lttng-tp.h"
#else
#include <picl.h>
#endif

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static volatile int sink;

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long pairs = argc > 2 ? atol(argv[2]) : 1000000;
	int reps = argc > 3 ? atoi(argv[3]) : 5;
	double best = 1e30, t0, t;
	long i;
	int r;

	if (pairs < 1 || reps < 1)
		return 2;
#ifdef WITH_OTF
	if (strcmp(mode, "otf"))
		goto usage;
	for (r = 0; r < reps; r++) {
		OTF_FileManager *fm = OTF_FileManager_open(4);
		OTF_Writer *w = OTF_Writer_open("event-cost-otf", 1, fm);
		struct timespec ts;

		OTF_Writer_setBufferSizes(w, 1u << 30);   /* 1 GiB, never full */
		OTF_Writer_writeDefTimerResolution(w, 0, 1000000000);
		OTF_Writer_writeDefProcess(w, 0, 1, "p0", 0);
		OTF_Writer_writeDefFunction(w, 0, 1, "block", 0, 0);
		t0 = now();
		for (i = 0; i < pairs; i++) {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			OTF_Writer_writeEnter(w, (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec,
					      1, 1, (uint32_t)i);
			clock_gettime(CLOCK_MONOTONIC, &ts);
			OTF_Writer_writeLeave(w, (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec,
					      1, 1, (uint32_t)i);
		}
		t = now() - t0;
		OTF_Writer_close(w);
		OTF_FileManager_close(fm);
		if (t < best)
			best = t;
	}
#elif defined(WITH_LTTNG)
	if (strcmp(mode, "lttng"))
		goto usage;
	for (r = 0; r < reps; r++) {
		t0 = now();
		for (i = 0; i < pairs; i++) {
			tracepoint(picl_bench, ev, 7, (int)i, 1);
			tracepoint(picl_bench, ev, 7, (int)i, 2);
		}
		t = now() - t0;
		if (t < best)
			best = t;
	}
#else
	{
		int np, me, host;
		int on = !strcmp(mode, "picl");

		if (!on && strcmp(mode, "off"))
			goto usage;
		open0(&np, &me, &host);
		if (on) {
			/* 2 records a pair, every rep; 72-byte records plus
			 * room for the prologue: sized by the bytes, not
			 * guessed; capped at INT_MAX. */
			double bytes = (double)pairs * reps * 2 * 80 + (1 << 20);
			if (bytes > 2147483647.0)
				goto usage;
			tracenode((int)bytes, 1, 0);
		}
		for (r = 0; r < reps; r++) {
			int rem0 = 0, rem1 = 0, a, b, c;

			if (on)
				traceinfo(&rem0, &a, &b, &c);
			t0 = now();
			for (i = 0; i < pairs; i++) {
				traceblockbegin(7, (int)i, 1);
				traceblockend(7, (int)i, 2);
			}
			t = now() - t0;
			if (on) {
				traceinfo(&rem1, &a, &b, &c);
				sink = rem0 - rem1;
			}
			if (t < best)
				best = t;
		}
		close0(0);
	}
#endif
	printf("%s pairs %ld ns/pair %.2f ns/event %.2f\n", mode, pairs,
	       best / pairs * 1e9, best / pairs / 2 * 1e9);
	return 0;
usage:
	fprintf(stderr, "usage: event-cost MODE [PAIRS [REPS]] (mode unknown in this build or buffer too big)\n");
	return 2;
}
