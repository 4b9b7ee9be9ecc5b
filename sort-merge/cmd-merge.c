/*
 * cmd-merge.c - `picltrace merge`: k-way merge of per-node traces.
 *
 * Each input must be sorted (checked as it goes) unless --unsorted asks to
 * sort each one first. The merge is by exact timestamp and stable by
 * argument order. With more inputs than file descriptors allow, groups of
 * inputs are merged into temporary runs first (runs.c), so hundreds of
 * inputs work. Unless --no-header, the output starts with header records
 * describing the merge (DESIGN.md point 8): -301 what made the trace (or
 * --identity's text), one -306 per input file (unless --no-sources), -307
 * the processors seen, timestamped one unit of the
 * finest scale before the earliest record. Knowing the processors needs the
 * whole input: when every input can be read twice (files, temporary runs)
 * a first pass on every core collects them and the earliest time, and the
 * merge then writes straight after the header; otherwise (standard input)
 * the merged records go to a temporary file first and are copied after it.
 */
#include "builtin.h"
#include "fdio.h"
#include "intmap.h"
#include "runs.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The most bytes of an --identity text: far below a record's 1 MiB. */
#define IDENTITY_MAX 4096

static const char merge_usage[] =
	"usage: picltrace merge [-o FILE] [--unsorted] [--no-header] [--identity=TEXT]\n"
	"                       [--no-sources] [--memory=SIZE] [--tmpdir=DIR] [-z]\n"
	"                       [--level=N] [--quiet] FILE...\n"
	"\n"
	"  -o, --output=FILE  write to FILE instead of standard output\n"
	"  -u, --unsorted     sort each input first (default: inputs must be sorted)\n"
	"      --no-header    do not add header records describing the inputs\n"
	"      --identity=TEXT  the header's -301 record (what the trace is) says\n"
	"                     TEXT (default \"merged by picltrace merge from N inputs\")\n"
	"      --no-sources   no -306 header records naming the input files (for\n"
	"                     inputs that will not be kept)\n"
	"  -m, --memory=SIZE  the most memory the whole process may use (default a\n"
	"                     quarter of the usable memory 'picltrace --resources'\n"
	"                     shows): the inputs merged at once\n"
	"                     share it; with --unsorted, each is sorted within it\n"
	"  -T, --tmpdir=DIR   where temporary files go (default $TMPDIR or /tmp)\n"
	"  -z, --zstd         compress the output with zstd (also\n"
	"                     implied by --level, or an output FILE named *.zst)\n"
	"      --level=N      zstd compression level (1-19, default 3)\n"
	"  -q, --quiet        no progress line (one is shown on a terminal)\n"
	"  -h, --help         show this help\n"
	"\n"
	"Records with equal timestamps come out in the order of the inputs on the\n"
	"command line. The inputs' leading definition records (-6, -201..-203)\n"
	"come first; a record whose alias resolves otherwise in the output is\n"
	"written with its control string (Definitions in picltrace-merge(1)).\n"
	"FILE - is standard input (once). A file given twice (under any name) is\n"
	"refused.\n";

/*
 * The processors seen, for the -307 header record: a set of ids (open
 * addressing, linear probing, at most half full; -1 marks an empty slot,
 * since negative ids are not listed), sorted once when the header is
 * written. Records come in time order, not by processor, so a sorted array
 * would move half of itself for every new id: a million processors took
 * minutes. intmap.h's map would do, but its 16-byte slots carry an index
 * this set does not need; these take 4.
 */
/* Processors listed by one -307 record: 65536 ids of up to 11 bytes
 * stay under the readers' 1 MiB limit on a record (max_record); more
 * processors take several -307 records. */
#define PROCS_PER_RECORD 65536

struct procs {
	int32_t *v;        /* cap slots; after procs_sort, the n ids sorted */
	size_t n, cap;
	int32_t last;
	int any;
};

/* Grow the set to twice its slots. 0, or -1 when out of memory (the set is
 * as it was). */
