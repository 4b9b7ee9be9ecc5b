/*
 * runs.c - sorting records by exact timestamp in bounded memory, and
 * merging sorted sources.
 *
 * Sorting. Records are moved, never re-formatted: each record's line is
 * copied once into an arena, next to a small entry (exact time, offset,
 * length). When the arena and entries reach the memory budget, the entries
 * are sorted and the lines written in that order to a temporary "run"
 * (zstd level 1, in an unlinked file so nothing is left behind even on a
 * crash). Sorting an in-memory run turns every time into one 64-bit integer
 * at the run's finest decimal scale and sorts (key, index) pairs with an LSD
 * radix sort (stable, so ties keep input order; byte positions where every
 * key agrees are skipped). If some time does not fit 64 bits at that scale,
 * the run falls back to a comparison sort on exact times.
 *
 * Merging. A binary heap over the sources' current records, ordered by
 * (header first, exact time, source index): the index makes the merge
 * stable across sources, and runs are numbered in input order, so the
 * whole external sort is stable. More sources than descriptors allow are
 * merged in rounds, earliest runs first, into new runs.
 *
 * Header records (-399..-301) are kept aside in input order and written
 * first (DESIGN.md point 8): in memory up to an eighth of the budget (1 MiB
 * at most), beyond that in a temporary file, so that a trace of header
 * records alone sorts within --memory too. Definition records (-6,
 * -201..-203) are kept aside too and written after them; records whose
 * meaning that would change are rewritten on the way in or out (defs.c).
 * A merge writes the inputs' leading definition records after the header
 * records, in the order of the inputs (defs.c again).
 */
#define _GNU_SOURCE /* qsort_r */
#include "runs.h"
#include "builtin.h"
#include "internal.h"   /* picl_data_needs_pad */
#include "pow10.h"

#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

struct ent {
	int64_t mant;
	int32_t scale;
	uint32_t len;          /* line length without the newline */
	uint64_t off;          /* in the arena */
};

struct pair {
	uint64_t key;
	uint64_t idx;
};

struct sorter {
	struct runs_config cfg;
	char *arena;
	size_t alen, acap;
	struct ent *ents;
	size_t n, cap;
	char *hdr;             /* header lines, in input order */
	size_t hlen, hcap;
	int hfd;               /* earlier header lines, or -1 */
	uint64_t hoff;         /* bytes in hfd */
	int *runs;             /* descriptors of spilled runs, in input order */
	size_t nruns, runs_cap;
	size_t nmerged;        /* runs[0 .. nmerged-1] are merges of spills */
	struct deftrack *defs; /* definition records, kept aside (defs.c) */
};

/* Memory an entry costs while sorting: the entry and two radix pairs. */
#define ENT_COST (sizeof(struct ent) + 2 * sizeof(struct pair))

/* A quarter of the descriptors (16 aside), 256 at most, 2 at least: a
 * merge of many inputs holds up to a fan-in's runs on each of a few
 * levels at once (merge_tree in cmd-merge.c). */
size_t runs_fan_in(void)
{
	struct rlimit rl;
	size_t n = 256;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < 4 * n + 16)
		n = rl.rlim_cur >= 24 ? (size_t)(rl.rlim_cur - 16) / 4 : 2;
	return n;
}

int runs_tempfile(const struct runs_config *cfg)
{
	return picltrace_tempfile(cfg->cmd, cfg->tmpdir);
}

/*
 * What the process uses beside the runs: the reader's buffer and record
 * limit (2 MiB), the writer's buffer (1 MiB), zstd contexts for a run being
 * written or read back (a few MiB), the program itself. --memory bounds the
 * whole process, so the runs get the rest.
 */
#define FIXED_OVERHEAD RUNS_FIXED_OVERHEAD

void runs_fresh_buffers(void)
{
#ifdef M_MMAP_THRESHOLD
	/* Readers' buffers are calloc'd with room for a long record (1 MiB)
	 * beyond what they read, untouched, so free. glibc raises its mmap
	 * threshold when the first is freed; the next come from freed heap
	 * memory, which calloc clears, so that a later round's readers held
	 * all of theirs: 2 MiB an input (565 MB for 1000 --unsorted inputs at
	 * -m 64M; sort's merges of its runs too). A fixed threshold keeps them
	 * mappings of untouched pages. */
	mallopt(M_MMAP_THRESHOLD, 128 << 10);
#endif
}

