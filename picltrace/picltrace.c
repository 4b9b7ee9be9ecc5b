/*
 * picltrace.c - the `picltrace` command: a table of subcommands and what
 * they share (help, version, --resources, and checking that standard
 * output was really written). Every subcommand lives with its component and is reached
 * through cmd_NAME(argc, argv), as git's builtins are.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity */
#endif
#include "builtin.h"
#include "editdist.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

struct cmd_struct {
	const char *name;
	int (*fn)(int argc, const char **argv);
	const char *summary;
};

static const struct cmd_struct commands[] = {
	{ "cat", cmd_cat, "rewrite traces canonically (plain or zstd)" },
	{ "filter", cmd_filter, "keep the records that match processors, events, times, patterns" },
	{ "merge", cmd_merge, "merge per-node traces by exact timestamp" },
	{ "plot", cmd_plot, "draw a trace with gnuplot: utilization, Gantt chart, events, messages" },
	{ "sort", cmd_sort, "order a trace by exact timestamp, in bounded memory" },
	{ "stat", cmd_stat, "profile a trace: time, count and volume per event type" },
	{ "sync", cmd_sync, "correct clock offsets and drift so no message arrives before it was sent" },
	{ "validate", cmd_validate, "check traces against the schema and the format's rules" },
};

static const char usage_text[] =
	"usage: picltrace [--version] [--help] <command> [<args>]\n"
	"       picltrace help <command>\n"
	"       picltrace --resources\n";

static void print_usage(FILE *out)
{
	size_t i;

	fputs(usage_text, out);
	fputs("\ncommands:\n", out);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "   %-10s %s\n", commands[i].name, commands[i].summary);
	fputs("\nnumbers in options are decimal digits, with a '-' where negatives are\n"
	      "allowed: no '+', no blanks, no hexadecimal.\n", out);
	fputs("\n'picltrace <command> --help' shows a command's options;\n"
	      "'man picltrace-<command>' its manual.\n", out);
	fputs("'picltrace --resources' shows the memory and CPUs this process may use\n"
	      "(a cgroup or a ulimit may allow less than the machine has) and the\n"
	      "defaults taken from them: --memory, and the threads reading a file.\n", out);
}

/*
 * Write s to standard error with its control characters (C0 and DEL) as
 * \xNN, so that a message is one line and a file name with an escape
 * sequence or a newline in it cannot drive the terminal or split the
 * message (the library quotes the trace's own bytes in its problems; a path
 * comes as given).
 */
static void put_escaped(const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f)
			fprintf(stderr, "\\x%02x", c);
		else
			fputc(c, stderr);
	}
}

void picltrace_report(const char *cmd, const struct picl_error *err)
{
	char buf[PICL_PROBLEM_MAX + 4200];

	fprintf(stderr, "picltrace %s: ", cmd);
	put_escaped(picl_error_format(err, buf, sizeof(buf)));
	fputc('\n', stderr);
}

void picltrace_error(const char *cmd, const char *fmt, ...)
{
	char buf[8192], *msg = buf;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(buf) && (msg = malloc((size_t)n + 1)) != NULL) {
		va_start(ap, fmt);
		vsnprintf(msg, (size_t)n + 1, fmt, ap);
		va_end(ap);
	} else if (n >= (int)sizeof(buf)) {
		msg = buf;   /* out of memory: the message cut short */
	}
	fprintf(stderr, "picltrace %s: ", cmd);
	put_escaped(n < 0 ? fmt : msg);
	fputc('\n', stderr);
	if (msg != buf)
		free(msg);
}

static const struct cmd_struct *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

/*
 * Say that name is not a command, naming the one it was most likely meant
 * to be: within two edits (one for names of three letters or fewer), a
 * command it begins with ("stats"), or one it begins ("val", two letters
 * at least), when exactly one is that close. A name that begins with '-'
 * is an option picltrace itself does not take.
 */
