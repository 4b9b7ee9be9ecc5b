/*
 * die-mid.c - a sender that dies in the middle of a message larger than
 * the ring (t/e2e/0994-runtime-die-mid.sh): the receiver, which has taken
 * the part that arrived, fails ("no message can arrive any more") instead
 * of waiting for ever or taking the part as the message.
 *
 * Usage: die-mid HOW, on 2 processes with PICL_RING_SIZE=4096. Process 1
 * sends its pid, then a message of 1 MiB (type 2), and blocks once the
 * ring is full. Process 0 lets it fill the ring, stops it (SIGSTOP), has
 * it killed 0.3 s later (SIGALRM's handler sends SIGKILL) and meanwhile
 * takes the message: HOW is recv (recv0 of type 2: streamed into the
 * buffer), any (recv0 of any type) or probe (probe0 until it says yes:
 * reassembled by the engine). Exits 0 only if the message came whole,
 * which it cannot.
 */
#include <picl.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static char buf[1 << 20];
static volatile pid_t victim;

static void on_alarm(int sig)
{
	(void)sig;
	kill(victim, SIGKILL);
}

int main(int argc, char **argv)
{
	int n, me, host, pid;
	const char *how = argc > 1 ? argv[1] : "recv";
	struct itimerval it;

	open0(&n, &me, &host);
	if (n != 2) {
		if (me == 0)
			fprintf(stderr, "die-mid: run it on 2 processes\n");
		close0(0);
		return 2;
	}
	if (me == 1) {
		pid = (int)getpid();
		send0((char *)&pid, sizeof pid, 1, 0);
		send0(buf, sizeof buf, 2, 0);
		close0(0);
		return 0;
	}
	recv0((char *)&pid, sizeof pid, 1);
	victim = (pid_t)pid;
	usleep(100000);                 /* the ring fills, the sender waits */
	kill(victim, SIGSTOP);
	signal(SIGALRM, on_alarm);
	memset(&it, 0, sizeof it);
	it.it_value.tv_usec = 300000;
	setitimer(ITIMER_REAL, &it, NULL);
	if (strcmp(how, "probe") == 0)
		while (!probe0(2))
			;
	recv0(buf, sizeof buf, strcmp(how, "any") == 0 ? -1 : 2);
	printf("die-mid: received the whole message\n");
	close0(0);
	return 0;
}
