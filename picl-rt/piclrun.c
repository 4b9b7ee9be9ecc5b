/*
 * piclrun.c - start a PICL program as N processes on this machine, watch
 * them, and merge their traces into one.
 *
 *   piclrun -n N [--host ./hostprog] [-o trace.picl] [-z] [--keep-parts]
 *           [--timeout SECONDS] [--deadlock stop|report] [--parts-dir DIR]
 *           ./prog args...
 *
 * piclrun creates the shared-memory segment of the local backend (shm.h:
 * one file in /dev/shm, one SPSC ring per ordered pair of processes; the
 * children inherit it open, PICL_SHM_FD, and its name is removed as soon as
 * they are started; the file itself, and the parts directory, are made by
 * the cleaner, see start_cleaner), then
 * forks and execs N node processes (and, with --host, the host program as
 * processor 32767; load0 in the host only records -503 events, the nodes
 * being already started). Each child learns its place from PICL_SHM,
 * PICL_RANK, PICL_NPROCS and PICL_HOSTID, and where to write its trace
 * from PICL_TRACE_PART (<parts dir>/part.<rank>.picl) and PICL_TRACE_OUT.
 *
 * piclrun waits for the children and reports any that died (signal name)
 * or failed (exit status) or exited without close0, or without open0 when
 * the others joined; it marks such a process in the segment, so that the
 * others stop waiting for it. With --timeout, the processes still running
 * at the deadline are reported with what they are blocked on; the run is
 * marked stopped (blocked processes abort and write their trace part), and
 * whatever remains after two seconds is killed; but first, each gets a
 * second stop signal (SIGTERM; a first one before it when it caught
 * none), which makes it write its part and die (term_running). A
 * deadlock (every process left waiting for a message, none on its way:
 * deadlocked) is reported and stops the run the same way, at once.
 * Afterwards the trace parts are merged into one sorted trace with
 * `picltrace merge --unsorted`
 * (picltrace is looked for in $PICL_PICLTRACE, next to piclrun, in the
 * build tree beside it, then on PATH); when that fails, the parts are kept
 * and piclrun says how to merge them by hand, file by file (-o and
 * picltrace are checked before the start, so that this is rare). When the
 * run went wrong, a small extra part carrying one -7 message record per
 * failed process says the trace is partial and why.
 *
 * The processes die with piclrun; when piclrun itself is killed by SIGKILL,
 * a cleaner process, which made the parts directory and the segment's
 * file, removes them (start_cleaner).
 *
 * Exit status: 0 when every process ended well (and the merge worked), 1
 * when a process failed, the timeout struck or the run deadlocked, 2 on
 * usage or system errors,
 * 128 + the signal's number when SIGINT, SIGTERM or SIGHUP stopped it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "env.h"
#include "picl.h"
#include "shm.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

static const char usage[] =
	"usage: piclrun -n N [--host HOSTPROG] [-o FILE] [-z] [--keep-parts]\n"
	"               [--timeout SECONDS] [--deadlock=ACTION] [--parts-dir DIR]\n"
	"               PROG [ARG...]\n"
	"\n"
	"  -n, --nprocs=N       start N node processes (1-1024; digits only, as\n"
	"                       every number here: no '+', no blanks)\n"
	"      --host=HOSTPROG  also start HOSTPROG as the host (processor 32767)\n"
	"  -o, --output=FILE    the merged trace (default trace.picl, with -z\n"
	"                       trace.picl.zst)\n"
	"  -z, --zstd           compress the merged trace with zstd (also implied\n"
	"                       by an output FILE named *.zst)\n"
	"      --keep-parts     keep the per-process trace parts (piclrun says where\n"
	"                       unless --parts-dir chose the place)\n"
	"  -t, --timeout=SECS   stop the run after SECS seconds\n"
	"      --deadlock=ACTION\n"
	"                       when every process left waits for a message and\n"
	"                       none is on its way: stop (the default: report it\n"
	"                       and stop the run, keeping its trace) or report\n"
	"                       (report it once and let the processes wait, e.g.\n"
	"                       for a debugger; --timeout or Ctrl-C ends the run)\n"
	"      --parts-dir=DIR  where the parts go (default a temporary directory)\n"
	"  -V, --version        show the version\n"
	"  -h, --help           show this help\n"
	"\n"
	"PROG is built with picl-cc. A program built with picl-cc --mpi is run\n"
	"with mpirun instead (mpirun -n N PROG; see picl-mpi(7)).\n";

struct proc {
	int id;                 /* rank, or PICL_HOST */
	pid_t pid;
	int running;
	int failed;             /* what went wrong is in why */
	int never_opened;       /* exited well without calling open0 */
	int deferred;           /* failed after another: reported once known */
	int termed;             /* sent SIGTERM by the last term_running */
	int status;             /* its wait status */
	int execfd;             /* gets errno if its exec fails, else EOF */
	char why[160];
};

static struct {
	int nprocs, nslots, zstd, keep, timeout;
	int deadlock_report;            /* --deadlock=report */
	const char *host, *out, *partsdir;
	int out_given;                  /* -o named the trace */
	char tmpdir[PATH_MAX], shmpath[PATH_MAX];
	char partsabs[PATH_MAX];        /* partsdir as the processes see it */
	int own_dir;
	char first_failure[64];         /* who failed first */
	int shmfd;
	void *seg;
	size_t segsize;
	struct proc *p;
	pid_t launcher;                 /* piclrun itself, the processes' parent */
	int cleanfd;                    /* to the cleaner (start_cleaner) */
	int lockfd;                     /* --parts-dir, locked (given_partsdir) */
	char identity[1024];            /* the trace's -301 record (say_identity) */
} R = { .out = "trace.picl", .shmfd = -1, .cleanfd = -1, .lockfd = -1 };

static volatile sig_atomic_t interrupted;

/* The signals that stop a run (piclrun catches those it does not inherit
 * ignored: under nohup, SIGHUP stays ignored, for the processes too). */
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
static int caught[sizeof stop_signals / sizeof *stop_signals];

static void on_signal(int sig)
{
	interrupted = sig;
}

/* ---- the segment ---------------------------------------------------------- */

#define RING_MAX ((uint64_t)1 << 30)

/* Rings' data up to this size is reserved whole at the start. */
#define RESERVE_ALL ((uint64_t)64 << 20)

static uint64_t ring_size(int nslots)
{
	const char *e = getenv("PICL_RING_SIZE");
	char *end;
	uint64_t r;

	if (e && *e) {
		errno = 0;
		r = *e >= '0' && *e <= '9' ? strtoull(e, &end, 10) : 0;
		if (r && !*end && !errno && r >= 4096 && r <= RING_MAX && !(r & (r - 1)))
			return r;
		fprintf(stderr, "piclrun: PICL_RING_SIZE must be a power of two "
			"from 4096 to %llu, in decimal; using the default\n",
			(unsigned long long)RING_MAX);
	}
	if (nslots <= 16)
		return 256 * 1024;
	if (nslots <= 64)
		return 64 * 1024;
	return 16 * 1024;
}

/*
 * The settings the processes' libpicl reads (env.h), checked here once,
 * before the start: a bad one is said once for the run ("piclrun:
 * PICL_CMA_MIN must be ...; using the default", as PICL_RING_SIZE), not
 * by every process, and taken out of their environment, where unset
 * means the default. ring: the rings' size (PICL_CHUNK's bound).
 */
static void check_settings(uint64_t ring)
{
	long long v;

	if (picl_env_cma("piclrun", &v) < 0)
		unsetenv("PICL_CMA");
	if (picl_env_cma_min("piclrun", &v) < 0)
		unsetenv("PICL_CMA_MIN");
	if (picl_env_cma_broken("piclrun", &v) < 0)
		unsetenv("PICL_CMA_BROKEN");
	if (picl_env_chunk("piclrun", (long long)(ring / 4 - sizeof(struct picl_frame)),
			   &v) < 0)
		unsetenv("PICL_CHUNK");
	if (picl_env_trace_clock("piclrun") < 0)
		unsetenv("PICL_TRACE_CLOCK");
	if (picl_env_trace_zstd("piclrun", &v) < 0)
		unsetenv("PICL_TRACE_ZSTD");
	if (picl_env_fake_clock("piclrun", &v) < 0)
		unsetenv("PICL_FAKE_CLOCK");
}

/* Where the segment goes: /dev/shm, else the temporary directory. */
static const char *segment_dir(void)
{
	const char *t = getenv("TMPDIR");   /* (empty: unset, as for the parts) */

	return access("/dev/shm", W_OK) == 0 ? "/dev/shm" : t && *t ? t : "/tmp";
}

