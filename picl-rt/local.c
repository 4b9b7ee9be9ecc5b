/*
 * local.c - libpicl's local backend: processes on one machine, started by
 * piclrun, talking through one shared-memory segment (layout in shm.h).
 *
 * Each ordered pair of processes has a single-producer single-consumer byte
 * ring. send() copies frames into the ring (memcpy, then a release store of
 * head; no system call unless the receiver sleeps): a message up to 16 KiB
 * in one frame, a larger one in chunks of a quarter of it (8 to 32 KiB, at
 * most a quarter of the ring). While it waits for room it keeps draining
 * its own incoming rings into a private queue, so two processes sending big
 * messages to each other cannot deadlock. poll() serves that queue first,
 * then scans the incoming rings round robin; a one-frame message is handed
 * out in place (no copy) and consumed at release(); a chunked one is
 * reassembled in a per-source buffer, kept for the next one (no page faults
 * per big message).
 *
 * recv_into() (recv0's path) goes the same way, but copies a message of the
 * type asked for straight into the caller's buffer: a chunked one chunk by
 * chunk as the sender writes them, so that the sender's copy of chunk i+1
 * overlaps ours of chunk i and the ring stays in cache; the messages met
 * before it go to the caller's callback as poll() would have returned them.
 *
 * CMA (PICL_CMA=1; PICL_CMA_MIN bytes and up, default 32 KiB): the sender
 * puts a descriptor of its buffer in the ring and waits (draining, as for
 * room) until the receiver has copied the message with process_vm_readv
 * and acknowledged it in the ring's cma_ack. Off by default: streaming
 * through the ring measured faster at every size (bench/README.md). A
 * receiver that cannot read the sender's memory sets cma_fail and the
 * message, and every later one on that ring, goes through the ring
 * (PICL_CMA_BROKEN=1 pretends so, for the tests; PICL_CHUNK=N forces
 * frames of N bytes).
 *
 * wait() spins briefly (only when the process may run on as many CPUs as
 * there are processes: usable_cpus()),
 * then yields, then sleeps on a futex in the process's slot; a sender wakes
 * it only when its `sleeping` flag is set. The sleep times out after 20 ms,
 * doubled after each one that ended with nothing arrived, up to 640 ms:
 * hundreds of processes waiting their turn (clocksync0 at -n 512) would
 * otherwise wake 50 times a second each, scan every peer, and starve the
 * two that are working. Nothing is missed by sleeping long: piclrun wakes
 * every sleeper when it marks a process gone or stops the run, as a
 * process does when it closes or aborts. After a sleep the peers' states
 * are checked: piclrun marks a process that died, and after a sleep that
 * timed out, a peer whose pid no longer exists counts as dead (32 peers
 * looked at per sleep, round robin); then poll() returns -1 once nothing
 * more can arrive, and send() to a dead peer fails.
 *
 * Environment (set by piclrun): PICL_SHM (the segment's path) and
 * PICL_SHM_FD (the segment, open, inherited: used first), PICL_RANK
 * (0..N-1, or 32767 for the host), PICL_NPROCS, PICL_HOSTID (32767 or -1).
 * Without PICL_SHM the program runs alone: one node, no host; but one
 * that mpirun started as one of several processes (OMPI_COMM_WORLD_SIZE or
 * PMI_SIZE above 1) is refused at open0, as each would run alone.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE             /* process_vm_readv */
#endif
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "backend.h"
#include "env.h"
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
#include <sys/uio.h>
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
	uint64_t cma_seq;       /* CMA messages sent */
};

/* With PICL_CMA=1, messages from this size up (PICL_CMA_MIN) go by CMA. */
#define CMA_MIN_DEFAULT (32u << 10)

/* Messages up to this size go in one frame; larger ones in chunks of a
 * quarter of the message, between CHUNK_MIN and CHUNK_MAX bytes, so that
 * the receiver copies a chunk out while the sender copies the next one in. */
#define ONE_FRAME_MAX (16u << 10)
#define CHUNK_MIN (8u << 10)
#define CHUNK_MAX (32u << 10)

/* wait()'s futex sleep: the first, and the longest (doubling in between). */
#define SLEEP_MIN_NS (20 * 1000 * 1000L)
#define SLEEP_MAX_NS (640 * 1000 * 1000L)

/* A slot's `sleeping`: what a sender that put a message in does. */
enum {
	AWAKE = 0,              /* nothing */
	SLEEPING = 1,           /* bumps the futex word and wakes it */
	YIELDING = 2            /* bumps the futex word (local_wait) */
};

/* Peers whose pid is looked at after a sleep that timed out. */
#define PROBE_MAX 32u

/* A polling loop (poll() over and over, no wait() between) with nothing
 * left to arrive fails after this many fruitless polls and this long:
 * see poll_empty(). */
#define GIVEUP_POLLS 1000u
#define GIVEUP_S 1.0