static int procs_grow(struct procs *ps)
{
	size_t ncap = ps->cap ? ps->cap * 2 : 64, mask = ncap - 1, i, k;
	int32_t *v;

	if (ps->cap > SIZE_MAX / 2 / sizeof(*v))
		return -1;
	v = malloc(ncap * sizeof(*v));
	if (!v)
		return -1;
	memset(v, 0xff, ncap * sizeof(*v));
	for (k = 0; k < ps->cap; k++) {
		if (ps->v[k] < 0)
			continue;
		for (i = (size_t)intmap_hash((uint32_t)ps->v[k]) & mask; v[i] >= 0; i = (i + 1) & mask)
			;
		v[i] = ps->v[k];
	}
	free(ps->v);
	ps->v = v;
	ps->cap = ncap;
	return 0;
}

/* Note processor p. 0, or -1 after reporting that the set cannot grow:
 * a header listing fewer processors than the trace has would be wrong. */
static int saw(void *ctx, int32_t p)
{
	struct procs *ps = ctx;
	size_t mask, i;

	if ((ps->any && p == ps->last) || p < 0)
		return 0;
	ps->any = 1;
	ps->last = p;
	if ((ps->n + 1) * 2 > ps->cap && procs_grow(ps) < 0) {
		ps->any = 0;    /* p is not in the set: do not skip it next time */
		picltrace_error("merge", "out of memory listing the processors for the header "
				"(%zu so far; --no-header does without)", ps->n);
		return -1;
	}
	mask = ps->cap - 1;
	for (i = (size_t)intmap_hash((uint32_t)p) & mask; ps->v[i] >= 0; i = (i + 1) & mask)
		if (ps->v[i] == p)
			return 0;
	ps->v[i] = p;
	ps->n++;
	return 0;
}

/* Gather the ids to the front of the slots and sort them: v[0..n) lists
 * the processors in increasing order. The set takes no more ids after. */
static void procs_sort(struct procs *ps)
{
	size_t i, j;

	for (i = j = 0; i < ps->cap; i++)
		if (ps->v[i] >= 0)
			ps->v[j++] = ps->v[i];
	qsort(ps->v, ps->n, sizeof(*ps->v), picltrace_cmp_i32);
}

static struct picl_writer *temp_writer(const struct runs_config *cfg, int *fd, int compress)
{
	struct picl_writer_options o = { 0 };
	struct picl_writer *w;
	int rc;

	*fd = runs_tempfile(cfg);
	if (*fd < 0)
		return NULL;
	o.compress = compress;
	o.level = 1;
	w = picl_writer_open_fd(*fd, "temporary file", &o, &rc, NULL);
	if (!w) {
		close(*fd);
		*fd = -1;
		picltrace_error("merge", "out of memory");
	}
	return w;
}

static int close_temp(struct picl_writer *w)
{
	struct picl_error err = { 0 };

	if (picl_writer_close(w, &err) < 0) {
		picltrace_report("merge", &err);
		return -1;
	}
	return 0;
}

/* Sort one input into a temporary run (for --unsorted), showing progress
 * on prog as *done + the bytes read of it, which are then added to *done.
 * Returns its fd. */
static int sort_input(const struct runs_config *cfg, const char *path,
		      struct picltrace_progress *prog, uint64_t *done)
{
	struct picl_reader *r = runs_open("merge", path, RUNS_READ_DEFS);
	struct sorter *s = NULL;
	struct picl_writer *w = NULL;
	int fd = -1, rc;

	if (!r)
		return -1;
	s = sorter_new(cfg);
	if (!s || sorter_add_all(s, r, prog, *done) < 0)
		goto fail;
	*done += picl_reader_offset(r);
	w = temp_writer(cfg, &fd, 1);
	if (!w || sorter_finish(s, w) < 0)
		goto fail;
	rc = close_temp(w);
	w = NULL;
	if (rc < 0)
		goto fail;
	picl_reader_free(r);
	sorter_free(s);
	return fd;
fail:
	if (w)
		picl_writer_abort(w);
	if (fd >= 0)
		close(fd);
	picl_reader_free(r);
	sorter_free(s);
	return -1;
}

/*
 * A source of the merge: an input file by name (read and checked as it
 * goes) or a temporary run by descriptor.
 */
struct input {
	const char *name;
	int fd;            /* >= 0: a temporary run */
	uint64_t cost;     /* what reading it takes beside its buffer: its
			      zstd decoder (runs.h) */
	unsigned level;    /* --unsorted: how many merges made it (see plan) */
};

