/*
 * profile.h - the model that `picltrace stat` and `picltrace plot` share:
 * one pass over a trace gives, per process (processor, process) and in
 * bounded memory,
 *  - the statistics PICL writes at traceexit (time, count and volume of
 *    every event type, relative to the whole process and to every enclosing
 *    user event type), kept by libpicl-trace's picl_stats accumulator and
 *    read out here as cells, with subset sums (spec §2.3.7);
 *  - ParaGraph's utilization categories: the time a process spent busy,
 *    in overhead and idle (prof_event_category says which event types are
 *    which);
 *  - message statistics (matched sends and receives, via picl_matcher),
 *    per processor pair if asked for;
 *  - an estimate of the critical path (see profile.c);
 *  - for plots, a timeline of categories: exact intervals while they are
 *    few, time bins once they are many;
 *  - event labels (-5), event subsets (-203) and, for --compare, the
 *    statistics records the trace already holds.
 *
 * Call order: profile_new, profile_read (once per input, in order; the
 * inputs form one trace), profile_finish, then read the struct profile
 * fields and call the helpers below; profile_free.
 *
 * Times are kept exactly as prof_ticks (seconds times 10^18 in a 128-bit
 * integer: every timestamp of the format fits, and sums stay exact), the
 * statistics cells too (picl_stats_get_time; a per-process sum of more
 * than 18 digits comes from picl_stats_get's double).
 */
#ifndef PICL_STATS_PROFILE_H
#define PICL_STATS_PROFILE_H

#include "builtin.h"
#include "intmap.h"
#include "openindex.h"
#include "picl-trace.h"

#include <stddef.h>
#include <stdint.h>

typedef __int128 prof_ticks;
struct prof_label;
#define PROF_TICK_SCALE 18

/* ParaGraph's utilization categories. */
enum prof_cat {
	PROF_BUSY = 0,
	PROF_OVERHEAD = 1,
	PROF_IDLE = 2,
	PROF_NCAT = 3
};

/* "busy", "overhead", "idle". */
const char *prof_cat_name(int cat);

/*
 * What time inside event type `event` counts as: PROF_IDLE (blocked
 * waiting: -31, -52, -56, -61, and the generic idle -601), PROF_OVERHEAD
 * (other interprocess communication -11..-200, file i/o -201..-400,
 * synchronization -401..-500, resource allocation -501..-600, the generic
 * overheads -602 and -603, tracing -902..-1000), or -1 for the event types
 * that leave the category as it was (user events, the wildcard, -901
 * tracing, which is the traced time itself, and anything else).
 */
int prof_event_category(int32_t event);

struct prof_options {
	int keep_stat_records;   /* keep the trace's -101/-102/-103 pairs */
	int message_pairs;       /* keep per (source, destination) totals */
	int timeline;            /* keep the category timeline (plots) */
	size_t bins;             /* time bins of a binned timeline (even) */
	size_t exact_limit;      /* intervals kept exactly before binning
				    (0: PROF_EXACT_LIMIT) */
	int quiet;               /* no progress line, no warnings */
	const char *cmd;         /* command name for messages ("stat") */
	uint64_t memory;         /* messages waiting for a partner kept in
				    memory, bytes (0: picltrace_default_memory) */
	const char *tmpdir;      /* where the rest wait (NULL: $TMPDIR, /tmp) */
	const char *const *schemas;   /* user schemas added to the default one */
	size_t nschemas;              /* (--schema; profile_of_inputs) */
};

/* The most --schema files stat and plot take. */
#define PROF_SCHEMAS_MAX 32

/* One statistic of event type E relative to R on a process (or summed). */
struct prof_cell {
	int32_t rel;             /* R: -1 (whole process) or a user event */
	int32_t event;           /* E (or a subset id in subset rows) */
	prof_ticks time;         /* valid if has_time */
	int64_t count;
	int64_t volume;          /* valid if has_volume */
	uint64_t intervals;      /* entry/exit pairs summed into time (tolerance) */
	int has_time, has_volume;
};

