/*
 * mpi.c - libpicl-mpi's transport: PICL processes are the ranks of an MPI
 * job (Open MPI or MPICH), started with mpirun. It implements backend.h's
 * struct picl_backend; message matching by type, probes, non-blocking calls,
 * collectives and tracing are done above it, in api.c and friends.
 *
 * How it works:
 *
 * - A private communicator. init() calls MPI_Init (unless the program did)
 *   and duplicates MPI_COMM_WORLD, so a program that also speaks MPI itself
 *   never sees our messages. Errors on it return instead of aborting, so a
 *   failed send becomes send()'s -1. init() then refuses a run that would
 *   go wrong quietly: one piclrun started (PICL_SHM) as more processes
 *   than MPI sees, each an MPI job of one, and one whose ranks read the
 *   shared PICL_MPI_* settings differently (settings_agree: mpirun -x
 *   missing on another machine).
 *
 * - The PICL message type travels as the MPI tag, so the fast path copies
 *   nothing on the way out and sends from the caller's buffer. Types that do
 *   not fit (negative ones, or >= MPI_TAG_UB: the standard only promises
 *   32767, and other MPIs' bounds may be below PICL's reserved types
 *   900000000 ...) are
 *   sent with tag MPI_TAG_UB and an 8-byte header holding the type in front
 *   of the payload: small ones packed into one buffer, large ones described
 *   by a struct datatype over the header and the caller's buffer, so even
 *   they are not copied. On Open MPI (MPI_TAG_UB = 2^31-1) every PICL type
 *   below 2^30 - 1 takes the fast path: the tags from 2^30 up carry the
 *   messages over 4 KiB (see SPLIT_OFF). (PICL_MPI_TAG_UB=N lowers the
 *   bound, so tests can send escaped messages under Open MPI too.)
 *
 * - Receiving: poll() takes the first message from any source with a
 *   matched probe (MPI_Improbe, then MPI_Mrecv of exactly that message, so
 *   nothing can slip between the probe and the receive) into one buffer
 *   owned by the backend that grows as needed and is reused; the layer above
 *   copies it once into the user's buffer. A probe with MPI_ANY_TAG returns
 *   each source's messages in the order they were sent (MPI's non-overtaking
 *   rule), which is the order backend.h promises. recv_into() (recv0's
 *   path) probes the same way but receives a message of the type asked for
 *   that fits with MPI_Mrecv straight into the caller's buffer: no copy of
 *   ours, and a large message goes by MPI's single copy. When it has to
 *   wait, it posts a receive for the type (see SPLIT_OFF: large messages
 *   have tags of their own, so that the posted receive can never be
 *   truncated) and lets MPI put the message where it belongs as it comes.
 *
 * - Sending never deadlocks: send() (beyond SEND_NOW's small messages,
 *   which MPI_Send buffers) posts MPI_Isend and, until MPI_Test says
 *   the buffer may be reused, receives whatever arrives into a queue owned
 *   by the backend, which poll() serves before asking MPI again. Two ranks
 *   sending each other megabytes thus each receive the other's message while
 *   their own is in flight. A small message usually completes at once (MPI's
 *   eager protocol), so the queue is touched only when it is needed.
 *
 * - Waiting: wait() spins on MPI_Improbe as MPI's own blocking calls spin
 *   (a message it finds is kept, matched, for the next poll()); only when
 *   this machine runs more ranks than it has processors does it yield the
 *   processor after a few probes, and after tens of milliseconds without a
 *   message it sleeps 20 us at a time.
 *
 * - Hosts: an MPI run is hostless (*host = -1), unless PICL_MPI_HOST=1 is
 *   set: then the last rank is the host (processor PICL_HOST) and the others
 *   are nodes 0..size-2 (mpirun -np N ./node : -np 1 ./host).
 *
 * - Clock: CLOCK_MONOTONIC, so that tracing may start (tracenode) before
 *   open0 calls init(); clocksync0 aligns the machines' clocks above this
 *   layer.
 *
 * - The trace: each rank writes its own part (trace.c's PICL_TRACE_PART,
 *   "picltrace.<rank>.picl" by default); `picltrace merge --unsorted` joins
 *   the parts into one trace.
 *
 * - Stopping the run (abort(): a PICL error, a failing exit): MPI_Abort
 *   kills every rank at once, with whatever its trace buffer held. So the
 *   failing rank first tells the others, on a second private communicator
 *   (ctl, STOP_TAG), and waits up to STOP_GRACE seconds for each to answer
 *   (DONE_TAG) before MPI_Abort. A rank waiting in a PICL call looks for
 *   the news while it waits (check_stop: where it would yield or sleep
 *   anyway, off the fast paths), and then fails as the local backend's
 *   ranks do when a peer dies: poll(), recv_into() and send() return -1,
 *   the layer above writes its part and calls abort(PICL_ABORT_PEER),
 *   which answers and waits for the end.
 *
 * - Leaving without close0 (status 0): the rank says so (EXIT_TAG) and
 *   waits until every other rank has left too (EXIT_TAG, or CLOSED_TAG:
 *   the host, which close0's barrier does not hold, leaving by close0);
 *   then it finalizes, says on stderr that it exited without close0 and
 *   exits with status 1 (a failure, as under piclrun). One that waits in a PICL call meanwhile fails, as
 *   under piclrun when a peer exits without close0 (it could wait for
 *   ever: close0's barrier, for one, needs the rank that left), and
 *   answers (DONE_TAG): the run has failed, and the leaving rank stops it.
 *   MPI_Finalize at once would have waited for the others, who waited for
 *   it.
 *
 * - A trace that lost records (backend.h's trace_lost): the rank exits with
 *   status 1 instead of 0 (lost_at_exit), so that mpirun fails the run as
 *   piclrun does.
 *
 * - Deadlock (every rank waits for a message and none is on its way):
 *   found by the ranks themselves, on a third private communicator, and
 *   every wait fails with "deadlock" (see DL_AFTER).
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "backend.h"
#include "env.h"
#include "picl.h"
#include "trace.h"

/* What this library's own messages start with. */
#define PROG "libpicl-mpi"

/* Escaped messages carry this header in front of their payload. */
struct escape_header {
	int32_t type;
	int32_t pad;
};
#define HEADER_SIZE ((int)sizeof(struct escape_header))

/* Escaped messages up to this size are packed (one small copy); larger ones
 * go out through a struct datatype (no copy, but a type to build). */
#define PACK_LIMIT 16384

/*
 * wait()'s probes per call: few, then sched_yield, when this machine runs
 * more ranks than it has processors (the rank we wait for may need ours);
 * many and no yield when every rank has a processor of its own, where
 * giving it away only adds latency (a yield on a busy machine costs a time
 * slice). After IDLE_BUDGET probes in a row without a message (tens of
 * milliseconds), wait() sleeps 20 us per call instead of spinning.
 */
#define SPIN_SHARED 32
#define SPIN_OWN 2048
#define IDLE_BUDGET 640000u

/*
 * Sends of a message whose type is its tag and of at most this many bytes
 * (PICL_MPI_SEND_NOW overrides; 0: none) use MPI_Send: Open MPI sends such
 * a message inline, without the request MPI_Isend needs (1 KiB ping-pong:
 * 0.72 us against 0.80). A message this small goes by MPI's eager protocol
 * (Open MPI's shared memory: up to 4 KiB), which buffers it: MPI_Send
 * returns without waiting for the receiver, and while it waits for a free
 * buffer MPI's progress still takes in what peers send us, so the
 * no-deadlock promise below still holds.
 */
#define SEND_NOW 1024

/*
 * Large messages (when the tag range reaches 2^31 - 1, as Open MPI's does;
 * PICL_MPI_SPLIT=0 turns this off): a message of type T < SPLIT_OFF - 1
 * longer than SMALL bytes goes with tag T + SPLIT_OFF, by a synchronous
 * send (MPI_Issend: it completes only once the receiver has matched it,
 * which a message that large waits for anyway: rendezvous). Every message
 * with tag T is thus at most SMALL bytes, so recv0 may wait with a receive
 * of SMALL bytes posted for tag T (MPI_Recv's way, the fastest) without
 * any risk of truncation (for which Open MPI 4.1 writes past the buffer);
 * and a source's messages of type T keep their order: the sender cannot
 * send a small one before the receiver has matched the large one before
 * it. Types from SPLIT_OFF - 1 up are escaped (see fits_tag).
 */
