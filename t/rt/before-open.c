/*
 * before-open.c - tracing before open0: the records a process writes
 * before it knows its id from open0 carry its id all the same
 * (t/e2e/0630-runtime-calls.sh, and 0650-runtime-mpi.sh under MPI).
 *
 * Usage: before-open flush. Each process starts tracing with the smallest
 * buffer in flush mode, then, before open0, marks (1), flushes, writes a
 * tracemsg and marks (2) until the buffer has been written when full, as
 * the spec's Table 19 starts tracing before open0; then open0, a mark (3)
 * and close0.
 */
#include <picl.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "";
	int n, me, host, k;

	if (strcmp(how, "flush") == 0) {
		tracenode(64 * 72, 1, 0);
		tracemark(1);
		traceflush();
		tracemsg("before open0");
		for (k = 0; k < 100; k++)
			tracemark(2);
	} else {
		fprintf(stderr, "usage: before-open flush\n");
		return 2;
	}
	open0(&n, &me, &host);
	tracemark(3);
	close0(0);
	return 0;
}
