#!/bin/sh
# picltrace plot --kind=events of a trace of many processors: the bars
# stay readable. Of 300 processors, only some bars are labelled (all 300
# labels overlapped into a black band under the axis), and the bars have
# no outline (300 outlines around bars three pixels wide drew the plot
# black). SKIP without gnuplot.
. "$PICL_SRCDIR/t/e2e/lib.sh"
need_gnuplot
set -e
cd "$TMP"
n=300
awk -v n=$n 'BEGIN {
  for (p = 0; p < n; p++) printf "-3 -901 0.0 %d 0 0\n", p
  for (p = 0; p < n; p++) {
    printf "-3 -21 0.1 %d 0 3 2 8 1 %d\n", p, (p + 1) % n
    printf "-4 -21 0.2 %d 0 0\n", p
  }
  for (p = 0; p < n; p++) printf "-4 -901 0.5 %d 0 0\n", p
}' >many.picl

run "$PT" plot --kind=events --format=svg -o many.svg many.picl
expect_rc 0
expect_err </dev/null
# Every text of the picture (title, axis labels, tic labels, key) that is
# not empty: a few dozen at most, not one per processor.
texts=$(grep -c '<text>[^<]' many.svg || :)
[ "$texts" -gt 5 ] || fail "events: only $texts texts in the SVG"
[ "$texts" -lt $((n / 4)) ] || fail "events: $texts texts for $n processors: every bar labelled"
# The labels shown are processors, the first one among them.
grep -q '<text>0</text>' many.svg || fail "events: processor 0 not labelled"
# Outlines are closed black paths: the frame and the key's, not one a bar.
outlines=$(grep "stroke='black'" many.svg | grep -c 'Z' || :)
[ "$outlines" -lt $((n / 10)) ] || fail "events: $outlines outlines for $n bars"

# A few processors keep a label and an outline for every bar.
awk '$4 < 3' many.picl | sed 's/ 1 3$/ 1 0/' >few.picl
run "$PT" plot --kind=events --format=svg -o few.svg few.picl
expect_rc 0
for p in 0 1 2; do
  grep -q "<text>$p</text>" few.svg || fail "events: processor $p of 3 not labelled"
done
outlines=$(grep "stroke='black'" few.svg | grep -c 'Z' || :)
[ "$outlines" -ge 3 ] || fail "events: $outlines outlines for 3 bars"
