/*
 * match.c - pairs message sends with the receives that completed them.
 *
 * PICL (like MPI) delivers the messages of one (source, destination, type)
 * channel in the order they were sent, so matching is FIFO per channel. A
 * channel keeps a queue of sends waiting for a receive and a queue of
 * receives waiting for a send (a receive can come first in an unsorted
 * trace, or in a sorted one when clocks disagree). A broadcast (destination
 * -1) lives in a per-(source, type) queue and is consumed once by every
 * other processor; it is dropped once every processor seen so far (the host
 * aside) has received it. So memory holds only what is in flight.
 *
 * Which records are sends and receives, and where their fields are, is
 * fixed by the spec's Tables 7-8 (length, type, peer processor, peer
 * process); marks carry the entry's fields then the exit's (§2.3.3).
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#define BCAST_DST INT32_MIN

struct item {
	uint64_t seq;                 /* input order */
	struct picl_message msg;      /* the side(s) known so far */
	int32_t *got;                 /* broadcast: processors that received it */
	size_t ngot, gotcap;
};

struct queue {
	struct item *v;
	size_t head, n, cap;          /* live items are v[head .. n) */
};

struct channel {
	int32_t src, dst, type;
	int used;
	struct queue sends, recvs;
};

/* Per-process state for non-blocking receives: the request id of the open
 * -58/-60/-61 entry, and the requests recvstatus0 already completed. */
struct reqstate {
	int32_t processor, process;
	int used;
	int64_t open_req;
	int64_t *done;
	size_t ndone, donecap;
};

struct picl_matcher {
	int (*cb)(void *ctx, enum picl_match_kind kind, const struct picl_message *msg);
	void *ctx;
	struct channel *ch;
	size_t ncap, nused;
	int32_t *procs;               /* processors seen, sorted */
	size_t nprocs, procs_cap;
	int32_t *expected;            /* processors declared, sorted; or NULL */
	size_t nexpected;
	struct reqstate *req;         /* hash by (processor, process) */
	size_t reqcap, nreq;
	uint64_t seq, matched, pending_recvs, pending;
};

static uint64_t chash(int32_t a, int32_t b, int32_t c)
{
	uint64_t x = ((uint64_t)(uint32_t)a << 32) ^ (uint32_t)b;

	x ^= (uint64_t)(uint32_t)c * 0x9e3779b97f4a7c15ULL;
	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 29;
	return x;
}

static struct channel *find(struct picl_matcher *m, int32_t src, int32_t dst,
			    int32_t type, int create)
{
	size_t i;

	if (m->ncap == 0 || (create && (m->nused + 1) * 2 > m->ncap)) {
		size_t ncap = m->ncap ? m->ncap * 2 : 64, j;
		struct channel *n;

		if (!create && m->ncap == 0)
			return NULL;
		n = calloc(ncap, sizeof(*n));
		if (!n)
			return NULL;
		for (j = 0; j < m->ncap; j++) {
			struct channel *c = &m->ch[j];
			size_t k;

			if (!c->used)
				continue;
			for (k = chash(c->src, c->dst, c->type) & (ncap - 1); n[k].used;
			     k = (k + 1) & (ncap - 1))
				;
			n[k] = *c;
		}
		free(m->ch);
		m->ch = n;
		m->ncap = ncap;
	}
	for (i = chash(src, dst, type) & (m->ncap - 1); m->ch[i].used; i = (i + 1) & (m->ncap - 1))
		if (m->ch[i].src == src && m->ch[i].dst == dst && m->ch[i].type == type)
			return &m->ch[i];
	if (!create)
		return NULL;
	m->ch[i].used = 1;
	m->ch[i].src = src;
	m->ch[i].dst = dst;
	m->ch[i].type = type;
	m->nused++;
	return &m->ch[i];
}

static int push(struct queue *q, const struct item *it)
{
	if (q->n == q->cap) {
		if (q->head > 0 && q->head * 2 >= q->n) {
			memmove(q->v, q->v + q->head, (q->n - q->head) * sizeof(*q->v));
			q->n -= q->head;
			q->head = 0;
		} else {
			size_t ncap = q->cap ? q->cap * 2 : 4;
			struct item *v = realloc(q->v, ncap * sizeof(*v));

			if (!v)
				return PICL_ERR_NOMEM;
			q->v = v;
			q->cap = ncap;
		}
	}
	q->v[q->n++] = *it;
	return PICL_OK;
}

