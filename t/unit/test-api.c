/*
 * test-api.c - the library as a program sees it through picl-trace.h:
 * what each public call promises for its arguments, its return values and
 * its errors, and the resources it gives back on every path.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zstd.h>

#include "picl-trace.h"
#include "tmp.h"

/*
 * close(2) as the library sees it: counts the calls on a descriptor that
 * was not open (EBADF). Closing a descriptor twice is a bug even when the
 * second call fails harmlessly here: in a program with threads, another
 * thread's file may have taken the number in between.
 */
static int bad_closes;

int close(int fd)
{
	long rc = syscall(SYS_close, fd);

	if (rc < 0 && errno == EBADF)
		bad_closes++;
	return (int)rc;
}

/* A writer on an unlinked temporary file, and the text written to it. */
static struct picl_writer *temp_writer(int *fd)
{
	char path[256];
	struct picl_writer *w;
	int st;

	ck_assert_int_lt(test_tmp_path(path, sizeof(path), "picl-test-api.XXXXXX"), (int)sizeof(path));
	*fd = mkstemp(path);
	ck_assert_int_ge(*fd, 0);
	ck_assert_int_eq(unlink(path), 0);
	w = picl_writer_open_fd(*fd, "out", NULL, &st, NULL);
	ck_assert_ptr_nonnull(w);
	return w;
}

/* Close w and give what it wrote (static buffer), closing fd. */
static const char *written(struct picl_writer *w, int fd)
{
	static char buf[65536];
	ssize_t n;

	ck_assert_int_eq(picl_writer_close(w, NULL), PICL_OK);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	n = read(fd, buf, sizeof(buf) - 1);
	ck_assert_int_ge(n, 0);
	buf[n] = '\0';
	ck_assert_int_eq(close(fd), 0);
	return buf;
}

/* Under AddressSanitizer, a malloc too large to serve returns NULL, as
 * it does without (the tests of buffers too large to have). */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}

/* An input that opens but cannot be read (a directory: EISDIR) is closed
 * once, by the layer that failed, not again by picl_reader_open. */
START_TEST(open_unreadable_closes_once)
{
	struct picl_error err = { 0 };
	char dir[256], buf[512];
	int st = 0;

	ck_assert_int_lt(test_tmp_path(dir, sizeof(dir), "picl-test-api.XXXXXX"), (int)sizeof(dir));
	ck_assert_ptr_nonnull(mkdtemp(dir));
	bad_closes = 0;
	ck_assert_ptr_null(picl_reader_open(dir, NULL, &st, &err));
	ck_assert_int_eq(st, PICL_ERR_IO);
	ck_assert_int_eq(err.sys_errno, EISDIR);
	ck_assert_int_eq(bad_closes, 0);
	picl_error_format(&err, buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, "cannot read"));
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* A NULL name is allowed where the open calls give a default: the fd
 * reader took it to strdup (a crash), the fd writer and the memory reader
 * already named it. */
START_TEST(open_fd_null_name)
{
	static const char text[] = "-3 1 0.5 0 0 0\n";
	struct picl_error err = { 0 };
	struct picl_reader *r;
	struct picl_record rec;
	int p[2], st = 1;

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(write(p[1], text, sizeof(text) - 1), (ssize_t)(sizeof(text) - 1));
	ck_assert_int_eq(close(p[1]), 0);
	r = picl_reader_open_fd(p[0], NULL, NULL, &st, &err);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(st, PICL_OK);
	ck_assert_str_eq(picl_reader_path(r), "<input>");
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_END);
	picl_reader_free(r);
	ck_assert_int_eq(close(p[0]), 0);

	/* and when the first read fails */
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(close(p[1]), 0);
	st = 0;
	ck_assert_ptr_null(picl_reader_open_fd(p[1], NULL, NULL, &st, &err));
	ck_assert_int_eq(st, PICL_ERR_IO);
	ck_assert_str_eq(err.path, "<input>");
	ck_assert_int_eq(close(p[0]), 0);
}
END_TEST

/* A -6 record read from a trace and given a new control string is written
 * with the new one (the value's text, the old string, was copied instead,
 * while a new alias number was taken), and one whose field count is not 1
 * is refused, as for other records whose values do not fit it: the reader
 * would not take it back. */
START_TEST(writer_alias_definition_values)
{
	static const char in[] = "-6 -1 0 -1 -1 1 \"%d%s\" 6 \"%d %lf\"\n"
				 "-6 -1 0 -1 -1 1 \"%d%s\" 7 %d\n";
	struct picl_reader *r = picl_reader_open_memory(in, sizeof(in) - 1, "in", NULL, NULL, NULL);
	struct picl_record rec;
	struct picl_writer *w;
	int fd, k;

	ck_assert_ptr_nonnull(r);
	w = temp_writer(&fd);
	for (k = 0; k < 2; k++) {
		struct picl_value v[2];

		ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
		ck_assert_uint_eq(rec.nvalues, 2);
		/* unchanged: written as it came */
		ck_assert_int_eq(picl_writer_write(w, &rec), PICL_OK);
		memcpy(v, rec.values, sizeof(v));
		v[0].v.i = 9;
		v[1].v.s.ptr = "%ld %s";
		v[1].v.s.len = 6;
		rec.values = v;
		ck_assert_int_eq(picl_writer_write(w, &rec), PICL_OK);
		rec.nfields = 2;
		ck_assert_int_eq(picl_writer_write(w, &rec), PICL_ERR_UNREPRESENTABLE);
	}
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_END);
	picl_reader_free(r);
	ck_assert_str_eq(written(w, fd),
			 "-6 -1 0 -1 -1 1 \"%d%s\" 6 \"%d %lf\"\n"
			 "-6 -1 0 -1 -1 1 \"%d%s\" 9 \"%ld %s\"\n"
			 "-6 -1 0 -1 -1 1 \"%d%s\" 7 %d\n"
			 "-6 -1 0 -1 -1 1 \"%d%s\" 9 \"%ld %s\"\n");
}
END_TEST

/* A -6 record whose alias or control string a reader would refuse is not
 * written: each line written must read back (spec Table 2: aliases are 0
 * or more; Table 15: the data are a scanf control string). */
START_TEST(writer_alias_definition_refused)
{
	static const struct { int64_t alias; const char *control; } bad[] = {
		{ -3, "%d" }, { 6, "" }, { 6, "%n" }, { 6, "%q" }, { 6, "no conversion" }
	};
	struct picl_record rec;
	struct picl_value v[2];
	struct picl_writer *w;
	const char *out;
	size_t k;
	int fd;

	w = temp_writer(&fd);
	picl_record_init(&rec);
	rec.type = PICL_REC_DESCRIPTOR;
	rec.event = rec.processor = rec.process = -1;
	rec.nfields = 1;
	rec.has_descriptor = 1;
	rec.alias = -1;
	rec.control = "%d%s";
	rec.control_len = 4;
	memset(v, 0, sizeof(v));
	v[0].kind = PICL_VAL_INT;
	v[1].kind = PICL_VAL_STRING;
	rec.values = v;
	rec.nvalues = 2;
	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		v[0].v.i = bad[k].alias;
		v[1].v.s.ptr = bad[k].control;
		v[1].v.s.len = strlen(bad[k].control);
		ck_assert_msg(picl_writer_write(w, &rec) == PICL_ERR_UNREPRESENTABLE,
			      "alias %lld \"%s\" written", (long long)bad[k].alias, bad[k].control);
	}
	/* The second value is the control string: an integer there is not
	 * read as a string's pointer and length. */
	v[0].v.i = 6;
	v[1].kind = PICL_VAL_INT;
	v[1].v.i = 0x1234;
	v[1].v.s.len = 99;
	ck_assert_int_eq(picl_writer_write(w, &rec), PICL_ERR_UNREPRESENTABLE);
	ck_assert_msg(strstr(picl_writer_error(w)->problem, "string") != NULL, "%s",
		      picl_writer_error(w)->problem);
	v[1].kind = PICL_VAL_STRING;
	v[0].v.i = 0;
	v[1].v.s.ptr = "%d %lf";
	v[1].v.s.len = 6;
	ck_assert_int_eq(picl_writer_write(w, &rec), PICL_OK);
	out = written(w, fd);
	ck_assert_str_eq(out, "-6 -1 0 -1 -1 1 \"%d%s\" 0 \"%d %lf\"\n");
}
END_TEST

