/*
 * output.c - output files written all or nothing (picl_output_*).
 *
 * Where the bytes for a path go (the rules of picl-trace.h, in the order
 * they are tried):
 *
 *   "-", /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N
 *       that descriptor of this process (duplicated, except "-"): a
 *       redirected standard output is written where the shell opened it,
 *       in its mode (append included), and nothing under /dev is replaced;
 *   a device, a FIFO or a socket, and anything else under /dev (but
 *   /dev/shm, a file system for files), /proc or /sys
 *       opened and written directly (regular files there are truncated);
 *   anything else
 *       a temporary file ".NAME.tmpXXXXXX" (of a NAME too long for that,
 *       its start) in the directory of the file NAME stands for (through
 *       symbolic links, so that a link stays a link and its target is
 *       what changes), renamed onto it at commit
 *       once written and synced (its directory synced after the rename,
 *       best effort), removed on any failure. An existing file
 *       keeps its permission bits, owner and group (the last two where the
 *       caller may set them); one the caller may not write is refused as an
 *       open would be (renaming over it needs only the directory).
 *
 * A path is matched by its name as given, and with its directory resolved
 * (canonical_path): "//dev/stdout" is /dev/stdout.
 *
 * With PICL_OUTPUT_FILE the caller writes a file by name (gnuplot does), so
 * the first two cases get a temporary file in $TMPDIR instead, copied into
 * the real destination at commit.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE  /* F_DUPFD_CLOEXEC, O_CLOEXEC on older libcs */
#endif
#include "fdio.h"
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct picl_output {
	int fd;          /* what the caller writes */
	int own_fd;      /* fd is ours to close */
	int copy_fd;     /* PICL_OUTPUT_FILE: the destination, or -1 */
	int own_copy;    /* copy_fd is ours to close */
	char *name;      /* the path as given, for messages */
	char *temp;      /* the temporary file, or NULL */
	char *target;    /* what temp is renamed onto, or NULL */
	off_t start;     /* a regular file written directly: where our bytes
			    begin in it (abort cuts it back there), or -1 */
};

static __thread char error_path[4096];

static void set_error(struct picl_error *err, const char *name, int e, const char *what)
{
	if (!err)
		return;
	picl_set_error(err, e == ENOMEM ? PICL_ERR_NOMEM : PICL_ERR_IO, "%s: %s", what,
		       strerror(e));
	err->sys_errno = e;
	/* (no name at all is shown as the shell would write it) */
	snprintf(error_path, sizeof(error_path), "%s", *name ? name : "''");
	err->path = error_path;
	memset(&err->mark, 0, sizeof(err->mark));
}

/* The descriptor a path names in this process (/dev/stdout ...), or -1. */
static int own_descriptor(const char *path)
{
	const char *n = NULL;
	char *end;
	long fd;

	if (strcmp(path, "/dev/stdin") == 0)
		return 0;
	if (strcmp(path, "/dev/stdout") == 0)
		return 1;
	if (strcmp(path, "/dev/stderr") == 0)
		return 2;
	if (strncmp(path, "/dev/fd/", 8) == 0)
		n = path + 8;
	else if (strncmp(path, "/proc/self/fd/", 14) == 0)
		n = path + 14;
	else if (strncmp(path, "/proc/", 6) == 0) {
		/* /proc/PID/fd/N of this process (what /dev/fd/N and
		 * /proc/self/fd/N resolve to: canonical_path) */
		errno = 0;
		fd = strtol(path + 6, &end, 10);
		if (!errno && end != path + 6 && fd == (long)getpid() &&
		    strncmp(end, "/fd/", 4) == 0)
			n = end + 4;
	}
	if (!n || *n < '0' || *n > '9')
		return -1;
	errno = 0;
	fd = strtol(n, &end, 10);
	if (*end || errno || fd > INT_MAX)
		return -1;
	return (int)fd;
}

/* /dev (but /dev/shm, a file system for files), /proc and /sys: nothing
 * there is replaced by renaming. */
static int in_system_tree(const char *path)
{
	return (strncmp(path, "/dev/", 5) == 0 && strncmp(path, "/dev/shm/", 9) != 0) ||
	       strncmp(path, "/proc/", 6) == 0 || strncmp(path, "/sys/", 5) == 0;
}

