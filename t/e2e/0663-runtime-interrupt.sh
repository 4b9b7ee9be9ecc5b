#!/bin/sh
# 0663-runtime-interrupt.sh - Ctrl-C in a terminal sends SIGINT to piclrun
# and to every process of the run (one process group); SIGTERM or SIGHUP
# to the group (a batch system ending a job, a closed terminal) does the
# same. Each process died at once with its trace still in its buffer, and
# piclrun said "no trace parts to merge": the run was lost exactly when it
# was stuck. Now a process notes the signal and fails its next PICL
# communication call (or the wait it is in), "interrupted by SIGINT",
# writing its part, so the run's trace is merged; a signal sent to one
# process stops the whole run; a program's own disposition (here HUP
# ignored, as nohup does) is left alone. A second signal makes a process
# write its part from the handler and die at once (libpicl's emergency
# write): Ctrl-C twice, or piclrun at the end of its grace of 2 s, to a
# process computing without PICL calls (which was killed there, its trace
# lost).
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
piclrun_setup

cat >steps.c <<'EOS'
#include <picl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
/* steps MODE: a ring of messages, each node computing 50 ms (no PICL
 * call) before each exchange
 *   ring   for ever
 *   spin   the same, but node 1 computes for ever after its first round
 *   N      N rounds, then close0 */
static void compute(double s)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9 < s);
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "ring";
	int np, me, host, i, n = atoi(m);
	char b[8] = "step";

	tracenode(1000000, 0, 0);
	open0(&np, &me, &host);
	for (i = 0; n <= 0 || i < n; i++) {
		compute(0.05);
		if (i > 0 && me == 1 && strcmp(m, "spin") == 0)
			for (;;)
				compute(1);
		send0(b, sizeof b, 5, (me + 1) % np);
		recv0(b, sizeof b, 5);
	}
	close0(0);
	return 0;
}
EOS
picl_cc steps steps.c

# start NAME ARGS...: piclrun -n 2 -o NAME.picl ARGS in a process group of
# its own (a terminal's foreground job), in the background; waits until
# its two processes are running and in the program
start() {
  name=$1
  shift
  rm -f pg
  # (a background job of a shell without job control ignores SIGINT,
  # which a terminal's job does not)
  setsid -w env --default-signal=INT sh -c 'echo $$ >pg; exec "$@"' sh \
    "$RUN" -n 2 --deadlock=report -o "$name.picl" "$@" >"$name.out" 2>"$name.err" &
  bg=$!
  i=0
  until [ -s pg ] && [ "$(pgrep -P "$(cat pg)" | wc -l)" -ge 2 ]; do
    i=$((i + 1))
    [ $i -lt 200 ] || { kill $bg; fail "$name: piclrun did not start 2 processes"; }
    sleep 0.05
  done
  pg=$(cat pg)
  sleep 0.5         # both past open0, computing or waiting
}

# finish NAME STATUS: piclrun ends (within 10 s) with STATUS
finish() {
  i=0
  while kill -0 "$bg" 2>/dev/null; do
    i=$((i + 1))
    if [ $i -ge 200 ]; then
      kill -9 -- "-$pg" 2>/dev/null || :
      fail "$1: piclrun still running 10 s after the signal"
    fi
    sleep 0.05
  done
  st=0
  wait "$bg" || st=$?
  [ "$st" -eq "$2" ] || fail "$1: exit status $st, expected $2: $(cat "$1.err")"
}

# kept NAME PROCESSORS...: the merged trace holds each processor's -901
# entry and exit (its part was written and closed)
kept() {
  f=$1.picl
  shift
  [ -s "$f" ] || fail "$f: no trace: $(cat "${f%.picl}.err")"
  for p in "$@"; do
    grep -q "^-3 -901 [-0-9.]* $p 0 " "$f" && grep -q "^-4 -901 [-0-9.]* $p 0 " "$f" ||
      fail "$f: processor $p's trace is missing or unclosed: $(cat "${f%.picl}.err")"
  done
}

# Ctrl-C while the processes wait in recv0
start block "$EX/noclose" block
kill -INT -- "-$pg"
finish block 130
kept block 0 1
grep -q '^picl: process 1: recv0: interrupted by SIGINT while it waited for a message of type 77; not received: 1 message, of type 2 from process 0$' block.err ||
  fail "block: the process does not say why it stops: $(cat block.err)"
