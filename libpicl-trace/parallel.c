/*
 * parallel.c - parsing threads for PICL_READ_PARALLEL.
 *
 * The input is cut into chunks at record boundaries (after a newline that
 * does not continue a record); each chunk is read by one worker thread at a
 * time, in order, and then parsed by that worker while the next worker
 * reads the next chunk. The caller (picl_reader_next) takes the chunks in
 * order and hands out their records one by one; while the chunk it needs
 * is not ready it reads and parses the next free one itself, like a worker
 * (so PICL_THREADS=2 is one worker thread plus the caller, and no core
 * idles or is oversubscribed). So the records, their values, marks and
 * errors are exactly those of the serial reader; only the work is spread
 * over the cores.
 *
 * What a worker does to each line, and what it leaves to the caller:
 *
 *   - the fixed fields of canonical lines (reader_fields_fast), and their
 *     data when the descriptor is a control string (compiled into the
 *     worker's own cache) or an alias below TABLE_N that is the same
 *     wherever it is used (predefined, or only ever defined for every
 *     event, processor and process): IT_DONE;
 *   - aliases it cannot resolve alone (scoped ones, large numbers):
 *     IT_FIELDS, decoded by the caller with the reader's definitions
 *     (with PICL_READ_RAW | PICL_READ_DECODE_AHEAD they stay raw:
 *     IT_DONE without values);
 *   - anything unusual (a line the fast path refuses, a definition record,
 *     data that fail to decode): IT_CAREFUL, read again by the caller with
 *     the serial code, which also produces the error message;
 *   - continued records (IT_JOIN) and over-long lines (IT_TOOLONG).
 *
 * Definitions are the only state that flows forward through a trace.
 * Workers resolve aliases through a table built by the caller from its
 * definitions; each chunk remembers the table it was parsed with. When the
 * caller has applied a definition since (the generation differs), each
 * record decoded through the table is checked against the full look-up and
 * decoded again if its descriptor changed. Definitions are rare, so this
 * costs nothing on real traces and keeps hostile ones correct.
 *
 * A chunk with no record boundary within the serial reader's buffer size
 * (a record longer than max_record) stops the threads: the serial reader
 * takes over with those bytes and reports it as it always does.
 *
 * Memory: nthreads + 2 chunks of 256 KiB (or the reader's buffer size if
 * smaller) and their parsed records, whatever the input's size.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE  /* memrchr, sched_getaffinity */
#endif
#include "reader-int.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PIPE_CHUNK (256u << 10)
#define PIPE_PAD 64
#define TABLE_N QUICK_ALIASES   /* vec_decode reads the table */
#define MAX_THREADS 8

/* What one thread writes often lives on its own cache lines, so that the
 * caller and the workers never make each other's lines bounce. */
#define LINE 64
#if defined(__GNUC__)
#define LINE_ALIGNED __attribute__((aligned(LINE)))
#else
#define LINE_ALIGNED
#endif

enum item_kind { IT_DONE, IT_FIELDS, IT_CAREFUL, IT_JOIN, IT_TOOLONG };

/*
 * A parsed record, packed: the caller reads these from another core, so
 * they are a third of a struct picl_record. Texts are offsets into the
 * chunk; values of IT_DONE records follow each other in vals, in order.
 */
struct item {
	int32_t type, event, processor, process;
	int64_t mant;
	int64_t alias;
	const struct picl_descriptor *desc;
	uint32_t line_off, line_len;  /* the line (IT_JOIN: all its lines;
					 IT_TOOLONG: where it is reported, up
					 to its record's end) */
	uint32_t data_off;            /* data, from the line's start */
	uint32_t ctrl_len;            /* control string (alias < 0): before data */
	uint32_t nfields, nvalues;
	uint32_t line;                /* physical line in the chunk (from 1) */
	uint8_t scale;
	uint8_t kind;                 /* enum item_kind */
	uint8_t by_table;             /* decoded through the alias table */
	uint8_t has_descriptor;
	uint8_t eol;                  /* newline bytes after the line */
};

struct table {
	uint64_t gen;            /* picl_defs_generation it was made at */
	int refs;
	const struct picl_descriptor *d[TABLE_N];
	uint8_t nint[TABLE_N];   /* quick_int_ops(d[i]) */
	uint8_t nops[TABLE_N];   /* picl_descriptor_decfloat_ops(d[i]) ... */
	uint8_t kind[TABLE_N][QUICK_VALUES];   /* ... and their kinds (vec_decode) */
};

enum batch_state { B_FREE, B_BUSY, B_READY };