/* Nor a subset definition a reader would refuse (DESIGN.md point 7). */
START_TEST(writer_subset_definition_refused)
{
	struct picl_descriptor *d = NULL, *dl = NULL;
	struct picl_record rec;
	struct picl_value v[3];
	struct picl_writer *w;
	int fd;

	ck_assert_int_eq(picl_descriptor_compile("%d", 2, &d, NULL), PICL_OK);
	ck_assert_int_eq(picl_descriptor_compile("%lf", 3, &dl, NULL), PICL_OK);
	w = temp_writer(&fd);
	picl_record_init(&rec);
	rec.type = PICL_REC_SUBSET_EVENTS;
	rec.event = rec.processor = rec.process = -1;
	rec.nfields = 3;
	rec.has_descriptor = 1;
	rec.alias = 2;
	rec.desc = d;
	memset(v, 0, sizeof(v));
	v[0].kind = v[1].kind = v[2].kind = PICL_VAL_INT;
	v[0].v.i = 5;     /* an id of 0 or more */
	v[1].v.i = 10;
	v[2].v.i = 11;
	rec.values = v;
	rec.nvalues = 3;
	ck_assert_int_eq(picl_writer_write(w, &rec), PICL_ERR_UNREPRESENTABLE);
	v[0].v.i = -1;
	ck_assert_int_eq(picl_writer_write(w, &rec), PICL_ERR_UNREPRESENTABLE);
	v[0].v.i = -5;
	v[2].v.i = INT64_C(1) << 40;
	rec.type = PICL_REC_SUBSET_PROCESSORS;
	ck_assert_int_eq(picl_writer_write(w, &rec), PICL_ERR_UNREPRESENTABLE);
	v[2].v.i = 11;
	ck_assert_int_eq(picl_writer_write(w, &rec), PICL_OK);
	rec.type = PICL_REC_SUBSET_PROCESSES;
	rec.alias = 5;
	rec.desc = dl;
	v[0].kind = v[1].kind = v[2].kind = PICL_VAL_DOUBLE;
	v[0].v.d = -5;
	v[1].v.d = 1;
	v[2].v.d = 2;
	ck_assert_int_eq(picl_writer_write(w, &rec), PICL_ERR_UNREPRESENTABLE);
	ck_assert_str_eq(written(w, fd), "-201 -1 0 -1 -1 3 2 -5 10 11\n");
	picl_descriptor_free(d);
	picl_descriptor_free(dl);
}
END_TEST

/* The first bytes, read to look for the zstd magic, are handed out as
 * they came whatever the first read gave: three bytes came out rotated
 * ("1 2" as " 21"), and a first read of one to three bytes was not
 * looked at for the magic (it was compared with copies of itself). */
START_TEST(short_first_read)
{
	static const char text[] = "-3 1 0.5 0 0 1 2 7\n";
	struct picl_reader *r;
	struct picl_record rec;
	char z[256];
	size_t zn;
	pid_t pid;
	int p[2], status, split;

	/* three bytes in all: a record that ends before its timestamp */
	r = picl_reader_open_memory("1 2", 3, "three", NULL, NULL, NULL);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_ERR_SYNTAX);
	ck_assert_uint_eq(picl_reader_error(r)->mark.column, 4);
	ck_assert_ptr_nonnull(strstr(picl_reader_error(r)->problem, "timestamp"));
	picl_reader_free(r);

	/* a zstd stream through a pipe whose writer sends its first bytes
	 * alone (a first read of 1, 2 and 3 bytes) */
	zn = ZSTD_compress(z, sizeof(z), text, sizeof(text) - 1, 3);
	ck_assert(!ZSTD_isError(zn));
	for (split = 1; split <= 3; split++) {
		ck_assert_int_eq(pipe(p), 0);
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			close(p[0]);
			if (write(p[1], z, (size_t)split) != split)
				_exit(1);
			usleep(200000);
			if (write(p[1], z + split, zn - (size_t)split) != (ssize_t)(zn - (size_t)split))
				_exit(1);
			_exit(0);
		}
		ck_assert_int_eq(close(p[1]), 0);
		r = picl_reader_open_fd(p[0], "pipe", NULL, NULL, NULL);
		ck_assert_ptr_nonnull(r);
		ck_assert_int_eq(picl_reader_is_compressed(r), 1);
		ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
		ck_assert_uint_eq(rec.line_len, sizeof(text) - 2);
		ck_assert(memcmp(rec.line, text, rec.line_len) == 0);
		ck_assert_int_eq(picl_reader_next(r, &rec), PICL_END);
		picl_reader_free(r);
		ck_assert_int_eq(close(p[0]), 0);
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
}
END_TEST

/* An empty buffer may be NULL (memcpy was given the NULL pointer, which
 * it must not be even for 0 bytes: UBSan stops there). */
START_TEST(memory_null_empty)
{
	struct picl_reader *r;
	struct picl_record rec;
	int st = 1;

	r = picl_reader_open_memory(NULL, 0, NULL, NULL, &st, NULL);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(st, PICL_OK);
	ck_assert_str_eq(picl_reader_path(r), "<memory>");
	ck_assert_int_eq(picl_reader_is_compressed(r), 0);
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_END);
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_END);
	ck_assert_uint_eq(picl_reader_offset(r), 0);
	picl_reader_free(r);
}
END_TEST

/* NULL is the empty input only: with a length it was read (a crash in
 * the detection of compression); now refused, as a misuse. */
START_TEST(memory_null_with_length)
{
	struct picl_error err;
	int st = 1;

	memset(&err, 0, sizeof(err));
	ck_assert_ptr_null(picl_reader_open_memory(NULL, 5, "m", NULL, &st, &err));
	ck_assert_int_eq(st, PICL_ERR_USAGE);
	ck_assert_int_eq(err.code, PICL_ERR_USAGE);
	ck_assert_str_eq(err.path, "m");
	ck_assert_ptr_null(picl_reader_open_memory(NULL, 1, NULL, NULL, NULL, NULL));
}
END_TEST

/* Options whose buffer cannot exist are refused at open: the sum of
 * buffer_size and max_record wrapped around, and the reader then looped
 * for ever on the first line longer than the small buffer it got (a
 * max_record of SIZE_MAX, for "no limit", did that). */
START_TEST(open_huge_options)
{
	static char line[5000];
	struct picl_reader_options o = { 0 };
	struct picl_error err = { 0 };
	int k, st;

	memset(line, ' ', sizeof(line));
	memcpy(line, "-3 1 0.5 0 0 0", 14);
	line[sizeof(line) - 1] = '\n';
	for (k = 0; k < 3; k++) {
		o.max_record = k == 1 ? 100 : SIZE_MAX - (k == 2 ? 16 : 0);
		o.buffer_size = k == 1 ? SIZE_MAX : 100;
		st = 0;
		ck_assert_ptr_null(picl_reader_open_memory(line, sizeof(line), "m", &o, &st, &err));
		ck_assert_int_eq(st, PICL_ERR_NOMEM);
		ck_assert_int_eq(err.code, PICL_ERR_NOMEM);
		ck_assert_str_eq(err.path, "m");
	}
}
END_TEST

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* Running out of memory for a record's values ends the reading, as
 * picl_reader_error_is_fatal says: it was reported as one bad record, and
 * the next call went on. The address space is limited (in this test's own
 * process) to what is mapped and 2 MB; the record's 400,000 values need
 * about 10 MB. Not under AddressSanitizer, whose shadow memory takes
 * terabytes of address space. */
