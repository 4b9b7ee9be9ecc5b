/*
 * picl.h - the PICL API: the Portable Instrumented Communication Library's
 * calls, with their historical names and arguments, as programs written for
 * PICL (1990-1992) call them. Link with -lpicl (local processes started by
 * piclrun) or -lpicl-mpi (under mpirun); `picl-cc` or
 * `pkg-config --cflags --libs picl` does it for you.
 *
 * Every call that the format report (ORNL/TM-12125, Tables 4-13) gives an
 * event type is traced when tracing is on: records go into a binary buffer
 * per process (nothing is formatted on the hot path) and are written as a
 * new-format PICL trace when the buffer is flushed (traceflush, a full
 * buffer with flush on, traceexit, close0).
 *
 * Conventions: processes are numbered 0..numproc-1; the host, when there is
 * one, is processor 32767 (PICL_HOST). A destination of -1 sends to every
 * other node. A receive type of -1 takes any type. Message types
 * 900000000-1073741823 and >= 2000000000 are reserved for PICL itself.
 * Arguments are int unless shown; message buffers are void *, so that
 * any object pointer converts without a cast (PICL declared them char *,
 * which an int * or double * converts to only with a warning in C, an
 * error from GCC 14 on and in C++; a char * still converts), and const
 * void * where the call only reads them (send0, sendbegin0, tracedata's
 * data), so that a pointer to const data needs no cast either; strings
 * and arrays a call only reads are const char * and const int * (a string
 * literal in C++).
 *
 * Calls marked (2.0) exist only in the 1992 format report; their arguments
 * were chosen here and are documented with each call and in picl(3).
 */
#ifndef PICL_H
#define PICL_H

