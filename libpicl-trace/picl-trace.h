/*
 * picl-trace.h - libpicl-trace: read, write and interpret PICL trace files.
 *
 * The "new PICL trace file format" (Worley, ORNL/TM-12125, 1992) is a text
 * format: one record per line, white-space separated fields
 *
 *     record-type event-type timestamp processor process nfields [descriptor data...]
 *
 * This library reads such files as a stream (constant memory whatever the
 * file size, plain text or zstd-compressed, detected by magic bytes), writes
 * them canonically, compiles data descriptors (scanf control strings and their
 * integer aliases) into field programs of its own, keeps the alias and subset
 * definitions in force, accumulates statistics records and loads the YAML
 * schema that describes every record and event type.
 *
 * Conventions (as in libyaml and zstd):
 *  - every public name starts with picl_ / PICL_;
 *  - stateful objects are opaque handles made by *_new or *_open and released by
 *    *_free or *_close; plain structs (record, time, mark, error) are values;
 *  - the library never prints and never exits: a failing call returns a
 *    negative status (enum picl_status) and the object keeps a struct
 *    picl_error with a code, a problem text, the path and a mark (byte
 *    offset, 1-based line and column);
 *  - strings handed out by a reader point into its buffer and stay valid only
 *    until the next call on that reader, unless said otherwise.
 *  - a function that fails with a caller's struct picl_error but has no
 *    input of its own (picl_descriptor_*, picl_defs_*, picl_stats_add*)
 *    sets code and problem, and only the mark fields it documents; path
 *    and the rest stay as the caller set them: set err.path (for instance
 *    to picl_reader_path) or zero the struct before the call, so that
 *    picl_error_format reads no garbage.
 *  - a NULL handle (reader, writer, output, defs, stats, matcher, schema,
 *    descriptor: a failed open's or *_new's NULL, used on) or a NULL
 *    required pointer (a record, an out parameter, text with a length;
 *    not one documented as optional) is never a crash, and never success:
 *    a call that returns a status returns PICL_ERR_USAGE and sets its
 *    struct picl_error, if it has one and that is not NULL (the object's
 *    own error, for a NULL record given to a reader or writer), to a
 *    problem such as "no reader (NULL)"; a getter returns NULL, 0, or the
 *    value it documents for none (picl_output_fd -1,
 *    picl_matcher_declared -1, picl_reader_error_is_fatal 1, and
 *    picl_reader_error and picl_writer_error a static error,
 *    picl_matcher_strerror a text, saying the handle is NULL); a void
 *    call does nothing. *_free and *_abort take NULL; *_close and
 *    *_commit return PICL_ERR_USAGE for it.
 *  - No text read from a trace is ever passed to scanf or printf.
 */
#ifndef PICL_TRACE_H
#define PICL_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PICL_TRACE_VERSION "0.1.0"

/* ------------------------------------------------------------------------ */
/* Status codes                                                              */
/* ------------------------------------------------------------------------ */

/*
 * Every function that can fail returns an int: 0 (PICL_OK) or a positive
 * value on success as documented, a negative enum picl_status on failure.
 */
enum picl_status {
	PICL_OK = 0,
	PICL_END = 1,            /* picl_reader_next: no more records */
	PICL_ERR_NOMEM = -1,     /* out of memory */
	PICL_ERR_IO = -2,        /* read/write/open failed (errno kept) */
	PICL_ERR_SYNTAX = -3,    /* a field is not what the format says */
	PICL_ERR_RANGE = -4,     /* a number does not fit its type */
	PICL_ERR_DESCRIPTOR = -5,/* a control string we cannot compile */
	PICL_ERR_DATA = -6,      /* data do not match the descriptor/count */
	PICL_ERR_ALIAS = -7,     /* descriptor alias not defined in scope */
	PICL_ERR_TOOLONG = -8,   /* a record longer than max_record */
	PICL_ERR_COMPRESS = -9,  /* corrupt or truncated zstd stream */
	PICL_ERR_SCHEMA = -10,   /* schema file invalid (one that cannot be
				    opened or read: PICL_ERR_IO) */
	PICL_ERR_USAGE = -11,    /* the caller broke a documented rule */
	PICL_ERR_UNREPRESENTABLE = -12 /* the writer cannot express this record */
};

/* A short constant English text for a status ("syntax error", ...). */
const char *picl_status_text(int status);

/* ------------------------------------------------------------------------ */
/* Positions and errors                                                      */
/* ------------------------------------------------------------------------ */

/* Where something is in an input: byte offset (0-based), line and column
 * (1-based; the column counts bytes). A mark with line 0 means "unknown". */
struct picl_mark {
	uint64_t offset;
	uint64_t line;
	uint64_t column;
};

#define PICL_PROBLEM_MAX 256

/*
 * What went wrong. `path` names the input ("-" or "<stdin>" for standard
 * input, "<memory>" for a buffer) and is owned by the object that reported
 * the error. `problem` is a one-line lowercase text without a full stop,
 * problem first ("expected an integer for the processor id, found \"x7\"").
 * `sys_errno` is errno for PICL_ERR_IO, otherwise 0 (0 too for the I/O
 * error no system call reported: a file that shrank while it was read).
 */
struct picl_error {
	int code;                        /* enum picl_status, < 0 */
	const char *path;
	struct picl_mark mark;
	char problem[PICL_PROBLEM_MAX];
	int sys_errno;
};

/*
 * Format an error as "path:line:column: problem" (or "path: problem" when the
 * line is unknown) into buf (always NUL-terminated, truncated to size).
 * Returns buf. A NULL err is formatted as "no error (NULL)"; a NULL buf, or
 * a size of 0, is returned with nothing written.
 */
char *picl_error_format(const struct picl_error *err, char *buf, size_t size);

/* ------------------------------------------------------------------------ */
/* Exact timestamps                                                          */
/* ------------------------------------------------------------------------ */

/*
 * A timestamp is an exact decimal: value = mant * 10^-scale, 0 <= scale <=
 * PICL_TIME_MAX_SCALE, |mant| < 10^18 (at most 18 digits, what the text
 * form carries). "-0.715036" is {-715036, 6}; "12" is {12, 0};
 * "1.5e-3" is {15, 4}. Writing a time back gives its digits with `scale`
 * decimals, so a time read from canonical text is written byte for byte as
 * it came ("0.00000" stays "0.00000").
 */
#define PICL_TIME_MAX_SCALE 18

/* What a time must be, in the words error messages use. */
#define PICL_TIME_RANGE_TEXT \
	"at most 18 significant digits and 18 decimals, and less than 10^18 in all"

struct picl_time {
	int64_t mant;
	int32_t scale;
};

/*
 * Parse the whole of s[0..len) as a decimal number: optional sign, digits
 * with an optional point, optional exponent (e/E, sign, digits). No locale,
 * no strtod. Returns PICL_OK, PICL_ERR_SYNTAX (not a number; *bad is set to
 * the offset of the first offending byte when bad is not NULL) or
 * PICL_ERR_RANGE (more than 18 significant digits, a mantissa of 10^18 or
 * more once the exponent is applied, as in "1e18", or a value that needs
 * more than PICL_TIME_MAX_SCALE decimals, as in "1e-19"). Zeros that end
 * the decimals are kept as digits only while they fit 18 digits and 18
 * decimals, else dropped ("10e-19" is {1, 18}, "0.000e-20" is {0, 18},
 * "123456789012345678.0" is {123456789012345678, 0}); otherwise the scale
 * is the number of decimals the text gives, after the exponent.
 */
int picl_time_parse(const char *s, size_t len, struct picl_time *t, size_t *bad);

/* Exact three-way comparison (-1, 0, 1), whatever the scales. (A scale
 * outside 0..PICL_TIME_MAX_SCALE is not a time: it is taken as the nearest
 * bound, as picl_time_format does; picl_time_sub and picl_time_rescale
 * refuse it with PICL_ERR_RANGE.) */