START_TEST(decode_nomem_is_fatal)
{
#ifdef UNDER_ASAN
	printf("decode_nomem_is_fatal: skipped under AddressSanitizer\n");
#else
	static const char head[] = "1 7 0 0 0 400000 \"%d\"", tail[] = "\n1 7 0 0 0 1 \"%d\" 5\n";
	size_t n = 400000, len = 0, i;
	char *buf = malloc(sizeof(head) + 2 * n + sizeof(tail));
	struct picl_reader *r;
	struct picl_record rec;
	struct rlimit rl;
	unsigned long pages = 0;
	FILE *fp;
	int st;

	ck_assert_ptr_nonnull(buf);
	memcpy(buf, head, sizeof(head) - 1);
	len = sizeof(head) - 1;
	for (i = 0; i < n; i++, len += 2)
		memcpy(buf + len, " 1", 2);
	memcpy(buf + len, tail, sizeof(tail) - 1);
	len += sizeof(tail) - 1;
	r = picl_reader_open_memory(buf, len, "m", NULL, &st, NULL);
	ck_assert_ptr_nonnull(r);
	fp = fopen("/proc/self/statm", "r");
	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(fscanf(fp, "%lu", &pages), 1);
	fclose(fp);
	ck_assert_int_eq(getrlimit(RLIMIT_AS, &rl), 0);
	rl.rlim_cur = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + (2u << 20);
	ck_assert_int_eq(setrlimit(RLIMIT_AS, &rl), 0);

	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_ERR_NOMEM);
	ck_assert_int_eq(picl_reader_error(r)->code, PICL_ERR_NOMEM);
	ck_assert_int_eq(picl_reader_error_is_fatal(r), 1);
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_ERR_NOMEM);

	rl.rlim_cur = rl.rlim_max;
	ck_assert_int_eq(setrlimit(RLIMIT_AS, &rl), 0);
	picl_reader_free(r);
	free(buf);
#endif
}
END_TEST

/* A writer that cannot get its buffer says so with the output's name, as
 * every failing open does (err->path was left as the caller had it). */
START_TEST(writer_open_nomem_names_output)
{
	struct picl_writer_options o = { 0 };
	struct picl_error err;
	int st = 0;

	memset(&err, 0, sizeof(err));
	err.path = "stale";
	err.mark.line = 7;
	o.buffer_size = SIZE_MAX;
	ck_assert_ptr_null(picl_writer_open_fd(1, "w-name", &o, &st, &err));
	ck_assert_int_eq(st, PICL_ERR_NOMEM);
	ck_assert_int_eq(err.code, PICL_ERR_NOMEM);
	ck_assert_str_eq(err.path, "w-name");
	ck_assert_uint_eq(err.mark.line, 0);
}
END_TEST

/* picl_defs_apply's err->mark.column is the column of the byte at fault,
 * or 0: never what the caller's err held before (it stayed for the errors
 * that point at no value: no subset id, not an alias definition's values). */
START_TEST(defs_apply_error_column)
{
	struct picl_defs *d = picl_defs_new();
	struct picl_value v[2];
	struct picl_record rec;
	struct picl_error err;

	ck_assert_ptr_nonnull(d);
	picl_record_init(&rec);
	rec.type = PICL_REC_SUBSET_PROCESSORS;
	rec.event = -1;
	rec.processor = -1;
	rec.process = -1;
	memset(&err, 0, sizeof(err));
	err.mark.column = 99;
	ck_assert_int_eq(picl_defs_apply(d, &rec, &err), PICL_ERR_DATA);
	ck_assert_uint_eq(err.mark.column, 0);

	memset(v, 0, sizeof(v));
	v[0].kind = PICL_VAL_INT;
	v[0].v.i = 6;
	v[1].kind = PICL_VAL_INT;
	rec.type = PICL_REC_DESCRIPTOR;
	rec.nfields = 1;
	rec.values = v;
	rec.nvalues = 2;
	err.mark.column = 99;
	ck_assert_int_eq(picl_defs_apply(d, &rec, &err), PICL_ERR_DATA);
	ck_assert_uint_eq(err.mark.column, 0);
	picl_defs_free(d);
}
END_TEST

/* A record with no data fields that carries values or data text was
 * written without them, and without a word: the writer now refuses it
 * (PICL_ERR_USAGE, the writer still usable), as it refuses data that
 * nfields does not account for otherwise; blanks alone are no data. A
 * NULL record is refused too (it was dereferenced). */
START_TEST(writer_data_without_fields)
{
	struct picl_value v;
	struct picl_record rec;
	struct picl_writer *w;
	int fd;

	w = temp_writer(&fd);
	memset(&v, 0, sizeof(v));
	v.kind = PICL_VAL_CHARS;
	v.v.s.ptr = "hello";
	v.v.s.len = 5;
	picl_record_init(&rec);
	rec.type = PICL_REC_LABEL;
	rec.event = 7;
	rec.values = &v;
	rec.nvalues = 1;
	ck_assert_int_eq(picl_writer_write(w, &rec), PICL_ERR_USAGE);
	ck_assert_int_eq(picl_writer_error(w)->code, PICL_ERR_USAGE);
	ck_assert_ptr_nonnull(strstr(picl_writer_error(w)->problem, "nfields 0"));

	picl_record_init(&rec);
	rec.type = PICL_REC_LABEL;
	rec.event = 7;
	rec.data = " 0 hello";
	rec.data_len = 8;
	ck_assert_int_eq(picl_writer_write(w, &rec), PICL_ERR_USAGE);

	rec.data = " \t ";
	rec.data_len = 3;
	ck_assert_int_eq(picl_writer_write(w, &rec), PICL_OK);
	ck_assert_int_eq(picl_writer_write(w, NULL), PICL_ERR_USAGE);
	rec.event = 8;
	rec.data = NULL;
	rec.data_len = 0;
	ck_assert_int_eq(picl_writer_write(w, &rec), PICL_OK);
	ck_assert_str_eq(written(w, fd), "-5 7 0 0 0 0\n-5 8 0 0 0 0\n");
}
END_TEST

/* A control string that does not compile gives *out NULL, as
 * picl_descriptor_compile does: it was left as the caller had it, so a
 * program reusing its variable took the previous record's descriptor for
 * this one's. */
START_TEST(defs_control_failure_clears_out)
{
	struct picl_defs *d = picl_defs_new();
	const struct picl_descriptor *out = NULL;
	struct picl_error err;

	ck_assert_ptr_nonnull(d);
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(picl_defs_control(d, "%d%lf", 5, &out, &err), PICL_OK);
	ck_assert_ptr_nonnull(out);
	ck_assert_str_eq(picl_descriptor_control(out), "%d%lf");
	ck_assert_int_eq(picl_defs_control(d, "%q", 2, &out, &err), PICL_ERR_DESCRIPTOR);
	ck_assert_ptr_null(out);
	ck_assert_uint_eq(err.mark.column, 2);
	picl_defs_free(d);
}
END_TEST

/* What the header says of a value's text: copied when it still reads back
 * as the value ("05" for 5), otherwise the value is formatted (a program
 * that changed v.i without clearing text gets its new number, not the
 * old text). */
START_TEST(encode_text_only_when_it_holds)
{
	struct picl_descriptor *d;
	struct picl_value v;
	char *buf = NULL;
	size_t len = 0, cap = 0;

	ck_assert_int_eq(picl_descriptor_compile("%d", 2, &d, NULL), PICL_OK);
	memset(&v, 0, sizeof(v));
	v.kind = PICL_VAL_INT;
	v.v.i = 5;
	v.text = "05";
	v.text_len = 2;
	ck_assert_int_eq(picl_descriptor_encode(d, &v, 1, &buf, &len, &cap, NULL), PICL_OK);
	ck_assert_uint_eq(len, 3);
	ck_assert_int_eq(memcmp(buf, " 05", 3), 0);
	len = 0;
	v.text = "7";
	v.text_len = 1;
	ck_assert_int_eq(picl_descriptor_encode(d, &v, 1, &buf, &len, &cap, NULL), PICL_OK);
	ck_assert_uint_eq(len, 2);
	ck_assert_int_eq(memcmp(buf, " 5", 2), 0);
	free(buf);
	picl_descriptor_free(d);
}
END_TEST

/* picl_reader_decode resolves the alias only when rec->desc is NULL; a
 * record whose desc is set is decoded with it (as the header now says). */
