/*
 * defs.c - the definitions a trace has made so far: descriptor aliases (record
 * -6, with their scope) and subsets of processors, processes and event types
 * (records -201, -202, -203, plus the predefined event subsets of Table 5).
 *
 * How it works:
 *  - Compiled descriptors live in one cache keyed by control string, so an
 *    inline "%d%lf" repeated on a million records is compiled once and every
 *    alias that names the same string shares it. The cache holds at most
 *    CTRL_CACHE_MAX strings; past that, a control string is compiled into a
 *    single scratch slot that lives until the next uncached look-up (so a
 *    hostile trace with millions of distinct strings cannot grow memory).
 *    The strings alias definitions name are kept whatever the cache holds,
 *    up to DEFS_MAX of them: a data error past that, at the same record
 *    whatever came before (and whichever thread compiled inline strings).
 *  - Each alias number has a slot with the list of its definitions, and a
 *    hash from (alias, event, processor, process) finds the definition for
 *    a scope. A look-up asks it for the 8 scopes made of the record's
 *    fields and -1, scans the definitions scoped to a subset (few, as a
 *    rule), takes the most specific match (DESIGN.md point 4) and remembers
 *    the answer until the next definition.
 *  - Subsets are a hash from (kind, id) to a member list; process subsets
 *    (-202) from (processor, id), since Table 2 defines one "on the
 *    specified processor": the definition for a record's processor, else
 *    the one for every processor (-1). Membership is a breadth-first walk
 *    of the members, following nested subsets (of processes: on the same
 *    processor) up to 8 levels and each subset at most once
 *    (picl_defs_matches_on).
 *
 * Memory is bounded by the number of distinct definitions, capped at
 * DEFS_MAX entries each, and by the members of all subsets together, capped
 * at SUBSET_MEMBERS_MAX, so hostile input fails cleanly instead of growing
 * without end.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#define CTRL_CACHE_MAX 4096
#define DEFS_MAX 65536
#define SUBSET_DEPTH 8
#define SUBSET_MEMBERS_MAX (16 * 1024 * 1024)   /* all subsets' members: 64 MiB */

struct ctrl_entry {
	char *ctrl;
	size_t len;
	uint64_t hash;
	struct picl_descriptor *desc;
	int by_alias;           /* named by an alias definition */
};

struct alias_def {
	int32_t event, processor, process;
	uint64_t seq;
	const struct picl_descriptor *desc;
};

struct alias_slot {
	int64_t alias;
	struct alias_def *defs;
	size_t n, cap;
	uint32_t *nested;        /* the defs with a field < -1 (a subset id) */
	size_t nested_n, nested_cap;
	int all_wild;            /* every definition is for (-1, -1, -1) */
	const struct picl_descriptor *wild;  /* then: the latest of them */
};

struct subset {
	int kind;
	int32_t id;
	int32_t processor;       /* process subsets: where defined, or -1 */
	int32_t *members;
	size_t n;
	uint64_t seen;           /* the membership query that last reached it */
};

/* An open-addressing map from an alias and a scope to its definition: slot
 * index + 1 (0 = empty) and index in the slot's defs. */
struct scope_entry {
	int64_t alias;
	int32_t event, processor, process;
	uint32_t slot, def;
};

struct scope_map {
	struct scope_entry *e;
	size_t cap, n;
};

/* An open-addressing map from a 64-bit key to an index (+1; 0 = empty). */
struct imap {
	int64_t *keys;
	uint32_t *vals;
	size_t cap, n;
};

struct picl_defs {
	struct ctrl_entry *ctrl;      /* hash table, ctrl_cap slots */
	size_t ctrl_cap, ctrl_n;
	size_t ctrl_by_alias;   /* entries named by alias definitions */
	struct picl_descriptor *scratch;

	struct alias_slot *aliases;
	size_t aliases_n, aliases_cap;
	struct imap alias_map;
	struct scope_map scope_map;   /* every alias definition by its scope */
	size_t alias_defs;
	uint64_t seq;

	struct subset *subsets;
	size_t subsets_n, subsets_cap;
	struct imap subset_map;       /* processor and event subsets */
	struct imap process_map;      /* process subsets, by processor and id */
	struct imap process_ids;      /* the ids of process subsets defined
					 on any processor */
	size_t subset_members;        /* held by all of them */
	/* membership queries: their count (subset.seen) and the breadth-first
	 * queue, subsets_cap indices, grown with subsets */
	uint64_t query;
	uint32_t *queue;

	/* the predefined aliases 0-5, compiled once, until a -6 redefines one */
	const struct picl_descriptor *predef[6];
	int predef_done;
	/* bumped by every definition (picl_defs_generation) */
	uint64_t generation;
	/* last alias look-up */
	int cache_valid;
	int64_t cache_alias;
	int32_t cache_event, cache_processor, cache_process;
	const struct picl_descriptor *cache_desc;
};

static uint64_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

