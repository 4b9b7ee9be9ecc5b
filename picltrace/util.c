/*
 * util.c - what the picltrace commands share beyond the library: option
 * values (sizes such as "512M", numbers, times, --memory), refusing to
 * overwrite an input (and --in-place's checks), opening an output trace,
 * temporary files removed on a signal, standard input spooled to a file
 * that can be read twice, a progress line on a terminal, the definitions
 * carried from one FILE to the next when several are read as one trace,
 * and what validate and stat --compare share about statistics records
 * (the event types PICL only counts, which pairs must be listed).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* fallocate, FALLOC_FL_PUNCH_HOLE */
#endif
#include "builtin.h"
#include "fdio.h"
#include "grow.h"
#include "intmap.h"
#include "pow10.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int picltrace_parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	uint64_t mult = 1;

	/* digits first: strtoull would skip blanks and take " -5" as 2^64 - 5 */
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (end == s)
		return -1;
	if (errno == ERANGE)
		return -2;
	switch (*end) {
	case '\0': break;
	case 'k': case 'K': mult = 1ULL << 10; end++; break;
	case 'm': case 'M': mult = 1ULL << 20; end++; break;
	case 'g': case 'G': mult = 1ULL << 30; end++; break;
	case 't': case 'T': mult = 1ULL << 40; end++; break;
	default: return -1;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end)
		return -1;
	if (v && mult > UINT64_MAX / v)
		return -2;
	*out = v * mult;
	return 0;
}

int picltrace_parse_int(const char *s, size_t len, int64_t lo, int64_t hi, int64_t *out)
{
	size_t i = 0;
	uint64_t v = 0;
	int neg = 0, big = 0;
	int64_t x;

	if (len && s[0] == '-') {
		neg = 1;
		i = 1;
	}
	if (i == len)
		return -1;
	for (; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		if (v > (UINT64_MAX - 9) / 10)
			big = 1;   /* read on: a letter later makes it no number */
		else
			v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (big || v > (uint64_t)INT64_MAX + neg)
		return -2;
	x = neg ? (v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v) : (int64_t)v;
	if (x < lo || x > hi)
		return -2;
	*out = x;
	return 0;
}

int picltrace_int_option(const char *cmd, const char *opt, const char *arg, int64_t lo,
			 int64_t hi, const char *takes, int64_t *out)
{
	if (picltrace_parse_int(arg, strlen(arg), lo, hi, out) == 0)
		return 0;
	picltrace_error(cmd, "%s takes %s, not '%s'", opt, takes, arg);
	return -1;
}

int picltrace_parse_level(const char *cmd, const char *arg, int *level)
{
	int64_t v;

	if (picltrace_int_option(cmd, "--level", arg, 1, 19, "a number from 1 to 19", &v) < 0)
		return -1;
	*level = (int)v;
	return 0;
}

int picltrace_parse_time(const char *cmd, const char *opt, const char *arg,
			 const char *expected, struct picl_time *t)
{
	/* the library reads a trace's "+1.5"; an option is written as
	 * picltrace_parse_int's numbers are, without the sign */
	int rc = *arg == '+' ? PICL_ERR_DATA : picl_time_parse(arg, strlen(arg), t, NULL);

	if (rc == PICL_ERR_RANGE)
		picltrace_error(cmd, "%s: '%s' is out of range (" PICL_TIME_RANGE_TEXT ")", opt, arg);
	else if (rc < 0)
		picltrace_error(cmd, "%s takes %s, not '%s'", opt, expected, arg);
	return rc < 0 ? -1 : 0;
}

int picltrace_parse_memory(const char *cmd, const char *arg, uint64_t *bytes)
{
	int rc = picltrace_parse_size(arg, bytes);

	if (rc == -2) {
		picltrace_error(cmd, "--memory: '%s' is more than 16 EiB", arg);
		return -1;
	}
	if (rc < 0 || *bytes < (1u << 20)) {
		picltrace_error(cmd, "--memory takes a size of at least 1M (e.g. 512M, 4G), not '%s'",
				arg);
		return -1;
	}
	return 0;
}

int picltrace_matcher_memory(struct picl_matcher *m, uint64_t memory, const char *tmpdir)
{
	if (!memory)
		memory = picltrace_default_memory();
	return picl_matcher_set_memory(m, memory > SIZE_MAX ? SIZE_MAX : (size_t)memory, tmpdir);
}

const char *picltrace_tempdir(const char *tmpdir)
{
	const char *dir = tmpdir && *tmpdir ? tmpdir : getenv("TMPDIR");

	return dir && *dir ? dir : "/tmp";
}

int picltrace_tempfile(const char *cmd, const char *tmpdir)
{
	const char *dir = picltrace_tempdir(tmpdir);
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/picltrace-%s.XXXXXX", dir, cmd);
	fd = mkstemp(path);
	if (fd < 0) {
		picltrace_error(cmd, "cannot create a temporary file in %s: %s", dir,
				strerror(errno));
		return -1;
	}
	unlink(path);
	return fd;
}

int picltrace_file_io(const char *cmd, int fd, void *p, size_t len, uint64_t off,
		      int writing)
{
	char *b = p;
	size_t done = 0;

	while (done < len) {
		ssize_t n = writing ? pwrite(fd, b + done, len - done, (off_t)(off + done))
				    : pread(fd, b + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			picltrace_error(cmd, writing ? "cannot write a temporary file: %s"
					     : "cannot read a temporary file back: %s",
					n < 0 ? strerror(errno)
					      : writing ? "no space" : "it is shorter");
			return -1;
		}
		done += (size_t)n;
	}
	return 0;
}

void picltrace_release(int fd, uint64_t off, uint64_t len)
{
#ifdef FALLOC_FL_PUNCH_HOLE
	if (len)
		(void)fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off,
				(off_t)len);
#else
	(void)fd;
	(void)off;
	(void)len;
#endif
}

