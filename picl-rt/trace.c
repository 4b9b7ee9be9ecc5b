/*
 * trace.c - libpicl's tracing layer: the trace* calls of picl.h and the
 * pt_* interface of trace.h through which the communication layer records
 * PICL's own events (spec ORNL/TM-12125 §2.3, Tables 3-21).
 *
 * How it works.
 *
 * Recording (the hot path). Every event becomes one fixed-size binary
 * record {time stamp, record type, event type, up to PT_MAXVALS 64-bit
 * values} appended to a per-process array sized by tracenode
 * (tracesize bytes / sizeof(struct pt_rec), at least 64 records, mapped and
 * touched at tracenode so no page faults on the way). Appending is an
 * inlined bounds check, one time stamp and a few stores: no lock (a PICL
 * process is single-threaded), no formatting, no allocation, no function
 * pointer, no system call. Everything unusual (a full buffer, a stopped or
 * wrapped buffer) falls to put_slow(); the fast path only sees `n < limit`.
 *
 * Time stamps. Where the TSC is invariant (x86, CPUID 0x80000007 EDX bit 8)
 * a stamp is one rdtsc (~13 ns here against ~34 ns for the vDSO's
 * clock_gettime in this VM). Stamps become CLOCK_MONOTONIC nanoseconds at
 * flush time: every flush takes a calibration point (TSC and
 * CLOCK_MONOTONIC read together, the tightest of 8 tries, so a preempted
 * reading is not used) and places the buffered records, all stamped since
 * the previous point, by linear interpolation between the two points. The
 * error is that of the two points (tens of ns; measured: within the 1 us
 * rounding) plus whatever NTP's slewing changes CLOCK_MONOTONIC's rate by
 * within one buffer's span, so messages between processes keep their order
 * once clocksync0 (which reads CLOCK_MONOTONIC) has aligned them. The
 * first point is taken before the first record, and that is all tracing's
 * start costs: no rate is measured then (a 1 ms spin there cost every
 * process up to 1 ms of CPU, piclrun -n 1024 up to 1 s). Records converted
 * before a flush (statistics of records a full buffer does not keep;
 * tracemsg's records while a ring or a stopped buffer keeps its records;
 * the exits closing a part whose write failed) extrapolate from the last
 * segment. Before the first flush there is no segment: early_rate
 * measures the rate from the first point to a point taken at that
 * conversion, after the stamp, and takes a new one only once the stamps to
 * convert reach twice as far from the first point, so such a stamp is
 * placed within three times the points' error. Elsewhere, or with
 * PICL_TRACE_CLOCK=monotonic, a stamp is clock_gettime(CLOCK_MONOTONIC)
 * (vDSO). pt_raw_clock and clock0 always read CLOCK_MONOTONIC.
 *
 * Flushing. Text is produced only when the buffer is written out: at
 * traceflush, when the buffer fills with flush = 1, and at traceexit. Each
 * binary record is converted to a struct picl_record (timestamp = raw -
 * clock offset, as an exact decimal with 6 decimals, microseconds as PICL
 * wrote them; processor = me, PICL_HOST for the host, also for what is
 * written before open0 (node_id); process = 0 as in Table 20) and written
 * by libpicl-trace's writer to this process's part file, opened with
 * O_APPEND (PICL_TRACE_ZSTD=1: each flush appends a zstd frame; readers
 * take concatenated frames). The part file is tracefiles' permfile if
 * given, else $PICL_TRACE_PART (set by piclrun), else
 * "picltrace.<me>.picl" in the current directory; it is truncated (a
 * regular file: not a pipe or a FIFO) the first time this process opens
 * it, but a tracefiles file under piclrun only by the first process of
 * the run to open it: processes may share one (open_part). A tracefiles
 * call takes effect at the next write: what was written before stays in
 * the former file. Because times are computed at
 * flush time, pt_set_clock_offset (clocksync0) moves every record not yet
 * written, which is why the records before clocksync0 have negative times
 * (Appendix A). Records written cannot move: a clocksync0 after some were
 * written keeps the time origin (api.c), and a record is never written
 * with a time before the latest this process wrote (time_to_write: a
 * corrected offset may set the clock back a little), so each process's
 * times never decrease whatever the order of clocksync0 and the flushes;
 * the statistics are fed the times written. An event type given a label
 * (pt_label: the collectives' blocks, not the format's) gets its -5 label
 * record written just before its first record in each part file
 * (emit_one, write_label).
 *
 * Statistics. Every event record also goes, in timeline order, through
 * libpicl-trace's accumulator (picl_stats_add) as it is converted, so the
 * -101/-102/-103 records traceexit writes (picl_stats_emit) cover the whole
 * run and agree with the records in the file. They are cumulative for the
 * whole process (spec 2.3.2, 2.3.7), as readers recompute them from every
 * event record of the process: when tracing starts again after traceexit,
 * the accumulator and the byte count go on, and the next traceexit's
 * statistics cover every session so far. Records that never reach the
 * file still reach the accumulator: records recorded after detailed tracing
 * stopped (-913) are fed at once, records a wrapping buffer overwrites (-914)
 * are fed as they are dropped, and events PICL only counts (pt_count: probe0
 * and friends) are kept as "count" records (consecutive ones of the same
 * event merged into one) that are fed but never written. The accumulator
 * cannot know the -901 volume (bytes of trace data): traceexit adds it to the
 * -103 record of the wildcard event (Table 20: "-901 428"); here it is the
 * number of bytes of text this process wrote to its trace file before the
 * statistics records (every flush, tracemsg records, the -901 exit, and an
 * earlier session's statistics records).
 *
 * A full buffer (tracenode's flush argument). 1: the record goes into one of
 * two reserved slots, a -912 entry into the other, the buffer is written and
 * a -912 exit with the bytes written starts the empty buffer. 0: the record
 * and a -913 mark fill the reserved slots and detailed tracing stops; from
 * then on records are only counted in the statistics, until traceflush
 * empties the buffer (and detailed tracing resumes) or traceexit. -1: the
 * buffer is a ring; the first overwrite appends a -914 mark; each record
 * pushes out the oldest one. The -901 entry and the -914 mark are kept
 * aside when pushed out and written first, so a wrapped trace still starts
 * with its -901 entry. tracedata's data (pt.blob, as large as the buffer,
 * at least 64 KiB) fill up apart from the records; when full, flush 1
 * writes the buffer, 0 stops detailed tracing, and -1 moves the data of
 * the records still in the ring to the front, pushing out the oldest
 * records while the new data do not fit. A record whose data alone exceed
 * the area is kept whole, alone in it (blob_room).
 *
 * Levels (tracelevel(picl, user, trace), the -904 mark). picl: 0 none; 1
 * and 2 PICL's own events (communication, synchronisation, open0/close0);
 * 3 and more also the messages inside the collectives (while
 * pt_collective_depth is nonzero, PT_PICL events are dropped below 3).
 * Table 19 calls tracelevel(1, 1, 1) and gets -11, -52, -21 and -401
 * records, so level 1 must include communication. user: 0 none, >= 1
 * blocks (the collectives' too), marks and tracedata records. trace: 0
 * none, >= 1 the tracing events -902 ... -914. The -901 entry and exit are
 * always written (ParaGraph needs them, §2.5), and so are tracemsg's -7
 * message records (no event: Table 3's record for error and debugging
 * messages). Default: 1 1 1.
 *
 * tracemsg writes out the buffer (a ring's, or a stopped one's too), then
 * its -3 -911 entry, -7 message and -4 -911 exit to the part file at once
 * with write(2) (no fsync), so they survive a crash of the process and the
 * part keeps time order; the entry and exit also go into the buffer marked
 * "not to be written", for the statistics. At trace level 0 the -7 message
 * alone is written, and nothing is counted.
 *
 * A write to the part that fails (ENOSPC) stops tracing in the process:
 * the part is cut back to where that write started and closed there by
 * the exits of the entries open then, written over blocks the part holds
 * already (keep_room keeps TAIL_ROOM bytes, and EXIT_ROOM more for each
 * entry open there, allocated past its end), so it nests and reads back
 * (write_failed). If even that fails, the part is cut back unclosed, and
 * that is said on stderr.
 *
 * A process that exits without traceexit (nor close0) gets it called by an
 * atexit handler, so its part file is complete; one killed loses only its
 * unwritten buffer. After a PICL error or such an exit (pt_exit_abnormal),
 * the entries still open (a user block, the call it died in) get exits at
 * the end time before the -901 exit, so the trace nests. The entries
 * written and not yet exited are tracked (pt.open) at any depth: the array
 * grows as entries are written (at a flush, where the writer allocates
 * anyway); the way out (an atexit handler, a PICL error, or the child a
 * signal handler forks to write the part, api.c's emergency write; never
 * a signal handler itself) only shrinks it. Should it fail to grow, that
 * is said.
 *
 * Test hook: PICL_FAKE_CLOCK=STEP (nanoseconds, > 0) replaces the clock by
 * a counter that starts at 0 and advances STEP ns at every reading, so that
 * traces are reproducible.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE             /* fallocate, memfd_create */
#endif
#include "picl.h"
#include "api.h"
#include "env.h"
#include "trace.h"

#include <picl-trace.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#define HAVE_TSC 1
#include <cpuid.h>
#include <x86intrin.h>
#else
#define HAVE_TSC 0
#endif

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* Record kinds: what vals[] hold. */
enum { K_INT = 0, K_DATA = 1 };
/* Record flags. */
enum { F_NOWRITE = 1, F_COUNT = 2 };
/* tracenode's flush argument. */
enum { MODE_STOP = 0, MODE_FLUSH = 1, MODE_RING = -1 };
/* tracedata's data types, in PICL's numbering. */
enum { DT_CHAR, DT_SHORT, DT_INT, DT_LONG, DT_FLOAT, DT_DOUBLE };

