#!/bin/sh
# picltrace sync --report prints the report on standard output, so the
# trace may not go there: not as "-", nor under another name for it
# (/dev/stdout, /dev/fd/1, /proc/self/fd/1) nor as the very file standard
# output is redirected to, where the report would be mixed into the trace
# (or lost when the trace's temporary file is renamed over it). Each is refused
# with exit status 2, before anything is written; another file, or
# --dry-run, is fine.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
D="$PICL_SRCDIR/testdata/sync"

for o in - /dev/stdout /dev/fd/1 /proc/self/fd/1; do
  run "$PT" sync --report -o "$o" "$D/three-procs.picl"
  expect_rc 2
  expect_out </dev/null
  grep -q -- '--report prints on standard output, where the trace goes' "$TMP/err" ||
    fail "$last: $(cat "$TMP/err")"
done
# -o names the file standard output goes to
set +e
"$PT" sync --report -o "$TMP/same.picl" "$D/three-procs.picl" >"$TMP/same.picl" 2>"$TMP/err"
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "sync --report -o F >F: exit status $rc, expected 2"
[ ! -s "$TMP/same.picl" ] || fail "sync --report -o F >F wrote into F"
# through a pipe, /dev/fd/1 is the pipe
set +e
"$PT" sync --report -o /dev/fd/1 "$D/three-procs.picl" 2>"$TMP/err" | cat >"$TMP/piped"
set -e
[ ! -s "$TMP/piped" ] || fail "sync --report -o /dev/fd/1 | cat wrote into the pipe"
grep -q -- '--report prints on standard output' "$TMP/err" || fail "piped: $(cat "$TMP/err")"

# fine: the trace to another file, or no trace
run "$PT" sync --report -o "$TMP/other.picl" "$D/three-procs.picl"
expect_rc 0
grep -q '^tachyons: 2 before, 0 after$' "$TMP/out" || fail "no report on standard output"
[ -s "$TMP/other.picl" ] || fail "no trace written"
grep -q '^tachyons' "$TMP/other.picl" && fail "the report went into the trace"
run "$PT" sync --report --dry-run -o /dev/fd/1 "$D/three-procs.picl"
expect_rc 0
grep -q '^tachyons: 2 before, 0 after$' "$TMP/out" || fail "--dry-run: no report"
echo "PASS: $ntest sync --report checks"
