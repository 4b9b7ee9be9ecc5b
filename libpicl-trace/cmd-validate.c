/*
 * cmd-validate.c - `picltrace validate`: check PICL traces against the
 * schema and the rules of the format, and report every violation.
 *
 * Each input is read once, as a stream, in raw mode: the reader hands out
 * the fixed fields of every record and applies the definition records
 * (-6, -201, -202, -203); the data are then decoded here with
 * picl_reader_decode, so a record whose data are wrong still counts for the
 * rules that need only its fixed fields (nesting, time order, ...). Most
 * records come decoded already by the parsing threads
 * (PICL_READ_DECODE_AHEAD), which keeps that work off the reading thread,
 * the busy one. Every
 * violation is printed as
 *
 *     FILE:LINE:COLUMN: RULE: explanation
 *
 * (warnings' explanations start with "warning: "), or as one JSON object
 * per file with --format=json, then a summary line. Findings that can only
 * be made at the end of a trace (entries never exited, messages never
 * received) are printed then, sorted by line; so are those of a matched
 * pair that waits for a ring's -914 until the end (release_held).
 *
 * The rules and their stable names (picltrace-validate(1) explains each):
 *
 *   syntax              the reader rejects the record's fixed fields
 *   descriptor-data     data do not fit their descriptor; a descriptor that
 *                       differs from the schema's for a known type (error);
 *                       more data fields than the schema lists (warning)
 *   alias-undefined     a descriptor alias with no -6 definition in scope
 *   subset-undefined    a process subset, or an event subset (<= -1001), not
 *                       defined at its use; a processor or event subset used
 *                       before the record that defines it; a send's
 *                       destination subset (a multicast) not defined
 *   unknown-record-type a record type < 0 the schema does not describe (W)
 *   unknown-event-type  an event type -1000..-2 the schema does not
 *                       describe and no subset defines (W)
 *   processor-range     a processor id < -1 that is no defined subset (W)
 *   entry-exit          an exit without entry, an exit closing an entry that
 *                       is not the innermost, an entry never exited (an
 *                       entry left open is named once)
 *   tracing-first-last  a process's first event record is not -3 -901, or
 *                       its last is not -4 -901 (ParaGraph needs both), or
 *                       a -3 -901 while its tracing is already on
 *   time-order          a timestamp earlier than the previous one of the
 *                       same process (-7 messages aside: PICL writes them
 *                       at once), or of any record with --sorted
 *   message-match       a send never received, a receive with no send, a
 *                       length that differs (warnings with --partial, and
 *                       where a trace buffer filled: -913, -914)
 *   tachyon             a message received before it was sent (a warning
 *                       where a trace buffer filled)
 *   statistics          a -101/-102/-103 pair that disagrees with the
 *                       statistics recomputed from the event records
 *   header-records      a header record (-399..-301) after the first record
 *                       that is neither one nor a definition, or later in
 *                       time than the earliest other record (W)
 *   header-processors   a processor the trace's -307 header records do not
 *                       list, when it has some (they say which processors
 *                       a broadcast must reach)
 *
 * Messages are matched by the library's matcher (picl_matcher, match.c):
 * FIFO per (source, destination, type) channel, in whatever order the file
 * has them (a receive may come before its send); every record is handed to
 * it once its own checks are done; a send to a processor subset (a
 * multicast) is matched once per member (picl_matcher_set_defs).
 *
 * Memory: per process, the open entries and a few counters; the matcher
 * holds the messages in flight, and broadcasts until the end of the trace
 * (a receiver may first appear late). Nothing is kept per record.
 */
#include "builtin.h"
#include "grow.h"
#include "intmap.h"
#include "openindex.h"
#include "pow10.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char validate_usage[] =
	"usage: picltrace validate [--sorted] [--partial] [--schema=FILE] [--max-errors=N]\n"
	"                          [--memory=SIZE] [--tmpdir=DIR] [--quiet]\n"
	"                          [--format=text|json] FILE...\n";

static const char validate_help[] =
	"\n"
	"  --sorted             also check that timestamps never decrease in file order\n"
	"  --partial            the trace is one processor's view: unmatched sends and\n"
	"                       receives are warnings, not errors\n"
	"  --schema=FILE        add the record and event types described in FILE\n"
	"  --max-errors=N       list at most N violations per file (default 1000,\n"
	"                       0: all); all are counted\n"
	"  --memory=SIZE        the most memory for messages waiting for their partner\n"
	"                       (e.g. 256M; default a quarter of the usable memory\n"
	"                       'picltrace --resources' shows),\n"
	"                       and a quarter more for violations found at the end;\n"
	"                       the rest wait in a temporary file\n"
	"  -T, --tmpdir=DIR     where that file goes (default $TMPDIR or /tmp)\n"
	"  -q, --quiet          print the summary lines only (no progress line)\n"
	"  --format=text|json   output format (default text)\n"
	"  -h, --help           show this help\n"
	"\n"
	"FILE - reads standard input; inputs may be plain text or zstd-compressed.\n"
	"Exit status: 0 valid (warnings allowed), 1 errors found, 2 an input or\n"
	"the schema cannot be read, the output cannot be written, or bad usage.\n";

#define CMD "validate"

/* Rule names: stable, listed in picltrace-validate(1). */
#define R_SYNTAX "syntax"
#define R_DESCRIPTOR "descriptor-data"
#define R_ALIAS "alias-undefined"
#define R_SUBSET "subset-undefined"
#define R_UNKNOWN_RECORD "unknown-record-type"
#define R_UNKNOWN_EVENT "unknown-event-type"
#define R_PROCESSOR "processor-range"
#define R_ENTRY_EXIT "entry-exit"
#define R_TRACING "tracing-first-last"
#define R_TIME "time-order"
#define R_MESSAGE "message-match"
#define R_TACHYON "tachyon"
#define R_STATISTICS "statistics"
#define R_HEADER_PROCESSORS "header-processors"
#define R_HEADER_RECORDS "header-records"

#define EV_TRACING (-901)
#define MAX_SUBSET_USES 65536   /* remembered "used before defined" ids */
#define MESSAGE_MAX 512

/* Fields of a record, counted from 0, for columns in messages. */
enum { F_TYPE, F_EVENT, F_TIME, F_PROCESSOR, F_PROCESS, F_NFIELDS, F_DESCRIPTOR };

enum severity { SEV_ERROR, SEV_WARNING };

struct options {
	int sorted, partial, quiet, json;
	uint64_t max_errors;    /* 0: unlimited */
	uint64_t memory;        /* --memory (0: the default) */
	const char *tmpdir;     /* --tmpdir (NULL: the default) */
};

/* ------------------------------------------------------------------------ */
/* State                                                                     */
/* ------------------------------------------------------------------------ */

/* An open entry of a process. */
struct frame {
	int32_t event;
	int named;              /* an improper nesting named it still open */
	uint64_t line, column;
};

/* Event types whose presence a process records in a bitmap, besides its
 * list: every type PICL defines (but the subsets) and the usual user
 * types. 256 bytes a process. The others are searched for in the sorted
 * part of the list, and new ones wait unsorted after it until as many
 * wait as are sorted (EVENTS_UNSORTED at least). */
#define EVENT_BITS_LO (-1024)
#define EVENT_BITS 2048
#define EVENTS_UNSORTED 64

/* One (processor, process): its timeline. */
struct proc {
	int32_t processor, process;
	struct frame *stack;
	size_t depth, stack_cap;
	struct openindex by_event;  /* the stack's entries by event type */
	int have_time;
	struct picl_time last_time;
	uint64_t last_line;
	int32_t max_scale;      /* finest timestamp scale of its event records */
	int seen_event;
	int noted;              /* its processor noted (note_processor) */
	int incomplete;         /* -913 or -914 seen: records were left out */
	uint64_t stop_line;     /* the first -913 (buffer full, tracing stopped) */
	uint64_t wrap_line;     /* the first -914 (a ring pushed records out) */
	struct picltrace_gaps gaps; /* where records are missing (-913, -914),
				       for the message findings */
	int64_t nprofiled;      /* n of its last -902 entry (traceevents), -1 */
	uint64_t event_records; /* read so far */
	struct stat_listed *listed;  /* the pairs of its statistics records
					relative to -1 and user events */
	size_t nlisted, listed_cap;
	int32_t last_type, last_event;
	uint64_t last_ev_line, last_ev_column;
	/* its last recv0 entry (-51, -52): the type it asked for (-2: none
	 * given), where; and the last such receive that never ended (its
	 * exit without data, as a process failing or killed in it writes),
	 * for the sends to it never received */
	int32_t recv_type, stuck_type;
	uint64_t recv_line, stuck_line;
	int32_t *events;        /* event types seen (statistics subsets): sorted
				   up to nsorted, then as they came (types out
				   of the bitmap possibly twice) */
	size_t nevents, nsorted, events_cap;
	uint64_t events_bits[EVENT_BITS / 64];  /* those in [EVENT_BITS_LO, +EVENT_BITS) */
};

/* A pair of a statistics record of one process: which statistic of which
 * event type relative to which, where, and how many event records of the
 * process came before it (a sample, if more follow). */
struct stat_listed {
	int32_t rel, type, event;
	uint64_t line, column, events_before;
};

/* A broadcast never received: the matcher reports it once per missing
 * receiver, one after the other, up to LOST_LISTED of them and then the
 * number of the others; they make one finding. */
#define LOST_LISTED 64
struct lost_broadcast {
	int open;
	struct picl_message msg;
	uint64_t missing;
	size_t listed, len;
	char list[256];         /* "2, 5, 7" */
	int lost;               /* every missing receiver may have lost its
				   receive (lost_receive): the first's */
	const struct proc *why;
};

/* A processor or event subset id used while it was not defined. */
struct use {
	uint64_t line, column;
	int done;
};

/* A finding kept until the end of the trace. */
struct finding {
	uint64_t line, column, related, seq;
	const char *rule;
	enum severity sev;
	char *message;
};

/* Deferred findings written out in line order: bytes [off, end) of the
 * validator's spill_fd. */
struct frun {
	uint64_t off, end;
};

/* A schema control string compiled once (keyed by the schema's pointer:
 * the schema's strings never move). */
struct compiled {
	const char *control;
	struct picl_descriptor *desc;
};

struct validator {
	const struct options *opt;
	struct picl_schema *schema;
	struct compiled *compiled;
	size_t ncompiled, compiled_cap;
	FILE *out;

	/* the input being validated */
	const char *name;
	const char *shown;      /* name in text output: control characters \xNN */
	char *shown_copy;       /* (when it has some) */
	struct picl_reader *reader;
	struct picltrace_progress *prog;  /* while reading: cleared before listing */
	struct picl_defs *defs;
	struct picl_stats *stats;
	uint64_t records, errors, warnings, listed, unmatched;
	int nomem;
	const char *failure;    /* with nomem: what failed, if not memory */

	struct proc **procs;    /* in order of first appearance */
	size_t nprocs, procs_cap;
	struct proc **members;  /* a summed statistics record's processes */
	size_t nmembers, members_cap;
	int32_t members_scale;
	struct intmap proc_of;  /* (processor, process) -> procs index */
	struct proc *last_proc; /* the common case: runs of one process */
	void **fast;            /* proc_table (intmap.h): sorted traces
				   interleave the processes */
	struct intmap processors; /* the processors seen (values unused) */
	struct use *uses;       /* subsets used before their definition */
	size_t nuses, uses_cap;
	struct intmap use_of;   /* (kind, id) -> uses index */
	int32_t a_processor;
	struct early {          /* processors first seen in the header, */
		int32_t processor;  /* checked at its end */
		uint64_t line, column;
	} *early;
	size_t nearly, early_cap;
	struct picl_matcher *matcher;
	struct lost_broadcast lost;
	struct picltrace_sends *sends;  /* the first send to each processor */
	/* matches whose finding waits for a -914 that may still come (held) */
	struct picltrace_queue held;    /* of struct picl_message */
	int gaps_changed;       /* by the record: held ones may be settled */

	int have_last;          /* --sorted */
	struct picl_time last_time;
	uint64_t last_line;

	int in_body;            /* a record past the header was read: */
	uint64_t body_line;     /* the body's first record */
	int have_header_time;   /* the latest header record's time, where */
	struct picl_time header_time;
	uint64_t header_time_line, header_time_column;
	int have_earliest;      /* the earliest other record's time, where */
	struct picl_time earliest;
	uint64_t earliest_line;

	int deferring;
	struct finding *deferred; /* a heap, the last in line order on top: */
	size_t ndeferred, deferred_cap;  /* those that will be listed */
	uint64_t deferred_seq;  /* findings deferred so far */
	size_t deferred_bytes;  /* what the heap holds, messages included */
	size_t deferred_budget; /* ... before it goes to spill_fd */
	int spill_fd;           /* -1, or the runs of deferred findings: */
	uint64_t spill_end;     /* where the next one goes, */
	struct fwriter *fw;     /* through this */
	struct frun *runs;      /* each in line order */
	size_t nruns, runs_cap;
	int have_cutoff;        /* a full run of --max-errors findings went */
	struct finding cutoff;  /* to the file: none after its last will list */

	struct picl_stat_pair *pairs;
	size_t pairs_cap;
};

/* ------------------------------------------------------------------------ */
/* Output                                                                    */
/* ------------------------------------------------------------------------ */

/* Write s as a JSON string: quotes, escapes, invalid UTF-8 as U+FFFD. */
static void json_string(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), i = 0;

	fputc('"', out);
	while (i < n) {
		unsigned char c = s[i];
		size_t len;

		if (c == '"' || c == '\\') {
			fputc('\\', out);
			fputc(c, out);
			i++;
		} else if (c == '\n') {
			fputs("\\n", out);
			i++;
		} else if (c == '\t') {
			fputs("\\t", out);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(out, "\\u%04x", c);
			i++;
		} else if ((len = picltrace_utf8_len(s + i, n - i)) > 0) {
			fwrite(s + i, 1, len, out);
			i += len;
		} else {
			fputs("\\ufffd", out);
			i++;
		}
	}
	fputc('"', out);
}

/* Make trace text printable for a message: \" \\ and \xNN escapes, cut
 * after 40 bytes with "...". Returns out. */