#define MIN_RECORDS 64
#define MAX_KEPT 4
#define STATS_KEY 0        /* the accumulator's processor (see stats_feed) */
#define BLOB_MIN (64 * 1024)
/* The longest data text of one record: readers skip a record over 1 MiB
 * (libpicl-trace's max_record), which would fail the whole merge. */
#define REC_TEXT_MAX ((1 << 20) - 512)
/* Kept past a part's end to close it (write_failed): TAIL_ROOM bytes, and
 * EXIT_ROOM more for each entry open there (an exit record's line is at
 * most ~45 bytes: "-4 EVENT TIME PROCESSOR 0 0"). */
#define TAIL_ROOM 8192
#define EXIT_ROOM 64

/* Event types of entries, innermost last (pt.open and its copies). */
struct evlist {
	int32_t *ev;
	int n;
	size_t cap;
};

/* One binary trace record (72 bytes). */
struct pt_rec {
	int64_t st;               /* time stamp: TSC ticks or ns (stamp()) */
	int32_t rtype;
	int32_t event;
	uint8_t nvals;
	uint8_t kind;             /* K_INT: vals; K_DATA: blob offset, count, type */
	uint8_t flags;
	int64_t vals[PT_MAXVALS];
};

struct pt_state {
	/* Hot: what the fast path reads. */
	struct pt_rec *buf;
	uint32_t n;               /* records in the buffer */
	uint32_t limit;           /* the fast path appends while n < limit */
	uint8_t on[3];            /* pt_on(cls) */
	uint8_t tsc;              /* stamps are TSC ticks */

	/* Cold. */
	int fake;                 /* PICL_FAKE_CLOCK */
	int64_t fake_ns, fake_step;
	int clock_started;
	int64_t cal_t[2], cal_m[2]; /* TSC calibration segment: TSC, monotonic */
	double rate;              /* ns per TSC tick */
	int64_t rate_t;           /* before the first flush: the TSC the rate
				     was measured to (early_rate) */
	int tracing;
	int mode;
	int stopped;              /* MODE_STOP: detailed tracing off (-913) */
	int wrapped;              /* MODE_RING: -914 written for this fill */
	uint32_t cap, start, fed; /* ring start; records at the front fed */
	size_t map_bytes;
	int level[3];
	int me, attached;
	pid_t pid;
	int64_t offset_ns;
	int wrote;                /* a record was written to a trace file */
	int64_t floor_us;         /* the latest time written (microseconds) */

	struct pt_rec kept[MAX_KEPT];
	int nkept;

	char *blob;               /* tracedata's data */
	size_t blob_len, blob_cap, blob_max;

	int prof_n, prof_time, prof_count, prof_volume, prof_relative;

	char permfile[PATH_MAX];
	char path[PATH_MAX];      /* the part file fd is open on */
	char **opened;            /* the paths opened (absolute): truncated once */
	size_t nopened, opened_cap;
	int shared;               /* a tracefiles file other processes may share */
	int fd;
	int open_failed;
	int write_failed;         /* a write failed: the part ends there */
	off_t good_end;           /* the part's size when the writer opened */
	int compress;
	uint64_t bytes;           /* text written to the trace file */

	struct {                  /* pt_label's, and whether written to
				     the part file open now (path) */
		int event;
		const char *text;
		int written;
	} label[PT_MAXLABELS];
	int nlabels;
	int label_lo, label_hi;   /* the labelled events lie in between */

	struct picl_stats *stats;
	struct picl_descriptor *d_alias[6]; /* predefined aliases 0-5 */
	struct picl_descriptor *d_pair;     /* "%d%d" */

	struct picl_value *vals;  /* conversion scratch */
	size_t vals_cap;
	char *texts;
	size_t texts_cap;

	int atexit_done;
	int exiting;

	/* Entries written and not yet exited, innermost last: what an
	 * abnormal end (exit without close0, a PICL error) must close. The
	 * arrays grow as entries are written (emit_one, writer_open; never
	 * on the way out: closing only shrinks them). */
	struct evlist open;
	int open_lost;            /* entries not tracked (no memory) */
	struct evlist saved;      /* open when the writer opened (n -1:
				     unknown, no memory) */
	off_t prev_end;           /* the same when the one before opened */
	struct evlist prev;
	int nbounds;              /* of the two above, valid in this file */
};

static struct pt_state pt = {
	.level = { 1, 1, 1 },
	.me = -1,
	.fd = -1,
	.prof_n = -1,
	.prof_time = 1, .prof_count = 1, .prof_volume = 1, .prof_relative = 1,
};

/* ------------------------------------------------------------------------ */
/* Clock                                                                     */
/* ------------------------------------------------------------------------ */

/* Read PICL_FAKE_CLOCK: at start-up, and again by tracenode (so that a
 * test may set it in its own main); a bad value is said once. */
__attribute__((constructor)) static void pt_init_clock(void)
{
	static int said;
	long long step = 0;

	if (pt.fake)
		return;
	if (picl_env_fake_clock(said ? NULL : "picl", &step) < 0)
		said = 1;
	if (step > 0) {
		pt.fake = 1;
		pt.fake_step = step;
	}
}

/* CLOCK_MONOTONIC in ns, or the fake clock. */
static int64_t mono_ns(void)
{
	struct timespec ts;

	if (unlikely(pt.fake))
		return pt.fake_ns += pt.fake_step;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A record's time stamp: TSC ticks, or mono_ns(). */
static inline int64_t stamp(void)
{
#if HAVE_TSC
	if (likely(pt.tsc))
		return (int64_t)__rdtsc();
#endif
	return mono_ns();
}

#if HAVE_TSC
/* One (TSC, monotonic) pair: the TSC read on both sides of the clock, the
 * tightest of 8 tries (a try the scheduler cut in two is thrown away). */
static void tsc_point(int64_t *tsc, int64_t *mono)
{
	uint64_t best = UINT64_MAX;
	int k;

	for (k = 0; k < 8; k++) {
		uint64_t a = __rdtsc(), b;
		int64_t m = mono_ns();

		b = __rdtsc();
		if (b - a < best) {
			best = b - a;
			*tsc = (int64_t)(a + (b - a) / 2);
			*mono = m;
		}
	}
}

/* 1 if the TSC ticks at a constant rate in every state (CPUID
 * 0x80000007 EDX bit 8) and the user did not ask for the system clock. */
static int tsc_usable(int monotonic)
{
	unsigned a, b, c, d;

	if (pt.fake || monotonic)
		return 0;
	if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007)
		return 0;
	__get_cpuid(0x80000007, &a, &b, &c, &d);
	return (d >> 8) & 1;
}

/* At a flush: the segment since the last calibration point is measured
 * against CLOCK_MONOTONIC, and the buffered records (all stamped inside it)
 * are placed by interpolation between its two ends. */
static void tsc_calibrate(void)
{
	int64_t t, m;

	if (!pt.tsc)
		return;
	tsc_point(&t, &m);
	if (t <= pt.cal_t[1])
		return;
	pt.cal_t[0] = pt.cal_t[1];
	pt.cal_m[0] = pt.cal_m[1];
	pt.cal_t[1] = t;
	pt.cal_m[1] = m;
	pt.rate = (double)(m - pt.cal_m[0]) / (double)(t - pt.cal_t[0]);
}

/* Decide the clock, once, before the first record: a first calibration
 * point, nothing more (the rate is measured when first needed:
 * early_rate). */
static void clock_start(void)
{
	int monotonic;

	if (pt.clock_started)
		return;
	pt.clock_started = 1;
	monotonic = picl_env_trace_clock("picl") == 1;
	if (!tsc_usable(monotonic))
		return;
	tsc_point(&pt.cal_t[0], &pt.cal_m[0]);
	pt.cal_t[1] = pt.rate_t = pt.cal_t[0];
	pt.cal_m[1] = pt.cal_m[0];
	pt.rate = 0;
	pt.tsc = 1;
}

/* Before the first flush, stamp s is converted (a record a full buffer
 * does not keep, tracemsg in a ring or a stopped buffer, a failed write's
 * tail): the rate is measured from the start point to a point taken now
 * (after s, so s is interpolated), unless the one taken last already
 * reaches at least half-way to s (then s is extrapolated over at most
 * twice the span measured, which bounds its error by three times the
 * points' errors; points are taken only while the span to convert
 * doubles). */
static void early_rate(int64_t s)
{
	int64_t t, m;

	if (s - pt.cal_t[0] <= 2 * (pt.rate_t - pt.cal_t[0]))
		return;
	tsc_point(&t, &m);
	if (t <= pt.rate_t)
		return;
	pt.rate_t = t;
	pt.rate = (double)(m - pt.cal_m[0]) / (double)(t - pt.cal_t[0]);
}
#else
static void tsc_calibrate(void)
{
}

static void early_rate(int64_t s)
{
	(void)s;
}

static void clock_start(void)
{
	if (pt.clock_started)
		return;
	pt.clock_started = 1;
	(void)picl_env_trace_clock("picl");     /* a bad value is said */
}
#endif

/* A stamp as CLOCK_MONOTONIC ns. */
static int64_t stamp_ns(int64_t s)
{
	if (!pt.tsc)
		return s;
	if (unlikely(pt.cal_t[1] == pt.cal_t[0]))    /* no flush yet */
		early_rate(s);
	return pt.cal_m[0] + llround((double)(s - pt.cal_t[0]) * pt.rate);
}

double pt_raw_clock(void)
{
	return (double)mono_ns() * 1e-9;
}

double pt_clock(void)
{
	return (double)(mono_ns() - pt.offset_ns) * 1e-9;
}

void pt_set_clock_offset(double offset)
{
	pt.offset_ns = llround(offset * 1e9);
}

double pt_clock_offset(void)
{
	return (double)pt.offset_ns * 1e-9;
}

int pt_clock_fixed(void)
{
	return pt.wrote;
}

/* A stamp as written: microseconds (6 decimals), rounded to nearest. */
static struct picl_time written_time(int64_t st)
{
	int64_t d = stamp_ns(st) - pt.offset_ns;
	struct picl_time t;

