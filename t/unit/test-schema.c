/*
 * test-schema.c - Check tests of the schema loader (libpicl-trace/schema.c)
 * and of the schema itself (schemas/picl.yaml) against the spec's tables.
 *
 * The schema is $PICL_SCHEMA (set by `make check`) or the source tree's
 * schemas/picl.yaml (PICL_TESTDATA "/../schemas/picl.yaml"). Bad schemas for
 * the error cases are written to temporary files under /tmp.
 */
#include "picl-trace.h"
#include "tmp.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#ifndef PICL_TESTDATA
#define PICL_TESTDATA "testdata"
#endif

enum { MARK = 1 << 0, ENTRY_EXIT = 1 << 1, NONE = 1 << 2 };

static struct picl_schema *schema;

static const char *schema_path(void)
{
	const char *env = getenv("PICL_SCHEMA");

	return env && *env ? env : PICL_TESTDATA "/../schemas/picl.yaml";
}

static void setup(void)
{
	struct picl_error err;
	char buf[512];

	memset(&err, 0, sizeof(err));
	schema = picl_schema_load(schema_path(), &err);
	if (!schema)
		ck_abort_msg("loading %s: %s", schema_path(),
			     picl_error_format(&err, buf, sizeof(buf)));
}

static void teardown(void)
{
	picl_schema_free(schema);
	schema = NULL;
}

/* Write text to a new temporary file; the caller unlinks and frees. */
static char *temp_schema(const char *text)
{
	char *path = malloc(512);
	int fd;
	size_t len = strlen(text);

	ck_assert_ptr_nonnull(path);
	ck_assert_int_lt(test_tmp_path(path, 512, "test-schema-XXXXXX"), 512);

	ck_assert_ptr_nonnull(path);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
	close(fd);
	return path;
}

/* Load text as a schema; expect failure; return the error. */
static struct picl_error load_bad(const char *text)
{
	struct picl_error err;
	char *path = temp_schema(text);
	struct picl_schema *s;

	memset(&err, 0, sizeof(err));
	s = picl_schema_load(path, &err);
	unlink(path);
	picl_schema_free(s);
	ck_assert_ptr_null(s);
	ck_assert_ptr_nonnull(err.path);
	ck_assert_str_eq(err.path, path);
	free(path);
	return err;
}

static const struct picl_schema_event *event(int32_t type)
{
	const struct picl_schema_event *e = picl_schema_event(schema, type);

	ck_assert_msg(e != NULL, "event type %d is not in the schema", (int)type);
	return e;
}

/* ---- the facts of the spec ---------------------------------------------- */

/* Every event type of Tables 4 and 5 (with -905 for traceinfo, which Table 5
 * misprints as a second -904). */
static const int32_t all_events[] = {
	-1, -11, -12, -13, -14, -21, -27, -28, -29, -30, -31, -51, -52, -53,
	-54, -55, -56, -57, -58, -59, -60, -61, -201, -202, -221, -251, -401,
	-402, -501, -502, -503, -601, -602, -603, -901, -902, -903, -904, -905,
	-911, -912, -913, -914, -1001, -1002, -1011, -1012, -1013, -1014, -1201,
	-1401, -1501, -1601, -1901, -1902
};

START_TEST(test_every_event_type)
{
	size_t i;

	for (i = 0; i < sizeof(all_events) / sizeof(all_events[0]); i++) {
		const struct picl_schema_event *e = event(all_events[i]);

		ck_assert_int_eq(e->type, all_events[i]);
		ck_assert_ptr_nonnull(e->name);
		ck_assert_ptr_nonnull(e->category);
		ck_assert_int_ne(e->kinds, 0);
	}
	/* user events (>= 0) are described by a range; Table 4 gives them no
	 * command, and PICL writes both marks (tracemark) and entry/exit
	 * (traceblockbegin/end) for them */
	ck_assert_str_eq(event(0)->category, "user");
	ck_assert_ptr_null(event(0)->command);
	ck_assert_int_eq(event(7)->kinds, MARK | ENTRY_EXIT);
	ck_assert_str_eq(event(12345)->category, "user");
	ck_assert_ptr_null(picl_schema_event(schema, -2));
	ck_assert_ptr_null(picl_schema_event(schema, -20));
	ck_assert_ptr_null(picl_schema_event(schema, -2000));
}
END_TEST

START_TEST(test_send0)
{
	const struct picl_schema_event *e = event(-21);
	const struct picl_schema_data *d = e->entry;

	ck_assert_str_eq(e->name, "send0");
	ck_assert_str_eq(e->command, "send0");
	ck_assert_str_eq(e->category, "communication");
	ck_assert_int_eq(e->kinds, ENTRY_EXIT);
	ck_assert_ptr_null(e->mark);
	ck_assert_ptr_nonnull(d);
	ck_assert_str_eq(d->descriptor, "%d");
	ck_assert_int_eq(d->variable, 0);
	ck_assert_uint_eq(d->max_fields, 4);
	ck_assert_uint_eq(d->picl_fields, 3);
	ck_assert_uint_eq(d->nfields, 4);
	ck_assert_int_eq(d->fields[0].role, PICL_ROLE_LENGTH);
	ck_assert_int_eq(d->fields[0].volume, 1);
	ck_assert_str_eq(d->fields[0].kind, "int");
	ck_assert_int_eq(d->fields[1].role, PICL_ROLE_MSGTYPE);
	ck_assert_int_eq(d->fields[2].role, PICL_ROLE_PEER_PROCESSOR);
	ck_assert_int_eq(d->fields[3].role, PICL_ROLE_PEER_PROCESS);
	ck_assert_int_eq(d->fields[3].volume, 0);
	ck_assert_ptr_nonnull(e->exit);
	ck_assert_uint_eq(e->exit->nfields, 0);
	ck_assert_uint_eq(e->exit->max_fields, 0);
	ck_assert_ptr_null(e->exit->descriptor);
}
END_TEST

START_TEST(test_recv0)
{
	static const int32_t blocking[] = { -51, -52, -56 };
	size_t i;

	for (i = 0; i < 3; i++) {
		const struct picl_schema_event *e = event(blocking[i]);

		ck_assert_int_eq(e->kinds, ENTRY_EXIT);
		ck_assert_uint_eq(e->entry->max_fields, 3);
		ck_assert_uint_eq(e->entry->picl_fields, 1);
		ck_assert_int_eq(e->entry->fields[0].role, PICL_ROLE_REQ_TYPE);
		ck_assert_int_eq(e->entry->fields[1].role, PICL_ROLE_REQ_PROCESSOR);
		ck_assert_int_eq(e->entry->fields[2].role, PICL_ROLE_REQ_PROCESS);
		ck_assert_uint_eq(e->exit->max_fields, 4);
		ck_assert_uint_eq(e->exit->picl_fields, 3);
		ck_assert_uint_eq(e->exit->nfields, 4);
		ck_assert_int_eq(e->exit->fields[0].role, PICL_ROLE_LENGTH);
		ck_assert_int_eq(e->exit->fields[1].role, PICL_ROLE_MSGTYPE);
		ck_assert_int_eq(e->exit->fields[2].role, PICL_ROLE_PEER_PROCESSOR);
		ck_assert_int_eq(e->exit->fields[3].role, PICL_ROLE_PEER_PROCESS);
	}
	ck_assert_str_eq(event(-52)->command, "recv0");
	ck_assert_str_eq(event(-56)->command, "wait0");
}
END_TEST

