# picl-rt/: libpicl (the PICL API over the local shared-memory backend),
# libpicl-mpi (the same API over MPI), piclrun and picl-cc.
#
# api.c, trace.c and collective.c are the machine-independent layer, built
# once per library; local.c / mpi.c are the backends (backend.h). The
# examples are built for `make check` and run by t/e2e/06NN-runtime-*.sh.

PICL_RT_COMMON = picl-rt/picl.h picl-rt/api.h picl-rt/backend.h picl-rt/trace.h \
	picl-rt/env.h picl-rt/api.c picl-rt/trace.c picl-rt/collective.c

lib_LTLIBRARIES += picl-rt/libpicl.la
include_HEADERS += picl-rt/picl.h
picl_rt_libpicl_la_SOURCES = $(PICL_RT_COMMON) picl-rt/shm.h picl-rt/local.c
picl_rt_libpicl_la_CFLAGS = $(AM_CFLAGS)
picl_rt_libpicl_la_LIBADD = libpicl-trace/libpicl-trace.la
picl_rt_libpicl_la_LDFLAGS = -version-info 0:0:0 -no-undefined $(INSTALLED_RPATH)

if HAVE_MPI
lib_LTLIBRARIES += picl-rt/libpicl-mpi.la
picl_rt_libpicl_mpi_la_SOURCES = $(PICL_RT_COMMON) picl-rt/mpi.c
picl_rt_libpicl_mpi_la_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
picl_rt_libpicl_mpi_la_LIBADD = libpicl-trace/libpicl-trace.la $(MPI_LIBS)
picl_rt_libpicl_mpi_la_LDFLAGS = -version-info 0:0:0 -no-undefined $(INSTALLED_RPATH)
pkgconfig_DATA += picl-rt/picl-mpi.pc
endif

bin_PROGRAMS += picl-rt/piclrun
picl_rt_piclrun_SOURCES = picl-rt/piclrun.c picl-rt/shm.h picl-rt/env.h picl-rt/picl.h
picl_rt_piclrun_CFLAGS = $(AM_CFLAGS) $(ZSTD_CFLAGS)
picl_rt_piclrun_LDADD = $(ZSTD_LIBS)

# picl-cc and the pkg-config files: generated here (not by configure) so
# the paths follow `make prefix=...` as well. picl-rt/picl-cc is the build
# tree's (headers from the source tree, libraries from the build tree: it
# works before `make install`); picl-rt/picl-cc.inst is installed as picl-cc.
noinst_SCRIPTS = picl-rt/picl-cc picl-rt/picl-cc.inst
pkgconfig_DATA += picl-rt/picl.pc
PICL_RT_SUBST = sed \
	-e 's|@prefix[@]|$(prefix)|g' \
	-e 's|@exec_prefix[@]|$(exec_prefix)|g' \
	-e 's|@CC[@]|$(CC)|g' \
	-e 's|@MPICC[@]|$(MPICC)|g' \
	-e 's|@ZSTD_LIBS[@]|$(ZSTD_LIBS)|g' \
	-e 's|@YAML_LIBS[@]|$(YAML_LIBS)|g' \
	-e 's|@PACKAGE_VERSION[@]|$(PACKAGE_VERSION)|g'
PICL_RT_INSTALLED = \
	-e 's|@libdir[@]|$(libdir)|g' \
	-e 's|@tracelibdir[@]|$(libdir)|g' \
	-e 's|@includedir[@]|$(includedir)|g'
picl-rt/picl-cc: picl-rt/picl-cc.in Makefile
	$(AM_V_GEN)$(MKDIR_P) picl-rt && $(PICL_RT_SUBST) \
	  -e 's|@libdir[@]|$(abs_top_builddir)/picl-rt/.libs|g' \
	  -e 's|@tracelibdir[@]|$(abs_top_builddir)/libpicl-trace/.libs|g' \
	  -e 's|@includedir[@]|$(abs_top_srcdir)/picl-rt|g' \
	  $(srcdir)/picl-rt/picl-cc.in >$@.tmp && chmod +x $@.tmp && mv $@.tmp $@
picl-rt/picl-cc.inst: picl-rt/picl-cc.in Makefile
	$(AM_V_GEN)$(MKDIR_P) picl-rt && $(PICL_RT_SUBST) $(PICL_RT_INSTALLED) \
	  $(srcdir)/picl-rt/picl-cc.in >$@.tmp && chmod +x $@.tmp && mv $@.tmp $@
