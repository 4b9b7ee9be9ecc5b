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
 * broadcast stays until the end, unless the processors were declared (by
 * the caller, or by the -307 records of the trace's header, as merge and
 * piclrun write them); then it is dropped once all of them (the host
 * aside) have received it. So memory holds only what is in flight.
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
 * order, and never empty at its head while it holds anything. Broadcasts,
 * read by their number, go to the file as chunks in order (bcast_spill)
 * and are read back one at a time where they are (bcast_at): unless the
 * processors are declared, every one waits until the end.
 *
 * A trace that makes up a message type per step has instead tens of
 * thousands of channels of a message or two (and as many broadcast
 * channels listing their destinations), which spilling queues leaves in
 * memory. When spilling is not enough, the channels move to the file
 * whole (a spilled queue with its list of segments, a broadcast channel
 * with its broadcasts unless it has chunks), those idle since the last
 * spill first, as a run sorted by key (evict); a look-up that misses in
 * memory tries the runs' Bloom filters, newest first, reads one block of
 * the run that may hold the key, and takes the channel back (lookup); a
 * receive takes back its broadcast channel too.
 * Runs are merged so that their sizes halve from the oldest, keeping the
 * filters tried logarithmic. The unmatched are merged at the end from
 * memory and from the runs alike, in batches past a quarter of the limit
 * (gather_add). The limit counts channels in memory as well as items,
 * each about an item's size, and the rest in bytes (in_use).
 *
 * Which records are sends and receives, and where their fields are, is
 * fixed by the spec's Tables 7-8 (length, type, peer processor, peer
 * process); marks carry the entry's fields then the exit's (§2.3.3).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* fallocate, FALLOC_FL_PUNCH_HOLE */
#endif
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
#define CURSOR_READ 16  /* items finish's cursors read back at once */
#define SPILL_MIN 8     /* fewer items are not worth a write */
#define SEG_LIVE 8      /* segments of a queue before they merge (seg_merge) */
#define QUEUE_MAX (UINT32_MAX / 2)  /* items of a queue in memory at most */
#define RUN_BLOCK 4096  /* bytes of a run read back at once */
#define RUN_BUF 65536   /* bytes written (or copied) at once */
#define RELEASE_MIN ((uint64_t)1 << 20)  /* spill-file bytes given back at once */
#define BLOOM_K 6       /* bits a key sets in a run's filter */
#define BCAST_HELD (INT32_MIN + 1)  /* in a run's filter, as dst: the broadcast
				       channel of (src, type) holds broadcasts */

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
	uint32_t ngot;                /* broadcast: receivers that had it (the
					 declared ones, when there are) */
};

/* Items on disk: n items from byte off of the spill file; for broadcasts,
 * numbered from first. */
struct segment {
	uint64_t off, n, first;
	uint64_t kept;                /* bytes read back, not yet given back */
};

/* Segments in the order they were written: v[head .. n) are live. */
struct seglist {
	struct segment *v;
	size_t head, n, cap;
};

/* The part of a spilled queue behind its head: segments, then a tail. */
struct spill {
	struct seglist seg;
	struct item *t;               /* pushed after the segments were written */
	size_t tn, tcap;
};

struct queue {
	struct item *v;
	uint32_t head, n, cap;        /* live items are v[head .. n) */
	struct spill *sp;             /* NULL unless items wait behind v */
};

/* What a (source, BCAST_DST, type) channel knows of its broadcasts: the
 * first `ndisk` (from `base`) in the spill file, in chunks, the rest in
 * the channel's sends. */
struct bcast {
	uint64_t base;                /* number of the first broadcast kept */
	uint64_t ndisk;
	struct seglist ck;            /* the chunks */
	int32_t *dsts;                /* destinations of the (src, type) channels, */
	size_t ndsts, dstcap;         /* in the order they were made */
	uint64_t dst_bits;            /* bit d: destination d (0..63) is in dsts */
	struct intmap *dsts_of;       /* dsts as a set, once over DSTS_SCAN */
	uint64_t *ddone;              /* u.done of each dsts' channel when it was
				         dropped (NULL while all were 0) */
	size_t counted;               /* bytes of this and its lists (not of ck)
					 in the matcher's `extra` */
};

/* 88 bytes: there can be a hundred thousand channels, each holding a
 * message or two. */
struct channel {
	int32_t src, dst, type;
	uint32_t round;               /* the matcher's round when last found */
	struct queue sends, recvs;    /* dst BCAST_DST: sends are the broadcasts */
	union {
		uint64_t done;        /* broadcasts of (src, type) received on dst */
		struct bcast *b;      /* dst BCAST_DST: its broadcasts */
	} u;
};

/*
 * Channels moved to the spill file whole (evict): a run of entries sorted
 * by (src, dst, type), each a struct ehead then its sends then its
 * receives (of a spilled queue: the items in memory, its segments, its
 * tail), cut into blocks of about RUN_BLOCK bytes. In memory a run
 * keeps only the first key of each block, a Bloom filter of its keys and
 * a bit per entry that says it was taken back (lookup): about two bytes a
 * channel, where a channel in memory with its message or two takes some
 * 200.
 */
struct ehead {
	int32_t src, dst, type;
	uint32_t nsends;
	uint64_t done;                /* dst BCAST_DST: the base */
	uint32_t nrecvs, pad;         /* dst BCAST_DST: the number of dsts, and
					 1 if their ddone follow */
	uint32_t ssegs, stail;        /* a spilled queue of sends: segments
					 after its nsends items, then items */
	uint32_t rsegs, rtail;        /* the same of receives */
};

/* The bytes of a queue in an entry: items, segments, items. */
static size_t part_bytes(uint32_t nv, uint32_t nseg, uint32_t ntail)
{
	return ((size_t)nv + ntail) * sizeof(struct item) + (size_t)nseg * sizeof(struct segment);
}

/* The bytes of a broadcast entry's destinations. (Entries are read back
 * with memcpy: nothing in them needs aligning.) */
static size_t dsts_bytes(const struct ehead *h)
{
	return (size_t)h->nrecvs * sizeof(int32_t);
}

/* The bytes after an entry's head: its sends and receives, or, for a
 * broadcast channel (whose broadcasts are all in memory when it moves
 * out), its broadcasts, its destinations, and their ddone if it has one
 * (pad 1). */
static size_t entry_body(const struct ehead *h)
{
	if (h->dst == BCAST_DST)
		return (size_t)h->nsends * sizeof(struct item) + dsts_bytes(h) +
		       (h->pad ? (size_t)h->nrecvs * sizeof(uint64_t) : 0);
	return part_bytes(h->nsends, h->ssegs, h->stail) + part_bytes(h->nrecvs, h->rsegs, h->rtail);
}

struct rblock {
	int32_t src, dst, type;       /* the key of its first entry */
	uint64_t off;                 /* where it starts in the spill file */
	uint64_t first;               /* its first entry's number in the run */
};

struct run {
	struct rblock *blk;
	size_t nblk;
	uint64_t end;                 /* where its last block ends */
	uint64_t nent, nlive;         /* entries, and those not taken back */
	uint64_t *bloom, bmask;       /* bmask + 1 bits */
	uint64_t *gone;               /* bit e: entry e was taken back */
	size_t counted;               /* bytes of these in the matcher's `extra` */
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
	size_t detail;                /* missing receivers of a broadcast
					 reported one by one, at most */
	int in_header;                /* no record past the header added yet */
	int32_t *hdr;                 /* the header's -307 ids so far */
	size_t nhdr, hdrcap;
	struct reqstate *req;         /* in order of first appearance */
	size_t reqcap, nreq;
	struct intmap req_of;         /* (processor, process) -> req index */
	uint64_t seq, matched, pending_recvs, pending;
	size_t limit;                 /* items kept in memory at most (0: all) */
	size_t inmem, next_check;     /* items in memory; spill past next_check */
	uint32_t round;               /* spill_some calls so far */
	size_t extra;                 /* bytes besides items and channels: the
					 broadcast channels' lists, the spilled
					 queues' segment lists, the runs' indexes */
	char *tmpdir;                 /* where the spill file goes (NULL: default) */
	int fd;                       /* the spill file, once made (else -1) */
	uint64_t spill_end;           /* its size */
	struct run *runs;             /* oldest first */
	size_t nruns, runcap;
	int code;                     /* the last failure (fail) */
	char *rbuf;                   /* a block read back: the bytes */
	size_t rbufcap;               /* [rbuf_off, + rbuf_len) of the file, */
	uint64_t rbuf_off, rbuf_len;  /* which never change once in a run */
	char err[320];                /* what went wrong last */
	const struct picl_defs *defs; /* processor subsets, for multicasts */
	int32_t *mc;                  /* a multicast's members, sorted */
	size_t mccap;
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
/* Enter every channel into the empty table of ncap slots at slot. */
static void slots_fill(const struct picl_matcher *m, uint32_t *slot, size_t ncap)
{
	size_t i, k;

	for (i = 0; i < m->nused; i++) {
		const struct channel *c = &m->ch[i];

		for (k = chash(c->src, c->dst, c->type) & (ncap - 1); slot[k];
		     k = (k + 1) & (ncap - 1))
			;
		slot[k] = (uint32_t)(i + 1);
	}
}

static struct channel *find(struct picl_matcher *m, int32_t src, int32_t dst,
			    int32_t type, int create)
{
	struct channel *c;
	size_t i;

	if (m->ncap == 0 || (create && (m->nused + 1) * 2 > m->ncap)) {
		size_t ncap = m->ncap ? m->ncap * 2 : 64;
		uint32_t *n;

		if (!create && m->ncap == 0)
			return NULL;
		if (ncap > (size_t)UINT32_MAX || !(n = calloc(ncap, sizeof(*n))))
			return NULL;
		slots_fill(m, n, ncap);
		free(m->slot);
		m->slot = n;
		m->ncap = ncap;
	}
	for (i = chash(src, dst, type) & (m->ncap - 1); m->slot[i]; i = (i + 1) & (m->ncap - 1)) {
		c = &m->ch[m->slot[i] - 1];
		if (c->src == src && c->dst == dst && c->type == type) {
			c->round = m->round;
			return c;
		}
	}
	if (!create || grow((void **)&m->ch, &m->chcap, m->nused + 1, sizeof(*m->ch)) < 0)
		return NULL;
	c = &m->ch[m->nused];
	memset(c, 0, sizeof(*c));
	c->src = src;
	c->dst = dst;
	c->type = type;
	c->round = m->round;
	m->slot[i] = (uint32_t)++m->nused;
	return c;
}

static struct channel *lookup(struct picl_matcher *m, int32_t src, int32_t dst, int32_t type,
			      int create, int *rc);

static int bcast_base(struct picl_matcher *m, int32_t src, int32_t type, uint64_t *base);
static void bcast_free(struct bcast *b);
static void queue_free(struct queue *q);

/* The bytes of b and its lists of destinations (not its chunks', which
 * seg_append counts): a broadcast channel with hundreds of receivers
 * takes kilobytes. */
static size_t bcast_bytes(const struct bcast *b)
{
	return sizeof(*b) + b->dstcap * (sizeof(*b->dsts) + (b->ddone ? sizeof(*b->ddone) : 0)) +
	       (b->dsts_of ? sizeof(*b->dsts_of) + b->dsts_of->cap * sizeof(*b->dsts_of->slots)
			   : 0);
}

/* Count b in m->extra as it is now (after a change). */
static void bcast_counted(struct picl_matcher *m, struct bcast *b)
{
	size_t now = bcast_bytes(b);

	m->extra = m->extra - b->counted + now;
	b->counted = now;
}

/* Free b, and stop counting it (and its chunks' list). */
static void bcast_release(struct picl_matcher *m, struct bcast *b)
{
	if (b)
		m->extra -= b->counted + b->ck.cap * sizeof(*b->ck.v);
	bcast_free(b);
}

/* The broadcast channel of (src, type), taken back from the runs or made
 * if need be (NULL on failure; pointers into m->ch do not hold across). */
static struct channel *bcast_get(struct picl_matcher *m, int32_t src, int32_t type)
{
	int rc;
	struct channel *c = lookup(m, src, BCAST_DST, type, 1, &rc);

