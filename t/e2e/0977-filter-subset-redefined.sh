#!/bin/sh
# picltrace filter -p with a processor subset that the trace redefines
# after its header: the -307 header record was written with the subset
# as the header defined it, so a record of a processor it left out,
# selected by the new definition, would make the output's header wrong
# (validate: header-processors). filter refuses it there, with where and
# why, and leaves no output file; a redefinition that keeps no such
# record, and -p by number, go through.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

# -5 is {2} in the header, {2,3} after processor 2's mark
cat >"$TMP/redef.picl" <<'T'
-301 -1 -1 -1 -1 4 0 late
-307 -1 -1 -1 -1 4 2 0 1 2 3
-201 -1 -1 -1 -1 2 2 -5 2
-3 -901 0 0 0 0
-3 -901 0 1 0 0
-3 -901 0 2 0 0
-3 -901 0 3 0 0
-2 7 0.2 2 0 0
-201 -1 0.25 -1 -1 3 2 -5 2 3
-2 7 0.3 3 0 0
-4 -901 0.4 0 0 0
-4 -901 0.4 1 0 0
-4 -901 0.4 2 0 0
-4 -901 0.4 3 0 0
T
validate_ok "$TMP/redef.picl"

# processor 3's mark (line 10) is selected by -5 as redefined
run "$PT" filter -p -5 -o "$TMP/out.picl" "$TMP/redef.picl"
expect_rc 2
expect_err <<T
picltrace filter: $TMP/redef.picl:10:1: a record of processor 3 would be kept, which the -307 header record written left out: a processor subset that -p names was redefined after the header; give -p its processors by number
T
[ ! -e "$TMP/out.picl" ] || fail "$last: left an output file"
# with -v (not selected: 0, 1 and 3 in the header, then 0 and 1) nothing
# to refuse: the records kept are all of processors the header lists
run "$PT" filter -v -p -5 -o "$TMP/out.picl" "$TMP/redef.picl"
expect_rc 0
grep -q -- '^-307 -1 -1 -1 -1 3 2 0 1 3$' "$TMP/out.picl" ||
	fail "$last: $(grep -- '^-307' "$TMP/out.picl")"
# with --pairs (two passes), processor 3's tracing entry (line 7) is kept
# too, for its exit's sake: refused there
rm "$TMP/out.picl"
run "$PT" filter --pairs -p -5 -o "$TMP/out.picl" "$TMP/redef.picl"
expect_rc 2
grep -q "redef.picl:7:1: a record of processor 3 would be kept" "$TMP/err" ||
	fail "$last: $(cat "$TMP/err")"
[ ! -e "$TMP/out.picl" ] || fail "$last: left an output file"

# Records of processor 3 not kept for another reason (--to before its
# mark): the header is right, nothing refused.
run "$PT" filter -p -5 --to=0.3 -o "$TMP/out.picl" "$TMP/redef.picl"
expect_rc 0
grep -q -- '^-307 -1 -1 -1 -1 1 2 2$' "$TMP/out.picl" ||
	fail "$last: $(grep -- '^-307' "$TMP/out.picl")"
! grep -q -- '^-[0-9]* [-0-9]* [.0-9]* 3 ' "$TMP/out.picl" || fail "$last: kept processor 3"

# -p by number names the processors of the output, whatever the subsets
run "$PT" filter -p 2,3 -o "$TMP/out.picl" "$TMP/redef.picl"
expect_rc 0
grep -q -- '^-307 -1 -1 -1 -1 2 2 2 3$' "$TMP/out.picl" ||
	fail "$last: $(grep -- '^-307' "$TMP/out.picl")"
validate_ok "$TMP/out.picl"

echo "PASS: $ntest runs of filter -p with a subset redefined after the header"
