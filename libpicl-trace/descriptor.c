/*
 * descriptor.c - the data-descriptor compiler: scanf control strings turned
 * into field programs of our own, and the decoder and encoder that run them.
 *
 * Grammar of the control strings accepted (bytes; "ws" is blank, tab, CR,
 * LF, VT or FF):
 *
 *     control    = item { item }      ; 1..4096 bytes, no NUL, >= 1 conversion
 *     item       = ws-run | literal | "%%" | conversion
 *     ws-run     = ws { ws }          ; matches any amount of white space, or none
 *     literal    = any byte but "%", ws and NUL; "%%" is a literal "%"
 *     conversion = "%" [ "*" ] [ width ] [ "l" ] letter
 *     width      = digit { digit }    ; 1 .. 1000000
 *     letter     = "d" | "i"                         integer          PICL_VAL_INT
 *                | "u" | "x" | "X" | "o"             unsigned         PICL_VAL_UINT
 *                | "f" | "F" | "e" | "E" | "g" | "G" floating point   PICL_VAL_FLOAT,
 *                                                    with "l":        PICL_VAL_DOUBLE
 *                | "c"                               width bytes      PICL_VAL_CHARS
 *                | "s"                               one word         PICL_VAL_STRING
 *
 * Rejected, with the column of the offending byte: %n, %p, %[...], the
 * modifiers h hh L ll q j z t, "l" with c or s (wide characters), unknown
 * letters, "*"/width/modifier before "%%", a "%" that ends the string, width
 * 0 or above 1000000, no conversion at all, more than 4096 bytes, NUL.
 *
 * How it works. Compiling makes one immutable block (no pointers into the
 * caller's string): an array of ops - conversion {kind, width, suppressed},
 * literal text, white space - plus the value kinds of one application, the
 * literal bytes and a copy of the control string. Adjacent literal bytes
 * (including "%%") become one op, adjacent white space one op. For every
 * conversion the compiler also records the first byte of the literal that
 * directly follows it (white-space ops skipped, looking into the next
 * application when the conversion ends the string): a token may end there.
 *
 * Decoding (the reader runs it on every record it is asked to decode: no
 * malloc, no strlen, no scanf) applies the program `nfields` times, as
 * scanf would, with these rules:
 *  - numeric conversions and %s skip white space first; %c/%Nc takes one
 *    separating blank if one is there, then exactly N bytes (default 1);
 *  - white space in the control string matches any amount, none included;
 *    literal text must match exactly; if the string begins with literal
 *    text, the blanks before each data field (one application) are
 *    skipped first, none needed: fields are separated by white space
 *    (spec 2.2.1), though this library's writer once put none there;
 *  - a width limits the bytes a conversion may take (after white space);
 *  - a number must end at white space, at the end of the data, at its width,
 *    or at the first byte of the literal that follows it ("12abc" is no
 *    integer for "%d", but is 12 then "abc" for "%dabc");
 *  - integers are parsed by hand into 64 bits and widened: %d and %i give
 *    int64 whatever their "l" (values out of int64 range: PICL_ERR_RANGE);
 *    %u %x %o give uint64 and, unlike scanf, refuse a '-' sign; %i reads
 *    0x.. as hex and 0.. as octal; %x takes an optional 0x;
 *  - floating-point tokens are checked by hand (sign, digits, point,
 *    exponent; no inf, nan or hex floats). A mantissa up to 2^53 with a
 *    power of ten up to 22 is converted by hand, exactly (Clinger's fast
 *    path); other numbers by strtod on a bounded NUL-terminated copy of
 *    the checked token (tokens over 500 bytes: PICL_ERR_RANGE). strtod is
 *    locale-dependent only for the decimal point and the toolkit never
 *    calls setlocale (a program that does gets PICL_ERR_DATA, never a wrong
 *    value). %f values are kept as doubles, not rounded to single precision;
 *  - %s reads one word: non-blank bytes, at most width, and (our extension)
 *    never the first byte of the literal that follows it, so that "%s,%d"
 *    is usable (with scanf it can never match);
 *  - the control string exactly "%c" is character data (DESIGN.md point 3):
 *    nfields counts bytes, the data are the nfields bytes after the single
 *    separating blank, blanks included, decoded as one PICL_VAL_CHARS value.
 * Before decoding anything, a record whose nfields cannot fit its bytes
 * (every application needs at least one byte per conversion and its literal
 * bytes) is refused, so a hostile count never makes a caller allocate.
 * Control strings of numeric conversions only ("%d", "%d%lf": nearly every
 * PICL record) are decoded by a loop of their own, decode_simple, which
 * keeps its state in registers; the fuzz target checks that it agrees with
 * the general loop. Those of signed decimal and float conversions only
 * (%d %ld %f %lf %e %g ...) also have the reader's shortcut,
 * picl_descriptor_decode_quick (short decimals without an exponent), which
 * gives what decode_simple gives or declines the record.
 *
 * Encoding writes canonical text: a blank before every conversion and
 * before every data field (so fields that begin with literal text are
 * separated by white space too, spec 2.2.1), other literal text right
 * after the previous item, and for white space of the control
 * string one blank when literal text follows it (before a conversion it
 * would only double the conversion's own blank). A value's
 * text is copied verbatim when it still reads back as the value; otherwise
 * the number is formatted. The encoder guarantees decode(encode(v)) == v:
 * every number written is scanned back the way the decoder will scan it
 * (so a width too small, or a number that would run into the literal after
 * it as in "%d5", is refused with PICL_ERR_UNREPRESENTABLE), words must be
 * non-empty and free of blanks, and a %c value that begins with a blank
 * cannot follow white space of the control string. On failure the buffer is
 * left as it was.
 *
 * Errors: decode and compile set err->code, err->problem and err->mark.column
 * (1-based within the data text or the control string); the rest of the mark
 * and err->path are left alone for the caller to fill.
 */
#include "internal.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CONTROL_MAX 4096
#define WIDTH_MAX 1000000
#define FLOAT_TOKEN_MAX 500
#define QUOTE_MAX 40
#define QUOTE_SIZE (QUOTE_MAX * 4 + 8)

#if defined(__GNUC__)
#define PICL_COLD __attribute__((cold, noinline))
#define PICL_INLINE inline __attribute__((always_inline))
#else
#define PICL_COLD
#define PICL_INLINE inline
#endif

enum op_type { OP_CONV, OP_LITERAL, OP_WHITE };

enum conv_type {
	CONV_DEC,       /* %d: signed decimal */
	CONV_AUTO,      /* %i: signed, base from the prefix */
	CONV_UDEC,      /* %u */
	CONV_HEX,       /* %x %X */
	CONV_OCT,       /* %o */
	CONV_FLOAT,     /* %f %e %g %E %G %F */
	CONV_CHARS,     /* %c %Nc */
	CONV_WORD       /* %s %Ns */
};

struct op {
	uint8_t type;          /* enum op_type */
	uint8_t conv;          /* enum conv_type */
	uint8_t suppressed;    /* %*x: scanned, not stored */
	uint8_t upper;         /* %X: write hex digits in upper case */
	uint8_t after_white;   /* a white-space op comes right before */
	uint8_t after_white_wrap; /* op 0 and the string ends in white space */
	int16_t stop;          /* conversion or white space: first byte of the
				* literal right after (white space skipped), or -1 */
	int16_t stop_wrap;     /* the same, found in the next application, or -1 */
	int16_t stop_more;     /* stop, or stop_wrap when another application follows */
	uint32_t width;        /* 0: none (%c: 1) */
	size_t max_len;        /* bytes a token may take: the width, or SIZE_MAX */
	uint32_t lit;          /* literal: offset into lits */
	uint32_t lit_len;
	enum picl_value_kind kind;
};

