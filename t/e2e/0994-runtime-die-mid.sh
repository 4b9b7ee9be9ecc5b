#!/bin/sh
# 0994-runtime-die-mid.sh - a sender killed in the middle of a message
# larger than the ring (t/rt/die-mid: 1 MiB through 4 KiB, the receiver
# holding the first part): the receiver fails at once, naming its call,
# whether it streams the message into its buffer (recv0 of the type, or
# of any type) or the engine reassembles it (probe0), and piclrun blames
# the killed process, not the receiver. It must neither wait for ever
# (timeout) nor take the part for the message.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

RUN="$PICL_BUILDDIR/picl-rt/piclrun"
PROG="$PICL_BUILDDIR/t/rt/die-mid"
cd "$TMP"

for how in recv any probe; do
  case $how in probe) call=probe0 ;; *) call=recv0 ;; esac
  run env PICL_RING_SIZE=4096 timeout 60 "$RUN" -n 2 --timeout 30 "$PROG" $how
  expect_rc 1
  ! grep -q 'received the whole message' "$TMP/out" ||
    fail "$last: took a part for the message"
  grep -q "^piclrun: process 1 was killed by signal SIGKILL" "$TMP/err" ||
    fail "$last: $(cat "$TMP/err")"
  grep -q "^picl: process 0: $call: no message can arrive any more" "$TMP/err" ||
    fail "$last: $(cat "$TMP/err")"
  grep -q "^piclrun: process 0 exited with status 1 after the failure of process 1" "$TMP/err" ||
    fail "$last: $(cat "$TMP/err")"
done
echo "ok: $ntest runs"
