/*
 * cmd-filter.c - `picltrace filter`: keep the records of traces that match
 * processors, processes, event types, record types, a time window and
 * regular expressions, and write them out in input order, plain or zstd.
 *
 * What is kept. A record is *selected* when it passes every criterion given
 * (criteria of different kinds are ANDed, the items of one list are ORed):
 *   -p/-P/-e/-t  its processor, process, event or record type field is one
 *                of the LIST's numbers or ranges, or (processor, process,
 *                event) a member of a subset the LIST names: a predefined
 *                event subset by name (sends = -1012 ...) or any id below -1
 *                that the trace defines with a -201/-202/-203 record (as the
 *                definitions stand when the record is read);
 *   --from/--to  from <= time < to, compared exactly (struct picl_time);
 *   -g           a label (-5) or message (-7) whose character data match one
 *                of the PCRE2 patterns; with --grep-data, any record whose
 *                data text matches, spaced as the output has it (data_text).
 * -v inverts that. Definition and header records (-6, -201..-203,
 * -399..-301) are always kept unless --no-defs: keeping them all is the
 * simple way to be sure every kept record still has the aliases and subsets
 * it refers to; a -307 record keeps only the processors -p selects (see
 * select_ids; one in the header waits for the header's subsets, hold_ids),
 * and a record of a processor it left out, kept as a subset was redefined
 * since, is refused (left_out).
 * --pairs then closes the kept set over entry/exit pairs: an
 * entry (-3) and its exit (-4), matched by a stack per (processor, process)
 * and event type, are kept both or neither.
 *
 * How it is fast. Inputs are read in raw mode (PICL_READ_RAW): only the six
 * fixed fields are parsed, data are decoded only for the records a pattern
 * must look at (labels and messages; with --grep-data, records whose data
 * are not single-spaced or whose control string has literal text, see
 * data_text). A kept record whose text is already canonical (a cheap byte
 * check, line_is_canonical) is copied as it stood with
 * picl_writer_write_raw; only others (extra blanks, continuation lines,
 * "1e-3" times, "1,2" for "%d,%d") are decoded and rewritten by
 * picl_writer_write.
 * Nothing is allocated per record. Data that are not decoded are not
 * checked either: that is validate's job.
 *
 * Why --pairs reads twice. Keeping an entry because its exit matches needs
 * to know the future. Buffering the records behind every undecided entry
 * would not be bounded in practice: the tracing entry (-901) of every
 * process stays open from the first record to the last. So --pairs makes
 * two passes: the first decides every record and marks both halves of each
 * pair with a selected half in a bitmap (one bit per record, plus a stack
 * of open entries per process); the second copies the marked records out.
 * Memory: two pages of that bitmap (the older ones wait in a temporary
 * file, see struct pairs), plus the open entries. An input that
 * cannot be read twice (standard input from a pipe, a FIFO) is first copied
 * to an unlinked temporary file in $TMPDIR (or /tmp).
 *
 * Errors: a malformed record, a failing read or write, or a pattern match
 * that fails stops the command with file:line:column and exit status 2; the
 * output (a temporary file renamed into place only at the end) is then not
 * created, and an input is never the output but with --in-place, which
 * renames the output over its one input only when all went well.
 */
#include "builtin.h"
#include "fdio.h"
#include "grow.h"
#include "internal.h"   /* picl_data_needs_pad */
#include "openindex.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char filter_usage[] =
	"usage: picltrace filter [-p LIST] [-P LIST] [-e LIST] [-t LIST] [--from=TIME]\n"
	"                        [--to=TIME] [-g REGEX]... [-i] [--grep-data] [-v]\n"
	"                        [--pairs] [--keep-defs|--no-defs]\n"
	"                        [-o FILE | --in-place] [-z] [--level=N] [-q] [FILE...]\n"
	"\n"
	"  -p, --processor=LIST  keep records of these processors (host = 32767)\n"
	"  -P, --process=LIST    keep records of these processes (a process subset:\n"
	"                        the one the record's processor defines)\n"
	"  -e, --event=LIST      keep records of these event types; names: user,\n"
	"                        system, communication, sends, receives, blocking,\n"
	"                        file-io, synchronization, resources, generic,\n"
	"                        tracing, flushing (the subsets -1001 ... -1902)\n"
	"  -t, --type=LIST       keep records of these record types; names: mark,\n"
	"                        entry, exit, label, descriptor, message, statistics,\n"
	"                        subsets, headers, user (0 and above)\n"
	"      --from=TIME       keep records at TIME or later (exact decimal)\n"
	"      --to=TIME         keep records before TIME (exact decimal)\n"
	"  -g, --grep=REGEX      keep labels (-5) and messages (-7) whose text\n"
	"                        matches the PCRE2 pattern (repeat: any of them)\n"
	"  -i, --ignore-case     patterns ignore case\n"
	"      --grep-data       patterns look at the data text of every record\n"
	"                        (as written out: values single-spaced)\n"
	"  -v, --invert          keep the records that do not match\n"
	"      --pairs           keep entry/exit pairs whole (reads the input twice)\n"
	"      --keep-defs       keep every definition and header record: -6,\n"
	"                        -201..-203, -399..-301 (the default); -307 keeps\n"
	"                        only the processors -p selects (a record of one it\n"
	"                        left out, kept as a subset was redefined, is an\n"
	"                        error)\n"
	"      --no-defs         filter definition and header records like the rest\n"
	"                        (of --keep-defs and --no-defs, the last counts)\n"
	"  -o, --output=FILE     write to FILE instead of standard output\n"
	"      --in-place        replace the (single) input file by what is kept,\n"
	"                        once all of it was read and written\n"
	"  -z, --zstd            compress the output with zstd (also\n"
	"                        implied by --level, or an output FILE named *.zst;\n"
	"                        --in-place keeps a compressed input compressed)\n"
	"      --level=N         zstd compression level (1-19, default 3)\n"
	"  -q, --quiet           no progress line\n"
	"  -h, --help            show this help\n"
	"\n"
	"A LIST is comma-separated numbers, ranges (-60..-51) and names; a number\n"
	"below -1 also selects the members of the subset of that id the trace\n"
	"defines. Criteria of different options must all hold. With no FILE, or\n"
	"when FILE is -, read standard input; inputs may be plain or zstd.\n";

/* ------------------------------------------------------------------------ */
/* Selections: -p, -P, -e, -t                                                */
/* ------------------------------------------------------------------------ */

enum sel_kind { SEL_PROCESSOR, SEL_PROCESS, SEL_EVENT, SEL_TYPE, SEL_NKINDS };

static const char *const sel_option[SEL_NKINDS] = {
	"--processor", "--process", "--event", "--type"
};
/* Their short options, in the same order. */
static const char sel_short[SEL_NKINDS + 1] = "pPet";

/* The subset kind the library knows for each selection (types have none). */
static const enum picl_subset_kind sel_subset_kind[SEL_NKINDS] = {
	PICL_SUBSET_PROCESSORS, PICL_SUBSET_PROCESSES, PICL_SUBSET_EVENTS,
	PICL_SUBSET_EVENTS /* unused */
};

struct item {
	int32_t lo, hi;         /* a number (lo == hi) or an inclusive range */
	int maybe_subset;       /* a single id below -1: it may name a subset */
	int is_subset;          /* ... and it does (as of generation `gen`) */
	uint64_t gen;
};

struct selection {
	struct item *items;
	size_t n, cap;
};

struct name {
	const char *name;
	int32_t lo, hi;
};

static const struct name event_names[] = {
	{ "user", -1001, -1001 }, { "system", -1002, -1002 },
	{ "communication", -1011, -1011 }, { "sends", -1012, -1012 },
	{ "receives", -1013, -1013 }, { "blocking", -1014, -1014 },
	{ "file-io", -1201, -1201 }, { "synchronization", -1401, -1401 },
	{ "resources", -1501, -1501 }, { "generic", -1601, -1601 },
	{ "tracing", -1901, -1901 }, { "flushing", -1902, -1902 },
	{ NULL, 0, 0 }
};

static const struct name type_names[] = {
	{ "mark", -2, -2 }, { "entry", -3, -3 }, { "exit", -4, -4 },
	{ "label", -5, -5 }, { "descriptor", -6, -6 }, { "message", -7, -7 },
	{ "statistics", -103, -101 }, { "subsets", -203, -201 },
	{ "headers", -399, -301 }, { "user", 0, INT32_MAX },
	{ NULL, 0, 0 }
};