struct batch {
	int state;
	uint64_t seq;
	char *buf;               /* the chunk, PIPE_PAD bytes of room after */
	size_t len, cap;
	uint64_t base;           /* input offset of buf[0] */
	uint64_t nlines;         /* physical lines in the chunk */
	int eof;                 /* the input ends after this chunk */
	int fatal;               /* ... or fails after it (err) */
	uint64_t fatal_at;       /* input offset the failing read was at */
	size_t fatal_tail;       /* text of the partial line before it */
	int handoff;             /* no record boundary: the serial reader takes over */
	int nomem;               /* a worker ran out of memory parsing it */
	struct picl_error err;
	struct item *items;
	size_t n, ncap;
	struct picl_value *vals;
	size_t nv, vcap;
	struct table *table;
} LINE_ALIGNED;

struct worker {
	struct pipeline *pl;
	pthread_t tid;
	struct picl_defs *ctrl;  /* its own control-string cache */
	unsigned flags;          /* the reader's, copied: read on every line */
	int vec;                 /* the reader's: linevec_available() */
	size_t max_record;
} LINE_ALIGNED;

struct pipeline {
	pthread_mutex_t mu;
	pthread_cond_t work;     /* for workers: a chunk is free, the input is free, stop */
	pthread_cond_t ready;    /* for the caller: a chunk is parsed */
	struct batch *slots;
	size_t nslots;
	struct worker *workers;
	size_t nworkers;
	int stop;

	/* the input: read by one worker at a time (`reading`) */
	struct picl_input *in;
	int reading, input_done;
	uint64_t next_seq, next_base;
	char *carry;             /* bytes after the last cut, read already */
	size_t carry_len, carry_cap;
	size_t chunk, limit;

	struct table *table;     /* the newest, for chunks read from now on */

	/* the caller's side, written on every record */
	struct {
		uint64_t want;           /* the chunk it reads next */
		struct batch *cur;
		size_t pos, vpos;        /* next item, and its values in cur->vals */
		uint64_t line_base;      /* physical lines before cur */
	} LINE_ALIGNED c;
} LINE_ALIGNED;

/* ------------------------------------------------------------------------ */
/* Alias tables (made and published by the caller only)                     */
/* ------------------------------------------------------------------------ */

static struct table *make_table(struct picl_reader *r)
{
	struct table *t = calloc(1, sizeof(*t));
	int64_t a;

	if (!t)
		return NULL;
	t->gen = picl_defs_generation(r->defs);
	t->refs = 1;
	for (a = 0; a < TABLE_N; a++) {
		t->d[a] = picl_defs_alias_everywhere(r->defs, a);
		quick_entry(t->d[a], &t->nint[a], &t->nops[a], t->kind[a]);
	}
	return t;
}

/* Under pl->mu. */
static void table_unref(struct table *t)
{
	if (t && --t->refs == 0)
		free(t);
}

/* ------------------------------------------------------------------------ */
/* Reading chunks (one worker at a time)                                    */
/* ------------------------------------------------------------------------ */

/* The offset just after the last newline that ends a record, or 0. */
static size_t find_cut(const char *buf, size_t len)
{
	const char *e = buf + len;

	while (e > buf) {
		const char *nl = memrchr(buf, '\n', (size_t)(e - buf));
		const char *le;
		size_t k;

		if (!nl)
			return 0;
		le = nl;
		if (le > buf && le[-1] == '\r')
			le--;
		if (le == buf)
			return (size_t)(nl + 1 - buf);
		/* the line's last two bytes (or its only one) decide */
		k = le - 1 > buf && le[-2] != '\n' ? 2 : 1;
		if (!reader_continues(le - k, k))
			return (size_t)(nl + 1 - buf);
		e = nl;
	}
	return 0;
}

static int grow_buf(struct batch *b, size_t need)
{
	char *p;

	if (need <= b->cap)
		return 0;
	p = realloc(b->buf, need + PIPE_PAD);
	if (!p)
		return -1;
	b->buf = p;
	b->cap = need;
	return 0;
}

/* Fill b with the next chunk: the carried bytes, then input up to a record
 * boundary. Only the worker that set pl->reading calls this. */