static uint64_t hash_i64(int64_t k)
{
	uint64_t x = (uint64_t)k;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

static uint32_t imap_get(const struct imap *m, int64_t key)
{
	size_t i;

	if (!m->cap)
		return 0;
	for (i = hash_i64(key) & (m->cap - 1); m->vals[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key)
			return m->vals[i];
	return 0;
}

static int imap_put(struct imap *m, int64_t key, uint32_t val)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap) {
		struct imap big = { 0 };
		size_t j;

		big.cap = m->cap ? m->cap * 2 : 16;
		big.keys = calloc(big.cap, sizeof(*big.keys));
		big.vals = calloc(big.cap, sizeof(*big.vals));
		if (!big.keys || !big.vals) {
			free(big.keys);
			free(big.vals);
			return PICL_ERR_NOMEM;
		}
		for (j = 0; j < m->cap; j++)
			if (m->vals[j])
				imap_put(&big, m->keys[j], m->vals[j]);
		free(m->keys);
		free(m->vals);
		*m = big;
	}
	for (i = hash_i64(key) & (m->cap - 1); m->vals[i]; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key) {
			m->vals[i] = val;
			return PICL_OK;
		}
	}
	m->keys[i] = key;
	m->vals[i] = val;
	m->n++;
	return PICL_OK;
}

static uint64_t hash_scope(int64_t alias, int32_t event, int32_t processor, int32_t process)
{
	uint64_t h = hash_i64(alias);

	h = hash_i64((int64_t)(h ^ (uint32_t)event));
	h = hash_i64((int64_t)(h ^ (uint32_t)processor));
	return hash_i64((int64_t)(h ^ (uint32_t)process));
}

static struct scope_entry *scope_find(const struct scope_map *m, int64_t alias,
				      int32_t event, int32_t processor, int32_t process)
{
	size_t i;

	if (!m->cap)
		return NULL;
	for (i = hash_scope(alias, event, processor, process) & (m->cap - 1); m->e[i].slot;
	     i = (i + 1) & (m->cap - 1)) {
		struct scope_entry *e = &m->e[i];

		if (e->alias == alias && e->event == event && e->processor == processor &&
		    e->process == process)
			return e;
	}
	return NULL;
}

/* Add a scope not in the map yet. */
static int scope_add(struct scope_map *m, const struct scope_entry *add)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap) {
		struct scope_map big = { 0 };
		size_t j;

		big.cap = m->cap ? m->cap * 2 : 64;
		big.e = calloc(big.cap, sizeof(*big.e));
		if (!big.e)
			return PICL_ERR_NOMEM;
		for (j = 0; j < m->cap; j++)
			if (m->e[j].slot)
				scope_add(&big, &m->e[j]);
		free(m->e);
		*m = big;
	}
	for (i = hash_scope(add->alias, add->event, add->processor, add->process) & (m->cap - 1);
	     m->e[i].slot; i = (i + 1) & (m->cap - 1))
		;
	m->e[i] = *add;
	m->n++;
	return PICL_OK;
}

struct picl_defs *picl_defs_new(void)
{
	return calloc(1, sizeof(struct picl_defs));
}

void picl_defs_free(struct picl_defs *defs)
{
	size_t i;

	if (!defs)
		return;
	for (i = 0; i < defs->ctrl_cap; i++) {
		free(defs->ctrl[i].ctrl);
		picl_descriptor_free(defs->ctrl[i].desc);
	}
	free(defs->ctrl);
	picl_descriptor_free(defs->scratch);
	for (i = 0; i < defs->aliases_n; i++) {
		free(defs->aliases[i].defs);
		free(defs->aliases[i].nested);
	}
	free(defs->aliases);
	free(defs->scope_map.e);
	free(defs->alias_map.keys);
	free(defs->alias_map.vals);
	for (i = 0; i < defs->subsets_n; i++)
		free(defs->subsets[i].members);
	free(defs->subsets);
	free(defs->queue);
	free(defs->subset_map.keys);
	free(defs->subset_map.vals);
	free(defs->process_map.keys);
	free(defs->process_map.vals);
	free(defs->process_ids.keys);
	free(defs->process_ids.vals);
	free(defs);
}

static int ctrl_grow(struct picl_defs *defs)
{
	size_t ncap = defs->ctrl_cap ? defs->ctrl_cap * 2 : 64, i;
	struct ctrl_entry *n = calloc(ncap, sizeof(*n));

	if (!n)
		return PICL_ERR_NOMEM;
	for (i = 0; i < defs->ctrl_cap; i++) {
		struct ctrl_entry *e = &defs->ctrl[i];
		size_t j;

		if (!e->ctrl)
			continue;
		for (j = e->hash & (ncap - 1); n[j].ctrl; j = (j + 1) & (ncap - 1))
			;
		n[j] = *e;
	}
	free(defs->ctrl);
	defs->ctrl = n;
	defs->ctrl_cap = ncap;
	return PICL_OK;
}

/*
 * The cache entry of a control string, compiled and added if need be; with
 * `keep` (alias definitions, which must outlive the next look-up) added
 * even past CTRL_CACHE_MAX, else compiled into the scratch slot then and
 * *entry set to NULL. PICL_OK with *out, or < 0 (err set).
 */
