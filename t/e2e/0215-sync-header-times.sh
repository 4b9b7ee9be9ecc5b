#!/bin/sh
# picltrace sync keeps header records' times, but header records precede
# the earliest record (spec section 2.4, DESIGN.md point 8; merge writes
# them one unit before it). When the correction moves a record before
# them, they take the time one unit before the earliest corrected record;
# sync left them after it. Header records that did not precede the body
# in the input are not sync's to move.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"

# Processor 1's clock is 10 s ahead: its first record (10.5) is at 0.5 on
# processor 0's clock, before processor 0's first (1.0), which the merged
# header precedes (0.9).
cat > n0.picl <<'T'
-3 -901 1.0 0 0 0
-3 -21 2.0 0 0 3 2 8 1 1
-4 -21 2.1 0 0 0
-3 -52 2.6 0 0 1 2 4
-4 -52 2.7 0 0 3 2 8 4 1
-4 -901 3.0 0 0 0
T
cat > n1.picl <<'T'
-3 -901 10.5 1 0 0
-3 -52 11.9 1 0 1 2 1
-4 -52 12.2 1 0 3 2 8 1 0
-3 -21 12.5 1 0 3 2 8 4 0
-4 -21 12.6 1 0 0
-4 -901 13.0 1 0 0
T
"$PT" merge -q -o m.picl n0.picl n1.picl
awk '$1 <= -301 && $1 >= -399 { n++; if ($3 != "0.9") bad = 1 } END { exit !(n == 4 && !bad) }' m.picl ||
  fail "merge's header: $(cat m.picl)"
cp m.picl m.orig

# $1: the trace; the header records' times, one per line, must all be $2,
# and the other records' earliest time (as awk reads them) must be $3.
header_at() {
  awk -v want="$2" -v first="$3" '
    $1 <= -301 && $1 >= -399 { n++; if ($3 != want) { print "header at " $3; bad = 1 } ; next }
    !seen || $3 + 0 < min + 0 { min = $3; seen = 1 }
    END { if (min != first) { print "earliest " min; bad = 1 }; exit !(n > 0 && !bad) }' "$1" ||
    fail "$1: header records not at $2 before the earliest $3: $(cat "$1")"
}

# To a file (written at once, then again with the header moved), and to
# standard output (checked first, written once).
run "$PT" sync -q -o s.picl m.picl
expect_rc 0
header_at s.picl 0.4 0.5
run "$PT" sync -q -o - m.picl
expect_rc 0
cmp -s "$TMP/out" s.picl || fail "standard output differs from the file: $(cat "$TMP/out")"
cmp -s m.picl m.orig || fail "the input was changed"
validate_ok s.picl
# nothing else moved: the same records but the header's times
awk '$1 > -301 || $1 < -399' s.picl > body.s
"$PT" sync -q -o - m.picl | awk '$1 > -301 || $1 < -399' > body.o
cmp -s body.s body.o || fail "the body changed"

# Processor 1 kept: processor 0 moves later, the header already precedes.
run "$PT" sync -q --reference=1 -o r.picl m.picl
expect_rc 0
header_at r.picl 0.9 10.5

# A header that did not precede the body in the input keeps its times.
sed 's/^\(-30[167] -1\) 0\.9 /\1 5.0 /' m.picl > late.picl
run "$PT" sync -q -o l.picl late.picl
expect_rc 0
header_at l.picl 5.0 0.5
rm -f n0.picl n1.picl m.picl m.orig s.picl r.picl late.picl l.picl body.s body.o
