/*
 * profile.c - one streaming pass over a trace that gathers what `picltrace
 * stat` prints and `picltrace plot` draws (the model is described in
 * profile.h).
 *
 * How it works. Records are read raw (PICL_READ_RAW) and their values are
 * used only when needed: the entries, exits and marks that carry a
 * message or i/o length (sends, receives, file i/o, tracemsg, traceflush),
 * labels, subset definitions, and statistics records when they are to be
 * compared. The parsing threads decode ahead (PICL_READ_DECODE_AHEAD), so
 * those records mostly come decoded already and the reading thread, the
 * busy one, decodes only the rest; the values of the other records are
 * dropped, so that an event record means the same whoever decoded it
 * (definition records come decoded by the reader in any case). Every
 * event record (-2, -3, -4) then goes
 *  1. to the process's own state (found through an open-addressing table,
 *     the last one cached): the time since the previous event record of the
 *     process is added to the category in force, i.e. the category of the
 *     innermost open entry that has one (prof_event_category), busy when
 *     none is open (idle once the process has called close0: its -12
 *     mark, or exit); then the record opens or closes entries on a small
 *     stack, and -901 (or -1) entries and exits open and close the traced
 *     window;
 *  2. to libpicl-trace's statistics accumulator (picl_stats_add), which
 *     keeps time, count and volume per (process, relative event, event);
 *  3. if it is a send or a receive (or the first record of its process,
 *     which tells the matcher the processor exists, for broadcasts), to
 *     the message matcher (picl_matcher_add), whose callback keeps the
 *     message totals (and per-pair totals). Where a trace buffer filled
 *     (-913, -914), messages are judged as validate judges them
 *     (picltrace_gaps, builtin.h): a pair after missing records may be
 *     the wrong one and is left out of the totals and the critical path,
 *     and counted; as a ring's -914 may come after the records that
 *     follow its gap, a pair waits to be added until that is known
 *     (PROF_HELD_MAX at most).
 * Nothing is allocated per record: state grows with processes, event types,
 * processor pairs, nesting depth and messages in flight only (and, inside
 * the matcher, with its (source, destination, type) channels). The plot
 * timeline is the one exception that is allowed to grow with the trace, up
 * to PROF_EXACT_LIMIT intervals: past that it becomes fixed-size time bins
 * (see below).
 *
 * Traced time. A process's traced time runs from its -901 tracenode entry
 * to its -901 exit (PICL writes them first and last, spec §2.3.3; -1
 * entries and exits count the same); a process without them is traced from
 * its first to its last event record. Utilization = time per category
 * within the traced time. A record earlier than its process's previous one
 * (an unsorted trace) adds no time and is counted in `backwards`.
 *
 * Critical path (an estimate; plot and stat say so). Every process carries
 * cp, the length of the longest chain of activity that ends at its current
 * time: cp grows with the process's own busy and overhead time (not with
 * idle time: waiting is what a message edge replaces), and when a receive
 * completes, cp becomes at least cp(sender, at the send's entry) + the
 * message's latency (receive exit - send entry; a negative latency counts
 * as 0). The critical path length is the largest cp at the end; compare it
 * with the makespan (latest end - earliest start of the traced time). It
 * is the longest path through the graph whose nodes are events, whose
 * edges are each process's non-idle time between consecutive events and
 * its messages. The message edge is taken only when the receive is read
 * after its send (a time-sorted trace); edges seen the other way round are
 * counted in late_edges and left out, so for unsorted traces the estimate
 * is a lower bound (sort the trace first).
 *
 * Timeline. While there are at most PROF_EXACT_LIMIT intervals (adjacent
 * ones of the same category and process are merged), they are kept as
 * they are; beyond, each process gets opt.bins bins over a range that
 * doubles (merging bins pairwise) whenever an interval falls outside it,
 * so memory is processes x bins whatever the trace's length.
 */
#include "profile.h"
#include "builtin.h"
#include "fdio.h"
#include "grow.h"
#include "pow10.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROF_EXACT_LIMIT ((size_t)1 << 20)

/* The label of an event type (-5 records), and how global its scope was. */
struct prof_label {
	int32_t event;
	int rank;
	char *text;
};

#define LABEL_MAX 256

static const int32_t predefined_subsets[] = {
	-1001, -1002, -1011, -1012, -1013, -1014, -1201, -1401, -1501, -1601,
	-1901, -1902
};
#define NPREDEFINED (sizeof(predefined_subsets) / sizeof(predefined_subsets[0]))

/* ------------------------------------------------------------------------ */
/* Small helpers                                                             */
/* ------------------------------------------------------------------------ */

static prof_ticks to_ticks(struct picl_time t)
{
	int32_t s = t.scale < 0 ? 0 : t.scale > 18 ? 18 : t.scale;

	return (prof_ticks)t.mant * pow10_tab[PROF_TICK_SCALE - s];
}

/* x seconds as ticks (within prof_ticks' range), to the 15 significant
 * digits a double holds: x * 1e18 gave the binary product's own digits
 * past those (a sum of 1000000000000000003 s came out 1000000000000000042,
 * 2e18 as 2000000000000000085), which say nothing. Through its decimal
 * text (%.14e: d.dddddddddddddde+XX), then exactly. */
static prof_ticks ticks_of_seconds(double x)
{
	char buf[40];
	const char *p = buf;
	prof_ticks m = 0;
	int neg = 0, e, sh;

	if (!(x == x))
		return 0;
	if (x > 1e20)
		x = 1e20;
	if (x < -1e20)
		x = -1e20;
	snprintf(buf, sizeof(buf), "%.14e", x);
	if (*p == '-') {
		neg = 1;
		p++;
	}
	for (; *p && *p != 'e'; p++)
		if (*p >= '0' && *p <= '9')
			m = m * 10 + (*p - '0');
	if (*p != 'e')
		return 0;
	e = atoi(p + 1);
	sh = e - 14 + PROF_TICK_SCALE;   /* m * 10^sh ticks */
	if (sh < -18)
		return 0;
	for (; sh > 0; sh--)
		m *= 10;
	if (sh < 0)
		m = (m + pow10_tab[-sh] / 2) / pow10_tab[-sh];
	return neg ? -m : m;
}

double prof_ticks_seconds(prof_ticks t)
{
	prof_ticks whole = t / pow10_tab[18], frac = t % pow10_tab[18];

	return (double)whole + (double)frac / 1e18;
}

char *prof_ticks_format(prof_ticks t, int32_t scale, char *buf)
{
	unsigned __int128 q, div, ip, fp;
	char digits[48];
	int neg = t < 0, n = 0, k;
	size_t len = 0;

	if (scale < 0)
		scale = 0;
	if (scale > 18)
		scale = 18;
	q = neg ? (unsigned __int128)(-(t + 1)) + 1 : (unsigned __int128)t;
	div = (unsigned __int128)pow10_tab[18 - scale];
	q = (q + div / 2) / div;
	ip = q / (unsigned __int128)pow10_tab[scale];
	fp = q % (unsigned __int128)pow10_tab[scale];
	if (neg && q != 0)
		buf[len++] = '-';
	do {
		digits[n++] = (char)('0' + (int)(ip % 10));
		ip /= 10;
	} while (ip);
	while (n > 0)
		buf[len++] = digits[--n];
	if (scale > 0) {
		buf[len++] = '.';
		for (k = scale - 1; k >= 0; k--) {
			buf[len + (size_t)k] = (char)('0' + (int)(fp % 10));
			fp /= 10;
		}
		len += (size_t)scale;
	}
	buf[len] = '\0';
	return buf;
}

char *prof_seconds_format(double s, int32_t scale, char *buf)
{
	const char *p;

	if (scale < 0)
		scale = 0;
	if (scale > 18)
		scale = 18;
	snprintf(buf, PROF_TICKS_BUFSIZE, "%.*f", (int)scale, s);
	if (buf[0] == '-') {
		for (p = buf + 1; *p == '0' || *p == '.'; p++)
			;
		if (!*p)
			memmove(buf, buf + 1, strlen(buf));
	}
	return buf;
}

const char *prof_cat_name(int cat)
{
	static const char *const names[PROF_NCAT] = { "busy", "overhead", "idle" };

	return cat >= 0 && cat < PROF_NCAT ? names[cat] : "?";
}

int prof_event_category(int32_t event)
{
	switch (event) {
	case -31: case -52: case -56: case -61: case -601:
		return PROF_IDLE;
	case -602: case -603:
		return PROF_OVERHEAD;
	default:
		break;
	}
	if (event <= -11 && event >= -600)
		return PROF_OVERHEAD;   /* communication, file i/o, sync, resources */
	if (event <= -902 && event >= -1000)
		return PROF_OVERHEAD;   /* tracing, but -901 itself */
	return -1;
}

static int is_window_event(int32_t event)
{
	return event == -901 || event == PICL_WILDCARD;
}

const char *prof_processor_name(int32_t processor, char *buf)
{
	if (processor == PICL_HOST_PROCESSOR)
		return "host";
	snprintf(buf, 16, "%d", (int)processor);
	return buf;
}

/* ------------------------------------------------------------------------ */
/* Text for the output formats                                               */
/* ------------------------------------------------------------------------ */

void prof_json_string(FILE *out, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, len;

	putc('"', out);
	while (i < n) {
		unsigned c = u[i];

		if (c == '"' || c == '\\') {
			putc('\\', out);
			putc((int)c, out);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(out, "\\u%04x", c);
			i++;
		} else if ((len = picltrace_utf8_len(u + i, n - i)) > 0) {
			fwrite(u + i, 1, len, out);
			i += len;
		} else {
			fputs("\\ufffd", out);
			i++;
		}
	}
	putc('"', out);
}

