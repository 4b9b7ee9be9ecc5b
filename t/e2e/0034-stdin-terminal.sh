#!/bin/sh
# 0034-stdin-terminal.sh - a command left to read its trace from a
# terminal (`picltrace stat` typed with no FILE) says so once on standard
# error before it waits, and what it then reads is its input as usual; with
# a FILE, or standard input not a terminal, it says nothing of the kind.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
need_script
export PICL_SCHEMA="$PICL_SRCDIR/schemas/picl.yaml"
cd "$TMP"
printf -- '-3 -901 0 0 0 0\n-4 -901 1 0 0 0\n' > tiny.picl
hint='reading a trace from the terminal (standard input); Ctrl-D ends it'

for c in cat stat sort "sort --check" filter "filter --pairs" "plot --format=script" \
	 sync "merge -" "merge --unsorted -" "validate -"; do
  name=${c%% *}
  # script(1) types tiny.picl at the command's terminal, then Ctrl-D
  run script -qec "\"$PT\" $c" "$TMP/typescript" < tiny.picl
  expect_rc 0
  n=$(grep -a -c -F "picltrace $name: $hint" "$TMP/out" || :)
  [ "$n" -eq 1 ] || fail "picltrace $c, reading a terminal: said it $n times: $(head -c 300 "$TMP/out")"
  # a FILE, or standard input a file: no word of it
  f="${c% -} tiny.picl"
  run script -qec "\"$PT\" $f" "$TMP/typescript" < tiny.picl
  grep -a -q -F "$hint" "$TMP/out" && fail "picltrace $f: spoke of the terminal"
  run sh -c "\"$PT\" $c < tiny.picl"
  grep -a -q -F "$hint" "$TMP/err" && fail "picltrace $c < tiny.picl: spoke of the terminal"
done
echo "ok: $ntest runs"
