/*
 * api.c - the PICL communication calls of picl.h (open0 ... message0),
 * machine-independent, over the backend linked into the library
 * (picl_backend_impl: local shared memory in libpicl, MPI in libpicl-mpi).
 *
 * The backend only moves whole messages in order per (source, destination).
 * Everything PICL adds is done here, once for both backends:
 *
 *  - receive by type (-1: any type, but never PICL's reserved types, nor
 *    the negative types the collectives' messages travel with: api.h's
 *    picl_coll_wire_type).
 *    Messages that arrive before anybody asks for them wait in the
 *    unexpected queue (a FIFO of copies), kept above the backend. A
 *    blocking receive first looks in the queue, then at what the backend
 *    has (a matching message is copied straight from the backend's buffer,
 *    others are queued): found either way, the call is traced as -51;
 *    otherwise it waits (backend wait(), then poll()) and is traced as
 *    -52. An arriving message goes first to the oldest posted recvbegin0
 *    whose type matches.
 *  - destination -1: one send per other node, one -21 record with
 *    destination -1 (the broadcast form validate's matcher knows).
 *  - non-blocking calls. A backend send returns once the buffer may be
 *    reused, so sendbegin0 sends at once and sendend0/sendstatus0 always find
 *    the send complete (-30, -28). recvbegin0 posts a request (the request
 *    id is the type); recvend0 is -60 when the message was already there,
 *    -61 when it had to wait.
 *  - clocksync0: node 0 serves each other node in turn: the node sends
 *    CLOCKSYNC_ROUNDS pings, node 0 answers each with its raw clock; each
 *    round trip bounds the offset, and the value nearest 0 within all the
 *    bounds is taken (the min-RTT midpoint if they disagree; see
 *    clock_offset); then node 0's clock at the end becomes time 0 on every
 *    node (pt_set_clock_offset), with a barrier; once some node wrote
 *    records, the origin in use stays (clock_origin), and trace.c never
 *    writes a record before the latest its process wrote.
 *    Called before open0 (tracenode(..., sync = 1) usually is), it is
 *    done at the end of open0. The host takes no part: node 0 sends it
 *    the origin (T_CLOCK_ORIGIN, in node 0's clock, which the host is
 *    taken to share), and the host takes it wherever it takes in
 *    messages (enqueue), at the latest at its close0, so that its records
 *    are on the nodes' time line.
 *  - sync0 and the barrier of clocksync0 and close0: fan in to node 0, fan
 *    out. The host takes no part.
 *  - open0 and close0 of a node record -11 (entry and exit) and -12 (a
 *    mark), as Table 20 (a node program) shows them. The host's are what
 *    PICL's host did with them, allocating and releasing the nodes (spec
 *    2.3.2, Tables 4 and 11): a -501 entry with the requested number of
 *    processors and an exit with the allocated number (both the run's
 *    number of nodes: piclrun started them), a -502 entry and exit.
 *  - errors (bad arguments with check0 on, a message longer than the
 *    buffer, a peer gone, a call before open0 or after close0, open0 or
 *    close0 a second time): a line on
 *    stderr naming the process (before open0, as the launcher named it:
 *    backend.h's id_hint), the open call's exit record,
 *    a tracemsg saying why, traceexit (so the trace part is complete), and
 *    the backend's abort.
 *
 * Internal protocol messages use types from PICL's reserved range
 * (>= 900000000) and are never traced. Events are recorded through trace.h
 * with the data fields of Tables 7-11 in their "next version" (n) counts:
 * send entry (length, type, destination), receive entry (requested type),
 * receive exit (length, type, source), request id for the non-blocking
 * calls.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "picl.h"
#include "api.h"
#include "backend.h"
#include "trace.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define BE picl_backend_impl

/* Reserved message types of the internal protocol. */
#define T_BARRIER_IN   900000001
#define T_BARRIER_OUT  900000002
#define T_CLOCK_PING   900000011
#define T_CLOCK_PONG   900000012
#define T_CLOCK_ORIGIN 900000013        /* node 0 to the host: clocksync0's origin */
#define T_RESERVED_LO  PICL_TYPE_RESERVED_LO
#define T_RESERVED_HI  PICL_TYPE_RESERVED_HI

/* 1 for a type of PICL's own messages (collectives', the clocks'). */
static int own_type(int type)
{
	return type >= T_RESERVED_LO && type <= T_RESERVED_HI;
}

#define CLOCKSYNC_ROUNDS 16

struct msg {
	struct msg *next;
	int src, type;
	size_t len;
	char data[];
};

struct rreq {                   /* a posted recvbegin0 */
	void *buf;
	int bytes, type;        /* requested type: the request id */
	int done, len, mtype, src;
	int waited;             /* completed inside recvend0's wait */
};

static struct {
	int open, nprocs, me, host, checking;
	int joined;                     /* open0 was called: me is known */
	struct msg *qhead, *qtail;      /* unexpected messages, FIFO */
	struct rreq *req;               /* posted receives, in order */
	size_t nreq, reqcap;
	int *sreq;                      /* types of sendbegin0s not yet ended */
	size_t nsreq, sreqcap;
	int last_len, last_type, last_src;
	int failing;
	int sync_at_open;
	int host_origin;                /* the host has node 0's time origin */
	int cur_event;                  /* entry recorded, exit not yet */
	int after_peer;                 /* failing because another process did */
	const char *serving;            /* picl_api_serve: the program's call */
} S = { .checking = 1, .host = -1, .nprocs = 1 };

/* ---- errors -------------------------------------------------------------- */

/* The error of the program's call `call`, as it is: see fatal(). */
static void fatal_as(const char *call, const char *what, long a)
{
	char text[200], line[300], num[32] = "";
	int id = picl_api_id();

	if (S.failing)
		BE.abort(1);
	S.failing = 1;
	/* One write of the whole line: other processes write to the same
	 * stderr at the same time, and pieces would interleave with theirs. */
	if (a != LONG_MIN)
		snprintf(num, sizeof num, " (%ld)", a);
	if (id == -1)           /* before open0, and the launcher did not say */
		snprintf(line, sizeof line, "picl: %s: %s%s\n", call, what, num);
	else
		snprintf(line, sizeof line, "picl: process %d: %s: %s%s\n", id,
			 call, what, num);
	fputs(line, stderr);
	/* Keep what was traced, and why it stops: the part file is written
	 * before we go. */
	snprintf(text, sizeof text, "picl: %s: %s", call, what);
	if (S.cur_event)        /* close the call we die in: proper nesting */
		pt_exit(PT_PICL, S.cur_event, 0, NULL);
	tracemsg(text);
	pt_exit_abnormal();
	BE.abort(S.after_peer ? 1 | PICL_ABORT_PEER : 1);
	exit(1);
}

