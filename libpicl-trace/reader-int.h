/*
 * reader-int.h - the reader's state, shared by reader.c (the serial reader
 * and everything about one record) and parallel.c (parsing threads that run
 * ahead of the caller with PICL_READ_PARALLEL). Not installed.
 */
#ifndef PICL_READER_INT_H
#define PICL_READER_INT_H

#include "input.h"
#include "linevec.h"
#include "pow10.h"

#if defined(__GNUC__)
#pragma GCC visibility push(hidden)   /* the library's own (internal.h) */
#endif

enum reader_pipe_state {
	PIPE_OFF,      /* serial reading only */
	PIPE_WANTED,   /* PICL_READ_PARALLEL: start at the first record */
	PIPE_RUNNING,  /* records come from parallel.c */
	PIPE_DONE      /* stopped (handed back to the serial reader, or ended) */
};

struct pipeline;

#define QUICK_ALIASES 64   /* the aliases quick_decode resolves by table */
/* The most values the one-pass parsers (parse_quick, quick_decode,
 * vec_decode) decode. */
#define QUICK_VALUES 16

/* Where a physical line starts inside a joined (continued) record. */
struct segment {
	size_t at;           /* offset in the logical record text */
	uint64_t line;       /* its line number */
	uint64_t offset;     /* its byte offset in the input */
};

struct picl_reader {
	struct picl_input *in;
	char *path;
	unsigned flags;
	size_t max_record, chunk;

	char *buf;
	size_t cap;
	char *start, *end;        /* unconsumed input is [start, end) */
	uint64_t base;            /* input offset of buf[0] */
	uint64_t lineno;          /* physical lines consumed so far */
	int eof, fatal;
	int long_more;            /* the last line over max_record continues */

	struct picl_error err;
	struct picl_defs *defs;

	struct picl_value *values;
	size_t values_cap;

	char *join;               /* a record continued over several lines */
	size_t join_len, join_cap;
	struct segment *segs;
	size_t nsegs, segs_cap;

	/* the record being parsed, for error marks */
	const char *text;
	uint64_t text_line, text_offset;
	int joined;

	/* quick_decode's and vec_line's aliases below QUICK_ALIASES
	 * (quick_alias): each descriptor if the alias is defined everywhere,
	 * and quick_int_ops of it, as of the definitions' generation
	 * qgen - 1 */
	uint64_t qgen[QUICK_ALIASES];
	const struct picl_descriptor *qdesc[QUICK_ALIASES];
	uint8_t qnint[QUICK_ALIASES];
	uint8_t qnops[QUICK_ALIASES];   /* ... and picl_descriptor_decfloat_ops */
	uint8_t qkind[QUICK_ALIASES][QUICK_VALUES];   /* of it (vec_decode) */
	int vec;                  /* linevec_available(), and not NO_FAST_PATH */

	/* parsing threads (parallel.c), with PICL_READ_PARALLEL */
	int pipe_state;           /* enum reader_pipe_state */
	struct pipeline *pipe;
	uint64_t pipe_offset;     /* picl_reader_offset while it runs */
};


/*
 * The fast path's field readers (reader_fields_fast, and parallel.c's
 * parse_quick): each returns where its field ends, or NULL when the field
 * is not in the canonical shape. Digit runs are not bounded: the byte
 * after the text must be readable and not a digit (see reader.c).
 */
static inline const char *fast_digits(const char *p, unsigned max, uint64_t *out)
{
	const char *start = p;
	uint64_t acc = 0;
	unsigned d;

	while ((d = (unsigned)(unsigned char)*p - '0') < 10) {
		acc = acc * 10 + d;
		p++;
	}
	if ((size_t)(p - start) - 1 >= max)   /* no digit, or more than max */
		return NULL;
	*out = acc;
	return p;
}

static inline const char *fast_time(const char *p, struct picl_time *t)
{
	int neg = *p == '-';
	const char *start;
	uint64_t mant = 0;   /* unsigned: may wrap before the digit count is checked */
	unsigned d;
	int digits, scale = 0;

	p += neg;
	for (start = p; (d = (unsigned)(unsigned char)*p - '0') < 10; p++)
		mant = mant * 10 + d;
	digits = (int)(p - start);
	if (*p == '.') {
		for (start = ++p; (d = (unsigned)(unsigned char)*p - '0') < 10; p++)
			mant = mant * 10 + d;
		scale = (int)(p - start);
	}
	digits += scale;
	if (digits == 0 || digits > 18)
		return NULL;
	t->mant = neg ? -(int64_t)mant : (int64_t)mant;
	t->scale = scale;
	return p;
}

