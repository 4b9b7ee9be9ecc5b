#!/bin/sh
# picltrace plot -o FILE without --format: an output named *.svg is an
# SVG image and one named *.gp the gnuplot script (as stat --emit-records
# compresses an output named *.zst); it wrote a PNG whatever the name.
# --format given wins over the name. SKIP without gnuplot.
. "$PICL_SRCDIR/t/e2e/lib.sh"
GP="${GNUPLOT:-gnuplot}"
if ! command -v "$GP" >/dev/null 2>&1; then
  echo "SKIP: gnuplot not found (install gnuplot-nox, or set GNUPLOT)"
  exit 77
fi
if ! "$GP" -e 'set terminal pngcairo' </dev/null >/dev/null 2>&1; then
  echo "SKIP: $GP has no pngcairo terminal (Debian: gnuplot-nox has it)"
  exit 77
fi
set -e
cd "$TMP"
cp "$PICL_SRCDIR/testdata/stat/three.picl" three.picl

is_png() {
  [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
}

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