START_TEST(test_request_ids)
{
	ck_assert_int_eq(event(-27)->exit->fields[0].role, PICL_ROLE_REQUEST_ID);
	ck_assert_int_eq(event(-28)->entry->fields[0].role, PICL_ROLE_REQUEST_ID);
	ck_assert_int_eq(event(-30)->entry->fields[0].role, PICL_ROLE_REQUEST_ID);
	ck_assert_int_eq(event(-31)->entry->fields[0].role, PICL_ROLE_REQUEST_ID);
	ck_assert_int_eq(event(-57)->exit->fields[0].role, PICL_ROLE_REQUEST_ID);
	ck_assert_int_eq(event(-58)->entry->fields[0].role, PICL_ROLE_REQUEST_ID);
	ck_assert_int_eq(event(-60)->entry->fields[0].role, PICL_ROLE_REQUEST_ID);
	ck_assert_int_eq(event(-61)->entry->fields[0].role, PICL_ROLE_REQUEST_ID);
}
END_TEST

START_TEST(test_marks_and_none)
{
	static const int32_t none[] = { -13, -14, -29, -53, -54, -55, -59, -905,
					-1001, -1002, -1011, -1014, -1902 };
	static const int32_t marks[] = { -12, -904, -913, -914 };
	size_t i;

	for (i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
		const struct picl_schema_event *e = event(none[i]);

		ck_assert_int_eq(e->kinds, NONE);
		ck_assert_ptr_null(e->mark);
		ck_assert_ptr_null(e->entry);
		ck_assert_ptr_null(e->exit);
	}
	for (i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		const struct picl_schema_event *e = event(marks[i]);

		ck_assert_int_eq(e->kinds, MARK);
		ck_assert_ptr_nonnull(e->mark);
		ck_assert_ptr_null(e->entry);
		ck_assert_uint_eq(e->mark->nfields, marks[i] == -904 ? 3 : 0);
	}
	ck_assert_str_eq(event(-904)->mark->descriptor, "%d");
	ck_assert_str_eq(event(-904)->mark->fields[2].kind, "int");
	ck_assert_str_eq(event(-53)->command, "probe0");
	ck_assert_str_eq(event(-1012)->category, "subset");
	ck_assert_ptr_null(event(-1012)->command);
}
END_TEST

START_TEST(test_volume_fields)
{
	/* The fields that are the volume statistic (section 2.3.7): event type,
	 * 'n' entry / 'x' exit, index. Nothing else may be marked. */
	static const struct { int32_t type; char which; size_t index; } vol[] = {
		{ -21, 'n', 0 }, { -27, 'n', 0 }, { -51, 'x', 0 }, { -52, 'x', 0 },
		{ -56, 'x', 0 }, { -58, 'x', 0 }, { -60, 'x', 0 }, { -61, 'x', 0 },
		{ -221, 'n', 0 }, { -251, 'x', 0 }, { -911, 'n', 0 }, { -912, 'x', 0 }
	};
	size_t i, j, k, total = 0;

	for (i = 0; i < sizeof(vol) / sizeof(vol[0]); i++) {
		const struct picl_schema_event *e = event(vol[i].type);
		const struct picl_schema_data *d = vol[i].which == 'n' ? e->entry : e->exit;

		ck_assert_ptr_nonnull(d);
		ck_assert_uint_gt(d->nfields, vol[i].index);
		ck_assert_msg(d->fields[vol[i].index].volume,
			      "event %d: field %zu is not the volume",
			      (int)vol[i].type, vol[i].index);
		ck_assert_int_eq(d->fields[vol[i].index].role, PICL_ROLE_LENGTH);
	}
	for (i = 0; i < sizeof(all_events) / sizeof(all_events[0]); i++) {
		const struct picl_schema_event *e = event(all_events[i]);
		const struct picl_schema_data *ds[3] = { e->mark, e->entry, e->exit };

		for (j = 0; j < 3; j++)
			for (k = 0; ds[j] && k < ds[j]->nfields; k++)
				total += ds[j]->fields[k].volume != 0;
	}
	ck_assert_uint_eq(total, sizeof(vol) / sizeof(vol[0]));
	/* -57 recvbegin0 has no length field, so no volume */
	ck_assert_int_eq(event(-57)->exit->fields[0].volume, 0);
}
END_TEST

START_TEST(test_other_data)
{
	const struct picl_schema_event *e;

	e = event(-201);        /* file open: %c variable, then "%d" */
	ck_assert_int_eq(e->entry->variable, 1);
	ck_assert_str_eq(e->entry->descriptor, "%c");
	ck_assert_uint_eq(e->entry->nfields, 1);
	ck_assert_str_eq(e->entry->fields[0].kind, "chars");
	ck_assert_uint_eq(e->exit->max_fields, 1);
	ck_assert_ptr_null(e->command);
	ck_assert_str_eq(e->category, "file-io");

	e = event(-401);        /* clocksync0: 2 (0) */
	ck_assert_uint_eq(e->entry->max_fields, 2);
	ck_assert_uint_eq(e->entry->picl_fields, 0);
	ck_assert_str_eq(e->category, "synchronization");

	e = event(-503);        /* load0 */
	ck_assert_int_eq(e->entry->variable, 1);
	ck_assert_uint_eq(e->exit->nfields, 2);
	ck_assert_str_eq(e->category, "resource");

	e = event(-901);
	ck_assert_str_eq(e->name, "tracing");
	ck_assert_int_eq(e->kinds, ENTRY_EXIT);
	ck_assert_ptr_nonnull(e->exit);

	e = event(-1);
	ck_assert_str_eq(e->category, "wildcard");
	ck_assert_uint_eq(e->entry->nfields, 0);
}
END_TEST

