#!/bin/sh
# 0600-runtime-table19.sh - the format report's example program (Table 19,
# examples/table19.c) on 8 processes under piclrun: processor 6 saves its
# trace in its own file (tracefiles(..., "trace")), which piclrun leaves in
# place and merges with the other parts; both are accepted by `picltrace
# validate`, and processor 6's records are those of Table 20 in record
# type, event type, order and data, timestamps aside.
#
# Allowed differences, which depend on timing: the first recv0 may find the
# broadcast already there (-51) where the iPSC/860 waited (-52), so -51 is
# read as -52 (statistics merged); the -101 records (times, listing only
# positive ones) are left out; the -901 volume (bytes of trace text) and the
# values of the user records (clock values) are not compared.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

RUN="$PICL_BUILDDIR/picl-rt/piclrun"
cd "$TMP"

run timeout 60 "$RUN" -n 8 -o t19.picl "$PICL_BUILDDIR/examples/table19"
expect_rc 0
[ -s t19.picl ] || fail "no merged trace"
[ -s trace ] || fail "processor 6 wrote no file 'trace'"

# processor 6 saved its trace in 'trace'; piclrun merged it with the
# other parts, so t19.picl alone is the whole run.
run "$PT" validate --partial trace
expect_rc 0
run "$PT" validate t19.picl
expect_rc 0
grep -q ' 0 errors, 0 warnings' "$TMP/out" "$TMP/err" || fail "validate: $(cat "$TMP/out" "$TMP/err")"
for p in 0 1 2 3 4 5 6 7; do
  n=$(awk -v p=$p '$4 == p' t19.picl | wc -l)
  [ "$n" -gt 20 ] || fail "t19.picl has $n records of processor $p"
done
n6=$(awk '$4 == 6' t19.picl | wc -l)
[ "$n6" -eq "$(wc -l <trace)" ] || fail "t19.picl has $n6 records of processor 6, 'trace' $(wc -l <trace)"

normalise() {
  awk '
  function merge51(   i, n, out, cnt, ev, val, k, evs, vals) {
    # data pairs from field 7 on: event value; -51 becomes -52, summed
    k = 0
    for (i = 7; i < NF; i += 2) {
      ev = $i; val = $(i + 1)
      if (ev == -51) ev = -52
      if (k > 0 && evs[k] == ev) { vals[k] += val; continue }
      k++; evs[k] = ev; vals[k] = val
    }
    out = $1 " " $2 " " $4 " " $5 " " k " " $6
    for (i = 1; i <= k; i++) {
      if ($1 == -103 && evs[i] == -901) vals[i] = "V"
      out = out " " evs[i] " " vals[i]
    }
    print out
  }
  $1 == -101 { next }
  $1 == -102 || $1 == -103 { $6 = $7; for (i = 7; i < NF; i++) $i = $(i + 1); NF--; merge51(); next }
  {
    if ($2 == -51) $2 = -52
    out = $1 " " $2
    last = NF
    if ($1 >= 0) last = NF - 1
    for (i = 4; i <= last; i++) out = out " " $i
    print out
  }'
}

normalise <trace >got
cat >want <<'TABLE20'
-3 -901 6 0 0
-2 -904 6 0 3 2 1 1 1
-3 -902 6 0 1 2 2
-4 -902 6 0 0
-3 -11 6 0 0
-4 -11 6 0 0
-3 -903 6 0 0
-4 -903 6 0 0
-3 -401 6 0 0
-4 -401 6 0 0
-3 0 6 0 2 2 0 0
-3 -52 6 0 1 2 0
-4 -52 6 0 3 2 8 0 0
-4 0 6 0 2 2 0 0
0 0 6 0 1 5
-3 1 6 0 2 2 0 0
-3 -52 6 0 1 2 1
-4 -52 6 0 3 2 8 1 5
-3 -21 6 0 3 2 8 1 7
-4 -21 6 0 0
-4 1 6 0 2 2 0 0
0 1 6 0 1 5
-2 -12 6 0 0
-4 -901 6 0 0
-102 -1 6 0 9 "%d%d" -11 1 -12 1 -21 1 -52 2 -401 1 -901 1 -902 1 -903 1 -904 1
-103 -1 6 0 3 "%d%d" -21 8 -52 16 -901 V
-102 -1 6 0 2 "%d%d" 0 1 1 1
-102 0 6 0 1 "%d%d" -52 1
-103 0 6 0 1 "%d%d" -52 8
-102 1 6 0 2 "%d%d" -21 1 -52 1
-103 1 6 0 2 "%d%d" -21 8 -52 8
TABLE20
diff -u want got >&2 || fail "processor 6's records differ from Table 20"

# timestamps: negative before clocksync0's exit, not after (Appendix A)
awk '$2 == -401 && $1 == -4 { exit !($3 >= 0) }' trace || fail "clocksync0 exit before time 0"
awk '$2 == -901 && $1 == -3 { exit !($3 < 0) }' trace || fail "tracenode entry not negative"
echo "ok: $ntest runs"
