#!/bin/sh
# picltrace sync: clock correction. Hand-made traces whose corrected output
# was worked out by hand (a clock 5 ms behind; constraints no line meets;
# a one-way link with a minimum latency; a processor without messages);
# validate finds no tachyon afterwards; the recovered offset and drift of
# skewed clocks in a generated trace; synchronisations in bounded memory,
# and calls too late for their round; stdin, pipes and zstd; --in-place;
# bad input (file:line:column, exit 2, nothing left behind); usage errors.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
D="$PICL_SRCDIR/testdata/sync"

# validate's tachyon findings in a file (0 expected after sync).
tachyons() {
  "$PT" validate --max-errors=0 "$1" | grep -c ': tachyon: ' || true
}

# --- Processor 2 is 5 ms behind: +0.005000 on each of its records; the
# header records and the record of processor -1 keep their times.
run "$PT" sync --report -o "$TMP/three.picl" "$D/three-procs.picl"
expect_rc 0
expect_out <<'T'
reference processor 0, t0 -0.005000, minimum latency 0 s, drift at most 100 ppm
processor       offset (s)  drift (ppm)         +- (s)  messages  syncs    via  how
        0      0.000000000        0.000    0.000000000         4      0      -  reference
        1      0.000000000        0.000    0.000100495         4      0      0  two-way
        2      0.005000000        0.000    0.000100495         4      0      0  two-way
messages: 6 matched, 0 within one processor; 0 synchronisation constraints
tachyons: 2 before, 0 after
T
expect_err </dev/null
cat >"$TMP/three.want" <<'T'
-301 -1 -1.000000 -1 -1 9 0 sync-test
-303 -1 -1.000000 2 -1 5 0 node2
-5 0 0.000000 -1 -1 4 0 work
-3 -901 0.000000 0 0 0
-3 -21 0.010000 0 0 3 2 8 1 2
-4 -21 0.010010 0 0 0
-3 -52 0.019000 0 0 1 2 2
-4 -52 0.020100 0 0 3 2 8 2 2
-3 -21 0.050000 0 0 3 2 8 3 1
-4 -21 0.050010 0 0 0
-3 -52 0.055000 0 0 1 2 4
-4 -52 0.060100 0 0 3 2 8 4 1
-4 -901 0.070000 0 0 0
-3 -901 0.000000 1 0 0
-3 -21 0.030000 1 0 3 2 8 5 2
-4 -21 0.030010 1 0 0
-3 -52 0.039000 1 0 1 2 6
-4 -52 0.040100 1 0 3 2 8 6 2
-3 -52 0.049000 1 0 1 2 3
-4 -52 0.050100 1 0 3 2 8 3 0
-3 -21 0.060000 1 0 3 2 8 4 0
-4 -21 0.060010 1 0 0
-4 -901 0.070000 1 0 0
-3 -901 0.000000 2 0 0
-5 1 0.006000 2 -1 4 0 idle
-3 -52 0.009000 2 0 1 2 1
-4 -52 0.010100 2 0 3 2 8 1 0
-3 -21 0.020000 2 0 3 2 8 2 0
-4 -21 0.020010 2 0 0
-3 -52 0.029000 2 0 1 2 5
-4 -52 0.030100 2 0 3 2 8 5 1
-3 -21 0.040000 2 0 3 2 8 6 1
-4 -21 0.040010 2 0 0
-4 -901 0.070000 2 0 0
T
cmp "$TMP/three.picl" "$TMP/three.want" || fail "three-procs: corrected trace differs"
[ "$(tachyons "$D/three-procs.picl")" -eq 2 ] || fail "validate should see 2 tachyons before"
[ "$(tachyons "$TMP/three.picl")" -eq 0 ] || fail "validate still sees tachyons after sync"

# The report goes to standard error by default, and the trace to stdout.
run "$PT" sync "$D/three-procs.picl"
expect_rc 0
cmp "$TMP/out" "$TMP/three.want" || fail "trace on standard output differs"
grep -q '^tachyons: 2 before, 0 after$' "$TMP/err" || fail "no report on standard error"
run "$PT" sync --quiet "$D/three-procs.picl"
expect_rc 0
expect_err </dev/null

