/*
 * reader.c - the streaming PICL trace reader.
 *
 * Grammar (one record per logical line; DESIGN.md points 1-3):
 *
 *     record     := blank* rtype blank+ etype blank+ time blank+ proc blank+
 *                   process blank+ nfields (blank+ descriptor data)? blank*
 *     descriptor := '"' [^"]* '"' | digits        (a control string or alias)
 *     data       := what the descriptor says, applied nfields times
 *                   (for "%c": one blank, then exactly nfields bytes)
 *     blank      := ' ' | '\t' | '\r' | '\v' | '\f'
 *
 * A physical line whose last byte is '\' after a blank (or alone) continues
 * on the next line: the backslash and the newline are dropped, so
 * "a b \<newline>c" reads as "a b c" (the spec's Table 20 reads verbatim).
 * Blank lines and lines whose first non-blank byte is '#' are skipped.
 * A trailing '\r' (CRLF files) is dropped.
 *
 * How it is fast and bounded: the input is read in large chunks
 * (buffer_size, 1 MiB by default) into one reused buffer; lines are found
 * with memchr; the six fixed fields are parsed by hand into integers and an
 * exact decimal time (no strtod, no scanf, no locale); data are decoded by
 * the compiled descriptor into a reused value array, and not at all in raw
 * mode. Nothing is allocated per record. A record longer than max_record
 * is an error (PICL_ERR_TOOLONG), skipped to its end, so memory stays at
 * about buffer_size + max_record whatever the input (and about twice
 * buffer_size while records are short: the rest of the buffer is only
 * touched by long records).
 *
 * Errors: a malformed record is reported with the mark of the offending
 * field (line and column of the physical line it is on) and the reader is
 * already past it, so the caller can stop or go on. I/O and decompression
 * errors are fatal and repeat on every later call.
 */
#include "reader-int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_CHUNK (1u << 20)
#define DEFAULT_MAX_RECORD (1u << 20)

static __thread char open_error_path[4096];

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */
/* ------------------------------------------------------------------------ */

/* Where byte q of the record text r->text stood in the input. */
static struct picl_mark mark_of(const struct picl_reader *r, const char *q)
{
	size_t off = (size_t)(q - r->text);
	struct picl_mark m;

	if (r->joined) {
		size_t i = r->nsegs;

		while (i > 1 && r->segs[i - 1].at > off)
			i--;
		m.line = r->segs[i - 1].line;
		m.column = off - r->segs[i - 1].at + 1;
		m.offset = r->segs[i - 1].offset + (off - r->segs[i - 1].at);
	} else {
		m.line = r->text_line;
		m.column = off + 1;
		m.offset = r->text_offset + off;
	}
	return m;
}

/* Point err.mark at byte q of the current record text. */
static void mark_at(struct picl_reader *r, const char *q)
{
	r->err.mark = mark_of(r, q);
}

static int fail_at(struct picl_reader *r, const char *q, int code, const char *fmt, ...)
	PICL_PRINTF(4, 5);

static int fail_at(struct picl_reader *r, const char *q, int code, const char *fmt, ...)
{
	va_list ap;

	mark_at(r, q);
	r->err.code = code;
	r->err.sys_errno = 0;
	if (code == PICL_ERR_NOMEM)
		r->fatal = 1;   /* (ends the reading: picl_reader_error_is_fatal) */
	va_start(ap, fmt);
	vsnprintf(r->err.problem, sizeof(r->err.problem), fmt, ap);
	va_end(ap);
	return code;
}

/* ------------------------------------------------------------------------ */
/* Lines                                                                     */
/* ------------------------------------------------------------------------ */

/* Read more input after the unconsumed bytes. 1 if something was read, 0 at
 * the end, < 0 on a (fatal) error. */
static int fill(struct picl_reader *r)
{
	size_t keep = (size_t)(r->end - r->start);
	ssize_t n;

	if (r->start != r->buf) {
		memmove(r->buf, r->start, keep);
		r->base += (uint64_t)(r->start - r->buf);
		r->start = r->buf;
		r->end = r->buf + keep;
	}
	if (keep == r->cap)
		return 0;
	/* buffer_size at a time: the buffer beyond the unconsumed bytes and one
	 * read stays untouched (and out of memory) unless a long record needs
	 * it, so that many readers at once (a merge of many runs or files) cost
	 * about buffer_size each. */
	n = picl_input_read(r->in, r->end,
			    r->cap - keep < r->chunk ? r->cap - keep : r->chunk, &r->err);
	if (n < 0) {
		r->fatal = 1;
		/* where it failed: after the `keep` bytes of the line read so far */
		r->err.mark.line = r->lineno + 1;
		r->err.mark.column = keep + 1;
		r->err.mark.offset = r->base + keep;
		return (int)n;
	}
	if (n == 0) {
		r->eof = 1;
		*r->end = '\n';
		return 0;
	}
	r->end += n;
	*r->end = '\n';  /* the fast path's sentinel (reader_fields_fast) */
	return 1;
}

/* The last (up to) three bytes of a line seen so far, in tail[0..nt),
 * after n more bytes s[0..n) of it. Returns the new nt. */
static size_t keep_tail(char tail[3], size_t nt, const char *s, size_t n)
{
	size_t i;

	if (n >= 3) {
		memcpy(tail, s + n - 3, 3);
		return 3;
	}
	for (i = 0; i < n; i++) {
		if (nt == 3) {
			tail[0] = tail[1];
			tail[1] = tail[2];
			nt = 2;
		}
		tail[nt++] = s[i];
	}
	return nt;
}

