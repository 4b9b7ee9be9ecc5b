#!/bin/sh
# 0416-runtime-recv-unended.sh - a receive begun with recvbegin0 and never
# ended (recvend0, recvstatus0) by close0 is said at close0, on standard
# error and in a -7 record, as a message never received is ("picl:
# process 1: close0: 2 receives begun with recvbegin0 were never ended,
# the first of type 5"); it was not mentioned at all. The run still
# passes (status 0), as for messages never received. t/rt/recv-unended,
# under piclrun and under mpirun.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

piclrun_setup
export TMPDIR="$TMP/tmp"
PROG="$PICL_BUILDDIR/t/rt/recv-unended"

run timeout 60 "$RUN" -n 2 --timeout 30 -o t.picl "$PROG" two
expect_rc 0
expect_err <<'EOT'
picl: process 1: close0: 2 receives begun with recvbegin0 were never ended, the first of type 5
EOT
grep -q '^-7 .* 1 0 .* picl: close0: 2 receives begun with recvbegin0 were never ended, the first of type 5$' t.picl ||
  fail "$last: no -7 record: $(grep -- '^-7 ' t.picl)"

run timeout 60 "$RUN" -n 2 --timeout 30 -o t.picl "$PROG" any
expect_rc 0
expect_err <<'EOT'
picl: process 1: close0: 1 receive begun with recvbegin0 was never ended, of any type
EOT

# ended by recvend0 and recvstatus0: nothing to say
run timeout 60 "$RUN" -n 2 --timeout 30 -o t.picl "$PROG" ended
expect_rc 0
expect_err </dev/null

if command -v mpirun >/dev/null 2>&1 && command -v mpicc >/dev/null 2>&1 &&
   [ -f "$PICL_BUILDDIR/picl-rt/.libs/libpicl-mpi.so" ]; then
  mpi_setup
  mpicc_picl "$TMP/unended-mpi" "$PICL_SRCDIR/t/rt/recv-unended.c"
  mkdir mpi
  cd mpi
  run timeout -k 5 60 $MPIRUN -np 2 "$TMP/unended-mpi" two
  expect_rc 0
  expect_err <<'EOT'
picl: process 1: close0: 2 receives begun with recvbegin0 were never ended, the first of type 5
EOT
  grep -q '^-7 .* picl: close0: 2 receives begun' picltrace.1.picl ||
    fail "$last: no -7 record: $(grep -- '^-7 ' picltrace.1.picl)"
  run timeout -k 5 60 $MPIRUN -np 2 "$TMP/unended-mpi" ended
  expect_rc 0
  expect_err </dev/null
  cd ..
else
  echo "note: no mpirun, mpicc or libpicl-mpi: the MPI runs were left out"
fi
echo "ok: $ntest runs"
