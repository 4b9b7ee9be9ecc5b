#!/bin/sh
# 0027-stdout-take-back.sh - a command that fails while writing to a
# redirected standard output takes back what it wrote: the file is cut to
# where the command began (nothing when the shell truncated it, the old
# contents in append mode), with no hole for a later writer; not when
# standard error goes to the same file (the message stays); a good input
# is written whole; a pipe gets what was streamed (nothing can be taken
# back from it).
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"

# Over 2 MiB of good records (more than the writer's 1 MiB buffer, so
# that some of them have been written when the bad one is read), then a
# record whose processor is not a number.
"$GEN" --seed 3 --procs 8 --records 80000 -o good.picl
[ "$(wc -c <good.picl)" -gt 2200000 ] || fail "gen-trace wrote less than 2.2 MB"
cp good.picl bad.picl
echo '-4 1 9.000000 x 0 0' >>bad.picl
bad_line=$(wc -l <bad.picl)
cp bad.picl bad.before
"$PT" cat good.picl >want.picl

# The streaming commands (cat, filter, merge of one input, zstd output):
# exit 2, the error on standard error, nothing in the file.
for how in "cat" "filter -p 0..7" "merge -q --no-header" "cat -z" "sort -q" "stat"; do
  rm -f out
  set +e
  "$PT" $how bad.picl >out 2>err
  rc=$?
  set -e
  [ $rc -eq 2 ] || fail "$how: exit $rc, not 2"
  grep -q "bad.picl:$bad_line:15: " err || fail "$how: no file:line:column in: $(cat err)"
  [ -f out ] && [ ! -s out ] || fail "$how > out left $(wc -c <out) bytes"
done
# (the writer did write before the error: a pipe got it)
n=$("$PT" cat bad.picl 2>/dev/null | wc -c)
[ "$n" -gt 1000000 ] || fail "cat to a pipe wrote only $n bytes before the error"

# /dev/stdout named as the output is the same redirection.
"$PT" cat -o /dev/stdout bad.picl >out 2>err && fail "cat -o /dev/stdout: exit 0"
[ ! -s out ] || fail "cat -o /dev/stdout left $(wc -c <out) bytes"

# Append mode: the file keeps what it had, and only that.
printf 'kept line\n' >log
"$PT" cat bad.picl >>log 2>err && fail "cat >>log: exit 0"
[ "$(cat log)" = "kept line" ] || fail "cat >>log: log now has $(wc -c <log) bytes"

# A later writer of the same redirection continues where the file was
# cut: no hole of zero bytes before its text.
{ "$PT" cat bad.picl 2>err; echo after; } >out || true
[ "$(od -An -c out | tr -d ' \n')" = 'after\n' ] || fail "after the take-back: $(od -An -c out | head -2)"

# Standard error to the same file: nothing is taken back, the message
# that explains the failure stays (at the end).
set +e
"$PT" cat bad.picl >out 2>&1
rc=$?
set -e
[ $rc -eq 2 ] || fail "cat >out 2>&1: exit $rc"
tail -n 1 out | grep -q "bad.picl:$bad_line:15: " || fail "cat >out 2>&1: the message is gone: $(tail -c 200 out)"

# A good input is written whole; the input is never touched.
"$PT" cat good.picl >out
cmp -s out want.picl || fail "cat good.picl >out differs from cat's output"
cmp -s bad.picl bad.before || fail "the input changed"
rm -f good.picl bad.picl bad.before want.picl out err log