#define SMALL 4096

/* Stopping the run (see the top): the control communicator's tags, how
 * long the failing rank waits for the others' answers, and how long one
 * that answered waits for MPI_Abort before it calls it itself. */
#define STOP_TAG 1
#define DONE_TAG 2
#define EXIT_TAG 3
#define CLOSED_TAG 4
#define STOP_GRACE 5.0
#define STOP_WAIT 60.0

/* recv_posted() looks for other messages (and large ones) every this many
 * tests of its receive. */
#define PROBE_EVERY 4
#define SPLIT_OFF (1 << 30)

/*
 * Deadlock: what piclrun reads off its segment (piclrun.c, deadlocked()),
 * found here by the ranks, on a communicator of its own (dlc), with rank
 * 0 deciding. Each rank counts the messages it has sent on comm and those
 * it has taken from it (nsent, nrecv; a message counts for its receiver
 * once MPI has handed it over). A receive wait during which neither count
 * moves is one episode (leaving a wait takes a message, which moves
 * nrecv). After DL_AFTER seconds of an episode a rank REPORTs its counts
 * to rank 0, once. Rank 0, itself that long in a wait, with a report from
 * every rank and as many messages taken as sent in all, ASKs every rank
 * for its counts; each ANSWERs from its next wait. If every answer is its
 * report (and rank 0's own counts have not moved), every rank was waiting
 * from before the ask to after it with nothing sent or taken, and at the
 * ask no message was on its way: none can ever arrive. Rank 0 then tells
 * each (FOUND), and every wait fails ("deadlock: ..."), which stops the
 * run as any failure does. A stale report (its rank has taken a message
 * since) shows in its answer, and is forgotten until the next. A rank that
 * computes, waits to send or has not opened neither reports nor answers:
 * no deadlock. The host after close0 waits for the nodes to leave (see
 * host_wait_nodes), and reports and answers from there. Messages left on dlc
 * (a report that rank 0 never read) are taken at finalize. With
 * PICL_MPI_DEADLOCK=report, rank 0 only says so, once, and the ranks go
 * on waiting (for a debugger to be attached, or mpirun's --timeout), as
 * piclrun --deadlock=report.
 */
#define DL_AFTER 1.0            /* seconds of a wait before its report */
#define DL_REASK 0.5            /* rank 0 asks again after this long, */
#define DL_REASK_MAX 64.0       /* doubled each time no answer came */
enum { DL_REPORT = 1, DL_ASK, DL_ANSWER, DL_FOUND };

/* rank 0's view of rank i: its last report and its answer to an ask */
struct dl_rank {
	int64_t s, r, reported;
	int64_t as, ar, ask;            /* the answer, to ask number `ask` */
};

/* A message received while our own send was waiting. */
struct queued {
	struct queued *next;
	int src, type;
	size_t len;
	unsigned char data[];	/* header stripped */
};

static struct {
	MPI_Comm comm;
	MPI_Comm ctl;		/* stopping the run: STOP_TAG ... CLOSED_TAG */
	int ready;		/* comm and ctl are set up */
	int stop_from;		/* rank that stopped the run or left, or -1 */
	unsigned char *heard;	/* per rank: the last tag it sent on ctl */
	int leaving;		/* leaving without close0, status 0 */
	unsigned empty_polls;	/* poll() calls that found nothing */
	int we_initialized;	/* MPI_Finalize is ours to call */
	pid_t pid;		/* the process that did (not a fork of it) */
	int rank, size;
	int host_rank;		/* rank of the host, or -1 */
	int tag_ub;		/* largest usable tag: the escape tag */

	void *rbuf;		/* poll()'s receive buffer, reused */
	size_t rcap;

	int probed;		/* wait() found `msg` (status `st`) */
	MPI_Message msg;
	MPI_Status st;

	struct queued *head, *tail;	/* received during send() */
	struct queued *served;		/* handed out by poll(), freed later */

	void *pbuf;		/* packing buffer for small escaped sends */
	size_t pcap;

	unsigned idle;		/* wait() calls since something arrived */
	unsigned spin;		/* probes per wait() before yielding */
	size_t send_now;	/* sends up to this size: MPI_Send */
	int split;		/* split messages (SPLIT_OFF) */
	/* mpi_send's common case, worked out once in mpi_init: a node below
	 * fast_nodes is its own rank, a type below fast_types is its own tag
	 * and a message up to fast_len bytes goes by MPI_Send. */
	unsigned fast_nodes, fast_types;
	size_t fast_len;

	MPI_Comm dlc;		/* deadlock detection (see DL_AFTER) */
	int dl_on;		/* dlc is set up */
	uint64_t nsent, nrecv;	/* messages sent on comm, taken from it */
	struct {
		double since;	/* when this wait episode began */
		uint64_t s, r;	/* nsent and nrecv then */
		int on, reported;
		int64_t ask;	/* rank 0's ask to answer (0: none) */
	} ep;
	struct dl_rank *dl;	/* rank 0: per rank */
	int64_t ask;		/* rank 0: its last ask's number */
	int asking;		/* rank 0: that ask is going */
	double asked_at, reask;	/* when, and how long until the next */
	uint64_t ask_s, ask_r;	/* rank 0's own counts at the ask */
	int deadlock;		/* found: every wait fails */
	int dl_report;		/* PICL_MPI_DEADLOCK=report: only say so */
	pid_t lost_pid;		/* this process's trace lost records */
	int lost_said;		/* and it said so (say_lost) */
} mb = { .host_rank = -1, .spin = SPIN_SHARED, .stop_from = -1 };

static void mpi_problem(const char *what, int err)
{
	char text[MPI_MAX_ERROR_STRING];
	int n = 0;

	if (MPI_Error_string(err, text, &n) != MPI_SUCCESS)
		snprintf(text, sizeof text, "MPI error %d", err);
	fprintf(stderr, "libpicl-mpi: %s: %s\n", what, text);
}

/* Grow *buf to at least n bytes (n may be 0); -1 when out of memory. */
static int reserve(void **buf, size_t *cap, size_t n)
{
	void *p;
	size_t c;

	if (n <= *cap && *buf)
		return 0;
	c = *cap ? *cap : 4096;
	while (c < n)
		c = c > SIZE_MAX / 2 ? n : c * 2;
	p = realloc(*buf, c);
	if (!p)
		return -1;
	*buf = p;
	*cap = c;
	return 0;
}

static int rank_of(int node)
{
	if (node == PICL_HOST)
		return mb.host_rank;
	if (node < 0 || node >= mb.size || node == mb.host_rank)
		return -1;
	return node;
}

static int node_of(int rank)
{
	return rank == mb.host_rank ? PICL_HOST : rank;
}

static int fits_tag(int type)
{
	return type >= 0 && type < (mb.split ? SPLIT_OFF - 1 : mb.tag_ub);
}

/* Does tag carry a large message (see SPLIT_OFF)? */
static int is_large(int tag)
{
	return mb.split && tag >= SPLIT_OFF && tag != mb.tag_ub;
}

static void mpi_finalize(void);
static void mpi_abort(int code);
static int leave(void);
static __attribute__((noreturn)) void stop_run(int code);

/*
 * A program that returns from main or exits without close0 (on_exit, to
 * know the status). Its trace part is written first, as trace.c's own
 * exit handler would (which runs after this one when tracing began before
 * open0): what follows may never return. Status 0: finalize for it, or
 * mpirun would take the exit for a crash and abort the other ranks; but
 * leaving without close0 is still a failure, as under piclrun: it is
 * said, and the rank exits with status 1 once finalized (_exit: a handler
 * cannot change the status exit() was given; stdio is flushed first). Any
 * other status is a failure, and the others may be waiting for a message
 * from this rank: MPI_Finalize would wait for them for ever, so stop the
 * run as a PICL error does (MPI_Abort, with the status).
 */
