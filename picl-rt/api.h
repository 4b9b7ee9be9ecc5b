/*
 * api.h - what the communication layer (api.c) tells the rest of libpicl
 * (trace.c, collective.c) besides picl.h. Not installed. In the unit tests of the
 * tracing layer, t/unit/stub-backend.c stands in for it.
 */
#ifndef PICL_RT_API_H
#define PICL_RT_API_H

/* libpicl's own: not exported from the shared libraries (only picl.h is) */
#pragma GCC visibility push(hidden)

/*
 * This process's id: open0's once it has been called (also after close0);
 * before that, what the launcher says (the backend's id_hint: piclrun's
 * PICL_RANK, MPI's rank), so that records written and errors reported
 * before open0 name the right process; -1 when that is not known yet.
 */
int picl_api_id(void);

/* who0 and recvinfo0 for libpicl's own use (the collectives): the same
 * values, not counted in the statistics (-13, -14), which are the
 * program's calls. */
void picl_api_who(int *numproc, int *me, int *host);
void picl_api_recvinfo(int *bytes, int *type, int *node);
/* Put back what recvinfo0 reports (a collective restores the program's
 * last message when it is done with its own). */
void picl_api_set_recvinfo(int bytes, int type, int node);

/* The trace lost records (trace.c said why): the backend tells the
 * launcher (piclrun then fails the run). */
void picl_api_trace_lost(void);

/* Stop the run with "call: called before open0" (or "after close0") unless
 * open0 was called and close0 not yet: for the collectives, so that the
 * error names the call the program made. */
void picl_api_need_open(const char *call);

/* Stop the run for a bad call of the program, as send0 does for a bad
 * argument: "picl: process N: call: what (value)" on stderr (without
 * " (value)" when value is LONG_MIN), the open
 * entries closed, a tracemsg saying why, traceexit, and the backend's
 * abort (the others fail in their turn instead of waiting for ever). For
 * the collectives. */
__attribute__((noreturn)) void picl_api_fatal(const char *call,
					      const char *what, long value);

/*
 * The program's call that the PICL calls made from here on serve (the
 * collectives' send0, recv0 and wait0; the clocksync0 of tracenode(...,
 * 1)): an error in them names it, the call the program made ("picl:
 * process 1: bcast0: ..." rather than "recv0: ..."). Returns the call
 * served before, to be given back when done (NULL: none); while one is
 * served, another is not taken (the outermost is the program's).
 */
const char *picl_api_serve(const char *call);

/* With check0 on, stop the run (as send0 does) if type is one of PICL's
 * reserved message types: for the collectives' own type argument. */
void picl_api_check_type(const char *call, int type);

/*
 * The type a collective's message of type t (0 <= t < INT_MAX) travels
 * with: -2 - t, a type no receive of the program can take (it asks for a
 * type >= 0 or -1, any user type: never a negative one), so that a
 * collective's messages and the program's point-to-point messages of the
 * same type never take each other's place. Inside a collective
 * (pt_collective_depth) api.c accepts these types, and traces them as
 * they travel (at PICL level 3), so that a trace's sends and receives
 * still match by type.
 */
static inline int picl_coll_wire_type(int t)
{
	return -2 - t;
}

#pragma GCC visibility pop

#endif /* PICL_RT_API_H */
