#!/bin/sh
# picltrace plot --format=script: the gnuplot scripts for the hand-made
# trace testdata/stat/three.picl, whose datablock values are worked out by
# hand in testdata/stat/README.md (utilization over 5 bins, each processor's
# busy/overhead/idle intervals, time per event type, bytes per processor
# pair). Needs no gnuplot: 0210-plot-render.sh runs it.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"
cp "$PICL_SRCDIR/testdata/stat/three.picl" three.picl

# The datablock between "$NAME << EOD" and "EOD" of the last output.
block() {
  sed -n "/^\\\$$1 << EOD\$/,/^EOD\$/p" "$TMP/out" | sed '1d;$d'
}

run "$PT" plot --format=script --bins=5 three.picl
expect_rc 0
expect_out <<'T'
# picltrace plot --kind=utilization: a self-contained gnuplot script.
# render it, e.g.: gnuplot -e "set terminal pngcairo size 1000,600; set output 'plot.png'" THIS-FILE
set encoding utf8
set termoption noenhanced
set title 'processor utilization: three.picl'
set grid

# time bins: from, to (s); average number of processes busy, in
# overhead and idle during the bin, and not traced (before their
# first or after their last traced time): the four add up to the
# processes drawn
$utilization << EOD
0 1 2 0 0.5 0.5
1 2 1.5 0.5 1 0
2 3 1.75 0.5 0.75 0
3 4 1.25 0.75 1 0
4 5 1 0 0.5 1.5
EOD

set xlabel 'time (s)'
set ylabel 'processes'
set xrange [0:5]
set yrange [0:3]
set style fill solid 1.0 noborder
set key outside right top
plot $utilization using (($1+$2)/2):($3+$4+$5+$6):($2-$1) with boxes lc rgb '#d9d9d9' title 'not traced', \
     $utilization using (($1+$2)/2):($3+$4+$5):($2-$1) with boxes lc rgb '#d62728' title 'idle', \
     '' using (($1+$2)/2):($3+$4):($2-$1) with boxes lc rgb '#f2c200' title 'overhead', \
     '' using (($1+$2)/2):3:($2-$1) with boxes lc rgb '#2ca02c' title 'busy'
T
expect_err </dev/null

# Two bins of 2.5 s (time per process / 2.5): [0,2.5) busy p0 1+0.5+0.25,
# p1 0.5+0.5, p2 1.75 = 4.5 -> 1.8; overhead p0 0.5+0.25, p2 0.25 = 1 ->
# 0.4; idle p1 1.5 -> 0.6. [2.5,5] busy p0 0.5, p1 0.5+0.5, p2 0.25+1.25 =
# 3 -> 1.2; overhead p1 0.5, p2 0.25 = 0.75 -> 0.3; idle p0 2, p2 0.25 =
# 2.25 -> 0.9. Not traced: the rest of 3 processes, 0.2 and 0.6.
run "$PT" plot --format=script --bins=2 three.picl
expect_rc 0
[ "$(block utilization)" = "$(printf '0 2.5 1.8 0.4 0.6 0.2\n2.5 5 1.2 0.3 0.9 0.6')" ] ||
  fail "utilization in 2 bins: $(block utilization)"

# Gantt: each processor's intervals, by category.
run "$PT" plot --kind=gantt --format=script three.picl
expect_rc 0
# (from, to, row, and the row's band: row-0.4 to row+0.4)
[ "$(block busy)" = "$(printf '%s\n' '0 1 0 -0.4 0.4' '1.5 2 0 -0.4 0.4' '2.25 2.5 0 -0.4 0.4' \
  '4.5 5 0 -0.4 0.4' '0 0.5 1 0.6 1.4' '2 3 1 0.6 1.4' '3.5 4 1 0.6 1.4' '0.5 2.25 2 1.6 2.4' \
  '2.75 3 2 1.6 2.4' '3.25 4.5 2 1.6 2.4')" ] || fail "gantt busy: $(block busy)"
[ "$(block overhead)" = "$(printf '%s\n' '1 1.5 0 -0.4 0.4' '2 2.25 0 -0.4 0.4' '3 3.5 1 0.6 1.4' \
  '2.25 2.5 2 1.6 2.4' '3 3.25 2 1.6 2.4')" ] || fail "gantt overhead: $(block overhead)"
