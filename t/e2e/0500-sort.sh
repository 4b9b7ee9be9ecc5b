#!/bin/sh
# picltrace sort: stable by exact time (1e-1 == 0.10), headers first, lines
# moved as they are, in memory and through spilled runs, zstd, --check,
# --in-place, bad input and a full temporary directory.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

cat >"$TMP/in.picl" <<'T'
-3 -901 0.5 1 0 0
-3 -901 -0.25 0 0 0
-301 -1 9 -1 -1 5 0 hello
-2 -12 0.5 0 0 0
-4 -901 1e-1 1 0 0
-4 -901 0.10 0 0 0
-3 -21 0.5000 2 0 3 2 8 1 0
T
# Worked out by hand: the header first; then -0.25; 1e-1 and 0.10 are equal,
# so input order; the three 0.5s in input order.
cat >"$TMP/want.picl" <<'T'
-301 -1 9 -1 -1 5 0 hello
-3 -901 -0.25 0 0 0
-4 -901 1e-1 1 0 0
-4 -901 0.10 0 0 0
-3 -901 0.5 1 0 0
-2 -12 0.5 0 0 0
-3 -21 0.5000 2 0 3 2 8 1 0
T
run "$PT" sort "$TMP/in.picl"
expect_rc 0
cmp "$TMP/out" "$TMP/want.picl" || fail "sorted order"

run "$PT" sort --check "$TMP/in.picl"
expect_rc 1
expect_err <<T
picltrace sort: $TMP/in.picl:2:9: not sorted: time -0.25 comes after 0.5 (line 1)
T
run "$PT" sort --check "$TMP/want.picl"
expect_rc 0

# stdin, zstd in and out.
zstd -q -c "$TMP/in.picl" >"$TMP/in.zst"
run sh -c "\"$PT\" sort -z < \"$TMP/in.zst\" > \"$TMP/out.zst\""
expect_rc 0
zstd -q -d -c "$TMP/out.zst" | cmp - "$TMP/want.picl" || fail "zstd sort"

# A generated trace in per-node flush order: external sort (tiny memory,
# many runs) gives the same bytes as the in-memory sort and as GNU sort's
# stable numeric sort on the time field.
"$GEN" --seed 5 --procs 16 --records 60000 --unsorted -o "$TMP/big.picl"
run "$PT" sort --check "$TMP/big.picl"
expect_rc 1
"$PT" sort -o "$TMP/big.mem" "$TMP/big.picl"
"$PT" sort --memory=1M --tmpdir="$TMP" -q -o "$TMP/big.ext" "$TMP/big.picl"
cmp "$TMP/big.mem" "$TMP/big.ext" || fail "external sort differs from in-memory sort"
LC_ALL=C sort -s -t' ' -k3,3g "$TMP/big.picl" | cmp - "$TMP/big.mem" || fail "differs from GNU sort"
[ "$(wc -l <"$TMP/big.mem")" -eq "$(wc -l <"$TMP/big.picl")" ] || fail "records lost"
ls "$TMP" | grep -q picltrace-sort && fail "temporary runs left behind"

# Runs are merged as they pile up, at most --batch-size at once (2 and 3:
# the spills since the last merge, then the merged runs themselves), and
# within the open-file limit: 36 runs under `ulimit -n 40` (16 at once).
for b in 2 3; do
  "$PT" sort --memory=1M --batch-size=$b --tmpdir="$TMP" -q -o "$TMP/big.b$b" "$TMP/big.picl"
  cmp "$TMP/big.mem" "$TMP/big.b$b" || fail "--batch-size=$b differs from the in-memory sort"
