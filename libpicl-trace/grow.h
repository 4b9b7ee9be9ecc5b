/*
 * grow.h - growable arrays, not installed.
 *
 * The same doubling realloc was written out in stats.c, cmd-validate.c and
 * stats/profile.c; this is the one they share. Static inline, like
 * intmap.h, so that stats/ uses it without libpicl-trace exporting it.
 * Files with a grow() of their own (another first size, or growing by one
 * step) do not include it.
 */
#ifndef PICL_GROW_H
#define PICL_GROW_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/*
 * Make room for `need` elements of `size` bytes in *ptr, which holds *cap:
 * 8 at first, then doubling. 0, or -1 when out of memory (or the size would
 * overflow), with *ptr and *cap as they were.
 */
static inline int grow(void **ptr, size_t *cap, size_t need, size_t size)
{
	size_t ncap;
	void *p;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : 8;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / size)
			return -1;
		ncap *= 2;
	}
	p = realloc(*ptr, ncap * size);
	if (!p)
		return -1;
	*ptr = p;
	*cap = ncap;
	return 0;
}

#endif
