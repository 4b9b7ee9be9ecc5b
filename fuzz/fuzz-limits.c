/*
 * fuzz-limits.c - libFuzzer target for the memory cgroup's look-up
 * (picltrace/limits.c): the input is a /proc/self/cgroup, a NUL byte and
 * a /proc/self/mountinfo (no NUL: an empty mountinfo), written to files
 * of a private directory and read by picltrace_cgroup_limit. It must not
 * crash or read out of bounds, and a limit it finds must name the file it
 * came from, one of the three limit files.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64], cgroup[96], mountinfo[96];

static void put(const char *path, const uint8_t *p, size_t n)
{
	FILE *f = fopen(path, "w");

	if (!f)
		abort();
	if (n && fwrite(p, 1, n, f) != n)
		abort();
	if (fclose(f) != 0)
		abort();
}

static void remove_dir(void)
{
	unlink(cgroup);
	unlink(mountinfo);
	rmdir(dir);
}

static int ends_with(const char *s, const char *end)
{
	size_t a = strlen(s), b = strlen(end);

	return a >= b && !strcmp(s + a - b, end);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t n = nul ? (size_t)(nul - data) : size;
	char from[4096 + 128];
	uint64_t v;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/picl-fuzz-limits.XXXXXX");
		if (!mkdtemp(dir))
			abort();
		snprintf(cgroup, sizeof(cgroup), "%s/cgroup", dir);
		snprintf(mountinfo, sizeof(mountinfo), "%s/mountinfo", dir);
		atexit(remove_dir);
	}
	put(cgroup, data, n);
	put(mountinfo, nul ? nul + 1 : data, nul ? size - n - 1 : 0);
	from[0] = '\0';
	v = picltrace_cgroup_limit(cgroup, mountinfo, from, sizeof(from));
	if (v != UINT64_MAX && !ends_with(from, "/memory.max") &&
	    !ends_with(from, "/memory.high") && !ends_with(from, "/memory.limit_in_bytes"))
		abort();
	return 0;
}
