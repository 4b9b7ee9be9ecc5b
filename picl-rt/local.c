/*
 * local.c - libpicl's local backend: processes on one machine, started by
 * piclrun, talking through one shared-memory segment (layout in shm.h).
 *
 * Each ordered pair of processes has a single-producer single-consumer byte
 * ring. send() copies frames into the ring (memcpy, then a release store of
 * head; no system call unless the receiver sleeps), streaming a message
 * larger than a quarter of the ring in chunks. While it waits for room it
 * keeps draining its own incoming rings into a private queue, so two
 * processes sending big messages to each other cannot deadlock. poll()
 * serves that queue first, then scans the incoming rings round robin; a
 * one-frame message is handed out in place (no copy) and consumed at
 * release(); a chunked one is reassembled in a per-source buffer, kept
 * for the next one (no page faults per big message).
 *
 * wait() spins briefly (only when there are more CPUs than processes),
 * then yields, then sleeps on a futex in the process's slot with a 20 ms
 * timeout; a sender wakes it only when its `sleeping` flag is set. After a
 * sleep the peers' states are checked: piclrun marks a process that died,
 * and a peer whose pid no longer exists counts as dead; then poll() returns
 * -1 once nothing more can arrive, and send() to a dead peer fails.
 *
 * Environment (set by piclrun): PICL_SHM (the segment's path) and
 * PICL_SHM_FD (the segment, open, inherited: used first), PICL_RANK
 * (0..N-1, or 32767 for the host), PICL_NPROCS, PICL_HOSTID (32767 or -1).
 * Without PICL_SHM the program runs alone: one node, no host.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "backend.h"
#include "picl.h"
#include "shm.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct lq {                     /* a message drained while sending */
	struct lq *next;
	int src, type;
	size_t len;
	char data[];
};

struct insrc {                  /* per incoming ring */
	uint64_t tail;
	char *asm_buf;          /* reassembly of chunked messages, kept */
	size_t asm_cap;
	size_t asm_len, asm_total;
	int asm_active;         /* a chunked message is being reassembled */
};

/* Reassembly buffers larger than this are given back after use. */
#define ASM_KEEP (64u << 20)

struct outdst {                 /* per outgoing ring */
	uint64_t head, tail_seen;
};

static struct {
	char *base;
	size_t size;
	struct picl_shm_head *h;
	uint32_t nslots, me;    /* my slot */
	int nprocs, host, single, spin;
	uint64_t rsize, mask;
	struct insrc *in;
	struct outdst *out;
	struct lq *qhead, *qtail;
	uint32_t next_src;      /* round robin start */
	/* what release() must do */
	int pend_src;
	uint64_t pend_tail;
	void *pend_free;
	int broken;             /* a peer died, or all are gone */
} L = { .pend_src = -1 };

