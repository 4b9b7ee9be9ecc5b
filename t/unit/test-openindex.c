/*
 * test-openindex.c - the index of a stack of open entries (openindex.h)
 * against a plain model: a list of the open entries, where an exit is
 * matched by a scan down from the top and removed by moving the ones
 * above. Random pushes and exits over few or many event types, exits of
 * types not open, the holes kept within bounds, and the two orders that
 * were quadratic before (first-in first-out; N of A, N of B, N exits of
 * A) at a size where a scan per exit would show.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "openindex.h"

/* ck_assert* tells Check where it is at every call, through a file: too
 * slow for millions; these call it only on failure. */
#define CHECK(c) do { if (!(c)) ck_assert(c); } while (0)
#define CHECK_EQ(a, b) do { if ((a) != (b)) ck_assert_int_eq(a, b); } while (0)

struct fr {
	int64_t id;
	int32_t event;
};

/* The model and the stack under test, side by side. */
struct pair {
	struct openindex o;
	struct fr *f;             /* the stack, holes included */
	size_t depth, cap;
	struct fr *m;             /* the model: open entries only */
	size_t nm, mcap;
	int64_t next_id;
	uint64_t compactions;
};

static void push(struct pair *p, int32_t e)
{
	if (p->depth == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 16;
		p->f = realloc(p->f, p->cap * sizeof(*p->f));
		ck_assert_ptr_nonnull(p->f);
	}
	if (p->nm == p->mcap) {
		p->mcap = p->mcap ? 2 * p->mcap : 16;
		p->m = realloc(p->m, p->mcap * sizeof(*p->m));
		ck_assert_ptr_nonnull(p->m);
	}
	p->f[p->depth].event = e;
	p->f[p->depth].id = p->next_id;
	p->m[p->nm++] = p->f[p->depth++];
	p->next_id++;
}

/* Exit of e in both; checks they agree on the entry (or on none). */
static void pop(struct pair *p, int32_t e)
{
	size_t k = p->nm, i;

	while (k > 0 && p->m[k - 1].event != e)
		k--;
	i = openindex_find(&p->o, p->f, sizeof(*p->f), offsetof(struct fr, event),
			   p->depth, e);
	CHECK(i != OPENINDEX_NOMEM);
	if (k == 0) {
		CHECK_EQ(i, 0);
		return;
	}
	CHECK(i > 0);
	CHECK(i <= p->depth);
	CHECK(!openindex_hole(&p->o, i - 1));
	CHECK_EQ(p->f[i - 1].event, e);
	CHECK_EQ(p->f[i - 1].id, p->m[k - 1].id);
	memmove(p->m + k - 1, p->m + k, (p->nm - k) * sizeof(*p->m));
	p->nm--;
	p->depth = openindex_exit(&p->o, p->depth, i, e);
	if (openindex_crowded(&p->o, p->depth)) {
		p->depth = openindex_compact(&p->o, p->f, sizeof(*p->f), p->depth);
		p->compactions++;
		CHECK_EQ(p->o.holes, 0);
	}
}

/* The open frames of the stack are the model's, in order; the top is
 * not a hole; the holes are few or at most as many as the open ones. */
static void check_same(const struct pair *p)
{
	size_t i, j = 0, holes = 0;

	for (i = 0; i < p->depth; i++) {
		if (openindex_hole(&p->o, i)) {
			holes++;
			continue;
		}
		CHECK(j < p->nm);
		CHECK_EQ(p->f[i].id, p->m[j].id);
		j++;
	}
	CHECK_EQ(j, p->nm);
	CHECK_EQ(holes, p->o.holes);
	if (p->depth > 0)
		CHECK(!openindex_hole(&p->o, p->depth - 1));
	CHECK(holes <= OPENINDEX_SLACK || holes <= p->nm);
}

static void pair_free(struct pair *p)
{
	openindex_free(&p->o);
	free(p->f);
	free(p->m);
}

