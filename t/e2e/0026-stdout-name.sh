#!/bin/sh
# Every command names standard output "<stdout>" in its messages, never
# "-": here the refusal to write onto an input (standard output appended
# to the trace read), which leaves the trace as it was.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"
printf '%s\n' '-3 -901 0 0 0 0' '-4 -901 1 0 0 0' >in.picl
cp in.picl orig.picl

for c in cat filter sort merge plot stat sync; do
  case $c in
  filter) opt=--event=-901 ;;
  plot) opt=--format=script ;;
  *) opt= ;;
  esac
  case $c in
  sort | sync | cat | filter) why="use --in-place to replace it" ;;
  *) why="refusing to overwrite it" ;;
  esac
  case $c in
  sync) what="the input" ;;
  *) what="an input" ;;
  esac
  set +e
  "$PT" $c $opt in.picl >>in.picl 2>"$TMP/err"
  rc=$?
  set -e
  last="$c in.picl >>in.picl"
  expect_rc 2
  expect_err <<T
picltrace $c: <stdout>: the output is also $what; $why
T
  cmp -s in.picl orig.picl || fail "$last changed its input"
done