uint64_t runs_budget(uint64_t memory)
{
	return memory > 2 * FIXED_OVERHEAD ? memory - FIXED_OVERHEAD : memory / 2;
}

size_t runs_buffer(uint64_t budget, size_t k, uint64_t decoders)
{
	uint64_t each = budget > decoders ? (budget - decoders) / (k ? k : 1) : 0;

	return each < RUNS_BUFFER_MIN ? RUNS_BUFFER_MIN :
	       each > RUNS_BUFFER_MAX ? RUNS_BUFFER_MAX : (size_t)each;
}

struct sorter *sorter_new(const struct runs_config *cfg)
{
	struct sorter *s = calloc(1, sizeof(*s));

	if (s) {
		s->cfg = *cfg;
		s->cfg.memory = runs_budget(cfg->memory);
		s->hfd = -1;
		s->defs = deftrack_new(cfg->cmd, 0);
		if (!s->defs) {
			free(s);
			s = NULL;
		}
	}
	return s;
}

size_t sorter_spilled(const struct sorter *s)
{
	return s->nruns;
}

/*
 * Large arrays (the arena, the entries, the radix pairs) are anonymous
 * mappings with transparent huge pages asked for: a 2 GB sort otherwise
 * spends more time in page faults (and TLB misses in the radix scatter and
 * the random-order output) than in sorting. mremap grows them without
 * copying.
 */
/* p (an mmap result) with huge pages asked for, or NULL if it failed. */
static void *huge_pages(void *p, size_t bytes)
{
	if (p == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	madvise(p, bytes, MADV_HUGEPAGE);
#endif
	return p;
}

void *runs_big_alloc(size_t bytes)
{
	return huge_pages(mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), bytes);
}

void runs_big_free(void *p, size_t bytes)
{
	if (p)
		munmap(p, bytes);
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 4096 / elem + 1;
	void *q;

	while (ncap < need)
		ncap *= 2;
	q = realloc(*p, ncap * elem);
	if (!q)
		return -1;
	*p = q;
	*cap = ncap;
	return 0;
}

void *runs_big_grow(void *p, size_t old, size_t bytes)
{
	if (!p)
		return runs_big_alloc(bytes);
	return huge_pages(mremap(p, old, bytes, MREMAP_MAYMOVE), bytes);
}

/* Grow *p (a runs_big_alloc'd array of *cap elements) to at least need. */
static int grow_big(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : (1u << 21) / elem;
	void *q;

	while (ncap < need)
		ncap *= 2;
	q = runs_big_grow(*p, *cap * elem, ncap * elem);
	if (!q)
		return -1;
	*p = q;
	*cap = ncap;
	return 0;
}

static int nomem(struct sorter *s)
{
	picltrace_error(s->cfg.cmd, "out of memory (try a smaller --memory)");
	return -1;
}

/* ------------------------------------------------------------------------ */
/* Sorting one in-memory run                                                 */
/* ------------------------------------------------------------------------ */

static int cmp_exact(const void *x, const void *y, void *ctx)
{
	const struct sorter *s = ctx;
	const struct pair *p = x, *q = y;
	const struct ent *a = &s->ents[p->idx], *b = &s->ents[q->idx];
	struct picl_time ta = { a->mant, a->scale }, tb = { b->mant, b->scale };
	int c = picl_time_cmp(ta, tb);

	if (c)
		return c;
	return (p->idx > q->idx) - (p->idx < q->idx);
}

/*
 * Sort the entries; returns the order as a pair array (malloc'd; pair.idx
 * are entry indices in sorted order), or NULL when out of memory.
 */
static struct pair *sort_entries(struct sorter *s)
{
	struct pair *a, *tmp;
	int32_t maxscale = 0;
	size_t i;
	int exact = 1;

