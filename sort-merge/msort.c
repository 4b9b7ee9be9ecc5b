/*
 * msort.c - sorting one plain-text trace file through a read-only mapping.
 *
 * When the input is a single regular, uncompressed file that fits the
 * memory budget, its records are not copied: the file is mapped and read
 * with the library's raw reader (from the mapping), and each event record
 * keeps only 8 bytes, "packed": (time - base) << obits | byte offset, where
 * obits is just enough for the file's size and the time is an integer at
 * the finest decimal scale seen so far. The packed values are unique and,
 * taken in input order, increasing in offset, so sorting them as integers
 * sorts by time and keeps equal times in input order, whatever the sort.
 *
 * The machine has two cores; every phase uses both. Reading: a second reader starts at a
 * record boundary near the middle; it stops at the first definition record
 * (-6, -201..-203: the first reader's definitions would be missing) or
 * anything unusual, and the first reader then reads the second half itself,
 * so messages (file:line:column) and definitions are those of one reader.
 * Sorting: each thread sorts one half of the entries in place, an American
 * flag pass on the top 11 bits of the times, then, inside each bucket (in
 * cache), LSD passes on the rest of the time and runs of equal times by
 * offset; no second array of entries is needed (on a virtual machine fresh
 * pages cost more than the pass saves). Output, while the halves are being
 * sorted: as soon as both have sorted a bucket (the same time range in
 * both), the main thread merges the two, gathering the lines from the
 * mapping (prefetched) into 4 MiB buffers, and a writer thread writes them:
 * with O_DIRECT into the writer's temporary file when the output is a plain
 * named file (the page cache is bypassed), through the picl_writer
 * otherwise (standard output, zstd).
 *
 * When a new time falls outside the window of times packed entries can
 * hold, the window is moved (all entries rewritten; rare, the window is
 * recentred) or, when the range of times is too wide, the entries become
 * 16-byte "wide" ones (time, offset) sorted by a stable LSD radix sort.
 * When even that fails (a time that does not fit 64 bits at the finest
 * scale) or the budget would be exceeded, msort gives up and the caller
 * sorts with the copying sorter (runs.c), which handles everything.
 *
 * A record whose text is not its raw line (continued over several lines, a
 * CRLF line, or the last line without a newline) is copied into a side
 * arena and found again by its offset. Header records are copied aside, and
 * so are definition records (-6, -201..-203) while no event record came
 * before them: they are written after the header records, which changes
 * no record's meaning (defs.c). A definition after an event record makes
 * msort give up: runs.c sorts that trace.
 * The input must not change while it is sorted (as with any mapping, a
 * file truncated meanwhile ends the process with SIGBUS).
 */
#define _GNU_SOURCE
#include "runs.h"
#include "builtin.h"
#include "internal.h"   /* picl_line_continues, picl_data_needs_pad */
#include "pow10.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

struct wide {
	uint64_t key;          /* time at the finest scale, sign bit flipped */
	uint64_t off;
};

/* A record whose text is kept in the side arena. */
struct xline {
	uint64_t off;          /* where it starts in the file */
	uint64_t at;           /* its text in the side arena, '\n'-terminated */
};

/* What one reader collected: records in file order from some offset on. */
struct part {
	int wide;
	uint64_t *ents;        /* packed */
	struct wide *wents;    /* wide */
	size_t n, cap;         /* entries, capacity (of the array in use) */
	int32_t scale;         /* of the keys */
	int64_t base;          /* packed: key = (e >> obits) + base */
	int64_t kmin, kmax;
	int started;
	char *side;
	size_t slen, scap;
	struct xline *x;
	size_t nx, xcap;
	char *hdr;
	size_t hlen, hcap;
	char *defs;            /* definition records, before any event record */
	size_t dlen, dcap;
};

