/*
 * collective.c - PICL's collective operations (setarc0/getarc0, bcast0,
 * bcast1, gsum0 ... gxor0, gcomb0, gather0, barrier0), written once over
 * the point-to-point calls of picl.h (send0, recv0, wait0; recvinfo0 and
 * who0 as api.h's uncounted picl_api_recvinfo and picl_api_who: the
 * statistics count the program's calls) so that libpicl and libpicl-mpi
 * share them.
 *
 * Topology. As in PICL, the collectives route their messages over a
 * logical architecture set by setarc0(nprocs, top, ord, dir): top 1
 * hypercube, 2 fully connected, 3 unidirectional ring, 4 bidirectional
 * ring; ord 0 numbers the nodes naturally, 1 along a Gray code (only when
 * nprocs is a power of two; otherwise setarc0 makes it 0); dir +1/-1 is the direction
 * of a ring. Until setarc0 is called the architecture is all nodes, a
 * hypercube if their number is a power of two, else fully connected,
 * natural order, dir +1. Only nodes 0..nprocs-1 take part; on the others
 * the collectives return at once. Every operation is a spanning tree of
 * the nodes, rooted at the operation's root, over positions relative to
 * the root:
 *
 *   hypercube, full  binomial tree (node at relative position r gets the
 *                    data from r - lowbit(r)); on a hypercube of 2^k nodes
 *                    the relative position is pos(me) XOR pos(root), so
 *                    every message follows a cube edge;
 *   uni-ring         a chain root, root+dir, root+2*dir, ... going down;
 *                    going up (reductions, gather, fan-in) the chain runs
 *                    the same way round, root+dir -> ... -> root-dir -> root,
 *                    so messages always travel in direction dir;
 *   bi-ring          two chains from the root, one each way round.
 *
 * bcast0 sends the whole message down the tree. bcast1 pipelines it: the
 * message goes in chunks of PICL_BCAST1_CHUNK bytes, each forwarded as soon
 * as it is in, so on a ring the transfer costs about one message time plus
 * the chain's length in chunk times. The reductions send partial results up
 * the tree, combining children's contributions into a private copy; the
 * result is left at the root only, as in PICL, and on the other nodes buf
 * is unchanged. gather0 sends blocks (node id, n floats) up the tree; the root
 * puts block i at vec[i*n]; other nodes' vec is unchanged. barrier0 is a
 * fan-in to node 0 and a fan-out from it.
 *
 * Message types. The caller's type t is used for the messages, as PICL
 * did, but they travel as api.h's picl_coll_wire_type(t), a negative type
 * that no receive of the program takes (recv0, probe0, wait0 or
 * recvbegin0 of t or of -1, any): a collective never takes the program's
 * point-to-point messages of the same type, nor the program a collective's
 * (a recv0(-1) before a gsum0 would otherwise take a contribution meant for
 * the gsum0 and leave it waiting forever). In the trace (PICL level 3)
 * they are recorded with the type they travel with, -2 - t, so that
 * their sends and receives match apart from the program's. barrier0, which has no type, uses
 * PICL_COLL_TYPE_BARRIER_IN/OUT (900000101, 900000102) in the reserved range
 * 900000000-1073741823, apart from the 9000000xx types of api.c's own
 * protocol. recvinfo0 after a collective reports the program's last
 * message, as before it. PICL receives by type only, so
 * a message of the next collective with the same type can overtake the one
 * wanted now (e.g. two gsum0s in a row: a leaf's second contribution can
 * reach its parent before another child's first). The collectives
 * therefore receive from a given source: wait0 and recvinfo0 tell who sent
 * the next message of the type; one from another source is received into a
 * private stash and handed out when its collective asks for it.
 *
 * Errors. Every node must make the same collective calls with the same
 * root, sizes and types. A bad argument (root outside the architecture,
 * unknown datatype, bitwise operation on float or double, negative size,
 * a message type below 0 or INT_MAX; with check0 on, a reserved one, as
 * for send0, reported by api.c) or a message of another length than the
 * receiving node expects (a size that differs between the nodes: "process
 * 1 sent 1 item, this process expected 2") is reported and stops the run
 * through api.c's common error path (picl_api_fatal: "picl: process N:
 * call: problem (value)", the trace part written, the backend's abort),
 * as for a bad send0: the other nodes would otherwise wait for this one
 * forever. Every message's length is known in advance (bcast's bytes, the
 * reductions' items, a gather0 subtree's blocks), so a shorter one is an
 * error too, not only a longer one: a reduction would fold in what its
 * buffer held before, and a broadcast leave the rest of buf as it was
 * without the program being able to tell (recvinfo0 after a collective
 * reports the program's own last message, not the collective's). An
 * error in the send0, recv0 and wait0 a collective makes (a peer gone, a
 * deadlock of mismatched collectives) names the collective too
 * (picl_api_serve, from block_begin to block_end): the program made no
 * such call.
 *
 * Tracing. A collective is a user-visible block, recorded under the user
 * tracing level (PT_USER) as an entry (-3) and exit (-4) record. PICL
 * itself used traceblockbegin/end with negative block types (-1 barrier,
 * -2 bcast0, -3 bcast1, -4 global operation, -5 gather), but as event types
 * those collide with Tables 4-5 (-1 is the wildcard "all events"). So block
 * type -k is recorded as the user event type PICL_COLL_EVENT_BASE + k
 * (900000001 barrier0, 900000002 bcast0, 900000003 bcast1, 900000004 a
 * global operation, 900000005 gather0): user event types (>= 0, valid in
 * every reader and in picltrace validate) in the range PICL reserves for
 * itself for message types, which user programs do not use. The entry
 * carries "%d" data (location, root, size, type[, datatype]): location is
 * the global operation (PICL_COLL_OP_SUM 1 ... PICL_COLL_OP_COMB 8; 0 for
 * the others), size is bytes (bcast), items (global ops) or n (gather0),
 * type the message type (-1 for barrier0), datatype only for global ops.
 * The exit has no data. These event types are not the format's, so each
 * is named by a -5 label record (trace.h's pt_label), written once per
 * trace file before the event's first record there.
 *
 * The messages inside a collective are ordinary send0/recv0 calls (with a
 * wait0 before each receive: -56 records when it had to wait) and are
 * traced as such only when the PICL tracing level is 3 or more: while a
 * collective runs, pt_collective_depth (trace.h) is nonzero, and trace.c
 * drops PT_PICL records below level 3 while it is.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "picl.h"
#include "api.h"
#include "trace.h"

/* Trace event types of the collectives' blocks: PICL's block type -k is
 * event PICL_COLL_EVENT_BASE + k. */
