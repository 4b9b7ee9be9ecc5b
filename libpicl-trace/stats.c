/*
 * stats.c - statistics records: -101 (time), -102 (count), -103 (volume).
 *
 * PICL writes, at traceexit, cumulative statistics for each process (spec
 * §2.3.7, Table 17, Appendix A Tables 20 and 21). This file recomputes them
 * from the event records (-2 mark, -3 entry, -4 exit) and reads them back
 * out of decoded statistics records.
 *
 * How it works. Every (processor, process) gets a `struct proc` (found
 * through an open-addressing hash table) holding
 *  - a stack of open entries (event type, entry time, and the relative
 *    event types R whose window was open at the entry: a slice of a second,
 *    parallel stack `rels`);
 *  - the user event types (>= 0) currently open, with a nesting depth, so
 *    that R inside R opens only one window;
 *  - a hash table of cells keyed by (R, E) with E's time, count and volume
 *    relative to R (R = -1 for the whole process).
 * An entry or a mark of E updates the cell (-1, E) and (R, E) for every open
 * window R != E: one occurrence, plus the length field if E's volume lives in
 * its entry. The matching exit adds the duration (exit time - entry time,
 * computed exactly by picl_time_sub) and the exit's volume to the same cells,
 * i.e. to the windows that were open at E's entry: an event inside R is one
 * whose entry (or mark) lies in R's window, and its whole duration counts.
 * E inside E (recursion) spends its time once (Table 17: "time spent
 * within event type"): each cell counts E's entries open in it, and only
 * the exit that closes the last of them, the outermost instance (exits
 * being matched innermost first), adds its duration, which holds the inner
 * ones; every entry still counts as an occurrence.
 * Memory is bounded by the number of distinct processes, (R, E) pairs and
 * open entries, never by the number of records; each record costs O(1)
 * amortized plus the number of open windows.
 *
 * Volume (§2.3.7, Tables 7-13): the length field, data value 0, of the
 * entries of send0 (-21), sendbegin0 (-27), file write (-221) and tracemsg
 * (-911); of the exits of recv0 (-51, -52), wait0 (-56), recvstatus0 (-58),
 * recvend0 (-60, -61), file read (-251) and traceflush (-912); load0 (-503)
 * counts one spawned process per exit. A mark carries its entry's fields
 * followed by its exit's (§2.3.3), so for the receive-like types the length
 * is found after the entry fields. The trace volume of -901 (bytes of trace
 * data) cannot be told from the events: it stays undefined, as does every
 * statistic nothing was measured for (-1, left out of emitted records).
 *
 * Exact times. Each duration is the exact difference of two decimal
 * timestamps, and each cell sums them as a 64-bit decimal at the finest
 * scale it has met (a doubles' sum would be 0.1 + 0.2 =
 * 0.30000000000000004, and would lose the last digits of long sums of
 * timestamps with many decimals). Only a sum of more than 18 digits (as a
 * timestamp: 10^18 units of the finest decimal, 31,700 years at 6
 * decimals, 11.6 days at 12) goes on as a double, rounded when handed out
 * to the process's finest timestamp scale. picl_stats_get_time gives the
 * exact decimal, picl_stats_get the nearest double; emitted time values
 * carry the decimal as their text with the process's finest scale, so a
 * writer prints them as PICL did ("0.000098", "0.001170") rather than as
 * the shortest double ("9.8e-05", "0.00117"); .d holds the same number.
 *
 * Loose ends. An exit is matched with the innermost open entry of its event
 * type (normally the top of the stack; overlapping events are matched
 * further down, found through an index rather than a scan, and leaving a
 * hole: openindex.h); an exit with none is reported (PICL_ERR_DATA) and
 * ignored.
 * Entries still open when the statistics are read have been counted but
 * add no time: an event type none of whose entries was exited has no time
 * statistic (-1, "not measurable", §2.3.7), not a time of 0. Records read in raw mode carry no values, so they add no
 * volume.
 *
 * Emit order (Table 20): processes by (processor, process) ascending; per
 * process R = -1 first (its system events' -101 -102 -103, then its user
 * events' -101 -102 -103), then each user R ascending (-101 -102 -103 with
 * all E). Within a record: system events (E < 0) by decreasing event number
 * (-11, -21, ... -904), then user events ascending.
 */
#include "grow.h"
#include "internal.h"
#include "intmap.h"
#include "openindex.h"
#include "pow10.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Which events have a volume, and where its length field is                 */
/* ------------------------------------------------------------------------ */

enum volume_source {
	VOL_NONE = 0,
	VOL_ENTRY,    /* length is value 0 of the entry */
	VOL_EXIT,     /* length is value 0 of the exit */
	VOL_SPAWN     /* one per exit (load0: processes spawned) */
};

static enum volume_source volume_source(int32_t event)
{
	switch (event) {
	case -21: case -27: case -221: case -911:
		return VOL_ENTRY;
	case -51: case -52: case -56: case -58: case -60: case -61:
	case -251: case -912:
		return VOL_EXIT;
	case -503:
		return VOL_SPAWN;
	default:
		return VOL_NONE;
	}
}