static char *quote_text(const char *s, size_t n, char *out, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0, i;

	for (i = 0; i < n && i < 40 && o + 8 < size; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			out[o++] = '\\';
			out[o++] = (char)c;
		} else if (c >= 0x20 && c < 0x7f) {
			out[o++] = (char)c;
		} else {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 15];
		}
	}
	if (i < n && o + 4 <= size) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
	return out;
}

static void print_finding(struct validator *v, const struct finding *f)
{
	if (v->opt->json) {
		fputs(v->listed == 0 ? "\n" : ",\n", v->out);
		fprintf(v->out, "{\"line\":%llu,\"column\":%llu,\"rule\":\"%s\",\"severity\":\"%s\",\"message\":",
			(unsigned long long)f->line, (unsigned long long)f->column, f->rule,
			f->sev == SEV_ERROR ? "error" : "warning");
		json_string(v->out, f->message);
		if (f->related)
			fprintf(v->out, ",\"related\":{\"line\":%llu}",
				(unsigned long long)f->related);
		fputc('}', v->out);
	} else {
		picltrace_progress_clear(v->prog);
		fprintf(v->out, "%s:%llu:%llu: %s: %s%s\n", v->shown,
			(unsigned long long)f->line, (unsigned long long)f->column, f->rule,
			f->sev == SEV_WARNING ? "warning: " : "", f->message);
	}
}

static int cmp_findings(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->column != y->column)
		return x->column < y->column ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Restore the heap of deferred findings from slot i down. */
static void deferred_down(struct validator *v, size_t i)
{
	struct finding *h = v->deferred, t;
	size_t n = v->ndeferred;

	for (;;) {
		size_t l = 2 * i + 1, top = i;

		if (l < n && cmp_findings(&h[l], &h[top]) > 0)
			top = l;
		if (l + 1 < n && cmp_findings(&h[l + 1], &h[top]) > 0)
			top = l + 1;
		if (top == i)
			return;
		t = h[i];
		h[i] = h[top];
		h[top] = t;
		i = top;
	}
}

/* ------------------------------------------------------------------------ */
/* Findings at the end past what memory holds                                */
/* ------------------------------------------------------------------------ */

/*
 * --max-errors=0 on a trace of millions of messages never received lists
 * millions of findings made at the end, in line order. Past
 * deferred_budget bytes the heap of them goes, sorted, to a temporary file
 * as a run; at the end the runs are merged RUN_FAN_IN at a time (each
 * merge a run of its own) until one last merge lists them.
 */
#define RUN_FAN_IN 16
#define RUN_BUFFER (16 * 1024)   /* read per run in a merge */

/* A finding in the file: this head, then the rule's name and the message,
 * each with its NUL. */
struct fhead {
	uint64_t line, column, related, seq;
	uint16_t message_len;
	uint8_t rule_len, sev;
};
#define FINDING_MAX (sizeof(struct fhead) + 256 + MESSAGE_MAX)

/* Findings written to the file at `at`, through buf. */
struct fwriter {
	uint64_t at;
	size_t len;
	char buf[RUN_BUFFER];
};

/* A run being read: the rest of it in the file [at, end), what was read
 * in buf[pos, len), and its first finding not yet taken (its strings in
 * buf). */
struct fcursor {
	uint64_t at, end;
	char *buf;
	size_t pos, len;
	struct finding f;
};

/* The file of findings failed (said why): validating fails. Returns -1. */
static int file_failed(struct validator *v)
{
	v->nomem = 1;
	v->failure = "cannot keep the findings made at the end in a temporary file";
	return -1;
}

static int fwriter_flush(struct validator *v, struct fwriter *w)
{
	if (w->len && picltrace_file_io(CMD, v->spill_fd, w->buf, w->len, w->at, 1) < 0)
		return file_failed(v);
	w->at += w->len;
	w->len = 0;
	return 0;
}

/* Start a run at the end of the file, written through v->fw. */
static struct fwriter *run_begin(struct validator *v)
{
	v->fw->at = v->spill_end;
	v->fw->len = 0;
	return v->fw;
}

/* End the run written since run_begin (rc: how the writing went): the
 * rest flushed, the run in *run. rc, or -1 if the flush failed. */
static int run_end(struct validator *v, int rc, struct frun *run)
{
	if (rc == 0)
		rc = fwriter_flush(v, v->fw);
	run->off = v->spill_end;
	run->end = v->spill_end = v->fw->at;
	return rc;
}

static int fwriter_put(struct validator *v, struct fwriter *w, const struct finding *f)
{
	size_t rule_len = strlen(f->rule) + 1, message_len = strlen(f->message) + 1;
	struct fhead h;

	if (rule_len > 256)
		rule_len = 256;
	if (message_len > MESSAGE_MAX)
		message_len = MESSAGE_MAX;
	if (w->len + FINDING_MAX > sizeof(w->buf) && fwriter_flush(v, w) < 0)
		return -1;
	memset(&h, 0, sizeof(h));
	h.line = f->line;
	h.column = f->column;
	h.related = f->related;
	h.seq = f->seq;
	h.rule_len = (uint8_t)(rule_len - 1);
	h.message_len = (uint16_t)message_len;
	h.sev = (uint8_t)f->sev;
	memcpy(w->buf + w->len, &h, sizeof(h));
	w->len += sizeof(h);
	memcpy(w->buf + w->len, f->rule, rule_len - 1);
	w->buf[w->len + rule_len - 1] = '\0';
	w->len += rule_len;
	memcpy(w->buf + w->len, f->message, message_len - 1);
	w->buf[w->len + message_len - 1] = '\0';
	w->len += message_len;
	return 0;
}

/* Take c's next finding into c->f: 1, 0 at the end of the run, -1 on a
 * failure (reported). */
static int fcursor_next(struct validator *v, struct fcursor *c)
{
	struct fhead h;
	size_t need;

	if (c->len - c->pos < FINDING_MAX && c->at < c->end) {
		size_t want = RUN_BUFFER - (c->len - c->pos);

		memmove(c->buf, c->buf + c->pos, c->len - c->pos);
		c->len -= c->pos;
		c->pos = 0;
		if (want > c->end - c->at)
			want = (size_t)(c->end - c->at);
		if (picltrace_file_io(CMD, v->spill_fd, c->buf + c->len, want, c->at, 0) < 0)
			return file_failed(v);
		c->len += want;
		c->at += want;
	}
	if (c->pos == c->len)
		return 0;
	memcpy(&h, c->buf + c->pos, sizeof(h));
	need = sizeof(h) + (size_t)h.rule_len + 1 + h.message_len;
	if (c->len - c->pos < need || h.message_len == 0) {
		picltrace_error(CMD, "a temporary file of findings was changed while in use");
		return file_failed(v);
	}
	c->f.line = h.line;
	c->f.column = h.column;
	c->f.related = h.related;
	c->f.seq = h.seq;
	c->f.sev = h.sev == SEV_WARNING ? SEV_WARNING : SEV_ERROR;
	c->f.rule = c->buf + c->pos + sizeof(h);
	c->f.message = c->buf + c->pos + sizeof(h) + h.rule_len + 1;
	c->buf[c->pos + need - 1] = '\0';
	c->buf[c->pos + sizeof(h) + h.rule_len] = '\0';
	c->pos += need;
	return 1;
}

static int listing_done(const struct validator *v)
{
	return v->opt->max_errors && v->listed >= v->opt->max_errors;
}

/* Merge runs r[0..n) (n <= RUN_FAN_IN) in line order: to w, or listed if
 * w is NULL. 0, or -1 with v->nomem set (and v->failure if not memory). */
static int merge_runs(struct validator *v, const struct frun *r, size_t n, struct fwriter *w)
{
	struct fcursor c[RUN_FAN_IN];
	int live[RUN_FAN_IN], rc = 0;
	char *mem = malloc(n * RUN_BUFFER);
	size_t k;

	if (!mem) {
		v->nomem = 1;
		return -1;
	}
	for (k = 0; k < n && rc >= 0; k++) {
		c[k].at = r[k].off;
		c[k].end = r[k].end;
		c[k].buf = mem + k * RUN_BUFFER;
		c[k].pos = c[k].len = 0;
		rc = live[k] = fcursor_next(v, &c[k]);
	}
	while (rc >= 0 && (w || !listing_done(v))) {
		size_t best = n;

		for (k = 0; k < n; k++)
			if (live[k] > 0 && (best == n || cmp_findings(&c[k].f, &c[best].f) < 0))
				best = k;
		if (best == n)
			break;
		if (w) {
			rc = fwriter_put(v, w, &c[best].f);
		} else {
			print_finding(v, &c[best].f);
			v->listed++;
		}
		if (rc >= 0)
			rc = live[best] = fcursor_next(v, &c[best]);
	}
	free(mem);
	return rc < 0 ? -1 : 0;
}

/* The heap of deferred findings, sorted, to the file as a run. 0, or -1
 * with v->nomem set (and v->failure if not memory). */
static int spill_deferred(struct validator *v)
{
	struct fwriter *w;
	struct frun run;
	size_t k;
	int rc = 0;

	if (grow((void **)&v->runs, &v->runs_cap, v->nruns + 1, sizeof(*v->runs)) < 0 ||
	    (!v->fw && !(v->fw = malloc(sizeof(*v->fw))))) {
		v->nomem = 1;
		return -1;
	}
	if (v->spill_fd < 0 && (v->spill_fd = picltrace_tempfile(CMD, v->opt->tmpdir)) < 0)
		return file_failed(v);
	qsort(v->deferred, v->ndeferred, sizeof(*v->deferred), cmp_findings);
	w = run_begin(v);
	for (k = 0; k < v->ndeferred && rc == 0; k++)
		rc = fwriter_put(v, w, &v->deferred[k]);
	if (run_end(v, rc, &run) < 0)
		return -1;
	v->runs[v->nruns++] = run;
	/* a whole --max-errors of findings before its last: none after that
	 * will be listed */
	if (v->opt->max_errors && v->ndeferred == v->opt->max_errors - v->listed &&
	    (!v->have_cutoff || cmp_findings(&v->deferred[v->ndeferred - 1], &v->cutoff) < 0)) {
		v->cutoff = v->deferred[v->ndeferred - 1];
		v->cutoff.message = NULL;
		v->have_cutoff = 1;
	}
	for (k = 0; k < v->ndeferred; k++)
		free(v->deferred[k].message);
	v->ndeferred = 0;
	v->deferred_bytes = 0;
	return 0;
}

/* Keep a finding made at the end of the trace, to be listed in line order
 * with the others: only as many as --max-errors leaves to list, the first
 * in line order; past deferred_budget bytes, in the file. */
static void defer_finding(struct validator *v, const struct finding *f)
{
	struct finding d = *f, t;
	size_t room = SIZE_MAX, i, bytes;

	if (v->opt->max_errors)
		room = v->listed < v->opt->max_errors ? v->opt->max_errors - v->listed : 0;
	d.seq = v->deferred_seq++;
	if (v->nomem || room == 0 || (v->ndeferred == room && cmp_findings(&d, &v->deferred[0]) > 0) ||
	    (v->have_cutoff && cmp_findings(&d, &v->cutoff) > 0))
		return;
	bytes = sizeof(d) + strlen(f->message) + 1;
	if (!(d.message = strdup(f->message))) {
		v->nomem = 1;
		return;
	}
	if (v->ndeferred == room) {      /* it takes the last one's place */
		v->deferred_bytes -= sizeof(d) + strlen(v->deferred[0].message) + 1;
		free(v->deferred[0].message);
		v->deferred[0] = d;
		v->deferred_bytes += bytes;
		deferred_down(v, 0);
		return;
	}
	if (grow((void **)&v->deferred, &v->deferred_cap, v->ndeferred + 1,
		 sizeof(*v->deferred)) < 0) {
		free(d.message);
		v->nomem = 1;
		return;
	}
	for (i = v->ndeferred++; i > 0 && cmp_findings(&v->deferred[(i - 1) / 2], &d) < 0;
	     i = (i - 1) / 2) {
		t = v->deferred[(i - 1) / 2];
		v->deferred[i] = t;
	}
	v->deferred[i] = d;
	v->deferred_bytes += bytes;
	if (v->deferred_bytes > v->deferred_budget)
		(void)spill_deferred(v);
}

/* Count a finding and list it (now, or at the end when deferring). */
static void add_finding(struct validator *v, const struct finding *f)
{
	if (f->sev == SEV_ERROR)
		v->errors++;
	else
		v->warnings++;
	if (v->opt->quiet)
		return;
	if (v->deferring) {
		defer_finding(v, f);
		return;
	}
	if (listing_done(v))
		return;
	print_finding(v, f);
	v->listed++;
}

static void report(struct validator *v, enum severity sev, const char *rule,
		   uint64_t line, uint64_t column, uint64_t related, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));

/* Report a violation; fmt is always a constant of ours, trace text only
 * ever an argument. */
static void report(struct validator *v, enum severity sev, const char *rule,
		   uint64_t line, uint64_t column, uint64_t related, const char *fmt, ...)
{
	char message[MESSAGE_MAX];
	struct finding f;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	f.line = line;
	f.column = column;
	f.related = related;
	f.seq = 0;
	f.rule = rule;
	f.sev = sev;
	f.message = message;
	add_finding(v, &f);
}

/* Print the findings kept until the end, in line order. */
static void flush_deferred(struct validator *v)
{
	size_t k;

	if (v->nomem)            /* failed: nothing more is listed */
		v->nruns = 0;
	else if (v->nruns && v->ndeferred && spill_deferred(v) < 0)
		return;
	if (v->nruns) {
		while (v->nruns > RUN_FAN_IN) {     /* a pass: RUN_FAN_IN runs a run */
			size_t n = 0;

			for (k = 0; k < v->nruns; k += RUN_FAN_IN) {
				size_t m = v->nruns - k < RUN_FAN_IN ? v->nruns - k : RUN_FAN_IN;
				struct frun run;

				if (run_end(v, merge_runs(v, v->runs + k, m, run_begin(v)),
					    &run) < 0)
					return;
				picltrace_release(v->spill_fd, v->runs[k].off,
						  v->runs[k + m - 1].end - v->runs[k].off);
				v->runs[n++] = run;
			}
			v->nruns = n;
		}
		(void)merge_runs(v, v->runs, v->nruns, NULL);
		v->nruns = 0;
		return;
	}
	if (v->ndeferred > 1)
		qsort(v->deferred, v->ndeferred, sizeof(*v->deferred), cmp_findings);
	for (k = 0; k < v->ndeferred; k++) {
		if (!v->nomem && !listing_done(v)) {
			print_finding(v, &v->deferred[k]);
			v->listed++;
		}
		free(v->deferred[k].message);
	}
	v->ndeferred = 0;
	v->deferred_bytes = 0;
}