/* An integer of 1-9 digits (more: NULL, the general path reads it), so
 * no overflow to check. */
static inline const char *quick_int(const char *p, int32_t *out)
{
	uint64_t u;
	int neg = *p == '-';

	if (!(p = fast_digits(p + neg, 9, &u)))
		return NULL;
	*out = neg ? -(int32_t)u : (int32_t)u;
	return p;
}

/*
 * The fixed fields in the fast paths' shape: record type, event type,
 * time, processor and process, then the number of data fields, integers
 * of 1-9 digits (the time as fast_time reads it) each followed by one
 * blank but the last. Returns where the last ends, or NULL.
 */
static inline const char *quick_fixed(const char *p, int32_t *type, int32_t *event,
				      struct picl_time *time, int32_t *processor,
				      int32_t *process, uint64_t *nfields)
{
	if (!(p = quick_int(p, type)) || *p != ' ' ||
	    !(p = quick_int(p + 1, event)) || *p != ' ' ||
	    !(p = fast_time(p + 1, time)) || *p != ' ' ||
	    !(p = quick_int(p + 1, processor)) || *p != ' ' ||
	    !(p = quick_int(p + 1, process)) || *p != ' ')
		return NULL;
	return fast_digits(p + 1, 9, nfields);
}

/* The values per data field the one-pass parsers decode with d: its
 * picl_descriptor_int_ops, or 0 when that is over QUICK_VALUES (no record
 * of it would be theirs), so their alias tables keep it in a byte. */
static inline uint8_t quick_int_ops(const struct picl_descriptor *d)
{
	size_t n = picl_descriptor_int_ops(d);

	return (uint8_t)(n <= QUICK_VALUES ? n : 0);
}

/* What the alias tables of the one-pass parsers keep of an alias's
 * descriptor d (NULL: not the same everywhere): quick_int_ops for
 * parse_quick and quick_decode, and for vec_decode the values per data
 * field decode_quick reads and their kinds. Both readers fill their
 * tables (parallel.c's per chunk, reader.c's per alias) with this. */
static inline void quick_entry(const struct picl_descriptor *d, uint8_t *nint, uint8_t *nops,
			       uint8_t kind[QUICK_VALUES])
{
	*nint = quick_int_ops(d);
	*nops = (uint8_t)picl_descriptor_decfloat_ops(d, kind, QUICK_VALUES);
}

/*
 * n integer values (a descriptor whose conversions are all %d or %ld),
 * each one blank and a decimal of 1-18 digits, maybe negative, into v:
 * what picl_descriptor_decode_quick makes of them. Returns where they end,
 * or NULL for anything else (the caller then decodes the general way).
 */
static inline const char *quick_values(const char *p, size_t n, struct picl_value *v)
{
	struct picl_value *end = v + n;

	for (; v < end; v++) {
		const char *vs, *q;
		uint64_t acc = 0;
		unsigned dv;
		int neg;

		if (*p != ' ')
			return NULL;
		vs = ++p;
		neg = *p == '-';
		for (q = p += neg; (dv = (unsigned)(unsigned char)*p - '0') < 10; p++)
			acc = acc * 10 + dv;
		if ((size_t)(p - q) - 1 >= 18)
			return NULL;
		v->kind = PICL_VAL_INT;
		v->v.i = neg ? -(int64_t)acc : (int64_t)acc;
		v->text = vs;
		v->text_len = (size_t)(p - vs);
	}
	return p;
}

/* 1 if the physical line line[0..len) (no newline, no trailing '\r')
 * continues on the next one: internal.h's picl_line_continues, which sort's
 * mapped input (msort.c) asks too. The serial reader and the parsing
 * threads both decide with this. */
static inline int reader_continues(const char *line, size_t len)
{
	return picl_line_continues(line, len);
}

/* The text bytes among the first n bytes of a line whose newline has not
 * been read yet: all but a last '\r', which a newline may still make part
 * of the line's end. Over max_record, the serial reader skips the line as
 * it reads it; the parsing threads decide with this too. */
static inline size_t reader_partial_len(const char *s, size_t n)
{
	return n - (n > 0 && s[n - 1] == '\r');
}

/* reader.c: the rest of the record once its text is known. r->text,
 * r->text_line, r->text_offset and r->joined must describe `text`. */
int reader_parse_text(struct picl_reader *r, const char *text, size_t len,
		      struct picl_record *rec);
/* reader.c: the fast field parser (1 if it took the record). */
int reader_fields_fast(const char *text, size_t len, struct picl_record *rec);
/* reader.c: decode rec's data with r's definitions (rec->desc may be NULL). */
int reader_decode(struct picl_reader *r, struct picl_record *rec);

