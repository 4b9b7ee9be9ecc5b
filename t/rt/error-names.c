/*
 * error-names.c - PICL errors that happen in messages PICL sends and
 * receives on the program's behalf (t/e2e/0411-runtime-error-names.sh):
 * each must name the call the program made.
 *
 * Usage: error-names HOW, on every node (3 or more):
 *   mismatch   node 0 calls gsum0, the others bcast0: a deadlock
 *   close0     node 1 exits without close0; the others call close0
 *   sync0      the same, the others calling sync0
 *   clocksync0 the same, the others calling clocksync0
 *   tracenode  the same, the others calling tracenode(0, 1, 1)
 *   open0      tracenode(0, 1, 1) before open0 (its clocksync0 is done
 *              in open0), node 1 exiting instead of calling open0
 *   gsum0      node 1 exits; the others call gsum0 rooted at node 0
 *   send0      node 1 exits; node 0 sends it 64 KiB messages until one
 *              fails (the others call close0)
 *   short      bcast0 of 100 bytes from node 0 into 10 elsewhere
 *
 * Exits 0 only if nothing failed (which is wrong for every HOW).
 */
#include <picl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "";
	int np, me, host, x = 1, k;
	static char buf[1 << 16];

	if (strcmp(how, "open0") == 0) {
		tracenode(0, 1, 1);
		if (getenv("PICL_RANK") && atoi(getenv("PICL_RANK")) == 1)
			exit(3);
	}
	open0(&np, &me, &host);
	if (strcmp(how, "mismatch") == 0) {
		if (me == 0)
			gsum0(&x, 1, PICL_INT, 3, 0);
		else
			bcast0(buf, 8, 4, 0);
	} else if (strcmp(how, "short") == 0) {
		bcast0(buf, me == 0 ? 100 : 10, 4, 0);
	} else if (strcmp(how, "open0") == 0) {
		/* node 1 never came */
	} else if (me == 1) {
		exit(3);
	} else if (strcmp(how, "sync0") == 0) {
		sync0();
	} else if (strcmp(how, "clocksync0") == 0) {
		clocksync0();
	} else if (strcmp(how, "tracenode") == 0) {
		tracenode(0, 1, 1);
	} else if (strcmp(how, "gsum0") == 0) {
		gsum0(&x, 1, PICL_INT, 3, 0);
	} else if (strcmp(how, "send0") == 0 && me == 0) {
		for (k = 0; k < 100000; k++)
			send0(buf, sizeof buf, 5, 1);
	}
	close0(0);
	return 0;
}