START_TEST(test_records)
{
	static const int32_t table3[] = { -2, -3, -4, -5, -6, -7, -101, -102,
					  -103, -201, -202, -203 };
	const struct picl_schema_record *r;
	size_t i;

	for (i = 0; i < sizeof(table3) / sizeof(table3[0]); i++) {
		r = picl_schema_record(schema, table3[i]);
		ck_assert_msg(r != NULL, "record type %d missing", (int)table3[i]);
		ck_assert_int_eq(r->type, table3[i]);
	}
	r = picl_schema_record(schema, -101);
	ck_assert_str_eq(r->descriptor, "%d%lf");
	ck_assert_int_eq(r->variable, 1);
	ck_assert_str_eq(r->category, "statistics");
	ck_assert_str_eq(picl_schema_record(schema, -102)->descriptor, "%d%d");
	ck_assert_str_eq(picl_schema_record(schema, -103)->descriptor, "%d%d");
	r = picl_schema_record(schema, -6);
	ck_assert_str_eq(r->descriptor, "%d%s");
	ck_assert_int_eq(r->variable, 0);
	ck_assert_uint_eq(r->max_fields, 1);
	ck_assert_str_eq(r->category, "descriptor");
	/* the count as max_fields: variable, or not given, is SIZE_MAX */
	ck_assert_uint_eq(picl_schema_record(schema, -302)->max_fields, 1);
	ck_assert_uint_eq(picl_schema_record(schema, -101)->max_fields, SIZE_MAX);
	ck_assert_uint_eq(picl_schema_record(schema, -3)->max_fields, SIZE_MAX);
	ck_assert_str_eq(picl_schema_record(schema, -5)->descriptor, "%c");
	ck_assert_str_eq(picl_schema_record(schema, -5)->category, "label");
	ck_assert_str_eq(picl_schema_record(schema, -7)->category, "message");
	ck_assert_str_eq(picl_schema_record(schema, -203)->descriptor, "%d");
	ck_assert_str_eq(picl_schema_record(schema, -203)->category, "subset");
	ck_assert_str_eq(picl_schema_record(schema, -3)->category, "event");
	ck_assert_ptr_null(picl_schema_record(schema, -3)->descriptor);

	for (i = 301; i <= 307; i++) {
		r = picl_schema_record(schema, -(int32_t)i);
		ck_assert_msg(r != NULL, "header record -%zu missing", i);
		ck_assert_str_eq(r->category, "header");
		ck_assert_int_eq(r->type, -(int32_t)i);
	}
	r = picl_schema_record(schema, -302);
	ck_assert_str_eq(r->descriptor, "%lf");
	ck_assert_int_eq(r->variable, 0);
	ck_assert_str_eq(picl_schema_record(schema, -305)->descriptor, "%d%s");
	ck_assert_str_eq(picl_schema_record(schema, -306)->descriptor, "%c");
	ck_assert_str_eq(picl_schema_record(schema, -307)->descriptor, "%d");
	ck_assert_str_eq(picl_schema_record(schema, -399)->category, "header");

	r = picl_schema_record(schema, 42);     /* user-defined: the range */
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(r->category, "user");
	ck_assert_ptr_null(picl_schema_record(schema, -1));
	ck_assert_ptr_null(picl_schema_record(schema, -8));
	ck_assert_ptr_null(picl_schema_record(schema, -300));
	ck_assert_ptr_null(picl_schema_record(schema, -400));
}
END_TEST

/* ---- the schema's event subsets against the built-in ones ---------------- */

/* The members of the predefined event subsets are written in the schema
 * (`members`) and built into defs.c, which every tool uses (DESIGN.md
 * point 7). The schema's file is read here with libyaml, as the loader
 * keeps `members` to itself, and each subset is compared with
 * picl_defs_matches over a wide span of event types. */

static yaml_node_t *map_get(yaml_document_t *doc, yaml_node_t *map, const char *key)
{
	yaml_node_pair_t *p;

	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);

		if (k && k->type == YAML_SCALAR_NODE &&
		    strcmp((const char *)k->data.scalar.value, key) == 0)
			return yaml_document_get_node(doc, p->value);
	}
	return NULL;
}

static int64_t scalar_int(yaml_node_t *n)
{
	const char *v;

	ck_assert_ptr_nonnull(n);
	ck_assert_int_eq(n->type, YAML_SCALAR_NODE);
	v = (const char *)n->data.scalar.value;
	if (strcmp(v, "min") == 0)
		return INT32_MIN;
	if (strcmp(v, "max") == 0)
		return INT32_MAX;
	return strtoll(v, NULL, 10);
}

/* 1 if event type e is a member by the schema's `members` mapping. */
static int schema_member(yaml_document_t *doc, yaml_node_t *members, int32_t e)
{
	yaml_node_t *range = map_get(doc, members, "range");
	yaml_node_t *list = map_get(doc, members, "list");
	yaml_node_t *ex = map_get(doc, members, "exclude-subsets");
	yaml_node_item_t *it;
	int in = 0;

	if (range) {
		ck_assert_int_eq(range->type, YAML_SEQUENCE_NODE);
		it = range->data.sequence.items.start;
		in = scalar_int(yaml_document_get_node(doc, it[0])) <= e &&
		     e <= scalar_int(yaml_document_get_node(doc, it[1]));
	}
	for (it = list ? list->data.sequence.items.start : NULL;
	     list && it < list->data.sequence.items.top; it++)
		in |= scalar_int(yaml_document_get_node(doc, *it)) == e;
	if (in && ex && strcmp((const char *)ex->data.scalar.value, "true") == 0) {
		const struct picl_schema_event *se = picl_schema_event(schema, e);

		in = !(se && strcmp(se->category, "subset") == 0);
	}
	return in;
}

START_TEST(test_subset_members)
{
	FILE *fp = fopen(schema_path(), "rb");
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *events;
	yaml_node_item_t *it;
	struct picl_defs *defs = picl_defs_new();
	size_t nsubsets = 0;

	ck_assert_ptr_nonnull(fp);
	ck_assert_ptr_nonnull(defs);
	ck_assert(yaml_parser_initialize(&parser));
	yaml_parser_set_input_file(&parser, fp);
	ck_assert(yaml_parser_load(&parser, &doc));
	events = map_get(&doc, yaml_document_get_root_node(&doc), "events");
	ck_assert_ptr_nonnull(events);
	for (it = events->data.sequence.items.start; it < events->data.sequence.items.top; it++) {
		yaml_node_t *ev = yaml_document_get_node(&doc, *it);
		yaml_node_t *members = map_get(&doc, ev, "members");
		int32_t id, e;

		if (!members)
			continue;
		id = (int32_t)scalar_int(map_get(&doc, ev, "type"));
		ck_assert_msg(picl_defs_subset_exists(defs, PICL_SUBSET_EVENTS, id),
			      "schema subset %d is not built in", (int)id);
		for (e = -3000; e <= 3000; e++)
			ck_assert_msg(e == id ||     /* a pattern matches itself */
				      schema_member(&doc, members, e) ==
				      picl_defs_matches(defs, PICL_SUBSET_EVENTS, id, e),
				      "event %d: the schema says %s member of %d, defs.c %s",
				      (int)e, schema_member(&doc, members, e) ? "a" : "no",
				      (int)id,
				      picl_defs_matches(defs, PICL_SUBSET_EVENTS, id, e) ?
				      "that it is" : "that it is not");
		ck_assert_int_eq(schema_member(&doc, members, INT32_MIN),
				 picl_defs_matches(defs, PICL_SUBSET_EVENTS, id, INT32_MIN));
		ck_assert_int_eq(schema_member(&doc, members, INT32_MAX),
				 picl_defs_matches(defs, PICL_SUBSET_EVENTS, id, INT32_MAX));
		nsubsets++;
	}
	ck_assert_uint_eq(nsubsets, 12);          /* Table 5: -1001 ... -1902 */
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	fclose(fp);
	picl_defs_free(defs);
}
END_TEST