static struct {
	char *base;
	size_t size;
	struct picl_shm_head *h;
	char *ctl, *data;       /* the rings' indices, their data */
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
	size_t cma_min;         /* smallest message sent by CMA */
	size_t maxchunk;        /* largest frame's payload */
	size_t chunk;           /* PICL_CHUNK: every frame's payload, or 0 */
	int cma_broken;         /* tests: act as if CMA were refused */
	long sleep_ns;          /* wait()'s next futex timeout */
	uint32_t probe_next;    /* the next peer whose pid is looked at */
	int waited;             /* wait() was called since the last poll() */
	unsigned long fruitless;        /* polls in a row that found nothing */
	double giveup_at;       /* a polling loop fails then (0: not set) */
} L = { .pend_src = -1, .sleep_ns = SLEEP_MIN_NS };

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
	return L.data + (size_t)((char *)r - L.ctl) / PICL_RING_CTL * L.rsize;
}

static void futex_wake(_Atomic uint32_t *f)
{
	syscall(SYS_futex, (uint32_t *)f, FUTEX_WAKE, 1, NULL, NULL, 0);
}

/* 1 when the wait timed out (nobody woke us). */
static int futex_wait(_Atomic uint32_t *f, uint32_t val, long ns)
{
	struct timespec ts = { 0, ns };

	return syscall(SYS_futex, (uint32_t *)f, FUTEX_WAIT, val, &ts, NULL,
		       0) < 0 && errno == ETIMEDOUT;
}

/* ---- init / finalize ------------------------------------------------------ */

static void catch_sigbus(void);
static void on_stop_signal(int sig);

static int trace_lost_early;    /* local_trace_lost before init */

/* Before init: piclrun's PICL_RANK, or 0 for a program run alone. */
static int local_id_hint(void)
{
	const char *path = getenv("PICL_SHM");
	int rank;

	if (!path || !*path)
		return 0;
	if (picl_env_int("PICL_RANK", &rank) || (rank < 0 && rank != PICL_HOST))
		return -1;
	return rank;
}

/*
 * The CPUs this process may run on: those of its affinity mask (taskset,
 * cgroups' cpusets), not all those online. Spinning pays only when every
 * process has a CPU of its own; counted from the CPUs online, two
 * processes held to one CPU spun for room in a ring their receiver could
 * not run to empty (a send waited out 2000 rounds, each a kill(2) and a
 * scan of the rings): a run under taskset -c 0 took 9 times as long.
 */
static long usable_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof set, &set) == 0)
		return CPU_COUNT(&set);
	return sysconf(_SC_NPROCESSORS_ONLN);   /* more than CPU_SETSIZE */
}

static int local_init(int *nprocs, int *me, int *host)
{
	const char *path = getenv("PICL_SHM");
	struct stat st;
	long long cma, cma_min, x;
	int fd, rank, n, hostid = -1;

	if (!path || !*path) {
		/* Started by mpirun as one of several processes, each would run
		 * alone, as node 0 of a run of its own, and write the same trace
		 * file: a wrong result that looks right, so refuse. (Open MPI
		 * sets OMPI_COMM_WORLD_SIZE, MPICH and others PMI_SIZE.) */
		static const char *const launcher[] = {
			"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"
		};
		size_t k;

		for (k = 0; k < sizeof launcher / sizeof *launcher; k++)
			if (picl_env_int(launcher[k], &n) == 0 && n > 1) {
				fprintf(stderr, "picl: this program is linked "
					"with libpicl, the local runtime that "
					"piclrun starts, but was started as one "
					"of %d processes (%s=%d): build it with "
					"picl-cc --mpi to run it under mpirun, "
					"or run it with piclrun -n %d\n", n,
					launcher[k], n, n);
				return -1;
			}
		L.single = 1;
		L.nprocs = 1;
		L.host = -1;
		*nprocs = 1;
		*me = 0;
		*host = -1;
		return 0;
	}
	if (picl_env_int("PICL_RANK", &rank) || picl_env_int("PICL_NPROCS", &n)) {
		fprintf(stderr, "picl: PICL_RANK or PICL_NPROCS missing or bad\n");
		return -1;
	}
	picl_env_int("PICL_HOSTID", &hostid);
	/* The segment inherited from piclrun (its name may be gone already);
	 * closed once mapped. */
	if (picl_env_int("PICL_SHM_FD", &fd) < 0 || fd < 0 || fstat(fd, &st) < 0)
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
	    L.h->total > L.size ||
	    L.h->total != picl_shm_size(L.h->nslots, L.h->ring_size) ||
	    L.h->rings_off != picl_shm_rings_off(L.h->nslots) ||
	    L.h->data_off != picl_shm_data_off(L.h->nslots)) {
		fprintf(stderr, "picl: %s: not a piclrun segment for %d "
			"processes\n", path, n);
		return -1;
	}
	L.nprocs = n;
	L.host = L.h->host;
	L.nslots = L.h->nslots;
	L.rsize = L.h->ring_size;
	L.mask = L.rsize - 1;
	L.ctl = L.base + L.h->rings_off;
	L.data = L.base + L.h->data_off;
	if (rank != PICL_HOST && (rank < 0 || rank >= n)) {
		fprintf(stderr, "picl: PICL_RANK %d out of range\n", rank);
		return -1;
	}
	L.me = (uint32_t)slot_of(rank);
	L.in = calloc(L.nslots, sizeof *L.in);
	L.out = calloc(L.nslots, sizeof *L.out);
	if (!L.in || !L.out)
		return -1;
	L.spin = usable_cpus() >= (long)L.nslots;
	/* CMA only when asked for (PICL_CMA=1): streaming through the ring
	 * was faster on every size measured (bench/README.md). The settings
	 * are each read (a bad one said: env.h) whatever the others say;
	 * under piclrun, which checked them, they are good or unset. */
	cma = 0;
	cma_min = CMA_MIN_DEFAULT;
	picl_env_cma("picl", &cma);
	picl_env_cma_min("picl", &cma_min);
	L.cma_min = cma ? (size_t)cma_min : (size_t)-1;
	x = 0;
	picl_env_cma_broken("picl", &x);
	L.cma_broken = x == 1;
	L.maxchunk = L.rsize / 4 - sizeof(struct picl_frame);
	L.chunk = 0;
	if (picl_env_chunk("picl", (long long)L.maxchunk, &x) == 1)
		L.chunk = (size_t)x & ~(size_t)15;
	atomic_store(&slot(L.me)->pid, (int32_t)getpid());
	catch_sigbus();
	picl_api_catch_stop_signals(on_stop_signal);
	if (trace_lost_early)
		atomic_store(&slot(L.me)->trace_lost, 1);
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

