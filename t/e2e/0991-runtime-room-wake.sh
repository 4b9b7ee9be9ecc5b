#!/bin/sh
# 0991-runtime-room-wake.sh - a sender blocked on a full ring (4 KiB, four
# messages of 1000 bytes) is woken when the receiver takes one message out
# of it (t/rt/room-wake): the median delay from the receive to the
# sender's send0 returning is well under the 2 ms a sleeping sender waits
# before it looks again on its own. A message taken whole from the ring
# once woke nobody: the median was 0.4 to 1.2 ms (10 to 30 us woken).
# Also for messages in several frames (4000 bytes), which woke it already.
# Timing on a shared machine: a size fails only when three runs in a row
# are slow.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

RUN="$PICL_BUILDDIR/picl-rt/piclrun"
PROG="$PICL_BUILDDIR/t/rt/room-wake"
cd "$TMP"

for size in 1000 4000; do
  for try in 1 2 3; do
    run env PICL_RING_SIZE=4096 timeout 60 "$RUN" -n 2 --timeout 50 "$PROG" $size 50
    expect_rc 0
    us=$(sed -n 's/^room-wake: median \([0-9]*\) us.*/\1/p' "$TMP/out")
    [ -n "$us" ] || fail "$last: $(cat "$TMP/out" "$TMP/err")"
    [ "$us" -ge 200 ] || break
    echo "$last: the sender was woken $us us after the receive (median)"
  done
  [ "$us" -lt 200 ] ||
    fail "$last: the sender was woken $us us after the receive (median), 3 times"
done
echo "ok: $ntest runs"
