#!/bin/sh
# 0410-runtime-tracedata-big.sh - tracedata records whose data are larger
# than tracenode's data area (as many bytes as the buffer, at least 64 KiB;
# t/rt/tracedata-big.c) are kept whole, alone in it, in each mode (picl(3)):
# they were dropped without a word when the area could never hold them,
# in flush mode after writing the buffer out, in a ring at once (and a
# char array cut to the 1 MiB a reader takes was then dropped all the
# same). The same under mpirun, when there is one.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

PICL_TRACE_CLOCK=monotonic; export PICL_TRACE_CLOCK
PROG="$PICL_BUILDDIR/t/rt/tracedata-big"
cd "$TMP"

# has FILE EVENT COUNT LAST: FILE has one tracedata record of EVENT with
# COUNT values, the last of them LAST
has() {
  n=$(awk -v e="$2" -v c="$3" -v l="$4" '$1 == 0 && $2 == e && $6 == c && $NF == l' "$1" | wc -l)
  [ "$n" -eq 1 ] || fail "$last: $n records of event $2 with $3 values ending in $4: $(awk '$1 >= 0 { print $1, $2, $6, $7 }' "$1")"
}

# big SIZE FLUSH TYPE COUNT [after]: a run alone, nothing on stderr, a
# trace that validates
big() {
  rm -f picltrace.0.picl
  run timeout 60 "$PROG" "$@"
  expect_rc 0
  expect_err </dev/null
  mv picltrace.0.picl t.picl
  validate_ok t.picl
}

# flush 1: the buffer written out, then the record; 160 kB of data in an
# area of 100000 bytes, and 72 kB in the smallest (64 KiB)
big 100000 1 double 20000 after
has t.picl 1 20000 99
has t.picl 2 4 3
has t.picl 3 4 3
grep -q -- '^-3 -912 ' t.picl || fail "$last: no flush (-912)"
big 0 1 int 20000 after
has t.picl 1 20000 99
has t.picl 3 4 3

# a ring: the record pushes out the records whose data the area held (the
# -914 mark says the ring wrapped); it is pushed out in its turn by the
# next data, as any record is by newer ones
big 100000 -1 double 20000
has t.picl 1 20000 99
grep -q -- '^-2 -914 ' t.picl || fail "$last: no -914 mark"
awk '$1 == 0 && $2 == 2' t.picl | grep -q . && fail "$last: the record before was kept"
big 0 -1 double 9000 after
has t.picl 3 4 3
awk '$1 == 0 && $2 == 1' t.picl | grep -q . && fail "$last: the record was not pushed out"

# flush 0: kept while the area holds no data yet, and then the area is
# full: detailed tracing stops (-913) at the next data; after the 16 bytes
# of event 2, it stops at once, as for any data that do not fit
big 100000 0 double 20000 alone after
has t.picl 1 20000 99
awk '$1 == 0 && $2 == 3' t.picl | grep -q . && fail "$last: data past a full area"
grep -q -- '^-2 -913 ' t.picl || fail "$last: no -913 mark"
big 100000 0 double 20000
has t.picl 2 4 3
awk '$1 == 0 && $2 == 1' t.picl | grep -q . && fail "$last: kept in an area with data"
grep -q -- '^-2 -913 ' t.picl || fail "$last: no -913 mark"

# a char array over 1 MiB: cut to what a reader takes, said, and kept
rm -f picltrace.0.picl
run timeout 60 "$PROG" 0 1 char 2000000
expect_rc 0
expect_err <<'EOT'
picl: process 0: tracedata: 2000000 values of type char cut to 1048064 (the longest record a reader takes)
EOT
n=$(awk '$1 == 0 && $2 == 1 && $6 == 1048064 && length($8) >= 1048064' picltrace.0.picl | wc -l)
[ "$n" -eq 1 ] || fail "$last: the cut record is missing"
validate_ok picltrace.0.picl

# the same under mpirun: tracenode(0, 1, 0) and 72 kB of doubles, on
# each of 2 ranks
if command -v mpirun >/dev/null 2>&1 && command -v mpicc >/dev/null 2>&1 &&
   [ -f "$PICL_BUILDDIR/picl-rt/.libs/libpicl-mpi.so" ]; then
  mpi_setup
  mpicc_picl "$TMP/big-mpi" "$PICL_SRCDIR/t/rt/tracedata-big.c"
  mkdir mpi
  run sh -c "cd mpi && exec timeout -k 5 60 $MPIRUN -np 2 '$TMP/big-mpi' 0 1 double 9000 after"
  expect_rc 0
  for p in 0 1; do
    has mpi/picltrace.$p.picl 1 9000 99
    has mpi/picltrace.$p.picl 3 4 3
  done
else
  echo "note: no mpirun, mpicc or libpicl-mpi: the MPI run was left out"
fi
echo "ok: $ntest runs"