static void begin_output(struct validator *v)
{
	if (v->opt->json) {
		fputs("{\"file\":", v->out);
		json_string(v->out, v->name);
		fputs(",\"violations\":[", v->out);
	}
}

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

/* The summary; `problem` is set when the input could not be read to its
 * end (then the JSON object carries it, with its position `at` when known,
 * and the text form has no summary: the problem went to standard error). */
static void end_output(struct validator *v, const char *hint, const char *problem,
		       const struct picl_mark *at)
{
	uint64_t total = v->errors + v->warnings;

	if (v->opt->json) {
		fprintf(v->out, "%s],\"records\":%llu,\"errors\":%llu,\"warnings\":%llu,\"listed\":%llu,\"hint\":",
			v->listed ? "\n" : "", (unsigned long long)v->records,
			(unsigned long long)v->errors, (unsigned long long)v->warnings,
			(unsigned long long)v->listed);
		if (hint)
			json_string(v->out, hint);
		else
			fputs("null", v->out);
		if (problem) {
			fputs(",\"error\":", v->out);
			json_string(v->out, problem);
			if (at && at->line > 0)
				fprintf(v->out, ",\"error_at\":{\"line\":%llu,\"column\":%llu}",
					(unsigned long long)at->line,
					(unsigned long long)at->column);
		}
		fputs("}\n", v->out);
		return;
	}
	if (problem)
		return;
	fprintf(v->out, "%s: %llu record%s, %llu error%s, %llu warning%s", v->shown,
		(unsigned long long)v->records, plural(v->records),
		(unsigned long long)v->errors, plural(v->errors),
		(unsigned long long)v->warnings, plural(v->warnings));
	if (!v->opt->quiet && v->listed < total)
		fprintf(v->out, " (%llu listed)", (unsigned long long)v->listed);
	if (hint)
		fprintf(v->out, "; %s", hint);
	fputc('\n', v->out);
}

/* ------------------------------------------------------------------------ */
/* Positions in a record                                                     */
/* ------------------------------------------------------------------------ */

/* Line and column of byte p of the record's text, which may have been
 * joined from continuation lines (picl_reader_locate); p outside the text
 * gives the record's start. */
static void locate(const struct validator *v, const struct picl_record *rec, const char *p,
		   uint64_t *line, uint64_t *column)
{
	struct picl_mark at;

	picl_reader_locate(v->reader, rec, p, &at);
	*line = at.line;
	*column = at.column;
}

/* Where field k (F_*) of the record starts, for columns in messages. */
static void field_position(const struct validator *v, const struct picl_record *rec,
			   unsigned k, uint64_t *line, uint64_t *column)
{
	struct picl_mark at;

	picltrace_field_mark(v->reader, rec, k, &at);
	*line = at.line;
	*column = at.column;
}

/* Report at the start of field k of the record. */
#define AT_FIELD(rec, k, line, column) field_position(v, (rec), (k), &(line), &(column))

static const char *format_time(struct picl_time t, char *buf)
{
	picl_time_format(t, buf);
	return buf;
}

/* ------------------------------------------------------------------------ */
/* Processes, processors, subsets                                            */
/* ------------------------------------------------------------------------ */

static void proc_free(struct proc *p)
{
	free(p->stack);
	openindex_free(&p->by_event);
	free(p->events);
	free(p->listed);
	free(p);
}

static struct proc *proc_find(struct validator *v, int32_t processor, int32_t process)
{
	struct proc *p = v->last_proc;
	size_t i;

	if (p && p->processor == processor && p->process == process)
		return p;
	if ((p = proc_table_get(v->fast, processor)) && p->process == process) {
		v->last_proc = p;
		return p;
	}

	if (!intmap_get(&v->proc_of, intmap_key2(processor, process), &i))
		return NULL;
	v->last_proc = v->procs[i];
	return v->procs[i];
}

/* A processor first seen on this line: one the -307 header records list,
 * if they list any (the matcher takes them as the processors a broadcast
 * must reach). */
static void check_declared(struct validator *v, int32_t processor, uint64_t line,
			   uint64_t column)
{
	if (picl_matcher_declared(v->matcher, processor) == 0)
		report(v, SEV_ERROR, R_HEADER_PROCESSORS, line, column, 0,
		       "processor %d is not one of those the -307 header records list; a "
		       "broadcast is taken as received by all once they have it",
		       (int)processor);
}

/* The record's processor, if first seen: noted, and checked against the
 * header's list, at once or (first seen in the header) at its end. */
static void note_processor(struct validator *v, const struct picl_record *rec)
{
	int32_t processor = rec->processor;
	uint64_t line, column;
	size_t seen;

	if (processor < 0 || intmap_get(&v->processors, (uint32_t)processor, &seen))
		return;
	if (intmap_put(&v->processors, (uint32_t)processor, 0) < 0) {
		v->nomem = 1;
		return;
	}
	v->a_processor = processor;
	if (v->nomem)               /* the matcher is no longer fed */
		return;
	AT_FIELD(rec, F_PROCESSOR, line, column);
	if (!picl_matcher_in_header(v->matcher)) {
		check_declared(v, processor, line, column);
		return;
	}
	if (grow((void **)&v->early, &v->early_cap, v->nearly + 1, sizeof(*v->early)) < 0) {
		v->nomem = 1;
		return;
	}
	v->early[v->nearly].processor = processor;
	v->early[v->nearly].line = line;
	v->early[v->nearly++].column = column;
}

/* The record's process, made when first seen. */
static struct proc *proc_get(struct validator *v, const struct picl_record *rec)
{
	int32_t processor = rec->processor, process = rec->process;
	struct proc *p = proc_find(v, processor, process);

	if (p)
		return p;
	if (grow((void **)&v->procs, &v->procs_cap, v->nprocs + 1, sizeof(*v->procs)) < 0) {
		v->nomem = 1;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p || intmap_put(&v->proc_of, intmap_key2(processor, process), v->nprocs) < 0) {
		free(p);
		v->nomem = 1;
		return NULL;
	}
	v->procs[v->nprocs++] = p;
	p->processor = processor;
	p->process = process;
	p->nprofiled = -1;
	v->last_proc = p;
	(void)proc_table_note(&v->fast, processor, p);  /* without it: slower look-ups */
	return p;
}

/* Sort the event types noted since the last call in among the others:
 * sorted, each once, then merged from the back. */
static void sort_events(struct proc *p)
{
	size_t i = p->nsorted, out, n, k;
	int32_t *tail;

	if (p->nevents == i)
		return;
	qsort(p->events + i, p->nevents - i, sizeof(*p->events), picltrace_cmp_i32);
	for (n = 1, k = i + 1; k < p->nevents; k++)
		if (p->events[k] != p->events[i + n - 1])
			p->events[i + n++] = p->events[k];
	p->nevents = out = i + n;
	if (i > 0 && p->events[i - 1] > p->events[i]) {
		tail = malloc(n * sizeof(*tail));
		if (!tail) {
			qsort(p->events, p->nevents, sizeof(*p->events), picltrace_cmp_i32);
		} else {
			memcpy(tail, p->events + i, n * sizeof(*tail));
			while (n > 0)
				p->events[--out] = i > 0 && p->events[i - 1] > tail[n - 1] ?
						   p->events[--i] : tail[--n];
			free(tail);
		}
	}
	p->nsorted = p->nevents;
}

/* Add e to the set of event types of p. Every event record comes here: the
 * usual types are found in the bitmap, without a search, the others by a
 * binary search of the sorted part. A new type is appended, and sorted in
 * when the unsorted part has grown as long as the sorted one (or when a
 * statistics record needs the set): kept sorted at every insertion, N
 * types in descending order cost N^2/2 moves. */
static void note_event(struct validator *v, struct proc *p, int32_t e)
{
	size_t lo = 0, hi = p->nsorted;
	int in_bits = e >= EVENT_BITS_LO && e < EVENT_BITS_LO + EVENT_BITS;
	unsigned bit = in_bits ? (unsigned)(e - EVENT_BITS_LO) : 0;

	if (in_bits && (p->events_bits[bit / 64] >> (bit % 64) & 1))
		return;
	if (!in_bits) {
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (p->events[mid] == e)
				return;
			if (p->events[mid] < e)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (p->nevents > p->nsorted && p->events[p->nevents - 1] == e)
			return;  /* a run of one type: appended once */
	}
	if (grow((void **)&p->events, &p->events_cap, p->nevents + 1, sizeof(*p->events)) < 0) {
		v->nomem = 1;
		return;
	}
	p->events[p->nevents++] = e;
	if (in_bits)
		p->events_bits[bit / 64] |= (uint64_t)1 << (bit % 64);
	if (p->nevents - p->nsorted >= EVENTS_UNSORTED &&
	    p->nevents - p->nsorted >= p->nsorted)
		sort_events(p);
}

/* Remember that subset `id` of `kind` was used undefined at line:column. */
static void note_use(struct validator *v, enum picl_subset_kind kind, int32_t id,
		     uint64_t line, uint64_t column)
{
	uint64_t key = intmap_key2((int32_t)kind, id);
	struct use *u;
	size_t i;

	if (intmap_get(&v->use_of, key, &i) || v->nuses >= MAX_SUBSET_USES)
		return;
	if (grow((void **)&v->uses, &v->uses_cap, v->nuses + 1, sizeof(*v->uses)) < 0 ||
	    intmap_put(&v->use_of, key, v->nuses) < 0) {
		v->nomem = 1;
		return;
	}
	u = &v->uses[v->nuses++];
	memset(u, 0, sizeof(*u));
	u->line = line;
	u->column = column;
}

/* A -201 or -203 record defines a subset: was it used before? */
static void check_definition(struct validator *v, const struct picl_record *rec)
{
	enum picl_subset_kind kind;
	struct use *u;
	int32_t id;
	size_t i;

	if (!rec->values || rec->nvalues == 0 || rec->values[0].kind != PICL_VAL_INT)
		return;
	kind = rec->type == PICL_REC_SUBSET_PROCESSORS ? PICL_SUBSET_PROCESSORS
						       : PICL_SUBSET_EVENTS;
	id = (int32_t)rec->values[0].v.i;
	if (!intmap_get(&v->use_of, intmap_key2((int32_t)kind, id), &i))
		return;
	u = &v->uses[i];
	if (u->done)
		return;
	u->done = 1;
	report(v, SEV_ERROR, R_SUBSET, u->line, u->column, rec->mark.line,
	       "%s subset %d is used before its definition at line %llu",
	       kind == PICL_SUBSET_PROCESSORS ? "processor" : "event", (int)id,
	       (unsigned long long)rec->mark.line);
}

/* 1 if event type e names a subset of events (predefined or defined). */
static int is_event_subset(struct validator *v, int32_t e)
{
	const struct picl_schema_event *ev = picl_schema_event(v->schema, e);

	if (e >= -1)
		return 0;
	if (ev)
		return ev->category && strcmp(ev->category, "subset") == 0;
	return picl_defs_subset_exists(v->defs, PICL_SUBSET_EVENTS, e);
}

/*
 * An event type used in a record: its event field (at == NULL) or a
 * statistics pair (at: the pair's text). The position is worked out only
 * when there is something to report.
 */
static void check_event_value(struct validator *v, const struct picl_record *rec,
			      int32_t e, const char *at)
{
	uint64_t line, column;

	if (e >= -1 || picl_schema_event(v->schema, e) ||
	    picl_defs_subset_exists(v->defs, PICL_SUBSET_EVENTS, e))
		return;
	if (at)
		locate(v, rec, at, &line, &column);
	else
		AT_FIELD(rec, F_EVENT, line, column);
	if (e <= -1001) {
		report(v, SEV_ERROR, R_SUBSET, line, column, 0,
		       "event subset %d is not defined (no -203 record before this one defines it)",
		       (int)e);
		return;
	}
	report(v, SEV_WARNING, R_UNKNOWN_EVENT, line, column, 0,
	       "event type %d is not in the schema and no event subset %d is defined; readers skip it",
	       (int)e, (int)e);
	note_use(v, PICL_SUBSET_EVENTS, e, line, column);
}

/* The processor, process and event fields of any record. */
static void check_fields(struct validator *v, const struct picl_record *rec)
{
	uint64_t line, column;

	if (rec->processor < -1 &&
	    !picl_defs_subset_exists(v->defs, PICL_SUBSET_PROCESSORS, rec->processor)) {
		AT_FIELD(rec, F_PROCESSOR, line, column);
		report(v, SEV_WARNING, R_PROCESSOR, line, column, 0,
		       "processor id %d is not a processor (0 or more), the host (32767), -1 or a defined processor subset",
		       (int)rec->processor);
		note_use(v, PICL_SUBSET_PROCESSORS, rec->processor, line, column);
	}
	/* a process subset is its processor's (Table 2); a record of every
	 * processor or of a processor subset takes each one's */
	if (rec->process < -1 &&
	    !(rec->processor < 0 ?
	      picl_defs_subset_exists(v->defs, PICL_SUBSET_PROCESSES, rec->process) :
	      picl_defs_subset_exists_on(v->defs, PICL_SUBSET_PROCESSES, rec->processor,
					 rec->process))) {
		AT_FIELD(rec, F_PROCESS, line, column);
		if (rec->processor < 0 ||
		    !picl_defs_subset_exists(v->defs, PICL_SUBSET_PROCESSES, rec->process))
			report(v, SEV_ERROR, R_SUBSET, line, column, 0,
			       "process subset %d is not defined (no -202 record before this one defines it)",
			       (int)rec->process);
		else
			report(v, SEV_ERROR, R_SUBSET, line, column, 0,
			       "process subset %d is not defined on processor %d (no -202 record before this one defines it there or on every processor, -1)",
			       (int)rec->process, (int)rec->processor);
	}
	if (rec->event < -1)
		check_event_value(v, rec, rec->event, NULL);
}

/* ------------------------------------------------------------------------ */
/* Data against the schema                                                   */
/* ------------------------------------------------------------------------ */