#define PICL_COLL_EVENT_BASE 900000000
#define EV_BARRIER (PICL_COLL_EVENT_BASE + 1)
#define EV_BCAST0  (PICL_COLL_EVENT_BASE + 2)
#define EV_BCAST1  (PICL_COLL_EVENT_BASE + 3)
#define EV_GLOBAL  (PICL_COLL_EVENT_BASE + 4)
#define EV_GATHER  (PICL_COLL_EVENT_BASE + 5)

/* The global operations: the location field of the EV_GLOBAL entry. */
enum coll_op {
	PICL_COLL_OP_SUM = 1, PICL_COLL_OP_PROD, PICL_COLL_OP_MAX,
	PICL_COLL_OP_MIN, PICL_COLL_OP_AND, PICL_COLL_OP_OR, PICL_COLL_OP_XOR,
	PICL_COLL_OP_COMB
};

/* barrier0's message types, in PICL's reserved range. */
#define PICL_COLL_TYPE_BARRIER_IN  900000101
#define PICL_COLL_TYPE_BARRIER_OUT 900000102

/* bcast1's chunk size in bytes. */
#define PICL_BCAST1_CHUNK 4096

/* ---- Errors ---------------------------------------------------------- */

/* A bad call: reported and the run stopped by api.c's common error path
 * ("picl: process N: call: problem (value)", the trace part written, the
 * backend's abort), as for a bad send0 or recv0: the other nodes would
 * wait for this one forever. */
static __attribute__((noreturn)) void
coll_error(const char *call, const char *problem, int value)
{
	picl_api_fatal(call, problem, value);
}

/* The collective running now, to name it in an error found deep inside. */
static const char *coll_call = "collective";

