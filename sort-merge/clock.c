/*
 * clock.c - estimate each processor's clock offset and drift from the
 * messages it exchanged (the estimator behind `picltrace sync`).
 *
 * Model. Processor p's clock is taken to be linear in the reference's:
 * its time t (seconds from t0) becomes t + offset_p + drift_p * t. The
 * reference has offset 0 and drift 0.
 *
 * Constraints. A message can arrive no earlier than it left plus the
 * minimum latency L. For two processors a < b, with b's clock mapped onto
 * a's by the line  t_a = t_b + o + d * t_b,  a message a->b sent at s (on
 * a) and received at r (on b) demands  o + d*r >= s - r + L,  and a message
 * b->a sent at s (on b) and received at r (on a) demands
 * o + d*s <= r - s - L. In the plane (x = time on b, y = correction) the
 * first kind are points below the line, the second points above it: every
 * feasible (o, d) is a line that separates the two point sets. Only the
 * upper convex hull of the lower set and the lower hull of the upper set
 * matter, so that is all we keep: points are buffered and folded into their
 * hull whenever the buffer fills (memory stays small for any trace length).
 *
 * Fit of one pair (the convex-hull method of Duda et al., in its max-margin
 * form; the POM paper's global dating shares the linear model but fits each
 * node against the reference statistically, from exchanges before and after
 * the run: picltrace-sync(1) says why sync does not). For a slope d let
 * Lo(d) be the least offset the lower points allow and Hi(d) the greatest
 * the upper points allow; the margin Hi - Lo is concave in d. We take the d
 * that maximises it (the middle of a plateau) and the offset midway between
 * Lo and Hi: the line that leaves the most room on both sides, which makes
 * the minimum apparent latency equal in both directions. The maximum is
 * searched exactly among the hulls' edge slopes within [-max_drift,
 * max_drift]. When it lies on that bound the messages do not determine the
 * drift (e.g. one message each way): drift 0 if that leaves no violation,
 * else the smallest |d| that does. With a negative margin no line
 * satisfies every constraint (the pair is inconsistent); the max-margin
 * line is then the one with the least worst violation, also when its
 * slope is the bound (a clock drifting beyond it). With messages one
 * way only, the offset is the least one that makes them causal (often 0).
 *
 * Uncertainty of a fit. If latencies can be as small as L, any line that
 * keeps every constraint (slope within the bound) could be the truth. The
 * half-width of the band those lines sweep, at its widest over the time the
 * points span, is how far the estimate may be off: half the margin when the
 * drift is pinned down, more when it is not. An inconsistent pair counts
 * half its worst violation.
 *
 * Global solution, in three steps.
 *  1. Tree. Processors are the nodes of a graph whose edges are the pairs
 *     that exchanged messages. From the reference, a shortest-path tree
 *     (Dijkstra) picks for every processor the chain of pairs whose summed
 *     uncertainty is least (one-way and inconsistent pairs only when
 *     nothing better connects), and the pair fits are composed along it.
 *     Groups of processors with no message path to the reference are solved
 *     around their lowest processor, which keeps its clock.
 *  2. Refits. A tree uses each processor's messages with one partner only,
 *     and errors add up along a chain. So, starting from the tree, each
 *     processor is fitted again against all its partners at once, their
 *     corrections held (the same max-margin fit: each partner's constraints
 *     mapped into this processor's frame, the drift bound now applying to
 *     its drift from the reference), in sweeps over all processors
 *     (Gauss-Seidel) until nothing moves by 1e-12 s or 50 sweeps have run.
 *     A step never lowers the least room left by the constraints it
 *     touches, so the sweeps head for the corrections that leave the most
 *     room overall: the solution of the linear program "maximise the
 *     smallest slack of all constraints", which they reach when it is
 *     unique and the sweeps do not stall. A processor fitted one way only is
 *     where a least shift put it, not an estimate, so it does not pull its
 *     partners; nor does one whose tree pair no line fits (inconsistent, as
 *     a clock drifting beyond the bound), whose violations would move the
 *     others. One that no line fits only against its partners' corrections
 *     of the moment still pulls: tree chains that meet around a cycle (a
 *     ring whose pairs are two-way only through clocksync0's wide windows,
 *     each centred far off) can hold it between partners no line joins,
 *     and its least-violation line is what brings them together. Left out
 *     for that, it stayed out, the sweeps stalled, and a ring traced with
 *     clocks in step came out with latencies of 0 where they were 1 us.
 *  3. Final shift. What is still violated (one-way processors, stalled
 *     sweeps) is removed, where constant shifts can remove it, by the least
 *     non-negative shift per processor solving the difference constraints
 *     shift_q - shift_p >= violation_pq (Bellman-Ford); pairs inconsistent
 *     by themselves are left out, and if the rest has a positive cycle no
 *     shift is applied. The root of each group keeps shift 0 (the others
 *     move instead).
 * The reported uncertainty of a processor is the sum along its tree chain.
 *
 * Synchronisations (-401 clocksync0, -402 sync0) are collective: the k-th
 * instance of one (event, group) on every process is one call, and every
 * participant's exit follows every participant's entry. Each ordered pair of
 * participants on different processors becomes a virtual message from the
 * entry of one to the exit of the other (beyond 32 participants, only the
 * pairs with the lowest-numbered participant, to stay linear). A call is
 * kept only until its round is folded into those constraints, so memory
 * does not grow with the number of calls; but how many take part in a round
 * is nowhere said, and a process that has not come to it yet may come
 * later. So a round is folded when one of its processes holds 4096 calls
 * waiting (its oldest is in that round), or at the end: in a trace sorted
 * by time, a round's calls are that close together unless clocks are
 * thousands of calls apart, and the rounds are those all calls kept to the
 * end would give. A call that comes after its round was folded (a trace
 * not sorted by time, a process that came very late) is left out and
 * counted; a process that never comes (it died) holds nothing up. The
 * constraints are those of before, in the same order among themselves,
 * but no longer all after the messages: that changes when a pair's points
 * are compacted into its hull, which can change the hull by rounding only
 * (the traces tried gave the same corrections to the last bit).
 */
#include "clock.h"
#include "intmap.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define COMPACT_MIN 16             /* points buffered before folding into a hull */
#define SYNC_ALL_PAIRS_MAX 32
#define SYNC_WAIT_MAX 4096         /* calls one process holds waiting for their
				      rounds (a power of two) */
#define COST_HOP 1e-12             /* prefers fewer links among equals */
#define COST_INCONSISTENT 1.0      /* seconds of extra uncertainty */
#define COST_ONE_WAY 1e6
#define SHIFT_TOL 1e-12           /* seconds: violations below are noise */
#define REFINE_SWEEPS 50
#define REFINE_TOL 1e-12          /* seconds: a sweep that moves less ends them */

/* Grow an array of `size`-byte elements to hold at least n+1. */
static int grow(void **v, size_t *cap, size_t n, size_t size)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	if (ncap > SIZE_MAX / size)
		return CLOCK_ERR_NOMEM;
	p = realloc(*v, ncap * size);
	if (!p)
		return CLOCK_ERR_NOMEM;
	*v = p;
	*cap = ncap;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Point sets kept as convex hulls                                           */
