#!/bin/sh
# 0901-runtime-parts-dir.sh - a --parts-dir that names something other than
# a directory is refused before the start (exit 2, one message, no trace):
# mkdir's EEXIST was taken for a directory, the processes could not write
# their parts, and piclrun ended with status 0 and no trace.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

piclrun_setup
export TMPDIR="$TMP/tmp"

echo "not a directory" >afile
run "$RUN" -n 2 --parts-dir afile -o pd.picl "$EX/ring"
expect_rc 2
expect_err <<EOF2
piclrun: afile: Not a directory
EOF2
[ ! -e pd.picl ] || fail "a trace was written"
[ "$(cat afile)" = "not a directory" ] || fail "afile was changed"
[ -z "$(ls -A tmp)" ] || fail "left in TMPDIR: $(ls -A tmp)"

# a directory (or a link to one) is taken, as before
mkdir parts
ln -s parts plink
run "$RUN" -n 2 --parts-dir plink -o pd.picl "$EX/ring"
expect_rc 0
validate_ok pd.picl
echo "ok"