/* The schema's aliases are those the library builds in (Table 2). */
START_TEST(test_aliases_builtin)
{
	FILE *fp = fopen(schema_path(), "rb");
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *aliases;
	yaml_node_item_t *it;
	struct picl_defs *defs = picl_defs_new();
	size_t n = 0;

	ck_assert_ptr_nonnull(fp);
	ck_assert_ptr_nonnull(defs);
	ck_assert(yaml_parser_initialize(&parser));
	yaml_parser_set_input_file(&parser, fp);
	ck_assert(yaml_parser_load(&parser, &doc));
	aliases = map_get(&doc, yaml_document_get_root_node(&doc), "aliases");
	ck_assert_ptr_nonnull(aliases);
	for (it = aliases->data.sequence.items.start; it < aliases->data.sequence.items.top; it++) {
		yaml_node_t *a = yaml_document_get_node(&doc, *it);
		int64_t alias = scalar_int(map_get(&doc, a, "alias"));
		yaml_node_t *d = map_get(&doc, a, "descriptor");
		const struct picl_descriptor *desc =
			picl_defs_lookup_alias(defs, alias, -1, -1, -1);

		ck_assert_msg(desc != NULL, "alias %lld is not built in", (long long)alias);
		ck_assert_str_eq(picl_descriptor_control(desc), (const char *)d->data.scalar.value);
		n++;
	}
	ck_assert_uint_eq(n, 6);
	ck_assert_ptr_null(picl_defs_lookup_alias(defs, 6, -1, -1, -1));
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	fclose(fp);
	picl_defs_free(defs);
}
END_TEST

/* ---- loading: defaults, extension, errors -------------------------------- */

START_TEST(test_extend_user_event)
{
	struct picl_error err;
	const struct picl_schema_event *e, *send0 = event(-21);
	char *path = temp_schema(
		"# a user schema\n"
		"events:\n"
		"  - type: 7\n"
		"    name: solver\n"
		"    command: null\n"
		"    category: user\n"
		"    produces: entry/exit\n"
		"    entry: {descriptor: \"%d\", count: 1,\n"
		"            fields: [{name: iteration, kind: int}]}\n"
		"    exit: {count: 0}\n"
		"records:\n"
		"  - type: 3\n"
		"    name: residual\n"
		"    category: user\n"
		"    descriptor: \"%lf\"\n"
		"    count: 1\n");

	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(picl_schema_extend(schema, path, &err), PICL_OK);
	e = event(7);
	ck_assert_int_eq(e->type, 7);
	ck_assert_str_eq(e->name, "solver");
	ck_assert_ptr_null(e->command);
	ck_assert_int_eq(e->kinds, ENTRY_EXIT);
	ck_assert_str_eq(e->entry->fields[0].name, "iteration");
	ck_assert_uint_eq(e->entry->picl_fields, 1);
	/* the neighbours are still the range; older pointers stay valid */
	ck_assert_str_eq(event(6)->name, "user event");
	ck_assert_str_eq(event(8)->name, "user event");
	ck_assert_ptr_eq(event(-21), send0);
	ck_assert_str_eq(send0->name, "send0");
	ck_assert_str_eq(picl_schema_record(schema, 3)->name, "residual");
	ck_assert_uint_eq(picl_schema_record(schema, 3)->max_fields, 1);
	ck_assert_str_eq(picl_schema_record(schema, 4)->name, "user-defined record");
	ck_assert_uint_eq(picl_schema_record(schema, 4)->max_fields, SIZE_MAX);

	/* a later file replaces the type */
	unlink(path);
	free(path);
	path = temp_schema("events:\n"
			   "  - {type: 7, name: solver2, category: user, produces: mark}\n");
	ck_assert_int_eq(picl_schema_extend(schema, path, &err), PICL_OK);
	ck_assert_str_eq(event(7)->name, "solver2");
	ck_assert_int_eq(event(7)->kinds, MARK);

	/* a failed extension changes nothing */
	unlink(path);
	free(path);
	path = temp_schema("events:\n"
			   "  - {type: 7, name: solver3, category: user, produces: mark}\n"
			   "  - {type: 9, name: broken, category: user}\n");
	ck_assert_int_eq(picl_schema_extend(schema, path, &err), PICL_ERR_SCHEMA);
	ck_assert_int_eq(err.code, PICL_ERR_SCHEMA);
	ck_assert_uint_eq(err.mark.line, 3);
	ck_assert_ptr_nonnull(strstr(err.problem, "produces"));
	ck_assert_str_eq(event(7)->name, "solver2");
	ck_assert_str_eq(event(9)->name, "user event");

	/* a user schema may only add types: the format's -21 is refused, at
	 * its line, and nothing of the file is taken */
	unlink(path);
	free(path);
	path = temp_schema("events:\n"
			   "  - {type: 7, name: solver4, category: user, produces: mark}\n"
			   "  - {type: -21, name: mysend, category: communication, produces: mark}\n");
	ck_assert_int_eq(picl_schema_extend(schema, path, &err), PICL_ERR_SCHEMA);
	ck_assert_uint_eq(err.mark.line, 3);
	ck_assert_uint_eq(err.mark.column, 12);
	ck_assert_ptr_nonnull(strstr(err.problem, "a user schema may only add types"));
	ck_assert_str_eq(event(7)->name, "solver2");
	ck_assert_ptr_eq(event(-21), send0);
	unlink(path);
	free(path);
}
END_TEST

/* A range that replaces the identical range of an earlier file is then
 * the most recently defined one (picl-schema(5)): it wins over a range of
 * the earlier file that was defined after the one it replaces. */
