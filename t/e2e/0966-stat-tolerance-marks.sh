#!/bin/sh
# The tolerance of a recorded statistics time is one unit of the
# timestamps' last decimal per interval summed, and an interval is an entry
# matched by its exit: a mark has no duration, so it adds no rounding.
# Validate and stat --compare counted every occurrence (marks too), so a
# time off by three units passed when three marks of the event type came
# with its one interval.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"

# User event 5: one interval of 0.000516 - 0.000128 = 0.000388 s and
# three marks; $1 is the time recorded for 5 relative to -1.
trace() {
  cat <<EOF2
-3 -901 0.000000 0 0 0
-2 5 0.000050 0 0 0
-3 5 0.000128 0 0 0
-2 5 0.000200 0 0 0
-4 5 0.000516 0 0 0
-2 5 0.000600 0 0 0
-4 -901 0.001000 0 0 0
-101 -1 0.001000 0 0 1 "%d%lf" 5 $1
EOF2
}

for v in 0.000388 0.000387 0.000389; do
  trace "$v" > m.picl
  run "$PT" validate m.picl
  [ "$rc" = 0 ] || fail "validate refuses $v: $(cat "$TMP/out")"
  run "$PT" stat --compare m.picl
  [ "$rc" = 0 ] || fail "stat --compare refuses $v: $(cat "$TMP/out")"
done
# Two to four units off: within four occurrences' units, not one interval's.
for v in 0.000390 0.000386 0.000392; do
  trace "$v" > m.picl
  run "$PT" validate m.picl
  [ "$rc" = 1 ] || fail "validate accepts $v (exit $rc): $(cat "$TMP/out")"
  grep -q "^m.picl:8:[0-9]*: statistics: time of event 5 relative to -1 is $v, the events give 0.000388 (tolerance 0.000001)" "$TMP/out" ||
    fail "validate on $v: $(cat "$TMP/out")"
  run "$PT" stat --compare m.picl
  [ "$rc" = 1 ] || fail "stat --compare accepts $v (exit $rc): $(cat "$TMP/out")"
  grep -q "^m.picl:8:[0-9]*: .*time of 5.*: recorded $v, the events give 0.000388" "$TMP/out" ||
    fail "stat --compare on $v: $(cat "$TMP/out")"
done
rm -f m.picl
