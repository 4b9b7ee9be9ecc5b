#!/bin/sh
# A positive statistic that a statistics record leaves out is reported by
# validate (rule statistics, at the record) as by stat --compare: PICL
# lists every positive one (spec Appendix A), in separate records for the
# system and the user events relative to -1, and of the user events only
# those traceevents profiled (the -902 entry's n; without it, those below
# a listed one). Validate checked only the pairs a record holds.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"

# Events of user event types 0 and 1, send0 and recv0 blocked; $1 is put
# after the -901 exit (a -902 entry or nothing), the records follow.
events() {
  cat <<EOF2
-3 -901 0.000000 0 0 0
-3 0 0.000100 0 0 0
-3 -21 0.000110 0 0 3 2 8 1 0
-4 -21 0.000120 0 0 0
-3 -52 0.000128 0 0 1 2 1
-4 -52 0.000516 0 0 3 2 8 1 0
-4 0 0.000600 0 0 0
-3 1 0.000700 0 0 0
-4 1 0.000800 0 0 0
${1:-}
-4 -901 0.001000 0 0 0
EOF2
}
# file:line events each tool says are left out, one per line, sorted
left_out_validate() {
  run "$PT" validate "$1"
  sed -n 's/^\([^:]*:[0-9]*\):1: statistics: \([a-z]*\) of event \(-*[0-9]*\) relative to \(-*[0-9]*\) is left out, the events give .*/\1 \2 \3 \4/p' \
    "$TMP/out" | sort
}
left_out_compare() {
  run "$PT" stat --compare "$1"
  sed -n 's/^\([^:]*:[0-9]*\):1: processor 0, process 0, relative to \(-*[0-9]*\): \([a-z]*\) of \(-*[0-9]*\) [^:]*: not recorded, the events give [^;]*$/\1 \3 \4 \2/p' \
    "$TMP/out" | sort
}

# Every record leaves one out (lines 12 to 15): the same four findings.
{ events; cat <<EOF2
-101 -1 0.001000 0 0 2 "%d%lf" -52 0.000388 -901 0.001000
-102 -1 0.001000 0 0 2 "%d%d" -21 1 -52 1
-103 -1 0.001000 0 0 1 "%d%d" -21 8
-101 -1 0.001000 0 0 1 "%d%lf" 1 0.000100
-102 -1 0.001000 0 0 2 "%d%d" 0 1 1 1
EOF2
} > lo.picl
left_out_validate lo.picl > v.txt
[ "$rc" = 1 ] || fail "validate accepts records that leave statistics out: $(cat "$TMP/out")"
left_out_compare lo.picl > c.txt
[ "$rc" = 1 ] || fail "stat --compare accepts them: $(cat "$TMP/out")"
[ "$(wc -l < v.txt)" = 4 ] || fail "validate: $(cat v.txt)"
cmp -s v.txt c.txt || fail "validate says $(cat v.txt), stat --compare $(cat c.txt)"
for want in "lo.picl:12 time -21 -1" "lo.picl:13 count -901 -1" \
            "lo.picl:14 volume -52 -1" "lo.picl:15 time 0 -1"; do
  grep -qx -- "$want" v.txt || fail "validate does not say $want: $(cat v.txt)"
done

# Nothing left out: both clean.
{ events; cat <<EOF2
-101 -1 0.001000 0 0 3 "%d%lf" -21 0.000010 -52 0.000388 -901 0.001000
-102 -1 0.001000 0 0 3 "%d%d" -21 1 -52 1 -901 1
-103 -1 0.001000 0 0 2 "%d%d" -21 8 -52 8
-101 -1 0.001000 0 0 2 "%d%lf" 0 0.000500 1 0.000100
-102 -1 0.001000 0 0 2 "%d%d" 0 1 1 1
EOF2
} > ok.picl
run "$PT" validate ok.picl
[ "$rc" = 0 ] || fail "validate refuses complete records: $(cat "$TMP/out")"
run "$PT" stat --compare ok.picl
[ "$rc" = 0 ] || fail "stat --compare refuses complete records: $(cat "$TMP/out")"

