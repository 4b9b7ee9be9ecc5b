#!/bin/sh
# picltrace plot through gnuplot: every kind renders as PNG (pngcairo) and
# SVG without a word from gnuplot; images go to -o FILE (temporary file,
# renamed) or standard output; gnuplot missing or failing is reported, exit
# 2, and leaves no output behind. SKIP without gnuplot (or its pngcairo
# terminal, which Debian's gnuplot-nox has).
. "$PICL_SRCDIR/t/e2e/lib.sh"
need_gnuplot png
set -e
cd "$TMP"
cp "$PICL_SRCDIR/testdata/stat/three.picl" three.picl

for kind in utilization gantt events messages; do
  run "$PT" plot --kind=$kind -o $kind.png three.picl
  expect_rc 0
  expect_err </dev/null
  is_png $kind.png || fail "$kind.png is not a PNG"
  run "$PT" plot --kind=$kind --format=svg -o $kind.svg three.picl
  expect_rc 0
  expect_err </dev/null
  grep -q '<svg' $kind.svg || fail "$kind.svg is not SVG"
done
ls -a | grep -q '\.tmp' && fail "temporary files left behind"
# in the C locale too (no LANG, or LC_ALL=C), as under cron or env -i: the
# script is UTF-8, and gnuplot warned "iconv failed to convert degree
# sign" on every picture
for loc in LC_CTYPE= LC_ALL=C; do
  run env -u LANG -u LC_CTYPE -u LC_ALL $loc "$PT" plot -o c.png three.picl
  expect_rc 0
  expect_err </dev/null
  is_png c.png || fail "c.png ($loc) is not a PNG"
done
run "$PT" plot --kind=events --user-events --size=640,480 -o user.png three.picl
expect_rc 0
is_png user.png || fail "user.png is not a PNG"
# The PNG has the size asked for (width and height in the IHDR chunk).
[ "$(od -An -tx1 -j16 -N8 user.png | tr -d ' \n')" = 00000280000001e0 ] ||
  fail "user.png is not 640x480"

# To standard output (not a terminal here), from standard input.
run sh -c "\"$PT\" plot <three.picl"
expect_rc 0
is_png "$TMP/out" || fail "PNG on standard output"
run sh -c "\"$PT\" plot --format=svg - <three.picl"
expect_rc 0
grep -q '<svg' "$TMP/out" || fail "SVG on standard output"

# The script it shows renders by itself.
run "$PT" plot --kind=gantt --format=script -o g.gp three.picl
expect_rc 0
"$GP" -e "set terminal pngcairo size 800,400; set output 'g2.png'" g.gp 2>gp.err ||
  fail "the script does not render: $(cat gp.err)"
is_png g2.png || fail "the script's own rendering is not a PNG"

# gnuplot missing: a clear message, exit 2, nothing left behind.
echo keep >old.png
run env GNUPLOT="$TMP/no-such-gnuplot" "$PT" plot -o old.png three.picl
expect_rc 2
expect_err <<T
picltrace plot: cannot run gnuplot ('$TMP/no-such-gnuplot'): No such file or directory; install gnuplot, set GNUPLOT, or use --format=script
T
[ "$(cat old.png)" = keep ] || fail "a failed plot clobbered the old output"
# gnuplot failing: its messages are shown, exit 2, old output kept.
cat >failing-gnuplot <<EOF
#!/bin/sh
{ cat; echo 'plot no_such_function(x)'; } | "$GP"
EOF
chmod +x failing-gnuplot
run env GNUPLOT="$TMP/failing-gnuplot" "$PT" plot -o old.png three.picl
expect_rc 2
head -n 1 "$TMP/err" | grep -qx "picltrace plot: gnuplot ('$TMP/failing-gnuplot') failed with exit status 1" ||
  fail "gnuplot's failure not reported: $(cat "$TMP/err")"
grep -q '^picltrace plot: gnuplot: .*undefined function: no_such_function' "$TMP/err" ||
  fail "gnuplot's own message not shown: $(cat "$TMP/err")"
[ "$(cat old.png)" = keep ] || fail "a failed plot clobbered the old output"
# gnuplot's warnings (a picture too small for its axes) are shown without
# the blanks and tabs it indents them with (a tab was shown as \x09).
run "$PT" plot --size=100,80 -o tiny.png three.picl
expect_rc 0
grep -qx 'picltrace plot: gnuplot: line [0-9]*: warning: Terminal canvas area too small to hold plot\.' "$TMP/err" &&
  grep -qx 'picltrace plot: gnuplot: Check plot boundary and font sizes\.' "$TMP/err" ||
  fail "gnuplot's warnings not shown plainly: $(cat "$TMP/err")"
run env GNUPLOT=false "$PT" plot -o old.png three.picl
expect_rc 2
expect_err <<'T'
picltrace plot: gnuplot ('false') failed with exit status 1
T
ls -a | grep -q '\.tmp' && fail "temporary files left behind"

# Killed while gnuplot runs: the temporary image is removed. The stand-in
# gnuplot reads the script, says it started, then waits on a FIFO until we
# let it go.
mkfifo gate
printf '#!/bin/sh\ncat >/dev/null\n: >"%s/started"\nread x <"%s/gate"\n' "$TMP" "$TMP" \
  >waiting-gnuplot
chmod +x waiting-gnuplot
env GNUPLOT="$TMP/waiting-gnuplot" "$PT" plot -o killed.png three.picl 2>/dev/null &
pid=$!
n=0
until [ -e started ]; do
  n=$((n + 1))
  if [ $n -ge 100 ]; then
    kill -TERM $pid; fail "the stand-in gnuplot did not start"
  fi
  sleep 0.1
done
ls -a | grep -q '^\.killed\.png\.tmp' || { kill -TERM $pid; echo go >gate; fail "no temporary image while gnuplot runs"; }
kill -TERM $pid
{ wait $pid; } 2>/dev/null || true
echo go >gate
ls -a | grep -q '^\.killed\.png\.tmp' && fail "temporary image left after SIGTERM"
[ ! -e killed.png ] || fail "image left after SIGTERM"
echo "PASS: $ntest plot render checks"
