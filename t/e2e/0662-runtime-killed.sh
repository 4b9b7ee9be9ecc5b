#!/bin/sh
# 0662-runtime-killed.sh - piclrun killed by SIGKILL leaves nothing behind:
# its processes die with it (PR_SET_PDEATHSIG), the segment's name is gone
# from the start, and its cleaner removes the parts directory it made in
# TMPDIR (which once stayed for ever).
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

piclrun_setup

# node 1 waits for ever in recv0, the others in close0
TMPDIR="$TMP/tmp" "$RUN" -n 4 --deadlock=report -o killed.picl "$EX/noclose" block >run.out 2>run.err &
pr=$!
i=0
until [ "$(ps --ppid $pr -o pid= | wc -l)" -eq 4 ] && [ -n "$(ls -A tmp)" ]; do
  i=$((i + 1))
  [ $i -lt 200 ] || { kill $pr; fail "piclrun did not start 4 processes"; }
  sleep 0.05
done
kids=$(ps --ppid $pr -o pid=)
kill -9 $pr
wait $pr || :

# everything gone within a few seconds (it takes milliseconds)
i=0
while [ -n "$(ls -A tmp)" ] || [ -n "$(ls /dev/shm | grep "^piclrun\.$pr\.")" ]; do
  i=$((i + 1))
  if [ $i -ge 100 ]; then
    kill -9 $kids 2>/dev/null || :
    fail "left after kill -9 of piclrun: $(ls -A tmp) $(ls /dev/shm | grep "^piclrun\.$pr\.")"
  fi
  sleep 0.05
done
for k in $kids; do
  st=$(ps -o stat= -p $k || :)
  case "$st" in ''|Z*) ;; *) kill -9 $k; fail "process $k outlived piclrun ($st)" ;; esac
done
[ ! -e killed.picl ] || fail "a trace was written"
echo "ok: left nothing after $i looks"