done
"$GEN" --seed 6 --procs 16 --records 400000 --unsorted -o "$TMP/many.picl"
"$PT" sort -o "$TMP/many.mem" "$TMP/many.picl"
run sh -c "ulimit -n 40 && \"$PT\" sort --memory=1M --tmpdir=\"$TMP\" -q -o \"$TMP/many.ext\" \"$TMP/many.picl\""
expect_rc 0
cmp "$TMP/many.mem" "$TMP/many.ext" || fail "sort under ulimit -n 40 differs"
rm -f "$TMP/many.picl" "$TMP/many.mem" "$TMP/many.ext"
ls "$TMP" | grep -q picltrace-sort && fail "temporary runs left behind"
run "$PT" sort --batch-size=1 "$TMP/big.picl"
expect_rc 2
expect_err <<'T'
picltrace sort: --batch-size takes a count of runs from 2 to 1000000, not '1'
T

# A trace three times larger than --memory sorts within it (the whole
# process, as /usr/bin/time sees its peak).
if [ -n "${ASAN_OPTIONS:-}" ]; then
  echo "note: sanitizer build (shadow memory); memory bound not measured here"
elif [ -x /usr/bin/time ]; then
  "$GEN" --seed 6 --procs 32 --size 150M --unsorted -o "$TMP/big3.picl"
  run /usr/bin/time -f '%M' -o "$TMP/peak" "$PT" sort -q --memory=48M --tmpdir="$TMP" -o "$TMP/big3.sorted" "$TMP/big3.picl"
  expect_rc 0
  peak=$(tail -n 1 "$TMP/peak")
  [ "$peak" -le 49152 ] || fail "peak memory ${peak} KB exceeds --memory=48M"
  "$PT" sort --check "$TMP/big3.sorted" || fail "external sort output not sorted"
  [ "$(wc -l <"$TMP/big3.sorted")" -eq "$(wc -l <"$TMP/big3.picl")" ] || fail "records lost"
  # ... and with less memory, more runs than the budget can read back at
  # once: they are merged a few at a time (all at once took 37 MB here)
  run /usr/bin/time -f '%M' -o "$TMP/peak" "$PT" sort -q --memory=32M --tmpdir="$TMP" -o "$TMP/big3.32" "$TMP/big3.picl"
  expect_rc 0
  peak=$(tail -n 1 "$TMP/peak")
  [ "$peak" -le 32768 ] || fail "peak memory ${peak} KB exceeds --memory=32M"
  cmp "$TMP/big3.sorted" "$TMP/big3.32" || fail "--memory=32M sorts differently"
  rm -f "$TMP/big3.32"
  rm -f "$TMP/big3.picl" "$TMP/big3.sorted"
  # Header records count too: 100 MB of them (and some events) sort
  # within --memory=32M (they were all held in memory: 100 MB), first
  # and in input order, the events after them as GNU sort orders them.
  awk 'BEGIN { for (i = 0; i < 2000000; i++) {
    printf "-301 -1 %d -1 -1 20 0 aaaaaaaaaaaaaaaaaaaa\n", i % 1000
    if (i % 4 == 0) printf "-3 -11 %d 0 0 0\n", (i * 7919) % 100003 } }' >"$TMP/hdr.picl"
  run /usr/bin/time -f '%M' -o "$TMP/peak" "$PT" sort -q --memory=32M --tmpdir="$TMP" -o "$TMP/hdr.sorted" "$TMP/hdr.picl"
  expect_rc 0
  peak=$(tail -n 1 "$TMP/peak")
  [ "$peak" -le 32768 ] || fail "header records: peak memory ${peak} KB exceeds --memory=32M"
  { grep -e '^-301 ' "$TMP/hdr.picl"
    grep -v -e '^-301 ' "$TMP/hdr.picl" | LC_ALL=C sort -s -t' ' -k3,3g; } >"$TMP/hdr.want"
  cmp "$TMP/hdr.want" "$TMP/hdr.sorted" || fail "header records: not first in input order, or events out of order"
  rm -f "$TMP/hdr.picl" "$TMP/hdr.sorted" "$TMP/hdr.want"
else
  echo "note: /usr/bin/time absent; memory bound not measured"
fi