static void wake(uint32_t s)
{
	atomic_fetch_add(&slot(s)->futex, 1);
	futex_wake(&slot(s)->futex);
}

/*
 * A process that closes matters to two kinds of sleeper only: a sender
 * waiting for room in its ring to us, and the last process still open,
 * which has nobody left to hear from (check_peers). Waking every sleeper,
 * as for a death, made close0 at -n 1024 quadratic in wake-ups (each
 * process released from close0's barrier woke all those still waiting,
 * each scanning every incoming ring): most of a trivial run's time. The
 * seq_cst store and loads make sure that of two processes closing at once
 * at least one sees the other closed, so the last one open is woken; a
 * sleep also times out (check_peers then looks again).
 */
static void local_finalize(void)
{
	uint32_t s, open = 0, last = 0;

	if (L.single || !L.base)
		return;
	atomic_store(&slot(L.me)->state, PICL_ST_CLOSED);
	for (s = 0; s < L.nslots; s++) {
		if (s == L.me)
			continue;
		if (atomic_load(&slot(s)->state) < PICL_ST_CLOSED) {
			open++;
			last = s;
		}
		if (atomic_load(&slot(s)->blocked) == PICL_BL_SEND &&
		    atomic_load(&slot(s)->blocked_on) == id_of(L.me))
			wake(s);
	}
	if (open == 1)
		wake(last);
}

static void local_abort(int code)
{
	if (!L.single && L.base) {
		/* for piclrun, which blames the first process that failed on
		 * its own, not those that failed because it did */
		atomic_store(&slot(L.me)->after_peer, (code & PICL_ABORT_PEER) != 0);
		atomic_store(&slot(L.me)->state, PICL_ST_DIED);
		wake_all();
	}
	code &= 0xff;
	exit(code ? code : 1);
}

/* For piclrun (reaped): said in the slot, now or once init has it. */
static void local_trace_lost(void)
{
	if (!L.single && L.base)
		atomic_store(&slot(L.me)->trace_lost, 1);
	else
		trace_lost_early = 1;
}

/*
 * piclrun reserves the segment's head and indices, but the rings' data of
 * a big run only as its pages are first touched (piclrun.c, make_segment):
 * when the file system holding the segment is full, that touch is a
 * SIGBUS. Said here as what it is, the process marked dead (so that the
 * others stop waiting for it), then the fault is taken again with the
 * default action: piclrun reports the process killed by SIGBUS. Any other
 * SIGBUS goes to whatever handled it before open0.
 */
static struct sigaction old_sigbus;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	static const char m1[] = "picl: process ";
	static const char m2[] = ": no room for the shared memory of the run "
		"(SIGBUS touching a page of a ring: the file system holding it "
		"is full): run fewer processes or set a smaller "
		"PICL_RING_SIZE\n";
	char num[16], *p = num + sizeof num;
	char line[sizeof m1 + sizeof num + sizeof m2];
	size_t n;
	int id = id_of(L.me);
	ssize_t k;

	(void)uc;
	if (si->si_code <= 0 || (char *)si->si_addr < L.base ||
	    (char *)si->si_addr >= L.base + L.size) {
		sigaction(SIGBUS, &old_sigbus, NULL);
		if (si->si_code <= 0)   /* sent, not a fault: again */
			raise(sig);
		return;
	}
	do
		*--p = (char)('0' + id % 10);
	while ((id /= 10) > 0);
	/* one write: two processes failing at once do not mix their lines */
	memcpy(line, m1, sizeof m1 - 1);
	n = sizeof m1 - 1;
	memcpy(line + n, p, (size_t)(num + sizeof num - p));
	n += (size_t)(num + sizeof num - p);
	memcpy(line + n, m2, sizeof m2 - 1);
	n += sizeof m2 - 1;
	k = write(2, line, n);
	(void)k;
	atomic_store(&slot(L.me)->state, PICL_ST_DIED);
	wake_all();
	signal(SIGBUS, SIG_DFL);
}

static void catch_sigbus(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &old_sigbus);
}

