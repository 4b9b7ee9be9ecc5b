#!/bin/sh
# picltrace filter: processors, processes, events, record types (numbers,
# ranges, names, subsets the trace defines), exact time windows, PCRE2
# patterns on labels/messages and data, -v, --pairs, definitions kept,
# zstd in and out, stdin, bad input / pattern / option values (exit 2,
# file:line:column, no output file left behind).
#
# Every expected output below was worked out by hand from
# testdata/filter/small.picl (its records, numbered R1..R29 in file order):
#   R1 -301 header   R2 -6 alias 7   R3 -201 subset -5 = {1,2}
#   R4 -203 subset -2000 = {-21,5}   R5 -5 label event 5 on processor -1
#   R6-R8 -901 entries p0 p1 p2      R9 -2 -12 host 0.05
#   R10 -3 5 p0 0.09   R11 -7 p0 1e-1   R12 -3 -21 p1 0.10
#   R13 -4 -21 p1 0.100000000000000001  R14 -4 5 p0 0.2
#   R15 -2 -12 p2 0.2 (extra blanks)    R16 -3 5 p1 0.25
#   R17 -3 -52 p0 0.3  R18 -4 -52 p0 0.35  R19 -4 5 p1 0.4
#   R20 user record 0, event 5, p1 0.4  R21 -5 label -52 p0 0.45
#   R22/R23 -3 7 p2 0.5/0.6  R24/R25 -4 7 p2 0.7/0.8
#   R26-R28 -901 exits p0 p1 p2 at 1   R29 -102 p0 1 (continued line)
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

D="$PICL_SRCDIR/testdata/filter"
S="$D/small.picl"

# ok ARGS...: run filter and expect success.
ok() {
  run "$PT" filter "$@"
  expect_rc 0
}

# The four definition and header records, kept by default.
DEFS='-301 -1 -0.5 -1 -1 11 0 filter test
-6 -1 -0.5 -1 -1 1 "%d%s" 7 "%d %lf"
-201 -1 -0.5 -1 -1 3 "%d" -5 1 2
-203 -1 -0.5 -1 -1 3 "%d" -2000 -21 5'

# --- no criteria: everything, canonical (1e-1 -> 0.1, blanks, continuation)
ok "$S"
expect_out <<T
$DEFS
-5 5 -0.5 -1 -1 12 0 solver  step
-3 -901 0 0 0 0
-3 -901 0 1 0 0
-3 -901 0 2 0 0
-2 -12 0.05 32767 0 0
-3 5 0.09 0 0 0
-7 -1 0.1 0 0 13 0 hello, world!
-3 -21 0.10 1 0 3 2 8 0 5
-4 -21 0.100000000000000001 1 0 0
-4 5 0.2 0 0 0
-2 -12 0.2 2 0 0
-3 5 0.25 1 0 0
-3 -52 0.3 0 0 1 2 5
-4 -52 0.35 0 0 3 2 8 1 5
-4 5 0.4 1 0 0
0 5 0.4 1 0 1 7 3 2.5
-5 -52 0.45 0 0 9 0 recv wait
-3 7 0.5 2 0 0
-3 7 0.6 2 0 0
-4 7 0.7 2 0 0
-4 7 0.8 2 0 0
-4 -901 1 0 0 0
-4 -901 1 1 0 0
-4 -901 1 2 0 0
-102 -1 1 0 0 2 "%d%d" -52 1 5 1
T

