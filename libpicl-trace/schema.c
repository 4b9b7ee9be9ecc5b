/*
 * schema.c - load the YAML schema that describes record types, event types
 * and their data fields (schemas/picl.yaml; the file format is picl-schema(5)).
 *
 * How it works. libyaml's event API (yaml_parser_parse) hands out one event
 * at a time; a small recursive-descent parser over those events follows the
 * grammar below, with the convention that every parse_* function starts with
 * the first event of its node current (L->ev) and returns with the node's
 * last event current. No document tree is built: values are checked and
 * copied into an arena as they arrive. Every mistake is reported with the
 * file, line and column of the offending YAML node (libyaml's problem mark
 * for syntax errors), and a failed load or extend changes nothing.
 *
 * The definitions of one file are collected in a vector, checked for
 * duplicates (a type defined twice in one file is an error), then merged
 * into the schema: exact types live in an array sorted by type (look-up by
 * binary search; types -1024 to 1023 through a direct table filled after
 * each load, DIRECT_LO), ranges (`range: [LOW, HIGH]`) in a short list
 * searched from the newest; an exact type wins over a range, and a later user
 * schema's definition of a type replaces an earlier user schema's (a
 * look-up that lands in a range hands out the range's description, whose
 * `type` is the range's LOW). Definitions are allocated in the
 * schema's arena and never move, so pointers handed out by look-ups stay
 * valid until picl_schema_free (also across picl_schema_extend).
 *
 * Grammar (keys in any order; "?" optional; everything else unknown is an
 * error):
 *
 *   schema  := { format?: "picl-trace-schema", version?: 1, description?: TEXT,
 *                aliases?: [alias...], records?: [record...], events?: [event...] }
 *   alias   := { alias: INT>=0, descriptor: TEXT, description?: TEXT }
 *   record  := { (type: INT | range: [BOUND, BOUND]), name: TEXT,
 *                category: RCAT, descriptor?: TEXT|null,
 *                count?: INT>=0|variable, fields?: [field...],
 *                description?: TEXT, spec?: TEXT }
 *   event   := { (type: INT | range: [BOUND, BOUND]), name: TEXT,
 *                command?: TEXT|null, category: ECAT,
 *                produces: PRODUCE | [PRODUCE...], volume?: spawned|trace-data,
 *                mark?: data, entry?: data, exit?: data, members?: members,
 *                description?: TEXT, spec?: TEXT }
 *   data    := { descriptor?: TEXT|null, count: INT>=0|variable,
 *                picl-count?: INT>=0, fields?: [field...] }
 *   field   := { name: TEXT, kind: int|double|chars|string, role?: ROLE,
 *                volume?: BOOL, description?: TEXT }
 *   members := { range?: [BOUND, BOUND], list?: [INT...], exclude-subsets?: BOOL }
 *   BOUND   := INT | min | max      PRODUCE := mark | entry/exit | none
 *   RCAT    := event|label|descriptor|message|statistics|subset|header|user
 *   ECAT    := user|wildcard|communication|file-io|synchronization|resource|
 *              generic|tracing|subset
 *   ROLE    := length|msgtype|peer-processor|peer-process|req-type|
 *              req-processor|req-process|request-id|none
 *
 * Integers, booleans and null are plain (unquoted) scalars; integers are
 * decimal and must fit 32 bits (types) or the documented range. An event's
 * ECAT must be the one the format's numbering gives its type or range
 * (check_category), a record's RCAT likewise (check_record_category), and
 * a later file may not redescribe a type the first file (the default
 * schema: the format's types, our header records) describes
 * (check_only_adds).
 */
#include "internal.h"
#include "editdist.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#ifndef PICL_PKGDATADIR
#define PICL_PKGDATADIR "/usr/local/share/picl-trace"
#endif

#define SCHEMA_FORMAT "picl-trace-schema"
#define SCHEMA_VERSION 1

/* The `kinds` bits of struct picl_schema_event. */
enum {
	KIND_MARK = 1 << 0,
	KIND_ENTRY_EXIT = 1 << 1,
	KIND_NONE = 1 << 2
};

/* Event-level volume statistics (section 2.3.7) that no data field holds. */
enum {
	VOLUME_NONE = 0,
	VOLUME_SPAWNED,         /* load0: processes spawned, one per exit */
	VOLUME_TRACE_DATA       /* tracing: trace data collected */
};

/* ------------------------------------------------------------------------ */
/* Arena: every definition and string of a schema, freed at once            */
/* ------------------------------------------------------------------------ */

#define ARENA_BLOCK 16384

struct block {
	struct block *next;
	size_t used;
	size_t size;
	max_align_t data[];
};

struct arena {
	struct block *head;
};

/* Zeroed, aligned memory that lives as long as the arena; NULL if out of
 * memory. */
static void *arena_alloc(struct arena *a, size_t n)
{
	const size_t al = sizeof(max_align_t);
	struct block *b = a->head;
	unsigned char *p;

	if (n > SIZE_MAX / 2)
		return NULL;
	n = n ? (n + al - 1) / al * al : al;
	if (!b || b->size - b->used < n) {
		size_t size = n > ARENA_BLOCK ? n : ARENA_BLOCK;

		b = malloc(sizeof(*b) + size);
		if (!b)
			return NULL;
		b->next = a->head;
		b->used = 0;
		b->size = size;
		a->head = b;
	}
	p = (unsigned char *)b->data + b->used;
	b->used += n;
	memset(p, 0, n);
	return p;
}

static char *arena_strndup(struct arena *a, const char *s, size_t len)
{
	char *p = arena_alloc(a, len + 1);

	if (p) {
		memcpy(p, s, len);
		p[len] = '\0';
	}
	return p;
}

/* Make room for one more element in the arena array *v (n used, *cap
 * allocated): doubles by copying; the old copy stays in the arena. */
static int arena_array_grow(struct arena *a, void **v, size_t n, size_t *cap,
			    size_t elsize)
{
	size_t ncap;
	void *nv;

	if (n < *cap)
		return PICL_OK;
	ncap = *cap ? *cap * 2 : 4;
	if (ncap > SIZE_MAX / elsize / 2)
		return PICL_ERR_NOMEM;
	nv = arena_alloc(a, ncap * elsize);
	if (!nv)
		return PICL_ERR_NOMEM;
	if (n)
		memcpy(nv, *v, n * elsize);
	*v = nv;
	*cap = ncap;
	return PICL_OK;
}

/* Move every block of src to dst (src is left empty). */
static void arena_splice(struct arena *dst, struct arena *src)
{
	struct block *b = src->head;

	if (!b)
		return;
	while (b->next)
		b = b->next;
	b->next = dst->head;
	dst->head = src->head;
	src->head = NULL;
}

static void arena_release(struct arena *a)
{
	struct block *b = a->head, *next;

	for (; b; b = next) {
		next = b->next;
		free(b);
	}
	a->head = NULL;
}

/* ------------------------------------------------------------------------ */
/* Definitions and the tables that find them                                 */
/* ------------------------------------------------------------------------ */

/* An event type as loaded; look-ups hand out &pub. The rest is kept for
 * look-ups the header does not offer yet (event-level volume, members). */
struct event_def {
	struct picl_schema_event pub;
	int volume;                    /* VOLUME_* */
	int has_members;
	int has_member_range;
	int32_t member_lo, member_hi;
	const int32_t *member_list;
	size_t member_count;
	int exclude_subsets;
	struct picl_mark name_mark;    /* where its name was given */
};

/* One defined type (or range of types) of a table. */
struct slot {
	int32_t lo, hi;
	int is_range;
	size_t seq;                    /* order of definition in its file */
	int base;                      /* from the first file (the format's) */
	struct picl_mark mark;         /* where it was defined */
	const void *def;               /* struct event_def / picl_schema_record */
};

struct slots {
	struct slot *v;
	size_t n, cap;
};

static int slots_reserve(struct slots *s, size_t more)
{
	size_t ncap;
	struct slot *nv;

	if (s->cap - s->n >= more)
		return PICL_OK;
	if (more > SIZE_MAX / sizeof(*nv) / 4 - s->n)
		return PICL_ERR_NOMEM;
	ncap = s->cap ? s->cap : 16;
	while (ncap - s->n < more)
		ncap *= 2;
	nv = realloc(s->v, ncap * sizeof(*nv));
	if (!nv)
		return PICL_ERR_NOMEM;
	s->v = nv;
	s->cap = ncap;
	return PICL_OK;
}

static int slots_push(struct slots *s, const struct slot *x)
{
	if (slots_reserve(s, 1) != PICL_OK)
		return PICL_ERR_NOMEM;
	s->v[s->n++] = *x;
	return PICL_OK;
}

static void slots_release(struct slots *s)
{
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}

/* Types in [DIRECT_LO, DIRECT_LO + DIRECT_N) are looked up in a direct
 * table, filled from the slots after each load: validate asks for every
 * record's types, and a binary search over the event types was 6% of its
 * time. Every type PICL defines and the usual user types fall in it. */
#define DIRECT_LO (-1024)
#define DIRECT_N 2048

struct picl_schema {
	struct arena arena;
	struct slots events;           /* exact types, sorted by type */
	struct slots event_ranges;     /* ranges, in order of definition */
	struct slots records;
	struct slots record_ranges;
	int based;                     /* the first file is in: later ones
					  may only add types */
	const void *event_direct[DIRECT_N];   /* what table_find gives */
	const void *record_direct[DIRECT_N];
};

/* ------------------------------------------------------------------------ */
/* The loader: one YAML file                                                 */
/* ------------------------------------------------------------------------ */

/*
 * Where err->path points after a failed load or extend: a copy of the path
 * kept here, per thread, valid until the next schema load or extend in the
 * same thread fails (the schema object does not exist, or must not change,
 * when a load fails, so it cannot own the text).
 */
static _Thread_local char err_path[4096];

struct loader {
	yaml_parser_t parser;
	yaml_event_t ev;               /* the current event, when have_ev */
	int have_ev;
	const char *path;
	FILE *fp;
	struct picl_error *err;
	struct arena arena;            /* this file's definitions */
	struct slots events;           /* this file's events, exact and ranges */
	struct slots records;
	size_t seq;
};