# User event 1 left out: not a difference if traceevents profiled event 0
# only (a -902 entry of 1), nor when the trace cannot tell (no -902: stat
# says so in a note); a difference when -902 says 2 were. $1: n, or none.
user() {
  if [ -n "$1" ]; then
    tev="-3 -902 0.000900 0 0 1 2 $1
-4 -902 0.000900 0 0 0"
    count="4 \"%d%d\" -21 1 -52 1 -901 1 -902 1"
  else
    tev=""
    count="3 \"%d%d\" -21 1 -52 1 -901 1"
  fi
  { events "$tev"; cat <<EOF2
-101 -1 0.001000 0 0 3 "%d%lf" -21 0.000010 -52 0.000388 -901 0.001000
-102 -1 0.001000 0 0 $count
-103 -1 0.001000 0 0 2 "%d%d" -21 8 -52 8
-101 -1 0.001000 0 0 1 "%d%lf" 0 0.000500
-102 -1 0.001000 0 0 1 "%d%d" 0 1
EOF2
  } | grep -v '^$' > u.picl
}
user 1
run "$PT" validate u.picl
[ "$rc" = 0 ] || fail "validate wants unprofiled user event 1: $(cat "$TMP/out")"
run "$PT" stat --compare u.picl
[ "$rc" = 0 ] || fail "stat --compare wants unprofiled user event 1: $(cat "$TMP/out")"
! grep -q "not recorded" "$TMP/out" || fail "stat --compare on unprofiled event 1: $(cat "$TMP/out")"

user ""
run "$PT" validate u.picl
[ "$rc" = 0 ] || fail "validate wants user event 1 without -902: $(cat "$TMP/out")"
run "$PT" stat --compare u.picl
[ "$rc" = 0 ] || fail "stat --compare wants user event 1 without -902: $(cat "$TMP/out")"
[ "$(grep -c '^note: u.picl:1[45]:1: .* of 1 .*not recorded.*does not tell whether traceevents profiled it' "$TMP/out")" = 2 ] ||
  fail "stat --compare: no note on user event 1 without -902: $(cat "$TMP/out")"

user 2
left_out_validate u.picl > v.txt
[ "$rc" = 1 ] || fail "validate accepts profiled user event 1 left out: $(cat "$TMP/out")"
left_out_compare u.picl > c.txt
[ "$rc" = 1 ] || fail "stat --compare accepts profiled user event 1 left out: $(cat "$TMP/out")"
cmp -s v.txt c.txt || fail "validate says $(cat v.txt), stat --compare $(cat c.txt)"
grep -qx -- "u.picl:16 time 1 -1" v.txt && grep -qx -- "u.picl:17 count 1 -1" v.txt ||
  fail "validate on profiled user event 1: $(cat v.txt)"

# A record of a subset's sum (-1001, the user events) lists no
# event type of its own: it leaves out none.
{ events; cat <<EOF2
-102 -1 0.001000 0 0 1 "%d%d" -1001 2
EOF2
} > sub.picl
run "$PT" validate sub.picl
! grep -q "left out" "$TMP/out" || fail "validate on a subset's record: $(cat "$TMP/out")"
run "$PT" stat --compare sub.picl
! grep -q "not recorded" "$TMP/out" || fail "stat --compare on a subset's record: $(cat "$TMP/out")"

# The spec's Table 20 and a generated trace stay clean.
if [ -d "$SHARED/spec" ]; then
  run "$PT" validate --partial "$SHARED/spec/table20-example.picl"
  [ "$rc" = 0 ] || fail "validate --partial on Table 20: $(cat "$TMP/out")"
  run "$PT" stat --compare "$SHARED/spec/table20-example.picl"
  ! grep -q "not recorded" "$TMP/out" || fail "stat --compare on Table 20: $(cat "$TMP/out")"
fi
run "$GEN" --seed 1 --procs 4 --records 20000
cp "$TMP/out" gen.picl
run "$PT" validate gen.picl
[ "$rc" = 0 ] || fail "validate on gen-trace: $(head -5 "$TMP/out")"
rm -f lo.picl ok.picl u.picl sub.picl gen.picl v.txt c.txt