int picl_time_cmp(struct picl_time a, struct picl_time b);

/* Write t as canonical text (no exponent, `scale` decimals) into buf, which
 * must hold PICL_TIME_BUFSIZE bytes; NUL-terminated. Returns the length (0
 * for a NULL buf, nothing written). A
 * scale outside 0..PICL_TIME_MAX_SCALE (not a valid time) is taken as the
 * nearest bound, so the text never overruns buf. */
#define PICL_TIME_BUFSIZE 48
size_t picl_time_format(struct picl_time t, char *buf);

/* The value as a double (nearest; for arithmetic, never for comparing). */
double picl_time_to_double(struct picl_time t);

/*
 * The difference a - b as an exact time at the larger of the two scales.
 * Returns PICL_OK or PICL_ERR_RANGE when it does not fit (18 digits).
 */
int picl_time_sub(struct picl_time a, struct picl_time b, struct picl_time *out);

/*
 * Rescale t to `scale` decimals exactly (fails with PICL_ERR_RANGE if that
 * would need more than 18 digits, PICL_ERR_DATA if digits would be lost).
 */
int picl_time_rescale(struct picl_time t, int32_t scale, struct picl_time *out);

/* ------------------------------------------------------------------------ */
/* Record and event types (spec Tables 3-5)                                  */
/* ------------------------------------------------------------------------ */

enum picl_record_type {
	PICL_REC_MARK = -2,
	PICL_REC_ENTRY = -3,
	PICL_REC_EXIT = -4,
	PICL_REC_LABEL = -5,
	PICL_REC_DESCRIPTOR = -6,
	PICL_REC_MESSAGE = -7,
	PICL_REC_STAT_TIME = -101,
	PICL_REC_STAT_COUNT = -102,
	PICL_REC_STAT_VOLUME = -103,
	PICL_REC_SUBSET_PROCESSORS = -201,
	PICL_REC_SUBSET_PROCESSES = -202,
	PICL_REC_SUBSET_EVENTS = -203,
	/* Header records: our extension, DESIGN.md point 8 (see schemas/). */
	PICL_REC_HEADER_PROCESSORS = -307,   /* the processors of the trace */
	PICL_REC_HEADER_FIRST = -399,
	PICL_REC_HEADER_LAST = -301
};

#define PICL_WILDCARD (-1)
#define PICL_HOST_PROCESSOR 32767

/* 1 if the record type is a header record (-399 .. -301). */
int picl_is_header_type(int32_t record_type);

/* 1 if the record type defines something: an alias (-6) or a subset
 * (-201, -202, -203). */
int picl_is_definition_type(int32_t record_type);

/* ------------------------------------------------------------------------ */
/* Data descriptors                                                          */
/* ------------------------------------------------------------------------ */

/*
 * The kind of one value in a record's data, after the descriptor has been
 * applied. Integers of every width and signedness are widened to 64 bits.
 */
enum picl_value_kind {
	PICL_VAL_INT = 1,     /* %d %i %ld %li           -> .i */
	PICL_VAL_UINT,        /* %u %x %lu %lx            -> .u */
	PICL_VAL_FLOAT,       /* %f %e %g (single)        -> .d */
	PICL_VAL_DOUBLE,      /* %lf %le %lg              -> .d */
	PICL_VAL_CHARS,       /* %c, %Nc: exactly N bytes -> .s */
	PICL_VAL_STRING       /* %s, %Ns: one word        -> .s */
};

/*
 * One decoded value. `text`/`text_len` is the value exactly as it stood in
 * the input (a writer copies it back verbatim, which is how round trips keep
 * every digit); a value built by a program has text == NULL and is formatted
 * from its number. For CHARS and STRING, .s.ptr/.s.len is the text itself.
 */
struct picl_value {
	enum picl_value_kind kind;
	union {
		int64_t i;
		uint64_t u;
		double d;
		struct { const char *ptr; size_t len; } s;
	} v;
	const char *text;
	size_t text_len;
};

/* A compiled control string: opaque, immutable once made, shareable. */
struct picl_descriptor;

/*
 * Compile a scanf-style control string (without its surrounding quotes) into
 * a field program. Supported: %d %i %u %x %X %o, with l (%ld %li %lu %lx),
 * %f %F %e %g %E %G and their l forms (double), %c, %s, field widths (%5d,
 * %3c), assignment suppression (%*d), %%, literal text and white space.
 * Unlike scanf, a number ends only at white space, the end of the data,
 * its width or the first byte of the literal text that follows it: "%d%c"
 * does not split "1x", "%dabc" reads "12abc" as 12. A %s word stops at that
 * byte too ("%s,%d" reads "a,1"), and %c/%Nc first takes one separating
 * blank if one is there (so "%c%c" reads "a b" as 'a' and 'b'). Data
 * fields (applications) are separated by white space, none needed.
 * Rejected with PICL_ERR_DESCRIPTOR and a message naming the column: %n, %p,
 * %[...], h/hh/L/ll/j/z/t modifiers, an unknown conversion, a control string
 * with no conversion at all, or one longer than 4096 bytes.
 *
 * The control string "%c" alone means character data: the record's
 * "number of data fields" then counts characters (DESIGN.md point 3).
 *
 * On success *out is a new descriptor owned by the caller (picl_descriptor_free)
 * and PICL_OK is returned. On failure *out is NULL and, if err is not NULL,
 * err->problem and err->mark.column (1-based within the control string) say
 * what is wrong; err->path is left as the caller set it.
 */
int picl_descriptor_compile(const char *control, size_t len,
			    struct picl_descriptor **out, struct picl_error *err);
/* Free a compiled descriptor (NULL is fine). */
void picl_descriptor_free(struct picl_descriptor *d);

/* The control string the descriptor was compiled from (NUL-terminated). */
const char *picl_descriptor_control(const struct picl_descriptor *d);

/* Number of values one application of the control string yields (assigned
 * conversions only; suppressed ones are not counted). */
size_t picl_descriptor_values_per_field(const struct picl_descriptor *d);

/* Kind of the i-th value of one application (i < values_per_field; 0, no
 * kind, for an i past them). */
enum picl_value_kind picl_descriptor_value_kind(const struct picl_descriptor *d, size_t i);

/* 1 if this is character data (the control string is exactly "%c"). */
int picl_descriptor_is_chars(const struct picl_descriptor *d);

/* 1 if the control string has suppressed conversions (%*d): values cannot
 * say what they skip, so picl_writer_write writes such a record's data
 * text as it was read, and refuses values that differ from it. */
int picl_descriptor_has_suppressed(const struct picl_descriptor *d);

/* 1 if the control string has literal text besides its conversions and
 * white space ("%d,%d", "x=%d", "%%"): the writer then puts that text
 * where the string does and a blank before each data item that follows
 * literal text ("1,2" for "%d,%d" is written "1, 2"), so single-spaced
 * data may still not be what it writes. */
int picl_descriptor_has_literals(const struct picl_descriptor *d);

/*
 * Decode `nfields` applications of the descriptor from text[0..len) (the data
 * part of a record, starting right after the descriptor field; for character
 * data the single separating blank is text[0]). Values are appended to
 * values[] (capacity *nvalues_cap values; *nvalues is set to the number
 * written). Returns:
 *   PICL_OK                 all fields decoded; *used is the number of bytes
 *                           consumed (trailing white space not included);
 *   PICL_ERR_DATA           text ended early or a value does not match its
 *                           conversion; err->mark.column is 1-based within
 *                           text and err->problem says what was expected;
 *   PICL_ERR_RANGE          an integer does not fit 64 bits (or its width),
 *                           or a number a double (%f is read as a double
 *                           too: 1e39 is a value, 1e999 this error);
 *   PICL_ERR_NOMEM          values[] is too small: *nvalues_cap is set to
 *                           the capacity needed, nothing else is changed.
 * Text values point into `text`.
 */