	t.mant = d >= 0 ? (d + 500) / 1000 : -((-d + 500) / 1000);
	t.scale = 6;
	return t;
}

/* The time a record written now gets: never earlier than what this process
 * wrote already (a clocksync0 after that may have set the clock back by
 * the correction of its offset to node 0's clock). */
static struct picl_time time_to_write(struct picl_time t)
{
	if (pt.wrote && t.mant < pt.floor_us)
		t.mant = pt.floor_us;
	return t;
}

/* A record with time t was written. */
static void wrote_at(struct picl_time t)
{
	if (!pt.wrote || t.mant > pt.floor_us)
		pt.floor_us = t.mant;
	pt.wrote = 1;
}

/* ------------------------------------------------------------------------ */
/* Levels                                                                    */
/* ------------------------------------------------------------------------ */

unsigned char pt_picl_maybe;

static void update_on(void)
{
	int k;

	for (k = 0; k < 3; k++)
		pt.on[k] = (uint8_t)(pt.tracing && !pt.write_failed && pt.level[k] >= 1);
	pt_picl_maybe = pt.on[PT_PICL];
}

int pt_collective_depth = 0;

/* 1 if a record of class cls is to be made now (the collectives' insides
 * need PICL level 3). */
static inline int recording(enum pt_class cls)
{
	if (!pt.on[cls])
		return 0;
	return cls != PT_PICL || likely(!pt_collective_depth) || pt.level[PT_PICL] >= 3;
}

int pt_on(enum pt_class cls)
{
	return recording(cls);
}

/* ------------------------------------------------------------------------ */
/* Converting binary records                                                 */
/* ------------------------------------------------------------------------ */

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t ncap = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	q = realloc(*p, ncap * size);
	if (!q)
		return -1;
	*p = q;
	*cap = ncap;
	return 0;
}

/* l becomes ev[0..n) (n >= 0); 0, or -1 out of memory (l unchanged). */
static int evlist_set(struct evlist *l, const int32_t *ev, int n)
{
	if (grow((void **)&l->ev, &l->cap, (size_t)n, sizeof(*l->ev)) < 0)
		return -1;
	if (n > 0)
		memmove(l->ev, ev, (size_t)n * sizeof(*ev));
	l->n = n;
	return 0;
}

static void evlist_free(struct evlist *l)
{
	free(l->ev);
	l->ev = NULL;
	l->n = 0;
	l->cap = 0;
}

static size_t dt_size(int dt)
{
	switch (dt) {
	case DT_CHAR: return 1;
	case DT_SHORT: return sizeof(short);
	case DT_INT: return sizeof(int);
	case DT_LONG: return sizeof(long);
	case DT_FLOAT: return sizeof(float);
	default: return sizeof(double);
	}
}

/* The descriptor alias a data type is written with (Table 2). */
static int dt_alias(int dt)
{
	static const int alias[6] = { 0, 2, 2, 3, 4, 5 };

	return alias[dt];
}

/* The shortest text that reads back as f, in t (32 bytes); its double. */
static double float_text(float f, char *t, size_t *len)
{
	int prec, n = 0;

	for (prec = 1; prec <= 9; prec++) {
		n = snprintf(t, 32, "%.*g", prec, (double)f);
		if (strtof(t, NULL) == f)
			break;
	}
	*len = (size_t)n;
	return strtod(t, NULL);
}

/* Character data written verbatim except what no trace line can hold. */
static void clean_chars(char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] == '\n' || s[i] == '\r')
			s[i] = ' ';
	if (n > 0 && s[n - 1] == '\\')
		s[n - 1] = '/';
}

/* The values of a tracedata record (blob data) into pt.vals. */
static int data_values(const struct pt_rec *r, struct picl_record *rec)
{
	size_t off = (size_t)r->vals[0], count = (size_t)r->vals[1], k;
	int dt = (int)r->vals[2];
	const char *p;
	struct picl_value *v;

	rec->alias = dt_alias(dt);
	rec->desc = pt.d_alias[rec->alias];
	rec->nfields = count;
	rec->has_descriptor = count > 0;
	if (count == 0)
		return 0;
	p = pt.blob + off;
	if (dt == DT_CHAR) {
		if (grow((void **)&pt.vals, &pt.vals_cap, 1, sizeof(*pt.vals)))
			return -1;
		v = pt.vals;
		memset(v, 0, sizeof(*v));
		v->kind = PICL_VAL_CHARS;
		v->v.s.ptr = p;
		v->v.s.len = count;
		rec->values = v;
		rec->nvalues = 1;
		return 0;
	}
	if (grow((void **)&pt.vals, &pt.vals_cap, count, sizeof(*pt.vals)) ||
	    (dt == DT_FLOAT && grow((void **)&pt.texts, &pt.texts_cap, count, 32)))
		return -1;
	for (k = 0; k < count; k++) {
		const char *q = p + k * dt_size(dt);

		v = &pt.vals[k];
		memset(v, 0, sizeof(*v));
		switch (dt) {
		case DT_SHORT: { short x; memcpy(&x, q, sizeof(x)); v->kind = PICL_VAL_INT; v->v.i = x; break; }
		case DT_INT: { int x; memcpy(&x, q, sizeof(x)); v->kind = PICL_VAL_INT; v->v.i = x; break; }
		case DT_LONG: { long x; memcpy(&x, q, sizeof(x)); v->kind = PICL_VAL_INT; v->v.i = x; break; }
		case DT_FLOAT: {
			float x;

			memcpy(&x, q, sizeof(x));
			v->kind = PICL_VAL_FLOAT;
			v->text = pt.texts + 32 * k;
			v->v.d = float_text(x, pt.texts + 32 * k, &v->text_len);
			break;
		}
		default: {
			double x;

			memcpy(&x, q, sizeof(x));
			v->kind = PICL_VAL_DOUBLE;
			v->v.d = x;
			break;
		}
		}
	}
	rec->values = pt.vals;
	rec->nvalues = count;
	return 0;
}

/* A binary record as a picl_record (values in pt.vals, valid until the
 * next conversion). Returns 0, or -1 when its data cannot be converted. */
static int to_record(const struct pt_rec *r, struct picl_record *rec)
{
	size_t k;

	picl_record_init(rec);
	rec->type = r->rtype;
	rec->event = r->event;
	rec->time = written_time(r->st);
	rec->processor = pt.me;
	rec->process = 0;
	if (r->kind == K_DATA)
		return data_values(r, rec);
	if (r->nvals == 0 || (r->flags & F_COUNT))
		return 0;
	if (grow((void **)&pt.vals, &pt.vals_cap, PT_MAXVALS, sizeof(*pt.vals)))
		return -1;
	for (k = 0; k < r->nvals; k++) {
		memset(&pt.vals[k], 0, sizeof(pt.vals[k]));
		pt.vals[k].kind = PICL_VAL_INT;
		pt.vals[k].v.i = r->vals[k];
	}
	rec->nfields = r->nvals;
	rec->has_descriptor = 1;
	rec->alias = 2;
	rec->desc = pt.d_alias[2];
	rec->values = pt.vals;
	rec->nvalues = r->nvals;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Statistics                                                                */
/* ------------------------------------------------------------------------ */

/*
 * Feed one converted record to the accumulator. The accumulator keys
 * processes by (processor, process); records are fed under a constant key,
 * since records written before open0 do not know `me` yet, and the emitted
 * statistics get the real processor back.
 */
static void stats_feed_record(struct picl_record *rec, const struct pt_rec *r)
{
	int64_t k;

	if (!pt.stats || rec->type < -4 || rec->type > -2)
		return;
	rec->processor = STATS_KEY;
	if (r->flags & F_COUNT) {
		for (k = 0; k < r->vals[0]; k++)
			picl_stats_add(pt.stats, rec, NULL);
	} else {
		picl_stats_add(pt.stats, rec, NULL);
	}
	rec->processor = pt.me;
}

/* An entry, exit or mark record (tracedata's records are not events; an
 * event record may carry blob data: load0's -503 entry). */
static int is_event(const struct pt_rec *r)
{
	return r->rtype >= -4 && r->rtype <= -2;
}

static void stats_feed(const struct pt_rec *r)
{
	struct picl_record rec;

	if (!is_event(r))
		return;
	if (to_record(r, &rec) == 0)
		stats_feed_record(&rec, r);
}

/* ------------------------------------------------------------------------ */
/* The part file                                                             */
/* ------------------------------------------------------------------------ */

/* The processor of the records written, and of the default part file's
 * name: open0's id; before open0 (a flush, tracemsg, an error or exit
 * before it), the one the launcher gave the process (api.h). Asked for at
 * every write until known. */
static int node_id(void)
{
	if (pt.me < 0)
		pt.me = picl_api_id();
	return pt.me;
}

static const char *part_path(char *buf, size_t size)
{
	const char *env = getenv("PICL_TRACE_PART");

	if (pt.permfile[0])
		return pt.permfile;
	if (env && *env)
		return env;
	snprintf(buf, size, "picltrace.%d.picl", node_id());
	return buf;
}

static void close_part(void)
{
	if (pt.fd >= 0)
		close(pt.fd);
	pt.fd = -1;
	pt.path[0] = '\0';
	pt.nbounds = 0;
}

/* path with the current directory in front, into buf (PATH_MAX bytes);
 * as it is when that fails. */
static void abs_path(const char *path, char *buf)
{
	char cwd[PATH_MAX];
	int n = -1;

	if (path[0] != '/' && getcwd(cwd, sizeof(cwd)))
		n = snprintf(buf, PATH_MAX, "%s/%s", cwd, path);
	if (n < 0 || n >= PATH_MAX)
		snprintf(buf, PATH_MAX, "%s", path);
}

/* 1 if this process has opened the absolute path abs before; else
 * remembers it and returns 0. */
static int opened_before(const char *abs)
{
	size_t k;
	char *copy;

	for (k = 0; k < pt.nopened; k++)
		if (strcmp(pt.opened[k], abs) == 0)
			return 1;
	copy = strdup(abs);
	if (copy && grow((void **)&pt.opened, &pt.opened_cap, pt.nopened + 1,
			 sizeof(*pt.opened)) == 0)
		pt.opened[pt.nopened++] = copy;
	else
		free(copy);
	return 0;
}

/* Under piclrun: 1 if a process of the run has listed the absolute path
 * abs in its "<part>.files" (note_own_file) in the parts' directory. */
static int listed_in_run(const char *part, const char *abs)
{
	char dir[PATH_MAX], list[PATH_MAX], line[PATH_MAX + 2];
	const char *slash = strrchr(part, '/');
	struct dirent *e;
	DIR *d;
	FILE *f;
	int found = 0;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s",
			 slash == part ? 1 : (int)(slash - part), part);
	d = opendir(dir);
	if (!d)
		return 0;
	while (!found && (e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);

		if (n < 6 || strcmp(e->d_name + n - 6, ".files") != 0 ||
		    (size_t)snprintf(list, sizeof(list), "%s/%s", dir,
				     e->d_name) >= sizeof(list))
			continue;
		f = fopen(list, "r");
		if (!f)
			continue;
		while (!found && fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = '\0';
			found = strcmp(line, abs) == 0;
		}
		fclose(f);
	}
	closedir(d);
	return found;
}