# --- processors: a number (defs kept), --no-defs, a trace-defined subset, host
ok -p 1 "$S"
expect_out <<T
$DEFS
-3 -901 0 1 0 0
-3 -21 0.10 1 0 3 2 8 0 5
-4 -21 0.100000000000000001 1 0 0
-3 5 0.25 1 0 0
-4 5 0.4 1 0 0
0 5 0.4 1 0 1 7 3 2.5
-4 -901 1 1 0 0
T
ok --processor=1 --no-defs "$S"
expect_out <<'T'
-3 -901 0 1 0 0
-3 -21 0.10 1 0 3 2 8 0 5
-4 -21 0.100000000000000001 1 0 0
-3 5 0.25 1 0 0
-4 5 0.4 1 0 0
0 5 0.4 1 0 1 7 3 2.5
-4 -901 1 1 0 0
T
# Of --keep-defs and --no-defs, the last counts.
ok -p 1 --keep-defs --no-defs "$S"
cp "$TMP/out" "$TMP/last-no.out"
ok --processor=1 --no-defs "$S"
cmp -s "$TMP/out" "$TMP/last-no.out" || fail "--keep-defs --no-defs: $(cat "$TMP/last-no.out")"
ok -p 1 --no-defs --keep-defs "$S"
cp "$TMP/out" "$TMP/last-keep.out"
ok -p 1 "$S"
cmp -s "$TMP/out" "$TMP/last-keep.out" || fail "--no-defs --keep-defs: $(cat "$TMP/last-keep.out")"
# -5 is the subset {1, 2} of R3 (which --no-defs drops, yet it applies).
ok -p -5 --no-defs "$S"
expect_out <<'T'
-3 -901 0 1 0 0
-3 -901 0 2 0 0
-3 -21 0.10 1 0 3 2 8 0 5
-4 -21 0.100000000000000001 1 0 0
-2 -12 0.2 2 0 0
-3 5 0.25 1 0 0
-4 5 0.4 1 0 0
0 5 0.4 1 0 1 7 3 2.5
-3 7 0.5 2 0 0
-3 7 0.6 2 0 0
-4 7 0.7 2 0 0
-4 7 0.8 2 0 0
-4 -901 1 1 0 0
-4 -901 1 2 0 0
T
ok -p host --no-defs "$S"
expect_out <<'T'
-2 -12 0.05 32767 0 0
T
# Wildcard records (processor -1) are selected by -1 itself.
ok -p -1,32767 --no-defs "$S"
expect_out <<T
$DEFS
-5 5 -0.5 -1 -1 12 0 solver  step
-2 -12 0.05 32767 0 0
T
# Processes: every record but the wildcard ones is on process 0.
ok -P -1 -t 0..2147483647,-5 "$S"
expect_out <<T
$DEFS
-5 5 -0.5 -1 -1 12 0 solver  step
T

# --- events: a range, subset names, a trace-defined subset, user events
ok -e -60..-51 --no-defs "$S"
expect_out <<'T'
-3 -52 0.3 0 0 1 2 5
-4 -52 0.35 0 0 3 2 8 1 5
-5 -52 0.45 0 0 9 0 recv wait
T
ok -e receives,sends -t entry,exit --no-defs "$S"
expect_out <<'T'
-3 -21 0.10 1 0 3 2 8 0 5
-4 -21 0.100000000000000001 1 0 0
-3 -52 0.3 0 0 1 2 5
-4 -52 0.35 0 0 3 2 8 1 5
T
ok -e communication --no-defs "$S"
expect_out <<'T'
-2 -12 0.05 32767 0 0
-3 -21 0.10 1 0 3 2 8 0 5
-4 -21 0.100000000000000001 1 0 0
-2 -12 0.2 2 0 0
-3 -52 0.3 0 0 1 2 5
-4 -52 0.35 0 0 3 2 8 1 5
-5 -52 0.45 0 0 9 0 recv wait
T
ok -e -2000 --no-defs "$S"
expect_out <<'T'
-5 5 -0.5 -1 -1 12 0 solver  step
-3 5 0.09 0 0 0
-3 -21 0.10 1 0 3 2 8 0 5
-4 -21 0.100000000000000001 1 0 0
-4 5 0.2 0 0 0
-3 5 0.25 1 0 0
-4 5 0.4 1 0 0
0 5 0.4 1 0 1 7 3 2.5
T
ok -e user -p 0,2 --no-defs "$S"
expect_out <<'T'
-3 5 0.09 0 0 0
-4 5 0.2 0 0 0
-3 7 0.5 2 0 0
-3 7 0.6 2 0 0
-4 7 0.7 2 0 0
-4 7 0.8 2 0 0
T
# Two -e options add up; -e tracing is -901 .. -1000.
ok -e tracing -e 7 -p 2 --no-defs "$S"
expect_out <<'T'
-3 -901 0 2 0 0
-3 7 0.5 2 0 0
-3 7 0.6 2 0 0
-4 7 0.7 2 0 0
-4 7 0.8 2 0 0
-4 -901 1 2 0 0
T

# --- record types: names, numbers, ranges
ok -t label,message --no-defs "$S"
expect_out <<'T'
-5 5 -0.5 -1 -1 12 0 solver  step
-7 -1 0.1 0 0 13 0 hello, world!
-5 -52 0.45 0 0 9 0 recv wait
T
ok -t statistics "$S"
expect_out <<T
$DEFS
-102 -1 1 0 0 2 "%d%d" -52 1 5 1
T
ok -t -4..-2,0 -p 0 --no-defs "$S"
expect_out <<'T'
-3 -901 0 0 0 0
-3 5 0.09 0 0 0
-4 5 0.2 0 0 0
-3 -52 0.3 0 0 1 2 5
-4 -52 0.35 0 0 3 2 8 1 5
-4 -901 1 0 0 0
T
ok -t user --no-defs "$S"
expect_out <<'T'
0 5 0.4 1 0 1 7 3 2.5
T
ok -t headers,-6 --no-defs "$S"
expect_out <<'T'
-301 -1 -0.5 -1 -1 11 0 filter test
-6 -1 -0.5 -1 -1 1 "%d%s" 7 "%d %lf"
T