static int control_entry(struct picl_defs *defs, const char *control, size_t len, int keep,
			 const struct picl_descriptor **out, struct ctrl_entry **entry,
			 struct picl_error *err)
{
	uint64_t h = hash_bytes(control, len);
	struct picl_descriptor *d;
	size_t j;
	int rc;

	if (defs->ctrl_cap) {
		for (j = h & (defs->ctrl_cap - 1); defs->ctrl[j].ctrl;
		     j = (j + 1) & (defs->ctrl_cap - 1)) {
			struct ctrl_entry *e = &defs->ctrl[j];

			if (e->hash == h && e->len == len && memcmp(e->ctrl, control, len) == 0) {
				*out = e->desc;
				*entry = e;
				return PICL_OK;
			}
		}
	}
	rc = picl_descriptor_compile(control, len, &d, err);
	if (rc < 0)
		return rc;
	*entry = NULL;
	if (defs->ctrl_n >= CTRL_CACHE_MAX && !keep) {
		picl_descriptor_free(defs->scratch);
		defs->scratch = d;
		*out = d;
		return PICL_OK;
	}
	if ((defs->ctrl_n + 1) * 2 > defs->ctrl_cap && ctrl_grow(defs) < 0)
		goto nomem;
	for (j = h & (defs->ctrl_cap - 1); defs->ctrl[j].ctrl; j = (j + 1) & (defs->ctrl_cap - 1))
		;
	defs->ctrl[j].ctrl = malloc(len + 1);
	if (!defs->ctrl[j].ctrl)
		goto nomem;
	memcpy(defs->ctrl[j].ctrl, control, len);
	defs->ctrl[j].ctrl[len] = '\0';
	defs->ctrl[j].len = len;
	defs->ctrl[j].hash = h;
	defs->ctrl[j].desc = d;
	defs->ctrl[j].by_alias = 0;
	defs->ctrl_n++;
	*out = d;
	*entry = &defs->ctrl[j];
	return PICL_OK;
nomem:
	picl_descriptor_free(d);
	return picl_set_error(err, PICL_ERR_NOMEM, "out of memory");
}

/* PICL_ERR_USAGE, with err saying which argument is NULL, when defs is
 * NULL or control is NULL with len bytes; else 0. */
static int null_args(const struct picl_defs *defs, const char *control, size_t len,
		     struct picl_error *err)
{
	if (!defs)
		return picl_set_error(err, PICL_ERR_USAGE, "no definitions (NULL)");
	if (!control && len > 0)
		return picl_set_error(err, PICL_ERR_USAGE,
				      "no control string (NULL) for %zu bytes", len);
	return 0;
}

int picl_defs_control(struct picl_defs *defs, const char *control, size_t len,
		      const struct picl_descriptor **out, struct picl_error *err)
{
	struct ctrl_entry *e;
	int rc;

	if (!out)
		return picl_set_error(err, PICL_ERR_USAGE, "no place for the descriptor (NULL)");
	*out = NULL;    /* not a stale one on failure */
	if ((rc = null_args(defs, control, len, err)) < 0)
		return rc;
	return control_entry(defs, control, len, 0, out, &e, err);
}

