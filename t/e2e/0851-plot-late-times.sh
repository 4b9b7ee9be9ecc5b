#!/bin/sh
# picltrace plot of a trace whose timestamps are late (wall-clock seconds,
# 1732400000.000000 and on) and span a few seconds: the labels of the time
# axis of a utilization plot and of a Gantt chart tell their times apart
# (gnuplot's own labels, six significant digits, all read 1.7324e+09),
# and microseconds at 1e11 s stay apart.
# SKIP without gnuplot.
. "$PICL_SRCDIR/t/e2e/lib.sh"
need_gnuplot
set -e
cd "$TMP"
cat >late.picl <<'T'
-3 -901 1732400000.000000 0 0 0
-3 -21 1732400001.000000 0 0 3 2 8 1 1
-4 -21 1732400002.500000 0 0 0
-4 -901 1732400010.000000 0 0 0
-3 -901 1732400000.000000 1 0 0
-3 -52 1732400001.000000 1 0 1 2 1
-4 -52 1732400003.000000 1 0 3 2 8 1 0
-4 -901 1732400010.000000 1 0 0
T

# xlabels SVG: the labels gnuplot centres under a point (the time axis'
# tic labels, the title, the axis label), as "height label", one a line
xlabels() {
  awk '/text-anchor="middle"/ {
         y = $0; sub(/.*translate\([^,]*,/, "", y); sub(/\).*/, "", y); want = 1; next }
       want && /<text>/ {
         t = $0; sub(/.*<text>/, "", t); sub(/<\/text>.*/, "", t); print y, t }
       { want = 0 }' "$1"
}

for kind in utilization gantt; do
  run "$PT" plot --kind=$kind --format=svg -o $kind.svg late.picl
  expect_rc 0
  expect_err </dev/null
  xlabels $kind.svg >$kind.labels
  # The tic labels: the height most labels share.
  row=$(cut -d' ' -f1 $kind.labels | sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }')
  awk -v y="$row" '$1 == y' $kind.labels >$kind.tics
  [ "$(wc -l <$kind.tics)" -ge 3 ] || fail "$kind: fewer than 3 time labels: $(cat $kind.labels)"
  dups=$(sort $kind.tics | uniq -d)
  [ -z "$dups" ] || fail "$kind: time labels repeat: $dups"
done

# The axis says after what time, as the trace writes it.
sed 's/1732400000\.000000/1732399999.282049/' late.picl >odd.picl
run "$PT" plot --kind=gantt --format=script odd.picl
expect_rc 0
grep -q "^set xlabel 'time (s) after 1732399999.282049'\$" "$TMP/out" ||
  fail "odd start: $(grep xlabel "$TMP/out")"

# Nine microseconds at wall-clock times: 200 bins would be narrower than
# a double tells apart there (0.24 us), bins of no width, "nan" processes.
cat >short.picl <<'T'
-3 -901 1732400000.000001 0 0 0
-3 -21 1732400000.000002 0 0 3 2 8 1 1
-4 -21 1732400000.000004 0 0 0
-4 -901 1732400000.000009 0 0 0
-3 -901 1732400000.000001 1 0 0
-3 -52 1732400000.000002 1 0 1 2 1
-4 -52 1732400000.000005 1 0 3 2 8 1 0
-4 -901 1732400000.000009 1 0 0
T
run "$PT" plot --format=script short.picl
expect_rc 0
sed -n '/^\$utilization << EOD$/,/^EOD$/p' "$TMP/out" >short.bins
[ "$(wc -l <short.bins)" -ge 4 ] || fail "short: no bins: $(cat short.bins)"
grep -qi 'nan\|inf' short.bins && fail "short: bins without a number: $(grep -ci nan short.bins) of them"
# Each bin ends where the next starts, after it begins.
awk 'NR > 1 && $1 != "EOD" { if (prev != "" && $1 != prev) bad = 1; if ($2 + 0 <= $1 + 0) bad = 1; prev = $2 }
     END { exit bad }' short.bins || fail "short: bins: $(cat short.bins)"

# Microseconds at 1e11 s, where a double steps by 15 us: the chart's
# times are seconds after a whole second of the trace, which it names, so
# the send (2 to 4 us) and the wait (2 to 5 us) keep their own edges.
sed 's/^\(-[34] -[0-9]* \)1732400000\./\1100000000000./' short.picl >late11.picl
run "$PT" plot --kind=gantt --format=script late11.picl
expect_rc 0
grep -qx "# times are seconds after 100000000000" "$TMP/out" ||
  fail "1e11: $(grep -n after "$TMP/out")"
grep -q "^set xlabel 'time (s) after 100000000000.000001'\$" "$TMP/out" ||
  fail "1e11: $(grep xlabel "$TMP/out")"
edges=$(sed -n '/^\$[a-z]* << EOD$/,/^EOD$/p' "$TMP/out" | awk 'NF == 5 { print $1; print $2 }' | sort -u | wc -l)
[ "$edges" -ge 5 ] || fail "1e11: $edges segment edges: $(cat "$TMP/out")"
run "$PT" plot --format=script late11.picl
expect_rc 0
[ "$(sed -n '/^\$utilization << EOD$/,/^EOD$/p' "$TMP/out" | wc -l)" -eq 202 ] ||
  fail "1e11: not 200 bins: $(cat "$TMP/out")"

# A trace near 0 keeps gnuplot's own time axis.
sed 's/17324000\([0-9][0-9]\)\./\1./' late.picl >early.picl
run "$PT" plot --kind=gantt --format=script early.picl
expect_rc 0
grep -qx "set xlabel 'time (s)'" "$TMP/out" || fail "early: $(grep xlabel "$TMP/out")"
grep -q '^set xtics' "$TMP/out" && fail "early: $(grep xtics "$TMP/out")"
exit 0
