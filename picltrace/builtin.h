/*
 * builtin.h - the subcommands of picltrace and the few helpers they share.
 *
 * Each subcommand lives with its component (git's builtin/ model) and
 * exposes one int cmd_NAME(int argc, const char **argv); argv[0] is the
 * subcommand's name. The return value is the exit status.
 */
#ifndef PICLTRACE_BUILTIN_H
#define PICLTRACE_BUILTIN_H

#include "picl-trace.h"

int cmd_cat(int argc, const char **argv);
int cmd_filter(int argc, const char **argv);
int cmd_merge(int argc, const char **argv);
int cmd_plot(int argc, const char **argv);
int cmd_sort(int argc, const char **argv);
int cmd_stat(int argc, const char **argv);
int cmd_sync(int argc, const char **argv);
int cmd_validate(int argc, const char **argv);

/*
 * Parse a size such as "512M", "2G", "1024" (bytes; suffixes K M G T are
 * powers of 1024, an optional B may follow). 0 on success, -1 if malformed,
 * -2 if more than 2^64 - 1 bytes.
 */
int picltrace_parse_size(const char *s, uint64_t *out);

/*
 * The one reading of a whole number in an option's argument s[0..len), for
 * every command: an optional '-', then decimal digits and nothing else (no
 * '+', no blanks before or after, not empty), in [lo, hi]. 0 with *out set,
 * -1 if it is not such a number, -2 if it is one out of [lo, hi] (or of 64
 * bits). strtol's leniency ("+4", " 4", "0x10" partly) is what it refuses.
 */
int picltrace_parse_int(const char *s, size_t len, int64_t lo, int64_t hi, int64_t *out);

/* The same for option opt (its name, "--bins") of cmd: 0 with *out set, or
 * -1 after reporting "opt takes TAKES, not 'ARG'". */
int picltrace_int_option(const char *cmd, const char *opt, const char *arg, int64_t lo,
			 int64_t hi, const char *takes, int64_t *out);

/* --level=N (zstd, 1..19) and --memory=SIZE (at least 1M): 0 with the value
 * set, or -1 after reporting the bad argument for cmd. */
int picltrace_parse_level(const char *cmd, const char *arg, int *level);
int picltrace_parse_memory(const char *cmd, const char *arg, uint64_t *bytes);

/* A time option (opt is its name, "--from"): 0 with *t set, or -1 after
 * reporting for cmd a time out of range or, when the text is not a
 * number (a '+' sign included, as picltrace_parse_int), that opt takes
 * `expected`. */
int picltrace_parse_time(const char *cmd, const char *opt, const char *arg,
			 const char *expected, struct picl_time *t);

/* The memory this process may use (limits.c), each UINT64_MAX when there
 * is no such limit: physical memory, the least limit of its memory
 * cgroups (cgroup_file names the file it was read from), RLIMIT_AS and
 * RLIMIT_DATA; usable is the least of them. */
struct picltrace_memory_limits {
	uint64_t physical, cgroup, as, data, usable;
	char cgroup_file[4096 + 64 + 32];
};
void picltrace_memory_limits(struct picltrace_memory_limits *l);

/* The least limit of the memory cgroups from the process's own up to its
 * hierarchy's mount point (v1 memory.limit_in_bytes; v2 memory.max and
 * memory.high), UINT64_MAX if none; from (fsize bytes) gets the file it
 * was read from. The process's cgroups and the mounts are read from the
 * files named (/proc/self/cgroup, /proc/self/mountinfo; others in
 * t/unit/test-limits, for the layouts this machine does not have). */
uint64_t picltrace_cgroup_limit(const char *cgroup, const char *mountinfo, char *from,
				size_t fsize);

/* The default --memory: a quarter of the usable memory above, at least
 * 64 MiB (or half of a smaller limit). */
uint64_t picltrace_default_memory(void);

/* Bound what matcher m keeps in memory of the messages waiting for a
 * partner to `memory` bytes (--memory; 0: the default above), the rest
 * going to a temporary file in `tmpdir` (--tmpdir; NULL: $TMPDIR, else
 * /tmp): picl_matcher_set_memory. PICL_OK or PICL_ERR_NOMEM. */
int picltrace_matcher_memory(struct picl_matcher *m, uint64_t memory, const char *tmpdir);

/* The directory temporary files go to: tmpdir, unless NULL or "", else
 * $TMPDIR, unless unset or "", else /tmp (for messages that name it). */
