#!/bin/sh
# 0645-runtime-coll-p2p.sh - t/rt/coll-p2p on 1, 2, 3, 5 and 7 local
# processes: the collectives' messages and the program's point-to-point
# messages of the same type (or of any type, -1) never take each other's
# place, and recvinfo0 after a collective reports the program's last
# message; traced at PICL level 3, the trace is valid (its sends and
# receives match). A message taken by
# the wrong receive leaves a process waiting: `timeout` makes that a
# failure.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

RUN="$PICL_BUILDDIR/picl-rt/piclrun"
PROG="$PICL_BUILDDIR/t/rt/coll-p2p"
cd "$TMP"

for n in 1 2 3 5 7; do
  run timeout 60 "$RUN" -n $n --timeout 20 "$PROG"
  expect_rc 0
  [ "$(grep -c '^coll-p2p: node [0-9]*: 0 wrong$' "$TMP/out")" -eq $n ] ||
    fail "$last: $(head -5 "$TMP/out")"
done
PICL_TRACE_CLOCK=monotonic; export PICL_TRACE_CLOCK
run timeout 60 "$RUN" -n 3 --timeout 20 -o coll.picl "$PROG" trace
expect_rc 0
validate_ok coll.picl
# the collectives' messages (type 7) are recorded with the type they
# travel with, -2 - 7, and so match apart from the program's of type 7
awk '$1 == -3 && $2 == -21 && $9 == -9 { f = 1 } END { exit !f }' coll.picl ||
  fail "coll.picl: no collective's send0 record with type -9"

# a collective's type is checked as send0's is: a reserved one is an error
# with check0 on (once let through), and works with check0(0)
for call in gsum0 bcast0 gather0; do
  run timeout 60 "$RUN" -n 3 --timeout 20 "$PROG" reserved $call
  expect_rc 1
  grep -q "^picl: process [0-2]: $call: message type reserved for PICL itself (950000000)\$" "$TMP/err" ||
    fail "$last: $(cat "$TMP/out" "$TMP/err")"
  run timeout 60 "$RUN" -n 3 --timeout 20 "$PROG" reserved $call nocheck
  expect_rc 0
  [ "$(grep -c '^coll-p2p: node [0-9]*: 0 wrong$' "$TMP/out")" -eq 3 ] ||
    fail "$last: $(head -5 "$TMP/out")"
done
echo "ok: $ntest runs"
