/*
 * fuzz-linevec.c - libFuzzer target for linevec_scan, the AVX-512 reader
 * of canonical lines: on the first 64 bytes of the input (padded with
 * '\n'), it must take exactly the lines the byte-by-byte reference
 * (linevec-ref.h) takes, with the same fields, signs and dots. On a
 * processor without AVX-512 VBMI2 there is nothing to compare.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "linevec-ref.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int avail = -1;
	char buf[64];
	struct linevec a, b;
	int x, y;

	if (avail < 0)
		avail = linevec_available();
	if (!avail)
		return 0;
	memset(buf, '\n', sizeof(buf));
	memcpy(buf, data, size < sizeof(buf) ? size : sizeof(buf));
	x = linevec_scan(buf, &a);
	y = linevec_ref(buf, &b);
	if (x != y || (x && linevec_differ(&a, &b)))
		abort();
	return 0;
}