const char *picltrace_tempdir(const char *tmpdir);

/* A new unlinked temporary file in picltrace_tempdir(tmpdir), named after
 * cmd: its descriptor, or -1 after saying why. */
int picltrace_tempfile(const char *cmd, const char *tmpdir);

/* Write len bytes at p to byte off of temporary file fd (writing), or
 * read them back: 0, or -1 after saying why for cmd. */
int picltrace_file_io(const char *cmd, int fd, void *p, size_t len, uint64_t off,
		      int writing);

/* Give bytes [off, off + len) of temporary file fd back to the file
 * system, where it can (the file keeps its size). */
void picltrace_release(int fd, uint64_t off, uint64_t len);

/* Copy everything `from` holds (called `what` in messages: a pipe, a
 * terminal) to a new picltrace_tempfile, rewound, so that it can be read
 * more than once: its descriptor, or -1 after saying why. */
int picltrace_spool(const char *cmd, int from, const char *what, const char *tmpdir);

/* After a bad option or argument has been reported: the synopsis of a
 * command's usage text (up to its first blank line, the options left to
 * --help) on standard error; 2, the exit status of bad usage. */
int picltrace_bad_usage(const char *usage);

/* Before cmd reads path: when that is standard input ("-") and both it and
 * standard error are a terminal, say once that the command waits for a
 * trace typed there (Ctrl-D ends it), so that `picltrace stat` given no
 * FILE does not seem to hang. */
void picltrace_stdin_hint(const char *cmd, const char *path);

/* 1 if the regular file `out` is one of the n inputs ("-": standard input,
 * which may be that file too). */
int picltrace_same_file(const char *out, const char *const *inputs, int n);

/* 0 if no regular file is two of the n inputs (under one name or two:
 * "-" standing for the file standard input reads, a link, another path),
 * else -1 after saying which two for cmd: inputs that are the pieces of
 * one trace (merge's per-node files, stat's) would count every record of
 * that file twice. */
int picltrace_distinct_inputs(const char *cmd, const char *const *inputs, int n);

/* 0 if path may be replaced by --in-place: a file, not standard input, nor
 * a FIFO or a device (read to their end, then written: a FIFO would wait
 * for a reader for ever). -1 after saying why for cmd. A path that cannot
 * be looked at passes: opening it says why. */
int picltrace_in_place_ok(const char *cmd, const char *path);

/* The output of a command that rewrites a trace (cat, filter, sort): with
 * --in-place (in_place), the one input, which picltrace_in_place_ok
 * accepts, and no --output given; else *output, which must not be one of
 * the inputs. 0 with *output set, or -1 after saying why for cmd. */
int picltrace_rewrite_output(const char *cmd, int in_place, int output_given,
			     const char *const *inputs, int ninputs, const char **output);

/* Whether an output trace named path is to be zstd-compressed: -z was
 * given (z), or --level (level > 0: a level means nothing else), or the
 * name ends in ".zst" (plain text under that name would be a lie). */
int picltrace_wants_zstd(const char *path, int z, int level);

/* Open an output trace (picl_writer_open); on failure report it for cmd
 * and return NULL. Its temporary file is removed if the command is killed
 * by SIGINT, SIGTERM or SIGHUP before it is renamed into place. zstd to a
 * terminal (standard output, or a terminal named by path) is refused, as
 * zstd(1) refuses it. */
struct picl_writer *picltrace_open_output(const char *cmd, const char *path,
					  int compress, int level);

/* Remember a temporary file to unlink if the command is killed by SIGINT,
 * SIGTERM or SIGHUP (the path is copied; at most 8 at once), and forget it
 * once it was renamed into place or removed. */
void picltrace_remember_temp(const char *path);
void picltrace_forget_temp(const char *path);
/* While `path` is mapped into memory (NULL: no longer), a SIGBUS (the file
 * shrank) removes the remembered temporary files and exits with 2 after
 * saying so, for cmd. */
void picltrace_mapped_input(const char *cmd, const char *path);

/* A progress line on stderr, shown only when stderr is a terminal and the
 * command was not asked to be quiet; updated at most 4 times a second.
 * `what` names the command and what it is doing ("sort: reading"): the
 * line reads "picltrace sort: reading: 12.5% ...", as the command's
 * messages begin "picltrace sort: ". */
