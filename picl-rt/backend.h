/*
 * backend.h - how libpicl's machine-independent layer (api.c: the PICL calls,
 * message matching by type, tracing) talks to a transport. Not installed.
 *
 * As in PICL itself, a thin machine-dependent layer maps to the native
 * transport: `local` (processes on one machine, started by piclrun, over
 * shared memory) in libpicl, `mpi` (Open MPI / MPICH) in libpicl-mpi. Both
 * pass the same test suite. A backend moves whole messages between
 * processes, in order per (source, destination); everything else (receive
 * by type, any-type, probes, non-blocking calls, collectives, tracing) is
 * done above it, once, for both.
 *
 * Thread safety: none needed; a PICL process is single-threaded.
 */
#ifndef PICL_BACKEND_H
#define PICL_BACKEND_H

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>

/* libpicl's own: not exported from the shared libraries (only picl.h is) */
#pragma GCC visibility push(hidden)

struct picl_backend {
	const char *name;

	/*
	 * Join the run: *nprocs node processes, *me this one's id (0..nprocs-1,
	 * or PICL_HOST for the host program), *host the host's id (PICL_HOST)
	 * or -1 in a hostless run. Returns 0, or -1 with a message on stderr.
	 */
	int (*init)(int *nprocs, int *me, int *host);

	/*
	 * Before init(): the id init() will give this process, as far as the
	 * launcher's environment tells (tracing may write records, and a
	 * call may fail, before open0), or -1 when it cannot be known yet.
	 * Cheap, no side effects; may be called at any time.
	 */
	int (*id_hint)(void);

	/* Leave the run (after the last message). */
	void (*finalize)(void);

	/*
	 * Send len bytes to process dst (0..nprocs-1 or PICL_HOST) with message
	 * type `type`; returns once buf may be reused. While it waits for room
	 * it must keep accepting incoming messages (so two processes sending to
	 * each other cannot deadlock). 0, or -1 (the peer is gone).
	 */
	int (*send)(const void *buf, size_t len, int type, int dst);

	/*
	 * The next incoming message, if any, without waiting: returns 1 and sets
	 * *src, *type, *len and *payload (owned by the backend, valid until
	 * release() or the next poll/send), or 0 when nothing has arrived.
	 * Messages from one source come in the order they were sent.
	 * Returns -1 when every peer is gone and nothing can arrive any more.
	 */
	int (*poll)(int *src, int *type, size_t *len, const void **payload);

	/* Done with the payload poll() returned. */
	void (*release)(void);

	/*
	 * Receive the next message of type `type` (-1: any type outside PICL's
	 * reserved range, see picl_backend_wants) straight into the caller's
	 * buffer buf of cap bytes, so that a message is copied once on the way
	 * in instead of into the backend's buffer and again. Each message met
	 * before it that does not match is handed to other(), in the order
	 * poll() would have returned them (the caller queues it or completes a
	 * posted receive with it; the payload is valid during the call only).
	 * block = 0: only a message that has wholly arrived counts, returns 0
	 * when there is none; block = 1: waits for one (as wait() would).
	 * Returns 1 with *src, *mtype and *len set; 2 when the matching message
	 * is longer than cap (*src, *mtype, *len set, nothing written to buf:
	 * the caller fails); -1 when every peer is gone and nothing can arrive any
	 * more; -2, when block = 0 only, when the backend cannot (the caller
	 * uses poll() instead).
	 * May be NULL.
	 */
	int (*recv_into)(void *buf, size_t cap, int type, int block, int *src,
			 int *mtype, size_t *len,
			 void (*other)(int src, int type, const void *payload,
				       size_t len));

	/*
	 * Wait until something may have arrived (or a short time passed): lets
	 * a backend sleep or spin politely instead of the caller busy-polling.
	 */
	void (*wait)(void);

	/* Raw clock, seconds (CLOCK_MONOTONIC or the transport's own). */
	double (*clock)(void);

	/* Node process `node` died or the run must stop: end everything.
	 * code is the exit status, with PICL_ABORT_PEER or'ed in when the
	 * failure follows another process's (it ended, or the run stopped). */
	void (*abort)(int code);

