#!/bin/sh
# picltrace merge --identity=TEXT writes TEXT as the header's -301 record
# (control characters and a final backslash as ?, empty: no -301 record,
# longer than 4096 bytes: refused) instead of "merged by picltrace merge
# from N inputs"; --no-sources leaves out the -306 records that name the
# inputs, and only them.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

cd "$TMP"
printf -- '-3 -21 0.1 0 0 3 2 8 1 1\n-4 -21 0.2 0 0 0\n' >a.picl
printf -- '-3 -52 0.15 1 0 1 2 0\n-4 -52 0.3 1 0 3 2 8 1 0\n' >b.picl

# the default header: what made it, the inputs, the processors
run "$PT" merge a.picl b.picl
expect_rc 0
expect_out <<'T'
-301 -1 0.0 -1 -1 39 0 merged by picltrace merge from 2 inputs
-306 -1 0.0 -1 -1 6 0 a.picl
-306 -1 0.0 -1 -1 6 0 b.picl
-307 -1 0.0 -1 -1 2 2 0 1
-3 -21 0.1 0 0 3 2 8 1 1
-3 -52 0.15 1 0 1 2 0
-4 -21 0.2 0 0 0
-4 -52 0.3 1 0 3 2 8 1 0
T

# both options: the text given, no -306, the rest as before
run "$PT" merge --identity='./ring 3 on 2 local processes' --no-sources a.picl b.picl
expect_rc 0
expect_out <<'T'
-301 -1 0.0 -1 -1 29 0 ./ring 3 on 2 local processes
-307 -1 0.0 -1 -1 2 2 0 1
-3 -21 0.1 0 0 3 2 8 1 1
-3 -52 0.15 1 0 1 2 0
-4 -21 0.2 0 0 0
-4 -52 0.3 1 0 3 2 8 1 0
T

# a newline would end the record, a final backslash continue it: both ?
run "$PT" merge --identity="$(printf 'two\nlines\\')" --no-sources a.picl
expect_rc 0
[ "$(head -n 1 "$TMP/out")" = '-301 -1 0.0 -1 -1 10 0 two?lines?' ] ||
  fail "control characters written as they were: $(head -n 1 "$TMP/out")"
cp "$TMP/out" odd.picl
run "$PT" cat odd.picl          # reads back: one record, not two
expect_rc 0
[ "$(head -n 1 "$TMP/out")" = '-301 -1 0.0 -1 -1 10 0 two?lines?' ] ||
  fail "read back otherwise: $(head -n 1 "$TMP/out")"

# empty: no -301 record; through the temporary file too (standard input)
run "$PT" merge --identity= --no-sources - <a.picl
expect_rc 0
[ "$(head -n 1 "$TMP/out")" = '-307 -1 0.0 -1 -1 1 2 0' ] ||
  fail "an empty identity still wrote a record: $(head -n 1 "$TMP/out")"

# too long: refused before anything is written
long=$(head -c 4097 /dev/zero | tr '\0' x)
run "$PT" merge --identity="$long" -o never.picl a.picl
expect_rc 2
grep -q -- '--identity: longer than 4096 bytes' "$TMP/err" ||
  fail "no message for a long identity: $(cat "$TMP/err")"
[ ! -e never.picl ] || fail "an output was left"
run "$PT" merge --identity="${long%x}" a.picl
expect_rc 0

echo "PASS: $ntest merge identity checks"
