#!/bin/sh
# The toolkit as `./configure --prefix=P && make install` leaves it, used
# as a user would, with nothing from the build tree: no PICL_SCHEMA, no
# LD_LIBRARY_PATH, P/bin first on PATH and nothing else set. picl-cc
# compiles and links against the installed header and libpicl (and with
# --mpi, libpicl-mpi, under mpirun); piclrun runs the program and merges
# with the installed picltrace; picltrace finds its schema in P/share;
# every program runs with the installed shared libraries; a user's program
# builds with what the pkg-config modules say; every page of man/ is where
# man looks; and `make uninstall` takes every file away again.
#
# It builds the toolkit once more (one configure, one `make -j2 install`,
# about 25 s on two cores); skipped in a sanitizer build, whose installed
# tools are the same code.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

mk="$PICL_BUILDDIR/Makefile"
mkvar() { sed -n "s/^$1 = //p" "$mk"; }
if mkvar CFLAGS | tr ' ' '\n' | grep -q '^-fsanitize'; then
  echo "SKIP: a sanitizer build (the installed tools are the same code, checked by the plain build)"
  exit 77
fi
for t in make cc pkg-config; do
  command -v $t >/dev/null || { echo "SKIP: $t not found"; exit 77; }
done

P="$TMP/prefix"
B="$TMP/build"
W="$TMP/work"
mkdir "$B" "$W" "$TMP/tmp"
cc_=$(mkvar CC)
mpicc_=$(mkvar MPICC)
gnuplot_=$(mkvar GNUPLOT)
version=$(mkvar PACKAGE_VERSION)

# ---- configure and install, as a user would (the build's compilers, no
# -Werror), outside make check's jobserver --------------------------------
# LT_SYS_LIBRARY_PATH makes P/lib one of the directories libtool takes the
# loader to search by itself, as /usr/local/lib (the default prefix's) is
# on Debian: libtool then gives nothing a run path to it, yet the loader
# finds a library there only once ldconfig has put it in its cache, which
# `make install` does not do (libtool runs ldconfig -n).
start=$(date +%s)
(cd "$B" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u PICL_SCHEMA \
   -u PICL_SRCDIR -u PICL_BUILDDIR -u PICL_SHARED -u DESTDIR \
   "$PICL_SRCDIR/configure" -q --prefix="$P" CC="$cc_" LT_SYS_LIBRARY_PATH="$P/lib" \
   ${mpicc_:+MPICC="$mpicc_"} ${gnuplot_:+GNUPLOT="$gnuplot_"}) \
  >"$TMP/configure.log" 2>&1 || { tail -30 "$TMP/configure.log" >&2; fail "configure --prefix=$P"; }
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u DESTDIR make -C "$B" -j2 install \
  >"$TMP/install.log" 2>&1 || { tail -30 "$TMP/install.log" >&2; fail "make install"; }
echo "configure + make -j2 install: $(($(date +%s) - start)) s"

# Nothing installed names the build or source tree (text files, and the
# programs' and libraries' run paths); $TMP may be below either, so the
# trees' own directories are looked for.
set -- -e "$B" -e "$PICL_SRCDIR/picl-rt" -e "$PICL_SRCDIR/libpicl-trace" \
  -e "$PICL_SRCDIR/schemas" -e "$PICL_BUILDDIR/picl-rt" -e "$PICL_BUILDDIR/libpicl-trace"