int picltrace_bad_usage(const char *usage)
{
	const char *end = strstr(usage, "\n\n");

	fwrite(usage, 1, end ? (size_t)(end - usage) + 1 : strlen(usage), stderr);
	return 2;
}

void picltrace_stdin_hint(const char *cmd, const char *path)
{
	static int said;

	if (said || strcmp(path, "-") != 0 || !isatty(0) || !isatty(2))
		return;
	said = 1;
	fprintf(stderr, "picltrace %s: reading a trace from the terminal (standard input); "
		"Ctrl-D ends it, or name a FILE\n", cmd);
}

int picltrace_spool(const char *cmd, int from, const char *what, const char *tmpdir)
{
	enum { BUFSIZE = 1 << 20 };
	char *buf = malloc(BUFSIZE);
	int fd = buf ? picltrace_tempfile(cmd, tmpdir) : -1;

	if (!buf)
		picltrace_error(cmd, "out of memory");
	if (from == 0)
		picltrace_stdin_hint(cmd, "-");
	while (fd >= 0) {
		/* non-blocking (as a parent may leave standard input):
		 * waits as a blocking read would */
		ssize_t n = picl_read_wait(from, buf, BUFSIZE), w = 0;

		if (n == 0) {
			if (lseek(fd, 0, SEEK_SET) == 0)
				break;
			picltrace_error(cmd, "%s: cannot rewind its copy: %s", what, strerror(errno));
			goto fail;
		}
		if (n < 0) {
			picltrace_error(cmd, "%s: cannot read: %s", what, strerror(errno));
			goto fail;
		}
		while (w < n) {
			ssize_t k = write(fd, buf + w, (size_t)(n - w));

			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0) {
				picltrace_error(cmd, "%s: cannot copy it to a temporary file "
						"in %s: %s", what, picltrace_tempdir(tmpdir),
						strerror(errno));
				goto fail;
			}
			w += k;
		}
	}
	free(buf);
	return fd;
fail:
	close(fd);
	free(buf);
	return -1;
}

/* stat(2) of an input path, "-" being what standard input reads. */
static int stat_input(const char *path, struct stat *st)
{
	return strcmp(path, "-") ? stat(path, st) : fstat(0, st);
}

int picltrace_same_file(const char *out, const char *const *inputs, int n)
{
	struct stat so, si;
	int i;

	/* "-" is standard output, which may be an input appended to
	 * (`picltrace cat f >>f` would read what it writes, without end) */
	if ((strcmp(out, "-") ? stat(out, &so) : fstat(1, &so)) < 0 || !S_ISREG(so.st_mode))
		return 0;
	/* "-" is standard input, which may be the output file itself
	 * (`picltrace sort -o f - <f`) */
	for (i = 0; i < n; i++)
		if (stat_input(inputs[i], &si) == 0 &&
		    si.st_dev == so.st_dev && si.st_ino == so.st_ino)
			return 1;
	return 0;
}

