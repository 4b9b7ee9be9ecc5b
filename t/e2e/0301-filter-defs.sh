#!/bin/sh
# picltrace filter: definitions and the header as a filtered trace needs
# them. A processor subset -p names that the trace defines only after its
# header may select any processor: the header's -307 records (the
# processors of the trace) stay whole, so that the output's records all
# come from processors it lists (validate: header-processors).
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

# findings of validate, by kind
kinds() {
  "$PT" validate --max-errors=0 "$1" | sed -n 's/^[^ ]*: \([a-z-]*\): .*/\1/p' | sort -u
}

cat >"$TMP/late.picl" <<'T'
-301 -1 -1 -1 -1 4 0 late
-307 -1 -1 -1 -1 4 2 0 1 2 3
-201 -1 -1 -1 -1 2 2 -5 2
-3 -901 0 1 0 0
-201 -1 0 -1 -1 2 2 -9 0
-3 -901 0 0 0 0
-3 -901 0 2 0 0
-3 -901 0 3 0 0
-2 7 0.2 0 0 0
-2 7 0.2 1 0 0
-2 7 0.2 2 0 0
-2 7 0.2 3 0 0
-4 -901 0.3 0 0 0
-4 -901 0.3 1 0 0
-4 -901 0.3 2 0 0
-4 -901 0.3 3 0 0
T
validate_ok "$TMP/late.picl"

# -9, defined after the header, takes processor 0 in: the -307 stays whole
# and the output is as valid as the input
run "$PT" filter -p 1,-9 "$TMP/late.picl"
expect_rc 0
expect_out <<'T'
-301 -1 -1 -1 -1 4 0 late
-307 -1 -1 -1 -1 4 2 0 1 2 3
-201 -1 -1 -1 -1 2 2 -5 2
-3 -901 0 1 0 0
-201 -1 0 -1 -1 2 2 -9 0
-3 -901 0 0 0 0
-2 7 0.2 0 0 0
-2 7 0.2 1 0 0
-4 -901 0.3 0 0 0
-4 -901 0.3 1 0 0
T
cp "$TMP/out" "$TMP/late.out"
validate_ok "$TMP/late.out"
# the same with -v (those not selected: unknown too), with --pairs, from a pipe
run "$PT" filter -v -p -9 - <"$TMP/late.picl"
expect_rc 0
grep -q -- '^-307 -1 -1 -1 -1 4 2 0 1 2 3$' "$TMP/out" || fail "$last: $(grep -- '^-307' "$TMP/out")"
run "$PT" filter --pairs -p 1,-9 - <"$TMP/late.picl"
expect_rc 0
cmp "$TMP/out" "$TMP/late.out" || fail "$last: differs from without --pairs"

# A subset the header defines selects as before: -5 = {2}.
run "$PT" filter -p -5 -t mark "$TMP/late.picl"
expect_rc 0
expect_out <<'T'
-301 -1 -1 -1 -1 4 0 late
-307 -1 -1 -1 -1 1 2 2
-201 -1 -1 -1 -1 2 2 -5 2
-201 -1 0 -1 -1 2 2 -9 0
-2 7 0.2 2 0 0
T
