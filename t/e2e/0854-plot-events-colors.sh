#!/bin/sh
# picltrace plot --kind=events: every event type its own color. gnuplot's
# own cycle has eight, so the ninth type of a stack was drawn as the first
# (-21 send0 and -61 recvend0 the same purple on a stencil run); twenty
# colors now, and past them the colors again, hatched. SKIP without
# gnuplot.
. "$PICL_SRCDIR/t/e2e/lib.sh"
need_gnuplot
set -e
cd "$TMP"
# Two processors, user event types 1 to N, each 0.1 s on each.
mk() {
  awk -v n=$1 'BEGIN {
    for (p = 0; p < 2; p++) printf "-3 -901 0 %d 0 0\n", p
    for (e = 1; e <= n; e++)
      for (p = 0; p < 2; p++)
        printf "-3 %d %d.1 %d 0 0\n-4 %d %d.2 %d 0 0\n", e, e, p, e, e, p
    for (p = 0; p < 2; p++) printf "-4 -901 %d %d 0 0\n", n + 1, p
  }'
}
# The solid fills of the SVG's polygons (key boxes and bars), told apart.
fills() {
  grep -o "<polygon fill = 'rgb([^)]*)'" "$1" | sort -u | wc -l
}
for n in 12 20; do
  mk $n >u$n.picl
  run "$PT" plot --kind=events --user-events --format=svg -o u$n.svg u$n.picl
  expect_rc 0
  expect_err </dev/null
  [ "$(fills u$n.svg)" -eq $n ] || fail "events: $(fills u$n.svg) colors for $n event types"
done
# Past twenty: twenty colors, the types after them hatched.
mk 25 >u25.picl
run "$PT" plot --kind=events --user-events --format=svg -o u25.svg u25.picl
expect_rc 0
expect_err </dev/null
[ "$(fills u25.svg)" -eq 20 ] || fail "events: $(fills u25.svg) solid colors for 25 event types"
grep -q 'url(#gpPat' u25.svg || fail "events: no hatched bars for 25 event types"
# The script names every column's color; it renders by itself.
run "$PT" plot --kind=events --user-events --format=script -o u25.gp u25.picl
expect_rc 0
grep -q "^colors = '#" u25.gp || fail "events: the script has no colors"
"$GP" -e "set terminal svg; set output 'u25b.svg'" u25.gp 2>gp.err ||
  fail "events: the script does not render: $(cat gp.err)"
[ ! -s gp.err ] || fail "events: gnuplot says: $(cat gp.err)"
echo "PASS: $ntest events color checks"