/*
 * Under piclrun, a file named by tracefiles() instead of the part piclrun
 * gave us is listed in "<part>.files", one absolute path a line, so that
 * piclrun merges it too (and leaves it in place: it is the user's).
 */
static void note_own_file(const char *part, const char *abs)
{
	char list[PATH_MAX], line[PATH_MAX + 2];
	int fd, n;

	if (strchr(abs, '\n'))
		return;
	n = snprintf(line, sizeof(line), "%s\n", abs);
	if (n < 0 || (size_t)n >= sizeof(line) ||
	    (size_t)snprintf(list, sizeof(list), "%s.files", part) >= sizeof(list))
		return;
	fd = open(list, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0)
		return;
	if (write(fd, line, (size_t)n) != n)
		fprintf(stderr, "picl: cannot note trace file %s for piclrun\n", abs);
	close(fd);
}

/*
 * Open the part file (append). A file is truncated once in a run: on the
 * first open of its path in this process, and, for a tracefiles file under
 * piclrun, which other processes may share, only when no process of the
 * run has listed it yet (the first to open it; the others append). The
 * test and the listing are made holding the file's lock, so two processes
 * opening it at once cannot both truncate. Returns the fd or -1 (warned
 * once).
 */
static int open_part(void)
{
	char def[64], abs[PATH_MAX];
	const char *path = part_path(def, sizeof(def));
	const char *env = getenv("PICL_TRACE_PART");
	struct stat st;
	int k;

	node_id();      /* for the records too: every write comes here first */
	if (pt.fd >= 0 && strcmp(path, pt.path) == 0)
		return pt.fd;
	close_part();
	pt.fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
	if (pt.fd < 0) {
		if (!pt.open_failed) {
			fprintf(stderr, "picl: cannot open trace file %s: %s\n",
				path, strerror(errno));
			picl_api_trace_lost();
		}
		pt.open_failed = 1;
		return -1;
	}
	snprintf(pt.path, sizeof(pt.path), "%s", path);
	for (k = 0; k < pt.nlabels; k++)        /* a new file: label again */
		pt.label[k].written = 0;
	pt.shared = env && *env && strcmp(env, path) != 0;
	abs_path(path, abs);
	if (!opened_before(abs)) {
		if (pt.shared)
			flock(pt.fd, LOCK_EX);
		/* (a pipe, a FIFO or a terminal has nothing to empty) */
		if ((!pt.shared || !listed_in_run(env, abs)) &&
		    (fstat(pt.fd, &st) != 0 || S_ISREG(st.st_mode)) &&
		    ftruncate(pt.fd, 0) < 0)
			fprintf(stderr, "picl: cannot truncate trace file %s: %s\n",
				path, strerror(errno));
		if (pt.shared) {
			note_own_file(env, abs);
			flock(pt.fd, LOCK_UN);
		}
	}
	return pt.fd;
}

/* The room the exits of nopen open entries take, at most. */
static size_t tail_room(int nopen)
{
	return TAIL_ROOM + (size_t)(nopen > 0 ? nopen : 0) * EXIT_ROOM;
}

/* Room for the exits of nopen open entries (tail_room) past the end `end`
 * of the part, kept at every writer_open and after every write (best
 * effort; the blocks are the file's, not counted in its size):
 * write_failed closes the part there, whoever else fills the file system
 * in between. */
static void keep_room(int fd, off_t end, int nopen)
{
	if (fd >= 0 && end >= 0)
		(void)fallocate(fd, FALLOC_FL_KEEP_SIZE, end, (off_t)tail_room(nopen));
}

/* A writer on fd that writes as the part is written (plain or zstd
 * frames): the part's own, and make_tail's. */
static struct picl_writer *part_writer(int fd)
{
	struct picl_writer_options opts = { pt.compress, 0, 64 * 1024 };

	return picl_writer_open_fd(fd, pt.path, &opts, NULL, NULL);
}

/* A writer on the part file; a shared one is locked while it is written,
 * so that the processes' flushes do not mix (writer_close unlocks). */
static struct picl_writer *writer_open(void)
{
	struct picl_writer *w;
	int fd = open_part();

	if (fd < 0)
		return NULL;
	if (pt.shared)
		flock(fd, LOCK_EX);
	w = part_writer(fd);
	if (!w && pt.shared)
		flock(fd, LOCK_UN);
	/* Where a failed write is cut back to, and what was open there; room
	 * past the end kept for the exits that close the part then. */
	{
		struct evlist t = pt.prev;

		pt.prev_end = pt.good_end;
		pt.prev = pt.saved;
		pt.saved = t;
	}
	pt.good_end = lseek(fd, 0, SEEK_END);
	if (pt.open_lost || evlist_set(&pt.saved, pt.open.ev, pt.open.n) < 0)
		pt.saved.n = -1;
	if (pt.nbounds < 2)
		pt.nbounds++;
	keep_room(fd, pt.good_end, pt.open.n);
	return w;
}

static void emit_one(struct picl_writer *w, const struct pt_rec *r, int feed);
static inline void fill(struct pt_rec *r, int64_t ns, int32_t rtype, int32_t event,
			int n, const int64_t *vals, uint8_t kind, uint8_t flags);

/* The exits of the entries ev[0..n), innermost first, at time ns, as the
 * part's text into tail (size bytes: tail_room(n)); its length, or -1.
 * Made in memory (the file system is full). */
static ssize_t make_tail(const int32_t *ev, int n, int64_t ns, char *tail, size_t size)
{
	struct picl_writer *w;
	struct pt_rec ex;
	ssize_t len = -1;
	int mfd;

	if (n < 0 || !tail)
		return -1;
	mfd = memfd_create("picl-tail", MFD_CLOEXEC);
	if (mfd < 0)
		return -1;
	if (evlist_set(&pt.open, ev, n) < 0) {
		close(mfd);
		return -1;
	}
	w = part_writer(mfd);
	while (w && pt.open.n > 0) {
		int before = pt.open.n;

		fill(&ex, ns, PICL_REC_EXIT, pt.open.ev[pt.open.n - 1], 0, NULL, K_INT, 0);
		emit_one(w, &ex, 0);
		if (pt.open.n == before)
			break;
	}
	if (w && picl_writer_close(w, NULL) == 0)
		len = pread(mfd, tail, size, 0);
	close(mfd);
	return len >= (ssize_t)size ? -1 : len;
}

/* The part cut at `at` and closed by tail there, written without O_APPEND
 * over bytes the part holds already; 0 if done. */
static int close_at(off_t at, const char *tail, ssize_t len)
{
	int fl = fcntl(pt.fd, F_GETFL), rc = -1;

	if (len < 0 || fl < 0 || fcntl(pt.fd, F_SETFL, fl & ~O_APPEND) < 0)
		return -1;
	if (pwrite(pt.fd, tail, (size_t)len, at) == len &&
	    ftruncate(pt.fd, at + len) == 0)
		rc = 0;
	fcntl(pt.fd, F_SETFL, fl);
	return rc;
}

/*
 * A write to the part file failed (a full disk, a file system gone
 * read-only): the part may end in half a line and in the middle of what
 * this writer wrote. The computation goes on untraced, and the part is cut
 * back to where the writer started and closed there: the entries open
 * then get their exits (the -901 one last), written over the failed
 * write's bytes (the room keep_room kept is the file's), so that the part
 * nests and reads back. When even that has no room, it is closed where the
 * write before started (losing that one; not in a file other processes
 * share, whose records may follow it); else cut back unclosed.
 */
static void write_failed(const struct picl_error *e)
{
	int64_t ns = stamp();
	size_t size = tail_room(pt.saved.n > pt.prev.n ? pt.saved.n : pt.prev.n);
	char *tail;

	fprintf(stderr, "picl: cannot write trace file %s: %s; tracing stops here\n",
		pt.path, e->sys_errno ? strerror(e->sys_errno) : e->problem);
	pt.write_failed = 1;
	picl_api_trace_lost();
	pt.limit = 0;
	update_on();
	if (pt.fd < 0 || pt.good_end < 0 || pt.nbounds < 1)
		return;
	tail = malloc(size);
	if (close_at(pt.good_end, tail,
		     make_tail(pt.saved.ev, pt.saved.n, ns, tail, size)) == 0)
		goto done;
	/* (not in a file shared with other processes: they may have
	 * written after prev_end, since this one's lock was released) */
	if (!pt.shared && pt.nbounds >= 2 && pt.prev_end >= 0 &&
	    close_at(pt.prev_end, tail,
		     make_tail(pt.prev.ev, pt.prev.n, ns, tail, size)) == 0)
		goto done;
	/* Not silently: what is left does not nest (its open entries have
	 * no exits), and says so on reading. */
	fprintf(stderr, "picl: cannot close trace file %s: no room for the exits of"
		" its open entries; it is cut back to its last complete write,"
		" unclosed\n", pt.path);
	if (ftruncate(pt.fd, pt.good_end) < 0)
		fprintf(stderr, "picl: cannot truncate trace file %s: %s\n",
			pt.path, strerror(errno));
done:
	free(tail);
}