/*
 * The next physical line (without its newline or a trailing '\r').
 * Returns 1 with *line, *len and *offset set, 0 at the end of input, or < 0:
 * PICL_ERR_TOOLONG for a line over max_record, skipped, with r->long_more
 * set if it continues (then its record's other lines are to be skipped).
 */
static int next_line(struct picl_reader *r, const char **line, size_t *len,
		     uint64_t *offset)
{
	for (;;) {
		char *nl = memchr(r->start, '\n', (size_t)(r->end - r->start));
		size_t n;

		if (nl || (r->eof && r->start < r->end)) {
			char *e = nl ? nl : r->end;

			*line = r->start;
			*offset = r->base + (uint64_t)(r->start - r->buf);
			n = (size_t)(e - r->start);
			if (n > 0 && e[-1] == '\r')
				n--;
			*len = n;
			r->start = nl ? nl + 1 : r->end;
			r->lineno++;
			if (n > r->max_record) {
				r->long_more = reader_continues(*line, n);
				goto report;
			}
			return 1;
		}
		if (r->eof)
			return 0;
		if (reader_partial_len(r->start, (size_t)(r->end - r->start)) >
		    r->max_record)
			break;  /* over the limit without its newline */
		{
			int rc = fill(r);

			if (rc < 0)
				return rc;
		}
	}
	/* Longer than max_record and still no newline: skip to its end,
	 * keeping its last three bytes (whether it continues: a '\r' and the
	 * two before it). */
	*offset = r->base + (uint64_t)(r->start - r->buf);
	r->lineno++;
	{
		char tail[3];
		size_t nt = 0;

		for (;;) {
			char *nl;
			int rc;

			nt = keep_tail(tail, nt, r->start, (size_t)(r->end - r->start));
			r->start = r->end;
			rc = fill(r);
			if (rc < 0) {
				/* inside the line being skipped, which lineno counts */
				r->err.mark.line = r->lineno;
				r->err.mark.column = r->err.mark.offset - *offset + 1;
				return rc;
			}
			nl = memchr(r->start, '\n', (size_t)(r->end - r->start));
			if (nl) {
				nt = keep_tail(tail, nt, r->start, (size_t)(nl - r->start));
				r->start = nl + 1;
				break;
			}
			if (rc == 0)
				break;
		}
		if (nt > 0 && tail[nt - 1] == '\r')
			nt--;
		r->long_more = reader_continues(tail, nt);
	}
report:
	return reader_too_long(r, r->lineno, *offset);
}

int reader_too_long(struct picl_reader *r, uint64_t line, uint64_t offset)
{
	r->err.code = PICL_ERR_TOOLONG;
	r->err.sys_errno = 0;
	r->err.mark.line = line;
	r->err.mark.column = 1;
	r->err.mark.offset = offset;
	snprintf(r->err.problem, sizeof(r->err.problem),
		 "record longer than %zu bytes (the reader's limit)", r->max_record);
	return PICL_ERR_TOOLONG;
}

static int join_append(struct picl_reader *r, const char *s, size_t n,
		       uint64_t line, uint64_t offset)
{
	if (r->nsegs == r->segs_cap) {
		size_t ncap = r->segs_cap ? r->segs_cap * 2 : 8;
		struct segment *p = realloc(r->segs, ncap * sizeof(*p));

		if (!p)
			return PICL_ERR_NOMEM;
		r->segs = p;
		r->segs_cap = ncap;
	}
	r->segs[r->nsegs].at = r->join_len;
	r->segs[r->nsegs].line = line;
	r->segs[r->nsegs].offset = offset;
	r->nsegs++;
	return picl_buf_append(&r->join, &r->join_len, &r->join_cap, s, n);
}

/*
 * After a record found too long (the error reported): skip the rest of it,
 * the lines that continue it, if `more`, lines over the limit included.
 * Returns PICL_ERR_TOOLONG with that report kept, or the input's failure
 * inside the rest (as the parsing threads report it too).
 */
static int skip_rest(struct picl_reader *r, int more)
{
	struct picl_error keep = r->err;
	const char *line;
	size_t n;
	uint64_t off;

	while (more) {
		int rc = next_line(r, &line, &n, &off);

		if (rc == PICL_ERR_TOOLONG)
			more = r->long_more;
		else if (rc > 0)
			more = reader_continues(line, n);
		else if (rc < 0)
			return rc;
		else
			break;
	}
	r->err = keep;
	return PICL_ERR_TOOLONG;
}

/*
 * The next logical record text: a physical line, or several joined by
 * continuation. Skips blank and comment lines. 1, 0 at the end, or < 0.
 * A record with a line over max_record is reported at that line, one
 * whose joined text is over it at its first line; either way the whole
 * record is skipped.
 */