install-exec-local: picl-rt/picl-cc.inst
	$(MKDIR_P) '$(DESTDIR)$(bindir)'
	$(INSTALL_SCRIPT) picl-rt/picl-cc.inst '$(DESTDIR)$(bindir)/picl-cc'
uninstall-local:
	rm -f '$(DESTDIR)$(bindir)/picl-cc'
picl-rt/picl.pc: picl-rt/picl.pc.in Makefile
	$(AM_V_GEN)$(MKDIR_P) picl-rt && $(PICL_RT_SUBST) $(PICL_RT_INSTALLED) $(srcdir)/picl-rt/picl.pc.in >$@
picl-rt/picl-mpi.pc: picl-rt/picl-mpi.pc.in Makefile
	$(AM_V_GEN)$(MKDIR_P) picl-rt && $(PICL_RT_SUBST) $(PICL_RT_INSTALLED) $(srcdir)/picl-rt/picl-mpi.pc.in >$@
CLEANFILES += picl-rt/picl-cc picl-rt/picl-cc.inst picl-rt/picl.pc picl-rt/picl-mpi.pc
EXTRA_DIST += picl-rt/picl-cc.in picl-rt/picl.pc.in picl-rt/picl-mpi.pc.in

dist_man_MANS += man/piclrun.1 man/picl-cc.1 man/picl.3

# Examples: PICL programs built against libpicl for the runtime tests.
PICL_EXAMPLES = examples/table19 examples/ring examples/master-worker \
	examples/stencil examples/allcalls examples/noclose examples/host \
	examples/node examples/exchange examples/pingpong
check_PROGRAMS += $(PICL_EXAMPLES)
# a user schema for the ring's own event type (README, man 5 picl-schema)
EXTRA_DIST += examples/ring.yaml
PICLEX_LDADD_ = picl-rt/libpicl.la
PICLEX_CPPFLAGS_ = $(AM_CPPFLAGS) -I$(srcdir)/picl-rt
PICLEX_LDFLAGS_ = -no-install
examples_table19_SOURCES = examples/table19.c
examples_table19_CPPFLAGS = $(PICLEX_CPPFLAGS_)
examples_table19_LDADD = $(PICLEX_LDADD_)
examples_table19_LDFLAGS = $(PICLEX_LDFLAGS_)
examples_ring_SOURCES = examples/ring.c
examples_ring_CPPFLAGS = $(PICLEX_CPPFLAGS_)
examples_ring_LDADD = $(PICLEX_LDADD_)
examples_ring_LDFLAGS = $(PICLEX_LDFLAGS_)
examples_master_worker_SOURCES = examples/master-worker.c
examples_master_worker_CPPFLAGS = $(PICLEX_CPPFLAGS_)
examples_master_worker_LDADD = $(PICLEX_LDADD_)
examples_master_worker_LDFLAGS = $(PICLEX_LDFLAGS_)
examples_stencil_SOURCES = examples/stencil.c
examples_stencil_CPPFLAGS = $(PICLEX_CPPFLAGS_)
examples_stencil_LDADD = $(PICLEX_LDADD_) -lm
examples_stencil_LDFLAGS = $(PICLEX_LDFLAGS_)
examples_allcalls_SOURCES = examples/allcalls.c
examples_allcalls_CPPFLAGS = $(PICLEX_CPPFLAGS_)
examples_allcalls_LDADD = $(PICLEX_LDADD_)
examples_allcalls_LDFLAGS = $(PICLEX_LDFLAGS_)
examples_noclose_SOURCES = examples/noclose.c
examples_noclose_CPPFLAGS = $(PICLEX_CPPFLAGS_)
examples_noclose_LDADD = $(PICLEX_LDADD_)
examples_noclose_LDFLAGS = $(PICLEX_LDFLAGS_)
examples_host_SOURCES = examples/host.c
examples_host_CPPFLAGS = $(PICLEX_CPPFLAGS_)
examples_host_LDADD = $(PICLEX_LDADD_)
examples_host_LDFLAGS = $(PICLEX_LDFLAGS_)
examples_node_SOURCES = examples/node.c
examples_node_CPPFLAGS = $(PICLEX_CPPFLAGS_)
examples_node_LDADD = $(PICLEX_LDADD_)
examples_node_LDFLAGS = $(PICLEX_LDFLAGS_)
examples_exchange_SOURCES = examples/exchange.c
examples_exchange_CPPFLAGS = $(PICLEX_CPPFLAGS_)
examples_exchange_LDADD = $(PICLEX_LDADD_)
examples_exchange_LDFLAGS = $(PICLEX_LDFLAGS_)
examples_pingpong_SOURCES = examples/pingpong.c
examples_pingpong_CPPFLAGS = $(PICLEX_CPPFLAGS_)
examples_pingpong_LDADD = $(PICLEX_LDADD_)
examples_pingpong_LDFLAGS = $(PICLEX_LDFLAGS_)

