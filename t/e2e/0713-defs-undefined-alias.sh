#!/bin/sh
# A record whose alias number is not defined where it stands means nothing
# there (cat refuses it). Sort and merge write definitions first, so a
# definition after such a record (sort: a trace written in flush order) or
# another input's (merge: per-node files with the definitions in one) may
# apply to it in the output. That meaning is kept, and a warning names the
# first such record (file:line:column) and, for sort, the definition's
# line; exit 0, once only, every sorter alike. Such a record that no
# definition reaches (another alias number, another scope) is left as it
# is, without a warning.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

cd "$TMP"
# warned CMD... : exit 0, the warning (want.err) once, the output want.out
warned() {
  run "$@"
  expect_rc 0
  cmp -s "$TMP/err" want.err || fail "$*: $(cat "$TMP/err")"
  cmp -s "$TMP/out" want.out || fail "$*: output $(cat "$TMP/out")"
}

# The records of lines 1, 3 and 4 use alias 6; the -6 of line 2 defines
# it (the records after it are written with its control string, as always
# after a definition that follows an event record).
cat >u.picl <<'T'
-2 1 0.5 0 0 1 6 2.5
-6 -1 0 -1 -1 1 "%d%s" 6 "%lf"
-2 1 0.4 0 0 1 6 1.5
-2 2 0.6 0 0 1 6 3.5
T
cp u.picl u.orig
run "$PT" cat u.picl
expect_rc 2
grep -q 'u.picl:1:16: .*alias 6 is not defined' "$TMP/err" || fail "cat: $(cat "$TMP/err")"
cat >want.out <<'T'
-6 -1 0 -1 -1 1 "%d%s" 6 "%lf"
-2 1 0.4 0 0 1 "%lf" 1.5
-2 1 0.5 0 0 1 6 2.5
-2 2 0.6 0 0 1 "%lf" 3.5
T
msg='descriptor alias 6 is not defined for event 1 on processor 0, process 0 where this record stands; in the output, where definitions come first, the definition at line 2 applies to it (other such records are not named)'
echo "picltrace sort: warning: u.picl:1:16: $msg" >want.err
warned "$PT" sort u.picl
warned "$PT" sort --memory=1M --tmpdir="$TMP" u.picl
echo "picltrace sort: warning: <stdin>:1:16: $msg" >want.err
warned sh -c "\"$PT\" sort <u.picl"
"$PT" cat "$TMP/out" >/dev/null || fail "the sorted trace does not read back"
echo "picltrace merge: warning: u.picl:1:16: $msg" >want.err
run "$PT" merge --unsorted u.picl
expect_rc 0
cmp -s "$TMP/err" want.err || fail "merge --unsorted: $(cat "$TMP/err")"
cmp -s u.picl u.orig || fail "the input changed"

# Another alias (7) used before its definition, after a definition of 6.
cat >u2.picl <<'T'
-6 -1 0 -1 -1 1 "%d%s" 6 "%d"
-2 1 0.5 0 0 1 6 2
-2 1 0.7 0 0 1 7 2.5
-6 -1 0 -1 -1 1 "%d%s" 7 "%lf"
-2 1 0.6 0 0 1 6 3
T
cat >want.out <<'T'
-6 -1 0 -1 -1 1 "%d%s" 6 "%d"
-6 -1 0 -1 -1 1 "%d%s" 7 "%lf"
-2 1 0.5 0 0 1 6 2
-2 1 0.6 0 0 1 "%d" 3
-2 1 0.7 0 0 1 7 2.5
T
cat >want.err <<'T'
picltrace sort: warning: u2.picl:3:16: descriptor alias 7 is not defined for event 1 on processor 0, process 0 where this record stands; in the output, where definitions come first, the definition at line 4 applies to it (other such records are not named)
T
warned "$PT" sort u2.picl

# Merge: u0's record uses alias 6, which u1's -6 (time 0) defines; the
# merge writes that definition before u0's record.
printf -- '-2 1 0.5 0 0 1 6 2.5\n' >u0.picl
printf -- '-6 -1 0 -1 -1 1 "%%d%%s" 6 "%%lf"\n-2 1 0.25 1 0 1 6 1.5\n' >u1.picl
cat >want.out <<'T'
-301 -1 -1 -1 -1 39 0 merged by picltrace merge from 2 inputs
-306 -1 -1 -1 -1 7 0 u1.picl
-306 -1 -1 -1 -1 7 0 u0.picl
-307 -1 -1 -1 -1 2 2 0 1
-6 -1 0 -1 -1 1 "%d%s" 6 "%lf"
-2 1 0.25 1 0 1 6 1.5
-2 1 0.5 0 0 1 6 2.5
T
cat >want.err <<'T'
picltrace merge: warning: u0.picl:1:16: descriptor alias 6 is not defined for event 1 on processor 0, process 0 where this record stands; in the output, a definition of another input, written before it, applies to it (other such records are not named)
T
warned "$PT" merge u1.picl u0.picl

# Left as they are, without a warning: an alias no definition gives (7),
# one defined later for another event only (6 for event 5; the record is
# event 1), and a record the merge writes before the definition (u0's,
# before u7's -6, which follows an event record of u7).
cat >u3.picl <<'T'
-6 -1 0 -1 -1 1 "%d%s" 6 "%d"
-2 1 0.7 0 0 1 7 2.5
-2 1 0.5 0 0 1 6 2
T
cat >want.out <<'T'
-6 -1 0 -1 -1 1 "%d%s" 6 "%d"
-2 1 0.5 0 0 1 6 2
-2 1 0.7 0 0 1 7 2.5
T
: >want.err
warned "$PT" sort u3.picl
cat >u4.picl <<'T'
-2 1 0.5 0 0 1 6 2.5
-6 5 0 -1 -1 1 "%d%s" 6 "%lf"
-2 5 0.4 0 0 1 6 1.5
T
cat >want.out <<'T'
-6 5 0 -1 -1 1 "%d%s" 6 "%lf"
-2 5 0.4 0 0 1 "%lf" 1.5
-2 1 0.5 0 0 1 6 2.5
T
warned "$PT" sort u4.picl
printf -- '-2 1 0.75 1 0 1 2 7\n-6 -1 0.8 -1 -1 1 "%%d%%s" 6 "%%lf"\n' >u7.picl
run "$PT" merge u0.picl u7.picl
expect_rc 0
expect_err </dev/null
grep -q '^-2 1 0.5 0 0 1 6 2.5$' "$TMP/out" || fail "merge u0 u7: $(cat "$TMP/out")"
echo "PASS: $ntest checks of records whose alias is not defined where they stand"