static void fill_batch(struct pipeline *pl, struct batch *b)
{
	size_t target = pl->chunk, cut = 0;

	b->eof = b->fatal = b->handoff = b->nomem = 0;
	b->base = pl->next_base;
	if (target < pl->carry_len)
		target = pl->carry_len;
	if (grow_buf(b, target) < 0)
		goto nomem;
	if (pl->carry_len)
		memcpy(b->buf, pl->carry, pl->carry_len);
	b->len = pl->carry_len;
	for (;;) {
		while (b->len < target && !b->eof && !b->fatal) {
			ssize_t k = picl_input_read(pl->in, b->buf + b->len, target - b->len, &b->err);

			if (k < 0)
				b->fatal = 1;
			else if (k == 0)
				b->eof = 1;
			else
				b->len += (size_t)k;
		}
		if (b->eof) {
			cut = b->len;
			break;
		}
		if (b->fatal) {
			/* the serial reader reads on to the last whole line,
			 * into a continued record if need be (parse_batch),
			 * and reports the failure after the bytes it had read,
			 * a partial last line included */
			const char *nl = memrchr(b->buf, '\n', b->len);

			b->fatal_at = b->base + b->len;
			cut = nl ? (size_t)(nl + 1 - b->buf) : 0;
			b->fatal_tail = reader_partial_len(b->buf + cut, b->len - cut);
			break;
		}
		cut = find_cut(b->buf, b->len);
		if (cut > 0)
			break;
		/* No record ends in what we have: read on, up to what the
		 * serial reader could hold, then let it take over. */
		if (b->len >= pl->limit) {
			b->handoff = 1;
			cut = b->len;
			break;
		}
		target = b->len * 2 > pl->chunk ? b->len * 2 : pl->chunk;
		if (target > pl->limit)
			target = pl->limit;
		if (grow_buf(b, target) < 0)
			goto nomem;
	}
	/* What follows the cut starts the next chunk. */
	pl->carry_len = 0;
	if (!b->fatal && cut < b->len) {
		size_t tail = b->len - cut;

		if (tail > pl->carry_cap) {
			char *c = realloc(pl->carry, tail);

			if (!c)
				goto nomem;
			pl->carry = c;
			pl->carry_cap = tail;
		}
		memcpy(pl->carry, b->buf + cut, tail);
		pl->carry_len = tail;
	}
	pl->next_base = b->base + cut;
	b->len = cut;
	memset(b->buf + b->len, 0, PIPE_PAD);
	return;
nomem:
	b->len = 0;
	b->nomem = 1;
}

/* ------------------------------------------------------------------------ */
/* Parsing a chunk (any worker)                                             */
/* ------------------------------------------------------------------------ */

/* The next item's room (b->n not advanced), or NULL. */
static struct item *item_room(struct batch *b)
{
	if (b->n == b->ncap) {
		size_t ncap = b->ncap ? b->ncap * 2 : 1024;
		struct item *p = realloc(b->items, ncap * sizeof(*p));

		if (!p)
			return NULL;
		b->items = p;
		b->ncap = ncap;
	}
	return &b->items[b->n];
}

static struct item *new_item(struct batch *b)
{
	struct item *it = item_room(b);

	if (it)
		b->n++;
	return it;
}

/* Decode rec's data with d into b->vals. 0, or -1 (the caller will). */
static int decode_item(struct batch *b, struct picl_record *rec, const struct picl_descriptor *d)
{
	struct picl_error e2;
	const char *p, *e;
	size_t nv = 0, used = 0, cap;
	int rc;

	if (!b->vals) {
		b->vals = malloc(4096 * sizeof(*b->vals));
		if (!b->vals)
			return -1;
		b->vcap = 4096;
	}
	if (picl_descriptor_decode_quick(d, rec->nfields, rec->data, rec->data_len,
					 b->vals + b->nv, b->vcap - b->nv, &nv)) {
		rec->desc = d;
		rec->nvalues = nv;
		b->nv += nv;
		return 0;
	}
	for (;;) {
		cap = b->vcap - b->nv;
		rc = picl_descriptor_decode(d, rec->nfields, rec->data, rec->data_len,
					    b->vals + b->nv, &nv, &cap, &used, &e2);
		if (rc != PICL_ERR_NOMEM || cap <= b->vcap - b->nv)
			break;
		{
			size_t ncap = b->vcap ? b->vcap : 4096;
			struct picl_value *v;

			while (ncap < b->nv + cap)
				ncap *= 2;
			v = realloc(b->vals, ncap * sizeof(*v));
			if (!v)
				return -1;
			b->vals = v;
			b->vcap = ncap;
		}
	}
	if (rc < 0)
		return -1;
	e = rec->data + rec->data_len;
	for (p = rec->data + used; p < e && picl_is_blank((unsigned char)*p); p++)
		;
	if (p != e)
		return -1;
	rec->desc = d;
	rec->nvalues = nv;
	b->nv += nv;
	return 0;
}

/* What a worker makes of one record line p[0..n) whose fixed fields it
 * has read. */
static int classify(struct worker *w, struct batch *b, struct picl_record *rec,
		    struct item *it)
{
	const struct picl_descriptor *d = NULL;