# t/rt: programs that check the runtime's own guarantees (exit 1 on a
# breach), run by the runtime tests.
check_PROGRAMS += t/rt/recv-order
t_rt_recv_order_SOURCES = t/rt/recv-order.c
t_rt_recv_order_CPPFLAGS = $(PICLEX_CPPFLAGS_)
t_rt_recv_order_LDADD = $(PICLEX_LDADD_)
t_rt_recv_order_LDFLAGS = $(PICLEX_LDFLAGS_)
check_PROGRAMS += t/rt/before-open
t_rt_before_open_SOURCES = t/rt/before-open.c
t_rt_before_open_CPPFLAGS = $(PICLEX_CPPFLAGS_)
t_rt_before_open_LDADD = $(PICLEX_LDADD_)
t_rt_before_open_LDFLAGS = $(PICLEX_LDFLAGS_)
check_PROGRAMS += t/rt/coll-p2p
t_rt_coll_p2p_SOURCES = t/rt/coll-p2p.c
t_rt_coll_p2p_CPPFLAGS = $(PICLEX_CPPFLAGS_)
t_rt_coll_p2p_LDADD = $(PICLEX_LDADD_)
t_rt_coll_p2p_LDFLAGS = $(PICLEX_LDFLAGS_)
check_PROGRAMS += t/rt/self-send
t_rt_self_send_SOURCES = t/rt/self-send.c
t_rt_self_send_CPPFLAGS = $(PICLEX_CPPFLAGS_)
t_rt_self_send_LDADD = $(PICLEX_LDADD_)
t_rt_self_send_LDFLAGS = $(PICLEX_LDFLAGS_)
check_PROGRAMS += t/rt/trace-files
t_rt_trace_files_SOURCES = t/rt/trace-files.c
t_rt_trace_files_CPPFLAGS = $(PICLEX_CPPFLAGS_)
t_rt_trace_files_LDADD = $(PICLEX_LDADD_)
t_rt_trace_files_LDFLAGS = $(PICLEX_LDFLAGS_)
check_PROGRAMS += t/rt/trace-args
t_rt_trace_args_SOURCES = t/rt/trace-args.c
t_rt_trace_args_CPPFLAGS = $(PICLEX_CPPFLAGS_)
t_rt_trace_args_LDADD = $(PICLEX_LDADD_)
t_rt_trace_args_LDFLAGS = $(PICLEX_LDFLAGS_)
check_PROGRAMS += t/rt/open-close
t_rt_open_close_SOURCES = t/rt/open-close.c
t_rt_open_close_CPPFLAGS = $(PICLEX_CPPFLAGS_)
t_rt_open_close_LDADD = $(PICLEX_LDADD_)
t_rt_open_close_LDFLAGS = $(PICLEX_LDFLAGS_)
check_PROGRAMS += t/rt/api-args
t_rt_api_args_SOURCES = t/rt/api-args.c
t_rt_api_args_CPPFLAGS = $(PICLEX_CPPFLAGS_)
t_rt_api_args_LDADD = $(PICLEX_LDADD_)
t_rt_api_args_LDFLAGS = $(PICLEX_LDFLAGS_)
check_PROGRAMS += t/rt/probe-gone
t_rt_probe_gone_SOURCES = t/rt/probe-gone.c
t_rt_probe_gone_CPPFLAGS = $(PICLEX_CPPFLAGS_)
t_rt_probe_gone_LDADD = $(PICLEX_LDADD_)
t_rt_probe_gone_LDFLAGS = $(PICLEX_LDFLAGS_)
check_PROGRAMS += t/rt/ring-stress
t_rt_ring_stress_SOURCES = t/rt/ring-stress.c
t_rt_ring_stress_CPPFLAGS = $(PICLEX_CPPFLAGS_)
t_rt_ring_stress_LDADD = $(PICLEX_LDADD_)
t_rt_ring_stress_LDFLAGS = $(PICLEX_LDFLAGS_)
check_PROGRAMS += t/rt/deadlock
t_rt_deadlock_SOURCES = t/rt/deadlock.c
t_rt_deadlock_CPPFLAGS = $(PICLEX_CPPFLAGS_)
t_rt_deadlock_LDADD = $(PICLEX_LDADD_)
t_rt_deadlock_LDFLAGS = $(PICLEX_LDFLAGS_)
check_PROGRAMS += t/rt/die-mid
t_rt_die_mid_SOURCES = t/rt/die-mid.c
t_rt_die_mid_CPPFLAGS = $(PICLEX_CPPFLAGS_)
t_rt_die_mid_LDADD = $(PICLEX_LDADD_)
t_rt_die_mid_LDFLAGS = $(PICLEX_LDFLAGS_)
check_PROGRAMS += t/rt/coll-length
t_rt_coll_length_SOURCES = t/rt/coll-length.c
t_rt_coll_length_CPPFLAGS = $(PICLEX_CPPFLAGS_)
t_rt_coll_length_LDADD = $(PICLEX_LDADD_)
t_rt_coll_length_LDFLAGS = $(PICLEX_LDFLAGS_)
check_PROGRAMS += t/rt/tracedata-big
t_rt_tracedata_big_SOURCES = t/rt/tracedata-big.c
t_rt_tracedata_big_CPPFLAGS = $(PICLEX_CPPFLAGS_)
t_rt_tracedata_big_LDADD = $(PICLEX_LDADD_)
t_rt_tracedata_big_LDFLAGS = $(PICLEX_LDFLAGS_)
check_PROGRAMS += t/rt/error-names
t_rt_error_names_SOURCES = t/rt/error-names.c
t_rt_error_names_CPPFLAGS = $(PICLEX_CPPFLAGS_)
t_rt_error_names_LDADD = $(PICLEX_LDADD_)
t_rt_error_names_LDFLAGS = $(PICLEX_LDFLAGS_)
check_PROGRAMS += t/rt/recv-unended
t_rt_recv_unended_SOURCES = t/rt/recv-unended.c
t_rt_recv_unended_CPPFLAGS = $(PICLEX_CPPFLAGS_)
t_rt_recv_unended_LDADD = $(PICLEX_LDADD_)
t_rt_recv_unended_LDFLAGS = $(PICLEX_LDFLAGS_)
check_PROGRAMS += t/rt/trace-alloc
t_rt_trace_alloc_SOURCES = t/rt/trace-alloc.c
t_rt_trace_alloc_CPPFLAGS = $(PICLEX_CPPFLAGS_)
t_rt_trace_alloc_LDADD = $(PICLEX_LDADD_)
t_rt_trace_alloc_LDFLAGS = $(PICLEX_LDFLAGS_)

