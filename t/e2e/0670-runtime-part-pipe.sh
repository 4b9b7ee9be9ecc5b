#!/bin/sh
# 0670-runtime-part-pipe.sh - a trace part written to a pipe or a FIFO
# (PICL_TRACE_PART=/dev/stdout into a compressor or a filter, or a FIFO a
# reader drains) is whole, and nothing is said about it: libpicl used to
# print "picl: cannot truncate trace file /dev/stdout: Invalid argument"
# when it first opened one (only a regular file has anything to empty).
# And the emergency write's alarm: a process that crashes while its part
# cannot be written (a FIFO nobody reads, full) still dies of its signal
# after EMERGENCY_SECONDS (5 s), instead of hanging in the writer.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

cd "$TMP"
cat >blocks.c <<'EOS'
#include <picl.h>
#include <stdlib.h>
#include <string.h>
/* blocks N [crash]: N user blocks in a 1 MiB buffer flushed when full;
 * with "crash", abort() instead of close0 */
int main(int argc, char **argv)
{
	int np, me, host, i, n = argc > 1 ? atoi(argv[1]) : 10;

	tracenode(1 << 20, 1, 0);
	open0(&np, &me, &host);
	for (i = 0; i < n; i++) {
		traceblockbegin(1, 0, i);
		traceblockend(1, 0, i);
	}
	if (argc > 2 && strcmp(argv[2], "crash") == 0)
		abort();
	close0(0);
	return 0;
}
EOS
picl_cc blocks blocks.c

# whole_trace FILE N: FILE is the run's whole trace (N blocks, closed)
whole_trace() {
  validate_ok "$1"
  "$PT" cat "$1" >plain.picl || fail "$1: picltrace cat"
  [ "$(grep -c '^-3 1 ' plain.picl)" -eq "$2" ] || fail "$1: not $2 blocks"
  grep -q '^-4 -901 ' plain.picl || fail "$1: no -901 exit"
}

# into a pipe: 30000 blocks, flushed several times
sh -c 'PICL_TRACE_PART=/dev/stdout ./blocks 30000 2>pipe.err | cat >pipe.picl' ||
  fail "pipe: $(cat pipe.err)"
[ ! -s pipe.err ] || fail "pipe: $(cat pipe.err)"
whole_trace pipe.picl 30000

# into a FIFO that cat drains, zstd
mkfifo fifo
cat fifo >fifo.picl.zst &
drain=$!
PICL_TRACE_ZSTD=1 PICL_TRACE_PART=fifo ./blocks 50 2>fifo.err || fail "fifo: $(cat fifo.err)"
wait $drain
[ ! -s fifo.err ] || fail "fifo: $(cat fifo.err)"
[ "$(od -An -tx1 -N4 fifo.picl.zst)" = " 28 b5 2f fd" ] || fail "fifo: the part is not zstd"
whole_trace fifo.picl.zst 50

# a crash while the FIFO is held open (so that opening it does not wait)
# but never read: the emergency write blocks once the pipe is full (2000
# blocks, about 100 KB, more than the pipe's 64 KiB), and its alarm ends it
if grep -q '^#define HAVE__FORK 1' "$PICL_BUILDDIR/config.h"; then
  exec 3<>fifo
  t0=$(date +%s)
  st=0
  PICL_TRACE_PART=fifo timeout -k 5 60 ./blocks 2000 crash 2>crash.err || st=$?
  t1=$(date +%s)
  exec 3>&-
  [ "$st" -eq 134 ] ||
    fail "crash: exit status $st, expected 134 (SIGABRT): $(cat crash.err)"
  [ $((t1 - t0)) -ge 4 ] && [ $((t1 - t0)) -le 30 ] ||
    fail "crash: took $((t1 - t0)) s, expected about 5 (the writer's alarm)"
  grep -q 'truncate' crash.err && fail "crash: $(cat crash.err)"
else
  echo "# no _Fork in this C library: the crash case skipped"
fi
rm -f blocks blocks.c fifo ./*.picl ./*.zst ./*.err
echo "PASS: runtime part into a pipe or a FIFO"
