#!/bin/sh
# 0665-runtime-mpi-interrupt.sh - libpicl-mpi when the run is interrupted
# or a rank crashes. Ctrl-C at mpirun (SIGINT) made Open MPI signal every
# rank (SIGCONT, SIGTERM a second later, SIGKILL a second after that,
# measured with 4.1.4), and each rank died with its trace in its buffer:
# no part at all. Now a rank catches SIGTERM (SIGINT, SIGHUP) and writes
# its part from the handler (libpicl's emergency write) before it dies:
# every rank's part is complete, says "stopped by SIGTERM", and the parts
# merge into a trace that validates as partial. A rank waits for the
# SIGKILL after writing: Open MPI SIGKILLs every rank as soon as one dies,
# and the ranks slower to write lost their parts (7 runs in 12 with two
# busy loops beside the ranks). A rank that crashes (a null pointer, a
# stack overflow, abort(), a trap) keeps its part too ("killed by
# SIGSEGV"), and Open MPI's own stack trace (its handler runs after ours)
# is still printed.
#
# Skipped when mpirun, mpicc or the MPI build of libpicl are absent; the
# SIGSEGV cases also in a sanitizer build (AddressSanitizer owns SIGSEGV).
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

mpi_setup
if ! grep -q '^#define HAVE__FORK 1' "$PICL_BUILDDIR/config.h"; then
  echo "SKIP: no _Fork in this C library (glibc < 2.34): nothing is written from a handler"
  exit 77
fi
mpicc_picl "$TMP/noclose" "$PICL_SRCDIR/examples/noclose.c"
cd "$TMP"
PT="$PICL_BUILDDIR/picltrace/picltrace"

# parts_ok DIR NP WHY: every rank's part in DIR is closed by its -901
# exit after a -7 record saying WHY (for rank 0; "killed by" for a crash
# is checked by the caller), and the parts merge into a partial trace
parts_ok() {
  p=0
  while [ $p -lt "$2" ]; do
    f="$1/picltrace.$p.picl"
    [ -s "$f" ] || fail "$1: rank $p wrote no part: $(cat "$1.err")"
    grep -q "^-4 -901 [0-9.]* $p 0 " "$f" || fail "$f: no -901 exit"
    grep -q "^-3 -11 [0-9.]* $p 0 " "$f" || fail "$f: open0's records are lost"
    p=$((p + 1))
  done
  run "$PT" merge --unsorted -o "$1.picl" "$1"/picltrace.*.picl
  expect_rc 0
  validate_ok "$1.picl" --partial
}

# Ctrl-C at mpirun while every rank waits in a PICL call (rank 1 in recv0
# for a message nobody sends, the others in close0's barrier)
# (each rank makes ready.<rank> just before the call it stays in: a rank
# signalled before open0 has no part to write, and MPI_Init can take
# seconds on a loaded machine)
mkdir int
(cd int && exec env --default-signal=INT $MPIRUN -x NOCLOSE_READY="$TMP/ready" \
  -x PICL_MPI_DEADLOCK=report -np 3 "$TMP/noclose" block) >int.out 2>int.err &
bg=$!
i=0
until [ -e ready.0 ] && [ -e ready.1 ] && [ -e ready.2 ]; do
  i=$((i + 1))
  [ $i -lt 1200 ] || { kill $bg; fail "int: the 3 ranks did not reach their wait in 60 s: $(cat int.err)"; }
  sleep 0.05
done
sleep 0.2         # from making the file to waiting in the call
kill -INT $bg
i=0
while kill -0 $bg 2>/dev/null; do
  i=$((i + 1))
  [ $i -lt 400 ] || { kill -9 $bg; fail "int: mpirun still running 20 s after SIGINT"; }
  sleep 0.05
done
st=0
wait $bg || st=$?
[ $st -ne 0 ] || fail "int: mpirun's exit status 0 after SIGINT"
for p in 0 1 2; do
  grep -q "^-7 -911 [0-9.]* $p 0 [0-9]* 0 picl: stopped by SIGTERM\$" int/picltrace.$p.picl ||
    fail "int: rank $p's part does not say it was stopped: $(cat int.err)"
