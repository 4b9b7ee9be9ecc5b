#!/bin/sh
# picltrace plot --kind=utilization: each bar is as high as the processes
# drawn, as ParaGraph's utilization count: a process before its first or
# after its last traced time counts as "not traced" (grey, on top). Those
# processes were left out of the bar, which then dipped as if the machine
# were used less where processes only started late or ended early.
# Checks the script's numbers against ones worked out here; SKIP of the
# rendering without gnuplot.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"
# Processor 0 traced 0 to 4 s, 1 from 1 to 3 s, 2 from 2 to 4 s, 3 (the
# host's, not drawn) 0 to 4; each busy all its traced time. In four bins of
# 1 s, not traced: [0,1) 1 and 2 = 2; [1,2) 2 = 1; [2,3) none; [3,4] 1 = 1.
cat >late.picl <<'T'
-3 -901 0.0 0 0 0
-3 -901 0.0 32767 0 0
-3 -901 1.0 1 0 0
-3 -901 2.0 2 0 0
-4 -901 3.0 1 0 0
-4 -901 4.0 0 0 0
-4 -901 4.0 2 0 0
-4 -901 4.0 32767 0 0
T
block() {
  sed -n "/^\\\$$1 << EOD\$/,/^EOD\$/p" "$2" | sed '1d;$d'
}
run "$PT" plot --format=script --bins=4 -o late.gp late.picl
expect_rc 0
expect_err </dev/null
[ "$(block utilization late.gp)" = "$(printf '0 1 1 0 0 2\n1 2 2 0 0 1\n2 3 3 0 0 0\n3 4 2 0 0 1')" ] ||
  fail "utilization: $(block utilization late.gp)"
grep -q "title 'not traced'" late.gp || fail "utilization: no 'not traced' in the key"
grep -qx 'set yrange \[0:3\]' late.gp || fail "utilization: the y range is not the 3 processes"

# A real run (processes start one after another): every bin adds up to the
# processes drawn.
piclrun_setup
TMPDIR="$TMP/tmp" "$RUN" -n 4 -o ring.picl "$EX/ring" >ring.out 2>ring.err ||
  fail "ring did not run: $(cat ring.err)"
run "$PT" plot --format=script --bins=50 -o ring.gp ring.picl
expect_rc 0
block utilization ring.gp >rows
[ "$(wc -l <rows)" -eq 50 ] || fail "utilization: $(wc -l <rows) bins of 50"
awk '{ s = $3 + $4 + $5 + $6; if (s < 4 - 1e-4 || s > 4 + 1e-4) { print; bad = 1 } }
     END { exit bad }' rows >bad || fail "utilization: bins not adding up to 4: $(head -3 bad)"

# Traced all along: no "not traced" in the key.
grep -v 32767 late.picl | sed 's/^-3 -901 [12].0/-3 -901 0.0/; s/^-4 -901 3.0/-4 -901 4.0/' >all.picl
run "$PT" plot --format=script --bins=4 -o all.gp all.picl
expect_rc 0
block utilization all.gp | awk '$6 != 0 { bad = 1 } END { exit bad }' ||
  fail "utilization: not traced time in a trace traced all along"
grep -q "not traced'" all.gp && fail "utilization: 'not traced' in the key of a trace traced all along"

need_gnuplot png
for f in late ring; do
  run "$PT" plot -o $f.png $f.picl
  expect_rc 0
  expect_err </dev/null
  is_png $f.png || fail "$f.png is not a PNG"
done
echo "PASS: $ntest utilization not-traced checks"