/*
 * Index of the length field in a mark record of `event` with `nvalues`
 * values (the entry's fields, then the exit's), or -1 if it has none.
 * Receive-like entries have 3 fields, or 1 as PICL writes them; their exits
 * 4 or 3: 6-7 values put the length at 3, 4-5 values at 1.
 */
static long mark_length_index(int32_t event, size_t nvalues)
{
	switch (event) {
	case -21: case -27: case -221: case -911: case -251: case -912:
		return 0;
	case -51: case -52: case -56:
		if (nvalues >= 6)
			return 3;
		return nvalues >= 4 ? 1 : -1;
	case -58: case -60: case -61:
		return 1;
	default:
		return -1;
	}
}

/* The non-negative integer value `index` of rec, if there is one. */
static int record_length(const struct picl_record *rec, long index, int64_t *len)
{
	const struct picl_value *v;

	if (index < 0 || !rec->values || (size_t)index >= rec->nvalues)
		return 0;
	v = &rec->values[index];
	switch (v->kind) {
	case PICL_VAL_INT:
		if (v->v.i < 0)
			return 0; /* -1: not defined (§2.3.3) */
		*len = v->v.i;
		return 1;
	case PICL_VAL_UINT:
		if (v->v.u > (uint64_t)INT64_MAX)
			return 0;
		*len = (int64_t)v->v.u;
		return 1;
	default:
		return 0;
	}
}

/* ------------------------------------------------------------------------ */
/* Data structures                                                           */
/* ------------------------------------------------------------------------ */

#define CELL_TIME 1u   /* the time statistic is defined */
#define CELL_VOLUME 2u /* the volume statistic is defined */
#define CELL_INEXACT 4u /* the time is the double t.d, not the decimal t.ticks */

/* Statistics of event E relative to R on one process. The time is summed
 * exactly, as a decimal of tscale decimals (the finest of its durations),
 * until it would need more than a timestamp's 18 digits; it is a double
 * from then on. */
struct cell {
	int32_t rel;
	int32_t event;
	uint8_t used;
	uint8_t flags;
	int16_t tscale;
	int64_t count;
	int64_t volume;
	int64_t exits;   /* intervals summed into the time (marks have none) */
	uint32_t open;   /* E's entries open in this cell: time is added when
			    the last of them is exited (the outermost) */
	union {
		int64_t ticks;   /* exact: time = ticks / 10^tscale */
		double d;        /* CELL_INEXACT */
	} t;
};

/* An open entry. Its windows are rels[rel_start .. rel_start+rel_count). */
struct frame {
	int32_t event;
	uint32_t rel_count;
	size_t rel_start;
	struct picl_time time;
};

/* A user event type whose window is open, and how deeply it is nested. */
struct open_rel {
	int32_t rel;
	uint32_t depth;
};

struct proc {
	int32_t processor;
	int32_t process;
	struct picl_time last;    /* time of the last event record */
	int32_t max_scale;        /* finest timestamp scale seen */

	struct frame *frames;
	size_t nframes, frames_cap;
	struct openindex by_event;    /* the frames by event type */
	int32_t *rels;
	size_t nrels, rels_cap;
	struct open_rel *open;
	size_t nopen, open_cap;

	struct cell *cells;       /* open addressing, power-of-two size */
	size_t ncells, cells_cap;
};

struct picl_stats {
	struct proc **procs;      /* in order of first appearance */
	size_t nprocs, procs_cap;
	uint32_t *index;          /* slot -> 1 + procs index, 0 empty */
	size_t index_cap;         /* power of two */
	struct proc *last_proc;   /* the common case: runs of one process */
	void **fast;              /* proc_table (intmap.h): last_proc misses on
				     most records of a sorted trace */

	struct picl_descriptor *desc_time;   /* "%d%lf" */
	struct picl_descriptor *desc_count;  /* "%d%d" */
	struct picl_value *values;           /* emit buffer */
	size_t values_cap;
	char *texts;                         /* emit buffer: time texts */
	size_t texts_cap;
	struct cell *sorted;                 /* emit buffer */
	size_t sorted_cap;
};

static const char control_time[] = "%d%lf";
static const char control_count[] = "%d%d";

/* The cells and the processes are kept in the hash tables themselves
 * (not through an intmap of indices): a look-up on picltrace stat's
 * per-record path is then one probe into one array, which measured ~3%
 * faster on the whole command than going through intmap.h's index. The
 * hash is intmap.h's. */
static uint64_t hash_pair(int32_t a, int32_t b)
{
	return intmap_hash(intmap_key2(a, b));
}

/* ------------------------------------------------------------------------ */
/* Cells                                                                     */
/* ------------------------------------------------------------------------ */

static struct cell *cell_find(const struct proc *p, int32_t rel, int32_t event)
{
	size_t mask, i;

	if (p->cells_cap == 0)
		return NULL;
	mask = p->cells_cap - 1;
	for (i = (size_t)hash_pair(rel, event) & mask;; i = (i + 1) & mask) {
		struct cell *c = &p->cells[i];

		if (!c->used)
			return NULL;
		if (c->rel == rel && c->event == event)
			return c;
	}
}

