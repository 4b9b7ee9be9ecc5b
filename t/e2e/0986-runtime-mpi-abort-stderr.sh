#!/bin/sh
# 0986-runtime-mpi-abort-stderr.sh - what a user of libpicl-mpi sees when
# a PICL error stops an MPI run (picl-mpi(7)): the run's exit status is not
# 0, PICL's own lines ("picl: process N: call: problem": the failing
# rank's reason, and a line from each of the others, failing in their turn)
# are all on standard error, and Open MPI's notice of MPI_Abort comes at
# most once (only the failing rank calls MPI_Abort). Not their order:
# mpirun forwards each rank's standard error on its own, so lines of
# different ranks and its own notice may come in any order. Open MPI's
# notice itself cannot be left out (see picl-mpi(7)): it is neither
# required nor refused here. Skipped without mpirun or the MPI build.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

mpi_setup
mpicc_picl "$TMP/noclose" "$PICL_SRCDIR/examples/noclose.c"

for np in 2 3; do
  mkdir "$TMP/short$np"
  ntest=$((ntest + 1))
  set +e
  (cd "$TMP/short$np" && timeout -k 5 60 $MPIRUN -np $np "$TMP/noclose" short) \
    >"$TMP/out" 2>"$TMP/err"
  rc=$?
  set -e
  [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] ||
    fail "short on $np ranks: exit status $rc: $(cat "$TMP/err")"
  # the lines of the run's processes, without mpirun's own warnings
  grep -v '^\[[^]]*\] Warning: ' "$TMP/err" >"$TMP/err2" || true
  awk -v np=$np '
    /^picl: process [0-9]+: / {
      n++
      if ($0 ~ /^picl: process 1: recv0: message longer than the receive buffer/)
        reason++
      next
    }
    /MPI_ABORT was invoked/ { aborts++ }
    END {
      if (reason != 1) { printf "%d lines of the reason (process 1, recv0), want 1\n", reason; bad = 1 }
      if (n != np) { printf "%d PICL lines, want %d (one per rank)\n", n, np; bad = 1 }
      if (aborts > 1) { printf "%d MPI_Abort notices\n", aborts; bad = 1 }
      exit bad
    }' "$TMP/err2" >"$TMP/msg" ||
    fail "short on $np ranks: $(cat "$TMP/msg") --- stderr: $(cat "$TMP/err")"
done
echo "ok $ntest"
