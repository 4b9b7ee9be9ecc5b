#!/bin/sh
# picltrace validate: a clean two-processor trace, and one hand-made bad
# trace per rule (testdata/validate/*.picl; each says what it expects in
# "# expect:" comments). The expected outputs were worked out by hand from
# the traces, the spec and picltrace-validate(1).
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$PICL_SRCDIR/testdata/validate"

# Clean: nothing to report, also when checked for sorting.
run "$PT" validate clean-2proc.picl
expect_rc 0
expect_out <<'T'
clean-2proc.picl: 29 records, 0 errors, 0 warnings
T
expect_err </dev/null
run "$PT" validate --sorted --partial clean-2proc.picl
expect_rc 0
expect_out <<'T'
clean-2proc.picl: 29 records, 0 errors, 0 warnings
T

# syntax: the reader's own messages, at the offending field.
run "$PT" validate syntax.picl
expect_rc 1
expect_out <<'T'
syntax.picl:6:18: syntax: the record ends early: expected an integer process id
syntax.picl:7:8: syntax: expected a timestamp (a decimal number), found "0.00x"
syntax.picl: 4 records, 2 errors, 0 warnings
T
expect_err </dev/null

# descriptor-data: wrong count, bad control string, kinds and counts
# against the schema.
run "$PT" validate descriptor.picl
expect_rc 1
expect_out <<'T'
descriptor.picl:13:28: descriptor-data: expected an integer, found the end of the data (data field 3 of 3)
descriptor.picl:15:26: descriptor-data: %n is not allowed in a data descriptor
descriptor.picl:17:24: descriptor-data: the entry of event -902 (traceevents) should have "%d" data, not "%lf" (value 1 is a floating-point number)
descriptor.picl:19:24: descriptor-data: warning: the mark of event -904 (tracelevel) has 4 data values, the schema lists at most 3
descriptor.picl:20:23: descriptor-data: warning: the entry of event -11 (open0) has 1 data value, the schema lists none
descriptor.picl:22:21: descriptor-data: record type -5 (event label) should have character data ("%c"), not "%d"
descriptor.picl:23:24: descriptor-data: warning: the mark of event -902 (traceevents) has 2 data values, the schema lists at most 1
descriptor.picl:24:24: descriptor-data: the mark of event -902 (traceevents) should have "%d" data, not "%lf" (value 1 is a floating-point number)
descriptor.picl: 14 records, 5 errors, 3 warnings
T

# descriptor-data and alias-undefined for -6 records' own descriptors.
run "$PT" validate descriptor-def.picl
expect_rc 1
expect_out <<'T'
descriptor-def.picl:8:24: descriptor-data: record type -6 (event data descriptor) should have "%d%s" data, not "%d%d"
descriptor-def.picl:9:24: descriptor-data: record type -6 (event data descriptor) should have "%d%s" data, not "%ld"
descriptor-def.picl:10:26: descriptor-data: %n is not allowed in a data descriptor
descriptor-def.picl:12:24: alias-undefined: descriptor alias 9 is not defined for event -1 on processor -1, process -1
descriptor-def.picl: 5 records, 4 errors, 0 warnings
T

# alias-undefined: alias 9 is defined for event -21 only.
run "$PT" validate alias.picl
expect_rc 1
expect_out <<'T'
alias.picl:7:24: alias-undefined: descriptor alias 9 is not defined for event -902 on processor 0, process 0
alias.picl: 7 records, 1 error, 0 warnings
T

# subset-undefined and processor-range; a subset defined after its use is
# reported at the use when the definition is read.
run "$PT" validate subset.picl
expect_rc 1
expect_out <<'T'
subset.picl:10:17: subset-undefined: process subset -5 is not defined (no -202 record before this one defines it)
subset.picl:11:15: processor-range: warning: processor id -7 is not a processor (0 or more), the host (32767), -1 or a defined processor subset
subset.picl:12:4: unknown-event-type: warning: event type -555 is not in the schema and no event subset -555 is defined; readers skip it
subset.picl:11:15: subset-undefined: processor subset -7 is used before its definition at line 13
subset.picl:12:4: subset-undefined: event subset -555 is used before its definition at line 14
subset.picl:15:31: subset-undefined: event subset -1500 is not defined (no -203 record before this one defines it)
subset.picl: 9 records, 4 errors, 2 warnings
T