# JSON report, dry run: nothing written.
run "$PT" sync --dry-run --report --format=json "$D/three-procs.picl"
expect_rc 0
grep -q '"tachyons_before":2,"tachyons_after":0' "$TMP/out" || fail "json: tachyon counts"
grep -q '{"processor":2,"status":"two-way","offset":0.005,"drift_ppm":0,"uncertainty":0.000100495,' \
  "$TMP/out" || fail "json: processor 2"
[ "$(grep -o '"processor":' "$TMP/out" | wc -l)" -eq 3 ] || fail "json: three processors"

# --- No line meets the constraints: the least-violating line. From t0 =
# 1.0 the margin (-1.5 - 2d) - (-1.0 - d) = -0.5 - d is largest at the
# drift bound d = -100 ppm, where the offset is midway between -1.0 - d
# and -1.5 - 2d: -1.24985 s (uncertainty half the violation, 0.24995 s);
# then both receives raised to their sends' corrected times.
run "$PT" sync --report -o "$TMP/inc.picl" "$D/inconsistent.picl"
expect_rc 0
grep -q '^        1     -1.249850000     -100.000    0.249950000         2      0      0  two-way (drift not determined, inconsistent)$' \
  "$TMP/out" || fail "inconsistent: processor 1 line"
grep -q '^tachyons: 1 before, 0 after; 2 receives raised to follow their sends$' "$TMP/out" ||
  fail "inconsistent: summary"
cat >"$TMP/inc.want" <<'T'
-3 -21 1.000 0 0 3 2 8 1 1
-4 -21 1.001 0 0 0
-3 -52 1.200 0 0 1 2 2
-4 -52 1.750 0 0 3 2 8 2 1
-3 -52 0.650 1 0 1 2 1
-4 -52 1.000 1 0 3 2 8 1 0
-3 -21 1.750 1 0 3 2 8 2 0
-4 -21 1.751 1 0 0
T
cmp "$TMP/inc.picl" "$TMP/inc.want" || fail "inconsistent: corrected trace differs"
[ "$(tachyons "$TMP/inc.picl")" -eq 0 ] || fail "inconsistent: tachyons left"

# --- A raised receive delays a later send, whose receive must then be
# raised too (found by a second checking pass). Processor 1 gets -1.25 s as
# above; 2, known one way only from 1, gets the same. After the offsets:
# 0: 1.000 1.200 1.500 | 1: 0.750 0.800 1.750 | 2: 0.850. Raised: 0.750 to
# 1.000 (so 0.800 follows at 1.000), 1.500 to 1.750, then 0.850 to 1.000.
printf '%s\n' '-3 -21 1.000 0 0 3 2 8 1 1' '-3 -52 1.200 0 0 1 2 2' \
  '-4 -52 1.500 0 0 3 2 8 2 1' '-4 -52 2.000 1 0 3 2 8 1 0' \
  '-3 -21 2.050 1 0 3 2 8 3 2' '-3 -21 3.000 1 0 3 2 8 2 0' \
  '-4 -52 2.100 2 0 3 2 8 3 1' >"$TMP/cascade.picl"
run "$PT" sync "$TMP/cascade.picl"
expect_rc 0
expect_out <<'T'
-3 -21 1.000 0 0 3 2 8 1 1
-3 -52 1.200 0 0 1 2 2
-4 -52 1.750 0 0 3 2 8 2 1
-4 -52 1.000 1 0 3 2 8 1 0
-3 -21 1.000 1 0 3 2 8 3 2
-3 -21 1.750 1 0 3 2 8 2 0
-4 -52 1.000 2 0 3 2 8 3 1
T
grep -q '^tachyons: 1 before, 0 after; 3 receives raised to follow their sends$' "$TMP/err" ||
  fail "cascade: summary"

# --- One way only, minimum latency 1 ms: processor 1 moves by +2 ms (the
# message then takes exactly 1 ms); processor 2 exchanged nothing: kept.
run "$PT" sync --min-latency=0.001 --report -o "$TMP/ow.picl" "$D/one-way.picl"
expect_rc 0
expect_out <<'T'
reference processor 0, t0 -0.002, minimum latency 0.001 s, drift at most 100 ppm
processor       offset (s)  drift (ppm)         +- (s)  messages  syncs    via  how
        0      0.000000000        0.000    0.000000000         1      0      -  reference
        1      0.002000000        0.000              -         1      0      0  one-way
        2      0.000000000        0.000              -         0      0      -  no-messages: clock kept