/*
 * What reading input `name` takes beside its buffer: nothing for plain
 * text; for zstd, a decoder with the window its frame header declares
 * (RFC 8878, 3.1.1.1). Only regular files are looked at (a pipe would lose
 * the bytes); others, and frames that do not say, count as 8 MiB of window
 * (zstd -19's).
 */
static uint64_t input_cost(const char *name)
{
	static const unsigned char magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };
	static const unsigned dict_len[4] = { 0, 1, 2, 4 }, fcs_len[4] = { 1, 2, 4, 8 };
	unsigned char h[18];
	uint64_t window = 8u << 20;
	struct stat st;
	ssize_t got;
	unsigned fhd, p, k;
	int fd;

	if (strcmp(name, "-") == 0 || stat(name, &st) < 0 || !S_ISREG(st.st_mode))
		return RUNS_ZSTD_COST(window);
	fd = open(name, O_RDONLY);
	if (fd < 0)
		return 0;       /* the merge says why when it opens it */
	got = read(fd, h, sizeof(h));
	close(fd);
	if (got >= 4 && (h[0] & 0xf0) == 0x50 && h[1] == 0x2a && h[2] == 0x4d && h[3] == 0x18)
		return RUNS_ZSTD_COST(window);  /* a skippable frame first */
	if (got < 4 || memcmp(h, magic, 4) != 0)
		return 0;                       /* plain text */
	if (got < 6)
		return RUNS_ZSTD_COST(window);
	fhd = h[4];
	if (!(fhd & 0x20)) {
		/* Window_Descriptor: exponent and eighths */
		uint64_t base = 1ULL << (10 + (h[5] >> 3));

		return RUNS_ZSTD_COST(base + base / 8 * (h[5] & 7));
	}
	/* Single segment: the window is the content, Frame_Content_Size */
	p = 5 + dict_len[fhd & 3];
	k = fcs_len[fhd >> 6];
	if (p + k > (size_t)got)
		return RUNS_ZSTD_COST(window);
	for (window = 0; k-- > 0;)
		window = window << 8 | h[p + k];
	if ((fhd >> 6) == 1)
		window += 256;
	return RUNS_ZSTD_COST(window);
}

/* The size of the file name to show progress against: a plain text
 * file's, else 0 (unknown: standard input, a pipe, or zstd, whose reader
 * counts what it decompresses to). */
static uint64_t plain_size(const char *name)
{
	struct stat st;

	if (strcmp(name, "-") == 0 || stat(name, &st) < 0 || !S_ISREG(st.st_mode) ||
	    input_cost(name) != 0)
		return 0;
	return (uint64_t)st.st_size;
}

/*
 * How many of in[0..n) one merge takes at most: within the descriptors
 * (fan), and within the budget with each reader's decoder and the least
 * buffer, RUNS_BUFFER_MIN; 2 at least, so that rounds make progress.
 */
static size_t group(const struct runs_config *cfg, const struct input *in, size_t n,
		    size_t fan)
{
	uint64_t budget = runs_budget(cfg->memory), used = 0;
	size_t k;

	for (k = 0; k < n && k < fan; k++) {
		used += in[k].cost + RUNS_BUFFER_MIN;
		if (used > budget)
			break;
	}
	return k >= 2 ? k : n < 2 ? n : 2;
}

/* The bytes of in[0..n) to show progress against: the sum of their
 * plain_size, or 0 (unknown) when one has none (a temporary run is zstd). */
static uint64_t inputs_size(const struct input *in, size_t n)
{
	uint64_t total = 0, size;
	size_t i;

	for (i = 0; i < n; i++) {
		if (in[i].fd >= 0 || (size = plain_size(in[i].name)) == 0)
			return 0;
		total += size;
	}
	return total;
}

/* What merge_readers is told of each record the final merge writes: its
 * processor (for the header's -307, when ps is set), and, every 4096
 * records, the progress line, at the sum of the readers' offsets. */
struct watch {
	struct procs *ps;
	struct picl_reader **r;
	size_t n;
	struct picltrace_progress *prog;
	unsigned tick;
};