struct msort {
	struct runs_config cfg;
	const char *path;
	int fd;
	const char *map;
	size_t size;
	uint64_t budget;
	int obits, kbits;
	uint64_t omask;
	size_t split;          /* where the second reader starts; 0: none */
	struct part part[2];   /* everything ends up in part[0] */
	int times;             /* PICLTRACE_SORT_TIMES: phase times on stderr */
	double t0, u0, s0;
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double cpu(int sys)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return 0;
	return sys ? (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6
		   : (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6;
}

/* With PICLTRACE_SORT_TIMES set: the phase's wall, user and system time. */
static void phase(struct msort *m, const char *what)
{
	double t, u, s;

	if (!m->times)
		return;
	t = now();
	u = cpu(0);
	s = cpu(1);
	fprintf(stderr, "picltrace sort: %-5s %6.2f s wall %6.2f s user %6.2f s sys\n", what,
		t - m->t0, u - m->u0, s - m->s0);
	m->t0 = t;
	m->u0 = u;
	m->s0 = s;
}



/*
 * 1 if a raw line of the file (without its newline) may not read as itself:
 * it ends with a '\r' the reader drops, or continues on the next line.
 */
static int odd_line(const char *p, size_t len)
{
	return picl_data_needs_pad(p, len);   /* a last '\r', or continues */
}

struct msort *msort_open(const struct runs_config *cfg, const char *path)
{
	struct msort *m;
	struct stat st;
	uint64_t budget = cfg->memory, est;
	int fd;

	if (!strcmp(path, "-") || stat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0)
		return NULL;
	/* As runs.c: the budget bounds the whole process. */
	budget = budget > 2 * RUNS_FIXED_OVERHEAD ? budget - RUNS_FIXED_OVERHEAD : budget / 2;
	/* The mapping (its pages count as the process's once read) and
	 * 8-byte entries, for lines of 24 bytes or more. */
	est = (uint64_t)st.st_size + ((uint64_t)st.st_size / 24 + 1) * 8;
	if (est > budget || (uint64_t)st.st_size > SIZE_MAX / 2)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (uint64_t)st.st_size + ((uint64_t)st.st_size / 24 + 1) * 8 > budget) {
		close(fd);
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		close(fd);
		return NULL;
	}
	m->cfg = *cfg;
	m->path = path;
	m->fd = fd;
	m->size = (size_t)st.st_size;
	m->budget = budget;
	m->map = mmap(NULL, m->size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m->map == MAP_FAILED) {
		close(fd);
		free(m);
		return NULL;
	}
	madvise((void *)m->map, m->size, MADV_SEQUENTIAL);
	picltrace_mapped_input(cfg->cmd, path);   /* a SIGBUS if it shrinks */
	m->obits = 64 - __builtin_clzll((unsigned long long)m->size);
	m->kbits = 64 - m->obits;
	m->omask = (1ULL << m->obits) - 1;
	m->times = getenv("PICLTRACE_SORT_TIMES") != NULL;
	m->t0 = now();
	m->u0 = cpu(0);
	m->s0 = cpu(1);
	return m;
}

static void part_free(struct part *t)
{
	if (t->wide)
		runs_big_free(t->wents, t->cap * sizeof(*t->wents));
	else
		runs_big_free(t->ents, t->cap * sizeof(*t->ents));
	free(t->side);
	free(t->x);
	free(t->hdr);
	free(t->defs);
	memset(t, 0, sizeof(*t));
}

void msort_free(struct msort *m)
{
	if (!m)
		return;
	part_free(&m->part[0]);
	part_free(&m->part[1]);
	munmap((void *)m->map, m->size);
	picltrace_mapped_input(m->cfg.cmd, NULL);
	close(m->fd);
	free(m);
}

/* Bytes in use against the budget, with `n` entries in this part and about
 * as many in the other, and room to sort them (packed entries are sorted in
 * place, wide ones into a second array). */
static uint64_t in_use(const struct msort *m, const struct part *t, size_t n)
{
	uint64_t ents = t->wide ? 2 * sizeof(struct wide) : sizeof(uint64_t);

	return (uint64_t)m->size + (uint64_t)n * ents * (m->split ? 2 : 1) +
	       2 * (t->scap + t->hcap + t->xcap * sizeof(struct xline));
}

/* A packed window [base, base + 2^kbits) around [lo, hi], or -1. */
static int window(const struct msort *m, int64_t lo, int64_t hi, int64_t *base)
{
	__int128 range = (__int128)hi - lo, room = ((__int128)1 << m->kbits) - 1, b;

	if (range > room)
		return -1;
	b = (__int128)lo - (room - range) / 2;
	*base = b < INT64_MIN ? INT64_MIN : (int64_t)b;
	return 0;
}

/* Turn the packed entries into wide ones (same scale): 0, 1 when over the
 * budget, -1 out of memory. */
static int to_wide(const struct msort *m, struct part *t)
{
	size_t cap = t->cap ? t->cap : 1, i;
	struct wide *w;

	if (t->wide)
		return 0;
	if (in_use(m, t, t->n) + (uint64_t)t->n * sizeof(*w) * 2 > m->budget)
		return 1;
	w = runs_big_alloc(cap * sizeof(*w));
	if (!w)
		return -1;
	for (i = 0; i < t->n; i++) {
		int64_t k = (int64_t)((t->ents[i] >> m->obits) + (uint64_t)t->base);

		w[i].key = (uint64_t)k ^ (1ULL << 63);
		w[i].off = t->ents[i] & m->omask;
	}
	runs_big_free(t->ents, t->cap * sizeof(*t->ents));
	t->ents = NULL;
	t->wents = w;
	t->cap = cap;
	t->wide = 1;
	return 0;
}

/* Move the packed window to base b (which holds every key). */
static void rebase(const struct msort *m, struct part *t, int64_t b)
{
	uint64_t delta = ((uint64_t)t->base - (uint64_t)b) << m->obits;
	size_t i;

	if (delta)
		for (i = 0; i < t->n; i++)
			t->ents[i] += delta;
	t->base = b;
}

/* Move the packed window so that it holds [lo, hi]; or go wide (as
 * to_wide). */
static int rewindow(const struct msort *m, struct part *t, int64_t lo, int64_t hi)
{
	int64_t b;

	if (window(m, lo, hi, &b) < 0)
		return to_wide(m, t);
	rebase(m, t, b);
	return 0;
}

/* Keys to a finer scale: 0, 1 to give up (they would not fit 64 bits, or
 * the budget), -1 out of memory. */
static int rescale(const struct msort *m, struct part *t, int32_t scale)
{
	int64_t p = pow10_tab[scale - t->scale], lo, hi;
	size_t i;
	int rc;

	if (scale == t->scale || !t->started) {
		t->scale = scale;
		return 0;
	}
	if (__builtin_mul_overflow(t->kmin, p, &lo) || __builtin_mul_overflow(t->kmax, p, &hi))
		return 1;
	if (!t->wide) {
		int64_t b;

		if (window(m, lo, hi, &b) == 0) {
			for (i = 0; i < t->n; i++) {
				int64_t k = (int64_t)((t->ents[i] >> m->obits) + (uint64_t)t->base) * p;

				t->ents[i] = (((uint64_t)k - (uint64_t)b) << m->obits) |
					     (t->ents[i] & m->omask);
			}
			t->base = b;
			goto done;
		}
		if ((rc = to_wide(m, t)) != 0)
			return rc;
	}
	for (i = 0; i < t->n; i++) {
		int64_t k = (int64_t)(t->wents[i].key ^ (1ULL << 63)) * p;

		t->wents[i].key = (uint64_t)k ^ (1ULL << 63);
	}
done:
	t->kmin = lo;
	t->kmax = hi;
	t->scale = scale;
	return 0;
}

/* 0, 1 to give up (the caller sorts another way), -1 out of memory. */
static int add_event(const struct msort *m, struct part *t, const struct picl_record *rec)
{
	int64_t k = rec->time.mant;
	uint64_t off = rec->mark.offset;
	int rc;

	if (!t->started) {
		t->scale = rec->time.scale;
		t->kmin = t->kmax = k;
		if (window(m, k, k, &t->base) < 0)
			return 1;
		t->started = 1;
	}
	if (rec->time.scale > t->scale && (rc = rescale(m, t, rec->time.scale)) != 0)
		return rc;
	if (rec->time.scale < t->scale &&
	    __builtin_mul_overflow(k, pow10_tab[t->scale - rec->time.scale], &k))
		return 1;
	if (!t->wide && (k < t->base || (((uint64_t)k - (uint64_t)t->base) >> m->kbits)) &&
	    (rc = rewindow(m, t, k < t->kmin ? k : t->kmin, k > t->kmax ? k : t->kmax)) != 0)
		return rc;
	if (k < t->kmin)
		t->kmin = k;
	if (k > t->kmax)
		t->kmax = k;
	if (off + rec->line_len >= m->size || m->map[off + rec->line_len] != '\n' ||
	    odd_line(m->map + off, rec->line_len)) {
		/* Not its raw line: keep the text aside. */
		if (t->nx == t->xcap) {
			size_t ncap = t->xcap ? 2 * t->xcap : 64;
			struct xline *q = realloc(t->x, ncap * sizeof(*q));

			if (!q)
				return -1;
			t->x = q;
			t->xcap = ncap;
		}
		t->x[t->nx].off = off;
		t->x[t->nx].at = t->slen;
		if (runs_append_line(&t->side, &t->slen, &t->scap, rec->line, rec->line_len) < 0)
			return -1;
		t->nx++;
	}
	if (t->n == t->cap) {
		/* Records take 11 bytes at least ("1 2 3 4 5 6"): reserve
		 * (virtual) room for that many at once. */
		size_t ncap = t->cap ? 2 * t->cap : m->size / (m->split ? 22 : 11) + 1024;
		size_t elem = t->wide ? sizeof(struct wide) : sizeof(uint64_t);
		void *q;

		q = runs_big_grow(t->wide ? (void *)t->wents : (void *)t->ents, t->cap * elem, ncap * elem);
		if (!q)
			return -1;
		if (t->wide)
			t->wents = q;
		else
			t->ents = q;
		t->cap = ncap;
	}
	if ((t->n & 0xffff) == 0 && in_use(m, t, t->n + 0x10000) > m->budget)
		return 1;
	if (t->wide) {
		t->wents[t->n].key = (uint64_t)k ^ (1ULL << 63);
		t->wents[t->n].off = off;
	} else {
		t->ents[t->n] = (((uint64_t)k - (uint64_t)t->base) << m->obits) | off;
	}
	t->n++;
	return 0;
}

/* Take one record into part t: 0, 1 to give up, -1 out of memory. */
static int take(const struct msort *m, struct part *t, const struct picl_record *rec)
{
	if (picl_is_header_type(rec->type))
		return runs_append_line(&t->hdr, &t->hlen, &t->hcap, rec->line, rec->line_len) < 0 ? -1 : 0;
	if (picl_is_definition_type(rec->type)) {
		/* One after an event record: runs.c sorts that (defs.c). */
		if (t->started)
			return 1;
		return runs_append_line(&t->defs, &t->dlen, &t->dcap, rec->line, rec->line_len) < 0 ? -1 : 0;
	}
	return add_event(m, t, rec);
}

/*
 * The second reader, on [split, size) in its own thread. It cannot know the
 * definitions made before split, so it stops ("unsure") at the first
 * definition record, error or anything unusual, and the first reader then
 * goes on over the second half itself.
 */
struct second {
	struct msort *m;
	int unsure;
	double done;           /* when it finished */
};

static void *second_reader(void *arg)
{
	struct second *sc = arg;
	struct msort *m = sc->m;
	struct part *t = &m->part[1];
	struct picl_reader_options o = { 0 };
	struct picl_error err = { 0 };
	struct picl_reader *r;
	struct picl_record rec;
	int rc, st;

	o.flags = PICL_READ_RAW | PICL_READ_NO_DEFS;   /* records are moved, not read */
	r = picl_reader_open_memory(m->map + m->split, m->size - m->split, m->path, &o, &st, &err);
	if (!r) {
		sc->unsure = 1;
		return NULL;
	}
	while ((rc = picl_reader_next(r, &rec)) == PICL_OK) {
		if (rec.type == PICL_REC_DESCRIPTOR || rec.type == PICL_REC_SUBSET_PROCESSORS ||
		    rec.type == PICL_REC_SUBSET_PROCESSES || rec.type == PICL_REC_SUBSET_EVENTS)
			break;
		rec.mark.offset += m->split;
		if (take(m, t, &rec) != 0)
			break;
	}
	if (rc != PICL_END)
		sc->unsure = 1;
	picl_reader_free(r);
	sc->done = now();
	return NULL;
}

/* Where a second reader may start: after a newline near the middle that
 * ends a record (the line it ends does not continue); 0 for none. */
static size_t split_point(const struct msort *m)
{
	size_t at = m->size / 2;

	if (m->size < (8u << 20))
		return 0;
	for (;;) {
		const char *nl = memchr(m->map + at, '\n', m->size - at), *ls;
		size_t len;

		if (!nl || (size_t)(nl - m->map) + 1 >= m->size)
			return 0;
		ls = memrchr(m->map, '\n', (size_t)(nl - m->map));
		ls = ls ? ls + 1 : m->map;
		len = (size_t)(nl - ls);
		if (len > 0 && ls[len - 1] == '\r')
			len--;
		if (!picl_line_continues(ls, len))
			return (size_t)(nl - m->map) + 1;
		at = (size_t)(nl - m->map) + 1;
	}
}

/* Append part[1] to part[0]: 0, 1 to give up, -1 out of memory. */
static int join_parts(struct msort *m)
{
	struct part *a = &m->part[0], *b = &m->part[1];
	size_t i;
	int rc;

	if (b->hlen && runs_append_line(&a->hdr, &a->hlen, &a->hcap, b->hdr, b->hlen - 1) < 0)
		return -1;
	if (b->nx) {
		if (a->nx + b->nx > a->xcap) {
			struct xline *q = realloc(a->x, (a->nx + b->nx) * sizeof(*q));

			if (!q)
				return -1;
			a->x = q;
			a->xcap = a->nx + b->nx;
		}
		for (i = 0; i < b->nx; i++) {
			a->x[a->nx + i].off = b->x[i].off;
			a->x[a->nx + i].at = b->x[i].at + a->slen;
		}
		a->nx += b->nx;
		if (runs_append_line(&a->side, &a->slen, &a->scap, b->side, b->slen - 1) < 0)
			return -1;
	}
	if (!b->started)
		return 0;
	if (!a->started) {
		/* Only the second part has events: take them as they are. */
		a->wide = b->wide;
		a->ents = b->ents;
		a->wents = b->wents;
		a->n = b->n;
		a->cap = b->cap;
		a->scale = b->scale;
		a->base = b->base;
		a->kmin = b->kmin;
		a->kmax = b->kmax;
		a->started = 1;
		b->ents = NULL;
		b->wents = NULL;
		b->cap = b->n = 0;
		b->started = 0;
		return 0;
	}
	/* The same scale and, if both are packed, the same window. */
	if (a->scale < b->scale && (rc = rescale(m, a, b->scale)) != 0)
		return rc;
	if (b->scale < a->scale && (rc = rescale(m, b, a->scale)) != 0)
		return rc;
	if (!a->wide && !b->wide) {
		int64_t lo = a->kmin < b->kmin ? a->kmin : b->kmin;
		int64_t hi = a->kmax > b->kmax ? a->kmax : b->kmax, base;

		if (window(m, lo, hi, &base) == 0) {
			rebase(m, a, base);
			rebase(m, b, base);
			a->kmin = b->kmin = lo;
			a->kmax = b->kmax = hi;
			return 0;   /* sorted as two blocks */
		}
	}
	/* Wide: one array. */
	if ((rc = to_wide(m, a)) != 0 || (rc = to_wide(m, b)) != 0)
		return rc;
	if (a->cap < a->n + b->n) {
		struct wide *q = runs_big_grow(a->wents, a->cap * sizeof(*q), (a->n + b->n) * sizeof(*q));

		if (!q)
			return -1;
		a->wents = q;
		a->cap = a->n + b->n;
	}
	memcpy(a->wents + a->n, b->wents, b->n * sizeof(*b->wents));
	a->n += b->n;
	if (b->kmin < a->kmin)
		a->kmin = b->kmin;
	if (b->kmax > a->kmax)
		a->kmax = b->kmax;
	part_free(b);
	return 0;
}

int msort_read(struct msort *m, struct picltrace_progress *prog)
{
	struct picl_reader_options o = { 0 };
	struct picl_error err = { 0 };
	struct picl_reader *r;
	struct picl_record rec;
	struct second sc = { m, 0, 0 };
	pthread_t th;
	uint64_t count = 0;
	int rc, st = 0, threaded = 0;

	/* Records are moved, not read; definitions are read, so that one that
	 * does not decode is an error here as in runs.c (defs.c). */
	o.flags = PICL_READ_RAW;
	r = picl_reader_open_memory(m->map, m->size, m->path, &o, &st, &err);
	if (!r) {
		picltrace_report(m->cfg.cmd, &err);
		return -1;
	}
	if (picl_reader_is_compressed(r)) {
		picl_reader_free(r);
		return 1;
	}
	m->split = split_point(m);
	if (m->split)
		threaded = pthread_create(&th, NULL, second_reader, &sc) == 0;
	if (!threaded)
		m->split = 0;
	while ((rc = picl_reader_next(r, &rec)) == PICL_OK) {
		if (m->split && rec.mark.offset >= m->split)
			break;   /* the second reader's first record */
		if ((st = take(m, &m->part[0], &rec)) != 0)
			break;
		if ((++count & 0xffff) == 0)
			picltrace_progress(prog, m->split ? picl_reader_offset(r) * 2
							  : picl_reader_offset(r));
	}
	if (threaded) {
		double t = now();

		pthread_join(th, NULL);
		if (m->times)
			fprintf(stderr, "picltrace sort: (first reader done %.2f s, second %.2f s)\n",
				t - m->t0, sc.done - m->t0);
		if (rc == PICL_OK && st == 0 && sc.unsure) {
			/* The second reader could not be trusted: go on. */
			part_free(&m->part[1]);
			m->split = 0;
			st = take(m, &m->part[0], &rec);
			while (st == 0 && (rc = picl_reader_next(r, &rec)) == PICL_OK) {
				st = take(m, &m->part[0], &rec);
				if ((++count & 0xffff) == 0)
					picltrace_progress(prog, picl_reader_offset(r));
			}
		} else if (rc == PICL_OK && st == 0) {
			rc = PICL_END;  /* the rest is the second reader's */
		} else if (rc == PICL_END) {
			part_free(&m->part[1]);   /* nothing past the split */
			m->split = 0;
		}
	}
	if (st == 0 && rc != PICL_END) {
		picltrace_report(m->cfg.cmd, picl_reader_error(r));
		picl_reader_free(r);
		return -1;
	}
	picl_reader_free(r);
	if (st == 0 && m->split)
		st = join_parts(m);
	if (st > 0)
		return 1;
	if (st < 0) {
		picltrace_error(m->cfg.cmd, "out of memory (try a smaller --memory)");
		return -1;
	}
	phase(m, "read");
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Sorting                                                                   */
/* ------------------------------------------------------------------------ */

#define TOP_BITS 11
#define LOW_BITS 11

/*
 * How far the sorting threads are, for the output to follow them bucket by
 * bucket (buckets are the same time ranges in both halves).
 */
struct progress {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t done[2];          /* buckets sorted in each half */
	int failed;              /* out of memory: done is then meaningless */
};

struct psort {
	uint64_t *a;             /* one half of the entries, sorted in place */
	size_t n;
	int obits, kb;           /* key = (e >> obits) - kmin_rel: kb bits */
	uint64_t kmin_rel;
	int passes, width;       /* of the LSD passes inside buckets */
	size_t nb;               /* buckets of the top pass */
	size_t *start;           /* nb + 1: where each bucket starts */
	struct progress *pr;
	int half;
};

static inline size_t pkey(const struct psort *s, uint64_t e)
{
	return (size_t)((e >> s->obits) - s->kmin_rel);
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

static void insertion_sort(uint64_t *buf, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++) {
		uint64_t v = buf[i];
		size_t j = i;

		while (j > 0 && buf[j - 1] > v) {
			buf[j] = buf[j - 1];
			j--;
		}
		buf[j] = v;
	}
}

/*
 * Sort one bucket, buf[0..n), in place: LSD passes on the rest of the key
 * through scratch (room for n), then runs of equal keys by offset (the
 * in-place top pass did not keep input order). Entries are unique, so the
 * result is the same as sorting the whole values.
 */
static void sort_bucket(const struct psort *s, uint64_t *buf, uint64_t *scratch, size_t n)
{
	size_t cnt[1 << LOW_BITS];
	size_t mask = ((size_t)1 << s->width) - 1, i, j;
	uint64_t *src = buf, *dst = scratch, *tmp;
	int p;

	if (n < 48 || s->passes == 0) {
		if (n < 48)
			insertion_sort(buf, n);
		else
			qsort(buf, n, sizeof(*buf), cmp_u64);
		return;
	}
	for (p = 0; p < s->passes; p++) {
		int sh = p * s->width;
		size_t pos = 0, b, c, nb = mask + 1;

		memset(cnt, 0, nb * sizeof(cnt[0]));
		for (i = 0; i < n; i++)
			cnt[(pkey(s, src[i]) >> sh) & mask]++;
		for (b = 0; b < nb; b++) {
			c = cnt[b];
			cnt[b] = pos;
			pos += c;
		}
		for (i = 0; i < n; i++) {
			uint64_t e = src[i];

			dst[cnt[(pkey(s, e) >> sh) & mask]++] = e;
		}
		tmp = src;
		src = dst;
		dst = tmp;
	}
	if (src != buf)
		memcpy(buf, src, n * sizeof(*buf));
	for (i = 0; i < n; i = j) {
		uint64_t k = buf[i] >> s->obits;

		for (j = i + 1; j < n && buf[j] >> s->obits == k; j++)
			;
		if (j - i > 32)
			qsort(buf + i, j - i, sizeof(*buf), cmp_u64);
		else if (j - i > 1)
			insertion_sort(buf + i, j - i);
	}
}

static void report(struct psort *s, size_t done, int failed)
{
	pthread_mutex_lock(&s->pr->mu);
	s->pr->done[s->half] = done;
	if (failed)
		s->pr->failed = 1;
	pthread_cond_broadcast(&s->pr->cv);
	pthread_mutex_unlock(&s->pr->mu);
}

/* Sort s->a in place: an American flag pass on the top bits of the keys,
 * then every bucket, telling s->pr as buckets are done. s->start is
 * allocated by the caller (nb + 1). */
static void sort_half(struct psort *s)
{
	const size_t nb = s->nb;
	size_t *start = s->start, *next = calloc(nb, sizeof(*next)), b, i, most = 0;
	uint64_t *a = s->a, *scratch = NULL;
	int sh = s->kb - TOP_BITS;

	if (!next) {
		report(s, 0, 1);
		return;
	}
	for (i = 0; i < s->n; i++)
		next[pkey(s, a[i]) >> sh]++;
	start[0] = 0;
	for (b = 0; b < nb; b++) {
		start[b + 1] = start[b] + next[b];
		next[b] = start[b];
	}
	for (b = 0; b < nb; b++) {
		size_t end = start[b + 1];

		for (i = next[b]; i < end; i++) {
			uint64_t v = a[i];
			size_t d = pkey(s, v) >> sh;

			while (d != b) {
				uint64_t w = a[next[d]];

				a[next[d]++] = v;
				v = w;
				d = pkey(s, v) >> sh;
			}
			a[i] = v;
		}
		next[b] = end;
	}
	free(next);
	for (b = 0; b < nb; b++)
		if (start[b + 1] - start[b] > most)
			most = start[b + 1] - start[b];
	if (most >= 48 && s->passes > 0 && !(scratch = runs_big_alloc(most * sizeof(*scratch)))) {
		report(s, 0, 1);
		return;
	}
	for (b = 0; b < nb; b++) {
		sort_bucket(s, a + start[b], scratch, start[b + 1] - start[b]);
		if ((b & 7) == 7 || b + 1 == nb)
			report(s, b + 1, 0);
	}
	runs_big_free(scratch, most * sizeof(*scratch));
}

static void *sort_worker(void *arg)
{
	sort_half(arg);
	return NULL;
}

/*
 * Sorting the packed entries, part[0]'s and part[1]'s (when the input was
 * read in two parts; otherwise the two halves of part[0]'s), each in place
 * on its own thread, while the output follows them (struct progress).
 */
struct psorts {
	struct psort s[2];
	struct progress pr;
	pthread_t th[2];
	int threaded[2];
	uint64_t *h[2];
	size_t nh[2];
};

static void sort_packed_start(struct msort *m, struct psorts *ps)
{
	struct part *a = &m->part[0], *b = &m->part[1];
	int64_t span = a->kmax - a->kmin;
	int kb = span > 0 ? 64 - __builtin_clzll((unsigned long long)span) : 0, k;

	/* (a part without entries has none allocated: its place is then
	 * `none`, so that offsets of 0 from it stay defined) */
	static uint64_t none[1];
	uint64_t *ae = a->ents ? a->ents : none, *be = b->ents ? b->ents : none;

	if (b->n) {
		ps->h[0] = ae;
		ps->nh[0] = a->n;
		ps->h[1] = be;
		ps->nh[1] = b->n;
	} else {
		ps->h[0] = ae;
		ps->nh[0] = a->n / 2;
		ps->h[1] = ae + a->n / 2;
		ps->nh[1] = a->n - a->n / 2;
	}
	pthread_mutex_init(&ps->pr.mu, NULL);
	pthread_cond_init(&ps->pr.cv, NULL);
	for (k = 0; k < 2; k++) {
		struct psort *s = &ps->s[k];

		s->a = ps->h[k];
		s->n = ps->nh[k];
		s->obits = m->obits;
		s->kmin_rel = (uint64_t)a->kmin - (uint64_t)a->base;
		s->pr = &ps->pr;
		s->half = k;
		if (kb == 0) {
			/* All times equal: each half is in input order, one
			 * bucket. */
			s->nb = 1;
		} else {
			int kbt = kb < TOP_BITS ? TOP_BITS : kb;  /* the top pass does it all */

			s->kb = kbt;
			s->nb = (size_t)1 << TOP_BITS;
			s->passes = (kbt - TOP_BITS + LOW_BITS - 1) / LOW_BITS;
			s->width = s->passes ? (kbt - TOP_BITS + s->passes - 1) / s->passes : 0;
		}
		s->start = calloc(s->nb + 1, sizeof(*s->start));
		if (!s->start) {
			ps->pr.failed = 1;
			continue;
		}
		if (kb == 0) {
			s->start[1] = s->n;
			ps->pr.done[k] = 1;
			continue;
		}
		ps->threaded[k] = pthread_create(&ps->th[k], NULL, sort_worker, s) == 0;
		if (!ps->threaded[k])
			sort_half(s);
	}
}

/* Wait for the sorting threads and free what they used. */
static void sort_packed_end(struct psorts *ps)
{
	int k;

	for (k = 0; k < 2; k++) {
		if (ps->threaded[k])
			pthread_join(ps->th[k], NULL);
		free(ps->s[k].start);
	}
	pthread_cond_destroy(&ps->pr.cv);
	pthread_mutex_destroy(&ps->pr.mu);
}

/* Stable LSD radix sort of the wide entries by key, 11 bits a pass, passes
 * where every key agrees skipped. Returns the sorted array (wents or the
 * other one, *other), NULL when out of memory. */
static struct wide *sort_wide(struct msort *m, struct wide **other)
{
	struct part *a = &m->part[0];
	struct wide *src = a->wents, *dst, *tmp;
	uint64_t lo = (uint64_t)a->kmin ^ (1ULL << 63);
	uint64_t span = ((uint64_t)a->kmax ^ (1ULL << 63)) - lo;
	int kb = span ? 64 - __builtin_clzll((unsigned long long)span) : 0;
	int passes = (kb + 10) / 11, width = passes ? (kb + passes - 1) / passes : 0, p;
	size_t *cnt, i;

	*other = NULL;
	if (a->n < 2 || kb == 0)
		return src;
	dst = runs_big_alloc(a->n * sizeof(*dst));
	cnt = calloc((size_t)1 << width, sizeof(*cnt));
	if (!dst || !cnt) {
		runs_big_free(dst, a->n * sizeof(*dst));
		free(cnt);
		return NULL;
	}
	*other = dst;
	for (p = 0; p < passes; p++) {
		int sh = p * width;
		size_t mask = ((size_t)1 << width) - 1, pos = 0, b, c;

		memset(cnt, 0, (mask + 1) * sizeof(*cnt));
		for (i = 0; i < a->n; i++)
			cnt[((src[i].key - lo) >> sh) & mask]++;
		for (b = 0; b <= mask; b++) {
			c = cnt[b];
			cnt[b] = pos;
			pos += c;
		}
		for (i = 0; i < a->n; i++)
			dst[cnt[((src[i].key - lo) >> sh) & mask]++] = src[i];
		tmp = src;
		src = dst;
		dst = tmp;
	}
	free(cnt);
	*other = dst;
	return src;
}

/* ------------------------------------------------------------------------ */
/* Output                                                                    */
/* ------------------------------------------------------------------------ */

#define OUT_BUF (4u << 20)   /* a multiple of the direct I/O block */
#define DIRECT_BLOCK 4096u
#define NBUF 3
#define PREFETCH 24

/* The text of the record at `off`, with its newline: length, *p. */
static inline size_t line_at(const struct msort *m, uint64_t off, const char **p)
{
	const char *s = m->map + off, *nl = memchr(s, '\n', m->size - off);
	size_t len;

	if (nl) {
		len = (size_t)(nl - s);
		if (!odd_line(s, len)) {
			*p = s;
			return len + 1;
		}
	}
	{
		/* Kept aside: find it by its offset. */
		const struct part *t = &m->part[0];
		size_t lo = 0, hi = t->nx;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (t->x[mid].off < off)
				lo = mid + 1;
			else
				hi = mid;
		}
		s = t->side + t->x[lo].at;
		nl = memchr(s, '\n', t->slen - t->x[lo].at);
		*p = s;
		return (size_t)(nl - s) + 1;
	}
}

/*
 * The common case of line_at, without calls: when the record's raw line
 * and its newline lie within the 64 bytes at `off` and read as themselves,
 * copy those 64 bytes to out (which has room) and return the line's length
 * with its newline; otherwise 0.
 */
static inline size_t short_line(const struct msort *m, uint64_t off, char *out)
{
#ifdef __SSE2__
	const char *s = m->map + off;
	const __m128i nl = _mm_set1_epi8('\n');
	__m128i x0, x1, x2, x3;
	uint64_t bits;
	size_t len;

	if (off + 64 > m->size)
		return 0;
	x0 = _mm_loadu_si128((const __m128i *)(const void *)s);
	x1 = _mm_loadu_si128((const __m128i *)(const void *)(s + 16));
	x2 = _mm_loadu_si128((const __m128i *)(const void *)(s + 32));
	x3 = _mm_loadu_si128((const __m128i *)(const void *)(s + 48));
	bits = (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x0, nl)) |
	       (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x1, nl)) << 16 |
	       (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x2, nl)) << 32 |
	       (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x3, nl)) << 48;
	if (!bits)
		return 0;
	len = (size_t)__builtin_ctzll(bits);
	if (odd_line(s, len))
		return 0;
	_mm_storeu_si128((__m128i *)(void *)out, x0);
	_mm_storeu_si128((__m128i *)(void *)(out + 16), x1);
	_mm_storeu_si128((__m128i *)(void *)(out + 32), x2);
	_mm_storeu_si128((__m128i *)(void *)(out + 48), x3);
	return len + 1;
