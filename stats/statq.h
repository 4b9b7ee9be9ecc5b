/*
 * statq.h - libpicl-trace's statistics accumulator on a thread of its own.
 *
 * stat and plot read a trace on every core (PICL_READ_PARALLEL), but
 * everything done with a record once it is read happens on the reading
 * thread: the profile, the message matcher and the statistics
 * accumulator. That thread is the bottleneck (the parsing workers wait
 * for it), and the accumulator, whose cells are a hash-table probe per
 * open window of every entry, exit and mark, is a third of its work.
 * A statq takes that third to a thread of its own: the reading thread
 * reduces each event record to a struct picl_stats_event and queues it;
 * the statq's thread feeds the events, in order, to picl_stats_add_event.
 * The statistics come out the same, and so do the errors: the refused
 * records are counted and the first few kept, to be reported, in order,
 * when the reading thread drains the queue (statq_drain) before it says
 * anything else or looks at the accumulator.
 *
 * Without a thread (pthread_create failed) a statq feeds each event at
 * once, on the caller's thread: the same results, slower.
 */
#ifndef PICL_STATQ_H
#define PICL_STATQ_H

#include "picl-trace.h"

#include <stdint.h>

/* Refusals kept to be reported (the rest are counted). */
#define STATQ_KEEP 5

struct statq;

/* A queue feeding `stats` (which the caller keeps and frees after the
 * statq), or NULL when out of memory. */
struct statq *statq_new(struct picl_stats *stats);

/* Queue one record of the input named `path` (not NULL; a string that
 * must outlive the statq: it goes into the errors); other than event
 * records are left out. Running out of memory is said by statq_drain. */
void statq_add(struct statq *q, const struct picl_record *rec, const char *path);

/*
 * Wait until every queued event has been taken in. Then the accumulator
 * is the caller's until the next statq_add. Returns PICL_OK, or
 * PICL_ERR_NOMEM if the accumulator ran out of memory (it took nothing
 * after that). *refused is the number of records refused since the statq
 * was made; the first STATQ_KEEP of them are (*errs)[0 .. min(*refused,
 * STATQ_KEEP)), in input order, each with its path and mark (a caller
 * that drains more than once reports those past the ones it reported).
 */
int statq_drain(struct statq *q, uint64_t *refused, const struct picl_error **errs);

/* Stop the thread and free (NULL is fine); events queued since the last
 * drain are dropped. */
void statq_free(struct statq *q);

#endif