static void finalize_at_exit(int status, void *arg)
{
	(void)arg;
	if (!mb.we_initialized || mb.pid != getpid())
		return;
	pt_exit_abnormal();
	if (status != 0) {
		fprintf(stderr, "libpicl-mpi: process %d exited with status %d "
			"without close0: stopping the run\n",
			node_of(mb.rank), status);
		mpi_abort(status);
	}
	if (mb.ready) {
		int left;

		mb.leaving = 1;
		left = leave();
		if (left == 0)
			fprintf(stderr, "libpicl-mpi: process %d exited without "
				"close0 while others still needed it: stopping "
				"the run\n", node_of(mb.rank));
		if (left <= 0)
			stop_run(1);
		fprintf(stderr, "libpicl-mpi: process %d exited without calling "
			"close0\n", node_of(mb.rank));
		mpi_finalize();
		fflush(NULL);
		_exit(1);
	}
	mpi_finalize();
}

/* 1 if this machine has at least one processor for each of our ranks on
 * it (MPI_COMM_TYPE_SHARED: the ranks that share its memory). Counted
 * over the machine, not this process's affinity mask: mpirun binds each
 * rank to a core of its own when there are enough of them. */
static int ranks_per_cpu_ok(void)
{
	MPI_Comm node;
	int local = 1;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (MPI_Comm_split_type(mb.comm, MPI_COMM_TYPE_SHARED, 0,
				MPI_INFO_NULL, &node) == MPI_SUCCESS) {
		MPI_Comm_size(node, &local);
		MPI_Comm_free(&node);
	}
	return cpus > 0 && local <= cpus;
}

/* A launcher's number: 0 or more (picl_env_int), else -1. */
static int env_count(const char *name, int *v)
{
	int x;

	if (picl_env_int(name, &x) < 0 || x < 0)
		return -1;
	*v = x;
	return 0;
}

/* PICL_MPI_HOST=1: the last rank is the host. Read once (the id of a
 * write before open0 asks too), so that a bad value is said once. */
static int hosted_env(void)
{
	static int hosted = -1;
	long long v = 0;

	if (hosted < 0) {
		picl_env_number(PROG, "PICL_MPI_HOST", 0, 1, NULL, &v);
		hosted = v == 1;
	}
	return hosted;
}

/*
 * Before init: this rank's PICL id, from MPI when the program initialised
 * it already, else from what the launcher put in the environment (Open
 * MPI's OMPI_COMM_WORLD_RANK and _SIZE, the PMI_RANK and PMI_SIZE of
 * MPICH's Hydra and of Slurm); -1 when neither tells (or, with
 * PICL_MPI_HOST=1, the size is not known: the last rank is the host).
 */
static int mpi_id_hint(void)
{
	int init = 0, done = 0, rank = -1, size = -1;

	MPI_Initialized(&init);
	MPI_Finalized(&done);
	if (init && !done) {
		MPI_Comm_rank(MPI_COMM_WORLD, &rank);
		MPI_Comm_size(MPI_COMM_WORLD, &size);
	} else if (env_count("OMPI_COMM_WORLD_RANK", &rank) == 0) {
		env_count("OMPI_COMM_WORLD_SIZE", &size);
	} else if (env_count("PMI_RANK", &rank) == 0) {
		env_count("PMI_SIZE", &size);
	} else {
		return -1;
	}
	if (!hosted_env())
		return rank;
	if (size < 2 || rank >= size)
		return -1;
	return rank == size - 1 ? PICL_HOST : rank;
}

/*
 * The rank's trace lacks records (trace.c said why: a trace buffer it
 * could not allocate, a trace file it could not open or write). There is
 * no launcher of ours to tell, as piclrun is told through the slot, and
 * the run would pass for a good one; so the rank says so and exits with
 * status 1 instead of 0 (lost_at_exit).
 *
 * It says so at close0 already, before MPI_Finalize (whose fence every
 * rank reaches first): the first rank to exit with status 1 makes mpirun
 * kill the others, which would not say theirs at their exit.
 */
static void say_lost(void)
{
	if (mb.lost_pid != getpid() || mb.lost_said)
		return;
	mb.lost_said = 1;
	fprintf(stderr, "libpicl-mpi: process %d could not write all of its "
		"trace\n", mb.size ? node_of(mb.rank) : mpi_id_hint());
}

/*
 * At the exit, with status 0, of a rank whose trace lost records: status
 * 1 (_exit: a handler cannot change the status exit() was given; stdio is
 * flushed first, and what trace.c's own handler would write is written
 * here, as it may come after this one). A rank still open (no close0)
 * when this runs is left to finalize_at_exit: registered at open0, before
 * this one (else it would have run first and ended the process), it runs
 * next and fails the rank itself.
 */
static void lost_at_exit(int status, void *arg)
{
	(void)arg;
	if (status != 0 || mb.lost_pid != getpid())
		return;
	if (mb.ready && mb.we_initialized)
		return;         /* finalize_at_exit, next: status 1 */
	pt_exit_abnormal();
	say_lost();
	fflush(NULL);
	_exit(1);
}

static void mpi_trace_lost(void)
{
	if (mb.lost_pid == getpid())
		return;
	mb.lost_pid = getpid();
	on_exit(lost_at_exit, NULL);
}

/*
 * The PICL_MPI_* settings that sender and receiver must share, as this
 * rank read them, must be every rank's: mpirun gives its own environment
 * to the ranks on its machine only, and to the others what -x names (a
 * host run where only some ranks know the host, or ranks that disagree on
 * the tags of large messages, would wait for ever). PICL_MPI_SEND_NOW is
 * the sender's alone. 0 if all agree; else rank 0 says which variable
 * differs on which rank, and every rank gives -1.
 */
static int settings_agree(int host, int split_off, int tag_ub)
{
	static const char *const name[3] = {
		"PICL_MPI_HOST", "PICL_MPI_SPLIT", "PICL_MPI_TAG_UB"
	};
	int mine[3] = { host, split_off, tag_ub }, *all;
	int r, k, bad = 0;

	all = malloc(sizeof mine * (size_t)mb.size);
	if (!all) {
		fprintf(stderr, "libpicl-mpi: out of memory\n");
		return -1;
	}
	if (MPI_Allgather(mine, 3, MPI_INT, all, 3, MPI_INT, mb.ctl) !=
	    MPI_SUCCESS) {
		free(all);
		fprintf(stderr, "libpicl-mpi: cannot compare the ranks' "
			"PICL_MPI_* settings (MPI_Allgather failed)\n");
		return -1;
	}
	for (r = 1; r < mb.size && !bad; r++)
		for (k = 0; k < 3 && !bad; k++)
			if (all[3 * r + k] != all[k]) {
				bad = 1;
				if (mb.rank == 0)
					fprintf(stderr, "libpicl-mpi: %s is "
						"not the same on rank %d as on "
						"rank 0 (%s): mpirun gives its "
						"environment to the ranks on "
						"its own machine only; pass it "
						"to every program (mpirun -x %s "
						"before each)\n",
						name[k], r,
						getenv(name[k]) ?
						getenv(name[k]) : "unset",
						name[k]);
			}
	free(all);
	return bad ? -1 : 0;
}

