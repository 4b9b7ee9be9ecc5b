#!/bin/sh
# A recorded statistics time agrees with the events within one unit of the
# timestamps' last decimal per interval summed (each interval is the
# difference of two rounded timestamps; PICL summed them before rounding),
# plus half a unit of the recorded value's own last digit when it is
# written coarser; validate and stat --compare take the same tolerance,
# and compare exactly however many digits the times have. Validate allowed
# two units per interval, stat no coarser value, and with 12 decimals both
# compared doubles (5 units off passed; stat showed ...044 for ...050).
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"

# One interval of recv0 blocked (-52), 0.000516 - 0.000128 = 0.000388,
# inside user event 0; the statistic of -52 relative to 0 is $1.
six() {
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
EOF
}
# One interval of 100000 s with 12 decimals; -901 relative to -1 is $1.
twelve() {
  cat <<EOF
-3 -901 100000.000000000001 0 0 0
-3 -21 100000.100000000001 0 0 3 2 8 7 0
-4 -21 100000.300000000002 0 0 0
-3 -52 100000.400000000000 0 0 1 2 7
-4 -52 100000.600000000000 0 0 3 2 8 7 0
-4 -901 200000.000000000001 0 0 0
-101 -1 200000.000000000001 0 0 3 "%d%lf" -21 0.200000000001 -52 0.2 -901 $1
EOF
}

agrees() {  # trace file
  run "$PT" validate "$1"
  [ "$rc" = 0 ] || fail "validate refuses $(tail -1 "$1" | sed 's/.* //'): $(cat "$TMP/out")"
  run "$PT" stat --compare "$1"
  [ "$rc" = 0 ] || fail "stat --compare refuses $(tail -1 "$1" | sed 's/.* //'): $(cat "$TMP/out")"
}
differs() {  # trace file, column, value as the message must show it
  run "$PT" validate "$1"
  [ "$rc" = 1 ] || fail "validate accepts $3 (exit $rc)"
  grep -q "^$1:9:$2: statistics: time of event -52 relative to 0 is $3," "$TMP/out" ||
    grep -q "^$1:7:$2: statistics: time of event -901 relative to -1 is $3," "$TMP/out" ||
    fail "validate on $3: $(cat "$TMP/out")"
  run "$PT" stat --compare "$1"
  [ "$rc" = 1 ] || fail "stat --compare accepts $3 (exit $rc)"
  grep -q "^$1:[79]:$2: .*: recorded $3, the events give" "$TMP/out" ||
    fail "stat --compare on $3: $(cat "$TMP/out")"
}

for v in 0.000388 0.000387 0.000389 0.0004 0.00039 3.88e-4; do
  six "$v" > s.picl
  agrees s.picl
done
for v in 0.000386 0.000390 0.0005 0.00038; do
  six "$v" > s.picl
  differs s.picl 48 "$v"
done

for v in 100000.000000000000 100000.000000000001 99999.999999999999; do
  twelve "$v" > w.picl
  agrees w.picl
done
for v in 100000.000000000002 100000.000000000005 100000.000000000050 99999.999999999990; do
  twelve "$v" > w.picl
  differs w.picl 75 "$v"
done
rm -f s.picl w.picl
