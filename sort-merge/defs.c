/*
 * defs.c - keeping what records mean while sort and merge move them.
 *
 * A definition record (-6 alias, -201..-203 subset) applies to the records
 * after it in the file. Sort and merge move records, so a definition kept
 * at its timestamp's place would apply to other records than it did. They
 * write definition records instead before every event record, right after
 * the header records, in input order (merge: each input's leading ones, in
 * the order of the inputs). A record whose alias would then resolve to
 * another control string than it did where it stood is written with that
 * control string, in double quotes, in place of the alias number; a subset
 * redefined with other members where records of the other meaning could
 * move past it is refused, naming both definitions.
 *
 * A definition that only repeats what is in force where it stands (the
 * same alias, scope and control string; the same subset members) changes
 * nothing there and is written once, by sort and merge alike.
 *
 * Definitions are rare, and nothing here costs anything per record while a
 * trace's definitions all come before its first event record (sort) or
 * every input leads with the same ones (merge):
 *
 * Sort. Definitions before the first event record ("prefix") change
 * nothing when moved to the front. After a "late" one (a definition after
 * an event record), each record whose alias number a -6 record has defined
 * so far is written with the control string its reader resolves there
 * (deftrack_sort_event, while reading); any other record with an alias
 * number meant what the prefix definitions give it (none define that
 * alias or they came before it), so on output (deftrack_sort_out) a record
 * whose alias a late -6 defines is looked up in the prefix and in all the
 * definitions, and written with the first's control string when they
 * differ.
 *
 * A record whose alias is not in force where it stands (no -6 record
 * before it defines that number for it) means nothing in the input; once
 * definitions move in front of it, a later definition (sort) or another
 * input's (merge) may apply to it. That is what a trace written in flush
 * order, or per-node files with the definitions in one of them, meant; it
 * is kept, and the first such record is named in a warning (file, line,
 * column), so that one who did not mean it knows. Sort notes the first
 * such record of each alias number while reading (only records with an
 * alias above the predefined 0-5 are looked up), and tells at output,
 * where it finds what the record comes to mean.
 *
 * Merge. The inputs' leading definitions are written first; while they are
 * the same text in every input, each record means in the output what it
 * meant in its input. Otherwise, and from a definition met after event
 * records were written (written where it is met: the output has gone past
 * the front), each record whose alias number some -6 record defined is
 * looked up in its input's definitions and in those written, and written
 * with its input's control string when they differ.
 */
#include "runs.h"
#include "builtin.h"
#include "grow.h"
#include "internal.h"   /* picl_is_blank */
#include "intmap.h"

#include <stdlib.h>
#include <string.h>

/* Where a subset was last defined. */
struct origin {
	int kind;
	int32_t id;
	char *path;
	uint64_t line;
	size_t src;
};

/* An alias definition in force (sort): its scope and control string. */
struct aliasdef {
	int64_t alias;
	int32_t event, processor, process;
	char *control;
	size_t len;
};

struct deftrack {
	const char *cmd;
	int merge;
	size_t nsrc;
	char *lines;               /* sort: definition lines, in input order */
	size_t len, cap;
	struct picl_defs *prefix;  /* sort: before the first late definition */
	struct picl_defs *all;     /* sort: all; merge: those written */
	int events;                /* an event record read (sort) or written (merge) */
	int late;                  /* sort: a definition after an event record */
	int careful;               /* merge: look records up */
	int late_subset;           /* sort: a subset defined late */
	/* Looked up by hash, not by a scan: a hostile trace of 40,000 -6
	 * records with as many alias numbers took a second to sort (cat:
	 * 0.04 s), ten times as many a hundred times that. */
	struct intmap defined;     /* alias numbers of -6 records so far ->
				      the line of the first */
	struct intmap late_defined;   /* sort: those of late -6 records */
	struct intmap undef_at;    /* sort: alias number -> umarks index */
	struct picl_mark *umarks;  /* sort: where a record used it undefined */
	size_t numarks, ucap;
	char *path;                /* sort: the input's name, for those */
	int warned;                /* such a record has been named */
	struct origin *orig;
	size_t norig, ocap;
	struct intmap orig_of;     /* (kind, id) -> orig index */
	struct intmap proc_orig_of;   /* process subsets: (processor, id) -> orig index */
	struct aliasdef *adefs;    /* every scope's latest -6 */
	size_t nadefs, acap;
	struct intmap adef_of;     /* scope_key -> adefs index (a collision:
				      a scan) */
	char **text;               /* merge: each input's leading definitions */
	size_t *tlen, *tcap;
	char *buf;                 /* a rewritten line */
	size_t bcap;
};