/*
 * The path with its directory resolved (realpath: no "//", ".", ".." or
 * links up to the last component, which is kept as it is, so that
 * /dev/stdout stays itself), or NULL when that directory cannot be
 * resolved. So "//dev/stdout", "/tmp/../dev/stdout" or "dev/null" seen
 * from / are known for what they name: the rules above look at names.
 */
static char *canonical_path(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	char *dir, *real, *out;
	size_t n;

	if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return realpath(path, NULL);
	if (!slash)
		dir = strdup(".");
	else if (slash == path)
		dir = strdup("/");
	else
		dir = strndup(path, (size_t)(slash - path));
	if (!dir)
		return NULL;
	real = realpath(dir, NULL);
	free(dir);
	if (!real)
		return NULL;
	n = strlen(real);
	out = malloc(n + 1 + strlen(base) + 1);
	if (out) {
		memcpy(out, real, n);
		out[n] = '/';
		strcpy(out + n + (n == 0 || real[n - 1] != '/'), base);
	}
	free(real);
	return out;
}

/* What a dangling symbolic link names, relative to the link's directory
 * when it is a relative link; NULL with errno set. */
static char *dangling_target(const char *link)
{
	char buf[PATH_MAX], *out;
	const char *slash = strrchr(link, '/');
	ssize_t n = readlink(link, buf, sizeof(buf) - 1);
	size_t dirlen;

	if (n < 0)
		return NULL;
	buf[n] = '\0';
	dirlen = slash && buf[0] != '/' ? (size_t)(slash - link) + 1 : 0;
	out = malloc(dirlen + (size_t)n + 1);
	if (!out) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(out, link, dirlen);
	memcpy(out + dirlen, buf, (size_t)n + 1);
	return out;
}

/* A new temporary file "DIR/.BASE.tmpXXXXXX" for path (or in $TMPDIR when
 * path is NULL), with the given mode. */
static int make_temp(struct picl_output *o, const char *path, mode_t mode)
{
	const char *slash, *dir;
	size_t dirlen;

	if (path) {
		const char *base;
		size_t blen;

		slash = strrchr(path, '/');
		dirlen = slash ? (size_t)(slash - path) + 1 : 0;
		base = path + dirlen;
		blen = strlen(base);
		/* ".BASE.tmpXXXXXX" is a name too: for a BASE near NAME_MAX,
		 * only its start (cut before a character, for UTF-8) */
		if (blen > NAME_MAX - 11) {
			blen = NAME_MAX - 11;
			while (blen > 0 && ((unsigned char)base[blen] & 0xc0) == 0x80)
				blen--;
		}
		o->temp = malloc(dirlen + blen + 16);
		if (!o->temp)
			return -1;
		memcpy(o->temp, path, dirlen);
		sprintf(o->temp + dirlen, ".%.*s.tmpXXXXXX", (int)blen, base);
	} else {
		dir = getenv("TMPDIR");
		if (!dir || !*dir)
			dir = "/tmp";
		o->temp = malloc(strlen(dir) + 32);
		if (!o->temp)
			return -1;
		sprintf(o->temp, "%s/picl-output.XXXXXX", dir);
	}
	o->fd = mkostemp(o->temp, O_CLOEXEC);
	if (o->fd < 0) {
		free(o->temp);
		o->temp = NULL;
		return -1;
	}
	o->own_fd = 1;
	if (fchmod(o->fd, mode) < 0) {
		/* Not fatal: the file stays private. */
	}
	return 0;
}

/*
 * Where the bytes written to fd will begin, when fd is a regular file (a
 * redirected standard output, say): its offset, or its size in append
 * mode. -1 for anything else (a pipe, a terminal, a device), whose bytes
 * cannot be taken back.
 */
static off_t start_of(int fd)
{
	struct stat st;
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return -1;
	return (fl & O_APPEND) ? st.st_size : lseek(fd, 0, SEEK_CUR);
}

/*
 * Abort of a regular file written directly: take back what was written,
 * cutting the file to where our bytes began and putting its offset there
 * (so a later writer of the same redirection leaves no hole). Not when
 * something else wrote after us (the file ends elsewhere), nor when
 * standard error goes to the same file: the error message that explains
 * the abort may be in it already.
 */
