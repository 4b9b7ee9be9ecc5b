#!/bin/sh
# A send whose destination processor is a processor subset (< -1, Table 2:
# "refers to subsets of processors") is a multicast: each member but the
# sender is to receive it. validate ignored such a send (the matcher takes
# one destination or -1) and reported every member's receive as matching
# no send; a destination subset never defined went unreported.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"

# $1: the -201 members of subset -5, $2: the send's destination,
# $3: processor 2's receive (or nothing)
trace() {
  cat <<EOF
-201 -1 0 -1 -1 $1
-3 -901 0.0 0 0 0
-3 -901 0.0 1 0 0
-3 -901 0.0 2 0 0
-3 -21 0.1 0 0 3 2 8 4 $2
-4 -21 0.2 0 0 0
-3 -52 0.1 1 0 1 2 4
-4 -52 0.3 1 0 3 2 8 4 0
-3 -52 0.1 2 0 1 2 4
$3
-4 -901 1.0 0 0 0
-4 -901 1.0 1 0 0
-4 -901 1.0 2 0 0
EOF
}

# Every member receives it (the sender, 0, and a repeated member in the
# list expect no receive of their own): valid.
trace '3 "%d" -5 1 2' -5 '-4 -52 0.3 2 0 3 2 8 4 0' > t.picl
validate_ok t.picl
trace '5 "%d" -5 1 0 2 1' -5 '-4 -52 0.3 2 0 3 2 8 4 0' > t.picl
validate_ok t.picl

# A member that never receives it: the send, at its line, names it.
trace '3 "%d" -5 1 2' -5 '-4 -52 0.3 2 0 3 2 8 9 0' > t.picl
run "$PT" validate t.picl
expect_rc 1
grep -q '^t.picl:5:1: message-match: send of 8 bytes with type 4 to processor 2 is never received$' "$TMP/out" ||
  fail "a member missing the multicast: $(cat "$TMP/out")"
grep -q 'to processor 1 is never received' "$TMP/out" &&
  fail "processor 1 received it: $(cat "$TMP/out")"
# with --partial, a warning
run "$PT" validate --partial t.picl
expect_rc 0
grep -q '^t.picl:5:1: message-match: warning: send of 8 bytes with type 4 to processor 2 is never received$' "$TMP/out" ||
  fail "--partial, a member missing the multicast: $(cat "$TMP/out")"

# A receive on a processor outside the subset matches nothing.
trace '2 "%d" -5 1' -5 '-4 -52 0.3 2 0 3 2 8 4 0' > t.picl
run "$PT" validate t.picl
expect_rc 1
grep -q '^t.picl:10:1: message-match: receive of 8 bytes with type 4 from processor 0 matches no send$' "$TMP/out" ||
  fail "a receive outside the subset: $(cat "$TMP/out")"
[ "$(grep -c message-match "$TMP/out")" = 1 ] || fail "one finding expected: $(cat "$TMP/out")"

# A destination subset that no -201 record defines, at the destination.
trace '3 "%d" -5 1 2' -6 '-4 -52 0.3 2 0 3 2 8 4 0' > t.picl
run "$PT" validate t.picl
expect_rc 1
grep -q '^t.picl:5:24: subset-undefined: processor subset -6, the destination of this send, is not defined' "$TMP/out" ||
  fail "an undefined destination subset: $(cat "$TMP/out")"

# The JSON output holds the same findings.
trace '3 "%d" -5 1 2' -5 '-4 -52 0.3 2 0 3 2 8 9 0' > t.picl
run "$PT" validate --format=json t.picl
expect_rc 1
grep -q '{"line":5,"column":1,"rule":"message-match","severity":"error","message":"send of 8 bytes with type 4 to processor 2 is never received"' "$TMP/out" ||
  fail "json: $(cat "$TMP/out")"
rm -f t.picl