static int has_alias(const struct intmap *set, int64_t alias)
{
	size_t v;

	return intmap_get(set, (uint64_t)alias, &v);
}

/* Does rec's data go through an alias a -6 record of the input defined
 * (not a predefined one): the records a late definition may change? */
static int uses_defined_alias(const struct intmap *defined, const struct picl_record *rec)
{
	return rec->has_descriptor && rec->alias >= 0 && rec->nfields != 0 &&
	       has_alias(defined, rec->alias);
}

static int note_alias(struct intmap *set, int64_t alias, uint64_t line)
{
	return has_alias(set, alias) ? 0 : intmap_put(set, (uint64_t)alias, (size_t)line);
}

/* One key for an alias and its scope (event, processor, process). */
static uint64_t scope_key(int64_t alias, int32_t event, int32_t processor, int32_t process)
{
	return intmap_hash((uint64_t)alias ^ intmap_hash(intmap_key2(event, processor) ^
							 intmap_hash((uint64_t)(uint32_t)process)));
}

static int nomem(const struct deftrack *t)
{
	picltrace_error(t->cmd, "out of memory");
	return -1;
}

struct deftrack *deftrack_new(const char *cmd, size_t nsources)
{
	struct deftrack *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->cmd = cmd;
	t->merge = nsources > 0;
	t->nsrc = nsources;
	t->all = picl_defs_new();
	t->prefix = t->merge ? NULL : picl_defs_new();
	if (t->merge) {
		t->text = calloc(nsources, sizeof(*t->text));
		t->tlen = calloc(nsources, sizeof(*t->tlen));
		t->tcap = calloc(nsources, sizeof(*t->tcap));
	}
	if (!t->all || (!t->merge && !t->prefix) ||
	    (t->merge && (!t->text || !t->tlen || !t->tcap))) {
		deftrack_free(t);
		return NULL;
	}
	return t;
}

void deftrack_free(struct deftrack *t)
{
	size_t i;

	if (!t)
		return;
	free(t->lines);
	picl_defs_free(t->prefix);
	picl_defs_free(t->all);
	intmap_free(&t->defined);
	intmap_free(&t->late_defined);
	intmap_free(&t->undef_at);
	free(t->umarks);
	free(t->path);
	intmap_free(&t->orig_of);
	intmap_free(&t->proc_orig_of);
	intmap_free(&t->adef_of);
	for (i = 0; i < t->norig; i++)
		free(t->orig[i].path);
	free(t->orig);
	for (i = 0; i < t->nadefs; i++)
		free(t->adefs[i].control);
	free(t->adefs);
	for (i = 0; t->text && i < t->nsrc; i++)
		free(t->text[i]);
	free(t->text);
	free(t->tlen);
	free(t->tcap);
	free(t->buf);
	free(t);
}

static int subset_kind(int32_t type)
{
	return type == PICL_REC_SUBSET_PROCESSORS ? PICL_SUBSET_PROCESSORS :
	       type == PICL_REC_SUBSET_PROCESSES ? PICL_SUBSET_PROCESSES : PICL_SUBSET_EVENTS;
}

/* The map and key of the origin of subset id of kind defined on processor
 * (process subsets are per processor: picl-trace.h). */
