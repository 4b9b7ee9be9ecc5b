#!/bin/sh
# picltrace filter -g / --grep-data: a pattern looks at the data text as
# the output has it (single blanks between values), so that it keeps the
# same records of a trace and of its canonical copy (picltrace cat):
# extra blanks, a tab or a continuation line in the input change nothing
# (but inside a control string, and in character data).
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"

tab=$(printf '\t')
{
  echo '-6 -1 0 -1 -1 1 "%d%s" 7 "%d %lf"'
  echo '-6 -1 0 -1 -1 1 "%d%s" 9 "%s"'
  echo '-6 -1 0 -1 -1 1 "%d%s"   8    "%d  %d"'
  echo '0 5 0.1 1 0 1 7 3    2.5'
  echo "0 5 0.2 1 0 1 7 3${tab}2.5"
  echo '0 5 0.3 1 0 2 7 3 \'
  echo '2.5   4 1.5'
  echo '0 5 0.4 1 0 1 7 3 2.5'
  echo '-5 3 0.5 0 0 2 9 abc   d'
  echo '-5 3 0.6 0 0 2 9 abc d'
  echo '-7 -1 0.7 0 0 11 0 abc   d x y'
} >raw.picl
"$PT" cat raw.picl >canon.picl
cmp -s raw.picl canon.picl && fail "the test trace should not be canonical"

for pat in '^3 2\.5$' '3 2\.5 4' '^abc d$' 'abc {3}d' '^[0-9.]+ [0-9.]+$' \
           '^8 "%d  %d"$'; do
  run "$PT" filter -q --no-defs --grep-data -g "$pat" canon.picl
  expect_rc 0
  cp "$TMP/out" want
  [ -s want ] || [ "$pat" = 'abc {3}d' ] || fail "$last kept nothing"
  run "$PT" filter -q --no-defs --grep-data -g "$pat" raw.picl
  expect_rc 0
  cmp -s "$TMP/out" want || { diff want "$TMP/out" >&2; fail "$last: other records than in the canonical copy"; }
  run "$PT" filter -q --no-defs -t label,message -g "$pat" raw.picl
  expect_rc 0
  cp "$TMP/out" got
  run "$PT" filter -q --no-defs -t label,message -g "$pat" canon.picl
  cmp -s "$TMP/out" got || { diff "$TMP/out" got >&2; fail "$last: labels differ from the raw trace's"; }
done
# The characters of %c data are their own: blanks inside them count.
run "$PT" filter -q --no-defs -g 'abc {3}d' raw.picl
expect_out <<'T'
-7 -1 0.7 0 0 11 0 abc   d x y
T

# Data that do not decode (alias 8 is not defined) are matched as they
# stand: a record left out is not checked (that is validate's job), one
# kept is refused with file:line:column.
printf '%s\n' '0 5 0.1 1 0 1 8 3    2.5' '0 5 0.2 1 0 1 2 7' >undef.picl
run "$PT" filter -q --grep-data -g '^7$' undef.picl
expect_rc 0
expect_out <<'T'
0 5 0.2 1 0 1 2 7
T
run "$PT" filter -q --grep-data -g '^3 ' undef.picl
expect_rc 2
expect_err <<'T'
picltrace filter: undef.picl:1:15: descriptor alias 8 is not defined for event 5 on processor 1, process 0
T

# Literal text in a control string: the writer puts a blank before a value
# that follows it ("%d,%d" with 1,2 is written "1, 2"), so single-spaced
# data are not always what it writes. A pattern keeps the same records of
# the trace and of its canonical copy, and what filter writes is that copy,
# for explicit control strings and for aliases a -6 defines so.
{
  echo '-6 -1 0 -1 -1 1 "%d%s" 6 "x=%d"'
  echo '-2 5 0.1 0 0 1 "%d,%d" 1,2'
  echo '-2 5 0.2 0 0 1 6 x=5'
  echo '-2 5 0.3 0 0 1 2 5'
  echo '-2 5 0.4 0 0 1 "%d;" 7;'
} >lit.picl
"$PT" cat lit.picl >lit-canon.picl
grep -q '^-2 5 0.1 0 0 1 "%d,%d" 1, 2$' lit-canon.picl || fail "cat: $(cat lit-canon.picl)"
for pat in '^1,2$' '^1, 2$' '^x= 5$' '^x=5$' '^7;$' '^5$'; do
  run "$PT" filter -q --grep-data -g "$pat" lit.picl
  expect_rc 0
  cp "$TMP/out" lit.got
  run "$PT" filter -q --grep-data -g "$pat" lit-canon.picl
  expect_rc 0
  cmp -s "$TMP/out" lit.got || fail "--grep-data -g '$pat': the trace keeps $(cat lit.got), its canonical copy $(cat "$TMP/out")"
done
run "$PT" filter -q --grep-data -g '^1, 2$' lit.picl
expect_out <<'T'
-6 -1 0 -1 -1 1 "%d%s" 6 "x=%d"
-2 5 0.1 0 0 1 "%d,%d" 1, 2
T
run "$PT" filter -q -t -2 lit.picl
cmp -s "$TMP/out" lit-canon.picl || fail "filter's output is not cat's: $(cat "$TMP/out")"