/* One open categorized event on a process's stack. */
struct prof_open {
	int32_t event;
	int cat;
};

struct prof_proc {
	int32_t processor, process;
	uint32_t index;              /* order of first appearance */
	int is_new;                  /* the matcher has not seen it yet */

	/* Time. `first`/`last`: first and last event record. The traced
	 * window: from a -901 (or -1) entry to its exit when the process has
	 * one, else from the first to the last event record. */
	prof_ticks first, last, prev;
	prof_ticks win_start, win_end;
	int started, window_seen, window_depth;
	int closed;                  /* after its close0 (-12): idle */
	prof_ticks cat_all[PROF_NCAT];   /* since the first event record */
	prof_ticks cat_win[PROF_NCAT];   /* inside -901 windows */
	uint64_t backwards;              /* records earlier than their predecessor */
	uint64_t event_records;          /* read so far (statistics samples) */
	int32_t max_scale;               /* finest decimals of its timestamps
					    (--compare's tolerance) */
	int64_t nprofiled;               /* n of its last -902 entry (the user
					    event types traceevents profiled),
					    -1 if none */
	prof_ticks cp;                   /* critical path ending here */
	struct picltrace_gaps gaps;      /* where its records are missing
					    (-913, -914): messages judged as
					    validate judges them */

	struct prof_open *open;
	size_t nopen, open_cap;
	struct openindex open_index;     /* of open[] by event (openindex.h) */

	/* Plot timeline: last interval (exact mode), bins (binned mode). */
	size_t last_iv;
	int has_last_iv;
	size_t iv_first, iv_count;       /* exact mode, after finish: its
					    intervals, iv_of[iv_first ..] */
	double *bins;                    /* [nbins][PROF_NCAT] seconds */

	/* Statistics cells (after finish), sorted by R then E. */
	struct prof_cell *cells;
	size_t ncells, cells_cap;
};

/* A matched message waiting for its sides' gaps to be known. */
struct prof_held {
	const struct prof_proc *s, *r;   /* its sender's and receiver's (or NULL) */
	int32_t src, dst;
	uint64_t send_line, recv_line;
	int64_t bytes;
	prof_ticks lat;
};

/* Message totals for the whole trace or for one processor pair. */
struct prof_msgstat {
	int32_t src, dst;                /* processors (pairs only) */
	uint64_t count;
	int64_t bytes;
	prof_ticks lat_sum, lat_min, lat_max;
};

/* A pair of a statistics record of the trace (for --compare). */
struct prof_recorded {
	int32_t type, processor, process, rel, event;
	double value;
	prof_ticks ticks;                /* the value exactly, if exact */
	int exact;                       /* its text is an exact time */
	int32_t decimals;                /* digits after the point in the text */
	uint64_t seq;                    /* input order: the latest wins */
	int one_process;                 /* processor and process >= 0 */
	uint64_t events_before;          /* that process's event records
					    read before this record */
	struct picl_mark mark;           /* the record's start */
	struct picl_mark value_mark;     /* where the value stood */
	const char *path;                /* input it came from (owned by profile) */
};

/* An exact timeline interval (plots). */
struct prof_interval {
	double t0, t1;
	uint32_t proc;                   /* index into procs[] (input order) */
	int cat;
};

struct prof_evset;

/* Exits without a matching entry said one by one (at their file:line:column);
 * the rest are only counted. */
#define PROF_EXITS_SAID 5

struct profile {
	struct prof_options opt;
	struct picl_stats *stats;
	struct picl_matcher *matcher;
	struct picl_defs *defs;          /* subsets of the whole trace: reader's */
	struct picl_reader *reader;      /* the last input's, kept for its defs
	                                    (the carry put the earlier inputs'
	                                    in them); NULL before and between */
	struct picl_defs *no_defs;       /* empty, the defs while no reader */
	struct picltrace_carry carry;    /* definitions, for the next input */
	struct picl_schema *schema;      /* NULL if it could not be loaded */

