/*
 * collectives.c - checks every PICL collective (setarc0/getarc0, bcast0,
 * bcast1, gsum0 ... gxor0, gcomb0, gather0, barrier0) on however many
 * processes run it, and exits non-zero if any result is wrong.
 *
 *   piclrun -n N collectives [-q] [-t] [-l LEVEL] [-s TRACESIZE] [-x]
 *
 * -t traces the run (tracenode(TRACESIZE, flush 1, sync 1), TRACESIZE
 * 4 MB unless -s says otherwise); -l LEVEL sets tracelevel(LEVEL, 1, 1)
 * first (3 also traces the messages inside the collectives); -q checks
 * only the default architecture (a shorter run); -x makes a bad call
 * instead (gand0 on doubles), which must stop the run with a message. Every node
 * checks what it has after each call: the root the combined values, the
 * other nodes that their buffer is unchanged (PICL leaves a global
 * operation's result at the root only). The run goes through every
 * architecture setarc0 offers (hypercube, full, uni- and bi-ring, natural
 * and Gray order, both directions), every root, every datatype and
 * operation, messages of several sizes (bcast1 over several chunks), then
 * back-to-back collectives with the same message type and changing roots
 * (messages of one may overtake those of the next), a subset architecture,
 * and a barrier timed against a node that comes late. A wrong result is
 * reported on standard error as "node I: what: detail"; the exit status is
 * 1 on every node that saw one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "picl.h"

static int P, me, fails;
static char where[128];		/* what is being checked, for messages */

/* Report a wrong result: each "%ld" in msg is replaced by the next of a,
 * b, c (done by hand, so msg never reaches printf as a format). */
static void bad(const char *msg, long a, long b, long c)
{
	const long v[3] = { a, b, c };
	int k = 0;

	if (++fails > 20)
		return;
	fprintf(stderr, "node %d: %s: ", me, where);
	for (; *msg; msg++) {
		if (msg[0] == '%' && msg[1] == 'l' && msg[2] == 'd' && k < 3) {
			fprintf(stderr, "%ld", v[k++]);
			msg += 2;
		} else {
			fputc(*msg, stderr);
		}
	}
	fputc('\n', stderr);
}

/* ---- global operations ------------------------------------------------- */

enum { SUM, PROD, MAX, MIN, AND, OR, XOR, NOPS };
static const char *const opname[NOPS] = {
	"gsum0", "gprod0", "gmax0", "gmin0", "gand0", "gor0", "gxor0"
};
static void (*const opfn[NOPS])(void *, int, int, int, int) = {
	gsum0, gprod0, gmax0, gmin0, gand0, gor0, gxor0
};
static const size_t tsize[6] = {
	sizeof(signed char), sizeof(short), sizeof(int), sizeof(long),
	sizeof(float), sizeof(double)
};

/* Node `node`'s value of item `i` for op: small enough that every result
 * is exact in every datatype (char included). */
static long value(int op, int node, int i)
{
	switch (op) {
	case SUM:  return (node * 3 + i) % 5 - 2;
	case PROD: return i % P == node ? 2 : (node + i) % 3 == 0 ? -1 : 1;
	case MAX:
	case MIN:  return (node * 7 + i * 5) % 13 - 6;
	case AND:  return 0x7f & ~(1L << ((node + i) % 7));
	case OR:   return 1L << ((node + i) % 7);
	default:   return (node * 37 + i * 11) & 0x7f;
	}
}

static long fold(int op, long a, long b)
{
	switch (op) {
	case SUM:  return a + b;
	case PROD: return a * b;
	case MAX:  return a > b ? a : b;
	case MIN:  return a < b ? a : b;
	case AND:  return a & b;
	case OR:   return a | b;
	default:   return a ^ b;
	}
}

