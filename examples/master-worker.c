/*
 * master-worker.c - node 0 hands out TASKS tasks (argv[1], default 100) to
 * the other nodes, one at a time, receiving messages of any type from any
 * worker (recv0 with type -1, recvinfo0 for the type and sender); a task
 * of -1 tells a worker to stop, and it then sends a large message (argv[2]
 * bytes, default 1 MiB, more than a shared-memory ring), which node 0 may
 * get while others still work. The result of task t is t*t; node 0 checks
 * the total and the big messages' bytes. Also exercises probe0.
 */
#include <picl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T_TASK   10
#define T_RESULT 11
#define T_BIG    12

static int check_big(const unsigned char *b, int n, int src)
{
	int i;

	for (i = 0; i < n; i++)
		if (b[i] != (unsigned char)(i * 7 + src))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	int nprocs, me, host, ntasks = argc > 1 ? atoi(argv[1]) : 100;
	int big = argc > 2 ? atoi(argv[2]) : 1 << 20;
	long task, result, total = 0, want = 0;
	unsigned char *buf = malloc((size_t)big);
	int i, next = 0, active, nbig = 0, bytes, type, src, bad = 0;

	if (!buf || big < (int)sizeof(long))
		return 1;
	tracenode(1 << 20, 1, 1);
	open0(&nprocs, &me, &host);
	if (nprocs < 2) {
		fprintf(stderr, "master-worker: needs 2 processes or more\n");
		close0(0);
		return 1;
	}
	if (me == 0) {
		/* active: the workers given a task, whose result is to come
		 * (with fewer tasks than workers, the others stop at once) */
		active = 0;
		for (i = 1; i < nprocs; i++) {
			task = next < ntasks ? next++ : -1;
			active += task >= 0;
			send0((char *)&task, sizeof task, T_TASK, i);
		}
		while (active > 0 || nbig < nprocs - 1) {
			if (active == 0)        /* only big messages to come */
				while (!probe0(T_BIG))
					;
			recv0((char *)buf, big, -1);
			recvinfo0(&bytes, &type, &src);
			if (type == T_BIG) {
				if (bytes != big || check_big(buf, big, src)) {
					fprintf(stderr, "master-worker: big "
						"message from %d corrupt\n", src);
					bad = 1;
				}
				nbig++;
				continue;
			}
			if (type != T_RESULT || bytes != sizeof result) {
				fprintf(stderr, "master-worker: unexpected "
					"message type %d\n", type);
				bad = 1;
			}
			memcpy(&result, buf, sizeof result);
			total += result;
			task = next < ntasks ? next++ : -1;
			if (task < 0)
				active--;
			send0((char *)&task, sizeof task, T_TASK, src);
		}
		for (i = 0; i < ntasks; i++)
			want += (long)i * i;
		if (total != want) {
			fprintf(stderr, "master-worker: total %ld, expected "
				"%ld\n", total, want);
			bad = 1;
		} else {
			printf("master-worker: %d tasks, total %ld\n", ntasks,
			       total);
		}
	} else {
		for (;;) {
			recv0((char *)&task, sizeof task, T_TASK);
			if (task < 0)
				break;
			traceblockbegin(1, (int)task, 0);
			result = task * task;
			traceblockend(1, (int)task, 0);
			send0((char *)&result, sizeof result, T_RESULT, 0);
		}
		for (i = 0; i < big; i++)
			buf[i] = (unsigned char)(i * 7 + me);
		send0((char *)buf, big, T_BIG, 0);
	}
	close0(0);
	free(buf);
	return bad;
}
