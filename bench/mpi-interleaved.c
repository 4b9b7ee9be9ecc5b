/*
 * mpi-interleaved.c - libpicl-mpi's send0/recv0 against plain MPI_Send/
 * MPI_Recv in the same processes, block by block: ranks 0 and 1 make
 * BLOCKS (argv[3], default 40) alternating blocks of ITERS round trips
 * (argv[2], default 50000) of SIZE bytes (argv[1], default 8), one block
 * with MPI on MPI_COMM_WORLD, the next with PICL (whose messages travel on
 * a communicator of its own), the order swapped every other pair. Rank 0
 * prints each kind's median and best block (half the mean round trip, in
 * microseconds) and the ratio of the medians:
 *
 *   interleaved: 8 bytes: mpi median 0.262 best 0.255 us; picl median
 *   0.270 best 0.262 us; picl/mpi 1.031 (median), 1.027 (best)
 *
 * Separate runs of two programs differ by more than the few percent this
 * measures (where mpirun places the ranks, what else the machine does at
 * the time); blocks taken in turn within one run see the same placement
 * and the same weather.
 *
 *   mpicc -O2 -Ipicl-rt -o mpi-interleaved bench/mpi-interleaved.c \
 *     -L_build/picl-rt/.libs -lpicl-mpi
 *   mpirun --allow-run-as-root -np 2 ./mpi-interleaved 8 50000 40
 */
#include <mpi.h>
#include <picl.h>

#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One block of round trips, MPI's way or PICL's: half the mean round
 * trip in microseconds (rank 0's measure; rank 1 returns 0). */
static double block(int picl, int me, char *buf, int size, int iters)
{
	double t0;
	int i;

	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	for (i = 0; i < iters; i++) {
		if (picl && me == 0) {
			send0(buf, size, 1, 1);
			recv0(buf, size, 1);
		} else if (picl) {
			recv0(buf, size, 1);
			send0(buf, size, 1, 0);
		} else if (me == 0) {
			MPI_Send(buf, size, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
			MPI_Recv(buf, size, MPI_BYTE, 1, 1, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(buf, size, MPI_BYTE, 0, 1, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			MPI_Send(buf, size, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
		}
	}
	return (MPI_Wtime() - t0) / iters / 2 * 1e6;
}

int main(int argc, char **argv)
{
	int nprocs, me, host, b, size = argc > 1 ? atoi(argv[1]) : 8;
	int iters = argc > 2 ? atoi(argv[2]) : 50000;
	int blocks = argc > 3 ? atoi(argv[3]) : 40;
	char *buf = calloc(1, size > 0 ? (size_t)size : 1);
	double *t[2];

	t[0] = calloc((size_t)(blocks > 0 ? blocks : 1), sizeof(double));
	t[1] = calloc((size_t)(blocks > 0 ? blocks : 1), sizeof(double));
	if (!buf || !t[0] || !t[1] || size < 0 || iters < 1 || blocks < 2)
		return 2;
	MPI_Init(&argc, &argv);
	open0(&nprocs, &me, &host);
	if (nprocs != 2) {
		fprintf(stderr, "mpi-interleaved: needs 2 processes\n");
		close0(0);
		MPI_Finalize();
		return 2;
	}
	block(0, me, buf, size, iters / 10 + 1);        /* warm up both */
	block(1, me, buf, size, iters / 10 + 1);
	for (b = 0; b < blocks; b++) {
		int first = b % 2;      /* MPI first, then PICL first, ... */

		t[first][b] = block(first, me, buf, size, iters);
		t[!first][b] = block(!first, me, buf, size, iters);
	}
	if (me == 0) {
		qsort(t[0], (size_t)blocks, sizeof(double), cmp);
		qsort(t[1], (size_t)blocks, sizeof(double), cmp);
		printf("interleaved: %d bytes: mpi median %.3f best %.3f us; "
		       "picl median %.3f best %.3f us; picl/mpi %.3f (median), "
		       "%.3f (best)\n", size, t[0][blocks / 2], t[0][0],
		       t[1][blocks / 2], t[1][0],
		       t[1][blocks / 2] / t[0][blocks / 2], t[1][0] / t[0][0]);
	}
	close0(0);
	MPI_Finalize();
	free(t[0]);
	free(t[1]);
	free(buf);
	return 0;
}