/* Out of memory inside a collective: nothing sensible is left to do. */
static void *coll_alloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		coll_error(coll_call, "out of memory",
			   n > INT_MAX ? INT_MAX : (int)n);
	return p;
}

/* ---- The logical architecture ----------------------------------------- */

static struct {
	int set;		/* setarc0 called */
	int nprocs, top, ord, dir;
} arc;

static int is_pow2(int n)
{
	return n > 0 && (n & (n - 1)) == 0;
}

/* The architecture in force: setarc0's, or the default for this run. */
static void arc_current(int *nprocs, int *top, int *ord, int *dir)
{
	int numproc, me, host;

	if (arc.set) {
		*nprocs = arc.nprocs;
		*top = arc.top;
		*ord = arc.ord;
		*dir = arc.dir;
		return;
	}
	picl_api_who(&numproc, &me, &host);
	*nprocs = numproc;
	*top = is_pow2(numproc) ? 1 : 2;
	*ord = 0;
	*dir = 1;
}

/*
 * setarc0: use nodes 0..*nprocs-1 with topology *top, order *ord and ring
 * direction *dir for the collectives from now on. Values out of range are
 * replaced (nprocs by all nodes, top by the default, ord by 0, dir by +1)
 * and the values used are written back. So is a Gray code order (1) on a
 * number of nodes that is not a power of two, which has none: it becomes
 * natural (0), and getarc0 says 0 too. Every node must make the same call.
 */
void setarc0(int *nprocs, int *top, int *ord, int *dir)
{
	int numproc, me, host;

	/* before open0 the number of nodes is not known yet (1) */
	picl_api_need_open("setarc0");
	picl_api_who(&numproc, &me, &host);
	if (*nprocs <= 0 || *nprocs > numproc)
		*nprocs = numproc;
	if (*top < 1 || *top > 4)
		*top = is_pow2(*nprocs) ? 1 : 2;
	if ((*ord != 0 && *ord != 1) || (*ord == 1 && !is_pow2(*nprocs)))
		*ord = 0;
	if (*dir != 1 && *dir != -1)
		*dir = 1;
	arc.nprocs = *nprocs;
	arc.top = *top;
	arc.ord = *ord;
	arc.dir = *dir;
	arc.set = 1;
}

/* getarc0: the architecture the collectives use now. */
void getarc0(int *nprocs, int *top, int *ord, int *dir)
{
	picl_api_need_open("getarc0");
	arc_current(nprocs, top, ord, dir);
}

/* ---- Spanning trees --------------------------------------------------- */

#define MAXCHILD 64

/* One node's place in a spanning tree: its parent (-1 at the root) and
 * children, as node ids, children in the order they are served. */
struct tree {
	int parent;
	int nchild;
	int child[MAXCHILD];
};

/* Which way the data flow: from the root (bcast, fan-out) or to it
 * (reductions, gather, fan-in). It matters only on a uni-ring. */
enum flow { FLOW_DOWN, FLOW_UP };

/* Everything a collective needs to know about the architecture. */
struct ctx {
	int P, me, top, gray, dir;
	int in;			/* me < P: this node takes part */
};

static void ctx_init(struct ctx *c)
{
	int numproc, host, ord;

	picl_api_who(&numproc, &c->me, &host);
	arc_current(&c->P, &c->top, &ord, &c->dir);
	if (c->P > numproc)
		c->P = numproc;
	c->gray = ord == 1 && is_pow2(c->P);
	c->in = c->me >= 0 && c->me < c->P;
}

/* Node id <-> position in the architecture's order. */
static int pos_of(const struct ctx *c, int id)
{
	int p = id;

	if (c->gray)		/* inverse Gray code */
		for (int s = 1; s < 32; s <<= 1)
			p ^= p >> s;
	return p;
}

static int id_at(const struct ctx *c, int pos)
{
	return c->gray ? pos ^ (pos >> 1) : pos;
}

/* Relative position of node id with respect to root, and back. */
static int rel_of(const struct ctx *c, int id, int root)
{
	int a = pos_of(c, id), b = pos_of(c, root);

	switch (c->top) {
	case 1:
		if (is_pow2(c->P))
			return a ^ b;
		return ((a - b) % c->P + c->P) % c->P;
	case 3:
	case 4:
		return (((a - b) * c->dir) % c->P + c->P) % c->P;
	default:
		return ((a - b) % c->P + c->P) % c->P;
	}
}

