#!/bin/sh
# 0973-process-subset-per-processor.sh - a -202 record defines a process
# subset "on the specified processor" (spec Table 2): two processors may give
# the same id other members, and a record resolves the id through its own
# processor's definition (else the one for every processor, -1). Checked
# through filter -P, validate's alias scopes and subset checks, and sort and
# merge, which must keep both definitions.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"

# -5 is {process 0} on processor 0 and {process 1} on processor 1.
cat >two.picl <<'T'
-202 -1 -0.1 0 -1 2 "%d" -5 0
-202 -1 -0.1 1 -1 2 "%d" -5 1
-3 -901 0.1 0 0 0
-3 -901 0.1 0 1 0
-3 -901 0.1 1 0 0
-3 -901 0.1 1 1 0
-4 -901 0.2 0 0 0
-4 -901 0.2 0 1 0
-4 -901 0.2 1 0 0
-4 -901 0.2 1 1 0
T
validate_ok two.picl

# filter -P -5 keeps (0, 0) and (1, 1): each processor's own -5.
run "$PT" filter -P -5 two.picl
expect_rc 0
awk '$1 == -3 || $1 == -4 { print $4, $5 }' "$TMP/out" | sort -u >kept
printf '0 0\n1 1\n' >expected
cmp -s kept expected || fail "filter -P -5 kept $(tr '\n' ';' <kept), not 0 0;1 1"

# The same -5 with a -1 definition for every other processor: processor 2
# takes that one.
{ sed -n 1,2p two.picl; echo '-202 -1 -0.1 -1 -1 2 "%d" -5 2'
  echo '-3 -901 0.1 2 2 0'; echo '-3 -901 0.1 2 0 0'
  echo '-4 -901 0.2 2 2 0'; echo '-4 -901 0.2 2 0 0'; } >wild.picl
run "$PT" filter -P -5 wild.picl
expect_rc 0
awk '$1 == -3 { print $4, $5 }' "$TMP/out" >kept
[ "$(cat kept)" = "2 2" ] || fail "filter -P -5 on processor 2 kept '$(cat kept)', not 2 2"

# A -202 on processor subset -3 (processors 0 and 1) defines -5 on each.
{ echo '-201 -1 -0.2 -1 -1 3 "%d" -3 0 1'; echo '-202 -1 -0.1 -3 -1 2 "%d" -5 1'
  sed -n '3,$p' two.picl; } >onsub.picl
validate_ok onsub.picl
run "$PT" filter -P -5 onsub.picl
expect_rc 0
awk '$1 == -3 || $1 == -4 { print $4, $5 }' "$TMP/out" | sort -u >kept
printf '0 1\n1 1\n' >expected2
cmp -s kept expected2 || fail "filter -P -5 after a -202 on processor subset -3 kept $(tr '\n' ';' <kept)"

# An alias scoped to process subset -5 on every processor: defined for
# (0, 0) and (1, 1), not for (1, 0), which only processor 0's -5 holds.
{ sed -n 1,2p two.picl; echo '-6 -1 -0.1 -1 -5 1 "%d%s" 9 "%d"'
  sed -n 3,6p two.picl
  echo '-2 7 0.15 0 0 1 9 5'; echo '-2 7 0.15 1 1 1 9 6'; echo '-2 7 0.15 1 0 1 9 7'
  sed -n 7,10p two.picl; } >alias.picl
run "$PT" validate alias.picl
expect_rc 1
expect_out <<'T'
alias.picl:10:17: alias-undefined: descriptor alias 9 is not defined for event 7 on processor 1, process 0
alias.picl: 14 records, 1 error, 0 warnings
T

# A record of processor 2, where no -5 is defined, names it.
{ cat two.picl; echo '-102 -1 0.3 2 -5 1 "%d%d" -901 0'; } >undef.picl
run "$PT" validate undef.picl
expect_rc 1
grep -q '^undef.picl:11:.*subset-undefined: process subset -5 is not defined on processor 2' "$TMP/out" ||
  fail "validate did not report -5 on processor 2: $(cat "$TMP/out")"

# A statistics record for process subset -5 on every processor (-1) sums
# each processor's own -5: (0, 0) with 1 send and (1, 1) with 2, not the
# 4 and 8 sends of (0, 1) and (1, 0); validate and stat --compare agree.
awk 'BEGIN {
  print "-202 -1 -0.1 0 -1 2 \"%d\" -5 0"; print "-202 -1 -0.1 1 -1 2 \"%d\" -5 1"
  n["0 0"] = 1; n["1 1"] = 2; n["0 1"] = 4; n["1 0"] = 8; t = 0.1
  for (k in n) print "-3 -901 0.0", k, 0
  for (k in n) for (i = 0; i < n[k]; i++) {
    printf "-3 -21 %.3f %s 0\n-4 -21 %.3f %s 0\n", t, k, t + 0.001, k; t += 0.002 }
  for (k in n) print "-4 -901 1.0", k, 0
  print "-102 -1 1.0 -1 -5 1 \"%d%d\" -21 3" }' >stats.picl
validate_ok stats.picl
run "$PT" stat --compare stats.picl
expect_rc 0
grep -q 'the statistics records agree with the events' "$TMP/out" ||
  fail "stat --compare: $(cat "$TMP/out")"

# sort and merge keep both definitions: no conflict, and the same meaning;
run "$PT" sort two.picl
expect_rc 0
[ "$(grep -c '^-202 ' "$TMP/out")" -eq 2 ] || fail "sort wrote $(grep -c '^-202 ' "$TMP/out") -202 records"
cp "$TMP/out" sorted.picl
run "$PT" filter -P -5 sorted.picl
expect_rc 0
awk '$1 == -3 || $1 == -4 { print $4, $5 }' "$TMP/out" | sort -u >kept
cmp -s kept expected || fail "after sort, filter -P -5 kept $(tr "\n" ";" <kept)"
grep -e '-202 -1 -0.1 0 ' -e ' 0 0 0$' two.picl >n0.picl
grep -e '-202 -1 -0.1 1 ' -e ' 1 1 0$' -e ' 1 0 0$' two.picl >n1.picl
run "$PT" merge n0.picl n1.picl
expect_rc 0
[ ! -s "$TMP/err" ] || fail "merge complained: $(cat "$TMP/err")"
# but a processor's own -5 redefined after its records is refused by sort,
# as one for every processor is (definitions are written first)
cat >late.picl <<'T'
-202 -1 -0.1 0 -1 2 "%d" -5 0
-3 -901 0.1 0 0 0
-3 -901 0.1 0 1 0
-202 -1 0.15 0 -1 2 "%d" -5 1
-4 -901 0.2 0 0 0
-4 -901 0.2 0 1 0
T
run "$PT" sort late.picl
expect_rc 2
expect_out </dev/null
grep -q '^picltrace sort: late.picl:4:1: subset -5 is defined again with other members than at late.picl:1' "$TMP/err" ||
  fail "sort did not refuse processor 0's late -5: $(cat "$TMP/err")"
