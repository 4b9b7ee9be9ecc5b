/*
 * fuzz-stats.c - libFuzzer target for the statistics accumulator, fed with
 * the records the reader makes of the input: entries, exits and marks in
 * any order and nesting (exits of nothing open, exits far below the top of
 * the stack, thousands of types), whatever the bytes say. The accumulator
 * must take them without crashing or leaking, and what it emits must be
 * statistics records that the writer writes and the reader reads back,
 * with every count at least 1, and every time what picl_stats_get gives
 * and, when it has it, the exact decimal of picl_stats_get_time.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "picl-trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int emit(void *ctx, const struct picl_record *rec)
{
	return picl_writer_write(ctx, rec) == PICL_OK ? 0 : 1;
}

/* A time read back from the emitted text against what the accumulator
 * says: the same double, and the same decimal when it is exact. */
static void check_time(const struct picl_stats *s, const struct picl_record *rec,
		       const struct picl_stat_pair *pair)
{
	struct picl_time exact, back;
	double d;

	if (picl_stats_get(s, rec->processor, rec->process, rec->event, pair->event,
			   &d, NULL, NULL) != 1 || d != pair->value)
		abort();
	if (picl_stats_get_time(s, rec->processor, rec->process, rec->event, pair->event,
				&exact)) {
		if (picl_time_to_double(exact) != d || !pair->text ||
		    picl_time_parse(pair->text, pair->text_len, &back, NULL) != PICL_OK ||
		    picl_time_cmp(back, exact) != 0)
			abort();
	}
}

/* Read the emitted records back: statistics records, each with pairs,
 * every count positive; returns how many there were. */
static uint64_t check_emitted(int fd, const struct picl_stats *s)
{
	struct picl_stat_pair pairs[64];
	struct picl_reader *r;
	struct picl_record rec;
	uint64_t n = 0;
	off_t len = lseek(fd, 0, SEEK_END);
	char *buf;
	int rc;
	long k;

	if (len < 0 || !(buf = malloc((size_t)len + 1)))
		abort();
	if (pread(fd, buf, (size_t)len, 0) != (ssize_t)len)
		abort();
	r = picl_reader_open_memory(buf, (size_t)len, "emitted", NULL, &rc, NULL);
	if (!r)
		abort();
	while ((rc = picl_reader_next(r, &rec)) == PICL_OK) {
		long np;

		if (rec.type != PICL_REC_STAT_TIME && rec.type != PICL_REC_STAT_COUNT &&
		    rec.type != PICL_REC_STAT_VOLUME)
			abort();
		if (rec.nfields > 0 && !rec.values && picl_reader_decode(r, &rec) != PICL_OK)
			abort();
		np = picl_stats_record_pairs(&rec, pairs, 64);
		if (np < 1)
			abort();
		for (k = 0; k < np && k < 64; k++)
			if (rec.type == PICL_REC_STAT_COUNT && !(pairs[k].value >= 1))
				abort();
			else if (rec.type == PICL_REC_STAT_TIME)
				check_time(s, &rec, &pairs[k]);
		n++;
	}
	if (rc != PICL_END)
		abort();
	picl_reader_free(r);
	free(buf);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct picl_reader *r;
	struct picl_stats *s;
	struct picl_writer *w;
	struct picl_record rec;
	struct picl_error err;
	int rc, fd;

	r = picl_reader_open_memory(data, size, "fuzz", NULL, &rc, NULL);
	if (!r)
		return 0;
	s = picl_stats_new();
	if (!s)
		abort();
	while ((rc = picl_reader_next(r, &rec)) != PICL_END) {
		if (rc < 0) {
			if (picl_reader_error_is_fatal(r))
				break;
			continue;
		}
		rc = picl_stats_add(s, &rec, &err);
		if (rc == PICL_ERR_NOMEM)
			break;
		if (rc != PICL_OK && rc != PICL_ERR_DATA)
			abort();
	}
	fd = memfd_create("fuzz-stats", 0);
	if (fd < 0)
		abort();
	w = picl_writer_open_fd(fd, "emitted", NULL, &rc, NULL);
	if (!w)
		abort();
	if (picl_stats_emit(s, emit, w) != 0)
		abort();
	if (picl_writer_close(w, NULL) != PICL_OK)
		abort();
	(void)check_emitted(fd, s);
	close(fd);
	picl_stats_free(s);
	picl_reader_free(r);
	return 0;
}