int picl_defs_define_alias(struct picl_defs *defs, int64_t alias,
			   int32_t event, int32_t processor, int32_t process,
			   const char *control, size_t len, struct picl_error *err)
{
	const struct picl_descriptor *d;
	struct ctrl_entry *ce;
	struct alias_slot *slot;
	struct scope_entry *se, add;
	uint32_t idx;
	int rc;

	if ((rc = null_args(defs, control, len, err)) < 0)
		return rc;
	if (alias < 0)
		return picl_set_error(err, PICL_ERR_DATA,
				      "a descriptor alias must not be negative (found %lld)",
				      (long long)alias);
	/* The limit counts the strings alias definitions name, whatever
	 * else the cache holds, so that it does not depend on the records
	 * before (or on which thread compiled their inline strings). */
	rc = control_entry(defs, control, len, defs->ctrl_by_alias < DEFS_MAX, &d, &ce, err);
	if (rc < 0)
		return rc;
	if (!ce || (!ce->by_alias && defs->ctrl_by_alias >= DEFS_MAX))
		return picl_set_error(err, PICL_ERR_DATA,
				      "too many distinct control strings in alias definitions (more than %d)",
				      DEFS_MAX);
	if (!ce->by_alias) {
		ce->by_alias = 1;
		defs->ctrl_by_alias++;
	}
	idx = imap_get(&defs->alias_map, alias);
	if (!idx) {
		if (defs->aliases_n == defs->aliases_cap) {
			size_t ncap = defs->aliases_cap ? defs->aliases_cap * 2 : 16;
			struct alias_slot *n = realloc(defs->aliases, ncap * sizeof(*n));

			if (!n)
				return picl_set_error(err, PICL_ERR_NOMEM, "out of memory");
			defs->aliases = n;
			defs->aliases_cap = ncap;
		}
		slot = &defs->aliases[defs->aliases_n];
		memset(slot, 0, sizeof(*slot));
		slot->alias = alias;
		slot->all_wild = 1;
		if (imap_put(&defs->alias_map, alias, (uint32_t)++defs->aliases_n) < 0)
			return picl_set_error(err, PICL_ERR_NOMEM, "out of memory");
	} else {
		slot = &defs->aliases[idx - 1];
	}
	defs->cache_valid = 0;
	defs->generation++;
	/* A redefinition for the very same scope replaces the old one. */
	se = scope_find(&defs->scope_map, alias, event, processor, process);
	if (se) {
		struct alias_def *a = &defs->aliases[se->slot - 1].defs[se->def];

		a->desc = d;
		a->seq = ++defs->seq;
		slot->wild = d;
		return PICL_OK;
	}
	if (defs->alias_defs >= DEFS_MAX)
		return picl_set_error(err, PICL_ERR_DATA,
				      "too many alias definitions (more than %d)", DEFS_MAX);
	if (slot->n == slot->cap) {
		size_t ncap = slot->cap ? slot->cap * 2 : 2;
		struct alias_def *n = realloc(slot->defs, ncap * sizeof(*n));

		if (!n)
			return picl_set_error(err, PICL_ERR_NOMEM, "out of memory");
		slot->defs = n;
		slot->cap = ncap;
	}
	if ((event < -1 || processor < -1 || process < -1) && slot->nested_n == slot->nested_cap) {
		size_t ncap = slot->nested_cap ? slot->nested_cap * 2 : 2;
		uint32_t *n = realloc(slot->nested, ncap * sizeof(*n));

		if (!n)
			return picl_set_error(err, PICL_ERR_NOMEM, "out of memory");
		slot->nested = n;
		slot->nested_cap = ncap;
	}
	add.alias = alias;
	add.event = event;
	add.processor = processor;
	add.process = process;
	add.slot = (uint32_t)(slot - defs->aliases) + 1;
	add.def = (uint32_t)slot->n;
	if (scope_add(&defs->scope_map, &add) < 0)
		return picl_set_error(err, PICL_ERR_NOMEM, "out of memory");
	if (event < -1 || processor < -1 || process < -1)
		slot->nested[slot->nested_n++] = (uint32_t)slot->n;
	slot->defs[slot->n].event = event;
	slot->defs[slot->n].processor = processor;
	slot->defs[slot->n].process = process;
	slot->defs[slot->n].seq = ++defs->seq;
	slot->defs[slot->n].desc = d;
	slot->n++;
	defs->alias_defs++;
	/* only now: a definition refused above leaves the alias as it was */
	if (event != PICL_WILDCARD || processor != PICL_WILDCARD || process != PICL_WILDCARD)
		slot->all_wild = 0;
	slot->wild = d;
	return PICL_OK;
}

/* How specifically `pattern` matches `value` (a process: on `processor`):
 * 2 exact, 1 subset, 0 wildcard, -1 no match. */
static int match_rank(const struct picl_defs *defs, enum picl_subset_kind kind,
		      int32_t processor, int32_t pattern, int32_t value)
{
	if (pattern == value)
		return 2;
	if (pattern == PICL_WILDCARD)
		return 0;
	if (pattern < -1 && picl_defs_matches_on(defs, kind, processor, pattern, value))
		return 1;
	return -1;
}

/* The descriptor of predefined alias a (0-5), kept in the cache however
 * full it is: what a look-up hands out must not be the scratch slot, which
 * the next uncached control string frees. */
static const struct picl_descriptor *predefined_desc(struct picl_defs *defs, int64_t a)
{
	const char *ctrl = picl_predefined_alias(a);
	const struct picl_descriptor *d;
	struct ctrl_entry *e;

	if (!ctrl || control_entry(defs, ctrl, strlen(ctrl), 1, &d, &e, NULL) < 0)
		return NULL;
	return d;
}

static void compile_predefined(struct picl_defs *defs)
{
	int64_t a;

	for (a = 0; a < 6; a++)
		defs->predef[a] = predefined_desc(defs, a);
	defs->predef_done = 1;
}

uint64_t picl_defs_generation(const struct picl_defs *defs)
{
	return defs->generation;
}

int picl_defs_is_scratch(const struct picl_defs *defs, const struct picl_descriptor *d)
{
	return d && d == defs->scratch;
}

const struct picl_descriptor *picl_defs_alias_everywhere(struct picl_defs *defs, int64_t alias)
{
	uint32_t idx = imap_get(&defs->alias_map, alias);

	if (!idx && alias >= 0 && alias < 6) {
		if (!defs->predef_done)
			compile_predefined(defs);
		return defs->predef[alias];
	}
	if (idx && defs->aliases[idx - 1].all_wild)
		return defs->aliases[idx - 1].wild;
	return NULL;
}