	if (c && !c->u.b) {
		if (!(c->u.b = calloc(1, sizeof(*c->u.b))))
			return NULL; /* left empty: bcast_find passes it by */
		bcast_counted(m, c->u.b);
	}
	return c;
}

/* The broadcast channel of (src, type) if it is in memory, or NULL. One
 * in the runs has no broadcast waiting: bcast_base gives its base. */
static struct channel *bcast_find(struct picl_matcher *m, int32_t src, int32_t type)
{
	struct channel *c = find(m, src, BCAST_DST, type, 0);

	return c && c->u.b ? c : NULL;
}

/* Where dst is in b's dsts, or SIZE_MAX. */
static size_t dst_index(const struct bcast *b, int32_t dst)
{
	size_t i;

	if (b->dsts_of)
		return intmap_get(b->dsts_of, (uint64_t)(uint32_t)dst, &i) ? i : SIZE_MAX;
	for (i = 0; i < b->ndsts; i++)
		if (b->dsts[i] == dst)
			return i;
	return SIZE_MAX;
}

/* Keep done as the count of broadcasts dst has had, for its channel made
 * again. 0, or -1 when there is no room. */
static int keep_done(struct bcast *b, int32_t dst, uint64_t done)
{
	size_t i = dst_index(b, dst);

	if (i == SIZE_MAX)
		return -1;
	if (!b->ddone) {
		if (!done)
			return 0;
		if (!(b->ddone = calloc(b->dstcap, sizeof(*b->ddone))))
			return -1;
	}
	b->ddone[i] = done;
	return 0;
}

/*
 * Forget channel c (src, dst, type) once nothing in it waits and it holds
 * nothing a later record needs: a trace has a channel per (source,
 * destination, type), and one that makes up types as it goes (a step
 * number in the type) has millions of them; kept, they make a table far
 * larger than the caches, and every look-up a miss (`picltrace stat` spent
 * an eighth of its time there). A channel made again starts as this one
 * ends: empty, with the broadcasts it had counted (kept in the broadcast
 * channel's ddone: without the processors declared, none is ever known
 * to be had by all, and a trace with broadcasts kept every channel that
 * had one), and still listed in dsts, where it keeps its place
 * (channel_get). Broadcast channels stay (in memory or in the runs).
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
		struct channel *b = bcast_find(m, c->src, c->type);
		uint64_t base;

		/* the count goes to the broadcast channel's list, if it is in
		 * memory and has room; else the channel stays */
		if (b ? keep_done(b->u.b, c->dst, c->u.done) < 0
		      : !bcast_base(m, c->src, c->type, &base) || c->u.done > base)
			return;
		if (b)
			bcast_counted(m, b->u.b);
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

/* Channel (src, dst, type), listed in b, made again after drop_idle:
 * with the broadcasts it had counted. */
static struct channel *remade(struct picl_matcher *m, const struct bcast *b, int32_t src,
			      int32_t dst, int32_t type)
{
	struct channel *c = find(m, src, dst, type, 1);

	if (c && b->ddone)
		c->u.done = b->ddone[dst_index(b, dst)];
	return c;
}

/* The channel, made if new; a new (src, dst, type) channel is listed in
 * (src, BCAST_DST, type), whose broadcasts it may receive. */
static struct channel *channel_get(struct picl_matcher *m, int32_t src, int32_t dst,
				   int32_t type)
{
	struct channel *c;
	struct bcast *b;
	size_t i;
	int rc;

	if ((c = lookup(m, src, dst, type, 0, &rc)) != NULL || rc < 0)
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
			return remade(m, b, src, dst, type);
	} else if (b->dsts_of) {
		if (intmap_get(b->dsts_of, (uint64_t)(uint32_t)dst, &i))
			return remade(m, b, src, dst, type);
	} else {
		for (i = b->ndsts; i > 0; i--)
			if (b->dsts[i - 1] == dst)
				return remade(m, b, src, dst, type);
	}
	if (b->ndsts == b->dstcap) {
		size_t ncap = b->dstcap ? b->dstcap * 2 : 4;
		int32_t *v = realloc(b->dsts, ncap * sizeof(*v));

		if (!v)
			return NULL;
		b->dsts = v;
		if (b->ddone) {
			uint64_t *d = realloc(b->ddone, ncap * sizeof(*d));

			if (!d)
				return NULL;
			b->ddone = d;
		}
		b->dstcap = ncap;
	}
	if (b->ddone)
		b->ddone[b->ndsts] = 0;
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
	bcast_counted(m, b);
	return find(m, src, dst, type, 1);
}

static int fail(struct picl_matcher *m, int code, const char *what)
{
	m->code = code;
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

/* Read len bytes at off of fd; -1 with errno (EIO when the file is
 * shorter) on failure. */
static int read_at(int fd, char *p, size_t len, uint64_t off)
{
	while (len) {
		ssize_t r = pread(fd, p, len, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = EIO;
			return -1;
		}
		p += r;
		off += (uint64_t)r;
		len -= (size_t)r;
	}
	return 0;
}

/* Give back to the file system the blocks of spill-file bytes [off, off +
 * len), read back for the last time: the file keeps its size, but what
 * waits no longer adds up to all that ever waited. Where holes cannot be
 * punched, the file just keeps them. */
static void spill_release(const struct picl_matcher *m, uint64_t off, uint64_t len)
{
#ifdef FALLOC_FL_PUNCH_HOLE
	if (len)
		(void)fallocate(m->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off,
				(off_t)len);
#else
	(void)m;
	(void)off;
	(void)len;
#endif
}

/* Write len bytes at off of fd, in place; -1 with errno on failure. */
static int write_at(int fd, const char *p, size_t len, uint64_t off)
{
	while (len) {
		ssize_t w = pwrite(fd, p, len, (off_t)off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		p += w;
		off += (uint64_t)w;
		len -= (size_t)w;
	}
	return 0;
}

/* Append len bytes at p to the spill file, made if need be. */
static int spill_append(struct picl_matcher *m, const void *p, size_t len)
{
	int rc;

	if (m->fd < 0 && (rc = spill_open(m)) < 0)
		return rc;
	if (len && picl_write_all(m->fd, p, len) < 0)
		return fail(m, PICL_ERR_IO, "cannot keep");
	m->spill_end += len;
	return PICL_OK;
}

/* Broadcasts of channel b not yet dropped, on disk and in memory. */
static uint64_t bcast_count(const struct channel *b)
{
	return b->u.b->ndisk + (b->sends.n - b->sends.head);
}

/*
 * Broadcast number k of b (base <= k < base + bcast_count): *it points at
 * it in memory, or at *tmp, read from the spill file, with *at its offset
 * there (UINT64_MAX for one in memory).
 */
static int bcast_at(struct picl_matcher *m, struct channel *b, uint64_t k, struct item *tmp,
		    struct item **it, uint64_t *at)
{
	struct bcast *bc = b->u.b;
	size_t lo = bc->ck.head, hi = bc->ck.n;
	const struct segment *g;

	if (k - bc->base >= bc->ndisk) {
		*it = &b->sends.v[b->sends.head + (k - bc->base - bc->ndisk)];
		*at = UINT64_MAX;
		return PICL_OK;
	}
	while (hi - lo > 1) {         /* the last chunk with first <= k */
		size_t mid = lo + (hi - lo) / 2;

		if (bc->ck.v[mid].first <= k)
			lo = mid;
		else
			hi = mid;
	}
	g = &bc->ck.v[lo];
	*at = g->off + (k - g->first) * sizeof(*tmp);
	if (read_at(m->fd, (char *)tmp, sizeof(*tmp), *at) < 0)
		return fail(m, PICL_ERR_IO, "cannot read back");
	*it = tmp;
	return PICL_OK;
}

/*
 * Past SEG_LIVE live segments in l, the last two become one while the
 * older holds at most twice the newer's items, copied to the end of the
 * file (the head segment, being read, never merges). A queue that waits
 * long is spilled a few items at a time, a segment each: its list grew
 * by 32 bytes per 8 items or so, without bound; now it keeps a few dozen
 * segments, as a binary counter keeps its digits, each item copied a few
 * times.
 */
static int seg_merge(struct picl_matcher *m, struct seglist *l)
{
	char *buf = NULL;
	int rc = PICL_OK;

	while (l->n - l->head > SEG_LIVE && l->v[l->n - 2].n <= 2 * l->v[l->n - 1].n) {
		struct segment *a = &l->v[l->n - 2];
		const struct segment *b = &l->v[l->n - 1];
		const uint64_t from[2] = { a->off, b->off };
		const uint64_t bytes[2] = { a->n * sizeof(struct item), b->n * sizeof(struct item) };
		uint64_t off = m->spill_end, done, k;
		int i;

		if (from[0] + bytes[0] == from[1]) {   /* side by side already */
			a->n += b->n;
			l->n--;
			continue;
		}
		if (!buf && !(buf = malloc(RUN_BUF))) {
			rc = fail(m, PICL_ERR_NOMEM, NULL);
			break;
		}
		for (i = 0; i < 2 && rc == PICL_OK; i++) {
			for (done = 0; done < bytes[i] && rc == PICL_OK; done += k) {
				k = bytes[i] - done < RUN_BUF ? bytes[i] - done : RUN_BUF;
				if (read_at(m->fd, buf, (size_t)k, from[i] + done) < 0)
					rc = fail(m, PICL_ERR_IO, "cannot read back");
				else
					rc = spill_append(m, buf, (size_t)k);
			}
		}
		if (rc < 0)
			break;
		spill_release(m, from[0], bytes[0]);
		spill_release(m, from[1], bytes[1]);
		a->off = off;
		a->n += b->n;
		l->n--;
	}
	free(buf);
	return rc;
}

/* Write the n items at v to the end of the spill file, as a new last
 * segment of l (numbered from first). The file is only ever written at
 * its end (read back with pread, which leaves the offset alone), so a
 * plain write appends. */
static int seg_append(struct picl_matcher *m, struct seglist *l, const struct item *v,
		      size_t n, uint64_t first)
{
	struct segment *g;
	uint64_t off = m->spill_end;
	size_t cap = l->cap;
	int rc;

	if (l->head > 0 && l->head * 2 >= l->n) {
		/* the segments read back give their room */
		memmove(l->v, l->v + l->head, (l->n - l->head) * sizeof(*l->v));
		l->n -= l->head;
		l->head = 0;
	}
	if (grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v)) < 0)
		return fail(m, PICL_ERR_NOMEM, NULL);
	m->extra += (l->cap - cap) * sizeof(*l->v);
	if ((rc = spill_append(m, v, n * sizeof(*v))) < 0)
		return rc;
	g = &l->v[l->n++];
	g->off = off;
	g->n = n;
	g->first = first;
	g->kept = 0;
	return seg_merge(m, l);
}