messages: 1 matched, 0 within one processor; 0 synchronisation constraints
tachyons: 1 before, 0 after
T
cat >"$TMP/ow.want" <<'T'
-3 -901 0.000 0 0 0
-3 -21 0.010 0 0 3 2 8 1 1
-4 -21 0.011 0 0 0
-4 -901 0.020 0 0 0
-3 -901 0.000 1 0 0
-3 -52 0.007 1 0 1 2 1
-4 -52 0.011 1 0 3 2 8 1 0
-4 -901 0.020 1 0 0
-3 -901 0.000 2 0 0
-4 -901 0.020 2 0 0
T
cmp "$TMP/ow.picl" "$TMP/ow.want" || fail "one-way: corrected trace differs"

# --- Another reference: processor 2 keeps its clock, 0 and 1 move back.
run "$PT" sync --reference=2 --quiet "$D/three-procs.picl"
expect_rc 0
grep -q '^-3 -21 0.005000 0 0 3 2 8 1 2$' "$TMP/out" || fail "--reference=2: processor 0"
grep -q '^-4 -52 0.005100 2 0 3 2 8 1 0$' "$TMP/out" || fail "--reference=2: processor 2 kept"

# --- A receive before its own send on one processor cannot be fixed:
# written anyway, exit 1, said on stderr.
printf '%s\n' '-4 -52 1.0 0 1 3 2 8 1 0' '-3 -21 2.0 0 0 3 2 8 1 0' >"$TMP/self.picl"
run "$PT" sync --quiet -o "$TMP/self.out" "$TMP/self.picl"
expect_rc 1
expect_err <<'T'
T
cmp "$TMP/self.out" "$TMP/self.picl" || fail "unfixable: output should be the input"
run "$PT" sync -o "$TMP/self.out" "$TMP/self.picl"
expect_rc 1
grep -q '^picltrace sync: 1 message still arrives before it was sent (a receive before its send on one processor)$' \
  "$TMP/err" || fail "unfixable: no warning"

# --- Skewed clocks in a generated trace: processor 2 runs 3 ms ahead and
# 50 ppm fast, processor 3 2 ms behind and 30 ppm slow. gen-trace's clocks
# agree, so the truth is the skew undone: recovered within 100 us and 5 ppm
# (gen-trace's latencies are not symmetric, which biases any estimate).
# And whatever sync makes of the unskewed trace, the skewed one must differ
# from it by the skew, within 10 us and 1 ppm.
"$GEN" --procs 4 --records 200000 --seed 5 -o "$TMP/g.picl"
cat >"$TMP/skew.awk" <<'AWK'
# processor P's clock: t -> t + A + B*t (6 decimals, as gen-trace writes)
{
  if ($4 == P && ($1 > -300 || $1 < -399)) {
    n = length($1) + length($2) + length($3) + 2
    printf "%s %s %.6f%s\n", $1, $2, $3 + A + B * $3, substr($0, n + 1)
    next
  }
  print
}
AWK
awk -v P=2 -v A=0.003 -v B=50e-6 -f "$TMP/skew.awk" "$TMP/g.picl" >"$TMP/g2.picl"
awk -v P=3 -v A=-0.002 -v B=-30e-6 -f "$TMP/skew.awk" "$TMP/g2.picl" >"$TMP/gs.picl"
[ "$(tachyons "$TMP/gs.picl")" -gt 0 ] || fail "the skewed trace should have tachyons"
run "$PT" sync --dry-run --report --format=json "$TMP/g.picl"
expect_rc 0
cp "$TMP/out" "$TMP/g.json"
run "$PT" sync --report --format=json -o "$TMP/gso.picl" "$TMP/gs.picl"
expect_rc 0
cp "$TMP/out" "$TMP/gs.json"
grep -q '"tachyons_after":0' "$TMP/gs.json" || fail "generated: tachyons after"
[ "$(tachyons "$TMP/gso.picl")" -eq 0 ] || fail "generated: validate sees tachyons"
# processor P's offset and drift from a JSON report
field() {
  tr '{' '\n' <"$1" | grep "^\"processor\":$2," | sed "s/.*\"$3\":\([^,]*\),.*/\1/"
}
t0=$(sed 's/.*"t0":"\([^"]*\)".*/\1/' "$TMP/gs.json")
for p in 2 3; do
  if [ $p = 2 ]; then a=0.003 b=50e-6; else a=-0.002 b=-30e-6; fi
  awk -v o1="$(field "$TMP/g.json" $p offset)" -v d1="$(field "$TMP/g.json" $p drift_ppm)" \
      -v o2="$(field "$TMP/gs.json" $p offset)" -v d2="$(field "$TMP/gs.json" $p drift_ppm)" \
      -v a=$a -v b=$b -v t0="$t0" 'BEGIN {
    wo = -(a + b * t0) / (1 + b); wd = -b / (1 + b) * 1e6   # the skew undone at t0
    ao = o2 - wo; ad = d2 - wd; eo = o2 - o1 - wo; ed = d2 - d1 - wd
    if (ao < 0) ao = -ao; if (ad < 0) ad = -ad; if (eo < 0) eo = -eo; if (ed < 0) ed = -ed
    if (ao > 100e-6 || ad > 5 || eo > 10e-6 || ed > 1) {
      printf "offset error %g s (%g s from the unskewed), drift error %g ppm (%g ppm)\n",
        ao, eo, ad, ed
      exit 1
    }
  }' || fail "generated: processor $p not recovered"