	a = runs_big_alloc((s->n ? s->n : 1) * sizeof(*a));
	tmp = runs_big_alloc((s->n ? s->n : 1) * sizeof(*tmp));
	if (!a || !tmp) {
		runs_big_free(a, (s->n ? s->n : 1) * sizeof(*a));
		runs_big_free(tmp, (s->n ? s->n : 1) * sizeof(*tmp));
		return NULL;
	}
	for (i = 0; i < s->n; i++)
		if (s->ents[i].scale > maxscale)
			maxscale = s->ents[i].scale;
	for (i = 0; i < s->n && exact; i++) {
		__int128 k = (__int128)s->ents[i].mant * pow10_tab[maxscale - s->ents[i].scale];

		if (k > INT64_MAX || k < INT64_MIN) {
			exact = 0;
			break;
		}
		a[i].key = (uint64_t)(int64_t)k ^ (1ULL << 63);
		a[i].idx = i;
	}
	if (exact && s->n > 1) {
		/* LSD radix sort, 8 bits a pass; passes where every key has the
		 * same byte are skipped, so the result may end in either array. */
		size_t count[8][256];
		size_t d;
		struct pair *src = a, *dst = tmp, *t;

		memset(count, 0, sizeof(count));
		for (i = 0; i < s->n; i++)
			for (d = 0; d < 8; d++)
				count[d][(src[i].key >> (8 * d)) & 255]++;
		for (d = 0; d < 8; d++) {
			size_t pos = 0, b;

			if (count[d][(src[0].key >> (8 * d)) & 255] == s->n)
				continue;
			for (b = 0; b < 256; b++) {
				size_t c = count[d][b];

				count[d][b] = pos;
				pos += c;
			}
			for (i = 0; i < s->n; i++)
				dst[count[d][(src[i].key >> (8 * d)) & 255]++] = src[i];
			t = src;
			src = dst;
			dst = t;
		}
		runs_big_free(dst, s->n * sizeof(*dst));
		return src;
	}
	if (!exact) {
		for (i = 0; i < s->n; i++)
			a[i].idx = i;
		qsort_r(a, s->n, sizeof(*a), cmp_exact, s);
	}
	runs_big_free(tmp, (s->n ? s->n : 1) * sizeof(*tmp));
	return a;
}

/* Write a line held in the arena, where its newline follows it. */
static int write_stored_line(struct picl_writer *w, const char *line, size_t len)
{
	return picl_writer_write_raw(w, line, len + 1);
}

/* Write a line that is not newline-terminated (a reader's record line, a
 * rewritten one), and its newline: after a blank when it would not read
 * back as itself (its data end with a '\r', which the newline would make a
 * CRLF line's end, or with a continuation's '\'), as picl_writer_write
 * pads data. */
static int write_line(struct picl_writer *w, const char *line, size_t len)
{
	if (picl_writer_write_raw(w, line, len) < 0)
		return -1;
	return picl_data_needs_pad(line, len) ? picl_writer_write_raw(w, " \n", 2)
					      : picl_writer_write_raw(w, "\n", 1);
}

int runs_append_line(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	size_t pad = picl_data_needs_pad(s, n) ? 1 : 0;   /* as write_line */

	if (*len + n + pad + 1 > *cap && grow((void **)buf, cap, *len + n + pad + 1, 1) < 0)
		return -1;
	memcpy(*buf + *len, s, n);
	if (pad)
		(*buf)[*len + n] = ' ';
	(*buf)[*len + n + pad] = '\n';
	*len += n + pad + 1;
	return 0;
}

/* Write the in-memory run, sorted, to w (without the header lines); out:
 * the output's definitions (defs.c), or NULL for a temporary run. */
static int write_sorted(struct sorter *s, struct picl_writer *w, struct deftrack *out)
{
	struct pair *order = sort_entries(s);
	size_t i, order_bytes;

	if (!order)
		return nomem(s);
	order_bytes = (s->n ? s->n : 1) * sizeof(*order);
	for (i = 0; i < s->n; i++) {
		const struct ent *e = &s->ents[order[i].idx];
		size_t nlen;
		int fail = 0;
		const char *nl = out ? deftrack_sort_out(out, s->arena + e->off, e->len, &nlen,
							 &fail) : NULL;

		if (fail) {
			runs_big_free(order, order_bytes);
			return -1;
		}
		if (nl ? write_line(w, nl, nlen) < 0
		       : write_stored_line(w, s->arena + e->off, e->len) < 0) {
			picltrace_report(s->cfg.cmd, picl_writer_error(w));
			runs_big_free(order, order_bytes);
			return -1;
		}
	}
	runs_big_free(order, order_bytes);
	return 0;
}

