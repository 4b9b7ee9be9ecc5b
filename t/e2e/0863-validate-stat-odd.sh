#!/bin/sh
# A statistics record whose data end with an event type without its value
# ("%d" -52; "%d%d%d" -52 8 1) is an error at that value: validate passed
# it in silence (descriptor-data checks the kinds of the values only, and
# the statistics rule skipped what was not pairs), while stat --compare stops on it.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"

events() {
  cat <<EOF
-3 -901 0.000000 0 0 0
-3 -21 0.000110 0 0 3 2 8 1 0
-4 -21 0.000120 0 0 0
-3 -52 0.000128 0 0 1 2 1
-4 -52 0.000516 0 0 3 2 8 1 0
-4 -901 0.001000 0 0 0
EOF
}

{ events; echo '-103 -1 0.001 0 0 1 "%d" -52'; } > t.picl
run "$PT" validate t.picl
expect_rc 1
grep -q '^t.picl:7:26: statistics: 1 data values: the last event type has no value' "$TMP/out" ||
  fail "validate, \"%d\" -52: $(cat "$TMP/out")"
run "$PT" stat --compare t.picl
expect_rc 2

{ events; echo '-103 -1 0.001 0 0 1 "%d%d%d" -52 8 1'; } > t.picl
run "$PT" validate t.picl
expect_rc 1
grep -q '^t.picl:7:36: statistics: 3 data values: the last event type has no value' "$TMP/out" ||
  fail "validate, \"%d%d%d\" -52 8 1: $(cat "$TMP/out")"

# Whole pairs stay right.
{ events; echo '-103 -1 0.001 0 0 2 "%d%d" -21 8 -52 8'; } > t.picl
validate_ok t.picl
rm -f t.picl
