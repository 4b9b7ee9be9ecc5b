/*
 * cmd-cat.c - `picltrace cat`: read traces and write them out canonically
 * (one record a line, single blanks, continuation lines joined, data in
 * their canonical spacing), plain or zstd-compressed.
 *
 * Every record is decoded, so cat also proves that a file reads; the first
 * malformed record stops it with file:line:column and exit status 2, and the
 * output file (written to a temporary file and renamed) is not left behind.
 * --in-place writes the one input's canonical form over it the same way
 * (the input is read through before the rename, compressed if it was).
 */
#include "builtin.h"
#include "fdio.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char cat_usage[] =
	"usage: picltrace cat [-o FILE | --in-place] [-z] [--level=N] [-q] [FILE...]\n"
	"\n"
	"  -o, --output=FILE  write to FILE instead of standard output\n"
	"      --in-place     replace the (single) input file by its canonical form,\n"
	"                     once all of it was read and written\n"
	"  -z, --zstd         compress the output with zstd (also\n"
	"                     implied by --level, or an output FILE named *.zst;\n"
	"                     --in-place keeps a compressed input compressed)\n"
	"      --level=N      zstd compression level (1-19, default 3)\n"
	"  -q, --quiet        no progress line (one is shown on a terminal)\n"
	"  -h, --help         show this help\n"
	"\n"
	"With no FILE, or when FILE is -, read standard input. Inputs may be\n"
	"plain text or zstd-compressed.\n";

/* Open one input; NULL (reported) if it cannot be. */
static struct picl_reader *cat_open(const char *path)
{
	struct picl_reader_options ro = { PICL_READ_PARALLEL, 0, 0 };
	struct picl_error err = { 0 };
	struct picl_reader *r;
	int rc;

	picltrace_stdin_hint("cat", path);
	r = picl_reader_open(path, &ro, &rc, &err);
	if (!r)
		picltrace_report("cat", &err);
	return r;
}

/* Copy input r (of path) to w, and free r; its definitions and those of
 * the inputs before it in carry (several FILEs are one trace); a progress
 * line unless quiet. */
static int cat_one(struct picl_reader *r, const char *path, struct picl_writer *w,
		   struct picltrace_carry *carry, int quiet)
{
	struct picltrace_progress prog;
	struct picl_record rec;
	unsigned tick = 0;
	int rc, reported = 0;

	if (picltrace_carry_apply(carry, "cat", r) < 0) {
		picl_reader_free(r);
		return PICL_ERR_NOMEM;
	}
	picltrace_progress_init(&prog, "cat", picltrace_progress_total(path, r), quiet);
	while ((rc = picl_reader_next(r, &rec)) == PICL_OK) {
		if ((++tick & 0xfff) == 0)
			picltrace_progress(&prog, picl_reader_offset(r));
		if (picltrace_carry_note(carry, &rec) < 0) {
			picltrace_progress_clear(&prog);
			picltrace_error("cat", "out of memory");
			rc = PICL_ERR_NOMEM;
			reported = 1;
			break;
		}
		if ((rc = picl_writer_write(w, &rec)) < 0) {
			struct picl_error e = *picl_writer_error(w);

			if (e.code != PICL_ERR_IO) {
				e.path = picl_reader_path(r);
				e.mark = rec.mark;
			}
			picltrace_progress_clear(&prog);
			picltrace_report("cat", &e);
			reported = 1;
			break;
		}
	}
	/* (the reader's own errors, out of memory among them) */
	if (rc < 0 && !reported) {
		picltrace_progress_clear(&prog);
		picltrace_report("cat", picl_reader_error(r));
	}
	if (rc >= 0)
		picltrace_progress_done(&prog);
	picl_reader_free(r);
	return rc < 0 ? rc : PICL_OK;
}

int cmd_cat(int argc, const char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "in-place", no_argument, NULL, 'I' },
		{ "zstd", no_argument, NULL, 'z' },
		{ "level", required_argument, NULL, 'l' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct picl_writer_options wopts = { 0 };
	struct picl_error err = { 0 };
	struct picl_writer *w = NULL;
	struct picl_reader *r;
	const char *output = "-";
	const char *stdin_only[] = { "-" };
	const char **inputs;
	struct picltrace_carry carry = { 0 };
	int ninputs, c, i, quiet = 0, in_place = 0, output_given = 0, rc = PICL_OK;

	optind = 1;
	while ((c = getopt_long(argc, (char *const *)argv, "o:zqh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			output_given = 1;
			break;
		case 'I':
			in_place = 1;
			break;
		case 'z':
			wopts.compress = 1;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'l':
			if (picltrace_parse_level("cat", optarg, &wopts.level) < 0)
				return 2;
			break;
		case 'h':
			fputs(cat_usage, stdout);
			return 0;
		default:
			return picltrace_bad_usage(cat_usage);
		}
	}
	inputs = optind < argc ? argv + optind : stdin_only;
	ninputs = optind < argc ? argc - optind : 1;
	if (picltrace_rewrite_output("cat", in_place, output_given, inputs, ninputs, &output) < 0)
		return 2;
	wopts.compress = picltrace_wants_zstd(output, wopts.compress, wopts.level);
	/* With --in-place the output is opened once the input is, to keep its
	 * compression; else first, so that an output that cannot be made is
	 * said before any input is read. */
	if (!in_place && !(w = picltrace_open_output("cat", output, wopts.compress, wopts.level)))
		return 2;
	for (i = 0; i < ninputs && rc == PICL_OK; i++) {
		carry.more = i + 1 < ninputs;
		if (!(r = cat_open(inputs[i]))) {
			rc = PICL_ERR_IO;
			break;
		}
		if (!w && !(w = picltrace_open_output("cat", output, wopts.compress ||
						      picl_reader_is_compressed(r), wopts.level))) {
			picl_reader_free(r);
			rc = PICL_ERR_IO;
			break;
		}
		rc = cat_one(r, inputs[i], w, &carry, quiet);
	}
	picltrace_carry_free(&carry);
	if (rc < 0) {
		if (w)
			picl_writer_abort(w);
		return 2;
	}
	if (picl_writer_close(w, &err) < 0) {
		picltrace_report("cat", &err);
		return 2;
	}
	return 0;
}
