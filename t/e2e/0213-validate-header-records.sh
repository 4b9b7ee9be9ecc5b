#!/bin/sh
# Header records (-301 .. -399, DESIGN.md point 8) are prepended to the
# trace (spec section 2.4; "should": a warning), their times before the
# earliest record's. validate said nothing of a header record after the
# body, nor of one later in time.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"

# Valid but unusual: definitions between the header records and before
# the body, negative times, a -7 message early in the body.
{ echo '-301 -1 -0.0000001 -1 -1 5 0 hello'
  echo '-201 -1 5 -1 -1 2 "%d" -5 0'
  echo '-6 -1 5 -1 -1 1 "%d%s" 9 "%d"'
  echo '-302 -1 -1e-7 0 -1 1 5 0.000001'
  echo '-3 -901 -0.0 0 0 0'
  echo '-7 -1 0.5 0 0 2 0 hi'
  echo '-4 -901 1.0 0 0 0'; } > t.picl
run "$PT" validate t.picl
expect_rc 0
grep -q header-records "$TMP/out" && fail "valid header records: $(cat "$TMP/out")"

# A header record after the body, at its record type, the body's first
# record related; a definition after the body is no header record.
{ echo '-301 -1 0 -1 -1 5 0 hello'
  echo '-6 -1 0 -1 -1 1 "%d%s" 9 "%d"'
  echo '-3 -901 0.6 0 0 0'
  echo '-4 -901 1.0 0 0 0'
  echo '-201 -1 5 -1 -1 2 "%d" -5 0'
  echo '-303 -1 -1 0 -1 2 0 m0'; } > t.picl
run "$PT" validate t.picl
expect_rc 0
grep -q '^t.picl:6:1: header-records: warning: header record -303 after the record at line 3, which is not a header record' "$TMP/out" ||
  fail "a header record after the body: $(cat "$TMP/out")"
[ "$(grep -c header-records "$TMP/out")" = 1 ] || fail "one finding expected: $(cat "$TMP/out")"
grep -q ' 0 errors, 1 warning$' "$TMP/out" || fail "summary: $(cat "$TMP/out")"
run "$PT" validate --format=json t.picl
grep -q '{"line":6,"column":1,"rule":"header-records","severity":"warning",.*"related":{"line":3}}' "$TMP/out" ||
  fail "json: $(cat "$TMP/out")"

# A header record later in time than the earliest other record: once, at
# the latest header record's time, the earliest record related; the same
# time is let be.
{ echo '-301 -1 0.3 -1 -1 5 0 hello'
  echo '-307 -1 0.7 -1 -1 1 2 0'
  echo '-3 -901 0.6 0 0 0'
  echo '-4 -901 1.0 0 0 0'; } > t.picl
run "$PT" validate t.picl
expect_rc 0
grep -q "^t.picl:2:9: header-records: warning: header record time 0.7 is later than the earliest record's, 0.6 at line 3" "$TMP/out" ||
  fail "a header record later than the earliest: $(cat "$TMP/out")"
[ "$(grep -c header-records "$TMP/out")" = 1 ] || fail "one finding expected: $(cat "$TMP/out")"
sed 's/0\.7/0.6/' t.picl > t2.picl
run "$PT" validate t2.picl
expect_rc 0
grep -q header-records "$TMP/out" && fail "the same time: $(cat "$TMP/out")"
rm -f t.picl t2.picl