/*
 * Stop the run: "picl: process N: call: what (a)" (no " (a)" when a is
 * LONG_MIN) on stderr, the part written, the backend's abort. call is
 * the program's call, as picl(3) documents the message: inside a call
 * that PICL makes on the program's behalf (a collective's send0, recv0
 * and wait0; the clocksync0 of open0 or tracenode: picl_api_serve) the
 * one the program made, which is the one it can look up and fix.
 */
static void fatal(const char *call, const char *what, long a)
{
	fatal_as(S.serving ? S.serving : call, what, a);
}

const char *picl_api_serve(const char *call)
{
	const char *prev = S.serving;

	if (!prev || !call)     /* the outermost call is the program's */
		S.serving = call;
	return prev;
}

/* Why the backend's calls fail when the run was stopped or this process
 * caught a stop signal (backend.h), else `what`. */
static const char *or_stopped(const char *what)
{
	const char *why = BE.stopped ? BE.stopped() : NULL;

	return why ? why : what;
}

/* fatal() for a failure another process caused: it ended, or the run was
 * stopped (piclrun then blames that one first). */
static void peer_fatal(const char *call, const char *what, long a)
{
	S.after_peer = 1;
	fatal(call, what, a);
}

/* Why a receive fails when the backend says nothing can arrive any more
 * (unless the run was stopped: or_stopped), with what ends a run of the
 * backend's (only piclrun stops one of its own). */
static const char *no_more(void)
{
	return BE.no_more ? BE.no_more : "no message can arrive any more";
}

/* BE.send to dst failed, in call. */
static void send_failed(const char *call, int dst)
{
	const char *why = or_stopped(NULL);

	peer_fatal(call, why ? why : "the destination process has ended or died",
		   why ? LONG_MIN : dst);
}

void picl_api_fatal(const char *call, const char *what, long value)
{
	fatal(call, what, value);
	exit(1);                /* not reached: fatal() does not return */
}

static void need_open(const char *call)
{
	if (!S.open)
		fatal(call, S.joined ? "called after close0" : "called before open0",
		      LONG_MIN);
}

void picl_api_need_open(const char *call)
{
	need_open(call);
}

void picl_api_check_type(const char *call, int type)
{
	if (S.checking && (own_type(type) || type >= 2000000000))
		fatal(call, "message type reserved for PICL itself", type);
}

static int valid_node(int node)
{
	return (node >= 0 && node < S.nprocs) ||
	       (node == PICL_HOST && S.host == PICL_HOST);
}

/* A type the program may not use: PICL's own (picl.h), outside the
 * collectives, which send and receive with them through the public calls. */
static int reserved_type(int type)
{
	return !pt_collective_depth &&
	       (own_type(type) || type >= 2000000000);
}

/* Lengths and destinations are checked even after check0(0): a bad one
 * would only corrupt memory further on (one compare each). So are negative
 * message types (below -1 for a receive): they are the collectives' (api.h's
 * picl_coll_wire_type), and a program's send0 of -5 would otherwise be
 * taken by a gsum0 of type 3, or its recv0 of -5 take that gsum0's
 * message. Inside a collective the type is the collective's (checked
 * there), sent as its negative wire type. */
static void check_send(const char *call, int bytes, int type, int node)
{
	need_open(call);
	if (bytes < 0)
		fatal(call, "negative length", bytes);
	if (node != -1 && !valid_node(node))
		fatal(call, "no such destination", node);
	if (pt_collective_depth)
		return;
	if (type < 0)
		fatal(call, "negative message type", type);
	if (S.checking && reserved_type(type))
		fatal(call, "message type reserved for PICL itself", type);
}

static void check_recv(const char *call, int bytes, int type)
{
	need_open(call);
	if (bytes < 0)
		fatal(call, "negative length", bytes);
	if (pt_collective_depth)
		return;
	if (type < -1)
		fatal(call, "bad message type", type);
	if (S.checking && reserved_type(type))
		fatal(call, "message type reserved for PICL itself", type);
}

/* ---- tracing helpers ----------------------------------------------------- */

/* Each records an entry or exit, and remembers the open call for fatal()
 * to close; with tracing off only the latter (no call into trace.c: the
 * 8-byte ping-pong of libpicl-mpi pays for every instruction here). */
static inline void tr3(int entry, int event, int64_t a, int64_t b, int64_t c)
{
	int64_t v[3] = { a, b, c };

	S.cur_event = entry ? event : 0;
	if (!pt_picl_maybe)
		return;
	if (entry)
		pt_entry(PT_PICL, event, 3, v);
	else
		pt_exit(PT_PICL, event, 3, v);
}

static inline void tr1(int entry, int event, int64_t a)
{
	S.cur_event = entry ? event : 0;
	if (!pt_picl_maybe)
		return;
	if (entry)
		pt_entry(PT_PICL, event, 1, &a);
	else
		pt_exit(PT_PICL, event, 1, &a);
}

static inline void tr0(int entry, int event)
{
	S.cur_event = entry ? event : 0;
	if (!pt_picl_maybe)
		return;
	if (entry)
		pt_entry(PT_PICL, event, 0, NULL);
	else
		pt_exit(PT_PICL, event, 0, NULL);
}

/* ---- the unexpected queue and posted receives ---------------------------- */

static int matches(int want, int type, int wantsrc, int src)
{
	if (want == -1) {
		/* Any type means any user type: never the internal protocol,
		 * nor a collective's message (a negative type). */
		if (type < 0 || own_type(type))
			return 0;
	} else if (want != type) {
		return 0;
	}
	return wantsrc == -1 || wantsrc == src;
}

/* The host: node 0's clocksync0 origin (in its raw clock) came. */
static void host_take_origin(const void *data, size_t len)
{
	double origin;

	if (len != sizeof origin)
		return;
	memcpy(&origin, data, sizeof origin);
	pt_set_clock_offset(origin);
	S.host_origin = 1;
}

static void enqueue(const char *call, int src, int type, const void *data,
		    size_t len)
{
	struct msg *m;

	if (type == T_CLOCK_ORIGIN) {   /* taken as it arrives, never queued */
		if (S.me == PICL_HOST && src == 0)
			host_take_origin(data, len);
		return;
	}
	m = malloc(sizeof *m + len);

	if (!m)
		fatal(call, "out of memory queueing a message", (long)len);
	m->next = NULL;
	m->src = src;
	m->type = type;
	m->len = len;
	if (len)
		memcpy(m->data, data, len);
	if (S.qtail)
		S.qtail->next = m;
	else
		S.qhead = m;
	S.qtail = m;
}