# entry-exit: an entry left open is named once, by the first exit that
# crosses it (line 13's -901 exit: not again at the end as never exited).
run "$PT" validate entry-exit.picl
expect_rc 1
expect_out <<'T'
entry-exit.picl:7:1: entry-exit: exit of event -11 has no matching entry on processor 0 process 0
entry-exit.picl:10:1: entry-exit: exit of event 0 closes its entry at line 8 while the entry of event 1 at line 9 is still open (improper nesting)
entry-exit.picl:13:1: entry-exit: exit of event -901 closes its entry at line 6 while the entry of event 2 at line 12 is still open (improper nesting)
entry-exit.picl: 8 records, 3 errors, 0 warnings
T

# entry-exit after a full buffer: an entry open when tracing stopped
# (-913, tracenode's flush 0) has no exit, and an exit after a ring
# wrapped (-914) may have lost its entry: warnings (records are missing)
# that name the mark, which the bare "improper nesting" and "no matching
# entry" did not; processor 1's entry is still open at the end
cat >"$TMP/full.picl" <<'T'
-3 -901 0.1 0 0 0
-3 1 0.2 0 0 2 2 0 15
-4 1 0.3 0 0 2 2 0 15
-3 1 0.4 0 0 2 2 0 16
-2 -913 0.5 0 0 0
-4 -901 0.6 0 0 0
-3 -901 0.1 1 0 0
-2 -914 0.2 1 0 0
-4 2 0.3 1 0 2 2 0 7
-3 2 0.4 1 0 2 2 0 8
-2 -913 0.5 1 0 0
T
run "$PT" validate "$TMP/full.picl"
expect_rc 1
expect_out <<T
$TMP/full.picl:6:1: entry-exit: warning: exit of event -901 closes its entry at line 1 while the entry of event 1 at line 4 is still open (the trace buffer filled at line 5, -913: its exit was not traced)
$TMP/full.picl:9:1: entry-exit: warning: exit of event 2 has no matching entry on processor 1 process 0 (the trace buffer wrapped at line 8, -914: its entry may have been pushed out)
$TMP/full.picl:7:1: entry-exit: warning: entry of event -901 is never exited (the trace buffer filled at line 11, -913: its exit was not traced)
$TMP/full.picl:10:1: entry-exit: warning: entry of event 2 is never exited (the trace buffer filled at line 11, -913: its exit was not traced)
$TMP/full.picl:11:1: tracing-first-last: the last event record of processor 1 process 0 is -2 -913, not the tracing exit -4 -901
$TMP/full.picl: 11 records, 1 error, 4 warnings
T
rm -f "$TMP/full.picl"

# tracing-first-last (and the -901 entry that is never exited); tracing
# started again while on; two intervals one after the other are fine.
run "$PT" validate tracing.picl
expect_rc 1
expect_out <<'T'
tracing.picl:8:1: tracing-first-last: the first event record of processor 0 process 0 is -3 -11, not the tracing entry -3 -901
tracing.picl:14:1: tracing-first-last: tracing entry -3 -901 of processor 2 process 0 while tracing is on since line 13 (one tracing interval at a time)
tracing.picl:9:1: tracing-first-last: the last event record of processor 0 process 0 is -4 -11, not the tracing exit -4 -901
tracing.picl:10:1: entry-exit: entry of event -901 is never exited
tracing.picl:12:1: tracing-first-last: the last event record of processor 1 process 0 is -4 -11, not the tracing exit -4 -901
tracing.picl: 13 records, 5 errors, 0 warnings
T