static int cells_rehash(struct proc *p, size_t ncap)
{
	struct cell *old = p->cells, *cells;
	size_t oldcap = p->cells_cap, i, mask = ncap - 1;

	cells = calloc(ncap, sizeof(*cells));
	if (!cells)
		return PICL_ERR_NOMEM;
	for (i = 0; i < oldcap; i++) {
		size_t j;

		if (!old[i].used)
			continue;
		j = (size_t)hash_pair(old[i].rel, old[i].event) & mask;
		while (cells[j].used)
			j = (j + 1) & mask;
		cells[j] = old[i];
	}
	free(old);
	p->cells = cells;
	p->cells_cap = ncap;
	return PICL_OK;
}

/* The cell (rel, event), created empty if new; NULL when out of memory.
 * The pointer is valid until the next cell_get on the same process. */
static struct cell *cell_get(struct proc *p, int32_t rel, int32_t event)
{
	struct cell *c = cell_find(p, rel, event);
	size_t mask, i;

	if (c)
		return c;
	if ((p->ncells + 1) * 2 > p->cells_cap) {
		if (p->cells_cap > SIZE_MAX / 2 / sizeof(*c))
			return NULL;
		if (cells_rehash(p, p->cells_cap ? p->cells_cap * 2 : 16) != PICL_OK)
			return NULL;
	}
	mask = p->cells_cap - 1;
	for (i = (size_t)hash_pair(rel, event) & mask; p->cells[i].used; i = (i + 1) & mask)
		;
	c = &p->cells[i];
	memset(c, 0, sizeof(*c));
	c->used = 1;
	c->rel = rel;
	c->event = event;
	c->volume = -1;
	c->t.ticks = 0;
	c->tscale = 0;
	p->ncells++;
	return c;
}

static void add_volume(struct cell *c, int64_t len)
{
	if (!(c->flags & CELL_VOLUME)) {
		c->flags |= CELL_VOLUME;
		c->volume = 0;
	}
	if (__builtin_add_overflow(c->volume, len, &c->volume))
		c->volume = INT64_MAX;
}

/* ------------------------------------------------------------------------ */
/* Processes                                                                 */
/* ------------------------------------------------------------------------ */

static void proc_free(struct proc *p)
{
	if (!p)
		return;
	free(p->frames);
	openindex_free(&p->by_event);
	free(p->rels);
	free(p->open);
	free(p->cells);
	free(p);
}

static struct proc *proc_find(const struct picl_stats *s, int32_t processor,
			      int32_t process)
{
	size_t mask, i;

	if (s->index_cap == 0)
		return NULL;
	mask = s->index_cap - 1;
	for (i = (size_t)hash_pair(processor, process) & mask;; i = (i + 1) & mask) {
		struct proc *p;

		if (!s->index[i])
			return NULL;
		p = s->procs[s->index[i] - 1];
		if (p->processor == processor && p->process == process)
			return p;
	}
}

static int index_rebuild(struct picl_stats *s, size_t ncap)
{
	uint32_t *index = calloc(ncap, sizeof(*index));
	size_t k, mask = ncap - 1;

	if (!index)
		return PICL_ERR_NOMEM;
	for (k = 0; k < s->nprocs; k++) {
		size_t i = (size_t)hash_pair(s->procs[k]->processor,
					     s->procs[k]->process) & mask;

		while (index[i])
			i = (i + 1) & mask;
		index[i] = (uint32_t)(k + 1);
	}
	free(s->index);
	s->index = index;
	s->index_cap = ncap;
	return PICL_OK;
}

static struct proc *proc_get(struct picl_stats *s, int32_t processor, int32_t process)
{
	struct proc *p = s->last_proc;

	if (p && p->processor == processor && p->process == process)
		return p;
	if ((p = proc_table_get(s->fast, processor)) && p->process == process) {
		s->last_proc = p;
		return p;
	}
	p = proc_find(s, processor, process);
	if (p) {
		s->last_proc = p;
		return p;
	}
	if (s->nprocs >= UINT32_MAX - 1)
		return NULL;
	if (grow((void **)&s->procs, &s->procs_cap, s->nprocs + 1, sizeof(*s->procs)))
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->processor = processor;
	p->process = process;
	s->procs[s->nprocs++] = p;
	if (s->nprocs * 2 > s->index_cap) {
		if (index_rebuild(s, s->index_cap ? s->index_cap * 2 : 16) != PICL_OK) {
			s->nprocs--;
			proc_free(p);
			return NULL;
		}
	} else {
		size_t mask = s->index_cap - 1;
		size_t i = (size_t)hash_pair(processor, process) & mask;

		while (s->index[i])
			i = (i + 1) & mask;
		s->index[i] = (uint32_t)s->nprocs;
	}
	(void)proc_table_note(&s->fast, processor, p);  /* without it: slower look-ups */
	s->last_proc = p;
	return p;
}

/* ------------------------------------------------------------------------ */
/* Taking in records                                                         */
/* ------------------------------------------------------------------------ */

struct picl_stats *picl_stats_new(void)
{
	return calloc(1, sizeof(struct picl_stats));
}

