#!/bin/sh
# 0033-progress.sh - long work on a terminal shows a progress line on
# standard error that names the program and command as its messages do
# ("picltrace stat: ... MB"); with --quiet, or when standard error is not
# a terminal (a pipe, a file), there is none. The input comes through a
# pipe that stalls for a second after its first megabyte, so that every
# command is still reading when its line is due (4 times a second at most).
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
need_script
export PICL_SCHEMA="$PICL_SRCDIR/schemas/picl.yaml"
cd "$TMP"
"$GEN" --seed 5 --procs 4 --records 600000 -o in.picl
# slow: the trace on standard output, a second's pause after 1 MB
cat > slow.sh <<'T'
head -c 1048576 in.picl; sleep 1; tail -c +1048577 in.picl
T

# cmd ARGS: the command line, reading standard input
for c in "validate -" "stat -o st.txt -" "plot --format=script -o p.gp -" \
	 "filter -p 1 -o f.picl -" "sort -o s.picl -" "merge -o m.picl -" \
	 "cat -o c.picl -"; do
  name=${c%% *}
  # a terminal: the line, named as the command's messages are
  run script -qec "sh slow.sh | \"$PT\" $c" "$TMP/typescript"
  expect_rc 0
  tr '\r' '\n' < "$TMP/out" > tty.txt
  grep -a -q -E "^picltrace $name(: [a-z ()0-9]+)?: [0-9]+ MB \\(" tty.txt ||
    fail "picltrace $c on a terminal: no progress line 'picltrace $name: N MB': $(grep -a MB tty.txt | head -n 3)"
  # --quiet on a terminal: none
  run script -qec "sh slow.sh | \"$PT\" $name -q ${c#* }" "$TMP/typescript"
  expect_rc 0
  grep -a -q "MB/s" "$TMP/out" && fail "picltrace $name -q on a terminal: a progress line"
  # standard error not a terminal: none
  run sh -c "sh slow.sh | \"$PT\" $c"
  expect_rc 0
  grep -a -q "MB/s" "$TMP/err" && fail "picltrace $c, standard error a file: a progress line"
done

# merge --unsorted sorts each input first, which is most of its work: a
# line of its own ("merge: sorting"; there was none until the merge)
run script -qec "sh slow.sh | \"$PT\" merge -u -o mu.picl -" "$TMP/typescript"
expect_rc 0
tr '\r' '\n' < "$TMP/out" > tty.txt
grep -a -q -E "^picltrace merge: sorting: [0-9]+ MB \\(" tty.txt ||
  fail "picltrace merge -u on a terminal: no 'merge: sorting' line: $(grep -a MB tty.txt | head -n 3)"
echo "ok: $ntest runs"