	if (reader_is_definition(rec->type))
		return (w->flags & (PICL_READ_RAW | PICL_READ_NO_DEFS)) !=
		       (PICL_READ_RAW | PICL_READ_NO_DEFS) ? IT_CAREFUL : IT_DONE;
	if (rec->nfields == 0 ||
	    (w->flags & (PICL_READ_RAW | PICL_READ_DECODE_AHEAD)) == PICL_READ_RAW)
		return IT_DONE;
	/* Raw records decoded ahead: what needs the caller stays raw. */
	if (rec->alias >= 0) {
		if (rec->alias < TABLE_N)
			d = b->table->d[rec->alias];
		if (!d)
			return (w->flags & PICL_READ_RAW) ? IT_DONE : IT_FIELDS;
		it->by_table = 1;
	} else if (picl_defs_control(w->ctrl, rec->control, rec->control_len, &d, NULL) < 0) {
		return IT_CAREFUL;
	} else if (picl_defs_is_scratch(w->ctrl, d)) {
		return (w->flags & PICL_READ_RAW) ? IT_DONE : IT_FIELDS;
	}
	return decode_item(b, rec, d) < 0 ? IT_CAREFUL : IT_DONE;
}

/* Pack what the fast path and classify found. */
static void pack(struct item *it, const struct picl_record *rec, const char *line)
{
	it->type = rec->type;
	it->event = rec->event;
	it->processor = rec->processor;
	it->process = rec->process;
	it->mant = rec->time.mant;
	it->scale = (uint8_t)rec->time.scale;
	it->alias = rec->alias;
	it->desc = rec->desc;
	it->has_descriptor = (uint8_t)rec->has_descriptor;
	it->data_off = (uint32_t)(rec->data - line);
	it->ctrl_len = (uint32_t)rec->control_len;
	it->nfields = (uint32_t)rec->nfields;
	it->nvalues = (uint32_t)rec->nvalues;
}

/*
 * The commonest line in one pass: the fixed fields in the fast path's
 * canonical shape (reader_fields_fast), with integers of at most 9 digits,
 * then either no data or an alias whose descriptor in the table has
 * integer conversions only, each value one blank and a decimal of 1-18
 * digits, maybe negative (raw readers that do not decode ahead: any alias,
 * and the data unread up to the newline); then the line's end: '\n', or
 * the chunk's end (its NUL pad). It makes of such a line what the general
 * path in parse_batch makes of it (fast path, classify, decode_quick,
 * pack; the fuzz target fuzz-parallel and test-parallel compare the
 * records with the serial reader's), without finding the newline first
 * (when decoding), filling a struct picl_record or calling the decoder.
 * Returns where the next line starts, with *it and b->vals filled, or NULL
 * when the line is anything else (b->n and b->nv untouched).
 */
static const char *parse_quick(const struct worker *w, struct batch *b, const char *s,
			       const char *e, int decode, struct item *it)
{
	struct picl_time t;
	const char *p, *data;
	uint64_t nf, alias = 0;
	size_t n = 0;

	if (!(p = quick_fixed(s, &it->type, &it->event, &t, &it->processor, &it->process, &nf)) ||
	    reader_is_definition(it->type))
		return NULL;
	data = p;
	if (nf > 0 && !decode) {
		/* raw: the alias, then anything up to the newline */
		const char *nl;

		if (*p != ' ' || !(p = fast_digits(p + 1, 9, &alias)) || (*p != ' ' && *p != '\n' && p != e))
			return NULL;
		data = p;
		nl = memchr(p, '\n', (size_t)(e - p));
		p = nl ? nl : e;
		if (p[-1] == '\r' || reader_continues(s, (size_t)(p - s)))
			return NULL;
	} else if (nf > 0) {
		unsigned k;

		if (*p != ' ' || !(p = fast_digits(p + 1, 9, &alias)) || alias >= TABLE_N ||
		    !(k = b->table->nint[alias]) || nf > QUICK_VALUES ||
		    (n = (size_t)nf * k) > QUICK_VALUES || b->vcap - b->nv < n)
			return NULL;
		data = p;
		if (!(p = quick_values(p, n, b->vals + b->nv)))
			return NULL;
	}
	if ((p != e && *p != '\n') || (size_t)(p - s) > w->max_record)
		return NULL;
	it->mant = t.mant;
	it->scale = (uint8_t)t.scale;
	it->nfields = (uint32_t)nf;
	it->has_descriptor = nf > 0;
	it->by_table = n > 0;
	it->alias = nf > 0 ? (int64_t)alias : -1;
	it->desc = n > 0 ? b->table->d[alias] : NULL;
	it->nvalues = (uint32_t)n;
	it->line_off = (uint32_t)(s - b->buf);
	it->line_len = (uint32_t)(p - s);
	it->data_off = (uint32_t)(data - s);
	it->ctrl_len = 0;
	it->eol = p != e;
	it->kind = IT_DONE;
	b->nv += n;
	return p + (p != e);
}

