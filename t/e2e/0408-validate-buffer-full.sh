#!/bin/sh
# 0408-validate-buffer-full.sh - correct programs traced with tracenode's
# flush 0 (tracing stops when the buffer fills, -913; traceflush resumes
# it) and -1 (a ring that pushes out its oldest records, -914) validate:
# the message findings those missing records explain (a send whose
# receive was not traced, a receive whose send was not, the pairs FIFO
# matching gets wrong after a gap) are warnings that name the mark. What
# the records both processes kept prove wrong is an error still: a
# message sent to a process whose trace is whole and never received, a
# length that differs before any record went missing. picltrace stat
# counts what validate warns of, and leaves the pairs in doubt out.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

# Times from CLOCK_MONOTONIC, one clock for both processes (with trace.c's
# per-process TSC calibration a message may look received ~1 us before it
# was sent).
PICL_TRACE_CLOCK=monotonic; export PICL_TRACE_CLOCK
piclrun_setup

# full MODE SMALL RESUME LEFTOVER: processor SMALL traces into the
# smallest buffer (64 records) with tracenode's flush MODE, the other into
# one that never fills; processor 0 sends 100 messages of 1 to 7 bytes
# (so that a wrong pair shows in the lengths), processor 1 receives them;
# RESUME 1: both call traceflush after message 50, which resumes tracing
# after a -913; LEFTOVER 1 (2): processor 1 sends processor 0 a message of
# type 9 before (after) the others, which processor 0 never receives.
cat >full.c <<'EOS'
#include <picl.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	int np, me, host, i, mode, small, resume, leftover;
	char b[16];

	if (argc != 5)
		return 2;
	mode = atoi(argv[1]);
	small = atoi(argv[2]);
	resume = atoi(argv[3]);
	leftover = atoi(argv[4]);
	memset(b, 0, sizeof(b));
	open0(&np, &me, &host);
	tracenode(me == small ? 0 : 1 << 20, mode, 0);
	if (me == 1 && leftover == 1)
		send0(b, 4, 9, 0);
	for (i = 0; i < 100; i++) {
		if (me == 0) {
			send0(b, 1 + i % 7, 1, 1);
		} else {
			tracemark(1);
			recv0(b, sizeof(b), 1);
		}
		if (resume && i == 50)
			traceflush();
	}
	if (me == 1 && leftover == 2)
		send0(b, 4, 9, 0);
	close0(0);
	return 0;
}
EOS
picl_cc full full.c

# trace NAME ARGS: the run of full ARGS, in NAME.picl
trace() {
  t_name=$1
  shift
  run timeout 60 "$RUN" -n 2 -o $t_name.picl ./full "$@"
  expect_rc 0
}

# line_of FILE AWK: the line of the first record AWK selects
line_of() {
  awk "$2 { print NR; exit }" "$1"
}

# findings N PATTERN: N findings (N+: at least one) of the last validate
# match the extended regular expression PATTERN (the whole line)
findings() {
  f_n=$(grep -Ec "^$2\$" "$TMP/out" || true)
  case $1 in
  *+) [ "$f_n" -ge "${1%+}" ] ;;
  *) [ "$f_n" -eq "$1" ] ;;
  esac || fail "$last: $f_n findings like '$2', expected $1: $(cat "$TMP/out")"
}

# no_error: every finding of the last validate is a warning, and the
# summary says so
no_error() {
  grep -v ' warning: ' "$TMP/out" | grep -v '^[^:]*: [0-9]* records, ' >"$TMP/errors" || true
  [ ! -s "$TMP/errors" ] || fail "$last: errors: $(cat "$TMP/errors")"
  grep -Eq '^[^:]*: [0-9]+ records, 0 errors, [0-9]+ warnings$' "$TMP/out" ||
    fail "$last: $(tail -1 "$TMP/out")"
}