START_TEST(reader_decode_uses_desc)
{
	static const char text[] = "-3 -21 0 0 0 1 2 7\n";
	struct picl_reader_options o = { PICL_READ_RAW, 0, 0 };
	struct picl_descriptor *s;
	struct picl_reader *r;
	struct picl_record rec;
	int st;

	ck_assert_int_eq(picl_descriptor_compile("%s", 2, &s, NULL), PICL_OK);
	r = picl_reader_open_memory(text, sizeof(text) - 1, NULL, &o, &st, NULL);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
	ck_assert_ptr_null(rec.desc);
	rec.desc = s;
	ck_assert_int_eq(picl_reader_decode(r, &rec), PICL_OK);
	ck_assert_uint_eq(rec.nvalues, 1);
	ck_assert_int_eq(rec.values[0].kind, PICL_VAL_STRING);
	rec.desc = NULL;
	ck_assert_int_eq(picl_reader_decode(r, &rec), PICL_OK);
	ck_assert_ptr_nonnull(rec.desc);
	ck_assert_str_eq(picl_descriptor_control(rec.desc), "%d");
	ck_assert_int_eq(rec.values[0].kind, PICL_VAL_INT);
	ck_assert_int_eq(rec.values[0].v.i, 7);
	picl_reader_free(r);
	picl_descriptor_free(s);
}
END_TEST

/* Values are encoded with rec->desc and written under rec->control: a
 * record whose two disagree was written as a line that reads back as
 * something else ("%s" then 42, a string). Now refused when the record
 * has a control string (an alias's meaning is the trace's, unknown to
 * the writer). */
START_TEST(writer_control_not_desc)
{
	struct picl_descriptor *d;
	struct picl_value v;
	struct picl_record rec;
	struct picl_writer *w;
	int fd;

	ck_assert_int_eq(picl_descriptor_compile("%d", 2, &d, NULL), PICL_OK);
	w = temp_writer(&fd);
	memset(&v, 0, sizeof(v));
	v.kind = PICL_VAL_INT;
	v.v.i = 42;
	picl_record_init(&rec);
	rec.type = PICL_REC_MARK;
	rec.event = 7;
	rec.nfields = 1;
	rec.has_descriptor = 1;
	rec.alias = -1;
	rec.control = "%s";
	rec.control_len = 2;
	rec.desc = d;
	rec.values = &v;
	rec.nvalues = 1;
	ck_assert_int_eq(picl_writer_write(w, &rec), PICL_ERR_USAGE);
	ck_assert_ptr_nonnull(strstr(picl_writer_error(w)->problem, "control string"));
	rec.control = "%d%d";
	rec.control_len = 2;    /* the first two bytes: "%d" */
	ck_assert_int_eq(picl_writer_write(w, &rec), PICL_OK);
	rec.control_len = 4;
	ck_assert_int_eq(picl_writer_write(w, &rec), PICL_ERR_USAGE);
	rec.alias = 2;
	ck_assert_int_eq(picl_writer_write(w, &rec), PICL_OK);
	ck_assert_str_eq(written(w, fd), "-2 7 0 0 0 1 \"%d\" 42\n-2 7 0 0 0 1 2 42\n");
	picl_descriptor_free(d);
}
END_TEST

/* A cleanup path that closes whatever the open returned: a failed open's
 * NULL, given to picl_writer_close or picl_output_commit, was dereferenced
 * (a crash, where picl_writer_abort and the *_free calls take NULL); it is
 * a usage error now, with an error that formats whatever err held. */
START_TEST(close_null_handles)
{
	struct picl_error err;
	char buf[256];

	memset(&err, 0x5a, sizeof(err));
	ck_assert_int_eq(picl_writer_close(NULL, &err), PICL_ERR_USAGE);
	ck_assert_int_eq(err.code, PICL_ERR_USAGE);
	ck_assert_str_eq(picl_error_format(&err, buf, sizeof(buf)),
			 "<output>: no writer to close (NULL)");
	ck_assert_int_eq(picl_writer_close(NULL, NULL), PICL_ERR_USAGE);
	memset(&err, 0x5a, sizeof(err));
	ck_assert_int_eq(picl_output_commit(NULL, &err), PICL_ERR_USAGE);
	ck_assert_int_eq(err.code, PICL_ERR_USAGE);
	ck_assert_str_eq(picl_error_format(&err, buf, sizeof(buf)),
			 "<output>: no output to commit (NULL)");
	ck_assert_int_eq(picl_output_commit(NULL, NULL), PICL_ERR_USAGE);
	picl_reader_free(NULL);
	picl_writer_abort(NULL);
	picl_output_abort(NULL);
}
END_TEST

/* What the header says of calls whose comments once left it out: a kind
 * past the values of an application is 0; the reader's error stays until
 * another replaces it; the statistics take a volume from decoded values
 * only, and leave err->path to the caller (mark: the record's). */
START_TEST(documented_edges)
{
	static const char text[] = "-2 1 0 0 0 0\n-2 x 0 0 0 0\n"
				   "-3 -21 1.0 0 0 3 2 8 5 1\n-4 -21 2.0 0 0 0\n"
				   "-4 7 3.0 0 0 0\n-3 -901 4 0 0 0\n-4 -901 5 0 0 0\n";
	struct picl_reader_options o;
	struct picl_descriptor *d;
	struct picl_error err;
	struct picl_record rec;
	struct picl_reader *r;
	struct picl_stats *raw, *dec;
	double t;
	int64_t c, v;
	int st, rc, pass;

	ck_assert_int_eq(picl_descriptor_compile("%d%lf", 5, &d, NULL), PICL_OK);
	ck_assert_int_eq(picl_descriptor_value_kind(d, 1), PICL_VAL_DOUBLE);
	ck_assert_int_eq(picl_descriptor_value_kind(d, 2), 0);
	picl_descriptor_free(d);

	raw = picl_stats_new();
	dec = picl_stats_new();
	ck_assert_ptr_nonnull(raw);
	ck_assert_ptr_nonnull(dec);
	memset(&o, 0, sizeof(o));
	o.flags = PICL_READ_RAW;
	r = picl_reader_open_memory(text, sizeof(text) - 1, "m", &o, &st, NULL);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(picl_reader_error(r)->code, 0);
	for (pass = 0; (rc = picl_reader_next(r, &rec)) != PICL_END; pass++) {
		if (pass == 1) {
			ck_assert_int_eq(rc, PICL_ERR_SYNTAX);
			continue;
		}
		ck_assert_int_eq(rc, PICL_OK);
		if (pass > 1) /* kept after later records */
			ck_assert_int_eq(picl_reader_error(r)->code, PICL_ERR_SYNTAX);
		memset(&err, 0, sizeof(err));
		err.path = "mine";
		rc = picl_stats_add(raw, &rec, &err);
		if (rec.type == PICL_REC_EXIT && rec.event == 7) {
			ck_assert_int_eq(rc, PICL_ERR_DATA);
			ck_assert_str_eq(err.path, "mine");
			ck_assert_uint_eq(err.mark.line, rec.mark.line);
			ck_assert_uint_eq(err.mark.column, rec.mark.column);
			continue;
		}
		ck_assert_int_eq(rc, PICL_OK);
		if (rec.nfields > 0)
			ck_assert_int_eq(picl_reader_decode(r, &rec), PICL_OK);
		ck_assert_int_eq(picl_stats_add(dec, &rec, NULL), PICL_OK);
	}
	ck_assert_int_eq(picl_reader_error(r)->code, PICL_ERR_SYNTAX);
	ck_assert_int_eq(picl_stats_get(raw, 0, 0, -1, -21, &t, &c, &v), 1);
	ck_assert_int_eq(c, 1);
	ck_assert_int_eq(v, -1);
	ck_assert_int_eq(picl_stats_get(dec, 0, 0, -1, -21, &t, &c, &v), 1);
	ck_assert_int_eq(v, 8);
	/* -901's volume (trace bytes) is in no record: undefined here */
	ck_assert_int_eq(picl_stats_get(dec, 0, 0, -1, -901, &t, &c, &v), 1);
	ck_assert_int_eq(c, 1);
	ck_assert_int_eq(v, -1);
	picl_stats_free(raw);
	picl_stats_free(dec);
	picl_reader_free(r);
}
END_TEST

/* The writer checks values against the descriptor and nfields, and
 * writes data text as it is (the header says so: it has no definitions
 * to check an alias with); picl_stats_record_pairs refuses what is not a
 * decoded statistics record. */
