#!/bin/sh
# 0996-runtime-wrong-launcher.sh - a program started by the other
# launcher than the one its library is for: one built with picl-cc --mpi
# (libpicl-mpi) under piclrun, and one built with picl-cc (libpicl, the
# local runtime) under mpirun. Each process used to run alone as node 0 of
# a run of its own and the whole exited 0 (N copies of the same
# computation, their traces clobbering one another); now open0 says which
# launcher the program needs and the run fails. Skipped without mpirun or
# the MPI build.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

mpi_setup
piclrun_setup
mpicc_picl "$TMP/ring-mpi" "$PICL_SRCDIR/examples/ring.c"
picl_cc "$TMP/ring-local" "$PICL_SRCDIR/examples/ring.c"

# libpicl-mpi under piclrun
run timeout -k 5 60 "$RUN" -n 2 -o mpi.picl "$TMP/ring-mpi"
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || fail "ring-mpi under piclrun: exit status $rc"
grep -q "^libpicl-mpi: .*piclrun started it as one of 2 processes.*start it with mpirun -n 2" \
  "$TMP/err" || fail "ring-mpi under piclrun: no word of mpirun: $(cat "$TMP/err")"
! grep -q "^ring: " "$TMP/out" || fail "ring-mpi ran under piclrun: $(cat "$TMP/out")"

# libpicl under mpirun
mkdir local && cd local
run timeout -k 5 60 $MPIRUN -np 2 "$TMP/ring-local"
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || fail "ring-local under mpirun: exit status $rc"
grep -q "^picl: .*linked with libpicl.*one of 2 processes.*picl-cc --mpi" \
  "$TMP/err" || fail "ring-local under mpirun: no word of picl-cc --mpi: $(cat "$TMP/err")"
! grep -q "^ring: " "$TMP/out" || fail "ring-local ran under mpirun: $(cat "$TMP/out")"

# each with its own launcher still runs
cd "$TMP"
run timeout -k 5 60 $MPIRUN -np 2 "$TMP/ring-mpi"
expect_rc 0
run timeout -k 5 60 "$RUN" -n 2 -o local.picl "$TMP/ring-local"
expect_rc 0