static int next_text(struct picl_reader *r, const char **text, size_t *len)
{
	const char *line;
	size_t n, i;
	uint64_t off;
	int rc;

	for (;;) {
		rc = next_line(r, &line, &n, &off);
		if (rc == PICL_ERR_TOOLONG)
			return skip_rest(r, r->long_more);
		if (rc <= 0)
			return rc;
		for (i = 0; i < n && picl_is_blank((unsigned char)line[i]); i++)
			;
		if (i < n && line[i] != '#')
			break;
	}
	r->joined = 0;
	r->text_line = r->lineno;
	r->text_offset = off;
	if (PICL_LIKELY(!reader_continues(line, n))) {
		*text = line;
		*len = n;
		return 1;
	}
	r->joined = 1;
	r->join_len = 0;
	r->nsegs = 0;
	for (;;) {
		int more = reader_continues(line, n);

		if (join_append(r, line, more ? n - 1 : n, r->lineno, off) < 0) {
			r->err.code = PICL_ERR_NOMEM;
			snprintf(r->err.problem, sizeof(r->err.problem), "out of memory");
			r->fatal = 1;
			return PICL_ERR_NOMEM;
		}
		if (r->join_len > r->max_record) {
			r->err.code = PICL_ERR_TOOLONG;
			r->err.mark.line = r->text_line;
			r->err.mark.column = 1;
			r->err.mark.offset = r->text_offset;
			snprintf(r->err.problem, sizeof(r->err.problem),
				 "record longer than %zu bytes (the reader's limit)",
				 r->max_record);
			/* (a line over the limit in the rest must not replace
			 * this report: the parsing threads report the record
			 * at its first line too, as fuzz-parallel found) */
			return skip_rest(r, more);
		}
		if (!more)
			break;
		rc = next_line(r, &line, &n, &off);
		if (rc == PICL_ERR_TOOLONG)
			return skip_rest(r, r->long_more);
		if (rc < 0)
			return rc;
		if (rc == 0)
			break;  /* a continuation at the very end: take what we have */
	}
	*text = r->join;
	*len = r->join_len;
	return 1;
}

int reader_join_span(struct picl_reader *r, const char *span, size_t len,
		     uint64_t line, uint64_t offset, const char **text, size_t *tlen)
{
	const char *p = span, *e = span + len;

	r->joined = 1;
	r->join_len = 0;
	r->nsegs = 0;
	r->text_line = line;
	r->text_offset = offset;
	while (p < e) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		const char *le = nl ? nl : e;
		size_t n = (size_t)(le - p);
		int more;

		if (n > 0 && le[-1] == '\r')
			n--;
		more = reader_continues(p, n);
		if (join_append(r, p, more ? n - 1 : n, line, offset + (uint64_t)(p - span)) < 0) {
			r->err.code = PICL_ERR_NOMEM;
			snprintf(r->err.problem, sizeof(r->err.problem), "out of memory");
			r->fatal = 1;
			return PICL_ERR_NOMEM;
		}
		if (r->join_len > r->max_record)
			return reader_too_long(r, r->text_line, r->text_offset);
		line++;
		p = nl ? nl + 1 : e;
		if (!more)
			break;
	}
	*text = r->join;
	*tlen = r->join_len;
	return 1;
}

/* ------------------------------------------------------------------------ */
/* Fields                                                                    */
/* ------------------------------------------------------------------------ */

static const char *skip_blanks(const char *p, const char *e)
{
	while (p < e && picl_is_blank((unsigned char)*p))
		p++;
	return p;
}

static const char *token_end(const char *p, const char *e)
{
	while (p < e && !picl_is_blank((unsigned char)*p))
		p++;
	return p;
}

static int bad_token(struct picl_reader *r, const char *p, const char *e, int code,
		     const char *what)
{
	char q[64];
	const char *t = token_end(p, e);

	if (p == e)
		return fail_at(r, p, PICL_ERR_SYNTAX,
			       "the record ends early: expected %s", what);
	picl_quote(p, (size_t)(t - p), 24, q, sizeof(q));
	if (code == PICL_ERR_RANGE)
		return fail_at(r, p, code, "%s \"%s\" is out of range", what, q);
	return fail_at(r, p, code, "expected %s, found \"%s\"", what, q);
}

/* Parse an integer field in [lo, hi] at *pp, moving *pp past it. */
static int int_field(struct picl_reader *r, const char **pp, const char *e,
		     int64_t lo, int64_t hi, int64_t *out, const char *what)
{
	const char *p = skip_blanks(*pp, e), *q = p;
	uint64_t acc = 0;
	int neg = 0;

	if (q < e && (*q == '-' || *q == '+'))
		neg = *q++ == '-';
	if (q == e || !picl_is_digit((unsigned char)*q))
		return bad_token(r, p, e, PICL_ERR_SYNTAX, what);
	for (; q < e && picl_is_digit((unsigned char)*q); q++) {
		if (acc > (UINT64_MAX - 9) / 10)
			return bad_token(r, p, e, PICL_ERR_RANGE, what);
		acc = acc * 10 + (uint64_t)(*q - '0');
	}
	if (q < e && !picl_is_blank((unsigned char)*q))
		return bad_token(r, p, e, PICL_ERR_SYNTAX, what);
	if (neg ? acc > (lo < 0 ? (uint64_t)(-(lo + 1)) + 1 : 0) : acc > (uint64_t)hi)
		return bad_token(r, p, e, PICL_ERR_RANGE, what);
	*out = neg ? (int64_t)(0 - acc) : (int64_t)acc;
	*pp = q;
	return PICL_OK;
}

/* A field of 32 bits: the record and event types, the processor and process. */
static int int32_field(struct picl_reader *r, const char **pp, const char *e,
		       int32_t *out, const char *what)
{
	int64_t v;
	int rc = int_field(r, pp, e, INT32_MIN, INT32_MAX, &v, what);

	if (rc < 0)
		return rc;
	*out = (int32_t)v;
	return rc;
}

static int time_field(struct picl_reader *r, const char **pp, const char *e,
		      struct picl_time *t)
{
	const char *p = skip_blanks(*pp, e), *q = token_end(p, e);
	size_t bad = 0;
	int rc;

