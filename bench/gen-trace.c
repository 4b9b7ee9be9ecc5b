/*
 * gen-trace.c - write a large, realistic trace in the new PICL format.
 *
 * The trace is what PICL would write for an SPMD iterative solver running
 * on P processors (spec ORNL/TM-12125, Tables 3-20; Table 20 is the model
 * for the prologue and the statistics records), deterministic from a seed:
 * the same options give the same bytes on every machine (own PRNG,
 * integer-only arithmetic, no rand(), no libm, no locale).
 *
 * What each processor p writes:
 *  - prologue (Table 20): -901 tracenode entry first, a -904 tracelevel
 *    mark, -902 traceevents and -11 open0 and -903 tracefiles pairs, -5
 *    event labels, then -401 clocksync0 whose exit is 0.000005 on every
 *    processor: all times before it are negative;
 *  - steps, each made of: a tree of nested user blocks (traceblockbegin/end,
 *    types 0..15, depth up to 4, data "2 2 location parameter"; the same
 *    tree on every processor, durations with per-processor jitter that is
 *    often zero, so there are many exact ties between processors), user
 *    marks, tracedata records (record types 0 and 1, aliases 5 and 6); a
 *    neighbour exchange (user block 16: send0 -21 entry "3 2 len type dest"
 *    and exit, then recv0 entry "1 2 type" and exit "3 2 len type src", as
 *    -51 when the message had arrived and -52 when the receiver waited);
 *    now and then collectives as user blocks (18 bcast, 19 gsum: binomial
 *    trees of send0/recv0 with PICL's reserved message types, 20 barrier
 *    around sync0 -402 whose exit is the same instant everywhere), tracemsg
 *    (-911 entry/exit around a -7 message with blanks in its %c data) and a
 *    -5 label;
 *  - a traceflush (-912 entry, exit "1 2 bytes") whenever the processor's
 *    trace buffer (a per-processor size between 32 and 256 KiB of text)
 *    is full;
 *  - epilogue: -12 close0 mark, -901 exit last, then the statistics
 *    records -101/-102/-103 relative to -1 and to every user event type,
 *    computed from the processor's own events the way libpicl-trace's
 *    picl_stats (stats.c) and PICL's traceexit do, in Table 20's order.
 * One global -6 record (processor -1) comes first and defines alias 6 as
 * "%d%lf", used by tracedata records of type 1.
 *
 * Messages are matched: every send has the receive of the same (source,
 * destination, type) on the destination, and that receive ends after the
 * send began plus a latency that grows with the length.
 *
 * How it works. Processors are simulated step by step, all together (a
 * step needs everybody's clock for the messages); each processor's records
 * are formatted at once into its own queue of (time, text). The output is
 * a k-way merge of those queues by (time, processor) through a binary heap:
 * whenever a queue runs dry the next step is simulated. Processors stay
 * within a few steps of each other (barriers and collectives couple them),
 * so memory is bounded by P, never by the size of the trace.
 *  - default: the merged stream is written as it is, i.e. globally sorted
 *    by time, ties in processor order (then each processor's own order);
 *  - --unsorted: as PICL writes a trace file: each record goes to its
 *    processor's buffer, and a buffer is written out as one chunk when it
 *    is flushed (at the -912 traceflush, and at the end after the
 *    statistics records); -7 messages are written at once, as PICL does
 *    (spec 2.3.1), so they come before older buffered records of their
 *    processor (--buffered-messages: they wait in the buffer too).
 * Both modes write the same records (a stable sort by time of --unsorted
 * gives the default order except among ties of different processors).
 *
 * Usage: gen-trace [--seed N] [--procs P] [--records N | --size BYTES]
 *                  [--unsorted [--buffered-messages]] [--no-trace-volume]
 *                  [-o FILE]
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* Deterministic random numbers: splitmix64 seeds xoshiro256**              */
/* ------------------------------------------------------------------------ */

struct rng {
	uint64_t s[4];
};

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void rng_seed(struct rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ (stream * 0xd1b54a32d192ed03ULL);
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

/* Uniform in [0, n), n > 0 (Lemire's multiply-shift; the tiny bias of
 * skipping the rejection step does not matter here). */
static inline uint64_t rng_below(struct rng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rng_next(r) * n) >> 64);
}

/* Uniform in [lo, hi]. */
static inline int64_t rng_range(struct rng *r, int64_t lo, int64_t hi)
{
	return lo + (int64_t)rng_below(r, (uint64_t)(hi - lo + 1));
}

/* 1 with probability num/den. */
static inline int rng_chance(struct rng *r, uint64_t num, uint64_t den)
{
	return rng_below(r, den) < num;
}

/* Log-uniform in [lo, hi) roughly: a power of two times a uniform factor. */
static int64_t rng_logu(struct rng *r, int lo_bits, int hi_bits)
{
	int k = (int)rng_range(r, lo_bits, hi_bits - 1);

	return ((int64_t)1 << k) + (int64_t)rng_below(r, (uint64_t)1 << k);
}

/* ------------------------------------------------------------------------ */
/* Number formatting (no printf in the hot path)                             */
/* ------------------------------------------------------------------------ */

static const char digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static inline char *put_u64(char *p, uint64_t v)
{
	char tmp[24];
	char *e = tmp + sizeof(tmp), *q = e;

	while (v >= 100) {
		unsigned d = (unsigned)(v % 100) * 2;

		v /= 100;
		*--q = digit_pairs[d + 1];
		*--q = digit_pairs[d];
	}
	if (v >= 10) {
		unsigned d = (unsigned)v * 2;

		*--q = digit_pairs[d + 1];
		*--q = digit_pairs[d];
	} else {
		*--q = (char)('0' + v);
	}
	memcpy(p, q, (size_t)(e - q));
	return p + (e - q);
}

static inline char *put_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return put_u64(p, (uint64_t)0 - (uint64_t)v);
	}
	return put_u64(p, (uint64_t)v);
}

/* Exactly `n` digits, zero-padded. */
static inline char *put_fixed(char *p, uint64_t v, int n)
{
	int i;

	for (i = n - 1; i >= 0; i--) {
		p[i] = (char)('0' + v % 10);
		v /= 10;
	}
	return p + n;
}

