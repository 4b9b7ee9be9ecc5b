#!/bin/sh
# picltrace sync: a clock that drifts more than --max-drift allows. Two
# processors exchange a message each way every second for 200 s, each
# taking 1 ms; then processor 1's clock is made to run 300 ppm fast
# (t -> t + 300e-6 t). No line within the 100 ppm bound meets every
# constraint, and the one that violates them least leans on the bound:
# processor 1's correction must then be -100 ppm (reported "drift not
# determined, inconsistent"), not 0, which would leave three times the
# violation to the raised receives. The output still has no tachyon and
# keeps each processor's order.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

awk 'BEGIN {
  for (p = 0; p < 2; p++)
    for (k = 0; k < 200; k++) {
      if (p == 0) {
        printf "-3 -21 %.6f 0 0 3 2 8 1 1\n", k
        printf "-4 -52 %.6f 0 0 3 2 8 1 1\n", k + 0.5 + 0.001
      } else {
        t = k + 0.001; printf "-4 -52 %.6f 1 0 3 2 8 1 0\n", t + 300e-6 * t
        t = k + 0.5; printf "-3 -21 %.6f 1 0 3 2 8 1 0\n", t + 300e-6 * t
      }
    }
}' >"$TMP/drift.picl"

run "$PT" sync --report --format=json -o "$TMP/drift.out" "$TMP/drift.picl"
expect_rc 0
# processor 1's drift is at the bound, towards the truth (-300 ppm)
grep -q '{"processor":1,"status":"two-way","offset":[-0-9.e]*,"drift_ppm":-100,.*"drift_determined":false,"consistent":false}' \
  "$TMP/out" || fail "processor 1's drift should be -100 ppm (the bound): $(cat "$TMP/out")"
grep -q '"tachyons_after":0,' "$TMP/out" || fail "tachyons left"
run "$PT" validate --max-errors=0 "$TMP/drift.out"
grep ': tachyon: ' "$TMP/out" && fail "validate still finds tachyons"
# --max-drift=300 and more takes the drift in full: -300 ppm within 1 ppm
run "$PT" sync --max-drift=400 --dry-run --report --format=json "$TMP/drift.picl"
expect_rc 0
d=$(sed 's/.*"processor":1,[^}]*"drift_ppm":\([-0-9.e]*\),.*/\1/' "$TMP/out")
awk -v d="$d" 'BEGIN { exit !(d < -299 && d > -301) }' ||
  fail "--max-drift=400: drift $d ppm, expected -300"
echo "PASS: $ntest sync drift beyond the bound checks"