struct picl_descriptor {
	size_t nops;
	size_t nconv;
	size_t values_per_field;
	size_t min_bytes;      /* fewest data bytes one application can take */
	int is_chars;
	int has_suppressed;
	int has_literals;      /* literal text (not white space) in the string */
	int is_simple;         /* numeric conversions only: decode_simple */
	int is_decfloat;       /* ... and only %d %ld %f %lf %e %g: decode_quick */
	int is_dec;            /* ... and only %d %ld: picl_descriptor_int_ops */
	const enum picl_value_kind *kinds;
	const char *lits;
	const char *control;
	size_t control_len;
	struct op ops[];
};

/* ------------------------------------------------------------------------ */
/* Small helpers                                                             */
/* ------------------------------------------------------------------------ */

/* White space in data: what the reader treats as blank, and a newline. */
static const unsigned char space_table[256] = {
	[' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\v'] = 1, ['\f'] = 1, ['\r'] = 1
};

static inline int is_space(unsigned char c)
{
	return space_table[c];
}

static inline unsigned digit_value(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return (unsigned)(c - '0');
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return (unsigned)(c - 'a' + 10);
	return 99;
}

static int set_column(struct picl_error *err, uint64_t column, int code)
{
	if (err)
		err->mark.column = column;
	return code;
}

/* The bytes of a token for a message: up to the next blank. */
static const char *quote_token(const char *p, size_t n, char *out)
{
	size_t k = 0;

	while (k < n && !is_space((unsigned char)p[k]))
		k++;
	return picl_quote(p, k, QUOTE_MAX, out, QUOTE_SIZE);
}

/* ------------------------------------------------------------------------ */
/* Compiling                                                                 */
/* ------------------------------------------------------------------------ */

/* The state of one pass over the control string. The first pass counts
 * (ops == NULL), the second fills the block sized by the first. */
struct compiler {
	const char *s;
	size_t len;
	struct op *ops;
	enum picl_value_kind *kinds;
	char *lits;
	size_t nops, nconv, nvalues, nlit, min_bytes;
	int last_type;         /* type of the last op made, -1 for none */
	int has_suppressed;
	struct picl_error *err;
};

