/*
 * mpi-pingpong.c - examples/pingpong.c in plain MPI, for comparison with
 * PICL's send0/recv0: ranks 0 and 1 make ITERS round trips (argv[2],
 * default 10000) of SIZE bytes (argv[1], default 8) with MPI_Send/MPI_Recv
 * after 10 warm-up round trips and a barrier, timed with MPI_Wtime; rank 0
 * prints half the mean round trip and the bandwidth in the same format as
 * pingpong ("pingpong: N bytes: X us one way, Y MB/s").
 *
 *   mpicc -O2 -o mpi-pingpong bench/mpi-pingpong.c
 *   mpirun --allow-run-as-root -np 2 ./mpi-pingpong 65536 1000
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int nprocs, me, i, size = argc > 1 ? atoi(argv[1]) : 8;
	int iters = argc > 2 ? atoi(argv[2]) : 10000;
	char *buf = calloc(1, size > 0 ? (size_t)size : 1);
	double t0, t;

	if (!buf || size < 0 || iters < 1)
		return 2;
	MPI_Init(&argc, &argv);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	if (nprocs < 2) {
		fprintf(stderr, "mpi-pingpong: needs 2 processes\n");
		MPI_Finalize();
		return 2;
	}
	for (i = 0; i < 10 && me < 2; i++) {   /* warm up */
		if (me == 0) {
			MPI_Send(buf, size, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
			MPI_Recv(buf, size, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(buf, size, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(buf, size, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
		}
	}
	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	for (i = 0; i < iters && me < 2; i++) {
		if (me == 0) {
			MPI_Send(buf, size, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
			MPI_Recv(buf, size, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(buf, size, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(buf, size, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
		}
	}
	t = MPI_Wtime() - t0;
	if (me == 0)
		printf("pingpong: %d bytes: %.3f us one way, %.1f MB/s\n", size,
		       t / iters / 2 * 1e6, size * 2.0 * iters / t / 1e6);
	MPI_Finalize();
	free(buf);
	return 0;
}
