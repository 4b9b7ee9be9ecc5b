#!/bin/sh
# picltrace plot --kind=gantt: the rows sit in the middle of the y range,
# as much room above the top row as below the bottom one. The range went
# from 0.2 below the bottom row to its top edge, so the top row touched the
# frame, and the only row of one processor sat at 60% of the height, its
# label beside its top. SKIP of the rendering without gnuplot.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"
cp "$PICL_SRCDIR/testdata/stat/three.picl" three.picl
awk '$4 == 0 || $1 > 0 || $1 < -100' three.picl >one.picl

for f in one three; do
  run "$PT" plot --kind=gantt --format=script -o $f.gp $f.picl
  expect_rc 0
  # The y range, and the lowest and highest edges of the segments
  # (datablock columns 4 and 5): the margins are the same, and not none.
  awk '/^\$(busy|overhead|idle) << EOD$/ { in_block = 1; next }
       /^EOD$/ { in_block = 0; next }
       in_block { if (!n++ || $4 < lo) lo = $4; if ($5 > hi) hi = $5; next }
       /^set yrange \[/ { r = $3; gsub(/[][]/, "", r); split(r, y, ":") }
       END {
         below = lo - y[1]; above = y[2] - hi
         if (!n || below <= 0 || above - below > 1e-9 || below - above > 1e-9) {
           printf "y range %s:%s, segments %s to %s\n", y[1], y[2], lo, hi; exit 1
         }
       }' $f.gp >bad || fail "gantt of $f.picl: $(cat bad)"
done

need_gnuplot png
for f in one three; do
  run "$PT" plot --kind=gantt -o $f.png $f.picl
  expect_rc 0
  expect_err </dev/null
  is_png $f.png || fail "$f.png is not a PNG"
done
echo "PASS: $ntest gantt margin checks"
