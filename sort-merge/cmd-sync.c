/*
 * cmd-sync.c - `picltrace sync`: correct clock offsets and drift so that no
 * message arrives before it was sent.
 *
 * A message received before it was sent (a "tachyon") shows that the
 * processors' clocks were out of step. sync estimates, for every processor
 * p, a correction  t' = t + offset_p + drift_p * (t - t0)  relative to a
 * reference processor (clock.c says how: a max-margin convex-hull fit per
 * pair of processors, a least-uncertainty tree of pairs from the reference,
 * refits of each processor against all its partners, a final constant shift
 * per processor), and rewrites the trace with corrected timestamps.
 *
 * Passes over the input (which is why standard input and pipes are first
 * spooled to an unlinked temporary file):
 *  1. estimate: every record is decoded; the message matcher pairs sends
 *     with receives, and each pair (plus -401/-402 synchronisations) goes
 *     to the estimator; tachyons are counted.
 *  2. rewrite: every record of a processor >= 0 that is not a header record
 *     (-399..-301) gets its corrected time, rounded at the record's own
 *     decimal scale (the correction is added as a whole number of units of
 *     that scale, so the digits of the original time are kept exactly);
 *     a record that was not earlier than its processor's previous records
 *     is not made earlier than their corrected times either; records of
 *     processor -1 (or of a subset) and header records keep their times
 *     (but header records that preceded every other record and would no
 *     longer do take the time just before the earliest in one more pass:
 *     cap_headers).
 *     A time statistics record (-101) of a processor corrected for drift
 *     has its times stretched as the processor's records were (rescale_stats),
 *     each exactly at its own decimals: the intervals they sum were.
 *     The matcher runs again on the corrected times and counts what is
 *     left.
 *  3. only if tachyons are left (rounding, or constraints no line can
 *     meet): each such receive is raised to its send's corrected time plus
 *     the minimum latency, and the rewrite is simulated again (a raised
 *     receive can delay later sends of its processor) until nothing is left
 *     or 16 passes have run; then the output is written once more.
 * Pass 2 writes straight into the output file (a temporary file, thrown
 * away if pass 3 is needed); standard output cannot take back what it was
 * given, so for it pass 2 only checks and one more pass writes.
 * Everything else of a record is written unchanged, through the library's
 * writer (canonical text: cat's output with new times). The output is a
 * temporary file renamed into place on success, so a failure never leaves
 * a partial file and --in-place replaces the input only when all went well.
 */
#include "../picltrace/builtin.h"
#include "clock.h"
#include "fdio.h"
#include "pow10.h"
#include "runs.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CMD "sync"
#define MAX_FIX_PASSES 16
#define EV_CLOCKSYNC (-401)
#define EV_BARRIER (-402)

static const char sync_usage[] =
	"usage: picltrace sync [-o FILE | --in-place] [-z] [--level=N] [--reference=P]\n"
	"                      [--min-latency=SECONDS] [--max-drift=PPM] [--no-drift]\n"
	"                      [--dry-run] [--report] [--format=text|json] [--quiet]\n"
	"                      [--memory=SIZE] [--tmpdir=DIR] [FILE]\n";

static const char sync_help[] =
	"\n"
	"  -o, --output=FILE      write the corrected trace to FILE (default: standard\n"
	"                         output)\n"
	"      --in-place         replace FILE by the corrected trace, once all succeeded\n"
	"  -z, --zstd             compress the output with zstd (--in-place keeps a\n"
	"                         compressed input compressed; also implied by\n"
	"                         --level, or by an output named *.zst)\n"
	"      --level=N          zstd compression level (1-19, default 3)\n"
	"      --reference=P      processor whose clock is kept (default 0, or the\n"
	"                         lowest that exchanged messages)\n"
	"      --min-latency=S    a message takes at least S seconds (default 0)\n"
	"      --max-drift=PPM    largest drift a clock may show (0-100000, default\n"
	"                         100)\n"
	"      --no-drift         correct offsets only\n"
	"  -n, --dry-run          only report the correction; write no trace\n"
	"      --report           print the report on standard output, not standard error\n"
	"      --format=text|json report format (default text)\n"
	"  -q, --quiet            no report, notes or progress on standard error\n"
	"                         (errors are still said)\n"
	"      --memory=SIZE      the most memory for messages waiting for their\n"
	"                         partner, and for sorting an unsorted trace (e.g.\n"
	"                         256M; default a quarter of the usable memory\n"
	"                         'picltrace --resources' shows)\n"
	"  -T, --tmpdir=DIR       where standard input is spooled, an unsorted trace\n"
	"                         sorted and messages past --memory wait (default\n"
	"                         $TMPDIR, /tmp)\n"
	"  -h, --help             show this help\n"
	"\n"
	"With no FILE, or when FILE is -, read standard input. Inputs may be plain\n"
	"text or zstd-compressed. Exit status: 0 no message arrives before it was\n"
	"sent, 1 the trace was written but some still do, 2 bad input or usage.\n";

struct options {
	const char *output;
	int in_place, compress, level, dry_run, report, json, quiet;
	uint64_t memory;                /* --memory (0: the default) */
	const char *tmpdir;
	struct clock_options clock;
	struct picl_time min_latency;   /* exact, for raised receives */
};

/* The input: a descriptor we can rewind (a regular file, or a spool). */
struct input {
	const char *name;               /* for messages */
	int fd;
	int compressed;
	uint64_t size;
};

/* A receive to raise: the record at `offset` must not be earlier than `need`. */
struct jump {
	uint64_t offset;
	struct picl_time need;
};

/* A processor during the rewrite. */
struct proc {
	int32_t processor;
	const struct clock_result *r;   /* NULL if not corrected */
	int have;
	struct picl_time max_orig, max_new;
	struct picl_time first_orig, first_new;   /* its first record this pass */
	struct jump *jumps;             /* by offset once merged */
	size_t njumps, jumps_cap, next;
};

struct syncer {
	const struct options *opt;
	struct input in;
	struct clock_estimator *ce;
	/* The estimate's times are seconds from `origin`, the first record's
	 * time in file order (pass 1 cannot know the earliest before it ends);
	 * the report gives the offsets at t0, the earliest time, so that it
	 * does not depend on the order of the records. */
	struct picl_time origin, t0;
	int have_t0;
	/* pass 1 */
	uint64_t matched, within, tachyons_before;
	int sorted_copy;                /* pass 1 read a sorted copy: errors kept in
					   unsorted_why, not said */
	uint64_t late_unsorted;         /* late calls of pass 1 on the input as it is */
	char unsorted_why[PICL_PROBLEM_MAX + 64]; /* why no sorted copy served */
	/* the rewrite */
	struct proc *procs;             /* by increasing processor */
	size_t nprocs;
	uint64_t tachyons_after, unfixable, raised;
	struct picl_time body_min;      /* the earliest time written but of header */
	struct picl_time body_min_in;   /* records, the same read, and the latest */
	int have_body_min;              /* time of the header records */
	struct picl_time header_max;
	int have_header;
	struct picl_time header_cap;    /* header records later than this get it */
	int cap_headers;
	struct jump *found;             /* receives to raise, found by this pass */
	int32_t *found_proc;
	size_t nfound, found_cap;
	/* a -101 record's values with rescaled times, and their texts */
	struct picl_value *stat_values;
	size_t stat_values_cap;
	char *stat_text;
	size_t stat_text_cap;
};