/* libyaml's marks are 0-based and count characters (its index leaves out a
 * byte order mark); set_mark keeps them so, 1-based, and byte_mark makes
 * them the bytes the header promises when a mark is reported. */
static void set_mark(struct picl_mark *m, const yaml_mark_t *ym)
{
	m->offset = ym->index;
	m->line = ym->line + 1;
	m->column = ym->column + 1;
}

/*
 * Make a mark from set_mark count bytes (offset, and column from the last
 * CR or LF), by reading the file again from its start: a UTF-8 character
 * is one byte to libyaml's marks but up to four in the file. The line is
 * libyaml's. Left as it is when the file cannot be read again, or is
 * UTF-16 (whose marks no byte count would make clearer).
 */
static void byte_mark(FILE *fp, struct picl_mark *m)
{
	uint64_t chars = 0, bytes = 0, line_start = 0;
	unsigned char bom[3];
	size_t n;
	int c;

	if (!fp || m->line == 0 || fseek(fp, 0, SEEK_SET) != 0)
		return;
	n = fread(bom, 1, 3, fp);
	if (n >= 2 && ((bom[0] == 0xfe && bom[1] == 0xff) ||
		       (bom[0] == 0xff && bom[1] == 0xfe)))
		goto out;                               /* UTF-16 */
	if (n == 3 && bom[0] == 0xef && bom[1] == 0xbb && bom[2] == 0xbf)
		bytes = line_start = 3;                 /* UTF-8's: not counted */
	else if (fseek(fp, 0, SEEK_SET) != 0)
		goto out;
	for (;;) {
		c = getc(fp);
		if (c == EOF)
			break;
		if ((c & 0xc0) != 0x80) {               /* a character starts */
			if (chars == m->offset)
				break;
			chars++;
		}
		bytes++;
		if (c == '\n' || c == '\r')
			line_start = bytes;
	}
	if (c == EOF && chars < m->offset)
		goto out;                               /* the file changed */
	m->offset = bytes;
	m->column = bytes - line_start + 1;
out:
	clearerr(fp);
}

static void set_error_location(struct loader *L, const yaml_mark_t *ym)
{
	if (!L->err)
		return;
	snprintf(err_path, sizeof(err_path), "%s", L->path);
	L->err->path = err_path;
	memset(&L->err->mark, 0, sizeof(L->err->mark));
	if (ym) {
		set_mark(&L->err->mark, ym);
		byte_mark(L->fp, &L->err->mark);
	}
}

/* Report a problem at the YAML mark ym (NULL: no position). Returns code. */
static int fail(struct loader *L, const yaml_mark_t *ym, int code,
		const char *fmt, ...) PICL_PRINTF(4, 5);

static int fail(struct loader *L, const yaml_mark_t *ym, int code,
		const char *fmt, ...)
{
	char text[PICL_PROBLEM_MAX];
	va_list ap;

	if (!L->err)
		return code;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	set_error_location(L, ym);
	return picl_set_error(L->err, code, "%s", text);
}

static int fail_nomem(struct loader *L)
{
	return fail(L, NULL, PICL_ERR_NOMEM, "out of memory while loading the schema");
}

/* The line and column (in bytes) of a byte offset, by reading the file
 * again from its start; for libyaml's reader errors, which have no mark. */
static void mark_from_offset(FILE *fp, size_t offset, struct picl_mark *m)
{
	size_t i;
	int c;

	m->offset = offset;
	m->line = 1;
	m->column = 1;
	if (fseek(fp, 0, SEEK_SET) != 0) {
		m->line = m->column = 0;
		return;
	}
	for (i = 0; i < offset && (c = getc(fp)) != EOF; i++) {
		if (c == '\n') {
			m->line++;
			m->column = 1;
		} else {
			m->column++;
		}
	}
}

/* The byte at a libyaml mark, or EOF. */
static int byte_at(struct loader *L, const yaml_mark_t *ym)
{
	struct picl_mark m;
	int c;

	set_mark(&m, ym);
	byte_mark(L->fp, &m);
	if (fseek(L->fp, (long)m.offset, SEEK_SET) != 0)
		return EOF;
	c = getc(L->fp);
	clearerr(L->fp);
	return c;
}

/* Turn libyaml's error state into ours. */
static int fail_yaml(struct loader *L)
{
	const yaml_parser_t *p = &L->parser;
	const char *problem = p->problem ? p->problem : "unknown YAML error";

	/* A plain scalar cannot start with '%': a descriptor left unquoted. */
	if (p->error == YAML_SCANNER_ERROR && p->problem &&
	    strstr(p->problem, "cannot start any token") &&
	    byte_at(L, &p->problem_mark) == '%')
		return fail(L, &p->problem_mark, PICL_ERR_SCHEMA,
			    "%s (a control string must be quoted: \"%%d\", not %%d)",
			    problem);
	/* libyaml says "character", not which: name a tab, a likely slip. */
	if (p->error == YAML_SCANNER_ERROR && p->problem &&
	    strstr(p->problem, "cannot start any token") &&
	    byte_at(L, &p->problem_mark) == '\t')
		return fail(L, &p->problem_mark, PICL_ERR_SCHEMA,
			    "a tab cannot indent or start a YAML token; use spaces");

	switch (p->error) {
	case YAML_MEMORY_ERROR:
		return fail_nomem(L);
	case YAML_READER_ERROR:
		if (ferror(L->fp)) {
			int e = errno;

			fail(L, NULL, PICL_ERR_IO, "cannot read the schema: %s",
			     strerror(e));
			if (L->err)
				L->err->sys_errno = e;
			return PICL_ERR_IO;
		}
		/* Bad encoding: libyaml knows only the byte offset. */
		if (p->problem_value != -1)
			fail(L, NULL, PICL_ERR_SCHEMA, "%s (byte 0x%02x)", problem,
			     (unsigned)p->problem_value & 0xffu);
		else
			fail(L, NULL, PICL_ERR_SCHEMA, "%s", problem);
		if (L->err)
			mark_from_offset(L->fp, p->problem_offset, &L->err->mark);
		return PICL_ERR_SCHEMA;
	default:
		if (p->context && (p->context_mark.line != p->problem_mark.line ||
				   p->context_mark.column != p->problem_mark.column)) {
			struct picl_mark cm;

			set_mark(&cm, &p->context_mark);
			byte_mark(L->fp, &cm);
			return fail(L, &p->problem_mark, PICL_ERR_SCHEMA,
				    "%s (%s at line %llu, column %llu)", problem,
				    p->context, (unsigned long long)cm.line,
				    (unsigned long long)cm.column);
		}
		if (p->context)
			return fail(L, &p->problem_mark, PICL_ERR_SCHEMA,
				    "%s (%s)", problem, p->context);
		return fail(L, &p->problem_mark, PICL_ERR_SCHEMA, "%s", problem);
	}
}

/* Make the next event current (deleting the previous one). */
static int next(struct loader *L)
{
	if (L->have_ev) {
		yaml_event_delete(&L->ev);
		L->have_ev = 0;
	}
	if (!yaml_parser_parse(&L->parser, &L->ev))
		return fail_yaml(L);
	L->have_ev = 1;
	if (L->ev.type == YAML_ALIAS_EVENT)
		return fail(L, &L->ev.start_mark, PICL_ERR_SCHEMA,
			    "aliases (*name) are not supported in a schema");
	return PICL_OK;
}

/* ---- scalars ----------------------------------------------------------- */

static const char *node_what(const yaml_event_t *e)
{
	switch (e->type) {
	case YAML_SCALAR_EVENT:
		if (e->data.scalar.plain_implicit && e->data.scalar.length == 0)
			return "nothing (an empty value)";
		return "a scalar";
	case YAML_SEQUENCE_START_EVENT:
		return "a list";
	case YAML_MAPPING_START_EVENT:
		return "a mapping";
	case YAML_SEQUENCE_END_EVENT:
		return "the end of a list";
	case YAML_MAPPING_END_EVENT:
		return "the end of a mapping";
	case YAML_DOCUMENT_END_EVENT:
	case YAML_STREAM_END_EVENT:
		return "the end of the document";
	default:
		return "something else";
	}
}

static const char *sval(const struct loader *L)
{
	return (const char *)L->ev.data.scalar.value;
}

static size_t slen(const struct loader *L)
{
	return L->ev.data.scalar.length;
}

static int splain(const struct loader *L)
{
	return L->ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       !L->ev.data.scalar.tag;
}

/* How a scalar that is not plain was written, for a message: "found
 * <what>"<text>"<why>". A tag (!!int 7) is not read: values are typed by
 * their key. */
static const char *snot_plain(const struct loader *L)
{
	return L->ev.data.scalar.tag ? "the tagged value " : "the quoted text ";
}

static const char *snot_plain_why(const struct loader *L)
{
	return L->ev.data.scalar.tag ? " (a schema takes no YAML tags: write the value alone)" : "";
}

/* 1 if the current scalar's text is exactly s. */
static int sis(const struct loader *L, const char *s)
{
	size_t n = strlen(s);

	return slen(L) == n && memcmp(sval(L), s, n) == 0;
}

static int sis_null(const struct loader *L)
{
	return splain(L) && (slen(L) == 0 || sis(L, "~") || sis(L, "null") ||
			     sis(L, "Null") || sis(L, "NULL"));
}

/* The current scalar, quoted and cut for a message. */
static const char *squote(const struct loader *L, char *buf, size_t size)
{
	return picl_quote(sval(L), slen(L), 40, buf, size);
}

static int expect_scalar(struct loader *L, const char *key, const char *what)
{
	if (L->ev.type != YAML_SCALAR_EVENT)
		return fail(L, &L->ev.start_mark, PICL_ERR_SCHEMA,
			    "expected %s for \"%s\", found %s", what, key,
			    node_what(&L->ev));
	return PICL_OK;
}

/* Read text (or null if nullable) into *out (arena copy; out may be NULL
 * to check only). */