/* Close a writer (and handle a failed write); 0, or -1 if it failed. */
static int writer_finish(struct picl_writer *w)
{
	struct picl_error e;
	int rc = picl_writer_close(w, &e);

	if (rc < 0)
		write_failed(&e);
	else if (pt.fd >= 0)
		keep_room(pt.fd, lseek(pt.fd, 0, SEEK_END), pt.open.n);
	if (pt.shared && pt.fd >= 0)
		flock(pt.fd, LOCK_UN);
	return rc < 0 ? -1 : 0;
}

/* Close a writer; add what it wrote to the byte count and return that. */
static uint64_t writer_close(struct picl_writer *w)
{
	uint64_t n;

	if (!w)
		return 0;
	n = picl_writer_offset(w);
	if (writer_finish(w) < 0)
		return 0;
	pt.bytes += n;
	return n;
}

/* ------------------------------------------------------------------------ */
/* Writing the buffer                                                        */
/* ------------------------------------------------------------------------ */

/* " v1 v2 ..." for integer data, into buf (PT_MAXVALS * 21 bytes); its
 * length. Formatting it here spares the writer's encode-and-check of every
 * value, which was a third of the cost of a flush. */
static size_t int_text(const struct pt_rec *r, char *buf)
{
	size_t len = 0;
	int k;

	for (k = 0; k < r->nvals; k++) {
		char tmp[24];
		uint64_t u = r->vals[k] < 0 ? (uint64_t)0 - (uint64_t)r->vals[k]
					    : (uint64_t)r->vals[k];
		size_t n = 0;

		do {
			tmp[n++] = (char)('0' + u % 10);
			u /= 10;
		} while (u);
		buf[len++] = ' ';
		if (r->vals[k] < 0)
			buf[len++] = '-';
		while (n)
			buf[len++] = tmp[--n];
	}
	return len;
}

void pt_label(int event, const char *text)
{
	int k;

	for (k = 0; k < pt.nlabels; k++)
		if (pt.label[k].event == event)
			return;
	if (pt.nlabels == PT_MAXLABELS)
		return;
	pt.label[pt.nlabels].event = event;
	pt.label[pt.nlabels].text = text;
	pt.label[pt.nlabels].written = 0;
	if (!pt.nlabels || event < pt.label_lo)
		pt.label_lo = event;
	if (!pt.nlabels || event > pt.label_hi)
		pt.label_hi = event;
	pt.nlabels++;
}

/* Before the record rec of a labelled event goes to the part file: the
 * event's -5 label, at the record's time, if this file has none yet. */
static void write_label(struct picl_writer *w, const struct picl_record *rec)
{
	struct picl_record lab;
	struct picl_value v;
	int k;

	for (k = 0; k < pt.nlabels; k++)
		if (pt.label[k].event == rec->event)
			break;
	if (k == pt.nlabels || pt.label[k].written)
		return;
	pt.label[k].written = 1;
	picl_record_init(&lab);
	lab.type = PICL_REC_LABEL;
	lab.event = rec->event;
	lab.time = rec->time;
	lab.processor = rec->processor;
	lab.process = rec->process;
	memset(&v, 0, sizeof(v));
	v.kind = PICL_VAL_CHARS;
	v.v.s.ptr = pt.label[k].text;
	v.v.s.len = strlen(pt.label[k].text);
	lab.nfields = v.v.s.len;
	lab.has_descriptor = 1;
	lab.alias = 0;
	lab.desc = pt.d_alias[0];
	lab.values = &v;
	lab.nvalues = 1;
	picl_writer_write(w, &lab);
}

static void emit_one(struct picl_writer *w, const struct pt_rec *r, int feed)
{
	struct picl_record rec;
	char text[PT_MAXVALS * 21 + 1];

	if (to_record(r, &rec) < 0)
		return;
	if (w && !(r->flags & (F_NOWRITE | F_COUNT)))
		rec.time = time_to_write(rec.time);   /* as fed: as written */
	if (feed && is_event(r))
		stats_feed_record(&rec, r);
	if (!w || (r->flags & (F_NOWRITE | F_COUNT)))
		return;
	if (r->rtype == PICL_REC_ENTRY) {
		if (grow((void **)&pt.open.ev, &pt.open.cap, (size_t)pt.open.n + 1,
			 sizeof(*pt.open.ev)) == 0)
			pt.open.ev[pt.open.n++] = r->event;
		else
			pt.open_lost++;
	} else if (r->rtype == PICL_REC_EXIT) {
		int k;

		/* the innermost open entry of the event, as readers match */
		for (k = pt.open.n - 1; k >= 0; k--)
			if (pt.open.ev[k] == r->event)
				break;
		if (k >= 0) {
			memmove(pt.open.ev + k, pt.open.ev + k + 1,
				(size_t)(pt.open.n - k - 1) * sizeof(pt.open.ev[0]));
			pt.open.n--;
		}
	}
	if (r->kind == K_INT && r->nvals > 0) {
		rec.data = text;
		rec.data_len = int_text(r, text);
		rec.values = NULL;
		rec.nvalues = 0;
	}
	if (unlikely(r->event >= pt.label_lo && r->event <= pt.label_hi &&
		     pt.nlabels))
		write_label(w, &rec);
	picl_writer_write(w, &rec);
	wrote_at(rec.time);
}

static void buffer_reset(void)
{
	pt.n = pt.start = pt.fed = 0;
	pt.nkept = 0;
	pt.blob_len = 0;
	pt.stopped = pt.wrapped = 0;
	pt.limit = pt.mode == MODE_RING ? pt.cap : pt.cap - 2;
}

/* Write (and feed) every buffered record through w, oldest first. */
static void write_records(struct picl_writer *w)
{
	uint32_t i;
	int k;

	tsc_calibrate();
	for (k = 0; k < pt.nkept; k++)
		emit_one(w, &pt.kept[k], 0);
	for (i = 0; i < pt.n; i++)
		emit_one(w, &pt.buf[(pt.start + i) % pt.cap], i >= pt.fed);
	buffer_reset();
}

/* Write the buffer out; returns the bytes written. */
static uint64_t write_out(void)
{
	struct picl_writer *w;

	if (pt.write_failed) {
		buffer_reset();
		return 0;
	}
	w = writer_open();

	write_records(w);
	return writer_close(w);
}

/* ------------------------------------------------------------------------ */
/* Appending                                                                 */
/* ------------------------------------------------------------------------ */

static inline void fill(struct pt_rec *r, int64_t ns, int32_t rtype, int32_t event,
			int n, const int64_t *vals, uint8_t kind, uint8_t flags)
{
	int k;

	r->st = ns;
	r->rtype = rtype;
	r->event = event;
	r->nvals = (uint8_t)n;
	r->kind = kind;
	r->flags = flags;
	for (k = 0; k < n; k++)
		r->vals[k] = vals[k];
}

static void put_slow(int64_t ns, int32_t rtype, int32_t event, int n,
		     const int64_t *vals, uint8_t kind, uint8_t flags);

static inline void put_at(int64_t ns, int32_t rtype, int32_t event, int n,
			  const int64_t *vals, uint8_t kind, uint8_t flags)
{
	if (likely(pt.n < pt.limit)) {
		fill(&pt.buf[pt.n++], ns, rtype, event, n, vals, kind, flags);
		return;
	}
	put_slow(ns, rtype, event, n, vals, kind, flags);
}

static inline void put(int32_t rtype, int32_t event, int n, const int64_t *vals,
		       uint8_t kind, uint8_t flags)
{
	put_at(stamp(), rtype, event, n, vals, kind, flags);
}

/* Append into a slot the fast path does not use (reserved or ring). */
static void put_raw(int64_t ns, int32_t rtype, int32_t event, int n,
		    const int64_t *vals, uint8_t kind, uint8_t flags)
{
	fill(&pt.buf[(pt.start + pt.n) % pt.cap], ns, rtype, event, n, vals, kind, flags);
	pt.n++;
}

/* Count a record that cannot be buffered in the statistics only. */
static void feed_direct(int64_t ns, int32_t rtype, int32_t event, int n,
			const int64_t *vals, uint8_t kind, uint8_t flags)
{
	struct pt_rec r;

	fill(&r, ns, rtype, event, n, vals, kind, flags);
	stats_feed(&r);
}

/* MODE_STOP: the buffer is full. A -913 mark, then statistics only. */
static void stop_now(int64_t ns)
{
	uint32_t i;

	if (pt.level[PT_TRACE] >= 1 && pt.n < pt.cap)
		put_raw(ns, PICL_REC_MARK, -913, 0, NULL, K_INT, 0);
	for (i = pt.fed; i < pt.n; i++)
		stats_feed(&pt.buf[(pt.start + i) % pt.cap]);
	pt.fed = pt.n;
	pt.stopped = 1;
	pt.limit = 0;
}

/* traceflush, and MODE_FLUSH's full buffer: -912 entry, write, -912 exit.
 * The exit's length is every byte this flush wrote (Table 13), also those
 * of a buffer too full for the entry (a stopped one, a ring), written
 * before it. */
static void flush_traced(void)
{
	int traced = pt.level[PT_TRACE] >= 1;
	uint64_t bytes = 0;
	int64_t len;

	if (traced) {
		if (pt.n >= pt.cap)
			bytes = write_out();
		put_raw(stamp(), PICL_REC_ENTRY, -912, 0, NULL, K_INT, 0);
	}
	bytes += write_out();
	if (traced) {
		len = (int64_t)bytes;
		put_raw(stamp(), PICL_REC_EXIT, -912, 1, &len, K_INT, 0);
	}
}

