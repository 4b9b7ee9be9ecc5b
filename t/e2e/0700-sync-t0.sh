#!/bin/sh
# picltrace sync: t0, the time at which the report gives the offsets, does
# not depend on the order of the records. The same trace sorted by time and
# with its processors one after the other (each processor's records still
# in their order, as sync matches messages and synchronisations in it),
# the first record being far from the earliest, gives the same report, in
# text and in JSON, and the same corrected records.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

# Processor 2's clock runs 0.5 s ahead and 80 ppm fast, so its first
# record comes half a second after the earliest, and its drift makes the
# offset depend on where it is taken.
"$GEN" --procs 4 --records 20000 --seed 3 -o "$TMP/g.picl"
awk -v P=2 -v A=0.5 -v B=80e-6 '
  $4 == P && ($1 > -300 || $1 < -399) {
    n = length($1) + length($2) + length($3) + 2
    printf "%s %s %.6f%s\n", $1, $2, $3 + A + B * $3, substr($0, n + 1)
    next
  }
  { print }' "$TMP/g.picl" >"$TMP/skewed.picl"
"$PT" sort -o "$TMP/sorted.picl" "$TMP/skewed.picl"
# processor 2 first, then 0, 1, 3 (header records and processor -1's
# definitions ahead of all)
awk '$4 < 0 || ($1 <= -301 && $1 >= -399) { print; next }
  { f[$4] = f[$4] $0 "\n" }
  END { printf "%s%s%s%s", f[2], f[0], f[1], f[3] }' "$TMP/sorted.picl" >"$TMP/shuffled.picl"
[ "$(wc -l <"$TMP/sorted.picl")" -eq "$(wc -l <"$TMP/shuffled.picl")" ] ||
  fail "the shuffled trace lost records"
first=$(awk '$4 >= 0 && ($1 > -300 || $1 < -399) && $1 != -5 && $1 != -6 { print $3; exit }' \
  "$TMP/shuffled.picl")
earliest=$(awk '$4 >= 0 && ($1 > -300 || $1 < -399) && $1 != -5 && $1 != -6 { print $3; exit }' \
  "$TMP/sorted.picl")
[ "$first" != "$earliest" ] || fail "the shuffled trace should not start at the earliest time"

for fmt in text json; do
  run "$PT" sync --dry-run --report --format=$fmt "$TMP/sorted.picl"
  expect_rc 0
  mv "$TMP/out" "$TMP/sorted.$fmt"
  run "$PT" sync --dry-run --report --format=$fmt "$TMP/shuffled.picl"
  expect_rc 0
  diff -u "$TMP/sorted.$fmt" "$TMP/out" >&2 || fail "$fmt report depends on the order of the records"
done
# t0 is the earliest time
grep -q "^reference processor 0, t0 $earliest," "$TMP/sorted.text" ||
  fail "t0 is not the earliest time $earliest"
grep -q "\"t0\":\"$earliest\"" "$TMP/sorted.json" || fail "JSON t0 is not $earliest"

# The corrections are the same: the same records, in another order.
run "$PT" sync --quiet -o "$TMP/sorted.out" "$TMP/sorted.picl"
expect_rc 0
run "$PT" sync --quiet -o "$TMP/shuffled.out" "$TMP/shuffled.picl"
expect_rc 0
LC_ALL=C sort "$TMP/sorted.out" >"$TMP/a"
LC_ALL=C sort "$TMP/shuffled.out" >"$TMP/b"
cmp "$TMP/a" "$TMP/b" || fail "the corrected records depend on the order of the records"
echo "PASS: $ntest sync-t0 checks"
