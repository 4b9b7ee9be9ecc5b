#!/bin/sh
# 0635-runtime-order.sh - t/rt/recv-order on 2 local processes: every
# receive call (recv0 of a type or any, probe0, recvbegin0 with recvend0
# or recvstatus0) gets the oldest unreceived message it matches, and none
# is lost, for several seeds, with the shared-memory ring at its default
# size and at its smallest (messages then wait in the sender), and traced.
# Messages a process sends itself, too (t/rt/self-send). A lost message
# leaves process 0 waiting: `timeout` makes that a failure.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

RUN="$PICL_BUILDDIR/picl-rt/piclrun"
PROG="$PICL_BUILDDIR/t/rt/recv-order"
cd "$TMP"

order_ok() {  # what the run printed says no message was wrong
  expect_rc 0
  grep -qx 'recv-order: [0-9]* messages, 0 wrong' "$TMP/out" ||
    fail "$last: $(head -5 "$TMP/out")"
}

for seed in 1 2 3; do
  run timeout 60 "$RUN" -n 2 "$PROG" $seed
  order_ok
done
run env PICL_RING_SIZE=4096 timeout 60 "$RUN" -n 2 "$PROG" 4
order_ok
run timeout 60 "$RUN" -n 2 -o order.picl "$PROG" 5 200 trace
order_ok
validate_ok order.picl

# messages to oneself: recv0, probe0, and a recvbegin0 posted before the
# send (recvend0 once waited for it forever)
for n in 1 2; do
  run timeout 60 "$RUN" -n $n --timeout 20 "$PICL_BUILDDIR/t/rt/self-send"
  expect_rc 0
  [ "$(grep -c '^self-send: node [0-9]*: 0 wrong$' "$TMP/out")" -eq $n ] ||
    fail "$last: $(head -5 "$TMP/out")"
done
# alone in the run (no piclrun, or piclrun -n 1), a receive of a message
# that is not there is an error (it once waited forever)
for call in recv0 wait0 recvend0; do
  run timeout 20 "$PICL_BUILDDIR/t/rt/self-send" $call
  expect_rc 1
  grep -q "^picl: process 0: $call: no such message can arrive: this process is the only one in the run (9)\$" "$TMP/err" ||
    fail "$last: $(cat "$TMP/err")"
  run timeout 20 "$RUN" -n 1 "$PICL_BUILDDIR/t/rt/self-send" $call
  expect_rc 1
  grep -q "^picl: process 0: $call: no .*message can arrive" "$TMP/err" ||
    fail "$last: $(cat "$TMP/err")"
done
# waiting for a process that has ended: the error names the call
for call in recv0 wait0 recvend0; do
  run timeout 60 "$RUN" -n 2 --timeout 20 "$PICL_BUILDDIR/t/rt/self-send" gone $call
  expect_rc 1
  grep -q "^picl: process 0: $call: no message can arrive any more" "$TMP/err" ||
    fail "$last: $(cat "$TMP/err")"
done
echo "ok: $ntest runs"
