#!/bin/sh
# picltrace merge: by exact time, stable by argument order, header records
# describing the inputs, --unsorted, order checked, hundreds of inputs with
# few file descriptors (merge in rounds).
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

printf '%s\n' '-3 -901 -0.25 0 0 0' '-3 -21 0.5 0 0 3 2 8 1 1' '-4 -901 0.75 0 0 0' >"$TMP/n0.picl"
printf '%s\n' '-3 -901 0.50 1 0 0' '-4 -52 0.5 1 0 3 2 8 1 0' '-4 -901 0.8 1 0 0' >"$TMP/n1.picl"
# Worked out by hand. Ties at 0.5: n0's record first (argument order), then
# n1's two in their own order. The header is stamped one unit of the
# earliest time's scale (0.01) before it (-0.25); "merged by picltrace
# merge from 2 inputs" is 39 characters; the -306 records hold the names;
# -307 lists processors 0 and 1 with alias 2 (%d).
l0=$(printf '%s' "$TMP/n0.picl" | wc -c)
run "$PT" merge "$TMP/n0.picl" "$TMP/n1.picl"
expect_rc 0
expect_out <<T
-301 -1 -0.26 -1 -1 39 0 merged by picltrace merge from 2 inputs
-306 -1 -0.26 -1 -1 $l0 0 $TMP/n0.picl
-306 -1 -0.26 -1 -1 $l0 0 $TMP/n1.picl
-307 -1 -0.26 -1 -1 2 2 0 1
-3 -901 -0.25 0 0 0
-3 -21 0.5 0 0 3 2 8 1 1
-3 -901 0.50 1 0 0
-4 -52 0.5 1 0 3 2 8 1 0
-4 -901 0.75 0 0 0
-4 -901 0.8 1 0 0
T
# The same from standard input (read once: the merged body goes through a
# temporary file before the header): the same records and header, the
# input named "-".
cp "$TMP/out" "$TMP/files.out"
run sh -c "\"$PT\" merge - \"$TMP/n1.picl\" <\"$TMP/n0.picl\""
expect_rc 0
sed '2s/.*/-306 -1 -0.26 -1 -1 1 0 -/' "$TMP/files.out" | diff - "$TMP/out" >&2 ||
  fail "merge with standard input: header or body differs"
# Argument order decides ties: the other way round.
run "$PT" merge --no-header "$TMP/n1.picl" "$TMP/n0.picl"
expect_rc 0
expect_out <<T
-3 -901 -0.25 0 0 0
-3 -901 0.50 1 0 0
-4 -52 0.5 1 0 3 2 8 1 0
-3 -21 0.5 0 0 3 2 8 1 1
-4 -901 0.75 0 0 0
-4 -901 0.8 1 0 0
T

# An unsorted input is refused with its line, unless --unsorted.
printf '%s\n' '-3 -901 1 2 0 0' '-4 -901 0.5 2 0 0' >"$TMP/n2.picl"
run "$PT" merge -o "$TMP/never.picl" "$TMP/n0.picl" "$TMP/n2.picl"
expect_rc 2
expect_err <<T
picltrace merge: $TMP/n2.picl:2:9: not sorted: time 0.5 comes after 1 (line 1); use --unsorted to sort the inputs first
T
[ ! -e "$TMP/never.picl" ] || fail "output left behind"
run "$PT" merge --unsorted --no-header "$TMP/n0.picl" "$TMP/n2.picl"
expect_rc 0
expect_out <<T
-3 -901 -0.25 0 0 0
-3 -21 0.5 0 0 3 2 8 1 1
-4 -901 0.5 2 0 0
-4 -901 0.75 0 0 0
-3 -901 1 2 0 0
T