/* Create the segment's file (empty) under a new name in R.shmpath: its fd,
 * or -1 after saying why. Done by the cleaner (start_cleaner). */
static int create_segment(void)
{
	int fd;

	snprintf(R.shmpath, sizeof R.shmpath, "%s/piclrun.%ld.XXXXXX",
		 segment_dir(), (long)R.launcher);
	fd = mkstemp(R.shmpath);
	if (fd < 0) {
		fprintf(stderr, "piclrun: %s: %s\n", R.shmpath, strerror(errno));
		R.shmpath[0] = 0;
	}
	return fd;
}

/* Size, reserve, map and fill the segment the cleaner created. */
static int make_segment(void)
{
	int dirlen = (int)(strrchr(R.shmpath, '/') - R.shmpath);
	uint64_t rs = ring_size(R.nslots);
	struct picl_shm_head *h;
	uint64_t reserve;
	int fd, err;

	fd = open(R.shmpath, O_RDWR | O_NOFOLLOW);
	if (fd < 0) {
		fprintf(stderr, "piclrun: %s: %s\n", R.shmpath, strerror(errno));
		return -1;
	}
	check_settings(rs);
	R.segsize = picl_shm_size((uint32_t)R.nslots, rs);
	R.shmfd = fd;           /* inherited by the children (PICL_SHM_FD) */
	/* Pages reserved now, not as they are first touched: a file merely
	 * truncated to its size is sparse, and on a full tmpfs the processes
	 * got SIGBUS at their first touch of a page that could not be had.
	 * The head and the rings' indices, which every process reads, always;
	 * the rings' data when it is at most RESERVE_ALL (-n 16 at the
	 * default sizes): beyond, most rings are never used (a program talks
	 * to a few peers) and reserving them all would take memory for
	 * nothing (-n 1024: 16 GiB), so their pages come as they are touched
	 * and a process that cannot have one says so (local.c). */
	if (ftruncate(fd, (off_t)R.segsize) < 0) {
		fprintf(stderr, "piclrun: %s: %s\n", R.shmpath, strerror(errno));
		return -1;
	}
	reserve = picl_shm_data_off((uint32_t)R.nslots);
	if (R.segsize - reserve <= RESERVE_ALL)
		reserve = R.segsize;
	err = posix_fallocate(fd, 0, (off_t)reserve);
	if (err) {
		fprintf(stderr, "piclrun: cannot reserve %llu bytes of shared "
			"memory in %.*s: %s", (unsigned long long)reserve,
			dirlen, R.shmpath, strerror(err));
		if (err == ENOSPC || err == EFBIG)
			fprintf(stderr, " (%d processes, rings of %llu bytes: "
				"see PICL_RING_SIZE in piclrun(1))",
				R.nprocs, (unsigned long long)rs);
		fputc('\n', stderr);
		return -1;
	}
	R.seg = mmap(NULL, R.segsize, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (R.seg == MAP_FAILED) {
		R.seg = NULL;
		fprintf(stderr, "piclrun: mmap: %s\n", strerror(errno));
		return -1;
	}
	h = R.seg;
	h->nslots = (uint32_t)R.nslots;
	h->nprocs = (uint32_t)R.nprocs;
	h->host = R.host ? PICL_HOST : -1;
	h->ring_size = rs;
	h->rings_off = picl_shm_rings_off((uint32_t)R.nslots);
	h->data_off = picl_shm_data_off((uint32_t)R.nslots);
	h->total = R.segsize;
	atomic_thread_fence(memory_order_seq_cst);
	h->magic = PICL_SHM_MAGIC;
	return 0;
}

static struct picl_shm_slot *slot_of(int i)
{
	return picl_shm_slot(R.seg, (uint32_t)i);
}

/* A process marked gone, or the run stopped: every sleeper looks again
 * now (a receiver with nothing coming sleeps up to 640 ms at a time). */
static void wake_all(void)
{
	int i;

	for (i = 0; i < R.nslots; i++) {
		atomic_fetch_add(&slot_of(i)->futex, 1);
		syscall(SYS_futex, (uint32_t *)&slot_of(i)->futex, FUTEX_WAKE,
			1, NULL, NULL, 0);
	}
}

/* ---- starting and watching ------------------------------------------------ */

static void part_path(char *buf, size_t n, int id)
{
	snprintf(buf, n, "%s/part.%d.picl", R.partsdir, id);
}

static void child(int i, char **argv, int execfd)
{
	char v[PATH_MAX], part[PATH_MAX + 32];
	struct proc *p = &R.p[i];
	size_t k;

	setenv("PICL_SHM", R.shmpath, 1);
	snprintf(v, sizeof v, "%d", R.shmfd);
	setenv("PICL_SHM_FD", v, 1);
	snprintf(v, sizeof v, "%d", p->id);
	setenv("PICL_RANK", v, 1);
	snprintf(v, sizeof v, "%d", R.nprocs);
	setenv("PICL_NPROCS", v, 1);
	setenv("PICL_HOSTID", R.host ? "32767" : "-1", 1);
	/* absolute: the program may change directory before it writes */
	snprintf(part, sizeof part, "%s/part.%d.picl", R.partsabs, p->id);
	setenv("PICL_TRACE_PART", part, 1);
	setenv("PICL_TRACE_OUT", R.out, 1);
	for (k = 0; k < sizeof stop_signals / sizeof *stop_signals; k++)
		if (caught[k])
			signal(stop_signals[k], SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	/* Killed with piclrun: a process left waiting for a partner that is
	 * gone, with nobody to stop it, would wait for ever. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != R.launcher)
		_exit(127);
	if (p->id == PICL_HOST)        /* looked for as the program is */
		execlp(R.host, R.host, (char *)NULL);
	else
		execvp(argv[0], argv);
	/* piclrun says it, once (execfd is closed by a successful exec) */
	k = (size_t)errno;
	if (write(execfd, &k, sizeof k) != (ssize_t)sizeof k)
		fprintf(stderr, "piclrun: %s: %s\n",
			p->id == PICL_HOST ? R.host : argv[0], strerror((int)k));
	_exit(127);
}

static int start(char **argv)
{
	int i;

	for (i = 0; i < R.nslots; i++) {
		struct proc *p = &R.p[i];
		int fds[2];

		p->execfd = -1;
		if (pipe2(fds, O_CLOEXEC) < 0) {
			fprintf(stderr, "piclrun: pipe: %s\n", strerror(errno));
			return -1;
		}
		p->pid = fork();
		if (p->pid < 0) {
			fprintf(stderr, "piclrun: fork: %s\n", strerror(errno));
			close(fds[0]);
			close(fds[1]);
			return -1;
		}
		if (p->pid == 0) {
			close(fds[0]);
			child(i, argv, fds[1]);
		}
		close(fds[1]);
		p->execfd = fds[0];
		p->running = 1;
		atomic_store(&slot_of(i)->pid, (int32_t)p->pid);
	}
	return 0;
}

/*
 * Whether every process did start its program: a program that runnable()
 * found may still fail to exec (a missing #! interpreter or ELF loader,
 * arguments too long), and then fails in every process alike; this says
 * it once, as a program that cannot be run, rather than reporting N
 * processes that exited with status 127.
 */
static int started(char **argv)
{
	int i, ok = 1;

	for (i = 0; i < R.nslots; i++) {
		struct proc *p = &R.p[i];
		size_t e;
		ssize_t n;

		if (p->execfd < 0)
			continue;
		while ((n = read(p->execfd, &e, sizeof e)) < 0 && errno == EINTR)
			;
		close(p->execfd);
		p->execfd = -1;
		if (n != (ssize_t)sizeof e || !ok)
			continue;
		ok = 0;
		fprintf(stderr, "piclrun: %s: cannot run it: %s%s\n",
			p->id == PICL_HOST ? R.host : argv[0], strerror((int)e),
			e == ENOENT ? " (is its #! interpreter or ELF loader "
			"missing?)" : "");
	}
	return ok;
}

static void name(char *buf, size_t n, int id)
{
	if (id == PICL_HOST)
		snprintf(buf, n, "the host (processor %d)", PICL_HOST);
	else
		snprintf(buf, n, "process %d", id);
}

static void reaped(struct proc *p, int status)
{
	struct picl_shm_slot *s = slot_of(p->id == PICL_HOST ? R.nprocs : p->id);
	char who[64];
	int st = PICL_ST_DIED, stop_sig;

	p->running = 0;
	p->status = status;
	if (p->failed)          /* already reported (timeout, interrupt) */
		return;
	name(who, sizeof who, p->id);
	stop_sig = WIFEXITED(status) && WEXITSTATUS(status) != 0 ? atomic_load(&s->stop_sig) : 0;
	if (!stop_sig && WIFEXITED(status) && WEXITSTATUS(status) != 0 && !R.first_failure[0] &&
	    atomic_load(&s->after_peer)) {
		/* It failed because another did, which may not have been
		 * reaped yet: that one is named first. */
		p->failed = p->deferred = 1;
		return;
	}
	if (stop_sig) {
		/* It caught a stop signal, failed its next call and wrote
		 * its trace (local.c): said as what happened to it. */
		const char *sn = sigabbrev_np(stop_sig);

		snprintf(p->why, sizeof p->why, "%s was interrupted by SIG%s", who,
			 sn ? sn : "?");
		p->failed = 1;
	} else if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		const char *sn = sigabbrev_np(sig);
		snprintf(p->why, sizeof p->why, "%s was killed by signal SIG%s (%d)",
			 who, sn ? sn : "?", sig);
		p->failed = 1;
	} else if (WEXITSTATUS(status) != 0) {
		snprintf(p->why, sizeof p->why, "%s exited with status %d%s", who,
			 WEXITSTATUS(status), R.first_failure[0] ?
			 " after the failure of " : "");
		if (R.first_failure[0])
			snprintf(p->why + strlen(p->why),
				 sizeof p->why - strlen(p->why), "%s",
				 R.first_failure);
		p->failed = 1;
	} else if (atomic_load(&s->state) != PICL_ST_CLOSED &&
		   atomic_load(&s->state) != PICL_ST_NEW) {
		snprintf(p->why, sizeof p->why, "%s exited without calling close0",
			 who);
		p->failed = 1;
		st = PICL_ST_EXITED;
	}
	if (!p->failed && atomic_load(&s->trace_lost)) {
		/* It ended well, but its trace lacks records (it said why):
		 * a failed run, though not one the others fail after. */
		snprintf(p->why, sizeof p->why, "%s could not write all of its "
			 "trace", who);
		p->failed = 1;
		fprintf(stderr, "piclrun: %s\n", p->why);
		return;
	}
	if (p->failed && !R.first_failure[0])
		snprintf(R.first_failure, sizeof R.first_failure, "%s", who);
	if (p->failed) {
		fprintf(stderr, "piclrun: %s\n", p->why);
		atomic_store(&s->state, st);
		wake_all();
	} else if (atomic_load(&s->state) == PICL_ST_NEW) {
		atomic_store(&s->state, PICL_ST_CLOSED);  /* never opened */
		p->never_opened = 1;
	}
}

/*
 * A process that never called open0 is fine when none did (not a PICL
 * program), a failure when the others did: they wait for it. During the
 * run (at_end 0) it is judged as soon as another has joined (or failed),
 * and marked as gone without close0, so that the others stop waiting for
 * it as for a death; at the end, when any other process called open0.
 */
static void judge_never_opened(int at_end)
{
	int i, any = 0;

	for (i = 0; i < R.nslots; i++)
		if (!R.p[i].never_opened)
			any |= at_end ||
			       atomic_load(&slot_of(i)->state) != PICL_ST_NEW;
	for (i = 0; any && i < R.nslots; i++) {
		struct proc *p = &R.p[i];
		char who[64];

		if (!p->never_opened || p->failed)
			continue;
		name(who, sizeof who, p->id);
		snprintf(p->why, sizeof p->why, "%s exited without calling open0", who);
		p->failed = 1;
		fprintf(stderr, "piclrun: %s\n", p->why);
		if (!R.first_failure[0])
			snprintf(R.first_failure, sizeof R.first_failure, "%s", who);
		atomic_store(&slot_of(i)->state, PICL_ST_EXITED);
		wake_all();
	}
}

/* Report the processes that failed after another (at the end: even when
 * none failed on its own). */
static void report_deferred(int at_end)
{
	int i;

	if (!R.first_failure[0] && !at_end)
		return;
	for (i = 0; i < R.nslots; i++) {
		struct proc *p = &R.p[i];
		char who[64];

		if (!p->deferred)
			continue;
		p->deferred = 0;
		name(who, sizeof who, p->id);
		snprintf(p->why, sizeof p->why, "%s exited with status %d%s", who,
			 WEXITSTATUS(p->status), R.first_failure[0] ? " after the failure of " : "");
		snprintf(p->why + strlen(p->why), sizeof p->why - strlen(p->why), "%s",
			 R.first_failure);
		fprintf(stderr, "piclrun: %s\n", p->why);
		if (!R.first_failure[0])
			snprintf(R.first_failure, sizeof R.first_failure, "%s", who);
	}
}

static int nrunning(void)
{
	int i, n = 0;

	for (i = 0; i < R.nslots; i++)
		n += R.p[i].running;
	return n;
}

static void reap(void)
{
	int status, i;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		for (i = 0; i < R.nslots; i++)
			if (R.p[i].pid == pid && R.p[i].running)
				reaped(&R.p[i], status);
	report_deferred(0);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void nap(void)
{
	struct timespec ts = { 0, 5 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

static void kill_all(int sig)
{
	int i;

	for (i = 0; i < R.nslots; i++)
		if (R.p[i].running)
			kill(R.p[i].pid, sig);
}

/*
 * The end of stop_run's grace: a process still running is computing
 * without PICL calls, and would never fail one. A second stop signal
 * makes it write its part from its handler and die (local.c, api.c's
 * emergency write) instead of being killed with its trace. So one that
 * caught none yet (its slot says: at a --timeout, or when one process
 * alone was signalled) gets a first SIGTERM, which its handler notes, and
 * up to half a second to note it; then every one still running that
 * caught one gets a second SIGTERM (sent to the process alone: its
 * writer ignores it anyway), and up to SECOND_WAIT seconds, as long as
 * the writer's own alarm. The two are not sent at once: a signal pending
 * twice is delivered once. A process whose program handles or ignores
 * SIGTERM itself does what its program says, and is killed as before if
 * it goes on.
 */
#define SECOND_WAIT 5

/* SIGTERM to each process still running whose slot shows a stop signal
 * caught (had_one 1) or none (had_one 0), marked termed. How many. */
static int term_running(int had_one)
{
	int i, n = 0;

	for (i = 0; i < R.nslots; i++) {
		R.p[i].termed = 0;
		if (R.p[i].running && (atomic_load(&slot_of(i)->stop_sig) != 0) == had_one &&
		    kill(R.p[i].pid, SIGTERM) == 0) {
			R.p[i].termed = 1;
			n++;
		}
	}
	return n;
}

/* How many of those term_running sent SIGTERM still run (unnoted: and
 * have not noted a stop signal in their slot yet). */
static int ntermed(int unnoted)
{
	int i, n = 0;

	for (i = 0; i < R.nslots; i++)
		n += R.p[i].running && R.p[i].termed &&
		     !(unnoted && atomic_load(&slot_of(i)->stop_sig));
	return n;
}

/* Reaps and waits up to secs seconds while ntermed(unnoted). */
static void wait_termed(double secs, int unnoted)
{
	double until = now() + secs;

	while (ntermed(unnoted) && now() < until) {
		reap();
		nap();
	}
}

/* Says who is still running and on what ("reason: process 0 still
 * blocked waiting for a message"); stopping, marks each failed, with
 * that as its why. */
static void report_running(const char *reason, int stopping)
{
	int i;

	for (i = 0; i < R.nslots; i++) {
		struct proc *p = &R.p[i];
		struct picl_shm_slot *s = slot_of(i);
		char who[64], on[64] = "running", why[sizeof p->why];
		if (!p->running)
			continue;
		name(who, sizeof who, p->id);
		if (atomic_load(&s->blocked) == PICL_BL_RECV)
			snprintf(on, sizeof on, "blocked waiting for a message");
		else if (atomic_load(&s->blocked) == PICL_BL_SEND)
			snprintf(on, sizeof on, "blocked sending to %d",
				 atomic_load(&s->blocked_on));
		snprintf(why, sizeof why, "%s: %s still %s", reason, who, on);
		fprintf(stderr, "piclrun: %s\n", why);
		if (stopping) {
			memcpy(p->why, why, sizeof why);
			p->failed = 1;
		}
	}
}

/* The deadline passed (or we were interrupted, or deadlocked): say who is
 * still running and on what, ask them to stop, then kill what is left
 * (after a second signal to those that caught a first one). */
static void stop_run(const char *reason)
{
	double until;

	report_running(reason, 1);
	atomic_store(&((struct picl_shm_head *)R.seg)->stop, 1);
	wake_all();
	until = now() + 2;
	while (nrunning() && now() < until) {
		reap();
		nap();
	}
	if (term_running(0))
		wait_termed(0.5, 1);
	if (term_running(1))
		wait_termed(SECOND_WAIT, 0);
	kill_all(SIGKILL);
	while (nrunning()) {
		int status, j;
		pid_t pid = wait(&status);
		if (pid < 0)
			break;
		for (j = 0; j < R.nslots; j++)
			if (R.p[j].pid == pid)
				R.p[j].running = 0;
	}
}

/* The first process that caught a stop signal (SIGINT, SIGTERM, SIGHUP:
 * libpicl notes it in its slot and fails its next call, local.c), or -1. */
static int caught_stop(void)
{
	int i;

	for (i = 0; i < R.nslots; i++)
		if (atomic_load(&slot_of(i)->stop_sig))
			return i;
	return -1;
}

/*
 * A deadlock: every process still running that has not closed has opened
 * and waits for a message (its slot's `blocked`, which local.c sets while
 * a receive waits), and every ring into them is empty (head == tail).
 * Then nothing can ever arrive: only a process that is not waiting could
 * send, and one that closed cannot. (One that has not reached open0 yet,
 * or computes, or waits for room to send, may still send: no deadlock.)
 * The slots and the rings are read one after the other, not at one
 * instant, so the slots must say so at DEADLOCK_SAMPLES samples in a
 * row, DEADLOCK_EVERY naps apart, and the rings be empty at the first
 * and the last with no ring written in between (the sum of their heads,
 * which only grow, the same): a process that left its wait in between
 * was woken by a message, which moved a head, or still has it in a ring.
 * (The rings are read at those two samples only: at -n 1024 they are a
 * million, 128 MB of indices.) Returns 1 when deadlocked.
 */
#define DEADLOCK_EVERY 20       /* naps: 100 ms */
#define DEADLOCK_SAMPLES 5

/* 1 if every process running and not closed waits for a message (and
 * one does at least). */
static int all_waiting(void)
{
	int i, n = 0;

	for (i = 0; i < R.nslots; i++) {
		struct picl_shm_slot *s = slot_of(i);
		int32_t st = atomic_load(&s->state);

		if (!R.p[i].running || st == PICL_ST_CLOSED)
			continue;
		if (st != PICL_ST_RUNNING ||
		    atomic_load(&s->blocked) != PICL_BL_RECV)
			return 0;
		n++;
	}
	return n > 0;
}

/* 1 if no ring into a process still running and not closed holds a
 * message; *heads is the sum of their heads. */
static int rings_empty(uint64_t *heads)
{
	int i, j;

	*heads = 0;
	for (i = 0; i < R.nslots; i++) {
		/* what it was sent stays unread */
		if (!R.p[i].running ||
		    atomic_load(&slot_of(i)->state) == PICL_ST_CLOSED)
			continue;
		for (j = 0; j < R.nslots; j++) {
			struct picl_ring_ctl *r;
			uint64_t h;

			if (j == i)
				continue;
			r = picl_shm_ring(R.seg, (uint32_t)j, (uint32_t)i);
			h = atomic_load(&r->head);
			if (h != atomic_load(&r->tail))
				return 0;
			*heads += h;
		}
	}
	return 1;
}

static int deadlocked(void)
{
	static unsigned naps, seen;
	static uint64_t heads_seen;
	uint64_t heads;

	if (++naps % DEADLOCK_EVERY)
		return 0;
	if (!all_waiting())
		return (int)(seen = 0);
	if (!seen) {
		if (rings_empty(&heads_seen))
			seen = 1;
		return 0;
	}
	if (++seen < DEADLOCK_SAMPLES)
		return 0;
	if (rings_empty(&heads) && heads == heads_seen)
		return 1;
	seen = 0;
	return 0;
}

static void watch(void)
{
	double deadline = R.timeout > 0 ? now() + R.timeout : 0;
	char reason[96], who[64];
	int i, reported = 0;

	while (nrunning()) {
		reap();
		judge_never_opened(0);
		if (!nrunning())
			break;
		if (interrupted) {
			const char *sn = sigabbrev_np(interrupted);

			snprintf(reason, sizeof reason, "interrupted by SIG%s",
				 sn ? sn : "?");
			stop_run(reason);
			break;
		}
		/* a signal sent to one process (kill PID): the others would
		 * wait for it for ever, or fail one by one */
		if ((i = caught_stop()) >= 0) {
			const char *sn = sigabbrev_np(atomic_load(&slot_of(i)->stop_sig));

			name(who, sizeof who, R.p[i].id);
			snprintf(reason, sizeof reason, "%s caught SIG%s", who, sn ? sn : "?");
			stop_run(reason);
			break;
		}
		if (deadline && now() >= deadline) {
			snprintf(reason, sizeof reason, "timeout after %d s",
				 R.timeout);
			stop_run(reason);
			break;
		}
		if (!reported && deadlocked()) {
			fprintf(stderr, "piclrun: deadlock: every process left "
				"waits for a message, and none is on its way%s\n",
				R.deadlock_report ? "; they are left waiting "
				"(--deadlock=report)" : "");
			if (!R.deadlock_report) {
				stop_run("deadlock");
				break;
			}
			report_running("deadlock", 0);
			reported = 1;
		}
		nap();
	}
}

/* ---- merging -------------------------------------------------------------- */

#define MAXOPEN 64

/* What the merge needs to know about one process's part. */
struct partinfo {
	double tmax;            /* largest timestamp */
	long whole;             /* bytes up to the last complete line, or -1
				 * for a part that is not text */
	int open[MAXOPEN];      /* events entered and not exited, innermost last */
	int nopen;
};

/* One line of a part (at most its first 511 bytes): its time, and the
 * entries it opens or closes (-3 push; -4 pops the innermost open entry of
 * its event, as the readers match). */
static void scan_line(struct partinfo *pi, const char *line)
{
	char *end, *p;
	long rec = strtol(line, &end, 10), ev;
	double t;

	ev = strtol(end, &p, 10);
	t = strtod(p, &end);
	if (end != p && t > pi->tmax)
		pi->tmax = t;
	if (rec == -3 && pi->nopen < MAXOPEN) {
		pi->open[pi->nopen++] = (int)ev;
	} else if (rec == -4) {
		int k;

		for (k = pi->nopen - 1; k >= 0 && pi->open[k] != ev; k--)
			;
		if (k >= 0) {
			memmove(pi->open + k, pi->open + k + 1,
				(size_t)(pi->nopen - k - 1) * sizeof(pi->open[0]));
			pi->nopen--;
		}
	}
}

/*
 * A zstd part (PICL_TRACE_ZSTD=1: one frame per flush): its lines through
 * scan_line, and `whole` at the end of the last complete frame; what a
 * frame cut short by a killed process held does not count.
 */
static void scan_zstd(FILE *f, struct partinfo *pi)
{
	ZSTD_DStream *ds = ZSTD_createDStream();
	char in[1 << 16], out[1 << 16], line[512];
	struct partinfo done = *pi;     /* as of the last complete frame */
	size_t n, ln = 0, hint = 0;
	long pos = 0;

	if (!ds)
		return;
	pi->whole = done.whole = 0;
	while ((n = fread(in, 1, sizeof in, f)) > 0) {
		ZSTD_inBuffer ib = { in, n, 0 };

		while (ib.pos < ib.size) {
			ZSTD_outBuffer ob = { out, sizeof out, 0 };
			size_t k;

			hint = ZSTD_decompressStream(ds, &ob, &ib);
			if (ZSTD_isError(hint)) {
				ZSTD_freeDStream(ds);
				*pi = done;     /* garbage: keep what was whole */
				return;
			}
			for (k = 0; k < ob.pos; k++) {
				char c = out[k];

				if (c == '\n') {     /* a line's start decides */
					line[ln] = '\0';
					scan_line(pi, line);
					ln = 0;
				} else if (ln < sizeof line - 1) {
					line[ln++] = c;
				}
			}
			if (hint == 0) {        /* a frame ends here */
				pi->whole = pos + (long)ib.pos;
				done = *pi;
			}
		}
		pos += (long)n;
	}
	ZSTD_freeDStream(ds);
	if (hint != 0)
		*pi = done;     /* the last frame is incomplete */
}

/* Scan a part (text, or zstd): its last time, and the entries left open
 * when the process stopped. With `reset` 0 the scan goes on from *pi (a
 * process's own files follow its part). */
static void scan_part(const char *path, struct partinfo *pi, int reset)
{
	FILE *f = fopen(path, "r");
	char line[512];

	if (reset)
		memset(pi, 0, sizeof *pi);
	pi->whole = -1;
	if (!f)
		return;
	if (fread(line, 1, 4, f) == 4 && memcmp(line, "\x28\xb5\x2f\xfd", 4) == 0) {
		rewind(f);
		scan_zstd(f, pi);
		fclose(f);
		return;
	}
	rewind(f);
	pi->whole = 0;
	while (fgets(line, sizeof line, f)) {
		if (!strchr(line, '\n')) {     /* skip the rest of a long line */
			int c;
			while ((c = getc(f)) != EOF && c != '\n')
				;
			/* A last line without its newline (the process was
			 * killed while writing it) is cut off: what it says
			 * must not count (an exit half written once made the
			 * entry it would close look closed). */
			if (c == EOF)
				break;
		}
		scan_line(pi, line);
		pi->whole = ftell(f);
	}
	fclose(f);
}

/* A process killed while writing leaves half a line: cut it off. */
static void cut_partial_line(const char *path, const struct partinfo *pi)
{
	struct stat st;

	if (pi->whole >= 0 && stat(path, &st) == 0 && st.st_size > pi->whole &&
	    truncate(path, pi->whole) < 0)
		fprintf(stderr, "piclrun: %s: %s\n", path, strerror(errno));
}

/*
 * Write <parts>/partial.picl: for each failed process, a -7 record saying
 * why the trace is partial and, when its part stops inside events (a
 * process killed in the middle of a call), exits closing them, so the
 * merged trace still nests properly. All at time t, the end of the run.
 */
static int write_partial(char *path, size_t n, double t,
			 const struct partinfo *info)
{
	FILE *f;
	int i, k;

	snprintf(path, n, "%s/partial.picl", R.partsdir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	for (i = 0; i < R.nslots; i++) {
		char text[256];
		if (!R.p[i].failed)
			continue;
		snprintf(text, sizeof text, "piclrun: partial trace: %s",
			 R.p[i].why);
		fprintf(f, "-7 -1 %.6f %d 0 %zu 0 %s\n", t, R.p[i].id,
			strlen(text), text);
		for (k = info[i].nopen - 1; k >= 0; k--)
			fprintf(f, "-4 %d %.6f %d 0 0\n", info[i].open[k], t,
				R.p[i].id);
	}
	return fclose(f);
}

static int executable(const char *p)
{
	return access(p, X_OK) == 0;
}

/* Whether execvp would find prog (a path, or a name on PATH) as a file it
 * may execute, with that file's stat in *found: 0 if so, else why not (an
 * errno; -1 for a name found nowhere on PATH). */
static int locate(const char *prog, struct stat *found)
{
	const char *path = getenv("PATH"), *p, *colon;
	char buf[PATH_MAX];

	if (strchr(prog, '/')) {
		if (stat(prog, found) == 0 && S_ISREG(found->st_mode) && executable(prog))
			return 0;
		return stat(prog, found) < 0 ? errno : S_ISREG(found->st_mode) ? EACCES : EISDIR;
	}
	for (p = path && *path ? path : "/usr/local/bin:/usr/bin:/bin"; p; p = colon ? colon + 1 : NULL) {
		size_t n;

		colon = strchr(p, ':');
		n = colon ? (size_t)(colon - p) : strlen(p);
		if (snprintf(buf, sizeof buf, "%.*s%s%s", (int)n, p, n ? "/" : "", prog) >=
		    (int)sizeof buf)
			continue;
		if (stat(buf, found) == 0 && S_ISREG(found->st_mode) && executable(buf))
			return 0;
	}
	return -1;
}

/* locate(), saying why not once, rather than once per process. */
static int runnable(const char *prog, struct stat *found)
{
	int e = locate(prog, found);
	struct stat here;

	if (e > 0)
		fprintf(stderr, "piclrun: %s: %s\n", prog, strerror(e));
	else if (e < 0 && stat(prog, &here) == 0 && S_ISDIR(here.st_mode))
		/* (not "the one here is ./d": ./d would be refused in turn) */
		fprintf(stderr, "piclrun: %s: command not found (not on PATH; "
			"./%s is a directory)\n", prog, prog);
	else if (e < 0 && stat(prog, &here) == 0 && !executable(prog))
		fprintf(stderr, "piclrun: %s: command not found (not on PATH; "
			"./%s is not executable)\n", prog, prog);
	else if (e < 0 && access(prog, F_OK) == 0)
		/* as a shell, PATH only; but the user meant this one */
		fprintf(stderr, "piclrun: %s: command not found (not on PATH; the "
			"one in this directory is ./%s)\n", prog, prog);
	else if (e < 0)
		fprintf(stderr, "piclrun: %s: command not found\n", prog);
	return e == 0;
}

/* The picltrace that merges the parts into buf; 1 when it is
 * $PICL_PICLTRACE (for messages), else 0. */
static int find_picltrace(char *buf, size_t n)
{
	const char *e = getenv("PICL_PICLTRACE");
	char self[PATH_MAX - 64];
	ssize_t k;
	char *slash;

	if (e && *e) {
		snprintf(buf, n, "%s", e);
		return 1;
	}
	k = readlink("/proc/self/exe", self, sizeof self - 1);
	if (k > 0) {
		self[k] = 0;
		slash = strrchr(self, '/');
		if (slash) {
			*slash = 0;
			snprintf(buf, n, "%s/picltrace", self);
			if (executable(buf))
				return 0;
			snprintf(buf, n, "%s/../picltrace/picltrace", self);
			if (executable(buf))
				return 0;
		}
	}
	snprintf(buf, n, "picltrace");
	return 0;
}

/* word to stderr as the shell reads it back: as is when it holds only
 * characters the shell takes literally, else in single quotes. */
static void put_word(const char *word)
{
	const char *c;

	if (*word && strspn(word, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			    "0123456789_./=+,:@%-") == strlen(word)) {
		fputs(word, stderr);
		return;
	}
	fputc('\'', stderr);
	for (c = word; *c; c++)
		if (*c == '\'')
			fputs("'\\''", stderr);
		else
			fputc(*c, stderr);
	fputc('\'', stderr);
}

/*
 * The merge failed: the parts stay where they are (main does not remove
 * them), and the user is told where and how to merge them by hand:
 * files[0..n) are the files of this run to merge (the parts, the
 * processes' own files, the partial part), named one by one, since the
 * parts dir may hold parts of other runs. files NULL: only the place.
 */
static void say_kept(char *const *files, int n)
{
	int i;

	fprintf(stderr, "piclrun: the trace parts are kept in %s", R.partsdir);
	if (!files) {
		fputc('\n', stderr);
		return;
	}
	fprintf(stderr, "; merge them with\n  picltrace merge --unsorted%s -o ",
		R.zstd ? " -z" : "");
	put_word(R.out);
	for (i = 0; i < n; i++) {
		fputc(' ', stderr);
		put_word(files[i]);
	}
	fputc('\n', stderr);
}

/* Room in argv for 4 more entries (a file, the partial part, NULL). */
static int argv_room(char ***argv, int k, int *cap)
{
	char **a;

	if (k + 4 < *cap)
		return 0;
	a = realloc(*argv, (size_t)(*cap * 2) * sizeof **argv);
	if (!a)
		return -1;
	memset(a + *cap, 0, (size_t)*cap * sizeof *a);
	*argv = a;
	*cap *= 2;
	return 0;
}

/*
 * The files a process named with tracefiles() instead of its part, as
 * trace.c lists them in "<part>.files": added to argv[*k..] (growing it)
 * unless already there. Their last times raise *t.
 */
static int add_own_files(const char *part, char ***argv, int *k, int *cap, int first,
			 double *t, struct partinfo *pi, int failed)
{
	char list[PATH_MAX], line[PATH_MAX + 2];
	FILE *f;
	int j;

	if (strlen(part) + 7 > sizeof list)
		return 0;
	memcpy(list, part, strlen(part));
	memcpy(list + strlen(part), ".files", 7);
	f = fopen(list, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof line, f)) {
		size_t n = strcspn(line, "\n");

		line[n] = '\0';
		if (n == 0 || access(line, R_OK) != 0)
			continue;
		for (j = first; j < *k; j++)
			if (strcmp((*argv)[j], line) == 0)
				break;
		if (j < *k)
			continue;
		if (argv_room(argv, *k, cap) < 0 || !((*argv)[*k] = strdup(line))) {
			fclose(f);
			return -1;
		}
		(*k)++;
		scan_part(line, pi, 0);         /* the process's entries go on */
		if (failed)
			cut_partial_line(line, pi);
		if (pi->tmax > *t)
			*t = pi->tmax;
	}
	fclose(f);
	return 0;
}

static int merge(int partial)
{
	char **argv, pt[PATH_MAX], path[PATH_MAX], extra[PATH_MAX];
	int i, k = 0, first, nparts = 0, status, cap = R.nslots + 16;
	double t = 0;
	struct partinfo *info;
	pid_t pid;
	int from_env;

	argv = calloc((size_t)cap, sizeof *argv);
	info = calloc((size_t)R.nslots, sizeof *info);
	if (!argv || !info) {
		free(argv);
		free(info);
		fprintf(stderr, "piclrun: out of memory\n");
		say_kept(NULL, 0);
		return -1;
	}
	from_env = find_picltrace(pt, sizeof pt);
	argv[k++] = pt;
	argv[k++] = "merge";
	argv[k++] = "--unsorted";
	argv[k++] = "--quiet";
	argv[k++] = "--identity";
	argv[k++] = R.identity;
	if (!R.keep)            /* the parts' names would name nothing */
		argv[k++] = "--no-sources";
	if (R.zstd)
		argv[k++] = "-z";
	argv[k++] = "-o";
	argv[k++] = (char *)R.out;
	first = k;
	for (i = 0; i < R.nslots; i++) {
		part_path(path, sizeof path, R.p[i].id);
		if (access(path, R_OK) == 0) {
			if (argv_room(&argv, k, &cap) < 0 || !(argv[k] = strdup(path)))
				goto nomem;
			k++;
			scan_part(path, &info[i], 1);
			if (R.p[i].failed)
				cut_partial_line(path, &info[i]);
			if (info[i].tmax > t)
				t = info[i].tmax;
		}
		if (add_own_files(path, &argv, &k, &cap, first, &t, &info[i], R.p[i].failed) < 0)
			goto nomem;
	}
	nparts = k - first;
	if (nparts == 0) {
		if (partial)
			fprintf(stderr, "piclrun: no trace parts to merge\n");
		else if (strcmp(R.out, "-") != 0 && access(R.out, F_OK) == 0)
			fprintf(stderr, "piclrun: no process wrote a trace; %s is "
				"left as it was\n", R.out);
		else if (R.out_given)   /* asked for, so it is missed */
			fprintf(stderr, "piclrun: no process wrote a trace (none called "
				"tracenode): nothing written to %s\n",
				strcmp(R.out, "-") == 0 ? "standard output" : R.out);
		free(argv);
		free(info);
		return 0;
	}
	if (partial) {
		if (write_partial(extra, sizeof extra, t, info) == 0)
			argv[k++] = extra;
		else
			fprintf(stderr, "piclrun: %s: %s\n", extra, strerror(errno));
	}
	pid = fork();
	if (pid == 0) {
		signal(SIGPIPE, SIG_DFL);
		execvp(argv[0], argv);
		fprintf(stderr, "piclrun: %s%s: cannot run it to merge the trace "
			"parts: %s\n", from_env ? "PICL_PICLTRACE=" : "", argv[0],
			strerror(errno));
		_exit(127);
	}
	status = -1;
	if (pid > 0)
		waitpid(pid, &status, 0);
	else
		fprintf(stderr, "piclrun: fork: %s\n", strerror(errno));
	if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		fprintf(stderr, "piclrun: merging the trace parts into %s failed\n",
			R.out);
		say_kept(argv + first, k - first);
		status = -1;
	} else {
		status = 1;
	}
	for (i = first; i < first + nparts; i++)
		free(argv[i]);
	free(argv);
	free(info);
	return status;
nomem:
	fprintf(stderr, "piclrun: out of memory\n");
	say_kept(NULL, 0);
	for (i = first; i < k; i++)
		free(argv[i]);
	free(argv);
	free(info);
	return -1;
}

/* Remove the parts of this run's processes (and their lists of own files,
 * and the partial part) from the parts dir. */
static void unlink_parts(void)
{
	char path[PATH_MAX];
	int i;

	for (i = 0; i < R.nslots; i++) {
		size_t n;

		part_path(path, sizeof path, R.p[i].id);
		unlink(path);
		n = strlen(path);
		if (n + 7 < sizeof path) {
			memcpy(path + n, ".files", 7);
			unlink(path);
		}
	}
	snprintf(path, sizeof path, "%s/partial.picl", R.partsdir);
	unlink(path);
}

static void remove_parts(void)
{
	if (R.keep) {
		if (R.own_dir)   /* nobody else knows where they are */
			fprintf(stderr, "piclrun: trace parts kept in %s\n", R.partsdir);
		return;
	}
	unlink_parts();
	if (R.own_dir)
		rmdir(R.partsdir);
}

/* Whether out is the program prog (any name for the same file: a link to
 * it, symbolic or hard); says so, as `what`. */
static int is_program(const char *out, const struct stat *prog, const char *what)
{
	struct stat st;

	if (strcmp(out, "-") == 0 || stat(out, &st) < 0 ||
	    st.st_dev != prog->st_dev || st.st_ino != prog->st_ino)
		return 0;
	fprintf(stderr, "piclrun: %s: the output is %s; refusing to overwrite it\n",
		out, what);
	return 1;
}

/*
 * Whether out is a file of this run's in --parts-dir (part.N.picl,
 * part.N.picl.files, partial.picl): removed before the start as an
 * earlier run's, then an input of the merge that was to write it, which
 * refused it only after the whole run. Says so.
 */
static int is_part_file(const char *out)
{
	char dir[PATH_MAX];
	const char *base = strrchr(out, '/'), *p;
	struct stat a, b;
	int ours;

	if (!R.partsdir || strcmp(out, "-") == 0)
		return 0;
	base = base ? base + 1 : out;
	if (strncmp(base, "part.", 5) == 0) {
		for (p = base + 5; *p >= '0' && *p <= '9'; p++)
			;
		ours = p > base + 5 && (strcmp(p, ".picl") == 0 ||
					strcmp(p, ".picl.files") == 0);
	} else {
		ours = strcmp(base, "partial.picl") == 0;
	}
	if (!ours)
		return 0;
	if (base == out)
		snprintf(dir, sizeof dir, ".");
	else if (snprintf(dir, sizeof dir, "%.*s", (int)(base - out), out) >=
		 (int)sizeof dir)
		return 0;
	if (stat(dir, &a) < 0 || stat(R.partsdir, &b) < 0 ||
	    a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		return 0;
	fprintf(stderr, "piclrun: %s: the output would be one of the trace parts "
		"in --parts-dir %s; refusing it\n", out, R.partsdir);
	return 1;
}

/*
 * Whether the merge will be able to write the trace to out, as picltrace
 * writes its outputs: "-" and devices directly, anything else through a
 * temporary file in the directory of the file (of its target, for a
 * symbolic link), renamed onto it. Checked before the program runs, which
 * would otherwise be lost at the end; says why not.
 */
static int writable_out(const char *out)
{
	char dir[PATH_MAX], *slash;
	struct stat st;
	int e = 0;

	if (strcmp(out, "-") == 0)
		return 1;
	if (stat(out, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			e = EISDIR;
		else if (access(out, W_OK) < 0)
			e = errno;
		else if (!S_ISREG(st.st_mode))
			return 1;       /* a device, a FIFO: written directly */
		else if (!realpath(out, dir))
			e = errno;
	} else if (errno != ENOENT) {
		e = errno;
	} else if (snprintf(dir, sizeof dir, "%s", out) >= (int)sizeof dir) {
		e = ENAMETOOLONG;
	}
	if (e) {
		fprintf(stderr, "piclrun: cannot write the trace to %s: %s\n", out,
			strerror(e));
		return 0;
	}
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else
		slash[slash == dir] = '\0';      /* "/x" is in "/" */
	if (stat(dir, &st) < 0)
		e = errno;
	else if (!S_ISDIR(st.st_mode))
		e = ENOTDIR;
	else if (access(dir, W_OK | X_OK) < 0)
		e = errno;
	if (e) {
		fprintf(stderr, "piclrun: cannot write the trace to %s: %s: %s\n",
			out, dir, strerror(e));
		return 0;
	}
	return 1;
}

/*
 * Whether the picltrace that will merge the parts can be run: checked
 * before the program runs, which would otherwise be lost at the merge.
 */
static int picltrace_ok(void)
{
	char pt[PATH_MAX];
	struct stat st;
	int from_env = find_picltrace(pt, sizeof pt), e = locate(pt, &st);

	if (e == 0)
		return 1;
	if (from_env)
		fprintf(stderr, "piclrun: PICL_PICLTRACE=%s: cannot run it to merge "
			"the trace parts: %s\n", pt, e > 0 ? strerror(e) :
			"command not found");
	else
		fprintf(stderr, "piclrun: picltrace, which merges the trace parts, is "
			"not beside piclrun nor on PATH; name it in PICL_PICLTRACE\n");
	return 0;
}

/* ---- main ----------------------------------------------------------------- */

/*
 * A whole number option argument in [lo, hi]: decimal digits and nothing
 * else (no '+', no blanks, not empty), as picltrace's options read them
 * (picltrace_parse_int in picltrace/util.c, which piclrun does not link:
 * this is its copy for positive numbers). 0 with *out set, or -1.
 */
static int whole_number(const char *s, long lo, long hi, long *out)
{
	long v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (LONG_MAX - 9) / 10)
			return -1;
		v = v * 10 + (*s - '0');
	}
	if (v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static int parse(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "nprocs", required_argument, NULL, 'n' },
		{ "host", required_argument, NULL, 'H' },
		{ "output", required_argument, NULL, 'o' },
		{ "zstd", no_argument, NULL, 'z' },
		{ "keep-parts", no_argument, NULL, 'k' },
		{ "timeout", required_argument, NULL, 't' },
		{ "deadlock", required_argument, NULL, 'D' },
		{ "parts-dir", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	int c;
	long v;

	argv[0] = (char *)"piclrun";   /* getopt's messages name it so */
	while ((c = getopt_long(argc, argv, "+n:o:zt:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (whole_number(optarg, 1, 1024, &v) < 0) {
				fprintf(stderr, "piclrun: -n %s: the number of "
					"processes must be 1 to 1024\n", optarg);
				return -1;
			}
			R.nprocs = (int)v;
			break;
		case 'H': R.host = optarg; break;
		case 'o': R.out = optarg; R.out_given = 1; break;
		case 'p': R.partsdir = optarg; break;
		case 'z': R.zstd = 1; break;
		case 'k': R.keep = 1; break;
		case 't':
			if (whole_number(optarg, 1, INT_MAX, &v) < 0) {
				fprintf(stderr, "piclrun: --timeout %s: give a whole "
					"number of seconds, 1 or more\n", optarg);
				return -1;
			}
			R.timeout = (int)v;
			break;
		case 'D':
			if (strcmp(optarg, "stop") != 0 &&
			    strcmp(optarg, "report") != 0) {
				fprintf(stderr, "piclrun: --deadlock %s: give "
					"stop or report\n", optarg);
				return -1;
			}
			R.deadlock_report = optarg[0] == 'r';
			break;
		case 'h': fputs(usage, stdout); exit(0);
		case 'V': printf("piclrun %s\n", PACKAGE_VERSION); exit(0);
		default: fputs(usage, stderr); return -1;
		}
		/* An empty name, as a shell gives for an unset variable
		 * (-o "$OUT"): -o '' was found out only at the merge, after
		 * the whole run, and --host '' or --parts-dir '' said
		 * "piclrun: : No such file or directory". */
		if ((c == 'H' || c == 'o' || c == 'p') && !*optarg) {
			fprintf(stderr, "piclrun: %s name is empty\n",
				c == 'H' ? "--host: the host program's" :
				c == 'o' ? "-o: the output's" :
				"--parts-dir: the directory's");
			return -1;
		}
	}
	if (!R.nprocs || optind >= argc || !*argv[optind]) {
		fprintf(stderr, "piclrun: %s\n", !R.nprocs ? "-n N is required" :
			optind >= argc ? "no program given" :
			"the program's name is empty");
		fputs(usage, stderr);
		return -1;
	}
	/* -z without -o: a name that says what the file holds (picltrace
	 * merge compresses a *.zst output in any case) */
	if (R.zstd && !R.out_given)
		R.out = "trace.picl.zst";
	return optind;
}

/* A parts dir given by --parts-dir: made if need be (and kept). */
static int given_partsdir(void)
{
	struct stat st;
	int e = 0;

	/* (an existing file is no directory: the processes could not
	 * write their parts, and the run would end well with no trace) */
	if (mkdir(R.partsdir, 0777) < 0 && errno != EEXIST)
		e = errno;
	else if (stat(R.partsdir, &st) < 0)
		e = errno;
	else if (!S_ISDIR(st.st_mode))
		e = ENOTDIR;
	else if (access(R.partsdir, W_OK | X_OK) < 0)
		e = errno;
	if (e) {
		fprintf(stderr, "piclrun: %s: %s\n", R.partsdir, strerror(e));
		return -1;
	}
	/* One run at a time: another's parts would be removed below as an
	 * earlier run's, or written over (the same names), and that run
	 * would merge nothing. The lock is the open directory's: the
	 * cleaner inherits it (it removes the parts if piclrun is killed),
	 * piclrun drops it at its end. Where locks are not had (ENOLCK),
	 * runs go on unlocked. */
	R.lockfd = open(R.partsdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (R.lockfd >= 0 && flock(R.lockfd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EWOULDBLOCK) {
			fprintf(stderr, "piclrun: %s: another piclrun is using it "
				"as its parts directory\n", R.partsdir);
			close(R.lockfd);
			R.lockfd = -1;
			return -1;
		}
		close(R.lockfd);
		R.lockfd = -1;
	}
	/* Parts an earlier run left there under the names this run's take
	 * would be merged as this run's when a process writes none, and
	 * their lists of files would make the processes append to files
	 * they should empty. */
	unlink_parts();
	return 0;
}

/* Make piclrun's own parts dir, a new one in the temporary directory;
 * done by the cleaner (start_cleaner). */
static int create_partsdir(void)
{
	const char *t = getenv("TMPDIR");

	snprintf(R.tmpdir, sizeof R.tmpdir, "%s/piclrun.XXXXXX",
		 t && *t ? t : "/tmp");
	if (!mkdtemp(R.tmpdir)) {
		/* (the name alone, piclrun.aQZLNc, did not say where it came
		 * from) */
		fprintf(stderr, "piclrun: cannot make a temporary directory for "
			"the trace parts in %s%s: %s\n", t && *t ? "TMPDIR=" : "",
			t && *t ? t : "/tmp", strerror(errno));
		R.tmpdir[0] = 0;
		return -1;
	}
	R.partsdir = R.tmpdir;
	R.own_dir = 1;
	return 0;
}

/* ---- cleaning up after a piclrun that was killed ----------------------------- */

/* Whether process pid has ended (a zombie has: nobody may reap it soon). */
static int ended(pid_t pid)
{
	char path[64], buf[256], *p;
	ssize_t n;
	int fd;

	if (pid <= 0 || (kill(pid, 0) < 0 && errno == ESRCH))
		return 1;
	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

/*
 * The cleaner: piclrun's processes die with it (PR_SET_PDEATHSIG), but a
 * piclrun killed by SIGKILL would leave its parts directory and the
 * segment's file behind. So the cleaner makes both (piclrun's own parts
 * directory, not one named by --parts-dir), tells piclrun their names
 * (on `reply`), and only then waits on a pipe (`fd`) whose writing end
 * only piclrun holds: it reads EOF when piclrun ends however it ends, and
 * one byte first when piclrun has cleaned up itself. There is no moment
 * when either exists and nobody would remove it: before the cleaner
 * makes them, nothing is left; after, the cleaner is there to see
 * piclrun go (it makes them even when piclrun is already gone, and then
 * reads EOF at once).
 * Without that byte, the cleaner waits (up to 10 s) for the processes,
 * whose pids piclrun put in the segment, to be gone (a process writes its
 * part as it dies), then does what piclrun would have: removes the
 * segment's name and the parts (kept with --keep-parts, when any) and the
 * directory it made.
 * It is a grandchild of piclrun (piclrun's waits for its processes never
 * see it) in a session of its own (a signal to piclrun's process group,
 * which has the processes, does not reach it). A stale directory names no
 * process that would still run, unlike one found later by name.
 */
struct made {
	char ok;
	char tmpdir[PATH_MAX], shmpath[PATH_MAX];
};

static void cleaner(int fd, int reply)
{
	struct picl_shm_slot *slots;
	struct made m;
	size_t len = (size_t)R.nslots * sizeof *slots;
	char c;
	ssize_t n;
	int i, k, segfd = -1;

	signal(SIGPIPE, SIG_IGN);      /* piclrun may be gone already */
	memset(&m, 0, sizeof m);
	if ((R.partsdir || create_partsdir() == 0) &&
	    (segfd = create_segment()) >= 0)
		m.ok = 1;
	else if (R.own_dir)
		rmdir(R.partsdir);
	snprintf(m.tmpdir, sizeof m.tmpdir, "%s", R.tmpdir);
	snprintf(m.shmpath, sizeof m.shmpath, "%s", R.shmpath);
	n = write(reply, &m, sizeof m);
	(void)n;
	close(reply);
	if (!m.ok)
		_exit(0);
	while ((n = read(fd, &c, 1)) < 0 && errno == EINTR)
		;
	if (n == 1)
		_exit(0);
	/* the processes' pids, read (not mapped: no page is taken) from the
	 * segment; zero where piclrun had not put one */
	slots = calloc((size_t)R.nslots, sizeof *slots);
	if (slots && pread(segfd, slots, len, sizeof(struct picl_shm_head)) > 0)
		for (k = 0; k < 1000; k++) {
			for (i = 0; i < R.nslots; i++)
				if (!ended((pid_t)atomic_load(&slots[i].pid)))
					break;
			if (i == R.nslots)
				break;
			usleep(10 * 1000);
		}
	unlink(R.shmpath);
	if (!R.keep || !R.own_dir || rmdir(R.partsdir) < 0)
		remove_parts();  /* (an empty dir was not worth keeping) */
	_exit(0);
}

/*
 * Start the cleaner, which makes the parts dir (unless --parts-dir named
 * one) and the segment's file and says their names: before the
 * processes, before anything else is made.
 */
static int start_cleaner(void)
{
	int fds[2], rep[2], status;
	struct made m;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0) {
		fprintf(stderr, "piclrun: pipe: %s\n", strerror(errno));
		return -1;
	}
	if (pipe2(rep, O_CLOEXEC) < 0) {
		fprintf(stderr, "piclrun: pipe: %s\n", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "piclrun: fork: %s\n", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		close(rep[0]);
		close(rep[1]);
		return -1;
	}
	if (pid == 0) {
		close(fds[1]);
		close(rep[0]);
		setsid();
		if (fork() != 0)        /* (if it fails, piclrun reads EOF) */
			_exit(0);
		close(0);
		close(1);
		cleaner(fds[0], rep[1]);
	}
	close(fds[0]);
	close(rep[1]);
	R.cleanfd = fds[1];
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	while (got < sizeof m &&
	       ((n = read(rep[0], (char *)&m + got, sizeof m - got)) > 0 ||
		(n < 0 && errno == EINTR)))
		if (n > 0)
			got += (size_t)n;
	close(rep[0]);
	if (got < sizeof m) {
		fprintf(stderr, "piclrun: the process that would clean up after "
			"piclrun did not start\n");
		return -1;
	}
	if (!m.ok)              /* it said why */
		return -1;
	if (!R.partsdir) {
		memcpy(R.tmpdir, m.tmpdir, sizeof R.tmpdir);
		R.partsdir = R.tmpdir;
		R.own_dir = 1;
	}
	memcpy(R.shmpath, m.shmpath, sizeof R.shmpath);
	/* The processes get the parts dir's absolute name (a program may
	 * change directory); messages keep the name given. */
	if (!realpath(R.partsdir, R.partsabs))
		snprintf(R.partsabs, sizeof R.partsabs, "%s", R.partsdir);
	return 0;
}

/* piclrun has cleaned up: the cleaner has nothing to do. */
static void cleaned(void)
{
	char c = 'd';
	ssize_t n;

	if (R.cleanfd < 0)
		return;
	n = write(R.cleanfd, &c, 1);    /* (the cleaner may be gone) */
	(void)n;
	close(R.cleanfd);
	R.cleanfd = -1;
}

/*
 * What the trace is, for its -301 header record: the command run, how, where
 * and when, e.g. "./ring 10 on 4 local processes (piclrun, host h1,
 * 2026-11-24 04:50:12 UTC)". Long commands are cut (with "...").
 */
static void say_identity(char *const *cmd)
{
	char *b = R.identity, host[256] = "", when[64] = "";
	size_t cap = sizeof R.identity, len = 0, room = cap - 200;
	time_t now = time(NULL);
	struct tm tm;
	int i;

	for (i = 0; cmd[i] && len < room; i++) {
		int n = snprintf(b + len, room - len, "%s%s", i ? " " : "", cmd[i]);

		if (n < 0 || (size_t)n >= room - len) {
			len = room - 4;
			strcpy(b + len, "...");
			len += 3;
			break;
		}
		len += (size_t)n;
	}
	if (gethostname(host, sizeof host - 1) < 0)
		host[0] = 0;
	if (gmtime_r(&now, &tm))
		strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
	snprintf(b + len, cap - len, " on %d local process%s%s%s (piclrun%s%s, %s)",
		 R.nprocs, R.nprocs == 1 ? "" : "es", R.host ? " and the host program " : "",
		 R.host ? R.host : "", *host ? ", host " : "", host, when);
}

int main(int argc, char **argv)
{
	int first, i, failed = 0, merged, status = 2;
	struct sigaction sa;
	struct stat prog, host;

	first = parse(argc, argv);
	if (first < 0)
		return 2;
	if (!runnable(argv[first], &prog) || (R.host && !runnable(R.host, &host)) ||
	    is_program(R.out, &prog, "the program to run") ||
	    (R.host && is_program(R.out, &host, "the host program")) ||
	    !writable_out(R.out) || is_part_file(R.out) || !picltrace_ok())
		return 2;
	R.launcher = getpid();
	say_identity(argv + first);
	/* A closed standard error must not kill piclrun before it cleans up
	 * (the processes get the default back). */
	signal(SIGPIPE, SIG_IGN);
	R.nslots = R.nprocs + (R.host ? 1 : 0);
	R.p = calloc((size_t)R.nslots, sizeof *R.p);
	if (!R.p)
		goto out;
	for (i = 0; i < R.nslots; i++)
		R.p[i].id = i < R.nprocs ? i : PICL_HOST;
	if (R.partsdir && given_partsdir() < 0)
		goto out;
	if (start_cleaner() < 0)
		goto out;
	if (make_segment() < 0) {
		if (R.own_dir)          /* empty yet */
			rmdir(R.partsdir);
		goto out;
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	for (i = 0; i < (int)(sizeof stop_signals / sizeof *stop_signals); i++) {
		struct sigaction old;

		if (sigaction(stop_signals[i], NULL, &old) == 0 &&
		    old.sa_handler != SIG_IGN)
			caught[i] = sigaction(stop_signals[i], &sa, NULL) == 0;
	}
	fflush(NULL);
	if (start(argv + first) < 0) {
		unlink(R.shmpath);
		R.shmpath[0] = 0;
		stop_run("cannot start every process");
		failed = 1;
	} else {
		/* The children have the segment open: its name can go now,
		 * so nothing is left in /dev/shm even if piclrun is killed. */
		unlink(R.shmpath);
		R.shmpath[0] = 0;
		if (!started(argv + first)) {
			/* nothing to merge: stop what did start, quietly */
			kill_all(SIGKILL);
			while (wait(NULL) > 0 || errno == EINTR)
				;
			unlink_parts();
			if (R.own_dir)
				rmdir(R.partsdir);
			goto out;
		}
		watch();
	}
	judge_never_opened(1);
	report_deferred(1);
	for (i = 0; i < R.nslots; i++)
		failed |= R.p[i].failed;
	status = failed ? 1 : 0;
	merged = merge(failed);
	if (merged < 0 && !failed)
		status = 2;
	if (failed && merged > 0)
		fprintf(stderr, "piclrun: the run failed; %s is partial\n", R.out);
	if (merged >= 0)        /* else they are all that is left of the run */
		remove_parts();
	if (interrupted)        /* as a shell says a command was killed */
		status = 128 + interrupted;
out:
	if (R.seg)
		munmap(R.seg, R.segsize);
	if (R.shmfd >= 0)
		close(R.shmfd);
	if (R.shmpath[0])
		unlink(R.shmpath);
	if (R.lockfd >= 0) {    /* (the cleaner's copy is the same lock) */
		flock(R.lockfd, LOCK_UN);
		close(R.lockfd);
	}
	cleaned();
	return status;
}