/*
 * Ctrl-C at mpirun (or SIGTERM, SIGHUP to it) kills every rank with its
 * trace in its buffer. Measured with Open MPI 4.1.4: mpirun forwards no
 * SIGINT; its daemon sends each rank's process group (a rank is a group
 * of its own) SIGCONT at once, SIGTERM a second later and SIGKILL a
 * second after that (odls_base_sigkill_timeout, 1 s). There is no
 * launcher of ours to stop the run in order, as piclrun does, and no PICL
 * call to fail in time: so a rank catches SIGINT, SIGTERM and SIGHUP
 * (where still at their default at open0) and takes the emergency write
 * at once (api.c: the part written from a child made with _Fork, a -7
 * record "stopped by SIGTERM"), then dies of the signal. Unless a way
 * out is writing the part already (a PICL error, close0): that one is
 * left to end the process.
 *
 * A rank that has written does not die at once, though: as soon as one
 * rank dies during the teardown, Open MPI SIGKILLs the others (measured:
 * 0.1 ms after the first rank's death, not a second after SIGTERM), and
 * the ranks slower to write (a loaded machine, a bigger buffer) lost
 * their parts, 7 runs in 12 with two busy loops beside 3 ranks. So it
 * waits for the launcher's SIGKILL, which comes a second after SIGTERM
 * once nobody dies early, and dies of its signal only after LINGER
 * seconds without one (a launcher that sends SIGTERM alone, a kill(1)
 * of one rank).
 */
#define LINGER 3

static void on_stop_signal(int sig)
{
	int rc = picl_api_emergency(sig, PICL_DEATH_STOPPED, 0);
	struct timespec ts = { LINGER, 0 };

	if (rc == 0)
		return;
	if (rc > 0)     /* (the stop signals are blocked here: only SIGKILL ends this) */
		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
	signal(sig, SIG_DFL);
	raise(sig);     /* delivered when the handler returns */
}

/*
 * A handler that Open MPI installed (the program called MPI_Init itself
 * before open0: its stack trace for SIGSEGV, SIGBUS, SIGFPE, SIGABRT),
 * told from a program's own by the library its code is in. Only then:
 * before MPI_Init, whatever is there is the program's.
 */
static int mpi_own_handler(const struct sigaction *sa)
{
	Dl_info info;
	const char *base;
	int up = 0;
	void *fn;

	MPI_Initialized(&up);
	if (!up)
		return 0;
	if (sa->sa_flags & SA_SIGINFO)
		fn = (void *)sa->sa_sigaction;
	else if (sa->sa_handler == SIG_DFL || sa->sa_handler == SIG_IGN)
		return 0;
	else
		fn = (void *)sa->sa_handler;
	if (!fn || !dladdr(fn, &info) || !info.dli_fname)
		return 0;
	base = strrchr(info.dli_fname, '/');
	base = base ? base + 1 : info.dli_fname;
	return strncmp(base, "libopen-pal.", 12) == 0 ||
	       strncmp(base, "libopen-rte.", 12) == 0 ||
	       strncmp(base, "libmpi.", 7) == 0;
}

static int mpi_init(int *nprocs, int *me, int *host)
{
	int flag = 0, err, *ub = NULL, hosted, split_off, launched;
	long long v;
	const char *h;

	MPI_Initialized(&flag);
	if (!flag) {
		err = MPI_Init(NULL, NULL);
		if (err != MPI_SUCCESS) {
			fprintf(stderr, "libpicl-mpi: MPI_Init failed\n");
			return -1;
		}
		mb.we_initialized = 1;
		mb.pid = getpid();
		on_exit(finalize_at_exit, NULL);
	}
	err = MPI_Comm_dup(MPI_COMM_WORLD, &mb.comm);
	if (err != MPI_SUCCESS) {
		mpi_problem("MPI_Comm_dup", err);
		return -1;
	}
	MPI_Comm_set_errhandler(mb.comm, MPI_ERRORS_RETURN);
	err = MPI_Comm_dup(MPI_COMM_WORLD, &mb.ctl);
	if (err != MPI_SUCCESS) {
		mpi_problem("MPI_Comm_dup", err);
		MPI_Comm_free(&mb.comm);
		return -1;
	}
	MPI_Comm_set_errhandler(mb.ctl, MPI_ERRORS_RETURN);
	MPI_Comm_rank(mb.comm, &mb.rank);
	MPI_Comm_size(mb.comm, &mb.size);
	/* Started by piclrun (PICL_SHM is its segment) as one of several
	 * processes, each is an MPI job of one: it would run alone, as node 0,
	 * and say nothing. */
	h = getenv("PICL_SHM");
	if (h && *h && picl_env_int("PICL_NPROCS", &launched) == 0 &&
	    launched > mb.size) {
		fprintf(stderr, "libpicl-mpi: this program is linked with "
			"libpicl-mpi (picl-cc --mpi), but piclrun started it as "
			"one of %d processes, which MPI sees as %d: start it "
			"with mpirun -n %d, or build it with picl-cc (no --mpi) "
			"for piclrun\n", launched, mb.size, launched);
		MPI_Comm_free(&mb.ctl);
		MPI_Comm_free(&mb.comm);
		return -1;
	}
	mb.heard = calloc((size_t)mb.size, 1);
	if (!mb.heard) {
		fprintf(stderr, "libpicl-mpi: out of memory\n");
		return -1;
	}
	flag = 0;
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
	mb.tag_ub = flag && ub && *ub >= 32767 ? *ub : 32767;
	/* tests: MPICH's small tag range (a larger one than MPI's is MPI's) */
	if (picl_env_number(PROG, "PICL_MPI_TAG_UB", 1, INT_MAX, NULL, &v) == 1 &&
	    v < mb.tag_ub)
		mb.tag_ub = (int)v;

	hosted = hosted_env();
	v = 1;
	picl_env_number(PROG, "PICL_MPI_SPLIT", 0, 1, NULL, &v);
	split_off = v == 0;
	if (settings_agree(hosted, split_off, mb.tag_ub) != 0) {
		/* Every rank fails here: end MPI together, so that rank 0's
		 * message is out before mpirun stops (an MPI_Abort from the
		 * exit handler could kill rank 0 first). */
		if (mb.we_initialized) {
			MPI_Comm_free(&mb.comm);
			MPI_Comm_free(&mb.ctl);
			mpi_finalize();
			mb.we_initialized = 0;
		} else {
			MPI_Barrier(mb.ctl);
		}
		return -1;
	}
	if (hosted) {
		if (mb.size < 2) {
			fprintf(stderr, "libpicl-mpi: PICL_MPI_HOST=1 needs at "
				"least 2 ranks (the host and a node)\n");
			return -1;
		}
		mb.host_rank = mb.size - 1;
	}
	mb.spin = ranks_per_cpu_ok() ? SPIN_OWN : SPIN_SHARED;
	mb.split = mb.tag_ub == INT_MAX && !split_off;
	v = SEND_NOW;
	picl_env_number(PROG, "PICL_MPI_SEND_NOW", 0, INT_MAX, "bytes", &v);
	mb.send_now = (size_t)v;
	mb.fast_nodes = (unsigned)(mb.host_rank < 0 ? mb.size : mb.host_rank);
	mb.fast_types = (unsigned)(mb.split ? SPLIT_OFF - 1 : mb.tag_ub);
	mb.fast_len = mb.split && mb.send_now > SMALL ? SMALL : mb.send_now;
	mb.dl_report = picl_env_word(PROG, "PICL_MPI_DEADLOCK", "report") == 1;
	/* every rank gets here (the failures above are every rank's) */
	if (mb.size > 1 && MPI_Comm_dup(MPI_COMM_WORLD, &mb.dlc) == MPI_SUCCESS) {
		MPI_Comm_set_errhandler(mb.dlc, MPI_ERRORS_RETURN);
		mb.dl_on = 1;
		if (mb.rank == 0)       /* without, no deadlock is found */
			mb.dl = calloc((size_t)mb.size, sizeof *mb.dl);
	}
	mb.ready = 1;
	picl_api_catch_stop_signals(on_stop_signal);
	*nprocs = mb.host_rank < 0 ? mb.size : mb.size - 1;
	*me = node_of(mb.rank);
	*host = mb.host_rank < 0 ? -1 : PICL_HOST;
	return 0;
}

/* Take what has come on ctl into mb.heard; the first rank to stop the
 * run or leave without close0 becomes mb.stop_from. */