START_TEST(writer_checks_values_not_text)
{
	struct picl_descriptor *d;
	struct picl_record rec;
	struct picl_value v[2];
	struct picl_stat_pair pair;
	struct picl_writer *w;
	int fd;

	ck_assert_int_eq(picl_descriptor_compile("%d", 2, &d, NULL), PICL_OK);
	w = temp_writer(&fd);
	picl_record_init(&rec);
	rec.type = PICL_REC_MARK;
	rec.event = 5;
	rec.nfields = 3;
	rec.has_descriptor = 1;
	rec.alias = 2;
	rec.desc = d;
	memset(v, 0, sizeof(v));
	v[0].kind = v[1].kind = PICL_VAL_INT;
	rec.values = v;
	rec.nvalues = 2;
	ck_assert_int_lt(picl_writer_write(w, &rec), 0);
	rec.values = NULL;
	rec.nvalues = 0;
	rec.data = " 1 2";
	rec.data_len = 4;
	ck_assert_int_eq(picl_writer_write(w, &rec), PICL_OK);
	ck_assert_str_eq(written(w, fd), "-2 5 0 0 0 3 2 1 2\n");
	picl_descriptor_free(d);

	ck_assert_int_eq(picl_stats_record_pairs(NULL, &pair, 1), PICL_ERR_USAGE);
	ck_assert_int_eq(picl_stats_record_pairs(&rec, NULL, 1), PICL_ERR_USAGE);
	ck_assert_int_eq(picl_stats_record_pairs(&rec, &pair, 1), PICL_ERR_DATA);
	rec.type = PICL_REC_STAT_COUNT;
	ck_assert_int_eq(picl_stats_record_pairs(&rec, &pair, 1), PICL_ERR_DATA);
}
END_TEST

/*
 * The NULL rule of picl-trace.h's conventions, function by function: a
 * NULL handle or required pointer is PICL_ERR_USAGE for a call that
 * returns a status (with the error set where the call has one), NULL or
 * 0 for a getter, nothing for a void call; never a crash, and never
 * success. The usual way to get one: the NULL of a failed open, used on.
 *
 * null_handles runs one probe per call, each in its own process (a loop
 * test), so that every call that crashes is reported, by its index in
 * probes[] and the line of its probe; the tests after it give NULL
 * arguments to real objects and check the errors' texts.
 */
static const char *formatted(const struct picl_error *err)
{
	static char buf[PICL_PROBLEM_MAX + 64];

	return picl_error_format(err, buf, sizeof(buf));
}

/* A caller's err as the defs, descriptor and stats calls take it: the
 * path is the caller's, set before the call. */
static void mine(struct picl_error *err)
{
	memset(err, 0, sizeof(*err));
	err->path = "mine";
}

static int count_emit(void *ctx, const struct picl_record *rec)
{
	(void)rec;
	++*(int *)ctx;
	return 0;
}

static int count_match(void *ctx, enum picl_match_kind kind, const struct picl_message *msg)
{
	(void)kind, (void)msg;
	++*(int *)ctx;
	return 0;
}

/* What the probes share: a record, an error, a place for a mark... */
static struct picl_record p_rec;
static struct picl_error p_err;
static struct picl_stats_event p_ev;
static struct picl_mark p_at;
static const int32_t p_members[] = { 1, 2 };

#define PROBE(name, ...) \
	static void probe_##name(void) \
	{ \
		mark_point(); \
		picl_record_init(&p_rec); \
		mine(&p_err); \
		__VA_ARGS__; \
	}

/* the status calls: PICL_ERR_USAGE, and the caller's err where there is one */
#define USAGE(call) ck_assert_int_eq((call), PICL_ERR_USAGE)
#define USAGE_ERR(call, text) \
	do { \
		ck_assert_int_eq((call), PICL_ERR_USAGE); \
		ck_assert_int_eq(p_err.code, PICL_ERR_USAGE); \
		ck_assert_str_eq(formatted(&p_err), text); \
	} while (0)

PROBE(reader_next, USAGE(picl_reader_next(NULL, &p_rec)); USAGE(picl_reader_next(NULL, NULL)))
PROBE(reader_decode, USAGE(picl_reader_decode(NULL, &p_rec)))
PROBE(reader_error,
      const struct picl_error *e = picl_reader_error(NULL);
      ck_assert_ptr_nonnull(e);
      ck_assert_int_eq(e->code, PICL_ERR_USAGE);
      ck_assert_str_eq(formatted(e), "<input>: no reader (NULL)"))
/* 1: every later call fails the same, so a loop that stops on a fatal
 * error stops */
PROBE(reader_error_is_fatal, ck_assert_int_eq(picl_reader_error_is_fatal(NULL), 1))
PROBE(reader_defs, ck_assert_ptr_null(picl_reader_defs(NULL)))
PROBE(reader_path, ck_assert_ptr_null(picl_reader_path(NULL)))
PROBE(reader_is_compressed, ck_assert_int_eq(picl_reader_is_compressed(NULL), 0))
PROBE(reader_offset, ck_assert_uint_eq(picl_reader_offset(NULL), 0))
PROBE(reader_locate,
      p_rec.line = "-2 1 0 0 0 0";
      p_rec.line_len = 12;
      p_rec.mark.line = 3;
      memset(&p_at, 0x5a, sizeof(p_at));
      picl_reader_locate(NULL, &p_rec, p_rec.line + 1, &p_at);
      ck_assert_uint_eq(p_at.line, 0);
      ck_assert_uint_eq(p_at.column, 0);
      ck_assert_uint_eq(p_at.offset, 0);
      picl_reader_locate(NULL, NULL, NULL, NULL))
PROBE(reader_free, picl_reader_free(NULL))
PROBE(reader_open,
      int st = 0;
      memset(&p_err, 0x5a, sizeof(p_err));
      ck_assert_ptr_null(picl_reader_open(NULL, NULL, &st, &p_err));
      ck_assert_int_eq(st, PICL_ERR_USAGE);
      USAGE_ERR(st, "<input>: no path to open (NULL)");
      ck_assert_ptr_null(picl_reader_open(NULL, NULL, NULL, NULL)))
/* (the other open calls' pointers are optional: NULL is a default) */
PROBE(reader_open_memory,
      int st = 0;
      ck_assert_ptr_null(picl_reader_open_memory(NULL, 5, NULL, NULL, &st, NULL));
      ck_assert_int_eq(st, PICL_ERR_USAGE))
PROBE(writer_write, USAGE(picl_writer_write(NULL, &p_rec)); USAGE(picl_writer_write(NULL, NULL)))
PROBE(writer_write_raw, USAGE(picl_writer_write_raw(NULL, "x\n", 2)))
PROBE(writer_error,
      const struct picl_error *e = picl_writer_error(NULL);
      ck_assert_ptr_nonnull(e);
      ck_assert_int_eq(e->code, PICL_ERR_USAGE);
      ck_assert_str_eq(formatted(e), "<output>: no writer (NULL)"))
PROBE(writer_temp_path, ck_assert_ptr_null(picl_writer_temp_path(NULL)))
PROBE(writer_offset, ck_assert_uint_eq(picl_writer_offset(NULL), 0))
PROBE(writer_close,
      USAGE_ERR(picl_writer_close(NULL, &p_err), "<output>: no writer to close (NULL)");
      USAGE(picl_writer_close(NULL, NULL)))
PROBE(writer_abort, picl_writer_abort(NULL))
PROBE(writer_open,
      int st = 0;
      memset(&p_err, 0x5a, sizeof(p_err));
      ck_assert_ptr_null(picl_writer_open(NULL, NULL, &st, &p_err));
      ck_assert_int_eq(st, PICL_ERR_USAGE);
      USAGE_ERR(st, "<output>: no path to open (NULL)"))
PROBE(output_open,
      int st = 0;
      memset(&p_err, 0x5a, sizeof(p_err));
      ck_assert_ptr_null(picl_output_open(NULL, 0, &st, &p_err));
      ck_assert_int_eq(st, PICL_ERR_USAGE);
      USAGE_ERR(st, "<output>: no path to open (NULL)"))
