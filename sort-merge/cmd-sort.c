/*
 * cmd-sort.c - `picltrace sort`: order a trace by exact timestamp.
 *
 * Stable (equal timestamps keep input order), header records first, then
 * definition records (defs.c says how records keep their meaning), in
 * bounded memory: one plain regular file that fits --memory is sorted
 * through a read-only mapping (msort.c); anything else, or what msort
 * gives up on, is copied into runs.c's sorter, and past --memory the
 * records are spilled as sorted, zstd-compressed runs in --tmpdir and
 * merged. Records are moved, not re-formatted. --check only reports
 * whether the input is sorted and where the first disorder is; --in-place
 * replaces the one input by its sorted form.
 */
#include "builtin.h"
#include "fdio.h"
#include "runs.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char sort_usage[] =
	"usage: picltrace sort [-o FILE | --in-place] [--memory=SIZE] [--tmpdir=DIR]\n"
	"                      [--batch-size=N] [-z] [--level=N] [--quiet] [FILE...]\n"
	"       picltrace sort --check [FILE...]\n"
	"\n"
	"  -o, --output=FILE  write to FILE instead of standard output\n"
	"      --in-place     replace the (single) input file, once sorted\n"
	"  -m, --memory=SIZE  the most memory the whole process may use (e.g. 512M,\n"
	"                     4G; default a quarter of the usable memory\n"
	"                     'picltrace --resources' shows)\n"
	"  -T, --tmpdir=DIR   where temporary runs go (default $TMPDIR or /tmp)\n"
	"      --batch-size=N merge at most N temporary runs at once (2 to 1000000;\n"
	"                     default as many as open files allow, at most 256)\n"
	"  -c, --check        report whether the input is sorted; exit 1 if not\n"
	"  -z, --zstd         compress the output with zstd (also\n"
	"                     implied by --level, or an output FILE named *.zst)\n"
	"      --level=N      zstd compression level (1-19, default 3)\n"
	"  -q, --quiet        no progress line\n"
	"  -h, --help         show this help\n"
	"\n"
	"Equal timestamps keep their input order; header records (-399..-301)\n"
	"come first, then definition records (-6, -201..-203) in input order; a\n"
	"record whose alias would then resolve otherwise is written with its\n"
	"control string (Definitions in picltrace-sort(1)). With no FILE, or when\n"
	"FILE is -, read standard input.\n";

static uint64_t input_size(const char *const *inputs, int n)
{
	uint64_t total = 0;
	struct stat st;
	int i;

	for (i = 0; i < n; i++) {
		if (!strcmp(inputs[i], "-") || stat(inputs[i], &st) < 0 || !S_ISREG(st.st_mode))
			return 0;
		total += (uint64_t)st.st_size;
	}
	return total;
}

/* --check: 0 sorted, 1 not, 2 unreadable. */
static int check_sorted(const char *const *inputs, int n)
{
	struct picl_time last = { 0, 0 };
	uint64_t last_line = 0;
	int i, last_input = -1, rc;

	for (i = 0; i < n; i++) {
		struct picl_reader *r = runs_open("sort", inputs[i], PICL_READ_PARALLEL | RUNS_READ_DEFS);
		struct picl_record rec;

		if (!r)
			return 2;
		while ((rc = picl_reader_next(r, &rec)) == PICL_OK) {
			char a[PICL_TIME_BUFSIZE], b[PICL_TIME_BUFSIZE];
			int header = picl_is_header_type(rec.type);

			if (header && last_input < 0)
				continue;
			if (picl_is_definition_type(rec.type))
				continue;   /* sort writes them first, whatever their times */
			if (last_input >= 0 && (header || picl_time_cmp(rec.time, last) < 0)) {
				/* the earlier record may be in an earlier input: name it */
				const char *prev = last_input == i ? "" :
					strcmp(inputs[last_input], "-") ? inputs[last_input] : "<stdin>";
				const char *sp = *prev ? " " : "";

				if (header) {
					picltrace_error("sort", "%s:%llu:1: not sorted: header record %d after the first event record (%s%sline %llu)",
							picl_reader_path(r),
							(unsigned long long)rec.mark.line,
							(int)rec.type, prev, sp,
							(unsigned long long)last_line);
				} else {
					struct picl_mark at;

					picltrace_field_mark(r, &rec, 2, &at);   /* the time */
					picl_time_format(rec.time, a);
					picl_time_format(last, b);
					picltrace_error("sort", "%s:%llu:%llu: not sorted: time %s comes after %s (%s%sline %llu)",
							picl_reader_path(r),
							(unsigned long long)at.line,
							(unsigned long long)at.column, a, b, prev, sp,
							(unsigned long long)last_line);
				}
				picl_reader_free(r);
				return 1;
			}
			last_input = i;
			last = rec.time;
			last_line = rec.mark.line;
		}
		if (rc != PICL_END) {
			picltrace_report("sort", picl_reader_error(r));
			picl_reader_free(r);
			return 2;
		}
		picl_reader_free(r);
	}
	return 0;
}