#else
	(void)m;
	(void)off;
	(void)out;
	return 0;
#endif
}

/*
 * The output: buffers of exactly OUT_BUF bytes (the last one excepted),
 * filled by the gathering thread and written in turn by a writer thread,
 * either through the picl_writer or, for a plain named output, straight
 * into the writer's temporary file with O_DIRECT: the page cache is
 * bypassed, which on a virtual machine saves more than copying (fresh
 * page-cache pages are slow to come by). The writer still syncs and
 * renames the file into place when closed.
 */
struct outq {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char *buf[NBUF];
	size_t len[NBUF];
	int full[NBUF];
	int done, failed, threaded;
	struct picl_writer *w;
	int fd;                /* >= 0: write here, not through w */
	const char *name;      /* of the file fd writes */
	int sys_errno;
	uint64_t total;        /* bytes written to fd, padding excluded */
	int cur;               /* the buffer being filled */
	size_t fill;
};

/* Write one buffer: 0 or -1. */
static int out_write(struct outq *q, char *buf, size_t len)
{
	size_t pad, done = 0;

	if (q->fd < 0)
		return picl_writer_write_raw(q->w, buf, len) < 0 ? -1 : 0;
	/* Only the last buffer is short: pad it to a whole block (the file
	 * is truncated to its length afterwards). */
	pad = (DIRECT_BLOCK - len % DIRECT_BLOCK) % DIRECT_BLOCK;
	memset(buf + len, 0, pad);
	while (done < len + pad) {
		ssize_t k = write(q->fd, buf + done, len + pad - done);
		int fl;

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EINVAL && (fl = fcntl(q->fd, F_GETFL)) >= 0 &&
		    (fl & O_DIRECT) && fcntl(q->fd, F_SETFL, fl & ~O_DIRECT) == 0)
			continue;   /* alignment the file system wants otherwise */
		if (k <= 0) {
			q->sys_errno = k < 0 ? errno : ENOSPC;
			return -1;
		}
		done += (size_t)k;
	}
	q->total += len;
	if (pad && ftruncate(q->fd, (off_t)q->total) < 0) {
		q->sys_errno = errno;
		return -1;
	}
	return 0;
}

