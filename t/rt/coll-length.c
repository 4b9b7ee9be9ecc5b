/*
 * coll-length.c - collectives whose size differs between the nodes
 * (t/e2e/0409-runtime-coll-length.sh): the node that receives a message of
 * another length than it expects must fail with the runtime's common error
 * rather than fold in, or leave in buf, what its buffer held before.
 *
 * Usage: coll-length CALL HOW, on every node; CALL is one of gsum0 gprod0
 * gmax0 gmin0 gand0 gor0 gxor0 gcomb0 bcast0 bcast1 gather0, rooted at
 * node 0, and HOW says what the root gives, the other nodes giving the
 * usual size (reductions 1 item, bcast0 100 bytes, bcast1 4500 bytes,
 * gather0 n = 1):
 *
 *   same   the same as the others: the call works, its result is checked
 *   more   more (reductions 2 items: the others' contributions are short;
 *          bcast0 and bcast1 100 bytes more, bcast1's in its second
 *          chunk of 4096; gather0 n = 2)
 *   fewer  less (reductions 0 items, bcast0 10 bytes, bcast1 4400 bytes,
 *          short in the second chunk; gather0 n = 0)
 *   much   bcast1 only: 9000 bytes, whose second chunk is a whole one
 *
 * Tracing is on (flush mode) so that the runs leave a trace to validate.
 * Prints "ok" on the root and exits 0 after close0 when the call worked
 * with the right result, 1 when the result was wrong.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "picl.h"

static void comb_sum(void *a, void *b, int items, int datatype)
{
	int *x = a, *y = b;

	(void)datatype;
	for (int i = 0; i < items; i++)
		x[i] += y[i];
}

int main(int argc, char **argv)
{
	const char *call = argc > 1 ? argv[1] : "", *how = argc > 2 ? argv[2] : "same";
	int np, me, host, bad = 0, root;
	static char buf[9000];
	float v[64];
	int x[2];

	open0(&np, &me, &host);
	tracenode(1 << 16, 1, 0);
	root = me == 0;
	if (strncmp(call, "bcast", 5) == 0) {
		int mine = call[5] == '0' ? 100 : 4500, n = mine;

		if (root)
			n = strcmp(how, "more") == 0 ? mine + 100 :
			    strcmp(how, "much") == 0 ? 9000 :
			    strcmp(how, "fewer") == 0 ? (call[5] == '0' ? 10 : 4400) :
			    mine;
		memset(buf, root ? 'r' : '-', sizeof buf);
		(call[5] == '0' ? bcast0 : bcast1)(buf, n, 4, 0);
		for (int i = 0; i < n; i++)
			bad |= buf[i] != 'r';
	} else if (strcmp(call, "gather0") == 0) {
		int n = 1;

		if (root)
			n = strcmp(how, "more") == 0 ? 2 : strcmp(how, "fewer") == 0 ? 0 : 1;
		for (int i = 0; i < 64; i++)
			v[i] = i < n * np && i / n == me ? (float)me : -1;
		gather0(v, n, 4, 0);
		for (int i = 0; root && i < np; i++)
			bad |= v[i] != (float)i;
	} else {
		static const char *const name[] = {
			"gsum0", "gprod0", "gmax0", "gmin0", "gand0", "gor0",
			"gxor0", "gcomb0"
		};
		int k, items = 1;

		for (k = 0; k < 8 && strcmp(call, name[k]) != 0; k++)
			;
		if (k == 8) {
			fprintf(stderr, "coll-length: unknown call %s\n", call);
			return 2;
		}
		if (root)
			items = strcmp(how, "more") == 0 ? 2 : strcmp(how, "fewer") == 0 ? 0 : 1;
		x[0] = x[1] = 1;
		switch (k) {
		case 0: gsum0(x, items, PICL_INT, 4, 0); break;
		case 1: gprod0(x, items, PICL_INT, 4, 0); break;
		case 2: gmax0(x, items, PICL_INT, 4, 0); break;
		case 3: gmin0(x, items, PICL_INT, 4, 0); break;
		case 4: gand0(x, items, PICL_INT, 4, 0); break;
		case 5: gor0(x, items, PICL_INT, 4, 0); break;
		case 6: gxor0(x, items, PICL_INT, 4, 0); break;
		default: gcomb0(x, items, PICL_INT, 4, 0, comb_sum); break;
		}
		/* every node gave 1: the sums np, the others 1 (xor: np odd) */
		if (root)
			bad |= x[0] != (k == 0 || k == 7 ? np : k == 6 ? np % 2 : 1);
	}
	if (root)
		printf(bad ? "wrong\n" : "ok\n");
	close0(0);
	return bad;
}