/* MODE_RING: push out the oldest record (counted; -901 entry kept). */
static void drop_oldest(void)
{
	struct pt_rec *r = &pt.buf[pt.start];

	if (pt.fed > 0)
		pt.fed--;
	else
		stats_feed(r);
	/* Kept records have been fed: write_records writes them only. */
	if (pt.nkept < MAX_KEPT &&
	    ((r->rtype == PICL_REC_ENTRY && r->event == -901) ||
	     (r->rtype == PICL_REC_MARK && r->event == -914)))
		pt.kept[pt.nkept++] = *r;
	pt.start = (pt.start + 1) % pt.cap;
	pt.n--;
}

/* MODE_RING: a record once the ring is full, or once records were pushed
 * out to make room for data (ring_data_room; the ring's start has moved,
 * so the fast path, which appends at buf[n], is off until the next write). */
static void ring_put(int64_t ns, int32_t rtype, int32_t event, int n,
		     const int64_t *vals, uint8_t kind, uint8_t flags)
{
	pt.limit = 0;
	if (!pt.wrapped) {
		pt.wrapped = 1;
		if (pt.level[PT_TRACE] >= 1) {
			if (pt.n >= pt.cap)
				drop_oldest();
			put_raw(ns, PICL_REC_MARK, -914, 0, NULL, K_INT, 0);
		}
	}
	if (pt.n >= pt.cap)
		drop_oldest();
	put_raw(ns, rtype, event, n, vals, kind, flags);
}

static void put_slow(int64_t ns, int32_t rtype, int32_t event, int n,
		     const int64_t *vals, uint8_t kind, uint8_t flags)
{
	if (!pt.tracing || !pt.buf || pt.write_failed)
		return;
	if (pt.stopped) {
		feed_direct(ns, rtype, event, n, vals, kind, flags);
		return;
	}
	switch (pt.mode) {
	case MODE_RING:
		ring_put(ns, rtype, event, n, vals, kind, flags);
		return;
	case MODE_STOP:
		if (pt.n < pt.cap)
			put_raw(ns, rtype, event, n, vals, kind, flags);
		else
			feed_direct(ns, rtype, event, n, vals, kind, flags);
		stop_now(stamp());
		return;
	default:
		put_raw(ns, rtype, event, n, vals, kind, flags);
		flush_traced();
		return;
	}
}

/* ------------------------------------------------------------------------ */
/* trace.h                                                                   */
/* ------------------------------------------------------------------------ */

void pt_attach(int me, int nprocs, int host)
{
	(void)nprocs;
	(void)host;
	pt.me = me;
	pt.attached = 1;
}

void pt_detach(void)
{
	pt.attached = 0;
}

static inline int clip(int n)
{
	return n < 0 ? 0 : n > PT_MAXVALS ? PT_MAXVALS : n;
}

void pt_entry(enum pt_class cls, int event, int n, const int64_t *vals)
{
	if (recording(cls))
		put(PICL_REC_ENTRY, event, clip(n), vals, K_INT, 0);
}

static int blob_room(size_t bytes);

void pt_entry_text(enum pt_class cls, int event, const char *text)
{
	size_t n = text ? strlen(text) : 0;
	int64_t v[3];

	if (!recording(cls) || blob_room(n) < 0)
		return;
	if (n) {
		memcpy(pt.blob + pt.blob_len, text, n);
		clean_chars(pt.blob + pt.blob_len, n);
	}
	v[0] = (int64_t)pt.blob_len;
	v[1] = (int64_t)n;
	v[2] = DT_CHAR;
	pt.blob_len += n;
	put(PICL_REC_ENTRY, event, 3, v, K_DATA, 0);
}

void pt_exit(enum pt_class cls, int event, int n, const int64_t *vals)
{
	if (recording(cls))
		put(PICL_REC_EXIT, event, clip(n), vals, K_INT, 0);
}

void pt_mark(enum pt_class cls, int event, int n, const int64_t *vals)
{
	if (recording(cls))
		put(PICL_REC_MARK, event, clip(n), vals, K_INT, 0);
}

/* An event counted in the statistics, never written (its class on). */
static void count_event(int event)
{
	struct pt_rec *last;
	int64_t one = 1;

	if (pt.n > pt.fed && !pt.stopped) {
		last = &pt.buf[(pt.start + pt.n - 1) % pt.cap];
		if ((last->flags & F_COUNT) && last->event == event) {
			last->vals[0]++;
			return;
		}
	}
	put(PICL_REC_MARK, event, 1, &one, K_INT, F_COUNT);
}

void pt_count(int event)
{
	if (recording(PT_PICL))
		count_event(event);
}

/* ------------------------------------------------------------------------ */
/* Starting and stopping                                                     */
/* ------------------------------------------------------------------------ */

static void at_exit(void)
{
	/* exit without close0 (close0 has called traceexit already) */
	if (pt.tracing && pt.pid == getpid())
		pt_exit_abnormal();
}

static int compile_descriptors(void)
{
	int k;

	for (k = 0; k < 6; k++) {
		const char *c = picl_predefined_alias(k);

		if (!pt.d_alias[k] &&
		    picl_descriptor_compile(c, strlen(c), &pt.d_alias[k], NULL) != PICL_OK)
			return -1;
	}
	if (!pt.d_pair && picl_descriptor_compile("%d%d", 4, &pt.d_pair, NULL) != PICL_OK)
		return -1;
	return 0;
}

/* tracenode and tracehost (`call`). A size below the smallest buffer
 * (MIN_RECORDS records, and BLOB_MIN bytes for tracedata's data) gives the
 * smallest; a negative one is said, too (it was taken as a huge size_t for
 * the data, which then had no bound). */
static void start_tracing(const char *call, int tracesize, int flush, int sync)
{
	static int zstd_said;
	size_t nrec, bytes;
	long long z = 0;
	void *m;

	if (pt.tracing)
		return;
	if (tracesize < 0) {
		fprintf(stderr, "picl: process %d: %s: buffer size %d is negative; using the"
			" smallest (%zu bytes, and %d for tracedata's data)\n", node_id(),
			call, tracesize, (size_t)MIN_RECORDS * sizeof(struct pt_rec), BLOB_MIN);
		tracesize = 0;
	}
	pt_init_clock();
	clock_start();
	if (sync) {     /* its errors are the program's call's */
		const char *prev = picl_api_serve(call);

		clocksync0();
		picl_api_serve(prev);
	}
	nrec = (size_t)tracesize / sizeof(struct pt_rec);
	if (nrec < MIN_RECORDS)
		nrec = MIN_RECORDS;
	if (nrec > UINT32_MAX / 2)
		nrec = UINT32_MAX / 2;
	bytes = nrec * sizeof(struct pt_rec);
	m = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (m == MAP_FAILED || compile_descriptors() < 0) {
		int err = m == MAP_FAILED ? errno : ENOMEM;

		/* As a trace file that cannot be written: the program goes on
		 * untraced, but the run must not pass for a good one with no
		 * trace (piclrun said "none called tracenode", status 0). */
		fprintf(stderr, "picl: process %d: %s: cannot allocate a trace buffer "
			"of %zu bytes: %s; tracing stays off\n", node_id(), call, bytes,
			strerror(err));
		if (m != MAP_FAILED)
			munmap(m, bytes);
		picl_api_trace_lost();
		return;
	}
	if (!pt.stats)       /* (kept from an earlier session: cumulative) */
		pt.stats = picl_stats_new();
	pt.buf = m;
	pt.map_bytes = bytes;
	pt.cap = (uint32_t)nrec;
	pt.mode = flush > 0 ? MODE_FLUSH : flush < 0 ? MODE_RING : MODE_STOP;
	pt.blob_max = (size_t)tracesize > BLOB_MIN ? (size_t)tracesize : BLOB_MIN;
	/* (read at each start: a test sets it between sessions) */
	if (picl_env_trace_zstd(zstd_said ? NULL : "picl", &z) < 0)
		zstd_said = 1;
	pt.compress = z == 1;
	pt.pid = getpid();
	pt.tracing = 1;
	pt.exiting = 0;
	pt.write_failed = 0;
	buffer_reset();
	update_on();
	if (!pt.atexit_done && atexit(at_exit) == 0)
		pt.atexit_done = 1;
	put(PICL_REC_ENTRY, -901, 0, NULL, K_INT, 0);
}

void tracenode(int tracesize, int flush, int sync)
{
	start_tracing("tracenode", tracesize, flush, sync);
}

void tracehost(int tracesize, int flush)
{
	start_tracing("tracehost", tracesize, flush, 0);
}

/* ------------------------------------------------------------------------ */
/* traceexit: -901 exit, statistics                                          */
/* ------------------------------------------------------------------------ */

struct emit_ctx {
	struct picl_writer *w;
	struct picl_time time;
	int vol_state;            /* 0 before, 1 after -102 -1 (system), 2 done */
	struct picl_value *v;
	size_t vcap;
};

static int is_system_wild(const struct picl_record *rec)
{
	return rec->event == PICL_WILDCARD && rec->nvalues >= 2 && rec->values[0].v.i < 0;
}

/* The -901 volume pair, inserted at its place (system events by decreasing
 * number) into the -103 -1 record in ctx->v[0..*nv). */
static void insert_volume(struct emit_ctx *c, size_t *nv)
{
	size_t k = 0;

	while (k < *nv && c->v[k].v.i > -901)
		k += 2;
	memmove(c->v + k + 2, c->v + k, (*nv - k) * sizeof(*c->v));
	memset(c->v + k, 0, 2 * sizeof(*c->v));
	c->v[k].kind = PICL_VAL_INT;
	c->v[k].v.i = -901;
	c->v[k + 1].kind = PICL_VAL_INT;
	c->v[k + 1].v.i = (int64_t)pt.bytes;
	*nv += 2;
}

static int keep_pair(const struct picl_record *rec, int64_t event)
{
	if (rec->event == PICL_WILDCARD && event >= 0 && pt.prof_n >= 0)
		return event < pt.prof_n;
	return 1;
}

