/*
 * fuzz-commands.c - libFuzzer target for the picltrace commands as a
 * whole: the input's first byte picks a command line (and whether the
 * reader parses on one thread or two), the rest is the trace it reads.
 * Whatever the bytes, every command must end with status 0, 1 or 2,
 * without crashing or leaking, and leave behind no temporary file and,
 * when it fails, no output file. Two commands are also checked for what
 * they write: the output of a sort that succeeded is sorted (sort --check
 * says so), and cat is canonical (cat of its output is the same bytes).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "picl-trace.h"
#include "builtin.h"
#include "slurp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#ifndef FUZZ_SCHEMA
#define FUZZ_SCHEMA "schemas/picl.yaml"
#endif

#define MAXARGS 12

/* The command lines: "IN", "OUT" and "TMP" stand for the input, an
 * output and the temporary directory; "IN2" for a copy of the input (merge
 * refuses one file given twice). */
static const char *const lines[][MAXARGS] = {
	{ "validate", "--max-errors=0", "--sorted", "IN" },
	{ "validate", "--format=json", "--memory=1M", "--tmpdir=TMP", "--max-errors=0", "IN" },
	{ "validate", "--partial", "--max-errors=3", "--memory=1M", "--tmpdir=TMP", "IN" },
	{ "stat", "-q", "--messages", "IN" },
	{ "stat", "-q", "--format=json", "--messages", "--memory=1M", "--tmpdir=TMP", "IN" },
	{ "stat", "-q", "--format=csv", "--summary", "IN" },
	{ "stat", "-q", "--compare", "IN" },
	{ "stat", "-q", "--emit-records", "-o", "OUT", "IN" },
	{ "filter", "-q", "--pairs", "-p", "0..1", "-o", "OUT", "IN" },
	{ "filter", "-q", "-g", "a|^$", "--grep-data", "-e", "user,-21", "--from=0.5", "IN" },
	{ "filter", "-q", "--no-defs", "-v", "-t", "mark", "--to=1000", "-z", "-o", "OUT", "IN" },
	{ "sync", "-q", "-n", "--report", "--format=json", "IN" },
	{ "sync", "-q", "--memory=1M", "--tmpdir=TMP", "-o", "OUT", "IN" },
	{ "plot", "-q", "--kind=utilization", "--format=script", "--bins=7", "IN" },
	{ "plot", "-q", "--kind=gantt", "--format=script", "IN" },
	{ "plot", "-q", "--kind=events", "--user-events", "--format=script", "IN" },
	{ "plot", "-q", "--kind=messages", "--format=script", "--memory=1M", "--tmpdir=TMP", "IN" },
	{ "sort", "-q", "--memory=1M", "--tmpdir=TMP", "--batch-size=2", "-o", "OUT", "IN" },
	{ "sort", "-q", "--check", "IN" },
	{ "merge", "-q", "--unsorted", "--tmpdir=TMP", "-o", "OUT", "IN", "IN2" },
	{ "cat", "-o", "OUT", "IN" },
};
#define NLINES (sizeof(lines) / sizeof(lines[0]))

static char dir[512], in[540], in2[540], out[540], out2[540], tmpopt[540];

void picltrace_report(const char *cmd, const struct picl_error *err)
{
	char buf[PICL_PROBLEM_MAX + 4200];

	if (getenv("FUZZ_VERBOSE"))
		fprintf(stderr, "picltrace %s: %s\n", cmd, picl_error_format(err, buf, sizeof(buf)));
}