# A single plain file is sorted through a mapping (lines not copied); the
# same bytes as standard input, which goes through the copying sorter.
# Lines that do not read as themselves: CRLF, continued, no final newline.
{
  printf '%s\r\n' '-3 -901 0.5 1 0 0'
  printf '%s\n' '# a comment' '' '   -3 -901 0.25 0 0 0' '-3 -21 0.5000 2 0 3 \' '2 8 1 0'
  printf '%s\n' '-301 -1 9 -1 -1 5 0 hello' '-4 -901 1e-1 1 0 0'
  printf '%s' '-4 -901 0.0625 3 0 0'
} >"$TMP/odd.picl"
"$PT" sort -o "$TMP/odd.file" "$TMP/odd.picl"
"$PT" sort <"$TMP/odd.picl" >"$TMP/odd.pipe"
cmp "$TMP/odd.file" "$TMP/odd.pipe" || fail "odd lines: mapped sort differs"
[ "$(head -n 1 "$TMP/odd.file")" = "-301 -1 9 -1 -1 5 0 hello" ] || fail "odd lines: header"
# Finer scales met late, times too far apart for 8-byte entries, and times
# that do not fit 64 bits at the finest scale (the copying sorter's exact
# comparison then).
printf '%s\n' '-3 -1 1 0 0 0' '-3 -1 0.5 1 0 0' '-3 -1 0.000000001 2 0 0' \
  '-3 -1 1000000000 3 0 0' '-3 -1 -7.25 4 0 0' '-3 -1 0.5000 5 0 0' >"$TMP/wide.picl"
printf '%s\n' '-3 -1 1 0 0 0' '-3 -1 1e-18 1 0 0' '-3 -1 100 2 0 0' '-3 -1 -1 3 0 0' \
  '-3 -1 1.0 4 0 0' >"$TMP/huge.picl"
for f in wide huge; do
  "$PT" sort -o "$TMP/$f.file" "$TMP/$f.picl"
  "$PT" sort <"$TMP/$f.picl" >"$TMP/$f.pipe"
  cmp "$TMP/$f.file" "$TMP/$f.pipe" || fail "$f: mapped sort differs"
done
[ "$(cut -d' ' -f4 "$TMP/wide.file" | tr -d '\n')" = "421503" ] || fail "wide: order"
printf '%s\n' '-3 -1 2.5 0 0 0' '-4 -1 2.50 1 0 0' '-3 -1 2.500 2 0 0' >"$TMP/eq.picl"
"$PT" sort "$TMP/eq.picl" | cmp - "$TMP/eq.picl" || fail "equal times: input order"
# A file large enough to be read by two readers (one per half): the same as
# GNU sort; with a definition record, header records, odd lines or a bad
# record in the second half too.
"$GEN" --seed 8 --procs 8 --records 400000 --unsorted -o "$TMP/two.picl"
"$PT" sort -o "$TMP/two.sorted" "$TMP/two.picl"
LC_ALL=C sort -s -t' ' -k3,3g "$TMP/two.picl" | cmp - "$TMP/two.sorted" ||
  fail "two readers: differs from GNU sort"
lines=$(wc -l <"$TMP/two.picl")
at=$((lines * 3 / 4))
awk -v at="$at" 'NR == 10 { print "-302 -1 0 -1 -1 0" }
  NR == at { print "-301 -1 0 -1 -1 0"; print "-6 -1 0.5 -1 -1 1 \"%d%s\" 7 \"%d\""
             printf "%s\r\n", "-3 -901 0.5 7 0 0"; print "-3 -901 0.5 6 0 \\"; print "0" }
  { print }' "$TMP/two.picl" >"$TMP/two-defs.picl"
"$PT" sort -o "$TMP/two-defs.file" "$TMP/two-defs.picl"
"$PT" sort <"$TMP/two-defs.picl" >"$TMP/two-defs.pipe"
cmp "$TMP/two-defs.file" "$TMP/two-defs.pipe" || fail "two readers, definitions: differs"
awk -v at="$at" 'NR == 10 { print "-302 -1 0 -1 -1 0" } NR == at { print "-301 -1 0 -1 -1 0" }
  { print }' "$TMP/two.picl" >"$TMP/two-hdr.picl"
