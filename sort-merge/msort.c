/*
 * msort.c - sorting one plain-text trace file through a read-only mapping.
 *
 * When the input is a single regular, uncompressed file that fits the
 * memory budget, its records are not copied: the file is mapped, read with
 * the library's raw reader (from the mapping), and each event record keeps
 * only 8 bytes, "packed": (time - base) << obits | byte offset, where obits
 * is just enough for the file's size and the time is an integer at the
 * finest decimal scale seen so far. Entries are appended in input order, so
 * sorting the packed integers sorts by time and keeps equal times in input
 * order (stable) whatever sort is used: an MSD radix pass on the top bits of
 * the times, then LSD passes inside each bucket, which fits in cache. Two
 * threads share every phase that can be split: the top pass (halves of the
 * input), the buckets, and the output (one gathers the lines from the
 * mapping in sorted order while the other writes).
 *
 * When a new time falls outside the window of times the packed entries can
 * hold, the window is moved (all entries rewritten; rare, the window is
 * recentred) or, when the range of times is too wide, the entries become
 * 16-byte "wide" ones (time, offset) sorted by a stable LSD radix sort.
 * When even that fails (a time that does not fit 64 bits at the finest
 * scale) or the budget would be exceeded, msort gives up and the caller
 * sorts with the copying sorter (runs.c), which handles everything.
 *
 * A record whose text is not its raw line (continued over several lines, a
 * CRLF line, or the last line without a newline) is copied into a side
 * arena, found again by its offset. Header records are copied aside.
 */
#define _GNU_SOURCE
#include "runs.h"
#include "builtin.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct wide {
	uint64_t key;          /* time at the finest scale, sign bit flipped */
	uint64_t off;
};

/* A record whose text is kept in the side arena. */
struct xline {
	uint64_t off;          /* where it starts in the file */
	uint64_t at;           /* its text in the side arena, '\n'-terminated */
};

struct msort {
	struct runs_config cfg;
	const char *path;
	int fd;
	const char *map;
	size_t size;
	uint64_t budget;

	int wide;
	uint64_t *ents;        /* packed */
	struct wide *wents;    /* wide */
	size_t n, cap;         /* entries, capacity (of the array in use) */

	int obits, kbits;
	uint64_t omask;
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

	int times;             /* PICLTRACE_SORT_TIMES: phase times on stderr */
	double t0;
};