/* k items at the front of l's first segment were read for the last time:
 * it moves past them, given back a megabyte at a time (a call per read
 * cost more), and is dropped once empty. */
static void seg_consumed(struct picl_matcher *m, struct seglist *l, uint64_t k)
{
	struct segment *g = &l->v[l->head];

	g->off += k * sizeof(struct item);
	g->kept += k * sizeof(struct item);
	g->first += k;
	g->n -= k;
	if (g->kept >= RELEASE_MIN || g->n == 0) {
		spill_release(m, g->off - g->kept, g->kept);
		g->kept = 0;
	}
	if (g->n == 0)
		l->head++;
}

/* The broadcasts of b in memory go to the end of the spill file, as a new
 * chunk: without the processors declared, a broadcast waits until the end
 * (a processor met later may still receive it). */
static int bcast_spill(struct picl_matcher *m, struct channel *b)
{
	struct bcast *bc = b->u.b;
	struct queue *q = &b->sends;
	size_t k = q->n - q->head;
	int rc;

	if (!bc || k < SPILL_MIN)
		return PICL_OK;
	if ((rc = seg_append(m, &bc->ck, q->v + q->head, k, bc->base + bc->ndisk)) < 0)
		return rc;
	bc->ndisk += k;
	free(q->v);
	q->v = NULL;
	q->head = q->n = q->cap = 0;
	m->inmem -= k;
	return PICL_OK;
}

/* Write the n items at v to the end of the spill file, as a new last
 * segment of q. */