static inline uint64_t pad16(uint64_t n)
{
	return (n + 15) & ~(uint64_t)15;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static int slot_of(int id)
{
	return id == PICL_HOST ? L.nprocs : id;
}

static int id_of(uint32_t slot)
{
	return (int)slot == L.nprocs ? PICL_HOST : (int)slot;
}

static struct picl_shm_slot *slot(uint32_t i)
{
	return picl_shm_slot(L.base, i);
}

static char *ring_data(struct picl_ring_ctl *r)
{
	return (char *)r + PICL_RING_CTL;
}

static void futex_wake(_Atomic uint32_t *f)
{
	syscall(SYS_futex, (uint32_t *)f, FUTEX_WAKE, 1, NULL, NULL, 0);
}

static void futex_wait(_Atomic uint32_t *f, uint32_t val, long ns)
{
	struct timespec ts = { 0, ns };

	syscall(SYS_futex, (uint32_t *)f, FUTEX_WAIT, val, &ts, NULL, 0);
}

/* ---- init / finalize ------------------------------------------------------ */

static int env_int(const char *name, int *v)
{
	const char *s = getenv(name);
	char *end;
	long x;

	if (!s || !*s)
		return -1;
	x = strtol(s, &end, 10);
	if (*end)
		return -1;
	*v = (int)x;
	return 0;
}

static int local_init(int *nprocs, int *me, int *host)
{
	const char *path = getenv("PICL_SHM");
	struct stat st;
	int fd, rank, n, hostid = -1;
	long ncpu;

	if (!path || !*path) {
		L.single = 1;
		L.nprocs = 1;
		L.host = -1;
		*nprocs = 1;
		*me = 0;
		*host = -1;
		return 0;
	}
	if (env_int("PICL_RANK", &rank) || env_int("PICL_NPROCS", &n)) {
		fprintf(stderr, "picl: PICL_RANK or PICL_NPROCS missing or bad\n");
		return -1;
	}
	env_int("PICL_HOSTID", &hostid);
	/* The segment inherited from piclrun (its name may be gone already);
	 * closed once mapped. */
	if (env_int("PICL_SHM_FD", &fd) < 0 || fd < 0 || fstat(fd, &st) < 0)
		fd = open(path, O_RDWR);
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "picl: %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	L.size = (size_t)st.st_size;
	L.base = mmap(NULL, L.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (L.base == MAP_FAILED) {
		fprintf(stderr, "picl: mmap %s: %s\n", path, strerror(errno));
		return -1;
	}
	L.h = (struct picl_shm_head *)L.base;
	if (L.h->magic != PICL_SHM_MAGIC || (int)L.h->nprocs != n ||
	    L.h->total > L.size) {
		fprintf(stderr, "picl: %s: not a piclrun segment for %d "
			"processes\n", path, n);
		return -1;
	}
	L.nprocs = n;
	L.host = L.h->host;
	L.nslots = L.h->nslots;
	L.rsize = L.h->ring_size;
	L.mask = L.rsize - 1;
	if (rank != PICL_HOST && (rank < 0 || rank >= n)) {
		fprintf(stderr, "picl: PICL_RANK %d out of range\n", rank);
		return -1;
	}
	L.me = (uint32_t)slot_of(rank);
	L.in = calloc(L.nslots, sizeof *L.in);
	L.out = calloc(L.nslots, sizeof *L.out);
	if (!L.in || !L.out)
		return -1;
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	L.spin = ncpu >= (long)L.nslots;
	atomic_store(&slot(L.me)->pid, (int32_t)getpid());
	atomic_store(&slot(L.me)->state, PICL_ST_RUNNING);
	*nprocs = n;
	*me = rank;
	*host = L.host;
	return 0;
}

static void wake_all(void)
{
	uint32_t i;

	for (i = 0; i < L.nslots; i++) {
		atomic_fetch_add(&slot(i)->futex, 1);
		futex_wake(&slot(i)->futex);
	}
}

static void local_finalize(void)
{
	if (L.single || !L.base)
		return;
	atomic_store(&slot(L.me)->state, PICL_ST_CLOSED);
	wake_all();
}

static void local_abort(int code)
{
	if (!L.single && L.base) {
		atomic_store(&slot(L.me)->state, PICL_ST_DIED);
		wake_all();
	}
	exit(code ? code : 1);
}

/* ---- liveness --------------------------------------------------------------- */

static int peer_gone(uint32_t s)
{
	int st = atomic_load(&slot(s)->state);
	pid_t pid;

	if (st >= PICL_ST_CLOSED)
		return st;
	pid = atomic_load(&slot(s)->pid);
	if (st == PICL_ST_RUNNING && pid > 0 && kill(pid, 0) < 0 &&
	    errno == ESRCH)
		return PICL_ST_DIED;
	return 0;
}

/* Sets L.broken when a peer died or every peer is gone. */
static void check_peers(void)
{
	uint32_t s;
	int gone = 0, died = 0, st;

	for (s = 0; s < L.nslots; s++) {
		if (s == L.me)
			continue;
		st = peer_gone(s);
		if (st)
			gone++;
		if (st == PICL_ST_DIED || st == PICL_ST_EXITED)
			died = 1;
	}
	if (died || gone == (int)L.nslots - 1 || atomic_load(&L.h->stop))
		L.broken = 1;
}

/* ---- receiving ------------------------------------------------------------ */

static void do_release(void)
{
	if (L.pend_src >= 0) {
		struct insrc *in = &L.in[L.pend_src];
		in->tail = L.pend_tail;
		atomic_store_explicit(&picl_shm_ring(L.base, (uint32_t)L.pend_src,
						     L.me)->tail,
				      in->tail, memory_order_release);
		L.pend_src = -1;
	}
	if (L.pend_free) {
		free(L.pend_free);
		L.pend_free = NULL;
	}
}

/* A sender sleeping until there is room in its ring to me: wake it. */
static void wake_sender(uint32_t s)
{
	struct picl_shm_slot *sl = slot(s);

	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&sl->sleeping, memory_order_relaxed) &&
	    atomic_load_explicit(&sl->blocked, memory_order_relaxed) ==
	    PICL_BL_SEND) {
		atomic_fetch_add(&sl->futex, 1);
		futex_wake(&sl->futex);
	}
}

static void consume(struct picl_ring_ctl *r, struct insrc *in, uint64_t n)
{
	in->tail += n;
	atomic_store_explicit(&r->tail, in->tail, memory_order_release);
}

/*
 * The next whole message from slot s, if there is one: 1 with the out
 * parameters set (and what release() must do noted), else 0.
 */
