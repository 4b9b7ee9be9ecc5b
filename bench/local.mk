# bench/: benchmarks, built by `make bench`, run by hand (see bench/README.md).
#
# gen-trace is also a check program: `make check` builds it so that tests can
# generate small realistic traces. The others are EXTRA_PROGRAMS, built
# only by `make bench`; picl2otf (the OTF peer for the merge benchmark)
# only when configure found the Open Trace Format library.
check_PROGRAMS += bench/gen-trace
EXTRA_PROGRAMS = bench/baseline-fgets bench/read-bench bench/scan-floor bench/picl2otf

bench_gen_trace_SOURCES = bench/gen-trace.c
bench_gen_trace_CFLAGS = $(AM_CFLAGS) -O2

bench_baseline_fgets_SOURCES = bench/baseline-fgets.c
bench_baseline_fgets_CFLAGS = $(AM_CFLAGS) -O2

bench_read_bench_SOURCES = bench/read-bench.c
bench_read_bench_CFLAGS = $(AM_CFLAGS) -O2
bench_read_bench_LDADD = libpicl-trace/libpicl-trace.la

# the line scanner alone (internal to the library: compiled in)
bench_scan_floor_SOURCES = bench/scan-floor.c libpicl-trace/linevec.c
bench_scan_floor_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/libpicl-trace
bench_scan_floor_CFLAGS = $(AM_CFLAGS) -O2
bench_scan_floor_LDADD = -lpthread

bench_picl2otf_SOURCES = bench/picl2otf.c
bench_picl2otf_CFLAGS = $(AM_CFLAGS) -O2
bench_picl2otf_LDADD = libpicl-trace/libpicl-trace.la $(OTF_LIBS)

CLEANFILES += $(EXTRA_PROGRAMS)
TESTS += t/e2e/0035-gen-trace-output.sh t/e2e/0530-bench-sort-merge.sh
EXTRA_DIST += t/e2e/0035-gen-trace-output.sh t/e2e/0530-bench-sort-merge.sh
EXTRA_DIST += bench/run-read.sh bench/run-sort-merge.sh bench/README.md \
	bench/run-event-cost.sh bench/event-cost.c bench/lttng-tp.c bench/lttng-tp.h \
	bench/run-pingpong.sh bench/mpi-pingpong.c bench/mpi-interleaved.c

BENCH_TARGETS = bench/gen-trace$(EXEEXT) bench/baseline-fgets$(EXEEXT) bench/read-bench$(EXEEXT) \
	bench/scan-floor$(EXEEXT)
if HAVE_OTF
BENCH_TARGETS += bench/picl2otf$(EXEEXT)
endif
.PHONY: bench
bench: $(BENCH_TARGETS) picltrace/picltrace$(EXEEXT)