	if (p == q)
		return bad_token(r, p, e, PICL_ERR_SYNTAX, "a timestamp");
	rc = picl_time_parse(p, (size_t)(q - p), t, &bad);
	if (rc == PICL_ERR_RANGE) {
		char s[64];

		picl_quote(p, (size_t)(q - p), 24, s, sizeof(s));
		return fail_at(r, p, rc,
			       "timestamp \"%s\" is out of range (" PICL_TIME_RANGE_TEXT ")", s);
	}
	if (rc < 0)
		return bad_token(r, p, e, PICL_ERR_SYNTAX, "a timestamp (a decimal number)");
	*pp = q;
	return PICL_OK;
}

/* Before the descriptor is read: no alias, control string or values. */
static inline void no_descriptor_yet(struct picl_record *rec)
{
	rec->alias = -1;
	rec->control = NULL;
	rec->control_len = 0;
	rec->desc = NULL;
	rec->values = NULL;
	rec->nvalues = 0;
}

/*
 * The fast path, for records in the canonical shape that writers produce:
 * single blanks between fields, integers of at most 9 digits, a time with
 * at most 18 digits and no exponent. Each helper (reader-int.h) returns
 * where its field ends, or NULL when the field is anything else; then
 * parse_fields reads the record again carefully and reports what is wrong.
 * Both paths give the same record for every line the fast one accepts.
 *
 * The byte after the text (text[len]) must be readable and must not be a
 * digit, a blank, '.' or '"': the reader's buffers end every line with
 * '\n' or '\r' and the input with a '\n' or NUL sentinel, so digit runs
 * need no bound check.
 *
 * 1 if the fixed fields and the descriptor were read the fast way.
 */
int reader_fields_fast(const char *text, size_t len, struct picl_record *rec)
{
	const char *p = text, *e = text + len;
	uint64_t u;

	if (!(p = quick_fixed(p, &rec->type, &rec->event, &rec->time, &rec->processor,
			      &rec->process, &rec->nfields)) || p > e)
		return 0;
	no_descriptor_yet(rec);
	if (rec->nfields == 0) {
		if (p != e)
			return 0;
		rec->has_descriptor = 0;
		rec->data = e;
		rec->data_len = 0;
		return 1;
	}
	if (p == e || *p != ' ' || ++p == e)
		return 0;
	if (*p == '"') {
		const char *q = memchr(p + 1, '"', (size_t)(e - p - 1));

		if (!q || (q + 1 < e && q[1] != ' '))
			return 0;
		rec->control = p + 1;
		rec->control_len = (size_t)(q - p - 1);
		p = q + 1;
	} else {
		if (!(p = fast_digits(p, 10, &u)) || p > e || (p < e && *p != ' '))
			return 0;
		rec->alias = (int64_t)u;
	}
	rec->has_descriptor = 1;
	rec->data = p;
	rec->data_len = (size_t)(e - p);
	return 1;
}

/* What a carriage return in [from, to) suggests, for a message about the
 * unexpected text at `to`: a file whose lines end with CR alone (classic
 * Mac OS) reads as one long line. "" without one. */
static const char *cr_hint(const char *from, const char *to)
{
	return to > from && memchr(from, '\r', (size_t)(to - from))
	       ? " (a carriage return before it ends no line: does the file end its lines "
		 "with CR alone? tr '\\r' '\\n' converts it)"
	       : "";
}

/* The six fixed fields, the descriptor and where the data start. */
static int parse_fields(struct picl_reader *r, const char *text, size_t len,
			struct picl_record *rec)
{
	const char *p = text, *e = text + len;
	int64_t v;
	int rc;

	if ((rc = int32_field(r, &p, e, &rec->type, "an integer record type")) < 0 ||
	    (rc = int32_field(r, &p, e, &rec->event, "an integer event type")) < 0 ||
	    (rc = time_field(r, &p, e, &rec->time)) < 0 ||
	    (rc = int32_field(r, &p, e, &rec->processor, "an integer processor id")) < 0 ||
	    (rc = int32_field(r, &p, e, &rec->process, "an integer process id")) < 0)
		return rc;
	if ((rc = int_field(r, &p, e, 0, INT64_MAX, &v,
			    "the number of data fields (an integer, 0 or more)")) < 0)
		return rc;
	rec->nfields = (uint64_t)v;
	rec->has_descriptor = 0;
	no_descriptor_yet(rec);
	if (rec->nfields == 0) {
		const char *q = skip_blanks(p, e);

		if (q != e) {
			char s[64];

			picl_quote(q, (size_t)(e - q), 24, s, sizeof(s));
			return fail_at(r, q, PICL_ERR_SYNTAX,
				       "unexpected \"%s\" after a record with no data fields%s", s,
				       cr_hint(text, q));
		}
		rec->data = e;
		rec->data_len = 0;
		return PICL_OK;
	}
	p = skip_blanks(p, e);
	if (p == e)
		return fail_at(r, p, PICL_ERR_SYNTAX,
			       "the record ends early: expected a data descriptor for %llu data field%s",
			       (unsigned long long)rec->nfields, rec->nfields == 1 ? "" : "s");
	rec->has_descriptor = 1;
	if (*p == '"') {
		const char *q = memchr(p + 1, '"', (size_t)(e - p - 1));

		if (!q)
			return fail_at(r, p, PICL_ERR_SYNTAX,
				       "unterminated control string (no closing '\"')");
		rec->control = p + 1;
		rec->control_len = (size_t)(q - p - 1);
		p = q + 1;
		if (p < e && !picl_is_blank((unsigned char)*p))
			return fail_at(r, p, PICL_ERR_SYNTAX,
				       "expected a blank after the control string");
	} else {
		if ((rc = int_field(r, &p, e, 0, INT64_MAX, &v,
				    "a data descriptor (a control string in double quotes, or an alias 0 or more)")) < 0)
			return rc;
		rec->alias = v;
	}
	rec->data = p;
	rec->data_len = (size_t)(e - p);
	return PICL_OK;
}

