#!/bin/sh
# 0032-input-twice.sh - merge, stat and plot, which read their inputs as the
# pieces of one trace, refuse one file given twice (the same name, a
# symbolic link to it, another path, or "-" reading it): exit 2, both
# names in one message, no output file; every record would otherwise be
# merged or counted twice. Distinct files still go through.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
export PICL_SCHEMA="$PICL_SRCDIR/schemas/picl.yaml"
cd "$TMP"
# two per-node files of one trace
"$GEN" --seed 3 --procs 2 --records 400 -o all.picl
"$PT" filter -p 0 -o a.picl all.picl
"$PT" filter -p 1 -o b.picl all.picl
ln -s a.picl link.picl

for cmd in merge stat plot; do
  # (plot: the script, not gnuplot's picture)
  cmd_=$cmd; [ $cmd != plot ] || cmd="plot -f script"
  # all accept the distinct files
  run "$PT" $cmd -o res a.picl b.picl
  expect_rc 0
  rm res
  for second in a.picl link.picl ./a.picl ../"$(basename "$TMP")"/a.picl; do
    run "$PT" $cmd -o res a.picl b.picl "$second"
    expect_rc 2
    [ ! -e res ] || fail "$last: left an output"
    [ "$(wc -l < "$TMP/err")" -eq 1 ] || fail "$last: $(cat "$TMP/err")"
    grep -q "^picltrace $cmd_: a.picl.* given twice as an input" "$TMP/err" ||
      fail "$last: $(cat "$TMP/err")"
    [ "$second" = a.picl ] || grep -q -F -e "$second" "$TMP/err" ||
      fail "$last: does not name $second: $(cat "$TMP/err")"
  done
  run sh -c "\"$PT\" $cmd -o res a.picl - < a.picl"
  expect_rc 2
  grep -q "a.picl and <stdin>: the same file given twice" "$TMP/err" ||
    fail "$last: $(cat "$TMP/err")"
  [ ! -e res ] || fail "$last: left an output"
done
echo "ok: $ntest runs"
