# t/: Check unit tests (t/unit/test-*.c) and end-to-end tests (t/e2e/*.sh).
#
# Every unit test links the library and Check; every end-to-end test is a
# shell script run by the automake test driver with the environment set in
# Makefile.am (PICL_BUILDDIR, PICL_SRCDIR, PICL_SCHEMA, PICL_SHARED).
UNIT_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) -DPICL_TESTDATA='"$(abs_top_srcdir)/testdata"'
UNIT_LDADD = libpicl-trace/libpicl-trace.la $(CHECK_LIBS)

check_PROGRAMS += t/unit/test-time t/unit/test-reader
t_unit_test_time_SOURCES = t/unit/test-time.c
t_unit_test_time_CFLAGS = $(UNIT_CFLAGS)
t_unit_test_time_LDADD = $(UNIT_LDADD)
t_unit_test_reader_SOURCES = t/unit/test-reader.c
t_unit_test_reader_CFLAGS = $(UNIT_CFLAGS) $(ZSTD_CFLAGS)
t_unit_test_reader_LDADD = $(UNIT_LDADD) $(ZSTD_LIBS)
TESTS += t/unit/test-time t/unit/test-reader
# the public API as a program sees it (arguments, errors, resources)
check_PROGRAMS += t/unit/test-api
t_unit_test_api_SOURCES = t/unit/test-api.c
t_unit_test_api_CFLAGS = $(UNIT_CFLAGS) $(ZSTD_CFLAGS)
t_unit_test_api_LDADD = $(UNIT_LDADD) $(ZSTD_LIBS)
TESTS += t/unit/test-api
check_PROGRAMS += t/unit/test-output
t_unit_test_output_SOURCES = t/unit/test-output.c
t_unit_test_output_CFLAGS = $(UNIT_CFLAGS)
t_unit_test_output_LDADD = $(UNIT_LDADD)
TESTS += t/unit/test-output
check_PROGRAMS += t/unit/test-match
# (with the library's sources, built to check the matcher's accounting)
t_unit_test_match_SOURCES = t/unit/test-match.c $(libpicl_trace_libpicl_trace_la_SOURCES)
t_unit_test_match_CPPFLAGS = $(AM_CPPFLAGS) -DPICL_MATCH_SELFCHECK
t_unit_test_match_CFLAGS = $(UNIT_CFLAGS) $(libpicl_trace_libpicl_trace_la_CFLAGS)
t_unit_test_match_LDADD = $(CHECK_LIBS) $(libpicl_trace_libpicl_trace_la_LIBADD)
TESTS += t/unit/test-match
# the reader's parsing threads against the serial reader
check_PROGRAMS += t/unit/test-parallel
t_unit_test_parallel_SOURCES = t/unit/test-parallel.c
t_unit_test_parallel_CFLAGS = $(UNIT_CFLAGS)
t_unit_test_parallel_LDADD = $(UNIT_LDADD)
TESTS += t/unit/test-parallel

# the AVX-512 line reader against its byte-by-byte reference (compiled in:
# the library keeps it to itself)
check_PROGRAMS += t/unit/test-linevec
t_unit_test_linevec_SOURCES = t/unit/test-linevec.c libpicl-trace/linevec.c fuzz/linevec-ref.h
t_unit_test_linevec_CFLAGS = $(UNIT_CFLAGS) -I$(srcdir)/libpicl-trace
t_unit_test_linevec_LDADD = $(CHECK_LIBS)
TESTS += t/unit/test-linevec

# descriptor compiler
check_PROGRAMS += t/unit/test-descriptor
t_unit_test_descriptor_SOURCES = t/unit/test-descriptor.c
t_unit_test_descriptor_CFLAGS = $(UNIT_CFLAGS)
t_unit_test_descriptor_LDADD = $(UNIT_LDADD)
TESTS += t/unit/test-descriptor

# statistics
check_PROGRAMS += t/unit/test-stats
t_unit_test_stats_SOURCES = t/unit/test-stats.c
t_unit_test_stats_CFLAGS = $(UNIT_CFLAGS)
t_unit_test_stats_LDADD = $(UNIT_LDADD)
TESTS += t/unit/test-stats

# the index of open entries (openindex.h, header only) against a model
check_PROGRAMS += t/unit/test-openindex
t_unit_test_openindex_SOURCES = t/unit/test-openindex.c
t_unit_test_openindex_CFLAGS = $(UNIT_CFLAGS) -I$(srcdir)/libpicl-trace
t_unit_test_openindex_LDADD = $(CHECK_LIBS)
TESTS += t/unit/test-openindex

# schema
check_PROGRAMS += t/unit/test-schema
t_unit_test_schema_SOURCES = t/unit/test-schema.c
t_unit_test_schema_CFLAGS = $(UNIT_CFLAGS) $(YAML_CFLAGS)
t_unit_test_schema_LDADD = $(UNIT_LDADD) $(YAML_LIBS)
TESTS += t/unit/test-schema