/*
 * A new temporary run, compressed at level 1 (written once, read once): its
 * writer, and its file in *fd. NULL after saying why. The writer is named
 * "a temporary run in DIR", so that a full disk is told as that ("sort:
 * a temporary run in /tmp: cannot write: No space left on device"), not as
 * the directory's name alone, which read as a file one cannot write.
 */
static struct picl_writer *run_create(struct sorter *s, int *fd)
{
	struct picl_writer_options o = { 0 };
	struct picl_writer *w;
	char name[4200];
	int rc;

	snprintf(name, sizeof(name), "a temporary run in %s", picltrace_tempdir(s->cfg.tmpdir));
	*fd = runs_tempfile(&s->cfg);
	if (*fd < 0)
		return NULL;
	o.compress = 1;
	o.level = 1;
	w = picl_writer_open_fd(*fd, name, &o, &rc, NULL);
	if (!w) {
		close(*fd);
		nomem(s);
	}
	return w;
}

/*
 * Close the run written through w; written is what writing it returned
 * (-1: it failed and has said why, so the run is dropped). 0, or -1 after
 * saying why, with fd closed.
 */
static int run_close(struct sorter *s, struct picl_writer *w, int fd, int written)
{
	struct picl_error err = { 0 };

	if (written < 0) {
		picl_writer_abort(w);
		close(fd);
		return -1;
	}
	if (picl_writer_close(w, &err) < 0) {
		picltrace_report(s->cfg.cmd, &err);
		close(fd);
		return -1;
	}
	return 0;
}

static int merge_round(struct sorter *s, size_t first, size_t k);

/* Give back the in-memory run's buffers (empty by now); sorter_add makes
 * them again if more records come. */
static void drop_buffers(struct sorter *s)
{
	runs_big_free(s->arena, s->acap);
	runs_big_free(s->ents, s->cap * sizeof(*s->ents));
	s->arena = NULL;
	s->ents = NULL;
	s->acap = s->cap = 0;
}

/* Runs merged at once at most: --batch-size, within the open-file limit,
 * and within the budget: each run read back costs its zstd decoder and
 * the least buffer (RUNS_RUN_COST + RUNS_BUFFER_MIN, ~1.3 MiB), so 256 runs
 * at once took some 330 MB whatever --memory said. 2 at least. */
static size_t sorter_fan(const struct sorter *s)
{
	size_t fan = runs_fan_in();
	uint64_t by_memory = s->cfg.memory / (RUNS_RUN_COST + RUNS_BUFFER_MIN);

	if (s->cfg.batch >= 2 && s->cfg.batch < fan)
		fan = s->cfg.batch;
	if (s->cfg.memory && by_memory < fan)
		fan = by_memory < 2 ? 2 : (size_t)by_memory;
	return fan;
}

/*
 * Every run stays open until the end, and descriptors are limited: when
 * the open runs reach the fan-in, the spills since the last such merge
 * become one merged run at once, behind the earlier merged runs; when
 * only one spill follows those (they fill the fan-in themselves), all are
 * merged into one. Each merge takes at most the fan-in F, whatever the
 * length of the input; a record is written when it is spilled, again when
 * its batch of spills is merged, and again each time the merged runs fill
 * the fan-in (once every F - 1 batches). The sort's buffers are given back
 * first, so that the merge's readers stay within --memory; the next
 * records make them again.
 */
static int merge_spills(struct sorter *s)
{
	drop_buffers(s);
	if (s->nruns - s->nmerged < 2) {
		if (merge_round(s, 0, s->nruns) < 0)
			return -1;
		s->nmerged = 1;
		return 0;
	}
	if (merge_round(s, s->nmerged, s->nruns - s->nmerged) < 0)
		return -1;
	s->nmerged++;
	return 0;
}