static void put(void *buf, int dt, int i, long v)
{
	switch (dt) {
	case PICL_CHAR:   ((signed char *)buf)[i] = (signed char)v; break;
	case PICL_SHORT:  ((short *)buf)[i] = (short)v; break;
	case PICL_INT:    ((int *)buf)[i] = (int)v; break;
	case PICL_LONG:   ((long *)buf)[i] = v; break;
	case PICL_FLOAT:  ((float *)buf)[i] = (float)v; break;
	default:          ((double *)buf)[i] = (double)v; break;
	}
}

/* Item i as a long (the values are whole numbers in every datatype). */
static long get(const void *buf, int dt, int i)
{
	switch (dt) {
	case PICL_CHAR:  return ((const signed char *)buf)[i];
	case PICL_SHORT: return ((const short *)buf)[i];
	case PICL_INT:   return ((const int *)buf)[i];
	case PICL_LONG:  return ((const long *)buf)[i];
	case PICL_FLOAT: return (long)((const float *)buf)[i];
	default:         return (long)((const double *)buf)[i];
	}
}

static void check_global(int op, int dt, int items, int root, int msgtype)
{
	void *buf = malloc(tsize[dt] * (size_t)(items ? items : 1));
	int i, n;

	if (!buf)
		abort();
	snprintf(where, sizeof where, "%s datatype %d items %d root %d",
		 opname[op], dt, items, root);
	for (i = 0; i < items; i++)
		put(buf, dt, i, value(op, me, i));
	opfn[op](buf, items, dt, msgtype, root);
	for (i = 0; i < items; i++) {
		long want = value(op, me, i);
		if (me == root)
			for (want = value(op, 0, i), n = 1; n < P; n++)
				want = fold(op, want, value(op, n, i));
		if (get(buf, dt, i) != want) {
			bad("item %ld is %ld, expected %ld", i, get(buf, dt, i),
			    want);
			break;
		}
	}
	free(buf);
}

static int ncomb;

/* gcomb0's combining function: element-wise sum of ints or doubles. */
static void add(void *a, void *b, int items, int datatype)
{
	ncomb++;
	for (int i = 0; i < items; i++)
		if (datatype == PICL_INT)
			((int *)a)[i] += ((int *)b)[i];
		else
			((double *)a)[i] += ((double *)b)[i];
}

static void check_gcomb(int dt, int root)
{
	double d[4];
	int v[4], i;

	snprintf(where, sizeof where, "gcomb0 datatype %d root %d", dt, root);
	for (i = 0; i < 4; i++) {
		v[i] = me * 10 + i;
		d[i] = me * 0.5 + i;
	}
	ncomb = 0;
	gcomb0(dt == PICL_INT ? (void *)v : (void *)d, 4, dt, 17, root, add);
	for (i = 0; i < 4; i++) {
		double want = me == root ? (dt == PICL_INT ?
			10.0 * P * (P - 1) / 2 + P * i :
			0.5 * P * (P - 1) / 2 + P * i) :
			(dt == PICL_INT ? me * 10 + i : me * 0.5 + i);
		double got = dt == PICL_INT ? v[i] : d[i];
		if (got != want) {
			bad("item %ld is %ld, expected %ld", i, (long)got,
			    (long)want);
			break;
		}
	}
	if (P > 1 && me == root && ncomb == 0)
		bad("the combining function was never called", 0, 0, 0);
}

/* ---- broadcast, gather, barrier ---------------------------------------- */

static unsigned char pattern(int root, int size, int k)
{
	return (unsigned char)((root * 31 + k * 7 + size) & 0xff);
}

static void check_bcast(int which, int size, int root, int type)
{
	unsigned char *buf = malloc((size_t)size + 1);
	int k;

	if (!buf)
		abort();
	snprintf(where, sizeof where, "bcast%d of %d bytes root %d", which,
		 size, root);
	for (k = 0; k < size; k++)
		buf[k] = me == root ? pattern(root, size, k) : 0xaa;
	(which ? bcast1 : bcast0)((char *)buf, size, type, root);
	for (k = 0; k < size; k++)
		if (buf[k] != pattern(root, size, k)) {
			bad("byte %ld is %ld, expected %ld", k, buf[k],
			    pattern(root, size, k));
			break;
		}
	free(buf);
}

