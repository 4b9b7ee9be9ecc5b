/*
 * node.c - the node program beside host.c: receives a number from the
 * host, sends it back times ten; exits 1 if host0() says there is no host.
 */
#include <picl.h>

int main(void)
{
	int n, me, host, v;

	tracenode(1 << 16, 1, 0);
	open0(&n, &me, &host);
	recv0((char *)&v, sizeof v, 1);
	v *= 10;
	send0((char *)&v, sizeof v, 2, host);
	close0(0);
	return !host0();
}