START_TEST(test_extend_range_replaced_is_newest)
{
	struct picl_error err;
	char *path = temp_schema(
		"events:\n"
		"  - {range: [2000, 2010], name: first, category: user, produces: mark}\n"
		"  - {range: [2005, 2020], name: second, category: user, produces: mark}\n"
		"  - {range: [-1010, -1005], name: low first, category: subset, produces: mark}\n"
		"  - {range: [-1008, -1003], name: low second, category: subset, produces: mark}\n");

	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(picl_schema_extend(schema, path, &err), PICL_OK);
	ck_assert_str_eq(event(2007)->name, "second");
	ck_assert_str_eq(event(-1007)->name, "low second");
	unlink(path);
	free(path);
	path = temp_schema(
		"events:\n"
		"  - {range: [2000, 2010], name: first again, category: user, produces: mark}\n"
		"  - {range: [-1010, -1005], name: low first again, category: subset, produces: mark}\n");
	ck_assert_int_eq(picl_schema_extend(schema, path, &err), PICL_OK);
	ck_assert_str_eq(event(2007)->name, "first again");
	ck_assert_str_eq(event(2002)->name, "first again");
	ck_assert_str_eq(event(2015)->name, "second");
	ck_assert_str_eq(event(-1007)->name, "low first again");   /* the direct table */
	ck_assert_str_eq(event(-1003)->name, "low second");
	ck_assert_str_eq(event(2100)->name, "user event");
	unlink(path);
	free(path);
}
END_TEST

/* Types near -1024 and 1024 are found through two different tables (a
 * direct one, a search): a range across the border reads the same on
 * both sides, and a later exact type inside it wins on both. */
START_TEST(test_extend_across_direct_border)
{
	struct picl_error err;
	char *path = temp_schema(
		"events:\n"
		"  - {range: [1000, 1100], name: band, category: user, produces: mark}\n"
		"  - {range: [-1030, -1015], name: low band, category: subset, produces: mark}\n"
		"  - {type: 1024, name: edge, category: user, produces: mark}\n"
		"  - {type: 1023, name: inside, category: user, produces: mark}\n");
	int32_t t;

	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(picl_schema_extend(schema, path, &err), PICL_OK);
	for (t = 1000; t <= 1100; t++)
		if (t != 1023 && t != 1024)
			ck_assert_str_eq(event(t)->name, "band");
	ck_assert_str_eq(event(1023)->name, "inside");
	ck_assert_str_eq(event(1024)->name, "edge");
	ck_assert_str_eq(event(999)->name, "user event");
	ck_assert_str_eq(event(1101)->name, "user event");
	for (t = -1030; t <= -1015; t++)
		ck_assert_str_eq(event(t)->name, "low band");
	ck_assert_ptr_null(picl_schema_event(schema, -1031));
	ck_assert_int_eq(event(-1014)->type, -1014);
	unlink(path);
	free(path);
}
END_TEST

START_TEST(test_missing_file)
{
	struct picl_error err;
	struct picl_schema *s;

	memset(&err, 0, sizeof(err));
	s = picl_schema_load("/nonexistent/dir/picl.yaml", &err);
	ck_assert_ptr_null(s);
	ck_assert_int_eq(err.code, PICL_ERR_IO);
	ck_assert_int_eq(err.sys_errno, ENOENT);
	ck_assert_str_eq(err.path, "/nonexistent/dir/picl.yaml");
	ck_assert_uint_eq(err.mark.line, 0);
	/* a directory opens but cannot be read */
	s = picl_schema_load("/tmp", &err);
	ck_assert_ptr_null(s);
	ck_assert_int_eq(err.code, PICL_ERR_IO);
	ck_assert_int_eq(err.sys_errno, EISDIR);
	/* err may be NULL */
	ck_assert_ptr_null(picl_schema_load("/nonexistent/dir/picl.yaml", NULL));
}
END_TEST

START_TEST(test_default_path)
{
	struct picl_error err;
	struct picl_schema *s;
	char *old = getenv("PICL_SCHEMA") ? strdup(getenv("PICL_SCHEMA")) : NULL;

	setenv("PICL_SCHEMA", schema_path(), 1);
	ck_assert_str_eq(picl_schema_default_path(), schema_path());
	memset(&err, 0, sizeof(err));
	s = picl_schema_load_default(&err);
	ck_assert_ptr_nonnull(s);
	ck_assert_ptr_nonnull(picl_schema_event(s, -21));
	picl_schema_free(s);

	unsetenv("PICL_SCHEMA");
	ck_assert_ptr_nonnull(strstr(picl_schema_default_path(), "/picl.yaml"));
	if (old) {
		setenv("PICL_SCHEMA", old, 1);
		free(old);
	}
	picl_schema_free(NULL);
	ck_assert_ptr_null(picl_schema_event(NULL, -21));
	ck_assert_ptr_null(picl_schema_record(NULL, -2));
}
END_TEST

START_TEST(test_malformed_yaml)
{
	struct picl_error err;
	char buf[512];

	/* a mapping value where none is allowed: libyaml's mark, 1-based */
	err = load_bad("events:\n"
		       "  - type: -21\n"
		       "    name: send0 category: x\n");
	ck_assert_int_eq(err.code, PICL_ERR_SCHEMA);
	ck_assert_uint_eq(err.mark.line, 3);
	ck_assert_uint_eq(err.mark.column, 25);
	ck_assert_ptr_nonnull(strstr(err.problem, "mapping values are not allowed"));

	/* an unclosed flow list */
	err = load_bad("events:\n"
		       "  - {type: 7, name: x, produces: [mark, category: user}\n");
	ck_assert_int_eq(err.code, PICL_ERR_SCHEMA);
	ck_assert_uint_eq(err.mark.line, 2);
	ck_assert_uint_gt(err.mark.column, 0);

	/* a tab where indentation is expected */
	err = load_bad("events:\n\t- type: 7\n");
	ck_assert_int_eq(err.code, PICL_ERR_SCHEMA);
	ck_assert_uint_eq(err.mark.line, 2);
	ck_assert_uint_eq(err.mark.column, 1);

	picl_error_format(&err, buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, ":2:1: "));

	/* an unquoted descriptor: libyaml's words, and what to do */
	err = load_bad("records:\n"
		       "  - type: 3\n"
		       "    name: r\n"
		       "    category: user\n"
		       "    descriptor: %lf\n");
	ck_assert_int_eq(err.code, PICL_ERR_SCHEMA);
	ck_assert_uint_eq(err.mark.line, 5);
	ck_assert_uint_eq(err.mark.column, 17);
	ck_assert_ptr_nonnull(strstr(err.problem, "cannot start any token"));
	ck_assert_ptr_nonnull(strstr(err.problem, "quote"));

	/* bad UTF-8: libyaml gives an offset only; we find line and column */
	err = load_bad("version: 1\ndescription: ab\xff\n");
	ck_assert_int_eq(err.code, PICL_ERR_SCHEMA);
	ck_assert_uint_eq(err.mark.line, 2);
	ck_assert_uint_eq(err.mark.column, 16);
	ck_assert_ptr_nonnull(strstr(err.problem, "UTF-8"));
}
END_TEST