int picl_descriptor_decode(const struct picl_descriptor *d, uint64_t nfields,
			   const char *text, size_t len,
			   struct picl_value *values, size_t *nvalues,
			   size_t *nvalues_cap, size_t *used, struct picl_error *err);

/*
 * Encode `nvalues` values (a whole number of applications) as canonical data
 * text: one blank before every value (so the output starts with a blank)
 * and before every data field (one application; spec 2.2.1: fields are
 * separated by white space), literal text of the control string copied, values with .text copied
 * verbatim when that text still reads back as the value (else, and for
 * values with no text, formatted from the value), other numbers formatted
 * exactly (integers in decimal, doubles in
 * the shortest form that reads back to the same double). For character data,
 * the single value is written after one blank. Appends to the buffer
 * (*buf, *len, *cap) (realloc'd as needed; the caller frees *buf).
 * Returns PICL_OK, PICL_ERR_DATA (values do not fit the descriptor: kind or
 * count), PICL_ERR_UNREPRESENTABLE (a string value contains a newline or,
 * for %s, white space or nothing; a number that cannot be written so that
 * it reads back as itself, within its width and before the literal text
 * after it; infinities and NaNs; a control string with suppressed
 * conversions, %*, which values cannot fill), PICL_ERR_USAGE (a required
 * argument is NULL) or PICL_ERR_NOMEM.
 */
int picl_descriptor_encode(const struct picl_descriptor *d,
			   const struct picl_value *values, size_t nvalues,
			   char **buf, size_t *len, size_t *cap,
			   struct picl_error *err);

/* The predefined aliases of spec Table 2: 0 "%c", 1 "%s", 2 "%d", 3 "%ld",
 * 4 "%f", 5 "%lf". Returns the control string, or NULL for other numbers. */
const char *picl_predefined_alias(int64_t alias);

/* ------------------------------------------------------------------------ */
/* Records                                                                   */
/* ------------------------------------------------------------------------ */

/*
 * One trace record (spec Table 1). A record handed out by a reader points
 * into the reader's buffers and is valid until the next picl_reader_* call.
 * A record built by a program may point anywhere the program likes.
 *
 * Descriptor: when nfields is 0 there is none (has_descriptor 0). Otherwise
 * either alias >= 0 (an integer descriptor; control/control_len NULL/0) or
 * alias == -1 and control/control_len is the control string without quotes.
 * `desc` is the compiled descriptor the reader resolved (alias looked up in
 * the scope of this record), or NULL when not resolved (raw mode, or the
 * reader could not resolve it and the caller asked to go on).
 *
 * Data: `data`/`data_len` is the raw text after the descriptor field (with
 * its leading blank, continuation lines joined). `values`/`nvalues` are the
 * decoded values (NULL/0 in raw mode); there are nfields *
 * picl_descriptor_values_per_field(desc) of them, or, for character data,
 * exactly one PICL_VAL_CHARS value of nfields bytes. A -6 record (alias
 * definition) is decoded without its descriptor (DESIGN.md point 4): desc
 * stays NULL and its values are an INT, the alias, and a STRING, the
 * control string (its text is the field as it stood, double quotes
 * included), in raw mode too unless PICL_READ_NO_DEFS is also given.
 *
 * `line`/`line_len` is the record's whole text as it stood in the input
 * without the newline; a record continued over several lines is joined
 * into one (each " \\" and newline at a line's end dropped, the blank
 * kept). Tools that move records without re-formatting them write this
 * line. `mark` is where the record starts.
 */
struct picl_record {
	int32_t type;
	int32_t event;
	struct picl_time time;
	int32_t processor;
	int32_t process;
	uint64_t nfields;

	int has_descriptor;
	int64_t alias;
	const char *control;
	size_t control_len;
	const struct picl_descriptor *desc;

	const char *data;
	size_t data_len;
	const struct picl_value *values;
	size_t nvalues;

	const char *line;
	size_t line_len;
	struct picl_mark mark;
};

/* Set every field to its empty value (no descriptor, no data). */
void picl_record_init(struct picl_record *rec);

/* ------------------------------------------------------------------------ */
/* Definitions in force: aliases and subsets                                 */
/* ------------------------------------------------------------------------ */

/*
 * The alias and subset definitions a trace has made so far. A reader keeps
 * one (picl_reader_defs) and updates it from every -6, -201, -202 and -203
 * record it reads; a writer or a program may keep its own.
 *
 * Alias scope (DESIGN.md point 4): a -6 record defines alias N for the
 * (event, processor, process) of the record itself; -1 in a field matches
 * every value, a subset id (< -1) matches its members. Lookup takes the most
 * specific definition in force that matches (an exact value beats a subset,
 * which beats -1; summed over the three fields), the latest among equals;
 * the predefined aliases 0-5 are the least specific of all.
 *
 * Subsets (-201 processors, -202 processes, -203 events): the first data
 * value is the subset id, the others its members; a later definition of the
 * same id replaces the earlier one. The predefined event subsets of Table 5
 * (-1001 user events, -1002 system events, -1011 ... -1902) are built in.
 * Processor and event subsets are the same for every record, whatever the
 * defining record's processor field. A process subset is defined "on the
 * specified processor" (Table 2): by the -202 record's processor field, for
 * that processor (0 or more, the host 32767), for every processor (-1), or
 * for each processor a processor subset holds when the record is read. A
 * record of processor P resolves a process subset id through P's definition
 * if there is one, else through the one for every processor; so do a
 * process subset's nested members. The *_on functions below take that P;
 * the others resolve process subsets as a record of processor -1 does (the
 * definitions for every processor only), but picl_defs_subset_exists says
 * whether any -202 record defined the id.
 */
struct picl_defs;

enum picl_subset_kind {
	PICL_SUBSET_PROCESSORS = 0,
	PICL_SUBSET_PROCESSES = 1,
	PICL_SUBSET_EVENTS = 2
};

/* An empty set of definitions (the predefined aliases and subsets only),
 * or NULL when out of memory; free it with picl_defs_free (NULL is fine). */
struct picl_defs *picl_defs_new(void);
void picl_defs_free(struct picl_defs *defs);

/*
 * Take in a definition record (-6, -201, -202, -203) whose values have been
 * decoded (a -6 record: an integer then a string control string, with or
 * without its double quotes). Other record types are ignored (PICL_OK).
 * Returns PICL_OK, PICL_ERR_DATA (not a well-formed definition: err says
 * why), PICL_ERR_DESCRIPTOR (the control string does not compile) or
 * PICL_ERR_NOMEM. On an error, err->mark.column is the 1-based column in
 * rec->line of the byte at fault (the value, or the control string's
 * character) when the values point into rec->line, else 0.
 */
int picl_defs_apply(struct picl_defs *defs, const struct picl_record *rec,
		    struct picl_error *err);

/*
 * Define alias `alias` for the scope (event, processor, process) directly.
 * The control string is copied. Returns as picl_defs_apply.
 */
int picl_defs_define_alias(struct picl_defs *defs, int64_t alias,
			   int32_t event, int32_t processor, int32_t process,
			   const char *control, size_t len, struct picl_error *err);

/*
 * The compiled descriptor for `alias` as seen by a record at (event,
 * processor, process), or NULL if none is in force there. Owned by defs.
 * Look-ups (this and picl_defs_matches) keep caches and marks in defs, so
 * one defs serves one thread at a time.
 */
const struct picl_descriptor *picl_defs_lookup_alias(const struct picl_defs *defs,
		int64_t alias, int32_t event, int32_t processor, int32_t process);