char *prof_clean_text(const char *s, const char *bad, char *buf, size_t size)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, o = 0, len;

	while (i < n && o + 5 < size) {
		unsigned c = u[i];

		if (c < 0x20 || c == 0x7f || (c < 0x80 && bad && strchr(bad, (int)c))) {
			buf[o++] = '?';
			i++;
		} else if ((len = picltrace_utf8_len(u + i, n - i)) > 0) {
			memcpy(buf + o, u + i, len);
			o += len;
			i += len;
		} else {
			buf[o++] = '?';
			i++;
		}
	}
	buf[o] = '\0';
	return buf;
}

void prof_csv_field(FILE *out, const char *s)
{
	char buf[4 * LABEL_MAX + 8];
	const char *p;

	prof_clean_text(s, NULL, buf, sizeof(buf));
	if (!strpbrk(buf, ",\"") && buf[0] != ' ' &&
	    (buf[0] == '\0' || buf[strlen(buf) - 1] != ' ')) {
		fputs(buf, out);
		return;
	}
	putc('"', out);
	for (p = buf; *p; p++) {
		if (*p == '"')
			putc('"', out);
		putc(*p, out);
	}
	putc('"', out);
}

/* ------------------------------------------------------------------------ */
/* Processes                                                                 */
/* ------------------------------------------------------------------------ */

static struct prof_proc *proc_find(const struct profile *p, int32_t processor,
				   int32_t process)
{
	size_t i;

	if (!intmap_get(&p->proc_of, intmap_key2(processor, process), &i))
		return NULL;
	return p->procs[i];
}

/* Remember a processor (stat says how many there are). Only the set is
 * kept, not a sorted list: keeping one cost a memmove per new processor,
 * quadratic in a trace of a million of them. */
static int saw_processor(struct profile *p, int32_t processor)
{
	size_t i;

	if (intmap_get(&p->processors, (uint64_t)(uint32_t)processor, &i))
		return 0;
	if (intmap_put(&p->processors, (uint64_t)(uint32_t)processor, p->nprocessors) < 0)
		return -1;
	p->nprocessors++;
	return 0;
}

static struct prof_proc *proc_get(struct profile *p, int32_t processor, int32_t process)
{
	struct prof_proc *pp = p->last_proc;

	if (pp && pp->processor == processor && pp->process == process)
		return pp;
	/* Sorted traces interleave the processes: a direct table by
	 * processor (its first process) saves most hash look-ups. */
	if ((pp = proc_table_get(p->fast, processor)) && pp->process == process) {
		p->last_proc = pp;
		return pp;
	}
	pp = proc_find(p, processor, process);
	if (pp) {
		p->last_proc = pp;
		return pp;
	}
	if (p->nprocs >= UINT32_MAX - 1 ||
	    grow((void **)&p->procs, &p->procs_cap, p->nprocs + 1, sizeof(*p->procs)))
		return NULL;
	pp = calloc(1, sizeof(*pp));
	if (!pp)
		return NULL;
	pp->processor = processor;
	pp->process = process;
	pp->nprofiled = -1;
	pp->index = (uint32_t)p->nprocs;
	if (intmap_put(&p->proc_of, intmap_key2(processor, process), p->nprocs) < 0) {
		free(pp);
		return NULL;
	}
	p->procs[p->nprocs++] = pp;
	if (p->opt.timeline && p->binned) {
		pp->bins = calloc(p->opt.bins * PROF_NCAT, sizeof(double));
		if (!pp->bins)
			return NULL;
	}
	if (saw_processor(p, processor))
		return NULL;
	if (proc_table_note(&p->fast, processor, pp) < 0)
		return NULL;
	pp->is_new = 1;
	p->last_proc = pp;
	return pp;
}

static void proc_free(struct prof_proc *pp)
{
	if (!pp)
		return;
	free(pp->open);
	openindex_free(&pp->open_index);
	free(pp->bins);
	free(pp->cells);
	free(pp);
}

/* ------------------------------------------------------------------------ */
/* Timeline (plots)                                                          */
/* ------------------------------------------------------------------------ */

/* Double the bins' width, keeping [bin_lo, ...) as the start (right) or
 * putting the old range in the upper half (left). */
static void bins_double(struct profile *p, int left)
{
	size_t n = p->opt.bins, h = n / 2, k, c, i;

	for (i = 0; i < p->nprocs; i++) {
		double *b = p->procs[i]->bins;

		if (!b)
			continue;
		if (!left) {
			for (k = 0; k < h; k++)
				for (c = 0; c < PROF_NCAT; c++)
					b[k * PROF_NCAT + c] = b[2 * k * PROF_NCAT + c] +
							       b[(2 * k + 1) * PROF_NCAT + c];
			memset(b + h * PROF_NCAT, 0, (n - h) * PROF_NCAT * sizeof(double));
		} else {
			for (k = h; k-- > 0;)
				for (c = 0; c < PROF_NCAT; c++)
					b[(h + k) * PROF_NCAT + c] = b[2 * k * PROF_NCAT + c] +
								     b[(2 * k + 1) * PROF_NCAT + c];
			memset(b, 0, h * PROF_NCAT * sizeof(double));
		}
	}
	if (left)
		p->bin_lo -= (double)n * p->bin_w;
	p->bin_w *= 2;
}

static void bins_add(struct profile *p, double *b, double t0, double t1, int cat)
{
	size_t n = p->opt.bins, i;
	double x;

	if (!(t1 > t0))
		return;
	while (t0 < p->bin_lo)
		bins_double(p, 1);
	while (t1 > p->bin_lo + (double)n * p->bin_w)
		bins_double(p, 0);
	x = (t0 - p->bin_lo) / p->bin_w;
	i = x < 1 ? 0 : (size_t)x - 1;   /* one early: x may round up */
	for (; i < n; i++) {
		double lo = p->bin_lo + (double)i * p->bin_w, hi = lo + p->bin_w;
		double a = t0 > lo ? t0 : lo, z = t1 < hi ? t1 : hi;

		if (z > a)
			b[i * PROF_NCAT + (size_t)cat] += z - a;
		if (t1 <= hi)
			break;
	}
}

/* Too many exact intervals: switch to bins over the range seen so far. */
static int timeline_bin(struct profile *p)
{
	double lo = p->iv[0].t0, hi = p->iv[0].t1;
	size_t k;

	for (k = 1; k < p->niv; k++) {
		if (p->iv[k].t0 < lo)
			lo = p->iv[k].t0;
		if (p->iv[k].t1 > hi)
			hi = p->iv[k].t1;
	}
	p->bin_lo = lo;
	p->bin_w = hi > lo ? (hi - lo) / (double)p->opt.bins : 1e-9;
	for (k = 0; k < p->nprocs; k++) {
		p->procs[k]->bins = calloc(p->opt.bins * PROF_NCAT, sizeof(double));
		if (!p->procs[k]->bins)
			return -1;
		p->procs[k]->has_last_iv = 0;
	}
	p->binned = 1;
	for (k = 0; k < p->niv; k++)
		bins_add(p, p->procs[p->iv[k].proc]->bins, p->iv[k].t0, p->iv[k].t1,
			 p->iv[k].cat);
	free(p->iv);
	p->iv = NULL;
	p->niv = p->iv_cap = 0;
	return 0;
}

static int timeline_add(struct profile *p, struct prof_proc *pp, prof_ticks a,
			prof_ticks b, int cat)
{
	double t0, t1;
	struct prof_interval *iv;

	if (!p->has_origin) {
		/* whole seconds: the origin is a round number to say */
		prof_ticks late = (prof_ticks)PROF_LATE_ORIGIN * pow10_tab[18];

		p->origin = a >= late || a <= -late ? a - a % pow10_tab[18] : 0;
		p->has_origin = 1;
	}
	t0 = prof_ticks_seconds(a - p->origin);
	t1 = prof_ticks_seconds(b - p->origin);

	if (p->binned) {
		bins_add(p, pp->bins, t0, t1, cat);
		return 0;
	}
	if (pp->has_last_iv) {
		iv = &p->iv[pp->last_iv];
		if (iv->cat == cat && iv->t1 == t0) {
			iv->t1 = t1;
			return 0;
		}
	}
	if (p->niv >= p->opt.exact_limit)
		return timeline_bin(p) ? -1 : timeline_add(p, pp, a, b, cat);
	if (grow((void **)&p->iv, &p->iv_cap, p->niv + 1, sizeof(*p->iv)))
		return -1;
	iv = &p->iv[p->niv];
	iv->t0 = t0;
	iv->t1 = t1;
	iv->proc = pp->index;
	iv->cat = cat;
	pp->last_iv = p->niv++;
	pp->has_last_iv = 1;
	return 0;
}

/* Forget the timeline of pp so far: what came before its tracing window
 * (the -901 entry), which is not traced time. */
static void timeline_forget(struct profile *p, struct prof_proc *pp)
{
	size_t k, j;

	if (!p->opt.timeline)
		return;
	if (p->binned) {
		memset(pp->bins, 0, p->opt.bins * PROF_NCAT * sizeof(*pp->bins));
		return;
	}
	if (!pp->has_last_iv)
		return;
	/* close the gaps; the others' latest intervals move down with them */
	for (k = j = 0; k < p->niv; k++) {
		struct prof_proc *q = p->procs[p->iv[k].proc];

		if (q == pp)
			continue;
		if (q->has_last_iv && q->last_iv == k)
			q->last_iv = j;
		p->iv[j++] = p->iv[k];
	}
	p->niv = j;
	pp->has_last_iv = 0;
}

/* ------------------------------------------------------------------------ */
/* Messages and the critical path                                            */
/* ------------------------------------------------------------------------ */

static void msgstat_add(struct prof_msgstat *m, int64_t bytes, prof_ticks lat)
{
	if (m->count == 0 || lat < m->lat_min)
		m->lat_min = lat;
	if (m->count == 0 || lat > m->lat_max)
		m->lat_max = lat;
	m->count++;
	m->lat_sum += lat;
	if (bytes > 0 && __builtin_add_overflow(m->bytes, bytes, &m->bytes))
		m->bytes = INT64_MAX;
}

static struct prof_msgstat *pair_get(struct profile *p, int32_t src, int32_t dst)
{
	struct prof_msgstat *m;
	size_t i;

