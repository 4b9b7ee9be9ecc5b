#!/bin/sh
# picltrace plot -o FILE without --format: an output named *.svg is an
# SVG image and one named *.gp the gnuplot script (as stat --emit-records
# compresses an output named *.zst); it wrote a PNG whatever the name.
# --format given wins over the name. SKIP without gnuplot.
. "$PICL_SRCDIR/t/e2e/lib.sh"
need_gnuplot png
set -e
cd "$TMP"
cp "$PICL_SRCDIR/testdata/stat/three.picl" three.picl

run "$PT" plot -o u.svg three.picl
expect_rc 0
grep -q '<svg' u.svg || fail "u.svg is not SVG"
run "$PT" plot --kind=gantt -o G.SVG three.picl
expect_rc 0
grep -q '<svg' G.SVG || fail "G.SVG is not SVG"
run "$PT" plot -o u.gp three.picl
expect_rc 0
grep -q '^plot ' u.gp || fail "u.gp is not a gnuplot script"
# The script renders as it is.
"$GP" -e "set terminal pngcairo; set output 'u-gp.png'" u.gp
is_png u-gp.png || fail "u.gp does not render"
run "$PT" plot -o u.png three.picl
expect_rc 0
is_png u.png || fail "u.png is not a PNG"
run "$PT" plot -o u.img three.picl
expect_rc 0
is_png u.img || fail "u.img (no known suffix) is not a PNG"

# --format wins over the name.
run "$PT" plot --format=png -o p.svg three.picl
expect_rc 0
is_png p.svg || fail "--format=png -o p.svg is not a PNG"
run "$PT" plot --format=svg -o s.gp three.picl
expect_rc 0
grep -q '<svg' s.gp || fail "--format=svg -o s.gp is not SVG"
