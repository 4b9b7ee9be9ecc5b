# lib.sh - shared by the end-to-end tests (t/e2e/*.sh); source it first.
#
# Provides:
#   $PT            the picltrace binary of this build
#   $GEN           the trace generator (bench/gen-trace)
#   $TMP           a private temporary directory, removed at exit
#   $SHARED        ../shared beside the clone (may be absent)
#   need_shared    exit 77 (automake's SKIP) with a message when it is absent
#   run CMD...     run CMD, keeping its stdout, stderr and exit status in
#                  $TMP/out, $TMP/err and $rc
#   expect_rc N    fail unless the last run exited with N
#   expect_out     fail unless stdout equals standard input (a heredoc)
#   expect_err     the same for stderr
#   validate_ok F  `picltrace validate` accepts trace F
#   run_within S CMD...  run, and fail if CMD is not done in S seconds (for
#                  hostile inputs that take a linear time well under S and a
#                  quadratic one well over)
#   fail MSG       report and exit 1
#   need_gnuplot [png]  exit 77 (SKIP) with a message unless $GP (gnuplot:
#                  $GNUPLOT, else on PATH) runs, and with png, has pngcairo
#   is_png FILE    FILE starts with the PNG signature
#   piclrun_setup  $RUN (this build's piclrun) and $EX (its examples); into
#                  $TMP, with an empty $TMP/tmp to point TMPDIR at
set -u

: "${PICL_BUILDDIR:?run through make check}"
PT="$PICL_BUILDDIR/picltrace/picltrace"
GEN="$PICL_BUILDDIR/bench/gen-trace"
SHARED="${PICL_SHARED:-$PICL_SRCDIR/../shared}"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/picl-e2e.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
ntest=0

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

need_shared() {
  if [ ! -d "$SHARED/spec" ]; then
    echo "SKIP: ../shared absent ($SHARED): this test reads the spec's files from there"
    exit 77
  fi
}

run() {
  ntest=$((ntest + 1))
  set +e
  "$@" >"$TMP/out" 2>"$TMP/err"
  rc=$?
  set -e
  last="$*"
}

expect_rc() {
  [ "$rc" -eq "$1" ] || {
    echo "--- stdout"; cat "$TMP/out"; echo "--- stderr"; cat "$TMP/err"
    fail "$last: exit status $rc, expected $1"
  }
}

expect_out() {
  cat >"$TMP/want"
  diff -u "$TMP/want" "$TMP/out" >&2 || fail "$last: unexpected standard output"
}

# validate_ok FILE [OPTION]: `picltrace validate` accepts FILE (exit 0,
# warnings allowed).
validate_ok() {
  run "$PT" validate ${2:-} --max-errors=0 "$1"
  expect_rc 0
}

run_within() {
  limit=$1; shift
  if command -v timeout >/dev/null; then
    run timeout "$limit" "$@"
    [ "$rc" -ne 124 ] || fail "$*: not done in $limit s"
  else
    run "$@"
  fi
}

expect_err() {
  cat >"$TMP/want"
  diff -u "$TMP/want" "$TMP/err" >&2 || fail "$last: unexpected standard error"
}

# mpi_setup: for the libpicl-mpi tests. Skips (exit 77) without mpirun,
# mpicc or the MPI build of libpicl; sets RT (the build's picl-rt), MPIRUN
# (mpirun as root may run it, more ranks than cores, the build's libraries
# and ASAN_OPTIONS passed on) and SANFLAGS (a sanitizer build's library
# needs its programs built with the same sanitizers, so that the ASan
# runtime comes first: the build's own -fsanitize flags). Open MPI keeps
# internal allocations at exit that LeakSanitizer reports (not ours: the
# local-backend tests check our code for leaks), so leaks are not checked.
mpi_setup() {
  RT="$PICL_BUILDDIR/picl-rt"
  MPILIB="$RT/.libs/libpicl-mpi.so"
  command -v mpirun >/dev/null 2>&1 || { echo "SKIP: mpirun not found"; exit 77; }
  command -v mpicc >/dev/null 2>&1 || { echo "SKIP: mpicc not found"; exit 77; }
  [ -f "$MPILIB" ] || { echo "SKIP: no MPI build ($MPILIB absent)"; exit 77; }
  LD_LIBRARY_PATH="$RT/.libs:$PICL_BUILDDIR/libpicl-trace/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export LD_LIBRARY_PATH
  MPIRUN="mpirun --oversubscribe -x LD_LIBRARY_PATH"
  [ -n "${ASAN_OPTIONS:-}" ] && MPIRUN="$MPIRUN -x ASAN_OPTIONS"
  [ "$(id -u)" -ne 0 ] || MPIRUN="$MPIRUN --allow-run-as-root"
  SANFLAGS=$(sed -n 's/^CFLAGS = //p' "$PICL_BUILDDIR/Makefile" | tr ' ' '\n' |
    grep '^-fsanitize' | tr '\n' ' ')
  if [ -n "$SANFLAGS" ]; then
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
    export ASAN_OPTIONS
  fi
}

# mpicc_picl OUT SRC: a PICL program linked with the build's libpicl-mpi
# (after mpi_setup).
mpicc_picl() {
  mpicc $SANFLAGS -I"$PICL_SRCDIR/picl-rt" -o "$1" "$2" -L"$RT/.libs" -lpicl-mpi \
    -Wl,-rpath,"$RT/.libs" || fail "mpicc $2"
}

need_gnuplot() {
  GP="${GNUPLOT:-gnuplot}"
  if ! command -v "$GP" >/dev/null 2>&1; then
    echo "SKIP: gnuplot not found (install gnuplot-nox, or set GNUPLOT)"
    exit 77
  fi
  if [ "${1:-}" = png ] && ! "$GP" -e 'set terminal pngcairo' </dev/null >/dev/null 2>&1; then
    echo "SKIP: $GP has no pngcairo terminal (Debian: gnuplot-nox has it)"
    exit 77
  fi
}

is_png() {
  [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
}

piclrun_setup() {
  RUN="$PICL_BUILDDIR/picl-rt/piclrun"
  EX="$PICL_BUILDDIR/examples"
  cd "$TMP"
  mkdir tmp
}
