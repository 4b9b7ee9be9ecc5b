#!/bin/sh
# traceevents(n, ...) profiles user event types 0 to n-1: libpicl's
# records relative to -1 list only those. Called after tracenode it
# leaves a -902 entry with n, and stat --compare takes the others for
# unprofiled; called before, the trace has no -902 record and cannot tell
# which were profiled: stat --compare reported the others as "not
# recorded" differences. Now they are notes, and validate is clean.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

cd "$TMP"
cat >ev.c <<'EOS'
#include <picl.h>
#include <stdlib.h>
/* ev.c AFTER: traceevents(1, ...) before tracenode (AFTER 0) or after it
 * (1); then user events 0, 1 and 2 each take some time. */
int main(int argc, char **argv)
{
	int np, me, host, k, after = argc > 1 && atoi(argv[1]);
	volatile double x = 0;

	if (!after)
		traceevents(1, 1, 1, 1, 1);
	tracenode(100000, 1, 0);
	if (after)
		traceevents(1, 1, 1, 1, 1);
	open0(&np, &me, &host);
	for (k = 0; k < 3; k++) {
		int i;

		traceblockbegin(k, 0, 0);
		for (i = 0; i < 200000; i++)
			x += i;
		traceblockend(k, 0, 0);
	}
	close0(0);
	return 0;
}
EOS
picl_cc ev ev.c

for after in 1 0; do
  rm -f part.picl
  run env PICL_TRACE_PART=part.picl ./ev $after
  expect_rc 0
  # the premise: a -902 entry of 1 after tracenode only; user events 1
  # and 2 took time, and the user records relative to -1 list 0 alone
  n902=$(awk '$1 == -3 && $2 == -902 { print $NF }' part.picl)
  if [ "$after" = 1 ]; then
    [ "$n902" = 1 ] || fail "traceevents after tracenode: -902 entry '$n902'"
  else
    [ -z "$n902" ] || fail "traceevents before tracenode wrote a -902 entry"
  fi
  grep -q '^-4 2 ' part.picl || fail "no exit of user event 2"
  run awk '$1 == -101 && $2 == -1 && $6 == 1 && $8 == 0 { n++ } END { exit n != 1 }' part.picl
  [ "$rc" = 0 ] || fail "after=$after: the user -101 record is not '0' alone: $(grep '^-101 -1' part.picl)"

  run "$PT" validate part.picl
  [ "$rc" = 0 ] || fail "after=$after: validate: $(cat "$TMP/out")"
  run "$PT" stat --compare part.picl
  [ "$rc" = 0 ] || fail "after=$after: stat --compare: $(cat "$TMP/out")"
  ! grep -v '^note: ' "$TMP/out" | grep -q "not recorded" ||
    fail "after=$after: stat --compare calls unprofiled events left out: $(cat "$TMP/out")"
  notes=$(grep -c '^note: .*: [a-z]* of [12] user event: not recorded.*does not tell whether traceevents profiled it' "$TMP/out" || true)
  if [ "$after" = 1 ]; then
    [ "$notes" = 0 ] || fail "after=1: notes though -902 tells: $(cat "$TMP/out")"
  else
    [ "$notes" = 4 ] || fail "after=0: $notes notes on events 1 and 2 (time, count): $(cat "$TMP/out")"
  fi
done
rm -f part.picl ev ev.c
