#!/bin/sh
# 0413-runtime-trace-alloc.sh - a trace buffer that cannot be allocated
# (tracenode(INT_MAX, 1, 0) under `ulimit -v`: t/rt/trace-alloc) is a
# trace that cannot be written, as one whose file cannot be (picl(3)):
# the process says so, naming the call and the size, and goes on
# untraced, and the run fails (status 1). It exited 0, piclrun saying "no
# process wrote a trace (none called tracenode)", and mpirun 0 with a
# message that named neither. Under mpirun a rank whose trace lost
# records (also a file it cannot open) now fails too: it says so as it
# exits, with status 1 (picl-mpi(7)).
#
# Skipped in a sanitizer build (AddressSanitizer's shadow memory does not
# fit in `ulimit -v`); the MPI part without mpirun, mpicc or libpicl-mpi.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

if sed -n 's/^CFLAGS = //p' "$PICL_BUILDDIR/Makefile" | grep -q -- '-fsanitize=address'; then
  echo "SKIP: sanitizer build: AddressSanitizer needs more than ulimit -v gives"
  exit 77
fi
piclrun_setup
export TMPDIR="$TMP/tmp"
PROG="$PICL_BUILDDIR/t/rt/trace-alloc"
# (the limit for the processes only: 800 MB, far below the 2 GiB asked)
LIMIT='ulimit -v 800000 && exec "$0" "$@"'
SIZE=2147483592         # INT_MAX bytes, in whole records of 72 bytes

run timeout 60 "$RUN" -n 2 -o t.picl sh -c "$LIMIT" "$PROG" max
expect_rc 1
for p in 0 1; do
  grep -qx "picl: process $p: tracenode: cannot allocate a trace buffer of $SIZE bytes: Cannot allocate memory; tracing stays off" "$TMP/err" ||
    fail "$last: process $p did not say it: $(cat "$TMP/err")"
  grep -qx "piclrun: process $p could not write all of its trace" "$TMP/err" ||
    fail "$last: piclrun did not name process $p: $(cat "$TMP/err")"
  grep -qx "node $p ran" "$TMP/out" || fail "$last: process $p did not go on: $(cat "$TMP/out")"
done
grep -q "none called tracenode" "$TMP/err" && fail "$last: $(cat "$TMP/err")"
[ ! -e t.picl ] || fail "$last: a trace was written from nothing"

# with a buffer it can have, the same run is a good one
run timeout 60 "$RUN" -n 2 -o t.picl sh -c "$LIMIT" "$PROG" 100000
expect_rc 0
expect_err </dev/null
validate_ok t.picl

if command -v mpirun >/dev/null 2>&1 && command -v mpicc >/dev/null 2>&1 &&
   [ -f "$PICL_BUILDDIR/picl-rt/.libs/libpicl-mpi.so" ]; then
  mpi_setup
  mpicc_picl "$TMP/alloc-mpi" "$PICL_SRCDIR/t/rt/trace-alloc.c"
  mpicc_picl "$TMP/files-mpi" "$PICL_SRCDIR/t/rt/trace-files.c"
  mkdir mpi
  cd mpi
  run timeout -k 5 60 $MPIRUN -np 2 sh -c "$LIMIT" "$TMP/alloc-mpi" max
  expect_rc 1
  for p in 0 1; do
    grep -qx "picl: process $p: tracenode: cannot allocate a trace buffer of $SIZE bytes: Cannot allocate memory; tracing stays off" "$TMP/err" ||
      fail "$last: rank $p did not say it: $(cat "$TMP/err")"
    grep -qx "libpicl-mpi: process $p could not write all of its trace" "$TMP/err" ||
      fail "$last: rank $p did not fail: $(cat "$TMP/err")"
  done
  # a trace file that cannot be opened, after open0 (it once left the
  # run's status 0 under mpirun)
  run timeout -k 5 60 $MPIRUN -np 2 "$TMP/files-mpi" nodir/x
  expect_rc 1
  grep -q "^picl: cannot open trace file nodir/x: No such file or directory" "$TMP/err" ||
    fail "$last: not said: $(cat "$TMP/err")"
  for p in 0 1; do
    grep -qx "libpicl-mpi: process $p could not write all of its trace" "$TMP/err" ||
      fail "$last: rank $p did not fail: $(cat "$TMP/err")"
  done
  # and a good run stays one
  run timeout -k 5 60 $MPIRUN -np 2 sh -c "$LIMIT" "$TMP/alloc-mpi" 100000
  expect_rc 0
  grep -q "libpicl-mpi\|^picl" "$TMP/err" && fail "$last: $(cat "$TMP/err")"
  cd ..
else
  echo "note: no mpirun, mpicc or libpicl-mpi: the MPI runs were left out"
fi
echo "ok: $ntest runs"
