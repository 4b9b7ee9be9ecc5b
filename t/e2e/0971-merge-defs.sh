#!/bin/sh
# picltrace merge keeps what every record means through the definitions it
# uses: the inputs' definition records come out first (after the header),
# in the order of the inputs; a record whose alias resolves otherwise in
# the output than in its input (another input defined it differently, or a
# definition came after records) is written with its control string; a
# subset defined with other members by two inputs is refused.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

cd "$TMP"
# The audit's case: alias 6 is "%d" in n0 and "%s" in n1.
cat >n0.picl <<'T'
-6 -1 0 -1 -1 1 "%d%s" 6 "%d"
-2 3 1 0 -1 1 6 7
-2 3 3 0 -1 1 6 8
T
cat >n1.picl <<'T'
-6 -1 0 -1 -1 1 "%d%s" 6 "%s"
-2 3 2 1 -1 1 6 abc
-2 3 4 1 -1 1 6 def
T
run "$PT" merge -o m.picl n0.picl n1.picl
expect_rc 0
expect_err </dev/null
same_meaning m.picl n0.picl n1.picl
# the header, then both definitions in the order of the inputs
grep -v '^-30' m.picl | head -n 2 >defs.out
head -n 1 n0.picl >defs.want
head -n 1 n1.picl >>defs.want
cmp -s defs.out defs.want || fail "merge: definitions not first, in input order"
# the same through --unsorted, a merge in rounds (--memory) and stdin
run "$PT" merge --unsorted -o m2.picl n0.picl n1.picl
expect_rc 0
same_meaning m2.picl n0.picl n1.picl
run sh -c "\"$PT\" merge -o m3.picl n0.picl - <n1.picl"
expect_rc 0
same_meaning m3.picl n0.picl n1.picl

# Inputs that define the same: nothing rewritten.
sed 's/abc/7/; s/def/9/; s/"%s"$/"%d"/' n1.picl >n1same.picl
run "$PT" merge --no-header n0.picl n1same.picl
expect_rc 0
! grep -q '^-2 .*"%' "$TMP/out" || fail "merge of inputs defining the same rewrote records"
# ... and the definition is written once, as sort of the two concatenated
# writes it
[ "$(grep -c '^-6 ' "$TMP/out")" -eq 1 ] || fail "merge wrote the same definition twice: $(cat "$TMP/out")"
cat n0.picl n1same.picl >cat-same.picl
run "$PT" sort cat-same.picl
expect_rc 0
[ "$(grep -c '^-6 ' "$TMP/out")" -eq 1 ] || fail "sort wrote the same definition twice: $(cat "$TMP/out")"

# A definition after records in one input: written where the merge meets
# it; the other input's later records keep their meaning.
cat >l0.picl <<'T'
-2 3 1 0 -1 1 2 1
-6 -1 2 -1 -1 1 "%d%s" 2 "%s"
-2 3 3 0 -1 1 2 word
T
cat >l1.picl <<'T'
-2 3 2 1 -1 1 2 5
-2 3 4 1 -1 1 2 6
T
run "$PT" merge -o l.picl l0.picl l1.picl
expect_rc 0
same_meaning l.picl l0.picl l1.picl

# Subset -5 with other members in two inputs: refused, naming both, and
# no output left.
cat >s0.picl <<'T'
-201 -1 0 -1 -1 3 "%d" -5 1 2
-2 3 1 -5 -1 1 2 7
T
cat >s1.picl <<'T'
-201 -1 0 -1 -1 3 "%d" -5 3 4
-2 3 2 -5 -1 1 2 8
T
run "$PT" merge -o s.picl s0.picl s1.picl
expect_rc 2
expect_err <<T
picltrace merge: s1.picl:1:1: subset -5 is defined again with other members than at s0.picl:1, whose records would change meaning once definitions are written first; give it another id
T
[ ! -e s.picl ] || fail "merge: output left after a subset conflict"
# the same members twice are no conflict (in two files: merge refuses
# one file given twice)
cp s0.picl s0b.picl
run "$PT" merge -o s.picl s0.picl s0b.picl
expect_rc 0
same_meaning s.picl s0.picl s0b.picl

echo "PASS: $ntest merge definition checks"
