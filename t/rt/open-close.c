/*
 * open-close.c - open0 and close0, nothing between: what a run costs to
 * start and to end, for t/e2e/0616-runtime-scale.sh (hundreds of
 * processes). With an argument, node 0 first sleeps that many ms, so
 * that every other node is asleep in close0's barrier when it releases
 * them. Exits 1 if open0 gives a wrong process count or id.
 */
#include <stdlib.h>
#include <time.h>

#include "picl.h"

int main(int argc, char **argv)
{
	int np, me, host;
	const char *n = getenv("PICL_NPROCS");

	open0(&np, &me, &host);
	if (n && (np != atoi(n) || me < 0 || me >= np))
		return 1;
	if (argc > 1 && me == 0) {
		long ms = atol(argv[1]);
		struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };
		nanosleep(&ts, NULL);
	}
	close0(0);
	return 0;
}