static void check_gather(int n, int root, int type)
{
	float *vec = malloc(sizeof(float) * (size_t)(P * n + 1));
	int i, k;

	if (!vec)
		abort();
	snprintf(where, sizeof where, "gather0 n %d root %d", n, root);
	for (i = 0; i < P; i++)
		for (k = 0; k < n; k++)
			vec[i * n + k] = i == me ? (float)(i * 100 + k) + 0.5f : -1;
	gather0(vec, n, type, root);
	for (i = 0; i < P; i++)
		for (k = 0; k < n; k++) {
			float want = i == me || me == root ?
				(float)(i * 100 + k) + 0.5f : -1;
			if (vec[i * n + k] != want) {
				bad("vec[%ld] is %ld, expected %ld", i * n + k,
				    (long)vec[i * n + k], (long)want);
				i = P;
				break;
			}
		}
	free(vec);
}

/* ---- one architecture --------------------------------------------------- */

static void check_arc(int top, int ord, int dir, int full)
{
	static const int bsizes[] = { 0, 1, 1000, 4096, 4097, 70000 };
	int np = P, t = top, o = ord, d = dir, root, op, dt, s;

	if (top) {
		/* a Gray code exists only for a power of two: else natural */
		if (ord == 1 && (P & (P - 1)) != 0)
			ord = 0;
		setarc0(&np, &t, &o, &d);
		if (np != P || t != top || o != ord || d != dir) {
			snprintf(where, sizeof where, "setarc0(%d, %d, %d, %d)",
				 P, top, ord, dir);
			bad("changed the architecture to top %ld ord %ld dir %ld",
			    t, o, d);
		}
		getarc0(&np, &t, &o, &d);
		if (np != P || t != top || o != ord || d != dir) {
			snprintf(where, sizeof where, "getarc0 after setarc0");
			bad("top %ld ord %ld dir %ld", t, o, d);
		}
	}
	for (root = 0; root < P; root++) {
		for (s = 0; s < (int)(sizeof bsizes / sizeof *bsizes); s++) {
			check_bcast(0, bsizes[s], root, 5);
			check_bcast(1, bsizes[s], root, 6);
		}
		for (op = 0; op < NOPS; op++)
			for (dt = PICL_CHAR; dt <= PICL_DOUBLE; dt++) {
				if (op >= AND && dt >= PICL_FLOAT)
					continue;
				if (!full && dt != PICL_INT && dt != PICL_DOUBLE)
					continue;
				check_global(op, dt, 7, root, 10 + op);
			}
		check_global(SUM, PICL_DOUBLE, full ? 3000 : 100, root, 9);
		check_global(SUM, PICL_INT, 0, root, 9);
		check_gcomb(PICL_INT, root);
		check_gcomb(PICL_DOUBLE, root);
		check_gather(3, root, 20);
		check_gather(0, root, 20);
		check_gather(2000, root, 21);
		barrier0();
	}
}

/* ---- the rest ------------------------------------------------------------ */

/* Collectives back to back with one message type and roots that change:
 * a fast node's message of the next call may arrive before a slower one's
 * of this call. */
static void check_overtaking(void)
{
	for (int k = 0; k < 60; k++) {
		check_global(SUM, PICL_INT, 5, k % P, 33);
		check_bcast(k & 1, 100 + k, (k * 3 + 1) % P, 33);
		check_gather(4, (k * 5 + 2) % P, 33);
		check_global(MAX, PICL_LONG, 3, (k + 1) % P, 33);
	}
	barrier0();
}

/* setarc0 corrects what it cannot use and says so. */
static void check_setarc(void)
{
	int np = 0, t = 9, o = 5, d = 0;

	snprintf(where, sizeof where, "setarc0(0, 9, 5, 0)");
	setarc0(&np, &t, &o, &d);
	if (np != P || t != ((P & (P - 1)) == 0 ? 1 : 2) || o != 0 || d != 1)
		bad("gave nprocs %ld top %ld ord %ld (and dir)", np, t, o);
}

