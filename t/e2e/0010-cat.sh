#!/bin/sh
# picltrace cat: canonical rewrite (byte-identical on canonical input),
# continuation lines joined, plain <-> zstd, stdin/stdout, errors with
# file:line:column and exit 2, no partial output, input never overwritten.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

# A canonical file comes out byte for byte.
cat >"$TMP/canon.picl" <<'T'
-3 -901 -0.715036 6 0 0
-2 -904 -0.715024 6 0 3 2 1 1 1
-6 -1 -1 -1 -1 1 "%d%s" 6 "%d %lf"
-5 3 0.5 -1 -1 13 0  solver step 
-101 -1 0.001982 6 0 2 "%d%lf" -11 0.000098 -21 0.0000460
0 1 0.001971 6 0 2 6 4 0.000410 -7 1e-3
-4 -901 7 6 0 0
T
run "$PT" cat "$TMP/canon.picl"
expect_rc 0
cmp "$TMP/out" "$TMP/canon.picl" || fail "canonical input not reproduced"

# Continuations are joined, spacing made canonical; a comment disappears.
printf '%s\n' '# made by hand' \
  '  -101 -1   0.001982 6 0 3 "%d%lf" -11 0.000098 \' \
  '-21 0.000046 \' \
  '-52 0.001212' >"$TMP/cont.picl"
run "$PT" cat "$TMP/cont.picl"
expect_rc 0
expect_out <<'T'
-101 -1 0.001982 6 0 3 "%d%lf" -11 0.000098 -21 0.000046 -52 0.001212
T

# zstd out and back in, through stdin and stdout.
run "$PT" cat -z -o "$TMP/c.zst" "$TMP/canon.picl"
expect_rc 0
[ "$(head -c 4 "$TMP/c.zst" | od -An -tx1 | tr -d ' ')" = 28b52ffd ] || fail "not zstd"
zstd -q -t "$TMP/c.zst" || fail "zstd cannot read our stream"
run sh -c "\"$PT\" cat - < \"$TMP/c.zst\""
expect_rc 0
cmp "$TMP/out" "$TMP/canon.picl" || fail "zstd round trip differs"
zstd -q -c "$TMP/canon.picl" >"$TMP/ext.zst"
run "$PT" cat "$TMP/ext.zst"
cmp "$TMP/out" "$TMP/canon.picl" || fail "reading zstd's own stream differs"
# zstd to a terminal is refused (script(1) gives the command one), as
# zstd(1) refuses it; plain text goes.
if command -v script >/dev/null 2>&1 && script -qec true /dev/null >/dev/null 2>&1; then
  run script -qec "\"$PT\" cat -z \"$TMP/canon.picl\"" /dev/null
  expect_rc 2
  grep -q 'picltrace cat: refusing to write zstd-compressed data to a terminal; use -o FILE or a pipe' "$TMP/out" ||
    fail "$last: $(cat "$TMP/out")"
  run script -qec "\"$PT\" cat \"$TMP/canon.picl\"" /dev/null
  expect_rc 0
  grep -q -e '-101 -1 0.001982' "$TMP/out" || fail "$last: $(cat "$TMP/out")"
else
  echo "note: no script(1) or no terminal to give; zstd to a terminal not checked"
fi

# Several inputs are concatenated.
run "$PT" cat "$TMP/canon.picl" "$TMP/c.zst"
[ "$(wc -l <"$TMP/out")" -eq 14 ] || fail "two inputs should give 14 lines"

# A bad record: file:line:column, exit 2, no output file left behind.
printf '%s\n' '-3 -901 0 0 0 0' '-3 -21 1 0 0 3 2 8 x 7' >"$TMP/bad.picl"
run "$PT" cat -o "$TMP/never.picl" "$TMP/bad.picl"
expect_rc 2
expect_err <<T
picltrace cat: $TMP/bad.picl:2:20: expected an integer, found "x"
T
[ ! -e "$TMP/never.picl" ] || fail "partial output left behind"
ls -a "$TMP" | grep -q '\.never\.picl\.tmp' && fail "temporary file left behind"