static void *writer_thread(void *arg)
{
	struct outq *q = arg;
	int i = 0, failed;

	for (;;) {
		pthread_mutex_lock(&q->mu);
		while (!q->full[i] && !q->done)
			pthread_cond_wait(&q->cv, &q->mu);
		if (!q->full[i]) {
			pthread_mutex_unlock(&q->mu);
			return NULL;
		}
		failed = q->failed;
		pthread_mutex_unlock(&q->mu);
		if (!failed && out_write(q, q->buf[i], q->len[i]) < 0)
			failed = 1;
		pthread_mutex_lock(&q->mu);
		q->failed = failed;
		q->full[i] = 0;
		pthread_cond_broadcast(&q->cv);
		pthread_mutex_unlock(&q->mu);
		i = (i + 1) % NBUF;
	}
}

/* Hand the current buffer over and wait for the next to be free: 0, or -1
 * when writing failed. */
static int out_submit(struct outq *q)
{
	int failed;

	if (!q->threaded) {
		if (q->failed || out_write(q, q->buf[q->cur], q->fill) < 0)
			q->failed = 1;
		q->fill = 0;
		return q->failed ? -1 : 0;
	}
	pthread_mutex_lock(&q->mu);
	q->len[q->cur] = q->fill;
	q->full[q->cur] = 1;
	pthread_cond_broadcast(&q->cv);
	q->cur = (q->cur + 1) % NBUF;
	q->fill = 0;
	while (q->full[q->cur])
		pthread_cond_wait(&q->cv, &q->mu);
	failed = q->failed;
	pthread_mutex_unlock(&q->mu);
	return failed ? -1 : 0;
}