static struct intmap *origin_map(struct deftrack *t, int kind, int32_t processor, int32_t id,
				 uint64_t *key)
{
	if (kind == PICL_SUBSET_PROCESSES) {
		*key = intmap_key2(processor, id);
		return &t->proc_orig_of;
	}
	*key = intmap_key2(kind, id);
	return &t->orig_of;
}

static struct origin *find_origin(struct deftrack *t, int kind, int32_t processor, int32_t id)
{
	uint64_t key;
	struct intmap *m = origin_map(t, kind, processor, id, &key);
	size_t i;

	return intmap_get(m, key, &i) ? &t->orig[i] : NULL;
}

/* The members of the subset a definition record of `processor` replaces:
 * its own scope's (a process subset for processor P, not the one for every
 * processor that P's records fall back on). */
static const int32_t *scope_members(const struct picl_defs *all, int kind, int32_t processor,
				    int32_t id, size_t *n)
{
	const int32_t *m = picl_defs_subset_members_on(all, kind, processor, id, n);

	if (m && kind == PICL_SUBSET_PROCESSES && processor != PICL_WILDCARD &&
	    m == picl_defs_subset_members(all, kind, id, NULL)) {
		*n = 0;
		return NULL;
	}
	return m;
}

static int same_members(const int32_t *a, size_t na, const int32_t *b, size_t nb)
{
	return na == nb && (na == 0 || memcmp(a, b, na * sizeof(*a)) == 0);
}

/*
 * Apply definition record rec (read by r, from input src) to t->all (and
 * the prefix while `prefix`). A subset that had other members, defined
 * where `conflict` says the two meanings cannot both be kept, is refused.
 */
static int apply(struct deftrack *t, struct picl_reader *r, size_t src,
		 const struct picl_record *rec, int prefix, int (*conflict)(const struct deftrack *,
		 const struct origin *, size_t))
{
	struct picl_error err = { 0 };
	int32_t *old = NULL;
	size_t nold = 0;
	int kind = -1, rc;
	int32_t id = 0;

	if (rec->type == PICL_REC_DESCRIPTOR) {
		if (rec->nvalues >= 1 && rec->values[0].kind == PICL_VAL_INT) {
			int64_t alias = rec->values[0].v.i;

			if (note_alias(&t->defined, alias, rec->mark.line) < 0 ||
			    (!prefix && !t->merge &&
			     note_alias(&t->late_defined, alias, rec->mark.line) < 0))
				return nomem(t);
		}
	} else if (rec->nvalues >= 1 && rec->values[0].kind == PICL_VAL_INT &&
		   rec->values[0].v.i < -1 && rec->values[0].v.i >= INT32_MIN) {
		const int32_t *m;

		kind = subset_kind(rec->type);
		id = (int32_t)rec->values[0].v.i;
		m = scope_members(t->all, kind, rec->processor, id, &nold);
		if (m) {
			old = malloc((nold ? nold : 1) * sizeof(*old));
			if (!old)
				return nomem(t);
			memcpy(old, m, nold * sizeof(*old));
		}
		if (!prefix && !t->merge)
			t->late_subset = 1;
	}
	rc = picl_defs_apply(t->all, rec, &err);
	if (rc == PICL_OK && prefix && t->prefix)
		rc = picl_defs_apply(t->prefix, rec, &err);
	if (rc != PICL_OK) {
		free(old);
		if (rc == PICL_ERR_NOMEM)
			return nomem(t);
		err.path = picl_reader_path(r);
		err.mark.line = rec->mark.line;
		if (!err.mark.column)
			err.mark.column = 1;
		picltrace_report(t->cmd, &err);
		return -1;
	}
	if (kind >= 0) {
		struct origin *o = find_origin(t, kind, rec->processor, id);
		size_t nnew = 0;
		const int32_t *m = scope_members(t->all, kind, rec->processor, id, &nnew);
		char *path;

		if (old && o && !same_members(old, nold, m, nnew) && conflict(t, o, src)) {
			picltrace_error(t->cmd, "%s:%llu:1: subset %d is defined again with other "
					"members than at %s:%llu, whose records would change meaning "
					"once definitions are written first; give it another id",
					picl_reader_path(r), (unsigned long long)rec->mark.line,
					(int)id, o->path, (unsigned long long)o->line);
			free(old);
			return -1;
		}
		free(old);
		path = strdup(picl_reader_path(r));
		if (!path)
			return nomem(t);
		if (!o) {
			uint64_t key;
			struct intmap *map = origin_map(t, kind, rec->processor, id, &key);

			if (grow((void **)&t->orig, &t->ocap, t->norig + 1, sizeof(*t->orig)) < 0 ||
			    intmap_put(map, key, t->norig) < 0) {
				free(path);
				return nomem(t);
			}
			o = &t->orig[t->norig++];
			o->kind = kind;
			o->id = id;
		} else {
			free(o->path);
		}
		o->path = path;
		o->line = rec->mark.line;
		o->src = src;
	}
	return 0;
}

