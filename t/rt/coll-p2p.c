/*
 * coll-p2p.c - the collectives and the program's point-to-point messages
 * never take each other's messages (t/e2e/0645-runtime-coll-p2p.sh).
 *
 * Usage: coll-p2p [trace]   on any number of processes. For each root (0
 * and the last node) and each collective (gsum0, bcast0, gather0), the
 * "checkers" being the nodes its messages go to first (the root of gsum0
 * and gather0, the other nodes of bcast0) and the others the senders:
 *  1. the senders do the collective, then send the checkers a message of
 *     another type; the checkers take those with recv0(-1) before they do
 *     the collective (some of the collective's messages have arrived by
 *     then: a recv0(-1) that took one would leave the collective waiting);
 *  2. the senders send the checkers a message of the collective's own type
 *     first, then do the collective; the checkers do the collective, then
 *     receive those messages with recv0 of that type;
 *  3. after a sync0 (the senders have done the collective), probe0(-1) at
 *     the checkers finds nothing;
 *  4. recvinfo0 after a collective still reports the program's last
 *     message.
 * With "trace", tracing is on at PICL level 3 (the collectives' messages
 * are recorded with their types).
 *
 * Usage: coll-p2p reserved CALL [nocheck]: CALL (gsum0, bcast0 or gather0)
 * with message type 950000000, reserved for PICL: an error, unless
 * "nocheck" turns checking off (check0(0)), and then it works.
 *
 * Exit 0 when every value came right, 1 (with what went wrong on stdout)
 * otherwise.
 */
#include <picl.h>

#include <stdio.h>
#include <string.h>

#define T_COLL  7
#define T_OTHER 8

static int np, me, host, bad;

static void check(int ok, const char *what, int root, const char *coll)
{
	if (!ok) {
		printf("node %d: root %d, %s: %s\n", me, root, coll, what);
		bad++;
	}
}

/* Collective k (0 gsum0, 1 bcast0, 2 gather0) rooted at root; checks the
 * result at the root (and everywhere for bcast0). */
static void collective(int k, int root)
{
	int x = me + 1, i, ok;
	char b[64];
	float v[64];

	switch (k) {
	case 0:
		gsum0(&x, 1, PICL_INT, T_COLL, root);
		check(me != root || x == np * (np + 1) / 2, "gsum0 result", root, "gsum0");
		break;
	case 1:
		memset(b, me == root ? 'a' + root : 0, sizeof b);
		bcast0(b, sizeof b, T_COLL, root);
		for (i = 0, ok = 1; i < (int)sizeof b; i++)
			ok &= b[i] == 'a' + root;
		check(ok, "bcast0 result", root, "bcast0");
		break;
	default:
		for (i = 0; i < np; i++)
			v[i] = i == me ? (float)(100 + me) : -1;
		gather0(v, 1, T_COLL, root);
		for (i = 0, ok = 1; i < np && me == root; i++)
			ok &= v[i] == (float)(100 + i);
		check(ok, "gather0 result", root, "gather0");
		break;
	}
}

static const char *name[] = { "gsum0", "bcast0", "gather0" };

/* Point-to-point message of type to the checkers (root: every other node;
 * others: the root). */
static void post(int type, int value, int down, int root)
{
	int m = value;

	send0((char *)&m, sizeof m, type, down ? -1 : root);
}

int main(int argc, char **argv)
{
	int k, r, root, i, n, len, type, src, m, down, checker;

	if (argc > 2 && strcmp(argv[1], "reserved") == 0) {
		float v[64] = { 0 };
		char b[4] = "abc";

		open0(&np, &me, &host);
		if (argc > 3)
			check0(0);
		m = 1;
		if (strcmp(argv[2], "gsum0") == 0)
			gsum0(&m, 1, PICL_INT, 950000000, 0);
		else if (strcmp(argv[2], "bcast0") == 0)
			bcast0(b, sizeof b, 950000000, 0);
		else
			gather0(v, 1, 950000000, 0);
		check(me != 0 || m == np || strcmp(argv[2], "gsum0") != 0,
		      "gsum0 result", 0, argv[2]);
		printf("coll-p2p: node %d: %d wrong\n", me, bad);
		close0(0);
		return bad != 0;
	}
	if (argc > 1 && strcmp(argv[1], "trace") == 0)
		tracenode(1 << 20, 1, 0);
	open0(&np, &me, &host);
	if (argc > 1)
		tracelevel(3, 1, 1);
	for (r = 0; r < 2; r++) {
		root = r ? np - 1 : 0;
		for (k = 0; k < 3; k++) {
			const char *c = name[k];

			/* The checkers are the nodes the collective's messages go
			 * to first: the root (gsum0, gather0) or the others
			 * (bcast0); they take n messages from the other side. */
			down = k == 1;
			checker = down ? me != root : me == root;
			n = down ? 1 : np - 1;

			/* 1: recv0(-1) where the collective's messages are */
			if (!checker) {
				collective(k, root);
				post(T_OTHER, 1000 + me, down, root);
			} else {
				for (i = 0; i < n; i++) {
					m = -1;
					recv0((char *)&m, sizeof m, -1);
					recvinfo0(&len, &type, &src);
					check(type == T_OTHER && len == (int)sizeof m &&
					      m == 1000 + src, "recv0(-1) took a "
					      "collective's message", root, c);
				}
				collective(k, root);
			}
			sync0();        /* no message of step 2 meets step 1's recv0(-1) */
			/* 2 and 4: messages of the collective's type before it */
			if (!checker) {
				post(T_COLL, 2000 + me, down, root);
				collective(k, root);
			} else {
				collective(k, root);
				for (i = 0; i < n; i++) {
					m = -1;
					recv0((char *)&m, sizeof m, T_COLL);
					recvinfo0(&len, &type, &src);
					check(type == T_COLL && m == 2000 + src,
					      "recv0 of the type got a collective's "
					      "message", root, c);
				}
			}
			if (np > 1) {
				collective(k, root);
				if (checker) {
					recvinfo0(&len, &type, &src);
					check(type == T_COLL && len == (int)sizeof m &&
					      m == 2000 + src, "recvinfo0 changed by "
					      "the collective", root, c);
				}
			}
			/* 3: the collective's messages are not the program's */
			if (!checker) {
				collective(k, root);
				sync0();
			} else {
				sync0();
				check(!probe0(-1), "probe0(-1) saw a collective's "
				      "message", root, c);
				collective(k, root);
			}
			sync0();
		}
	}
	printf("coll-p2p: node %d: %d wrong\n", me, bad);
	close0(0);
	return bad != 0;
}
