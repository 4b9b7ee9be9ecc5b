/*
 * trace-alloc.c - a trace buffer that cannot be allocated
 * (t/e2e/0413-runtime-trace-alloc.sh, run under `ulimit -v`).
 *
 * Usage: trace-alloc SIZE. tracenode(SIZE, 1, 0) before open0 ("max":
 * INT_MAX bytes), a mark, open0, a barrier, close0; prints "node N ran".
 */
#include <picl.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	int n, me, host;

	if (argc < 2) {
		fprintf(stderr, "usage: trace-alloc SIZE|max\n");
		return 2;
	}
	tracenode(strcmp(argv[1], "max") == 0 ? INT_MAX : atoi(argv[1]), 1, 0);
	tracemark(1);
	open0(&n, &me, &host);
	sync0();
	printf("node %d ran\n", me);
	close0(0);
	return 0;
}