RUNTIME_TESTS = t/e2e/0600-runtime-table19.sh t/e2e/0610-runtime-ring.sh \
	t/e2e/0615-runtime-piclrun.sh t/e2e/0616-runtime-scale.sh \
	t/e2e/0620-runtime-faults.sh t/e2e/0625-runtime-trace-faults.sh \
	t/e2e/0630-runtime-calls.sh \
	t/e2e/0635-runtime-order.sh t/e2e/0645-runtime-coll-p2p.sh \
	t/e2e/0645-runtime-trace-args.sh t/e2e/0655-runtime-api-args.sh \
	t/e2e/0409-runtime-coll-length.sh t/e2e/0410-runtime-tracedata-big.sh \
	t/e2e/0411-runtime-error-names.sh t/e2e/0412-runtime-void-buffers.sh \
	t/e2e/0413-runtime-trace-alloc.sh t/e2e/0414-runtime-env-values.sh \
	t/e2e/0415-runtime-open-close-twice.sh t/e2e/0416-runtime-recv-unended.sh
# the local engine: probing after the peers ended, a full /dev/shm,
# piclrun killed (also before its processes start), what its trace says
# it is
LOCAL_ENGINE_TESTS = t/e2e/0660-runtime-probe-gone.sh \
	t/e2e/0667-runtime-deadlock.sh \
	t/e2e/0661-runtime-shm-full.sh t/e2e/0662-runtime-killed.sh \
	t/e2e/0900-runtime-killed-early.sh t/e2e/0901-runtime-parts-dir.sh \
	t/e2e/0902-runtime-trace-lost.sh t/e2e/0903-runtime-parts-dir-busy.sh \
	t/e2e/0910-runtime-identity.sh