# An existing output is replaced only by a complete result.
echo keep >"$TMP/old.picl"
run "$PT" cat -o "$TMP/old.picl" "$TMP/bad.picl"
expect_rc 2
[ "$(cat "$TMP/old.picl")" = keep ] || fail "failed run clobbered the old output"

# The input is never the output.
cp "$TMP/canon.picl" "$TMP/same.picl"
run "$PT" cat -o "$TMP/same.picl" "$TMP/same.picl"
expect_rc 2
cmp "$TMP/same.picl" "$TMP/canon.picl" || fail "input was touched"
# ... nor standard output appended to it (cat would read what it writes,
# without end), also when the input is standard input.
last='cat f >>f'
set +e
"$PT" cat "$TMP/same.picl" >>"$TMP/same.picl" 2>"$TMP/err"
rc=$?
set -e
expect_rc 2
grep -q '<stdout>: the output is also an input' "$TMP/err" || fail "cat f >>f: $(cat "$TMP/err")"
cmp "$TMP/same.picl" "$TMP/canon.picl" || fail "input was appended to"
last='cat - <f >>f'
set +e
"$PT" cat - <"$TMP/same.picl" >>"$TMP/same.picl" 2>"$TMP/err"
rc=$?
set -e
expect_rc 2
cmp "$TMP/same.picl" "$TMP/canon.picl" || fail "standard input was appended to"

# Interrupted while writing: the temporary output is removed, nothing is
# left under the real name. (SIGTERM: a background job of a script
# ignores SIGINT, and so does the command; see below.)
mkfifo "$TMP/slow"
"$PT" cat -o "$TMP/int.picl" "$TMP/slow" &
pid=$!
exec 3>"$TMP/slow"
cat "$TMP/canon.picl" >&3
sleep 0.3
ls -a "$TMP" | grep -q '^\.int\.picl\.tmp' || fail "no temporary output while writing"
kill -TERM $pid
wait $pid || true
exec 3>&-
ls -a "$TMP" | grep -q '^\.int\.picl\.tmp' && fail "temporary output left after SIGTERM"
[ ! -e "$TMP/int.picl" ] || fail "partial output after SIGTERM"

# A signal the caller ignores stays ignored (nohup's SIGHUP, the SIGINT
# of a script's background job): the command goes on and finishes.
for sig in HUP INT; do
  rm -f "$TMP/slow" "$TMP/ign.picl"
  mkfifo "$TMP/slow"
  (trap '' $sig; exec "$PT" cat -o "$TMP/ign.picl" "$TMP/slow") &
  pid=$!
  exec 3>"$TMP/slow"
  head -n 3 "$TMP/canon.picl" >&3
  i=0
  until ls -a "$TMP" | grep -q '^\.ign\.picl\.tmp'; do
    i=$((i + 1))
    [ $i -lt 100 ] || { exec 3>&-; fail "no temporary output while writing"; }
    sleep 0.05
  done
  kill -$sig $pid
  sleep 0.1
  tail -n +4 "$TMP/canon.picl" >&3 || true   # (no reader: it died)
  exec 3>&-
  rc=0
  wait $pid || rc=$?
  [ $rc -eq 0 ] || fail "cat with SIG$sig ignored died of it (exit status $rc)"
  cmp -s "$TMP/ign.picl" "$TMP/canon.picl" || fail "cat with SIG$sig ignored: wrong output"
done
rm -f "$TMP/slow" "$TMP/ign.picl"

