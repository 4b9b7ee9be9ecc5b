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

# install_lib: the library, its header and picl-trace.pc installed below
# $dest ($TMP/inst) where make install would put them (libtool installs
# the library alone, so nothing is relinked in the build tree while other
# tests run), and pkg-config pointed there. Skips (77) without a shared
# libpicl-trace, pkg-config or a C compiler. Sets cc ($CC or cc), la, pc,
# so, dest, libdir, includedir, cflags and libs (pkg-config's), and san
# (the -fsanitize option a program of a sanitizer build's library needs).
install_lib() {
  la="$PICL_BUILDDIR/libpicl-trace/libpicl-trace.la"
  pc="$PICL_BUILDDIR/libpicl-trace/picl-trace.pc"
  so=
  for f in "$PICL_BUILDDIR"/libpicl-trace/.libs/libpicl-trace.so.*.*.*; do
    [ -f "$f" ] && so=$f
  done
  if [ ! -f "$la" ] || [ ! -f "$pc" ] || [ -z "$so" ]; then
    echo "SKIP: no shared libpicl-trace or picl-trace.pc in this build"
    exit 77
  fi
  if ! command -v pkg-config >/dev/null; then
    echo "SKIP: pkg-config is missing"
    exit 77
  fi
  cc=${CC:-cc}
  if ! command -v "${cc%% *}" >/dev/null; then
    echo "SKIP: no C compiler ($cc)"
    exit 77
  fi
  libdir=$(pkg-config --variable=libdir "$pc")
  includedir=$(pkg-config --variable=includedir "$pc")
  dest="$TMP/inst"
  mkdir -p "$dest$libdir/pkgconfig" "$dest$includedir"
  "$PICL_BUILDDIR/libtool" --quiet --mode=install install -c "$la" "$dest$libdir" \
    >"$TMP/install.log" 2>&1 || { cat "$TMP/install.log" >&2; fail "libtool could not install $la"; }
  cp "$PICL_SRCDIR/libpicl-trace/picl-trace.h" "$dest$includedir/"
  cp "$pc" "$dest$libdir/pkgconfig/"
  PKG_CONFIG_PATH="$dest$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  PKG_CONFIG_SYSROOT_DIR="$dest"
  export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
  cflags=$(pkg-config --cflags picl-trace) || fail "pkg-config --cflags picl-trace failed"
  libs=$(pkg-config --libs picl-trace) || fail "pkg-config --libs picl-trace failed"
  san=
  if nm -D "$so" 2>/dev/null | grep -q ' U __asan_'; then
    san="-fsanitize=address"
    nm -D "$so" | grep -q ' U __ubsan_' && san="$san,undefined"
  fi
}

# picl_cc OUT SRC: SRC built with picl-cc as OUT, with the build's CFLAGS
# and LDFLAGS (a sanitizer build's libpicl needs its programs built with
# the same -fsanitize options, so that the ASan runtime comes first).
picl_cc() {
  pc_cflags=$(sed -n 's/^CFLAGS = //p' "$PICL_BUILDDIR/Makefile")
  pc_ldflags=$(sed -n 's/^LDFLAGS = //p' "$PICL_BUILDDIR/Makefile")
  run "$PICL_BUILDDIR/picl-rt/picl-cc" $pc_cflags $pc_ldflags "$2" -o "$1"
  expect_rc 0
}

# in_place_refusals CMD FILE OTHER [ARGS...]: CMD --in-place is refused
# as sort refuses it (exit 2, sort's words): with no input, with standard
# input, with two inputs (FILE and OTHER), with --output; a FIFO; and
# CMD ARGS -o FILE FILE (the output also an input) leaves FILE as it was.
in_place_refusals() {
  ipr_cmd=$1 ipr_file=$2 ipr_other=$3
  shift 3
  for ipr_args in "--in-place" "--in-place -" "--in-place $ipr_file $ipr_other" \
                  "--in-place -o x.picl $ipr_file"; do
    case $ipr_args in
    "--in-place" | "--in-place -") ipr_msg="--in-place needs a FILE, not standard input" ;;
    *) ipr_msg="--in-place takes exactly one input file and no --output" ;;
    esac
    for ipr_c in "$ipr_cmd" sort; do
      run "$PT" $ipr_c $ipr_args
      expect_rc 2
      expect_err <<T
