#!/bin/sh
# A statistics record that events of its process follow is a sample, valid
# at its time (spec Table 21: "statistics valid at time"): validate
# compares it with the events before it, and stat --compare, which knows
# only the totals, notes it instead of calling a right sample a difference
# (it did). The process's final records are compared as before.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"

# $1: the sample's time and count of user event 5 (right: 1.0 and 1);
# $2: the final ones (right: 3.0 and 2), or none.
trace() {
  cat <<EOF
-3 -901 0.0 0 0 0
-3 5 1.0 0 0 0
-4 5 2.0 0 0 0
-101 -1 2.5 0 0 1 "%d%lf" 5 ${1% *}
-102 -1 2.5 0 0 1 "%d%d" 5 ${1#* }
-3 5 3.0 0 0 0
-4 5 5.0 0 0 0
-4 -901 6.0 0 0 0
EOF
  [ "$2" = none ] || cat <<EOF
-101 -1 6.0 0 0 1 "%d%lf" 5 ${2% *}
-102 -1 6.0 0 0 1 "%d%d" 5 ${2#* }
EOF
}

trace "1.0 1" none > t.picl
validate_ok t.picl
run "$PT" stat --compare t.picl
expect_rc 0
grep -q '^note: t.picl:4:29: .*time of 5 user event (1.0) is not compared: events of the process follow' "$TMP/out" ||
  fail "stat --compare, a right sample: $(cat "$TMP/out")"
grep -q '^note: t.picl:5:28: .*count of 5 user event (1) is not compared' "$TMP/out" ||
  fail "stat --compare, a right sample's count: $(cat "$TMP/out")"

# With the final records too, those are compared (the later pair counts).
trace "1.0 1" "3.0 2" > t.picl
validate_ok t.picl
run "$PT" stat --compare t.picl
expect_rc 0
grep -q 'agree with the events: 2 values compared' "$TMP/out" ||
  fail "stat --compare does not compare the final records: $(cat "$TMP/out")"

# A wrong sample: validate says so, at the value; stat notes it.
trace "2.0 1" none > t.picl
run "$PT" validate t.picl
expect_rc 1
grep -q '^t.picl:4:29: statistics: time of event 5 relative to -1 is 2.0, the events give 1.0' "$TMP/out" ||
  fail "validate, a wrong sample: $(cat "$TMP/out")"
run "$PT" stat --compare t.picl
expect_rc 0

# Wrong final records are differences for both.
trace "1.0 1" "3.0 3" > t.picl
run "$PT" validate t.picl
expect_rc 1
grep -q '^t.picl:10:28: statistics: count of event 5 relative to -1 is 3, the events give 2' "$TMP/out" ||
  fail "validate, a wrong total: $(cat "$TMP/out")"
run "$PT" stat --compare t.picl
expect_rc 1
grep -q '^t.picl:10:28: .*count of 5 user event: recorded 3, the events give 2' "$TMP/out" ||
  fail "stat --compare, a wrong total: $(cat "$TMP/out")"
rm -f t.picl