/* -1: 0 would be standard input */
PROBE(output_fd, ck_assert_int_eq(picl_output_fd(NULL), -1))
PROBE(output_temp_path, ck_assert_ptr_null(picl_output_temp_path(NULL)))
PROBE(output_commit,
      USAGE_ERR(picl_output_commit(NULL, &p_err), "<output>: no output to commit (NULL)");
      USAGE(picl_output_commit(NULL, NULL)))
PROBE(output_abort, picl_output_abort(NULL))
PROBE(defs_apply,
      p_rec.type = PICL_REC_MARK;   /* not a definition: was success */
      USAGE_ERR(picl_defs_apply(NULL, &p_rec, &p_err), "mine: no definitions (NULL)");
      p_rec.type = PICL_REC_DESCRIPTOR;
      USAGE(picl_defs_apply(NULL, &p_rec, NULL));
      USAGE(picl_defs_apply(NULL, NULL, NULL)))
PROBE(defs_define_alias,
      USAGE_ERR(picl_defs_define_alias(NULL, 7, -1, -1, -1, "%d", 2, &p_err),
		"mine: no definitions (NULL)"))
PROBE(defs_lookup_alias, ck_assert_ptr_null(picl_defs_lookup_alias(NULL, 2, -1, 0, 0)))
PROBE(defs_control,
      const struct picl_descriptor *out = (const struct picl_descriptor *)&p_err;
      USAGE_ERR(picl_defs_control(NULL, "%d", 2, &out, &p_err), "mine: no definitions (NULL)");
      ck_assert_ptr_null(out))
PROBE(defs_define_subset,
      USAGE(picl_defs_define_subset(NULL, PICL_SUBSET_PROCESSORS, -5, p_members, 2)))
PROBE(defs_define_subset_on,
      USAGE(picl_defs_define_subset_on(NULL, PICL_SUBSET_PROCESSES, 0, -5, p_members, 2)))
PROBE(defs_subset_exists,
      ck_assert_int_eq(picl_defs_subset_exists(NULL, PICL_SUBSET_EVENTS, -1001), 0);
      ck_assert_int_eq(picl_defs_subset_exists(NULL, PICL_SUBSET_PROCESSES, -5), 0))
PROBE(defs_subset_exists_on,
      ck_assert_int_eq(picl_defs_subset_exists_on(NULL, PICL_SUBSET_EVENTS, 0, -1001), 0))
/* no definitions match nothing, not even a value itself */
PROBE(defs_matches,
      ck_assert_int_eq(picl_defs_matches(NULL, PICL_SUBSET_EVENTS, -1001, 5), 0);
      ck_assert_int_eq(picl_defs_matches(NULL, PICL_SUBSET_EVENTS, 5, 5), 0))
PROBE(defs_matches_on,
      ck_assert_int_eq(picl_defs_matches_on(NULL, PICL_SUBSET_PROCESSES, 0, -1, 5), 0))
PROBE(defs_subset_members,
      size_t n = 99;
      ck_assert_ptr_null(picl_defs_subset_members(NULL, PICL_SUBSET_PROCESSORS, -5, &n));
      ck_assert_uint_eq(n, 0);
      ck_assert_ptr_null(picl_defs_subset_members(NULL, PICL_SUBSET_PROCESSORS, -5, NULL)))
PROBE(defs_subset_members_on,
      size_t n = 99;
      ck_assert_ptr_null(picl_defs_subset_members_on(NULL, PICL_SUBSET_PROCESSES, 0, -5, &n));
      ck_assert_uint_eq(n, 0))
PROBE(defs_free, picl_defs_free(NULL))
PROBE(descriptor_control, ck_assert_ptr_null(picl_descriptor_control(NULL)))
PROBE(descriptor_values_per_field, ck_assert_uint_eq(picl_descriptor_values_per_field(NULL), 0))
PROBE(descriptor_value_kind, ck_assert_int_eq(picl_descriptor_value_kind(NULL, 0), 0))
PROBE(descriptor_is_chars, ck_assert_int_eq(picl_descriptor_is_chars(NULL), 0))
PROBE(descriptor_has_suppressed, ck_assert_int_eq(picl_descriptor_has_suppressed(NULL), 0))
PROBE(descriptor_decode,
      struct picl_value v[2];
      size_t nv = 0, cap = 2, used = 0;
      USAGE_ERR(picl_descriptor_decode(NULL, 1, " 1", 2, v, &nv, &cap, &used, &p_err),
		"mine: no descriptor (NULL)"))
PROBE(descriptor_encode,
      struct picl_value v[1];
      size_t len = 0, cap = 0;
      char *buf = NULL;
      memset(v, 0, sizeof(v));
      v[0].kind = PICL_VAL_INT;
      USAGE_ERR(picl_descriptor_encode(NULL, v, 1, &buf, &len, &cap, &p_err),
		"mine: no descriptor (NULL)");
      ck_assert_ptr_null(buf))
PROBE(descriptor_compile,
      struct picl_descriptor *d = (struct picl_descriptor *)&p_err;
      USAGE_ERR(picl_descriptor_compile("%d", 2, NULL, &p_err),
		"mine: no place for the descriptor (NULL)");
      mine(&p_err);
      USAGE_ERR(picl_descriptor_compile(NULL, 2, &d, &p_err),
		"mine: no control string (NULL) for 2 bytes");
      ck_assert_ptr_null(d))
PROBE(descriptor_free, picl_descriptor_free(NULL))
PROBE(stats_add,
      p_rec.type = PICL_REC_MARK;
      USAGE_ERR(picl_stats_add(NULL, &p_rec, &p_err), "mine: no statistics (NULL)");
      USAGE(picl_stats_add(NULL, NULL, NULL)))
PROBE(stats_event_of,
      memset(&p_ev, 0x5a, sizeof(p_ev));
      ck_assert_int_eq(picl_stats_event_of(NULL, &p_ev), 0);
      ck_assert_int_eq(p_ev.type, 0x5a5a5a5a);
      p_rec.type = PICL_REC_MARK;
      ck_assert_int_eq(picl_stats_event_of(&p_rec, NULL), 0))
PROBE(stats_add_event,
      p_rec.type = PICL_REC_MARK;
      ck_assert_int_eq(picl_stats_event_of(&p_rec, &p_ev), 1);
      USAGE_ERR(picl_stats_add_event(NULL, &p_ev, &p_err), "mine: no statistics (NULL)"))
PROBE(stats_get,
      double t;
      int64_t c, v;
      ck_assert_int_eq(picl_stats_get(NULL, 0, 0, -1, 0, &t, &c, &v), 0))
PROBE(stats_get_time,
      struct picl_time t;
      ck_assert_int_eq(picl_stats_get_time(NULL, 0, 0, -1, 0, &t), 0))
PROBE(stats_get_intervals,
      int64_t n;
      ck_assert_int_eq(picl_stats_get_intervals(NULL, 0, 0, -1, 0, &n), 0))
PROBE(stats_emit,
      int calls = 0;
      USAGE(picl_stats_emit(NULL, count_emit, &calls));
      ck_assert_int_eq(calls, 0))
PROBE(stats_record_pairs,
      struct picl_stat_pair pair;
      USAGE(picl_stats_record_pairs(NULL, &pair, 1)))
PROBE(stats_free, picl_stats_free(NULL))
/* no callback: a matcher that counts */
PROBE(matcher_new,
      struct picl_matcher *m = picl_matcher_new(NULL, NULL);
      ck_assert_ptr_nonnull(m);
      picl_matcher_free(m))
PROBE(matcher_add, USAGE(picl_matcher_add(NULL, &p_rec)))
PROBE(matcher_add_data, USAGE(picl_matcher_add_data(NULL, &p_rec, "x", 1)))
PROBE(matcher_finish, USAGE(picl_matcher_finish(NULL)))
PROBE(matcher_set_memory, USAGE(picl_matcher_set_memory(NULL, 1 << 20, NULL)))
PROBE(matcher_expect_processors, USAGE(picl_matcher_expect_processors(NULL, p_members, 2)))
PROBE(matcher_set_broadcast_detail, picl_matcher_set_broadcast_detail(NULL, 0))
PROBE(matcher_set_defs, picl_matcher_set_defs(NULL, NULL))
PROBE(matcher_in_header, ck_assert_int_eq(picl_matcher_in_header(NULL), 0))
/* -1: none declared */
PROBE(matcher_declared, ck_assert_int_eq(picl_matcher_declared(NULL, 0), -1))
PROBE(matcher_matched, ck_assert_uint_eq(picl_matcher_matched(NULL), 0))
PROBE(matcher_pending, ck_assert_uint_eq(picl_matcher_pending(NULL), 0))
PROBE(matcher_send_data, ck_assert_ptr_null(picl_matcher_send_data(NULL)))
PROBE(matcher_strerror, ck_assert_str_eq(picl_matcher_strerror(NULL), "no matcher (NULL)"))
PROBE(matcher_free, picl_matcher_free(NULL))
PROBE(schema_load,
      memset(&p_err, 0x5a, sizeof(p_err));
      ck_assert_ptr_null(picl_schema_load(NULL, &p_err));
      USAGE_ERR(PICL_ERR_USAGE, "<schema>: no path to open (NULL)"))
