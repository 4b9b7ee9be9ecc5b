/*
 * trace-files.c - tracefiles under piclrun: the processes of a run save
 * their traces in one file named by tracefiles, or go back and forth
 * between two (t/e2e/0630-runtime-calls.sh). Whatever they flushed must be
 * there at the end, once.
 *
 * Usage: trace-files FILE [FILE2]. Each process names FILE with tracefiles
 * after open0, then three times traces a block (type 1) and flushes; with
 * FILE2, after each flush it names FILE2, FILE, FILE2 in turn.
 */
#include <picl.h>

#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n, me, host, i;

	if (argc < 2) {
		fprintf(stderr, "usage: trace-files FILE [FILE2]\n");
		return 2;
	}
	tracenode(1 << 20, 1, 0);
	open0(&n, &me, &host);
	tracefiles("", argv[1], 0);
	for (i = 0; i < 3; i++) {
		traceblockbegin(1, i, me);
		usleep(10000 * (me + 1));
		traceblockend(1, i, me);
		traceflush();
		if (argc > 2)
			tracefiles("", i % 2 ? argv[1] : argv[2], 0);
	}
	close0(0);
	return 0;
}
