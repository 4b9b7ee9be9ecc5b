#!/bin/sh
# stat --emit-records on a trace without statistics records, appended to
# it, makes a trace that picltrace validate accepts and that stat --compare
# finds in agreement with the events; a value changed in those records is
# a difference to both. The trace has what the records must get right:
# traceevents' -902 (6 user event types profiled), a user event nested in
# itself (4; its time is the outer instance's, 0.4 s, and the mark 5 and
# both sends inside it count relative to 4), a send written as a mark, a
# broadcast, a recv0 (-51) inside a user event, the host, negative times.
# Its emitted records are the same whether the trace is sorted or not.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"

cat >m.picl <<'T'
-5 4 -1.000000 -1 -1 5 0 outer
-3 -901 -0.500000 0 0 0
-3 -902 -0.499000 0 0 1 2 6
-4 -902 -0.498000 0 0 0
-3 -11 -0.400000 0 0 0
-4 -11 -0.300000 0 0 0
-3 4 -0.200000 0 0 0
-2 5 -0.150000 0 0 0
-3 4 -0.100000 0 0 0
-2 -21 -0.050000 0 0 3 2 12 3 1
-4 4 0.000000 0 0 0
-3 -21 0.100000 0 0 3 2 7 2 -1
-4 -21 0.100001 0 0 0
-4 4 0.200000 0 0 0
-3 3 0.250000 0 0 0
-3 -52 0.300000 0 0 1 2 9
-4 -52 0.700000 0 0 3 2 5 9 2
-4 3 0.800000 0 0 0
-2 -12 0.900000 0 0 0
-4 -901 1.000000 0 0 0
-3 -901 -0.500000 1 0 0
-3 -11 -0.400000 1 0 0
-4 -11 -0.300000 1 0 0
-3 0 -0.250000 1 0 0
-3 -51 -0.100000 1 0 1 2 3
-4 -51 0.000000 1 0 3 2 12 3 0
-3 -52 0.050000 1 0 1 2 2
-4 -52 0.200000 1 0 3 2 7 2 0
-4 0 0.300000 1 0 0
-2 -12 0.900000 1 0 0
-4 -901 1.000000 1 0 0
-3 -901 -0.500000 2 0 0
-3 -11 -0.400000 2 0 0
-4 -11 -0.300000 2 0 0
-3 -52 0.000000 2 0 1 2 2
-4 -52 0.150000 2 0 3 2 7 2 0
-3 -21 0.400000 2 0 3 2 5 9 0
-4 -21 0.450000 2 0 0
-2 -12 0.900000 2 0 0
-4 -901 1.000000 2 0 0
-3 -901 -0.600000 32767 0 0
-3 6 -0.500000 32767 0 0
-4 6 0.950000 32767 0 0
-4 -901 1.100000 32767 0 0
T
run "$PT" validate m.picl
expect_rc 0
run "$PT" stat --emit-records m.picl
expect_rc 0
cp "$TMP/out" m.rec
# by hand, processor 0: user event 4 from -0.2 to 0.2 (the inner one,
# -0.1 to 0.0, inside it), 3 from 0.25 to 0.8 holds recv0 blocked 0.3-0.7
grep -qx -- '-101 -1 1.000000 0 0 2 "%d%lf" 3 0.550000 4 0.400000' m.rec &&
  grep -qx -- '-102 4 1.000000 0 0 2 "%d%d" -21 2 5 1' m.rec &&
  grep -qx -- '-103 4 1.000000 0 0 1 "%d%d" -21 19' m.rec &&
  grep -qx -- '-101 3 1.000000 0 0 1 "%d%lf" -52 0.400000' m.rec ||
  fail "emitted records differ from the hand values: $(cat m.rec)"
"$PT" sort m.picl >sorted.picl
run "$PT" stat --emit-records sorted.picl
expect_rc 0
cmp -s "$TMP/out" m.rec || fail "sorting the trace changes the emitted records"

cat m.picl m.rec >full.picl
run "$PT" validate full.picl
expect_rc 0
run "$PT" stat --compare full.picl
expect_rc 0
grep -q '^the statistics records agree with the events: [1-9][0-9]* values compared$' "$TMP/out" ||
  fail "stat --compare on its own records: $(cat "$TMP/out")"
grep -v '^note: .*the volume of -901' "$TMP/out" | grep -q '^note:' &&
  fail "stat --compare notes more than -901's volume: $(cat "$TMP/out")"

# One count off (recv0 blocked on processor 2: 1 -> 2): both see it.
sed 's/^\(-102 -1 1.000000 2 0 5 "%d%d" -11 1 -12 1 -21 1 -52\) 1 /\1 2 /' m.rec >bad.rec
cmp -s bad.rec m.rec && fail "the test's sed changed nothing"
cat m.picl bad.rec >full.picl
run "$PT" validate full.picl
expect_rc 1
run "$PT" stat --compare full.picl
expect_rc 1
grep -q 'processor 2, process 0, relative to -1: count of -52 recv0 blocked: recorded 2, the events give 1$' "$TMP/out" ||
  fail "stat --compare on a changed count: $(cat "$TMP/out")"
rm -f m.picl m.rec sorted.picl full.picl bad.rec