void picl_stats_free(struct picl_stats *s)
{
	size_t k;

	if (!s)
		return;
	for (k = 0; k < s->nprocs; k++)
		proc_free(s->procs[k]);
	free(s->procs);
	free(s->index);
	free(s->fast);
	picl_descriptor_free(s->desc_time);
	picl_descriptor_free(s->desc_count);
	free(s->values);
	free(s->texts);
	free(s->sorted);
	free(s);
}

/*
 * One occurrence of `event` (an entry or a mark) relative to -1 and to every
 * open window but its own: count it, add its length (has_len). Its time is
 * defined by its exit (add_exit): an entry never exited measured nothing.
 */
static int count_occurrence(struct proc *p, int32_t event, int has_len, int64_t len,
			    int entry)
{
	size_t k;

	for (k = 0; k <= p->nopen; k++) {
		int32_t rel = k == 0 ? PICL_WILDCARD : p->open[k - 1].rel;
		struct cell *c;

		if (rel == event)
			continue;
		c = cell_get(p, rel, event);
		if (!c)
			return PICL_ERR_NOMEM;
		c->count++;
		if (entry)
			c->open++;
		if (has_len)
			add_volume(c, len);
	}
	return PICL_OK;
}

static int add_mark(struct proc *p, const struct picl_stats_event *ev)
{
	return count_occurrence(p, ev->event, ev->has_volume, ev->volume, 0);
}

/*
 * User event types open at once on one process, at most. Every entry and
 * exit costs one cell per open window and every entry remembers them, so
 * a hostile trace of thousands of distinct nested events would take
 * quadratic memory and cubic time (2000 of them: 500 MB, minutes). PICL
 * programs nest a handful.
 */
#define MAX_WINDOWS 256

static int add_entry(struct proc *p, const struct picl_stats_event *rec,
		     struct picl_error *err)
{
	struct frame *f;
	size_t k;
	int rc;

	if (rec->event >= 0 && p->nopen >= MAX_WINDOWS) {
		for (k = 0; k < p->nopen && p->open[k].rel != rec->event; k++)
			;
		if (k == p->nopen) {
			if (err)
				err->mark = rec->mark;
			return picl_set_error(err, PICL_ERR_DATA,
					      "entry of event %d: more than %d user events open "
					      "at once on one process", (int)rec->event,
					      MAX_WINDOWS);
		}
	}

	rc = count_occurrence(p, rec->event, rec->has_volume, rec->volume, 1);
	if (rc)
		return rc;

	/* Push the frame with the windows open now (except E's own). */
	if (grow((void **)&p->frames, &p->frames_cap, p->nframes + 1, sizeof(*p->frames)) ||
	    grow((void **)&p->rels, &p->rels_cap, p->nrels + p->nopen, sizeof(*p->rels)))
		return PICL_ERR_NOMEM;
	f = &p->frames[p->nframes];
	f->event = rec->event;
	f->time = rec->time;
	f->rel_start = p->nrels;
	f->rel_count = 0;
	for (k = 0; k < p->nopen; k++) {
		if (p->open[k].rel == rec->event)
			continue;
		p->rels[p->nrels++] = p->open[k].rel;
		f->rel_count++;
	}
	p->nframes++;

	/* A user event type opens (or nests in) its window. */
	if (rec->event >= 0) {
		for (k = 0; k < p->nopen; k++) {
			if (p->open[k].rel == rec->event) {
				p->open[k].depth++;
				return PICL_OK;
			}
		}
		if (grow((void **)&p->open, &p->open_cap, p->nopen + 1, sizeof(*p->open)))
			return PICL_ERR_NOMEM;
		p->open[p->nopen].rel = rec->event;
		p->open[p->nopen].depth = 1;
		p->nopen++;
		/* R's own cell relative to -1 exists already (counted above). */
	}
	return PICL_OK;
}

/*
 * Frame i - 1 (as openindex_find gave it: usually the top) is exited. It
 * goes with its window slice, or becomes a hole whose slice stays until
 * the holes are many and both arrays are compacted (a memmove of the
 * frames above was quadratic on badly nested traces).
 */
static void remove_frame(struct proc *p, size_t i, int32_t event)
{
	size_t k, n = 0;

	p->nframes = openindex_exit(&p->by_event, p->nframes, i, event);
	if (openindex_crowded(&p->by_event, p->nframes)) {
		for (k = 0; k < p->nframes; k++) {
			struct frame *f = &p->frames[k];

			if (openindex_hole(&p->by_event, k))
				continue;
			if (f->rel_start != n)
				memmove(p->rels + n, p->rels + f->rel_start,
					f->rel_count * sizeof(*p->rels));
			f->rel_start = n;
			n += f->rel_count;
		}
		p->nframes = openindex_compact(&p->by_event, p->frames, sizeof(*p->frames),
					       p->nframes);
	} else if (p->nframes > 0) {
		const struct frame *top = &p->frames[p->nframes - 1];

		n = top->rel_start + top->rel_count;
	}
	p->nrels = n;
}