START_TEST(test_unknown_key)
{
	struct picl_error err = load_bad(
		"events:\n"
		"  - type: 7\n"
		"    name: solver\n"
		"    colour: red\n"
		"    category: user\n"
		"    produces: mark\n");

	ck_assert_int_eq(err.code, PICL_ERR_SCHEMA);
	ck_assert_uint_eq(err.mark.line, 4);
	ck_assert_uint_eq(err.mark.column, 5);
	ck_assert_ptr_nonnull(strstr(err.problem, "unknown key \"colour\""));
	ck_assert_ptr_null(strstr(err.problem, "did you mean"));

	err = load_bad("version: 1\nevent: []\n");
	ck_assert_uint_eq(err.mark.line, 2);
	ck_assert_uint_eq(err.mark.column, 1);
	ck_assert_ptr_nonnull(strstr(err.problem, "unknown key \"event\""));
	/* a misspelling names the key it was most likely meant to be */
	ck_assert_ptr_nonnull(strstr(err.problem, "(did you mean \"events\"?)"));
	err = load_bad("events:\n  - {type: 7, nmae: a, category: user, produces: mark}\n");
	ck_assert_ptr_nonnull(strstr(err.problem, "(did you mean \"name\"?)"));
	err = load_bad("events:\n  - {type: 7, name: a, category: user, produces: mark,\n"
		       "     mark: {count: 1, descripter: \"%d\"}}\n");
	ck_assert_ptr_nonnull(strstr(err.problem, "(did you mean \"descriptor\"?)"));
	/* keys equally close ("name", "mark", "range"): no guess */
	err = load_bad("events:\n  - {type: 7, mane: a, category: user, produces: mark}\n");
	ck_assert_ptr_nonnull(strstr(err.problem, "unknown key \"mane\" in an event"));
	ck_assert_ptr_null(strstr(err.problem, "did you mean"));
}
END_TEST

/* A value of the wrong kind is told as what was written: nothing after
 * the colon, or a quoted "true" where a boolean goes. */
START_TEST(test_wrong_kind_named)
{
	struct picl_error err = load_bad("version: 1\nevents:\n");

	ck_assert_uint_eq(err.mark.line, 2);
	ck_assert_ptr_nonnull(strstr(err.problem,
				     "expected a list for \"events\", found nothing (an empty value)"));
	err = load_bad("events:\n  - {type: 7, name: a, category: user, produces: mark,\n"
		       "     mark: {count: 1, descriptor: \"%d\",\n"
		       "            fields: [{name: n, kind: int, volume: \"true\"}]}}\n");
	ck_assert_uint_eq(err.mark.line, 4);
	ck_assert_ptr_nonnull(strstr(err.problem,
				     "expected true or false for \"volume\", found the quoted text \"true\""));
	err = load_bad("events:\n  - {type: 7, name: a, category: user, produces: mark,\n"
		       "     mark: {count: 1, descriptor: \"%d\",\n"
		       "            fields: [{name: n, kind: int, volume: maybe}]}}\n");
	ck_assert_ptr_nonnull(strstr(err.problem,
				     "expected true or false for \"volume\", found \"maybe\""));
}
END_TEST

START_TEST(test_duplicate_type)
{
	struct picl_error err = load_bad(
		"events:\n"
		"  - {type: 7, name: a, category: user, produces: mark}\n"
		"  - {type: 8, name: b, category: user, produces: mark}\n"
		"  - {type: 7, name: c, category: user, produces: mark}\n");

	ck_assert_int_eq(err.code, PICL_ERR_SCHEMA);
	ck_assert_uint_eq(err.mark.line, 4);
	ck_assert_uint_eq(err.mark.column, 12);
	ck_assert_ptr_nonnull(strstr(err.problem, "event type 7 is defined twice"));
	ck_assert_ptr_nonnull(strstr(err.problem, "line 2"));

	/* an event name twice in one file: names are unique display names */
	err = load_bad("events:\n"
		       "  - {type: 7, name: solver, category: user, produces: mark}\n"
		       "  - {type: 8, name: b, category: user, produces: mark}\n"
		       "  - {range: [9, 10], name: solver, category: user, produces: mark}\n");
	ck_assert_int_eq(err.code, PICL_ERR_SCHEMA);
	ck_assert_uint_eq(err.mark.line, 4);
	ck_assert_uint_eq(err.mark.column, 28);
	ck_assert_ptr_nonnull(strstr(err.problem, "event name \"solver\" is given twice"));
	ck_assert_ptr_nonnull(strstr(err.problem, "line 2, column 21"));

	/* a key twice in one mapping */
	err = load_bad("events:\n"
		       "  - {type: 7, name: a, name: b, category: user, produces: mark}\n");
	ck_assert_uint_eq(err.mark.line, 2);
	ck_assert_uint_eq(err.mark.column, 24);
	ck_assert_ptr_nonnull(strstr(err.problem, "appears twice"));
}
END_TEST