const struct picl_descriptor *picl_defs_lookup_alias(const struct picl_defs *cdefs,
		int64_t alias, int32_t event, int32_t processor, int32_t process)
{
	struct picl_defs *defs = (struct picl_defs *)cdefs; /* look-up cache only */
	const struct picl_descriptor *best = NULL;
	int best_rank = -1;
	uint64_t best_seq = 0;
	uint32_t idx;

	if (!defs)
		return NULL;
	if (defs->cache_valid && defs->cache_alias == alias && defs->cache_event == event &&
	    defs->cache_processor == processor && defs->cache_process == process)
		return defs->cache_desc;
	/* The common cases need no scope search: a predefined alias nobody
	 * redefined, or an alias only ever defined for every scope. */
	if ((best = picl_defs_alias_everywhere(defs, alias)) != NULL)
		return best;
	idx = imap_get(&defs->alias_map, alias);
	if (idx) {
		const struct alias_slot *slot = &defs->aliases[idx - 1];
		size_t i;

		/* A definition whose fields are values or -1 matches when each
		 * field is the record's or -1: the 8 scopes asked of the map.
		 * Those with a subset id in a field are tried one by one. */
		for (i = 0; i < 8 + slot->nested_n; i++) {
			const struct alias_def *a;
			int re, rp, rq, rank;

			if (i < 8) {
				const struct scope_entry *se = scope_find(&defs->scope_map, alias,
						i & 1 ? PICL_WILDCARD : event,
						i & 2 ? PICL_WILDCARD : processor,
						i & 4 ? PICL_WILDCARD : process);

				if (!se)
					continue;
				a = &slot->defs[se->def];
			} else {
				a = &slot->defs[slot->nested[i - 8]];
			}
			re = match_rank(defs, PICL_SUBSET_EVENTS, processor, a->event, event);
			rp = match_rank(defs, PICL_SUBSET_PROCESSORS, processor, a->processor,
					processor);
			/* the record's process subsets are its processor's */
			rq = match_rank(defs, PICL_SUBSET_PROCESSES, processor, a->process,
					process);
			if (re < 0 || rp < 0 || rq < 0)
				continue;
			rank = re + rp + rq;
			if (rank > best_rank || (rank == best_rank && a->seq > best_seq)) {
				best = a->desc;
				best_rank = rank;
				best_seq = a->seq;
			}
		}
	}
	if (!best)
		best = predefined_desc(defs, alias);
	defs->cache_valid = 1;
	defs->cache_alias = alias;
	defs->cache_event = event;
	defs->cache_processor = processor;
	defs->cache_process = process;
	defs->cache_desc = best;
	return best;
}

static int64_t subset_key(enum picl_subset_kind kind, int32_t id)
{
	return ((int64_t)kind << 32) ^ (int64_t)(uint32_t)id;
}

static int64_t process_key(int32_t processor, int32_t id)
{
	return (int64_t)((uint64_t)(uint32_t)processor << 32 | (uint32_t)id);
}

/* The map and key of subset `id` of `kind` defined for `processor`
 * (process subsets; the others are the same everywhere). */
static const struct imap *subset_where(const struct picl_defs *defs,
				       enum picl_subset_kind kind, int32_t processor,
				       int32_t id, int64_t *key)
{
	if (kind == PICL_SUBSET_PROCESSES) {
		*key = process_key(processor, id);
		return &defs->process_map;
	}
	*key = subset_key(kind, id);
	return &defs->subset_map;
}

/* Subset `id` of `kind` as a record of `processor` sees it: for processes,
 * the definition for that processor, else the one for all (-1). */
static const struct subset *find_subset(const struct picl_defs *defs,
					enum picl_subset_kind kind, int32_t processor,
					int32_t id)
{
	int64_t key;
	const struct imap *m = subset_where(defs, kind, processor, id, &key);
	uint32_t idx = imap_get(m, key);

	if (!idx && kind == PICL_SUBSET_PROCESSES && processor != PICL_WILDCARD)
		idx = imap_get(m, process_key(PICL_WILDCARD, id));
	return idx ? &defs->subsets[idx - 1] : NULL;
}

int picl_defs_define_subset(struct picl_defs *defs, enum picl_subset_kind kind,
			    int32_t id, const int32_t *members, size_t n)
{
	return picl_defs_define_subset_on(defs, kind, PICL_WILDCARD, id, members, n);
}