static const int64_t pow10_tab[19] = {
	1LL, 10LL, 100LL, 1000LL, 10000LL, 100000LL, 1000000LL, 10000000LL,
	100000000LL, 1000000000LL, 10000000000LL, 100000000000LL,
	1000000000000LL, 10000000000000LL, 100000000000000LL,
	1000000000000000LL, 10000000000000000LL, 100000000000000000LL,
	1000000000000000000LL
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void phase(struct msort *m, const char *what)
{
	double t = now();

	if (m->times)
		fprintf(stderr, "picltrace sort: %-8s %7.3f s\n", what, t - m->t0);
	m->t0 = t;
}

/* Anonymous memory with transparent huge pages asked for (see runs.c). */
static void *big_alloc(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	madvise(p, bytes, MADV_HUGEPAGE);
#endif
	return p;
}

static void big_free(void *p, size_t bytes)
{
	if (p && bytes)
		munmap(p, bytes);
}

static void *big_grow(void *p, size_t old, size_t bytes)
{
	void *q;

	if (!p)
		return big_alloc(bytes);
	q = mremap(p, old, bytes, MREMAP_MAYMOVE);
	if (q == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	madvise(q, bytes, MADV_HUGEPAGE);
#endif
	return q;
}

static int append(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (*len + n + 1 > *cap) {
		size_t ncap = *cap ? *cap : 4096;
		char *q;

		while (ncap < *len + n + 1)
			ncap *= 2;
		q = realloc(*buf, ncap);
		if (!q)
			return -1;
		*buf = q;
		*cap = ncap;
	}
	memcpy(*buf + *len, s, n);
	(*buf)[*len + n] = '\n';
	*len += n + 1;
	return 0;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/*
 * 1 if a raw line of the file (without its newline) may not read as itself:
 * it ends with a '\r' the reader drops, or continues on the next line.
 */
static int odd_line(const char *p, size_t len)
{
	if (len == 0)
		return 0;
	if (p[len - 1] == '\r')
		return 1;
	return p[len - 1] == '\\' && (len == 1 || is_blank(p[len - 2]));
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
	/* The mapping, and 8-byte entries and as many to sort them, for
	 * lines of 24 bytes or more. */
	est = (uint64_t)st.st_size + ((uint64_t)st.st_size / 24 + 1) * 16;
	if (est > budget || (uint64_t)st.st_size > SIZE_MAX / 2)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
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
	m->obits = 64 - __builtin_clzll((unsigned long long)m->size);
	m->kbits = 64 - m->obits;
	m->omask = (1ULL << m->obits) - 1;
	m->times = getenv("PICLTRACE_SORT_TIMES") != NULL;
	m->t0 = now();
	return m;
}

void msort_free(struct msort *m)
{
	if (!m)
		return;
	if (m->wide)
		big_free(m->wents, m->cap * sizeof(*m->wents));
	else
		big_free(m->ents, m->cap * sizeof(*m->ents));
	munmap((void *)m->map, m->size);
	close(m->fd);
	free(m->side);
	free(m->x);
	free(m->hdr);
	free(m);
}

/* Bytes in use against the budget, with `n` entries and room to sort them. */
static uint64_t in_use(const struct msort *m, size_t n)
{
	size_t elem = m->wide ? sizeof(struct wide) : sizeof(uint64_t);

	return (uint64_t)m->size + (uint64_t)n * elem * 2 + m->scap + m->hcap +
	       m->xcap * sizeof(struct xline);
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
static int to_wide(struct msort *m)
{
	size_t cap = m->cap ? m->cap : 1, i;
	struct wide *w;

	if ((uint64_t)m->size + (uint64_t)cap * sizeof(*w) * 2 + m->cap * sizeof(*m->ents) >
	    m->budget)
		return 1;
	w = big_alloc(cap * sizeof(*w));
	if (!w)
		return -1;
	for (i = 0; i < m->n; i++) {
		int64_t k = (int64_t)((m->ents[i] >> m->obits) + (uint64_t)m->base);

		w[i].key = (uint64_t)k ^ (1ULL << 63);
		w[i].off = m->ents[i] & m->omask;
	}
	big_free(m->ents, m->cap * sizeof(*m->ents));
	m->ents = NULL;
	m->wents = w;
	m->cap = cap;
	m->wide = 1;
	return 0;
}

/* Move the packed window so that it holds [lo, hi]; or go wide (as
 * to_wide). */
static int rewindow(struct msort *m, int64_t lo, int64_t hi)
{
	int64_t b;
	uint64_t delta;
	size_t i;

	if (window(m, lo, hi, &b) < 0)
		return to_wide(m);
	delta = ((uint64_t)m->base - (uint64_t)b) << m->obits;
	for (i = 0; i < m->n; i++)
		m->ents[i] += delta;
	m->base = b;
	return 0;
}

/* Keys to a finer scale: 0, 1 to give up (they would not fit 64 bits, or
 * the budget), -1 out of memory. */
static int rescale(struct msort *m, int32_t scale)
{
	int64_t p = pow10_tab[scale - m->scale], lo, hi;
	size_t i;
	int rc;

	if (__builtin_mul_overflow(m->kmin, p, &lo) || __builtin_mul_overflow(m->kmax, p, &hi))
		return 1;
	if (!m->wide) {
		int64_t b;

		if (window(m, lo, hi, &b) == 0) {
			for (i = 0; i < m->n; i++) {
				int64_t k = (int64_t)((m->ents[i] >> m->obits) + (uint64_t)m->base) * p;

				m->ents[i] = (((uint64_t)k - (uint64_t)b) << m->obits) |
					     (m->ents[i] & m->omask);
			}
			m->base = b;
			goto done;
		}
		if ((rc = to_wide(m)) != 0)
			return rc;
	}
	for (i = 0; i < m->n; i++) {
		int64_t k = (int64_t)(m->wents[i].key ^ (1ULL << 63)) * p;

		m->wents[i].key = (uint64_t)k ^ (1ULL << 63);
	}
done:
	m->kmin = lo;
	m->kmax = hi;
	m->scale = scale;
	return 0;
}

/* 0, 1 to give up (the caller sorts another way), -1 out of memory. */
static int add_event(struct msort *m, const struct picl_record *rec)
{
	int64_t k = rec->time.mant;
	uint64_t off = rec->mark.offset;
	int rc;

	if (!m->started) {
		m->scale = rec->time.scale;
		m->kmin = m->kmax = k;
		if (window(m, k, k, &m->base) < 0)
			return 1;
		m->started = 1;
	}
	if (rec->time.scale > m->scale && (rc = rescale(m, rec->time.scale)) != 0)
		return rc;
	if (rec->time.scale < m->scale &&
	    __builtin_mul_overflow(k, pow10_tab[m->scale - rec->time.scale], &k))
		return 1;
	if (!m->wide && (k < m->base || (((uint64_t)k - (uint64_t)m->base) >> m->kbits)) &&
	    (rc = rewindow(m, k < m->kmin ? k : m->kmin, k > m->kmax ? k : m->kmax)) != 0)
		return rc;
	if (k < m->kmin)
		m->kmin = k;
	if (k > m->kmax)
		m->kmax = k;
	if (off + rec->line_len >= m->size || m->map[off + rec->line_len] != '\n' ||
	    odd_line(m->map + off, rec->line_len)) {
		/* Not its raw line: keep the text aside. */
		if (m->nx == m->xcap) {
			size_t ncap = m->xcap ? 2 * m->xcap : 64;
			struct xline *q = realloc(m->x, ncap * sizeof(*q));

			if (!q)
				return -1;
			m->x = q;
			m->xcap = ncap;
		}
		m->x[m->nx].off = off;
		m->x[m->nx].at = m->slen;
		if (append(&m->side, &m->slen, &m->scap, rec->line, rec->line_len) < 0)
			return -1;
		m->nx++;
	}
	if (m->n == m->cap) {
		size_t ncap = m->cap ? 2 * m->cap : m->size / 24 + 1024;
		size_t elem = m->wide ? sizeof(struct wide) : sizeof(uint64_t);
		void *q;

		if (in_use(m, ncap) > m->budget) {
			/* Grow only as far as the budget allows. */
			ncap = m->cap + (m->cap >> 3) + 1024;
			if (in_use(m, ncap) > m->budget)
				return 1;
		}
		q = big_grow(m->wide ? (void *)m->wents : (void *)m->ents, m->cap * elem, ncap * elem);
		if (!q)
			return -1;
		if (m->wide)
			m->wents = q;
		else
			m->ents = q;
		m->cap = ncap;
	}
	if (m->wide) {
		m->wents[m->n].key = (uint64_t)k ^ (1ULL << 63);
		m->wents[m->n].off = off;
	} else {
		m->ents[m->n] = (((uint64_t)k - (uint64_t)m->base) << m->obits) | off;
	}
	m->n++;
	return 0;
}

int msort_read(struct msort *m, struct picltrace_progress *prog)
{
	struct picl_reader_options o = { 0 };
	struct picl_error err = { 0 };
	struct picl_reader *r;
	struct picl_record rec;
	uint64_t count = 0;
	int rc, st;

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
	while ((rc = picl_reader_next(r, &rec)) == PICL_OK) {
		if (picl_is_header_type(rec.type)) {
			if (append(&m->hdr, &m->hlen, &m->hcap, rec.line, rec.line_len) < 0)
				goto nomem;
		} else if ((st = add_event(m, &rec)) != 0) {
			picl_reader_free(r);
			if (st > 0)
				return 1;
			goto nomem_freed;
		}
		if ((++count & 0xffff) == 0)
			picltrace_progress(prog, picl_reader_offset(r));
	}
	if (rc != PICL_END) {
		picltrace_report(m->cfg.cmd, picl_reader_error(r));
		picl_reader_free(r);
		return -1;
	}
	picl_reader_free(r);
	phase(m, "read");
	return 0;
nomem:
	picl_reader_free(r);
nomem_freed:
	picltrace_error(m->cfg.cmd, "out of memory (try a smaller --memory)");
	return -1;
}

/* ------------------------------------------------------------------------ */
/* Sorting                                                                   */
/* ------------------------------------------------------------------------ */

#define TOP_BITS 11
#define LOW_BITS 11

struct psort {
	uint64_t *a, *t;       /* entries; as many to scatter into */
	size_t n;
	int obits, kb;         /* key = (e >> obits) - kmin_rel: kb bits */
	uint64_t kmin_rel;
	size_t starts[(1 << TOP_BITS) + 1];
	size_t counts[2][1 << TOP_BITS];
	int passes, width;     /* of the LSD passes inside buckets */
};

static inline size_t pkey(const struct psort *s, uint64_t e)
{
	return (size_t)((e >> s->obits) - s->kmin_rel);
}

/* Sort t[lo..hi) (a bucket) with the LSD passes; the result ends in a
 * when passes is odd, in t when even. */
static void sort_bucket(const struct psort *s, uint64_t *src, uint64_t *dst, size_t n)
{
	size_t cnt[LOW_BITS > 8 ? 1 << LOW_BITS : 256];
	size_t mask = ((size_t)1 << s->width) - 1, i;
	int p;

	if (n < 48) {
		/* Unique values (the offset is in them): any sort is stable. */
		for (i = 1; i < n; i++) {
			uint64_t v = src[i];
			size_t j = i;

			while (j > 0 && src[j - 1] > v) {
				src[j] = src[j - 1];
				j--;
			}
			src[j] = v;
		}
		if (s->passes & 1)
			memcpy(dst, src, n * sizeof(*src));
		return;
	}
	for (p = 0; p < s->passes; p++) {
		int sh = p * s->width;
		size_t pos = 0, b, c, nb = mask + 1;
		uint64_t *tmp;

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
}

struct sort_job {
	struct psort *s;
	int half;
	size_t blo, bhi;       /* buckets for phase 2 */
};

static void top_count(struct psort *s, int half)
{
	size_t lo = half ? s->n / 2 : 0, hi = half ? s->n : s->n / 2, i;
	size_t *c = s->counts[half];
	int sh = s->kb - TOP_BITS;

	memset(c, 0, sizeof(s->counts[0]));
	for (i = lo; i < hi; i++)
		c[pkey(s, s->a[i]) >> sh]++;
}

static void top_scatter(struct psort *s, int half)
{
	size_t lo = half ? s->n / 2 : 0, hi = half ? s->n : s->n / 2, i;
	size_t *c = s->counts[half];
	int sh = s->kb - TOP_BITS;

	for (i = lo; i < hi; i++) {
		uint64_t e = s->a[i];

		s->t[c[pkey(s, e) >> sh]++] = e;
	}
}

/* Both histograms known: where each half's share of a bucket starts (the
 * first half's first, so the pass is stable). */
static void top_starts(struct psort *s)
{
	size_t b, pos = 0;

	for (b = 0; b < (1u << TOP_BITS); b++) {
		size_t c0 = s->counts[0][b], c1 = s->counts[1][b];

		s->starts[b] = pos;
		s->counts[0][b] = pos;
		s->counts[1][b] = pos + c0;
		pos += c0 + c1;
	}
	s->starts[1u << TOP_BITS] = pos;
}

static void buckets(struct psort *s, size_t blo, size_t bhi)
{
	size_t b;

	for (b = blo; b < bhi; b++)
		sort_bucket(s, s->t + s->starts[b], s->a + s->starts[b],
			    s->starts[b + 1] - s->starts[b]);
}

static pthread_barrier_t sort_barrier;

static void *sort_worker(void *arg)
{
	struct sort_job *j = arg;

	top_count(j->s, j->half);
	pthread_barrier_wait(&sort_barrier);
	if (j->half == 0)
		top_starts(j->s);
	pthread_barrier_wait(&sort_barrier);
	top_scatter(j->s, j->half);
	pthread_barrier_wait(&sort_barrier);
	if (j->half == 0) {
		/* Split the buckets into two halves of about n/2 entries. */
		struct psort *s = j->s;
		size_t b = 0;

		while (b < (1u << TOP_BITS) && s->starts[b] < s->n / 2)
			b++;
		j[0].blo = 0;
		j[0].bhi = b;
		j[1].blo = b;
		j[1].bhi = 1u << TOP_BITS;
	}
	pthread_barrier_wait(&sort_barrier);
	buckets(j->s, j->blo, j->bhi);
	return NULL;
}

/* Sort the packed entries; the sorted array is returned (m->ents or the
 * other, which *other then is), NULL when out of memory. */
static uint64_t *sort_packed(struct msort *m, uint64_t **other)
{
	struct psort *s;
	uint64_t *t, *res;
	int64_t span = m->kmax - m->kmin;
	int kb = span > 0 ? 64 - __builtin_clzll((unsigned long long)span) : 0;

	*other = NULL;
	if (m->n < 2 || kb == 0)
		return m->ents;   /* already in order */
	t = big_alloc(m->n * sizeof(*t));
	s = calloc(1, sizeof(*s));
	if (!t || !s) {
		big_free(t, m->n * sizeof(*t));
		free(s);
		return NULL;
	}
	s->a = m->ents;
	s->t = t;
	s->n = m->n;
	s->obits = m->obits;
	s->kmin_rel = (uint64_t)m->kmin - (uint64_t)m->base;
	if (kb < TOP_BITS)
		kb = TOP_BITS;  /* the top pass then does it all */
	s->kb = kb;
	s->passes = (kb - TOP_BITS + LOW_BITS - 1) / LOW_BITS;
	s->width = s->passes ? (kb - TOP_BITS + s->passes - 1) / s->passes : 0;
	{
		struct sort_job j[2] = { { s, 0, 0, 0 }, { s, 1, 0, 0 } };
		pthread_t th;

		pthread_barrier_init(&sort_barrier, NULL, 2);
		if (pthread_create(&th, NULL, sort_worker, &j[1]) == 0) {
			sort_worker(&j[0]);
			pthread_join(th, NULL);
		} else {
			/* One thread: both halves in turn. */
			top_count(s, 0);
			top_count(s, 1);
			top_starts(s);
			top_scatter(s, 0);
			top_scatter(s, 1);
			buckets(s, 0, 1u << TOP_BITS);
		}
		pthread_barrier_destroy(&sort_barrier);
	}
	if (s->passes & 1) {
		res = m->ents;
		*other = t;
	} else {
		res = t;
		*other = m->ents;
	}
	free(s);
	return res;
}

/* Stable LSD radix sort of the wide entries by key, 11 bits a pass, passes
 * where every key agrees skipped. Returns the sorted array (wents or the
 * other one, *other), NULL when out of memory. */
static struct wide *sort_wide(struct msort *m, struct wide **other)
{
	struct wide *src = m->wents, *dst, *tmp;
	uint64_t lo = (uint64_t)m->kmin ^ (1ULL << 63);
	uint64_t span = ((uint64_t)m->kmax ^ (1ULL << 63)) - lo;
	int kb = span ? 64 - __builtin_clzll((unsigned long long)span) : 0;
	int passes = (kb + 10) / 11, width = passes ? (kb + passes - 1) / passes : 0, p;
	size_t *cnt, i;

	*other = NULL;
	if (m->n < 2 || kb == 0)
		return src;
	dst = big_alloc(m->n * sizeof(*dst));
	cnt = calloc((size_t)1 << width, sizeof(*cnt));
	if (!dst || !cnt) {
		big_free(dst, m->n * sizeof(*dst));
		free(cnt);
		return NULL;
	}
	*other = dst;
	for (p = 0; p < passes; p++) {
		int sh = p * width;
		size_t mask = ((size_t)1 << width) - 1, pos = 0, b, c;

		memset(cnt, 0, (mask + 1) * sizeof(*cnt));
		for (i = 0; i < m->n; i++)
			cnt[((src[i].key - lo) >> sh) & mask]++;
		for (b = 0; b <= mask; b++) {
			c = cnt[b];
			cnt[b] = pos;
			pos += c;
		}
		for (i = 0; i < m->n; i++)
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
		size_t lo = 0, hi = m->nx;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (m->x[mid].off < off)
				lo = mid + 1;
			else
				hi = mid;
		}
		s = m->side + m->x[lo].at;
		nl = memchr(s, '\n', m->slen - m->x[lo].at);
		*p = s;
		return (size_t)(nl - s) + 1;
	}
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

		if (k < 0 && errno == EINTR)
			continue;
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

/*
 * Write the header lines, then the records at the offsets v[0], v[stride],
 * ... (masked) in that order: this thread gathers them into buffers, another
 * writes. 0, or -1 after reporting.
 */
static int gather(struct msort *m, const uint64_t *v, size_t stride, uint64_t mask,
		  struct picl_writer *w, int plain)
{
	const char *tmp = plain ? picl_writer_temp_path(w) : NULL;
	struct outq q;
	pthread_t th;
	int rc = 0, failed;
	size_t i, k, n = m->n;
	char *mem;

	memset(&q, 0, sizeof(q));
	q.w = w;
	q.fd = -1;
	if (tmp) {
		q.name = tmp;
		q.fd = open(tmp, O_WRONLY | O_CLOEXEC | O_DIRECT);
		if (q.fd < 0)
			q.fd = open(tmp, O_WRONLY | O_CLOEXEC);
	}
	mem = big_alloc((size_t)NBUF * OUT_BUF);
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
	if (out_put(&q, m->hdr, m->hlen) < 0)
		goto finish;
	for (i = 0; i < n; i++) {
		const char *p;
		size_t l;

		if (i + PREFETCH < n)
			__builtin_prefetch(m->map + (v[(i + PREFETCH) * stride] & mask));
		l = line_at(m, v[i * stride] & mask, &p);
		if (out_put(&q, p, l) < 0)
			goto finish;
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
	if (failed) {
		if (q.fd >= 0)
			picltrace_error(m->cfg.cmd, "%s: cannot write: %s", q.name,
					strerror(q.sys_errno));
		else
			picltrace_report(m->cfg.cmd, picl_writer_error(w));
		rc = -1;
	}
	pthread_cond_destroy(&q.cv);
	pthread_mutex_destroy(&q.mu);
	big_free(mem, (size_t)NBUF * OUT_BUF);
	return rc;
}

int msort_finish(struct msort *m, struct picl_writer *w, int plain)
{
	int rc;

	madvise((void *)m->map, m->size, MADV_WILLNEED);
	if (m->wide) {
		struct wide *other, *res = sort_wide(m, &other);

		if (!res)
			goto nomem;
		/* The other array is not needed any more. */
		if (other)
			big_free(other, other == m->wents ? m->cap * sizeof(*other)
							  : m->n * sizeof(*other));
		if (other == m->wents) {
			m->wents = res;
			m->cap = m->n;
		}
		phase(m, "sort");
		rc = gather(m, (const uint64_t *)(const void *)res + 1, 2, ~0ULL, w, plain);
	} else {
		uint64_t *other, *res = sort_packed(m, &other);

		if (!res)
			goto nomem;
		if (other)
			big_free(other, other == m->ents ? m->cap * sizeof(*other)
							 : m->n * sizeof(*other));
		if (other == m->ents) {
			m->ents = res;
			m->cap = m->n;
		}
		phase(m, "sort");
		rc = gather(m, res, 1, m->omask, w, plain);
	}
	phase(m, "write");
	return rc;
nomem:
	picltrace_error(m->cfg.cmd, "out of memory (try a smaller --memory)");
	return -1;
}