/*
 * The commonest line of all, read by linevec_scan and vec_record (through
 * the chunk's alias table; raw for raw readers that do not decode ahead):
 * what the general path or parse_quick makes of it.
 * Returns where the next line starts, or NULL (nothing written but *it
 * and b->vals past b->nv).
 */
static const char *parse_vec(const struct worker *w, struct batch *b, const char *s,
			     int decode, struct item *it)
{
	struct linevec lv;
	struct picl_record rec;
	int n;

	/* (a raw reader's vals stay NULL) */
	if ((decode && b->vcap - b->nv < QUICK_VALUES) || !linevec_scan(s, &lv) ||
	    lv.len > w->max_record ||
	    (n = vec_record(&lv, s, decode, b->table->nops, b->table->kind, b->table->d, &rec,
			    decode ? b->vals + b->nv : NULL)) < 0)
		return NULL;
	pack(it, &rec, s);
	it->by_table = n > 0;
	it->line_off = (uint32_t)(s - b->buf);
	it->line_len = lv.len;
	it->eol = 1;
	it->kind = IT_DONE;
	b->nv += (size_t)n;
	return s + lv.len + 1;
}

static void parse_batch(struct worker *w, struct batch *b)
{
	const char *p = b->buf, *e = b->buf + b->len;
	uint64_t line = 0;
	int quick = (w->flags & PICL_READ_NO_FAST_PATH) == 0;
	int decode = (w->flags & (PICL_READ_RAW | PICL_READ_DECODE_AHEAD)) != PICL_READ_RAW;
	int vec = w->vec;   /* (never with PICL_READ_NO_FAST_PATH) */

	b->n = 0;
	b->nv = 0;
	while (p < e) {
		const char *nl, *le, *next, *q;
		size_t n;
		struct picl_record rec;
		struct item *it;

		if (quick && (it = item_room(b)) != NULL &&
		    ((vec && (next = parse_vec(w, b, p, decode, it)) != NULL) ||
		     (next = parse_quick(w, b, p, e, decode, it)) != NULL)) {
			it->line = (uint32_t)++line;
			b->n++;
			p = next;
			continue;
		}
		nl = memchr(p, '\n', (size_t)(e - p));
		le = nl ? nl : e;
		next = nl ? nl + 1 : e;
		n = (size_t)(le - p);
		line++;
		if (n > 0 && le[-1] == '\r')
			n--;
		if (n <= w->max_record) {
			for (q = p; q < p + n && picl_is_blank((unsigned char)*q); q++)
				;
			if (q == p + n || *q == '#') {
				p = next;
				continue;
			}
		}
		it = new_item(b);
		if (!it) {
			b->nomem = 1;
			break;
		}
		it->line = (uint32_t)line;
		it->by_table = 0;
		it->nvalues = 0;
		it->line_off = (uint32_t)(p - b->buf);
		it->line_len = (uint32_t)n;
		it->eol = (uint8_t)(next - (p + n));
		if (reader_continues(p, n)) {
			/* A continued record, ended as the serial reader ends it
			 * (next_text): a line over max_record is reported at
			 * that line, a joined text over it at the first line,
			 * and either way the whole record is skipped. (Chunks
			 * never end inside one but at the end of the input or
			 * where it fails.) */
			size_t joined = n - 1;
			int over = n > w->max_record;

			while (reader_continues(p, n) && next < e) {
				p = next;
				nl = memchr(p, '\n', (size_t)(e - p));
				le = nl ? nl : e;
				next = nl ? nl + 1 : e;
				n = (size_t)(le - p);
				if (n > 0 && le[-1] == '\r')
					n--;
				line++;
				if (over)
					continue;
				if (n > w->max_record) {
					over = 1;   /* reported at this line */
					it->line = (uint32_t)line;
					it->line_off = (uint32_t)(p - b->buf);
					continue;
				}
				joined += reader_continues(p, n) ? n - 1 : n;
				over = joined > w->max_record;
			}
			if (reader_continues(p, n) && b->fatal) {
				/* the input fails inside it: the serial reader
				 * reports that, not the record */
				b->n--;
				p = next;
				continue;
			}
			/* (consumed up to the record's end) */
			it->kind = over ? IT_TOOLONG : IT_JOIN;
			it->line_len = (uint32_t)(next - (b->buf + it->line_off));
			it->eol = 0;
		} else if (n > w->max_record) {
			it->kind = IT_TOOLONG;
		} else if ((w->flags & PICL_READ_NO_FAST_PATH) ||
			   !reader_fields_fast(p, n, &rec) || rec.nfields > UINT32_MAX) {
			it->kind = IT_CAREFUL;
		} else {
			it->kind = (uint8_t)classify(w, b, &rec, it);
			if (it->kind == IT_DONE || it->kind == IT_FIELDS)
				pack(it, &rec, p);
			else
				it->nvalues = 0;
		}
		p = next;
	}
	b->nlines = line;
}

