/*
 * ring-stress.c - the local engine's rings under load
 * (t/e2e/0990-runtime-ring-stress.sh): every process of the run walks the
 * same pseudo-random schedule of NMSG messages (source, destination, type
 * 0..7, size 0 to about 10 rings of PICL_RING_SIZE=4096, messages to
 * oneself included), sends those it is the source of (send0, or sendbegin0
 * and sendend0), and between them receives what it was sent, with a
 * pseudo-random mix of recv0 of a type or of any (-1), probe0 then recv0,
 * wait0 then recv0, recvbegin0 with recvend0 or recvstatus0 polling, and
 * an opportunistic probe0(-1). A blocking call is made only for a type of
 * which a message scheduled before the process's position is unreceived,
 * so the run cannot deadlock however the processes are scheduled.
 *
 * Each message's bytes are a pattern of (index in the schedule, source,
 * type); each receive is checked: length, type and source as recvinfo0
 * says, every byte, and the order: a receive of a type gets the oldest
 * unreceived message of that type from its source, a receive of any type
 * the oldest unreceived message from its source.
 *
 * Usage: ring-stress SEED NMSG [trace], on any number of processes. Exit 0
 * when every message came right, 1 (with what went wrong on stdout)
 * otherwise; node 0 prints "ring-stress: N messages, 0 wrong" per node.
 */
#include <picl.h>

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXMSG 20000
#define MAXLEN 40960
#define NTYPES 8

static int nmsg, me, nprocs, bad;
static short msrc[MAXMSG], mdst[MAXMSG], mtype[MAXMSG];
static int mlen[MAXMSG];
static unsigned char got[MAXMSG];
static int mine[MAXMSG], nmine;         /* the messages to me, in order */
static unsigned char sbuf[MAXLEN], rbuf[MAXLEN + 64];

static unsigned long long sched_seed, my_seed;

static unsigned rnd(unsigned long long *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)(*s >> 33);
}

static unsigned char pat(int idx, int k)
{
	unsigned x = (unsigned)idx * 2654435761u ^ (unsigned)msrc[idx] << 20 ^
		     (unsigned)mtype[idx] << 27;

	return (unsigned char)((x >> ((k & 3) * 8)) + (unsigned)k +
			       ((unsigned)k >> 8));
}

static int size_of(unsigned r)
{
	unsigned c = r % 100, v = r / 100;

	if (c < 5)
		return 0;
	if (c < 30)
		return 1 + (int)(v % 64);
	if (c < 55)
		return 65 + (int)(v % 944);             /* one frame */
	if (c < 75)
		return 1009 + (int)(v % 3088);          /* a few frames */
	if (c < 92)
		return 4097 + (int)(v % 12288);         /* larger than a ring */
	return 16385 + (int)(v % (MAXLEN - 16385)); /* chunked by size */
}

static void complain(int k, const char *call, int want, const char *what,
		     int idx, int len, int ty, int src)
{
	if (bad++ < 10)
		printf("node %d: receive after step %d (%s of type %d): %s: "
		       "got %d bytes of type %d from %d, expected message %d "
		       "(%d bytes of type %d from %d)\n", me, k, call, want,
		       what, len, ty, src, idx, idx >= 0 ? mlen[idx] : -1,
		       idx >= 0 ? mtype[idx] : -1, idx >= 0 ? msrc[idx] : -1);
}

/* Check what the last receive (of type want) took. */
static void check(int k, const char *call, int want)
{
	int len, ty, src, i, idx = -1, older = -1, j;

	recvinfo0(&len, &ty, &src);
	if (src < 0 || src >= nprocs || ty < 0 || ty >= NTYPES ||
	    (want != -1 && ty != want)) {
		complain(k, call, want, "not a message sent", -1, len, ty, src);
		return;
	}
	for (j = 0; j < nmine && idx < 0; j++) {
		i = mine[j];
		if (msrc[i] != src || got[i])
			continue;
		if (older < 0)
			older = i;
		if (mtype[i] == ty)
			idx = i;
	}
	if (idx < 0) {
		complain(k, call, want, "no such message unreceived", -1, len,
			 ty, src);
		return;
	}
	got[idx] = 1;
	if (want == -1 && older != idx)
		complain(k, call, want, "an older message of its source "
			 "was left", older, len, ty, src);
	if (len != mlen[idx]) {
		complain(k, call, want, "wrong length", idx, len, ty, src);
		return;
	}
	for (j = 0; j < len; j++)
		if (rbuf[j] != pat(idx, j)) {
			char what[64];
			snprintf(what, sizeof what, "byte %d is %d, not %d", j,
				 rbuf[j], pat(idx, j));
			complain(k, call, want, what, idx, len, ty, src);
			return;
		}
}