static const struct name processor_names[] = {
	{ "host", PICL_HOST_PROCESSOR, PICL_HOST_PROCESSOR },
	{ NULL, 0, 0 }
};

static const struct name no_names[] = { { NULL, 0, 0 } };

static const struct name *const sel_names[SEL_NKINDS] = {
	processor_names, no_names, event_names, type_names
};

/* Parse s[0..len) as a 32-bit integer: 0, -1 not a number, -2 too big. */
static int parse_i32(const char *s, size_t len, int32_t *out)
{
	int64_t v;
	int rc = picltrace_parse_int(s, len, INT32_MIN, INT32_MAX, &v);

	if (rc == 0)
		*out = (int32_t)v;
	return rc;
}

/* Parse one number of an item, reporting what is wrong. 0 or -1. */
static int parse_bound(const char *opt, const char *item, size_t item_len,
		       const char *s, size_t len, const char *where, int32_t *out)
{
	int rc = parse_i32(s, len, out);

	if (rc == 0)
		return 0;
	if (where && rc == -1)
		picltrace_error("filter", "%s: bad range '%.*s': expected a number %s \"..\"",
				opt, (int)item_len, item, where);
	else if (rc == -1)
		picltrace_error("filter", "%s: '%.*s' is not a number, a range (A..B) or a name",
				opt, (int)item_len, item);
	else
		picltrace_error("filter", "%s: '%.*s' is out of range (32 bits)",
				opt, (int)item_len, item);
	return -1;
}

static int parse_name(enum sel_kind kind, const char *opt, const char *s, size_t len,
		      struct item *it)
{
	const struct name *n;
	char known[512];
	size_t k = 0;

	for (n = sel_names[kind]; n->name; n++) {
		if (strlen(n->name) == len && memcmp(n->name, s, len) == 0) {
			it->lo = n->lo;
			it->hi = n->hi;
			return 0;
		}
		k += (size_t)snprintf(known + k, sizeof(known) - k, "%s%s",
				      k ? ", " : "", n->name);
	}
	if (k)
		picltrace_error("filter", "%s: unknown name '%.*s' (known: %s)",
				opt, (int)len, s, known);
	else
		picltrace_error("filter", "%s: '%.*s' is not a number or a range (A..B)",
				opt, (int)len, s);
	return -1;
}