static void read_ctl(void)
{
	MPI_Status st;
	int flag, x;

	for (;;) {
		flag = 0;
		if (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, mb.ctl, &flag,
			       &st) != MPI_SUCCESS || !flag)
			return;
		if (MPI_Recv(&x, 1, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, mb.ctl,
			     MPI_STATUS_IGNORE) != MPI_SUCCESS)
			return;
		mb.heard[st.MPI_SOURCE] = (unsigned char)st.MPI_TAG;
		if (mb.stop_from < 0 &&
		    (st.MPI_TAG == STOP_TAG || st.MPI_TAG == EXIT_TAG))
			mb.stop_from = st.MPI_SOURCE;
	}
}

/* The run is stopping: a rank stopped it or left, or it deadlocked. */
static int stopping(void)
{
	return mb.stop_from >= 0 || mb.deadlock;
}

/*
 * Has a rank stopped the run, or left without close0 (see the top)? 1
 * once one has, else 0. Called where a wait would yield or sleep, not on
 * the fast paths.
 */
static int check_stop(void)
{
	if (stopping())
		return 1;
	if (!mb.ready)
		return 0;
	read_ctl();
	return mb.stop_from >= 0;
}

static double mpi_clock(void);

/* A deadlock-detection message to rank r (three numbers; MPI buffers it:
 * no wait). */
static void dl_send(int r, int tag, int64_t a, uint64_t b, uint64_t c)
{
	int64_t v[3] = { a, (int64_t)b, (int64_t)c };

	MPI_Send(v, 3, MPI_INT64_T, r, tag, mb.dlc);
}

/* Take what has come on dlc (see DL_AFTER). */
static void dl_poll(void)
{
	MPI_Status st;
	int64_t v[3];
	int flag;

	for (;;) {
		flag = 0;
		if (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, mb.dlc, &flag,
			       &st) != MPI_SUCCESS || !flag)
			return;
		if (MPI_Recv(v, 3, MPI_INT64_T, st.MPI_SOURCE, st.MPI_TAG,
			     mb.dlc, MPI_STATUS_IGNORE) != MPI_SUCCESS)
			return;
		if (st.MPI_TAG == DL_ASK) {
			mb.ep.ask = v[0];
		} else if (st.MPI_TAG == DL_FOUND) {
			mb.deadlock = 1;
		} else if (mb.dl && st.MPI_TAG == DL_REPORT) {
			struct dl_rank *d = &mb.dl[st.MPI_SOURCE];

			d->s = v[1];
			d->r = v[2];
			d->reported = 1;
		} else if (mb.dl && st.MPI_TAG == DL_ANSWER) {
			struct dl_rank *d = &mb.dl[st.MPI_SOURCE];

			d->ask = v[0];
			d->as = v[1];
			d->ar = v[2];
		}
	}
}

/*
 * Rank 0, a wait of its own DL_AFTER seconds old: with a report from every
 * rank and as many messages taken as sent in all, ask or, when every
 * answer to the ask is its rank's report and its own counts have not
 * moved since, it is a deadlock: tell everyone. An answer that is not the
 * report makes that report stale (the rank reports again from its next
 * long wait); a rank that does not answer (it computes) is asked again
 * after DL_REASK seconds, doubled each time up to DL_REASK_MAX, so that
 * the asks piling up for it stay few.
 */
static void dl_decide(double now)
{
	uint64_t s = mb.nsent, r = mb.nrecv;
	int i, all = 1, stale = 0;

	for (i = 1; i < mb.size; i++) {
		if (!mb.dl[i].reported)
			return;
		s += (uint64_t)mb.dl[i].s;
		r += (uint64_t)mb.dl[i].r;
	}
	if (s != r)
		return;
	if (mb.asking && mb.ask_s == mb.nsent && mb.ask_r == mb.nrecv) {
		for (i = 1; i < mb.size; i++) {
			struct dl_rank *d = &mb.dl[i];

			if (d->ask != mb.ask) {
				all = 0;
			} else if (d->as != d->s || d->ar != d->r) {
				d->reported = 0;
				stale = 1;
			}
		}
		if (all && !stale && mb.dl_report) {
			fprintf(stderr, "libpicl-mpi: deadlock: every process "
				"waits for a message, and none is on its way; "
				"they are left waiting (PICL_MPI_DEADLOCK=report)\n");
			free(mb.dl);    /* said once: no more deciding */
			mb.dl = NULL;
			return;
		}
		if (all && !stale) {
			for (i = 1; i < mb.size; i++)
				dl_send(i, DL_FOUND, 0, 0, 0);
			mb.deadlock = 1;
			return;
		}
		if (stale) {            /* wait for their new reports */
			mb.asking = 0;
			mb.reask = DL_REASK;
			return;
		}
		if (now - mb.asked_at < mb.reask)
			return;
		mb.reask = mb.reask * 2 < DL_REASK_MAX ? mb.reask * 2 : DL_REASK_MAX;
	} else {
		mb.reask = DL_REASK;
	}
	mb.ask++;
	mb.asking = 1;
	mb.asked_at = now;
	mb.ask_s = mb.nsent;
	mb.ask_r = mb.nrecv;
	for (i = 1; i < mb.size; i++)
		dl_send(i, DL_ASK, mb.ask, 0, 0);
}

/*
 * In a receive's wait, every few probes (where it looks at ctl too): the
 * episode, the report, the answer to rank 0's ask; rank 0 decides.
 */
static void dl_check(void)
{
	double now;

	if (!mb.dl_on || mb.deadlock)
		return;
	dl_poll();
	now = mpi_clock();
	if (!mb.ep.on || mb.ep.s != mb.nsent || mb.ep.r != mb.nrecv) {
		mb.ep.on = 1;
		mb.ep.since = now;
		mb.ep.s = mb.nsent;
		mb.ep.r = mb.nrecv;
		mb.ep.reported = 0;
	}
	if (mb.ep.ask) {
		dl_send(0, DL_ANSWER, mb.ep.ask, mb.nsent, mb.nrecv);
		mb.ep.ask = 0;
	}
	if (mb.deadlock || now - mb.ep.since < DL_AFTER)
		return;
	if (mb.rank != 0) {
		if (!mb.ep.reported)
			dl_send(0, DL_REPORT, 0, mb.nsent, mb.nrecv);
		mb.ep.reported = 1;
	} else if (mb.dl) {
		dl_decide(now);
	}
}

/* A small notice on ctl to rank r (MPI buffers it: no wait). */
static void notify(int r, int tag)
{
	static int x;

	MPI_Send(&x, 1, MPI_INT, r, tag, mb.ctl);
}

static void drop_served(void)
{
	if (mb.served) {
		free(mb.served);
		mb.served = NULL;
	}
}

static void answer_stop(void);
static int enqueue_one(void);

/* Has rank i left: this one, or one that said so (CLOSED_TAG: the host by
 * close0; EXIT_TAG: without close0)? */
static int has_left(int i)
{
	return i == mb.rank || mb.heard[i] == CLOSED_TAG || mb.heard[i] == EXIT_TAG;
}
static void stop_pause(void);

/*
 * The host leaving by close0, whose barrier does not hold it: wait until
 * every node has left too (CLOSED_TAG; EXIT_TAG without close0), taking
 * in what they still send it meanwhile. Else a node's message over SMALL
 * bytes that the host never received (a synchronous send) would wait for
 * the host, and the host in MPI_Finalize for the node. A node that stops
 * the run is answered (this part is written). The host takes part in
 * finding a deadlock of the nodes meanwhile, as a rank that waits (it
 * will never send again): else nodes deadlocked after its close0 would
 * be waited for for ever.
 */
static void host_wait_nodes(void)
{
	int i, n;

	for (;;) {
		read_ctl();
		for (i = n = 0; i < mb.size; i++) {
			if (mb.heard[i] == STOP_TAG)
				answer_stop();
			n += has_left(i);
		}
		if (n == mb.size)
			return;
		if (n == 1)     /* while no node has left (and freed dlc) */
			dl_check();
		if (enqueue_one() <= 0)
			stop_pause();
		while (mb.head) {	/* nobody will receive them */
			struct queued *q = mb.head;
			mb.head = q->next;
			free(q);
		}
		mb.tail = NULL;
	}
}