# --- time windows: from inclusive, to exclusive, exact decimals
# 1e-1 = 0.1 = 0.10 < 0.100000000000000001 < 0.2 ...; 0.09 and 0.3 are out.
ok --from 1e-1 --to 0.3 --no-defs "$S"
expect_out <<'T'
-7 -1 0.1 0 0 13 0 hello, world!
-3 -21 0.10 1 0 3 2 8 0 5
-4 -21 0.100000000000000001 1 0 0
-4 5 0.2 0 0 0
-2 -12 0.2 2 0 0
-3 5 0.25 1 0 0
T
# As doubles 0.1 == 0.100000000000000001 and this window would be empty.
ok --from 0.10 --to 0.100000000000000001 --no-defs "$S"
expect_out <<'T'
-7 -1 0.1 0 0 13 0 hello, world!
-3 -21 0.10 1 0 3 2 8 0 5
T
ok --from 0.100000000000000001 --to .2 --no-defs "$S"
expect_out <<'T'
-4 -21 0.100000000000000001 1 0 0
T
# Definitions are kept whatever their time; --to alone.
ok --to 0.1 "$S"
expect_out <<T
$DEFS
-5 5 -0.5 -1 -1 12 0 solver  step
-3 -901 0 0 0 0
-3 -901 0 1 0 0
-3 -901 0 2 0 0
-2 -12 0.05 32767 0 0
-3 5 0.09 0 0 0
T
ok --from 4e-1 "$S"
expect_out <<T
$DEFS
-4 5 0.4 1 0 0
0 5 0.4 1 0 1 7 3 2.5
-5 -52 0.45 0 0 9 0 recv wait
-3 7 0.5 2 0 0
-3 7 0.6 2 0 0
-4 7 0.7 2 0 0
-4 7 0.8 2 0 0
-4 -901 1 0 0 0
-4 -901 1 1 0 0
-4 -901 1 2 0 0
-102 -1 1 0 0 2 "%d%d" -52 1 5 1
T

# --- patterns (PCRE2) on the text of labels and messages, blanks included
ok -g 'r {2}s' "$S"
expect_out <<T
$DEFS
-5 5 -0.5 -1 -1 12 0 solver  step
T
ok -g 'r s' --no-defs "$S"
expect_out </dev/null
ok --grep='^recv wait$' --no-defs "$S"
expect_out <<'T'
-5 -52 0.45 0 0 9 0 recv wait
T
ok -g WORLD --no-defs "$S"
expect_out </dev/null
ok -g WORLD -i --no-defs "$S"
expect_out <<'T'
-7 -1 0.1 0 0 13 0 hello, world!
T
ok -g hello -g wait --no-defs "$S"
expect_out <<'T'
-7 -1 0.1 0 0 13 0 hello, world!
-5 -52 0.45 0 0 9 0 recv wait
T
# --grep-data: the data text after the descriptor of every record.
ok -g '^8 ' --grep-data --no-defs "$S"
expect_out <<'T'
-3 -21 0.10 1 0 3 2 8 0 5
-4 -52 0.35 0 0 3 2 8 1 5
T
ok -g '^8 ' --no-defs "$S"
expect_out </dev/null

# --- -v: everything not selected (definitions still kept)
ok -v -p 0,host "$S"
expect_out <<T
$DEFS
-5 5 -0.5 -1 -1 12 0 solver  step
-3 -901 0 1 0 0
-3 -901 0 2 0 0
-3 -21 0.10 1 0 3 2 8 0 5
-4 -21 0.100000000000000001 1 0 0
-2 -12 0.2 2 0 0
-3 5 0.25 1 0 0
-4 5 0.4 1 0 0
0 5 0.4 1 0 1 7 3 2.5
-3 7 0.5 2 0 0
-3 7 0.6 2 0 0
-4 7 0.7 2 0 0
-4 7 0.8 2 0 0
-4 -901 1 1 0 0
-4 -901 1 2 0 0
T
ok --invert -t entry,exit,mark --no-defs "$S"
expect_out <<'T'
-301 -1 -0.5 -1 -1 11 0 filter test
-6 -1 -0.5 -1 -1 1 "%d%s" 7 "%d %lf"
-201 -1 -0.5 -1 -1 3 "%d" -5 1 2
-203 -1 -0.5 -1 -1 3 "%d" -2000 -21 5
-5 5 -0.5 -1 -1 12 0 solver  step
-7 -1 0.1 0 0 13 0 hello, world!
0 5 0.4 1 0 1 7 3 2.5
-5 -52 0.45 0 0 9 0 recv wait
-102 -1 1 0 0 2 "%d%d" -52 1 5 1
T