/*
 * Ctrl-C in a terminal sends SIGINT to piclrun and to every process of
 * the run at once (one process group); SIGTERM or SIGHUP to the group
 * (a batch system ending the job, a closed terminal) does the same. With
 * the default action each process died at once, its trace still in its
 * buffer, and piclrun had no part to merge. So a process of a run
 * catches these signals, unless its program set their disposition
 * before open0 (a handler, or ignored as by nohup), and only notes
 * them: its next communication call (or the wait it is in) fails,
 * "interrupted by SIGINT", and the way out of a PICL error writes its
 * part. The slot tells piclrun, which stops the whole run as for its own
 * signal (when only this process got it).
 *
 * A second stop signal means now: Ctrl-C pressed again, or piclrun at the
 * end of its 2 s grace, to a process that noted the first but did not
 * stop, computing without PICL calls (it used to be killed there with
 * its trace). The handler then takes the emergency write (api.c: the
 * part written from a child made with _Fork, a -7 record "stopped by a
 * second SIGINT") and lets the signal kill the process. Unless a way out
 * is writing the part already (a call failed at the first signal): that
 * one ends the process, and the signal is left to it.
 */
static volatile sig_atomic_t stop_sig;

static void on_stop_signal(int sig)
{
	int first = stop_sig;

	if (first) {
		if (picl_api_emergency(sig, PICL_DEATH_STOPPED, first) == 0)
			return;
		signal(sig, SIG_DFL);
		raise(sig);     /* delivered when the handler returns */
		return;
	}
	stop_sig = sig;
	atomic_store_explicit(&slot(L.me)->stop_sig, sig, memory_order_relaxed);
}

/* A stop signal caught, or piclrun stopping the run (--timeout, its own
 * signal): nothing is sent or received any more. */
static int stopping(void)
{
	return stop_sig || atomic_load_explicit(&L.h->stop, memory_order_relaxed);
}

/* Why the calls fail once stopping(): for api.c's messages. */
static const char *local_stopped(void)
{
	static char why[48];

	if (L.single || !L.h)
		return NULL;
	if (stop_sig) {
		const char *sn = sigabbrev_np(stop_sig);

		snprintf(why, sizeof why, "interrupted by SIG%s", sn ? sn : "?");
		return why;
	}
	if (atomic_load(&L.h->stop))
		return "piclrun stopped the run";
	return NULL;
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

/*
 * Sets L.broken when a peer died or every peer is gone, as the states in
 * the slots say: piclrun marks a death and wakes every sleeper. probe (a
 * sleep that timed out): also look whether the pids of the next PROBE_MAX
 * peers, round robin, still exist, in case piclrun has not (a kill(2)
 * each: probing every peer after every sleep was the most of clocksync0's
 * time at -n 1024).
 */
static void check_peers(int probe)
{
	uint32_t s, k;
	int gone = 0, died = 0, st;

	for (s = 0; s < L.nslots; s++) {
		if (s == L.me)
			continue;
		st = atomic_load(&slot(s)->state);
		if (st >= PICL_ST_CLOSED)
			gone++;
		if (st == PICL_ST_DIED || st == PICL_ST_EXITED)
			died = 1;
	}
	for (k = 0; probe && k < PROBE_MAX && k < L.nslots; k++) {
		s = L.probe_next++ % L.nslots;
		if (s != L.me && peer_gone(s) == PICL_ST_DIED)
			died = 1;
	}
	if (died || gone == (int)L.nslots - 1 || stopping())
		L.broken = 1;
}

/* ---- receiving ------------------------------------------------------------ */

/*
 * A sender sleeping until there is room in its ring to me: wake it. The
 * fence pairs with sleep_for_room's: of our tail store and its `sleeping`
 * store, one side sees the other's. `sleeping` is loaded with acquire
 * order so that, once we see it set, we also see the `blocked` the sender
 * stored before it: two relaxed loads may be done in either order (not on
 * x86, but on ARM or POWER), and an old `blocked` read after a new
 * `sleeping` would skip the wake-up and leave the sender to its timeout.
 */
static void wake_sender(uint32_t s)
{
	struct picl_shm_slot *sl = slot(s);

	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&sl->sleeping, memory_order_acquire) &&
	    atomic_load_explicit(&sl->blocked, memory_order_relaxed) ==
	    PICL_BL_SEND) {
		atomic_fetch_add(&sl->futex, 1);
		futex_wake(&sl->futex);
	}
}

/*
 * n bytes of ring r (from slot in - L.in) read: the room given back, and
 * its sender woken if it sleeps for room (sleep_for_room). Every way a
 * ring's tail moves goes through here (or do_release, which does the
 * same): a one-frame message taken once did not wake the sender, which
 * then slept its 2 ms out each time the ring was full.
 */
static void consume(struct picl_ring_ctl *r, struct insrc *in, uint64_t n)
{
	in->tail += n;
	atomic_store_explicit(&r->tail, in->tail, memory_order_release);
	wake_sender((uint32_t)(in - L.in));
}

static void do_release(void)
{
	if (L.pend_src >= 0) {
		struct insrc *in = &L.in[L.pend_src];
		struct picl_ring_ctl *r = picl_shm_ring(L.base,
							(uint32_t)L.pend_src,
							L.me);
		L.pend_src = -1;
		consume(r, in, L.pend_tail - in->tail);
	}
	if (L.pend_free) {
		free(L.pend_free);
		L.pend_free = NULL;
	}
}