static void close_window(struct proc *p, int32_t rel)
{
	size_t k;

	for (k = 0; k < p->nopen; k++) {
		if (p->open[k].rel != rel)
			continue;
		if (--p->open[k].depth == 0)
			p->open[k] = p->open[--p->nopen];
		return;
	}
}

static double cell_double(const struct cell *c)
{
	if (c->flags & CELL_INEXACT)
		return c->t.d;
	return (double)c->t.ticks / (double)pow10_tab[c->tscale];
}

static void add_time_double(struct cell *c, double x)
{
	c->t.d = cell_double(c) + x;
	c->flags |= CELL_INEXACT;
}

/* What a struct picl_time holds: 18 digits. */
#define TIME_MANT_LIMIT 1000000000000000000LL

static int time_mant_ok(int64_t x)
{
	return x < TIME_MANT_LIMIT && x > -TIME_MANT_LIMIT;
}

/* Add the duration d (scale 0..PICL_TIME_MAX_SCALE) to c's time: exactly,
 * at the finer of the two scales, while 18 digits hold it. */
static void add_time(struct cell *c, struct picl_time d)
{
	int64_t x;

	if (c->flags & CELL_INEXACT) {
		c->t.d += picl_time_to_double(d);
		return;
	}
	if (d.scale == c->tscale) {
		if (!__builtin_add_overflow(c->t.ticks, d.mant, &x) && time_mant_ok(x)) {
			c->t.ticks = x;
			return;
		}
	} else if (d.scale > c->tscale) {
		if (!__builtin_mul_overflow(c->t.ticks, pow10_tab[d.scale - c->tscale], &x) &&
		    !__builtin_add_overflow(x, d.mant, &x) && time_mant_ok(x)) {
			c->t.ticks = x;
			c->tscale = (int16_t)d.scale;
			return;
		}
	} else if (!__builtin_mul_overflow(d.mant, pow10_tab[c->tscale - d.scale], &x) &&
		   !__builtin_add_overflow(c->t.ticks, x, &x) && time_mant_ok(x)) {
		c->t.ticks = x;
		return;
	}
	add_time_double(c, picl_time_to_double(d));
}

static int add_exit(struct proc *p, const struct picl_stats_event *rec,
		    struct picl_error *err)
{
	struct picl_time d;
	const struct frame *f;
	int exact;
	size_t i, k;

	/* The matching entry: the innermost open entry of its event type. */
	i = openindex_find(&p->by_event, p->frames, sizeof(*p->frames),
			   offsetof(struct frame, event), p->nframes, rec->event);
	if (i == OPENINDEX_NOMEM)
		return picl_set_error(err, PICL_ERR_NOMEM, "out of memory");
	if (i == 0) {
		char tbuf[PICL_TIME_BUFSIZE];

		picl_time_format(rec->time, tbuf);
		if (err)
			err->mark = rec->mark;
		return picl_set_error(err, PICL_ERR_DATA,
				      "exit of event %d at %s has no matching entry",
				      (int)rec->event, tbuf);
	}
	f = &p->frames[i - 1];

	if (rec->time.scale == f->time.scale &&
	    !__builtin_sub_overflow(rec->time.mant, f->time.mant, &d.mant)) {
		/* the common case, without the call */
		d.scale = rec->time.scale;
		exact = 1;
	} else {
		exact = picl_time_sub(rec->time, f->time, &d) == PICL_OK;
	}
	exact = exact && d.scale >= 0 && d.scale <= PICL_TIME_MAX_SCALE;

	for (k = 0; k <= f->rel_count; k++) {
		int32_t rel = k == 0 ? PICL_WILDCARD : p->rels[f->rel_start + k - 1];
		struct cell *c;

		if (rel == rec->event)
			continue;
		c = cell_get(p, rel, rec->event);
		if (!c)
			return PICL_ERR_NOMEM;
		c->flags |= CELL_TIME;
		if (c->open > 0)
			c->open--;
		/* E inside E (recursion): the time spent in E is counted once,
		 * by the outermost instance, which the exits of its event type
		 * (matched innermost first) close last. */
		if (c->open == 0) {
			c->exits++;
			if (exact)
				add_time(c, d);
			else
				add_time_double(c, picl_time_to_double(rec->time) -
						    picl_time_to_double(f->time));
		}
		if (rec->has_volume)
			add_volume(c, rec->volume);
	}
	remove_frame(p, i, rec->event);
	if (rec->event >= 0)
		close_window(p, rec->event);
	return PICL_OK;
}

/* picl_stats_event_of and picl_stats_add_event, inlined into
 * picl_stats_add too: no call of an exported function (through the PLT)
 * for every record. */