/* Sort: a subset redefined after event records. */
static int sort_conflict(const struct deftrack *t, const struct origin *o, size_t src)
{
	(void)o;
	(void)src;
	return t->late;
}

/* Merge: redefined by another input, or after event records were written. */
static int merge_conflict(const struct deftrack *t, const struct origin *o, size_t src)
{
	return t->events || o->src != src;
}

/* The control string of a decoded -6 record, without its quotes. */
static void control_of(const struct picl_record *rec, const char **p, size_t *len)
{
	*p = rec->values[1].v.s.ptr;
	*len = rec->values[1].v.s.len;
	if (*len >= 2 && (*p)[0] == '"' && (*p)[*len - 1] == '"') {
		(*p)++;
		*len -= 2;
	}
}

/*
 * 1 if definition rec only says again what is in force (the same
 * alias, scope and control string; the same subset members): as late as
 * it comes, it changes no record's meaning (cat of per-node files that
 * each define the same): sort and merge write it once. Else note it
 * (aliases): 0, or -1 out of memory.
 */
static int same_scope(const struct aliasdef *a, const struct picl_record *rec)
{
	return a->alias == rec->values[0].v.i && a->event == rec->event &&
	       a->processor == rec->processor && a->process == rec->process;
}

static int redundant(struct deftrack *t, const struct picl_record *rec)
{
	size_t i, len;
	const char *p;
	uint64_t key;
	int hashed;

	if (rec->nvalues < 1 || rec->values[0].kind != PICL_VAL_INT)
		return 0;
	if (rec->type != PICL_REC_DESCRIPTOR) {
		size_t n = 0;
		const int32_t *m = rec->values[0].v.i < -1 && rec->values[0].v.i >= INT32_MIN ?
			scope_members(t->all, subset_kind(rec->type), rec->processor,
				      (int32_t)rec->values[0].v.i, &n) : NULL;

		if (!m || n + 1 != rec->nvalues)
			return 0;
		for (i = 0; i < n; i++)
			if (rec->values[i + 1].kind != PICL_VAL_INT || rec->values[i + 1].v.i != m[i])
				return 0;
		return 1;
	}
	if (rec->nvalues < 2 || rec->values[1].kind != PICL_VAL_STRING)
		return 0;
	control_of(rec, &p, &len);
	key = scope_key(rec->values[0].v.i, rec->event, rec->processor, rec->process);
	hashed = intmap_get(&t->adef_of, key, &i);
	if (hashed && !same_scope(&t->adefs[i], rec))
		for (i = 0; i < t->nadefs && !same_scope(&t->adefs[i], rec); i++)
			;   /* another scope has the key: a scan */
	if (hashed && i < t->nadefs) {
		struct aliasdef *a = &t->adefs[i];
		char *c;

		if (a->len == len && !memcmp(a->control, p, len))
			return 1;
		if (!(c = malloc(len + 1)))
			return -1;
		memcpy(c, p, len);
		free(a->control);
		a->control = c;
		a->len = len;
		return 0;
	}
	if (grow((void **)&t->adefs, &t->acap, t->nadefs + 1, sizeof(*t->adefs)) < 0 ||
	    (!hashed && intmap_put(&t->adef_of, key, t->nadefs) < 0) ||
	    !(t->adefs[t->nadefs].control = malloc(len + 1)))
		return -1;
	memcpy(t->adefs[t->nadefs].control, p, len);
	t->adefs[t->nadefs].len = len;
	t->adefs[t->nadefs].alias = rec->values[0].v.i;
	t->adefs[t->nadefs].event = rec->event;
	t->adefs[t->nadefs].processor = rec->processor;
	t->adefs[t->nadefs].process = rec->process;
	t->nadefs++;
	return 0;
}