static int not_a_command(const char *name)
{
	const char *best = NULL;
	int bestd = 3, ties = 0;
	size_t i;

	if (name[0] == '-') {
		fprintf(stderr, "picltrace: unrecognized option '%s'; see 'picltrace --help'\n", name);
		return 2;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		const char *c = commands[i].name;
		int d = edit_distance(name, strlen(name), c, strlen(c), 9); /* up to 9: short names */

		if ((strncmp(name, c, strlen(c)) == 0 ||
		     (strlen(name) >= 2 && strncmp(name, c, strlen(name)) == 0)) && d > 1)
			d = 1;    /* "stats", "validates"; "val", "filt" */
		if (d > (strlen(name) <= 3 ? 1 : 2))
			continue;
		if (d < bestd) {
			bestd = d;
			best = c;
			ties = 0;
		} else if (d == bestd) {
			ties++;
		}
	}
	if (best && !ties)
		fprintf(stderr, "picltrace: '%s' is not a picltrace command; did you mean "
			"'%s'? (see 'picltrace --help')\n", name, best);
	else
		fprintf(stderr, "picltrace: '%s' is not a picltrace command; see "
			"'picltrace --help'\n", name);
	return 2;
}

/* Like git: a command that wrote to stdout must find out whether it
 * failed. cmd (NULL: picltrace itself) names it in the message, worded as
 * the commands word a write error of theirs ("<stdout>: cannot write"). */
static int finish_stdout(const char *cmd, int status)
{
	if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
		/* a command that failed has said why (its output included) */
		if (errno == EPIPE || status != 0)
			return status;
		fprintf(stderr, "picltrace%s%s: <stdout>: cannot write: %s\n", cmd ? " " : "",
			cmd ? cmd : "", strerror(errno));
		return status ? status : 2;
	}
	return status;
}

/*
 * A descriptor 0, 1 or 2 the command was started without would be taken
 * by the first file it opens (a temporary file would then be read as
 * standard input). Each gets /dev/null opened the wrong way round, so that
 * using it still fails with EBADF, as it would have.
 */
static void hold_standard_descriptors(void)
{
	int fd;

	for (fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		if (open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY) != fd)
			return;   /* lower ones were open: cannot happen */
	}
}

/* A size as --memory takes it where that is exact ("512M"), else with
 * one decimal ("5.9G"), and its bytes. */
static void print_size(const char *what, uint64_t v, const char *note)
{
	static const char units[] = "KMGTPE";
	int u = -1;

	printf("%-28s", what);
	if (v == UINT64_MAX) {
		printf("no limit%s\n", note ? note : "");
		return;
	}
	while (u < 5 && v >= (1024ULL << (10 * (u + 1))))
		u++;
	if (u < 0)
		printf("%llu", (unsigned long long)v);
	else if (v % (1ULL << (10 * (u + 1))) == 0)
		printf("%llu%c", (unsigned long long)(v >> (10 * (u + 1))), units[u]);
	else
		printf("%.1f%c", (double)v / (double)(1ULL << (10 * (u + 1))), units[u]);
	printf(" (%llu bytes)%s\n", (unsigned long long)v, note ? note : "");
}

/* 1 if PICL_THREADS is set to a count the library takes, -1 if set to
 * one it does not (it then uses the default), 0 if unset. */
static int threads_setting(void)
{
	const char *t = getenv("PICL_THREADS");
	int64_t n;

	if (!t || !*t)
		return 0;
	return picltrace_parse_int(t, strlen(t), 1, INT64_MAX, &n) < 0 ? -1 : 1;
}

/*
 * The settings the library reads from the environment for every command
 * (PICL_SCHEMA is checked where a schema is loaded): a value they do not
 * allow is said once, in the runtime's words, and the default used, as
 * the library does. PICL_THREADS=bogus silently read serially before, and
 * PICL_SIMD=no kept the vector reader on.
 */
static void check_settings(void)
{
	const char *v = getenv("PICL_SIMD");

	if (threads_setting() < 0)
		fprintf(stderr, "picltrace: PICL_THREADS must be a number of threads from 1 "
			"up, in decimal; using the default\n");
	if (v && *v && strcmp(v, "0") != 0 && strcmp(v, "1") != 0)
		fprintf(stderr, "picltrace: PICL_SIMD must be 0 or 1; using the default\n");
}