/* ------------------------------------------------------------------------ */
/* Input                                                                     */
/* ------------------------------------------------------------------------ */

/* Open the input so that it can be read several times. */
static int input_open(struct input *in, const char *path, const char *tmpdir)
{
	struct stat st;

	in->fd = -1;
	if (strcmp(path, "-") == 0) {
		in->name = "<stdin>";
		if (fstat(0, &st) == 0 && S_ISREG(st.st_mode) && lseek(0, 0, SEEK_CUR) == 0) {
			in->fd = dup(0);
		} else if ((in->fd = picltrace_spool(CMD, 0, "standard input", tmpdir)) < 0) {
			return -1;
		}
	} else {
		int fd;

		in->name = path;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			picltrace_error(CMD, "%s: cannot open: %s", *path ? path : "''",
					strerror(errno));
			return -1;
		}
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
			in->fd = fd;
		} else {
			in->fd = picltrace_spool(CMD, fd, path, tmpdir);
			close(fd);
			if (in->fd < 0)
				return -1;
		}
	}
	if (in->fd < 0) {
		picltrace_error(CMD, "%s: cannot open: %s", in->name, strerror(errno));
		return -1;
	}
	in->size = fstat(in->fd, &st) == 0 ? (uint64_t)st.st_size : 0;
	return 0;
}

/* Each pass reads the input from its start, parsing on the other cores
 * (PICL_READ_PARALLEL gives the serial reader's records exactly). */
static struct picl_reader *input_reader(struct input *in)
{
	static const struct picl_reader_options opts = { PICL_READ_PARALLEL, 0, 0 };
	struct picl_error err = { 0 };
	struct picl_reader *r;
	int rc;

	if (lseek(in->fd, 0, SEEK_SET) < 0) {
		picltrace_error(CMD, "%s: cannot rewind: %s", in->name, strerror(errno));
		return NULL;
	}
	r = picl_reader_open_fd(in->fd, in->name, &opts, &rc, &err);
	if (!r)
		picltrace_report(CMD, &err);
	else
		in->compressed = picl_reader_is_compressed(r);
	return r;
}

/* ------------------------------------------------------------------------ */
/* Times                                                                     */
/* ------------------------------------------------------------------------ */

#define MANT_LIMIT 1000000000000000000LL   /* 18 digits: what a reader takes back */

/* Seconds from u to t, as exactly as a double allows. */
static double seconds_between(struct picl_time u, struct picl_time t)
{
	struct picl_time d;

	if (picl_time_sub(t, u, &d) == PICL_OK)
		return picl_time_to_double(d);
	return picl_time_to_double(t) - picl_time_to_double(u);
}

/* Seconds from the estimate's origin. */
static double since_origin(const struct syncer *s, struct picl_time t)
{
	return seconds_between(s->origin, t);
}

/* The least time at `scale` decimals that is not earlier than t. */
static int time_ceil(struct picl_time t, int32_t scale, struct picl_time *out)
{
	if (t.scale <= scale)
		return picl_time_rescale(t, scale, out);
	{
		int64_t d = pow10_tab[t.scale - scale], q = t.mant / d;

		if (t.mant % d > 0)
			q++;
		out->mant = q;
		out->scale = scale;
	}
	return PICL_OK;
}

static int time_add(struct picl_time a, struct picl_time b, struct picl_time *out)
{
	struct picl_time nb = b;

	nb.mant = -b.mant;
	return picl_time_sub(a, nb, out);
}

/* ------------------------------------------------------------------------ */
/* Pass 1: estimate                                                          */
/* ------------------------------------------------------------------------ */

static int estimate_match(void *ctx, enum picl_match_kind kind, const struct picl_message *m)
{
	struct syncer *s = ctx;

	if (kind != PICL_MATCH_OK)
		return 0;
	s->matched++;
	if (picl_time_cmp(m->recv_time, m->send_time) < 0)
		s->tachyons_before++;
	if (m->src_processor == m->dst_processor) {
		s->within++;
		return 0;
	}
	if (clock_estimator_message(s->ce, m->src_processor, since_origin(s, m->send_time),
				    m->dst_processor, since_origin(s, m->recv_time)) < 0) {
		return PICL_ERR_NOMEM;
	}
	return 0;
}

static int64_t first_int(const struct picl_record *rec)
{
	if (rec->nvalues > 0 && rec->values[0].kind == PICL_VAL_INT &&
	    rec->values[0].v.i >= INT32_MIN && rec->values[0].v.i <= INT32_MAX)
		return rec->values[0].v.i;
	return -1;
}

/* -401 clocksync0 and -402 sync0: entry, exit, or a mark (both at once). */
static int note_sync(struct syncer *s, const struct picl_record *rec)
{
	double t = since_origin(s, rec->time);
	int rc = 0;

	if (rec->type == PICL_REC_ENTRY || rec->type == PICL_REC_MARK)
		rc = clock_estimator_sync_entry(s->ce, rec->processor, rec->process, rec->event,
						(int32_t)first_int(rec), t);
	if (rc == 0 && (rec->type == PICL_REC_EXIT || rec->type == PICL_REC_MARK))
		rc = clock_estimator_sync_exit(s->ce, rec->processor, rec->process, rec->event, t);
	return rc < 0 ? PICL_ERR_NOMEM : 0;
}

