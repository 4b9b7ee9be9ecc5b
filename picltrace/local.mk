# picltrace/: the command dispatcher; each subcommand lives with its component.
bin_PROGRAMS += picltrace/picltrace
picltrace_picltrace_SOURCES = picltrace/picltrace.c picltrace/builtin.h picltrace/cmd-cat.c
picltrace_picltrace_LDADD = libpicl-trace/libpicl-trace.la
dist_man_MANS += man/picltrace.1 man/picltrace-cat.1