static int is_control_white(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static int compile_error(struct compiler *c, size_t at, const char *problem)
{
	picl_set_error(c->err, PICL_ERR_DESCRIPTOR, "%s", problem);
	return set_column(c->err, at + 1, PICL_ERR_DESCRIPTOR);
}

static void add_white(struct compiler *c)
{
	if (c->last_type == OP_WHITE)
		return;
	if (c->ops) {
		memset(&c->ops[c->nops], 0, sizeof(c->ops[0]));
		c->ops[c->nops].type = OP_WHITE;
	}
	c->nops++;
	c->last_type = OP_WHITE;
}

static void add_literal_byte(struct compiler *c, char byte)
{
	if (c->last_type != OP_LITERAL) {
		if (c->ops) {
			memset(&c->ops[c->nops], 0, sizeof(c->ops[0]));
			c->ops[c->nops].type = OP_LITERAL;
			c->ops[c->nops].lit = (uint32_t)c->nlit;
		}
		c->nops++;
		c->last_type = OP_LITERAL;
	}
	if (c->ops) {
		c->lits[c->nlit] = byte;
		c->ops[c->nops - 1].lit_len++;
	}
	c->nlit++;
	c->min_bytes++;
}

static void add_conversion(struct compiler *c, enum conv_type conv, enum picl_value_kind kind,
			   int suppressed, int upper, uint32_t width)
{
	if (c->ops) {
		struct op *op = &c->ops[c->nops];

		memset(op, 0, sizeof(*op));
		op->type = OP_CONV;
		op->conv = (uint8_t)conv;
		op->suppressed = (uint8_t)suppressed;
		op->upper = (uint8_t)upper;
		op->width = width;
		op->kind = kind;
		op->stop = op->stop_wrap = -1;
		if (!suppressed)
			c->kinds[c->nvalues] = kind;
	}
	c->nops++;
	c->nconv++;
	if (!suppressed)
		c->nvalues++;
	else
		c->has_suppressed = 1;
	c->min_bytes += conv == CONV_CHARS && width ? width : 1;
	c->last_type = OP_CONV;
}

static const char *unsupported_modifier(const char *s, size_t len, size_t p)
{
	switch (s[p]) {
	case 'h':
		return p + 1 < len && s[p + 1] == 'h' ? "the hh modifier is not supported"
						      : "the h modifier is not supported";
	case 'l':
		return p + 1 < len && s[p + 1] == 'l' ? "the ll modifier is not supported" : NULL;
	case 'L': return "the L modifier is not supported";
	case 'q': return "the q modifier is not supported";
	case 'j': return "the j modifier is not supported";
	case 'z': return "the z modifier is not supported";
	case 't': return "the t modifier is not supported";
	}
	return NULL;
}

/* One "%..." at s[start]; on success *next is the byte after it. */
static int compile_conversion(struct compiler *c, size_t start, size_t *next)
{
	const char *s = c->s;
	size_t len = c->len, p = start + 1;
	int suppressed = 0, is_long = 0;
	uint32_t width = 0;
	const char *problem;
	enum picl_value_kind fkind;

	if (p == len)
		return compile_error(c, start, "a lone % at the end of the control string");
	if (s[p] == '%') {
		add_literal_byte(c, '%');
		*next = p + 1;
		return PICL_OK;
	}
	if (s[p] == '*') {
		suppressed = 1;
		p++;
	}
	if (p < len && picl_is_digit((unsigned char)s[p])) {
		size_t wstart = p;
		uint64_t w = 0;

		while (p < len && picl_is_digit((unsigned char)s[p])) {
			if (w <= WIDTH_MAX)
				w = w * 10 + (uint64_t)(s[p] - '0');
			p++;
		}
		if (w == 0)
			return compile_error(c, wstart, "a field width must not be 0");
		if (w > WIDTH_MAX)
			return compile_error(c, wstart, "a field width must not exceed 1000000");
		width = (uint32_t)w;
	}
	if (p < len && (problem = unsupported_modifier(s, len, p)) != NULL)
		return compile_error(c, p, problem);
	if (p < len && s[p] == 'l') {
		is_long = 1;
		p++;
	}
	if (p == len)
		return compile_error(c, start, "an incomplete conversion at the end of the control string");
	fkind = is_long ? PICL_VAL_DOUBLE : PICL_VAL_FLOAT;
	switch (s[p]) {
	case 'd': add_conversion(c, CONV_DEC, PICL_VAL_INT, suppressed, 0, width); break;
	case 'i': add_conversion(c, CONV_AUTO, PICL_VAL_INT, suppressed, 0, width); break;
	case 'u': add_conversion(c, CONV_UDEC, PICL_VAL_UINT, suppressed, 0, width); break;
	case 'x': add_conversion(c, CONV_HEX, PICL_VAL_UINT, suppressed, 0, width); break;
	case 'X': add_conversion(c, CONV_HEX, PICL_VAL_UINT, suppressed, 1, width); break;
	case 'o': add_conversion(c, CONV_OCT, PICL_VAL_UINT, suppressed, 0, width); break;
	case 'f': case 'F': case 'e': case 'E': case 'g': case 'G':
		add_conversion(c, CONV_FLOAT, fkind, suppressed, 0, width);
		break;
	case 'c':
	case 's':
		if (is_long)
			return compile_error(c, p, "%lc and %ls (wide characters) are not supported");
		if (s[p] == 'c')
			add_conversion(c, CONV_CHARS, PICL_VAL_CHARS, suppressed, 0, width);
		else
			add_conversion(c, CONV_WORD, PICL_VAL_STRING, suppressed, 0, width);
		break;
	case 'n': return compile_error(c, p, "%n is not allowed in a data descriptor");
	case 'p': return compile_error(c, p, "%p is not allowed in a data descriptor");
	case '[': return compile_error(c, p, "%[ (scan sets) is not supported");
	case '%': return compile_error(c, p, "%% cannot take '*', a width or a modifier");
	case '\0': return compile_error(c, p, "a NUL byte inside the control string");
	default: {
		char q[QUOTE_SIZE];

		picl_quote(s + start, p + 1 - start, QUOTE_MAX, q, sizeof(q));
		picl_set_error(c->err, PICL_ERR_DESCRIPTOR, "unknown conversion \"%s\"", q);
		return set_column(c->err, p + 1, PICL_ERR_DESCRIPTOR);
	}
	}
	*next = p + 1;
	return PICL_OK;
}

static int compile_pass(struct compiler *c)
{
	size_t i = 0;
	int rc;

	c->nops = c->nconv = c->nvalues = c->nlit = c->min_bytes = 0;
	c->last_type = -1;
	c->has_suppressed = 0;
	while (i < c->len) {
		unsigned char ch = (unsigned char)c->s[i];

		if (ch == '\0')
			return compile_error(c, i, "a NUL byte inside the control string");
		if (is_control_white(ch)) {
			add_white(c);
			i++;
		} else if (ch != '%') {
			add_literal_byte(c, (char)ch);
			i++;
		} else if ((rc = compile_conversion(c, i, &i)) < 0) {
			return rc;
		}
	}
	if (c->nconv == 0)
		return compile_error(c, 0, "the control string has no conversion");
	return PICL_OK;
}

/* The first byte of the literal at or after ops[i] (white space skipped), -1
 * if a conversion comes first, -2 if the string ends first. */
static int literal_from(const struct picl_descriptor *d, size_t i)
{
	for (; i < d->nops; i++) {
		if (d->ops[i].type == OP_WHITE)
			continue;
		if (d->ops[i].type == OP_LITERAL)
			return (unsigned char)d->lits[d->ops[i].lit];
		return -1;
	}
	return -2;
}

/* Fill in what each conversion needs to know about its neighbours. */
static void link_ops(struct picl_descriptor *d)
{
	size_t i;
	int wrap = literal_from(d, 0);

	for (i = 0; i < d->nops; i++) {
		struct op *op = &d->ops[i];
		int next;

		if (op->type == OP_LITERAL)
			continue;
		next = literal_from(d, i + 1);
		op->stop = (int16_t)(next >= 0 ? next : -1);
		op->stop_wrap = (int16_t)(next == -2 && wrap >= 0 ? wrap : -1);
		op->stop_more = op->stop >= 0 ? op->stop : op->stop_wrap;
		op->max_len = op->width ? op->width : SIZE_MAX;
		op->after_white = i > 0 && d->ops[i - 1].type == OP_WHITE;
		op->after_white_wrap = i == 0 && d->ops[d->nops - 1].type == OP_WHITE;
	}
}

/* 1 if the program is numeric conversions and nothing else: no literal
 * text, white space, widths, suppression, %c or %s ("%d", "%d%lf"). */
static int is_simple_program(const struct picl_descriptor *d)
{
	size_t i;

	for (i = 0; i < d->nops; i++) {
		const struct op *op = &d->ops[i];

		if (op->type != OP_CONV || op->width || op->suppressed ||
		    op->conv == CONV_CHARS || op->conv == CONV_WORD)
			return 0;
	}
	return 1;
}

/* 1 if a simple program has only signed decimal and float conversions. */
static int is_decfloat_program(const struct picl_descriptor *d)
{
	size_t i;

	if (!is_simple_program(d))
		return 0;
	for (i = 0; i < d->nops; i++)
		if (d->ops[i].conv != CONV_DEC && d->ops[i].conv != CONV_FLOAT)
			return 0;
	return 1;
}

/* 1 if a simple program has only signed decimal conversions (%d %ld). */
static int is_dec_program(const struct picl_descriptor *d)
{
	size_t i;

	if (!is_simple_program(d))
		return 0;
	for (i = 0; i < d->nops; i++)
		if (d->ops[i].conv != CONV_DEC || d->ops[i].kind != PICL_VAL_INT)
			return 0;
	return 1;
}

static size_t align_up(size_t n, size_t a)
{
	return (n + a - 1) / a * a;
}

int picl_descriptor_compile(const char *control, size_t len,
			    struct picl_descriptor **out, struct picl_error *err)
{
	struct compiler c;
	struct picl_descriptor *d;
	size_t size, kinds_at, lits_at, control_at;
	char *block;
	int rc;

	if (!out)
		return picl_set_error(err, PICL_ERR_USAGE, "no place for the descriptor (NULL)");
	*out = NULL;
	if (!control && len > 0)
		return picl_set_error(err, PICL_ERR_USAGE,
				      "no control string (NULL) for %zu bytes", len);
	memset(&c, 0, sizeof(c));
	c.s = control;
	c.len = len;
	c.err = err;
	if (len > CONTROL_MAX)
		return compile_error(&c, CONTROL_MAX, "the control string is longer than 4096 bytes");
	if ((rc = compile_pass(&c)) < 0)
		return rc;

	kinds_at = align_up(sizeof(*d) + c.nops * sizeof(struct op), sizeof(enum picl_value_kind));
	lits_at = kinds_at + c.nvalues * sizeof(enum picl_value_kind);
	control_at = lits_at + c.nlit;
	size = control_at + len + 1;
	block = calloc(1, size);
	if (!block)
		return picl_set_error(err, PICL_ERR_NOMEM, "out of memory");
	d = (struct picl_descriptor *)block;
	c.ops = d->ops;
	c.kinds = (enum picl_value_kind *)(block + kinds_at);
	c.lits = block + lits_at;
	compile_pass(&c); /* cannot fail: the first pass accepted the string */

	d->nops = c.nops;
	d->nconv = c.nconv;
	d->values_per_field = c.nvalues;
	d->min_bytes = c.min_bytes;
	d->has_suppressed = c.has_suppressed;
	d->has_literals = c.nlit > 0;
	d->kinds = c.kinds;
	d->lits = c.lits;
	memcpy(block + control_at, control, len);
	d->control = block + control_at;
	d->control_len = len;
	d->is_chars = len == 2 && control[0] == '%' && control[1] == 'c';
	link_ops(d);
	d->is_simple = is_simple_program(d);
	d->is_decfloat = is_decfloat_program(d);
	d->is_dec = is_dec_program(d);
	*out = d;
	return PICL_OK;
}

size_t picl_descriptor_int_ops(const struct picl_descriptor *d)
{
	return d && d->is_dec ? d->nops : 0;
}

size_t picl_descriptor_decfloat_ops(const struct picl_descriptor *d, uint8_t *kinds,
				    size_t max)
{
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
	size_t i;

	if (!d || !d->is_decfloat || d->nops > max)
		return 0;
	for (i = 0; i < d->nops; i++)
		kinds[i] = (uint8_t)d->ops[i].kind;
	return d->nops;
#else
	(void)d, (void)kinds, (void)max;
	return 0;   /* decode_quick reads no decimals either */
#endif
}

void picl_descriptor_free(struct picl_descriptor *d)
{
	free(d);
}

const char *picl_descriptor_control(const struct picl_descriptor *d)
{
	return d ? d->control : NULL;
}

size_t picl_descriptor_values_per_field(const struct picl_descriptor *d)
{
	return d ? d->values_per_field : 0;
}

enum picl_value_kind picl_descriptor_value_kind(const struct picl_descriptor *d, size_t i)
{
	if (!d || i >= d->values_per_field)
		return (enum picl_value_kind)0;
	return d->kinds[i];
}

int picl_descriptor_is_chars(const struct picl_descriptor *d)
{
	return d ? d->is_chars : 0;
}

const char *picl_predefined_alias(int64_t alias)
{
	static const char *const predefined[] = { "%c", "%s", "%d", "%ld", "%f", "%lf" };

	if (alias < 0 || alias >= (int64_t)(sizeof(predefined) / sizeof(predefined[0])))
		return NULL;
	return predefined[alias];
}

/* ------------------------------------------------------------------------ */
/* Scanning tokens (shared by the decoder and the encoder's checks)          */
/* ------------------------------------------------------------------------ */

/*
 * A token as scanned. Integers: sign and magnitude, and whether the
 * magnitude overflowed 64 bits. Floats: the first 19 significant digits and
 * the power of ten that goes with them; `exact` when no digit was left out.
 */
struct scanned {
	int neg;
	int overflow;
	uint64_t mag;
	int exact;
	int64_t exp10;
};

/* Decimal digits at p[0..n) into v->mag; returns how many. The first 19
 * cannot overflow, so only the rest are checked. */
static PICL_INLINE size_t scan_decimal_digits(const unsigned char *p, size_t n,
					      struct scanned *v)
{
	const uint64_t lim = UINT64_MAX / 10;
	size_t i = 0, safe = n < 19 ? n : 19;
	uint64_t acc = 0;

	for (; i < safe; i++) {
		unsigned dv = (unsigned)p[i] - '0';

		if (dv > 9)
			goto done;
		acc = acc * 10 + dv;
	}
	for (; i < n; i++) {
		unsigned dv = (unsigned)p[i] - '0';

		if (dv > 9)
			break;
		if (acc > lim || (acc == lim && dv > UINT64_MAX % 10))
			v->overflow = 1;
		acc = acc * 10 + dv;
	}
done:
	v->mag = acc;
	return i;
}

/* Octal or hexadecimal digits (bits 3 or 4 per digit). */
static size_t scan_pow2_digits(const unsigned char *p, size_t n, unsigned bits,
			       struct scanned *v)
{
	unsigned base = 1u << bits;
	uint64_t acc = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned dv = digit_value(p[i]);

		if (dv >= base)
			break;
		if (acc >> (64 - bits))
			v->overflow = 1;
		acc = (acc << bits) | dv;
	}
	v->mag = acc;
	return i;
}

