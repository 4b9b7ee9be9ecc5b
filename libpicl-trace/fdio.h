/*
 * fdio.h - the little the library and the picltrace commands share in code
 * about standard streams and descriptors; not installed.
 *
 * The commands cannot call the library's hidden functions (only picl_* of
 * picl-trace.h is exported), yet both name standard output in messages.
 * Written out in each, the copies drifted apart (some commands said "-");
 * this header is the one copy of the text, and each file that includes it
 * compiles its own (static inline, so nothing enters the library's
 * exported symbols).
 */
#ifndef PICL_FDIO_H
#define PICL_FDIO_H

#include <string.h>

/* The name messages give an output path: "<stdout>" for "-" (standard
 * output), else path itself. */
static inline const char *picl_output_name(const char *path)
{
	return strcmp(path, "-") == 0 ? "<stdout>" : path;
}

#endif