static inline int event_of(const struct picl_record *rec, struct picl_stats_event *ev)
{
	long index = -1;

	if (!rec || !ev || (rec->type != PICL_REC_MARK && rec->type != PICL_REC_ENTRY &&
			    rec->type != PICL_REC_EXIT))
		return 0;
	ev->type = rec->type;
	ev->event = rec->event;
	ev->processor = rec->processor;
	ev->process = rec->process;
	ev->time = rec->time;
	ev->mark = rec->mark;
	ev->has_volume = 0;
	ev->volume = 0;
	switch (volume_source(rec->event)) {
	case VOL_ENTRY:
		index = rec->type == PICL_REC_ENTRY ? 0 :
			rec->type == PICL_REC_MARK ? mark_length_index(rec->event, rec->nvalues) : -1;
		break;
	case VOL_EXIT:
		index = rec->type == PICL_REC_EXIT ? 0 :
			rec->type == PICL_REC_MARK ? mark_length_index(rec->event, rec->nvalues) : -1;
		break;
	case VOL_SPAWN:
		if (rec->type != PICL_REC_ENTRY) {
			ev->has_volume = 1;
			ev->volume = 1;
		}
		break;
	case VOL_NONE:
		break;
	}
	if (index >= 0)
		ev->has_volume = record_length(rec, index, &ev->volume);
	return 1;
}

static inline int add_event(struct picl_stats *s, const struct picl_stats_event *ev,
			    struct picl_error *err)
{
	struct proc *p;
	int rc;

	if (!s)
		return picl_set_error(err, PICL_ERR_USAGE, "no statistics (NULL)");
	if (!ev)
		return picl_set_error(err, PICL_ERR_USAGE, "no event to add (NULL)");
	if (ev->type != PICL_REC_MARK && ev->type != PICL_REC_ENTRY &&
	    ev->type != PICL_REC_EXIT)
		return PICL_OK;
	p = proc_get(s, ev->processor, ev->process);
	if (!p)
		return picl_set_error(err, PICL_ERR_NOMEM, "out of memory");

	switch (ev->type) {
	case PICL_REC_MARK:
		if (add_mark(p, ev))
			return picl_set_error(err, PICL_ERR_NOMEM, "out of memory");
		break;
	case PICL_REC_ENTRY:
		rc = add_entry(p, ev, err);
		if (rc == PICL_ERR_NOMEM)
			return picl_set_error(err, PICL_ERR_NOMEM, "out of memory");
		if (rc < 0)
			return rc;
		break;
	default:
		rc = add_exit(p, ev, err);
		if (rc < 0)
			return rc;
		break;
	}
	/* only a record taken: a refused one changes nothing */
	p->last = ev->time;
	if (ev->time.scale > p->max_scale)
		p->max_scale = ev->time.scale;
	return PICL_OK;
}

int picl_stats_add(struct picl_stats *s, const struct picl_record *rec,
		   struct picl_error *err)
{
	struct picl_stats_event ev;

	if (PICL_UNLIKELY(!s || !rec))
		return picl_set_error(err, PICL_ERR_USAGE, !s ? "no statistics (NULL)" :
				      "no record to add (NULL)");
	if (!event_of(rec, &ev))
		return PICL_OK;
	return add_event(s, &ev, err);
}

int picl_stats_event_of(const struct picl_record *rec, struct picl_stats_event *ev)
{
	return event_of(rec, ev);
}

int picl_stats_add_event(struct picl_stats *s, const struct picl_stats_event *ev,
			 struct picl_error *err)
{
	return add_event(s, ev, err);
}

/* ------------------------------------------------------------------------ */
/* Reading out                                                               */
/* ------------------------------------------------------------------------ */

/*
 * x as an exact decimal with `scale` decimals, rounded to the nearest (see
 * the file comment). Returns 0 when that does not fit in 52 bits: the
 * double has no digits finer than that to remove.
 */
static int time_decimal(double x, int32_t scale, struct picl_time *out)
{
	static const double p10[PICL_TIME_MAX_SCALE + 1] = {
		1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
		1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18
	};
	double y;

	if (scale < 0 || scale > PICL_TIME_MAX_SCALE)
		return 0;
	y = x * p10[scale];
	if (!(fabs(y) < 4503599627370496.0)) /* 2^52 */
		return 0;
	out->mant = (int64_t)round(y);
	out->scale = scale;
	return 1;
}

/*
 * c's time as a decimal, with `scale` decimals (the process's finest) when
 * 18 digits hold it, else with its own: 1, or 0 when it is a double too
 * large for that (then only cell_double gives it).
 */
static int cell_time(const struct cell *c, int32_t scale, struct picl_time *out)
{
	int64_t x;

	if (c->flags & CELL_INEXACT)
		return time_decimal(c->t.d, scale, out);
	out->mant = c->t.ticks;
	out->scale = c->tscale;
	if (scale > c->tscale && scale <= PICL_TIME_MAX_SCALE &&
	    !__builtin_mul_overflow(c->t.ticks, pow10_tab[scale - c->tscale], &x) &&
	    time_mant_ok(x)) {
		out->mant = x;
		out->scale = scale;
	}
	return 1;
}

/* The cell of (relative, event) in a process, when E occurred there; p too. */
static const struct cell *occurred(const struct picl_stats *s, int32_t processor,
				   int32_t process, int32_t relative, int32_t event,
				   const struct proc **pp)
{
	const struct proc *p = s ? proc_find(s, processor, process) : NULL;
	const struct cell *c = p ? cell_find(p, relative, event) : NULL;

	*pp = p;
	return c && c->count ? c : NULL;
}