static int read_text(struct loader *L, const char *key, int nullable, const char **out)
{
	int rc = expect_scalar(L, key, "a text");

	if (rc)
		return rc;
	if (sis_null(L)) {
		if (!nullable)
			return fail(L, &L->ev.start_mark, PICL_ERR_SCHEMA,
				    "expected a text for \"%s\", found null", key);
		if (out)
			*out = NULL;
		return PICL_OK;
	}
	if (memchr(sval(L), '\0', slen(L)))
		return fail(L, &L->ev.start_mark, PICL_ERR_SCHEMA,
			    "the text for \"%s\" contains a NUL character", key);
	if (out) {
		*out = arena_strndup(&L->arena, sval(L), slen(L));
		if (!*out)
			return fail_nomem(L);
	}
	return PICL_OK;
}

/*
 * Read a name or a command (null if nullable): a text that tools print
 * inside one line of a message, so not empty and with no control character
 * (a line break would split the message, an escape drive the terminal).
 */
static int read_name(struct loader *L, const char *key, int nullable, const char **out)
{
	const unsigned char *t;
	size_t i;
	int rc = read_text(L, key, nullable, NULL);

	if (rc || sis_null(L))
		return rc ? rc : read_text(L, key, nullable, out);
	if (slen(L) == 0)
		return fail(L, &L->ev.start_mark, PICL_ERR_SCHEMA,
			    "the text for \"%s\" is empty", key);
	t = (const unsigned char *)sval(L);
	for (i = 0; i < slen(L); i++)
		if (t[i] < 0x20 || t[i] == 0x7f)
			return fail(L, &L->ev.start_mark, PICL_ERR_SCHEMA,
				    "the text for \"%s\" contains a control character "
				    "(0x%02x, byte %zu of it): a name is shown on one line",
				    key, t[i], i + 1);
	return read_text(L, key, nullable, out);
}

/* Read a data descriptor: a text (or null) that the library compiles as a
 * control string; one it cannot compile is an error at the value, naming
 * the column within the string. */
static int read_descriptor(struct loader *L, const char *key, int nullable, const char **out)
{
	yaml_mark_t at = L->ev.start_mark;
	struct picl_descriptor *d;
	struct picl_error e;
	const char *text;
	char q[PICL_PROBLEM_MAX / 2];
	int rc = read_text(L, key, nullable, &text);

	if (rc || !text)
		goto done;
	memset(&e, 0, sizeof(e));
	if (picl_descriptor_compile(text, strlen(text), &d, &e) == PICL_ERR_NOMEM)
		return fail_nomem(L);
	if (!d)
		return fail(L, &at, PICL_ERR_SCHEMA,
			    "descriptor \"%s\", column %llu of it: %s",
			    picl_quote(text, strlen(text), 40, q, sizeof(q)),
			    (unsigned long long)e.mark.column, e.problem);
	picl_descriptor_free(d);
done:
	if (out && !rc)
		*out = text;
	return rc;
}

/* Read a plain decimal integer in [lo, hi]; with bounds, "min" and "max"
 * stand for INT32_MIN and INT32_MAX. */
static int read_int(struct loader *L, const char *key, int64_t lo, int64_t hi,
		    int bounds, int64_t *out)
{
	char q[PICL_PROBLEM_MAX / 2];
	int rc = expect_scalar(L, key, "an integer");

	if (rc)
		return rc;
	if (bounds && splain(L) && sis(L, "min")) {
		*out = INT32_MIN;
		return PICL_OK;
	}
	if (bounds && splain(L) && sis(L, "max")) {
		*out = INT32_MAX;
		return PICL_OK;
	}
	if (!splain(L))
		return fail(L, &L->ev.start_mark, PICL_ERR_SCHEMA,
			    "expected an integer for \"%s\", found %s\"%s\"%s",
			    key, snot_plain(L), squote(L, q, sizeof(q)), snot_plain_why(L));
	rc = picl_parse_i64(sval(L), slen(L), out);
	if (rc == PICL_ERR_SYNTAX)
		return fail(L, &L->ev.start_mark, PICL_ERR_SCHEMA,
			    "expected an integer for \"%s\", found \"%s\"", key,
			    squote(L, q, sizeof(q)));
	if (rc != PICL_OK || *out < lo || *out > hi)
		return fail(L, &L->ev.start_mark, PICL_ERR_SCHEMA,
			    "%s is out of range for \"%s\" (%lld to %lld)",
			    squote(L, q, sizeof(q)), key, (long long)lo, (long long)hi);
	return PICL_OK;
}

static int read_bool(struct loader *L, const char *key, int *out)
{
	static const char *const yes[] = { "true", "True", "TRUE", "yes", "Yes",
					   "YES", "on", "On", "ON", NULL };
	static const char *const no[] = { "false", "False", "FALSE", "no", "No",
					  "NO", "off", "Off", "OFF", NULL };
	char q[PICL_PROBLEM_MAX / 2];
	int rc = expect_scalar(L, key, "true or false");
	size_t i;

	if (rc)
		return rc;
	for (i = 0; splain(L) && yes[i]; i++) {
		if (sis(L, yes[i])) {
			*out = 1;
			return PICL_OK;
		}
		if (sis(L, no[i])) {
			*out = 0;
			return PICL_OK;
		}
	}
	return fail(L, &L->ev.start_mark, PICL_ERR_SCHEMA,
		    "expected true or false for \"%s\", found %s\"%s\"%s", key,
		    splain(L) ? "" : snot_plain(L), squote(L, q, sizeof(q)),
		    splain(L) ? "" : snot_plain_why(L));
}

/* Read a plain word that must be one of names[] (NULL-terminated); *idx is
 * its index. `list` names the choices for the message. */
static int read_choice(struct loader *L, const char *key, const char *const *names,
		       const char *list, int *idx)
{
	char q[PICL_PROBLEM_MAX / 2];
	int rc = expect_scalar(L, key, "a word");
	int i;

	if (rc)
		return rc;
	for (i = 0; names[i]; i++) {
		if (sis(L, names[i])) {
			*idx = i;
			return PICL_OK;
		}
	}
	return fail(L, &L->ev.start_mark, PICL_ERR_SCHEMA,
		    "unknown %s \"%s\" (expected %s)", key,
		    squote(L, q, sizeof(q)), list);
}

/* ---- mappings and lists ---------------------------------------------- */

static int expect_mapping(struct loader *L, const char *what)
{
	if (L->ev.type != YAML_MAPPING_START_EVENT)
		return fail(L, &L->ev.start_mark, PICL_ERR_SCHEMA,
			    "expected a mapping for %s, found %s", what,
			    node_what(&L->ev));
	return PICL_OK;
}

static int expect_list(struct loader *L, const char *key)
{
	if (L->ev.type != YAML_SEQUENCE_START_EVENT)
		return fail(L, &L->ev.start_mark, PICL_ERR_SCHEMA,
			    "expected a list for \"%s\", found %s", key,
			    node_what(&L->ev));
	return PICL_OK;
}

/* Misspellings of a schema's keys are ranked up to this distance (the
 * longest key has 15 letters). */
#define KEY_FAR 16

/* The key of keys[] the current scalar was most likely meant to be: the
 * only one within two edits of it (one for keys of three letters or
 * fewer), or NULL. */
static const char *key_meant(const struct loader *L, const char *const *keys)
{
	const char *best = NULL;
	int bestd = KEY_FAR, ties = 0, i;

	for (i = 0; keys[i]; i++) {
		int d = edit_distance(sval(L), slen(L), keys[i], strlen(keys[i]), KEY_FAR);

		if (d > (strlen(keys[i]) <= 3 ? 1 : 2))
			continue;
		if (d < bestd) {
			bestd = d;
			best = keys[i];
			ties = 0;
		} else if (d == bestd) {
			ties++;
		}
	}
	return ties ? NULL : best;
}

/*
 * Move to the next key of the mapping being read. Returns 1 with *idx (its
 * index in keys[]) and *kmark set and the value's first event current, 0 at
 * the end of the mapping, or a negative status (an unknown or repeated key:
 * each key may appear once, tracked in *seen).
 */
static int next_key(struct loader *L, const char *const *keys, const char *what,
		    unsigned *seen, int *idx, yaml_mark_t *kmark)
{
	char q[PICL_PROBLEM_MAX / 2];
	int rc = next(L);
	int i;

	if (rc)
		return rc;
	if (L->ev.type == YAML_MAPPING_END_EVENT)
		return 0;
	if (L->ev.type != YAML_SCALAR_EVENT)
		return fail(L, &L->ev.start_mark, PICL_ERR_SCHEMA,
			    "expected a key in %s, found %s", what, node_what(&L->ev));
	for (i = 0; keys[i]; i++)
		if (sis(L, keys[i]))
			break;
	if (!keys[i]) {
		const char *meant = key_meant(L, keys);

		if (meant)
			return fail(L, &L->ev.start_mark, PICL_ERR_SCHEMA,
				    "unknown key \"%s\" in %s (did you mean \"%s\"?)",
				    squote(L, q, sizeof(q)), what, meant);
		return fail(L, &L->ev.start_mark, PICL_ERR_SCHEMA,
			    "unknown key \"%s\" in %s", squote(L, q, sizeof(q)), what);
	}
	if (*seen & (1u << i))
		return fail(L, &L->ev.start_mark, PICL_ERR_SCHEMA,
			    "key \"%s\" appears twice in %s", keys[i], what);
	*seen |= 1u << i;
	*idx = i;
	*kmark = L->ev.start_mark;
	rc = next(L);
	return rc ? rc : 1;
}

/* A range [LOW, HIGH]: two integers (or min/max), LOW <= HIGH. */
static int parse_range(struct loader *L, const char *key, int32_t *lo, int32_t *hi)
{
	yaml_mark_t start = L->ev.start_mark;
	int64_t v[2];
	int rc = expect_list(L, key);
	int n = 0;

	if (rc)
		return rc;
	for (;;) {
		if ((rc = next(L)))
			return rc;
		if (L->ev.type == YAML_SEQUENCE_END_EVENT)
			break;
		if (n == 2)
			return fail(L, &L->ev.start_mark, PICL_ERR_SCHEMA,
				    "a range has two bounds, [LOW, HIGH]");
		if ((rc = read_int(L, key, INT32_MIN, INT32_MAX, 1, &v[n])))
			return rc;
		n++;
	}
	if (n != 2)
		return fail(L, &start, PICL_ERR_SCHEMA,
			    "a range has two bounds, [LOW, HIGH], found %d", n);
	if (v[0] > v[1])
		return fail(L, &start, PICL_ERR_SCHEMA,
			    "the range [%lld, %lld] is empty (LOW must not exceed HIGH)",
			    (long long)v[0], (long long)v[1]);
	*lo = (int32_t)v[0];
	*hi = (int32_t)v[1];
	return PICL_OK;
}

