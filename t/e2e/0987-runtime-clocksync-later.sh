#!/bin/sh
# 0987-runtime-clocksync-later.sh - a clocksync0 after records were
# written (traceflush, a full buffer in flush mode) keeps the time origin
# in use: written records cannot move (Appendix A: clocksync0 affects the
# records not yet written), so every process's times never decrease and
# the trace validates, whatever the order of clocksync0 and the flushes;
# the first clocksync0 before anything is written still resets the
# origin (the records before it get negative times, Table 20). Also with
# clocks that differ between the processes (PICL_FAKE_CLOCK), where a
# later clocksync0 corrects the offsets, and for examples/collectives,
# which calls clocksync0 again after its buffer was written out.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
piclrun_setup

cat >sync.c <<'EOS'
#include <picl.h>
#include <string.h>
/* sync MODE: messages around a ring, with clocksync0 calls
 *   first  clocksync0 once, before anything is written
 *   flush  traceflush, clocksync0, traceflush, clocksync0
 *   one    only node 1 flushes before the clocksync0
 *   small  the smallest buffer in flush mode (written out whenever
 *          full), clocksync0 every 10 rounds */
static int np, me, host;

static void ring(int rounds)
{
	char b[8] = "ring";
	int i;

	for (i = 0; i < rounds; i++) {
		send0(b, sizeof b, 5, (me + 1) % np);
		recv0(b, sizeof b, 5);
	}
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";
	int i;

	tracenode(strcmp(m, "small") == 0 ? 1 : 100000, 1, 0);
	open0(&np, &me, &host);
	ring(3);
	if (strcmp(m, "first") == 0) {
		clocksync0();
		ring(3);
	} else if (strcmp(m, "flush") == 0) {
		traceflush();
		ring(3);
		clocksync0();
		ring(3);
		traceflush();
		clocksync0();
		ring(3);
	} else if (strcmp(m, "one") == 0) {
		if (me == 1)
			traceflush();
		clocksync0();
		ring(3);
	} else if (strcmp(m, "small") == 0) {
		for (i = 0; i < 60; i++) {
			ring(1);
			if (i % 10 == 5)
				clocksync0();
		}
	}
	close0(0);
	return 0;
}
EOS
picl_cc sync sync.c

# nondecreasing FILE...: each processor's record times never decrease, in
# the order each file holds them
nondecreasing() {
  for f in "$@"; do
    awk -v f="$f" '
      $1 == -301 || $1 == -307 { next }
      ($4 in last) && $3 + 0 < last[$4] + 0 {
        printf "%s:%d: processor %s goes back from %s to %s: %s\n", f, FNR, $4, last[$4], $3, $0
        bad = 1
      }
      { last[$4] = $3 }
      END { exit bad }' "$f" >msg || { cat msg >&2; fail "$f: time goes back"; }
  done
}

# check N MODE [ENV...]: run ./sync MODE on N processes, keeping the
# parts; with ENV (a fake clock per process, whose messages may well
# arrive before they leave) validate's tachyons are no fault
check() {
  n=$1 mode=$2
  shift 2
  rm -rf parts
  run env "$@" timeout 60 "$RUN" -n "$n" --keep-parts --parts-dir=parts -o "$mode.picl" ./sync "$mode"
  expect_rc 0
  if [ $# -eq 0 ]; then
    validate_ok "$mode.picl"
  else
    run "$PT" validate --max-errors=0 "$mode.picl"
    if grep -v -e ': tachyon: ' -e ' errors, 0 warnings$' "$TMP/out" >msg; then
      cat "$TMP/out" >&2
      fail "$mode.picl ($*): not valid"
    fi
  fi
  nondecreasing "$mode.picl" parts/*
  grep -q '^-4 -401 ' "$mode.picl" || fail "$mode.picl: no clocksync0"
}

for n in 2 3; do
  check $n first
  # the first clocksync0 resets the origin: what came before is negative
  awk '$1 == -3 && $2 == -401 { sync[$4] = 1 }
       $1 == -3 && $2 == -21 && !($4 in sync) && $3 + 0 < 0 { neg[$4] = 1 }
       END { for (p in sync) if (!(p in neg)) exit 1 }' first.picl ||
    fail "first.picl: no negative times before the first clocksync0"
  check $n flush
  check $n one
  check $n small
  [ "$(grep -c '^-4 -912 ' small.picl)" -gt $n ] ||
    fail "small.picl: the buffer was not written out"
  # clocks that differ: a later clocksync0 corrects the offsets
  check $n flush PICL_FAKE_CLOCK=700
  check $n small PICL_FAKE_CLOCK=700
done

# the example: a second clocksync0 after its 64 KB buffer was written out
rm -rf parts
run timeout 120 "$RUN" -n 3 --keep-parts --parts-dir=parts -o coll.picl "$EX/collectives" -t -s 65536
expect_rc 0
validate_ok coll.picl
nondecreasing coll.picl parts/*
awk '$1 == -4 && $2 == -912 { out[$4] = 1 }
     $1 == -3 && $2 == -401 && ($4 in out) { late[$4] = 1 }
     END { for (p = 0; p < 3; p++) if (!(p in late)) exit 1 }' coll.picl ||
  fail "coll.picl: not every process called clocksync0 after a write"