int deftrack_sort_def(struct deftrack *t, struct picl_reader *r, const struct picl_record *rec)
{
	int same = redundant(t, rec);

	if (same < 0)
		return nomem(t);
	if (t->events && !same)
		t->late = 1;
	if (same)
		return 0;   /* written once: it changes nothing where it stands */
	if (apply(t, r, 0, rec, !t->late, sort_conflict) < 0)
		return -1;
	if (runs_append_line(&t->lines, &t->len, &t->cap, rec->line, rec->line_len) < 0)
		return nomem(t);
	return 0;
}

int deftrack_write(struct deftrack *t, struct picl_writer *w)
{
	if (t->len && picl_writer_write_raw(w, t->lines, t->len) < 0) {
		picltrace_report(t->cmd, picl_writer_error(w));
		return -1;
	}
	return 0;
}


/* Where field k (0-based) of line[0..len) starts and ends (a double-quoted
 * control string is one field); 0 if there is none. */
static int field(const char *line, size_t len, unsigned k, size_t *start, size_t *end)
{
	size_t i = 0;
	unsigned f;

	for (f = 0;; f++) {
		while (i < len && picl_is_blank((unsigned char)line[i]))
			i++;
		if (i >= len)
			return 0;
		*start = i;
		if (line[i] == '"') {
			for (i++; i < len && line[i] != '"'; i++)
				;
			if (i < len)
				i++;
		}
		while (i < len && !picl_is_blank((unsigned char)line[i]))
			i++;
		*end = i;
		if (f == k)
			return 1;
	}
}

/* Line with field [start, end) replaced by control in double quotes, in
 * t->buf; NULL when out of memory. */
static const char *rewrite(struct deftrack *t, const char *line, size_t len, size_t start,
			   size_t end, const char *control, size_t *nlen)
{
	size_t cl = strlen(control), n = start + cl + 2 + (len - end);

	if (grow((void **)&t->buf, &t->bcap, n + 1, 1) < 0)
		return NULL;
	memcpy(t->buf, line, start);
	t->buf[start] = '"';
	memcpy(t->buf + start + 1, control, cl);
	t->buf[start + 1 + cl] = '"';
	memcpy(t->buf + start + 2 + cl, line + end, len - end);
	*nlen = n;
	return t->buf;
}

/* The record's line with its descriptor field (field 6) replaced by d's
 * control string; NULL if it has none (or out of memory: *fail). */
static const char *explicit_line(struct deftrack *t, const char *line, size_t len,
				 const struct picl_descriptor *d, size_t *nlen, int *fail)
{
	size_t start, end;
	const char *p;

	if (!field(line, len, 6, &start, &end) || line[start] == '"')
		return NULL;
	p = rewrite(t, line, len, start, end, picl_descriptor_control(d), nlen);
	if (!p)
		*fail = nomem(t);
	return p;
}

/* Where rec's descriptor field is: its line and column. */
static struct picl_mark descriptor_mark(const struct picl_record *rec)
{
	struct picl_mark m = rec->mark;
	size_t s, e;

	if (field(rec->line, rec->line_len, 6, &s, &e))
		m.column += s;
	return m;
}

