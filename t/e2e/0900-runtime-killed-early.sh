#!/bin/sh
# 0900-runtime-killed-early.sh - piclrun killed by SIGKILL before its
# processes start leaves nothing behind either. The parts directory and the
# segment's file are made by the cleaner (start_cleaner), which removes them
# when piclrun ends without saying it cleaned up: there is no moment when
# one of them exists and nobody would remove it. strace holds piclrun in
# the ftruncate that sizes the segment (once the directory and the file
# exist, before any process starts) while it is killed; it once left both.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

command -v strace >/dev/null 2>&1 || { echo "SKIP: strace not found"; exit 77; }
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
export ASAN_OPTIONS
RUN="$PICL_BUILDDIR/picl-rt/piclrun"
EX="$PICL_BUILDDIR/examples"
cd "$TMP"
mkdir tmp

# strace itself may not be allowed to trace (a container without ptrace)
run strace -f -o st.probe -e trace=ftruncate true
[ "$rc" -eq 0 ] || { echo "SKIP: strace cannot trace here"; exit 77; }

strace -f -o st.out -e trace=ftruncate -e inject=ftruncate:delay_exit=3000000 \
  env TMPDIR="$TMP/tmp" "$RUN" -n 2 -o early.picl "$EX/ring" >run.out 2>run.err &
sp=$!
# piclrun: the process that strace started (env execs it)
i=0
pr=
until [ -n "$pr" ] && [ -n "$(ls -A tmp)" ] &&
      ls /dev/shm | grep -q "^piclrun\.$pr\."; do
  i=$((i + 1))
  [ $i -lt 200 ] || { kill $sp; fail "piclrun made no parts directory and segment"; }
  sleep 0.05
  pr=$(ps --ppid $sp -o pid= | tr -d ' ')
done
shm=$(ls /dev/shm | grep "^piclrun\.$pr\.")
sleep 0.2       # into the ftruncate
grep -q ftruncate st.out || { kill $sp; fail "piclrun is not held in ftruncate"; }
[ -z "$(ps --ppid $pr -o pid=)" ] || { kill $sp; fail "processes started already"; }
kill -9 $pr
wait $sp || :

i=0
while [ -n "$(ls -A tmp)" ] || [ -e "/dev/shm/$shm" ]; do
  i=$((i + 1))
  if [ $i -ge 100 ]; then
    left="$(ls -A tmp) $(ls /dev/shm | grep "^piclrun\.$pr\." || :)"
    rm -rf "/dev/shm/$shm"
    fail "left after kill -9 of piclrun before the start: $left"
  fi
  sleep 0.05
done
[ ! -e early.picl ] || fail "a trace was written"
echo "ok: left nothing after $i looks"
