#!/bin/sh
# 0640-runtime-collectives.sh - examples/collectives under piclrun on 1, 2,
# 3, 5 and 8 processes: every collective (bcast0, bcast1, gsum0 ... gxor0,
# gcomb0, gather0, barrier0) on every root and datatype and, on the smaller
# runs, every architecture setarc0 offers; the program checks each result
# itself and exits non-zero on a wrong one. The merged trace must be
# accepted by `picltrace validate`, hold each collective as a user block
# (event types 900000001 barrier0, 900000002 bcast0, 900000003 bcast1,
# 900000004 global operation, 900000005 gather0: see picl-rt/collective.c)
# on every processor, and, at the default PICL tracing level, no messages
# from inside the collectives; at level 3 it holds them, and they match.
# The who0 and recvinfo0 calls collective.c makes are not counted.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

RUN="$PICL_BUILDDIR/picl-rt/piclrun"
EX="$PICL_BUILDDIR/examples/collectives"
if [ ! -x "$RUN" ] || [ ! -x "$EX" ]; then
  echo "SKIP: $RUN or $EX is not built"
  exit 77
fi

# Times from CLOCK_MONOTONIC, the clock clocksync0 measures (as in 0610).
PICL_TRACE_CLOCK=monotonic; export PICL_TRACE_CLOCK
cd "$TMP"

# validate_clean FILE: `picltrace validate` accepts FILE without a warning.
validate_clean() {
  validate_ok "$1"
  if grep -q ' warning: ' "$TMP/out" "$TMP/err"; then
    fail "validate $1: $(cat "$TMP/out" "$TMP/err")"
  fi
}

# blocks FILE NPROCS: every processor has entries and exits of all five
# collective blocks, as many exits as entries.
blocks() {
  for ev in 900000001 900000002 900000003 900000004 900000005; do
    got=$(awk -v e=$ev '$1 == -3 && $2 == e { print $4 }' "$1" | sort -un | tr '\n' ' ')
    want=$(seq 0 $(($2 - 1)) | tr '\n' ' ')
    [ "$got" = "$want" ] || fail "$1: entries of block $ev on processors '$got', expected '$want'"
    ne=$(awk -v e=$ev '$1 == -3 && $2 == e' "$1" | wc -l)
    nx=$(awk -v e=$ev '$1 == -4 && $2 == e' "$1" | wc -l)
    [ "$ne" -eq "$nx" ] || fail "$1: block $ev: $ne entries, $nx exits"
  done
}

# uncounted FILE: the statistics count no who0 (-13) or recvinfo0 (-14):
# the program calls neither, the collectives' own calls do not count.
uncounted() {
  awk '$1 == -102 && $2 == -1 { for (i = 8; i < NF; i += 2) if ($i == -13 || $i == -14) print }' "$1" >counted
  [ -s counted ] && fail "$1: who0 or recvinfo0 counted: $(head -2 counted)"
  return 0
}

# sends FILE: the number of send0 entries in the trace.
sends() {
  awk '$1 == -3 && $2 == -21' "$1" | wc -l
}

for n in 1 2 3 5 8; do
  quick=
  [ $n -gt 3 ] && quick=-q        # every architecture on the small runs only
  run timeout 600 "$RUN" -n $n --timeout 500 -o coll$n.picl "$EX" -t $quick
  expect_rc 0
  grep -q "^collectives: $n processes: all results right" "$TMP/out" ||
    fail "collectives -n $n: $(cat "$TMP/out" "$TMP/err")"
  validate_clean coll$n.picl
  blocks coll$n.picl $n
  uncounted coll$n.picl
  # The default PICL level (1) leaves the collectives' insides out, and
  # the program sends nothing else.
  [ "$(sends coll$n.picl)" -eq 0 ] ||
    fail "coll$n.picl: $(sends coll$n.picl) send0 records at PICL level 1"
done

# PICL level 3: the messages inside the collectives are traced, and the
# validator matches every one (sends, receives, the reserved barrier types).
run timeout 600 "$RUN" -n 3 --timeout 500 -o level3.picl "$EX" -t -q -l 3
expect_rc 0
grep -q "^collectives: 3 processes: all results right" "$TMP/out" ||
  fail "collectives -l 3: $(cat "$TMP/out" "$TMP/err")"
validate_clean level3.picl
blocks level3.picl 3
uncounted level3.picl
[ "$(sends level3.picl)" -gt 0 ] || fail "level3.picl: no send0 records at PICL level 3"
awk '$1 == -3 && $2 == -21 && $9 == 900000101 { f = 1 } END { exit !f }' level3.picl ||
  fail "level3.picl: no barrier0 message (type 900000101)"

# A bad call (gand0 on doubles) stops the run with a message; no hang.
run timeout 60 "$RUN" -n 2 --timeout 30 -o bad.picl "$EX" -t -x
expect_rc 1
grep -q "gand0: bitwise operation on a floating-point datatype" "$TMP/err" ||
  fail "collectives -x: $(cat "$TMP/out" "$TMP/err")"
grep -q "returned" "$TMP/err" && fail "collectives -x: the bad call returned"

echo "ok: $ntest runs"