static int id_of(const struct ctx *c, int rel, int root)
{
	int b = pos_of(c, root);

	switch (c->top) {
	case 1:
		if (is_pow2(c->P))
			return id_at(c, rel ^ b);
		return id_at(c, (b + rel) % c->P);
	case 3:
	case 4:
		return id_at(c, ((b + rel * c->dir) % c->P + c->P) % c->P);
	default:
		return id_at(c, (b + rel) % c->P);
	}
}

/* The tree in relative positions (parent -1 at the root). */
static void tree_rel(const struct ctx *c, enum flow flow, int r,
		     struct tree *t)
{
	int P = c->P, half = P / 2, mask;

	t->parent = -1;
	t->nchild = 0;
	switch (c->top) {
	case 3:			/* uni-ring */
		if (flow == FLOW_DOWN) {
			if (r > 0)
				t->parent = r - 1;
			if (r + 1 < P)
				t->child[t->nchild++] = r + 1;
		} else {
			if (r > 0)
				t->parent = (r + 1) % P;
			if (r == 0 && P > 1)
				t->child[t->nchild++] = P - 1;
			else if (r > 1)
				t->child[t->nchild++] = r - 1;
		}
		break;
	case 4:			/* bi-ring: 1..half one way, P-1..half+1 the other */
		if (r == 0) {
			if (P > 1)
				t->child[t->nchild++] = 1;
			if (P - 1 > half)
				t->child[t->nchild++] = P - 1;
		} else if (r <= half) {
			t->parent = r - 1;
			if (r < half)
				t->child[t->nchild++] = r + 1;
		} else {
			t->parent = (r + 1) % P;
			if (r - 1 > half)
				t->child[t->nchild++] = r - 1;
		}
		break;
	default:		/* binomial tree */
		for (mask = 1; mask < P; mask <<= 1)
			if (r & mask) {
				t->parent = r - mask;
				break;
			}
		/* Children r + m for the powers of two m below lowbit(r),
		 * the largest (the biggest subtree) first. */
		for (mask >>= 1; mask > 0; mask >>= 1)
			if (r + mask < P && t->nchild < MAXCHILD)
				t->child[t->nchild++] = r + mask;
		break;
	}
}

/* How many nodes the subtree of relative position r holds (r itself
 * included): the blocks gather0 gets from it. */
static int subtree_nodes(const struct ctx *c, enum flow flow, int r)
{
	int *todo = coll_alloc((size_t)c->P * sizeof *todo);
	int k = 0, n = 0;
	struct tree t;

	todo[k++] = r;
	while (k > 0) {		/* each node is pushed once: at most P */
		tree_rel(c, flow, todo[--k], &t);
		n++;
		for (int i = 0; i < t.nchild; i++)
			todo[k++] = t.child[i];
	}
	free(todo);
	return n;
}

/* This node's place in the tree rooted at root, as node ids. */
static void tree_of(const struct ctx *c, enum flow flow, int root,
		    struct tree *t)
{
	tree_rel(c, flow, rel_of(c, c->me, root), t);
	if (t->parent >= 0)
		t->parent = id_of(c, t->parent, root);
	for (int i = 0; i < t->nchild; i++)
		t->child[i] = id_of(c, t->child[i], root);
}

/* ---- Receiving from a given source ------------------------------------- */

/* Messages received while waiting for another source: FIFO per (type,
 * source) because they are appended in arrival order. */
struct stashed {
	struct stashed *next;
	int type, src, len;
	char data[];
};

static struct stashed *stash_head, **stash_tail = &stash_head;

/*
 * The message from src was not of the length this node expects (want, in
 * unit of size bytes): the nodes' sizes differ, an error in the program.
 * sent is the length the sender's call gave, or the least it can be when
 * at_least (bcast1's chunks show only part of it).
 */
