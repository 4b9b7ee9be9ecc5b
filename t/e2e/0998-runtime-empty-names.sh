#!/bin/sh
# 0998-runtime-empty-names.sh - piclrun given an empty name, as a shell
# gives for an unset variable (-o "$OUT"): -o '', --output=, --host '',
# --parts-dir '' and an empty PROG are refused before the start, with exit
# status 2 and a line naming the option, where -o '' was found out only
# by the merge after the whole run (the program had run, the parts were
# left in a temporary directory) and --host '' and --parts-dir '' said
# "piclrun: : No such file or directory".
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

piclrun_setup
export TMPDIR="$TMP/tmp"

run "$RUN" -n 2 -o '' "$EX/ring"
expect_rc 2
expect_err <<'EOF2'
piclrun: -o: the output's name is empty
EOF2
[ ! -s "$TMP/out" ] || fail "-o '': the program ran: $(cat "$TMP/out")"
run "$RUN" -n 2 --output= "$EX/ring"
expect_rc 2
expect_err <<'EOF2'
piclrun: -o: the output's name is empty
EOF2
run "$RUN" -n 2 --host '' -o h.picl "$EX/ring"
expect_rc 2
expect_err <<'EOF2'
piclrun: --host: the host program's name is empty
EOF2
run "$RUN" -n 2 --parts-dir '' -o p.picl "$EX/ring"
expect_rc 2
expect_err <<'EOF2'
piclrun: --parts-dir: the directory's name is empty
EOF2
run "$RUN" -n 2 -o e.picl ''
expect_rc 2
head -n 1 "$TMP/err" >"$TMP/err1"
[ "$(cat "$TMP/err1")" = "piclrun: the program's name is empty" ] ||
  fail "empty PROG: $(cat "$TMP/err")"
# nothing written, nothing left in TMPDIR
[ -z "$(ls tmp)" ] || fail "left in TMPDIR: $(ls tmp)"
for f in h.picl p.picl e.picl trace.picl; do
  [ ! -e "$f" ] || fail "$f written"
done