"$PT" sort -o "$TMP/two-hdr.file" "$TMP/two-hdr.picl"
"$PT" sort <"$TMP/two-hdr.picl" >"$TMP/two-hdr.pipe"
cmp "$TMP/two-hdr.file" "$TMP/two-hdr.pipe" || fail "two readers, header records: differs"
[ "$(head -n 2 "$TMP/two-hdr.file" | cut -d' ' -f1 | tr '\n' ' ')" = "-302 -301 " ] ||
  fail "two readers: header records first, in input order"
"$PT" sort -z -o "$TMP/two.zst" "$TMP/two.picl"
zstd -q -d -c "$TMP/two.zst" | cmp - "$TMP/two.sorted" || fail "two readers, zstd output"
awk -v at="$at" 'NR == at { print "-3 -901 0.5 7 0 \\"; print "0" } { print }' "$TMP/two.picl" \
  >"$TMP/two-cont.picl"
"$PT" sort -o "$TMP/two-cont.file" "$TMP/two-cont.picl"
"$PT" sort <"$TMP/two-cont.picl" >"$TMP/two-cont.pipe"
cmp "$TMP/two-cont.file" "$TMP/two-cont.pipe" || fail "two readers, continued line: differs"
awk -v at="$at" 'NR == at { print "-3 -901 0.5 x7 0 0" } { print }' "$TMP/two.picl" \
  >"$TMP/two-bad.picl"
run "$PT" sort -o "$TMP/never.picl" "$TMP/two-bad.picl"
expect_rc 2
grep -q "^picltrace sort: $TMP/two-bad.picl:$at:13: .*x7" "$TMP/err" ||
  fail "two readers: the bad record's place"
[ ! -e "$TMP/never.picl" ] || fail "two readers: output left behind"
rm -f "$TMP"/two*

# --in-place replaces the input only once sorted; otherwise never touched.
cp "$TMP/in.picl" "$TMP/inplace.picl"
run "$PT" sort --in-place "$TMP/inplace.picl"
expect_rc 0
cmp "$TMP/inplace.picl" "$TMP/want.picl" || fail "--in-place"
cp "$TMP/in.picl" "$TMP/same.picl"
run "$PT" sort -o "$TMP/same.picl" "$TMP/same.picl"
expect_rc 2
cmp "$TMP/same.picl" "$TMP/in.picl" || fail "input touched"

# --in-place of standard input: nothing to replace, said as such.
run sh -c "\"$PT\" sort --in-place - <\"$TMP/want.picl\""
expect_rc 2
expect_err <<'T'
picltrace sort: --in-place needs a FILE, not standard input
T

# --in-place of a FIFO or a device: nothing to replace either. (A FIFO
# was read to its end, then opened to be written, waiting for a reader
# for ever; refused before it is opened, it needs no writer here.)
mkfifo "$TMP/fifo.picl"
run_within 10 "$PT" sort --in-place "$TMP/fifo.picl"
expect_rc 2
expect_err <<T
picltrace sort: $TMP/fifo.picl: --in-place needs a regular file, not a FIFO
T
rm -f "$TMP/fifo.picl"
run "$PT" sort --in-place /dev/null
expect_rc 2
expect_err <<'T'
picltrace sort: /dev/null: --in-place needs a regular file, not a device or socket
T

# Bad input: file:line:column, exit 2, no output.
printf '%s\n' '-3 -901 0 0 0 0' '-3 -901 zz 1 0 0' >"$TMP/bad.picl"
run "$PT" sort -o "$TMP/never.picl" "$TMP/bad.picl"
expect_rc 2
expect_err <<T
picltrace sort: $TMP/bad.picl:2:9: expected a timestamp (a decimal number), found "zz"
T
[ ! -e "$TMP/never.picl" ] || fail "output left behind"

# A full output device.
run "$PT" sort -o /dev/full "$TMP/in.picl"
expect_rc 2
grep -q 'No space left on device' "$TMP/err" || fail "full device not reported"