struct picltrace_progress {
	const char *what;
	uint64_t total;          /* bytes expected, 0 if unknown */
	int enabled, shown;
	int onscreen;            /* the line is on the terminal now */
	double start, last;
};
void picltrace_progress_init(struct picltrace_progress *p, const char *what,
			     uint64_t total, int quiet);
void picltrace_progress(struct picltrace_progress *p, uint64_t done);
void picltrace_progress_done(struct picltrace_progress *p);
/* Erase the progress line (if shown) before printing something else on
 * the terminal; the next update draws it again. */
void picltrace_progress_clear(struct picltrace_progress *p);
/* The progress total of reader r of path: the file's size when it is a
 * plain regular file (the reader's offsets then run up to it), else 0. */
uint64_t picltrace_progress_total(const char *path, const struct picl_reader *r);

/*
 * Length of the valid UTF-8 sequence at s (n bytes left, n > 0), or 0: an
 * overlong form, a surrogate or a code point above U+10FFFF is not valid.
 * Inline: the text cleaners of stat and validate call it for every byte.
 */
static inline size_t picltrace_utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len, i;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

/* Print "picltrace CMD: path:line:column: problem" on stderr. */
void picltrace_report(const char *cmd, const struct picl_error *err);

/*
 * Where field k (0: the record type, 2: the time, ...) of rec, the record r
 * gave last, stood in the input, for a message's column: blanks and
 * continuations between fields, a quoted control string as one field. The
 * record's start when its text is not at hand or it has no field k.
 */
void picltrace_field_mark(const struct picl_reader *r, const struct picl_record *rec,
			  unsigned k, struct picl_mark *at);

/*
 * Several FILEs read as one trace: the definitions (-6 aliases, -201..-203
 * subsets) of the files read so far, carried into the reader of the next.
 * Note every record read (only definitions are kept, as their text), and
 * apply the carry to each new reader before its first record. A carry
 * starts zeroed; free it with picltrace_carry_free.
 *
 * The caller sets `more` before each input: whether another input follows.
 * Nothing is kept while it is 0 (the last input's definitions hold in no
 * other), and a definition replaces the text of the earlier one of the same
 * subset (kind, id) or alias (number, event, processor, process), so what
 * is kept is bounded by the definitions in force, which the library caps.
 */
struct picltrace_carry_def;
struct picltrace_carry {
	int more;                          /* another input follows */
	char *text;                        /* kept records, dead ones among them */
	size_t len, cap, dead;             /* dead: bytes of replaced records */
	struct picltrace_carry_def *defs;  /* one per definition key */
	size_t ndefs, defs_cap;
	uint32_t *slots;                   /* hash table: 1 + index into defs */
	size_t nslots;
	uint32_t first, last;              /* 1 + index: in the order last made */
};
int picltrace_carry_keep(struct picltrace_carry *c, const struct picl_record *rec);
/* 0, or -1 when out of memory; called on every record, so the test for a
 * definition is here, and inline. */
static inline int picltrace_carry_note(struct picltrace_carry *c, const struct picl_record *rec)
{
	if (!c->more || (rec->type != PICL_REC_DESCRIPTOR &&
			 (rec->type < PICL_REC_SUBSET_EVENTS ||
			  rec->type > PICL_REC_SUBSET_PROCESSORS)))
		return 0;
	return picltrace_carry_keep(c, rec);
}
/* 0, or -1 after reporting for cmd (out of memory). */
int picltrace_carry_apply(struct picltrace_carry *c, const char *cmd, struct picl_reader *r);
void picltrace_carry_free(struct picltrace_carry *c);

/* An event type PICL counts but never writes records for (probe0's -53
 * and -54, recvstatus0's -59, who0's -13, ...: Tables 7-8, "produces:
 * none" in the schema): nothing can recompute its statistics from the
 * events (validate's statistics check and stat --compare skip it). The
 * caller rules out event subsets, which are sums of members. */
static inline int picltrace_counted_only(const struct picl_schema_event *se)
{
	return se && (se->kinds & (1 << 2)) && !(se->kinds & 3);
}

/* 1 if `event` is an event subset that takes in a type PICL only counts
 * (probe0's -53 in -1013, the receive events): its counts and volumes
 * cannot be recomputed either, its times can. */
int picltrace_subset_counted_only(const struct picl_schema *schema,
				  const struct picl_defs *defs, int32_t event);

