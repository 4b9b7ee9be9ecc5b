/*
 * intmap.h - a map from 64-bit integer keys to indices, not installed.
 *
 * The toolkit's tables are keyed by one or two 32-bit integers (a processor,
 * (processor, process), (source, destination), (rel, event)) and point into
 * an array their owner keeps in order of first appearance; this is the one
 * hash map they share. Open addressing with linear probing, kept at most
 * half full, so a look-up is a hash and a short scan of one array.
 *
 * It is all static inline, on purpose: the look-ups sit on picltrace stat's
 * per-record path and must inline as the hand-written tables did, and stats/
 * and sort-merge/ (and clock.c's unit test, which links no library) use it
 * without libpicl-trace exporting anything beyond its public API. Every
 * directory has -I libpicl-trace, as for reader-int.h.
 *
 * A zeroed struct intmap is an empty map. Values are stored plus one so that
 * a zero slot is an empty one; SIZE_MAX cannot be stored. Beside it, a
 * direct table by processor id (proc_table_*) for the one key that the
 * per-record paths look up on every record.
 */
#ifndef PICL_INTMAP_H
#define PICL_INTMAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

struct intmap_slot {
	uint64_t key;
	size_t val;                /* 1 + the value; 0: empty */
};

struct intmap {
	struct intmap_slot *slots;
	size_t cap, n;             /* cap: a power of two, or 0 */
};

/* The key of a pair of 32-bit integers. */
static inline uint64_t intmap_key2(int32_t a, int32_t b)
{
	return (uint64_t)(uint32_t)a << 32 | (uint32_t)b;
}

/* MurmurHash3's finaliser: every key bit reaches the low bits the mask keeps,
 * which packed pairs need (their low half alone often repeats). */
static inline uint64_t intmap_hash(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	k ^= k >> 33;
	return k;
}

/* 1 and *val set if key is in m, else 0. */
static inline int intmap_get(const struct intmap *m, uint64_t key, size_t *val)
{
	size_t mask, i;

	if (m->cap == 0)
		return 0;
	mask = m->cap - 1;
	for (i = (size_t)intmap_hash(key) & mask; m->slots[i].val; i = (i + 1) & mask)
		if (m->slots[i].key == key) {
			*val = m->slots[i].val - 1;
			return 1;
		}
	return 0;
}

/* Map key to val (replacing what it mapped to). 0, or -1: out of memory,
 * and m is as it was; replacing a key's value never allocates, so never
 * fails. */
static inline int intmap_put(struct intmap *m, uint64_t key, size_t val)
{
	size_t mask, i;

	if (m->cap > 0) {
		mask = m->cap - 1;
		for (i = (size_t)intmap_hash(key) & mask; m->slots[i].val; i = (i + 1) & mask)
			if (m->slots[i].key == key) {
				m->slots[i].val = val + 1;
				return 0;
			}
	}
	if ((m->n + 1) * 2 > m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 16, k;
		struct intmap_slot *s;

		if (m->cap > SIZE_MAX / 2 / sizeof(*s))
			return -1;
		s = calloc(ncap, sizeof(*s));
		if (!s)
			return -1;
		for (k = 0; k < m->cap; k++) {
			if (!m->slots[k].val)
				continue;
			i = (size_t)intmap_hash(m->slots[k].key) & (ncap - 1);
			while (s[i].val)
				i = (i + 1) & (ncap - 1);
			s[i] = m->slots[k];
		}
		free(m->slots);
		m->slots = s;
		m->cap = ncap;
	}
	mask = m->cap - 1;
	for (i = (size_t)intmap_hash(key) & mask; m->slots[i].val; i = (i + 1) & mask)
		;
	m->slots[i].key = key;
	m->slots[i].val = val + 1;
	m->n++;
	return 0;
}

/*
 * A direct table by processor id (0 .. PROC_TABLE_N - 1, the host 32767
 * included) holding the first process seen on each: sorted traces
 * interleave the processes, so a one-entry cache misses on most records,
 * and the (processor, process) look-ups on per-record paths (stat's
 * profile and accumulator, validate) find them here without hashing; the
 * caller checks the process and falls back to its map. A NULL table is an
 * empty one, made by the first proc_table_note.
 */
#define PROC_TABLE_N 32768

static inline void *proc_table_get(void *const *t, int32_t processor)
{
	return t && processor >= 0 && processor < PROC_TABLE_N ? t[processor] : NULL;
}

/* Note p as processor's, unless it has one already. 0, or -1 when the
 * table cannot be made (nothing is noted then). */
static inline int proc_table_note(void ***t, int32_t processor, void *p)
{
	if (processor < 0 || processor >= PROC_TABLE_N)
		return 0;
	if (!*t && !(*t = (void **)calloc(PROC_TABLE_N, sizeof(**t))))
		return -1;
	if (!(*t)[processor])
		(*t)[processor] = p;
	return 0;
}

/* Empty m and give back its memory; it can be used again. */
static inline void intmap_free(struct intmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->n = 0;
}

#endif
