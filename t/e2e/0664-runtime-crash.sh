#!/bin/sh
# 0664-runtime-crash.sh - a process that dies of a fatal signal (a null
# pointer, abort() as a failed assert does, a stack overflow, a SIGFPE
# sent, a trap instruction) lost every record still in its buffer: its
# part was empty or cut, in exactly the runs users most need to see. Now
# libpicl catches those signals (where their action was the default at
# open0) and writes the part from a child made with _Fork (api.c, the
# emergency write) before the process dies of its signal: the merged
# trace holds what process 1 traced before the crash, the user block it
# died in closed, a -7 record naming the signal and its -901 exit;
# piclrun still reports the real signal. Zstd parts are ended as plain
# ones. A program's own SIGSEGV handler is left alone.
#
# Under AddressSanitizer the sanitizer owns SIGSEGV, SIGBUS and SIGFPE
# (libpicl leaves a handler it finds alone): those cases are skipped
# there (and UBSan stops the null store first), abort() and the trap
# (SIGILL) still run.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
piclrun_setup
PICL_TRACE_CLOCK=monotonic; export PICL_TRACE_CLOCK

asan=
sed -n 's/^CFLAGS = //p' "$PICL_BUILDDIR/Makefile" | grep -q -- '-fsanitize=address' && asan=1
if ! grep -q '^#define HAVE__FORK 1' "$PICL_BUILDDIR/config.h"; then
  echo "SKIP: no _Fork in this C library (glibc < 2.34): crashes are not written"
  exit 77
fi

# crashed MODE SIG: process 1 of noclose MODE dies of SIG inside user
# block 1, after its first message
crashed() {
  run timeout 60 "$RUN" -n 2 $keep -o "$1.picl" "$EX/noclose" "$1"
  expect_rc 1
  grep -q "^piclrun: process 1 was killed by signal SIG$2 (" "$TMP/err" ||
    fail "$1: piclrun does not report SIG$2: $(cat "$TMP/err")"
  f=$1.picl
  [ -s "$f" ] || fail "$f: no merged trace"
  # what process 1 traced before the crash: open0, its send, the block
  for r in '-3 -11' '-4 -11' '-3 -21' '-4 -21' '-3 1'; do
    grep -q -- "^$r [0-9.]* 1 0" "$f" || fail "$f: process 1's '$r' record is lost"
  done
  grep -q -- "^-7 -911 [0-9.]* 1 0 [0-9]* 0 picl: killed by SIG$2\$" "$f" ||
    fail "$f: no -7 record naming SIG$2"
  # the block closed, then the -901 exit, as a PICL error's way out does
  awk '$4 == 1 && $1 == -4 && $2 == 1 { b = NR } $4 == 1 && $1 == -4 && $2 == -901 { e = NR }
       END { exit !(b && e && b < e) }' "$f" ||
    fail "$f: process 1's block and -901 exit are not closed in order"
  grep -q "^-7 -1 .*piclrun: partial trace: process 1 was killed by signal SIG$2" "$f" ||
    fail "$f: piclrun's -7 record is missing"
  validate_ok "$f" --partial
}

keep=
crashed abort ABRT
# a trap instruction: SIGILL, a fault raised again on return
crashed ill ILL

# zstd parts (PICL_TRACE_ZSTD=1): the child ends the part's frame, and
# the part decodes (crashed merged it)
PICL_TRACE_ZSTD=1
export PICL_TRACE_ZSTD
keep="--keep-parts --parts-dir=zparts"
crashed abort ABRT
[ "$(od -An -tx1 -N4 zparts/part.1.picl)" = " 28 b5 2f fd" ] ||
  fail "zstd: process 1's part is not zstd"
unset PICL_TRACE_ZSTD
keep=
rm -rf zparts

if [ -n "$asan" ]; then
  echo "# sanitizer build: the sanitizers own SIGSEGV and SIGFPE (and UBSan stops"
  echo "# a null store first): segv, overflow, fpe and ownsegv skipped"
  rm -f ./*.picl
  echo "PASS: runtime crash checks (abort and ill only)"
  exit 0
fi
crashed segv SEGV
crashed overflow SEGV
crashed fpe FPE

# the program's own SIGSEGV handler (set before open0) runs, untouched
run timeout 60 "$RUN" -n 2 -o own.picl "$EX/noclose" ownsegv
expect_rc 1
grep -q "^noclose: the program's own SIGSEGV handler\$" "$TMP/err" ||
  fail "ownsegv: the program's handler did not run: $(cat "$TMP/err")"
grep -q "^piclrun: process 1 exited with status 9\$" "$TMP/err" ||
  fail "ownsegv: $(cat "$TMP/err")"
grep -q 'killed by' own.picl && fail "ownsegv: libpicl wrote over the program's handler"
rm -f ./*.picl
echo "PASS: runtime crash checks"