/*
 * A compiled descriptor for an inline control string, cached in defs (so a
 * trace that repeats "%d%lf" on every record compiles it once). Returns
 * PICL_OK and *out (owned by defs), or PICL_ERR_DESCRIPTOR (or
 * PICL_ERR_NOMEM) with err set and *out NULL. At most 4096 distinct strings are cached;
 * past that, a string not cached is compiled into one scratch slot, and
 * *out then stays valid only until the next call that compiles another.
 */
int picl_defs_control(struct picl_defs *defs, const char *control, size_t len,
		      const struct picl_descriptor **out, struct picl_error *err);

/* Define subset `id` (< -1) of `kind` with n members (copied). PICL_OK,
 * PICL_ERR_USAGE for an id of -1 or more, PICL_ERR_NOMEM, or PICL_ERR_DATA
 * past the limits (65536 subsets of all kinds, 16777216 members
 * held by all subsets); nothing changes then. */
int picl_defs_define_subset(struct picl_defs *defs, enum picl_subset_kind kind,
			    int32_t id, const int32_t *members, size_t n);

/* The same for a process subset defined on `processor` (0 or more, or -1
 * for every processor; PICL_ERR_USAGE for a processor subset, which
 * picl_defs_apply expands); `processor` is ignored for the other kinds.
 * picl_defs_define_subset is this with -1. */
int picl_defs_define_subset_on(struct picl_defs *defs, enum picl_subset_kind kind,
			       int32_t processor, int32_t id, const int32_t *members,
			       size_t n);

/* 1 if `id` names a subset of `kind` (defined, or predefined for events);
 * a process subset: defined on some processor or on every one. */
int picl_defs_subset_exists(const struct picl_defs *defs,
			    enum picl_subset_kind kind, int32_t id);

/* The same as a record of `processor` sees it (process subsets: defined
 * for that processor or for every processor). */
int picl_defs_subset_exists_on(const struct picl_defs *defs, enum picl_subset_kind kind,
			       int32_t processor, int32_t id);

/*
 * 1 if `value` is matched by the field value `pattern` of `kind`: pattern ==
 * value, pattern == -1, or pattern is a subset containing value (predefined
 * event subsets included; a subset member may itself be a subset, followed
 * up to 8 levels). 0 otherwise (also for an undefined subset, and for a
 * NULL defs, whatever the pattern). It costs at
 * most the subsets and members reachable from pattern, each seen once.
 */
int picl_defs_matches(const struct picl_defs *defs, enum picl_subset_kind kind,
		      int32_t pattern, int32_t value);

/* The same in a record of `processor`: a process subset (and each nested
 * one) is that processor's definition, else the one for every processor.
 * picl_defs_matches is this with -1. */
int picl_defs_matches_on(const struct picl_defs *defs, enum picl_subset_kind kind,
			 int32_t processor, int32_t pattern, int32_t value);

/* The members of a defined subset, *n of them (NULL and 0 if undefined or
 * predefined; n may be NULL when only whether it is defined matters). */
const int32_t *picl_defs_subset_members(const struct picl_defs *defs,
		enum picl_subset_kind kind, int32_t id, size_t *n);

/* The same as a record of `processor` sees it. */
const int32_t *picl_defs_subset_members_on(const struct picl_defs *defs,
		enum picl_subset_kind kind, int32_t processor, int32_t id, size_t *n);

/* ------------------------------------------------------------------------ */
/* Reader                                                                    */
/* ------------------------------------------------------------------------ */

struct picl_reader;

enum picl_reader_flags {
	/* Do not decode data values (records have values NULL, nvalues 0 and
	 * desc NULL); definition records are still decoded and applied. */
	PICL_READ_RAW = 1 << 0,
	/* Do not apply -6/-201/-202/-203 records to the reader's defs. With
	 * PICL_READ_RAW too, definition records are not even decoded (for
	 * tools that only move records, e.g. reading back sorted runs). */
	PICL_READ_NO_DEFS = 1 << 1,
	/* Always use the careful field parser, never the one-pass shortcuts
	 * for canonical lines (fixed fields and data read in one pass, by
	 * vector instructions or not); the same records, more slowly (for
	 * tests that compare the two). Data are still decoded by the
	 * descriptor's own code, which for decimal-only descriptors ("%d",
	 * "%lf", "%d%lf") is a loop of its own (compared with the general
	 * decoder by fuzz-descriptor). */
	PICL_READ_NO_FAST_PATH = 1 << 2,
	/* Parse ahead on other threads, in order: records come out exactly as
	 * without the flag (same values, errors, marks and definitions), only
	 * sooner on a machine with several cores. Taken only for regular
	 * files (plain or zstd), never for pipes or memory, and only when more
	 * than one thread may parse (picl_reader_threads: one per CPU the
	 * process may run on, or as many as the environment variable
	 * PICL_THREADS says, at most 8), the calling thread included (it
	 * parses too while the records it needs next are not ready). Memory grows by a few MB (a handful of 256 KiB chunks and
	 * their parsed records). The threads start at the first
	 * picl_reader_next and stop in picl_reader_free. */
	PICL_READ_PARALLEL = 1 << 3,
	/* With PICL_READ_RAW and PICL_READ_PARALLEL: the parsing threads
	 * decode the data as well wherever they can do it alone (the
	 * descriptor is a control string, or an alias defined the same for
	 * every event, processor and process, and the data match it). Those
	 * records come back with values and desc set, exactly as
	 * picl_reader_decode would make them; the others come back raw
	 * (values NULL). Errors and definitions stay those of raw mode: a
	 * record whose data are wrong is not an error here, only one that
	 * picl_reader_decode reports when asked. For tools that want most
	 * records' values but decide themselves what bad data mean (decode
	 * only when rec->values is NULL): the decoding then happens on the
	 * other cores. Ignored without both flags. */
	PICL_READ_DECODE_AHEAD = 1 << 4
};

struct picl_reader_options {
	unsigned flags;            /* enum picl_reader_flags */
	size_t max_record;         /* longest record in bytes; 0: 1 MiB */
	size_t buffer_size;        /* read size; 0: 1 MiB */
};

/*
 * Open a trace for reading. `path` "-" reads standard input. The input may be
 * plain text or a zstd stream (recognised by its magic bytes). opts may be
 * NULL for the defaults. On processors with AVX-512 VBMI2 the reader reads
 * canonical lines with vector instructions, the same records either way
 * (the environment variable PICL_SIMD=0 turns that off: libpicl-trace(3)).
 * Returns a reader, or NULL with *status set (if status is not NULL) and,
 * if err is not NULL, *err describing why (PICL_ERR_USAGE for a NULL path,
 * err->path "<input>"). err->path then points to a copy
 * of the name in the library's storage for the calling thread, which a
 * later failing call of the same kind in that thread overwrites (and the
 * thread's end frees): copy it to keep it. The same holds for the other
 * open calls, and for the err of picl_writer_close and picl_output_commit.
 */
struct picl_reader *picl_reader_open(const char *path,
				     const struct picl_reader_options *opts,
				     int *status, struct picl_error *err);

/* Read from an open file descriptor (not closed by the reader); `name` is
 * used in error messages and copied (NULL: "<input>"). */
struct picl_reader *picl_reader_open_fd(int fd, const char *name,
					const struct picl_reader_options *opts,
					int *status, struct picl_error *err);

/* Read from memory (not copied: it must outlive the reader; NULL with
 * len 0 is an empty input, NULL with more is refused: PICL_ERR_USAGE);
 * `name` as for picl_reader_open_fd (NULL: "<memory>"). */
struct picl_reader *picl_reader_open_memory(const void *buf, size_t len,
					    const char *name,
					    const struct picl_reader_options *opts,
					    int *status, struct picl_error *err);

