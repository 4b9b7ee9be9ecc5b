#!/bin/sh
# -m is --memory in sort and merge but --messages in stat (meanings kept
# as they were): each --help shows which, and each man page says so where
# the other command's -m would mislead.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"
printf '%s\n' '-3 -901 0 0 0 0' '-4 -901 1 0 0 0' >t.picl

run "$PT" stat --help
grep -q -- '^  -m, --messages ' "$TMP/out" || fail "stat --help: no -m, --messages"
grep -q -- '^      --memory=SIZE ' "$TMP/out" || fail "stat --help: --memory has a short form"
for c in sort merge; do
  run "$PT" $c --help
  grep -q -- '^  -m, --memory=SIZE ' "$TMP/out" || fail "$c --help: no -m, --memory"
done

# what they do: stat -m adds the message section; sort and merge -m take a size
run "$PT" stat -m t.picl
expect_rc 0
grep -q '^== messages' "$TMP/out" || fail "stat -m: no messages section"
run "$PT" sort -m 8M t.picl
expect_rc 0
expect_out <t.picl
run "$PT" merge --no-header -m 8M t.picl
expect_rc 0
expect_out <t.picl

# the man pages (roff's \- read as -)
page() {
  sed 's/\\-/-/g; s/\\f[BIR]//g; s/^\.[A-Z]* //' "$PICL_SRCDIR/man/picltrace-$1.1" | tr '\n' ' '
}
page stat | grep -q -- '-m is --messages' || fail "picltrace-stat.1: --memory does not say -m is --messages"
page stat | grep -q -- '-m is --memory ; here it is not' || fail "picltrace-stat.1: --messages does not say sort's -m is --memory"
for c in sort merge; do
  page $c | grep -q -- 'picltrace-stat (1), -m is --messages' || fail "picltrace-$c.1: does not say stat's -m is --messages"
done