# --- --pairs: an entry/exit pair is kept whole
# Window [0.2, 0.3) selects R14 (exit of R10), R15, R16 (entry of R19).
ok --from 0.2 --to 0.3 --no-defs "$S"
expect_out <<'T'
-4 5 0.2 0 0 0
-2 -12 0.2 2 0 0
-3 5 0.25 1 0 0
T
cat >"$TMP/pairs1" <<'T'
-3 5 0.09 0 0 0
-4 5 0.2 0 0 0
-2 -12 0.2 2 0 0
-3 5 0.25 1 0 0
-4 5 0.4 1 0 0
T
ok --pairs --from 0.2 --to 0.3 --no-defs "$S"
expect_out <"$TMP/pairs1"
# The same from a pipe (copied to a temporary file) and from a redirection.
run sh -c "cat \"$S\" | \"$PT\" filter --pairs --from 0.2 --to 0.3 --no-defs"
expect_rc 0
expect_out <"$TMP/pairs1"
run sh -c "\"$PT\" filter --pairs --from 0.2 --to 0.3 --no-defs - <\"$S\""
expect_rc 0
expect_out <"$TMP/pairs1"
# Only exits selected: their entries come back.
ok --pairs -e 5 -t exit --no-defs "$S"
expect_out <<'T'
-3 5 0.09 0 0 0
-4 5 0.2 0 0 0
-3 5 0.25 1 0 0
-4 5 0.4 1 0 0
T
# Nested entries of one event: the inner exit goes with the inner entry,
# the outer exit with the outer one.
ok --pairs --from 0.65 --to 0.75 --no-defs "$S"
expect_out <<'T'
-3 7 0.6 2 0 0
-4 7 0.7 2 0 0
T
ok --pairs --from 0.75 --to 0.9 --no-defs "$S"
expect_out <<'T'
-3 7 0.5 2 0 0
-4 7 0.8 2 0 0
T
# -v then pairs: the records before 0.3 (definitions too: --no-defs), and
# the exits after 0.3 of the entries among them (R19, R26-R28).
ok --pairs -v --from 0.3 --no-defs "$S"
expect_out <<T
$DEFS
-5 5 -0.5 -1 -1 12 0 solver  step
-3 -901 0 0 0 0
-3 -901 0 1 0 0
-3 -901 0 2 0 0
-2 -12 0.05 32767 0 0
-3 5 0.09 0 0 0
-7 -1 0.1 0 0 13 0 hello, world!
-3 -21 0.10 1 0 3 2 8 0 5
-4 -21 0.100000000000000001 1 0 0
-4 5 0.2 0 0 0
-2 -12 0.2 2 0 0
-3 5 0.25 1 0 0
-4 5 0.4 1 0 0
-4 -901 1 0 0 0
-4 -901 1 1 0 0
-4 -901 1 2 0 0
T
# Exits of an entry below the top, and of no open entry: the first keeps
# its entry, the others stand alone, whether the stack is scanned or its
# entries counted by event type.
printf '%s\n' '-3 -901 0 0 0 0' '-3 5 1 0 0 0' '-3 7 2 0 0 0' '-3 5 3 0 0 0' \
  '-4 6 4 0 0 0' '-4 7 5 0 0 0' '-4 7 6 0 0 0' '-3 8 7 0 0 0' '-4 5 8 0 0 0' \
  '-4 8 9 0 0 0' '-4 5 10 0 0 0' '-4 5 11 0 0 0' '-4 -901 12 0 0 0' >"$TMP/deep.picl"
ok --pairs --from 4 --to 9 "$TMP/deep.picl"
expect_out <<'T'
-3 7 2 0 0 0
-3 5 3 0 0 0
-4 6 4 0 0 0
-4 7 5 0 0 0
-4 7 6 0 0 0
-3 8 7 0 0 0
-4 5 8 0 0 0
-4 8 9 0 0 0
T
ok --pairs --from 11 "$TMP/deep.picl"
expect_out <<'T'
-3 -901 0 0 0 0
-4 5 11 0 0 0
-4 -901 12 0 0 0
T
# 300000 open entries, then 300000 exits of another event: each exit is
# known to match nothing without a scan of the stack (that took 25 s for
# 200000); the entries are kept with the exit of the last one.
awk 'BEGIN { n = 300000
  for (i = 1; i <= n; i++) printf "-3 5 %d 0 0 0\n", i
  for (i = 1; i <= n; i++) printf "-4 6 %d 0 0 0\n", n + i
  printf "-4 5 %d 0 0 0\n", 2 * n + 1 }' >"$TMP/unmatched.picl"