/* ------------------------------------------------------------------------ */
/* Data                                                                      */
/* ------------------------------------------------------------------------ */

static int grow_values(struct picl_reader *r, size_t need)
{
	struct picl_value *v;
	size_t ncap = r->values_cap ? r->values_cap : 64;

	while (ncap < need)
		ncap *= 2;
	v = realloc(r->values, ncap * sizeof(*v));
	if (!v)
		return PICL_ERR_NOMEM;
	r->values = v;
	r->values_cap = ncap;
	return PICL_OK;
}

/* The first byte of the alias field, which ends where rec->data starts. */
static const char *alias_start(const struct picl_record *rec)
{
	const char *p = rec->data, *s = rec->line ? rec->line : rec->data;

	while (p > s && picl_is_blank((unsigned char)p[-1]))
		p--;
	while (p > s && p[-1] >= '0' && p[-1] <= '9')
		p--;
	if (p > s && (p[-1] == '+' || p[-1] == '-'))
		p--;
	return p;
}

/* The first byte of the number of data fields, the field before the
 * descriptor: a message about the count points at the count. */
static const char *count_start(const struct picl_record *rec)
{
	const char *s = rec->line ? rec->line : rec->data;
	const char *p;

	if (rec->alias >= 0)
		p = alias_start(rec);
	else if (rec->line && rec->control > rec->line &&
		 rec->control <= rec->line + rec->line_len)
		p = rec->control - 1;
	else
		return rec->data; /* a control string put elsewhere by the caller */
	while (p > s && picl_is_blank((unsigned char)p[-1]))
		p--;
	while (p > s && p[-1] >= '0' && p[-1] <= '9')
		p--;
	if (p > s && p[-1] == '+')
		p--;
	return p;
}

/*
 * A -6 record's data: an integer alias, then the control string, which may
 * hold blanks when it is in double quotes (we read the quoted form whatever
 * the record's descriptor says, since the spec's "%d%s" cannot carry blanks;
 * see DESIGN.md point 4 and doc/format-decisions.md).
 */
static int decode_alias_def(struct picl_reader *r, struct picl_record *rec)
{
	const char *p = rec->data, *e = rec->data + rec->data_len, *q;
	int64_t v;
	int rc;

	if (rec->nfields != 1)
		return fail_at(r, count_start(rec), PICL_ERR_DATA,
			       "a data descriptor record (-6) has exactly 1 data field, not %llu",
			       (unsigned long long)rec->nfields);
	if (r->values_cap < 2 && grow_values(r, 2) < 0)
		return fail_at(r, p, PICL_ERR_NOMEM, "out of memory");
	p = skip_blanks(p, e);
	q = p;
	if ((rc = int_field(r, &q, e, 0, INT64_MAX, &v, "an alias number (0 or more)")) < 0)
		return rc;
	r->values[0].kind = PICL_VAL_INT;
	r->values[0].v.i = v;
	r->values[0].text = p;
	r->values[0].text_len = (size_t)(q - p);
	p = skip_blanks(q, e);
	if (p == e)
		return fail_at(r, p, PICL_ERR_DATA,
			       "the record ends early: expected the control string of alias %lld",
			       (long long)v);
	if (*p == '"') {
		q = memchr(p + 1, '"', (size_t)(e - p - 1));
		if (!q)
			return fail_at(r, p, PICL_ERR_DATA,
				       "unterminated control string (no closing '\"')");
		q++;
		r->values[1].v.s.ptr = p + 1;
		r->values[1].v.s.len = (size_t)(q - p - 2);
	} else {
		q = token_end(p, e);
		r->values[1].v.s.ptr = p;
		r->values[1].v.s.len = (size_t)(q - p);
	}
	r->values[1].kind = PICL_VAL_STRING;
	r->values[1].text = p;
	r->values[1].text_len = (size_t)(q - p);
	p = skip_blanks(q, e);
	if (p != e)
		return fail_at(r, p, PICL_ERR_DATA, "unexpected text after the control string");
	rec->values = r->values;
	rec->nvalues = 2;
	return PICL_OK;
}

static int resolve(struct picl_reader *r, struct picl_record *rec)
{
	struct picl_error e2; /* filled by the callee on failure only */
	int rc;

	e2.mark.column = 0;
	e2.problem[0] = '\0';
	if (rec->alias < 0) {
		rc = picl_defs_control(r->defs, rec->control, rec->control_len, &rec->desc, &e2);
		if (rc < 0) {
			/* Column within the control string -> within the line. */
			const char *at = rec->control;

			if (e2.mark.column > 0 && e2.mark.column <= rec->control_len + 1)
				at += e2.mark.column - 1;
			return fail_at(r, at, rc, "%s", e2.problem);
		}
		return PICL_OK;
	}
	rec->desc = picl_defs_lookup_alias(r->defs, rec->alias, rec->event,
					   rec->processor, rec->process);
	if (!rec->desc)
		return fail_at(r, alias_start(rec), PICL_ERR_ALIAS,
			       "descriptor alias %lld is not defined for event %d on processor %d, process %d",
			       (long long)rec->alias, (int)rec->event, (int)rec->processor,
			       (int)rec->process);
	return PICL_OK;
}