/* Room for a message of total bytes in s's reassembly buffer. */
static void asm_reserve(struct insrc *in, uint64_t total)
{
	if (in->asm_cap >= total && in->asm_buf)
		return;
	free(in->asm_buf);
	in->asm_buf = malloc(total ? total : 1);
	in->asm_cap = in->asm_buf ? total : 0;
	if (!in->asm_buf) {
		fprintf(stderr, "picl: out of memory receiving %llu bytes\n",
			(unsigned long long)total);
		local_abort(1);
	}
}

/* Copy n bytes at addr in process pid into dst: 0, or -1 (CMA refused). */
static int cma_read(pid_t pid, void *dst, uint64_t addr, size_t n)
{
	size_t done = 0;

	while (done < n) {
		struct iovec l = { (char *)dst + done, n - done };
		struct iovec r = { (void *)(uintptr_t)(addr + done), n - done };
		ssize_t k = process_vm_readv(pid, &l, 1, &r, 1, 0);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		done += (size_t)k;
	}
	return 0;
}

/*
 * The CMA message whose frame f is next in ring r from slot s: copied into
 * dst (when dst is not NULL), the frame consumed, the sender told. 0, or -1
 * when it could not be read: the sender then sends it through the ring.
 */
static int cma_take(uint32_t s, struct picl_ring_ctl *r, struct insrc *in,
		    const struct picl_frame *f, void *dst)
{
	struct picl_cma_desc d;
	uint64_t total = f->total;
	int ok = 1;

	memcpy(&d, f + 1, sizeof d);
	if (L.cma_broken)
		ok = 0;
	else if (dst && total)
		ok = cma_read((pid_t)atomic_load(&slot(s)->pid), dst, d.addr,
			      (size_t)total) == 0;
	consume(r, in, sizeof *f + pad16(sizeof d));
	if (!ok)
		atomic_store(&r->cma_fail, 1);
	atomic_store_explicit(&r->cma_ack, d.seq, memory_order_release);
	wake_sender(s);
	return ok ? 0 : -1;
}

/*
 * The frame at the reader's position in ring r (past a wrap marker), with
 * *head the writer's position read; NULL when the ring is empty.
 */
static struct picl_frame *next_frame(struct picl_ring_ctl *r, struct insrc *in,
				     uint64_t *head)
{
	for (;;) {
		uint64_t pos;
		struct picl_frame *f;

		*head = atomic_load_explicit(&r->head, memory_order_acquire);
		if (*head == in->tail)
			return NULL;
		pos = in->tail & L.mask;
		f = (struct picl_frame *)(ring_data(r) + pos);
		if (f->chunk != PICL_FRAME_WRAP)
			return f;
		consume(r, in, L.rsize - pos);
	}
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
		struct picl_frame *f = next_frame(r, in, &head);

		if (!f)
			return 0;
		if (f->chunk == PICL_FRAME_CMA) {
			uint64_t total = f->total;
			*type = f->type;
			asm_reserve(in, total);
			if (cma_take(s, r, in, f, in->asm_buf) < 0)
				continue;       /* it comes through the ring */
			*len = total;
			*payload = in->asm_buf;
			if (in->asm_cap > ASM_KEEP) {
				L.pend_free = in->asm_buf;
				in->asm_buf = NULL;
				in->asm_cap = 0;
			}
			return 1;
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
			asm_reserve(in, f->total);
			in->asm_active = 1;
			in->asm_len = 0;
			in->asm_total = f->total;
		}
		memcpy(in->asm_buf + in->asm_len, f + 1, f->chunk);
		in->asm_len += f->chunk;
		*type = f->type;
		consume(r, in, sizeof *f + pad16(f->chunk));
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

static double local_clock(void);

/* poll() returns r (1: a message): the count of fruitless polls restarts. */
static int polled(int r)
{
	L.waited = 0;
	L.fruitless = 0;
	L.giveup_at = 0;
	return r;
}

/*
 * poll() found nothing: 0, or -1 when nothing can arrive any more (a peer
 * died, every peer is gone, or the run was stopped: L.broken) and waiting
 * for it is what the caller does. A blocking call (recv0, wait0, recvend0)
 * waits between its polls: it fails at its first poll after a wait. A
 * polling loop (probe0, recvstatus0 called until they say yes) never
 * waits, so nothing else would look at the peers, and it would spin for
 * ever once they are gone: every 64 fruitless polls the peers' states are
 * looked at (and every 4096 their pids), and once nothing can arrive, the
 * loop fails after GIVEUP_POLLS more fruitless polls in a row taking at
 * least GIVEUP_S. A probe0 or two after the peers ended (draining what
 * they sent, say) still just return 0.
 */
static int poll_empty(void)
{
	int waited = L.waited;

	L.waited = 0;
	L.fruitless++;
	if (!L.broken && L.fruitless % 64 == 0)
		check_peers(L.fruitless % 4096 == 0);
	if (!L.broken)
		return 0;
	if (waited)
		return -1;
	if (L.giveup_at == 0) {
		L.giveup_at = local_clock() + GIVEUP_S;
		L.fruitless = 1;
		return 0;
	}
	if (L.fruitless >= GIVEUP_POLLS && local_clock() >= L.giveup_at)
		return -1;
	return 0;
}

static int local_poll(int *src, int *type, size_t *len, const void **payload)
{
	uint32_t i, s;
	int pass;

	if (L.single)
		return 0;
	do_release();
	if (stopping()) {
		L.broken = 1;
		return -1;
	}
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
		return polled(1);
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
				return polled(1);
			}
		}
		if (!L.broken)
			break;
	}
	return poll_empty();
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

