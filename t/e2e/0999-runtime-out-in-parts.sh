#!/bin/sh
# 0999-runtime-out-in-parts.sh - piclrun -o naming one of this run's own
# files in --parts-dir (part.N.picl, part.N.picl.files, partial.picl, by
# any path to that directory) is refused before the start, with exit
# status 2, where the run went ahead (removing the file as an earlier
# run's), then the merge refused to write its output over an input, and
# piclrun left the parts with a picltrace merge command that failed in
# the same way. Other names in the directory are fine.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

piclrun_setup
mkdir pd
echo keep >pd/part.0.picl

for o in pd/part.0.picl ./pd/part.12.picl.files pd/partial.picl pd/../pd/part.1.picl; do
  run "$RUN" -n 2 --parts-dir pd -o "$o" "$EX/ring" 3
  expect_rc 2
  expect_err <<EOF2
piclrun: $o: the output would be one of the trace parts in --parts-dir pd; refusing it
EOF2
  [ ! -s "$TMP/out" ] || fail "-o $o: the program ran: $(cat "$TMP/out")"
done
[ "$(cat pd/part.0.picl)" = keep ] || fail "pd/part.0.picl was removed or changed"
(cd pd && run "$RUN" -n 2 --parts-dir . -o part.1.picl "$EX/ring" 3 && expect_rc 2)

# a name of no part, in the same directory
run "$RUN" -n 2 --parts-dir pd -o pd/run.picl "$EX/ring" 3
expect_rc 0
validate_ok pd/run.picl