/* picltrace --resources: the limits of limits.c, the CPUs and the threads a
 * file is read with, and where temporary files go. */
static int resources(void)
{
	struct picltrace_memory_limits l;
	char note[sizeof(l.cgroup_file) + 16] = "";
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	const char *tmp;
	struct statvfs fs;
	cpu_set_t set;
	uint64_t dflt;

	picltrace_memory_limits(&l);
	print_size("physical memory:", l.physical, NULL);
	if (l.cgroup != UINT64_MAX)
		snprintf(note, sizeof(note), ": %s", l.cgroup_file);
	print_size("memory cgroup limit:", l.cgroup, note);
	print_size("ulimit -v (RLIMIT_AS):", l.as, NULL);
	print_size("ulimit -d (RLIMIT_DATA):", l.data, NULL);
	print_size("usable memory:", l.usable, " (the least of these)");
	dflt = picltrace_default_memory();
	print_size("default --memory:", dflt,
		   l.usable == UINT64_MAX || dflt == l.usable / 4 ? " (a quarter of the usable memory)"
		   : dflt == 64ULL << 20 ? " (64M: a quarter of the usable memory is less)"
					 : " (half of the usable memory: a quarter is too little)");
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		printf("%-28s%d of %ld online\n", "CPUs this process may use:", CPU_COUNT(&set),
		       online);
	else
		printf("%-28s%ld online\n", "CPUs this process may use:", online);
	printf("%-28s%zu (%s)\n", "threads reading a file:", picl_reader_threads(),
	       threads_setting() > 0 ? "PICL_THREADS"
				     : "one per CPU this process may use, at most 8");
	/* where sort's runs and the matchers' overflow go: on a cluster
	 * node /tmp may be small, and $TMPDIR the job's scratch */
	tmp = picltrace_tempdir(NULL);
	if (statvfs(tmp, &fs) == 0)
		printf("%-28s%s (%.1fG free; $TMPDIR, else /tmp; --tmpdir)\n", "temporary files in:",
		       tmp, (double)fs.f_bavail * (double)fs.f_frsize / (double)(1ULL << 30));
	else
		printf("%-28s%s (%s)\n", "temporary files in:", tmp, strerror(errno));
	return 0;
}

int main(int argc, const char **argv)
{
	const struct cmd_struct *cmd;
	char name[64];

	hold_standard_descriptors();
	if (argc < 2) {
		print_usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		print_usage(stdout);
		return finish_stdout(NULL, 0);
	}
	if (!strcmp(argv[1], "--resources")) {
		check_settings();
		return finish_stdout(NULL, resources());
	}
	if (!strcmp(argv[1], "--version")) {
		printf("picltrace %s\n", PICL_TRACE_VERSION);
		return finish_stdout(NULL, 0);
	}
	if (!strcmp(argv[1], "help")) {
		const char *hargv[3];

		if (argc < 3) {
			print_usage(stdout);
			return finish_stdout(NULL, 0);
		}
		if (!strcmp(argv[2], "help") || !strcmp(argv[2], "--help") ||
		    !strcmp(argv[2], "-h")) {
			print_usage(stdout);
			return finish_stdout(NULL, 0);
		}
		cmd = find_command(argv[2]);
		if (!cmd)
			return not_a_command(argv[2]);
		hargv[0] = cmd->name;
		hargv[1] = "--help";
		hargv[2] = NULL;
		return finish_stdout(cmd->name, cmd->fn(2, hargv));
	}
	cmd = find_command(argv[1]);
	if (!cmd)
		return not_a_command(argv[1]);
	check_settings();
	/* getopt names argv[0] in its messages: "picltrace cat: invalid ..." */
	snprintf(name, sizeof(name), "picltrace %s", cmd->name);
	argv[1] = name;
	return finish_stdout(cmd->name, cmd->fn(argc - 1, argv + 1));
}