/* Sleep on my futex until a sender wakes me or timeout: 1 on a timeout. */
static int sleep_on_futex(long ns)
{
	struct picl_shm_slot *me = slot(L.me);
	uint32_t seq = atomic_load(&me->futex);
	int timedout = 0;

	atomic_store(&me->sleeping, SLEEPING);
	atomic_thread_fence(memory_order_seq_cst);
	if (!any_incoming())
		timedout = futex_wait(&me->futex, seq, ns);
	atomic_store(&me->sleeping, AWAKE);
	return timedout;
}

/*
 * wait(): spin (when there are CPUs enough), yield, sleep. A look at
 * whether anything came is a scan of every incoming ring's head (at -n
 * 1024, 1024 cache lines): done once, with `sleeping` at YIELDING, after
 * which a sender bumps our futex word (no system call), so that each look
 * while yielding is a load of that word; and once more before the sleep
 * (sleep_on_futex: `sleeping` then at SLEEPING, after which a sender also
 * wakes us). Scanning before every yield and after the sleep made the
 * scans 14% of the CPU time of a run at -n 1024.
 */
static void local_wait(void)
{
	struct picl_shm_slot *me = slot(L.me);
	int i, blocked, timedout, idle = L.sleep_ns > SLEEP_MIN_NS;
	uint32_t seq;

	if (L.single) {
		sched_yield();
		return;
	}
	L.waited = 1;
	if (L.broken) {         /* nothing to sleep for: poll() says so */
		sched_yield();
		return;
	}
	/* Idle (the last sleep ran out with nothing come): straight to sleep,
	 * each look being a scan of every incoming ring. */
	if (L.spin && !idle) {
		for (i = 0; i < 500; i++) {
			if (any_incoming())
				goto arrived;
			cpu_relax();
		}
	}
	if (!idle) {
		atomic_store(&me->sleeping, YIELDING);
		atomic_thread_fence(memory_order_seq_cst);
		seq = atomic_load(&me->futex);
		for (i = 0; i < 8; i++) {
			if (i == 0 ? any_incoming() :
			    atomic_load(&me->futex) != seq) {
				atomic_store(&me->sleeping, AWAKE);
				goto arrived;
			}
			sched_yield();
		}
	}
	blocked = atomic_load(&me->blocked);
	atomic_store(&me->blocked, PICL_BL_RECV);
	timedout = sleep_on_futex(L.sleep_ns);
	atomic_store(&me->blocked, blocked);
	check_peers(timedout);
	if (!timedout)          /* woken: a message, or a process gone */
		goto arrived;
	L.sleep_ns = L.sleep_ns * 2 < SLEEP_MAX_NS ? L.sleep_ns * 2 :
		     SLEEP_MAX_NS;
	return;
arrived:
	L.sleep_ns = SLEEP_MIN_NS;
}

/* ---- receiving into the caller's buffer ------------------------------------ */

/* Has the chunked message starting at ring r's tail wholly arrived? */
static int arrived_whole(struct picl_ring_ctl *r, struct insrc *in,
			 uint64_t head, uint64_t total)
{
	uint64_t t = in->tail, got = 0;

	while (t != head) {
		struct picl_frame *f =
			(struct picl_frame *)(ring_data(r) + (t & L.mask));
		if (f->chunk == PICL_FRAME_WRAP) {
			t += L.rsize - (t & L.mask);
			continue;
		}
		got += f->chunk;
		if (got >= total)
			return 1;
		t += sizeof *f + pad16(f->chunk);
	}
	return 0;
}

/*
 * The chunked message starting at ring r's tail, copied chunk by chunk into
 * buf as the sender writes them: the sender fills the next chunk while we
 * copy this one out. 1, or -1 if the sender died before it was all there.
 */
static int stream_into(uint32_t s, struct picl_ring_ctl *r, struct insrc *in,
		       char *buf, uint64_t total)
{
	uint64_t got = 0, head;
	unsigned rounds = 0;

	for (;;) {
		struct picl_frame *f;

		head = atomic_load_explicit(&r->head, memory_order_acquire);
		if (head == in->tail) {
			rounds++;
			if (L.spin && rounds < 4000) {
				cpu_relax();
			} else if (rounds < 4100) {
				sched_yield();
			} else {
				local_wait();
				if (L.broken && peer_gone(s))
					return -1;
			}
			continue;
		}
		rounds = 0;
		f = (struct picl_frame *)(ring_data(r) + (in->tail & L.mask));
		if (f->chunk == PICL_FRAME_WRAP) {
			consume(r, in, L.rsize - (in->tail & L.mask));
			continue;
		}
		memcpy(buf + got, f + 1, f->chunk);
		got += f->chunk;
		consume(r, in, sizeof *f + pad16(f->chunk));
		if (got >= total)
			return 1;
	}
}