/* The name messages give an input path: "<stdin>" for "-", as the reader
 * names it. */
static const char *input_name(const char *path)
{
	return strcmp(path, "-") == 0 ? "<stdin>" : path;
}

int picltrace_distinct_inputs(const char *cmd, const char *const *inputs, int n)
{
	struct stat *st;
	int i, j, rc = 0;

	if (n < 2)
		return 0;
	st = calloc((size_t)n, sizeof(*st));
	if (!st)
		return 0;   /* (opening them will find out) */
	for (i = 0; i < n && rc == 0; i++) {
		/* a file that cannot be looked at: opening it says why */
		if (stat_input(inputs[i], &st[i]) < 0 ||
		    !S_ISREG(st[i].st_mode)) {
			st[i].st_ino = 0;
			st[i].st_mode = 0;
			continue;
		}
		for (j = 0; j < i; j++)
			if (S_ISREG(st[j].st_mode) && st[j].st_dev == st[i].st_dev &&
			    st[j].st_ino == st[i].st_ino) {
				if (strcmp(inputs[i], inputs[j]) == 0)
					picltrace_error(cmd, "%s: given twice as an input",
							input_name(inputs[i]));
				else
					picltrace_error(cmd, "%s and %s: the same file given twice "
							"as an input", input_name(inputs[j]),
							input_name(inputs[i]));
				rc = -1;
				break;
			}
	}
	free(st);
	return rc;
}

int picltrace_in_place_ok(const char *cmd, const char *path)
{
	struct stat st;

	if (!strcmp(path, "-")) {
		picltrace_error(cmd, "--in-place needs a FILE, not standard input");
		return -1;
	}
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		picltrace_error(cmd, "%s: --in-place needs a regular file, not a %s", path,
				S_ISFIFO(st.st_mode) ? "FIFO" : S_ISDIR(st.st_mode) ?
				"directory" : "device or socket");
		return -1;
	}
	return 0;
}

int picltrace_rewrite_output(const char *cmd, int in_place, int output_given,
			     const char *const *inputs, int ninputs, const char **output)
{
	if (in_place) {
		if (ninputs != 1 || output_given) {
			picltrace_error(cmd, "--in-place takes exactly one input file and no "
					"--output");
			return -1;
		}
		if (picltrace_in_place_ok(cmd, inputs[0]) < 0)
			return -1;
		*output = inputs[0];
	} else if (picltrace_same_file(*output, inputs, ninputs)) {
		picltrace_error(cmd, "%s: the output is also an input; use --in-place to "
				"replace it", picl_output_name(*output));
		return -1;
	}
	return 0;
}

/*
 * Temporary outputs to remove if the command is interrupted: the paths are
 * copied into static storage so the signal handler touches no heap memory
 * and calls only unlink, which is async-signal-safe. A path whose file was
 * since renamed into place no longer exists, so unlinking it is harmless.
 */
#define MAX_TEMPS 8
static char temp_paths[MAX_TEMPS][4096];
static volatile sig_atomic_t ntemps;

