#!/bin/sh
# 0661-runtime-shm-full.sh - a /dev/shm too small for the segment: piclrun
# reserves the segment's space before the start and says it cannot (exit
# 2, nothing left behind), where the processes once got SIGBUS touching
# pages that a sparse file could not back. Runs piclrun in a mount
# namespace with a 64 KiB tmpfs on /dev/shm (needs root or user
# namespaces: skipped otherwise). A big run's segment is reserved only in
# part: a process that cannot have a page says so before it dies.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

piclrun_setup

# The tmpfs, and a look at what is left in it and in TMPDIR after the run.
cat >inner.sh <<'EOS'
mount -t tmpfs -o size=64k tmpfs /dev/shm || exit 99
rc=0
TMPDIR=$1 "$2" -n "$3" -o "$4" "$5" >inner.out 2>inner.err || rc=$?
ls -A /dev/shm >shm.left
exit $rc
EOS
if ! command -v unshare >/dev/null ||
   ! unshare -m sh -c 'mount -t tmpfs -o size=64k tmpfs /dev/shm' 2>/dev/null; then
  echo "SKIP: cannot mount a tmpfs on /dev/shm in a mount namespace"
  exit 77
fi

# piclrun -n 32: 1024 rings of 64 KiB and their 128 KiB of indices, which
# every process reads
run timeout 60 unshare -m sh inner.sh "$TMP/tmp" "$RUN" 32 full.picl "$EX/ring"
[ "$rc" -ne 99 ] || { echo "SKIP: mount in the namespace refused"; exit 77; }
cat inner.out >"$TMP/out"
cat inner.err >"$TMP/err"
expect_rc 2
grep -q "^piclrun: cannot reserve [0-9]* bytes of shared memory in /dev/shm: No space left on device" "$TMP/err" ||
  fail "$last: $(cat "$TMP/err")"
! grep -q "SIGBUS" "$TMP/err" || fail "$last: $(cat "$TMP/err")"
[ ! -s shm.left ] || fail "left in /dev/shm: $(cat shm.left)"
[ -z "$(ls -A tmp)" ] || fail "left in TMPDIR: $(ls -A tmp)"
[ ! -e full.picl ] || fail "a trace was written"

# piclrun -n 2: a segment of 1 MiB, reserved whole
run timeout 60 unshare -m sh inner.sh "$TMP/tmp" "$RUN" 2 full.picl "$EX/ring"
cat inner.err >"$TMP/err"
expect_rc 2
grep -q "^piclrun: cannot reserve 1[0-9]* bytes of shared memory in /dev/shm: No space left on device" "$TMP/err" ||
  fail "$last: $(cat "$TMP/err")"
[ ! -s shm.left ] || fail "left in /dev/shm: $(cat shm.left)"
[ -z "$(ls -A tmp)" ] || fail "left in TMPDIR: $(ls -A tmp)"

# rings of 32 MiB: too big to reserve them all (only the 8 KiB of head and
# indices are), so a process that finds no room for a ring's page says so
# and dies of SIGBUS; the run fails, and nothing is left behind
run timeout 60 unshare -m env PICL_RING_SIZE=33554432 sh inner.sh "$TMP/tmp" "$RUN" 2 big.picl "$EX/exchange" 1048576
cat inner.err >"$TMP/err"
expect_rc 1
grep -q "^picl: process [01]: no room for the shared memory of the run" "$TMP/err" ||
  fail "$last: $(cat "$TMP/err")"
grep -q "^piclrun: process [01] was killed by signal SIGBUS" "$TMP/err" ||
  fail "$last: $(cat "$TMP/err")"
[ ! -s shm.left ] || fail "left in /dev/shm: $(cat shm.left)"
[ -z "$(ls -A tmp)" ] || fail "left in TMPDIR: $(ls -A tmp)"

# a segment that fits (2 processes, 4 KiB rings: 24 KiB) is reserved
run timeout 60 unshare -m env PICL_RING_SIZE=4096 sh inner.sh "$TMP/tmp" "$RUN" 2 small.picl "$EX/ring"
cat inner.err >"$TMP/err"
expect_rc 0
[ ! -s shm.left ] || fail "left in /dev/shm: $(cat shm.left)"
[ -z "$(ls -A tmp)" ] || fail "left in TMPDIR: $(ls -A tmp)"
validate_ok small.picl
echo "ok: $ntest runs"