#ifdef __cplusplus
extern "C" {
#endif

#define PICL_HOST 32767

/* Data types of the global operations (gsum0 ...). */
#define PICL_CHAR   0
#define PICL_SHORT  1
#define PICL_INT    2
#define PICL_LONG   3
#define PICL_FLOAT  4
#define PICL_DOUBLE 5

/* ---- Communication ---------------------------------------------------- */

/* Enable communication: number of node processes, my id, the host's id
 * (PICL_HOST, or -1 in a hostless run). Traced as -11 on a node; on the
 * host as -501 (allocating the nodes: requested, allocated number). Once
 * per process: a second open0 is an error. */
void open0(int *numproc, int *me, int *host);
/* Disable communication, then traceexit(). A -12 mark on a node; on the
 * host a -502 entry and exit (releasing the nodes). Once, after open0:
 * before it or a second time, an error. */
void close0(int release);
/* The same three values as open0, later. Not traced (-13). */
void who0(int *numproc, int *me, int *host);
/* 1 if a host program started this node program, else 0. */
int host0(void);
/* Wall-clock time in seconds; normalised to processor 0 after clocksync0
 * or tracenode(..., sync = 1). */
double clock0(void);
/* Align every process's clock with processor 0's, then a barrier. -401. */
void clocksync0(void);

/* Blocking send of `bytes` bytes; returns when buf may be reused.
 * node -1: to every other node. -21 entry (length, type, node) and exit. */
void send0(const void *buf, int bytes, int type, int node);
/* Blocking receive of a message of `type` (-1: any) into buf (at most
 * `bytes` bytes; a longer message is an error). -51 if the message was
 * already there, -52 if the call had to wait. */
void recv0(void *buf, int bytes, int type);
/* Length, type and source of the last message received or probed. */
void recvinfo0(int *bytes, int *type, int *node);
/* 1 if a message of `type` (-1: any) is waiting, else 0. Not traced as
 * records (-53/-54), only counted in the statistics. */
int probe0(int type);

/* Non-blocking send: the request id is the message type. -27. */
void sendbegin0(const void *buf, int bytes, int type, int node);
/* Wait until the oldest send begun with `type` is complete: sendbegin0
 * sends at once, so it always is already. -30. A type with no send begun
 * (or whose send was ended already) is an error. */
void sendend0(int type);
/* Non-blocking receive into buf. -57. One not ended (recvend0,
 * recvstatus0) by close0 is said there. */
void recvbegin0(void *buf, int bytes, int type);
/* Wait until the receive of `type` is complete. -60 or -61. */
void recvend0(int type);
/* (2.0) 1 if the oldest send begun with `type` is complete: always
 * (sendbegin0 sends at once); the request is finished. -28. A type with no
 * send begun is an error, as for sendend0. */
int sendstatus0(int type);
/* (2.0) 1 if the receive of `type` is complete (-58), else 0 (-59). */
int recvstatus0(int type);
/* (2.0) Wait until a message of `type` (-1: any) is available, without
 * receiving it. -55 (it was there) or -56 (waited). */
void wait0(int type);
/* Barrier of all nodes. -402. */
void sync0(void);
/* (2.0) Host only: start node program `file` on `node` (-1: all nodes).
 * -503 entry (the name) and exit (processor, process id). Any other node
 * outside 0..numproc-1 is an error, also after check0(0). */
void load0(const char *file, int node);
/* Argument checking off (0) or on (1, the default): reserved message
 * types. Lengths, destinations and negative message types (the
 * collectives' own; below -1 for a receive) are always checked. */
void check0(int checking);
/* Print a line on standard error (through the host, if any), prefixed with
 * the process id. */
void message0(const char *text);

/* Topology used by the collectives: top 1 hypercube, 2 full, 3 uni-ring,
 * 4 bi-ring; ord 0 natural, 1 Gray code; dir +1/-1. setarc0 writes back
 * the values used: ord 0 for a Gray code on a number of nodes that is not
 * a power of two (getarc0 then says 0 too). */
void setarc0(int *nprocs, int *top, int *ord, int *dir);
void getarc0(int *nprocs, int *top, int *ord, int *dir);

/* Collectives (traced as user-visible blocks, as PICL did with its block
 * types -1 barrier, -2 bcast0, -3 bcast1, -4 global operation, -5 gather,
 * recorded as user events 900000001 ... 900000005). `root` is the node
 * that has (bcast) or gets (g*) the data. Every node passes the same
 * root, size (bytes, items and datatype, n) and type: a size that differs
 * between the nodes (a shorter broadcast too), like a bad argument, stops
 * the run as a bad send0 does. */
void bcast0(void *buf, int bytes, int type, int root);
void bcast1(void *buf, int bytes, int type, int root);   /* pipelined */
void gsum0(void *buf, int items, int datatype, int msgtype, int root);
void gprod0(void *buf, int items, int datatype, int msgtype, int root);
void gmax0(void *buf, int items, int datatype, int msgtype, int root);
void gmin0(void *buf, int items, int datatype, int msgtype, int root);
void gand0(void *buf, int items, int datatype, int msgtype, int root);
void gor0(void *buf, int items, int datatype, int msgtype, int root);
void gxor0(void *buf, int items, int datatype, int msgtype, int root);
/* comb(a, b) combines b into a, element-wise over `items` items. */
void gcomb0(void *buf, int items, int datatype, int msgtype, int root,
	    void (*comb)(void *a, void *b, int items, int datatype));
/* Node i contributes vec[i*n .. i*n+n); root gets all of vec. */
void gather0(float *vec, int n, int type, int root);
/* Return once every node has called barrier0 (traced as block -1). */
void barrier0(void);

/* ---- Tracing ---------------------------------------------------------- */

/* Start tracing with a buffer of `tracesize` bytes (at least 64 records,
 * 4608 bytes, and 64 KiB for tracedata's data: a smaller size, 0 or a
 * negative one, gives those; a negative one is said on stderr). flush 1:
 * when the buffer fills, write it out and go on; 0: stop detailed tracing
 * (-913), or -1: overwrite the oldest records (-914). sync 1: clocksync0
 * first. -901 entry. */
void tracenode(int tracesize, int flush, int sync);
/* (2.0) The same on the host. */
void tracehost(int tracesize, int flush);
/* Tracing levels (-904 mark), each 0 (none) or more. picl: PICL's own
 * events (communication, synchronisation, open0/close0) at 1 and 2, and
 * at 3 also the messages inside the collectives. user: user blocks, marks
 * and tracedata records, and the collectives' blocks, at 1 and more.
 * trace: the tracing events -902 ... -914 at 1 and more (the -901 entry and
 * exit, and tracemsg's -7 messages, are always recorded). The default
 * is 1 1 1. */
void tracelevel(int picl, int user, int trace);
/* (2.0) Profile statistics for user events 0..n-1 (-902 entry with n);
 * the other four arguments turn time, count, volume and relative
 * statistics on (1) or off (0). */
void traceevents(int n, int time, int count, int volume, int relative);
/* Where to spill (tempfile, unused here) and where to save this process's
 * trace (permfile; "" keeps the default). -903. */
void tracefiles(const char *tempfile, const char *permfile, int verbose);
/* Buffer space left (bytes) and the current levels. */
void traceinfo(int *remaining, int *picl, int *user, int *trace);
/* User event `type` (>= 0) begins / ends: -3 / -4 records with the data
 * (location, parameter). User event types (and tracedata's record types)
 * are >= 0 (the format report's Tables 3-4); a negative one, PICL's own,
 * is refused by every call that takes one: not recorded, and said once per
 * call on stderr. So is an event type in 900000000-1073741823, where the
 * collectives' blocks are recorded. */
void traceblockbegin(int type, int location, int parameter);
void traceblockend(int type, int location, int parameter);
/* (2.0) A user-defined record (record type `location`, event `type`) with
 * `count` values of `datatype` ("char", "short", "int", "long", "float",
 * "double"). Table 20: tracedata(0, 0, "double", 1, &x) gives
 * "0 0 t p 0 1 5 x". An unknown datatype, a negative count or a NULL
 * data with count > 0 is refused (not recorded; said once on stderr).
 * Data larger than tracenode's data area are kept whole, alone in it; a
 * record longer than 1 MiB of text is cut, said on stderr (picl(3)). */
void tracedata(int type, int location, const char *datatype, int count,
	       const void *data);
/* A mark (-2) of user event `type`; several at once. */
void tracemark(int type);
void tracemarks(const int *types, int size);
/* A message record (-7), written to the trace file at once so it survives
 * a crash; at every trace level, inside a -911 entry and exit (counted) at
 * a trace level of 1 or more. */
void tracemsg(const char *text);
/* Write the buffer now (-912). */
void traceflush(void);
/* Stop tracing: -901 exit, the statistics records (-101/-102/-103), and
 * the final flush. close0 calls it. Tracing may start again (tracenode);
 * statistics are cumulative for the process: each traceexit's cover every
 * session so far. */
void traceexit(void);

#ifdef __cplusplus
}
#endif

#endif /* PICL_H */