done

# Receives to raise in a trace larger than the writer's buffer: standard
# output gets the same as a file (nothing written before the check).
{ cat "$TMP/g.picl"; printf '%s\n' '-3 -21 1.000 10 0 3 2 8 1 11' \
  '-4 -52 1.500 10 0 3 2 8 2 11' '-4 -52 2.000 11 0 3 2 8 1 10' \
  '-3 -21 3.000 11 0 3 2 8 2 10'; } >"$TMP/mix.picl"
run "$PT" sync --quiet -o "$TMP/mix.out" "$TMP/mix.picl"
expect_rc 0
run "$PT" sync --quiet "$TMP/mix.picl"
expect_rc 0
cmp "$TMP/out" "$TMP/mix.out" || fail "raised receives: stdout differs from -o"
[ "$(tail -4 "$TMP/out" | tr '\n' '|')" = \
  '-3 -21 1.000 10 0 3 2 8 1 11|-4 -52 1.750 10 0 3 2 8 2 11|-4 -52 1.000 11 0 3 2 8 1 10|-3 -21 1.750 11 0 3 2 8 2 10|' ] ||
  fail "raised receives: the tail differs"

# --- Synchronisations are folded into constraints a round at a time, not
# kept: sync0 rounds on two processors (1 running 3 ms ahead), one round per
# 100 us, entries then exits. Keeping every call took 50 bytes each (43 MB
# here); now the calls held stay within 4096 per process. And a trace whose
# processes' records come one after the other: the calls a process made
# over 4096 rounds after the other's were left out; now the estimate is
# made again from a copy sorted by time, which meets every round, and the
# result is the sorted trace's. Unless the copy cannot be read (an alias
# defined, in time, after its use) or made (no --tmpdir): then the late
# calls are left out, and said so.
cat >"$TMP/rounds.awk" <<'AWK'
BEGIN {
  for (k = 0; k < N; k++) {
    t = k * 1e-4
    printf "-3 -402 %.6f 0 0 0\n-3 -402 %.6f 1 0 0\n", t, t + 0.003 + 2e-6
    printf "-4 -402 %.6f 0 0 0\n-4 -402 %.6f 1 0 0\n", t + 5e-6, t + 0.003 + 6e-6
  }
}
AWK
awk -v N=400000 -f "$TMP/rounds.awk" >"$TMP/rounds.picl"
if [ -n "${ASAN_OPTIONS:-}" ]; then
  run "$PT" sync -n --report "$TMP/rounds.picl"
  echo "note: sanitizer build (shadow memory); memory bound not measured here"
elif [ -x /usr/bin/time ]; then
  run env PICL_THREADS=2 /usr/bin/time -f '%M' -o "$TMP/peak" "$PT" sync -n --report "$TMP/rounds.picl"
  peak=$(tail -n 1 "$TMP/peak")
  [ "$peak" -le 20480 ] || fail "sync peaked at ${peak} KB on 400000 synchronisations"
else
  run "$PT" sync -n --report "$TMP/rounds.picl"
  echo "note: /usr/bin/time absent; memory bound not measured"
fi
expect_rc 0
expect_out <<'T'
reference processor 0, t0 0.000000, minimum latency 0 s, drift at most 100 ppm
processor       offset (s)  drift (ppm)         +- (s)  messages  syncs    via  how
        0      0.000000000        0.000    0.000000000         0  400000      -  reference
        1     -0.003001500        0.000    0.000004500         0  400000      0  two-way