/* A time in microseconds as seconds with 6 decimals: -715036 -> -0.715036. */
static inline char *put_time(char *p, int64_t us)
{
	uint64_t u;

	if (us < 0) {
		*p++ = '-';
		u = (uint64_t)0 - (uint64_t)us;
	} else {
		u = (uint64_t)us;
	}
	p = put_u64(p, u / 1000000);
	*p++ = '.';
	return put_fixed(p, u % 1000000, 6);
}

static inline char *put_str(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

/* ------------------------------------------------------------------------ */
/* Event types and statistics                                                */
/* ------------------------------------------------------------------------ */

#define NUSER 21                  /* user event types 0..20 */
#define UT_EXCHANGE 16
#define UT_REDIST 17
#define UT_BCAST 18
#define UT_GSUM 19
#define UT_BARRIER 20
#define NCOMPUTE 16               /* types 0..15 for compute blocks */
#define MAX_DEPTH 4

/* System event types this generator writes, in the order statistics
 * records list them (decreasing event number, as stats.c does). */
static const int32_t sys_events[] = {
	-11, -12, -21, -51, -52, -401, -402, -901, -902, -903, -904, -911, -912
};
#define NSYS ((int)(sizeof(sys_events) / sizeof(sys_events[0])))
#define NEV (NSYS + NUSER)        /* columns: system events, then users */
#define NREL (1 + NUSER)          /* rows: -1, then user types 0..20 */

static int ev_index(int32_t e)
{
	int i;

	if (e >= 0)
		return NSYS + e;
	for (i = 0; i < NSYS; i++)
		if (sys_events[i] == e)
			return i;
	return -1;
}

static int32_t ev_type(int i)
{
	return i < NSYS ? sys_events[i] : (int32_t)(i - NSYS);
}

struct cell {
	int64_t time;     /* microseconds */
	int64_t count;
	int64_t volume;
	unsigned char has_time, has_volume;
};

/* An open entry: event, entry time, the user windows open at the entry
 * (bit u set: user type u; its own bit left out). */
struct frame {
	int32_t event;
	int64_t t;
	uint32_t windows;
};

#define MAX_FRAMES 16

/* ------------------------------------------------------------------------ */
/* Per-processor state                                                       */
/* ------------------------------------------------------------------------ */

/* A queued record: header, then `len` bytes of text (with its newline),
 * padded to 8 bytes. */
struct qrec {
	int64_t t;
	uint32_t len;
	uint32_t flags;
};

enum {
	Q_CHUNK_START = 1u << 0,  /* --unsorted: write the buffer out first */
	Q_IMMEDIATE = 1u << 1,    /* --unsorted: not buffered (-7 message) */
	Q_LAST = 1u << 2          /* --unsorted: write the buffer out after */
};

#define REC_MAX 2048              /* longest record we ever format */

struct proc {
	int32_t id;
	int64_t t;                /* clock, microseconds */
	struct rng rng;

	char *q;                  /* queue of qrec + text */
	size_t qhead, qtail, qcap;

	char *chunk;              /* --unsorted: the trace buffer */
	size_t clen, ccap;
	uint64_t since_flush;     /* bytes buffered since the last flush */
	uint64_t tracesize;       /* flush when since_flush reaches this */
	uint32_t next_flags;      /* flags for the next record queued */
	size_t last_off;          /* queue offset of the last record queued */

	uint64_t trace_bytes;     /* all bytes this processor wrote */
	int finished;             /* epilogue generated */

	struct frame frames[MAX_FRAMES];
	int nframes;
	uint32_t open;            /* user windows open (bit per type) */
	struct cell cells[NREL][NEV];

	int64_t sent_at;          /* scratch: send entry time in a phase */
	int64_t send_len;
};

struct gen {
	int nprocs;
	uint64_t seed;
	int unsorted;
	int trace_volume;         /* write the -901 volume (Table 20) */
	int buffered_messages;    /* --unsorted: -7 through the buffer too */
	uint64_t target_records, target_bytes;

	struct proc *procs;
	struct rng grng;          /* shared decisions (the program's structure) */
	uint64_t step;
	uint64_t gen_records, gen_bytes;
	int done;                 /* epilogue generated for everybody */

	int fd;
	char *out;
	size_t olen, ocap;
	uint64_t written;
};

/* The temporary output file, removed if we fail or are interrupted. */
static const char *tmp_path;

static void remove_tmp(void)
{
	if (tmp_path)
		unlink(tmp_path);
}

static void on_signal(int sig)
{
	remove_tmp();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void die(const char *msg)
{
	fprintf(stderr, "gen-trace: %s\n", msg);
	remove_tmp();
	exit(1);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		die("out of memory");
	return p;
}

/* ------------------------------------------------------------------------ */
/* Output                                                                    */
/* ------------------------------------------------------------------------ */

static void out_flush(struct gen *g)
{
	size_t off = 0;

	while (off < g->olen) {
		ssize_t n = write(g->fd, g->out + off, g->olen - off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "gen-trace: write: %s\n", strerror(errno));
			remove_tmp();
			exit(1);
		}
		off += (size_t)n;
	}
	g->written += g->olen;
	g->olen = 0;
}

static inline void out_write(struct gen *g, const char *s, size_t n)
{
	if (g->olen + n > g->ocap) {
		out_flush(g);
		if (n > g->ocap) {
			while (n > 0) {
				ssize_t w = write(g->fd, s, n);

				if (w < 0) {
					if (errno == EINTR)
						continue;
					fprintf(stderr, "gen-trace: write: %s\n", strerror(errno));
					remove_tmp();
					exit(1);
				}
				s += w;
				n -= (size_t)w;
				g->written += (uint64_t)w;
			}
			return;
		}
	}
	memcpy(g->out + g->olen, s, n);
	g->olen += n;
}

/* ------------------------------------------------------------------------ */
/* Queueing records                                                          */
/* ------------------------------------------------------------------------ */

/* Room for one more record of at most REC_MAX bytes; returns where its text
 * goes. Finish with rec_end. */
static char *rec_begin(struct proc *pr)
{
	size_t need = sizeof(struct qrec) + REC_MAX + 8;

	if (pr->qhead == pr->qtail)
		pr->qhead = pr->qtail = 0;
	if (pr->qtail + need > pr->qcap) {
		if (pr->qhead > 0) {
			memmove(pr->q, pr->q + pr->qhead, pr->qtail - pr->qhead);
			pr->qtail -= pr->qhead;
			pr->qhead = 0;
		}
		if (pr->qtail + need > pr->qcap) {
			pr->qcap = pr->qcap ? pr->qcap * 2 : 1 << 14;
			while (pr->qtail + need > pr->qcap)
				pr->qcap *= 2;
			pr->q = xrealloc(pr->q, pr->qcap);
		}
	}
	return pr->q + pr->qtail + sizeof(struct qrec);
}

static void rec_end(struct gen *g, struct proc *pr, int64_t t, char *end)
{
	struct qrec h;
	char *text = pr->q + pr->qtail + sizeof(struct qrec);
	size_t len = (size_t)(end - text);

	h.t = t;
	h.len = (uint32_t)len;
	h.flags = pr->next_flags;
	memcpy(pr->q + pr->qtail, &h, sizeof(h));
	pr->last_off = pr->qtail;
	pr->qtail += (sizeof(struct qrec) + len + 7) & ~(size_t)7;
	if (!(h.flags & Q_IMMEDIATE))
		pr->since_flush += len;
	pr->next_flags = 0;
	pr->trace_bytes += len;
	g->gen_records++;
	g->gen_bytes += len;
}

/* The six fixed fields. */
static inline char *put_head(char *p, int32_t type, int32_t event, int64_t t,
			     int32_t processor, int32_t process)
{
	p = put_i64(p, type);
	*p++ = ' ';
	p = put_i64(p, event);
	*p++ = ' ';
	p = put_time(p, t);
	*p++ = ' ';
	p = put_i64(p, processor);
	*p++ = ' ';
	p = put_i64(p, process);
	*p++ = ' ';
	return p;
}

/* ------------------------------------------------------------------------ */
/* Statistics, kept as the events are generated                              */
/* ------------------------------------------------------------------------ */

static struct cell *cell_at(struct proc *pr, int rel_row, int32_t event)
{
	return &pr->cells[rel_row][ev_index(event)];
}

/* An entry (is_entry) or a mark of `event`: one occurrence relative to -1
 * and to each open window other than its own; volume if given (>= 0). */
static void stat_occurrence(struct proc *pr, int32_t event, int is_entry, int64_t vol)
{
	uint32_t w = pr->open;
	int u;

	for (u = -1; u < NUSER; u++) {
		struct cell *c;

		if (u >= 0 && (!(w & (1u << u)) || u == event))
			continue;
		c = cell_at(pr, u + 1, event);
		c->count++;
		if (is_entry)
			c->has_time = 1;
		if (vol >= 0) {
			c->has_volume = 1;
			c->volume += vol;
		}
	}
}

static void stat_entry(struct proc *pr, int32_t event, int64_t vol)
{
	struct frame *f;

	stat_occurrence(pr, event, 1, vol);
	if (pr->nframes >= MAX_FRAMES)
		die("internal error: nesting too deep");
	f = &pr->frames[pr->nframes++];
	f->event = event;
	f->t = pr->t;
	f->windows = pr->open;
	if (event >= 0) {
		f->windows &= ~(1u << event);
		if (pr->open & (1u << event))
			die("internal error: user event nested in itself");
		pr->open |= 1u << event;
	}
}

static void stat_exit(struct proc *pr, int32_t event, int64_t vol)
{
	struct frame *f;
	int64_t d;
	int u;

	if (pr->nframes == 0 || pr->frames[pr->nframes - 1].event != event)
		die("internal error: exit does not match the innermost entry");
	f = &pr->frames[--pr->nframes];
	d = pr->t - f->t;
	for (u = -1; u < NUSER; u++) {
		struct cell *c;

		if (u >= 0 && !(f->windows & (1u << u)))
			continue;
		c = cell_at(pr, u + 1, event);
		c->has_time = 1;
		c->time += d;
		if (vol >= 0) {
			c->has_volume = 1;
			c->volume += vol;
		}
	}
	if (event >= 0)
		pr->open &= ~(1u << event);
}

/* ------------------------------------------------------------------------ */
/* Record writers                                                            */
/* ------------------------------------------------------------------------ */

/* An event record of `type` (-2, -3, -4) with n "%d" values (alias 2);
 * updates the statistics with volume `vol` (< 0: none). */
static void ev_rec(struct gen *g, struct proc *pr, int32_t type, int32_t event,
		   int n, const int64_t *vals, int64_t vol)
{
	char *p = rec_begin(pr);
	int i;

	p = put_head(p, type, event, pr->t, pr->id, 0);
	if (n == 0) {
		*p++ = '0';
	} else {
		p = put_u64(p, (uint64_t)n);
		*p++ = ' ';
		*p++ = '2';
		for (i = 0; i < n; i++) {
			*p++ = ' ';
			p = put_i64(p, vals[i]);
		}
	}
	*p++ = '\n';
	rec_end(g, pr, pr->t, p);
	if (type == -3)
		stat_entry(pr, event, vol);
	else if (type == -4)
		stat_exit(pr, event, vol);
	else
		stat_occurrence(pr, event, 0, vol);
}

static void entry0(struct gen *g, struct proc *pr, int32_t event)
{
	ev_rec(g, pr, -3, event, 0, NULL, -1);
}

static void exit0(struct gen *g, struct proc *pr, int32_t event)
{
	ev_rec(g, pr, -4, event, 0, NULL, -1);
}

/* Character data (-5 label, -7 message): "N 0 text". */
static void chars_rec(struct gen *g, struct proc *pr, int32_t type, int32_t event,
		      int32_t processor, int32_t process, const char *text, size_t n)
{
	char *p = rec_begin(pr);

	p = put_head(p, type, event, pr->t, processor, process);
	p = put_u64(p, n);
	*p++ = ' ';
	*p++ = '0';
	*p++ = ' ';
	memcpy(p, text, n);
	p += n;
	*p++ = '\n';
	rec_end(g, pr, pr->t, p);
}

/* ------------------------------------------------------------------------ */
/* Names                                                                     */
/* ------------------------------------------------------------------------ */

static const char *const user_names[NUSER] = {
	"solver step", "assemble matrix", "apply preconditioner", "local solve",
	"update halo", "compute residual", "line search", "jacobian",
	"boundary conditions", "interpolate", "restrict", "prolongate",
	"smooth", "copy in", "copy out", "checkpoint",
	"exchange", "redistribute", "broadcast", "global sum", "barrier"
};

/* Source "locations" of the user blocks (traceblockbegin's 2nd argument). */
static int64_t user_location(int u)
{
	return 100 + 37 * u;
}

/* ------------------------------------------------------------------------ */
/* Traceflush: the buffer is full                                            */
/* ------------------------------------------------------------------------ */

static void maybe_flush(struct gen *g, struct proc *pr)
{
	int64_t len, v;

	if (pr->since_flush < pr->tracesize)
		return;
	len = (int64_t)pr->since_flush;
	pr->since_flush = 0;
	pr->next_flags |= Q_CHUNK_START;
	entry0(g, pr, -912);
	/* Writing len bytes at about 20 MB/s, plus a system call. */
	pr->t += 40 + len / 20 + (int64_t)rng_below(&pr->rng, 50);
	v = len;
	ev_rec(g, pr, -4, -912, 1, &v, len);
}

/* ------------------------------------------------------------------------ */
/* Prologue and epilogue                                                     */
/* ------------------------------------------------------------------------ */

#define SYNC_EXIT 5  /* microseconds: clocksync0 ends at 0.000005 everywhere */

static void prologue(struct gen *g, struct proc *pr)
{
	int64_t v[3];
	int k, nlabels;

	entry0(g, pr, -901);
	pr->t += rng_range(&pr->rng, 8, 15);
	v[0] = 1; v[1] = 1; v[2] = 1;
	ev_rec(g, pr, -2, -904, 3, v, -1);
	pr->t += rng_range(&pr->rng, 5, 9);
	v[0] = NUSER;
	ev_rec(g, pr, -3, -902, 1, v, -1);
	pr->t += rng_range(&pr->rng, 900, 1300);
	exit0(g, pr, -902);
	pr->t += rng_range(&pr->rng, 10, 20);
	entry0(g, pr, -11);
	pr->t += rng_range(&pr->rng, 80, 120);
	exit0(g, pr, -11);
	pr->t += rng_range(&pr->rng, 8, 14);
	entry0(g, pr, -903);
	pr->t += rng_range(&pr->rng, 20000, 120000);
	exit0(g, pr, -903);

	/* Event labels: processor 0 names every user event for its process;
	 * the others a few (PICL tools see -5 with process -1 as "all"). */
	nlabels = pr->id == 0 ? NUSER : (int)rng_below(&pr->rng, 3);
	for (k = 0; k < nlabels; k++) {
		int u = pr->id == 0 ? k : (int)rng_below(&pr->rng, NUSER);
		const char *name = user_names[u];

		pr->t += rng_range(&pr->rng, 2, 6);
		chars_rec(g, pr, -5, u, pr->id, -1, name, strlen(name));
	}

	pr->t += rng_range(&pr->rng, 10, 20);
	entry0(g, pr, -401);
	pr->t = SYNC_EXIT;
	exit0(g, pr, -401);
	pr->t += 11;
}

/* The statistics records PICL writes at traceexit, Table 20's order:
 * R = -1: system events (-101 -102 -103), user events (-101 -102 -103);
 * then each user R: every event E inside R. A pair only if its statistic
 * is positive and defined; a record only if it has a pair. */
static void stat_records(struct gen *g, struct proc *pr)
{
	static const int32_t rtypes[3] = { -101, -102, -103 };
	int row, sect, k, i;

	for (row = 0; row < NREL; row++) {
		for (sect = 0; sect < 2; sect++) {
			int lo, hi;

			if (row == 0) {
				lo = sect == 0 ? 0 : NSYS;
				hi = sect == 0 ? NSYS : NEV;
			} else {
				if (sect == 1)
					break;
				lo = 0;
				hi = NEV;
			}
			for (k = 0; k < 3; k++) {
				char *p = rec_begin(pr), *nf;
				int n = 0;

				p = put_head(p, rtypes[k], row - 1, pr->t, pr->id, 0);
				nf = p;
				p += 4; /* room for the count, moved below */
				p = put_str(p, k == 0 ? " \"%d%lf\"" : " \"%d%d\"");
				for (i = lo; i < hi; i++) {
					const struct cell *c = &pr->cells[row][i];
					int64_t val;

					if (c->count <= 0)
						continue;
					if (k == 0) {
						if (!c->has_time || c->time <= 0)
							continue;
						val = c->time;
					} else if (k == 1) {
						val = c->count;
					} else if (row == 0 && ev_type(i) == -901) {
						/* the bytes of trace data this
						 * processor collected (Table 20) */
						if (!g->trace_volume)
							continue;
						val = (int64_t)pr->trace_bytes;
					} else {
						if (!c->has_volume || c->volume <= 0)
							continue;
						val = c->volume;
					}
					*p++ = ' ';
					p = put_i64(p, ev_type(i));
					*p++ = ' ';
					if (k == 0)
						p = put_time(p, val);
					else
						p = put_i64(p, val);
					n++;
				}
				if (n == 0)
					continue;
				{
					char cnt[8], *ce = put_u64(cnt, (uint64_t)n);
					size_t cl = (size_t)(ce - cnt);

					/* Close the gap of 4 bytes left for the count. */
					memmove(nf + cl, nf + 4, (size_t)(p - (nf + 4)));
					memcpy(nf, cnt, cl);
					p -= 4 - cl;
				}
				*p++ = '\n';
				rec_end(g, pr, pr->t, p);
			}
		}
	}
}

static void epilogue(struct gen *g, struct proc *pr)
{
	uint64_t before;

	maybe_flush(g, pr);
	pr->t += rng_range(&pr->rng, 20, 60);
	ev_rec(g, pr, -2, -12, 0, NULL, -1);
	pr->t += 3;
	exit0(g, pr, -901);
	if (pr->nframes != 0)
		die("internal error: events left open at the end");
	before = g->gen_records;
	stat_records(g, pr);
	if (g->gen_records == before)
		die("internal error: no statistics records");
	/* Mark the last record so --unsorted writes the buffer out after it. */
	((struct qrec *)(void *)(pr->q + pr->last_off))->flags |= Q_LAST;
	pr->finished = 1;
}

/* ------------------------------------------------------------------------ */
/* Compute phase: a tree of user blocks, the same on every processor         */
/* ------------------------------------------------------------------------ */

enum op_kind { OP_BEGIN, OP_END, OP_WORK, OP_MARK, OP_DATA5, OP_DATA6 };

struct op {
	enum op_kind kind;
	int32_t type;
	int64_t a, b;     /* BEGIN/END: location, parameter; WORK: us; DATA: */
};

#define MAX_OPS 256

struct program {
	struct op ops[MAX_OPS];
	int n;
};

static void add_op(struct program *prog, enum op_kind kind, int32_t type,
		   int64_t a, int64_t b)
{
	struct op *o;

	if (prog->n >= MAX_OPS)
		return;
	o = &prog->ops[prog->n++];
	o->kind = kind;
	o->type = type;
	o->a = a;
	o->b = b;
}

static void build_block(struct gen *g, struct program *prog, int depth,
			uint32_t on_stack, int32_t type)
{
	struct rng *r = &g->grng;
	int nchild, k;
	int64_t param = (int64_t)(g->step % 1000);

	add_op(prog, OP_BEGIN, type, user_location(type), param);
	on_stack |= 1u << type;
	nchild = (int)rng_range(r, 1, 3);
	for (k = 0; k < nchild && prog->n < MAX_OPS - 8; k++) {
		uint64_t what = rng_below(r, 100);

		if (what < 45 && depth < MAX_DEPTH) {
			int32_t t;

			do
				t = (int32_t)rng_below(r, NCOMPUTE);
			while (on_stack & (1u << t));
			build_block(g, prog, depth + 1, on_stack, t);
		} else if (what < 85) {
			add_op(prog, OP_WORK, 0, rng_logu(r, 4, 11), 0);
		} else if (what < 92) {
			add_op(prog, OP_MARK, type, 0, 0);
		} else if (what < 97) {
			/* tracedata(type, 0, "double", 1, &x): a residual */
			add_op(prog, OP_DATA5, type, rng_range(r, 1, 999999), 0);
		} else {
			add_op(prog, OP_DATA6, type, rng_range(r, 1, 999999),
			       rng_range(r, 1, 3));
		}
	}
	add_op(prog, OP_WORK, 0, rng_logu(r, 3, 8), 0);
	add_op(prog, OP_END, type, user_location(type), param);
}

/* A double as text: mantissa m (6 digits) scaled; alternate fixed and
 * exponent notation so readers see both. */
static char *put_value(char *p, int64_t m, int style)
{
	if (style == 0) {
		/* 0.000124-like: m millionths */
		return put_time(p, m);
	}
	/* d.dddddde-0X */
	*p++ = (char)('1' + m % 9);
	*p++ = '.';
	p = put_fixed(p, (uint64_t)(m % 100000), 5);
	p = put_str(p, "e-0");
	*p++ = (char)('1' + (m / 9) % 9);
	return p;
}

/* Work of `us` microseconds on processor pr, with its own jitter: none on
 * about half the processors (exact ties), else up to +-12%. */
static int64_t jitter(struct proc *pr, int64_t us)
{
	if (rng_chance(&pr->rng, 1, 2))
		return us;
	return us + (int64_t)rng_range(&pr->rng, -(us / 8), us / 8);
}

static void run_program(struct gen *g, struct proc *pr, const struct program *prog)
{
	int k, j;

	for (k = 0; k < prog->n; k++) {
		const struct op *o = &prog->ops[k];
		int64_t v[2];

		switch (o->kind) {
		case OP_BEGIN:
			maybe_flush(g, pr);
			v[0] = o->a;
			v[1] = o->b;
			ev_rec(g, pr, -3, o->type, 2, v, -1);
			pr->t += rng_range(&pr->rng, 1, 3);
			break;
		case OP_END:
			v[0] = o->a;
			v[1] = o->b;
			ev_rec(g, pr, -4, o->type, 2, v, -1);
			pr->t += 1;
			break;
		case OP_WORK:
			pr->t += jitter(pr, o->a);
			break;
		case OP_MARK:
			ev_rec(g, pr, -2, o->type, 0, NULL, -1);
			pr->t += 1;
			break;
		case OP_DATA5: {
			char *p = rec_begin(pr);

			p = put_head(p, 0, o->type, pr->t, pr->id, 0);
			p = put_str(p, "1 5 ");
			p = put_value(p, o->a + pr->id, 0);
			*p++ = '\n';
			rec_end(g, pr, pr->t, p);
			pr->t += 2;
			break;
		}
		case OP_DATA6: {
			char *p = rec_begin(pr);

			p = put_head(p, 1, o->type, pr->t, pr->id, 0);
			p = put_u64(p, (uint64_t)o->b);
			p = put_str(p, " 6");
			for (j = 0; j < o->b; j++) {
				*p++ = ' ';
				p = put_u64(p, g->step % 100000 + (uint64_t)j);
				*p++ = ' ';
				p = put_value(p, o->a / (j + 1) + 1, (int)((g->step + (uint64_t)j) & 1));
			}
			*p++ = '\n';
			rec_end(g, pr, pr->t, p);
			pr->t += 2;
			break;
		}
		}
	}
}

/* ------------------------------------------------------------------------ */
/* Messages                                                                  */
/* ------------------------------------------------------------------------ */

/* Time for a message of len bytes to arrive after the send began (an
 * iPSC/860-like network: 75 us start-up, about 2.8 bytes per us). */
static int64_t latency(int64_t len)
{
	return 75 + len * 10 / 28;
}

/* send0(buf, len, type, dest): entry "3 2 len type dest", exit. */
static void do_send(struct gen *g, struct proc *pr, int64_t len, int64_t type, int dest)
{
	int64_t v[3];

	maybe_flush(g, pr);
	v[0] = len;
	v[1] = type;
	v[2] = dest;
	pr->sent_at = pr->t;
	ev_rec(g, pr, -3, -21, 3, v, len);
	/* copy into a system buffer */
	pr->t += 20 + len / 40 + (int64_t)rng_below(&pr->rng, 4);
	exit0(g, pr, -21);
	pr->t += 1;
}

/* recv0(buf, len, type) of a message sent at `sent` by src: -51 if it is
 * already there, -52 (blocked) if the receiver waits for it. */
static void do_recv(struct gen *g, struct proc *pr, int64_t len, int64_t type,
		    int src, int64_t sent)
{
	int64_t arrival = sent + latency(len);
	int32_t ev;
	int64_t v[3];

	maybe_flush(g, pr);
	ev = arrival <= pr->t ? -51 : -52;
	v[0] = type;
	ev_rec(g, pr, -3, ev, 1, v, -1);
	if (ev == -51)
		pr->t += 15 + len / 40 + (int64_t)rng_below(&pr->rng, 4);
	else
		pr->t = arrival + 8 + len / 40;
	v[0] = len;
	v[1] = type;
	v[2] = src;
	ev_rec(g, pr, -4, ev, 3, v, len);
	pr->t += 1;
}

static int64_t message_length(struct rng *r)
{
	static const int64_t lens[] = { 8, 8, 64, 256, 1024, 4096, 8192, 32768 };

	return lens[rng_below(r, sizeof(lens) / sizeof(lens[0]))];
}

/* Every processor sends to (p + shift) and then receives from (p - shift),
 * inside user block `ut`. */
static void exchange(struct gen *g, int ut)
{
	int P = g->nprocs, p;
	int shift = rng_chance(&g->grng, 1, 2) ? 1 : (int)rng_range(&g->grng, 1, P - 1);
	int64_t len = message_length(&g->grng);
	int64_t type = 100 + (int64_t)(g->step % 50);
	int64_t v[2];

	v[0] = user_location(ut);
	v[1] = (int64_t)(g->step % 1000);
	for (p = 0; p < P; p++) {
		struct proc *pr = &g->procs[p];

		maybe_flush(g, pr);
		ev_rec(g, pr, -3, ut, 2, v, -1);
		pr->t += 2;
		do_send(g, pr, len, type, (p + shift) % P);
		pr->send_len = len;
	}
	for (p = 0; p < P; p++) {
		struct proc *pr = &g->procs[p];
		int src = (p - shift + P) % P;

		do_recv(g, pr, len, type, src, g->procs[src].sent_at);
		pr->t += 2;
		ev_rec(g, pr, -4, ut, 2, v, -1);
		pr->t += 1;
	}
}

/* PICL's own message types (reserved range). */
#define PICL_TYPE_BASE 900000000

/* Binomial-tree reduction to processor 0 (msg type t1), then broadcast
 * from 0 (t2). Either phase may be skipped. */
static void tree_phase(struct gen *g, int reduce, int64_t len, int64_t mtype)
{
	int P = g->nprocs, r, p, top = 0;

	while ((1 << top) < P)
		top++;
	if (reduce) {
		for (r = 0; r < top; r++) {
			int step = 1 << r;

			for (p = 0; p < P; p++)
				if (p % (2 * step) == step)
					do_send(g, &g->procs[p], len, mtype, p - step);
			for (p = 0; p < P; p++) {
				struct proc *pr = &g->procs[p];

				if (p % (2 * step) == 0 && p + step < P) {
					do_recv(g, pr, len, mtype, p + step,
						g->procs[p + step].sent_at);
					pr->t += jitter(pr, 3 + len / 64); /* combine */
				}
			}
		}
	} else {
		for (r = top - 1; r >= 0; r--) {
			int step = 1 << r;

			for (p = 0; p < P; p++)
				if (p % (2 * step) == 0 && p + step < P)
					do_send(g, &g->procs[p], len, mtype, p + step);
			for (p = 0; p < P; p++)
				if (p % (2 * step) == step)
					do_recv(g, &g->procs[p], len, mtype, p - step,
						g->procs[p - step].sent_at);
		}
	}
}

static void block_begin(struct gen *g, struct proc *pr, int ut)
{
	int64_t v[2] = { user_location(ut), (int64_t)(g->step % 1000) };

	maybe_flush(g, pr);
	ev_rec(g, pr, -3, ut, 2, v, -1);
	pr->t += 2;
}

static void block_end(struct gen *g, struct proc *pr, int ut)
{
	int64_t v[2] = { user_location(ut), (int64_t)(g->step % 1000) };

	ev_rec(g, pr, -4, ut, 2, v, -1);
	pr->t += 1;
}

/* gsum0: reduce then broadcast, inside user block 19; then every
 * processor records the result with tracedata (alias 6). */
static void gsum(struct gen *g)
{
	int p;
	int64_t len = 8 * rng_range(&g->grng, 1, 4);
	int64_t resid = 1 + (int64_t)rng_below(&g->grng, 999999);

	for (p = 0; p < g->nprocs; p++)
		block_begin(g, &g->procs[p], UT_GSUM);
	tree_phase(g, 1, len, PICL_TYPE_BASE + 19);
	tree_phase(g, 0, len, PICL_TYPE_BASE + 18);
	for (p = 0; p < g->nprocs; p++) {
		struct proc *pr = &g->procs[p];
		char *q;

		block_end(g, pr, UT_GSUM);
		q = rec_begin(pr);
		q = put_head(q, 1, UT_GSUM, pr->t, pr->id, 0);
		q = put_str(q, "1 6 ");
		q = put_u64(q, g->step);
		*q++ = ' ';
		q = put_value(q, resid, (int)(g->step & 1));
		*q++ = '\n';
		rec_end(g, pr, pr->t, q);
		pr->t += 2;
	}
}

static void bcast(struct gen *g)
{
	int p;
	int64_t len = message_length(&g->grng);

	for (p = 0; p < g->nprocs; p++)
		block_begin(g, &g->procs[p], UT_BCAST);
	tree_phase(g, 0, len, PICL_TYPE_BASE + 17);
	for (p = 0; p < g->nprocs; p++)
		block_end(g, &g->procs[p], UT_BCAST);
}

/* sync0 inside user block 20: everybody leaves at the same instant. */
static void barrier(struct gen *g)
{
	int p;
	int64_t last = INT64_MIN;

	for (p = 0; p < g->nprocs; p++) {
		struct proc *pr = &g->procs[p];

		block_begin(g, pr, UT_BARRIER);
		maybe_flush(g, pr);
		entry0(g, pr, -402);
		if (pr->t > last)
			last = pr->t;
	}
	last += 30 + 4 * g->nprocs / 8;
	for (p = 0; p < g->nprocs; p++) {
		struct proc *pr = &g->procs[p];

		pr->t = last;
		exit0(g, pr, -402);
		pr->t += 1;
		block_end(g, pr, UT_BARRIER);
	}
}

/* tracemsg(text): -911 entry "1 2 len", the -7 message, -911 exit. */
static void tracemsg(struct gen *g, struct proc *pr)
{
	char text[128], *p = text;
	int64_t v;
	size_t n;

	switch (rng_below(&g->grng, 4)) {
	case 0:
		p = put_str(p, "residual ");
		p = put_value(p, 1 + (int64_t)rng_below(&pr->rng, 999999), 1);
		p = put_str(p, " at step ");
		p = put_u64(p, g->step);
		break;
	case 1:
		p = put_str(p, "solver step ");
		p = put_u64(p, g->step);
		p = put_str(p, " converged");
		break;
	case 2:
		p = put_str(p, "load imbalance on node ");
		p = put_u64(p, (uint64_t)pr->id);
		p = put_str(p, ": ");
		p = put_u64(p, rng_below(&pr->rng, 40));
		p = put_str(p, "%");
		break;
	default:
		/* runs of blanks are data too */
		p = put_str(p, "phase  ");
		p = put_u64(p, g->step % 7);
		p = put_str(p, "  done \"ok\"");
		break;
	}
	n = (size_t)(p - text);
	maybe_flush(g, pr);
	v = (int64_t)n;
	ev_rec(g, pr, -3, -911, 1, &v, (int64_t)n);
	pr->t += 1;
	pr->next_flags |= Q_IMMEDIATE;
	chars_rec(g, pr, -7, -911, pr->id, 0, text, n);
	pr->t += 30 + (int64_t)rng_below(&pr->rng, 20);
	exit0(g, pr, -911);
	pr->t += 1;
}

/* ------------------------------------------------------------------------ */
/* One step of the simulated program, for every processor                   */
/* ------------------------------------------------------------------------ */

static int target_reached(const struct gen *g)
{
	if (g->target_bytes)
		return g->gen_bytes >= g->target_bytes;
	return g->gen_records >= g->target_records;
}

static void gen_step(struct gen *g)
{
	struct program prog;
	int p, P = g->nprocs;
	uint64_t s = g->step;

	if (g->done)
		return;
	if (target_reached(g)) {
		if (P > 1)
			barrier(g);
		for (p = 0; p < P; p++)
			epilogue(g, &g->procs[p]);
		g->done = 1;
		return;
	}

	prog.n = 0;
	build_block(g, &prog, 1, 0, (int32_t)rng_below(&g->grng, NCOMPUTE));
	for (p = 0; p < P; p++)
		run_program(g, &g->procs[p], &prog);

	if (P > 1) {
		if (rng_chance(&g->grng, 4, 5))
			exchange(g, rng_chance(&g->grng, 4, 5) ? UT_EXCHANGE : UT_REDIST);
		if (s % 5 == 4)
			gsum(g);
		if (rng_chance(&g->grng, 1, 20))
			bcast(g);
		if (s % 10 == 9)
			barrier(g);
	}
	if (rng_chance(&g->grng, 1, 25))
		tracemsg(g, &g->procs[rng_below(&g->grng, (uint64_t)P)]);
	if (rng_chance(&g->grng, 1, 200)) {
		struct proc *pr = &g->procs[rng_below(&g->grng, (uint64_t)P)];
		int u = (int)rng_below(&g->grng, NUSER);

		chars_rec(g, pr, -5, u, pr->id, -1, user_names[u], strlen(user_names[u]));
		pr->t += 2;
	}
	g->step++;
}

/* ------------------------------------------------------------------------ */
/* The merge                                                                 */
/* ------------------------------------------------------------------------ */

struct hent {
	int64_t t;
	int32_t p;
};

static inline int hless(struct hent a, struct hent b)
{
	return a.t < b.t || (a.t == b.t && a.p < b.p);
}

static void sift_down(struct hent *h, int n, int i)
{
	struct hent x = h[i];

	for (;;) {
		int c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && hless(h[c + 1], h[c]))
			c++;
		if (!hless(h[c], x))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
}

static inline const struct qrec *q_head(const struct proc *pr)
{
	return (const struct qrec *)(const void *)(pr->q + pr->qhead);
}

/* --unsorted: write processor pr's trace buffer out as one chunk. */
static void chunk_out(struct gen *g, struct proc *pr)
{
	if (pr->clen) {
		out_write(g, pr->chunk, pr->clen);
		pr->clen = 0;
	}
}

static void sink(struct gen *g, struct proc *pr, const struct qrec *h)
{
	const char *text = (const char *)(h + 1);

	if (!g->unsorted) {
		out_write(g, text, h->len);
		return;
	}
	if ((h->flags & Q_IMMEDIATE) && !g->buffered_messages) {
		out_write(g, text, h->len);
		return;
	}
	if (h->flags & Q_CHUNK_START)
		chunk_out(g, pr);
	if (pr->clen + h->len > pr->ccap) {
		pr->ccap = (pr->clen + h->len) * 2;
		pr->chunk = xrealloc(pr->chunk, pr->ccap);
	}
	memcpy(pr->chunk + pr->clen, text, h->len);
	pr->clen += h->len;
	if (h->flags & Q_LAST)
		chunk_out(g, pr);
}

static void run(struct gen *g)
{
	int P = g->nprocs, n = 0, p;
	struct hent *heap = xrealloc(NULL, (size_t)P * sizeof(*heap));
	int64_t tmin = INT64_MAX;

	for (p = 0; p < P; p++) {
		struct proc *pr = &g->procs[p];

		prologue(g, pr);
		if (q_head(pr)->t < tmin)
			tmin = q_head(pr)->t;
	}
	/* The alias definition of Table 15, for all events, processors and
	 * processes, at the earliest time so it precedes its first use. */
	{
		char buf[128], *q = buf;

		q = put_head(q, -6, -1, tmin, -1, -1);
		q = put_str(q, "1 \"%d%s\" 6 \"%d%lf\"\n");
		out_write(g, buf, (size_t)(q - buf));
		g->gen_records++;
		g->gen_bytes += (uint64_t)(q - buf);
	}

	for (p = 0; p < P; p++) {
		heap[n].t = q_head(&g->procs[p])->t;
		heap[n].p = p;
		n++;
	}
	for (p = n / 2 - 1; p >= 0; p--)
		sift_down(heap, n, p);

	while (n > 0) {
		struct proc *pr = &g->procs[heap[0].p];
		const struct qrec *h = q_head(pr);

		sink(g, pr, h);
		pr->qhead += (sizeof(*h) + h->len + 7) & ~(size_t)7;
		if (pr->qhead == pr->qtail) {
			if (pr->finished) {
				heap[0] = heap[--n];
				if (n > 0)
					sift_down(heap, n, 0);
				continue;
			}
			gen_step(g);
		}
		heap[0].t = q_head(pr)->t;
		sift_down(heap, n, 0);
	}
	free(heap);
}

/* ------------------------------------------------------------------------ */
/* Command line                                                              */
/* ------------------------------------------------------------------------ */

static const char usage[] =
	"usage: gen-trace [--seed N] [--procs P] [--records N | --size BYTES]\n"
	"                 [--unsorted [--buffered-messages]] [--no-trace-volume]\n"
	"                 [-o FILE]\n"
	"\n"
	"Write a realistic PICL trace (new format), the same bytes for the same\n"
	"options. BYTES takes a K, M or G suffix (powers of 1024). Defaults:\n"
	"--seed 1 --procs 64 --records 1000000 -o - (standard output).\n"
	"--unsorted   records in PICL's per-processor flush order; -7 messages\n"
	"             are written at once, ahead of older buffered records\n"
	"--buffered-messages  with --unsorted: -7 messages wait in the buffer\n"
	"             like every other record (each processor stays in order)\n"
	"--no-trace-volume  leave out the -901 trace-data volume statistic\n";

static uint64_t parse_size(const char *s, int allow_suffix)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (*s < '0' || *s > '9')
		die("expected a number");
	v = strtoull(s, &end, 10);
	if (errno)
		die("number out of range");
	if (allow_suffix && *end) {
		switch (*end) {
		case 'k': case 'K': v <<= 10; break;
		case 'm': case 'M': v <<= 20; break;
		case 'g': case 'G': v <<= 30; break;
		case 't': case 'T': v <<= 40; break;
		default: die("bad size suffix");
		}
		end++;
		if (*end == 'B' || *end == 'b' || *end == 'i')
			end++;
		if (*end == 'B')
			end++;
	}
	if (*end)
		die("trailing characters after a number");
	return v;
}