int picl_defs_define_subset_on(struct picl_defs *defs, enum picl_subset_kind kind,
			       int32_t processor, int32_t id, const int32_t *members,
			       size_t n)
{
	uint32_t idx;
	int32_t *copy = NULL;
	struct subset *s;
	struct imap *map;
	int64_t key;

	if (!defs || (!members && n > 0))
		return PICL_ERR_USAGE;
	if (id >= -1)   /* -1 is the wildcard, >= 0 real ids (as picl_defs_apply) */
		return PICL_ERR_USAGE;
	if (kind != PICL_SUBSET_PROCESSES)
		processor = PICL_WILDCARD;
	else if (processor < -1)   /* a processor subset: picl_defs_apply expands it */
		return PICL_ERR_USAGE;
	map = (struct imap *)subset_where(defs, kind, processor, id, &key);
	idx = imap_get(map, key);
	if (n > SUBSET_MEMBERS_MAX - defs->subset_members +
		(idx ? defs->subsets[idx - 1].n : 0))
		return PICL_ERR_DATA;
	if (n) {
		copy = malloc(n * sizeof(*copy));
		if (!copy)
			return PICL_ERR_NOMEM;
		memcpy(copy, members, n * sizeof(*copy));
	}
	if (idx) {
		s = &defs->subsets[idx - 1];
		free(s->members);
		defs->subset_members -= s->n;
	} else {
		if (defs->subsets_n >= DEFS_MAX) {
			free(copy);
			return PICL_ERR_DATA;
		}
		if (defs->subsets_n == defs->subsets_cap) {
			size_t ncap = defs->subsets_cap ? defs->subsets_cap * 2 : 16;
			struct subset *p = realloc(defs->subsets, ncap * sizeof(*p));
			uint32_t *q;

			if (!p) {
				free(copy);
				return PICL_ERR_NOMEM;
			}
			defs->subsets = p;
			q = realloc(defs->queue, ncap * sizeof(*q));
			if (!q) {
				free(copy);
				return PICL_ERR_NOMEM;
			}
			defs->queue = q;
			defs->subsets_cap = ncap;
		}
		s = &defs->subsets[defs->subsets_n];
		if (imap_put(map, key, (uint32_t)(defs->subsets_n + 1)) < 0 ||
		    (kind == PICL_SUBSET_PROCESSES &&
		     imap_put(&defs->process_ids, id, (uint32_t)(defs->subsets_n + 1)) < 0)) {
			free(copy);
			return PICL_ERR_NOMEM;
		}
		defs->subsets_n++;
		s->kind = kind;
		s->id = id;
		s->processor = processor;
		s->seen = 0;
	}
	s->members = copy;
	s->n = n;
	defs->subset_members += n;
	defs->cache_valid = 0;
	defs->generation++;
	return PICL_OK;
}

/* The predefined event subsets of Table 5: 1 if `event` belongs to `id`,
 * 0 if not, -1 if `id` is not predefined. */
static int predefined_event_subset(int32_t id, int32_t e)
{
	switch (id) {
	case -1001: return e >= 0;
	case -1002: return e <= -2 && e >= -1000;
	case -1011: return e <= -11 && e >= -200;
	case -1012: return e <= -21 && e >= -50;
	case -1013: return e <= -51 && e >= -80;
	case -1014: return e == -31 || e == -52 || e == -56 || e == -61;
	case -1201: return e <= -201 && e >= -400;
	case -1401: return e <= -401 && e >= -500;
	case -1501: return e <= -501 && e >= -600;
	case -1601: return e <= -601 && e >= -700;
	case -1901: return e <= -901 && e >= -1000;
	case -1902: return e == -911 || e == -912;
	}
	return -1;
}

int picl_defs_subset_exists(const struct picl_defs *defs,
			    enum picl_subset_kind kind, int32_t id)
{
	if (!defs)
		return 0;
	if (kind == PICL_SUBSET_PROCESSES)
		return imap_get(&defs->process_ids, id) != 0;
	return picl_defs_subset_exists_on(defs, kind, PICL_WILDCARD, id);
}

int picl_defs_subset_exists_on(const struct picl_defs *defs, enum picl_subset_kind kind,
			       int32_t processor, int32_t id)
{
	if (!defs)
		return 0;
	if (find_subset(defs, kind, processor, id))
		return 1;
	return kind == PICL_SUBSET_EVENTS && predefined_event_subset(id, 0) >= 0;
}

/*
 * Membership is a breadth-first walk of the subsets reachable from `pattern`,
 * level by level, each subset visited once per query (marked with the query
 * count), so a query costs at most the subsets and members reachable within
 * SUBSET_DEPTH levels. A subset on level d (pattern is level 0) has its
 * members compared with value as long as d <= SUBSET_DEPTH, and a predefined
 * event subset named on such a level is asked directly: the same answers
 * as following every path up to that depth (a path of at most SUBSET_DEPTH
 * steps exists exactly when the shortest one is that short), without the
 * paths' exponential count. Cycles end at the mark.
 */
int picl_defs_matches(const struct picl_defs *defs, enum picl_subset_kind kind,
		      int32_t pattern, int32_t value)
{
	return picl_defs_matches_on(defs, kind, PICL_WILDCARD, pattern, value);
}

int picl_defs_matches_on(const struct picl_defs *cdefs, enum picl_subset_kind kind,
			 int32_t processor, int32_t pattern, int32_t value)
{
	struct picl_defs *defs = (struct picl_defs *)cdefs; /* marks and queue only */
	const struct subset *s;
	size_t head = 0, tail = 0, level_end;
	int depth;

	if (!defs)
		return 0;
	if (pattern == value || pattern == PICL_WILDCARD)
		return 1;
	if (pattern >= -1)
		return 0;
	s = find_subset(defs, kind, processor, pattern);
	if (!s) {
		if (kind == PICL_SUBSET_EVENTS)
			return predefined_event_subset(pattern, value) == 1;
		return 0;
	}
	defs->query++;
	defs->subsets[s - defs->subsets].seen = defs->query;
	defs->queue[tail++] = (uint32_t)(s - defs->subsets);
	for (depth = 0; depth <= SUBSET_DEPTH && head < tail; depth++) {
		for (level_end = tail; head < level_end; head++) {
			size_t i;

			s = &defs->subsets[defs->queue[head]];
			for (i = 0; i < s->n; i++) {
				int32_t m = s->members[i];
				const struct subset *t;

				if (m == value)
					return 1;
				if (m >= -1 || depth == SUBSET_DEPTH)
					continue;
				t = find_subset(defs, kind, processor, m);
				if (!t) {
					if (kind == PICL_SUBSET_EVENTS &&
					    predefined_event_subset(m, value) == 1)
						return 1;
					continue;
				}
				if (t->seen == defs->query)
					continue;
				defs->subsets[t - defs->subsets].seen = defs->query;
				defs->queue[tail++] = (uint32_t)(t - defs->subsets);
			}
		}
	}
	return 0;
}