picltrace $ipr_c: $ipr_msg
T
    done
  done
  mkfifo fifo
  run "$PT" "$ipr_cmd" --in-place fifo
  expect_rc 2
  expect_err <<T
picltrace $ipr_cmd: fifo: --in-place needs a regular file, not a FIFO
T
  rm -f fifo
  cp "$ipr_file" same.picl
  run "$PT" "$ipr_cmd" "$@" -o same.picl same.picl
  expect_rc 2
  expect_err <<T
picltrace $ipr_cmd: same.picl: the output is also an input; use --in-place to replace it
T
  cmp -s same.picl "$ipr_file" || fail "$last changed its input"
  rm -f same.picl
}

# need_script: skips (77) when script(1) cannot give the commands a
# terminal here (its typescript goes to a file of ours, never to a device).
need_script() {
  if ! command -v script >"$TMP/which" 2>&1 ||
     ! script -qec true "$TMP/typescript" >"$TMP/which" 2>&1; then
    echo "SKIP: script(1) cannot give the commands a terminal here"
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

# run_timed CMD...: run CMD under `timeout -k 5 60` (a hung run ends with
# status 124, or 137); elapsed is the whole seconds it took.
run_timed() {
  t0=$(date +%s)
  run timeout -k 5 60 "$@"
  elapsed=$(($(date +%s) - t0))
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
  SANFLAGS=$(sed -n 's/^CFLAGS = //p' "$PICL_BUILDDIR/Makefile" | tr ' ' '\n' |
    grep '^-fsanitize' | tr '\n' ' ')
  if [ -n "$SANFLAGS" ]; then
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
    export ASAN_OPTIONS
  fi
  # (-x after the line above: ranks on another machine get only what -x
  # names, not mpirun's environment)
  MPIRUN="mpirun --oversubscribe -x LD_LIBRARY_PATH"
  [ -n "${ASAN_OPTIONS:-}" ] && MPIRUN="$MPIRUN -x ASAN_OPTIONS"
  [ "$(id -u)" -ne 0 ] || MPIRUN="$MPIRUN --allow-run-as-root"
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

# record_meaning FILE...: what each record of the files means, one line
# each, sorted (so that records compare whatever their order): its fields
# with the descriptor resolved to a control string where the record stands
# and subset ids as their members (for the scopes of sort's and merge's
# definition tests: exact values and -1); definitions and headers left out.
record_meaning() {
  for rm_f in "$@"; do
    awk '
BEGIN { split("%c %s %d %ld %f %lf", pre, " ") }
$1 == -6 { n++; A[n] = $8; E[n] = $2; P[n] = $4; Q[n] = $5; C[n] = $9; next }
$1 <= -201 && $1 >= -203 {
  m = ""; for (i = 9; i <= NF; i++) m = m " " $i; S[$1, $8] = "{" m " }"; next
}
$1 <= -301 { next }
{
  if (NF >= 7 && $6 != 0 && $7 !~ /^"/) {
    d = $7; best = -1; ctl = (d >= 0 && d <= 5) ? "\"" pre[d + 1] "\"" : "undefined"
    for (k = 1; k <= n; k++) {
      if (A[k] != d || !((E[k] == -1 || E[k] == $2) && (P[k] == -1 || P[k] == $4) &&
                         (Q[k] == -1 || Q[k] == $5)))
        continue
      s = (E[k] != -1) + (P[k] != -1) + (Q[k] != -1)
      if (s >= best) { best = s; ctl = C[k] }
    }
    $7 = ctl
  }
  if ($4 < -1) $4 = S[-201, $4]
  if ($5 < -1) $5 = S[-202, $5]
  print
}' "$rm_f"
  done | LC_ALL=C sort
}

# same_meaning OUT IN...: OUT reads back (picltrace cat) and its records
# mean what the inputs' did (record_meaning); the inputs use no undefined
# alias. Writes m.in and m.out in the current directory.
same_meaning() {
  sm_out=$1
  shift
  run "$PT" cat "$sm_out"
  expect_rc 0
  record_meaning "$@" >m.in
  record_meaning "$sm_out" >m.out
  diff -u m.in m.out >&2 || fail "$last: records changed meaning"
  ! grep -q undefined m.in || fail "test inputs use an undefined alias"
}
