/*
 * lttng-tp.h - the LTTng-UST tracepoint provider of bench/event-cost.c:
 * one event, picl_bench:ev, carrying 3 ints (the block type, location and
 * parameter of a traceblockbegin/end). Compiled into event-cost-lttng by
 * bench/lttng-tp.c (TRACEPOINT_DEFINE + TRACEPOINT_CREATE_PROBES).
 */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER picl_bench

#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./lttng-tp.h"

#if !defined(PICL_BENCH_LTTNG_TP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define PICL_BENCH_LTTNG_TP_H

#include <lttng/tracepoint.h>

TRACEPOINT_EVENT(
	picl_bench,
	ev,
	TP_ARGS(int, type, int, location, int, parameter),
	TP_FIELDS(
		ctf_integer(int, type, type)
		ctf_integer(int, location, location)
		ctf_integer(int, parameter, parameter)
	)
)

#endif /* PICL_BENCH_LTTNG_TP_H */

#include <lttng/tracepoint-event.h>
