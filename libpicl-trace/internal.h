/*
 * internal.h - helpers shared by the files of libpicl-trace, not installed.
 *
 * Error reporting: every module fills a struct picl_error through
 * picl_set_error(), whose format string is always a constant of ours; text
 * that came from a trace is only ever passed as an argument ("%.*s"), and
 * picl_quote() makes such text printable and short first.
 */
#ifndef PICL_INTERNAL_H
#define PICL_INTERNAL_H

#include "picl-trace.h"

#include <stdarg.h>
#include <string.h>

#if defined(__GNUC__)
#define PICL_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define PICL_LIKELY(x) __builtin_expect(!!(x), 1)
#define PICL_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define PICL_PRINTF(a, b)
#define PICL_LIKELY(x) (x)
#define PICL_UNLIKELY(x) (x)
#endif

/* Everything declared here is the library's own: hidden from its users
 * (not exported, and called without the PLT). */
#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif

/*
 * Set err (if not NULL) to code and a formatted problem text; the mark and
 * path are left as they are. Returns code, so callers can write
 * `return picl_set_error(err, PICL_ERR_DATA, "...", ...);`.
 */
int picl_set_error(struct picl_error *err, int code, const char *fmt, ...)
	PICL_PRINTF(3, 4);

/*
 * Copy at most `max` bytes of s[0..len) into out (size outsize) so that it
 * can be shown in a message: control and non-ASCII bytes become \xNN, '"'
 * and '\\' are escaped, and "..." is appended when cut. Returns out.
 */
char *picl_quote(const char *s, size_t len, size_t max, char *out, size_t outsize);

/* Parse a decimal integer s[0..len) (optional sign) into *v, exactly.
 * Returns PICL_OK, PICL_ERR_SYNTAX or PICL_ERR_RANGE. */
int picl_parse_i64(const char *s, size_t len, int64_t *v);

/* Write v in decimal into buf (>= 24 bytes); returns the length (no NUL). */
size_t picl_format_i64(int64_t v, char *buf);
size_t picl_format_u64(uint64_t v, char *buf);

/* Write d in the shortest decimal form that reads back as the same double
 * (buf >= 32 bytes); returns the length (no NUL). */
size_t picl_format_double(double d, char *buf);

/* Make the growable buffer (*buf, *cap) hold at least need bytes.
 * PICL_OK or PICL_ERR_NOMEM. */
int picl_buf_grow(char **buf, size_t *cap, size_t need);

/* Append n bytes to the growable buffer (*buf, *len, *cap), keeping a NUL
 * after them. PICL_OK or PICL_ERR_NOMEM. Inline: the writer appends a few
 * pieces per record, and the call was a sixth of its time. */
static inline int picl_buf_append(char **buf, size_t *len, size_t *cap, const char *s,
				  size_t n)
{
	if (PICL_UNLIKELY(*len + n + 1 > *cap) && picl_buf_grow(buf, cap, *len + n + 1) < 0)
		return PICL_ERR_NOMEM;
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
	return PICL_OK;
}

/*
 * What the reader's parsing threads need from a struct picl_defs (defs.c).
 * picl_defs_generation changes with every definition; an alias "everywhere"
 * is a predefined one nobody redefined, or one only ever defined for every
 * (event, processor, process): its descriptor, else NULL (the full scoped
 * look-up is then needed). picl_defs_is_scratch: d lives only until the next
 * uncached control string (the cache is full), so it must not be kept.
 */
uint64_t picl_defs_generation(const struct picl_defs *defs);
const struct picl_descriptor *picl_defs_alias_everywhere(struct picl_defs *defs, int64_t alias);
int picl_defs_is_scratch(const struct picl_defs *defs, const struct picl_descriptor *d);

/* descriptor.c: the reader's shortcut for decimal-only descriptors; 1 when
 * it decoded everything (and only blanks follow), 0 to use
 * picl_descriptor_decode instead. */
int picl_descriptor_decode_quick(const struct picl_descriptor *d, uint64_t nfields,
				 const char *text, size_t len, struct picl_value *values,
				 size_t cap, size_t *nvalues);
/* descriptor.c: the values per data field when every conversion of d is a
 * plain signed decimal ("%d", "%d%ld"), which the parsing threads decode
 * in their one-pass parser (parallel.c, parse_quick) as decode_quick
 * would; 0 for any other descriptor. */
size_t picl_descriptor_int_ops(const struct picl_descriptor *d);
/* descriptor.c: the values per data field when decode_quick reads d
 * ("%d", "%lf", "%d%lf": signed decimals and decimals without exponent)
 * and there are at most max of them, with each one's kind in kinds[]
 * (vec_decode in reader-int.h decodes those records as decode_quick
 * would); 0 for any other descriptor. */
/* output.c: write all n bytes to fd (again after EINTR and short writes).
 * 0, or -1 with errno set. */
int picl_write_all(int fd, const char *p, size_t n);

size_t picl_descriptor_decfloat_ops(const struct picl_descriptor *d, uint8_t *kinds,
				    size_t max);

static inline int picl_is_blank(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* 1 if the physical line line[0..len) (no newline, no trailing '\r')
 * continues on the next one: its last byte is '\' after a blank, or alone.
 * The one rule: the serial reader and the parsing threads (reader_continues
 * in reader-int.h), sort's mapped input (msort.c) and the writer's padding
 * below all decide with this. */
static inline int picl_line_continues(const char *line, size_t len)
{
	return len > 0 && line[len - 1] == '\\' &&
	       (len == 1 || picl_is_blank((unsigned char)line[len - 2]));
}

/* 1 if data d[0..n), written as they are at a line's end, would not read
 * back: a last carriage return reads as a CRLF line's end, a last '\'
 * alone or after a blank as a continuation. The writer puts a blank after
 * such data; picltrace filter copies only lines whose data need none. */
static inline int picl_data_needs_pad(const char *d, size_t n)
{
	return n > 0 && (d[n - 1] == '\r' || picl_line_continues(d, n));
}

static inline int picl_is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

/* 1 for the record types that define something (-6, -201, -202, -203):
 * picl_is_definition_type, inline for the reader's paths. */
static inline int reader_is_definition(int32_t type)
{
	return type == PICL_REC_DESCRIPTOR || type == PICL_REC_SUBSET_PROCESSORS ||
	       type == PICL_REC_SUBSET_PROCESSES || type == PICL_REC_SUBSET_EVENTS;
}

#endif /* PICL_INTERNAL_H */