static void take_back(const struct picl_output *o)
{
	struct stat st, err;
	off_t end;

	if (o->start < 0 || o->fd < 0 || fstat(o->fd, &st) < 0)
		return;
	if (fstat(2, &err) == 0 && err.st_dev == st.st_dev && err.st_ino == st.st_ino)
		return;
	end = lseek(o->fd, 0, SEEK_CUR);
	if (end < o->start || st.st_size != end)
		return;
	if (ftruncate(o->fd, o->start) == 0)
		(void)lseek(o->fd, o->start, SEEK_SET);
}

/* Direct output (a descriptor of ours, a device): fd is where it goes. */
static int direct(struct picl_output *o, int fd, int own, unsigned flags)
{
	mode_t mask;

	if (!(flags & PICL_OUTPUT_FILE)) {
		o->fd = fd;
		o->own_fd = own;
		o->start = start_of(fd);
		return 0;
	}
	o->copy_fd = fd;
	o->own_copy = own;
	mask = umask(0);
	umask(mask);
	return make_temp(o, NULL, 0600 & ~mask);
}

struct picl_output *picl_output_open(const char *path, unsigned flags, int *status,
				     struct picl_error *err)
{
	struct picl_output *o;
	struct stat st, lst;
	const char *what = "cannot create";
	char *real = NULL, *canon = NULL;
	mode_t mode, mask;
	int fd, e, existed = 0, oflags = -1, sys;

	if (!path) {
		if (err) {
			memset(err, 0, sizeof(*err));
			err->path = "<output>";
		}
		picl_set_error(err, PICL_ERR_USAGE, "no path to open (NULL)");
		if (status)
			*status = PICL_ERR_USAGE;
		return NULL;
	}
	o = calloc(1, sizeof(*o));
	if (!o || !(o->name = strdup(picl_output_name(path)))) {
		e = ENOMEM;
		goto fail;
	}
	o->fd = o->copy_fd = -1;
	o->start = -1;
	if (!*path) {
		e = ENOENT;
		goto fail;
	}

	/* The names below are the path's, or its canonical form's. */
	canon = canonical_path(path);
	sys = in_system_tree(path) || (canon && in_system_tree(canon));