static int decode(struct picl_reader *r, struct picl_record *rec)
{
	struct picl_error e2; /* filled by the descriptor on failure only */
	size_t nv = 0, cap, used = 0;
	const char *p, *e;
	int rc;

	rec->values = NULL;
	rec->nvalues = 0;
	if (rec->nfields == 0)
		return PICL_OK;
	if (rec->type == PICL_REC_DESCRIPTOR)
		return decode_alias_def(r, rec);
	if (!rec->desc && (rc = resolve(r, rec)) < 0)
		return rc;
	if (picl_descriptor_decode_quick(rec->desc, rec->nfields, rec->data, rec->data_len,
					 r->values, r->values_cap, &nv)) {
		rec->values = r->values;
		rec->nvalues = nv;
		return PICL_OK;
	}
	e2.mark.column = 0;
	e2.problem[0] = '\0';
	for (;;) {
		cap = r->values_cap;
		rc = picl_descriptor_decode(rec->desc, rec->nfields, rec->data, rec->data_len,
					    r->values, &nv, &cap, &used, &e2);
		if (rc != PICL_ERR_NOMEM || cap <= r->values_cap)
			break;
		if (grow_values(r, cap) < 0)
			return fail_at(r, rec->data, PICL_ERR_NOMEM, "out of memory");
	}
	if (rc < 0) {
		const char *at = rec->data;

		if (e2.mark.column > 0 && e2.mark.column <= rec->data_len + 1)
			at += e2.mark.column - 1;
		return fail_at(r, at, rc, "%s", e2.problem);
	}
	e = rec->data + rec->data_len;
	p = skip_blanks(rec->data + used, e);
	if (p != e) {
		char s[64];

		picl_quote(p, (size_t)(e - p), 24, s, sizeof(s));
		return fail_at(r, p, PICL_ERR_DATA,
			       "unexpected \"%s\" after %llu data field%s%s", s,
			       (unsigned long long)rec->nfields, rec->nfields == 1 ? "" : "s",
			       cr_hint(rec->data, p));
	}
	rec->values = r->values;
	rec->nvalues = nv;
	return PICL_OK;
}

/* Bring the per-alias cache of quick_decode and vec_line up to date for
 * alias (< QUICK_ALIASES). */
static void quick_alias(struct picl_reader *r, uint64_t alias)
{
	uint64_t stamp = picl_defs_generation(r->defs) + 1;

	if (r->qgen[alias] != stamp) {
		r->qdesc[alias] = picl_defs_alias_everywhere(r->defs, (int64_t)alias);
		quick_entry(r->qdesc[alias], &r->qnint[alias], &r->qnops[alias], r->qkind[alias]);
		r->qgen[alias] = stamp;
	}
}

/*
 * The serial reader's commonest data, as parallel.c's parse_quick decodes
 * them: an alias below QUICK_ALIASES defined everywhere whose descriptor
 * is integers only, and its values up to the line's end. rec's text must
 * end at a byte that is not a digit or a blank (a line of the reader's
 * buffer, not a joined record). 1 with rec's values filled as decode
 * fills them, or 0 (r->values is then scratch) for anything else.
 */
static int quick_decode(struct picl_reader *r, struct picl_record *rec)
{
	uint64_t alias = (uint64_t)rec->alias;
	size_t n, k;

	if (!rec->has_descriptor || rec->alias < 0 || alias >= QUICK_ALIASES ||
	    rec->nfields > QUICK_VALUES)
		return 0;
	quick_alias(r, alias);
	if (!(k = r->qnint[alias]) || (n = (size_t)rec->nfields * k) > QUICK_VALUES ||
	    (r->values_cap < QUICK_VALUES && grow_values(r, QUICK_VALUES) < 0) ||
	    quick_values(rec->data, n, r->values) != rec->data + rec->data_len)
		return 0;
	rec->desc = r->qdesc[alias];
	rec->values = r->values;
	rec->nvalues = n;
	return 1;
}

/*
 * The whole record at once, where the processor has AVX-512 VBMI2: a line
 * of the reader's buffer (text[len] is its '\n') that linevec_scan reads,
 * made a record by vec_record through the per-alias cache (raw for a raw
 * reader). 1 with rec filled as the other paths fill it (line and mark
 * aside), or 0.
 */
static int vec_line(struct picl_reader *r, const char *text, size_t len,
		    struct picl_record *rec)
{
	struct linevec lv;
	int decode = !(r->flags & PICL_READ_RAW);

	if (!linevec_scan(text, &lv) || lv.len != len)
		return 0;
	if (decode && lv.nfields > 8 && lv.v[7] < QUICK_ALIASES)
		quick_alias(r, lv.v[7]);
	if (decode && r->values_cap < QUICK_VALUES && grow_values(r, QUICK_VALUES) < 0)
		return 0;
	return vec_record(&lv, text, decode, r->qnops, r->qkind, r->qdesc, rec, r->values) >= 0;
}

/* ------------------------------------------------------------------------ */
/* Public                                                                    */
/* ------------------------------------------------------------------------ */

int reader_parse_text(struct picl_reader *r, const char *text, size_t len,
		      struct picl_record *rec)
{
	int rc;

