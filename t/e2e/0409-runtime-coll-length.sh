#!/bin/sh
# 0409-runtime-coll-length.sh - a collective whose size differs between the
# nodes (t/rt/coll-length.c, root 0 on 3 nodes): the node that receives a
# message of another length than it expects fails with the runtime's
# common error ("picl: process N: CALL: process M sent ..., this process
# expected ...", exit status 1, every part written), under piclrun and
# under mpirun. A reduction whose root asked for more items than the others
# gave used to fold in what its buffer held before ("root: 3 1" under
# piclrun, garbage under MPI), and a broadcast shorter than a node's bytes
# left the rest of its buffer as it was, both with exit status 0; a longer
# one was refused in the name of recv0. The same sizes still work.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

PICL_TRACE_CLOCK=monotonic; export PICL_TRACE_CLOCK
RUN="$PICL_BUILDDIR/picl-rt/piclrun"
PROG="$PICL_BUILDDIR/t/rt/coll-length"
cd "$TMP"

# refused CALL HOW LINE: CALL with the root's size HOW fails on 3 nodes
# with LINE (an extended regular expression) on stderr; the merged trace
# validates as a partial one.
refused() {
  rm -f r.picl
  run timeout 60 "$RUN" -n 3 --timeout 30 -o r.picl "$PROG" "$1" "$2"
  expect_rc 1
  grep -qE "^$3\$" "$TMP/err" || fail "$last: no '$3': $(cat "$TMP/err")"
  grep -q '^wrong$' "$TMP/out" && fail "$last: a wrong result"
  [ -s r.picl ] || fail "$last: no merged trace"
  validate_ok r.picl --partial
}

for call in gsum0 gprod0 gmax0 gmin0 gand0 gor0 gxor0 gcomb0; do
  run timeout 60 "$RUN" -n 3 --timeout 30 "$PROG" $call same
  expect_rc 0
  expect_out <<'EOT'
ok
EOT
  refused $call more "picl: process 0: $call: process [12] sent 1 item, this process expected 2"
done
refused gsum0 fewer "picl: process 0: gsum0: process [12] sent 1 item, this process expected 0"

for call in bcast0 bcast1 gather0; do
  run timeout 60 "$RUN" -n 3 --timeout 30 "$PROG" $call same
  expect_rc 0
  expect_out <<'EOT'
ok
EOT
done
refused bcast0 fewer "picl: process [12]: bcast0: process 0 sent 10 bytes, this process expected 100"
refused bcast0 more "picl: process [12]: bcast0: process 0 sent 200 bytes, this process expected 100"
# bcast1's second chunk (4096 bytes each): its length tells the root's
# bytes, unless it is a whole chunk too
refused bcast1 fewer "picl: process [12]: bcast1: process 0 sent 4400 bytes, this process expected 4500"
refused bcast1 more "picl: process [12]: bcast1: process 0 sent 4600 bytes, this process expected 4500"
refused bcast1 much "picl: process [12]: bcast1: process 0 sent at least 8192 bytes, this process expected 4500"
# gather0: one block (node id, n floats) per node of the child's subtree
refused gather0 more "picl: process 0: gather0: process [12] sent (8|16) bytes, this process expected (12|24)"
refused gather0 fewer "picl: process 0: gather0: process [12] sent (8|16) bytes, this process expected (4|8)"

# The same under mpirun (libpicl-mpi), when there is one.
if command -v mpirun >/dev/null 2>&1 && command -v mpicc >/dev/null 2>&1 &&
   [ -f "$PICL_BUILDDIR/picl-rt/.libs/libpicl-mpi.so" ]; then
  mpi_setup
  mpicc_picl "$TMP/coll-length-mpi" "$PICL_SRCDIR/t/rt/coll-length.c"
  for c in "gsum0 more 0 gsum0: process [12] sent 1 item, this process expected 2" \
           "bcast0 fewer [12] bcast0: process 0 sent 10 bytes, this process expected 100" \
           "bcast1 much [12] bcast1: process 0 sent at least 8192 bytes, this process expected 4500"; do
    set -- $c
    call=$1 how=$2 who=$3
    shift 3
    mkdir "$TMP/mpi-$call-$how"
    ntest=$((ntest + 1))
    set +e
    (cd "$TMP/mpi-$call-$how" && timeout -k 5 60 $MPIRUN -np 3 "$TMP/coll-length-mpi" $call $how) \
      >"$TMP/out" 2>"$TMP/err"
    rc=$?
    set -e
    [ "$rc" -eq 1 ] || fail "mpirun $call $how: exit status $rc: $(cat "$TMP/err")"
    grep -qE "^picl: process $who: $*\$" "$TMP/err" ||
      fail "mpirun $call $how: no 'picl: process $who: $*': $(cat "$TMP/err")"
    grep -q '^wrong$' "$TMP/out" && fail "mpirun $call $how: a wrong result"
    for p in 0 1 2; do
      grep -q '^-4 -901 ' "$TMP/mpi-$call-$how/picltrace.$p.picl" ||
        fail "mpirun $call $how: rank $p's part was not written"
    done
  done
  run timeout -k 5 60 $MPIRUN -np 3 "$TMP/coll-length-mpi" gsum0 same
  expect_rc 0
else
  echo "note: no mpirun, mpicc or libpicl-mpi: the MPI runs were left out"
fi
echo "ok: $ntest runs"
