#!/bin/sh
# An event type nested in itself (recursion) spends its time once: the -101
# time of E is the time spent in events of type E (spec Table 17:
# "cumulative time spent within event type"), the outermost instance's
# duration, while the -102 count counts every entry. The accumulator added
# each instance's duration, so a recursion of depth d counted the inner
# time d times (more time in E than the process ran). Validate, stat
# --compare and stat --emit-records agree on it.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"

# User event 3 from 0.0001 to 0.0005, inside it 3 again from 0.0002 to
# 0.0003; $1 is the recorded time of 3.
trace() {
  cat <<EOF2
-3 -901 0.000000 0 0 0
-3 3 0.000100 0 0 0
-3 3 0.000200 0 0 0
-4 3 0.000300 0 0 0
-4 3 0.000500 0 0 0
-4 -901 0.001000 0 0 0
-101 -1 0.001000 0 0 1 "%d%lf" 3 $1
-102 -1 0.001000 0 0 1 "%d%d" 3 2
EOF2
}

trace 0.000400 > n.picl
run "$PT" validate n.picl
[ "$rc" = 0 ] || fail "validate refuses the outer duration: $(cat "$TMP/out")"
run "$PT" stat --compare n.picl
[ "$rc" = 0 ] || fail "stat --compare refuses the outer duration: $(cat "$TMP/out")"
run "$PT" stat --emit-records n.picl
grep -q '^-101 -1 .* 3 0\.000400$' "$TMP/out" && grep -q '^-102 -1 .* 3 2$' "$TMP/out" ||
  fail "stat --emit-records: $(cat "$TMP/out")"

# The sum of both durations counts 0.0002 .. 0.0003 twice.
trace 0.000500 > n.picl
run "$PT" validate n.picl
[ "$rc" = 1 ] || fail "validate accepts the sum of nested durations: $(cat "$TMP/out")"
grep -q '^n.picl:7:[0-9]*: statistics: time of event 3 relative to -1 is 0.000500, the events give 0.000400 ' "$TMP/out" ||
  fail "validate on the sum: $(cat "$TMP/out")"
run "$PT" stat --compare n.picl
[ "$rc" = 1 ] || fail "stat --compare accepts the sum of nested durations: $(cat "$TMP/out")"
grep -q '^n.picl:7:[0-9]*: .*time of 3 .*: recorded 0.000500, the events give 0.000400$' "$TMP/out" ||
  fail "stat --compare on the sum: $(cat "$TMP/out")"
rm -f n.picl