# the rings under load: many processes on few cores, small rings
LOCAL_ENGINE_TESTS += t/e2e/0990-runtime-ring-stress.sh \
	t/e2e/0992-runtime-one-cpu.sh \
	t/e2e/0993-runtime-spin-syscalls.sh t/e2e/0994-runtime-die-mid.sh \
	t/e2e/0995-runtime-picl-cc.sh t/e2e/0997-runtime-prog-here.sh \
	t/e2e/0998-runtime-empty-names.sh t/e2e/0999-runtime-out-in-parts.sh \
	t/e2e/0989-runtime-tmpdir-missing.sh t/e2e/0663-runtime-interrupt.sh \
	t/e2e/0664-runtime-crash.sh t/e2e/0670-runtime-part-pipe.sh
RUNTIME_TESTS += $(LOCAL_ENGINE_TESTS)
# the records libpicl writes against the format report's tables (098x)
RUNTIME_TESTS += t/e2e/0980-runtime-flush-length.sh \
	t/e2e/0981-runtime-tracemsg-order.sh t/e2e/0982-runtime-spec-tables.sh \
	t/e2e/0983-runtime-host-open0.sh t/e2e/0984-runtime-tracemsg-level.sh \
	t/e2e/0985-runtime-coll-labels.sh t/e2e/0987-runtime-clocksync-later.sh \
	t/e2e/0666-runtime-host-clocksync.sh
# libpicl-mpi across machines: a cluster of Linux namespaces (root, Open
# MPI; else SKIP)
RUNTIME_TESTS += t/e2e/0988-runtime-mpi-hosts.sh
TESTS += $(RUNTIME_TESTS)
EXTRA_DIST += $(RUNTIME_TESTS)

# tracing layer tests
# test-trace links trace.c itself with a stand-in communication layer
# (t/unit/stub-backend.c), so it needs neither api.c nor a backend.
check_PROGRAMS += t/unit/test-trace
t_unit_test_trace_SOURCES = t/unit/test-trace.c t/unit/stub-backend.c \
	picl-rt/trace.c picl-rt/trace.h picl-rt/api.h picl-rt/env.h picl-rt/picl.h
t_unit_test_trace_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/picl-rt
t_unit_test_trace_CFLAGS = $(UNIT_CFLAGS)
t_unit_test_trace_LDADD = $(UNIT_LDADD) -lm
TESTS += t/unit/test-trace

# MPI backend tests
# t/e2e/0650-runtime-mpi.sh runs PICL programs under mpirun against
# libpicl-mpi; it reports SKIP when mpirun or the MPI build is absent.
# t/e2e/0986-runtime-mpi-abort-stderr.sh: what a PICL error shows on
# standard error under mpirun.
# picl-mpi(7): building, running and merging under MPI.
# t/e2e/0665-runtime-mpi-interrupt.sh: Ctrl-C at mpirun, a rank's crash:
# every rank's part written from its signal handler.
# t/e2e/0668-runtime-mpi-deadlock.sh: a deadlock found by the ranks.
TESTS += t/e2e/0650-runtime-mpi.sh t/e2e/0656-runtime-mpi-noclose.sh \
	t/e2e/0986-runtime-mpi-abort-stderr.sh t/e2e/0996-runtime-wrong-launcher.sh \
	t/e2e/0665-runtime-mpi-interrupt.sh t/e2e/0668-runtime-mpi-deadlock.sh
EXTRA_DIST += t/e2e/0650-runtime-mpi.sh t/e2e/0656-runtime-mpi-noclose.sh \
	t/e2e/0986-runtime-mpi-abort-stderr.sh t/e2e/0996-runtime-wrong-launcher.sh \
	t/e2e/0665-runtime-mpi-interrupt.sh t/e2e/0668-runtime-mpi-deadlock.sh
dist_man_MANS += man/picl-mpi.7

# collectives tests
# examples/collectives checks every collective of collective.c (all roots,
# datatypes and architectures) on N processes and exits 1 on a wrong
# result; t/e2e/0640-runtime-collectives.sh runs it under piclrun for
# N = 1, 2, 3, 5, 8 and validates the traces.
check_PROGRAMS += examples/collectives
examples_collectives_SOURCES = examples/collectives.c
examples_collectives_CPPFLAGS = $(PICLEX_CPPFLAGS_)
examples_collectives_LDADD = $(PICLEX_LDADD_)
examples_collectives_LDFLAGS = $(PICLEX_LDFLAGS_)
TESTS += t/e2e/0640-runtime-collectives.sh
EXTRA_DIST += t/e2e/0640-runtime-collectives.sh