static int spill_write(struct picl_matcher *m, struct queue *q, const struct item *v, size_t n)
{
	if (!q->sp) {
		if (!(q->sp = calloc(1, sizeof(*q->sp))))
			return fail(m, PICL_ERR_NOMEM, NULL);
		m->extra += sizeof(*q->sp);
	}
	return seg_append(m, &q->sp->seg, v, n, 0);
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

static int key_cmp(int32_t as, int32_t ad, int32_t at, int32_t bs, int32_t bd, int32_t bt)
{
	if (as != bs)
		return as < bs ? -1 : 1;
	if (ad != bd)
		return ad < bd ? -1 : 1;
	return at < bt ? -1 : at > bt;
}

/* The second hash of a key's Bloom bits (odd, so every bit is reached). */
static uint64_t bloom_step(uint64_t h)
{
	return (h >> 29 | h << 35) * 0x9e3779b97f4a7c15ULL | 1;
}

static void bloom_add(struct run *r, uint64_t h)
{
	uint64_t step = bloom_step(h);
	int k;

	for (k = 0; k < BLOOM_K; k++, h += step)
		r->bloom[(h & r->bmask) / 64] |= (uint64_t)1 << (h & 63);
}

static int bloom_has(const struct run *r, uint64_t h)
{
	uint64_t step = bloom_step(h);
	int k;

	for (k = 0; k < BLOOM_K; k++, h += step)
		if (!(r->bloom[(h & r->bmask) / 64] >> (h & 63) & 1))
			return 0;
	return 1;
}

/* A run's bytes in the spill file: [start, end). */
static uint64_t run_start(const struct run *r)
{
	return r->nblk ? r->blk[0].off : r->end;
}

static void run_free(struct picl_matcher *m, struct run *r)
{
	m->extra -= r->counted;
	free(r->blk);
	free(r->bloom);
	free(r->gone);
}

struct evictee {
	int32_t src, dst, type;
	uint32_t idx;
};

static int evictee_cmp(const void *a, const void *b)
{
	const struct evictee *x = a, *y = b;

	return key_cmp(x->src, x->dst, x->type, y->src, y->dst, y->type);
}

/* A channel that may move to disk whole: any but a broadcast one with
 * chunks there (a spilled queue's segments go with it, by reference). */
static int evictable(const struct channel *c)
{
	if (c->dst == BCAST_DST)
		return c->u.b && c->u.b->ndisk == 0;
	return 1;
}

/* How queue q goes into an entry: items in memory, segments, tail. */
static void queue_parts(const struct queue *q, uint32_t *nv, uint32_t *nseg, uint32_t *ntail)
{
	*nv = q->n - q->head;
	*nseg = q->sp ? (uint32_t)(q->sp->seg.n - q->sp->seg.head) : 0;
	*ntail = q->sp ? (uint32_t)q->sp->tn : 0;
}

static void bcast_free(struct bcast *b)
{
	if (!b)
		return;
	free(b->dsts);
	if (b->dsts_of) {
		intmap_free(b->dsts_of);
		free(b->dsts_of);
	}
	free(b->ck.v);
	free(b->ddone);
	free(b);
}

/* A run being written: entries go through buf to the end of the spill
 * file, blocks and the filter as they come. */
struct rbuild {
	struct run r;
	size_t blkcap, len;
	uint64_t pos, block_start;
	char *buf;
};

/* Start a run of at most n entries. */
static int build_start(struct picl_matcher *m, struct rbuild *b, uint64_t n)
{
	uint64_t nbits = 64;

	memset(b, 0, sizeof(*b));
	while (nbits < n * 10)
		nbits *= 2;
	b->r.bmask = nbits - 1;
	b->r.bloom = calloc(nbits / 64, sizeof(*b->r.bloom));
	b->r.gone = calloc((n + 63) / 64, sizeof(*b->r.gone));
	b->buf = malloc(RUN_BUF);
	b->pos = m->spill_end;
	if (!b->r.bloom || !b->r.gone || !b->buf)
		return fail(m, PICL_ERR_NOMEM, NULL);
	return PICL_OK;
}

static int build_flush(struct picl_matcher *m, struct rbuild *b)
{
	int rc = spill_append(m, b->buf, b->len);

	b->len = 0;
	return rc;
}

static int build_put(struct picl_matcher *m, struct rbuild *b, const void *p, size_t n)
{
	while (n) {
		size_t k = RUN_BUF - b->len < n ? RUN_BUF - b->len : n;
		int rc;

		memcpy(b->buf + b->len, p, k);
		b->len += k;
		p = (const char *)p + k;
		n -= k;
		if (b->len == RUN_BUF && (rc = build_flush(m, b)) < 0)
			return rc;
	}
	return PICL_OK;
}

/* Start an entry with its head; the caller then puts its entry_body(h)
 * bytes (build_put). Keys come in increasing order. */
static int build_entry(struct picl_matcher *m, struct rbuild *b, const struct ehead *h)
{
	int rc;

	if (b->r.nent == 0 || b->pos - b->block_start >= RUN_BLOCK) {
		struct rblock *blk;

		if (grow((void **)&b->r.blk, &b->blkcap, b->r.nblk + 1, sizeof(*b->r.blk)) < 0)
			return fail(m, PICL_ERR_NOMEM, NULL);
		blk = &b->r.blk[b->r.nblk++];
		blk->src = h->src;
		blk->dst = h->dst;
		blk->type = h->type;
		blk->off = b->pos;
		blk->first = b->r.nent;
		b->block_start = b->pos;
	}
	if ((rc = build_put(m, b, h, sizeof(*h))) < 0)
		return rc;
	b->pos += sizeof(*h) + entry_body(h);
	bloom_add(&b->r, chash(h->src, h->dst, h->type));
	if (h->dst == BCAST_DST && h->nsends)
		bloom_add(&b->r, chash(h->src, BCAST_HELD, h->type));
	b->r.nent++;
	return PICL_OK;
}

/* The run written, in *r (its memory now r's), or an error. */
static int build_finish(struct picl_matcher *m, struct rbuild *b, struct run *r)
{
	int rc = build_flush(m, b);

	free(b->buf);
	b->buf = NULL;
	if (rc < 0)
		return rc;
	b->r.nlive = b->r.nent;
	b->r.end = b->pos;
	b->r.counted = b->blkcap * sizeof(*b->r.blk) + (b->r.bmask + 1) / 8 +
		       (b->r.nent + 63) / 64 * sizeof(*b->r.gone);
	m->extra += b->r.counted;
	*r = b->r;
	memset(&b->r, 0, sizeof(b->r));
	return PICL_OK;
}

static void build_abort(struct picl_matcher *m, struct rbuild *b)
{
	run_free(m, &b->r);
	free(b->buf);
}

/* Reading a run's entries in order, a block at a time. */
struct rread {
	const struct run *r;
	size_t blk;                   /* the next block to read */
	char *buf;
	size_t cap, len, pos;         /* buf[pos .. len) is still to go */
	uint64_t ent;                 /* the number of the entry at pos */
};

/* The next entry of the run not taken back: 1 with *h and *items (valid
 * until the next call), 0 at the end, or an error. */
static int rread_next(struct picl_matcher *m, struct rread *rd, struct ehead *h,
		      const char **items)
{
	for (;;) {
		size_t size;

		if (rd->pos + sizeof(*h) > rd->len) {
			uint64_t start, end;

			if (rd->blk == rd->r->nblk)
				return 0;
			start = rd->r->blk[rd->blk].off;
			end = rd->blk + 1 < rd->r->nblk ? rd->r->blk[rd->blk + 1].off : rd->r->end;
			rd->ent = rd->r->blk[rd->blk].first;
			rd->len = (size_t)(end - start);
			rd->pos = 0;
			rd->blk++;
			if (grow((void **)&rd->buf, &rd->cap, rd->len, 1) < 0)
				return fail(m, PICL_ERR_NOMEM, NULL);
			if (read_at(m->fd, rd->buf, rd->len, start) < 0)
				return fail(m, PICL_ERR_IO, "cannot read back");
			continue;
		}
		memcpy(h, rd->buf + rd->pos, sizeof(*h));
		size = sizeof(*h) + entry_body(h);
		*items = rd->buf + rd->pos + sizeof(*h);
		rd->pos += size;
		if (!(rd->r->gone[rd->ent / 64] >> (rd->ent % 64) & 1)) {
			rd->ent++;
			return 1;
		}
		rd->ent++;
	}
}

/*
 * Merge the two newest runs into one while the newer is at least half the
 * size of the one before it: the runs then shrink geometrically from the
 * oldest, so a look-up tries a logarithmic number of filters however
 * often channels move out. A key is live in one run at most, so the merge
 * only interleaves. The two runs' bytes are then given back
 * (spill_release), as are those of a run all taken back, and of spilled
 * items once read back: the file holds about what still waits.
 */
static int merge_runs(struct picl_matcher *m)
{
	while (m->nruns >= 2 &&
	       m->runs[m->nruns - 1].nlive * 2 >= m->runs[m->nruns - 2].nlive) {
		struct run *a = &m->runs[m->nruns - 2], *z = &m->runs[m->nruns - 1], out;
		struct rread ra = { a, 0, NULL, 0, 0, 0, 0 }, rz = { z, 0, NULL, 0, 0, 0, 0 };
		struct ehead ha, hz;
		const char *ia = NULL, *iz = NULL;
		struct rbuild b;
		int rc, ga, gz;

		rc = build_start(m, &b, a->nlive + z->nlive);
		ga = rc < 0 ? rc : rread_next(m, &ra, &ha, &ia);
		gz = ga < 0 ? ga : rread_next(m, &rz, &hz, &iz);
		while (gz >= 0 && ga >= 0 && (ga || gz)) {
			int from_a = ga && (!gz || key_cmp(ha.src, ha.dst, ha.type, hz.src, hz.dst,
							  hz.type) < 0);
			const struct ehead *h = from_a ? &ha : &hz;
			const char *it = from_a ? ia : iz;

			if ((rc = build_entry(m, &b, h)) < 0 ||
			    (rc = build_put(m, &b, it, entry_body(h))) < 0)
				break;
			if (from_a)
				ga = rread_next(m, &ra, &ha, &ia);
			else
				gz = rread_next(m, &rz, &hz, &iz);
		}
		if (rc >= 0 && (ga < 0 || gz < 0))
			rc = ga < 0 ? ga : gz;
		if (rc >= 0)
			rc = build_finish(m, &b, &out);
		build_abort(m, &b);
		free(ra.buf);
		free(rz.buf);
		if (rc < 0)
			return rc;
		spill_release(m, run_start(a), a->end - run_start(a));
		spill_release(m, run_start(z), z->end - run_start(z));
		run_free(m, a);
		run_free(m, z);
		*a = out;
		m->nruns--;
	}
	return PICL_OK;
}

/* Put queue q into the entry being built: its items in memory, then,
 * spilled, its segments (where they are) and its tail. */
static int put_queue(struct picl_matcher *m, struct rbuild *b, const struct queue *q)
{
	int rc;

	if (q->n > q->head &&
	    (rc = build_put(m, b, q->v + q->head, (size_t)(q->n - q->head) * sizeof(*q->v))) < 0)
		return rc;
	if (!q->sp)
		return PICL_OK;
	if (q->sp->seg.n > q->sp->seg.head &&
	    (rc = build_put(m, b, q->sp->seg.v + q->sp->seg.head,
			    (q->sp->seg.n - q->sp->seg.head) * sizeof(*q->sp->seg.v))) < 0)
		return rc;
	if (q->sp->tn && (rc = build_put(m, b, q->sp->t, q->sp->tn * sizeof(*q->sp->t))) < 0)
		return rc;
	return PICL_OK;
}

/* Queue q of a channel moved out: what it held in memory goes. */
static void queue_dropped(struct picl_matcher *m, struct queue *q)
{
	m->inmem -= q->n - q->head;
	if (q->sp) {
		m->inmem -= q->sp->tn;
		m->extra -= sizeof(*q->sp) + q->sp->seg.cap * sizeof(*q->sp->seg.v);
	}
	queue_free(q);
}

/* Whether evict(m, idle) moves c: with `idle`, only one not found since
 * the last spill_some (the others are likely to be wanted again soon). */
static int evicting(const struct picl_matcher *m, const struct channel *c, int idle)
{
	return evictable(c) && (!idle || c->round != m->round);
}

/*
 * Spilling queues was not enough: there are many channels, each holding a
 * message or two (a trace that makes up a message type per step, written
 * processor after processor), or many spilled queues. Move every channel
 * that can go (evicting) to the spill file as a new run, and out of
 * memory. Pointers into m->ch do not hold across this.
 */
static int evict(struct picl_matcher *m, int idle)
{
	struct evictee *e;
	struct rbuild b;
	size_t n = 0, i, j, ncap;
	int rc = PICL_OK;

	for (i = 0; i < m->nused; i++)
		n += (size_t)evicting(m, &m->ch[i], idle);
	if (n == 0)
		return PICL_OK;
	if (grow((void **)&m->runs, &m->runcap, m->nruns + 1, sizeof(*m->runs)) < 0)
		return fail(m, PICL_ERR_NOMEM, NULL);
	if (!(e = malloc(n * sizeof(*e))))
		return fail(m, PICL_ERR_NOMEM, NULL);
	for (i = j = 0; i < m->nused; i++) {
		const struct channel *c = &m->ch[i];

		if (evicting(m, c, idle)) {
			e[j].src = c->src;
			e[j].dst = c->dst;
			e[j].type = c->type;
			e[j++].idx = (uint32_t)i;
		}
	}
	qsort(e, n, sizeof(*e), evictee_cmp);
	rc = build_start(m, &b, n);
	for (i = 0; i < n && rc >= 0; i++) {
		const struct channel *c = &m->ch[e[i].idx];
		const struct bcast *bc = c->dst == BCAST_DST ? c->u.b : NULL;
		struct ehead h;

		memset(&h, 0, sizeof(h));
		h.src = c->src;
		h.dst = c->dst;
		h.type = c->type;
		if (bc) {
			h.nsends = c->sends.n - c->sends.head;
			h.nrecvs = (uint32_t)bc->ndsts;
			h.done = bc->base;
			h.pad = bc->ddone != NULL;
		} else {
			queue_parts(&c->sends, &h.nsends, &h.ssegs, &h.stail);
			queue_parts(&c->recvs, &h.nrecvs, &h.rsegs, &h.rtail);
			h.done = c->u.done;
		}
		/* the sends, then the receives; or the broadcasts, then the
		 * broadcast channel's destinations and their counts */
		if ((rc = build_entry(m, &b, &h)) < 0)
			break;
		if (!bc) {
			if ((rc = put_queue(m, &b, &c->sends)) >= 0)
				rc = put_queue(m, &b, &c->recvs);
		} else if ((h.nsends && (rc = build_put(m, &b, c->sends.v + c->sends.head,
							 h.nsends * sizeof(struct item))) < 0) ||
			   (rc = build_put(m, &b, bc->dsts, dsts_bytes(&h))) < 0) {
			break;
		} else if (bc->ddone) {
			rc = build_put(m, &b, bc->ddone, bc->ndsts * sizeof(*bc->ddone));
		}
	}
	free(e);
	if (rc >= 0)
		rc = build_finish(m, &b, &m->runs[m->nruns]);
	build_abort(m, &b);
	if (rc < 0)
		return rc;
	m->nruns++;

	/* The channels left close up, and the table is made anew. */
	for (i = j = 0; i < m->nused; i++) {
		struct channel *c = &m->ch[i];

		if (evicting(m, c, idle)) {
			queue_dropped(m, &c->sends);
			queue_dropped(m, &c->recvs);
			if (c->dst == BCAST_DST)
				bcast_release(m, c->u.b);
		} else {
			m->ch[j++] = *c;
		}
	}
	m->nused = j;
	for (ncap = 64; ncap < 2 * (m->nused + 1); ncap *= 2)
		;
	if (ncap < m->ncap) {
		uint32_t *v = calloc(ncap, sizeof(*v));

		if (v) {
			free(m->slot);
			m->slot = v;
			m->ncap = ncap;
		}
	}
	/* the old table, if no smaller one could be had */
	memset(m->slot, 0, m->ncap * sizeof(*m->slot));
	slots_fill(m, m->slot, m->ncap);
	if (m->chcap > 2 * m->nused + 64) {
		struct channel *v = realloc(m->ch, (m->nused + 64) * sizeof(*v));

		if (v) {
			m->ch = v;
			m->chcap = m->nused + 64;
		}
	}
	return merge_runs(m);
}

/*
 * Look for channel (src, dst, type) in the runs, newest first. A channel
 * is live in one run at most (taken back before it is moved out again),
 * so the first entry with its key decides. 1 with *h and *items (in
 * m->rbuf), *run and *ent filled when it is there and not taken back; 0
 * if not; PICL_ERR_IO if a block could not be read.
 */
static int run_find(struct picl_matcher *m, int32_t src, int32_t dst, int32_t type,
		    struct ehead *h, const char **items, size_t *run, uint64_t *ent)
{
	uint64_t hash = chash(src, dst, type);
	size_t ri;

	for (ri = m->nruns; ri-- > 0;) {
		struct run *r = &m->runs[ri];
		size_t lo = 0, hi = r->nblk, len, p;
		uint64_t e, start, end;

		if (!bloom_has(r, hash))
			continue;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			const struct rblock *b = &r->blk[mid];

			if (key_cmp(b->src, b->dst, b->type, src, dst, type) <= 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == 0)
			continue;
		start = r->blk[lo - 1].off;
		end = lo < r->nblk ? r->blk[lo].off : r->end;
		len = (size_t)(end - start);
		/* (channels used in turn are looked up in key order: often
		 * in the block read last) */
		if (m->rbuf_len != len || m->rbuf_off != start) {
			m->rbuf_len = 0;
			if (grow((void **)&m->rbuf, &m->rbufcap, len, 1) < 0)
				return fail(m, PICL_ERR_NOMEM, NULL);
			if (read_at(m->fd, m->rbuf, len, start) < 0)
				return fail(m, PICL_ERR_IO, "cannot read back");
			m->rbuf_off = start;
			m->rbuf_len = len;
		}
		for (p = 0, e = r->blk[lo - 1].first; p + sizeof(*h) <= len; e++) {
			int cmp;

			memcpy(h, m->rbuf + p, sizeof(*h));
			cmp = key_cmp(h->src, h->dst, h->type, src, dst, type);
			if (cmp > 0)
				break;
			if (cmp == 0) {
				if (r->gone[e / 64] >> (e % 64) & 1)
					return 0;
				*items = m->rbuf + p + sizeof(*h);
				*run = ri;
				*ent = e;
				return 1;
			}
			p += sizeof(*h) + entry_body(h);
		}
	}
	return 0;
}

/* 0 if no run holds (src, dst, type), as their filters say; 1 if one may.
 * With dst BCAST_HELD: a broadcast channel with broadcasts. */
static int runs_may_hold(const struct picl_matcher *m, int32_t src, int32_t dst, int32_t type)
{
	uint64_t hash = chash(src, dst, type);
	size_t i;

	for (i = 0; i < m->nruns; i++)
		if (bloom_has(&m->runs[i], hash))
			return 1;
	return 0;
}

/* A queue as an entry holds it at *p (nv items, nseg segments, ntail
 * items), *p moved past it; -1 when out of memory (q then holds what
 * queue_free frees). Without segments the tail joins the items. */
static int queue_from(struct queue *q, const char **p, uint32_t nv, uint32_t nseg,
		      uint32_t ntail)
{
	size_t n = (size_t)nv + (nseg ? 0 : ntail);

	memset(q, 0, sizeof(*q));
	if (n && !(q->v = malloc(n * sizeof(*q->v))))
		return -1;
	if (nv)
		memcpy(q->v, *p, (size_t)nv * sizeof(*q->v));
	*p += (size_t)nv * sizeof(*q->v);
	q->n = q->cap = (uint32_t)n;
	if (nseg) {
		if (!(q->sp = calloc(1, sizeof(*q->sp))) ||
		    !(q->sp->seg.v = malloc(nseg * sizeof(*q->sp->seg.v))) ||
		    (ntail && !(q->sp->t = malloc(ntail * sizeof(*q->sp->t)))))
			return -1;
		memcpy(q->sp->seg.v, *p, nseg * sizeof(*q->sp->seg.v));
		*p += nseg * sizeof(*q->sp->seg.v);
		q->sp->seg.n = q->sp->seg.cap = nseg;
		if (ntail)
			memcpy(q->sp->t, *p, (size_t)ntail * sizeof(*q->sp->t));
		q->sp->tn = q->sp->tcap = ntail;
	} else if (ntail) {
		memcpy(q->v + nv, *p, (size_t)ntail * sizeof(*q->v));
	}
	*p += (size_t)ntail * sizeof(*q->v);
	return 0;
}

/* Queue `from` (queue_from) becomes q, counted. */
static void queue_taken(struct picl_matcher *m, struct queue *q, struct queue *from)
{
	*q = *from;
	memset(from, 0, sizeof(*from));
	m->inmem += q->n - q->head;
	if (q->sp) {
		m->inmem += q->sp->tn;
		m->extra += sizeof(*q->sp) + q->sp->seg.cap * sizeof(*q->sp->seg.v);
	}
}

/*
 * The channel (src, dst, type): in memory, else taken back from the runs
 * (its entry marked, and the run dropped once all of them are), else made
 * if `create`. NULL with *rc 0 when it is not there; NULL with *rc < 0 on
 * failure. Pointers into m->ch do not hold across it.
 */
static struct channel *lookup(struct picl_matcher *m, int32_t src, int32_t dst, int32_t type,
			      int create, int *rc)
{
	struct channel *c = find(m, src, dst, type, 0);
	struct item *sends = NULL;
	struct queue qs, qr;
	struct bcast *b = NULL;
	struct ehead h;
	const char *items;
	size_t ri;
	uint64_t e;
	int found;

	*rc = PICL_OK;
	memset(&qs, 0, sizeof(qs));
	memset(&qr, 0, sizeof(qr));
	if (c || !m->nruns)
		goto make;
	if ((found = run_find(m, src, dst, type, &h, &items, &ri, &e)) < 0) {
		*rc = found;
		return NULL;
	}
	if (!found)
		goto make;
	/* Everything is had before the channel is made, so that a failure
	 * leaves the entry where it was and no channel in memory. */
	if (dst == BCAST_DST) {
		const char *d4 = items + (size_t)h.nsends * sizeof(struct item);
		size_t k;

		if (!(b = calloc(1, sizeof(*b))) ||
		    (h.nrecvs && !(b->dsts = malloc(h.nrecvs * sizeof(*b->dsts)))) ||
		    (h.nrecvs && h.pad && !(b->ddone = malloc(h.nrecvs * sizeof(*b->ddone)))) ||
		    (h.nsends && !(sends = malloc(h.nsends * sizeof(*sends)))))
			goto nomem;
		b->base = h.done;
		b->ndsts = b->dstcap = h.nrecvs;
		if (h.nrecvs)
			memcpy(b->dsts, d4, h.nrecvs * sizeof(*b->dsts));
		if (b->ddone)
			memcpy(b->ddone, d4 + dsts_bytes(&h), h.nrecvs * sizeof(*b->ddone));

		for (k = 0; k < b->ndsts; k++) {
			int32_t d = b->dsts[k];

			if (d >= 0 && d < 64)
				b->dst_bits |= (uint64_t)1 << d;
		}
		if (b->ndsts > DSTS_SCAN) {
			if (!(b->dsts_of = calloc(1, sizeof(*b->dsts_of))))
				goto nomem;
			for (k = 0; k < b->ndsts; k++)
				if (intmap_put(b->dsts_of, (uint64_t)(uint32_t)b->dsts[k], k) < 0)
					goto nomem;
		}
	} else {
		const char *p = items;

		if (queue_from(&qs, &p, h.nsends, h.ssegs, h.stail) < 0 ||
		    queue_from(&qr, &p, h.nrecvs, h.rsegs, h.rtail) < 0)
			goto nomem;
	}
	if (!(c = find(m, src, dst, type, 1)))
		goto nomem;
	if (dst == BCAST_DST) {
		if (h.nsends)
			memcpy(sends, items, h.nsends * sizeof(*sends));
		c->sends.v = sends;
		c->sends.n = c->sends.cap = h.nsends;
		m->inmem += h.nsends;
		c->u.b = b;
		bcast_counted(m, b);
	} else {
		c->u.done = h.done;
		queue_taken(m, &c->sends, &qs);
		queue_taken(m, &c->recvs, &qr);
	}
	m->runs[ri].gone[e / 64] |= (uint64_t)1 << (e % 64);
	if (--m->runs[ri].nlive == 0) {
		spill_release(m, run_start(&m->runs[ri]), m->runs[ri].end - run_start(&m->runs[ri]));
		run_free(m, &m->runs[ri]);
		memmove(m->runs + ri, m->runs + ri + 1, (m->nruns - ri - 1) * sizeof(*m->runs));
		m->nruns--;
	}
	return c;
make:
	if (!c && create && !(c = find(m, src, dst, type, 1)))
		*rc = fail(m, PICL_ERR_NOMEM, NULL);
	return c;
nomem:
	bcast_free(b);
	free(sends);
	queue_free(&qs);
	queue_free(&qr);
	*rc = fail(m, PICL_ERR_NOMEM, NULL);
	return NULL;
}

/* The base of the broadcast channel of (src, type), wherever it is: 1
 * with *base, or 0 if there is none (or it could not be read). */
static int bcast_base(struct picl_matcher *m, int32_t src, int32_t type, uint64_t *base)
{
	const struct channel *c = find(m, src, BCAST_DST, type, 0);
	struct ehead h;
	const char *items;
	size_t ri;
	uint64_t e;

	if (c) {
		*base = c->u.b ? c->u.b->base : 0;
		return c->u.b != NULL;
	}
	if (!m->nruns || run_find(m, src, BCAST_DST, type, &h, &items, &ri, &e) != 1)
		return 0;
	*base = h.done;
	return 1;
}

/* Broadcasts of (src, type) that dst has had: u.done of its channel,
 * wherever that is (0 if none). */
static int done_of(struct picl_matcher *m, int32_t src, int32_t dst, int32_t type,
		   uint64_t *done)
{
	const struct channel *c = find(m, src, dst, type, 0);
	struct ehead h;
	const char *items;
	size_t ri;
	uint64_t e;
	int found;

	*done = 0;
	if (c) {
		*done = c->u.done;
		return PICL_OK;
	}
	if (m->nruns) {
		if ((found = run_find(m, src, dst, type, &h, &items, &ri, &e)) < 0)
			return found;
		if (found) {
			*done = h.done;
			return PICL_OK;
		}
	}
	/* dropped: its count is in its broadcast channel's list */
	if ((c = bcast_find(m, src, type)) != NULL) {
		if (c->u.b->ddone && (ri = dst_index(c->u.b, dst)) != SIZE_MAX)
			*done = c->u.b->ddone[ri];
		return PICL_OK;
	}
	if (m->nruns && (found = run_find(m, src, BCAST_DST, type, &h, &items, &ri, &e)) != 0) {
		const char *d4;
		uint32_t i;
		int32_t d;

		if (found < 0)
			return found;
		d4 = items + (size_t)h.nsends * sizeof(struct item);
		for (i = 0; h.pad && i < h.nrecvs; i++) {
			memcpy(&d, d4 + i * sizeof(d), sizeof(d));
			if (d == dst) {
				memcpy(done, d4 + dsts_bytes(&h) + i * sizeof(*done), sizeof(*done));
				break;
			}
		}
	}
	return PICL_OK;
}

/* What the matcher holds, in items: the items, the channels (about an
 * item's size each), and the rest of what it keeps, in bytes. */
static size_t in_use(const struct picl_matcher *m)
{
	return m->inmem + m->nused + m->extra / sizeof(struct item);
}

#ifdef PICL_MATCH_SELFCHECK
/* In the tests' and the fuzzers' builds: m->extra, kept up as things
 * change, must be what counting them all again gives. */
static void extra_check(const struct picl_matcher *m)
{
	size_t n = 0, i, k;

	for (i = 0; i < m->nused; i++) {
		const struct channel *c = &m->ch[i];
		const struct queue *q[2] = { &c->sends, &c->recvs };

		if (c->dst == BCAST_DST && c->u.b) {
			if (c->u.b->counted != bcast_bytes(c->u.b))
				abort();
			n += c->u.b->counted + c->u.b->ck.cap * sizeof(struct segment);
		}
		for (k = 0; k < 2; k++)
			if (q[k]->sp)
				n += sizeof(struct spill) + q[k]->sp->seg.cap * sizeof(struct segment);
	}
	for (i = 0; i < m->nruns; i++)
		n += m->runs[i].counted;
	if (n != m->extra)
		abort();
}
#else
#define extra_check(m) ((void)0)
#endif

/* Past the limit: spill queues, in table order, until half of it is left;
 * if that is not enough (short queues stay), move the channels out whole,
 * spilled ones with their heads, tails and lists of segments. Broadcast
 * channels with chunks stay, so even that may not be enough; the next
 * attempt then waits until memory has grown by half the limit, or by an
 * eighth of the channels if that is more, so that a scan of the table
 * costs at most eight channels a record. (Waiting until memory had grown
 * by half of itself let what cannot move set the pace.) Pointers into
 * m->ch do not hold across it. */
static int spill_some(struct picl_matcher *m)
{
	size_t i, used;
	int rc;

	extra_check(m);
	for (i = 0; i < m->nused && in_use(m) > m->limit / 2; i++) {
		struct channel *c = &m->ch[i];

		if (c->dst == BCAST_DST)
			rc = bcast_spill(m, c);
		else if ((rc = spill_queue(m, &c->sends)) >= 0)
			rc = spill_queue(m, &c->recvs);
		if (rc < 0)
			return rc;
	}
	/* first the channels not wanted lately, then all if need be */
	if (in_use(m) > m->limit / 2 && (rc = evict(m, 1)) < 0)
		return rc;
	if (in_use(m) > m->limit / 2 && (rc = evict(m, 0)) < 0)
		return rc;
	m->round++;
	extra_check(m);
	used = in_use(m);
	m->next_check = used > m->limit / 2
			? used + (m->limit / 2 > m->nused / 8 ? m->limit / 2 : m->nused / 8)
			: m->limit;
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
	m->inmem++;
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

	if (sp->seg.head < sp->seg.n) {
		const struct segment *g = &sp->seg.v[sp->seg.head];
		size_t k = g->n < SPILL_READ ? (size_t)g->n : SPILL_READ;

		if (!(q->v = malloc(k * sizeof(*q->v))))
			return fail(m, PICL_ERR_NOMEM, NULL);
		if (read_at(m->fd, (char *)q->v, k * sizeof(*q->v), g->off) < 0) {
			free(q->v);
			q->v = NULL;
			return fail(m, PICL_ERR_IO, "cannot read back");
		}
		seg_consumed(m, &sp->seg, k);
		q->n = q->cap = (uint32_t)k;
		m->inmem += k;
		if (sp->seg.head < sp->seg.n || sp->tn)
			return PICL_OK;
	} else {
		q->v = sp->t;
		q->n = (uint32_t)sp->tn;
		q->cap = (uint32_t)sp->tcap;
	}
	m->extra -= sizeof(*sp) + sp->seg.cap * sizeof(*sp->seg.v);
	free(sp->seg.v);
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
		free(q->sp->seg.v);
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
		m->in_header = 1;
		m->detail = SIZE_MAX;
	}
	return m;
}

