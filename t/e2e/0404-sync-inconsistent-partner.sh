#!/bin/sh
# picltrace sync: a processor no line fits (its clock drifts beyond
# --max-drift) must not drag the processors it exchanged messages with. Four
# processors exchange messages all with all, each taking 1 ms, for 100 s;
# then processor 1's clock is made to run 400 ppm fast. Processors 2 and 3
# kept true clocks, so their corrections must stay near none (within 5 ppm
# and 0.5 ms: the latencies), not lean towards processor 1's violations;
# processor 1 gets the bound. The output has no tachyon.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

awk 'BEGIN {
  for (k = 0; k < 100; k++)
    for (i = 0; i < 4; i++)
      for (j = 0; j < 4; j++) {
        if (i == j) continue
        s = k + (i * 4 + j) * 0.05; r = s + 0.001
        if (i == 1) s += 400e-6 * s
        if (j == 1) r += 400e-6 * r
        printf "%d %.6f -3 -21 %.6f %d 0 3 2 8 1 %d\n", i, s, s, i, j
        printf "%d %.6f -4 -52 %.6f %d 0 3 2 8 1 %d\n", j, r, r, j, i
      }
}' | sort -s -k1,1n -k2,2g | cut -d' ' -f3- >"$TMP/mesh.picl"

run "$PT" sync --report --format=json -o "$TMP/mesh.out" "$TMP/mesh.picl"
expect_rc 0
grep -q '"tachyons_after":0,' "$TMP/out" || fail "tachyons left: $(cat "$TMP/out")"
grep -q '{"processor":1,"status":"two-way","offset":[-0-9.e]*,"drift_ppm":-100,' "$TMP/out" ||
  fail "processor 1 should get the bound: $(cat "$TMP/out")"
for p in 2 3; do
  o=$(sed "s/.*{\"processor\":$p,[^}]*\"offset\":\\([-0-9.e]*\\),.*/\\1/" "$TMP/out")
  d=$(sed "s/.*{\"processor\":$p,[^}]*\"drift_ppm\":\\([-0-9.e]*\\),.*/\\1/" "$TMP/out")
  # the correction over the run (0 to 100 s) stays within 0.5 ms of none
  awk -v o="$o" -v d="$d" 'BEGIN { c = o + d * 1e-4; exit !(d < 5 && d > -5 &&
    o < 0.0005 && o > -0.0005 && c < 0.0005 && c > -0.0005) }' ||
    fail "processor $p, whose clock is true, moved: offset $o s, drift $d ppm"
done
echo "PASS: $ntest sync inconsistent partner checks"
