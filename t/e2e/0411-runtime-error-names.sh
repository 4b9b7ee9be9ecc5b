#!/bin/sh
# 0411-runtime-error-names.sh - a PICL error in the messages PICL sends and
# receives on the program's behalf names the call the program made
# (picl(3): "picl: process N: CALL: problem"; t/rt/error-names.c): a
# collective's, close0's, sync0's, clocksync0's, and the clocksync0 that
# tracenode(..., 1) or open0 makes. They said "wait0", "recv0",
# "receive" or "send", calls the program never made. Under mpirun the
# reason no message can arrive any more no longer blames piclrun, which
# takes no part there.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

RUN="$PICL_BUILDDIR/picl-rt/piclrun"
PROG="$PICL_BUILDDIR/t/rt/error-names"
cd "$TMP"

# named HOW CALL PROCESS...: on 3 nodes, HOW fails (exit status 1), the
# error of each PROCESS names CALL, and none names a call PICL made itself
named() {
  how=$1 call=$2
  shift 2
  run timeout 60 "$RUN" -n 3 --timeout 30 "$PROG" "$how"
  expect_rc 1
  grep '^picl: ' "$TMP/err" >lines || true
  for p in "$@"; do
    grep -q "^picl: process $p: $call: " lines ||
      fail "$last: process $p's error does not name $call: $(cat "$TMP/err")"
  done
  grep -E '^picl: process [0-9]+: (recv0|wait0|receive|send):' lines &&
    fail "$last: an inner call named: $(cat lines)"
  return 0
}

no_more='no message can arrive any more (a process ended or died, or piclrun stopped the run)'

named close0 close0 0 2
grep -q "^picl: process 0: close0: $no_more while it waited for a message from process 1\$" lines ||
  fail "close0: $(cat lines)"
named sync0 sync0 0 2
named clocksync0 clocksync0 0 2
named tracenode tracenode 0 2
named open0 open0 0 2
named gsum0 gsum0 0
grep -q "^picl: process 0: gsum0: $no_more\$" lines || fail "gsum0: $(cat lines)"

# collectives that do not match: a deadlock, which piclrun stops
run timeout 60 "$RUN" -n 3 --timeout 30 "$PROG" mismatch
expect_rc 1
grep -qx 'picl: process 0: gsum0: piclrun stopped the run' "$TMP/err" ||
  fail "$last: $(cat "$TMP/err")"
for p in 1 2; do
  grep -qx "picl: process $p: bcast0: piclrun stopped the run" "$TMP/err" ||
    fail "$last: $(cat "$TMP/err")"
done

# a broadcast longer than a node's buffer: bcast0's error, not recv0's
run timeout 60 "$RUN" -n 3 --timeout 30 "$PROG" short
expect_rc 1
grep -qE '^picl: process [12]: bcast0: process 0 sent 100 bytes, this process expected 10$' "$TMP/err" ||
  fail "$last: $(cat "$TMP/err")"
grep -E '^picl: process [0-9]+: (recv0|wait0|receive|send):' "$TMP/err" &&
  fail "$last: an inner call named"

# send0 to a process that left: send0's error ("send" before)
run timeout 60 "$RUN" -n 3 --timeout 30 "$PROG" send0
expect_rc 1
grep -qE '^picl: process 0: send0: (the destination process has ended or died \(1\)|piclrun stopped the run)$' "$TMP/err" ||
  fail "$last: $(cat "$TMP/err")"

# under mpirun: the same names, and no piclrun in the reason
if command -v mpirun >/dev/null 2>&1 && command -v mpicc >/dev/null 2>&1 &&
   [ -f "$PICL_BUILDDIR/picl-rt/.libs/libpicl-mpi.so" ]; then
  mpi_setup
  mpicc_picl "$TMP/names-mpi" "$PICL_SRCDIR/t/rt/error-names.c"
  mkdir mpi
  cd mpi
  # (not open0: mpirun ends the job when a rank exits before MPI_Init)
  for how in close0 clocksync0; do
    run timeout -k 5 60 $MPIRUN -np 3 "$TMP/names-mpi" $how
    [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] ||
      fail "$last: exit status $rc: $(cat "$TMP/err")"
    for p in 0 2; do
      grep -q "^picl: process $p: $how: no message can arrive any more (a process ended, failed or died)" "$TMP/err" ||
        fail "$last: process $p: $(cat "$TMP/err")"
    done
    grep -q 'piclrun' "$TMP/err" && fail "$last: piclrun named: $(cat "$TMP/err")"
  done
  run timeout -k 5 60 $MPIRUN -np 3 "$TMP/names-mpi" mismatch
  [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] ||
    fail "$last: exit status $rc: $(cat "$TMP/err")"
  grep -q '^picl: process 0: gsum0: deadlock: ' "$TMP/err" ||
    fail "$last: $(cat "$TMP/err")"
  cd ..
else
  echo "note: no mpirun, mpicc or libpicl-mpi: the MPI runs were left out"
fi
echo "ok: $ntest runs"