/* Sort: note where rec uses an alias number no definition in force there
 * defines (the first such record of each number, for the first
 * UNDEF_NOTED numbers: a hostile trace of distinct ones must not grow
 * this past --memory; a later one is named without its place). 0, or -1
 * out of memory. */
#define UNDEF_NOTED 65536
static int note_undefined(struct deftrack *t, struct picl_reader *r,
			  const struct picl_record *rec)
{
	size_t i;

	if (!rec->has_descriptor || rec->alias <= 5 || rec->nfields == 0)
		return 0;   /* none, or predefined: in force everywhere */
	if (has_alias(&t->defined, rec->alias) &&
	    picl_defs_lookup_alias(picl_reader_defs(r), rec->alias, rec->event, rec->processor,
				   rec->process))
		return 0;
	if (t->numarks >= UNDEF_NOTED || intmap_get(&t->undef_at, (uint64_t)rec->alias, &i))
		return 0;
	if ((!t->path && !(t->path = strdup(picl_reader_path(r)))) ||
	    grow((void **)&t->umarks, &t->ucap, t->numarks + 1, sizeof(*t->umarks)) < 0 ||
	    intmap_put(&t->undef_at, (uint64_t)rec->alias, t->numarks) < 0)
		return -1;
	t->umarks[t->numarks++] = descriptor_mark(rec);
	return 0;
}

const char *deftrack_sort_event(struct deftrack *t, struct picl_reader *r,
				const struct picl_record *rec, size_t *nlen, int *fail)
{
	const struct picl_descriptor *d;

	t->events = 1;
	if (rec->alias > 5 && note_undefined(t, r, rec) < 0) {
		*fail = nomem(t);
		return NULL;
	}
	if (!t->late || !uses_defined_alias(&t->defined, rec))
		return NULL;
	d = picl_defs_lookup_alias(picl_reader_defs(r), rec->alias, rec->event, rec->processor,
				   rec->process);
	if (!d)
		return NULL;
	return explicit_line(t, rec->line, rec->line_len, d, nlen, fail);
}

/* A record whose alias is not in force where it stands, to which the
 * definitions written first give a meaning: the first is named. */
static void gains_meaning(struct deftrack *t, const char *path, struct picl_mark m,
			  int64_t alias, int64_t event, int64_t processor, int64_t process,
			  uint64_t def_line)
{
	char which[96] = "a definition of another input, written before it,";

	if (t->warned)
		return;
	t->warned = 1;
	if (!t->merge && def_line)
		snprintf(which, sizeof(which), "where definitions come first, the definition "
			 "at line %llu", (unsigned long long)def_line);
	else if (!t->merge)
		snprintf(which, sizeof(which), "where definitions come first, a definition "
			 "after it");
	if (m.line)
		picltrace_error(t->cmd, "warning: %s:%llu:%llu: descriptor alias %lld is not "
				"defined for event %lld on processor %lld, process %lld where this "
				"record stands; in the output, %s applies to it (other such records "
				"are not named)", path, (unsigned long long)m.line,
				(unsigned long long)m.column, (long long)alias, (long long)event,
				(long long)processor, (long long)process, which);
	else
		picltrace_error(t->cmd, "warning: %s: a record uses descriptor alias %lld where it "
				"is not defined; in the output, %s applies to it (other such "
				"records are not named)", path, (long long)alias, which);
}

/* An int32 from field [s, e) of line; 0 if it is not one. */
static int int_field(const char *line, size_t s, size_t e, int64_t *v)
{
	int neg = 0;
	int64_t x = 0;

	if (s < e && (line[s] == '-' || line[s] == '+'))
		neg = line[s++] == '-';
	if (s >= e)
		return 0;
	for (; s < e; s++) {
		if (line[s] < '0' || line[s] > '9' || x > ((int64_t)1 << 40))
			return 0;
		x = x * 10 + (line[s] - '0');
	}
	*v = neg ? -x : x;
	return 1;
}

