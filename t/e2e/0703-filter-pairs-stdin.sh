#!/bin/sh
# picltrace filter --pairs reads its inputs twice, so standard input is
# read from a spool or, when it is a regular file, from where it stood.
# Standard input given twice ("- -") is read once, to its end, by the
# first "-", as without --pairs (and as cat reads it): the second is
# empty, whether standard input is a file or a pipe; --pairs adds no
# record that a one-pass filter would not see.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

cat >"$TMP/t.picl" <<'T'
-3 -21 0.1 0 0 3 2 8 1 1
-4 -21 0.2 0 0 0
-3 -52 0.15 1 0 1 2 0
-4 -52 0.3 1 0 3 2 8 1 0
T
cd "$TMP"
for args in "- -" "- t.picl -" "t.picl - -" "- t.picl"; do
  for sel in "" "-p 0"; do
    # one pass: the reference
    "$PT" filter $sel $args <t.picl >one.picl
    run "$PT" filter --pairs $sel $args <t.picl
    expect_rc 0
    cmp -s one.picl out || { diff one.picl out >&2; fail "filter --pairs $sel $args <file"; }
    cat t.picl | "$PT" filter --pairs $sel $args >piped.picl
    cmp -s one.picl piped.picl || { diff one.picl piped.picl >&2; fail "filter --pairs $sel $args <pipe"; }
  done
done
# "- -" is the input once
[ "$(wc -l <one.picl)" -gt 0 ] || fail "nothing selected"
"$PT" filter --pairs - - <t.picl >twice.picl
cmp t.picl twice.picl || fail "filter --pairs - - <file is not the input once"
cd /
echo "PASS: $ntest filter --pairs stdin checks"