#define LV_SIGNED(lv, f) \
	(((lv)->neg >> (f)) & 1 ? -(int64_t)(lv)->v[f] : (int64_t)(lv)->v[f])

/*
 * The fixed fields of a line linevec_scan read, as the fast paths read
 * them (t/unit/test-parallel and fuzz-parallel compare them with the
 * careful path): the scan's fields 0 and 1 (record and event type), 2 and
 * 3 (the time's integer part and decimals: a time without decimals is
 * left to the other paths), 4 and 5 (processor, process) and 6 (number of
 * data fields); no dot elsewhere among them, no '-' on the decimals or
 * the number of data fields, integers of at most 8 digits (parse_quick
 * reads 9 and more), a time of at most 18. The record types that define
 * something are left to the careful path. 1 with rec's type, event, time,
 * processor, process and nfields filled, or 0.
 */
static inline int vec_fixed(const struct linevec *lv, struct picl_record *rec)
{
	uint64_t mant;

	if (lv->nfields < 7 || (lv->dots & 0x7f) != 0x04 || (lv->neg & 0x48) ||
	    (lv->over8 & 0x73) ||
	    ((lv->over8 & 0x0c) &&
	     lv->end[2] - lv->start[2] + lv->end[3] - lv->start[3] > 18))
		return 0;
	rec->type = (int32_t)LV_SIGNED(lv, 0);
	if (reader_is_definition(rec->type))
		return 0;
	rec->event = (int32_t)LV_SIGNED(lv, 1);
	rec->processor = (int32_t)LV_SIGNED(lv, 4);
	rec->process = (int32_t)LV_SIGNED(lv, 5);
	rec->time.scale = lv->end[3] - lv->start[3];
	mant = lv->v[2] * (uint64_t)pow10_tab[rec->time.scale] + lv->v[3];
	rec->time.mant = lv->neg & 4 ? -(int64_t)mant : (int64_t)mant;
	rec->nfields = lv->v[6];
	return 1;
}

/* The descriptor and data of a line whose fixed fields vec_fixed read:
 * none (nfields 0), or the alias (field 7) and what follows it. */
static inline void vec_data(const struct linevec *lv, const char *s, struct picl_record *rec)
{
	rec->has_descriptor = rec->nfields > 0;
	rec->alias = rec->nfields > 0 ? (int64_t)lv->v[7] : -1;
	rec->data = s + lv->end[rec->nfields > 0 ? 7 : 6];
	rec->data_len = (size_t)(s + lv->len - rec->data);
}

/*
 * A line read raw (its data not decoded): vec_fixed, then nothing, or an
 * alias (no sign, no dot, at most 8 digits) and numbers up to the line's
 * end. 1 with rec filled as vec_fixed and vec_data fill it, or 0.
 */
static inline int vec_raw(const struct linevec *lv, const char *s, struct picl_record *rec)
{
	if (!vec_fixed(lv, rec) ||
	    (rec->nfields > 0 ? lv->nfields < 8 || ((lv->dots | lv->neg | lv->over8) & 0x80) :
				lv->nfields != 7))
		return 0;
	vec_data(lv, s, rec);
	return 1;
}

/*
 * A line decoded: vec_fixed, then no data, or an alias below QUICK_ALIASES
 * whose descriptor, by the caller's table (nops[alias] values per data
 * field, of kinds kind[alias][]; 0 for an alias decode_quick does not
 * read or that is not the same everywhere), takes exactly the values that
 * follow: integers, and decimals converted with decode_quick's
 * arithmetic. After the alias come the values, one field each, two for a
 * value with decimals, of up to 16 digits (the scan's limit). Fills rec
 * as vec_fixed and vec_data do (not control, desc, values, line or mark)
 * and v[0..n) (v has room for QUICK_VALUES), and returns n; or -1 for any
 * other line (rec and v then hold scratch).
 */
static inline int vec_decode(const struct linevec *lv, const char *s, const uint8_t *nops,
			     const uint8_t (*kinds)[QUICK_VALUES], struct picl_record *rec,
			     struct picl_value *v)
{
	static const double dpow10[17] = {
		1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13,
		1e14, 1e15, 1e16
	};
	const uint8_t *kind;
	uint64_t nf, alias;
	unsigned n, i, f, op, k;
	int bad;