/* ---- data descriptors ------------------------------------------------- */

static const char *const kind_names[] = { "int", "double", "chars", "string", NULL };
enum { K_INT, K_DOUBLE, K_CHARS, K_STRING };

/*
 * The value kinds of one application of a simple control string: a
 * sequence of %d %i %u %o %x %X %f %e %g %E %G (each with an optional l),
 * %c and %s, white space between allowed. Returns the number of values
 * (kinds[] gets the first `max`), or -1 if the string is not that simple
 * (widths, literals, ...: then nothing is checked against it).
 */
static int descriptor_kinds(const char *d, int *kinds, int max)
{
	int n = 0;

	while (*d) {
		int k;

		if (picl_is_blank((unsigned char)*d)) {
			d++;
			continue;
		}
		if (*d++ != '%')
			return -1;
		if (*d == 'l')
			d++;
		switch (*d) {
		case 'd': case 'i': case 'u': case 'o': case 'x': case 'X':
			k = K_INT;
			break;
		case 'f': case 'e': case 'g': case 'E': case 'G':
			k = K_DOUBLE;
			break;
		case 'c':
			k = K_CHARS;
			break;
		case 's':
			k = K_STRING;
			break;
		default:
			return -1;
		}
		d++;
		if (n < max)
			kinds[n] = k;
		n++;
	}
	return n;
}

static int kind_index(const char *kind)
{
	int i;

	for (i = 0; kind_names[i]; i++)
		if (kind_names[i] == kind)
			return i;
	return -1;
}

/*
 * Check fields[0..n) against the control string: for character data ("%c"
 * alone) one chars field; otherwise `apps` applications of it (apps 0 for a
 * record's fields, which describe one application whatever its count; 1 for
 * a variable count).
 */
static int check_fields(struct loader *L, const yaml_mark_t *fmark,
			const char *descriptor, const struct picl_schema_field *fields,
			size_t n, size_t apps)
{
	int record = apps == 0;

	int kinds[64];
	int k = descriptor ? descriptor_kinds(descriptor, kinds, 64) : -1;
	size_t want, i;

	if (k <= 0 || k > 64)
		return PICL_OK;
	if (record || (k == 1 && kinds[0] == K_CHARS))
		apps = 1;
	want = apps * (size_t)k;
	if (n != want && record)
		return fail(L, fmark, PICL_ERR_SCHEMA,
			    "%zu fields listed, but one application of descriptor \"%s\" "
			    "has %zu (a record's fields describe one)", n, descriptor, want);
	if (n != want)
		return fail(L, fmark, PICL_ERR_SCHEMA,
			    "%zu fields listed, but descriptor \"%s\" with count %zu has %zu",
			    n, descriptor, apps, want);
	for (i = 0; i < n; i++) {
		int have = kind_index(fields[i].kind);

		if (have != kinds[i % (size_t)k])
			return fail(L, fmark, PICL_ERR_SCHEMA,
				    "field %zu (\"%s\") is of kind %s, but descriptor \"%s\" says %s",
				    i + 1, fields[i].name, fields[i].kind, descriptor,
				    kind_names[kinds[i % (size_t)k]]);
	}
	return PICL_OK;
}

/* ---- fields ------------------------------------------------------------- */

static const char *const role_names[] = {
	"none", "length", "msgtype", "peer-processor", "peer-process",
	"req-type", "req-processor", "req-process", "request-id", NULL
};

static const char *const field_keys[] = {
	"name", "kind", "role", "volume", "description", NULL
};
enum { FK_NAME, FK_KIND, FK_ROLE, FK_VOLUME, FK_DESCRIPTION };

static int parse_field(struct loader *L, struct picl_schema_field *f)
{
	yaml_mark_t start = L->ev.start_mark, kmark;
	unsigned seen = 0;
	int rc, idx, v;

	if ((rc = expect_mapping(L, "a field")))
		return rc;
	while ((rc = next_key(L, field_keys, "a field", &seen, &idx, &kmark)) == 1) {
		switch (idx) {
		case FK_NAME:
			rc = read_name(L, "name", 0, &f->name);
			break;
		case FK_KIND:
			rc = read_choice(L, "kind", kind_names,
					 "int, double, chars or string", &v);
			if (!rc)
				f->kind = kind_names[v];
			break;
		case FK_ROLE:
			rc = read_choice(L, "role", role_names,
					 "length, msgtype, peer-processor, peer-process, "
					 "req-type, req-processor, req-process or request-id",
					 &v);
			if (!rc)
				f->role = v; /* role_names[] is in enum order */
			break;
		case FK_VOLUME:
			rc = read_bool(L, "volume", &f->volume);
			break;
		case FK_DESCRIPTION:
			rc = read_text(L, "description", 1, NULL);
			break;
		}
		if (rc)
			return rc;
	}
	if (rc)
		return rc;
	if (!(seen & (1u << FK_NAME)))
		return fail(L, &start, PICL_ERR_SCHEMA, "missing key \"name\" in a field");
	if (!(seen & (1u << FK_KIND)))
		return fail(L, &start, PICL_ERR_SCHEMA, "missing key \"kind\" in a field");
	return PICL_OK;
}

static int parse_fields(struct loader *L, struct picl_schema_field **out, size_t *n)
{
	struct picl_schema_field *v = NULL;
	size_t cap = 0;
	int rc = expect_list(L, "fields");

	*n = 0;
	if (rc)
		return rc;
	for (;;) {
		if ((rc = next(L)))
			return rc;
		if (L->ev.type == YAML_SEQUENCE_END_EVENT)
			break;
		if (arena_array_grow(&L->arena, (void **)&v, *n, &cap, sizeof(*v)))
			return fail_nomem(L);
		memset(&v[*n], 0, sizeof(*v));
		if ((rc = parse_field(L, &v[*n])))
			return rc;
		(*n)++;
	}
	*out = v;
	return PICL_OK;
}

/* ---- data of a mark/entry/exit record ---------------------------------- */

static const char *const data_keys[] = {
	"descriptor", "count", "picl-count", "fields", NULL
};
enum { DK_DESCRIPTOR, DK_COUNT, DK_PICL_COUNT, DK_FIELDS };

/* count: INT >= 0 or `variable'. */
static int read_count(struct loader *L, int *variable, size_t *count)
{
	int64_t v;
	int rc;

	if (L->ev.type == YAML_SCALAR_EVENT && splain(L) && sis(L, "variable")) {
		*variable = 1;
		*count = 0;
		return PICL_OK;
	}
	rc = read_int(L, "count", 0, INT32_MAX, 0, &v);
	if (rc)
		return rc;
	*variable = 0;
	*count = (size_t)v;
	return PICL_OK;
}

static int parse_data(struct loader *L, const char *what,
		      const struct picl_schema_data **out)
{
	yaml_mark_t start = L->ev.start_mark, kmark;
	yaml_mark_t marks[4];
	struct picl_schema_data *d;
	struct picl_schema_field *fields = NULL;
	char where[64];
	unsigned seen = 0;
	int64_t pc = 0;
	int rc, idx, nvolume = 0;
	size_t i;

	snprintf(where, sizeof(where), "the %s data", what);
	if ((rc = expect_mapping(L, where)))
		return rc;
	d = arena_alloc(&L->arena, sizeof(*d));
	if (!d)
		return fail_nomem(L);
	while ((rc = next_key(L, data_keys, where, &seen, &idx, &kmark)) == 1) {
		marks[idx] = kmark;
		switch (idx) {
		case DK_DESCRIPTOR:
			rc = read_descriptor(L, "descriptor", 1, &d->descriptor);
			break;
		case DK_COUNT:
			rc = read_count(L, &d->variable, &d->max_fields);
			break;
		case DK_PICL_COUNT:
			rc = read_int(L, "picl-count", 0, INT32_MAX, 0, &pc);
			break;
		case DK_FIELDS:
			rc = parse_fields(L, &fields, &d->nfields);
			d->fields = fields;
			break;
		}
		if (rc)
			return rc;
	}
	if (rc)
		return rc;
	if (!(seen & (1u << DK_COUNT)))
		return fail(L, &start, PICL_ERR_SCHEMA,
			    "missing key \"count\" in %s", where);
	if ((d->variable || d->max_fields > 0) && !d->descriptor)
		return fail(L, &start, PICL_ERR_SCHEMA,
			    "missing key \"descriptor\" in %s (count is not 0)", where);
	if (!d->variable && d->max_fields == 0 && d->descriptor)
		return fail(L, &marks[DK_DESCRIPTOR], PICL_ERR_SCHEMA,
			    "a descriptor for %s, whose count is 0", where);
	if (seen & (1u << DK_PICL_COUNT)) {
		if (d->variable)
			return fail(L, &marks[DK_PICL_COUNT], PICL_ERR_SCHEMA,
				    "\"picl-count\" with count: variable in %s", where);
		if ((size_t)pc > d->max_fields)
			return fail(L, &marks[DK_PICL_COUNT], PICL_ERR_SCHEMA,
				    "picl-count %lld exceeds count %zu in %s",
				    (long long)pc, d->max_fields, where);
		d->picl_fields = (size_t)pc;
	} else {
		d->picl_fields = d->max_fields;
	}
	if ((seen & (1u << DK_FIELDS)) && !d->variable && d->max_fields == 0 &&
	    d->nfields > 0)
		return fail(L, &marks[DK_FIELDS], PICL_ERR_SCHEMA,
			    "%zu field%s listed in %s, whose count is 0", d->nfields,
			    d->nfields == 1 ? "" : "s", where);
	if (seen & (1u << DK_FIELDS)) {
		rc = check_fields(L, &marks[DK_FIELDS], d->descriptor, d->fields,
				  d->nfields, d->variable ? 1 : d->max_fields);
		if (rc)
			return rc;
		for (i = 0; i < d->nfields; i++)
			nvolume += d->fields[i].volume != 0;
		if (nvolume > 1)
			return fail(L, &marks[DK_FIELDS], PICL_ERR_SCHEMA,
				    "more than one volume field in %s", where);
	}
	*out = d;
	return PICL_OK;
}

