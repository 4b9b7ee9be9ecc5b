# fuzz/: libFuzzer targets, one per parser, one for the message matcher
# and one for the statistics accumulator (both fed by the reader), one comparing the parsing threads with the serial
# reader, one for the picltrace commands as a whole, and a replay driver.
#
#   make fuzz            build fuzz/fuzz-{reader,descriptor,schema,match,stats,parallel,linevec,
#                        commands,limits} with
#                        clang -fsanitize=fuzzer,address,undefined
#   fuzz/fuzz-reader -max_total_time=600 fuzz/corpus/reader
#
# `make check` runs each target over its committed corpus with the normal
# compiler (fuzz/replay.c), so a fixed crash stays fixed without clang.
FUZZ_TARGETS = reader descriptor schema match stats parallel linevec commands limits
FUZZ_LIBFILES = $(addprefix $(srcdir)/,$(filter %.c,$(libpicl_trace_libpicl_trace_la_SOURCES)))
CLANG ?= clang
# (PICL_MATCH_SELFCHECK: the matcher checks its own memory accounting)
FUZZ_FLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I$(srcdir)/libpicl-trace -I$(builddir) \
	-DPICL_MATCH_SELFCHECK -DFUZZ_SCHEMA_FILE='"$(abs_top_srcdir)/schemas/picl.yaml"'

check_PROGRAMS += fuzz/replay-reader fuzz/replay-descriptor
fuzz_replay_reader_SOURCES = fuzz/replay.c fuzz/fuzz-reader.c
fuzz_replay_reader_CPPFLAGS = $(AM_CPPFLAGS) -DCORPUS_DIR='"$(abs_top_srcdir)/fuzz/corpus/reader"'
fuzz_replay_reader_LDADD = libpicl-trace/libpicl-trace.la
# (with the library's sources: it calls picl_descriptor_decode_quick, which
# the shared library keeps to itself)
fuzz_replay_descriptor_SOURCES = fuzz/replay.c fuzz/fuzz-descriptor.c \
	$(libpicl_trace_libpicl_trace_la_SOURCES)
fuzz_replay_descriptor_CPPFLAGS = $(AM_CPPFLAGS) -DCORPUS_DIR='"$(abs_top_srcdir)/fuzz/corpus/descriptor"'
fuzz_replay_descriptor_CFLAGS = $(libpicl_trace_libpicl_trace_la_CFLAGS)
fuzz_replay_descriptor_LDADD = $(libpicl_trace_libpicl_trace_la_LIBADD)
check_PROGRAMS += fuzz/replay-schema
fuzz_replay_schema_SOURCES = fuzz/replay.c fuzz/fuzz-schema.c
fuzz_replay_schema_CPPFLAGS = $(AM_CPPFLAGS) -DCORPUS_DIR='"$(abs_top_srcdir)/fuzz/corpus/schema"' \
	-DFUZZ_SCHEMA_FILE='"$(abs_top_srcdir)/schemas/picl.yaml"'
fuzz_replay_schema_LDADD = libpicl-trace/libpicl-trace.la
check_PROGRAMS += fuzz/replay-match
# (with the library's sources, built to check the matcher's accounting)
fuzz_replay_match_SOURCES = fuzz/replay.c fuzz/fuzz-match.c \
	$(libpicl_trace_libpicl_trace_la_SOURCES)
fuzz_replay_match_CPPFLAGS = $(AM_CPPFLAGS) -DCORPUS_DIR='"$(abs_top_srcdir)/fuzz/corpus/match"' \
	-DPICL_MATCH_SELFCHECK
fuzz_replay_match_CFLAGS = $(libpicl_trace_libpicl_trace_la_CFLAGS)
fuzz_replay_match_LDADD = $(libpicl_trace_libpicl_trace_la_LIBADD)
check_PROGRAMS += fuzz/replay-stats
fuzz_replay_stats_SOURCES = fuzz/replay.c fuzz/fuzz-stats.c
fuzz_replay_stats_CPPFLAGS = $(AM_CPPFLAGS) -DCORPUS_DIR='"$(abs_top_srcdir)/fuzz/corpus/stats"'
fuzz_replay_stats_LDADD = libpicl-trace/libpicl-trace.la
check_PROGRAMS += fuzz/replay-parallel
fuzz_replay_parallel_SOURCES = fuzz/replay.c fuzz/fuzz-parallel.c
fuzz_replay_parallel_CPPFLAGS = $(AM_CPPFLAGS) -DCORPUS_DIR='"$(abs_top_srcdir)/fuzz/corpus/parallel"'
fuzz_replay_parallel_LDADD = libpicl-trace/libpicl-trace.la
check_PROGRAMS += fuzz/replay-linevec
fuzz_replay_linevec_SOURCES = fuzz/replay.c fuzz/fuzz-linevec.c fuzz/linevec-ref.h \
	libpicl-trace/linevec.c