/*
 * Read the next record into *rec. Returns:
 *   PICL_OK   a record is in *rec (valid until the next call);
 *   PICL_END  the input is exhausted;
 *   < 0       the record at picl_reader_error()->mark is malformed (or the
 *             input failed). For errors in one record the reader has already
 *             moved past it: calling picl_reader_next again goes on with the
 *             next record (the caller chooses to stop or to skip). If the
 *             error is fatal (I/O, corrupt compression; see
 *             picl_reader_error_is_fatal), every later call fails the same.
 * Blank lines and lines whose first non-blank is '#' are skipped (comments
 * are our extension for hand-written test traces; writers never emit them).
 */
int picl_reader_next(struct picl_reader *r, struct picl_record *rec);

/* The last error (valid until the next call). It stays until another
 * replaces it: a later PICL_OK or PICL_END does not clear it, so tell
 * success from failure by the return values, not by its code (which is 0
 * only while the reader has had no error). For a NULL r, a static error:
 * PICL_ERR_USAGE, path "<input>", problem "no reader (NULL)". */
const struct picl_error *picl_reader_error(const struct picl_reader *r);
/* 1 when that error ends the reading (I/O, corrupt compression, out of
 * memory): every later picl_reader_next fails the same; 0 when it was one
 * malformed record, skipped (or a usage error, a NULL rec). 1 for a NULL
 * r, on which every call fails the same, so that a loop that stops at a
 * fatal error stops. */
int picl_reader_error_is_fatal(const struct picl_reader *r);

/* The definitions in force after the records read so far. Owned by r. */
struct picl_defs *picl_reader_defs(struct picl_reader *r);

/* The input's name as given to open, the name errors carry ("<stdin>" for
 * picl_reader_open's "-"; "<input>" for picl_reader_open_fd's NULL and
 * "<memory>" for picl_reader_open_memory's). */
const char *picl_reader_path(const struct picl_reader *r);

/* 1 if the input is zstd-compressed. */
int picl_reader_is_compressed(const struct picl_reader *r);

/* How many threads a PICL_READ_PARALLEL reader opened now would parse
 * with, the calling thread included: the number in the environment
 * variable PICL_THREADS if it is set to a whole number from 1 up, in
 * decimal digits (anything else counts as unset), else one per CPU this
 * process may run on (its affinity mask, as
 * taskset or a batch system's cpuset leave it: not every CPU online); at
 * most 8 either way. 1 means such a reader reads serially. */
size_t picl_reader_threads(void);

/* Bytes of (decompressed) input consumed so far, for progress reports. */
uint64_t picl_reader_offset(const struct picl_reader *r);

/*
 * Where byte p of rec's text (rec->line .. + line_len: a field, a value's
 * text) stood in the input: line, column and offset into *at. For the
 * record picl_reader_next gave last, continued over several lines, that is
 * the physical line p came from; otherwise p's distance from the record's
 * start (rec->mark) on its first line. A p outside the text gives
 * rec->mark; a NULL r or rec the unknown mark (all 0).
 */
void picl_reader_locate(const struct picl_reader *r, const struct picl_record *rec,
			const char *p, struct picl_mark *at);

/*
 * Decode the data of a record read in raw mode (or re-decode one), using the
 * reader's defs to resolve its alias or control string when rec->desc is
 * NULL (and setting rec->desc); a record whose desc is set is decoded with
 * that descriptor, so a caller that changes alias or control sets desc to
 * NULL first. The values stay valid until the next
 * call on the reader. Returns PICL_OK or a negative status (error in
 * picl_reader_error; PICL_ERR_NOMEM, as anywhere in the reader, is fatal:
 * picl_reader_next fails the same from then on).
 */
int picl_reader_decode(struct picl_reader *r, struct picl_record *rec);

/* Close the input (if the reader opened it) and free everything (NULL is
 * fine). */
void picl_reader_free(struct picl_reader *r);

/* ------------------------------------------------------------------------ */
/* Output files                                                              */
/* ------------------------------------------------------------------------ */

/*
 * A file written all or nothing: what picl_writer_open does for a trace,
 * for any bytes (a tool's report, an image another program writes by
 * name). Where the bytes for `path` go:
 *
 *   - "-", /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: that
 *     descriptor of this process, as it is (a redirection to a file, in
 *     append mode or not, is honoured). When it is a regular file,
 *     picl_output_abort takes back what was written: it cuts the file to
 *     where the output began (its offset at open; its size in append
 *     mode) and puts the offset there, unless the file has grown since
 *     (another writer) or standard error goes to the same file (the
 *     message explaining the failure may be in it);
 *   - a device, a FIFO or a socket, or a file under /dev (but /dev/shm),
 *     /proc or /sys: opened (created if need be) and written directly;
 *   - anything else: a temporary file ".NAME.tmpXXXXXX" in the directory
 *     of the file NAME stands for, renamed onto it by picl_output_commit
 *     once written and synced, and removed by any failure or
 *     picl_output_abort. So a half-written file never has the real name.
 *     Symbolic links are followed: the link stays, its target is replaced
 *     (created, when the link dangles).
 *     An existing file keeps its permission bits (set-id bits aside), and
 *     its owner and group where the caller may set them; a file the caller
 *     may not write is refused (EACCES), as opening it would be. A new file
 *     gets 0666 less the umask.
 *
 * A path is known by its name as given or with its directory resolved
 * (realpath, the last component kept): "//dev/stdout", "/dev/./stdout"
 * and /dev/fd/../fd/1 are standard output too.
 *
 * With PICL_OUTPUT_FILE the caller always gets a regular file it may write
 * by name (picl_output_temp_path): in the first two cases a temporary file
 * in $TMPDIR (default /tmp), copied into the destination by
 * picl_output_commit.
 */
struct picl_output;

enum picl_output_flags {
	PICL_OUTPUT_FILE = 1 << 0
};

/* Open an output as described above. NULL on failure, with *status and
 * err set (err->path is a per-thread copy of `path`, "<stdout>" for "-":
 * see picl_reader_open; a NULL path is PICL_ERR_USAGE, err->path
 * "<output>"). */
struct picl_output *picl_output_open(const char *path, unsigned flags, int *status,
				     struct picl_error *err);

/* The descriptor to write to (owned by the output: do not close it); -1
 * for a NULL o. */
int picl_output_fd(const struct picl_output *o);

/* The temporary file being written, or NULL when writing directly: the
 * file to write by name (always set with PICL_OUTPUT_FILE), and the one a
 * signal handler should remove. */
const char *picl_output_temp_path(const struct picl_output *o);

/* Finish: sync and rename the temporary file into place (or copy it into
 * the destination), close what was opened, free o. PICL_OK, or a negative
 * status with err set (nothing is left behind then); PICL_ERR_USAGE for a
 * NULL o, which a failed open returned. */
int picl_output_commit(struct picl_output *o, struct picl_error *err);

/* Give up: remove the temporary file (or take back what was written to a
 * regular file written directly, as described above), close, free (NULL
 * is fine). */
void picl_output_abort(struct picl_output *o);

/* ------------------------------------------------------------------------ */
/* Writer                                                                    */
/* ------------------------------------------------------------------------ */

struct picl_writer;

struct picl_writer_options {
	int compress;          /* non-zero: write a zstd stream; 0: plain text */
	int level;             /* zstd level; 0: 3 */
	size_t buffer_size;    /* 0: 1 MiB */
};

/*
 * Open `path` for writing ("-" is standard output), as picl_output_open
 * does: a named file is written to a temporary file in the same directory
 * and renamed over `path` only by a successful picl_writer_close, so no
 * half-written file is ever left behind; picl_writer_abort (or a failed
 * close) removes the temporary file (standard output redirected to a
 * regular file is cut back, as picl_output_abort does).
 */
struct picl_writer *picl_writer_open(const char *path,
				     const struct picl_writer_options *opts,
				     int *status, struct picl_error *err);

/* Write to an open descriptor (not closed by the writer); `name` is used
 * in error messages and copied (NULL: "<output>"). */
