#!/bin/sh
# 0668-runtime-mpi-deadlock.sh - libpicl-mpi finds a deadlock (every rank
# waiting for a message, none on its way) by itself, where an MPI run
# once hung for ever: each rank's wait fails "deadlock: ...", saying what
# it waited for and what it was sent and never received, and the run
# stops. Runs that only wait for a rank still computing are no deadlock,
# also when every message sent has been received but by that rank, whose
# report to rank 0 is then stale (t/rt/deadlock stale: rank 0 asks, and
# must not take silence for a yes), and messages never received are said
# at close0 as under piclrun. PICL_MPI_DEADLOCK=report only says it.
# (The timeout wrapper bounds each run: without the detection it is what
# would stop it.)
#
# Skipped when mpirun, mpicc or the MPI build of libpicl are absent.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

mpi_setup
mpicc_picl "$TMP/deadlock" "$PICL_SRCDIR/t/rt/deadlock.c"
cd "$TMP"

# mpi NP MODE...: the program under mpirun (with the options in MPIX
# before -np), timed
MPIX=
mpi() {
  np=$1; shift
  run_timed $MPIRUN $MPIX -np "$np" "$TMP/deadlock" "$@"
  [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || fail "$last: hung ($(cat "$TMP/err"))"
}

dead_msg="deadlock: every process waits for a message, and none is on its way"

mpi 2 types
[ "$rc" -ne 0 ] || fail "$last: exit status 0"
[ "$elapsed" -lt 20 ] || fail "$last: took $elapsed s"
grep -q "^picl: process 0: recv0: $dead_msg while it waited for a message of type 7$" \
  "$TMP/err" || fail "$last: $(cat "$TMP/err")"
grep -q "^picl: process 1: recv0: $dead_msg while it waited for a message of type 5; not received: 1 message, of type 6 from process 0$" \
  "$TMP/err" || fail "$last: $(cat "$TMP/err")"

# one rank in close0's barrier, the other in recv0; traced: the parts say it
mkdir close && cd close
mpi 2 close trace
cd ..
[ "$rc" -ne 0 ] || fail "$last: exit status 0"
grep -q "^picl: process 1: recv0: $dead_msg while it waited for a message of type 5$" \
  "$TMP/err" || fail "$last: $(cat "$TMP/err")"
grep -q -- "^-7 -911 .* 1 0 .*picl: recv0: $dead_msg while it waited for a message of type 5$" \
  close/picltrace.1.picl || fail "rank 1's part does not say it"

# the nodes deadlocked after the host's close0 (PICL_MPI_HOST=1: the last
# rank is the host, which waits in close0 for the nodes to leave)
MPIX="-x PICL_MPI_HOST=1 -x DEADLOCK_HOST_CLOSES=1"
mpi 3 types
MPIX=
[ "$rc" -ne 0 ] || fail "$last: exit status 0"
[ "$elapsed" -lt 20 ] || fail "$last: took $elapsed s"
grep -q "^picl: process 1: recv0: $dead_msg while it waited for a message of type 5; not received: 1 message, of type 6 from process 0$" \
  "$TMP/err" || fail "$last: $(cat "$TMP/err")"

# no deadlock: a rank computes 2 s before it sends; the stale report
for how in "2 late" "3 stale"; do
  mpi $how
  expect_rc 0
  ! grep -q deadlock "$TMP/err" || fail "$last: $(cat "$TMP/err")"
done

# PICL_MPI_DEADLOCK=report: said once by rank 0, the ranks left waiting
# until mpirun's --timeout ends the run
MPIX="-x PICL_MPI_DEADLOCK=report --timeout 6"
mpi 2 types
MPIX=
[ "$rc" -ne 0 ] || fail "$last: exit status 0"
[ "$elapsed" -ge 6 ] || fail "$last: ended after $elapsed s: $(cat "$TMP/err")"
[ "$(grep -c "^libpicl-mpi: deadlock: every process waits for a message, and none is on its way; they are left waiting (PICL_MPI_DEADLOCK=report)$" "$TMP/err")" -eq 1 ] ||
  fail "$last: $(cat "$TMP/err")"
! grep -q "^picl: process .*: $dead_msg" "$TMP/err" || fail "$last: $(cat "$TMP/err")"

# messages never received, said at close0
mpi 2 leftover
expect_rc 0
grep -q "^picl: process 1: close0: 2 messages sent to this process were never received, the first of type 6 from process 0$" \
  "$TMP/err" || fail "$last: $(cat "$TMP/err")"
echo "ok: $ntest runs"
