#!/bin/sh
# 0667-runtime-deadlock.sh - piclrun finds a deadlock (every process left
# waiting for a message, none on its way) and stops the run at once,
# keeping its trace, where the run once hung until --timeout or Ctrl-C;
# each process says what it waited for and what it has queued without
# receiving it. Runs that only wait for a process still computing, or not
# opened yet, are no deadlock. --deadlock=report says so and lets the
# processes wait. (t/rt/deadlock; the timeout wrapper bounds each run:
# without the detection, it is what would stop it.)
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

piclrun_setup
PROG="$PICL_BUILDDIR/t/rt/deadlock"

# dead WHO...: the run just made stopped on a deadlock, within seconds,
# naming each WHO as blocked, and its trace, if it traced, says why it is
# partial (validate's run leaves the run's standard error in run.err)
dead() {
  expect_rc 1
  cp "$TMP/err" run.err
  [ "$elapsed" -lt 15 ] || fail "$last: took $elapsed s"
  grep -q "^piclrun: deadlock: every process left waits for a message, and none is on its way$" \
    "$TMP/err" || fail "$last: no deadlock reported: $(cat "$TMP/err")"
  ! grep -q "timeout" "$TMP/err" || fail "$last: $(cat "$TMP/err")"
  for w in "$@"; do
    grep -q "^piclrun: deadlock: $w still blocked waiting for a message$" "$TMP/err" ||
      fail "$last: $w not named: $(cat "$TMP/err")"
    [ -n "$how" ] || continue
    grep -q -- "^-7 -1 .*piclrun: partial trace: deadlock: $w still blocked" d.picl ||
      fail "$last: no -7 record for $w"
  done
  [ -z "$how" ] || validate_ok d.picl --partial
}

for how in "" trace; do
  rm -f d.picl
  run_timed "$RUN" -n 2 -o d.picl "$PROG" types $how
  dead "process 0" "process 1"
  # what each waited for, and the message of the wrong type queued
  grep -q "^picl: process 0: recv0: piclrun stopped the run while it waited for a message of type 7$" \
    run.err || fail "process 0's wait: $(cat run.err)"
  grep -q "^picl: process 1: recv0: piclrun stopped the run while it waited for a message of type 5; not received: 1 message, of type 6 from process 0$" \
    run.err || fail "process 1's wait: $(cat run.err)"
  if [ -n "$how" ]; then
    grep -q -- "^-7 -911 [^ ]* 1 0 .* while it waited for a message of type 5; not received: 1 message, of type 6 from process 0$" \
      d.picl || fail "process 1's -7 record"
    # validate, after the fact: the send never received, and the receive
    # that waited for another type instead
    run "$PT" validate d.picl
    expect_rc 1
    l=$(grep -n '^-3 -52 [^ ]* 1 0 ' d.picl | cut -d: -f1)
    grep -q "^d.picl:[0-9]*:1: message-match: send of 8 bytes with type 6 to processor 1 is never received (processor 1 waited for type 5 instead, at line $l, in a receive that never ended)$" \
      "$TMP/out" || fail "$last: $(cat "$TMP/out")"
  fi
done

how=trace

# process 0 in close0's barrier, process 1 in recv0
run_timed "$RUN" -n 2 -o d.picl "$PROG" close trace
dead "process 0" "process 1"
grep -q "^picl: process 1: recv0: piclrun stopped the run while it waited for a message of type 5$" \
  run.err || fail "close: $(cat run.err)"

# the host waits for node 0, node 0 for the host
run_timed "$RUN" -n 1 --host "$PROG" -o d.picl "$PROG" host trace
dead "process 0" "the host (processor 32767)"
grep -q "^picl: process 32767: recv0: piclrun stopped the run while it waited for a message of type 3$" \
  run.err || fail "host: $(cat run.err)"