# time-order: per process always, across the file with --sorted (a record
# already reported for its process is not reported again).
run "$PT" validate time-order.picl
expect_rc 1
expect_out <<'T'
time-order.picl:6:8: time-order: timestamp 0.000010 is earlier than 0.000020 at line 5 on processor 0 process 0
time-order.picl: 6 records, 1 error, 0 warnings
T
run "$PT" validate --sorted time-order.picl
expect_rc 1
expect_out <<'T'
time-order.picl:6:8: time-order: timestamp 0.000010 is earlier than 0.000020 at line 5 on processor 0 process 0
time-order.picl:7:9: time-order: timestamp 0.000005 is earlier than 0.000010 of the record at line 6 (the trace is not sorted)
time-order.picl: 6 records, 2 errors, 0 warnings
T

# A -7 message out of its process's order is no violation, except in a
# trace that should be sorted.
run "$PT" validate message-record.picl
expect_rc 0
expect_out <<'T'
message-record.picl: 3 records, 0 errors, 0 warnings
T
run "$PT" validate --sorted message-record.picl
expect_rc 1
expect_out <<'T'
message-record.picl:5:9: time-order: timestamp 0.000000 is earlier than 0.000050 of the record at line 4 (the trace is not sorted)
message-record.picl: 3 records, 1 error, 0 warnings
T

# message-match: --partial makes the unmatched ones warnings, not the
# length that differs.
run "$PT" validate message.picl
expect_rc 1
expect_out <<'T'
message.picl:16:1: message-match: receive of 16 bytes with type 5 from processor 0 matches the send of 8 bytes at line 8
message.picl:10:1: message-match: send of 4 bytes with type 6 to processor 2 is never received
message.picl:12:1: message-match: broadcast of 32 bytes with type 7 is never received on processor 2
message.picl:21:1: message-match: receive of 4 bytes with type 9 from processor 1 matches no send
message.picl: 18 records, 4 errors, 0 warnings
T
run "$PT" validate --partial message.picl
expect_rc 1
expect_out <<'T'
message.picl:16:1: message-match: receive of 16 bytes with type 5 from processor 0 matches the send of 8 bytes at line 8
message.picl:10:1: message-match: warning: send of 4 bytes with type 6 to processor 2 is never received
message.picl:12:1: message-match: warning: broadcast of 32 bytes with type 7 is never received on processor 2
message.picl:21:1: message-match: warning: receive of 4 bytes with type 9 from processor 1 matches no send
message.picl: 18 records, 1 error, 3 warnings
T

# tachyon: both records' lines and times.
run "$PT" validate tachyon.picl
expect_rc 1
expect_out <<'T'
tachyon.picl:7:1: tachyon: message of type 3 from processor 0 to processor 1 is received at 0.000005 (line 7) before it was sent at 0.000010 (line 8)
tachyon.picl: 8 records, 1 error, 0 warnings
T

# statistics: at the value that disagrees.
run "$PT" validate statistics.picl
expect_rc 1
expect_out <<'T'
statistics.picl:15:50: statistics: time of event -221 relative to -1 is 0.000009, the events give 0.000005 (tolerance 0.000001)
statistics.picl:16:42: statistics: count of event -221 relative to -1 is 2, the events give 1
statistics.picl:17:36: statistics: volume of event -221 relative to -1 is 99, the events give 100
statistics.picl:18:49: statistics: time of event -11 relative to 0 is 0.000015, the events give none
statistics.picl: 12 records, 4 errors, 0 warnings
T

