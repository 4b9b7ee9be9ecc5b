/*
 * scan-floor.c - the floor under the reader's speed: the line scanner
 * alone.
 *
 * Runs linevec_scan (libpicl-trace/linevec.c, the AVX-512 scanner the
 * reader's fast path uses for canonical lines) over every line of FILE
 * and nothing else: no records handed over, no values kept, no alias
 * looked up, no consumer. THREADS threads (default 2) each take 256 KiB
 * chunks in turn (chunk i to thread i mod THREADS), read with pread(2), and
 * scan the lines that start in them. Prints on standard output
 *
 *     lines N scanned N other N checksum X
 *
 * (scanned: lines linevec_scan took; other: lines it left to the
 * byte-by-byte parsers, counted and skipped here; the checksum folds the
 * fields' values so the work cannot be optimised away) and the elapsed
 * seconds on standard error. `lines` must equal `wc -l FILE` on a file
 * that ends in a newline. On a processor without AVX-512 VBMI2 every line
 * is "other". A plain file only (no zstd).
 *
 * Usage: scan-floor [--threads N] FILE
 */
#include "linevec.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (256u << 10)
#define TAIL 4096u    /* read past a chunk to end its last line (a longer
			 * one ends past it: the next chunk starts after it) */

static int fd;
static off_t size;
static unsigned nthreads = 2;

struct counts {
	uint64_t lines, scanned, other, sum;
	int failed;
};

struct job {
	unsigned id;
	struct counts c;
	pthread_t tid;
};

/*
 * The lines that start in this thread's chunks: a line starts at 0 and
 * after each newline, so a chunk from `off` (> 0) is read from off - 1 and
 * its first line starts after the first newline there.
 */
static void *run(void *arg)
{
	struct job *j = arg;
	struct counts c = { 0, 0, 0, 0, 0 };   /* (here, not in *j: the threads'
						   jobs share cache lines) */
	char *buf = malloc(1 + CHUNK + TAIL + 64);
	off_t off;

	if (!buf) {
		j->c.failed = ENOMEM;
		return NULL;
	}
	for (off = (off_t)j->id * CHUNK; off < size; off += (off_t)nthreads * CHUNK) {
		off_t base = off > 0 ? off - 1 : 0;
		ssize_t n = pread(fd, buf, 1 + CHUNK + TAIL, base);
		const char *p = buf, *e, *lim;

		if (n <= 0) {
			c.failed = n < 0 ? errno : EIO;
			break;
		}
		memset(buf + n, 0, 64);   /* linevec_scan reads 64 bytes */
		e = buf + n;
		lim = buf + (off - base) + CHUNK;
		if (lim > e)
			lim = e;
		if (off > 0) {
			const char *q = memchr(buf, '\n', (size_t)(lim - buf));

			if (!q)
				continue;   /* no line starts in this chunk */
			p = q + 1;
		}
		while (p < lim) {
			struct linevec lv;
			const char *nl;

			c.lines++;
			if (linevec_scan(p, &lv)) {
				c.scanned++;
				c.sum += lv.v[0] ^ lv.v[2] ^ lv.v[lv.nfields - 1];
				p += lv.len + 1;
				continue;
			}
			c.other++;
			nl = memchr(p, '\n', (size_t)(e - p));
			if (!nl)
				break;
			p = nl + 1;
		}
	}
	free(buf);
	j->c = c;
	return NULL;
}

int main(int argc, char **argv)
{
	struct job *jobs;
	struct counts all = { 0, 0, 0, 0, 0 };
	struct timespec t0, t1;
	struct stat st;
	const char *path = NULL;
	unsigned i;
	int a;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--threads") && a + 1 < argc)
			nthreads = (unsigned)atoi(argv[++a]);
		else if (!path && argv[a][0] != '-')
			path = argv[a];
		else
			path = NULL, a = argc;
	}
	if (!path || nthreads < 1 || nthreads > 64) {
		fprintf(stderr, "usage: scan-floor [--threads N] FILE\n");
		return 2;
	}
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "scan-floor: %s: %s\n", path, strerror(errno));
		return 1;
	}
	size = st.st_size;
	jobs = calloc(nthreads, sizeof(*jobs));
	if (!jobs)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < nthreads; i++) {
		jobs[i].id = i;
		if (pthread_create(&jobs[i].tid, NULL, run, &jobs[i]) != 0) {
			fprintf(stderr, "scan-floor: cannot start a thread\n");
			return 1;
		}
	}
	for (i = 0; i < nthreads; i++) {
		pthread_join(jobs[i].tid, NULL);
		all.lines += jobs[i].c.lines;
		all.scanned += jobs[i].c.scanned;
		all.other += jobs[i].c.other;
		all.sum += jobs[i].c.sum;
		if (jobs[i].c.failed)
			all.failed = jobs[i].c.failed;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (all.failed) {
		fprintf(stderr, "scan-floor: %s: %s\n", path, strerror(all.failed));
		return 1;
	}
	printf("lines %" PRIu64 " scanned %" PRIu64 " other %" PRIu64 " checksum %016" PRIx64 "\n",
	       all.lines, all.scanned, all.other, all.sum);
	fprintf(stderr, "scan-floor: %s: %.3f s, %u threads\n", path,
		(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9,
		nthreads);
	free(jobs);
	return 0;
}
