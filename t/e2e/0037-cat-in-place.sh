#!/bin/sh
# picltrace cat --in-place: a hand-edited trace made canonical where it
# lies, compressed if it was, with its permissions, a symbolic link kept;
# left as it was on a malformed record; refused without exactly one file
# or with -o, with the same words as sort and sync; and -o onto the input
# points at --in-place.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"

printf '%s\n' '-3  -901 1e-3 0 0 0' '-4 -901   0.0020 0 0 0' >ip.picl
chmod 640 ip.picl
"$PT" cat ip.picl >canon.picl
run "$PT" cat -q --in-place ip.picl
expect_rc 0
[ ! -s "$TMP/out" ] || fail "$last wrote on standard output"
cmp -s ip.picl canon.picl || fail "$last: not made canonical: $(cat ip.picl)"
[ "$(stat -c %a ip.picl)" = 640 ] || fail "$last: mode $(stat -c %a ip.picl)"

# A zstd file stays zstd, through a symbolic link that stays one.
printf '%s\n' '-3  -901 1e-3 0 0 0' '-4 -901   0.0020 0 0 0' | zstd -q -c >ip.zst
ln -s ip.zst link.zst
run "$PT" cat -q --in-place link.zst
expect_rc 0
[ -L link.zst ] || fail "$last: the link was replaced by a file"
[ "$(head -c 4 ip.zst | od -An -tx1 | tr -d ' ')" = 28b52ffd ] || fail "$last: decompressed"
zstd -dc ip.zst | cmp -s - canon.picl || fail "$last: wrong records"
# -z compresses a plain one.
cp canon.picl plain.picl
run "$PT" cat -q -z --in-place plain.picl
expect_rc 0
zstd -dc plain.picl | cmp -s - canon.picl || fail "$last: not zstd of the records"

# A malformed record: exit 2, file:line:column, the file untouched, no
# temporary file left.
printf '%s\n' '-3  -901 1e-3 0 0 0' 'junk' >bad.picl
cp bad.picl bad.orig
run "$PT" cat -q --in-place bad.picl
expect_rc 2
expect_err <<'T'
picltrace cat: bad.picl:2:1: expected an integer record type, found "junk"
T
cmp -s bad.picl bad.orig || fail "$last changed its input"
[ -z "$(ls -A | grep tmp)" ] || fail "$last left $(ls -A | grep tmp)"

# Refusals, in sort's words (lib.sh).
in_place_refusals cat canon.picl ip.picl
