/*
 * exchange.c - every node sends a big message (argv[1] bytes, default
 * 10 MiB: many times a shared-memory ring) to every other node before
 * receiving any: the local backend must keep draining its incoming rings
 * while it waits for room, or this deadlocks. Each node checks the bytes
 * it got from each source and exits 1 if one is wrong.
 */
#include <picl.h>

#include <stdio.h>
#include <stdlib.h>

static unsigned char pattern(long i, int src)
{
	return (unsigned char)(i * 13 + src);
}

int main(int argc, char **argv)
{
	int nprocs, me, host, i, other, bad = 0;
	long k, size = argc > 1 ? atol(argv[1]) : 10L << 20;
	unsigned char *out = malloc((size_t)size), *in = malloc((size_t)size);

	if (!out || !in)
		return 1;
	open0(&nprocs, &me, &host);
	for (k = 0; k < size; k++)
		out[k] = pattern(k, me);
	for (other = 0; other < nprocs; other++)
		if (other != me)
			send0((char *)out, (int)size, 5, other);
	for (i = 1; i < nprocs; i++) {
		int bytes, type, src;
		recv0((char *)in, (int)size, 5);
		recvinfo0(&bytes, &type, &src);
		for (k = 0; k < size && !bad; k++)
			bad = in[k] != pattern(k, src);
		if (bad || bytes != size)
			fprintf(stderr, "exchange: node %d: message from %d "
				"corrupt\n", me, src);
	}
	close0(0);
	free(out);
	free(in);
	return bad;
}