enum vclass { VC_INT, VC_FLOAT, VC_CHARS, VC_STRING };

#define EXPECT_MAX 64

/* What the schema expects of a record's data. */
struct expect {
	unsigned char cls[EXPECT_MAX];  /* classes of one application, or all */
	size_t ncls;
	size_t max;                     /* most values; SIZE_MAX: any number */
	int chars;                      /* character data */
	const char *descriptor;         /* for messages; NULL: no data */
};

static enum vclass value_class(enum picl_value_kind k)
{
	switch (k) {
	case PICL_VAL_INT:
	case PICL_VAL_UINT:
		return VC_INT;
	case PICL_VAL_FLOAT:
	case PICL_VAL_DOUBLE:
		return VC_FLOAT;
	case PICL_VAL_CHARS:
		return VC_CHARS;
	default:
		return VC_STRING;
	}
}

static const char *class_name(enum vclass c)
{
	switch (c) {
	case VC_INT: return "an integer";
	case VC_FLOAT: return "a floating-point number";
	case VC_CHARS: return "characters";
	default: return "a string";
	}
}

/* The schema's control string, compiled once (NULL if it does not compile:
 * then nothing is checked against it). */
static const struct picl_descriptor *schema_descriptor(struct validator *v,
						       const char *control)
{
	struct picl_descriptor *d = NULL;
	size_t k;

	for (k = 0; k < v->ncompiled; k++)
		if (v->compiled[k].control == control)
			return v->compiled[k].desc;
	if (picl_descriptor_compile(control, strlen(control), &d, NULL) < 0)
		d = NULL;
	if (grow((void **)&v->compiled, &v->compiled_cap, v->ncompiled + 1,
		 sizeof(*v->compiled)) < 0) {
		picl_descriptor_free(d);
		v->nomem = 1;
		return NULL;
	}
	v->compiled[v->ncompiled].control = control;
	v->compiled[v->ncompiled].desc = d;
	v->ncompiled++;
	return d;
}

/* Fill e from a control string and a field count. 1, or 0 if there is
 * nothing to check. */
static int expect_from(struct validator *v, const char *control, int variable,
		       size_t max_fields, struct expect *e)
{
	const struct picl_descriptor *d;
	size_t k, per;

	memset(e, 0, sizeof(*e));
	if (!control) {
		e->max = 0;
		return 1;
	}
	d = schema_descriptor(v, control);
	if (!d)
		return 0;
	e->descriptor = control;
	if (picl_descriptor_is_chars(d)) {
		e->chars = 1;
		e->max = SIZE_MAX;
		return 1;
	}
	per = picl_descriptor_values_per_field(d);
	if (per == 0 || per > EXPECT_MAX)
		return 0;
	for (k = 0; k < per; k++)
		e->cls[k] = (unsigned char)value_class(picl_descriptor_value_kind(d, k));
	e->ncls = per;
	e->max = variable ? SIZE_MAX : max_fields * per;
	return 1;
}

static int expect_data(struct validator *v, const struct picl_schema_data *sd,
		       struct expect *e)
{
	if (!sd)
		return 0;
	return expect_from(v, sd->descriptor, sd->variable, sd->max_fields, e);
}

/* A mark of an event the schema describes by entry and exit only: the
 * entry's fields followed by the exit's (spec section 2.3.3). */
static int expect_mark(struct validator *v, const struct picl_schema_event *ev,
		       struct expect *e)
{
	struct expect in, out;
	size_t k;

	if (!expect_data(v, ev->entry, &in) || !expect_data(v, ev->exit, &out))
		return 0;
	if (in.chars || out.chars || in.max == SIZE_MAX || out.max == SIZE_MAX ||
	    in.max + out.max > EXPECT_MAX)
		return 0;
	memset(e, 0, sizeof(*e));
	for (k = 0; k < in.max; k++)
		e->cls[k] = in.cls[k % in.ncls];
	for (k = 0; k < out.max; k++)
		e->cls[in.max + k] = out.cls[k % out.ncls];
	e->ncls = e->max = in.max + out.max;
	e->descriptor = in.descriptor ? in.descriptor : out.descriptor;
	return 1;
}

static const char *record_kind_name(int32_t type)
{
	switch (type) {
	case PICL_REC_MARK: return "mark";
	case PICL_REC_ENTRY: return "entry";
	default: return "exit";
	}
}

/* The record's control string, printable, in buf. */
static const char *record_control(const struct picl_record *rec, char *buf, size_t size)
{
	const char *c = picl_descriptor_control(rec->desc);

	return quote_text(c, strlen(c), buf, size);
}

/* What the schema describes: "the entry of event -21 (send0)" or "record
 * type -5 (event label)", in buf. */
static const char *describe(const struct picl_record *rec, const struct picl_schema_event *ev,
			    const struct picl_schema_record *rs, char *buf, size_t size)
{
	if (ev)
		snprintf(buf, size, "the %s of event %d (%s)", record_kind_name(rec->type),
			 (int)rec->event, ev->name ? ev->name : "?");
	else
		snprintf(buf, size, "record type %d (%s)", (int)rec->type,
			 rs && rs->name ? rs->name : "?");
	return buf;
}

/* Report a descriptor-data finding at the record's descriptor; the texts
 * are made only then (this check runs for every record). */
#define DATA_REPORT(sev, ...) \
	do { \
		const char *what = describe(rec, ev, rs, what_buf, sizeof(what_buf)); \
		AT_FIELD(rec, F_DESCRIPTOR, line, column); \
		report(v, (sev), R_DESCRIPTOR, line, column, 0, __VA_ARGS__); \
	} while (0)

/* A -6 record's data are read as the format fixes them (an alias number
 * and a control string), whatever its descriptor says; the descriptor
 * must still say so, as the schema has it, for readers that go by it. */
static void check_definition_descriptor(struct validator *v, const struct picl_record *def)
{
	const struct picl_schema_event *ev = NULL;
	const struct picl_schema_record *rs = picl_schema_record(v->schema, def->type);
	struct picl_defs *defs = picl_reader_defs(v->reader);
	struct picl_record copy = *def;
	const struct picl_record *rec = &copy;
	char what_buf[160], ctl[200];
	struct expect e;
	uint64_t line, column;
	size_t k, per;

	if (!rs || !rs->descriptor || !expect_from(v, rs->descriptor, 1, 0, &e))
		return;
	if (def->control) {
		struct picl_error err;

		err.mark.column = 0;
		if (picl_defs_control(defs, def->control, def->control_len, &copy.desc,
				      &err) < 0) {
			/* at the column in the control string, as the reader
			 * reports it for other records (after the '"') */
			AT_FIELD(rec, F_DESCRIPTOR, line, column);
			if (err.mark.column > 0 && err.mark.column <= def->control_len + 1)
				column += err.mark.column;
			report(v, SEV_ERROR, R_DESCRIPTOR, line, column, 0, "%s", err.problem);
			return;
		}
	} else {
		copy.desc = picl_defs_lookup_alias(defs, def->alias, def->event,
						   def->processor, def->process);
		if (!copy.desc) {
			AT_FIELD(rec, F_DESCRIPTOR, line, column);
			report(v, SEV_ERROR, R_ALIAS, line, column, 0,
			       "descriptor alias %lld is not defined for event %d on processor %d, process %d",
			       (long long)def->alias, (int)def->event, (int)def->processor,
			       (int)def->process);
			return;
		}
	}
	if (picl_descriptor_is_chars(rec->desc)) {
		if (!e.chars)
			DATA_REPORT(SEV_ERROR, "%s should have \"%s\" data, not character data",
				    what, e.descriptor);
		return;
	}
	per = picl_descriptor_values_per_field(rec->desc);
	for (k = 0; k < per && k < e.ncls; k++)
		if (value_class(picl_descriptor_value_kind(rec->desc, k)) != (enum vclass)e.cls[k])
			break;
	if (k < per || k < e.ncls)
		DATA_REPORT(SEV_ERROR, "%s should have \"%s\" data, not \"%s\"",
			    what, e.descriptor, record_control(rec, ctl, sizeof(ctl)));
}

/* The record's data against what the schema says for its type. */
static void check_schema_data(struct validator *v, const struct picl_record *rec)
{
	const struct picl_schema_event *ev = NULL;
	const struct picl_schema_record *rs = NULL;
	char what_buf[160], ctl[200];
	struct expect e;
	uint64_t line, column;
	int rec_chars;
	size_t k, j;

	if (rec->type == PICL_REC_DESCRIPTOR) {
		check_definition_descriptor(v, rec);
		return;
	}
	if (!rec->desc)
		return;
	if (rec->type == PICL_REC_MARK || rec->type == PICL_REC_ENTRY ||
	    rec->type == PICL_REC_EXIT) {
		int ok;

		ev = picl_schema_event(v->schema, rec->event);
		if (!ev)
			return;
		if (rec->type == PICL_REC_MARK)
			ok = ev->mark ? expect_data(v, ev->mark, &e) : expect_mark(v, ev, &e);
		else if (rec->type == PICL_REC_ENTRY)
			ok = expect_data(v, ev->entry ? ev->entry : ev->mark, &e);
		else if (ev->exit)
			ok = expect_data(v, ev->exit, &e);
		else
			ok = ev->mark ? expect_from(v, NULL, 0, 0, &e) : 0;
		if (!ok)
			return;
	} else {
		rs = picl_schema_record(v->schema, rec->type);
		if (!rs || !rs->descriptor ||
		    !expect_from(v, rs->descriptor, rs->max_fields == SIZE_MAX,
				 rs->max_fields, &e))
			return;
	}
	rec_chars = picl_descriptor_is_chars(rec->desc);
	if (e.chars || rec_chars) {
		if (e.chars && !rec_chars)
			DATA_REPORT(SEV_ERROR, "%s should have character data (\"%s\"), not \"%s\"",
				    what, e.descriptor, record_control(rec, ctl, sizeof(ctl)));
		else if (!e.chars && e.max == 0)
			DATA_REPORT(SEV_WARNING,
				    "%s has %llu character%s of data, the schema lists none",
				    what, (unsigned long long)rec->nfields, plural(rec->nfields));
		else if (!e.chars)
			DATA_REPORT(SEV_ERROR, "%s should have \"%s\" data, not character data",
				    what, e.descriptor);
		return;
	}
	for (k = 0, j = 0; k < rec->nvalues; k++) {
		enum vclass got = value_class(rec->values[k].kind), want;

		if (k >= e.max) {
			if (e.max == 0)
				DATA_REPORT(SEV_WARNING,
					    "%s has %llu data value%s, the schema lists none",
					    what, (unsigned long long)rec->nvalues,
					    plural(rec->nvalues));
			else
				DATA_REPORT(SEV_WARNING,
					    "%s has %llu data value%s, the schema lists at most %llu",
					    what, (unsigned long long)rec->nvalues,
					    plural(rec->nvalues), (unsigned long long)e.max);
			return;
		}
		want = (enum vclass)e.cls[j];   /* k % e.ncls, without a division */
		if (++j == e.ncls)
			j = 0;
		if (got != want) {
			DATA_REPORT(SEV_ERROR,
				    "%s should have \"%s\" data, not \"%s\" (value %llu is %s)",
				    what, e.descriptor, record_control(rec, ctl, sizeof(ctl)),
				    (unsigned long long)(k + 1), class_name(got));
			return;
		}
	}
}

/* ------------------------------------------------------------------------ */
/* Messages                                                                  */
/* ------------------------------------------------------------------------ */

/* "of 8 bytes " or "" when the length is not given. */
static const char *bytes_text(int64_t length, char *buf, size_t size)
{
	if (length < 0)
		buf[0] = '\0';
	else
		snprintf(buf, size, "of %lld byte%s ", (long long)length,
			 length == 1 ? "" : "s");
	return buf;
}

/*
 * Message findings where a process's trace lacks records (struct
 * picltrace_gaps: its trace buffer filled, -913, or wrapped, -914) are no
 * proof against the program: a send whose receive was not traced, a
 * receive whose send was not, and, since matching is FIFO per channel,
 * every pair after a missing send or receive may be the wrong one. Such
 * findings are warnings that name the mark; those the records both
 * processes kept prove are errors still.
 */

/* The process a message's side ran on (process -1, not recorded: 0). */
static const struct proc *msg_proc(struct validator *v, int32_t processor, int32_t process)
{
	return proc_find(v, processor, process >= 0 ? process : 0);
}

/* " (the trace buffer of processor 1 filled at line 130, -913: the
 * receive may not have been traced)", of p's first gap or of the one that
 * ends latest; `what` "the receive", "the send", or a text of its own
 * (paired: 1). */
static const char *gap_reason(const struct proc *p, int first, const char *what, int paired,
			      char *buf, size_t size)
{
	int32_t kind = first ? p->gaps.first_kind : p->gaps.last_kind;
	uint64_t mark = first ? p->gaps.first_mark : p->gaps.last_mark;

	snprintf(buf, size, " (the trace buffer of processor %d %s at line %llu, %d: %s%s)",
		 (int)p->processor, kind == -913 ? "filled" : "wrapped",
		 (unsigned long long)mark, (int)kind, what,
		 paired ? "" : kind == -913 ? " may not have been traced" :
		 " may have been pushed out");
	return buf;
}

/* The side of matched message m whose trace lacks records before it (the
 * sender's first), or NULL: the pair is then sure. */
static const struct proc *pair_doubt(struct validator *v, const struct picl_message *m)
{
	const struct proc *p = msg_proc(v, m->src_processor, m->src_process);
	const struct proc *q = msg_proc(v, m->dst_processor, m->dst_process);

	if (p && picltrace_gaps_before(&p->gaps, m->send_mark.line))
		return p;
	if (q && picltrace_gaps_before(&q->gaps, m->recv_mark.line))
		return q;
	return NULL;
}

/* Whether pair_doubt(m) can no longer change: a ring's -914 may come
 * after the records kept that follow its gap. */
static int pair_settled(struct validator *v, const struct picl_message *m)
{
	const struct proc *p = msg_proc(v, m->src_processor, m->src_process);
	const struct proc *q = msg_proc(v, m->dst_processor, m->dst_process);

	return (!p || picltrace_gaps_settled(&p->gaps, m->send_mark.line)) &&
	       (!q || picltrace_gaps_settled(&q->gaps, m->recv_mark.line));
}

