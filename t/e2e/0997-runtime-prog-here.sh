#!/bin/sh
# 0997-runtime-prog-here.sh - piclrun given a program name without a
# slash that is not on PATH, as a shell is (piclrun(1)): with a file of
# that name here it says to write ./PROG, but when that is a directory or
# not executable it says so, where it used to tell the user to write
# ./PROG, which is refused in turn. The usage says how to run a program of
# picl-cc --mpi (mpirun).
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

piclrun_setup
mkdir picl-t-dir
cp "$EX/ring" picl-t-plain
cp "$EX/ring" picl-t-ring
chmod a-x picl-t-plain

run "$RUN" -n 2 -o t.picl picl-t-dir
expect_rc 2
expect_err <<'EOF2'
piclrun: picl-t-dir: command not found (not on PATH; ./picl-t-dir is a directory)
EOF2
run "$RUN" -n 2 -o t.picl picl-t-plain
expect_rc 2
expect_err <<'EOF2'
piclrun: picl-t-plain: command not found (not on PATH; ./picl-t-plain is not executable)
EOF2
run "$RUN" -n 2 -o t.picl picl-t-ring
expect_rc 2
expect_err <<'EOF2'
piclrun: picl-t-ring: command not found (not on PATH; the one in this directory is ./picl-t-ring)
EOF2
[ ! -e t.picl ] || fail "a trace was written"

run "$RUN" --help
expect_rc 0
grep -q "picl-cc --mpi is run" "$TMP/out" && grep -q "with mpirun" "$TMP/out" ||
  fail "--help says nothing of mpirun: $(cat "$TMP/out")"