static inline int out_put(struct outq *q, const char *p, size_t len)
{
	while (len > 0) {
		size_t n = OUT_BUF - q->fill;

		if (n > len)
			n = len;
		memcpy(q->buf[q->cur] + q->fill, p, n);
		q->fill += n;
		p += n;
		len -= n;
		if (q->fill == OUT_BUF && out_submit(q) < 0)
			return -1;
	}
	return 0;
}

/* Merge two sorted runs of packed entries into the output: 0, or -1 when
 * writing failed. Equal times: a's first (the smaller offsets). */
static int merge_out(const struct msort *m, struct outq *q, const uint64_t *a, size_t na,
		     const uint64_t *b, size_t nb)
{
	size_t ia = 0, ib = 0, k;
	uint64_t mask = m->omask;

	for (k = 0; k < PREFETCH && k < na; k++)
		__builtin_prefetch(m->map + (a[k] & mask));
	for (k = 0; k < PREFETCH && k < nb; k++)
		__builtin_prefetch(m->map + (b[k] & mask));
	while (ia < na || ib < nb) {
		const char *p;
		size_t l;
		uint64_t e;

		if (ib == nb || (ia < na && a[ia] < b[ib])) {
			e = a[ia++];
			if (ia + PREFETCH < na)
				__builtin_prefetch(m->map + (a[ia + PREFETCH] & mask));
		} else {
			e = b[ib++];
			if (ib + PREFETCH < nb)
				__builtin_prefetch(m->map + (b[ib + PREFETCH] & mask));
		}
		if (OUT_BUF - q->fill >= 64 &&
		    (l = short_line(m, e & mask, q->buf[q->cur] + q->fill)) != 0) {
			q->fill += l;
			if (q->fill == OUT_BUF && out_submit(q) < 0)
				return -1;
			continue;
		}
		l = line_at(m, e & mask, &p);
		if (out_put(q, p, l) < 0)
			return -1;
	}
	return 0;
}

