#!/bin/sh
# 0660-runtime-probe-gone.sh - a polling loop (probe0, recvstatus0) for a
# message that nobody left in the run can send fails as recv0 does ("no
# message can arrive any more"), where it once spun for ever; probe0
# after the peers ended still just returns 0, a hundred times in a row
# (t/rt/probe-gone: only a loop that goes on fails).
# piclrun --timeout bounds each run: without the fix it is what stops it.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

RUN="$PICL_BUILDDIR/picl-rt/piclrun"
PROG="$PICL_BUILDDIR/t/rt/probe-gone"
cd "$TMP"

gone_ok() {  # CALL WHO: the loop failed, naming CALL, before the timeout
  expect_rc 1
  grep -q "^picl: $2: $1: no message can arrive any more" "$TMP/err" ||
    fail "$last: $(cat "$TMP/err")"
  ! grep -q "probe-gone: .* found a message" "$TMP/out" ||
    fail "$last: the loop ended: $(cat "$TMP/out")"
  ! grep -qi "timeout\|timed out" "$TMP/err" ||
    fail "$last: only the timeout stopped it: $(cat "$TMP/err")"
}

for call in probe0 recvstatus0; do
  run timeout 60 "$RUN" -n 2 --timeout 15 "$PROG" exit $call
  gone_ok $call "process 0"
done
run timeout 60 "$RUN" -n 1 --host "$PROG" --timeout 15 "$PROG" host
gone_ok probe0 "process 32767"
run timeout 60 "$RUN" -n 2 --timeout 15 "$PROG" once
gone_ok probe0 "process 0"
grep -qx "probe-gone: 100 probe0 returned 0" "$TMP/out" ||
  fail "$last: probe0 after the peer ended: $(cat "$TMP/out")"
echo "ok: $ntest runs"
