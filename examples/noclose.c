/*
 * noclose.c - programs that end badly, for piclrun's fault tests
 * (t/e2e/0620-runtime-faults.sh). argv[1] says how:
 *
 *   noclose   every node exchanges a message with node 0, then returns
 *             from main without calling close0
 *   block     node 1 waits forever for a message nobody sends (recv0)
 *   crash     node 1 kills itself with SIGKILL after its first message;
 *             the others go on talking with node 0 and then wait for it
 *   spin      every node runs a ring for ever (killed from outside)
 *   inblock   every node opens user block 1; node 1 then exits (status 3)
 *             inside it, and the others fail inside it when no message
 *             can come: the -901 exit must still come last
 *   reserved  node 0 receives a message type PICL reserves (an error)
 *   nocheck   node 0 turns argument checks off (check0(0)), then sends
 *             -1 bytes to node 1 (still an error, not a crash)
 *   noopen    node 1 returns before open0; the others wait for it
 *   flushkill node 1 opens user block 1, writes its buffer out
 *             (traceflush) and kills itself inside the block
 *   halfline  the same, after appending the start of an exit of the
 *             block to its part file, as a kill in the middle of a
 *             write(2) leaves it
 *   short     node 1 receives node 0's 64 bytes into 4 (an error); node 0
 *             then fails in close0, waiting for node 1
 *   ring      no fault: a 4 KiB trace buffer that wraps (tracenode flush
 *             -1) over 2000 blocks, so the trace lacks the oldest records
 *   stop      the same with a buffer that stops detailed tracing (0)
 *   msgs      no fault: blocks and tracemsg calls in a loop (with a fake
 *             clock, several records to a microsecond), then close0
 *   nofile    node 1 names a trace file that cannot be created
 *             (tracefiles), then exchanges messages and calls close0: it
 *             says so and goes on, without a trace
 *   fill N S  no fault: every node traces N user blocks with a buffer of S
 *             bytes (flush 1), then exchanges messages and calls close0;
 *             with the parts on a small file system, their writes fail
 *   bigmsg    node 1 calls tracemsg with 2 MiB of text, then as nofile
 *   bigdata   node 1 traces 200000 doubles (tracedata, 16 MiB buffer)
 *   segv      node 1 opens user block 1 after its first message, then
 *             writes through a null pointer inside it (SIGSEGV)
 *   abort     the same, calling abort() (SIGABRT, as a failed assert)
 *   overflow  the same, recursing until the stack overflows (SIGSEGV)
 *   fpe       the same, raising SIGFPE with kill(2) (a signal sent)
 *   ill       the same, executing a trap instruction (SIGILL, a fault)
 *   ownsegv   as segv, but the program handles SIGSEGV itself (set before
 *             open0: libpicl leaves it alone): says so, exits with 9
 *
 * With NOCLOSE_READY=PREFIX in the environment, block makes the empty
 * file PREFIX.<me> just before the call each node stays in (recv0 or
 * close0), so that a test signals the run only once all are there.
 */
#include <picl.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* block's nodes: NOCLOSE_READY.<me> says this node is past open0 and
 * about to wait */
static void ready(int me)
{
	const char *prefix = getenv("NOCLOSE_READY");
	char path[4096];
	int fd;

	if (!prefix)
		return;
	snprintf(path, sizeof path, "%s.%d", prefix, me);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0)
		close(fd);
}

static int crash_mode(const char *how)
{
	return strcmp(how, "segv") == 0 || strcmp(how, "abort") == 0 ||
	       strcmp(how, "overflow") == 0 || strcmp(how, "fpe") == 0 ||
	       strcmp(how, "ill") == 0 || strcmp(how, "ownsegv") == 0;
}

/* volatile: the compiler must neither drop the write nor see the
 * recursion's end */
static int * volatile nowhere;

static int recurse(int depth)
{
	volatile char pad[1024];

	pad[0] = (char)depth;
	if (nowhere != &depth)          /* always: unknown to the compiler */
		return recurse(depth + 1) + pad[0];
	return pad[0];
}

static void crash(const char *how)
{
	if (strcmp(how, "abort") == 0)
		abort();
	else if (strcmp(how, "overflow") == 0)
		recurse(0);
	else if (strcmp(how, "fpe") == 0)
		kill(getpid(), SIGFPE);
	else if (strcmp(how, "ill") == 0)
		__builtin_trap();       /* x86's ud2, a fault: SIGILL */
	else
		*nowhere = 1;
}