static void mpi_finalize(void)
{
	int done = 0;

	say_lost();
	MPI_Finalized(&done);
	if (mb.ready && !done && mb.host_rank >= 0 && !mb.leaving) {
		/* close0's barrier does not hold the host: a rank leaving
		 * without close0 must not wait for it (see the top), nor the
		 * host's MPI_Finalize for a node still sending to it */
		int i;

		for (i = 0; i < mb.size; i++)
			if (i != mb.rank &&
			    (mb.rank == mb.host_rank || i == mb.host_rank))
				notify(i, CLOSED_TAG);
		if (mb.rank == mb.host_rank)
			host_wait_nodes();
	}
	drop_served();
	if (mb.probed) {	/* a matched message must still be received */
		int count = 0;
		void *sink;

		MPI_Get_count(&mb.st, MPI_BYTE, &count);
		sink = malloc(count ? (size_t)count : 1);
		if (sink)
			MPI_Mrecv(sink, count, MPI_BYTE, &mb.msg,
				  MPI_STATUS_IGNORE);
		free(sink);
		mb.probed = 0;
	}
	while (mb.head) {
		struct queued *q = mb.head;
		mb.head = q->next;
		free(q);
	}
	mb.tail = NULL;
	free(mb.rbuf);
	free(mb.pbuf);
	mb.rbuf = mb.pbuf = NULL;
	mb.rcap = mb.pcap = 0;
	MPI_Finalized(&done);
	if (mb.ready && !done) {
		MPI_Comm_free(&mb.comm);
		MPI_Comm_free(&mb.ctl);
	}
	if (mb.dl_on && !done) {
		dl_poll();              /* a report that rank 0 never read */
		MPI_Comm_free(&mb.dlc);
	}
	mb.dl_on = 0;
	free(mb.dl);
	mb.dl = NULL;
	free(mb.heard);
	mb.heard = NULL;
	mb.ready = 0;
	if (mb.we_initialized && !done)
		MPI_Finalize();
	mb.we_initialized = 0;
}

/*
 * Receive the message `msg` (probed as `st`, `count` bytes) into buf: sets
 * *type and *len and returns the payload (buf, or just after an escaped
 * message's header), or NULL on failure.
 */
static unsigned char *receive(MPI_Message *msg, MPI_Status *st,
			      unsigned char *buf, int count,
			      int *type, size_t *len)
{
	struct escape_header h;
	int err = MPI_Mrecv(buf, count, MPI_BYTE, msg, MPI_STATUS_IGNORE);

	if (err != MPI_SUCCESS) {
		mpi_problem("MPI_Mrecv", err);
		return NULL;
	}
	if (st->MPI_TAG != mb.tag_ub) {
		*type = st->MPI_TAG;
		*len = (size_t)count;
		return buf;
	}
	if (count < HEADER_SIZE) {
		fprintf(stderr, "libpicl-mpi: short message from rank %d\n",
			st->MPI_SOURCE);
		return NULL;
	}
	memcpy(&h, buf, sizeof h);
	*type = h.type;
	*len = (size_t)count - HEADER_SIZE;
	return buf + HEADER_SIZE;
}

/*
 * Receive the probed message (msg, st): one of type want (want = INT_MIN: none) that travels as its tag and fits ucap
 * bytes into ubuf, anything else into the backend's rbuf. Sets *src,
 * *type, *len and *payload; 0, or -1.
 */
static int take(MPI_Message *msg, MPI_Status *st, void *ubuf, size_t ucap,
		int want, int *src, int *type, size_t *len,
		unsigned char **payload)
{
	int count, err, tag;
	unsigned char *p;

	MPI_Get_count(st, MPI_BYTE, &count);
	*src = node_of(st->MPI_SOURCE);
	tag = is_large(st->MPI_TAG) ? st->MPI_TAG - SPLIT_OFF : st->MPI_TAG;
	if (tag != mb.tag_ub && ubuf && want != INT_MIN &&
	    picl_backend_wants(want, tag) && (size_t)count <= ucap) {
		err = MPI_Mrecv(ubuf, count, MPI_BYTE, msg, MPI_STATUS_IGNORE);
		if (err != MPI_SUCCESS) {
			mpi_problem("MPI_Mrecv", err);
			return -1;
		}
		mb.nrecv++;
		*type = tag;
		*len = (size_t)count;
		*payload = ubuf;
		return 0;
	}
	if (reserve(&mb.rbuf, &mb.rcap, (size_t)count) < 0) {
		fprintf(stderr, "libpicl-mpi: out of memory receiving %d "
			"bytes\n", count);
		return -1;
	}
	p = receive(msg, st, mb.rbuf, count, type, len);
	if (!p)
		return -1;
	mb.nrecv++;
	if (is_large(st->MPI_TAG))
		*type = tag;
	*payload = p;
	return 0;
}

/*
 * The next message MPI has for us: the one mpi_wait() kept matched, else a
 * fresh probe (any source, any tag: the order poll() sees). 1 with *msg
 * and *st set, 0 when nothing has arrived, -1 after reporting an error.
 */
static int next_message(MPI_Message *msg, MPI_Status *st)
{
	int flag = 0, err;

	if (mb.probed) {
		mb.probed = 0;
		*msg = mb.msg;
		*st = mb.st;
		return 1;
	}
	err = MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, mb.comm, &flag, msg, st);
	if (err != MPI_SUCCESS) {
		mpi_problem("MPI_Improbe", err);
		return -1;
	}
	return flag;
}

/* Take one waiting message, if any, onto the queue: 1, 0 (none), -1. */
static int enqueue_one(void)
{
	MPI_Message msg;
	MPI_Status st;
	int got, src, type;
	size_t len;
	struct queued *q;
	unsigned char *p;

	if ((got = next_message(&msg, &st)) <= 0)
		return got;
	if (take(&msg, &st, NULL, 0, INT_MIN, &src, &type, &len, &p) < 0)
		return -1;
	q = malloc(sizeof *q + len);
	if (!q) {
		fprintf(stderr, "libpicl-mpi: out of memory queueing %zu bytes\n",
			len);
		return -1;
	}
	if (len)
		memcpy(q->data, p, len);
	q->next = NULL;
	q->src = src;
	q->type = type;
	q->len = len;
	if (mb.tail)
		mb.tail->next = q;
	else
		mb.head = q;
	mb.tail = q;
	return 1;
}

/* Start sending an escaped message (type in a header); *dt is set when a
 * datatype was built and must be freed once the send completes. */
static int isend_escaped(const void *buf, size_t len, int type, int rank,
			 MPI_Request *req, MPI_Datatype *dt)
{
	struct escape_header h = { .type = type, .pad = 0 };
	static struct escape_header hsend;	/* lives until completion */

	if (len <= PACK_LIMIT) {
		if (reserve(&mb.pbuf, &mb.pcap, HEADER_SIZE + len) < 0)
			return MPI_ERR_NO_MEM;
		memcpy(mb.pbuf, &h, HEADER_SIZE);
		if (len)
			memcpy((char *)mb.pbuf + HEADER_SIZE, buf, len);
		return MPI_Isend(mb.pbuf, (int)(HEADER_SIZE + len), MPI_BYTE,
				 rank, mb.tag_ub, mb.comm, req);
	}

	int lens[2] = { HEADER_SIZE, (int)len };
	MPI_Aint disp[2];
	MPI_Datatype types[2] = { MPI_BYTE, MPI_BYTE };
	int err;

	hsend = h;
	MPI_Get_address(&hsend, &disp[0]);
	MPI_Get_address(buf, &disp[1]);
	err = MPI_Type_create_struct(2, lens, disp, types, dt);
	if (err == MPI_SUCCESS)
		err = MPI_Type_commit(dt);
	if (err != MPI_SUCCESS)
		return err;
	return MPI_Isend(MPI_BOTTOM, 1, *dt, rank, mb.tag_ub, mb.comm, req);
}

