#!/bin/sh
# picltrace validate: usage and its man page, bad options, inputs that
# cannot be read (exit 2), zstd and standard input, --max-errors, -q/--quiet,
# --format=json (escaping, related lines) and --schema.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$PICL_SRCDIR/testdata/validate"

usage='usage: picltrace validate [--sorted] [--partial] [--schema=FILE] [--max-errors=N]
                          [--memory=SIZE] [--tmpdir=DIR] [--quiet]
                          [--format=text|json] FILE...'

# Help on stdout, exit 0; its synopsis is the man page's, word for word.
run "$PT" validate --help
expect_rc 0
expect_err </dev/null
[ "$(head -n 3 "$TMP/out")" = "$usage" ] || fail "--help does not start with the usage"
grep -q -- '--max-errors=N' "$TMP/out" || fail "--help lists no options"
run "$PT" help validate
expect_rc 0
[ "$(head -n 3 "$TMP/out")" = "$usage" ] || fail "help validate shows no usage"
head -n 3 "$TMP/out" | sed 's/^usage: //' | tr -s ' \n' '  ' | sed 's/ *$//' >"$TMP/u"
sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$PICL_SRCDIR/man/picltrace-validate.1" |
  grep -v '^\.SH\|^\.nh\|^\.hy' |
  sed -e 's/^\.B //' -e '/^\.[BIR][BIR] /{s/^\.[BIR][BIR] //;s/ //g;}' \
      -e 's/\\f[IRB]//g' -e 's/\\-/-/g' |
  tr -s ' \n' '  ' | sed 's/ *$//' >"$TMP/m"
cmp -s "$TMP/u" "$TMP/m" || fail "usage '$(cat "$TMP/u")' differs from SYNOPSIS '$(cat "$TMP/m")'"

# Bad usage: a message (getopt_long's, as every command's) and the usage on
# stderr, exit 2, nothing on stdout.
run "$PT" validate --bogus clean-2proc.picl
expect_rc 2
expect_out </dev/null
expect_err <<T
picltrace validate: unrecognized option '--bogus'
$usage
T
run "$PT" validate -x clean-2proc.picl
expect_rc 2
expect_err <<T
picltrace validate: invalid option -- 'x'
$usage
T
# A value given to an option that takes none (whole or abbreviated)
for a in --sorted=1 --sort=1 --quiet=yes; do
  run "$PT" validate $a clean-2proc.picl
  expect_rc 2
  o=${a%%=*}; o=${o#--}
  case sorted in $o*) o=sorted ;; esac
  expect_err <<T
picltrace validate: option '--$o' doesn't allow an argument
$usage
T
done
run "$PT" validate
expect_rc 2
expect_err <<T
picltrace validate: no trace given
$usage
T
run "$PT" validate --format=xml clean-2proc.picl
expect_rc 2
expect_err <<T
picltrace validate: --format takes text or json, not 'xml'
$usage
T
run "$PT" validate --max-errors=-3 clean-2proc.picl
expect_rc 2
expect_err <<T
picltrace validate: --max-errors takes a number 0 or more, not '-3'
$usage
T
run "$PT" validate clean-2proc.picl --schema
expect_rc 2
expect_err <<T
picltrace validate: option '--schema' requires an argument
$usage
T

# A missing file: exit 2 and a message, the other inputs still checked.
run "$PT" validate nope.picl clean-2proc.picl
expect_rc 2
expect_out <<'T'
clean-2proc.picl: 29 records, 0 errors, 0 warnings
T
expect_err <<'T'
picltrace validate: nope.picl: cannot open: No such file or directory
T
run "$PT" validate ''
expect_rc 2
expect_err <<'T'
picltrace validate: '': cannot open: No such file or directory
T
run "$PT" validate --format=json nope.picl
expect_rc 2
expect_out <<'T'
{"file":"nope.picl","error":"cannot open: No such file or directory"}
T
run "$PT" validate --schema=nope.yaml clean-2proc.picl
expect_rc 2
expect_out </dev/null
expect_err <<'T'
picltrace validate: nope.yaml: cannot open the schema: No such file or directory
T
# Without PICL_SCHEMA and nothing installed: say how to name a schema.
run env -u PICL_SCHEMA "$PT" validate clean-2proc.picl
if [ "$rc" -eq 2 ]; then
  grep -q 'cannot open the schema: No such file or directory (none is installed there: run make install, or set PICL_SCHEMA' "$TMP/err" ||
    fail "$last: $(cat "$TMP/err")"