static int keep_record(const struct picl_record *rec)
{
	int system = is_system_wild(rec);

	if (system)
		return 1;
	if (rec->event >= 0 && (!pt.prof_relative ||
				(pt.prof_n >= 0 && rec->event >= pt.prof_n)))
		return 0;
	switch (rec->type) {
	case PICL_REC_STAT_TIME: return pt.prof_time;
	case PICL_REC_STAT_COUNT: return pt.prof_count;
	default: return pt.prof_volume;
	}
}

/* Write a statistics record: filtered, the -901 volume added if asked. */
static int write_stat(struct emit_ctx *c, const struct picl_record *in, int add_volume)
{
	struct picl_record rec = *in;
	size_t k, nv = 0;

	if (grow((void **)&c->v, &c->vcap, in->nvalues + 2, sizeof(*c->v)))
		return 0;
	for (k = 0; k + 1 < in->nvalues; k += 2) {
		if (!keep_pair(in, in->values[k].v.i))
			continue;
		c->v[nv++] = in->values[k];
		c->v[nv++] = in->values[k + 1];
	}
	if (add_volume)
		insert_volume(c, &nv);
	if (nv == 0)
		return 0;
	rec.values = c->v;
	rec.nvalues = nv;
	rec.nfields = nv / 2;
	rec.processor = pt.me;
	rec.process = 0;
	rec.time = c->time;
	picl_writer_write(c->w, &rec);
	return 0;
}

/* The -103 -1 record of the system events when the accumulator had none. */
static void write_volume_only(struct emit_ctx *c)
{
	struct picl_record rec;

	picl_record_init(&rec);
	rec.type = PICL_REC_STAT_VOLUME;
	rec.event = PICL_WILDCARD;
	rec.has_descriptor = 1;
	rec.alias = -1;
	rec.control = "%d%d";
	rec.control_len = 4;
	rec.desc = pt.d_pair;
	write_stat(c, &rec, 1);
}

static int emit_stat(void *ctx, const struct picl_record *rec)
{
	struct emit_ctx *c = ctx;
	int system = is_system_wild(rec);

	if (c->vol_state == 1) {
		c->vol_state = 2;
		if (rec->type == PICL_REC_STAT_VOLUME && system)
			return write_stat(c, rec, 1);
		write_volume_only(c);
	}
	if (!keep_record(rec))
		return 0;
	if (rec->type == PICL_REC_STAT_COUNT && system && c->vol_state == 0)
		c->vol_state = 1;
	return write_stat(c, rec, 0);
}

static void free_state(void)
{
	int k;

	if (pt.buf)
		munmap(pt.buf, pt.map_bytes);
	pt.buf = NULL;
	pt.cap = pt.n = pt.limit = 0;
	free(pt.blob);
	pt.blob = NULL;
	pt.blob_len = pt.blob_cap = 0;
	free(pt.vals);
	pt.vals = NULL;
	pt.vals_cap = 0;
	free(pt.texts);
	pt.texts = NULL;
	pt.texts_cap = 0;
	for (k = 0; k < 6; k++) {
		picl_descriptor_free(pt.d_alias[k]);
		pt.d_alias[k] = NULL;
	}
	picl_descriptor_free(pt.d_pair);
	pt.d_pair = NULL;
	evlist_free(&pt.open);
	evlist_free(&pt.saved);
	evlist_free(&pt.prev);
	pt.open_lost = 0;
	close_part();
}

/* traceexit; when the process ends abnormally (close_open), the entries
 * still open (a user block, the PICL call it died in) are closed first at
 * the same time, so that the trace nests and the -901 exit comes last. */
static void trace_exit(int close_open)
{
	struct emit_ctx c;
	struct pt_rec ex;
	uint64_t stat_bytes;
	int64_t ns;

	if (!pt.tracing || pt.exiting)
		return;
	pt.exiting = 1;
	ns = stamp();
	memset(&c, 0, sizeof(c));
	c.w = pt.write_failed ? NULL : writer_open();
	write_records(c.w);
	while (close_open && c.w && pt.open.n > 0 &&
	       pt.open.ev[pt.open.n - 1] != -901) {
		int before = pt.open.n;

		fill(&ex, ns, PICL_REC_EXIT, pt.open.ev[pt.open.n - 1], 0, NULL, K_INT, 0);
		emit_one(c.w, &ex, 1);
		if (pt.open.n == before)
			break;   /* not written (cannot happen): no endless loop */
	}
	if (close_open && c.w && pt.open_lost)
		fprintf(stderr, "picl: process %d: %d open entries could not be tracked"
			" (out of memory): they get no exit, the trace does not nest\n",
			node_id(), pt.open_lost);
	fill(&ex, ns, PICL_REC_EXIT, -901, 0, NULL, K_INT, 0);
	emit_one(c.w, &ex, 1);
	c.time = time_to_write(written_time(ns));
	if (c.w) {   /* (none when the trace file could not be opened: said) */
		uint64_t before = picl_writer_offset(c.w);

		pt.bytes += before;
		picl_stats_emit(pt.stats, emit_stat, &c);
		wrote_at(c.time);
		if (c.vol_state == 1)
			write_volume_only(&c);
		/* a later session's -901 volume counts these records too */
		stat_bytes = picl_writer_offset(c.w) - before;
		if (writer_finish(c.w) == 0)
			pt.bytes += stat_bytes;
	}
	free(c.v);
	pt.tracing = 0;
	update_on();
	free_state();
}

void traceexit(void)
{
	trace_exit(0);
}

void pt_exit_abnormal(void)
{
	trace_exit(1);
}

int pt_emergency_state(void)
{
	if (!pt.tracing)
		return 0;
	return pt.exiting ? 2 : 1;
}

/* ------------------------------------------------------------------------ */
/* The other trace* calls                                                    */
/* ------------------------------------------------------------------------ */

void tracelevel(int picl, int user, int trace)
{
	int64_t v[3] = { picl, user, trace };

	pt.level[PT_PICL] = picl;
	pt.level[PT_USER] = user;
	pt.level[PT_TRACE] = trace;
	update_on();
	if (pt.on[PT_TRACE])
		put(PICL_REC_MARK, -904, 3, v, K_INT, 0);
}

void traceevents(int n, int time, int count, int volume, int relative)
{
	int64_t v = n;

	if (pt.on[PT_TRACE])
		put(PICL_REC_ENTRY, -902, 1, &v, K_INT, 0);
	pt.prof_n = n;
	pt.prof_time = time;
	pt.prof_count = count;
	pt.prof_volume = volume;
	pt.prof_relative = relative;
	if (pt.on[PT_TRACE])
		put(PICL_REC_EXIT, -902, 0, NULL, K_INT, 0);
}

void tracefiles(const char *tempfile, const char *permfile, int verbose)
{
	(void)tempfile;
	if (pt.on[PT_TRACE])
		put(PICL_REC_ENTRY, -903, 0, NULL, K_INT, 0);
	if (permfile && *permfile) {
		snprintf(pt.permfile, sizeof(pt.permfile), "%s", permfile);
		if (pt.fd >= 0 && strcmp(pt.path, pt.permfile) != 0)
			close_part();
	}
	if (verbose) {
		char def[64];

		fprintf(stderr, "picl: process %d saves its trace in %s\n", node_id(),
			part_path(def, sizeof(def)));
	}
	if (pt.on[PT_TRACE])
		put(PICL_REC_EXIT, -903, 0, NULL, K_INT, 0);
}

void traceinfo(int *remaining, int *picl, int *user, int *trace)
{
	if (remaining) {
		uint64_t left = 0;

		if (pt.tracing && !pt.stopped && pt.n < pt.cap)
			left = (uint64_t)(pt.cap - pt.n) * sizeof(struct pt_rec);
		*remaining = left > INT_MAX ? INT_MAX : (int)left;
	}
	if (picl)
		*picl = pt.level[PT_PICL];
	if (user)
		*user = pt.level[PT_USER];
	if (trace)
		*trace = pt.level[PT_TRACE];
	/* -905: a tracing event PICL counts but writes no record for
	 * (Table 13; 2.3.2), as who0's -13 (after the space left is told) */
	if (pt.on[PT_TRACE])
		count_event(-905);
}

/* The calls that take a user event or record type, for refused(), and
 * tracedata's other arguments (R_DATA_ARGS). */
enum { R_BLOCKBEGIN, R_BLOCKEND, R_MARK, R_MARKS, R_DATA_EVENT, R_DATA_RECORD, R_DATA_ARGS,
       R_NCALLS };

/* 1 the first time a call of kind `which` is refused: each kind is said
 * once on stderr (a loop of them would flood it). */
static int first_refusal(int which)
{
	static unsigned char said[R_NCALLS];

	if (said[which])
		return 0;
	said[which] = 1;
	return 1;
}

/* User event types PICL keeps for itself: the range of its reserved
 * message types, where the collectives' blocks are recorded (900000001
 * barrier0 ... 900000005 gather0, collective.c). */
#define USER_RESERVED_LO 900000000
#define USER_RESERVED_HI 1073741823

/*
 * A negative user event type (or tracedata record type): those are PICL's
 * own (spec Tables 3-5: user event and record types are >= 0; -1 is the
 * wildcard, below it the system's), and a user record of one would make
 * the trace invalid (a second -901 entry, an exit of -5 nobody entered).
 * So is an event type in 900000000-1073741823: a user block of 900000001
 * would read as a barrier0. The call records nothing; the first refusal
 * of each kind is said on standard error (a loop of them would flood it),
 * the program goes on. Returns 1 if refused.
 */
static int refused(int which, int value)
{
	static const char *const what[R_DATA_ARGS] = {
		"traceblockbegin: event type", "traceblockend: event type",
		"tracemark: event type", "tracemarks: event type",
		"tracedata: event type", "tracedata: record type",
	};

	if (likely(value >= 0 && (value < USER_RESERVED_LO ||
				  value > USER_RESERVED_HI ||
				  which == R_DATA_RECORD)))
		return 0;
	if (first_refusal(which))
		fprintf(stderr, "picl: process %d: %s %d refused, not recorded (user"
			" types are >= 0%s; the others are PICL's own)\n", node_id(),
			what[which], value, which == R_DATA_RECORD ? "" :
			", outside 900000000-1073741823");
	return 1;
}