# A full temporary directory (a 128 KiB tmpfs; needs root and mount).
mkdir "$TMP/small"
if mount -t tmpfs -o size=128k tmpfs "$TMP/small" 2>/dev/null; then
  run "$PT" sort --memory=1M --tmpdir="$TMP/small" -o "$TMP/never.picl" "$TMP/big.picl"
  umount "$TMP/small"
  expect_rc 2
  grep -q 'No space left on device' "$TMP/err" || fail "full tmpdir not reported"
  [ ! -e "$TMP/never.picl" ] || fail "output left behind after a full tmpdir"
  # The mapped sort writing its output there.
  mount -t tmpfs -o size=128k tmpfs "$TMP/small"
  run "$PT" sort -o "$TMP/small/never.picl" "$TMP/big.picl"
  n=$(ls -A "$TMP/small" | wc -l)
  umount "$TMP/small"
  expect_rc 2
  expect_err <<T
picltrace sort: $TMP/small/never.picl: cannot write: No space left on device
T
  [ "$n" -eq 0 ] || fail "output left behind on a full device"
else
  echo "note: cannot mount a tmpfs here; full-tmpdir case not run"
fi

run "$PT" sort --memory=lots "$TMP/in.picl"
expect_rc 2
run "$PT" sort --help
expect_rc 0
grep -q '^usage: picltrace sort' "$TMP/out" || fail "help"

# Records are moved, not read, but definition records are read (to keep
# what records mean, defs.c): one whose data would not decode is an error
# of both sort paths and merge, as of cat, and nothing is written.
printf -- '-3 1 0 0 0 0\n-201 -1 0.5 -1 -1 3 1 5 1.5\n-6 -1 1 -1 -1 0\n' >"$TMP/defs.picl"
run "$PT" sort -o "$TMP/defs.out" "$TMP/defs.picl"
expect_rc 2
expect_err <<T
picltrace sort: $TMP/defs.picl:2:28: expected a word, found the end of the data (data field 3 of 3)
T
[ ! -e "$TMP/defs.out" ] || fail "sort of odd definitions (mapped) left output"
run sh -c "\"$PT\" sort <\"$TMP/defs.picl\""
expect_rc 2
expect_err <<T
picltrace sort: <stdin>:2:28: expected a word, found the end of the data (data field 3 of 3)
T
run "$PT" merge --no-header "$TMP/defs.picl"
expect_rc 2
expect_err <<T
picltrace merge: $TMP/defs.picl:2:28: expected a word, found the end of the data (data field 3 of 3)
T
# --check writes nothing and --in-place writes its input: both refuse -o,
# even -o - (which named standard output and was ignored)
cp "$TMP/in.picl" "$TMP/inplace.picl"
run "$PT" sort --in-place -o - "$TMP/inplace.picl"
expect_rc 2
grep -q -- "--in-place takes exactly one input file and no --output" "$TMP/err" ||
  fail "sort --in-place -o -: $(cat "$TMP/err")"
cmp -s "$TMP/in.picl" "$TMP/inplace.picl" || fail "sort --in-place -o - changed its input"
run "$PT" sort --check -o - "$TMP/in.picl"
expect_rc 2
grep -q -- "--check writes nothing" "$TMP/err" || fail "sort --check -o -: $(cat "$TMP/err")"

# --memory is a size, never negative: strtoull would take " -5" (blank
# first) as 2^64 - 5 bytes
for m in ' -5' ' -5M' '+-5' ' 5M'; do
  run "$PT" sort --memory="$m" -o "$TMP/neg.picl" "$TMP/in.picl"
  expect_rc 2
  grep -q -- "--memory takes a size of at least 1M" "$TMP/err" ||
    fail "sort --memory='$m': $(cat "$TMP/err")"
  [ ! -e "$TMP/neg.picl" ] || fail "sort --memory='$m' wrote its output"
done
echo "PASS: $ntest sort checks"