	if (intmap_get(&p->pair_of, intmap_key2(src, dst), &i))
		return &p->pairs[i];
	if (grow((void **)&p->pairs, &p->pairs_cap, p->npairs + 1, sizeof(*m)) ||
	    intmap_put(&p->pair_of, intmap_key2(src, dst), p->npairs) < 0)
		return NULL;
	m = &p->pairs[p->npairs++];
	memset(m, 0, sizeof(*m));
	m->src = src;
	m->dst = dst;
	return m;
}

static int cmp_pairs(const void *a, const void *b)
{
	const struct prof_msgstat *x = a, *y = b;

	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return (x->dst > y->dst) - (x->dst < y->dst);
}

struct prof_msgstat *prof_pairs_sorted(const struct profile *p, size_t *n)
{
	struct prof_msgstat *v = malloc((p->npairs ? p->npairs : 1) * sizeof(*v));
	size_t k, m = 0;

	*n = 0;
	if (!v)
		return NULL;
	for (k = 0; k < p->npairs; k++)
		v[m++] = p->pairs[k];
	if (m > 1)
		qsort(v, m, sizeof(*v), cmp_pairs);
	*n = m;
	return v;
}

_Static_assert(sizeof(prof_ticks) <= PICL_MATCHER_DATA_MAX, "a cp must fit beside its send");

/* The process a message's side ran on (process -1, not recorded: 0). */
static struct prof_proc *msg_proc(const struct profile *p, int32_t processor, int32_t process)
{
	return proc_find(p, processor, process >= 0 ? process : 0);
}

/* A matched message's latency and bytes, once it is known whether records
 * are missing before its send or its receive (picltrace_gaps_before): it
 * may then be paired wrongly, and its latency is left out. */
static int pair_doubt(const struct prof_held *h)
{
	return (h->s && picltrace_gaps_before(&h->s->gaps, h->send_line)) ||
	       (h->r && picltrace_gaps_before(&h->r->gaps, h->recv_line));
}

static int pair_add(struct profile *p, const struct prof_held *h)
{
	if (pair_doubt(h)) {
		p->gap_pairs++;
		return 0;
	}
	if (h->lat < 0)
		p->tachyons++;
	msgstat_add(&p->msg, h->bytes, h->lat);
	if (p->opt.message_pairs) {
		struct prof_msgstat *pm = pair_get(p, h->src, h->dst);

		if (!pm)
			return PICL_ERR_NOMEM;
		msgstat_add(pm, h->bytes, h->lat);
	}
	return 0;
}

static int pair_settled(const struct prof_held *h)
{
	return (!h->s || picltrace_gaps_settled(&h->s->gaps, h->send_line)) &&
	       (!h->r || picltrace_gaps_settled(&h->r->gaps, h->recv_line));
}

/* Pairs wait, as validate's (release_held), until the fills of the
 * buffers that held their sides were written out, or the end; past
 * PROF_HELD_MAX, the oldest is judged as things stand. */
#define PROF_HELD_MAX 4096

static int release_held(struct profile *p, int all)
{
	const struct prof_held *h;
	int rc = 0;

	while (!rc && (h = picltrace_queue_front(&p->held)) &&
	       (all || pair_settled(h) || picltrace_queue_len(&p->held) > PROF_HELD_MAX)) {
		picltrace_queue_pop(&p->held);
		rc = pair_add(p, h);
	}
	return rc;
}

static int hold(struct profile *p, const struct prof_held *h)
{
	struct prof_held *slot;

	if (!picltrace_queue_len(&p->held) && pair_settled(h))
		return pair_add(p, h);
	if (!(slot = picltrace_queue_push(&p->held)))
		return PICL_ERR_NOMEM;
	*slot = *h;
	return release_held(p, 0);
}

