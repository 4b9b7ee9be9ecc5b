#!/bin/sh
# picltrace sync: time statistics records (-101) are rescaled by the drift
# sync applies. Two processors exchange a message each way every second
# for 20 s (30 ms from send to receive, both ways); each spends 0.02 s per
# send, 0.08 s per receive and 0.2 s in user event 5 a second, so its -101
# record gives -21 0.4, -52 1.6 and 5 4.0 seconds. Processor 1's clock
# runs 100 ppm fast: it writes every true time t as t + 100e-6 t (all
# true times have 2 decimals, so its 6-decimal times are exact) and its
# statistics as 1.0001 times the true ones, with 5, 7 and 6 decimals:
# 0.40004, 1.6001600, 4.000400. sync takes it back by -99.990 ppm
# (1/1.0001 - 1), which makes every corrected interval of processor 1 its
# true length; its statistics must follow, each keeping its decimals:
# 0.40000, 1.6000000, 4.000000. Before, they kept their values and
# validate found them off by 100 ppm of the events' times. The reference's
# -101 record is written byte for byte, and --no-drift (an offset only
# changes no interval) leaves every -101 value as it was.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

awk 'function w(t, p) { return p == 1 ? t + 100e-6 * t : t }
function rec(type, ev, t, p, rest) { printf "%d %d %.6f %d 0%s\n", type, ev, w(t, p), p, rest }
BEGIN {
  for (p = 0; p < 2; p++) rec(-3, -901, 0, p, " 0")
  for (k = 0; k < 20; k++) {
    rec(-3, -21, k + 0.1, 0, " 3 2 8 1 1"); rec(-4, -21, k + 0.12, 0, " 0")
    rec(-3, -52, k + 0.05, 1, " 0");        rec(-4, -52, k + 0.13, 1, " 3 2 8 1 0")
    for (p = 0; p < 2; p++) { rec(-3, 5, k + 0.3, p, " 0"); rec(-4, 5, k + 0.5, p, " 0") }
    rec(-3, -21, k + 0.6, 1, " 3 2 8 1 0"); rec(-4, -21, k + 0.62, 1, " 0")
    rec(-3, -52, k + 0.55, 0, " 0");        rec(-4, -52, k + 0.63, 0, " 3 2 8 1 1")
  }
  rec(-101, -1, 19.9, 0, " 3 \"%d%lf\" -21 0.400000 -52 1.600000 5 4.000000")
  rec(-101, -1, 19.9, 1, " 3 \"%d%lf\" -21 0.40004 -52 1.6001600 5 4.000400")
  for (p = 0; p < 2; p++) rec(-4, -901, 19.9, p, " 0")
}' >"$TMP/drift.picl"

# the trace is clean as written (processor 1's clock agrees with itself)
validate_ok "$TMP/drift.picl"

# the -101 records without their time field
stats() {
  awk '$1 == -101 { $3 = "T"; print }' "$1"
}

run "$PT" sync --report --format=json -o "$TMP/synced.picl" "$TMP/drift.picl"
expect_rc 0
grep -q '"processor":1,"status":"two-way","offset":[-0-9.e]*,"drift_ppm":-99\.99[0-9]*,' \
  "$TMP/out" || fail "processor 1's drift is not -99.99 ppm: $(cat "$TMP/out")"
run "$PT" validate --max-errors=0 "$TMP/synced.picl"
grep 'statistics' "$TMP/out" && fail "validate finds the synced statistics off"
expect_rc 0
stats "$TMP/synced.picl" >"$TMP/got"
cat >"$TMP/want" <<'T'
-101 -1 T 0 0 3 "%d%lf" -21 0.400000 -52 1.600000 5 4.000000
-101 -1 T 1 0 3 "%d%lf" -21 0.40000 -52 1.6000000 5 4.000000
T
diff -u "$TMP/want" "$TMP/got" >&2 || fail "the synced -101 records are not the true times"
grep -x '^-101 -1 19.900000 0 0 .*' "$TMP/drift.picl" >"$TMP/ref.in"
grep -x '^-101 -1 [0-9.]* 0 0 .*' "$TMP/synced.picl" >"$TMP/ref.out"
[ -s "$TMP/ref.in" ] && cmp -s "$TMP/ref.in" "$TMP/ref.out" ||
  fail "the reference's -101 record changed: $(cat "$TMP/ref.out")"

# --no-drift: offsets only, no -101 value changes
run "$PT" sync -q --no-drift -o "$TMP/nodrift.picl" "$TMP/drift.picl"
stats "$TMP/drift.picl" >"$TMP/want"
stats "$TMP/nodrift.picl" >"$TMP/got"
diff -u "$TMP/want" "$TMP/got" >&2 || fail "--no-drift changed -101 values"
rm -f "$TMP/drift.picl" "$TMP/synced.picl" "$TMP/nodrift.picl" "$TMP/got" "$TMP/want" \
  "$TMP/ref.in" "$TMP/ref.out" "$TMP/out" "$TMP/err"

# A drift whose corrections round to nothing: two processors, a message
# each way at 0 and at 10 s with 1 us latencies, 1 us apart at 10 s. The
# estimate (offset -0.5 us, drift 0.1 ppm) moves no timestamp, so no
# interval changes, and the -901 total of 10.000003 s must stay: multiplied
# by 1 + drift it gained 1 us at every sync of the output (10.000004, then
# 10.000005), and validate found it no longer the events' sum.
cat >"$TMP/small.picl" <<'T'
-3 -901 0.000000 0 0 0
-3 -901 0.000000 1 0 0
-3 -21 0.000000 0 0 3 2 8 1 1
-4 -21 0.000000 0 0 0
-3 -52 0.000000 1 0 1 2 1
-4 -52 0.000001 1 0 3 2 8 1 0
-3 -21 0.000002 1 0 3 2 8 2 0
-4 -21 0.000002 1 0 0
-3 -52 0.000001 0 0 1 2 2
-4 -52 0.000002 0 0 3 2 8 2 1
-3 -21 10.000000 0 0 3 2 8 3 1
-4 -21 10.000000 0 0 0
-3 -52 9.999999 1 0 1 2 3
-4 -52 10.000000 1 0 3 2 8 3 0
-3 -21 10.000001 1 0 3 2 8 4 0
-4 -21 10.000001 1 0 0
-3 -52 10.000001 0 0 1 2 4
-4 -52 10.000002 0 0 3 2 8 4 1
-4 -901 10.000003 0 0 0
-4 -901 10.000003 1 0 0
-101 -1 10.000003 1 0 1 "%d%lf" -901 10.000003
T
cp "$TMP/small.picl" "$TMP/s0.picl"
for k in 1 2 3; do
  run "$PT" sync -q -o "$TMP/s$k.picl" "$TMP/s$((k - 1)).picl"
  expect_rc 0
  cmp -s "$TMP/s$k.picl" "$TMP/small.picl" || fail "sync number $k changed the trace: $(diff "$TMP/small.picl" "$TMP/s$k.picl")"
done
validate_ok "$TMP/s3.picl"
echo "PASS: $ntest sync time statistics checks"
