/*
 * probe-gone.c - a process polling with probe0 (or recvstatus0) for a
 * message that nobody left in the run can send (t/e2e/0660-runtime-probe-
 * gone.sh): the blocking calls fail then ("no message can arrive any
 * more"), and a polling loop must too, rather than spin for ever.
 *
 * Usage: probe-gone MODE [CALL], on 2 processes (or 1 node and a host:
 * host MODE). CALL is probe0 (default) or recvstatus0.
 *   exit   process 1 exits at once without close0; process 0 polls for a
 *          message of type 7 in a loop
 *   host   the node sends one message of type 3 and calls close0; the
 *          host polls for type 7 in a loop
 *   once   process 1 sends its pid (type 3) and exits without close0;
 *          process 0 gets it with probe0 and recv0, waits until the pid
 *          is gone, then 100 probe0 that find nothing return 0 (the
 *          peers are looked at every 64): only a loop that goes on
 *          polling fails
 * Exit 0 when the loop ended (it must not), 1 on a wrong value; the
 * runtime ends a failing process with its own status.
 */
#include <picl.h>

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static int poll_for(const char *call, int type)
{
	if (strcmp(call, "recvstatus0") == 0)
		return recvstatus0(type);
	return probe0(type);
}

int main(int argc, char **argv)
{
	int np, me, host, x = 0;
	const char *mode = argc > 1 ? argv[1] : "exit";
	const char *call = argc > 2 ? argv[2] : "probe0";
	unsigned long n = 0;

	open0(&np, &me, &host);
	if (strcmp(mode, "host") == 0) {
		if (me != host) {
			send0((char *)&x, sizeof x, 3, host);
			close0(0);
			return 0;
		}
	} else if (me == 1) {
		if (strcmp(mode, "once") == 0) {
			x = (int)getpid();
			send0((char *)&x, sizeof x, 3, 0);
		}
		return 0;
	}
	if (strcmp(call, "recvstatus0") == 0)
		recvbegin0((char *)&x, sizeof x, 7);
	if (strcmp(mode, "once") == 0) {
		int i;

		while (!probe0(3))
			;
		recv0((char *)&x, sizeof x, 3);
		/* process 1 has ended, piclrun has reaped it and marked it */
		while (kill((pid_t)x, 0) == 0)
			usleep(1000);
		usleep(10 * 1000);
		for (i = 0; i < 100; i++) {     /* a check of the peers, too */
			if (probe0(3) != 0) {
				printf("probe-gone: a second message\n");
				return 1;
			}
		}
		printf("probe-gone: 100 probe0 returned 0\n");
		fflush(stdout);
	}
	while (!poll_for(call, 7))
		n++;
	printf("probe-gone: %s found a message after %lu polls\n", call, n);
	return 0;
}
