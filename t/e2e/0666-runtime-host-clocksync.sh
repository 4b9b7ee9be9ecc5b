#!/bin/sh
# 0666-runtime-host-clocksync.sh - a host program's records are on the
# nodes' time line after the nodes' clocksync0: node 0 sends the host the
# time origin it chose, and the host takes it (at its next communication
# call, its clocksync0 or close0). The host takes no part in the nodes'
# clocksync0, and set its origin from its own clock: without a clocksync0
# of its own its records kept the unaligned clock (seconds since boot)
# while the nodes' started near 0; with one made 0.2 s after the nodes',
# its times were 0.2 s early, and validate found its messages received
# before they were sent (tachyons).
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
piclrun_setup
PICL_TRACE_CLOCK=monotonic; export PICL_TRACE_CLOCK

cat >host.c <<'EOF'
#include <picl.h>
#include <stdlib.h>
#include <unistd.h>
/* HOST_SYNC: 0 no clocksync0; 1 one 0.2 s after the nodes'; 2 one
 * before the nodes' (they wait 0.2 s first) */
int main(void)
{
	int n, me, host, v, i, mode = atoi(getenv("HOST_SYNC"));

	tracehost(1 << 16, 1);
	open0(&n, &me, &host);
	if (mode == 2)
		clocksync0();
	usleep(200000);
	if (mode == 1)
		clocksync0();
	for (i = 0; i < n; i++) {
		v = i;
		send0((char *)&v, sizeof v, 1, i);
	}
	for (i = 0; i < n; i++)
		recv0((char *)&v, sizeof v, -1);
	close0(0);
	return 0;
}
EOF
cat >node.c <<'EOF'
#include <picl.h>
#include <stdlib.h>
#include <unistd.h>
int main(void)
{
	int n, me, host, v;

	tracenode(1 << 16, 1, 0);
	open0(&n, &me, &host);
	if (atoi(getenv("HOST_SYNC")) == 2)
		usleep(200000);
	clocksync0();
	recv0((char *)&v, sizeof v, 1);
	send0((char *)&v, sizeof v, 2, host);
	close0(0);
	return 0;
}
EOF
picl_cc host host.c
picl_cc node node.c

for mode in 0 1 2; do
  HOST_SYNC=$mode; export HOST_SYNC
  run timeout 60 "$RUN" -n 3 --host ./host -o h$mode.picl ./node
  expect_rc 0
  validate_ok h$mode.picl
  # every record within 10 s of the nodes' time 0 (the unaligned clock
  # is the machine's uptime)
  awk '$1 > -300 && ($3 > 10 || $3 < -10) { print; exit 1 }' h$mode.picl >bad ||
    fail "HOST_SYNC=$mode: a record far from the nodes' time 0: $(cat bad)"
  awk '$1 == -3 && $2 == -21 && $4 == 32767 { n++ } END { exit n != 3 }' h$mode.picl ||
    fail "HOST_SYNC=$mode: not 3 sends of the host"
done
echo "ok $ntest"