/* The first queued message matching (type, src), unlinked; or NULL. */
static struct msg *dequeue(int type, int src, int peek)
{
	struct msg *m, *prev = NULL;

	for (m = S.qhead; m; prev = m, m = m->next) {
		if (!matches(type, m->type, src, m->src))
			continue;
		if (peek)
			return m;
		if (prev)
			prev->next = m->next;
		else
			S.qhead = m->next;
		if (S.qtail == m)
			S.qtail = prev;
		return m;
	}
	return NULL;
}

static void fill(const char *call, void *buf, int bytes, const void *data,
		 size_t len)
{
	if (len > (size_t)bytes)
		fatal(call, "message longer than the receive buffer", (long)len);
	if (len)
		memcpy(buf, data, len);
}

static void complete_req(struct rreq *r, int src, int type, const void *data,
			 size_t len)
{
	/* The program's recvbegin0 is what the message does not fit, whatever
	 * call takes it in (a collective's too): named as it is. */
	if (len > (size_t)r->bytes)
		fatal_as("recvbegin0", "message longer than the receive buffer",
			 (long)len);
	fill("recvbegin0", r->buf, r->bytes, data, len);
	r->done = 1;
	r->len = (int)len;
	r->mtype = type;
	r->src = src;
}

/* Give an arrived message to the first posted receive that wants it. */
static int to_posted(int src, int type, const void *data, size_t len)
{
	size_t i;

	for (i = 0; i < S.nreq; i++) {
		struct rreq *r = &S.req[i];
		if (!r->done && matches(r->type, type, -1, src)) {
			complete_req(r, src, type, data, len);
			return 1;
		}
	}
	return 0;
}

/* A message poll() handed out and that is still held (not released). */
struct got {
	const void *p;
	size_t len;
	int type, src;
};

/* "process 3", or "the host". */
static const char *proc_name(int id, char *buf, size_t n)
{
	if (id == PICL_HOST)
		return "the host";
	snprintf(buf, n, "process %d", id);
	return buf;
}

/* How many messages of the program's own types are queued (received by
 * no call yet), and the first of them. */
static size_t not_received(const struct msg **first)
{
	const struct msg *m;
	size_t n = 0;

	*first = NULL;
	for (m = S.qhead; m; m = m->next)       /* PICL's own aside */
		if (!own_type(m->type) && !n++)
			*first = m;
	return n;
}

/*
 * Why a receive of (type, src) can no longer end, with what it waited for
 * and what this process has queued without receiving it: "piclrun stopped
 * the run while it waited for a message of type 5; not received: 1
 * message, of type 6 from process 0". A message of another type, or from
 * another source, queued here is the usual cause of a deadlock. PICL's
 * own messages (collectives') are left out, and so is the type waited for
 * when it is one of them (the call says which collective: "while it
 * waited for a message from process 1").
 */
static const char *waiting(const char *why, int type, int src)
{
	static char text[200];
	char a[24];
	const struct msg *first;
	size_t n = not_received(&first), k;

	k = (size_t)snprintf(text, sizeof text, "%s", why);
	if (k < sizeof text && type == -1)
		k += (size_t)snprintf(text + k, sizeof text - k, " while it "
				      "waited for a message of any type");
	else if (k < sizeof text && !own_type(type))
		k += (size_t)snprintf(text + k, sizeof text - k, " while it "
				      "waited for a message of type %d", type);
	else if (k < sizeof text && src != -1)  /* a collective's */
		k += (size_t)snprintf(text + k, sizeof text - k, " while it "
				      "waited for a message");
	if (k < sizeof text && src != -1)
		k += (size_t)snprintf(text + k, sizeof text - k, " from %s",
				      proc_name(src, a, sizeof a));
	if (k < sizeof text && n)
		snprintf(text + k, sizeof text - k, "; not received: %zu "
			 "message%s, %sof type %d from %s", n, n == 1 ? "" : "s",
			 n == 1 ? "" : "the first ", first->type,
			 proc_name(first->src, a, sizeof a));
	return text;
}

/*
 * Take what the backend has: each message goes to the first posted
 * receive that wants it, else, when it matches (wtype, wsrc) and g is
 * set, it is returned held in *g (1; the caller copies it out and calls
 * BE.release()), else to the unexpected queue. Returns 0 when nothing
 * (more) has arrived. call names the program's call in an error; quiet
 * (drain_quietly): nothing arriving any more is no error either.
 */
static int pump(int wtype, int wsrc, const char *call, int quiet,
		struct got *g)
{
	int src, type, r;
	size_t len;
	const void *p;

	for (;;) {
		r = BE.poll(&src, &type, &len, &p);
		if (r == 0 || (r < 0 && quiet))
			return 0;
		if (r < 0)
			peer_fatal(call, g ? waiting(or_stopped(no_more()), wtype, wsrc)
					   : or_stopped(no_more()), LONG_MIN);
		if (!own_type(type) && to_posted(src, type, p, len)) {
			BE.release();
			continue;
		}
		if (g && matches(wtype, type, wsrc, src)) {
			g->p = p;
			g->len = len;
			g->type = type;
			g->src = src;
			return 1;
		}
		enqueue(call, src, type, p, len);
		BE.release();
	}
}

/* Drain the backend into the queue and posted receives (for call). */
static void drain(const char *call)
{
	pump(0, 0, call, 0, NULL);
}

/* Take in what has arrived without failing when the peers are gone: the
 * host's clocksync0 and close0 (node 0's clock origin among it), and
 * close0's look for messages never received. */
static void drain_quietly(const char *call)
{
	pump(0, 0, call, 1, NULL);
}

/* Copy a held message into buf and release it. */
static void deliver(const char *call, void *buf, int bytes, struct got *g)
{
	fill(call, buf, bytes, g->p, g->len);
	BE.release();
}

/* The first queued message of (type, src) into buf: 1, or 0 if none. */
static int from_queue(const char *call, void *buf, int bytes, int type,
		      int src, struct got *g)
{
	struct msg *m = dequeue(type, src, 0);

	if (!m)
		return 0;
	fill(call, buf, bytes, m->data, m->len);
	g->p = NULL;
	g->len = m->len;
	g->type = m->type;
	g->src = m->src;
	free(m);
	return 1;
}

/* Nothing queued matches and nothing has arrived: in a run of this one
 * node and no host (a program run alone, or piclrun -n 1) nobody else can
 * ever send it, so waiting would never end. */
