#!/bin/sh
# picltrace plot says the same totals as picltrace stat after the first
# warnings: how many exits without a matching entry were ignored (beyond the
# five listed one by one), how many records went back in time on their
# process; -q says neither.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"

# 7 exits of event 6 never entered; one record (line 10) earlier than the
# one before it on processor 0.
awk 'BEGIN { print "-3 -901 0 0 0 0"
  for (i = 1; i <= 7; i++) printf "-4 6 %d 0 0 0\n", i
  print "-3 5 9 0 0 0"; print "-4 5 8 0 0 0"
  print "-4 -901 10 0 0 0" }' >loose.picl

for cmd in stat plot; do
  if [ $cmd = plot ]; then opt=--format=script; else opt=--format=csv; fi
  run "$PT" $cmd $opt -o out.txt loose.picl
  expect_rc 0
  expect_err <<T
picltrace $cmd: loose.picl:2:1: exit of event 6 at 1 has no matching entry (ignored)
picltrace $cmd: loose.picl:3:1: exit of event 6 at 2 has no matching entry (ignored)
picltrace $cmd: loose.picl:4:1: exit of event 6 at 3 has no matching entry (ignored)
picltrace $cmd: loose.picl:5:1: exit of event 6 at 4 has no matching entry (ignored)
picltrace $cmd: loose.picl:6:1: exit of event 6 at 5 has no matching entry (ignored)
picltrace $cmd: warning: 7 exits without a matching entry were ignored
picltrace $cmd: warning: 1 event record is earlier than the one before it on its process; no time was counted for it
T
  [ -s out.txt ] || fail "$cmd wrote no output"
  run "$PT" $cmd $opt -q -o out.txt loose.picl
  expect_rc 0
  expect_err </dev/null
done