messages: 0 matched, 0 within one processor; 800000 synchronisation constraints
tachyons: 0 before, 0 after
T
expect_err </dev/null
awk -v N=5000 -f "$TMP/rounds.awk" >"$TMP/rounds.picl"
{ grep ' 0 0 0$' "$TMP/rounds.picl"; grep ' 1 0 0$' "$TMP/rounds.picl"; } >"$TMP/byproc.picl"
run "$PT" sync -n --report "$TMP/byproc.picl"
expect_rc 0
expect_out <<'T'
reference processor 0, t0 0.000000, minimum latency 0 s, drift at most 100 ppm
processor       offset (s)  drift (ppm)         +- (s)  messages  syncs    via  how
        0      0.000000000        0.000    0.000000000         0   5000      -  reference
        1     -0.003001500        0.000    0.000004500         0   5000      0  two-way
messages: 0 matched, 0 within one processor; 10000 synchronisation constraints
tachyons: 0 before, 0 after
T
expect_err <<T
picltrace sync: note: $TMP/byproc.picl is not sorted by time (904 synchronisation calls came over 4096 rounds after another process's): estimated from a sorted copy
T
# the rewrite keeps the input's order: processor 0's records, then 1's
run "$PT" sync -q -o "$TMP/synced.picl" "$TMP/byproc.picl"
expect_rc 0
cut -d' ' -f1,2,4- "$TMP/byproc.picl" >"$TMP/want"
cut -d' ' -f1,2,4- "$TMP/synced.picl" | diff -u "$TMP/want" - >&2 || fail "$last: order or fields changed"
# processor 1's first call, at 0.003002 on its clock, is ~3 ms earlier
awk 'NR == 10001 { exit !($3 >= 0 && $3 <= 0.000001) }' "$TMP/synced.picl" ||
	fail "$last: processor 1 not moved"
{ echo '-6 -1 99.0 -1 -1 1 "%d%s" 6 "%d%d"'; echo '-2 7 0.5 0 0 1 6 3 4'
  cat "$TMP/byproc.picl"; } >"$TMP/latedef.picl"
run "$PT" sync -n "$TMP/latedef.picl"
expect_rc 0
# (the sorted copy keeps the definition before the record that uses it, so
# it reads: every call counts, as for byproc.picl)
cat "$TMP/out" "$TMP/err" | grep -q '; 10000 synchronisation constraints$' ||
  fail "late definition: constraints"
grep -q 'latedef.picl is not sorted by time (904 synchronisation calls came over 4096 rounds after another process.s): estimated from a sorted copy$' \
  "$TMP/err" || fail "late definition: not estimated from the sorted copy"
# No room for the sorted copy: the first estimate, as before, and why.
run "$PT" sync -n --tmpdir="$TMP/nonexistent" "$TMP/byproc.picl"
expect_rc 0
grep -q '; 8192 synchronisation constraints$' "$TMP/err" || fail "no tmpdir: constraints"
grep -q "^picltrace sync: cannot create a temporary file in $TMP/nonexistent" "$TMP/err" ||
  fail "no tmpdir: the cause not said"
grep -q '^picltrace sync: 904 synchronisation calls came .*; no copy sorted by time could be made (above)): left out$' \
  "$TMP/err" || fail "no tmpdir: late calls not reported"
rm -f "$TMP/rounds.picl" "$TMP/byproc.picl" "$TMP/latedef.picl" "$TMP/synced.picl"

# A round is made of the calls of the members that have one waiting, not
# of a pass over every member: 20000 processors calling sync0 once, then
# one of them 200000 times more, took 35 s (a pass per round); the report
# is what keeping every call gave.
awk 'BEGIN { P = 20000; N = 200000
  for (p = 1; p <= P; p++) printf "-3 -402 0.%06d %d 0 0\n", p, p
  for (p = 1; p <= P; p++) printf "-4 -402 0.%06d %d 0 0\n", p + 1, p
  for (k = 0; k < N; k++) { t = 1 + k * 1e-5
    printf "-3 -402 %.6f 0 0 0\n-4 -402 %.6f 0 0 0\n", t, t + 2e-6 } }' >"$TMP/uneven.picl"