/*
 * An integer of conversion `conv` at p[0..n) (n already cut to the width).
 * Returns the token length, 0 when no integer starts here. Range is
 * checked by the caller.
 */
static PICL_INLINE size_t scan_integer(enum conv_type conv, const unsigned char *p, size_t n,
			   struct scanned *v)
{
	size_t i = 0, nd;
	unsigned bits = 0;      /* 0: decimal */

	v->neg = 0;
	v->overflow = 0;
	v->mag = 0;
	if (i < n && (p[i] == '+' || p[i] == '-')) {
		if (p[i] == '-') {
			if (conv != CONV_DEC && conv != CONV_AUTO)
				return 0;
			v->neg = 1;
		}
		i++;
	}
	switch (conv) {
	case CONV_OCT:
		bits = 3;
		break;
	case CONV_HEX:
	case CONV_AUTO:
		if (i + 2 < n && p[i] == '0' && (p[i + 1] | 0x20) == 'x' && digit_value(p[i + 2]) < 16) {
			i += 2;
			bits = 4;
		} else if (conv == CONV_HEX) {
			bits = 4;
		} else if (i < n && p[i] == '0') {
			bits = 3;
		}
		break;
	default:
		break;
	}
	if (bits)
		nd = scan_pow2_digits(p + i, n - i, bits, v);
	else
		nd = scan_decimal_digits(p + i, n - i, v);
	if (nd == 0)
		return 0;
	if (v->neg && v->mag == 0)
		v->neg = 0;
	return i + nd;
}

/*
 * Mantissa digits at p[i..n) into v: at most 19 significant ones are kept
 * (a dropped one makes the number inexact, and moves the point when it is
 * before it). Returns the index after the digits.
 */
static PICL_INLINE size_t float_digits(const unsigned char *p, size_t i, size_t n,
				       struct scanned *v, int *sig, int after_point)
{
	if (v->mag == 0)
		for (; i < n && p[i] == '0'; i++)
			v->exp10 -= after_point;
	for (; i < n; i++) {
		unsigned dv = (unsigned)p[i] - '0';

		if (dv > 9)
			break;
		if (PICL_LIKELY(*sig < 19)) {
			v->mag = v->mag * 10 + dv;
			(*sig)++;
			v->exp10 -= after_point;
		} else {
			v->exact = 0;
			v->exp10 += !after_point;
		}
	}
	return i;
}

/*
 * A number the decimal way: [sign] digits [. digits] [e [sign] digits],
 * at least one mantissa digit, the exponent taken only when complete.
 * Returns the token length, 0 when no number starts here.
 */
static PICL_INLINE size_t scan_float(const unsigned char *p, size_t n, struct scanned *v)
{
	size_t i = 0, start, digits, e;
	int sig = 0;

	v->neg = 0;
	v->mag = 0;
	v->exact = 1;
	v->exp10 = 0;
	if (i < n && (p[i] == '+' || p[i] == '-'))
		v->neg = p[i++] == '-';
	start = i;
	i = float_digits(p, i, n, v, &sig, 0);
	digits = i - start;
	if (i < n && p[i] == '.') {
		start = ++i;
		i = float_digits(p, i, n, v, &sig, 1);
		digits += i - start;
	}
	if (digits == 0)
		return 0;
	if (i < n && (p[i] | 0x20) == 'e') {
		int eneg = 0;
		int64_t x = 0;

		e = i + 1;
		if (e < n && (p[e] == '+' || p[e] == '-'))
			eneg = p[e++] == '-';
		if (e < n && picl_is_digit(p[e])) {
			for (; e < n && picl_is_digit(p[e]); e++)
				if (x < 1000000)
					x = x * 10 + (p[e] - '0');
			v->exp10 += eneg ? -x : x;
			i = e;
		}
	}
	return i;
}

/*
 * The value of a float token scanned by scan_float. Short numbers take
 * Clinger's fast path: a mantissa below 2^53 and a power of ten up to
 * 10^22 are both exact doubles, so one multiplication or division rounds
 * correctly (given FLT_EVAL_METHOD 0, no extended precision). Others go to
 * strtod, which only ever sees a bounded NUL-terminated copy of a token we
 * have already checked; see the header comment about the locale.
 */
static int float_value(const unsigned char *p, size_t n, const struct scanned *v, double *out)
{
	static const double pow10[] = {
		1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
		1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
	};
	char buf[FLOAT_TOKEN_MAX + 1];
	char *end;
	int saved, rc = PICL_OK;
	double d;

#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
	if (v->exact && v->mag <= (UINT64_C(1) << 53) && v->exp10 >= -22 && v->exp10 <= 22) {
		d = (double)v->mag;
		if (v->exp10 < 0)
			d /= pow10[-v->exp10];
		else
			d *= pow10[v->exp10];
		*out = v->neg ? -d : d;
		return PICL_OK;
	}
#else
	(void)pow10;
	(void)v;
#endif
	if (n > FLOAT_TOKEN_MAX)
		return PICL_ERR_RANGE;
	memcpy(buf, p, n);
	buf[n] = '\0';
	saved = errno;
	errno = 0;
	d = strtod(buf, &end);
	if (end != buf + n)
		rc = PICL_ERR_DATA;
	else if (errno == ERANGE && isinf(d))
		rc = PICL_ERR_RANGE;
	errno = saved;
	*out = d;
	return rc;
}

/* A word: bytes up to white space or the stop byte. */
static size_t scan_word(const unsigned char *p, size_t n, int stop)
{
	size_t i = 0;

	while (i < n && !is_space(p[i]) && p[i] != stop)
		i++;
	return i;
}

/* The token of a numeric or word conversion at p[0..n) (cut to width). */
static size_t scan_token(const struct op *op, const unsigned char *p, size_t n, int stop,
			 struct scanned *v)
{
	switch (op->conv) {
	case CONV_FLOAT:
		return scan_float(p, n, v);
	case CONV_WORD:
		return scan_word(p, n, stop);
	default:
		return scan_integer((enum conv_type)op->conv, p, n, v);
	}
}

static int is_signed_conv(enum conv_type conv)
{
	return conv == CONV_DEC || conv == CONV_AUTO;
}