const int32_t *picl_defs_subset_members(const struct picl_defs *defs,
		enum picl_subset_kind kind, int32_t id, size_t *n)
{
	return picl_defs_subset_members_on(defs, kind, PICL_WILDCARD, id, n);
}

const int32_t *picl_defs_subset_members_on(const struct picl_defs *defs,
		enum picl_subset_kind kind, int32_t processor, int32_t id, size_t *n)
{
	const struct subset *s = defs ? find_subset(defs, kind, processor, id) : NULL;

	if (n)
		*n = s ? s->n : 0;
	return s ? s->members : NULL;
}

/* rc, with err->mark.column set to the column of byte p (plus `more`
 * bytes) in rec's text when p lies in it, else 0. */
static int fault_at(const struct picl_record *rec, const char *p, size_t more,
		    struct picl_error *err, int rc)
{
	if (!err)
		return rc;
	err->mark.column = 0;
	if (p && rec->line && p >= rec->line && p < rec->line + rec->line_len &&
	    (size_t)(p - rec->line) + more < rec->line_len && (size_t)(p - rec->line) + more < UINT32_MAX)
		err->mark.column = (uint32_t)((size_t)(p - rec->line) + more + 1);
	return rc;
}

/* Where value v stood in rec's text, as far as it is known. */
static const char *value_text(const struct picl_value *v)
{
	if (v->text)
		return v->text;
	return v->kind == PICL_VAL_CHARS || v->kind == PICL_VAL_STRING ? v->v.s.ptr : NULL;
}

static int apply_alias(struct picl_defs *defs, const struct picl_record *rec,
		       struct picl_error *err)
{
	const struct picl_value *v = rec->values;
	const char *ctrl;
	size_t len;
	int rc;

	if (rec->nvalues != 2 || v[0].kind != PICL_VAL_INT ||
	    (v[1].kind != PICL_VAL_STRING && v[1].kind != PICL_VAL_CHARS))
		return picl_set_error(err, PICL_ERR_DATA,
				      "a data descriptor record (-6) needs an integer alias and a control string");
	ctrl = v[1].v.s.ptr;
	len = v[1].v.s.len;
	if (len >= 2 && ctrl[0] == '"' && ctrl[len - 1] == '"') {
		ctrl++;
		len -= 2;
	}
	if (err)
		err->mark.column = 0;
	rc = picl_defs_define_alias(defs, v[0].v.i, rec->event, rec->processor,
				    rec->process, ctrl, len, err);
	if (rc == PICL_ERR_DESCRIPTOR && err && err->mark.column > 0)
		return fault_at(rec, ctrl, err->mark.column - 1, err, rc);
	if (rc == PICL_ERR_DATA)   /* the alias number */
		return fault_at(rec, value_text(&v[0]), 0, err, rc);
	return fault_at(rec, NULL, 0, err, rc);
}

/*
 * A process subset defined on processor subset `psub` (a -202 record whose
 * processor field is below -1) is defined on each processor that subset
 * holds now (members that are processors or -1, nested subsets followed as
 * picl_defs_matches does): a record resolves a process subset through its
 * own processor, and the definitions in force are what it means where it
 * stands. All of them or none: PICL_ERR_DATA with err set past the limits.
 */
static int define_on_processors(struct picl_defs *defs, int32_t psub, int32_t id,
				const int32_t *members, size_t n, struct picl_error *err)
{
	const struct subset *s = find_subset(defs, PICL_SUBSET_PROCESSORS, PICL_WILDCARD, psub);
	int32_t *procs = NULL;
	size_t nprocs = 0, cap = 0, head = 0, tail = 0, level_end, i;
	int depth, rc = PICL_OK;

	if (!s)
		return PICL_OK;   /* no processor: it applies nowhere */
	defs->query++;
	defs->subsets[s - defs->subsets].seen = defs->query;
	defs->queue[tail++] = (uint32_t)(s - defs->subsets);
	for (depth = 0; depth <= SUBSET_DEPTH && head < tail; depth++) {
		for (level_end = tail; head < level_end; head++) {
			s = &defs->subsets[defs->queue[head]];
			for (i = 0; i < s->n; i++) {
				int32_t m = s->members[i];
				const struct subset *t;

				if (m >= -1) {
					if (nprocs == cap) {
						size_t ncap = cap ? cap * 2 : 16;
						int32_t *q = realloc(procs, ncap * sizeof(*q));

						if (!q) {
							free(procs);
							return picl_set_error(err, PICL_ERR_NOMEM,
									      "out of memory");
						}
						procs = q;
						cap = ncap;
					}
					procs[nprocs++] = m;
					continue;
				}
				if (depth == SUBSET_DEPTH ||
				    !(t = find_subset(defs, PICL_SUBSET_PROCESSORS, PICL_WILDCARD, m)) ||
				    t->seen == defs->query)
					continue;
				defs->subsets[t - defs->subsets].seen = defs->query;
				defs->queue[tail++] = (uint32_t)(t - defs->subsets);
			}
		}
	}
	/* the limits for all of them first (counting none replaced) */
	if (nprocs && (n > (SUBSET_MEMBERS_MAX - defs->subset_members) / nprocs ||
		       nprocs > DEFS_MAX - defs->subsets_n)) {
		free(procs);
		return picl_set_error(err, PICL_ERR_DATA,
				      "process subset %d on processor subset %d: too many subset definitions or members (more than %d, %d in all)",
				      (int)id, (int)psub, DEFS_MAX, SUBSET_MEMBERS_MAX);
	}
	for (i = 0; i < nprocs && rc == PICL_OK; i++)
		rc = picl_defs_define_subset_on(defs, PICL_SUBSET_PROCESSES, procs[i], id,
						members, n);
	free(procs);
	if (rc == PICL_ERR_NOMEM)
		return picl_set_error(err, rc, "out of memory");
	return rc;
}