static void never_arrives(const char *call, int type)
{
	if (S.nprocs == 1 && S.me == 0 && S.host != PICL_HOST)
		fatal(call, "no such message can arrive: this process is the "
		      "only one in the run", type);
}

/* Blocking receive of (type, src) into buf, queued messages first. No
 * tracing. */
static void take(const char *call, void *buf, int bytes, int type, int src,
		 struct got *g)
{
	if (from_queue(call, buf, bytes, type, src, g))
		return;
	while (!pump(type, src, call, 0, g)) {
		never_arrives(call, type);
		BE.wait();
	}
	deliver(call, buf, bytes, g);
}

/* ---- internal (untraced) protocol ---------------------------------------- */

/* The sends and receives below are made for the program's call `call`
 * (send0, close0's barrier, clocksync0 ...), which an error names. */
static void isend(const char *call, const void *buf, size_t len, int type,
		  int dst)
{
	if (dst == S.me) {
		/* As if it had arrived: to the oldest posted recvbegin0 that
		 * wants it first (recvend0 would wait for it forever). */
		if (!own_type(type) && to_posted(S.me, type, buf, len))
			return;
		enqueue(call, S.me, type, buf, len);
		return;
	}
	if (BE.send(buf, len, type, dst) != 0)
		send_failed(call, dst);
}

/* To node, or to every other node when node is -1 (send0, sendbegin0). */
static void send_to(const char *call, const void *buf, int bytes, int type,
		    int node)
{
	int i;

	if (node != -1) {
		isend(call, buf, (size_t)bytes, type, node);
		return;
	}
	for (i = 0; i < S.nprocs; i++)
		if (i != S.me)
			isend(call, buf, (size_t)bytes, type, i);
}

static void irecv(const char *call, void *buf, int bytes, int type, int src)
{
	struct got g = { NULL, 0, 0, 0 };

	take(call, buf, bytes, type, src, &g);
}

/*
 * Fan in to node 0, fan out: each node's flag goes in (node 0 ORs them),
 * and node 0's decide(any flag set), when decide is given, goes out to
 * every node with the release and is returned there (0 without decide).
 * Nodes only: the host takes no part, and decides from its own flag.
 */
static double barrier_agree(const char *call, int flag,
			    double (*decide)(int any))
{
	int i;
	char c = (char)(flag != 0), in = 0;
	double v = 0;

	if (S.me == PICL_HOST || S.nprocs < 2)
		return decide ? decide(c) : 0;
	if (S.me == 0) {
		for (i = 1; i < S.nprocs; i++) {
			irecv(call, &in, 1, T_BARRIER_IN, i);
			c |= in;
		}
		if (decide)
			v = decide(c);
		for (i = 1; i < S.nprocs; i++)
			isend(call, &v, sizeof v, T_BARRIER_OUT, i);
	} else {
		isend(call, &c, 1, T_BARRIER_IN, 0);
		irecv(call, &v, sizeof v, T_BARRIER_OUT, 0);
	}
	return v;
}

static void barrier(const char *call)
{
	(void)barrier_agree(call, 0, NULL);
}

/*
 * clocksync0's time origin, in node 0's raw clock (barrier_agree's decide,
 * any: some node's times are fixed already, pt_clock_fixed): node 0's
 * clock now, unless some node wrote records (traceflush, a full buffer in
 * flush mode, tracemsg), then the origin in use, node 0's offset, so that
 * no written record moves and every node keeps one origin.
 */
static double clock_origin(int any)
{
	return any ? pt_clock_offset() : pt_raw_clock();
}

/*
 * Offset of this node's raw clock to node 0's (raw - raw0). Each ping-pong
 * bounds it: node 0 read t0 between our t1 and t2, so the offset lies in
 * [t1 - t0, t2 - t0]. The offset chosen is the one nearest 0 in the
 * intersection of all the bounds: exactly 0 when the clocks are one (the
 * local backend's CLOCK_MONOTONIC), so no message can appear to arrive
 * before it was sent; if the bounds do not intersect (a clock drifted
 * during the exchange), the midpoint of the fastest round trip.
 */
static double clock_offset(const char *call)
{
	int i, k;
	double t0, t1, t2, best = -1, mid = 0, lo = -1e300, hi = 1e300;

	if (S.me == PICL_HOST || S.nprocs < 2)
		return 0;
	if (S.me == 0) {
		for (i = 1; i < S.nprocs; i++) {
			for (k = 0; k < CLOCKSYNC_ROUNDS; k++) {
				char c;
				irecv(call, &c, 1, T_CLOCK_PING, i);
				t0 = pt_raw_clock();
				isend(call, &t0, sizeof t0, T_CLOCK_PONG, i);
			}
		}
		return 0;
	}
	for (k = 0; k < CLOCKSYNC_ROUNDS; k++) {
		char c = 0;
		t1 = pt_raw_clock();
		isend(call, &c, 1, T_CLOCK_PING, 0);
		irecv(call, &t0, sizeof t0, T_CLOCK_PONG, 0);
		t2 = pt_raw_clock();
		if (t1 - t0 > lo)
			lo = t1 - t0;
		if (t2 - t0 < hi)
			hi = t2 - t0;
		if (best < 0 || t2 - t1 < best) {
			best = t2 - t1;
			mid = (t1 + t2) / 2 - t0;
		}
	}
	if (lo > hi)
		return mid;
	return lo > 0 ? lo : hi < 0 ? hi : 0;
}

/* ---- a death by signal: the emergency write ------------------------------ */

/*
 * A process that dies of a signal (a crash: SIGSEGV, abort(); or a stop
 * signal that must end it now) loses the records still in its buffer: the
 * runs users most need to see. Writing them from the handler itself is
 * unsafe (the writer converts through malloc and stdio, which the signal
 * may have interrupted), so the handler makes a child with _Fork (glibc
 * 2.34: async-signal-safe, runs no atfork handler) and the child, a copy
 * of the process as the signal found it, writes the part as a PICL
 * error's way out does, then _exit()s; the parent only waits for it. If
 * the signal interrupted malloc or the writer, the child may deadlock or
 * fail: alarm() ends it after EMERGENCY_SECONDS, and nothing is lost that
 * was not lost before. The parent then lets the signal kill it, so its
 * exit status, core dump and piclrun's report stay those of the signal.
 *
 * The child ignores the stop signals (Ctrl-C again reaches the whole
 * process group, Open MPI signals a rank's group: the writer must not die
 * of the signal that made it) and dies with its parent (PR_SET_PDEATHSIG),
 * so that a launcher's SIGKILL of the process ends the writer too and
 * nobody writes a part that is being merged.
 */
