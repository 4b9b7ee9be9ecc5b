/*
 * allcalls.c - every traced PICL call at least once, on 2 or more nodes:
 * the communication calls (blocking, non-blocking, probes, status tests,
 * wait0, sync0, clocksync0, load0, message0, check0), the collectives and
 * the trace* calls. Exits 1 if a value that came back is wrong. The e2e
 * test (t/e2e/0630-runtime-calls.sh) checks which event types its trace
 * holds and that `picltrace validate` accepts it.
 */
#include <picl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bad;

static void expect(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "allcalls: %s\n", what);
		bad = 1;
	}
}

static void comb(void *a, void *b, int items, int datatype)
{
	int i, *x = a, *y = b;

	(void)datatype;
	for (i = 0; i < items; i++)
		x[i] = x[i] > y[i] ? x[i] : y[i];
}

int main(void)
{
	int nprocs, me, host, n2, me2, host2, bytes, type, src;
	int remaining, lp, lu, lt, top, ord, dir, np;
	int v, w, marks[2] = { 7, 8 };
	double d, t;
	float *vec;
	char buf[64], msg[64];

	tracefiles("", "", 0);
	tracelevel(1, 1, 1);
	traceevents(4, 1, 1, 1, 1);
	tracenode(1 << 20, 1, 0);
	check0(1);
	open0(&nprocs, &me, &host);
	who0(&n2, &me2, &host2);
	expect(n2 == nprocs && me2 == me && host2 == host, "who0");
	expect(host0() == 0, "host0 in a hostless run");
	clocksync0();
	t = clock0();
	traceinfo(&remaining, &lp, &lu, &lt);
	expect(remaining > 0, "traceinfo");
	tracemark(5);
	tracemarks(marks, 2);
	d = me + 0.5;
	tracedata(3, 0, "double", 1, &d);
	snprintf(msg, sizeof msg, "node %d at %.6f", me, t);
	tracemsg(msg);
	traceblockbegin(2, 0, 0);

	/* point to point between 0 and 1 */
	if (me == 0) {
		v = 42;
		send0((char *)&v, sizeof v, 1, 1);
		sendbegin0((char *)&v, sizeof v, 2, 1);
		expect(sendstatus0(2) == 1, "sendstatus0");
		sendbegin0((char *)&v, sizeof v, 3, 1);
		sendend0(3);
		send0((char *)&v, sizeof v, 4, -1);    /* to every other node */
		recv0((char *)&w, sizeof w, 5);
		expect(w == 43, "recv0 from 1");
	} else if (me == 1) {
		wait0(1);
		expect(probe0(1) == 1, "probe0 finds type 1");
		expect(probe0(99) == 0, "probe0 finds no type 99");
		recv0((char *)&w, sizeof w, 1);
		recvinfo0(&bytes, &type, &src);
		expect(w == 42 && bytes == sizeof w && type == 1 && src == 0,
		       "recv0/recvinfo0");
		recvbegin0((char *)&w, sizeof w, 2);
		while (!recvstatus0(2))
			;
		recvbegin0((char *)&w, sizeof w, 3);
		recvend0(3);
		expect(w == 42, "recvend0");
		recv0((char *)&w, sizeof w, -1);
		expect(w == 42, "broadcast");
		v = 43;
		send0((char *)&v, sizeof v, 5, 0);
	} else {
		recv0((char *)&w, sizeof w, 4);
		expect(w == 42, "broadcast");
	}
	traceblockend(2, 0, 0);
	sync0();
	message0("allcalls: point to point done");
	if (me == 0)
		load0("allcalls", -1);

	/* collectives */
	np = nprocs; top = 2; ord = 0; dir = 1;
	setarc0(&np, &top, &ord, &dir);
	getarc0(&np, &top, &ord, &dir);
	strcpy(buf, me == 0 ? "hello" : "");
	bcast0(buf, 6, 20, 0);
	expect(strcmp(buf, "hello") == 0, "bcast0");
	strcpy(buf, me == 0 ? "world" : "");
	bcast1(buf, 6, 21, 0);
	expect(strcmp(buf, "world") == 0, "bcast1");
	v = me; gsum0(&v, 1, PICL_INT, 22, 0);
	if (me == 0) expect(v == nprocs * (nprocs - 1) / 2, "gsum0");
	/* (values that fit an int on any number of nodes: 1 << me and
	 * nprocs! overflow from 32 and 13 nodes on) */
	v = me < 12 ? me + 1 : 1; gprod0(&v, 1, PICL_INT, 23, 0);
	v = me; gmax0(&v, 1, PICL_INT, 24, 0);
	if (me == 0) expect(v == nprocs - 1, "gmax0");
	v = me; gmin0(&v, 1, PICL_INT, 25, 0);
	if (me == 0) expect(v == 0, "gmin0");
	v = 1 << (me % 30); gand0(&v, 1, PICL_INT, 26, 0);
	v = 1 << (me % 30); gor0(&v, 1, PICL_INT, 27, 0);
	if (me == 0) expect(v == (1 << (nprocs < 30 ? nprocs : 30)) - 1, "gor0");
	v = 1 << (me % 30); gxor0(&v, 1, PICL_INT, 28, 0);
	v = me; gcomb0(&v, 1, PICL_INT, 29, 0, comb);
	if (me == 0) expect(v == nprocs - 1, "gcomb0");
	/* one float per node (a fixed 64 was written past from node 64 on) */
	vec = calloc((size_t)nprocs, sizeof *vec);
	if (!vec)
		return 1;
	vec[me] = (float)me;
	gather0(vec, 1, 30, 0);
	if (me == 0) expect(vec[nprocs - 1] == (float)(nprocs - 1), "gather0");
	free(vec);
	barrier0();

	traceflush();
	check0(0);
	close0(0);
	return bad;
}