	/*
	 * The process's trace lost records (a trace file could not be opened
	 * or written; trace.c has said so): tell the launcher, so that the
	 * run does not pass for a good one. May be called before init() and
	 * after finalize(). May be NULL.
	 */
	void (*trace_lost)(void);

	/*
	 * Why send, poll and recv_into fail although the peers may still be
	 * there: the launcher stopped the run, or this process caught a stop
	 * signal (the backend notes it and fails its next call), as a line's
	 * end ("interrupted by SIGINT"); NULL when neither. May be NULL.
	 */
	const char *(*stopped)(void);
	/*
	 * Why a receive fails when poll or recv_into says every peer is gone
	 * (and stopped() says nothing): what can end a run of this backend's,
	 * in the launcher's terms ("no message can arrive any more (a process
	 * ended or died, or piclrun stopped the run)"). NULL: those words
	 * without the reasons.
	 */
	const char *no_more;
	/*
	 * Before init(): is sa, found installed for a fatal signal, the
	 * transport's own handler (the program initialized the transport
	 * itself before open0)? api.c then puts its crash handler in front
	 * of it, as it does in front of one that init() installs, instead of
	 * leaving it alone as a program's handler. May be NULL.
	 */
	int (*own_handler)(const struct sigaction *sa);
};

#define PICL_ABORT_PEER 0x100

/* PICL's reserved message types (the internal protocol of api.c). */
#define PICL_TYPE_RESERVED_LO 900000000
#define PICL_TYPE_RESERVED_HI 1073741823

/* Does a receive of type `want` (-1: any user type) take type `type`?
 * Any type is never a reserved one, nor a negative one: the collectives'
 * messages travel with negative types (api.h's picl_coll_wire_type). */
static inline int picl_backend_wants(int want, int type)
{
	if (want == -1)
		return type >= 0 && !(type >= PICL_TYPE_RESERVED_LO &&
				      type <= PICL_TYPE_RESERVED_HI);
	return want == type;
}

/*
 * The emergency write (api.c), for a signal handler that is about to let
 * its process die: writes this process's trace part as a PICL error's way
 * out does (buffer, open entries closed, a -7 record saying why, the -901
 * exit, statistics) from a child made with _Fork, and waits for it (a few
 * seconds at most). The -7 record says "killed by SIG<sig>" (how
 * PICL_DEATH_KILLED), "stopped by SIG<sig>" (PICL_DEATH_STOPPED, first 0),
 * "stopped by a second SIG<sig>" (first == sig) or "stopped by SIG<sig>
 * after SIG<first>". Async-signal-safe in the caller. Returns 1 when it
 * wrote (or tried), 0 when a way out is writing the part already (a PICL
 * error, traceexit, close0: the caller had better let it finish), -1
 * when there is nothing to write (not tracing, or built without _Fork).
 */
enum picl_death { PICL_DEATH_KILLED, PICL_DEATH_STOPPED };
int picl_api_emergency(int sig, enum picl_death how, int first);

/*
 * For a backend's init(): installs on_stop for SIGINT, SIGTERM and SIGHUP
 * where their disposition is still the default (a program's handler, or a
 * signal ignored as under nohup, is left alone); SA_RESTART, and each of
 * the three blocked while on_stop runs (a second signal of another kind
 * waits for the first's handler).
 */
void picl_api_catch_stop_signals(void (*on_stop)(int));

/* The backend linked into this library (libpicl: local; libpicl-mpi: mpi). */
extern const struct picl_backend picl_backend_impl;

/* An environment variable holding a whole number that fits an int, into
 * *v: 0, or -1 (unset, empty, not a number, out of range) with *v as it
 * was. For what launchers and piclrun tell the backends. */
static inline int picl_env_int(const char *name, int *v)
{
	const char *s = getenv(name);
	char *end;
	long x;

	if (!s || !*s)
		return -1;
	errno = 0;
	x = strtol(s, &end, 10);
	if (*end || errno || x < INT_MIN || x > INT_MAX)
		return -1;
	*v = (int)x;
	return 0;
}

#pragma GCC visibility pop

#endif /* PICL_BACKEND_H */