	struct prof_proc **procs;        /* input order; sorted after finish */
	size_t nprocs, procs_cap;
	struct intmap proc_of;           /* (processor, process) -> index */
	struct prof_proc *last_proc;
	void **fast;                     /* proc_table (intmap.h) of struct prof_proc */

	int32_t max_scale;               /* finest timestamp decimals seen */
	uint64_t records, event_records;
	uint64_t unmatched_exits;        /* exits the accumulator refused (the
	                                    first PROF_EXITS_SAID said one by one) */
	prof_ticks start, end;           /* earliest and latest traced time */
	int have_span;

	/* Messages. */
	struct prof_msgstat msg;
	uint64_t unmatched_sends, unmatched_recvs, tachyons;
	/* ... where trace buffers filled (-913, -914): pairs after missing
	 * records (left out of msg: they may be wrong), unmatched sends and
	 * receives whose partner may be missing (counted in the above too),
	 * as picltrace-validate(1) says; the pairs waiting to be judged (a
	 * ring's -914 may come after the records that follow its gap) */
	uint64_t gap_pairs, gap_sends, gap_recvs;
	struct picltrace_sends *sends;
	struct picltrace_queue held;     /* of struct prof_held */
	uint64_t line_base, line_max;    /* lines of the inputs before this one,
					    and of this one so far: a process's
					    positions compared across inputs */
	uint64_t late_edges;             /* receive read before its send */
	struct prof_msgstat *pairs;      /* in order of first message */
	size_t npairs, pairs_cap;
	struct intmap pair_of;           /* (src, dst) -> pairs index */

	/* Critical path: the cp at each send in flight waits with it in the
	 * matcher (picl_matcher_add_data). */
	struct intmap processors;        /* distinct processors (a set) */
	size_t nprocessors;
	int cur_is_recv;
	struct prof_proc *cur_proc;

	/* Labels and event subsets. */
	struct prof_label *labels;
	size_t nlabels, labels_cap;
	struct intmap label_of;          /* event type -> labels index */
	int32_t *subsets;                /* ids defined by -203, in order */
	size_t nsubsets, subsets_cap;
	struct intmap subset_of;         /* id -> subsets index */
	uint32_t predefined_redefined;   /* bit k: a -203 redefined Table 5's k-th */
	struct prof_evset *evsets;       /* per subset shown, its event types
	                                    (profile_finish) */

	/* Statistics records of the trace. */
	struct prof_recorded *recorded;
	size_t nrecorded, recorded_cap;
	char **paths;                    /* input names, for recorded marks */
	size_t npaths, paths_cap;

	/* Timeline. Its times (intervals, bins, and what prof_utilization
	 * and prof_segments give) are seconds after `origin`: 0, or for a
	 * trace whose first traced time is PROF_LATE_ORIGIN s or later (or
	 * as far before 0), that time's whole seconds. A double steps by
	 * 0.24 us at wall-clock times (1.7e9 s) and by 15 us at 1e11 s;
	 * after a whole second near the trace they keep its digits. */
	prof_ticks origin;
	int has_origin;
	struct prof_interval *iv;        /* exact mode (binned == 0) */
	size_t niv, iv_cap;
	size_t *iv_of;                   /* after finish: indices into iv,
					    by process, in input order */
	int binned;
	double bin_lo, bin_w;            /* binned mode: bin i is
					    [bin_lo + i w, bin_lo + (i+1) w) */
	int finished;

	/* Overall cells (all processes), after finish. */
	struct prof_cell *all;
	size_t nall;
};

/*
 * Make an empty model. opts is copied (cmd must outlive the profile). The
 * schema is loaded here (picl_schema_load_default); if that fails the model
 * works without names and *schema_err (if not NULL) says why. NULL when
 * out of memory.
 */
struct profile *profile_new(const struct prof_options *opts,
			    struct picl_error *schema_err);
