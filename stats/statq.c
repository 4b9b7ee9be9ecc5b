/*
 * statq.c - the statistics accumulator on a thread of its own (statq.h).
 *
 * A ring of NBATCH batches of BATCH events. The reading thread fills the
 * batch at `head` and publishes it by moving head on; the accumulator's
 * thread takes in the batch at `tail` and moves tail on. Each side touches
 * a batch only while it is its own (head and tail change under the lock),
 * so the events themselves need no locking: one lock and one wake-up per
 * BATCH events. A batch of 2048 events is ~150 KB: the ring stays in the
 * caches of the two cores.
 */
#include "statq.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define BATCH 2048
#define NBATCH 4

struct item {
	struct picl_stats_event ev;
	const char *path;
};

struct statq {
	struct picl_stats *stats;
	struct item *items;              /* NBATCH * BATCH */
	size_t fill;                     /* events in the batch at head */

	pthread_mutex_t lock;
	pthread_cond_t cond;             /* head, tail or stop changed */
	uint64_t head, tail;             /* batches published, taken in */
	int stop;
	int threaded;
	pthread_t thread;

	/* the accumulator's side (read by the other after a drain) */
	int nomem;
	uint64_t refused;
	struct picl_error errs[STATQ_KEEP];
};

/* Feed one event; on the accumulator's thread, or the caller's. */
static void take(struct statq *q, const struct item *it)
{
	struct picl_error err;   /* filled on error only: no clearing per event */
	int rc;

	if (q->nomem)
		return;
	rc = picl_stats_add_event(q->stats, &it->ev, &err);
	if (rc == PICL_OK)
		return;
	if (rc == PICL_ERR_NOMEM) {
		q->nomem = 1;
		return;
	}
	if (q->refused < STATQ_KEEP) {
		err.path = it->path;
		err.mark = it->ev.mark;
		err.sys_errno = 0;
		q->errs[q->refused] = err;
	}
	q->refused++;
}

static void *run(void *arg)
{
	struct statq *q = arg;

	for (;;) {
		uint64_t b;
		size_t i;

		pthread_mutex_lock(&q->lock);
		while (q->tail == q->head && !q->stop)
			pthread_cond_wait(&q->cond, &q->lock);
		if (q->tail == q->head) {
			pthread_mutex_unlock(&q->lock);
			return NULL;
		}
		b = q->tail;
		pthread_mutex_unlock(&q->lock);

		/* A published batch is full but for the last before a drain,
		 * which marks its end with a NULL path. */
		for (i = 0; i < BATCH; i++) {
			const struct item *it = &q->items[(b % NBATCH) * BATCH + i];

			if (!it->path)
				break;
			take(q, it);
		}

		pthread_mutex_lock(&q->lock);
		q->tail++;
		pthread_cond_broadcast(&q->cond);
		pthread_mutex_unlock(&q->lock);
	}
}

struct statq *statq_new(struct picl_stats *stats)
{
	struct statq *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	q->stats = stats;
	q->items = malloc(sizeof(*q->items) * BATCH * NBATCH);
	if (!q->items || pthread_mutex_init(&q->lock, NULL) != 0) {
		free(q->items);
		free(q);
		return NULL;
	}
	if (pthread_cond_init(&q->cond, NULL) != 0) {
		pthread_mutex_destroy(&q->lock);
		free(q->items);
		free(q);
		return NULL;
	}
	q->threaded = pthread_create(&q->thread, NULL, run, q) == 0;
	return q;
}

/* Hand the batch at head (fill events) to the thread. */
static void publish(struct statq *q)
{
	if (q->fill < BATCH)
		q->items[(q->head % NBATCH) * BATCH + q->fill].path = NULL;
	pthread_mutex_lock(&q->lock);
	q->head++;
	pthread_cond_broadcast(&q->cond);
	/* room for the next batch */
	while (q->head - q->tail >= NBATCH)
		pthread_cond_wait(&q->cond, &q->lock);
	pthread_mutex_unlock(&q->lock);
	q->fill = 0;
}

void statq_add(struct statq *q, const struct picl_record *rec, const char *path)
{
	struct item *it, one;

	it = q->threaded ? &q->items[(q->head % NBATCH) * BATCH + q->fill] : &one;
	if (!picl_stats_event_of(rec, &it->ev))
		return;
	it->path = path;
	if (!q->threaded)
		take(q, it);
	else if (++q->fill == BATCH)
		publish(q);
}

int statq_drain(struct statq *q, uint64_t *refused, const struct picl_error **errs)
{
	if (q->threaded) {
		if (q->fill > 0)
			publish(q);
		pthread_mutex_lock(&q->lock);
		while (q->tail != q->head)
			pthread_cond_wait(&q->cond, &q->lock);
		pthread_mutex_unlock(&q->lock);
	}
	*refused = q->refused;
	*errs = q->errs;
	return q->nomem ? PICL_ERR_NOMEM : PICL_OK;
}

void statq_free(struct statq *q)
{
	if (!q)
		return;
	if (q->threaded) {
		pthread_mutex_lock(&q->lock);
		q->stop = 1;
		pthread_cond_broadcast(&q->cond);
		pthread_mutex_unlock(&q->lock);
		pthread_join(q->thread, NULL);
	}
	pthread_cond_destroy(&q->cond);
	pthread_mutex_destroy(&q->lock);
	free(q->items);
	free(q);
}
