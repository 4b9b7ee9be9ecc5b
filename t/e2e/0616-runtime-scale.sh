#!/bin/sh
# 0616-runtime-scale.sh - piclrun with hundreds of processes on a machine
# with few cores (t/rt/open-close: open0 then close0).
#
# close0 once woke every sleeping process of the run (local.c's
# local_finalize), each then scanning all its incoming rings: as the
# processes left close0's barrier one after the other, each woke all
# those still waiting, n^2 wake-ups (-n 256: ~21000 voluntary context
# switches, -n 1024: ~45000 and most of the run's 1.7 s; when all sleep
# in the barrier before node 0 releases them, -n 256: ~30000). Now a closing
# process wakes only senders waiting for room to it and the last process
# still open: ~2 per process. The count is that of /usr/bin/time (%w: of
# piclrun and every process it waited for); the bound, 16 per process,
# leaves room for a loaded machine.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

RUN="$PICL_BUILDDIR/picl-rt/piclrun"
OC="$PICL_BUILDDIR/t/rt/open-close"
cd "$TMP"

run timeout 60 "$RUN" -n 256 "$OC"
expect_rc 0

if [ -x /usr/bin/time ]; then
  n=256
  # node 0 comes to close0 last, 300 ms late: all the others sleep there
  run /usr/bin/time -o vcs -f '%w' timeout 60 "$RUN" -n $n "$OC" 300
  expect_rc 0
  vcs=$(tail -1 vcs)
  echo "piclrun -n $n open-close: $vcs voluntary context switches"
  [ "$vcs" -lt $((16 * n)) ] ||
    fail "piclrun -n $n open-close: $vcs voluntary context switches (close0 wakes every sleeper?)"
else
  echo "(no /usr/bin/time: context switches not counted)"
fi
echo "ok: $ntest runs"