[ "$(block idle)" = "$(printf '%s\n' '2.5 4.5 0 -0.4 0.4' '0.5 2 1 0.6 1.4' '2.5 2.75 2 1.6 2.4')" ] ||
  fail "gantt idle: $(block idle)"
grep -qx 'set xrange \[0:5\]' "$TMP/out" || fail "gantt time range"
grep -qx "set title 'utilization per processor (Gantt chart): three.picl'" "$TMP/out" || fail "gantt title"
grep -qx "set xlabel 'time (s)'" "$TMP/out" || fail "gantt x axis"
grep -qx "set ylabel 'processor'" "$TMP/out" || fail "gantt y axis"
grep -qx 'set ytics ("0" 0, "1" 1, "2" 2)' "$TMP/out" || fail "gantt rows"
grep -q "title 'busy', \\\\\$" "$TMP/out" && grep -q "title 'idle'\$" "$TMP/out" || fail "gantt legend"

# Events: time per system event type (relative to the whole process).
run "$PT" plot --kind=events --format=script three.picl
expect_rc 0
[ "$(block events)" = "$(printf '%s\n' '"processor" "-21 send0" "-51 recv0" "-52 recv0 blocked" "-402 sync0" "-601 idle"' \
  '"0" 0.75 0.00 2.00 0.00 0.00' '"1" 0.00 0.00 1.50 0.50 0.00' '"2" 0.25 0.25 0.00 0.00 0.25')" ] ||
  fail "events: $(block events)"
grep -qx "set ylabel 'time (s)'" "$TMP/out" || fail "events y axis"
grep -qx 'plot for \[i=2:6\] $events using i:xtic(1) lc rgb word(colors, i-1) title columnheader(i)' "$TMP/out" || fail "events plot"
run "$PT" plot --kind=events --user-events --format=script three.picl
expect_rc 0
[ "$(block events)" = "$(printf '%s\n' '"processor" "7 solve"' '"0" 1.75' '"1" 0.00' '"2" 0.00')" ] ||
  fail "user events: $(block events)"

# Messages: bytes per (source, destination).
run "$PT" plot --kind=messages --format=script three.picl
expect_rc 0
[ "$(block messages)" = "$(printf '%s\n' '0 1 100 1 0 1' '0 2 200 1 0 2' '2 0 50 1 2 0')" ] ||
  fail "messages: $(block messages)"
grep -qx "set xlabel 'source processor'" "$TMP/out" || fail "messages x axis"
grep -qx "set cblabel 'bytes'" "$TMP/out" || fail "messages color axis"
grep -qx "set title 'message volume: three.picl'" "$TMP/out" || fail "messages title"

# The host is left out (ParaGraph does); titles are made safe for gnuplot.
{ cat three.picl; printf '%s\n' '-3 -901 0.0 32767 0 0' '-4 -901 5.0 32767 0 0'; } >host.picl
run "$PT" plot --kind=gantt --format=script --title="it's \$x" host.picl
expect_rc 0
grep -qx 'set ytics ("0" 0, "1" 1, "2" 2)' "$TMP/out" || fail "the host is drawn"
grep -qxF "set title 'it'.sprintf('%c',39).'s \$x'" "$TMP/out" || fail "title not made safe: $(grep title "$TMP/out")"
# Quotes at the start and in a row (gnuplot 5.4 cannot read doubled ones
# there) come through; a backquoted command is text, not run.
title="'a ''b \"c\" \`touch $TMP/ran\` @x d\\e'"
run "$PT" plot --kind=gantt -f svg -o "$TMP/q.svg" --title="$title" host.picl
expect_rc 0
[ ! -e "$TMP/ran" ] || fail "a backquoted command in the title was run"
grep -qF "<text>$title</text>" "$TMP/q.svg" ||
  fail "the title in the svg: $(grep -i "touch" "$TMP/q.svg")"

# Standard input and zstd; -o FILE.
zstd -q -c three.picl >three.zst
run sh -c "\"$PT\" plot --format=script --bins=5 - <three.zst"
expect_rc 0
grep -qx "set title 'processor utilization: standard input'" "$TMP/out" || fail "stdin title"
[ "$(block utilization | head -n 1)" = "0 1 2 0 0.5 0.5" ] || fail "zstd on stdin"
run "$PT" plot --format=script -o util.gp three.picl
expect_rc 0
grep -q '^\$utilization << EOD$' util.gp || fail "-o FILE"

