#!/bin/sh
# 0630-runtime-calls.sh - examples/allcalls (every traced PICL call) on 2,
# 4 and 100 processes (more than an int has bits, where its gor0 check
# once shifted 1 past them, and than its gather0 buffer once held): it
# checks the values the calls return itself; the trace
# is accepted by `picltrace validate` and holds the event types of Tables
# 7-13 that the calls produce, with the data fields of the "(n)" counts.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

# Record times from CLOCK_MONOTONIC, the clock clocksync0 measures: with
# trace.c's per-process TSC calibration, messages between processes on
# this machine can look received ~1 us before they were sent (tachyons).
PICL_TRACE_CLOCK=monotonic; export PICL_TRACE_CLOCK

RUN="$PICL_BUILDDIR/picl-rt/piclrun"
cd "$TMP"


for n in 2 4 100; do
  run timeout 60 "$RUN" -n $n -o all$n.picl "$PICL_BUILDDIR/examples/allcalls"
  expect_rc 0
  validate_ok all$n.picl
  grep -q ' warning: ' "$TMP/out" "$TMP/err" && fail "validate all$n.picl: $(cat "$TMP/out" "$TMP/err")"
done

has() {  # RECORD EVENT [DATA...]: a record of processor 0 or 1 with that data
  r=$1; e=$2; shift 2
  awk -v r="$r" -v e="$e" -v d="$*" '
    $1 == r && $2 == e { s = ""; for (i = 6; i <= NF; i++) s = s (s == "" ? "" : " ") $i
      if (d == "" || s == d) { found = 1 } }
    END { exit !found }' all2.picl || fail "no record '$r $e $*'"
}
has -3 -11 0;        has -4 -11 0
has -2 -12 0
has -3 -21 3 2 4 1 1; has -4 -21 0           # send0(4 bytes, type 1, to 1)
has -3 -21 3 2 4 4 -1                         # destination -1
has -3 -27 3 2 4 2 1; has -4 -27 1 2 2       # sendbegin0: exit = request id
has -3 -28 1 2 2;    has -4 -28 0
has -3 -30 1 2 3;    has -4 -30 0
has -4 -51 3 2 4 1 0
has -3 -57 1 2 2;    has -4 -57 1 2 2
has -3 -58 1 2 2;    has -4 -58 3 2 4 2 0
grep -Eq -- '^-4 -6[01] [^ ]+ 1 0 3 2 4 3 0$' all2.picl || fail "no recvend0 exit"
has -3 -401 0;       has -4 -401 0
has -3 -402 0;       has -4 -402 0
has -3 -503 8 0 allcalls; has -4 -503 2 2 1 -1   # load0("allcalls", -1)

# picl-cc: the command it would run
run "$PICL_BUILDDIR/picl-rt/picl-cc" --showme prog.c -o prog
expect_rc 0
grep -q -- ' prog.c -o prog -L.* -lpicl -lpicl-trace' "$TMP/out" || fail "picl-cc: $(cat "$TMP/out")"
# arguments the shell would split come out quoted, to paste back
run "$PICL_BUILDDIR/picl-rt/picl-cc" --showme "-DMSG=a b" "my prog.c" "-DQ=it's" -o prog
expect_rc 0
grep -qF -- " '-DMSG=a b' 'my prog.c' '-DQ=it'\\''s' -o prog " "$TMP/out" ||
  fail "picl-cc --showme quoting: $(cat "$TMP/out")"
run "$PICL_BUILDDIR/picl-rt/picl-cc" --showme -c prog.c
grep -q -- '-lpicl' "$TMP/out" && fail "picl-cc -c links: $(cat "$TMP/out")"
# nothing to compile: a usage message, not the linker's "undefined
# reference to main"
for args in "" "--mpi --showme"; do
  run "$PICL_BUILDDIR/picl-rt/picl-cc" $args
  expect_rc 2
  grep -q '^picl-cc: no input files' "$TMP/err" || fail "picl-cc $args: $(cat "$TMP/err")"
  [ ! -s "$TMP/out" ] || fail "picl-cc $args printed: $(cat "$TMP/out")"
