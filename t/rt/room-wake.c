/*
 * room-wake.c - a sender waiting for room in a full ring is woken as soon
 * as the receiver takes a message out (t/e2e/0991-runtime-room-wake.sh),
 * not when its sleep runs out.
 *
 * Usage: room-wake [SIZE [ROUNDS]], on 2 processes with PICL_RING_SIZE=4096.
 * Process 1 sends messages of SIZE bytes (default 1000: four fill the
 * ring), each holding the time at which its send0 was called, that is,
 * when the one before it returned. Process 0 lets the ring fill and the
 * sender go to sleep (40 to 42 ms), takes one message, and so on ROUNDS times
 * (default 30). The message it took made room for the one the sender was
 * blocked on, so the send0 after that one says when the blocked one
 * returned: the delay from the receive. Process 0 prints the median delay
 * in microseconds ("room-wake: median N us"); exit 0.
 */
#include <picl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAXROUNDS 200

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	static char buf[1 << 16];
	static double t0[MAXROUNDS + 16], stamp[MAXROUNDS + 16],
		delay[MAXROUNDS];
	int n, me, host, size = 1000, rounds = 30, inring, k, nd = 0;
	double t;

	if (argc > 1)
		size = atoi(argv[1]);
	if (argc > 2)
		rounds = atoi(argv[2]);
	if (size < (int)sizeof t || size > (int)sizeof buf || rounds < 1 ||
	    rounds > MAXROUNDS) {
		fprintf(stderr, "room-wake: bad SIZE or ROUNDS\n");
		return 2;
	}
	open0(&n, &me, &host);
	if (n != 2) {
		if (me == 0)
			fprintf(stderr, "room-wake: run it on 2 processes\n");
		close0(0);
		return 2;
	}
	/* messages held by a full ring: frames of 16 + size bytes, padded */
	inring = 4096 / (16 + ((size + 15) & ~15));
	if (me == 1) {
		for (k = 0; k < rounds + inring + 1; k++) {
			t = now();
			memcpy(buf, &t, sizeof t);
			send0(buf, size, 1, 0);
		}
	} else {
		for (k = 0; k < rounds + inring + 1; k++) {
			/* the sender fills the ring and sleeps; the sleeps
			 * differ so as not to keep in step with its 2 ms
			 * timeouts */
			if (k < rounds)
				usleep(40000 + (unsigned)(k * 733 % 2000));
			t0[k] = now();
			recv0(buf, sizeof buf, 1);
			memcpy(&stamp[k], buf, sizeof t);
		}
		/* taking message k let the send of k + inring return: the
		 * time of that is in message k + inring + 1 */
		for (k = 0; k < rounds; k++)
			delay[nd++] = stamp[k + inring + 1] - t0[k];
		qsort(delay, (size_t)nd, sizeof *delay, cmp);
		printf("room-wake: median %.0f us (min %.0f, max %.0f)\n",
		       delay[nd / 2] * 1e6, delay[0] * 1e6, delay[nd - 1] * 1e6);
	}
	close0(0);
	return 0;
}
