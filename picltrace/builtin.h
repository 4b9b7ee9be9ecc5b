/*
 * builtin.h - the subcommands of picltrace and the few helpers they share.
 *
 * Each subcommand lives with its component (git's builtin/ model) and
 * exposes one int cmd_NAME(int argc, const char **argv); argv[0] is the
 * subcommand's name. The return value is the exit status.
 */
#ifndef PICLTRACE_BUILTIN_H
#define PICLTRACE_BUILTIN_H

#include "picl-trace.h"

int cmd_cat(int argc, const char **argv);
int cmd_filter(int argc, const char **argv);
int cmd_merge(int argc, const char **argv);
int cmd_plot(int argc, const char **argv);
int cmd_sort(int argc, const char **argv);
int cmd_stat(int argc, const char **argv);
int cmd_sync(int argc, const char **argv);
int cmd_validate(int argc, const char **argv);

/*
 * Parse a size such as "512M", "2G", "1024" (bytes; suffixes K M G T are
 * powers of 1024, an optional B may follow). 0 on success, -1 if malformed.
 */
int picltrace_parse_size(const char *s, uint64_t *out);

/* --level=N (zstd, 1..19) and --memory=SIZE (at least 1M): 0 with the value
 * set, or -1 after reporting the bad argument for cmd. */
int picltrace_parse_level(const char *cmd, const char *arg, int *level);
int picltrace_parse_memory(const char *cmd, const char *arg, uint64_t *bytes);

/* 1 if the regular file `out` is one of the n inputs ("-" never is). */
int picltrace_same_file(const char *out, const char *const *inputs, int n);

/* Open an output trace (picl_writer_open); on failure report it for cmd
 * and return NULL. Its temporary file is removed if the command is killed
 * by SIGINT, SIGTERM or SIGHUP before it is renamed into place. */
struct picl_writer *picltrace_open_output(const char *cmd, const char *path,
					  int compress, int level);

/* Remember a temporary file to unlink if the command is killed by SIGINT,
 * SIGTERM or SIGHUP (the path is copied; at most 8 at once), and forget it
 * once it was renamed into place or removed. */
void picltrace_remember_temp(const char *path);
void picltrace_forget_temp(const char *path);

/* A progress line on stderr, shown only when stderr is a terminal and the
 * command was not asked to be quiet; updated at most 4 times a second. */
struct picltrace_progress {
	const char *what;
	uint64_t total;          /* bytes expected, 0 if unknown */
	int enabled, shown;
	double start, last;
};
void picltrace_progress_init(struct picltrace_progress *p, const char *what,
			     uint64_t total, int quiet);
void picltrace_progress(struct picltrace_progress *p, uint64_t done);
void picltrace_progress_done(struct picltrace_progress *p);

/* Print "picltrace CMD: path:line:column: problem" on stderr. */
void picltrace_report(const char *cmd, const struct picl_error *err);

/* Print "picltrace CMD: " and a formatted message on stderr. */
void picltrace_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