/* ---- events ---------------------------------------------------------- */

struct slot;
static int check_category(struct loader *L, const yaml_mark_t *at, const struct slot *slot,
			  const char *category);

static const char *const event_categories[] = {
	"user", "wildcard", "communication", "file-io", "synchronization",
	"resource", "generic", "tracing", "subset", NULL
};
#define EVENT_CATEGORY_LIST "user, wildcard, communication, file-io, " \
	"synchronization, resource, generic, tracing or subset"

static const char *const produce_names[] = { "mark", "entry/exit", "none", NULL };
static const char *const volume_names[] = { "spawned", "trace-data", NULL };

static const char *const event_keys[] = {
	"type", "range", "name", "command", "category", "produces", "volume",
	"mark", "entry", "exit", "members", "description", "spec", NULL
};
enum {
	EK_TYPE, EK_RANGE, EK_NAME, EK_COMMAND, EK_CATEGORY, EK_PRODUCES,
	EK_VOLUME, EK_MARK, EK_ENTRY, EK_EXIT, EK_MEMBERS, EK_DESCRIPTION, EK_SPEC,
	EK_COUNT
};

static int parse_produces(struct loader *L, int *kinds)
{
	const char *list = "mark, entry/exit or none";
	int rc, v;

	*kinds = 0;
	if (L->ev.type == YAML_SCALAR_EVENT) {
		if ((rc = read_choice(L, "produces", produce_names, list, &v)))
			return rc;
		*kinds = 1 << v;
		return PICL_OK;
	}
	if (L->ev.type != YAML_SEQUENCE_START_EVENT)
		return fail(L, &L->ev.start_mark, PICL_ERR_SCHEMA,
			    "expected a word or a list for \"produces\", found %s",
			    node_what(&L->ev));
	for (;;) {
		if ((rc = next(L)))
			return rc;
		if (L->ev.type == YAML_SEQUENCE_END_EVENT)
			break;
		if ((rc = read_choice(L, "produces", produce_names, list, &v)))
			return rc;
		*kinds |= 1 << v;
	}
	return PICL_OK;
}

static const char *const member_keys[] = { "range", "list", "exclude-subsets", NULL };
enum { MK_RANGE, MK_LIST, MK_EXCLUDE };

static int parse_members(struct loader *L, struct event_def *e)
{
	yaml_mark_t start = L->ev.start_mark, kmark;
	unsigned seen = 0;
	int rc, idx;
	int32_t *list = NULL;
	size_t cap = 0;
	int64_t v;

	if ((rc = expect_mapping(L, "\"members\"")))
		return rc;
	while ((rc = next_key(L, member_keys, "\"members\"", &seen, &idx, &kmark)) == 1) {
		switch (idx) {
		case MK_RANGE:
			rc = parse_range(L, "range", &e->member_lo, &e->member_hi);
			e->has_member_range = 1;
			break;
		case MK_LIST:
			if ((rc = expect_list(L, "list")))
				break;
			for (;;) {
				if ((rc = next(L)))
					return rc;
				if (L->ev.type == YAML_SEQUENCE_END_EVENT)
					break;
				if ((rc = read_int(L, "list", INT32_MIN, INT32_MAX, 0, &v)))
					return rc;
				if (arena_array_grow(&L->arena, (void **)&list,
						     e->member_count, &cap, sizeof(*list)))
					return fail_nomem(L);
				list[e->member_count++] = (int32_t)v;
			}
			e->member_list = list;
			break;
		case MK_EXCLUDE:
			rc = read_bool(L, "exclude-subsets", &e->exclude_subsets);
			break;
		}
		if (rc)
			return rc;
	}
	if (rc)
		return rc;
	if (!(seen & ((1u << MK_RANGE) | (1u << MK_LIST))))
		return fail(L, &start, PICL_ERR_SCHEMA,
			    "\"members\" needs a \"range\" or a \"list\"");
	e->has_members = 1;
	return PICL_OK;
}

/* The value of an event's or a record's "type" key, or of its "range" key
 * (range != 0): the slot's bounds, and where they were given. */
static int read_type_or_range(struct loader *L, int range, struct slot *slot)
{
	int64_t type = 0;
	int rc;

	if (range) {
		set_mark(&slot->mark, &L->ev.start_mark);
		return parse_range(L, "range", &slot->lo, &slot->hi);
	}
	rc = read_int(L, "type", INT32_MIN, INT32_MAX, 0, &type);
	slot->lo = slot->hi = (int32_t)type;
	set_mark(&slot->mark, &L->ev.start_mark);
	return rc;
}

/* Check that exactly one of type/range was given; fill the slot. */
static int type_or_range(struct loader *L, unsigned seen, unsigned type_bit,
			 unsigned range_bit, const yaml_mark_t *start,
			 const yaml_mark_t *range_mark, const char *what,
			 struct slot *slot)
{
	if (!(seen & (type_bit | range_bit)))
		return fail(L, start, PICL_ERR_SCHEMA,
			    "missing key \"type\" (or \"range\") in %s", what);
	if ((seen & type_bit) && (seen & range_bit))
		return fail(L, range_mark, PICL_ERR_SCHEMA,
			    "both \"type\" and \"range\" in %s", what);
	slot->is_range = (seen & range_bit) != 0;
	return PICL_OK;
}

/* Keep a checked event or record in its list, numbered in file order. */
static int keep_slot(struct loader *L, struct slots *list, struct slot *slot,
		     const void *def)
{
	slot->seq = L->seq++;
	slot->def = def;
	if (slots_push(list, slot))
		return fail_nomem(L);
	return PICL_OK;
}

static int parse_event(struct loader *L)
{
	yaml_mark_t start = L->ev.start_mark, kmark;
	yaml_mark_t marks[EK_COUNT];
	struct event_def *e;
	struct slot slot;
	const struct picl_schema_data *datas[3];
	unsigned seen = 0;
	int rc, idx, v, nvolume = 0;
	size_t i;

	if ((rc = expect_mapping(L, "an event")))
		return rc;
	e = arena_alloc(&L->arena, sizeof(*e));
	if (!e)
		return fail_nomem(L);
	memset(&slot, 0, sizeof(slot));
	while ((rc = next_key(L, event_keys, "an event", &seen, &idx, &kmark)) == 1) {
		marks[idx] = kmark;
		switch (idx) {
		case EK_TYPE:
		case EK_RANGE:
			rc = read_type_or_range(L, idx == EK_RANGE, &slot);
			break;
		case EK_NAME:
			set_mark(&e->name_mark, &L->ev.start_mark);
			rc = read_name(L, "name", 0, &e->pub.name);
			break;
		case EK_COMMAND:
			rc = read_name(L, "command", 1, &e->pub.command);
			break;
		case EK_CATEGORY:
			rc = read_choice(L, "category", event_categories,
					 EVENT_CATEGORY_LIST, &v);
			if (!rc)
				e->pub.category = event_categories[v];
			break;
		case EK_PRODUCES:
			rc = parse_produces(L, &e->pub.kinds);
			break;
		case EK_VOLUME:
			rc = read_choice(L, "volume", volume_names,
					 "spawned or trace-data", &v);
			if (!rc)
				e->volume = VOLUME_SPAWNED + v;
			break;
		case EK_MARK:
			rc = parse_data(L, "mark", &e->pub.mark);
			break;
		case EK_ENTRY:
			rc = parse_data(L, "entry", &e->pub.entry);
			break;
		case EK_EXIT:
			rc = parse_data(L, "exit", &e->pub.exit);
			break;
		case EK_MEMBERS:
			rc = parse_members(L, e);
			break;
		case EK_DESCRIPTION:
		case EK_SPEC:
			rc = read_text(L, event_keys[idx], 1, NULL);
			break;
		}
		if (rc)
			return rc;
	}
	if (rc)
		return rc;

	rc = type_or_range(L, seen, 1u << EK_TYPE, 1u << EK_RANGE, &start,
			   &marks[EK_RANGE], "an event", &slot);
	if (rc)
		return rc;
	e->pub.type = slot.lo;
	if (!(seen & (1u << EK_NAME)))
		return fail(L, &start, PICL_ERR_SCHEMA, "missing key \"name\" in an event");
	if (!(seen & (1u << EK_CATEGORY)))
		return fail(L, &start, PICL_ERR_SCHEMA, "missing key \"category\" in an event");
	if (!(seen & (1u << EK_PRODUCES)))
		return fail(L, &start, PICL_ERR_SCHEMA, "missing key \"produces\" in an event");
	if ((e->pub.kinds & KIND_NONE) && (e->pub.kinds & ~KIND_NONE))
		return fail(L, &marks[EK_PRODUCES], PICL_ERR_SCHEMA,
			    "\"produces\" lists none together with records");
	if (e->pub.kinds == 0)
		return fail(L, &marks[EK_PRODUCES], PICL_ERR_SCHEMA,
			    "\"produces\" is an empty list");
	if (e->pub.mark && !(e->pub.kinds & KIND_MARK))
		return fail(L, &marks[EK_MARK], PICL_ERR_SCHEMA,
			    "mark data for an event that does not produce marks");
	if (e->pub.entry && !(e->pub.kinds & KIND_ENTRY_EXIT))
		return fail(L, &marks[EK_ENTRY], PICL_ERR_SCHEMA,
			    "entry data for an event that does not produce entry/exit");
	if (e->pub.exit && !(e->pub.kinds & KIND_ENTRY_EXIT))
		return fail(L, &marks[EK_EXIT], PICL_ERR_SCHEMA,
			    "exit data for an event that does not produce entry/exit");
	if (e->has_members && strcmp(e->pub.category, "subset") != 0)
		return fail(L, &marks[EK_MEMBERS], PICL_ERR_SCHEMA,
			    "\"members\" in an event whose category is not subset");
	if ((rc = check_category(L, &marks[EK_CATEGORY], &slot, e->pub.category)))
		return rc;
	datas[0] = e->pub.mark;
	datas[1] = e->pub.entry;
	datas[2] = e->pub.exit;
	for (idx = 0; idx < 3; idx++)
		for (i = 0; datas[idx] && i < datas[idx]->nfields; i++)
			nvolume += datas[idx]->fields[i].volume != 0;
	if (nvolume && e->volume != VOLUME_NONE)
		return fail(L, &marks[EK_VOLUME], PICL_ERR_SCHEMA,
			    "an event-level \"volume\" and a volume field in one event");

	return keep_slot(L, &L->events, &slot, e);
}

