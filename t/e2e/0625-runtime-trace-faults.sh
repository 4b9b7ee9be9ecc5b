#!/bin/sh
# 0625-runtime-trace-faults.sh - the tracing calls' error paths
# (examples/noclose.c): a part that cannot be written part-way (a full
# file system), ... Each time no crash, no hang, a "picl: ..." message,
# the computation goes on, and what trace is written reads back valid.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

PICL_TRACE_CLOCK=monotonic; export PICL_TRACE_CLOCK
RUN="$PICL_BUILDDIR/picl-rt/piclrun"
EX="$PICL_BUILDDIR/examples"
cd "$TMP"

no_crash() {  # NAME
  grep -q "killed by signal" "$TMP/err" && fail "$1: $(cat "$TMP/err")"
  return 0
}

# A full file system (a 64 KiB tmpfs holding the parts): the write that
# fails is said ("No space left on device") and the process goes on,
# untraced; its part is cut back to what was written whole and closed
# (-901 exit), so the merged trace reads back. The failure was silent when
# it came at traceexit (its write was not checked), and a flush that failed
# part-way left half a line and no exits: an invalid trace, and rc 0.
fs="$TMP/fs"
mkdir "$fs"
if [ "$(id -u)" != 0 ]; then
  echo "SKIP (full file system): not root, cannot mount a tmpfs"
elif ! mount -t tmpfs -o size=64k tmpfs "$fs" 2>/dev/null; then
  echo "SKIP (full file system): mount -t tmpfs failed"
else
  trap 'umount "$fs" 2>/dev/null; rm -rf "$TMP"' EXIT
  # 1 MiB buffers: everything is written at traceexit; 8 KiB: at flushes
  for size in 1048576 8192; do
    rm -rf "$fs/p"
    run timeout 60 "$RUN" -n 2 --timeout 30 --parts-dir "$fs/p" -o full$size.picl \
      "$EX/noclose" fill 5000 $size
    no_crash "full $size"
    expect_rc 1         # (the trace lacks records: piclrun says whose)
    grep -q "^picl: cannot write trace file $fs/p/part\.[01]\.picl: No space left on device" \
      "$TMP/err" || fail "full $size: not said: $(cat "$TMP/err")"
    grep -q "^piclrun: process [01] could not write all of its trace$" "$TMP/err" ||
      fail "full $size: piclrun did not say it: $(cat "$TMP/err")"
    validate_ok full$size.picl --partial
  done
  # with flushes, what was written before the disk filled is kept, closed
  # (of the process that filled it first at least)
  grep -q '^-4 -901 ' full8192.picl || fail "full 8192: no -901 exit: $(tail -3 full8192.picl)"
  grep -q '^-4 1 ' full8192.picl || fail "full 8192: no block written"
  rm -rf "$fs/p"
  umount "$fs"
  trap 'rm -rf "$TMP"' EXIT
fi

# A record over 1 MiB (the readers' limit): a tracemsg text of 2 MiB, a
# tracedata of 200000 doubles. Written whole, each failed piclrun's merge
# (exit 2, no trace at all); they are cut to fit, and said.
for m in bigmsg bigdata; do
  run timeout 60 "$RUN" -n 2 --timeout 30 -o $m.picl "$EX/noclose" $m
  no_crash $m
  expect_rc 0
  grep -q "^picl: process 1: trace\(msg\|data\): .* cut to " "$TMP/err" ||
    fail "$m: not said: $(cat "$TMP/err")"
  validate_ok $m.picl
done
grep -q '^-7 -911 [0-9.]* 1 0 1048064 0 mmmm' bigmsg.picl || fail "bigmsg: no -7 record"
grep -q '^0 1 [0-9.]* 1 0 [0-9]* 5 0.333' bigdata.picl || fail "bigdata: no data record"
echo "ok: $ntest runs"