/* Sort what is in memory and write it to a new temporary run. */
static int spill(struct sorter *s)
{
	struct picl_writer *w;
	int fd;

	if (s->n == 0)
		return 0;
	if (s->nruns == s->runs_cap &&
	    grow((void **)&s->runs, &s->runs_cap, s->nruns + 1, sizeof(*s->runs)) < 0)
		return nomem(s);
	w = run_create(s, &fd);
	if (!w || run_close(s, w, fd, write_sorted(s, w, NULL)) < 0)
		return -1;
	s->runs[s->nruns++] = fd;
	s->n = 0;
	s->alen = 0;
	return s->nruns >= sorter_fan(s) ? merge_spills(s) : 0;
}

void sorter_reserve(struct sorter *s, uint64_t bytes)
{
	/* Lines of generated and real traces average 25-40 bytes. */
	uint64_t n = bytes / 24 + 1024, a = bytes + (1u << 16);

	if (a + n * ENT_COST > s->cfg.memory) {
		/* The budget decides: split it between lines and entries. */
		a = s->cfg.memory / 2;
		n = (s->cfg.memory - a) / ENT_COST;
	}
	if (a > s->acap)
		grow_big((void **)&s->arena, &s->acap, (size_t)a, 1);
	if (n > s->cap)
		grow_big((void **)&s->ents, &s->cap, (size_t)n, sizeof(*s->ents));
}

/* Header lines held in memory, at most, before they go to a file. */
static uint64_t header_held(const struct sorter *s)
{
	uint64_t m = s->cfg.memory / 8;

	return m < (1u << 20) ? m : (1u << 20);
}

/* Move the header lines held in memory to the end of the header file. */
static int header_spill(struct sorter *s)
{
	if (s->hfd < 0 && (s->hfd = runs_tempfile(&s->cfg)) < 0)
		return -1;
	if (picltrace_file_io(s->cfg.cmd, s->hfd, s->hdr, s->hlen, s->hoff, 1) < 0)
		return -1;
	s->hoff += s->hlen;
	s->hlen = 0;
	return 0;
}

/* Write every header line, in input order, to w. */
static int header_write(struct sorter *s, struct picl_writer *w)
{
	uint64_t off;

	if (s->hfd >= 0) {
		if (s->hlen && header_spill(s) < 0)
			return -1;
		/* back through the buffer: the pieces join into whole lines */
		for (off = 0; off < s->hoff; off += s->hlen) {
			s->hlen = s->hoff - off < s->hcap ? (size_t)(s->hoff - off) : s->hcap;
			if (picltrace_file_io(s->cfg.cmd, s->hfd, s->hdr, s->hlen, off, 0) < 0)
				return -1;
			if (picl_writer_write_raw(w, s->hdr, s->hlen) < 0)
				break;
		}
		s->hlen = 0;
		if (off < s->hoff) {
			picltrace_report(s->cfg.cmd, picl_writer_error(w));
			return -1;
		}
		return 0;
	}
	if (s->hlen && picl_writer_write_raw(w, s->hdr, s->hlen) < 0) {
		picltrace_report(s->cfg.cmd, picl_writer_error(w));
		return -1;
	}
	return 0;
}

int sorter_add(struct sorter *s, struct picl_reader *r, const struct picl_record *rec)
{
	struct ent *e;
	const char *line = rec->line;
	size_t len = rec->line_len, pad;
	int fail = 0;

	if (picl_is_header_type(rec->type)) {
		if (runs_append_line(&s->hdr, &s->hlen, &s->hcap, rec->line, rec->line_len) < 0)
			return nomem(s);
		return s->hlen >= header_held(s) ? header_spill(s) : 0;
	}
	if (picl_is_definition_type(rec->type))
		return deftrack_sort_def(s->defs, r, rec);
	if (!(line = deftrack_sort_event(s->defs, r, rec, &len, &fail))) {
		if (fail)
			return -1;
		line = rec->line;
		len = rec->line_len;
	}
	pad = picl_data_needs_pad(line, len) ? 1 : 0;   /* as write_line */
	if (len + pad > UINT32_MAX)
		return nomem(s);
	if ((uint64_t)s->alen + len + pad + 1 + (uint64_t)(s->n + 1) * ENT_COST >
	    s->cfg.memory && s->n > 0 && spill(s) < 0)
		return -1;
	if (s->alen + len + pad + 1 > s->acap &&
	    grow_big((void **)&s->arena, &s->acap, s->alen + len + pad + 1, 1) < 0)
		return nomem(s);
	if (s->n == s->cap && grow_big((void **)&s->ents, &s->cap, s->n + 1, sizeof(*s->ents)) < 0)
		return nomem(s);
	e = &s->ents[s->n++];
	e->mant = rec->time.mant;
	e->scale = rec->time.scale;
	e->len = (uint32_t)(len + pad);
	e->off = s->alen;
	memcpy(s->arena + s->alen, line, len);
	if (pad)
		s->arena[s->alen + len] = ' ';
	s->arena[s->alen + len + pad] = '\n';
	s->alen += len + pad + 1;
	return 0;
}

