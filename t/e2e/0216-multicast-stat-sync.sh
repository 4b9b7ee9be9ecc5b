#!/bin/sh
# A send to a processor subset (a multicast, Table 2) is one message to each
# member but the sender, for stat and sync as for validate (0212): the
# library's matcher expands it (picl_matcher_set_defs). stat and sync used
# to leave such a send unmatched, so stat counted every member's receive as
# matching no send, and sync had no constraint from it: a receiver's clock
# running behind left the multicast's receives before their send.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"

# stat: processor 0 multicasts 8 bytes to subset -5 = {1, 2} (listed with
# the sender and a repeat); $1: processor 2's receive exit (or nothing).
trace() {
  cat <<EOF2
-201 -1 0 -1 -1 5 "%d" -5 1 0 2 1
-3 -901 0.0 0 0 0
-3 -901 0.0 1 0 0
-3 -901 0.0 2 0 0
-3 -21 0.1 0 0 3 2 8 4 -5
-4 -21 0.2 0 0 0
-3 -52 0.1 1 0 1 2 4
-4 -52 0.3 1 0 3 2 8 4 0
-3 -52 0.1 2 0 1 2 4
$1
-4 -901 1.0 0 0 0
-4 -901 1.0 1 0 0
-4 -901 1.0 2 0 0
EOF2
}
trace '-4 -52 0.4 2 0 3 2 8 4 0' > t.picl
validate_ok t.picl
run "$PT" stat t.picl
expect_rc 0
grep -q '^== messages: 2 matched, 16 bytes; unmatched: 0 sends, 0 receives$' "$TMP/out" ||
  fail "stat, a multicast to two: $(grep messages "$TMP/out")"
grep -q '^  latency (s): min 0.2, mean [0-9.]*, max 0.3$' "$TMP/out" ||
  fail "stat, the multicast's latencies: $(grep latency "$TMP/out")"
# processor 2 never receives it: one send unmatched, to processor 2
trace '-4 -52 0.4 2 0 3 2 8 9 0' > t.picl
run "$PT" stat t.picl
expect_rc 0
grep -q '^== messages: 1 matched, 8 bytes; unmatched: 1 send, 1 receive$' "$TMP/out" ||
  fail "stat, a member missing the multicast: $(grep messages "$TMP/out")"

# sync: every second, processor 0 multicasts to {1, 2}, whose clocks run
# 0.5 s behind, and each answers 0.5 s later. The multicast's receives
# come before their send (40 tachyons); its messages are the constraints
# that move processors 1 and 2 by 0.5 s.
{ echo '-201 -1 0 -1 -1 3 "%d" -5 1 2'
  awk 'BEGIN {
    for (k = 1; k <= 20; k++) {
      printf "0 %d -2 -21 %d 0 0 3 2 8 4 -5\n", k, k
      for (j = 1; j <= 2; j++) {
        r = k + 0.001 - 0.5; s = k
        printf "%d %.3f -4 -52 %.3f %d 0 3 2 8 4 0\n", j, r, r, j
        printf "%d %.3f -3 -21 %.3f %d 0 3 2 8 7 0\n", j, s, s, j
        printf "0 %.3f -4 -52 %.3f 0 0 3 2 8 7 %d\n", k + 0.501, k + 0.501, j
      }
    }
  }' | sort -s -k1,1n -k2,2g | cut -d' ' -f3-; } > m.picl
run "$PT" sync --report -o s.picl m.picl
expect_rc 0
grep -q '^messages: 80 matched, 0 within one processor; 0 synchronisation constraints$' "$TMP/out" ||
  fail "sync, the multicasts matched: $(cat "$TMP/out")"
grep -q '^tachyons: 40 before, 0 after$' "$TMP/out" || fail "sync, tachyons: $(cat "$TMP/out")"
for p in 1 2; do
  grep -Eq "^ +$p +0\\.500000000 +0\\.000 " "$TMP/out" ||
    fail "sync, processor $p's offset: $(cat "$TMP/out")"
done
run "$PT" validate s.picl
grep -q tachyon "$TMP/out" && fail "validate finds tachyons after sync: $(grep tachyon "$TMP/out")"
rm -f t.picl m.picl s.picl
echo "PASS: $ntest multicast stat/sync checks"
