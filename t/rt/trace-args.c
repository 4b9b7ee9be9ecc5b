/*
 * trace-args.c - the tracing calls given arguments they must not take, or
 * used in ways that stress their bookkeeping (t/e2e/0645-runtime-trace-args.sh).
 * Each process of the run does the same.
 *
 * Usage: trace-args negtypes | deep DEPTH [fail | fill] | restart |
 *        size SIZE FLUSH
 *  negtypes: user event types below 0 (PICL's own) given to every call
 *            that takes one, twice each: refused, said once per call, and
 *            the run goes on (a block 7, a mark 8 and a tracedata of
 *            event 9 are recorded around them). tracedata with an
 *            unknown data type, a negative count or no data: refused,
 *            said once.
 *  deep:     DEPTH nested user blocks (types 0 .. DEPTH-1, the buffer
 *            written out after every 50), then the process returns from
 *            main without close0 (or, with "fail", makes a PICL error:
 *            send0 of -1 bytes): every block must get its exit before the
 *            -901 exit. With "fill", inside the blocks it then traces
 *            20000 marks, written out every 500, for a small file system
 *            to fill: the part is closed where its last whole write ended.
 *  restart:  two tracing sessions in one part: blocks 1 (twice) and a
 *            traceexit, then tracenode, tracefiles and tracelevel again,
 *            blocks 2 (three times) and close0.
 *  size:     tracenode(SIZE, FLUSH, 0), then 10 tracedata records of
 *            4000 doubles (320 KB of data), and close0.
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
		tracedata(9, 0, "quad", 1, &x);
		tracedata(9, 0, "double", -1, &x);
		tracedata(9, 0, "double", 1, NULL);
	}
	tracedata(9, 0, "double", 1, &x);
	traceblockend(7, 0, 0);
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "";
	int n, me, host, k, depth;

	if (strcmp(how, "size") == 0 && argc > 3)
		tracenode(atoi(argv[2]), atoi(argv[3]), 0);
	else
		tracenode(1 << 20, 1, 0);
	open0(&n, &me, &host);
	if (strcmp(how, "negtypes") == 0) {
		negtypes();
	} else if (strcmp(how, "deep") == 0 && argc > 2) {
		depth = atoi(argv[2]);
		for (k = 0; k < depth; k++) {
			traceblockbegin(k, k, me);
			if (k % 50 == 49)
				traceflush();
		}
		if (argc > 3 && strcmp(argv[3], "fail") == 0)
			send0((char *)&k, -1, 1, 0);
		if (argc > 3 && strcmp(argv[3], "fill") == 0)
			for (k = 0; k < 20000; k++) {
				tracemark(k);
				if (k % 500 == 499)
					traceflush();
			}
		return 0;     /* without close0: the atexit handler ends it */
	} else if (strcmp(how, "restart") == 0) {
		for (k = 0; k < 2; k++) {
			traceblockbegin(1, k, me);
			traceblockend(1, k, me);
		}
		traceexit();
		tracenode(1 << 20, 1, 0);
		tracefiles("", "", 0);
		tracelevel(1, 1, 1);
		for (k = 0; k < 3; k++) {
			traceblockbegin(2, k, me);
			traceblockend(2, k, me);
		}
	} else if (strcmp(how, "size") == 0 && argc > 3) {
		static double data[4000];

		for (k = 0; k < 10; k++)
			tracedata(k, 0, "double", 4000, data);
	} else {
		fprintf(stderr, "usage: trace-args negtypes | deep DEPTH [fail | fill]"
			" | restart | size SIZE FLUSH\n");
		return 2;
	}
	close0(0);
	return 0;
}
