#!/bin/sh
# picltrace sort --check with several inputs checks them as one stream (as
# sort reads them); when the record out of order comes after one of an
# earlier input, the message names that input with its line, not a line
# that would be read as one of the input where the disorder is; the column
# is the time field's.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

printf -- '-3 -21 0.1 0 0 3 2 8 1 1\n-4 -21 0.2 0 0 0\n-3 -52 0.3 1 0 1 2 0\n' >"$TMP/a.picl"
printf -- '-3 -21 0.25 0 0 3 2 8 1 1\n-4 -21 0.4 0 0 0\n' >"$TMP/b.picl"
printf -- '-301 -1 -1 -1 -1 0\n' >"$TMP/h.picl"
cd "$TMP"

# each one alone is sorted
run "$PT" sort --check a.picl
expect_rc 0
run "$PT" sort --check b.picl
expect_rc 0
# together: 0.25 comes after a.picl's 0.3 (line 3)
run "$PT" sort --check a.picl b.picl
expect_rc 1
expect_err <<'T'
picltrace sort: b.picl:1:8: not sorted: time 0.25 comes after 0.3 (a.picl line 3)
T
run "$PT" sort --check a.picl - <b.picl
expect_rc 1
expect_err <<'T'
picltrace sort: <stdin>:1:8: not sorted: time 0.25 comes after 0.3 (a.picl line 3)
T
run "$PT" sort --check - b.picl <a.picl
expect_rc 1
expect_err <<'T'
picltrace sort: b.picl:1:8: not sorted: time 0.25 comes after 0.3 (<stdin> line 3)
T
# a header record after the first event record, in another input
run "$PT" sort --check a.picl h.picl
expect_rc 1
expect_err <<'T'
picltrace sort: h.picl:1:1: not sorted: header record -301 after the first event record (a.picl line 3)
T
# within one input the line alone, as before
cat a.picl b.picl >ab.picl
run "$PT" sort --check ab.picl
expect_rc 1
expect_err <<'T'
picltrace sort: ab.picl:4:8: not sorted: time 0.25 comes after 0.3 (line 3)
T
# the column is the time's, also in a record continued over lines (and
# for merge, which checks its inputs as it goes)
printf -- '-3 -21 0.5 0 0 0\n  -4   -21 \\\n  0.25 0 0 0\n' >cont.picl
run "$PT" sort --check cont.picl
expect_rc 1
expect_err <<'T'
picltrace sort: cont.picl:3:3: not sorted: time 0.25 comes after 0.5 (line 1)
T
run "$PT" merge cont.picl
expect_rc 2
expect_err <<'T'
picltrace merge: cont.picl:3:3: not sorted: time 0.25 comes after 0.5 (line 1); use --unsorted to sort the inputs first
T
cd /
echo "PASS: $ntest sort --check checks"
