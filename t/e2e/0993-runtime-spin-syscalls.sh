#!/bin/sh
# 0993-runtime-spin-syscalls.sh - a sender spinning for room in a ring
# makes no system call until the spinning is over: 2 processes (on 2 CPUs
# or more, so that they spin) exchanging 20000 messages through rings of
# 4 KiB (t/rt/ring-stress) make about one kill(2) per sched_yield(2), the
# liveness check of a peer after each yield (at most 5, and 10000 more). Counted by perf stat; SKIP
# without perf, its syscall tracepoints or 2 CPUs. The check was made in
# every round of the spin: 0.8 to 18 million kill(2) for 20000 to 50000
# yields, a spin that should take microseconds taking milliseconds.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

RUN="$PICL_BUILDDIR/picl-rt/piclrun"
PROG="$PICL_BUILDDIR/t/rt/ring-stress"
cd "$TMP"

ev=syscalls:sys_enter_kill,syscalls:sys_enter_sched_yield
if ! command -v perf >/dev/null ||
   ! perf stat -x, -e "$ev" -o "$TMP/probe" true 2>"$TMP/perf.err" ||
   ! grep -q 'sys_enter_kill' "$TMP/probe" ||
   grep -q 'not supported\|not counted' "$TMP/probe"; then
  echo "SKIP: perf cannot count system calls here"
  exit 77
fi
if [ "$(getconf _NPROCESSORS_ONLN)" -lt 2 ] ||
   { command -v nproc >/dev/null && [ "$(nproc)" -lt 2 ]; }; then
  echo "SKIP: fewer than 2 CPUs: the processes do not spin"
  exit 77
fi
run env PICL_RING_SIZE=4096 perf stat -x, -e "$ev" -o "$TMP/stat" \
  timeout 120 "$RUN" -n 2 --timeout 100 "$PROG" 7 20000
expect_rc 0
[ "$(grep -c '^ring-stress: node [0-9]*: [0-9]* messages, 0 wrong$' "$TMP/out")" -eq 2 ] ||
  fail "$last: $(head -5 "$TMP/out")"
kills=$(awk -F, '/sys_enter_kill/ { print $1 }' "$TMP/stat")
yields=$(awk -F, '/sys_enter_sched_yield/ { print $1 }' "$TMP/stat")
case "$kills$yields" in
  *[!0-9]*|'') fail "perf stat said: $(cat "$TMP/stat")" ;;
esac
# (a run sharing the CPUs with other work yields more and looks at its
# peers in other waits too: 2.6 kill(2) a yield was seen; the spin made
# 16 to 360)
[ "$kills" -le $((5 * yields + 10000)) ] ||
  fail "$kills kill(2) for $yields sched_yield(2)"
echo "ok: $kills kill(2), $yields sched_yield(2)"