void profile_free(struct profile *p);

/*
 * Read one input (path, "-" for standard input; plain or zstd) into the
 * model. Reports problems on stderr as "picltrace CMD: file:line:column:
 * problem". Returns 0, or 2 after the first malformed record or an input
 * error (the model then holds what came before).
 */
int profile_read(struct profile *p, const char *path);

/*
 * After the last input: report unmatched messages to the model, read the
 * statistics cells out of the accumulator, compute the overall cells and
 * sort the processes by (processor, process). Returns 0, or 2 when out of
 * memory (reported).
 */
int profile_finish(struct profile *p);

/*
 * What picltrace stat and plot do first: a new model of inputs[0..n), read
 * one after another as one trace, and finished. The user schemas
 * opts->schemas are added to the default one (a file that does not load is
 * an error, and so is the default one's failing then). names: the command
 * shows event names, so say (unless opts->quiet) that they are left out
 * when the schema could not be loaded. NULL after reporting why.
 */
struct profile *profile_of_inputs(const struct prof_options *opts,
				  const char *const *inputs, int n, int names);

/*
 * After profile_finish, unless opts->quiet: warn on stderr, for opts->cmd,
 * of the totals profile_read only began to list: the exits without a
 * matching entry when there were more than the PROF_EXITS_SAID it
 * reported, and the event records earlier than the one before them on
 * their process.
 */
void prof_warn_loose_ends(const struct profile *p);

/* Timeline times are seconds after a whole second of the trace's first
 * traced time when it is this far from 0 (see struct profile's origin). */
#define PROF_LATE_ORIGIN 1e4

/* Exact conversions. ticks -> seconds as a double; ticks -> decimal text
 * with `scale` decimals, rounded half away from zero (buf holds at least
 * PROF_TICKS_BUFSIZE bytes); returns buf. */
#define PROF_TICKS_BUFSIZE 64
double prof_ticks_seconds(prof_ticks t);
char *prof_ticks_format(prof_ticks t, int32_t scale, char *buf);

/* Seconds as text with `scale` decimals ("%.*f"); buf as above. */
char *prof_seconds_format(double s, int32_t scale, char *buf);

/* The traced time of a process and its utilization (time per category),
 * following the window rule of struct prof_proc. */
prof_ticks prof_proc_traced(const struct prof_proc *pp, prof_ticks cat[PROF_NCAT]);
void prof_proc_span(const struct prof_proc *pp, prof_ticks *from, prof_ticks *to);

/* "host" for processor 32767, else the number (buf >= 16 bytes). */
const char *prof_processor_name(int32_t processor, char *buf);

/*
 * A name for event type `event`: its label (-5 record; user events and
 * user-defined subsets), else the schema's name, else "" (unknown type, or
 * no schema). The text may hold any byte but NUL and newline: quote it
 * for the output format. Valid until the profile is freed.
 */
const char *prof_event_name(const struct profile *p, int32_t event);

/*
 * The event subsets to show (predefined ones in Table 5 order, then those
 * the trace defined, in order of first definition) and their sums over the
 * cells[0..n) that have relative event type `rel`: fills out[] (capacity
 * at least prof_nsubsets(p)) with one cell per subset that has a member
 * present, and returns how many. The cells are sorted as a process's are
 * (pp->cells, p->all), and the profile is finished.
 */
/* The label a -5 record gave event type `event`, or NULL. */
const char *prof_event_label(const struct profile *p, int32_t event);

/* The cell of (rel, event) of a process that has a time (the last such,
 * if it had several), or NULL; a binary search of its sorted cells. */
const struct prof_cell *prof_timed_cell(const struct prof_proc *pp, int32_t rel,
					int32_t event);

size_t prof_nsubsets(const struct profile *p);
size_t prof_subset_sums(const struct profile *p, const struct prof_cell *cells,
			size_t n, int32_t rel, struct prof_cell *out);

