/*
 * api-args.c - arguments the PICL calls must refuse, and what setarc0
 * reports (t/e2e/0655-runtime-api-args.sh). argv[1] says what node 0 (or
 * every node) does after open0 and tracenode; the others then wait in
 * close0, and must fail in their turn when node 0 fails:
 *
 *   negsend    check0(0), then send0 of type -5 to node 1 (node 1 does a
 *              gsum0 of type 3, whose messages travel as type -5): refused
 *   negrecv    check0(0), then recv0 of type -5 after a gsum0 of type 3:
 *              refused
 *   negprobe   check0(0), then probe0(-5): refused
 *   load0 N    check0(0), then load0("prog", N): N must be a node
 *   sendend    sendbegin0 and sendend0 of type 4 (fine), then sendend0(4)
 *              again: no send of type 4 was begun any more
 *   sendstatus sendstatus0(6) with no sendbegin0 at all
 *   setarc ORD every node: setarc0(all nodes, hypercube, ORD, 1), then
 *              prints "setarc0 ORD getarc0 ORD" (what each wrote back) and
 *              does a gsum0 of every node's id + 1 (checked at root 0)
 *   colldt     every node: gsum0 with an unknown datatype (9)
 *   userev     traceblockbegin/end(900000001), tracemark(900000003),
 *              tracemarks of 900000005 and 7, tracedata(1073741823, ...):
 *              refused; then block 899999999 and mark 1073741824 (fine)
 *
 * Exit 0 after close0 when nothing failed; a refused call ends the run
 * with the runtime's error (exit status 1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "picl.h"

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "";
	int np, me, host, x = 1, bad = 0;

	open0(&np, &me, &host);
	tracenode(1 << 16, 1, 0);
	tracelevel(1, 1, 1);
	if (strcmp(how, "negsend") == 0) {
		check0(0);
		if (me == 0)
			send0((char *)&x, sizeof x, -5, 1);
		gsum0(&x, 1, PICL_INT, 3, 1);
	} else if (strcmp(how, "negrecv") == 0) {
		check0(0);
		gsum0(&x, 1, PICL_INT, 3, 0);
		if (me == 0)
			recv0((char *)&x, sizeof x, -5);
	} else if (strcmp(how, "negprobe") == 0 && me == 0) {
		check0(0);
		printf("probe0(-5) = %d\n", probe0(-5));
	} else if (strcmp(how, "load0") == 0 && me == 0) {
		check0(0);
		load0("prog", argc > 2 ? atoi(argv[2]) : 0);
	} else if (strcmp(how, "sendend") == 0 && me == 0) {
		sendbegin0((char *)&x, sizeof x, 4, 0);
		sendend0(4);
		recv0((char *)&x, sizeof x, 4);
		sendend0(4);
	} else if (strcmp(how, "sendstatus") == 0 && me == 0) {
		sendstatus0(6);
	} else if (strcmp(how, "setarc") == 0) {
		int n = np, top = 1, ord = argc > 2 ? atoi(argv[2]) : 0, dir = 1;
		int n2, top2, ord2, dir2;

		setarc0(&n, &top, &ord, &dir);
		getarc0(&n2, &top2, &ord2, &dir2);
		if (me == 0)
			printf("setarc0 %d getarc0 %d\n", ord, ord2);
		x = me + 1;
		gsum0(&x, 1, PICL_INT, 3, 0);
		if (me == 0 && x != np * (np + 1) / 2) {
			printf("gsum0: %d, expected %d\n", x, np * (np + 1) / 2);
			bad = 1;
		}
	} else if (strcmp(how, "colldt") == 0) {
		gsum0(&x, 1, 9, 3, 0);
	} else if (strcmp(how, "userev") == 0) {
		int types[2] = { 900000005, 7 };
		double d = 1;

		traceblockbegin(900000001, 0, 0);
		traceblockend(900000001, 0, 0);
		tracemark(900000003);
		tracemarks(types, 2);
		tracedata(1073741823, 0, "double", 1, &d);
		traceblockbegin(899999999, 0, 0);
		traceblockend(899999999, 0, 0);
		tracemark(1073741824);
	}
	close0(0);
	return bad;
}