static int estimate(struct syncer *s)
{
	struct picltrace_progress pg;
	struct picl_matcher *m = NULL;
	struct picl_reader *r;
	struct picl_record rec;
	uint64_t n = 0;
	int rc, matcher_failed = 0;

	if (!(r = input_reader(&s->in)))
		return -1;
	picltrace_progress_init(&pg, "sync: estimating", s->in.compressed ? 0 : s->in.size,
				s->opt->quiet);
	if (!(m = picl_matcher_new(estimate_match, s)) ||
	    picltrace_matcher_memory(m, s->opt->memory, s->opt->tmpdir) < 0) {
		picltrace_error(CMD, "out of memory");
		rc = -1;
		goto out;
	}
	picl_matcher_set_defs(m, picl_reader_defs(r)); /* multicasts */
	while ((rc = picl_reader_next(r, &rec)) == PICL_OK) {
		if ((++n & 0xffff) == 0)
			picltrace_progress(&pg, picl_reader_offset(r));
		/* (a definition's processor is the scope of an alias or a
		 * subset, not a processor whose clock stamped it) */
		if (!picl_is_header_type(rec.type) && !picl_is_definition_type(rec.type) &&
		    rec.processor >= 0) {
			if (!s->have_t0) {
				s->origin = s->t0 = rec.time;
				s->have_t0 = 1;
			} else if (picl_time_cmp(rec.time, s->t0) < 0) {
				s->t0 = rec.time;
			}
			if (clock_estimator_processor(s->ce, rec.processor) < 0) {
				rc = PICL_ERR_NOMEM;
				break;
			}
			if ((rec.event == EV_CLOCKSYNC || rec.event == EV_BARRIER) &&
			    (rc = note_sync(s, &rec)) < 0)
				break;
		}
		if ((rc = picl_matcher_add(m, &rec)) < 0) {
			matcher_failed = 1;
			break;
		}
	}
	picltrace_progress_done(&pg);
	if (matcher_failed) {
		picltrace_error(CMD, "%s", picl_matcher_strerror(m));
	} else if (rc == PICL_ERR_NOMEM) {
		picltrace_error(CMD, "out of memory");
	} else if (rc < 0 && s->sorted_copy) {
		snprintf(s->unsorted_why, sizeof(s->unsorted_why),
			 "sorted by time, it cannot be read: %s", picl_reader_error(r)->problem);
		rc = -2;
		goto out;
	} else if (rc < 0) {
		picltrace_report(CMD, picl_reader_error(r));
	}
	rc = rc < 0 ? -1 : 0;
out:
	picl_matcher_free(m);
	picl_reader_free(r);
	return rc;
}

/* Copy the input, sorted by time, into the temporary file fd (zstd): the
 * sort's machinery, spilling to --tmpdir beyond --memory. 0, or
 * -1 after reporting. */
static int sort_input(struct syncer *s, int fd)
{
	static const struct picl_reader_options ropts = {
		PICL_READ_RAW | PICL_READ_PARALLEL, 0, 0   /* the sorter keeps definitions */
	};
	struct picl_writer_options wopts = { 1, 1, 0 };
	struct runs_config cfg = { CMD, NULL, 0, 0, 0 };
	struct picltrace_progress pg;
	struct picl_error err = { 0 };
	struct picl_reader *r;
	struct picl_writer *w = NULL;
	struct sorter *so = NULL;
	int rc = -1;

	cfg.tmpdir = s->opt->tmpdir;
	cfg.memory = s->opt->memory ? s->opt->memory : picltrace_default_memory();
	cfg.quiet = s->opt->quiet;
	if (lseek(s->in.fd, 0, SEEK_SET) < 0) {
		picltrace_error(CMD, "%s: cannot rewind: %s", s->in.name, strerror(errno));
		return -1;
	}
	if (!(r = picl_reader_open_fd(s->in.fd, s->in.name, &ropts, &rc, &err))) {
		picltrace_report(CMD, &err);
		return -1;
	}
	rc = -1;
	if (!(so = sorter_new(&cfg))) {
		picltrace_error(CMD, "out of memory");
		goto out;
	}
	picltrace_progress_init(&pg, "sync: sorting", s->in.compressed ? 0 : s->in.size,
				s->opt->quiet);
	rc = sorter_add_all(so, r, &pg, 0);
	picltrace_progress_done(&pg);
	if (rc < 0)
		goto out;
	rc = -1;
	if (!(w = picl_writer_open_fd(fd, "the sorted copy", &wopts, &rc, &err))) {
		picltrace_report(CMD, &err);
		rc = -1;
		goto out;
	}
	if (sorter_finish(so, w) < 0)
		goto out;
	rc = picl_writer_close(w, &err);
	w = NULL;
	if (rc < 0) {
		picltrace_report(CMD, &err);
		goto out;
	}
	rc = 0;
out:
	if (w)
		picl_writer_abort(w);
	sorter_free(so);
	picl_reader_free(r);
	return rc;
}

/*
 * A trace not sorted by time (as runtimes write one: node after node) can
 * hold one process's synchronisation calls thousands of rounds after
 * another's, and the estimator keeps at most 4096 calls waiting a process:
 * pass 1 left the late ones out. It runs again on a copy sorted by time,
 * where the calls of a round come together; the rewrite reads the input as
 * it is. Returns 0 (s holds the new estimate), or 1 when the copy cannot be
 * made (--tmpdir, the disk: said above) or read as the input was (a
 * definition used before its time): the first estimate stays, and
 * s->unsorted_why says why; only running out of memory for the estimator
 * is -1 (reported).
 */