struct picl_writer *picl_writer_open_fd(int fd, const char *name,
					const struct picl_writer_options *opts,
					int *status, struct picl_error *err);

/*
 * Write one record as one canonical line: the six fixed fields separated by
 * single blanks, the descriptor (alias number, or the control string in
 * double quotes) when nfields > 0, then the data. Data come from
 * rec->values when nvalues > 0 (encoded with rec->desc, which must then be
 * set, and be compiled from rec->control when the record has one: else
 * PICL_ERR_USAGE; but for a -6 record's two values: alias and control
 * string, written in double quotes, nfields 1; an alias below 0, or a
 * control string that picl_descriptor_compile refuses, is refused with
 * PICL_ERR_UNREPRESENTABLE, as a reader would refuse the line; so are
 * the values of a -201, -202 or -203 record that are not 32-bit integers,
 * or whose first, the subset id, is -1 or more); otherwise from rec->data/data_len as it is
 * (it must start with a blank, or be empty, and hold no newline): such data
 * are not checked against nfields or the descriptor (the writer keeps no
 * definitions, so an alias cannot be resolved), which is what keeps moving
 * records fast; a caller that changes nfields or the descriptor of a
 * record read gives values, which are checked. A control string with suppressed conversions (%*)
 * cannot be encoded from values: such a record is written from rec->data,
 * and refused (PICL_ERR_UNREPRESENTABLE) when its values are no longer what
 * those data hold. Data that end in " \\" or a carriage return get a
 * blank after them, so that they do not read as a continuation or a CRLF
 * line's end. A record with no data fields (nfields 0) is written
 * without data: values or data text (other than blanks) on it are refused
 * (PICL_ERR_USAGE) rather than dropped. Returns PICL_OK or a negative
 * status (PICL_ERR_USAGE for a NULL rec).
 */
int picl_writer_write(struct picl_writer *w, const struct picl_record *rec);

/*
 * Write bytes that already form whole canonical lines (each ending in
 * '\n'), as they are: for tools that move records without re-formatting.
 * Nothing is checked: a line may be written in pieces (a record's line,
 * then "\n"), and bytes that are not canonical lines, or a last line
 * without its newline, are written as they are.
 */
int picl_writer_write_raw(struct picl_writer *w, const char *text, size_t len);

/* Flush, finish the compressed stream, fsync and rename into place.
 * Frees the writer whatever the result, so w must not be used (or closed)
 * again. A NULL w (a failed open's) returns PICL_ERR_USAGE with err set. */
int picl_writer_close(struct picl_writer *w, struct picl_error *err);

/* Throw away what was written (removes the temporary file) and free. */
void picl_writer_abort(struct picl_writer *w);

/* The last error of a writer call (valid until the next call). For a NULL
 * w, a static error: PICL_ERR_USAGE, path "<output>", problem "no writer
 * (NULL)". */
const struct picl_error *picl_writer_error(const struct picl_writer *w);

/* The temporary file a named output is being written to (until a successful
 * close renames it), or NULL when writing directly. For a program that must
 * remove it from a signal handler. */
const char *picl_writer_temp_path(const struct picl_writer *w);

/* Bytes written so far (before compression). */
uint64_t picl_writer_offset(const struct picl_writer *w);

/* ------------------------------------------------------------------------ */
/* Statistics (records -101 time, -102 count, -103 volume)                   */
/* ------------------------------------------------------------------------ */

/* One (event type, statistic) pair of a statistics record. */
struct picl_stat_pair {
	int32_t event;
	double value;      /* seconds for -101, a count or volume otherwise */
	const char *text;  /* the value as it stood in the input, or NULL */
	size_t text_len;
};

/*
 * Extract the pairs of a decoded statistics record (-101/-102/-103) into
 * pairs[0..cap). Returns the number of pairs in the record (which may exceed
 * cap: then only cap were stored), PICL_ERR_DATA if the record is not a
 * statistics record or its values are not (integer, number) pairs (values
 * not decoded, in raw mode, included), or PICL_ERR_USAGE for a NULL rec,
 * or a NULL pairs with cap > 0.
 */
int picl_stats_record_pairs(const struct picl_record *rec,
			    struct picl_stat_pair *pairs, size_t cap);

/*
 * The statistics accumulator: feed it event records (entry -3, exit -4,
 * mark -2) in the order of each process's timeline, then read or emit what
 * PICL's traceexit would have written:
 *  - for every (processor, process) and every relative event type R (-1 for
 *    the whole process, and each user event type >= 0 seen), for every
 *    event type E that occurred inside an instance of R (for R = -1: at
 *    all; E != R): total time in E (sum of exit - entry, marks count no
 *    time), number of occurrences (entries and marks), and volume (the
 *    length field of the event types the spec's §2.3.7 lists, and processes
 *    spawned for -503; not the volume §2.3.7 gives -901 tracing, the bytes
 *    of trace data a process collected, which no record carries: PICL's
 *    -103 has it, picl_stats_emit's does not);
 *  - "inside" means between R's entry and matching exit on the same
 *    process, nested instances of R counted once.
 */
struct picl_stats;

/* An empty accumulator, or NULL when out of memory; free it with
 * picl_stats_free (NULL is fine). */
struct picl_stats *picl_stats_new(void);
void picl_stats_free(struct picl_stats *s);

/* Take in one record (other record types are ignored). A record's volume
 * is read from its decoded values: one read with PICL_READ_RAW and not
 * decoded (values NULL) adds none, so decode it first (picl_reader_decode).
 * On PICL_ERR_DATA err->mark is rec->mark; err->path is left to the caller.
 * Returns PICL_OK, PICL_ERR_USAGE for a NULL s or rec, PICL_ERR_NOMEM, or
 * PICL_ERR_DATA (err says which, the record is not taken) for an exit
 * without a matching entry, or an entry that would make more than 256
 * distinct user event types open at once on one process (a bound on
 * memory: each open one is a window every entry and exit counts in). */
int picl_stats_add(struct picl_stats *s, const struct picl_record *rec,
		   struct picl_error *err);

/*
 * An event record reduced to what the accumulator takes from it: made by
 * picl_stats_event_of, it holds no pointer into the record, so it can be
 * kept, queued or handed to another thread after the reader has moved on.
 */
struct picl_stats_event {
	int32_t type;            /* PICL_REC_ENTRY, PICL_REC_EXIT or PICL_REC_MARK */
	int32_t event;
	int32_t processor;
	int32_t process;
	struct picl_time time;
	int has_volume;          /* 1: `volume` is what the record adds to its
				    event's volume (its length field, or 1 for
				    each process a -503 spawns); 0: nothing */
	int64_t volume;
	struct picl_mark mark;   /* where the record is, for error messages */
};

/* Fill *ev from an event record (its length value needs rec's values
 * decoded). Returns 1, or 0 (*ev untouched) for any other record type. */
int picl_stats_event_of(const struct picl_record *rec, struct picl_stats_event *ev);

/* picl_stats_add of the record ev was made from: the same results and
 * errors (err->mark is ev->mark). picl_stats_add(s, rec, err) is
 * picl_stats_event_of then this. */
int picl_stats_add_event(struct picl_stats *s, const struct picl_stats_event *ev,
			 struct picl_error *err);

/* What the accumulator knows about E relative to R on (processor, process).
 * The time is the time spent in events of type E: an E nested in an E
 * adds nothing, the outermost one's duration holding it (a recursion is
 * not counted once per level); the count counts every entry and mark.
 * Returns 1 and fills the three (-1 where undefined: time for events seen
 * only as marks or whose entries were never exited, volume for events
 * without a length field), or 0 if E never occurred there. The time is the nearest double to the exact sum (see
 * picl_stats_get_time). */
