/*
 * fuzz-schema.c - libFuzzer target for the schema loader (our checks on top
 * of libyaml's parser). The input is loaded as a schema, then as a user
 * schema extending the project's own (PICL_SCHEMA, else the source tree's
 * schemas/picl.yaml built in as FUZZ_SCHEMA_FILE), twice: a user schema
 * that extends once must extend again (its types replace their own), and
 * one that fails must leave the schema as it was. Every load must succeed
 * or fail with a located error, never crash or leak; look-ups on what
 * loaded (events, records, their data fields) must hand back what was
 * described.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "picl-trace.h"

#ifndef FUZZ_SCHEMA_FILE
#define FUZZ_SCHEMA_FILE "schemas/picl.yaml"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Types worth looking up: the format's, around the direct table's borders
 * (-1024 and 1024), and the extremes. */
static const int32_t far_types[] = {
	INT32_MIN, INT32_MIN + 1, -2000, -1025, -1024, 1023, 1024, 1025,
	100000, INT32_MAX - 1, INT32_MAX
};

static void check_data(const struct picl_schema_data *d)
{
	size_t i;

	if (!d)
		return;
	if (d->nfields && !d->fields)
		abort();
	if (!d->variable && d->picl_fields > d->max_fields)
		abort();
	for (i = 0; i < d->nfields; i++)
		if (!d->fields[i].name || !d->fields[i].kind)
			abort();
}

static void check_type(const struct picl_schema *s, int32_t t)
{
	const struct picl_schema_event *e = picl_schema_event(s, t);
	const struct picl_schema_record *r = picl_schema_record(s, t);

	if (e) {
		if (!e->name || !e->category || e->type > t)
			abort();
		check_data(e->mark);
		check_data(e->entry);
		check_data(e->exit);
	}
	if (r && (!r->name || !r->category || r->type > t))
		abort();
}

static void check_lookups(const struct picl_schema *s)
{
	size_t i;
	int32_t t;

	for (t = -1100; t < 20; t++)
		check_type(s, t);
	for (i = 0; i < sizeof(far_types) / sizeof(far_types[0]); i++)
		check_type(s, far_types[i]);
}

static void located(const struct picl_error *err)
{
	if (err->code >= 0 || !err->problem[0] || !err->path)
		abort(); /* a failure must say what and where */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct picl_error err = { 0 };
	struct picl_schema *s;
	const char *base = getenv("PICL_SCHEMA");
	char path[64];
	int fd = memfd_create("schema", 0);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	s = picl_schema_load(path, &err);
	if (!s) {
		located(&err);
	} else {
		check_lookups(s);
		picl_schema_free(s);
	}

	if (!base || !*base)
		base = FUZZ_SCHEMA_FILE;
	s = picl_schema_load(base, &err);
	if (s) {
		const struct picl_schema_event *send0 = picl_schema_event(s, -21);
		const struct picl_schema_event *seven = picl_schema_event(s, 7);

		if (picl_schema_extend(s, path, &err) == PICL_OK) {
			check_lookups(s);
			if (picl_schema_extend(s, path, &err) != PICL_OK)
				abort(); /* its own types may be replaced */
			check_lookups(s);
		} else {
			located(&err);
			/* nothing changed */
			if (picl_schema_event(s, -21) != send0 ||
			    picl_schema_event(s, 7) != seven)
				abort();
		}
		if (picl_schema_event(s, -21) != send0)
			abort(); /* the format's types stay */
		picl_schema_free(s);
	}
	close(fd);
	return 0;
}
