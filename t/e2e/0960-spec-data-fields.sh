#!/bin/sh
# The spec (2.2.1): "All fields are in ASCII character format and are
# separated by white space" - data fields too. A control string that
# begins with literal text ("x=%d,y=%lf") reads data fields separated by
# blanks, and cat writes them separated by a blank (it once wrote
# "2.5x=-1", which a reader splitting fields at white space misreads);
# the old joined form still reads.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

printf '%s\n' \
  '-2 7 1 3 -1 2 "x=%d,y=%lf" x=5,y=2.5 x=-1,y=1e-3' \
  '-2 7 2 3 -1 3 "(%d)" (1)	(2)  (3)' \
  '-2 7 3 3 -1 2 "(%d)" ( 1)( 2)' >"$TMP/in.picl"
run "$PT" cat "$TMP/in.picl"
expect_rc 0
expect_out <<'T'
-2 7 1 3 -1 2 "x=%d,y=%lf" x= 5,y= 2.5 x= -1,y= 1e-3
-2 7 2 3 -1 3 "(%d)" ( 1) ( 2) ( 3)
-2 7 3 3 -1 2 "(%d)" ( 1) ( 2)
T

# The canonical form comes back byte for byte.
cp "$TMP/out" "$TMP/canon.picl"
run "$PT" cat "$TMP/canon.picl"
expect_rc 0
cmp "$TMP/out" "$TMP/canon.picl" || fail "canonical data fields not reproduced"

# A field that does not begin with its literal text is still an error,
# at the column of the field.
printf '%s\n' '-2 7 1 3 -1 2 "(%d)" (1) x(2)' >"$TMP/bad.picl"
run "$PT" cat "$TMP/bad.picl"
expect_rc 2
expect_err <<T
picltrace cat: $TMP/bad.picl:1:26: expected "(", found "x"
T
[ ! -s "$TMP/out" ] || fail "partial output for a bad record"