/* 1 if a scanned integer fits the conversion's type. */
static int integer_fits(enum conv_type conv, const struct scanned *v)
{
	if (v->overflow)
		return 0;
	if (!is_signed_conv(conv))
		return 1;
	return v->neg ? v->mag <= (uint64_t)INT64_MAX + 1 : v->mag <= (uint64_t)INT64_MAX;
}

static int64_t integer_as_i64(const struct scanned *v)
{
	if (!v->neg)
		return (int64_t)v->mag;
	if (v->mag == (uint64_t)INT64_MAX + 1)
		return INT64_MIN;
	return -(int64_t)v->mag;
}

/* ------------------------------------------------------------------------ */
/* Decoding                                                                  */
/* ------------------------------------------------------------------------ */

/* What one decode call shares between its steps. */
struct decoder {
	const struct picl_descriptor *d;
	const unsigned char *text;
	size_t len;
	size_t pos;
	uint64_t field;        /* 0-based application being decoded */
	uint64_t nfields;
	struct picl_error *err;
};

static const char *conv_expectation(const struct op *op)
{
	switch (op->conv) {
	case CONV_DEC:
	case CONV_AUTO: return "an integer";
	case CONV_UDEC: return "an unsigned integer";
	case CONV_HEX: return "a hexadecimal integer";
	case CONV_OCT: return "an octal integer";
	case CONV_FLOAT: return "a number";
	case CONV_CHARS: return "characters";
	default: return "a word";
	}
}

static int data_error_at(struct decoder *dc, size_t at, int code)
{
	return set_column(dc->err, (uint64_t)at + 1, code);
}

static PICL_COLD int expected_end(struct decoder *dc, const char *what)
{
	picl_set_error(dc->err, PICL_ERR_DATA,
		       "expected %s, found the end of the data (data field %llu of %llu)", what,
		       (unsigned long long)dc->field + 1, (unsigned long long)dc->nfields);
	return data_error_at(dc, dc->len, PICL_ERR_DATA);
}

static PICL_COLD int expected_found(struct decoder *dc, size_t at, const char *what)
{
	char q[QUOTE_SIZE];

	quote_token((const char *)dc->text + at, dc->len - at, q);
	picl_set_error(dc->err, PICL_ERR_DATA, "expected %s, found \"%s\"", what, q);
	return data_error_at(dc, at, PICL_ERR_DATA);
}

static void skip_space(struct decoder *dc)
{
	while (dc->pos < dc->len && is_space(dc->text[dc->pos]))
		dc->pos++;
}

static int decode_literal(struct decoder *dc, const struct op *op)
{
	const char *lit = dc->d->lits + op->lit;
	size_t n = op->lit_len;

	if (PICL_LIKELY(dc->len - dc->pos >= n && memcmp(dc->text + dc->pos, lit, n) == 0)) {
		dc->pos += n;
		return PICL_OK;
	}
	{
		char want[QUOTE_SIZE], found[QUOTE_SIZE];
		size_t avail = dc->len - dc->pos;

		picl_quote(lit, n, QUOTE_MAX, want, sizeof(want));
		if (avail == 0) {
			picl_set_error(dc->err, PICL_ERR_DATA,
				       "expected \"%s\", found the end of the data (data field %llu of %llu)",
				       want, (unsigned long long)dc->field + 1,
				       (unsigned long long)dc->nfields);
			return data_error_at(dc, dc->pos, PICL_ERR_DATA);
		}
		picl_quote((const char *)dc->text + dc->pos, avail < n ? avail : n, QUOTE_MAX,
			   found, sizeof(found));
		picl_set_error(dc->err, PICL_ERR_DATA, "expected \"%s\", found \"%s\"", want, found);
		return data_error_at(dc, dc->pos, PICL_ERR_DATA);
	}
}

static int decode_chars_conv(struct decoder *dc, const struct op *op, struct picl_value *out)
{
	size_t w = op->width ? op->width : 1;

	if (dc->pos < dc->len && is_space(dc->text[dc->pos]))
		dc->pos++;
	if (dc->len - dc->pos < w) {
		if (dc->pos == dc->len)
			return expected_end(dc, w == 1 ? "a character" : "characters");
		picl_set_error(dc->err, PICL_ERR_DATA,
			       "expected %zu characters, found only %zu (data field %llu of %llu)",
			       w, dc->len - dc->pos, (unsigned long long)dc->field + 1,
			       (unsigned long long)dc->nfields);
		return data_error_at(dc, dc->pos, PICL_ERR_DATA);
	}
	out->kind = PICL_VAL_CHARS;
	out->v.s.ptr = (const char *)dc->text + dc->pos;
	out->v.s.len = w;
	out->text = out->v.s.ptr;
	out->text_len = w;
	dc->pos += w;
	return PICL_OK;
}

/* The error of a token that is not what its conversion wants (or whose
 * value does not fit); off the fast path. */
static PICL_COLD int token_error(struct decoder *dc, const struct op *op, size_t at,
				 size_t tok, int code)
{
	char q[QUOTE_SIZE];

	dc->pos = at;
	if (code == PICL_ERR_DATA && at == dc->len)
		return expected_end(dc, conv_expectation(op));
	if (code == PICL_ERR_DATA)
		return expected_found(dc, at, conv_expectation(op));
	picl_quote((const char *)dc->text + at, tok, QUOTE_MAX, q, sizeof(q));
	if (op->conv == CONV_FLOAT)
		picl_set_error(dc->err, code, "number out of range: \"%s\"", q);
	else
		picl_set_error(dc->err, code, "integer out of range (64 bits): \"%s\"", q);
	return data_error_at(dc, at, code);
}

/* A number or a word: white space, the token, its end, its value into
 * *out (a scratch value for suppressed conversions). */
static inline int decode_token_conv(struct decoder *dc, const struct op *op, int stop,
				    struct picl_value *out)
{
	const unsigned char *text = dc->text, *p;
	size_t len = dc->len, pos = dc->pos, avail, tok, end;
	struct scanned v;

	while (pos < len && is_space(text[pos]))
		pos++;
	if (PICL_UNLIKELY(pos == len))
		return token_error(dc, op, pos, 0, PICL_ERR_DATA);
	p = text + pos;
	avail = len - pos;
	if (avail > op->max_len)
		avail = op->max_len;
	switch (op->conv) {
	case CONV_FLOAT:
		tok = scan_float(p, avail, &v);
		break;
	case CONV_WORD:
		tok = scan_word(p, avail, stop);
		break;
	default:
		tok = scan_integer((enum conv_type)op->conv, p, avail, &v);
		break;
	}
	end = pos + tok;
	if (PICL_UNLIKELY(tok == 0 ||
			  !(end == len || is_space(text[end]) || text[end] == stop ||
			    tok == op->max_len)))
		return token_error(dc, op, pos, tok, PICL_ERR_DATA);

	if (op->conv == CONV_FLOAT) {
		double dv = 0;
		int rc = float_value(p, tok, &v, &dv);

		if (PICL_UNLIKELY(rc < 0))
			return token_error(dc, op, pos, tok, rc);
		out->v.d = dv;
	} else if (op->conv != CONV_WORD) {
		if (PICL_UNLIKELY(!integer_fits((enum conv_type)op->conv, &v)))
			return token_error(dc, op, pos, tok, PICL_ERR_RANGE);
		if (is_signed_conv((enum conv_type)op->conv))
			out->v.i = integer_as_i64(&v);
		else
			out->v.u = v.mag;
	} else {
		out->v.s.ptr = (const char *)p;
		out->v.s.len = tok;
	}
	out->kind = op->kind;
	out->text = (const char *)p;
	out->text_len = tok;
	dc->pos = end;
	return PICL_OK;
}

/*
 * The common case (is_simple_program): every value is a number that ends at
 * white space or at the end of the data. The same rules as
 * decode_token_conv, in one loop that keeps its state in registers.
 */