/* ------------------------------------------------------------------------ */

struct pt {
	double x, y;
};

/* `upper`: keep the upper hull (points the line must pass above), else the
 * lower hull. After ptset_compact, v[0..n) is the hull by increasing x. */
struct ptset {
	struct pt *v;
	size_t n, cap;
	int upper;
	int compact;
};

static int cmp_pt_upper(const void *pa, const void *pb)
{
	const struct pt *a = pa, *b = pb;

	if (a->x != b->x)
		return a->x < b->x ? -1 : 1;
	return (a->y < b->y) - (a->y > b->y);     /* y descending */
}

static int cmp_pt_lower(const void *pa, const void *pb)
{
	const struct pt *a = pa, *b = pb;

	if (a->x != b->x)
		return a->x < b->x ? -1 : 1;
	return (a->y > b->y) - (a->y < b->y);     /* y ascending */
}

static double cross(struct pt o, struct pt a, struct pt b)
{
	return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

/* Andrew's monotone chain, in place: the upper (or lower) hull, strictly
 * increasing x, no collinear middle points. */
static void ptset_compact(struct ptset *s)
{
	size_t i, k = 0;

	if (s->compact)
		return;
	if (s->n > 1)
		qsort(s->v, s->n, sizeof(*s->v), s->upper ? cmp_pt_upper : cmp_pt_lower);
	for (i = 0; i < s->n; i++) {
		struct pt p = s->v[i];

		if (k > 0 && s->v[k - 1].x == p.x)
			continue;      /* same x: the first one is the extreme one */
		while (k >= 2) {
			double c = cross(s->v[k - 2], s->v[k - 1], p);

			if (s->upper ? c >= 0 : c <= 0)
				k--;
			else
				break;
		}
		s->v[k++] = p;
	}
	s->n = k;
	s->compact = 1;
}

static int ptset_add(struct ptset *s, double x, double y)
{
	if (s->n == s->cap) {
		if (s->n >= COMPACT_MIN) {
			ptset_compact(s);
			if (s->n * 2 <= s->cap)
				goto add;
		}
		if (grow((void **)&s->v, &s->cap, s->n, sizeof(*s->v)) < 0)
			return CLOCK_ERR_NOMEM;
	}
add:
	s->v[s->n].x = x;
	s->v[s->n].y = y;
	s->n++;
	s->compact = 0;
	return 0;
}

static double edge_slope(const struct ptset *s, size_t i)
{
	return (s->v[i + 1].y - s->v[i].y) / (s->v[i + 1].x - s->v[i].x);
}

/* max over the (upper hull) points of y - d*x; the hull must be compact. */
static double upper_eval(const struct ptset *s, double d)
{
	size_t lo = 0, hi = s->n - 1;

	/* edge slopes decrease: the maximum is at the first edge with slope <= d */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (edge_slope(s, mid) <= d)
			hi = mid;
		else
			lo = mid + 1;
	}
	return s->v[lo].y - d * s->v[lo].x;
}

/* min over the (lower hull) points of y - d*x. */
static double lower_eval(const struct ptset *s, double d)
{
	size_t lo = 0, hi = s->n - 1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (edge_slope(s, mid) >= d)
			hi = mid;
		else
			lo = mid + 1;
	}
	return s->v[lo].y - d * s->v[lo].x;
}

/* ------------------------------------------------------------------------ */
/* The estimator's state                                                     */
/* ------------------------------------------------------------------------ */

enum link_kind { LINK_TWO_WAY, LINK_ONE_WAY };

struct pair {
	int32_t a, b;              /* a < b */
	struct ptset ab;           /* a->b: (recv on b, send - recv), upper hull */
	struct ptset ba;           /* b->a: (send on b, recv - send), lower hull */
	uint64_t n_ab, n_ba;       /* messages */
	uint64_t s_ab, s_ba;       /* synchronisation constraints */
	/* the fit: b's clock onto a's, t_a = t_b + o + d * t_b */
	double o, d, margin;
	double unc;                /* half-width of the band of feasible
				      corrections over the points' time span */
	enum link_kind kind;
	unsigned flags;
};

struct node {
	struct clock_result r;
	size_t adj_start, adj_n;   /* into the estimator's adjacency (pairs) */
	double dist;
	size_t via_pair;           /* the pair that links it to its parent */
	int settled;
	int estimated;             /* its correction fits both directions: it
				      may constrain its partners' refits */
	int32_t root;              /* root of its group, -1 if alone */
};

struct pending {
	int32_t event, group;
	int active;
	double entry;
};

/* One process's part in one collective call, waiting for the call's round
 * to be folded into constraints. */
struct sync_call {
	double entry, exit;
	uint64_t seq;              /* the order of its exit in the input */
};

struct counter {                   /* one process's calls of one collective */
	int32_t event, group;
	uint64_t count;            /* calls so far: the next one is call `count` */
	size_t coll;               /* the collective (index) */
	size_t member;             /* its index in the collective's m */
	struct sync_call *wait;    /* a ring of its calls not yet folded: calls
				      count - nwait ... count - 1 */
	size_t wait0, nwait, wait_cap;
};

struct stream {                    /* one process's synchronisations */
	int32_t processor, process;
	struct pending *pend;
	size_t npend, pend_cap;
	struct counter *cnt;
	size_t ncnt, cnt_cap;
	size_t nwait;              /* its calls waiting, over all its counters */
};

struct member {
	size_t stream, counter;    /* indices: the counter is the stream's */
};

/* The calls of one (event, group); its k-th round is the k-th call of every
 * member. Rounds below `next` are folded (constraints made, calls freed). */
struct collective {
	int32_t event, group;
	uint64_t next;
	struct member *m;
	size_t nm, m_cap;
	size_t *act;               /* the members with calls waiting (in m):
				      a round is made of theirs only, so
				      that one busy member among many idle
				      ones does not cost a pass over all */
	size_t nact, act_cap;
	size_t nwait;              /* its members' calls waiting */
};

/* A call of the round being folded, with whose it is. */
struct round_call {
	int32_t processor;
	struct sync_call c;
};

struct clock_estimator {
	struct node *nodes;
	size_t nnodes, nodes_cap;
	struct intmap node_of;     /* processor -> node index */

	struct pair *pairs;
	size_t npairs, pairs_cap;
	struct intmap pair_of;     /* (a, b) -> pair index */

	struct stream *streams;
	size_t nstreams, streams_cap;
	struct intmap stream_of;   /* (processor, process) -> stream index */
	struct collective *colls;
	size_t ncolls, colls_cap;
	struct intmap coll_of;     /* (event, group) -> collective index */
	struct round_call *round;  /* scratch: the round being folded */
	size_t round_cap;
	uint64_t seq;              /* synchronisation exits taken in */
	uint64_t sync_waiting, sync_late;