/* The event type the statistics of a record relative to `rel` are
 * recomputed relative to (validate's statistics check, stat --compare):
 * -901, the tracing event that encloses the whole process, is the same as
 * -1 (spec §2.3.3); any other is itself. */
static inline int32_t picltrace_stats_relative(int32_t rel)
{
	return rel == -901 ? -1 : rel;
}

/*
 * Must a statistics record relative to `rel` list event type `event`,
 * whose statistic the events show positive (validate's statistics check,
 * stat --compare)? PICL lists every positive statistic (spec Appendix A),
 * but traceevents(n, ...) profiles user event types 0 to n-1 only: the
 * records relative to -1 leave out the user events from n on (those
 * relative to a user event list every event). `nprofiled` is n from the
 * process's -902 entry (traceevents' record), or -1 when the trace has
 * none (traceevents called before tracenode, or tracing events not
 * traced); `listed` is 1 + the largest user event type the records of the
 * process relative to -1 of that statistic list (0 if none): those were
 * profiled, and so were all below them. Returns 1 (it must: leaving it
 * out is a difference), 0 (it was not profiled), or -1 (the trace cannot
 * tell: no -902 record and `event` beyond the user types listed).
 */
int picltrace_stats_expected(int32_t rel, int32_t event, int64_t nprofiled, int64_t listed);

/* qsort/bsearch order of int32_t values, ascending. */
int picltrace_cmp_i32(const void *a, const void *b);

/* If rec is a -902 entry (traceevents) with its first value an integer:
 * 1 with *n that value, the `nprofiled` above; else 0. */
static inline int picltrace_traceevents_n(const struct picl_record *rec, int64_t *n)
{
	if (rec->type != PICL_REC_ENTRY || rec->event != -902 || !rec->values ||
	    rec->nvalues < 1 || rec->values[0].kind != PICL_VAL_INT)
		return 0;
	*n = rec->values[0].v.i;
	return 1;
}

/*
 * How far a recorded statistics time may be from the exact sum of the
 * events' intervals (validate's statistics check, stat --compare), in
 * units of 10^-18 s: each interval is the difference of two timestamps
 * rounded to 10^-scale s and PICL summed the intervals before rounding, so
 * less than one unit per interval (n: the entry/exit pairs summed, as
 * picl_stats_get_intervals counts them; a mark has no duration and adds
 * no rounding), plus half a unit of the statistic's
 * own last digit when it is written with fewer decimals than the
 * timestamps. scale and decimals are 0 to 18.
 */
__int128 picltrace_stat_time_tolerance(int32_t scale, uint64_t n, int32_t decimals);

/*
 * Where a process's trace lacks records because its trace buffer filled
 * (spec Table 13), for the message findings of validate and stat, which
 * must not blame the program for a partner the trace never had. What
 * PICL's runtime writes (picl-rt/trace.c):
 *
 * - tracenode's flush 0: a -913 mark when the buffer fills; from then on
 *   nothing is written (tracemsg's -911 entry and exit and its -7 message
 *   aside: written at once) until traceflush writes the buffer out and
 *   tracing resumes with its -912 entry, or tracing ends with the -901
 *   exit. The gap runs from the mark to the next record that is not
 *   tracemsg's.
 * - flush -1: the buffer is a ring; the first record it has no room for
 *   adds a -914 mark, and every record pushes out the oldest. The gap is
 *   before the first record of that fill that was kept: the records the
 *   buffer took since it was last written out (after the -901 entry, a
 *   -912 entry, tracemsg's records) were pushed out oldest first. The
 *   -914 mark comes before that record when it was pushed out too (kept
 *   aside with the -901 entry and written first), but after it, among
 *   the records kept, when it was not: a reader then learns of the gap
 *   only after records that follow it.
 *
 * Feed every record of one (processor, process) to picltrace_gaps_note,
 * in the file's order (a process's records are in time order); a zeroed
 * struct is a process with no gap. The message findings the gaps explain
 * (validate's warnings, stat's counts) are: a send never received when
 * the receiver has a gap ending at or after the first send to it
 * (picltrace_gaps_end_from, picltrace_sends_first: FIFO matching leaves
 * the last sends of a channel unmatched, whichever receives are missing);
 * a receive matching no send when the sender has a gap starting at or
 * before it (picltrace_gaps_start_by); a matched pair when either side
 * has a gap before its record (picltrace_gaps_before: a send or a
 * receive of the channel may be in it, and every pair after it be wrong).
 */