static __attribute__((noreturn)) void
mismatch(int src, long sent, int at_least, long want, const char *unit,
	 size_t size)
{
	char what[160];

	if (sent % (long)size == 0) {
		sent /= (long)size;
		want /= (long)size;
	} else {
		unit = "byte";
	}
	snprintf(what, sizeof what, "process %d sent %s%ld %s%s, this process "
		 "expected %ld", src, at_least ? "at least " : "", sent, unit,
		 sent == 1 ? "" : "s", want);
	picl_api_fatal(coll_call, what, LONG_MIN);
}

/*
 * Receive the next message of `type` from node `src` into buf (room for
 * `bytes` bytes); returns its length. Messages of that type from other
 * nodes that come first are kept in the stash. A message longer than
 * bytes is not received: its length is returned all the same, and the
 * caller, which compares it with what it expected, fails.
 */
static int coll_recv(char *buf, int bytes, int type, int src)
{
	struct stashed **pp, *s;
	int len, mtype, from;

	for (pp = &stash_head; (s = *pp) != NULL; pp = &s->next)
		if (s->type == type && s->src == src) {
			len = s->len;
			if (len > bytes)
				return len;
			memcpy(buf, s->data, (size_t)len);
			*pp = s->next;
			if (stash_tail == &s->next)
				stash_tail = pp;
			free(s);
			return len;
		}
	for (;;) {
		wait0(type);
		picl_api_recvinfo(&len, &mtype, &from);
		if (from == src) {
			/* Not left to recv0 to refuse: the caller says what
			 * it expected. */
			if (len > bytes)
				return len;
			recv0(buf, bytes, type);
			picl_api_recvinfo(&len, &mtype, &from);
			return len;
		}
		s = coll_alloc(sizeof *s + (size_t)len);
		recv0(s->data, len, type);
		picl_api_recvinfo(&s->len, &s->type, &s->src);
		s->next = NULL;
		*stash_tail = s;
		stash_tail = &s->next;
	}
}

/* ---- Blocks in the trace ---------------------------------------------- */

/* What recvinfo0 said before the collective: it says it again after. */
static int saved_len, saved_type, saved_src;
/* The call api.c named in errors before (picl_api_serve). */
static const char *saved_serve;

static void block_begin(int event, int location, int root, int size,
			int type, int datatype)
{
	int64_t v[5] = { location, root, size, type, datatype };

	static const char *const label[] = {
		"barrier0", "bcast0", "bcast1",
		"global operation (gsum0 ... gcomb0)", "gather0"
	};

	picl_api_recvinfo(&saved_len, &saved_type, &saved_src);
	/* An error in the send0, recv0 and wait0 below is this call's: the
	 * program made no such call. */
	saved_serve = picl_api_serve(coll_call);
	/* Not event types of the format: a -5 label names them. */
	pt_label(event, label[event - EV_BARRIER]);
	pt_entry(PT_USER, event, event == EV_GLOBAL ? 5 : 4, v);
	pt_collective_depth++;
}

static void block_end(int event)
{
	pt_collective_depth--;
	pt_exit(PT_USER, event, 0, NULL);
	picl_api_set_recvinfo(saved_len, saved_type, saved_src);
	picl_api_serve(saved_serve);
}

/* A collective's message type: one picl_coll_wire_type can carry, and,
 * with check0 on, not one of PICL's reserved types (as for send0). */
static void check_type(const char *call, int type)
{
	if (type < 0 || type == INT_MAX)
		coll_error(call, "bad message type", type);
	picl_api_check_type(call, type);
}

/* ---- Broadcast -------------------------------------------------------- */

static void bcast(const char *call, int event, char *buf, int bytes,
		  int type, int root, int chunk)
{
	struct ctx c;
	struct tree t;
	int off, n, len, wire;

	picl_api_need_open(call);
	coll_call = call;
	ctx_init(&c);
	if (bytes < 0)
		coll_error(call, "negative length", bytes);
	check_type(call, type);
	if (root < 0 || root >= c.P)
		coll_error(call, "root is not a node of the architecture", root);
	if (!c.in)
		return;
	block_begin(event, 0, root, bytes, type, 0);
	wire = picl_coll_wire_type(type);
	tree_of(&c, FLOW_DOWN, root, &t);
	off = 0;
	do {
		n = bytes - off < chunk ? bytes - off : chunk;
		if (t.parent >= 0) {
			len = coll_recv(buf + off, n, wire, t.parent);
			/* A chunk shorter than a whole one is the sender's
			 * last: its length then tells the sender's bytes. */
			if (len != n)
				mismatch(t.parent, (long)off + len, len == chunk,
					 bytes, "byte", 1);
		}
		for (int i = 0; i < t.nchild; i++)
			send0(buf + off, n, wire, t.child[i]);
		off += n;
	} while (off < bytes);
	block_end(event);
}

