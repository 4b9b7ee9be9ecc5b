# libpicl-trace/: the library every tool reads and writes through.
lib_LTLIBRARIES += libpicl-trace/libpicl-trace.la
include_HEADERS += libpicl-trace/picl-trace.h
pkgconfig_DATA += libpicl-trace/picl-trace.pc
dist_man_MANS += man/libpicl-trace.3

libpicl_trace_libpicl_trace_la_SOURCES = \
	libpicl-trace/internal.h \
	libpicl-trace/editdist.h \
	libpicl-trace/fdio.h \
	libpicl-trace/grow.h \
	libpicl-trace/input.h \
	libpicl-trace/intmap.h \
	libpicl-trace/openindex.h \
	libpicl-trace/pow10.h \
	libpicl-trace/reader-int.h \
	libpicl-trace/linevec.h \
	libpicl-trace/linevec.c \
	libpicl-trace/parallel.c \
	libpicl-trace/status.c \
	libpicl-trace/time.c \
	libpicl-trace/input.c \
	libpicl-trace/defs.c \
	libpicl-trace/reader.c \
	libpicl-trace/writer.c \
	libpicl-trace/output.c \
	libpicl-trace/match.c
# descriptor compiler
libpicl_trace_libpicl_trace_la_SOURCES += libpicl-trace/descriptor.c
# statistics
libpicl_trace_libpicl_trace_la_SOURCES += libpicl-trace/stats.c
# schema
libpicl_trace_libpicl_trace_la_SOURCES += libpicl-trace/schema.c

libpicl_trace_libpicl_trace_la_CFLAGS = $(AM_CFLAGS) -pthread $(ZSTD_CFLAGS) $(YAML_CFLAGS)
libpicl_trace_libpicl_trace_la_LIBADD = $(ZSTD_LIBS) $(YAML_LIBS) -lm -lpthread
# Only the public API is exported: what the files share among themselves
# is declared hidden (internal.h, input.h, reader-int.h) and the rest must
# match picl_*, so nothing else enters users' namespace (t/e2e/0005-exports
# checks that each exported symbol is in picl-trace.h). Calls inside the
# library bind to its own functions, with no PLT in between: the parsing
# threads call across files on every record.
libpicl_trace_libpicl_trace_la_LDFLAGS = -version-info 0:0:0 -no-undefined \
	-export-symbols-regex '^picl_' -Wl,-Bsymbolic-functions
