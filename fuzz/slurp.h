/*
 * slurp.h - a whole file in memory, for the replay driver (replay.c) and
 * the targets that read back what a command wrote (fuzz-commands.c).
 */
#ifndef PICL_FUZZ_SLURP_H
#define PICL_FUZZ_SLURP_H

#include <stdio.h>
#include <stdlib.h>

/* The bytes of the file at path, in a buffer of exactly their number (so
 * that AddressSanitizer catches a target reading one past the end, as
 * under libFuzzer), which goes in *len; NULL if it cannot be opened or
 * read. */
static inline char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) < 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) < 0 ||
	    !(buf = malloc(n > 0 ? (size_t)n : 1)) || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return buf;
}

#endif