void traceblockbegin(int type, int location, int parameter)
{
	if (likely(pt.on[PT_USER])) {
		int64_t v[2] = { location, parameter };

		if (unlikely(refused(R_BLOCKBEGIN, type)))
			return;
		put(PICL_REC_ENTRY, type, 2, v, K_INT, 0);
	}
}

void traceblockend(int type, int location, int parameter)
{
	if (likely(pt.on[PT_USER])) {
		int64_t v[2] = { location, parameter };

		if (unlikely(refused(R_BLOCKEND, type)))
			return;
		put(PICL_REC_EXIT, type, 2, v, K_INT, 0);
	}
}

void tracemark(int type)
{
	if (pt.on[PT_USER] && !refused(R_MARK, type))
		put(PICL_REC_MARK, type, 0, NULL, K_INT, 0);
}

void tracemarks(const int *types, int size)
{
	int k;

	if (!pt.on[PT_USER] || !types)
		return;
	for (k = 0; k < size; k++)
		if (!refused(R_MARKS, types[k]))
			put(PICL_REC_MARK, types[k], 0, NULL, K_INT, 0);
}

static int datatype_of(const char *name)
{
	static const char *const names[6] = {
		"char", "short", "int", "long", "float", "double"
	};
	int k;

	if (!name)
		return -1;
	for (k = 0; k < 6; k++)
		if (strcmp(name, names[k]) == 0)
			return k;
	if (name[0] >= '0' && name[0] <= '5' && name[1] == '\0')
		return name[0] - '0';
	return -1;
}

/* The bytes of data a K_DATA record holds in pt.blob. */
static size_t data_bytes(const struct pt_rec *r)
{
	return (size_t)r->vals[1] * dt_size((int)r->vals[2]);
}

/* The data of the records in the ring moved to the front of pt.blob, in
 * the ring's order (which is the order of their offsets). */
static void blob_compact(void)
{
	size_t len = 0, bytes;
	uint32_t i;

	for (i = 0; i < pt.n; i++) {
		struct pt_rec *r = &pt.buf[(pt.start + i) % pt.cap];

		if (r->kind != K_DATA)
			continue;
		bytes = data_bytes(r);
		if (bytes && (size_t)r->vals[0] != len)
			memmove(pt.blob + len, pt.blob + r->vals[0], bytes);
		r->vals[0] = (int64_t)len;
		len += bytes;
	}
	pt.blob_len = len;
}

/* MODE_RING with its data full: the data of the records overwritten since
 * are let go, and while that leaves no room for `bytes` more the oldest
 * records are pushed out (counted, with the -914 mark: ring_put), as the
 * ring pushes them out when it is full. Data larger than the whole area
 * push out every record that has data, and then have it to themselves
 * (blob_room). */
static void ring_data_room(size_t bytes)
{
	size_t live, room = bytes < pt.blob_max ? pt.blob_max - bytes : 0;

	blob_compact();
	live = pt.blob_len;
	if (live <= room)
		return;
	while (live > room && pt.n > 0) {
		if (pt.buf[pt.start].kind == K_DATA)
			live -= data_bytes(&pt.buf[pt.start]);
		drop_oldest();
	}
	pt.limit = 0;
	blob_compact();
}

/*
 * Room for `bytes` of tracedata data, making it as a full buffer would.
 * Returns 0 if the data may be stored. Data larger than the whole area
 * (blob_max: tracesize, at least BLOB_MIN) are kept all the same, alone in
 * it: flush mode writes the buffer first, a ring pushes out every record
 * with data, a stopping buffer takes them while it holds no data (else it
 * stops, as for any data that do not fit), and the area grows to hold
 * them; it is full for the next data. They were dropped without a word:
 * tracenode(0, 1, 0) and an array over 64 KiB lost the record, and
 * nothing says a buffer's size must exceed a record's. Memory is bounded
 * all the same: tracedata cuts a record to REC_TEXT_MAX of text, at most
 * 1 MiB of data.
 */
static int blob_room(size_t bytes)
{
	if (pt.stopped)
		return -1;
	if (bytes && pt.blob_len + bytes > pt.blob_max) {
		if (pt.mode == MODE_FLUSH) {
			flush_traced();
		} else if (pt.mode == MODE_RING) {
			ring_data_room(bytes);
		} else if (pt.blob_len || bytes <= pt.blob_max) {
			stop_now(stamp());
			return -1;
		}
	}
	if (grow((void **)&pt.blob, &pt.blob_cap, pt.blob_len + bytes, 1))
		return -1;
	return 0;
}

void tracedata(int type, int location, const char *datatype, int count,
	       const void *data)
{
	int dt = datatype_of(datatype);
	size_t bytes;
	int64_t v[3];

	/* the widest text of a value of each type, with its blank */
	static const int width[6] = { 1, 7, 12, 21, 16, 25 };

	if (!pt.on[PT_USER])
		return;
	if (dt < 0 || count < 0 || (count > 0 && !data)) {
		if (first_refusal(R_DATA_ARGS))
			fprintf(stderr, "picl: process %d: tracedata: %s refused, not recorded"
				" (types: char short int long float double, or 0-5)\n",
				node_id(), dt < 0 ? "an unknown data type" :
				count < 0 ? "a negative count" : "no data for a count above 0");
		return;
	}
	if (refused(R_DATA_EVENT, type) || refused(R_DATA_RECORD, location))
		return;
	if (count > REC_TEXT_MAX / width[dt]) {
		fprintf(stderr, "picl: process %d: tracedata: %d values of type %s cut to"
			" %d (the longest record a reader takes)\n", node_id(), count,
			datatype, REC_TEXT_MAX / width[dt]);
		count = REC_TEXT_MAX / width[dt];
	}
	bytes = (size_t)count * dt_size(dt);
	if (blob_room(bytes) < 0)
		return;
	if (bytes) {    /* no data: data and pt.blob may be NULL */
		memcpy(pt.blob + pt.blob_len, data, bytes);
		if (dt == DT_CHAR)
			clean_chars(pt.blob + pt.blob_len, bytes);
	}
	v[0] = (int64_t)pt.blob_len;
	v[1] = count;
	v[2] = dt;
	pt.blob_len += bytes;
	put(location, type, 3, v, K_DATA, 0);
}

/* Write one record now, straight to the part file. */
static void write_now(struct picl_writer *w, int32_t rtype, int32_t event,
		      int64_t ns, int64_t len, const char *text)
{
	struct picl_record rec;
	struct picl_value v;

	picl_record_init(&rec);
	rec.type = rtype;
	rec.event = event;
	rec.time = time_to_write(written_time(ns));
	rec.processor = pt.me;
	rec.process = 0;
	memset(&v, 0, sizeof(v));
	if (rtype == PICL_REC_ENTRY) {
		v.kind = PICL_VAL_INT;
		v.v.i = len;
		rec.alias = 2;
	} else if (rtype == PICL_REC_MESSAGE && len > 0) {
		v.kind = PICL_VAL_CHARS;
		v.v.s.ptr = text;
		v.v.s.len = (size_t)len;
		rec.alias = 0;
	}
	if (v.kind) {
		rec.nfields = (uint64_t)(rtype == PICL_REC_ENTRY ? 1 : len);
		rec.has_descriptor = 1;
		rec.desc = pt.d_alias[rec.alias];
		rec.values = &v;
		rec.nvalues = 1;
	}
	picl_writer_write(w, &rec);
	wrote_at(rec.time);
}

void tracemsg(const char *text)
{
	struct picl_writer *w;
	int64_t t0, t1, len;
	char *copy;
	int stopped, traced;

	/* The -7 message is no event (Table 3: a message record, "for
	 * recording error and debugging messages", written at once so that it
	 * is saved even when the program does not finish): it is written at
	 * every trace level, a PICL error's reason too. The -911 entry and exit
	 * around it are the tracing event (Table 13), as such written and
	 * counted only at a trace level of 1 or more. */
	if (!pt.tracing || pt.write_failed || !text)
		return;
	traced = pt.on[PT_TRACE];
	len = (int64_t)strlen(text);
	if (len > REC_TEXT_MAX) {
		fprintf(stderr, "picl: process %d: tracemsg: text of %lld bytes cut to %d"
			" (the longest record a reader takes)\n", node_id(),
			(long long)len, REC_TEXT_MAX);
		len = REC_TEXT_MAX;
	}
	copy = strndup(text, (size_t)len);
	if (!copy)
		return;
	clean_chars(copy, (size_t)len);
	/* What is buffered happened before: written first, so that the part
	 * keeps time order even within a microsecond and starts with its -901
	 * entry (spec 2.5), a ring's or a stopped buffer's records too (a ring
	 * then fills again from empty, with a new -914 mark should it wrap; a
	 * stopped buffer stays stopped: only traceflush resumes detailed
	 * tracing). */
	stopped = pt.stopped;
	write_out();
	if (stopped) {
		pt.stopped = 1;
		pt.limit = 0;
	}
	t0 = stamp();
	w = writer_open();
	t1 = stamp();
	if (w) {
		if (traced)
			write_now(w, PICL_REC_ENTRY, -911, t0, len, NULL);
		write_now(w, PICL_REC_MESSAGE, -911, t0, len, copy);
		if (traced)
			write_now(w, PICL_REC_EXIT, -911, t1, 0, NULL);
		writer_close(w);
	}
	free(copy);
	if (!traced)
		return;
	/* For the statistics, in timeline order; never written again. */
	put_at(t0, PICL_REC_ENTRY, -911, 1, &len, K_INT, F_NOWRITE);
	put_at(t1, PICL_REC_EXIT, -911, 0, NULL, K_INT, F_NOWRITE);
}

void traceflush(void)
{
	if (!pt.tracing || pt.write_failed)
		return;
	flush_traced();
}