static int read_ring(uint32_t s, int *type, size_t *len, const void **payload)
{
	struct picl_ring_ctl *r = picl_shm_ring(L.base, s, L.me);
	struct insrc *in = &L.in[s];
	uint64_t head;

	for (;;) {
		struct picl_frame *f;
		uint64_t pos;

		head = atomic_load_explicit(&r->head, memory_order_acquire);
		if (head == in->tail)
			return 0;
		pos = in->tail & L.mask;
		f = (struct picl_frame *)(ring_data(r) + pos);
		if (f->chunk == PICL_FRAME_WRAP) {
			consume(r, in, L.rsize - pos);
			continue;
		}
		if (!in->asm_active && f->chunk == f->total) {
			*type = f->type;
			*len = f->total;
			*payload = f + 1;
			L.pend_src = (int)s;
			L.pend_tail = in->tail + sizeof *f + pad16(f->chunk);
			return 1;
		}
		if (!in->asm_active) {
			if (in->asm_cap < f->total) {
				free(in->asm_buf);
				in->asm_buf = malloc(f->total);
				in->asm_cap = in->asm_buf ? f->total : 0;
				if (!in->asm_buf) {
					fprintf(stderr, "picl: out of memory "
						"receiving %llu bytes\n",
						(unsigned long long)f->total);
					local_abort(1);
				}
			}
			in->asm_active = 1;
			in->asm_len = 0;
			in->asm_total = f->total;
		}
		memcpy(in->asm_buf + in->asm_len, f + 1, f->chunk);
		in->asm_len += f->chunk;
		*type = f->type;
		consume(r, in, sizeof *f + pad16(f->chunk));
		wake_sender(s);
		if (in->asm_len == in->asm_total) {
			/* The buffer stays until the next chunked message from
			 * s, which only a later poll can start: by then the
			 * caller has released this one. */
			in->asm_active = 0;
			*len = in->asm_total;
			*payload = in->asm_buf;
			if (in->asm_cap > ASM_KEEP) {
				L.pend_free = in->asm_buf;
				in->asm_buf = NULL;
				in->asm_cap = 0;
			}
			return 1;
		}
	}
}

/* While a send waits for room: move every arrived message to the queue. */
static void drain_to_queue(void)
{
	uint32_t s;
	int type;
	size_t len;
	const void *p;

	do_release();
	for (s = 0; s < L.nslots; s++) {
		if (s == L.me)
			continue;
		while (read_ring(s, &type, &len, &p)) {
			struct lq *q = malloc(sizeof *q + len);
			if (!q) {
				fprintf(stderr, "picl: out of memory\n");
				local_abort(1);
			}
			q->next = NULL;
			q->src = id_of(s);
			q->type = type;
			q->len = len;
			memcpy(q->data, p, len);
			if (L.qtail)
				L.qtail->next = q;
			else
				L.qhead = q;
			L.qtail = q;
			do_release();
		}
	}
}

static int local_poll(int *src, int *type, size_t *len, const void **payload)
{
	uint32_t i, s;
	int pass;

	if (L.single)
		return 0;
	do_release();
	if (L.qhead) {
		struct lq *q = L.qhead;
		L.qhead = q->next;
		if (!L.qhead)
			L.qtail = NULL;
		*src = q->src;
		*type = q->type;
		*len = q->len;
		*payload = q->data;
		L.pend_free = q;
		return 1;
	}
	/* A second pass after seeing `broken` catches the last messages. */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < L.nslots; i++) {
			s = (L.next_src + i) % L.nslots;
			if (s == L.me)
				continue;
			if (read_ring(s, type, len, payload)) {
				*src = id_of(s);
				L.next_src = s + 1;
				return 1;
			}
		}
		if (!L.broken)
			return 0;
	}
	return -1;
}

static void local_release(void)
{
	do_release();
}

/* 1 if anything is waiting to be read. */
static int any_incoming(void)
{
	uint32_t s;

	if (L.qhead)
		return 1;
	for (s = 0; s < L.nslots; s++) {
		if (s == L.me)
			continue;
		if (atomic_load_explicit(&picl_shm_ring(L.base, s, L.me)->head,
					 memory_order_acquire) != L.in[s].tail)
			return 1;
	}
	return 0;
}

/* Sleep on my futex until a sender wakes me or timeout. */
static void sleep_on_futex(long ns)
{
	struct picl_shm_slot *me = slot(L.me);
	uint32_t seq = atomic_load(&me->futex);

	atomic_store(&me->sleeping, 1);
	atomic_thread_fence(memory_order_seq_cst);
	if (!any_incoming())
		futex_wait(&me->futex, seq, ns);
	atomic_store(&me->sleeping, 0);
}