# stat_agrees NAME: picltrace stat counts the unmatched sends and receives
# whose partner may be missing as validate warns of them, and leaves out
# at least one pair after a gap when validate doubts one (PAIRS: 1)
stat_agrees() {
  run "$PT" validate --max-errors=0 $1.picl
  sa_sends=$(grep -c ' is never received (the trace buffer of ' "$TMP/out" || true)
  sa_recvs=$(grep -c ' matches no send (the trace buffer of ' "$TMP/out" || true)
  sa_pairs=$(grep -c ' may be paired with the wrong send)$' "$TMP/out" || true)
  run "$PT" stat --format=json $1.picl
  expect_rc 0
  key() { sed -n "s/.*\"$1\": \([0-9]*\).*/\1/p" "$TMP/out"; }
  [ "$(key unmatched_sends_gap)" = "$sa_sends" ] && [ "$(key unmatched_receives_gap)" = "$sa_recvs" ] ||
    fail "stat $1.picl: $(key unmatched_sends_gap) sends and $(key unmatched_receives_gap) receives unmatched for a gap, validate warns of $sa_sends and $sa_recvs"
  if [ "$sa_pairs" -gt 0 ]; then
    [ "$(key pairs_after_gap)" -gt 0 ] || fail "stat $1.picl: no pair left out, validate doubts $sa_pairs"
  fi
  run "$PT" stat $1.picl
  expect_rc 0
  grep -Eq '^  where trace buffers filled \(-913, -914\), records are missing: [0-9]+ pairs? after them may be wrong, left out above; [0-9]+ unmatched sends? and [0-9]+ receives? may have lost their partner there$' "$TMP/out" ||
    fail "stat $1.picl: $(cat "$TMP/out")"
}

W='[^ ]*:[0-9]+:1: message-match: warning: '
N='[0-9]+'
BYTES="of $N bytes?"

# flush 0, the receiver's buffer fills: the sends after its -913 are never
# received in the trace, and nothing says they were not received after it
trace stop 0 1 0 0
mark=$(line_of stop.picl '$1 == -2 && $2 == -913 && $4 == 1')
[ -n "$mark" ] || fail "stop.picl: processor 1 has no -913 mark"
validate_ok stop.picl
no_error
findings 1+ "${W}send $BYTES with type 1 to processor 1 is never received \\(the trace buffer of processor 1 filled at line $mark, -913: the receive may not have been traced\\)"
stat_agrees stop

# ... and resumes at its traceflush (a -912 entry after the -913): from
# then on FIFO matching pairs its receives with the sends whose receives
# went untraced, whose lengths differ; warnings, the pairing is not sure
trace resume 0 1 1 0
mark=$(line_of resume.picl '$1 == -2 && $2 == -913 && $4 == 1')
awk -v m="$mark" 'NR > m && $1 == -3 && $2 == -912 && $4 == 1 { f = 1 } END { exit !f }' \
  resume.picl || fail "resume.picl: processor 1 did not resume tracing after its -913"
validate_ok resume.picl
findings 1+ "${W}receive of $N bytes with type 1 from processor 0 matches the send of $N bytes at line $N \\(the trace buffer of processor 1 filled at line $mark, -913: with records missing, the receive may be paired with the wrong send\\)"
findings 1+ "${W}send $BYTES with type 1 to processor 1 is never received \\(the trace buffer of processor 1 filled at line $N, -913: the receive may not have been traced\\)"
# (an entry open at the stop has no exit: a warning, as before)
no_error
stat_agrees resume

# flush -1, the receiver's ring wraps: its first receives were pushed out,
# the receives kept are paired with the first sends, the last sends are
# left over
trace ring -1 1 0 0
mark=$(line_of ring.picl '$1 == -2 && $2 == -914 && $4 == 1')
[ -n "$mark" ] || fail "ring.picl: processor 1 has no -914 mark"
validate_ok ring.picl
no_error
findings 1+ "${W}send $BYTES with type 1 to processor 1 is never received \\(the trace buffer of processor 1 wrapped at line $mark, -914: the receive may have been pushed out\\)"
findings 1+ "${W}receive of $N bytes with type 1 from processor 0 matches the send of $N bytes at line $N \\(the trace buffer of processor 1 wrapped at line $mark, -914: with records missing, the receive may be paired with the wrong send\\)"
stat_agrees ring

# the sender's buffer fills, stops or wraps: receives of sends never
# traced, without (with) a resuming traceflush
for how in "stop 0 0" "resume 0 1" "ring -1 0"; do
  set -- $how
  trace send$1 $2 0 $3 0
  k=$([ $2 = 0 ] && echo 913 || echo 914)
  mark=$(line_of send$1.picl "\$1 == -2 && \$2 == -$k && \$4 == 0")
  [ -n "$mark" ] || fail "send$1.picl: processor 0 has no -$k mark"
  validate_ok send$1.picl
  no_error
  if [ $2 = 0 ]; then
    lost="filled at line $mark, -913: the send may not have been traced"
  else
    lost="wrapped at line $mark, -914: the send may have been pushed out"
  fi
  findings 1+ "${W}receive $BYTES with type 1 from processor 0 matches no send \\(the trace buffer of processor 0 $lost\\)"
  stat_agrees send$1
