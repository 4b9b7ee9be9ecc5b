/*
 * match.c - pairs message sends with the receives that completed them.
 *
 * PICL (like MPI) delivers the messages of one (source, destination, type)
 * channel in the order they were sent, so matching is FIFO per channel. A
 * channel keeps a queue of sends waiting for a receive and a queue of
 * receives waiting for a send (a receive can come first in an unsorted
 * trace, or in a sorted one when clocks disagree). A broadcast (destination
 * -1) lives in a per-(source, type) queue and is consumed once, in order, by
 * every other processor: each channel counts the broadcasts of its (source,
 * type) it has received, so a receive finds its broadcast in O(1). A
 * broadcast stays until the end, unless the processors were declared; then
 * it is dropped once all of them (the host aside) have received it. So
 * memory holds only what is in flight.
 *
 * What is in flight can be most of a trace: per-node files one after
 * another, or a trace in PICL's flush order, bring every send of processor
 * 0 before any receive of processor 1. Past picl_matcher_set_memory's
 * limit, queues keep their first item in memory and move the rest to an
 * unlinked temporary file, as segments in the
 * queue's order; items pushed later go to an in-memory tail behind the
 * segments (struct spill), itself moved out at the next spill. When a
 * queue's head empties, the next SPILL_READ items are read back. A queue
 * is thus its head, then its segments, then its tail, always in input
 * order, and never empty at its head while it holds anything. Broadcast
 * queues, read by index, stay in memory.
 *
 * Which records are sends and receives, and where their fields are, is
 * fixed by the spec's Tables 7-8 (length, type, peer processor, peer
 * process); marks carry the entry's fields then the exit's (§2.3.3).
 */
#include "internal.h"
#include "grow.h"
#include "intmap.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BCAST_DST INT32_MIN
#define PROC_BITS 4096
#define DSTS_SCAN 16
#define SPILL_READ 64   /* items read back at once */
#define SPILL_MIN 8     /* fewer items are not worth a write */
#define QUEUE_MAX (UINT32_MAX / 2)  /* items of a queue in memory at most */

/*
 * A send or a receive waiting for its partner: its own side only, the
 * processors and the type being its channel's. 88 bytes, where a struct
 * picl_message with the other side empty took 160: where messages wait
 * long there are hundreds of thousands of these.
 */
struct item {
	uint64_t seq;                 /* input order */
	int64_t length;               /* bytes, as this side recorded */
	struct picl_time time;        /* send entry, or receive exit */
	struct picl_mark mark;
	unsigned char data[PICL_MATCHER_DATA_MAX];  /* send: the caller's */
	int32_t process;              /* this side's process */
	int32_t peer_process;         /* the other side's, as recorded (or -1) */
	int32_t event;
	uint32_t ngot;                /* broadcast: declared receivers that had it */
};

/* Items of a queue on disk: n items from byte off of the spill file. */
struct segment {
	uint64_t off, n;
};

/* The part of a spilled queue behind its head: segments, then a tail. */
struct spill {
	struct segment *seg;
	size_t shead, nseg, segcap;   /* live segments are seg[shead .. nseg) */
	struct item *t;               /* pushed after the segments were written */
	size_t tn, tcap;
};

struct queue {
	struct item *v;
	uint32_t head, n, cap;        /* live items are v[head .. n) */
	struct spill *sp;             /* NULL unless items wait behind v */
};

/* What a (source, BCAST_DST, type) channel knows of its broadcasts. */
struct bcast {
	uint64_t base;                /* number of the broadcast at sends' head */
	int32_t *dsts;                /* destinations of the (src, type) channels, */
	size_t ndsts, dstcap;         /* in the order they were made */
	uint64_t dst_bits;            /* bit d: destination d (0..63) is in dsts */
	struct intmap *dsts_of;       /* dsts as a set, once over DSTS_SCAN */
};

/* 88 bytes: there can be a hundred thousand channels, each holding a
 * message or two. */
struct channel {
	int32_t src, dst, type;
	struct queue sends, recvs;    /* dst BCAST_DST: sends are the broadcasts */
	union {
		uint64_t done;        /* broadcasts of (src, type) received on dst */
		struct bcast *b;      /* dst BCAST_DST: its broadcasts */
	} u;
};

/* An open -58/-60/-61 entry and its request id. */
struct openreq {
	int32_t event;
	int64_t req;
};

/* Per-process state for non-blocking receives: the open -58/-60/-61
 * entries, and the requests recvstatus0 already completed (a recvbegin0
 * posting that id again forgets it). */
struct reqstate {
	struct openreq *open;
	size_t nopen, opencap;
	int64_t *done;
	size_t ndone, donecap;
};