#define EMERGENCY_SECONDS 5

static volatile sig_atomic_t emergency_busy;

/* The signals of a crash, caught at open0 (catch_fatal), and the stop
 * signals a backend catches (picl_api_catch_stop_signals). */
static const int fatal_sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
#define NFATAL (sizeof fatal_sigs / sizeof *fatal_sigs)
static const int stop_sigs[] = { SIGINT, SIGTERM, SIGHUP };
#define NSTOP (sizeof stop_sigs / sizeof *stop_sigs)

/* Is sa the default action (no handler, not ignored)? */
static int is_default(const struct sigaction *sa)
{
	return !(sa->sa_flags & SA_SIGINFO) && sa->sa_handler == SIG_DFL;
}

#ifdef HAVE__FORK
static void emergency_child(pid_t parent, int sig, enum picl_death how, int first)
{
	const char *sn = sigabbrev_np(sig), *fn = sigabbrev_np(first);
	char text[96];
	sigset_t set;
	size_t k;

	sigemptyset(&set);
	for (k = 0; k < NFATAL; k++) {
		signal(fatal_sigs[k], SIG_DFL);
		sigaddset(&set, fatal_sigs[k]);
	}
	signal(SIGALRM, SIG_DFL);
	sigaddset(&set, SIGALRM);
	for (k = 0; k < NSTOP; k++)
		signal(stop_sigs[k], SIG_IGN);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	alarm(EMERGENCY_SECONDS);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(1);
	if (how == PICL_DEATH_KILLED)
		snprintf(text, sizeof text, "picl: killed by SIG%s", sn ? sn : "?");
	else if (!first)
		snprintf(text, sizeof text, "picl: stopped by SIG%s", sn ? sn : "?");
	else if (first == sig)
		snprintf(text, sizeof text, "picl: stopped by a second SIG%s", sn ? sn : "?");
	else
		snprintf(text, sizeof text, "picl: stopped by SIG%s after SIG%s",
			 sn ? sn : "?", fn ? fn : "?");
	/* fatal()'s way out, without the backend's abort: the parent dies */
	if (S.cur_event)
		pt_exit(PT_PICL, S.cur_event, 0, NULL);
	tracemsg(text);
	pt_exit_abnormal();
	_exit(0);
}
#endif

int picl_api_emergency(int sig, enum picl_death how, int first)
{
#ifdef HAVE__FORK
	int saved = errno, st, state = pt_emergency_state();
	pid_t parent = getpid(), pid;

	if (emergency_busy)
		return 0;
	if (S.failing || state == 2)
		return 0;       /* fatal() or traceexit is writing it */
	if (state == 0)
		return -1;
	emergency_busy = 1;
	pid = _Fork();
	if (pid == 0)
		emergency_child(parent, sig, how, first);
	while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	errno = saved;
	return 1;
#else
	(void)sig;
	(void)how;
	(void)first;
	return -1;
#endif
}

/*
 * The fatal signals are caught at open0 where their disposition was the
 * default before the backend joined: a program's own handler is left
 * alone, and so is a sanitizer's (AddressSanitizer owns SIGSEGV, SIGBUS
 * and SIGFPE). What the backend installs when it joins comes after the
 * write: local.c's SIGBUS check of the shared segment, and Open MPI's
 * stack trace (MPI_Init installs one for SIGSEGV, SIGBUS, SIGFPE and
 * SIGABRT, but leaves a handler it finds alone, so ours goes in after
 * it, and passes the signal on). Open0 rather than tracing's start:
 * only then is the process's id known (and under MPI, Open MPI's
 * handlers are in place), and tracing before open0 is brief. The
 * handler runs on an alternate stack, allocated once, since a stack
 * overflow is a SIGSEGV with no stack left.
 */
static struct sigaction fatal_prev[NFATAL];
#define ALT_STACK_SIZE (1 << 20)     /* the child writes the part on it */

static void on_fatal(int sig, siginfo_t *si, void *uc)
{
	size_t k;

	(void)uc;
	for (k = 0; k < NFATAL && fatal_sigs[k] != sig; k++)
		;
	if (k == NFATAL)
		return;
	picl_api_emergency(sig, PICL_DEATH_KILLED, 0);
	/* Now as if we had never been here: the default action, or what the
	 * backend had installed. A fault happens again on return; a signal
	 * sent (abort's raise, kill) is sent again, delivered on return. */
	sigaction(sig, &fatal_prev[k], NULL);
	if (si->si_code <= 0 || fatal_prev[k].sa_handler == SIG_DFL)
		raise(sig);
}

/* Which fatal signals still have their default action (before the
 * backend joins), or the transport's handler (the program initialized it
 * itself), as a bit mask by index in fatal_sigs. */
static unsigned fatal_defaults(void)
{
	struct sigaction old;
	unsigned mask = 0;
	size_t k;

	for (k = 0; k < NFATAL; k++) {
		if (sigaction(fatal_sigs[k], NULL, &old) != 0)
			continue;
		if (is_default(&old) || (BE.own_handler && BE.own_handler(&old)))
			mask |= 1u << k;
	}
	return mask;
}

