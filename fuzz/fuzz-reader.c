/*
 * fuzz-reader.c - libFuzzer target for the reader (and, through it, the
 * descriptor compiler, the alias/subset definitions and the writer).
 *
 * Oracle: whatever the input, reading must not crash or leak, and the
 * canonical rewrite of the records that read cleanly must be a fixed point:
 * reading it and writing it again gives the same bytes. Small buffer and
 * record limits make the refill and too-long paths easy to reach.
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

/* Read `len` bytes at buf, write every good record canonically to a memfd;
 * return its contents (malloc'd) in *out. */
static size_t rewrite(const void *buf, size_t len, char **out)
{
	struct picl_reader_options ro = { 0 };
	struct picl_reader *r;
	struct picl_writer *w;
	struct picl_record rec;
	off_t n;
	int fd, st, rc, errors = 0;

	ro.buffer_size = 64;
	ro.max_record = 512;
	*out = NULL;
	r = picl_reader_open_memory(buf, len, "fuzz", &ro, &st, NULL);
	if (!r)
		return 0;
	fd = memfd_create("fuzz", 0);
	if (fd < 0)
		abort();
	w = picl_writer_open_fd(fd, "out", NULL, &st, NULL);
	if (!w)
		abort();
	while ((rc = picl_reader_next(r, &rec)) != PICL_END) {
		if (rc == PICL_OK) {
			/* A record the writer refuses (data ending in " \", ...) is
			 * dropped from both passes alike. */
			(void)picl_writer_write(w, &rec);
		} else if (picl_reader_error_is_fatal(r) || ++errors > 10000) {
			break;
		}
	}
	picl_reader_free(r);
	if (picl_writer_close(w, NULL) != PICL_OK)
		abort();
	n = lseek(fd, 0, SEEK_END);
	*out = malloc((size_t)n + 1);
	if (!*out || pread(fd, *out, (size_t)n, 0) != n)
		abort();
	close(fd);
	return (size_t)n;
}

/* Two readers of the same bytes must agree on every record, value and
 * error position. */
static void compare_readers(struct picl_reader *f, struct picl_reader *c)
{
	struct picl_record rf, rc_;
	int a, b, n = 0;

	do {
		a = picl_reader_next(f, &rf);
		b = picl_reader_next(c, &rc_);
		if (a != b)
			abort();
		if (a == PICL_OK) {
			size_t i;

			if (rf.type != rc_.type || rf.event != rc_.event ||
			    picl_time_cmp(rf.time, rc_.time) != 0 || rf.time.scale != rc_.time.scale ||
			    rf.processor != rc_.processor || rf.process != rc_.process ||
			    rf.nfields != rc_.nfields || rf.alias != rc_.alias ||
			    rf.has_descriptor != rc_.has_descriptor || rf.line_len != rc_.line_len ||
			    rf.control_len != rc_.control_len || rf.data_len != rc_.data_len ||
			    rf.nvalues != rc_.nvalues || rf.mark.line != rc_.mark.line ||
			    rf.mark.offset != rc_.mark.offset)
				abort();
			for (i = 0; i < rf.nvalues; i++)
				if (rf.values[i].kind != rc_.values[i].kind ||
				    rf.values[i].text_len != rc_.values[i].text_len ||
				    (rf.values[i].kind != PICL_VAL_STRING &&
				     rf.values[i].kind != PICL_VAL_CHARS &&
				     memcmp(&rf.values[i].v, &rc_.values[i].v, sizeof(uint64_t)) != 0))
					abort();
		} else if (a < 0) {
			const struct picl_error *ef = picl_reader_error(f), *ec = picl_reader_error(c);

			if (ef->mark.line != ec->mark.line || ef->mark.column != ec->mark.column)
				abort();
			if (picl_reader_error_is_fatal(f) != picl_reader_error_is_fatal(c))
				abort();
			if (picl_reader_error_is_fatal(f))
				break;
		}
	} while (a != PICL_END && ++n < 100000);
	picl_reader_free(f);
	picl_reader_free(c);
}

/*
 * The fast path for canonical lines and the careful parser must agree
 * (decoding and raw), and
 * so must the serial reader and the parsing threads (PICL_READ_PARALLEL,
 * which needs a regular file: a memfd; small chunks so that records
 * straddle them).
 */
static void compare_paths(const uint8_t *data, size_t size)
{
	struct picl_reader_options fo = { 0 }, co = { 0 }, po = { 0 };
	struct picl_reader *f, *c;
	int st, fd;

	fo.max_record = co.max_record = po.max_record = 512;
	co.flags = PICL_READ_NO_FAST_PATH;
	f = picl_reader_open_memory(data, size, "f", &fo, &st, NULL);
	c = picl_reader_open_memory(data, size, "c", &co, &st, NULL);
	if (!f || !c)
		abort();
	compare_readers(f, c);
	/* ... raw too (the fast paths read the fixed fields their own way) */
	fo.flags = PICL_READ_RAW;
	co.flags = PICL_READ_RAW | PICL_READ_NO_FAST_PATH;
	f = picl_reader_open_memory(data, size, "f", &fo, &st, NULL);
	c = picl_reader_open_memory(data, size, "c", &co, &st, NULL);
	if (!f || !c)
		abort();
	compare_readers(f, c);
	fo.flags = 0;

	fd = memfd_create("fuzz-parallel", 0);
	if (fd < 0 || (size > 0 && write(fd, data, size) != (ssize_t)size) ||
	    lseek(fd, 0, SEEK_SET) != 0)
		abort();
	po.flags = PICL_READ_PARALLEL;
	po.buffer_size = 64;
	fo.buffer_size = 64;
	setenv("PICL_THREADS", "2", 1);
	f = picl_reader_open_memory(data, size, "f", &fo, &st, NULL);
	c = picl_reader_open_fd(fd, "p", &po, &st, NULL);
	if (!f || !c)
		abort();
	compare_readers(f, c);
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *a, *b;
	size_t na, nb;

	compare_paths(data, size);
	na = rewrite(data, size, &a);

	if (!a)
		return 0;
	nb = rewrite(a, na, &b);
	if (na != nb || memcmp(a, b, na) != 0) {
		fprintf(stderr, "canonical rewrite is not a fixed point\n--- first\n%.*s\n--- second\n%.*s\n",
			(int)na, a, (int)nb, b);
		abort();
	}
	free(a);
	free(b);
	return 0;
}
