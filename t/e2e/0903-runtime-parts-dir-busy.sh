#!/bin/sh
# 0903-runtime-parts-dir-busy.sh - two piclrun at once with one --parts-dir:
# the second is refused before it starts (exit 2, one message), instead of
# removing the first run's parts as an earlier run's (the first then merged
# nothing, wrote no trace and exited 0). A run started as soon as the
# first has ended takes the directory.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

piclrun_setup
export TMPDIR="$TMP/tmp"

# the first: one process that sleeps (not a PICL program: no trace)
"$RUN" -n 1 --parts-dir pd -o first.picl sleep 3 >first.out 2>first.err &
pr=$!
i=0
until [ -n "$(ps --ppid $pr -o pid=)" ]; do
  i=$((i + 1))
  [ $i -lt 200 ] || { kill $pr; fail "the first run did not start"; }
  sleep 0.05
done
run "$RUN" -n 2 --parts-dir pd -o second.picl "$EX/ring"
expect_rc 2
expect_err <<EOF2
piclrun: pd: another piclrun is using it as its parts directory
EOF2
[ ! -e second.picl ] || fail "the second run wrote a trace"
wait $pr || fail "the first run failed: $(cat first.err)"

# at once after the first: taken
run "$RUN" -n 2 --parts-dir pd -o third.picl "$EX/ring"
expect_rc 0
validate_ok third.picl
echo ok
