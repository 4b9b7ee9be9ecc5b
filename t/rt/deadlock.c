/*
 * deadlock.c - runs that deadlock, and runs that only look as if they
 * might, for piclrun's deadlock detection and libpicl-mpi's
 * (t/e2e/0667-runtime-deadlock.sh, 0668-runtime-mpi-deadlock.sh).
 *
 * Usage: deadlock MODE [trace], on 2 processes unless said (host: 1 node
 * and a host). With "trace", the processes trace (tracenode) and recv0
 * takes its traced path; without, its short one.
 *   types     process 0 sends type 6 to process 1 and waits for type 7;
 *             process 1 waits for type 5: a deadlock, the message of
 *             type 6 queued at process 1
 *   close     process 1 waits for a message process 0 never sends;
 *             process 0 calls close0 (its barrier waits for process 1)
 *   host      the host waits for type 3 from node 0, node 0 for type 4
 *             from the host (the host program is started without
 *             arguments: it always waits; with DEADLOCK_HOST_CLOSES set
 *             in the environment, it calls close0 at once instead and
 *             sleeps 20 s, a process that can send no more; types then
 *             has node 0 first send it a message after 1 s, which stays
 *             in its ring)
 *   late      no deadlock: process 1 waits while process 0 computes
 *             (sleeps) for 2 s before it sends
 *   lateopen  no deadlock: process 0 waits for process 1, which sleeps
 *             2 s before open0
 *   tokens    no deadlock: on 4 or more processes, process 0 waits while
 *             a token goes twice round the ring of the others, each
 *             holding it 0.9 to 1.3 s: each waits long enough to report
 *             to rank 0 (libpicl-mpi), and the holder's report is stale
 *   stale     no deadlock, on 3 processes: process 1 waits 1.5 s for a
 *             message from process 2, answers it, then computes 3 s before
 *             it sends process 0 (waiting all along) the last message;
 *             meanwhile every message sent has been received but by
 *             process 1, whose last report (libpicl-mpi) is stale: rank 0
 *             asks, and process 1 does not answer until it is done
 *   leftover  no deadlock, but messages never received: process 0 sends
 *             types 6 and 8 to process 1 and types 9 and 10 to the host
 *             (if any), and nobody receives them but type 10 (the host
 *             waits for it when DEADLOCK_HOST_LEFTOVER is set, so that
 *             type 9 is there at its close0); everyone calls close0
 * Exit 0 when the run ended well (the deadlocks must not).
 */
#include <picl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* tokens: process 0 waits while a token goes twice round the ring of the
 * others, each holding it 0.9 to 1.3 s; back home, it goes to process 0 */
static void tokens(int np, int me)
{
	int tok[2] = { 0, 0 }, ring = np - 1;   /* laps, hops made */

	if (me == 0) {
		recv0((char *)tok, sizeof tok, 2);
		return;
	}
	if (me == 1)
		send0((char *)tok, sizeof tok, 1, 2);
	for (;;) {
		recv0((char *)tok, sizeof tok, 1);
		if (++tok[1] % ring == 0 && ++tok[0] == 2) {   /* home */
			send0((char *)tok, sizeof tok, 2, 0);
			return;
		}
		usleep(900000 + (useconds_t)((me * 7 + tok[1] * 13) % 5) * 100000);
		send0((char *)tok, sizeof tok, 1, me % ring + 1);
		if (tok[1] + ring - 1 >= 2 * ring)      /* its last visit */
			return;
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "types";
	int trace = argc > 2 && strcmp(argv[2], "trace") == 0;
	int np, me, host;
	char buf[64] = "message";

	if (strcmp(mode, "lateopen") == 0 && getenv("PICL_RANK") &&
	    strcmp(getenv("PICL_RANK"), "1") == 0)
		sleep(2);
	open0(&np, &me, &host);
	if (trace)
		tracenode(100000, 1, 0);
	if (me == host && getenv("DEADLOCK_HOST_CLOSES")) {
		close0(0);
		sleep(20);
		return 0;
	} else if (me == host && getenv("DEADLOCK_HOST_LEFTOVER")) {
		/* leftover: wait until node 0 has sent (its type 10 comes
		 * after the type 9 left over) */
		recv0(buf, sizeof buf, 10);
	} else if (me == host) {        /* PICL_HOST */
		recv0(buf, sizeof buf, 3);
	} else if (strcmp(mode, "types") == 0) {
		if (me == 0) {
			if (host != -1 && getenv("DEADLOCK_HOST_CLOSES")) {
				sleep(1);
				send0(buf, 8, 9, host);
			}
			send0(buf, 8, 6, 1);
			recv0(buf, sizeof buf, 7);
		} else {
			recv0(buf, sizeof buf, 5);
		}
	} else if (strcmp(mode, "close") == 0) {
		if (me == 1)
			recv0(buf, sizeof buf, 5);
	} else if (strcmp(mode, "host") == 0) {
		recv0(buf, sizeof buf, 4);
	} else if (strcmp(mode, "late") == 0) {
		if (me == 0) {
			sleep(2);
			send0(buf, 8, 5, 1);
		} else {
			recv0(buf, sizeof buf, 5);
		}
	} else if (strcmp(mode, "lateopen") == 0) {
		if (me == 1)
			send0(buf, 8, 5, 0);
		else
			recv0(buf, sizeof buf, 5);
	} else if (strcmp(mode, "stale") == 0) {
		if (me == 0) {
			recv0(buf, sizeof buf, 2);
		} else if (me == 1) {
			recv0(buf, sizeof buf, 1);
			send0(buf, 8, 1, 2);
			sleep(3);
			send0(buf, 8, 2, 0);
		} else {
			usleep(1500000);
			send0(buf, 8, 1, 1);
			recv0(buf, sizeof buf, 1);
		}
	} else if (strcmp(mode, "tokens") == 0) {
		tokens(np, me);
	} else if (strcmp(mode, "leftover") == 0) {
		if (me == 0) {
			send0(buf, 8, 6, 1);
			send0(buf, 8, 8, 1);
			if (host != -1) {
				send0(buf, 8, 9, host);
				send0(buf, 8, 10, host);
			}
		}
	} else {
		fprintf(stderr, "deadlock: unknown mode %s\n", mode);
		return 2;
	}
	close0(0);
	return 0;
}