done

# A message processor 1 sends before its buffer fills to processor 0,
# whose trace is whole, and processor 0 never receives: an error still,
# the one finding that is
trace left 0 1 0 1
send=$(line_of left.picl '$1 == -3 && $2 == -21 && $4 == 1')
run "$PT" validate --max-errors=0 left.picl
expect_rc 1
grep -v ' warning: ' "$TMP/out" >"$TMP/errors" || true
cat >"$TMP/want" <<T
left.picl:$send:1: message-match: send of 4 bytes with type 9 to processor 0 is never received
T
sed '$d' "$TMP/errors" | diff -u "$TMP/want" - >&2 || fail "$last: errors: $(cat "$TMP/errors")"
grep -Eq '^left.picl: [0-9]+ records, 1 error, [0-9]+ warnings$' "$TMP/out" ||
  fail "$last: $(tail -1 "$TMP/out")"
stat_agrees left

# ... and one processor 1 sends after the others to processor 0, whose
# ring wrapped long before: its receive cannot be in that ring's gap
trace leftring -1 0 0 2
send=$(awk '$1 == -3 && $2 == -21 && $4 == 1 { n = NR } END { print n }' leftring.picl)
run "$PT" validate --max-errors=0 leftring.picl
expect_rc 1
grep -v ' warning: ' "$TMP/out" >"$TMP/errors" || true
cat >"$TMP/want" <<T
leftring.picl:$send:1: message-match: send of 4 bytes with type 9 to processor 0 is never received
T
sed '$d' "$TMP/errors" | diff -u "$TMP/want" - >&2 || fail "$last: errors: $(cat "$TMP/errors")"
stat_agrees leftring

# A receive whose length differs from its send's, before the receiver's
# buffer filled (the first receive made 99 bytes): an error, where the
# same finding after the -913 is a warning
first=$(line_of stop.picl '$1 == -4 && ($2 == -51 || $2 == -52) && $4 == 1 && $6 == 3')
awk -v l="$first" 'NR == l { $8 = 99 } { print }' stop.picl >bad.picl
run "$PT" validate --max-errors=0 bad.picl
expect_rc 1
grep -Eq "^bad.picl:$first:1: message-match: receive of 99 bytes with type 1 from processor 0 matches the send of 1 byte at line $N\$" "$TMP/out" ||
  fail "$last: $(cat "$TMP/out")"
grep -Eq '^bad.picl: [0-9]+ records, 1 error, [0-9]+ warnings$' "$TMP/out" ||
  fail "$last: $(tail -1 "$TMP/out")"

# A ring's -914 that was not pushed out comes after the records kept that
# follow its gap (trace.c): processor 1's first receive kept, paired with
# the send whose receive was pushed out, is judged once the mark is seen,
# and the pair left out of stat's latencies
cat >inring.picl <<'T'
-3 -901 0.1 0 0 0
-3 -901 0.1 1 0 0
-3 -21 0.2 0 0 3 2 4 1 1
-4 -21 0.2 0 0 0
-3 -21 0.3 0 0 3 2 8 1 1
-4 -21 0.3 0 0 0
-3 -52 0.35 1 0 1 2 1
-4 -52 0.4 1 0 3 2 8 1 0
-2 -914 0.5 1 0 0
-4 -901 0.6 0 0 0
-4 -901 0.6 1 0 0
T
run "$PT" validate inring.picl
expect_rc 0
expect_out <<'T'
inring.picl:8:1: message-match: warning: receive of 8 bytes with type 1 from processor 0 matches the send of 4 bytes at line 3 (the trace buffer of processor 1 wrapped at line 9, -914: with records missing, the receive may be paired with the wrong send)
inring.picl:5:1: message-match: warning: send of 8 bytes with type 1 to processor 1 is never received (the trace buffer of processor 1 wrapped at line 9, -914: the receive may have been pushed out)
inring.picl: 11 records, 0 errors, 2 warnings
T
stat_agrees inring
grep -q '^== messages: 0 matched, 0 bytes; unmatched: 1 send, 0 receives$' "$TMP/out" ||
  fail "stat inring.picl: $(cat "$TMP/out")"
