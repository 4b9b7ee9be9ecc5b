/*
 * opencount.h - how many entries of each event type a stack holds open,
 * not installed.
 *
 * validate, the statistics accumulator (stats.c), stat's profile and
 * filter --pairs each keep a stack of open entries per process and match
 * an exit with the innermost open entry of its event type: normally the
 * top, else found by a scan down the stack. An exit with no such entry at all scanned the
 * whole stack to learn so: N of them on N open entries took quadratic
 * time (an invalid trace, but validate is for those). opencount_find
 * takes the top, and scans below it only when the counts say the scan
 * will find an entry.
 *
 * The counts are kept lazily, for the bottom `counted` frames only: a
 * frame pushed costs nothing, and they are brought up to the top only
 * when an exit does not match the top. So a properly nested trace, whose
 * exits match the top, never hashes; and as a frame is counted at most
 * once while it is open, the counting is O(1) amortised per record. Out
 * of memory, the counts are dropped and the caller scans, as it did.
 *
 * The frames are the caller's array of `size`-byte structs holding the
 * int32_t event type at `offset`. Static inline, as intmap.h, for
 * picltrace/ and the library both. A zeroed struct opencount is empty.
 */
#ifndef PICL_OPENCOUNT_H
#define PICL_OPENCOUNT_H

#include "intmap.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct opencount {
	struct intmap n;        /* event type -> its entries in the counted frames */
	size_t counted;         /* frames [0, counted) are in n */
};

/* Forget every count: the next opencount_open counts the stack again. */
static inline void opencount_free(struct opencount *o)
{
	intmap_free(&o->n);
	o->counted = 0;
}

/* The event type of frames[i]. */
static inline int32_t opencount_event(const void *frames, size_t size, size_t offset, size_t i)
{
	int32_t f;

	memcpy(&f, (const char *)frames + i * size + offset, sizeof(f));
	return f;
}

/*
 * Is an entry of event e open among frames[0 .. depth)? 1 yes, 0 no, -1
 * not known (out of memory: scan). Call it when the top is not e's; it
 * counts the frames pushed since the last call.
 */
static inline int opencount_open(struct opencount *o, const void *frames, size_t size,
				 size_t offset, size_t depth, int32_t e)
{
	size_t c;

	while (o->counted < depth) {
		int32_t f = opencount_event(frames, size, offset, o->counted);

		if (!intmap_get(&o->n, (uint32_t)f, &c))
			c = 0;
		if (intmap_put(&o->n, (uint32_t)f, c + 1) < 0) {
			opencount_free(o);
			return -1;
		}
		o->counted++;
	}
	return intmap_get(&o->n, (uint32_t)e, &c) && c > 0;
}

/*
 * The innermost open entry of event e among frames[0 .. depth): 1 + its
 * index, or 0 if there is none. The top, else found by a scan down the
 * stack, which the counts skip when no entry of e is open (or which scans
 * as before when they are out of memory).
 */
static inline size_t opencount_find(struct opencount *o, const void *frames, size_t size,
				    size_t offset, size_t depth, int32_t e)
{
	size_t i = depth;

	if (i == 0 || opencount_event(frames, size, offset, i - 1) == e)
		return i;
	if (opencount_open(o, frames, size, offset, depth, e) == 0)
		return 0;
	while (i > 0 && opencount_event(frames, size, offset, i - 1) != e)
		i--;
	return i;
}

/* Frame i, an entry of e, leaves the stack; the frames above it move down
 * one. Call it for every frame removed, the top included. */
static inline void opencount_remove(struct opencount *o, size_t i, int32_t e)
{
	size_t c;

	if (i >= o->counted)
		return;
	o->counted--;
	if (!intmap_get(&o->n, (uint32_t)e, &c) || c == 0 ||
	    intmap_put(&o->n, (uint32_t)e, c - 1) < 0)
		opencount_free(o);  /* out of memory: count again */
}

#endif
