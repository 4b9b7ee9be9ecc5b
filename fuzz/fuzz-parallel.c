/*
 * fuzz-parallel.c - libFuzzer target for the parsing threads
 * (PICL_READ_PARALLEL): the input, put in a memory file (a regular file,
 * which the threads need), is read serially and in parallel with the same
 * options, and the two must agree call by call: status, offset, every
 * field, value and mark of each record, and the place and text of each
 * error. The first two bytes choose the read size (so that the input
 * spans many chunks and records straddle them), the longest record (so
 * that the serial reader takes over in the middle) and the flags. In raw
 * mode the parallel reader may also decode ahead (PICL_READ_DECODE_AHEAD):
 * a record it hands out decoded must then be what picl_reader_decode makes
 * of the serial one.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "picl-trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setenv("PICL_THREADS", "3", 1);   /* two workers and the caller */
	return 0;
}

static int same(const char *a, size_t alen, const char *b, size_t blen)
{
	return alen == blen && (alen == 0 || memcmp(a, b, alen) == 0);
}

static void compare(const struct picl_record *a, const struct picl_record *b)
{
	size_t k;

	if (a->type != b->type || a->event != b->event || a->processor != b->processor ||
	    a->process != b->process || a->nfields != b->nfields ||
	    picl_time_cmp(a->time, b->time) != 0 || a->time.scale != b->time.scale ||
	    a->has_descriptor != b->has_descriptor || a->alias != b->alias ||
	    !same(a->control, a->control_len, b->control, b->control_len) ||
	    (a->desc == NULL) != (b->desc == NULL) ||
	    (a->desc && strcmp(picl_descriptor_control(a->desc),
			       picl_descriptor_control(b->desc)) != 0) ||
	    !same(a->data, a->data_len, b->data, b->data_len) ||
	    !same(a->line, a->line_len, b->line, b->line_len) ||
	    a->mark.line != b->mark.line || a->mark.column != b->mark.column ||
	    a->mark.offset != b->mark.offset || a->nvalues != b->nvalues)
		abort();
	for (k = 0; k < a->nvalues; k++) {
		const struct picl_value *x = &a->values[k], *y = &b->values[k];

		if (x->kind != y->kind || !same(x->text, x->text_len, y->text, y->text_len))
			abort();
		if (x->kind == PICL_VAL_STRING || x->kind == PICL_VAL_CHARS) {
			if (!same(x->v.s.ptr, x->v.s.len, y->v.s.ptr, y->v.s.len))
				abort();
		} else if (memcmp(&x->v.u, &y->v.u, sizeof(x->v.u)) != 0) {
			abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned flag_sets[4] = {
		0, PICL_READ_RAW, PICL_READ_NO_FAST_PATH, PICL_READ_RAW | PICL_READ_NO_DEFS
	};
	struct picl_reader_options o1 = { 0 }, o2;
	struct picl_reader *a, *b;
	struct picl_record ra, rb;
	int fd, st, x, y;

	if (size < 2)
		return 0;
	o1.buffer_size = 16 + data[0] % 240;
	o1.max_record = 8 + (data[1] & 0x7f) * 2;
	o1.flags = flag_sets[(data[1] >> 7) | ((data[0] & 1) << 1)];
	o2 = o1;
	o2.flags |= PICL_READ_PARALLEL;
	if ((o1.flags & PICL_READ_RAW) && (data[0] & 2))
		o2.flags |= PICL_READ_DECODE_AHEAD;
	fd = memfd_create("trace", 0);
	if (fd < 0 || write(fd, data + 2, size - 2) != (ssize_t)(size - 2) ||
	    lseek(fd, 0, SEEK_SET) != 0)
		abort();
	a = picl_reader_open_fd(fd, "t", &o1, &st, NULL);
	if (!a)
		abort();
	/* the same file, read independently from its start */
	{
		char path[64];
		int fd2;

		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		fd2 = open(path, 0);
		if (fd2 < 0)
			abort();
		b = picl_reader_open_fd(fd2, "t", &o2, &st, NULL);
		if (!b)
			abort();
		for (;;) {
			x = picl_reader_next(a, &ra);
			y = picl_reader_next(b, &rb);
			if (x != y || picl_reader_offset(a) != picl_reader_offset(b))
				abort();
			if (x == PICL_END)
				break;
			if (x < 0) {
				const struct picl_error *ea = picl_reader_error(a);
				const struct picl_error *eb = picl_reader_error(b);

				if (ea->mark.line != eb->mark.line ||
				    ea->mark.column != eb->mark.column ||
				    ea->mark.offset != eb->mark.offset ||
				    strcmp(ea->problem, eb->problem) != 0 ||
				    picl_reader_error_is_fatal(a) != picl_reader_error_is_fatal(b))
					abort();
				if (picl_reader_error_is_fatal(a))
					break;
				continue;
			}
			if (rb.desc && !ra.desc &&
			    (!(o2.flags & PICL_READ_DECODE_AHEAD) ||
			     picl_reader_decode(a, &ra) != PICL_OK))
				abort();
			compare(&ra, &rb);
		}
		picl_reader_free(b);
		close(fd2);
	}
	picl_reader_free(a);
	close(fd);
	return 0;
}
