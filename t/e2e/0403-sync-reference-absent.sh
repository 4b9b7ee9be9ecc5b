#!/bin/sh
# picltrace sync --reference=P: a processor no record of the trace names is
# said to be absent, not to have "exchanged no messages" (which sent the
# reader looking for its records); one that is there but exchanged none is
# said so. Both exit 2 and leave no output behind.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
D="$PICL_SRCDIR/testdata/sync"

# one-way.picl has processors 0, 1 and 2; 2 exchanged no message
for p in 3 32767 2147483647; do
  run "$PT" sync --reference=$p -o "$TMP/o.picl" "$D/one-way.picl"
  expect_rc 2
  expect_out </dev/null
  grep -q "one-way.picl: reference processor $p is not in the trace\$" "$TMP/err" ||
    fail "--reference=$p: $(cat "$TMP/err")"
  [ ! -e "$TMP/o.picl" ] || fail "--reference=$p: output left behind"
done
run "$PT" sync --reference=2 -o "$TMP/o.picl" "$D/one-way.picl"
expect_rc 2
grep -q "one-way.picl: reference processor 2 exchanged no messages\$" "$TMP/err" ||
  fail "--reference=2: $(cat "$TMP/err")"
[ ! -e "$TMP/o.picl" ] || fail "--reference=2: output left behind"
echo "PASS: $ntest sync --reference checks"
