/*
 * host.c - the host program of a run with a host (piclrun --host ./host
 * ./node): "loads" the nodes (load0 only records -503 events: piclrun
 * started them), sends each node its id, sums the answers (id * 10) and
 * exits 1 if the sum is wrong. Used by t/e2e/0630-runtime-calls.sh.
 */
#include <picl.h>

#include <stdio.h>

int main(void)
{
	int n, me, host, i, v, sum = 0;

	tracehost(1 << 16, 1);
	open0(&n, &me, &host);
	load0("node", -1);
	for (i = 0; i < n; i++) {
		v = i;
		send0((char *)&v, sizeof v, 1, i);
	}
	for (i = 0; i < n; i++) {
		recv0((char *)&v, sizeof v, 2);
		sum += v;
	}
	printf("host %d: %d nodes, sum %d\n", me, n, sum);
	close0(0);
	return sum != 10 * n * (n - 1) / 2;
}