START_TEST(test_semantic_errors)
{
	struct picl_error err;

	/* wrong type of value */
	err = load_bad("events:\n  - {type: seven, name: a, category: user, produces: mark}\n");
	ck_assert_uint_eq(err.mark.line, 2);
	ck_assert_uint_eq(err.mark.column, 12);
	ck_assert_ptr_nonnull(strstr(err.problem, "expected an integer for \"type\""));

	err = load_bad("events:\n  - {type: \"7\", name: a, category: user, produces: mark}\n");
	ck_assert_ptr_nonnull(strstr(err.problem, "quoted"));

	err = load_bad("events:\n  - {type: 99999999999, name: a, category: user, produces: mark}\n");
	ck_assert_ptr_nonnull(strstr(err.problem, "out of range"));

	err = load_bad("events: {type: 7}\n");
	ck_assert_uint_eq(err.mark.line, 1);
	ck_assert_uint_eq(err.mark.column, 9);
	ck_assert_ptr_nonnull(strstr(err.problem, "expected a list"));

	err = load_bad("events:\n  - {type: 7, name: [a], category: user, produces: mark}\n");
	ck_assert_ptr_nonnull(strstr(err.problem, "expected a text for \"name\""));

	/* missing required key: the mark of the mapping */
	err = load_bad("events:\n"
		       "  - type: 7\n"
		       "    category: user\n"
		       "    produces: mark\n");
	ck_assert_uint_eq(err.mark.line, 2);
	ck_assert_uint_eq(err.mark.column, 5);
	ck_assert_ptr_nonnull(strstr(err.problem, "missing key \"name\""));

	err = load_bad("events:\n  - {name: a, category: user, produces: mark}\n");
	ck_assert_ptr_nonnull(strstr(err.problem, "missing key \"type\""));

	/* unknown words */
	err = load_bad("events:\n  - {type: 7, name: a, category: weird, produces: mark}\n");
	ck_assert_ptr_nonnull(strstr(err.problem, "unknown category \"weird\""));
	ck_assert_uint_eq(err.mark.column, 34);

	err = load_bad("events:\n  - type: 7\n    name: a\n    category: user\n"
		       "    produces: entry/exit\n"
		       "    entry: {descriptor: \"%d\", count: 1,\n"
		       "            fields: [{name: x, kind: int, role: sender}]}\n");
	ck_assert_uint_eq(err.mark.line, 7);
	ck_assert_ptr_nonnull(strstr(err.problem, "unknown role \"sender\""));

	/* a control string the library cannot compile (validate would
	 * skip the data checks of every record it describes) */
	err = load_bad("events:\n  - type: 7\n    name: a\n    category: user\n"
		       "    produces: entry/exit\n"
		       "    entry: {descriptor: \"%d%q\", count: 1,\n"
		       "            fields: [{name: x, kind: int}]}\n");
	ck_assert_uint_eq(err.mark.line, 6);
	ck_assert_uint_eq(err.mark.column, 25);
	ck_assert_ptr_nonnull(strstr(err.problem, "descriptor \"%d%q\""));
	ck_assert_ptr_nonnull(strstr(err.problem, "column 4 of it"));

	err = load_bad("records:\n  - {type: 7, name: r, category: user, descriptor: \"%n\","
		       " count: 1}\n");
	ck_assert_uint_eq(err.mark.line, 2);
	ck_assert_ptr_nonnull(strstr(err.problem, "descriptor \"%n\""));

	err = load_bad("aliases:\n  - {alias: 9, descriptor: \"no conversion\"}\n");
	ck_assert_uint_eq(err.mark.line, 2);
	ck_assert_ptr_nonnull(strstr(err.problem, "descriptor \"no conversion\""));

	/* data that contradict themselves */
	err = load_bad("events:\n  - type: 7\n    name: a\n    category: user\n"
		       "    produces: entry/exit\n"
		       "    entry: {descriptor: \"%d\", count: 2,\n"
		       "            fields: [{name: x, kind: int}]}\n");
	ck_assert_uint_eq(err.mark.line, 7);
	ck_assert_ptr_nonnull(strstr(err.problem, "1 fields listed"));

	err = load_bad("events:\n  - type: 7\n    name: a\n    category: user\n"
		       "    produces: entry/exit\n"
		       "    entry: {descriptor: \"%d\", count: 1,\n"
		       "            fields: [{name: x, kind: double}]}\n");
	ck_assert_ptr_nonnull(strstr(err.problem, "kind double"));

	/* count 0: no fields either (picl-schema(5): exactly count of them) */
	err = load_bad("events:\n  - type: 7\n    name: a\n    category: user\n"
		       "    produces: entry/exit\n"
		       "    exit: {count: 0,\n"
		       "           fields: [{name: x, kind: int}]}\n");
	ck_assert_int_eq(err.code, PICL_ERR_SCHEMA);
	ck_assert_uint_eq(err.mark.line, 7);
	ck_assert_uint_eq(err.mark.column, 12);
	ck_assert_ptr_nonnull(strstr(err.problem, "1 field listed in the exit data, whose count is 0"));

	err = load_bad("events:\n  - type: 7\n    name: a\n    category: user\n"
		       "    produces: entry/exit\n"
		       "    entry: {descriptor: \"%d\", count: 1, picl-count: 2}\n");
	ck_assert_ptr_nonnull(strstr(err.problem, "picl-count 2 exceeds"));

	err = load_bad("events:\n  - type: 7\n    name: a\n    category: user\n"
		       "    produces: mark\n"
		       "    entry: {count: 0}\n");
	ck_assert_uint_eq(err.mark.line, 6);
	ck_assert_ptr_nonnull(strstr(err.problem, "entry data"));

	err = load_bad("events:\n  - {range: [5, 1], name: a, category: user, produces: mark}\n");
	ck_assert_ptr_nonnull(strstr(err.problem, "is empty"));

	/* aliases, several documents, the wrong format */
	err = load_bad("events:\n  - &e {type: 7, name: a, category: user, produces: mark}\n"
		       "  - *e\n");
	ck_assert_uint_eq(err.mark.line, 3);
	ck_assert_ptr_nonnull(strstr(err.problem, "aliases"));

	err = load_bad("version: 1\n---\nversion: 1\n");
	ck_assert_ptr_nonnull(strstr(err.problem, "more than one"));

	err = load_bad("");
	ck_assert_ptr_nonnull(strstr(err.problem, "no YAML document"));

	err = load_bad("- 1\n");
	ck_assert_ptr_nonnull(strstr(err.problem, "expected a mapping"));

	err = load_bad("version: 2\n");
	ck_assert_ptr_nonnull(strstr(err.problem, "version 2"));

	err = load_bad("format: other\n");
	ck_assert_ptr_nonnull(strstr(err.problem, "unknown format"));
}
END_TEST

/* A record's data contradict themselves as an event's do: a descriptor or
 * fields with count 0 (the spec's Table 1: no data, no descriptor), and a
 * field list that is not one application of the control string is told
 * as such, not as "count 1" when the record says another count. */
START_TEST(test_record_contradictions)
{
	struct picl_error err;

	err = load_bad("records:\n"
		       "  - {type: 3, name: r, category: user, count: 0, descriptor: \"%d\"}\n");
	ck_assert_int_eq(err.code, PICL_ERR_SCHEMA);
	ck_assert_uint_eq(err.mark.line, 2);
	ck_assert_uint_eq(err.mark.column, 50);
	ck_assert_ptr_nonnull(strstr(err.problem, "a descriptor for a record whose count is 0"));

	err = load_bad("records:\n"
		       "  - {type: 3, name: r, category: user, count: 0,\n"
		       "     fields: [{name: x, kind: int}]}\n");
	ck_assert_int_eq(err.code, PICL_ERR_SCHEMA);
	ck_assert_uint_eq(err.mark.line, 3);
	ck_assert_uint_eq(err.mark.column, 6);
	ck_assert_ptr_nonnull(strstr(err.problem, "1 field listed in a record whose count is 0"));

	err = load_bad("records:\n"
		       "  - {type: 3, name: r, category: user, descriptor: \"%d\", count: 3,\n"
		       "     fields: [{name: a, kind: int}, {name: b, kind: int},\n"
		       "              {name: c, kind: int}]}\n");
	ck_assert_int_eq(err.code, PICL_ERR_SCHEMA);
	ck_assert_uint_eq(err.mark.line, 3);
	ck_assert_ptr_null(strstr(err.problem, "count 1"));
	ck_assert_ptr_nonnull(strstr(err.problem,
		"3 fields listed, but one application of descriptor \"%d\" has 1"));
}
END_TEST

