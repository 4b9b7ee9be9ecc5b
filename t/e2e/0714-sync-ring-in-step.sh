#!/bin/sh
# picltrace sync on a ring whose clocks are already in step. In a ring each
# pair exchanges messages one way only and is two-way only through
# clocksync0's windows, which are wide: the tree started the processors far
# apart (about +-650 us on a 4-process run), the processor between two such
# chains fitted no line against them, was left out of the refits as if its
# clock drifted, and the sweeps stalled: latencies of 1 us came out 0 (and
# one of 4 us), and the report said "inconsistent" of a processor whose
# clock was fine. Now the refits bring the chains together: a ring with 1 us
# latencies and clocks in step comes out as it went in, byte for byte, and
# a real 4-process ring run (one machine: one clock) reports no processor
# inconsistent.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

cd "$TMP"
cat >ring3.picl <<'T'
-3 -401 -0.000900 0 0 0
-3 -401 -0.000400 1 0 0
-3 -401 0.000000 2 0 0
-4 -401 0.000005 0 0 0
-4 -401 0.000006 1 0 0
-4 -401 0.000007 2 0 0
-3 -21 0.000100 0 0 3 2 8 1 1
-4 -52 0.000101 1 0 3 2 8 1 0
-3 -21 0.000110 1 0 3 2 8 1 2
-4 -52 0.000111 2 0 3 2 8 1 1
-3 -21 0.000120 2 0 3 2 8 1 0
-4 -52 0.000121 0 0 3 2 8 1 2
T
run "$PT" sync -q ring3.picl
expect_rc 0
cmp -s "$TMP/out" ring3.picl || fail "sync moved a ring in step: $(diff ring3.picl "$TMP/out")"
run "$PT" sync -n --report ring3.picl
expect_rc 0
grep -q inconsistent "$TMP/out" && fail "report: $(cat "$TMP/out")"

# A real run: examples/ring on 4 local processes, times from the one
# CLOCK_MONOTONIC clocksync0 measures.
PICL_TRACE_CLOCK=monotonic; export PICL_TRACE_CLOCK
piclrun_setup
run timeout -k 5 60 "$RUN" -n 4 -o ring.picl "$EX/ring"
expect_rc 0
run "$PT" sync -n --report ring.picl
expect_rc 0
grep -q '^tachyons: 0 before, 0 after$' "$TMP/out" || fail "ring run: $(cat "$TMP/out")"
grep -q inconsistent "$TMP/out" && fail "ring run: a processor inconsistent: $(cat "$TMP/out")"
echo "PASS: $ntest checks of sync on rings in step"