# header-processors: the -307 header records declare the processors (the
# matcher forgets a broadcast once all of them have it); one that appears
# unlisted is an error at its first record, after the header's end for
# one the header itself names.
run "$PT" validate header-processors.picl
expect_rc 1
expect_out <<'T'
header-processors.picl:10:11: header-processors: processor 5 is not one of those the -307 header records list; a broadcast is taken as received by all once they have it
header-processors.picl:17:18: header-processors: processor 2 is not one of those the -307 header records list; a broadcast is taken as received by all once they have it
header-processors.picl:20:1: message-match: receive of 8 bytes with type 7 from processor 0 matches no send
header-processors.picl: 16 records, 3 errors, 0 warnings
T
# Without the -307 records, the broadcast waits for the end, and is found
# missing only where no receive came: on processor 5, seen in the header.
grep -v '^-307' header-processors.picl >"$TMP/no307.picl"
run "$PT" validate "$TMP/no307.picl"
expect_rc 1
expect_out <<T
$TMP/no307.picl:11:1: message-match: broadcast of 8 bytes with type 7 is never received on processor 5
$TMP/no307.picl: 14 records, 1 error, 0 warnings
T

# A definition's processor is its scope (an alias for processor 1's
# records), not a record of processor 1: no header-processors error when
# the -307 records do not list it (filter -p keeps every definition).
printf '%s\n' '-307 -1 0 -1 -1 1 2 0' '-6 -1 0 1 -1 1 "%d%s" 6 "%d%lf"' \
  '-3 -901 0.000000 0 0 0' '-4 -901 0.000002 0 0 0' \
  >"$TMP/scoped.picl"
run "$PT" validate "$TMP/scoped.picl"
expect_rc 0
expect_out <<T
$TMP/scoped.picl: 4 records, 0 errors, 0 warnings
T
# ... while an event record of processor 1 still is one
printf '%s\n' '-3 -901 0.000003 1 0 0' '-4 -901 0.000004 1 0 0' >>"$TMP/scoped.picl"
run "$PT" validate "$TMP/scoped.picl"
expect_rc 1
grep -q "^$TMP/scoped.picl:5:18: header-processors: processor 1 is not one" "$TMP/out" ||
  fail "$last: $(cat "$TMP/out")"

# unknown-record-type, unknown-event-type: warnings only, so exit 0; user
# types and the host are fine.
run "$PT" validate unknown.picl
expect_rc 0
expect_out <<'T'
unknown.picl:8:1: unknown-record-type: warning: record type -77 is not in the schema; readers skip it
unknown.picl:9:4: unknown-event-type: warning: event type -555 is not in the schema and no event subset -555 is defined; readers skip it
unknown.picl:10:3: unknown-event-type: warning: event type -555 is not in the schema and no event subset -555 is defined; readers skip it
unknown.picl: 8 records, 0 errors, 3 warnings
T

# Several files: one summary each, the worst status wins.
run "$PT" validate --quiet clean-2proc.picl unknown.picl tachyon.picl
expect_rc 1
expect_out <<'T'
clean-2proc.picl: 29 records, 0 errors, 0 warnings
unknown.picl: 8 records, 0 errors, 3 warnings
tachyon.picl: 8 records, 1 error, 0 warnings
T

# Every "# expect:" comment names a finding the validator makes.
for f in *.picl; do
  "$PT" validate --sorted "$f" >"$TMP/all" 2>&1 || :
  sed -n 's/^# expect: \([a-z-]*\) \([0-9]*:[0-9]*\).*/\2: \1:/p' "$f" >"$TMP/expects"
  while read -r want; do
    grep -q "^$f:$want" "$TMP/all" || fail "$f: no finding $want"
  done <"$TMP/expects"
