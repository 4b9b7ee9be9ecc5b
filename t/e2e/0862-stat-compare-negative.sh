#!/bin/sh
# Only -1 means "not measured" (spec section 2.3.7: "the associated time
# statistic value is -1"); any other negative statistic is a value, and a
# wrong one: stat --compare skipped every negative value as not measured,
# while validate reported it.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"

# One -52 interval of 0.000388 inside user event 0; $1 and $2 are its
# recorded time and count relative to 0.
trace() {
  cat <<EOF
-3 -901 0.000000 0 0 0
-3 0 0.000100 0 0 0
-3 -21 0.000110 0 0 3 2 8 1 0
-4 -21 0.000120 0 0 0
-3 -52 0.000128 0 0 1 2 1
-4 -52 0.000516 0 0 3 2 8 1 0
-4 0 0.000600 0 0 0
-4 -901 0.001000 0 0 0
-101 0 0.001000 0 0 2 "%d%lf" -21 0.000010 -52 $1
-102 0 0.001000 0 0 2 "%d%d" -21 1 -52 $2
EOF
}

# -1: not measured, by both.
trace -1 -1 > t.picl
validate_ok t.picl
run "$PT" stat --compare t.picl
expect_rc 0
grep -q '^2 values recorded as -1 (not measured) were not compared' "$TMP/out" ||
  fail "stat --compare, -1: $(cat "$TMP/out")"
trace -1.000000 -1 > t.picl
validate_ok t.picl

# Other negative values are differences, for both, at the value.
trace -0.000388 -3 > t.picl
run "$PT" validate t.picl
expect_rc 1
grep -q '^t.picl:9:48: statistics: time of event -52 relative to 0 is -0.000388' "$TMP/out" ||
  fail "validate, -0.000388: $(cat "$TMP/out")"
grep -q '^t.picl:10:40: statistics: count of event -52 relative to 0 is -3' "$TMP/out" ||
  fail "validate, -3: $(cat "$TMP/out")"
run "$PT" stat --compare t.picl
expect_rc 1
grep -q '^t.picl:9:48: .*time of -52 recv0 blocked: recorded -0.000388, the events give 0.000388' "$TMP/out" ||
  fail "stat --compare, -0.000388: $(cat "$TMP/out")"
grep -q '^t.picl:10:40: .*count of -52 recv0 blocked: recorded -3, the events give 1' "$TMP/out" ||
  fail "stat --compare, -3: $(cat "$TMP/out")"
if grep -q 'not measured' "$TMP/out"; then
  fail "stat --compare takes -0.000388 or -3 for -1: $(cat "$TMP/out")"
fi
rm -f t.picl