int sorter_add_all(struct sorter *s, struct picl_reader *r, struct picltrace_progress *prog,
		   uint64_t base)
{
	struct picl_record rec;
	uint64_t n = 0;
	int rc;

	while ((rc = picl_reader_next(r, &rec)) == PICL_OK) {
		if (sorter_add(s, r, &rec) < 0)
			return -1;
		if ((++n & 0xffff) == 0)
			picltrace_progress(prog, base + picl_reader_offset(r));
	}
	if (rc != PICL_END) {
		picltrace_report(s->cfg.cmd, picl_reader_error(r));
		return -1;
	}
	return 0;
}

struct picl_reader *runs_open(const char *cmd, const char *path, unsigned flags)
{
	return runs_open_buffer(cmd, path, flags, 0);
}

struct picl_reader *runs_open_buffer(const char *cmd, const char *path, unsigned flags,
				     size_t buffer)
{
	struct picl_reader_options o = { 0 };
	struct picl_error err = { 0 };
	struct picl_reader *r;
	int rc;

	o.flags = PICL_READ_RAW | (flags & RUNS_READ_DEFS ? 0 : PICL_READ_NO_DEFS) |
		  (flags & ~RUNS_READ_DEFS);
	o.buffer_size = buffer;
	picltrace_stdin_hint(cmd, path);
	r = picl_reader_open(path, &o, &rc, &err);
	if (!r) {
		picltrace_report(cmd, &err);
		if (err.sys_errno == EMFILE || err.sys_errno == ENFILE)
			picltrace_error(cmd, "(runs and inputs are merged a few at a time, but "
					"this needs a few more open files: raise 'ulimit -n')");
	}
	return r;
}

static struct picl_reader *reopen(const char *cmd, int fd, const char *name, size_t buffer,
				  unsigned flags)
{
	struct picl_reader_options o = { 0 };
	struct picl_error err = { 0 };
	struct picl_reader *r;
	int rc;

	if (lseek(fd, 0, SEEK_SET) < 0) {
		picltrace_error(cmd, "cannot rewind a %s: %s", name, strerror(errno));
		return NULL;
	}
	o.flags = flags;
	o.buffer_size = buffer;
	r = picl_reader_open_fd(fd, name, &o, &rc, &err);
	if (!r)
		picltrace_report(cmd, &err);
	return r;
}

struct picl_reader *runs_reopen(const char *cmd, int fd, const char *name, size_t buffer)
{
	return reopen(cmd, fd, name, buffer, PICL_READ_RAW | PICL_READ_NO_DEFS);
}

struct picl_reader *runs_reopen_defs(const char *cmd, int fd, const char *name, size_t buffer)
{
	return reopen(cmd, fd, name, buffer, PICL_READ_RAW);
}

static int merge_core(const struct runs_config *cfg, struct picl_reader **in, size_t n,
		      int check, struct picl_writer *w,
		      int (*seen)(void *ctx, int32_t processor), void *ctx,
		      struct deftrack *sortdefs, struct deftrack *mergedefs);

/* Merge runs[first .. first+k) into w. */
static int merge_runs(struct sorter *s, size_t first, size_t k, struct picl_writer *w,
		      struct deftrack *out)
{
	struct picl_reader **in = calloc(k, sizeof(*in));
	/* The runs share --memory (the sort's own buffers are given back by
	 * now): what their decoders leave, 64 KiB to 1 MiB each. */
	size_t buffer = runs_buffer(s->cfg.memory, k, k * RUNS_RUN_COST);
	size_t i;
	int rc = -1;