/* A matched pair's findings: lengths and times. */
static void report_pair(struct validator *v, const struct picl_message *m)
{
	const struct proc *doubt = pair_doubt(v, m);
	enum severity sev = doubt ? SEV_WARNING : SEV_ERROR;
	char why[192] = "";

	if (doubt)
		gap_reason(doubt, 1, "with records missing, the receive may be paired with the wrong send",
			   1, why, sizeof(why));
	if (m->send_length >= 0 && m->recv_length >= 0 && m->send_length != m->recv_length)
		report(v, sev, R_MESSAGE, m->recv_mark.line, m->recv_mark.column,
		       m->send_mark.line,
		       "receive of %lld byte%s with type %d from processor %d matches the send of %lld byte%s at line %llu%s",
		       (long long)m->recv_length, m->recv_length == 1 ? "" : "s", (int)m->type,
		       (int)m->src_processor, (long long)m->send_length,
		       m->send_length == 1 ? "" : "s", (unsigned long long)m->send_mark.line, why);
	if (picl_time_cmp(m->recv_time, m->send_time) < 0) {
		char t1[PICL_TIME_BUFSIZE], t2[PICL_TIME_BUFSIZE];

		report(v, sev, R_TACHYON, m->recv_mark.line, m->recv_mark.column,
		       m->send_mark.line,
		       "message of type %d from processor %d to processor %d is received at %s (line %llu) before it was sent at %s (line %llu)%s",
		       (int)m->type, (int)m->src_processor, (int)m->dst_processor,
		       format_time(m->recv_time, t2), (unsigned long long)m->recv_mark.line,
		       format_time(m->send_time, t1), (unsigned long long)m->send_mark.line, why);
	}
}

/*
 * Pairs with a finding wait here while a -914 may still show that records
 * before one of their sides are missing: a ring's mark comes after the
 * records it kept when it was not pushed out itself. They are reported in
 * the order they were made, once the buffer's fill that held each side
 * was written out, and at the end; past HELD_MAX waiting, the oldest goes
 * as things stand then.
 */
#define HELD_MAX 65536

static void release_held(struct validator *v, int all)
{
	const struct picl_message *m;

	while ((m = picltrace_queue_front(&v->held)) &&
	       (all || pair_settled(v, m) || picltrace_queue_len(&v->held) > HELD_MAX)) {
		picltrace_queue_pop(&v->held);
		report_pair(v, m);
	}
}

/* A send and a receive have been matched: lengths and times. */
static void matched(struct validator *v, const struct picl_message *m)
{
	struct picl_message *slot;

	if (!(m->send_length >= 0 && m->recv_length >= 0 && m->send_length != m->recv_length) &&
	    picl_time_cmp(m->recv_time, m->send_time) >= 0)
		return;
	if (!picltrace_queue_len(&v->held) && pair_settled(v, m)) {
		report_pair(v, m);
		return;
	}
	if (!(slot = picltrace_queue_push(&v->held))) {
		report_pair(v, m);   /* no memory to wait: as things stand */
		return;
	}
	*slot = *m;
	release_held(v, 0);
}

/* The receiver of unmatched send m if it may have lost the receive: a gap
 * of its trace ends after the first message to it was sent (FIFO matching
 * leaves the last sends of a channel unmatched, whichever receives went
 * missing); else NULL. */
static const struct proc *lost_receive(struct validator *v, const struct picl_message *m)
{
	const struct proc *q;

	if (m->dst_processor == PICL_WILDCARD)
		return NULL;
	q = msg_proc(v, m->dst_processor, m->dst_process);
	if (!q || !picltrace_gaps_end_from(&q->gaps, picltrace_sends_first(v->sends,
								m->dst_processor, m->send_time)))
		return NULL;
	return q;
}

/* The sender of unmatched receive m if it may have lost the send: a gap of
 * its trace starts before the receive; else NULL. */
static const struct proc *lost_send(struct validator *v, const struct picl_message *m)
{
	const struct proc *p = msg_proc(v, m->src_processor, m->src_process);

	if (!p || !picltrace_gaps_start_by(&p->gaps, m->recv_time))
		return NULL;
	return p;
}

/* Report the broadcast gathered so far, if any. */
static void flush_broadcast(struct validator *v)
{
	struct lost_broadcast *b = &v->lost;
	char bytes[48], others[48], why[192] = "";
	enum severity sev = v->opt->partial ? SEV_WARNING : SEV_ERROR;
	uint64_t related = 0;

	if (!b->open)
		return;
	b->open = 0;
	v->unmatched++;
	others[0] = '\0';
	if (b->listed < b->missing)
		snprintf(others, sizeof(others), ", ... (%llu in all)",
			 (unsigned long long)b->missing);
	if (b->lost && b->missing == 1) {
		sev = SEV_WARNING;
		gap_reason(b->why, 0, "the receive", 0, why, sizeof(why));
		related = b->why->gaps.last_mark;
	} else if (b->lost) {
		sev = SEV_WARNING;
		snprintf(why, sizeof(why), " (the trace buffers of those processors filled or wrapped, -913 or -914: the receives may not have been traced)");
	}
	report(v, sev, R_MESSAGE, b->msg.send_mark.line, b->msg.send_mark.column, related,
	       "broadcast %swith type %d is never received on processor%s %s%s%s",
	       bytes_text(b->msg.send_length, bytes, sizeof(bytes)), (int)b->msg.type,
	       b->missing > 1 ? "s" : "", b->list, others, why);
}

/* One more processor that never received broadcast m. */
static void lost_broadcast(struct validator *v, const struct picl_message *m)
{
	struct lost_broadcast *b = &v->lost;
	const struct proc *q = lost_receive(v, m);

	if (!b->open) {
		b->open = 1;
		b->msg = *m;
		b->missing = 0;
		b->listed = b->len = 0;
		b->list[0] = '\0';
		b->lost = 1;
		b->why = NULL;
	}
	if (!q)
		b->lost = 0;
	else if (!b->why)
		b->why = q;
	if (m->dst_processor == PICL_WILDCARD) {   /* the others, counted */
		b->missing += m->more_missing;
		return;
	}
	b->missing++;
	if (b->len < sizeof(b->list) - 32) {
		b->len += (size_t)snprintf(b->list + b->len, sizeof(b->list) - b->len, "%s%d",
					   b->listed ? ", " : "", (int)m->dst_processor);
		b->listed++;
	}
}

/*
 * The receive that never ended on the processor a send never received
 * went to, if it waited for another type (the usual deadlock: a message
 * sent with a type its receiver does not wait for), as the end of the
 * send's message: " (processor 1 waited for type 5 instead, at line 4, in
 * a receive that never ended)". Returns its line (0: none, hint "").
 */
static uint64_t stuck_receive(struct validator *v, const struct picl_message *m,
			      char *hint, size_t size)
{
	const struct proc *p = proc_find(v, m->dst_processor, 0);
	char t[32];

	hint[0] = '\0';
	if (!p || !p->stuck_line || p->stuck_type == m->type || p->stuck_type == -1)
		return 0;
	if (p->stuck_type == -2)
		snprintf(t, sizeof(t), "a message");
	else
		snprintf(t, sizeof(t), "type %d", (int)p->stuck_type);
	snprintf(hint, size, " (processor %d waited for %s instead, at line %llu, in a receive that never ended)",
		 (int)p->processor, t, (unsigned long long)p->stuck_line);
	return p->stuck_line;
}

/* The matcher's callback: a match as soon as it is made; at the end what
 * was sent and never received, received and never sent. */
static int on_message(void *ctx, enum picl_match_kind kind, const struct picl_message *m)
{
	struct validator *v = ctx;
	enum severity sev = v->opt->partial ? SEV_WARNING : SEV_ERROR;
	char bytes[48], hint[128], why[192] = "";
	const struct proc *lost;
	uint64_t related;

	if (kind == PICL_MATCH_OK) {
		matched(v, m);
		return 0;
	}
	if (kind == PICL_MATCH_UNMATCHED_SEND && m->broadcast) {
		if (v->lost.open && v->lost.msg.send_mark.offset != m->send_mark.offset)
			flush_broadcast(v);
		lost_broadcast(v, m);
		return 0;
	}
	flush_broadcast(v);
	v->unmatched++;
	if (kind == PICL_MATCH_UNMATCHED_SEND) {
		related = stuck_receive(v, m, hint, sizeof(hint));
		if ((lost = lost_receive(v, m))) {
			sev = SEV_WARNING;
			gap_reason(lost, 0, "the receive", 0, why, sizeof(why));
			if (!related)
				related = lost->gaps.last_mark;
		}
		report(v, sev, R_MESSAGE, m->send_mark.line, m->send_mark.column, related,
		       "send %swith type %d to processor %d is never received%s%s",
		       bytes_text(m->send_length, bytes, sizeof(bytes)), (int)m->type,
		       (int)m->dst_processor, hint, why);
	} else {
		if ((lost = lost_send(v, m))) {
			sev = SEV_WARNING;
			gap_reason(lost, 1, "the send", 0, why, sizeof(why));
		}
		report(v, sev, R_MESSAGE, m->recv_mark.line, m->recv_mark.column,
		       lost ? lost->gaps.first_mark : 0,
		       "receive %swith type %d from processor %d matches no send%s",
		       bytes_text(m->recv_length, bytes, sizeof(bytes)), (int)m->type,
		       (int)m->src_processor, why);
	}
	return 0;
}

/* At the end: the pairs still held, then what was sent and never
 * received, received and never sent. */
static void finish_messages(struct validator *v)
{
	release_held(v, 1);
	if (picl_matcher_finish(v->matcher) < 0) {
		v->nomem = 1;
		v->failure = picl_matcher_strerror(v->matcher);
	}
	flush_broadcast(v);
}

/* ------------------------------------------------------------------------ */
/* Event records: tracing, nesting, statistics input                        */
/* ------------------------------------------------------------------------ */

static enum severity nesting_severity(const struct proc *p)
{
	return p->incomplete ? SEV_WARNING : SEV_ERROR;
}

/*
 * Why an entry-exit finding of p may be no fault of the program, as the
 * end of its message: " (the trace buffer filled at line N, -913: ...)"
 * for an entry at line `line` open when tracing stopped (exit_lost), " (the
 * trace buffer wrapped at line N, -914: ...)" for an exit once a ring had
 * pushed records out (!exit_lost); else `otherwise`.
 */
static const char *why_lost(const struct proc *p, uint64_t line, int exit_lost,
			    const char *otherwise, char *buf, size_t size)
{
	if (exit_lost && p->stop_line > line)
		snprintf(buf, size, " (the trace buffer filled at line %llu, -913: its exit was not traced)",
			 (unsigned long long)p->stop_line);
	else if (!exit_lost && p->wrap_line)
		snprintf(buf, size, " (the trace buffer wrapped at line %llu, -914: its entry may have been pushed out)",
			 (unsigned long long)p->wrap_line);
	else
		return otherwise;
	return buf;
}

static void check_event(struct validator *v, struct proc *p, const struct picl_record *rec)
{
	struct picl_error err;   /* filled by picl_stats_add on error only, and
				    not read: no 300-byte clearing per record */

	if (!p->seen_event) {
		p->seen_event = 1;
		if (rec->processor != PICL_HOST_PROCESSOR &&
		    !(rec->type == PICL_REC_ENTRY && rec->event == EV_TRACING))
			report(v, SEV_ERROR, R_TRACING, rec->mark.line, rec->mark.column, 0,
			       "the first event record of processor %d process %d is %d %d, not the tracing entry -3 -901",
			       (int)rec->processor, (int)rec->process, (int)rec->type,
			       (int)rec->event);
	}
	/* A full buffer that stopped detailed tracing (-913) or wrapped over
	 * its oldest records (-914): the file lacks records the statistics
	 * count, exits of entries before the stop, entries of the first
	 * exits after the wrap. Nesting findings are then warnings, and the
	 * statistics are not checked. */
	if (rec->type == PICL_REC_MARK && (rec->event == -913 || rec->event == -914)) {
		p->incomplete = 1;
		if (rec->event == -913 && !p->stop_line)
			p->stop_line = rec->mark.line;
		if (rec->event == -914 && !p->wrap_line)
			p->wrap_line = rec->mark.line;
	}
	p->last_type = rec->type;
	p->last_event = rec->event;
	p->last_ev_line = rec->mark.line;
	p->last_ev_column = rec->mark.column;
	if (rec->time.scale > p->max_scale)
		p->max_scale = rec->time.scale;
	note_event(v, p, rec->event);
	p->event_records++;
	(void)picltrace_traceevents_n(rec, &p->nprofiled);
	if (picltrace_sends_note(v->sends, rec) < 0)
		v->nomem = 1;

	if ((rec->event == -51 || rec->event == -52) && rec->type == PICL_REC_ENTRY) {
		p->recv_type = rec->nvalues >= 1 && rec->values[0].kind == PICL_VAL_INT &&
			       rec->values[0].v.i >= -1 && rec->values[0].v.i <= INT32_MAX
			       ? (int32_t)rec->values[0].v.i : -2;
		p->recv_line = rec->mark.line;
	} else if ((rec->event == -51 || rec->event == -52) && rec->type == PICL_REC_EXIT &&
		   rec->nvalues == 0 && p->recv_line) {
		p->stuck_type = p->recv_type;
		p->stuck_line = p->recv_line;
	}
	if (rec->type == PICL_REC_ENTRY) {
		struct frame *f;

		if (rec->event == EV_TRACING && p->depth > 0 &&
		    rec->processor != PICL_HOST_PROCESSOR) {
			/* Tracing started again while on: ParaGraph takes the
			 * first -4 -901 for the end of the process. */
			size_t i = openindex_find(&p->by_event, p->stack, sizeof(*p->stack),
						  offsetof(struct frame, event), p->depth,
						  EV_TRACING);

			if (i == OPENINDEX_NOMEM) {
				v->nomem = 1;
				return;
			}
			if (i > 0)
				report(v, SEV_ERROR, R_TRACING, rec->mark.line, rec->mark.column,
				       p->stack[i - 1].line,
				       "tracing entry -3 -901 of processor %d process %d while tracing is on since line %llu (one tracing interval at a time)",
				       (int)rec->processor, (int)rec->process,
				       (unsigned long long)p->stack[i - 1].line);
		}
		if (grow((void **)&p->stack, &p->stack_cap, p->depth + 1, sizeof(*p->stack)) < 0) {
			v->nomem = 1;
			return;
		}
		f = &p->stack[p->depth++];
		f->event = rec->event;
		f->named = 0;
		f->line = rec->mark.line;
		f->column = rec->mark.column;
	} else if (rec->type == PICL_REC_EXIT) {
		/* the innermost open entry of the event */
		size_t i = openindex_find(&p->by_event, p->stack, sizeof(*p->stack),
					  offsetof(struct frame, event), p->depth, rec->event);

		if (i == OPENINDEX_NOMEM) {
			v->nomem = 1;
			return;
		}
		if (i == 0) {
			char why[128];

			report(v, nesting_severity(p), R_ENTRY_EXIT, rec->mark.line,
			       rec->mark.column, p->wrap_line,
			       "exit of event %d has no matching entry on processor %d process %d%s",
			       (int)rec->event, (int)rec->processor, (int)rec->process,
			       why_lost(p, rec->mark.line, 0, "", why, sizeof(why)));
		} else {
			const struct frame *entry = &p->stack[i - 1];

			/* One finding per entry left open: the exits of the
			 * entries around it (every enclosing one up to -901)
			 * and the end do not name it again. */
			if (i < p->depth && !p->stack[p->depth - 1].named) {
				struct frame *inner = &p->stack[p->depth - 1];
				char why[128];

				inner->named = 1;
				report(v, nesting_severity(p), R_ENTRY_EXIT, rec->mark.line,
				       rec->mark.column, inner->line,
				       "exit of event %d closes its entry at line %llu while the entry of event %d at line %llu is still open%s",
				       (int)rec->event, (unsigned long long)entry->line,
				       (int)inner->event, (unsigned long long)inner->line,
				       why_lost(p, inner->line, 1, " (improper nesting)", why, sizeof(why)));
			}
			p->depth = openindex_pop(&p->by_event, p->stack, sizeof(*p->stack),
						 p->depth, i, rec->event);
		}
	}

	if (picl_stats_add(v->stats, rec, &err) == PICL_ERR_NOMEM)
		v->nomem = 1;
}