static void own_segv(int sig)
{
	static const char m[] = "noclose: the program's own SIGSEGV handler\n";

	(void)sig;
	if (write(2, m, sizeof m - 1) < 0)
		_exit(8);
	_exit(9);
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "noclose";
	int nprocs, me, host, v = 0, i, flush = 1, size = 1 << 16;

	if (strcmp(how, "noopen") == 0 && getenv("PICL_RANK") &&
	    strcmp(getenv("PICL_RANK"), "1") == 0)
		return 0;
	if (strcmp(how, "fill") == 0 && argc > 3)
		size = atoi(argv[3]);
	if (strcmp(how, "bigdata") == 0)
		size = 1 << 24;
	if (strcmp(how, "ring") == 0 || strcmp(how, "stop") == 0) {
		size = 4096;
		flush = strcmp(how, "ring") == 0 ? -1 : 0;
	}
	if (strcmp(how, "ownsegv") == 0)
		signal(SIGSEGV, own_segv);
	tracenode(size, flush, 0);
	open0(&nprocs, &me, &host);
	if (flush != 1) {
		for (i = 0; i < 2000; i++) {
			traceblockbegin(1, 0, i);
			traceblockend(1, 0, i);
		}
		close0(0);
		return 0;
	}
	if (strcmp(how, "spin") == 0) {
		for (;;) {
			if (me == 0) {
				send0((char *)&v, sizeof v, 1, 1 % nprocs);
				recv0((char *)&v, sizeof v, 1);
			} else {
				recv0((char *)&v, sizeof v, 1);
				v++;
				send0((char *)&v, sizeof v, 1, (me + 1) % nprocs);
			}
		}
	}
	if (strcmp(how, "fill") == 0) {
		for (i = 0; i < (argc > 2 ? atoi(argv[2]) : 0); i++) {
			traceblockbegin(1, 0, i);
			traceblockend(1, 0, i);
		}
	}
	if (strcmp(how, "bigmsg") == 0 && me == 1) {
		char *text = malloc((2 << 20) + 1);

		if (text) {
			memset(text, 'm', 2 << 20);
			text[2 << 20] = '\0';
			tracemsg(text);
			free(text);
		}
	}
	if (strcmp(how, "bigdata") == 0 && me == 1) {
		double *d = malloc(200000 * sizeof(*d));

		if (d) {
			for (i = 0; i < 200000; i++)
				d[i] = 1.0 / (i + 3);
			tracedata(1, 0, "double", 200000, d);
			free(d);
		}
	}
	if (strcmp(how, "nofile") == 0 && me == 1)
		tracefiles("", "/nonexistent-picl-dir/trace.picl", 0);
	if (strcmp(how, "msgs") == 0) {
		for (i = 0; i < 50; i++) {
			traceblockbegin(1, 0, 0);
			traceblockend(1, 0, 0);
			tracemsg("hello");
		}
		close0(0);
		return 0;
	}
	if (strcmp(how, "reserved") == 0 && me == 0) {
		tracelevel(0, 1, 1);   /* PICL calls untraced: their shortcut too */
		recv0((char *)&v, sizeof v, 900000001);
	}
	if (strcmp(how, "nocheck") == 0 && me == 0) {
		check0(0);
		send0((char *)&v, -1, 5, 1);
	}
	if (strcmp(how, "flushkill") == 0 || strcmp(how, "halfline") == 0) {
		if (me == 1) {
			const char *part = getenv("PICL_TRACE_PART");
			static const char half[] = "-4 1 0.5 1 0";
			int fd;

			traceblockbegin(1, 0, 0);
			traceflush();
			if (how[0] == 'h' && part &&
			    (fd = open(part, O_WRONLY | O_APPEND)) >= 0) {
				if (write(fd, half, sizeof half - 1) < 0)
					perror(part);
				close(fd);
			}
			kill(getpid(), SIGKILL);
		}
		close0(0);
		return 0;
	}
	if (strcmp(how, "short") == 0) {
		char big[64] = { 0 };

		if (me == 0)
			send0(big, sizeof big, 3, 1);
		else if (me == 1)
			recv0((char *)&v, sizeof v, 3);
		close0(0);
		return 0;
	}
	if (strcmp(how, "inblock") == 0) {
		traceblockbegin(1, 0, 0);
		if (me == 1)
			exit(3);
		recv0((char *)&v, sizeof v, 77);   /* never sent */
	}
	if (me == 0) {
		for (i = 1; i < nprocs; i++)
			recv0((char *)&v, sizeof v, 1);
		for (i = 1; i < nprocs; i++)
			send0((char *)&v, sizeof v, 2, i);
	} else {
		send0((char *)&v, sizeof v, 1, 0);
		if (me == 1 && strcmp(how, "crash") == 0)
			kill(getpid(), SIGKILL);
		if (me == 1 && crash_mode(how)) {
			traceblockbegin(1, 0, 0);
			crash(how);
		}
		if (me == 1 && strcmp(how, "block") == 0) {
			ready(me);
			recv0((char *)&v, sizeof v, 77);
		}
		recv0((char *)&v, sizeof v, 2);
	}
	if (strcmp(how, "noclose") == 0)
		return 0;
	if (strcmp(how, "block") == 0)
		ready(me);
	close0(0);
	return 0;
}