static void catch_fatal(unsigned mask)
{
	static void *alt;
	struct sigaction sa;
	size_t k;

#ifndef HAVE__FORK
	return;
#endif
	if (!mask)
		return;
	if (!alt) {
		stack_t ss;

		alt = mmap(NULL, ALT_STACK_SIZE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
		if (alt == MAP_FAILED) {
			alt = NULL;
		} else {
			ss.ss_sp = alt;
			ss.ss_size = ALT_STACK_SIZE;
			ss.ss_flags = 0;
			sigaltstack(&ss, NULL);
		}
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_fatal;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	/* one death at a time: no other caught signal nests in the write */
	sigemptyset(&sa.sa_mask);
	for (k = 0; k < NFATAL; k++)
		sigaddset(&sa.sa_mask, fatal_sigs[k]);
	for (k = 0; k < NSTOP; k++)
		sigaddset(&sa.sa_mask, stop_sigs[k]);
	for (k = 0; k < NFATAL; k++)
		if (mask & (1u << k))
			sigaction(fatal_sigs[k], &sa, &fatal_prev[k]);
}

void picl_api_catch_stop_signals(void (*on_stop)(int))
{
	struct sigaction sa, old;
	size_t k;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (k = 0; k < NSTOP; k++)
		sigaddset(&sa.sa_mask, stop_sigs[k]);
	for (k = 0; k < NSTOP; k++)
		if (sigaction(stop_sigs[k], NULL, &old) == 0 && is_default(&old))
			sigaction(stop_sigs[k], &sa, NULL);
}

/* ---- communication calls ------------------------------------------------- */

void open0(int *numproc, int *me, int *host)
{
	unsigned fatal_mask;

	/* A process joins the run once (picl(3)). The backend cannot join
	 * again after close0; a second open0 while open would record a
	 * second -11 (or -501) for a join that did not happen: a slip in
	 * the program (who0 gives the values again), said rather than
	 * passed over. */
	if (S.open)
		fatal("open0", "called twice (a process joins the run once)",
		      LONG_MIN);
	if (S.joined)
		fatal("open0", "called after close0 (a process joins the run "
		      "once)", LONG_MIN);
	fatal_mask = fatal_defaults();
	if (BE.init(&S.nprocs, &S.me, &S.host) != 0) {
		fprintf(stderr, "picl: open0: cannot join the run "
			"(backend %s)\n", BE.name);
		exit(1);
	}
	S.open = S.joined = 1;
	pt_attach(S.me, S.nprocs, S.host);
	catch_fatal(fatal_mask);
	if (S.me == PICL_HOST) {
		tr1(1, -501, S.nprocs);
		tr1(0, -501, S.nprocs);
	} else {
		tr0(1, -11);
		tr0(0, -11);
	}
	if (S.sync_at_open) {
		const char *prev = picl_api_serve("open0");

		S.sync_at_open = 0;
		clocksync0();
		picl_api_serve(prev);
	}
	if (numproc)
		*numproc = S.nprocs;
	if (me)
		*me = S.me;
	if (host)
		*host = S.host;
}

/*
 * close0: the messages this process was sent and never received, said on
 * standard error and in a -7 record ("picl: process 1: close0: 2 messages
 * sent to this process were never received, the first of type 6 from
 * process 0"). A message sent with the wrong type, or to the wrong
 * process, otherwise shows only as a receive that waits for ever, or not
 * at all. After the nodes' barrier every message sent to a node before
 * its sender's close0 has arrived with the local backend; with MPI's, one
 * may still be on its way (then it is not counted), and the host, no part
 * of the barrier, counts what came before its close0.
 */
static void never_received(void)
{
	const struct msg *first;
	char text[160], rec[170], a[24];
	size_t n;

	drain_quietly("close0");
	if (!(n = not_received(&first)))
		return;
	snprintf(text, sizeof text, "close0: %zu message%s sent to this process "
		 "%s never received, %sof type %d from %s", n, n == 1 ? "" : "s",
		 n == 1 ? "was" : "were", n == 1 ? "" : "the first ", first->type,
		 proc_name(first->src, a, sizeof a));
	fprintf(stderr, "picl: process %d: %s\n", S.me, text);
	snprintf(rec, sizeof rec, "picl: %s", text);
	tracemsg(rec);
}

/*
 * close0: the receives this process began (recvbegin0) and never ended
 * (recvend0, recvstatus0), said as never_received says messages ("picl:
 * process 1: close0: 2 receives begun with recvbegin0 were never ended,
 * the first of type 5"). A request left so is a slip of the program: its
 * message went into the buffer unseen, or never came (then the one it
 * waited for was sent with another type, or not at all); either way the
 * trace shows a -57 with no -60 or -61 and nothing says why.
 */
static void never_ended(void)
{
	char text[160], rec[170], type[32];
	size_t n = S.nreq;

	if (!n)
		return;
	if (S.req[0].type == -1)
		snprintf(type, sizeof type, "any type");
	else
		snprintf(type, sizeof type, "type %d", S.req[0].type);
	snprintf(text, sizeof text, "close0: %zu receive%s begun with recvbegin0 "
		 "%s never ended, %sof %s", n, n == 1 ? "" : "s",
		 n == 1 ? "was" : "were", n == 1 ? "" : "the first ", type);
	fprintf(stderr, "picl: process %d: %s\n", S.me, text);
	snprintf(rec, sizeof rec, "picl: %s", text);
	tracemsg(rec);
}

void close0(int release)
{
	(void)release;
	/* Before open0 or a second time, an error as for every
	 * communication call: there is no run to leave (once it returned
	 * at once, and a second close0 passed for the first). */
	need_open("close0");
	if (S.me == PICL_HOST) {
		/* The host releases the nodes (no part of their barrier);
		 * node 0's clock origin, if it came, before the write. */
		drain_quietly("close0");
		tr0(1, -502);
		tr0(0, -502);
	} else {
		pt_mark(PT_PICL, -12, 0, NULL);
		/* Nobody leaves while others may still send to it. */
		barrier("close0");
	}
	never_received();
	never_ended();
	traceexit();
	BE.finalize();
	S.open = 0;
	pt_detach();
}

void picl_api_trace_lost(void)
{
	if (BE.trace_lost)
		BE.trace_lost();
}

int picl_api_id(void)
{
	return S.joined ? S.me : BE.id_hint();
}

void picl_api_who(int *numproc, int *me, int *host)
{
	if (numproc)
		*numproc = S.nprocs;
	if (me)
		*me = S.me;
	if (host)
		*host = S.host;
}

/* Before open0 the values are not known yet (they would say 1 node, me 0,
 * no host, whatever the run is); after close0 they are still open0's. */
static void need_joined(const char *call)
{
	if (!S.joined)
		fatal(call, "called before open0", LONG_MIN);
}

void who0(int *numproc, int *me, int *host)
{
	need_joined("who0");
	pt_count(-13);
	picl_api_who(numproc, me, host);
}

int host0(void)
{
	need_joined("host0");
	return S.host == PICL_HOST && S.me != PICL_HOST;
}

double clock0(void)
{
	return pt_clock();
}

/*
 * Every node's clock becomes node 0's, and time 0 is node 0's clock when
 * the offsets are known (PICL's clocksync0 resets the origin: the records
 * before it get negative times, Table 20), unless records were written
 * already: they cannot move (Appendix A: only the records not yet written
 * are affected), so the origin in use stays and only the offsets between
 * the clocks are corrected (clock_origin).
 */
void clocksync0(void)
{
	double off;

	if (!S.open) {
		if (S.joined)   /* after close0: nobody to sync with */
			need_open("clocksync0");
		/* tracenode(..., sync = 1) before open0: sync in open0. */
		S.sync_at_open = 1;
		return;
	}
	tr0(1, -401);
	if (S.me == PICL_HOST) {
		/* No part in the nodes' sync: node 0's origin once it came
		 * (enqueue), else the host's own clock now, as before. */
		drain_quietly("clocksync0");
		if (!S.host_origin)
			pt_set_clock_offset(clock_origin(pt_clock_fixed()));
		tr0(0, -401);
		return;
	}
	barrier("clocksync0");
	off = clock_offset("clocksync0");
	pt_set_clock_offset(off + barrier_agree("clocksync0", pt_clock_fixed(),
						clock_origin));
	if (S.me == 0 && S.host == PICL_HOST) {
		/* The host's times from the same origin (the host shares node
		 * 0's clock); it may have ended already: no error. */
		double origin = pt_clock_offset();

		(void)BE.send(&origin, sizeof origin, T_CLOCK_ORIGIN, PICL_HOST);
	}
	tr0(0, -401);
}

/* send0 when the fast path of send0 does not apply. */
static __attribute__((noinline)) void send_general(const void *buf,
						   int bytes, int type, int node)
{
	check_send("send0", bytes, type, node);
	tr3(1, -21, bytes, type, node);
	send_to("send0", buf, bytes, type, node);
	tr0(0, -21);
}

void send0(const void *buf, int bytes, int type, int node)
{
	/* The common case with tracing off, in as few instructions as the
	 * checks allow: an 8-byte ping-pong over MPI pays for each one. */
	if (__builtin_expect(!pt_picl_maybe && S.open && bytes >= 0 &&
			     type >= 0 && type < T_RESERVED_LO && node >= 0 &&
			     node < S.nprocs && node != S.me, 1)) {
		if (BE.send(buf, (size_t)bytes, type, node) != 0)
			send_failed("send0", node);
		return;
	}
	send_general(buf, bytes, type, node);
}

/* A message met by BE.recv_into before the one it looks for: what pump()
 * does with a message nobody is waiting for. */
static void aside(int src, int type, const void *data, size_t len)
{
	if (!own_type(type) && to_posted(src, type, data, len))
		return;
	enqueue("recv0", src, type, data, len);
}

/* 1 if some recvbegin0 is still waiting for its message. */
static int posted_pending(void)
{
	size_t i;

	for (i = 0; i < S.nreq; i++)
		if (!S.req[i].done)
			return 1;
	return 0;
}

/* What BE.recv_into returned, for recv0: 1 (received) or 0 (nothing yet,
 * when not blocking); fails on the others. */
static int recv_into_result(int r, int event, int type, size_t len)
{
	if (r == -1)
		peer_fatal("recv0", waiting(or_stopped(no_more()), type, -1), LONG_MIN);
	if (r == 2) {
		if (event)      /* as if the message had been taken: -51 */
			tr1(1, event, type);
		fatal("recv0", "message longer than the receive buffer",
		      (long)len);
	}
	return r;
}

/*
 * recv0 without a detour: the message goes from the backend straight into
 * buf (BE.recv_into) when nothing queued matches and no recvbegin0 is
 * pending (an arriving message would go to it first). Traced as the general
 * path: -51 when the message had already arrived, else -52 (when nothing is
 * recorded, the backend is asked to wait at once: no probe first). Returns
 * 0 when the backend cannot do it.
 */
static int recv_direct(void *buf, int bytes, int type, struct got *g)
{
	int r, event = -51, src = 0, mtype = 0;
	int look = pt_picl_maybe && pt_on(PT_PICL); /* untraced, -51 or -52 is unseen */
	size_t len = 0;

	if (!BE.recv_into || dequeue(type, -1, 1) || posted_pending())
		return 0;
	r = BE.recv_into(buf, (size_t)bytes, type, !look, &src, &mtype, &len,
			 aside);
	if (r == -2)
		return 0;
	if (look && recv_into_result(r, -51, type, len) == 1) {
		tr1(1, -51, type);
	} else {
		event = -52;
		tr1(1, -52, type);
		while (r == 0)
			r = BE.recv_into(buf, (size_t)bytes, type, 1, &src,
					 &mtype, &len, aside);
		recv_into_result(r, 0, type, len);
	}
	g->len = len;
	g->type = mtype;
	g->src = src;
	tr3(0, event, (int)len, mtype, src);
	return 1;
}

/* recv0 when the fast path of recv0 does not apply. */
static __attribute__((noinline)) void recv_general(void *buf, int bytes,
						   int type)
{
	struct got g = { NULL, 0, 0, 0 };

	check_recv("recv0", bytes, type);
	if (recv_direct(buf, bytes, type, &g)) {
		/* done, traced */
	} else if (dequeue(type, -1, 1)) {              /* queued: -51 */
		tr1(1, -51, type);
		from_queue("recv0", buf, bytes, type, -1, &g);
		tr3(0, -51, (int)g.len, g.type, g.src);
	} else if (pump(type, -1, "recv0", 0, &g)) {    /* arrived: -51 */
		tr1(1, -51, type);
		deliver("recv0", buf, bytes, &g);
		tr3(0, -51, (int)g.len, g.type, g.src);
	} else {                                        /* must wait: -52 */
		tr1(1, -52, type);
		take("recv0", buf, bytes, type, -1, &g);
		tr3(0, -52, (int)g.len, g.type, g.src);
	}
	S.last_len = (int)g.len;
	S.last_type = g.type;
	S.last_src = g.src;
}

void recv0(void *buf, int bytes, int type)
{
	/* The common case with tracing off (see send0): nothing queued, no
	 * recvbegin0 pending, the backend receives into buf; what it cannot
	 * do (-2: nothing happened) goes the general way. */
	if (__builtin_expect(!pt_picl_maybe && S.open && bytes >= 0 &&
			     type >= -1 && type < T_RESERVED_LO && !S.qhead && !S.nreq &&
			     BE.recv_into, 1)) {
		int r, src, mtype;
		size_t len;

		r = BE.recv_into(buf, (size_t)bytes, type, 1, &src, &mtype,
				 &len, aside);
		if (__builtin_expect(r == 1, 1)) {
			S.last_len = (int)len;
			S.last_type = mtype;
			S.last_src = src;
			return;
		}
		if (r == -1 || r == 2)
			recv_into_result(r, 0, type, len);      /* fails */
	}
	recv_general(buf, bytes, type);
}

void picl_api_recvinfo(int *bytes, int *type, int *node)
{
	if (bytes)
		*bytes = S.last_len;
	if (type)
		*type = S.last_type;
	if (node)
		*node = S.last_src;
}

void picl_api_set_recvinfo(int bytes, int type, int node)
{
	S.last_len = bytes;
	S.last_type = type;
	S.last_src = node;
}

void recvinfo0(int *bytes, int *type, int *node)
{
	pt_count(-14);
	picl_api_recvinfo(bytes, type, node);
}

/* Look for a queued message of type; sets recvinfo's values. */
static int found(const char *call, int type)
{
	struct msg *m;

	drain(call);
	m = dequeue(type, -1, 1);
	if (!m)
		return 0;
	S.last_len = (int)m->len;
	S.last_type = m->type;
	S.last_src = m->src;
	return 1;
}

int probe0(int type)
{
	int r;

	check_recv("probe0", 0, type);
	r = found("probe0", type);
	pt_count(r ? -53 : -54);
	return r;
}

void wait0(int type)
{
	check_recv("wait0", 0, type);
	if (found("wait0", type)) {
		pt_count(-55);
		return;
	}
	tr1(1, -56, type);
	while (!found("wait0", type)) {
		never_arrives("wait0", type);
		BE.wait();
	}
	tr3(0, -56, S.last_len, S.last_type, S.last_src);
}

/*
 * The sends begun (sendbegin0) and not yet ended, by request id (the
 * type): sendend0 and sendstatus0 of a type no sendbegin0 began are
 * errors, as recvend0's and recvstatus0's are. Each ends the oldest send
 * of its type (all are complete already: sendbegin0 sent at once).
 */
static void begin_sreq(int type)
{
	if (S.nsreq == S.sreqcap) {
		size_t cap = S.sreqcap ? 2 * S.sreqcap : 8;
		int *n = realloc(S.sreq, cap * sizeof *n);

		if (!n)
			fatal("sendbegin0", "out of memory", LONG_MIN);
		S.sreq = n;
		S.sreqcap = cap;
	}
	S.sreq[S.nsreq++] = type;
}

static void end_sreq(const char *call, int type)
{
	size_t i;

	for (i = 0; i < S.nsreq; i++)
		if (S.sreq[i] == type)
			break;
	if (i == S.nsreq)
		fatal(call, "no send of this type was begun", type);
	memmove(S.sreq + i, S.sreq + i + 1, (S.nsreq - i - 1) * sizeof *S.sreq);
	S.nsreq--;
}

void sendbegin0(const void *buf, int bytes, int type, int node)
{
	check_send("sendbegin0", bytes, type, node);
	tr3(1, -27, bytes, type, node);
	send_to("sendbegin0", buf, bytes, type, node);
	begin_sreq(type);
	tr1(0, -27, type);
}

void sendend0(int type)
{
	need_open("sendend0");
	end_sreq("sendend0", type);
	tr1(1, -30, type);
	tr0(0, -30);
}

int sendstatus0(int type)
{
	need_open("sendstatus0");
	end_sreq("sendstatus0", type);
	tr1(1, -28, type);
	tr0(0, -28);
	return 1;
}

void recvbegin0(void *buf, int bytes, int type)
{
	struct rreq *r;
	struct msg *m;

	check_recv("recvbegin0", bytes, type);
	tr1(1, -57, type);
	if (S.nreq == S.reqcap) {
		size_t cap = S.reqcap ? 2 * S.reqcap : 8;
		struct rreq *n = realloc(S.req, cap * sizeof *n);
		if (!n)
			fatal("recvbegin0", "out of memory", LONG_MIN);
		S.req = n;
		S.reqcap = cap;
	}
	r = &S.req[S.nreq++];
	memset(r, 0, sizeof *r);
	r->buf = buf;
	r->bytes = bytes;
	r->type = type;
	/* A queued message came before anything the backend still holds:
	 * it first. Else what arrives goes to the posted receives in the
	 * order they were posted (this one last). Draining first would hand
	 * this receive a newer message and then the queued one on top. */
	m = dequeue(type, -1, 0);
	if (m) {
		complete_req(r, m->src, m->type, m->data, m->len);
		free(m);
	} else {
		drain("recvbegin0");
	}
	tr1(0, -57, type);
}

/* The oldest posted receive with request id type, or -1. */
static long find_req(int type)
{
	size_t i;

	for (i = 0; i < S.nreq; i++)
		if (S.req[i].type == type)
			return (long)i;
	return -1;
}

static void finish_req(long i)
{
	struct rreq *r = &S.req[i];

	S.last_len = r->len;
	S.last_type = r->mtype;
	S.last_src = r->src;
	memmove(r, r + 1, (S.nreq - (size_t)i - 1) * sizeof *r);
	S.nreq--;
}

int recvstatus0(int type)
{
	long i;

	need_open("recvstatus0");
	i = find_req(type);
	if (i < 0)
		fatal("recvstatus0", "no receive of this type was begun", type);
	drain("recvstatus0");
	if (!S.req[i].done) {
		pt_count(-59);
		return 0;
	}
	tr1(1, -58, type);
	finish_req(i);
	tr3(0, -58, S.last_len, S.last_type, S.last_src);
	return 1;
}

void recvend0(int type)
{
	long i;
	int event;

	need_open("recvend0");
	i = find_req(type);
	if (i < 0)
		fatal("recvend0", "no receive of this type was begun", type);
	drain("recvend0");
	event = S.req[i].done ? -60 : -61;
	tr1(1, event, type);
	while (!S.req[i].done) {
		never_arrives("recvend0", type);
		BE.wait();
		drain("recvend0");
	}
	finish_req(i);
	tr3(0, event, S.last_len, S.last_type, S.last_src);
}

void sync0(void)
{
	need_open("sync0");
	tr0(1, -402);
	barrier("sync0");
	tr0(0, -402);
}

/*
 * load0: under piclrun the node programs are started by piclrun itself
 * (before the host program runs), so load0 only records what PICL would
 * have: a -503 entry with the executable's name and an exit per node
 * (processor, and -1 for the process id, which the host does not know).
 */
void load0(const char *file, int node)
{
	int i, lo = node, hi = node;

	need_open("load0");
	/* Checked even after check0(0), as send0's destination: a record of
	 * a processor the run does not have would make the trace invalid.
	 * The host is not a node to start a program on. */
	if (node == -1) {
		lo = 0;
		hi = S.nprocs - 1;
	} else if (node < 0 || node >= S.nprocs) {
		fatal("load0", "no such node", node);
	}
	for (i = lo; i <= hi; i++) {
		int64_t v[2] = { i, -1 };
		pt_entry_text(PT_PICL, -503, file);
		pt_exit(PT_PICL, -503, 2, v);
	}
}

void check0(int checking)
{
	S.checking = checking != 0;
}

void message0(const char *text)
{
	int id = picl_api_id();

	if (id == PICL_HOST)
		fprintf(stderr, "host: %s\n", text ? text : "");
	else
		fprintf(stderr, "node %d: %s\n", id, text ? text : "");
}