# the memory cgroup's limit in the layouts this machine does not have
# (compiled in: picltrace keeps it to itself)
check_PROGRAMS += t/unit/test-limits
t_unit_test_limits_SOURCES = t/unit/test-limits.c picltrace/limits.c
t_unit_test_limits_CFLAGS = $(UNIT_CFLAGS) -I$(srcdir)/picltrace -I$(srcdir)/libpicl-trace
t_unit_test_limits_LDADD = $(UNIT_LDADD)
TESTS += t/unit/test-limits

# end-to-end tests
dist_check_SCRIPTS = t/e2e/lib.sh
TESTS += t/e2e/0005-exports.sh t/e2e/0010-cat.sh t/e2e/0020-help-man.sh \
	t/e2e/0028-command-typos.sh t/e2e/0029-readme-tour.sh \
	t/e2e/0025-output-files.sh t/e2e/0030-multi-file.sh t/e2e/0031-option-errors.sh \
	t/e2e/0032-input-twice.sh t/e2e/0033-progress.sh t/e2e/0034-stdin-terminal.sh \
	t/e2e/0036-stdout-write-error.sh t/e2e/0037-cat-in-place.sh \
	t/e2e/0038-filter-grep-spacing.sh t/e2e/0039-filter-validate.sh \
	t/e2e/0040-filter-in-place.sh
EXTRA_DIST += t/unit/tmp.h
EXTRA_DIST += t/e2e/0005-exports.sh t/e2e/0010-cat.sh t/e2e/0020-help-man.sh \
	t/e2e/0028-command-typos.sh t/e2e/0029-readme-tour.sh \
	t/e2e/0025-output-files.sh t/e2e/0030-multi-file.sh t/e2e/0031-option-errors.sh \
	t/e2e/0032-input-twice.sh t/e2e/0033-progress.sh t/e2e/0034-stdin-terminal.sh \
	t/e2e/0036-stdout-write-error.sh t/e2e/0037-cat-in-place.sh \
	t/e2e/0038-filter-grep-spacing.sh t/e2e/0039-filter-validate.sh \
	t/e2e/0040-filter-in-place.sh
# a user's program built against the installed library through pkg-config
TESTS += t/e2e/0006-installed-api.sh
EXTRA_DIST += t/e2e/0006-installed-api.sh
# the commands, libraries, pkg-config modules and pages as `make install`
# leaves them under a prefix, used from a clean environment; then
# `make uninstall`
TESTS += t/e2e/0007-installed-tools.sh
EXTRA_DIST += t/e2e/0007-installed-tools.sh
# the programs of libpicl-trace(3)'s EXAMPLES, built as the page says
TESTS += t/e2e/0050-api-man-examples.sh
EXTRA_DIST += t/e2e/0050-api-man-examples.sh
# every name of picl-trace.h on libpicl-trace(3)
TESTS += t/e2e/0051-api-man-names.sh
EXTRA_DIST += t/e2e/0051-api-man-names.sh
# doc/DESIGN.md's layout against the source tree
TESTS += t/e2e/0052-design-layout.sh
EXTRA_DIST += t/e2e/0052-design-layout.sh
# picltrace validate
VALIDATE_E2E = t/e2e/0100-validate.sh t/e2e/0101-validate-spec.sh \
	t/e2e/0102-validate-cli.sh
# ... on traces whose buffers filled (tracenode's flush 0 and -1), made by
# the runtime
VALIDATE_E2E += t/e2e/0408-validate-buffer-full.sh
TESTS += $(VALIDATE_E2E)
EXTRA_DIST += $(VALIDATE_E2E) \
	testdata/validate/alias.picl testdata/validate/clean-2proc.picl \
	testdata/validate/descriptor.picl testdata/validate/descriptor-def.picl \
	testdata/validate/entry-exit.picl \
	testdata/validate/header-processors.picl \
	testdata/validate/message.picl testdata/validate/message-record.picl \
	testdata/validate/statistics.picl \
	testdata/validate/subset.picl testdata/validate/syntax.picl \
	testdata/validate/tachyon.picl testdata/validate/time-order.picl \
	testdata/validate/tracing.picl testdata/validate/unknown.picl
# picltrace validate's rules checked against the spec, one by one
VALIDATE_RULES_E2E = t/e2e/0212-validate-multicast.sh \
	t/e2e/0213-validate-header-records.sh t/e2e/0214-validate-subset-events.sh
TESTS += $(VALIDATE_RULES_E2E)
EXTRA_DIST += $(VALIDATE_RULES_E2E)
# the picltrace commands together: how they name standard output
TOOLS_E2E = t/e2e/0021-short-m.sh t/e2e/0026-stdout-name.sh t/e2e/0027-stdout-take-back.sh t/e2e/0511-merge-unsorted-many.sh \
	t/e2e/0703-filter-pairs-stdin.sh t/e2e/0704-zstd-terminal.sh \
	t/e2e/0720-hostile-inputs.sh t/e2e/0721-hostile-outputs.sh
TESTS += $(TOOLS_E2E)
EXTRA_DIST += $(TOOLS_E2E)
# the library against the format spec, statement by statement
SPEC_E2E = t/e2e/0960-spec-data-fields.sh t/e2e/0965-cr-only-lines.sh \
	t/e2e/0973-process-subset-per-processor.sh t/e2e/0974-numeric-options.sh
TESTS += $(SPEC_E2E)
EXTRA_DIST += $(SPEC_E2E)
