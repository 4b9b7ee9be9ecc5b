#!/bin/sh
# A file whose lines end with a carriage return alone (classic Mac OS)
# reads as one long line; the error about the text after the first CR
# says so and how to convert it, for a record without data fields and for
# one with, whatever the command (each reads with the parallel reader).
# The same lines ended by CRLF or LF read as they are.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"

printf '%s\r' '-3 -901 0.0 0 0 0' '-3 -21 0.1 0 0 3 2 8 1 1' '-4 -21 0.2 0 0 0' \
  '-4 -901 0.3 0 0 0' >cr.picl
printf '%s\r' '-3 -21 0.1 0 0 3 2 8 1 1' '-4 -21 0.2 0 0 0' >cr-data.picl

for f in cr cr-data; do
  col=$([ $f = cr ] && echo 19 || echo 26)
  for cmd in cat stat filter; do
    run "$PT" $cmd -o out.picl $f.picl
    expect_rc 2
    grep -q "^picltrace $cmd: $f.picl:1:$col: unexpected \".*\" after .* (a carriage return before it ends no line: does the file end its lines with CR alone? tr '\\\\r' '\\\\n' converts it)\$" "$TMP/err" ||
      fail "$cmd $f: $(cat "$TMP/err")"
    [ ! -e out.picl ] || fail "$cmd $f: out.picl left behind"
  done
done
run "$PT" validate cr.picl
expect_rc 1
grep -q "^cr.picl:1:19: syntax: .*CR alone" "$TMP/out" || fail "validate: $(cat "$TMP/out")"

# Converted as the message says, or ended by CRLF: the same records.
tr '\r' '\n' <cr.picl >lf.picl
sed 's/$/\r/' lf.picl >crlf.picl
run "$PT" cat lf.picl
expect_rc 0
cp "$TMP/out" lf.out
[ "$(wc -l <lf.out)" -eq 4 ] || fail "lf: $(cat lf.out)"
run "$PT" cat crlf.picl
expect_rc 0
cmp -s "$TMP/out" lf.out || fail "crlf: $(cat "$TMP/out")"
rm -f cr.picl cr-data.picl lf.picl crlf.picl lf.out
exit 0