	rec->line = text;
	rec->line_len = len;
	rec->mark.line = r->text_line;
	rec->mark.column = 1;
	rec->mark.offset = r->text_offset;
	if (r->vec && !r->joined && vec_line(r, text, len, rec))
		return PICL_OK;
	if (((r->flags & PICL_READ_NO_FAST_PATH) || r->joined ||
	     !reader_fields_fast(text, len, rec)) &&
	    (rc = parse_fields(r, text, len, rec)) < 0)
		return rc;
	if (reader_is_definition(rec->type) &&
	    (r->flags & (PICL_READ_RAW | PICL_READ_NO_DEFS)) != (PICL_READ_RAW | PICL_READ_NO_DEFS)) {
		if ((rc = decode(r, rec)) < 0)
			return rc;
		if (!(r->flags & PICL_READ_NO_DEFS)) {
			struct picl_error e2 = { 0 };

			rc = picl_defs_apply(r->defs, rec, &e2);
			if (rc < 0)
				return fail_at(r, e2.mark.column ? rec->line + e2.mark.column - 1 :
					       rec->data, rc, "%s", e2.problem);
		}
		return PICL_OK;
	}
	if (r->flags & PICL_READ_RAW)
		return PICL_OK;
	if (!(r->flags & PICL_READ_NO_FAST_PATH) && !r->joined && quick_decode(r, rec))
		return PICL_OK;
	return decode(r, rec);
}

int reader_decode(struct picl_reader *r, struct picl_record *rec)
{
	return decode(r, rec);
}

/* What picl_reader_error gives for a NULL reader (a failed open's). */
static const struct picl_error null_reader_error = {
	PICL_ERR_USAGE, "<input>", { 0, 0, 0 }, "no reader (NULL)", 0
};

/* A NULL record given to a reader: PICL_ERR_USAGE, kept as the reader's
 * error unless a fatal one is there (every later call fails with that). */
static int no_record(struct picl_reader *r, const char *what)
{
	if (r && !r->fatal) {
		r->err.code = PICL_ERR_USAGE;
		r->err.sys_errno = 0;
		memset(&r->err.mark, 0, sizeof(r->err.mark));
		snprintf(r->err.problem, sizeof(r->err.problem), "no record to %s (NULL)", what);
	}
	return PICL_ERR_USAGE;
}

int picl_reader_next(struct picl_reader *r, struct picl_record *rec)
{
	const char *text = NULL;   /* (set when next_text gives 1) */
	size_t len = 0;
	int rc;

	if (PICL_UNLIKELY(!r || !rec))   /* a failed open's NULL, read on */
		return no_record(r, "read into");
	if (r->fatal)
		return r->err.code;
	if (r->pipe_state == PIPE_WANTED && pipe_start(r) < 0)
		r->pipe_state = PIPE_OFF;
	if (r->pipe_state == PIPE_RUNNING) {
		rc = pipe_next(r, rec);
		if (rc != PIPE_SERIAL)
			return rc;
	}
	rc = next_text(r, &text, &len);
	if (rc <= 0) {
		if (rc == 0)
			return PICL_END;
		if (rc != PICL_ERR_TOOLONG)
			r->fatal = 1;
		return rc;
	}
	r->text = text;
	return reader_parse_text(r, text, len, rec);
}

int reader_resume_serial(struct picl_reader *r, const char *bytes, size_t n,
			 uint64_t base, uint64_t lines, int eof)
{
	if (n > r->cap)
		return PICL_ERR_USAGE;  /* cannot happen: parallel.c never holds more */
	memcpy(r->buf, bytes, n);
	r->start = r->buf;
	r->end = r->buf + n;
	*r->end = '\n';
	r->base = base;
	r->lineno = lines;
	r->eof = eof;
	return PICL_OK;
}

int picl_reader_decode(struct picl_reader *r, struct picl_record *rec)
{
	if (!r || !rec)
		return no_record(r, "decode");
	if (rec->line != r->text || !rec->line) {
		/* Not the record just read: its continuation map is gone. A
		 * record a program built (no line, or data elsewhere) gets
		 * marks counted in its data alone. */
		int own = rec->line && rec->data >= rec->line &&
			  rec->data <= rec->line + rec->line_len;

		r->text = own ? rec->line : rec->data;
		r->joined = 0;
		r->text_line = own ? rec->mark.line : 0;
		r->text_offset = own ? rec->mark.offset : 0;
	}
	return decode(r, rec);
}

static void open_failed(const char *name, int rc, struct picl_error *err, int *status);

static struct picl_reader *reader_new(struct picl_input *in, const char *name,
				      const struct picl_reader_options *opts,
				      int *status, struct picl_error *err)
{
	struct picl_reader *r = calloc(1, sizeof(*r));

	if (!r)
		goto nomem;
	r->in = in;
	r->flags = opts ? opts->flags : 0;
	r->max_record = opts && opts->max_record ? opts->max_record : DEFAULT_MAX_RECORD;
	r->chunk = opts && opts->buffer_size ? opts->buffer_size : DEFAULT_CHUNK;
	/* a buffer that cannot exist (the sum would wrap around: a small
	 * buffer, and a line longer than it read for ever) */
	if (r->chunk > SIZE_MAX - 65 || r->max_record > SIZE_MAX - 65 - r->chunk)
		goto nomem;
	r->cap = r->chunk + r->max_record + 1;
	/* zeroed padding after the data: the fast paths may read ahead */
	r->buf = calloc(1, r->cap + 64);
	r->path = strdup(name);
	r->defs = picl_defs_new();
	if (!r->buf || !r->path || !r->defs)
		goto nomem;
	r->start = r->end = r->buf;
	r->err.path = r->path;
	r->vec = !(r->flags & PICL_READ_NO_FAST_PATH) && linevec_available();
	if ((r->flags & PICL_READ_PARALLEL) && picl_input_is_regular(in))
		r->pipe_state = PIPE_WANTED;
	if (status)
		*status = PICL_OK;
	return r;
nomem:
	if (r) {
		r->in = NULL;
		picl_reader_free(r);
	}
	picl_input_free(in);
	picl_set_error(err, PICL_ERR_NOMEM, "out of memory");
	open_failed(name, PICL_ERR_NOMEM, err, status);
	return NULL;
}