static int parse_item(enum sel_kind kind, const char *s, size_t len, struct item *it)
{
	const char *opt = sel_option[kind];
	const char *dots = NULL;
	size_t i;

	memset(it, 0, sizeof(*it));
	if (len == 0) {
		picltrace_error("filter", "%s: empty item in the list", opt);
		return -1;
	}
	for (i = 0; i + 1 < len; i++)
		if (s[i] == '.' && s[i + 1] == '.') {
			dots = s + i;
			break;
		}
	if (dots) {
		if (parse_bound(opt, s, len, s, (size_t)(dots - s), "before", &it->lo) < 0 ||
		    parse_bound(opt, s, len, dots + 2, len - (size_t)(dots - s) - 2, "after",
				&it->hi) < 0)
			return -1;
		if (it->lo > it->hi) {
			picltrace_error("filter", "%s: bad range '%.*s': %d is greater than %d",
					opt, (int)len, s, (int)it->lo, (int)it->hi);
			return -1;
		}
		return 0;
	}
	if ((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')) {
		if (parse_name(kind, opt, s, len, it) < 0)
			return -1;
	} else {
		if (parse_bound(opt, s, len, s, len, NULL, &it->lo) < 0)
			return -1;
		it->hi = it->lo;
	}
	it->maybe_subset = kind != SEL_TYPE && it->lo == it->hi && it->lo < -1;
	return 0;
}

/* Add the items of a comma-separated LIST to sel. 0 or -1 (reported). */
static int parse_list(enum sel_kind kind, const char *arg, struct selection *sel)
{
	const char *p = arg;

	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (sel->n == sel->cap) {
			size_t ncap = sel->cap ? 2 * sel->cap : 8;
			struct item *v = realloc(sel->items, ncap * sizeof(*v));

			if (!v) {
				picltrace_error("filter", "out of memory");
				return -1;
			}
			sel->items = v;
			sel->cap = ncap;
		}
		if (parse_item(kind, p, len, &sel->items[sel->n]) < 0)
			return -1;
		sel->n++;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

/* ------------------------------------------------------------------------ */
/* The filter                                                                */
/* ------------------------------------------------------------------------ */

struct filter {
	struct selection sel[SEL_NKINDS];
	int has_from, has_to;
	struct picl_time from, to;
	pcre2_code **pats;
	size_t npats;
	pcre2_match_data *md;
	int grep_data, invert, keep_defs, quiet;
	char *text;                 /* data text made canonical for a pattern */
	size_t text_len, text_cap;
	int literal_aliases;        /* a -6 record's control string has literal
				       text (has_literals) */
	char *lit_control;          /* the last explicit control string looked */
	size_t lit_control_len;     /* at, and whether it has literal text */
	int lit_control_has;

	/* while reading */
	struct picl_defs *defs;     /* the current reader's */
	struct picltrace_carry carry;   /* the definitions of the inputs before */
	uint64_t gen;               /* bumped at every subset definition */
	struct picl_writer *w;
	struct picl_value *ids;     /* a -307 record's ids that stay (emit) */
	size_t ids_cap;
	int32_t *left;              /* the processors -307 records written left */
	size_t nleft, left_cap;     /* out, sorted (see left_out) */
	struct held *held;          /* -307 records of the header, held back */
	size_t nheld, held_cap;     /* until its subsets are all defined */
	int in_header;              /* the input's header is being read */
	struct picl_writer *out;    /* the output while records are held */
	int side_fd;                /* what w writes to then (-1: none) */
};

/* A -307 record held back (see hold_ids): its fields, its own copy of the
 * values (integers) and of the control string (desc is found again when
 * it is written), and where it goes among the records after it. */
struct held {
	struct picl_record rec;
	struct picl_value *values;
	char *control;
	uint64_t at;
};

/* Part of a trace's header (doc/DESIGN.md point 8): header records, and
 * the definitions that may come among them. */
static int header_part(int32_t type)
{
	return picl_is_header_type(type) || picl_is_definition_type(type);
}

/* 1 if x, the field of `kind` of a record of `processor`, is selected (a
 * process subset is that processor's, picl-trace.h). */
static int sel_match(struct filter *f, enum sel_kind kind, int32_t processor, int32_t x)
{
	struct selection *s = &f->sel[kind];
	size_t i;

	for (i = 0; i < s->n; i++) {
		struct item *it = &s->items[i];

		if (x >= it->lo && x <= it->hi)
			return 1;
		if (it->maybe_subset && kind == SEL_PROCESS) {
			if (picl_defs_matches_on(f->defs, PICL_SUBSET_PROCESSES, processor,
						 it->lo, x))
				return 1;
		} else if (it->maybe_subset) {
			if (it->gen != f->gen) {
				it->is_subset = picl_defs_subset_exists(f->defs,
						sel_subset_kind[kind], it->lo);
				it->gen = f->gen;
			}
			if (it->is_subset &&
			    picl_defs_matches(f->defs, sel_subset_kind[kind], it->lo, x))
				return 1;
		}
	}
	return 0;
}

static int single_spaced(const char *p, const char *e);

/*
 * 1 if rec's control string has literal text besides conversions and white
 * space ("%d,%d", "x=%d"): single-spaced data may then still not be what
 * the writer writes ("1,2" is written "1, 2"). An alias is looked up only
 * once some -6 record defined one so (the predefined 0-5 have none); an
 * explicit control string is compiled once while the next record's is the
 * same. One that does not compile (%n, say) counts as not having it: such
 * a record is copied as it stands, as before (filter passes on what it
 * need not decode; validate is what judges it).
 */
static int has_literals(struct filter *f, const struct picl_record *rec)
{
	struct picl_descriptor *d;
	char *copy;
	int has;

	if (rec->nfields == 0)
		return 0;
	if (rec->alias >= 0) {
		const struct picl_descriptor *ad;

		if (!f->literal_aliases)
			return 0;
		ad = picl_defs_lookup_alias(f->defs, rec->alias, rec->event, rec->processor,
					    rec->process);
		return ad && picl_descriptor_has_literals(ad);
	}
	if (f->lit_control && f->lit_control_len == rec->control_len &&
	    memcmp(f->lit_control, rec->control, rec->control_len) == 0)
		return f->lit_control_has;
	if (picl_descriptor_compile(rec->control, rec->control_len, &d, NULL) != PICL_OK)
		d = NULL;
	has = picl_descriptor_has_literals(d);   /* 0 for NULL */
	picl_descriptor_free(d);
	copy = malloc(rec->control_len + 1);
	if (copy) {
		memcpy(copy, rec->control, rec->control_len);
		free(f->lit_control);
		f->lit_control = copy;
		f->lit_control_len = rec->control_len;
		f->lit_control_has = has;
	}
	return has;
}

/* A -6 record: note whether its control string has literal text. */
static void note_literal_alias(struct filter *f, struct picl_reader *r,
			       struct picl_record *rec, int *decoded)
{
	struct picl_descriptor *d;
	const struct picl_value *v;

	if (f->literal_aliases || (!*decoded && picl_reader_decode(r, rec) < 0))
		return;   /* one that does not decode: the reader says so */
	*decoded = 1;
	if (rec->nvalues != 2 || !(v = &rec->values[1])->v.s.ptr)
		return;
	if (picl_descriptor_compile(v->v.s.ptr, v->v.s.len, &d, NULL) != PICL_OK)
		return;
	f->literal_aliases = picl_descriptor_has_literals(d);
	picl_descriptor_free(d);
}

/*
 * The data text of rec (after the blank that follows the descriptor) as
 * the output has it, for a pattern: single-spaced data as they stand (as
 * emit copies them), others decoded and encoded canonically (as emit
 * rewrites them), so that a pattern matches a record the same way in a
 * trace and in its canonical copy. Data that values cannot encode (%*)
 * are written as they stand, and matched so. PICL_OK, or
 * PICL_ERR_NOMEM (reported).
 */
static int data_text(struct filter *f, struct picl_reader *r, struct picl_record *rec,
		     int *decoded, const char **text, size_t *len)
{
	int rc;

	*text = rec->data_len ? rec->data + 1 : rec->data;
	*len = rec->data_len ? rec->data_len - 1 : 0;
	if (*len == 0 || (single_spaced(*text, *text + *len) && !has_literals(f, rec)))
		return PICL_OK;
	if (!*decoded) {
		/* Data that do not decode are matched as they stand: a record
		 * not kept is not checked (validate's job), one kept is
		 * refused by emit as before. */
		rc = picl_reader_decode(r, rec);
		if (rc == PICL_ERR_NOMEM) {
			picltrace_error("filter", "out of memory");
			return rc;
		}
		if (rc < 0)
			return PICL_OK;
		*decoded = 1;
	}
	f->text_len = 0;
	if (rec->type == PICL_REC_DESCRIPTOR && rec->nvalues == 2 &&
	    rec->values[0].kind == PICL_VAL_INT && rec->values[1].v.s.ptr) {
		/* -6: the alias, a blank, the control string as the writer
		 * puts it (its own text when that holds it, else quoted) */
		const struct picl_value *v = &rec->values[1];
		int own = v->text && (v->text_len == v->v.s.len ||
				      (v->text_len == v->v.s.len + 2 && v->text[0] == '"'));
		const char *c = own ? v->text : v->v.s.ptr;
		size_t n = own ? v->text_len : v->v.s.len;
		const char *q = own ? "" : "\"";

		if (n > INT_MAX - 32 ||
		    grow((void **)&f->text, &f->text_cap, n + 32, 1) < 0) {
			picltrace_error("filter", "out of memory");
			return PICL_ERR_NOMEM;
		}
		f->text_len = (size_t)snprintf(f->text, f->text_cap, "%lld %s%.*s%s",
					       (long long)rec->values[0].v.i, q, (int)n, c, q);
		*text = f->text;
		*len = f->text_len;
		return PICL_OK;
	}
	if (!rec->desc || rec->nvalues == 0)
		return PICL_OK;
	rc = picl_descriptor_encode(rec->desc, rec->values, rec->nvalues, &f->text,
				    &f->text_len, &f->text_cap, NULL);
	if (rc == PICL_ERR_NOMEM) {
		picltrace_error("filter", "out of memory");
		return rc;
	}
	if (rc == PICL_OK && f->text_len > 0) {
		*text = f->text + 1;
		*len = f->text_len - 1;
	}
	return PICL_OK;
}

/* Does the record's text match a pattern? 1, 0, or < 0 (reported). */
static int grep_record(struct filter *f, struct picl_reader *r, struct picl_record *rec,
		       int *decoded)
{
	const char *text;
	size_t len, i;
	int rc;

	if (rec->type == PICL_REC_LABEL || rec->type == PICL_REC_MESSAGE) {
		if (!*decoded) {
			if ((rc = picl_reader_decode(r, rec)) < 0) {
				picltrace_report("filter", picl_reader_error(r));
				return rc;
			}
			*decoded = 1;
		}
		if (rec->nvalues == 1 && rec->values[0].kind == PICL_VAL_CHARS) {
			text = rec->values[0].v.s.ptr;
			len = rec->values[0].v.s.len;
		} else if ((rc = data_text(f, r, rec, decoded, &text, &len)) < 0) {
			return rc;
		}
	} else if (f->grep_data) {
		if ((rc = data_text(f, r, rec, decoded, &text, &len)) < 0)
			return rc;
	} else {
		return 0;
	}
	for (i = 0; i < f->npats; i++) {
		int m = pcre2_match(f->pats[i], (PCRE2_SPTR)text, len, 0, 0, f->md, NULL);

		if (m >= 0)
			return 1;
		if (m != PCRE2_ERROR_NOMATCH) {
			PCRE2_UCHAR msg[160];
			struct picl_error e = { 0 };

			pcre2_get_error_message(m, msg, sizeof(msg));
			e.code = PICL_ERR_DATA;
			e.path = picl_reader_path(r);
			e.mark = rec->mark;
			snprintf(e.problem, sizeof(e.problem), "pattern matching failed: %s",
				 (const char *)msg);
			picltrace_report("filter", &e);
			return PICL_ERR_DATA;
		}
	}
	return 0;
}

/*
 * Is the record selected (kept before --pairs)? 1, 0, or < 0 (reported).
 * *decoded is set when the record's data were decoded on the way.
 */
static int select_record(struct filter *f, struct picl_reader *r, struct picl_record *rec,
			 int *decoded)
{
	int32_t t = rec->type;
	int m = 0;

	*decoded = 0;
	if (t == PICL_REC_DESCRIPTOR)
		note_literal_alias(f, r, rec, decoded);
	if (header_part(t)) {
		if (t != PICL_REC_DESCRIPTOR && picl_is_definition_type(t))
			f->gen++;
		if (f->keep_defs)
			return 1;
	}
	if (f->sel[SEL_PROCESSOR].n && !sel_match(f, SEL_PROCESSOR, rec->processor, rec->processor))
		goto done;
	if (f->sel[SEL_PROCESS].n && !sel_match(f, SEL_PROCESS, rec->processor, rec->process))
		goto done;
	if (f->sel[SEL_EVENT].n && !sel_match(f, SEL_EVENT, rec->processor, rec->event))
		goto done;
	if (f->sel[SEL_TYPE].n && !sel_match(f, SEL_TYPE, rec->processor, t))
		goto done;
	if (f->has_from && picl_time_cmp(rec->time, f->from) < 0)
		goto done;
	if (f->has_to && picl_time_cmp(rec->time, f->to) >= 0)
		goto done;
	if (f->npats) {
		m = grep_record(f, r, rec, decoded);
		if (m < 0)
			return m;
	} else {
		m = 1;
	}
done:
	return m ^ f->invert;
}

/* ------------------------------------------------------------------------ */
/* Writing: copy canonical lines, rewrite the others                         */
/* ------------------------------------------------------------------------ */

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * Scanners for canonical tokens: each reads a token at p that must end at
 * a space or at e, and returns its end, or NULL if the token is not written
 * the way picl_writer_write would write it. Plain loops: the tokens are a
 * few bytes long, shorter than a call to memchr costs.
 */

/* An integer: 0 or -?[1-9][0-9]*. */
static const char *scan_int(const char *p, const char *e)
{
	if (p < e && *p == '-') {
		p++;
		if (p < e && *p == '0')
			return NULL;
	}
	if (p == e || !is_digit(*p))
		return NULL;
	if (*p == '0')
		p++;
	else
		while (p < e && is_digit(*p))
			p++;
	return p == e || *p == ' ' ? p : NULL;
}

/* The time t as picl_time_format writes it: its own `scale` decimals, no
 * exponent, no "+", no "-0". */
static const char *scan_time(const char *p, const char *e, const struct picl_time *t)
{
	const char *d;

	if (p < e && *p == '-') {
		if (t->mant == 0)
			return NULL;
		p++;
	}
	if (p == e || !is_digit(*p))
		return NULL;
	if (*p == '0')
		p++;
	else
		while (p < e && is_digit(*p))
			p++;
	if (p == e || *p == ' ')
		return t->scale == 0 ? p : NULL;
	if (*p != '.')
		return NULL;
	d = ++p;
	while (p < e && is_digit(*p))
		p++;
	if (p == d || p - d != t->scale)
		return NULL;
	return p == e || *p == ' ' ? p : NULL;
}

/* [p, e) is words separated by single spaces: no other blank, no blank at
 * either end, not empty. */
static int single_spaced(const char *p, const char *e)
{
	int prev_blank = 1;

	for (; p < e; p++) {
		char c = *p;

		if (c == ' ') {
			if (prev_blank)
				return 0;
			prev_blank = 1;
		} else if (c == '\t' || c == '\r' || c == '\v' || c == '\f') {
			return 0;
		} else {
			prev_blank = 0;
		}
	}
	return !prev_blank;
}

/* 1 if the record's descriptor (as resolved where it stands) is "%c". */
static int is_chars(const struct filter *f, const struct picl_record *rec)
{
	const struct picl_descriptor *d;

	if (rec->alias < 0)
		return rec->control_len == 2 && memcmp(rec->control, "%c", 2) == 0;
	d = picl_defs_lookup_alias(f->defs, rec->alias, rec->event, rec->processor,
				   rec->process);
	return d && picl_descriptor_is_chars(d);
}

/*
 * 1 if rec->line is exactly what picl_writer_write would write for it, so it
 * can be copied: canonical fixed fields and descriptor separated by single
 * spaces, and data that are single-spaced words (of a control string
 * without literal text) or character data of the declared length.
 */
static int line_is_canonical(struct filter *f, const struct picl_record *rec)
{
	const char *p = rec->line, *e = p + rec->line_len;
	int i;

	for (i = 0; i < 6; i++) {
		p = i == 2 ? scan_time(p, e, &rec->time) : scan_int(p, e);
		if (!p)
			return 0;
		if (i < 5) {
			if (p == e)
				return 0;
			p++;
		}
	}
	if (rec->nfields == 0)
		return p == e;
	if (p == e || ++p == e)
		return 0;
	if (rec->alias >= 0) {
		p = scan_int(p, e);
		if (!p)
			return 0;
	} else {
		if (p + 1 != rec->control)
			return 0;
		p = rec->control + rec->control_len + 1;
	}
	if (p != rec->data || rec->data_len < 2 || rec->data[0] != ' ')
		return 0;
	/* (the writer puts a blank after such data) */
	if (picl_data_needs_pad(rec->data + 1, rec->data_len - 1))
		return 0;
	if (single_spaced(rec->data + 1, e))
		return !has_literals(f, rec);
	/* Blanks of character data are its own. */
	return rec->data_len - 1 == rec->nfields && rec->type != PICL_REC_DESCRIPTOR &&
	       is_chars(f, rec);
}

/* Decode a record's data; PICL_OK or < 0 (reported). */
static int decode(struct picl_reader *r, struct picl_record *rec)
{
	int rc = picl_reader_decode(r, rec);

	if (rc < 0)
		picltrace_report("filter", picl_reader_error(r));
	return rc;
}

/*
 * An event record about to be kept whose processor a -307 record written
 * before left out: a processor subset -p names was redefined since (after
 * the header) and now selects it, so the output's header would not list
 * a processor the output has (validate: header-processors). The header is
 * written; refused, with where. PICL_OK, or PICL_ERR_DATA (reported).
 */
static int left_out(const struct filter *f, struct picl_reader *r, const struct picl_record *rec)
{
	struct picl_error e = { 0 };

	if (!f->nleft || header_part(rec->type) ||
	    !bsearch(&rec->processor, f->left, f->nleft, sizeof(*f->left), picltrace_cmp_i32))
		return PICL_OK;
	e.code = PICL_ERR_DATA;
	e.path = picl_reader_path(r);
	e.mark = rec->mark;
	snprintf(e.problem, sizeof(e.problem),
		 "a record of processor %ld would be kept, which the -307 header record "
		 "written left out: a processor subset that -p names was redefined after "
		 "the header; give -p its processors by number",
		 (long)rec->processor);
	picltrace_report("filter", &e);
	return PICL_ERR_DATA;
}

/*
 * A -307 header record (the processors of the trace, which validate and
 * stat take as those a broadcast must reach) kept while processors are
 * selected: only the ids selected (with -v: not selected) stay, and with
 * none the record goes, so the header names the processors the output
 * has. *rec is then the record to write (0), or there is none (1), or it
 * is to be written as it stands (2: its descriptor is not one id a
 * field); < 0 (reported).
 */
static int select_ids(struct filter *f, struct picl_reader *r, struct picl_record *rec,
		      int decoded)
{
	size_t i, k = 0;
	int rc;

	if (!decoded && rec->nfields > 0 && (rc = decode(r, rec)) < 0)
		return rc;
	if (!rec->desc || picl_descriptor_values_per_field(rec->desc) != 1)
		return 2;
	/* A subset -p names that is not defined yet (the trace defines it
	 * after its header) may take in any processor later: which ones is not
	 * known, so all stay listed rather than leave out processors whose
	 * records are kept. */
	for (i = 0; i < f->sel[SEL_PROCESSOR].n; i++) {
		const struct item *it = &f->sel[SEL_PROCESSOR].items[i];

		if (it->maybe_subset &&
		    !picl_defs_subset_exists(f->defs, sel_subset_kind[SEL_PROCESSOR], it->lo))
			return 2;
	}
	if (grow((void **)&f->ids, &f->ids_cap, rec->nvalues, sizeof(*f->ids)) < 0) {
		picltrace_error("filter", "out of memory");
		return PICL_ERR_NOMEM;
	}
	if (grow((void **)&f->left, &f->left_cap, f->nleft + rec->nvalues, sizeof(*f->left)) < 0) {
		picltrace_error("filter", "out of memory");
		return PICL_ERR_NOMEM;
	}
	for (i = 0; i < rec->nvalues; i++) {
		const struct picl_value *v = &rec->values[i];

		if (v->kind == PICL_VAL_INT && v->v.i >= INT32_MIN && v->v.i <= INT32_MAX &&
		    sel_match(f, SEL_PROCESSOR, (int32_t)v->v.i, (int32_t)v->v.i) == f->invert) {
			f->left[f->nleft++] = (int32_t)v->v.i;
			continue;
		}
		f->ids[k++] = *v;
	}
	qsort(f->left, f->nleft, sizeof(*f->left), picltrace_cmp_i32);
	if (k == 0)
		return 1;
	rec->values = f->ids;
	rec->nvalues = rec->nfields = k;
	return 0;
}

/* Whether the processors of the output are known from the selection: -p
 * given, and with -v nothing else (else every processor may keep some). */
static int selects_processors(const struct filter *f)
{
	int k;

	if (!f->sel[SEL_PROCESSOR].n)
		return 0;
	if (!f->invert)
		return 1;
	for (k = 0; k < SEL_NKINDS; k++)
		if (k != SEL_PROCESSOR && f->sel[k].n)
			return 0;
	return !f->has_from && !f->has_to && !f->npats;
}

static void held_free(struct filter *f)
{
	size_t i;

	for (i = 0; i < f->nheld; i++) {
		free(f->held[i].values);
		free(f->held[i].control);
	}
	f->nheld = 0;
	if (f->out) {
		picl_writer_abort(f->w);
		f->w = f->out;
		f->out = NULL;
	}
	if (f->side_fd >= 0) {
		close(f->side_fd);
		f->side_fd = -1;
	}
}

/* From the first -307 held, the records after it go to a temporary file,
 * so that write_held puts each -307 back in its place. */
static int hold_start(struct filter *f)
{
	struct picl_error err = { 0 };
	struct picl_writer *side;
	int rc;

	if (f->out)
		return PICL_OK;
	if ((f->side_fd = picltrace_tempfile("filter", NULL)) < 0)
		return PICL_ERR_IO;
	side = picl_writer_open_fd(f->side_fd, "held header", NULL, &rc, &err);
	if (!side) {
		picltrace_report("filter", &err);
		close(f->side_fd);
		f->side_fd = -1;
		return rc;
	}
	f->out = f->w;
	f->w = side;
	return PICL_OK;
}

/*
 * A -307 record of the header, kept while processors are selected: the
 * processor subsets -p names may be defined after it, among the header's
 * definitions (merge writes -307 first), so it is held back and written,
 * its ids selected, once the header is over (write_held). 1 if held, 0 if
 * it is to be written now (not only integers), < 0 (reported).
 */
static int hold_ids(struct filter *f, struct picl_reader *r, struct picl_record *rec,
		    int decoded)
{
	struct held *h;
	size_t i;
	int rc;

	if (!decoded && rec->nfields > 0 && (rc = decode(r, rec)) < 0)
		return rc;
	for (i = 0; i < rec->nvalues; i++)
		if (rec->values[i].kind != PICL_VAL_INT)
			return 0;
	if ((rc = hold_start(f)) < 0)
		return rc;
	if (grow((void **)&f->held, &f->held_cap, f->nheld + 1, sizeof(*f->held)) < 0)
		goto nomem;
	h = &f->held[f->nheld];
	h->at = picl_writer_offset(f->w);
	h->rec = *rec;
	h->values = NULL;
	h->control = NULL;
	if (rec->nvalues > 0 &&
	    !(h->values = calloc(rec->nvalues, sizeof(*h->values))))
		goto nomem;
	for (i = 0; i < rec->nvalues; i++) {
		h->values[i].kind = PICL_VAL_INT;
		h->values[i].v.i = rec->values[i].v.i;
	}
	if (rec->control) {
		if (!(h->control = malloc(rec->control_len + 1))) {
			free(h->values);
			goto nomem;
		}
		memcpy(h->control, rec->control, rec->control_len);
		h->control[rec->control_len] = '\0';
	}
	h->rec.values = h->values;
	h->rec.control = h->control;
	h->rec.desc = NULL;
	h->rec.line = NULL;
	h->rec.line_len = 0;
	h->rec.data = NULL;
	h->rec.data_len = 0;
	f->nheld++;
	return 1;
nomem:
	picltrace_error("filter", "out of memory");
	return PICL_ERR_NOMEM;
}

static void write_failed(struct filter *f, struct picl_reader *r, const struct picl_record *rec);

/* Copy bytes [*pos, end) of the temporary file to the output. */
static int copy_side(struct filter *f, uint64_t *pos, uint64_t end)
{
	char buf[65536];
	int rc;

	while (*pos < end) {
		size_t want = end - *pos < sizeof(buf) ? (size_t)(end - *pos) : sizeof(buf);
		ssize_t got = pread(f->side_fd, buf, want, (off_t)*pos);

		if (got <= 0) {
			picltrace_error("filter", "cannot read back the header held in a temporary file: %s",
					got < 0 ? strerror(errno) : "it is shorter than written");
			return PICL_ERR_IO;
		}
		if ((rc = picl_writer_write_raw(f->w, buf, (size_t)got)) < 0) {
			picltrace_report("filter", picl_writer_error(f->w));
			return rc;
		}
		*pos += (uint64_t)got;
	}
	return PICL_OK;
}

/* The header is over: the held -307 records, their ids selected with the
 * subsets as the header defined them, each in its place among the records
 * that came after it. PICL_OK or < 0 (reported). */
static int write_held(struct filter *f, struct picl_reader *r)
{
	struct picl_defs *defs = picl_reader_defs(r);
	struct picl_writer *side = f->w;
	struct picl_error err = { 0 };
	uint64_t pos = 0, end = picl_writer_offset(side);
	size_t i;
	int rc;

	f->w = f->out;
	f->out = NULL;
	if ((rc = picl_writer_close(side, &err)) < 0) {
		picltrace_report("filter", &err);
		held_free(f);
		return rc;
	}
	for (i = 0; i < f->nheld && rc == PICL_OK; i++) {
		struct picl_record *rec = &f->held[i].rec;

		if ((rc = copy_side(f, &pos, f->held[i].at)) < 0)
			break;

		if (rec->control) {
			if (picl_defs_control(defs, rec->control, rec->control_len, &rec->desc,
					      NULL) < 0)
				rec->desc = NULL;
		} else if (rec->has_descriptor)
			rec->desc = picl_defs_lookup_alias(defs, rec->alias, rec->event,
							   rec->processor, rec->process);
		if (rec->nfields > 0 && !rec->desc)
			continue;       /* the reader decoded it: cannot happen */
		rc = select_ids(f, r, rec, 1);
		if (rc == 1) {
			rc = PICL_OK;
			continue;
		}
		if (rc >= 0 && (rc = picl_writer_write(f->w, rec)) < 0)
			write_failed(f, r, rec);
	}
	if (rc == PICL_OK)
		rc = copy_side(f, &pos, end);
	held_free(f);
	return rc;
}

/* Report the writer's failure to write rec. */
static void write_failed(struct filter *f, struct picl_reader *r, const struct picl_record *rec)
{
	struct picl_error e = *picl_writer_error(f->w);

	if (e.code != PICL_ERR_IO && e.code != PICL_ERR_COMPRESS) {
		e.path = picl_reader_path(r);
		e.mark = rec->mark;
	}
	picltrace_report("filter", &e);
}

/* Write a kept record. PICL_OK or < 0 (reported). */
static int emit(struct filter *f, struct picl_reader *r, struct picl_record *rec, int decoded)
{
	int rc;

	if ((rc = left_out(f, r, rec)) < 0)
		return rc;
	if (rec->type == PICL_REC_HEADER_PROCESSORS && selects_processors(f) && f->in_header) {
		if ((rc = hold_ids(f, r, rec, decoded)) != 0)
			return rc < 0 ? rc : PICL_OK;
		decoded = 1;    /* hold_ids decoded it */
	}
	if (rec->type == PICL_REC_HEADER_PROCESSORS && selects_processors(f) &&
	    (rc = select_ids(f, r, rec, decoded)) != 2) {
		if (rc != 0)
			return rc < 0 ? rc : PICL_OK;
		rc = picl_writer_write(f->w, rec);
	} else if (line_is_canonical(f, rec)) {
		rc = picl_writer_write_raw(f->w, rec->line, rec->line_len);
		if (rc == PICL_OK)
			rc = picl_writer_write_raw(f->w, "\n", 1);
	} else {
		if (!decoded && rec->nfields > 0 && !picl_is_definition_type(rec->type) &&
		    (rc = decode(r, rec)) < 0)
			return rc;
		rc = picl_writer_write(f->w, rec);
	}
	if (rc < 0)
		write_failed(f, r, rec);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* One pass over one input                                                   */
/* ------------------------------------------------------------------------ */

/*
 * The entry/exit bookkeeping of --pairs: a bitmap of the records to keep
 * (bit = record's ordinal over all inputs) and a stack of open entries per
 * (processor, process), found through an open-addressing hash, with its
 * entries indexed by event type (openindex.h): an exit below the top, or
 * of no open entry, finds its entry (or none) without a scan of the stack.
 */
struct open_entry {
	int32_t event;
	int selected;
	uint64_t ord;
};

struct entry_stack {
	int32_t processor, process;
	struct open_entry *v;
	size_t n, cap;
	struct openindex by_event;      /* v by event type */
};

/* The bitmap in pages of PAGE_RECORDS records, made when one of their
 * records is marked: a filter that keeps few records of a long trace
 * costs a pointer per page, not a bit per record. Once pass 1 is two
 * pages further on, a page goes to a temporary file (where pass 2 reads
 * it back), and a mark of one of its records that comes later (an entry
 * whose exit is kept, far ahead) goes to the list `late`: memory is two
 * pages, the pages' offsets, and the late marks, whatever the length. */
#define PAGE_RECORDS ((uint64_t)1 << 19)
#define PAGE_WORDS (PAGE_RECORDS / 64)
#define PAGE_BYTES (PAGE_WORDS * sizeof(uint64_t))
#define NOT_WRITTEN UINT64_MAX

struct pairs {
	uint64_t **pages;           /* NULL: no record of that page marked */
	uint64_t *where;            /* offset in fd of each page moved out */
	size_t npages;              /* (NOT_WRITTEN: it had no mark) */
	size_t nout;                /* pages [0, nout) are moved out */
	int fd;                     /* -1 until a page moves out */
	uint64_t end;               /* bytes written to fd */
	uint64_t *late;             /* marks in pages moved out, sorted */
	size_t nlate, late_cap, next_late;  /* after pass 1 */
	uint64_t *page;             /* pass 2: the page read back, */
	size_t page_no;             /* its number + 1 (0: none yet) */
	struct entry_stack *stacks;
	size_t nstacks, stacks_cap;
	uint32_t *slots;            /* stack index + 1; 0: empty */
	size_t nslots;              /* a power of two */
	size_t last;                /* index + 1 of the stack used last */
};

static void pairs_free(struct pairs *p)
{
	size_t i;

	for (i = 0; i < p->nstacks; i++) {
		free(p->stacks[i].v);
		openindex_free(&p->stacks[i].by_event);
	}
	free(p->stacks);
	free(p->slots);
	for (i = 0; i < p->npages; i++)
		free(p->pages[i]);
	free(p->pages);
	free(p->where);
	free(p->late);
	free(p->page);
	if (p->fd >= 0)
		close(p->fd);
}

/* Room in the tables for page `at`. 0, or -1 when out of memory. */
static int pages_room(struct pairs *p, size_t at)
{
	size_t ncap;
	uint64_t **t;
	uint64_t *w;

	if (at < p->npages)
		return 0;
	ncap = p->npages ? p->npages : 64;
	while (ncap <= at)
		ncap *= 2;
	if (!(t = realloc(p->pages, ncap * sizeof(*t))))
		return -1;
	p->pages = t;
	if (!(w = realloc(p->where, ncap * sizeof(*w))))
		return -1;
	p->where = w;
	memset(t + p->npages, 0, (ncap - p->npages) * sizeof(*t));
	memset(w + p->npages, 0xff, (ncap - p->npages) * sizeof(*w));
	p->npages = ncap;
	return 0;
}

/* Set record ord's bit in its page. */
static void page_mark(uint64_t *page, uint64_t ord)
{
	page[ord % PAGE_RECORDS / 64] |= (uint64_t)1 << (ord % 64);
}

/* Mark record ord, making its page (and room for it in the tables), or
 * listing it if its page has moved out. 0, or -1 when out of memory. */
static int bit_set(struct pairs *p, uint64_t ord)
{
	size_t at = (size_t)(ord / PAGE_RECORDS);
	uint64_t **page;

	if (at < p->nout) {
		if (p->nlate == p->late_cap) {
			size_t nc = p->late_cap ? 2 * p->late_cap : 256;
			uint64_t *v = realloc(p->late, nc * sizeof(*v));

			if (!v)
				return -1;
			p->late = v;
			p->late_cap = nc;
		}
		p->late[p->nlate++] = ord;
		return 0;
	}
	if (pages_room(p, at) < 0)
		return -1;
	page = &p->pages[at];
	if (!*page && !(*page = calloc(PAGE_WORDS, sizeof(**page))))
		return -1;
	page_mark(*page, ord);
	return 0;
}

/* Write (or read back) a page at byte off of the temporary file. 0, or
 * -1 (reported). */
static int page_io(int fd, uint64_t *page, uint64_t off, int writing)
{
	return picltrace_file_io("filter", fd, page, PAGE_BYTES, off, writing);
}

/* Pass 1 has reached record ord: the pages two behind it and older move
 * out. PICL_OK, PICL_ERR_NOMEM (not reported), or < 0 (reported). */
static int pages_out(struct pairs *p, uint64_t ord)
{
	size_t at = (size_t)(ord / PAGE_RECORDS);

	while (p->nout + 2 <= at) {
		size_t k = p->nout;

		if (pages_room(p, k) < 0)
			return PICL_ERR_NOMEM;   /* the caller says so */
		if (p->pages[k]) {
			if (p->fd < 0 && (p->fd = picltrace_tempfile("filter", NULL)) < 0)
				return PICL_ERR_IO;
			if (page_io(p->fd, p->pages[k], p->end, 1) < 0)
				return PICL_ERR_IO;
			p->where[k] = p->end;
			p->end += PAGE_BYTES;
			free(p->pages[k]);
			p->pages[k] = NULL;
		}
		p->nout++;
	}
	return PICL_OK;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Pass 2: is record ord marked? 1, 0, or < 0 (reported). Records come in
 * order, so a page moved out is read back once, with its late marks. */
static int bit_test(struct pairs *p, uint64_t ord)
{
	size_t at = (size_t)(ord / PAGE_RECORDS);
	const uint64_t *page;

	if (at < p->nout) {
		if (p->page_no != at + 1) {
			if (!p->page && !(p->page = malloc(PAGE_BYTES))) {
				picltrace_error("filter", "out of memory");
				return PICL_ERR_NOMEM;
			}
			if (p->where[at] == NOT_WRITTEN) {
				memset(p->page, 0, PAGE_BYTES);
			} else if (page_io(p->fd, p->page, p->where[at], 0) < 0) {
				return PICL_ERR_IO;
			}
			while (p->next_late < p->nlate &&
			       p->late[p->next_late] / PAGE_RECORDS <= at) {
				uint64_t l = p->late[p->next_late++];

				if (l / PAGE_RECORDS == at)
					page_mark(p->page, l);
			}
			p->page_no = at + 1;
		}
		page = p->page;
	} else {
		page = at < p->npages ? p->pages[at] : NULL;
	}
	return page && (page[ord % PAGE_RECORDS / 64] >> (ord % 64)) & 1;
}

static size_t slot_of(int32_t processor, int32_t process, size_t nslots)
{
	uint64_t k = ((uint64_t)(uint32_t)processor << 32) | (uint32_t)process;

	return (size_t)((k * 0x9E3779B97F4A7C15ULL) >> 32) & (nslots - 1);
}

/* The stack of (processor, process); created when `create`. NULL if there
 * is none (or out of memory when creating: *nomem is set). */
static struct entry_stack *stack_of(struct pairs *p, int32_t processor, int32_t process,
				    int create, int *nomem)
{
	struct entry_stack *s;
	size_t i;

	if (p->last) {
		s = &p->stacks[p->last - 1];
		if (s->processor == processor && s->process == process)
			return s;
	}
	if (p->nslots) {
		for (i = slot_of(processor, process, p->nslots); p->slots[i];
		     i = (i + 1) & (p->nslots - 1)) {
			s = &p->stacks[p->slots[i] - 1];
			if (s->processor == processor && s->process == process) {
				p->last = p->slots[i];
				return s;
			}
		}
	}
	if (!create)
		return NULL;
	if (p->nstacks >= UINT32_MAX - 1)
		goto nomem;
	if (2 * (p->nstacks + 1) > p->nslots) {
		size_t nn = p->nslots ? 2 * p->nslots : 64, j;
		uint32_t *ns = calloc(nn, sizeof(*ns));

		if (!ns)
			goto nomem;
		for (j = 0; j < p->nstacks; j++) {
			i = slot_of(p->stacks[j].processor, p->stacks[j].process, nn);
			while (ns[i])
				i = (i + 1) & (nn - 1);
			ns[i] = (uint32_t)(j + 1);
		}
		free(p->slots);
		p->slots = ns;
		p->nslots = nn;
	}
	if (p->nstacks == p->stacks_cap) {
		size_t nc = p->stacks_cap ? 2 * p->stacks_cap : 32;
		struct entry_stack *v = realloc(p->stacks, nc * sizeof(*v));

		if (!v)
			goto nomem;
		p->stacks = v;
		p->stacks_cap = nc;
	}
	s = &p->stacks[p->nstacks];
	memset(s, 0, sizeof(*s));
	s->processor = processor;
	s->process = process;
	for (i = slot_of(processor, process, p->nslots); p->slots[i]; i = (i + 1) & (p->nslots - 1))
		;
	p->slots[i] = (uint32_t)(++p->nstacks);
	p->last = p->nstacks;
	return s;
nomem:
	*nomem = 1;
	return NULL;
}

/* Take in one record of pass 1. 0, -1 when out of memory, or another
 * error < 0 (reported). */
static int pairs_add(struct pairs *p, const struct picl_record *rec, uint64_t ord,
		     int selected)
{
	struct entry_stack *s;
	int nomem = 0, rc;
	size_t i;

	if (ord % PAGE_RECORDS == 0 && (rc = pages_out(p, ord)) < 0)
		return rc;   /* (PICL_ERR_NOMEM is -1) */
	if (selected && bit_set(p, ord) < 0)
		return -1;
	if (rec->type == PICL_REC_ENTRY) {
		s = stack_of(p, rec->processor, rec->process, 1, &nomem);
		if (!s)
			return -1;
		if (s->n == s->cap) {
			size_t nc = s->cap ? 2 * s->cap : 16;
			struct open_entry *v = realloc(s->v, nc * sizeof(*v));

			if (!v)
				return -1;
			s->v = v;
			s->cap = nc;
		}
		s->v[s->n].event = rec->event;
		s->v[s->n].selected = selected;
		s->v[s->n].ord = ord;
		s->n++;
	} else if (rec->type == PICL_REC_EXIT) {
		s = stack_of(p, rec->processor, rec->process, 0, &nomem);
		if (!s)
			return 0;
		/* The innermost open entry of the same event; entries above
		 * it that were never exited stay open. */
		i = openindex_find(&s->by_event, s->v, sizeof(*s->v),
				   offsetof(struct open_entry, event), s->n, rec->event);
		if (i == OPENINDEX_NOMEM)
			return -1;
		if (i == 0)
			return 0;
		if ((selected || s->v[i - 1].selected) &&
		    (bit_set(p, ord) < 0 || bit_set(p, s->v[i - 1].ord) < 0))
			return -1;
		s->n = openindex_pop(&s->by_event, s->v, sizeof(*s->v), s->n, i, rec->event);
	}
	return 0;
}

enum pass { PASS_ONLY, PASS_MARK, PASS_COPY };

/*
 * Read one input with reader r. PASS_ONLY selects and writes; PASS_MARK
 * selects and fills p; PASS_COPY writes the records p marked. *ord counts
 * records over all inputs. PICL_OK or < 0 (reported).
 */
static int run_input(struct filter *f, struct picl_reader *r, enum pass pass,
		     struct pairs *p, uint64_t *ord, const char *what, uint64_t total)
{
	struct picltrace_progress prog;
	struct picl_record rec;
	unsigned tick = 0;
	int rc, decoded;

	if (picltrace_carry_apply(&f->carry, "filter", r) < 0)
		return PICL_ERR_NOMEM;
	f->defs = picl_reader_defs(r);
	f->gen++;
	if (picl_reader_is_compressed(r))
		total = 0;
	picltrace_progress_init(&prog, what, total, f->quiet);
	f->in_header = 1;
	while ((rc = picl_reader_next(r, &rec)) == PICL_OK) {
		if (f->in_header && !header_part(rec.type)) {
			f->in_header = 0;
			if (f->nheld && (rc = write_held(f, r)) < 0)
				goto out;
		}
		if (picltrace_carry_note(&f->carry, &rec) < 0) {
			picltrace_error("filter", "out of memory");
			rc = PICL_ERR_NOMEM;
			goto out;
		}
		if (pass == PASS_COPY) {
			if ((rc = bit_test(p, *ord)) < 0 ||
			    (rc && (rc = emit(f, r, &rec, 0)) < 0))
				goto out;
		} else {
			rc = select_record(f, r, &rec, &decoded);
			if (rc < 0)
				goto out;
			if (pass == PASS_MARK) {
				if ((rc = pairs_add(p, &rec, *ord, rc)) < 0) {
					if (rc == -1) {
						picltrace_error("filter", "out of memory");
						rc = PICL_ERR_NOMEM;
					}
					goto out;
				}
			} else if (rc && (rc = emit(f, r, &rec, decoded)) < 0) {
				goto out;
			}
		}
		++*ord;
		if ((++tick & 0xfff) == 0)
			picltrace_progress(&prog, picl_reader_offset(r));
	}
	picltrace_progress_done(&prog);
	if (rc == PICL_END)
		return f->nheld ? write_held(f, r) : PICL_OK;
	picltrace_report("filter", picl_reader_error(r));
	held_free(f);
	return rc;
out:
	picltrace_progress_done(&prog);
	held_free(f);
	return rc;
}

/* The size of a regular file (for progress), or 0. */
static uint64_t file_size(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
}

/* ------------------------------------------------------------------------ */
/* Inputs                                                                    */
/* ------------------------------------------------------------------------ */

static const struct picl_reader_options read_opts = { PICL_READ_RAW | PICL_READ_PARALLEL, 0, 0 };

/* One pass, streaming: select and write. */
static int filter_one(struct filter *f, const char *path, uint64_t *ord)
{
	struct picl_error err = { 0 };
	struct picl_reader *r;
	struct stat st;
	int rc;

	picltrace_stdin_hint("filter", path);
	r = picl_reader_open(path, &read_opts, &rc, &err);
	if (!r) {
		picltrace_report("filter", &err);
		return rc;
	}
	rc = run_input(f, r, PASS_ONLY, NULL, ord, "filter",
		       strcmp(path, "-") && stat(path, &st) == 0 && S_ISREG(st.st_mode)
		       ? (uint64_t)st.st_size : 0);
	picl_reader_free(r);
	return rc;
}

/* An input of --pairs: a descriptor that can be read from `start` twice;
 * a regular file is opened for each pass instead (fd -1 between them),
 * so that thousands of inputs do not hold a descriptor each. */
struct source {
	const char *name;
	int fd, own, reopen;
	off_t start;
};

/* Open an input so that it can be read twice. 0 or -1 (reported).
 * stdin_again: an earlier input was standard input too, which that one
 * reads to its end, so this one is empty (as when reading in one pass). */
static int source_open(struct source *s, const char *path, int stdin_again)
{
	struct stat st;

	memset(s, 0, sizeof(*s));
	if (strcmp(path, "-") == 0) {
		s->name = "<stdin>";
		s->fd = 0;
	} else {
		s->name = path;
		s->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (s->fd < 0) {
			picltrace_error("filter", "%s: cannot open: %s", path, strerror(errno));
			return -1;
		}
		s->own = 1;
	}
	if (fstat(s->fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (s->start = lseek(s->fd, 0, stdin_again ? SEEK_END : SEEK_CUR)) >= 0) {
		if (s->own) {
			close(s->fd);
			s->fd = -1;
			s->own = 0;
			s->reopen = 1;
		}
		return 0;
	}
	{
		int fd = picltrace_spool("filter", s->fd, s->name, NULL);

		if (s->own)
			close(s->fd);
		s->fd = fd;
		s->own = fd >= 0;
		s->start = 0;
	}
	return s->fd < 0 ? -1 : 0;
}

static int source_pass(struct filter *f, struct source *s, enum pass pass,
		       struct pairs *p, uint64_t *ord)
{
	struct picl_error err = { 0 };
	struct picl_reader *r;
	int rc;

	if (s->reopen && (s->fd = open(s->name, O_RDONLY | O_CLOEXEC)) < 0) {
		picltrace_error("filter", "%s: cannot open: %s", s->name, strerror(errno));
		return PICL_ERR_IO;
	}
	if (lseek(s->fd, s->start, SEEK_SET) < 0) {
		picltrace_error("filter", "%s: cannot rewind: %s", s->name, strerror(errno));
		rc = PICL_ERR_IO;
		goto out;
	}
	r = picl_reader_open_fd(s->fd, s->name, &read_opts, &rc, &err);
	if (!r) {
		picltrace_report("filter", &err);
		goto out;
	}
	rc = run_input(f, r, pass, p, ord,
		       pass == PASS_MARK ? "filter (pass 1 of 2)" : "filter (pass 2 of 2)",
		       file_size(s->fd));
	picl_reader_free(r);
out:
	if (s->reopen) {
		close(s->fd);
		s->fd = -1;
	}
	return rc;
}

/* --pairs: mark every input, then copy the marked records. */
static int filter_pairs(struct filter *f, const char **inputs, int n)
{
	struct source *src = calloc((size_t)n, sizeof(*src));
	struct pairs p;
	uint64_t ord;
	int i, opened = 0, stdin_seen = 0, rc = PICL_OK;

	memset(&p, 0, sizeof(p));
	p.fd = -1;
	if (!src) {
		picltrace_error("filter", "out of memory");
		return PICL_ERR_NOMEM;
	}
	for (; opened < n; opened++) {
		int is_stdin = strcmp(inputs[opened], "-") == 0;

		if (source_open(&src[opened], inputs[opened], is_stdin && stdin_seen) < 0) {
			rc = PICL_ERR_IO;
			goto done;
		}
		stdin_seen |= is_stdin;
	}
	ord = 0;
	for (i = 0; i < n && rc == PICL_OK; i++) {
		f->carry.more = i + 1 < n;
		rc = source_pass(f, &src[i], PASS_MARK, &p, &ord);
	}
	ord = 0;
	if (p.nlate > 1)
		qsort(p.late, p.nlate, sizeof(*p.late), cmp_u64);
	picltrace_carry_free(&f->carry);   /* the second pass reads them again */
	for (i = 0; i < n && rc == PICL_OK; i++) {
		f->carry.more = i + 1 < n;
		rc = source_pass(f, &src[i], PASS_COPY, &p, &ord);
	}
done:
	for (i = 0; i < opened; i++)
		if (src[i].own)
			close(src[i].fd);
	free(src);
	pairs_free(&p);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Options                                                                   */
/* ------------------------------------------------------------------------ */

static int parse_time_opt(const char *opt, const char *arg, struct picl_time *t)
{
	return picltrace_parse_time("filter", opt, arg,
				    "an exact decimal time such as 0.25, -1.5 or 1e-3", t);
}

static int add_pattern(struct filter *f, const char *re, int caseless)
{
	pcre2_code **v, *code;
	PCRE2_SIZE off;
	int err;

	code = pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED,
			     caseless ? PCRE2_CASELESS : 0, &err, &off, NULL);
	if (!code) {
		PCRE2_UCHAR msg[256];

		pcre2_get_error_message(err, msg, sizeof(msg));
		picltrace_error("filter", "--grep: bad pattern '%s' at offset %zu: %s", re,
				(size_t)off, (const char *)msg);
		return -1;
	}
	pcre2_jit_compile(code, PCRE2_JIT_COMPLETE); /* used if it works */
	v = realloc(f->pats, (f->npats + 1) * sizeof(*v));
	if (!v) {
		pcre2_code_free(code);
		picltrace_error("filter", "out of memory");
		return -1;
	}
	f->pats = v;
	f->pats[f->npats++] = code;
	return 0;
}

static void filter_release(struct filter *f)
{
	size_t i;

	for (i = 0; i < SEL_NKINDS; i++)
		free(f->sel[i].items);
	for (i = 0; i < f->npats; i++)
		pcre2_code_free(f->pats[i]);
	free(f->pats);
	free(f->ids);
	free(f->left);
	held_free(f);
	free(f->held);
	pcre2_match_data_free(f->md);
	free(f->text);
	free(f->lit_control);
	picltrace_carry_free(&f->carry);
}

enum {
	OPT_FROM = 256, OPT_TO, OPT_GREP_DATA, OPT_PAIRS, OPT_KEEP_DEFS, OPT_NO_DEFS,
	OPT_LEVEL, OPT_IN_PLACE
};

/* --in-place: 1 if the file is zstd-compressed (it stays so), 0 if not,
 * -1 (reported) if it cannot be opened. */
static int input_compressed(const char *path)
{
	static const struct picl_reader_options ro = { PICL_READ_RAW, 0, 0 };
	struct picl_error err = { 0 };
	struct picl_reader *r;
	int rc;

	r = picl_reader_open(path, &ro, &rc, &err);
	if (!r) {
		picltrace_report("filter", &err);
		return -1;
	}
	rc = picl_reader_is_compressed(r);
	picl_reader_free(r);
	return rc;
}

int cmd_filter(int argc, const char **argv)
{
	static const struct option longopts[] = {
		{ "processor", required_argument, NULL, 'p' },
		{ "process", required_argument, NULL, 'P' },
		{ "event", required_argument, NULL, 'e' },
		{ "type", required_argument, NULL, 't' },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		{ "grep", required_argument, NULL, 'g' },
		{ "ignore-case", no_argument, NULL, 'i' },
		{ "grep-data", no_argument, NULL, OPT_GREP_DATA },
		{ "invert", no_argument, NULL, 'v' },
		{ "pairs", no_argument, NULL, OPT_PAIRS },
		{ "keep-defs", no_argument, NULL, OPT_KEEP_DEFS },
		{ "no-defs", no_argument, NULL, OPT_NO_DEFS },
		{ "output", required_argument, NULL, 'o' },
		{ "in-place", no_argument, NULL, OPT_IN_PLACE },
		{ "zstd", no_argument, NULL, 'z' },
		{ "level", required_argument, NULL, OPT_LEVEL },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct filter f;
	enum sel_kind kind;
	struct picl_error err = { 0 };
	const char *output = "-";
	const char *stdin_only[] = { "-" };
	const char **inputs;
	const char **regexes = NULL;
	const char *from_arg = "", *to_arg = "";
	size_t nregexes = 0;
	int ninputs, c, i, caseless = 0, pairs = 0, compress = 0, level = 0;
	int in_place = 0, output_given = 0;
	int status = 2, rc = PICL_OK;
	uint64_t ord = 0;

	memset(&f, 0, sizeof(f));
	f.keep_defs = 1;
	f.side_fd = -1;
	f.gen = 1;
	regexes = calloc((size_t)argc, sizeof(*regexes));
	if (!regexes) {
		picltrace_error("filter", "out of memory");
		return 2;
	}
	optind = 1;
	while ((c = getopt_long(argc, (char *const *)argv, "p:P:e:t:g:ivo:zqh",
				longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
		case 'P':
		case 'e':
		case 't':
			kind = (enum sel_kind)(strchr(sel_short, c) - sel_short);
			if (parse_list(kind, optarg, &f.sel[kind]) < 0)
				goto out;
			break;
		case OPT_FROM:
			if (parse_time_opt("--from", optarg, &f.from) < 0)
				goto out;
			f.has_from = 1;
			from_arg = optarg;
			break;
		case OPT_TO:
			if (parse_time_opt("--to", optarg, &f.to) < 0)
				goto out;
			f.has_to = 1;
			to_arg = optarg;
			break;
		case 'g':
			regexes[nregexes++] = optarg;
			break;
		case 'i':
			caseless = 1;
			break;
		case OPT_GREP_DATA:
			f.grep_data = 1;
			break;
		case 'v':
			f.invert = 1;
			break;
		case OPT_PAIRS:
			pairs = 1;
			break;
		case OPT_KEEP_DEFS:
			f.keep_defs = 1;
			break;
		case OPT_NO_DEFS:
			f.keep_defs = 0;
			break;
		case 'o':
			output = optarg;
			output_given = 1;
			break;
		case OPT_IN_PLACE:
			in_place = 1;
			break;
		case 'z':
			compress = 1;
			break;
		case OPT_LEVEL:
			if (picltrace_parse_level("filter", optarg, &level) < 0)
				goto out;
			break;
		case 'q':
			f.quiet = 1;
			break;
		case 'h':
			fputs(filter_usage, stdout);
			status = 0;
			goto out;
		default:
			picltrace_bad_usage(filter_usage);
			goto out;
		}
	}
	if (f.has_from && f.has_to && picl_time_cmp(f.from, f.to) >= 0) {
		picltrace_error("filter", "--from %s is not before --to %s: the window is empty",
				from_arg, to_arg);
		goto out;
	}
	if (f.grep_data && nregexes == 0) {
		picltrace_error("filter", "--grep-data needs a pattern (-g)");
		goto out;
	}
	/* Compile every pattern once, after all options (-i may come last). */
	for (i = 0; (size_t)i < nregexes; i++)
		if (add_pattern(&f, regexes[i], caseless) < 0)
			goto out;
	if (f.npats) {
		f.md = pcre2_match_data_create(1, NULL);
		if (!f.md) {
			picltrace_error("filter", "out of memory");
			goto out;
		}
	}
	inputs = optind < argc ? argv + optind : stdin_only;
	ninputs = optind < argc ? argc - optind : 1;
	if (picltrace_rewrite_output("filter", in_place, output_given, inputs, ninputs,
				     &output) < 0)
		goto out;
	if (in_place && !compress && (compress = input_compressed(output)) < 0)
		goto out;
	compress = picltrace_wants_zstd(output, compress, level);
	f.w = picltrace_open_output("filter", output, compress, level);
	if (!f.w)
		goto out;
	if (pairs)
		rc = filter_pairs(&f, inputs, ninputs);
	else
		for (i = 0; i < ninputs && rc == PICL_OK; i++) {
			f.carry.more = i + 1 < ninputs;
			rc = filter_one(&f, inputs[i], &ord);
		}
	if (rc < 0) {
		picl_writer_abort(f.w);
		goto out;
	}
	if (picl_writer_close(f.w, &err) < 0) {
		picltrace_report("filter", &err);
		goto out;
	}
	status = 0;
out:
	filter_release(&f);
	free(regexes);
	return status;
}