struct picltrace_gaps {
	int ngaps;
	/* the first gap: the line of the record it follows (0: the process's
	 * first records went), that record's time (none: -inf), its mark */
	uint64_t first_line, first_mark;
	int first_from_start;
	struct picl_time first_time;
	int32_t first_kind;             /* -913 or -914 */
	/* the gap that ends latest: its end (a record's time; open: the
	 * trace ends in it), its mark */
	int last_open;
	struct picl_time last_end;
	uint64_t last_mark;
	int32_t last_kind;
	/* the buffer's fill: the record it follows, the first record in it */
	int have_fill, have_first;
	uint64_t fill_line;
	struct picl_time fill_time, first_in_fill_time;
	int stopped;                    /* after a -913, until tracing resumes */
	int pending;                    /* a -914 before any kept record of its
					   fill: the gap ends at the next */
};

/* Returns 1 if the record ended a fill or started a gap (what
 * picltrace_gaps_settled says may have changed), else 0. */
int picltrace_gaps_note(struct picltrace_gaps *g, const struct picl_record *rec);

/* 1 if records of the process may be missing before its record at `line`
 * (a gap starts before it), so that FIFO matching may have paired it with
 * the wrong partner. */
static inline int picltrace_gaps_before(const struct picltrace_gaps *g, uint64_t line)
{
	return g->ngaps && g->first_line < line;
}

/* 1 if the answer of picltrace_gaps_before for `line` can no longer
 * change: a gap starts before it, or the fill of the buffer that held it
 * was written out (a -914 after it would be another fill's). */
static inline int picltrace_gaps_settled(const struct picltrace_gaps *g, uint64_t line)
{
	return picltrace_gaps_before(g, line) || (g->have_fill && g->fill_line > line);
}

/* 1 if a gap of the process starts at or before `t`: a send made then may
 * be missing. */
int picltrace_gaps_start_by(const struct picltrace_gaps *g, struct picl_time t);

/* 1 if a gap of the process ends at or after `t` (or never ends): a
 * receive made then may be missing. */
int picltrace_gaps_end_from(const struct picltrace_gaps *g, struct picl_time t);

/*
 * The earliest send to each processor, and to a group (a broadcast, a
 * multicast: any processor), from the send records (entries or marks of
 * -21, -27, decoded) fed to picltrace_sends_note: a gap of a receiver's
 * trace that ended before the first send to it held none of its receives.
 * NULL from _new when out of memory; _note returns -1 then.
 */
struct picltrace_sends;
struct picltrace_sends *picltrace_sends_new(void);
int picltrace_sends_note(struct picltrace_sends *s, const struct picl_record *rec);
/* The earliest send to `processor` that was noted, or `t` if earlier. */
struct picl_time picltrace_sends_first(const struct picltrace_sends *s, int32_t processor,
				       struct picl_time t);
void picltrace_sends_free(struct picltrace_sends *s);

/*
 * A queue of items of one size, oldest first: the matched pairs validate
 * and stat hold back while a ring's -914 may still show records missing
 * before one of their sides (picltrace_gaps_settled). Room at the front is
 * made only once it is half the array (amortised O(1)): a memmove of all
 * waiting per item, 4096 of them in any trace without traceflush, cost
 * stat a third more CPU. A zeroed struct with `size` set is empty.
 */
struct picltrace_queue {
	char *v;
	size_t size;                    /* of an item */
	size_t head, n, cap;            /* the items are v[head..n), in items */
};

/* Room for one more item at the end (to be filled by the caller), or NULL
 * when out of memory. */
void *picltrace_queue_push(struct picltrace_queue *q);

/* The oldest item, or NULL when the queue is empty. */
static inline void *picltrace_queue_front(const struct picltrace_queue *q)
{
	return q->head < q->n ? q->v + q->head * q->size : NULL;
}

static inline size_t picltrace_queue_len(const struct picltrace_queue *q)
{
	return q->n - q->head;
}

/* Take the oldest item off (it stays readable until the next push). */
void picltrace_queue_pop(struct picltrace_queue *q);

/* Free the items; the queue stays usable, empty, with its size. */
void picltrace_queue_free(struct picltrace_queue *q);

/* Print "picltrace CMD: " and a formatted message on stderr. */
void picltrace_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