static int watch(void *ctx, int32_t p)
{
	struct watch *wa = ctx;

	if (wa->ps && saw(wa->ps, p) < 0)
		return -1;
	if (wa->prog && (++wa->tick & 0xfff) == 0) {
		uint64_t done = 0;
		size_t i;

		for (i = 0; i < wa->n; i++)
			done += picl_reader_offset(wa->r[i]);
		picltrace_progress(wa->prog, done);
	}
	return 0;
}

/* Merge inputs[0..n) into w, their readers sharing the budget; with what
 * (the final merge: "merge: merging"), a progress line so named unless
 * --quiet. */
static int merge_inputs(const struct runs_config *cfg, struct input *in, size_t n,
			struct picl_writer *w, struct procs *ps, const char *what)
{
	struct picl_reader **r = calloc(n, sizeof(*r));
	struct picltrace_progress prog;
	struct watch wa = { ps, r, n, what ? &prog : NULL, 0 };
	uint64_t decoders = 0;
	size_t i, buffer;
	int rc = -1;

	if (!r) {
		picltrace_error("merge", "out of memory");
		return -1;
	}
	for (i = 0; i < n; i++)
		decoders += in[i].cost;
	buffer = runs_buffer(runs_budget(cfg->memory), n, decoders);
	for (i = 0; i < n; i++) {
		r[i] = in[i].fd >= 0 ? runs_reopen_defs("merge", in[i].fd, in[i].name, buffer) :
				      runs_open_buffer("merge", in[i].name, RUNS_READ_DEFS, buffer);
		if (!r[i])
			goto out;
	}
	if (what)
		picltrace_progress_init(&prog, what, inputs_size(in, n), cfg->quiet);
	rc = merge_readers(cfg, r, n, 1, w, ps || what ? watch : NULL, &wa);
	if (what && rc == 0)
		picltrace_progress_done(&prog);
out:
	for (i = 0; i < n; i++)
		picl_reader_free(r[i]);
	free(r);
	return rc;
}

/*
 * The header's processors and time read ahead from the inputs themselves:
 * every processor id, and the earliest of the records that can come first
 * (the header records of the inputs, which a sorted input has in front,
 * and its first event record), one unit before.
 * 1 if done, 0 if some input cannot be read twice (standard input, a pipe),
 * -1 after reporting an error. A progress line ("merge: scanning") unless
 * quiet: the pass reads every input once more before the merge does.
 */
static int prescan(struct input *in, size_t n, struct procs *ps, struct picl_time *t,
		   int quiet)
{
	struct picltrace_progress prog;
	struct picl_record rec;
	struct stat st;
	uint64_t base = 0, count = 0;
	size_t i;
	int have = 0, rc;

	for (i = 0; i < n; i++)
		if (in[i].fd < 0 && (strcmp(in[i].name, "-") == 0 ||
				     stat(in[i].name, &st) < 0 || !S_ISREG(st.st_mode)))
			return 0;
	t->mant = 0;
	t->scale = 0;
	picltrace_progress_init(&prog, "merge: scanning", inputs_size(in, n), quiet);
	for (i = 0; i < n; i++) {
		struct picl_reader *r = in[i].fd >= 0 ?
			runs_reopen("merge", in[i].fd, in[i].name, 0) :
			runs_open("merge", in[i].name, PICL_READ_PARALLEL);
		int first = 1;

		if (!r)
			return -1;
		while ((rc = picl_reader_next(r, &rec)) == PICL_OK) {
			if (saw(ps, rec.processor) < 0) {
				picl_reader_free(r);
				return -1;
			}
			if ((++count & 0xfff) == 0)
				picltrace_progress(&prog, base + picl_reader_offset(r));
			if (first) {
				if (!picl_is_header_type(rec.type) &&
				    !picl_is_definition_type(rec.type))
					first = 0;
				if (!have || picl_time_cmp(rec.time, *t) < 0)
					*t = rec.time;
				have = 1;
			}
		}
		if (rc != PICL_END) {
			picltrace_report("merge", picl_reader_error(r));
			picl_reader_free(r);
			return -1;
		}
		base += picl_reader_offset(r);
		picl_reader_free(r);
	}
	picltrace_progress_done(&prog);
	if (have)
		*t = runs_time_before(*t);
	return 1;
}

/*
 * A header record of characters (-301, -306): text as its data, where
 * control characters (a newline would end the record) and a backslash at
 * its end (which would continue it) are written as '?'. An empty text
 * writes nothing. 0, or -1 (*nomem set when out of memory).
 */
