/*
 * status.c - status texts, error formatting and the small number/buffer
 * helpers every module of libpicl-trace shares.
 *
 * Numbers are parsed and printed by hand here (no strtol, no locale), and
 * error texts are built with our own constant format strings only: text from
 * a trace reaches a message as a "%.*s" argument after picl_quote() has made
 * it printable and short.
 */
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *picl_status_text(int status)
{
	switch (status) {
	case PICL_OK: return "success";
	case PICL_END: return "end of input";
	case PICL_ERR_NOMEM: return "out of memory";
	case PICL_ERR_IO: return "input/output error";
	case PICL_ERR_SYNTAX: return "syntax error";
	case PICL_ERR_RANGE: return "number out of range";
	case PICL_ERR_DESCRIPTOR: return "bad data descriptor";
	case PICL_ERR_DATA: return "data do not match the descriptor";
	case PICL_ERR_ALIAS: return "undefined descriptor alias";
	case PICL_ERR_TOOLONG: return "record too long";
	case PICL_ERR_COMPRESS: return "corrupt compressed input";
	case PICL_ERR_SCHEMA: return "bad schema";
	case PICL_ERR_USAGE: return "invalid use of the library";
	case PICL_ERR_UNREPRESENTABLE: return "record cannot be written";
	}
	return "unknown status";
}

char *picl_error_format(const struct picl_error *err, char *buf, size_t size)
{
	const char *path;

	if (!buf || size == 0)
		return buf;
	if (!err) {
		snprintf(buf, size, "no error (NULL)");
		return buf;
	}
	path = err->path ? err->path : "<input>";
	if (err->mark.line > 0)
		snprintf(buf, size, "%s:%llu:%llu: %s", path,
			 (unsigned long long)err->mark.line,
			 (unsigned long long)err->mark.column, err->problem);
	else
		snprintf(buf, size, "%s: %s", path, err->problem);
	return buf;
}

int picl_set_error(struct picl_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->problem, sizeof(err->problem), fmt, ap);
	va_end(ap);
	if (code != PICL_ERR_IO)
		err->sys_errno = 0;
	return code;
}

char *picl_quote(const char *s, size_t len, size_t max, char *out, size_t outsize)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0, i;

	if (outsize == 0)
		return out;
	for (i = 0; i < len && i < max; i++) {
		unsigned char c = (unsigned char)s[i];
		char tmp[4];
		size_t n = 0;

		if (c == '"' || c == '\\') {
			tmp[n++] = '\\';
			tmp[n++] = (char)c;
		} else if (c < 0x20 || c >= 0x7f) {
			tmp[n++] = '\\';
			tmp[n++] = 'x';
			tmp[n++] = hex[c >> 4];
			tmp[n++] = hex[c & 15];
		} else {
			tmp[n++] = (char)c;
		}
		if (o + n + 4 >= outsize)
			break;
		memcpy(out + o, tmp, n);
		o += n;
	}
	if (i < len && o + 3 < outsize) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
	return out;
}

int picl_parse_i64(const char *s, size_t len, int64_t *v)
{
	uint64_t acc = 0, limit;
	size_t i = 0;
	int neg = 0;

	if (len == 0)
		return PICL_ERR_SYNTAX;
	if (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-';
		i = 1;
		if (len == 1)
			return PICL_ERR_SYNTAX;
	}
	limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; i < len; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9)
			return PICL_ERR_SYNTAX;
		if (acc > (limit - d) / 10)
			return PICL_ERR_RANGE;
		acc = acc * 10 + d;
	}
	if (neg)
		*v = acc == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)acc;
	else
		*v = (int64_t)acc;
	return PICL_OK;
}

/* "00" "01" ... "99": two digits per division (the writer formats several
 * numbers per record, and one digit per division was most of its time). */
static const char digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

size_t picl_format_u64(uint64_t v, char *buf)
{
	uint64_t t = 10;
	size_t n = 1;
	char *p;

	/* the number of digits first (a loop: most numbers in a trace have
	 * one to three, and a bit-length estimate measured slower), then the
	 * digits from the last one */
	while (n < 20 && v >= t) {
		n++;
		t *= 10;
	}
	p = buf + n;
	while (v >= 100) {
		uint64_t q = v / 100;
		unsigned r = (unsigned)(v - q * 100);

		p -= 2;
		memcpy(p, digit_pairs + 2 * r, 2);
		v = q;
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, digit_pairs + 2 * v, 2);
	} else {
		*--p = (char)('0' + v);
	}
	return n;
}

size_t picl_format_i64(int64_t v, char *buf)
{
	if (v < 0) {
		buf[0] = '-';
		return 1 + picl_format_u64((uint64_t)0 - (uint64_t)v, buf + 1);
	}
	return picl_format_u64((uint64_t)v, buf);
}

/*
 * The shortest "%.*g" that reads back to the same double. snprintf and
 * strtod see only our own constant formats and our own output; the toolkit
 * never calls setlocale, so the decimal point is always '.'.
 */
size_t picl_format_double(double d, char *buf)
{
	int prec;
	int n = 0;

	if (isnan(d)) {
		memcpy(buf, "nan", 3);
		return 3;
	}
	if (isinf(d)) {
		if (d < 0) {
			memcpy(buf, "-inf", 4);
			return 4;
		}
		memcpy(buf, "inf", 3);
		return 3;
	}
	for (prec = 1; prec <= 17; prec++) {
		n = snprintf(buf, 32, "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	return (size_t)n;
}

int picl_buf_grow(char **buf, size_t *cap, size_t need)
{
	size_t ncap = *cap ? *cap : 256;
	char *p;

	if (need <= *cap)
		return PICL_OK;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return PICL_ERR_NOMEM;
		ncap *= 2;
	}
	p = realloc(*buf, ncap);
	if (!p)
		return PICL_ERR_NOMEM;
	*buf = p;
	*cap = ncap;
	return PICL_OK;
}

int picl_is_header_type(int32_t record_type)
{
	return record_type >= PICL_REC_HEADER_FIRST && record_type <= PICL_REC_HEADER_LAST;
}

int picl_is_definition_type(int32_t record_type)
{
	return reader_is_definition(record_type);
}

void picl_record_init(struct picl_record *rec)
{
	if (!rec)
		return;
	memset(rec, 0, sizeof(*rec));
	rec->alias = -1;
}
