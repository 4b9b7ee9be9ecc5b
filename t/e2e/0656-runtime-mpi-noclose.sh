#!/bin/sh
# 0656-runtime-mpi-noclose.sh - libpicl-mpi: a program that returns from
# main without close0 (examples/noclose's "noclose", every rank) fails as
# under piclrun: each rank says it exited without calling close0 and the
# run's exit status is not 0 (it was 0, where piclrun's is 1); its trace
# part is still complete. The same program with close0 ("msgs") exits 0.
#
# Skipped when mpirun, mpicc or the MPI build of libpicl are absent. Every
# run is bounded by `timeout`.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

RT="$PICL_BUILDDIR/picl-rt"
MPILIB="$RT/.libs/libpicl-mpi.so"
command -v mpirun >/dev/null 2>&1 || { echo "SKIP: mpirun not found"; exit 77; }
command -v mpicc >/dev/null 2>&1 || { echo "SKIP: mpicc not found"; exit 77; }
[ -f "$MPILIB" ] || { echo "SKIP: no MPI build ($MPILIB absent)"; exit 77; }

LIBS="$RT/.libs:$PICL_BUILDDIR/libpicl-trace/.libs"
LD_LIBRARY_PATH="$LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
MPIRUN="mpirun --oversubscribe -x LD_LIBRARY_PATH"
[ -n "${ASAN_OPTIONS:-}" ] && MPIRUN="$MPIRUN -x ASAN_OPTIONS"
[ "$(id -u)" -ne 0 ] || MPIRUN="$MPIRUN --allow-run-as-root"

# A sanitizer build's library needs its programs built with the same
# sanitizers; Open MPI's own allocations at exit are not ours to check.
SANFLAGS=$(sed -n 's/^CFLAGS = //p' "$PICL_BUILDDIR/Makefile" | tr ' ' '\n' | grep '^-fsanitize' | tr '\n' ' ')
if [ -n "$SANFLAGS" ]; then
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
  export ASAN_OPTIONS
fi

mpicc $SANFLAGS -I"$PICL_SRCDIR/picl-rt" -o "$TMP/noclose" \
  "$PICL_SRCDIR/examples/noclose.c" -L"$RT/.libs" -lpicl-mpi \
  -Wl,-rpath,"$RT/.libs" || fail "mpicc noclose.c"

# mpirun_in DIR NP ARG...: noclose ARG... on NP ranks in DIR, at most 60 s.
mpirun_in() {
  ntest=$((ntest + 1))
  run_dir=$1 run_np=$2
  shift 2
  mkdir -p "$run_dir"
  set +e
  (cd "$run_dir" && timeout -k 10 60 $MPIRUN -np "$run_np" "$TMP/noclose" "$@") \
    >"$TMP/out" 2>"$TMP/err"
  rc=$?
  set -e
  last="mpirun -np $run_np noclose $*"
}

mpirun_in "$TMP/nc" 3 noclose
[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || fail "$last: the run hung"
[ "$rc" -ne 0 ] || fail "$last: exit status 0: $(cat "$TMP/err")"
for p in 0 1 2; do
  grep -q "^libpicl-mpi: process $p exited without calling close0\$" "$TMP/err" ||
    fail "$last: process $p: $(cat "$TMP/err")"
  f="$TMP/nc/picltrace.$p.picl"
  [ -s "$f" ] || fail "$last: rank $p wrote no part"
  tail -n 1 "$f" | grep -q '^-4 -901 ' || grep -q '^-4 -901 ' "$f" ||
    fail "$last: rank $p's part has no -901 exit"
done

# with close0, no such message and status 0
mpirun_in "$TMP/ok" 2 msgs
expect_rc 0
grep -q "without calling close0" "$TMP/err" && fail "$last: $(cat "$TMP/err")"
echo "ok: $ntest runs"