/* At the end: entries never exited, processes not ended by -4 -901. */
static void finish_processes(struct validator *v)
{
	size_t k, i;

	for (k = 0; k < v->nprocs; k++) {
		struct proc *p = v->procs[k];
		char why[128];

		for (i = 0; i < p->depth; i++) {
			const struct frame *f = &p->stack[i];

			if (openindex_hole(&p->by_event, i) || f->named)
				continue;
			report(v, nesting_severity(p), R_ENTRY_EXIT, f->line, f->column,
			       p->stop_line > f->line ? p->stop_line : 0,
			       "entry of event %d is never exited%s", (int)f->event,
			       why_lost(p, f->line, 1, "", why, sizeof(why)));
		}
		if (p->seen_event && p->processor != PICL_HOST_PROCESSOR &&
		    !(p->last_type == PICL_REC_EXIT && p->last_event == EV_TRACING))
			report(v, SEV_ERROR, R_TRACING, p->last_ev_line, p->last_ev_column, 0,
			       "the last event record of processor %d process %d is %d %d, not the tracing exit -4 -901",
			       (int)p->processor, (int)p->process, (int)p->last_type,
			       (int)p->last_event);
	}
}

/* ------------------------------------------------------------------------ */
/* Statistics records                                                        */
/* ------------------------------------------------------------------------ */

static double pow10_neg(int32_t scale)
{
	double x = 1.0;

	while (scale-- > 0)
		x /= 10.0;
	return x;
}

static double abs_double(double x)
{
	return x < 0 ? -x : x;
}

/* A time in units of 10^-18 s: every time of the format fits, and so do
 * sums of them, exactly. */
typedef __int128 stat_ticks;

static stat_ticks time_ticks(struct picl_time t)
{
	return (stat_ticks)t.mant * pow10_tab[PICL_TIME_MAX_SCALE - t.scale];
}

/* What the events give for a statistic: the time as a double and, while
 * every member's sum is an exact decimal, exactly (ticks). */
struct recomputed {
	double t;
	stat_ticks ticks;
	int exact;
	int64_t count, volume;
	int64_t intervals;      /* entry/exit pairs in the time: the tolerance */
	int volume_undefined;
};

/* Write x (ticks, a multiple of 10^-scale s) with `scale` decimals into
 * buf. 0 if it does not fit a time's 18 digits. */
static int ticks_format(stat_ticks x, int32_t scale, char *buf)
{
	stat_ticks unit = pow10_tab[PICL_TIME_MAX_SCALE - scale];
	struct picl_time t;

	if (x % unit != 0 || x / unit >= pow10_tab[PICL_TIME_MAX_SCALE] ||
	    x / unit <= -pow10_tab[PICL_TIME_MAX_SCALE])
		return 0;
	t.mant = (int64_t)(x / unit);
	t.scale = scale;
	picl_time_format(t, buf);
	return 1;
}

/* Add what the accumulator has for E relative to R on p. 1 if E occurred. */
static int add_member(struct validator *v, const struct proc *p, int32_t rel, int32_t e,
		      struct recomputed *r)
{
	struct picl_time et;
	double mt;
	int64_t mc, mv, mi;

	if (!picl_stats_get(v->stats, p->processor, p->process, rel, e, &mt, &mc, &mv) ||
	    !picl_stats_get_intervals(v->stats, p->processor, p->process, rel, e, &mi))
		return 0;
	r->intervals += mi;
	if (mt >= 0) {
		if (picl_stats_get_time(v->stats, p->processor, p->process, rel, e, &et) &&
		    et.scale >= 0 && et.scale <= PICL_TIME_MAX_SCALE)
			r->ticks += time_ticks(et);
		else
			r->exact = 0;  /* a sum of more than 18 digits */
	}
	if (mt > 0)
		r->t += mt;
	r->count += mc;
	if (mv >= 0) {
		r->volume += mv;
		r->volume_undefined = 0;
	}
	return 1;
}

/* Nothing recomputed yet: sums 0, exact, volume undefined. */
static void recomputed_init(struct recomputed *r)
{
	memset(r, 0, sizeof(*r));
	r->exact = 1;
	r->volume_undefined = 1;
}

/* Add to r what the events give for E relative to R on p, summed over E's
 * members when E is a subset (but the record's own event type, `self`).
 * 1 if E occurred there at all. */
static int recompute(struct validator *v, struct proc *p, int32_t rel, int32_t self, int32_t e,
		     struct recomputed *r)
{
	int found = 0;
	size_t k;

	if (!p)
		return 0;
	if (!is_event_subset(v, e))
		return add_member(v, p, rel, e, r);
	sort_events(p);  /* the members in order: the sums as they were */
	for (k = 0; k < p->nevents; k++) {
		int32_t m = p->events[k];

		if (m == rel || m == self || !picl_defs_matches(v->defs, PICL_SUBSET_EVENTS, e, m))
			continue;
		found |= add_member(v, p, rel, m, r);
	}
	return found;
}

/* The processes a statistics record of processor -1, a processor subset,
 * process -1 or a process subset stands for, into v->members, and their
 * finest timestamp scale into v->members_scale. 0 if one of them has
 * records left out (-913, -914): then the sums are not checked. */
static int members_of(struct validator *v, const struct picl_record *rec)
{
	size_t k;

	v->nmembers = 0;
	v->members_scale = 0;
	for (k = 0; k < v->nprocs; k++) {
		struct proc *p = v->procs[k];

		if (!picl_defs_matches(v->defs, PICL_SUBSET_PROCESSORS, rec->processor,
				       p->processor) ||
		    !picl_defs_matches_on(v->defs, PICL_SUBSET_PROCESSES, p->processor,
					  rec->process, p->process))
			continue;
		if (p->incomplete)
			return 0;
		if (grow((void **)&v->members, &v->members_cap, v->nmembers + 1,
			 sizeof(*v->members)) < 0) {
			v->nomem = 1;
			return 0;
		}
		v->members[v->nmembers++] = p;
		if (p->max_scale > v->members_scale)
			v->members_scale = p->max_scale;
	}
	return 1;
}

/* Keep the pairs of a statistics record of p relative to -1 or a user
 * event, for finish_left_out: those of plain event types. */
static void note_listed(struct validator *v, struct proc *p, const struct picl_record *rec,
			int n)
{
	int k;

	if (rec->event != PICL_WILDCARD && rec->event < 0)
		return;
	if (grow((void **)&p->listed, &p->listed_cap, p->nlisted + (size_t)n,
		 sizeof(*p->listed)) < 0) {
		v->nomem = 1;
		return;
	}
	for (k = 0; k < n; k++) {
		struct stat_listed *l;

		/* the wildcard and subsets are sums, not PICL's own pairs */
		if (v->pairs[k].event == PICL_WILDCARD || is_event_subset(v, v->pairs[k].event))
			continue;
		l = &p->listed[p->nlisted++];
		l->rel = rec->event;
		l->type = rec->type;
		l->event = v->pairs[k].event;
		l->line = rec->mark.line;
		l->column = rec->mark.column;
		l->events_before = p->event_records;
	}
}

/* By relative event type, statistic (time, count, volume), event type,
 * the latest first. */
static int cmp_listed(const void *a, const void *b)
{
	const struct stat_listed *x = a, *y = b;

	if (x->rel != y->rel)
		return x->rel < y->rel ? -1 : 1;
	if (x->type != y->type)
		return x->type > y->type ? -1 : 1;
	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	return (x->line < y->line) - (x->line > y->line);
}

/* Does l[0..n) (sorted by cmp_listed, one relative event type and
 * statistic) hold event type e? */
static int listed_has(const struct stat_listed *l, size_t n, int32_t e)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l[mid].event < e)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && l[lo].event == e;
}

/* Is E's statistic of `type` relative to rel on p positive (PICL would
 * list it)? A time, when more than the tolerance (it would not be 0 at
 * the timestamps' decimals). Its value into given. */
static int positive_stat(struct validator *v, const struct proc *p, int32_t rel, int32_t type,
			 int32_t e, char *given, size_t size)
{
	struct picl_time et;
	double mt;
	int64_t mc, mv, mi;
	int32_t scale = p->max_scale;

	if (!picl_stats_get(v->stats, p->processor, p->process, rel, e, &mt, &mc, &mv) ||
	    !picl_stats_get_intervals(v->stats, p->processor, p->process, rel, e, &mi))
		return 0;
	if (type == PICL_REC_STAT_TIME) {
		uint64_t n_iv = mi > 0 ? (uint64_t)mi : 1;

		if (mt < 0)
			return 0;
		if (scale >= 0 && scale <= PICL_TIME_MAX_SCALE && size >= PICL_TIME_BUFSIZE &&
		    picl_stats_get_time(v->stats, p->processor, p->process, rel, e, &et) &&
		    et.scale >= 0 && et.scale <= PICL_TIME_MAX_SCALE) {
			if (time_ticks(et) <= picltrace_stat_time_tolerance(scale, n_iv, scale))
				return 0;
			picl_time_format(et, given);
			return 1;
		}
		if (mt <= pow10_neg(scale) * (double)n_iv)
			return 0;
		snprintf(given, size, "%.*f", (int)scale, mt);
		return 1;
	}
	if ((type == PICL_REC_STAT_COUNT ? mc : mv) <= 0)
		return 0;
	snprintf(given, size, "%lld", (long long)(type == PICL_REC_STAT_COUNT ? mc : mv));
	return 1;
}

/* Positive statistics that the statistics records of a process leave out,
 * PICL listing every positive one (spec Appendix A), found as stat
 * --compare finds them: at the end, for each relative event type (-1 or a
 * user event) and statistic the process's records give, among the event
 * types of its events relative to it; relative to -1 only of the kind
 * (system, user) of the records' pairs, PICL writing the two in records
 * of their own, and of the user events only those traceevents profiled
 * (picltrace_stats_expected). Told at the record of the group's first
 * pair; not for a group that event records of the process follow (a
 * sample, checked pair by pair as it stands). */
static void finish_left_out(struct validator *v)
{
	static const char *const kind[3] = { "time", "count", "volume" };
	size_t k, g, end, i;

	for (k = 0; k < v->nprocs; k++) {
		struct proc *p = v->procs[k];

		if (p->nlisted == 0 || p->incomplete)
			continue;
		qsort(p->listed, p->nlisted, sizeof(*p->listed), cmp_listed);
		sort_events(p);
		for (g = 0; g < p->nlisted; g = end) {
			const struct stat_listed *first = &p->listed[g];
			int32_t rel = first->rel, type = first->type;
			int t = type == PICL_REC_STAT_TIME ? 0 : type == PICL_REC_STAT_COUNT ? 1 : 2;
			int system = 0, user = 0;
			const struct stat_listed *sys_at = NULL, *user_at = NULL;
			int64_t listed_users;

			for (end = g; end < p->nlisted && p->listed[end].rel == rel &&
				      p->listed[end].type == type; end++) {
				const struct stat_listed *l = &p->listed[end];

				if (l->event >= 0 && !user) {
					user = 1;
					user_at = l;
				} else if (l->event < 0 && !system) {
					system = 1;
					sys_at = l;
				}
			}
			listed_users = p->listed[end - 1].event >= 0
				       ? (int64_t)p->listed[end - 1].event + 1 : 0;
			if (rel >= 0) {       /* every event: one record */
				sys_at = user_at = first;
				system = user = 1;
			}
			for (i = 0; i < p->nevents; i++) {
				int32_t e = p->events[i];
				const struct stat_listed *at = e < 0 ? sys_at : user_at;
				char given[64];

				/* an event record of a subset type (legal, section
				 * 2.3.3) is no event type of its own to list: its
				 * pair would be the members' sum (note_listed) */
				if (e == rel || e == PICL_WILDCARD || !(e < 0 ? system : user) ||
				    at->events_before < p->event_records || is_event_subset(v, e))
					continue;
				if (listed_has(p->listed + g, end - g, e))
					continue;
				if (!positive_stat(v, p, rel, type, e, given, sizeof(given)) ||
				    picltrace_stats_expected(rel, e, p->nprofiled, listed_users) != 1)
					continue;  /* not profiled, or the trace cannot tell */
				report(v, SEV_ERROR, R_STATISTICS, at->line, at->column, 0,
				       "%s of event %d relative to %d is left out, the events give %s "
				       "(PICL lists every positive statistic)",
				       kind[t], (int)e, (int)rel, given);
			}
		}
	}
}