else
  echo "note: a schema is installed; the message for a missing one is not checked"
fi
# stat and plot go on without a bad schema, saying where it is bad.
printf 'records:\n  - nmae: x\n' >"$TMP/bad.yaml"
run env PICL_SCHEMA="$TMP/bad.yaml" "$PT" stat clean-2proc.picl
expect_rc 0
grep -q "^picltrace stat: warning: $TMP/bad.yaml:2:5: unknown key \"nmae\" in a record (did you mean \"name\"?); event names are left out\$" "$TMP/err" ||
  fail "$last: $(cat "$TMP/err")"

# zstd, named and on standard input; "-" is shown as <stdin>.
zstd -q -o "$TMP/clean.picl.zst" clean-2proc.picl
zstd -q -o "$TMP/tachyon.zst" tachyon.picl
run "$PT" validate "$TMP/clean.picl.zst"
expect_rc 0
expect_out <<T
$TMP/clean.picl.zst: 29 records, 0 errors, 0 warnings
T
run sh -c "\"$PT\" validate - <\"$TMP/tachyon.zst\""
expect_rc 1
expect_out <<'T'
<stdin>:7:1: tachyon: message of type 3 from processor 0 to processor 1 is received at 0.000005 (line 7) before it was sent at 0.000010 (line 8)
<stdin>: 8 records, 1 error, 0 warnings
T
run sh -c "\"$PT\" validate --quiet - <clean-2proc.picl"
expect_rc 0
expect_out <<'T'
<stdin>: 29 records, 0 errors, 0 warnings
T

# A truncated or corrupt zstd stream cannot be read: exit 2.
head -c 40 "$TMP/clean.picl.zst" >"$TMP/trunc.zst"
run "$PT" validate "$TMP/trunc.zst"
expect_rc 2
expect_out </dev/null
expect_err <<T
picltrace validate: $TMP/trunc.zst:1:1: compressed input is truncated
T
{ head -c 5 "$TMP/clean.picl.zst"; printf '\377\377\377\377garbage garbage'; } >"$TMP/bad.zst"
run "$PT" validate "$TMP/bad.zst"
expect_rc 2
grep -q "^picltrace validate: $TMP/bad.zst:1:1: corrupt compressed input" "$TMP/err" ||
  fail "corrupt zstd not reported: $(cat "$TMP/err")"

# Failing part-way, JSON says where as the message on standard error does.
"$GEN" --procs 4 --records 20000 -o "$TMP/g.picl"
zstd -q -o "$TMP/g.zst" "$TMP/g.picl"
head -c $(($(wc -c <"$TMP/g.zst") / 2)) "$TMP/g.zst" >"$TMP/half.zst"
run "$PT" validate --format=json "$TMP/half.zst"
expect_rc 2
at=$(sed -n 's/^picltrace validate: .*half\.zst:\([0-9]*\):\([0-9]*\): compressed input is truncated$/\1 \2/p' "$TMP/err")
[ -n "$at" ] && [ "${at% *}" -gt 1 ] || fail "truncated zstd: no position past line 1: $(cat "$TMP/err")"
grep -q "\"error\":\"compressed input is truncated\",\"error_at\":{\"line\":${at% *},\"column\":${at#* }}}\$" \
  "$TMP/out" || fail "JSON error without its position ($at): $(tail -c 200 "$TMP/out")"

# --max-errors lists fewer, counts all; 0 lists all; --quiet lists none.
run "$PT" validate --max-errors=1 entry-exit.picl
expect_rc 1
expect_out <<'T'
entry-exit.picl:7:1: entry-exit: exit of event -11 has no matching entry on processor 0 process 0
entry-exit.picl: 8 records, 3 errors, 0 warnings (1 listed)
T
run "$PT" validate --max-errors=0 entry-exit.picl
expect_rc 1
[ "$(grep -c ': entry-exit: ' "$TMP/out")" -eq 3 ] || fail "--max-errors=0 did not list all"
run "$PT" validate --quiet message.picl
expect_rc 1
expect_out <<'T'
message.picl: 18 records, 4 errors, 0 warnings
T
run "$PT" validate -q message.picl
expect_rc 1
expect_out <<'T'
message.picl: 18 records, 4 errors, 0 warnings
T