	/* This process's own descriptors. */
	fd = strcmp(path, "-") == 0 ? 1 : own_descriptor(path);
	if (fd < 0 && canon)
		fd = own_descriptor(canon);
	if (fd >= 0) {
		int own = 0;

		if (fcntl(fd, F_GETFD) < 0) {
			e = errno;
			what = "cannot write";
			goto fail;
		}
		if (fd != 1 || strcmp(path, "-") != 0) {
			if ((fd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0) {
				e = errno;
				goto fail;
			}
			own = 1;
		}
		if (direct(o, fd, own, flags) < 0) {
			e = errno;
			goto fail;
		}
		goto done;
	}

	/* Devices, FIFOs, and whatever lives in /dev, /proc or /sys (a new
	 * file there created): written directly. */
	if (stat(path, &st) == 0) {
		if (!S_ISREG(st.st_mode) || sys)
			oflags = S_ISREG(st.st_mode) ? O_TRUNC : 0;
	} else if (sys && lstat(path, &lst) < 0 && errno == ENOENT) {
		oflags = O_CREAT | O_TRUNC;
	}
	if (oflags >= 0) {
		fd = open(path, O_WRONLY | O_CLOEXEC | oflags, 0666);
		if (fd < 0) {
			e = errno;
			goto fail;
		}
		if (direct(o, fd, 1, flags) < 0) {
			e = errno;
			goto fail;
		}
		goto done;
	}

	/* A regular file: replaced through a temporary file beside it. */
	mask = umask(0);
	umask(mask);
	mode = 0666 & ~mask;
	if (lstat(path, &lst) == 0) {
		if (S_ISLNK(lst.st_mode) && (real = realpath(path, NULL)) == NULL) {
			if (errno != ENOENT || !(real = dangling_target(path))) {
				e = errno;
				goto fail;
			}
		}
		if (real && in_system_tree(real)) {
			free(real);
			real = NULL;
			e = EPERM;
			what = "will not replace a file under /dev, /proc or /sys through a link";
			goto fail;
		}
		if (stat(real ? real : path, &st) == 0) {
			if (access(real ? real : path, W_OK) < 0) {
				e = errno;
				what = "cannot write";
				goto fail;
			}
			mode = st.st_mode & 07777 & ~(mode_t)(S_ISUID | S_ISGID);
			existed = 1;
		}
	}
	o->target = real ? real : strdup(path);
	real = NULL;
	if (!o->target) {
		e = ENOMEM;
		goto fail;
	}
	if (make_temp(o, o->target, mode) < 0) {
		e = errno;
		goto fail;
	}
	if (existed && fchown(o->fd, st.st_uid, st.st_gid) < 0) {
		/* Not fatal: the file is the caller's own now. */
	}
done:
	if (status)
		*status = PICL_OK;
	free(canon);
	return o;
fail:
	free(real);
	free(canon);
	if (status)
		*status = e == ENOMEM ? PICL_ERR_NOMEM : PICL_ERR_IO;
	set_error(err, o && o->name ? o->name : path, e, what);
	picl_output_abort(o);
	return NULL;
}

int picl_output_fd(const struct picl_output *o)
{
	return o ? o->fd : -1;
}

const char *picl_output_temp_path(const struct picl_output *o)
{
	return o ? o->temp : NULL;
}

int picl_write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t k = write(fd, p, n);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Copy the temporary file into copy_fd. 0, or -1 with errno set. */
static int copy_out(struct picl_output *o)
{
	char buf[65536];
	int in = open(o->temp, O_RDONLY | O_CLOEXEC), e = 0;
	ssize_t k;

	if (in < 0)
		return -1;
	while ((k = read(in, buf, sizeof(buf))) != 0) {
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 || picl_write_all(o->copy_fd, buf, (size_t)k) < 0) {
			e = errno;
			break;
		}
	}
	close(in);
	errno = e;
	return e ? -1 : 0;
}

/* After the rename: sync the directory that holds target too, so that
 * after a crash the new file, not the old one, is found under its name
 * (the file's own data were synced before the rename). Best effort: some
 * file systems refuse to sync a directory, and the file is in place. */
static void sync_dir(const char *target)
{
	const char *slash = strrchr(target, '/');
	char *dir = slash ? strndup(target, slash == target ? 1 : (size_t)(slash - target))
			  : strdup(".");
	int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;

	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
	free(dir);
}

int picl_output_commit(struct picl_output *o, struct picl_error *err)
{
	const char *what = NULL;
	int e = 0;

	if (!o) {
		if (err) {
			memset(err, 0, sizeof(*err));
			err->path = "<output>";
		}
		return picl_set_error(err, PICL_ERR_USAGE, "no output to commit (NULL)");
	}
	if (o->temp && o->target && fsync(o->fd) < 0)
		e = errno, what = "cannot sync";
	if (o->own_fd && close(o->fd) < 0 && !what)
		e = errno, what = "cannot close";
	o->own_fd = 0;
	o->fd = -1;
	if (!what && o->copy_fd >= 0 && copy_out(o) < 0)
		e = errno, what = "cannot write";
	if (!what && o->own_copy && close(o->copy_fd) < 0)
		e = errno, what = "cannot close";
	o->own_copy = 0;
	if (!what && o->target && rename(o->temp, o->target) < 0)
		e = errno, what = "cannot rename the temporary file into place";
	if (!what && o->target) {
		sync_dir(o->target);
		free(o->temp);  /* renamed: nothing to remove */
		o->temp = NULL;
	}
	if (what)
		set_error(err, o->name, e, what);
	else
		o->start = -1;  /* written: nothing to take back */
	picl_output_abort(o);
	return what ? (e == ENOMEM ? PICL_ERR_NOMEM : PICL_ERR_IO) : PICL_OK;
}

void picl_output_abort(struct picl_output *o)
{
	if (!o)
		return;
	take_back(o);
	if (o->own_fd)
		close(o->fd);
	if (o->own_copy)
		close(o->copy_fd);
	if (o->temp)
		unlink(o->temp);
	free(o->temp);
	free(o->target);
	free(o->name);
	free(o);
}