static void local_wait(void)
{
	int i;

	if (L.single) {
		sched_yield();
		return;
	}
	if (L.spin) {
		for (i = 0; i < 500; i++) {
			if (any_incoming())
				return;
			cpu_relax();
		}
	}
	for (i = 0; i < 8; i++) {
		if (any_incoming())
			return;
		sched_yield();
	}
	if (any_incoming())
		return;
	atomic_store(&slot(L.me)->blocked, PICL_BL_RECV);
	sleep_on_futex(20 * 1000 * 1000L);
	atomic_store(&slot(L.me)->blocked, PICL_BL_NONE);
	check_peers();
}

/* ---- sending -------------------------------------------------------------- */

static void notify(uint32_t d)
{
	struct picl_shm_slot *sl = slot(d);

	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&sl->sleeping, memory_order_relaxed)) {
		atomic_fetch_add(&sl->futex, 1);
		futex_wake(&sl->futex);
	}
}

/*
 * Sleep until the receiver d frees room (it wakes us: wake_sender), a
 * message comes in, or 2 ms pass. The room is looked at again after
 * `sleeping` is set, so a wake-up cannot be lost.
 */
static void sleep_for_room(struct picl_ring_ctl *r, struct outdst *o,
			   uint64_t want, uint32_t d)
{
	struct picl_shm_slot *me = slot(L.me);
	uint32_t seq = atomic_load(&me->futex);

	atomic_store(&me->blocked_on, id_of(d));
	atomic_store(&me->blocked, PICL_BL_SEND);
	atomic_store(&me->sleeping, 1);
	atomic_thread_fence(memory_order_seq_cst);
	o->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
	if (L.rsize - (o->head - o->tail_seen) < want && !any_incoming())
		futex_wait(&me->futex, seq, 2 * 1000 * 1000L);
	atomic_store(&me->sleeping, 0);
	atomic_store(&me->blocked, PICL_BL_NONE);
}

/* Wait until `need` contiguous bytes (after a possible wrap) are free in the
 * ring to d; writes the wrap frame if needed. 0, or -1 if d is gone. */
static int room(struct picl_ring_ctl *r, struct outdst *o, uint32_t d,
		uint64_t need)
{
	uint64_t pos = o->head & L.mask, want = need;
	unsigned long rounds = 0;

	if (pos + need > L.rsize)
		want += L.rsize - pos;
	while (L.rsize - (o->head - o->tail_seen) < want) {
		o->tail_seen = atomic_load_explicit(&r->tail,
						    memory_order_acquire);
		if (L.rsize - (o->head - o->tail_seen) >= want)
			break;
		drain_to_queue();
		if (peer_gone(d) || atomic_load(&L.h->stop))
			return -1;
		rounds++;
		if (L.spin && rounds < 2000) {
			cpu_relax();
		} else if (rounds < 4000) {
			sched_yield();
		} else {
			sleep_for_room(r, o, want, d);
		}
	}
	if (pos + need > L.rsize) {
		struct picl_frame *w = (struct picl_frame *)(ring_data(r) + pos);
		w->chunk = PICL_FRAME_WRAP;
		w->type = 0;
		w->total = 0;
		o->head += L.rsize - pos;
	}
	return 0;
}

static int local_send(const void *buf, size_t len, int type, int dst)
{
	uint32_t d = (uint32_t)slot_of(dst);
	struct picl_ring_ctl *r;
	struct outdst *o;
	size_t off = 0, maxchunk = L.rsize / 4 - sizeof(struct picl_frame);

	if (L.single || d >= L.nslots || d == L.me)
		return -1;
	r = picl_shm_ring(L.base, L.me, d);
	o = &L.out[d];
	do_release();
	do {
		size_t chunk = len - off < maxchunk ? len - off : maxchunk;
		uint64_t need = sizeof(struct picl_frame) + pad16(chunk);
		struct picl_frame *f;

		if (room(r, o, d, need) < 0)
			return -1;
		f = (struct picl_frame *)(ring_data(r) + (o->head & L.mask));
		f->chunk = (uint32_t)chunk;
		f->type = type;
		f->total = len;
		if (chunk)
			memcpy(f + 1, (const char *)buf + off, chunk);
		o->head += need;
		atomic_store_explicit(&r->head, o->head, memory_order_release);
		notify(d);
		off += chunk;
	} while (off < len);
	if (atomic_load_explicit(&slot(d)->state, memory_order_relaxed) >=
	    PICL_ST_EXITED)
		return -1;
	return 0;
}

static double local_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

const struct picl_backend picl_backend_impl = {
	.name = "local",
	.init = local_init,
	.finalize = local_finalize,
	.send = local_send,
	.poll = local_poll,
	.release = local_release,
	.wait = local_wait,
	.clock = local_clock,
	.abort = local_abort,
};