void picl_matcher_set_broadcast_detail(struct picl_matcher *m, size_t max_receivers)
{
	if (m)
		m->detail = max_receivers;
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

/* 1 if p is in the sorted list v[0 .. n). */
static int in_list(const int32_t *v, size_t n, int32_t p)
{
	return n && bsearch(&p, v, n, sizeof(*v), cmp_i32) != NULL;
}

/* 1 if p is one of the declared processors. */
static int is_expected(const struct picl_matcher *m, int32_t p)
{
	return in_list(m->expected, m->nexpected, p);
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

/* Sort v[0 .. n) and drop repeats; the number left. */
static size_t sort_unique(int32_t *v, size_t n)
{
	size_t i, k;

	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_i32);
	for (i = k = 0; i < n; i++)
		if (k == 0 || v[i] != v[k - 1])
			v[k++] = v[i];
	return k;
}

int picl_matcher_expect_processors(struct picl_matcher *m, const int32_t *procs, size_t n)
{
	int32_t *v;
	size_t k;

	if (!m || (!procs && n > 0))
		return PICL_ERR_USAGE;
	v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return PICL_ERR_NOMEM;
	if (n)
		memcpy(v, procs, n * sizeof(*v));
	k = sort_unique(v, n);
	free(m->expected);
	m->expected = v;
	m->nexpected = k;
	return PICL_OK;
}

int picl_matcher_in_header(const struct picl_matcher *m)
{
	return m ? m->in_header : 0;
}

int picl_matcher_declared(const struct picl_matcher *m, int32_t processor)
{
	return m && m->expected ? is_expected(m, processor) : -1;
}

/* Part of a trace's header: header records, and the definitions (aliases,
 * subsets) that may come among them. */
static int header_part(int32_t type)
{
	return picl_is_header_type(type) || picl_is_definition_type(type);
}

/* A record while the header lasts: -307 processor ids are kept, and the
 * first record past the header declares them, unless the caller did
 * (expected is set only by the caller while the header lasts). */
static int header_record(struct picl_matcher *m, const struct picl_record *rec)
{
	size_t i;

	if (header_part(rec->type)) {
		if (rec->type != PICL_REC_HEADER_PROCESSORS || m->expected || !rec->values)
			return PICL_OK;
		for (i = 0; i < rec->nvalues; i++) {
			const struct picl_value *v = &rec->values[i];
			int64_t id = v->kind == PICL_VAL_INT ? v->v.i
				   : v->kind == PICL_VAL_UINT && v->v.u <= INT32_MAX ? (int64_t)v->v.u
				   : -1;

			if (id < 0 || id > INT32_MAX)
				continue;
			if (m->nhdr == m->hdrcap) {
				/* full: ids said more than once go first, so that
				 * the list grows with the processors, not the text */
				if (m->nhdr >= 1024)
					m->nhdr = sort_unique(m->hdr, m->nhdr);
				if (m->nhdr * 2 >= m->hdrcap &&
				    grow((void **)&m->hdr, &m->hdrcap, m->hdrcap + 1,
					 sizeof(*m->hdr)) < 0)
					return PICL_ERR_NOMEM;
			}
			m->hdr[m->nhdr++] = (int32_t)id;
		}
		return PICL_OK;
	}
	m->in_header = 0;
	if (!m->expected && m->nhdr) {        /* the list becomes the declared one */
		m->nexpected = sort_unique(m->hdr, m->nhdr);
		m->expected = m->hdr;
	} else {
		free(m->hdr);
	}
	m->hdr = NULL;
	m->nhdr = m->hdrcap = 0;
	return PICL_OK;
}

/* Processor dst has received broadcast b from src: count it (for dropping
 * b once all the declared receivers have it, and for knowing at the end
 * how many never had it) unless dst is not one that must: src itself, the
 * host, or one the processors declared do not list. 1 if counted. */
static int count_receiver(const struct picl_matcher *m, struct item *b, int32_t src,
			  int32_t dst)
{
	if (dst == src || dst == PICL_HOST_PROCESSOR || (m->expected && !is_expected(m, dst)))
		return 0;
	b->ngot++;
	return 1;
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
static int trim_broadcasts(struct picl_matcher *m, struct channel *b)
{
	struct bcast *bc = b->u.b;
	struct item tmp, *it;
	uint64_t at;
	int rc;

	while (m->expected && bcast_count(b)) {
		if ((rc = bcast_at(m, b, bc->base, &tmp, &it, &at)) < 0)
			return rc;
		if (it->ngot < bcast_receivers(m, b->src) || it->ngot == 0)
			break;
		if (at == UINT64_MAX) {
			(void)pop(m, &b->sends); /* no refill: never spilled as a queue */
		} else {
			seg_consumed(m, &bc->ck, 1);
			bc->ndisk--;
		}
		bc->base++;
		m->pending--;
	}
	return PICL_OK;
}

/* What a channel that could not be had failed of: the spill file could
 * not be read, or memory (not always through fail). */
static int failed(const struct picl_matcher *m)
{
	return m->code == PICL_ERR_IO ? PICL_ERR_IO : PICL_ERR_NOMEM;
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
			return failed(m);
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
		return failed(m);
	bidx = b->u.b->base + bcast_count(b);
	if ((rc = push(m, &b->sends, it)) < 0)
		return rc;
	m->pending++;
	/* The receives waiting on its channels (they have had every earlier
	 * broadcast) take it now, in the order the channels were made. Both
	 * push and lookup may move the channels: b is found again. */
	for (i = 0; m->pending_recvs; i++) {
		int32_t d;
		struct item r, *bc;

		b = find(m, src, BCAST_DST, type, 0);
		if (i >= b->u.b->ndsts)
			break;
		if ((d = b->u.b->dsts[i]) == src || d == PICL_HOST_PROCESSOR)
			continue;
		c = lookup(m, src, d, type, 0, &rc);
		if (rc < 0)
			return rc;
		b = find(m, src, BCAST_DST, type, 0);
		if (!c || !front(&c->recvs))
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
	return trim_broadcasts(m, find(m, src, BCAST_DST, type, 0));
}

/* A receive on dst of a message of type from src. */
static int add_recv(struct picl_matcher *m, int32_t src, int32_t dst, int32_t type,
		    const struct item *it)
{
	struct channel *c = channel_get(m, src, dst, type), *b = NULL;
	struct item *uni, *bc = NULL, tmp;
	uint64_t k = 0, at = UINT64_MAX;
	int rc, trc;

	if (!c)
		return failed(m);
	/* The next broadcast of (src, type) this processor has not had (a
	 * processor does not receive its own broadcasts, and the host none:
	 * send0(-1) goes to the nodes). Its broadcast channel may be in the
	 * runs with broadcasts (their filters say if not, without a read):
	 * taken back, it may move c. */
	if (src != dst && dst != PICL_HOST_PROCESSOR && !(b = bcast_find(m, src, type)) &&
	    runs_may_hold(m, src, BCAST_HELD, type)) {
		if (!(b = lookup(m, src, BCAST_DST, type, 0, &rc)) && rc < 0)
			return rc;
		if (b && !b->u.b)
			b = NULL;
		c = find(m, src, dst, type, 0);
	}
	uni = front(&c->sends);
	if (b) {
		uint64_t base = b->u.b->base;

		k = c->u.done > base ? c->u.done : base;
		if (k - base < bcast_count(b) && (rc = bcast_at(m, b, k, &tmp, &bc, &at)) < 0)
			return rc;
	}
	if (bc && (!uni || bc->seq < uni->seq)) {
		c->u.done = k + 1;
		if (count_receiver(m, bc, src, dst) && at != UINT64_MAX &&
		    write_at(m->fd, (const char *)&bc->ngot, sizeof(bc->ngot),
			     at + offsetof(struct item, ngot)) < 0)
			return fail(m, PICL_ERR_IO, "cannot keep");
		rc = emit(m, src, dst, type, 1, bc, it);
		if ((trc = trim_broadcasts(m, b)) < 0)
			return trc;
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

static int cmp_int32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

/*
 * A send from `src` to processor subset `subset` (< -1): one send `it` to
 * each member that is a processor (0 or more) other than src, each member
 * once however often the -201 record lists it (a sorted copy: searching
 * the list again for every member was quadratic in the subset). A subset
 * the defs do not define leaves nothing to match.
 */
static int add_multicast(struct picl_matcher *m, int32_t src, int32_t subset, int32_t type,
			 struct item *it)
{
	const int32_t *members;
	size_t n, k;
	int rc = PICL_OK;

	members = picl_defs_subset_members(m->defs, PICL_SUBSET_PROCESSORS, subset, &n);
	if (!members || !n)
		return PICL_OK;
	if (n > m->mccap) {
		int32_t *v = realloc(m->mc, n * sizeof(*v));

		if (!v)
			return fail(m, PICL_ERR_NOMEM, NULL);
		m->mc = v;
		m->mccap = n;
	}
	memcpy(m->mc, members, n * sizeof(*m->mc));
	qsort(m->mc, n, sizeof(*m->mc), cmp_int32);
	for (k = 0; k < n && rc == PICL_OK; k++) {
		if (m->mc[k] < 0 || m->mc[k] == src || (k > 0 && m->mc[k] == m->mc[k - 1]))
			continue;
		it->seq = ++m->seq;
		rc = add_send(m, src, m->mc[k], type, it);
	}
	return rc;
}

void picl_matcher_set_defs(struct picl_matcher *m, const struct picl_defs *defs)
{
	if (m)
		m->defs = defs;
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

	if (PICL_UNLIKELY(!m || !rec || size > sizeof(it.data) || (!data && size > 0)))
		return PICL_ERR_USAGE;   /* (a failed new's NULL: nothing taken) */
	if (m->code == PICL_ERR_IO)
		return PICL_ERR_IO; /* what is on disk can no longer be trusted */
	/* Past the limit, between records, where no pointer into m->ch is
	 * held (in_use: what waits, the channels, and their lists). */
	if (m->limit && in_use(m) > m->next_check && (rc = spill_some(m)) < 0)
		return rc;
	if (m->in_header && (rc = header_record(m, rec)) < 0)
		return rc;
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
	/* A receive's source of -1 (unknown) leaves nothing to match; a
	 * send's destination below -1, only with the subsets. */
	if (!message_fields(rec, base,
			    !is_send(rec->event) ? 0 : m->defs ? INT32_MIN : PICL_WILDCARD,
			    &it.length, &type, &peer))
		return PICL_OK;
	it.time = rec->time;
	it.mark = rec->mark;
	it.process = rec->process;
	it.peer_process = process_field(rec, base + 3);
	it.event = rec->event;
	if (!is_send(rec->event)) {
		it.seq = ++m->seq;
		return add_recv(m, peer, rec->processor, type, &it);
	}
	if (size)
		memcpy(it.data, data, size);
	if (peer < PICL_WILDCARD)
		return add_multicast(m, rec->processor, peer, type, &it);
	it.seq = ++m->seq;
	return add_send(m, rec->processor, peer, type, &it);
}

/* The queue of channel c that the pass reports: sends, then receives. */
static struct queue *pass_queue(struct channel *c, int pass)
{
	return pass == 0 ? &c->sends : &c->recvs;
}

/* The items of one pass of a channel in a run, or a chunk of spilled
 * broadcasts, read one at a time; or a stream of such items that
 * merge_cursors wrote, each with its channel (struct sitem). */
struct cursor {
	int32_t src, dst, type;
	uint32_t stream;              /* a stream: 1 */
	uint64_t left;                /* items after `next` */
	uint64_t off;                 /* where the one after `next` is */
	uint64_t bidx;                /* a broadcast: the number of `next` */
	struct item next;
	uint64_t level;               /* a stream: how many merges made it */
	uint64_t kept;                /* a stream: bytes read, not given back */
	char *buf;                    /* items read ahead, [bpos, blen): */
	uint32_t bpos, blen;          /* those before `off` */
};

/* An item of a stream, in the spill file. */
struct sitem {
	int32_t src, dst, type, pad;
	uint64_t bidx;
	struct item it;
};

/* What a cursor holds, in items: itself and what it reads ahead. */
#define CURSOR_ITEMS ((sizeof(struct cursor) + CURSOR_READ * sizeof(struct sitem)) / \
		      sizeof(struct item) + 1)

/* What finish merges: channel i of m->ch when i < m->nused, else cursor
 * i - m->nused; seq is its next item's. */
struct hsrc {
	uint64_t seq;
	size_t i;
};

static void heap_down(struct hsrc *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, least = i;
		struct hsrc t;

		if (l < n && h[l].seq < h[least].seq)
			least = l;
		if (l + 1 < n && h[l + 1].seq < h[least].seq)
			least = l + 1;
		if (least == i)
			return;
		t = h[i];
		h[i] = h[least];
		h[least] = t;
		i = least;
	}
}

/* Item `it` of channel (src, dst, type), unmatched: a broadcast (number
 * bidx of its (source, type)) once per processor that did not have it. */
static int report(struct picl_matcher *m, int pass, int32_t src, int32_t dst, int32_t type,
		  const struct item *it, uint64_t bidx)
{
	struct picl_message msg;
	const int32_t *all;
	size_t nall, k, left, shown = 0;
	int rc = PICL_OK;

	if (!m->cb)
		return PICL_OK;
	if (pass == 1) {
		message_of(&msg, src, dst, type, NULL, it);
		memset(m->data.b, 0, sizeof(m->data.b));
		return m->cb(m->ctx, PICL_MATCH_UNMATCHED_RECV, &msg);
	}
	memcpy(m->data.b, it->data, sizeof(m->data.b));
	if (dst != BCAST_DST) {
		message_of(&msg, src, dst, type, it, NULL);
		return m->cb(m->ctx, PICL_MATCH_UNMATCHED_SEND, &msg);
	}
	message_of(&msg, src, PICL_WILDCARD, type, it, NULL);
	msg.broadcast = 1;
	all = m->expected ? m->expected : m->procs;
	nall = m->expected ? m->nexpected : m->nprocs;
	/* Those that had it were counted: the look-ups stop at the last one
	 * missing, or at the detail asked for, so a trace of many processors
	 * and broadcasts that few of them receive is not quadratic. */
	left = in_list(all, nall, src);
	if (src != PICL_HOST_PROCESSOR)
		left += in_list(all, nall, PICL_HOST_PROCESSOR);
	left = nall - left > it->ngot ? nall - left - it->ngot : 0;
	for (k = 0; k < nall && left && shown < m->detail && rc == PICL_OK; k++) {
		int32_t p = all[k];
		uint64_t done;

		if (p == src || p == PICL_HOST_PROCESSOR)
			continue;
		if ((rc = done_of(m, src, p, type, &done)) < 0)
			return rc;
		if (done > bidx)
			continue;
		msg.dst_processor = p;
		left--;
		shown++;
		rc = m->cb(m->ctx, PICL_MATCH_UNMATCHED_SEND, &msg);
	}
	if (left && shown == m->detail && rc == PICL_OK) {
		msg.dst_processor = PICL_WILDCARD;
		msg.more_missing = left;
		rc = m->cb(m->ctx, PICL_MATCH_UNMATCHED_SEND, &msg);
	}
	return rc;
}

/* k's next item (1), or 0 when it has none left; up to CURSOR_READ items
 * are read at once, into a buffer the cursor holds until its last item. */
static int cursor_next(struct picl_matcher *m, struct cursor *k)
{
	size_t size = k->stream ? sizeof(struct sitem) : sizeof(struct item);
	struct sitem si;
	const char *p;

	if (!k->left)
		return 0;
	if (k->bpos == k->blen) {
		size_t n = k->left < CURSOR_READ ? (size_t)k->left : CURSOR_READ;

		/* (the first fill is the largest) */
		if (!k->buf && !(k->buf = malloc(n * size)))
			return fail(m, PICL_ERR_NOMEM, NULL);
		if (read_at(m->fd, k->buf, n * size, k->off) < 0)
			return fail(m, PICL_ERR_IO, "cannot read back");
		k->off += n * size;
		k->bpos = 0;
		k->blen = (uint32_t)(n * size);
		if (k->stream) {
			/* read for the only time: given back a megabyte at a time */
			k->kept += n * size;
			if (k->kept >= RELEASE_MIN || k->left == n) {
				spill_release(m, k->off - k->kept, k->kept);
				k->kept = 0;
			}
		}
	}
	p = k->buf + k->bpos;
	k->bpos += (uint32_t)size;
	if (!k->stream) {
		memcpy(&k->next, p, sizeof(k->next));
		k->bidx++;
	} else {
		memcpy(&si, p, sizeof(si));
		k->src = si.src;
		k->dst = si.dst;
		k->type = si.type;
		k->bidx = si.bidx;
		k->next = si.it;
	}
	if (!--k->left) {
		free(k->buf);
		k->buf = NULL;
		k->bpos = k->blen = 0;
	}
	return 1;
}

/*
 * The cursors finish merges, gathered so that their number stays bounded
 * (a run can hold millions of channels, each a cursor of its own): past
 * `batch` of them, merge_cursors makes them one stream in the spill file,
 * and `batch` streams of one level one of the next.
 */
struct gather {
	struct cursor *v;             /* v[0 .. nstreams) streams, by level */
	size_t n, cap, nstreams;      /* (highest first), then cursors */
	size_t batch;
};

/* Merge the n cursors at v by their items' order into one stream at the
 * end of the spill file, in *out. */
static int merge_cursors(struct picl_matcher *m, struct cursor *v, size_t n, struct cursor *out)
{
	struct hsrc *h = malloc(n * sizeof(*h));
	char *buf = malloc(RUN_BUF);
	size_t i, len = 0, nh = n;
	uint64_t start = m->spill_end, count = 0;
	int rc = PICL_OK;

	if (!h || !buf) {
		rc = fail(m, PICL_ERR_NOMEM, NULL);
		goto out;
	}
	for (i = 0; i < n; i++) {
		h[i].seq = v[i].next.seq;
		h[i].i = i;
	}
	for (i = n / 2; i-- > 0;)
		heap_down(h, n, i);
	while (nh) {
		struct cursor *k = &v[h[0].i];
		struct sitem si;

		memset(&si, 0, sizeof(si));
		si.src = k->src;
		si.dst = k->dst;
		si.type = k->type;
		si.bidx = k->bidx;
		si.it = k->next;
		if (len + sizeof(si) > RUN_BUF) {
			if ((rc = spill_append(m, buf, len)) < 0)
				goto out;
			len = 0;
		}
		memcpy(buf + len, &si, sizeof(si));
		len += sizeof(si);
		count++;
		if ((rc = cursor_next(m, k)) < 0)
			goto out;
		if (rc)
			h[0].seq = k->next.seq;
		else
			h[0] = h[--nh];
		heap_down(h, nh, 0);
	}
	if (len && (rc = spill_append(m, buf, len)) < 0)
		goto out;
	memset(out, 0, sizeof(*out));
	out->stream = 1;
	out->off = start;
	out->left = count;
	rc = cursor_next(m, out) < 0 ? PICL_ERR_IO : PICL_OK;
out:
	free(h);
	free(buf);
	return rc;
}

/* Merge the last n of g's streams into one, a level up. */
static int merge_streams(struct picl_matcher *m, struct gather *g, size_t n)
{
	struct cursor s;
	size_t at = g->nstreams - n;
	uint64_t level = g->v[at].level + 1;
	int rc = merge_cursors(m, g->v + at, n, &s);

	if (rc < 0)
		return rc;
	s.level = level;
	memmove(g->v + at + 1, g->v + g->nstreams, (g->n - g->nstreams) * sizeof(*g->v));
	g->v[at] = s;
	g->nstreams = at + 1;
	g->n -= n - 1;
	return PICL_OK;
}

/* Take cursor k; past the batch, the cursors become a stream, and
 * streams of one level one of the next. */
static int gather_add(struct picl_matcher *m, struct gather *g, const struct cursor *k)
{
	struct cursor s;
	int rc;

	if (grow((void **)&g->v, &g->cap, g->n + 1, sizeof(*g->v)) < 0)
		return fail(m, PICL_ERR_NOMEM, NULL);
	g->v[g->n++] = *k;
	if (g->n - g->nstreams < g->batch)
		return PICL_OK;
	if ((rc = merge_cursors(m, g->v + g->nstreams, g->batch, &s)) < 0)
		return rc;
	g->v[g->nstreams++] = s;
	g->n = g->nstreams;
	while (g->nstreams >= g->batch &&
	       g->v[g->nstreams - g->batch].level == g->v[g->nstreams - 1].level)
		if ((rc = merge_streams(m, g, g->batch)) < 0)
			return rc;
	return PICL_OK;
}

/* Once all are in: at most a batch of cursors (or streams) to merge. */
static int gather_end(struct picl_matcher *m, struct gather *g)
{
	struct cursor s;
	int rc;

	if (!g->nstreams)
		return PICL_OK;
	if (g->n > g->nstreams) {
		if ((rc = merge_cursors(m, g->v + g->nstreams, g->n - g->nstreams, &s)) < 0)
			return rc;
		g->v[g->nstreams++] = s;
		g->n = g->nstreams;
	}
	while (g->nstreams > g->batch)
		if ((rc = merge_streams(m, g, g->batch)) < 0)
			return rc;
	return PICL_OK;
}

/* A cursor on n > 0 items of channel (src, dst, type) from byte off of
 * the spill file, numbered from bidx if broadcasts, the first of them at
 * *first (or read there), to g. */
static int range_cursor(struct picl_matcher *m, struct gather *g, int32_t src, int32_t dst,
			int32_t type, uint64_t bidx, const char *first, uint64_t off, uint64_t n)
{
	struct cursor c;
	int rc;

	memset(&c, 0, sizeof(c));
	c.src = src;
	c.dst = dst;
	c.type = type;
	if (first) {
		c.left = n - 1;
		c.bidx = bidx;
		c.off = off + sizeof(struct item);
		memcpy(&c.next, first, sizeof(c.next));
	} else {
		c.left = n;
		c.bidx = bidx - 1;    /* (cursor_next counts the first one) */
		c.off = off;
		if ((rc = cursor_next(m, &c)) < 0)
			return rc;
	}
	if ((rc = gather_add(m, g, &c)) < 0)
		free(c.buf);
	return rc;
}

/* Cursors on every chunk of spilled broadcasts, to g; the broadcasts left
 * in memory are then numbered from the channel's base. */
static int bcast_cursors(struct picl_matcher *m, struct gather *g)
{
	size_t i, j;

	for (i = 0; i < m->nused; i++) {
		struct channel *c = &m->ch[i];
		struct bcast *bc = c->u.b;

		if (c->dst != BCAST_DST || !bc || !bc->ndisk)
			continue;
		for (j = bc->ck.head; j < bc->ck.n; j++) {
			const struct segment *sg = &bc->ck.v[j];
			int rc = range_cursor(m, g, c->src, BCAST_DST, c->type, sg->first, NULL,
					      sg->off, sg->n);

			if (rc < 0)
				return rc;
		}
		bc->base += bc->ndisk;
		bc->ndisk = 0;
		bc->ck.head = bc->ck.n = 0;
	}
	return PICL_OK;
}

/* Cursors on the items of the pass in every entry of the runs not taken
 * back, to g: a queue's items in the entry, each of its segments, its
 * tail (the merge puts them in order again). */
static int run_cursors(struct picl_matcher *m, int pass, struct gather *g)
{
	size_t ri;
	int rc = PICL_OK;

	for (ri = 0; ri < m->nruns && rc >= 0; ri++) {
		struct rread rd = { &m->runs[ri], 0, NULL, 0, 0, 0, 0 };
		struct ehead h;
		const char *items;

		while ((rc = rread_next(m, &rd, &h, &items)) > 0) {
			/* where the entry's bytes lie in the file */
			uint64_t at = rd.r->blk[rd.blk - 1].off + (uint64_t)(items - rd.buf);
			uint32_t nv = pass == 0 ? h.nsends : h.nrecvs;
			uint32_t nseg = pass == 0 ? h.ssegs : h.rsegs;
			uint32_t ntail = pass == 0 ? h.stail : h.rtail, k;
			size_t skip = pass == 0 ? 0 : part_bytes(h.nsends, h.ssegs, h.stail);
			const char *p = items + skip;

			if (h.dst == BCAST_DST && pass == 1)
				continue;
			at += skip;
			/* (a broadcast entry's items are numbered from its base) */
			if (nv && (rc = range_cursor(m, g, h.src, h.dst, h.type, h.done, p, at,
						     nv)) < 0)
				break;
			p += (size_t)nv * sizeof(struct item);
			for (k = 0; k < nseg && rc >= 0; k++) {
				struct segment sg;

				memcpy(&sg, p + (size_t)k * sizeof(sg), sizeof(sg));
				if (sg.n)
					rc = range_cursor(m, g, h.src, h.dst, h.type, 0, NULL,
							  sg.off, sg.n);
			}
			if (rc < 0)
				break;
			p += (size_t)nseg * sizeof(struct segment);
			at += (uint64_t)(p - (items + skip));
			if (ntail && (rc = range_cursor(m, g, h.src, h.dst, h.type, 0, p, at,
							ntail)) < 0)
				break;
		}
		free(rd.buf);
	}
	return rc < 0 ? rc : PICL_OK;
}

/* Unmatched sends (a broadcast once per missing receiver), then receives,
 * each in input order: every queue is, so the report merges them, those
 * in memory and those in the runs, taking them apart as it goes (spilled
 * ones read back a few items at a time, the runs' one at a time). With a
 * limit, more queues in the runs and chunks than a quarter of it counts
 * are merged a batch at a time into streams first (gather_add), so the
 * cursors stay few. No channel is made or moved meanwhile, so pointers
 * into m->ch hold. */
int picl_matcher_finish(struct picl_matcher *m)
{
	struct hsrc *h = NULL;
	struct gather g = { NULL, 0, 0, 0, SIZE_MAX };
	struct cursor *cur;
	size_t n, cap = 0, ncur, i;
	int pass, rc = PICL_OK;

	if (!m)
		return PICL_ERR_USAGE;
	if (m->code == PICL_ERR_IO)
		return PICL_ERR_IO;
	extra_check(m);
	/* Broadcasts are reported once per missing receiver, by processor. */
	if (m->nprocs > 1)
		qsort(m->procs, m->nprocs, sizeof(*m->procs), cmp_i32);
	/* a batch of cursors takes at most about 3/8 of the limit */
	if (m->limit)
		g.batch = m->limit / 4 * 3 / 2 / CURSOR_ITEMS > 2
				  ? m->limit / 4 * 3 / 2 / CURSOR_ITEMS : 2;
	for (pass = 0; pass < 2 && rc == PICL_OK; pass++) {
		n = 0;
		g.n = g.nstreams = 0;
		if ((rc = run_cursors(m, pass, &g)) < 0 ||
		    (pass == 0 && (rc = bcast_cursors(m, &g)) < 0) ||
		    (rc = gather_end(m, &g)) < 0)
			break;
		cur = g.v;
		ncur = g.n;
		if (grow((void **)&h, &cap, m->nused + ncur, sizeof(*h)) < 0) {
			rc = fail(m, PICL_ERR_NOMEM, NULL);
			break;
		}
		for (i = 0; i < m->nused; i++) {
			const struct item *f = front(pass_queue(&m->ch[i], pass));

			if (f) {
				h[n].seq = f->seq;
				h[n++].i = i;
			}
		}
		for (i = 0; i < ncur; i++) {
			h[n].seq = cur[i].next.seq;
			h[n++].i = m->nused + i;
		}
		for (i = n / 2; i-- > 0;)
			heap_down(h, n, i);
		while (n && rc == PICL_OK) {
			struct item it;
			uint64_t bidx = 0;
			int32_t src, dst, type;
			const struct item *f;

			if (h[0].i < m->nused) {
				struct channel *c = &m->ch[h[0].i];
				struct queue *q = pass_queue(c, pass);

				it = *front(q);
				src = c->src;
				dst = c->dst;
				type = c->type;
				if (dst == BCAST_DST)
					bidx = c->u.b->base++;
				if ((rc = pop(m, q)) < 0)
					break;
				f = front(q);
			} else {
				struct cursor *k = &cur[h[0].i - m->nused];

				it = k->next;
				src = k->src;
				dst = k->dst;
				type = k->type;
				bidx = k->bidx;
				if ((rc = cursor_next(m, k)) < 0)
					break;
				f = rc ? &k->next : NULL;
				rc = PICL_OK;
			}
			m->pending--;
			if (pass == 1)
				m->pending_recvs--;
			if (f)
				h[0].seq = f->seq;
			else
				h[0] = h[--n];
			heap_down(h, n, 0);
			rc = report(m, pass, src, dst, type, &it, bidx);
		}
	}
	free(h);
	for (i = 0; i < g.n; i++)       /* (after a failure) */
		free(g.v[i].buf);
	free(g.v);
	for (i = 0; i < m->nruns; i++)
		run_free(m, &m->runs[i]);
	m->nruns = 0;
	return rc;
}

uint64_t picl_matcher_matched(const struct picl_matcher *m)
{
	return m ? m->matched : 0;
}

uint64_t picl_matcher_pending(const struct picl_matcher *m)
{
	return m ? m->pending : 0;
}

void picl_matcher_free(struct picl_matcher *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nused; i++) {
		struct channel *c = &m->ch[i];

		if (c->dst == BCAST_DST)
			bcast_free(c->u.b);
		queue_free(&c->sends);
		queue_free(&c->recvs);
	}
	for (i = 0; i < m->nreq; i++) {
		free(m->req[i].open);
		free(m->req[i].done);
	}
	free(m->req);
	intmap_free(&m->req_of);
	for (i = 0; i < m->nruns; i++)
		run_free(m, &m->runs[i]);
	free(m->runs);
	free(m->rbuf);
	free(m->mc);
	free(m->ch);
	free(m->slot);
	free(m->procs);
	intmap_free(&m->procs_of);
	free(m->expected);
	free(m->hdr);
	free(m->tmpdir);
	if (m->fd >= 0)
		close(m->fd);
	free(m);
}

int picl_matcher_set_memory(struct picl_matcher *m, size_t max_bytes, const char *tmpdir)
{
	char *dir = NULL;

	if (!m)
		return PICL_ERR_USAGE;
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
	return m ? m->data.b : NULL;
}

const char *picl_matcher_strerror(const struct picl_matcher *m)
{
	if (!m)
		return "no matcher (NULL)";
	return m->err[0] ? m->err : "out of memory";
}
