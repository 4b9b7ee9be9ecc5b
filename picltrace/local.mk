# picltrace/: the command dispatcher; each subcommand lives with its component.
bin_PROGRAMS += picltrace/picltrace
picltrace_picltrace_SOURCES = picltrace/picltrace.c picltrace/builtin.h picltrace/util.c picltrace/limits.c \
	picltrace/cmd-cat.c
picltrace_picltrace_LDADD = libpicl-trace/libpicl-trace.la
picltrace_picltrace_LDFLAGS = $(INSTALLED_RPATH)
picltrace_picltrace_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/picltrace
dist_man_MANS += man/picltrace.1 man/picltrace-cat.1
# validate (lives beside the schema code; see DESIGN.md)
picltrace_picltrace_SOURCES += libpicl-trace/cmd-validate.c
dist_man_MANS += man/picltrace-validate.1
# filter
picltrace_picltrace_SOURCES += picltrace/cmd-filter.c
picltrace_picltrace_LDADD += $(PCRE2_LIBS)
picltrace_picltrace_CFLAGS = $(AM_CFLAGS) $(PCRE2_CFLAGS)
dist_man_MANS += man/picltrace-filter.1
TESTS += t/e2e/0300-filter.sh t/e2e/0300-filter-spec.sh t/e2e/0301-filter-defs.sh \
	t/e2e/0977-filter-subset-redefined.sh
EXTRA_DIST += t/e2e/0300-filter.sh t/e2e/0300-filter-spec.sh t/e2e/0301-filter-defs.sh \
	t/e2e/0977-filter-subset-redefined.sh
# --resources: what the process may use, and the defaults taken from it
TESTS += t/e2e/0054-resources.sh
EXTRA_DIST += t/e2e/0054-resources.sh
