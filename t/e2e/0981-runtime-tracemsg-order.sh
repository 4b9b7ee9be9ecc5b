#!/bin/sh
# 0981-runtime-tracemsg-order.sh - tracemsg writes its records at once
# (spec 2.3.1: the message record is written immediately) after what is
# buffered, in every buffer mode of tracenode: the trace file still starts
# with the -901 entry (spec 2.5, Table 13: "the first event record is
# always the tracenode/tracehost entry record") and keeps time order. A
# ring (flush -1) or a stopped buffer (flush 0) kept its records, so the
# -911 records came first in the file, before the -901 entry, and validate
# refused it.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

cd "$TMP"
cat >msg.c <<'EOS'
#include <picl.h>
#include <stdlib.h>
/* msg.c MODE N: tracenode mode MODE with the smallest buffer, N marks,
 * a tracemsg, N marks of type 1000 + k, traceflush, a mark 5000. */
int main(int argc, char **argv)
{
	int np, me, host, k, n = argc > 2 ? atoi(argv[2]) : 10;

	tracenode(4608, argc > 1 ? atoi(argv[1]) : 1, 0);
	open0(&np, &me, &host);
	for (k = 0; k < n; k++)
		tracemark(k);
	tracemsg("in the middle");
	for (k = 0; k < n; k++)
		tracemark(1000 + k);
	traceflush();
	tracemark(5000);
	close0(0);
	return 0;
}
EOS
picl_cc msg msg.c

# 10 marks fit the smallest buffer (64 records); 100 fill it
for mode in -1 0 1; do
  for n in 10 100; do
    rm -f part.picl
    run env PICL_TRACE_PART=part.picl ./msg $mode $n
    expect_rc 0
    what="mode $mode, $n marks"
    first=$(awk '$1 >= -4 && $1 <= -2 { print $1, $2; exit }' part.picl)
    [ "$first" = "-3 -901" ] || fail "$what: first event record '$first', not the -901 entry"
    last=$(awk '$1 >= -4 && $1 <= -2 { l = $1 " " $2 } END { print l }' part.picl)
    [ "$last" = "-4 -901" ] || fail "$what: last event record '$last', not the -901 exit"
    [ "$(grep -c -- '^-7 -911 ' part.picl)" -eq 1 ] || fail "$what: no message record"
    validate_ok part.picl
    # what the buffer held at the message stays before it; a stopped
    # buffer stays stopped (no mark of the second loop), the others
    # trace on, and traceflush resumes detailed tracing in all
    awk -v mode=$mode -v n=$n '
      $1 == -7 { msg = NR }
      $1 == -2 && $2 >= 0 && $2 < 1000 && msg { print "mark " $2 " after the message"; bad = 1 }
      $1 == -2 && $2 >= 1000 && $2 < 5000 { late++ }
      $1 == -2 && $2 == 5000 { resumed = 1 }
      END {
        if (mode == 0 && n == 100 && late) { print late " marks while stopped"; bad = 1 }
        if (!(mode == 0 && n == 100) && !late) { print "no mark after the message"; bad = 1 }
        if (!resumed) { print "no mark after traceflush"; bad = 1 }
        exit bad
      }' part.picl >order.out || fail "$what: $(cat order.out)"
  done
done
