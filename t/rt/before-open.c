/*
 * before-open.c - PICL calls before open0 and after close0: the records a
 * process writes before it knows its id from open0 carry its id all the
 * same, and an error names the process that made it
 * (t/e2e/0620-runtime-faults.sh, 0630-runtime-calls.sh, and
 * 0650-runtime-mpi.sh under MPI).
 *
 * Usage: before-open flush | early RANK [CALL] | after RANK [CALL].
 *  flush: each process starts tracing with the smallest buffer in flush
 *         mode, then, before open0, marks (1), flushes, writes a tracemsg
 *         and marks (2) until the buffer has been written when full, as
 *         the spec's Table 19 starts tracing before open0; then open0, a
 *         mark (3) and close0.
 *  early: process RANK (PICL_RANK; under mpirun, Open MPI's
 *         OMPI_COMM_WORLD_RANK) calls CALL before open0 (an error).
 *  after: process RANK calls CALL after close0 (an error).
 *  CALL is sync0 (the default), clocksync0, open0, close0, barrier0,
 *  bcast0, gsum0, gcomb0, gather0, setarc0, getarc0, who0 or host0 (these
 *  two print their values). early RANK open0 is a second open0 while open
 *  (main's, after CALL's), for t/e2e/0415-runtime-open-close-twice.sh.
 */
#include <picl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void comb(void *a, void *b, int items, int datatype)
{
	(void)a, (void)b, (void)items, (void)datatype;
}

/* The call named `call`, with arguments good after open0. */
static void call_named(const char *call)
{
	int n = 0, me, host, top = 0, ord = 0, dir = 1, x = 1;
	float v[64] = { 0 };
	char b[4] = "abc";

	if (strcmp(call, "clocksync0") == 0)
		clocksync0();
	else if (strcmp(call, "open0") == 0)
		open0(&n, &me, &host);
	else if (strcmp(call, "close0") == 0)
		close0(0);
	else if (strcmp(call, "barrier0") == 0)
		barrier0();
	else if (strcmp(call, "bcast0") == 0)
		bcast0(b, sizeof b, 1, 0);
	else if (strcmp(call, "gsum0") == 0)
		gsum0(&x, 1, PICL_INT, 1, 0);
	else if (strcmp(call, "gcomb0") == 0)
		gcomb0(&x, 1, PICL_INT, 1, 0, comb);
	else if (strcmp(call, "gather0") == 0)
		gather0(v, 1, 1, 0);
	else if (strcmp(call, "setarc0") == 0)
		setarc0(&n, &top, &ord, &dir);
	else if (strcmp(call, "getarc0") == 0)
		getarc0(&n, &top, &ord, &dir);
	else if (strcmp(call, "who0") == 0) {
		who0(&n, &me, &host);
		printf("who0: %d %d %d\n", n, me, host);
	} else if (strcmp(call, "host0") == 0)
		printf("host0: %d\n", host0());
	else
		sync0();
	printf("%s returned\n", call);
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "";
	const char *rank = getenv("PICL_RANK") ? getenv("PICL_RANK") :
			   getenv("OMPI_COMM_WORLD_RANK");
	int n, me, host, k, who = argc > 2 ? atoi(argv[2]) : 0;
	const char *call = argc > 3 ? argv[3] : "sync0";

	if (strcmp(how, "flush") == 0) {
		tracenode(64 * 72, 1, 0);
		tracemark(1);
		traceflush();
		tracemsg("before open0");
		for (k = 0; k < 100; k++)
			tracemark(2);
	} else if (strcmp(how, "early") == 0) {
		tracenode(100000, 1, 0);
		if (rank && atoi(rank) == who) {
			/* (clocksync0 before open0 is fine: done in open0) */
			call_named(call);
		}
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
		call_named(call);
	return 0;
}