PROBE(schema_extend,
      memset(&p_err, 0x5a, sizeof(p_err));
      USAGE_ERR(picl_schema_extend(NULL, "x.yaml", &p_err), "x.yaml: no schema (NULL)");
      USAGE(picl_schema_extend(NULL, NULL, NULL)))
PROBE(schema_load_default, picl_schema_free(picl_schema_load_default(NULL)))
PROBE(schema_event, ck_assert_ptr_null(picl_schema_event(NULL, -21)))
PROBE(schema_record, ck_assert_ptr_null(picl_schema_record(NULL, -3)))
PROBE(schema_free, picl_schema_free(NULL))
PROBE(error_format,
      char buf[64];
      memset(buf, 'x', sizeof(buf));
      ck_assert_ptr_eq(picl_error_format(NULL, buf, sizeof(buf)), buf);
      ck_assert_str_eq(buf, "no error (NULL)");
      ck_assert_ptr_eq(picl_error_format(NULL, buf, 3), buf);
      ck_assert_str_eq(buf, "no");
      ck_assert_ptr_null(picl_error_format(NULL, NULL, 10));
      ck_assert_ptr_null(picl_error_format(&p_err, NULL, 10)))
PROBE(record_init, picl_record_init(NULL))
PROBE(time_parse,
      struct picl_time t;
      size_t bad = 99;
      USAGE(picl_time_parse(NULL, 3, &t, &bad));
      ck_assert_uint_eq(bad, 99);
      USAGE(picl_time_parse("1.5", 3, NULL, &bad)))
PROBE(time_format,
      struct picl_time t = { 15, 1 };
      ck_assert_uint_eq(picl_time_format(t, NULL), 0))
PROBE(time_sub,
      struct picl_time t = { 15, 1 };
      USAGE(picl_time_sub(t, t, NULL)))
PROBE(time_rescale,
      struct picl_time t = { 15, 1 };
      USAGE(picl_time_rescale(t, 2, NULL)))

static const struct {
	const char *name;
	void (*run)(void);
} probes[] = {
#define P(name) { "picl_" #name, probe_##name }
	P(reader_next), P(reader_decode), P(reader_error), P(reader_error_is_fatal),
	P(reader_defs), P(reader_path), P(reader_is_compressed), P(reader_offset),
	P(reader_locate), P(reader_free), P(reader_open), P(reader_open_memory),
	P(writer_write), P(writer_write_raw), P(writer_error), P(writer_temp_path),
	P(writer_offset), P(writer_close), P(writer_abort), P(writer_open),
	P(output_open), P(output_fd), P(output_temp_path), P(output_commit), P(output_abort),
	P(defs_apply), P(defs_define_alias), P(defs_lookup_alias), P(defs_control),
	P(defs_define_subset), P(defs_define_subset_on), P(defs_subset_exists),
	P(defs_subset_exists_on), P(defs_matches), P(defs_matches_on),
	P(defs_subset_members), P(defs_subset_members_on), P(defs_free),
	P(descriptor_control), P(descriptor_values_per_field), P(descriptor_value_kind),
	P(descriptor_is_chars), P(descriptor_has_suppressed), P(descriptor_decode),
	P(descriptor_encode), P(descriptor_compile), P(descriptor_free),
	P(stats_add), P(stats_event_of), P(stats_add_event), P(stats_get), P(stats_get_time),
	P(stats_get_intervals), P(stats_emit), P(stats_record_pairs), P(stats_free),
	P(matcher_new), P(matcher_add), P(matcher_add_data), P(matcher_finish), P(matcher_set_memory),
	P(matcher_expect_processors), P(matcher_set_broadcast_detail), P(matcher_set_defs),
	P(matcher_in_header), P(matcher_declared), P(matcher_matched), P(matcher_pending),
	P(matcher_send_data), P(matcher_strerror), P(matcher_free),
	P(schema_load), P(schema_extend), P(schema_load_default), P(schema_event), P(schema_record), P(schema_free),
	P(error_format), P(record_init), P(time_parse), P(time_format), P(time_sub),
	P(time_rescale),
#undef P
};
#define NPROBES ((int)(sizeof(probes) / sizeof(probes[0])))

START_TEST(null_handles)
{
	probes[_i].run();
}
END_TEST

/* The mistake this is all for: a failed open's NULL, read on, written
 * on. */
START_TEST(null_after_failed_open)
{
	struct picl_record rec;
	struct picl_reader *r;
	struct picl_writer *w;
	int st, n, rc;

	r = picl_reader_open("/nonexistent/picl-test-api.picl", NULL, &st, NULL);
	ck_assert_ptr_null(r);
	ck_assert_int_eq(st, PICL_ERR_IO);
	for (n = 0; (rc = picl_reader_next(r, &rec)) != PICL_END && n < 10; n++) {
		ck_assert_int_lt(rc, 0);
		if (picl_reader_error_is_fatal(r))
			break;
	}
	ck_assert_int_eq(n, 0);
	w = picl_writer_open("/nonexistent/dir/out.picl", NULL, &st, NULL);
	ck_assert_ptr_null(w);
	picl_record_init(&rec);
	ck_assert_int_eq(picl_writer_write(w, &rec), PICL_ERR_USAGE);
	ck_assert_int_eq(picl_writer_close(w, NULL), PICL_ERR_USAGE);
}
END_TEST

/* A reader given no record to read into: an error that is not fatal. */
START_TEST(null_reader_record)
{
	static const char text[] = "-2 1 0 0 0 0\n";
	struct picl_record rec;
	struct picl_reader *r;
	struct picl_mark at;
	int st;

	r = picl_reader_open_memory(text, sizeof(text) - 1, "m", NULL, &st, NULL);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(picl_reader_next(r, NULL), PICL_ERR_USAGE);
	ck_assert_int_eq(picl_reader_error(r)->code, PICL_ERR_USAGE);
	ck_assert_str_eq(formatted(picl_reader_error(r)), "m: no record to read into (NULL)");
	ck_assert_int_eq(picl_reader_error_is_fatal(r), 0);
	ck_assert_int_eq(picl_reader_decode(r, NULL), PICL_ERR_USAGE);
	ck_assert_str_eq(formatted(picl_reader_error(r)), "m: no record to decode (NULL)");
	memset(&at, 0x5a, sizeof(at));
	picl_reader_locate(r, NULL, text, &at);
	ck_assert_uint_eq(at.line, 0);
	ck_assert_uint_eq(at.column, 0);
	ck_assert_uint_eq(at.offset, 0);
	picl_record_init(&rec);
	picl_reader_locate(r, &rec, text, NULL);
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
	ck_assert_int_eq(rec.event, 1);
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_END);
	picl_reader_free(r);
}
END_TEST

START_TEST(null_writer_args)
{
	struct picl_writer *w;
	int fd;

	w = temp_writer(&fd);
	ck_assert_int_eq(picl_writer_write(w, NULL), PICL_ERR_USAGE);
	ck_assert_str_eq(formatted(picl_writer_error(w)), "out: no record to write (NULL)");
	ck_assert_int_eq(picl_writer_write_raw(w, NULL, 2), PICL_ERR_USAGE);
	ck_assert_int_eq(picl_writer_error(w)->code, PICL_ERR_USAGE);
	ck_assert_str_eq(formatted(picl_writer_error(w)), "out: no text to write (NULL)");
	ck_assert_int_eq(picl_writer_write_raw(w, NULL, 0), PICL_OK);
	ck_assert_int_eq(picl_writer_write_raw(w, "-2 1 0 0 0 0\n", 13), PICL_OK);
	ck_assert_str_eq(written(w, fd), "-2 1 0 0 0 0\n");
}
END_TEST