/*
 * Write the header lines, then the records: either at the offsets v[0],
 * v[stride], ... in that order (wide entries), or (v NULL) in the order of
 * merging the two halves of packed entries ps is sorting, bucket by bucket
 * as both halves have sorted it. This thread gathers the lines into
 * buffers, another writes them. 0, or -1 after reporting.
 */
static int gather(struct msort *m, const uint64_t *v, size_t stride, struct psorts *ps,
		  struct picl_writer *w, const char *direct)
{
	const char *tmp = direct ? picl_writer_temp_path(w) : NULL;
	struct outq q;
	pthread_t th;
	int rc = 0, failed, nomem = 0;
	size_t i, k, n = m->part[0].n;
	char *mem;

	memset(&q, 0, sizeof(q));
	q.w = w;
	q.fd = -1;
	if (tmp) {
		q.name = direct;
		q.fd = open(tmp, O_WRONLY | O_CLOEXEC | O_DIRECT);
		if (q.fd < 0)
			q.fd = open(tmp, O_WRONLY | O_CLOEXEC);
	}
	mem = runs_big_alloc((size_t)NBUF * OUT_BUF);
	if (!mem) {
		if (q.fd >= 0)
			close(q.fd);
		picltrace_error(m->cfg.cmd, "out of memory");
		return -1;
	}
	for (k = 0; k < NBUF; k++)
		q.buf[k] = mem + k * OUT_BUF;
	pthread_mutex_init(&q.mu, NULL);
	pthread_cond_init(&q.cv, NULL);
	q.threaded = pthread_create(&th, NULL, writer_thread, &q) == 0;
	if (out_put(&q, m->part[0].hdr, m->part[0].hlen) < 0 ||
	    out_put(&q, m->part[0].defs, m->part[0].dlen) < 0)
		goto finish;
	if (v) {
		for (i = 0; i < n; i++) {
			const char *p;
			size_t l;

			if (i + PREFETCH < n)
				__builtin_prefetch(m->map + v[(i + PREFETCH) * stride]);
			l = line_at(m, v[i * stride], &p);
			if (out_put(&q, p, l) < 0)
				goto finish;
		}
	} else {
		size_t bk = 0, upto = 0, nbk = ps->s[0].nb;

		while (bk < nbk) {
			const size_t *s0 = ps->s[0].start, *s1 = ps->s[1].start;

			if (bk == upto) {
				/* Wait until both halves have sorted bucket bk. */
				pthread_mutex_lock(&ps->pr.mu);
				while (!ps->pr.failed && (ps->pr.done[0] <= bk || ps->pr.done[1] <= bk))
					pthread_cond_wait(&ps->pr.cv, &ps->pr.mu);
				nomem = ps->pr.failed;
				upto = ps->pr.done[0] < ps->pr.done[1] ? ps->pr.done[0] : ps->pr.done[1];
				pthread_mutex_unlock(&ps->pr.mu);
				if (nomem)
					goto finish;
			}
			if (merge_out(m, &q, ps->h[0] + s0[bk], s0[bk + 1] - s0[bk],
				      ps->h[1] + s1[bk], s1[bk + 1] - s1[bk]) < 0)
				goto finish;
			bk++;
		}
	}
	if (q.fill)
		out_submit(&q);
finish:
	if (q.threaded) {
		pthread_mutex_lock(&q.mu);
		q.done = 1;
		pthread_cond_broadcast(&q.cv);
		pthread_mutex_unlock(&q.mu);
		pthread_join(th, NULL);
	}
	failed = q.failed;
	if (q.fd >= 0 && close(q.fd) < 0 && !failed) {
		q.sys_errno = errno;
		failed = 1;
	}
	if (nomem) {
		picltrace_error(m->cfg.cmd, "out of memory (try a smaller --memory)");
		rc = -1;
	} else if (failed) {
		if (q.fd >= 0)
			picltrace_error(m->cfg.cmd, "%s: cannot write: %s", q.name,
					strerror(q.sys_errno));
		else
			picltrace_report(m->cfg.cmd, picl_writer_error(w));
		rc = -1;
	}
	pthread_cond_destroy(&q.cv);
	pthread_mutex_destroy(&q.mu);
	runs_big_free(mem, (size_t)NBUF * OUT_BUF);
	return rc;
}

int msort_finish(struct msort *m, struct picl_writer *w, const char *direct)
{
	struct part *a = &m->part[0];
	int rc;

	madvise((void *)m->map, m->size, MADV_WILLNEED);
	if (a->wide) {
		struct wide *other, *res = sort_wide(m, &other);

		if (!res)
			goto nomem;
		/* The other array is not needed any more. */
		if (other)
			runs_big_free(other, other == a->wents ? a->cap * sizeof(*other)
							  : a->n * sizeof(*other));
		if (other == a->wents) {
			a->wents = res;
			a->cap = a->n;
		}
		phase(m, "sort");
		rc = gather(m, (const uint64_t *)(const void *)res + 1, 2, NULL, w, direct);
	} else {
		struct psorts *ps = calloc(1, sizeof(*ps));

		if (!ps)
			goto nomem;
		sort_packed_start(m, ps);
		rc = gather(m, NULL, 0, ps, w, direct);
		sort_packed_end(ps);
		free(ps);
		phase(m, "sort and write");
		return rc;
	}
	phase(m, "write");
	return rc;
nomem:
	picltrace_error(m->cfg.cmd, "out of memory (try a smaller --memory)");
	return -1;
}