/* An architecture of the first P-1 nodes: node P-1 stays out. */
static void check_subset(void)
{
	int np = P - 1, t = 3, o = 0, d = 1, v = 1, i;

	setarc0(&np, &t, &o, &d);
	snprintf(where, sizeof where, "gsum0 over %d of %d nodes", P - 1, P);
	gsum0(&v, 1, PICL_INT, 40, 0);
	if (me == 0 && v != P - 1)
		bad("gave %ld, expected %ld", v, P - 1, 0);
	for (i = 0; i < 3; i++)
		barrier0();
	np = 0;
	t = 0;
	setarc0(&np, &t, &o, &d);
}

/* Nobody leaves barrier0 before the last node came in (node 0, late). */
static void check_barrier_timing(void)
{
	float *t = calloc((size_t)P, sizeof(float));
	double in = 0;

	if (!t)
		abort();
	snprintf(where, sizeof where, "barrier0 with node 0 late");
	clocksync0();
	barrier0();
	if (me == 0) {
		struct timespec ts = { 0, 50 * 1000 * 1000 };
		nanosleep(&ts, NULL);
		in = clock0();
	}
	barrier0();
	t[me] = (float)clock0();
	gather0(t, 1, 50, 0);
	if (me == 0)
		for (int i = 1; i < P; i++)
			if (t[i] < in - 0.002)
				bad("node %ld left at %ld us, node 0 came in at %ld us",
				    i, (long)(t[i] * 1e6), (long)(in * 1e6));
	free(t);
}

int main(int argc, char **argv)
{
	static const int arcs[][3] = {
		{ 1, 0, 1 }, { 1, 1, 1 }, { 2, 0, 1 }, { 2, 1, -1 },
		{ 3, 0, 1 }, { 3, 0, -1 }, { 3, 1, -1 }, { 4, 0, 1 },
		{ 4, 1, -1 },
	};
	int host, quick = 0, trace = 0, level = -1, size = 4 << 20;
	int np, t, o, d, total, i, wrong = 0;
	double x = 1;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "-q") == 0)
			quick = 1;
		else if (strcmp(argv[i], "-t") == 0)
			trace = 1;
		else if (strcmp(argv[i], "-l") == 0 && i + 1 < argc)
			level = atoi(argv[++i]);
		else if (strcmp(argv[i], "-s") == 0 && i + 1 < argc)
			size = atoi(argv[++i]);
		else if (strcmp(argv[i], "-x") == 0)
			wrong = 1;
		else {
			fprintf(stderr, "usage: collectives [-q] [-t] [-l LEVEL] "
				"[-s TRACESIZE] [-x]\n");
			return 2;
		}
	open0(&P, &me, &host);
	if (level >= 0)
		tracelevel(level, 1, 1);
	if (trace)
		tracenode(size, 1, 1);

	if (wrong) {
		gand0(&x, 1, PICL_DOUBLE, 1, 0);
		fprintf(stderr, "node %d: gand0 on a double returned\n", me);
		close0(0);
		return 0;
	}

	getarc0(&np, &t, &o, &d);
	snprintf(where, sizeof where, "getarc0 (default)");
	if (np != P || t != ((P & (P - 1)) == 0 ? 1 : 2) || o != 0 || d != 1)
		bad("nprocs %ld top %ld ord %ld", np, t, o);

	check_arc(0, 0, 1, 1);
	if (!quick)
		for (i = 0; i < (int)(sizeof arcs / sizeof *arcs); i++)
			check_arc(arcs[i][0], arcs[i][1], arcs[i][2], 0);
	check_setarc();
	check_overtaking();
	if (P > 2)
		check_subset();
	check_barrier_timing();

	total = fails;
	gsum0(&total, 1, PICL_INT, 99, 0);
	if (me == 0)
		printf("collectives: %d processes: %s\n", P,
		       total ? "FAILED" : "all results right");
	close0(0);
	return fails ? 1 : 0;
}