int picl_stats_get(const struct picl_stats *s, int32_t processor, int32_t process,
		   int32_t relative, int32_t event,
		   double *time, int64_t *count, int64_t *volume)
{
	const struct proc *p;
	const struct cell *c = occurred(s, processor, process, relative, event, &p);

	if (!c)
		return 0;
	if (time) {
		struct picl_time t;

		if (!(c->flags & CELL_TIME))
			*time = -1.0;
		else if (cell_time(c, p->max_scale, &t))
			*time = picl_time_to_double(t);
		else
			*time = cell_double(c);
	}
	if (count)
		*count = c->count;
	if (volume)
		*volume = (c->flags & CELL_VOLUME) ? c->volume : -1;
	return 1;
}

int picl_stats_get_time(const struct picl_stats *s, int32_t processor, int32_t process,
			int32_t relative, int32_t event, struct picl_time *time)
{
	const struct proc *p;
	const struct cell *c = occurred(s, processor, process, relative, event, &p);

	if (!c || !time || !(c->flags & CELL_TIME) || (c->flags & CELL_INEXACT))
		return 0;
	return cell_time(c, p->max_scale, time);
}

int picl_stats_get_intervals(const struct picl_stats *s, int32_t processor, int32_t process,
			     int32_t relative, int32_t event, int64_t *intervals)
{
	const struct proc *p;
	const struct cell *c = occurred(s, processor, process, relative, event, &p);

	if (!c || !intervals)
		return 0;
	*intervals = c->exits;
	return 1;
}

/*
 * The section a cell is emitted in: R ascending (-1 first); for R = -1 the
 * system events before the user events.
 */
static int cell_section(const struct cell *c)
{
	return c->rel == PICL_WILDCARD && c->event >= 0;
}

/* Order within a record: system events by decreasing number, then user
 * events increasing. */
static int64_t event_rank(int32_t event)
{
	return event < 0 ? (int64_t)event * -1 - ((int64_t)1 << 40)
			 : (int64_t)event;
}

static int cmp_cells(const void *a, const void *b)
{
	const struct cell *x = a, *y = b;
	int64_t rx, ry;

	if (x->rel != y->rel)
		return x->rel < y->rel ? -1 : 1;
	if (cell_section(x) != cell_section(y))
		return cell_section(x) - cell_section(y);
	rx = event_rank(x->event);
	ry = event_rank(y->event);
	return (rx > ry) - (rx < ry);
}

static int cmp_procs(const void *a, const void *b)
{
	const struct proc *x = *(const struct proc *const *)a;
	const struct proc *y = *(const struct proc *const *)b;

	if (x->processor != y->processor)
		return x->processor < y->processor ? -1 : 1;
	return (x->process > y->process) - (x->process < y->process);
}

static int compile_descriptors(struct picl_stats *s)
{
	int rc;

	if (!s->desc_time) {
		rc = picl_descriptor_compile(control_time, sizeof(control_time) - 1,
					     &s->desc_time, NULL);
		if (rc)
			return rc;
	}
	if (!s->desc_count) {
		rc = picl_descriptor_compile(control_count, sizeof(control_count) - 1,
					     &s->desc_count, NULL);
		if (rc)
			return rc;
	}
	return PICL_OK;
}

/* Emit one statistics record of `type` for cells[0..n) (one section). */
static int emit_record(struct picl_stats *s, const struct proc *p, int32_t type,
		       const struct cell *cells, size_t n,
		       int (*emit)(void *ctx, const struct picl_record *rec), void *ctx)
{
	struct picl_record rec;
	size_t k, nv = 0;

	for (k = 0; k < n; k++) {
		const struct cell *c = &cells[k];
		struct picl_value *v;
		struct picl_time dec;
		int have_dec = 0;
		double t = 0.0;

		switch (type) {
		case PICL_REC_STAT_TIME:
			if (!(c->flags & CELL_TIME))
				continue;
			have_dec = cell_time(c, p->max_scale, &dec);
			t = have_dec ? picl_time_to_double(dec) : cell_double(c);
			if (!(t > 0.0))
				continue;
			break;
		case PICL_REC_STAT_COUNT:
			if (c->count <= 0)
				continue;
			break;
		default:
			if (!(c->flags & CELL_VOLUME) || c->volume <= 0)
				continue;
			break;
		}
		v = &s->values[nv];
		memset(v, 0, 2 * sizeof(*v));
		v[0].kind = PICL_VAL_INT;
		v[0].v.i = c->event;
		if (type == PICL_REC_STAT_TIME) {
			v[1].kind = PICL_VAL_DOUBLE;
			v[1].v.d = t;
			if (have_dec) {
				/* Written with the trace's own decimals, as in
				 * Table 20 ("0.000098", not "9.8e-05"). */
				char *text = s->texts + (nv / 2) * PICL_TIME_BUFSIZE;

				v[1].text_len = picl_time_format(dec, text);
				v[1].text = text;
			}
		} else {
			v[1].kind = PICL_VAL_INT;
			v[1].v.i = type == PICL_REC_STAT_COUNT ? c->count : c->volume;
		}
		nv += 2;
	}
	if (nv == 0)
		return PICL_OK;

	picl_record_init(&rec);
	rec.type = type;
	rec.event = cells[0].rel;
	rec.time = p->last;
	rec.processor = p->processor;
	rec.process = p->process;
	rec.nfields = nv / 2;
	rec.has_descriptor = 1;
	rec.alias = -1;
	if (type == PICL_REC_STAT_TIME) {
		rec.control = control_time;
		rec.control_len = sizeof(control_time) - 1;
		rec.desc = s->desc_time;
	} else {
		rec.control = control_count;
		rec.control_len = sizeof(control_count) - 1;
		rec.desc = s->desc_count;
	}
	rec.values = s->values;
	rec.nvalues = nv;
	return emit(ctx, &rec);
}

