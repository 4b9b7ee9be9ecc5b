#!/bin/sh
# picltrace stat short of memory: whatever the limit, stat either writes
# the whole profile (the same as without a limit) or fails with "out of
# memory", exit 2 and no output file; never a profile cut short with exit
# 0. A trace of 20000 user event types makes a table of 20000 rows, whose
# cells stat makes after reading the trace: just below the memory that
# is enough, the table's rows, the rows' order or the message pairs could
# not be made and stat wrote what it had (the first 527 of 20022 lines,
# say) and exited 0.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
export PICL_THREADS=1

awk 'BEGIN { print "-3 -901 0 0 0 0"
  for (i = 0; i < 20000; i++) printf "-3 %d %d.0 0 0 0\n-4 %d %d.5 0 0 0\n", i, i, i, i
  print "-4 -901 20000 0 0 0" }' >"$TMP/many.picl"
run "$PT" stat -o "$TMP/full.txt" "$TMP/many.picl"
expect_rc 0
[ "$(wc -l <"$TMP/full.txt")" -gt 20000 ] || fail "the profile has $(wc -l <"$TMP/full.txt") lines"

# the least limit (KB of address space) under which stat succeeds
lo=2048 hi=1048576
if (ulimit -v $hi && "$PT" stat -o "$TMP/x.txt" "$TMP/many.picl") 2>/dev/null; then
  while [ $((hi - lo)) -gt 128 ]; do
    mid=$(((lo + hi) / 2))
    if (ulimit -v $mid && "$PT" stat -o "$TMP/x.txt" "$TMP/many.picl") 2>/dev/null; then
      hi=$mid
    else
      lo=$mid
    fi
  done
  # below it, in steps of 128 KB down by 6 MB: whole, or a clean failure
  failed=0
  l=$hi
  while [ $l -gt $((hi - 6144)) ]; do
    rm -f "$TMP/x.txt"
    run sh -c "ulimit -v $l && exec \"\$0\" stat -o \"$TMP/x.txt\" \"$TMP/many.picl\"" "$PT"
    if [ "$rc" -eq 0 ]; then
      cmp -s "$TMP/full.txt" "$TMP/x.txt" ||
        fail "$last: exit 0 with $(wc -l <"$TMP/x.txt") of $(wc -l <"$TMP/full.txt") lines"
    else
      expect_rc 2
      grep -q 'out of memory' "$TMP/err" || fail "$last: $(cat "$TMP/err")"
      [ ! -e "$TMP/x.txt" ] || fail "$last: output left behind"
      failed=$((failed + 1))
    fi
    l=$((l - 128))
  done
  [ "$failed" -gt 0 ] || fail "no limit below $hi KB made stat fail"
  rm -f "$TMP/x.txt"
else
  echo "note: stat does not run under ulimit -v $hi (sanitizers?): out-of-memory check skipped"
fi
rm -f "$TMP/many.picl" "$TMP/full.txt"
echo "PASS: $ntest stat out-of-memory checks"
