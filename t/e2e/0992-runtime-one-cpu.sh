#!/bin/sh
# 0992-runtime-one-cpu.sh - processes held to fewer CPUs than there are of
# them (taskset -c 0) do not spin waiting for one another: 20000 messages
# between 2 processes on one CPU (t/rt/ring-stress, rings of 4 KiB, so
# that senders wait for room) take about the CPU time they take with
# rings so large that no sender waits (less than 0.5 s more).
# The engine once counted the CPUs online, not those it may run on: each
# wait for room spun 2000 rounds that its receiver, on the same CPU, could
# not end, and the run took 5.3 s of CPU time (0.6 s after; with today's
# engine, 1.26 s against 0.36 with rings of 1 MiB, or 0.40 s fixed). An
# absolute bound of 2.5 s no longer told the two apart, and failed under
# AddressSanitizer on a loaded machine (2.54 s, fixed).
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

RUN="$PICL_BUILDDIR/picl-rt/piclrun"
PROG="$PICL_BUILDDIR/t/rt/ring-stress"
cd "$TMP"

if ! command -v taskset >/dev/null || ! taskset -c 0 true 2>"$TMP/ts.err"; then
  echo "SKIP: no taskset, or CPU 0 not ours"
  exit 77
fi
# cpu_ms RING: runs 20000 messages on CPU 0 with rings of RING bytes and
# prints the run's CPU time (user + system of the children, ms, from the
# shell's times)
cpu_ms() {
  (env PICL_RING_SIZE="$1" taskset -c 0 timeout 120 "$RUN" -n 2 --timeout 100 \
    "$PROG" 7 20000 >"$TMP/out" 2>"$TMP/err"; echo "rc $?"; times) >"$TMP/times"
  grep -qx 'rc 0' "$TMP/times" || fail "the run with rings of $1 failed: $(cat "$TMP/times" "$TMP/err")"
  [ "$(grep -c '^ring-stress: node [0-9]*: [0-9]* messages, 0 wrong$' "$TMP/out")" -eq 2 ] ||
    fail "wrong messages: $(head -5 "$TMP/out")"
  tail -1 "$TMP/times" | awk '{
    t = 0
    for (i = 1; i <= 2; i++) { split($i, a, "m"); sub("s", "", a[2]); t += a[1] * 60 + a[2] }
    printf "%d\n", t * 1000 }'
}
# against the same run with rings of 1 MiB, where no sender waits for
# room (the start, the merge and a sanitizer's cost are in both): the
# waits cost 50 ms (120 under AddressSanitizer), the spinning 900 (1200)
small=$(cpu_ms 4096)
big=$(cpu_ms 1048576)
[ $((small - big)) -lt 500 ] ||
  fail "2 processes on one CPU took $small ms of CPU time for 20000 messages with rings of 4 KiB, $big ms with rings of 1 MiB"
echo "ok: $small ms of CPU time with rings of 4 KiB, $big ms with rings of 1 MiB"