done
# picl-cc of the build tree compiles and links for real before `make
# install` (the build's own CFLAGS/LDFLAGS: sanitizers, in that build)
picl_cc ring "$PICL_SRCDIR/examples/ring.c"
run timeout 60 "$RUN" -n 3 -o ring.picl ./ring
expect_rc 0
validate_ok ring.picl
grep -q '^-3 -21 ' ring.picl || fail "ring.picl: no send0 record"
if grep -q '^MPICC = .*mpicc' "$PICL_BUILDDIR/Makefile"; then
  run "$PICL_BUILDDIR/picl-rt/picl-cc" --mpi --showme prog.c -o prog
  grep -q -- 'mpicc .* -lpicl-mpi ' "$TMP/out" || fail "picl-cc --mpi: $(cat "$TMP/out")"
fi

# a run with a host program (processor 32767); load0 records -503 per node
run timeout 60 "$RUN" -n 3 --host "$PICL_BUILDDIR/examples/host" -o host.picl \
  "$PICL_BUILDDIR/examples/node"
expect_rc 0
grep -q "^host 32767: 3 nodes, sum 30" "$TMP/out" || fail "host run: $(cat "$TMP/out" "$TMP/err")"
validate_ok host.picl
n503=$(awk '$1 == -4 && $2 == -503 && $4 == 32767' host.picl | wc -l)
[ "$n503" -eq 3 ] || fail "host.picl: $n503 load0 exits, expected 3"
# the host and node programs named without a slash are found on PATH
run env PATH="$PICL_BUILDDIR/examples:$PATH" timeout 60 "$RUN" -n 2 --host host -o host2.picl node
expect_rc 0
grep -q "^host 32767: 2 nodes" "$TMP/out" || fail "$last: $(cat "$TMP/out" "$TMP/err")"
# A full trace buffer that wraps (-914) or stops detailed tracing (-913)
# leaves records out of the file that the statistics still count: the
# trace validates (orphan exits after a wrap are warnings).
for how in ring stop; do
  run timeout 60 "$RUN" -n 2 -o $how.picl "$PICL_BUILDDIR/examples/noclose" $how
  expect_rc 0
  validate_ok $how.picl
  mark=$([ $how = ring ] && echo -914 || echo -913)
  grep -q -- "^-2 $mark " $how.picl || fail "$how.picl has no $mark mark"
done

# Records written before open0 (a traceflush, a tracemsg, a full buffer in
# flush mode) carry the process's id, not -1, the wildcard: piclrun's
# PICL_RANK says it before open0 does.
run timeout 60 "$RUN" -n 2 -o before.picl "$PICL_BUILDDIR/t/rt/before-open" flush
expect_rc 0
validate_ok before.picl
awk '$1 > -300 && $1 < 0 && $4 != 0 && $4 != 1' before.picl >wrongid
[ -s wrongid ] && fail "before.picl: records of no process: $(head -3 wrongid)"
for p in 0 1; do
  n=$(awk -v p=$p '$1 == -2 && $2 == 2 && $4 == p' before.picl | wc -l)
  [ "$n" -eq 100 ] || fail "before.picl: process $p has $n marks 2, expected 100"
  grep -q -- "^-7 -911 [0-9.]* $p 0 12 0 before open0\$" before.picl ||
    fail "before.picl: process $p's tracemsg"
done

# tracefiles: a file is truncated once in a run, by the first process to
# open it; the others, and the same process coming back to it, append
# (each truncated it at its first open, wiping what the others had
# flushed, and a -> b -> a wiped a's start)
tf() {  # OUT NPROCS FILE...: run t/rt/trace-files, check what OUT holds
  out=$1 np=$2; shift 2
  echo "-2 77 1.0 0 0 0" >"$1"    # from an earlier run: goes
  run timeout 60 "$RUN" -n $np -o $out "$PICL_BUILDDIR/t/rt/trace-files" "$@"
  expect_rc 0
  validate_ok $out
  for p in $(seq 0 $((np - 1))); do
    for ev in '-3 -901' '-4 -901'; do
      n=$(awk -v p=$p -v ev="$ev" '$1 " " $2 == ev && $4 == p' $out | wc -l)
      [ "$n" -eq 1 ] || fail "$out: process $p has $n records '$ev'"
    done
    n=$(awk -v p=$p '$1 == -4 && $2 == 1 && $4 == p' $out | wc -l)
    [ "$n" -eq 3 ] || fail "$out: process $p has $n blocks, expected 3"
  done
  grep -q -- '^-2 77 ' $out && fail "$out: a record of an earlier run"
  return 0
}
tf same.picl 3 shared.picl
[ "$(grep -c -- '^-3 -901 ' shared.picl)" -eq 3 ] || fail "shared.picl: $(cat shared.picl)"
tf back.picl 2 fa.picl fb.picl
echo "ok: $ntest runs"