void picltrace_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	if (!getenv("FUZZ_VERBOSE"))
		return;
	fprintf(stderr, "picltrace %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void remove_dir(void)
{
	unlink(in);
	unlink(in2);
	unlink(out);
	unlink(out2);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (snprintf(dir, sizeof(dir), "%s/fuzz-commands.XXXXXX",
		     getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp") >=
		    (int)sizeof(dir) || !mkdtemp(dir)) {
		fprintf(stderr, "fuzz-commands: cannot make a directory in $TMPDIR (%s)\n", dir);
		abort();
	}
	snprintf(in, sizeof(in), "%s/in.picl", dir);
	snprintf(in2, sizeof(in2), "%s/in2.picl", dir);
	snprintf(out, sizeof(out), "%s/out.picl", dir);
	snprintf(out2, sizeof(out2), "%s/out2.picl", dir);
	snprintf(tmpopt, sizeof(tmpopt), "--tmpdir=%s", dir);
	atexit(remove_dir);
	setenv("PICL_SCHEMA", FUZZ_SCHEMA, 0);
	if (!freopen("/dev/null", "w", stdout))
		abort();
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(int argc, const char **argv);
} commands[] = {
	{ "cat", cmd_cat }, { "filter", cmd_filter }, { "merge", cmd_merge },
	{ "plot", cmd_plot }, { "sort", cmd_sort }, { "stat", cmd_stat },
	{ "sync", cmd_sync }, { "validate", cmd_validate },
};

/* Run one command line (its command one of `commands`), its words
 * substituted; its status. */
static int run(const char *const *line, const char *output)
{
	const char *argv[MAXARGS + 1];
	size_t k;
	int argc;

	for (argc = 0; argc < MAXARGS && line[argc]; argc++) {
		const char *w = line[argc];

		argv[argc] = !strcmp(w, "IN") ? in : !strcmp(w, "IN2") ? in2
			   : !strcmp(w, "OUT") ? output
			   : !strcmp(w, "--tmpdir=TMP") ? tmpopt : w;
	}
	argv[argc] = NULL;
	for (k = 0; strcmp(commands[k].name, argv[0]); k++)
		;
	return commands[k].fn(argc, argv);
}

/* The files in dir other than the input and the outputs: none may be. */
static void check_no_leftovers(void)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		abort();
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    strcmp(de->d_name, "in.picl") && strcmp(de->d_name, "in2.picl") &&
		    strcmp(de->d_name, "out.picl") &&
		    strcmp(de->d_name, "out2.picl")) {
			fprintf(stderr, "left behind: %s/%s\n", dir, de->d_name);
			abort();
		}
	closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *const *line;
	FILE *f;
	int status, wrote;

	if (size < 1)
		return 0;
	line = lines[(data[0] & 0x7f) % NLINES];
	if (data[0] & 0x80)
		setenv("PICL_THREADS", "1", 1);
	else
		unsetenv("PICL_THREADS");
	f = fopen(in, "wb");
	if (!f || fwrite(data + 1, 1, size - 1, f) != size - 1 || fclose(f) != 0)
		abort();
	f = fopen(in2, "wb");
	if (!f || fwrite(data + 1, 1, size - 1, f) != size - 1 || fclose(f) != 0)
		abort();
	unlink(out);
	unlink(out2);
	status = run(line, out);
	if (getenv("FUZZ_VERBOSE"))
		fprintf(stderr, "%s %s...: exit %d\n", line[0], line[1], status);
	if (status < 0 || status > 2)
		abort();
	check_no_leftovers();
	wrote = access(out, F_OK) == 0;
	if (status == 2 && wrote) {
		fprintf(stderr, "%s failed and left %s\n", line[0], out);
		abort();
	}
	if (wrote && status == 0 && !strcmp(line[0], "sort")) {
		static const char *const check[] = { "sort", "-q", "--check", "OUT", NULL };

		if (run(check, out) != 0) {
			fprintf(stderr, "sort wrote an unsorted trace\n");
			abort();
		}
	}
	if (wrote && status == 0 && !strcmp(line[0], "cat")) {
		const char *argv[5] = { "cat", "-o", out2, out, NULL };
		size_t n1 = 0, n2 = 0;
		char *a, *b;

		if (cmd_cat(4, argv) != 0)
			abort();
		a = slurp(out, &n1);
		b = slurp(out2, &n2);
		if (!a || !b)
			abort();
		if (n1 != n2 || memcmp(a, b, n1)) {
			fprintf(stderr, "cat of cat's output is not the same\n");
			abort();
		}
		free(a);
		free(b);
	}
	unlink(out);
	unlink(out2);
	return 0;
}