static struct item *front(struct queue *q)
{
	return q->head < q->n ? &q->v[q->head] : NULL;
}

static void pop(struct queue *q)
{
	if (++q->head == q->n)
		q->head = q->n = 0;
}

struct picl_matcher *picl_matcher_new(int (*cb)(void *ctx, enum picl_match_kind kind,
						const struct picl_message *msg),
				      void *ctx)
{
	struct picl_matcher *m = calloc(1, sizeof(*m));

	if (m) {
		m->cb = cb;
		m->ctx = ctx;
	}
	return m;
}

static int saw_processor(struct picl_matcher *m, int32_t p)
{
	size_t lo = 0, hi = m->nprocs;

	if (p < 0)
		return PICL_OK;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->procs[mid] == p)
			return PICL_OK;
		if (m->procs[mid] < p)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (m->nprocs == m->procs_cap) {
		size_t ncap = m->procs_cap ? m->procs_cap * 2 : 16;
		int32_t *v = realloc(m->procs, ncap * sizeof(*v));

		if (!v)
			return PICL_ERR_NOMEM;
		m->procs = v;
		m->procs_cap = ncap;
	}
	memmove(m->procs + lo + 1, m->procs + lo, (m->nprocs - lo) * sizeof(*m->procs));
	m->procs[lo] = p;
	m->nprocs++;
	return PICL_OK;
}

/* Declared processors a broadcast from src must reach, or SIZE_MAX when
 * the processors are not declared (then it waits for the end). */