static int mpi_send(const void *buf, size_t len, int type, int dst)
{
	MPI_Request req;
	MPI_Datatype dt = MPI_DATATYPE_NULL;
	int rank, done = 0, err, got;
	unsigned k;

	if (!mb.served && (unsigned)dst < mb.fast_nodes &&
	    (unsigned)type < mb.fast_types && len <= mb.fast_len) {
		err = MPI_Send(buf, (int)len, MPI_BYTE, dst, type, mb.comm);
		if (err == MPI_SUCCESS) {
			mb.nsent++;
			return 0;
		}
		mpi_problem("MPI_Send", err);
		return -1;
	}
	rank = rank_of(dst);
	drop_served();
	if (rank < 0) {
		fprintf(stderr, "libpicl-mpi: send to processor %d: no such "
			"process\n", dst);
		return -1;
	}
	if (len > (size_t)INT_MAX - HEADER_SIZE) {
		fprintf(stderr, "libpicl-mpi: send of %zu bytes: too long for "
			"MPI\n", len);
		return -1;
	}
	if (fits_tag(type) && mb.split && len > SMALL) {
		err = MPI_Issend(buf, (int)len, MPI_BYTE, rank,
				 type + SPLIT_OFF, mb.comm, &req);
	} else if (fits_tag(type) && len <= mb.send_now) {
		err = MPI_Send(buf, (int)len, MPI_BYTE, rank, type, mb.comm);
		if (err != MPI_SUCCESS) {
			mpi_problem("MPI_Send", err);
			return -1;
		}
		mb.nsent++;
		return 0;
	} else if (fits_tag(type)) {
		err = MPI_Isend(buf, (int)len, MPI_BYTE, rank, type, mb.comm,
				&req);
	} else {
		err = isend_escaped(buf, len, type, rank, &req, &dt);
	}
	if (err != MPI_SUCCESS) {
		mpi_problem("MPI_Isend", err);
		if (dt != MPI_DATATYPE_NULL)
			MPI_Type_free(&dt);
		return -1;
	}
	mb.nsent++;
	for (k = 1;; k++) {
		err = MPI_Test(&req, &done, MPI_STATUS_IGNORE);
		if (err != MPI_SUCCESS || done)
			break;
		/* Keep the peer's messages flowing while ours waits. */
		got = enqueue_one();
		if (got < 0) {
			err = MPI_ERR_OTHER;
			break;
		}
		if (!got && k % mb.spin == 0 && check_stop())
			break;
	}
	if (dt != MPI_DATATYPE_NULL)
		MPI_Type_free(&dt);
	if (stopping() && !done)
		return -1;	/* the run stops: the layer above fails */
	if (err != MPI_SUCCESS) {
		mpi_problem("send", err);
		return -1;
	}
	return 0;
}

static int mpi_poll(int *src, int *type, size_t *len, const void **payload)
{
	MPI_Message msg;
	MPI_Status st;
	int got;
	unsigned char *p;

	drop_served();
	if (mb.head) {
		struct queued *q = mb.head;
		mb.head = q->next;
		if (!mb.head)
			mb.tail = NULL;
		mb.served = q;
		*src = q->src;
		*type = q->type;
		*len = q->len;
		*payload = q->data;
		mb.idle = 0;
		return 1;
	}
	if ((got = next_message(&msg, &st)) < 0)
		return -1;
	if (!got) {	/* (a caller spinning on probe0 never waits) */
		if (++mb.empty_polls % 1024 == 0)
			check_stop();
		return stopping() ? -1 : 0;
	}
	if (take(&msg, &st, NULL, 0, INT_MIN, src, type, len, &p) < 0)
		return -1;
	*payload = p;
	mb.idle = 0;
	return 1;
}

static void mpi_release(void)
{
	drop_served();
}

static void mpi_wait(void);

/*
 * recv0 waiting for a message of type want, large messages apart
 * (SPLIT_OFF): a receive of SMALL bytes posted for tag want, into buf if it
 * is that large, else into a bounce buffer, takes a small message as it
 * arrives. While it waits, the other messages are taken in every few tests
 * (other()), so that their senders are not held up. A large message of
 * type want found then is ours if the posted receive can still be
 * cancelled; if not, the receive got an earlier message (or one from
 * another source), and the large one is queued. (Not inlined, so that
 * mpi_recv_into's short way here does not pay for this frame.)
 */
static __attribute__((noinline)) int
recv_posted(void *buf, size_t cap, int want, int *src, int *mtype, size_t *len,
	    void (*other)(int, int, const void *, size_t))
{
	static unsigned char bounce[SMALL];
	unsigned char *t = cap >= SMALL ? buf : bounce, *p;
	MPI_Request req;
	MPI_Status st, ms;
	MPI_Message m;
	int done = 0, err, count, flag, s, ty, cancelled;
	unsigned k = 0;
	size_t l;

	err = MPI_Irecv(t, SMALL, MPI_BYTE, MPI_ANY_SOURCE, want, mb.comm,
			&req);
	if (err != MPI_SUCCESS) {
		mpi_problem("MPI_Irecv", err);
		return -1;
	}
	for (;;) {
		err = MPI_Test(&req, &done, &st);
		if (err != MPI_SUCCESS || done)
			break;
		if (++k % PROBE_EVERY)
			continue;
		flag = 0;
		err = MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, mb.comm, &flag,
				  &m, &ms);
		if (err != MPI_SUCCESS) {
			mpi_problem("MPI_Improbe", err);
			return -1;
		}
		if (flag && is_large(ms.MPI_TAG) &&
		    ms.MPI_TAG - SPLIT_OFF == want) {
			MPI_Cancel(&req);
			err = MPI_Wait(&req, &st);
			cancelled = 0;
			if (err == MPI_SUCCESS)
				err = MPI_Test_cancelled(&st, &cancelled);
			if (err != MPI_SUCCESS) {
				mpi_problem("MPI_Cancel", err);
				return -1;
			}
			if (take(&m, &ms, cancelled ? buf : NULL, cap, want,
				 &s, &ty, &l, &p) < 0)
				return -1;
			mb.idle = 0;
			if (!cancelled) {       /* ours is the earlier one */
				other(s, ty, p, l);
				break;
			}
			*src = s;
			*mtype = ty;
			*len = l;
			if (l > cap)
				return 2;
			return 1;
		}
		if (flag) {
			if (take(&m, &ms, NULL, 0, INT_MIN, &s, &ty, &l, &p) < 0)
				return -1;
			other(s, ty, p, l);
			mb.idle = 0;
			continue;
		}
		if (k % mb.spin == 0) {
			dl_check();
			if (check_stop()) {
				/* the run stops: fail, unless the message
				 * came first */
				MPI_Cancel(&req);
				err = MPI_Wait(&req, &st);
				cancelled = 1;
				if (err == MPI_SUCCESS)
					MPI_Test_cancelled(&st, &cancelled);
				if (cancelled)
					return -1;
				break;
			}
			if (++mb.idle >= IDLE_BUDGET / mb.spin) {
				struct timespec ts = { 0, 20000 };
				nanosleep(&ts, NULL);
			} else if (mb.spin == SPIN_SHARED) {
				sched_yield();
			}
		}
	}
	mb.idle = 0;
	if (err != MPI_SUCCESS) {
		mpi_problem("MPI_Irecv", err);
		return -1;
	}
	mb.nrecv++;
#ifdef OPEN_MPI
	/* What MPI_Get_count(&st, MPI_BYTE, &count) says, read straight from
	 * Open MPI's public status (its byte count, at most SMALL here):
	 * the call is ~45 instructions on the 8-byte ping-pong's critical
	 * path, 2% of its latency (bench/README.md). */
	count = (int)st._ucount;
#else
	MPI_Get_count(&st, MPI_BYTE, &count);
#endif
	*src = node_of(st.MPI_SOURCE);
	*mtype = want;
	*len = (size_t)count;
	if ((size_t)count > cap)
		return 2;
	if (t != buf && count)
		memcpy(buf, t, (size_t)count);
	return 1;
}