# 300 per-node files with only 64 descriptors: merged in rounds, the same
# bytes as GNU sort's stable merge on the time field.
"$GEN" --seed 9 --procs 300 --records 30000 -o "$TMP/all.picl"
mkdir "$TMP/parts"
awk -v d="$TMP/parts" '{ f = sprintf("%s/p%04d.picl", d, $4 + 1); print > f; close(f) }' "$TMP/all.picl"
n=$(ls "$TMP/parts" | wc -l)
[ "$n" -ge 300 ] || fail "expected 300+ parts, got $n"
run sh -c "ulimit -n 64 && \"$PT\" merge --no-header -o \"$TMP/merged.picl\" \"$TMP\"/parts/*.picl"
expect_rc 0
LC_ALL=C sort -m -s -t' ' -k3,3g "$TMP"/parts/*.picl | cmp - "$TMP/merged.picl" || fail "300-way merge"
"$PT" sort --check "$TMP/merged.picl" || fail "merged output not sorted"
# ... and with the header: the same body after it; -307 lists every
# processor (0..299; p0000 holds the records of processor -1), -306 every
# input.
run sh -c "ulimit -n 64 && \"$PT\" merge -o \"$TMP/merged-h.picl\" \"$TMP\"/parts/*.picl"
expect_rc 0
grep -v '^-30[0-9] ' "$TMP/merged-h.picl" | cmp - "$TMP/merged.picl" || fail "300-way merge with header: body"
[ "$(grep -c '^-306 ' "$TMP/merged-h.picl")" -eq "$n" ] || fail "300-way merge: -306 records"
awk '$1 == -307 { ok = ($6 == 300 && $8 == 0 && $NF == 299) } END { exit !ok }' \
  "$TMP/merged-h.picl" || fail "300-way merge: -307 $(grep '^-307' "$TMP/merged-h.picl" | cut -c1-60)"

# --unsorted with 300 inputs and 64 descriptors: each is sorted into a run
# held open, and runs are merged as they reach the limit (all 300 were
# once opened at once: "Too many open files"). Shuffled per-node files.
mkdir "$TMP/shuf"
for f in "$TMP"/parts/*.picl; do
  awk 'BEGIN { srand(7) } { print rand() "\t" $0 }' "$f" | sort -k1,1 | cut -f2- >"$TMP/shuf/${f##*/}"