/*
 * The format numbers event types by category (Table 4; the subsets of
 * Table 5 hold them: -1011 is -11 ... -200, and so on), and stat and plot
 * read an event's category from its number (its share of utilization, user
 * or system). So a schema's `category` must be the one the number says:
 * every type of an event's type or range in the same group, that group's
 * word; types in the gaps the format leaves (-10 ... -2, -900 ... -701) are
 * in no group and may be user or generic, which the tools count as no
 * category of their own, as they count those numbers.
 */
static const struct {
	int32_t lo, hi;
	const char *category;
} format_groups[] = {
	{ 0, INT32_MAX, "user" },
	{ -1, -1, "wildcard" },
	{ -200, -11, "communication" },
	{ -400, -201, "file-io" },
	{ -500, -401, "synchronization" },
	{ -600, -501, "resource" },
	{ -700, -601, "generic" },
	{ -1000, -901, "tracing" },
	{ INT32_MIN, -1001, "subset" },
};

static int check_category(struct loader *L, const yaml_mark_t *at, const struct slot *slot,
			  const char *category)
{
	size_t g, ng = sizeof(format_groups) / sizeof(format_groups[0]);
	const char *want = NULL;
	int32_t gap = 0;
	int in_gap = 0;

	for (g = 0; g < ng; g++) {
		if (format_groups[g].hi < slot->lo || format_groups[g].lo > slot->hi)
			continue;
		if (want) {
			return fail(L, at, PICL_ERR_SCHEMA,
				    "the range [%ld, %ld] holds event types of the format's categories %s and %s (Table 4); split it",
				    (long)slot->lo, (long)slot->hi, want, format_groups[g].category);
		}
		want = format_groups[g].category;
		if (format_groups[g].lo > slot->lo || format_groups[g].hi < slot->hi) {
			in_gap = 1;   /* partly outside every group */
			gap = format_groups[g].lo > slot->lo ? slot->lo : slot->hi;
		}
	}
	if (want && in_gap)
		return fail(L, at, PICL_ERR_SCHEMA,
			    "the range [%ld, %ld] holds event types of category %s and event type %ld, which the format puts in none (Table 4); split it",
			    (long)slot->lo, (long)slot->hi, want, (long)gap);
	if (want && strcmp(want, category) != 0) {
		if (slot->lo == slot->hi)
			return fail(L, at, PICL_ERR_SCHEMA,
				    "event type %ld is of category %s in the format (Table 4), not %s",
				    (long)slot->lo, want, category);
		return fail(L, at, PICL_ERR_SCHEMA,
			    "event types [%ld, %ld] are of category %s in the format (Table 4), not %s",
			    (long)slot->lo, (long)slot->hi, want, category);
	}
	if (!want && strcmp(category, "user") != 0 && strcmp(category, "generic") != 0)
		return fail(L, at, PICL_ERR_SCHEMA,
			    "event type %ld is in no category of the format (Table 4): it may be user or generic, not %s",
			    (long)slot->lo, category);
	return PICL_OK;
}

/* ---- records --------------------------------------------------------- */

static const char *const record_categories[] = {
	"event", "label", "descriptor", "message", "statistics", "subset",
	"header", "user", NULL
};
#define RECORD_CATEGORY_LIST "event, label, descriptor, message, " \
	"statistics, subset, header or user"

/* The record types by category: Table 3, and the header records of
 * picl-schema(5). A record type in one of these must have its category
 * (the types between them may have any: the format says nothing of them). */
static const struct {
	int32_t lo, hi;
	const char *category;
	const char *where;
} record_groups[] = {
	{ 0, INT32_MAX, "user", "Table 3" },
	{ -4, -2, "event", "Table 3" },
	{ -5, -5, "label", "Table 3" },
	{ -6, -6, "descriptor", "Table 3" },
	{ -7, -7, "message", "Table 3" },
	{ -103, -101, "statistics", "Table 3" },
	{ -203, -201, "subset", "Table 3" },
	{ -399, -301, "header", "header records, section 2.4" },
};

static int check_record_category(struct loader *L, const yaml_mark_t *at,
				 const struct slot *slot, const char *category)
{
	size_t g, ng = sizeof(record_groups) / sizeof(record_groups[0]);
	size_t want = ng;

	for (g = 0; g < ng; g++) {
		if (record_groups[g].hi < slot->lo || record_groups[g].lo > slot->hi)
			continue;
		if (want < ng || record_groups[g].lo > slot->lo ||
		    record_groups[g].hi < slot->hi)
			return fail(L, at, PICL_ERR_SCHEMA,
				    "the range [%ld, %ld] holds record types of category %s and others (%s); split it",
				    (long)slot->lo, (long)slot->hi,
				    record_groups[g].category, record_groups[g].where);
		want = g;
	}
	if (want == ng || strcmp(record_groups[want].category, category) == 0)
		return PICL_OK;
	if (slot->lo == slot->hi)
		return fail(L, at, PICL_ERR_SCHEMA,
			    "record type %ld is of category %s in the format (%s), not %s",
			    (long)slot->lo, record_groups[want].category,
			    record_groups[want].where, category);
	return fail(L, at, PICL_ERR_SCHEMA,
		    "record types [%ld, %ld] are of category %s in the format (%s), not %s",
		    (long)slot->lo, (long)slot->hi, record_groups[want].category,
		    record_groups[want].where, category);
}

static const char *const record_keys[] = {
	"type", "range", "name", "category", "descriptor", "count", "fields",
	"description", "spec", NULL
};
enum {
	RK_TYPE, RK_RANGE, RK_NAME, RK_CATEGORY, RK_DESCRIPTOR, RK_COUNT,
	RK_FIELDS, RK_DESCRIPTION, RK_SPEC, RK_COUNT_
};

static int parse_record(struct loader *L)
{
	yaml_mark_t start = L->ev.start_mark, kmark;
	yaml_mark_t marks[RK_COUNT_];
	struct picl_schema_record *r;
	struct picl_schema_field *fields = NULL;
	struct slot slot;
	unsigned seen = 0;
	size_t count = 0, nfields = 0;
	int rc, idx, v;

	if ((rc = expect_mapping(L, "a record")))
		return rc;
	r = arena_alloc(&L->arena, sizeof(*r));
	if (!r)
		return fail_nomem(L);
	memset(&slot, 0, sizeof(slot));
	while ((rc = next_key(L, record_keys, "a record", &seen, &idx, &kmark)) == 1) {
		marks[idx] = kmark;
		switch (idx) {
		case RK_TYPE:
		case RK_RANGE:
			rc = read_type_or_range(L, idx == RK_RANGE, &slot);
			break;
		case RK_NAME:
			rc = read_name(L, "name", 0, &r->name);
			break;
		case RK_CATEGORY:
			rc = read_choice(L, "category", record_categories,
					 RECORD_CATEGORY_LIST, &v);
			if (!rc)
				r->category = record_categories[v];
			break;
		case RK_DESCRIPTOR:
			rc = read_descriptor(L, "descriptor", 1, &r->descriptor);
			break;
		case RK_COUNT:
			rc = read_count(L, &r->variable, &count);
			break;
		case RK_FIELDS:
			rc = parse_fields(L, &fields, &nfields);
			break;
		case RK_DESCRIPTION:
		case RK_SPEC:
			rc = read_text(L, record_keys[idx], 1, NULL);
			break;
		}
		if (rc)
			return rc;
	}
	if (rc)
		return rc;

	rc = type_or_range(L, seen, 1u << RK_TYPE, 1u << RK_RANGE, &start,
			   &marks[RK_RANGE], "a record", &slot);
	if (rc)
		return rc;
	r->type = slot.lo;
	if (!(seen & (1u << RK_NAME)))
		return fail(L, &start, PICL_ERR_SCHEMA, "missing key \"name\" in a record");
	if (!(seen & (1u << RK_CATEGORY)))
		return fail(L, &start, PICL_ERR_SCHEMA, "missing key \"category\" in a record");
	if ((rc = check_record_category(L, &marks[RK_CATEGORY], &slot, r->category)))
		return rc;
	if ((seen & (1u << RK_COUNT)) && (r->variable || count > 0) && !r->descriptor)
		return fail(L, &start, PICL_ERR_SCHEMA,
			    "missing key \"descriptor\" in a record (count is not 0)");
	/* as for an event's data, and Table 1: no data, no descriptor */
	if ((seen & (1u << RK_COUNT)) && !r->variable && count == 0) {
		if (r->descriptor)
			return fail(L, &marks[RK_DESCRIPTOR], PICL_ERR_SCHEMA,
				    "a descriptor for a record whose count is 0");
		if (nfields > 0)
			return fail(L, &marks[RK_FIELDS], PICL_ERR_SCHEMA,
				    "%zu field%s listed in a record whose count is 0",
				    nfields, nfields == 1 ? "" : "s");
	}
	if ((seen & (1u << RK_FIELDS)) &&
	    (rc = check_fields(L, &marks[RK_FIELDS], r->descriptor, fields, nfields, 0)))
		return rc;
	r->max_fields = (seen & (1u << RK_COUNT)) && !r->variable ? count : SIZE_MAX;

	return keep_slot(L, &L->records, &slot, r);
}

/* ---- aliases ---------------------------------------------------------- */

static const char *const alias_keys[] = { "alias", "descriptor", "description", NULL };