/* bcast0: root's `bytes` bytes of buf end in buf on every node. */
void bcast0(void *buf, int bytes, int type, int root)
{
	bcast("bcast0", EV_BCAST0, buf, bytes, type, root, INT_MAX);
}

/* bcast1: the same, pipelined in chunks of PICL_BCAST1_CHUNK bytes. */
void bcast1(void *buf, int bytes, int type, int root)
{
	bcast("bcast1", EV_BCAST1, buf, bytes, type, root, PICL_BCAST1_CHUNK);
}

/* ---- Global operations ------------------------------------------------ */

static const size_t type_size[] = {
	sizeof(signed char), sizeof(short), sizeof(int), sizeof(long),
	sizeof(float), sizeof(double)
};

/* a[i] = a[i] OP b[i] for n items of type T. Sums and products of integers
 * wrap (computed unsigned, so no undefined behaviour). */
#define ARITH(T, U, OP) do { \
	T *x = a; const T *y = b; \
	for (int i = 0; i < n; i++) \
		x[i] = (T)((U)x[i] OP (U)y[i]); \
} while (0)
#define FLOATOP(T, OP) do { \
	T *x = a; const T *y = b; \
	for (int i = 0; i < n; i++) \
		x[i] = x[i] OP y[i]; \
} while (0)
#define PICK(T, CMP) do { \
	T *x = a; const T *y = b; \
	for (int i = 0; i < n; i++) \
		if (y[i] CMP x[i]) \
			x[i] = y[i]; \
} while (0)
#define BITS(T, OP) do { \
	T *x = a; const T *y = b; \
	for (int i = 0; i < n; i++) \
		x[i] = (T)(x[i] OP y[i]); \
} while (0)

#define EACH_INT(M, ...) \
	case PICL_CHAR:  M(signed char, __VA_ARGS__); break; \
	case PICL_SHORT: M(short, __VA_ARGS__); break; \
	case PICL_INT:   M(int, __VA_ARGS__); break; \
	case PICL_LONG:  M(long, __VA_ARGS__); break;
#define EACH_FLOAT(M, ...) \
	case PICL_FLOAT:  M(float, __VA_ARGS__); break; \
	case PICL_DOUBLE: M(double, __VA_ARGS__); break;

/* Combine b into a: n items of datatype dt under op (not PICL_COLL_OP_COMB). */
static void combine(enum coll_op op, int dt, void *a, const void *b, int n)
{
	switch (op) {
	case PICL_COLL_OP_SUM:
	case PICL_COLL_OP_PROD:
		switch (dt) {
		case PICL_CHAR:
			if (op == PICL_COLL_OP_SUM) ARITH(signed char, unsigned, +);
			else ARITH(signed char, unsigned, *);
			break;
		case PICL_SHORT:
			if (op == PICL_COLL_OP_SUM) ARITH(short, unsigned, +);
			else ARITH(short, unsigned, *);
			break;
		case PICL_INT:
			if (op == PICL_COLL_OP_SUM) ARITH(int, unsigned, +);
			else ARITH(int, unsigned, *);
			break;
		case PICL_LONG:
			if (op == PICL_COLL_OP_SUM) ARITH(long, unsigned long, +);
			else ARITH(long, unsigned long, *);
			break;
		case PICL_FLOAT:
			if (op == PICL_COLL_OP_SUM) FLOATOP(float, +);
			else FLOATOP(float, *);
			break;
		case PICL_DOUBLE:
			if (op == PICL_COLL_OP_SUM) FLOATOP(double, +);
			else FLOATOP(double, *);
			break;
		}
		break;
	case PICL_COLL_OP_MAX:
		switch (dt) { EACH_INT(PICK, >) EACH_FLOAT(PICK, >) }
		break;
	case PICL_COLL_OP_MIN:
		switch (dt) { EACH_INT(PICK, <) EACH_FLOAT(PICK, <) }
		break;
	case PICL_COLL_OP_AND:
		switch (dt) { EACH_INT(BITS, &) }
		break;
	case PICL_COLL_OP_OR:
		switch (dt) { EACH_INT(BITS, |) }
		break;
	case PICL_COLL_OP_XOR:
		switch (dt) { EACH_INT(BITS, ^) }
		break;
	case PICL_COLL_OP_COMB:
		break;
	}
}