/* Names and commands are shown on one line of a tool's messages: none is
 * empty or holds a line break or another control character (which would
 * break that line, or drive the terminal). */
START_TEST(test_names_one_line)
{
	struct picl_error err;

	err = load_bad("events:\n  - {type: 7, name: \"\", category: user, produces: mark}\n");
	ck_assert_int_eq(err.code, PICL_ERR_SCHEMA);
	ck_assert_uint_eq(err.mark.line, 2);
	ck_assert_uint_eq(err.mark.column, 21);
	ck_assert_ptr_nonnull(strstr(err.problem, "\"name\" is empty"));

	err = load_bad("events:\n  - {type: 7, name: \"sol\\nver\", category: user, produces: mark}\n");
	ck_assert_int_eq(err.code, PICL_ERR_SCHEMA);
	ck_assert_uint_eq(err.mark.line, 2);
	ck_assert_uint_eq(err.mark.column, 21);
	ck_assert_ptr_nonnull(strstr(err.problem, "control character"));

	err = load_bad("events:\n  - {type: 7, name: a, command: \"x\\e[31m\", category: user,"
		       " produces: mark}\n");
	ck_assert_uint_eq(err.mark.column, 33);
	ck_assert_ptr_nonnull(strstr(err.problem, "control character"));

	err = load_bad("records:\n  - {type: 3, name: \"r\\tr\", category: user}\n");
	ck_assert_uint_eq(err.mark.column, 21);
	ck_assert_ptr_nonnull(strstr(err.problem, "control character"));

	err = load_bad("records:\n  - {type: 3, name: r, category: user, descriptor: \"%d\","
		       " count: 1, fields: [{name: \"\", kind: int}]}\n");
	ck_assert_ptr_nonnull(strstr(err.problem, "\"name\" is empty"));

	/* a description may span lines */
	{
		char *path = temp_schema("events:\n  - type: 7\n    name: a\n"
					 "    category: user\n    produces: mark\n"
					 "    description: |\n      two\n      lines\n");
		struct picl_schema *s;

		memset(&err, 0, sizeof(err));
		s = picl_schema_load(path, &err);
		ck_assert_ptr_nonnull(s);
		picl_schema_free(s);
		unlink(path);
		free(path);
	}
}
END_TEST

/* Offsets and columns count bytes (picl_mark), where libyaml's marks count
 * characters: "é" is two bytes. */
START_TEST(test_marks_count_bytes)
{
	struct picl_error err;

	/* "  - {name: \"ééé\", type: x7": x is character 25, byte 28 */
	err = load_bad("events:\n"
		       "  - {name: \"\xc3\xa9\xc3\xa9\xc3\xa9\", type: x7, category: user, produces: mark}\n");
	ck_assert_int_eq(err.code, PICL_ERR_SCHEMA);
	ck_assert_uint_eq(err.mark.line, 2);
	ck_assert_uint_eq(err.mark.column, 28);
	ck_assert_uint_eq(err.mark.offset, 8 + 27);

	/* a UTF-8 byte order mark is three bytes of the file too */
	err = load_bad("\xef\xbb\xbf" "events:\n"
		       "  - {name: \"\xc3\xa9\", type: x7, category: user, produces: mark}\n");
	ck_assert_uint_eq(err.mark.line, 2);
	ck_assert_uint_eq(err.mark.column, 24);
	ck_assert_uint_eq(err.mark.offset, 3 + 8 + 23);

	/* CRLF line ends; a YAML syntax error (libyaml's own mark) */
	err = load_bad("events:\r\n"
		       "  - type: 7\r\n"
		       "    name: \xc3\xa9\xc3\xa9 category: x\r\n");
	ck_assert_uint_eq(err.mark.line, 3);
	ck_assert_uint_eq(err.mark.column, 24);
	ck_assert_uint_eq(err.mark.offset, 9 + 13 + 23);
	ck_assert_ptr_nonnull(strstr(err.problem, "mapping values are not allowed"));

	/* a type defined twice, both places in bytes */
	err = load_bad("events:\n"
		       "  - {name: \"\xc3\xa9\", type: 7, category: user, produces: mark}\n"
		       "  - {name: \"\xc3\xa9\xc3\xa9\", type: 7, category: user, produces: mark}\n");
	ck_assert_uint_eq(err.mark.line, 3);
	ck_assert_uint_eq(err.mark.column, 26);
	ck_assert_ptr_nonnull(strstr(err.problem, "first at line 2, column 24"));
}
END_TEST

/* The problem text never interprets % sequences from the YAML file. */
START_TEST(test_no_format_injection)
{
	struct picl_error err = load_bad("events:\n  - {type: 7, name: a, \"%s%n%s\": 1}\n");

	ck_assert_ptr_nonnull(strstr(err.problem, "%s%n%s"));
}
END_TEST

static Suite *schema_suite(void)
{
	Suite *s = suite_create("schema");
	TCase *tc = tcase_create("spec");
	TCase *tl = tcase_create("load");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_every_event_type);
	tcase_add_test(tc, test_send0);
	tcase_add_test(tc, test_recv0);
	tcase_add_test(tc, test_request_ids);
	tcase_add_test(tc, test_marks_and_none);
	tcase_add_test(tc, test_volume_fields);
	tcase_add_test(tc, test_other_data);
	tcase_add_test(tc, test_records);
	tcase_add_test(tc, test_subset_members);
	tcase_add_test(tc, test_aliases_builtin);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(tl, setup, teardown);
	tcase_add_test(tl, test_extend_user_event);
	tcase_add_test(tl, test_record_contradictions);
	tcase_add_test(tl, test_names_one_line);
	tcase_add_test(tl, test_extend_across_direct_border);
	tcase_add_test(tl, test_extend_range_replaced_is_newest);
	tcase_add_test(tl, test_missing_file);
	tcase_add_test(tl, test_default_path);
	tcase_add_test(tl, test_malformed_yaml);
	tcase_add_test(tl, test_marks_count_bytes);
	tcase_add_test(tl, test_unknown_key);
	tcase_add_test(tl, test_wrong_kind_named);
	tcase_add_test(tl, test_duplicate_type);
	tcase_add_test(tl, test_semantic_errors);
	tcase_add_test(tl, test_no_format_injection);
	suite_add_tcase(s, tl);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(schema_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
