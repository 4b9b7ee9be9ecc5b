#!/bin/sh
# 0415-runtime-open-close-twice.sh - a process joins the run once
# (picl(3)): a second open0 while open, a second close0 and a close0
# before open0 are errors, as every communication call before open0 or
# after close0 is ("picl: process 1: open0: called twice (a process joins
# the run once)"); the run fails. They were passed over: a second open0
# recorded a second -11, close0 returned at once. t/rt/before-open's
# early and after runs, under piclrun and under mpirun.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

piclrun_setup
export TMPDIR="$TMP/tmp"
BO="$PICL_BUILDDIR/t/rt/before-open"

# expect_fail PROCESS LINE: the run failed (status 1), PROCESS said LINE
# and did not go on
expect_fail() {
  expect_rc 1
  grep -qxF "picl: process $1: $2" "$TMP/err" || fail "$last: $(cat "$TMP/out" "$TMP/err")"
}

run timeout 60 "$RUN" -n 3 --timeout 30 -o t.picl "$BO" early 1 open0
expect_fail 1 "open0: called twice (a process joins the run once)"
grep -q "^piclrun: process 1 exited with status 1$" "$TMP/err" || fail "$last: $(cat "$TMP/err")"
# (it got as far as its first open0: the -11 entry and exit, once)
grep -q "^-7 .* picl: open0: called twice" t.picl || fail "$last: no -7 record saying why"
[ "$(awk '$1 == -3 && $2 == -11 && $4 == 1' t.picl | wc -l)" = 1 ] ||
  fail "$last: -11 entries of process 1: $(grep -- ' -11 ' t.picl)"
run timeout 60 "$RUN" -n 2 --timeout 30 "$BO" after 1 close0
expect_fail 1 "close0: called after close0"
grep -q "^piclrun: process 1 exited with status 1$" "$TMP/err" || fail "$last: $(cat "$TMP/err")"
grep -q "^piclrun: process 0" "$TMP/err" && fail "$last: process 0 blamed: $(cat "$TMP/err")"
run timeout 60 "$RUN" -n 2 --timeout 30 "$BO" early 1 close0
expect_fail 1 "close0: called before open0"
# one open0 and one close0 are fine
run timeout 60 "$RUN" -n 2 --timeout 30 "$BO" after 1 who0
expect_rc 0

if command -v mpirun >/dev/null 2>&1 && command -v mpicc >/dev/null 2>&1 &&
   [ -f "$PICL_BUILDDIR/picl-rt/.libs/libpicl-mpi.so" ]; then
  mpi_setup
  mpicc_picl "$TMP/bo-mpi" "$PICL_SRCDIR/t/rt/before-open.c"
  mkdir mpi
  cd mpi
  run timeout -k 5 60 $MPIRUN -np 2 "$TMP/bo-mpi" early 1 open0
  expect_fail 1 "open0: called twice (a process joins the run once)"
  run timeout -k 5 60 $MPIRUN -np 2 "$TMP/bo-mpi" after 1 close0
  expect_fail 1 "close0: called after close0"
  run timeout -k 5 60 $MPIRUN -np 2 "$TMP/bo-mpi" early 0 close0
  expect_fail 0 "close0: called before open0"
  cd ..
else
  echo "note: no mpirun, mpicc or libpicl-mpi: the MPI runs were left out"
fi
echo "ok: $ntest runs"