struct picl_matcher {
	int (*cb)(void *ctx, enum picl_match_kind kind, const struct picl_message *msg);
	void *ctx;
	struct channel *ch;           /* the channels, ch[0 .. nused) */
	size_t chcap, nused;
	uint32_t *slot;               /* open addressing: 1 + index into ch, */
	size_t ncap;                  /* or 0 for none; ncap slots */
	int32_t *procs;               /* processors seen, in order of first */
	size_t nprocs, procs_cap;     /* appearance (sorted by finish) */
	struct intmap procs_of;       /* the same as a set (at or above */
	uint64_t procs_bits[PROC_BITS / 64];  /* PROC_BITS), and those below */
	int32_t *expected;            /* processors declared, sorted; or NULL */
	size_t nexpected;
	struct reqstate *req;         /* in order of first appearance */
	size_t reqcap, nreq;
	struct intmap req_of;         /* (processor, process) -> req index */
	uint64_t seq, matched, pending_recvs, pending;
	size_t limit;                 /* items kept in memory at most (0: all) */
	size_t inmem, next_check;     /* items in memory; spill past next_check */
	char *tmpdir;                 /* where the spill file goes (NULL: default) */
	int fd;                       /* the spill file, once made (else -1) */
	uint64_t spill_end;           /* its size */
	char err[320];                /* what went wrong last */
	union {                       /* picl_matcher_send_data in a callback */
		max_align_t align;
		unsigned char b[PICL_MATCHER_DATA_MAX];
	} data;
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

/* The slot holding channel index `idx` (which is in the table). */
static size_t slot_of(const struct picl_matcher *m, size_t idx)
{
	const struct channel *c = &m->ch[idx];
	size_t i;

	for (i = chash(c->src, c->dst, c->type) & (m->ncap - 1); m->slot[i] != idx + 1;
	     i = (i + 1) & (m->ncap - 1))
		;
	return i;
}

/*
 * The channel (src, dst, type), made if `create` (NULL if not there, or out
 * of memory). The channels lie in one dense array, found through a table of
 * 4-byte slots at most half full: a trace whose messages wait long can have
 * a hundred thousand channels holding a message or two, and slots the size
 * of a channel, kept half empty, took more memory than the messages.
 * Making a channel may move the others (no pointer may be kept across it).
 */
static struct channel *find(struct picl_matcher *m, int32_t src, int32_t dst,
			    int32_t type, int create)
{
	struct channel *c;
	size_t i;

	if (m->ncap == 0 || (create && (m->nused + 1) * 2 > m->ncap)) {
		size_t ncap = m->ncap ? m->ncap * 2 : 64, j;
		uint32_t *n;

		if (!create && m->ncap == 0)
			return NULL;
		if (ncap > (size_t)UINT32_MAX || !(n = calloc(ncap, sizeof(*n))))
			return NULL;
		for (j = 0; j < m->nused; j++) {
			size_t k;

			c = &m->ch[j];
			for (k = chash(c->src, c->dst, c->type) & (ncap - 1); n[k];
			     k = (k + 1) & (ncap - 1))
				;
			n[k] = (uint32_t)(j + 1);
		}
		free(m->slot);
		m->slot = n;
		m->ncap = ncap;
	}
	for (i = chash(src, dst, type) & (m->ncap - 1); m->slot[i]; i = (i + 1) & (m->ncap - 1)) {
		c = &m->ch[m->slot[i] - 1];
		if (c->src == src && c->dst == dst && c->type == type)
			return c;
	}
	if (!create || grow((void **)&m->ch, &m->chcap, m->nused + 1, sizeof(*m->ch)) < 0)
		return NULL;
	c = &m->ch[m->nused];
	memset(c, 0, sizeof(*c));
	c->src = src;
	c->dst = dst;
	c->type = type;
	m->slot[i] = (uint32_t)++m->nused;
	return c;
}

/* The broadcast channel of (src, type), made if new. */
static struct channel *bcast_get(struct picl_matcher *m, int32_t src, int32_t type)
{
	struct channel *c = find(m, src, BCAST_DST, type, 1);

	if (c && !c->u.b && !(c->u.b = calloc(1, sizeof(*c->u.b))))
		return NULL; /* left empty: bcast_find passes it by */
	return c;
}

/* The broadcast channel of (src, type), or NULL. */
static struct channel *bcast_find(struct picl_matcher *m, int32_t src, int32_t type)
{
	struct channel *c = find(m, src, BCAST_DST, type, 0);