/* Report a statistics finding at the pair's value. */
#define STAT_REPORT(...) \
	do { \
		locate(v, rec, pair->text, &line, &column); \
		report(v, SEV_ERROR, R_STATISTICS, line, column, 0, __VA_ARGS__); \
	} while (0)

static void check_statistics(struct validator *v, const struct picl_record *rec)
{
	struct proc *p;
	int32_t rel = picltrace_stats_relative(rec->event), scale;
	int n, k, checkable, summed;

	if (!rec->values)
		return;
	n = picl_stats_record_pairs(rec, v->pairs, v->pairs_cap);
	if (n > 0 && (size_t)n > v->pairs_cap) {
		if (grow((void **)&v->pairs, &v->pairs_cap, (size_t)n, sizeof(*v->pairs)) < 0) {
			v->nomem = 1;
			return;
		}
		n = picl_stats_record_pairs(rec, v->pairs, v->pairs_cap);
	}
	if (n < 0 && rec->nvalues % 2 != 0 &&
	    value_class(rec->values[rec->nvalues - 1].kind) == VC_INT) {
		/* Values of the right kinds, but an event type left without
		 * its value ("%d" -52, "%d%d%d" -52 8 1): descriptor-data
		 * checks kinds only. */
		const struct picl_value *last = &rec->values[rec->nvalues - 1];
		uint64_t line = rec->mark.line, column = rec->mark.column;

		if (last->text)
			locate(v, rec, last->text, &line, &column);
		report(v, SEV_ERROR, R_STATISTICS, line, column, 0,
		       "%llu data values: the last event type has no value "
		       "(a statistics record holds (event type, value) pairs)",
		       (unsigned long long)rec->nvalues);
		return;
	}
	if (n <= 0)
		return;  /* not (integer, number) pairs: descriptor-data says so */
	p = rec->processor >= 0 ? proc_find(v, rec->processor, rec->process) : NULL;
	/* Only what the accumulator recomputes: relative to -1 (or -901) or
	 * a user event; for a real processor and process (-1 only if the
	 * events used -1 too), or summed over the processes that processor
	 * -1, a processor subset, process -1 or a process subset stand for
	 * (as stat --compare sums them). */
	summed = !(rec->processor >= 0 && rec->process >= -1 &&
		   !(rec->process == PICL_WILDCARD && !(p && p->seen_event)));
	checkable = (rel == PICL_WILDCARD || rel >= 0) &&
		    (summed ? members_of(v, rec) : !(p && p->incomplete));
	scale = summed ? v->members_scale : p ? p->max_scale : 0;
	for (k = 0; k < n; k++) {
		const struct picl_stat_pair *pair = &v->pairs[k];
		const char *ev_text = rec->values[2 * k].text;
		int32_t e = pair->event;
		uint64_t line = 0, column = 0;
		double t, recorded = pair->value;
		int64_t count, volume;
		int found, undefined_volume;
		struct recomputed r;
		char shown[64];

		check_event_value(v, rec, e, ev_text ? ev_text : rec->line);
		if (!checkable || e == PICL_WILDCARD || e == rec->event)
			continue;
		if (e < -1 && !picl_schema_event(v->schema, e) && !is_event_subset(v, e))
			continue;  /* an unknown event type: already reported */
		if (e < -1 && !is_event_subset(v, e)) {
			/* (The predefined subsets of Table 5 produce no
			 * records either, but are sums of members.) */
			if (picltrace_counted_only(picl_schema_event(v->schema, e)))
				continue;
		} else if (rec->type != PICL_REC_STAT_TIME &&
			   picltrace_subset_counted_only(v->schema, picl_reader_defs(v->reader), e)) {
			continue;  /* a sum with such types in it */
		}
		recomputed_init(&r);
		if (summed) {
			size_t i;

			found = 0;
			for (i = 0; i < v->nmembers; i++)
				found |= recompute(v, v->members[i], rel, rec->event, e, &r);
		} else {
			found = recompute(v, p, rel, rec->event, e, &r);
		}
		t = r.t;
		count = r.count;
		volume = r.volume;
		undefined_volume = r.volume_undefined;
		if (pair->text)
			quote_text(pair->text, pair->text_len, shown, sizeof(shown));
		else
			snprintf(shown, sizeof(shown), "%g", recorded);

		if (rec->type == PICL_REC_STAT_TIME) {
			/* marks have no duration: only intervals widen it */
			int64_t n_iv = r.intervals > 0 ? r.intervals : 1;
			struct picl_time pt;
			int parsed;
			double tol;

			if (recorded == -1.0)
				continue;  /* not measured (section 2.3.7) */
			if (!found) {
				if (recorded != 0.0)
					STAT_REPORT(
					       "time of event %d relative to %d is %s, the events give none",
					       (int)e, (int)rec->event, shown);
				continue;
			}
			/* picltrace_stat_time_tolerance says why, and how much
			 * (the double's tolerance below is the same). */
			parsed = pair->text &&
				 picl_time_parse(pair->text, pair->text_len, &pt, NULL) == PICL_OK &&
				 pt.scale >= 0 && pt.scale <= PICL_TIME_MAX_SCALE;
			if (parsed && r.exact && scale >= 0 && scale <= PICL_TIME_MAX_SCALE) {
				/* exactly: doubles lose the last digits of long
				 * timestamps with many decimals */
				stat_ticks d = time_ticks(pt) - r.ticks;
				stat_ticks tt = picltrace_stat_time_tolerance(scale, (uint64_t)n_iv,
									       pt.scale);
				char given[PICL_TIME_BUFSIZE], allowed[PICL_TIME_BUFSIZE];

				if (d >= -tt && d <= tt)
					continue;
				if (ticks_format(r.ticks, scale, given) &&
				    ticks_format(tt, scale, allowed)) {
					STAT_REPORT(
					       "time of event %d relative to %d is %s, the events give %s (tolerance %s)",
					       (int)e, (int)rec->event, shown, given, allowed);
					continue;
				}
			}
			tol = pow10_neg(scale) * (double)n_iv;
			if (parsed && pt.scale < scale)
				tol += 0.5 * pow10_neg(pt.scale);
			if (abs_double(recorded - t) > tol * (1.0 + 1e-9))
				STAT_REPORT(
				       "time of event %d relative to %d is %s, the events give %.*f (tolerance %.*f)",
				       (int)e, (int)rec->event, shown, (int)scale, t, (int)scale, tol);
		} else if (rec->type == PICL_REC_STAT_COUNT) {
			if (recorded == -1.0)
				continue;
			if (recorded != (double)count)
				STAT_REPORT(
				       "count of event %d relative to %d is %s, the events give %lld",
				       (int)e, (int)rec->event, shown, (long long)count);
		} else {
			if (recorded == -1.0 || e == EV_TRACING ||
			    (is_event_subset(v, e) &&
			     picl_defs_matches(v->defs, PICL_SUBSET_EVENTS, e, EV_TRACING)))
				continue;  /* -901's volume is the trace data: not in the events */
			if (!found || undefined_volume) {
				if (recorded != 0.0)
					STAT_REPORT(
					       "volume of event %d relative to %d is %s, the events give none",
					       (int)e, (int)rec->event, shown);
			} else if (recorded != (double)volume) {
				STAT_REPORT(
				       "volume of event %d relative to %d is %s, the events give %lld",
				       (int)e, (int)rec->event, shown, (long long)volume);
			}
		}
	}
	if (checkable && !summed && p)
		note_listed(v, p, rec, n);
}

/* ------------------------------------------------------------------------ */
/* One record                                                                */
/* ------------------------------------------------------------------------ */

/* The rule a reader status belongs to. */
static const char *rule_of_status(int code, int decoding)
{
	switch (code) {
	case PICL_ERR_ALIAS:
		return R_ALIAS;
	case PICL_ERR_DATA:
	case PICL_ERR_DESCRIPTOR:
		return R_DESCRIPTOR;
	case PICL_ERR_RANGE:
		return decoding ? R_DESCRIPTOR : R_SYNTAX;
	default:
		return R_SYNTAX;
	}
}

static void report_reader_error(struct validator *v, const struct picl_error *err,
				int decoding)
{
	report(v, SEV_ERROR, rule_of_status(err->code, decoding),
	       err->mark.line, err->mark.column, 0, "%s", err->problem);
}

/* Timestamps: per process, and globally with --sorted. */
static void check_time(struct validator *v, struct proc *p, const struct picl_record *rec)
{
	char t1[PICL_TIME_BUFSIZE], t2[PICL_TIME_BUFSIZE];
	uint64_t line, column;
	int reported = 0;

	/* A definition applies to the records after it in the file, whatever
	 * its time (sort and merge write them first): not in the time order. */
	if (picl_is_definition_type(rec->type))
		return;
	/* PICL writes a -7 message at once, ahead of the records still in its
	 * buffer (spec section 2.3.1): out of its process's order by design. */
	if (p && rec->type != PICL_REC_MESSAGE) {
		if (p->have_time && picl_time_cmp(rec->time, p->last_time) < 0) {
			AT_FIELD(rec, F_TIME, line, column);
			report(v, SEV_ERROR, R_TIME, line, column, p->last_line,
			       "timestamp %s is earlier than %s at line %llu on processor %d process %d",
			       format_time(rec->time, t1), format_time(p->last_time, t2),
			       (unsigned long long)p->last_line, (int)p->processor,
			       (int)p->process);
			reported = 1;
		}
		p->have_time = 1;
		p->last_time = rec->time;
		p->last_line = rec->mark.line;
	}
	if (v->opt->sorted) {
		if (!reported && v->have_last && picl_time_cmp(rec->time, v->last_time) < 0) {
			AT_FIELD(rec, F_TIME, line, column);
			report(v, SEV_ERROR, R_TIME, line, column, v->last_line,
			       "timestamp %s is earlier than %s of the record at line %llu (the trace is not sorted)",
			       format_time(rec->time, t1), format_time(v->last_time, t2),
			       (unsigned long long)v->last_line);
		}
		v->have_last = 1;
		v->last_time = rec->time;
		v->last_line = rec->mark.line;
	}
}

/*
 * Header records (DESIGN.md point 8, spec section 2.4) are prepended to
 * the trace: one after a record of the body (one that is neither a header
 * record nor a definition) is reported. The spec's word is "should" (as
 * for their timestamps, which should precede the earliest record's:
 * noted here, said by finish_header_time): a warning.
 */
static void check_header(struct validator *v, const struct picl_record *rec)
{
	uint64_t line, column;

	if (!picl_is_header_type(rec->type)) {
		if (!v->in_body && !picl_is_definition_type(rec->type)) {
			v->in_body = 1;
			v->body_line = rec->mark.line;
		}
		if (!v->have_earliest || picl_time_cmp(rec->time, v->earliest) < 0) {
			v->earliest = rec->time;
			v->earliest_line = rec->mark.line;
			v->have_earliest = 1;
		}
		return;
	}
	if (!v->have_header_time || picl_time_cmp(rec->time, v->header_time) > 0) {
		v->header_time = rec->time;
		AT_FIELD(rec, F_TIME, v->header_time_line, v->header_time_column);
		v->have_header_time = 1;
	}
	if (!v->in_body)
		return;
	AT_FIELD(rec, F_TYPE, line, column);
	report(v, SEV_WARNING, R_HEADER_RECORDS, line, column, v->body_line,
	       "header record %d after the record at line %llu, which is not a header record: header records are prepended to the trace (spec section 2.4)",
	       (int)rec->type, (unsigned long long)v->body_line);
}

/*
 * At the end: header records' timestamps precede the earliest record's
 * (spec section 2.4, "should": a warning), so that they stay first when
 * the trace is sorted by time; the same time is let be (a stable sort
 * keeps them first).
 */
static void finish_header_time(struct validator *v)
{
	char a[PICL_TIME_BUFSIZE], b[PICL_TIME_BUFSIZE];

	if (!v->have_header_time || !v->have_earliest ||
	    picl_time_cmp(v->header_time, v->earliest) <= 0)
		return;
	report(v, SEV_WARNING, R_HEADER_RECORDS, v->header_time_line, v->header_time_column,
	       v->earliest_line,
	       "header record time %s is later than the earliest record's, %s at line %llu: header records' times precede the earliest recorded time (spec section 2.4)",
	       format_time(v->header_time, a), format_time(v->earliest, b),
	       (unsigned long long)v->earliest_line);
}

/* The rules of one record, its data decoded when it has some. */
static void check_rules(struct validator *v, struct picl_record *rec)
{
	struct proc *p = NULL;

	if (rec->processor >= 0) {
		p = proc_get(v, rec);
		if (!p)
			return;
		/* A definition's processor is its scope, not a record of that
		 * processor: one the -307 records do not list is no error
		 * (filter -p keeps every definition). */
		if (!p->noted && !picl_is_definition_type(rec->type)) {
			p->noted = 1;
			note_processor(v, rec);
		}
		/* before the matcher takes the record: a pair it makes
		 * with it is judged knowing the gaps up to it */
		if ((rec->type == PICL_REC_MARK || rec->type == PICL_REC_ENTRY ||
		     rec->type == PICL_REC_EXIT || rec->type == PICL_REC_MESSAGE) &&
		    picltrace_gaps_note(&p->gaps, rec))
			v->gaps_changed = 1;
	}
	check_time(v, p, rec);
	check_header(v, rec);
	if (rec->type < 0 && !picl_schema_record(v->schema, rec->type)) {
		uint64_t line, column;

		AT_FIELD(rec, F_TYPE, line, column);
		report(v, SEV_WARNING, R_UNKNOWN_RECORD, line, column, 0,
		       "record type %d is not in the schema; readers skip it", (int)rec->type);
		return;
	}
	check_fields(v, rec);

	if (rec->nfields > 0 && !rec->values && !picl_is_definition_type(rec->type)) {
		int rc = picl_reader_decode(v->reader, rec);

		if (rc == PICL_ERR_NOMEM) {
			v->nomem = 1;
			return;
		}
		if (rc < 0) {
			report_reader_error(v, picl_reader_error(v->reader), 1);
			rec->values = NULL;
			rec->nvalues = 0;
		}
	}
	if (rec->values)
		check_schema_data(v, rec);

	switch (rec->type) {
	case PICL_REC_SUBSET_PROCESSORS:
	case PICL_REC_SUBSET_EVENTS:
		check_definition(v, rec);
		break;
	case PICL_REC_STAT_TIME:
	case PICL_REC_STAT_COUNT:
	case PICL_REC_STAT_VOLUME:
		check_statistics(v, rec);
		break;
	case PICL_REC_MARK:
	case PICL_REC_ENTRY:
	case PICL_REC_EXIT:
		if (p)
			check_event(v, p, rec);
		break;
	}
}

