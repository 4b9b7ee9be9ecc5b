/*
 * tracedata-big.c - tracedata records whose data exceed tracenode's data
 * area (t/e2e/0410-runtime-tracedata-big.sh).
 *
 * Usage: tracedata-big SIZE FLUSH DATATYPE COUNT [alone] [after]
 *   tracenode(SIZE, FLUSH, 0), open0, a tracedata record of event 2 with
 *   4 ints (0 1 2 3; not with "alone"), then one of event 1 with COUNT
 *   values of DATATYPE ("char": the letters a-z over and over; "int" or
 *   "double": 0, 1, ... 99, 0, 1, ...), and with "after" one more of
 *   event 3 with 4 ints; close0.
 */
#include <picl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	int np, me, host, count, small[4] = { 0, 1, 2, 3 };
	const char *dt;
	void *data;
	int alone = 0, after = 0;

	if (argc < 5) {
		fprintf(stderr, "usage: tracedata-big SIZE FLUSH DATATYPE COUNT"
			" [alone] [after]\n");
		return 2;
	}
	for (int k = 5; k < argc; k++) {
		alone |= strcmp(argv[k], "alone") == 0;
		after |= strcmp(argv[k], "after") == 0;
	}
	dt = argv[3];
	count = atoi(argv[4]);
	if (strcmp(dt, "char") == 0) {
		char *c = malloc((size_t)count + 1);

		for (int i = 0; c && i < count; i++)
			c[i] = (char)('a' + i % 26);
		data = c;
	} else if (strcmp(dt, "int") == 0) {
		int *v = malloc((size_t)count * sizeof *v + 1);

		for (int i = 0; v && i < count; i++)
			v[i] = i % 100;
		data = v;
	} else {
		double *v = malloc((size_t)count * sizeof *v + 1);

		for (int i = 0; v && i < count; i++)
			v[i] = i % 100;
		data = v;
	}
	if (!data)
		return 2;
	tracenode(atoi(argv[1]), atoi(argv[2]), 0);
	open0(&np, &me, &host);
	if (!alone)
		tracedata(2, 0, "int", 4, small);
	tracedata(1, 0, argv[3], count, data);
	if (after)
		tracedata(3, 0, "int", 4, small);
	close0(0);
	free(data);
	return 0;
}