done
# Columns the validator finds itself point into the physical line the
# field came from when the record is continued (the time on line 3, the
# statistics value on line 7); an undefined alias
# is reported at its first digit, continued or not.
printf -- '-3 -901 1.0 0 0 0\n-3 -603 \\\n0.5 0 0 0\n-4 -603 0.6 0 0 0\n-4 -901 2.0 0 0 0\n-101 -1 2.0 0 0 1 "%%d%%lf" \\\n-901 5\n' >"$TMP/cont.picl"
run "$PT" validate "$TMP/cont.picl"
expect_rc 1
expect_out <<T
$TMP/cont.picl:3:1: time-order: timestamp 0.5 is earlier than 1.0 at line 1 on processor 0 process 0
$TMP/cont.picl:7:6: statistics: time of event -901 relative to -1 is 5, the events give 1.0 (tolerance 0.6)
$TMP/cont.picl: 5 records, 2 errors, 0 warnings
T
printf -- '0 5 1 0 0 1 12345 7\n0 5 1 0 0 1 \\\n 12345 7\n' >"$TMP/alias.picl"
run "$PT" validate "$TMP/alias.picl"
expect_rc 1
expect_out <<T
$TMP/alias.picl:1:13: alias-undefined: descriptor alias 12345 is not defined for event 5 on processor 0, process 0
$TMP/alias.picl:3:2: alias-undefined: descriptor alias 12345 is not defined for event 5 on processor 0, process 0
$TMP/alias.picl: 2 records, 2 errors, 0 warnings
T

# Events PICL counts but writes no records for (probe0's -53/-54, who0's
# -13, ...) may appear in statistics records: nothing to check them with.
printf '%s\n' '-3 -901 0 0 0 0' '-4 -901 1 0 0 0' \
  '-102 -1 1 0 0 4 "%d%d" -53 7 -54 2 -13 1 -901 1' >"$TMP/counted.picl"
run "$PT" validate "$TMP/counted.picl"
expect_rc 0
expect_out <<T
$TMP/counted.picl: 3 records, 0 errors, 0 warnings
T

# Exits of no open entry, and exits of an entry below the top, among
# entries pushed before and after: the same findings whether the stack is
# scanned or indexed by event type (openindex.h), holes and all.
printf '%s\n' '-3 -901 0 0 0 0' '-3 5 1 0 0 0' '-3 7 2 0 0 0' '-3 5 3 0 0 0' \
  '-4 6 4 0 0 0' '-4 7 5 0 0 0' '-4 7 6 0 0 0' '-3 8 7 0 0 0' '-4 5 8 0 0 0' \
  '-4 8 9 0 0 0' '-4 5 10 0 0 0' '-4 5 11 0 0 0' '-4 -901 12 0 0 0' >"$TMP/deep.picl"
run "$PT" validate "$TMP/deep.picl"
expect_rc 1
expect_out <<T
$TMP/deep.picl:5:1: entry-exit: exit of event 6 has no matching entry on processor 0 process 0
$TMP/deep.picl:6:1: entry-exit: exit of event 7 closes its entry at line 3 while the entry of event 5 at line 4 is still open (improper nesting)
$TMP/deep.picl:7:1: entry-exit: exit of event 7 has no matching entry on processor 0 process 0
$TMP/deep.picl:9:1: entry-exit: exit of event 5 closes its entry at line 4 while the entry of event 8 at line 8 is still open (improper nesting)
$TMP/deep.picl:12:1: entry-exit: exit of event 5 has no matching entry on processor 0 process 0
$TMP/deep.picl: 13 records, 5 errors, 0 warnings
T

# 300000 open entries, then 300000 exits of another event: each exit is
# known to match nothing without a scan of the stack (that took 70 s for
# 200000), then the entries are reported: the innermost by the -901 exit
# that crosses it, the 299999 others at the end.
awk 'BEGIN { n = 300000; print "-3 -901 0 0 0 0"
  for (i = 1; i <= n; i++) printf "-3 5 %d 0 0 0\n", i
  for (i = 1; i <= n; i++) printf "-4 6 %d 0 0 0\n", n + i
  printf "-4 -901 %d 0 0 0\n", 2 * n + 1 }' >"$TMP/unmatched.picl"
run_within 30 "$PT" validate --max-errors=3 "$TMP/unmatched.picl"
expect_rc 1
expect_out <<T
$TMP/unmatched.picl:300002:1: entry-exit: exit of event 6 has no matching entry on processor 0 process 0
$TMP/unmatched.picl:300003:1: entry-exit: exit of event 6 has no matching entry on processor 0 process 0
$TMP/unmatched.picl:300004:1: entry-exit: exit of event 6 has no matching entry on processor 0 process 0
$TMP/unmatched.picl: 600002 records, 600000 errors, 0 warnings (3 listed)
T
rm -f "$TMP/unmatched.picl"