const char *deftrack_sort_out(struct deftrack *t, const char *line, size_t len, size_t *nlen,
			      int *fail)
{
	int64_t v[7];
	size_t s[7], e[7];
	const struct picl_descriptor *din, *dout;
	unsigned k;

	if (!t->late)
		return NULL;
	for (k = 0; k < 7; k++)
		if (!field(line, len, k, &s[k], &e[k]) ||
		    (k != 2 && !int_field(line, s[k], e[k], &v[k])))
			return NULL;
	if (v[5] == 0 || v[6] < 0 || v[1] < INT32_MIN || v[1] > INT32_MAX ||
	    v[3] < INT32_MIN || v[3] > INT32_MAX || v[4] < INT32_MIN || v[4] > INT32_MAX ||
	    (!t->late_subset ? !has_alias(&t->late_defined, v[6])
			     : !has_alias(&t->defined, v[6])))
		return NULL;
	din = picl_defs_lookup_alias(t->prefix, v[6], (int32_t)v[1], (int32_t)v[3], (int32_t)v[4]);
	dout = picl_defs_lookup_alias(t->all, v[6], (int32_t)v[1], (int32_t)v[3], (int32_t)v[4]);
	if (!din && dout && !t->warned) {
		/* Not defined where it stood (deftrack_sort_event rewrote
		 * every record a definition in force gave a meaning). */
		struct picl_mark m = { 0, 0, 0 };
		size_t i, def_line = 0;

		if (intmap_get(&t->undef_at, (uint64_t)v[6], &i))
			m = t->umarks[i];
		if (!intmap_get(&t->late_defined, (uint64_t)v[6], &def_line))
			intmap_get(&t->defined, (uint64_t)v[6], &def_line);
		gains_meaning(t, t->path ? t->path : "", m, v[6], v[1], v[3], v[4], def_line);
		return NULL;
	}
	if (!din || (dout && !strcmp(picl_descriptor_control(din), picl_descriptor_control(dout))))
		return NULL;
	return explicit_line(t, line, len, din, nlen, fail);
}

int deftrack_merge_def(struct deftrack *t, size_t src, struct picl_reader *r,
		       const struct picl_record *rec)
{
	int rc;

	if (t->events)
		t->careful = 1;
	else if (runs_append_line(&t->text[src], &t->tlen[src], &t->tcap[src], rec->line,
			  rec->line_len) < 0)
		return nomem(t);
	/* Only what is in force already (per-node files that each define
	 * the same: a merge of 64 wrote 64 copies): not written again. */
	if ((rc = redundant(t, rec)) != 0)
		return rc < 0 ? nomem(t) : 1;
	return apply(t, r, src, rec, 0, merge_conflict);
}

const char *deftrack_merge_event(struct deftrack *t, size_t src, struct picl_reader *r,
				 const struct picl_record *rec, size_t *nlen, int *fail)
{
	const struct picl_descriptor *din, *dout;

	if (!t->events) {
		size_t i;

		t->events = 1;
		for (i = 1; i < t->nsrc; i++)
			if (t->tlen[i] != t->tlen[0] ||
			    (t->tlen[0] && memcmp(t->text[i], t->text[0], t->tlen[0])))
				t->careful = 1;
	}
	if (!t->careful || !uses_defined_alias(&t->defined, rec))
		return NULL;
	din = picl_defs_lookup_alias(picl_reader_defs(r), rec->alias, rec->event, rec->processor,
				     rec->process);
	dout = picl_defs_lookup_alias(t->all, rec->alias, rec->event, rec->processor,
				      rec->process);
	(void)src;
	if (!din && dout)
		gains_meaning(t, picl_reader_path(r), descriptor_mark(rec), rec->alias,
			      rec->event, rec->processor, rec->process, 0);
	if (!din || (dout && !strcmp(picl_descriptor_control(din), picl_descriptor_control(dout))))
		return NULL;
	return explicit_line(t, rec->line, rec->line_len, din, nlen, fail);
}
