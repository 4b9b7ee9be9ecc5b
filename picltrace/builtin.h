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
int cmd_validate(int argc, const char **argv);

/* Print "picltrace CMD: path:line:column: problem" on stderr. */
void picltrace_report(const char *cmd, const struct picl_error *err);

/* Print "picltrace CMD: " and a formatted message on stderr. */
void picltrace_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