int picl_stats_get(const struct picl_stats *s, int32_t processor, int32_t process,
		   int32_t relative, int32_t event,
		   double *time, int64_t *count, int64_t *volume);

/* The time of E relative to R on (processor, process) exactly: the sum of
 * the exact differences of the timestamps, as a decimal with as many
 * decimals as the process's finest timestamp (fewer if a timestamp's 18
 * digits cannot hold that). Returns 1 and sets *time, or 0 if E never
 * occurred there, its time is undefined (marks only, no entry exited), or
 * the sum outgrew 18
 * digits (only picl_stats_get's double has it then). */
int picl_stats_get_time(const struct picl_stats *s, int32_t processor, int32_t process,
			int32_t relative, int32_t event, struct picl_time *time);

/* The number of intervals summed into the time of E relative to R on
 * (processor, process), each an exit matched with its entry (an E nested
 * in an E adds none): what a recorded time's rounding is proportional to
 * (picltrace's tolerance); marks and entries never exited add none. Returns 1 and sets *intervals, or 0
 * if E never occurred there. */
int picl_stats_get_intervals(const struct picl_stats *s, int32_t processor, int32_t process,
			     int32_t relative, int32_t event, int64_t *intervals);

/*
 * Call `emit` once per statistics record PICL would write at traceexit for
 * every (processor, process) seen, in PICL's order (Table 20): for R = -1
 * the system events' -101, -102, -103, then the user events' -101, -102
 * (and -103 if any volume), then for each user event R in increasing order
 * its -101, -102, -103; pairs with a zero or undefined statistic left out,
 * records with no pairs left out. The record handed to emit has type,
 * event (R), time (the process's last event time), processor, process,
 * nfields, an inline control ("%d%lf" or "%d%d"), desc and values set; it
 * is valid only during the call. A non-zero return from emit stops and is
 * returned.
 */
int picl_stats_emit(struct picl_stats *s,
		    int (*emit)(void *ctx, const struct picl_record *rec),
		    void *ctx);

/* ------------------------------------------------------------------------ */
/* Messages: matching sends with receives                                    */
/* ------------------------------------------------------------------------ */

/*
 * One message: a send (entry of -21 send0 or -27 sendbegin0, data: length,
 * type, destination processor[, process]) and the receive that completed it
 * (exit of -51/-52 recv0, -58 recvstatus0, -60/-61 recvend0, data: length,
 * type, source processor[, process]). A field the record did not carry is
 * -1. For an unmatched send or receive only its own side is filled (times
 * and marks of the other side are zero).
 */
struct picl_message {
	int32_t src_processor, src_process;  /* sender */
	int32_t dst_processor, dst_process;  /* receiver (for a broadcast send
					        that nobody received: the missing
					        receiver) */
	int32_t type;                        /* message type */
	int64_t send_length, recv_length;    /* bytes as each side recorded */
	int32_t send_event, recv_event;      /* -21, -27 / -51, -52, -58, -60, -61 */
	struct picl_time send_time;          /* send entry */
	struct picl_time recv_time;          /* receive exit */
	struct picl_mark send_mark, recv_mark;
	int broadcast;                       /* the send had destination -1 */
	uint64_t more_missing;               /* an unmatched broadcast's last report
					        when dst_processor is -1: how many
					        more receivers never had it (see
					        picl_matcher_set_broadcast_detail);
					        else 0 */
};

enum picl_match_kind {
	PICL_MATCH_OK = 0,          /* a send and its receive */
	PICL_MATCH_UNMATCHED_SEND,  /* no receive for it (reported at finish) */
	PICL_MATCH_UNMATCHED_RECV   /* no send for it (reported at finish) */
};

/*
 * The matcher pairs sends with receives FIFO per (source, destination,
 * type) channel, as PICL and MPI deliver them; a send to -1 (broadcast)
 * expects one receive on every other processor that appears in the trace
 * (the host, 32767, excepted), each processor taking the broadcasts of a
 * (source, type) in order. Records may come in any order that keeps
 * each processor's own records in time order (sorted traces, per-node files
 * one after another). Memory holds the messages in flight; a broadcast is
 * in flight until the end, since a processor met later may still receive
 * it, unless picl_matcher_expect_processors said which processors there are.
 * Not matched: a record of a processor below 0; data that are not integers;
 * a message type below 0 (-1: typeless); a send to a processor below -1
 * (a processor subset) unless picl_matcher_set_defs gave the subsets;
 * a receive whose source is unknown (-1). When recvstatus0 (-58) has
 * completed a request, the recvend0 (-60/-61) of the same request id on
 * that process is not counted as a second receive (an exit takes the
 * request id of the innermost open entry of its event, a mark its first
 * value); a recvbegin0 (-57) exit posting that id again ends this.
 * `cb` is called for every match as soon as it is made, and for every
 * unmatched send or receive by picl_matcher_finish, in input order; a
 * non-zero return from cb is handed back by the call that made it.
 * Whether a message is a "tachyon" (received before it was sent) is for the
 * caller to see: picl_time_cmp(recv_time, send_time) < 0.
 */
struct picl_matcher;

/* A matcher calling cb(ctx, ...) for every match (cb may be NULL: a
 * matcher that only counts), or NULL when out of memory. */
struct picl_matcher *picl_matcher_new(int (*cb)(void *ctx, enum picl_match_kind kind,
						const struct picl_message *msg),
				      void *ctx);

/*
 * Keep about `max_bytes` at most of the sends and receives waiting for a
 * partner in memory (0, the default: no limit). Past it, the queues of a
 * (source, destination, type) keep their first message and move the rest
 * to an unlinked temporary file in `tmpdir` (NULL: $TMPDIR, else /tmp),
 * made when first needed, from which they are read back a few at a time
 * as their partners come; matches and their order are the same. So a
 * trace whose messages wait long (per-node files one after another,
 * PICL's flush order) is matched in bounded memory, with the file growing
 * instead. When that is not enough (many channels of a message or two,
 * as when types are step numbers), whole channels go to the file, in
 * sorted runs, about two bytes of each staying in memory; the limit counts
 * the channels in memory as well as the messages, and their lists (and
 * those runs' two bytes). Broadcasts go to the file as well. At the end,
 * picl_matcher_finish merges what is left in the file a bounded number of
 * queues at a time. Call it before the first record.
 * Returns PICL_OK or PICL_ERR_NOMEM.
 */
int picl_matcher_set_memory(struct picl_matcher *m, size_t max_bytes, const char *tmpdir);

/* Take in one decoded record; records that are not sends or receives are
 * ignored, but for the trace's header (the records before its first that
 * is not a header record, -399..-301, an alias, -6, or a subset
 * definition, -201..-203): the ids of its -307 records (as `picltrace
 * merge` and piclrun write them), decoded, declare the processors as
 * picl_matcher_expect_processors would, unless that was called. Returns PICL_OK, the callback's non-zero value, PICL_ERR_NOMEM,
 * or PICL_ERR_IO (the temporary file of picl_matcher_set_memory could not
 * be made, written or read: picl_matcher_strerror says which, and why;
 * every later call then fails the same way). */
int picl_matcher_add(struct picl_matcher *m, const struct picl_record *rec);

/*
 * The same, a send carrying `size` bytes of the caller's (at most
 * PICL_MATCHER_DATA_MAX; NULL and 0 for none, as picl_matcher_add; not
 * used for receives). The bytes wait with the send, in memory or in the
 * temporary file, and picl_matcher_send_data gives them back while the
 * callback runs for that send's match (every receiver's, for a broadcast)
 * or its unmatched report: what a caller knows at a send (e.g. the
 * sender's critical path) needs no table of its own, and is bounded with
 * the messages. Returns as picl_matcher_add, or PICL_ERR_USAGE (the record
 * not taken in) when size is too large.
 */
#define PICL_MATCHER_DATA_MAX 16
int picl_matcher_add_data(struct picl_matcher *m, const struct picl_record *rec,
			  const void *data, size_t size);

