#!/bin/sh
# 0990-runtime-ring-stress.sh - the local engine's rings under load
# (t/rt/ring-stress): thousands of messages of random sizes (0 to ten
# times the ring) and types between random pairs of processes, each
# checked byte by byte and in its order per source and type, received by
# every kind of call (recv0 of a type or of any, probe0, wait0, recvbegin0
# with recvend0 or recvstatus0, sendbegin0 on the other side), with rings
# of 4 KiB: on 2, 5, 8 and 16 processes (more than this machine's CPUs),
# on one CPU (taskset -c 0) where there is taskset, with frames of 64
# bytes, with CMA and with CMA refused, and traced: the merged trace is
# valid and every message in it matched. A lost message or wake-up leaves
# a process waiting: piclrun --timeout makes that a failure.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

RUN="$PICL_BUILDDIR/picl-rt/piclrun"
PROG="$PICL_BUILDDIR/t/rt/ring-stress"
cd "$TMP"

stress_ok() {  # N: every one of the N processes said 0 wrong
  expect_rc 0
  [ "$(grep -c '^ring-stress: node [0-9]*: [0-9]* messages, 0 wrong$' "$TMP/out")" -eq "$1" ] ||
    fail "$last: $(head -5 "$TMP/out") $(head -5 "$TMP/err")"
}

one_cpu=
if command -v taskset >/dev/null && taskset -c 0 true 2>"$TMP/ts.err"; then
  one_cpu="taskset -c 0"
fi
seed=1
for n in 2 5 8 16; do
  for cpus in "" "$one_cpu"; do
    seed=$((seed + 1))
    run env PICL_RING_SIZE=4096 $cpus timeout 120 "$RUN" -n $n --timeout 100 \
      "$PROG" $seed 8000
    stress_ok $n
  done
done
for v in PICL_CHUNK=64 "PICL_CMA=1 PICL_CMA_MIN=1" \
    "PICL_CMA=1 PICL_CMA_MIN=1 PICL_CMA_BROKEN=1"; do
  seed=$((seed + 1))
  run env PICL_RING_SIZE=4096 $v timeout 120 "$RUN" -n 5 --timeout 100 \
    "$PROG" $seed 8000
  stress_ok 5
done
# traced: every message of the schedule matched in the merged trace
for n in 3 16; do
  seed=$((seed + 1))
  run env PICL_RING_SIZE=4096 timeout 120 "$RUN" -n $n --timeout 100 \
    -o stress.picl "$PROG" $seed 3000 trace
  stress_ok $n
  validate_ok stress.picl
  run "$PT" stat stress.picl
  expect_rc 0
  grep -qx '== messages: 3000 matched, [0-9]* bytes; unmatched: 0 sends, 0 receives' "$TMP/out" ||
    fail "$last: $(grep '== messages' "$TMP/out")"
  rm -f stress.picl
done
echo "ok: $ntest runs"
