/*
 * openindex.h - the innermost open entry of an event type on a stack of
 * open entries, found and removed in O(1) amortised; not installed.
 *
 * validate, the statistics accumulator (stats.c), stat's profile and
 * filter --pairs each keep a stack of open entries per process and match
 * an exit with the innermost open entry of its event type: normally the
 * top. A trace that nests badly exits entries below the top, and a scan
 * down the stack and a memmove of the frames above took time quadratic in
 * the depth: N entries of 5, N of 6, then N exits of 5, or N entries
 * exited first-in first-out, were minutes for validate at a million
 * (validate is for such traces).
 *
 * So the stack gets an index, built lazily: frames [0, indexed) are in it,
 * each linked to the open frame of its event type beneath it, and a map
 * gives every type's innermost indexed frame. A frame pushed costs
 * nothing, and a properly nested trace, whose exits match the top, never
 * builds the index at all; an exit that does not match the top indexes
 * the frames pushed since the last one (each frame once while it is
 * open) and finds its entry in one look-up.
 *
 * An entry exited below the top becomes a hole where it is: the frames
 * above it do not move. Holes at the top are dropped as the top goes,
 * and when they are more than half the stack openindex_compact removes
 * them (O(depth), paid for by the holes made since the last time), so the
 * stack stays within twice its open entries. The top is never a hole; a
 * caller walking the stack skips holes with openindex_hole.
 *
 * The frames are the caller's array of `size`-byte structs holding the
 * int32_t event type at `offset`. Static inline, as intmap.h, for
 * picltrace/ and the library both. A zeroed struct openindex is empty.
 */
#ifndef PICL_OPENINDEX_H
#define PICL_OPENINDEX_H

#include "grow.h"
#include "intmap.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* below[i] of a hole */
#define OPENINDEX_HOLE SIZE_MAX
/* openindex_find when the index cannot be made */
#define OPENINDEX_NOMEM SIZE_MAX
/* compact when there are more holes than this and than open entries */
#define OPENINDEX_SLACK 32

struct openindex {
	struct intmap inner;    /* event type -> 1 + its innermost indexed frame (0: none) */
	size_t *below;          /* 1 + the frame of the same type beneath frame i (0: none),
				   or OPENINDEX_HOLE */
	size_t below_cap;
	size_t indexed;         /* frames [0, indexed) are indexed */
	size_t holes;           /* holes among them */
};

/* Give back the index's memory; o is then empty and can be used again. */
static inline void openindex_free(struct openindex *o)
{
	intmap_free(&o->inner);
	free(o->below);
	memset(o, 0, sizeof(*o));
}

/* Is frame i a hole (an entry exited while entries above it were open)? */
static inline int openindex_hole(const struct openindex *o, size_t i)
{
	return i < o->indexed && o->below[i] == OPENINDEX_HOLE;
}

/* The event type of frames[i]. */
static inline int32_t openindex_event(const void *frames, size_t size, size_t offset, size_t i)
{
	int32_t f;

	memcpy(&f, (const char *)frames + i * size + offset, sizeof(f));
	return f;
}

/* Link indexed frame i, not a hole, in as its type's innermost. */
static inline int openindex_link(struct openindex *o, const void *frames, size_t size,
				 size_t offset, size_t i)
{
	uint64_t key = (uint32_t)openindex_event(frames, size, offset, i);
	size_t prev;

	if (!intmap_get(&o->inner, key, &prev))
		prev = 0;
	if (intmap_put(&o->inner, key, i + 1) < 0)
		return -1;
	o->below[i] = prev;
	return 0;
}

/*
 * The innermost open entry of event e among frames[0 .. depth): 1 + its
 * index, 0 if there is none, OPENINDEX_NOMEM when out of memory. The top,
 * else found through the index, which is brought up to the top first.
 */
static inline size_t openindex_find(struct openindex *o, const void *frames, size_t size,
				    size_t offset, size_t depth, int32_t e)
{
	size_t i;

	if (depth == 0 || openindex_event(frames, size, offset, depth - 1) == e)
		return depth;
	if (grow((void **)&o->below, &o->below_cap, depth, sizeof(*o->below)) < 0)
		return OPENINDEX_NOMEM;
	/* The map keeps the types of frames since gone (as "none"): when
	 * they outnumber the frames, make it again from the frames (which
	 * relinks each as it was; the old map stays if memory runs out). */
	if (o->inner.n > 2 * o->indexed + 64) {
		struct intmap old = o->inner;

		memset(&o->inner, 0, sizeof(o->inner));
		for (i = 0; i < o->indexed; i++) {
			if (o->below[i] != OPENINDEX_HOLE &&
			    openindex_link(o, frames, size, offset, i) < 0) {
				intmap_free(&o->inner);
				o->inner = old;
				return OPENINDEX_NOMEM;
			}
		}
		intmap_free(&old);
	}
	/* out of memory, frames [0, indexed) stay indexed: consistent */
	for (; o->indexed < depth; o->indexed++)
		if (openindex_link(o, frames, size, offset, o->indexed) < 0)
			return OPENINDEX_NOMEM;
	if (!intmap_get(&o->inner, (uint32_t)e, &i))
		return 0;
	return i;
}

/*
 * Frame i - 1 (i as openindex_find gave it), an entry of e, is exited: it
 * becomes a hole, or goes if it is the top, with the holes beneath it.
 * Returns the stack's new depth; no frame moves.
 */
static inline size_t openindex_exit(struct openindex *o, size_t depth, size_t i, int32_t e)
{
	i--;
	/* e's innermost: its chain now starts beneath it (the key is there:
	 * replacing its value cannot fail) */
	if (i < o->indexed)
		(void)intmap_put(&o->inner, (uint32_t)e, o->below[i]);
	if (i + 1 < depth) {
		o->below[i] = OPENINDEX_HOLE;
		o->holes++;
		return depth;
	}
	depth--;
	if (o->indexed > depth)
		o->indexed = depth;
	while (depth > 0 && depth <= o->indexed && o->below[depth - 1] == OPENINDEX_HOLE) {
		depth--;
		o->indexed--;
		o->holes--;
	}
	return depth;
}

/* Are the holes many enough to be removed (openindex_compact)? */
static inline int openindex_crowded(const struct openindex *o, size_t depth)
{
	return o->holes > OPENINDEX_SLACK && o->holes * 2 > depth;
}

/*
 * Remove the holes from frames[0 .. depth), keeping the order of the
 * others; returns the new depth. A caller with more per-frame data moves
 * it first (openindex_hole says which frames go). The index is made again
 * when next needed.
 */
static inline size_t openindex_compact(struct openindex *o, void *frames, size_t size,
				       size_t depth)
{
	size_t i, n = 0;

	for (i = 0; i < depth; i++) {
		if (openindex_hole(o, i))
			continue;
		if (n != i)
			memmove((char *)frames + n * size, (char *)frames + i * size, size);
		n++;
	}
	intmap_free(&o->inner);
	o->indexed = 0;
	o->holes = 0;
	return n;
}

/* openindex_exit, then openindex_compact if the holes are many: for the
 * callers with no per-frame data of their own. */
static inline size_t openindex_pop(struct openindex *o, void *frames, size_t size,
				   size_t depth, size_t i, int32_t e)
{
	depth = openindex_exit(o, depth, i, e);
	if (openindex_crowded(o, depth))
		depth = openindex_compact(o, frames, size, depth);
	return depth;
}

#endif