static int write_chars(struct picl_writer *w, struct picl_record *rec, int32_t type,
		       const char *text, int *nomem)
{
	size_t n = strlen(text), k;
	char *buf;
	int rc;

	if (n == 0)
		return 0;
	buf = malloc(n + 2);
	if (!buf) {
		*nomem = 1;
		return -1;
	}
	buf[0] = ' ';
	memcpy(buf + 1, text, n + 1);
	for (k = 1; k <= n; k++)
		if ((unsigned char)buf[k] < 0x20 || buf[k] == 0x7f || (k == n && buf[k] == '\\'))
			buf[k] = '?';
	rec->type = type;
	rec->alias = 0;
	rec->nfields = n;
	rec->data = buf;
	rec->data_len = n + 1;
	rc = picl_writer_write(w, rec);
	free(buf);
	return rc < 0 ? -1 : 0;
}

/* Header records: -301 (identity, or what made the trace), one -306 per
 * input unless !sources, -307 (ps is sorted for it). */
static int write_header(struct picl_writer *w, const char *identity, int sources,
			const char *const *names, size_t n, struct procs *ps, struct picl_time t)
{
	struct picl_record rec;
	struct picl_value *vals = NULL;
	struct picl_descriptor *d = NULL;
	char text[128];
	size_t i;
	int rc = -1, nomem = 0;

	picl_record_init(&rec);
	rec.event = -1;
	rec.time = t;
	rec.processor = -1;
	rec.process = -1;
	if (!identity) {
		snprintf(text, sizeof(text), "merged by picltrace merge from %zu input%s", n,
			 n == 1 ? "" : "s");
		identity = text;
	}
	if (write_chars(w, &rec, -301, identity, &nomem) < 0)
		goto fail;
	for (i = 0; sources && i < n; i++)
		if (write_chars(w, &rec, -306, names[i], &nomem) < 0)
			goto fail;
	if (ps->n) {
		procs_sort(ps);
		vals = calloc(ps->n < PROCS_PER_RECORD ? ps->n : PROCS_PER_RECORD, sizeof(*vals));
		if (!vals || picl_descriptor_compile("%d", 2, &d, NULL) < 0) {
			nomem = 1;
			goto fail;
		}
		rec.type = -307;
		rec.alias = 2;
		rec.desc = d;
		rec.values = vals;
		rec.data = NULL;
		rec.data_len = 0;
		for (i = 0; i < ps->n; i += rec.nvalues) {
			size_t k;

			rec.nvalues = ps->n - i < PROCS_PER_RECORD ? ps->n - i : PROCS_PER_RECORD;
			rec.nfields = rec.nvalues;
			for (k = 0; k < rec.nvalues; k++) {
				vals[k].kind = PICL_VAL_INT;
				vals[k].v.i = ps->v[i + k];
			}
			if (picl_writer_write(w, &rec) < 0)
				goto fail;
		}
	}
	rc = 0;
fail:
	if (nomem)
		picltrace_error("merge", "out of memory");
	else if (rc < 0)
		picltrace_report("merge", picl_writer_error(w));
	free(vals);
	picl_descriptor_free(d);
	return rc;
}

/* The earliest time of the merged body's header records and first event
 * record (they lead it), just before. */
static int header_time(int fd, struct picl_time *t)
{
	struct picl_reader *r = runs_reopen("merge", fd, "temporary file", 0);
	struct picl_record rec;
	int rc, have = 0;

	if (!r)
		return -1;
	t->mant = 0;
	t->scale = 0;
	while ((rc = picl_reader_next(r, &rec)) == PICL_OK) {
		if (!have || picl_time_cmp(rec.time, *t) < 0)
			*t = rec.time;
		have = 1;
		if (!picl_is_header_type(rec.type) && !picl_is_definition_type(rec.type))
			break;
	}
	if (have)
		*t = runs_time_before(*t);
	picl_reader_free(r);
	return rc < 0 && rc != PICL_END ? -1 : 0;
}

