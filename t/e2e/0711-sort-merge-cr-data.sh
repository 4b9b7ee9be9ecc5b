#!/bin/sh
# picltrace sort and merge keep a record whose character data end with a
# carriage return: on a CRLF line ("abc\r\r\n") the reader drops the line's
# '\r', and the record's line then ends with the data's own '\r'. Written
# back as it is with a newline, that '\r' read as the CRLF's and the record
# lost a character ("declares 4 characters but has only 3"); the writer
# pads such data with a blank, and sort and merge must too. Every way of
# sorting (the mapped file, in one part and in two, standard input,
# spilled runs) and merging (sorted inputs, --unsorted, standard input)
# must give records that read back and mean what they did.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

cd "$TMP"
# records_of F...: the records of F as picltrace cat writes them, in one
# order (what they are, whatever their place)
records_of() {
  "$PT" cat "$@" >rec.tmp || fail "picltrace cat $*: the records do not read back"
  LC_ALL=C sort rec.tmp
  rm -f rec.tmp
}

printf -- '-301 -1 0 -1 -1 6 0 hello\r\r\n' >small.picl
printf -- '-7 -911 0.9 6 0 4 0 abc\r\r\n' >>small.picl
printf -- '-7 -911 0.5 6 0 3 0 def\n' >>small.picl
printf -- '-7 -911 0.7 2 0 4 0 ghi\r\r\n' >>small.picl
run "$PT" cat small.picl
expect_rc 0
records_of small.picl >want
for how in "" "-m 1M"; do
  # shellcheck disable=SC2086
  run "$PT" sort $how -o sorted.picl small.picl
  expect_rc 0
  records_of sorted.picl | cmp -s - want || fail "sort $how: records changed"
  run "$PT" sort --check sorted.picl
  expect_rc 0
  run sh -c "\"$PT\" sort $how <small.picl >sorted.picl"
  expect_rc 0
  records_of sorted.picl | cmp -s - want || fail "sort $how of standard input: records changed"
done

# A generated trace (over 8 MB: the mapped sort reads it in two parts),
# all its -7 records with data ending in '\r' on CRLF lines.
"$GEN" --seed 11 --procs 8 --size 10M --unsorted -o gen.picl
awk 'match($0, /^-7 -911 [^ ]+ [^ ]+ [^ ]+ [0-9]+ /) {
  printf "-7 -911 %s %s %s %d %s\r\r\n", $3, $4, $5, $6 + 1, substr($0, RLENGTH + 1); next }
{ print }' gen.picl >big.picl
rm -f gen.picl
[ "$(grep -c "$(printf '\r')" big.picl)" -gt 50 ] || fail "too few CRLF records made"
records_of big.picl >want
run "$PT" sort -q -o sorted.picl big.picl
expect_rc 0
records_of sorted.picl | cmp -s - want || fail "sort of the large trace: records changed"
run "$PT" sort -q -m 1M -o sorted2.picl big.picl
expect_rc 0
cmp -s sorted.picl sorted2.picl || fail "sort -m 1M differs from the sort in memory"
run "$PT" sort --check sorted.picl
expect_rc 0
rm -f sorted2.picl

# merge: sorted inputs (one of them standard input), and --unsorted ones.
"$PT" sort -o small2.picl small.picl
printf -- '-7 -911 0.6 3 0 4 0 jkl\r\r\n' >other.picl
records_of small.picl other.picl >want
run sh -c "\"$PT\" merge --no-header small2.picl - <other.picl >merged.picl"
expect_rc 0
records_of merged.picl | cmp -s - want || fail "merge: records changed"
run "$PT" merge --no-header --unsorted -o merged.picl small.picl other.picl
expect_rc 0
records_of merged.picl | cmp -s - want || fail "merge --unsorted: records changed"
run "$PT" merge -o merged.picl small2.picl other.picl
expect_rc 0
run "$PT" cat merged.picl
expect_rc 0

echo "PASS: $ntest sort and merge checks of data ending in a carriage return"