/*
 * The reduction: every node's n items of datatype dt in buf, combined up
 * the tree; the result in root's buf, the other nodes' buf unchanged.
 */
static void global(const char *call, enum coll_op op, void *buf, int items,
		   int dt, int msgtype, int root,
		   void (*comb)(void *, void *, int, int))
{
	struct ctx c;
	struct tree t;
	char *acc, *tmp;
	int bytes, len;

	picl_api_need_open(call);
	coll_call = call;
	ctx_init(&c);
	if (dt < PICL_CHAR || dt > PICL_DOUBLE)
		coll_error(call, "unknown datatype", dt);
	if (dt >= PICL_FLOAT && op >= PICL_COLL_OP_AND && op <= PICL_COLL_OP_XOR)
		coll_error(call, "bitwise operation on a floating-point datatype", dt);
	if (items < 0 || (size_t)items > INT_MAX / type_size[dt])
		coll_error(call, "bad number of items", items);
	check_type(call, msgtype);
	if (root < 0 || root >= c.P)
		coll_error(call, "root is not a node of the architecture", root);
	if (op == PICL_COLL_OP_COMB && !comb)
		coll_error(call, "no combining function", 0);
	if (!c.in)
		return;
	block_begin(EV_GLOBAL, op, root, items, msgtype, dt);
	bytes = items * (int)type_size[dt];
	tree_of(&c, FLOW_UP, root, &t);
	acc = t.parent < 0 ? buf : coll_alloc((size_t)bytes);
	tmp = t.nchild ? coll_alloc((size_t)bytes) : NULL;
	if (acc != buf)
		memcpy(acc, buf, (size_t)bytes);
	for (int i = 0; i < t.nchild; i++) {
		len = coll_recv(tmp, bytes, picl_coll_wire_type(msgtype),
				t.child[i]);
		if (len != bytes)
			mismatch(t.child[i], len, 0, bytes, "item", type_size[dt]);
		if (op == PICL_COLL_OP_COMB)
			comb(acc, tmp, items, dt);
		else
			combine(op, dt, acc, tmp, items);
	}
	if (t.parent >= 0) {
		send0(acc, bytes, picl_coll_wire_type(msgtype), t.parent);
		free(acc);
	}
	free(tmp);
	block_end(EV_GLOBAL);
}

void gsum0(void *buf, int items, int datatype, int msgtype, int root)
{
	global("gsum0", PICL_COLL_OP_SUM, buf, items, datatype, msgtype, root, NULL);
}

void gprod0(void *buf, int items, int datatype, int msgtype, int root)
{
	global("gprod0", PICL_COLL_OP_PROD, buf, items, datatype, msgtype, root, NULL);
}

void gmax0(void *buf, int items, int datatype, int msgtype, int root)
{
	global("gmax0", PICL_COLL_OP_MAX, buf, items, datatype, msgtype, root, NULL);
}

void gmin0(void *buf, int items, int datatype, int msgtype, int root)
{
	global("gmin0", PICL_COLL_OP_MIN, buf, items, datatype, msgtype, root, NULL);
}

void gand0(void *buf, int items, int datatype, int msgtype, int root)
{
	global("gand0", PICL_COLL_OP_AND, buf, items, datatype, msgtype, root, NULL);
}

void gor0(void *buf, int items, int datatype, int msgtype, int root)
{
	global("gor0", PICL_COLL_OP_OR, buf, items, datatype, msgtype, root, NULL);
}

void gxor0(void *buf, int items, int datatype, int msgtype, int root)
{
	global("gxor0", PICL_COLL_OP_XOR, buf, items, datatype, msgtype, root, NULL);
}