run_within 30 "$PT" filter -q --pairs -p 0 -o "$TMP/kept.picl" "$TMP/unmatched.picl"
expect_rc 0
cmp "$TMP/unmatched.picl" "$TMP/kept.picl" || fail "--pairs -p 0 did not keep every record"
run_within 30 "$PT" filter -q --pairs --from 600001 "$TMP/unmatched.picl"
expect_rc 0
expect_out <<'T'
-3 5 300000 0 0 0
-4 5 600001 0 0 0
T
rm -f "$TMP/unmatched.picl" "$TMP/kept.picl"

# N entries of 5, N of 6, N exits of 5 (each of the innermost 5, under all
# the 6s), N of 6: a scan and a memmove per exit took 21 s for N = 150000.
# The first exit of 5 keeps the last entry of 5; the last exit of 6 the
# first entry of 6.
awk 'BEGIN { n = 150000
  for (i = 1; i <= n; i++) printf "-3 5 %d 0 0 0\n", i
  for (i = 1; i <= n; i++) printf "-3 6 %d 0 0 0\n", n + i
  for (i = 1; i <= n; i++) printf "-4 5 %d 0 0 0\n", 2 * n + i
  for (i = 1; i <= n; i++) printf "-4 6 %d 0 0 0\n", 3 * n + i }' >"$TMP/layers.picl"
run_within 30 "$PT" filter -q --pairs --from 300001 --to 300001.5 "$TMP/layers.picl"
expect_rc 0
expect_out <<'T'
-3 5 150000 0 0 0
-4 5 300001 0 0 0
T
run_within 30 "$PT" filter -q --pairs --from 600000 "$TMP/layers.picl"
expect_rc 0
expect_out <<'T'
-3 6 150001 0 0 0
-4 6 600000 0 0 0
T
rm -f "$TMP/layers.picl"

# Past two pages of the bitmap (2^19 records each) pass 1 moves the older
# ones to a temporary file, and an entry there whose exit is kept much
# later is marked from a list: 600,000 pairs of event 6 (entry at i, exit
# at i + 0.5) inside one entry/exit of event 5 and the tracing event.
awk 'BEGIN { n = 600000
  printf "-3 -901 0 0 0 0\n-3 5 0.5 0 0 0\n"
  for (i = 1; i <= n; i++) printf "-3 6 %d 0 0 0\n-4 6 %d.5 0 0 0\n", i, i
  printf "-4 5 %d 0 0 0\n-4 -901 %d 0 0 0\n", n + 1, n + 2 }' >"$TMP/long.picl"
run_within 60 "$PT" filter -q --pairs -e 5 -t exit --no-defs "$TMP/long.picl"
expect_rc 0
expect_out <<'T'
-3 5 0.5 0 0 0
-4 5 600001 0 0 0
T
# a window across the third page's start (record 1,048,576: pair 524,288):
# the pairs with a half in it, worked out here with awk
run_within 60 "$PT" filter -q --pairs --from 524286.5 --to 524288.25 --no-defs "$TMP/long.picl"
expect_rc 0
awk '$2 == 6 && $3 >= 524286 && $3 <= 524288.5' "$TMP/long.picl" >"$TMP/window"
[ "$(wc -l <"$TMP/window")" -eq 6 ] || fail "the window's pairs were not worked out"
expect_out <"$TMP/window"
rm -f "$TMP/long.picl" "$TMP/window"

# Pairs across two inputs (one trace cut in two), read as one stream.
head -n 20 "$S" >"$TMP/part1.picl"
tail -n +21 "$S" >"$TMP/part2.picl"
ok --pairs --from 0.2 --to 0.3 --no-defs "$TMP/part1.picl" "$TMP/part2.picl"
expect_out <"$TMP/pairs1"

