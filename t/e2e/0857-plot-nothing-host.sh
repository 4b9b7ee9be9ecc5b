#!/bin/sh
# picltrace plot with nothing to draw: a clear message, exit 2, the old
# output kept, never a gnuplot error. A trace of the host alone (processor
# 32767, which plot leaves out, as ParaGraph does) said there was no
# traced time on any processor, though the trace has some: the message now
# says the host is left out. Also: all records at one time, no messages, no
# user events, an output in a directory that is a file.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"
cat >host.picl <<'T'
-3 -901 0.0 32767 0 0
-3 -21 0.1 32767 0 3 2 8 1 32767
-4 -21 0.2 32767 0 0
-3 -52 0.3 32767 0 0
-4 -52 0.4 32767 0 3 2 8 1 32767
-4 -901 1.0 32767 0 0
T
echo keep >old.gp
for kind in utilization gantt events messages; do
  run "$PT" plot --kind=$kind --format=script -o old.gp host.picl
  expect_rc 2
  grep -q '^picltrace plot: nothing to plot: .* (the host, processor 32767, is left out)$' "$TMP/err" ||
    fail "$kind of the host alone: $(cat "$TMP/err")"
  [ "$(cat old.gp)" = keep ] || fail "$kind: the old output was overwritten"
done
# A processor beside the host: nothing is said of the host where it has
# nothing to do with it.
sed 's/ 32767 0 / 0 0 /; s/ 1 32767$/ 1 0/' host.picl >node.picl
run "$PT" plot --kind=events --user-events --format=script -o old.gp node.picl
expect_rc 2
expect_err <<'T'
picltrace plot: nothing to plot: no user event type took any time
T
# All records at one time.
printf -- '-3 -901 1.0 0 0 0\n-3 -901 1.0 1 0 0\n-4 -901 1.0 0 0 0\n-4 -901 1.0 1 0 0\n' >zero.picl
for kind in utilization gantt; do
  run "$PT" plot --kind=$kind --format=script -o old.gp zero.picl
  expect_rc 2
  expect_err <<'T'
picltrace plot: nothing to plot: no traced time on any processor
T
done
# No messages between processors.
grep -v -- '-21\|-52' node.picl >nomsg.picl
run "$PT" plot --kind=messages --format=script -o old.gp nomsg.picl
expect_rc 2
expect_err <<'T'
picltrace plot: nothing to plot: the trace has no matched messages between processors
T
[ "$(cat old.gp)" = keep ] || fail "the old output was overwritten"
# An output whose directory is a file.
run "$PT" plot --format=script -o old.gp/x.gp node.picl
expect_rc 2
expect_err <<'T'
picltrace plot: old.gp/x.gp: cannot create: Not a directory
T
ls -a | grep -q '\.tmp' && fail "temporary files left behind"
echo "PASS: $ntest nothing-to-plot checks"