	/* the alias, if any: no sign, no dot, at most 8 digits */
	if (lv->nfields == 8 || ((lv->dots | lv->neg | lv->over8) & 0x80) || !vec_fixed(lv, rec))
		return -1;
	/*
	 * The values come out of the vector unit late; a branch on them that
	 * the processor guesses wrong throws away all the work after it. So
	 * the control flow follows the masks (known early), and whether the
	 * values agree with them is one test, which is as good as never
	 * taken.
	 */
	n = lv->nfields > 8 ? lv->nfields - 8 - (lv->ndots - 1) : 0;   /* the time's dot aside */
	nf = rec->nfields;
	alias = n ? lv->v[7] : 0;
	k = alias < QUICK_ALIASES ? nops[alias] : 0;
	bad = n ? (alias >= QUICK_ALIASES) | (nf > QUICK_VALUES) | (nf * k != n) : nf != 0;
	if (bad || n > QUICK_VALUES)
		return -1;
	kind = kinds[alias];
	for (i = 0, op = 0, f = 8; i < n; i++, v++) {
		unsigned neg = (lv->neg >> f) & 1, dot = (lv->dots >> f) & 1, last = f + dot;

		v->kind = (enum picl_value_kind)kind[op];
		v->text = s + lv->start[f] - neg;
		v->text_len = (size_t)(lv->end[last] - lv->start[f] + neg);
		if (kind[op] == PICL_VAL_INT) {
			if (dot)
				return -1;
			v->v.i = LV_SIGNED(lv, f);
		} else {
			/* decode_quick's arithmetic, to the bit (it takes at
			 * most 19 digits, then at most 2^53) */
			unsigned frac = dot ? (unsigned)(lv->end[last] - lv->start[last]) : 0;
			uint64_t acc;
			double x;

			if (dot && lv->end[f] - lv->start[f] + frac > 19)
				return -1;
			acc = dot ? lv->v[f] * (uint64_t)pow10_tab[frac] + lv->v[last] : lv->v[f];
			if (acc > (UINT64_C(1) << 53))
				return -1;
			x = (double)acc;
			if (frac)
				x /= dpow10[frac];
			v->v.d = neg ? -x : x;
		}
		f = last + 1;
		op = op + 1 == k ? 0 : op + 1;
	}
	if (f != lv->nfields && n)
		return -1;   /* a value with two dots ("1.2.3") */
	vec_data(lv, s, rec);
	return (int)n;
}

/*
 * The record of a line linevec_scan read: vec_raw when not decoding, else
 * vec_decode through the alias table (nops, kinds, and desc[alias], the
 * descriptor it stands for), values into v. rec's control, desc, values
 * (v, or NULL without values) and nvalues are set too; line and mark are
 * the caller's. Returns the number of values, or -1 for a line the other
 * paths must read.
 */
static inline int vec_record(const struct linevec *lv, const char *s, int decode,
			     const uint8_t *nops, const uint8_t (*kinds)[QUICK_VALUES],
			     const struct picl_descriptor *const *desc, struct picl_record *rec,
			     struct picl_value *v)
{
	int n = 0;

	if (decode ? (n = vec_decode(lv, s, nops, kinds, rec, v)) < 0 : !vec_raw(lv, s, rec))
		return -1;
	rec->control = NULL;
	rec->control_len = 0;
	rec->desc = n > 0 ? desc[rec->alias] : NULL;
	rec->values = n > 0 ? v : NULL;
	rec->nvalues = (size_t)n;
	return n;
}

/* reader.c: join the physical lines of a continued record held in
 * span[0..len) (newlines included; the first line is `line`, at input
 * offset `offset`) into r->join, and point r->text at it. 1, or < 0 with
 * r->err set (PICL_ERR_TOOLONG, PICL_ERR_NOMEM). */
int reader_join_span(struct picl_reader *r, const char *span, size_t len,
		     uint64_t line, uint64_t offset, const char **text, size_t *tlen);
/* reader.c: a record longer than max_record at (line, offset). */
int reader_too_long(struct picl_reader *r, uint64_t line, uint64_t offset);
/* reader.c: go on serially with bytes[0..n), which start at input offset
 * `base` after `lines` physical lines; `eof` if the input ends after them. */
int reader_resume_serial(struct picl_reader *r, const char *bytes, size_t n,
			 uint64_t base, uint64_t lines, int eof);

/* parallel.c */
int pipe_start(struct picl_reader *r);          /* 0, or -1: stay serial */
int pipe_next(struct picl_reader *r, struct picl_record *rec);
void pipe_free(struct picl_reader *r);
/* pipe_next's answer when the serial reader must take over */
#define PIPE_SERIAL 1000

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif /* PICL_READER_INT_H */