# --- zstd out and in, stdin and stdout
ok -z -o "$TMP/p1.zst" -p 1 "$S"
[ "$(head -c 4 "$TMP/p1.zst" | od -An -tx1 | tr -d ' ')" = 28b52ffd ] || fail "not zstd"
zstd -q -t "$TMP/p1.zst" || fail "zstd cannot read our stream"
run sh -c "\"$PT\" filter -t exit - <\"$TMP/p1.zst\""
expect_rc 0
expect_out <<'T'
-301 -1 -0.5 -1 -1 11 0 filter test
-6 -1 -0.5 -1 -1 1 "%d%s" 7 "%d %lf"
-201 -1 -0.5 -1 -1 3 "%d" -5 1 2
-203 -1 -0.5 -1 -1 3 "%d" -2000 -21 5
-4 -21 0.100000000000000001 1 0 0
-4 5 0.4 1 0 0
-4 -901 1 1 0 0
T
zstd -q -c "$S" >"$TMP/s.zst"
run sh -c "cat \"$TMP/s.zst\" | \"$PT\" filter --level=19 -z -e sends --no-defs | zstd -dc"
expect_rc 0
expect_out <<'T'
-3 -21 0.10 1 0 3 2 8 0 5
-4 -21 0.100000000000000001 1 0 0
T
ok -o "$TMP/out.picl" --pairs -e 5 -t exit --no-defs "$TMP/s.zst"
expect_out </dev/null
cmp "$TMP/out.picl" - <<'T' || fail "--pairs on a zstd file"
-3 5 0.09 0 0 0
-4 5 0.2 0 0 0
-3 5 0.25 1 0 0
-4 5 0.4 1 0 0
T

# --- the Table 20 example is canonical: no criteria give it back
# (the spec's own file is tested in 0300-filter-spec.sh)

# --- bad input: file:line:column, exit 2, no output left, input untouched
printf '%s\n' '-3 -901 0 0 0 0' '-3 5 0.1 0 x7 0' >"$TMP/bad.picl"
run "$PT" filter -o "$TMP/never.picl" -p 0 "$TMP/bad.picl"
expect_rc 2
expect_err <<T
picltrace filter: $TMP/bad.picl:2:12: expected an integer process id, found "x7"
T
[ ! -e "$TMP/never.picl" ] || fail "partial output left behind"
ls -a "$TMP" | grep -q 'never\.picl\.tmp' && fail "temporary file left behind"
run "$PT" filter --pairs -o "$TMP/never.picl" "$TMP/bad.picl"
expect_rc 2
expect_err <<T
picltrace filter: $TMP/bad.picl:2:12: expected an integer process id, found "x7"
T
[ ! -e "$TMP/never.picl" ] || fail "partial output left behind (--pairs)"
# A label whose data are shorter than declared, found when a pattern must
# read it (records only moved are not decoded: that is validate's job).
printf '%s\n' '-3 -901 0 0 0 0' '-5 5 0 -1 -1 20 0 short' >"$TMP/badlabel.picl"
run "$PT" filter -g short "$TMP/badlabel.picl"
expect_rc 2
grep -q "^picltrace filter: $TMP/badlabel.picl:2:" "$TMP/err" || fail "bad label not located"
# An existing output is replaced only by a complete result.
echo keep >"$TMP/old.picl"
run "$PT" filter -o "$TMP/old.picl" "$TMP/bad.picl"
expect_rc 2
[ "$(cat "$TMP/old.picl")" = keep ] || fail "failed run clobbered the old output"
# The input is never the output (but with --in-place).
cp "$S" "$TMP/same.picl"
run "$PT" filter -p 1 -o "$TMP/same.picl" "$TMP/same.picl"
expect_rc 2
expect_err <<T
picltrace filter: $TMP/same.picl: the output is also an input; use --in-place to replace it
T
cmp "$TMP/same.picl" "$S" || fail "input was touched"
# ... nor standard output appended to it: filter would read what it
# writes, without end.
last='filter f >>f'
set +e
"$PT" filter "$TMP/same.picl" >>"$TMP/same.picl" 2>"$TMP/err"
rc=$?
set -e
expect_rc 2
expect_err <<T
picltrace filter: <stdout>: the output is also an input; use --in-place to replace it
T
cmp "$TMP/same.picl" "$S" || fail "input was appended to"
run "$PT" filter "$TMP/nope.picl"
expect_rc 2
expect_err <<T
picltrace filter: $TMP/nope.picl: cannot open: No such file or directory
T
run "$PT" filter --pairs "$TMP/nope.picl"
expect_rc 2
expect_err <<T
picltrace filter: $TMP/nope.picl: cannot open: No such file or directory
T

