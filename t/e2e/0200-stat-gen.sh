#!/bin/sh
# picltrace stat on traces from bench/gen-trace, whose statistics records
# are computed the way PICL's traceexit computes them: --compare agrees,
# --emit-records gives the same records (in processor order), a tampered
# record is found; unsorted traces (PICL's flush order) give the same
# statistics, and stat says which message edges the critical path lost.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"

"$GEN" --procs 4 --records 20000 --no-trace-volume -o g.picl
run "$PT" stat --compare g.picl
expect_rc 0
grep -q '^the statistics records agree with the events: [0-9]* values compared$' "$TMP/out" ||
  fail "generated trace does not compare clean"
grep -q '^note:' "$TMP/out" && fail "notes without a -901 volume"

grep -E '^-10[123] ' g.picl | sort >own.sorted
grep -vE '^-10[123] ' g.picl >events.picl
run "$PT" stat --emit-records events.picl
expect_rc 0
sort "$TMP/out" | cmp - own.sorted || fail "emitted records differ from the generator's"

# One count changed: a difference, exit 1.
awk '!done && $1 == -102 && $2 == -1 { $9 = $9 + 1; done = 1 } { print }' g.picl >tampered.picl
run "$PT" stat --compare tampered.picl
expect_rc 1
grep -q '^tampered.picl:[0-9]*:[0-9]*: processor [0-9], process 0, relative to -1: count of .*: recorded [0-9]*, the events give [0-9]*$' "$TMP/out" ||
  fail "tampered count not reported"
grep -q '^the statistics records differ from the events: 1 of [0-9]* values$' "$TMP/out" ||
  fail "no summary of the difference"

# Relative to -901 is relative to the whole process, as to -1 (spec
# §2.3.3: the sends lie inside it, and inside user events 0 and 1); those
# relative to a subset (-1001, or -3000 = {0, 1}) are not recomputed: a
# note each, no difference.
cat >rel.picl <<'EOF'
-203 -1 -1 -1 -1 3 2 -3000 0 1
-3 -901 0 0 0 0
-3 0 1 0 0 0
-3 -21 1 0 0 3 2 8 1 1
-4 -21 2 0 0 0
-4 0 2 0 0 0
-3 1 3 0 0 0
-3 -21 3 0 0 3 2 8 1 1
-4 -21 4 0 0 0
-4 1 4 0 0 0
-4 -901 5 0 0 0
-102 -901 5 0 0 1 "%d%d" -21 2
-102 -1001 5 0 0 1 "%d%d" -21 2
-102 -3000 5 0 0 1 "%d%d" -21 2
EOF
run "$PT" stat --compare rel.picl
expect_rc 0
grep -q '^the statistics records agree with the events: 1 value compared$' "$TMP/out" ||
  fail "$last: the -901 record compared"
[ "$(grep -c '^note: rel.picl:1[34]:31: .*relative to -[13]0[03][01]: the count of -21 send0 (2) is not recomputed' "$TMP/out")" -eq 2 ] ||
  fail "$last: a note per subset"
sed 's/^-102 -901 5 0 0 1 "%d%d" -21 2$/-102 -901 5 0 0 1 "%d%d" -21 3/' rel.picl >rel3.picl
run "$PT" stat --compare rel3.picl
expect_rc 1
grep -q '^rel3.picl:12:30: processor 0, process 0, relative to -901: count of -21 send0: recorded 3, the events give 2$' "$TMP/out" ||
  fail "$last: the -901 difference"
run "$PT" validate --partial rel.picl
expect_rc 0
run "$PT" validate --partial rel3.picl
expect_rc 1
grep -q '^rel3.picl:12:30: statistics: count of event -21 relative to -901 is 3, the events give 2$' "$TMP/out" ||
  fail "$last: the -901 difference"

# close0 written as an entry and an exit (the spec allows either form for
# any event): 3 s overhead inside it, idle after its exit, as after its mark.
printf -- '-3 -901 0 0 0 0\n-3 -12 6 0 0 0\n-4 -12 9 0 0 0\n-4 -901 10 0 0 0\n' >close.picl
printf -- '-3 -901 0 0 0 0\n-3 -21 6 0 0 0\n-4 -21 9 0 0 0\n-2 -12 9 0 0 0\n-4 -901 10 0 0 0\n' >closem.picl
for f in close.picl closem.picl; do
  run "$PT" stat -f csv "$f"
  expect_rc 0
  grep '^0,0,,utilization,' "$TMP/out" | cut -d, -f6,7 | tr '\n' ' ' >util
  [ "$(cat util)" = "busy,6 overhead,3 idle,1 " ] || fail "$last: utilization $(cat util)"
done

# With the -901 trace volume: one note per processor, still exit 0.
"$GEN" --procs 4 --records 20000 -o v.picl
run "$PT" stat --compare v.picl
expect_rc 0
[ "$(grep -c '^note: .* the volume of -901 tracing ([0-9]*, the bytes of trace data) cannot be recomputed from the events$' "$TMP/out")" -eq 4 ] ||
  fail "expected 4 notes for -901 volumes"

# Unsorted (per-processor flush order): same statistics; message edges the
# critical path could not use are counted.
"$GEN" --procs 4 --records 20000 --no-trace-volume --unsorted -o u.picl
run "$PT" stat --compare u.picl
expect_rc 0
run "$PT" stat --emit-records u.picl
sort "$TMP/out" >u.sorted
grep -E '^-10[123] ' u.picl | sort | cmp - u.sorted || fail "unsorted trace: other statistics"
run "$PT" stat --summary u.picl
expect_rc 0
grep -q '^  [0-9]* messages were read receive first, left out: sort the trace$' "$TMP/out" ||
  fail "late message edges not reported"
run "$PT" stat --summary g.picl
grep -q 'read receive first' "$TMP/out" && fail "a sorted trace lost message edges"

# zstd and several processors' totals in json.
zstd -q g.picl -o g.picl.zst
run "$PT" stat --format=json g.picl.zst
expect_rc 0
python3 - "$TMP/out" <<'PY' || fail "json of a generated trace"
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["processes"]) == 4
tr = sum(p["traced"] for p in d["processes"])
assert abs(d["all"]["traced"] - tr) < 1e-9
for p in d["processes"] + [d["all"]]:
    u = p["utilization"]
    assert abs(u["busy"] + u["overhead"] + u["idle"] - p["traced"]) < 1e-9, p
assert d["messages"]["count"] > 0 and d["messages"]["unmatched_sends"] == 0
assert 0 < d["critical_path"]["length"] <= d["critical_path"]["makespan"]
PY
# Memory does not grow with the message channels met: the matcher forgets
# a (source, destination, type) channel once nothing waits in it. Here
# 64 processors use tens of thousands of channels (keeping them all took
# 55 MB for this trace, 100 MB for 1 GB of it); now about 11 MB, most of
# it the parallel reader's chunks.
if [ -n "${ASAN_OPTIONS:-}" ]; then
  echo "note: sanitizer build (shadow memory); memory bound not measured here"
elif [ -x /usr/bin/time ]; then
  "$GEN" --seed 1 --procs 64 --size 100M -o big.picl
  run /usr/bin/time -f '%M' -o peak "$PT" stat --summary big.picl
  expect_rc 0
  peak=$(tail -n 1 peak)
  [ "$peak" -le 25600 ] || fail "stat peaked at ${peak} KB on 100 MB of messages"
  rm -f big.picl
else
  echo "note: /usr/bin/time absent; memory bound not measured"
fi

echo "PASS: $ntest stat checks on generated traces"
