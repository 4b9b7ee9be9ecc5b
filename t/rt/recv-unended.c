/*
 * recv-unended.c - receives begun with recvbegin0 and never ended by
 * close0 (t/e2e/0416-runtime-recv-unended.sh).
 *
 * Usage: recv-unended HOW. Node 0 sends node 1 a message of type 7, then
 * each calls close0; before that node 1
 *   two:    begins receives of type 5 (no such message comes) and 7
 *   any:    begins a receive of any type (-1) and ends none
 *   ended:  begins receives of type 7 and 5, ends the first with recvend0
 *           and, once node 0 sent it one of type 5 too, the second with
 *           recvstatus0 (nothing is left begun)
 */
#include <picl.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "";
	int np, me, host, x = 1, y = 0, z = 0;

	tracenode(1 << 16, 1, 0);
	open0(&np, &me, &host);
	if (me == 0) {
		send0(&x, sizeof x, 7, 1);
		if (strcmp(how, "ended") == 0)
			send0(&x, sizeof x, 5, 1);
	} else if (me == 1 && strcmp(how, "two") == 0) {
		recvbegin0(&y, sizeof y, 5);
		recvbegin0(&z, sizeof z, 7);
	} else if (me == 1 && strcmp(how, "any") == 0) {
		recvbegin0(&y, sizeof y, -1);
	} else if (me == 1 && strcmp(how, "ended") == 0) {
		recvbegin0(&y, sizeof y, 7);
		recvbegin0(&z, sizeof z, 5);
		recvend0(7);
		while (!recvstatus0(5))
			;
	}
	close0(0);
	return 0;
}
