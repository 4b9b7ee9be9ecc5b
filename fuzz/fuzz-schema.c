/*
 * fuzz-schema.c - libFuzzer target for the schema loader (our checks on top
 * of libyaml's parser). The input is loaded as a schema, then as an
 * extension of the project's own schema when PICL_SCHEMA names it; either
 * must load or fail with a located error, never crash or leak. Look-ups on
 * what loaded must hand back what was described.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "picl-trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct picl_error err = { 0 };
	struct picl_schema *s;
	char path[64];
	int fd = memfd_create("schema", 0);
	int32_t t;

	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	s = picl_schema_load(path, &err);
	if (!s) {
		if (err.code >= 0 || !err.problem[0])
			abort(); /* a failure must say what and where */
	} else {
		for (t = -1100; t < 20; t++) {
			const struct picl_schema_event *e = picl_schema_event(s, t);

			if (e && !e->name)
				abort();
		}
		picl_schema_free(s);
	}
	if (getenv("PICL_SCHEMA")) {
		s = picl_schema_load(getenv("PICL_SCHEMA"), &err);
		if (s) {
			(void)picl_schema_extend(s, path, &err);
			picl_schema_free(s);
		}
	}
	close(fd);
	return 0;
}