run_within 30 "$PT" sync -n --report "$TMP/uneven.picl"
expect_rc 0
grep -qx 'messages: 0 matched, 0 within one processor; 40000 synchronisation constraints' "$TMP/out" ||
  fail "uneven rounds: $(tail -n 3 "$TMP/out")"
[ "$(grep -c '^ *[0-9][0-9]* .* two-way' "$TMP/out")" -eq 20000 ] ||
  fail "uneven rounds: not every processor synchronised"
rm -f "$TMP/uneven.picl"

# --- Standard input, pipes and zstd, both ways.
run sh -c "\"$PT\" sync --quiet - <\"$D/three-procs.picl\""
expect_rc 0
cmp "$TMP/out" "$TMP/three.want" || fail "stdin (a file) differs"
run sh -c "cat \"$D/three-procs.picl\" | \"$PT\" sync --quiet --tmpdir=\"$TMP\""
expect_rc 0
cmp "$TMP/out" "$TMP/three.want" || fail "stdin (a pipe) differs"
[ "$(ls "$TMP" | grep -c '^picltrace-sync\.')" -eq 0 ] || fail "spool file left behind"
zstd -q -c "$D/three-procs.picl" >"$TMP/three.zst"
run sh -c "cat \"$TMP/three.zst\" | \"$PT\" sync --quiet -z -o \"$TMP/three-out.zst\""
expect_rc 0
[ "$(head -c 4 "$TMP/three-out.zst" | od -An -tx1 | tr -d ' ')" = 28b52ffd ] || fail "-z: not zstd"
zstd -q -dc "$TMP/three-out.zst" | cmp - "$TMP/three.want" || fail "zstd round trip differs"
run "$PT" sync --quiet "$TMP/three.zst"
expect_rc 0
cmp "$TMP/out" "$TMP/three.want" || fail "zstd file input differs"
run sh -c "cat \"$D/three-procs.picl\" | \"$PT\" sync --quiet --tmpdir=\"$TMP/nowhere\""
expect_rc 2
grep -q "^picltrace sync: cannot create a temporary file in $TMP/nowhere: " "$TMP/err" ||
  fail "bad --tmpdir not reported"

# --- In place: replaced only on success; a compressed input stays so.
cp "$D/three-procs.picl" "$TMP/inplace.picl"
run "$PT" sync --quiet --in-place "$TMP/inplace.picl"
expect_rc 0
expect_out </dev/null
cmp "$TMP/inplace.picl" "$TMP/three.want" || fail "--in-place result differs"
cp "$TMP/three.zst" "$TMP/inplace.zst"
run "$PT" sync --quiet --in-place "$TMP/inplace.zst"
expect_rc 0
zstd -q -dc "$TMP/inplace.zst" | cmp - "$TMP/three.want" || fail "--in-place zstd differs"
ls -a "$TMP" | grep -q '\.tmp' && fail "temporary file left behind"

# --- Bad input: file:line:column, exit 2, no output, input untouched.
cp "$D/three-procs.picl" "$TMP/bad.picl"
echo '-3 -21 0.5 0 0 3 2 8 x 7' >>"$TMP/bad.picl"
cp "$TMP/bad.picl" "$TMP/bad.orig"
run "$PT" sync -o "$TMP/never.picl" "$TMP/bad.picl"
expect_rc 2
expect_err <<T
picltrace sync: $TMP/bad.picl:39:22: expected an integer, found "x"
T
[ ! -e "$TMP/never.picl" ] || fail "partial output left behind"
run "$PT" sync --in-place "$TMP/bad.picl"
expect_rc 2
cmp "$TMP/bad.picl" "$TMP/bad.orig" || fail "--in-place touched a bad input"
run sh -c "cat \"$TMP/bad.picl\" | \"$PT\" sync"
expect_rc 2
expect_out </dev/null
expect_err <<'T'
picltrace sync: <stdin>:39:22: expected an integer, found "x"
T
echo keep >"$TMP/old.picl"
run "$PT" sync -o "$TMP/old.picl" "$TMP/bad.picl"
expect_rc 2
[ "$(cat "$TMP/old.picl")" = keep ] || fail "failed run clobbered the old output"
run "$PT" sync "$TMP/nope.picl"
expect_rc 2
expect_err <<T
picltrace sync: $TMP/nope.picl: cannot open: No such file or directory
T