done
grep -q '^-3 -5[12] [0-9.]* 1 0 ' int/picltrace.1.picl ||
  fail "int: rank 1's recv0 is lost"
parts_ok int 3

# crashed MODE SIG NUM [NAME]: rank 1 of noclose MODE dies of signal NUM
# (SIG) inside a user block, and keeps its part; the two others,
# SIGTERMed by Open MPI, keep theirs. With NAME, Open MPI's own stack
# trace ("Signal: NAME (NUM)"; its handler runs after ours) is printed
# still.
crashed() {
  mkdir "$1"
  set +e
  (cd "$1" && timeout -k 10 60 $MPIRUN -np 3 "$TMP/noclose" "$1") >"$1.out" 2>"$1.err"
  st=$?
  set -e
  [ $st -ne 0 ] && [ $st -ne 124 ] && [ $st -ne 137 ] ||
    fail "$1: mpirun's exit status $st: $(cat "$1.err")"
  if [ -n "${4:-}" ]; then
    grep -q "Signal: $4 ($3)" "$1.err" ||
      fail "$1: Open MPI's stack trace is gone: $(cat "$1.err")"
  fi
  grep -q "exited on signal $3 " "$1.err" ||
    fail "$1: mpirun does not report the signal: $(cat "$1.err")"
  f=$1/picltrace.1.picl
  grep -q "^-7 -911 [0-9.]* 1 0 [0-9]* 0 picl: killed by SIG$2\$" "$f" ||
    fail "$1: rank 1's part does not name the signal"
  grep -q '^-3 1 [0-9.]* 1 0 ' "$f" && grep -q '^-4 1 [0-9.]* 1 0 ' "$f" ||
    fail "$1: rank 1's user block is lost or unclosed"
  parts_ok "$1" 3
}

# abort() (a failed assert) and a trap instruction (SIGILL, which Open
# MPI does not catch)
crashed abort ABRT 6 Aborted
crashed ill ILL 4
if sed -n 's/^CFLAGS = //p' "$PICL_BUILDDIR/Makefile" | grep -q -- '-fsanitize=address'; then
  echo "# sanitizer build: AddressSanitizer owns SIGSEGV; segv and overflow skipped"
else
  crashed segv SEGV 11 'Segmentation fault'
  # a stack overflow: our handler runs on its own stack (Open MPI's
  # cannot, and prints nothing)
  crashed overflow SEGV 11
fi
# a program that calls MPI_Init itself before open0 finds Open MPI's
# handlers in place at open0: libpicl used to take them for the
# program's and leave them alone (the crash lost rank 1's part); it now
# tells Open MPI's from a program's by their library and goes in front
cat >mpiinit.c <<'EOS'
#include <mpi.h>
#include <picl.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
	int nprocs, me, host, v = 0;

	MPI_Init(&argc, &argv);
	tracenode(1 << 16, 1, 0);
	open0(&nprocs, &me, &host);
	if (me == 0)
		send0((char *)&v, sizeof v, 1, 1);
	else if (me == 1) {
		recv0((char *)&v, sizeof v, 1);
		traceblockbegin(1, 0, 0);
		abort();
	}
	close0(0);
	MPI_Finalize();
	return 0;
}
EOS
mpicc_picl "$TMP/mpiinit.bin" mpiinit.c
mkdir mpiinit
set +e
(cd mpiinit && timeout -k 10 60 $MPIRUN -np 2 "$TMP/mpiinit.bin") >mpiinit.out 2>mpiinit.err
st=$?
set -e
grep -q 'Signal: Aborted (6)' mpiinit.err ||
  fail "mpiinit: Open MPI's stack trace is gone: $(cat mpiinit.err)"
grep -q '^-7 -911 [0-9.]* 1 0 [0-9]* 0 picl: killed by SIGABRT$' mpiinit/picltrace.1.picl ||
  fail "mpiinit: rank 1's part does not name the signal (status $st): $(cat mpiinit.err)"
grep -q '^-3 1 [0-9.]* 1 0 ' mpiinit/picltrace.1.picl ||
  fail "mpiinit: rank 1's user block is lost"
echo "PASS: runtime mpi interrupt checks"