# N entries of A, N of B, then N exits of A and N of B: each exit of A
# closes the innermost A, under all the Bs. A scan down the stack and a
# memmove of the Bs at each exit took 76 s in validate for N = 150000 (39
# s in stat, 52 s with system events); the stacks are indexed by event
# type and an entry exited below the top leaves a hole (openindex.h).
# Exit j of A, at time 2N + j, closes the entry at time N + 1 - j: the
# last, at 3N, closes the outermost, at 1, whose duration, 3N - 1, holds
# all the others (an event type nested in itself spends its time once);
# so for B, whose exits match the top (exit j at 3N + j closes the entry
# at 2N + 1 - j: the outermost, at N + 1, is closed at 4N).
layers() {
	awk -v a="$1" -v b="$2" 'BEGIN { n = 150000; print "-3 -901 0 0 0 0"
	  for (i = 1; i <= n; i++) printf "-3 %d %d 0 0 0\n", a, i
	  for (i = 1; i <= n; i++) printf "-3 %d %d 0 0 0\n", b, n + i
	  for (i = 1; i <= n; i++) printf "-4 %d %d 0 0 0\n", a, 2 * n + i
	  for (i = 1; i <= n; i++) printf "-4 %d %d 0 0 0\n", b, 3 * n + i
	  printf "-4 -901 %d 0 0 0\n", 4 * n + 1 }' >"$TMP/layers.picl"
}
# validate names the innermost B once, at the first exit of A that
# crosses it, not at each of the 150000 (it used to: 150000 errors, all
# naming line 300001).
layers 5 6
run_within 30 "$PT" validate --max-errors=3 "$TMP/layers.picl"
expect_rc 1
expect_out <<T
$TMP/layers.picl:300002:1: entry-exit: exit of event 5 closes its entry at line 150001 while the entry of event 6 at line 300001 is still open (improper nesting)
$TMP/layers.picl: 600002 records, 1 error, 0 warnings
T
run_within 30 "$PT" stat -q --format=csv "$TMP/layers.picl"
expect_rc 0
for row in '0,0,-1,event,5,user event,449999,150000,' \
	   '0,0,-1,event,6,user event,449999,150000,' \
	   '0,0,5,event,6,user event,449999,150000,' \
	   '0,0,-1,event,-901,tracing,600001,1,'; do
	grep -qx -e "$row" "$TMP/out" || fail "$last: no row $row"
done
# The same with system events: stat's profile keeps its own stack of
# them, and its category is the top's: overhead while only sends are open
# (1 .. N + 1), idle from the first blocked receive to the last (.. 4N).
layers -21 -52
run_within 30 "$PT" stat -q --format=csv "$TMP/layers.picl"
expect_rc 0
for row in '0,0,-1,event,-21,send0,449999,150000,' \
	   '0,0,-1,event,-52,recv0 blocked,449999,150000,' \
	   '0,0,,utilization,,overhead,150000,,' \
	   '0,0,,utilization,,idle,449999,,' \
	   '0,0,,utilization,,busy,2,,'; do
	grep -qx -e "$row" "$TMP/out" || fail "$last: no row $row"
done
rm -f "$TMP/layers.picl"

# A process's set of event types, sorted in when a statistics record needs
# it: a type seen twice among those not yet sorted, or once there and once
# among the sorted ones, is a member of the user subset (-1001) once.
printf '%s\n' '-3 -901 0 0 0 0' '-2 5000 1 0 0 0' '-2 3000 2 0 0 0' '-2 5000 3 0 0 0' \
  '-2 4000 4 0 0 0' '-102 -1 5 0 0 1 "%d%d" -1001 0' '-2 1000 6 0 0 0' \
  '-2 6000 7 0 0 0' '-2 3000 8 0 0 0' '-2 6000 9 0 0 0' '-4 -901 10 0 0 0' \
  '-102 -1 10 0 0 1 "%d%d" -1001 0' >"$TMP/types.picl"