# --- Usage.
cp "$D/three-procs.picl" "$TMP/same.picl"
run "$PT" sync -o "$TMP/same.picl" "$TMP/same.picl"
expect_rc 2
cmp "$TMP/same.picl" "$D/three-procs.picl" || fail "input was overwritten"
run "$PT" sync --reference=7 "$D/three-procs.picl"
expect_rc 2
expect_err <<T
picltrace sync: $D/three-procs.picl: reference processor 7 is not in the trace
T
run "$PT" sync --reference=x "$D/three-procs.picl"
expect_rc 2
run "$PT" sync --report "$D/three-procs.picl"
expect_rc 2
grep -q 'use -o FILE, --in-place or --dry-run' "$TMP/err" || fail "--report to stdout not refused"
run sh -c "\"$PT\" sync --in-place < \"$D/three-procs.picl\""
expect_rc 2
# A non-blocking standard input (some parents leave it so) is waited on,
# as a blocking one: sync copies a pipe to read it twice.
if command -v python3 >/dev/null; then
  (sleep 0.3; cat "$D/three-procs.picl") | python3 -c '
import fcntl, os, sys
fcntl.fcntl(0, fcntl.F_SETFL, fcntl.fcntl(0, fcntl.F_GETFL) | os.O_NONBLOCK)
os.execv(sys.argv[1], sys.argv[1:])' "$PT" sync -q -o "$TMP/nb.picl" - 2>"$TMP/err" ||
    fail "sync of a non-blocking standard input: $(cat "$TMP/err")"
  "$PT" sync -q -o "$TMP/nb.want" "$D/three-procs.picl"
  cmp -s "$TMP/nb.picl" "$TMP/nb.want" || fail "sync of a non-blocking standard input differs"
  rm -f "$TMP/nb.picl" "$TMP/nb.want"
else
  echo "note: python3 not found; the non-blocking standard input case is not tested"
fi
mkfifo "$TMP/fifo.picl"
run_within 10 "$PT" sync --in-place "$TMP/fifo.picl"
expect_rc 2
expect_err <<T
picltrace sync: $TMP/fifo.picl: --in-place needs a regular file, not a FIFO
T
rm -f "$TMP/fifo.picl"
run "$PT" sync --format=xml "$D/three-procs.picl"
expect_rc 2
run "$PT" sync --min-latency=-1 "$D/three-procs.picl"
expect_rc 2
expect_err <<'T'
picltrace sync: --min-latency takes seconds (a number >= 0), not '-1'
T
# Times of 18 digits cannot take a correction that needs a 19th: an error
# at that record (processor 1's clock runs 0.7 s ahead of processor 0's).
cat >"$TMP/full.picl" <<'T'
-3 -21 0.500000000000000000 0 0 3 2 8 1 1
-4 -21 0.500000000000000001 0 0 0
-3 -52 0.900000000000000000 0 0 1 2 1
-4 -52 0.900000000000000001 0 0 3 2 8 1 1
-3 -52 0.100000000000000000 1 0 1 2 1
-4 -52 0.100000000000000001 1 0 3 2 8 1 0
-3 -21 0.200000000000000000 1 0 3 2 8 1 0
-4 -21 0.200000000000000001 1 0 0
-3 -11 0.999999999999999999 1 0 0
T
run "$PT" sync -o "$TMP/full.out" "$TMP/full.picl"
expect_rc 2
expect_err <<T
picltrace sync: $TMP/full.picl:9:1: the corrected time would need more than 18 digits (a time keeps its number of decimals)
T
[ ! -e "$TMP/full.out" ] || fail "$last: left an output file"
rm -f "$TMP/full.picl"
run "$PT" sync --min-latency=1e-19 "$D/three-procs.picl"
expect_rc 2
expect_err <<'T'
picltrace sync: --min-latency: '1e-19' is out of range (at most 18 significant digits and 18 decimals, and less than 10^18 in all)
T
run "$PT" sync "$D/three-procs.picl" "$D/one-way.picl"
expect_rc 2
run "$PT" sync --bogus
expect_rc 2
grep -q '^usage: picltrace sync' "$TMP/err" || fail "no usage on a bad option"
run "$PT" sync --help
expect_rc 0
grep -q '^usage: picltrace sync' "$TMP/out" || fail "no usage from --help"
run "$PT" help sync
expect_rc 0
grep -q -- '--min-latency' "$TMP/out" || fail "help sync shows no options"
echo "PASS: $ntest sync checks"