/* During a callback: the bytes the send of the message was given by
 * picl_matcher_add_data, zero-filled to PICL_MATCHER_DATA_MAX (all zero
 * for a send given none, and for an unmatched receive). Suitably aligned
 * for any type of that size; valid until the callback returns. */
const void *picl_matcher_send_data(const struct picl_matcher *m);

/*
 * Report at most `max_receivers` of the processors that never received a
 * broadcast one by one (PICL_MATCH_UNMATCHED_SEND with dst_processor the
 * missing receiver, in processor order); if more are missing, one more
 * report follows with dst_processor -1 and more_missing saying how many.
 * The default, SIZE_MAX, reports every one; a caller that only counts
 * them passes 0 (one report per broadcast not had by all). The matcher
 * counts each broadcast's receivers, so the work at the end is bounded by
 * the receives and the reports, where listing every missing receiver of
 * a trace with many processors whose broadcasts few receive is quadratic.
 */
void picl_matcher_set_broadcast_detail(struct picl_matcher *m, size_t max_receivers);

/* What the last PICL_ERR_NOMEM or PICL_ERR_IO of the matcher was, as a
 * line of text (e.g. "cannot keep the messages waiting for a partner in
 * /tmp: No space left on device"); owned by m. "no matcher (NULL)" for a
 * NULL m. */
const char *picl_matcher_strerror(const struct picl_matcher *m);

/*
 * Match a send whose destination is a processor subset (below -1, Table 2)
 * as a multicast: one send to each member of the subset as `defs` define
 * it when the send is added (each member once, the sender and members
 * below 0 left out), each expecting its own receive and reported as a
 * send to that member. Pass the defs the records are read with
 * (picl_reader_defs), again for each reader; NULL, the default, leaves
 * such sends unmatched, as a subset the defs do not define does (the
 * caller may report that: picl_defs_subset_members). Nested subsets are
 * not expanded.
 */
void picl_matcher_set_defs(struct picl_matcher *m, const struct picl_defs *defs);

/* Declare the processors of the trace (e.g. from a -307 header record), so
 * that a broadcast can be forgotten once all of them have received it; call
 * it before the first record (receives counted before it are not). A
 * receive on a processor not declared may then find its broadcast gone.
 * The list is copied. Returns PICL_OK or PICL_ERR_NOMEM. */
int picl_matcher_expect_processors(struct picl_matcher *m, const int32_t *procs,
				   size_t n);

/* 1 while no record past the trace's header has been added (see
 * picl_matcher_add): a caller that passes only some records passes the
 * others too while this holds, so the header's end is seen where it is. */
int picl_matcher_in_header(const struct picl_matcher *m);

/* Whether `processor` is among those declared (1) or not (0); -1 when
 * none were declared, by the caller or by -307 header records (those take
 * effect at the header's end), and for a NULL m. */
int picl_matcher_declared(const struct picl_matcher *m, int32_t processor);

/* Report what is still unmatched (sends, then receives, each in input
 * order); the matcher holds nothing afterwards. Returns PICL_OK, the
 * callback's non-zero value, PICL_ERR_NOMEM or PICL_ERR_IO. */
int picl_matcher_finish(struct picl_matcher *m);

/* Messages matched so far, and sends/receives waiting for a partner. */
uint64_t picl_matcher_matched(const struct picl_matcher *m);
uint64_t picl_matcher_pending(const struct picl_matcher *m);

/* Free a matcher and the messages it holds (NULL is fine); no callback. */
void picl_matcher_free(struct picl_matcher *m);

/* ------------------------------------------------------------------------ */
/* Schema                                                                    */
/* ------------------------------------------------------------------------ */

/*
 * The schema describes record types, event types and their data fields
 * (schemas/picl.yaml, installed in $(pkgdatadir)). See picl-schema(5).
 */
struct picl_schema;

/* What the schema says about one data field of an event record. */
struct picl_schema_field {
	const char *name;         /* "length", "type", "destination processor" */
	const char *kind;         /* "int", "double", "chars", "string" */
	int volume;               /* 1 if this field is the event's volume */
	int role;                 /* enum picl_field_role */
};

enum picl_field_role {
	PICL_ROLE_NONE = 0,
	PICL_ROLE_LENGTH,         /* message / i/o length in bytes */
	PICL_ROLE_MSGTYPE,        /* message type (sent or received) */
	PICL_ROLE_PEER_PROCESSOR, /* destination (send) or source (recv) */
	PICL_ROLE_PEER_PROCESS,
	PICL_ROLE_REQ_TYPE,       /* requested type in a receive entry */
	PICL_ROLE_REQ_PROCESSOR,
	PICL_ROLE_REQ_PROCESS,
	PICL_ROLE_REQUEST_ID
};

/* The data of one record type (-2, -3, -4) for one event type. */
struct picl_schema_data {
	const char *descriptor;   /* control string, e.g. "%d", or NULL */
	int variable;             /* 1: the count varies (character data) */
	size_t max_fields;        /* fields the spec lists */
	size_t picl_fields;       /* the "(n)" PICL actually writes */
	const struct picl_schema_field *fields;
	size_t nfields;
};

struct picl_schema_event {
	int32_t type;
	const char *name;         /* "send0", "tracing", ... */
	const char *command;      /* PICL command or NULL */
	const char *category;     /* "communication", "file-io", ... */
	int kinds;                /* bit 1<<0 mark, 1<<1 entry/exit, 1<<2 none */
	const struct picl_schema_data *mark;   /* NULL if not described */
	const struct picl_schema_data *entry;
	const struct picl_schema_data *exit;
};

struct picl_schema_record {
	int32_t type;
	const char *name;         /* "event entry", "statistics: time", ... */
	const char *category;     /* "event", "statistics", "subset", "header", "user" */
	const char *descriptor;   /* expected control string or NULL */
	int variable;             /* count: variable */
	size_t max_fields;        /* the count: data fields a record has at
				     most; SIZE_MAX when variable or not given */
};

/*
 * Load the schema from a YAML file (libyaml). Returns a schema or NULL with
 * *err set (file:line:column from libyaml or from our checks; among them,
 * an event or record whose category is not the one the format's numbering gives its
 * type, picl-schema(5)).
 */
struct picl_schema *picl_schema_load(const char *path, struct picl_error *err);

/*
 * Load the default schema: $PICL_SCHEMA if set and not empty, else
 * $(pkgdatadir)/picl.yaml (when that is missing, err->problem also says
 * how to name another).
 */
struct picl_schema *picl_schema_load_default(struct picl_error *err);

/* Add the types described in another file (user-defined record and event
 * types); later definitions replace earlier ones of the same type, but not
 * those of the first file (picl_schema_load's, the format's types): a file
 * that defines one of those, exactly or inside a range (a type below 0 in
 * one of its ranges), fails with PICL_ERR_SCHEMA at that definition and
 * changes nothing (picl-schema(5)). */
int picl_schema_extend(struct picl_schema *s, const char *path,
		       struct picl_error *err);

/* Free a schema (NULL is fine). */
void picl_schema_free(struct picl_schema *s);

/* Look-ups: NULL when the type is not described. A type inside a range
 * (picl.yaml's "user event", [0, max]) is described by the range, whose
 * lowest type is then the result's `type`. Owned by the schema. (In C++
 * these functions hide the structs of their names: write
 * `const struct picl_schema_event *'.) */
const struct picl_schema_event *picl_schema_event(const struct picl_schema *s,
						  int32_t event_type);
const struct picl_schema_record *picl_schema_record(const struct picl_schema *s,
						    int32_t record_type);

/* The path the default schema is loaded from (for messages). */
const char *picl_schema_default_path(void);

#ifdef __cplusplus
}
#endif

#endif /* PICL_TRACE_H */