# JSON: related lines, escaped quotes, one object per file.
run "$PT" validate --format=json entry-exit.picl syntax.picl
expect_rc 1
expect_out <<'T'
{"file":"entry-exit.picl","violations":[
{"line":7,"column":1,"rule":"entry-exit","severity":"error","message":"exit of event -11 has no matching entry on processor 0 process 0"},
{"line":10,"column":1,"rule":"entry-exit","severity":"error","message":"exit of event 0 closes its entry at line 8 while the entry of event 1 at line 9 is still open (improper nesting)","related":{"line":9}},
{"line":13,"column":1,"rule":"entry-exit","severity":"error","message":"exit of event -901 closes its entry at line 6 while the entry of event 2 at line 12 is still open (improper nesting)","related":{"line":12}}
],"records":8,"errors":3,"warnings":0,"listed":3,"hint":null}
{"file":"syntax.picl","violations":[
{"line":6,"column":18,"rule":"syntax","severity":"error","message":"the record ends early: expected an integer process id"},
{"line":7,"column":8,"rule":"syntax","severity":"error","message":"expected a timestamp (a decimal number), found \"0.00x\""}
],"records":4,"errors":2,"warnings":0,"listed":2,"hint":null}
T
run "$PT" validate --format=json --quiet unknown.picl
expect_rc 0
expect_out <<'T'
{"file":"unknown.picl","violations":[],"records":8,"errors":0,"warnings":3,"listed":0,"hint":null}
T
cp clean-2proc.picl "$TMP/we\"ird\\name.picl"
(cd "$TMP" && "$PT" validate --format=json "we\"ird\\name.picl") >"$TMP/out"
expect_out <<'T'
{"file":"we\"ird\\name.picl","violations":[],"records":29,"errors":0,"warnings":0,"listed":0,"hint":null}
T

# --schema adds a user event type; its data are then checked.
cat >"$TMP/user.yaml" <<'T'
events:
  - type: 7
    name: solver
    command: null
    category: user
    produces: entry/exit
    entry: {descriptor: "%d", count: 1, fields: [{name: iteration, kind: int}]}
    exit: {count: 0}
T
cat >"$TMP/user.picl" <<'T'
-3 -901 0.000000 0 0 0
-3 7 0.000001 0 0 2 2 1 2
-4 7 0.000002 0 0 0
-3 7 0.000003 0 0 1 5 1.5
-4 7 0.000004 0 0 0
-4 -901 0.000005 0 0 0
T
cd "$TMP"
run "$PT" validate user.picl
expect_rc 0
expect_out <<'T'
user.picl: 6 records, 0 errors, 0 warnings
T
run "$PT" validate --schema=user.yaml user.picl
expect_rc 1
expect_out <<'T'
user.picl:2:21: descriptor-data: warning: the entry of event 7 (solver) has 2 data values, the schema lists at most 1
user.picl:4:21: descriptor-data: the entry of event 7 (solver) should have "%d" data, not "%lf" (value 1 is a floating-point number)
user.picl: 6 records, 1 error, 1 warning
T

# A predefined event subset (Table 5) in a statistics record is the sum of
# its members, checked like a defined one (it was skipped as an event
# PICL counts without records).
printf -- '-3 -901 0.0 0 0 0\n-3 5 0.1 0 0 0\n-4 5 0.2 0 0 0\n-102 -1 0.5 0 0 2 "%%d%%d" -1001 7 5 1\n-4 -901 1.0 0 0 0\n' >subset-stat.picl
run "$PT" validate subset-stat.picl
expect_rc 1
expect_out <<'T'
subset-stat.picl:4:32: statistics: count of event -1001 relative to -1 is 7, the events give 1
subset-stat.picl: 5 records, 1 error, 0 warnings
T
# An empty file, or one of comments and blank lines, is no trace: an
# error at 1:1, exit 1.
: >empty.picl
printf '# nothing\n\n' >comments.picl
for f in empty.picl comments.picl; do
  run "$PT" validate "$f"
  expect_rc 1
  expect_out <<T
$f:1:1: tracing-first-last: the trace has no records: every process's first is its tracing entry -3 -901
$f: 0 records, 1 error, 0 warnings
T
done
# Standard output that cannot be written: exit 2, and a message that says
# why (not a silent 2 that reads as "unreadable input").
if [ -w /dev/full ]; then
  last='validate empty.picl >/dev/full'
  set +e
  "$PT" validate empty.picl >/dev/full 2>"$TMP/err"
  rc=$?
  set -e
  expect_rc 2
  expect_err <<'T'
picltrace validate: <stdout>: cannot write: No space left on device
T
fi
echo "PASS: $ntest validate command-line checks"