/* Copy the temporary body after the header. */
static int copy_body(int fd, struct picl_writer *w)
{
	char buf[1 << 16];
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (picl_writer_write_raw(w, buf, (size_t)n) < 0) {
			picltrace_report("merge", picl_writer_error(w));
			return -1;
		}
	if (n < 0) {
		picltrace_error("merge", "cannot read a temporary file: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* Merge in[at .. at+k) into one temporary run, which takes their place
 * (in[at]); *n shrinks by k - 1. 0, or -1 after reporting. */
static int merge_group(const struct runs_config *cfg, struct input *in, size_t *n,
		       size_t at, size_t k)
{
	struct picl_writer *w;
	size_t i;
	int fd;

	w = temp_writer(cfg, &fd, 1);
	if (!w)
		return -1;
	if (merge_inputs(cfg, in + at, k, w, NULL, NULL) < 0) {
		picl_writer_abort(w);
		close(fd);
		return -1;
	}
	if (close_temp(w) < 0) {
		close(fd);
		return -1;
	}
	for (i = at; i < at + k; i++)
		if (in[i].fd >= 0)
			close(in[i].fd);
	in[at].name = "temporary run";
	in[at].fd = fd;
	in[at].cost = RUNS_RUN_COST;
	memmove(in + at + 1, in + at + k, (*n - at - k) * sizeof(*in));
	*n -= k - 1;
	return 0;
}

/*
 * One round: the inputs, in order, merged by as many as a merge takes
 * (group) into temporary runs in their place, which keeps ties in
 * argument order. A round divides their number by about that many; a
 * record is written once a round. 0, or -1 after reporting.
 */
static int merge_round(const struct runs_config *cfg, struct input *in, size_t *n, size_t fan)
{
	size_t at;

	for (at = 0; at + 1 < *n; at++)
		if (merge_group(cfg, in, n, at, group(cfg, in + at, *n - at, fan)) < 0)
			return -1;
	return 0;
}

/*
 * Merge in[0 .. *n) into temporary runs until one merge takes them all.
 * The inputs are cut into as many consecutive parts as one merge takes,
 * and each part is brought down to one run (the same way) before the next
 * is begun: the runs that wait are at most a fan-in's per level of a few,
 * where a round over all the inputs held one per merge, n / fan-in (1,200
 * inputs failed under a limit of 64 descriptors). Ties keep argument
 * order: every merge takes consecutive inputs. 0, or -1 after reporting.
 */
static int merge_tree(const struct runs_config *cfg, struct input *in, size_t *n, size_t fan)
{
	size_t g;

	while ((g = group(cfg, in, *n, fan)) < *n) {
		size_t part = (*n + g - 1) / g, at;

		for (at = 0; at < *n; at++) {
			size_t k = part < *n - at ? part : *n - at, sub = k;

			if (k < 2)
				continue;
			if (merge_tree(cfg, in + at, &sub, fan) < 0)
				return -1;
			/* the part is sub inputs now: close the gap behind it */
			memmove(in + at + sub, in + at + k, (*n - at - k) * sizeof(*in));
			*n -= k - sub;
			if (sub > 1 && merge_group(cfg, in, n, at, sub) < 0)
				return -1;
		}
	}
	return 0;
}

/*
 * --unsorted sorts each input into a temporary run, and the runs wait,
 * a descriptor each, until the last input is in; only `fan` may be open.
 * They are merged as they come like the digits of a counter: base[j] runs
 * of level j (level 0: one input, sorted) become one run of level j + 1 as
 * soon as they are there, so a record is written once a level, whatever
 * the number of inputs. (Merging all the waiting runs each time fan were
 * open rewrote the first inputs' records on every such round: n^2 / fan.)
 * At most base[j] - 1 runs of each level wait, plus the one just sorted;
 * n inputs need bases that multiply to n at least.
 */
struct plan {
	size_t levels;
	size_t base[64];
};

/* The bases of `levels` levels whose waiting runs fit within fan, each
 * at most `most` (what one merge takes of --memory), as equal as they can
 * be (which makes their product the largest): that product, at most n;
 * 0 if there is no such plan (a base under 2). */
static size_t plan_bases(struct plan *p, size_t levels, size_t n, size_t fan, size_t most)
{
	size_t total = fan - 1 + levels, prod = 1, j;   /* the sum of the bases */

	if (total / levels < 2)
		return 0;
	for (j = 0; j < levels; j++) {
		size_t g = total / levels + (j < total % levels);

		p->base[j] = g < most ? g : most;
		prod = prod > n / p->base[j] ? n : prod * p->base[j];
	}
	p->levels = levels;
	return prod;
}

/* The fewest levels for n inputs. With too few descriptors for any (2^(fan
 * - 1) inputs and more), those that take the most: the level above the
 * last is then never merged, and when fan runs wait they are all merged
 * (cmd_merge), every product-of-the-bases inputs instead of every fan. */
static void unsorted_plan(struct plan *p, size_t n, size_t fan, size_t most)
{
	size_t levels, prod, best = 0, best_levels = 1;

	for (levels = 1; levels <= sizeof(p->base) / sizeof(p->base[0]); levels++) {
		prod = plan_bases(p, levels, n, fan, most);
		if (prod >= n)
			return;
		if (prod == 0)
			break;
		if (prod > best) {
			best = prod;
			best_levels = levels;
		}
	}
	plan_bases(p, best_levels, n, fan, most);
}

/* After a run was added at in[*n - 1]: merge the last base[j] runs while
 * they are all of level j. Ties keep argument order: the runs merged are
 * consecutive. 0, or -1 after reporting. */
static int carry(const struct runs_config *cfg, struct input *in, size_t *n,
		 const struct plan *p)
{
	for (;;) {
		unsigned level = in[*n - 1].level;
		size_t g = level < p->levels ? p->base[level] : 0;

		if (g < 2 || *n < g || in[*n - g].level != level)
			return 0;
		if (merge_group(cfg, in, n, *n - g, g) < 0)
			return -1;
		in[*n - 1].level = level + 1;
	}
}

int cmd_merge(int argc, const char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "unsorted", no_argument, NULL, 'u' },
		{ "no-header", no_argument, NULL, 'H' },
		{ "identity", required_argument, NULL, 'I' },
		{ "no-sources", no_argument, NULL, 'S' },
		{ "memory", required_argument, NULL, 'm' },
		{ "tmpdir", required_argument, NULL, 'T' },
		{ "zstd", no_argument, NULL, 'z' },
		{ "level", required_argument, NULL, 'l' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct runs_config cfg = { "merge", NULL, 0, 0, 0 };
	struct procs ps = { 0 };
	struct input *in = NULL;
	struct picl_writer *w = NULL, *body = NULL;
	const char *output = "-", *identity = NULL;
	const char *const *names;
	size_t n, m, i, j, nstdin, fan = runs_fan_in();
	int c, unsorted = 0, header = 1, sources = 1, compress = 0, level = 0, status = 2, body_fd = -1;
	int scanned = 0;
	struct picl_time t = { 0, 0 };
	struct plan plan = { 0, { 0 } };
	struct picltrace_progress sorting;
	uint64_t most, sorted = 0;

	optind = 1;
	while ((c = getopt_long(argc, (char *const *)argv, "o:um:T:zqh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': output = optarg; break;
		case 'u': unsorted = 1; break;
		case 'H': header = 0; break;
		case 'S': sources = 0; break;
		case 'I':
			if (strlen(optarg) > IDENTITY_MAX) {
				picltrace_error("merge", "--identity: longer than %d bytes",
						IDENTITY_MAX);
				return 2;
			}
			identity = optarg;
			break;
		case 'T': cfg.tmpdir = optarg; break;
		case 'z': compress = 1; break;
		case 'q': cfg.quiet = 1; break;
		case 'm':
			if (picltrace_parse_memory("merge", optarg, &cfg.memory) < 0)
				return 2;
			break;
		case 'l':
			if (picltrace_parse_level("merge", optarg, &level) < 0)
				return 2;
			break;
		case 'h':
			fputs(merge_usage, stdout);
			return 0;
		default:
			return picltrace_bad_usage(merge_usage);
		}
	}
	compress = picltrace_wants_zstd(output, compress, level);
	if (optind >= argc) {
		picltrace_error("merge", "no input given (\"-\" reads standard input)");
		return picltrace_bad_usage(merge_usage);
	}
	names = argv + optind;
	n = (size_t)(argc - optind);
	for (i = 0, nstdin = 0; i < n; i++)
		nstdin += strcmp(names[i], "-") == 0;
	if (nstdin > 1) {
		picltrace_error("merge", "standard input (-) can be only one of the inputs");
		return 2;
	}
	if (picltrace_distinct_inputs("merge", names, (int)n) < 0)
		return 2;
	if (picltrace_same_file(output, names, (int)n)) {
		picltrace_error("merge", "%s: the output is also an input; refusing to overwrite it",
				picl_output_name(output));
		return 2;
	}
	if (!cfg.memory)
		cfg.memory = picltrace_default_memory();
	runs_fresh_buffers();
	in = calloc(n, sizeof(*in));
	if (!in) {
		picltrace_error("merge", "out of memory");
		return 2;
	}
	/* --unsorted: each input is sorted into a temporary run held open,
	 * merged with the runs before it as the plan says; should `fan` of
	 * them be open still (too many inputs for the plan), they are merged
	 * in a round (stable: they are the earliest inputs, and stay in
	 * front), which makes runs above the plan's levels. */
	most = runs_budget(cfg.memory) / (RUNS_RUN_COST + RUNS_BUFFER_MIN);
	if (unsorted) {
		uint64_t total = 0, size = 0;

		unsorted_plan(&plan, n, fan, most < 2 ? 2 : most < fan ? (size_t)most : fan);
		for (i = 0; i < n && (size = plain_size(names[i])) != 0; i++)
			total += size;
		picltrace_progress_init(&sorting, "merge: sorting", size ? total : 0, cfg.quiet);
	}
	for (i = 0, m = 0; i < n; i++) {
		in[m].name = names[i];
		in[m].fd = unsorted ? sort_input(&cfg, names[i], &sorting, &sorted) : -1;
		if (unsorted && in[m].fd < 0)
			goto out;
		in[m].cost = unsorted ? RUNS_RUN_COST : input_cost(names[i]);
		in[m].level = 0;
		m++;
		if (!unsorted || i + 1 == n)
			continue;
		if (carry(&cfg, in, &m, &plan) < 0)
			goto out;
		if (m == fan) {
			if (merge_round(&cfg, in, &m, fan) < 0)
				goto out;
			for (j = 0; j < m; j++)
				in[j].level = (unsigned)plan.levels;
		}
	}
	if (unsorted)
		picltrace_progress_done(&sorting);
	n = m;
	/* Merge in parts while there are more inputs than descriptors or
	 * --memory allow at once. */
	if (merge_tree(&cfg, in, &n, fan) < 0)
		goto out;
	if (header && (scanned = prescan(in, n, &ps, &t, cfg.quiet)) < 0)
		goto out;
	if (header && scanned) {
		w = picltrace_open_output("merge", output, compress, level);
		if (!w || write_header(w, identity, sources, names, (size_t)(argc - optind), &ps, t) < 0 ||
		    merge_inputs(&cfg, in, n, w, NULL, "merge: merging") < 0)
			goto out;
	} else if (header) {
		body = temp_writer(&cfg, &body_fd, 0);
		if (!body)
			goto out;
		if (merge_inputs(&cfg, in, n, body, &ps, "merge: merging") < 0)
			goto out;
		{
			struct picl_writer *tmp = body;

			body = NULL;
			if (close_temp(tmp) < 0)
				goto out;
		}
		if (header_time(body_fd, &t) < 0)
			goto out;
		w = picltrace_open_output("merge", output, compress, level);
		if (!w || write_header(w, identity, sources, names, (size_t)(argc - optind), &ps, t) < 0 ||
		    copy_body(body_fd, w) < 0)
			goto out;
	} else {
		w = picltrace_open_output("merge", output, compress, level);
		if (!w || merge_inputs(&cfg, in, n, w, NULL, "merge: merging") < 0)
			goto out;
	}
	{
		struct picl_error err = { 0 };
		struct picl_writer *tmp = w;

		w = NULL;
		if (picl_writer_close(tmp, &err) < 0) {
			picltrace_report("merge", &err);
			goto out;
		}
	}
	status = 0;
out:
	if (body)
		picl_writer_abort(body);
	if (w)
		picl_writer_abort(w);
	if (body_fd >= 0)
		close(body_fd);
	for (i = 0; in && i < n; i++)
		if (in[i].fd >= 0)
			close(in[i].fd);
	free(in);
	free(ps.v);
	return status;
}