/* xorshift64*: the same sequence everywhere */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static void random_run(uint64_t seed, unsigned types, unsigned steps, unsigned push_pct,
		       int compacts)
{
	struct pair p;
	uint64_t s = seed;
	unsigned n;

	memset(&p, 0, sizeof(p));
	for (n = 0; n < steps; n++) {
		uint64_t r = rnd(&s);

		if (p.nm == 0 || r % 100 < push_pct) {
			push(&p, (int32_t)(rnd(&s) % types) - (int32_t)(types / 2));
		} else if (r % 100 < push_pct + 5) {
			pop(&p, (int32_t)types + 7);            /* never open */
		} else if (r % 3 == 0) {
			pop(&p, p.m[p.nm - 1].event);           /* the top */
		} else {
			pop(&p, p.m[rnd(&s) % p.nm].event);     /* any open one */
		}
		check_same(&p);
	}
	/* with many types, holes were made, and many at times */
	if (compacts)
		ck_assert_uint_gt(p.compactions, 0);
	while (p.nm > 0) {
		pop(&p, p.m[0].event);
		check_same(&p);
	}
	CHECK_EQ(p.depth, 0);
	pair_free(&p);
}

START_TEST(random_few_types)
{
	random_run(0x9e3779b97f4a7c15ULL + (uint64_t)_i, 3, 20000, 55, 0);
}
END_TEST

START_TEST(random_many_types)
{
	random_run(0x2545f4914f6cdd1dULL + (uint64_t)_i, 500, 20000, 52, 1);
}
END_TEST

/* The map of types is made again when the types of gone frames pile up:
 * each of many types pushed, found by an exit of a type not open, and
 * exited at the top. */
START_TEST(gone_types_forgotten)
{
	struct pair p;
	int32_t e;

	memset(&p, 0, sizeof(p));
	push(&p, -901);
	for (e = 1; e <= 100000; e++) {
		push(&p, e);
		pop(&p, -1);
		pop(&p, e);
		CHECK(p.o.inner.n <= 2 * p.o.indexed + 64 + 2);
	}
	check_same(&p);
	pair_free(&p);
}
END_TEST

/* First in, first out: every exit is of the bottom entry. */
START_TEST(fifo)
{
	struct pair p;
	int32_t e, n = 200000;

	memset(&p, 0, sizeof(p));
	for (e = 0; e < n; e++)
		push(&p, e);
	for (e = 0; e < n; e++) {
		size_t i = openindex_find(&p.o, p.f, sizeof(*p.f), offsetof(struct fr, event),
					  p.depth, e);

		CHECK_EQ(p.f[i - 1].id, e);
		p.depth = openindex_pop(&p.o, p.f, sizeof(*p.f), p.depth, i, e);
		CHECK(p.depth <= 2 * (size_t)(n - e - 1) + OPENINDEX_SLACK + 1);
	}
	CHECK_EQ(p.depth, 0);
	pair_free(&p);
}
END_TEST

/* N entries of 5, N of 6, N exits of 5 (each the innermost 5, under all
 * the 6s), then N exits of 6. */
START_TEST(two_layers)
{
	struct pair p;
	int32_t k, n = 200000;

	memset(&p, 0, sizeof(p));
	for (k = 0; k < 2 * n; k++)
		push(&p, k < n ? 5 : 6);
	for (k = 0; k < 2 * n; k++) {
		int32_t e = k < n ? 5 : 6;
		size_t i = openindex_find(&p.o, p.f, sizeof(*p.f), offsetof(struct fr, event),
					  p.depth, e);

		/* the innermost of its type: the 5s from n - 1 down, the
		 * 6s from the top */
		CHECK_EQ(p.f[i - 1].id, k < n ? n - 1 - k : 2 * n - 1 - (k - n));
		p.depth = openindex_pop(&p.o, p.f, sizeof(*p.f), p.depth, i, e);
	}
	CHECK_EQ(p.depth, 0);
	pair_free(&p);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("openindex");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, random_few_types, 0, 4);
	tcase_add_loop_test(tc, random_many_types, 0, 4);
	tcase_add_test(tc, gone_types_forgotten);
	tcase_add_test(tc, fifo);
	tcase_add_test(tc, two_layers);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
