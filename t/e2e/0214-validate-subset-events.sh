#!/bin/sh
# Entry, exit and mark records of a subset event type (-1012, -1001, a
# -203 subset) are legal (spec section 2.3.3). A statistics record that
# listed the subset's pair got "count of event -1012 relative to -1 is
# left out" all the same: the pair of a subset is a sum, not the event
# type's own, and validate expected one of its own. Such records count in
# their subset's sum, in validate and in stat --compare alike.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"

cat > t.picl <<'EOF'
-203 -1 0 -1 -1 3 2 -2000 -21 -52
-3 -901 0.0 0 0 0
-3 -1012 0.1 0 0 0
-4 -1012 0.2 0 0 0
-2 -1001 0.3 0 0 0
-2 -2000 0.4 0 0 0
-4 -901 1.0 0 0 0
-101 -1 1.0 0 0 2 "%d%lf" -901 1.0 -1012 0.1
-102 -1 1.0 0 0 4 "%d%d" -901 1 -1012 1 -1001 1 -2000 1
EOF
validate_ok t.picl
run "$PT" validate t.picl
grep -q 'left out' "$TMP/out" && fail "a subset's pair is listed: $(cat "$TMP/out")"

# stat --compare counts them as validate does (it said "count of -1012:
# recorded 1, the events give 0", its own table giving -1012 a count of 1).
run "$PT" stat --compare t.picl
expect_rc 0
grep -q '^the statistics records agree with the events' "$TMP/out" ||
  fail "stat --compare: $(cat "$TMP/out")"

# A plain event type (a mark of -602) left out is still reported.
sed 's/-2 -2000 0.4 0 0 0/-2 -602 0.4 0 0 0/; s/4 "%d%d" -901 1 -1012 1 -1001 1 -2000 1$/3 "%d%d" -901 1 -1012 1 -1001 1/' t.picl > u.picl
run "$PT" validate u.picl
expect_rc 1
grep -q '^u.picl:9:1: statistics: count of event -602 relative to -1 is left out, the events give 1' "$TMP/out" ||
  fail "a user event left out: $(cat "$TMP/out")"
rm -f t.picl u.picl