/* ------------------------------------------------------------------------ */
/* Workers                                                                   */
/* ------------------------------------------------------------------------ */

static struct batch *free_slot(struct pipeline *pl)
{
	size_t i;

	for (i = 0; i < pl->nslots; i++)
		if (pl->slots[i].state == B_FREE)
			return &pl->slots[i];
	return NULL;
}

/*
 * Under pl->mu: if the input and a slot are free, take the next chunk, read
 * and parse it with the lock released, and mark it ready. Returns with the
 * lock held: 1 if a chunk was done, 0 if there was nothing to take. Workers
 * loop on this; the caller does it too instead of sleeping while the chunk
 * it needs is not ready, so no core idles and none is oversubscribed.
 */
static int work_one(struct worker *w)
{
	struct pipeline *pl = w->pl;
	struct batch *b = NULL;

	if (!pl->reading && !pl->input_done)
		b = free_slot(pl);
	if (!b)
		return 0;
	b->state = B_BUSY;
	b->seq = pl->next_seq++;
	pl->reading = 1;
	pthread_mutex_unlock(&pl->mu);

	fill_batch(pl, b);

	pthread_mutex_lock(&pl->mu);
	pl->reading = 0;
	if (b->eof || b->fatal || b->handoff || b->nomem)
		pl->input_done = 1;
	b->table = pl->table;
	b->table->refs++;
	pthread_cond_broadcast(&pl->work);
	pthread_mutex_unlock(&pl->mu);

	b->n = 0;
	b->nlines = 0;
	if (!b->handoff && !b->nomem)
		parse_batch(w, b);

	pthread_mutex_lock(&pl->mu);
	b->state = B_READY;
	pthread_cond_broadcast(&pl->ready);
	return 1;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct pipeline *pl = w->pl;

	pthread_mutex_lock(&pl->mu);
	while (!pl->stop)
		if (!work_one(w))
			pthread_cond_wait(&pl->work, &pl->mu);
	pthread_mutex_unlock(&pl->mu);
	return NULL;
}

/* Zeroed memory starting on a cache line. */
static void *zalloc_lines(size_t size)
{
	size_t n = (size + LINE - 1) / LINE * LINE;
	void *p = aligned_alloc(LINE, n);

	if (p)
		memset(p, 0, n);
	return p;
}

/* The CPUs this process may run on: its affinity mask (taskset, a batch
 * system's cpuset), not every CPU online, so that a job given one CPU of
 * a large node does not start a thread per core of the node on it. */
static long usable_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		return CPU_COUNT(&set);
	return sysconf(_SC_NPROCESSORS_ONLN);   /* more CPUs than CPU_SETSIZE */
}

size_t picl_reader_threads(void)
{
	const char *env = getenv("PICL_THREADS");
	long n;

	n = 0;
	if (env && *env) {
		char *end;

		errno = 0;
		n = strtol(env, &end, 10);
		/* not a whole number from 1 up ("bogus", "0", "2x"): the
		 * default, as an unset one (picltrace says so; reading
		 * serially instead was a silent slowdown) */
		if (*end != '\0' || errno || n < 1 || *env < '0' || *env > '9')
			n = 0;
	}
	if (n == 0)
		n = usable_cpus();
	if (n > MAX_THREADS)
		n = MAX_THREADS;
	return n < 1 ? 1 : (size_t)n;
}

static void stop_workers(struct pipeline *pl)
{
	size_t i;

	pthread_mutex_lock(&pl->mu);
	pl->stop = 1;
	pthread_cond_broadcast(&pl->work);
	pthread_mutex_unlock(&pl->mu);
	for (i = 0; i < pl->nworkers; i++)
		pthread_join(pl->workers[i].tid, NULL);
	pl->nworkers = 0;
}