static size_t bcast_receivers(const struct picl_matcher *m, int32_t src)
{
	size_t n = m->nexpected, i;

	if (!m->expected)
		return SIZE_MAX;
	for (i = 0; i < m->nexpected; i++)
		if (m->expected[i] == src || m->expected[i] == PICL_HOST_PROCESSOR)
			n--;
	return n;
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

int picl_matcher_expect_processors(struct picl_matcher *m, const int32_t *procs, size_t n)
{
	int32_t *v = malloc((n ? n : 1) * sizeof(*v));

	if (!v)
		return PICL_ERR_NOMEM;
	if (n)
		memcpy(v, procs, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_i32);
	free(m->expected);
	m->expected = v;
	m->nexpected = n;
	return PICL_OK;
}

static int got_has(const struct item *it, int32_t p)
{
	size_t i;

	for (i = 0; i < it->ngot; i++)
		if (it->got[i] == p)
			return 1;
	return 0;
}

static int got_add(struct item *it, int32_t p)
{
	if (it->ngot == it->gotcap) {
		size_t ncap = it->gotcap ? it->gotcap * 2 : 8;
		int32_t *v = realloc(it->got, ncap * sizeof(*v));

		if (!v)
			return PICL_ERR_NOMEM;
		it->got = v;
		it->gotcap = ncap;
	}
	it->got[it->ngot++] = p;
	return PICL_OK;
}

static int emit(struct picl_matcher *m, const struct item *send, const struct item *recv)
{
	struct picl_message msg = send->msg;
	const struct picl_message *r = &recv->msg;

	msg.dst_processor = r->dst_processor;
	msg.dst_process = r->dst_process;
	msg.recv_length = r->recv_length;
	msg.recv_event = r->recv_event;
	msg.recv_time = r->recv_time;
	msg.recv_mark = r->recv_mark;
	if (msg.src_process < 0)
		msg.src_process = r->src_process;
	m->matched++;
	return m->cb ? m->cb(m->ctx, PICL_MATCH_OK, &msg) : 0;
}

/* Drop broadcasts at the head of q that every receiver has had. */
static void trim_broadcasts(struct picl_matcher *m, struct queue *q)
{
	struct item *it;

	while ((it = front(q)) && it->ngot >= bcast_receivers(m, it->msg.src_processor) &&
	       it->ngot > 0) {
		free(it->got);
		pop(q);
		m->pending--;
	}
}

static int add_send(struct picl_matcher *m, struct item *it)
{
	int32_t src = it->msg.src_processor, type = it->msg.type;
	struct channel *c;
	int rc;

	if (it->msg.dst_processor != PICL_WILDCARD) {
		c = find(m, src, it->msg.dst_processor, type, 1);
		if (!c)
			return PICL_ERR_NOMEM;
		if (front(&c->recvs)) {
			struct item r = *front(&c->recvs);

			pop(&c->recvs);
			m->pending_recvs--;
			m->pending--;
			return emit(m, it, &r);
		}
		m->pending++;
		return push(&c->sends, it);
	}
	/* A broadcast: first the receives that came before it. */
	it->msg.broadcast = 1;
	if (m->pending_recvs) {
		size_t i;

		for (i = 0; i < m->ncap; i++) {
			c = &m->ch[i];
			if (c->used && c->src == src && c->type == type &&
			    c->dst != BCAST_DST && front(&c->recvs) && !got_has(it, c->dst)) {
				struct item r = *front(&c->recvs);

				pop(&c->recvs);
				m->pending_recvs--;
				m->pending--;
				if (got_add(it, r.msg.dst_processor) < 0)
					return PICL_ERR_NOMEM;
				if ((rc = emit(m, it, &r)) != 0)
					return rc;
			}
		}
	}
	c = find(m, src, BCAST_DST, type, 1);
	if (!c)
		return PICL_ERR_NOMEM;
	m->pending++;
	if ((rc = push(&c->sends, it)) < 0)
		return rc;
	trim_broadcasts(m, &c->sends);
	return PICL_OK;
}

static int add_recv(struct picl_matcher *m, struct item *it)
{
	int32_t src = it->msg.src_processor, dst = it->msg.dst_processor, type = it->msg.type;
	struct channel *c = find(m, src, dst, type, 1), *b;
	struct item *uni, *bc = NULL;
	size_t i;
	int rc;

	if (!c)
		return PICL_ERR_NOMEM;
	uni = front(&c->sends);
	b = find(m, src, BCAST_DST, type, 0);
	if (b)
		for (i = b->sends.head; i < b->sends.n; i++)
			if (!got_has(&b->sends.v[i], dst)) {
				bc = &b->sends.v[i];
				break;
			}
	if (bc && (!uni || bc->seq < uni->seq)) {
		if (got_add(bc, dst) < 0)
			return PICL_ERR_NOMEM;
		rc = emit(m, bc, it);
		trim_broadcasts(m, &b->sends);
		return rc;
	}
	if (uni) {
		struct item s = *uni;

		pop(&c->sends);
		m->pending--;
		return emit(m, &s, it);
	}
	m->pending_recvs++;
	m->pending++;
	return push(&c->recvs, it);
}

static int64_t value_int(const struct picl_record *rec, size_t i)
{
	const struct picl_value *v;

	if (i >= rec->nvalues)
		return -1;
	v = &rec->values[i];
	if (v->kind == PICL_VAL_INT)
		return v->v.i;
	if (v->kind == PICL_VAL_UINT && v->v.u <= INT64_MAX)
		return (int64_t)v->v.u;
	return -1;
}

static int32_t clamp32(int64_t v)
{
	return v < INT32_MIN || v > INT32_MAX ? -1 : (int32_t)v;
}

static int is_send(int32_t e)
{
	return e == -21 || e == -27;
}

static int is_recv(int32_t e)
{
	return e == -51 || e == -52 || e == -58 || e == -60 || e == -61;
}

/*
 * Fields the entry part of a receive mark carries (Tables 7-8): recv0's
 * entry has 3 fields (PICL writes 1), its exit 4 (PICL writes 3), so a mark
 * holds 7 or 6 values after 3 entry fields, or 5 or 4 after 1. The others
 * start with a request id.
 */
static size_t recv_entry_fields(int32_t e, size_t nvalues)
{
	if (e == -51 || e == -52)
		return nvalues >= 6 ? 3 : 1;
	return 1;
}

static uint64_t phash(int32_t a, int32_t b)
{
	return chash(a, b, 0x5eed);
}

static struct reqstate *reqstate(struct picl_matcher *m, int32_t processor, int32_t process)
{
	size_t i;

	if ((m->nreq + 1) * 2 > m->reqcap) {
		size_t ncap = m->reqcap ? m->reqcap * 2 : 64, j, k;
		struct reqstate *n = calloc(ncap, sizeof(*n));

		if (!n)
			return NULL;
		for (j = 0; j < m->reqcap; j++) {
			if (!m->req[j].used)
				continue;
			for (k = phash(m->req[j].processor, m->req[j].process) & (ncap - 1); n[k].used;
			     k = (k + 1) & (ncap - 1))
				;
			n[k] = m->req[j];
		}
		free(m->req);
		m->req = n;
		m->reqcap = ncap;
	}
	for (i = phash(processor, process) & (m->reqcap - 1); m->req[i].used;
	     i = (i + 1) & (m->reqcap - 1))
		if (m->req[i].processor == processor && m->req[i].process == process)
			return &m->req[i];
	m->req[i].used = 1;
	m->req[i].processor = processor;
	m->req[i].process = process;
	m->req[i].open_req = -1;
	m->nreq++;
	return &m->req[i];
}

/*
 * Non-blocking receives: remember the request id of a -58/-60/-61 entry;
 * a -58 exit completes it; a later -60/-61 exit for a completed request is
 * the same message again. Returns 1 if this exit is such a repeat.
 */
static int repeated_receive(struct picl_matcher *m, const struct picl_record *rec, int *err)
{
	struct reqstate *st;
	size_t i;

	*err = 0;
	if (rec->event != -58 && rec->event != -60 && rec->event != -61)
		return 0;
	st = reqstate(m, rec->processor, rec->process);
	if (!st) {
		*err = PICL_ERR_NOMEM;
		return 0;
	}
	if (rec->type == PICL_REC_ENTRY) {
		st->open_req = value_int(rec, 0);
		return 0;
	}
	if (rec->type != PICL_REC_EXIT || st->open_req < 0)
		return 0;
	if (rec->event == -58) {
		if (st->ndone == st->donecap) {
			size_t ncap = st->donecap ? st->donecap * 2 : 4;
			int64_t *v = realloc(st->done, ncap * sizeof(*v));

			if (!v) {
				*err = PICL_ERR_NOMEM;
				return 0;
			}
			st->done = v;
			st->donecap = ncap;
		}
		st->done[st->ndone++] = st->open_req;
		st->open_req = -1;
		return 0;
	}
	for (i = 0; i < st->ndone; i++)
		if (st->done[i] == st->open_req) {
			st->done[i] = st->done[--st->ndone];
			st->open_req = -1;
			return 1;
		}
	st->open_req = -1;
	return 0;
}

int picl_matcher_add(struct picl_matcher *m, const struct picl_record *rec)
{
	struct item it;
	size_t base;
	int rc;

	if ((rc = saw_processor(m, rec->processor)) < 0)
		return rc;
	if (rec->type != PICL_REC_ENTRY && rec->type != PICL_REC_EXIT &&
	    rec->type != PICL_REC_MARK)
		return PICL_OK;
	if (repeated_receive(m, rec, &rc) || rc < 0)
		return rc;
	memset(&it, 0, sizeof(it));
	it.msg.send_length = it.msg.recv_length = -1;
	if (is_send(rec->event) && rec->type != PICL_REC_EXIT) {
		if (rec->nvalues < 3)
			return PICL_OK;
		it.seq = ++m->seq;
		it.msg.src_processor = rec->processor;
		it.msg.src_process = rec->process;
		it.msg.send_length = value_int(rec, 0);
		it.msg.type = clamp32(value_int(rec, 1));
		it.msg.dst_processor = clamp32(value_int(rec, 2));
		it.msg.dst_process = rec->nvalues > 3 ? clamp32(value_int(rec, 3)) : -1;
		it.msg.recv_length = -1;
		it.msg.send_event = rec->event;
		it.msg.send_time = rec->time;
		it.msg.send_mark = rec->mark;
		return add_send(m, &it);
	}
	if (is_recv(rec->event) && rec->type != PICL_REC_ENTRY) {
		base = rec->type == PICL_REC_MARK ? recv_entry_fields(rec->event, rec->nvalues) : 0;
		if (rec->nvalues < base + 3)
			return PICL_OK;
		it.seq = ++m->seq;
		it.msg.dst_processor = rec->processor;
		it.msg.dst_process = rec->process;
		it.msg.recv_length = value_int(rec, base);
		it.msg.type = clamp32(value_int(rec, base + 1));
		it.msg.src_processor = clamp32(value_int(rec, base + 2));
		it.msg.src_process = rec->nvalues > base + 3 ? clamp32(value_int(rec, base + 3)) : -1;
		if (it.msg.src_processor < 0)
			return PICL_OK; /* from an unknown source: nothing to match */
		it.msg.recv_event = rec->event;
		it.msg.recv_time = rec->time;
		it.msg.recv_mark = rec->mark;
		return add_recv(m, &it);
	}
	return PICL_OK;
}

static int cmp_seq(const void *a, const void *b)
{
	const struct item *x = *(const struct item *const *)a;
	const struct item *y = *(const struct item *const *)b;

	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Unmatched sends (a broadcast once per missing receiver), then receives. */
int picl_matcher_finish(struct picl_matcher *m)
{
	struct item **v = NULL;
	size_t n = 0, cap = 0, i, k;
	int pass, rc = PICL_OK;

	for (pass = 0; pass < 2 && rc == PICL_OK; pass++) {
		n = 0;
		for (i = 0; i < m->ncap; i++) {
			struct channel *c = &m->ch[i];
			struct queue *q = pass == 0 ? &c->sends : &c->recvs;

			if (!c->used)
				continue;
			for (k = q->head; k < q->n; k++) {
				if (n == cap) {
					size_t ncap = cap ? cap * 2 : 64;
					struct item **p = realloc(v, ncap * sizeof(*p));

					if (!p) {
						free(v);
						return PICL_ERR_NOMEM;
					}
					v = p;
					cap = ncap;
				}
				v[n++] = &q->v[k];
			}
		}
		if (n > 1)
			qsort(v, n, sizeof(*v), cmp_seq);
		for (i = 0; i < n && rc == PICL_OK; i++) {
			struct picl_message msg = v[i]->msg;

			if (!m->cb)
				continue;
			if (pass == 1) {
				rc = m->cb(m->ctx, PICL_MATCH_UNMATCHED_RECV, &msg);
			} else if (!msg.broadcast) {
				rc = m->cb(m->ctx, PICL_MATCH_UNMATCHED_SEND, &msg);
			} else {
				const int32_t *all = m->expected ? m->expected : m->procs;
				size_t nall = m->expected ? m->nexpected : m->nprocs;

				for (k = 0; k < nall && rc == PICL_OK; k++) {
					int32_t p = all[k];

					if (p == msg.src_processor || p == PICL_HOST_PROCESSOR ||
					    got_has(v[i], p))
						continue;
					msg.dst_processor = p;
					rc = m->cb(m->ctx, PICL_MATCH_UNMATCHED_SEND, &msg);
				}
			}
		}
	}
	free(v);
	return rc;
}

uint64_t picl_matcher_matched(const struct picl_matcher *m)
{
	return m->matched;
}

uint64_t picl_matcher_pending(const struct picl_matcher *m)
{
	return m->pending;
}

void picl_matcher_free(struct picl_matcher *m)
{
	size_t i, k;

	if (!m)
		return;
	for (i = 0; i < m->ncap; i++) {
		struct channel *c = &m->ch[i];

		if (!c->used)
			continue;
		for (k = c->sends.head; k < c->sends.n; k++)
			free(c->sends.v[k].got);
		free(c->sends.v);
		free(c->recvs.v);
	}
	for (i = 0; i < m->reqcap; i++)
		free(m->req[i].done);
	free(m->req);
	free(m->ch);
	free(m->procs);
	free(m->expected);
	free(m);
}
