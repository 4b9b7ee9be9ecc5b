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

#pragma GCC visibility pop

#endif /* PICL_RT_API_H */