/*
 * The next message in ring s: one of type want goes into buf (1), or is too
 * long (2); another goes to other() (3). -1: its sender died in the middle
 * of it; 0: nothing has arrived (when not blocking: wholly arrived).
 */
static int ring_into(uint32_t s, char *buf, size_t cap, int want, int block,
		     int *mtype, size_t *len,
		     void (*other)(int, int, const void *, size_t))
{
	struct picl_ring_ctl *r = picl_shm_ring(L.base, s, L.me);
	struct insrc *in = &L.in[s];

	for (;;) {
		struct picl_frame *f;
		uint64_t head, total;
		const void *p;
		size_t n;
		int type;

		f = next_frame(r, in, &head);
		if (!f)
			return 0;
		type = f->type;
		total = f->total;
		if (in->asm_active || !picl_backend_wants(want, type) ||
		    total > cap) {
			/* as poll() takes it */
			if (!read_ring(s, &type, &n, &p))
				return 0;
			if (!picl_backend_wants(want, type)) {
				other(id_of(s), type, p, n);
				do_release();
				return 3;
			}
			*mtype = type;
			*len = n;
			if (n > cap) {
				do_release();
				return 2;
			}
			if (n)
				memcpy(buf, p, n);
			do_release();
			return 1;
		}
		*mtype = type;
		*len = (size_t)total;
		if (f->chunk == PICL_FRAME_CMA) {
			if (cma_take(s, r, in, f, buf) < 0)
				continue;       /* it comes through the ring */
			return 1;
		}
		if (f->chunk == total) {
			if (total)
				memcpy(buf, f + 1, total);
			consume(r, in, sizeof *f + pad16(total));
			return 1;
		}
		if (!block && !arrived_whole(r, in, head, total))
			return 0;
		return stream_into(s, r, in, buf, total);
	}
}

static int recv_rings(void *buf, size_t cap, int want, int block,
		      int *src, int *mtype, size_t *len,
		      void (*other)(int, int, const void *, size_t));

static int local_recv_into(void *buf, size_t cap, int want, int block,
			   int *src, int *mtype, size_t *len,
			   void (*other)(int, int, const void *, size_t))
{
	int r;

	if (L.single)
		return -2;
	do_release();
	if (stopping()) {
		L.broken = 1;
		return -1;
	}
	while (L.qhead) {               /* drained while we were sending */
		struct lq *q = L.qhead;
		L.qhead = q->next;
		if (!L.qhead)
			L.qtail = NULL;
		if (!picl_backend_wants(want, q->type)) {
			other(q->src, q->type, q->data, q->len);
			free(q);
			continue;
		}
		*src = q->src;
		*mtype = q->type;
		*len = q->len;
		r = q->len <= cap ? 1 : 2;
		if (r == 1 && q->len)
			memcpy(buf, q->data, q->len);
		free(q);
		return polled(r);
	}
	if (block)      /* for piclrun --timeout's report */
		atomic_store_explicit(&slot(L.me)->blocked, PICL_BL_RECV,
				      memory_order_relaxed);
	r = recv_rings(buf, cap, want, block, src, mtype, len, other);
	if (block)
		atomic_store_explicit(&slot(L.me)->blocked, PICL_BL_NONE,
				      memory_order_relaxed);
	return r > 0 ? polled(r) : r;
}

/* recv_into()'s scan of the rings, waiting if block is set. */
static int recv_rings(void *buf, size_t cap, int want, int block,
		      int *src, int *mtype, size_t *len,
		      void (*other)(int, int, const void *, size_t))
{
	uint32_t i, s;
	int pass, r;

	for (;;) {
		/* The rings round robin, one message at a time, as poll()
		 * goes; a second pass after seeing `broken` catches the last
		 * messages. */
		for (pass = 0; pass < 2; pass++) {
again:
			for (i = 0; i < L.nslots; i++) {
				s = (L.next_src + i) % L.nslots;
				if (s == L.me)
					continue;
				r = ring_into(s, buf, cap, want, block, mtype,
					      len, other);
				if (!r)
					continue;
				L.next_src = s + 1;
				if (r == 3)
					goto again;
				*src = id_of(s);
				return r;
			}
			if (!L.broken)
				break;
		}
		if (pass == 2)
			return -1;
		if (!block)
			return 0;
		local_wait();
	}
}

/* ---- sending -------------------------------------------------------------- */