	size_t *adj;               /* pair indices, by node */
	size_t *order;             /* nodes in the order the trees reached them */
	size_t norder;
	uint64_t messages, sync_constraints;
	int32_t reference;
	int solved;
};

struct clock_estimator *clock_estimator_new(void)
{
	struct clock_estimator *ce = calloc(1, sizeof(*ce));

	if (ce)
		ce->reference = -1;
	return ce;
}

void clock_estimator_free(struct clock_estimator *ce)
{
	size_t i;

	if (!ce)
		return;
	for (i = 0; i < ce->npairs; i++) {
		free(ce->pairs[i].ab.v);
		free(ce->pairs[i].ba.v);
	}
	for (i = 0; i < ce->nstreams; i++) {
		size_t j;

		for (j = 0; j < ce->streams[i].ncnt; j++)
			free(ce->streams[i].cnt[j].wait);
		free(ce->streams[i].pend);
		free(ce->streams[i].cnt);
	}
	for (i = 0; i < ce->ncolls; i++) {
		free(ce->colls[i].m);
		free(ce->colls[i].act);
	}
	free(ce->pairs);
	free(ce->nodes);
	free(ce->streams);
	free(ce->colls);
	free(ce->round);
	free(ce->adj);
	free(ce->order);
	intmap_free(&ce->node_of);
	intmap_free(&ce->pair_of);
	intmap_free(&ce->stream_of);
	intmap_free(&ce->coll_of);
	free(ce);
}

static struct node *node_get(struct clock_estimator *ce, int32_t p)
{
	size_t i;
	struct node *n;

	if (intmap_get(&ce->node_of, (uint64_t)(uint32_t)p, &i))
		return &ce->nodes[i];
	if (grow((void **)&ce->nodes, &ce->nodes_cap, ce->nnodes, sizeof(*ce->nodes)) < 0 ||
	    intmap_put(&ce->node_of, (uint64_t)(uint32_t)p, ce->nnodes) < 0)
		return NULL;
	n = &ce->nodes[ce->nnodes++];
	memset(n, 0, sizeof(*n));
	n->r.processor = p;
	n->r.parent = -1;
	n->root = -1;
	return n;
}

static struct pair *pair_get(struct clock_estimator *ce, int32_t a, int32_t b)
{
	size_t i;
	struct pair *p;

	if (intmap_get(&ce->pair_of, intmap_key2(a, b), &i))
		return &ce->pairs[i];
	if (grow((void **)&ce->pairs, &ce->pairs_cap, ce->npairs, sizeof(*ce->pairs)) < 0 ||
	    intmap_put(&ce->pair_of, intmap_key2(a, b), ce->npairs) < 0)
		return NULL;
	p = &ce->pairs[ce->npairs++];
	memset(p, 0, sizeof(*p));
	p->a = a;
	p->b = b;
	p->ab.upper = 1;
	p->ba.upper = 0;
	return p;
}

int clock_estimator_processor(struct clock_estimator *ce, int32_t processor)
{
	if (ce->solved)
		return CLOCK_ERR_USAGE;
	if (processor < 0)
		return 0;
	return node_get(ce, processor) ? 0 : CLOCK_ERR_NOMEM;
}

/* One constraint "recv on dst is at least send on src + L"; sync says
 * whether it comes from a synchronisation (counted apart). */
static int add_constraint(struct clock_estimator *ce, int32_t src, double send,
			  int32_t dst, double recv, int sync)
{
	struct pair *p;
	int rc;

	if (src < 0 || dst < 0 || src == dst || !isfinite(send) || !isfinite(recv))
		return 0;
	if (!node_get(ce, src) || !node_get(ce, dst))
		return CLOCK_ERR_NOMEM;
	if (src < dst) {
		if (!(p = pair_get(ce, src, dst)))
			return CLOCK_ERR_NOMEM;
		rc = ptset_add(&p->ab, recv, send - recv);
		if (sync)
			p->s_ab++;
		else
			p->n_ab++;
	} else {
		if (!(p = pair_get(ce, dst, src)))
			return CLOCK_ERR_NOMEM;
		rc = ptset_add(&p->ba, send, recv - send);
		if (sync)
			p->s_ba++;
		else
			p->n_ba++;
	}
	return rc;
}

int clock_estimator_message(struct clock_estimator *ce, int32_t src, double send,
			    int32_t dst, double recv)
{
	int rc;

	if (ce->solved)
		return CLOCK_ERR_USAGE;
	if (src < 0 || dst < 0 || src == dst || !isfinite(send) || !isfinite(recv))
		return 0;
	if ((rc = add_constraint(ce, src, send, dst, recv, 0)) < 0)
		return rc;
	ce->messages++;
	node_get(ce, src)->r.sent++;
	node_get(ce, dst)->r.received++;
	return 0;
}

static struct stream *stream_get(struct clock_estimator *ce, int32_t processor,
				 int32_t process)
{
	size_t i;
	struct stream *s;

	if (intmap_get(&ce->stream_of, intmap_key2(processor, process), &i))
		return &ce->streams[i];
	if (grow((void **)&ce->streams, &ce->streams_cap, ce->nstreams, sizeof(*ce->streams)) < 0 ||
	    intmap_put(&ce->stream_of, intmap_key2(processor, process), ce->nstreams) < 0)
		return NULL;
	s = &ce->streams[ce->nstreams++];
	memset(s, 0, sizeof(*s));
	s->processor = processor;
	s->process = process;
	return s;
}

static int take_call(struct clock_estimator *ce, size_t si, size_t i, double t);

int clock_estimator_sync_entry(struct clock_estimator *ce, int32_t processor,
			       int32_t process, int32_t event, int32_t group, double t)
{
	struct stream *s;
	size_t i;

	if (ce->solved)
		return CLOCK_ERR_USAGE;
	if (processor < 0 || !isfinite(t))
		return 0;
	if (!node_get(ce, processor) || !(s = stream_get(ce, processor, process)))
		return CLOCK_ERR_NOMEM;
	for (i = 0; i < s->npend && s->pend[i].event != event; i++)
		;
	if (i == s->npend) {
		if (grow((void **)&s->pend, &s->pend_cap, s->npend, sizeof(*s->pend)) < 0)
			return CLOCK_ERR_NOMEM;
		s->npend++;
	} else if (s->pend[i].active) {
		/* The previous call never exited (its exit record is missing):
		 * it is still this process's k-th call, so it takes its round
		 * with its entry only; else every later call of the process
		 * would be matched with the others' call before it. */
		int rc = take_call(ce, (size_t)(s - ce->streams), i, NAN);

		if (rc < 0)
			return rc;
	}
	s->pend[i].event = event;
	s->pend[i].group = group;
	s->pend[i].active = 1;
	s->pend[i].entry = t;
	return 0;
}

/* Fold the round `next` of collective ci into constraints and free its
 * calls: each ordered pair of its calls on different processors is a
 * virtual message from the entry of one to the exit of the other (beyond
 * SYNC_ALL_PAIRS_MAX calls, only the pairs with the first one). The calls
 * are taken by processor, then in the order of their exits in the input,
 * as a stable sort of every call by (event, group, round, processor) had
 * them when all were kept to the end: the same constraints, in the same
 * order among themselves. */
