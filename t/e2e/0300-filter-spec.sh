#!/bin/sh
# picltrace filter on the spec's own example (Table 20, ../shared/spec):
# expected outputs worked out by hand from the table (its records T1..T35:
# T1-T24 the events of processor 6, T25-T35 the statistics records).
. "$PICL_SRCDIR/t/e2e/lib.sh"
need_shared
set -e

X="$SHARED/spec/table20-example.picl"

ok() {
  run "$PT" filter "$@"
  expect_rc 0
}

# The file is canonical and has no definition records: no criteria, no change.
ok "$X"
cmp "$TMP/out" "$X" || fail "Table 20 not reproduced byte for byte"

# User events (>= 0): the entry/exit records of events 0 and 1 (T11 T14
# T16 T21), the two tracedata records of user record type 0 (T15 T22), and
# the six statistics records relative to events 0 and 1.
ok --event user "$X"
expect_out <<'T'
-3 0 0.000016 6 0 2 2 0 0
-4 0 0.000539 6 0 2 2 0 0
0 0 0.000635 6 0 1 5 0.000124
-3 1 0.000711 6 0 2 2 0 0
-4 1 0.001724 6 0 2 2 0 0
0 1 0.001971 6 0 1 5 0.000410
-101 0 0.001982 6 0 1 "%d%lf" -52 0.000387
-102 0 0.001982 6 0 1 "%d%d" -52 1
-103 0 0.001982 6 0 1 "%d%d" -52 8
-101 1 0.001982 6 0 2 "%d%lf" -21 0.000046 -52 0.000825
-102 1 0.001982 6 0 2 "%d%d" -21 1 -52 1
-103 1 0.001982 6 0 2 "%d%d" -21 8 -52 8
T
cp "$TMP/out" "$TMP/user"
# The same as "neither a system event nor -1".
ok -v -e system,-1 "$X"
cmp "$TMP/out" "$TMP/user" || fail "-v -e system,-1 differs from -e user"
# Only the event records (entry, exit) and user records of user events: 6.
ok -e user -t entry,exit,user "$X"
expect_out <<'T'
-3 0 0.000016 6 0 2 2 0 0
-4 0 0.000539 6 0 2 2 0 0
0 0 0.000635 6 0 1 5 0.000124
-3 1 0.000711 6 0 2 2 0 0
-4 1 0.001724 6 0 2 2 0 0
0 1 0.001971 6 0 1 5 0.000410
T

# Tracing events (-901 .. -1000): tracenode, tracelevel, traceevents,
# tracefiles and the -901 exit.
ok -e tracing "$X"
expect_out <<'T'
-3 -901 -0.715036 6 0 0
-2 -904 -0.715024 6 0 3 2 1 1 1
-3 -902 -0.715017 6 0 1 2 2
-4 -902 -0.713847 6 0 0
-3 -903 -0.713724 6 0 0
-4 -903 -0.008091 6 0 0
-4 -901 0.001982 6 0 0
T

# Receive exits, with --pairs their entries too.
ok --pairs -e receives -t exit "$X"
expect_out <<'T'
-3 -52 0.000128 6 0 1 2 0
-4 -52 0.000516 6 0 3 2 8 0 0
-3 -52 0.000818 6 0 1 2 1
-4 -52 0.001643 6 0 3 2 8 1 5
T

# [0, 0.000539): the clocksync exit at 0.000005 up to the recv exit.
ok --from 0 --to 0.000539 "$X"
expect_out <<'T'
-4 -401 0.000005 6 0 0
-3 0 0.000016 6 0 2 2 0 0
-3 -52 0.000128 6 0 1 2 0
-4 -52 0.000516 6 0 3 2 8 0 0
T

# [0.0007, 0.0017) holds T16-T19; --pairs adds the exits of user event 1
# (T21) and of the send (T20); the -901 pair lies outside on both ends.
ok --pairs --from 7e-4 --to 0.0017 "$X"
expect_out <<'T'
-3 1 0.000711 6 0 2 2 0 0
-3 -52 0.000818 6 0 1 2 1
-4 -52 0.001643 6 0 3 2 8 1 5
-3 -21 0.001665 6 0 3 2 8 1 7
-4 -21 0.001711 6 0 0
-4 1 0.001724 6 0 2 2 0 0
T

# Statistics relative to user event 1.
ok -t statistics -e 1 "$X"
expect_out <<'T'
-101 1 0.001982 6 0 2 "%d%lf" -21 0.000046 -52 0.000825
-102 1 0.001982 6 0 2 "%d%d" -21 1 -52 1
-103 1 0.001982 6 0 2 "%d%d" -21 8 -52 8
T
# No labels or messages in Table 20; the data text (after the descriptor
# "2") is "8 1 5" in one record only.
ok -g . "$X"
expect_out </dev/null
ok -g '^8 1 5$' --grep-data "$X"
expect_out <<'T'
-4 -52 0.001643 6 0 3 2 8 1 5
T
echo "PASS: $ntest filter checks on the spec's example"
