#!/bin/sh
# 0989-runtime-tmpdir-missing.sh - piclrun whose TMPDIR does not exist
# (or is not a directory): it says it cannot make its temporary directory
# for the trace parts there, naming TMPDIR, and exits 2 before the start,
# where it said only "piclrun: /nonexistent/piclrun.aQZLNc: No such file or
# directory", a name the user never gave.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

piclrun_setup
run env TMPDIR="$TMP/none" "$RUN" -n 2 -o t.picl "$EX/ring" 3
expect_rc 2
expect_err <<EOF2
piclrun: cannot make a temporary directory for the trace parts in TMPDIR=$TMP/none: No such file or directory
EOF2
[ ! -s "$TMP/out" ] || fail "the program ran: $(cat "$TMP/out")"
[ ! -e t.picl ] || fail "a trace was written"
echo file >afile
run env TMPDIR="$TMP/afile" "$RUN" -n 2 -o t.picl "$EX/ring" 3
expect_rc 2
expect_err <<EOF2
piclrun: cannot make a temporary directory for the trace parts in TMPDIR=$TMP/afile: Not a directory
EOF2