static int parse_alias(struct loader *L)
{
	yaml_mark_t start = L->ev.start_mark, kmark;
	unsigned seen = 0;
	int rc, idx;
	int64_t alias;

	if ((rc = expect_mapping(L, "an alias")))
		return rc;
	while ((rc = next_key(L, alias_keys, "an alias", &seen, &idx, &kmark)) == 1) {
		if (idx == 0)
			rc = read_int(L, "alias", 0, INT64_MAX, 0, &alias);
		else if (idx == 1)
			rc = read_descriptor(L, "descriptor", 0, NULL);
		else
			rc = read_text(L, alias_keys[idx], 1, NULL);
		if (rc)
			return rc;
	}
	if (rc)
		return rc;
	if (!(seen & 1u))
		return fail(L, &start, PICL_ERR_SCHEMA, "missing key \"alias\" in an alias");
	if (!(seen & 2u))
		return fail(L, &start, PICL_ERR_SCHEMA,
			    "missing key \"descriptor\" in an alias");
	return PICL_OK;
}

/* ---- the document ------------------------------------------------------ */

static int parse_list_of(struct loader *L, const char *key, int (*item)(struct loader *))
{
	int rc = expect_list(L, key);

	if (rc)
		return rc;
	for (;;) {
		if ((rc = next(L)))
			return rc;
		if (L->ev.type == YAML_SEQUENCE_END_EVENT)
			return PICL_OK;
		if ((rc = item(L)))
			return rc;
	}
}

static const char *const top_keys[] = {
	"format", "version", "description", "aliases", "records", "events", NULL
};

static int parse_top(struct loader *L)
{
	yaml_mark_t kmark;
	unsigned seen = 0;
	int rc, idx;
	int64_t version;
	char q[PICL_PROBLEM_MAX / 2];

	if ((rc = expect_mapping(L, "the schema")))
		return rc;
	while ((rc = next_key(L, top_keys, "the schema", &seen, &idx, &kmark)) == 1) {
		switch (idx) {
		case 0:
			if ((rc = expect_scalar(L, "format", "a text")))
				break;
			if (!sis(L, SCHEMA_FORMAT))
				rc = fail(L, &L->ev.start_mark, PICL_ERR_SCHEMA,
					  "unknown format \"%s\" (expected \"%s\")",
					  squote(L, q, sizeof(q)), SCHEMA_FORMAT);
			break;
		case 1:
			rc = read_int(L, "version", INT64_MIN, INT64_MAX, 0, &version);
			if (!rc && version != SCHEMA_VERSION)
				rc = fail(L, &L->ev.start_mark, PICL_ERR_SCHEMA,
					  "schema version %lld is not supported (expected %d)",
					  (long long)version, SCHEMA_VERSION);
			break;
		case 2:
			rc = read_text(L, "description", 1, NULL);
			break;
		case 3:
			rc = parse_list_of(L, "aliases", parse_alias);
			break;
		case 4:
			rc = parse_list_of(L, "records", parse_record);
			break;
		case 5:
			rc = parse_list_of(L, "events", parse_event);
			break;
		}
		if (rc)
			return rc;
	}
	return rc;
}

static int parse_document(struct loader *L)
{
	int rc;

	if ((rc = next(L)))                     /* stream start */
		return rc;
	if ((rc = next(L)))
		return rc;
	if (L->ev.type != YAML_DOCUMENT_START_EVENT)
		return fail(L, &L->ev.start_mark, PICL_ERR_SCHEMA,
			    "the file holds no YAML document");
	if ((rc = next(L)))
		return rc;
	if ((rc = parse_top(L)))
		return rc;
	if ((rc = next(L)))                     /* document end */
		return rc;
	if ((rc = next(L)))
		return rc;
	if (L->ev.type != YAML_STREAM_END_EVENT)
		return fail(L, &L->ev.start_mark, PICL_ERR_SCHEMA,
			    "more than one YAML document in a schema file");
	return PICL_OK;
}

/* ---- duplicates and merging ------------------------------------------- */

static int slot_cmp(const void *pa, const void *pb)
{
	const struct slot *a = pa, *b = pb;

	if (a->is_range != b->is_range)
		return a->is_range - b->is_range;
	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	if (a->hi != b->hi)
		return a->hi < b->hi ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int seq_cmp(const void *pa, const void *pb)
{
	const struct slot *a = pa, *b = pb;

	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/*
 * Sort one file's definitions (exact types first, by type; then ranges)
 * and reject a type (or range) defined twice, at its second definition.
 * On success *nexact is the number of exact types; the ranges after them
 * are put back in the order of definition.
 */
static int check_duplicates(struct loader *L, struct slots *s, const char *what,
			    size_t *nexact)
{
	const struct slot *dup = NULL;
	size_t i;

	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), slot_cmp);
	for (i = 1; i < s->n; i++) {
		const struct slot *a = &s->v[i - 1], *b = &s->v[i];

		if (a->is_range == b->is_range && a->lo == b->lo && a->hi == b->hi &&
		    (!dup || b->seq < dup->seq))
			dup = b;
	}
	if (dup) {
		const struct slot *first = dup - 1;
		char where[96];

		while (first > s->v && first[-1].is_range == dup->is_range &&
		       first[-1].lo == dup->lo && first[-1].hi == dup->hi)
			first--;
		if (dup->is_range)
			snprintf(where, sizeof(where), "%s range [%ld, %ld]", what,
				 (long)dup->lo, (long)dup->hi);
		else
			snprintf(where, sizeof(where), "%s type %ld", what, (long)dup->lo);
		if (L->err) {
			struct picl_mark fm = first->mark;

			byte_mark(L->fp, &fm);
			fail(L, NULL, PICL_ERR_SCHEMA,
			     "%s is defined twice (first at line %llu, column %llu)",
			     where, (unsigned long long)fm.line,
			     (unsigned long long)fm.column);
			L->err->mark = dup->mark;
			byte_mark(L->fp, &L->err->mark);
		}
		return PICL_ERR_SCHEMA;
	}
	for (i = 0; i < s->n && !s->v[i].is_range; i++)
		;
	*nexact = i;
	if (s->n > i)
		qsort(s->v + i, s->n - i, sizeof(*s->v), seq_cmp);
	return PICL_OK;
}