static int decode_simple(struct decoder *dc, struct picl_value *values, size_t *nvalues,
			 size_t *used)
{
	const struct picl_descriptor *d = dc->d;
	const unsigned char *text = dc->text;
	size_t len = dc->len, pos = 0, nops = d->nops, k;
	struct picl_value *out = values;
	uint64_t f;

	for (f = 0; f < dc->nfields; f++) {
		for (k = 0; k < nops; k++, out++) {
			const struct op *op = &d->ops[k];
			const unsigned char *p;
			struct scanned v;
			size_t tok;

			while (pos < len && is_space(text[pos]))
				pos++;
			p = text + pos;
			if (op->conv == CONV_DEC) /* %d %ld: the constant folds the switch */
				tok = scan_integer(CONV_DEC, p, len - pos, &v);
			else if (op->conv == CONV_FLOAT)
				tok = scan_float(p, len - pos, &v);
			else
				tok = scan_integer((enum conv_type)op->conv, p, len - pos, &v);
			if (PICL_UNLIKELY(tok == 0 || (pos + tok < len && !is_space(p[tok])))) {
				dc->field = f;
				*nvalues = (size_t)(out - values);
				return token_error(dc, op, pos, tok, PICL_ERR_DATA);
			}
			if (op->conv == CONV_FLOAT) {
				int rc = float_value(p, tok, &v, &out->v.d);

				if (PICL_UNLIKELY(rc < 0)) {
					dc->field = f;
					*nvalues = (size_t)(out - values);
					return token_error(dc, op, pos, tok, rc);
				}
			} else {
				if (PICL_UNLIKELY(!integer_fits((enum conv_type)op->conv, &v))) {
					dc->field = f;
					*nvalues = (size_t)(out - values);
					return token_error(dc, op, pos, tok, PICL_ERR_RANGE);
				}
				if (is_signed_conv((enum conv_type)op->conv))
					out->v.i = integer_as_i64(&v);
				else
					out->v.u = v.mag;
			}
			out->kind = op->kind;
			out->text = (const char *)p;
			out->text_len = tok;
			pos += tok;
		}
	}
	*nvalues = (size_t)(out - values);
	*used = pos;
	return PICL_OK;
}

/* The control string exactly "%c": one value of nfields bytes. */
static int decode_char_data(struct decoder *dc, struct picl_value *values, size_t *nvalues,
			    size_t *nvalues_cap, size_t *used)
{
	if (dc->len == 0 || !is_space(dc->text[0])) {
		if (dc->len == 0)
			picl_set_error(dc->err, PICL_ERR_DATA,
				       "the record declares %llu characters but has no data",
				       (unsigned long long)dc->nfields);
		else
			picl_set_error(dc->err, PICL_ERR_DATA,
				       "expected a blank before the character data");
		return data_error_at(dc, 0, PICL_ERR_DATA);
	}
	if (dc->nfields > dc->len - 1) {
		picl_set_error(dc->err, PICL_ERR_DATA,
			       "the record declares %llu characters but has only %zu",
			       (unsigned long long)dc->nfields, dc->len - 1);
		return data_error_at(dc, dc->len, PICL_ERR_DATA);
	}
	if (*nvalues_cap < 1) {
		*nvalues_cap = 1;
		return PICL_ERR_NOMEM;
	}
	values[0].kind = PICL_VAL_CHARS;
	values[0].v.s.ptr = (const char *)dc->text + 1;
	values[0].v.s.len = (size_t)dc->nfields;
	values[0].text = values[0].v.s.ptr;
	values[0].text_len = (size_t)dc->nfields;
	*nvalues = 1;
	*used = 1 + (size_t)dc->nfields;
	return PICL_OK;
}

/*
 * The reader's shortcut for the commonest descriptors ("%d", "%lf",
 * "%d%lf": decimal integers, and decimals without an exponent): one loop
 * with nothing to look up. It gives exactly what decode_simple gives
 * (same values, texts and kinds) and returns 1, or returns 0 and leaves
 * the record to picl_descriptor_decode, which also reports every error:
 * for anything else (19 or more digits, an exponent, a bad token, text
 * after the last field, too little room in values).
 */
int picl_descriptor_decode_quick(const struct picl_descriptor *d, uint64_t nfields,
				 const char *text, size_t len, struct picl_value *values,
				 size_t cap, size_t *nvalues)
{
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
	static const double pow10[] = {
		1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
		1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
	};
	const unsigned char *p = (const unsigned char *)text, *e = p + len;
	struct picl_value *out = values;
	size_t nops = d->nops, k;
	uint64_t f;

	if (!d->is_decfloat || nfields == 0 || nfields > cap / nops)
		return 0;
	for (f = 0; f < nfields; f++) {
		for (k = 0; k < nops; k++, out++) {
			const struct op *op = &d->ops[k];
			const unsigned char *s;
			uint64_t acc = 0;
			unsigned nd = 0, dv;
			int neg = 0;

			while (p < e && is_space(*p))
				p++;
			s = p;
			if (p < e && (*p == '-' || *p == '+'))
				neg = *p++ == '-';
			for (; p < e && (dv = (unsigned)*p - '0') < 10; p++, nd++)
				acc = acc * 10 + dv;
			if (op->conv == CONV_DEC) {
				if (nd == 0 || nd > 18)
					return 0;
				out->v.i = neg ? -(int64_t)acc : (int64_t)acc;
			} else {
				unsigned frac = 0;
				double x;

				if (p < e && *p == '.')
					for (p++; p < e && (dv = (unsigned)*p - '0') < 10; p++, frac++)
						acc = acc * 10 + dv;
				nd += frac;
				if (nd == 0 || nd > 19 || frac > 22 || acc > (UINT64_C(1) << 53) ||
				    (p < e && (*p | 0x20) == 'e'))
					return 0;
				x = (double)acc;
				if (frac)
					x /= pow10[frac];
				out->v.d = neg ? -x : x;
			}
			if (p < e && !is_space(*p))
				return 0;
			out->kind = op->kind;
			out->text = (const char *)s;
			out->text_len = (size_t)(p - s);
		}
	}
	while (p < e && picl_is_blank(*p))
		p++;
	if (p != e)
		return 0;
	*nvalues = (size_t)(out - values);
	return 1;
#else
	(void)d, (void)nfields, (void)text, (void)len, (void)values, (void)cap, (void)nvalues;
	return 0;
#endif
}