/*
 * The next message of type want straight into the caller's buffer: each
 * message is probed (any source, any tag: the order poll() sees) and one
 * that matches, fits and travels with its type as the tag is received with
 * MPI_Mrecv into buf itself, so MPI's single copy (or its rendezvous
 * straight from the sender's buffer) is the only one. The others are
 * received as poll() would and handed to other(), or copied once when they
 * match (escaped or queued ones). Waiting (block), with large messages
 * apart (SPLIT_OFF), it posts a receive instead: recv_posted().
 *
 * (A receive posted into buf for any message of the type would be simpler,
 * but a message longer than buf must fail with PICL's error, and Open MPI
 * 4.1 writes past the end of the buffer receiving a truncated large
 * message, as AddressSanitizer showed: hence the separate tags, and the
 * probe, which tells the length before anything is received.)
 */
static int mpi_recv_into(void *buf, size_t cap, int want, int block,
			 int *src, int *mtype, size_t *len,
			 void (*other)(int, int, const void *, size_t))
{
	MPI_Message msg;
	MPI_Status st;
	int flag, type;
	size_t n;
	unsigned char *p;

	/* recv0 waiting for a small type, nothing queued: straight on. */
	if (block && !mb.served && !mb.head && !mb.probed && mb.split &&
	    (unsigned)want < SPLIT_OFF - 1)
		return recv_posted(buf, cap, want, src, mtype, len, other);
	drop_served();
	while (mb.head) {
		struct queued *q = mb.head;
		mb.head = q->next;
		if (!mb.head)
			mb.tail = NULL;
		mb.idle = 0;
		if (!picl_backend_wants(want, q->type)) {
			other(q->src, q->type, q->data, q->len);
			free(q);
			continue;
		}
		*src = q->src;
		*mtype = q->type;
		*len = n = q->len;
		if (n <= cap && n)
			memcpy(buf, q->data, n);
		free(q);
		return n <= cap ? 1 : 2;
	}
	if (block && !mb.probed && mb.split && want >= 0 &&
	    want < SPLIT_OFF - 1)
		return recv_posted(buf, cap, want, src, mtype, len, other);
	if (block)      /* recv0 has just probed (block = 0): wait first */
		mpi_wait();
	for (;;) {
		flag = next_message(&msg, &st);
		if (flag < 0)
			return -1;
		if (!flag) {
			if (!block)
				return 0;
			if (stopping())
				return -1;
			mpi_wait();
			continue;
		}
		mb.idle = 0;
		if (take(&msg, &st, buf, cap, want, src, &type, &n, &p) < 0)
			return -1;
		if (!picl_backend_wants(want, type)) {
			other(*src, type, p, n);
			continue;
		}
		*mtype = type;
		*len = n;
		if (n > cap)
			return 2;
		if (n && p != buf)
			memcpy(buf, p, n);
		return 1;
	}
}

/*
 * Spin on MPI's progress engine (a probe drives it), as MPI's own blocking
 * calls do. With more ranks on this machine than processors (mpirun
 * --oversubscribe) the rank we wait for may need our processor: spin
 * briefly, then yield it. After a long idle stretch (IDLE_BUDGET probes
 * without a message) sleep a little instead of spinning flat out. A message
 * found here is kept (matched, so it stays first) for the next poll(),
 * which then need not probe again.
 */
static void mpi_wait(void)
{
	int flag = 0, i;

	if (mb.head || mb.probed)
		return;
	for (i = 0; i < (int)mb.spin; i++) {
		if (MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, mb.comm, &flag,
				&mb.msg, &mb.st) != MPI_SUCCESS)
			return;
		if (flag) {
			mb.probed = 1;
			return;
		}
	}
	dl_check();
	if (check_stop())
		return;
	if (++mb.idle >= IDLE_BUDGET / mb.spin) {
		struct timespec ts = { 0, 20000 };
		nanosleep(&ts, NULL);
	} else if (mb.spin == SPIN_SHARED) {
		sched_yield();
	}
}

static double mpi_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Sleep a millisecond, keeping MPI's progress going (a probe drives it). */
static void stop_pause(void)
{
	struct timespec ts = { 0, 1000000 };
	int flag = 0;

	MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, mb.ctl, &flag,
		   MPI_STATUS_IGNORE);
	nanosleep(&ts, NULL);
}

/* Has rank i answered a stop (or stopped the run itself)? */
static int answered(int i)
{
	return i == mb.rank || mb.heard[i] == DONE_TAG ||
	       mb.heard[i] == STOP_TAG;
}

/*
 * This rank stops the run (see the top): tell every other rank, and wait
 * until each has answered (its part written) or stopped the run too, at
 * most STOP_GRACE seconds: a rank busy outside PICL's calls does not look.
 */
static void stop_others(void)
{
	int i, n;
	double end = mpi_clock() + STOP_GRACE;

	for (i = 0; i < mb.size; i++)
		if (!answered(i))
			notify(i, STOP_TAG);
	for (;;) {
		read_ctl();
		for (i = n = 0; i < mb.size; i++)
			n += answered(i);
		if (n == mb.size || mpi_clock() >= end)
			return;
		stop_pause();
	}
}

/* This rank failed because another stopped the run or left, and its part
 * is written: say so to each that did (to those that do later too), and
 * wait for the MPI_Abort. */
static void answer_stop(void)
{
	char *told = calloc((size_t)mb.size, 1);
	double end = mpi_clock() + STOP_WAIT;
	int i;

	while (told && mpi_clock() < end) {
		read_ctl();
		for (i = 0; i < mb.size; i++)
			if (!told[i] && (mb.heard[i] == STOP_TAG ||
					 mb.heard[i] == EXIT_TAG)) {
				notify(i, DONE_TAG);
				told[i] = 1;
			}
		stop_pause();
	}
	free(told);
}

/*
 * Status 0 without close0 (see the top): tell the others, and wait until
 * each has left too (1: the run ends well), one has failed because of
 * this one (0) or one has stopped the run (-1).
 */
static int leave(void)
{
	int i, n, t;

	for (i = 0; i < mb.size; i++)
		if (i != mb.rank)
			notify(i, EXIT_TAG);
	for (;;) {
		read_ctl();
		for (i = n = 0; i < mb.size; i++) {
			t = mb.heard[i];
			if (t == DONE_TAG || t == STOP_TAG)
				return t == DONE_TAG ? 0 : -1;
			n += has_left(i);
		}
		if (n == mb.size)
			return 1;
		stop_pause();
	}
}

/* The run fails here: stop it, or answer the rank that stopped it. */
static __attribute__((noreturn)) void stop_run(int code)
{
	int i, stopped = 0;

	read_ctl();
	for (i = 0; i < mb.size; i++)
		stopped |= mb.heard[i] == STOP_TAG;
	if (stopped || (mb.stop_from >= 0 && mb.heard[mb.stop_from] == EXIT_TAG
			&& !mb.leaving))
		answer_stop();
	else
		stop_others();
	MPI_Abort(MPI_COMM_WORLD, code);
	exit(code);
}

/* Why send, poll and recv_into fail (backend.h): a deadlock; the other
 * reasons say themselves as before (NULL). */
static const char *mpi_stopped(void)
{
	return mb.deadlock ? "deadlock: every process waits for a message, and "
			     "none is on its way" : NULL;
}

static void mpi_abort(int code)
{
	int up = 0, down = 0;

	code &= 0xff;
	MPI_Initialized(&up);
	MPI_Finalized(&down);
	if (up && !down) {
		if (mb.ready)
			stop_run(code ? code : 1);
		MPI_Abort(MPI_COMM_WORLD, code ? code : 1);
	}
	exit(code ? code : 1);
}

const struct picl_backend picl_backend_impl = {
	.name = "mpi",
	.init = mpi_init,
	.id_hint = mpi_id_hint,
	.finalize = mpi_finalize,
	.send = mpi_send,
	.poll = mpi_poll,
	.release = mpi_release,
	.recv_into = mpi_recv_into,
	.wait = mpi_wait,
	.clock = mpi_clock,
	.abort = mpi_abort,
	.stopped = mpi_stopped,
	/* no piclrun here: a rank's failure stops the others (stop_run) */
	.no_more = "no message can arrive any more (a process ended, failed or died)",
	.own_handler = mpi_own_handler,
	.trace_lost = mpi_trace_lost,
};