/*
 * Add to *sum (cell_merge: counts, intervals, times and volumes) the cells
 * of cells[0..n) (sorted as a process's are) that --compare sums for a
 * statistic of `event` relative to `rel`: the cell (rel, event), or, for an
 * event subset, those of its member types that are no subset themselves,
 * in the cells' order. It costs a binary search, plus for a subset the
 * fewer of its types and the cells of `rel` (its flattened types, from
 * profile_finish); not a scan of every cell. The profile is finished.
 */
void prof_cells_add(const struct profile *p, const struct prof_cell *cells, size_t n,
		    int32_t rel, int32_t event, struct prof_cell *sum);

/* Every pair, sorted by (src, dst) into a new array (free it); *n set. */
struct prof_msgstat *prof_pairs_sorted(const struct profile *p, size_t *n);

/* Critical path estimate and makespan (see profile.c), in ticks. */
prof_ticks prof_critical_path(const struct profile *p);
prof_ticks prof_makespan(const struct profile *p);

/*
 * Timeline (plots). Utilization over `nbins` bins: fills edges[0..nbins]
 * (seconds) and counts[nbins][PROF_NCAT] (average number of processes in
 * each category over the bin) and returns the number of bins written.
 * Exact mode: nbins even bins from the earliest to the latest traced time.
 * Binned mode: the model's own bins that hold time, in groups so that at
 * most nbins come out. Only processes with `include(pp)` true count.
 * Returns 0 if there is nothing.
 */
size_t prof_utilization(const struct profile *p, size_t nbins,
			int (*include)(const struct prof_proc *pp),
			double *edges, double *counts);

/*
 * Emit the timeline of one process as segments (t0, t1, category, lo, hi):
 * lo and hi are the part of the process's row the segment fills, 0 to 1.
 * Exact mode: whole-row segments, adjacent ones of one category merged.
 * Binned mode: at most max_bins groups of bins, each giving the fraction of
 * its width spent in each category as stacked parts of the row (busy at
 * the bottom), equal neighbours merged. Returns the callback's first
 * non-zero value, or 0.
 */
int prof_segments(const struct profile *p, const struct prof_proc *pp, size_t max_bins,
		  int (*cb)(void *ctx, double t0, double t1, int cat, double lo, double hi),
		  void *ctx);

/* Write a JSON string (with quotes) or a CSV field for arbitrary bytes:
 * invalid UTF-8 becomes U+FFFD, control characters are escaped (JSON) or
 * replaced by '?' (CSV). */
void prof_json_string(FILE *out, const char *s);
void prof_csv_field(FILE *out, const char *s);

/* Make text safe for a table column or a gnuplot string: control bytes
 * and invalid UTF-8 become '?', and `bad` characters too (e.g. "'" for a
 * single-quoted gnuplot string, which has no escapes). Returns buf. */
char *prof_clean_text(const char *s, const char *bad, char *buf, size_t size);

/*
 * An output written to a temporary file beside it (".NAME.tmpXXXXXX") and
 * renamed into place by prof_output_commit, so that a failed run leaves no
 * partial file (the library writer does the same for traces). "-" is
 * standard output: written directly, or through a temporary file in
 * $TMPDIR that commit copies out when `need_file` asks for a file a
 * program can write by name (gnuplot). `file` is that name (NULL when
 * writing to standard output directly); `f` is open for writing (plot may
 * close it and set it to NULL before another program writes the file).
 */
struct prof_output {
	FILE *f;                  /* write here (stdout for "-") */
	const char *path;         /* the output as given, for messages */
	const char *file;         /* the temporary file, or NULL */
	struct picl_output *out;  /* NULL for standard output */
};
/* 0, or -1 after reporting the problem for cmd. */
int prof_output_open(struct prof_output *o, const char *cmd, const char *path,
		     int need_file);
int prof_output_commit(struct prof_output *o, const char *cmd);
void prof_output_abort(struct prof_output *o);

#endif