int picl_descriptor_decode(const struct picl_descriptor *d, uint64_t nfields,
			   const char *text, size_t len,
			   struct picl_value *values, size_t *nvalues,
			   size_t *nvalues_cap, size_t *used, struct picl_error *err)
{
	struct decoder dc;
	struct picl_value scratch;
	size_t needed, nv = 0, last_end = 0, vpf;
	uint64_t f;
	int rc = PICL_OK;

	if (!d)
		return picl_set_error(err, PICL_ERR_USAGE, "no descriptor (NULL)");
	if (!nvalues || !nvalues_cap || !used || (!text && len > 0) ||
	    (!values && *nvalues_cap > 0))
		return picl_set_error(err, PICL_ERR_USAGE, "picl_descriptor_decode: a required argument is NULL");
	dc.d = d;
	dc.text = (const unsigned char *)text;
	dc.len = len;
	dc.pos = 0;
	dc.field = 0;
	dc.nfields = nfields;
	dc.err = err;
	if (nfields == 0) {
		*nvalues = 0;
		*used = 0;
		return PICL_OK;
	}
	if (d->is_chars)
		return decode_char_data(&dc, values, nvalues, nvalues_cap, used);

	/* A hostile count fails here, before anyone allocates for it. */
	if (nfields > len / d->min_bytes) {
		picl_set_error(err, PICL_ERR_DATA,
			       "the record declares %llu data field%s, "
			       "more than its %zu byte%s of data can hold",
			       (unsigned long long)nfields, nfields == 1 ? "" : "s",
			       len, len == 1 ? "" : "s");
		return data_error_at(&dc, 0, PICL_ERR_DATA);
	}
	vpf = d->values_per_field;
	if (vpf && nfields > SIZE_MAX / sizeof(struct picl_value) / vpf) {
		picl_set_error(err, PICL_ERR_DATA, "the record declares too many data fields (%llu)",
			       (unsigned long long)nfields);
		return data_error_at(&dc, 0, PICL_ERR_DATA);
	}
	needed = (size_t)nfields * vpf;
	if (*nvalues_cap < needed) {
		*nvalues_cap = needed;
		return PICL_ERR_NOMEM;
	}
	if (values == NULL && needed > 0)
		return picl_set_error(err, PICL_ERR_USAGE, "picl_descriptor_decode: values is NULL");

	if (d->is_simple)
		return decode_simple(&dc, values, nvalues, used);

	for (f = 0; f < nfields; f++) {
		int more = f + 1 < nfields;
		size_t i;

		dc.field = f;
		/* Data fields are separated by white space (spec 2.2.1): the
		 * blanks before a field that begins with literal text are
		 * skipped (conversions skip their own), none needed. */
		if (d->ops[0].type == OP_LITERAL)
			skip_space(&dc);
		for (i = 0; i < d->nops; i++) {
			const struct op *op = &d->ops[i];
			struct picl_value *out;

			switch (op->type) {
			case OP_WHITE:
				skip_space(&dc);
				continue;
			case OP_LITERAL:
				rc = decode_literal(&dc, op);
				break;
			default:
				out = op->suppressed ? &scratch : &values[nv];
				if (op->conv == CONV_CHARS)
					rc = decode_chars_conv(&dc, op, out);
				else
					rc = decode_token_conv(&dc, op, more ? op->stop_more : op->stop, out);
				nv += !op->suppressed && rc == PICL_OK;
				break;
			}
			if (PICL_UNLIKELY(rc < 0)) {
				*nvalues = nv;
				return rc;
			}
			last_end = dc.pos;
		}
	}
	*nvalues = nv;
	*used = last_end;
	return PICL_OK;
}

/* ------------------------------------------------------------------------ */
/* Encoding                                                                  */
/* ------------------------------------------------------------------------ */

/* What one encode call shares between its steps. */
struct encoder {
	const struct picl_descriptor *d;
	char **buf;
	size_t *len;
	size_t *cap;
	struct picl_error *err;
	size_t index;          /* of the value being written, for messages */
	/* The last number or word written, when a literal follows it directly:
	 * checked again once the literal is there. */
	const struct op *pending;
	size_t pending_at, pending_len;
	int pending_stop;
};

static int encode_error(struct encoder *ec, int code, const char *problem)
{
	return picl_set_error(ec->err, code, "value %zu: %s", ec->index + 1, problem);
}

static PICL_INLINE int append(struct encoder *ec, const char *s, size_t n)
{
	int rc = picl_buf_append(ec->buf, ec->len, ec->cap, s, n);

	if (rc < 0)
		return picl_set_error(ec->err, rc, "out of memory");
	return PICL_OK;
}

static size_t format_base(uint64_t v, unsigned base, int upper, char *buf)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	size_t n = 0, i;

	do {
		tmp[n++] = digits[v % base];
		v /= base;
	} while (v);
	for (i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	return n;
}

static int same_double(double a, double b)
{
	return a == b && signbit(a) == signbit(b);
}

/*
 * 1 if text reads back, by itself and whole, as a number equal to the one
 * given (integers as sign and magnitude, doubles bit for bit up to NaN).
 */
static PICL_INLINE int text_reads_back(const struct op *op, const char *text, size_t n,
			   const struct scanned *want_int, double want_d)
{
	const unsigned char *p = (const unsigned char *)text;
	struct scanned iv;
	size_t tok;

	if (n == 0 || (op->width && n > op->width))
		return 0;
	if (op->conv == CONV_DEC && n <= 19) {
		/* The usual case, a %d value with the text it was read from:
		 * [-]digits, checked without the general scanner (which gives
		 * the same answer, "-0" being 0). */
		size_t i = p[0] == '-', j;
		uint64_t mag = 0;

		for (j = i; j < n && (unsigned)(p[j] - '0') < 10; j++)
			mag = mag * 10 + (unsigned)(p[j] - '0');
		if (j == n && j > i)
			return (int)(i && mag) == (int)want_int->neg && mag == want_int->mag;
	}
	tok = scan_token(op, p, n, -1, &iv);
	if (tok != n)
		return 0;
	if (op->conv == CONV_FLOAT) {
		double dv;

		return float_value(p, n, &iv, &dv) == PICL_OK && same_double(dv, want_d);
	}
	return integer_fits((enum conv_type)op->conv, &iv) && iv.neg == want_int->neg &&
	       iv.mag == want_int->mag;
}

/* The text of a number value for op into tmp (or value->text). */
static int number_text(struct encoder *ec, const struct op *op, const struct picl_value *v,
		       char *tmp, const char **text, size_t *n)
{
	struct scanned want = { 0, 0, 0, 0, 0 };
	double want_d = 0;

	if (op->conv == CONV_FLOAT) {
		if (v->kind != PICL_VAL_FLOAT && v->kind != PICL_VAL_DOUBLE)
			return encode_error(ec, PICL_ERR_DATA,
					    "a floating-point conversion needs a FLOAT or DOUBLE value");
		if (!isfinite(v->v.d))
			return encode_error(ec, PICL_ERR_UNREPRESENTABLE,
					    "infinities and NaNs cannot be written in a trace");
		want_d = v->v.d;
	} else {
		if (v->kind == PICL_VAL_INT) {
			want.neg = v->v.i < 0;
			want.mag = want.neg ? (uint64_t)0 - (uint64_t)v->v.i : (uint64_t)v->v.i;
		} else if (v->kind == PICL_VAL_UINT) {
			want.mag = v->v.u;
		} else {
			return encode_error(ec, PICL_ERR_DATA,
					    "an integer conversion needs an INT or UINT value");
		}
		if (is_signed_conv((enum conv_type)op->conv) && !want.neg && want.mag > (uint64_t)INT64_MAX)
			return encode_error(ec, PICL_ERR_DATA,
					    "an unsigned value above INT64_MAX for a signed conversion");
		if (!is_signed_conv((enum conv_type)op->conv) && want.neg)
			return encode_error(ec, PICL_ERR_DATA,
					    "a negative value for an unsigned conversion");
	}
	if (v->text && text_reads_back(op, v->text, v->text_len, &want, want_d)) {
		*text = v->text;
		*n = v->text_len;
		return PICL_OK;
	}
	switch (op->conv) {
	case CONV_FLOAT:
		*n = picl_format_double(want_d, tmp);
		break;
	case CONV_HEX:
		*n = format_base(want.mag, 16, op->upper, tmp);
		break;
	case CONV_OCT:
		*n = format_base(want.mag, 8, 0, tmp);
		break;
	default:
		tmp[0] = '-';
		*n = want.neg + format_base(want.mag, 10, 0, tmp + want.neg);
		break;
	}
	*text = tmp;
	if (!text_reads_back(op, tmp, *n, &want, want_d))
		return encode_error(ec, PICL_ERR_UNREPRESENTABLE,
				    op->width ? "the number does not fit the field width"
					      : "the number cannot be written exactly");
	return PICL_OK;
}

static int has_byte_where(const char *s, size_t n, int (*pred)(unsigned char))
{
	size_t i;

	for (i = 0; i < n; i++)
		if (pred((unsigned char)s[i]))
			return 1;
	return 0;
}

static int is_newline(unsigned char c)
{
	return c == '\n';
}

static int is_space_pred(unsigned char c)
{
	return is_space(c);
}

static int check_text_kind(struct encoder *ec, const struct picl_value *v)
{
	if (v->kind != PICL_VAL_CHARS && v->kind != PICL_VAL_STRING)
		return encode_error(ec, PICL_ERR_DATA, "a %c or %s conversion needs a CHARS or STRING value");
	if (!v->v.s.ptr && v->v.s.len > 0)
		return encode_error(ec, PICL_ERR_USAGE, "a text value with a NULL pointer");
	return PICL_OK;
}

