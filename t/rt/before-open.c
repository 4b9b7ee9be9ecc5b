/*
 * before-open.c - PICL calls before open0 and after close0: the records a
 * process writes before it knows its id from open0 carry its id all the
 * same, and an error names the process that made it
 * (t/e2e/0620-runtime-faults.sh, 0630-runtime-calls.sh, and
 * 0650-runtime-mpi.sh under MPI).
 *
 * Usage: before-open flush | early RANK | after RANK.
 *  flush: each process starts tracing with the smallest buffer in flush
 *         mode, then, before open0, marks (1), flushes, writes a tracemsg
 *         and marks (2) until the buffer has been written when full, as
 *         the spec's Table 19 starts tracing before open0; then open0, a
 *         mark (3) and close0.
 *  early: process RANK (PICL_RANK) calls sync0 before open0 (an error).
 *  after: process RANK calls sync0 after close0 (an error).
 */
#include <picl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "";
	const char *rank = getenv("PICL_RANK");
	int n, me, host, k, who = argc > 2 ? atoi(argv[2]) : 0;

	if (strcmp(how, "flush") == 0) {
		tracenode(64 * 72, 1, 0);
		tracemark(1);
		traceflush();
		tracemsg("before open0");
		for (k = 0; k < 100; k++)
			tracemark(2);
	} else if (strcmp(how, "early") == 0) {
		tracenode(100000, 1, 0);
		if (rank && atoi(rank) == who)
			sync0();
	} else if (strcmp(how, "after") == 0) {
		tracenode(100000, 1, 0);
	} else {
		fprintf(stderr, "usage: before-open flush | early RANK | after RANK\n");
		return 2;
	}
	open0(&n, &me, &host);
	tracemark(3);
	sync0();
	close0(0);
	if (strcmp(how, "after") == 0 && me == who)
		sync0();
	return 0;
}