	return c && c->u.b ? c : NULL;
}

/*
 * Forget channel c (src, dst, type) once nothing in it waits and it holds
 * nothing a later record needs: a trace has a channel per (source,
 * destination, type), and one that makes up types as it goes (a step
 * number in the type) has millions of them; kept, they make a table far
 * larger than the caches, and every look-up a miss (`picltrace stat` spent
 * an eighth of its time there). A channel made again starts as this one
 * ends: empty, no broadcast counted beyond those all its receivers had
 * (u.done <= the broadcast channel's base), and still listed in
 * dsts, where it keeps its place (channel_get). Broadcast channels stay.
 * Slots after c's in its run move back (linear probing's deletion), and
 * the last channel of the array takes c's place, so no pointer into the
 * array may be used after this.
 */
static void drop_idle(struct picl_matcher *m, struct channel *c)
{
	size_t mask = m->ncap - 1, idx = (size_t)(c - m->ch), last = m->nused - 1, i, j, k;

	if (c->dst == BCAST_DST || c->sends.n || c->recvs.n)
		return;
	if (c->u.done) {
		const struct channel *b = bcast_find(m, c->src, c->type);

		if (!b || c->u.done > b->u.b->base)
			return;
	}
	i = slot_of(m, idx);
	for (j = (i + 1) & mask; m->slot[j]; j = (j + 1) & mask) {
		const struct channel *x = &m->ch[m->slot[j] - 1];

		k = chash(x->src, x->dst, x->type) & mask;
		/* j may move to i unless its home k lies cyclically in (i, j] */
		if (i <= j ? (k <= i || k > j) : (k <= i && k > j)) {
			m->slot[i] = m->slot[j];
			i = j;
		}
	}
	m->slot[i] = 0;
	if (idx != last) {
		m->slot[slot_of(m, last)] = (uint32_t)(idx + 1);
		m->ch[idx] = m->ch[last];
	}
	memset(&m->ch[last], 0, sizeof(m->ch[last]));
	m->nused--;
}

/* The channel, made if new; a new (src, dst, type) channel is listed in
 * (src, BCAST_DST, type), whose broadcasts it may receive. */
static struct channel *channel_get(struct picl_matcher *m, int32_t src, int32_t dst,
				   int32_t type)
{
	struct channel *c = find(m, src, dst, type, 0);
	struct bcast *b;
	size_t i;

	if (c)
		return c;
	if (dst == BCAST_DST)
		return bcast_get(m, src, type);
	if (!(c = bcast_get(m, src, type)))
		return NULL;
	b = c->u.b;
	/* Made again after drop_idle: already listed, in its place. (Every
	 * message remakes its channel: the bits, and the set once there are
	 * many, spare the scan of up to a processor count of destinations,
	 * which made a scatter from one processor to a million others
	 * quadratic.) */
	if (dst >= 0 && dst < 64) {
		if (b->dst_bits >> dst & 1)
			return find(m, src, dst, type, 1);
	} else if (b->dsts_of) {
		if (intmap_get(b->dsts_of, (uint64_t)(uint32_t)dst, &i))
			return find(m, src, dst, type, 1);
	} else {
		for (i = b->ndsts; i > 0; i--)
			if (b->dsts[i - 1] == dst)
				return find(m, src, dst, type, 1);
	}
	if (b->ndsts == b->dstcap) {
		size_t ncap = b->dstcap ? b->dstcap * 2 : 4;
		int32_t *v = realloc(b->dsts, ncap * sizeof(*v));

		if (!v)
			return NULL;
		b->dsts = v;
		b->dstcap = ncap;
	}
	if (b->ndsts == DSTS_SCAN && !b->dsts_of) {
		struct intmap *set = calloc(1, sizeof(*set));

		for (i = 0; set && i < b->ndsts; i++)
			if (intmap_put(set, (uint64_t)(uint32_t)b->dsts[i], i) < 0)
				break;
		if (!set || i < b->ndsts) {
			if (set)
				intmap_free(set);
			free(set);
			return NULL;
		}
		b->dsts_of = set;
	}
	if (b->dsts_of && intmap_put(b->dsts_of, (uint64_t)(uint32_t)dst, b->ndsts) < 0)
		return NULL;
	b->dsts[b->ndsts++] = dst;
	if (dst >= 0 && dst < 64)
		b->dst_bits |= (uint64_t)1 << dst;
	return find(m, src, dst, type, 1);
}

static int fail(struct picl_matcher *m, int code, const char *what)
{
	if (code == PICL_ERR_NOMEM)
		snprintf(m->err, sizeof(m->err), "out of memory");
	else
		snprintf(m->err, sizeof(m->err), "%s the messages waiting for a partner in %s: %s",
			 what, m->tmpdir ? m->tmpdir : "the temporary directory", strerror(errno));
	return code;
}

static int spill_open(struct picl_matcher *m)
{
	const char *dir = m->tmpdir;
	char *path;
	size_t len;
	int fd;

	if (!dir) {
		dir = getenv("TMPDIR");
		if (!dir || !*dir)
			dir = "/tmp";
		if (!(m->tmpdir = strdup(dir)))
			return fail(m, PICL_ERR_NOMEM, NULL);
	}
	len = strlen(dir) + 32;
	if (!(path = malloc(len)))
		return fail(m, PICL_ERR_NOMEM, NULL);
	snprintf(path, len, "%s/picl-messages.XXXXXX", dir);
	fd = mkstemp(path);
	if (fd >= 0) {
		unlink(path);
		(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	}
	free(path);
	if (fd < 0)
		return fail(m, PICL_ERR_IO, "cannot make a file for");
	m->fd = fd;
	return PICL_OK;
}

/* Write the n items at v to the end of the spill file, as a new last
 * segment of q. The file is only ever written at its end (read back with
 * pread, which leaves the offset alone), so a plain write appends. */
static int spill_write(struct picl_matcher *m, struct queue *q, const struct item *v, size_t n)
{
	struct spill *sp = q->sp;
	int rc;

	if (m->fd < 0 && (rc = spill_open(m)) < 0)
		return rc;
	if (!sp && !(sp = calloc(1, sizeof(*sp))))
		return fail(m, PICL_ERR_NOMEM, NULL);
	q->sp = sp;
	if (sp->shead > 0 && sp->shead * 2 >= sp->nseg) {
		/* the segments read back give their room */
		memmove(sp->seg, sp->seg + sp->shead, (sp->nseg - sp->shead) * sizeof(*sp->seg));
		sp->nseg -= sp->shead;
		sp->shead = 0;
	}
	if (grow((void **)&sp->seg, &sp->segcap, sp->nseg + 1, sizeof(*sp->seg)) < 0)
		return fail(m, PICL_ERR_NOMEM, NULL);
	if (picl_write_all(m->fd, (const char *)v, n * sizeof(*v)) < 0)
		return fail(m, PICL_ERR_IO, "cannot keep");
	sp->seg[sp->nseg].off = m->spill_end;
	sp->seg[sp->nseg].n = n;
	sp->nseg++;
	m->spill_end += n * sizeof(*v);
	return PICL_OK;
}

/* Move what q holds beyond the item at its head to disk: its tail if it
 * has segments already (so the order stays), else its head's rest. Traces
 * where messages wait long often make up a message type per step, so
 * most queues are short: a few items are worth a write. */
static int spill_queue(struct picl_matcher *m, struct queue *q)
{
	size_t k;
	int rc;

	if (q->sp) {
		if ((k = q->sp->tn) < SPILL_MIN)
			return PICL_OK;
		if ((rc = spill_write(m, q, q->sp->t, k)) < 0)
			return rc;
		free(q->sp->t);
		q->sp->t = NULL;
		q->sp->tn = q->sp->tcap = 0;
	} else {
		struct item *v;

		if (q->n - q->head < 1 + SPILL_MIN)
			return PICL_OK;
		k = q->n - q->head - 1;
		if ((rc = spill_write(m, q, q->v + q->head + 1, k)) < 0)
			return rc;
		q->v[0] = q->v[q->head];
		q->head = 0;
		q->n = 1;
		if ((v = realloc(q->v, sizeof(*v))) != NULL) {
			q->v = v;
			q->cap = 1;
		}
	}
	m->inmem -= k;
	return PICL_OK;
}

/* Past the limit: spill queues, in table order, until half of it is left.
 * Broadcast queues and short queues stay, so that may not be reached; the
 * next attempt then waits until memory has grown by half again, which
 * keeps the scans of the table few. */
static int spill_some(struct picl_matcher *m)
{
	size_t i;
	int rc;

	for (i = 0; i < m->nused && m->inmem > m->limit / 2; i++) {
		struct channel *c = &m->ch[i];

		if (c->dst == BCAST_DST)
			continue;
		if ((rc = spill_queue(m, &c->sends)) < 0 || (rc = spill_queue(m, &c->recvs)) < 0)
			return rc;
	}
	m->next_check = m->inmem > m->limit / 2 ? m->inmem + m->inmem / 2 : m->limit;
	if (m->next_check < m->limit)
		m->next_check = m->limit;
	return PICL_OK;
}

static int push(struct picl_matcher *m, struct queue *q, const struct item *it)
{
	if (q->sp) {
		struct spill *sp = q->sp;

		if (sp->tn >= QUEUE_MAX ||
		    grow((void **)&sp->t, &sp->tcap, sp->tn + 1, sizeof(*sp->t)) < 0)
			return fail(m, PICL_ERR_NOMEM, NULL);
		sp->t[sp->tn++] = *it;
	} else {
		if (q->n == q->cap) {
			if (q->head > 0 && q->head * 2 >= q->n) {
				memmove(q->v, q->v + q->head, (q->n - q->head) * sizeof(*q->v));
				q->n -= q->head;
				q->head = 0;
			} else {
				uint32_t ncap = q->cap ? q->cap * 2 : 1;
				struct item *v;

				if (q->cap >= QUEUE_MAX ||
				    !(v = realloc(q->v, (size_t)ncap * sizeof(*v))))
					return fail(m, PICL_ERR_NOMEM, NULL);
				q->v = v;
				q->cap = ncap;
			}
		}
		q->v[q->n++] = *it;
	}
	if (++m->inmem > m->next_check && m->limit)
		return spill_some(m);
	return PICL_OK;
}

static struct item *front(struct queue *q)
{
	return q->head < q->n ? &q->v[q->head] : NULL;
}

/* q's head is empty: read its next items back, or take its tail. */
static int refill(struct picl_matcher *m, struct queue *q)
{
	struct spill *sp = q->sp;

	if (sp->shead < sp->nseg) {
		struct segment *g = &sp->seg[sp->shead];
		size_t k = g->n < SPILL_READ ? (size_t)g->n : SPILL_READ, left = k * sizeof(*q->v);
		char *p;

		if (!(q->v = malloc(k * sizeof(*q->v))))
			return fail(m, PICL_ERR_NOMEM, NULL);
		for (p = (char *)q->v; left;) {
			ssize_t r = pread(m->fd, p, left, (off_t)g->off);

			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				if (r == 0)
					errno = EIO;
				free(q->v);
				q->v = NULL;
				return fail(m, PICL_ERR_IO, "cannot read back");
			}
			p += r;
			g->off += (uint64_t)r;
			left -= (size_t)r;
		}
		q->n = q->cap = (uint32_t)k;
		g->n -= k;
		if (g->n == 0)
			sp->shead++;
		m->inmem += k;
		if (sp->shead < sp->nseg || sp->tn)
			return PICL_OK;
	} else {
		q->v = sp->t;
		q->n = (uint32_t)sp->tn;
		q->cap = (uint32_t)sp->tcap;
	}
	free(sp->seg);
	free(q->sp);
	q->sp = NULL;
	return PICL_OK;
}

/* Take the front item away (callers copy it first). An emptied queue gives
 * its array back: a trace has a channel per (source, destination, type),
 * tens of thousands of them, and most hold nothing most of the time. */
static int pop(struct picl_matcher *m, struct queue *q)
{
	m->inmem--;
	if (++q->head == q->n) {
		free(q->v);
		q->v = NULL;
		q->head = q->n = q->cap = 0;
		if (q->sp)
			return refill(m, q);
	}
	return PICL_OK;
}

static void queue_free(struct queue *q)
{
	free(q->v);
	if (q->sp) {
		free(q->sp->seg);
		free(q->sp->t);
		free(q->sp);
	}
}

struct picl_matcher *picl_matcher_new(int (*cb)(void *ctx, enum picl_match_kind kind,
						const struct picl_message *msg),
				      void *ctx)
{
	struct picl_matcher *m = calloc(1, sizeof(*m));

	if (m) {
		m->cb = cb;
		m->ctx = ctx;
		m->fd = -1;
	}
	return m;
}

/* Every record comes here; a processor is usually known already, and if
 * it is below PROC_BITS the bitmap says so without hashing. A new one is
 * appended: the list is wanted sorted only at the end (finish sorts it),
 * and keeping it sorted here cost a memmove per processor, quadratic in
 * a trace of a million processors. */
static int saw_processor(struct picl_matcher *m, int32_t p)
{
	size_t i;

	if (p < 0)
		return PICL_OK;
	if (p < PROC_BITS) {
		if (m->procs_bits[p / 64] >> (p % 64) & 1)
			return PICL_OK;
	} else if (intmap_get(&m->procs_of, (uint64_t)(uint32_t)p, &i)) {
		return PICL_OK;
	}
	if (m->nprocs == m->procs_cap) {
		size_t ncap = m->procs_cap ? m->procs_cap * 2 : 16;
		int32_t *v = realloc(m->procs, ncap * sizeof(*v));

		if (!v)
			return PICL_ERR_NOMEM;
		m->procs = v;
		m->procs_cap = ncap;
	}
	if (p < PROC_BITS)
		m->procs_bits[p / 64] |= (uint64_t)1 << (p % 64);
	else if (intmap_put(&m->procs_of, (uint64_t)(uint32_t)p, m->nprocs) < 0)
		return PICL_ERR_NOMEM;
	m->procs[m->nprocs++] = p;
	return PICL_OK;
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

/* 1 if p is one of the declared processors. */
static int is_expected(const struct picl_matcher *m, int32_t p)
{
	return m->nexpected &&
	       bsearch(&p, m->expected, m->nexpected, sizeof(*m->expected), cmp_i32) != NULL;
}

/* Declared processors a broadcast from src must reach, or SIZE_MAX when
 * the processors are not declared (then it waits for the end). */
static size_t bcast_receivers(const struct picl_matcher *m, int32_t src)
{
	size_t n = m->nexpected;

	if (!m->expected)
		return SIZE_MAX;
	n -= (size_t)is_expected(m, src);
	if (src != PICL_HOST_PROCESSOR)
		n -= (size_t)is_expected(m, PICL_HOST_PROCESSOR);
	return n;
}

int picl_matcher_expect_processors(struct picl_matcher *m, const int32_t *procs, size_t n)
{
	int32_t *v = malloc((n ? n : 1) * sizeof(*v));
	size_t i, k;

	if (!v)
		return PICL_ERR_NOMEM;
	if (n)
		memcpy(v, procs, n * sizeof(*v));
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_i32);
	for (i = k = 0; i < n; i++)
		if (k == 0 || v[i] != v[k - 1])
			v[k++] = v[i];
	free(m->expected);
	m->expected = v;
	m->nexpected = k;
	return PICL_OK;
}

/* Processor dst has received broadcast b from src: count it when dst is a
 * declared receiver (for dropping b once all of them have it). */
static void count_receiver(const struct picl_matcher *m, struct item *b, int32_t src,
			   int32_t dst)
{
	if (m->expected && dst != src && dst != PICL_HOST_PROCESSOR && is_expected(m, dst))
		b->ngot++;
}

/*
 * The message of channel (src, dst, type) between send and recv, either of
 * which may be NULL (unmatched): the other side's times and marks zero, its
 * length -1. dst is the receiver (PICL_WILDCARD for a broadcast nobody
 * received yet).
 */
static void message_of(struct picl_message *msg, int32_t src, int32_t dst, int32_t type,
		       const struct item *send, const struct item *recv)
{
	memset(msg, 0, sizeof(*msg));
	msg->src_processor = src;
	msg->dst_processor = dst;
	msg->type = type;
	msg->send_length = msg->recv_length = -1;
	if (send) {
		msg->src_process = send->process;
		msg->dst_process = send->peer_process;
		msg->send_length = send->length;
		msg->send_event = send->event;
		msg->send_time = send->time;
		msg->send_mark = send->mark;
	}
	if (recv) {
		msg->dst_process = recv->process;
		if (!send || msg->src_process < 0)
			msg->src_process = recv->peer_process;
		msg->recv_length = recv->length;
		msg->recv_event = recv->event;
		msg->recv_time = recv->time;
		msg->recv_mark = recv->mark;
	}
}

/* A match: send (a broadcast if `broadcast`) from src received on dst. */
static int emit(struct picl_matcher *m, int32_t src, int32_t dst, int32_t type, int broadcast,
		const struct item *send, const struct item *recv)
{
	struct picl_message msg;

	m->matched++;
	if (!m->cb)
		return 0;
	message_of(&msg, src, dst, type, send, recv);
	msg.broadcast = broadcast;
	memcpy(m->data.b, send->data, sizeof(m->data.b));
	return m->cb(m->ctx, PICL_MATCH_OK, &msg);
}

/* Drop the broadcasts at the head of b that every declared receiver has
 * had (none when the processors are not declared). */
static void trim_broadcasts(struct picl_matcher *m, struct channel *b)
{
	struct item *it;

	while ((it = front(&b->sends)) && it->ngot >= bcast_receivers(m, b->src) &&
	       it->ngot > 0) {
		(void)pop(m, &b->sends); /* broadcasts stay in memory: no refill */
		b->u.b->base++;
		m->pending--;
	}
}

/* A send from src to dst (PICL_WILDCARD: a broadcast) of message type. */
static int add_send(struct picl_matcher *m, int32_t src, int32_t dst, int32_t type,
		    const struct item *it)
{
	struct channel *c, *b;
	uint64_t bidx;
	size_t i;
	int rc;

	if (dst != PICL_WILDCARD) {
		c = channel_get(m, src, dst, type);
		if (!c)
			return PICL_ERR_NOMEM;
		if (front(&c->recvs)) {
			struct item r = *front(&c->recvs);

			m->pending_recvs--;
			m->pending--;
			if ((rc = pop(m, &c->recvs)) < 0)
				return rc;
			rc = emit(m, src, dst, type, 0, it, &r);
			drop_idle(m, c);
			return rc;
		}
		m->pending++;
		return push(m, &c->sends, it);
	}
	/* A broadcast: it goes to the end of its (source, type) queue. */
	b = bcast_get(m, src, type);
	if (!b)
		return PICL_ERR_NOMEM;
	bidx = b->u.b->base + (b->sends.n - b->sends.head);
	if ((rc = push(m, &b->sends, it)) < 0)
		return rc;
	m->pending++;
	/* The receives waiting on its channels (they have had every earlier
	 * broadcast) take it now, in the order the channels were made. */
	for (i = 0; m->pending_recvs && i < b->u.b->ndsts; i++) {
		int32_t d = b->u.b->dsts[i];
		struct item r, *bc;

		if (d == src || !(c = find(m, src, d, type, 0)) || !front(&c->recvs))
			continue;
		r = *front(&c->recvs);
		m->pending_recvs--;
		m->pending--;
		if ((rc = pop(m, &c->recvs)) < 0)
			return rc;
		c->u.done = bidx + 1;
		bc = &b->sends.v[b->sends.n - 1];
		count_receiver(m, bc, src, d);
		if ((rc = emit(m, src, d, type, 1, bc, &r)) != 0)
			return rc;
	}
	trim_broadcasts(m, b);
	return PICL_OK;
}

/* A receive on dst of a message of type from src. */
static int add_recv(struct picl_matcher *m, int32_t src, int32_t dst, int32_t type,
		    const struct item *it)
{
	struct channel *c = channel_get(m, src, dst, type), *b = NULL;
	struct item *uni, *bc = NULL;
	uint64_t k = 0;
	int rc;

	if (!c)
		return PICL_ERR_NOMEM;
	uni = front(&c->sends);
	/* The next broadcast of (src, type) this processor has not had (a
	 * processor does not receive its own broadcasts). */
	if (src != dst && (b = bcast_find(m, src, type)) != NULL) {
		uint64_t base = b->u.b->base;

		k = c->u.done > base ? c->u.done : base;
		if (k - base < b->sends.n - b->sends.head)
			bc = &b->sends.v[b->sends.head + (k - base)];
	}
	if (bc && (!uni || bc->seq < uni->seq)) {
		c->u.done = k + 1;
		count_receiver(m, bc, src, dst);
		rc = emit(m, src, dst, type, 1, bc, it);
		trim_broadcasts(m, b);
		drop_idle(m, c);
		return rc;
	}
	if (uni) {
		struct item s = *uni;

		m->pending--;
		if ((rc = pop(m, &c->sends)) < 0)
			return rc;
		rc = emit(m, src, dst, type, 0, &s, it);
		drop_idle(m, c);
		return rc;
	}
	m->pending_recvs++;
	m->pending++;
	return push(m, &c->recvs, it);
}

/* Integer data value i of rec into *out; 0 if there is none. */
static int value_int(const struct picl_record *rec, size_t i, int64_t *out)
{
	const struct picl_value *v;

	if (!rec->values || i >= rec->nvalues)
		return 0;
	v = &rec->values[i];
	if (v->kind == PICL_VAL_INT) {
		*out = v->v.i;
		return 1;
	}
	if (v->kind == PICL_VAL_UINT && v->v.u <= INT64_MAX) {
		*out = (int64_t)v->v.u;
		return 1;
	}
	return 0;
}

/* A process id field, or -1 when absent or out of range. */
static int32_t process_field(const struct picl_record *rec, size_t i)
{
	int64_t x;

	return value_int(rec, i, &x) && x >= INT32_MIN && x <= INT32_MAX ? (int32_t)x : -1;
}

/*
 * The message fields at `off` (length, type, peer processor): all integers,
 * a type of 0 or more (-1, typeless, is not matched) and a peer processor
 * of `min_peer` or more. 0 if the record has no such message.
 */
static int message_fields(const struct picl_record *rec, size_t off, int64_t min_peer,
			  int64_t *length, int32_t *type, int32_t *peer)
{
	int64_t t, p;

	if (!value_int(rec, off, length) || !value_int(rec, off + 1, &t) ||
	    !value_int(rec, off + 2, &p) || t < 0 || t > INT32_MAX || p < min_peer ||
	    p > INT32_MAX)
		return 0;
	if (*length < 0)
		*length = -1;
	*type = (int32_t)t;
	*peer = (int32_t)p;
	return 1;
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

static struct reqstate *reqstate(struct picl_matcher *m, int32_t processor, int32_t process)
{
	uint64_t key = intmap_key2(processor, process);
	struct reqstate *st;
	size_t i;

	if (intmap_get(&m->req_of, key, &i))
		return &m->req[i];
	if (m->nreq == m->reqcap) {
		size_t ncap = m->reqcap ? m->reqcap * 2 : 64;

		st = realloc(m->req, ncap * sizeof(*st));
		if (!st)
			return NULL;
		m->req = st;
		m->reqcap = ncap;
	}
	if (intmap_put(&m->req_of, key, m->nreq) < 0)
		return NULL;
	st = &m->req[m->nreq++];
	memset(st, 0, sizeof(*st));
	return st;
}

/* Where request req is in st's completed requests, or SIZE_MAX. */
static size_t find_done(const struct reqstate *st, int64_t req)
{
	size_t i;

	for (i = 0; i < st->ndone; i++)
		if (st->done[i] == req)
			return i;
	return SIZE_MAX;
}

/* The request id of the entry an exit of event e closes (the innermost
 * open one of e, as nesting goes), or -1; that entry is closed. */
static int64_t close_request(struct reqstate *st, int32_t e)
{
	size_t i = st->nopen;
	int64_t req;

	while (i > 0 && st->open[i - 1].event != e)
		i--;
	if (i == 0)
		return -1;
	req = st->open[i - 1].req;
	memmove(st->open + i - 1, st->open + i, (st->nopen - i) * sizeof(*st->open));
	st->nopen--;
	return req;
}

/*
 * Non-blocking receives. The request id is the -58/-60/-61 entry's datum
 * (a mark's first value). A -58 exit (or mark) completes the request; a
 * later -60/-61 exit (or mark) of a completed request is the same message
 * again, and ends it. A -57 exit posts a request id afresh (PICL reuses the
 * message type as the id), so an old completion of that id is forgotten.
 * Returns 1 if this record is such a repeat.
 */
static int repeated_receive(struct picl_matcher *m, const struct picl_record *rec, int *err)
{
	struct reqstate *st;
	int64_t req = -1;
	size_t i;

	*err = 0;
	if (rec->event != -57 && rec->event != -58 && rec->event != -60 && rec->event != -61)
		return 0;
	if (rec->event == -57 && rec->type != PICL_REC_EXIT)
		return 0;
	st = reqstate(m, rec->processor, rec->process);
	if (!st) {
		*err = PICL_ERR_NOMEM;
		return 0;
	}
	if (rec->event == -57) {
		if (value_int(rec, 0, &req) && req >= 0 && (i = find_done(st, req)) != SIZE_MAX)
			st->done[i] = st->done[--st->ndone];
		return 0;
	}
	if (rec->type == PICL_REC_ENTRY) {
		if (st->nopen == st->opencap) {
			size_t ncap = st->opencap ? st->opencap * 2 : 4;
			struct openreq *v = realloc(st->open, ncap * sizeof(*v));

			if (!v) {
				*err = PICL_ERR_NOMEM;
				return 0;
			}
			st->open = v;
			st->opencap = ncap;
		}
		if (!value_int(rec, 0, &req))
			req = -1;
		st->open[st->nopen].event = rec->event;
		st->open[st->nopen++].req = req;
		return 0;
	}
	if (rec->type == PICL_REC_EXIT) {
		req = close_request(st, rec->event);
	} else if (!value_int(rec, 0, &req)) {
		return 0;
	}
	if (req < 0)
		return 0;
	i = find_done(st, req);
	if (rec->event == -58) {
		if (i != SIZE_MAX)
			return 0;
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
		st->done[st->ndone++] = req;
		return 0;
	}
	if (i == SIZE_MAX)
		return 0;
	st->done[i] = st->done[--st->ndone];
	return 1;
}

int picl_matcher_add(struct picl_matcher *m, const struct picl_record *rec)
{
	return picl_matcher_add_data(m, rec, NULL, 0);
}

int picl_matcher_add_data(struct picl_matcher *m, const struct picl_record *rec,
			  const void *data, size_t size)
{
	struct item it;
	int32_t type, peer;
	size_t base;
	int rc;

	if (size > sizeof(it.data))
		return PICL_ERR_USAGE;
	if ((rc = saw_processor(m, rec->processor)) < 0)
		return rc;
	if ((rec->type != PICL_REC_ENTRY && rec->type != PICL_REC_EXIT &&
	     rec->type != PICL_REC_MARK) || rec->processor < 0)
		return PICL_OK; /* not an event of one processor */
	if (repeated_receive(m, rec, &rc) || rc < 0)
		return rc;
	if (is_send(rec->event) && rec->type != PICL_REC_EXIT)
		base = 0;
	else if (is_recv(rec->event) && rec->type != PICL_REC_ENTRY)
		base = rec->type == PICL_REC_MARK ? recv_entry_fields(rec->event, rec->nvalues) : 0;
	else
		return PICL_OK;
	memset(&it, 0, sizeof(it)); /* padding too: items may go to disk */
	/* A receive's source of -1 (unknown) leaves nothing to match. */
	if (!message_fields(rec, base, is_send(rec->event) ? PICL_WILDCARD : 0, &it.length, &type,
			    &peer))
		return PICL_OK;
	it.seq = ++m->seq;
	it.time = rec->time;
	it.mark = rec->mark;
	it.process = rec->process;
	it.peer_process = process_field(rec, base + 3);
	it.event = rec->event;
	if (is_send(rec->event)) {
		if (size)
			memcpy(it.data, data, size);
		return add_send(m, rec->processor, peer, type, &it);
	}
	return add_recv(m, peer, rec->processor, type, &it);
}

/* The queue of channel c that the pass reports: sends, then receives. */
static struct queue *pass_queue(struct channel *c, int pass)
{
	return pass == 0 ? &c->sends : &c->recvs;
}

/* The channels by their queues' front items' input order: a binary heap. */
static int heap_before(struct channel *const *h, int pass, size_t i, size_t j)
{
	return front(pass_queue(h[i], pass))->seq < front(pass_queue(h[j], pass))->seq;
}

static void heap_down(struct channel **h, int pass, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, least = i;
		struct channel *t;

		if (l < n && heap_before(h, pass, l, least))
			least = l;
		if (l + 1 < n && heap_before(h, pass, l + 1, least))
			least = l + 1;
		if (least == i)
			return;
		t = h[i];
		h[i] = h[least];
		h[least] = t;
		i = least;
	}
}

/* Item `it` of channel c, unmatched: a broadcast (number bidx of its
 * (source, type)) once per processor that did not have it. */
static int report(struct picl_matcher *m, int pass, const struct channel *c,
		  const struct item *it, uint64_t bidx)
{
	struct picl_message msg;
	const int32_t *all;
	size_t nall, k;
	int rc = PICL_OK;

	if (!m->cb)
		return PICL_OK;
	if (pass == 1) {
		message_of(&msg, c->src, c->dst, c->type, NULL, it);
		memset(m->data.b, 0, sizeof(m->data.b));
		return m->cb(m->ctx, PICL_MATCH_UNMATCHED_RECV, &msg);
	}
	memcpy(m->data.b, it->data, sizeof(m->data.b));
	if (c->dst != BCAST_DST) {
		message_of(&msg, c->src, c->dst, c->type, it, NULL);
		return m->cb(m->ctx, PICL_MATCH_UNMATCHED_SEND, &msg);
	}
	message_of(&msg, c->src, PICL_WILDCARD, c->type, it, NULL);
	msg.broadcast = 1;
	all = m->expected ? m->expected : m->procs;
	nall = m->expected ? m->nexpected : m->nprocs;
	for (k = 0; k < nall && rc == PICL_OK; k++) {
		int32_t p = all[k];
		const struct channel *r;

		if (p == c->src || p == PICL_HOST_PROCESSOR)
			continue;
		r = find(m, c->src, p, c->type, 0);
		if (r && r->u.done > bidx)
			continue;
		msg.dst_processor = p;
		rc = m->cb(m->ctx, PICL_MATCH_UNMATCHED_SEND, &msg);
	}
	return rc;
}

/* Unmatched sends (a broadcast once per missing receiver), then receives,
 * each in input order: every queue is, so the report merges them, taking
 * them apart as it goes (spilled ones read back a few items at a time).
 * No channel is made meanwhile, so pointers into m->ch hold. */
int picl_matcher_finish(struct picl_matcher *m)
{
	struct channel **h = NULL;
	size_t n, cap = 0, i;
	int pass, rc = PICL_OK;

	/* Broadcasts are reported once per missing receiver, by processor. */
	if (m->nprocs > 1)
		qsort(m->procs, m->nprocs, sizeof(*m->procs), cmp_i32);
	for (pass = 0; pass < 2 && rc == PICL_OK; pass++) {
		n = 0;
		for (i = 0; i < m->nused; i++) {
			if (!front(pass_queue(&m->ch[i], pass)))
				continue;
			if (grow((void **)&h, &cap, n + 1, sizeof(*h)) < 0) {
				free(h);
				return fail(m, PICL_ERR_NOMEM, NULL);
			}
			h[n++] = &m->ch[i];
		}
		for (i = n / 2; i-- > 0;)
			heap_down(h, pass, n, i);
		while (n && rc == PICL_OK) {
			struct channel *c = h[0];
			struct queue *q = pass_queue(c, pass);
			struct item it = *front(q);
			uint64_t bidx = 0;

			if (c->dst == BCAST_DST)
				bidx = c->u.b->base++;
			m->pending--;
			if (pass == 1)
				m->pending_recvs--;
			if ((rc = pop(m, q)) < 0)
				break;
			if (!front(q))
				h[0] = h[--n];
			heap_down(h, pass, n, 0);
			rc = report(m, pass, c, &it, bidx);
		}
	}
	free(h);
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
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nused; i++) {
		struct channel *c = &m->ch[i];

		if (c->dst == BCAST_DST && c->u.b) {
			free(c->u.b->dsts);
			if (c->u.b->dsts_of) {
				intmap_free(c->u.b->dsts_of);
				free(c->u.b->dsts_of);
			}
			free(c->u.b);
		}
		queue_free(&c->sends);
		queue_free(&c->recvs);
	}
	for (i = 0; i < m->nreq; i++) {
		free(m->req[i].open);
		free(m->req[i].done);
	}
	free(m->req);
	intmap_free(&m->req_of);
	free(m->ch);
	free(m->slot);
	free(m->procs);
	intmap_free(&m->procs_of);
	free(m->expected);
	free(m->tmpdir);
	if (m->fd >= 0)
		close(m->fd);
	free(m);
}

int picl_matcher_set_memory(struct picl_matcher *m, size_t max_bytes, const char *tmpdir)
{
	char *dir = NULL;

	if (tmpdir && !(dir = strdup(tmpdir)))
		return fail(m, PICL_ERR_NOMEM, NULL);
	free(m->tmpdir);
	m->tmpdir = dir;
	m->limit = max_bytes / sizeof(struct item);
	if (max_bytes && m->limit < 2 * SPILL_MIN)
		m->limit = 2 * SPILL_MIN;
	m->next_check = m->limit;
	return PICL_OK;
}

const void *picl_matcher_send_data(const struct picl_matcher *m)
{
	return m->data.b;
}

const char *picl_matcher_strerror(const struct picl_matcher *m)
{
	return m->err[0] ? m->err : "out of memory";
}
