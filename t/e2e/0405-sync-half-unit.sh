#!/bin/sh
# picltrace sync: a correction of exactly half a unit of a record's time
# keeps the time as written. Two processors, one message each way, with
# latencies of 1 and 2 microseconds on 6-decimal times: the max-margin
# offset of processor 1 is -0.5 us (both latencies then 1.5 us), half a
# unit. Rounded away from zero it moved processor 1 by a whole unit (the
# latencies became 2 and 1), and syncing that output moved it back (or
# not, as the arithmetic's dust chose): sync's output did not stay put.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

cat >"$TMP/h.picl" <<'T'
-3 -901 0.000000 0 0 0
-3 -901 0.000000 1 0 0
-3 -21 0.000001 0 0 3 2 8 1 1
-4 -21 0.000001 0 0 0
-3 -52 0.000000 1 0 0
-4 -52 0.000003 1 0 3 2 8 1 0
-3 -21 0.000010 1 0 3 2 8 1 0
-4 -21 0.000010 1 0 0
-3 -52 0.000002 0 0 0
-4 -52 0.000011 0 0 3 2 8 1 1
-4 -901 0.000012 0 0 0
-4 -901 0.000012 1 0 0
T

run "$PT" sync --report -o "$TMP/s1.picl" "$TMP/h.picl"
expect_rc 0
grep -Eq '^ +1 +-0\.000000500 ' "$TMP/out" ||
  fail "the offset of processor 1 is not -0.5 us: $(cat "$TMP/out")"
cmp -s "$TMP/h.picl" "$TMP/s1.picl" ||
  fail "half a unit moved records: $(diff "$TMP/h.picl" "$TMP/s1.picl" | head -5)"

# and the output synced again is the same
run "$PT" sync -q -o "$TMP/s2.picl" "$TMP/s1.picl"
expect_rc 0
cmp -s "$TMP/s1.picl" "$TMP/s2.picl" || fail "a second sync moved records"
rm -f "$TMP/h.picl" "$TMP/s1.picl" "$TMP/s2.picl"
echo "PASS: $ntest sync half-unit checks"