/* gcomb0: comb(a, b, items, datatype) combines b into a; it should be
 * associative and commutative (the order of combination follows the tree). */
void gcomb0(void *buf, int items, int datatype, int msgtype, int root,
	    void (*comb)(void *a, void *b, int items, int datatype))
{
	global("gcomb0", PICL_COLL_OP_COMB, buf, items, datatype, msgtype, root,
	       comb);
}

/* ---- Gather ----------------------------------------------------------- */

/*
 * gather0: node i's vec[i*n .. i*n+n) ends at the same place in root's vec.
 * Up the tree each node sends the blocks of its subtree, each an int node
 * id followed by n floats; other nodes' vec is unchanged.
 */
void gather0(float *vec, int n, int type, int root)
{
	struct ctx c;
	struct tree t;
	size_t blk;
	char *acc, *p;
	int have, len, want, sub, id;

	picl_api_need_open("gather0");
	coll_call = "gather0";
	ctx_init(&c);
	if (n < 0 || c.P < 1 || ((size_t)n * sizeof(float) + sizeof(int)) >
	    (size_t)INT_MAX / (size_t)c.P)
		coll_error("gather0", "bad number of items", n);
	check_type("gather0", type);
	if (root < 0 || root >= c.P)
		coll_error("gather0", "root is not a node of the architecture", root);
	if (!c.in)
		return;
	block_begin(EV_GATHER, 0, root, n, type, 0);
	tree_of(&c, FLOW_UP, root, &t);
	blk = sizeof(int) + (size_t)n * sizeof(float);
	acc = coll_alloc(blk * (size_t)c.P);
	memcpy(acc, &c.me, sizeof(int));
	memcpy(acc + sizeof(int), vec + (size_t)c.me * (size_t)n,
	       (size_t)n * sizeof(float));
	have = 1;
	for (int i = 0; i < t.nchild; i++) {
		/* exactly one block per node of the child's subtree: another
		 * length means another n there */
		sub = subtree_nodes(&c, FLOW_UP, rel_of(&c, t.child[i], root));
		want = (int)(blk * (size_t)sub);
		len = coll_recv(acc + have * blk, want, picl_coll_wire_type(type),
				t.child[i]);
		if (len != want)
			mismatch(t.child[i], len, 0, want, "byte", 1);
		have += sub;
	}
	if (t.parent >= 0) {
		send0(acc, (int)(blk * (size_t)have), picl_coll_wire_type(type),
		      t.parent);
	} else {
		for (int i = 0; i < have; i++) {
			p = acc + (size_t)i * blk;
			memcpy(&id, p, sizeof(int));
			if (id >= 0 && id < c.P)
				memcpy(vec + (size_t)id * (size_t)n, p + sizeof(int),
				       (size_t)n * sizeof(float));
		}
	}
	free(acc);
	block_end(EV_GATHER);
}

/* ---- Barrier ---------------------------------------------------------- */

/* barrier0: no node leaves before every node of the architecture came in:
 * empty messages up the tree to node 0 and back down. */
void barrier0(void)
{
	struct ctx c;
	struct tree t;
	char dummy = 0;

	picl_api_need_open("barrier0");
	coll_call = "barrier0";
	ctx_init(&c);
	if (!c.in)
		return;
	block_begin(EV_BARRIER, 0, 0, 0, -1, 0);
	tree_of(&c, FLOW_UP, 0, &t);
	for (int i = 0; i < t.nchild; i++)
		coll_recv(&dummy, 0, PICL_COLL_TYPE_BARRIER_IN, t.child[i]);
	if (t.parent >= 0)
		send0(&dummy, 0, PICL_COLL_TYPE_BARRIER_IN, t.parent);
	tree_of(&c, FLOW_DOWN, 0, &t);
	if (t.parent >= 0)
		coll_recv(&dummy, 0, PICL_COLL_TYPE_BARRIER_OUT, t.parent);
	for (int i = 0; i < t.nchild; i++)
		send0(&dummy, 0, PICL_COLL_TYPE_BARRIER_OUT, t.child[i]);
	block_end(EV_BARRIER);
}