static void notify(uint32_t d)
{
	struct picl_shm_slot *sl = slot(d);

	int32_t st;

	atomic_thread_fence(memory_order_seq_cst);
	st = atomic_load_explicit(&sl->sleeping, memory_order_relaxed);
	if (st != AWAKE) {
		atomic_fetch_add(&sl->futex, 1);
		if (st == SLEEPING)
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
	atomic_store(&me->sleeping, SLEEPING);
	atomic_thread_fence(memory_order_seq_cst);
	o->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
	if (L.rsize - (o->head - o->tail_seen) < want && !any_incoming())
		futex_wait(&me->futex, seq, 2 * 1000 * 1000L);
	atomic_store(&me->sleeping, AWAKE);
	atomic_store(&me->blocked, PICL_BL_NONE);
}

/* Wait until `need` contiguous bytes (after a possible wrap) are free in the
 * ring to d; writes the wrap frame if needed. 0, or -1 if d is gone. */
static int room(struct picl_ring_ctl *r, struct outdst *o, uint32_t d,
		uint64_t need)
{
	uint64_t pos = o->head & L.mask, want = need;
	unsigned long rounds = 0;
	int spinning;

	if (pos + need > L.rsize)
		want += L.rsize - pos;
	while (L.rsize - (o->head - o->tail_seen) < want) {
		o->tail_seen = atomic_load_explicit(&r->tail,
						    memory_order_acquire);
		if (L.rsize - (o->head - o->tail_seen) >= want)
			break;
		drain_to_queue();
		rounds++;
		spinning = L.spin && rounds < 2000;
		/* d's liveness (peer_gone: a kill(2)) once the spinning is
		 * over: looked at in every round, a wait for room made 2000
		 * system calls before its first yield, and 2 processes
		 * exchanging 20000 messages made 0.8 to 18 million */
		if (!spinning && (peer_gone(d) || stopping()))
			return -1;
		if (spinning) {
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

/* Sleep until d has read our CMA message seq (it wakes us), a message
 * comes in, or 2 ms pass; as sleep_for_room. */
static void sleep_for_ack(struct picl_ring_ctl *r, uint64_t seq, uint32_t d)
{
	struct picl_shm_slot *me = slot(L.me);
	uint32_t fseq = atomic_load(&me->futex);

	atomic_store(&me->blocked_on, id_of(d));
	atomic_store(&me->blocked, PICL_BL_SEND);
	atomic_store(&me->sleeping, SLEEPING);
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&r->cma_ack, memory_order_acquire) != seq &&
	    !any_incoming())
		futex_wait(&me->futex, fseq, 2 * 1000 * 1000L);
	atomic_store(&me->sleeping, AWAKE);
	atomic_store(&me->blocked, PICL_BL_NONE);
}

/*
 * Send by CMA: a descriptor frame, then wait (taking in what arrives
 * meanwhile) until d has copied the message out of buf. 0; 1 when d could
 * not (send it through the ring); -1 when d is gone.
 */
static int send_cma(struct picl_ring_ctl *r, struct outdst *o, uint32_t d,
		    const void *buf, size_t len, int type)
{
	struct picl_cma_desc desc;
	struct picl_frame *f;
	uint64_t need = sizeof *f + pad16(sizeof desc);
	unsigned long rounds = 0;

	if (room(r, o, d, need) < 0)
		return -1;
	desc.addr = (uint64_t)(uintptr_t)buf;
	desc.seq = ++o->cma_seq;
	f = (struct picl_frame *)(ring_data(r) + (o->head & L.mask));
	f->chunk = PICL_FRAME_CMA;
	f->type = type;
	f->total = len;
	memcpy(f + 1, &desc, sizeof desc);
	o->head += need;
	atomic_store_explicit(&r->head, o->head, memory_order_release);
	notify(d);
	while (atomic_load_explicit(&r->cma_ack, memory_order_acquire) !=
	       desc.seq) {
		rounds++;
		if (L.spin && rounds < 20000) {
			cpu_relax();
			if (rounds % 64)
				continue;
		} else if (rounds < 22000) {
			sched_yield();
		} else {
			sleep_for_ack(r, desc.seq, d);
		}
		drain_to_queue();
		if ((peer_gone(d) || stopping()) &&
		    atomic_load(&r->cma_ack) != desc.seq)
			return -1;      /* (it may have read it, then gone) */
	}
	return atomic_load(&r->cma_fail) ? 1 : 0;
}

/* The payload of each frame of a message of len bytes. */
static size_t chunk_for(size_t len)
{
	size_t c;

	if (L.chunk)
		return L.chunk;
	if (len <= ONE_FRAME_MAX)
		return L.maxchunk;
	c = (len / 4 + 15) & ~(size_t)15;
	c = c < CHUNK_MIN ? CHUNK_MIN : c > CHUNK_MAX ? CHUNK_MAX : c;
	return c < L.maxchunk ? c : L.maxchunk;
}

static int local_send(const void *buf, size_t len, int type, int dst)
{
	uint32_t d = (uint32_t)slot_of(dst);
	struct picl_ring_ctl *r;
	struct outdst *o;
	size_t off = 0, maxchunk = chunk_for(len);

	if (L.single || d >= L.nslots || d == L.me || stopping())
		return -1;
	r = picl_shm_ring(L.base, L.me, d);
	o = &L.out[d];
	do_release();
	if (len && len >= L.cma_min &&
	    !atomic_load_explicit(&r->cma_fail, memory_order_relaxed)) {
		int rc = send_cma(r, o, d, buf, len, type);
		if (rc < 0)
			return -1;
		if (rc == 0)
			goto sent;
	}
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
sent:
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
	.id_hint = local_id_hint,
	.finalize = local_finalize,
	.send = local_send,
	.poll = local_poll,
	.release = local_release,
	.recv_into = local_recv_into,
	.wait = local_wait,
	.clock = local_clock,
	.abort = local_abort,
	.trace_lost = local_trace_lost,
	.stopped = local_stopped,
	.no_more = "no message can arrive any more (a process ended or died, "
		   "or piclrun stopped the run)",
};
