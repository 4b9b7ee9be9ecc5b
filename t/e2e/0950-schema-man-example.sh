#!/bin/sh
# 0950-schema-man-example.sh - the user schema that picl-schema(5) shows,
# pasted from the page: it loads, validate then checks the data of user
# event 7 and user record type 3 by it and names them, and stat and plot
# read a trace that uses them and, given the schema, name them too.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"

# The example: the lines between .nf and .fi after "A user schema that
# describes", with the page's \- made -.
sed -n '/^A user schema that describes/,/^\.fi/p' "$PICL_SRCDIR/man/picl-schema.5" |
  sed -n '/^\.nf/,/^\.fi/p' | sed '1d;$d' | sed 's/\\-/-/g' >user.yaml
grep -q '^events:' user.yaml || fail "no example found in picl-schema.5"
grep -q 'type: 7' user.yaml && grep -q 'type: 3' user.yaml ||
  fail "the example no longer describes event 7 and record 3: $(cat user.yaml)"

# A trace that uses them as the example says: the entry of 7 has one "%d",
# record 3 one "%lf".
cat >good.picl <<'T'
-3 -901 0.000000 0 0 0
-3 7 0.000010 0 0 1 "%d" 5
3 7 0.000015 0 0 1 "%lf" 0.125
-4 7 0.000020 0 0 0
-4 -901 0.000030 0 0 0
T
run "$PT" validate --schema=user.yaml good.picl
expect_rc 0
expect_err </dev/null
expect_out <<'T'
good.picl: 5 records, 0 errors, 0 warnings
T

# The same records with the other kinds of value: errors that name the
# example's types; without the schema they are not checked.
sed -e 's/1 "%d" 5$/1 "%lf" 5.5/' -e 's/1 "%lf" 0.125$/1 "%d" 1/' good.picl >bad.picl
run "$PT" validate --schema=user.yaml bad.picl
expect_rc 1
expect_err </dev/null
expect_out <<'T'
bad.picl:2:21: descriptor-data: the entry of event 7 (solver) should have "%d" data, not "%lf" (value 1 is a floating-point number)
bad.picl:3:20: descriptor-data: record type 3 (residual) should have "%lf" data, not "%d" (value 1 is an integer)
bad.picl: 5 records, 2 errors, 0 warnings
T
run "$PT" validate bad.picl
expect_rc 0

# Record 3's count is 1: three values are a warning, as more than an
# event's count are.
sed 's/1 "%lf" 0.125$/3 "%lf" 0.125 0.5 0.25/' good.picl >more.picl
run "$PT" validate --schema=user.yaml more.picl
expect_rc 0
expect_out <<'T'
more.picl:3:20: descriptor-data: warning: record type 3 (residual) has 3 data values, the schema lists at most 1
more.picl: 5 records, 0 errors, 1 warning
T

# stat reads the trace and counts event 7 once; by the default schema it
# is a "user event", with --schema the example's "solver" (plot's too).
run "$PT" stat good.picl
expect_rc 0
grep -Eq '^  7 +user event +0\.000010 +1 +-$' "$TMP/out" ||
  fail "stat does not count event 7: $(cat "$TMP/out")"
run "$PT" stat --schema=user.yaml good.picl
expect_rc 0
grep -Eq '^  7 +solver +0\.000010 +1 +-$' "$TMP/out" ||
  fail "stat --schema does not name event 7: $(cat "$TMP/out")"
run "$PT" plot --kind=events --user-events --format=script --schema=user.yaml good.picl
expect_rc 0
grep -q 'solver' "$TMP/out" || fail "plot --schema does not name event 7"

# a user schema that does not load stops them, with where and why
printf 'events:\n  - type: 7\n    name: [x\n' >broken.yaml
for cmd in stat plot; do
  run "$PT" $cmd --schema=broken.yaml -o out.x good.picl
  expect_rc 2
  grep -q "^picltrace $cmd: broken.yaml:3:11: " "$TMP/err" ||
    fail "$cmd: no file:line:column for a broken schema: $(cat "$TMP/err")"
  [ ! -e out.x ] || fail "$cmd: an output was left"
  run "$PT" $cmd --schema=nope.yaml -o out.x good.picl
  expect_rc 2
  grep -q "^picltrace $cmd: nope.yaml: cannot open the schema" "$TMP/err" ||
    fail "$cmd: a missing schema not said: $(cat "$TMP/err")"
done