static void open_failed(const char *name, int rc, struct picl_error *err, int *status)
{
	if (status)
		*status = rc;
	if (err) {
		/* (no name at all is shown as the shell would write it) */
		snprintf(open_error_path, sizeof(open_error_path), "%s",
			 name && *name ? name : "''");
		err->path = open_error_path;
		err->mark.line = 0;
		err->mark.column = 0;
		err->mark.offset = 0;
	}
}

struct picl_reader *picl_reader_open_fd(int fd, const char *name,
					const struct picl_reader_options *opts,
					int *status, struct picl_error *err)
{
	struct picl_input *in;
	int rc;

	if (!name)
		name = "<input>";
	if (fd < 0) {   /* (the input layer would take it for memory) */
		picl_set_error(err, PICL_ERR_IO, "cannot read: %s", strerror(EBADF));
		if (err)
			err->sys_errno = EBADF;
		open_failed(name, PICL_ERR_IO, err, status);
		return NULL;
	}
	in = picl_input_from_fd(fd, 0, err, &rc);
	if (!in) {
		open_failed(name, rc, err, status);
		return NULL;
	}
	return reader_new(in, name, opts, status, err);
}

struct picl_reader *picl_reader_open_memory(const void *buf, size_t len,
					    const char *name,
					    const struct picl_reader_options *opts,
					    int *status, struct picl_error *err)
{
	struct picl_input *in;
	int rc;

	if (!name)
		name = "<memory>";
	if (!buf && len > 0) {  /* (NULL is the empty input only) */
		picl_set_error(err, PICL_ERR_USAGE, "no buffer (NULL) for %zu bytes", len);
		open_failed(name, PICL_ERR_USAGE, err, status);
		return NULL;
	}
	in = picl_input_from_memory(buf, len, err, &rc);
	if (!in) {
		open_failed(name, rc, err, status);
		return NULL;
	}
	return reader_new(in, name, opts, status, err);
}

struct picl_reader *picl_reader_open(const char *path,
				     const struct picl_reader_options *opts,
				     int *status, struct picl_error *err)
{
	struct picl_input *in;
	int fd, rc;

	if (!path) {
		picl_set_error(err, PICL_ERR_USAGE, "no path to open (NULL)");
		open_failed("<input>", PICL_ERR_USAGE, err, status);
		return NULL;
	}
	if (strcmp(path, "-") == 0)
		return picl_reader_open_fd(0, "<stdin>", opts, status, err);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		picl_set_error(err, PICL_ERR_IO, "cannot open: %s", strerror(e));
		if (err)
			err->sys_errno = e;
		open_failed(path, PICL_ERR_IO, err, status);
		return NULL;
	}
	in = picl_input_from_fd(fd, 1, err, &rc);
	if (!in) {
		close(fd);
		open_failed(path, rc, err, status);
		return NULL;
	}
	return reader_new(in, path, opts, status, err);
}

const struct picl_error *picl_reader_error(const struct picl_reader *r)
{
	return r ? &r->err : &null_reader_error;
}

int picl_reader_error_is_fatal(const struct picl_reader *r)
{
	return r ? r->fatal : 1;   /* every call on NULL fails the same */
}

struct picl_defs *picl_reader_defs(struct picl_reader *r)
{
	return r ? r->defs : NULL;
}

const char *picl_reader_path(const struct picl_reader *r)
{
	return r ? r->path : NULL;
}

int picl_reader_is_compressed(const struct picl_reader *r)
{
	return r ? picl_input_is_compressed(r->in) : 0;
}

void picl_reader_locate(const struct picl_reader *r, const struct picl_record *rec,
			const char *p, struct picl_mark *at)
{
	size_t off;

	if (!at)
		return;
	if (!r || !rec) {
		memset(at, 0, sizeof(*at));   /* unknown */
		return;
	}
	*at = rec->mark;
	if (!rec->line || !p || p < rec->line || p > rec->line + rec->line_len)
		return;
	off = (size_t)(p - rec->line);
	if (r->joined && r->text == rec->line && r->nsegs > 0) {
		*at = mark_of(r, p);  /* the record just read, continued */
		return;
	}
	at->column += off;
	at->offset += off;
}

uint64_t picl_reader_offset(const struct picl_reader *r)
{
	if (!r)
		return 0;
	if (r->pipe_state == PIPE_RUNNING)
		return r->pipe_offset;
	return r->base + (uint64_t)(r->start - r->buf);
}

void picl_reader_free(struct picl_reader *r)
{
	if (!r)
		return;
	pipe_free(r);
	picl_input_free(r->in);
	picl_defs_free(r->defs);
	free(r->buf);
	free(r->path);
	free(r->values);
	free(r->join);
	free(r->segs);
	free(r);
}
