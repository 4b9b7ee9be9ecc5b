#!/bin/sh
# 0655-runtime-api-args.sh - arguments the PICL calls refuse
# (t/rt/api-args.c): with the runtime's common error ("picl: process N:
# call: problem (value)", exit status 1, the others failing in their turn
# rather than waiting for ever, every part written) and a merged trace that
# validates; and what setarc0 and getarc0 say of a Gray code order.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

PICL_TRACE_CLOCK=monotonic; export PICL_TRACE_CLOCK
RUN="$PICL_BUILDDIR/picl-rt/piclrun"
PROG="$PICL_BUILDDIR/t/rt/api-args"
cd "$TMP"

# refused HOW LINE [ARG...]: a run of HOW on 3 nodes fails with LINE on stderr,
# the run ends with status 1, and the merged trace validates (as a partial
# one: the run failed).
refused() {
  how=$1 line=$2
  shift 2
  rm -f r.picl
  run timeout 60 "$RUN" -n 3 --timeout 30 -o r.picl "$PROG" "$how" "$@"
  expect_rc 1
  grep -qxF "$line" "$TMP/err" || fail "$last: no '$line': $(cat "$TMP/err")"
  [ -s r.picl ] || fail "$last: no merged trace"
  validate_ok r.picl --partial
}

# Negative message types are the collectives' (a gsum0 of type 3 travels
# as -5): refused also with check0(0), where a send0 of -5 was taken by
# the gsum0 (a wrong sum, or a wait for ever) and a recv0 of -5 took the
# gsum0's message.
refused negsend "picl: process 0: send0: negative message type (-5)"
refused negrecv "picl: process 0: recv0: bad message type (-5)"
refused negprobe "picl: process 0: probe0: bad message type (-5)"

# load0 of a processor the run does not have: refused also with check0(0)
# (it recorded "processor 3" in a run of 3, and the host's 32767 in a
# hostless run), as a bad destination of send0 is
refused load0 "picl: process 0: load0: no such node (3)" 3
refused load0 "picl: process 0: load0: no such node (32767)" 32767
refused load0 "picl: process 0: load0: no such node (-2)" -2
run timeout 60 "$RUN" -n 3 --timeout 30 -o l.picl "$PROG" load0 2
expect_rc 0
validate_ok l.picl
[ "$(grep -c -- '^-4 -503 .* 2 -1$' l.picl)" -eq 1 ] || fail "load0 2: $(grep -- -503 l.picl)"

# sendend0 and sendstatus0 of a type no sendbegin0 began (or whose send
# was ended already) are errors, as recvend0's and recvstatus0's are
refused sendend "picl: process 0: sendend0: no send of this type was begun (4)"
grep -c -- '^-3 -30 ' r.picl | grep -qx 1 || fail "sendend: -30 entries: $(grep -- ' -30 ' r.picl)"
refused sendstatus "picl: process 0: sendstatus0: no send of this type was begun (6)"

# A collective's bad argument: the runtime's common error on every node
# (it was "node N: ..." through message0, and exit(1) without the
# backend's stop)
for p in 0 1 2; do
  refused colldt "picl: process $p: gsum0: unknown datatype (9)"
done

# setarc0's Gray code order (1) on a number of nodes that is not a power
# of two, which has none: written back as natural (0), and getarc0 says 0
# too (both said 1 while the collectives used the natural order)
for n in 3 5 6; do
  run timeout 60 "$RUN" -n $n --timeout 30 "$PROG" setarc 1
  expect_rc 0
  expect_out <<'EOT'
setarc0 0 getarc0 0
EOT
done
for n in 1 2 4 8; do
  run timeout 60 "$RUN" -n $n --timeout 30 "$PROG" setarc 1
  expect_rc 0
  expect_out <<'EOT'
setarc0 1 getarc0 1
EOT
done

# User event types 900000000-1073741823 are PICL's own (the collectives'
# blocks are 900000001 barrier0 ... 900000005 gather0): refused, said once
# per call, nothing recorded; the types beside the range are the user's.
run timeout 60 "$RUN" -n 2 -o u.picl "$PROG" userev
expect_rc 0
cp "$TMP/err" u.err
validate_ok u.picl
for call in 'traceblockbegin: event type 900000001' 'traceblockend: event type 900000001' \
    'tracemark: event type 900000003' 'tracemarks: event type 900000005' \
    'tracedata: event type 1073741823'; do
  for p in 0 1; do
    n=$(grep -c "^picl: process $p: $call refused" u.err || true)
    [ "$n" -eq 1 ] || fail "userev: process $p: '$call' said $n times: $(cat u.err)"
  done
done
awk '$1 > -300 && $2 >= 900000000 && $2 <= 1073741823' u.picl >bad
[ -s bad ] && fail "userev: records of reserved user types: $(head -3 bad)"
for p in 0 1; do
  for r in '-3 899999999' '-4 899999999' '-2 1073741824' '-2 7'; do
    n=$(awk -v p=$p -v r="$r" '$1 " " $2 == r && $4 == p' u.picl | wc -l)
    [ "$n" -eq 1 ] || fail "userev: process $p has $n records '$r'"
  done
done
echo "ok: $ntest runs"