/*
 * A send (entry or mark of -21 or -27) whose destination processor is a
 * processor subset (< -1) is a multicast (Table 2: a value below -1 refers
 * to a subset of processors): the matcher, given the defs
 * (picl_matcher_set_defs), expects a receive on each member but the
 * sender. A destination subset that no -201 record before the send
 * defines is reported here.
 */
static void check_multicast(struct validator *v, const struct picl_record *rec)
{
	uint64_t line, column;

	if ((rec->event != -21 && rec->event != -27) ||
	    (rec->type != PICL_REC_ENTRY && rec->type != PICL_REC_MARK) ||
	    rec->processor < 0 || !rec->values || rec->nvalues < 3 ||
	    rec->values[2].kind != PICL_VAL_INT || rec->values[2].v.i >= -1 ||
	    rec->values[2].v.i < INT32_MIN ||
	    picl_defs_subset_members(v->defs, PICL_SUBSET_PROCESSORS,
				     (int32_t)rec->values[2].v.i, NULL))
		return;
	locate(v, rec, rec->values[2].text, &line, &column);
	report(v, SEV_ERROR, R_SUBSET, line, column, 0,
	       "processor subset %d, the destination of this send, is not defined (no -201 record before this one defines it)",
	       (int)rec->values[2].v.i);
}

/* One record: its own rules, then the messages (a match is reported after
 * the record's other findings). */
static void check_record(struct validator *v, struct picl_record *rec)
{
	int header = picl_matcher_in_header(v->matcher);
	size_t k;

	check_rules(v, rec);
	check_multicast(v, rec);
	if (!v->nomem && picl_matcher_add(v->matcher, rec) < 0) {
		v->nomem = 1;
		v->failure = picl_matcher_strerror(v->matcher);
	}
	if (v->gaps_changed && picltrace_queue_len(&v->held))
		release_held(v, 0);
	v->gaps_changed = 0;
	if (header && !picl_matcher_in_header(v->matcher)) {
		for (k = 0; k < v->nearly; k++)
			check_declared(v, v->early[k].processor, v->early[k].line,
				       v->early[k].column);
		free(v->early);
		v->early = NULL;
		v->nearly = v->early_cap = 0;
	}
}

/* ------------------------------------------------------------------------ */
/* One file                                                                  */
/* ------------------------------------------------------------------------ */

/*
 * The input's name as text output shows it: control characters (C0, DEL)
 * as \xNN, as picltrace's messages write them, so that a file name with an
 * escape sequence or a newline neither drives the terminal nor splits a
 * finding's line (JSON escapes its own).
 */
static void set_shown(struct validator *v)
{
	const unsigned char *p;
	size_t n = 0;
	char *q;

	free(v->shown_copy);
	v->shown_copy = NULL;
	v->shown = v->name;
	for (p = (const unsigned char *)v->name; *p; p++)
		n += *p < 0x20 || *p == 0x7f ? 4 : 1;
	if (n == (size_t)(p - (const unsigned char *)v->name) || !(q = malloc(n + 1)))
		return;   /* (out of memory: the name as it is) */
	v->shown = v->shown_copy = q;
	for (p = (const unsigned char *)v->name; *p; p++) {
		if (*p < 0x20 || *p == 0x7f) {
			snprintf(q, 5, "\\x%02x", *p);
			q += 4;
		} else {
			*q++ = (char)*p;
		}
	}
	*q = '\0';
}

static void reset(struct validator *v)
{
	size_t k;

	free(v->shown_copy);
	v->shown_copy = NULL;

	for (k = 0; k < v->nprocs; k++)
		proc_free(v->procs[k]);
	free(v->procs);
	free(v->members);
	v->members = NULL;
	v->nmembers = v->members_cap = 0;
	v->procs = NULL;
	v->nprocs = v->procs_cap = 0;
	intmap_free(&v->proc_of);
	v->last_proc = NULL;
	free(v->fast);
	v->fast = NULL;
	intmap_free(&v->processors);
	free(v->early);
	v->early = NULL;
	v->nearly = v->early_cap = 0;
	free(v->uses);
	v->uses = NULL;
	v->nuses = v->uses_cap = 0;
	intmap_free(&v->use_of);
	picl_matcher_free(v->matcher);
	v->matcher = NULL;
	v->lost.open = 0;
	picltrace_sends_free(v->sends);
	v->sends = NULL;
	picltrace_queue_free(&v->held);
	for (k = 0; k < v->ndeferred; k++)
		free(v->deferred[k].message);
	v->ndeferred = 0;
	v->deferred_seq = 0;
	v->deferred_bytes = 0;
	if (v->spill_fd >= 0)
		close(v->spill_fd);
	v->spill_fd = -1;
	free(v->fw);
	v->fw = NULL;
	v->spill_end = 0;
	v->nruns = 0;
	v->have_cutoff = 0;
	picl_stats_free(v->stats);
	v->stats = NULL;
	picl_reader_free(v->reader);
	v->reader = NULL;
	v->defs = NULL;
	v->records = v->errors = v->warnings = v->listed = v->unmatched = 0;
	v->have_last = 0;
	v->in_body = v->have_header_time = v->have_earliest = 0;
	v->deferring = 0;
	v->nomem = 0;
	v->failure = NULL;
}

/* Validate one input. Returns 0 (valid), 1 (errors) or 2 (unreadable). */
static int validate_file(struct validator *v, const char *path)
{
	struct picl_reader_options ro = {
		PICL_READ_RAW | PICL_READ_PARALLEL | PICL_READ_DECODE_AHEAD, 0, 0
	};
	struct picl_error err = { 0 };
	struct picl_record rec;
	struct picltrace_progress prog;
	char problem[PICL_PROBLEM_MAX + 64], hint[128], where[48] = "";
	struct picl_mark at = { 0 };
	const char *failed = NULL;
	int rc, status;

	v->name = strcmp(path, "-") == 0 ? "<stdin>" : path;
	set_shown(v);
	picltrace_stdin_hint(CMD, path);
	v->reader = picl_reader_open(path, &ro, &rc, &err);
	if (!v->reader) {
		picltrace_error(CMD, "%s: %s", *v->name ? v->name : "''", err.problem);
		if (v->opt->json) {
			fputs("{\"file\":", v->out);
			json_string(v->out, v->name);
			fputs(",\"error\":", v->out);
			json_string(v->out, err.problem);
			fputs("}\n", v->out);
		}
		return 2;
	}
	v->defs = picl_reader_defs(v->reader);
	begin_output(v);
	v->stats = picl_stats_new();
	v->matcher = picl_matcher_new(on_message, v);
	v->sends = picltrace_sends_new();
	if (v->matcher) {
		picl_matcher_set_broadcast_detail(v->matcher, LOST_LISTED);
		picl_matcher_set_defs(v->matcher, v->defs);
	}
	if (!v->stats || !v->matcher || !v->sends ||
	    picltrace_matcher_memory(v->matcher, v->opt->memory, v->opt->tmpdir) < 0) {
		failed = "out of memory";
		goto out;
	}
	picl_record_init(&rec);
	picltrace_progress_init(&prog, "validate",
				picltrace_progress_total(path, v->reader),
				v->opt->quiet || v->opt->json);
	v->prog = &prog;
	for (;;) {
		if ((v->records & 0x3ffff) == 0)
			picltrace_progress(&prog, picl_reader_offset(v->reader));
		rc = picl_reader_next(v->reader, &rec);
		if (rc == PICL_END)
			break;
		if (rc < 0) {
			const struct picl_error *e = picl_reader_error(v->reader);

			if (picl_reader_error_is_fatal(v->reader) || rc == PICL_ERR_NOMEM) {
				snprintf(problem, sizeof(problem), "%s", e->problem);
				if (e->mark.line > 0) {
					snprintf(where, sizeof(where), ":%llu:%llu",
						 (unsigned long long)e->mark.line,
						 (unsigned long long)e->mark.column);
					at = e->mark;
				}
				failed = problem;
				break;
			}
			v->records++;
			report_reader_error(v, e, 0);
		} else {
			v->records++;
			check_record(v, &rec);
		}
		if (v->nomem) {
			failed = v->failure ? v->failure : "out of memory";
			break;
		}
	}
	picltrace_progress_done(&prog);
	v->prog = NULL;
	if (!failed && v->records == 0)   /* (an empty file, or only comments) */
		report(v, SEV_ERROR, R_TRACING, 1, 1, 0,
		       "the trace has no records: every process's first is its tracing entry -3 -901");
	if (!failed) {
		v->deferring = 1;
		finish_processes(v);
		finish_header_time(v);
		finish_left_out(v);
		finish_messages(v);
		flush_deferred(v);
		if (v->nomem)
			failed = v->failure ? v->failure : "out of memory";
	}
out:
	if (failed)
		picltrace_error(CMD, "%s%s: %s", v->name, where, failed);
	hint[0] = '\0';
	if (!v->opt->partial && v->unmatched > 0 && v->processors.n == 1)
		snprintf(hint, sizeof(hint),
			 "all records come from processor %d, --partial may apply",
			 (int)v->a_processor);
	end_output(v, hint[0] ? hint : NULL, failed, &at);
	status = failed ? 2 : v->errors ? 1 : 0;
	reset(v);
	return status;
}

/* ------------------------------------------------------------------------ */
/* The command                                                               */
/* ------------------------------------------------------------------------ */

static int bad_usage(void)
{
	fputs(validate_usage, stderr);
	return 2;
}

int cmd_validate(int argc, const char **argv)
{
	enum { OPT_SORTED = 256, OPT_PARTIAL, OPT_SCHEMA, OPT_MAX_ERRORS, OPT_FORMAT, OPT_MEMORY };
	static const struct option longopts[] = {
		{ "sorted", no_argument, NULL, OPT_SORTED },
		{ "partial", no_argument, NULL, OPT_PARTIAL },
		{ "schema", required_argument, NULL, OPT_SCHEMA },
		{ "max-errors", required_argument, NULL, OPT_MAX_ERRORS },
		{ "memory", required_argument, NULL, OPT_MEMORY },
		{ "tmpdir", required_argument, NULL, 'T' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct options opt = { 0, 0, 0, 0, 1000, 0, NULL };
	struct validator v;
	struct picl_error err = { 0 };
	const char **schemas = NULL;
	int nschemas = 0, c, i, status = 0;
	uint64_t memory;
	int64_t n;

	memset(&v, 0, sizeof(v));
	v.held.size = sizeof(struct picl_message);
	v.spill_fd = -1;
	v.opt = &opt;
	v.out = stdout;
	schemas = calloc((size_t)argc + 1, sizeof(*schemas));
	if (!schemas) {
		picltrace_error(CMD, "out of memory");
		return 2;
	}
	/* getopt_long says what is wrong with an option, in the words every
	 * command uses */
	optind = 1;
	while ((c = getopt_long(argc, (char *const *)argv, "qhT:", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_SORTED:
			opt.sorted = 1;
			break;
		case OPT_PARTIAL:
			opt.partial = 1;
			break;
		case OPT_SCHEMA:
			schemas[nschemas++] = optarg;
			break;
		case OPT_MAX_ERRORS:
			/* (in the words of every command's numeric options) */
			if (picltrace_int_option(CMD, "--max-errors", optarg, 0, INT64_MAX,
						 "a number 0 or more", &n) < 0) {
				status = bad_usage();
				goto cleanup;
			}
			opt.max_errors = (uint64_t)n;
			break;
		case OPT_MEMORY:
			if (picltrace_parse_memory(CMD, optarg, &opt.memory) < 0) {
				status = bad_usage();
				goto cleanup;
			}
			break;
		case 'T':
			opt.tmpdir = optarg;
			break;
		case 'q':
			opt.quiet = 1;
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "text") == 0) {
				opt.json = 0;
			} else if (strcmp(optarg, "json") == 0) {
				opt.json = 1;
			} else {
				picltrace_error(CMD, "--format takes text or json, not '%s'", optarg);
				status = bad_usage();
				goto cleanup;
			}
			break;
		case 'h':
			fputs(validate_usage, stdout);
			fputs(validate_help, stdout);
			status = 0;
			goto cleanup;
		default:
			status = bad_usage();
			goto cleanup;
		}
	}
	if (optind >= argc) {
		picltrace_error(CMD, "no trace given");
		status = bad_usage();
		goto cleanup;
	}

	v.schema = picl_schema_load_default(&err);
	if (!v.schema) {
		picltrace_report(CMD, &err);
		status = 2;
		goto cleanup;
	}
	for (i = 0; i < nschemas; i++) {
		if (picl_schema_extend(v.schema, schemas[i], &err) < 0) {
			picltrace_report(CMD, &err);
			status = 2;
			goto cleanup;
		}
	}
	/* findings made at the end: a quarter of --memory, then the file */
	memory = (opt.memory ? opt.memory : picltrace_default_memory()) / 4;
	v.deferred_budget = memory > SIZE_MAX ? SIZE_MAX : (size_t)memory;
	for (i = optind; i < argc; i++) {
		int rc = validate_file(&v, argv[i]);

		if (rc > status)
			status = rc;
	}
	errno = 0;
	if (fflush(v.out) != 0 || ferror(v.out)) {
		picltrace_error(CMD, "<stdout>: cannot write: %s",
				errno ? strerror(errno) : "a write failed");
		status = 2;
	}

cleanup:
	reset(&v);
	for (i = 0; (size_t)i < v.ncompiled; i++)
		picl_descriptor_free(v.compiled[i].desc);
	free(v.compiled);
	free(v.deferred);
	free(v.runs);
	free(v.pairs);
	picl_schema_free(v.schema);
	free(schemas);
	return status;
}