static int estimate_sorted(struct syncer *s)
{
	struct runs_config cfg = { CMD, NULL, 0, 0, 0 };
	struct syncer first = *s;
	int fd, rc;

	cfg.tmpdir = s->opt->tmpdir;
	if ((fd = runs_tempfile(&cfg)) < 0 || sort_input(s, fd) < 0) {
		if (fd >= 0)
			close(fd);
		snprintf(s->unsorted_why, sizeof(s->unsorted_why),
			 "no copy sorted by time could be made (above)");
		return 1;
	}
	if (!(s->ce = clock_estimator_new())) {
		s->ce = first.ce;
		close(fd);
		picltrace_error(CMD, "out of memory");
		return -1;
	}
	s->in.fd = fd;
	s->in.name = "the input sorted by time";
	s->matched = s->within = s->tachyons_before = 0;
	s->sorted_copy = 1;
	rc = estimate(s);       /* from the same origin: the input's first record */
	s->sorted_copy = 0;
	s->in = first.in;
	close(fd);
	if (rc < 0) {
		clock_estimator_free(s->ce);
		s->ce = first.ce;
		s->matched = first.matched;
		s->within = first.within;
		s->tachyons_before = first.tachyons_before;
		return rc == -2 ? 1 : -1;
	}
	s->late_unsorted = clock_estimator_sync_late(first.ce);
	clock_estimator_free(first.ce);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* The rewrite                                                               */
/* ------------------------------------------------------------------------ */

/* procs is sorted by processor; processors numbered 0, 1, 2, ... (the
 * usual case) are found at their own index, without the search that
 * every record would otherwise go through. */
static struct proc *proc_find(struct syncer *s, int32_t p)
{
	size_t lo = 0, hi = s->nprocs;

	if (p >= 0 && (size_t)p < s->nprocs && s->procs[p].processor == p)
		return &s->procs[p];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->procs[mid].processor == p)
			return &s->procs[mid];
		if (s->procs[mid].processor < p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int make_procs(struct syncer *s)
{
	size_t i, n = clock_estimator_count(s->ce);

	s->procs = calloc(n + 1, sizeof(*s->procs));
	if (!s->procs)
		return -1;
	for (i = 0; i < n; i++) {
		const struct clock_result *r = clock_estimator_result(s->ce, i);

		s->procs[i].processor = r->processor;
		if (r->offset != 0 || r->drift != 0)
			s->procs[i].r = r;
	}
	s->nprocs = n;
	return 0;
}

static int apply_match(void *ctx, enum picl_match_kind kind, const struct picl_message *m)
{
	struct syncer *s = ctx;
	struct picl_time need;

	if (kind != PICL_MATCH_OK || picl_time_cmp(m->recv_time, m->send_time) >= 0)
		return 0;
	s->tachyons_after++;
	/* Raising a receive that comes before its own send on one processor
	 * would raise that send too: no end to it. */
	if (m->src_processor == m->dst_processor && m->recv_mark.offset < m->send_mark.offset) {
		s->unfixable++;
		return 0;
	}
	if (time_add(m->send_time, s->opt->min_latency, &need) < 0) {
		s->unfixable++;
		return 0;
	}
	if (s->nfound == s->found_cap) {
		size_t ncap = s->found_cap ? s->found_cap * 2 : 64;
		struct jump *j = realloc(s->found, ncap * sizeof(*j));
		int32_t *p;

		if (!j)
			return PICL_ERR_NOMEM;
		s->found = j;
		p = realloc(s->found_proc, ncap * sizeof(*p));
		if (!p)
			return PICL_ERR_NOMEM;
		s->found_proc = p;
		s->found_cap = ncap;
	}
	s->found[s->nfound].offset = m->recv_mark.offset;
	s->found[s->nfound].need = need;
	s->found_proc[s->nfound] = m->dst_processor;
	s->nfound++;
	return 0;
}

static int cmp_jump(const void *pa, const void *pb)
{
	const struct jump *a = pa, *b = pb;

	return (a->offset > b->offset) - (a->offset < b->offset);
}

/* Fold the receives found by a pass into the processors' jump lists (kept
 * sorted by offset; a receive already there keeps the later need). A pass
 * finds each receive at most once. Returns the number of jumps added or
 * raised, or -1 (out of memory). */
static long merge_jumps(struct syncer *s)
{
	size_t i, k;
	long changed = 0;

	for (k = 0; k < s->nprocs; k++)
		s->procs[k].next = s->procs[k].njumps;     /* the sorted part */
	for (i = 0; i < s->nfound; i++) {
		struct proc *p = proc_find(s, s->found_proc[i]);
		size_t lo = 0, hi;

		if (!p)
			continue;
		hi = p->next;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (p->jumps[mid].offset < s->found[i].offset)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < p->next && p->jumps[lo].offset == s->found[i].offset) {
			if (picl_time_cmp(s->found[i].need, p->jumps[lo].need) > 0) {
				p->jumps[lo].need = s->found[i].need;
				changed++;
			}
			continue;
		}
		if (p->njumps == p->jumps_cap) {
			size_t ncap = p->jumps_cap ? p->jumps_cap * 2 : 8;
			struct jump *j = realloc(p->jumps, ncap * sizeof(*j));

			if (!j)
				return -1;
			p->jumps = j;
			p->jumps_cap = ncap;
		}
		p->jumps[p->njumps++] = s->found[i];
		changed++;
	}
	for (k = 0; k < s->nprocs; k++) {
		struct proc *p = &s->procs[k];

		if (p->njumps > p->next)
			qsort(p->jumps, p->njumps, sizeof(*p->jumps), cmp_jump);
		p->next = 0;
	}
	s->nfound = 0;
	return changed;
}

static int range_error(struct syncer *s, const struct picl_record *rec, const char *what)
{
	struct picl_error e = { 0 };

	e.code = PICL_ERR_RANGE;
	e.path = s->in.name;
	e.mark = rec->mark;
	snprintf(e.problem, sizeof(e.problem), "%s", what);
	picltrace_report(CMD, &e);
	return PICL_ERR_RANGE;
}

#define TOO_LONG "the corrected time would need more than 18 digits (a time keeps its " \
	"number of decimals)"

/* A correction of `units` steps of a record's time, rounded to whole steps;
 * half a step (give or take the arithmetic's dust) keeps the time as
 * written. Rounded away from zero, a midpoint on half a step (two-way
 * latencies of 1 and 2 steps put it there) moved every record of the
 * processor by a step, and a second sync moved them back: which way a tie
 * went was the dust's choice, and synced output did not stay put. */
static int64_t round_to_written(long double units)
{
	long double a = fabsl(units), whole = floorl(a);
	int64_t k = (int64_t)whole + (a - whole > 0.5L + 1e-6L);

	return units < 0 ? -k : k;
}

/* The corrected time of a record of processor p (>= 0). */
static int corrected(struct syncer *s, struct proc *p, const struct picl_record *rec,
		     struct picl_time *out)
{
	struct picl_time t = rec->time, nt = rec->time, c;
	int raised = 0;

	if (p->r) {
		long double delta = (long double)p->r->offset +
			(long double)p->r->drift * (long double)since_origin(s, t);
		long double units = delta * (long double)pow10_tab[t.scale];
		int64_t k;

		if (!(fabsl(units) < (long double)MANT_LIMIT))
			return range_error(s, rec, TOO_LONG);
		k = round_to_written(units);
		if ((k > 0 && t.mant > INT64_MAX - k) || (k < 0 && t.mant < INT64_MIN - k) ||
		    t.mant + k >= MANT_LIMIT || t.mant + k <= -MANT_LIMIT)
			return range_error(s, rec, TOO_LONG);
		nt.mant = t.mant + k;
	}
	/* keep the processor's order */
	if (p->have && picl_time_cmp(t, p->max_orig) >= 0 && picl_time_cmp(nt, p->max_new) < 0) {
		if (time_ceil(p->max_new, t.scale, &c) < 0)
			return range_error(s, rec, TOO_LONG);
		nt = c;
	}
	/* a receive that must follow its send */
	while (p->next < p->njumps && p->jumps[p->next].offset < rec->mark.offset)
		p->next++;
	if (p->next < p->njumps && p->jumps[p->next].offset == rec->mark.offset) {
		if (time_ceil(p->jumps[p->next].need, t.scale, &c) < 0)
			return range_error(s, rec, TOO_LONG);
		if (picl_time_cmp(nt, c) < 0) {
			nt = c;
			raised = 1;
		}
	}
	if (nt.mant >= MANT_LIMIT || nt.mant <= -MANT_LIMIT)
		return range_error(s, rec, TOO_LONG);
	s->raised += raised;
	if (!p->have || picl_time_cmp(t, p->max_orig) > 0)
		p->max_orig = t;
	if (!p->have || picl_time_cmp(nt, p->max_new) > 0)
		p->max_new = nt;
	if (!p->have) {
		p->first_orig = t;
		p->first_new = nt;
	}
	p->have = 1;
	*out = nt;
	return PICL_OK;
}

#define STAT_TOO_LONG "the rescaled time statistic would need more than 18 digits (a time " \
	"keeps its number of decimals)"

/* Room for n values and as many times' texts; -1 when out of memory. */
static int stat_room(struct syncer *s, size_t n)
{
	if (n > s->stat_values_cap) {
		struct picl_value *v = realloc(s->stat_values, n * sizeof(*v));

		if (!v)
			return -1;
		s->stat_values = v;
		s->stat_values_cap = n;
	}
	if (n > s->stat_text_cap / PICL_TIME_BUFSIZE) {
		char *t;

		if (n > SIZE_MAX / PICL_TIME_BUFSIZE || !(t = realloc(s->stat_text, n * PICL_TIME_BUFSIZE)))
			return -1;
		s->stat_text = t;
		s->stat_text_cap = n * PICL_TIME_BUFSIZE;
	}
	return 0;
}

/*
 * A time statistics record (-101) of processor p, whose clock runs at
 * 1 + drift of the reference's: every time it gives is a sum of intervals
 * between p's records, measured by p's clock, so it is stretched as they
 * were. Not by 1 + drift itself: each timestamp's correction is rounded to
 * its own decimals, and where the corrections round to nothing (a drift of
 * 0.1 ppm over 10 s) the intervals do not change, so neither may their sum
 * (multiplied by 1 + drift, a 10 s total gained a microsecond at every
 * sync of the output, and validate found it no longer the events' sum).
 * The stretch is that of p's records so far this pass, from its first to
 * its latest: (latest - first corrected) / (latest - first as read); the
 * drift only while they span no time. Exactly, as a timestamp is
 * corrected: the change is a whole number of units of the value's own
 * last decimal (rounded to the nearest, half a unit keeps the value), the
 * value keeps its number of decimals. Undefined times (-1) and zeros stay;
 * a value that does not change keeps its text byte for byte, a record with
 * no change is left alone. rec->values then points to s->stat_values.
 */
static int rescale_stats(struct syncer *s, const struct proc *p, struct picl_record *rec)
{
	long double drift = (long double)p->r->drift;
	double span = seconds_between(p->first_orig, p->max_orig);

	if (p->have && span > 0)
		drift = (long double)seconds_between(p->first_new, p->max_new) / (long double)span -
			1.0L;
	struct picl_value *vals;
	size_t k, npairs;
	int changed = 0;

	/* (suppressed conversions: the writer writes the data as read) */
	if (rec->nvalues == 0 || rec->nvalues % 2 != 0 ||
	    (rec->desc && picl_descriptor_has_suppressed(rec->desc)) ||
	    picl_stats_record_pairs(rec, NULL, 0) <= 0)
		return PICL_OK;  /* not (event, value) pairs: left as they are */
	npairs = rec->nvalues / 2;
	if (stat_room(s, rec->nvalues) < 0) {
		picltrace_error(CMD, "out of memory");
		return PICL_ERR_NOMEM;
	}
	vals = s->stat_values;
	memcpy(vals, rec->values, rec->nvalues * sizeof(*vals));
	for (k = 0; k < npairs; k++) {
		struct picl_value *v = &vals[2 * k + 1];
		struct picl_time t;
		int64_t d;

		if (v->kind == PICL_VAL_INT) {
			t.mant = v->v.i;
			t.scale = 0;
		} else if (v->kind == PICL_VAL_UINT && v->v.u <= (uint64_t)INT64_MAX) {
			t.mant = (int64_t)v->v.u;
			t.scale = 0;
		} else if ((v->kind == PICL_VAL_DOUBLE || v->kind == PICL_VAL_FLOAT) && v->text) {
			if (picl_time_parse(v->text, v->text_len, &t, NULL) != PICL_OK)
				return range_error(s, rec, "a time statistic with more than 18 digits "
						   "or decimals cannot be rescaled by the drift exactly");
		} else {
			continue;
		}
		if (t.mant <= 0)
			continue;
		d = round_to_written((long double)t.mant * drift);
		if (d == 0)
			continue;
		if (t.mant + d >= MANT_LIMIT || t.mant + d <= 0)
			return range_error(s, rec, STAT_TOO_LONG);
		t.mant += d;
		if (v->kind == PICL_VAL_INT) {
			v->v.i = t.mant;
			v->text = NULL;
		} else if (v->kind == PICL_VAL_UINT) {
			v->v.u = (uint64_t)t.mant;
			v->text = NULL;
		} else {
			char *buf = s->stat_text + (2 * k + 1) * PICL_TIME_BUFSIZE;

			v->text_len = picl_time_format(t, buf);
			v->text = buf;
			v->v.d = picl_time_to_double(t);
		}
		changed = 1;
	}
	if (changed)
		rec->values = vals;
	return PICL_OK;
}

/* One rewrite of the whole input, to w (or only counted when w is NULL). */
static int rewrite(struct syncer *s, struct picl_writer *w)
{
	struct picltrace_progress pg;
	struct picl_matcher *m;
	struct picl_reader *r;
	struct picl_record rec;
	uint64_t n = 0;
	size_t i;
	int rc;

	if (!(r = input_reader(&s->in)))
		return -1;
	if (!(m = picl_matcher_new(apply_match, s)) ||
	    picltrace_matcher_memory(m, s->opt->memory, s->opt->tmpdir) < 0) {
		picl_matcher_free(m);
		picl_reader_free(r);
		picltrace_error(CMD, "out of memory");
		return -1;
	}
	picl_matcher_set_defs(m, picl_reader_defs(r)); /* multicasts */
	for (i = 0; i < s->nprocs; i++) {
		s->procs[i].have = 0;
		s->procs[i].next = 0;
	}
	s->tachyons_after = s->unfixable = s->raised = 0;
	s->nfound = 0;
	s->have_body_min = s->have_header = 0;
	picltrace_progress_init(&pg, w ? "sync: writing" : "sync: checking",
				s->in.compressed ? 0 : s->in.size, s->opt->quiet);
	while ((rc = picl_reader_next(r, &rec)) == PICL_OK) {
		if ((++n & 0xffff) == 0)
			picltrace_progress(&pg, picl_reader_offset(r));
		if (!picl_is_header_type(rec.type) &&
		    (!s->have_body_min || picl_time_cmp(rec.time, s->body_min_in) < 0))
			s->body_min_in = rec.time;
		if (!picl_is_header_type(rec.type) && rec.processor >= 0) {
			struct proc *p = proc_find(s, rec.processor);

			if (p && (rc = corrected(s, p, &rec, &rec.time)) < 0)
				goto done;
			if (p && p->r && p->r->drift != 0 && rec.type == PICL_REC_STAT_TIME &&
			    (rc = rescale_stats(s, p, &rec)) < 0)
				goto done;
		}
		if (picl_is_header_type(rec.type)) {
			if (!s->have_header || picl_time_cmp(rec.time, s->header_max) > 0)
				s->header_max = rec.time;
			s->have_header = 1;
			if (s->cap_headers && picl_time_cmp(rec.time, s->header_cap) > 0)
				rec.time = s->header_cap;
		} else if (!s->have_body_min || picl_time_cmp(rec.time, s->body_min) < 0) {
			s->body_min = rec.time;
			s->have_body_min = 1;
		}
		if (w && (rc = picl_writer_write(w, &rec)) < 0) {
			struct picl_error e = *picl_writer_error(w);

			if (e.code != PICL_ERR_IO) {
				e.path = s->in.name;
				e.mark = rec.mark;
			}
			picltrace_report(CMD, &e);
			goto done;
		}
		if ((rc = picl_matcher_add(m, &rec)) < 0) {
			picltrace_error(CMD, "%s", picl_matcher_strerror(m));
			goto done;
		}
	}
	if (rc < 0)
		picltrace_report(CMD, picl_reader_error(r));
done:
	picltrace_progress_done(&pg);
	picl_matcher_free(m);
	picl_reader_free(r);
	return rc < 0 ? -1 : 0;
}

/*
 * Header records (-399..-301) keep their times, but precede the earliest
 * record (spec section 2.4, DESIGN.md point 8; merge writes them so): when
 * they did in the input and the last pass wrote one no earlier than a
 * record the correction moved, the header records later than one unit
 * before that record take that time in the next. 1 if the output must be
 * written again so, 0 if not (also once done: raised receives only make
 * records later).
 */
static int cap_headers(struct syncer *s)
{
	if (s->cap_headers || !s->have_header || !s->have_body_min ||
	    picl_time_cmp(s->header_max, s->body_min_in) >= 0 ||
	    picl_time_cmp(s->header_max, s->body_min) < 0)
		return 0;
	s->header_cap = runs_time_before(s->body_min);
	s->cap_headers = 1;
	return 1;
}

/* ------------------------------------------------------------------------ */
/* The report                                                                */
/* ------------------------------------------------------------------------ */

static const char *status_name(enum clock_status st)
{
	switch (st) {
	case CLOCK_REFERENCE: return "reference";
	case CLOCK_ROOT: return "root";
	case CLOCK_TWO_WAY: return "two-way";
	case CLOCK_ONE_WAY: return "one-way";
	case CLOCK_ALONE: return "no-messages";
	}
	return "?";
}

/* A processor's offset at t0 (the estimate's is at the origin): the same
 * correction, o + d * (t - origin) = o' + d * (t - t0). */
static double offset_at_t0(const struct syncer *s, const struct clock_result *r)
{
	return (double)((long double)r->offset +
			(long double)r->drift * (long double)seconds_between(s->origin, s->t0));
}

/* No "-0.000": values that print as zero are zero. */
static double tidy(double v, double unit)
{
	return fabs(v) < unit / 2 ? 0.0 : v;
}

static void print_note(FILE *out, const struct clock_result *r)
{
	const char *sep = "";

	fputs(status_name(r->status), out);
	if (r->status == CLOCK_ALONE)
		fputs(": clock kept", out);
	else if (r->status == CLOCK_ROOT)
		fputs(": no message path to the reference, clock kept", out);
	if (r->flags)
		fputs(" (", out);
	if (r->flags & CLOCK_F_DRIFT_UNDETERMINED) {
		fputs("drift not determined", out);
		sep = ", ";
	}
	if (r->flags & CLOCK_F_INCONSISTENT) {
		fprintf(out, "%sinconsistent", sep);
		sep = ", ";
	}
	if (r->flags & CLOCK_F_SHIFTED)
		fprintf(out, "%sshifted %.9f s", sep, tidy(r->shift, 1e-9));
	if (r->flags)
		fputc(')', out);
}

static void report_text(const struct syncer *s, FILE *out)
{
	const struct options *o = s->opt;
	char t0[PICL_TIME_BUFSIZE], lat[PICL_TIME_BUFSIZE];
	size_t i, n = clock_estimator_count(s->ce);
	int32_t ref = clock_estimator_reference(s->ce);

	if (s->have_t0)
		picl_time_format(s->t0, t0);
	else
		strcpy(t0, "-");
	picl_time_format(o->min_latency, lat);
	if (ref >= 0)
		fprintf(out, "reference processor %d, t0 %s, minimum latency %s s, ", (int)ref, t0,
			lat);
	else
		fprintf(out, "no messages between processors, t0 %s, minimum latency %s s, ", t0,
			lat);
	if (o->clock.no_drift)
		fputs("offsets only\n", out);
	else
		fprintf(out, "drift at most %g ppm\n", o->clock.max_drift * 1e6);
	fprintf(out, "%9s  %15s  %11s  %13s  %8s  %5s  %5s  %s\n", "processor", "offset (s)",
		"drift (ppm)", "+- (s)", "messages", "syncs", "via", "how");
	for (i = 0; i < n; i++) {
		const struct clock_result *r = clock_estimator_result(s->ce, i);
		char unc[32], via[16];

		if (r->uncertainty < 0 || r->status == CLOCK_ALONE)
			strcpy(unc, "-");
		else
			snprintf(unc, sizeof(unc), "%.9f", r->uncertainty);
		if (r->parent < 0)
			strcpy(via, "-");
		else
			snprintf(via, sizeof(via), "%d", (int)r->parent);
		fprintf(out, "%9d  %15.9f  %11.3f  %13s  %8llu  %5llu  %5s  ", (int)r->processor,
			tidy(offset_at_t0(s, r), 1e-9), tidy(r->drift * 1e6, 1e-3), unc,
			(unsigned long long)(r->sent + r->received),
			(unsigned long long)r->syncs, via);
		print_note(out, r);
		fputc('\n', out);
	}
	fprintf(out, "messages: %llu matched, %llu within one processor; %llu synchronisation constraints\n",
		(unsigned long long)s->matched, (unsigned long long)s->within,
		(unsigned long long)clock_estimator_sync_constraints(s->ce));
	fprintf(out, "tachyons: %llu before, %llu after", (unsigned long long)s->tachyons_before,
		(unsigned long long)s->tachyons_after);
	if (s->raised)
		fprintf(out, "; %llu receive%s raised to follow %s send%s",
			(unsigned long long)s->raised, s->raised == 1 ? "" : "s",
			s->raised == 1 ? "its" : "their", s->raised == 1 ? "" : "s");
	fputc('\n', out);
}

/* A number rounded to `unit` (floating-point dust such as 3e-18 s is 0). */
static void json_double(FILE *out, double v, double unit)
{
	if (isfinite(v)) {
		v = round(v / unit) * unit;
		fprintf(out, "%.12g", v == 0 ? 0.0 : v);
	} else {
		fputs("null", out);
	}
}

static void report_json(const struct syncer *s, FILE *out)
{
	const struct options *o = s->opt;
	char buf[PICL_TIME_BUFSIZE];
	size_t i, n = clock_estimator_count(s->ce);
	int32_t ref = clock_estimator_reference(s->ce);

	fputs("{\"reference\":", out);
	if (ref >= 0)
		fprintf(out, "%d", (int)ref);
	else
		fputs("null", out);
	fputs(",\"t0\":", out);
	if (s->have_t0) {
		picl_time_format(s->t0, buf);
		fprintf(out, "\"%s\"", buf);
	} else {
		fputs("null", out);
	}
	picl_time_format(o->min_latency, buf);
	fprintf(out, ",\"min_latency\":\"%s\",\"max_drift_ppm\":", buf);
	json_double(out, o->clock.no_drift ? 0 : o->clock.max_drift * 1e6, 1e-6);
	fprintf(out, ",\"messages\":%llu,\"within_processor\":%llu,\"sync_constraints\":%llu,"
		"\"tachyons_before\":%llu,\"tachyons_after\":%llu,\"raised\":%llu,\"processors\":[",
		(unsigned long long)s->matched, (unsigned long long)s->within,
		(unsigned long long)clock_estimator_sync_constraints(s->ce),
		(unsigned long long)s->tachyons_before, (unsigned long long)s->tachyons_after,
		(unsigned long long)s->raised);
	for (i = 0; i < n; i++) {
		const struct clock_result *r = clock_estimator_result(s->ce, i);

		fprintf(out, "%s{\"processor\":%d,\"status\":\"%s\",\"offset\":", i ? "," : "",
			(int)r->processor, status_name(r->status));
		json_double(out, offset_at_t0(s, r), 1e-12);
		fputs(",\"drift_ppm\":", out);
		json_double(out, r->drift * 1e6, 1e-6);
		fputs(",\"uncertainty\":", out);
		json_double(out, r->uncertainty < 0 || r->status == CLOCK_ALONE ? NAN : r->uncertainty,
			    1e-12);
		fputs(",\"shift\":", out);
		json_double(out, r->shift, 1e-12);
		fprintf(out, ",\"sent\":%llu,\"received\":%llu,\"syncs\":%llu,\"via\":",
			(unsigned long long)r->sent, (unsigned long long)r->received,
			(unsigned long long)r->syncs);
		if (r->parent >= 0)
			fprintf(out, "%d", (int)r->parent);
		else
			fputs("null", out);
		fprintf(out, ",\"drift_determined\":%s,\"consistent\":%s}",
			r->flags & CLOCK_F_DRIFT_UNDETERMINED ? "false" : "true",
			r->flags & CLOCK_F_INCONSISTENT ? "false" : "true");
	}
	fputs("]}\n", out);
}

/* ------------------------------------------------------------------------ */
/* The command                                                               */
/* ------------------------------------------------------------------------ */

static int parse_options(int argc, const char **argv, struct options *o, int *done)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "in-place", no_argument, NULL, 'I' },
		{ "zstd", no_argument, NULL, 'z' },
		{ "level", required_argument, NULL, 'l' },
		{ "reference", required_argument, NULL, 'r' },
		{ "min-latency", required_argument, NULL, 'L' },
		{ "max-drift", required_argument, NULL, 'D' },
		{ "no-drift", no_argument, NULL, 'N' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "report", no_argument, NULL, 'R' },
		{ "format", required_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "tmpdir", required_argument, NULL, 'T' },
		{ "memory", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	*done = 0;
	optind = 1;
	while ((c = getopt_long(argc, (char *const *)argv, "o:znT:qh", longopts, NULL)) != -1) {
		char *end;

		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case 'I':
			o->in_place = 1;
			break;
		case 'z':
			o->compress = 1;
			break;
		case 'l':
			if (picltrace_parse_level(CMD, optarg, &o->level) < 0)
				return -1;
			break;
		case 'r': {
			int64_t v;

			if (picltrace_int_option(CMD, "--reference", optarg, 0, INT32_MAX,
						 "a processor number", &v) < 0)
				return -1;
			o->clock.reference = (int32_t)v;
			break;
		}
		case 'L':
			if (picltrace_parse_time(CMD, "--min-latency", optarg,
						 "seconds (a number >= 0)", &o->min_latency) < 0)
				return -1;
			if (o->min_latency.mant < 0) {
				picltrace_error(CMD, "--min-latency takes seconds (a number >= 0), not '%s'",
						optarg);
				return -1;
			}
			o->clock.min_latency = picl_time_to_double(o->min_latency);
			break;
		case 'D': {
			double v;

			/* digits first (strtod takes blanks, '+', hex, inf) */
			errno = 0;
			v = (*optarg >= '0' && *optarg <= '9') || *optarg == '.' ?
				strtod(optarg, &end) : -1;
			if (v < 0 || *end || errno || optarg[strcspn(optarg, "xXpP")] ||
			    !(v >= 0 && v <= 100000)) {
				picltrace_error(CMD, "--max-drift takes parts per million (0 to 100000), not '%s'",
						optarg);
				return -1;
			}
			o->clock.max_drift = v * 1e-6;
			break;
		}
		case 'N':
			o->clock.no_drift = 1;
			break;
		case 'n':
			o->dry_run = 1;
			break;
		case 'R':
			o->report = 1;
			break;
		case 'f':
			if (strcmp(optarg, "json") == 0) {
				o->json = 1;
			} else if (strcmp(optarg, "text") == 0) {
				o->json = 0;
			} else {
				picltrace_error(CMD, "--format takes text or json, not '%s'", optarg);
				return -1;
			}
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'T':
			o->tmpdir = optarg;
			break;
		case 'M':
			if (picltrace_parse_memory(CMD, optarg, &o->memory) < 0)
				return -1;
			break;
		case 'h':
			fputs(sync_usage, stdout);
			fputs(sync_help, stdout);
			*done = 1;
			return 0;
		default:
			fputs(sync_usage, stderr);
			return -1;
		}
	}
	if (o->clock.max_drift == 0)
		o->clock.no_drift = 1;
	return 0;
}