run "$PT" validate "$TMP/types.picl"
expect_rc 1
expect_out <<T
$TMP/types.picl:6:30: statistics: count of event -1001 relative to -1 is 0, the events give 4
$TMP/types.picl:12:31: statistics: count of event -1001 relative to -1 is 0, the events give 8
$TMP/types.picl: 12 records, 2 errors, 0 warnings
T

# A million event types, in descending order, on one process: the set of
# a process's types takes them in O(log n) amortised each (kept sorted at
# every insertion, it took a minute), and the user subset (-1001) still
# sums over all of them.
awk 'BEGIN { n = 1000000; print "-3 -901 0 0 0 0"
  for (i = 0; i < n; i++) printf "-2 %d %d 0 0 0\n", n - i, i + 1
  printf "-4 -901 %d 0 0 0\n", n + 1
  printf "-102 -1 %d 0 0 2 \"%%d%%d\" -1001 %d -1002 1\n", n + 1, n + 1 }' >"$TMP/types.picl"
run_within 30 "$PT" validate "$TMP/types.picl"
expect_rc 1
expect_out <<T
$TMP/types.picl:1000003:36: statistics: count of event -1001 relative to -1 is 1000001, the events give 1000000
$TMP/types.picl: 1000003 records, 1 error, 0 warnings
T
rm -f "$TMP/types.picl"

# Event subsets -2 .. -11 each naming the next two levels 24 times, and an
# alias scoped to -2: looking up the alias for an event outside them
# followed every path, 24^8 of them (validate took minutes, stat hung);
# each subset is now visited once per question.
awk 'BEGIN { for (l = 0; l < 10; l++) {
    printf "-203 -1 0.%06d -1 -1 %d 2 %d", l + 1, l < 9 ? 25 : 2, -2 - l
    if (l < 9) for (j = 0; j < 24; j++) printf " %d", -3 - l - j % 2
    else printf " 1"
    printf "\n" }
  print "-6 -2 0.1 -1 -1 1 \"%d%s\" 6 \"%d%lf\""
  print "-6 -1 0.1 -1 -1 1 \"%d%s\" 6 \"%d%d\""
  print "-3 -901 0.2 0 0 0"
  for (i = 0; i < 100; i++) print "-2 7 0.3 0 0 1 6 3 4"
  print "-2 1 0.4 0 0 1 6 3 1.5"
  print "-4 -901 0.5 0 0 0" }' >"$TMP/nested.picl"
run_within 30 "$PT" validate "$TMP/nested.picl"
expect_rc 0
expect_out <<T
$TMP/nested.picl: 115 records, 0 errors, 0 warnings
T
run_within 30 "$PT" stat "$TMP/nested.picl"
expect_rc 0

# Alias 6 defined for 40000 events one by one, then used 300000 times: a
# look-up scanned every definition (quadratic, half a minute); scopes are found
# in a hash.
awk 'BEGIN { n = 40000; for (e = 0; e < n; e++)
    printf "-6 %d 0.%06d -1 -1 1 \"%%d%%s\" 6 \"%%d%%lf\"\n", e, e
  print "-3 -901 1 0 0 0"
  for (i = 0; i < 300000; i++) printf "-2 %d 2 0 0 1 6 3 1.5\n", i % n
  print "-4 -901 3 0 0 0" }' >"$TMP/aliases.picl"
run_within 30 "$PT" validate "$TMP/aliases.picl"
expect_rc 0
expect_out <<T
$TMP/aliases.picl: 340002 records, 0 errors, 0 warnings
T
rm -f "$TMP/nested.picl" "$TMP/aliases.picl"

echo "PASS: $ntest validate checks"