int cmd_sort(int argc, const char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "in-place", no_argument, NULL, 'I' },
		{ "memory", required_argument, NULL, 'm' },
		{ "batch-size", required_argument, NULL, 'B' },
		{ "tmpdir", required_argument, NULL, 'T' },
		{ "check", no_argument, NULL, 'c' },
		{ "zstd", no_argument, NULL, 'z' },
		{ "level", required_argument, NULL, 'l' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct runs_config cfg = { "sort", NULL, 0, 0, 0 };
	struct picltrace_progress prog;
	const char *output = "-";
	const char *stdin_only[] = { "-" };
	const char *const *inputs;
	struct picl_writer *w = NULL;
	struct sorter *s = NULL;
	struct msort *m = NULL;
	uint64_t done = 0;
	int ninputs, c, i, check = 0, in_place = 0, compress = 0, level = 0, status = 2;
	int output_given = 0;   /* -o, even -o - (refused with --check, --in-place) */

	optind = 1;
	while ((c = getopt_long(argc, (char *const *)argv, "o:m:T:czqh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': output = optarg; output_given = 1; break;
		case 'I': in_place = 1; break;
		case 'T': cfg.tmpdir = optarg; break;
		case 'c': check = 1; break;
		case 'z': compress = 1; break;
		case 'q': cfg.quiet = 1; break;
		case 'm':
			if (picltrace_parse_memory("sort", optarg, &cfg.memory) < 0)
				return 2;
			break;
		case 'l':
			if (picltrace_parse_level("sort", optarg, &level) < 0)
				return 2;
			break;
		case 'B': {
			int64_t n;

			if (picltrace_int_option("sort", "--batch-size", optarg, 2, 1000000,
						 "a count of runs from 2 to 1000000", &n) < 0)
				return 2;
			cfg.batch = (size_t)n;
			break;
		}
		case 'h':
			fputs(sort_usage, stdout);
			return 0;
		default:
			return picltrace_bad_usage(sort_usage);
		}
	}
	inputs = optind < argc ? argv + optind : stdin_only;
	ninputs = optind < argc ? argc - optind : 1;
	compress = picltrace_wants_zstd(in_place ? inputs[0] : output, compress, level);
	if (check && (in_place || output_given)) {
		picltrace_error("sort", "--check writes nothing: it takes neither --in-place "
				"nor --output");
		return 2;
	}
	if (check)
		return check_sorted(inputs, ninputs);
	if (picltrace_rewrite_output("sort", in_place, output_given, inputs, ninputs, &output) < 0)
		return 2;
	if (!cfg.memory)
		cfg.memory = picltrace_default_memory();
	runs_fresh_buffers();
	s = sorter_new(&cfg);
	if (!s) {
		picltrace_error("sort", "out of memory");
		return 2;
	}
	picltrace_progress_init(&prog, "sort: reading", input_size(inputs, ninputs),
				cfg.quiet);
	if (ninputs == 1 && (m = msort_open(&cfg, inputs[0]))) {
		/* One plain file that fits: sorted through a mapping of it. */
		int rc = msort_read(m, &prog);

		if (rc < 0)
			goto out;
		if (rc == 0) {
			picltrace_progress_done(&prog);
			w = picltrace_open_output("sort", output, compress, level);
			if (!w || msort_finish(m, w, compress ? NULL : output) < 0)
				goto out;
			goto close;
		}
		msort_free(m);
		m = NULL;
	}
	if (prog.total)
		sorter_reserve(s, prog.total);
	for (i = 0; i < ninputs; i++) {
		struct picl_reader *r = runs_open("sort", inputs[i],
						  PICL_READ_PARALLEL | RUNS_READ_DEFS);

		if (!r)
			goto out;
		if (picl_reader_is_compressed(r)) {
			prog.total = 0;
			if (in_place)  /* the file stays what it was */
				compress = 1;
		}
		if (sorter_add_all(s, r, &prog, done) < 0) {
			picl_reader_free(r);
			goto out;
		}
		done += picl_reader_offset(r);
		picl_reader_free(r);
	}
	picltrace_progress_done(&prog);
	w = picltrace_open_output("sort", output, compress, level);
	if (!w)
		goto out;
	if (sorter_finish(s, w) < 0)
		goto out;
close:
	{
		struct picl_error err = { 0 };
		struct picl_writer *tmp = w;

		w = NULL;
		if (picl_writer_close(tmp, &err) < 0) {
			picltrace_report("sort", &err);
			goto out;
		}
	}
	status = 0;
out:
	if (w)
		picl_writer_abort(w);
	sorter_free(s);
	msort_free(m);
	return status;
}