for f in "$P"/bin/picl-cc "$P"/lib/pkgconfig/*.pc "$P"/lib/*.la; do
  ! grep -l "$@" "$f" || fail "$f names the build or source tree"
done
if command -v readelf >/dev/null; then
  for f in "$P"/bin/picltrace "$P"/bin/piclrun "$P"/lib/lib*.so; do
    ! readelf -d "$f" | grep -i 'path' | grep "$@" ||
      fail "$f looks for libraries in the build or source tree"
  done
fi

# the user's environment: nothing but the installed programs first on PATH
# (and a TMPDIR of the test's own, which piclrun and gnuplot may use)
user() {
  run env -i PATH="$P/bin:/usr/bin:/bin" HOME="$TMP" TMPDIR="$TMP/tmp" "$@"
}
user_in() { # DIR CMD...: the same, in DIR
  ui_dir=$1; shift
  run env -i -C "$ui_dir" PATH="$P/bin:/usr/bin:/bin" HOME="$TMP" TMPDIR="$TMP/tmp" "$@"
}
cd "$W"

user picltrace --version
expect_rc 0
expect_out <<EOF
picltrace $version
EOF

# ---- picl-cc, piclrun: the local runtime ---------------------------------
user picl-cc --showme "$PICL_SRCDIR/examples/ring.c" -o ring
expect_rc 0
grep -q -- "-I$P/include " "$TMP/out" || fail "picl-cc does not compile with the installed header: $(cat "$TMP/out")"
grep -q -- "-L$P/lib " "$TMP/out" || fail "picl-cc does not link the installed libraries: $(cat "$TMP/out")"
user picl-cc "$PICL_SRCDIR/examples/ring.c" -o ring
expect_rc 0
user piclrun -n 3 -o run.picl ./ring
expect_rc 0
grep -q '^ring: 3 processes' "$TMP/out" || fail "the ring did not run on 3 processes: $(cat "$TMP/out" "$TMP/err")"
[ -s run.picl ] || fail "piclrun wrote no trace"
lines=$(wc -l <run.picl)

# ---- picltrace with the installed schema ---------------------------------
user picltrace validate run.picl
expect_rc 0
expect_out <<EOF
run.picl: $lines records, 0 errors, 0 warnings
EOF
[ ! -s "$TMP/err" ] || fail "validate: $(cat "$TMP/err")"
# (the schema it read is the installed one: without it, validate says so)
mv "$P/share/picl-trace/picl.yaml" "$TMP/picl.yaml"
user picltrace validate run.picl
mv "$TMP/picl.yaml" "$P/share/picl-trace/picl.yaml"
expect_rc 2
grep -q "^picltrace validate: $P/share/picl-trace/picl.yaml: cannot open the schema" "$TMP/err" ||
  fail "validate without the installed schema: $(cat "$TMP/err")"
user picltrace sort -o sorted.picl run.picl
expect_rc 0
[ "$(wc -l <sorted.picl)" -eq "$lines" ] || fail "sort lost or added records"
user picltrace sort --check sorted.picl
expect_rc 0
# (stat warns and leaves the names out without a schema)
user picltrace stat sorted.picl
expect_rc 0
[ ! -s "$TMP/err" ] || fail "stat: $(cat "$TMP/err")"
grep -q "^3 processes on 3 processors; $lines records" "$TMP/out" ||
  fail "stat: $(head -3 "$TMP/out")"
if [ -n "$gnuplot_" ] && command -v "$gnuplot_" >/dev/null &&
   "$gnuplot_" -e 'set terminal pngcairo' </dev/null >/dev/null 2>&1; then
  user picltrace plot -o u.png sorted.picl
  expect_rc 0
  [ ! -s "$TMP/err" ] || fail "plot: $(cat "$TMP/err")"
  is_png u.png || fail "plot -o u.png did not write a PNG"
else
  echo "(no gnuplot with pngcairo: plot not checked)"
fi

# ---- a user's programs through pkg-config --------------------------------
cat >count.c <<'EOF'
#include <picl-trace.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	struct picl_error err;
	struct picl_record rec;
	struct picl_reader *r;
	int st, rc;
	long n = 0;

	if (argc != 2)
		return 2;
	r = picl_reader_open(argv[1], NULL, &st, &err);
	if (!r) {
		char buf[512];
		fprintf(stderr, "%s\n", picl_error_format(&err, buf, sizeof(buf)));
		return 1;
	}
	while ((rc = picl_reader_next(r, &rec)) == PICL_OK)
		n++;
	picl_reader_free(r);
	if (rc != PICL_END)
		return 1;
	printf("%ld\n", n);
	return 0;
}
EOF
pc() { # MODULE CC SRC OUT: built with the module's flags, run path its libdir
  user sh -c "PKG_CONFIG_PATH='$P/lib/pkgconfig'; export PKG_CONFIG_PATH;
    $2 -o '$4' '$3' \$(pkg-config --cflags --libs $1) \
      -Wl,-rpath,\$(pkg-config --variable=libdir $1)"
  [ "$rc" -eq 0 ] || { cat "$TMP/err" >&2; fail "a program built with pkg-config $1 does not build"; }
}
pc picl-trace cc count.c count
user ./count sorted.picl
expect_rc 0
expect_out <<EOF
$lines
EOF
pc picl cc "$PICL_SRCDIR/examples/ring.c" ring-pc
user piclrun -n 2 -o pc.picl ./ring-pc
expect_rc 0
user picltrace validate pc.picl
expect_rc 0

# ---- picl-cc --mpi, picl-mpi.pc and mpirun, when MPI was built ----------
if [ -f "$P/lib/pkgconfig/picl-mpi.pc" ] && command -v mpirun >/dev/null; then
  mpirun="mpirun --oversubscribe"
  [ "$(id -u)" -ne 0 ] || mpirun="$mpirun --allow-run-as-root"
  user picl-cc --mpi "$PICL_SRCDIR/examples/ring.c" -o ring-mpi
  expect_rc 0
  pc picl-mpi "$mpicc_" "$PICL_SRCDIR/examples/ring.c" ring-mpi-pc
  for prog in ring-mpi ring-mpi-pc; do
    mkdir "$prog.d"
    user_in "$prog.d" timeout -k 10 120 $mpirun -np 3 "../$prog"
    expect_rc 0
    grep -q '^ring: 3 processes' "$TMP/out" || fail "$prog: $(cat "$TMP/out" "$TMP/err")"
    user_in "$prog.d" picltrace merge --unsorted -o run.picl \
      picltrace.0.picl picltrace.1.picl picltrace.2.picl
    expect_rc 0
    user picltrace validate "$prog.d/run.picl"
    expect_rc 0
  done
else
  echo "(no MPI build or no mpirun: picl-cc --mpi not checked)"
fi

# ---- every page of man/ where man looks ----------------------------------
if command -v man >/dev/null; then
  for page in "$PICL_SRCDIR"/man/*.[1-8]; do
    page=${page##*/}
    user man -M "$P/share/man" -w "${page##*.}" "${page%.*}"
    expect_rc 0
    case $(cat "$TMP/out") in
      "$P/share/man/"*) ;;
      *) fail "man does not find $page under $P: $(cat "$TMP/out" "$TMP/err")" ;;
    esac
  done
else
  echo "(no man: pages checked by name only)"
  for page in "$PICL_SRCDIR"/man/*.[1-8]; do
    page=${page##*/}
    [ -f "$P/share/man/man${page##*.}/$page" ] || fail "$page is not installed"
  done
fi

# The pages name the schema where this prefix has it, not where the
# default prefix would.
grep -q "$P/share/picl-trace/picl.yaml" "$P/share/man/man5/picl-schema.5" ||
  fail "picl-schema(5) does not name the installed schema $P/share/picl-trace/picl.yaml"
! grep -l /usr/local/share/picl-trace "$P"/share/man/man*/* ||
  fail "an installed page names the default prefix's schema"

# ---- make uninstall leaves no file (as distcheck asks) -------------------
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u DESTDIR make -C "$B" uninstall \
  >"$TMP/uninstall.log" 2>&1 || { tail -30 "$TMP/uninstall.log" >&2; fail "make uninstall"; }
left=$(find "$P" ! -type d | head -20)
[ -z "$left" ] || fail "make uninstall left: $left"
echo "ok: the installed toolkit works from a clean environment, and uninstalls"