int main(int argc, char **argv)
{
	struct gen g;
	const char *path = "-";
	char *tmp = NULL;
	struct stat st;
	int i, p;

	memset(&g, 0, sizeof(g));
	g.seed = 1;
	g.nprocs = 64;
	g.target_records = 1000000;
	g.trace_volume = 1;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage, stdout);
			return 0;
		} else if (!strcmp(a, "--unsorted")) {
			g.unsorted = 1;
		} else if (!strcmp(a, "--buffered-messages")) {
			g.buffered_messages = 1;
		} else if (!strcmp(a, "--no-trace-volume")) {
			g.trace_volume = 0;
		} else if (i + 1 < argc && !strcmp(a, "--seed")) {
			g.seed = parse_size(argv[++i], 0);
		} else if (i + 1 < argc && !strcmp(a, "--procs")) {
			uint64_t v = parse_size(argv[++i], 0);

			if (v < 1 || v > 32767)
				die("--procs must be 1..32767");
			g.nprocs = (int)v;
		} else if (i + 1 < argc && !strcmp(a, "--records")) {
			g.target_records = parse_size(argv[++i], 1);
			g.target_bytes = 0;
		} else if (i + 1 < argc && !strcmp(a, "--size")) {
			g.target_bytes = parse_size(argv[++i], 1);
			if (g.target_bytes == 0)
				die("--size must be positive");
		} else if (i + 1 < argc && !strcmp(a, "-o")) {
			path = argv[++i];
		} else {
			fputs(usage, stderr);
			return 2;
		}
	}

	if (!strcmp(path, "-")) {
		g.fd = 1;
	} else if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* a device, FIFO or socket (/dev/null, a pipe to zstd): write it
		 * where it is; renaming a file onto it would replace it */
		g.fd = open(path, O_WRONLY);
		if (g.fd < 0) {
			fprintf(stderr, "gen-trace: %s: %s\n", path, strerror(errno));
			return 1;
		}
	} else {
		size_t n = strlen(path) + 16;

		tmp = xrealloc(NULL, n);
		snprintf(tmp, n, "%s.tmp%ld", path, (long)getpid());
		g.fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (g.fd < 0) {
			fprintf(stderr, "gen-trace: %s: %s\n", tmp, strerror(errno));
			return 1;
		}
		tmp_path = tmp;
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
		signal(SIGHUP, on_signal);
		signal(SIGPIPE, on_signal);
	}

	g.procs = calloc((size_t)g.nprocs, sizeof(*g.procs));
	if (!g.procs)
		die("out of memory");
	rng_seed(&g.grng, g.seed, 0);
	for (p = 0; p < g.nprocs; p++) {
		struct proc *pr = &g.procs[p];

		pr->id = p;
		rng_seed(&pr->rng, g.seed, (uint64_t)p + 1);
		/* tracenode() before open0: start times spread around -0.715 s */
		pr->t = -715036 + rng_range(&pr->rng, -3000, 3000);
		pr->tracesize = (uint64_t)rng_range(&pr->rng, 32 << 10, 256 << 10);
	}
	g.ocap = 4u << 20;
	g.out = xrealloc(NULL, g.ocap);

	run(&g);
	out_flush(&g);

	if (tmp) {
		if (close(g.fd) != 0) {
			fprintf(stderr, "gen-trace: %s: %s\n", tmp, strerror(errno));
			remove_tmp();
			return 1;
		}
		if (rename(tmp, path) != 0) {
			fprintf(stderr, "gen-trace: %s: %s\n", path, strerror(errno));
			remove_tmp();
			return 1;
		}
		tmp_path = NULL;
	}
	for (p = 0; p < g.nprocs; p++) {
		free(g.procs[p].q);
		free(g.procs[p].chunk);
	}
	free(g.procs);
	free(g.out);
	free(tmp);
	return 0;
}
