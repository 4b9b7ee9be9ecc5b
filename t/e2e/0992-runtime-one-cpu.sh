#!/bin/sh
# 0992-runtime-one-cpu.sh - processes held to fewer CPUs than there are of
# them (taskset -c 0) do not spin waiting for one another: 20000 messages
# between 2 processes on one CPU (t/rt/ring-stress, rings of 4 KiB, so
# that senders wait for room) take about the CPU time they take on two.
# The engine once counted the CPUs online, not those it may run on: each
# wait for room spun 2000 rounds that its receiver, on the same CPU, could
# not end, and the run took 5.3 s of CPU time (0.6 s after).
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

RUN="$PICL_BUILDDIR/picl-rt/piclrun"
PROG="$PICL_BUILDDIR/t/rt/ring-stress"
cd "$TMP"

if ! command -v taskset >/dev/null || ! taskset -c 0 true 2>"$TMP/ts.err"; then
  echo "SKIP: no taskset, or CPU 0 not ours"
  exit 77
fi
# the CPU time (user + system, seconds) of the run, from the shell's times
(env PICL_RING_SIZE=4096 taskset -c 0 timeout 120 "$RUN" -n 2 --timeout 100 \
  "$PROG" 7 20000 >"$TMP/out" 2>"$TMP/err"; echo "rc $?"; times) >"$TMP/times"
grep -qx 'rc 0' "$TMP/times" || fail "the run failed: $(cat "$TMP/times" "$TMP/err")"
[ "$(grep -c '^ring-stress: node [0-9]*: [0-9]* messages, 0 wrong$' "$TMP/out")" -eq 2 ] ||
  fail "wrong messages: $(head -5 "$TMP/out")"
cpu=$(tail -1 "$TMP/times" | awk '{
  t = 0
  for (i = 1; i <= 2; i++) { split($i, a, "m"); sub("s", "", a[2]); t += a[1] * 60 + a[2] }
  printf "%d\n", t * 1000 }')
[ "$cpu" -lt 2500 ] ||
  fail "2 processes on one CPU took $cpu ms of CPU time for 20000 messages"
echo "ok: $cpu ms of CPU time"
