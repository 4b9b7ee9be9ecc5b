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
# tracedata's other arguments: an unknown type, a negative count, no data
# were dropped without a word; now said once (the first of them) as well
for p in 0 1; do
  n=$(grep -c "^picl: process $p: tracedata: an unknown data type refused" neg.err || true)
  [ "$n" -eq 1 ] || fail "negtypes: process $p: bad tracedata said $n times: $(cat neg.err)"
done
[ "$(wc -l <neg.err)" -eq 14 ] || fail "negtypes: expected 14 messages: $(cat neg.err)"
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

# A process that ends abnormally (returns without close0, or a PICL
# error) inside nested user blocks: each block gets its exit, innermost
# first, before the -901 exit. Only 64 open entries were tracked: at
# depth 100 the 36 outer blocks stayed open and the trace was invalid.
# Run alone (node 0 of one, its part picltrace.0.picl here).
for depth in 100 2000; do
  for how in "" fail; do
    rm -f picltrace.0.picl
    run timeout 60 "$PROG" deep $depth $how
    if [ -z "$how" ]; then expect_rc 0; else expect_rc 1; fi
    f=deep$depth$how.picl
    mv picltrace.0.picl $f
    validate_ok $f
    n=$(awk '$1 == -4 && $2 >= 0' $f | wc -l)
    [ "$n" -eq $depth ] || fail "$f: $n block exits, expected $depth"
    # innermost first: the exits' types count down to 0
    awk '$1 == -4 && $2 >= 0 { if ($2 != want) exit 1; want-- }' want=$((depth - 1)) $f ||
      fail "$f: block exits out of order: $(awk '$1 == -4' $f | head -3)"
    last=$(awk '$1 >= -4 && $1 <= -2' $f | tail -1 | cut -d' ' -f1,2)
    [ "$last" = "-4 -901" ] || fail "$f: last event record '$last', not the -901 exit"
  done
done

# The same when the part's file system fills: the part is cut back to its
# last whole write and closed there by the exits of the blocks open then,
# written into room kept past its end for them (8 KiB, and 64 bytes an
# open entry). 64 were tracked, in 8 KiB: at depth 300 the outer blocks
# stayed open.
fs="$TMP/fs"
mkdir "$fs"
if [ "$(id -u)" != 0 ]; then
  echo "SKIP (full file system): not root, cannot mount a tmpfs"
elif ! mount -t tmpfs -o size=128k tmpfs "$fs" 2>/dev/null; then
  echo "SKIP (full file system): mount -t tmpfs failed"
else
  trap 'umount "$fs" 2>/dev/null; rm -rf "$TMP"' EXIT
  (cd "$fs" && run timeout 60 "$PROG" deep 300 fill; echo "$rc" >"$TMP/rc")
  rc=$(cat "$TMP/rc")
  expect_rc 0
  grep -q "^picl: cannot write trace file picltrace\.0\.picl: No space left on device" \
    "$TMP/err" || fail "deep fill: not said: $(cat "$TMP/err")"
  cp "$fs/picltrace.0.picl" deepfill.picl
  umount "$fs"
  trap 'rm -rf "$TMP"' EXIT
  validate_ok deepfill.picl
  n=$(awk '$1 == -4 && $2 >= 0' deepfill.picl | wc -l)
  [ "$n" -eq 300 ] || fail "deepfill.picl: $n block exits, expected 300"
  last=$(awk '$1 >= -4 && $1 <= -2' deepfill.picl | tail -1 | cut -d' ' -f1,2)
  [ "$last" = "-4 -901" ] || fail "deepfill.picl: last event record '$last'"
fi

# Tracing again after traceexit (tracenode, tracefiles, tracelevel): the
# part holds two tracing intervals. Statistics records are cumulative for
# the whole process (spec 2.3.7; 2.3.2: "cumulative statistics for an
# entire process"), as validate recomputes them from every event record of
# the process read so far: those of the second traceexit cover both
# sessions. They covered the second only (-901 counted once), and the
# trace did not validate. Run alone: node 0's part picltrace.0.picl.
rm -f picltrace.0.picl
run timeout 60 "$PROG" restart
expect_rc 0
mv picltrace.0.picl restart.picl
validate_ok restart.picl
[ "$(grep -c -- '^-4 -901 ' restart.picl)" -eq 2 ] || fail "restart: not two sessions: $(cat restart.picl)"
stat_pairs() {  # TYPE: the pairs of the "TYPE -1" records after the last -901 exit
  awk -v t="$1" '$1 == -4 && $2 == -901 { s = "" }
    $1 == t && $2 == -1 { for (i = 8; i <= NF; i++) s = s " " $i }
    END { print s }' restart.picl
}
for pair in '-901 2' '-11 1' '-12 1' '1 2' '2 3'; do
  case " $(stat_pairs -102) " in
    *" $pair "*) ;;
    *) fail "restart: last -102 -1 records lack count '$pair': $(grep -- '^-102 -1' restart.picl)";;
  esac
done
# the -901 volume: the bytes of trace text before these statistics, the
# first session's statistics records included
off=$(awk '{ st = $1 <= -101 && $1 >= -103; if (st && !in_st) off = n; in_st = st
  n += length($0) + 1 } END { print off }' restart.picl)
case " $(stat_pairs -103) " in
  *" -901 $off "*) ;;
  *) fail "restart: -901 volume is not $off: $(grep -- '^-103 -1' restart.picl)";;
esac

# A negative tracesize: picl(3) gives a buffer of at least 64 records and
# tracedata's data as many bytes, at least 64 KiB; a negative size left
# the data unbounded (cast to a huge size_t), so 320 KB of tracedata went
# into one buffer that never filled (no -912 flush, no -913 stop) however
# small the buffer was meant to be. It is said, and the smallest buffer
# is used: the data fill it as 64 KiB would.
for flush in 1 0; do
  rm -f picltrace.0.picl
  run timeout 60 "$PROG" size -1 $flush
  expect_rc 0
  grep -q "^picl: process 0: tracenode: buffer size -1 is negative; using the smallest" \
    "$TMP/err" || fail "size -1 $flush: not said: $(cat "$TMP/err")"
  [ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "size -1 $flush: $(cat "$TMP/err")"
  f=neg$flush.picl
  mv picltrace.0.picl $f
  validate_ok $f
  mark=$([ $flush = 1 ] && echo '-3 -912' || echo '-2 -913')
  grep -q -- "^$mark " $f || fail "$f: no '$mark' record: the data were not bounded"
  n=$(awk '$1 == 0' $f | wc -l)
  [ "$n" -ge 1 ] && [ "$n" -le 10 ] || fail "$f: $n data records"
done
# and the same program with tracesize 0 is bounded the same way, unsaid
run timeout 60 "$PROG" size 0 1
expect_rc 0
[ -s "$TMP/err" ] && fail "size 0: $(cat "$TMP/err")"
grep -q -- "^-3 -912 " picltrace.0.picl || fail "size 0: no -912 flush"
echo "ok: $ntest runs"