static int apply_subset(struct picl_defs *defs, const struct picl_record *rec,
			enum picl_subset_kind kind, struct picl_error *err)
{
	int32_t stackbuf[64] = { 0 }, *members = stackbuf;
	size_t i, n;
	int rc;

	if (rec->nvalues < 1)
		return picl_set_error(err, PICL_ERR_DATA,
				      "a subset definition needs at least a subset id");
	for (i = 0; i < rec->nvalues; i++)
		if (rec->values[i].kind != PICL_VAL_INT ||
		    rec->values[i].v.i < INT32_MIN || rec->values[i].v.i > INT32_MAX)
			return fault_at(rec, value_text(&rec->values[i]), 0, err,
					picl_set_error(err, PICL_ERR_DATA,
						       "subset definitions hold 32-bit integers only (value %zu)",
						       i + 1));
	if (rec->values[0].v.i >= -1)
		return fault_at(rec, value_text(&rec->values[0]), 0, err,
				picl_set_error(err, PICL_ERR_DATA,
					       "a subset id must be below -1 (found %lld)",
					       (long long)rec->values[0].v.i));
	n = rec->nvalues - 1;
	if (n > sizeof(stackbuf) / sizeof(stackbuf[0])) {
		members = malloc(n * sizeof(*members));
		if (!members)
			return picl_set_error(err, PICL_ERR_NOMEM, "out of memory");
	}
	for (i = 0; i < n; i++)
		members[i] = (int32_t)rec->values[i + 1].v.i;
	if (kind == PICL_SUBSET_PROCESSES && rec->processor < -1)
		rc = define_on_processors(defs, rec->processor, (int32_t)rec->values[0].v.i,
					  members, n, err);
	else
		rc = picl_defs_define_subset_on(defs, kind, rec->processor,
						(int32_t)rec->values[0].v.i, members, n);
	if (members != stackbuf)
		free(members);
	if (rc == PICL_ERR_DATA && kind == PICL_SUBSET_PROCESSES && rec->processor < -1)
		return rc;   /* err set */
	if (rc == PICL_ERR_DATA) {
		/* define_subset changed nothing: which limit was it? */
		int64_t key;
		const struct imap *map = subset_where(defs, kind, rec->processor,
						      (int32_t)rec->values[0].v.i, &key);
		uint32_t idx = imap_get(map, key);
		const struct subset *s = idx ? &defs->subsets[idx - 1] : NULL;

		if (n > SUBSET_MEMBERS_MAX - defs->subset_members + (s ? s->n : 0))
			return picl_set_error(err, rc,
					      "too many subset members (more than %d in all)",
					      SUBSET_MEMBERS_MAX);
		return picl_set_error(err, rc, "too many subset definitions (more than %d)",
				      DEFS_MAX);
	}
	if (rc < 0)
		return picl_set_error(err, rc, "out of memory");
	return PICL_OK;
}

int picl_defs_apply(struct picl_defs *defs, const struct picl_record *rec,
		    struct picl_error *err)
{
	if (err)   /* (set again below where a byte is at fault) */
		err->mark.column = 0;
	if (!defs)
		return picl_set_error(err, PICL_ERR_USAGE, "no definitions (NULL)");
	if (!rec)
		return picl_set_error(err, PICL_ERR_USAGE, "no record to apply (NULL)");
	switch (rec->type) {
	case PICL_REC_DESCRIPTOR:
		return apply_alias(defs, rec, err);
	case PICL_REC_SUBSET_PROCESSORS:
		return apply_subset(defs, rec, PICL_SUBSET_PROCESSORS, err);
	case PICL_REC_SUBSET_PROCESSES:
		return apply_subset(defs, rec, PICL_SUBSET_PROCESSES, err);
	case PICL_REC_SUBSET_EVENTS:
		return apply_subset(defs, rec, PICL_SUBSET_EVENTS, err);
	}
	return PICL_OK;
}