# Missing input; truncated zstd; bad option; help.
run "$PT" cat "$TMP/nope.picl"
expect_rc 2
expect_err <<T
picltrace cat: $TMP/nope.picl: cannot open: No such file or directory
T
# no name at all: said as a shell would write it, for input and output
run "$PT" cat ''
expect_rc 2
expect_err <<'T'
picltrace cat: '': cannot open: No such file or directory
T
run "$PT" cat -o '' "$TMP/canon.picl"
expect_rc 2
expect_err <<'T'
picltrace cat: '': cannot create: No such file or directory
T
head -c 60 "$TMP/c.zst" >"$TMP/trunc.zst"
run "$PT" cat -o "$TMP/t.picl" "$TMP/trunc.zst"
expect_rc 2
grep -q 'compressed input is truncated' "$TMP/err" || fail "truncated zstd not reported"
[ ! -e "$TMP/t.picl" ] || fail "partial output from truncated zstd"
run "$PT" cat --bogus
expect_rc 2
grep -q '^usage: picltrace cat' "$TMP/err" || fail "no usage on a bad option"
run "$PT" cat --help
expect_rc 0
grep -q '^usage: picltrace cat' "$TMP/out" || fail "no usage from --help"
run "$PT" help cat
expect_rc 0
grep -q -- '--zstd' "$TMP/out" || fail "help cat shows no options"

# Suppressed conversions (%*d): the values cannot say what was skipped, so
# the data go back as they were read (they were refused, the record lost).
cat >"$TMP/supp.picl" <<'T'
-3 -21 0.1 0 0 2 "%*d%d" 1 2 3 4
-6 -1 0.2 -1 -1 1 "%d%s" 9 "%*d%d"
-3 -21 0.3 0 0 1 9 5 6
T
run "$PT" cat "$TMP/supp.picl"
expect_rc 0
cmp "$TMP/out" "$TMP/supp.picl" || fail "suppressed conversions not written back"

# An alias defined after 4099 distinct inline control strings (more than
# the cache keeps) is taken, by the serial and the parallel reader alike.
awk 'BEGIN { for (k = 1; k < 4100; k++) printf "1 1 1 0 0 1 \"%%%dd\" 5\n", k
  print "-6 -1 1 -1 -1 1 \"%d%s\" 7 \"%x\""; print "1 1 1 0 0 1 7 ff" }' >"$TMP/cc.picl"
for t in 1 2; do
  PICL_THREADS=$t "$PT" cat "$TMP/cc.picl" >"$TMP/cc.$t" ||
    fail "cat with PICL_THREADS=$t refused the alias after 4099 control strings"
  [ "$(tail -n 1 "$TMP/cc.$t")" = "1 1 1 0 0 1 7 ff" ] || fail "PICL_THREADS=$t: $(tail -n 1 "$TMP/cc.$t")"
done
cmp -s "$TMP/cc.1" "$TMP/cc.2" || fail "serial and parallel readers differ"

# Out of memory while reading a record (400,000 values of one record) is
# said, not an exit 2 with nothing on standard error. The limit: just under
# the least address space in which that cat succeeds. Skipped when no
# limit lets it run (sanitizers reserve terabytes of address space).
awk 'BEGIN { printf "1 7 0 0 0 400000 \"%%d\""; for (i = 0; i < 400000; i++) printf " 1"
  print "" }' >"$TMP/bigrec.picl"
lo=2048 hi=262144
if (ulimit -v $hi && PICL_THREADS=1 "$PT" cat -o "$TMP/oom.picl" "$TMP/bigrec.picl") 2>/dev/null; then
  while [ $((hi - lo)) -gt 512 ]; do
    mid=$(((lo + hi) / 2))
    if (ulimit -v $mid && PICL_THREADS=1 "$PT" cat -o "$TMP/oom.picl" "$TMP/bigrec.picl") \
        2>/dev/null; then hi=$mid; else lo=$mid; fi
  done
  rm -f "$TMP/oom.picl"
  run sh -c "ulimit -v $((hi - 4096)) && PICL_THREADS=1 \"$PT\" cat -o \"$TMP/oom.picl\" \"$TMP/bigrec.picl\""
  expect_rc 2
  grep -q 'out of memory' "$TMP/err" || fail "out of memory not said: '$(cat "$TMP/err")'"
  [ ! -e "$TMP/oom.picl" ] || fail "out of memory: output left behind"
else
  echo "note: cat does not run under ulimit -v $hi (sanitizers?): out-of-memory check skipped"
fi
ntest=$((ntest + 1))
echo "PASS: $ntest cat checks"
