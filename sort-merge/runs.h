/*
 * runs.h - the machinery sort and merge share: in-memory sorting of records
 * by exact timestamp, sorted runs spilled to temporary files, and a k-way
 * merge over several sorted sources. See runs.c.
 */
#ifndef PICL_RUNS_H
#define PICL_RUNS_H

#include "picl-trace.h"

#include <stdint.h>

/* Where temporary runs go, and how much memory an in-memory run may use. */
struct runs_config {
	const char *cmd;          /* for messages: "sort" */
	const char *tmpdir;       /* NULL: $TMPDIR or /tmp */
	uint64_t memory;          /* bytes for one in-memory run */
	int quiet;
	size_t batch;             /* runs merged at once at most; 0: as many
				     as the open-file limit allows (runs_fan_in) */
};

/*
 * A sorter: add records in input order, then either write them all (when
 * they fit in memory) or merge the spilled runs. Stable: records with equal
 * timestamps keep their input order; header records (-399..-301) come first,
 * in input order.
 */
struct sorter;

struct sorter *sorter_new(const struct runs_config *cfg);
/* Reserve room for about `bytes` of input at once (e.g. the input file's
 * size, capped at the memory budget), so the arena does not grow by
 * copying. Optional. */
void sorter_reserve(struct sorter *s, uint64_t bytes);
/* Take one record (its line is copied), read by r: definition records
 * (-6, -201..-203) are kept aside and written after the header records, in
 * input order (defs.c says what that does to the records; r must apply
 * definitions, see RUNS_READ_DEFS). 0, or -1 after reporting an error. */
int sorter_add(struct sorter *s, struct picl_reader *r, const struct picl_record *rec);
/* Take every record r holds, showing progress as base + r's offset (prog
 * may be a silent one). 0, or -1 after reporting an error. */
struct picltrace_progress;
int sorter_add_all(struct sorter *s, struct picl_reader *r, struct picltrace_progress *prog,
		   uint64_t base);
/* Write everything, sorted, to w. 0, or -1 after reporting an error. */
int sorter_finish(struct sorter *s, struct picl_writer *w);
/* Number of runs spilled to disk so far. */
size_t sorter_spilled(const struct sorter *s);
void sorter_free(struct sorter *s);

/*
 * Merge already sorted readers into w, by exact time, ties in the order of
 * the readers; header records of all inputs first, then the definition
 * records each input has before its event records, in the order of the
 * readers (a later one is written where it is met); records whose alias
 * would resolve otherwise in the output are written with their control
 * string (defs.c). The readers must apply definitions (RUNS_READ_DEFS). `names` label the inputs
 * in messages. If `check` is set, an input that goes back in time is an
 * error ("not sorted"). If `seen` is not NULL, every processor id met is
 * passed to seen(ctx, processor), which returns 0, or -1 after reporting an
 * error to stop the merge. 0, or -1 after reporting an error.
 */
int merge_readers(const struct runs_config *cfg, struct picl_reader **in, size_t n,
		  int check, struct picl_writer *w,
		  int (*seen)(void *ctx, int32_t processor), void *ctx);

/* What the process uses beside the sorted data (buffers, zstd contexts,
 * the program): taken off --memory first. */
#define RUNS_FIXED_OVERHEAD (24u << 20)

/* Call first in a command that merges (sort, merge): large buffers freed
 * and allocated again stay fresh mappings, so what a reader never touches
 * costs nothing (glibc otherwise reuses, and clears, freed heap). */
void runs_fresh_buffers(void);

/* What the sorted data, or the readers of a merge, may use of --memory:
 * what is left after RUNS_FIXED_OVERHEAD (half when that is too little). */
uint64_t runs_budget(uint64_t memory);

/*
 * Reading sources in a merge: each reader holds its buffer (RUNS_BUFFER_MIN
 * to RUNS_BUFFER_MAX, the budget shared out by runs_buffer) and, for a zstd
 * stream, a decoder: its window and about 768 KiB of block buffers
 * (RUNS_ZSTD_COST). Temporary runs are zstd level 1, whose window is
 * 512 KiB: RUNS_RUN_COST each.
 */
#define RUNS_BUFFER_MIN (64u << 10)
#define RUNS_BUFFER_MAX (1u << 20)
#define RUNS_ZSTD_COST(window) ((uint64_t)(window) + (768u << 10))
#define RUNS_RUN_COST RUNS_ZSTD_COST(512u << 10)

/* The read buffer of each of k readers sharing `budget`, of which
 * `decoders` bytes go to their zstd decoders. */
size_t runs_buffer(uint64_t budget, size_t k, uint64_t decoders);