fuzz_replay_linevec_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/libpicl-trace \
	-DCORPUS_DIR='"$(abs_top_srcdir)/fuzz/corpus/linevec"'
TESTS += fuzz/replay-reader fuzz/replay-descriptor fuzz/replay-schema fuzz/replay-match \
	fuzz/replay-stats fuzz/replay-parallel fuzz/replay-linevec
EXTRA_DIST += fuzz/corpus fuzz/slurp.h

fuzz: $(FUZZ_TARGETS:%=fuzz/fuzz-%)
fuzz/fuzz-%: $(srcdir)/fuzz/fuzz-%.c $(FUZZ_LIBFILES)
	@$(MKDIR_P) fuzz
	$(CLANG) $(FUZZ_FLAGS) $< $(FUZZ_LIBFILES) $(ZSTD_LIBS) $(YAML_LIBS) -lm -pthread -o $@
CLEANFILES += $(FUZZ_TARGETS:%=fuzz/fuzz-%)
.PHONY: fuzz

# The picltrace commands as a whole (fuzz-commands.c): their sources but
# picltrace.c's main (a command added to picltrace goes here too).
FUZZ_CMDSOURCES = picltrace/util.c picltrace/limits.c picltrace/cmd-cat.c libpicl-trace/cmd-validate.c \
	picltrace/cmd-filter.c sort-merge/runs.c sort-merge/defs.c sort-merge/msort.c \
	sort-merge/cmd-sort.c sort-merge/cmd-merge.c sort-merge/cmd-sync.c sort-merge/clock.c stats/cmd-stat.c \
	stats/cmd-plot.c stats/profile.c
fuzz/fuzz-commands: $(srcdir)/fuzz/fuzz-commands.c $(srcdir)/fuzz/slurp.h $(FUZZ_LIBFILES) \
		$(addprefix $(srcdir)/,$(FUZZ_CMDSOURCES))
	@$(MKDIR_P) fuzz
	$(CLANG) $(FUZZ_FLAGS) -I$(srcdir)/picltrace \
		-DFUZZ_SCHEMA='"$(abs_top_srcdir)/schemas/picl.yaml"' $(PCRE2_CFLAGS) \
		$< $(FUZZ_LIBFILES) $(addprefix $(srcdir)/,$(FUZZ_CMDSOURCES)) \
		$(PCRE2_LIBS) $(ZSTD_LIBS) $(YAML_LIBS) -lm -pthread -o $@
check_PROGRAMS += fuzz/replay-commands
fuzz_replay_commands_SOURCES = fuzz/replay.c fuzz/fuzz-commands.c $(FUZZ_CMDSOURCES)
fuzz_replay_commands_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/picltrace \
	-DCORPUS_DIR='"$(abs_top_srcdir)/fuzz/corpus/commands"' \
	-DFUZZ_SCHEMA='"$(abs_top_srcdir)/schemas/picl.yaml"'
fuzz_replay_commands_CFLAGS = $(AM_CFLAGS) $(PCRE2_CFLAGS)
fuzz_replay_commands_LDADD = $(picltrace_picltrace_LDADD)
TESTS += fuzz/replay-commands

# The memory cgroup's look-up of picltrace --resources and the default
# --memory (picltrace/limits.c): /proc/self/cgroup and mountinfo as given.
fuzz/fuzz-limits: $(srcdir)/fuzz/fuzz-limits.c $(FUZZ_LIBFILES) $(srcdir)/picltrace/limits.c
	@$(MKDIR_P) fuzz
	$(CLANG) $(FUZZ_FLAGS) -I$(srcdir)/picltrace $< $(srcdir)/picltrace/limits.c \
		$(FUZZ_LIBFILES) $(ZSTD_LIBS) $(YAML_LIBS) -lm -pthread -o $@
check_PROGRAMS += fuzz/replay-limits
fuzz_replay_limits_SOURCES = fuzz/replay.c fuzz/fuzz-limits.c picltrace/limits.c
fuzz_replay_limits_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/picltrace \
	-DCORPUS_DIR='"$(abs_top_srcdir)/fuzz/corpus/limits"'
fuzz_replay_limits_LDADD = libpicl-trace/libpicl-trace.la
TESTS += fuzz/replay-limits
