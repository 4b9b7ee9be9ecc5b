/*
 * recv-order.c - every receive call gets the oldest unreceived message it
 * matches, whatever mix of calls takes them (t/e2e/0635-runtime-order.sh).
 *
 * Usage: recv-order [SEED [NMSG [trace]]] on 2 processes (with "trace",
 * the run is traced at the default level). Process 1 sends NMSG
 * messages of pseudo-random type (1..4) and size (both sides draw the same
 * sequence from SEED), each carrying its sequence number; process 0 takes
 * them with a pseudo-random mix of recv0 (a type or -1), probe0 + recv0,
 * recvbegin0 + recvend0, and recvbegin0 + recvstatus0 polling, and checks
 * each message against the oldest one not yet received of the type asked
 * for. Before that, a fixed case: a message already queued (it arrived
 * while process 0 waited for another type) and a newer one of the same type
 * still in the backend; recvbegin0 must take the queued one, and neither
 * may be lost.
 *
 * Exit 0 when every message came in order, 1 (with what went wrong on
 * stdout) otherwise.
 */
#include <picl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXMSG 2000

static unsigned seed = 1;

static unsigned rnd(void)
{
	seed = seed * 1103515245u + 12345u;
	return (seed >> 16) & 0x7fff;
}

static int types[MAXMSG], sizes[MAXMSG], got[MAXMSG];

/* The fixed case: two messages of type 5, the first queued, the second
 * still in the backend when recvbegin0 is called. */
static int queued_then_backend(int me)
{
	int a = 0, b = 0, go = 0;

	if (me == 1) {
		a = 1;
		send0((char *)&a, sizeof(a), 5, 0);
		send0((char *)&a, sizeof(a), 7, 0);
		recv0((char *)&go, sizeof(go), 8);
		a = 2;
		send0((char *)&a, sizeof(a), 5, 0);
		return 0;
	}
	recv0((char *)&a, sizeof(a), 7);         /* the first type 5 is queued */
	send0((char *)&go, sizeof(go), 8, 1);
	usleep(200000);                          /* the second one arrives */
	recvbegin0((char *)&a, sizeof(a), 5);
	recvend0(5);
	recv0((char *)&b, sizeof(b), 5);
	if (a != 1 || b != 2) {
		printf("queued then backend: got %d then %d, expected 1 then 2\n", a, b);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static char buf[300000];
	static const int sz[] = { 4, 8, 100, 4095, 4096, 4097, 9000, 16384, 16385,
				  40000, 270000 };
	int n, me, host, i, k, nmsg = 400, bad = 0;

	if (argc > 1)
		seed = (unsigned)atoi(argv[1]);
	if (argc > 2)
		nmsg = atoi(argv[2]);
	if (nmsg < 1 || nmsg > MAXMSG) {
		fprintf(stderr, "recv-order: NMSG must be 1..%d\n", MAXMSG);
		return 2;
	}
	if (argc > 3 && strcmp(argv[3], "trace") == 0)
		tracenode(1 << 22, 1, 0);
	for (i = 0; i < nmsg; i++) {
		types[i] = 1 + (int)(rnd() % 4);
		sizes[i] = sz[rnd() % (sizeof(sz) / sizeof(sz[0]))];
	}
	open0(&n, &me, &host);
	if (n != 2) {
		if (me == 0)
			fprintf(stderr, "recv-order: run it on 2 processes\n");
		close0(0);
		return 2;
	}
	bad = queued_then_backend(me);
	if (me == 1) {
		for (i = 0; i < nmsg; i++) {
			memcpy(buf, &i, sizeof(i));
			send0(buf, sizes[i], types[i], 0);
		}
	}
	for (k = 0; me == 0 && k < nmsg && bad < 5; k++) {
		int how = (int)(rnd() % 5), want, seq = -1, len, ty, src, exp = -1, j;

		want = how == 0 ? -1 : 1 + (int)(rnd() % 4);
		for (j = 0; j < nmsg && exp < 0; j++)
			if (!got[j] && (want == -1 || types[j] == want))
				exp = j;
		if (exp < 0) {          /* none left of that type: any */
			want = -1;
			for (j = 0; j < nmsg && exp < 0; j++)
				if (!got[j])
					exp = j;
		}
		switch (how) {
		case 2:
			while (!probe0(want))
				;
			recv0(buf, sizeof(buf), want);
			break;
		case 3:
			recvbegin0(buf, sizeof(buf), want);
			recvend0(want);
			break;
		case 4:
			recvbegin0(buf, sizeof(buf), want);
			while (!recvstatus0(want))
				;
			break;
		default:
			recv0(buf, sizeof(buf), want);
			break;
		}
		recvinfo0(&len, &ty, &src);
		memcpy(&seq, buf, sizeof(seq));
		if (seq != exp || len != sizes[exp] || ty != types[exp] || src != 1) {
			printf("receive %d (call %d, type %d): got message %d (%d bytes, type %d, "
			       "from %d), expected %d (%d bytes, type %d)\n", k, how, want, seq,
			       len, ty, src, exp, sizes[exp], types[exp]);
			bad++;
		}
		if (seq >= 0 && seq < nmsg)
			got[seq] = 1;
	}
	if (me == 0)
		printf("recv-order: %d messages, %d wrong\n", nmsg, bad);
	close0(0);
	return bad != 0;
}
