/*
 * fdio.h - the little the library and the picltrace commands share in code
 * about standard streams and descriptors; not installed.
 *
 * The commands cannot call the library's hidden functions (only picl_* of
 * picl-trace.h is exported), yet both name standard output in messages
 * and both read descriptors that may be non-blocking. Written out in each,
 * the copies drifted apart (some commands said "-"; the two read loops
 * tested errno in different orders); this header is the one copy of the
 * text, and each file that includes it compiles its own (static inline,
 * so nothing enters the library's exported symbols).
 */
#ifndef PICL_FDIO_H
#define PICL_FDIO_H

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* The name messages give an output path: "<stdout>" for "-" (standard
 * output), else path itself. */
static inline const char *picl_output_name(const char *path)
{
	return strcmp(path, "-") == 0 ? "<stdout>" : path;
}

/*
 * read(2) of up to cap bytes from fd that waits as a blocking read would:
 * retried after a signal (EINTR), and on a non-blocking descriptor (a
 * standard input some parents leave so) after poll(2) says data or the
 * end is there. > 0 bytes read, 0 at the end, -1 with errno set.
 */
static inline ssize_t picl_read_wait(int fd, void *buf, size_t cap)
{
	for (;;) {
		ssize_t n = read(fd, buf, cap);
		struct pollfd p = { fd, POLLIN, 0 };

		if (n >= 0 || (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK))
			return n;
		if (errno != EINTR && poll(&p, 1, -1) < 0 && errno != EINTR)
			return -1;
	}
}

#endif