	if (!in)
		return nomem(s);
	for (i = 0; i < k; i++)
		if (!(in[i] = runs_reopen(s->cfg.cmd, s->runs[first + i], "temporary run",
					  buffer)))
			goto out;
	rc = merge_core(&s->cfg, in, k, 0, w, NULL, NULL, out, NULL);
out:
	for (i = 0; i < k; i++)
		picl_reader_free(in[i]);
	free(in);
	return rc;
}

/* Merge runs first .. first+k-1 into one new run that takes their place
 * (runs hold consecutive stretches of the input, so the merge keeps equal
 * times in input order). */
static int merge_round(struct sorter *s, size_t first, size_t k)
{
	struct picl_writer *w;
	size_t i;
	int fd;

	w = run_create(s, &fd);
	if (!w || run_close(s, w, fd, merge_runs(s, first, k, w, NULL)) < 0)
		return -1;
	for (i = 0; i < k; i++)
		close(s->runs[first + i]);
	s->runs[first] = fd;
	memmove(s->runs + first + 1, s->runs + first + k,
		(s->nruns - first - k) * sizeof(*s->runs));
	s->nruns -= k - 1;
	return 0;
}

int sorter_finish(struct sorter *s, struct picl_writer *w)
{
	if (header_write(s, w) < 0 || deftrack_write(s->defs, w) < 0)
		return -1;
	if (s->nruns == 0)
		return write_sorted(s, w, s->defs);
	if (spill(s) < 0)
		return -1;
	drop_buffers(s);
	return merge_runs(s, 0, s->nruns, w, s->defs);   /* spill keeps them below the fan-in */
}

void sorter_free(struct sorter *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nruns; i++)
		close(s->runs[i]);
	free(s->runs);
	runs_big_free(s->arena, s->acap);
	runs_big_free(s->ents, s->cap * sizeof(*s->ents));
	free(s->hdr);
	if (s->hfd >= 0)
		close(s->hfd);
	deftrack_free(s->defs);
	free(s);
}

/* ------------------------------------------------------------------------ */
/* Merging sorted sources                                                    */
/* ------------------------------------------------------------------------ */

struct source {
	struct picl_reader *r;
	struct picl_record rec;
	int header;            /* 2 header, 1 definition, 0 event record */
	struct picl_time last;
	uint64_t last_line;
	int started;
};

static int src_less(const struct source *a, size_t ia, const struct source *b, size_t ib)
{
	int c;

	if (a->header != b->header)
		return a->header > b->header;
	if (a->header == 1)
		return ia < ib;   /* definitions: in the order of the inputs */
	c = picl_time_cmp(a->rec.time, b->rec.time);
	if (c)
		return c < 0;
	return ia < ib;
}

static void sift_down(struct source *src, size_t *heap, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i, t;

		if (l < n && src_less(&src[heap[l]], heap[l], &src[heap[m]], heap[m]))
			m = l;
		if (r < n && src_less(&src[heap[r]], heap[r], &src[heap[m]], heap[m]))
			m = r;
		if (m == i)
			return;
		t = heap[i];
		heap[i] = heap[m];
		heap[m] = t;
		i = m;
	}
}

/* Advance source i: 1 with a record, 0 at its end, -1 on error. */
static int advance(const struct runs_config *cfg, struct source *s, int check)
{
	int rc = picl_reader_next(s->r, &s->rec);
	char a[PICL_TIME_BUFSIZE], b[PICL_TIME_BUFSIZE];

	if (rc == PICL_END)
		return 0;
	if (rc < 0) {
		picltrace_report(cfg->cmd, picl_reader_error(s->r));
		return -1;
	}
	s->header = picl_is_header_type(s->rec.type) ? 2 :
		    picl_is_definition_type(s->rec.type) ? 1 : 0;
	if (s->header == 2 && check && s->started) {
		/* sorted means header records first (sort(1)) */
		picltrace_error(cfg->cmd,
				"%s:%llu:1: not sorted: header record %d after the event records "
				"(line %llu); use --unsorted to sort the inputs first",
				picl_reader_path(s->r), (unsigned long long)s->rec.mark.line,
				(int)s->rec.type, (unsigned long long)s->last_line);
		return -1;
	}
	if (s->header)
		return 1;
	if (check && s->started && picl_time_cmp(s->rec.time, s->last) < 0) {
		struct picl_mark at;

		picltrace_field_mark(s->r, &s->rec, 2, &at);   /* the time */
		picl_time_format(s->rec.time, a);
		picl_time_format(s->last, b);
		picltrace_error(cfg->cmd,
				"%s:%llu:%llu: not sorted: time %s comes after %s (line %llu); "
				"use --unsorted to sort the inputs first",
				picl_reader_path(s->r), (unsigned long long)at.line,
				(unsigned long long)at.column, a, b,
				(unsigned long long)s->last_line);
		return -1;
	}
	s->started = 1;
	s->last = s->rec.time;
	s->last_line = s->rec.mark.line;
	return 1;
}

