/*
 * ring.c - a token goes round the ring of nodes ROUNDS times (argv[1],
 * default 10); each node adds its id. Node 0 checks the sum at the end and
 * exits 1 if it is wrong. Every node traces (part files merged by piclrun).
 */
#include <picl.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int nprocs, me, host, r, rounds = argc > 1 ? atoi(argv[1]) : 10;
	long token = 0, want;

	tracenode(1 << 20, 1, 0);
	open0(&nprocs, &me, &host);
	clocksync0();
	for (r = 0; r < rounds; r++) {
		traceblockbegin(0, r, 0);
		if (me == 0) {
			token += me;
			if (nprocs > 1) {
				send0((char *)&token, sizeof token, 1, 1);
				recv0((char *)&token, sizeof token, 1);
			}
		} else {
			recv0((char *)&token, sizeof token, 1);
			token += me;
			send0((char *)&token, sizeof token, 1, (me + 1) % nprocs);
		}
		traceblockend(0, r, 0);
	}
	want = (long)rounds * nprocs * (nprocs - 1) / 2;
	if (me == 0 && token != want) {
		fprintf(stderr, "ring: token %ld, expected %ld\n", token, want);
		return 1;
	}
	if (me == 0)
		printf("ring: %d processes, %d rounds, token %ld\n", nprocs,
		       rounds, token);
	close0(0);
	return 0;
}