/* Does the output `path` go where standard output goes ("-", /dev/stdout,
 * /dev/fd/1, or the very file standard output was redirected to)? A
 * terminal or /dev/null shows or drops both alike: only a file, pipe or
 * socket would get the report mixed into the trace. */
static int output_is_stdout(const char *path)
{
	struct stat so, sp;

	/* (the library takes /dev/stdout by name, whatever is on disk) */
	if (strcmp(path, "-") == 0 || strcmp(path, "/dev/stdout") == 0)
		return 1;
	if (fstat(1, &so) < 0 || stat(path, &sp) < 0)
		return 0;
	return so.st_dev == sp.st_dev && so.st_ino == sp.st_ino &&
	       (S_ISREG(so.st_mode) || S_ISFIFO(so.st_mode) || S_ISSOCK(so.st_mode));
}

static void syncer_release(struct syncer *s)
{
	size_t i;

	for (i = 0; i < s->nprocs; i++)
		free(s->procs[i].jumps);
	free(s->procs);
	free(s->found);
	free(s->found_proc);
	free(s->stat_values);
	free(s->stat_text);
	clock_estimator_free(s->ce);
	if (s->in.fd >= 0)
		close(s->in.fd);
}

int cmd_sync(int argc, const char **argv)
{
	struct options o;
	struct syncer s;
	struct picl_writer *w = NULL;
	struct picl_error err = { 0 };
	const char *input = "-";
	int done, rc, passes, status = 2;
	FILE *rout;

	memset(&o, 0, sizeof(o));
	o.output = NULL;
	o.clock.max_drift = 100e-6;
	o.clock.reference = -1;
	if (parse_options(argc, argv, &o, &done) < 0)
		return 2;
	if (done)
		return 0;
	if (argc - optind > 1) {
		picltrace_error(CMD, "one trace at a time (merge per-node traces first)");
		fputs(sync_usage, stderr);
		return 2;
	}
	if (optind < argc)
		input = argv[optind];
	if (!o.tmpdir)
		o.tmpdir = picltrace_tempdir(NULL);
	if (o.in_place) {
		if (o.output) {
			picltrace_error(CMD, "--in-place and --output exclude each other");
			return 2;
		}
		if (picltrace_in_place_ok(CMD, input) < 0)
			return 2;
		o.output = input;
	}
	if (!o.output)
		o.output = "-";
	o.compress = picltrace_wants_zstd(o.output, o.compress, o.level);
	if (!o.in_place && !o.dry_run) {
		const char *inputs[1];

		inputs[0] = input;
		if (picltrace_same_file(o.output, inputs, 1)) {
			picltrace_error(CMD, "%s: the output is also the input; use --in-place to replace it",
					picl_output_name(o.output));
			return 2;
		}
	}
	if (o.report && !o.dry_run && output_is_stdout(o.output)) {
		picltrace_error(CMD, "--report prints on standard output, where the trace goes; "
				"use -o FILE, --in-place or --dry-run");
		return 2;
	}

	memset(&s, 0, sizeof(s));
	s.opt = &o;
	s.in.fd = -1;
	if (input_open(&s.in, input, o.tmpdir) < 0)
		goto out;
	if (!(s.ce = clock_estimator_new())) {
		picltrace_error(CMD, "out of memory");
		goto out;
	}
	if (estimate(&s) < 0)
		goto out;
	if (clock_estimator_sync_late(s.ce) && estimate_sorted(&s) < 0)
		goto out;
	rc = clock_estimator_solve(s.ce, &o.clock);
	if (rc == CLOCK_ERR_REFERENCE) {
		/* a processor no record names is not one that kept quiet */
		picltrace_error(CMD, "%s: reference processor %d %s", s.in.name,
				(int)o.clock.reference,
				clock_estimator_find(s.ce, o.clock.reference) ?
				"exchanged no messages" : "is not in the trace");
		goto out;
	}
	if (rc < 0 || make_procs(&s) < 0) {
		picltrace_error(CMD, "out of memory");
		goto out;
	}
	if (o.in_place && s.in.compressed)
		o.compress = 1;

	/* To a file, write at once (a temporary file, thrown away if tachyons
	 * are left); standard output cannot take back what it was given, so
	 * check first there. Receives to raise are found without writing; then
	 * the trace is written once more. */
	if (!o.dry_run && strcmp(o.output, "-") != 0 &&
	    !(w = picltrace_open_output(CMD, o.output, o.compress, o.level)))
		goto out;
	if (rewrite(&s, w) < 0)
		goto out;
	for (passes = 1; s.tachyons_after > s.unfixable && passes <= MAX_FIX_PASSES; passes++) {
		long changed = merge_jumps(&s);

		if (changed < 0) {
			picltrace_error(CMD, "out of memory");
			goto out;
		}
		if (changed == 0)
			break;
		if (w) {
			picl_writer_abort(w);
			w = NULL;
		}
		if (rewrite(&s, NULL) < 0)
			goto out;
	}
	if (!o.dry_run && cap_headers(&s) && w) {
		picl_writer_abort(w);
		w = NULL;
	}
	if (!o.dry_run && !w) {
		if (merge_jumps(&s) < 0) {
			picltrace_error(CMD, "out of memory");
			goto out;
		}
		if (!(w = picltrace_open_output(CMD, o.output, o.compress, o.level)))
			goto out;
		if (rewrite(&s, w) < 0)
			goto out;
	}
	if (w) {
		rc = picl_writer_close(w, &err);
		w = NULL;
		if (rc < 0) {
			picltrace_report(CMD, &err);
			goto out;
		}
	}
	status = s.tachyons_after ? 1 : 0;
	rout = o.report ? stdout : (o.quiet ? NULL : stderr);
	if (rout) {
		if (o.json)
			report_json(&s, rout);
		else
			report_text(&s, rout);
	}
	if (s.late_unsorted && !o.quiet)
		picltrace_error(CMD, "note: %s is not sorted by time (%llu synchronisation call%s "
				"came over 4096 rounds after another process's): estimated from "
				"a sorted copy", s.in.name, (unsigned long long)s.late_unsorted,
				s.late_unsorted == 1 ? "" : "s");
	if (clock_estimator_sync_late(s.ce) && !o.quiet)
		picltrace_error(CMD, "%llu synchronisation call%s came after %s round%s had been "
				"taken without %s (another process was 4096 calls ahead%s%s): left out",
				(unsigned long long)clock_estimator_sync_late(s.ce),
				clock_estimator_sync_late(s.ce) == 1 ? "" : "s",
				clock_estimator_sync_late(s.ce) == 1 ? "its" : "their",
				clock_estimator_sync_late(s.ce) == 1 ? "" : "s",
				clock_estimator_sync_late(s.ce) == 1 ? "it" : "them",
				s.late_unsorted ? " even in time order" : "; ",
				s.late_unsorted ? "" : s.unsorted_why);
	if (s.tachyons_after && !o.quiet)
		picltrace_error(CMD, "%llu message%s still arrive%s before %s sent%s",
				(unsigned long long)s.tachyons_after,
				s.tachyons_after == 1 ? "" : "s", s.tachyons_after == 1 ? "s" : "",
				s.tachyons_after == 1 ? "it was" : "they were",
				s.unfixable ? " (a receive before its send on one processor)" : "");
out:
	if (w)
		picl_writer_abort(w);
	syncer_release(&s);
	return status;
}
