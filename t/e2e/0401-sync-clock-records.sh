#!/bin/sh
# picltrace sync: clock records as a damaged or hand-written trace has them.
# A clocksync0 whose exit record is missing is still that process's call
# (its later calls are not matched with the others' earlier ones), and
# definitions scoped to a processor (-6, -201 with a processor field) are
# not records of that processor: they neither set t0 nor add a processor.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

# Processor 1's clock is 10.005 s ahead. Its first clocksync0 lost its
# exit: its second call (15.05) must meet processor 0's second (5.0), not
# its first (1.0), which would make the offset -14.005.
cat >"$TMP/missing-exit.picl" <<'T'
-3 -401 1.0 0 0 0
-4 -401 1.1 0 0 0
-3 -401 5.0 0 0 0
-4 -401 5.1 0 0 0
-3 -401 11.05 1 0 0
-3 -401 15.05 1 0 0
-4 -401 15.06 1 0 0
T
run "$PT" sync --dry-run --report "$TMP/missing-exit.picl"
expect_rc 0
grep -q '^        1    -10.005000000 ' "$TMP/out" || { cat "$TMP/out"; fail "$last: wrong offset"; }
# 2 from the second call, 1 from the first (the exit of processor 0 after
# the entry of processor 1; processor 1 has no exit to follow anything)
grep -q '^messages: 0 matched, 0 within one processor; 3 synchronisation constraints$' "$TMP/out" ||
  { cat "$TMP/out"; fail "$last: wrong constraint count"; }

# The same when the trace ends in the call without exit: it still counts.
cat >"$TMP/ends-open.picl" <<'T'
-3 -401 1.0 0 0 0
-4 -401 1.1 0 0 0
-3 -401 11.05 1 0 0
T
run "$PT" sync --dry-run --report "$TMP/ends-open.picl"
expect_rc 0
grep -q '; 1 synchronisation constraints$' "$TMP/out" || { cat "$TMP/out"; fail "$last"; }

# A mark (-2 -401) is an entry and an exit at once; an exit without entry
# is ignored and moves no call.
cat >"$TMP/stray-exit.picl" <<'T'
-3 -401 1.0 0 0 0
-4 -401 1.1 0 0 0
-4 -401 1.2 0 0 0
-2 -401 5.05 0 0 0
-3 -401 11.05 1 0 0
-4 -401 11.06 1 0 0
-3 -401 15.05 1 0 0
-4 -401 15.06 1 0 0
T
run "$PT" sync --dry-run --report "$TMP/stray-exit.picl"
expect_rc 0
grep -q '^        1    -10.00' "$TMP/out" || { cat "$TMP/out"; fail "$last: wrong offset"; }
grep -q '; 4 synchronisation constraints$' "$TMP/out" || { cat "$TMP/out"; fail "$last"; }

# Definitions scoped to processors 3 and 5, long before the first record:
# t0 is the earliest record's time (0.5), and processors 3 and 5, which
# stamped nothing, are not in the report.
cat >"$TMP/scoped-defs.picl" <<'T'
-6 -1 -100 3 -1 1 "%d%s" 7 "%d"
-201 -1 -100 5 -1 2 "%d" -5 1
-3 -21 0.5 0 0 3 2 8 0 1
-4 -21 0.6 0 0 0
-3 -52 0.5 1 0 1 2 0
-4 -52 0.7 1 0 3 2 8 0 0
T
run "$PT" sync --dry-run --report "$TMP/scoped-defs.picl"
expect_rc 0
expect_out <<'T'
reference processor 0, t0 0.5, minimum latency 0 s, drift at most 100 ppm
processor       offset (s)  drift (ppm)         +- (s)  messages  syncs    via  how
        0      0.000000000        0.000    0.000000000         1      0      -  reference
        1      0.000000000        0.000              -         1      0      0  one-way
messages: 1 matched, 0 within one processor; 0 synchronisation constraints
tachyons: 0 before, 0 after
T
# the definitions are written back as they were
run "$PT" sync -q "$TMP/scoped-defs.picl"
expect_rc 0
cmp "$TMP/out" "$TMP/scoped-defs.picl" || fail "$last: trace changed"
