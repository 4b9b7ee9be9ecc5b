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

mpi_setup

mpicc_picl "$TMP/noclose" "$PICL_SRCDIR/examples/noclose.c"

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