done
run sh -c "ulimit -n 64 && \"$PT\" merge --no-header --unsorted -o \"$TMP/merged-u.picl\" \"$TMP\"/shuf/*.picl"
expect_rc 0
cat "$TMP"/shuf/*.picl | "$PT" sort -q | cmp - "$TMP/merged-u.picl" ||
  fail "300-way --unsorted merge differs from a stable sort of the inputs in order"

# The merge's header comes before the inputs' own header records too, and
# its time is one the reader takes back; a header record after events is
# an unsorted input.
printf -- '-301 -1 -5 -1 -1 3 0 abc\n-3 -901 0 0 0 0\n-4 -901 1 0 0 0\n' >"$TMP/h.picl"
run "$PT" merge "$TMP/h.picl"
expect_rc 0
[ "$(head -n 1 "$TMP/out" | cut -d' ' -f1,3)" = "-301 -6" ] || fail "merge header time: $(head -n 1 "$TMP/out")"
"$PT" validate --sorted "$TMP/out" >/dev/null || fail "merge with input headers: not sorted"
run sh -c "\"$PT\" merge - <\"$TMP/h.picl\""
expect_rc 0
[ "$(head -n 1 "$TMP/out" | cut -d' ' -f3)" = "-6" ] || fail "merge header time (stdin): $(head -n 1 "$TMP/out")"
printf -- '-3 1 -0.999999999999999999 0 0 0\n' >"$TMP/e.picl"
run "$PT" merge -o "$TMP/e-m.picl" "$TMP/e.picl"
expect_rc 0
"$PT" cat "$TMP/e-m.picl" >/dev/null || fail "merge wrote a header time it cannot read back"
printf -- '-3 1 1 0 0 0\n-301 -1 0 -1 -1 1 0 x\n-3 1 2 0 0 0\n' >"$TMP/m.picl"
run "$PT" merge --no-header "$TMP/m.picl"
expect_rc 2
grep -q 'm.picl:2:1: not sorted: header record -301 after the event records' "$TMP/err" ||
  fail "late header: $(cat "$TMP/err")"

# Many processors in random order (the header's set of them once moved
# half a sorted array per new id: a million took minutes): -307 lists
# exactly the processors seen (not -1), in increasing order, 65536 a record
# at most so that every record stays under the readers' 1 MiB limit, and
# the output reads back. 300000 ids up to 2.1e9, a permutation (7919 is
# prime to 300000), over two sorted inputs.
awk 'BEGIN { n = 300000
  for (i = 0; i < n; i++) {
    p = (i * 7919 + 11) % n * 7000
    print "-3 -901 " i " " (i % 1000 == 0 ? -1 : p) " 0 0" > (i % 2 ? ARGV[2] : ARGV[1])
  } }' "$TMP/pa.picl" "$TMP/pb.picl"
awk '$4 >= 0 { print $4 }' "$TMP/pa.picl" "$TMP/pb.picl" | sort -n -u >"$TMP/procs.want"
check_procs() { # OUT LABEL
  awk '$1 == -307 { if ($6 != NF - 7 || $6 > 65536 || $7 != 2) bad = 1; for (i = 8; i <= NF; i++) print $i }
    END { exit bad }' "$1" >"$TMP/procs.got" || fail "$2: malformed -307 record"
  cmp "$TMP/procs.want" "$TMP/procs.got" || fail "$2: -307 does not list the processors seen"
  [ "$(grep -c '^-307 ' "$1")" -eq 5 ] || fail "$2: expected 5 -307 records"
  "$PT" cat "$1" | cmp - "$1" || fail "$2: the output does not read back"
}
run "$PT" merge -o "$TMP/pm.picl" "$TMP/pa.picl" "$TMP/pb.picl"
expect_rc 0
check_procs "$TMP/pm.picl" "many processors"
LC_ALL=C sort -m -s -t' ' -k3,3g "$TMP/pa.picl" "$TMP/pb.picl" >"$TMP/pm.want"
grep -v '^-30[0-9] ' "$TMP/pm.picl" | cmp - "$TMP/pm.want" || fail "many processors: body"
# ... and read once (standard input): the set is made during the merge.
run sh -c "\"$PT\" merge -o \"$TMP/pm-s.picl\" - \"$TMP/pb.picl\" <\"$TMP/pa.picl\""
expect_rc 0
check_procs "$TMP/pm-s.picl" "many processors (standard input)"

# Out of memory while listing the processors is an error, not a shorter
# -307: exit 2, said so, no output left. A million processors need 16 MB
# of set; the limit is the least address space (to 2 MB) in which the merge
# without header succeeds. Skipped when no limit lets it run (sanitizers
# reserve terabytes of address space).
awk 'BEGIN { n = 1000000; for (i = 0; i < n; i++) print "-3 -901 " i " " (i * 7919) % n " 0 0" }' \
  >"$TMP/pm1.picl"
lo=2048 hi=131072
run sh -c "ulimit -v $hi && PICL_THREADS=1 \"$PT\" merge -q --no-header -o \"$TMP/oom.picl\" \"$TMP/pm1.picl\""
if [ "$rc" -eq 0 ]; then
  while [ $((hi - lo)) -gt 2048 ]; do
    mid=$(((lo + hi) / 2))
    if (ulimit -v $mid && PICL_THREADS=1 "$PT" merge -q --no-header -o "$TMP/oom.picl" \
        "$TMP/pm1.picl") 2>/dev/null; then hi=$mid; else lo=$mid; fi
  done
  rm -f "$TMP/oom.picl"
  for how in file stdin; do
    if [ $how = file ]; then src="\"$TMP/pm1.picl\""; else src="- <\"$TMP/pm1.picl\""; fi
    run sh -c "ulimit -v $hi && PICL_THREADS=1 \"$PT\" merge -q -o \"$TMP/oom.picl\" $src"
    expect_rc 2
    grep -q '^picltrace merge: out of memory listing the processors for the header' "$TMP/err" ||
      fail "out of memory ($how, ulimit -v $hi): $(cat "$TMP/err")"
    [ -z "$(ls -A "$TMP" | grep oom)" ] ||
      fail "out of memory ($how): output left behind"
  done
else
  echo "note: the merge does not run under ulimit -v $hi (sanitizers?): out-of-memory check skipped"
fi

# --memory bounds a merge whatever the number of inputs (the whole
# process, as /usr/bin/time sees its peak): 400 tiny inputs sorted into
# 400 runs (all readers of a round once held 2 MiB each, as glibc cleared
# reused heap for their buffers: 320 MB), and 121 of about 200 KB each,
# zstd runs read at most as many at once as their decoders fit (77 MB).
if [ -n "${ASAN_OPTIONS:-}" ]; then
  echo "note: sanitizer build (shadow memory); memory bound not measured here"
elif [ -x /usr/bin/time ]; then
  mkdir "$TMP/tiny" "$TMP/med"
  awk -v d="$TMP/tiny" 'BEGIN { for (i = 0; i < 400; i++) { f = sprintf("%s/t%03d.picl", d, i)
    print "-3 -901 0." (i % 7 + 1) " " i " 0 0\n-4 -901 0." i % 5 " " i " 0 0\n-3 -21 0.9 " i " 0 0" > f
    close(f) } }'
  "$GEN" --seed 5 --procs 120 --size 24M --unsorted |
    awk -v d="$TMP/med" '{ f = sprintf("%s/p%04d.picl", d, $4 + 1); print > f }'
  for set in tiny med; do
    run /usr/bin/time -f '%M' -o "$TMP/peak" "$PT" merge -q -u -m 32M -T "$TMP" \
      -o "$TMP/$set.out" "$TMP/$set"/*.picl
    expect_rc 0
    peak=$(tail -n 1 "$TMP/peak")
    [ "$peak" -le 32768 ] || fail "merge -u -m 32M of $set inputs: peak memory ${peak} KB"
    cat "$TMP/$set"/*.picl | "$PT" sort -q >"$TMP/$set.want"
    grep -v '^-30[0-9] ' "$TMP/$set.out" | cmp - "$TMP/$set.want" ||
      fail "merge -u -m 32M of $set inputs differs from a stable sort of them in order"
  done
  rm -rf "$TMP/tiny" "$TMP/med" "$TMP"/*.out "$TMP"/*.want
else
  echo "note: /usr/bin/time absent; memory bound not measured"
fi

# zstd inputs and output; bad option; help.
zstd -q -c "$TMP/n0.picl" >"$TMP/n0.zst"
run sh -c "\"$PT\" merge --no-header -z \"$TMP/n0.zst\" \"$TMP/n1.picl\" | zstd -d -c"
expect_rc 0
[ "$(wc -l <"$TMP/out")" -eq 6 ] || fail "zstd merge"
run "$PT" merge
expect_rc 2
head -n 1 "$TMP/err" | grep -qx 'picltrace merge: no input given ("-" reads standard input)' ||
  fail "$last: $(head -n 1 "$TMP/err")"
# (from here on, in $TMP)
cd "$TMP"

# Hundreds of sorted inputs under a small descriptor limit: merged in
# parts of consecutive inputs, a few runs open at once; ties in argument
# order, as GNU sort -s has them.
mkdir lim
i=0
while [ $i -lt 300 ]; do
  printf -- '-2 1 1.5 %d 0 0\n-2 3 %d.25 %d 0 0\n' $i $((i % 7 + 2)) $i >lim/n$((1000 + i)).picl
  i=$((i + 1))
done
cat lim/n*.picl | LC_ALL=C sort -s -t' ' -k3,3g >lim.want
(ulimit -n 24 && "$PT" merge -q --no-header -o lim.got lim/n*.picl) ||
  fail "merge of 300 inputs under ulimit -n 24"
cmp -s lim.want lim.got || fail "merge of 300 inputs under ulimit -n 24: order"
# Under far fewer descriptors than a merge tree of 300 inputs holds: an
# error that says which limit to raise, and no output left. (Not under
# the sanitizers, whose exit-time leak check needs descriptors too.)
if [ -z "${ASAN_OPTIONS:-}" ]; then
  run sh -c "ulimit -n 10 && \"$PT\" merge -q --no-header -o lim.few lim/n*.picl"
  expect_rc 2
  grep -q "Too many open files" "$TMP/err" && grep -q "raise 'ulimit -n'" "$TMP/err" ||
    fail "$last: $(cat "$TMP/err")"
  [ ! -e lim.few ] || fail "$last: left lim.few"
fi

# Header edge cases: the earliest time the format can write has nothing
# before it (the header takes that time); a file name with a newline or a
# final backslash is written with '?' there, and the output reads back.
printf -- '-2 1 -999999999999999999 0 0 0\n' >h5.picl
run "$PT" merge h5.picl
expect_rc 0
[ "$(sed -n 1p "$TMP/out" | cut -d' ' -f3)" = -999999999999999999 ] || fail "$last: header time"
printf -- '-2 1 1 0 0 0\n' >'x \'
printf -- '-2 1 2 0 0 0\n' >"$(printf 'a\nb')"
run "$PT" merge -o names.picl 'x \' "$(printf 'a\nb')"
expect_rc 0
[ "$(grep -c '^-306 -1 0 -1 -1 3 0 \(x ?\|a?b\)$' names.picl)" -eq 2 ] || fail "$last: $(cat names.picl)"
run "$PT" cat names.picl
expect_rc 0
[ "$(wc -l <"$TMP/out")" -eq 6 ] || fail "names.picl does not read back"

run "$PT" merge --help
expect_rc 0
grep -q '^usage: picltrace merge' "$TMP/out" || fail "help"
echo "PASS: $ntest merge checks"