grep -q 'killed by signal' block.err && fail "block: a process was killed: $(cat block.err)"
grep -q '^-7 .* picl: recv0: interrupted by SIGINT while it waited for a message of type 77; not received: 1 message, of type 2 from process 0$' block.picl ||
  fail "block: the trace does not say why it stops"

# Ctrl-C while they compute between PICL calls, and SIGTERM to the group
for sig in INT TERM; do
  start ring$sig ./steps ring
  kill -$sig -- "-$pg"
  [ $sig = INT ] && want=130 || want=143
  finish ring$sig $want
  kept ring$sig 0 1
  grep -q "interrupted by SIG$sig" ring$sig.err ||
    fail "ring$sig: no process says it was interrupted: $(cat ring$sig.err)"
done

# SIGTERM to process 1 alone (kill PID): the run stops, process 1's trace
# is kept too
start one ./steps ring
kill -TERM "$(pgrep -P "$pg" | head -n 1)"
finish one 1
kept one 0 1
grep -q '^piclrun: process [01] was interrupted by SIGTERM$\|^piclrun: process [01] caught SIGTERM: ' one.err ||
  fail "one: piclrun does not say which process got the signal: $(cat one.err)"

# A process computing without calling PICL does not notice: at the end
# of piclrun's grace it gets a second signal (SIGTERM), which makes it
# write its part from the handler and die (it used to be killed with its
# trace, SIGKILL); the run is still reported as interrupted
start spin ./steps spin
kill -INT -- "-$pg"
finish spin 130
kept spin 0 1
grep -q '^piclrun: interrupted by SIGINT: process 1 still running$' spin.err ||
  fail "spin: piclrun does not name the process still running: $(cat spin.err)"
grep -q '^-7 -911 [0-9.]* 1 0 [0-9]* 0 picl: stopped by SIGTERM after SIGINT$' spin.picl ||
  fail "spin: process 1's trace does not say why it stopped"
grep -q '^-4 -5[12] [0-9.]* 1 0 ' spin.picl ||
  fail "spin: process 1's first round is missing"
validate_ok spin.picl --partial

# Ctrl-C twice: the second stops at once (no grace to wait for) and still
# keeps what the process computing outside PICL traced
start twice ./steps spin
kill -INT -- "-$pg"
sleep 0.3
t0=$(date +%s%N)
kill -INT -- "-$pg"
finish twice 130
t1=$(date +%s%N)
[ $(((t1 - t0) / 1000000)) -lt 1500 ] ||
  fail "twice: piclrun took $(((t1 - t0) / 1000000)) ms after the second Ctrl-C"
kept twice 0 1
grep -q '^-7 -911 [0-9.]* 1 0 [0-9]* 0 picl: stopped by a second SIGINT$' twice.picl ||
  fail "twice: process 1's trace does not say why it stopped: $(cat twice.err)"
grep -q 'SIGKILL' twice.err && fail "twice: a process was killed: $(cat twice.err)"
validate_ok twice.picl --partial

# --timeout with a process computing outside PICL: nobody signalled it,
# so at the end of the grace it gets a first SIGTERM, then the second
# that writes its part (it used to be killed with its trace)
run timeout 60 "$RUN" -n 2 --timeout 1 -o tmo.picl ./steps spin
expect_rc 1
cp "$TMP/err" tmo.err
grep -q '^piclrun: timeout after 1 s: process 1 still running$' tmo.err ||
  fail "tmo: piclrun does not name the process still running: $(cat tmo.err)"
kept tmo 0 1
grep -q '^-7 -911 [0-9.]* 1 0 [0-9]* 0 picl: stopped by a second SIGTERM$' tmo.picl ||
  fail "tmo: process 1's trace does not say why it stopped"
grep -q '^-4 -5[12] [0-9.]* 1 0 ' tmo.picl ||
  fail "tmo: process 1's first round is missing"
grep -q 'SIGKILL' tmo.err && fail "tmo: a process was killed: $(cat tmo.err)"
validate_ok tmo.picl --partial

# SIGHUP ignored by the program's environment (nohup, trap '' HUP) stays
# ignored: the run goes on to its end
trap '' HUP
start hup ./steps 40
kill -HUP -- "-$pg"
finish hup 0
trap - HUP
validate_ok hup.picl
rm -f steps steps.c ./*.picl ./*.out ./*.err pg
echo "PASS: runtime interrupt checks"