static int cmp_round_call(const void *pa, const void *pb)
{
	const struct round_call *a = pa, *b = pb;

	if (a->processor != b->processor)
		return a->processor < b->processor ? -1 : 1;
	return (a->c.seq > b->c.seq) - (a->c.seq < b->c.seq);
}

static int fold_round(struct clock_estimator *ce, size_t ci)
{
	struct collective *co = &ce->colls[ci];
	size_t i, n = 0, u, v;
	int rc;

	if (co->nm > ce->round_cap) {
		struct round_call *r = realloc(ce->round, co->nm * sizeof(*r));

		if (!r)
			return CLOCK_ERR_NOMEM;
		ce->round = r;
		ce->round_cap = co->nm;
	}
	/* (downwards: a member that leaves act is replaced by the last one,
	 * already seen) */
	for (i = co->nact; i-- > 0;) {
		const struct member *mb = &co->m[co->act[i]];
		struct stream *s = &ce->streams[mb->stream];
		struct counter *c = &s->cnt[mb->counter];
		struct round_call x;

		if (c->count - c->nwait != co->next)
			continue;
		x.processor = s->processor;
		x.c = c->wait[c->wait0];
		c->wait0 = (c->wait0 + 1) & (c->wait_cap - 1);
		c->nwait--;
		s->nwait--;
		co->nwait--;
		ce->sync_waiting--;
		ce->round[n++] = x;
		if (c->nwait == 0)
			co->act[i] = co->act[--co->nact];
	}
	co->next++;
	if (n > 1)
		qsort(ce->round, n, sizeof(*ce->round), cmp_round_call);
	for (u = 0; u < n; u++) {
		struct node *nd = node_get(ce, ce->round[u].processor);

		if (!nd)
			return CLOCK_ERR_NOMEM;
		if (n > 1)
			nd->r.syncs++;
	}
	for (u = 0; u < n; u++)
		for (v = 0; v < n; v++) {
			const struct round_call *x = &ce->round[u], *y = &ce->round[v];

			if (x->processor == y->processor)
				continue;
			if (n > SYNC_ALL_PAIRS_MAX && u != 0 && v != 0)
				continue;
			if (isnan(y->c.exit))   /* a call whose exit is missing */
				continue;
			rc = add_constraint(ce, x->processor, x->c.entry, y->processor, y->c.exit, 1);
			if (rc < 0)
				return rc;
			ce->sync_constraints++;
		}
	return 0;
}

/* The counter of (event, group) on stream s, made (with its collective and
 * membership) on the stream's first such call. */
static struct counter *counter_get(struct clock_estimator *ce, size_t si, int32_t event,
				   int32_t group)
{
	struct stream *s = &ce->streams[si];
	struct collective *co;
	struct counter *c;
	size_t j, ci;

	for (j = 0; j < s->ncnt; j++)
		if (s->cnt[j].event == event && s->cnt[j].group == group)
			return &s->cnt[j];
	if (!intmap_get(&ce->coll_of, intmap_key2(event, group), &ci)) {
		if (grow((void **)&ce->colls, &ce->colls_cap, ce->ncolls, sizeof(*ce->colls)) < 0 ||
		    intmap_put(&ce->coll_of, intmap_key2(event, group), ce->ncolls) < 0)
			return NULL;
		ci = ce->ncolls++;
		memset(&ce->colls[ci], 0, sizeof(ce->colls[ci]));
		ce->colls[ci].event = event;
		ce->colls[ci].group = group;
	}
	co = &ce->colls[ci];
	if (grow((void **)&s->cnt, &s->cnt_cap, s->ncnt, sizeof(*s->cnt)) < 0 ||
	    grow((void **)&co->m, &co->m_cap, co->nm, sizeof(*co->m)) < 0 ||
	    grow((void **)&co->act, &co->act_cap, co->nm, sizeof(*co->act)) < 0)
		return NULL;
	co->m[co->nm].stream = si;
	co->m[co->nm].counter = s->ncnt;
	co->nm++;
	c = &s->cnt[s->ncnt++];
	memset(c, 0, sizeof(*c));
	c->event = event;
	c->group = group;
	c->coll = ci;
	c->member = co->nm - 1;
	return c;
}

/* Append a call to the counter's ring (a power of two, at most
 * SYNC_WAIT_MAX since a stream holds no more). */
static int wait_push(struct counter *c, const struct sync_call *x)
{
	if (c->nwait == c->wait_cap) {
		size_t ncap = c->wait_cap ? c->wait_cap * 2 : 16, i;
		struct sync_call *w = malloc(ncap * sizeof(*w));

		if (!w)
			return CLOCK_ERR_NOMEM;
		for (i = 0; i < c->nwait; i++)
			w[i] = c->wait[(c->wait0 + i) & (c->wait_cap - 1)];
		free(c->wait);
		c->wait = w;
		c->wait0 = 0;
		c->wait_cap = ncap;
	}
	c->wait[(c->wait0 + c->nwait) & (c->wait_cap - 1)] = *x;
	c->nwait++;
	return 0;
}

static uint64_t first_seq(const struct counter *c)
{
	return c->wait[c->wait0].seq;
}

/* The call whose entry is pending i on stream si ends at `t` (NAN: its exit
 * is missing, only its entry constrains the others): it goes to the round
 * of its number. */
static int take_call(struct clock_estimator *ce, size_t si, size_t i, double t)
{
	struct stream *s = &ce->streams[si];
	struct counter *c;
	struct collective *co;
	struct sync_call x;
	uint64_t k;
	int rc;

	s->pend[i].active = 0;
	if (!(c = counter_get(ce, si, s->pend[i].event, s->pend[i].group)))
		return CLOCK_ERR_NOMEM;
	co = &ce->colls[c->coll];
	k = c->count;
	x.entry = s->pend[i].entry;
	x.exit = t;
	x.seq = ce->seq++;
	if (k < co->next) {        /* its round is folded already */
		c->count++;
		ce->sync_late++;
		return 0;
	}
	/* A process holds at most SYNC_WAIT_MAX calls: past that, the round of
	 * its oldest is folded with the calls that came (and what comes later
	 * for it is late). */
	while (s->nwait >= SYNC_WAIT_MAX) {
		const struct counter *oldest = NULL;
		size_t j, before = s->nwait;

		for (j = 0; j < s->ncnt; j++)
			if (s->cnt[j].nwait && (!oldest || first_seq(&s->cnt[j]) < first_seq(oldest)))
				oldest = &s->cnt[j];
		if ((rc = fold_round(ce, oldest->coll)) < 0)
			return rc;
		if (s->nwait == before)
			return CLOCK_ERR_USAGE;     /* cannot be: its oldest is in the round */
	}
	if ((rc = wait_push(c, &x)) < 0)
		return rc;
	if (c->nwait == 1)         /* (act has room for every member) */
		co->act[co->nact++] = c->member;
	c->count++;
	s->nwait++;
	co->nwait++;
	ce->sync_waiting++;
	return 0;
}

