/*
 * self-send.c - messages a process sends itself are received like any
 * other (t/e2e/0635-runtime-order.sh): by recv0 and probe0 (also of length
 * 0 from a NULL buffer), and by a recvbegin0 posted before the send
 * (recvend0 and recvstatus0 once waited for it forever).
 *
 * Usage: self-send [CALL], on any number of processes; each works alone.
 * Exit 0 when every value came right, 1 (with what went wrong on stdout)
 * otherwise. With CALL (recv0, wait0 or recvend0), each process then
 * waits with that call for a message of type 9 that nobody sends: alone in
 * the run, that is an error (it once waited forever). With "gone CALL",
 * on 2 processes, process 1 ends at once (without close0) and process 0
 * waits with CALL: an error that names CALL (wait0 and recvend0 once
 * said "receive").
 */
#include <picl.h>

#include <stdio.h>
#include <string.h>

static int me, bad;

static void check(int ok, const char *what)
{
	if (!ok) {
		printf("node %d: %s\n", me, what);
		bad++;
	}
}

int main(int argc, char **argv)
{
	int np, host, x = 0, y = 42, len, type, src;
	const char *call = argc > 1 ? argv[1] : "";

	open0(&np, &me, &host);
	if (argc > 2 && strcmp(call, "gone") == 0) {
		if (me == 1)
			return 0;
		call = argv[2];
		goto wait;
	}

	send0(NULL, 0, 3, me);
	check(probe0(3) == 1, "probe0 of a message to myself");
	recv0(NULL, 0, 3);
	recvinfo0(&len, &type, &src);
	check(len == 0 && type == 3 && src == me, "recvinfo0 of an empty message");

	recvbegin0((char *)&x, sizeof x, 5);
	send0((char *)&y, sizeof y, 5, me);
	recvend0(5);
	recvinfo0(&len, &type, &src);
	check(x == 42 && len == (int)sizeof x && type == 5 && src == me,
	      "recvbegin0, send0 to myself, recvend0");

	x = 0;
	y = 43;
	recvbegin0((char *)&x, sizeof x, -1);
	sendbegin0((char *)&y, sizeof y, 6, me);
	sendend0(6);
	check(recvstatus0(-1) == 1 && x == 43, "recvbegin0(-1), sendbegin0 to "
	      "myself, recvstatus0");
	check(probe0(-1) == 0, "a message to myself left after it was received");

	printf("self-send: node %d: %d wrong\n", me, bad);
	fflush(stdout);
wait:
	if (strcmp(call, "recv0") == 0) {
		recv0((char *)&x, sizeof x, 9);
	} else if (strcmp(call, "wait0") == 0) {
		wait0(9);
	} else if (strcmp(call, "recvend0") == 0) {
		recvbegin0((char *)&x, sizeof x, 9);
		recvend0(9);
	}
	close0(0);
	return bad != 0;
}
