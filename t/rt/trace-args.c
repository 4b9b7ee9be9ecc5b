/*
 * trace-args.c - the tracing calls given arguments they must not take, or
 * used in ways that stress their bookkeeping (t/e2e/0645-runtime-trace-args.sh).
 * Each process of the run does the same.
 *
 * Usage: trace-args negtypes
 *  negtypes: user event types below 0 (PICL's own) given to every call
 *            that takes one, twice each: refused, said once per call, and
 *            the run goes on (a block 7, a mark 8 and a tracedata of
 *            event 9 are recorded around them).
 */
#include <picl.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void negtypes(void)
{
	int marks[3] = { 8, -3, INT_MIN };
	double x = 1.5;
	int k;

	traceblockbegin(7, 0, 0);
	for (k = 0; k < 2; k++) {
		traceblockbegin(-901, 1, 2);
		traceblockend(-5, 1, 2);
		tracemark(INT_MIN);
		tracemarks(marks, 3);
		tracedata(-4, 0, "double", 1, &x);
		tracedata(9, -3, "double", 1, &x);
	}
	tracedata(9, 0, "double", 1, &x);
	traceblockend(7, 0, 0);
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "";
	int n, me, host;

	tracenode(1 << 20, 1, 0);
	open0(&n, &me, &host);
	if (strcmp(how, "negtypes") == 0) {
		negtypes();
	} else {
		fprintf(stderr, "usage: trace-args negtypes\n");
		return 2;
	}
	close0(0);
	return 0;
}