# --- bad patterns and option values: a clear message, exit 2
run "$PT" filter -g 'a(' "$S"
expect_rc 2
expect_err <<'T'
picltrace filter: --grep: bad pattern 'a(' at offset 2: missing closing parenthesis
T
# PCRE2 puts the offset of a bad range at its upper end ("a", offset 3);
# of several patterns, the message names the bad one.
run "$PT" filter -g ok -g '[z-a]' "$S"
expect_rc 2
expect_err <<'T'
picltrace filter: --grep: bad pattern '[z-a]' at offset 3: range out of order in character class
T
run "$PT" filter -e 5..x "$S"
expect_rc 2
expect_err <<'T'
picltrace filter: --event: bad range '5..x': expected a number after ".."
T
run "$PT" filter -p ..3 "$S"
expect_rc 2
expect_err <<'T'
picltrace filter: --processor: bad range '..3': expected a number before ".."
T
run "$PT" filter -P 3..1 "$S"
expect_rc 2
expect_err <<'T'
picltrace filter: --process: bad range '3..1': 3 is greater than 1
T
run "$PT" filter -e 1,,2 "$S"
expect_rc 2
expect_err <<'T'
picltrace filter: --event: empty item in the list
T
run "$PT" filter -e 99999999999 "$S"
expect_rc 2
expect_err <<'T'
picltrace filter: --event: '99999999999' is out of range (32 bits)
T
run "$PT" filter -t entries "$S"
expect_rc 2
expect_err <<'T'
picltrace filter: --type: unknown name 'entries' (known: mark, entry, exit, label, descriptor, message, statistics, subsets, headers, user)
T
run "$PT" filter -P x "$S"
expect_rc 2
expect_err <<'T'
picltrace filter: --process: 'x' is not a number or a range (A..B)
T
run "$PT" filter --from 0.1x "$S"
expect_rc 2
expect_err <<'T'
picltrace filter: --from takes an exact decimal time such as 0.25, -1.5 or 1e-3, not '0.1x'
T
run "$PT" filter --to 0.1234567890123456789 "$S"
expect_rc 2
expect_err <<'T'
picltrace filter: --to: '0.1234567890123456789' is out of range (at most 18 significant digits and 18 decimals, and less than 10^18 in all)
T
run "$PT" filter --to 1e18 "$S"
expect_rc 2
expect_err <<'T'
picltrace filter: --to: '1e18' is out of range (at most 18 significant digits and 18 decimals, and less than 10^18 in all)
T
run "$PT" filter --from 0.3 --to 3e-1 "$S"
expect_rc 2
expect_err <<'T'
picltrace filter: --from 0.3 is not before --to 3e-1: the window is empty
T
run "$PT" filter --grep-data "$S"
expect_rc 2
expect_err <<'T'
picltrace filter: --grep-data needs a pattern (-g)
T
run "$PT" filter --level=0 "$S"
expect_rc 2
grep -q -- "--level takes a number from 1 to 19" "$TMP/err" || fail "bad level accepted"
run "$PT" filter --bogus
expect_rc 2
grep -q '^usage: picltrace filter' "$TMP/err" || fail "no usage on a bad option"
[ ! -s "$TMP/out" ] || fail "output on a bad option"