int clock_estimator_sync_exit(struct clock_estimator *ce, int32_t processor,
			      int32_t process, int32_t event, double t)
{
	struct stream *s;
	size_t i, si;

	if (ce->solved)
		return CLOCK_ERR_USAGE;
	if (processor < 0 || !isfinite(t) ||
	    !intmap_get(&ce->stream_of, intmap_key2(processor, process), &si))
		return 0;
	s = &ce->streams[si];
	for (i = 0; i < s->npend && !(s->pend[i].event == event && s->pend[i].active); i++)
		;
	if (i == s->npend)
		return 0;
	return take_call(ce, si, i, t);
}

static int cmp_coll(const void *pa, const void *pb)
{
	const struct collective *a = *(const struct collective *const *)pa;
	const struct collective *b = *(const struct collective *const *)pb;

	if (a->event != b->event)
		return a->event < b->event ? -1 : 1;
	return (a->group > b->group) - (a->group < b->group);
}

/* At the end: the rounds still waiting, by (event, group) and round. */
static int sync_flush(struct clock_estimator *ce)
{
	const struct collective **order = malloc((ce->ncolls + 1) * sizeof(*order));
	size_t i;
	int rc = 0;

	if (!order)
		return CLOCK_ERR_NOMEM;
	/* calls entered and never exited (the trace ends in them) */
	for (i = 0; i < ce->nstreams && rc == 0; i++) {
		size_t j;

		for (j = 0; j < ce->streams[i].npend && rc == 0; j++)
			if (ce->streams[i].pend[j].active)
				rc = take_call(ce, i, j, NAN);
	}
	if (rc < 0) {
		free(order);
		return rc;
	}
	for (i = 0; i < ce->ncolls; i++)
		order[i] = &ce->colls[i];
	if (ce->ncolls > 1)
		qsort(order, ce->ncolls, sizeof(*order), cmp_coll);
	for (i = 0; i < ce->ncolls && rc == 0; i++) {
		size_t ci = (size_t)(order[i] - ce->colls);

		while (ce->colls[ci].nwait > 0 && rc == 0)
			rc = fold_round(ce, ci);
	}
	free(order);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Fitting one pair                                                          */
/* ------------------------------------------------------------------------ */

struct fitter {
	const struct ptset *lo, *hi;   /* points below / above the line */
	double L;
};

/* Hi(d) - Lo(d): the room a line of slope d leaves between the points. */
static double margin_at(const struct fitter *f, double d, double *lo, double *hi)
{
	double l = upper_eval(f->lo, d) + f->L;
	double h = lower_eval(f->hi, d) - f->L;

	if (lo)
		*lo = l;
	if (hi)
		*hi = h;
	return h - l;
}

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

/* The slope of largest margin within [-D, D]. Sets *bounded to 0 when the
 * maximum touches the bound (the data do not determine the slope). */
static int best_slope(const struct fitter *f, double D, double *best, double *best_margin,
		      int *bounded)
{
	size_t n = 0, i, cap = f->lo->n + f->hi->n + 3, first = 0, last = 0;
	double *c = malloc(cap * sizeof(*c)), M = -INFINITY, tol, scale = 0;

	if (!c)
		return CLOCK_ERR_NOMEM;
	c[n++] = -D;
	c[n++] = D;
	c[n++] = 0;
	for (i = 0; i + 1 < f->lo->n; i++) {
		double s = edge_slope(f->lo, i);

		if (s > -D && s < D)
			c[n++] = s;
	}
	for (i = 0; i + 1 < f->hi->n; i++) {
		double s = edge_slope(f->hi, i);

		if (s > -D && s < D)
			c[n++] = s;
	}
	if (n > 1)
		qsort(c, n, sizeof(*c), cmp_double);
	for (i = 0; i < f->lo->n; i++)
		scale = fmax(scale, fabs(f->lo->v[i].y) + D * fabs(f->lo->v[i].x));
	for (i = 0; i < f->hi->n; i++)
		scale = fmax(scale, fabs(f->hi->v[i].y) + D * fabs(f->hi->v[i].x));
	tol = 64 * DBL_EPSILON * (scale + f->L);
	for (i = 0; i < n; i++) {
		double m = margin_at(f, c[i], NULL, NULL);

		if (m > M + tol) {
			M = m;
			first = last = i;
		} else if (m >= M - tol) {
			last = i;
			if (m > M)
				M = m;
		}
	}
	*best = (c[first] + c[last]) / 2;
	*best_margin = M;
	*bounded = c[first] > -D && c[last] < D;
	free(c);
	return 0;
}

/* Where margin(d) crosses 0 between `out` (margin < 0) and `in` (>= 0). */
static double feasible_edge(const struct fitter *f, double out, double in)
{
	int k;

	for (k = 0; k < 200; k++) {
		double mid = (out + in) / 2;

		if (mid == out || mid == in)
			break;
		if (margin_at(f, mid, NULL, NULL) >= 0)
			in = mid;
		else
			out = mid;
	}
	return in;
}

/* Over the slopes d in [d1, d2], the highest correction at time x any
 * feasible line gives (top: max of Hi(d) + d*x, concave in d) or the lowest
 * (min of Lo(d) + d*x, convex). The extremes lie at d1, d2 or a slope of
 * the hull that bounds that side. */
static double band_edge(const struct fitter *f, int top, double x, double d1, double d2)
{
	const struct ptset *s = top ? f->hi : f->lo;
	double best = top ? -INFINITY : INFINITY;
	size_t i;

	for (i = 0; i <= s->n; i++) {
		double d, v;

		if (i == s->n) {
			d = d1;
		} else if (i + 1 == s->n) {
			d = d2;
		} else {
			d = edge_slope(s, i);
			if (!(d > d1 && d < d2))
				continue;
		}
		if (top) {
			v = lower_eval(f->hi, d) - f->L + d * x;
			best = fmax(best, v);
		} else {
			v = upper_eval(f->lo, d) + f->L + d * x;
			best = fmin(best, v);
		}
	}
	return best;
}

/* Half the width of the band of corrections that all feasible lines (slopes
 * within [d1, d2]) give, at its widest over the time the points span. */
static double band_halfwidth(const struct fitter *f, double d1, double d2)
{
	double x0 = fmin(f->lo->v[0].x, f->hi->v[0].x);
	double x1 = fmax(f->lo->v[f->lo->n - 1].x, f->hi->v[f->hi->n - 1].x);
	double w0 = band_edge(f, 1, x0, d1, d2) - band_edge(f, 0, x0, d1, d2);
	double w1 = band_edge(f, 1, x1, d1, d2) - band_edge(f, 0, x1, d1, d2);

	return fmax(w0, w1) / 2;
}

/* The result of one fit: the line y = o + d*x between two point sets. */
struct fit {
	double o, d, margin;
	double unc;                /* half-width of the band of feasible
				      corrections over the points' time span */
	unsigned flags;            /* CLOCK_F_DRIFT_UNDETERMINED, _INCONSISTENT */
};

/* The max-margin line between `lo` (upper hull of the points it must pass
 * above, shifted up by L) and `hi` (lower hull of the points it must pass
 * below, shifted down by L), slope within [-D, D]. Both sets non-empty and
 * compact. */
static int fit_sets(const struct ptset *lo, const struct ptset *hi, double L, double D,
		    struct fit *r)
{
	struct fitter f;
	double l, h;

	f.lo = lo;
	f.hi = hi;
	f.L = L;
	r->flags = 0;
	r->d = 0;
	if (D > 0) {
		double d, M;
		int bounded, rc;

		if ((rc = best_slope(&f, D, &d, &M, &bounded)) < 0)
			return rc;
		if (bounded) {
			r->d = d;
		} else {
			r->flags |= CLOCK_F_DRIFT_UNDETERMINED;
			/* the least |d| that leaves no violation (0 if that
			 * does), between 0 (violated) and d (not); when
			 * none does, d at the bound violates least */
			if (M < 0)
				r->d = d;
			else if (margin_at(&f, 0, NULL, NULL) < 0)
				r->d = feasible_edge(&f, 0, d);
		}
	}
	r->margin = margin_at(&f, r->d, &l, &h);
	r->o = (l + h) / 2;
	if (r->margin < 0) {
		r->flags |= CLOCK_F_INCONSISTENT;
		r->unc = -r->margin / 2;
	} else {
		/* the slopes that keep every constraint, then the band */
		double d1 = r->d, d2 = r->d;

		if (D > 0) {
			d1 = margin_at(&f, -D, NULL, NULL) >= 0 ? -D : feasible_edge(&f, -D, r->d);
			d2 = margin_at(&f, D, NULL, NULL) >= 0 ? D : feasible_edge(&f, D, r->d);
		}
		r->unc = band_halfwidth(&f, d1, d2);
	}
	return 0;
}

/* Fit b's clock onto a's from the pair's (compacted) hulls. */
static int fit_pair(struct pair *p, const struct clock_options *opt)
{
	double D = opt->no_drift ? 0 : opt->max_drift, L = opt->min_latency;
	struct fit r;
	int rc;

	p->flags = 0;
	p->d = 0;
	if (p->ba.n == 0) {                 /* a->b only: b must not be too early */
		p->kind = LINK_ONE_WAY;
		p->o = fmax(0, upper_eval(&p->ab, 0) + L);
		p->margin = p->unc = INFINITY;
		return 0;
	}
	if (p->ab.n == 0) {                 /* b->a only */
		p->kind = LINK_ONE_WAY;
		p->o = fmin(0, lower_eval(&p->ba, 0) - L);
		p->margin = p->unc = INFINITY;
		return 0;
	}
	p->kind = LINK_TWO_WAY;
	if ((rc = fit_sets(&p->ab, &p->ba, L, D, &r)) < 0)
		return rc;
	p->o = r.o;
	p->d = r.d;
	p->margin = r.margin;
	p->unc = r.unc;
	p->flags = r.flags;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Solving the whole graph                                                   */
/* ------------------------------------------------------------------------ */

static int cmp_node(const void *pa, const void *pb)
{
	const struct node *a = pa, *b = pb;

	return (a->r.processor > b->r.processor) - (a->r.processor < b->r.processor);
}

static size_t node_index(const struct clock_estimator *ce, int32_t p)
{
	size_t i = 0;

	intmap_get(&ce->node_of, (uint64_t)(uint32_t)p, &i);
	return i;
}

/* Sort nodes by processor and link them to their pairs (CSR). */
static int build_graph(struct clock_estimator *ce)
{
	size_t i, *fill;

	if (ce->nnodes > 1)
		qsort(ce->nodes, ce->nnodes, sizeof(*ce->nodes), cmp_node);
	intmap_free(&ce->node_of);
	for (i = 0; i < ce->nnodes; i++)
		if (intmap_put(&ce->node_of, (uint64_t)(uint32_t)ce->nodes[i].r.processor, i) < 0)
			return CLOCK_ERR_NOMEM;
	for (i = 0; i < ce->npairs; i++) {
		ce->nodes[node_index(ce, ce->pairs[i].a)].adj_n++;
		ce->nodes[node_index(ce, ce->pairs[i].b)].adj_n++;
	}
	ce->adj = malloc((2 * ce->npairs + 1) * sizeof(*ce->adj));
	fill = calloc(ce->nnodes + 1, sizeof(*fill));
	if (!ce->adj || !fill) {
		free(fill);
		return CLOCK_ERR_NOMEM;
	}
	for (i = 0; i < ce->nnodes; i++)
		ce->nodes[i].adj_start = i ? ce->nodes[i - 1].adj_start + ce->nodes[i - 1].adj_n : 0;
	for (i = 0; i < ce->npairs; i++) {
		size_t a = node_index(ce, ce->pairs[i].a), b = node_index(ce, ce->pairs[i].b);

		ce->adj[ce->nodes[a].adj_start + fill[a]++] = i;
		ce->adj[ce->nodes[b].adj_start + fill[b]++] = i;
	}
	free(fill);
	return 0;
}

static double link_cost(const struct pair *p)
{
	if (p->kind == LINK_ONE_WAY)
		return COST_ONE_WAY;
	if (p->flags & CLOCK_F_INCONSISTENT)
		return COST_INCONSISTENT + p->unc + COST_HOP;
	return p->unc + COST_HOP;
}

/* A binary heap of (distance, node). */
struct hitem {
	double dist;
	size_t node;
};

struct heap {
	struct hitem *v;
	size_t n, cap;
};

static int heap_push(struct heap *h, double dist, size_t node)
{
	size_t i;

	if (grow((void **)&h->v, &h->cap, h->n, sizeof(*h->v)) < 0)
		return CLOCK_ERR_NOMEM;
	i = h->n++;
	while (i > 0 && h->v[(i - 1) / 2].dist > dist) {
		h->v[i] = h->v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->v[i].dist = dist;
	h->v[i].node = node;
	return 0;
}

static struct hitem heap_pop(struct heap *h)
{
	struct hitem top = h->v[0], last = h->v[--h->n];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->v[c + 1].dist < h->v[c].dist)
			c++;
		if (h->v[c].dist >= last.dist)
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n > 0)
		h->v[i] = last;
	return top;
}

/* Compose the parent's correction with the link to get the child's. */
static void compose(struct node *child, const struct node *parent, const struct pair *p)
{
	double Dp = parent->r.drift, Op = parent->r.offset;

	if (child->r.processor == p->b) {           /* parent is a: b onto a */
		child->r.drift = (1 + Dp) * (1 + p->d) - 1;
		child->r.offset = (1 + Dp) * p->o + Op;
	} else {                                    /* parent is b: the inverse */
		child->r.drift = (1 + Dp) / (1 + p->d) - 1;
		child->r.offset = Op - (1 + Dp) * p->o / (1 + p->d);
	}
}

/* Dijkstra from `root` over its group. */
static int grow_tree(struct clock_estimator *ce, size_t root)
{
	struct heap h = { 0 };
	size_t k;
	int rc = 0;

	ce->nodes[root].dist = 0;
	ce->nodes[root].via_pair = SIZE_MAX;
	if ((rc = heap_push(&h, 0, root)) < 0)
		return rc;
	for (k = 0; k < ce->nnodes; k++)
		if (k != root && !ce->nodes[k].settled)
			ce->nodes[k].dist = INFINITY;
	while (h.n > 0) {
		struct hitem it = heap_pop(&h);
		struct node *u = &ce->nodes[it.node];

		if (u->settled || it.dist > u->dist)
			continue;
		u->settled = 1;
		u->root = ce->nodes[root].r.processor;
		ce->order[ce->norder++] = it.node;
		if (u->via_pair != SIZE_MAX) {
			const struct pair *p = &ce->pairs[u->via_pair];
			int32_t par = p->a == u->r.processor ? p->b : p->a;
			const struct node *pn = &ce->nodes[node_index(ce, par)];

			compose(u, pn, p);
			u->r.parent = par;
			u->r.status = p->kind == LINK_ONE_WAY ? CLOCK_ONE_WAY : CLOCK_TWO_WAY;
			u->r.flags |= p->flags & (CLOCK_F_DRIFT_UNDETERMINED | CLOCK_F_INCONSISTENT);
			u->r.uncertainty = (pn->r.uncertainty < 0 || p->kind == LINK_ONE_WAY)
				? -1 : pn->r.uncertainty + p->unc;
		}
		for (k = 0; k < u->adj_n; k++) {
			size_t pi = ce->adj[u->adj_start + k];
			const struct pair *p = &ce->pairs[pi];
			size_t v = node_index(ce, p->a == u->r.processor ? p->b : p->a);
			double nd = u->dist + link_cost(p);

			if (ce->nodes[v].settled || nd >= ce->nodes[v].dist)
				continue;
			ce->nodes[v].dist = nd;
			ce->nodes[v].via_pair = pi;
			if ((rc = heap_push(&h, nd, v)) < 0)
				goto out;
		}
	}
out:
	free(h.v);
	return rc;
}

/* Processor u's constraints with all its partners, in u's own frame
 * (x: time on u's clock; y: the correction u needs), given the partners'
 * current corrections, L folded in: lo gets the points u's line must pass
 * above, hi those it must pass below. The pairs' hulls suffice: each map
 * below is affine and sends a hull to a superset of the image's hull. */
static int gather(const struct clock_estimator *ce, size_t u, double L, struct ptset *lo,
		  struct ptset *hi)
{
	const struct node *n = &ce->nodes[u];
	size_t k, i;

	lo->n = hi->n = 0;
	lo->compact = hi->compact = 0;
	for (k = 0; k < n->adj_n; k++) {
		const struct pair *p = &ce->pairs[ce->adj[n->adj_start + k]];
		int32_t partner = n->r.processor == p->b ? p->a : p->b;
		int rc = 0;

		/* a partner fitted one way only is where a least shift put it,
		 * not an estimate, and one no line fits passes on its
		 * violations: they must not pull this one */
		if (!ce->nodes[node_index(ce, partner)].estimated)
			continue;
		if (n->r.processor == p->b) {
			const struct clock_result *A = &ce->nodes[node_index(ce, p->a)].r;
			double ka = 1 + A->drift, Oa = A->offset;

			/* a->b: send y+x on a, receive x on u */
			for (i = 0; i < p->ab.n && rc == 0; i++) {
				double x = p->ab.v[i].x, y = p->ab.v[i].y;

				rc = ptset_add(lo, x, ka * (y + x) + Oa + L - x);
			}
			/* b->a: send x on u, receive y+x on a */
			for (i = 0; i < p->ba.n && rc == 0; i++) {
				double x = p->ba.v[i].x, y = p->ba.v[i].y;

				rc = ptset_add(hi, x, ka * (y + x) + Oa - L - x);
			}
		} else {
			const struct clock_result *B = &ce->nodes[node_index(ce, p->b)].r;
			double kb = 1 + B->drift, Ob = B->offset;

			/* b->a: send x on b, receive y+x on u */
			for (i = 0; i < p->ba.n && rc == 0; i++) {
				double x = p->ba.v[i].x, y = p->ba.v[i].y;

				rc = ptset_add(lo, y + x, kb * x + Ob + L - (y + x));
			}
			/* a->b: send y+x on u, receive x on b */
			for (i = 0; i < p->ab.n && rc == 0; i++) {
				double x = p->ab.v[i].x, y = p->ab.v[i].y;

				rc = ptset_add(hi, y + x, kb * x + Ob - L - (y + x));
			}
		}
		if (rc < 0)
			return rc;
	}
	ptset_compact(lo);
	ptset_compact(hi);
	return 0;
}

/* Gauss-Seidel sweeps: refit every processor against all its partners at
 * once (their corrections held), in the order the trees reached them, until
 * nothing moves. Each step can only raise the least room left by the
 * constraints it touches, so the sweeps approach the corrections that
 * leave the most room overall; the tree is only where they start. */
static int refine(struct clock_estimator *ce, const struct clock_options *opt)
{
	struct ptset lo = { 0 }, hi = { 0 };
	double D = opt->no_drift ? 0 : opt->max_drift;
	int sweep, rc = 0;
	size_t k;

	lo.upper = 1;
	hi.upper = 0;
	for (k = 0; k < ce->nnodes; k++) {
		enum clock_status st = ce->nodes[k].r.status;

		ce->nodes[k].estimated = st == CLOCK_REFERENCE || st == CLOCK_ROOT ||
			(st == CLOCK_TWO_WAY && !(ce->nodes[k].r.flags & CLOCK_F_INCONSISTENT));
	}
	for (sweep = 0; sweep < REFINE_SWEEPS; sweep++) {
		double moved = 0;

		for (k = 0; k < ce->norder; k++) {
			struct node *n = &ce->nodes[ce->order[k]];
			struct fit f;
			double span;

			if (n->r.status != CLOCK_TWO_WAY && n->r.status != CLOCK_ONE_WAY)
				continue;
			if ((rc = gather(ce, ce->order[k], opt->min_latency, &lo, &hi)) < 0)
				goto out;
			if (lo.n == 0 || hi.n == 0)
				continue;
			if ((rc = fit_sets(&lo, &hi, 0, D, &f)) < 0)
				goto out;
			span = fmax(fmax(fabs(lo.v[0].x), fabs(lo.v[lo.n - 1].x)),
				    fmax(fabs(hi.v[0].x), fabs(hi.v[hi.n - 1].x)));
			moved = fmax(moved, fabs(f.o - n->r.offset) + fabs(f.d - n->r.drift) * span);
			n->r.offset = f.o;
			n->r.drift = f.d;
			n->r.flags = (n->r.flags & ~(CLOCK_F_DRIFT_UNDETERMINED | CLOCK_F_INCONSISTENT)) |
				f.flags;
		}
		if (moved < REFINE_TOL)
			break;
	}
out:
	free(lo.v);
	free(hi.v);
	return rc;
}

/* The largest violation, under the current corrections, of the messages
 * a->b (dir 0) or b->a (dir 1) of a pair: corrected receive earlier than
 * corrected send + L by that much (<= 0: none). */
static double violation(const struct clock_estimator *ce, const struct pair *p, int dir,
			double L)
{
	const struct clock_result *A = &ce->nodes[node_index(ce, p->a)].r;
	const struct clock_result *B = &ce->nodes[node_index(ce, p->b)].r;
	const struct ptset *s = dir == 0 ? &p->ab : &p->ba;
	double w = -INFINITY;
	size_t i;

	for (i = 0; i < s->n; i++) {
		double x = s->v[i].x, y = s->v[i].y, v;

		if (dir == 0)      /* send y + x on a, receive x on b */
			v = (1 + A->drift) * (y + x) + A->offset + L - (1 + B->drift) * x - B->offset;
		else               /* send x on b, receive y + x on a */
			v = (1 + B->drift) * x + B->offset + L - (1 + A->drift) * (y + x) - A->offset;
		if (v > w)
			w = v;
	}
	return w;
}

/* The least non-negative constant shifts that remove what the tree left. */
static void final_shift(struct clock_estimator *ce, double L)
{
	double *w = malloc(2 * (ce->npairs + 1) * sizeof(*w));
	double *delta = calloc(ce->nnodes + 1, sizeof(*delta));
	size_t i, round;
	int changed = 1;

	if (!w || !delta)
		goto out;
	for (i = 0; i < ce->npairs; i++) {
		const struct pair *p = &ce->pairs[i];

		w[2 * i] = p->ab.n ? violation(ce, p, 0, L) : -INFINITY;
		w[2 * i + 1] = p->ba.n ? violation(ce, p, 1, L) : -INFINITY;
		if (w[2 * i] + w[2 * i + 1] > SHIFT_TOL)     /* inconsistent by itself */
			w[2 * i] = w[2 * i + 1] = -INFINITY;
	}
	for (round = 0; round <= ce->nnodes && changed; round++) {
		changed = 0;
		for (i = 0; i < ce->npairs; i++) {
			size_t a = node_index(ce, ce->pairs[i].a), b = node_index(ce, ce->pairs[i].b);

			/* below SHIFT_TOL a violation is rounding noise, and a
			 * cycle of such noise must not look positive */
			if (delta[a] + w[2 * i] > delta[b] + SHIFT_TOL) {
				delta[b] = delta[a] + w[2 * i];
				changed = 1;
			}
			if (delta[b] + w[2 * i + 1] > delta[a] + SHIFT_TOL) {
				delta[a] = delta[b] + w[2 * i + 1];
				changed = 1;
			}
		}
	}
	if (changed)             /* a positive cycle: constant shifts cannot do it */
		goto out;
	for (i = 0; i < ce->nnodes; i++) {
		struct node *n = &ce->nodes[i];
		double s;

		if (n->root < 0)
			continue;
		s = delta[i] - delta[node_index(ce, n->root)];
		if (s != 0) {
			n->r.shift = s;
			n->r.offset += s;
			n->r.flags |= CLOCK_F_SHIFTED;
		}
	}
out:
	free(w);
	free(delta);
}

int clock_estimator_solve(struct clock_estimator *ce, const struct clock_options *opt)
{
	size_t i, ref = SIZE_MAX;
	int rc;

	if (ce->solved)
		return CLOCK_ERR_USAGE;
	ce->solved = 1;
	if ((rc = sync_flush(ce)) < 0)
		return rc;
	for (i = 0; i < ce->npairs; i++) {
		ptset_compact(&ce->pairs[i].ab);
		ptset_compact(&ce->pairs[i].ba);
		if ((rc = fit_pair(&ce->pairs[i], opt)) < 0)
			return rc;
	}
	if ((rc = build_graph(ce)) < 0)
		return rc;
	if (!(ce->order = malloc((ce->nnodes + 1) * sizeof(*ce->order))))
		return CLOCK_ERR_NOMEM;
	for (i = 0; i < ce->nnodes; i++)
		ce->nodes[i].r.status = CLOCK_ALONE;
	if (opt->reference >= 0) {
		size_t k;

		if (!intmap_get(&ce->node_of, (uint64_t)(uint32_t)opt->reference, &k) ||
		    ce->nodes[k].adj_n == 0)
			return CLOCK_ERR_REFERENCE;
		ref = k;
	} else if (intmap_get(&ce->node_of, 0, &i) && ce->nodes[i].adj_n > 0) {
		ref = i;
	} else {
		for (i = 0; i < ce->nnodes && ref == SIZE_MAX; i++)
			if (ce->nodes[i].adj_n > 0)
				ref = i;
	}
	if (ref != SIZE_MAX) {
		ce->reference = ce->nodes[ref].r.processor;
		if ((rc = grow_tree(ce, ref)) < 0)
			return rc;
		ce->nodes[ref].r.status = CLOCK_REFERENCE;
	}
	for (i = 0; i < ce->nnodes; i++)
		if (!ce->nodes[i].settled && ce->nodes[i].adj_n > 0) {
			if ((rc = grow_tree(ce, i)) < 0)
				return rc;
			ce->nodes[i].r.status = CLOCK_ROOT;
		}
	if ((rc = refine(ce, opt)) < 0)
		return rc;
	final_shift(ce, opt->min_latency);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Queries                                                                   */
/* ------------------------------------------------------------------------ */

size_t clock_estimator_count(const struct clock_estimator *ce)
{
	return ce->solved ? ce->nnodes : 0;
}

const struct clock_result *clock_estimator_result(const struct clock_estimator *ce, size_t i)
{
	return ce->solved && i < ce->nnodes ? &ce->nodes[i].r : NULL;
}

const struct clock_result *clock_estimator_find(const struct clock_estimator *ce,
						int32_t processor)
{
	size_t i;

	if (!ce->solved || processor < 0 ||
	    !intmap_get(&ce->node_of, (uint64_t)(uint32_t)processor, &i))
		return NULL;
	return &ce->nodes[i].r;
}

int32_t clock_estimator_reference(const struct clock_estimator *ce)
{
	return ce->reference;
}

uint64_t clock_estimator_messages(const struct clock_estimator *ce)
{
	return ce->messages;
}

uint64_t clock_estimator_sync_constraints(const struct clock_estimator *ce)
{
	return ce->sync_constraints;
}

uint64_t clock_estimator_sync_waiting(const struct clock_estimator *ce)
{
	return ce->sync_waiting;
}

uint64_t clock_estimator_sync_late(const struct clock_estimator *ce)
{
	return ce->sync_late;
}

double clock_result_correction(const struct clock_result *r, double t)
{
	return r->offset + r->drift * t;
}
