#!/bin/sh
# picltrace merge --unsorted with many more inputs than it may hold open
# (the fan-in: a quarter of the descriptors left, 6 under `ulimit -n 40`)
# or merge at once (--memory): the output is the sort of the inputs'
# concatenation, byte for byte (ties in argument order), and a record is
# written a few times over, not once per fan-in's worth of inputs (merging
# all the waiting runs whenever the fan-in was reached rewrote the first
# inputs' records on each such round: n^2 / fan-in bytes in all).
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"
n=300
i=1
while [ $i -le $n ]; do
  "$GEN" --procs 1 --seed $i --records 50 --unsorted -o in$i.picl
  i=$((i + 1))
done
files=$(seq -f in%g.picl 1 $n)
# shellcheck disable=SC2086
cat $files | "$PT" sort -o ref.picl

# shellcheck disable=SC2086
for limit in 40 64; do
  run sh -c 'ulimit -n "$1" && shift && exec "$@"' sh $limit \
    "$PT" merge --unsorted --no-header -o out.picl $files
  expect_rc 0
  expect_err </dev/null
  cmp -s out.picl ref.picl || fail "merge --unsorted of $n inputs under ulimit -n $limit differs from sort"
done
# one merge takes two runs (--memory): bases of 2, 9 levels
# shellcheck disable=SC2086
run "$PT" merge --unsorted --no-header -m 1M -o out.picl $files
expect_rc 0
cmp -s out.picl ref.picl || fail "merge --unsorted -m 1M of $n inputs differs from sort"
# with the header records, the body is the same
# shellcheck disable=SC2086
run sh -c 'ulimit -n 40 && exec "$@"' sh "$PT" merge --unsorted -o out.picl $files
expect_rc 0
grep -v '^-30[0-9] ' out.picl | cmp -s - ref.picl || fail "merge --unsorted with header: body differs"

# Bytes written (wchar, which counts a process's reaped children): the
# sorted runs, a few levels of merges, the output: about 3 times the
# output under ulimit -n 40, where merging all at the fan-in wrote 6.6.
if [ -r /proc/self/io ]; then
  # shellcheck disable=SC2086
  written=$(sh -c 'ulimit -n 40 && "$@" && sed -n "s/^wchar: //p" /proc/$$/io' sh \
    "$PT" merge --unsorted --no-header -o out.picl $files)
  size=$(wc -c <out.picl)
  [ "$written" -le $((4 * size)) ] ||
    fail "merge --unsorted of $n inputs wrote $written bytes for an output of $size"
else
  echo "note: no /proc/self/io; the bytes written are not checked"
fi