int merge_readers(const struct runs_config *cfg, struct picl_reader **in, size_t n,
		  int check, struct picl_writer *w,
		  int (*seen)(void *ctx, int32_t processor), void *ctx)
{
	struct deftrack *t = deftrack_new(cfg->cmd, n);
	int rc;

	if (!t) {
		picltrace_error(cfg->cmd, "out of memory");
		return -1;
	}
	rc = merge_core(cfg, in, n, check, w, seen, ctx, NULL, t);
	deftrack_free(t);
	return rc;
}

static int merge_core(const struct runs_config *cfg, struct picl_reader **in, size_t n,
		      int check, struct picl_writer *w,
		      int (*seen)(void *ctx, int32_t processor), void *ctx,
		      struct deftrack *sortdefs, struct deftrack *mergedefs)
{
	struct source *src = calloc(n ? n : 1, sizeof(*src));
	size_t *heap = calloc(n ? n : 1, sizeof(*heap));
	size_t hn = 0, i;
	int rc = -1, a;

	if (!src || !heap) {
		picltrace_error(cfg->cmd, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		src[i].r = in[i];
		a = advance(cfg, &src[i], check);
		if (a < 0)
			goto out;
		if (a > 0)
			heap[hn++] = i;
	}
	for (i = hn; i-- > 0;)
		sift_down(src, heap, hn, i);
	while (hn > 0) {
		struct source *s = &src[heap[0]];
		const char *nl = NULL;
		size_t nlen = 0;
		int fail = 0, repeat = 0;

		if (seen && seen(ctx, s->rec.processor) < 0)
			goto out;
		if (mergedefs && s->header == 1 &&
		    (repeat = deftrack_merge_def(mergedefs, heap[0], s->r, &s->rec)) < 0)
			goto out;
		if (mergedefs && s->header == 0)
			nl = deftrack_merge_event(mergedefs, heap[0], s->r, &s->rec, &nlen, &fail);
		if (sortdefs && s->header == 0)
			nl = deftrack_sort_out(sortdefs, s->rec.line, s->rec.line_len, &nlen, &fail);
		if (fail)
			goto out;
		if (repeat)
			;   /* the same definition as the last one of its id */
		else if (nl ? write_line(w, nl, nlen) < 0
			    : write_line(w, s->rec.line, s->rec.line_len) < 0) {
			picltrace_report(cfg->cmd, picl_writer_error(w));
			goto out;
		}
		a = advance(cfg, s, check);
		if (a < 0)
			goto out;
		if (a == 0)
			heap[0] = heap[--hn];
		if (hn)
			sift_down(src, heap, hn, 0);
	}
	rc = 0;
out:
	free(src);
	free(heap);
	return rc;
}

/*
 * A time just before t, readable back: one unit of t's scale less, with
 * fewer decimals when that would need more than 18 digits
 * (-0.999999999999999999 gives -1.00000000000000000, not -1.000...0 with
 * 19 digits).
 */
struct picl_time runs_time_before(struct picl_time t)
{
	struct picl_time at = t;

	if (t.mant > INT64_MIN)
		t.mant--;
	while (t.scale > 0 && (t.mant > 999999999999999999LL || t.mant < -999999999999999999LL)) {
		/* floor to one decimal less: still before */
		t.mant = t.mant / 10 - (t.mant % 10 < 0);
		t.scale--;
	}
	/* -999999999999999999 has nothing before it that the format can
	 * write (18 digits): the header takes that time itself, and stays
	 * first as header records do */
	if (t.mant > 999999999999999999LL || t.mant < -999999999999999999LL)
		return at;
	return t;
}