static void free_pipeline(struct pipeline *pl)
{
	size_t i;

	if (!pl)
		return;
	stop_workers(pl);
	for (i = 0; i < pl->nslots; i++) {
		struct batch *b = &pl->slots[i];

		free(b->buf);
		free(b->items);
		free(b->vals);
		if (b->state != B_FREE && b->table)
			table_unref(b->table);
	}
	if (pl->workers)
		for (i = 0; i <= MAX_THREADS; i++)
			picl_defs_free(pl->workers[i].ctrl);
	table_unref(pl->table);
	free(pl->slots);
	free(pl->workers);
	free(pl->carry);
	pthread_mutex_destroy(&pl->mu);
	pthread_cond_destroy(&pl->work);
	pthread_cond_destroy(&pl->ready);
	free(pl);
}

int pipe_start(struct picl_reader *r)
{
	size_t n = picl_reader_threads(), i;
	struct pipeline *pl;
	sigset_t all, old;

	/* Items keep 32-bit offsets into a chunk, which never outgrows r->cap. */
	if (n < 2 || r->cap > UINT32_MAX / 2)
		return -1;
	pl = zalloc_lines(sizeof(*pl));
	if (!pl)
		return -1;
	pthread_mutex_init(&pl->mu, NULL);
	pthread_cond_init(&pl->work, NULL);
	pthread_cond_init(&pl->ready, NULL);
	pl->in = r->in;
	pl->chunk = r->chunk < PIPE_CHUNK ? r->chunk : PIPE_CHUNK;
	pl->limit = r->cap;
	/* n parsing threads: n - 1 workers and the caller (workers[MAX_THREADS],
	 * which parses while the chunk it needs is not ready). Slots: one per
	 * thread parsing, the caller's current chunk, one to spare. */
	pl->nslots = n + 2;
	pl->slots = zalloc_lines(pl->nslots * sizeof(*pl->slots));
	pl->workers = zalloc_lines((MAX_THREADS + 1) * sizeof(*pl->workers));
	pl->table = make_table(r);
	if (!pl->slots || !pl->workers || !pl->table)
		goto fail;
	for (i = 0; i <= MAX_THREADS; i++) {
		if (i + 1 >= n && i != MAX_THREADS)
			continue;
		pl->workers[i].pl = pl;
		pl->workers[i].flags = r->flags;
		pl->workers[i].vec = r->vec;
		pl->workers[i].max_record = r->max_record;
		pl->workers[i].ctrl = picl_defs_new();
		if (!pl->workers[i].ctrl)
			goto fail;
	}
	/* Signals go to the caller's threads, never to ours. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (i = 0; i + 1 < n; i++) {
		if (pthread_create(&pl->workers[i].tid, NULL, worker_main, &pl->workers[i]) != 0)
			break;
		pl->nworkers++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (pl->nworkers == 0)
		goto fail;
	r->pipe = pl;
	r->pipe_state = PIPE_RUNNING;
	return 0;
fail:
	free_pipeline(pl);
	return -1;
}

void pipe_free(struct picl_reader *r)
{
	free_pipeline(r->pipe);
	r->pipe = NULL;
}

/* ------------------------------------------------------------------------ */
/* The caller's side                                                         */
/* ------------------------------------------------------------------------ */

/* Done with the current chunk: give it back, and let the workers use the
 * caller's newest definitions from now on. */
static int release_current(struct picl_reader *r, struct pipeline *pl)
{
	struct batch *b = pl->c.cur;
	struct table *fresh = NULL;

	if (picl_defs_generation(r->defs) != pl->table->gen) {
		fresh = make_table(r);
		if (!fresh)
			return -1;
	}
	pl->c.line_base += b->nlines;  /* before b is given back */
	pthread_mutex_lock(&pl->mu);
	table_unref(b->table);
	b->table = NULL;
	b->state = B_FREE;
	if (fresh) {
		table_unref(pl->table);
		pl->table = fresh;
	}
	pthread_cond_broadcast(&pl->work);
	pthread_mutex_unlock(&pl->mu);
	pl->c.want++;
	pl->c.cur = NULL;
	return 0;
}

static struct batch *wait_next(struct pipeline *pl)
{
	struct batch *b = NULL;

	pthread_mutex_lock(&pl->mu);
	for (;;) {
		size_t i;

		for (i = 0; i < pl->nslots; i++)
			if (pl->slots[i].state == B_READY && pl->slots[i].seq == pl->c.want)
				b = &pl->slots[i];
		if (b)
			break;
		if (!work_one(&pl->workers[MAX_THREADS]))
			pthread_cond_wait(&pl->ready, &pl->mu);
	}
	pthread_mutex_unlock(&pl->mu);
	return b;
}

static int out_of_memory(struct picl_reader *r)
{
	r->err.code = PICL_ERR_NOMEM;
	r->err.sys_errno = 0;
	snprintf(r->err.problem, sizeof(r->err.problem), "out of memory");
	r->fatal = 1;
	return PICL_ERR_NOMEM;
}

/* The serial reader takes over at the start of chunk b. */
static int hand_off(struct picl_reader *r, struct pipeline *pl, struct batch *b)
{
	int rc;

	stop_workers(pl);
	rc = reader_resume_serial(r, b->buf, b->len, b->base, pl->c.line_base, b->eof);
	free_pipeline(pl);
	r->pipe = NULL;
	r->pipe_state = PIPE_DONE;
	return rc < 0 ? out_of_memory(r) : PIPE_SERIAL;
}

int pipe_next(struct picl_reader *r, struct picl_record *rec)
{
	struct pipeline *pl = r->pipe;

	for (;;) {
		struct batch *b = pl->c.cur;
		const struct item *it;
		const char *text;
		uint64_t line, offset;

		if (!b) {
			b = pl->c.cur = wait_next(pl);
			pl->c.pos = 0;
			pl->c.vpos = 0;
			if (b->handoff)
				return hand_off(r, pl, b);
		}
		if (pl->c.pos == b->n) {
			if (b->nomem)
				return out_of_memory(r);
			if (b->fatal) {
				r->err = b->err;
				r->err.path = r->path;
				r->err.mark.line = pl->c.line_base + b->nlines + 1;
				/* after the partial line's bytes, as the serial reader */
				r->err.mark.column = b->fatal_at - (b->base + b->len) + 1;
				r->err.mark.offset = b->fatal_at;
				r->fatal = 1;
				/* consumed: every whole line, the skipped ones
				 * after the last record included, and a last
				 * partial line too if it was over max_record
				 * (the serial reader was skipping it) */
				r->pipe_offset = b->fatal_tail > r->max_record ?
						 b->fatal_at : b->base + b->len;
				return r->err.code;
			}
			if (b->eof) {
				r->pipe_offset = b->base + b->len;
				return PICL_END;
			}
			if (release_current(r, pl) < 0)
				return out_of_memory(r);
			continue;
		}
		it = &b->items[pl->c.pos++];
		text = b->buf + it->line_off;
		line = pl->c.line_base + it->line;
		offset = b->base + it->line_off;
		r->pipe_offset = offset + it->line_len + it->eol;
		switch (it->kind) {
		case IT_TOOLONG:
			return reader_too_long(r, line, offset);
		case IT_JOIN: {
			const char *joined;
			size_t len;
			int rc = reader_join_span(r, text, it->line_len, line, offset, &joined, &len);

			if (rc < 0)
				return rc;
			r->text = joined;
			return reader_parse_text(r, joined, len, rec);
		}
		case IT_CAREFUL:
			r->text = text;
			r->joined = 0;
			r->text_line = line;
			r->text_offset = offset;
			return reader_parse_text(r, text, it->line_len, rec);
		default:
			break;
		}
		rec->type = it->type;
		rec->event = it->event;
		rec->time.mant = it->mant;
		rec->time.scale = it->scale;
		rec->processor = it->processor;
		rec->process = it->process;
		rec->nfields = it->nfields;
		rec->has_descriptor = it->has_descriptor;
		rec->alias = it->alias;
		rec->data = text + it->data_off;
		rec->data_len = it->line_len - it->data_off;
		rec->control = NULL;
		rec->control_len = 0;
		if (it->has_descriptor && it->alias < 0) {
			rec->control = rec->data - 1 - it->ctrl_len;
			rec->control_len = it->ctrl_len;
		}
		rec->desc = it->desc;
		rec->nvalues = it->nvalues;
		rec->values = it->nvalues ? b->vals + pl->c.vpos : NULL;
		pl->c.vpos += it->nvalues;
		rec->line = text;
		rec->line_len = it->line_len;
		rec->mark.line = line;
		rec->mark.column = 1;
		rec->mark.offset = offset;
		r->text = text;
		r->joined = 0;
		r->text_line = line;
		r->text_offset = offset;
		if (it->kind == IT_FIELDS ||
		    (it->by_table && b->table->gen != picl_defs_generation(r->defs) &&
		     picl_defs_lookup_alias(r->defs, rec->alias, rec->event, rec->processor,
					    rec->process) != rec->desc)) {
			rec->desc = NULL;
			if (!(r->flags & PICL_READ_RAW))
				return reader_decode(r, rec);
			/* decoded ahead with an alias redefined since: raw */
			rec->values = NULL;
			rec->nvalues = 0;
		}
		return PICL_OK;
	}
}
