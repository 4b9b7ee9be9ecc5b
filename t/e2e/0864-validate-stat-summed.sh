#!/bin/sh
# Statistics records of processor -1, process -1 or a processor subset
# stand for the sum over their processes: validate checked none of them
# (a count of 5 for 2 sends passed), stat --compare summed them; now both
# sum, and agree.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"

# Processors 0 and 1 (process 0) each send one message to itself and
# receive it (-52 for 0.000388 s, 8 bytes); processor 2 does nothing.
proc() {
  cat <<EOF
-3 -901 0.000000 $1 0 0
-3 -21 0.000110 $1 0 3 2 8 1 $1
-4 -21 0.000120 $1 0 0
-3 -52 0.000128 $1 0 1 2 1
-4 -52 0.000516 $1 0 3 2 8 1 $1
-4 -901 0.001000 $1 0 0
EOF
}
with() {
  { proc 0; proc 1; proc 2 | sed -n '1p;$p'; echo '-201 -1 0.0 -1 -1 3 "%d" -5 1 2'
    echo "$1"; } > t.picl
}
both_accept() {
  with "$1"
  validate_ok t.picl
  run "$PT" stat --compare t.picl
  expect_rc 0
}
both_refuse() {  # record, column, what validate says
  with "$1"
  run "$PT" validate t.picl
  expect_rc 1
  grep -q "^t.picl:16:$2: statistics: $3" "$TMP/out" || fail "validate, $1: $(cat "$TMP/out")"
  run "$PT" stat --compare t.picl
  expect_rc 1
  grep -q "^t.picl:16:$2: " "$TMP/out" || fail "stat --compare, $1: $(cat "$TMP/out")"
}

both_accept '-102 -1 0.001 -1 -1 2 "%d%d" -21 2 -52 2'
both_accept '-101 -1 0.001 -1 -1 2 "%d%lf" -21 0.000020 -52 0.000776'
both_accept '-103 -1 0.001 -1 0 2 "%d%d" -21 16 -52 16'
both_accept '-102 -1 0.001 0 -1 2 "%d%d" -21 1 -52 1'
both_accept '-102 -1 0.001 -5 0 2 "%d%d" -21 1 -52 1'
both_refuse '-102 -1 0.001 -1 -1 1 "%d%d" -21 5' 34 'count of event -21 relative to -1 is 5, the events give 2'
both_refuse '-101 -1 0.001 -1 -1 1 "%d%lf" -52 0.000779' 35 'time of event -52 relative to -1 is 0.000779, the events give 0.000776'
both_refuse '-103 -1 0.001 -1 0 1 "%d%d" -52 17' 33 'volume of event -52 relative to -1 is 17, the events give 16'
both_refuse '-102 -1 0.001 -5 0 1 "%d%d" -52 2' 33 'count of event -52 relative to -1 is 2, the events give 1'
rm -f t.picl
