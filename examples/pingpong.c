/*
 * pingpong.c - latency and bandwidth between nodes 0 and 1: ITERS round
 * trips (argv[2], default 10000) of SIZE bytes (argv[1], default 8) with
 * send0/recv0; node 0 prints half the mean round trip in microseconds and
 * the bandwidth. Tracing stays off, so this measures the communication
 * layer alone (the same program under libpicl-mpi and mpirun gives the MPI
 * figure).
 */
#include <picl.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int nprocs, me, host, i, size = argc > 1 ? atoi(argv[1]) : 8;
	int iters = argc > 2 ? atoi(argv[2]) : 10000;
	char *buf = calloc(1, size > 0 ? (size_t)size : 1);
	double t0, t;

	if (!buf || size < 0 || iters < 1)
		return 2;
	open0(&nprocs, &me, &host);
	if (nprocs < 2) {
		fprintf(stderr, "pingpong: needs 2 processes\n");
		close0(0);
		return 2;
	}
	for (i = 0; i < 10 && me < 2; i++) {   /* warm up */
		if (me == 0) {
			send0(buf, size, 1, 1);
			recv0(buf, size, 1);
		} else {
			recv0(buf, size, 1);
			send0(buf, size, 1, 0);
		}
	}
	sync0();
	t0 = clock0();
	for (i = 0; i < iters && me < 2; i++) {
		if (me == 0) {
			send0(buf, size, 1, 1);
			recv0(buf, size, 1);
		} else {
			recv0(buf, size, 1);
			send0(buf, size, 1, 0);
		}
	}
	t = clock0() - t0;
	if (me == 0)
		printf("pingpong: %d bytes: %.3f us one way, %.1f MB/s\n", size,
		       t / iters / 2 * 1e6, size * 2.0 * iters / t / 1e6);
	close0(0);
	free(buf);
	return 0;
}
