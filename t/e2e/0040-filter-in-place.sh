#!/bin/sh
# picltrace filter --in-place: the kept records replace the one input file,
# also with --pairs (which reads it twice), compressed if it was, with its
# permissions, a symbolic link kept; the file untouched on a malformed
# record; refused without exactly one file or with -o, in sort's words;
# and -o onto the input points at --in-place.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"

"$GEN" --procs 4 --records 3000 -o gen.picl
for args in "-p 1" "-p 1 --pairs" "-v -e tracing --from 0 --pairs"; do
  # shellcheck disable=SC2086
  "$PT" filter -q $args gen.picl >want.picl
  cp gen.picl ip.picl
  chmod 640 ip.picl
  # shellcheck disable=SC2086
  run "$PT" filter -q $args --in-place ip.picl
  expect_rc 0
  [ ! -s "$TMP/out" ] || fail "$last wrote on standard output"
  cmp -s ip.picl want.picl || fail "$last: not the records filter $args keeps"
  [ "$(stat -c %a ip.picl)" = 640 ] || fail "$last: mode $(stat -c %a ip.picl)"
done

# A zstd file stays zstd, through a symbolic link that stays one.
zstd -q -c gen.picl >ip.zst
ln -s ip.zst link.zst
"$PT" filter -q -e sends --pairs gen.picl >want.picl
run "$PT" filter -q -e sends --pairs --in-place link.zst
expect_rc 0
[ -L link.zst ] || fail "$last: the link was replaced by a file"
[ "$(head -c 4 ip.zst | od -An -tx1 | tr -d ' ')" = 28b52ffd ] || fail "$last: decompressed"
zstd -dc ip.zst | cmp -s - want.picl || fail "$last: wrong records"

# A malformed record: exit 2, file:line:column, the file untouched, no
# temporary file left.
{ head -n 5 gen.picl; echo junk; } >bad.picl
cp bad.picl bad.orig
for pairs in "" --pairs; do
  run "$PT" filter -q $pairs -p 1 --in-place bad.picl
  expect_rc 2
  expect_err <<'T'
picltrace filter: bad.picl:6:1: expected an integer record type, found "junk"
T
  cmp -s bad.picl bad.orig || fail "$last changed its input"
  [ -z "$(ls -A | grep tmp)" ] || fail "$last left $(ls -A | grep tmp)"
done

# Refusals, in sort's words (lib.sh).
in_place_refusals filter gen.picl bad.picl -p 1
