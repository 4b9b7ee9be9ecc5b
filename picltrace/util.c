/*
 * util.c - what the picltrace commands share beyond the library: size
 * arguments ("512M"), refusing to overwrite an input, opening an output
 * trace, and a progress line on a terminal.
 */
#include "builtin.h"

#include <errno.h>
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

	if (!*s || *s == '-')
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

int picltrace_parse_level(const char *cmd, const char *arg, int *level)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (end == arg || *end || v < 1 || v > 19) {
		picltrace_error(cmd, "--level takes a number from 1 to 19, not '%s'", arg);
		return -1;
	}
	*level = (int)v;
	return 0;
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

int picltrace_same_file(const char *out, const char *const *inputs, int n)
{
	struct stat so, si;
	int i;

	if (strcmp(out, "-") == 0 || stat(out, &so) < 0 || !S_ISREG(so.st_mode))
		return 0;
	for (i = 0; i < n; i++)
		if (strcmp(inputs[i], "-") && stat(inputs[i], &si) == 0 &&
		    si.st_dev == so.st_dev && si.st_ino == so.st_ino)
			return 1;
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
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
		signal(SIGHUP, on_signal);
		/* a closed pipe on stderr or stdout kills as well, unless the
		 * caller chose to ignore it */
		if (signal(SIGPIPE, on_signal) == SIG_IGN)
			signal(SIGPIPE, SIG_IGN);
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

struct picl_writer *picltrace_open_output(const char *cmd, const char *path,
					  int compress, int level)
{
	struct picl_writer_options o = { 0 };
	struct picl_error err = { 0 };
	struct picl_writer *w;
	int rc;

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
		fprintf(stderr, "\r%s: %5.1f%% (%llu of %llu MB, %.0f MB/s)   ", p->what,
			100.0 * (double)done / (double)p->total,
			(unsigned long long)(done >> 20), (unsigned long long)(p->total >> 20),
			(double)done / 1048576.0 / (t - p->start));
	else
		fprintf(stderr, "\r%s: %llu MB (%.0f MB/s)   ", p->what,
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
		fprintf(stderr, "\r%s: done in %.1f s%30s\n", p->what, now() - p->start, "");
}

/* ------------------------------------------------------------------------ */
/* Definitions carried from file to file                                     */
/* ------------------------------------------------------------------------ */

/* A definition record's text, kept (picltrace_carry_note decided). */
int picltrace_carry_keep(struct picltrace_carry *c, const struct picl_record *rec)
{
	size_t need;

	if (!rec->line)
		return 0;
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
	memset(c, 0, sizeof(*c));
}