static int emit_proc(struct picl_stats *s, const struct proc *p,
		     int (*emit)(void *ctx, const struct picl_record *rec), void *ctx)
{
	static const int32_t types[3] = {
		PICL_REC_STAT_TIME, PICL_REC_STAT_COUNT, PICL_REC_STAT_VOLUME
	};
	size_t n = 0, k, start;

	if (grow((void **)&s->sorted, &s->sorted_cap, p->ncells, sizeof(*s->sorted)) ||
	    grow((void **)&s->values, &s->values_cap, 2 * p->ncells, sizeof(*s->values)) ||
	    grow((void **)&s->texts, &s->texts_cap, p->ncells, PICL_TIME_BUFSIZE))
		return PICL_ERR_NOMEM;
	for (k = 0; k < p->cells_cap; k++)
		if (p->cells[k].used)
			s->sorted[n++] = p->cells[k];
	if (n > 1)
		qsort(s->sorted, n, sizeof(*s->sorted), cmp_cells);

	for (start = 0; start < n; start = k) {
		int t;

		for (k = start + 1; k < n; k++)
			if (s->sorted[k].rel != s->sorted[start].rel ||
			    cell_section(&s->sorted[k]) != cell_section(&s->sorted[start]))
				break;
		for (t = 0; t < 3; t++) {
			int rc = emit_record(s, p, types[t], s->sorted + start,
					     k - start, emit, ctx);

			if (rc)
				return rc;
		}
	}
	return PICL_OK;
}

int picl_stats_emit(struct picl_stats *s,
		    int (*emit)(void *ctx, const struct picl_record *rec),
		    void *ctx)
{
	struct proc **order;
	size_t k;
	int rc;

	if (!s || !emit)
		return PICL_ERR_USAGE;
	if (s->nprocs == 0)
		return PICL_OK;
	rc = compile_descriptors(s);
	if (rc)
		return rc;
	order = malloc(s->nprocs * sizeof(*order));
	if (!order)
		return PICL_ERR_NOMEM;
	memcpy(order, s->procs, s->nprocs * sizeof(*order));
	if (s->nprocs > 1)
		qsort(order, s->nprocs, sizeof(*order), cmp_procs);
	for (k = 0; k < s->nprocs; k++) {
		rc = emit_proc(s, order[k], emit, ctx);
		if (rc)
			break;
	}
	free(order);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Reading statistics records                                                */
/* ------------------------------------------------------------------------ */

static int value_number(const struct picl_value *v, double *out)
{
	switch (v->kind) {
	case PICL_VAL_INT:
		*out = (double)v->v.i;
		return 1;
	case PICL_VAL_UINT:
		*out = (double)v->v.u;
		return 1;
	case PICL_VAL_FLOAT:
	case PICL_VAL_DOUBLE:
		*out = v->v.d;
		return 1;
	default:
		return 0;
	}
}

int picl_stats_record_pairs(const struct picl_record *rec,
			    struct picl_stat_pair *pairs, size_t cap)
{
	size_t n, k;

	if (!rec || (cap > 0 && !pairs))
		return PICL_ERR_USAGE;
	if (rec->type != PICL_REC_STAT_TIME && rec->type != PICL_REC_STAT_COUNT &&
	    rec->type != PICL_REC_STAT_VOLUME)
		return PICL_ERR_DATA;
	if (rec->nvalues == 0)
		return rec->nfields == 0 ? 0 : PICL_ERR_DATA; /* not decoded */
	if (!rec->values || rec->nvalues % 2 != 0 || rec->nvalues / 2 > INT32_MAX)
		return PICL_ERR_DATA;
	n = rec->nvalues / 2;
	for (k = 0; k < n; k++) {
		const struct picl_value *ev = &rec->values[2 * k];
		const struct picl_value *num = &rec->values[2 * k + 1];
		double d;
		int64_t e;

		if (ev->kind == PICL_VAL_INT)
			e = ev->v.i;
		else if (ev->kind == PICL_VAL_UINT && ev->v.u <= INT32_MAX)
			e = (int64_t)ev->v.u;
		else
			return PICL_ERR_DATA;
		if (e < INT32_MIN || e > INT32_MAX || !value_number(num, &d))
			return PICL_ERR_DATA;
		if (k < cap) {
			pairs[k].event = (int32_t)e;
			pairs[k].value = d;
			pairs[k].text = num->text;
			pairs[k].text_len = num->text ? num->text_len : 0;
		}
	}
	return (int)n;
}