# Nothing to plot; malformed input; bad options.
grep -v '^#' three.picl | awk '$2 != -21 && $2 != -51 && $2 != -52' >nomsg.picl
run "$PT" plot --kind=messages --format=script nomsg.picl
expect_rc 2
expect_err <<'T'
picltrace plot: nothing to plot: the trace has no matched messages between processors
T
printf '%s\n' '-3 -901 0 0 0 0' '-3 -21 1 0 0 3 2 8 x 7' >bad.picl
run "$PT" plot --format=script -o never.gp bad.picl
expect_rc 2
expect_err <<'T'
picltrace plot: bad.picl:2:20: expected an integer, found "x"
T
[ ! -e never.gp ] || fail "partial output left behind"
run "$PT" plot --kind=pie three.picl
expect_rc 2
expect_err <<'T'
picltrace plot: --kind takes utilization, gantt, events or messages, not 'pie'
T
run "$PT" plot --format=jpeg three.picl
expect_rc 2
run "$PT" plot --bins=0 three.picl
expect_rc 2
run "$PT" plot --size=10x10 three.picl
expect_rc 2
run "$PT" plot --user-events three.picl
expect_rc 2
run "$PT" plot --bogus three.picl
expect_rc 2
grep -q '^usage: picltrace plot' "$TMP/err" || fail "no usage on a bad option"
run "$PT" plot --help
expect_rc 0
grep -q '^usage: picltrace plot' "$TMP/out" || fail "no usage from --help"

# A timeline past PICL_PLOT_INTERVALS intervals turns into time bins (here
# at once): the utilization plot stays the same, and the binned Gantt
# chart, which stacks each bin's fractions of busy, overhead and idle, has
# the same time per processor and category as the exact one.
run "$PT" plot --format=script --bins=5 three.picl
cp "$TMP/out" exact-util.gp
run env PICL_PLOT_INTERVALS=1 "$PT" plot --format=script --bins=5 three.picl
expect_rc 0
cmp exact-util.gp "$TMP/out" || fail "binned utilization differs: $(diff exact-util.gp "$TMP/out")"
# gantt_totals FILE: "category processor seconds" lines, time x the box's
# share of the row's height (0.8)
gantt_totals() {
  awk '/^\$(busy|overhead|idle) << EOD$/ { cat = substr($1, 2); next }
       /^EOD$/ { cat = ""; next }
       cat != "" { t[cat " " $3] += ($2 - $1) * ($5 - $4) / 0.8 }
       END { for (k in t) printf "%s %.9f\n", k, t[k] }' "$1" | sort
}
run "$PT" plot --kind=gantt --format=script three.picl
expect_rc 0
cp "$TMP/out" exact-gantt.gp
run env PICL_PLOT_INTERVALS=1 "$PT" plot --kind=gantt --format=script three.picl
expect_rc 0
cp "$TMP/out" binned-gantt.gp
gantt_totals exact-gantt.gp >exact.tot
gantt_totals binned-gantt.gp >binned.tot
[ "$(grep -c . exact.tot)" -eq 9 ] || fail "gantt totals: $(cat exact.tot)"
grep -qx 'busy 0 2.250000000' exact.tot || fail "busy of processor 0: $(cat exact.tot)"
cmp exact.tot binned.tot || fail "binned gantt: $(diff exact.tot binned.tot)"
cmp exact-gantt.gp binned-gantt.gp >/dev/null && fail "PICL_PLOT_INTERVALS=1 did not bin"
run env PICL_PLOT_INTERVALS=0 "$PT" plot --format=script three.picl
expect_rc 2
expect_err <<'T'
picltrace plot: PICL_PLOT_INTERVALS must be a count of 1 or more, not '0'
T
# Late, close times keep their digits: %.10g made these one point. They
# are seconds after the trace's whole seconds, which a comment names.
cat >late.picl <<'T'
-3 -901 123456789.123456 0 0 0
-4 -901 123456789.123470 0 0 0
T
run "$PT" plot --kind=gantt --format=script late.picl
expect_rc 0
grep -qx '# times are seconds after 123456789' "$TMP/out" ||
  fail "late times: $(grep -n after "$TMP/out")"
grep -qx 'set xrange \[0.123456:0.12347\]' "$TMP/out" ||
  fail "late times: $(grep xrange "$TMP/out")"
echo "PASS: $ntest plot script checks"