START_TEST(null_defs_args)
{
	const struct picl_descriptor *out;
	struct picl_defs *defs = picl_defs_new();
	struct picl_error err;

	ck_assert_ptr_nonnull(defs);
	mine(&err);
	ck_assert_int_eq(picl_defs_apply(defs, NULL, &err), PICL_ERR_USAGE);
	ck_assert_str_eq(formatted(&err), "mine: no record to apply (NULL)");
	mine(&err);
	ck_assert_int_eq(picl_defs_define_alias(defs, 7, -1, -1, -1, NULL, 2, &err),
			 PICL_ERR_USAGE);
	ck_assert_str_eq(formatted(&err), "mine: no control string (NULL) for 2 bytes");
	ck_assert_ptr_null(picl_defs_lookup_alias(defs, 7, -1, 0, 0));
	out = (const struct picl_descriptor *)&err;
	mine(&err);
	ck_assert_int_eq(picl_defs_control(defs, NULL, 2, &out, &err), PICL_ERR_USAGE);
	ck_assert_ptr_null(out);
	ck_assert_str_eq(formatted(&err), "mine: no control string (NULL) for 2 bytes");
	mine(&err);
	ck_assert_int_eq(picl_defs_control(defs, "%d", 2, NULL, &err), PICL_ERR_USAGE);
	ck_assert_str_eq(formatted(&err), "mine: no place for the descriptor (NULL)");
	ck_assert_int_eq(picl_defs_define_subset(defs, PICL_SUBSET_PROCESSORS, -5, NULL, 2),
			 PICL_ERR_USAGE);
	ck_assert_int_eq(picl_defs_subset_exists(defs, PICL_SUBSET_PROCESSORS, -5), 0);
	ck_assert_int_eq(picl_defs_define_subset(defs, PICL_SUBSET_PROCESSORS, -5, NULL, 0),
			 PICL_OK);   /* an empty subset */
	ck_assert_int_eq(picl_defs_subset_exists(defs, PICL_SUBSET_PROCESSORS, -5), 1);
	picl_defs_free(defs);
}
END_TEST

START_TEST(null_descriptor_args)
{
	struct picl_descriptor *d;
	struct picl_error err;
	size_t nv = 0, cap = 2, used = 0;

	ck_assert_int_eq(picl_descriptor_compile("%d", 2, &d, NULL), PICL_OK);
	mine(&err);
	ck_assert_int_eq(picl_descriptor_decode(d, 1, " 1", 2, NULL, &nv, &cap, &used, &err),
			 PICL_ERR_USAGE);
	ck_assert_int_eq(err.code, PICL_ERR_USAGE);
	cap = 0;   /* NULL values with no capacity: how many are needed */
	ck_assert_int_eq(picl_descriptor_decode(d, 1, " 1", 2, NULL, &nv, &cap, &used, NULL),
			 PICL_ERR_NOMEM);
	ck_assert_uint_eq(cap, 1);
	picl_descriptor_free(d);
}
END_TEST

START_TEST(null_stats_args)
{
	struct picl_stats *s = picl_stats_new();
	struct picl_stats_event ev;
	struct picl_error err;
	struct picl_record rec;
	int calls = 0;

	ck_assert_ptr_nonnull(s);
	picl_record_init(&rec);
	rec.type = PICL_REC_MARK;
	mine(&err);
	ck_assert_int_eq(picl_stats_add(s, NULL, &err), PICL_ERR_USAGE);
	ck_assert_str_eq(formatted(&err), "mine: no record to add (NULL)");
	mine(&err);
	ck_assert_int_eq(picl_stats_add_event(s, NULL, &err), PICL_ERR_USAGE);
	ck_assert_str_eq(formatted(&err), "mine: no event to add (NULL)");
	ck_assert_int_eq(picl_stats_event_of(&rec, &ev), 1);
	ck_assert_int_eq(picl_stats_add_event(s, &ev, NULL), PICL_OK);
	ck_assert_int_eq(picl_stats_get(s, 0, 0, -1, 0, NULL, NULL, NULL), 1);
	ck_assert_int_eq(picl_stats_get_time(s, 0, 0, -1, 0, NULL), 0);
	ck_assert_int_eq(picl_stats_get_intervals(s, 0, 0, -1, 0, NULL), 0);
	ck_assert_int_eq(picl_stats_emit(s, NULL, &calls), PICL_ERR_USAGE);
	ck_assert_int_eq(picl_stats_emit(s, count_emit, &calls), PICL_OK);
	ck_assert_int_gt(calls, 0);
	picl_stats_free(s);
}
END_TEST

START_TEST(null_matcher_args)
{
	struct picl_matcher *m;
	struct picl_record rec;
	int calls = 0;

	m = picl_matcher_new(count_match, &calls);
	ck_assert_ptr_nonnull(m);
	picl_record_init(&rec);
	ck_assert_int_eq(picl_matcher_add(m, NULL), PICL_ERR_USAGE);
	ck_assert_int_eq(picl_matcher_add_data(m, NULL, NULL, 0), PICL_ERR_USAGE);
	ck_assert_int_eq(picl_matcher_add_data(m, &rec, NULL, 4), PICL_ERR_USAGE);
	ck_assert_int_eq(picl_matcher_expect_processors(m, NULL, 2), PICL_ERR_USAGE);
	ck_assert_int_eq(picl_matcher_declared(m, 0), -1);
	ck_assert_int_eq(picl_matcher_expect_processors(m, NULL, 0), PICL_OK);
	ck_assert_int_eq(picl_matcher_declared(m, 0), 0);
	ck_assert_int_eq(picl_matcher_in_header(m), 1);
	ck_assert_int_eq(picl_matcher_add(m, &rec), PICL_OK);
	ck_assert_int_eq(picl_matcher_finish(m), PICL_OK);
	ck_assert_int_eq(calls, 0);
	picl_matcher_free(m);
}
END_TEST

START_TEST(null_time_args)
{
	struct picl_time t = { 15, 1 }, u;

	ck_assert_int_eq(picl_time_rescale(t, 2, &u), PICL_OK);
	ck_assert_int_eq(u.mant, 150);
	ck_assert_int_eq(picl_time_parse(NULL, 0, &u, NULL), PICL_ERR_SYNTAX);  /* empty */
}
END_TEST

int main(void)
{
	Suite *s = suite_create("api");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, open_unreadable_closes_once);
	tcase_add_test(tc, open_fd_null_name);
	tcase_add_test(tc, writer_alias_definition_values);
	tcase_add_test(tc, writer_alias_definition_refused);
	tcase_add_test(tc, writer_subset_definition_refused);
	tcase_add_test(tc, short_first_read);
	tcase_add_test(tc, memory_null_empty);
	tcase_add_test(tc, memory_null_with_length);
	tcase_add_test(tc, open_huge_options);
	tcase_add_test(tc, decode_nomem_is_fatal);
	tcase_add_test(tc, writer_open_nomem_names_output);
	tcase_add_test(tc, defs_apply_error_column);
	tcase_add_test(tc, writer_data_without_fields);
	tcase_add_test(tc, defs_control_failure_clears_out);
	tcase_add_test(tc, encode_text_only_when_it_holds);
	tcase_add_test(tc, reader_decode_uses_desc);
	tcase_add_test(tc, writer_control_not_desc);
	tcase_add_test(tc, close_null_handles);
	tcase_add_test(tc, documented_edges);
	tcase_add_test(tc, writer_checks_values_not_text);
	tcase_add_loop_test(tc, null_handles, 0, NPROBES);
	tcase_add_test(tc, null_after_failed_open);
	tcase_add_test(tc, null_reader_record);
	tcase_add_test(tc, null_writer_args);
	tcase_add_test(tc, null_defs_args);
	tcase_add_test(tc, null_descriptor_args);
	tcase_add_test(tc, null_stats_args);
	tcase_add_test(tc, null_matcher_args);
	tcase_add_test(tc, null_time_args);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
