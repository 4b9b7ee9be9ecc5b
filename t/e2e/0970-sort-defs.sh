#!/bin/sh
# picltrace sort keeps what every record means through the definitions it
# uses (-6 aliases, -201..-203 subsets apply to the records after them):
# definition records come out after the header records, before every event
# record, in input order; a record whose alias would resolve otherwise
# there is written with its control string; a subset redefined with other
# members after event records is refused. The mapped sorter (msort.c), the
# copying one (runs.c, also spilling under a small --memory) and standard
# input agree; a trace whose definitions all come first sorts as before.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

cd "$TMP"
# The audit's trace: a -6 after a record, then a record of an earlier time
# that uses it.
cat >s.picl <<'T'
-2 3 2 4 -1 1 2 7
-6 -1 5 -1 -1 1 "%d%s" 6 "%lf"
-2 3 6 3 -1 1 6 2.5
-2 3 1 4 -1 1 6 1.5
T
run "$PT" cat s.picl
expect_rc 0
run "$PT" sort s.picl -o s2.picl
expect_rc 0
expect_err </dev/null
same_meaning s2.picl s.picl
head -n 1 s2.picl | grep -q '^-6 ' || fail "sort: the definition is not written first"
# standard input (runs.c) and a spilling --memory write the same
run sh -c "\"$PT\" sort <s.picl"
expect_rc 0
cmp -s "$TMP/out" s2.picl || fail "sort of standard input differs from the mapped file's"
# sorted means sorted records: --check takes no definition's time for one
run "$PT" sort --check s2.picl
expect_rc 0
run "$PT" sort --check s.picl
expect_rc 1
# ... nor does validate --sorted (a definition applies where it stands)
run "$PT" validate --sorted --format=json s2.picl
grep -q '"rule":"time-order"' "$TMP/out" && fail "validate --sorted: $(cat "$TMP/out")"
grep -q '"rule":"tracing-first-last"' "$TMP/out" || fail "validate --sorted: $(cat "$TMP/out")"

# A subset defined after a record, used by a record of an earlier time.
cat >sub.picl <<'T'
-2 3 2 4 -1 1 2 7
-201 -1 5 -1 -1 3 "%d" -5 1 2
-2 3 6 -5 -1 1 2 8
-2 3 1 -5 -1 1 2 9
T
run "$PT" cat sub.picl
expect_rc 0
run "$PT" sort -o sub2.picl sub.picl
expect_rc 0
same_meaning sub2.picl sub.picl

# Definitions in front of every record but with later times (the mapped
# sorter keeps them aside): written first, records left as they are.
cat >front.picl <<'T'
-6 -1 5 -1 -1 1 "%d%s" 6 "%lf"
-201 -1 5 -1 -1 3 "%d" -5 1 2
-2 3 6 -5 -1 1 6 2.5
-2 3 1 4 -1 1 6 1.5
T
run "$PT" sort -o front2.picl front.picl
expect_rc 0
same_meaning front2.picl front.picl
{ head -n 2 front.picl; tail -n 1 front.picl; sed -n 3p front.picl; } >front.want
cmp -s front2.picl front.want || fail "sort of front definitions: $(cat front2.picl)"
run sh -c "\"$PT\" sort <front.picl"
cmp -s "$TMP/out" front.want || fail "sort of front definitions from standard input"

# A redefinition after records, many records before and after it, sorted in
# memory (mapped: msort gives it to runs.c) and spilled (--memory 1M: half
# a MB for the records, a MB of them). Alias 6 is "%d" for the first
# records (2 alias scopes: every event, and event 4 on processor 1) and "%s"
# after the redefinition, whose records interleave with them by time.
awk 'BEGIN {
  print "-6 -1 0 -1 -1 1 \"%d%s\" 6 \"%d\""
  print "-6 4 0 1 -1 1 \"%d%s\" 6 \"%ld\""
  for (k = 0; k < 20000; k++) printf "-2 %d %d.%03d %d 0 1 6 %d\n", 3 + k % 2, 20000 - k, k % 1000, k % 3, k
  print "-6 -1 0.5 -1 -1 1 \"%d%s\" 6 \"%s\""
  for (k = 0; k < 20000; k++) printf "-2 3 %d.%03d 1 0 1 6 w%d\n", 20000 - k, (k + 500) % 1000, k
  print "-2 3 0.25 1 0 1 2 5"
}' >late.picl
[ "$(wc -c <late.picl)" -gt 1000000 ] || fail "late.picl is too small to spill"
run "$PT" sort -o late2.picl late.picl
expect_rc 0
same_meaning late2.picl late.picl
run "$PT" sort -m 1M -o late3.picl late.picl
expect_rc 0
cmp -s late2.picl late3.picl || fail "sort -m 1M differs from sort in memory"
run sh -c "\"$PT\" sort -m 1M <late.picl >late4.picl"
expect_rc 0
cmp -s late2.picl late4.picl || fail "sort -m 1M of standard input differs"
run "$PT" sort --check late2.picl
expect_rc 0

# A subset redefined with other members after records that use it: no
# rewriting keeps both meanings; refused, naming both definitions, and no
# output left.
cat >conf.picl <<'T'
-201 -1 0 -1 -1 3 "%d" -5 1 2
-2 3 2 -5 -1 1 2 7
-201 -1 5 -1 -1 3 "%d" -5 3 4
-2 3 1 -5 -1 1 2 8
T
run "$PT" cat conf.picl
expect_rc 0
for memory in "" "-m 1M"; do
  # shellcheck disable=SC2086
  run "$PT" sort $memory -o conf2.picl conf.picl
  expect_rc 2
  expect_err <<T
picltrace sort: conf.picl:3:1: subset -5 is defined again with other members than at conf.picl:1, whose records would change meaning once definitions are written first; give it another id
T
  [ ! -e conf2.picl ] || fail "sort $memory: output left after a subset conflict"
done
# the same definition again is no conflict, nor a reason to rewrite
sed 's/-5 3 4$/-5 1 2/' conf.picl >same.picl
run "$PT" sort -o same2.picl same.picl
expect_rc 0
same_meaning same2.picl same.picl

# Definitions all in front, with the earliest times: byte for byte what it
# was (gen-trace's traces define alias 6 first).
"$GEN" --procs 2 --seed 7 --records 3000 -o gen.picl
grep -q '^-6 ' gen.picl || fail "gen-trace wrote no definition"
run "$PT" sort -o gen2.picl gen.picl
expect_rc 0
cmp gen.picl gen2.picl >&2 || fail "sort of a sorted trace with its definitions first changed it"
run "$PT" sort -m 1M -o gen3.picl gen.picl
expect_rc 0
cmp gen.picl gen3.picl >&2 || fail "sort -m 1M of a sorted trace with its definitions first changed it"

echo "PASS: $ntest sort definition checks"