/* %c or %Nc: exactly N bytes, no newline; no leading blank after white space. */
static int encode_chars_conv(struct encoder *ec, const struct op *op, const struct picl_value *v,
			     int after_white)
{
	size_t w = op->width ? op->width : 1;
	int rc;

	if ((rc = check_text_kind(ec, v)) < 0)
		return rc;
	if (v->v.s.len != w)
		return picl_set_error(ec->err, PICL_ERR_DATA,
				      "value %zu: a %%%zuc conversion needs exactly %zu bytes, not %zu",
				      ec->index + 1, w, w, v->v.s.len);
	if (has_byte_where(v->v.s.ptr, w, is_newline))
		return encode_error(ec, PICL_ERR_UNREPRESENTABLE, "characters with a newline");
	if (after_white && is_space((unsigned char)v->v.s.ptr[0]))
		return encode_error(ec, PICL_ERR_UNREPRESENTABLE,
				    "characters that begin with a blank after white space in the control string");
	if ((rc = append(ec, " ", 1)) < 0)
		return rc;
	return append(ec, v->v.s.ptr, w);
}

/* %s or %Ns: one non-empty word without blanks or the stop byte. */
static int word_text(struct encoder *ec, const struct op *op, const struct picl_value *v, int stop)
{
	const char *s = v->v.s.ptr;
	size_t n = v->v.s.len;
	int rc;

	if ((rc = check_text_kind(ec, v)) < 0)
		return rc;
	if (n == 0)
		return encode_error(ec, PICL_ERR_UNREPRESENTABLE, "an empty string for %s");
	if (op->width && n > op->width)
		return encode_error(ec, PICL_ERR_UNREPRESENTABLE, "a string longer than the field width");
	if (has_byte_where(s, n, is_space_pred))
		return encode_error(ec, PICL_ERR_UNREPRESENTABLE, "a string with white space for %s");
	if (stop >= 0 && memchr(s, stop, n))
		return encode_error(ec, PICL_ERR_UNREPRESENTABLE,
				    "a string holding the first byte of the literal text after it");
	return PICL_OK;
}

/* A number or a word, after its blank. */
static int encode_token_conv(struct encoder *ec, const struct op *op, const struct picl_value *v,
			     int stop)
{
	char tmp[64];
	const char *text = NULL;
	size_t n = 0;
	int rc;

	if (op->conv == CONV_WORD) {
		if ((rc = word_text(ec, op, v, stop)) < 0)
			return rc;
		text = v->v.s.ptr;
		n = v->v.s.len;
	} else if ((rc = number_text(ec, op, v, tmp, &text, &n)) < 0) {
		return rc;
	}
	if ((rc = append(ec, " ", 1)) < 0)
		return rc;
	if (stop >= 0) {
		ec->pending = op;
		ec->pending_at = *ec->len;
		ec->pending_len = n;
		ec->pending_stop = stop;
	}
	return append(ec, text, n);
}

/* The number or word before a literal must not run into it. */
static int check_pending(struct encoder *ec)
{
	const struct op *op = ec->pending;
	const unsigned char *p = (const unsigned char *)*ec->buf + ec->pending_at;
	size_t n = *ec->len - ec->pending_at;
	struct scanned iv;

	ec->pending = NULL;
	if (op->width && n > op->width)
		n = op->width;
	if (scan_token(op, p, n, ec->pending_stop, &iv) != ec->pending_len)
		return encode_error(ec, PICL_ERR_UNREPRESENTABLE,
				    "the value would run into the literal text that follows it");
	return PICL_OK;
}

static int encode_char_data(struct encoder *ec, const struct picl_value *values, size_t nvalues)
{
	int rc;

	if (nvalues != 1)
		return picl_set_error(ec->err, PICL_ERR_DATA,
				      "character data (\"%%c\") take exactly one value, not %zu", nvalues);
	if ((rc = check_text_kind(ec, &values[0])) < 0)
		return rc;
	if (has_byte_where(values[0].v.s.ptr, values[0].v.s.len, is_newline))
		return encode_error(ec, PICL_ERR_UNREPRESENTABLE, "character data with a newline");
	if ((rc = append(ec, " ", 1)) < 0 || values[0].v.s.len == 0)
		return rc;
	return append(ec, values[0].v.s.ptr, values[0].v.s.len);
}

static int encode_fields(struct encoder *ec, const struct picl_value *values, size_t nvalues)
{
	const struct picl_descriptor *d = ec->d;
	size_t vpf = d->values_per_field, napps, app, i;
	int rc;

	if (d->has_suppressed)
		return picl_set_error(ec->err, PICL_ERR_UNREPRESENTABLE,
				      "the control string has suppressed conversions (%%*), which values cannot fill");
	if (nvalues % vpf != 0)
		return picl_set_error(ec->err, PICL_ERR_DATA,
				      "%zu values are not a whole number of applications of \"%s\" (%zu values each)",
				      nvalues, d->control, vpf);
	napps = nvalues / vpf;
	ec->index = 0;
	for (app = 0; app < napps; app++) {
		int more = app + 1 < napps;

		for (i = 0; i < d->nops; i++) {
			const struct op *op = &d->ops[i];
			int stop;

			switch (op->type) {
			case OP_WHITE:
				/* One blank when literal text follows (the
				 * next field's literal writes its own). */
				stop = op->stop;
				if (stop < 0)
					continue;
				if ((rc = append(ec, " ", 1)) < 0)
					return rc;
				ec->pending = NULL;
				break;
			case OP_LITERAL:
				/* Every data field starts with a blank, also
				 * one that begins with literal text (spec
				 * 2.2.1: fields are separated by white space). */
				if (i == 0) {
					if ((rc = append(ec, " ", 1)) < 0)
						return rc;
					ec->pending = NULL;
				}
				if ((rc = append(ec, d->lits + op->lit, op->lit_len)) < 0)
					return rc;
				if (ec->pending && (rc = check_pending(ec)) < 0)
					return rc;
				break;
			default:
				ec->pending = NULL;
				if (op->conv == CONV_CHARS) {
					rc = encode_chars_conv(ec, op, &values[ec->index],
							       op->after_white || (app > 0 && op->after_white_wrap));
				} else {
					stop = op->stop;
					if (stop < 0 && more)
						stop = op->stop_wrap;
					rc = encode_token_conv(ec, op, &values[ec->index], stop);
				}
				if (rc < 0)
					return rc;
				ec->index++;
				break;
			}
		}
	}
	return PICL_OK;
}

int picl_descriptor_encode(const struct picl_descriptor *d,
			   const struct picl_value *values, size_t nvalues,
			   char **buf, size_t *len, size_t *cap,
			   struct picl_error *err)
{
	struct encoder ec;
	size_t start;
	int rc;

	if (!d)
		return picl_set_error(err, PICL_ERR_USAGE, "no descriptor (NULL)");
	if (!buf || !len || !cap || (!values && nvalues > 0))
		return picl_set_error(err, PICL_ERR_USAGE, "picl_descriptor_encode: a required argument is NULL");
	if (nvalues == 0)
		return PICL_OK;
	memset(&ec, 0, sizeof(ec));
	ec.d = d;
	ec.buf = buf;
	ec.len = len;
	ec.cap = cap;
	ec.err = err;
	start = *len;
	if (d->is_chars)
		rc = encode_char_data(&ec, values, nvalues);
	else
		rc = encode_fields(&ec, values, nvalues);
	if (rc < 0) {
		*len = start;
		if (*buf && *cap > start)
			(*buf)[start] = '\0';
	}
	return rc;
}

int picl_descriptor_has_suppressed(const struct picl_descriptor *d)
{
	return d ? d->has_suppressed : 0;
}

int picl_descriptor_has_literals(const struct picl_descriptor *d)
{
	return d ? d->has_literals : 0;
}