# the nodes deadlocked while the host, which closed, lives on for 20 s: a
# closed process cannot send, so it is no reason to wait for it, nor is
# the message node 0 sent it after, left in its ring
run_timed env DEADLOCK_HOST_CLOSES=1 "$RUN" -n 2 --host "$PROG" -o d.picl \
  "$PROG" types trace
expect_rc 1
grep -q "^piclrun: deadlock: process 1 still blocked waiting for a message$" "$TMP/err" ||
  fail "$last: $(cat "$TMP/err")"
grep -q "^picl: process 1: recv0: piclrun stopped the run while it waited for a message of type 5; not received: 1 message, of type 6 from process 0$" \
  "$TMP/err" || fail "$last: $(cat "$TMP/err")"
[ "$elapsed" -lt 15 ] || fail "$last: took $elapsed s"

# no deadlock: one computes for 2 s before it sends, or opens 2 s late;
# a token held 1 s a hop while the others wait; every message received
# but by one that computes
for how in "2 late" "2 lateopen" "4 tokens" "3 stale"; do
  set -- $how
  run_timed "$RUN" -n $1 -o ok.picl "$PROG" $2 trace
  expect_rc 0
  ! grep -q deadlock "$TMP/err" || fail "$last: $(cat "$TMP/err")"
  [ "$elapsed" -ge 2 ] || fail "$last: ended after $elapsed s"
  validate_ok ok.picl
done

# messages never received: said at close0 by their receiver, on standard
# error and in its trace; the run itself is fine
run env DEADLOCK_HOST_LEFTOVER=1 timeout -k 5 60 "$RUN" -n 2 --host "$PROG" -o l.picl \
  "$PROG" leftover trace
expect_rc 0
grep -q "^picl: process 1: close0: 2 messages sent to this process were never received, the first of type 6 from process 0$" \
  "$TMP/err" || fail "$last: $(cat "$TMP/err")"
grep -q "^picl: process 32767: close0: 1 message sent to this process was never received, of type 9 from process 0$" \
  "$TMP/err" || fail "$last: $(cat "$TMP/err")"
! grep -q "process 0: close0" "$TMP/err" || fail "$last: $(cat "$TMP/err")"
grep -q -- "^-7 -911 [^ ]* 1 0 .* picl: close0: 2 messages sent to this process were never received, the first of type 6 from process 0$" \
  l.picl || fail "no -7 record of the messages never received"
# validate finds the same two sends unmatched (and those to the host, which
# does not trace)
run "$PT" validate l.picl
expect_rc 1
for t in 6 8; do   # (no receive waited instead: no hint)
  grep -q "message-match: send of 8 bytes with type $t to processor 1 is never received$" \
    "$TMP/out" || fail "$last: $(cat "$TMP/out")"
done

# --deadlock=report: said once, the processes left waiting until the
# timeout ends the run
run_timed "$RUN" -n 2 --deadlock=report --timeout 4 -o d.picl "$PROG" types trace
expect_rc 1
[ "$elapsed" -ge 4 ] || fail "$last: ended after $elapsed s"
[ "$(grep -c "^piclrun: deadlock: every process left waits for a message, and none is on its way; they are left waiting (--deadlock=report)$" "$TMP/err")" -eq 1 ] ||
  fail "$last: $(cat "$TMP/err")"
grep -q "^piclrun: deadlock: process 1 still blocked waiting for a message$" "$TMP/err" ||
  fail "$last: $(cat "$TMP/err")"
grep -q "^piclrun: timeout after 4 s: process 1 still blocked waiting for a message$" "$TMP/err" ||
  fail "$last: $(cat "$TMP/err")"
grep -q -- "^-7 -1 .*piclrun: partial trace: timeout after 4 s: process 1 still blocked" d.picl ||
  fail "$last: no -7 record for the timeout"

run "$RUN" -n 2 --deadlock=wait "$PROG" types
expect_rc 2
grep -q "^piclrun: --deadlock wait: give stop or report$" "$TMP/err" ||
  fail "$last: $(cat "$TMP/err")"
echo "ok: $ntest runs"