static int on_message(void *ctx, enum picl_match_kind kind, const struct picl_message *m)
{
	struct profile *p = ctx;
	const struct prof_proc *pp;
	struct prof_held h;
	prof_ticks lat, cp;
	int rc;

	if (kind == PICL_MATCH_UNMATCHED_SEND) {
		/* a broadcast's missing receivers come counted (detail 0) */
		p->unmatched_sends += m->broadcast ? m->more_missing : 1;
		/* a receiver with a gap that ends after the first send to it
		 * may have received it there (picltrace_gaps) */
		if (!m->broadcast && (pp = msg_proc(p, m->dst_processor, m->dst_process)) &&
		    picltrace_gaps_end_from(&pp->gaps, picltrace_sends_first(p->sends,
						m->dst_processor, m->send_time)))
			p->gap_sends++;
		return 0;
	}
	if (kind == PICL_MATCH_UNMATCHED_RECV) {
		p->unmatched_recvs++;
		if ((pp = msg_proc(p, m->src_processor, m->src_process)) &&
		    picltrace_gaps_start_by(&pp->gaps, m->recv_time))
			p->gap_recvs++;
		return 0;
	}
	lat = to_ticks(m->recv_time) - to_ticks(m->send_time);
	h.s = msg_proc(p, m->src_processor, m->src_process);
	h.r = msg_proc(p, m->dst_processor, m->dst_process);
	h.src = m->src_processor;
	h.dst = m->dst_processor;
	h.send_line = m->send_mark.line;
	h.recv_line = m->recv_mark.line;
	h.bytes = m->send_length >= 0 ? m->send_length : m->recv_length >= 0 ? m->recv_length : 0;
	h.lat = lat;
	rc = hold(p, &h);
	if (rc < 0)
		return rc;
	/* the sender's cp at the send, which waited with it; no edge from a
	 * pair already known to be in doubt */
	if (pair_doubt(&h))
		return 0;
	memcpy(&cp, picl_matcher_send_data(p->matcher), sizeof(cp));
	if (p->cur_is_recv && p->cur_proc) {
		prof_ticks cand = cp + (lat > 0 ? lat : 0);

		if (cand > p->cur_proc->cp)
			p->cur_proc->cp = cand;
	} else {
		p->late_edges++;
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Taking in records                                                         */
/* ------------------------------------------------------------------------ */

static void report(struct profile *p, const struct picl_error *err)
{
	picltrace_report(p->opt.cmd, err);
}

static void report_nomem(struct profile *p)
{
	picltrace_error(p->opt.cmd, "out of memory");
}

/* Out of memory, or the matcher's temporary file failed (PICL_ERR_IO:
 * nothing else here does I/O). */
static void report_failure(struct profile *p, int rc)
{
	if (rc == PICL_ERR_IO)
		picltrace_error(p->opt.cmd, "%s", picl_matcher_strerror(p->matcher));
	else
		report_nomem(p);
}

/* A record the matcher needs for its request ids: recvbegin0's exit (a
 * new request), the entries of recvstatus0 and recvend0 (which request
 * they complete), so that a recvend0 after a completed recvstatus0 is not
 * a second message. */
static int is_request_record(const struct picl_record *rec)
{
	switch (rec->event) {
	case -57:
		return rec->type == PICL_REC_EXIT;
	case -58: case -60: case -61:
		return rec->type == PICL_REC_ENTRY;
	default:
		return 0;
	}
}

/* Whether the record's data must be decoded for what we keep. */
static int needs_values(const struct profile *p, const struct picl_record *rec)
{
	if (is_request_record(rec))
		return 1;
	switch (rec->type) {
	case PICL_REC_MARK:
		switch (rec->event) {
		case -21: case -27: case -221: case -911:
		case -51: case -52: case -56: case -58: case -60: case -61:
		case -251: case -912:
			return 1;
		default:
			return 0;
		}
	case PICL_REC_ENTRY:
		/* -902: traceevents' number of user event types profiled */
		return rec->event == -21 || rec->event == -27 || rec->event == -221 ||
		       rec->event == -911 || rec->event == -902;
	case PICL_REC_EXIT:
		switch (rec->event) {
		case -51: case -52: case -56: case -58: case -60: case -61:
		case -251: case -912:
			return 1;
		default:
			return 0;
		}
	case PICL_REC_LABEL:
		return 1;
	case PICL_REC_STAT_TIME: case PICL_REC_STAT_COUNT: case PICL_REC_STAT_VOLUME:
		return p->opt.keep_stat_records;
	case PICL_REC_HEADER_PROCESSORS:
		return picl_matcher_in_header(p->matcher);
	default:
		return 0;
	}
}

static int is_send_record(const struct picl_record *rec)
{
	return (rec->event == -21 || rec->event == -27) && rec->type != PICL_REC_EXIT &&
	       rec->nvalues >= 3;
}

static int is_recv_record(const struct picl_record *rec)
{
	switch (rec->event) {
	case -51: case -52: case -58: case -60: case -61:
		return rec->type != PICL_REC_ENTRY;
	default:
		return 0;
	}
}

/* Account the time from the process's previous event record to t. */
static int advance(struct profile *p, struct prof_proc *pp, prof_ticks t)
{
	prof_ticks dt = t - pp->prev;
	int cat;

	if (dt > 0) {
		cat = pp->nopen ? pp->open[pp->nopen - 1].cat :
		      pp->closed ? PROF_IDLE : PROF_BUSY;
		pp->cat_all[cat] += dt;
		if (pp->window_depth > 0)
			pp->cat_win[cat] += dt;
		if (pp->window_depth > 0 || !pp->window_seen) {
			if (cat != PROF_IDLE)
				pp->cp += dt;
			if (p->opt.timeline && timeline_add(p, pp, pp->prev, t, cat))
				return -1;
		}
		pp->prev = t;
	}
	return 0;
}

/* Messages: sends give the matcher the sender's cp to keep with them;
 * receives may raise the receiver's. The matcher sees only sends,
 * receives, the records that say which request a receive completes, and
 * a first record of every process (it learns from those which processors
 * a broadcast must reach). */
static int add_message(struct profile *p, struct prof_proc *pp, const struct picl_record *rec)
{
	int rc, send = is_send_record(rec);

	p->cur_is_recv = is_recv_record(rec);
	if (!send && !p->cur_is_recv && !pp->is_new && !is_request_record(rec))
		return 0;
	pp->is_new = 0;
	p->cur_proc = pp;
	rc = picl_matcher_add_data(p->matcher, rec, send ? &pp->cp : NULL,
				   send ? sizeof(pp->cp) : 0);
	p->cur_is_recv = 0;
	return rc < 0 ? rc : 0;
}

static int add_event(struct profile *p, struct picl_record *rec, const char *path)
{
	struct prof_proc *pp = proc_get(p, rec->processor, rec->process);
	struct picl_error err;   /* filled by picl_stats_add on error only:
				    no 300-byte clearing per record */
	prof_ticks t;
	int cat, rc, changed;

	if (!pp)
		return PICL_ERR_NOMEM;
	p->event_records++;
	pp->event_records++;
	(void)picltrace_traceevents_n(rec, &pp->nprofiled);
	if (rec->time.scale > p->max_scale)
		p->max_scale = rec->time.scale;
	if (rec->time.scale > pp->max_scale)
		pp->max_scale = rec->time.scale;
	t = to_ticks(rec->time);
	if (!pp->started) {
		pp->started = 1;
		pp->first = pp->prev = pp->last = t;
	}
	if (t < pp->prev) {
		pp->backwards++;
		t = pp->prev;
	}
	if (advance(p, pp, t))
		return PICL_ERR_NOMEM;
	pp->last = t;

	/* The process's state: window, stack of categorized entries, and
	 * whether close0 (-12, a mark, or the exit of an entry/exit pair) has
	 * been called: from there on the
	 * program's own work is over and, until its tracing ends, the process
	 * waits for the others (PICL's close0 lets nobody leave while others
	 * may still send to it) and flushes its trace: idle, not busy. An
	 * open0 (-11) starts it over. */
	if (rec->event == -12 && (rec->type == PICL_REC_MARK || rec->type == PICL_REC_EXIT))
		pp->closed = 1;
	else if (rec->event == -11)
		pp->closed = 0;
	cat = prof_event_category(rec->event);
	if (rec->type == PICL_REC_ENTRY) {
		if (is_window_event(rec->event)) {
			if (pp->window_depth++ == 0 && !pp->window_seen) {
				/* what came before is not traced time: not on
				 * the critical path, not in the timeline */
				pp->window_seen = 1;
				pp->win_start = t;
				pp->cp = 0;
				timeline_forget(p, pp);
			}
		} else if (cat >= 0) {
			if (grow((void **)&pp->open, &pp->open_cap, pp->nopen + 1,
				 sizeof(*pp->open)))
				return PICL_ERR_NOMEM;
			pp->open[pp->nopen].event = rec->event;
			pp->open[pp->nopen].cat = cat;
			pp->nopen++;
		}
	} else if (rec->type == PICL_REC_EXIT) {
		if (is_window_event(rec->event)) {
			if (pp->window_depth > 0 && --pp->window_depth == 0)
				pp->win_end = t;
		} else if (cat >= 0) {
			/* the innermost open entry of the event (openindex.h:
			 * a scan and a memmove were quadratic on bad nesting) */
			size_t k = openindex_find(&pp->open_index, pp->open, sizeof(*pp->open),
						  offsetof(struct prof_open, event), pp->nopen,
						  rec->event);

			if (k == OPENINDEX_NOMEM)
				return PICL_ERR_NOMEM;
			if (k > 0)
				pp->nopen = openindex_pop(&pp->open_index, pp->open, sizeof(*pp->open),
							  pp->nopen, k, rec->event);
		}
	}

	/* The statistics accumulator. */
	rc = picl_stats_add(p->stats, rec, &err);
	if (rc == PICL_ERR_NOMEM)
		return rc;
	if (rc < 0) {
		err.sys_errno = 0;
		if (p->unmatched_exits++ < PROF_EXITS_SAID && !p->opt.quiet) {
			err.path = path;
			err.mark = rec->mark;
			snprintf(err.problem + strlen(err.problem),
				 sizeof(err.problem) - strlen(err.problem), " (ignored)");
			report(p, &err);
		}
	}

	/* Where the process's records are missing, and the first send to
	 * each processor, for the messages (as validate judges them); lines
	 * count on from the inputs before, so that a process's positions
	 * compare across them. */
	if (rec->mark.line > p->line_max)
		p->line_max = rec->mark.line;
	rec->mark.line += p->line_base;
	changed = picltrace_gaps_note(&pp->gaps, rec);
	if (picltrace_sends_note(p->sends, rec) < 0)
		rc = PICL_ERR_NOMEM;
	else
		rc = add_message(p, pp, rec);
	rec->mark.line -= p->line_base;
	if (rc == 0 && changed && picltrace_queue_len(&p->held))
		rc = release_held(p, 0);
	return rc;
}

static int add_label(struct profile *p, const struct picl_record *rec)
{
	int rank = (rec->processor == PICL_WILDCARD) + (rec->process == PICL_WILDCARD);
	const char *text;
	size_t len, k;
	char *copy;

	if (rec->nvalues < 1 || (rec->values[0].kind != PICL_VAL_CHARS &&
				 rec->values[0].kind != PICL_VAL_STRING))
		return 0;
	text = rec->values[0].v.s.ptr;
	len = rec->values[0].v.s.len;
	while (len > 0 && (text[0] == ' ' || text[0] == '\t')) {
		text++;
		len--;
	}
	while (len > 0 && (text[len - 1] == ' ' || text[len - 1] == '\t'))
		len--;
	if (len > LABEL_MAX)
		len = LABEL_MAX;
	/* A map, not a scan: a trace may label many thousands of types. */
	if (!intmap_get(&p->label_of, (uint64_t)(uint32_t)rec->event, &k))
		k = p->nlabels;
	else if (p->labels[k].rank > rank)
		return 0;
	copy = malloc(len + 1);
	if (!copy)
		return -1;
	memcpy(copy, text, len);
	copy[len] = '\0';   /* a NUL in the data ends the label */
	if (k == p->nlabels) {
		if (grow((void **)&p->labels, &p->labels_cap, p->nlabels + 1,
			 sizeof(*p->labels)) ||
		    intmap_put(&p->label_of, (uint64_t)(uint32_t)rec->event, k) < 0) {
			free(copy);
			return -1;
		}
		p->labels[k].event = rec->event;
		p->labels[k].text = NULL;
		p->nlabels++;
	}
	free(p->labels[k].text);
	p->labels[k].text = copy;
	p->labels[k].rank = rank;
	return 0;
}

/* The subsets themselves are the reader's (p->defs); here only which
 * event subsets to show, and which of Table 5's a -203 redefined. */
static int add_definition(struct profile *p, const struct picl_record *rec)
{
	int32_t id;
	size_t k;

	if (rec->type != PICL_REC_SUBSET_EVENTS || rec->nvalues < 1 ||
	    rec->values[0].kind != PICL_VAL_INT)
		return 0;
	id = (int32_t)rec->values[0].v.i;
	for (k = 0; k < NPREDEFINED; k++) {
		if (predefined_subsets[k] == id) {
			p->predefined_redefined |= (uint32_t)1 << k;
			return 0;
		}
	}
	if (intmap_get(&p->subset_of, (uint64_t)(uint32_t)id, &k))
		return 0;
	if (grow((void **)&p->subsets, &p->subsets_cap, p->nsubsets + 1, sizeof(*p->subsets)) ||
	    intmap_put(&p->subset_of, (uint64_t)(uint32_t)id, p->nsubsets) < 0)
		return PICL_ERR_NOMEM;
	p->subsets[p->nsubsets++] = id;
	return 0;
}

static int32_t text_decimals(const char *text, size_t len)
{
	size_t k, d = 0;
	int after = 0;

	if (!text)
		return -1;
	for (k = 0; k < len; k++) {
		if (text[k] == '.')
			after = 1;
		else if (text[k] == 'e' || text[k] == 'E')
			break;
		else if (after)
			d++;
	}
	return (int32_t)d;
}

static int add_stat_record(struct profile *p, const struct picl_reader *reader,
			   const struct picl_record *rec, const char *path)
{
	struct picl_stat_pair pairs[64], *v = pairs;
	struct picl_time t;
	const struct prof_proc *pp = rec->processor >= 0 && rec->process >= 0
				     ? proc_find(p, rec->processor, rec->process) : NULL;
	int n, k;

	n = picl_stats_record_pairs(rec, pairs, 64);
	if (n > 64) {
		v = malloc((size_t)n * sizeof(*v));
		if (!v)
			return PICL_ERR_NOMEM;
		picl_stats_record_pairs(rec, v, (size_t)n);
	}
	if (n < 0) {
		struct picl_error err = { 0 };

		err.code = PICL_ERR_DATA;
		err.path = path;
		err.mark = rec->mark;
		snprintf(err.problem, sizeof(err.problem),
			 "a statistics record holds (event type, value) pairs");
		report(p, &err);
		return n;
	}
	if (grow((void **)&p->recorded, &p->recorded_cap, p->nrecorded + (size_t)n,
		 sizeof(*p->recorded))) {
		if (v != pairs)
			free(v);
		return PICL_ERR_NOMEM;
	}
	for (k = 0; k < n; k++) {
		struct prof_recorded *r = &p->recorded[p->nrecorded];

		r->type = rec->type;
		r->processor = rec->processor;
		r->process = rec->process;
		r->rel = rec->event;
		r->event = v[k].event;
		r->value = v[k].value;
		r->decimals = text_decimals(v[k].text, v[k].text_len);
		r->exact = v[k].text &&
			   picl_time_parse(v[k].text, v[k].text_len, &t, NULL) == PICL_OK;
		r->ticks = r->exact ? to_ticks(t) : 0;
		if (r->exact)
			r->decimals = t.scale;  /* "3.88e-4" has 6 */
		r->seq = p->nrecorded;
		r->one_process = rec->processor >= 0 && rec->process >= 0;
		r->events_before = pp ? pp->event_records : 0;
		r->mark = rec->mark;
		r->value_mark = rec->mark;
		if (v[k].text)
			picl_reader_locate(reader, rec, v[k].text, &r->value_mark);
		r->path = path;
		p->nrecorded++;
	}
	if (v != pairs)
		free(v);
	return 0;
}

int profile_read(struct profile *p, const char *path)
{
	struct picl_reader_options ropts = { 0 };
	struct picltrace_progress prog;
	struct picl_error err = { 0 };
	struct picl_reader *r;
	struct picl_record rec;
	const char *name;
	int rc, status = 0;

	if (p->finished)
		return 2;
	/* The carry gives the next reader every definition of the last. */
	picl_reader_free(p->reader);
	p->reader = NULL;
	p->defs = p->no_defs;
	picl_matcher_set_defs(p->matcher, p->defs);
	ropts.flags = PICL_READ_RAW | PICL_READ_PARALLEL | PICL_READ_DECODE_AHEAD;
	picltrace_stdin_hint(p->opt.cmd, path);
	r = picl_reader_open(path, &ropts, &rc, &err);
	if (!r) {
		report(p, &err);
		return 2;
	}
	if (grow((void **)&p->paths, &p->paths_cap, p->npaths + 1, sizeof(*p->paths)) ||
	    !(p->paths[p->npaths] = strdup(picl_reader_path(r)))) {
		report_nomem(p);
		picl_reader_free(r);
		return 2;
	}
	name = p->paths[p->npaths++];
	if (picltrace_carry_apply(&p->carry, p->opt.cmd, r) < 0) {
		picl_reader_free(r);
		return 2;
	}
	p->reader = r;
	p->defs = picl_reader_defs(r);
	picl_matcher_set_defs(p->matcher, p->defs); /* multicasts */
	picltrace_progress_init(&prog, p->opt.cmd, picltrace_progress_total(path, r),
				p->opt.quiet);

	while ((rc = picl_reader_next(r, &rec)) == PICL_OK) {
		p->records++;
		if (picltrace_carry_note(&p->carry, &rec) < 0) {
			rc = PICL_ERR_NOMEM;
			report_nomem(p);
			status = 2;
			break;
		}
		if (needs_values(p, &rec)) {
			if (!rec.values && (rc = picl_reader_decode(r, &rec)) < 0)
				break;
		} else if (rec.type >= PICL_REC_EXIT && rec.type <= PICL_REC_MARK) {
			/* event records decoded ahead: as if raw */
			rec.values = NULL;
			rec.nvalues = 0;
		}
		/* The matcher sees the header's end where it is (its -307
		 * records declare the processors a broadcast must reach);
		 * after it, event records only. */
		if (rec.type != PICL_REC_MARK && rec.type != PICL_REC_ENTRY &&
		    rec.type != PICL_REC_EXIT && picl_matcher_in_header(p->matcher) &&
		    (rc = picl_matcher_add(p->matcher, &rec)) < 0) {
			report_failure(p, rc);
			status = 2;
			break;
		}
		switch (rec.type) {
		case PICL_REC_MARK: case PICL_REC_ENTRY: case PICL_REC_EXIT:
			rc = add_event(p, &rec, name);
			break;
		case PICL_REC_LABEL:
			rc = add_label(p, &rec) ? PICL_ERR_NOMEM : 0;
			break;
		case PICL_REC_SUBSET_PROCESSORS: case PICL_REC_SUBSET_PROCESSES:
		case PICL_REC_SUBSET_EVENTS:
			rc = add_definition(p, &rec);
			break;
		case PICL_REC_STAT_TIME: case PICL_REC_STAT_COUNT: case PICL_REC_STAT_VOLUME:
			rc = p->opt.keep_stat_records ? add_stat_record(p, r, &rec, name) : 0;
			break;
		default:
			break;
		}
		if (rc < 0) {
			if (rc == PICL_ERR_NOMEM || rc == PICL_ERR_IO)
				report_failure(p, rc);
			status = 2;
			break;
		}
		if ((p->records & 0x3ffff) == 0)
			picltrace_progress(&prog, picl_reader_offset(r));
	}
	if (rc < 0 && !status) {
		report(p, picl_reader_error(r));
		status = 2;
	}
	picltrace_progress_done(&prog);
	p->line_base += p->line_max;
	p->line_max = 0;
	return status;
}

/* ------------------------------------------------------------------------ */
/* Reading the model out                                                     */
/* ------------------------------------------------------------------------ */

/* Order of event types within a relative section: system events by
 * decreasing number (-11, -12, ... -904), then user events ascending. */
static int64_t event_rank(int32_t event)
{
	return event < 0 ? -(int64_t)event - ((int64_t)1 << 40) : (int64_t)event;
}

static int cmp_cells(const void *a, const void *b)
{
	const struct prof_cell *x = a, *y = b;
	int64_t rx, ry;

	if (x->rel != y->rel)
		return x->rel < y->rel ? -1 : 1;
	rx = event_rank(x->event);
	ry = event_rank(y->event);
	return (rx > ry) - (rx < ry);
}

static int cmp_procs(const void *a, const void *b)
{
	const struct prof_proc *x = *(const struct prof_proc *const *)a;
	const struct prof_proc *y = *(const struct prof_proc *const *)b;

	if (x->processor != y->processor)
		return x->processor < y->processor ? -1 : 1;
	return (x->process > y->process) - (x->process < y->process);
}

/* picl_stats_emit callback: every cell shows up in a -102 record. */
static int collect_cells(void *ctx, const struct picl_record *rec)
{
	struct profile *p = ctx;
	struct picl_stat_pair pairs[64], *v = pairs;
	struct prof_proc *pp;
	int n, k, rc = 0;

	if (rec->type != PICL_REC_STAT_COUNT)
		return 0;
	pp = proc_find(p, rec->processor, rec->process);
	if (!pp)
		return 0;
	n = picl_stats_record_pairs(rec, pairs, 64);
	if (n > 64) {
		v = malloc((size_t)n * sizeof(*v));
		if (!v)
			return PICL_ERR_NOMEM;
		picl_stats_record_pairs(rec, v, (size_t)n);
	}
	if (n > 0 && grow((void **)&pp->cells, &pp->cells_cap, pp->ncells + (size_t)n,
			  sizeof(*pp->cells)))
		rc = PICL_ERR_NOMEM;
	for (k = 0; k < n && !rc; k++) {
		struct prof_cell *c = &pp->cells[pp->ncells++];
		struct picl_time exact;
		double t;
		int64_t cnt, vol, iv;

		memset(c, 0, sizeof(*c));
		c->rel = rec->event;
		c->event = v[k].event;
		if (!picl_stats_get(p->stats, pp->processor, pp->process, c->rel, c->event,
				    &t, &cnt, &vol)) {
			pp->ncells--;
			continue;
		}
		c->count = cnt;
		if (!picl_stats_get_intervals(p->stats, pp->processor, pp->process, c->rel,
					      c->event, &iv))
			iv = 0;
		c->intervals = (uint64_t)iv;
		c->has_time = t >= 0;
		if (!c->has_time)
			c->time = 0;
		else if (picl_stats_get_time(p->stats, pp->processor, pp->process, c->rel,
					     c->event, &exact))
			c->time = to_ticks(exact);
		else
			c->time = ticks_of_seconds(t);
		c->has_volume = vol >= 0;
		c->volume = c->has_volume ? vol : 0;
	}
	if (v != pairs)
		free(v);
	return rc;
}

static void cell_merge(struct prof_cell *into, const struct prof_cell *c)
{
	into->count += c->count;
	into->intervals += c->intervals;
	if (c->has_time) {
		into->time += c->time;
		into->has_time = 1;
	}
	if (c->has_volume) {
		into->volume += c->volume;
		into->has_volume = 1;
	}
}

/*
 * Event subsets, flattened. picl_defs_matches answers one (subset, event)
 * with a scan of the subset's members (and of its nested subsets'), and
 * asking it about every cell of every process for every subset cost
 * subsets x events x members. So each subset shown is flattened once, when
 * the trace is all read, into the event types it holds, and
 * prof_subset_sums (and prof_cells_add, for stat --compare's records of
 * a subset) looks those up in a process's sorted cells (or the cells up
 * in them, whichever are fewer).
 *
 * Membership is picl_defs_matches's: an event belongs to subset S if it is
 * a member of S or of a subset reached from S through members that are
 * subsets (not S itself), at most PROF_SUBSET_DEPTH levels down; a
 * predefined subset of Table 5 that no -203 redefined holds a range of
 * types, so it is kept by id and asked about (one comparison, no scan).
 * The types are sorted as cells are (event_rank), once each, without
 * subset ids (a cell of a subset id is summed into that subset's own sum
 * only, by prof_cells_add); when a subset's own
 * members already are so and nest nothing, they are used where the defs
 * hold them instead of copied (the defs change no more once the trace is
 * read).
 */
#define PROF_SUBSET_DEPTH 8      /* picl_defs_matches's, picl-trace.h */

struct prof_evset {
	const int32_t *ev;       /* the event types, sorted; ev == own, or the defs' */
	size_t n;
	int32_t *own;
	int32_t *pre;            /* predefined subsets reached, by range */
	size_t npre, pre_cap;
};

struct evset_walk {
	int32_t *ids;            /* subsets reached, breadth first */
	int *depth;
	size_t nids, ids_cap, depth_cap;
	struct intmap seen;
	int32_t *ev;
	size_t nev, ev_cap;
};

static int cmp_event_rank(const void *a, const void *b)
{
	int64_t x = event_rank(*(const int32_t *)a), y = event_rank(*(const int32_t *)b);

	return x < y ? -1 : x > y;
}

/* 1 if `id` is one of Table 5's and no -203 redefined it. */
static int predefined_range(const struct profile *p, int32_t id)
{
	size_t k;

	for (k = 0; k < NPREDEFINED; k++)
		if (predefined_subsets[k] == id)
			return !(p->predefined_redefined & (uint32_t)1 << k);
	return 0;
}

/* Own members used as they are: no nesting, sorted, no repeats. */
static int evset_plain(const struct profile *p, const int32_t *m, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++) {
		if (m[k] < -1 && picl_defs_subset_exists(p->defs, PICL_SUBSET_EVENTS, m[k]))
			return 0;
		if (k && event_rank(m[k - 1]) >= event_rank(m[k]))
			return 0;
	}
	return 1;
}

static int evset_build(const struct profile *p, int32_t id, struct prof_evset *es,
		       struct evset_walk *w)
{
	const int32_t *m;
	size_t n, i, k, j;

	m = picl_defs_subset_members(p->defs, PICL_SUBSET_EVENTS, id, &n);
	if (n && evset_plain(p, m, n)) {
		es->ev = m;
		es->n = n;
		return 0;
	}
	/* Breadth first, so that a subset is first reached at its least
	 * depth, the one that lets it reach the most. */
	intmap_free(&w->seen);
	w->nids = 0;
	w->nev = 0;
	if (grow((void **)&w->ids, &w->ids_cap, 1, sizeof(*w->ids)) ||
	    grow((void **)&w->depth, &w->depth_cap, 1, sizeof(*w->depth)) ||
	    intmap_put(&w->seen, (uint64_t)(uint32_t)id, 0) < 0)
		return -1;
	w->ids[w->nids] = id;
	w->depth[w->nids++] = 0;
	for (i = 0; i < w->nids; i++) {
		int32_t s = w->ids[i];

		m = picl_defs_subset_members(p->defs, PICL_SUBSET_EVENTS, s, &n);
		if (!n && predefined_range(p, s)) {
			if (grow((void **)&es->pre, &es->pre_cap, es->npre + 1, sizeof(*es->pre)))
				return -1;
			es->pre[es->npre++] = s;
			continue;
		}
		if (grow((void **)&w->ev, &w->ev_cap, w->nev + n, sizeof(*w->ev)))
			return -1;
		for (k = 0; k < n; k++) {
			if (m[k] >= -1 || !picl_defs_subset_exists(p->defs, PICL_SUBSET_EVENTS, m[k])) {
				w->ev[w->nev++] = m[k];
				continue;
			}
			if (m[k] == s || w->depth[i] >= PROF_SUBSET_DEPTH ||
			    intmap_get(&w->seen, (uint64_t)(uint32_t)m[k], &j))
				continue;
			if (grow((void **)&w->ids, &w->ids_cap, w->nids + 1, sizeof(*w->ids)) ||
			    grow((void **)&w->depth, &w->depth_cap, w->nids + 1, sizeof(*w->depth)) ||
			    intmap_put(&w->seen, (uint64_t)(uint32_t)m[k], w->nids) < 0)
				return -1;
			w->ids[w->nids] = m[k];
			w->depth[w->nids] = w->depth[i] + 1;
			w->nids++;
		}
	}
	if (w->nev > 1)
		qsort(w->ev, w->nev, sizeof(*w->ev), cmp_event_rank);
	for (k = 0, n = 0; k < w->nev; k++)
		if (n == 0 || w->ev[n - 1] != w->ev[k])
			w->ev[n++] = w->ev[k];
	if (n) {
		es->own = malloc(n * sizeof(*es->own));
		if (!es->own)
			return -1;
		memcpy(es->own, w->ev, n * sizeof(*es->own));
	}
	es->ev = es->own;
	es->n = n;
	return 0;
}

static void evsets_free(struct profile *p)
{
	size_t s;

	if (!p->evsets)
		return;
	for (s = 0; s < NPREDEFINED + p->nsubsets; s++) {
		free(p->evsets[s].own);
		free(p->evsets[s].pre);
	}
	free(p->evsets);
	p->evsets = NULL;
}

static int evsets_build(struct profile *p)
{
	struct evset_walk w;
	size_t s;
	int rc = 0;

	memset(&w, 0, sizeof(w));
	p->evsets = calloc(NPREDEFINED + p->nsubsets, sizeof(*p->evsets));
	if (!p->evsets)
		return -1;
	for (s = 0; s < NPREDEFINED + p->nsubsets && rc == 0; s++)
		rc = evset_build(p, s < NPREDEFINED ? predefined_subsets[s] :
				 p->subsets[s - NPREDEFINED], &p->evsets[s], &w);
	free(w.ids);
	free(w.depth);
	free(w.ev);
	intmap_free(&w.seen);
	if (rc < 0)
		evsets_free(p);
	return rc;
}

/*
 * Group the exact intervals by process (a counting sort on the process's
 * input index, input order kept within one), so that prof_segments reads a
 * process's own intervals and not all of them: a Gantt chart asks for every
 * process, and scanning every interval for each was quadratic. Before the
 * processes are sorted: procs[k]->index is k.
 */
static int timeline_index(struct profile *p)
{
	size_t k, at = 0;

	if (p->binned || p->niv == 0)
		return 0;
	p->iv_of = malloc(p->niv * sizeof(*p->iv_of));
	if (!p->iv_of)
		return -1;
	for (k = 0; k < p->niv; k++)
		p->procs[p->iv[k].proc]->iv_count++;
	for (k = 0; k < p->nprocs; k++) {
		p->procs[k]->iv_first = at;
		at += p->procs[k]->iv_count;
		p->procs[k]->iv_count = 0;
	}
	for (k = 0; k < p->niv; k++) {
		struct prof_proc *pp = p->procs[p->iv[k].proc];

		p->iv_of[pp->iv_first + pp->iv_count++] = k;
	}
	return 0;
}

int profile_finish(struct profile *p)
{
	size_t k, total = 0, n;
	int rc;

	if (p->finished)
		return 0;
	p->finished = 1;
	rc = release_held(p, 1);
	if (rc == 0)
		rc = picl_matcher_finish(p->matcher);
	if (rc == 0)
		rc = picl_stats_emit(p->stats, collect_cells, p);
	if (rc < 0) {
		report_failure(p, rc);
		return 2;
	}
	for (k = 0; k < p->nprocs; k++) {
		struct prof_proc *pp = p->procs[k];
		prof_ticks a, b;

		if (pp->ncells > 1)
			qsort(pp->cells, pp->ncells, sizeof(*pp->cells), cmp_cells);
		total += pp->ncells;
		prof_proc_span(pp, &a, &b);
		if (!p->have_span || a < p->start)
			p->start = a;
		if (!p->have_span || b > p->end)
			p->end = b;
		p->have_span = 1;
	}
	/* Overall: every process's cells, merged by (R, E). */
	p->all = malloc((total ? total : 1) * sizeof(*p->all));
	if (!p->all) {
		report_nomem(p);
		return 2;
	}
	for (k = 0, n = 0; k < p->nprocs; k++) {
		if (p->procs[k]->ncells)
			memcpy(p->all + n, p->procs[k]->cells,
			       p->procs[k]->ncells * sizeof(*p->all));
		n += p->procs[k]->ncells;
	}
	if (n > 1)
		qsort(p->all, n, sizeof(*p->all), cmp_cells);
	p->nall = 0;
	for (k = 0; k < n; k++) {
		if (p->nall && p->all[p->nall - 1].rel == p->all[k].rel &&
		    p->all[p->nall - 1].event == p->all[k].event)
			cell_merge(&p->all[p->nall - 1], &p->all[k]);
		else
			p->all[p->nall++] = p->all[k];
	}
	if (evsets_build(p) < 0) {
		report_nomem(p);
		return 2;
	}
	/* Processes in (processor, process) order; intervals keep pp->index
	 * (input order), which the timeline functions translate. */
	if (timeline_index(p) < 0) {
		report_nomem(p);
		return 2;
	}
	if (p->nprocs > 1)
		qsort(p->procs, p->nprocs, sizeof(*p->procs), cmp_procs);
	return 0;
}

prof_ticks prof_proc_traced(const struct prof_proc *pp, prof_ticks cat[PROF_NCAT])
{
	const prof_ticks *src = pp->window_seen ? pp->cat_win : pp->cat_all;
	prof_ticks sum = 0;
	int c;

	for (c = 0; c < PROF_NCAT; c++) {
		if (cat)
			cat[c] = src[c];
		sum += src[c];
	}
	return sum;
}

void prof_proc_span(const struct prof_proc *pp, prof_ticks *from, prof_ticks *to)
{
	if (pp->window_seen) {
		*from = pp->win_start;
		*to = pp->window_depth > 0 ? pp->last : pp->win_end;
	} else {
		*from = pp->first;
		*to = pp->last;
	}
}

const char *prof_event_label(const struct profile *p, int32_t event)
{
	size_t k;

	if (intmap_get(&p->label_of, (uint64_t)(uint32_t)event, &k))
		return p->labels[k].text;
	return NULL;
}

const char *prof_event_name(const struct profile *p, int32_t event)
{
	const struct picl_schema_event *ev;
	const char *label;
	size_t k;

	int user = event >= 0,
	    defined_subset = intmap_get(&p->subset_of, (uint64_t)(uint32_t)event, &k);

	if (user || defined_subset) {
		if ((label = prof_event_label(p, event)) != NULL)
			return label;
		if (defined_subset)
			return "event subset";
	}
	if (!p->schema)
		return "";
	ev = picl_schema_event(p->schema, event);
	return ev && ev->name ? ev->name : "";
}

const struct prof_cell *prof_timed_cell(const struct prof_proc *pp, int32_t rel,
					int32_t event)
{
	const struct prof_cell *found = NULL;
	struct prof_cell key;
	size_t lo = 0, hi = pp->ncells;

	key.rel = rel;
	key.event = event;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_cells(&pp->cells[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < pp->ncells && cmp_cells(&pp->cells[lo], &key) == 0; lo++)
		if (pp->cells[lo].has_time)
			found = &pp->cells[lo];
	return found;
}

size_t prof_nsubsets(const struct profile *p)
{
	return NPREDEFINED + p->nsubsets;
}

/* The first of cells[lo, hi) not before (rel, event) in their order. */
static size_t cell_lower(const struct prof_cell *cells, size_t lo, size_t hi,
			 int32_t rel, int32_t event)
{
	struct prof_cell key;

	key.rel = rel;
	key.event = event;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_cells(&cells[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The end of the cells of `rel` that start at lo, found by halving: a scan
 * would cost every cell of a process with thousands of event types, on
 * each --compare look-up. */
static size_t cell_rel_end(const struct prof_cell *cells, size_t lo, size_t hi,
			   int32_t rel)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cells[mid].rel == rel)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int evset_has(const struct profile *p, const struct prof_evset *es, int32_t event)
{
	size_t k;

	if (es->n && bsearch(&event, es->ev, es->n, sizeof(*es->ev), cmp_event_rank))
		return 1;
	if (!es->npre || picl_defs_subset_exists(p->defs, PICL_SUBSET_EVENTS, event))
		return 0;
	for (k = 0; k < es->npre; k++)
		if (picl_defs_matches(p->defs, PICL_SUBSET_EVENTS, es->pre[k], event))
			return 1;
	return 0;
}

/* Add to *sum the cells[lo, hi) (all of one relative event type, `rel`)
 * of the event types in es, in the cells' order; 1 if there were any. */
static int evset_add(const struct profile *p, const struct prof_evset *es,
		     const struct prof_cell *cells, size_t lo, size_t hi, int32_t rel,
		     struct prof_cell *sum)
{
	size_t k, at, e;
	int any = 0;

	if (es->npre || es->n >= hi - lo) {
		for (k = lo; k < hi; k++) {
			if (!evset_has(p, es, cells[k].event))
				continue;
			cell_merge(sum, &cells[k]);
			any = 1;
		}
		return any;
	}
	/* Fewer types than cells: each looked up, in the cells' order, so
	 * the sums add up as above. */
	for (at = lo, e = 0; e < es->n && at < hi; e++) {
		at = cell_lower(cells, at, hi, rel, es->ev[e]);
		for (; at < hi && cells[at].event == es->ev[e]; at++) {
			cell_merge(sum, &cells[at]);
			any = 1;
		}
	}
	return any;
}

size_t prof_subset_sums(const struct profile *p, const struct prof_cell *cells,
			size_t n, int32_t rel, struct prof_cell *out)
{
	size_t s, lo, hi, m = 0;

	if (!p->evsets)
		return 0;
	/* The cells of `rel`: sorted by rel, then by event_rank, whose least
	 * is -1. */
	lo = cell_lower(cells, 0, n, rel, -1);
	hi = cell_rel_end(cells, lo, n, rel);
	for (s = 0; s < NPREDEFINED + p->nsubsets; s++) {
		struct prof_cell sum;

		memset(&sum, 0, sizeof(sum));
		sum.rel = rel;
		sum.event = s < NPREDEFINED ? predefined_subsets[s] : p->subsets[s - NPREDEFINED];
		if (evset_add(p, &p->evsets[s], cells, lo, hi, rel, &sum))
			out[m++] = sum;
	}
	return m;
}

/* The flattened event types of subset `id`, or NULL if the profile did
 * not flatten it (every subset a -203 defined and Table 5's are). */
static const struct prof_evset *evset_of(const struct profile *p, int32_t id)
{
	size_t k;

	if (!p->evsets)
		return NULL;
	for (k = 0; k < NPREDEFINED; k++)
		if (predefined_subsets[k] == id)
			return &p->evsets[k];
	if (intmap_get(&p->subset_of, (uint64_t)(uint32_t)id, &k))
		return &p->evsets[NPREDEFINED + k];
	return NULL;
}

void prof_cells_add(const struct profile *p, const struct prof_cell *cells, size_t n,
		    int32_t rel, int32_t event, struct prof_cell *sum)
{
	const struct prof_evset *es;
	size_t lo, hi, k;

	/* Its own cells: a process may hold several of one (rel, E), all
	 * summed. Of a subset too: event records of a subset's type are
	 * legal (spec section 2.3.3), and count in its sum, as validate
	 * counts them (the subset table leaves them to their own row). */
	for (k = cell_lower(cells, 0, n, rel, event);
	     k < n && cells[k].rel == rel && cells[k].event == event; k++)
		cell_merge(sum, &cells[k]);
	if (!(event < -1 && picl_defs_subset_exists(p->defs, PICL_SUBSET_EVENTS, event)))
		return;
	lo = cell_lower(cells, 0, n, rel, -1);
	hi = cell_rel_end(cells, lo, n, rel);
	es = evset_of(p, event);
	if (es) {
		evset_add(p, es, cells, lo, hi, rel, sum);
		return;
	}
	/* A subset the profile did not flatten (add_definition saw every
	 * -203, so none as a rule): the defs asked about each cell of rel. */
	for (k = lo; k < hi; k++)
		if (!picl_defs_subset_exists(p->defs, PICL_SUBSET_EVENTS, cells[k].event) &&
		    picl_defs_matches(p->defs, PICL_SUBSET_EVENTS, event, cells[k].event))
			cell_merge(sum, &cells[k]);
}

prof_ticks prof_critical_path(const struct profile *p)
{
	prof_ticks best = 0;
	size_t k;

	for (k = 0; k < p->nprocs; k++)
		if (p->procs[k]->cp > best)
			best = p->procs[k]->cp;
	return best;
}

prof_ticks prof_makespan(const struct profile *p)
{
	return p->have_span ? p->end - p->start : 0;
}

/* ------------------------------------------------------------------------ */
/* Timeline out                                                              */
/* ------------------------------------------------------------------------ */

/* procs[] sorted -> by input index, for intervals. */
static const struct prof_proc **procs_by_index(const struct profile *p)
{
	const struct prof_proc **v = calloc(p->nprocs ? p->nprocs : 1, sizeof(*v));
	size_t k;

	if (!v)
		return NULL;
	for (k = 0; k < p->nprocs; k++)
		v[p->procs[k]->index] = p->procs[k];
	return v;
}

size_t prof_utilization(const struct profile *p, size_t nbins,
			int (*include)(const struct prof_proc *pp),
			double *edges, double *counts)
{
	double lo = 0, hi = 0, w;
	int have = 0;
	size_t k, i, c;

	if (!p->binned) {
		const struct prof_proc **byidx = procs_by_index(p);

		if (!byidx || nbins == 0)
			goto none;
		for (k = 0; k < p->niv; k++) {
			if (include && !include(byidx[p->iv[k].proc]))
				continue;
			if (!have || p->iv[k].t0 < lo)
				lo = p->iv[k].t0;
			if (!have || p->iv[k].t1 > hi)
				hi = p->iv[k].t1;
			have = 1;
		}
		if (!have || !(hi > lo)) {
			free(byidx);
			goto none;
		}
		w = (hi - lo) / (double)nbins;
		memset(counts, 0, nbins * PROF_NCAT * sizeof(double));
		for (i = 0; i <= nbins; i++)
			edges[i] = i == nbins ? hi : lo + (double)i * w;
		for (k = 0; k < p->niv; k++) {
			const struct prof_interval *iv = &p->iv[k];
			double x;

			if (include && !include(byidx[iv->proc]))
				continue;
			x = (iv->t0 - lo) / w;
			/* One bin early: x may round up across an edge. */
			for (i = x < 1 ? 0 : (size_t)x - 1; i < nbins; i++) {
				double a = iv->t0 > edges[i] ? iv->t0 : edges[i];
				double z = iv->t1 < edges[i + 1] ? iv->t1 : edges[i + 1];

				if (z > a)
					counts[i * PROF_NCAT + (size_t)iv->cat] += z - a;
				if (iv->t1 <= edges[i + 1])
					break;
			}
		}
		for (i = 0; i < nbins; i++)
			for (c = 0; c < PROF_NCAT; c++)
				counts[i * PROF_NCAT + c] /= edges[i + 1] - edges[i];
		free(byidx);
		return nbins;
	} else {
		size_t first = SIZE_MAX, last = 0, m, g, width;

		/* Bins with any time, across the included processes; then
		 * groups of g bins, so that at most nbins come out. */
		for (k = 0; k < p->nprocs; k++) {
			if (include && !include(p->procs[k]))
				continue;
			for (i = 0; i < p->opt.bins; i++) {
				const double *b = p->procs[k]->bins + i * PROF_NCAT;

				if (b[0] + b[1] + b[2] > 0) {
					if (i < first)
						first = i;
					if (i > last)
						last = i;
				}
			}
		}
		if (first == SIZE_MAX || nbins == 0)
			goto none;
		width = last - first + 1;
		g = (width + nbins - 1) / nbins;
		for (m = 0; first + m * g <= last; m++) {
			size_t b0 = first + m * g, b1 = b0 + g > last + 1 ? last + 1 : b0 + g;
			double *out = counts + m * PROF_NCAT;

			edges[m] = p->bin_lo + (double)b0 * p->bin_w;
			edges[m + 1] = p->bin_lo + (double)b1 * p->bin_w;
			memset(out, 0, PROF_NCAT * sizeof(double));
			for (k = 0; k < p->nprocs; k++) {
				if (include && !include(p->procs[k]))
					continue;
				for (i = b0; i < b1; i++)
					for (c = 0; c < PROF_NCAT; c++)
						out[c] += p->procs[k]->bins[i * PROF_NCAT + c];
			}
			for (c = 0; c < PROF_NCAT; c++)
				out[c] /= edges[m + 1] - edges[m];
		}
		return m;
	}
none:
	return 0;
}

/* Fractions of a group's width the same but for rounding: the widths
 * (differences of bin edges) differ in their last bits from group to
 * group, and a run of identical groups must still be one box. */
static int same_fractions(const double *a, const double *b)
{
	int c;

	for (c = 0; c < PROF_NCAT; c++)
		if (fabs(a[c] - b[c]) > 1e-9)
			return 0;
	return 1;
}

int prof_segments(const struct profile *p, const struct prof_proc *pp, size_t max_bins,
		  int (*cb)(void *ctx, double t0, double t1, int cat, double lo, double hi),
		  void *ctx)
{
	double s0 = 0, s1 = 0;
	int scat = -1, rc, c;
	size_t k, i, g, first = SIZE_MAX, last = 0;

	if (!p->binned) {
		for (k = 0; k < pp->iv_count; k++) {
			const struct prof_interval *iv = &p->iv[p->iv_of[pp->iv_first + k]];

			if (scat == iv->cat && iv->t0 == s1) {
				s1 = iv->t1;
				continue;
			}
			if (scat >= 0 && (rc = cb(ctx, s0, s1, scat, 0.0, 1.0)))
				return rc;
			s0 = iv->t0;
			s1 = iv->t1;
			scat = iv->cat;
		}
		if (scat >= 0)
			return cb(ctx, s0, s1, scat, 0.0, 1.0);
		return 0;
	}
	/* Binned: groups of g bins (at most max_bins of them), each drawn as
	 * the fractions of its width spent in each category, stacked; runs of
	 * groups with the same fractions are merged. */
	for (i = 0; i < p->opt.bins; i++) {
		const double *b = pp->bins + i * PROF_NCAT;

		if (b[0] + b[1] + b[2] > 0) {
			if (i < first)
				first = i;
			last = i;
		}
	}
	if (first == SIZE_MAX)
		return 0;
	if (max_bins == 0)
		max_bins = 1;
	g = (last - first + 1 + max_bins - 1) / max_bins;
	{
		double run[PROF_NCAT] = { 0 }, r0 = 0, r1 = 0;
		int have = 0;

		for (k = first; k <= last + 1; k += g) {
			double f[PROF_NCAT] = { 0 }, lo, hi;
			size_t end = k + g > last + 1 ? last + 1 : k + g;

			if (k <= last) {
				lo = p->bin_lo + (double)k * p->bin_w;
				hi = p->bin_lo + (double)end * p->bin_w;
				for (i = k; i < end; i++)
					for (c = 0; c < PROF_NCAT; c++)
						f[c] += pp->bins[i * PROF_NCAT + c];
				for (c = 0; c < PROF_NCAT; c++)
					f[c] /= hi - lo;
				if (have && r1 == lo && same_fractions(f, run)) {
					r1 = hi;
					continue;
				}
			} else {
				lo = hi = 0;
			}
			if (have) {
				double y = 0;

				for (c = 0; c < PROF_NCAT; c++) {
					if (run[c] > 0 && (rc = cb(ctx, r0, r1, c, y, y + run[c])))
						return rc;
					y += run[c];
				}
			}
			if (k > last)
				break;
			memcpy(run, f, sizeof(f));
			r0 = lo;
			r1 = hi;
			have = 1;
		}
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Outputs: temporary file, then rename                                      */
/* ------------------------------------------------------------------------ */

int prof_output_open(struct prof_output *o, const char *cmd, const char *path,
		     int need_file)
{
	struct picl_error err = { 0 };
	int fd, rc;

	memset(o, 0, sizeof(*o));
	o->path = picl_output_name(path);
	if (strcmp(path, "-") == 0 && !need_file) {
		o->f = stdout;
		return 0;
	}
	o->out = picl_output_open(path, need_file ? PICL_OUTPUT_FILE : 0, &rc, &err);
	if (!o->out) {
		picltrace_report(cmd, &err);
		return -1;
	}
	o->file = picl_output_temp_path(o->out);
	if (o->file)
		picltrace_remember_temp(o->file);
	fd = fcntl(picl_output_fd(o->out), F_DUPFD_CLOEXEC, 3);
	if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
		picltrace_error(cmd, "%s: cannot open: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		prof_output_abort(o);
		return -1;
	}
	return 0;
}

int prof_output_commit(struct prof_output *o, const char *cmd)
{
	struct picl_error err = { 0 };
	int rc = 0, saved = 0;

	if (o->f == stdout) {
		o->f = NULL;
		if (fflush(stdout) != 0 || ferror(stdout)) {
			picltrace_error(cmd, "<stdout>: cannot write: %s",
					strerror(errno));
			return -1;
		}
		return 0;
	}
	if (o->f) {
		if (fflush(o->f) != 0 || ferror(o->f))
			saved = errno, rc = -1;
		if (fclose(o->f) != 0 && !rc)
			saved = errno, rc = -1;
		o->f = NULL;
	}
	if (rc) {
		/* the name the user gave: the temporary file is gone */
		picltrace_error(cmd, "%s: cannot write: %s", o->path, strerror(saved));
		prof_output_abort(o);
		return -1;
	}
	if (o->file)
		picltrace_forget_temp(o->file);
	rc = picl_output_commit(o->out, &err);
	o->out = NULL;
	o->file = NULL;
	if (rc < 0) {
		picltrace_report(cmd, &err);
		return -1;
	}
	return 0;
}

void prof_output_abort(struct prof_output *o)
{
	if (o->f && o->f != stdout)
		fclose(o->f);
	if (o->file)
		picltrace_forget_temp(o->file);
	picl_output_abort(o->out);
	memset(o, 0, sizeof(*o));
}

/* ------------------------------------------------------------------------ */
/* Life cycle                                                                */
/* ------------------------------------------------------------------------ */

struct profile *profile_new(const struct prof_options *opts,
			    struct picl_error *schema_err)
{
	struct profile *p = calloc(1, sizeof(*p));
	struct picl_error err = { 0 };

	if (!p)
		return NULL;
	if (opts)
		p->opt = *opts;
	if (!p->opt.cmd)
		p->opt.cmd = "stat";
	if (p->opt.exact_limit == 0)
		p->opt.exact_limit = PROF_EXACT_LIMIT;
	if (p->opt.bins < 2)
		p->opt.bins = 2;
	p->opt.bins += p->opt.bins % 2;
	p->stats = picl_stats_new();
	p->matcher = picl_matcher_new(on_message, p);
	if (p->matcher)
		picl_matcher_set_broadcast_detail(p->matcher, 0);
	p->sends = picltrace_sends_new();
	p->held.size = sizeof(struct prof_held);
	p->defs = p->no_defs = picl_defs_new();
	if (!p->stats || !p->matcher || !p->defs || !p->sends ||
	    picltrace_matcher_memory(p->matcher, p->opt.memory, p->opt.tmpdir) < 0) {
		profile_free(p);
		return NULL;
	}
	p->schema = picl_schema_load_default(&err);
	if (!p->schema && schema_err)
		*schema_err = err;
	return p;
}

struct profile *profile_of_inputs(const struct prof_options *opts,
				  const char *const *inputs, int n, int names)
{
	struct picl_error serr = { 0 };
	struct profile *p = profile_new(opts, &serr);
	int i;

	if (!p) {
		picltrace_error(opts->cmd, "out of memory");
		return NULL;
	}
	if (!serr.path)
		serr.path = picl_schema_default_path();
	if (!p->schema && opts->nschemas) {
		/* the user's types need the default ones to add to */
		picltrace_report(opts->cmd, &serr);
		profile_free(p);
		return NULL;
	}
	for (i = 0; i < (int)opts->nschemas; i++) {
		struct picl_error err = { 0 };

		if (picl_schema_extend(p->schema, opts->schemas[i], &err) < 0) {
			picltrace_report(opts->cmd, &err);
			profile_free(p);
			return NULL;
		}
	}
	if (!p->schema && !opts->quiet && names) {
		char where[PICL_PROBLEM_MAX + 4200];

		picltrace_error(opts->cmd, "warning: %s; event names are left out",
				picl_error_format(&serr, where, sizeof(where)));
	}
	for (i = 0; i < n; i++) {
		p->carry.more = i + 1 < n;
		if (profile_read(p, inputs[i]) != 0) {
			profile_free(p);
			return NULL;
		}
	}
	if (profile_finish(p) != 0) {
		profile_free(p);
		return NULL;
	}
	return p;
}

void prof_warn_loose_ends(const struct profile *p)
{
	uint64_t back = 0;
	size_t k;

	if (p->opt.quiet)
		return;
	for (k = 0; k < p->nprocs; k++)
		back += p->procs[k]->backwards;
	if (p->unmatched_exits > PROF_EXITS_SAID)
		picltrace_error(p->opt.cmd, "warning: %llu exits without a matching entry were ignored",
				(unsigned long long)p->unmatched_exits);
	if (back)
		picltrace_error(p->opt.cmd, "warning: %llu event record%s earlier than the one "
				"before %s on %s process; no time was counted for %s",
				(unsigned long long)back, back == 1 ? " is" : "s are",
				back == 1 ? "it" : "them", back == 1 ? "its" : "their",
				back == 1 ? "it" : "them");
}

void profile_free(struct profile *p)
{
	size_t k;

	if (!p)
		return;
	picltrace_carry_free(&p->carry);
	picl_stats_free(p->stats);
	picl_matcher_free(p->matcher);
	picltrace_sends_free(p->sends);
	picltrace_queue_free(&p->held);
	picl_reader_free(p->reader);
	picl_defs_free(p->no_defs);
	if (p->schema)
		picl_schema_free(p->schema);
	for (k = 0; k < p->nprocs; k++)
		proc_free(p->procs[k]);
	free(p->procs);
	intmap_free(&p->proc_of);
	free(p->fast);
	free(p->pairs);
	intmap_free(&p->pair_of);
	intmap_free(&p->processors);
	for (k = 0; k < p->nlabels; k++)
		free(p->labels[k].text);
	free(p->labels);
	intmap_free(&p->label_of);
	evsets_free(p);
	free(p->subsets);
	intmap_free(&p->subset_of);
	free(p->recorded);
	for (k = 0; k < p->npaths; k++)
		free(p->paths[k]);
	free(p->paths);
	free(p->iv);
	free(p->iv_of);
	free(p->all);
	free(p);
}