/*
 * Sorting one plain-text file through a read-only mapping (msort.c): the
 * fast path of `picltrace sort` for a regular file that fits the budget.
 * msort_open returns NULL (nothing reported) when it does not apply;
 * msort_read returns 0, -1 after reporting an error, or 1 when the caller
 * must sort another way (compressed input, times too far apart, the budget):
 * msort_free it and use a sorter. msort_finish writes the header records,
 * then the rest sorted, to w; `direct` (the output's name, for messages)
 * when w does not compress: a named output is then written around w, into
 * its temporary file, with O_DIRECT. 0, or -1 after reporting.
 */
struct msort;
struct msort *msort_open(const struct runs_config *cfg, const char *path);
int msort_read(struct msort *m, struct picltrace_progress *prog);
int msort_finish(struct msort *m, struct picl_writer *w, const char *direct);
void msort_free(struct msort *m);

/* Large arrays: anonymous mappings with transparent huge pages asked for
 * (runs.c says why); grow moves them with mremap, without copying. NULL
 * when out of memory. */
void *runs_big_alloc(size_t bytes);
void runs_big_free(void *p, size_t bytes);
void *runs_big_grow(void *p, size_t old, size_t bytes);

/* The most inputs merged at once, from the descriptor limit. */
size_t runs_fan_in(void);

/* Append line s[0..n) and a newline to the growing buffer *buf (*len
 * bytes used of *cap), a blank before the newline when the line would not
 * read back as itself (picl_data_needs_pad: its data end with a '\r' or a
 * continuation's '\', as a record's line can once the reader dropped its
 * CRLF). 0, or -1 when out of memory (*buf as it was). */
int runs_append_line(char **buf, size_t *len, size_t *cap, const char *s, size_t n);

/* A time just before t that the format can write back: one unit of t's
 * scale less (fewer decimals past 18 digits), or t itself when nothing
 * writable is before it. For header records, which precede the earliest
 * record (merge's header, sync's moved one). */
struct picl_time runs_time_before(struct picl_time t);

/* A flag of runs_open: the reader applies definition records (drops
 * PICL_READ_NO_DEFS), as sorter_add and merge_readers need. */
#define RUNS_READ_DEFS (1u << 30)

/* Open `path` for reading records as they are (PICL_READ_RAW and
 * PICL_READ_NO_DEFS: sort and merge move records, definitions included,
 * without interpreting any; plus `flags`: sort reads one input at a time
 * with PICL_READ_PARALLEL, merge many at once without); on failure report
 * it for cmd and return NULL. */
struct picl_reader *runs_open(const char *cmd, const char *path, unsigned flags);
/* The same, reading `buffer` bytes at a time (0: the reader's default). */
struct picl_reader *runs_open_buffer(const char *cmd, const char *path, unsigned flags,
				     size_t buffer);

/* Rewind the temporary file fd (written by this program) and read it back
 * raw, without applying definitions again, `buffer` bytes at a time (0:
 * the reader's default, 1 MiB); `name` ("temporary run") is for messages.
 * NULL after reporting a failure. */
struct picl_reader *runs_reopen(const char *cmd, int fd, const char *name, size_t buffer);
/* The same, applying definitions (a run that holds some: merge's). */
struct picl_reader *runs_reopen_defs(const char *cmd, int fd, const char *name, size_t buffer);

/*
 * Definition records in a sort or merge (defs.c): kept aside (sort) or
 * written first (merge), and records whose alias would resolve otherwise
 * at their new place written with their control string.
 * deftrack_new(cmd, 0) for a sort, (cmd, n) for a merge of n readers;
 * NULL when out of memory. The functions returning a line return NULL
 * when the record is written as it is, else its new text (*nlen bytes,
 * no newline, valid until the next call); *fail set to -1 after reporting
 * an error (out of memory). The others return 0, or -1 after reporting.
 */
struct deftrack;
struct deftrack *deftrack_new(const char *cmd, size_t nsources);
void deftrack_free(struct deftrack *t);
/* Sort: a definition record read by r; an event record read by r; an event
 * record's line on output; write the definition lines. */
int deftrack_sort_def(struct deftrack *t, struct picl_reader *r, const struct picl_record *rec);
const char *deftrack_sort_event(struct deftrack *t, struct picl_reader *r,
				const struct picl_record *rec, size_t *nlen, int *fail);
const char *deftrack_sort_out(struct deftrack *t, const char *line, size_t len, size_t *nlen,
			      int *fail);
int deftrack_write(struct deftrack *t, struct picl_writer *w);
/* Merge: a definition record of reader src being written (1: do not write
 * it, it repeats the last definition of its alias number or subset id); an
 * event record of reader src being written. */
int deftrack_merge_def(struct deftrack *t, size_t src, struct picl_reader *r,
		       const struct picl_record *rec);
const char *deftrack_merge_event(struct deftrack *t, size_t src, struct picl_reader *r,
				 const struct picl_record *rec, size_t *nlen, int *fail);

/*
 * A temporary file in cfg->tmpdir, already unlinked: it disappears when
 * closed, whatever happens. Returns the descriptor or -1 after reporting.
 */
int runs_tempfile(const struct runs_config *cfg);

#endif