# --- help
run "$PT" filter --help
expect_rc 0
grep -q '^usage: picltrace filter' "$TMP/out" || fail "no usage from --help"
run "$PT" help filter
expect_rc 0
grep -q -- '--pairs' "$TMP/out" || fail "help filter shows no options"
run "$PT" --help
grep -q '^   filter ' "$TMP/out" || fail "filter missing from the command list"
# --- the -307 header records (the processors of the trace, which validate
# and stat take as those a broadcast must reach) keep only the processors
# selected: else the processors filtered out would miss every broadcast.
cat >"$TMP/bc.picl" <<'T'
-301 -1 0 -1 -1 2 0 bc
-307 -1 0 -1 -1 4 2 0 1 2 3
-3 -901 0.1 0 0 0
-3 -901 0.1 1 0 0
-3 -901 0.1 2 0 0
-3 -901 0.1 3 0 0
-3 -52 0.15 1 0 1 2 4
-3 -52 0.15 2 0 1 2 4
-3 -52 0.15 3 0 1 2 4
-3 -21 0.2 0 0 3 2 8 4 -1
-4 -21 0.3 0 0 0
-4 -52 0.4 1 0 3 2 8 4 0
-4 -52 0.4 2 0 3 2 8 4 0
-4 -52 0.4 3 0 3 2 8 4 0
-4 -901 0.5 0 0 0
-4 -901 0.5 1 0 0
-4 -901 0.5 2 0 0
-4 -901 0.5 3 0 0
T
hdr() { grep -- '^-307' "$TMP/out" | tr '\n' '|'; }
ok -p 0..1 "$TMP/bc.picl"
[ "$(hdr)" = "-307 -1 0 -1 -1 2 2 0 1|" ] || fail "-p 0..1: $(hdr)"
cp "$TMP/out" "$TMP/bc01.picl"
run "$PT" validate "$TMP/bc01.picl"
expect_rc 0
ok -p 2,9 --pairs "$TMP/bc.picl"
[ "$(hdr)" = "-307 -1 0 -1 -1 1 2 2|" ] || fail "-p 2,9 --pairs: $(hdr)"
ok -p 7 "$TMP/bc.picl"
[ -z "$(hdr)" ] || fail "-p 7 kept a -307 record: $(hdr)"
ok -v -p 1..2 "$TMP/bc.picl"
[ "$(hdr)" = "-307 -1 0 -1 -1 2 2 0 3|" ] || fail "-v -p 1..2: $(hdr)"
# -v with more than -p: every processor may keep records; all stay listed
ok -v -p 1..2 -t -4 "$TMP/bc.picl"
[ "$(hdr)" = "-307 -1 0 -1 -1 4 2 0 1 2 3|" ] || fail "-v -p 1..2 -t -4: $(hdr)"
ok -e -21 "$TMP/bc.picl"
[ "$(hdr)" = "-307 -1 0 -1 -1 4 2 0 1 2 3|" ] || fail "-e -21: $(hdr)"
# Processor subsets -p names that the header defines after its -307
# records (merge writes -307 first): each -307 is held back until the
# header is over, then written in its place, its ids selected.
cat >"$TMP/hs.picl" <<'T'
-307 -1 -1.2 -1 -1 2 2 0 1
-201 -1 -1.1 -1 -1 2 2 -5 1
-307 -1 -1.0 -1 -1 2 2 2 3
-201 -1 -0.9 -1 -1 2 2 -6 3
-3 -901 0 0 0 0
-3 -901 0 1 0 0
-3 -901 0 2 0 0
-3 -901 0 3 0 0
T
ok -p -5,-6 "$TMP/hs.picl"
expect_out <<'T'
-307 -1 -1.2 -1 -1 1 2 1
-201 -1 -1.1 -1 -1 2 2 -5 1
-307 -1 -1.0 -1 -1 1 2 3
-201 -1 -0.9 -1 -1 2 2 -6 3
-3 -901 0 1 0 0
-3 -901 0 3 0 0
T
run "$PT" filter -v -p -5,-6 - <"$TMP/hs.picl"
expect_rc 0
expect_out <<'T'
-307 -1 -1.2 -1 -1 1 2 0
-201 -1 -1.1 -1 -1 2 2 -5 1
-307 -1 -1.0 -1 -1 1 2 2
-201 -1 -0.9 -1 -1 2 2 -6 3
-3 -901 0 0 0 0
-3 -901 0 2 0 0
T
ok -p -6 --pairs -z "$TMP/hs.picl"
zstd -dcq "$TMP/out" | grep -- '^-307' | tr '\n' '|' >"$TMP/hdr"
[ "$(cat "$TMP/hdr")" = "-307 -1 -1.0 -1 -1 1 2 3|" ] || fail "-p -6 --pairs -z: $(cat "$TMP/hdr")"
# a header and nothing else
head -n 4 "$TMP/hs.picl" >"$TMP/hs-only.picl"
ok -p -5 "$TMP/hs-only.picl"
[ "$(hdr)" = "-307 -1 -1.2 -1 -1 1 2 1|" ] || fail "header only: $(hdr)"

# --pairs reads its inputs twice but holds no descriptor per input: 300
# of them under a limit of 64 descriptors, the same as without --pairs.
mkdir "$TMP/many"
i=0
while [ $i -lt 300 ]; do
  printf -- '-3 5 1.5 %d 0 0\n-4 5 2.5 %d 0 0\n' $i $i >"$TMP/many/n$i.picl"
  i=$((i + 1))
done
(ulimit -n 64 && "$PT" filter --pairs -o "$TMP/many.pairs" "$TMP"/many/n*.picl) ||
  fail "filter --pairs of 300 inputs under ulimit -n 64"
"$PT" filter -o "$TMP/many.all" "$TMP"/many/n*.picl
[ "$(wc -l <"$TMP/many.pairs")" -eq 600 ] && cmp -s "$TMP/many.pairs" "$TMP/many.all" ||
  fail "filter --pairs of 300 inputs: not every record"

# Character data that end in a carriage return (or in a blank and a
# backslash) are written with a blank after them, as cat writes them: else
# the output reads as a CRLF line (or a continuation) and the record loses
# a character. Such a line is never copied as it stands.
printf -- '-5 5 0 0 0 3 0 ab\r\r\n-5 5 0.1 0 0 4 0 a \\ \n' >"$TMP/cr.picl"
run "$PT" cat "$TMP/cr.picl"
expect_rc 0
cp "$TMP/out" "$TMP/cr.cat"
ok "$TMP/cr.picl"
cmp -s "$TMP/out" "$TMP/cr.cat" || fail "filter of data ending in CR: not as cat writes it"
cp "$TMP/out" "$TMP/cr.filtered"
run "$PT" cat "$TMP/cr.filtered"
expect_rc 0

echo "PASS: $ntest filter checks"
