/*
 * stencil.c - Jacobi iterations of a 5-point stencil on an N x N grid
 * (argv[1], default 64; argv[2] iterations, default 50), split into strips
 * of rows, one per node. Each iteration posts the two halo receives
 * (recvbegin0), sends its edge rows (sendbegin0), updates the interior rows
 * while the messages travel, then waits for the halos (recvend0) and
 * updates its edge rows. Node 0 gathers the strips' sums, computes the same
 * grid alone and exits 1 if they differ.
 */
#include <picl.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T_DOWN 100      /* a row going to the node below (me + 1) */
#define T_UP   101      /* a row going to the node above (me - 1) */
#define T_SUM  102

static int n;

static void init(double *g, int row0, int rows)
{
	int i, j;

	for (i = 0; i < rows + 2; i++)
		for (j = 0; j < n; j++) {
			int gi = row0 + i - 1;
			g[i * n + j] = (gi <= 0 || j == 0) ? 1.0 : 0.0;
		}
}

/* New values of rows [a, b) (1-based in the strip). Global row 0 and the
 * last row, and columns 0 and n-1, are fixed boundary. */
static void update(const double *g, double *h, int row0, int a, int b)
{
	int i, j;

	for (i = a; i < b; i++) {
		int gi = row0 + i - 1;
		for (j = 0; j < n; j++) {
			if (gi == 0 || gi == n - 1 || j == 0 || j == n - 1)
				h[i * n + j] = g[i * n + j];
			else
				h[i * n + j] = 0.25 * (g[(i - 1) * n + j] +
					g[(i + 1) * n + j] + g[i * n + j - 1] +
					g[i * n + j + 1]);
		}
	}
}

static double strip_sum(const double *g, int rows)
{
	double s = 0;
	int i, j;

	for (i = 1; i <= rows; i++)
		for (j = 0; j < n; j++)
			s += g[i * n + j];
	return s;
}

static double serial(int iters)
{
	double *g = malloc((size_t)(n + 2) * n * sizeof *g);
	double *h = malloc((size_t)(n + 2) * n * sizeof *h), *t, s;
	int k;

	init(g, 0, n);
	memcpy(h, g, (size_t)(n + 2) * n * sizeof *g);
	for (k = 0; k < iters; k++) {
		update(g, h, 0, 1, n + 1);
		t = g; g = h; h = t;
	}
	s = strip_sum(g, n);
	free(g);
	free(h);
	return s;
}

int main(int argc, char **argv)
{
	int nprocs, me, host, iters, rows, row0, k, up, down, i;
	double *g, *h, *t, s, total, want;
	int rowbytes;

	n = argc > 1 ? atoi(argv[1]) : 64;
	iters = argc > 2 ? atoi(argv[2]) : 50;
	tracenode(1 << 20, 1, 1);
	open0(&nprocs, &me, &host);
	rows = n / nprocs + (me < n % nprocs);
	row0 = me * (n / nprocs) + (me < n % nprocs ? me : n % nprocs);
	up = me > 0 ? me - 1 : -1;
	down = me < nprocs - 1 ? me + 1 : -1;
	rowbytes = n * (int)sizeof(double);
	g = malloc((size_t)(rows + 2) * n * sizeof *g);
	h = malloc((size_t)(rows + 2) * n * sizeof *h);
	init(g, row0, rows);
	memcpy(h, g, (size_t)(rows + 2) * n * sizeof *g);
	for (k = 0; k < iters; k++) {
		traceblockbegin(0, k, 0);
		if (up >= 0)
			recvbegin0((char *)&g[0], rowbytes, T_DOWN);
		if (down >= 0)
			recvbegin0((char *)&g[(rows + 1) * n], rowbytes, T_UP);
		if (up >= 0)
			sendbegin0((char *)&g[1 * n], rowbytes, T_UP, up);
		if (down >= 0)
			sendbegin0((char *)&g[rows * n], rowbytes, T_DOWN, down);
		if (rows > 2)
			update(g, h, row0, 2, rows);
		if (up >= 0) {
			if (!recvstatus0(T_DOWN))
				recvend0(T_DOWN);
			sendend0(T_UP);
		}
		if (down >= 0) {
			recvend0(T_UP);
			if (!sendstatus0(T_DOWN))
				sendend0(T_DOWN);
		}
		update(g, h, row0, 1, rows < 2 ? rows + 1 : 2);
		if (rows >= 2)
			update(g, h, row0, rows, rows + 1);
		t = g; g = h; h = t;
		traceblockend(0, k, 0);
	}
	s = strip_sum(g, rows);
	if (me != 0) {
		send0((char *)&s, sizeof s, T_SUM, 0);
	} else {
		total = s;
		for (i = 1; i < nprocs; i++) {
			recv0((char *)&s, sizeof s, T_SUM);
			total += s;
		}
		want = serial(iters);
		if (fabs(total - want) > 1e-9 * fabs(want)) {
			fprintf(stderr, "stencil: sum %.12g, expected %.12g\n",
				total, want);
			close0(0);
			return 1;
		}
		printf("stencil: %dx%d, %d iterations, %d processes, sum %.6f\n",
		       n, n, iters, nprocs, total);
	}
	close0(0);
	free(g);
	free(h);
	return 0;
}
