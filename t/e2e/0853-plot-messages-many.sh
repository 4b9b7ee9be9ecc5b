#!/bin/sh
# picltrace plot --kind=messages of more than 64 processors: the matrix's
# rows and columns are the ranks of the processors met, and each tic says
# its processor. Past 64, the script set no tics and gnuplot numbered the
# ranks (0 to 99 for processors 1000 to 1198). Of many processors every
# few are labelled, at most 32 an axis. SKIP without gnuplot (the script
# is checked before).
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"
n=100
# A ring of processors 1000, 1002, ..., 1198: each sends 8 bytes on.
awk -v n=$n 'function pr(k) { return 1000 + 2 * (k % n) } BEGIN {
  for (p = 0; p < n; p++) printf "-3 -901 0.0 %d 0 0\n", pr(p)
  for (p = 0; p < n; p++)
    printf "-3 -21 0.1 %d 0 3 2 8 1 %d\n-4 -21 0.1 %d 0 0\n", pr(p), pr(p + 1), pr(p)
  for (p = 0; p < n; p++)
    printf "-3 -52 0.2 %d 0 0\n-4 -52 0.3 %d 0 3 2 8 1 %d\n", pr(p), pr(p), pr(p + n - 1)
  for (p = 0; p < n; p++) printf "-4 -901 0.5 %d 0 0\n", pr(p)
}' >ring.picl

run "$PT" plot --kind=messages --format=script -o ring.gp ring.picl
expect_rc 0
expect_err </dev/null
# The datablock: source rank, destination rank, ..., source, destination.
sed -n '/^\$messages << EOD$/,/^EOD$/p' ring.gp | sed '1d;$d' >rows
[ "$(wc -l <rows)" -eq $n ] || fail "messages: $(wc -l <rows) rows for $n pairs"
awk '1000 + 2 * $1 != $5 || 1000 + 2 * $2 != $6 { print; exit 1 }' rows ||
  fail "messages: a rank that is not its processor's: $(cat rows | head -3)"
for axis in x y; do
  tics=$(grep "^set ${axis}tics (" ring.gp) || fail "messages: no ${axis} tics for $n processors"
  # Each label "P" at rank r names the processor of rank r.
  echo "$tics" | sed 's/^[^(]*(//; s/).*//' | tr ',' '\n' |
    awk '{ gsub(/"/, "", $1); if ($1 != 1000 + 2 * $2) { print; bad = 1 } ; m++ }
         END { if (m < 4 || m > 32) { print m " labels"; bad = 1 }; exit bad }' >bad ||
    fail "messages: ${axis} tic labels: $(cat bad)"
  echo "$tics" | grep -q '"1000" 0[,)]' || fail "messages: processor 1000 not labelled on $axis"
done

need_gnuplot
run "$PT" plot --kind=messages --format=svg -o ring.svg ring.picl
expect_rc 0
expect_err </dev/null
grep -q '<text>1000</text>' ring.svg || fail "messages: the SVG does not label processor 1000"
grep -q '<text>0</text>' ring.svg && fail "messages: the SVG labels a rank 0"
echo "PASS: $ntest messages many checks"