static void on_signal(int sig)
{
	sig_atomic_t i;

	for (i = 0; i < ntemps; i++)
		if (temp_paths[i][0])
			unlink(temp_paths[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

void picltrace_remember_temp(const char *path)
{
	static int installed;
	sig_atomic_t i;

	if (!path || strlen(path) >= sizeof(temp_paths[0]))
		return;
	if (!installed) {
		/* A signal the caller ignores stays ignored: nohup's SIGHUP, the
		 * SIGINT a shell script's background job ignores, a closed pipe
		 * the caller chose to survive. Catching them would make them
		 * kill the command after all (as coreutils' sort does not). */
		static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
		struct sigaction sa, old;
		size_t k;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sa.sa_flags = SA_RESTART;   /* (as signal() had it) */
		sigemptyset(&sa.sa_mask);
		for (k = 0; k < sizeof(sigs) / sizeof(sigs[0]); k++)
			if (sigaction(sigs[k], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
				sigaction(sigs[k], &sa, NULL);
		installed = 1;
	}
	for (i = 0; i < ntemps; i++)   /* reuse a forgotten slot */
		if (!temp_paths[i][0])
			break;
	if (i == MAX_TEMPS)
		return;
	strcpy(temp_paths[i], path);
	if (i == ntemps)
		ntemps++;
}

/*
 * A file mapped into memory that shrinks under us raises SIGBUS on the next
 * read of a page past its new end. While one is mapped, that is reported as
 * what it is, temporary outputs are removed and the command exits with 2,
 * instead of dying of the signal and leaving them behind.
 */
static char mapped_msg[4096 + 256];
static size_t mapped_len;

static void on_bus_error(int sig)
{
	sig_atomic_t i;

	(void)sig;
	for (i = 0; i < ntemps; i++)
		if (temp_paths[i][0])
			unlink(temp_paths[i]);
	if (write(2, mapped_msg, mapped_len) < 0) {
		/* nothing more can be said */
	}
	_exit(2);
}

void picltrace_mapped_input(const char *cmd, const char *path)
{
	struct sigaction sa;
	int n;

	if (path) {
		n = snprintf(mapped_msg, sizeof(mapped_msg), "picltrace %s: %s: the file "
			     "changed (shrank) while it was read; nothing was written\n",
			     cmd, path);
		if (n < 0)
			n = 0;
		mapped_len = (size_t)n < sizeof(mapped_msg) ? (size_t)n : sizeof(mapped_msg) - 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = path ? on_bus_error : SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
}

void picltrace_forget_temp(const char *path)
{
	sig_atomic_t i;

	for (i = 0; i < ntemps; i++)
		if (!strcmp(temp_paths[i], path))
			temp_paths[i][0] = '\0';
}

int picltrace_wants_zstd(const char *path, int z, int level)
{
	size_t n = path ? strlen(path) : 0;

	return z || level > 0 || (n > 4 && strcmp(path + n - 4, ".zst") == 0);
}

/* Does path name a terminal of ours: "-" on one, or the terminal device
 * behind standard input, output or error under any name (/dev/stdout,
 * /dev/fd/1, /dev/pts/N), or /dev/tty? (Found by stat: opening a device
 * only to ask could have effects of its own.) */
static int names_terminal(const char *path)
{
	struct stat sp, sf;
	int fd;

	/* (the names the library takes for descriptors whatever is on disk) */
	if (!strcmp(path, "-") || !strcmp(path, "/dev/stdout"))
		return isatty(1);
	if (!strcmp(path, "/dev/stderr"))
		return isatty(2);
	if (stat(path, &sp) < 0 || !S_ISCHR(sp.st_mode))
		return 0;
	for (fd = 0; fd <= 2; fd++)
		if (isatty(fd) && fstat(fd, &sf) == 0 && sf.st_rdev == sp.st_rdev)
			return 1;
	return !strcmp(path, "/dev/tty");
}

struct picl_writer *picltrace_open_output(const char *cmd, const char *path,
					  int compress, int level)
{
	struct picl_writer_options o = { 0 };
	struct picl_error err = { 0 };
	struct picl_writer *w;
	int rc;

	if (compress && names_terminal(path)) {
		picltrace_error(cmd, "refusing to write zstd-compressed data to a terminal; "
				"use -o FILE or a pipe");
		return NULL;
	}
	o.compress = compress;
	o.level = level;
	w = picl_writer_open(path, &o, &rc, &err);
	if (!w)
		picltrace_report(cmd, &err);
	else
		picltrace_remember_temp(picl_writer_temp_path(w));
	return w;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void picltrace_progress_init(struct picltrace_progress *p, const char *what,
			     uint64_t total, int quiet)
{
	memset(p, 0, sizeof(*p));
	p->what = what;
	p->total = total;
	p->enabled = !quiet && isatty(2);
	p->start = p->last = now();
}

void picltrace_progress(struct picltrace_progress *p, uint64_t done)
{
	double t;

	if (!p->enabled)
		return;
	t = now();
	if (t - p->last < 0.25)
		return;
	p->last = t;
	p->shown = p->onscreen = 1;
	if (p->total)
		fprintf(stderr, "\rpicltrace %s: %5.1f%% (%llu of %llu MB, %.0f MB/s)   ", p->what,
			100.0 * (double)done / (double)p->total,
			(unsigned long long)(done >> 20), (unsigned long long)(p->total >> 20),
			(double)done / 1048576.0 / (t - p->start));
	else
		fprintf(stderr, "\rpicltrace %s: %llu MB (%.0f MB/s)   ", p->what,
			(unsigned long long)(done >> 20),
			(double)done / 1048576.0 / (t - p->start));
}

void picltrace_progress_clear(struct picltrace_progress *p)
{
	if (p && p->onscreen) {
		fprintf(stderr, "\r%78s\r", "");
		p->onscreen = 0;
	}
}

uint64_t picltrace_progress_total(const char *path, const struct picl_reader *r)
{
	struct stat st;

	if (strcmp(path, "-") == 0 || picl_reader_is_compressed(r) ||
	    stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	return (uint64_t)st.st_size;
}

void picltrace_progress_done(struct picltrace_progress *p)
{
	if (p->enabled && p->shown)
		fprintf(stderr, "\rpicltrace %s: done in %.1f s%30s\n", p->what, now() - p->start,
			"");
}

/* ------------------------------------------------------------------------ */
/* Definitions carried from file to file                                     */
/* ------------------------------------------------------------------------ */

/*
 * The text of the definitions in force is kept, one record per definition
 * key, in the order each key was last defined. Replaying those in that
 * order gives the reader of the next input the same definitions as
 * replaying every definition ever made:
 *
 * - a subset is its members and nothing else: a later definition of the
 *   same (kind, id) replaces the earlier one whole, and members naming
 *   other subsets are looked up when matched, not when defined, so neither
 *   the dropped records nor the order between subsets can show;
 * - an alias keeps one definition per (event, processor, process) scope, a
 *   redefinition for the same scope replacing it with a newer sequence
 *   number ("the latest among equals" compares those), and the alias used
 *   everywhere unscoped is its last definition in any scope. Each key's
 *   latest record is the one that set what is in force for it, the
 *   sequence numbers of the kept records come out in the same relative
 *   order as they ended up in, and an alias's last definition is replayed
 *   last among its own; a dropped record only ever stood where a kept,
 *   later one of the same key now stands;
 * - the library's caps (definitions, distinct control strings) count what
 *   is in force, which the kept records do not exceed.
 *
 * Keys live in an open-addressing table beside a list of the definitions
 * in the order last made, which is also the order of their text in
 * c->text: a redefinition leaves the old text dead and appends the new,
 * and the text is compacted once more of it is dead than alive.
 */
struct picltrace_carry_def {
	int32_t type, event, processor, process;   /* event ...: an alias's scope */
	int64_t id;                 /* the subset id or the alias number */
	int keyed;                  /* 0: not a well-formed definition, kept as is */
	size_t off, len;            /* its text in c->text, '\n' included */
	uint32_t prev, next;        /* 1 + index, in the order last made */
};

/* The key of a definition record, 0 if it has none (a definition the
 * library rejects never gets here; kept unkeyed, to be safe). */
static int carry_key(const struct picl_record *rec, struct picltrace_carry_def *k)
{
	memset(k, 0, sizeof(*k));
	k->type = rec->type;
	if (!rec->values || rec->nvalues < 1 || rec->values[0].kind != PICL_VAL_INT)
		return 0;
	k->id = rec->values[0].v.i;
	if (rec->type == PICL_REC_DESCRIPTOR) {
		k->event = rec->event;
		k->processor = rec->processor;
		k->process = rec->process;
	}
	k->keyed = 1;
	return 1;
}

static size_t carry_hash(const struct picltrace_carry_def *k)
{
	uint64_t h = intmap_hash(intmap_key2(k->type, k->event));

	h = intmap_hash(h ^ intmap_key2(k->processor, k->process));
	return (size_t)intmap_hash(h ^ (uint64_t)k->id);
}

static int carry_same(const struct picltrace_carry_def *a, const struct picltrace_carry_def *b)
{
	return a->type == b->type && a->id == b->id && a->event == b->event &&
	       a->processor == b->processor && a->process == b->process;
}

/* The slot of key k in c->slots: its definition's, or the empty one where
 * it goes. c->nslots must be nonzero. */
static size_t carry_slot(const struct picltrace_carry *c, const struct picltrace_carry_def *k)
{
	size_t mask = c->nslots - 1, i;

	for (i = carry_hash(k) & mask; c->slots[i]; i = (i + 1) & mask)
		if (carry_same(&c->defs[c->slots[i] - 1], k))
			break;
	return i;
}

/* Room for one more keyed definition, the table at most half full. */
static int carry_grow(struct picltrace_carry *c)
{
	size_t i;

	if (c->ndefs == c->defs_cap) {
		size_t ncap = c->defs_cap ? c->defs_cap * 2 : 64;
		struct picltrace_carry_def *d;

		if (ncap >= UINT32_MAX)
			return -1;
		d = realloc(c->defs, ncap * sizeof(*d));
		if (!d)
			return -1;
		c->defs = d;
		c->defs_cap = ncap;
	}
	if ((c->ndefs + 1) * 2 > c->nslots) {
		size_t ncap = c->nslots ? c->nslots * 2 : 128;
		uint32_t *old = c->slots;

		c->slots = calloc(ncap, sizeof(*c->slots));
		if (!c->slots) {
			c->slots = old;
			return -1;
		}
		free(old);
		c->nslots = ncap;
		for (i = 0; i < c->ndefs; i++)
			if (c->defs[i].keyed)
				c->slots[carry_slot(c, &c->defs[i])] = (uint32_t)(i + 1);
	}
	return 0;
}

static void carry_unlink(struct picltrace_carry *c, uint32_t n)
{
	struct picltrace_carry_def *d = &c->defs[n - 1];

	if (d->prev)
		c->defs[d->prev - 1].next = d->next;
	else
		c->first = d->next;
	if (d->next)
		c->defs[d->next - 1].prev = d->prev;
	else
		c->last = d->prev;
	d->prev = d->next = 0;
}

static void carry_link_last(struct picltrace_carry *c, uint32_t n)
{
	struct picltrace_carry_def *d = &c->defs[n - 1];

	d->prev = c->last;
	d->next = 0;
	if (c->last)
		c->defs[c->last - 1].next = n;
	else
		c->first = n;
	c->last = n;
}

/* Drop the dead text: the list is in the order of the text, so moving each
 * record down in list order never overwrites one still to move. */
static void carry_compact(struct picltrace_carry *c)
{
	size_t at = 0;
	uint32_t n;

	for (n = c->first; n; n = c->defs[n - 1].next) {
		struct picltrace_carry_def *d = &c->defs[n - 1];

		memmove(c->text + at, c->text + d->off, d->len);
		d->off = at;
		at += d->len;
	}
	c->len = at;
	c->dead = 0;
}

/* A definition record's text, kept (picltrace_carry_note decided). After
 * -1 (out of memory) the carry is fit only to be freed. */
int picltrace_carry_keep(struct picltrace_carry *c, const struct picl_record *rec)
{
	struct picltrace_carry_def k;
	size_t need, slot = 0;
	uint32_t n = 0;

	if (!rec->line)
		return 0;
	if (carry_key(rec, &k) && c->nslots) {
		slot = carry_slot(c, &k);
		n = c->slots[slot];
	}
	if (n) {
		/* a redefinition: its old text is dead, the new goes last */
		carry_unlink(c, n);
		c->dead += c->defs[n - 1].len;
	} else {
		if (carry_grow(c) < 0)
			return -1;
		n = (uint32_t)++c->ndefs;
		c->defs[n - 1] = k;
		if (k.keyed)
			c->slots[carry_slot(c, &k)] = n;
	}
	if (c->dead > c->len - c->dead)
		carry_compact(c);
	need = c->len + rec->line_len + 1;
	if (need > c->cap) {
		size_t cap = c->cap ? c->cap : 4096;
		char *p;

		while (cap < need)
			cap *= 2;
		p = realloc(c->text, cap);
		if (!p)
			return -1;
		c->text = p;
		c->cap = cap;
	}
	c->defs[n - 1].off = c->len;
	c->defs[n - 1].len = rec->line_len + 1;
	carry_link_last(c, n);
	memcpy(c->text + c->len, rec->line, rec->line_len);
	c->len += rec->line_len;
	c->text[c->len++] = '\n';
	return 0;
}

int picltrace_carry_apply(struct picltrace_carry *c, const char *cmd, struct picl_reader *r)
{
	struct picl_reader_options o = { 0 };
	struct picl_defs *defs = picl_reader_defs(r);
	struct picl_reader *m;
	struct picl_record rec;
	int rc;

	if (c->dead)
		carry_compact(c);
	if (c->len == 0)
		return 0;
	/* Read back as they were read the first time (they were valid then). */
	m = picl_reader_open_memory(c->text, c->len, "definitions", &o, &rc, NULL);
	if (!m) {
		picltrace_error(cmd, "out of memory");
		return -1;
	}
	while ((rc = picl_reader_next(m, &rec)) != PICL_END) {
		if (rc == PICL_ERR_NOMEM || (rc == PICL_OK && picl_defs_apply(defs, &rec, NULL) ==
							    PICL_ERR_NOMEM)) {
			picl_reader_free(m);
			picltrace_error(cmd, "out of memory");
			return -1;
		}
	}
	picl_reader_free(m);
	return 0;
}

void picltrace_carry_free(struct picltrace_carry *c)
{
	free(c->text);
	free(c->defs);
	free(c->slots);
	memset(c, 0, sizeof(*c));
}

int picltrace_subset_counted_only(const struct picl_schema *schema,
				  const struct picl_defs *defs, int32_t event)
{
	int32_t e;

	if (event >= -1 || !schema || !picl_defs_subset_exists(defs, PICL_SUBSET_EVENTS, event))
		return 0;
	/* the system types, -2 to -1000, each looked at once */
	for (e = -2; e >= -1000; e--)
		if (picltrace_counted_only(picl_schema_event(schema, e)) &&
		    picl_defs_matches(defs, PICL_SUBSET_EVENTS, event, e))
			return 1;
	return 0;
}

/* A blank between fields: white space, or a backslash that continues the
 * record on the next line. */
static int field_blank(const char *p, const char *e)
{
	return *p == ' ' || *p == '\t' || *p == '\r' || *p == '\v' || *p == '\f' ||
	       *p == '\n' || (*p == '\\' && p + 1 < e && p[1] == '\n');
}

void picltrace_field_mark(const struct picl_reader *r, const struct picl_record *rec,
			  unsigned k, struct picl_mark *at)
{
	const char *p = rec->line, *e;
	unsigned i = 0;

	if (!p) {
		*at = rec->mark;
		return;
	}
	e = p + rec->line_len;
	for (;;) {
		while (p < e && field_blank(p, e))
			p++;
		if (p == e || i == k)
			break;
		if (*p == '"') {
			const char *q = memchr(p + 1, '"', (size_t)(e - p - 1));

			p = q ? q + 1 : e;
		} else {
			while (p < e && !field_blank(p, e))
				p++;
		}
		i++;
	}
	picl_reader_locate(r, rec, p == e ? rec->line : p, at);
}

__int128 picltrace_stat_time_tolerance(int32_t scale, uint64_t n, int32_t decimals)
{
	__int128 tol = (__int128)pow10_tab[18 - scale] * (__int128)n;

	if (decimals < scale)
		tol += 5 * (__int128)pow10_tab[17 - decimals];
	return tol;
}

int picltrace_cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

int picltrace_stats_expected(int32_t rel, int32_t event, int64_t nprofiled, int64_t listed)
{
	if (rel != -1 || event < 0)
		return 1;
	if (nprofiled >= 0)
		return event < nprofiled;
	return event < listed ? 1 : -1;
}

/* ------------------------------------------------------------------------ */
/* Records missing where a trace buffer filled                               */
/* ------------------------------------------------------------------------ */

/* tracemsg's records: written at once, whether or not detailed tracing
 * is on (trace.c), so they do not end a -913 gap. */
static int tracemsg_record(const struct picl_record *rec)
{
	return rec->type == PICL_REC_MESSAGE ||
	       (rec->event == -911 && (rec->type == PICL_REC_ENTRY || rec->type == PICL_REC_EXIT));
}

/* A record just before which the buffer was written out, or the one the
 * next fill follows: the -901 entry (kept aside and written first by a
 * ring), traceflush's -912 entry (the last of its fill), tracemsg's
 * records, the -901 exit. */
static int fill_boundary(const struct picl_record *rec)
{
	if (rec->event == -901 || rec->event == -912)
		return rec->type == PICL_REC_ENTRY || (rec->event == -901 && rec->type == PICL_REC_EXIT);
	return tracemsg_record(rec);
}

static void gap_start(struct picltrace_gaps *g, const struct picl_record *mark, int from_start,
		      uint64_t line, struct picl_time t)
{
	if (g->ngaps++ == 0) {
		g->first_line = line;
		g->first_from_start = from_start;
		g->first_time = t;
		g->first_mark = mark->mark.line;
		g->first_kind = mark->event;
	}
	g->last_open = 1;
	g->last_mark = mark->mark.line;
	g->last_kind = mark->event;
}

static void gap_end(struct picltrace_gaps *g, struct picl_time t)
{
	g->last_open = 0;
	g->last_end = t;
}

int picltrace_gaps_note(struct picltrace_gaps *g, const struct picl_record *rec)
{
	int wrap = rec->type == PICL_REC_MARK && rec->event == -914;
	int ngaps = g->ngaps;

	if (g->stopped && !tracemsg_record(rec)) {   /* traceflush, or the end */
		g->stopped = 0;
		gap_end(g, rec->time);
	}
	if (g->pending && !wrap) {
		g->pending = 0;
		gap_end(g, rec->time);
	}
	if (rec->type == PICL_REC_MARK && rec->event == -913) {
		gap_start(g, rec, 0, rec->mark.line, rec->time);
		g->stopped = 1;
	} else if (wrap) {
		/* what the fill took before its first record kept is gone */
		gap_start(g, rec, !g->have_fill, g->have_fill ? g->fill_line : 0, g->fill_time);
		if (g->have_first)
			gap_end(g, g->first_in_fill_time);
		else
			g->pending = 1;
	}
	if (fill_boundary(rec)) {
		g->have_fill = 1;
		g->fill_line = rec->mark.line;
		g->fill_time = rec->time;
		g->have_first = 0;
		return 1;
	}
	if (!g->have_first && !wrap) {
		g->have_first = 1;
		g->first_in_fill_time = rec->time;
	}
	return g->ngaps != ngaps;
}

int picltrace_gaps_start_by(const struct picltrace_gaps *g, struct picl_time t)
{
	return g->ngaps && (g->first_from_start || picl_time_cmp(g->first_time, t) <= 0);
}

int picltrace_gaps_end_from(const struct picltrace_gaps *g, struct picl_time t)
{
	return g->ngaps && (g->last_open || picl_time_cmp(g->last_end, t) >= 0);
}

struct picltrace_sends {
	struct intmap to;               /* processor -> first[] index */
	struct picl_time *first;
	size_t n, cap;
	int have_group;
	struct picl_time group;
};

struct picltrace_sends *picltrace_sends_new(void)
{
	return calloc(1, sizeof(struct picltrace_sends));
}

int picltrace_sends_note(struct picltrace_sends *s, const struct picl_record *rec)
{
	struct picl_time *t;
	int64_t dst;
	size_t i;

	if (!s)
		return -1;
	if ((rec->event != -21 && rec->event != -27) ||
	    (rec->type != PICL_REC_ENTRY && rec->type != PICL_REC_MARK) ||
	    !rec->values || rec->nvalues < 3 || rec->values[2].kind != PICL_VAL_INT)
		return 0;
	dst = rec->values[2].v.i;
	if (dst < 0) {
		if (!s->have_group || picl_time_cmp(rec->time, s->group) < 0)
			s->group = rec->time;
		s->have_group = 1;
		return 0;
	}
	if (dst > INT32_MAX)
		return 0;
	if (intmap_get(&s->to, (uint32_t)dst, &i)) {
		t = &s->first[i];
		if (picl_time_cmp(rec->time, *t) < 0)
			*t = rec->time;
		return 0;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		struct picl_time *v = realloc(s->first, cap * sizeof(*v));

		if (!v)
			return -1;
		s->first = v;
		s->cap = cap;
	}
	if (intmap_put(&s->to, (uint32_t)dst, s->n) < 0)
		return -1;
	s->first[s->n++] = rec->time;
	return 0;
}

struct picl_time picltrace_sends_first(const struct picltrace_sends *s, int32_t processor,
				       struct picl_time t)
{
	size_t i;

	if (!s)
		return t;
	if (processor >= 0 && intmap_get(&s->to, (uint32_t)processor, &i) &&
	    picl_time_cmp(s->first[i], t) < 0)
		t = s->first[i];
	if (s->have_group && picl_time_cmp(s->group, t) < 0)
		t = s->group;
	return t;
}

void picltrace_sends_free(struct picltrace_sends *s)
{
	if (!s)
		return;
	intmap_free(&s->to);
	free(s->first);
	free(s);
}

void *picltrace_queue_push(struct picltrace_queue *q)
{
	if (q->n == q->cap && q->head > 0 && q->head >= q->cap / 2) {
		memmove(q->v, q->v + q->head * q->size, (q->n - q->head) * q->size);
		q->n -= q->head;
		q->head = 0;
	}
	if (grow((void **)&q->v, &q->cap, q->n + 1, q->size) < 0)
		return NULL;
	return q->v + q->n++ * q->size;
}

void picltrace_queue_pop(struct picltrace_queue *q)
{
	if (q->head < q->n && ++q->head == q->n)
		q->head = q->n = 0;
}

void picltrace_queue_free(struct picltrace_queue *q)
{
	free(q->v);
	q->v = NULL;
	q->head = q->n = q->cap = 0;
}
