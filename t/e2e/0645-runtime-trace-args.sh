#!/bin/sh
# 0645-runtime-trace-args.sh - the tracing calls' arguments
# (t/rt/trace-args.c): values they must refuse are refused, said once on
# standard error, and the run goes on with a trace that validates.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

PICL_TRACE_CLOCK=monotonic; export PICL_TRACE_CLOCK
RUN="$PICL_BUILDDIR/picl-rt/piclrun"
PROG="$PICL_BUILDDIR/t/rt/trace-args"
cd "$TMP"

# Negative event types are PICL's own (spec Table 4: user events are
# >= 0), as negative record types are (Table 3: user-defined record types
# are >= 0): traceblockbegin(-901) wrote a second "-3 -901" entry, and
# the trace no longer validated. Each call refuses them, says so once, and
# what else the program traces is kept.
run timeout 60 "$RUN" -n 2 -o neg.picl "$PROG" negtypes
expect_rc 0
cp "$TMP/err" neg.err
validate_ok neg.picl
for call in 'traceblockbegin: event type -901' 'traceblockend: event type -5' \
    'tracemark: event type -2147483648' 'tracemarks: event type -3' \
    'tracedata: event type -4' 'tracedata: record type -3'; do
  for p in 0 1; do
    n=$(grep -c "^picl: process $p: $call refused" neg.err || true)
    [ "$n" -eq 1 ] || fail "negtypes: process $p: '$call' said $n times: $(cat neg.err)"
  done
done
[ "$(wc -l <neg.err)" -eq 12 ] || fail "negtypes: expected 12 messages: $(cat neg.err)"
# nothing negative from the user calls; what is legal is all there
grep -E -- '^(-4 -5|-2 -2147483648|-2 -3|-3 9|0 -4) ' neg.picl >bad || true
[ -s bad ] && fail "negtypes: user records with negative types: $(head -3 bad)"
[ "$(grep -c -- '^-3 -901 ' neg.picl)" -eq 2 ] || fail "negtypes: -901 entries: $(grep -- '^-3 -901 ' neg.picl)"
for p in 0 1; do
  for r in '-3 7' '-4 7' '0 9'; do
    n=$(awk -v p=$p -v r="$r" '$1 " " $2 == r && $4 == p' neg.picl | wc -l)
    [ "$n" -eq 1 ] || fail "negtypes: process $p has $n records '$r'"
  done
  n=$(awk -v p=$p '$1 == -2 && $2 == 8 && $4 == p' neg.picl | wc -l)
  [ "$n" -eq 2 ] || fail "negtypes: process $p has $n marks 8, expected 2"
done
echo "ok: $ntest runs"