/* A type of which a message scheduled before step k is unreceived, or -2;
 * with any set, -1 when there is one. */
static int pending_type(int k, int any)
{
	int j, n = 0, pick;

	for (j = 0; j < nmine && mine[j] < k; j++)
		n += !got[mine[j]];
	if (!n)
		return -2;
	if (any)
		return -1;
	pick = (int)(rnd(&my_seed) % (unsigned)n);
	for (j = 0; j < nmine && mine[j] < k; j++)
		if (!got[mine[j]] && pick-- == 0)
			return mtype[mine[j]];
	return -2;
}

/* One receive of a message scheduled before step k, if any is left. */
static int receive_one(int k)
{
	unsigned how = rnd(&my_seed) % 7;
	int t = pending_type(k, how == 1), spins = 0;

	if (t == -2)
		return 0;
	switch (how) {
	case 0:
	case 1:
		recv0((char *)rbuf, sizeof rbuf, t);
		check(k, "recv0", t);
		break;
	case 2:
		while (!probe0(t))
			if (++spins % 16 == 0)
				sched_yield();
		recv0((char *)rbuf, sizeof rbuf, t);
		check(k, "probe0+recv0", t);
		break;
	case 3:
		wait0(t);
		recv0((char *)rbuf, sizeof rbuf, t);
		check(k, "wait0+recv0", t);
		break;
	case 4:
		recvbegin0((char *)rbuf, sizeof rbuf, t);
		recvend0(t);
		check(k, "recvbegin0+recvend0", t);
		break;
	case 5:
		recvbegin0((char *)rbuf, sizeof rbuf, t);
		while (!recvstatus0(t))
			if (++spins % 16 == 0)
				sched_yield();
		check(k, "recvbegin0+recvstatus0", t);
		break;
	default:
		if (probe0(-1)) {
			recv0((char *)rbuf, sizeof rbuf, -1);
			check(k, "probe0(-1)+recv0", -1);
		}
		break;
	}
	return 1;
}

int main(int argc, char **argv)
{
	int host, i, j, k;

	if (argc < 3) {
		fprintf(stderr, "usage: ring-stress SEED NMSG [trace]\n");
		return 2;
	}
	sched_seed = strtoull(argv[1], NULL, 10);
	nmsg = atoi(argv[2]);
	if (nmsg < 1 || nmsg > MAXMSG) {
		fprintf(stderr, "ring-stress: NMSG must be 1..%d\n", MAXMSG);
		return 2;
	}
	if (argc > 3 && strcmp(argv[3], "trace") == 0)
		tracenode(1 << 24, 1, 0);
	open0(&nprocs, &me, &host);
	my_seed = sched_seed * 1000003ULL + (unsigned long long)me + 1;
	for (i = 0; i < nmsg; i++) {
		msrc[i] = (short)(rnd(&sched_seed) % (unsigned)nprocs);
		mdst[i] = (short)(rnd(&sched_seed) % (unsigned)nprocs);
		mtype[i] = (short)(rnd(&sched_seed) % NTYPES);
		mlen[i] = size_of(rnd(&sched_seed));
		if (mdst[i] == me)
			mine[nmine++] = i;
	}
	for (k = 0; k < nmsg; k++) {
		if (msrc[k] == me) {
			for (j = 0; j < mlen[k]; j++)
				sbuf[j] = pat(k, j);
			if (rnd(&my_seed) % 4) {
				send0((char *)sbuf, mlen[k], mtype[k], mdst[k]);
			} else {
				sendbegin0((char *)sbuf, mlen[k], mtype[k], mdst[k]);
				sendend0(mtype[k]);
			}
		}
		/* now and then, a few receives */
		if (rnd(&my_seed) % 3 == 0)
			for (j = (int)(rnd(&my_seed) % 4); j > 0; j--)
				receive_one(k);
	}
	while (receive_one(nmsg))
		;
	for (j = 0; j < nmine; j++)
		if (!got[mine[j]]) {
			printf("node %d: message %d never received\n", me,
			       mine[j]);
			bad++;
		}
	printf("ring-stress: node %d: %d messages, %d wrong\n", me, nmine,
	       bad);
	fflush(stdout);
	close0(0);
	return bad != 0;
}