static int name_cmp(const void *pa, const void *pb)
{
	const struct slot *a = pa, *b = pb;
	const struct event_def *ea = a->def, *eb = b->def;
	int c = strcmp(ea->pub.name, eb->pub.name);

	if (c)
		return c;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Reject an event name given twice in one file (picl-schema(5): names are
 * unique display names), at the second use that comes first in the file. */
static int check_event_names(struct loader *L)
{
	struct slot *v;
	const struct slot *dup = NULL, *first = NULL;
	size_t i;

	if (L->events.n < 2)
		return PICL_OK;
	v = malloc(L->events.n * sizeof(*v));
	if (!v)
		return fail_nomem(L);
	memcpy(v, L->events.v, L->events.n * sizeof(*v));
	qsort(v, L->events.n, sizeof(*v), name_cmp);
	for (i = 1; i < L->events.n; i++) {
		const struct event_def *a = v[i - 1].def, *b = v[i].def;

		if (strcmp(a->pub.name, b->pub.name) == 0 && (!dup || v[i].seq < dup->seq)) {
			dup = &v[i];
			for (first = dup - 1; first > v; first--)
				if (strcmp(((const struct event_def *)first[-1].def)->pub.name,
					   b->pub.name) != 0)
					break;
		}
	}
	if (dup) {
		const struct event_def *d = dup->def, *f = first->def;
		char q[PICL_PROBLEM_MAX / 2];

		if (L->err) {
			struct picl_mark fm = f->name_mark;

			byte_mark(L->fp, &fm);
			fail(L, NULL, PICL_ERR_SCHEMA,
			     "event name \"%s\" is given twice (first at line %llu, column %llu)",
			     picl_quote(d->pub.name, strlen(d->pub.name), 40, q, sizeof(q)),
			     (unsigned long long)fm.line, (unsigned long long)fm.column);
			L->err->mark = d->name_mark;
			byte_mark(L->fp, &L->err->mark);
		}
		free(v);
		return PICL_ERR_SCHEMA;
	}
	free(v);
	return PICL_OK;
}

/* Merge sorted, duplicate-free add[0..n) into the sorted table t, the new
 * definition replacing an old one of the same type, into a new array *out
 * (of *outn slots; the caller installs it). */
static int merge_exact(const struct slots *t, const struct slot *add, size_t n,
		       struct slot **out, size_t *outn)
{
	struct slot *v;
	size_t i = 0, j = 0, k = 0;

	if (t->n + n == 0) {
		*out = NULL;
		*outn = 0;
		return PICL_OK;
	}
	v = malloc((t->n + n) * sizeof(*v));
	if (!v)
		return PICL_ERR_NOMEM;
	while (i < t->n || j < n) {
		if (j == n || (i < t->n && t->v[i].lo < add[j].lo)) {
			v[k++] = t->v[i++];
		} else {
			if (i < t->n && t->v[i].lo == add[j].lo)
				i++;
			v[k++] = add[j++];
		}
	}
	*out = v;
	*outn = k;
	return PICL_OK;
}

static int range_cmp(const void *pa, const void *pb)
{
	const struct slot *a = pa, *b = pb;

	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return a->hi < b->hi ? -1 : a->hi > b->hi;
}

/*
 * Add a file's ranges add[0..n) (in file order, none twice) to the table t,
 * which has room for n more: an identical range of t is dropped, and the
 * new ones go last, in their order, since a look-up takes the last range
 * that contains the type (the most recently defined). add is sorted by
 * (lo, hi) for the search and put back in file order: n log n, where
 * looking for each new range in t took n times t->n.
 */
static void merge_ranges(struct slots *t, struct slot *add, size_t n)
{
	size_t i, k = 0;

	qsort(add, n, sizeof(*add), range_cmp);
	for (i = 0; i < t->n; i++)
		if (!bsearch(&t->v[i], add, n, sizeof(*add), range_cmp))
			t->v[k++] = t->v[i];
	qsort(add, n, sizeof(*add), seq_cmp);
	memcpy(t->v + k, add, n * sizeof(*add));
	t->n = k + n;
}

/* The first definition of the first file (the default schema, the
 * format's types) whose type lies in [lo, hi]: an exact type anywhere, a
 * range where it covers a type below 0 (0 and up are the program's own, which
 * the default schema describes only as ranges); NULL for none. */
static const struct slot *base_overlap(const struct slots *exact,
				       const struct slots *ranges, int32_t lo, int32_t hi)
{
	size_t a = 0, b = exact->n, i;

	while (a < b) {                 /* the first exact type >= lo */
		size_t m = a + (b - a) / 2;

		if (exact->v[m].lo < lo)
			a = m + 1;
		else
			b = m;
	}
	for (i = a; i < exact->n && exact->v[i].lo <= hi; i++)
		if (exact->v[i].base)
			return &exact->v[i];
	if (lo < 0)
		for (i = 0; i < ranges->n; i++)
			if (ranges->v[i].base && ranges->v[i].lo <= (hi < -1 ? hi : -1) &&
			    ranges->v[i].hi >= lo)
				return &ranges->v[i];
	return NULL;
}

/*
 * A later file (a user schema) may only add types: refuse, at the first such
 * definition in the file, one whose type (or a type of whose range) the
 * first file defines (picl-schema(5), LOOK-UPS AND USER SCHEMAS). Every
 * tool reads the predefined types by the format's tables; a user schema that
 * redescribed them (another descriptor for -21, "user" for -52) would make
 * validate, stat and plot disagree with the format and with one another.
 */
static int check_only_adds(struct loader *L, const struct picl_schema *s,
			   const struct slots *add, const struct slots *exact,
			   const struct slots *ranges, const char *what)
{
	const struct slot *bad = NULL, *old = NULL;
	size_t i;

	for (i = 0; i < add->n; i++) {
		const struct slot *o = base_overlap(exact, ranges, add->v[i].lo, add->v[i].hi);

		if (o && (!bad || add->v[i].seq < bad->seq)) {
			bad = &add->v[i];
			old = o;
		}
	}
	if (!bad)
		return PICL_OK;
	if (L->err) {
		int is_event = exact == &s->events;
		const char *name = is_event ? ((const struct event_def *)old->def)->pub.name :
			((const struct picl_schema_record *)old->def)->name;
		const char *cat = is_event ? ((const struct event_def *)old->def)->pub.category :
			((const struct picl_schema_record *)old->def)->category;
		const char *by = !is_event ? (strcmp(cat, "header") ? "the format (Table 3)" :
					      "the default schema (header records, section 2.4)") :
			strcmp(cat, "subset") ? "the format (Table 4)" : "the format (Table 5)";
		char q[PICL_PROBLEM_MAX / 4], type[64];
		int32_t t = old->is_range ? (bad->lo > old->lo ? bad->lo : old->lo) :
			old->lo;

		if (old->is_range)
			snprintf(type, sizeof(type), "%s type %ld (range [%ld, %ld]",
				 what, (long)t, (long)old->lo, (long)old->hi);
		else
			snprintf(type, sizeof(type), "%s type %ld (", what, (long)t);
		fail(L, NULL, PICL_ERR_SCHEMA,
		     "%s%s\"%s\") is defined by %s; a user schema may only add types",
		     type, old->is_range ? ", " : "",
		     picl_quote(name, strlen(name), 40, q, sizeof(q)), by);
		L->err->mark = bad->mark;
		byte_mark(L->fp, &L->err->mark);
	}
	return PICL_ERR_SCHEMA;
}

/* Install what L loaded into s; all or nothing. */
static int commit(struct loader *L, struct picl_schema *s)
{
	size_t ne, nr, nev, nrec, i;
	struct slot *ev = NULL, *rec = NULL;
	int rc;

	if ((rc = check_duplicates(L, &L->events, "event", &ne)))
		return rc;
	if ((rc = check_event_names(L)))
		return rc;
	if ((rc = check_duplicates(L, &L->records, "record", &nr)))
		return rc;
	if (s->based &&
	    ((rc = check_only_adds(L, s, &L->events, &s->events, &s->event_ranges, "event")) ||
	     (rc = check_only_adds(L, s, &L->records, &s->records, &s->record_ranges, "record"))))
		return rc;
	for (i = 0; i < L->events.n; i++)
		L->events.v[i].base = !s->based;
	for (i = 0; i < L->records.n; i++)
		L->records.v[i].base = !s->based;
	if (slots_reserve(&s->event_ranges, L->events.n - ne) ||
	    slots_reserve(&s->record_ranges, L->records.n - nr) ||
	    merge_exact(&s->events, L->events.v, ne, &ev, &nev) ||
	    merge_exact(&s->records, L->records.v, nr, &rec, &nrec)) {
		free(ev);
		free(rec);
		return fail_nomem(L);
	}
	free(s->events.v);
	s->events.v = ev;
	s->events.n = s->events.cap = nev;
	free(s->records.v);
	s->records.v = rec;
	s->records.n = s->records.cap = nrec;
	if (L->events.n > ne)
		merge_ranges(&s->event_ranges, L->events.v + ne, L->events.n - ne);
	if (L->records.n > nr)
		merge_ranges(&s->record_ranges, L->records.v + nr, L->records.n - nr);
	arena_splice(&s->arena, &L->arena);
	s->based = 1;
	return PICL_OK;
}

/* ------------------------------------------------------------------------ */
/* Public functions                                                          */
/* ------------------------------------------------------------------------ */

static void fill_direct(struct picl_schema *s);

int picl_schema_extend(struct picl_schema *s, const char *path,
		       struct picl_error *err)
{
	struct loader L;
	FILE *fp;
	int rc;

	memset(&L, 0, sizeof(L));
	L.path = path ? path : "<schema>";
	L.err = err;
	if (!path)
		return fail(&L, NULL, PICL_ERR_USAGE, "no path to open (NULL)");
	if (!s)
		return fail(&L, NULL, PICL_ERR_USAGE, "no schema (NULL)");
	fp = fopen(path, "rb");
	if (!fp) {
		int e = errno;

		rc = fail(&L, NULL, PICL_ERR_IO, "cannot open the schema: %s",
			  strerror(e));
		if (err)
			err->sys_errno = e;
		return rc;
	}
	if (!yaml_parser_initialize(&L.parser)) {
		fclose(fp);
		return fail_nomem(&L);
	}
	yaml_parser_set_input_file(&L.parser, fp);
	L.fp = fp;

	rc = parse_document(&L);
	if (rc == PICL_OK && ferror(fp)) {
		int e = errno;

		rc = fail(&L, NULL, PICL_ERR_IO, "cannot read the schema: %s",
			  strerror(e));
		if (err)
			err->sys_errno = e;
	}
	if (rc == PICL_OK)
		rc = commit(&L, s);
	if (rc == PICL_OK)
		fill_direct(s);

	if (L.have_ev)
		yaml_event_delete(&L.ev);
	yaml_parser_delete(&L.parser);
	fclose(fp);
	slots_release(&L.events);
	slots_release(&L.records);
	arena_release(&L.arena);      /* empty after a successful commit */
	return rc;
}

struct picl_schema *picl_schema_load(const char *path, struct picl_error *err)
{
	struct picl_schema *s = calloc(1, sizeof(*s));

	if (!s) {
		if (err) {
			snprintf(err_path, sizeof(err_path), "%s", path ? path : "<schema>");
			err->path = err_path;
			memset(&err->mark, 0, sizeof(err->mark));
			picl_set_error(err, PICL_ERR_NOMEM,
				       "out of memory while loading the schema");
		}
		return NULL;
	}
	if (picl_schema_extend(s, path, err) != PICL_OK) {
		picl_schema_free(s);
		return NULL;
	}
	return s;
}

const char *picl_schema_default_path(void)
{
	const char *env = getenv("PICL_SCHEMA");

	if (env && *env)
		return env;
	return PICL_PKGDATADIR "/picl.yaml";
}

struct picl_schema *picl_schema_load_default(struct picl_error *err)
{
	const char *env = getenv("PICL_SCHEMA");
	struct picl_schema *s = picl_schema_load(picl_schema_default_path(), err);

	/* the installed schema missing: say how to name another */
	if (!s && err && err->code == PICL_ERR_IO && err->sys_errno == ENOENT &&
	    !(env && *env)) {
		size_t n = strlen(err->problem);

		snprintf(err->problem + n, sizeof(err->problem) - n,
			 " (none is installed there: run make install, or set PICL_SCHEMA to "
			 "a picl.yaml such as the source tree's schemas/picl.yaml)");
	}
	return s;
}

void picl_schema_free(struct picl_schema *s)
{
	if (!s)
		return;
	slots_release(&s->events);
	slots_release(&s->event_ranges);
	slots_release(&s->records);
	slots_release(&s->record_ranges);
	arena_release(&s->arena);
	free(s);
}

/* Exact types by binary search, then ranges from the newest. */
static const void *table_find(const struct slots *exact, const struct slots *ranges,
			      int32_t type)
{
	size_t lo = 0, hi = exact->n, i;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (exact->v[mid].lo < type)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < exact->n && exact->v[lo].lo == type)
		return exact->v[lo].def;
	for (i = ranges->n; i-- > 0;)
		if (ranges->v[i].lo <= type && type <= ranges->v[i].hi)
			return ranges->v[i].def;
	return NULL;
}

static int is_direct(int32_t type)
{
	return type >= DIRECT_LO && type < DIRECT_LO + DIRECT_N;
}

/* After a load: the direct tables say what table_find says. */
static void fill_direct(struct picl_schema *s)
{
	int32_t k;

	for (k = 0; k < DIRECT_N; k++) {
		s->event_direct[k] = table_find(&s->events, &s->event_ranges, DIRECT_LO + k);
		s->record_direct[k] = table_find(&s->records, &s->record_ranges, DIRECT_LO + k);
	}
}

const struct picl_schema_event *picl_schema_event(const struct picl_schema *s,
						  int32_t event_type)
{
	const struct event_def *e;

	if (!s)
		return NULL;
	e = is_direct(event_type) ? s->event_direct[event_type - DIRECT_LO] :
	    table_find(&s->events, &s->event_ranges, event_type);
	return e ? &e->pub : NULL;
}

const struct picl_schema_record *picl_schema_record(const struct picl_schema *s,
						    int32_t record_type)
{
	if (!s)
		return NULL;
	if (is_direct(record_type))
		return s->record_direct[record_type - DIRECT_LO];
	return table_find(&s->records, &s->record_ranges, record_type);
}
